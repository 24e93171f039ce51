//! `lanecall demo --lanes 3`: three whole lanes, the centre and its
//! embedded broker in one command. The centre's standings are the lanes'
//! own sheets, and when it stops the centre's copy of every journal is the
//! lane's journal byte for byte.

mod support;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use support::centre::{centre_totals, files, get, lane_series};
use support::eventually;

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn three_lanes_and_the_centre_in_one_command_agree_and_lose_nothing() {
    let dir = std::env::temp_dir().join(format!("lanecall-centre-demo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut child = Command::new(env!("CARGO_BIN_EXE_lanecall"))
        .args(["demo", "--lanes", "3", "--speed", "10", "--for", "25"])
        .args(["--listen", "127.0.0.1:0", "--state-dir"])
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("lanecall demo runs");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut centre = None;
    let mut pages = Vec::new();
    let mut pin = None;
    let mut lanes = BTreeMap::new();
    while lanes.len() < 3 {
        let line = lines
            .next()
            .expect("the demo prints the centre and the three lanes")
            .unwrap();
        let port = |url: &str| -> u16 {
            let hostport = url.trim_start_matches("http://").split('/').next().unwrap();
            hostport.rsplit(':').next().unwrap().parse().unwrap()
        };
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .map(str::to_owned);
        if let Some(p) = line.strip_prefix("Chief judge PIN (the centre and every lane): ") {
            pin = Some(p.to_owned());
        } else if line.starts_with("Centre:") {
            centre = url.as_deref().map(port);
        } else if ["TV:", "Protocol:", "Results:"]
            .iter()
            .any(|p| line.starts_with(p))
        {
            pages.extend(url);
        } else if let Some(rest) = line.strip_prefix("Lane ") {
            let (n, url) = rest.split_once(": ").unwrap();
            lanes.insert(
                n.parse::<u32>().unwrap(),
                port(url.split_whitespace().next().unwrap()),
            );
        }
    }
    let centre = centre.expect("the demo prints `Centre: <url>`");
    assert_eq!(pin.as_deref(), Some("123456"), "the demo prints the PIN");
    // Every page it names answers.
    assert_eq!(pages.len(), 3, "{pages:?}");
    for url in &pages {
        let path = url
            .splitn(4, '/')
            .nth(3)
            .map_or("/".to_owned(), |p| format!("/{p}"));
        let r = support::http::Http::new(centre)
            .request("GET", &path, &[], b"")
            .expect("answered");
        assert_eq!(r.status, 200, "{url}");
    }

    // Every lane online at the centre.
    eventually("every lane online at the centre", || {
        let online: Vec<u64> = get(centre, "/api/lanes")
            .and_then(|v| {
                v.as_array().map(|a| {
                    a.iter()
                        .filter(|l| l["online"] == true)
                        .filter_map(|l| l["lane"].as_u64())
                        .collect()
                })
            })
            .unwrap_or_default();
        if online == [1, 2, 3] {
            Ok(())
        } else {
            Err(format!("lanes online at the centre: {online:?}"))
        }
    });

    // Once balls have been bowled, the standings equal the lanes' own
    // sheets at some moment between balls (a ball may land between the two
    // reads: try again).
    eventually("the centre's standings to equal the lanes' sheets", || {
        let from_lanes = lane_series(&lanes);
        let from_centre = centre_totals(centre);
        let scored = from_lanes
            .as_ref()
            .is_some_and(|m| m.values().filter(|(_, s)| *s > 0).count() >= 3);
        if scored && from_lanes == from_centre {
            Ok(())
        } else {
            Err(format!("\nlanes  {from_lanes:?}\ncentre {from_centre:?}"))
        }
    });

    // The built-in programme: its categories (a B1, a B2 and a B3 a lane,
    // men and women combined), its first block pushed by the demo's
    // director and every game placed in it.
    let standings = get(centre, "/api/standings").expect("the standings");
    let categories: Vec<(&str, bool)> = standings["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["id"].as_str().unwrap(), c["combined"] == true))
        .collect();
    assert_eq!(categories, [("B1", true), ("B2", true), ("B3", true)]);
    assert_eq!(
        standings["unplaced"],
        serde_json::json!([]),
        "{standings:#}"
    );
    let pushes = get(centre, "/api/pushes").expect("the pushes");
    assert_eq!(pushes[0]["block"], "Q1", "{pushes:#}");
    assert!(dir.join("centre/programme.toml").exists());

    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    // Stopped: the centre holds every line of every lane's journal.
    for lane in 1..=3 {
        let own = files(&dir.join(format!("lane{lane}/journal")));
        let copy = files(&dir.join(format!("centre/lanes/{lane}")));
        assert!(!own.is_empty());
        assert_eq!(
            own.keys().collect::<Vec<_>>(),
            copy.keys().collect::<Vec<_>>(),
            "lane {lane}'s journal files"
        );
        for (name, bytes) in &own {
            assert!(
                copy[name] == *bytes,
                "lane {lane}: the centre's {name} differs from the lane's ({} vs {} bytes)",
                copy[name].len(),
                bytes.len()
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

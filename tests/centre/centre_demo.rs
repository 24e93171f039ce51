//! `lanecall demo --lanes 3`: three whole lanes, the centre and its
//! embedded broker in one command. The centre's standings are the lanes'
//! own sheets, and when it stops the centre's copy of every journal is the
//! lane's journal byte for byte.

use crate::support;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use support::centre::{centre_totals, files, get, lane_series};
use support::eventually;

/// A running `lanecall demo --lanes`, and what it printed of itself.
struct Demo {
    child: Child,
    centre: u16,
    pin: Option<String>,
    /// The pages it names (TV, protocol, results).
    pages: Vec<String>,
    /// Each lane's web port, by lane number.
    lanes: BTreeMap<u32, u16>,
}

impl Demo {
    /// Starts `lanecall demo --lanes N` with `args` in `dir`; once it has
    /// printed the centre and its `n` lanes, the rest of what it prints is
    /// read and dropped.
    fn start(dir: &Path, n: usize, args: &[&str]) -> Demo {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lanecall"))
            .args(["demo", "--lanes", &n.to_string()])
            .args(args)
            .args(["--listen", "127.0.0.1:0", "--state-dir"])
            .arg(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("lanecall demo runs");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let (mut centre, mut pin, mut pages, mut lanes) = (None, None, Vec::new(), BTreeMap::new());
        while lanes.len() < n {
            let line = lines
                .next()
                .expect("the demo prints the centre and its lanes")
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
        std::thread::spawn(move || lines.for_each(drop));
        Demo {
            child,
            centre: centre.expect("the demo prints `Centre: <url>`"),
            pin,
            pages,
            lanes,
        }
    }

    /// Stops it as systemd would (SIGTERM); its exit status.
    fn stop(mut self) -> std::process::ExitStatus {
        support::terminate(&mut self.child)
    }
}

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn three_lanes_and_the_centre_in_one_command_agree_and_lose_nothing() {
    let dir = crate::support::Scratch::new("centre-demo");
    let mut demo = Demo::start(&dir, 3, &["--speed", "10", "--for", "25"]);
    let (centre, lanes) = (demo.centre, demo.lanes.clone());
    assert_eq!(
        demo.pin.as_deref(),
        Some("123456"),
        "the demo prints the PIN"
    );
    let pages = demo.pages.clone();

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

    let status = demo.child.wait().unwrap();
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
}

/// A whole small championship run from the director's page in a real
/// browser (tests/browser/championship.mjs: the entries imported from CSV,
/// the qualifying and the trios pushed, the standings, the B1 round robin
/// and step-ladder proposed, confirmed and pushed, a tie's roll-off
/// recorded, the protocol printed to PDF, the TV and the page measured).
/// Then the centre's standings are checked against the lanes' own
/// journals, each block's replayed on its own: every bowler's qualifying
/// games, every trio's game, every round-robin line.
#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_director_runs_a_whole_small_championship_from_the_page() {
    if !support::browser_tools() {
        return;
    }
    let dir = crate::support::Scratch::new("championship");
    // Seed 7 ties the final: the page records its roll-off too.
    let demo = Demo::start(&dir, 3, &["--speed", "300", "--seed", "7"]);
    let pin = demo.pin.clone().expect("the demo prints the PIN");
    support::run_browser("championship.mjs", demo.centre, &pin);
    let standings = get(demo.centre, "/api/standings").expect("the standings");
    let status = demo.stop();
    assert!(status.success(), "{status:?}");

    // Every bowler's games as the lanes journaled them, by name and block.
    let bowled = journaled_games(&dir, 3);
    let list = |v: &serde_json::Value| -> Vec<u64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect()
    };
    let games = |name: &serde_json::Value, block: &str| -> &Vec<u64> {
        &bowled[&(name.as_str().unwrap().to_owned(), block.to_owned())]
    };
    let mut qualified = 0;
    for c in standings["categories"].as_array().unwrap() {
        for e in c["entries"].as_array().unwrap() {
            assert_eq!(
                &list(&e["games"]),
                games(&e["name"], "Q1"),
                "{}'s Q1",
                e["name"]
            );
            qualified += 1;
        }
    }
    assert_eq!(qualified, 9);
    let teams = standings["teams"].as_array().unwrap();
    let trios = teams.iter().find(|t| t["event"] == "trios").unwrap();
    for e in trios["entries"].as_array().unwrap() {
        let members = e["members"].as_array().unwrap();
        let game: u64 = members.iter().map(|m| games(m, "T1")[0]).sum();
        assert_eq!(list(&e["games"]), [game], "trio {}", e["name"]);
    }
    let finals = &standings["finals"]["B1"];
    let round_robin = finals["round_robin"].as_array().unwrap();
    assert_eq!(round_robin.len(), 3);
    for r in round_robin {
        assert_eq!(
            &list(&r["games"]),
            games(&r["name"], "RR-B1"),
            "{}'s round robin",
            r["name"]
        );
    }
    assert_eq!(finals["step_ladder"]["places"].as_array().unwrap().len(), 3);
}

/// Every bowler's games as lanes 1 to `lanes` of the demo in `dir`
/// journaled them, each journal replayed on its own (`lanecall replay
/// --json`): by the name the lane had and the centre's block id the
/// lineup carried. A bowler twice in one block fails.
fn journaled_games(dir: &Path, lanes: u32) -> BTreeMap<(String, String), Vec<u64>> {
    let mut bowled = BTreeMap::new();
    for lane in 1..=lanes {
        let journals = dir.join(format!("lane{lane}/journal"));
        for file in files(&journals).keys() {
            let out = Command::new(env!("CARGO_BIN_EXE_lanecall"))
                .arg("replay")
                .arg(journals.join(file))
                .arg("--json")
                .output()
                .expect("lanecall replay runs");
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("replay --json");
            let blocks = v["blocks"].as_array().cloned().unwrap_or_default();
            for b in v["bowlers"].as_array().unwrap() {
                let name = blocks
                    .iter()
                    .find(|x| x["block"] == b["block"])
                    .and_then(|x| x["name"].as_str())
                    .unwrap_or_else(|| panic!("lane {lane}'s {file}: no centre's block for {b}"));
                let totals = b["games"].as_array().unwrap().iter();
                let games = totals.map(|g| g["total"].as_u64().unwrap()).collect();
                let who = (b["name"].as_str().unwrap().to_owned(), name.to_owned());
                assert!(bowled.insert(who, games).is_none(), "lane {lane}: {b}");
            }
        }
    }
    bowled
}

/// The programme file of a day made on the page: a title, dates, a place
/// and judges, nothing else.
const BARE_PROGRAMME: &str = "title = \"Open championship of the region\"\n\
    title_ru = \"Открытый чемпионат области\"\n\
    dates = \"3 December 2026\"\n\
    place = \"Tula, Bowling Centre\"\n\
    judges = [\"chief judge: Ирина Орлова\", \"chief secretary: Павел Соколов\"]\n";

/// A whole championship day from the Russian page alone
/// (tests/browser/day.mjs): `demo --lanes 2` with a programme file of a
/// title and judges only, so the demo pushes nothing; the events, blocks,
/// finals, entries (a form, a Russian CSV), lanes, pushes, a late entry, a
/// withdrawal, a name corrected, refused one-click changes, a hold and the
/// finals all made on the page. Then every standing is checked against the
/// lanes' journals, the corrected name's games all hers (Q1 journaled under
/// the name she had then, the round robin under the new one).
#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_championship_day_is_run_from_the_russian_page_alone() {
    if !support::browser_tools() {
        return;
    }
    let dir = crate::support::Scratch::new("day");
    let file = dir.join("bare.toml");
    std::fs::write(&file, BARE_PROGRAMME).unwrap();
    let state = dir.join("state");
    let demo = Demo::start(
        &state,
        2,
        &["--speed", "300", "--programme", file.to_str().unwrap()],
    );
    let pin = demo.pin.clone().expect("the demo prints the PIN");
    support::run_browser("day.mjs", demo.centre, &pin);
    let standings = get(demo.centre, "/api/standings").expect("the standings");
    let entries = get(demo.centre, "/api/entries").expect("the entries");
    let status = demo.stop();
    assert!(status.success(), "{status:?}");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        BARE_PROGRAMME,
        "the programme file is never edited"
    );

    let bowled = journaled_games(&state, 2);
    let list = |v: &serde_json::Value| -> Vec<u64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect()
    };
    // The name each journal has: the corrected bowler's Q1 went under the
    // name she had then.
    let renamed: BTreeMap<String, String> = entries["renamed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["to"].as_str().unwrap().to_owned(),
                r["from"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        renamed,
        BTreeMap::from([("Ольга Сидорова".to_owned(), "Ольга Сидорва".to_owned())])
    );
    let games = |name: &str, blocks: &[&str]| -> Vec<u64> {
        let names = [Some(name), renamed.get(name).map(String::as_str)];
        let mut found = Vec::new();
        for b in blocks {
            for n in names.iter().flatten() {
                found.extend(bowled.get(&(n.to_string(), b.to_string())));
            }
        }
        assert_eq!(found.len(), 1, "{name}'s games in {blocks:?}: {found:?}");
        found[0].clone()
    };
    let mut ranked = Vec::new();
    for c in standings["categories"].as_array().unwrap() {
        for e in c["entries"].as_array().unwrap() {
            let name = e["name"].as_str().unwrap();
            if e["withdrawn"] == true || name == "Павел Ким" {
                assert!(e["rank"].is_null(), "{e}");
                continue;
            }
            assert_eq!(
                list(&e["games"]),
                games(name, &["Q1", "Q2"]),
                "{name}'s qualifying"
            );
            ranked.push(name.to_owned());
        }
    }
    ranked.sort();
    assert_eq!(
        ranked,
        [
            "Анна Смирнова",
            "Дарья Волкова",
            "Иван Петров",
            "Мария Котова",
            "Ольга Сидорова",
            "Сергей Волков"
        ]
    );
    let finals = &standings["finals"]["B1"];
    let round_robin = finals["round_robin"].as_array().unwrap();
    assert_eq!(round_robin.len(), 5, "the late entry in the round robin");
    for r in round_robin {
        let name = r["name"].as_str().unwrap();
        let own = games(name, &["RR-B1"]);
        assert_eq!(own.len(), 5, "{name}: the round robin of 5 games");
        assert_eq!(list(&r["games"]), own, "{name}'s round robin");
    }
    // The corrected bowler: Q1 under the old name, the round robin under
    // the new one, both hers.
    assert!(bowled.contains_key(&("Ольга Сидорва".to_owned(), "Q1".to_owned())));
    assert!(bowled.contains_key(&("Ольга Сидорова".to_owned(), "RR-B1".to_owned())));
    assert!(!bowled.contains_key(&("Ольга Сидорва".to_owned(), "RR-B1".to_owned())));
    let ladder = &finals["step_ladder"];
    for m in ladder["matches"].as_array().unwrap() {
        // Its block: the step-ladder block both its bowlers bowled (the
        // two matches never pair the same two).
        let (a, b) = (m["a"].as_str().unwrap(), m["b"].as_str().unwrap());
        let block = ["SL1-B1", "SL2-B1"]
            .into_iter()
            .find(|k| {
                [a, b]
                    .iter()
                    .all(|n| bowled.contains_key(&(n.to_string(), k.to_string())))
            })
            .unwrap_or_else(|| panic!("no step-ladder block of {m}"));
        for (who, score) in [("a", "a_score"), ("b", "b_score")] {
            let name = m[who].as_str().unwrap();
            // A woman's +10 a game in a combined category.
            let woman = entries["entries"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["name"] == name && e["sex"] == "F");
            let want = games(name, &[block])[0] + if woman { 10 } else { 0 };
            assert_eq!(m[score].as_u64(), Some(want), "{name} in {block}");
        }
    }
    // The places: the final's winner and loser, the first match's loser,
    // then the round robin's 4th and 5th.
    let names = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_owned())
            .collect()
    };
    let matches = ladder["matches"].as_array().unwrap();
    let loser = |m: &serde_json::Value| {
        if m["winner"] == m["a"] {
            m["b"].clone()
        } else {
            m["a"].clone()
        }
    };
    let mut want = vec![
        matches[1]["winner"].clone(),
        loser(&matches[1]),
        loser(&matches[0]),
    ];
    want.extend(round_robin[3..].iter().map(|r| r["name"].clone()));
    assert_eq!(
        names(&ladder["places"]),
        names(&serde_json::Value::from(want))
    );
}

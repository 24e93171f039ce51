//! A championship in small for the centre's fault and attack tests: a
//! real `lanecall centre`, two real `lanecall run` lanes (pseudo-terminal
//! pinsetters, each its own bowler and MQTT login), a broker, and what
//! says they agree: every journal file mirrored byte for byte, the
//! standings equal to the lanes' own sheets, each lane's `/api/lane` as
//! its state at the centre.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::centre::{Centre, centre_totals, files, lane_login_keys, lane_series, write_logins};
use super::centre_lane::Lane;
use super::mosquitto::Broker;

/// The site of the scene's topics.
pub const SITE: &str = "faults";
pub use super::eventually as until;

/// Where the lanes and the centre find the broker.
#[derive(Clone, Copy)]
pub enum Via {
    /// Mosquitto taking anyone, everywhere.
    Mosquitto(u16),
    /// Mosquitto with the lanes' and the centre's logins and the ACL
    /// `lanecall centre-acl` writes ([`secure_mosquitto`]).
    MosquittoLogins(u16),
    /// The centre's own broker, on this port.
    Embedded(u16),
}

impl Via {
    /// The broker's port.
    pub fn port(self) -> u16 {
        match self {
            Via::Mosquitto(p) | Via::MosquittoLogins(p) | Via::Embedded(p) => p,
        }
    }
}

/// The centre's config in `dir`, its mirror under `state`.
pub fn centre_config(dir: &Path, state: &Path, web: u16, via: Via) -> PathBuf {
    let hash = lanecall::web::hash_pin(super::centre_lane::PIN).unwrap();
    let broker = match via {
        Via::Mosquitto(port) => format!("broker = \"mqtt://127.0.0.1:{port}\""),
        Via::MosquittoLogins(port) => format!(
            "broker = \"mqtt://127.0.0.1:{port}\"\nlanes = [1, 2]\n\
             username = \"centre\"\npassword_file = {:?}",
            dir.join("centre.password")
        ),
        Via::Embedded(port) => format!(
            "embedded_listen = \"127.0.0.1:{port}\"\npasswords = {:?}",
            write_logins(dir, 1..=2)
        ),
    };
    let text = format!(
        "site = \"{SITE}\"\nstate_dir = {state:?}\n{broker}\n\
         [web]\nlisten = \"127.0.0.1:{web}\"\njudge_pin_hash = {hash:?}\n"
    );
    let path = dir.join("centre.toml");
    std::fs::write(&path, text).unwrap();
    path
}

pub const BOWLERS: [&str; 2] = ["Ivan Petrov", "Olga Sidorova"];

/// Lane `n` (1 or 2, each its own bowler) talking to the broker on `port`.
pub fn lane(dir: &Path, n: u32, port: u16) -> Lane {
    lane_as(
        dir,
        &format!("lane{n}"),
        n,
        port,
        BOWLERS[n as usize - 1],
        "20260101T000000Z-01",
    )
}

/// A lane configured as lane `n` with its login, in `dir/<folder>`, its
/// bowler `bowler` and its journal `lane<n>-<stamp>.jsonl`.
pub fn lane_as(dir: &Path, folder: &str, n: u32, port: u16, bowler: &str, stamp: &str) -> Lane {
    let journal = super::journal_with_open_block_for(super::fast_pinsetter_rules(), n, 1, bowler);
    // Its login, which Mosquitto (no password file here) takes as it is.
    write_logins(dir, 1..=2);
    let keys = format!(
        "broker = \"mqtt://127.0.0.1:{port}\"\nsite = \"{SITE}\"\n{}",
        lane_login_keys(dir, n)
    );
    Lane::start_named(&dir.join(folder), n, Some(keys), &journal, stamp)
}

/// What differs between the lanes and the centre, or `None` when they
/// agree: every journal file mirrored byte for byte, the standings equal
/// to the lanes' sheets, and each lane online at the centre with its
/// `/api/lane` as its state.
pub fn disagreement(centre: &mut Centre, state: &Path, lanes: &[&Lane]) -> Option<String> {
    let mut ports = BTreeMap::new();
    for (i, l) in lanes.iter().enumerate() {
        let n = i as u32 + 1;
        ports.insert(n, l.http);
        let own = files(&l.dir.join("journal"));
        let mirror_dir = state.join(format!("lanes/{n}"));
        let copy = if mirror_dir.exists() {
            files(&mirror_dir)
        } else {
            BTreeMap::new()
        };
        if own != copy {
            let sizes = |m: &BTreeMap<String, Vec<u8>>| {
                m.iter()
                    .map(|(k, v)| format!("{k}: {} bytes", v.len()))
                    .collect::<Vec<_>>()
            };
            return Some(format!(
                "lane {n}'s journal {:?}, the mirror {:?}",
                sizes(&own),
                sizes(&copy)
            ));
        }
        let at_centre = centre.lane(n as u64).unwrap_or(Value::Null);
        let api = super::centre::get(l.http, "/api/lane").unwrap_or(Value::Null);
        if at_centre["online"] != true || at_centre["state"] != api {
            return Some(format!(
                "lane {n} at the centre: online {}, its state differs from /api/lane: {}",
                at_centre["online"],
                at_centre["state"] != api
            ));
        }
    }
    let (sheets, standings) = (lane_series(&ports), centre_totals(centre.web));
    (sheets.is_none() || sheets != standings)
        .then(|| format!("the lanes' sheets {sheets:?}, the standings {standings:?}"))
}

pub fn assert_agree(centre: &mut Centre, state: &Path, lanes: &[&Lane], when: &str) {
    until(&format!("the centre agreed with the lanes {when}"), || {
        disagreement(centre, state, lanes).map_or(Ok(()), Err)
    });
}

/// A series as the lane's own `/api/lane` shows it.
pub fn series(lane: &Lane) -> u64 {
    let v = super::centre::get(lane.http, "/api/lane").expect("the lane answers");
    v["bowlers"][0]["series"].as_u64().expect("a series")
}

/// Mosquitto in `dir` as docs/centre.md sets up a real centre: logins for
/// the centre (`centre.password`) and lanes 1 and 2 (hashed by
/// `mosquitto_passwd`), no anonymous client, and the ACL that
/// `lanecall centre-acl --lanes 1-2` prints for the scene's site.
pub fn secure_mosquitto(dir: &Path) -> Broker {
    write_logins(dir, 1..=2);
    std::fs::write(dir.join("centre.password"), "centre-secret\n").unwrap();
    std::fs::set_permissions(
        dir.join("centre.password"),
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .unwrap();
    let passwd = dir.join("mosquitto.passwd");
    let _ = std::fs::remove_file(&passwd);
    for (user, password) in [
        ("centre".to_owned(), "centre-secret".to_owned()),
        ("lane1".to_owned(), super::centre::lane_secret(1)),
        ("lane2".to_owned(), super::centre::lane_secret(2)),
    ] {
        let mut cmd = Command::new(
            super::require_tool("mosquitto_passwd", "mosquitto").expect("mosquitto_passwd"),
        );
        if !passwd.exists() {
            cmd.arg("-c");
        }
        let status = cmd
            .arg("-b")
            .arg(&passwd)
            .args([&user, &password])
            .status()
            .expect("mosquitto_passwd runs (Debian's mosquitto package)");
        assert!(status.success());
    }
    // The ACL from the centre's own config, as a technician makes it.
    let config = dir.join("acl-centre.toml");
    std::fs::write(
        &config,
        format!(
            "site = \"{SITE}\"\nstate_dir = \"/nonexistent\"\nbroker = \"mqtt://127.0.0.1\"\n\
             username = \"centre\"\n[web]\njudge_pin_hash = {:?}\n",
            lanecall::web::hash_pin(super::centre_lane::PIN).unwrap()
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lanecall"))
        .args(["centre-acl", "--lanes", "1-2", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let acl = dir.join("mosquitto.acl");
    std::fs::write(&acl, &out.stdout).unwrap();
    Broker::start(
        dir,
        &format!(
            "password_file {}\nacl_file {}\n",
            passwd.display(),
            acl.display()
        ),
    )
}

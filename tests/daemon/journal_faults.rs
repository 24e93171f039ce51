//! Faults a bowling centre really has, injected into the real `lanecall
//! run`: an SD card that fills up or goes read-only mid-game, journals left
//! damaged, clocks that lie, a journal deleted under the running lane, the
//! second block of the day. Each test asserts what the lane shows equals
//! what its journal holds.
//!
//! The disk faults mount a small tmpfs or ext4 image, which needs root (CI
//! runs as root). Elsewhere they say so and pass; under CI they fail.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use lanecall::replay::Replay;
use serde_json::{Value, json};
use serialport::{SerialPort, TTYPort};

use crate::support;
use support::Daemon;
use support::mount::{Mount, fill, repair_ext4};

const PIN: &str = "246813";

fn fresh_dir(name: &str) -> crate::support::Scratch {
    crate::support::Scratch::new(&format!("faults-{name}"))
}

/// A lane whose state directory is `dir`, with a block already started
/// for Ivan Petrov (B2), the pinsetter on a pseudo-terminal, running and
/// logged in.
struct Lane {
    daemon: Daemon,
    pinsetter: TTYPort,
    journal: PathBuf,
    config: PathBuf,
    http: u16,
    /// The pinsetter's lines of the game, in order.
    lines: Vec<String>,
    sent: usize,
}

impl Lane {
    fn start(dir: &Path, journal_name: &str) -> Lane {
        fs::create_dir_all(dir.join("journal")).unwrap();
        let journal = dir.join("journal").join(journal_name);
        fs::write(&journal, support::journal_with_open_block(3, 1)).unwrap();
        let (pinsetter, slave) = TTYPort::pair().expect("a pseudo-terminal pair");
        let port = slave.name().expect("the slave's name");
        let hash = lanecall::web::hash_pin(PIN).unwrap();
        let http = support::free_port();
        let config = support::write_config(dir, 3, &port, http, &hash);
        let mut daemon = Daemon::start(&config, http);
        daemon.login(PIN);
        daemon.wait_lane("the pinsetter's port open", |l| {
            l["pinsetter"]["link"] == "up"
        });
        drop(slave);
        Lane {
            daemon,
            pinsetter,
            journal,
            config,
            http,
            lines: support::pinsetter_lines("X 9/ 72 X X 8- 9/ 9- X X9/", 0),
            sent: 0,
        }
    }

    /// Sends the pinsetter's next `n` lines.
    fn bowl(&mut self, n: usize) {
        for line in &self.lines[self.sent..self.sent + n] {
            self.pinsetter
                .write_all(format!("{line}\r\n").as_bytes())
                .unwrap();
        }
        self.sent += n;
    }

    /// Sends the next `n` lines and waits until the lane has taken them.
    fn bowl_taken(&mut self, n: usize) -> Value {
        let before = self.daemon.lane()["events"].as_u64().unwrap();
        self.bowl(n);
        let want = before + n as u64;
        self.daemon
            .wait_lane("the balls taken", |l| l["events"].as_u64() >= Some(want))
    }

    /// A judge's action the lane journals and refuses (B2 bowlers have no
    /// blindfold check): it changes no score.
    fn harmless_action(&mut self) -> (u16, String) {
        self.daemon
            .action(json!({"ev": "blindfold_check", "bowler": "Ivan Petrov", "ok": true}))
    }

    /// What the lane shows equals what its journal holds.
    fn assert_shows_the_journal(&mut self) -> Value {
        let lane = self.daemon.lane();
        assert_shows(&lane, &self.journal);
        lane
    }
}

/// The sheet and the count of inputs `lane` shows are those the journal
/// at `path` replays to.
fn assert_shows(lane: &Value, path: &Path) {
    let replay = Replay::from_reader(fs::read(path).unwrap().as_slice()).unwrap();
    let report = serde_json::to_value(replay.report()).unwrap();
    assert_eq!(
        lane["events"], report["events"],
        "inputs shown vs journaled"
    );
    assert_eq!(
        lane["bowlers"], report["bowlers"],
        "the sheet shown vs journaled"
    );
}

/// Runs `lanecall run` where it must not start; returns what it said.
fn refused_start(config: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_lanecall"))
        .args(["run", "--config"])
        .arg(config)
        .output()
        .expect("lanecall runs");
    assert!(!out.status.success(), "it started");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn game(lane: &Value) -> &Value {
    &lane["bowlers"][0]["games"][0]
}

/// A journal on a file system kept in memory (raspi-config's overlay, a
/// tmpfs) is synced for nothing: check-config refuses it, and the running
/// lane scores but says so in red on the panel, until the config allows
/// it (`[journal] allow_volatile`, a demo's or a bench's).
#[test]
fn a_journal_kept_in_memory_is_refused_by_check_config_and_named_on_the_panel() {
    let dir = fresh_dir("volatile");
    let state = dir.join("state");
    let Some(_mount) = Mount::new(&["-t", "tmpfs", "-o", "size=4m", "tmpfs"], &state) else {
        return;
    };
    let (_pinsetter, slave) = TTYPort::pair().expect("a pseudo-terminal pair");
    let port = slave.name().expect("the slave's name");
    let http = support::free_port();
    let config = support::write_config(
        &state,
        3,
        &port,
        http,
        &lanecall::web::hash_pin(PIN).unwrap(),
    );
    let check = || {
        Command::new(env!("CARGO_BIN_EXE_lanecall"))
            .args(["check-config"])
            .arg(&config)
            .output()
            .unwrap()
    };
    let out = check();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("tmpfs"), "{stderr}");
    assert!(stderr.contains("allow_volatile"), "{stderr}");

    let mut daemon = Daemon::start(&config, http);
    let lane = daemon.wait_lane("the panel to name the journal's storage", |l| {
        l["parts"].as_array().is_some_and(|p| !p.is_empty())
    });
    let parts = lane["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 1, "{parts:?}");
    assert_eq!(parts[0]["part"], "storage");
    let problem = parts[0]["problem"].as_str().unwrap();
    assert!(problem.contains("tmpfs"), "{problem}");
    assert!(problem.contains("memory only"), "{problem}");
    assert!(
        parts[0]["fix"].as_str().unwrap().contains("overlay"),
        "{parts:?}"
    );
    daemon.stop();

    // Allowed: check-config passes, the panel shows no failing part.
    let text = fs::read_to_string(&config).unwrap().replace(
        "[pinsetter]",
        "[journal]\nallow_volatile = true\n[pinsetter]",
    );
    fs::write(&config, text).unwrap();
    let out = check();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut daemon = Daemon::start(&config, http);
    let lane = daemon.wait_lane("the panel", |l| l["pinsetter"]["link"] == "up");
    assert_eq!(lane["parts"], json!([]), "{}", lane["parts"]);
    daemon.stop();
    drop(slave);
}

#[test]
fn a_card_that_fills_mid_game_holds_the_lane_and_loses_no_ball() {
    let dir = fresh_dir("full");
    let state = dir.join("state");
    let Some(_mount) = Mount::new(&["-t", "tmpfs", "-o", "size=1m", "tmpfs"], &state) else {
        return;
    };
    let mut lane = Lane::start(&state, "lane3-20261130T100000Z-000001.jsonl");
    // Frames 1 and 2: X 9/.
    lane.bowl_taken(5);
    lane.assert_shows_the_journal();

    let filler = fill(&state);
    // The journal's last page may still take a few lines: judges' actions
    // are answered until one cannot be written.
    let mut refused = None;
    for _ in 0..400 {
        match lane.harmless_action() {
            (409, _) => {}
            (503, body) => {
                refused = Some(body);
                break;
            }
            other => panic!("an action on a full card: {other:?}"),
        }
    }
    let refused = refused.expect("a full card refuses an action");
    assert!(
        refused.contains("the journal cannot be written"),
        "{refused}"
    );
    let held = lane.assert_shows_the_journal();
    assert_eq!(held["journal"]["state"], "failed", "{}", held["journal"]);
    assert!(
        held["journal"]["failed"]["reason"]
            .as_str()
            .unwrap()
            .contains("No space left"),
        "{}",
        held["journal"]
    );

    // The bowler bowls on: the spare of frame 2 and the 7 of frame 3 wait
    // for the journal, unscored.
    lane.bowl(4);
    let waiting = lane.daemon.wait_lane("the balls waiting", |l| {
        l["journal"]["failed"]["waiting"] == 4
    });
    assert_eq!(game(&waiting), game(&held), "nothing scored while it waits");
    assert_shows(&waiting, &lane.journal);

    // Space again: the lane goes on by itself, the waiting balls scored.
    fs::remove_file(filler).unwrap();
    let back = lane.daemon.wait_lane("the journal written again", |l| {
        l["journal"]["state"] == "ok"
    });
    assert_eq!(back["journal"]["notices"].as_array().unwrap().len(), 1);
    assert_shows(&back, &lane.journal);
    assert_eq!(game(&back)["frames"][1]["marks"], "9/");
    assert_eq!(game(&back)["frames"][2]["marks"], "7");
    // The journal tells the failure as a hold around the waiting balls, so
    // no slow-bowling clock ran over it.
    let holds: Vec<Value> = fs::read_to_string(&lane.journal)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["ev"] == "hold")
        .collect();
    assert_eq!(holds.len(), 2, "{holds:?}");
    assert_eq!(
        (&holds[0]["on"], &holds[0]["by"]),
        (&json!(true), &json!("lanecall"))
    );
    assert!(
        holds[0]["reason"]
            .as_str()
            .unwrap()
            .contains("No space left")
    );
    assert_eq!(holds[1]["on"], false);
    assert_eq!(back["hold"], Value::Null, "the lane goes on by itself");

    let rest = lane.lines.len() - lane.sent;
    let done = lane.bowl_taken(rest);
    assert_eq!(game(&done)["total"], 177);
    assert_eq!(game(&done)["complete"], true);
    lane.assert_shows_the_journal();
    let text = fs::read_to_string(&lane.journal).unwrap();
    for (i, line) in text.lines().enumerate() {
        assert_eq!(
            lanecall::journal::unseal(line),
            Ok(i as u64 + 1),
            "line {} whole, sealed, numbered in order",
            i + 1
        );
    }

    // A restart shows the same sheet.
    let last = game(&done).clone();
    assert!(lane.daemon.stop().success());
    let mut again = Daemon::start(&lane.config, lane.http);
    assert_eq!(game(&again.lane()), &last);
}

#[test]
fn a_card_gone_read_only_holds_the_lane_and_a_restart_shows_the_last_sheet() {
    let dir = fresh_dir("readonly");
    let image = dir.join("card.img");
    let state = dir.join("state");
    let Some(mount) = Mount::ext4(&image, &state) else {
        return;
    };
    let mut lane = Lane::start(&state, "lane3-20261130T100000Z-000001.jsonl");
    lane.bowl_taken(5);
    let last = lane.assert_shows_the_journal();

    // The card fails: ext4 remounts itself read-only, as on an SD card
    // with a write error.
    mount.fail_ext4();

    let (status, body) = lane.harmless_action();
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("Read-only file system"), "{body}");
    lane.bowl(2);
    let held = lane.daemon.wait_lane("the balls waiting", |l| {
        l["journal"]["failed"]["waiting"] == 2
    });
    assert_eq!(game(&held), game(&last), "nothing scored while it fails");

    // Stopped, and started again on the read-only card: it says which
    // directory.
    assert!(lane.daemon.stop().success());
    let said = refused_start(&lane.config);
    assert!(
        said.contains(&*state.to_string_lossy()) && said.contains("Read-only"),
        "{said}"
    );
    drop(mount);
    // The technician repairs the card and starts the lane again.
    repair_ext4(&image);
    let Some(_mount) = Mount::ext4_again(&image, &state) else {
        return;
    };
    assert_shows(&last, &lane.journal);
    let mut again = Daemon::start(&lane.config, lane.http);
    let after = again.lane();
    assert_eq!(game(&after), game(&last));
    assert_eq!(after["journal"]["state"], "ok");
}

/// A journal a full card or a bad one can leave as the newest.
fn damaged_journals() -> Vec<(&'static str, Vec<u8>)> {
    let good = support::journal_with_open_block(3, 1);
    let header = good.lines().next().unwrap();
    let events: String = good.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let flipped = good.replacen("\"lane\":3", "\"lane\":8", 1);
    vec![
        ("an empty file", Vec::new()),
        ("no header", events.into_bytes()),
        ("a changed byte in the header", flipped.into_bytes()),
        (
            "an unknown foul_mode",
            format!(
                "{{\"journal\":\"lanecall\",\"version\":1,\"lane\":3,\"rules\":{{\"foul_mode\":\"sideways\"}}}}\n{}",
                good.lines().nth(1).unwrap()
            )
            .into_bytes(),
        ),
        ("binary garbage", vec![0, 159, 146, 150, 255, b'\n']),
        ("a header cut short", header.as_bytes()[..20].to_vec()),
    ]
}

#[test]
fn a_damaged_newest_journal_is_set_aside_and_the_lane_starts() {
    for (what, bytes) in damaged_journals() {
        let dir = fresh_dir("damaged");
        let name = "lane3-20261130T100000Z-000005.jsonl";
        fs::create_dir_all(dir.join("journal")).unwrap();
        fs::write(dir.join("journal").join(name), &bytes).unwrap();
        let hash = lanecall::web::hash_pin(PIN).unwrap();
        let http = support::free_port();
        let config = support::write_config(&dir, 3, "/dev/null-pinsetter", http, &hash);
        let mut daemon = Daemon::start(&config, http);
        let lane = daemon.lane();
        let journal = &lane["journal"];
        assert_eq!(journal["state"], "ok", "{what}: {journal}");
        let aside = &journal["set_aside"][0];
        assert_eq!(
            aside["file"],
            format!("{name}.damaged"),
            "{what}: {journal}"
        );
        assert!(!aside["reason"].as_str().unwrap().is_empty(), "{what}");
        assert_eq!(
            fs::read(dir.join("journal").join(format!("{name}.damaged"))).unwrap(),
            bytes,
            "{what}: kept as it was"
        );
        assert!(
            journal["file"].as_str().unwrap().ends_with("-000006.jsonl"),
            "{what}: a new journal after the damaged one: {journal}"
        );
        drop(daemon);
        let _ = fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_missing_state_dir_stops_the_start_and_is_named() {
    let dir = fresh_dir("nostate");
    let hash = lanecall::web::hash_pin(PIN).unwrap();
    let config = support::write_config(&dir, 3, "/dev/null-pinsetter", support::free_port(), &hash);
    let missing = dir.join("gone");
    let text = fs::read_to_string(&config).unwrap().replace(
        &format!("state_dir = {dir:?}"),
        &format!("state_dir = {missing:?}"),
    );
    fs::write(&config, text).unwrap();
    let said = refused_start(&config);
    assert!(
        said.contains(&*missing.to_string_lossy()) && said.contains("does not exist"),
        "{said}"
    );
}

/// A Pi with no clock battery started a journal dated 2099, then the clock
/// was put right: the block in progress is recovered all the same.
#[test]
fn an_open_block_is_recovered_whatever_dates_the_names_carry() {
    let dir = fresh_dir("dates");
    fs::create_dir_all(dir.join("journal")).unwrap();
    let closed = format!(
        "{}{}",
        support::journal_with_open_block(3, 1),
        lanecall::journal::sealed_event_line(
            &lanecall::lane::Stamped {
                t: 2,
                event: lanecall::lane::Event::Panel(lanecall::lane::Panel::new(
                    None,
                    lanecall::lane::Action::EndBlock
                )),
            },
            4
        ) + "\n"
    );
    assert_eq!(
        Replay::from_reader(closed.as_bytes()).unwrap().errors(),
        &[]
    );
    let ahead = "lane3-20991231T235959Z-000001.jsonl";
    let open = "lane3-20261130T100000Z-000002.jsonl";
    fs::write(dir.join("journal").join(ahead), closed).unwrap();
    fs::write(
        dir.join("journal").join(open),
        support::journal_with_open_block(3, 2),
    )
    .unwrap();
    let hash = lanecall::web::hash_pin(PIN).unwrap();
    let http = support::free_port();
    let config = support::write_config(&dir, 3, "/dev/null-pinsetter", http, &hash);
    let mut daemon = Daemon::start(&config, http);
    let lane = daemon.lane();
    assert_eq!(lane["journal"]["file"], open);
    assert_eq!(lane["up"]["bowler"], "Ivan Petrov", "{}", lane["up"]);
    drop(daemon);
}

#[test]
fn a_journal_deleted_under_the_running_lane_is_put_back() {
    let dir = fresh_dir("deleted");
    let mut lane = Lane::start(&dir, "lane3-20261130T100000Z-000001.jsonl");
    lane.bowl_taken(3);
    fs::remove_file(&lane.journal).unwrap();
    let noticed = lane.daemon.wait_lane("the deleted journal noticed", |l| {
        l["journal"]["notices"].as_array().is_some_and(|n| {
            n.iter()
                .any(|n| n["message"].as_str().unwrap().contains("deleted"))
        })
    });
    assert!(lane.journal.exists(), "put back at its path");
    assert_shows(&noticed, &lane.journal);
    lane.bowl_taken(2);
    assert_eq!(lane.harmless_action().0, 409);
    lane.assert_shows_the_journal();
}

/// The second block of the day starts a journal of its own, and lane time
/// runs on in it: a beam break can still be measured, a timer still runs.
#[test]
fn lane_time_runs_on_into_the_next_blocks_journal() {
    let dir = fresh_dir("second-block");
    let mut lane = Lane::start(&dir, "lane3-20261130T100000Z-000001.jsonl");
    lane.lines = support::pinsetter_lines("X X X X X X X X X XXX", 0);
    let all = lane.lines.len();
    let first = lane.bowl_taken(all);
    assert_eq!(game(&first)["total"], 300);
    assert_eq!(lane.daemon.action(json!({"ev": "end_block"})).0, 200);
    let old_last_t = Replay::from_reader(fs::read(&lane.journal).unwrap().as_slice())
        .unwrap()
        .last_t();

    let bowlers = json!([{"name": "Anna Smirnova", "class": "B3"}]);
    assert_eq!(
        lane.daemon
            .action(json!({"ev": "lineup", "bowlers": bowlers}))
            .0,
        200
    );
    let second = lane.daemon.lane();
    let name = second["journal"]["file"].as_str().unwrap().to_owned();
    assert!(name.ends_with("-000002.jsonl"), "{name}");
    let journal = dir.join("journal").join(&name);
    assert_eq!(
        lane.daemon
            .action(json!({"ev": "start_block", "games": 1}))
            .0,
        200
    );
    for _ in 0..2 {
        // Lane time passing between the actions, whose stamps the test reads.
        std::thread::sleep(Duration::from_millis(400));
        lane.daemon.action(json!({"ev": "hold", "on": true}));
        lane.daemon.action(json!({"ev": "hold", "on": false}));
    }
    let text = fs::read_to_string(&journal).unwrap();
    // The new journal starts with the link's state the lane had
    // (journal.md, Files), then the lineup.
    let inherited = text.lines().nth(1).unwrap_or_default();
    assert!(
        inherited.contains(r#""ev":"serial_link","state":"up""#),
        "{text}"
    );
    let ts: Vec<u64> = text
        .lines()
        .skip(2)
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["t"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(ts.len(), 6, "{text}");
    assert!(
        ts[0] >= old_last_t,
        "the new journal's time goes on: {ts:?} after {old_last_t}"
    );
    assert!(
        ts[4] - ts[2] >= 300,
        "400 ms apart on the lane, {} ms apart in the journal: {ts:?}",
        ts[4] - ts[2]
    );
    assert_shows(&lane.daemon.lane(), &journal);
}

/// `[journal] mirror` on a USB stick that is not plugged in at first: the
/// lane scores on and says so; once the stick is there, the copy catches up
/// with every line.
#[test]
fn a_missing_mirror_never_stops_scoring_and_catches_up() {
    let dir = fresh_dir("mirror");
    let usb = dir.join("usb");
    fs::create_dir_all(dir.join("journal")).unwrap();
    let name = "lane3-20261130T100000Z-000001.jsonl";
    let journal = dir.join("journal").join(name);
    fs::write(&journal, support::journal_with_open_block(3, 1)).unwrap();
    let hash = lanecall::web::hash_pin(PIN).unwrap();
    let http = support::free_port();
    let config = support::write_config(&dir, 3, "/dev/null-pinsetter", http, &hash);
    let mut text = fs::read_to_string(&config).unwrap();
    text.push_str(&format!("[journal]\nmirror = {usb:?}\n"));
    fs::write(&config, text).unwrap();
    let mut daemon = Daemon::start(&config, http);
    daemon.login(PIN);
    let failed = daemon.wait_lane("the mirror failing", |l| {
        l["journal"]["mirror"]["state"] == "failed"
    });
    assert_eq!(failed["journal"]["state"], "ok", "scoring goes on");
    let hold = json!({"ev": "hold", "on": true, "reason": "lane oil"});
    assert_eq!(daemon.action(hold).0, 200);

    fs::create_dir_all(&usb).unwrap();
    assert_eq!(daemon.action(json!({"ev": "hold", "on": false})).0, 200);
    daemon.wait_lane("the mirror caught up", |l| {
        l["journal"]["mirror"]["state"] == "ok"
            && fs::read(usb.join(name)).ok() == fs::read(&journal).ok()
    });
}

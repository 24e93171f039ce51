//! Crash safety: a game fed through a pseudo-terminal to the real
//! `lanecall run`, killed with SIGKILL at several random moments and
//! restarted each time, ends with the same score sheet as the game bowled
//! without a break.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use lanecall::journal::sealed_event_line;
use lanecall::lane::{Event, Stamped};
use lanecall::replay::Replay;
use lanecall::sim::Rng;
use serde_json::Value;
use serialport::{SerialPort, TTYPort};

use crate::support;

fn game_of(replay: &Replay) -> Value {
    let report = serde_json::to_value(replay.report()).unwrap();
    report["bowlers"][0]["games"][0].clone()
}

/// Polls `cond` on the journal's text.
fn wait_for(journal: &Path, what: &str, cond: impl Fn(&str) -> bool) {
    support::eventually(&format!("the journal to show {what}"), || {
        cond(&fs::read_to_string(journal).unwrap_or_default())
    });
}

fn links_up(text: &str) -> usize {
    text.matches(r#""ev":"serial_link","state":"up""#).count()
}

struct Lane {
    config: PathBuf,
    journal: PathBuf,
    child: Option<Child>,
}

impl Lane {
    /// Starts `lanecall run` and waits until it has opened the port.
    fn start(&mut self) {
        let before = links_up(&fs::read_to_string(&self.journal).unwrap_or_default());
        let child = Command::new(env!("CARGO_BIN_EXE_lanecall"))
            .args(["run", "--config"])
            .arg(&self.config)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("lanecall runs");
        self.child = Some(child);
        wait_for(&self.journal, "the serial link up", |t| {
            links_up(t) > before
        });
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().expect("SIGKILL");
            child.wait().unwrap();
        }
    }
}

impl Drop for Lane {
    fn drop(&mut self) {
        self.kill();
    }
}

#[test]
fn a_lane_killed_at_random_moments_loses_no_acknowledged_input() {
    let dir = crate::support::Scratch::new("crash");
    fs::create_dir_all(dir.join("journal")).unwrap();
    let journal = dir.join("journal/lane3-20260101T000000Z-01.jsonl");
    fs::write(&journal, support::journal_with_open_block(3, 1)).unwrap();

    let (mut master, slave) = TTYPort::pair().expect("a pseudo-terminal pair");
    let port = slave.name().expect("the slave's name");
    let hash = lanecall::web::hash_pin("246813").unwrap();
    let config = support::write_config(&dir, 3, &port, support::free_port(), &hash);

    let notation = "X 9/ 72 X X 8- 9/ 9- X X9/";
    let lines = support::pinsetter_lines(notation, 0);
    let mut lane = Lane {
        config,
        journal: journal.clone(),
        child: None,
    };
    lane.start();
    // The daemon holds the port now; the test keeps only the pinsetter's side.
    drop(slave);

    let mut rng = Rng::new(0x5eed);
    let mut kills = 0;
    for (i, line) in lines.iter().enumerate() {
        master.write_all(format!("{line}\r\n").as_bytes()).unwrap();
        if i > 2 && rng.chance(0.12) {
            // Pull the plug at once or a moment later: before, while or
            // after the line is journaled.
            std::thread::sleep(Duration::from_millis(rng.range(0, 30)));
            lane.kill();
            kills += 1;
            lane.start();
            // The pinsetter sends its last line again; if the lane had it,
            // it is a retransmission and changes nothing.
            master.write_all(format!("{line}\r\n").as_bytes()).unwrap();
        }
        wait_for(&journal, line, |t| t.contains(line.as_str()));
    }
    lane.kill();
    assert!(kills >= 3, "the plug was pulled {kills} times");

    let crashed = Replay::from_reader(fs::read(&journal).unwrap().as_slice()).unwrap();
    let mut events = vec![Stamped {
        t: 2,
        event: Event::Sensor(lanecall::lane::Sensor::SerialLink { up: true }),
    }];
    events.extend(lines.iter().enumerate().map(|(i, line)| Stamped {
        t: 3 + i as u64 * 1000,
        event: Event::Sensor(lanecall::lane::Sensor::Serial { line: line.clone() }),
    }));
    let mut whole = support::journal_with_open_block(3, 1);
    let mut n = whole.lines().count() as u64;
    for e in &events {
        n += 1;
        whole.push_str(&sealed_event_line(e, n));
        whole.push('\n');
    }
    let uninterrupted = Replay::from_reader(whole.as_bytes()).unwrap();
    let game = game_of(&crashed);
    if game != game_of(&uninterrupted) {
        eprintln!("{}", fs::read_to_string(&journal).unwrap());
    }
    assert_eq!(game, game_of(&uninterrupted));
    assert_eq!(game["complete"], true);
    assert_eq!(game["total"], 177);
    assert!(crashed.errors().is_empty(), "{:?}", crashed.errors());
}

/// systemd may stop the lane the moment it answers: SIGTERM then must stop
/// it cleanly (exit 0), never kill it with the signal's default action
/// because the handler was not yet in place.
#[test]
fn a_sigterm_as_soon_as_the_panel_answers_stops_the_lane_cleanly() {
    let dir = crate::support::Scratch::new("early-term");
    let hash = lanecall::web::hash_pin("246810").unwrap();
    for _ in 0..10 {
        let http = support::free_port();
        let config = support::write_config(&dir, 3, "/dev/null-pinsetter", http, &hash);
        let daemon = support::Daemon::start(&config, http);
        let status = daemon.stop();
        assert!(status.success(), "SIGTERM right after start: {status:?}");
    }
}

/// The journal names of `dir/journal`, oldest first.
fn journals(dir: &Path) -> Vec<PathBuf> {
    let mut names: Vec<PathBuf> = fs::read_dir(dir.join("journal"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    names.sort();
    names
}

fn header_of(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

/// The judges' PIN of [`lane_whose_pinsetter_is_quiet`].
const PIN: &str = "135792";

/// A fresh folder for the test `tag` with lane 3's config in it, judged
/// with [`PIN`]: its pinsetter a pseudo-terminal that sends nothing (both
/// ends, to keep open), and its panel's port.
fn lane_whose_pinsetter_is_quiet(
    tag: &str,
) -> (crate::support::Scratch, TTYPort, TTYPort, PathBuf, u16) {
    let dir = crate::support::Scratch::new(&format!("crash-{tag}"));
    let (pinsetter, slave) = TTYPort::pair().expect("a pseudo-terminal pair");
    let port = slave.name().expect("the slave's name");
    let hash = lanecall::web::hash_pin(PIN).unwrap();
    let http = support::free_port();
    let config = support::write_config(&dir, 3, &port, http, &hash);
    (dir, pinsetter, slave, config, http)
}

/// The second and third blocks of the day each start a journal of their
/// own: they are still "Block 2" and "Block 3", also after a restart, and
/// a B1 bowler's blindfold check from the first block still holds.
#[test]
fn blocks_are_numbered_through_the_day_across_journals_and_restarts() {
    let (dir, _pinsetter, slave, config, http) = lane_whose_pinsetter_is_quiet("day");
    let bowlers = serde_json::json!([
        {"name": "Olga Smirnova", "class": "B1"},
        {"name": "Ivan Petrov", "class": "B3"}
    ]);
    let lineup = serde_json::json!({"ev": "lineup", "bowlers": bowlers});
    let start = serde_json::json!({"ev": "start_block", "games": 1});
    let end = serde_json::json!({"ev": "end_block"});
    let blocks = |lane: &Value| -> Vec<u64> {
        lane["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["block"].as_u64().unwrap())
            .collect()
    };

    let mut daemon = support::Daemon::start(&config, http);
    daemon.login(PIN);
    assert_eq!(daemon.action(lineup.clone()).0, 200);
    let check = serde_json::json!({"ev": "blindfold_check", "bowler": "Olga Smirnova", "ok": true});
    assert_eq!(daemon.action(check).0, 200);
    assert_eq!(daemon.action(start.clone()).0, 200);
    assert_eq!(daemon.action(end.clone()).0, 200);
    assert_eq!(blocks(&daemon.lane()), [1]);

    // The next lineup starts the second journal; no new check is needed.
    assert_eq!(daemon.action(lineup.clone()).0, 200);
    let (status, body) = daemon.action(start.clone());
    assert_eq!(status, 200, "{body}");
    let lane = daemon.lane();
    assert_eq!(blocks(&lane), [2]);
    assert_eq!(lane["bowlers"][0]["block"], 2);
    let files = journals(&dir);
    assert_eq!(files.len(), 2, "{files:?}");
    let day = &header_of(&files[1])["day"];
    assert_eq!(day["blocks"], 1, "{day}");
    assert_eq!(day["blindfolds"][0]["bowler"], "Olga Smirnova", "{day}");
    assert_eq!(day["blindfolds"][0]["by"], "Judge Orlova", "{day}");

    // A restart recovers block 2 from the second journal alone.
    daemon.stop();
    let mut daemon = support::Daemon::start(&config, http);
    daemon.login(PIN);
    let lane = daemon.lane();
    assert_eq!(blocks(&lane), [2]);
    assert_eq!(lane["blindfolds"][0]["ok"], true);
    // A judge asks for a new check through the API, and makes it.
    let recheck = serde_json::json!({"ev": "blindfold_recheck", "bowler": "Olga Smirnova"});
    assert_eq!(daemon.action(recheck).0, 200);
    assert_eq!(daemon.lane()["blindfolds"][0]["recheck"], true);
    let check = serde_json::json!({"ev": "blindfold_check", "bowler": "Olga Smirnova", "ok": true});
    assert_eq!(daemon.action(check).0, 200);
    assert_eq!(daemon.lane()["blindfolds"][0]["recheck"], false);
    assert_eq!(daemon.action(end).0, 200);
    assert_eq!(daemon.action(lineup).0, 200);
    assert_eq!(daemon.action(start).0, 200);
    assert_eq!(blocks(&daemon.lane()), [3]);
    let files = journals(&dir);
    assert_eq!(files.len(), 3, "{files:?}");
    assert_eq!(header_of(&files[2])["day"]["blocks"], 2);
    daemon.stop();
    drop(slave);
}

/// The next block's journal starts with the pinsetter link's state the lane
/// had: the port stays open across blocks and says nothing new, so without
/// it the new journal, replayed alone or recovered after a crash, showed
/// the working link as never connected while its lines arrived.
#[test]
fn the_next_blocks_journal_inherits_the_link_state_across_a_crash() {
    let dir = crate::support::Scratch::new("inherit");
    fs::create_dir_all(dir.join("journal")).unwrap();
    // Today's journal with a block bowled and ended: the daemon goes on in
    // it, and the next lineup starts a new one.
    let mut old = support::journal_with_open_block(3, 1);
    let n = old.lines().count() as u64 + 1;
    old.push_str(&sealed_event_line(
        &Stamped {
            t: 2,
            event: Event::Panel(lanecall::lane::Panel::new(
                Some("Judge Orlova".into()),
                lanecall::lane::Action::EndBlock,
            )),
        },
        n,
    ));
    old.push('\n');
    let first = dir.join("journal/lane3-20260101T000000Z-01.jsonl");
    fs::write(&first, old).unwrap();

    let (mut master, slave) = TTYPort::pair().expect("a pseudo-terminal pair");
    let port = slave.name().expect("the slave's name");
    let http = support::free_port();
    let hash = lanecall::web::hash_pin("246813").unwrap();
    let config = support::write_config(&dir, 3, &port, http, &hash);
    let mut daemon = support::Daemon::start(&config, http);
    wait_for(&first, "the serial link up", |t| links_up(t) == 1);
    drop(slave);

    daemon.login("246813");
    let lineup = serde_json::json!({"ev": "lineup", "bowlers": [{"name": "Olga", "class": "B2"}]});
    let (status, body) = daemon.action(lineup);
    assert_eq!(status, 200, "{body}");
    let journals = || {
        let mut v: Vec<PathBuf> = fs::read_dir(dir.join("journal"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p != &first && p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        v.sort();
        v
    };
    let new = journals();
    assert_eq!(new.len(), 1, "one new journal for the next block: {new:?}");
    let new = new[0].clone();
    let ready = &support::pinsetter_lines("X", 0)[0];
    master.write_all(format!("{ready}\r\n").as_bytes()).unwrap();
    wait_for(&new, "the pinsetter's line", |t| t.contains(ready.as_str()));
    daemon.child.kill().expect("SIGKILL");
    daemon.child.wait().unwrap();

    let text = fs::read_to_string(&new).unwrap();
    let second = text.lines().nth(1).unwrap_or_default();
    assert!(
        second.contains(r#""ev":"serial_link","state":"up""#),
        "the new journal's first event: {second}"
    );
    let alone = Replay::from_reader(text.as_bytes()).unwrap();
    let report = serde_json::to_value(alone.report()).unwrap();
    assert_eq!(report["pinsetter"]["link"], "up", "{text}");
    assert_eq!(report["pinsetter"]["lines"], 1);
    assert_eq!(report["bowlers"][0]["name"], "Olga");
    assert!(alone.errors().is_empty(), "{:?}", alone.errors());

    // Recovered after the crash, the lane goes on in the new journal with
    // the link it had; the port opening again is one more reading.
    let mut daemon = support::Daemon::start(&config, http);
    wait_for(&new, "the serial link up again", |t| links_up(t) == 2);
    let lane = daemon.wait_lane("the link up", |l| l["pinsetter"]["link"] == "up");
    assert_eq!(lane["pinsetter"]["lines"], 1);
    assert_eq!(lane["bowlers"][0]["name"], "Olga");
    assert_eq!(journals(), vec![new]);
    drop(daemon);
}

/// Milliseconds since 1970 now, by the test's wall clock.
fn wall_ms() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    i64::try_from(since.as_millis()).unwrap()
}

/// Lane time goes on from the journal's last `t` at a restart while the
/// wall clock does not wait: the journal gives the wall-clock time on its
/// first line and again on the first line after the restart, so the
/// panel's times of day stay true. Each `wall` is the wall clock of the
/// moment its line was written.
#[test]
fn the_journal_gives_the_wall_clock_again_after_a_restart() {
    let (dir, _pinsetter, slave, config, http) = lane_whose_pinsetter_is_quiet("wall");
    let hold = |on: bool| serde_json::json!({"ev": "hold", "on": on});

    let mut windows = Vec::new();
    for on in [true, false] {
        let before = wall_ms();
        let mut daemon = support::Daemon::start(&config, http);
        daemon.login(PIN);
        assert_eq!(daemon.action(hold(on)).0, 200);
        windows.push((before, wall_ms()));
        if !on {
            // The lane's report has the journal's two points.
            let lane = daemon.lane();
            let points = lane["wall_clock"].as_array().unwrap();
            assert_eq!(points.len(), 2, "{lane:#}");
        }
        daemon.stop();
    }
    let files = journals(&dir);
    assert_eq!(files.len(), 1, "{files:?}");
    let text = fs::read_to_string(&files[0]).unwrap();
    let walls: Vec<(u64, i64)> = text
        .lines()
        .skip(1)
        .filter_map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let wall = lanecall::wall::WallTime::parse(v.get("wall")?.as_str()?).unwrap();
            Some((v["t"].as_u64().unwrap(), wall.0))
        })
        .collect();
    assert_eq!(walls.len(), 2, "one `wall` a start:\n{text}");
    let first_line: Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    assert!(first_line.get("wall").is_some(), "{first_line}");
    for ((_, wall), (before, after)) in walls.iter().zip(&windows) {
        assert!(
            (before - 1..=after + 1).contains(wall),
            "wall {wall} outside its run's {before}..{after}"
        );
    }
    drop(slave);
}

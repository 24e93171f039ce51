//! The competition day on a lane whose clock is not synchronised: the real
//! `lanecall run`, its pinsetter on a pseudo-terminal, restarted on the
//! evening of the day before (as a Pi without a clock battery and without
//! a time server does). No block starts until a judge confirms the date;
//! the date they give begins a new day, so yesterday's blindfold checks
//! and block count do not go on; the journal alone gives the same day.

use std::fs;
use std::path::Path;

use lanecall::clock_sync::FAKE_ENV;
use lanecall::journal::Header;
use lanecall::lane::{Action, Bowler, Class, Day, DayCheck, Event, Panel, Stamped};
use lanecall::replay::Replay;
use lanecall::wall::WallTime;
use lanecall::wall_clock::{rfc3339, unix_now};
use serde_json::json;
use serialport::{SerialPort, TTYPort};

use crate::support;
use support::Daemon;

const PIN: &str = "246813";
const LANE: u32 = 3;

fn temp_dir(name: &str) -> crate::support::Scratch {
    let dir = crate::support::Scratch::new(name);
    fs::create_dir_all(dir.join("journal")).unwrap();
    dir
}

fn bowler(name: &str, class: Class) -> Bowler {
    Bowler {
        name: name.into(),
        class,
        handicap: 0,
        team: None,
        voice: Default::default(),
    }
}

/// The date `days` after the machine's today (UTC).
fn date_in(days: i64) -> String {
    let now = i64::try_from(unix_now()).unwrap();
    WallTime((now + days * 86_400) * 1000).date().to_string()
}

/// The journal the lane wrote the evening before, its clock saying the
/// same date as now (the Pi restarted near the time it last ran): Anna's
/// blindfold checked earlier that day, and that day's second block bowled
/// and ended.
fn yesterdays_journal(dir: &Path) {
    let day = Day {
        date: None,
        blocks: 1,
        blindfolds: vec![DayCheck {
            bowler: "Anna Kuznetsova".into(),
            t: 250_000,
            by: Some("Judge Orlova".into()),
        }],
    };
    let header = Header::new(
        LANE,
        Some(rfc3339(unix_now())),
        support::fast_pinsetter_rules(),
    )
    .with_seq(4)
    .with_day(Some(day));
    let judge = |t, action| Stamped {
        t,
        event: Event::Panel(Panel::new(Some("Judge Orlova".into()), action)),
    };
    let events = [
        judge(
            300_000,
            Action::lineup(vec![bowler("Anna Kuznetsova", Class::B1)]),
        ),
        judge(301_000, Action::StartBlock { games: 1 }),
        judge(302_000, Action::EndBlock),
    ];
    let name = format!("lane{LANE}-20261129T214000Z-000004.jsonl");
    fs::write(
        dir.join("journal").join(name),
        support::journal_of(&header, &events),
    )
    .unwrap();
}

/// A lane on `dir` with the pinsetter on a pseudo-terminal and the clock's
/// state `sync`, logged in as a judge.
fn start(dir: &Path, sync: &str) -> (Daemon, TTYPort) {
    let (pinsetter, slave) = TTYPort::pair().expect("a pseudo-terminal pair");
    let port = slave.name().expect("the slave's name");
    let hash = lanecall::web::hash_pin(PIN).unwrap();
    let http = support::free_port();
    let config = support::write_config(dir, LANE, &port, http, &hash);
    let mut daemon = Daemon::start_with_env(&config, http, &[(FAKE_ENV, sync)]);
    daemon.login(PIN);
    daemon.wait_lane("the pinsetter's port open", |l| {
        l["pinsetter"]["link"] == "up"
    });
    drop(slave);
    (daemon, pinsetter)
}

fn lineup() -> serde_json::Value {
    json!({"ev": "lineup", "bowlers": [
        {"name": "Anna Kuznetsova", "class": "B1"},
        {"name": "Ivan Petrov", "class": "B3"},
    ]})
}

#[test]
fn a_lane_restarted_on_yesterdays_clock_waits_for_the_judges_date_and_begins_the_day_afresh() {
    let dir = temp_dir("clock-day");
    yesterdays_journal(&dir);
    let (mut lane, _pinsetter) = start(&dir, "unsynchronised");
    let today = date_in(1);

    let state = lane.lane();
    assert_eq!(state["clock"]["state"], "unsynchronised");
    assert_eq!(state["clock"]["needs_date"], true);
    assert_eq!(state["clock"]["own_date"], date_in(0));

    let (status, body) = lane.action(lineup());
    assert_eq!(status, 200, "{body}");
    let (status, body) = lane.action(json!({"ev": "start_block", "games": 1}));
    assert_eq!(status, 409, "a block started on an unconfirmed day: {body}");
    assert!(body.contains("today's date is not confirmed"), "{body}");
    assert!(body.contains("The Pi's clock"), "{body}");

    // Only the centre's link gives the centre's date.
    let (status, body) = lane.action(json!({"ev": "date", "date": today, "from": "centre"}));
    assert_eq!(status, 400, "{body}");

    let (status, body) = lane.action(json!({"ev": "date", "date": today, "from": "judge"}));
    assert_eq!(status, 200, "{body}");
    let state = lane.wait_lane("the date confirmed", |l| l["clock"]["needs_date"] == false);
    assert_eq!(state["clock"]["date"], today);
    assert_eq!(state["day"]["from"], "judge");
    assert_eq!(state["day"]["by"], "Judge Orlova");

    // Yesterday's check no longer holds.
    let (status, body) = lane.action(json!({"ev": "start_block", "games": 1}));
    assert_eq!(status, 409, "{body}");
    assert!(
        body.contains("no blindfold check with ok for Anna Kuznetsova"),
        "{body}"
    );
    let check = json!({"ev": "blindfold_check", "bowler": "Anna Kuznetsova", "ok": true});
    assert_eq!(lane.action(check).0, 200);
    let (status, body) = lane.action(json!({"ev": "start_block", "games": 1}));
    assert_eq!(status, 200, "{body}");
    let state = lane.wait_lane("block 1 open", |l| l["blocks"][0]["block"] == 1);
    assert_eq!(state["blocks"].as_array().map(Vec::len), Some(1));

    // The journal alone, as a restart and the centre's mirror read it.
    let file = state["journal"]["file"].as_str().expect("a journal file");
    let text = fs::read_to_string(dir.join("journal").join(file)).unwrap();
    let replay = Replay::from_reader(text.as_bytes()).expect("a journal");
    let report = serde_json::to_value(replay.report()).unwrap();
    assert_eq!(report["day"]["date"], today);
    assert_eq!(report["blocks"][0]["block"], 1);
    assert!(text.contains(r#""ev":"date""#), "{text}");
    lane.stop();
}

#[test]
fn a_synchronised_lane_takes_its_clocks_date_and_no_judge_is_asked() {
    let dir = temp_dir("clock-synced");
    let (mut lane, _pinsetter) = start(&dir, "synchronised");
    let state = lane.lane();
    assert_eq!(state["clock"]["state"], "synchronised");
    assert_eq!(state["clock"]["needs_date"], false);
    assert_eq!(state["clock"]["date"], date_in(0));

    let (status, body) = lane.action(json!({"ev": "date", "date": date_in(1), "from": "judge"}));
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("clock is synchronised"), "{body}");
    let ivan = json!({"ev": "lineup", "bowlers": [{"name": "Ivan Petrov", "class": "B3"}]});
    assert_eq!(lane.action(ivan).0, 200);
    let (status, body) = lane.action(json!({"ev": "start_block", "games": 1}));
    assert_eq!(status, 200, "{body}");
    lane.stop();
}

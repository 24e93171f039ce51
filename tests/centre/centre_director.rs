//! The tournament director's page and its APIs (docs/centre.md, "The
//! director's page"; docs/programme.md, "Lanes set on the centre's page"):
//! a block's lanes set and kept, the finals proposed from the standings
//! and confirmed, a push to a lane not running held and delivered when it
//! comes online, and the page in a real browser with real lanes.

use crate::support;

use std::path::Path;

use serde_json::{Value, json};
use support::centre::{Centre, lane_login_keys};
use support::centre_lane::{Lane, PIN};
use support::centre_scene::{SITE, Via, centre_config};
use support::{eventually, free_port};

fn temp_dir(name: &str) -> crate::support::Scratch {
    crate::support::Scratch::new(&format!("director-{name}"))
}

/// A centre on the embedded broker (logins for lanes 1 and 2), with
/// `programme` if given.
fn centre(dir: &Path, programme: Option<&str>) -> (Centre, u16) {
    centre_with(dir, programme, "")
}

/// As [`centre`], with `keys` at the top of the centre's config.
fn centre_with(dir: &Path, programme: Option<&str>, keys: &str) -> (Centre, u16) {
    let (web, mqtt) = (free_port(), free_port());
    let config = centre_config(dir, &dir.join("state"), web, Via::Embedded(mqtt));
    let c = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{keys}{c}")).unwrap();
    if let Some(text) = programme {
        let path = dir.join("programme.toml");
        std::fs::write(&path, text).unwrap();
        let c = std::fs::read_to_string(&config).unwrap();
        std::fs::write(&config, format!("programme = {path:?}\n{c}")).unwrap();
    }
    let mut c = Centre::start(&config, web);
    c.wait_connected();
    (c, mqtt)
}

/// A journal with `names` in the lane order and a block of `games` games
/// started, as the daemon finds it when it starts. The lane has them as
/// B2 (a B1 bowler waits for a blindfold check); the centre's programme
/// says what they are.
fn open_block_of(n: u32, names: &[&str], games: u32) -> String {
    use lanecall::journal::Header;
    use lanecall::lane::{Action, Bowler, Class, Event, Panel, Stamped};
    let header = Header::new(
        n,
        Some(lanecall::wall_clock::rfc3339(
            lanecall::wall_clock::unix_now(),
        )),
        support::fast_pinsetter_rules(),
    );
    let bowlers = names
        .iter()
        .map(|name| Bowler {
            name: (*name).into(),
            class: Class::B2,
            handicap: 0,
            team: None,
            voice: Default::default(),
        })
        .collect();
    let events = [
        (0, Action::lineup(bowlers)),
        (1, Action::StartBlock { games }),
    ]
    .map(|(t, action)| Stamped {
        t,
        event: Event::Panel(Panel::new(Some("Judge Orlova".into()), action)),
    });
    support::journal_of(&header, &events)
}

/// A real lane `n` (`names` in its lane order, one game open) that takes
/// the centre's commands.
fn lane(dir: &Path, n: u32, mqtt: u16, names: &[&str]) -> Lane {
    lane_of(dir, n, mqtt, names, 1)
}

/// As [`lane`], its block of `games` games.
fn lane_of(dir: &Path, n: u32, mqtt: u16, names: &[&str], games: u32) -> Lane {
    let keys = format!(
        "broker = \"mqtt://127.0.0.1:{mqtt}\"\nsite = \"{SITE}\"\naccept_commands = true\n{}",
        lane_login_keys(dir, n)
    );
    Lane::start_named(
        &dir.join(format!("lane{n}")),
        n,
        Some(keys),
        &open_block_of(n, names, games),
        "20261201T090000Z-01",
    )
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_push_to_a_lane_not_running_is_said_at_once_and_delivered_when_it_comes_online() {
    let dir = temp_dir("offline");
    let (mut c, mqtt) = centre(&dir, None);
    let cookie = c.login(PIN, "Irina Orlova").0;
    let body =
        json!({ "block": "S1", "lanes": { "1": [{ "name": "Ivan Petrov", "class": "B1" }] } });
    let (status, v) = c.post(Some(&cookie), "/api/push", &body);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["offline"], json!([1]), "said at once: {v}");
    let hold = json!({ "lane": 1, "on": true, "reason": "oil" });
    let (status, v) = c.post(Some(&cookie), "/api/hold", &hold);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["offline"], json!([1]), "{v}");
    let pushes = c.get("/api/pushes");
    assert_eq!(pushes[0]["lanes"]["1"]["status"], "offline", "{pushes}");
    assert_eq!(pushes[1]["lanes"]["1"]["status"], "offline", "{pushes}");

    // The lane starts: both commands go to it as it comes online, in the
    // order pushed, and it answers each (a lineup while its block is open
    // is refused by the lane itself: it was delivered).
    let _lane = lane(&dir, 1, mqtt, &["Ivan Petrov"]);
    c.wait_lane(1, "online", |l| l["online"] == true);
    let answered = eventually("lane 1 to answer both held commands", || {
        let p = c.get("/api/pushes");
        let (hold, lineup) = (&p[0]["lanes"]["1"], &p[1]["lanes"]["1"]);
        let done = |x: &Value| matches!(x["status"].as_str(), Some("accepted" | "refused"));
        if done(hold) && done(lineup) {
            Ok((hold.clone(), lineup.clone()))
        } else {
            Err(p.to_string())
        }
    });
    assert_eq!(answered.0["status"], "accepted", "the hold: {answered:?}");
    c.wait_lane(1, "held by the pushed hold", |l| {
        l["state"]["hold"]["reason"] == "oil"
    });
    // A lane online now is sent to at once.
    let (_, v) = c.post(Some(&cookie), "/api/push", &body);
    assert_eq!(v["offline"], json!([]), "{v}");
}

/// Every lane of the competition has a card, one that never connected
/// too; a hold held for an offline lane is cancelled by a judge (recorded
/// by who and when) and never reaches the lane when it comes online.
#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_held_push_is_cancelled_and_never_reaches_the_lane() {
    let dir = temp_dir("cancel");
    let (mut c, mqtt) = centre(&dir, None);
    // The logins' lanes, neither heard from yet.
    let lanes = c.get("/api/lanes");
    let cards: Vec<(u64, bool)> = lanes
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["lane"].as_u64().unwrap(), l["never_connected"] == true))
        .collect();
    assert_eq!(cards, [(1, true), (2, true)], "{lanes}");

    let cookie = c.login(PIN, "Irina Orlova").0;
    let hold = json!({ "lane": 1, "on": true, "reason": "oil" });
    let (status, v) = c.post(Some(&cookie), "/api/hold", &hold);
    assert_eq!(status, 200, "{v}");
    let push = v["push"].as_u64().unwrap();
    let cancel = |lane: Value| json!({ "push": push, "lane": lane });
    assert_eq!(c.post(None, "/api/pushes/cancel", &cancel(json!(1))).0, 401);
    let (status, v) = c.post(
        Some(&cookie),
        "/api/pushes/cancel",
        &json!({ "push": push + 100 }),
    );
    assert_eq!(status, 404, "{v}");
    let (status, v) = c.post(Some(&cookie), "/api/pushes/cancel", &cancel(json!(2)));
    assert_eq!(status, 409, "push {push} sent nothing to lane 2: {v}");
    let (status, v) = c.post(Some(&cookie), "/api/pushes/cancel", &cancel(json!("x")));
    assert_eq!(status, 400, "{v}");
    let (status, v) = c.post(Some(&cookie), "/api/pushes/cancel", &cancel(json!(1)));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["cancelled"], json!([1]), "{v}");
    let (status, v) = c.post(Some(&cookie), "/api/pushes/cancel", &cancel(json!(1)));
    assert_eq!(status, 409, "cancelled once: {v}");
    let l1 = c.get("/api/pushes")[0]["lanes"]["1"].clone();
    assert_eq!(l1["status"], "cancelled", "{l1}");
    assert_eq!(l1["cancelled_by"], "Irina Orlova", "{l1}");
    assert!(l1["cancelled_at_unix"].is_u64(), "{l1}");

    // The lane comes online: a later command is answered, the cancelled
    // hold (which would have gone first) never came.
    let _lane = lane(&dir, 1, mqtt, &["Ivan Petrov"]);
    c.wait_lane(1, "online", |l| {
        l["online"] == true && l["state"].is_object()
    });
    let lanes = c.get("/api/lanes");
    assert_eq!(lanes[0]["never_connected"], Value::Null, "{lanes}");
    assert_eq!(lanes[1]["never_connected"], true, "{lanes}");
    let hold = json!({ "lane": 1, "on": false });
    let (status, v) = c.post(Some(&cookie), "/api/hold", &hold);
    assert_eq!(status, 200, "{v}");
    let answered = eventually("lane 1 to answer the resume", || {
        let p = c.get("/api/pushes");
        match p[0]["lanes"]["1"]["status"].as_str() {
            Some("accepted" | "refused") => Ok(p[0]["lanes"]["1"].clone()),
            _ => Err(p.to_string()),
        }
    });
    assert_eq!(
        answered["status"], "refused",
        "the lane was never held: {answered}"
    );
    assert!(
        answered["error"]
            .as_str()
            .is_some_and(|e| e.contains("not held")),
        "{answered}"
    );
    assert_eq!(c.get("/api/pushes")[1]["lanes"]["1"]["status"], "cancelled");
    let l = c.wait_lane(1, "its state", |l| l["state"].is_object());
    assert_eq!(l["state"]["hold"], Value::Null, "{l}");
}

#[test]
fn a_finals_block_gets_the_proposed_lanes_kept_across_a_restart_and_can_be_pushed() {
    let dir = temp_dir("finals");
    let (mut c, _) = centre(&dir, Some(include_str!("../programme/example.toml")));
    let v = c.get("/api/centre");
    assert!(v["zone"]["offset_s"].is_i64(), "{v}");
    // No games yet: the seeds are the entries ranked 0, by name.
    let f = c.get("/api/finals");
    assert_eq!(f["lanes"], json!([1, 2, 3, 4, 5, 6]), "{f}");
    let b1 = &f["finals"][0];
    assert_eq!(b1["category"], "B1");
    assert_eq!(
        b1["seeds"],
        json!([
            "Anna Kuznetsova",
            "Dmitri Orlov",
            "Ivan Petrov",
            "Olga Smirnova"
        ])
    );
    let rr = &b1["blocks"][0];
    assert_eq!(rr["block"], "RR-B1");
    assert_eq!(
        rr["lanes"],
        json!({ "1": ["Anna Kuznetsova", "Olga Smirnova"], "2": ["Dmitri Orlov", "Ivan Petrov"] })
    );
    // The step-ladder waits for the round robin's end.
    assert_eq!(b1["blocks"][1]["lanes"], json!({}));
    assert_eq!(
        b1["blocks"][1]["waiting"],
        "the round robin is not finished"
    );

    let confirm = json!({ "block": "RR-B1", "lanes": rr["lanes"] });
    assert_eq!(c.post(None, "/api/blocks/lanes", &confirm).0, 401);
    let cookie = c.login(PIN, "Irina Orlova").0;
    let five = json!({ "block": "RR-B1", "lanes": { "1": ["Anna Kuznetsova", "Olga Smirnova", "Dmitri Orlov", "Ivan Petrov", "Sergei Volkov"] } });
    let (status, v) = c.post(Some(&cookie), "/api/blocks/lanes", &five);
    assert_eq!(status, 400, "{v}");
    let other = json!({ "block": "RR-B1", "lanes": { "9": ["Anna Kuznetsova"] } });
    let (status, v) = c.post(Some(&cookie), "/api/blocks/lanes", &other);
    assert_eq!(status, 400, "lane 9 is not the centre's: {v}");
    // No game of the qualifying blocks is bowled yet: the finals wait,
    // unless the chief judge confirms them early, saying why.
    let (status, v) = c.post(Some(&cookie), "/api/blocks/lanes", &confirm);
    assert_eq!(status, 409, "{v}");
    let e = v["error"].as_str().unwrap_or_default();
    assert!(
        e.contains("the preliminaries of finals block RR-B1 are not complete")
            && e.contains("Anna Kuznetsova has bowled 0 of 12 game(s)"),
        "{v}"
    );
    let early = |reason: &str| {
        let mut b = confirm.clone();
        b["early"] = json!(true);
        b["reason"] = json!(reason);
        b
    };
    let (status, v) = c.post(Some(&cookie), "/api/blocks/lanes", &early(""));
    assert_eq!(status, 400, "a reason is needed: {v}");
    let (status, v) = c.post(
        Some(&cookie),
        "/api/blocks/lanes",
        &early("lanes for the finals set before the evening session"),
    );
    assert_eq!(status, 200, "{v}");
    let kept = std::fs::read_to_string(dir.join("state/finals-early.jsonl")).unwrap();
    assert!(
        kept.contains("\"by\":\"Irina Orlova\"")
            && kept.contains("\"reason\":\"lanes for the finals set before the evening session\""),
        "{kept}"
    );
    let rr_block = |p: &Value| {
        p["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["id"] == "RR-B1")
            .unwrap()["lanes"]
            .clone()
    };
    assert_eq!(rr_block(&v), rr["lanes"]);
    let (status, v) = c.post(Some(&cookie), "/api/push", &json!({ "block": "RR-B1" }));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["offline"], json!([1, 2]), "no lane runs here: {v}");
    let record = std::fs::read_to_string(dir.join("state/blocks-changes.jsonl")).unwrap();
    assert!(record.contains("\"by\":\"Irina Orlova\""), "{record}");

    let config = dir.join("centre.toml");
    let web = c.web;
    c.stop();
    let mut c = Centre::start(&config, web);
    assert_eq!(rr_block(&c.get("/api/programme")), rr["lanes"]);
    let f = c.get("/api/finals");
    assert_eq!(f["finals"][0]["blocks"][0]["current"], rr["lanes"]);
}

#[test]
fn without_a_programme_the_page_is_answered_without_an_error() {
    let dir = temp_dir("none");
    let (mut c, _) = centre(&dir, None);
    assert_eq!(c.get("/api/programme"), Value::Null);
    assert_eq!(c.get("/api/finals"), json!({ "lanes": [], "finals": [] }));
}

/// Another judge (a PIN of their own) may neither confirm finals before
/// the preliminaries end nor void a game: only the chief judge.
#[test]
fn only_the_chief_judge_confirms_finals_early_or_voids_a_game() {
    let dir = temp_dir("chief");
    let (web, mqtt) = (support::free_port(), support::free_port());
    let config = centre_config(&dir, &dir.join("state"), web, Via::Embedded(mqtt));
    let path = dir.join("programme.toml");
    std::fs::write(&path, include_str!("../programme/example.toml")).unwrap();
    let hash = lanecall::web::hash_pin("135790").unwrap();
    let c = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!(
            "programme = {path:?}\n{c}[[web.judges]]\nname = \"Pavel Lebedev\"\npin_hash = {hash:?}\n"
        ),
    )
    .unwrap();
    let mut c = Centre::start(&config, web);
    let (cookie, name) = c.login("135790", "");
    assert_eq!(name, "Pavel Lebedev");
    let rr = c.get("/api/finals")["finals"][0]["blocks"][0]["lanes"].clone();
    let early = json!({ "block": "RR-B1", "lanes": rr, "early": true, "reason": "evening" });
    let (status, v) = c.post(Some(&cookie), "/api/blocks/lanes", &early);
    assert_eq!(status, 403, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap_or_default()
            .contains("only the chief judge"),
        "{v}"
    );
    let void =
        json!({ "block": "S1", "lane": 1, "name": "Anna Kuznetsova", "game": 1, "reason": "x" });
    let (status, v) = c.post(Some(&cookie), "/api/games/void", &void);
    assert_eq!(status, 403, "{v}");
    assert!(!dir.join("state/finals-early.jsonl").exists());
}

/// A lane whose judge started the block with more games than the
/// programme's bowls past it: the block's lane says so as an alarm.
#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_lane_bowling_past_its_block_is_an_alarm() {
    let dir = temp_dir("past");
    let (mut c, mqtt) = centre(&dir, Some(PROGRAMME));
    // S1 has 1 game; the lane was started for 2.
    let mut l1 = lane_of(&dir, 1, mqtt, &["Ivan Petrov"], 2);
    l1.bowl("X X X X X X X X X X X X");
    let done = eventually("S1 bowled on lane 1", || {
        let s = block_status(&mut c, "S1", "1");
        if s["state"] == "done" {
            Ok(s)
        } else {
            Err(s.to_string())
        }
    });
    assert_eq!(done["alarm"], Value::Null, "{done}");
    l1.bowl("X");
    let past = eventually("the alarm of lane 1 bowling past S1", || {
        let s = block_status(&mut c, "S1", "1");
        if s["past"] == "games" {
            Ok(s)
        } else {
            Err(s.to_string())
        }
    });
    assert_eq!(past["games_bowled"], 2, "{past}");
    assert_eq!(
        past["alarm"], "lane 1 is bowling game 2 of block S1, which has 1 game(s)",
        "{past}"
    );
}

/// A block's status on one of its lanes, as `GET /api/programme` gives it.
fn block_status(c: &mut Centre, block: &str, lane: &str) -> Value {
    let p = c.get("/api/programme");
    p["blocks"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b["id"] == block))
        .map_or(Value::Null, |b| b["status"][lane].clone())
}

/// Each block says per lane whether it is not started, bowling or done;
/// a block a lane has begun is pushed again only when the chief judge
/// says so with a reason, which the push keeps.
#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_begun_block_says_so_and_is_pushed_again_only_with_a_reason() {
    let dir = temp_dir("again");
    let (mut c, mqtt) = centre(&dir, Some(PROGRAMME));
    let s1 = block_status(&mut c, "S1", "1");
    assert_eq!(s1["state"], "not_started", "{s1}");
    assert_eq!(s1["games"], 1, "{s1}");
    let cookie = c.login(PIN, "Irina Orlova").0;
    let push = json!({ "block": "S1" });

    let mut l1 = lane(&dir, 1, mqtt, &["Ivan Petrov"]);
    eventually("S1 bowling on lane 1", || {
        let s = block_status(&mut c, "S1", "1");
        if s["state"] == "bowling" {
            Ok(())
        } else {
            Err(s.to_string())
        }
    });
    let (status, v) = c.post(Some(&cookie), "/api/push", &push);
    assert_eq!(status, 409, "{v}");
    let e = v["error"].as_str().unwrap_or_default();
    assert!(
        e.contains("block S1 has begun: lane 1 is bowling game 1 of 1"),
        "{v}"
    );
    assert_eq!(v["begun"]["1"]["state"], "bowling", "{v}");

    l1.bowl("X X X X X X X X X X X X");
    let done = eventually("S1 done on lane 1", || {
        let s = block_status(&mut c, "S1", "1");
        if s["state"] == "done" {
            Ok(s)
        } else {
            Err(s.to_string())
        }
    });
    assert_eq!(done["games_bowled"], 1, "{done}");
    assert_eq!(done["alarm"], Value::Null, "{done}");
    let (status, v) = c.post(Some(&cookie), "/api/push", &push);
    assert_eq!(status, 409, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap_or_default()
            .contains("lane 1 bowled all 1 game(s)"),
        "{v}"
    );
    let again = json!({ "block": "S1", "again": true, "reason": " " });
    let (status, v) = c.post(Some(&cookie), "/api/push", &again);
    assert_eq!(status, 400, "a reason is needed: {v}");
    let before = c.get("/api/pushes").as_array().map_or(0, Vec::len);
    assert_eq!(before, 0, "nothing was pushed");
    let again = json!({ "block": "S1", "again": true, "reason": "the pinsetter misread frame 4" });
    let (status, v) = c.post(Some(&cookie), "/api/push", &again);
    assert_eq!(status, 200, "{v}");
    let pushes = c.get("/api/pushes");
    assert_eq!(
        pushes[0]["again"], "the pinsetter misread frame 4",
        "{pushes}"
    );
    assert_eq!(pushes[0]["by"], "Irina Orlova", "{pushes}");
    // A block no lane has begun is pushed at once.
    let (status, v) = c.post(Some(&cookie), "/api/push", &json!({ "block": "D1" }));
    assert_eq!(status, 200, "{v}");

    // The chief judge voids S1's game on lane 1: it counts nowhere and is
    // listed among the games not counted, with the reason, who and when.
    let void = json!({ "block": "S1", "lane": 1, "name": "Ivan Petrov", "game": 1,
                       "reason": "bowled on the wrong lane" });
    assert_eq!(c.post(None, "/api/games/void", &void).0, 401);
    let mut none = void.clone();
    none["game"] = json!(2);
    let (status, v) = c.post(Some(&cookie), "/api/games/void", &none);
    assert_eq!(status, 404, "{v}");
    let mut why = void.clone();
    why["reason"] = json!("");
    assert_eq!(c.post(Some(&cookie), "/api/games/void", &why).0, 400);
    let (status, v) = c.post(Some(&cookie), "/api/games/void", &void);
    assert_eq!(status, 200, "{v}");
    let (status, v) = c.post(Some(&cookie), "/api/games/void", &void);
    assert_eq!(status, 409, "voided once: {v}");
    let s = c.get("/api/standings");
    let ivan = s["categories"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["entries"].as_array().unwrap())
        .find(|e| e["name"] == "Ivan Petrov")
        .unwrap();
    assert_eq!(ivan["games"], json!([]), "{s}");
    let voided = s["unplaced"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["name"] == "Ivan Petrov" && u["game"] == 1)
        .unwrap_or_else(|| panic!("{s}"));
    assert_eq!(voided["reason"], "voided by the chief judge", "{voided}");
    assert_eq!(
        voided["reason_ru"], "аннулирована главным судьёй",
        "{voided}"
    );
    assert_eq!(voided["note"], "bowled on the wrong lane", "{voided}");
    assert_eq!(voided["by"], "Irina Orlova", "{voided}");
    assert_eq!(voided["block"], "S1", "{voided}");
    let kept = std::fs::read_to_string(dir.join("state/voids.toml")).unwrap();
    assert!(kept.contains("Irina Orlova"), "{kept}");
}

const PROGRAMME: &str = r#"
title = "Director's Cup"
dates = "1 December 2026"
place = "Kosmik"
judges = ["chief judge: Irina Orlova"]

[[entry]]
name = "Ivan Petrov"
class = "B1"
sex = "M"
region = "Moscow"

[[entry]]
name = "Olga Sidorova"
class = "B1"
sex = "F"
region = "Kazan"

[[entry]]
name = "Nina Guseva"
class = "B1"
sex = "F"
region = "Kazan"

[[entry]]
name = "Pavel Kim"
class = "B1"
sex = "M"
region = "Moscow"

[[entry]]
name = "Sergei Volkov"
class = "B2"
sex = "M"
region = "Tula"
withdrawn = true

[[event]]
id = "singles"
kind = "singles"

[[event]]
id = "doubles"
kind = "doubles"
teams = { "Kazan" = ["Olga Sidorova", "Nina Guseva"], "Moscow" = ["Ivan Petrov", "Pavel Kim"] }

[[block]]
id = "S1"
event = "singles"
games = 1
day = 1
lanes = { 1 = ["Ivan Petrov"] }

[[block]]
id = "D1"
event = "doubles"
games = 1
day = 1
lanes = { 2 = ["Olga Sidorova", "Nina Guseva"] }

[[block]]
id = "S2"
event = "singles"
games = 2
day = 2

[[block]]
id = "RR-B1"
event = "singles"
games = 3
day = 3

[[block]]
id = "SL1-B1"
event = "singles"
games = 1
day = 3

[[block]]
id = "SL2-B1"
event = "singles"
games = 1
day = 3

[[finals]]
category = "B1"
round_robin = "RR-B1"
step_ladder = ["SL1-B1", "SL2-B1"]
"#;

/// The page in headless Chromium (`tests/browser/director.mjs`) with two
/// real lanes and lane 3 of the config never connected: the script asks
/// for balls by printing `BOWL <lane> <notation>` and waits for `sent`.
/// Skipped when node, chromium or `npm ci` in tests/browser are missing,
/// as the other browser tests.
#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn the_directors_page_in_a_real_browser() {
    if !support::browser_tools() {
        return;
    }
    let dir = temp_dir("browser");
    let (mut c, mqtt) = centre_with(&dir, Some(PROGRAMME), "lanes = [1, 2, 3]\n");
    let mut lanes = [
        lane(&dir, 1, mqtt, &["Ivan Petrov"]),
        lane(&dir, 2, mqtt, &["Olga Sidorova", "Nina Guseva"]),
    ];
    for n in [1, 2] {
        c.wait_lane(n, "online with its state", |l| {
            l["online"] == true && l["state"].is_object()
        });
    }
    support::run_browser_asking("director.mjs", c.web, PIN, "director", |line| {
        let Some(rest) = line.strip_prefix("BOWL ") else {
            return false;
        };
        let (n, notation) = rest.split_once(' ').expect("BOWL <lane> <notation>");
        let n: usize = n.parse().expect("a lane number");
        lanes[n - 1].bowl(notation);
        true
    });
    // What the form set is what the centre keeps.
    let p = c.get("/api/programme");
    let s2 = p["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == "S2")
        .unwrap()
        .clone();
    assert_eq!(s2["lanes"], json!({ "2": ["Pavel Kim", "Nina Guseva"] }));
    // Drawn on the page: the seed is recorded with the lanes, by whom.
    let draws = std::fs::read_to_string(dir.join("state/draws.jsonl")).unwrap();
    assert!(
        draws.contains("\"block\":\"S2\"")
            && draws.contains("\"seed\":2026")
            && draws.contains("\"lanes\":{\"2\":[\"Pavel Kim\",\"Nina Guseva\"]}"),
        "{draws}"
    );
}

/// A programme file with its title and nothing else: the programme is made
/// on the page.
const BARE: &str = "title = \"Tula Cup\"\ndates = \"1 May\"\nplace = \"Tula\"\n\
                    judges = [\"chief judge: Irina Orlova\"]\n";

/// The programme made on the page (`tests/browser/programme.mjs`) from a
/// file with only its title, the entries added by the entries' API: the
/// events, blocks and finals the page made are what the centre answers,
/// kept in `programme.toml` and recorded with who made them, and a centre
/// started again on the same `state_dir` still has them. Skipped as the
/// other browser tests.
#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn the_programme_is_made_on_the_page_and_kept_across_a_restart() {
    if !support::browser_tools() {
        return;
    }
    let dir = temp_dir("programme");
    let (mut c, _) = centre(&dir, Some(BARE));
    let (cookie, _) = c.login(PIN, "Pavel Sokolov");
    for (name, sex) in [("Anna", "F"), ("Olga", "F"), ("Ivan", "M"), ("Dmitri", "M")] {
        let entry =
            json!({ "entry": { "name": name, "class": "B1", "sex": sex, "region": "Tula" } });
        let (status, v) = c.post(Some(&cookie), "/api/entries/add", &entry);
        assert_eq!(status, 200, "{v}");
    }
    support::run_browser("programme.mjs", c.web, PIN);
    let shape = |v: &Value| {
        let ids = |k: &str, id: &str| -> Vec<Value> {
            v[k].as_array()
                .unwrap()
                .iter()
                .map(|x| x[id].clone())
                .collect()
        };
        (
            ids("events", "id"),
            ids("blocks", "id"),
            ids("finals", "category"),
        )
    };
    let made = c.get("/api/programme/edit");
    let want = (
        vec![json!("doubles"), json!("singles")],
        vec![
            json!("S1"),
            json!("RR-B1"),
            json!("SL1-B1"),
            json!("SL2-B1"),
        ],
        vec![json!("B1")],
    );
    assert_eq!(shape(&made), want, "{made}");
    assert_eq!(made["changes"][0]["by"], "Irina Orlova", "{made}");
    // The programme's own answer (the blocks the page pushes) has them.
    let p = c.get("/api/programme");
    assert_eq!(p["finals"][0]["round_robin"], "RR-B1", "{p}");
    let stored = std::fs::read_to_string(dir.join("state/programme.toml")).unwrap();
    assert!(stored.contains("title = \"Tula Cup\""), "{stored}");
    // A change needs a judge; a block pushed keeps its games, not its day.
    let games = json!({ "op": "edit", "id": "S1", "games": 7 });
    let (status, _) = c.post(None, "/api/programme/block", &games);
    assert_eq!(status, 401);
    let push = json!({ "block": "S1", "lanes": { "1": [{ "name": "Anna", "class": "B1" }] } });
    let (status, v) = c.post(Some(&cookie), "/api/push", &push);
    assert_eq!(status, 200, "{v}");
    let (status, v) = c.post(Some(&cookie), "/api/programme/block", &games);
    assert_eq!(status, 409, "{v}");
    assert!(v["error"].as_str().unwrap().contains("pushed"), "{v}");
    let (status, v) = c.post(
        Some(&cookie),
        "/api/programme/block",
        &json!({ "op": "delete", "id": "S1" }),
    );
    assert_eq!(status, 409, "{v}");
    let day = json!({ "op": "edit", "id": "S1", "day": 4 });
    let (status, v) = c.post(Some(&cookie), "/api/programme/block", &day);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["changes"][0]["by"], "Pavel Sokolov", "{v}");
    c.stop();
    // Started again on the same state_dir: the programme is the page's.
    let (mut c, _) = centre(&dir, Some(BARE));
    let again = c.get("/api/programme/edit");
    assert_eq!(shape(&again), want, "{again}");
    assert_eq!(again["own"], true);
    assert_eq!(again["blocks"][0]["day"], 4, "{again}");
    let teams = &again["events"][0]["teams"];
    assert_eq!(teams.as_array().map(Vec::len), Some(2), "{again}");
}

//! Invariants of scoring and replay, checked on random games and on
//! simulated lanes.

use lanecall::journal::Writer;
use lanecall::lane::scoring::{self, Ball};
use lanecall::lane::{Event, PinSet, Sensor, Side, Stamped};
use lanecall::pinsetter::{WINDOW, parse_line};
use lanecall::replay::Replay;
use lanecall::sim::Scenario;
use proptest::prelude::*;
use serde_json::Value;

use crate::support;
use support::unsealed;

/// Any sequence of pin reports and fouls a pinsetter and a foul line could
/// produce, including nonsense (pins reported standing that had fallen).
fn balls() -> impl Strategy<Value = Vec<Ball>> {
    prop::collection::vec((0u16..1024, prop::bool::weighted(0.1)), 0..24).prop_map(|v| {
        v.into_iter()
            .map(|(bits, foul)| Ball {
                t: 0,
                standing: PinSet::from_bits(bits).unwrap(),
                foul,
                channel: None::<Side>,
                corrected: false,
                deck: None,
            })
            .collect()
    })
}

proptest! {
    #[test]
    fn no_game_scores_above_300(balls in balls(), fouls_count: bool) {
        let sheet = scoring::sheet(&balls, fouls_count);
        prop_assert!(sheet.total <= 300);
        let mut last = 0;
        for f in &sheet.frames {
            if let Some(c) = f.cumulative {
                prop_assert!(c >= last, "running totals never go down");
                prop_assert!(c - last <= 30, "a frame scores at most 30");
                last = c;
            }
        }
        prop_assert!(sheet.frames.len() <= 10);
    }

    #[test]
    fn the_sheet_scores_every_game_as_the_rules_do(raws in prop::collection::vec(any::<u8>(), 21), cut in 0usize..=21) {
        let game = valid_game(&raws);
        // The whole game, and any part of it bowled so far.
        for pinfalls in [&game[..], &game[..cut.min(game.len())]] {
            let balls: Vec<Ball> = racked(pinfalls);
            let sheet = scoring::sheet(&balls, true);
            let (want, complete) = rules_score(pinfalls);
            let got: Vec<Option<u16>> = sheet.frames.iter().map(|f| f.cumulative).collect();
            prop_assert_eq!(&got, &want, "pinfalls {:?}", pinfalls);
            prop_assert_eq!(sheet.complete, complete, "pinfalls {:?}", pinfalls);
            let last = want.iter().rev().find_map(|c| *c).unwrap_or(0);
            prop_assert_eq!(sheet.total, last, "pinfalls {:?}", pinfalls);
        }
    }
}

/// A whole game's pinfalls, each ball's drawn from `raws` among the pins
/// its rack has standing: ten frames, the tenth with its bonus balls.
fn valid_game(raws: &[u8]) -> Vec<u16> {
    let mut raws = raws.iter().map(|&r| u16::from(r));
    let mut draw = |standing: u16| raws.next().expect("21 draws are enough") % (standing + 1);
    let mut game = Vec::new();
    for _ in 1..=9 {
        let first = draw(10);
        game.push(first);
        if first < 10 {
            game.push(draw(10 - first));
        }
    }
    let first = draw(10);
    let second = draw(if first == 10 { 10 } else { 10 - first });
    game.extend([first, second]);
    if first == 10 {
        game.push(draw(if second == 10 { 10 } else { 10 - second }));
    } else if first + second == 10 {
        game.push(draw(10));
    }
    game
}

/// The balls a pinsetter reports for `pinfalls`: each knocks down that
/// many of the pins its rack has standing; a new rack after a strike, a
/// frame's second ball, and in the tenth after a strike or a spare.
fn racked(pinfalls: &[u16]) -> Vec<Ball> {
    let mut balls = Vec::new();
    let (mut frame, mut in_frame, mut rack) = (1, 0, PinSet::FULL);
    for &down in pinfalls {
        let fallen = PinSet::from_pins(rack.iter().take(usize::from(down)));
        let standing = rack.without(fallen);
        balls.push(Ball {
            t: 0,
            standing,
            foul: false,
            channel: None::<Side>,
            corrected: false,
            deck: None,
        });
        in_frame += 1;
        rack = standing;
        if frame < 10 && (standing.is_empty() || in_frame == 2) {
            (frame, in_frame, rack) = (frame + 1, 0, PinSet::FULL);
        } else if frame == 10 && standing.is_empty() {
            rack = PinSet::FULL;
        }
    }
    balls
}

/// The score sheet by the rules, written plainly: each frame's running
/// total once it and its bonus balls are rolled (a strike: ten and the
/// next two balls; a spare: ten and the next ball; the tenth: its own two
/// or three balls), for each frame with a ball; and whether the game is
/// complete.
fn rules_score(pinfalls: &[u16]) -> (Vec<Option<u16>>, bool) {
    let ball = |i: usize| pinfalls.get(i).copied();
    let sum = |from: usize, n: usize| -> Option<u16> { (from..from + n).map(ball).sum() };
    let (mut frames, mut total, mut known) = (Vec::new(), 0, true);
    let mut i = 0;
    for frame in 1..=10 {
        let Some(first) = ball(i) else { break };
        let (score, used) = if frame == 10 {
            let second = ball(i + 1);
            let bonus = first == 10 || second.is_some_and(|s| first + s == 10);
            if bonus {
                (sum(i, 3), 3)
            } else {
                (sum(i, 2), 2)
            }
        } else if first == 10 {
            (sum(i + 1, 2).map(|b| 10 + b), 1)
        } else if ball(i + 1).is_some_and(|s| first + s == 10) {
            (ball(i + 2).map(|b| 10 + b), 2)
        } else {
            (sum(i, 2), 2)
        };
        known &= score.is_some();
        frames.push(if known {
            total += score.unwrap();
            Some(total)
        } else {
            None
        });
        i += used;
    }
    let complete = frames.len() == 10 && known;
    (frames, complete)
}

/// A simulated block as journal text.
fn journal(seed: u64, bowlers: usize, games: u8) -> String {
    let mut scenario = Scenario::demo(seed);
    scenario.bowlers.truncate(bowlers);
    scenario.games = games;
    scenario.foul_chance = 0.15;
    scenario.noise_chance = 0.1;
    scenario.slow_chance = 0.1;
    let header = scenario.header();
    let mut w = Writer::create(Vec::new(), &header).unwrap();
    for e in scenario.run() {
        w.write(&e).unwrap();
    }
    String::from_utf8(w.into_inner()).unwrap()
}

fn replay(text: &str) -> Value {
    let r = Replay::from_reader(text.as_bytes()).expect("a journal");
    serde_json::to_value(r.report()).unwrap()
}

/// The frames whose score a prefix knows for good: a ball still in play
/// (a foul may yet be called on it) can change its own frame and the two
/// before it.
fn settled_frames(report: &Value) -> Vec<(String, u64, u64, Value, Value)> {
    let in_play = &report["in_play"];
    let mut out = Vec::new();
    for b in report["bowlers"].as_array().unwrap() {
        let name = b["name"].as_str().unwrap().to_owned();
        for g in b["games"].as_array().unwrap() {
            let game = g["game"].as_u64().unwrap();
            let open = in_play["bowler"] == b["name"] && in_play["game"] == g["game"];
            for f in g["frames"].as_array().unwrap() {
                let frame = f["frame"].as_u64().unwrap();
                let near_play = open && frame + 2 >= in_play["frame"].as_u64().unwrap();
                if !f["cumulative"].is_null() && !near_play {
                    out.push((
                        name.clone(),
                        game,
                        frame,
                        f["marks"].clone(),
                        f["cumulative"].clone(),
                    ));
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn replaying_a_journal_twice_gives_the_same_result(seed: u64) {
        let text = journal(seed, 3, 1);
        prop_assert_eq!(replay(&text), replay(&text));
    }

    #[test]
    fn every_prefix_replays_and_agrees_with_the_whole(seed: u64, cut_in_line in 1usize..40) {
        let text = journal(seed, 2, 1);
        let full = replay(&text);
        let all_settled = settled_frames(&full);
        let full_errors = full["errors"].as_array().unwrap().clone();
        let line_ends: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
        // Every 5th line end, and a cut inside the line after it (a torn
        // write).
        for &end in line_ends.iter().step_by(5) {
            let torn = (end + cut_in_line).min(text.len());
            for cut in [end, torn] {
                let prefix = replay(&text[..cut]);
                for e in prefix["errors"].as_array().unwrap() {
                    prop_assert!(full_errors.contains(e), "prefix error {} not in the full replay", e);
                }
                for frame in settled_frames(&prefix) {
                    prop_assert!(all_settled.contains(&frame), "cut at byte {}: {:?} changed", cut, frame);
                }
            }
        }
    }
}

/// What a damaged line must not change: everything the lane did.
fn what_the_lane_did(report: &Value) -> Value {
    serde_json::json!([what_the_lane_did_but_events(report), report["events"]])
}

/// The journal without its line `k` (0-based).
fn without_line(text: &str, k: usize) -> String {
    text.lines()
        .enumerate()
        .filter(|&(i, _)| i != k)
        .map(|(_, l)| format!("{l}\n"))
        .collect()
}

/// Whether `report` lists an error on line `line` (1-based).
fn has_error_on(report: &Value, line: usize) -> bool {
    report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["line"] == line as u64)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any one byte changed in a format 2 journal (but the header, and
    /// never into a line end) loses that line alone.
    #[test]
    fn one_damaged_line_loses_only_itself(
        seed: u64,
        pick: prop::sample::Index,
        at: prop::sample::Index,
        byte: u8,
    ) {
        let text = journal(seed, 2, 1);
        let starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let lines = starts.len() - 1;
        let k = 1 + pick.index(lines - 1);
        let line_len = starts[k + 1] - 1 - starts[k];
        let i = starts[k] + at.index(line_len);
        prop_assume!(byte != b'\n' && byte != text.as_bytes()[i]);
        let mut damaged = text.clone().into_bytes();
        damaged[i] = byte;
        let damaged = serde_json::to_value(
            Replay::from_reader(damaged.as_slice()).expect("a journal").report(),
        )
        .unwrap();
        let without = replay(&without_line(&text, k));
        prop_assert!(has_error_on(&damaged, k + 1), "line {} refused: {}", k + 1, damaged["errors"]);
        prop_assert_eq!(what_the_lane_did(&damaged), what_the_lane_did(&without));
    }

    /// Format 1 has no seals, but a time far ahead of its neighbours, or
    /// behind the line before, is still refused alone.
    #[test]
    fn a_time_far_off_in_a_format_1_journal_loses_only_its_line(
        seed: u64,
        pick: prop::sample::Index,
        ahead: bool,
    ) {
        let text = unsealed(&journal(seed, 2, 1));
        let lines: Vec<&str> = text.lines().collect();
        let t = |l: &str| serde_json::from_str::<Value>(l).unwrap()["t"].as_u64().unwrap();
        // An event line with a line after it (and, to go behind, a later
        // time than the first event's).
        let k = 2 + pick.index(lines.len() - 3);
        prop_assume!(ahead || t(lines[k - 1]) > t(lines[1]));
        let changed = if ahead { t(lines[k]) + 1_000_000_000 } else { t(lines[1]).saturating_sub(1) };
        let rest = lines[k].split_once(',').unwrap().1;
        let damaged: String = lines
            .iter()
            .enumerate()
            .map(|(i, l)| if i == k { format!("{{\"t\":{changed},{rest}\n") } else { format!("{l}\n") })
            .collect();
        let damaged = replay(&damaged);
        let without = replay(&without_line(&text, k));
        prop_assert!(has_error_on(&damaged, k + 1), "line {} refused: {}", k + 1, damaged["errors"]);
        prop_assert_eq!(what_the_lane_did(&damaged), what_the_lane_did(&without));
    }
}

#[test]
fn a_repeated_line_in_a_format_2_journal_is_refused() {
    let text = journal(7, 1, 1);
    let lines: Vec<&str> = text.lines().collect();
    let mut doubled: String = lines[..=5].iter().map(|l| format!("{l}\n")).collect();
    doubled.push_str(&format!("{}\n", lines[5]));
    let r = replay(&doubled);
    assert!(has_error_on(&r, 7), "{}", r["errors"]);
    assert!(
        r["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("repeated line"),
        "{}",
        r["errors"]
    );
    assert_eq!(
        what_the_lane_did(&r),
        what_the_lane_did(&replay(
            &lines[..=5]
                .iter()
                .map(|l| format!("{l}\n"))
                .collect::<String>()
        ))
    );
}

#[test]
fn a_journal_at_the_end_of_time_replays_without_panicking() {
    let max = u64::MAX;
    let text = format!(
        "{{\"journal\":\"lanecall\",\"version\":1}}\n\
         {{\"t\":0,\"ev\":\"lineup\",\"bowlers\":[{{\"name\":\"A\",\"class\":\"B3\"}}]}}\n\
         {{\"t\":1,\"ev\":\"start_block\",\"games\":1}}\n\
         {{\"t\":{},\"ev\":\"foul_beam\",\"state\":\"broken\"}}\n\
         {{\"t\":{},\"ev\":\"foul_beam\",\"state\":\"clear\"}}\n\
         {{\"t\":{},\"ev\":\"ball\"}}\n\
         {{\"t\":{max},\"ev\":\"serial\",\"line\":\"$PS,PINS,3,0000000000*18\"}}\n",
        max - 5,
        max - 4,
        max - 1
    );
    let r = Replay::from_reader(text.as_bytes()).expect("a journal");
    let out = serde_json::to_value(r.report()).unwrap();
    assert_eq!(out["bowlers"][0]["games"][0]["frames"][0]["marks"], "X");
}

/// The pinsetter's well-formed lines among `events`, as (index, line).
fn pinsetter_lines_of(events: &[Stamped<Event>]) -> Vec<(usize, String)> {
    events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match &e.event {
            Event::Sensor(Sensor::Serial { line }) if parse_line(line).is_ok() => {
                Some((i, line.clone()))
            }
            _ => None,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A pinsetter may resend any of its recent lines at any moment (after
    /// noise, a lost link, or twice over): the sheet, the callouts and
    /// everything else the lane did stay as they were.
    #[test]
    fn resending_recent_pinsetter_lines_anywhere_never_changes_the_sheet(
        seed: u64,
        resends in prop::collection::vec(
            (any::<prop::sample::Index>(), 0..WINDOW, 1usize..3),
            1..24,
        ),
    ) {
        let mut scenario = Scenario::demo(seed);
        scenario.bowlers.truncate(2);
        scenario.games = 1;
        scenario.foul_chance = 0.15;
        scenario.noise_chance = 0.1;
        let header = scenario.header();
        let events: Vec<Stamped<Event>> = scenario.run().collect();
        let lines = pinsetter_lines_of(&events);
        // After event `i`: `n` lines from `back` lines before the latest
        // one on, in their order (the line before last, the last two...).
        let mut after: Vec<Vec<String>> = vec![Vec::new(); events.len()];
        for (at, back, n) in resends {
            let i = at.index(events.len());
            let sent = lines.iter().take_while(|(k, _)| *k <= i).count();
            if sent == 0 {
                continue;
            }
            let back = usize::from(back).min(sent - 1);
            let first = sent - 1 - back;
            for (_, line) in lines[first..sent].iter().take(n) {
                after[i].push(line.clone());
            }
        }
        let mut resent = Vec::new();
        for (e, extra) in events.iter().zip(&after) {
            resent.push(e.clone());
            for line in extra {
                resent.push(Stamped {
                    t: e.t,
                    event: Event::Sensor(Sensor::Serial { line: line.clone() }),
                });
            }
        }
        let journal_of = |events: &[Stamped<Event>]| {
            let mut w = Writer::create(Vec::new(), &header).unwrap();
            for e in events {
                w.write(e).unwrap();
            }
            String::from_utf8(w.into_inner()).unwrap()
        };
        let plain = replay(&journal_of(&events));
        let with_resends = replay(&journal_of(&resent));
        let count = |r: &Value| r["errors"].as_array().unwrap().len();
        prop_assert_eq!(count(&plain), count(&with_resends), "{}", with_resends["errors"]);
        prop_assert_eq!(what_the_lane_did_but_events(&plain), what_the_lane_did_but_events(&with_resends));
    }
}

/// [`what_the_lane_did`] without the event counts, which count the resent
/// lines too.
fn what_the_lane_did_but_events(report: &Value) -> Value {
    let part = |k: &str| report[k].clone();
    serde_json::json!([
        part("bowlers"),
        part("practice"),
        part("conduct"),
        part("callouts"),
        part("outputs"),
    ])
}

// ----- one rule for names; reports flagged, never re-scored -----------------

/// Text as people type it, and as an attacker would: letters of two
/// scripts, spaces, a colon and `centre`, control characters, the
/// bidirectional overrides and isolates, zero-width characters; short
/// and long.
fn typed() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a",
        "Я",
        "é",
        " ",
        ":",
        "centre",
        "-",
        "'",
        "\u{1b}",
        "\n",
        "\t",
        "\u{7f}",
        "\u{202E}",
        "\u{2066}",
        "\u{200B}",
        "\u{FEFF}",
        "\u{AD}",
        "\u{E0041}",
        "漢",
    ]);
    prop::collection::vec(pieces, 0..80).prop_map(|v| v.concat())
}

fn lineup_of(name: &str, handicap: i32) -> Event {
    use lanecall::lane::{Action, Bowler, Class, Panel};
    Event::Panel(Panel::new(
        None,
        Action::lineup(vec![Bowler {
            name: name.to_owned(),
            class: Class::B3,
            handicap,
            team: None,
            voice: Default::default(),
        }]),
    ))
}

fn refused(lane: &mut lanecall::lane::Lane, t: u64, event: &Event) -> bool {
    let mut out = Vec::new();
    lane.handle(t, event, &mut out);
    out.iter()
        .any(|e| matches!(e, lanecall::lane::Effect::Refused(_)))
}

proptest! {
    /// The lane's lineup, the judges' logins and the centre's entries
    /// take and refuse the same names: the core's one rule.
    #[test]
    fn one_rule_for_names_on_the_lane_at_login_and_at_the_centre(name in typed(), handicap in -5i32..400) {
        use lanecall::lane::{Lane, Rules};
        let rule = lanecall_core::names::check_name(&name);
        prop_assert_eq!(lanecall::ports::valid_name(&name), rule.map_err(|e| e.to_string()));
        let entry = lanecall::centre::entries::text_problems(&name, "Kazan", None);
        prop_assert_eq!(entry.iter().any(|(f, _)| *f == "name"), rule.is_err());
        let mut lane = Lane::new(1, Rules::default());
        let taken = !refused(&mut lane, 0, &lineup_of(&name, handicap));
        prop_assert_eq!(taken, rule.is_ok() && (0..=300).contains(&handicap));
        // A journal from before the rule: only an empty name was refused.
        let before = Rules { checked_inputs: false, ..Rules::default() };
        let mut lane = Lane::new(1, before);
        let taken = !refused(&mut lane, 0, &lineup_of(&name, handicap));
        prop_assert_eq!(taken, !name.trim().is_empty());
    }

    /// A second ball's report is flagged exactly when it names a pin
    /// standing that the deck set had down, and the flag never changes
    /// the score: the lane counts it as a journal from before the rule
    /// does.
    #[test]
    fn a_report_is_flagged_when_it_stands_a_fallen_pin_and_scored_as_before(
        first in 1u16..1023, second in 0u16..1024,
    ) {
        use lanecall::lane::{ConductKind, Lane, Rules};
        use lanecall::pinsetter::{Body, Message, format_line};
        let leave = PinSet::from_bits(first).unwrap();
        let report = PinSet::from_bits(second).unwrap();
        let play = |rules: Rules| {
            let mut lane = Lane::new(1, rules);
            let mut out = Vec::new();
            lane.handle(0, &lineup_of("Anna", 0), &mut out);
            let start = lanecall::lane::Action::StartBlock { games: 1 };
            lane.handle(0, &Event::Panel(lanecall::lane::Panel::new(None, start)), &mut out);
            let lines = [
                (1_000, Body::Ready(PinSet::FULL)),
                (6_000, Body::Pins(leave)),
                (10_000, Body::Ready(leave)),
                (15_000, Body::Pins(report)),
            ];
            for (seq, (t, body)) in lines.into_iter().enumerate() {
                let line = format_line(&Message { seq: seq as u8, body });
                lane.handle(t, &Event::Sensor(Sensor::Serial { line }), &mut out);
            }
            let flagged = lane
                .conduct()
                .iter()
                .any(|c| matches!(c.kind, ConductKind::PinsStoodUp { .. }));
            (flagged, lane.practice().len(), lane.entries().first().map(|e| e.games.clone()))
        };
        let (flagged, practice, games) = play(Rules::default());
        let (was_flagged, was_practice, was_games) =
            play(Rules { checked_inputs: false, ..Rules::default() });
        prop_assert_eq!(flagged, !report.without(leave).is_empty());
        prop_assert!(!was_flagged);
        prop_assert_eq!(practice, 0);
        prop_assert_eq!((practice, games), (was_practice, was_games));
    }
}

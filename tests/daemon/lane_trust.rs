//! Only the lane itself writes its results: the pin pad takes only pins
//! that stood, once each; a judge withdraws only their own action, within
//! the undo window, and the chief judge any; a judge's name cannot pass for
//! the centre's or hide characters. Each rule holds in replay as it does
//! live, since it is the core's.

use lanecall::journal::{event_line, parse_event};
use lanecall::lane::{
    Action, Bowler, Class, Effect, Event, Lane, Panel, PinSet, Refusal, Rules, Stamped, Voice,
    Withdrawable,
};
use lanecall::ports::valid_name;
use lanecall::replay::Replay;

fn bowler(name: &str) -> Bowler {
    Bowler {
        name: name.into(),
        class: Class::B3,
        handicap: 0,
        team: None,
        voice: Voice::default(),
    }
}

/// A lane with Anna and Boris up in a one-game block, no pinsetter.
fn lane() -> Lane {
    let mut lane = Lane::new(7, Rules::default());
    let bowlers = vec![bowler("Anna"), bowler("Boris")];
    for action in [Action::lineup(bowlers), Action::StartBlock { games: 1 }] {
        assert_eq!(act(&mut lane, 0, "Orlova", false, action), None);
    }
    lane
}

/// The lane's refusal of `action` by `by` at `t`, if it refused it.
fn act(lane: &mut Lane, t: u64, by: &str, chief: bool, action: Action) -> Option<Refusal> {
    let panel = Panel {
        chief,
        ..Panel::new(Some(by.into()), action)
    };
    let mut out = Vec::new();
    lane.handle(t, &Event::Panel(panel), &mut out);
    out.into_iter().find_map(|e| match e {
        Effect::Refused(r) => Some(r),
        _ => None,
    })
}

/// The pins as the pin pad sends them, read as a journal line is.
fn pad(list: &str) -> Action {
    let line = format!(r#"{{"t":1,"ev":"manual_pins","standing":{list}}}"#);
    match parse_event(&line).unwrap().event {
        Event::Panel(p) => p.action,
        other => panic!("{other:?}"),
    }
}

// ----- the pin pad ------------------------------------------------------------

#[test]
fn the_pin_pad_refuses_a_pin_twice_and_pins_that_were_down() {
    let mut l = lane();
    let twice = act(&mut l, 10_000, "Orlova", false, pad("[7,7]")).expect("refused");
    assert_eq!(
        twice.to_string(),
        "manual pins: pin 7 twice: enter each standing pin once"
    );
    assert!(l.entries()[0].games.is_empty(), "no ball recorded");

    // A 7-10 leave, then 1, 2, 3 "standing" would make the miss a spare.
    assert_eq!(act(&mut l, 11_000, "Orlova", false, pad("[7,10]")), None);
    let down = act(&mut l, 20_000, "Orlova", false, pad("[1,2,3]")).expect("refused");
    assert_eq!(
        down.to_string(),
        "manual pins: pins 1, 2, 3 were not standing: the deck was 7, 10"
    );
    let one = act(&mut l, 20_000, "Orlova", false, pad("[1,10]")).expect("refused");
    assert_eq!(
        one.to_string(),
        "manual pins: pin 1 was not standing: the deck was 7, 10"
    );
    assert_eq!(l.entries()[0].games[0].len(), 1, "still one ball");
    // What stood may stand.
    assert_eq!(act(&mut l, 21_000, "Orlova", false, pad("[10]")), None);
    assert_eq!(l.entries()[0].games[0].len(), 2);
}

/// A journal that holds such entries (written before the rule, or by
/// hand) replays with them refused, each with its reason, and the
/// entry written back to the journal keeps the pin entered twice.
#[test]
fn a_journal_with_a_bad_pin_entry_replays_it_refused() {
    let line = r#"{"t":10000,"ev":"manual_pins","standing":[7,7],"by":"Orlova"}"#;
    let stamped = parse_event(line).unwrap();
    let written = event_line(&stamped);
    assert!(written.contains(r#""standing":[7,7]"#), "{written}");
    assert_eq!(
        parse_event(&written),
        Ok(stamped),
        "written back as entered"
    );
    let journal = [
        r#"{"journal":"lanecall","version":1,"lane":7}"#,
        r#"{"t":0,"ev":"lineup","bowlers":[{"name":"Anna","class":"B3"}],"by":"Orlova"}"#,
        r#"{"t":0,"ev":"start_block","games":1,"by":"Orlova"}"#,
        line,
        r#"{"t":11000,"ev":"manual_pins","standing":[7,10],"by":"Orlova"}"#,
        r#"{"t":20000,"ev":"manual_pins","standing":[1,2,3],"by":"Orlova"}"#,
        r#"{"t":21000,"ev":"manual_pins","standing":[],"by":"Orlova"}"#,
    ]
    .map(|l| format!("{l}\n"))
    .concat();
    let replay = Replay::from_reader(journal.as_bytes()).unwrap();
    let errors: Vec<(u64, &str)> = replay
        .errors()
        .iter()
        .map(|i| (i.line, i.message.as_str()))
        .collect();
    assert_eq!(
        errors,
        [
            (4, "manual pins: pin 7 twice: enter each standing pin once"),
            (
                6,
                "manual pins: pins 1, 2, 3 were not standing: the deck was 7, 10"
            ),
        ]
    );
    let balls: Vec<PinSet> = replay.lane().entries()[0].games[0]
        .iter()
        .map(|b| b.standing)
        .collect();
    assert_eq!(balls.len(), 2, "the 7-10 and the spare: {balls:?}");
}

// ----- withdraw ---------------------------------------------------------------

fn withdraw_penalty(at: u64) -> Action {
    Action::Withdraw {
        of: Withdrawable::Penalty,
        at,
        bowler: Some("Anna".into()),
    }
}

fn penalty() -> Action {
    Action::Penalty {
        bowler: "Anna".into(),
        reason: "slow bowling".into(),
    }
}

fn withdrawn(lane: &Lane) -> bool {
    matches!(
        lane.conduct().last().unwrap().kind,
        lanecall::lane::ConductKind::Penalty {
            withdrawn: true,
            ..
        }
    )
}

#[test]
fn another_judge_cannot_withdraw_a_penalty_and_its_judge_only_within_the_undo_window() {
    let mut l = lane();
    assert_eq!(act(&mut l, 5_000, "Orlova", false, penalty()), None);
    let other = act(&mut l, 6_000, "Petrova", false, withdraw_penalty(5_000)).expect("refused");
    assert_eq!(
        other,
        Refusal::NotYourAction {
            what: "penalty",
            at: 5_000,
            made_by: Some("Orlova".into()),
        }
    );
    assert!(other.to_string().contains("made by Orlova"), "{other}");
    // The judge who gave it, past the 10 s of the panel's Undo.
    let late = act(&mut l, 15_001, "Orlova", false, withdraw_penalty(5_000)).expect("refused");
    assert_eq!(
        late,
        Refusal::UndoWindowOver {
            what: "penalty",
            at: 5_000
        }
    );
    assert!(!withdrawn(&l));
    // The chief judge, at any time.
    assert_eq!(
        act(&mut l, 60_000, "Ivanova", true, withdraw_penalty(5_000)),
        None
    );
    assert!(withdrawn(&l));

    // Within the window, its own judge.
    assert_eq!(act(&mut l, 70_000, "Orlova", false, penalty()), None);
    assert_eq!(
        act(&mut l, 80_000, "Orlova", false, withdraw_penalty(70_000)),
        None
    );
    assert!(withdrawn(&l));
}

#[test]
fn pins_entered_by_one_judge_are_not_withdrawn_by_another() {
    let mut l = lane();
    assert_eq!(act(&mut l, 10_000, "Orlova", false, pad("[7,10]")), None);
    let undo = Action::Withdraw {
        of: Withdrawable::ManualPins,
        at: 10_000,
        bowler: None,
    };
    let r = act(&mut l, 12_000, "Petrova", false, undo.clone()).expect("refused");
    assert!(matches!(r, Refusal::NotYourAction { .. }), "{r}");
    assert_eq!(l.entries()[0].games[0].len(), 1);
    assert_eq!(act(&mut l, 12_000, "Orlova", false, undo), None);
    assert!(l.entries()[0].games.is_empty(), "the ball is off the sheet");
}

/// The chief judge's mark and a command's id are journaled with the action
/// and read back; a line without them reads as before.
#[test]
fn chief_and_cmd_are_journaled_and_read_back() {
    let stamped = Stamped {
        t: 60_000,
        event: Event::Panel(Panel {
            by: Some("Ivanova".into()),
            chief: true,
            cmd: Some("c-41".into()),
            action: withdraw_penalty(5_000),
        }),
    };
    let line = event_line(&stamped);
    assert!(
        line.contains(r#""chief":true"#) && line.contains(r#""cmd":"c-41""#),
        "{line}"
    );
    assert_eq!(parse_event(&line), Ok(stamped));
    let old = parse_event(r#"{"t":1,"ev":"end_block","by":"Orlova"}"#).unwrap();
    assert_eq!(
        old.event,
        Event::Panel(Panel::new(Some("Orlova".into()), Action::EndBlock))
    );
}

// ----- judges' names ----------------------------------------------------------

#[test]
fn a_judge_name_cannot_pass_for_the_centre_or_hide_characters() {
    for name in [
        "centre: Ivanova",
        "Centre:Ivanova",
        "CENTRE  : x",
        " centre :",
    ] {
        let e = valid_name(name).unwrap_err();
        assert!(e.contains("\"centre:\""), "{name:?}: {e}");
    }
    for c in [
        '\u{61C}',
        '\u{200E}',
        '\u{200F}',
        '\u{202A}',
        '\u{202E}',
        '\u{2066}',
        '\u{2069}',
        '\u{200B}',
        '\u{FEFF}',
        '\u{AD}',
        '\u{E0041}',
    ] {
        let name = format!("Orl{c}ova");
        let e = valid_name(&name).unwrap_err();
        assert!(
            e.contains(&format!("U+{:04X}", u32::from(c))),
            "{name:?}: {e}"
        );
    }
    assert!(valid_name("Orl\u{7}ova").unwrap_err().contains("control"));
    for ok in [
        "Orlova",
        "Judge Ivanova",
        "Иванова",
        "D'Arcy: centre",
        "centrefield",
    ] {
        assert_eq!(valid_name(ok), Ok(()), "{ok:?}");
    }
}

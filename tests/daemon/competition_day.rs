//! The competition day from the journal alone: a `date` event (journal.md)
//! takes over from the header's `started_at`, so a lane whose clock
//! restarted on yesterday's date does not carry yesterday's blindfold
//! checks and block numbers into today, and replay, recovery and the
//! centre's mirror all find the same day.

use lanecall::replay::Replay;
use serde_json::Value;

/// A header written by a lane whose clock still said yesterday: it carries
/// yesterday's first block and Anna's blindfold check, as a journal of the
/// same day would.
const YESTERDAYS_HEADER: &str = r#"{"journal":"lanecall","version":1,"lane":7,"started_at":"2026-11-29T21:40:00Z","day":{"blocks":1,"blindfolds":[{"bowler":"Anna Kuznetsova","t":250000,"by":"Judge Orlova"}]}}"#;

const LINEUP: &str = r#"{"t":401000,"ev":"lineup","bowlers":[{"name":"Anna Kuznetsova","class":"B1"},{"name":"Ivan Petrov","class":"B3"}],"by":"Judge Orlova"}"#;
const START: &str = r#"{"t":403000,"ev":"start_block","games":1,"by":"Judge Orlova"}"#;

fn replay(lines: &[&str]) -> Value {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let replay = Replay::from_reader(text.as_bytes()).expect("a journal");
    serde_json::to_value(replay.report()).expect("serializes")
}

fn messages(report: &Value) -> Vec<String> {
    report["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| e["message"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn a_judge_giving_todays_date_ends_yesterdays_checks_and_block_numbers() {
    let report = replay(&[
        YESTERDAYS_HEADER,
        r#"{"t":400500,"ev":"date","date":"2026-11-30","from":"judge","by":"Judge Orlova"}"#,
        LINEUP,
        START,
        r#"{"t":404000,"ev":"blindfold_check","bowler":"Anna Kuznetsova","ok":true,"by":"Judge Orlova"}"#,
        r#"{"t":405000,"ev":"start_block","games":1,"by":"Judge Orlova"}"#,
    ]);
    assert_eq!(
        messages(&report),
        ["start_block refused: no blindfold check with ok for Anna Kuznetsova"],
        "yesterday's check held today"
    );
    assert_eq!(report["blocks"][0]["block"], 1, "the day's count went on");
    assert_eq!(report["bowlers"][0]["block"], 1);
    assert_eq!(
        report["day"],
        serde_json::json!({"date": "2026-11-30", "from": "judge", "by": "Judge Orlova", "t": 400500})
    );
}

#[test]
fn the_same_date_confirmed_keeps_the_day_as_the_header_carried_it() {
    let report = replay(&[
        YESTERDAYS_HEADER,
        r#"{"t":400500,"ev":"date","date":"2026-11-29","from":"centre"}"#,
        LINEUP,
        START,
    ]);
    assert_eq!(messages(&report), Vec::<String>::new());
    assert_eq!(report["blocks"][0]["block"], 2);
    assert_eq!(report["day"]["from"], "centre");
    assert_eq!(report["day"]["by"], Value::Null);
}

#[test]
fn a_journal_without_a_date_takes_its_headers_as_before() {
    let report = replay(&[YESTERDAYS_HEADER, LINEUP, START]);
    assert_eq!(messages(&report), Vec::<String>::new());
    assert_eq!(report["blocks"][0]["block"], 2);
    assert_eq!(
        report["day"],
        serde_json::json!({"date": "2026-11-29", "from": "header", "by": null, "t": null})
    );
}

#[test]
fn a_carried_day_keeps_the_date_it_was_given_whatever_the_header_clock_said() {
    // The day's second journal, started while the clock still said
    // yesterday: its `day` says which day it carries.
    let header = r#"{"journal":"lanecall","version":1,"lane":7,"started_at":"2026-11-29T21:55:00Z","day":{"date":"2026-11-30","blocks":1,"blindfolds":[{"bowler":"Anna Kuznetsova","t":250000,"by":"Judge Orlova"}]}}"#;
    let report = replay(&[
        header,
        r#"{"t":400500,"ev":"date","date":"2026-11-30","from":"judge","by":"Judge Orlova"}"#,
        LINEUP,
        START,
    ]);
    assert_eq!(messages(&report), Vec::<String>::new());
    assert_eq!(report["blocks"][0]["block"], 2, "today's count was lost");
    assert_eq!(report["day"]["date"], "2026-11-30");
}

#[test]
fn a_new_day_is_refused_while_a_block_is_open_and_after_a_block_in_the_same_journal() {
    let header =
        r#"{"journal":"lanecall","version":1,"lane":7,"started_at":"2026-11-29T21:40:00Z"}"#;
    let ivan = r#"{"t":1000,"ev":"lineup","bowlers":[{"name":"Ivan Petrov","class":"B3"}],"by":"Judge Orlova"}"#;
    let start = r#"{"t":2000,"ev":"start_block","games":1,"by":"Judge Orlova"}"#;
    let report = replay(&[
        header,
        ivan,
        start,
        r#"{"t":3000,"ev":"date","date":"2026-11-30","from":"judge","by":"Judge Orlova"}"#,
        r#"{"t":3500,"ev":"date","date":"2026-11-29","from":"judge","by":"Judge Orlova"}"#,
        r#"{"t":4000,"ev":"end_block","by":"Judge Orlova"}"#,
        r#"{"t":5000,"ev":"date","date":"2026-11-30","from":"judge","by":"Judge Orlova"}"#,
    ]);
    let errors = messages(&report);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].starts_with("block 1 is open: the date 2026-11-30"));
    assert!(errors[1].contains("a new day begins in a journal of its own"));
    assert_eq!(report["day"]["date"], "2026-11-29");
    assert_eq!(report["day"]["t"], 3500, "the same date confirms the day");
}

#[test]
fn a_date_that_is_not_one_is_a_bad_line_and_changes_nothing() {
    let report = replay(&[
        YESTERDAYS_HEADER,
        r#"{"t":400500,"ev":"date","date":"2026-11-31","from":"judge","by":"Judge Orlova"}"#,
        r#"{"t":400600,"ev":"date","date":"2026-11-30","from":"radio"}"#,
        LINEUP,
        START,
    ]);
    let errors = messages(&report);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].contains("not a date written YYYY-MM-DD"),
        "{errors:?}"
    );
    assert!(errors[1].contains("from \"radio\" is not one of judge, centre, clock"));
    assert_eq!(report["blocks"][0]["block"], 2);
}

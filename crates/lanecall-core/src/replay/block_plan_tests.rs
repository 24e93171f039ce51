//! A lineup that carries the centre's block (journal.md, `lineup`'s
//! `block` and `games`): read from a journal, the block starts only with
//! its games, is called by its id and is complete after them.

use serde_json::Value;

use super::{Replay, render_scores};

const HEADER: &str =
    r#"{"journal":"lanecall","version":1,"lane":3,"started_at":"2026-11-30T11:00:00Z"}"#;

/// Replays a journal of `lines` (events, one JSON object each) and gives
/// its report as JSON and the replay.
fn replay(lines: &[String]) -> (Value, Replay) {
    let text = std::iter::once(HEADER.to_owned())
        .chain(lines.iter().cloned())
        .map(|l| l + "\n")
        .collect::<String>();
    let r = Replay::from_reader(text.as_bytes()).expect("a journal");
    let v = serde_json::to_value(r.report()).expect("serializes");
    (v, r)
}

fn lineup(t: u64, extra: &str) -> String {
    format!(
        r#"{{"t":{t},"ev":"lineup","bowlers":[{{"name":"Egor Lapin","class":"B2"}}]{extra},"by":"centre: Ivanova"}}"#
    )
}

fn start(t: u64, games: u32) -> String {
    format!(r#"{{"t":{t},"ev":"start_block","games":{games},"by":"Judge Orlova"}}"#)
}

/// A start by the chief judge (logged in with the shared PIN).
fn chief_start(t: u64, games: u32) -> String {
    format!(r#"{{"t":{t},"ev":"start_block","games":{games},"by":"Chief","chief":true}}"#)
}

/// `n` strikes entered by hand, one every 10 s from `t`.
fn strikes(t: u64, n: u64) -> Vec<String> {
    (0..n)
        .map(|i| {
            format!(
                r#"{{"t":{},"ev":"manual_pins","standing":[]}}"#,
                t + i * 10_000
            )
        })
        .collect()
}

fn errors(v: &Value) -> Vec<String> {
    v["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| e["message"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn a_lineup_with_the_centres_block_waits_under_its_id_and_games() {
    let (v, r) = replay(&[lineup(1_000, r#","block":"RR-B1","games":1"#)]);
    assert_eq!(errors(&v), Vec::<String>::new());
    assert_eq!(
        v["next_block"],
        serde_json::json!({"block": 1, "name": "RR-B1", "games": 1})
    );
    assert_eq!(r.lane().pending_plan().name.as_deref(), Some("RR-B1"));
    let sheet = render_scores(&r);
    assert!(
        sheet.contains("Lineup for block 1 RR-B1 (not started, 1 game)"),
        "{sheet}"
    );
}

#[test]
fn a_start_with_other_games_than_the_centres_block_is_refused() {
    let (v, r) = replay(&[
        lineup(1_000, r#","block":"RR-B1","games":1"#),
        start(2_000, 3),
    ]);
    assert_eq!(
        errors(&v),
        [
            "block RR-B1 has 1 game(s) in the centre's programme: start it with 1, not 3 \
          (other games only by the chief judge, or the centre pushes the block again)"
        ]
    );
    assert!(r.lane().open_block().is_none());
    // Started with its games, the block takes the centre's id.
    let (v, _) = replay(&[
        lineup(1_000, r#","block":"RR-B1","games":1"#),
        start(2_000, 3),
        start(3_000, 1),
    ]);
    assert_eq!(errors(&v).len(), 1);
    assert_eq!(v["blocks"][0]["name"], "RR-B1");
    assert_eq!(v["blocks"][0]["games"], 1);
    assert_eq!(v["blocks"][0]["complete"], false);
    assert!(v.get("next_block").is_none());
}

#[test]
fn games_alone_hold_the_start_and_only_the_chief_judge_starts_other_games() {
    let (v, _) = replay(&[lineup(1_000, r#","games":2"#), start(2_000, 3)]);
    assert_eq!(
        errors(&v),
        [
            "the block has 2 game(s) in the centre's programme: start it with 2, not 3 \
          (other games only by the chief judge, or the centre pushes the block again)"
        ]
    );
    // The chief judge decides otherwise: the block keeps the centre's id.
    let (v, _) = replay(&[
        lineup(1_000, r#","block":"RR-B1","games":2"#),
        chief_start(2_000, 3),
    ]);
    assert_eq!(errors(&v), Vec::<String>::new());
    assert_eq!(v["blocks"][0]["games"], 3);
    assert_eq!(v["blocks"][0]["name"], "RR-B1");
    // A lineup entered again without the centre's block: any games.
    let (v, _) = replay(&[
        lineup(1_000, r#","block":"RR-B1","games":2"#),
        lineup(1_500, ""),
        start(2_000, 3),
    ]);
    assert_eq!(errors(&v), Vec::<String>::new());
    assert_eq!(v["blocks"][0]["games"], 3);
    assert!(v["blocks"][0].get("name").is_none());
    assert!(v["blocks"][0].get("complete").is_none());
}

#[test]
fn the_block_is_complete_after_its_games_and_a_further_ball_counts_nowhere() {
    let mut lines = vec![
        lineup(1_000, r#","block":"SL-B1-M1","games":1"#),
        start(2_000, 1),
    ];
    lines.extend(strikes(10_000, 12));
    let (v, r) = replay(&lines);
    assert_eq!(errors(&v), Vec::<String>::new());
    assert_eq!(v["bowlers"][0]["games"][0]["total"], 300);
    assert_eq!(v["blocks"][0]["complete"], true);
    assert_eq!(r.lane().up(), None);
    let sheet = render_scores(&r);
    assert!(sheet.contains("Block 1 SL-B1-M1 (1 game)"), "{sheet}");
    // A second game's ball: not scored, listed after the block.
    lines.extend(strikes(200_000, 1));
    let (v, _) = replay(&lines);
    assert_eq!(v["bowlers"][0]["games"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["after_block"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["after_block"][0]["block"], 1);
}

#[test]
fn a_bad_block_id_or_games_refuse_the_lineup() {
    for (extra, message) in [
        (
            r#","block":"RR\u202eB1","games":1"#,
            "the lineup's block \"RR\\u{202e}B1\": the name holds an invisible formatting character (U+202E)",
        ),
        (r#","block":"","games":1"#, "the lineup's block \"\": "),
        (
            r#","block":"RR-B1","games":0"#,
            "the lineup's block has 1 to 12 games, not 0",
        ),
        (
            r#","block":"RR-B1","games":13"#,
            "the lineup's block has 1 to 12 games, not 13",
        ),
    ] {
        let (v, r) = replay(&[lineup(1_000, extra)]);
        let errors = errors(&v);
        assert!(
            errors.len() == 1 && errors[0].starts_with(message),
            "{extra}: {errors:?}"
        );
        assert!(r.lane().pending_lineup().is_none(), "{extra}");
    }
}

#[test]
fn a_lineup_without_the_centres_block_reports_as_it_always_did() {
    let (v, _) = replay(&[lineup(1_000, ""), start(2_000, 3)]);
    assert_eq!(errors(&v), Vec::<String>::new());
    let block = v["blocks"][0].as_object().expect("a block");
    let keys: Vec<&str> = block.keys().map(String::as_str).collect();
    assert_eq!(keys, ["block", "ended", "games", "started_at"]);
    let (v, _) = replay(&[lineup(1_000, "")]);
    assert!(v.get("next_block").is_none());
}

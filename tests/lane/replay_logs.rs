//! Sensor journals under `tests/logs/` and the score sheets they must give.
//!
//! Each `NAME.jsonl` is replayed as `lanecall replay NAME.jsonl --json` does
//! and its output must match `NAME.expect.json`: an object matches when every
//! key of the pattern matches (more keys in the output are fine), an array
//! must have the same length and match element by element, and a scalar
//! must be equal.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use lanecall::replay::Replay;
use serde_json::Value;

fn logs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/logs")
}

/// Replays a journal and returns `lanecall replay --json`'s object.
pub fn replay_json(path: &Path) -> Value {
    let file = File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let replay = Replay::from_reader(BufReader::new(file)).expect("a journal");
    serde_json::to_value(replay.report()).expect("serializes")
}

/// Where `actual` departs from `pattern`, as `path: what`.
fn mismatches(pattern: &Value, actual: &Value, path: &str, out: &mut Vec<String>) {
    match (pattern, actual) {
        (Value::Object(p), Value::Object(a)) => {
            for (k, pv) in p {
                match a.get(k) {
                    Some(av) => mismatches(pv, av, &format!("{path}.{k}"), out),
                    None => out.push(format!("{path}.{k}: missing in the output")),
                }
            }
        }
        (Value::Array(p), Value::Array(a)) => {
            if p.len() != a.len() {
                out.push(format!(
                    "{path}: {} elements expected, {} found: {}",
                    p.len(),
                    a.len(),
                    actual
                ));
            }
            for (i, (pv, av)) in p.iter().zip(a).enumerate() {
                mismatches(pv, av, &format!("{path}[{i}]"), out);
            }
        }
        (Value::Number(p), Value::Number(a)) if p.as_f64() == a.as_f64() => {}
        (p, a) if p == a => {}
        (p, a) => out.push(format!("{path}: expected {p}, found {a}")),
    }
}

fn check(name: &str) {
    let journal = logs().join(format!("{name}.jsonl"));
    let expect = logs().join(format!("{name}.expect.json"));
    let pattern: Value = serde_json::from_reader(File::open(&expect).expect("expectation"))
        .unwrap_or_else(|e| panic!("{}: {e}", expect.display()));
    let actual = replay_json(&journal);
    let mut out = Vec::new();
    mismatches(&pattern, &actual, "", &mut out);
    assert!(
        out.is_empty(),
        "{name}: the replay departs from {}:\n{}",
        expect.display(),
        out.join("\n")
    );
}

macro_rules! logs {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { check(stringify!($name)); })*

        #[test]
        fn every_log_has_a_test() {
            let known = [$(stringify!($name)),*];
            for entry in std::fs::read_dir(logs()).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "jsonl") {
                    let stem = path.file_stem().unwrap().to_str().unwrap();
                    assert!(known.contains(&stem), "tests/logs/{stem}.jsonl has no test");
                }
            }
        }
    };
}

logs!(
    perfect_game,
    all_spares,
    world_bowling_sample,
    four_bowlers,
    tenth_frame,
    fouls,
    orientation,
    foot_over_line,
    slow_bowling_hold,
    neighbour_busy,
    noisy_serial,
    torn_journal,
    blindfold_gate,
    correction,
    substitute,
    splits,
    game_cut_off,
    practice,
    bad_actions,
    slow_bowling_limit,
    blindfold_release,
    after_block,
    block_numbers,
    speaker_extras,
    wrong_deck,
    dead_ball,
    late_foul,
    string_pinsetter,
    pins_stood_up,
);

/// `pins_stood_up.jsonl` under the header lanecall wrote before the rule
/// `checked_inputs`: every input is taken as it came then. The name with
/// the right-to-left override and the handicap of 100,000 are set as the
/// lane order (and replaced), the correction naming the 1 is clamped to
/// the 10 and the pin report is scored without a word, to the same 28.
#[test]
fn a_journal_from_before_checked_inputs_replays_as_it_did() {
    let text = std::fs::read_to_string(logs().join("pins_stood_up.jsonl")).unwrap();
    let old = text.replacen(",\"checked_inputs\":true", "", 1);
    assert_ne!(old, text);
    let path =
        std::env::temp_dir().join(format!("lanecall-unchecked-{}.jsonl", std::process::id()));
    std::fs::write(&path, old).unwrap();
    let out = replay_json(&path);
    let _ = std::fs::remove_file(&path);
    assert_eq!(out["errors"], serde_json::json!([]));
    assert_eq!(out["warnings"], serde_json::json!([]));
    assert_eq!(out["conduct"], serde_json::json!([]));
    let game = &out["bowlers"][0]["games"][0];
    assert_eq!(game["total"], 28);
    assert_eq!(game["frames"][0]["marks"], "81");
}

/// Only `pins_stood_up` is written under `checked_inputs`: the others
/// pin, as they always did, how journals from before it replay.
#[test]
fn the_older_logs_are_from_before_checked_inputs() {
    for entry in std::fs::read_dir(logs()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            let text = std::fs::read_to_string(&path).unwrap();
            let header = text.lines().next().unwrap_or_default();
            let checked = header.contains("\"checked_inputs\":true");
            let name = path.file_stem().unwrap().to_string_lossy();
            assert_eq!(checked, name == "pins_stood_up", "{name}");
        }
    }
}

#[test]
fn a_refused_start_block_names_the_unchecked_bowler() {
    let out = replay_json(&logs().join("blindfold_gate.jsonl"));
    let message = out["errors"][0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("Olga Smirnova"), "{message}");
    assert!(message.contains("blindfold"), "{message}");
}

#[test]
fn strict_counts_every_bad_line_though_only_200_are_listed() {
    use lanecall::journal::{Header, Writer};
    use lanecall::lane::{Event, Rules, Sensor, Stamped};
    let header = Header::new(2, None, Rules::default());
    let mut w = Writer::create(Vec::new(), &header).unwrap();
    for t in 0..300 {
        let line = "line hum".into();
        w.write(&Stamped {
            t,
            event: Event::Sensor(Sensor::Serial { line }),
        })
        .unwrap();
    }
    let path = std::env::temp_dir().join(format!("lanecall-strict-{}.jsonl", std::process::id()));
    std::fs::write(&path, w.into_inner()).unwrap();
    let run = |path: &Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_lanecall"))
            .args(["replay", "--json", "--strict"])
            .arg(path)
            .output()
            .expect("lanecall replay runs")
    };
    let out = run(&path);
    let _ = std::fs::remove_file(&path);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["errors"].as_array().unwrap().len(), 200);
    assert_eq!(report["error_counts"]["serial"], 300);
    assert_eq!(report["errors_omitted"], 100);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("300 errors in all, 100 not listed"),
        "{stderr}"
    );
    assert_eq!(run(&logs().join("all_spares.jsonl")).status.code(), Some(0));
}

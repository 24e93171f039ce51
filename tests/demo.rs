//! The demo lane, headless: `lanecall demo` runs by itself for a while,
//! stops with exit 0, and the journal it leaves replays to the very lane it
//! printed.

use std::fs;
use std::process::Command;

use lanecall::replay::{Replay, render_sheet};

#[test]
fn the_demo_runs_headless_and_its_journal_replays_to_the_same_lane() {
    let dir = std::env::temp_dir().join(format!("lanecall-demo-test-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_lanecall"))
        .args([
            "demo",
            "--speed",
            "100",
            "--for",
            "6",
            "--listen",
            "127.0.0.1:0",
        ])
        .args(["--judge-pin", "135790", "--state-dir"])
        .arg(&dir)
        .env("RUST_LOG", "info")
        .output()
        .expect("lanecall demo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}\n{stdout}", out.status);
    assert!(
        stdout.contains("without GPIO, a pinsetter or a sound card"),
        "{stdout}"
    );
    assert!(stdout.contains("Panel:    http://127.0.0.1:"), "{stdout}");
    // Output to pipes, as here, or to files: no colour codes in it.
    assert!(stderr.contains("lane 7 is up"), "{stderr}");
    assert!(
        !stdout.contains('\x1b') && !stderr.contains('\x1b'),
        "{stdout}\n{stderr}"
    );
    // The garbled serial line the simulator sends on purpose is explained.
    assert!(
        stdout.contains("sends a garbled line on purpose")
            && stdout.contains("refused: serial line"),
        "{stdout}"
    );
    // Listening on this machine only: how to reach it from a tablet.
    assert!(stdout.contains("--listen 0.0.0.0:"), "{stdout}");

    let journal = stdout
        .lines()
        .find_map(|l| l.strip_prefix("Journal:"))
        .map(str::trim)
        .expect("the demo says where its journal is");
    // "Stopped at lane time 0:09:50 (590906 ms)."
    let (clock, stopped) = stdout
        .lines()
        .find_map(|l| l.strip_prefix("Stopped at lane time "))
        .and_then(|l| l.strip_suffix(" ms)."))
        .and_then(|l| l.split_once(" ("))
        .map(|(clock, ms)| (clock.to_owned(), ms.parse::<u64>().unwrap()))
        .expect("the demo says when it stopped");
    let s = stopped / 1000;
    assert_eq!(
        clock,
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    );
    let sheet_start = stdout.find("Lane 7").expect("a score sheet");
    let sheet_end = stdout.find("Stopped at lane time").unwrap();
    let printed = &stdout[sheet_start..sheet_end];

    let mut replay = Replay::from_reader(fs::read(journal).unwrap().as_slice()).unwrap();
    replay.tick(stopped);
    assert_eq!(render_sheet(&replay), printed);
    let balls: usize = replay
        .lane()
        .entries()
        .iter()
        .flat_map(|e| &e.games)
        .map(Vec::len)
        .sum();
    assert!(
        balls >= 5,
        "the demo bowled {balls} balls in 600 s of lane time"
    );
    assert!(
        replay
            .errors()
            .iter()
            .all(|e| e.message.starts_with("serial line"))
    );
    let _ = fs::remove_dir_all(&dir);
}

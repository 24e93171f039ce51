//! The demo lane, headless: `lanecall demo` runs by itself for a while,
//! stops with exit 0, and the journal it leaves replays to the very lane it
//! printed.

use std::fs;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use lanecall::replay::{Replay, render_sheet};

#[test]
fn the_demo_runs_headless_and_its_journal_replays_to_the_same_lane() {
    let dir = crate::support::Scratch::new("demo-test");
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
}

#[test]
fn the_demos_end_names_every_journal_and_prints_each_blocks_sheet() {
    let dir = crate::support::Scratch::new("demo-blocks");
    // 6,000 s of lane time: the first block (about 85 min) and the next.
    let out = Command::new(env!("CARGO_BIN_EXE_lanecall"))
        .args([
            "demo",
            "--speed",
            "1000",
            "--for",
            "6",
            "--listen",
            "127.0.0.1:0",
        ])
        .arg("--state-dir")
        .arg(&dir)
        .output()
        .expect("lanecall demo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "exit {:?}\n{stdout}", out.status);
    let mut journals: Vec<_> = fs::read_dir(dir.join("journal"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    journals.sort();
    assert!(journals.len() >= 2, "{journals:?}");
    // Each journal named, the earlier blocks' sheets as their journals
    // replay (the last block's is the lane's own, at the end).
    let end = &stdout;
    for (i, journal) in journals.iter().enumerate() {
        let named = format!("Journal:  {}", journal.display());
        assert!(end.contains(&named), "{named}\n{end}");
        if i + 1 < journals.len() {
            let replay = Replay::from_reader(fs::read(journal).unwrap().as_slice()).unwrap();
            assert!(
                end.contains(&format!("{named}\n{}", render_sheet(&replay))),
                "block {} of {}:\n{end}",
                i + 1,
                journals.len()
            );
        }
    }
}

/// Processes that spin on the CPU until dropped.
struct Hogs(Vec<Child>);

impl Hogs {
    fn start(n: usize) -> Hogs {
        Hogs(
            (0..n)
                .map(|_| {
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .spawn()
                        .expect("sh runs")
                })
                .collect(),
        )
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for hog in &mut self.0 {
            let _ = hog.kill();
            let _ = hog.wait();
        }
    }
}

/// A demo's journals, oldest first, as one text: every event line byte for
/// byte; the header, and a line that gives the wall-clock time (`wall`),
/// without the wall-clock time it was written at (and so without its
/// seal).
fn journals(dir: &Path) -> String {
    let mut files: Vec<_> = fs::read_dir(dir.join("journal"))
        .expect("the demo made its journal folder")
        .map(|e| e.unwrap().path())
        .collect();
    // lane7-<stamp>-<seq>.jsonl: by seq.
    files.sort_by_key(|p| p.to_string_lossy().rsplit('-').next().map(str::to_owned));
    let mut all = String::new();
    for file in files {
        let text = fs::read_to_string(&file).unwrap();
        let (header, events) = text.split_once('\n').expect("a header line");
        let mut header: serde_json::Value = serde_json::from_str(header).unwrap();
        let header = header.as_object_mut().unwrap();
        assert!(header.remove("started_at").is_some(), "{header:?}");
        header.remove("c");
        all += &format!("{}\n", serde_json::Value::Object(header.clone()));
        for line in events.lines() {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            let v = v.as_object_mut().unwrap();
            if v.remove("wall").is_some() {
                v.remove("c");
                all += &format!("{}\n", serde_json::Value::Object(v.clone()));
            } else {
                all += &format!("{line}\n");
            }
        }
    }
    all
}

/// Same seed, same journal: the demo's lane time follows its script, so a
/// machine too busy to play it on time (here two processes spin on the
/// CPU while three demos run) plays it late, never differently.
#[test]
fn the_same_seed_gives_the_same_journal_on_a_busy_machine() {
    let base = crate::support::Scratch::new("demo-same");
    let hogs = Hogs::start(2);
    let runs: Vec<_> = (0..3)
        .map(|k| {
            let dir = base.join(format!("run{k}"));
            let child = Command::new(env!("CARGO_BIN_EXE_lanecall"))
                .args(["demo", "--seed", "7", "--speed", "20", "--for", "25"])
                .args(["--listen", "127.0.0.1:0", "--state-dir"])
                .arg(&dir)
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("lanecall demo runs");
            (dir, child)
        })
        .collect();
    let runs: Vec<_> = runs
        .into_iter()
        .map(|(dir, child)| {
            let out = child.wait_with_output().unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(out.status.success(), "exit {:?}\n{stdout}", out.status);
            let stopped = stdout
                .lines()
                .find(|l| l.starts_with("Stopped at lane time"))
                .map(str::to_owned)
                .expect("the demo says when it stopped");
            (journals(&dir), stopped)
        })
        .collect();
    drop(hogs);

    let (first, stopped) = &runs[0];
    for (k, (journal, at)) in runs.iter().enumerate().skip(1) {
        if journal != first {
            let line = journal
                .lines()
                .zip(first.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            panic!(
                "run {k}'s journal differs from run 0's at line {}:\n{}\n{}",
                line + 1,
                journal.lines().nth(line).unwrap_or("(none)"),
                first.lines().nth(line).unwrap_or("(none)")
            );
        }
        assert_eq!(at, stopped, "run {k}");
    }
    let balls = first.matches(r#""ev":"ball""#).count();
    assert!(balls >= 6, "{balls} balls in 500 s of lane time:\n{first}");
    // 25 s at 20 times: 500 s of lane time, to the millisecond.
    assert_eq!(stopped, "Stopped at lane time 0:08:20 (500000 ms).");
}

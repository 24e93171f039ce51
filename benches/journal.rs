//! What the journal's durability costs: sealing a line (format 2's
//! checksum), replaying a sealed journal against the same one unsealed
//! (format 1), and one append made durable (`fdatasync`) on this disk.
//!
//! `cargo bench --bench journal` (`TMPDIR` picks the disk of the appends);
//! `cargo bench --bench journal -- append` runs only the parts named
//! (`seal`, `replay`, `append`), as on a machine where the rest would take
//! long (the system test's virtual machine, tests/system/README.md).

use std::time::{Duration, Instant};

use lanecall::journal::store::Store;
use lanecall::journal::{Header, Writer, seal, unseal};
use lanecall::lane::{Event, Sensor, Stamped};
use lanecall::replay::Replay;
use lanecall::sim::Scenario;

#[path = "../tests/support/mod.rs"]
mod support;
use support::unsealed;

fn pct(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// A simulated day as a format 2 journal: 12 games, 3 blocks.
fn journal() -> String {
    let scenario = Scenario {
        games: 12,
        blocks: 3,
        ..Scenario::demo(3)
    };
    let mut w = Writer::create(Vec::new(), &scenario.header()).expect("in memory");
    for e in scenario.run() {
        w.write(&e).expect("in memory");
    }
    String::from_utf8(w.into_inner()).expect("UTF-8")
}

/// Median events per second of `runs` replays of `text`.
fn replay_rate(text: &str, runs: usize) -> (f64, u64) {
    let mut rates = Vec::new();
    let mut events = 0;
    for _ in 0..runs {
        let start = Instant::now();
        let r = Replay::from_reader(text.as_bytes()).expect("a journal");
        let secs = start.elapsed().as_secs_f64();
        events = r.events();
        rates.push(events as f64 / secs);
    }
    rates.sort_by(f64::total_cmp);
    (rates[runs / 2], events)
}

fn main() {
    // cargo passes `--bench`; the rest names the parts to run.
    let parts: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let run = |part: &str| parts.is_empty() || parts.iter().any(|p| p == part);
    if run("seal") {
        seal_rate();
    }
    if run("replay") {
        replay_rates();
    }
    if run("append") {
        append_times();
    }
}

fn seal_rate() {
    let line = r#"{"t":5120,"ev":"serial","line":"$PS,PINS,17,0000001001*1A"}"#;
    let n = 1_000_000;
    let start = Instant::now();
    let mut check = 0;
    for i in 0..n {
        let sealed = seal(line, i);
        check += unseal(&sealed).unwrap_or(0) & 1;
    }
    let per_line = start.elapsed() / n as u32;
    println!("seal + unseal of a serial line: {per_line:?} ({check} odd)");
}

fn replay_rates() {
    let v2 = journal();
    let v1 = unsealed(&v2);
    let (rate2, events) = replay_rate(&v2, 9);
    let (rate1, _) = replay_rate(&v1, 9);
    println!(
        "replay in memory, {events} events ({} kB sealed, {} kB unsealed), median of 9:",
        v2.len() / 1024,
        v1.len() / 1024
    );
    println!("  format 2: {:.2} M events/s", rate2 / 1e6);
    println!("  format 1: {:.2} M events/s", rate1 / 1e6);
}

fn append_times() {
    let dir = std::env::temp_dir().join(format!("lanecall-bench-journal-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let store = Store::open(&dir, 1).expect("a journal folder");
    let mut file = store
        .create(&Header::new(1, None, Default::default()), 0)
        .expect("a journal");
    let mut times = Vec::new();
    for t in 0..500 {
        let e = Stamped {
            t,
            event: Event::Sensor(Sensor::Serial {
                line: "$PS,PINS,17,0000001001*1A".into(),
            }),
        };
        let start = Instant::now();
        file.append(&e).expect("an append");
        times.push(start.elapsed());
    }
    times.sort();
    println!(
        "append + fdatasync in {} (500 lines): p50 {:?}, p99 {:?}, max {:?}",
        dir.display(),
        pct(&times, 0.5),
        pct(&times, 0.99),
        times[times.len() - 1]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

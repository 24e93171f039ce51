//! A pinsetter line full of noise at full speed, through a pseudo-terminal
//! to the real `lanecall run`: the daemon's memory and `/api/lane` stay
//! small, every noise line is journaled or counted as shed, the lane's
//! clock and a judge's action still get through during the noise, a good
//! ball after it is scored, and SIGTERM in the middle of a flood stops the
//! daemon cleanly.
//!
//! It prints its figures (RSS, sizes, lines per second) for BENCHMARKS.md;
//! only generous bounds decide whether it passes.

use std::fs;
use std::io::{ErrorKind, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serialport::{SerialPort, TTYPort};

use crate::support;

const MIB: u64 = 1024 * 1024;

/// Noise lines, some that look like the pinsetter's but fail their check.
const NOISE: [&str; 3] = [
    "noise 0123456789 abcdefghij",
    "$PS,PINS,7,0000000000*00",
    "\u{1}\u{2}~~~~ line hum ~~~~",
];

/// The daemon's resident memory, from `/proc`.
fn rss(pid: u32) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Writes noise lines to `master` as fast as it takes them until `stop`;
/// returns the port and how many whole lines it wrote. A line is never
/// left half written unless `abandon` is set (the daemon is being stopped:
/// a write that times out or fails then ends the flood).
fn flood(
    mut master: TTYPort,
    stop: Arc<AtomicBool>,
    abandon: Arc<AtomicBool>,
) -> JoinHandle<(TTYPort, u64)> {
    std::thread::spawn(move || {
        let mut chunk = String::new();
        let per_chunk = 2000;
        for i in 0..per_chunk {
            chunk.push_str(NOISE[i % NOISE.len()]);
            chunk.push_str("\r\n");
        }
        let mut lines = 0;
        'flood: while !stop.load(Ordering::Relaxed) {
            let mut rest = chunk.as_bytes();
            while !rest.is_empty() {
                match master.write(rest) {
                    Ok(n) => rest = &rest[n..],
                    // The port's timeout: the daemon is not reading now.
                    Err(e)
                        if matches!(e.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock)
                            || e.kind() == ErrorKind::Interrupted =>
                    {
                        if abandon.load(Ordering::Relaxed) {
                            break 'flood;
                        }
                    }
                    // The daemon is stopping: its side of the port closes.
                    Err(_) if abandon.load(Ordering::Relaxed) => break 'flood,
                    Err(e) => panic!("cannot write to the pseudo-terminal: {e}"),
                }
            }
            lines += per_chunk as u64;
        }
        (master, lines)
    })
}

/// The journal the daemon goes on in: one bowler, a block started, and a
/// slow-bowling limit of 5 s, so that the lane's clock runs out in the
/// middle of the flood.
fn journal_with_a_short_clock() -> String {
    let rules = lanecall::lane::Rules {
        slow_bowling_limit_s: SLOW_BOWLING_LIMIT_S,
        ..support::fast_pinsetter_rules()
    };
    support::journal_with_open_block_under(rules, 3, 1)
}

const SLOW_BOWLING_LIMIT_S: u64 = 5;

fn slow_bowling_flagged(lane: &serde_json::Value) -> bool {
    lane["conduct"]
        .as_array()
        .is_some_and(|c| c.iter().any(|e| e["kind"] == "slow_bowling"))
}

/// Writes all of `bytes`, waiting up to 10 s for the daemon to make room
/// (the port's buffer may still be full of noise).
fn write_patiently(master: &mut TTYPort, mut bytes: &[u8]) {
    let until = Instant::now() + Duration::from_secs(10);
    while !bytes.is_empty() {
        match master.write(bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(e) if Instant::now() < until && e.kind() != ErrorKind::BrokenPipe => {}
            Err(e) => panic!("cannot write to the pseudo-terminal: {e}"),
        }
    }
}

#[test]
fn a_flood_of_noise_is_shed_and_a_good_ball_after_it_is_scored() {
    let dir = crate::support::Scratch::new("flood");
    fs::create_dir_all(dir.join("journal")).unwrap();
    let journal = dir.join("journal/lane3-20260101T000000Z-01.jsonl");
    fs::write(&journal, journal_with_a_short_clock()).unwrap();

    let (master, slave) = TTYPort::pair().expect("a pseudo-terminal pair");
    let port = slave.name().expect("the slave's name");
    let http = support::free_port();
    let hash = lanecall::web::hash_pin("246810").unwrap();
    let config = support::write_config(&dir, 3, &port, http, &hash);
    let mut daemon = support::Daemon::start(&config, http);
    let pid = daemon.child.id();
    daemon.wait_lane("the serial link up", |l| l["pinsetter"]["link"] == "up");
    // The daemon holds the port now; the test keeps only the pinsetter's side.
    drop(slave);
    daemon.login("246810");
    let journal_before = fs::metadata(&journal).unwrap().len();

    // At least 10 s of noise as fast as the daemon takes it.
    let stop = Arc::new(AtomicBool::new(false));
    let abandon = Arc::new(AtomicBool::new(false));
    let writer = flood(master, stop.clone(), abandon.clone());
    let started = Instant::now();
    let mut peak_rss = 0;
    let mut biggest_lane = 0;
    let mut samples = 0;
    let mut flagged_in_flood = false;
    let mut action_answered_in = None;
    // At least 10 s of noise; longer (up to 30 s) while the flag has not
    // come, so a machine slowed by other work does not fail it.
    while started.elapsed() < Duration::from_secs(10)
        || (!flagged_in_flood && started.elapsed() < Duration::from_secs(30))
    {
        if let Some(r) = rss(pid) {
            peak_rss = peak_rss.max(r);
        }
        if samples % 5 == 0 {
            let r = daemon.http.request("GET", "/api/lane", &[], b"").unwrap();
            assert_eq!(r.status, 200, "the lane answers during the flood");
            biggest_lane = biggest_lane.max(r.body.len());
            let lane: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
            flagged_in_flood |= slow_bowling_flagged(&lane);
        }
        // A judge's action in the middle of the noise reaches the lane and
        // is answered by it (refused: the lane is not held), not timed out.
        if action_answered_in.is_none() && started.elapsed() > Duration::from_secs(6) {
            let asked = Instant::now();
            let (status, body) = daemon.action(serde_json::json!({"ev": "hold", "on": false}));
            assert_eq!(status, 409, "{body}");
            action_answered_in = Some(asked.elapsed());
        }
        samples += 1;
        // Pacing the samples through the flood.
        std::thread::sleep(Duration::from_millis(100));
    }
    // The lane's timers run though its queue never empties: the bowler's
    // slow-bowling clock ran out in the middle of the flood.
    assert!(
        flagged_in_flood,
        "no slow-bowling flag within 30 s of noise, with a {SLOW_BOWLING_LIMIT_S} s limit"
    );
    stop.store(true, Ordering::Relaxed);
    let (mut master, noise_lines) = writer.join().unwrap();
    let flood_time = started.elapsed();

    // A good ball right after the noise: scored within 10 s.
    let good = support::pinsetter_lines("72", 0);
    for line in &good[..5] {
        write_patiently(&mut master, format!("{line}\r\n").as_bytes());
    }
    let scored_from = Instant::now();
    let lane = daemon.wait_lane("the good frame scored after the flood", |l| {
        l["bowlers"][0]["games"][0]["frames"][0]["cumulative"] == 9
    });
    let scored_in = scored_from.elapsed();
    if let Some(r) = rss(pid) {
        peak_rss = peak_rss.max(r);
    }
    let lane_bytes = serde_json::to_vec(&lane).unwrap().len();
    biggest_lane = biggest_lane.max(lane_bytes);

    // Every noise line was journaled (and counted as a serial error) or
    // shed (and counted as such): none is lost without a trace.
    let inputs = &lane["inputs"];
    let shed = inputs["shed_serial"].as_u64().expect("inputs.shed_serial");
    let counted = lane["error_counts"]["serial"]
        .as_u64()
        .expect("error_counts.serial");
    assert_eq!(
        shed + counted,
        noise_lines,
        "noise lines written {noise_lines}: shed {shed}, counted as errors {counted}"
    );
    assert_eq!(
        lane["error_counts"]["total"].as_u64().unwrap(),
        counted + 1,
        "the noise and the judge's refused action"
    );
    assert_eq!(lane["error_counts"]["refused"], 1);
    assert!(lane["errors"].as_array().unwrap().len() <= 200);
    assert_eq!(
        lane["errors_omitted"].as_u64().unwrap(),
        (counted + 1).saturating_sub(200)
    );
    assert_eq!(lane["pinsetter"]["rejected"], counted);
    assert!(
        inputs["shed_beam"] == 0 && inputs["queued"].is_u64(),
        "{inputs}"
    );

    let action_ms = action_answered_in.expect("the action was sent").as_millis();
    let journal_growth = fs::metadata(&journal).unwrap().len() - journal_before;
    let secs = flood_time.as_secs_f64();
    eprintln!(
        "flood figures: {noise_lines} noise lines in {secs:.1} s ({:.0}/s): {counted} journaled ({:.0}/s), {shed} shed ({:.0}/s); \
         journal +{:.1} MiB; peak RSS {:.1} MiB; /api/lane at most {:.1} KiB; the good ball scored {} ms after the flood; a judge's action answered in {action_ms} ms during it",
        noise_lines as f64 / secs,
        counted as f64 / secs,
        shed as f64 / secs,
        journal_growth as f64 / MIB as f64,
        peak_rss as f64 / MIB as f64,
        biggest_lane as f64 / 1024.0,
        scored_in.as_millis()
    );
    assert!(peak_rss > 0, "the daemon's RSS was read");
    assert!(
        peak_rss < 64 * MIB,
        "RSS reached {} MiB during the flood",
        peak_rss / MIB
    );
    assert!(
        biggest_lane < 256 * 1024,
        "/api/lane reached {biggest_lane} bytes"
    );

    // SIGTERM in the middle of another flood: the daemon ends, cleanly.
    let stop = Arc::new(AtomicBool::new(false));
    let writer = flood(master, stop.clone(), abandon.clone());
    // The flood runs a while before the SIGTERM comes into it.
    std::thread::sleep(Duration::from_secs(2));
    // From now on the port may close under the writer.
    abandon.store(true, Ordering::Relaxed);
    let asked = Instant::now();
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let status = support::eventually_within(
        "the daemon to end on SIGTERM during a flood",
        Duration::from_secs(5).saturating_sub(asked.elapsed()),
        || daemon.child.try_wait().unwrap(),
    );
    eprintln!(
        "flood figures: SIGTERM during a flood ended the daemon in {} ms",
        asked.elapsed().as_millis()
    );
    stop.store(true, Ordering::Relaxed);
    // Nobody reads the port now, and a pseudo-terminal's write waits for
    // room: read it here so that the writer's last write returns. Reading
    // ends when the pinsetter's side is closed.
    if let Ok(mut port) = fs::File::open(&port) {
        std::thread::spawn(move || {
            let mut buf = [0u8; 64 * 1024];
            while matches!(port.read(&mut buf), Ok(n) if n > 0) {}
        });
    }
    drop(writer.join().unwrap());
    assert!(status.success(), "exit status {status}");
}

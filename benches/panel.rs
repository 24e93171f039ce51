//! The panel's figures: 100 tablets on `GET /api/events` while the
//! pinsetter reports balls — how soon each change reaches every one of
//! them, and the daemon's memory meanwhile; and the page's weight.
//!
//! `cargo bench --bench panel` (prints figures; a timing never fails it).

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use lanecall::lane::PinSet;
use lanecall::pinsetter::{Body, Message, format_line};
use serialport::{SerialPort, TTYPort};

#[path = "../tests/support/mod.rs"]
mod support;

const CLIENTS: usize = 100;
const CHANGES: usize = 40;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

fn vm_rss_kb(pid: u32) -> u64 {
    fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    // The page's weight: every file of the panel.
    let panel = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web/panel");
    let weight: u64 = fs::read_dir(&panel)
        .map(|d| {
            d.filter_map(|e| e.ok()?.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0);
    println!(
        "page weight: {weight} bytes ({:.1} kB) in web/panel",
        weight as f64 / 1024.0
    );

    let dir = std::env::temp_dir().join(format!("lanecall-panel-bench-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("journal")).unwrap();
    fs::write(
        dir.join("journal/lane3-20260101T000000Z-01.jsonl"),
        support::journal_with_open_block(3, 12),
    )
    .unwrap();
    let (mut pinsetter, slave) = TTYPort::pair().expect("a pseudo-terminal pair");
    let port = slave.name().unwrap();
    let http = support::free_port();
    let hash = lanecall::web::hash_pin("123456").unwrap();
    let config = support::write_config(&dir, 3, &port, http, &hash);
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_lanecall"))
        .args(["run", "--config"])
        .arg(&config)
        .env("RUST_LOG", "error")
        .stdout(Stdio::null())
        .spawn()
        .expect("lanecall runs");
    support::wait_listening(http);
    drop(slave);
    let rss_before = vm_rss_kb(daemon.id());

    // 100 tablets: each reports (client, event id, when it arrived).
    let (tx, rx) = mpsc::channel::<(usize, u64, Instant)>();
    for client in 0..CLIENTS {
        let tx = tx.clone();
        let mut stream = TcpStream::connect(("127.0.0.1", http)).unwrap();
        write!(
            stream,
            "GET /api/events HTTP/1.1\r\nHost: lane\r\nAccept: text/event-stream\r\n\r\n"
        )
        .unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines() {
                let Ok(line) = line else { return };
                if let Some(id) = line.strip_prefix("id:").and_then(|v| v.trim().parse().ok())
                    && tx.send((client, id, Instant::now())).is_err()
                {
                    return;
                }
            }
        });
    }
    // Every client has its first event (the lane as it is).
    let mut first = vec![0u64; CLIENTS];
    let mut seen = 0;
    while seen < CLIENTS {
        let (c, id, _) = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("every client connects");
        if first[c] == 0 {
            seen += 1;
        }
        first[c] = id;
    }

    let mut seq = 0u8;
    let mut latencies = Vec::new();
    for i in 0..CHANGES {
        let body = if i % 2 == 0 {
            Body::Ready(PinSet::FULL)
        } else {
            Body::Pins(PinSet::from_mask("0000001001").unwrap())
        };
        let line = format_line(&Message { seq, body });
        seq = seq.wrapping_add(1);
        let sent = Instant::now();
        pinsetter
            .write_all(format!("{line}\r\n").as_bytes())
            .unwrap();
        // Wait for the change on every client: the first id above its last.
        let mut got = [false; CLIENTS];
        let mut n = 0;
        while n < CLIENTS {
            let (c, id, at) = rx
                .recv_timeout(Duration::from_secs(10))
                .expect("the change arrives");
            if id > first[c] && !got[c] {
                got[c] = true;
                first[c] = id;
                n += 1;
                latencies.push(at.duration_since(sent).as_secs_f64() * 1000.0);
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let rss = vm_rss_kb(daemon.id());
    let _ = daemon.kill();
    let _ = daemon.wait();
    let _ = fs::remove_dir_all(&dir);

    latencies.sort_by(f64::total_cmp);
    println!(
        "{CLIENTS} SSE clients, {CHANGES} changes: serial line -> event at every client: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies[latencies.len() - 1]
    );
    println!("daemon VmRSS: {rss_before} kB before the clients, {rss} kB with {CLIENTS} clients");
}

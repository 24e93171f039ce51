//! Live benchmark of `lanecall run` (the real release binary, as a child
//! process): what a lane does between a pinsetter line and its effects.
//!
//! ```sh
//! cargo bench --bench live            # needs [[bench]] name = "live", harness = false
//! ```
//!
//! Four figures (BENCHMARKS.md, "Live daemon"):
//!
//! 1. `PINS` line written to a pseudo-terminal (the pinsetter's port) until
//!    (a) the daemon's `callout: <words>` log line reaches this program on
//!    the daemon's stderr and (b) `GET /api/lane` answers 200 with a new
//!    `ETag` (polled on one keep-alive connection with `If-None-Match`,
//!    100 µs between polls). One bowler, blocks of 12 games; between blocks
//!    a judge (logged in once) sends `end_block`, `lineup`, `start_block`.
//!    Each line waits for its change before the next one is written.
//! 2. CPU time of an idle daemon over 60 s (utime + stime from
//!    `/proc/PID/stat`, and the threads' `schedstat` run time in ns).
//! 3. VmRSS (and VmHWM) after the latency run.
//! 4. Start-up with a journal of >= 10,000 events to recover (three
//!    simulated blocks of 12 games, cut before the last `end_block` so the
//!    block is open): spawn until `GET /api/lane` answers 200 with
//!    `"events"` >= the journal's event count.
//!
//! A timing here is a figure, never a pass or a fail: the program exits
//! non-zero only when the daemon does not behave (no callout, no change
//! within 5 s, a crash).
//!
//! On a slow card (`LIVE_SYNC_MS`: every `fsync`/`fdatasync` of the
//! daemon slowed that much by tests/support/slow_sync.c, its syncs
//! counted; BENCHMARKS.md, "On a slow SD card"), two more figures:
//!
//! 5. `noise`: a judge's hold posted right behind a burst of 64 noise
//!    lines, and during a continuous flood of noise: the answer's time
//!    and the syncs begun while it waited. A 503 (the lane not answering
//!    in 5 s) ends the bench with an error.
//! 6. `timer`: the slow-bowling limit (5 s from the pinsetter's `READY`)
//!    flagged on `/api/lane` how long after it was due.
//!
//! Environment: `LIVE_N` (PINS lines, default 500), `LIVE_IDLE_S` (60),
//! `LIVE_STARTS` (10), `LIVE_K` (samples of 5 and 6, 10), `LIVE_SYNC_MS`
//! (0: the disk as it is), `LIVE_ONLY` (comma list of `latency`, `idle`,
//! `startup`, `noise`, `timer`; default the first three), `LANECALL_BIN`
//! (default the bench's own `CARGO_BIN_EXE_lanecall`, i.e.
//! target/release/lanecall under `cargo bench`).

use std::fs;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use lanecall::journal::Header;
use lanecall::lane::scoring::{Ball, Position, roll};
use lanecall::lane::{PinSet, Rules};
use lanecall::pinsetter::{Body, Message, format_line};
use lanecall::sim::Rng;
use lanecall::wall_clock::{rfc3339, unix_now};
use serialport::{SerialPort, TTYPort};

#[path = "../tests/support/mod.rs"]
mod support;
use support::http::{Http, Response, find};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const LANE: u32 = 7;
const PIN: &str = "123456";
const CHANGE_TIMEOUT: Duration = Duration::from_secs(5);

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn bin() -> PathBuf {
    std::env::var_os("LANECALL_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_lanecall")))
}

// ----- a raw HTTP/1.1 keep-alive client -------------------------------------

/// The `"events":N` of a lane snapshot, without parsing the whole of it.
fn events_of(body: &[u8]) -> Option<u64> {
    let key = b"\"events\":";
    let at = find(body, key)? + key.len();
    let digits: String = body[at..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .map(|&b| b as char)
        .collect();
    digits.parse().ok()
}

// ----- the daemon -----------------------------------------------------------

struct Daemon {
    child: Child,
    /// The slow card under it (`LIVE_SYNC_MS`), counting its syncs.
    card: Option<support::slow_sync::SlowCard>,
    /// Every stderr line, stamped when it reached the reader thread.
    log: mpsc::Receiver<(Instant, String)>,
    spawned: Instant,
}

impl Daemon {
    fn spawn(config: &Path) -> Res<Daemon> {
        let spawned = Instant::now();
        let card = match env_num("LIVE_SYNC_MS", 0) {
            0 => None,
            ms => {
                let dir = config.parent().ok_or("a config in a folder")?;
                let _ = fs::remove_file(dir.join("syncs"));
                Some(support::slow_sync::SlowCard::new(dir, ms).ok_or("no slow card")?)
            }
        };
        let env = card.as_ref().map(|c| c.env()).unwrap_or_default();
        let mut child = Command::new(bin())
            .envs(env.iter().copied())
            .args(["run", "--config"])
            .arg(config)
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .env_remove("JOURNAL_STREAM")
            .env_remove("NOTIFY_SOCKET")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()?;
        let stderr = child.stderr.take().unwrap();
        let (tx, log) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stderr);
            let mut line = String::new();
            loop {
                line.clear();
                match r.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let at = Instant::now();
                        if tx.send((at, line.trim_end().to_owned())).is_err() {
                            // Nobody listens any more: keep draining the pipe.
                            let _ = io::copy(&mut r, &mut io::sink());
                            break;
                        }
                    }
                }
            }
        });
        Ok(Daemon {
            child,
            card,
            log,
            spawned,
        })
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The syncs begun so far on the slow card (0 without one).
    fn syncs(&self) -> u64 {
        self.card.as_ref().map_or(0, |c| c.syncs())
    }

    /// Waits for a stderr line containing `what`; returns its arrival.
    fn wait_log(&self, what: &str, timeout: Duration) -> Res<Instant> {
        let until = Instant::now() + timeout;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.log.recv_timeout(left) {
                Ok((at, line)) => {
                    if line.contains(what) {
                        return Ok(at);
                    }
                    if line.contains(" ERROR ") || line.contains(" WARN ") {
                        eprintln!("  daemon: {line}");
                    }
                }
                Err(_) => {
                    return Err(
                        format!("no `{what}` in the daemon's log within {timeout:?}").into(),
                    );
                }
            }
        }
    }

    fn drain_log(&self) {
        while let Ok((_, line)) = self.log.try_recv() {
            if line.contains(" ERROR ") || line.contains(" WARN ") {
                eprintln!("  daemon: {line}");
            }
        }
    }

    fn stop(mut self) {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.pid().to_string())
            .status();
        let until = Instant::now() + Duration::from_secs(5);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn journal_path(dir: &Path) -> PathBuf {
    let stamp = rfc3339(unix_now()).replace([':', '-'], "");
    dir.join(format!("journal/lane{LANE}-{stamp}-01.jsonl"))
}

fn hash_pin() -> Res<String> {
    let out = Command::new(bin()).args(["hash-pin", PIN]).output()?;
    if !out.status.success() {
        return Err("lanecall hash-pin failed".into());
    }
    Ok(String::from_utf8(out.stdout)?.trim().to_owned())
}

fn fresh_dir(name: &str) -> Res<PathBuf> {
    let dir = std::env::temp_dir().join(format!("lanecall-live-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("journal"))?;
    Ok(dir)
}

/// Waits until the API answers 200; returns the answer.
fn wait_api(http: &mut Http, timeout: Duration) -> Res<Response> {
    let until = Instant::now() + timeout;
    loop {
        match http.request("GET", "/api/lane", &[], b"") {
            Ok(r) if r.status == 200 => return Ok(r),
            _ if Instant::now() > until => return Err("the API did not answer".into()),
            _ => std::thread::sleep(Duration::from_micros(200)),
        }
    }
}

// ----- figures ----------------------------------------------------------------

fn pct(sorted: &[f64], p: f64) -> f64 {
    // Nearest rank.
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn summary(name: &str, mut v: Vec<f64>) -> String {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    format!(
        "{name:<28} n={:<4} p50 {:>7.3} ms  p90 {:>7.3} ms  p99 {:>7.3} ms  max {:>7.3} ms  mean {:>7.3} ms",
        v.len(),
        pct(&v, 50.0),
        pct(&v, 90.0),
        pct(&v, 99.0),
        v[v.len() - 1],
        mean
    )
}

/// Counts (syncs), as [`summary`] gives times.
fn counts(name: &str, mut v: Vec<f64>) -> String {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    format!(
        "{name:<28} n={:<4} p50 {:>3}  p99 {:>3}  max {:>3}",
        v.len(),
        pct(&v, 50.0),
        pct(&v, 99.0),
        v[v.len() - 1]
    )
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn proc_status(pid: u32, key: &str) -> Option<String> {
    let s = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines()
        .find(|l| l.starts_with(key))
        .map(|l| l[key.len()..].trim().to_owned())
}

/// utime + stime of the whole process, in clock ticks.
fn cpu_ticks(pid: u32) -> Res<u64> {
    let s = fs::read_to_string(format!("/proc/{pid}/stat"))?;
    let rest = &s[s.rfind(')').ok_or("bad stat")? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After ")": state is field 3, utime field 14, stime field 15.
    Ok(f[11].parse::<u64>()? + f[12].parse::<u64>()?)
}

/// Nanoseconds on a CPU, summed over the process's live threads.
fn cpu_ns(pid: u32) -> Res<u64> {
    let mut total = 0;
    for t in fs::read_dir(format!("/proc/{pid}/task"))? {
        let p = t?.path().join("schedstat");
        if let Ok(s) = fs::read_to_string(p) {
            total += s
                .split_whitespace()
                .next()
                .unwrap_or("0")
                .parse::<u64>()
                .unwrap_or(0);
        }
    }
    Ok(total)
}

fn clk_tck() -> u64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100)
}

// ----- 1. latency and 3. memory ---------------------------------------------

/// The pinsetter's lines of one game: after each ball what stands (PINS),
/// then the deck set for the next ball (READY). Random leaves.
fn game_lines(rng: &mut Rng) -> Vec<(bool, Body)> {
    let mut out = Vec::new();
    let mut at = Some(Position::START);
    while let Some(pos) = at {
        let standing = if pos.fresh_rack {
            if rng.chance(0.15) {
                PinSet::EMPTY
            } else {
                PinSet::from_pins(pos.before.iter().filter(|_| rng.chance(0.3)))
            }
        } else if rng.chance(0.4) {
            PinSet::EMPTY
        } else {
            PinSet::from_pins(pos.before.iter().filter(|_| rng.chance(0.5)))
        };
        let ball = Ball {
            t: 0,
            standing,
            foul: false,
            channel: None,
            corrected: false,
            deck: None,
        };
        at = roll(pos, &ball, true).1;
        out.push((true, Body::Pins(standing)));
        out.push((false, Body::Ready(at.map_or(PinSet::FULL, |p| p.before))));
    }
    out
}

struct Lane {
    master: TTYPort,
    seq: u8,
    http: Http,
    etag: String,
    /// The largest snapshot seen, in bytes.
    biggest: usize,
}

impl Lane {
    /// Writes one line and waits until `/api/lane` shows a new version;
    /// returns the write instant and the API latency.
    fn send(&mut self, body: Body) -> Res<(Instant, Duration)> {
        let line = format_line(&Message {
            seq: self.seq,
            body,
        });
        self.seq = self.seq.wrapping_add(1);
        let bytes = format!("{line}\r\n");
        let t0 = Instant::now();
        self.master.write_all(bytes.as_bytes())?;
        let inm = self.etag.clone();
        loop {
            let r = self
                .http
                .request("GET", "/api/lane", &[("If-None-Match", &inm)], b"")?;
            match r.status {
                304 => {}
                200 => {
                    let now = Instant::now();
                    let etag = r.header("etag").unwrap_or_default().to_owned();
                    if etag != self.etag {
                        self.etag = etag;
                        self.biggest = self.biggest.max(r.body.len());
                        return Ok((t0, now - t0));
                    }
                }
                s => return Err(format!("GET /api/lane answered {s}").into()),
            }
            if t0.elapsed() > CHANGE_TIMEOUT {
                return Err(format!("no change on /api/lane within 5 s after {line}").into());
            }
            std::thread::sleep(Duration::from_micros(100));
        }
    }
}

/// A lane with an open block, its pinsetter a pseudo-terminal: the state
/// directory, the pinsetter's side, the API port and the daemon, once it
/// has opened the port.
fn start_lane(name: &str) -> Res<(PathBuf, TTYPort, u16, Daemon)> {
    start_lane_under(name, support::fast_pinsetter_rules())
}

/// [`start_lane`] with the journal's block under `rules`.
fn start_lane_under(name: &str, rules: Rules) -> Res<(PathBuf, TTYPort, u16, Daemon)> {
    let dir = fresh_dir(name)?;
    fs::write(
        journal_path(&dir),
        support::journal_with_open_block_under(rules, LANE, 12),
    )?;
    let (master, slave) = TTYPort::pair()?;
    let port_name = slave.name().ok_or("no pty name")?;
    let http_port = support::free_port();
    let hash = hash_pin()?;
    let config = support::write_config(&dir, LANE, &port_name, http_port, &hash);
    let daemon = Daemon::spawn(&config)?;
    daemon.wait_log("pinsetter link up", Duration::from_secs(10))?;
    drop(slave);
    Ok((dir, master, http_port, daemon))
}

fn latency(n: usize) -> Res<()> {
    println!("== 1. PINS -> callout / GET /api/lane change ({n} PINS lines), 3. memory");
    let (dir, master, http_port, daemon) = start_lane("latency")?;
    let mut http = Http::new(http_port);
    let first = wait_api(&mut http, Duration::from_secs(10))?;
    let etag = first.header("etag").unwrap_or_default().to_owned();
    let rss_start = proc_status(daemon.pid(), "VmRSS:");

    // The judge logs in once, for the block changes.
    let cookie = judge(&mut http)?;

    let mut lane = Lane {
        master,
        seq: 0,
        http,
        etag,
        biggest: 0,
    };
    let mut rng = Rng::new(0x11fe);
    let mut callout_ms = Vec::with_capacity(n);
    let mut api_ms = Vec::with_capacity(n);
    let mut ready_api_ms = Vec::new();
    let mut blocks = 1;
    let mut balls_in_block = 0;
    lane.send(Body::Ready(PinSet::FULL))?;
    let started = Instant::now();
    'blocks: loop {
        for _game in 0..12 {
            for (is_pins, body) in game_lines(&mut rng) {
                daemon.drain_log();
                let (t0, api) = lane.send(body)?;
                if is_pins {
                    let said = daemon.wait_log("callout: ", CHANGE_TIMEOUT)?;
                    callout_ms.push(ms(said.saturating_duration_since(t0)));
                    api_ms.push(ms(api));
                    balls_in_block += 1;
                } else {
                    ready_api_ms.push(ms(api));
                }
                if callout_ms.len() == n && !is_pins {
                    break 'blocks;
                }
            }
        }
        // The block is bowled: a judge ends it and starts the next one
        // (the lineup rotates the daemon to a new journal).
        println!("  block {blocks}: {balls_in_block} balls");
        balls_in_block = 0;
        blocks += 1;
        for action in [
            r#"{"ev":"end_block"}"#.to_owned(),
            r#"{"ev":"lineup","bowlers":[{"name":"Ivan Petrov","class":"B2"}]}"#.to_owned(),
            r#"{"ev":"start_block","games":12}"#.to_owned(),
        ] {
            let r = lane.http.request(
                "POST",
                "/api/actions",
                &[("Content-Type", "application/json"), ("Cookie", &cookie)],
                action.as_bytes(),
            )?;
            if r.status != 200 && !(r.status == 409 && action.contains("end_block")) {
                return Err(format!(
                    "{action} answered {}: {}",
                    r.status,
                    String::from_utf8_lossy(&r.body)
                )
                .into());
            }
        }
        let r = lane.http.request("GET", "/api/lane", &[], b"")?;
        lane.etag = r.header("etag").unwrap_or_default().to_owned();
        lane.send(Body::Ready(PinSet::FULL))?;
    }
    let took = started.elapsed();
    println!("  block {blocks}: {balls_in_block} balls (stopped at {n} PINS lines)");
    daemon.drain_log();
    let pid = daemon.pid();
    let rss = proc_status(pid, "VmRSS:").unwrap_or_default();
    let hwm = proc_status(pid, "VmHWM:").unwrap_or_default();
    let threads = proc_status(pid, "Threads:").unwrap_or_default();
    let final_lane = lane.http.request("GET", "/api/lane", &[], b"")?;
    println!(
        "  {} lines in {:.1} s; snapshot: largest {} bytes, last {} bytes",
        callout_ms.len() + ready_api_ms.len(),
        took.as_secs_f64(),
        lane.biggest,
        final_lane.body.len()
    );
    println!("  {}", summary("PINS -> callout log line", callout_ms));
    println!("  {}", summary("PINS -> /api/lane 200", api_ms));
    println!("  {}", summary("READY -> /api/lane 200", ready_api_ms));
    println!(
        "  memory after the run: VmRSS {rss} (at start {}), VmHWM {hwm}, threads {threads}",
        rss_start.unwrap_or_default()
    );
    daemon.stop();
    let _ = fs::remove_dir_all(&dir);
    Ok(())
}

// ----- 2. idle CPU -------------------------------------------------------------

fn idle(secs: u64) -> Res<()> {
    println!("== 2. idle CPU over {secs} s");
    let (dir, master, http_port, daemon) = start_lane("idle")?;
    let mut http = Http::new(http_port);
    wait_api(&mut http, Duration::from_secs(10))?;
    drop(http);
    let pid = daemon.pid();
    let (tick0, ns0, t0) = (cpu_ticks(pid)?, cpu_ns(pid)?, Instant::now());
    std::thread::sleep(Duration::from_secs(secs));
    let (tick1, ns1, wall) = (cpu_ticks(pid)?, cpu_ns(pid)?, t0.elapsed());
    daemon.drain_log();
    let hz = clk_tck();
    let ticks = tick1 - tick0;
    println!(
        "  utime+stime {ticks} ticks (CLK_TCK {hz}) over {:.1} s = {:.3} % of one core",
        wall.as_secs_f64(),
        ticks as f64 / hz as f64 / wall.as_secs_f64() * 100.0
    );
    println!(
        "  threads' schedstat run time {:.2} ms = {:.4} % of one core; VmRSS idle {}, VmHWM {}",
        (ns1 - ns0) as f64 / 1e6,
        (ns1 - ns0) as f64 / 1e9 / wall.as_secs_f64() * 100.0,
        proc_status(pid, "VmRSS:").unwrap_or_default(),
        proc_status(pid, "VmHWM:").unwrap_or_default()
    );
    drop(master);
    daemon.stop();
    let _ = fs::remove_dir_all(&dir);
    Ok(())
}

// ----- 4. start-up with a journal to recover --------------------------------

fn startup(runs: usize) -> Res<()> {
    println!("== 4. start-up with a journal to recover ({runs} runs)");
    let sim = Command::new(bin())
        .args(["simulate", "--games", "12", "--blocks", "3", "--seed", "3"])
        .output()?;
    if !sim.status.success() {
        return Err("lanecall simulate failed".into());
    }
    let text = String::from_utf8(sim.stdout)?;
    let mut lines: Vec<&str> = text.lines().collect();
    // Cut before the last end_block: the block stays open, so the daemon
    // recovers this journal whatever its date.
    let last_end = lines
        .iter()
        .rposition(|l| l.contains(r#""ev":"end_block""#))
        .ok_or("no end_block in the simulated journal")?;
    lines.truncate(last_end);
    let mut header = Header::parse(lines[0])?;
    header.started_at = Some(rfc3339(unix_now()));
    if header.rules != Rules::default() || header.lane != LANE {
        return Err("the simulated journal's header is not lane 7 with the default rules".into());
    }
    let head = header.to_line();
    let mut journal = String::with_capacity(text.len());
    journal.push_str(&head);
    journal.push('\n');
    for l in &lines[1..] {
        journal.push_str(l);
        journal.push('\n');
    }
    let events = (lines.len() - 1) as u64;
    println!(
        "  journal: {} lines, {events} events, {} bytes (simulate --games 12 --blocks 3 --seed 3, cut before the last end_block)",
        lines.len(),
        journal.len()
    );
    let hash = hash_pin()?;
    let mut total = Vec::new();
    let mut to_recovered = Vec::new();
    let mut to_up = Vec::new();
    let mut seen = Vec::new();
    for run in 0..runs {
        let dir = fresh_dir(&format!("startup{run}"))?;
        fs::write(journal_path(&dir), &journal)?;
        let (master, slave) = TTYPort::pair()?;
        let port_name = slave.name().ok_or("no pty name")?;
        let http_port = support::free_port();
        let config = support::write_config(&dir, LANE, &port_name, http_port, &hash);
        // Drop the page cache's advantage? No: a restarting Pi reads a
        // journal it wrote, which is as warm as this one.
        let daemon = Daemon::spawn(&config)?;
        let t0 = daemon.spawned;
        let mut http = Http::new(http_port);
        let until = t0 + Duration::from_secs(20);
        let (ready, got) = loop {
            if let Ok(r) = http.request("GET", "/api/lane", &[], b"")
                && r.status == 200
                && let Some(e) = events_of(&r.body)
                && e >= events
            {
                break (Instant::now(), e);
            }
            if Instant::now() > until {
                return Err("the daemon was not ready within 20 s".into());
            }
            std::thread::sleep(Duration::from_micros(100));
        };
        total.push(ms(ready - t0));
        seen.push(got);
        // Where the time went, from the daemon's own log lines.
        let rec = daemon.wait_log("recovered the lane", Duration::from_secs(1))?;
        let up = daemon.wait_log(" is up", Duration::from_secs(1))?;
        to_recovered.push(ms(rec.saturating_duration_since(t0)));
        to_up.push(ms(up.saturating_duration_since(t0)));
        drop(slave);
        drop(master);
        daemon.stop();
        let _ = fs::remove_dir_all(&dir);
    }
    println!(
        "  spawn -> ready (ms): {}",
        total
            .iter()
            .map(|v| format!("{v:.1}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "  \"events\" at ready: {seen:?} (the journal's {events}, +1 once the serial link's `up` is journaled)"
    );
    let med = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        (pct(v, 50.0), v[v.len() - 1])
    };
    let (m, x) = med(&mut total);
    let (rm, rx) = med(&mut to_recovered);
    let (um, ux) = med(&mut to_up);
    println!("  spawn -> ready:                      median {m:.1} ms, max {x:.1} ms");
    println!("  spawn -> 'recovered' log line:       median {rm:.1} ms, max {rx:.1} ms");
    println!("  spawn -> 'lane 7 is up' log line:    median {um:.1} ms, max {ux:.1} ms");
    Ok(())
}

// ----- 5. and 6. on a slow card: a judge's action behind noise, a timer -----

/// A judge logged in through `http`: the session cookie.
fn judge(http: &mut Http) -> Res<String> {
    let login = http.request(
        "POST",
        "/api/login",
        &[("Content-Type", "application/json")],
        format!(r#"{{"pin":"{PIN}","name":"Judge Orlova"}}"#).as_bytes(),
    )?;
    if login.status != 200 {
        return Err(format!("login answered {}", login.status).into());
    }
    Ok(login
        .header("set-cookie")
        .and_then(|c| c.split(';').next())
        .ok_or("no session cookie")?
        .to_owned())
}

/// Posts a hold on or off; returns how long the answer took and the syncs
/// begun meanwhile. Any answer but 200 is a failure (a 503 is the lane
/// not answering in time).
fn timed_hold(http: &mut Http, cookie: &str, on: bool, daemon: &Daemon) -> Res<(f64, u64)> {
    let syncs = daemon.syncs();
    let t0 = Instant::now();
    let r = http.request(
        "POST",
        "/api/actions",
        &[("Content-Type", "application/json"), ("Cookie", cookie)],
        format!(r#"{{"ev":"hold","on":{on}}}"#).as_bytes(),
    )?;
    let took = ms(t0.elapsed());
    if r.status != 200 {
        return Err(format!(
            "the hold answered {} after {took:.0} ms: {}",
            r.status,
            String::from_utf8_lossy(&r.body)
        )
        .into());
    }
    Ok((took, daemon.syncs() - syncs))
}

/// `"serial"` of `error_counts` in `/api/lane`: the noise journaled.
fn serial_errors(http: &mut Http) -> Res<u64> {
    let r = http.request("GET", "/api/lane", &[], b"")?;
    let lane: serde_json::Value = serde_json::from_slice(&r.body)?;
    Ok(lane["error_counts"]["serial"].as_u64().unwrap_or(0)
        + lane["inputs"]["shed_serial"].as_u64().unwrap_or(0))
}

/// A judge's hold right behind a burst of 64 noise lines, `k` times; and
/// during a continuous flood of noise, `k` times.
fn noise(k: usize) -> Res<()> {
    println!("== 5. a judge's action behind a 64-line noise burst, and during a flood ({k} each)");
    let (dir, mut master, http_port, daemon) = start_lane("noise")?;
    let mut http = Http::new(http_port);
    wait_api(&mut http, Duration::from_secs(30))?;
    let cookie = judge(&mut http)?;
    let (mut burst_ms, mut burst_syncs) = (Vec::new(), Vec::new());
    let mut noise_sent = 0;
    for i in 0..k {
        let burst: String = (0..64)
            .map(|j| format!("noise {i}/{j:02} hum\r\n"))
            .collect();
        master.write_all(burst.as_bytes())?;
        noise_sent += 64;
        let (took, syncs) = timed_hold(
            &mut http,
            &cookie,
            burst_ms.len().is_multiple_of(2),
            &daemon,
        )?;
        burst_ms.push(took);
        burst_syncs.push(syncs as f64);
        // The burst all journaled (or shed) before the next one.
        let until = Instant::now() + Duration::from_secs(120);
        while serial_errors(&mut http)? < noise_sent {
            if Instant::now() > until {
                return Err("the burst was not journaled within 120 s".into());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    println!("  {}", summary("hold behind a burst", burst_ms));
    println!("  {}", counts("syncs it waited for", burst_syncs));

    // A flood: noise as fast as the port takes it, a hold every 300 ms.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flood = {
        let stop = stop.clone();
        let mut master = master.try_clone_native()?;
        std::thread::spawn(move || {
            let chunk: String = (0..256).map(|j| format!("flood {j:03} hum\r\n")).collect();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = master.write_all(chunk.as_bytes());
            }
        })
    };
    let (mut flood_ms, mut flood_syncs) = (Vec::new(), Vec::new());
    for i in 0..k {
        std::thread::sleep(Duration::from_millis(300));
        let on = (k + i).is_multiple_of(2);
        let (took, syncs) = timed_hold(&mut http, &cookie, on, &daemon)?;
        flood_ms.push(took);
        flood_syncs.push(syncs as f64);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    // The writer's last write returns once the daemon reads it.
    let _ = flood.join();
    println!("  {}", summary("hold during a flood", flood_ms));
    println!("  {}", counts("syncs it waited for", flood_syncs));
    daemon.drain_log();
    daemon.stop();
    let _ = fs::remove_dir_all(&dir);
    Ok(())
}

/// The lane's own timer on a slow card: the slow-bowling limit (5 s from
/// the pinsetter's `READY`) flagged how long after it is due, `k` times.
fn timer(k: usize) -> Res<()> {
    println!("== 6. the lane's timer: the slow-bowling limit (5 s) flagged after it is due ({k})");
    let rules = Rules {
        slow_bowling_limit_s: 5,
        ..support::fast_pinsetter_rules()
    };
    let (dir, master, http_port, daemon) = start_lane_under("timer", rules)?;
    let mut http = Http::new(http_port);
    let first = wait_api(&mut http, Duration::from_secs(30))?;
    let etag = first.header("etag").unwrap_or_default().to_owned();
    let mut lane = Lane {
        master,
        seq: 0,
        http,
        etag,
        biggest: 0,
    };
    let flags = |http: &mut Http| -> Res<usize> {
        let r = http.request("GET", "/api/lane", &[], b"")?;
        let lane: serde_json::Value = serde_json::from_slice(&r.body)?;
        Ok(lane["conduct"].as_array().map_or(0, |c| {
            c.iter().filter(|e| e["kind"] == "slow_bowling").count()
        }))
    };
    let mut late_ms = Vec::new();
    // A round whose clock did not start at the `READY` sent here (the
    // first, whose clock runs since the block began; a frame's first ball,
    // whose clock may go on from the frame before) is flagged at once: it
    // is counted apart, not measured.
    let mut at_once = 0;
    let mut i: u32 = 0;
    while late_ms.len() < k {
        if at_once > k + 2 {
            return Err(format!("{at_once} rounds flagged at once").into());
        }
        let before = flags(&mut lane.http)?;
        let (t0, _) = lane.send(Body::Ready(PinSet::FULL))?;
        let until = t0 + Duration::from_secs(30);
        while flags(&mut lane.http)? == before {
            if Instant::now() > until {
                return Err("no slow-bowling flag within 30 s of a 5 s limit".into());
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        match ms(t0.elapsed()) - 5000.0 {
            late if late > -1000.0 => late_ms.push(late),
            _ => at_once += 1,
        }
        // A frame's first ball misses every pin, its second takes them
        // all: the deck is full for each next ball.
        let standing = if i.is_multiple_of(2) {
            PinSet::FULL
        } else {
            PinSet::EMPTY
        };
        lane.send(Body::Pins(standing))?;
        i += 1;
    }
    println!("  {}", summary("flagged after it was due", late_ms));
    println!("  ({at_once} rounds flagged at once, their clock older than the READY)");
    daemon.drain_log();
    daemon.stop();
    let _ = fs::remove_dir_all(&dir);
    Ok(())
}

fn main() -> Res<()> {
    let only = std::env::var("LIVE_ONLY").unwrap_or_else(|_| "latency,idle,startup".into());
    println!(
        "lanecall live bench: {} (pid {}), {}, every sync slowed by {} ms",
        bin().display(),
        std::process::id(),
        rfc3339(unix_now()),
        env_num("LIVE_SYNC_MS", 0)
    );
    if only.contains("latency") {
        latency(env_num("LIVE_N", 500) as usize)?;
    }
    if only.contains("idle") {
        idle(env_num("LIVE_IDLE_S", 60))?;
    }
    if only.contains("startup") {
        startup(env_num("LIVE_STARTS", 10) as usize)?;
    }
    if only.contains("noise") {
        noise(env_num("LIVE_K", 10) as usize)?;
    }
    if only.contains("timer") {
        timer(env_num("LIVE_K", 10) as usize)?;
    }
    Ok(())
}

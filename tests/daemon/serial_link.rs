//! The pinsetter link through a real pseudo-terminal: what the pinsetter
//! writes on the master side must reach the lane's channel line by line,
//! an unplugged port must be reported, and a missing port must be retried
//! with backoff, never in a busy loop.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use lanecall::config::PinsetterConfig;
use lanecall::lane::Sensor;
use lanecall::pinsetter::MAX_LINE;
use lanecall::ports::Input;
use lanecall::ports::inputs::InputReceiver;
use lanecall::sensors::serial::run_pinsetter_link;
use serialport::{SerialPort, TTYPort};

use crate::support;

const READY: &str = "$PS,READY,0,1111111111*54";
const PINS: &str = "$PS,PINS,1,0000001001*1A";

fn settings(port: impl Into<PathBuf>, min_ms: u64, max_ms: u64) -> PinsetterConfig {
    let mut settings = PinsetterConfig::default();
    settings.port = port.into();
    settings.baud = 9600;
    settings.reconnect_min = Duration::from_millis(min_ms);
    settings.reconnect_max = Duration::from_millis(max_ms);
    settings
}

/// The next reading, waiting at most 5 s (blocks this thread: only for
/// tests whose link runs on the runtime's worker threads).
fn next_reading(rx: &InputReceiver) -> Sensor {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let left = until.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Input::Reading(r)) => return r.sensor,
            Ok(_) => continue,
            Err(RecvTimeoutError::Timeout) => panic!("no input from the link within 5 s"),
            Err(RecvTimeoutError::Disconnected) => panic!("the link stopped"),
        }
    }
}

/// The next reading without blocking the runtime's thread; `None` once
/// the link has stopped.
async fn next_reading_async(rx: &InputReceiver) -> Option<Sensor> {
    support::eventually_async("a reading from the link", || async {
        loop {
            match rx.try_recv() {
                Ok(Input::Reading(r)) => return Ok(Some(r.sensor)),
                Ok(_) => continue,
                Err(TryRecvError::Empty) => return Err("none yet"),
                Err(TryRecvError::Disconnected) => return Ok(None),
            }
        }
    })
    .await
}

fn serial(line: &str) -> Sensor {
    Sensor::Serial { line: line.into() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_from_a_pty_reach_the_lane_in_order_and_unplug_is_reported() {
    let (mut master, slave) = TTYPort::pair().expect("a pseudo-terminal pair");
    let path = slave.name().expect("the slave side's name");
    let (tx, rx) = lanecall::ports::inputs::channel(lanecall::ports::inputs::CAPACITY);
    let (state_tx, state_rx) = tokio::sync::watch::channel(false);
    let link = tokio::spawn(run_pinsetter_link(settings(&path, 20, 200), tx, state_tx));

    assert_eq!(next_reading(&rx), Sensor::SerialLink { up: true });
    assert!(*state_rx.borrow());
    // From here the link's own open of the slave is the one that matters.
    drop(slave);

    master.write_all(format!("{READY}\r\n").as_bytes()).unwrap();
    // Noise: bytes that are not UTF-8, then an empty line (dropped).
    master
        .write_all(b"$PS,PI\xffNS,1,00\xfe00*1A\r\n\r\n")
        .unwrap();
    // An overlong line with no end for 300 bytes, then a good line.
    let overlong: Vec<u8> = (0..300).map(|i| b'0' + (i % 10) as u8).collect();
    master.write_all(&overlong).unwrap();
    master
        .write_all(format!("\r\n{PINS}\r\n").as_bytes())
        .unwrap();
    master.flush().unwrap();

    assert_eq!(next_reading(&rx), serial(READY));
    assert_eq!(
        next_reading(&rx),
        serial("$PS,PI\u{FFFD}NS,1,00\u{FFFD}00*1A")
    );
    let cut = String::from_utf8(overlong[..MAX_LINE + 1].to_vec()).unwrap();
    assert_eq!(cut.len(), 129);
    assert_eq!(next_reading(&rx), Sensor::Serial { line: cut });
    assert_eq!(next_reading(&rx), serial(PINS));

    // Unplug: the pinsetter's side goes away.
    drop(master);
    assert_eq!(next_reading(&rx), Sensor::SerialLink { up: false });
    assert!(!*state_rx.borrow());
    // The pty is gone for good: nothing more arrives (the link backs off).
    assert!(matches!(
        rx.recv_timeout(Duration::from_millis(300)),
        Err(RecvTimeoutError::Timeout)
    ));

    link.abort();
}

/// Counts the link's attempts to open the port (its log events carrying
/// `open_attempt`), by level.
#[derive(Clone, Default)]
struct Attempts {
    warn: Arc<AtomicUsize>,
    debug: Arc<AtomicUsize>,
}

impl Attempts {
    fn total(&self) -> usize {
        self.warn.load(Ordering::SeqCst) + self.debug.load(Ordering::SeqCst)
    }
}

struct HasOpenAttempt(bool);

impl tracing::field::Visit for HasOpenAttempt {
    fn record_debug(&mut self, field: &tracing::field::Field, _: &dyn std::fmt::Debug) {
        if field.name() == "open_attempt" {
            self.0 = true;
        }
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Attempts {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        let mut v = HasOpenAttempt(false);
        event.record(&mut v);
        if !v.0 {
            return;
        }
        match *event.metadata().level() {
            tracing::Level::WARN => self.warn.fetch_add(1, Ordering::SeqCst),
            _ => self.debug.fetch_add(1, Ordering::SeqCst),
        };
    }
}

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir =
            std::env::temp_dir().join(format!("lanecall-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn missing_port_is_retried_with_backoff_until_it_appears() {
    use tracing_subscriber::layer::SubscriberExt as _;

    let attempts = Attempts::default();
    let subscriber = tracing_subscriber::registry().with(attempts.clone());
    // A current-thread runtime: the link runs on this thread, under this
    // thread's subscriber.
    let _log = tracing::subscriber::set_default(subscriber);
    // tracing caches each log site's interest for all threads. With a
    // single subscriber registered it asks the default of whichever thread
    // reaches the site first (another test's worker, with no subscriber)
    // and may cache "never" for this test too. With two registered it asks
    // each of them, so this test's counter always sees its events.
    let _second = tracing::Dispatch::new(tracing_subscriber::registry());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();

    let dir = TempDir::new("serial-link");
    let port = dir.path().join("ttyPINSETTER");
    let (tx, rx) = lanecall::ports::inputs::channel(lanecall::ports::inputs::CAPACITY);
    let (state_tx, state_rx) = tokio::sync::watch::channel(false);

    rt.block_on(async {
        // 20, 40, 80, 160, 160, ... ms between attempts.
        let link = tokio::spawn(run_pinsetter_link(settings(&port, 20, 160), tx, state_tx));

        // Time passing, in which the test counts the attempts.
        tokio::time::sleep(Duration::from_secs(1)).await;
        let missing = attempts.total();
        // About 9 attempts fit in 1 s with this backoff; a busy loop makes
        // thousands. (Bounds only: no timing is asserted beyond them.)
        assert!(
            (2..=20).contains(&missing),
            "{missing} attempts to open in 1 s"
        );
        // One warning per outage, the rest at debug level.
        assert_eq!(attempts.warn.load(Ordering::SeqCst), 1);
        // A port that never opened is a link down, said once (the panel
        // shows "link down" and offers manual pin entry); nothing more is
        // sent while it stays missing.
        match rx.try_recv() {
            Ok(Input::Reading(r)) => assert_eq!(r.sensor, Sensor::SerialLink { up: false }),
            other => panic!("the missing port is not reported down: {other:?}"),
        }
        assert!(
            rx.try_recv().is_err(),
            "nothing more is sent while the port is missing"
        );
        assert!(!*state_rx.borrow());

        // The adapter appears (as a udev symlink would).
        let (mut master, slave) = TTYPort::pair().expect("a pseudo-terminal pair");
        std::os::unix::fs::symlink(slave.name().unwrap(), &port).unwrap();

        let up = next_reading_async(&rx).await;
        assert_eq!(up, Some(Sensor::SerialLink { up: true }));
        assert!(*state_rx.borrow());
        drop(slave);

        master.write_all(format!("{READY}\r\n").as_bytes()).unwrap();
        let line = next_reading_async(&rx).await;
        assert_eq!(line, Some(serial(READY)));

        link.abort();
        let _ = link.await;
        drop(master);
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn link_returns_when_the_daemon_is_gone() {
    let (_master, slave) = TTYPort::pair().expect("a pseudo-terminal pair");
    let path = slave.name().unwrap();
    let (tx, rx) = lanecall::ports::inputs::channel(lanecall::ports::inputs::CAPACITY);
    drop(rx);
    let (state_tx, _state_rx) = tokio::sync::watch::channel(false);
    tokio::time::timeout(
        Duration::from_secs(5),
        run_pinsetter_link(settings(path, 20, 200), tx, state_tx),
    )
    .await
    .expect("the link returns once its sends fail");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_channel_sheds_noise_and_keeps_the_lines_that_parse() {
    let (mut master, slave) = TTYPort::pair().expect("a pseudo-terminal pair");
    let path = slave.name().expect("the slave side's name");
    // 64 places: noise takes at most a sixteenth of them, four.
    let (tx, rx) = lanecall::ports::inputs::channel(64);
    let stats = tx.stats();
    let (state_tx, _state_rx) = tokio::sync::watch::channel(false);
    let link = tokio::spawn(run_pinsetter_link(settings(&path, 20, 200), tx, state_tx));
    assert_eq!(next_reading(&rx), Sensor::SerialLink { up: true });
    drop(slave);

    // Nobody takes from the channel: four noise lines take noise's share
    // of it, the noise after them is shed, and the good lines are queued.
    let mut wire = String::new();
    for i in 0..200 {
        wire.push_str(&format!("hum {i}\r\n"));
        if i == 100 {
            wire.push_str(&format!("{READY}\r\n"));
        }
    }
    wire.push_str(&format!("{PINS}\r\n"));
    master.write_all(wire.as_bytes()).unwrap();
    support::eventually_async("196 noise lines shed", || async {
        match stats.shed_serial() {
            n if n >= 196 => Ok(()),
            n => Err(format!("shed {n}")),
        }
    })
    .await;
    // Time passing, in which nothing more may be shed.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        stats.shed_serial(),
        196,
        "hum 4 to hum 199, not the good lines"
    );

    let mut got = Vec::new();
    while got.last().map(String::as_str) != Some(PINS) {
        match next_reading_async(&rx).await {
            Some(Sensor::Serial { line }) => got.push(line),
            other => panic!("{other:?} after {got:?}"),
        }
    }
    // The first four noise lines, then the good lines; every line is taken
    // or counted as shed.
    assert_eq!(got, ["hum 0", "hum 1", "hum 2", "hum 3", READY, PINS]);
    assert_eq!(got.len() as u64 + stats.shed_serial(), 202, "{got:?}");
    link.abort();
}

/// A lane whose pinsetter port never opened shows the link down (the panel
/// then offers manual pin entry), not "not connected", and its journal says
/// so: a replay shows the same.
#[test]
fn a_port_that_never_opened_is_a_link_down_on_the_lane() {
    let dir = TempDir::new("never-opened");
    let http = support::free_port();
    let hash = lanecall::web::hash_pin("246813").unwrap();
    let missing = dir.path().join("ttyNOPINSETTER");
    let config = support::write_config(dir.path(), 4, missing.to_str().unwrap(), http, &hash);
    let mut daemon = support::Daemon::start(&config, http);
    let lane = daemon.wait_lane("the link down", |l| l["pinsetter"]["link"] == "down");
    assert_eq!(lane["pinsetter"]["lines"], 0);
    drop(daemon);
    let journal = std::fs::read_dir(dir.path().join("journal"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .expect("the lane's journal");
    let text = std::fs::read_to_string(&journal).unwrap();
    assert_eq!(
        text.matches(r#""ev":"serial_link","state":"down""#).count(),
        1,
        "{text}"
    );
    let replay = lanecall::replay::Replay::from_reader(text.as_bytes()).unwrap();
    let report = serde_json::to_value(replay.report()).unwrap();
    assert_eq!(report["pinsetter"]["link"], "down");
}

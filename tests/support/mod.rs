//! Fixtures shared by the tests and benchmarks that run the real daemon.

// Each test or benchmark that includes this uses only some of it.
#![allow(dead_code)]

pub mod centre;
pub mod centre_lane;
pub mod centre_scene;
pub mod http;
pub mod mosquitto;
pub mod mount;
pub mod needs;
pub mod scratch;
pub mod slow_sync;
pub mod tls;
pub mod wait;

#[allow(unused_imports)]
pub use needs::{browser_tools, mosquitto_tools, require, require_tool};
#[allow(unused_imports)]
pub use scratch::Scratch;
#[allow(unused_imports)]
pub use wait::{
    Gate, browser_command, eventually, eventually_async, eventually_within, run_browser,
    run_browser_asking,
};

use lanecall::journal::{Header, Writer};
use lanecall::lane::{Action, Bowler, Class, Event, Panel, Rules, Stamped};
use lanecall::wall_clock::{rfc3339, unix_now};

/// A journal as the daemon finds it when it starts: today's header, one B2
/// bowler in the lane order, and a block of `games` started. The daemon
/// goes on in it instead of starting a new one.
pub fn journal_with_open_block(lane: u32, games: u32) -> String {
    journal_with_open_block_under(fast_pinsetter_rules(), lane, games)
}

/// [`journal_with_open_block`] under other rules.
pub fn journal_with_open_block_under(rules: Rules, lane: u32, games: u32) -> String {
    journal_with_open_block_for(rules, lane, games, "Ivan Petrov")
}

/// [`journal_with_open_block`] under `rules` for one B2 bowler `name`.
pub fn journal_with_open_block_for(rules: Rules, lane: u32, games: u32, name: &str) -> String {
    let header = Header::new(lane, Some(rfc3339(unix_now())), rules);
    let bowlers = vec![Bowler {
        name: name.into(),
        class: Class::B2,
        handicap: 0,
        team: None,
        voice: Default::default(),
    }];
    journal_of(
        &header,
        &[
            (0, Action::lineup(bowlers)),
            (1, Action::StartBlock { games }),
        ]
        .map(|(t, action)| Stamped {
            t,
            event: Event::Panel(Panel::new(Some("Judge Orlova".into()), action)),
        }),
    )
}

/// The default rules but the pinsetter's minimum cycle, off: the tests'
/// pinsetter sends a game's lines as fast as the port takes them, far
/// quicker than any real one can cycle.
pub fn fast_pinsetter_rules() -> Rules {
    Rules {
        min_cycle_ms: 0,
        ..Rules::default()
    }
}

/// A journal in the format the daemon writes: `header` and `events`.
pub fn journal_of(header: &Header, events: &[Stamped<Event>]) -> String {
    let mut w = Writer::create(Vec::new(), header).expect("a journal in memory");
    for e in events {
        w.write(e).expect("a journal in memory");
    }
    String::from_utf8(w.into_inner()).expect("a journal is UTF-8")
}

/// tests/logs/slow_bowling_hold.jsonl (its first bowler bowls 173) as lane
/// `lane`'s journal `seq`, its two bowlers `first` and `second`, sealed as
/// the lane writes it.
pub fn bowled_journal(lane: u32, seq: u64, first: &str, second: &str) -> String {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/logs/slow_bowling_hold.jsonl");
    let text = std::fs::read_to_string(path)
        .unwrap()
        .replace("Dmitri Orlov", first)
        .replace("Yulia Petrova", second);
    let mut lines = text.lines();
    let header = Header::parse(lines.next().unwrap()).unwrap();
    let header = Header {
        lane,
        ..header.with_seq(seq)
    };
    let events: Vec<Stamped<Event>> = lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| lanecall::journal::parse_event(l).unwrap())
        .collect();
    journal_of(&header, &events)
}

/// The journal `tests/logs/<name>` as lane `lane` writes it today (format
/// 2, sealed) as its journal `seq`: what a centre takes only from that lane.
pub fn sealed_log(name: &str, lane: u32, seq: u64) -> String {
    let path = format!("{}/tests/logs/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    let header = Header::parse(lines.next().expect("a header")).expect("a journal header");
    let header = Header {
        lane,
        ..header.with_seq(seq)
    };
    let events: Vec<Stamped<Event>> = lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| lanecall::journal::parse_event(l).unwrap_or_else(|e| panic!("{path}: {e}")))
        .collect();
    journal_of(&header, &events)
}

/// A format 2 journal as format 1 wrote it: no seals.
pub fn unsealed(text: &str) -> String {
    text.lines()
        .map(|l| {
            let body = &l[..l.rfind(",\"n\":").expect("a sealed line")];
            format!("{}}}\n", body.replacen("\"version\":2", "\"version\":1", 1))
        })
        .collect()
}

/// A port nobody listens on now, for a daemon a test starts next.
///
/// Taken below the kernel's ephemeral range (32768 and up), so no port the
/// kernel hands out meanwhile — a broker's `bind(0)`, the source port of a
/// connection, another test's listener — can take it before the daemon
/// binds, and a connect to it can never land on itself. Never the same
/// port twice in one test process; each process starts at its own place.
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    const FIRST: u32 = 20_000;
    const SPAN: u32 = 12_000;
    static NEXT: AtomicU32 = AtomicU32::new(u32::MAX);
    let _ = NEXT.compare_exchange(
        u32::MAX,
        std::process::id() % SPAN,
        Ordering::SeqCst,
        Ordering::SeqCst,
    );
    for _ in 0..SPAN {
        let port = (FIRST + NEXT.fetch_add(1, Ordering::SeqCst) % SPAN) as u16;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port in {FIRST}..{}", FIRST + SPAN)
}

/// A config for `lanecall run` on this machine: no GPIO, no speaker, the
/// pinsetter on `port` (a pseudo-terminal), the API on `http`. Written to
/// `dir/lanecall.toml`, whose path it returns. Its rules are
/// [`fast_pinsetter_rules`]. `[web]` comes last: a test may append keys
/// to it.
pub fn write_config(
    dir: &std::path::Path,
    lane: u32,
    port: &str,
    http: u16,
    pin_hash: &str,
) -> std::path::PathBuf {
    let config = dir.join("lanecall.toml");
    let text = format!(
        "lane = {lane}\nstate_dir = {dir:?}\n[pinsetter]\nport = {port:?}\nbaud = 9600\n\
         reconnect_min_ms = 20\nreconnect_max_ms = 200\n[gpio]\nbackend = \"none\"\n\
         [speaker]\nenabled = false\n[rules]\nmin_cycle_ms = 0\n\
         [web]\nlisten = \"127.0.0.1:{http}\"\njudge_pin_hash = {pin_hash:?}\n"
    );
    std::fs::write(&config, text).expect("the config is written");
    // On the card for good, as a technician's config is long before a
    // fault (a test may fail the card right after).
    std::fs::File::open(&config)
        .and_then(|f| f.sync_all())
        .expect("the config is synced");
    config
}

/// Waits for the daemon to listen on `http`.
pub fn wait_listening(http: u16) {
    eventually(&format!("a listener on port {http}"), || {
        std::net::TcpStream::connect(("127.0.0.1", http))
    });
}

/// The pinsetter's lines for a game written in the sheet's notation, its
/// sequence numbers from `first_seq` on: the deck set, then after each ball
/// what stands and the deck set for the next one.
pub fn pinsetter_lines(notation: &str, first_seq: u8) -> Vec<String> {
    use lanecall::lane::PinSet;
    use lanecall::lane::scoring::{from_notation, next_position};
    use lanecall::pinsetter::{Body, Message, format_line};
    let mut seq = first_seq;
    let mut line = |body| {
        let l = format_line(&Message { seq, body });
        seq = seq.wrapping_add(1);
        l
    };
    let mut lines = vec![line(Body::Ready(PinSet::FULL))];
    let balls = from_notation(notation).expect("a game in the sheet's notation");
    for (i, ball) in balls.iter().enumerate() {
        lines.push(line(Body::Pins(ball.standing)));
        let next = next_position(&balls[..=i], true);
        lines.push(line(Body::Ready(next.map_or(PinSet::FULL, |p| p.before))));
    }
    lines
}

/// `lanecall run` on a config of [`write_config`], with the API to drive
/// it as a judge. Killed when dropped.
pub struct Daemon {
    pub child: std::process::Child,
    pub http: http::Http,
    cookie: Option<String>,
    log: std::path::PathBuf,
}

impl Daemon {
    /// Starts the daemon and waits until it listens on `http`.
    pub fn start(config: &std::path::Path, http: u16) -> Daemon {
        Daemon::start_with_env(config, http, &[])
    }

    /// [`Daemon::start`] with more variables in its environment.
    pub fn start_with_env(config: &std::path::Path, http: u16, env: &[(&str, &str)]) -> Daemon {
        // The log goes beside the config, and is shown if it never listens.
        let log_path = config.with_extension("log");
        let log = std::fs::File::create(&log_path).expect("a log file");
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_lanecall"))
            .args(["run", "--config"])
            .arg(config)
            .envs(env.iter().copied())
            .env("RUST_LOG", "warn")
            .stdout(std::process::Stdio::null())
            .stderr(log)
            .spawn()
            .expect("lanecall runs");
        let mut daemon = Daemon {
            child,
            http: http::Http::new(http),
            cookie: None,
            log: log_path,
        };
        // Killed when dropped, also when it never listens.
        eventually("the daemon to listen", || {
            if let Ok(Some(status)) = daemon.child.try_wait() {
                panic!(
                    "the daemon ended ({status}) before it listened:\n{}",
                    daemon.said()
                );
            }
            std::net::TcpStream::connect(("127.0.0.1", http))
                .map_err(|e| format!("{e}; {}", daemon.said()))
        });
        daemon
    }

    /// Logs in as a judge with `pin`.
    pub fn login(&mut self, pin: &str) {
        let body = serde_json::json!({"pin": pin, "name": "Judge Orlova"}).to_string();
        let r = self
            .http
            .request(
                "POST",
                "/api/login",
                &[("Content-Type", "application/json")],
                body.as_bytes(),
            )
            .unwrap_or_else(|e| panic!("the login is not answered: {e}\n{}", self.said()));
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
        let cookie = r.header("set-cookie").expect("a session cookie");
        self.cookie = Some(cookie.split(';').next().unwrap_or("").to_owned());
    }

    /// Whether the daemon still runs, and its log: what a failed test shows.
    pub fn said(&mut self) -> String {
        let state = match self.child.try_wait() {
            Ok(Some(status)) => format!("the daemon ended: {status}"),
            _ => "the daemon runs".to_owned(),
        };
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        format!("{state}; its log:\n{log}")
    }

    /// Posts a panel action; returns the status and the body.
    pub fn action(&mut self, action: serde_json::Value) -> (u16, String) {
        let cookie = self.cookie.clone().expect("logged in");
        let body = action.to_string();
        let r = self
            .http
            .request(
                "POST",
                "/api/actions",
                &[("Content-Type", "application/json"), ("Cookie", &cookie)],
                body.as_bytes(),
            )
            .expect("the action is answered");
        (r.status, String::from_utf8_lossy(&r.body).into_owned())
    }

    /// `GET /api/lane`.
    pub fn lane(&mut self) -> serde_json::Value {
        let r = self
            .http
            .request("GET", "/api/lane", &[], b"")
            .expect("the lane is answered");
        assert_eq!(r.status, 200);
        serde_json::from_slice(&r.body).expect("the lane is JSON")
    }

    /// Polls `/api/lane` until `cond` holds; returns it.
    pub fn wait_lane(
        &mut self,
        what: &str,
        cond: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        eventually(&format!("the lane to show {what}"), || {
            let lane = self.lane();
            if cond(&lane) {
                Ok(lane)
            } else {
                Err(format!("its journal: {}", lane["journal"]))
            }
        })
    }

    /// Stops the daemon as systemd does (SIGTERM) and waits for it.
    pub fn stop(mut self) -> std::process::ExitStatus {
        terminate(&mut self.child)
    }
}

/// Stops `child` as systemd does (SIGTERM) and waits for it to end.
pub fn terminate(child: &mut std::process::Child) -> std::process::ExitStatus {
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    child.wait().expect("the process ends")
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Lets this process hold more than a thousand sockets.
pub fn raise_file_limit(needed: u64) {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    if limit.current.is_none_or(|n| n >= needed) {
        return;
    }
    let raised = Rlimit {
        current: limit.maximum.map(|m| m.min(needed.max(4096))),
        maximum: limit.maximum,
    };
    setrlimit(Resource::Nofile, raised).expect("the file limit can be raised");
    let now = getrlimit(Resource::Nofile).current;
    assert!(
        now.is_none_or(|n| n >= needed),
        "this test needs {needed} open files; the hard limit is {:?}",
        limit.maximum
    );
}

/// Waits for the server to close `c` (end of file or reset): whether it
/// did within `limit`.
pub fn closed_within(c: &mut std::net::TcpStream, limit: std::time::Duration) -> bool {
    use std::io::Read;
    let end = std::time::Instant::now() + limit;
    let mut buf = [0; 16];
    while std::time::Instant::now() < end {
        c.set_read_timeout(Some(std::time::Duration::from_millis(200)))
            .unwrap();
        match c.read(&mut buf) {
            Ok(0) => return true,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return true,
            Ok(_) | Err(_) => {}
        }
    }
    false
}

/// An argon2id hash of `password` at the least cost, so that the tests'
/// logins verify quickly in a debug build (the broker takes a hash's own
/// cost).
pub fn cheap_hash(password: &str) -> String {
    use argon2::{Algorithm, Argon2, Params, PasswordHasher, Version};
    let params = Params::new(8, 1, 1, None).unwrap();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
        .hash_password(password.as_bytes())
        .unwrap()
        .to_string()
}

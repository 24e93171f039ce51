//! Fixtures shared by the tests and benchmarks that run the real daemon.

// Each test or benchmark that includes this uses only some of it.
#![allow(dead_code)]

pub mod http;

use lanecall::journal::{Header, Writer};
use lanecall::lane::{Action, Bowler, Class, Event, Panel, Rules, Stamped};
use lanecall::store::{rfc3339, unix_now};

/// A journal as the daemon finds it when it starts: today's header, one B2
/// bowler in the lane order, and a block of `games` started. The daemon
/// goes on in it instead of starting a new one.
pub fn journal_with_open_block(lane: u32, games: u32) -> String {
    let header = Header::new(lane, Some(rfc3339(unix_now())), Rules::default());
    let bowlers = vec![Bowler {
        name: "Ivan Petrov".into(),
        class: Class::B2,
        handicap: 0,
        team: None,
        voice: Default::default(),
    }];
    journal_of(
        &header,
        &[
            (0, Action::Lineup { bowlers }),
            (1, Action::StartBlock { games }),
        ]
        .map(|(t, action)| Stamped {
            t,
            event: Event::Panel(Panel {
                by: Some("Judge Orlova".into()),
                action,
            }),
        }),
    )
}

/// A journal in the format the daemon writes: `header` and `events`.
pub fn journal_of(header: &Header, events: &[Stamped<Event>]) -> String {
    let mut w = Writer::create(Vec::new(), header).expect("a journal in memory");
    for e in events {
        w.write(e).expect("a journal in memory");
    }
    String::from_utf8(w.into_inner()).expect("a journal is UTF-8")
}

/// A port nobody listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A config for `lanecall run` on this machine: no GPIO, no speaker, the
/// pinsetter on `port` (a pseudo-terminal), the API on `http`. Written to
/// `dir/lanecall.toml`, whose path it returns.
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
         [speaker]\nenabled = false\n[web]\nlisten = \"127.0.0.1:{http}\"\njudge_pin_hash = {pin_hash:?}\n"
    );
    std::fs::write(&config, text).expect("the config is written");
    config
}

/// Waits up to 10 s for the daemon to listen on `http`.
pub fn wait_listening(http: u16) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", http)).is_err() {
        assert!(
            std::time::Instant::now() < until,
            "the daemon did not listen"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

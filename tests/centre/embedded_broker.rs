//! The centre's embedded broker, started through `broker::start` on free
//! ports, against rumqttc clients: logins, client ids bound to them, the
//! access rules, rumqttd behind the front, the `passwords` file, and a
//! flood of connections that never log in.

use crate::support;

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use lanecall::centre::broker::{self, BrokerSettings, Started};
use rumqttc::{Client, ConnectReturnCode, ConnectionError, Event, MqttOptions, Packet, QoS};

const SITE: &str = "t";
/// Long enough for anything this test waits for on a loaded machine.
const PATIENCE: Duration = Duration::from_secs(30);

fn temp(name: &str) -> crate::support::Scratch {
    crate::support::Scratch::new(&format!("broker-{name}"))
}

fn topic(lane: u32, what: &str) -> String {
    format!("lanecall/{SITE}/lane/{lane}/{what}")
}

/// Writes `text` as a passwords file of `mode` in `dir`.
fn passwords(dir: &Path, text: &str, mode: u32) -> PathBuf {
    let path = dir.join("passwords");
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path
}

/// The broker on a free port with `passwords`; its port and what it says.
fn start(passwords: Option<PathBuf>) -> Result<(u16, Started), String> {
    start_alarmed(passwords, Box::new(|_| {}))
}

/// [`start`], its alarms told to `on_alarm`.
fn start_alarmed(
    passwords: Option<PathBuf>,
    on_alarm: Box<dyn Fn(broker::Alarm) + Send + Sync>,
) -> Result<(u16, Started), String> {
    let port = support::free_port();
    let started = broker::start(
        BrokerSettings {
            listen: format!("127.0.0.1:{port}").parse().unwrap(),
            passwords,
            allow_anonymous: false,
            site: SITE.into(),
            centre_user: "centre".into(),
        },
        on_alarm,
    )?;
    Ok((port, started))
}

/// The broker with lanes 1 and 2, their passwords `one` and `two`.
fn two_lanes(name: &str) -> (u16, Started) {
    let dir = temp(name);
    let text = format!(
        "lane1:{}\nlane2:{}\n",
        support::cheap_hash("one"),
        support::cheap_hash("two")
    );
    start(Some(passwords(&dir, &text, 0o600))).unwrap()
}

/// What a client's connection did.
#[derive(Debug, PartialEq)]
enum Ev {
    Connected,
    Refused(ConnectReturnCode),
    Subscribed,
    Message(String, Vec<u8>),
    /// The connection ended (the client does not connect again).
    Lost(String),
}

/// A client of the broker on `port`, its events as they come.
fn client(port: u16, id: &str, login: Option<(&str, &str)>) -> (Client, Receiver<Ev>) {
    client_as(port, id, login, true)
}

/// [`client`], with a persistent session unless `clean`.
fn client_as(
    port: u16,
    id: &str,
    login: Option<(&str, &str)>,
    clean: bool,
) -> (Client, Receiver<Ev>) {
    let mut options = MqttOptions::new(id, "127.0.0.1", port);
    options
        .set_keep_alive(Duration::from_secs(5))
        .set_clean_session(clean);
    if let Some((user, password)) = login {
        options.set_credentials(user, password);
    }
    let (client, mut connection) = Client::new(options, 64);
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for ev in connection.iter() {
            let ev = match ev {
                Ok(Event::Incoming(Packet::ConnAck(_))) => Ev::Connected,
                Ok(Event::Incoming(Packet::SubAck(_))) => Ev::Subscribed,
                Ok(Event::Incoming(Packet::Publish(p))) => Ev::Message(p.topic, p.payload.to_vec()),
                Ok(_) => continue,
                Err(ConnectionError::ConnectionRefused(code)) => Ev::Refused(code),
                Err(e) => Ev::Lost(e.to_string()),
            };
            let end = matches!(ev, Ev::Refused(_) | Ev::Lost(_));
            if tx.send(ev).is_err() || end {
                return;
            }
        }
    });
    (client, rx)
}

/// Waits for the event `want` says, keeping the messages seen on the way
/// in `seen`; fails on a lost connection unless that is what is wanted.
fn wait(rx: &Receiver<Ev>, what: &str, seen: &mut Vec<Ev>, want: impl Fn(&Ev) -> bool) -> Ev {
    wait_within(PATIENCE, rx, what, seen, want)
}

/// [`wait`], failing after `limit`.
fn wait_within(
    limit: Duration,
    rx: &Receiver<Ev>,
    what: &str,
    seen: &mut Vec<Ev>,
    want: impl Fn(&Ev) -> bool,
) -> Ev {
    let end = Instant::now() + limit;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        let ev = rx
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("never {what}; saw {seen:?}"));
        if want(&ev) {
            return ev;
        }
        assert!(
            !matches!(ev, Ev::Lost(_) | Ev::Refused(_)),
            "{what}: {ev:?}"
        );
        seen.push(ev);
    }
}

fn connected(rx: &Receiver<Ev>, who: &str) {
    wait(rx, &format!("{who} connected"), &mut Vec::new(), |e| {
        *e == Ev::Connected
    });
}

fn lost(rx: &Receiver<Ev>, who: &str) -> Ev {
    wait(rx, &format!("{who} cut off"), &mut Vec::new(), |e| {
        matches!(e, Ev::Lost(_) | Ev::Refused(_))
    })
}

fn stat(started: &Started, name: &str) -> u64 {
    let all = started.stats.snapshot();
    all.iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no {name} in {all:?}"))
        .1
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_wrong_password_and_a_client_without_a_login_are_refused() {
    let (port, started) = two_lanes("refused");
    let (_c, rx) = client(port, "guess", Some(("lane1", "two")));
    assert_eq!(
        lost(&rx, "a wrong password"),
        Ev::Refused(ConnectReturnCode::BadUserNamePassword)
    );
    let (_c, rx) = client(port, "nobody", Some(("lane3", "one")));
    assert_eq!(
        lost(&rx, "an unknown login"),
        Ev::Refused(ConnectReturnCode::BadUserNamePassword)
    );
    let (_c, rx) = client(port, "anonymous", None);
    assert_eq!(
        lost(&rx, "no login"),
        Ev::Refused(ConnectReturnCode::NotAuthorized)
    );
    assert_eq!(stat(&started, "bad_logins"), 2);
    assert_eq!(stat(&started, "anonymous_refused"), 1);
    assert_eq!(started.lanes, [1, 2]);
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_lane_publishing_for_another_lane_or_a_command_is_cut_off_and_nobody_gets_it() {
    let (port, started) = two_lanes("publish");
    let (centre, centre_rx) = client(port, "centre", Some(("centre", &started.centre_password)));
    connected(&centre_rx, "the centre");
    centre
        .subscribe(format!("lanecall/{SITE}/lane/+/journal"), QoS::AtLeastOnce)
        .unwrap();
    let (lane1, lane1_rx) = client(port, "lane1", Some(("lane1", "one")));
    connected(&lane1_rx, "lane 1");
    lane1
        .subscribe(topic(1, "command"), QoS::AtLeastOnce)
        .unwrap();
    let mut centre_got = Vec::new();
    let mut lane1_got = Vec::new();
    wait(&centre_rx, "the centre subscribed", &mut centre_got, |e| {
        *e == Ev::Subscribed
    });
    wait(&lane1_rx, "lane 1 subscribed", &mut lane1_got, |e| {
        *e == Ev::Subscribed
    });

    // Lane 2's login on lane 1's journal, then on lane 1's commands.
    for what in ["journal", "command"] {
        let (lane2, rx) = client(port, "lane2", Some(("lane2", "two")));
        connected(&rx, "lane 2");
        lane2
            .publish(topic(1, what), QoS::AtLeastOnce, false, "forged")
            .unwrap();
        lost(&rx, &format!("lane 2 publishing lane 1's {what}"));
    }
    assert_eq!(stat(&started, "publish_denied"), 2);

    // Each may use its own topics; what they send after the forged ones
    // arrives, and the forged ones never did.
    lane1
        .publish(topic(1, "journal"), QoS::AtLeastOnce, false, "real line")
        .unwrap();
    centre
        .publish(topic(1, "command"), QoS::AtLeastOnce, false, "real command")
        .unwrap();
    let line = Ev::Message(topic(1, "journal"), b"real line".to_vec());
    wait(
        &centre_rx,
        "lane 1's line at the centre",
        &mut centre_got,
        |e| *e == line,
    );
    let command = Ev::Message(topic(1, "command"), b"real command".to_vec());
    wait(
        &lane1_rx,
        "the centre's command at lane 1",
        &mut lane1_got,
        |e| *e == command,
    );
    for got in centre_got.iter().chain(&lane1_got) {
        assert!(
            !matches!(got, Ev::Message(_, p) if p == b"forged"),
            "{got:?}"
        );
    }
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_lane_subscribing_to_another_lanes_commands_or_to_everything_is_cut_off() {
    let (port, started) = two_lanes("subscribe");
    for filter in [topic(1, "command"), "#".to_owned()] {
        let (lane2, rx) = client(port, "lane2", Some(("lane2", "two")));
        connected(&rx, "lane 2");
        lane2.subscribe(&filter, QoS::AtLeastOnce).unwrap();
        lost(&rx, &format!("lane 2 subscribing to {filter}"));
    }
    assert_eq!(stat(&started, "subscribe_denied"), 2);
    // Its own commands and its neighbours' states: taken.
    let (lane2, rx) = client(port, "lane2", Some(("lane2", "two")));
    connected(&rx, "lane 2");
    lane2
        .subscribe(topic(2, "command"), QoS::AtLeastOnce)
        .unwrap();
    lane2
        .subscribe(format!("lanecall/{SITE}/lane/+/state"), QoS::AtLeastOnce)
        .unwrap();
    let mut seen = Vec::new();
    for _ in 0..2 {
        wait(&rx, "lane 2 subscribed", &mut seen, |e| {
            *e == Ev::Subscribed
        });
    }
    assert_eq!(stat(&started, "subscribe_denied"), 2);
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn rumqttd_behind_the_front_takes_no_client_directly() {
    let (_, started) = two_lanes("inner");
    let port = started.inner.port();
    for (user, password) in [
        ("lane1", "one"),
        ("centre", started.centre_password.as_str()),
    ] {
        let (_c, rx) = client(port, user, Some((user, password)));
        let ev = lost(&rx, &format!("{user} straight to rumqttd"));
        assert!(matches!(ev, Ev::Lost(_) | Ev::Refused(_)), "{ev:?}");
    }
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn the_passwords_file_is_hashed_in_place_keeping_its_mode_and_one_everyone_reads_is_refused() {
    let dir = temp("hash");
    let path = passwords(&dir, "# lanes\nlane1:plain-secret\n", 0o600);
    let (port, _started) = start(Some(path.clone())).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("# lanes\nlane1:$argon2id$"), "{text}");
    assert!(!text.contains("plain-secret"), "{text}");
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let (_c, rx) = client(port, "lane1", Some(("lane1", "plain-secret")));
    connected(&rx, "lane 1 with the password that was in plain text");

    let path = passwords(&dir, "lane1:plain-secret\n", 0o644);
    let e = start(Some(path.clone())).err().expect("refused");
    assert!(e.contains(&format!("chmod 640 {}", path.display())), "{e}");
    assert!(!e.contains("plain-secret"), "{e}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "lane1:plain-secret\n",
        "left as it was"
    );
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_flood_of_connections_that_never_log_in_keeps_no_lane_out_and_each_is_closed() {
    // The flood's sockets at both ends, and the rest.
    support::raise_file_limit(4096);
    let (port, started) = two_lanes("flood");
    let addr: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let (stop, stopped) = channel::<()>();
    let (past, passed) = channel::<()>();
    // ~200 connects a second that send nothing, each kept 4 s, for at
    // most 12 s or 2400 connects. Past 1100, more than the 1024 slots
    // would be taken had each been held until rumqttd's own 10 s.
    let flood = std::thread::spawn(move || {
        let start = Instant::now();
        let mut held = std::collections::VecDeque::new();
        for i in 0..2400u32 {
            if stopped.try_recv().is_ok() {
                break;
            }
            if i == 1100 {
                let _ = past.send(());
            }
            let next = start + Duration::from_millis(5) * i;
            // Pacing the flood of connects: one every 5 ms.
            std::thread::sleep(next.saturating_duration_since(Instant::now()));
            if let Ok(c) = std::net::TcpStream::connect(addr) {
                held.push_back((Instant::now(), c));
            }
            while held
                .front()
                .is_some_and(|(t, _)| t.elapsed() > Duration::from_secs(4))
            {
                held.pop_front();
            }
        }
    });
    passed.recv_timeout(PATIENCE).expect("1100 connects made");
    let (_lane, rx) = client(port, "lane1", Some(("lane1", "one")));
    wait_within(
        Duration::from_secs(5),
        &rx,
        "lane 1's CONNACK within 5 s of the flood",
        &mut Vec::new(),
        |e| *e == Ev::Connected,
    );
    let mut idle = std::net::TcpStream::connect(addr).unwrap();
    let closed = support::closed_within(&mut idle, Duration::from_secs(8));
    let _ = stop.send(());
    flood.join().unwrap();
    assert!(
        closed,
        "a connection that never logs in is still open after 8 s"
    );
    assert!(stat(&started, "login_timeouts") > 0);
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn another_logins_client_id_is_refused_and_alarmed_and_the_centre_and_lane_1_keep_theirs() {
    let dir = temp("takeover");
    let text = format!(
        "lane1:{}\nlane2:{}\ntv:{}\n",
        support::cheap_hash("one"),
        support::cheap_hash("two"),
        support::cheap_hash("three")
    );
    let (alarms, alarmed) = channel();
    let alarms = std::sync::Mutex::new(alarms);
    let on_alarm = Box::new(move |a| {
        let _ = alarms.lock().unwrap().send(a);
    });
    let (port, started) = start_alarmed(Some(passwords(&dir, &text, 0o600)), on_alarm).unwrap();
    // The centre with the id its link used before it used its login's
    // name, and a persistent session; lane 1 with its login's name.
    let centre_id = format!("lanecall-centre-{SITE}");
    let login = ("centre", started.centre_password.as_str());
    let (centre, centre_rx) = client_as(port, &centre_id, Some(login), false);
    connected(&centre_rx, "the centre");
    centre
        .subscribe(format!("lanecall/{SITE}/lane/+/journal"), QoS::AtLeastOnce)
        .unwrap();
    let (lane1, lane1_rx) = client(port, "lane1", Some(("lane1", "one")));
    connected(&lane1_rx, "lane 1");
    lane1
        .subscribe(topic(1, "command"), QoS::AtLeastOnce)
        .unwrap();
    let (mut centre_got, mut lane1_got) = (Vec::new(), Vec::new());
    wait(&centre_rx, "the centre subscribed", &mut centre_got, |e| {
        *e == Ev::Subscribed
    });
    wait(&lane1_rx, "lane 1 subscribed", &mut lane1_got, |e| {
        *e == Ev::Subscribed
    });

    // A lane's login and a reader's, each with the centre's ids and lane
    // 1's, keeping the session: refused at the CONNECT, each an alarm
    // naming the login.
    use broker::acl::Whose;
    let ids = [
        (centre_id.clone(), Whose::Centre),
        ("centre".to_owned(), Whose::Centre),
        (format!("lanecall-{SITE}-lane-1"), Whose::Lane(1)),
        ("lane1".to_owned(), Whose::Lane(1)),
    ];
    for (user, password) in [("lane2", "two"), ("tv", "three")] {
        for (id, whose) in &ids {
            let (_c, rx) = client_as(port, id, Some((user, password)), false);
            assert_eq!(
                lost(&rx, &format!("{user} as {id}")),
                Ev::Refused(ConnectReturnCode::BadClientId),
                "{user} as {id}"
            );
            let alarm = alarmed.recv_timeout(PATIENCE).expect("an alarm");
            assert_eq!(
                alarm,
                broker::Alarm::Takeover {
                    login: Some(user.to_owned()),
                    client_id: id.clone(),
                    whose: whose.clone(),
                }
            );
            assert_eq!(alarm.kind(), "takeover");
            assert!(
                alarm.detail().contains(&format!("the login {user} ")),
                "{}",
                alarm.detail()
            );
        }
    }
    // An id of its own making: refused, no alarm.
    let (_c, rx) = client(port, "tv-screen-2", Some(("tv", "three")));
    assert_eq!(
        lost(&rx, "tv as tv-screen-2"),
        Ev::Refused(ConnectReturnCode::BadClientId)
    );
    assert_eq!(stat(&started, "takeovers_refused"), 8);
    assert_eq!(stat(&started, "client_id_refused"), 9);
    // The centre and lane 1 were never cut off (`wait` fails on a lost
    // connection): lane 1's line reaches the centre, the centre's command
    // reaches lane 1.
    lane1
        .publish(topic(1, "journal"), QoS::AtLeastOnce, false, "after")
        .unwrap();
    centre
        .publish(topic(1, "command"), QoS::AtLeastOnce, false, "command")
        .unwrap();
    let line = Ev::Message(topic(1, "journal"), b"after".to_vec());
    wait(
        &centre_rx,
        "lane 1's line at the centre",
        &mut centre_got,
        |e| *e == line,
    );
    let command = Ev::Message(topic(1, "command"), b"command".to_vec());
    wait(&lane1_rx, "the command at lane 1", &mut lane1_got, |e| {
        *e == command
    });
    assert!(alarmed.try_recv().is_err(), "no other alarm");
    // A reader with its own name is let in.
    let (_c, rx) = client(port, "tv", Some(("tv", "three")));
    connected(&rx, "tv as tv");
}

/// A real `lanecall centre` on its embedded broker, a lane logging in and
/// leaving cleanly (DISCONNECT), then the centre stopped as systemd stops
/// it (SIGTERM): its log has no ERROR line (rumqttd logged each clean
/// DISCONNECT, the centre's own at every stop, as one).
#[test]
fn a_clean_stop_of_the_centre_logs_no_error() {
    let dir = temp("clean-stop");
    let passwords = support::centre::write_logins(&dir, [1]);
    let (web, mqtt) = (support::free_port(), support::free_port());
    let config = dir.join("centre.toml");
    std::fs::write(
        &config,
        format!(
            "site = \"{SITE}\"\nstate_dir = {:?}\nembedded_listen = \"127.0.0.1:{mqtt}\"\n\
             passwords = {passwords:?}\n[web]\nlisten = \"127.0.0.1:{web}\"\n\
             judge_pin_hash = {:?}\n",
            dir.join("state"),
            lanecall::web::hash_pin("482913").unwrap()
        ),
    )
    .unwrap();
    let mut centre = support::centre::Centre::start(&config, web);
    centre.wait_connected();
    // Lane 1 comes online, then says it goes offline and leaves cleanly.
    let lane_secret = support::centre::lane_secret(1);
    let (lane, rx) = client(mqtt, "lane1", Some(("lane1", lane_secret.as_str())));
    connected(&rx, "lane 1");
    lane.publish(topic(1, "status"), QoS::AtLeastOnce, true, "online")
        .unwrap();
    centre.wait_lane(1, "online", |l| l["online"] == true);
    lane.publish(topic(1, "status"), QoS::AtLeastOnce, true, "offline")
        .unwrap();
    lane.disconnect().unwrap();
    centre.wait_lane(1, "offline", |l| l["online"] == false);
    centre.stop();
    let log = std::fs::read_to_string(dir.join("centre.log")).unwrap();
    assert!(log.contains("embedded MQTT broker listening"), "{log}");
    let errors: Vec<&str> = log.lines().filter(|l| l.contains(" ERROR ")).collect();
    assert!(
        errors.is_empty(),
        "ERROR lines at a clean stop: {errors:#?}\n{log}"
    );
}

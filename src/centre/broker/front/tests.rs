//! The relay's own tests, against a stand-in for rumqttd.
use super::*;
use std::io::{Read, Write};

const SITE: &str = "t";
const CENTRE_PASSWORD: &str = "made-at-start";

/// A stand-in for rumqttd that sends each client a byte every 100 ms,
/// as a broker does with the messages it has for a lane, and hands
/// over the first bytes each client sent.
fn chatty_broker() -> (SocketAddr, std::sync::mpsc::Receiver<Vec<u8>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for mut c in listener.incoming().flatten() {
            let tx = tx.clone();
            std::thread::spawn(move || {
                let mut first = [0; 512];
                c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                if let Ok(n) = c.read(&mut first) {
                    let _ = tx.send(first[..n].to_vec());
                }
                while c.write_all(b"x").is_ok() {
                    std::thread::sleep(Duration::from_millis(100));
                }
            });
        }
    });
    (addr, rx)
}

/// A front on a free port before `inner`, `max` connections at once,
/// `login_time` to send a CONNECT; the centre's login is the only one.
fn front(inner: SocketAddr, max: usize, login_time: Duration) -> (SocketAddr, Arc<FrontStats>) {
    let logins = Logins::new(Vec::new(), "centre", CENTRE_PASSWORD);
    front_with(inner, max, login_time, CHECK_TIME, logins)
}

/// [`front`] with `logins` and `check_time` for a password check.
fn front_with(
    inner: SocketAddr,
    max: usize,
    login_time: Duration,
    check_time: Duration,
    logins: Logins,
) -> (SocketAddr, Arc<FrontStats>) {
    front_alarmed(inner, max, login_time, check_time, logins, Box::new(|_| {}))
}

/// [`front_with`], its alarms told to `on_alarm`.
fn front_alarmed(
    inner: SocketAddr,
    max: usize,
    login_time: Duration,
    check_time: Duration,
    logins: Logins,
    on_alarm: Box<dyn Fn(Alarm) + Send + Sync>,
) -> (SocketAddr, Arc<FrontStats>) {
    let outer = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = outer.local_addr().unwrap();
    let stats = Arc::new(FrontStats::default());
    let settings = Settings {
        inner,
        max,
        login_time,
        check_time,
        site: SITE.into(),
        centre_user: "centre".into(),
        allow_anonymous: false,
        logins: Arc::new(logins),
        secrets: HashMap::from([("centre".to_owned(), "inner-secret".to_owned())]),
        on_alarm,
        backlog: Arc::default(),
    };
    start(outer, settings, Arc::clone(&stats)).unwrap();
    (addr, stats)
}

/// The centre's CONNECT with `keep_alive` and `password`.
fn connect(keep_alive: u16, password: &str) -> Vec<u8> {
    connect_as("centre", keep_alive, password)
}

/// [`connect`] with the client id `id`.
fn connect_as(id: &str, keep_alive: u16, password: &str) -> Vec<u8> {
    let mut c = Connect::new(id);
    c.keep_alive = keep_alive;
    c.set_login("centre", password);
    c.last_will = Some(rumqttc::LastWill::new(
        format!("lanecall/{SITE}/centre/status"),
        "offline",
        rumqttc::QoS::AtLeastOnce,
        true,
    ));
    let mut b = BytesMut::new();
    Packet::Connect(c).write(&mut b, usize::MAX).unwrap();
    b.to_vec()
}

/// Reads until the connection ends: true if it did within `limit`.
fn ends(c: &mut std::net::TcpStream, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    c.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut buf = [0; 64];
    while Instant::now() < until {
        match c.read(&mut buf) {
            Ok(0) => return true,
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset => return true,
            Ok(_) | Err(_) => {}
        }
    }
    false
}

/// A client logged in through the front: the broker's first byte came.
fn logged_in(front: SocketAddr, keep_alive: u16) -> std::net::TcpStream {
    let mut c = std::net::TcpStream::connect(front).unwrap();
    c.write_all(&connect(keep_alive, CENTRE_PASSWORD)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut x = [0; 1];
    c.read_exact(&mut x).expect("relayed to the broker");
    c
}

fn stat(stats: &FrontStats, name: &str) -> u64 {
    stats
        .snapshot()
        .into_iter()
        .find(|(n, _)| *n == name)
        .unwrap()
        .1
}

#[test]
fn a_client_silent_past_its_keep_alive_is_cut_off_while_the_broker_talks_and_the_rest_refused() {
    let (broker, _) = chatty_broker();
    let (front, stats) = front(broker, 2, LOGIN_TIME);
    // Keep-alive 1 s, then nothing: cut off (after 1.5 s), though the
    // broker keeps sending to it.
    let mut silent = logged_in(front, 1);
    // No keep-alive (0): never cut off for silence.
    let mut patient = logged_in(front, 0);
    // Both slots logged in: the third is refused.
    let mut third = std::net::TcpStream::connect(front).unwrap();
    assert!(
        ends(&mut third, Duration::from_secs(20)),
        "the third is refused"
    );
    assert!(
        ends(&mut silent, Duration::from_secs(20)),
        "the silent one is cut off"
    );
    assert!(
        !ends(&mut patient, Duration::from_secs(3)),
        "the patient one stays"
    );
    assert_eq!(stat(&stats, "refused_when_full"), 1);
}

#[test]
fn the_broker_gets_the_connect_with_the_internal_secret_and_a_bad_password_a_connack_4() {
    let (broker, first) = chatty_broker();
    let (front, stats) = front(broker, 4, LOGIN_TIME);
    let _c = logged_in(front, 5);
    let got = first.recv_timeout(Duration::from_secs(20)).unwrap();
    let Packet::Connect(c) = Packet::read(&mut BytesMut::from(&got[..]), 1 << 16).unwrap() else {
        panic!("not a CONNECT: {got:?}");
    };
    assert_eq!(c.login, Some(Login::new("centre", "inner-secret")));
    assert_eq!(c.keep_alive, 5);
    assert_eq!(
        c.last_will.map(|w| w.topic),
        Some(format!("lanecall/{SITE}/centre/status"))
    );
    // A wrong password: CONNACK "bad username or password", closed,
    // and nothing reaches the broker.
    let mut bad = std::net::TcpStream::connect(front).unwrap();
    bad.write_all(&connect(5, "guess")).unwrap();
    bad.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut ack = Vec::new();
    bad.read_to_end(&mut ack).unwrap();
    assert_eq!(ack, [0x20, 2, 0, 4]);
    assert_eq!(stat(&stats, "bad_logins"), 1);
    assert!(first.try_recv().is_err());
}

#[test]
fn a_password_check_not_done_in_time_is_server_unavailable_not_a_wrong_password() {
    let (broker, first) = chatty_broker();
    let hash = crate::web::auth::hash_secret(b"secret-3").unwrap();
    let logins = Logins::new(vec![("lane3".into(), hash)], "centre", CENTRE_PASSWORD);
    // No time at all: the argon2 check, on a blocking thread, cannot be
    // done when the front first looks.
    let (front, stats) = front_with(broker, 4, LOGIN_TIME, Duration::ZERO, logins);
    let mut c = Connect::new("lane3");
    c.set_login("lane3", "secret-3");
    let mut b = BytesMut::new();
    Packet::Connect(c).write(&mut b, usize::MAX).unwrap();
    let mut lane = std::net::TcpStream::connect(front).unwrap();
    lane.write_all(&b).unwrap();
    lane.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut ack = Vec::new();
    lane.read_to_end(&mut ack).unwrap();
    // CONNACK 3: "server unavailable", come back later.
    assert_eq!(ack, [0x20, 2, 0, 3]);
    assert_eq!(stat(&stats, "login_timeouts"), 1);
    assert_eq!(stat(&stats, "bad_logins"), 0);
    assert!(first.try_recv().is_err());
}

#[test]
fn when_full_the_oldest_not_logged_in_makes_room_never_a_logged_in_one() {
    let (broker, _) = chatty_broker();
    // Time enough to log in that only making room closes one here.
    let (front, stats) = front(broker, 3, Duration::from_secs(600));
    let mut lane = logged_in(front, 0);
    let mut idle = std::net::TcpStream::connect(front).unwrap();
    let mut idle2 = std::net::TcpStream::connect(front).unwrap();
    // Full: the oldest idle one goes for this one, then the next.
    let _newer = std::net::TcpStream::connect(front).unwrap();
    assert!(
        ends(&mut idle, Duration::from_secs(20)),
        "the oldest idle one"
    );
    let mut newest = std::net::TcpStream::connect(front).unwrap();
    assert!(ends(&mut idle2, Duration::from_secs(20)), "the next");
    // A login still gets in, in the place of `newer`.
    let _again = logged_in(front, 0);
    assert_eq!(stat(&stats, "evicted_before_login"), 3);
    // Two logged in, one waiting: the waiting one goes, again.
    let _last = std::net::TcpStream::connect(front).unwrap();
    assert!(
        ends(&mut newest, Duration::from_secs(20)),
        "the waiting one"
    );
    assert!(
        !ends(&mut lane, Duration::from_millis(500)),
        "the logged-in one stays"
    );
    assert_eq!(stat(&stats, "evicted_before_login"), 4);
    assert_eq!(stat(&stats, "refused_when_full"), 0);
    assert_eq!(stat(&stats, "login_timeouts"), 0);
}

#[test]
fn a_login_is_kept_under_its_own_name_and_anothers_id_is_refused_and_alarmed() {
    let (broker, first) = chatty_broker();
    let hash = crate::web::auth::hash_secret(b"secret-1").unwrap();
    let logins = Logins::new(vec![("lane1".into(), hash)], "centre", CENTRE_PASSWORD);
    let (alarms, alarmed) = std::sync::mpsc::channel();
    let alarms = Mutex::new(alarms);
    let on_alarm = Box::new(move |a| {
        let _ = alarms.lock().unwrap().send(a);
    });
    let (front, stats) = front_alarmed(broker, 4, LOGIN_TIME, CHECK_TIME, logins, on_alarm);
    // The id the centre's link used before it used its login name: kept
    // at the broker as the login's name.
    let mut centre = std::net::TcpStream::connect(front).unwrap();
    centre
        .write_all(&connect_as(
            &format!("lanecall-centre-{SITE}"),
            5,
            CENTRE_PASSWORD,
        ))
        .unwrap();
    let got = first.recv_timeout(Duration::from_secs(20)).unwrap();
    let Packet::Connect(c) = Packet::read(&mut BytesMut::from(&got[..]), 1 << 16).unwrap() else {
        panic!("not a CONNECT: {got:?}");
    };
    assert_eq!(c.client_id, "centre");
    // The centre's login asking for lane 1's id, then for an id of its
    // own making: CONNACK 2, nothing reaches the broker.
    for (id, takeover) in [("lane1", true), ("centre-2", false)] {
        let mut c = std::net::TcpStream::connect(front).unwrap();
        c.write_all(&connect_as(id, 5, CENTRE_PASSWORD)).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut ack = Vec::new();
        c.read_to_end(&mut ack).unwrap();
        assert_eq!(ack, [0x20, 2, 0, 2], "{id}");
        let alarm = alarmed.try_recv();
        if takeover {
            let alarm = alarm.unwrap();
            assert_eq!(
                alarm,
                Alarm::Takeover {
                    login: Some("centre".into()),
                    client_id: "lane1".into(),
                    whose: acl::Whose::Lane(1),
                }
            );
            assert!(
                alarm.detail().contains("the login centre"),
                "{}",
                alarm.detail()
            );
        } else {
            assert!(alarm.is_err(), "{alarm:?}");
        }
    }
    assert!(first.try_recv().is_err());
    assert_eq!(stat(&stats, "client_id_refused"), 2);
    assert_eq!(stat(&stats, "takeovers_refused"), 1);
}

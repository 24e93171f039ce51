//! `lanecall centre` with real brokers: the embedded one (rumqttd) and
//! Mosquitto. The lanes are MQTT clients here that publish the journals of
//! tests/logs/ as docs/mqtt.md says a lane does, and answer commands.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rumqttc::{Client, Event, LastWill, MqttOptions, Packet, QoS, Transport};
use serde_json::{Value, json};
use support::centre::{Centre, lane_secret, write_logins};
use support::{Gate, eventually, eventually_within, free_port};

const PIN: &str = "246810";
const SITE: &str = "cup";

fn lanecall() -> &'static str {
    env!("CARGO_BIN_EXE_lanecall")
}

fn temp_dir(name: &str) -> crate::support::Scratch {
    crate::support::Scratch::new(&format!("centre-{name}"))
}

/// Writes a centre config; `broker` is `None` for the embedded one on
/// `mqtt`.
fn centre_config(dir: &Path, web: u16, mqtt: u16, broker: Option<&str>, logins: bool) -> PathBuf {
    let hash = lanecall::web::hash_pin(PIN).unwrap();
    let mut text = format!("site = \"{SITE}\"\nstate_dir = {:?}\n", dir.join("state"));
    match broker {
        Some(url) => text += &format!("broker = {url:?}\n"),
        None => text += &format!("embedded_listen = \"127.0.0.1:{mqtt}\"\n"),
    }
    if logins {
        let passwords = write_logins(dir, 1..=20);
        let centre = format!("centre:{}\n", support::cheap_hash("centre-secret"));
        let logins = std::fs::read_to_string(&passwords).unwrap() + &centre;
        std::fs::write(&passwords, logins).unwrap();
        std::fs::write(dir.join("centre-password"), "centre-secret\n").unwrap();
        // Like a lane's, it must not be readable by everyone.
        std::fs::set_permissions(
            dir.join("centre-password"),
            std::os::unix::fs::PermissionsExt::from_mode(0o600),
        )
        .unwrap();
        text += &format!(
            "passwords = {:?}\nusername = \"centre\"\npassword_file = {:?}\n",
            dir.join("passwords"),
            dir.join("centre-password")
        );
    }
    text += &format!("[web]\nlisten = \"127.0.0.1:{web}\"\njudge_pin_hash = {hash:?}\n");
    let path = dir.join("centre.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// A centre with its embedded broker, the lanes' logins and `programme`
/// as its programme file, started and connected.
fn centre_with_programme(dir: &Path, web: u16, mqtt: u16, programme: &str) -> Centre {
    let config = centre_config(dir, web, mqtt, None, true);
    let path = dir.join("programme.toml");
    std::fs::write(&path, programme).unwrap();
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("programme = {path:?}\n{text}")).unwrap();
    let mut centre = Centre::start(&config, web);
    centre.wait_connected();
    centre
}

/// How a test's MQTT client logs in.
#[derive(Clone, Copy)]
enum Login<'a> {
    /// No login (a broker that allows it).
    Anonymous,
    /// Lane `n`'s own: `lane<n>`, as in the centre's `passwords`.
    Own,
    As(&'a str, &'a str),
}

/// A lane's MQTT client: publishes, and hands over the commands it gets.
struct TestLane {
    n: u32,
    client: Client,
    commands: Receiver<Value>,
    connected: Arc<AtomicBool>,
    /// Subscribed to its command topic since it last connected.
    subscribed: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    refused: Arc<Mutex<Option<String>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl TestLane {
    fn connect(n: u32, port: u16, login: Login) -> TestLane {
        TestLane::connect_over(n, port, login, Transport::Tcp)
    }

    fn connect_over(n: u32, port: u16, login: Login, transport: Transport) -> TestLane {
        // A login's client id is its name (docs/mqtt.md, "Client ids").
        let id = match login {
            Login::Anonymous => format!("test-lane-{n}-{}", std::process::id()),
            Login::Own => format!("lane{n}"),
            Login::As(u, _) => u.to_owned(),
        };
        let mut opts = MqttOptions::new(id, "127.0.0.1", port);
        opts.set_transport(transport)
            .set_keep_alive(Duration::from_secs(5))
            .set_max_packet_size(1 << 21, 1 << 21)
            .set_last_will(LastWill::new(
                format!("lanecall/{SITE}/lane/{n}/status"),
                "offline",
                QoS::AtLeastOnce,
                true,
            ));
        match login {
            Login::Anonymous => {}
            Login::Own => {
                opts.set_credentials(format!("lane{n}"), lane_secret(n));
            }
            Login::As(u, p) => {
                opts.set_credentials(u, p);
            }
        }
        let (client, mut connection) = Client::new(opts, 4096);
        let (tx, commands) = channel();
        let connected = Arc::new(AtomicBool::new(false));
        let subscribed = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let refused = Arc::new(Mutex::new(None));
        let thread = {
            let (client, connected, subscribed, stop, refused) = (
                client.clone(),
                connected.clone(),
                subscribed.clone(),
                stop.clone(),
                refused.clone(),
            );
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    match connection.recv_timeout(Duration::from_millis(100)) {
                        Ok(Ok(Event::Incoming(Packet::ConnAck(_)))) => {
                            let _ = client.try_subscribe(
                                format!("lanecall/{SITE}/lane/{n}/command"),
                                QoS::AtLeastOnce,
                            );
                            connected.store(true, Ordering::Relaxed);
                        }
                        Ok(Ok(Event::Incoming(Packet::SubAck(_)))) => {
                            subscribed.store(true, Ordering::Relaxed);
                        }
                        Ok(Ok(Event::Incoming(Packet::Publish(p)))) => {
                            if let Ok(v) = serde_json::from_slice(&p.payload) {
                                let _ = tx.send(v);
                            }
                        }
                        Ok(Ok(_)) => {}
                        Ok(Err(e)) => {
                            connected.store(false, Ordering::Relaxed);
                            subscribed.store(false, Ordering::Relaxed);
                            *refused.lock().unwrap() = Some(e.to_string());
                            // Pacing the reconnects, as a real client does.
                            std::thread::sleep(Duration::from_millis(100));
                        }
                        Err(_) => {}
                    }
                }
                // Dropping the connection closes the socket without a
                // goodbye: the broker sends the last will.
            })
        };
        TestLane {
            n,
            client,
            commands,
            connected,
            subscribed,
            stop,
            refused,
            thread: Some(thread),
        }
    }

    /// Waits until it is connected and subscribed to its command topic.
    fn wait_connected(&self) {
        eventually(&format!("lane {} connected and subscribed", self.n), || {
            if self.connected.load(Ordering::Relaxed) && self.subscribed.load(Ordering::Relaxed) {
                Ok(())
            } else {
                Err(format!("refused: {:?}", self.refused.lock().unwrap()))
            }
        });
    }

    fn topic(&self, kind: &str) -> String {
        format!("lanecall/{SITE}/lane/{}/{kind}", self.n)
    }

    fn status(&self, s: &str) {
        self.client
            .publish(self.topic("status"), QoS::AtLeastOnce, true, s)
            .unwrap();
    }

    fn raw(&self, topic: &str, payload: Vec<u8>) {
        self.client
            .publish(topic, QoS::AtLeastOnce, false, payload)
            .unwrap();
    }

    /// Publishes lines `from..=to` (1-based) of `journal` as `file`.
    fn lines(&self, file: &str, journal: &[&str], from: usize, to: usize) {
        for n in from..=to {
            self.line(file, n, journal[n - 1]);
        }
    }

    fn line(&self, file: &str, n: usize, text: &str) {
        let msg = json!({ "file": file, "n": n, "line": text });
        self.raw(&self.topic("journal"), msg.to_string().into_bytes());
    }

    fn reply(&self, v: Value) {
        self.raw(&self.topic("reply"), v.to_string().into_bytes());
    }

    /// The next command that satisfies `cond`, within 15 s.
    fn command(&self, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
        let until = Instant::now() + Duration::from_secs(15);
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.commands.recv_timeout(left) {
                Ok(v) if cond(&v) => return v,
                Ok(_) => {}
                Err(_) => panic!("lane {} got no {what}", self.n),
            }
        }
    }

    /// Closes the connection without a DISCONNECT.
    fn cut(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

impl Drop for TestLane {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// tests/logs/`name` as lane `lane` writes it today, as its journal `seq`.
fn log(name: &str, lane: u32, seq: u64) -> String {
    support::sealed_log(name, lane, seq)
}

/// `lanecall replay` of a file: its exit status and score sheet.
fn sheet(path: &Path) -> (bool, String) {
    let out = Command::new(lanecall())
        .arg("replay")
        .arg(path)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn mirror_path(dir: &Path, lane: u32, file: &str) -> PathBuf {
    dir.join("state/lanes").join(lane.to_string()).join(file)
}

fn assert_mirror_equals(dir: &Path, lane: u32, file: &str, source: &str) {
    let path = mirror_path(dir, lane, file);
    let mirror = std::fs::read_to_string(&path).unwrap();
    assert!(
        mirror == source,
        "the mirror of lane {lane} differs from its journal"
    );
    let src = dir.join(format!("source-{file}"));
    std::fs::write(&src, source).unwrap();
    let (a, b) = (sheet(&path), sheet(&src));
    assert!(a.0 && b.0);
    assert_eq!(a.1, b.1, "the mirror's sheet");
    assert!(a.1.contains("Anna") || a.1.contains("Game") || !a.1.is_empty());
}

const FILE_12: &str = "lane12-20261129T110000Z-000001.jsonl";
const FILE_3: &str = "lane3-20261129T110000Z-000004.jsonl";

/// Two lanes' journals mirrored byte for byte; duplicates and a
/// conflicting line change nothing.
fn mirror_test(dir: &Path, web: u16, mqtt: u16, login: Login, centre: &mut Centre) {
    let four = log("four_bowlers.jsonl", 12, 1);
    let tenth = log("tenth_frame.jsonl", 3, 4);
    let a: Vec<&str> = four.lines().collect();
    let b: Vec<&str> = tenth.lines().collect();
    let lane12 = TestLane::connect(12, mqtt, login);
    let lane3 = TestLane::connect(3, mqtt, login);
    lane12.wait_connected();
    lane3.wait_connected();
    lane12.status("online");
    lane3.status("online");
    let since = Instant::now();
    lane12.lines(FILE_12, &a, 1, a.len());
    lane3.lines(FILE_3, &b, 1, b.len());
    let n12 = a.len() as u64;
    centre.wait_lane(12, "every line", |l| {
        l["mirror"]["lines"] == n12 && l["online"] == true
    });
    let n3 = b.len() as u64;
    centre.wait_lane(3, "every line", |l| l["mirror"]["lines"] == n3);
    eprintln!("{} lines mirrored in {:?}", n12 + n3, since.elapsed());
    assert_mirror_equals(dir, 12, FILE_12, &four);
    assert_mirror_equals(dir, 3, FILE_3, &tenth);

    // Lines again: the same text is a duplicate, another text a conflict.
    lane12.lines(FILE_12, &a, 10, 14);
    let other = lanecall::journal::seal("{\"t\":1,\"ev\":\"ball\"}", 20);
    lane12.line(FILE_12, 20, &other);
    let l = centre.wait_lane(12, "the duplicates and the conflict", |l| {
        l["mirror"]["duplicates"] == 5 && l["mirror"]["conflicts"] == 1
    });
    assert_eq!(l["mirror"]["lines"], n12);
    assert_eq!(l["mirror"]["files"], 1);
    assert_mirror_equals(dir, 12, FILE_12, &four);
    // Never silently: an alarm, and the lane asked for its own line 20.
    let alarms = centre.get("/api/centre")["alarms"].clone();
    assert_eq!(alarms[0]["kind"], "conflict", "{alarms}");
    assert_eq!(alarms[0]["lane"], 12, "{alarms}");
    let ask = lane12.command("the conflicting line asked for", |c| {
        c.get("resend").is_some()
    });
    assert_eq!(
        ask["resend"],
        json!({ "file": FILE_12, "from": 20, "to": 20 })
    );
    let _ = web;
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn the_embedded_broker_mirrors_every_lane_byte_for_byte() {
    let dir = temp_dir("embedded");
    let (web, mqtt) = (free_port(), free_port());
    let config = centre_config(&dir, web, mqtt, None, true);
    let mut centre = Centre::start(&config, web);
    centre.wait_connected();
    mirror_test(&dir, web, mqtt, Login::Own, &mut centre);
}

#[test]
fn mosquitto_mirrors_every_lane_byte_for_byte() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp_dir("mosquitto");
    let broker = support::mosquitto::Broker::start(&dir, "");
    let (web, mqtt) = (free_port(), broker.port);
    let config = centre_config(
        &dir,
        web,
        mqtt,
        Some(&format!("mqtt://127.0.0.1:{mqtt}")),
        false,
    );
    let mut centre = Centre::start(&config, web);
    centre.wait_connected();
    mirror_test(&dir, web, mqtt, Login::Anonymous, &mut centre);
    centre.stop();
}

/// Mosquitto listening over TLS only, its certificate from a CA of the
/// test's own: a centre with `mqtts://` and that CA's file mirrors a
/// lane's lines; a centre that trusts another CA never connects and
/// `GET /api/centre` says why.
#[test]
fn over_tls_a_centre_mirrors_and_one_trusting_another_ca_says_why() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp_dir("tls");
    let tls = support::tls::TlsFiles::new(&dir, "site");
    let broker = support::mosquitto::Broker::start(&dir, &tls.mosquitto_lines());
    let url = format!("mqtts://localhost:{}", broker.port);
    let tls_config = |dir: &Path, web: u16, ca: &Path| {
        std::fs::create_dir_all(dir).unwrap();
        let config = centre_config(dir, web, broker.port, Some(&url), false);
        let text = std::fs::read_to_string(&config).unwrap();
        std::fs::write(&config, format!("ca_file = {ca:?}\n{text}")).unwrap();
        config
    };
    let web = free_port();
    let mut centre = Centre::start(&tls_config(&dir, web, &tls.ca), web);
    centre.wait_connected();
    let transport = lanecall::mqtt::BrokerUrl::parse(&url)
        .unwrap()
        .transport(Some(&tls.ca))
        .unwrap();
    let lane = TestLane::connect_over(12, broker.port, Login::Anonymous, transport);
    lane.wait_connected();
    lane.status("online");
    // Subscribed: the centre has seen the status.
    centre.wait_lane(12, "online over TLS", |l| l["online"] == true);
    let four = log("four_bowlers.jsonl", 12, 1);
    let a: Vec<&str> = four.lines().collect();
    lane.lines(FILE_12, &a, 1, a.len());
    let n = a.len() as u64;
    centre.wait_lane(12, "every line over TLS", |l| l["mirror"]["lines"] == n);
    assert_mirror_equals(&dir, 12, FILE_12, &four);
    assert_eq!(centre.get("/api/centre")["broker_error"], Value::Null);

    let other = support::tls::TlsFiles::new(&dir, "other");
    let web = free_port();
    let mut stranger = Centre::start(&tls_config(&dir.join("stranger"), web, &other.ca), web);
    let status = eventually("a broker error at the stranger", || {
        let status = stranger.get("/api/centre");
        (!status["broker_error"].is_null()).then_some(status)
    });
    assert_eq!(status["connected"], false);
    let why = status["broker_error"].as_str().unwrap_or_default();
    assert!(why.contains("certificate"), "broker_error: {status}");
    centre.stop();
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_withheld_line_is_asked_for_and_a_restarted_centre_resumes_from_its_mirror() {
    let dir = temp_dir("gap");
    let (web, mqtt) = (free_port(), free_port());
    let config = centre_config(&dir, web, mqtt, None, true);
    let mut centre = Centre::start(&config, web);
    centre.wait_connected();
    let four = log("four_bowlers.jsonl", 12, 1);
    let a: Vec<&str> = four.lines().collect();
    let lane = TestLane::connect(12, mqtt, Login::Own);
    lane.wait_connected();
    // Line 5 withheld: 6..=100 are held, and line 5 is asked for.
    lane.lines(FILE_12, &a, 1, 4);
    lane.lines(FILE_12, &a, 6, 100);
    let resend = lane.command("a resend", |c| c.get("resend").is_some());
    assert_eq!(
        resend["resend"],
        json!({ "file": FILE_12, "from": 5, "to": 5 })
    );
    let l = centre.wait_lane(12, "the held lines", |l| l["mirror"]["held"] == 95);
    assert_eq!(l["mirror"]["lines"], 4);
    assert_eq!(l["mirror"]["gaps"], 1);
    // Unanswered, it is asked for again.
    let again = lane.command("a second resend", |c| c.get("resend").is_some());
    assert_eq!(
        again["resend"],
        json!({ "file": FILE_12, "from": 5, "to": 5 })
    );
    lane.reply(json!({ "id": again["id"], "ok": true }));
    lane.lines(FILE_12, &a, 5, 5);
    let l = centre.wait_lane(12, "the gap filled", |l| l["mirror"]["lines"] == 100);
    assert_eq!(l["mirror"]["held"], 0);
    assert_eq!(l["mirror"]["gaps"], 0);
    assert_eq!(
        std::fs::read_to_string(mirror_path(&dir, 12, FILE_12)).unwrap(),
        a[..100]
            .iter()
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    );

    // A restarted centre reads its mirror and asks for what comes after.
    centre.stop();
    drop(lane);
    let mut centre = Centre::start(&config, web);
    centre.wait_connected();
    let l = centre.wait_lane(12, "the mirror read back", |l| l["mirror"]["lines"] == 100);
    assert_eq!(l["online"], false);
    let lane = TestLane::connect(12, mqtt, Login::Own);
    lane.wait_connected();
    lane.status("online");
    let resend = lane.command("a resend after the restart", |c| c.get("resend").is_some());
    assert_eq!(resend["resend"], json!({ "file": FILE_12, "from": 101 }));
    lane.lines(FILE_12, &a, 101, a.len());
    let n = a.len() as u64;
    centre.wait_lane(12, "the rest", |l| l["mirror"]["lines"] == n);
    assert_mirror_equals(&dir, 12, FILE_12, &four);
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_lane_that_drops_off_shows_offline_and_a_wrong_password_is_refused() {
    let dir = temp_dir("will");
    let (web, mqtt) = (free_port(), free_port());
    let config = centre_config(&dir, web, mqtt, None, true);
    let mut centre = Centre::start(&config, web);
    centre.wait_connected();
    let lane = TestLane::connect(7, mqtt, Login::Own);
    lane.wait_connected();
    lane.status("online");
    centre.wait_lane(7, "online", |l| l["online"] == true);
    lane.cut();
    centre.wait_lane(7, "offline by the last will", |l| l["online"] == false);

    let intruder = TestLane::connect(8, mqtt, Login::As("lane8", "wrong"));
    eventually("the wrong password refused", || {
        intruder.refused.lock().unwrap().is_some()
    });
    assert!(
        !intruder.connected.load(Ordering::Relaxed),
        "a wrong password got in"
    );
    intruder.status("online");
    // Lane 8 has a login, so the centre lists it; never heard from.
    let eight = centre.lane(8);
    assert!(
        eight
            .as_ref()
            .is_none_or(|l| l["never_connected"] == true && l["state"].is_null()),
        "an intruder's message reached the centre: {eight:?}"
    );
}

fn login(centre: &mut Centre) -> String {
    let r = centre
        .http
        .request(
            "POST",
            "/api/login",
            &[("Content-Type", "application/json")],
            json!({ "pin": PIN, "name": "Ivanova" })
                .to_string()
                .as_bytes(),
        )
        .unwrap();
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let cookie = r.header("set-cookie").expect("a session cookie");
    cookie.split(';').next().unwrap().to_owned()
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_push_reaches_the_lanes_and_their_answers_show() {
    let dir = temp_dir("push");
    let (web, mqtt) = (free_port(), free_port());
    let config = centre_config(&dir, web, mqtt, None, true);
    let mut centre = Centre::start(&config, web);
    centre.wait_connected();
    let l7 = TestLane::connect(7, mqtt, Login::Own);
    let l8 = TestLane::connect(8, mqtt, Login::Own);
    l7.wait_connected();
    l8.wait_connected();
    // Lanes 7 and 8 say they are online; lane 9 is never heard from.
    l7.status("online");
    l8.status("online");
    for n in [7, 8] {
        centre.wait_lane(n, "online", |l| l["online"] == true);
    }
    let bowlers7 = json!([{ "name": "Orlov", "class": "B1" }]);
    let body = json!({ "block": "S1", "lanes": { "7": bowlers7, "8": [{ "name": "Popov", "class": "B2" }], "9": [] } });
    let post = |centre: &mut Centre, cookie: Option<&str>| {
        let mut headers = vec![("Content-Type", "application/json")];
        if let Some(c) = cookie {
            headers.push(("Cookie", c));
        }
        centre
            .http
            .request("POST", "/api/push", &headers, body.to_string().as_bytes())
            .unwrap()
    };
    // No judge, no push.
    assert_eq!(post(&mut centre, None).status, 401);
    let cookie = login(&mut centre);
    let r = post(&mut centre, Some(&cookie));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));

    let c7 = l7.command("a lineup", |c| c.get("action").is_some());
    assert_eq!(c7["by"], "Ivanova");
    assert_eq!(c7["action"], json!({ "ev": "lineup", "bowlers": bowlers7 }));
    let c8 = l8.command("a lineup", |c| c.get("action").is_some());
    l7.reply(json!({ "id": c7["id"], "ok": true }));
    l8.reply(json!({ "id": c8["id"], "ok": false, "error": "this lane does not take commands from the centre (centre.accept_commands = false)" }));
    let push = eventually("the answers to show", || {
        let pushes = centre.get("/api/pushes");
        let p = pushes[0].clone();
        if p["lanes"]["7"]["status"] == "accepted" && p["lanes"]["8"]["status"] == "refused" {
            Ok(p)
        } else {
            Err(pushes.to_string())
        }
    });
    assert_eq!(push["block"], "S1");
    assert_eq!(push["by"], "Ivanova");
    assert!(
        push["lanes"]["8"]["error"]
            .as_str()
            .unwrap()
            .contains("accept_commands")
    );
    // Held until lane 9 comes online, and said so.
    assert_eq!(push["lanes"]["9"]["status"], "offline");

    // A hold goes the same way.
    let r = centre
        .http
        .request(
            "POST",
            "/api/hold",
            &[("Content-Type", "application/json"), ("Cookie", &cookie)],
            br#"{"lane":7,"on":true,"reason":"oil"}"#,
        )
        .unwrap();
    assert_eq!(r.status, 200);
    let hold = l7.command("a hold", |c| c["action"]["ev"] == "hold");
    assert_eq!(
        hold["action"],
        json!({ "ev": "hold", "on": true, "reason": "oil" })
    );
}

#[test]
fn malformed_messages_are_counted_and_refused() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp_dir("malformed");
    // A Mosquitto that takes anything anywhere: all of it reaches the
    // centre, which must refuse it itself.
    let broker = support::mosquitto::Broker::start(&dir, "");
    let (web, mqtt) = (free_port(), broker.port);
    let url = format!("mqtt://127.0.0.1:{mqtt}");
    let config = centre_config(&dir, web, mqtt, Some(&url), false);
    let mut centre = Centre::start(&config, web);
    centre.wait_connected();
    let lane = TestLane::connect(5, mqtt, Login::Anonymous);
    lane.wait_connected();
    let journal = format!("lanecall/{SITE}/lane/5/journal");
    lane.raw(&journal, b"not json".to_vec());
    lane.raw(
        &journal,
        br#"{"file":"../../etc/passwd","n":1,"line":"x"}"#.to_vec(),
    );
    lane.raw(
        &journal,
        br#"{"file":"lane5-20261129T110000Z-000001.jsonl/..","n":1,"line":"x"}"#.to_vec(),
    );
    lane.raw(
        &journal,
        br#"{"file":"notes.txt","n":1,"line":"x"}"#.to_vec(),
    );
    let huge = json!({ "file": "lane5-20261129T110000Z-000001.jsonl", "n": 1, "line": "x".repeat(100_000) });
    lane.raw(&journal, huge.to_string().into_bytes());
    lane.raw(
        &format!("lanecall/{SITE}/lane/0/status"),
        b"online".to_vec(),
    );
    lane.raw(&format!("lanecall/{SITE}/lane/5000/state"), b"{}".to_vec());
    lane.raw(
        &format!("lanecall/{SITE}/lane/abc/status"),
        b"online".to_vec(),
    );
    lane.raw(&format!("lanecall/{SITE}/lane/5/status"), b"maybe".to_vec());
    lane.raw(&format!("lanecall/{SITE}/lane/5/state"), b"[1,2".to_vec());
    let centre_json = eventually("every bad message counted", || {
        let c = centre.get("/api/centre");
        if c["refused_total"] == 10 {
            Ok(c)
        } else {
            Err(c.to_string())
        }
    });
    let r = &centre_json["refused"];
    assert_eq!(r["journal_not_json"], 1);
    assert_eq!(r["journal_file_name"], 3);
    assert_eq!(r["journal_too_large"], 1);
    assert_eq!(r["lane_number"], 3);
    assert_eq!(r["status_payload"], 1);
    assert_eq!(r["state_not_json"], 1);
    // Nothing was written, and the only lane known is the one whose bad
    // status and state named it.
    assert!(!dir.join("state/lanes/5").exists());
    assert!(!dir.join("etc").exists());
    let lanes = centre.get("/api/lanes");
    assert_eq!(lanes.as_array().unwrap().len(), 0, "{lanes}");
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn each_mirrored_journal_is_replayed_by_the_lanes_core() {
    let dir = temp_dir("replays");
    let (web, mqtt) = (free_port(), free_port());
    let config =
        lanecall::centre::config::CentreConfig::load(&centre_config(&dir, web, mqtt, None, true))
            .unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let centre = rt.block_on(lanecall::centre::start(config)).unwrap();
    eventually("the centre to reach its broker", || {
        centre.book.lock().unwrap().connected
    });
    let four = log("four_bowlers.jsonl", 12, 1);
    let a: Vec<&str> = four.lines().collect();
    let lane = TestLane::connect(12, mqtt, Login::Own);
    lane.wait_connected();
    // Published in two parts: the replay settles in between and goes on.
    let expect = |lines: &[&str]| {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let replay = lanecall::replay::Replay::from_reader(text.as_bytes()).unwrap();
        serde_json::to_value(replay.report()).unwrap()
    };
    for (from, to) in [(1, 200), (201, a.len())] {
        lane.lines(FILE_12, &a, from, to);
        let want = expect(&a[..to]);
        eventually(&format!("the centre's replay of lines 1..={to}"), || {
            let got = {
                let book = centre.book.lock().unwrap();
                book.lanes
                    .get(&12)
                    .and_then(|l| l.journals.get(FILE_12))
                    .and_then(|f| f.replay())
                    .map(|r| serde_json::to_value(r.report()).unwrap())
            };
            if got.as_ref() == Some(&want) {
                Ok(())
            } else {
                Err(format!("{got:?}"))
            }
        });
    }
    rt.block_on(centre.stop());
}

/// The page in headless Chromium (`tests/browser/centre.mjs`), as
/// tests/daemon/panel_browser.rs runs the panel's scripts: skipped when node,
/// chromium or `npm ci` in tests/browser are missing, except under CI.
#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn the_centre_page_shows_the_lanes_and_a_push_in_a_real_browser() {
    if !support::browser_tools() {
        return;
    }
    let dir = temp_dir("browser");
    let (web, mqtt) = (free_port(), free_port());
    // The programme: block S1 puts the four bowlers of the journal lane 7
    // publishes on lane 7, in its order.
    let mut centre = centre_with_programme(&dir, web, mqtt, BROWSER_PROGRAMME);
    let mut lane = TestLane::connect(7, mqtt, Login::Own);
    lane.wait_connected();
    lane.status("online");
    let four = log("four_bowlers.jsonl", 7, 1);
    let a: Vec<&str> = four.lines().collect();
    lane.lines("lane7-20261129T110000Z-000001.jsonl", &a, 1, a.len());
    let state = json!({
        "lane": 7,
        "bowlers": [{ "name": "Orlov", "class": "B1", "games": [], "series": 0 }],
        "up": { "bowler": "Orlov", "game": 1, "frame": 3, "ball": 2, "standing": [7] },
        "hold": { "by": "Judge Orlova", "reason": "oil" },
        "pinsetter": { "link": "up", "fault": "JAM" },
        "conduct": [],
    });
    lane.client
        .publish(
            lane.topic("state"),
            QoS::AtLeastOnce,
            true,
            state.to_string(),
        )
        .unwrap();
    let n = a.len() as u64;
    centre.wait_lane(7, "the journal and state", |l| {
        l["mirror"]["lines"] == n && l["state"]["lane"] == 7
    });
    // A line again with other text: the page shows the alarm.
    let other = lanecall::journal::seal("{\"t\":1,\"ev\":\"ball\"}", 20);
    lane.line("lane7-20261129T110000Z-000001.jsonl", 20, &other);
    // The lane accepts every lineup it is sent, and keeps them.
    let lineups = Arc::new(Mutex::new(Vec::new()));
    let answering = {
        let client = lane.client.clone();
        let topic = lane.topic("reply");
        let commands = std::mem::replace(&mut lane.commands, channel().1);
        let lineups = lineups.clone();
        std::thread::spawn(move || {
            while let Ok(c) = commands.recv_timeout(Duration::from_secs(60)) {
                if let Some(action) = c.get("action") {
                    lineups.lock().unwrap().push(action.clone());
                    let reply = json!({ "id": c["id"], "ok": true });
                    let _ =
                        client.publish(topic.clone(), QoS::AtLeastOnce, false, reply.to_string());
                }
            }
        })
    };
    support::run_browser("centre.mjs", web, PIN);
    // The one-click push sent the programme's lane 7: the four in its
    // order, a woman +10 a game in a combined category.
    let first = lineups.lock().unwrap().first().cloned().expect("a lineup");
    let sent: Vec<(&str, &str, u64)> = first["bowlers"]
        .as_array()
        .expect("bowlers")
        .iter()
        .map(|b| {
            (
                b["name"].as_str().unwrap_or(""),
                b["class"].as_str().unwrap_or(""),
                b["handicap"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(first["ev"], "lineup");
    assert_eq!(
        sent,
        [
            ("Anna Kuznetsova", "B1", 10),
            ("Boris Tikhonov", "B2", 0),
            ("Vera Matveeva", "B3", 10),
            ("Gleb Romanov", "B1", 0)
        ]
    );
    drop(lane);
    let _ = answering;
}

/// A push of a programme's block carries the block's id and its games,
/// so the lane starts it with them (mqtt.md); a push of lanes the
/// programme has no block for goes as it always did.
#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_programme_blocks_push_carries_its_id_and_games() {
    let dir = temp_dir("push-plan");
    let (web, mqtt) = (free_port(), free_port());
    let mut centre = centre_with_programme(&dir, web, mqtt, BROWSER_PROGRAMME);
    let l7 = TestLane::connect(7, mqtt, Login::Own);
    l7.wait_connected();
    l7.status("online");
    centre.wait_lane(7, "online", |l| l["online"] == true);
    let cookie = login(&mut centre);
    let push = |centre: &mut Centre, body: Value| {
        let r = centre
            .http
            .request(
                "POST",
                "/api/push",
                &[("Content-Type", "application/json"), ("Cookie", &cookie)],
                body.to_string().as_bytes(),
            )
            .unwrap();
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    };
    push(&mut centre, json!({ "block": "S1" }));
    let c = l7.command("a lineup", |c| c.get("action").is_some());
    assert_eq!(c["action"]["ev"], "lineup");
    assert_eq!(c["action"]["block"], "S1", "{c}");
    assert_eq!(c["action"]["games"], 1, "{c}");
    l7.reply(json!({ "id": c["id"], "ok": true }));
    let bowlers = json!([{ "name": "Orlov", "class": "B1" }]);
    push(
        &mut centre,
        json!({ "block": "X9", "lanes": { "7": bowlers } }),
    );
    let c = l7.command("a lineup", |c| c.get("action").is_some());
    assert_eq!(c["action"], json!({ "ev": "lineup", "bowlers": bowlers }));
}

/// The four entries of tests/logs/four_bowlers.jsonl and a singles
/// event, as a programme file writes them.
macro_rules! four_singles {
    () => {
        r#"
[[entry]]
name = "Anna Kuznetsova"
class = "B1"
sex = "F"
region = "Moscow"

[[entry]]
name = "Boris Tikhonov"
class = "B2"
sex = "M"
region = "Tula"

[[entry]]
name = "Vera Matveeva"
class = "B3"
sex = "F"
region = "Kazan"

[[entry]]
name = "Gleb Romanov"
class = "B1"
sex = "M"
region = "Tula"

[[event]]
id = "singles"
kind = "singles"
"#
    };
}

const BROWSER_PROGRAMME: &str = concat!(
    r#"
title = "Test Cup"
dates = "30 November 2026"
place = "Kosmik"
judges = ["chief judge: Irina Orlova"]
"#,
    four_singles!(),
    r#"
[[block]]
id = "S1"
event = "singles"
games = 1
day = 1
lanes = { 7 = ["Anna Kuznetsova", "Boris Tikhonov", "Vera Matveeva", "Gleb Romanov"] }
"#
);

/// A TCP relay to `port` whose traffic can be frozen with the sockets left
/// open: a lane whose network went silent, not closed.
fn freezable_relay(port: u16) -> (u16, Arc<Gate>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let relay = listener.local_addr().unwrap().port();
    let frozen = Arc::new(Gate::default());
    let f = frozen.clone();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { return };
            let Ok(upstream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
                return;
            };
            for (mut from, mut to) in [
                (client.try_clone().unwrap(), upstream.try_clone().unwrap()),
                (upstream, client),
            ] {
                let f = f.clone();
                std::thread::spawn(move || {
                    let mut buf = [0u8; 16 * 1024];
                    while let Ok(n) = from.read(&mut buf) {
                        if n == 0 {
                            break;
                        }
                        f.pass();
                        if to.write_all(&buf[..n]).is_err() {
                            break;
                        }
                    }
                    // Keep both ends open while frozen: a silent network.
                    f.pass();
                });
            }
        }
    });
    (relay, frozen)
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_lane_whose_network_goes_silent_shows_offline_within_30_s() {
    let dir = temp_dir("silent");
    let (web, mqtt) = (free_port(), free_port());
    let config = centre_config(&dir, web, mqtt, None, true);
    let mut centre = Centre::start(&config, web);
    centre.wait_connected();
    let (relay, frozen) = freezable_relay(mqtt);
    // Keep-alive 5 s: the broker gives up after 1.5 times that.
    let lane = TestLane::connect(9, relay, Login::Own);
    lane.wait_connected();
    lane.status("online");
    centre.wait_lane(9, "online", |l| l["online"] == true);
    // Messages keep coming for the silent lane (a neighbour's state, the
    // centre's commands): they must not keep it alive.
    let other = TestLane::connect(10, mqtt, Login::Own);
    other.wait_connected();
    frozen.shut();
    let since = Instant::now();
    let mut sent: Option<Instant> = None;
    eventually_within(
        "lane 9 offline once its network went silent",
        Duration::from_secs(30),
        || {
            if centre.lane(9).is_some_and(|l| l["online"] == false) {
                return true;
            }
            if sent.is_none_or(|t| t.elapsed() >= Duration::from_secs(2)) {
                sent = Some(Instant::now());
                other
                    .client
                    .publish(
                        format!("lanecall/{SITE}/lane/9/command"),
                        QoS::AtLeastOnce,
                        false,
                        r#"{"id":"x","resend":{}}"#,
                    )
                    .unwrap();
            }
            false
        },
    );
    eprintln!("offline after {:?}", since.elapsed());
    frozen.open();
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_config_with_an_unknown_key_is_refused_with_its_line() {
    let dir = temp_dir("config");
    let hash = lanecall::web::hash_pin(PIN).unwrap();
    let path = dir.join("centre.toml");
    std::fs::write(
        &path,
        format!("site = \"cup\"\nstate_dir = \"/tmp/x\"\nembeded_listen = \"0.0.0.0:1883\"\n[web]\njudge_pin_hash = {hash:?}\n"),
    )
    .unwrap();
    let out = Command::new(lanecall())
        .args(["centre", "--config"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(78));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("embeded_listen: unknown key (did you mean `embedded_listen`?)")
            && err.contains("(line 3, column 1)"),
        "{err}"
    );
    // A password file everyone may read is refused, naming it.
    let (web, mqtt) = (free_port(), free_port());
    let config = centre_config(&dir, web, mqtt, None, true);
    let password = dir.join("centre-password");
    std::fs::set_permissions(
        &password,
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .unwrap();
    let out = Command::new(lanecall())
        .args(["centre", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("password_file {}", password.display()))
            && err.contains("anyone on the machine can read it"),
        "{err}"
    );
}

/// Lane 1's four bowlers (tests/logs/four_bowlers.jsonl) in blocks S1,
/// S2 and S3 of one singles event: a journal of theirs fills the first
/// block not yet taken, as the centre places a lane's journals.
const THREE_BLOCKS: &str = concat!(
    r#"
title = "Three blocks"
dates = "29-30 November 2026"
place = "Kazan"
judges = ["chief judge: Irina Orlova"]
"#,
    four_singles!(),
    r#"
[[block]]
id = "S1"
event = "singles"
games = 1
day = 1
lanes = { 1 = ["Anna Kuznetsova", "Boris Tikhonov", "Vera Matveeva", "Gleb Romanov"] }

[[block]]
id = "S2"
event = "singles"
games = 1
day = 1
lanes = { 1 = ["Anna Kuznetsova", "Boris Tikhonov", "Vera Matveeva", "Gleb Romanov"] }

[[block]]
id = "S3"
event = "singles"
games = 1
day = 2
lanes = { 1 = ["Anna Kuznetsova", "Boris Tikhonov", "Vera Matveeva", "Gleb Romanov"] }
"#
);

/// Each bowler's games in the centre's standings, by name.
type Games = std::collections::BTreeMap<String, Vec<u64>>;

fn standings_games(web: u16) -> Option<Games> {
    let v = support::centre::get(web, "/api/standings")?;
    let mut out = Games::new();
    for c in v["categories"].as_array()? {
        for e in c["entries"].as_array()? {
            let games = e["games"].as_array()?.iter().filter_map(Value::as_u64);
            (out.entry(e["name"].as_str()?.to_owned()).or_default()).extend(games);
        }
    }
    Some(out)
}

/// Each bowler's game scores in journal `text`, the journal counted
/// `times`.
fn games_of(text: &str, times: usize) -> Games {
    let replay = lanecall::replay::Replay::from_reader(text.as_bytes()).unwrap();
    let report = serde_json::to_value(replay.report()).unwrap();
    report["bowlers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let games: Vec<u64> = (b["games"].as_array().unwrap().iter())
                .map(|g| g["total"].as_u64().unwrap())
                .collect();
            (b["name"].as_str().unwrap().to_owned(), games.repeat(times))
        })
        .collect()
}

/// Waits until the standings show `want`.
fn wait_standings(web: u16, what: &str, want: &Games) {
    eventually(what, || {
        let got = standings_games(web);
        (got.as_ref() == Some(want))
            .then_some(())
            .ok_or(format!("{got:?}"))
    });
}

/// Lane 1 sends its own sealed S1 journal again, byte for byte, under
/// every other name a lane could give it: an old-style name without its
/// `seq`, a new stamp with the same `seq`, a name whose `seq` is not the
/// header's, and a new stamp with the same `seq` in seven digits. The
/// programme has blocks S2 and S3 for the same bowlers, which a copy
/// taken as a new journal would fill. Each copy is refused and alarmed
/// (`journal_copy`), never mirrored: the standings do not move. The
/// lane's genuinely next journal (the same games under a header of its
/// own) still counts, in S2.
#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_journal_sent_again_under_any_other_name_counts_once() {
    let dir = temp_dir("copies");
    let (web, mqtt) = (free_port(), free_port());
    let mut centre = centre_with_programme(&dir, web, mqtt, THREE_BLOCKS);
    let s1 = log("four_bowlers.jsonl", 1, 1);
    let lines: Vec<&str> = s1.lines().collect();
    let len = lines.len() as u64;
    let lane = TestLane::connect(1, mqtt, Login::Own);
    lane.wait_connected();
    lane.status("online");
    let name = "lane1-20261129T110000Z-000001.jsonl";
    lane.lines(name, &lines, 1, lines.len());
    centre.wait_lane(1, "S1 mirrored", |l| l["mirror"]["lines"] == len);
    let once = games_of(&s1, 1);
    assert!(once.values().all(|g| g.len() == 1), "{once:?}");
    wait_standings(web, "the standings of S1", &once);
    let refused_before = centre.get("/api/centre")["refused_total"].as_u64().unwrap();

    let copies = [
        "lane1-20261129T110000Z-01.jsonl",
        "lane1-20261129T120000Z-000001.jsonl",
        "lane1-20261129T110000Z-000002.jsonl",
        "lane1-20261130T090000Z-0000001.jsonl",
    ];
    for copy in copies {
        lane.lines(copy, &lines, 1, lines.len());
    }
    // Every line of every copy dealt with: mirrored, held or refused.
    let copied = copies.len() as u64 * len;
    eventually("every copy's lines dealt with", || {
        let l = centre.lane(1).unwrap_or_default();
        let c = centre.get("/api/centre");
        let refused = c["refused_total"].as_u64().unwrap_or(0) - refused_before;
        let mirrored = l["mirror"]["lines"].as_u64().unwrap_or(0)
            + l["mirror"]["held"].as_u64().unwrap_or(0)
            - len;
        (mirrored + refused == copied)
            .then_some(())
            .ok_or(format!("{mirrored} mirrored or held, {refused} refused"))
    });
    // The standings as they were: each game once, S2 and S3 empty.
    assert_eq!(standings_games(web), Some(once.clone()));
    let l = centre.lane(1).unwrap();
    assert_eq!(l["mirror"]["files"], 1, "a copy was mirrored: {l}");
    assert_eq!(l["mirror"]["lines"], len, "{l}");
    assert_eq!(l["mirror"]["held"], 0, "{l}");
    let mirrored: Vec<String> = support::centre::files(&dir.join("state/lanes/1"))
        .into_keys()
        .collect();
    assert_eq!(mirrored, [name]);
    let c = centre.get("/api/centre");
    let alarm = c["alarms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "journal_copy" && a["lane"] == 1)
        .unwrap_or_else(|| panic!("no journal_copy alarm: {}", c["alarms"]))
        .clone();
    assert!(alarm["detail"].as_str().unwrap().contains(name), "{alarm}");
    assert_eq!(
        c["refused"]["journal_copy"],
        copies.len(),
        "{}",
        c["refused"]
    );

    // The lane's next journal, the same games under a header of its own
    // (seq 2), is new: mirrored, and counted in S2.
    let s2 = log("four_bowlers.jsonl", 1, 2);
    let next: Vec<&str> = s2.lines().collect();
    let name2 = "lane1-20261129T130000Z-000002.jsonl";
    lane.lines(name2, &next, 1, next.len());
    centre.wait_lane(1, "S2 mirrored", |l| l["mirror"]["lines"] == 2 * len);
    wait_standings(web, "the standings of S1 and S2", &games_of(&s1, 2));
    assert_mirror_equals(&dir, 1, name2, &s2);
}

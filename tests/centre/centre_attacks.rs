//! Attacks on a championship from the centre's network, injected against
//! real processes: a `lanecall centre`, two `lanecall run` lanes with
//! pseudo-terminal pinsetters and their own logins, and a broker (the
//! centre's embedded one, or Mosquitto with its password file and the ACL
//! `lanecall centre-acl` prints). The attacker is an MQTT client: without
//! a login, with a wrong password, and with lane 2's stolen login. After
//! every attack the centre's mirror is byte-identical to each lane's
//! journal and its standings equal the lanes' own sheets.

use crate::support;

use std::net::TcpStream;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rumqttc::{Client, ConnectReturnCode, Event, MqttOptions, Packet, QoS};
use serde_json::json;
use support::centre::{Centre, lane_secret};
use support::centre_lane::Lane;
use support::centre_scene::{
    SITE, Via, assert_agree, centre_config, lane, lane_as, secure_mosquitto, until,
};
use support::free_port;

fn temp(name: &str) -> crate::support::Scratch {
    crate::support::Scratch::new(&format!("attack-{name}"))
}

fn topic(lane: u32, kind: &str) -> String {
    format!("lanecall/{SITE}/lane/{lane}/{kind}")
}

/// A message an attacker received: its topic and payload.
type Received = (String, Vec<u8>);

/// An MQTT client of the attacker's: what the broker answered, how
/// often it closed the connection, and what it received.
struct Attacker {
    client: Client,
    /// The return code of the last CONNACK.
    connack: Arc<Mutex<Option<ConnectReturnCode>>>,
    /// Connections lost (refused, or cut off by the broker).
    lost: Arc<AtomicU32>,
    /// SUBACKs received.
    subscribed: Arc<AtomicU32>,
    /// PUBACKs received.
    acked: Arc<AtomicU32>,
    /// The messages received.
    got: Arc<Mutex<Vec<Received>>>,
    stop: Arc<AtomicBool>,
}

impl Attacker {
    fn connect(port: u16, id: &str, login: Option<(&str, &str)>) -> Attacker {
        let id = format!("{id}-{}", std::process::id());
        Attacker::connect_as(port, &id, login, true)
    }

    /// A client with the client id `id` exactly, a persistent session
    /// unless `clean`.
    fn connect_as(port: u16, id: &str, login: Option<(&str, &str)>, clean: bool) -> Attacker {
        let mut opts = MqttOptions::new(id, "127.0.0.1", port);
        opts.set_keep_alive(Duration::from_secs(5))
            .set_clean_session(clean)
            .set_max_packet_size(4 << 20, 4 << 20);
        if let Some((u, p)) = login {
            opts.set_credentials(u, p);
        }
        let (client, mut connection) = Client::new(opts, 4096);
        let connack = Arc::new(Mutex::new(None));
        let lost = Arc::new(AtomicU32::new(0));
        let subscribed = Arc::new(AtomicU32::new(0));
        let acked = Arc::new(AtomicU32::new(0));
        let got = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        {
            let (connack, lost, stop) = (connack.clone(), lost.clone(), stop.clone());
            let (subscribed, acked, got) = (subscribed.clone(), acked.clone(), got.clone());
            // Iterated, never polled with a timeout: a timeout would drop
            // a connection still waiting for its CONNACK and start anew.
            std::thread::spawn(move || {
                for ev in connection.iter() {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    match ev {
                        Ok(Event::Incoming(Packet::ConnAck(a))) => {
                            *connack.lock().unwrap() = Some(a.code);
                        }
                        Ok(Event::Incoming(Packet::SubAck(_))) => {
                            subscribed.fetch_add(1, Ordering::Relaxed);
                        }
                        Ok(Event::Incoming(Packet::PubAck(_))) => {
                            acked.fetch_add(1, Ordering::Relaxed);
                        }
                        Ok(Event::Incoming(Packet::Publish(p))) => {
                            got.lock()
                                .unwrap()
                                .push((p.topic.clone(), p.payload.to_vec()));
                        }
                        Err(rumqttc::ConnectionError::ConnectionRefused(code)) => {
                            // Refused: it does not knock again.
                            *connack.lock().unwrap() = Some(code);
                            return;
                        }
                        Err(_) => {
                            // Cut off: it connects again, as a client does.
                            lost.fetch_add(1, Ordering::Relaxed);
                            // Pacing the reconnects, as a real client does.
                            std::thread::sleep(Duration::from_millis(100));
                        }
                        Ok(_) => {}
                    }
                }
            });
        }
        Attacker {
            client,
            connack,
            lost,
            subscribed,
            acked,
            got,
            stop,
        }
    }

    /// Waits for the broker's answer to the login.
    fn answer(&self) -> ConnectReturnCode {
        let mut answer = None;
        until("the broker answered the login", || {
            answer = *self.connack.lock().unwrap();
            answer.map(|_| ()).ok_or_else(|| {
                format!(
                    "no CONNACK, {} connections lost",
                    self.lost.load(Ordering::Relaxed)
                )
            })
        });
        answer.unwrap()
    }

    fn publish(&self, topic: &str, retain: bool, payload: impl Into<Vec<u8>>) {
        let _ = self
            .client
            .publish(topic, QoS::AtLeastOnce, retain, payload.into());
    }
}

impl Drop for Attacker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.client.try_disconnect();
    }
}

/// One journal message.
fn line_message(file: &str, n: u64, line: &str) -> String {
    json!({ "file": file, "n": n, "line": line }).to_string()
}

/// The name of a lane's journal file and its number of lines.
fn journal_file(lane: &Lane) -> (String, u64) {
    let path = lane.journal_path();
    let name = path.file_name().unwrap().to_str().unwrap().to_owned();
    (name, lane.journal_text().lines().count() as u64)
}

/// The centre's count of messages refused for `why`.
fn refused(centre: &mut Centre, why: &str) -> u64 {
    centre.get("/api/centre")["refused"][why]
        .as_u64()
        .unwrap_or(0)
}

/// A championship of two lanes under attack through `via`'s broker.
fn attacks(dir: &Path, via: Via) {
    let (state, web) = (dir.join("state"), free_port());
    let config = centre_config(dir, &state, web, via);
    let mut centre = Centre::start(&config, web);
    let port = via.port();
    let mut lanes = [lane(dir, 1, port), lane(dir, 2, port)];
    for l in &mut lanes {
        l.bowl("X 9/");
    }
    assert_agree(&mut centre, &state, &lanes.each_ref(), "before the attacks");

    // No login, a wrong one: refused at the door.
    let anonymous = Attacker::connect(port, "anonymous", None);
    assert_ne!(anonymous.answer(), ConnectReturnCode::Success);
    let guesser = Attacker::connect(port, "guesser", Some(("lane1", "guess")));
    assert_ne!(guesser.answer(), ConnectReturnCode::Success);

    // Lane 2's login, stolen: it may write lane 2's topics and no other.
    // It connects with its own client id (any other is refused or
    // replaced), so it and lane 2 take turns at the broker.
    let (file1, lines1) = journal_file(&lanes[0]);
    let insider = Attacker::connect_as(port, "lane2", Some(("lane2", &lane_secret(2))), true);
    assert_eq!(insider.answer(), ConnectReturnCode::Success);
    let forged = lanecall::journal::seal(r#"{"t":999999,"ev":"ball"}"#, lines1 + 1);
    let lane5 = support::sealed_log("four_bowlers.jsonl", 5, 1);
    let header5 = lane5.lines().next().unwrap();
    // On its own journal topic, which the broker lets through, lines the
    // mirror cannot prove lane 2's: a file of lane 1, a header of lane 5,
    // garbage.
    insider.publish(
        &topic(2, "journal"),
        false,
        line_message(&file1, lines1 + 1, &forged),
    );
    insider.publish(
        &topic(2, "journal"),
        false,
        line_message("lane2-20261129T110000Z-000009.jsonl", 1, header5),
    );
    insider.publish(
        &topic(2, "journal"),
        false,
        line_message("lane2-20261129T110000Z-000009.jsonl", 2, "garbage"),
    );
    until("the centre refused the unproved lines", || {
        let reasons = ["journal_file_lane", "journal_header_lane", "journal_seal"];
        let missing: Vec<&str> = reasons
            .into_iter()
            .filter(|why| refused(&mut centre, why) == 0)
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "not refused: {missing:?}: {}",
                centre.get("/api/centre")
            ))
        }
    });
    // Then on other lanes' topics, which the broker never passes on (the
    // embedded one cuts the insider off at the first):
    // a forged line of lane 1 with a good seal, before lane 1's own
    // next line, and garbage; a whole journal of a lane 5 that does not
    // exist; a hold and a lineup for lane 1 (one retained), a reply
    // turning a refusal into "accepted", a state of lane 1 delivering.
    insider.publish(
        &topic(1, "journal"),
        false,
        line_message(&file1, lines1 + 1, &forged),
    );
    insider.publish(
        &topic(1, "journal"),
        false,
        line_message(&file1, lines1 + 1, "garbage"),
    );
    for (i, line) in lane5.lines().enumerate() {
        let msg = line_message("lane5-20261129T110000Z-000001.jsonl", i as u64 + 1, line);
        insider.publish(&topic(5, "journal"), false, msg);
    }
    insider.publish(&topic(5, "status"), true, "online");
    let hold = json!({"id": "x-1", "by": "Ivanova", "action": {"ev": "hold", "on": true, "reason": "forged"}});
    insider.publish(&topic(1, "command"), true, hold.to_string());
    let lineup = json!({"id": "x-2", "by": "Ivanova", "action": {"ev": "lineup",
        "bowlers": [{"name": "Forged", "class": "B1", "handicap": 300}]}});
    insider.publish(&topic(1, "command"), false, lineup.to_string());
    insider.publish(
        &topic(1, "reply"),
        false,
        json!({"id": "x-2", "ok": true}).to_string(),
    );
    let big = json!({"lane": 1, "delivering": true, "pad": "x".repeat(1 << 19)});
    insider.publish(&topic(1, "state"), true, big.to_string());
    // Every message through the broker (Mosquitto acknowledges and drops
    // what its ACL refuses), or (embedded) the insider cut off at its
    // first foreign message, and again each time it came back with it,
    // and the stolen login, connecting again and again beside lane 2's
    // own connection, seen. Then the insider is gone, and lane 2 stays
    // connected again.
    let sent = 3 + 2 + lane5.lines().count() as u32 + 1 + 2 + 1 + 1;
    until("the insider's messages through the broker", || {
        let acked = insider.acked.load(Ordering::Relaxed);
        let lost = insider.lost.load(Ordering::Relaxed);
        let alarms = centre.get("/api/centre")["alarms"].clone();
        let done = match via {
            Via::Embedded(_) => {
                lost >= 1 && alarms[0]["kind"] == "duplicate_lane" && alarms[0]["lane"] == 2
            }
            _ => acked >= sent,
        };
        done.then_some(()).ok_or(format!(
            "{acked} of {sent} acknowledged, {lost} lost, alarms {alarms}"
        ))
    });
    drop(insider);
    // Nothing else happened: the lanes bowl on, the centre agrees with
    // them, lane 1 held nothing and took no lineup, lane 5 is unknown.
    for l in &mut lanes {
        l.bowl("72");
    }
    assert_agree(&mut centre, &state, &lanes.each_ref(), "after the attacks");
    let journal1 = lanes[0].journal_text();
    assert!(
        !journal1.contains("forged") && !journal1.contains("Forged"),
        "lane 1 took a forged command"
    );
    let known: Vec<u64> = centre
        .get("/api/lanes")
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["lane"].as_u64().unwrap())
        .collect();
    assert_eq!(known, [1, 2], "only the competition's lanes");
    assert!(!state.join("lanes/5").exists());
    if let Via::Embedded(_) = via {
        let broker = centre.get("/api/centre")["broker"].clone();
        assert!(broker["publish_denied"].as_u64() >= Some(1), "{broker}");
        assert!(broker["bad_logins"].as_u64() >= Some(1), "{broker}");
        assert!(broker["anonymous_refused"].as_u64() >= Some(1), "{broker}");
    } else {
        assert_eq!(centre.get("/api/centre")["alarms"], json!([]));
    }
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn attacks_through_the_embedded_broker_change_nothing() {
    let dir = temp("embedded");
    attacks(&dir, Via::Embedded(free_port()));
}

#[test]
fn attacks_through_mosquitto_with_the_centres_acl_change_nothing() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp("mosquitto");
    let broker = secure_mosquitto(&dir);
    attacks(&dir, Via::MosquittoLogins(broker.port));
}

/// The password of the read-only `tv` login the takeover tests add.
const TV_SECRET: &str = "tv-secret";

/// The client ids an attacker asks for: the centre's and lane 1's, each
/// as its link uses it without a login and with one.
fn others_ids() -> [String; 4] {
    [
        format!("lanecall-centre-{SITE}"),
        "centre".to_owned(),
        format!("lanecall-{SITE}-lane-1"),
        "lane1".to_owned(),
    ]
}

/// Lane 2's login (no lane 2 running) and the read-only `tv` login
/// connect, one at a time, with the centre's client id and with lane
/// 1's, keeping a session (clean_session 0) as the centre's link does:
/// the session of that id, with the centre's subscriptions, is what they
/// are after. Through `via`'s broker (`mosquitto`: the one of `via`, to
/// read its log). Each time lane 1 bowls on, its lines are mirrored, and
/// the attacker, when let in at all, gets a later message but none of
/// the lines.
fn takeovers(dir: &Path, via: Via, mosquitto: Option<&support::mosquitto::Broker>) {
    let (state, web) = (dir.join("state"), free_port());
    let config = centre_config(dir, &state, web, via);
    if let Via::Embedded(_) = via {
        // A reader's login beside the lanes'.
        let passwords = dir.join("passwords");
        let text = std::fs::read_to_string(&passwords).unwrap();
        let tv = format!("tv:{}\n", support::cheap_hash(TV_SECRET));
        std::fs::write(&passwords, text + &tv).unwrap();
    }
    let mut centre = Centre::start(&config, web);
    centre.wait_connected();
    let port = via.port();
    let mut lane1 = lane(dir, 1, port);
    lane1.bowl("X");
    assert_agree(&mut centre, &state, &[&lane1], "before the takeovers");
    let lane2_secret = lane_secret(2);
    let logins = [("lane2", lane2_secret.as_str()), ("tv", TV_SECRET)];
    for (user, password) in logins {
        for id in others_ids() {
            let attacker = Attacker::connect_as(port, &id, Some((user, password)), false);
            let answer = attacker.answer();
            if let Via::Embedded(_) = via {
                assert_eq!(answer, ConnectReturnCode::BadClientId, "{user} as {id}");
            } else {
                // Mosquitto lets it in under its own name
                // (`use_username_as_clientid`).
                assert_eq!(answer, ConnectReturnCode::Success, "{user} as {id}");
                attacker
                    .client
                    .subscribe(format!("lanecall/{SITE}/lane/+/state"), QoS::AtLeastOnce)
                    .unwrap();
                until("the attacker subscribed", || {
                    (attacker.subscribed.load(Ordering::Relaxed) >= 1)
                        .then_some(())
                        .ok_or("no SUBACK")
                });
            }
            // Lane 1 bowls on: its lines reach the centre, lane 1 and the
            // centre's link stay up.
            lane1.bowl("72");
            assert_agree(
                &mut centre,
                &state,
                &[&lane1],
                &format!("with {user} as {id}"),
            );
            if answer == ConnectReturnCode::Success {
                // A message sent after lane 1's lines reached the centre,
                // which the attacker receives: any of the lines would have
                // come before it.
                let marker = format!("marker: {user} as {id}");
                let helper = (user != "lane2").then(|| {
                    let h =
                        Attacker::connect_as(port, "lane2", Some(("lane2", &lane2_secret)), true);
                    assert_eq!(h.answer(), ConnectReturnCode::Success);
                    h
                });
                helper.as_ref().unwrap_or(&attacker).publish(
                    &topic(2, "state"),
                    false,
                    marker.clone(),
                );
                until("the marker at the attacker", || {
                    let got = attacker.got.lock().unwrap();
                    got.iter()
                        .any(|(_, p)| *p == marker.as_bytes())
                        .then_some(())
                        .ok_or(format!("{} messages", got.len()))
                });
            }
            let got = attacker.got.lock().unwrap().clone();
            let forbidden: Vec<&String> = got
                .iter()
                .map(|(t, _)| t)
                .filter(|t| !t.ends_with("/state") && !t.ends_with("/status"))
                .collect();
            assert!(
                forbidden.is_empty(),
                "{user} as {id} received {forbidden:?}"
            );
            if let Some(broker) = mosquitto {
                // Nobody was closed for the attacker: Mosquitto says so
                // when a client id connects again.
                for taken in others_ids() {
                    let kick = format!("Client {taken} already connected");
                    assert!(!broker.logged(&kick), "{user} as {id}: {kick}");
                }
            }
        }
    }
    let lane1_state = centre.lane(1).unwrap();
    assert_eq!(lane1_state["online"], true, "{lane1_state}");
    let alarms = centre.get("/api/centre")["alarms"].clone();
    let raised = |kind: &str, lane: u32, login: &str| {
        alarms.as_array().unwrap().iter().any(|a| {
            a["kind"] == kind
                && a["lane"] == lane
                && a["detail"]
                    .as_str()
                    .is_some_and(|d| d.contains(&format!("the login {login} ")))
        })
    };
    assert!(!raised("duplicate_lane", 1, "lane1"), "{alarms}");
    if let Via::Embedded(_) = via {
        // Each refused and counted, and each login named in an alarm.
        assert!(raised("takeover", 2, "lane2"), "{alarms}");
        assert!(raised("takeover", 0, "tv"), "{alarms}");
        let broker = centre.get("/api/centre")["broker"].clone();
        assert_eq!(broker["takeovers_refused"], 8, "{broker}");
        assert_eq!(broker["client_id_refused"], 8, "{broker}");
    } else {
        assert_eq!(alarms, json!([]));
    }
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn another_login_with_the_centres_or_lane_1s_client_id_is_refused_by_the_embedded_broker() {
    let dir = temp("takeover-embedded");
    takeovers(&dir, Via::Embedded(free_port()), None);
}

#[test]
fn another_login_with_the_centres_or_lane_1s_client_id_takes_nothing_on_mosquitto() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp("takeover-mosquitto");
    let mut broker = secure_mosquitto(&dir);
    // The read-only login, as docs/centre.md adds one.
    support::mosquitto::add_login(&dir.join("mosquitto.passwd"), "tv", TV_SECRET);
    broker.restart();
    takeovers(&dir, Via::MosquittoLogins(broker.port), Some(&broker));
}

/// Each start of the centre opens one connection under its client id,
/// never two: a second one with the same id kicks the first, which is
/// what a takeover looks like in the broker's log (and what the test
/// above looks for). Started and stopped a few times, as its link's
/// first moments are a race between connecting and its clock.
#[test]
fn the_centre_connects_once_per_start() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp("connects-once");
    let broker = secure_mosquitto(&dir);
    let starts = 6;
    let (state, web) = (dir.join("state"), free_port());
    let config = centre_config(&dir, &state, web, Via::MosquittoLogins(broker.port));
    for _ in 0..starts {
        let mut centre = Centre::start(&config, web);
        centre.wait_connected();
        centre.stop();
    }
    // Its clock went out on connecting (retained, as a lane reads it).
    let lane1 = Attacker::connect_as(broker.port, "lane1", Some(("lane1", &lane_secret(1))), true);
    assert_eq!(lane1.answer(), ConnectReturnCode::Success);
    let time = format!("lanecall/{SITE}/centre/time");
    lane1.client.subscribe(&time, QoS::AtLeastOnce).unwrap();
    until("the centre's clock", || {
        let got = lane1.got.lock().unwrap();
        got.iter()
            .find(|(t, _)| *t == time)
            .map(|(_, p)| serde_json::from_slice::<serde_json::Value>(p).unwrap())
            .filter(|v| v["wall"].is_string() && v["synchronised"].is_boolean())
            .ok_or(format!("{} messages", got.len()))
    });
    assert_eq!(broker.times_logged(" as centre ("), starts);
    assert!(!broker.logged("Client centre already connected"));
}

/// Two lanes configured as lane 2 kick each other off the broker (one
/// client id): the centre raises `duplicate_lane` and mirrors each one's
/// journal in a file of its own, never one spliced into the other.
fn a_second_lane_2(dir: &Path, via: Via) {
    let (state, web) = (dir.join("state"), free_port());
    let config = centre_config(dir, &state, web, via);
    let mut centre = Centre::start(&config, web);
    let port = via.port();
    let mut real = lane(dir, 2, port);
    real.bowl("X");
    let mut impostor = lane_as(dir, "impostor", 2, port, "Impostor", "20260101T000500Z-01");
    impostor.bowl("9/");
    until("the centre raised the duplicate lane", || {
        let alarms = centre.get("/api/centre")["alarms"].clone();
        let raised = alarms
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["kind"] == "duplicate_lane" && a["lane"] == 2);
        raised.then_some(()).ok_or(format!("alarms: {alarms}"))
    });
    drop(impostor);
    real.bowl("72");
    // Each history in a file of its own, byte for byte as far as the
    // mirror has it: a prefix of that lane's journal, never another's.
    let (name, _) = journal_file(&real);
    let own = real.journal_text();
    until("the real lane's journal mirrored", || {
        let copy = std::fs::read_to_string(state.join("lanes/2").join(&name)).unwrap_or_default();
        (copy == own)
            .then_some(())
            .ok_or(format!("{} of {} bytes", copy.len(), own.len()))
    });
    for entry in std::fs::read_dir(state.join("lanes/2")).unwrap() {
        let path = entry.unwrap().path();
        let copy = std::fs::read_to_string(&path).unwrap();
        let file = path.file_name().unwrap().to_str().unwrap();
        let source = dir.join("impostor/journal").join(file);
        let source = if file == name {
            own.clone()
        } else {
            std::fs::read_to_string(&source).unwrap_or_else(|_| panic!("{file}: whose?"))
        };
        assert!(
            source.starts_with(&copy),
            "{file} is not one lane's journal"
        );
    }
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_second_lane_2_on_the_embedded_broker_raises_the_alarm_and_is_never_spliced() {
    let dir = temp("dup-embedded");
    a_second_lane_2(&dir, Via::Embedded(free_port()));
}

#[test]
fn a_second_lane_2_on_mosquitto_raises_the_alarm_and_is_never_spliced() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp("dup-mosquitto");
    let broker = secure_mosquitto(&dir);
    a_second_lane_2(&dir, Via::MosquittoLogins(broker.port));
}

/// A flood of bare connections that never log in, held open, does not
/// keep a lane with its login out of the embedded broker, nor its lines
/// out of the mirror.
#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_connect_flood_keeps_no_lane_out() {
    let dir = temp("flood");
    let (state, web, mqtt) = (dir.join("state"), free_port(), free_port());
    let config = centre_config(&dir, &state, web, Via::Embedded(mqtt));
    let mut centre = Centre::start(&config, web);
    let mut lane1 = lane(&dir, 1, mqtt);
    lane1.bowl("X");
    assert_agree(&mut centre, &state, &[&lane1], "before the flood");
    support::raise_file_limit(4096);
    // More than the broker's 1024 connections, in bounded time.
    let flood: Vec<TcpStream> = (0..1200)
        .filter_map(|_| TcpStream::connect(("127.0.0.1", mqtt)).ok())
        .collect();
    let since = Instant::now();
    let lane2 = Attacker::connect_as(mqtt, "lane2", Some(("lane2", &lane_secret(2))), true);
    assert_eq!(lane2.answer(), ConnectReturnCode::Success);
    assert!(
        since.elapsed() < Duration::from_secs(5),
        "a lane with its login waited {:?}",
        since.elapsed()
    );
    lane1.bowl("9/");
    assert_agree(&mut centre, &state, &[&lane1], "under the flood");
    // Each connection that never logged in is closed.
    let mut first = flood.into_iter().next().unwrap();
    assert!(support::closed_within(&mut first, Duration::from_secs(20)));
}

/// With Mosquitto taking anyone (no logins, no ACL), what reaches the
/// centre is all the attacker's: 2,000 lane numbers and 50 retained
/// payloads of 1 MB. The centre keeps only the lanes it knows (`lanes`),
/// stays under 150 MB, and a real lane started after the flood is
/// mirrored.
#[test]
fn a_flood_of_lane_numbers_and_big_payloads_keeps_the_centre_small() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp("numbers");
    let broker = support::mosquitto::Broker::start(&dir, "");
    let (state, web) = (dir.join("state"), free_port());
    let config = centre_config(&dir, &state, web, Via::Mosquitto(broker.port));
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("lanes = \"1-2\"\n{text}")).unwrap();
    let mut centre = Centre::start(&config, web);
    centre.wait_connected();
    let attacker = Attacker::connect(broker.port, "numbers", None);
    assert_eq!(attacker.answer(), ConnectReturnCode::Success);
    for n in 3..2003 {
        attacker.publish(&topic(n, "status"), true, "online");
    }
    let big = json!({"pad": "x".repeat(1_000_000)}).to_string();
    for n in 100..150 {
        attacker.publish(&topic(n, "state"), true, big.clone());
    }
    until("every forged lane refused", || {
        let n = centre.get("/api/centre")["refused_total"]
            .as_u64()
            .unwrap_or(0);
        (n >= 2050)
            .then_some(())
            .ok_or(format!("{n} refused: {}", centre.get("/api/centre")))
    });
    let mut lane1 = lane(&dir, 1, broker.port);
    lane1.bowl("X 9/");
    assert_agree(&mut centre, &state, &[&lane1], "after the flood");
    let lanes = centre.http.request("GET", "/api/lanes", &[], b"").unwrap();
    assert!(
        lanes.body.len() < 200_000,
        "/api/lanes is {} bytes",
        lanes.body.len()
    );
    let status = std::fs::read_to_string(format!("/proc/{}/status", centre.child.id())).unwrap();
    let rss_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap();
    assert!(rss_kb < 150 * 1024, "the centre holds {rss_kb} kB");
}

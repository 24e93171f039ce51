//! The lane's link to the centre (docs/mqtt.md) against a real Mosquitto,
//! started here on a free port with its own config, and real `lanecall
//! run` daemons with a pseudo-terminal pinsetter; a rumqttc client in the
//! test plays the centre.
//!
//! Only what needs the whole chain is here. The link's logic, what it
//! publishes when (the lines not acknowledged sent again on a new
//! connection and across a new journal, the window, resends, the state
//! again while the lane delivers) and a neighbour's `delivering` that
//! expires, is unit-tested with the clock held, without a broker
//! (`src/centre_link/publishing_tests.rs`, `neighbours.rs`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rumqttc::{Client, Event, Incoming, MqttOptions, QoS, Transport};
use serde_json::{Value, json};

use crate::support;

const SITE: &str = "t";

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lanecall-centre-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

use support::centre_lane::{Lane, PIN, wait};
use support::mosquitto::Broker;

// ----- the centre: a client in the test -----------------------------------

#[derive(Clone, Debug)]
struct Msg {
    topic: String,
    payload: Vec<u8>,
    retain: bool,
}

impl Msg {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.payload).unwrap_or(Value::Null)
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.payload).into_owned()
    }
}

struct Centre {
    client: Client,
    got: Arc<Mutex<Vec<Msg>>>,
}

impl Centre {
    /// Connects as `id`, subscribing to `subs` at every connection; a
    /// persistent session unless `clean`.
    fn connect(broker: &Broker, id: &str, login: Option<(&str, &str)>, subs: &[&str]) -> Centre {
        Centre::connect_over(broker, id, login, subs, Transport::Tcp)
    }

    fn connect_over(
        broker: &Broker,
        id: &str,
        login: Option<(&str, &str)>,
        subs: &[&str],
        transport: Transport,
    ) -> Centre {
        let mut options = MqttOptions::new(id, "127.0.0.1", broker.port);
        options
            .set_transport(transport)
            .set_keep_alive(Duration::from_secs(5))
            .set_clean_session(false)
            .set_max_packet_size(1 << 20, 1 << 20);
        if let Some((u, p)) = login {
            options.set_credentials(u, p);
        }
        let (client, mut connection) = Client::new(options, 256);
        let got = Arc::new(Mutex::new(Vec::new()));
        let (sub, sink) = (client.clone(), got.clone());
        let subs: Vec<String> = subs.iter().map(|s| s.to_string()).collect();
        std::thread::spawn(move || {
            for ev in connection.iter() {
                match ev {
                    Ok(Event::Incoming(Incoming::ConnAck(_))) => {
                        for s in &subs {
                            let _ = sub.try_subscribe(s, QoS::AtLeastOnce);
                        }
                    }
                    Ok(Event::Incoming(Incoming::Publish(p))) => sink.lock().unwrap().push(Msg {
                        topic: p.topic.clone(),
                        payload: p.payload.to_vec(),
                        retain: p.retain,
                    }),
                    Ok(_) => {}
                    Err(rumqttc::ConnectionError::RequestsDone) => return,
                    // Pacing a reconnect, as a real client does.
                    Err(_) => std::thread::sleep(Duration::from_millis(100)),
                }
            }
        });
        Centre { client, got }
    }

    fn on(&self, topic: &str) -> Vec<Msg> {
        self.got
            .lock()
            .unwrap()
            .iter()
            .filter(|m| m.topic == topic)
            .cloned()
            .collect()
    }

    fn send(&self, topic: &str, payload: impl Into<Vec<u8>>, retain: bool) {
        self.client
            .publish(topic, QoS::AtLeastOnce, retain, payload)
            .unwrap();
    }

    /// Sends a command to lane `n` and waits for the reply with its id.
    fn command(&self, lane: u32, cmd: Value) -> Value {
        let id = cmd["id"].clone();
        self.send(&topic(lane, "command"), cmd.to_string(), false);
        let mut reply = Value::Null;
        wait(&format!("a reply to {cmd}"), || {
            match self
                .on(&topic(lane, "reply"))
                .iter()
                .map(Msg::json)
                .find(|r| r["id"] == id)
            {
                Some(r) => {
                    reply = r;
                    true
                }
                None => false,
            }
        });
        reply
    }

    /// The journal lines received from lane `n`: (file, n) → line, the
    /// first copy kept; a copy with other text fails the test.
    fn journal(&self, lane: u32) -> BTreeMap<(String, u64), String> {
        let mut lines = BTreeMap::new();
        for m in self.on(&topic(lane, "journal")) {
            let v = m.json();
            let key = (
                v["file"].as_str().unwrap().to_owned(),
                v["n"].as_u64().unwrap(),
            );
            let line = v["line"].as_str().unwrap().to_owned();
            let old = lines.entry(key.clone()).or_insert_with(|| line.clone());
            assert_eq!(*old, line, "{key:?} came twice with other text");
        }
        lines
    }
}

impl Drop for Centre {
    fn drop(&mut self) {
        let _ = self.client.disconnect();
    }
}

fn topic(lane: u32, what: &str) -> String {
    format!("lanecall/{SITE}/lane/{lane}/{what}")
}

fn centre_keys(broker: &Broker, more: &str) -> String {
    format!(
        "broker = \"mqtt://127.0.0.1:{}\"\nsite = \"{SITE}\"\n{more}",
        broker.port
    )
}

/// The journal as the centre received it, file by file, each line once,
/// in order; fails on a gap.
fn rebuild(lines: &BTreeMap<(String, u64), String>, file: &str) -> String {
    let mut text = String::new();
    let mut next = 1;
    for ((f, n), line) in lines {
        if f == file {
            assert_eq!(*n, next, "line {next} of {file} never came");
            text.push_str(line);
            text.push('\n');
            next += 1;
        }
    }
    text
}

fn file_name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

// ----- the tests ----------------------------------------------------------

#[test]
fn journal_lines_state_and_status_reach_the_centre() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp("lines");
    let broker = Broker::start(&dir, "");
    let centre = Centre::connect(&broker, "centre-lines", None, &["lanecall/t/lane/3/#"]);
    let mut lane = Lane::start(&dir.join("lane"), 3, Some(centre_keys(&broker, "")));
    wait("online", || {
        centre
            .on(&topic(3, "status"))
            .last()
            .is_some_and(|m| m.text() == "online")
    });
    lane.bowl("X 9/ 72");
    let journal = lane.journal_path();
    let name = file_name(&journal);
    wait("every journal line at the centre", || {
        rebuild(&centre.journal(3), &name).len() == lane.journal_text().len()
    });
    assert_eq!(rebuild(&centre.journal(3), &name), lane.journal_text());
    // In format 2 a line's own n is the one published with it.
    for ((_, n), line) in centre.journal(3) {
        let own: Value = serde_json::from_str(&line).unwrap();
        if let Some(own) = own.get("n") {
            assert_eq!(own, &json!(n), "{line}");
        }
    }

    // The state: the lane's /api/lane, the latest always sent.
    let api = wait("the last state to be /api/lane", || {
        let api = lane.daemon.lane();
        let state = centre
            .on(&topic(3, "state"))
            .last()
            .map_or(Value::Null, Msg::json);
        if state == api {
            Ok(api)
        } else {
            Err(format!("state {state}, /api/lane {api}"))
        }
    });
    // Retained: a centre connecting now gets it at once.
    let late = Centre::connect(
        &broker,
        "centre-late",
        None,
        &["lanecall/t/lane/3/state", "lanecall/t/lane/3/status"],
    );
    wait("the retained state", || {
        !late.on(&topic(3, "state")).is_empty()
    });
    let first = late.on(&topic(3, "state"))[0].clone();
    assert!(first.retain);
    assert_eq!(first.json(), api);
    assert_eq!(api["delivering"], json!(false));
    wait("the retained status online", || {
        late.on(&topic(3, "status"))
            .last()
            .is_some_and(|m| m.retain && m.text() == "online")
    });

    // SIGKILL: the broker publishes the last will.
    lane.daemon.child.kill().unwrap();
    wait("offline by the last will", || {
        centre
            .on(&topic(3, "status"))
            .last()
            .is_some_and(|m| m.text() == "offline")
    });
    let _ = fs::remove_dir_all(&dir);
}

/// A broker that speaks only TLS, its certificate from a CA of the test's
/// own: a lane with `mqtts://` and that CA as `ca_file` publishes its
/// journal; `lanecall check-config` refuses a `ca_file` that holds no
/// certificate.
#[test]
fn over_tls_the_lane_publishes_its_journal() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp("tls");
    let tls = support::tls::TlsFiles::new(&dir, "site");
    let broker = Broker::start(&dir, &tls.mosquitto_lines());
    let url = format!("mqtts://localhost:{}", broker.port);
    let transport = lanecall::mqtt::BrokerUrl::parse(&url)
        .unwrap()
        .transport(Some(&tls.ca))
        .unwrap();
    let centre = Centre::connect_over(
        &broker,
        "centre-tls",
        None,
        &["lanecall/t/lane/4/#"],
        transport,
    );
    let keys = format!(
        "broker = {url:?}\nsite = \"{SITE}\"\nca_file = {:?}\n",
        tls.ca
    );
    let mut lane = Lane::start(&dir.join("lane"), 4, Some(keys));
    wait("online over TLS", || {
        centre
            .on(&topic(4, "status"))
            .last()
            .is_some_and(|m| m.text() == "online")
    });
    lane.bowl("X 9/");
    let name = file_name(&lane.journal_path());
    wait("every journal line over TLS", || {
        rebuild(&centre.journal(4), &name) == lane.journal_text()
    });

    let config = dir.join("lane/lanecall.toml");
    let text = fs::read_to_string(&config).unwrap();
    fs::write(&tls.ca, "not a certificate\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lanecall"))
        .args(["check-config", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    let said =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("centre.ca_file") && said.contains("holds no certificate"),
        "{said}\n{text}"
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_clean_stop_says_offline_itself() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp("stop");
    let broker = Broker::start(&dir, "");
    let centre = Centre::connect(&broker, "centre-stop", None, &["lanecall/t/lane/5/#"]);
    let lane = Lane::start(&dir.join("lane"), 5, Some(centre_keys(&broker, "")));
    wait("online", || {
        centre
            .on(&topic(5, "status"))
            .last()
            .is_some_and(|m| m.text() == "online")
    });
    // The broker has every journal line: the stop has none in flight to
    // wait for (it waits at most 2 s, then leaves `offline` to the will,
    // which a busy machine would make this test's unclean disconnect).
    let name = file_name(&lane.journal_path());
    wait("every journal line at the centre", || {
        rebuild(&centre.journal(5), &name).len() == lane.journal_text().len()
    });
    assert!(lane.daemon.stop().success());
    wait("offline", || {
        centre
            .on(&topic(5, "status"))
            .last()
            .is_some_and(|m| m.text() == "offline")
    });
    // Said by the lane, then a goodbye: the broker saw a clean disconnect,
    // so the offline is not its last will. The broker may pass the
    // `offline` on before it has taken the goodbye and logged it.
    let log = dir.join("mosquitto.log");
    wait("a clean disconnect in the broker's log", || {
        fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("Client lanecall-t-lane-5 disconnected.")
    });
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_broker_killed_and_restarted_mid_block_loses_no_line() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp("restart");
    let mut broker = Broker::start(&dir, "");
    let centre = Centre::connect(&broker, "centre-restart", None, &["lanecall/t/lane/4/#"]);
    let mut lane = Lane::start(&dir.join("lane"), 4, Some(centre_keys(&broker, "")));
    lane.bowl("X 9/");
    let name = file_name(&lane.journal_path());
    wait("the first frames at the centre", || {
        rebuild(&centre.journal(4), &name).len() == lane.journal_text().len()
    });
    // The centre's persistent session is saved, as its autosave does.
    broker.save();
    // Balls bowled while the broker is frozen: sent, never acknowledged,
    // then lost with the broker.
    broker.freeze();
    let before = centre.journal(4).len();
    let unread = broker.unread();
    lane.bowl("72");
    wait("the lane's lines in the frozen broker's socket", || {
        broker.unread() > unread
    });
    broker.kill();
    // And balls bowled while it is down: journaled, not sent.
    lane.bowl("X");
    assert_eq!(centre.journal(4).len(), before);
    broker.run();
    // No resend asked: the lane sends them by itself once it is back.
    wait("the lines bowled while the broker was down", || {
        rebuild_len(&centre, &name) == lane.journal_text().len()
    });
    // And a ball after it is back.
    lane.bowl("8-");
    wait("every line", || {
        rebuild_len(&centre, &name) == lane.journal_text().len()
    });
    assert_eq!(rebuild(&centre.journal(4), &name), lane.journal_text());
    assert!(centre.on(&topic(4, "command")).is_empty());
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_centre_started_late_mirrors_the_lanes_journals_of_the_day_byte_for_byte() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp("late");
    let broker = Broker::start(&dir, "");
    // The lane bowls with a broker and no centre: its lines reach nobody.
    let mut lane = Lane::start(&dir.join("lane"), 4, Some(centre_keys(&broker, "")));
    lane.bowl("X 9/ 72 X X 8- 9/ 9- X X9/");
    let first = lane.journal_path();
    let (status, body) = lane.daemon.action(json!({"ev":"end_block"}));
    assert_eq!(status, 200, "{body}");
    let (status, body) = lane
        .daemon
        .action(json!({"ev":"lineup","bowlers":[{"name":"Anna Sokolova","class":"B2"}]}));
    assert_eq!(status, 200, "{body}");
    let second = lane.journal_path();
    assert_ne!(second, first, "a new journal for the next block");
    let (status, body) = lane.daemon.action(json!({"ev":"start_block","games":1}));
    assert_eq!(status, 200, "{body}");
    lane.bowl("9- X");
    // Then a centre starts, with no mirror of the lane.
    let web = support::free_port();
    let hash = lanecall::web::hash_pin(PIN).unwrap();
    let state = dir.join("centre");
    let config = dir.join("centre.toml");
    fs::write(
        &config,
        format!(
            "site = \"{SITE}\"\nstate_dir = {state:?}\nbroker = \"mqtt://127.0.0.1:{}\"\n\
             [web]\nlisten = \"127.0.0.1:{web}\"\njudge_pin_hash = {hash:?}\n",
            broker.port
        ),
    )
    .unwrap();
    let mut centre = Command::new(env!("CARGO_BIN_EXE_lanecall"))
        .args(["centre", "--config"])
        .arg(&config)
        .stdout(std::process::Stdio::null())
        .stderr(fs::File::create(dir.join("centre.log")).unwrap())
        .spawn()
        .unwrap();
    // Both journals of the day, the ended block's and the open one's.
    for file in [&first, &second] {
        let mirror = state.join("lanes/4").join(file_name(file));
        let text = fs::read_to_string(file).unwrap();
        wait(&format!("{} mirrored", file_name(file)), || {
            fs::read_to_string(&mirror).is_ok_and(|m| m == text)
        });
    }
    let _ = centre.kill();
    let _ = centre.wait();
    let _ = fs::remove_dir_all(&dir);
}

/// The length of the journal rebuilt so far, up to its first gap.
fn rebuild_len(centre: &Centre, file: &str) -> usize {
    let mut len = 0;
    let mut next = 1;
    for ((f, n), line) in centre.journal(4) {
        if f == file {
            if n != next {
                break;
            }
            len += line.len() + 1;
            next += 1;
        }
    }
    len
}

#[test]
fn commands_are_journaled_by_the_centre_and_answered() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp("commands");
    let broker = Broker::start(&dir, "");
    let centre = Centre::connect(
        &broker,
        "centre-commands",
        None,
        &[
            "lanecall/t/lane/+/reply",
            "lanecall/t/lane/+/journal",
            "lanecall/t/lane/+/state",
        ],
    );
    let mut taking = Lane::start(
        &dir.join("lane6"),
        6,
        Some(centre_keys(&broker, "accept_commands = true")),
    );
    let refusing = Lane::start(&dir.join("lane7"), 7, Some(centre_keys(&broker, "")));
    broker.wait_subscribed("lanecall-t-lane-6", "lanecall/t/lane/6/command");
    broker.wait_subscribed("lanecall-t-lane-7", "lanecall/t/lane/7/command");

    let hold =
        json!({"id":"c-1","by":"Ivanova","action":{"ev":"hold","on":true,"reason":"lane 8 oil"}});
    assert_eq!(
        centre.command(6, hold.clone()),
        json!({"id":"c-1","ok":true})
    );
    let text = taking.journal_text();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["ev"], "hold");
    assert_eq!(last["by"], "centre: Ivanova");
    assert_eq!(last["reason"], "lane 8 oil");
    assert_eq!(taking.daemon.lane()["hold"]["reason"], "lane 8 oil");

    // The lane's own refusal: a lineup while the block is open.
    let lineup = json!({"id":"c-2","by":"Ivanova","action":{"ev":"lineup","bowlers":[{"name":"Orlov","class":"B1"}]}});
    let reply = centre.command(6, lineup);
    assert_eq!(reply["ok"], json!(false), "{reply}");
    let refused = reply["error"].as_str().unwrap().to_owned();
    assert!(!refused.is_empty());
    let last: Value = serde_json::from_str(taking.journal_text().lines().last().unwrap()).unwrap();
    assert_eq!(
        (last["ev"].as_str(), last["by"].as_str()),
        (Some("lineup"), Some("centre: Ivanova")),
        "a refused action is journaled all the same"
    );

    // Malformed commands: the reason, with the id when there is one.
    let r = centre.command(
        6,
        json!({"id":"c-3","by":"Ivanova","action":{"ev":"correct_ball"}}),
    );
    assert_eq!(r["ok"], json!(false));
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("only the actions lineup and hold"),
        "{r}"
    );
    centre.send(&topic(6, "command"), "{not json", false);
    wait("a reply with id null", || {
        centre.on(&topic(6, "reply")).iter().any(|m| {
            let v = m.json();
            v["id"].is_null()
                && v["ok"] == json!(false)
                && v["error"]
                    .as_str()
                    .is_some_and(|e| e.starts_with("a command is one JSON object"))
        })
    });
    let r = centre.command(
        6,
        json!({"id":"c-4","resend":{"file":"../lanecall.toml","from":1}}),
    );
    assert_eq!(r["ok"], json!(false), "{r}");

    // A resend publishes the named journal's lines again from `from`.
    // It publishes the lane's state again too, so a centre that missed it
    // learns how far to ask.
    let name = file_name(&taking.journal_path());
    let before = centre.on(&topic(6, "journal")).len();
    let states = centre.on(&topic(6, "state")).len();
    let r = centre.command(6, json!({"id":"c-5","resend":{"file":name,"from":2}}));
    assert_eq!(r, json!({"id":"c-5","ok":true}));
    let total = taking.journal_text().lines().count();
    wait("the lines again", || {
        centre.on(&topic(6, "journal")).len() >= before + total - 1
    });
    let again: Vec<u64> = centre.on(&topic(6, "journal"))[before..]
        .iter()
        .map(|m| m.json()["n"].as_u64().unwrap())
        .collect();
    assert_eq!(again, (2..=total as u64).collect::<Vec<_>>());
    wait("the state again", || {
        centre.on(&topic(6, "state")).len() > states
    });
    let state = centre.on(&topic(6, "state")).last().unwrap().json();
    assert_eq!(state["journal"]["file"], json!(name));
    assert_eq!(state["journal"]["lines"], json!(total));

    // A lane that does not take commands says so and journals nothing.
    let before = refusing.journal_text();
    let reply = centre.command(
        7,
        json!({"id":"c-6","by":"Ivanova","action":{"ev":"hold","on":true}}),
    );
    assert_eq!(
        reply,
        json!({"id":"c-6","ok":false,"error":"this lane does not take commands from the centre (centre.accept_commands = false)"})
    );
    assert_eq!(refusing.journal_text(), before);
    let _ = fs::remove_dir_all(&dir);
}

/// The centre pushes a block of its programme: the lineup command carries
/// the block's id and games. The lane refuses to start it with other
/// games, starts it with its own, calls it by the centre's id, and says
/// it is complete once its one game is bowled: a 1-game step-ladder match
/// is never bowled into a second game.
#[test]
fn a_pushed_lineup_starts_the_centres_block_with_its_games_only() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp("block-plan");
    let broker = Broker::start(&dir, "");
    let centre = Centre::connect(&broker, "centre-plan", None, &["lanecall/t/lane/+/reply"]);
    // A judge with a PIN of their own (not the chief judge) on the panel.
    let own = lanecall::web::hash_pin("135790").unwrap();
    let keys = format!(
        "accept_commands = true\n[[web.judges]]\nname = \"Judge Sidorov\"\npin_hash = {own:?}"
    );
    let mut lane = Lane::start(&dir.join("lane5"), 5, Some(centre_keys(&broker, &keys)));
    lane.daemon.login("135790");
    broker.wait_subscribed("lanecall-t-lane-5", "lanecall/t/lane/5/command");
    let (status, body) = lane.daemon.action(json!({"ev":"end_block"}));
    assert_eq!(status, 200, "{body}");
    let lineup = json!({"id":"c-9","by":"Ivanova","action":{"ev":"lineup",
        "bowlers":[{"name":"Anna Sokolova","class":"B2"}],"block":"SL-B2-M1","games":1}});
    assert_eq!(centre.command(5, lineup), json!({"id":"c-9","ok":true}));
    let line: Value = serde_json::from_str(lane.journal_text().lines().last().unwrap()).unwrap();
    assert_eq!(
        (&line["block"], &line["games"]),
        (&json!("SL-B2-M1"), &json!(1))
    );
    let next = lane.daemon.lane()["next_block"].clone();
    assert_eq!(next["name"], "SL-B2-M1", "{next}");
    assert_eq!(next["games"], 1, "{next}");

    // The panel's old default of 3 games: refused to a judge, saying why.
    let (status, body) = lane.daemon.action(json!({"ev":"start_block","games":3}));
    assert_ne!(status, 200, "{body}");
    assert!(
        body.contains(
            "block SL-B2-M1 has 1 game(s) in the centre's programme: start it with 1, not 3 (other games only by the chief judge"
        ),
        "{body}"
    );
    assert!(
        lane.daemon.lane()["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["ended"] == true)
    );
    let (status, body) = lane.daemon.action(json!({"ev":"start_block","games":1}));
    assert_eq!(status, 200, "{body}");
    let block = |lane: &mut Lane| {
        lane.daemon.lane()["blocks"]
            .as_array()
            .unwrap()
            .last()
            .cloned()
            .unwrap()
    };
    let b = block(&mut lane);
    assert_eq!(
        (&b["name"], &b["games"], &b["complete"]),
        (&json!("SL-B2-M1"), &json!(1), &json!(false)),
        "{b}"
    );
    lane.bowl("X X X X X X X X X XXX");
    wait("the block complete", || {
        block(&mut lane)["complete"] == true
    });
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_client_without_the_right_credentials_cannot_command_the_lane() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp("acl");
    let passwords = dir.join("passwords");
    for (i, (user, pass)) in [
        ("lane8", "l8-secret"),
        ("chief", "c-secret"),
        ("guest", "g-secret"),
    ]
    .iter()
    .enumerate()
    {
        let mut cmd = Command::new(
            support::require_tool("mosquitto_passwd", "mosquitto").expect("mosquitto_passwd"),
        );
        if i == 0 {
            cmd.arg("-c");
        }
        let ok = cmd
            .args(["-b"])
            .arg(&passwords)
            .args([user, pass])
            .status()
            .expect("mosquitto_passwd (Debian package `mosquitto`)");
        assert!(ok.success());
    }
    let acl = dir.join("acl");
    fs::write(
        &acl,
        "user lane8\ntopic readwrite lanecall/t/lane/8/#\n\
         user chief\ntopic readwrite lanecall/t/#\n\
         user guest\ntopic read lanecall/t/#\n",
    )
    .unwrap();
    let broker = Broker::start(
        &dir,
        &format!(
            "password_file {}\nacl_file {}\n",
            passwords.display(),
            acl.display()
        ),
    );
    let secret = dir.join("lane-password");
    fs::write(&secret, "l8-secret\n").unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o600)).unwrap();
    let lane = Lane::start(
        &dir.join("lane"),
        8,
        Some(centre_keys(
            &broker,
            &format!(
                "username = \"lane8\"\npassword_file = {:?}\naccept_commands = true",
                secret.display().to_string()
            ),
        )),
    );
    let chief = Centre::connect(
        &broker,
        "chief",
        Some(("chief", "c-secret")),
        &["lanecall/t/lane/8/#"],
    );
    wait("the lane online with its credentials", || {
        chief
            .on(&topic(8, "status"))
            .last()
            .is_some_and(|m| m.text() == "online")
    });
    let before = lane.journal_text();
    let hold = |id: &str| json!({"id": id,"by":"Intruder","action":{"ev":"hold","on":true}});
    // A user the ACL lets read only, and a wrong password.
    let guest = Centre::connect(&broker, "guest", Some(("guest", "g-secret")), &[]);
    let wrong = Centre::connect(&broker, "wrong", Some(("chief", "guess")), &[]);
    wait("the guest logged in and the wrong password refused", || {
        broker.logged(" as guest ") && broker.logged("disconnected, not authorised")
    });
    guest.send(&topic(8, "command"), hold("g-1").to_string(), false);
    let _ = wrong.client.try_publish(
        topic(8, "command"),
        QoS::AtLeastOnce,
        false,
        hold("w-1").to_string(),
    );
    // The chief's command, sent after them, is the one answered.
    assert_eq!(
        chief.command(
            8,
            json!({"id":"c-1","by":"Ivanova","action":{"ev":"hold","on":true}})
        ),
        json!({"id":"c-1","ok":true})
    );
    let replies: Vec<Value> = chief.on(&topic(8, "reply")).iter().map(Msg::json).collect();
    assert_eq!(replies, [json!({"id":"c-1","ok":true})]);
    let text = lane.journal_text();
    let added: Vec<&str> = text[before.len()..].lines().collect();
    assert_eq!(added.len(), 1, "{added:?}");
    assert!(added[0].contains("\"by\":\"centre: Ivanova\""), "{added:?}");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_neighbours_delivering_is_journaled() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp("neighbour");
    let mut broker = Broker::start(&dir, "");
    let centre = Centre::connect(
        &broker,
        "centre-neighbour",
        None,
        &["lanecall/t/lane/9/status"],
    );
    let lane = Lane::start(
        &dir.join("lane"),
        9,
        Some(centre_keys(&broker, "neighbours = [10]")),
    );
    wait("online", || !centre.on(&topic(9, "status")).is_empty());
    broker.wait_subscribed("lanecall-t-lane-9", "lanecall/t/lane/10/state");
    broker.wait_subscribed("lanecall-t-lane-9", "lanecall/t/lane/10/status");
    let events = |lane: &Lane| -> Vec<Value> {
        lane.journal_text()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|v| v["ev"] == "neighbour")
            .map(|v| json!({"lane": v["lane"], "busy": v["busy"]}))
            .collect()
    };
    let state = |delivering: bool| json!({"lane": 10, "delivering": delivering}).to_string();
    centre.send(&topic(10, "state"), state(true), true);
    wait("busy", || events(&lane).len() == 1);
    // The same again is no change.
    centre.send(&topic(10, "state"), state(true), true);
    centre.send(&topic(10, "state"), state(false), true);
    wait("clear", || events(&lane).len() == 2);
    centre.send(&topic(10, "state"), state(true), true);
    wait("busy again", || events(&lane).len() == 3);
    // The neighbour drops off: not busy.
    centre.send(&topic(10, "status"), "offline", true);
    wait("clear when offline", || events(&lane).len() == 4);
    // Busy again, then this lane loses the broker: not busy.
    centre.send(&topic(10, "status"), "online", true);
    centre.send(&topic(10, "state"), state(false), true);
    centre.send(&topic(10, "state"), state(true), true);
    wait("busy once more", || events(&lane).len() == 5);
    broker.kill();
    wait("clear when the broker is lost", || events(&lane).len() == 6);
    assert_eq!(
        events(&lane),
        [true, false, true, false, true, false].map(|busy| json!({"lane": 10, "busy": busy}))
    );
    let _ = fs::remove_dir_all(&dir);
}

/// The TCP connections a process has open but its listening sockets and
/// the panel's (`http`), as `local -> remote` (hex, as the kernel shows).
fn connections(pid: u32, http: u16) -> Vec<String> {
    let panel = format!(":{http:04X}");
    let inodes: Vec<String> = fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(|e| fs::read_link(e.ok()?.path()).ok())
        .filter_map(|l| {
            let l = l.to_string_lossy().into_owned();
            Some(l.strip_prefix("socket:[")?.strip_suffix(']')?.to_owned())
        })
        .collect();
    let mut out = Vec::new();
    for table in ["tcp", "tcp6"] {
        let text = fs::read_to_string(format!("/proc/{pid}/net/{table}")).unwrap_or_default();
        for row in text.lines().skip(1) {
            let f: Vec<&str> = row.split_whitespace().collect();
            // State 0A is LISTEN.
            if f.len() > 9
                && inodes.contains(&f[9].to_owned())
                && f[3] != "0A"
                && !f[1].ends_with(&panel)
            {
                out.push(format!("{} -> {}", f[1], f[2]));
            }
        }
    }
    out
}

#[test]
fn a_lane_without_centre_makes_no_connection() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp("none");
    let broker = Broker::start(&dir, "");
    let with = Lane::start(&dir.join("with"), 11, Some(centre_keys(&broker, "")));
    let mut without = Lane::start(&dir.join("without"), 12, None);
    without.bowl("X");
    let port = format!(":{:04X}", broker.port);
    // The control: a lane with [centre] is connected to the broker.
    wait("the lane with [centre] connected", || {
        connections(with.daemon.child.id(), with.http)
            .iter()
            .any(|c| c.ends_with(&port))
    });
    // Time for a connection the lane should not make (none is awaited).
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        connections(without.daemon.child.id(), without.http),
        Vec::<String>::new(),
        "a lane without [centre] opened a connection"
    );
    let _ = fs::remove_dir_all(&dir);
}

// ----- commands and neighbours the lane can trust ------------------------------

/// The command ids the lane's journal holds, in order.
fn cmd_ids(lane: &Lane) -> Vec<String> {
    lane.journal_text()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| Some(v["cmd"].as_str()?.to_owned()))
        .collect()
}

#[test]
fn a_command_id_runs_once_even_across_a_restart_and_a_retained_command_never() {
    if !support::mosquitto_tools() {
        return;
    }
    let dir = temp("once");
    let broker = Broker::start(&dir, "");
    let centre = Centre::connect(
        &broker,
        "centre-once",
        None,
        &["lanecall/t/lane/6/reply", "lanecall/t/lane/6/state"],
    );
    // Kept by the broker before the lane comes: replayed at its subscribe.
    let retained =
        json!({"id":"c-40","by":"Ivanova","action":{"ev":"hold","on":true,"reason":"old"}});
    centre.send(&topic(6, "command"), retained.to_string(), true);
    let keys = centre_keys(&broker, "accept_commands = true");
    let lane = Lane::start(&dir.join("lane6"), 6, Some(keys.clone()));
    // The lane subscribes before it publishes its state.
    wait("the lane's state", || {
        !centre.on(&topic(6, "state")).is_empty()
    });

    let hold = json!({"id":"c-41","by":"Ivanova","action":{"ev":"hold","on":true,"reason":"oil"}});
    assert_eq!(
        centre.command(6, hold.clone()),
        json!({"id":"c-41","ok":true})
    );
    assert_eq!(cmd_ids(&lane), ["c-41"], "the retained c-40 never ran");
    let answered: Vec<Value> = centre
        .on(&topic(6, "reply"))
        .iter()
        .map(|m| m.json()["id"].clone())
        .collect();
    assert_eq!(answered, [json!("c-41")], "nor was it answered");

    // The same id again: answered, not run.
    let again = json!({"id":"c-41","by":"Ivanova","action":{"ev":"hold","on":false}});
    let expect = json!({"id":"c-41","ok":false,"error":"command c-41 was run already"});
    let n = centre.on(&topic(6, "reply")).len();
    centre.send(&topic(6, "command"), again.to_string(), false);
    wait("the second reply", || {
        centre.on(&topic(6, "reply")).len() > n
    });
    assert_eq!(centre.on(&topic(6, "reply"))[n].json(), expect);
    assert_eq!(cmd_ids(&lane), ["c-41"]);

    // After a restart the lane still knows it, from its journal.
    let journal = lane.journal_text();
    drop(lane);
    let states = centre.on(&topic(6, "state")).len();
    let lane = Lane::start_with(&dir.join("lane6"), 6, Some(keys), &journal);
    wait("the restarted lane's state", || {
        centre.on(&topic(6, "state")).len() > states
    });
    let n = centre.on(&topic(6, "reply")).len();
    centre.send(&topic(6, "command"), again.to_string(), false);
    wait("the reply after the restart", || {
        centre.on(&topic(6, "reply")).len() > n
    });
    assert_eq!(centre.on(&topic(6, "reply"))[n].json(), expect);
    assert_eq!(cmd_ids(&lane), ["c-41"]);
    let _ = fs::remove_dir_all(&dir);
}

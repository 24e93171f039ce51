//! The centre's results protocol printed on A4 and its TV at 1920×1080, in
//! headless Chromium (tests/browser/protocol.mjs and tv.mjs), with the
//! example programme (tests/programme/example.toml) and journals already
//! in the centre's mirror: blocks S1, S2 and D1 bowled (one game each), as
//! a centre started again finds them.

use crate::support;

use std::path::Path;
use std::time::Duration;

use rumqttc::{Client, MqttOptions, QoS};
use serde_json::json;
use support::centre::Centre;
use support::{eventually, free_port};

const PIN: &str = "246810";

/// Lane, journal seq and the two bowlers: each journal is
/// tests/logs/slow_bowling_hold.jsonl (Dmitri Orlov 173, then Yulia
/// Petrova) with its two bowlers renamed, so the centre places it in the
/// programme's block that puts them on that lane.
const JOURNALS: [(u32, u64, &str, &str); 8] = [
    (1, 1, "Anna Kuznetsova", "Olga Smirnova"),
    (2, 1, "Ivan Petrov", "Dmitri Orlov"),
    (3, 1, "Sergei Volkov", "Yulia Frolova"),
    (2, 2, "Anna Kuznetsova", "Olga Smirnova"),
    (3, 2, "Ivan Petrov", "Dmitri Orlov"),
    (4, 1, "Sergei Volkov", "Yulia Frolova"),
    (5, 1, "Anna Kuznetsova", "Ivan Petrov"),
    (6, 1, "Olga Smirnova", "Dmitri Orlov"),
];

/// The lanes the centre takes: more than a TV page holds.
const LANES: u32 = 20;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A centre with the example programme whose mirror already holds
/// [`JOURNALS`], and lanes 1 to [`LANES`] (empty folders for those with no
/// journal: each is a lane the centre knows). Its MQTT port with it.
fn centre(dir: &Path) -> (Centre, u16) {
    let state = dir.join("state");
    for lane in 1..=LANES {
        std::fs::create_dir_all(state.join("lanes").join(lane.to_string())).unwrap();
    }
    for (lane, seq, first, second) in JOURNALS {
        let name = format!("lane{lane}-2026112{}T100000Z-{seq:06}.jsonl", 7 + seq);
        let file = state.join("lanes").join(lane.to_string()).join(name);
        std::fs::write(file, support::bowled_journal(lane, seq, first, second)).unwrap();
    }
    let (web, mqtt) = (free_port(), free_port());
    let hash = lanecall::web::hash_pin(PIN).unwrap();
    let programme = root().join("tests/programme/example.toml");
    let config = dir.join("centre.toml");
    // Logins for lanes 1 to 3 (a lane answering commands reads its own
    // `command` topic); anyone else without one.
    let passwords = support::centre::write_logins(dir, 1..=3);
    std::fs::write(
        &config,
        format!(
            "site = \"cup\"\nstate_dir = {state:?}\nembedded_listen = \"127.0.0.1:{mqtt}\"\n\
             allow_anonymous = true\npasswords = {passwords:?}\nlanes = \"1-{LANES}\"\n\
             programme = {programme:?}\n\
             [web]\nlisten = \"127.0.0.1:{web}\"\njudge_pin_hash = {hash:?}\n"
        ),
    )
    .unwrap();
    let mut centre = Centre::start(&config, web);
    // Every journal read back: Dmitri's 173 in S1 and in S2.
    eventually("the mirror's journals in the standings", || {
        let s = centre.get("/api/standings");
        let dmitri = s["categories"][0]["entries"]
            .as_array()
            .and_then(|e| e.iter().find(|x| x["name"] == "Dmitri Orlov").cloned());
        match dmitri {
            Some(d) if d["games"].as_array().is_some_and(|g| g.len() == 2) => Ok(()),
            other => Err(format!("{other:?}")),
        }
    });
    (centre, mqtt)
}

/// Lane 1 says it is online and who is on it (as a lane publishes its
/// state, docs/mqtt.md); the client stays connected until dropped.
fn lane_one_online(centre: &mut Centre, mqtt: u16) -> Client {
    let mut opts = MqttOptions::new(format!("tv-test-{}", std::process::id()), "127.0.0.1", mqtt);
    opts.set_keep_alive(Duration::from_secs(5));
    let (client, mut connection) = Client::new(opts, 16);
    std::thread::spawn(move || for _ in connection.iter() {});
    let state = json!({
        "lane": 1,
        "bowlers": [
            { "name": "Anna Kuznetsova", "class": "B1", "games": [173], "series": 173 },
            { "name": "Olga Smirnova", "class": "B1", "games": [150], "series": 150 },
        ],
        "up": { "bowler": "Olga Smirnova", "game": 2, "frame": 1, "ball": 1, "standing": [] },
    });
    for (kind, payload) in [
        ("status", "online".to_owned()),
        ("state", state.to_string()),
    ] {
        client
            .publish(
                format!("lanecall/cup/lane/1/{kind}"),
                QoS::AtLeastOnce,
                true,
                payload,
            )
            .unwrap();
    }
    centre.wait_lane(1, "online, with its state", |l| {
        l["online"] == true && l["state"]["lane"] == 1
    });
    client
}

/// Lane `n` online on its own login, answering every command it is sent
/// with `reply` (its `id` added), as a lane does (docs/mqtt.md, "command
/// and reply"); until the test ends.
fn answering_lane(centre: &mut Centre, mqtt: u16, n: u32, reply: serde_json::Value) -> Client {
    use rumqttc::{Event, Packet};
    let mut opts = MqttOptions::new(format!("lane{n}"), "127.0.0.1", mqtt);
    opts.set_credentials(format!("lane{n}"), support::centre::lane_secret(n));
    opts.set_keep_alive(Duration::from_secs(5));
    let (client, mut connection) = Client::new(opts, 16);
    let topic = |kind: &str| format!("lanecall/cup/lane/{n}/{kind}");
    client
        .subscribe(topic("command"), QoS::AtLeastOnce)
        .unwrap();
    client
        .publish(topic("status"), QoS::AtLeastOnce, true, "online")
        .unwrap();
    let answers = client.clone();
    let replies = topic("reply");
    std::thread::spawn(move || {
        for event in connection.iter() {
            match event {
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    let Ok(command) = serde_json::from_slice::<serde_json::Value>(&p.payload)
                    else {
                        continue;
                    };
                    let mut answer = reply.clone();
                    answer["id"] = command["id"].clone();
                    let _ = answers.publish(&replies, QoS::AtLeastOnce, false, answer.to_string());
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
    });
    centre.wait_lane(u64::from(n), "online", |l| l["online"] == true);
    client
}

fn temp_dir(name: &str) -> crate::support::Scratch {
    crate::support::Scratch::new(name)
}

/// Runs tests/browser/`script` against the centre; its steps say what
/// failed.
fn browser(script: &str, centre: &Centre) {
    support::run_browser(script, centre.web, PIN);
}

#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn the_protocol_prints_on_a4_and_the_tv_fits_a_1920_by_1080_screen() {
    let dir = temp_dir("centre-protocol");
    let (mut centre, mqtt) = centre(&dir);
    // The page, as the centre's other pages are served.
    let page = centre.http.request("GET", "/protocol", &[], b"").unwrap();
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert!(page.header("content-security-policy").is_some());
    assert!(String::from_utf8_lossy(&page.body).contains("/centre/protocol.js"));
    // What it reads of the programme: the judges for the signature lines.
    let programme = centre.get("/api/programme");
    assert_eq!(
        programme["judges"][1],
        json!({ "role": "chief secretary", "name": "Pavel Sokolov" })
    );
    assert_eq!(programme["entries"][4]["handicap"], 8);
    if !support::browser_tools() {
        return;
    }
    browser("protocol.mjs", &centre);
    let lane = lane_one_online(&mut centre, mqtt);
    browser("tv.mjs", &centre);
    drop(lane);
    centre.stop();
}

/// A block's push on the page says what each lane answered
/// (tests/browser/push-answers.mjs): lane 1 refusing with its reason,
/// lane 2 accepting, lane 3 offline and held; and `POST /api/push`
/// answers each lane's status as `GET /api/pushes` lists it.
#[test]
#[cfg_attr(
    not(feature = "broker"),
    ignore = "needs the embedded broker (the `broker` feature)"
)]
fn a_push_shows_what_each_lane_answered_not_sent_for_all() {
    const REFUSAL: &str = "a game is in progress: finish it first";
    let dir = temp_dir("centre-push-answers");
    let (mut centre, mqtt) = centre(&dir);
    let _one = answering_lane(
        &mut centre,
        mqtt,
        1,
        json!({ "ok": false, "error": REFUSAL }),
    );
    let _two = answering_lane(&mut centre, mqtt, 2, json!({ "ok": true }));
    let (cookie, _) = centre.login(PIN, "chief judge");
    // The lanes are bowling S1 (their journals): pushed again, with why.
    let (status, body) = centre.post(Some(&cookie), "/api/push", &json!({ "block": "S1" }));
    assert_eq!(status, 409, "{body}");
    let again = json!({ "block": "S1", "again": true, "reason": "the lanes' answers checked" });
    let (status, body) = centre.post(Some(&cookie), "/api/push", &again);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["offline"], json!([3]), "{body}");
    assert_eq!(body["lanes"]["3"]["status"], "offline", "{body}");
    // Each lane as listed, once both have answered.
    let push = body["push"].clone();
    eventually("both lanes' answers in the push", || {
        let pushes = centre.get("/api/pushes");
        let p = pushes
            .as_array()
            .and_then(|ps| ps.iter().find(|p| p["id"] == push).cloned())
            .unwrap_or_default();
        match (&p["lanes"]["1"]["status"], &p["lanes"]["2"]["status"]) {
            (a, b) if a == "refused" && b == "accepted" => Ok(()),
            _ => Err(p.to_string()),
        }
    });
    assert_eq!(
        [
            &body["lanes"]["1"]["command"],
            &body["lanes"]["2"]["command"]
        ],
        [
            &centre.get("/api/pushes")[0]["lanes"]["1"]["command"],
            &centre.get("/api/pushes")[0]["lanes"]["2"]["command"]
        ]
    );
    if support::browser_tools() {
        browser("push-answers.mjs", &centre);
    }
    centre.stop();
}

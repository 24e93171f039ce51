//! The control API as the panel and scripts use it: a judge logs in, acts on
//! the lane, and the lane's thread (here a small fake one) takes or refuses
//! each action.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support;

use axum::Router;
use axum::body::{Body, Bytes, to_bytes};
use axum::extract::ConnectInfo;
use axum::http::{Request, Response, StatusCode, header};
use axum::response::IntoResponse;
use axum_extra::extract::cookie::{Cookie, Key, SignedCookieJar};
use futures_util::StreamExt;
use lanecall::lane::Panel;
use lanecall::lane::{Action, Refusal};
use lanecall::ports::{Input, NotTaken};
use lanecall::replay::Replay;
use lanecall::web::{ApiState, AuthSettings, LaneSnapshot, hash_pin, router, verify_pin};
use serde_json::{Value, json};
use tokio::sync::watch;
use tower::ServiceExt;

const PIN: &str = "246813";
/// The lane time the fake lane answers every action it takes with.
const ACTION_T: u64 = 4_000;
/// The event's title the fake lane's panel prints.
const EVENT: &str = "Moscow Cup, blind and visually impaired, men";
/// `hash_pin("246813")`, as `lanecall hash-pin 246813` would print it.
const PIN_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$r5DtFYrrh0Em8b6vpGgaeg$C7dnmSyV/yXUxYP+bLqmx5uiC3PcpPib0X6Kz6JJKyQ";

const SNAPSHOT: &str =
    r#"{"lane":7,"bowlers":[],"practice":[],"conduct":[],"callouts":[],"outputs":[],"errors":[]}"#;

fn key() -> Key {
    Key::from(&[7u8; 64])
}

/// What the fake lane thread was asked to do: who, and what.
type Taken = Arc<Mutex<Vec<(Option<String>, Action)>>>;

struct Lane {
    app: Router,
    taken: Taken,
    snapshots: watch::Sender<LaneSnapshot>,
}

/// The API over a fake lane thread that refuses `start_block` (Anna K. is B1
/// and nobody checked her blindfold) and takes everything else.
fn lane() -> Lane {
    let (inputs, rx) = lanecall::ports::inputs::channel(64);
    let taken = Taken::default();
    let record = taken.clone();
    std::thread::spawn(move || {
        while let Ok(input) = rx.recv() {
            match input {
                Input::Action { panel, reply } => {
                    let Panel { by, action, .. } = panel;
                    let answer = match action {
                        Action::StartBlock { .. } => {
                            Err(NotTaken::Refused(Refusal::BlindfoldsUnchecked(vec![
                                "Anna K.".into(),
                            ])))
                        }
                        _ => Ok(ACTION_T),
                    };
                    if let Ok(mut taken) = record.lock() {
                        taken.push((by, action));
                    }
                    if let Some(reply) = reply {
                        let _ = reply.send(answer);
                    }
                }
                Input::Shutdown => break,
                Input::Reading(_) => {}
            }
        }
    });
    let (snapshots, lane) = watch::channel(LaneSnapshot {
        version: 3,
        json: SNAPSHOT.into(),
    });
    let app = router(ApiState {
        inputs,
        lane,
        cookie_key: key(),
        auth: AuthSettings {
            session: Duration::from_secs(4 * 3600),
            ..AuthSettings::with_pin_hash(PIN_HASH)
        },
        journal_dir: None,
        live_views: 64,
        event: EVENT.into(),
    });
    Lane {
        app,
        taken,
        snapshots,
    }
}

async fn send(app: &Router, req: Request<Body>) -> Response<Body> {
    app.clone()
        .oneshot(req)
        .await
        .expect("the router never fails")
}

async fn json_of(res: Response<Body>) -> Value {
    let bytes = to_bytes(res.into_body(), usize::MAX).await.unwrap();
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{e}: {bytes:?}"))
}

fn post(uri: &str, cookie: Option<&str>, body: impl Into<String>) -> Request<Body> {
    let mut req = Request::post(uri).header(header::CONTENT_TYPE, "application/json");
    if let Some(c) = cookie {
        req = req.header(header::COOKIE, c);
    }
    req.body(Body::from(body.into())).unwrap()
}

fn get(uri: &str, cookie: Option<&str>) -> Request<Body> {
    let mut req = Request::get(uri);
    if let Some(c) = cookie {
        req = req.header(header::COOKIE, c);
    }
    req.body(Body::empty()).unwrap()
}

fn set_cookie(res: &Response<Body>) -> Option<String> {
    res.headers()
        .get(header::SET_COOKIE)
        .map(|v| v.to_str().unwrap().to_owned())
}

/// Logs in and gives the `Cookie` header value to send back.
async fn log_in(app: &Router, name: &str) -> String {
    let res = send(
        app,
        post(
            "/api/login",
            None,
            json!({"pin": PIN, "name": name}).to_string(),
        ),
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK);
    let cookie = set_cookie(&res).expect("a session cookie");
    cookie.split(';').next().unwrap().to_owned()
}

async fn act(app: &Router, cookie: &str, body: &str) -> (StatusCode, Value) {
    let res = send(app, post("/api/actions", Some(cookie), body)).await;
    (res.status(), json_of(res).await)
}

#[tokio::test]
async fn anyone_reads_the_lane_and_an_unchanged_lane_is_not_sent_again() {
    let lane = lane();
    let res = send(&lane.app, get("/api/lane", None)).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()[header::CONTENT_TYPE], "application/json");
    assert_eq!(res.headers()[header::ETAG], "\"3\"");
    let body = to_bytes(res.into_body(), usize::MAX).await.unwrap();
    assert_eq!(body, SNAPSHOT.as_bytes());

    let again = Request::get("/api/lane")
        .header(header::IF_NONE_MATCH, "\"3\"")
        .body(Body::empty())
        .unwrap();
    let res = send(&lane.app, again).await;
    assert_eq!(res.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(res.headers()[header::ETAG], "\"3\"");
    assert!(
        to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap()
            .is_empty()
    );

    // The lane moves on: the old tag no longer matches.
    lane.snapshots.send_replace(LaneSnapshot {
        version: 4,
        json: r#"{"lane":7}"#.into(),
    });
    let stale = Request::get("/api/lane")
        .header(header::IF_NONE_MATCH, "\"3\"")
        .body(Body::empty())
        .unwrap();
    let res = send(&lane.app, stale).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()[header::ETAG], "\"4\"");
    assert_eq!(json_of(res).await, json!({"lane": 7}));
}

#[tokio::test]
async fn an_action_without_a_login_is_refused_and_never_reaches_the_lane() {
    let lane = lane();
    let res = send(
        &lane.app,
        post("/api/actions", None, r#"{"ev":"hold","on":true}"#),
    )
    .await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(json_of(res).await, json!({"error": "a judge must log in"}));
    let res = send(&lane.app, get("/api/session", None)).await;
    assert_eq!(
        json_of(res).await,
        json!({"judge": null, "chief": false, "pin_names": false, "security": null, "event": EVENT})
    );
    assert!(lane.taken.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_wrong_pin_gives_no_session() {
    let lane = lane();
    let res = send(
        &lane.app,
        post(
            "/api/login",
            None,
            r#"{"pin":"135790","name":"Judge Orlova"}"#,
        ),
    )
    .await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert!(set_cookie(&res).is_none());
    assert_eq!(json_of(res).await, json!({"error": "wrong PIN"}));
}

#[tokio::test]
async fn a_judge_logs_in_and_the_lane_records_their_name_on_each_action() {
    let lane = lane();
    let res = send(
        &lane.app,
        post(
            "/api/login",
            None,
            r#"{"pin":"246813","name":"Judge Orlova"}"#,
        ),
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK);
    let set = set_cookie(&res).expect("a session cookie");
    assert!(set.starts_with("lanecall_session="), "{set}");
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=14400"] {
        assert!(set.contains(attribute), "{attribute} missing from {set}");
    }
    assert_eq!(json_of(res).await, json!({"name": "Judge Orlova"}));
    let cookie = set.split(';').next().unwrap();

    let res = send(&lane.app, get("/api/session", Some(cookie))).await;
    let session = json_of(res).await;
    assert_eq!(session["judge"], "Judge Orlova");
    assert_eq!(
        session["chief"], true,
        "the shared PIN is the chief judge's"
    );
    assert_eq!(session["security"]["wrong_pins"], 0);

    // A `by` in the body is not believed: the session says who acts.
    let (status, body) = act(
        &lane.app,
        cookie,
        r#"{"ev":"hold","on":true,"reason":"oil","by":"Somebody Else","t":99}"#,
    )
    .await;
    assert_eq!(
        (status, body),
        (StatusCode::OK, json!({"ok": true, "t": ACTION_T}))
    );
    assert_eq!(
        lane.taken.lock().unwrap().as_slice(),
        [(
            Some("Judge Orlova".to_owned()),
            Action::Hold {
                on: true,
                reason: Some("oil".into())
            }
        )]
    );

    let res = send(&lane.app, post("/api/logout", Some(cookie), "{}")).await;
    assert_eq!(res.status(), StatusCode::OK);
    let cleared = set_cookie(&res).expect("the cookie is cleared");
    assert!(cleared.starts_with("lanecall_session=;"), "{cleared}");
    assert!(cleared.contains("Max-Age=0"), "{cleared}");

    // The old cookie is no session any more: logging out ended it on the
    // server, not only in the browser.
    let (status, _) = act(&lane.app, cookie, r#"{"ev":"end_block"}"#).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let res = send(&lane.app, get("/api/session", Some(cookie))).await;
    assert_eq!(json_of(res).await["judge"], Value::Null);
    assert_eq!(lane.taken.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_logout_only_comes_as_json_so_another_site_cannot_log_a_judge_out() {
    let lane = lane();
    let cookie = log_in(&lane.app, "Judge Orlova").await;
    let form = Request::post("/api/logout")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::COOKIE, &cookie)
        .body(Body::from("x=1"))
        .unwrap();
    let res = send(&lane.app, form).await;
    assert_eq!(res.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(set_cookie(&res).is_none());
    let (status, _) = act(&lane.app, &cookie, r#"{"ev":"end_block"}"#).await;
    assert_eq!(status, StatusCode::OK, "still logged in");
}

#[tokio::test]
async fn a_pin_of_the_wrong_shape_is_refused_without_a_check() {
    let lane = lane();
    let cookie = log_in(&lane.app, "Judge Orlova").await;
    // Four: with the login, the burst one address may make.
    for pin in ["2468", "1234567890123", "24681x", " 246813"] {
        let res = send(
            &lane.app,
            post("/api/login", None, json!({ "pin": pin }).to_string()),
        )
        .await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{pin:?}");
    }
    let res = send(&lane.app, get("/api/security", Some(&cookie))).await;
    let security = json_of(res).await;
    assert_eq!(security["pin_checks"], 1, "only the login: {security}");
    assert_eq!(security["wrong_pins"], 0);
}

#[tokio::test]
async fn the_security_report_is_for_judges_only() {
    let lane = lane();
    let res = send(&lane.app, get("/api/security", None)).await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_login_without_a_name_acts_as_judge() {
    let lane = lane();
    let res = send(&lane.app, post("/api/login", None, r#"{"pin":"246813"}"#)).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(json_of(res).await, json!({"name": "judge"}));
}

#[tokio::test]
async fn start_block_refused_for_an_unchecked_blindfold_names_the_bowler() {
    let lane = lane();
    let cookie = log_in(&lane.app, "Judge Orlova").await;
    let (status, body) = act(&lane.app, &cookie, r#"{"ev":"start_block","games":3}"#).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(
        body,
        json!({"error": "start_block refused: no blindfold check with ok for Anna K."})
    );
}

#[tokio::test]
async fn bad_posts_say_what_is_wrong_and_never_reach_the_lane() {
    let lane = lane();
    let cookie = log_in(&lane.app, "Judge Orlova").await;

    let (status, body) = act(&lane.app, &cookie, r#"{"ev":"ball"}"#).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body, json!({"error": "only panel events can be posted"}));
    let (status, body) = act(&lane.app, &cookie, r#"{"ev":"serial","line":"$PS,READY"}"#).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body, json!({"error": "only panel events can be posted"}));

    let (status, body) = act(&lane.app, &cookie, r#"{"ev":"hold","on":tru"#).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let message = body["error"].as_str().unwrap();
    assert!(message.contains("line 1 column"), "{message}");

    let (status, body) = act(&lane.app, &cookie, "[1,2]").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body["error"].as_str().unwrap().contains("JSON object"),
        "{body}"
    );

    // The journal parser's own words.
    let (status, body) = act(&lane.app, &cookie, r#"{"ev":"warp"}"#).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body, json!({"error": "unknown event `warp`"}));
    let (_, body) = act(
        &lane.app,
        &cookie,
        r#"{"ev":"manual_pins","standing":[11]}"#,
    )
    .await;
    let message = body["error"].as_str().unwrap();
    assert!(message.contains("pin 11 does not exist"), "{message}");
    let (_, body) = act(&lane.app, &cookie, r#"{"ev":"hold","on":"yes"}"#).await;
    let message = body["error"].as_str().unwrap();
    assert!(message.starts_with("hold: "), "{message}");
    let (_, body) = act(&lane.app, &cookie, r#"{"on":true}"#).await;
    let message = body["error"].as_str().unwrap();
    assert!(message.contains("missing field `ev`"), "{message}");

    let res = send(
        &lane.app,
        post("/api/login", None, r#"{"name":"Judge Orlova"}"#),
    )
    .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let message = json_of(res).await["error"].as_str().unwrap().to_owned();
    assert!(message.contains("missing field `pin`"), "{message}");
    let long = "x".repeat(lanecall::ports::MAX_NAME_CHARS + 1);
    let res = send(
        &lane.app,
        post(
            "/api/login",
            None,
            json!({"pin": PIN, "name": long}).to_string(),
        ),
    )
    .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);

    assert!(lane.taken.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_cross_site_form_post_is_not_read() {
    let lane = lane();
    let cookie = log_in(&lane.app, "Judge Orlova").await;
    let form = Request::post("/api/actions")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::COOKIE, &cookie)
        .body(Body::from("ev=end_block"))
        .unwrap();
    let res = send(&lane.app, form).await;
    assert_eq!(res.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(json_of(res).await["error"].is_string());
    let bare = Request::post("/api/login")
        .body(Body::from(r#"{"pin":"246813"}"#))
        .unwrap();
    assert_eq!(
        send(&lane.app, bare).await.status(),
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    assert!(lane.taken.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_body_over_16_kib_is_refused() {
    let lane = lane();
    let huge = format!(r#"{{"pin":"{}"}}"#, "9".repeat(17 * 1024));
    // With its length declared: refused before it is read.
    let declared = Request::post("/api/login")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::CONTENT_LENGTH, huge.len())
        .body(Body::from(huge.clone()))
        .unwrap();
    let res = send(&lane.app, declared).await;
    assert_eq!(res.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert!(json_of(res).await["error"].is_string());
    // Without: refused while it is read.
    let res = send(&lane.app, post("/api/login", None, huge)).await;
    assert_eq!(res.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert!(json_of(res).await["error"].is_string());
}

/// A cookie signed with the lane's key, as if the server had set it.
fn signed_cookie(value: &str) -> String {
    let jar = SignedCookieJar::new(key()).add(Cookie::new("lanecall_session", value.to_owned()));
    let res = jar.into_response();
    let set = res.headers()[header::SET_COOKIE].to_str().unwrap();
    set.split(';').next().unwrap().to_owned()
}

#[tokio::test]
async fn a_tampered_forged_or_unknown_cookie_is_no_session() {
    let lane = lane();
    let cookie = log_in(&lane.app, "Judge Orlova").await;
    let (name, value) = cookie.split_once('=').unwrap();
    // One character of the signed id changed.
    let last = value.chars().last().unwrap();
    let other = if last == '0' { '1' } else { '0' };
    let tampered = format!("{name}={}{other}", &value[..value.len() - 1]);
    assert_ne!(tampered, cookie);
    let (status, _) = act(&lane.app, &tampered, r#"{"ev":"end_block"}"#).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let res = send(&lane.app, get("/api/session", Some(&tampered))).await;
    assert_eq!(json_of(res).await["judge"], Value::Null);

    // Signed with another key.
    let other = SignedCookieJar::new(Key::from(&[9u8; 64]))
        .add(Cookie::new("lanecall_session", "ab".repeat(32)))
        .into_response();
    let other = other.headers()[header::SET_COOKIE].to_str().unwrap();
    let other = other.split(';').next().unwrap();
    let (status, _) = act(&lane.app, other, r#"{"ev":"end_block"}"#).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // Rightly signed, but no session the server made: the old cookie
    // format with a name and an expiry in it is no session either.
    for value in [
        "ab".repeat(32),
        r#"{"name":"Judge Orlova","expires":99999999999}"#.to_owned(),
    ] {
        let forged = signed_cookie(&value);
        let (status, _) = act(&lane.app, &forged, r#"{"ev":"end_block"}"#).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    // The real one still works: the checks above are the session's, not
    // the key's.
    let (status, _) = act(&lane.app, &cookie, r#"{"ev":"end_block"}"#).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(lane.taken.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_stopped_lane_is_reported_not_waited_for() {
    let (inputs, rx) = lanecall::ports::inputs::channel(64);
    drop(rx);
    let (_snapshots, lane) = watch::channel(LaneSnapshot {
        version: 0,
        json: "{}".into(),
    });
    let app = router(ApiState {
        inputs,
        lane,
        cookie_key: key(),
        auth: AuthSettings {
            session: Duration::from_secs(600),
            ..AuthSettings::with_pin_hash(PIN_HASH)
        },
        journal_dir: None,
        live_views: 64,
        event: String::new(),
    });
    let cookie = log_in(&app, "Judge Orlova").await;
    let (status, body) = act(&app, &cookie, r#"{"ev":"end_block"}"#).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(body["error"].is_string());
}

#[tokio::test]
async fn unknown_routes_and_methods_answer_in_json() {
    let lane = lane();
    let res = send(&lane.app, get("/api/nothing", None)).await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert!(json_of(res).await["error"].is_string());
    let res = send(&lane.app, get("/api/actions", None)).await;
    assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert!(res.headers().contains_key(header::ALLOW));
    assert!(json_of(res).await["error"].is_string());
}

#[test]
fn a_hashed_pin_verifies_and_another_pin_does_not() {
    let hash = hash_pin("432109").unwrap();
    assert!(
        hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
        "{hash}"
    );
    assert!(verify_pin("432109", &hash));
    assert!(!verify_pin("432108", &hash));
    assert!(!verify_pin("432109", "not a hash"));
    // 6 to 12 digits, nothing else.
    for pin in ["", "1", "12345", "1234567890123", "12345a", "１２３４５６"] {
        assert!(hash_pin(pin).is_err(), "{pin:?}");
    }
    assert!(hash_pin("123456789012").is_ok());
}

// ----- live events ------------------------------------------------------------

/// The next chunk of a streamed body, waiting at most a few seconds; `None`
/// once the body has ended.
async fn next_chunk(body: &mut axum::body::BodyDataStream) -> Option<Bytes> {
    tokio::time::timeout(Duration::from_secs(5), body.next())
        .await
        .expect("the stream answers within 5 s")
        .map(|chunk| chunk.expect("the stream does not fail"))
}

/// An SSE message's fields: `(name, value)` in order.
fn sse_fields(chunk: &[u8]) -> Vec<(String, String)> {
    let text = std::str::from_utf8(chunk).unwrap();
    assert!(text.ends_with("\n\n"), "one whole message: {text:?}");
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (name, value) = l.split_once(": ").unwrap_or((l, ""));
            (name.to_owned(), value.to_owned())
        })
        .collect()
}

fn lane_message(version: u64, json: &str) -> Vec<(String, String)> {
    vec![
        ("event".into(), "lane".into()),
        ("id".into(), version.to_string()),
        ("data".into(), json.into()),
    ]
}

#[tokio::test]
async fn events_send_the_lane_at_once_then_each_change_and_end_with_the_lane() {
    let Lane { app, snapshots, .. } = lane();
    let res = send(&app, get("/api/events", None)).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()[header::CONTENT_TYPE], "text/event-stream");
    assert_eq!(res.headers()[header::CACHE_CONTROL], "no-cache");
    let mut body = res.into_body().into_data_stream();

    // The current lane first, the same text as GET /api/lane.
    let first = next_chunk(&mut body).await.unwrap();
    assert_eq!(sse_fields(&first), lane_message(3, SNAPSHOT));

    snapshots.send_replace(LaneSnapshot {
        version: 4,
        json: r#"{"lane":7,"events":1}"#.into(),
    });
    let next = next_chunk(&mut body).await.unwrap();
    assert_eq!(
        sse_fields(&next),
        lane_message(4, r#"{"lane":7,"events":1}"#)
    );

    // A client that falls behind gets the latest, not a backlog.
    for version in 5..=9 {
        snapshots.send_replace(LaneSnapshot {
            version,
            json: format!(r#"{{"lane":7,"events":{version}}}"#).into(),
        });
    }
    let latest = next_chunk(&mut body).await.unwrap();
    assert_eq!(
        sse_fields(&latest),
        lane_message(9, r#"{"lane":7,"events":9}"#)
    );

    // The daemon stops: the stream ends instead of holding up the shutdown.
    drop(snapshots);
    assert_eq!(next_chunk(&mut body).await, None);
}

#[tokio::test]
async fn every_listener_gets_the_current_lane_first() {
    let Lane { app, snapshots, .. } = lane();
    snapshots.send_replace(LaneSnapshot {
        version: 12,
        json: r#"{"lane":7}"#.into(),
    });
    for _ in 0..2 {
        let res = send(&app, get("/api/events", None)).await;
        let mut body = res.into_body().into_data_stream();
        let first = next_chunk(&mut body).await.unwrap();
        assert_eq!(sse_fields(&first), lane_message(12, r#"{"lane":7}"#));
    }
}

// ----- history and exports ----------------------------------------------------

const SAMPLE: &str = include_str!("../logs/world_bowling_sample.jsonl");
const OLDER: &str = "lane7-20261129T100000Z-01";
const NEWER: &str = "lane7-20261130T090000Z-01";
/// A name a CSV must quote: a comma, quotes, Cyrillic.
const AWKWARD_NAME: &str = "Кузнецова, Анна \"Аня\"";

/// A fresh folder of journals: the World Bowling sample as it is (older),
/// and again with its bowler renamed (newer, the one the lane writes), with
/// files that are not journals beside them.
fn journals(name: &str) -> crate::support::Scratch {
    let dir = crate::support::Scratch::new(&format!("api-{name}"));
    std::fs::write(dir.join(format!("{OLDER}.jsonl")), SAMPLE).unwrap();
    let renamed = SAMPLE.replace(
        "\"Anna Kuznetsova\"",
        &serde_json::to_string(AWKWARD_NAME).unwrap(),
    );
    assert_ne!(renamed, SAMPLE);
    std::fs::write(dir.join(format!("{NEWER}.jsonl")), renamed).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a journal").unwrap();
    std::fs::write(dir.join("lane7-bad.jsonl"), SAMPLE).unwrap();
    std::fs::write(
        dir.join("lane7-20261128T100000Z-01.jsonl"),
        "not a journal\n",
    )
    .unwrap();
    dir
}

fn app_with(journal_dir: Option<PathBuf>) -> Router {
    let (inputs, _rx) = lanecall::ports::inputs::channel(64);
    let (_snapshots, lane) = watch::channel(LaneSnapshot {
        version: 1,
        json: "{}".into(),
    });
    router(ApiState {
        inputs,
        lane,
        cookie_key: key(),
        auth: AuthSettings {
            session: Duration::from_secs(600),
            ..AuthSettings::with_pin_hash(PIN_HASH)
        },
        journal_dir,
        live_views: 64,
        event: String::new(),
    })
}

async fn text_of(res: Response<Body>) -> String {
    let bytes = to_bytes(res.into_body(), usize::MAX).await.unwrap();
    String::from_utf8(bytes.to_vec()).unwrap()
}

fn replayed(path: &Path) -> Value {
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let replay = Replay::from_reader(file).unwrap();
    serde_json::to_value(replay.report()).unwrap()
}

#[tokio::test]
async fn the_history_lists_journals_newest_first_and_marks_the_current_one() {
    let dir = journals("list");
    let app = app_with(Some(dir.to_path_buf()));
    let res = send(&app, get("/api/history", None)).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()[header::CONTENT_TYPE], "application/json");
    let list = json_of(res).await;
    let bytes = |id: &str| {
        std::fs::metadata(dir.join(format!("{id}.jsonl")))
            .unwrap()
            .len()
    };
    let events = replayed(&dir.join(format!("{OLDER}.jsonl")))["events"].clone();
    assert!(events.as_u64().unwrap() > 50, "{events}");
    assert_eq!(
        list,
        json!([
            {
                "id": NEWER, "started_at": "2026-11-29T10:00:00Z", "lane": 7,
                "events": events, "blocks": 1, "bowlers": [AWKWARD_NAME],
                "bytes": bytes(NEWER), "current": true
            },
            {
                "id": OLDER, "started_at": "2026-11-29T10:00:00Z", "lane": 7,
                "events": events, "blocks": 1, "bowlers": ["Anna Kuznetsova"],
                "bytes": bytes(OLDER), "current": false
            }
        ])
    );

    // The lane writes on: the list follows.
    let path = dir.join(format!("{NEWER}.jsonl"));
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"t\":999999,\"ev\":\"hold\",\"on\":true,\"by\":\"Judge Orlova\"}\n");
    std::fs::write(&path, &text).unwrap();
    let list = json_of(send(&app, get("/api/history", None)).await).await;
    assert_eq!(list[0]["bytes"], text.len());
    assert_eq!(list[0]["events"], events.as_u64().unwrap() + 1);
    assert_eq!(list[1]["bytes"], bytes(OLDER));
}

#[tokio::test]
async fn a_journal_reads_as_lanecall_replay_json_prints_it() {
    let dir = journals("detail");
    let app = app_with(Some(dir.to_path_buf()));
    for id in [OLDER, NEWER] {
        let res = send(&app, get(&format!("/api/history/{id}"), None)).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(res.headers()[header::CONTENT_TYPE], "application/json");
        let path = dir.join(format!("{id}.jsonl"));
        assert_eq!(json_of(res).await, replayed(&path));

        let res = send(&app, get(&format!("/export/{id}.json"), None)).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(
            res.headers()[header::CONTENT_DISPOSITION],
            format!("attachment; filename=\"{id}.json\"")
        );
        assert_eq!(json_of(res).await, replayed(&path));
    }
    let report = json_of(send(&app, get(&format!("/api/history/{OLDER}"), None)).await).await;
    assert_eq!(report["bowlers"][0]["games"][0]["total"], 180);
}

/// Splits CSV text (RFC 4180, CRLF lines) into rows of fields.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\r') => {
                assert_eq!(chars.next(), Some('\n'), "lines end in CRLF");
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => field.push(c),
        }
    }
    assert!(field.is_empty() && row.is_empty(), "the last line ends too");
    rows
}

#[tokio::test]
async fn the_score_sheet_downloads_as_csv_one_row_per_frame() {
    let dir = journals("csv");
    let app = app_with(Some(dir.to_path_buf()));
    let res = send(&app, get(&format!("/export/{OLDER}.csv"), None)).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        res.headers()[header::CONTENT_TYPE],
        "text/csv; charset=utf-8"
    );
    assert_eq!(
        res.headers()[header::CONTENT_DISPOSITION],
        format!("attachment; filename=\"{OLDER}.csv\"")
    );
    let text = text_of(res).await;
    let rows = parse_csv(&text);
    assert_eq!(
        rows[0].join(","),
        "block,position,bowler,class,team,handicap,game,frame,marks,balls,cumulative,game_total,complete,series,series_with_handicap"
    );
    assert_eq!(rows.len(), 1 + 10, "{text}");
    assert_eq!(
        rows[1],
        [
            "1",
            "1",
            "Anna Kuznetsova",
            "B1",
            "",
            "12",
            "1",
            "1",
            "X",
            "X",
            "30",
            "180",
            "true",
            "180",
            "192"
        ]
    );
    assert_eq!(
        rows[4],
        [
            "1",
            "1",
            "Anna Kuznetsova",
            "B1",
            "",
            "12",
            "1",
            "4",
            "72",
            "7 2",
            "85",
            "180",
            "true",
            "180",
            "192"
        ]
    );
    assert_eq!(rows[5][8..10], ["8/", "8 /"]);
    assert_eq!(rows[10][7..12], ["10", "XX8", "X X 8", "180", "180"]);

    // A name with a comma and quotes is one quoted field; Cyrillic as it is.
    let res = send(&app, get(&format!("/export/{NEWER}.csv"), None)).await;
    let text = text_of(res).await;
    assert!(
        text.contains(
            "\r\n1,1,\"Кузнецова, Анна \"\"Аня\"\"\",B1,,12,1,1,X,X,30,180,true,180,192\r\n"
        ),
        "{text}"
    );
    let rows = parse_csv(&text);
    assert_eq!(rows.len(), 11);
    assert!(
        rows[1..]
            .iter()
            .all(|r| r.len() == 15 && r[2] == AWKWARD_NAME)
    );
}

#[tokio::test]
async fn the_journal_downloads_as_it_is_on_disk() {
    let dir = journals("jsonl");
    let app = app_with(Some(dir.to_path_buf()));
    for id in [OLDER, NEWER] {
        let res = send(&app, get(&format!("/export/{id}.jsonl"), None)).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(
            res.headers()[header::CONTENT_DISPOSITION],
            format!("attachment; filename=\"{id}.jsonl\"")
        );
        let on_disk = std::fs::read(dir.join(format!("{id}.jsonl"))).unwrap();
        assert_eq!(
            res.headers()[header::CONTENT_LENGTH],
            on_disk.len().to_string()
        );
        let body = to_bytes(res.into_body(), usize::MAX).await.unwrap();
        assert_eq!(body, on_disk);
    }
}

#[tokio::test]
async fn only_journals_in_the_folder_are_reachable() {
    let dir = journals("traversal");
    // A journal-looking file just outside the folder.
    let outside = dir.with_file_name("lane7-20990101T000000Z-01.jsonl");
    std::fs::write(&outside, SAMPLE).unwrap();
    let app = app_with(Some(dir.to_path_buf()));
    let ids = [
        "..",
        "%2e%2e",
        "..%2Fetc%2Fpasswd",
        "%2Fetc%2Fpasswd",
        "notes",
        "notes.txt",
        "lane7-bad",
        "lane7-20990101T000000Z-01",
        "..%2Flane7-20990101T000000Z-01",
        "lane7-20261129T100000Z-01.jsonl",
        "lane7-20261129T100000Z-01%00",
        "lane7-20261129T100000Z-02",
        "lane7-20261129T100000Z-01%2F..%2F..%2Fnotes",
    ];
    for id in ids {
        for uri in [
            format!("/api/history/{id}"),
            format!("/export/{id}.csv"),
            format!("/export/{id}.json"),
            format!("/export/{id}.jsonl"),
        ] {
            let res = send(&app, get(&uri, None)).await;
            assert_eq!(res.status(), StatusCode::NOT_FOUND, "{uri}");
            assert!(json_of(res).await["error"].is_string(), "{uri}");
        }
    }
    for uri in [
        "/export/notes.txt",
        "/export/lane7-20261129T100000Z-01",
        "/export/lane7-20261129T100000Z-01.txt",
        "/export/lane7-20261129T100000Z-01.",
        "/export/.csv",
        "/export/../notes.txt",
        "/api/history/lane7-20261129T100000Z-01/../../notes.txt",
    ] {
        let res = send(&app, get(uri, None)).await;
        assert_eq!(res.status(), StatusCode::NOT_FOUND, "{uri}");
        assert!(json_of(res).await["error"].is_string(), "{uri}");
    }
    // A file that is named like a journal but is not one is reported, not
    // served as a sheet.
    let res = send(&app, get("/api/history/lane7-20261128T100000Z-01", None)).await;
    assert!(res.status().is_server_error());
    assert!(json_of(res).await["error"].is_string());
    let _ = std::fs::remove_file(&outside);
}

#[tokio::test]
async fn without_a_journal_folder_the_history_is_not_found() {
    let app = app_with(None);
    for uri in [
        "/api/history".to_owned(),
        format!("/api/history/{OLDER}"),
        format!("/export/{OLDER}.csv"),
        format!("/export/{OLDER}.jsonl"),
    ] {
        let res = send(&app, get(&uri, None)).await;
        assert_eq!(res.status(), StatusCode::NOT_FOUND, "{uri}");
        assert_eq!(json_of(res).await, json!({"error": "no journals here"}));
    }
    // A folder not made yet: no journals so far.
    let missing = std::env::temp_dir().join(format!("lanecall-api-none-{}", std::process::id()));
    let app = app_with(Some(missing));
    let res = send(&app, get("/api/history", None)).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(json_of(res).await, json!([]));
}

// ----- login rate limit -------------------------------------------------------

fn from(addr: &str, mut req: Request<Body>) -> Request<Body> {
    let addr: SocketAddr = addr.parse().unwrap();
    req.extensions_mut().insert(ConnectInfo(addr));
    req
}

#[tokio::test]
async fn one_address_trying_too_often_waits_while_another_is_still_heard() {
    let lane = lane();
    let burst = lanecall::web::limit::LOGIN_BURST;
    // Bodies that fail fast still count: the limit is on attempts.
    for _ in 0..burst {
        let res = send(
            &lane.app,
            from("10.0.0.5:50000", post("/api/login", None, "{}")),
        )
        .await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    }
    // Another port of the same address is the same client.
    let res = send(
        &lane.app,
        from(
            "10.0.0.5:50001",
            post("/api/login", None, json!({"pin": PIN}).to_string()),
        ),
    )
    .await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    let wait: u64 = res.headers()[header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=3).contains(&wait), "{wait}");
    assert!(set_cookie(&res).is_none());
    assert_eq!(
        json_of(res).await,
        json!({"error": "too many tries: wait a moment"})
    );

    // Someone else is still heard, and told the PIN is wrong.
    let res = send(
        &lane.app,
        from(
            "10.0.0.6:50000",
            post("/api/login", None, r#"{"pin":"135790"}"#),
        ),
    )
    .await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(json_of(res).await, json!({"error": "wrong PIN"}));

    // The limit is on logging in only: the lane and the session still answer.
    let res = send(&lane.app, from("10.0.0.5:50002", get("/api/lane", None))).await;
    assert_eq!(res.status(), StatusCode::OK);
    let res = send(&lane.app, from("10.0.0.5:50002", get("/api/session", None))).await;
    assert_eq!(res.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_login_without_a_known_address_is_limited_not_failed() {
    let lane = lane();
    let burst = lanecall::web::limit::LOGIN_BURST;
    for _ in 0..burst {
        let res = send(&lane.app, post("/api/login", None, "{}")).await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    }
    let res = send(&lane.app, post("/api/login", None, "{}")).await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    // Requests with an address have their own quotas.
    let res = send(
        &lane.app,
        from("10.0.0.7:1", post("/api/login", None, "{}")),
    )
    .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
}

// ----- named judges -----------------------------------------------------------

#[tokio::test]
async fn a_judges_own_pin_names_them_whatever_name_is_typed() {
    let (inputs, _rx) = lanecall::ports::inputs::channel(64);
    let (_snapshots, lane) = watch::channel(LaneSnapshot {
        version: 1,
        json: "{}".into(),
    });
    let orlova = "13572468";
    let app = router(ApiState {
        inputs,
        lane,
        cookie_key: key(),
        auth: AuthSettings {
            judge_pin_hash: None,
            judges: vec![
                lanecall::config::JudgeConfig {
                    name: "Judge Orlova".into(),
                    pin_hash: hash_pin(orlova).unwrap(),
                },
                lanecall::config::JudgeConfig {
                    name: "Judge Ivanov".into(),
                    pin_hash: PIN_HASH.into(),
                },
            ],
            ..AuthSettings::with_pin_hash(PIN_HASH)
        },
        journal_dir: None,
        live_views: 64,
        event: String::new(),
    });
    let res = send(&app, get("/api/session", None)).await;
    assert_eq!(json_of(res).await["pin_names"], true);
    for (pin, name) in [(PIN, "Judge Ivanov"), (orlova, "Judge Orlova")] {
        let body = json!({"pin": pin, "name": "Somebody Else"}).to_string();
        let res = send(&app, post("/api/login", None, body)).await;
        assert_eq!(res.status(), StatusCode::OK);
        let cookie = set_cookie(&res).unwrap();
        assert_eq!(json_of(res).await, json!({ "name": name }));
        let cookie = cookie.split(';').next().unwrap();
        let res = send(&app, get("/api/session", Some(cookie))).await;
        let session = json_of(res).await;
        assert_eq!(session["judge"], name);
        assert_eq!(
            session["chief"], false,
            "a PIN of one's own is not the chief's"
        );
    }
    // The shared PIN is not configured here: it opens nothing.
    let res = send(
        &app,
        post("/api/login", None, json!({"pin": "135790"}).to_string()),
    )
    .await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
}

// ----- a dead ball, through the real lane thread ------------------------------

/// The outputs the lane switched, as the relays would see them.
#[derive(Clone, Default)]
struct Relays(Arc<Mutex<Vec<(lanecall::lane::Output, lanecall::lane::Switch)>>>);

impl lanecall::ports::OutputSink for Relays {
    fn set(&mut self, output: lanecall::lane::Output, switch: lanecall::lane::Switch) {
        if let Ok(mut v) = self.0.lock() {
            v.push((output, switch));
        }
    }
}

struct Quiet;

impl lanecall::ports::CalloutSink for Quiet {
    fn say(&mut self, _: &lanecall::lane::Callout, _: Option<&lanecall::lane::Bowler>) {}
}

/// Polls the lane's snapshot until `cond` holds.
async fn lane_until(app: &Router, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
    support::eventually_async(&format!("the lane to show {what}"), || async {
        let lane = json_of(send(app, get("/api/lane", None)).await).await;
        if cond(&lane) { Some(lane) } else { None }
    })
    .await
}

#[tokio::test]
async fn a_judge_declares_the_last_ball_dead_and_it_is_bowled_again() {
    use lanecall::lane::{Output, PinSet, Sensor, Switch};
    use lanecall::lane_thread::{LaneRunner, RunnerSettings};
    use lanecall::pinsetter::{Body, Message, format_line};
    use lanecall::ports::Input;

    let dir = crate::support::Scratch::new("api-dead");
    let relays = Relays::default();
    let settings = RunnerSettings {
        state_dir: dir.to_path_buf(),
        lane: 7,
        rules: lanecall::lane::Rules {
            min_cycle_ms: 0,
            ..Default::default()
        },
        speed: 1.0,
        simulated: false,
        language: lanecall::lane::Language::Ru,
    };
    let (core, snapshots) = LaneRunner::start(settings, Box::new(relays.clone()), Box::new(Quiet))
        .expect("the lane starts");
    let journal = core.journal_path().to_owned();
    let (inputs, rx) = lanecall::ports::inputs::channel(64);
    let sensors = inputs.clone();
    let thread = std::thread::spawn(move || core.run(rx));
    let app = router(ApiState {
        inputs,
        lane: snapshots,
        cookie_key: key(),
        auth: AuthSettings::with_pin_hash(PIN_HASH),
        journal_dir: None,
        live_views: 64,
        event: String::new(),
    });
    let cookie = log_in(&app, "Judge Orlova").await;
    let lineup = r#"{"ev":"lineup","bowlers":[{"name":"Pavel Orlov","class":"B2"}]}"#;
    assert_eq!(act(&app, &cookie, lineup).await.0, StatusCode::OK);
    let start = r#"{"ev":"start_block","games":1}"#;
    assert_eq!(act(&app, &cookie, start).await.0, StatusCode::OK);

    // Nothing bowled yet: refused, with the lane's reason.
    let (status, body) = act(&app, &cookie, r#"{"ev":"dead_ball"}"#).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(
        body["error"],
        "no ball to declare dead: none recorded in the open block since it started, since the last dead ball or since a substitution"
    );

    // A rack missing the 8, bowled anyway: the 10 stays, 8 pins count.
    let mut seq = 0;
    let mut line = |body| {
        let l = format_line(&Message { seq, body });
        seq += 1;
        Input::now(Sensor::Serial { line: l })
    };
    let no_eight = PinSet::from_mask("1111111011").unwrap();
    let ten = PinSet::from_mask("0000000001").unwrap();
    sensors.send(line(Body::Ready(no_eight))).await.unwrap();
    let lane = lane_until(&app, "the deck named wrong", |l| !l["wrong_deck"].is_null()).await;
    assert_eq!(lane["wrong_deck"]["missing"], json!([8]));
    sensors.send(line(Body::Pins(ten))).await.unwrap();
    sensors.send(line(Body::Ready(ten))).await.unwrap();
    let lane = lane_until(&app, "the ball", |l| !l["last_ball"].is_null()).await;
    let frame = &lane["bowlers"][0]["games"][0]["frames"][0];
    assert_eq!(frame["balls"][0]["pinfall"], 8);
    assert_eq!(
        frame["balls"][0]["wrong_deck"]["set"],
        json!([1, 2, 3, 4, 5, 6, 7, 9, 10])
    );
    assert_eq!(lane["last_ball"]["frame"], 1);
    assert_eq!(lane["up"]["ball"], 2);

    let (status, body) = act(&app, &cookie, r#"{"ev":"dead_ball"}"#).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["ok"], true);
    let dead_t = body["t"].as_u64().expect("the time it was journaled at");
    let lane = lane_until(&app, "the ball gone", |l| l["last_ball"].is_null()).await;
    assert_eq!(lane["bowlers"][0]["games"], json!([]));
    assert_eq!(
        lane["up"],
        json!({"bowler": "Pavel Orlov", "game": 1, "frame": 1, "ball": 1, "standing": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]})
    );
    let dead = lane["conduct"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(dead["kind"], "dead_ball");
    assert_eq!(dead["by"], "Judge Orlova");
    assert_eq!(dead["t"], dead_t, "the answer's t is the action's");
    // The machine had set the 10 for a second ball: it is asked for a full
    // rack, and until it sets one the deck is named wrong.
    assert_eq!(lane["wrong_deck"]["extra"], json!([]));
    assert_eq!(lane["wrong_deck"]["set"], json!([10]));
    assert!(
        relays
            .0
            .lock()
            .unwrap()
            .contains(&(Output::PinsetterReset, Switch::Pulse))
    );
    // Both actions are in the journal, the refused one too.
    let text = std::fs::read_to_string(&journal).unwrap();
    assert_eq!(text.matches(r#""ev":"dead_ball""#).count(), 2, "{text}");
    assert!(
        text.contains(r#""by":"Judge Orlova","chief":true,"ev":"dead_ball""#),
        "{text}"
    );

    // A penalty given by mistake, withdrawn by the time its answer gave.
    let penalty = r#"{"ev":"penalty","bowler":"Pavel Orlov","reason":"illegal delivery"}"#;
    let (status, body) = act(&app, &cookie, penalty).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let at = body["t"].as_u64().unwrap();
    let withdraw =
        format!(r#"{{"ev":"withdraw","of":"penalty","at":{at},"bowler":"Pavel Orlov"}}"#);
    assert_eq!(act(&app, &cookie, &withdraw).await.0, StatusCode::OK);
    let lane = lane_until(&app, "the penalty withdrawn", |l| {
        l["conduct"].as_array().unwrap().last().unwrap()["withdrawn"] == true
    })
    .await;
    let last = lane["conduct"].as_array().unwrap().last().unwrap().clone();
    assert_eq!((&last["kind"], &last["t"]), (&json!("penalty"), &json!(at)));
    let (status, body) = act(&app, &cookie, &withdraw).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .starts_with("nothing to withdraw: penalty at t="),
        "{body}"
    );
    let bad = r#"{"ev":"withdraw","of":"lineup","at":1}"#;
    let (status, body) = act(&app, &cookie, bad).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("of \"lineup\" is not an action that can be withdrawn"),
        "{body}"
    );
    let text = std::fs::read_to_string(&journal).unwrap();
    assert_eq!(text.matches(r#""ev":"withdraw""#).count(), 2, "{text}");

    sensors.send(Input::Shutdown).await.unwrap();
    thread.join().unwrap();
}

// ----- who may write what, through the real lane thread -----------------------

#[tokio::test]
async fn pin_pad_entries_withdraws_and_judge_names_are_refused_as_the_rules_say() {
    use lanecall::lane_thread::{LaneRunner, RunnerSettings};

    let dir = crate::support::Scratch::new("api-trust");
    let settings = RunnerSettings {
        state_dir: dir.to_path_buf(),
        lane: 7,
        rules: lanecall::lane::Rules::default(),
        speed: 1.0,
        simulated: false,
        language: lanecall::lane::Language::Ru,
    };
    let (core, snapshots) =
        LaneRunner::start(settings, Box::new(Relays::default()), Box::new(Quiet))
            .expect("the lane starts");
    let journal = core.journal_path().to_owned();
    let (inputs, rx) = lanecall::ports::inputs::channel(64);
    let stop = inputs.clone();
    let thread = std::thread::spawn(move || core.run(rx));
    let (orlova, petrova) = ("13572468", "24681357");
    let app = router(ApiState {
        inputs,
        lane: snapshots,
        cookie_key: key(),
        auth: AuthSettings {
            judges: vec![
                lanecall::config::JudgeConfig {
                    name: "Judge Orlova".into(),
                    pin_hash: hash_pin(orlova).unwrap(),
                },
                lanecall::config::JudgeConfig {
                    name: "Judge Petrova".into(),
                    pin_hash: hash_pin(petrova).unwrap(),
                },
            ],
            ..AuthSettings::with_pin_hash(PIN_HASH)
        },
        journal_dir: None,
        live_views: 64,
        event: String::new(),
    });
    let login = |pin: &str, name: &str| json!({"pin": pin, "name": name}).to_string();

    // Names that pass for the centre's, or hide characters, are refused.
    for name in [
        "centre: Ivanova",
        "Centre :Ivanova",
        "Iva\u{202E}nova",
        "Iva\u{200B}nova",
    ] {
        // From a tablet of its own: the logins below are not over the
        // login rate limit's quota.
        let res = send(
            &app,
            from("10.0.0.9:1", post("/api/login", None, login(PIN, name))),
        )
        .await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{name:?}");
        let error = json_of(res).await["error"].as_str().unwrap().to_owned();
        assert!(error.contains("centre:") || error.contains("U+"), "{error}");
    }
    let cookie_of = |res: &Response<Body>| {
        let c = set_cookie(res).expect("a session cookie");
        c.split(';').next().unwrap().to_owned()
    };
    let chief = cookie_of(&send(&app, post("/api/login", None, login(PIN, "Ivanova"))).await);
    let orlova = cookie_of(&send(&app, post("/api/login", None, login(orlova, "Orlova"))).await);
    let petrova = cookie_of(&send(&app, post("/api/login", None, login(petrova, "Petrova"))).await);

    let lineup = r#"{"ev":"lineup","bowlers":[{"name":"Pavel Orlov","class":"B2"}]}"#;
    assert_eq!(act(&app, &chief, lineup).await.0, StatusCode::OK);
    let start = r#"{"ev":"start_block","games":1}"#;
    assert_eq!(act(&app, &chief, start).await.0, StatusCode::OK);

    // The pin pad: a pin twice, a pin that was down.
    let pad = |list: &str| format!(r#"{{"ev":"manual_pins","standing":{list}}}"#);
    let (status, body) = act(&app, &orlova, &pad("[7,7]")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("pin 7 twice"),
        "{body}"
    );
    assert_eq!(act(&app, &orlova, &pad("[7,10]")).await.0, StatusCode::OK);
    let (status, body) = act(&app, &orlova, &pad("[1,2,3]")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("pins 1, 2, 3 were not standing: the deck was 7, 10"),
        "{body}"
    );

    // Petrova's penalty: not Orlova's to withdraw; the chief's, at any time.
    let penalty = r#"{"ev":"penalty","bowler":"Pavel Orlov","reason":"illegal delivery"}"#;
    let (status, body) = act(&app, &petrova, penalty).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let at = body["t"].as_u64().unwrap();
    let withdraw =
        format!(r#"{{"ev":"withdraw","of":"penalty","at":{at},"bowler":"Pavel Orlov"}}"#);
    let (status, body) = act(&app, &orlova, &withdraw).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("made by Judge Petrova"),
        "{body}"
    );
    let (status, body) = act(&app, &chief, &withdraw).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let text = std::fs::read_to_string(&journal).unwrap();
    let withdraws: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["ev"] == "withdraw")
        .map(|v| json!([v["by"], v["chief"]]))
        .collect();
    assert_eq!(
        withdraws,
        [json!(["Judge Orlova", null]), json!(["Ivanova", true])]
    );

    stop.send(Input::Shutdown).await.unwrap();
    thread.join().unwrap();
}

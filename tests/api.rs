//! The control API as the panel and scripts use it: a judge logs in, acts on
//! the lane, and the lane's thread (here a small fake one) takes or refuses
//! each action.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::http::{Request, Response, StatusCode, header};
use axum::response::IntoResponse;
use axum_extra::extract::cookie::{Cookie, Key, SignedCookieJar};
use lanecall::daemon::Input;
use lanecall::lane::{Action, Refusal};
use lanecall::web::{ApiState, LaneSnapshot, hash_pin, router, verify_pin};
use serde_json::{Value, json};
use tokio::sync::watch;
use tower::ServiceExt;

const PIN: &str = "2468";
/// `hash_pin("2468")`, as `lanecall hash-pin 2468` would print it.
const PIN_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$wQLBJ53yXnWS1FSmR7RdxA$pRDX/Tw1tO9l8PpLiGTMUICb8JmI11KCknIhF4PxrIw";

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
    let (inputs, rx) = mpsc::channel::<Input>();
    let taken = Taken::default();
    let record = taken.clone();
    std::thread::spawn(move || {
        while let Ok(input) = rx.recv() {
            match input {
                Input::Action { by, action, reply } => {
                    let answer = match action {
                        Action::StartBlock { .. } => {
                            Err(Refusal::BlindfoldsUnchecked(vec!["Anna K.".into()]))
                        }
                        _ => Ok(()),
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
        judge_pin_hash: PIN_HASH.into(),
        cookie_key: key(),
        session: Duration::from_secs(4 * 3600),
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
    assert_eq!(json_of(res).await, json!({"judge": null}));
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
            r#"{"pin":"1357","name":"Judge Orlova"}"#,
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
            r#"{"pin":"2468","name":"Judge Orlova"}"#,
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
    assert_eq!(json_of(res).await, json!({"judge": "Judge Orlova"}));

    // A `by` in the body is not believed: the session says who acts.
    let (status, body) = act(
        &lane.app,
        cookie,
        r#"{"ev":"hold","on":true,"reason":"oil","by":"Somebody Else","t":99}"#,
    )
    .await;
    assert_eq!((status, body), (StatusCode::OK, json!({"ok": true})));
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

    let res = send(&lane.app, post("/api/logout", Some(cookie), "")).await;
    assert_eq!(res.status(), StatusCode::OK);
    let cleared = set_cookie(&res).expect("the cookie is cleared");
    assert!(cleared.starts_with("lanecall_session=;"), "{cleared}");
    assert!(cleared.contains("Max-Age=0"), "{cleared}");
}

#[tokio::test]
async fn a_login_without_a_name_acts_as_judge() {
    let lane = lane();
    let res = send(&lane.app, post("/api/login", None, r#"{"pin":"2468"}"#)).await;
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
    let long = "x".repeat(61);
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
        .body(Body::from(r#"{"pin":"2468"}"#))
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
async fn a_tampered_or_expired_cookie_is_no_session() {
    let lane = lane();
    let cookie = log_in(&lane.app, "Judge Orlova").await;
    let tampered = cookie.replace("Orlova", "Mallory");
    assert_ne!(tampered, cookie);
    let (status, _) = act(&lane.app, &tampered, r#"{"ev":"end_block"}"#).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let res = send(&lane.app, get("/api/session", Some(&tampered))).await;
    assert_eq!(json_of(res).await, json!({"judge": null}));

    // Signed with another key.
    let other = SignedCookieJar::new(Key::from(&[9u8; 64]))
        .add(Cookie::new(
            "lanecall_session",
            r#"{"name":"Mallory","expires":99999999999}"#,
        ))
        .into_response();
    let other = other.headers()[header::SET_COOKIE].to_str().unwrap();
    let other = other.split(';').next().unwrap();
    let (status, _) = act(&lane.app, other, r#"{"ev":"end_block"}"#).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // Rightly signed, but its time is up.
    let expired = signed_cookie(r#"{"name":"Judge Orlova","expires":1}"#);
    let (status, _) = act(&lane.app, &expired, r#"{"ev":"end_block"}"#).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // Rightly signed, still good: the check above is the expiry, not the key.
    let good = signed_cookie(r#"{"name":"Judge Orlova","expires":99999999999}"#);
    let (status, _) = act(&lane.app, &good, r#"{"ev":"end_block"}"#).await;
    assert_eq!(status, StatusCode::OK);

    assert_eq!(lane.taken.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_stopped_lane_is_reported_not_waited_for() {
    let (inputs, rx) = mpsc::channel::<Input>();
    drop(rx);
    let (_snapshots, lane) = watch::channel(LaneSnapshot {
        version: 0,
        json: "{}".into(),
    });
    let app = router(ApiState {
        inputs,
        lane,
        judge_pin_hash: PIN_HASH.into(),
        cookie_key: key(),
        session: Duration::from_secs(600),
    });
    let cookie = signed_cookie(r#"{"name":"Judge Orlova","expires":99999999999}"#);
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
    let hash = hash_pin("4321").unwrap();
    assert!(
        hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
        "{hash}"
    );
    assert!(verify_pin("4321", &hash));
    assert!(!verify_pin("4322", &hash));
    assert!(!verify_pin("4321", "not a hash"));
    assert!(hash_pin("").is_err());
}

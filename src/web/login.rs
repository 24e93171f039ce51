//! The judges' door, one for both sites: a lane's panel ([`super::router`])
//! and the centre (`crate::centre::api`) each make a [`Judges`] and mount
//! its routes, and ask it who is logged in on a request.
//!
//! Logging in and out: a judge's PIN checked (argon2, on its own thread,
//! [`super::pins`], behind the per-address rate and the lockout of
//! [`super::limit`]) against their own PIN or the shared one, the
//! server-side session that follows ([`super::sessions`], its cookie
//! [`super::auth`]), and what a session may see of the PIN checks
//! (`/api/security`). Never logs a PIN or a cookie; never touches a lane.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, FromRef, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router, middleware};
use axum_extra::extract::cookie::{Key, SignedCookieJar};
use serde::Deserialize;
use serde_json::json;
use tower_http::limit::RequestBodyLimitLayer;

use super::limit::{Lock, Place};
use super::pins::{Checker, Verdict};
use super::sessions::{self, Sessions};
use super::{
    ApiError, ApiResult, AuthSettings, MAX_BODY, MAX_JUDGES, MAX_SESSION, auth, body,
    check_pin_hash, json_errors, not_found, pin_shape_ok, require_json,
};

/// Who may act on a site: the PIN checks and their lockout, the login
/// rate, the sessions and their cookie. Cloned cheaply: one is shared by
/// the routes and the site's own handlers.
#[derive(Clone)]
pub struct Judges(Arc<Door>);

struct Door {
    auth: AuthSettings,
    /// Signs the session cookie.
    cookie_key: Key,
    /// The event's title (`[web] event`), given with the session.
    event: String,
    /// The argon2 checks and the lockout.
    pins: Checker,
    /// What a match of hash `n` gives (see [`AuthSettings::hashes`]) and
    /// its digest, which the session keeps.
    logins: Vec<(Option<String>, String)>,
    sessions: Sessions,
}

impl FromRef<Judges> for Key {
    fn from_ref(judges: &Judges) -> Key {
        judges.0.cookie_key.clone()
    }
}

impl Judges {
    /// The door for `auth` (lengths capped at [`MAX_SESSION`], at most
    /// [`MAX_JUDGES`] named judges), its sessions signed with
    /// `cookie_key`, `event` told with each session. Starts the PIN
    /// checker's thread and reads the sessions kept in `auth.state_dir`.
    pub fn new(mut auth: AuthSettings, cookie_key: Key, event: String) -> Judges {
        auth.session = auth.session.min(MAX_SESSION);
        auth.idle = auth.idle.min(auth.session);
        auth.judges.truncate(MAX_JUDGES);
        let hashes = auth.hashes();
        if hashes.is_empty() {
            tracing::error!("no judge PIN is configured: no judge can log in");
        }
        for (_, hash) in &hashes {
            if let Err(e) = check_pin_hash(hash) {
                // Logins with that PIN will fail; say why once, where the
                // operator looks.
                tracing::error!("{e}");
            }
        }
        let pins = Checker::start(
            hashes.iter().map(|(_, h)| h.clone()).collect(),
            auth.lockout,
            auth.state_dir.clone(),
        );
        let logins: Vec<(Option<String>, String)> = hashes
            .iter()
            .map(|(name, h)| (name.clone(), sessions::login_digest(name.as_deref(), h)))
            .collect();
        let digests: Vec<String> = logins.iter().map(|(_, d)| d.clone()).collect();
        let sessions = Sessions::load(
            auth.state_dir
                .as_ref()
                .map(|d| d.join(sessions::SESSIONS_FILE)),
            sessions::Lengths {
                absolute: auth.session,
                idle: auth.idle,
            },
            &digests,
        );
        Judges(Arc::new(Door {
            auth,
            cookie_key,
            event,
            pins,
            logins,
            sessions,
        }))
    }

    /// `POST /api/login` (behind the per-address rate), `POST /api/logout`,
    /// `GET /api/session` and `GET /api/security`, for a site whose own
    /// layers cap bodies at [`MAX_BODY`] and give errors the API's JSON
    /// shape (a lane's panel). A site mounts the paths it serves
    /// (`Router::route_service`).
    pub fn routes(&self) -> Router {
        Router::new()
            .route("/api/login", super::limit::limit_login(post(login)))
            .route("/api/logout", post(logout))
            .route("/api/session", get(session))
            .route("/api/security", get(security))
            .fallback(not_found)
            .with_state(self.clone())
    }

    /// [`Judges::routes`] with their own body cap ([`MAX_BODY`]) and every
    /// error in the API's JSON shape, for a site whose layers differ (the
    /// centre).
    pub fn router(&self) -> Router {
        self.routes()
            .layer(RequestBodyLimitLayer::new(MAX_BODY))
            // Outside the limit, so the limit's own 413 gets the JSON shape.
            .layer(middleware::map_response(json_errors))
    }

    /// The judge of the session whose cookie `headers` carry, if it is
    /// open, and whether they are the chief judge (see
    /// [`Judges::judge_and_chief`]).
    pub fn of_request(&self, headers: &HeaderMap) -> Option<(String, bool)> {
        let jar = SignedCookieJar::from_headers(headers, self.0.cookie_key.clone());
        self.judge_and_chief(&jar)
    }

    /// The judge of this request's session, if it is open, as the config
    /// names them now.
    pub fn judge(&self, jar: &SignedCookieJar) -> Option<String> {
        self.judge_and_chief(jar).map(|(judge, _)| judge)
    }

    /// The judge of this request's session, if it is open, and whether they
    /// are the chief judge: logged in with the shared PIN (`[web]
    /// judge_pin_hash`), not a PIN of their own (`[[web.judges]]`).
    ///
    /// A session keeps the digest of the login it was made with
    /// ([`super::sessions::login_digest`]: a named judge's name and PIN hash,
    /// or the shared PIN's hash): a judge renamed or removed in the config no
    /// longer has one, and their old session is no good (it is dropped at the
    /// start that reads the new config; here, it would not be believed
    /// either). A named judge acts under the name the config gives now.
    pub fn judge_and_chief(&self, jar: &SignedCookieJar) -> Option<(String, bool)> {
        let door = &self.0;
        let id = auth::session_id(jar)?;
        let (typed, digest) = door.sessions.login(&id)?;
        let Some((named, _)) = door.logins.iter().find(|(_, d)| *d == digest) else {
            door.sessions.revoke(&id);
            return None;
        };
        Some(match named {
            Some(name) => (name.clone(), false),
            None => (typed, true),
        })
    }
}

#[derive(Deserialize)]
struct Posted {
    pin: String,
    name: Option<String>,
}

/// The client's address, when the server recorded it.
fn peer(extensions: &axum::http::Extensions) -> Option<std::net::IpAddr> {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(addr)| addr.ip().to_canonical())
}

async fn login(
    State(judges): State<Judges>,
    jar: SignedCookieJar,
    extensions: axum::http::Extensions,
    headers: HeaderMap,
    raw: Result<Bytes, BytesRejection>,
) -> ApiResult {
    require_json(&headers)?;
    let raw = body(raw)?;
    let Posted { pin, name } = serde_json::from_slice(&raw).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("a login is {{\"pin\": \"...\", \"name\": \"...\"}}: {e}"),
        )
    })?;
    // The shape is public: a PIN that cannot be one is not worth a check,
    // nor a place among the wrong tries.
    if !pin_shape_ok(&pin) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!(
                "a PIN is {} to {} digits",
                auth::PIN_MIN_DIGITS,
                auth::PIN_MAX_DIGITS
            ),
        ));
    }
    let typed = name.as_deref().map_or("judge", str::trim).to_owned();
    crate::ports::valid_name(&typed).map_err(|m| ApiError::new(StatusCode::BAD_REQUEST, m))?;

    let door = &judges.0;
    let found = match door.pins.check(pin, peer(&extensions)).await {
        Verdict::Match(n) => n,
        Verdict::Wrong => {
            tracing::info!(name = typed, "login with a wrong PIN");
            return Err(ApiError::new(StatusCode::UNAUTHORIZED, "wrong PIN"));
        }
        Verdict::Locked(lock) => return Ok(locked(lock, door.auth.place)),
        Verdict::Busy => {
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "busy checking other PINs: try again in a moment",
            ));
        }
    };
    let Some((judge, digest)) = door.logins.get(found) else {
        return Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "cannot tell whose PIN it is",
        ));
    };
    // A judge's own PIN names them, whatever was typed.
    let name = judge.clone().unwrap_or(typed);
    let Some(id) = door.sessions.create(&name, digest) else {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "cannot make a session now",
        ));
    };
    tracing::info!(name, "judge logged in");
    let auth = &door.auth;
    let jar = auth::start_session(jar, id, auth.session, auth.secure);
    Ok((jar, Json(json!({ "name": name }))).into_response())
}

/// The answer to a login a lock refused: `429` with `Retry-After`, the
/// seconds left as `retry_after_s`, and what ends it where the judge is.
fn locked(lock: Lock, place: Place) -> Response {
    let secs = lock.left().as_secs() + 1;
    let why = match lock {
        Lock::Address(_) => format!(
            "too many wrong PINs from this device: it may try again in {secs} s; \
             another judge's device can still log in"
        ),
        Lock::Overall(_) => format!(
            "too many wrong PINs from several devices: logins from devices that have not \
             logged in lately are locked for {secs} s"
        ),
    };
    let message = format!("{why} ({} ends it)", place.unlock_hint());
    let body = json!({ "error": message, "retry_after_s": secs });
    let mut res = (StatusCode::TOO_MANY_REQUESTS, Json(body)).into_response();
    res.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    res
}

/// Only as JSON: a cross-site form must not log a judge out.
async fn logout(
    State(judges): State<Judges>,
    jar: SignedCookieJar,
    headers: HeaderMap,
) -> ApiResult {
    require_json(&headers)?;
    if let Some(id) = auth::session_id(&jar) {
        judges.0.sessions.revoke(&id);
    }
    Ok((auth::end_session(jar), Json(json!({ "ok": true }))).into_response())
}

async fn session(State(judges): State<Judges>, jar: SignedCookieJar) -> Response {
    let found = judges.judge_and_chief(&jar);
    let door = &judges.0;
    let chief = found.as_ref().is_some_and(|(_, chief)| *chief);
    let judge = found.map(|(judge, _)| judge);
    // Whether a PIN names its judge: the panel then asks for no name.
    let pin_names = door.auth.judge_pin_hash.is_none() && !door.auth.judges.is_empty();
    let security = judge.is_some().then(|| door.pins.security());
    Json(json!({
        "judge": judge,
        "chief": chief,
        "pin_names": pin_names,
        "security": security,
        "event": door.event,
    }))
    .into_response()
}

async fn security(State(judges): State<Judges>, jar: SignedCookieJar) -> ApiResult {
    if judges.judge(&jar).is_none() {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "a judge must log in",
        ));
    }
    Ok(Json(judges.0.pins.security()).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::Request;
    use tower::ServiceExt as _;

    async fn send(router: &Router, req: Request<Body>) -> Response {
        router.clone().oneshot(req).await.unwrap()
    }

    fn post_json(path: &str, body: &str, cookie: Option<&str>) -> Request<Body> {
        let mut req = Request::post(path).header(header::CONTENT_TYPE, "application/json");
        if let Some(c) = cookie {
            req = req.header(header::COOKIE, c);
        }
        req.body(Body::from(body.to_owned())).unwrap()
    }

    /// The door alone, as the centre mounts it: no lane behind it.
    #[tokio::test]
    async fn the_door_logs_a_judge_in_and_names_them_on_later_requests_without_a_lane() {
        let hash = crate::web::hash_pin("135790").unwrap();
        let mut auth = AuthSettings::with_pin_hash(hash);
        auth.place = Place::Centre;
        let judges = Judges::new(auth, Key::generate(), String::new());
        let door = judges.router();
        assert_eq!(judges.of_request(&HeaderMap::new()), None);

        let res = send(&door, post_json("/api/login", r#"{"pin":"111111"}"#, None)).await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
        let res = send(
            &door,
            post_json("/api/login", r#"{"pin":"135790","name":"Ann"}"#, None),
        )
        .await;
        assert_eq!(res.status(), StatusCode::OK);
        let cookie = res.headers()[header::SET_COOKIE]
            .to_str()
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_owned();
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, HeaderValue::from_str(&cookie).unwrap());
        assert_eq!(judges.of_request(&headers), Some(("Ann".into(), true)));

        // A cookie signed with another key is nobody's.
        let stranger = Judges::new(
            AuthSettings::with_pin_hash(crate::web::hash_pin("135790").unwrap()),
            Key::generate(),
            String::new(),
        );
        assert_eq!(stranger.of_request(&headers), None);

        // Logged out: the same cookie names nobody.
        let res = send(&door, post_json("/api/logout", "{}", Some(&cookie))).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(judges.of_request(&headers), None);

        // Its own errors in the API's shape: a method a route does not take.
        let res = send(
            &door,
            Request::get("/api/login").body(Body::empty()).unwrap(),
        )
        .await;
        assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
        let body = axum::body::to_bytes(res.into_body(), 1024).await.unwrap();
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["error"], "this route does not take that method");
    }
}

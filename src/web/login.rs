//! Logging in and out: a judge's PIN checked (argon2, on its own thread,
//! [`super::pins`], behind the lockout of [`super::limit`]) against their own PIN or the
//! shared one, the server-side session that follows, and what a session
//! may see of the PIN checks (`/api/security`). Never logs a PIN or a
//! cookie; never touches the lane.

use std::net::SocketAddr;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum_extra::extract::cookie::SignedCookieJar;
use serde::Deserialize;
use serde_json::json;

use super::limit::{Lock, Place};
use super::pins::Verdict;
use super::{ApiError, ApiResult, Shared, auth, body, pin_shape_ok, require_json};

#[derive(Deserialize)]
struct Login {
    pin: String,
    name: Option<String>,
}

/// The client's address, when the server recorded it.
fn peer(extensions: &axum::http::Extensions) -> Option<std::net::IpAddr> {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(addr)| addr.ip().to_canonical())
}

pub(super) async fn login(
    State(shared): State<Shared>,
    jar: SignedCookieJar,
    extensions: axum::http::Extensions,
    headers: HeaderMap,
    raw: Result<Bytes, BytesRejection>,
) -> ApiResult {
    require_json(&headers)?;
    let raw = body(raw)?;
    let Login { pin, name } = serde_json::from_slice(&raw).map_err(|e| {
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

    let found = match shared.pins.check(pin, peer(&extensions)).await {
        Verdict::Match(n) => n,
        Verdict::Wrong => {
            tracing::info!(name = typed, "login with a wrong PIN");
            return Err(ApiError::new(StatusCode::UNAUTHORIZED, "wrong PIN"));
        }
        Verdict::Locked(lock) => return Ok(locked(lock, shared.api.auth.place)),
        Verdict::Busy => {
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "busy checking other PINs: try again in a moment",
            ));
        }
    };
    let Some((judge, digest)) = shared.logins.get(found) else {
        return Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "cannot tell whose PIN it is",
        ));
    };
    // A judge's own PIN names them, whatever was typed.
    let name = judge.clone().unwrap_or(typed);
    let Some(id) = shared.sessions.create(&name, digest) else {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "cannot make a session now",
        ));
    };
    tracing::info!(name, "judge logged in");
    let auth = &shared.api.auth;
    let jar = auth::start_session(jar, id, auth.session, auth.secure);
    Ok((jar, Json(json!({ "name": name }))).into_response())
}

/// The judge of this request's session, if it is open, as the config
/// names them now.
pub(super) fn judge(shared: &Shared, jar: &SignedCookieJar) -> Option<String> {
    judge_and_chief(shared, jar).map(|(judge, _)| judge)
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
pub(super) fn judge_and_chief(shared: &Shared, jar: &SignedCookieJar) -> Option<(String, bool)> {
    let id = auth::session_id(jar)?;
    let (typed, digest) = shared.sessions.login(&id)?;
    let Some((named, _)) = shared.logins.iter().find(|(_, d)| *d == digest) else {
        shared.sessions.revoke(&id);
        return None;
    };
    Some(match named {
        Some(name) => (name.clone(), false),
        None => (typed, true),
    })
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
pub(super) async fn logout(
    State(shared): State<Shared>,
    jar: SignedCookieJar,
    headers: HeaderMap,
) -> ApiResult {
    require_json(&headers)?;
    if let Some(id) = auth::session_id(&jar) {
        shared.sessions.revoke(&id);
    }
    Ok((auth::end_session(jar), Json(json!({ "ok": true }))).into_response())
}

pub(super) async fn session(State(shared): State<Shared>, jar: SignedCookieJar) -> Response {
    let found = judge_and_chief(&shared, &jar);
    let chief = found.as_ref().is_some_and(|(_, chief)| *chief);
    let judge = found.map(|(judge, _)| judge);
    // Whether a PIN names its judge: the panel then asks for no name.
    let pin_names = shared.api.auth.judge_pin_hash.is_none() && !shared.api.auth.judges.is_empty();
    let security = judge.is_some().then(|| shared.pins.security());
    Json(json!({
        "judge": judge,
        "chief": chief,
        "pin_names": pin_names,
        "security": security,
        "event": shared.api.event,
    }))
    .into_response()
}

pub(super) async fn security(State(shared): State<Shared>, jar: SignedCookieJar) -> ApiResult {
    if judge(&shared, &jar).is_none() {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "a judge must log in",
        ));
    }
    Ok(Json(shared.pins.security()).into_response())
}

//! The HTTP room both sites share: a lane's panel ([`panel`], the control
//! API) and the centre (`crate::centre::api`) each build their routes on
//! it and serve them with it.
//!
//! - [`server`]: the accept loop, its timeouts, the cap on open
//!   connections ([`server::cap`], the broker's front keeps its own by the
//!   same policy), HTTPS.
//! - [`Judges`] ([`login`]): the judges' door: `POST /api/login`,
//!   `POST /api/logout`, `GET /api/session`, `GET /api/security`; the PIN
//!   checks ([`pins`], [`auth`]), the per-address login rate and the
//!   lockout ([`limit`]), the sessions ([`sessions`]). A site mounts its
//!   routes and asks it who is logged in on a request.
//! - [`AuthSettings`]: who may log in, for how long, and where a locked
//!   login is told to unlock.
//! - The API's shape: every error a JSON object `{"error": "..."}` with a
//!   message a person can act on; a body read only when declared JSON.
//!
//! What this room must never do: log a PIN or a cookie; panic or block an
//! async thread on any request (bodies are capped, nothing from a request
//! is unwrapped, the slow argon2 check runs on its own thread, one at a
//! time, behind a short queue); take a cross-site form post (only
//! `Content-Type: application/json` is read, and the cookie is
//! `SameSite=Strict`).

pub mod auth;
mod bucket;
pub mod events;
pub mod history;
pub mod limit;
pub mod login;
pub mod page;
pub mod panel;
pub mod pins;
pub mod server;
pub mod sessions;

use std::path::PathBuf;
use std::time::Duration;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::config::{Config, JudgeConfig};
use pins::Lockout;

pub use auth::{PinError, PinHashError, check_pin_hash, hash_pin, pin_shape_ok, verify_pin};
pub use login::Judges;
pub use panel::{ApiState, JOURNALS_BUSY, LANE_REPLY_TIMEOUT, LaneSnapshot, router};

/// The largest request body taken, in bytes.
pub const MAX_BODY: usize = 16 * 1024;

/// The longest session: a cookie must not outlive a tournament weekend.
pub const MAX_SESSION: Duration = Duration::from_secs(7 * 24 * 3600);

/// The most named judges: each login computes every judge's hash, so each
/// one adds a check's time to every login.
pub const MAX_JUDGES: usize = 8;

/// Who may log in, for how long, and when PIN checks lock.
#[derive(Clone, Debug)]
pub struct AuthSettings {
    /// The shared judge PIN's argon2 PHC string (see [`hash_pin`]): a login
    /// with it acts under the name typed at login.
    pub judge_pin_hash: Option<String>,
    /// Judges with their own PIN: a login with one acts under its name.
    pub judges: Vec<JudgeConfig>,
    /// How long a login lasts at most (capped at [`MAX_SESSION`]).
    pub session: Duration,
    /// How long a login lasts without a request.
    pub idle: Duration,
    pub lockout: Lockout,
    /// Where `sessions.json` is kept and `lanecall unlock` leaves its file;
    /// `None` keeps sessions in memory only and takes no unlock.
    pub state_dir: Option<PathBuf>,
    /// Whether the cookie is marked `Secure`: set it when the panel is
    /// served over TLS, never over plain HTTP (the browser would then not
    /// send it back).
    pub secure: bool,
    /// A lane's or the centre's: what a locked login is told to run.
    pub place: limit::Place,
}

impl AuthSettings {
    /// One shared PIN, the default lengths and lockout (the config's
    /// `[web]` defaults), nothing on disk.
    pub fn with_pin_hash(hash: impl Into<String>) -> AuthSettings {
        use crate::config::{DEFAULT_SESSION_HOURS, DEFAULT_SESSION_IDLE_S};
        AuthSettings {
            judge_pin_hash: Some(hash.into()),
            judges: Vec::new(),
            session: Duration::from_secs(DEFAULT_SESSION_HOURS * 3600),
            idle: Duration::from_secs(DEFAULT_SESSION_IDLE_S),
            lockout: Lockout::default(),
            state_dir: None,
            secure: false,
            place: limit::Place::Lane,
        }
    }

    /// The config's `[web]` settings, keeping sessions in its `state_dir`.
    /// `secure` is left false: the caller sets it when it serves TLS.
    pub fn from_config(config: &Config) -> AuthSettings {
        let w = &config.web;
        AuthSettings {
            judge_pin_hash: w.judge_pin_hash.clone(),
            judges: w.judges.clone(),
            session: w.session,
            idle: w.session_idle,
            lockout: Lockout {
                after: w.lockout_after,
                base: w.lockout_base,
                max: w.lockout_max,
            },
            state_dir: Some(config.state_dir.clone()),
            // Over HTTPS the session cookie never goes out in the clear.
            secure: w.tls(),
            place: limit::Place::Lane,
        }
    }

    /// Every hash a login is checked against, named judges first; and what
    /// each gives: a judge's name, or `None` for the shared PIN.
    fn hashes(&self) -> Vec<(Option<String>, String)> {
        self.judges
            .iter()
            .map(|j| (Some(j.name.clone()), j.pin_hash.clone()))
            .chain(self.judge_pin_hash.iter().map(|h| (None, h.clone())))
            .collect()
    }
}

/// An error answer: the status and `{"error": message}`.
struct ApiError(StatusCode, String);

impl ApiError {
    fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError(status, message.into())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

type ApiResult = Result<Response, ApiError>;

async fn not_found(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        format!("no such route: {method} {}", uri.path()),
    )
}

/// Gives an error that axum or a layer answered in plain text (or not at
/// all: 405, 413) the API's JSON shape.
async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let message = match status {
        StatusCode::PAYLOAD_TOO_LARGE => format!("the request body is over {MAX_BODY} bytes"),
        StatusCode::METHOD_NOT_ALLOWED => "this route does not take that method".to_owned(),
        other => other
            .canonical_reason()
            .unwrap_or("request failed")
            .to_lowercase(),
    };
    // Keep the answer's own headers (`Allow` on a 405), with the JSON body's
    // type and length.
    let (mut parts, _) = response.into_parts();
    let (fresh, body) = ApiError::new(status, message).into_response().into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.extend(fresh.headers);
    Response::from_parts(parts, body)
}

// ----- sessions ---------------------------------------------------------------

/// Refuses a body that is not declared JSON: a cross-site HTML form can only
/// send form or text bodies.
fn require_json(headers: &HeaderMap) -> Result<(), ApiError> {
    let essence = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(str::trim);
    match essence {
        Some(e) if e.eq_ignore_ascii_case("application/json") => Ok(()),
        _ => Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send the body as JSON with `Content-Type: application/json`",
        )),
    }
}

/// The body, or the API's answer to a body that could not be read (over the
/// limit, or the connection dropped).
fn body(body: Result<Bytes, BytesRejection>) -> Result<Bytes, ApiError> {
    body.map_err(|rejection| {
        let status = rejection.status();
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(status, format!("the request body is over {MAX_BODY} bytes"))
        } else {
            ApiError::new(status, format!("cannot read the request body: {rejection}"))
        }
    })
}

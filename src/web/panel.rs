//! A lane's panel, its control API: how the tablet panel and scripts see
//! the lane and how a judge acts on it over HTTP. Built on the HTTP room
//! of [`super`], which the centre shares.
//!
//! - `GET /api/lane`: the lane as `lanecall replay --json` would print it
//!   for the journal so far (replay-output.md), with an `ETag` so a panel
//!   polling it gets `304` while nothing changed. Anyone on the network may
//!   read it: scores are public at a tournament.
//! - `POST /api/login`, `POST /api/logout`, `GET /api/session`: the
//!   judges' door ([`super::Judges`], the centre mounts it too): a judge
//!   logs in with a PIN: their own (`[[web.judges]]`, the name comes with it) or
//!   the shared judge PIN (with a name typed at login). The session is kept
//!   by the server ([`super::sessions`]); the cookie holds its signed id
//!   ([`super::auth`]).
//! - `GET /api/security`: for a logged-in judge, the wrong PINs and the
//!   lockout ([`super::pins`]).
//! - `POST /api/actions`: one panel event of journal.md without its `t`,
//!   e.g. `{"ev":"hold","on":true,"reason":"oil"}`. It is read by the
//!   journal's own parser, so the API takes exactly what a journal holds
//!   and words its errors the same way; `by` is always the logged-in judge.
//!   The action goes to the lane's thread, which journals it and applies it
//!   (or refuses it with the lane's reason: `400` for pins entered that
//!   cannot be, `403` for a `withdraw` this judge may not make, else
//!   `409`). The session says whether the judge is the chief judge (logged
//!   in with `[web] judge_pin_hash`): that goes with the action too.
//! - `GET /api/events`: the lane as Server-Sent Events ([`super::events`]): a
//!   `lane` event with the snapshot at once, then one per change. Anyone
//!   may listen, like `GET /api/lane`, up to `[web] max_live_views` at
//!   once; one more gets `503`.
//! - `GET /api/history`, `GET /api/history/{id}`: the lane's journals, newest
//!   first, and the replay-output.md result of one ([`super::history`]).
//! - `GET /export/{id}.csv`, `.json`, `.jsonl`: one journal's score sheet as
//!   CSV, its result as JSON, or the journal file itself, as downloads.
//!
//! Logins are limited per client address ([`super::limit`]): past a small burst an
//! address gets `429` with `Retry-After` until its quota refills. Wrong
//! PINs lock the address they came from for a while, and many from
//! several addresses lock those that have not logged in lately ([`super::limit`],
//! kept by [`super::pins`]): `429` with `Retry-After` too, and no argon2 work.
//!
//! The routes are served by [`super::server`]: its own accept loop with timeouts,
//! a cap on open connections, and HTTPS when configured.
//!
//! Every error is a JSON object `{"error": "..."}` with a message a person
//! can act on.
//!
//! What this module must never do:
//!
//! - touch the lane's state itself: it only sends [`Input`]s and reads the
//!   snapshot the lane's thread publishes, so the journal stays the one
//!   record of what happened;
//! - take an action without a judge's valid session, take sensor events
//!   (those come from the hardware alone), or take a cross-site form post
//!   (only `Content-Type: application/json` is read, and the cookie is
//!   `SameSite=Strict`);
//! - panic or block an async thread on any request: bodies are capped at
//!   16 KiB, nothing from a request is unwrapped, and the slow argon2 check
//!   runs on its own thread, one at a time, behind a short queue;
//! - log a PIN or a cookie;
//! - read a file outside the journal folder, or one not named like a
//!   journal: an id is checked against `lane<N>-<stamp>-<NN>` before it
//!   becomes a file name.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{FromRef, FromRequest as _, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router, middleware};
use axum_extra::extract::cookie::{Key, SignedCookieJar};
use futures_util::StreamExt as _;
use serde_json::json;
use tokio::io::AsyncReadExt as _;
use tokio::sync::{Semaphore, oneshot, watch};
use tokio_util::codec::{BytesCodec, FramedRead};
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::trace::TraceLayer;

use super::history::{self, History, HistoryError};
use super::{
    ApiError, ApiResult, AuthSettings, Judges, MAX_BODY, body, events, json_errors, not_found,
    page, require_json,
};
use crate::journal::parse_panel_action;
use crate::lane::{Action, DateFrom, Panel, Refusal};
use crate::ports::{Input, InputSender, NotTaken};

/// How long an action waits for the lane's thread to answer.
pub const LANE_REPLY_TIMEOUT: Duration = Duration::from_secs(5);

/// How many journals are read at once for the history routes: replaying a
/// long journal takes a core for a moment and some memory. One more is
/// answered `503` at once rather than queued: unauthenticated readers must
/// not pile up replays behind each other.
const JOURNAL_READS_AT_ONCE: usize = 2;

/// The answer when [`JOURNAL_READS_AT_ONCE`] journals are being read.
pub const JOURNALS_BUSY: &str = "busy reading other journals, try again";

/// What the API needs from the daemon.
pub struct ApiState {
    /// The lane thread's input channel.
    pub inputs: InputSender,
    /// The lane as the lane thread last published it.
    pub lane: watch::Receiver<LaneSnapshot>,
    /// Signs the session cookie. A key made at start logs everyone out at
    /// each restart; a key from a file keeps sessions across restarts.
    pub cookie_key: Key,
    /// PINs, sessions and the lockout.
    pub auth: AuthSettings,
    /// The lane's journal folder (`state_dir/journal`), for the history
    /// and export routes; `None` answers them `404`.
    pub journal_dir: Option<PathBuf>,
    /// Live views (`GET /api/events`) at once; one more gets `503`.
    pub live_views: usize,
    /// The event's title (`[web] event`), for the printed sheet.
    pub event: String,
}

pub use crate::ports::LaneSnapshot;

/// The state the handlers share.
#[derive(Clone)]
struct Shared {
    api: Arc<ApiState>,
    /// The logins, sessions and PIN checks.
    judges: Judges,
    /// The journals, if the daemon named their folder.
    history: Option<Arc<History>>,
    /// Bounds the journals read at once.
    journal_reads: Arc<Semaphore>,
    /// One permit per live view.
    live_views: Arc<Semaphore>,
}

impl FromRef<Shared> for Key {
    fn from_ref(shared: &Shared) -> Key {
        shared.api.cookie_key.clone()
    }
}

/// The control API's routes, ready to serve.
pub fn router(state: ApiState) -> Router {
    let judges = Judges::new(
        state.auth.clone(),
        state.cookie_key.clone(),
        state.event.clone(),
    );
    let door = judges.routes();
    let live_views = state.live_views;
    let shared = Shared {
        history: state.journal_dir.clone().map(|d| Arc::new(History::new(d))),
        api: Arc::new(state),
        judges,
        journal_reads: Arc::new(Semaphore::new(JOURNAL_READS_AT_ONCE)),
        live_views: Arc::new(Semaphore::new(live_views)),
    };
    Router::new()
        .route("/api/lane", get(lane))
        .route("/api/events", get(lane_events))
        .route("/api/history", get(history_list))
        .route("/api/history/{id}", get(history_report))
        .route("/export/{file}", get(export))
        .route_service("/api/login", door.clone())
        .route_service("/api/logout", door.clone())
        .route_service("/api/session", door.clone())
        .route_service("/api/security", door)
        .route("/api/actions", post(actions))
        .merge(page::routes())
        .fallback(not_found)
        .with_state(shared)
        .layer(RequestBodyLimitLayer::new(MAX_BODY))
        // Outside the limit, so the limit's own 413 gets the JSON shape too.
        .layer(middleware::map_response(json_errors))
        .layer(TraceLayer::new_for_http())
}

// ----- the lane ---------------------------------------------------------------

/// Lets the snapshot's shared text be a response body without a copy.
struct SnapshotBytes(Arc<str>);

impl AsRef<[u8]> for SnapshotBytes {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

async fn lane(State(shared): State<Shared>, headers: HeaderMap) -> Response {
    let snapshot = shared.api.lane.borrow().clone();
    let etag = format!("\"{}\"", snapshot.version);
    let fresh = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .any(|v| etag_matches(v, &etag));
    let common = [
        (header::ETAG, etag),
        // Always ask again: the panel must never show an old score.
        (header::CACHE_CONTROL, "no-cache".to_owned()),
    ];
    if fresh {
        return (StatusCode::NOT_MODIFIED, common).into_response();
    }
    (
        StatusCode::OK,
        common,
        [(header::CONTENT_TYPE, "application/json")],
        Body::from(Bytes::from_owner(SnapshotBytes(snapshot.json))),
    )
        .into_response()
}

/// Whether an `If-None-Match` value (`*`, or a list of tags, weak or not)
/// names `etag`.
fn etag_matches(value: &HeaderValue, etag: &str) -> bool {
    let Ok(value) = value.to_str() else {
        return false;
    };
    value
        .split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

async fn lane_events(State(shared): State<Shared>) -> Response {
    // Each live view holds a connection for as long as a panel is open: a
    // room full of phones must not take every connection the judges need.
    let Ok(permit) = Arc::clone(&shared.live_views).try_acquire_owned() else {
        let mut res = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "too many live views: {} screens are already following this lane; \
                 close one, or read GET /api/lane now and then",
                shared.api.live_views
            ),
        )
        .into_response();
        res.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("30"));
        return res;
    };
    events::sse(shared.api.lane.clone(), permit).into_response()
}

// ----- history ----------------------------------------------------------------

/// The answer to a failed history request.
fn history_error(e: HistoryError) -> ApiError {
    let status = match &e {
        HistoryError::NotFound => StatusCode::NOT_FOUND,
        HistoryError::Io(io) if io.kind() == std::io::ErrorKind::NotFound => StatusCode::NOT_FOUND,
        HistoryError::Io(_) | HistoryError::NotAJournal(_) => StatusCode::INTERNAL_SERVER_ERROR,
    };
    if status == StatusCode::INTERNAL_SERVER_ERROR {
        tracing::warn!("history: {}", history::describe(&e));
    }
    ApiError::new(status, history::describe(&e))
}

/// Runs `work` on the journals, on the blocking pool and a few at a time.
async fn with_journals<T: Send + 'static>(
    shared: &Shared,
    work: impl FnOnce(&History) -> Result<T, HistoryError> + Send + 'static,
) -> Result<T, ApiError> {
    let Some(history) = shared.history.clone() else {
        return Err(ApiError::new(StatusCode::NOT_FOUND, "no journals here"));
    };
    let permit = shared
        .journal_reads
        .clone()
        .try_acquire_owned()
        .map_err(|_| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, JOURNALS_BUSY))?;
    // The permit goes with the work: a client that hangs up does not free
    // its place while its journal is still being read.
    let done = tokio::task::spawn_blocking(move || {
        let result = work(&history);
        drop(permit);
        result
    })
    .await;
    match done {
        Ok(result) => result.map_err(history_error),
        Err(e) => {
            tracing::error!("reading a journal failed: {e}");
            Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "cannot read the journal",
            ))
        }
    }
}

/// The replay-output.md JSON of journal `id`.
fn report_json(history: &History, id: &str) -> Result<String, HistoryError> {
    let replay = history.replay(id)?;
    serde_json::to_string(&replay.report()).map_err(|e| HistoryError::Io(std::io::Error::other(e)))
}

async fn history_list(State(shared): State<Shared>) -> ApiResult {
    let list = with_journals(&shared, History::list).await?;
    Ok(([(header::CACHE_CONTROL, "no-cache")], Json(list)).into_response())
}

async fn history_report(State(shared): State<Shared>, Path(id): Path<String>) -> ApiResult {
    let json = with_journals(&shared, move |h| report_json(h, &id)).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        json,
    )
        .into_response())
}

/// `Content-Disposition` for a download of `id` as `ext`. `id` is a
/// checked journal id: letters, digits and `-` only.
fn attachment(id: &str, ext: &str) -> String {
    format!("attachment; filename=\"{id}.{ext}\"")
}

async fn export(State(shared): State<Shared>, Path(file): Path<String>) -> ApiResult {
    let no_such = || ApiError::new(StatusCode::NOT_FOUND, "no such journal");
    let Some((id, ext)) = file.rsplit_once('.') else {
        return Err(no_such());
    };
    if !history::valid_id(id) {
        return Err(no_such());
    }
    let id = id.to_owned();
    let disposition = attachment(&id, ext);
    let content_type = match ext {
        "csv" => "text/csv; charset=utf-8",
        "json" => "application/json",
        "jsonl" => "application/jsonl; charset=utf-8",
        _ => {
            return Err(ApiError::new(
                StatusCode::NOT_FOUND,
                "no such export: ask for .csv, .json or .jsonl",
            ));
        }
    };
    let headers = [
        (header::CONTENT_TYPE, content_type.to_owned()),
        (header::CONTENT_DISPOSITION, disposition),
        (header::CACHE_CONTROL, "no-cache".to_owned()),
    ];
    let body = match ext {
        "csv" => {
            let csv = with_journals(&shared, move |h| {
                let replay = h.replay(&id)?;
                let value = serde_json::to_value(replay.report())
                    .map_err(|e| HistoryError::Io(std::io::Error::other(e)))?;
                Ok(history::sheet_csv(&value))
            })
            .await?;
            Body::from(csv)
        }
        "json" => Body::from(with_journals(&shared, move |h| report_json(h, &id)).await?),
        _ => {
            let path = with_journals(&shared, move |h| h.path_of(&id)).await?;
            let file = tokio::fs::File::open(&path)
                .await
                .map_err(|e| history_error(HistoryError::Io(e)))?;
            let len = file
                .metadata()
                .await
                .map_err(|e| history_error(HistoryError::Io(e)))?
                .len();
            // What the file held when asked: the lane may append to it
            // meanwhile.
            let chunks = FramedRead::new(file.take(len), BytesCodec::new())
                .map(|chunk| chunk.map(|bytes| bytes.freeze()));
            let mut res = (headers, Body::from_stream(chunks)).into_response();
            res.headers_mut()
                .insert(header::CONTENT_LENGTH, HeaderValue::from(len));
            return Ok(res);
        }
    };
    Ok((headers, body).into_response())
}

// ----- actions ----------------------------------------------------------------

/// Reads a posted panel event with the journal's parser: the body's fields,
/// with `t` set to 0 (the lane's thread stamps the real time) and `by` the
/// logged-in judge, whatever the body said.
fn parse_action(raw: &[u8], by: &str) -> Result<Action, ApiError> {
    parse_panel_action(raw, by).map_err(|m| ApiError::new(StatusCode::BAD_REQUEST, m))
}

/// The answer to an action the lane refused: `400` for an entry that is
/// wrong in itself, `403` for an action this judge may not take, `409` for
/// one the lane's state does not allow.
fn refused_status(refusal: &Refusal) -> StatusCode {
    match refusal {
        Refusal::PinsTwice(_) | Refusal::PinsNotStanding { .. } => StatusCode::BAD_REQUEST,
        Refusal::NotYourAction { .. } | Refusal::UndoWindowOver { .. } => StatusCode::FORBIDDEN,
        _ => StatusCode::CONFLICT,
    }
}

async fn actions(
    State(shared): State<Shared>,
    jar: SignedCookieJar,
    headers: HeaderMap,
    posted: Body,
) -> ApiResult {
    // The session first, the body after: a stranger's post is answered
    // unread, however slowly its body would come.
    let Some((judge, chief)) = shared.judges.judge_and_chief(&jar) else {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "a judge must log in",
        ));
    };
    require_json(&headers)?;
    let raw = body(Bytes::from_request(axum::http::Request::new(posted), &()).await)?;
    let action = parse_action(&raw, &judge)?;
    let name = action.name();
    // Only the centre's link and the lane's own clock give the others.
    if let Action::Date { from, .. } = &action
        && *from != DateFrom::Judge
    {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "a date posted on the panel is a judge's: \"from\": \"judge\"",
        ));
    }

    let (tx, rx) = oneshot::channel();
    let panel = Panel {
        by: Some(judge.clone()),
        chief,
        cmd: None,
        action,
    };
    let input = Input::Action {
        panel,
        reply: Some(tx),
    };
    let stopped = || ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "the lane is not running");
    shared.api.inputs.send(input).await.map_err(|_| stopped())?;
    // On a timeout the action may still be applied later: the panel reads
    // the lane again rather than trusting either answer.
    match tokio::time::timeout(LANE_REPLY_TIMEOUT, rx).await {
        Err(_) => {
            tracing::warn!(judge, action = name, "the lane did not answer in time");
            Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "the lane is not answering",
            ))
        }
        Ok(Err(_)) => Err(stopped()),
        Ok(Ok(Ok(t))) => {
            tracing::info!(judge, action = name, "action applied");
            Ok(Json(json!({ "ok": true, "t": t })).into_response())
        }
        Ok(Ok(Err(NotTaken::Refused(refusal)))) => {
            tracing::info!(judge, action = name, %refusal, "action refused");
            Err(ApiError::new(refused_status(&refusal), refusal.to_string()))
        }
        Ok(Ok(Err(NotTaken::Day(why)))) => {
            tracing::info!(judge, action = name, "action refused: {why}");
            Err(ApiError::new(StatusCode::CONFLICT, why))
        }
        Ok(Ok(Err(not_durable @ NotTaken::NotDurable(_)))) => {
            tracing::warn!(judge, action = name, "action not taken: {not_durable}");
            Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                not_durable.to_string(),
            ))
        }
    }
}

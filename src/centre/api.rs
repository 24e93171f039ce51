//! The centre's HTTP API and page.
//!
//! - `GET /api/lanes`: every lane known (`lane`, `online`, `state`,
//!   `mirror`; a lane of the competition never heard from with
//!   `never_connected`), `GET /api/centre`: the broker link and the messages
//!   refused, `GET /api/pushes`: the pushes and each lane's answer. Anyone
//!   may read them, like a lane's `/api/lane`.
//! - `POST /api/login`, `/api/logout`, `GET /api/session`: the chief
//!   judge's login, served by the door a lane's panel mounts too
//!   ([`crate::web::Judges`]): the same PIN checks, rate, lockout and
//!   sessions.
//! - `POST /api/push` `{"block":"S1","lanes":{"7":[bowlers]}}`: a `lineup`
//!   command per lane; `POST /api/hold` `{"lane":7,"on":true,"reason":"…"}`;
//!   `POST /api/pushes/cancel` `{"push":12,"lane":3}`: a command held for
//!   an offline lane never sent. All need the chief judge logged in.
//! - `GET /api/standings` (docs/programme.md, "Standings"), `GET
//!   /api/programme` (the blocks and their lanes; `null` with no
//!   programme), `GET /api/finals` (the finals' lanes proposed from the
//!   standings), `POST /api/blocks/lanes` (a block's lanes set from the
//!   page, a judge logged in),
//!   `GET /results.txt`, `/results.csv`, `/results.json`: the results
//!   protocol. A push may name only its `block`: the lanes' bowlers then
//!   come from the programme.
//! - `GET /api/entries`, `GET /entries.csv`; `POST /api/entries/add`,
//!   `/edit`, `/withdraw`, `/delete` and `/import` (a CSV file): the
//!   entries (`entries.rs`, docs/programme.md); a change needs a judge
//!   logged in.
//! - `GET /`, `GET /tv`, `GET /protocol`, `GET /centre/{file}`: the page
//!   (web/centre/); `/protocol` is the results protocol to print.
//!
//! Every route that needs a judge checks the session before the body is
//! read ([`login_first`]): a stranger's post is answered `401` unread, so
//! stalled uploads hold no memory (the server's body deadline,
//! `crate::web::server`, bounds a judge's own).

use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Request, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum_extra::extract::cookie::Key;
use serde_json::{Value, json};
use tower_http::limit::RequestBodyLimitLayer;

mod blocks;
mod early;
mod entries;
mod lanes;
mod programme;
mod push;
mod void;

use super::MAX_LANE_NUMBER;
use super::book::Book;
use super::commands::Commands;
use super::entries::Entries;
use super::programme::Programme;
use super::standings::{CsvLang, Standings, protocol_csv, protocol_text, standings};
use crate::web::{AuthSettings, Judges, page::CONTENT_SECURITY_POLICY};

/// The largest request body: a push names every lane's bowlers.
pub const MAX_BODY: usize = 64 * 1024;

#[derive(Clone)]
struct Shared {
    book: Arc<Mutex<Book>>,
    /// The programme and its entries, which the page may change.
    entries: Option<Arc<Mutex<Entries>>>,
    commands: Arc<Commands>,
    site: Arc<str>,
    /// The judges' logins and sessions.
    judges: Judges,
    /// The standings last computed, with the book's `journals_changed`
    /// then: polled standings are computed once per change, not per poll.
    standings: Arc<Mutex<Option<Computed>>>,
    /// The centre's `state_dir`, for the records kept beside its entries.
    state_dir: Option<Arc<std::path::Path>>,
    /// The games the chief judge voided.
    voids: Arc<super::void::Voids>,
}

/// Standings and the book's `journals_changed` and the entries' revision
/// they were computed at.
type Computed = ((u64, u64), Arc<Standings>);

impl Shared {
    /// The programme now, with its entries as last changed.
    fn programme(&self) -> Option<Arc<Programme>> {
        Some(lock(self.entries.as_ref()?).programme())
    }
    /// Changes to the entries and the voided games (each only grows).
    fn revision(&self) -> u64 {
        let entries = self.entries.as_ref().map_or(0, |e| lock(e).revision);
        entries.wrapping_add(self.voids.revision())
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The page's files.
#[derive(rust_embed::Embed)]
#[folder = "web/centre/"]
struct Page;

/// The centre's routes.
pub fn router(
    book: Arc<Mutex<Book>>,
    entries: Option<Arc<Mutex<Entries>>>,
    commands: Arc<Commands>,
    site: &str,
    auth: AuthSettings,
    cookie_key: Key,
    voids: Arc<super::void::Voids>,
) -> Router {
    let state_dir = auth.state_dir.as_deref().map(Arc::from);
    // A locked login is told to unlock the centre, not a lane.
    let auth = AuthSettings {
        place: crate::web::limit::Place::Centre,
        ..auth
    };
    let judges = Judges::new(auth, cookie_key, String::new());
    let login = judges
        .router()
        .layer(tower_http::trace::TraceLayer::new_for_http());
    let shared = Shared {
        book,
        entries,
        commands,
        site: site.into(),
        judges,
        standings: Arc::default(),
        state_dir,
        voids,
    };
    let judged = || middleware::from_fn_with_state(shared.clone(), login_first);
    let import = Router::new()
        .route("/api/entries/import", post(entries::import))
        .route_layer(judged())
        .with_state(shared.clone())
        .layer(RequestBodyLimitLayer::new(entries::MAX_IMPORT_BODY));
    let changes = Router::new()
        .route("/api/push", post(push::push))
        .route("/api/hold", post(hold))
        .route("/api/games/void", post(void::void))
        .route("/api/pushes/cancel", post(cancel_push))
        .route("/api/blocks/lanes", post(blocks::set_lanes))
        .route("/api/finals/roll-off", post(blocks::set_roll_off))
        .route("/api/entries/add", post(entries::add))
        .route("/api/entries/edit", post(entries::edit))
        .route("/api/entries/withdraw", post(entries::withdraw))
        .route("/api/entries/delete", post(entries::delete))
        .route("/api/lanes/add", post(lanes::add))
        .route("/api/lanes/remove", post(lanes::remove))
        .route("/api/programme/{part}", post(programme::change))
        .route_layer(judged());
    Router::new()
        .merge(changes)
        .route("/api/lanes", get(lanes))
        .route("/api/centre", get(centre))
        .route("/api/pushes", get(pushes))
        .route("/api/standings", get(standings_json))
        .route("/api/programme", get(programme_blocks))
        .route("/api/programme/edit", get(programme::view))
        .route("/api/finals", get(blocks::proposals))
        .route("/results.txt", get(results_text))
        .route("/results.csv", get(results_csv))
        .route("/results.json", get(results_json))
        .route("/startlist.txt", get(start_list))
        .route("/api/entries", get(entries::list))
        .route("/entries.csv", get(entries::export))
        .route_service("/api/login", login.clone())
        .route_service("/api/logout", login.clone())
        .route_service("/api/session", login)
        .route("/", get(|| async { serve_file("index.html") }))
        .route("/tv", get(|| async { serve_file("tv.html") }))
        .route("/protocol", get(|| async { serve_file("protocol.html") }))
        .route(
            "/centre/{*file}",
            get(|Path(f): Path<String>| async move { serve_file(&f) }),
        )
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such route") })
        .with_state(shared)
        .layer(RequestBodyLimitLayer::new(MAX_BODY))
        .merge(import)
        // Russian beside the English of a refusal, for a Russian page.
        .layer(middleware::from_fn(super::say::layer))
}

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, axum::Json(json!({ "error": message.into() }))).into_response()
}

fn json_response(v: Value) -> Response {
    ([(header::CACHE_CONTROL, "no-cache")], axum::Json(v)).into_response()
}

fn serve_file(path: &str) -> Response {
    let Some(file) = Page::get(path) else {
        return error(StatusCode::NOT_FOUND, format!("no such file: {path}"));
    };
    let Some(kind) = crate::web::page::content_type(path) else {
        return error(StatusCode::NOT_FOUND, format!("no such file: {path}"));
    };
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
            (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        ],
        Body::from(file.data.into_owned()),
    )
        .into_response()
}

/// `GET /api/lanes`: the lanes heard from, then every other lane of the
/// competition (the programme's, the config's or the logins') as one that
/// never connected (`"never_connected": true`, no state).
async fn lanes(State(s): State<Shared>) -> Response {
    let known = blocks::competition_lanes(&s);
    let pieces = {
        let book = lock(&s.book);
        let mut pieces = book.lanes_json();
        let never: Vec<u32> = known
            .into_iter()
            .filter(|n| !book.lanes.contains_key(n))
            .collect();
        if !never.is_empty()
            && let Some(last) = pieces.pop()
        {
            // The list's closing `]` gives way to the lanes never heard.
            let mut text = last[..last.len().saturating_sub(1)].to_vec();
            for (i, n) in never.iter().enumerate() {
                if i > 0 || !book.lanes.is_empty() {
                    text.push(b',');
                }
                let card = lanes::never_card(&book, *n);
                text.extend_from_slice(card.to_string().as_bytes());
            }
            text.push(b']');
            pieces.push(Bytes::from(text));
        }
        pieces
    };
    let length: usize = pieces.iter().map(Bytes::len).sum();
    let body = futures_util::stream::iter(pieces.into_iter().map(Ok::<_, Infallible>));
    (
        [
            (header::CACHE_CONTROL, "no-cache".to_owned()),
            (header::CONTENT_TYPE, "application/json".to_owned()),
            (header::CONTENT_LENGTH, length.to_string()),
        ],
        Body::from_stream(body),
    )
        .into_response()
}

/// The standings now, from every mirrored journal.
fn current(s: &Shared) -> Arc<Standings> {
    let mut last = s.standings.lock().unwrap_or_else(PoisonError::into_inner);
    let programme = s.programme();
    let revision = s.revision();
    let (changed, games) = {
        let book = s.book.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((at, standings)) = &*last
            && *at == (book.journals_changed, revision)
        {
            return Arc::clone(standings);
        }
        let games = super::results::games(&book, programme.as_deref());
        ((book.journals_changed, revision), games)
    };
    let (games, voided) = s.voids.split(games);
    let mut now = standings(programme.as_deref(), &games);
    now.unplaced.extend(voided);
    let now = Arc::new(now);
    *last = Some((changed, Arc::clone(&now)));
    now
}

async fn standings_json(State(s): State<Shared>) -> Response {
    json_response(serde_json::to_value(&*current(&s)).unwrap_or(Value::Null))
}

async fn programme_blocks(State(s): State<Shared>) -> Response {
    // No programme: `null`, so that a page asking is not an error.
    let Some(p) = s.programme() else {
        return json_response(Value::Null);
    };
    let mut v = super::results::programme_json(&p);
    push::with_status(&mut v, &lock(&s.book), &p);
    json_response(v)
}

/// A results file to keep or print, named for the site.
fn download(s: &Shared, ext: &str, kind: &'static str, body: String) -> Response {
    let name = format!("results-{}.{ext}", s.site);
    (
        [
            (header::CONTENT_TYPE, kind.to_owned()),
            (header::CACHE_CONTROL, "no-cache".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("inline; filename=\"{name}\""),
            ),
        ],
        body,
    )
        .into_response()
}

async fn results_text(State(s): State<Shared>) -> Response {
    let text = protocol_text(s.programme().as_deref(), &current(&s));
    download(&s, "txt", "text/plain; charset=utf-8", text)
}

/// `?lang=ru`: Russian headings and `;` between cells (Excel in a
/// Russian locale); else English and `,`.
async fn results_csv(State(s): State<Shared>, uri: axum::http::Uri) -> Response {
    let lang = match super::results::query_value(uri.query(), "lang").as_deref() {
        Some("ru") => CsvLang::Ru,
        _ => CsvLang::En,
    };
    let csv = protocol_csv(&current(&s), lang);
    download(&s, "csv", "text/csv; charset=utf-8", csv)
}

/// `GET /startlist.txt[?block=ID][&lang=ru]`: the programme's start list.
async fn start_list(State(s): State<Shared>, uri: axum::http::Uri) -> Response {
    let q = uri.query();
    let ru = super::results::query_value(q, "lang").as_deref() == Some("ru");
    let block = super::results::query_value(q, "block");
    let block = block.as_deref();
    let Some(p) = s.programme() else {
        return error(StatusCode::NOT_FOUND, "there is no programme");
    };
    match super::standings::start_list_text(&p, block, ru) {
        Some(text) => download(&s, "txt", "text/plain; charset=utf-8", text),
        None => error(
            StatusCode::NOT_FOUND,
            format!("the programme has no block {:?}", block.unwrap_or("")),
        ),
    }
}

async fn results_json(State(s): State<Shared>) -> Response {
    let json = serde_json::to_string_pretty(&*current(&s)).unwrap_or_default();
    download(&s, "json", "application/json", json)
}

async fn centre(State(s): State<Shared>) -> Response {
    let v = s
        .book
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .centre_json(&s.site);
    let mut v = v;
    v["zone"] = crate::wall_clock::zone_now();
    v["now_unix"] = crate::wall_clock::unix_now().into();
    json_response(v)
}

async fn pushes(State(s): State<Shared>) -> Response {
    json_response(s.commands.list())
}

/// `POST /api/pushes/cancel` `{"push":12,"lane":3}`: what push 12 holds
/// for lane 3 (for every lane it holds for, with no `lane`) is never sent;
/// the push records who cancelled it and when.
async fn cancel_push(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let (by, v) = match judged(&s, &headers, &body).await {
        Ok(x) => x,
        Err(res) => return res,
    };
    let example =
        "cancel a held push: {\"push\":12,\"lane\":3} (no \"lane\": every lane it holds for)";
    let Some(push) = v.get("push").and_then(Value::as_u64) else {
        return error(StatusCode::BAD_REQUEST, example);
    };
    let lane = match v.get("lane") {
        None | Some(Value::Null) => None,
        Some(l) => match l
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| (1..=MAX_LANE_NUMBER).contains(n))
        {
            Some(n) => Some(n),
            None => {
                return error(
                    StatusCode::BAD_REQUEST,
                    format!("lane: {l} is not a lane number (1 to {MAX_LANE_NUMBER})"),
                );
            }
        },
    };
    match s.commands.cancel(push, lane, &by) {
        Ok(lanes) => json_response(json!({ "push": push, "cancelled": lanes })),
        Err(e @ super::commands::CancelRefused::NoPush(_)) => {
            error(StatusCode::NOT_FOUND, e.to_string())
        }
        Err(e) => error(StatusCode::CONFLICT, e.to_string()),
    }
}

/// The judge logged in on this request.
fn judge(s: &Shared, headers: &HeaderMap) -> Option<String> {
    session(s, headers).map(|(judge, _)| judge)
}

/// The judge of the request's session and whether they are the chief
/// judge (logged in with the shared PIN, `[web] judge_pin_hash`, not a
/// PIN of their own).
fn session(s: &Shared, headers: &HeaderMap) -> Option<(String, bool)> {
    s.judges.of_request(headers)
}

/// Answers `401` to a request without a judge's session before its body
/// is read; the handler behind checks the session again, as it reads it.
async fn login_first(State(s): State<Shared>, req: Request<Body>, next: Next) -> Response {
    if judge(&s, req.headers()).is_none() {
        return error(StatusCode::UNAUTHORIZED, "a judge must log in");
    }
    next.run(req).await
}

/// The judge and the JSON body, or the answer refusing them.
async fn judged(
    s: &Shared,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<(String, Value), Response> {
    let json_type = headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !json_type {
        return Err(error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send JSON (Content-Type: application/json)",
        ));
    }
    let Some(by) = judge(s, headers) else {
        return Err(error(
            StatusCode::UNAUTHORIZED,
            "the chief judge must log in",
        ));
    };
    let v = serde_json::from_slice(body)
        .map_err(|e| error(StatusCode::BAD_REQUEST, format!("not JSON: {e}")))?;
    Ok((by, v))
}

/// The lanes online now (their status topic): a push to any other lane
/// (offline, or never heard from) waits for it to come online.
fn online_lanes(s: &Shared) -> std::collections::BTreeSet<u32> {
    lock(&s.book)
        .lanes
        .iter()
        .filter(|(_, l)| l.online == Some(true))
        .map(|(n, _)| *n)
        .collect()
}

async fn hold(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let (by, v) = match judged(&s, &headers, &body).await {
        Ok(x) => x,
        Err(res) => return res,
    };
    let lane = v
        .get("lane")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| (1..=MAX_LANE_NUMBER).contains(n));
    let (Some(lane), Some(on)) = (lane, v.get("on").and_then(Value::as_bool)) else {
        return error(
            StatusCode::BAD_REQUEST,
            "a hold is {\"lane\":7,\"on\":true,\"reason\":\"…\"}",
        );
    };
    let mut action = json!({ "ev": "hold", "on": on });
    if let Some(reason) = v.get("reason").and_then(Value::as_str) {
        action["reason"] = Value::from(reason.chars().take(200).collect::<String>());
    }
    let online = online_lanes(&s);
    let id = s
        .commands
        .push_to("hold", None, &by, vec![(lane, action)], |n| {
            !online.contains(&n)
        });
    let held: Vec<u32> = Some(lane)
        .filter(|n| !online.contains(n))
        .into_iter()
        .collect();
    json_response(json!({ "push": id, "offline": held }))
}

//! The entries' routes (docs/centre.md, "API"; docs/programme.md,
//! "Entries on the centre's page"): reading them is open to all; a change
//! needs a judge logged in and is recorded under their name.

use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt as _;
use serde_json::{Value, json};

use super::{Shared, error, json_response, judged, lock, session};
use crate::centre::entries::csv::{self, MAX_CSV, Problems};
use crate::centre::entries::guard::{CONFIRM, confirming};
use crate::centre::entries::import::{self, Mode};
use crate::centre::entries::{Bowled, Change, Entries, Issue, Refusal, Who, entry_from};
use crate::centre::programme::{Entry, Programme};

/// The largest import request: the CSV file and room to say how large a
/// file over [`MAX_CSV`] is rather than be cut off at once.
pub const MAX_IMPORT_BODY: usize = MAX_CSV + 64 * 1024;

fn no_programme() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "no programme: the centre's config has no `programme`, and the entries are the programme's",
    )
}

/// A refused change; one the chief judge is asked to confirm says what
/// it would move in `confirm`, one line each.
fn refused(r: &Refusal) -> Response {
    let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::BAD_REQUEST);
    let mut body = json!({ "error": r.text(), "problems": r.problems });
    if confirming(r) {
        let moves: Vec<&str> = r.problems.iter().map(|p| p.message.as_str()).collect();
        body["confirm"] = json!(moves);
        body["error"] = format!(
            "this changes the results of a bowler who has bowled; repeat it with \"{CONFIRM}\": true to make it:\n{}",
            moves.join("\n")
        )
        .into();
    }
    (status, axum::Json(body)).into_response()
}

/// The first name among `bowlers` (a push's lane) that is a withdrawn
/// entry.
pub(super) fn withdrawn_in(programme: Option<&Programme>, bowlers: &Value) -> Option<String> {
    let p = programme?;
    bowlers.as_array()?.iter().find_map(|b| {
        let name = b.get("name")?.as_str()?;
        p.entry(name)
            .is_some_and(|e| e.withdrawn)
            .then(|| name.to_owned())
    })
}

pub(super) async fn list(State(s): State<Shared>) -> Response {
    match &s.entries {
        Some(e) => json_response(lock(e).json()),
        None => no_programme(),
    }
}

pub(super) async fn export(State(s): State<Shared>) -> Response {
    let Some(p) = s.programme() else {
        return no_programme();
    };
    let name = format!("entries-{}.csv", s.site);
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (header::CACHE_CONTROL, "no-cache".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        csv::write(&p.entries),
    )
        .into_response()
}

/// The games in the mirrored journals, each bowler as shown now.
fn bowled(s: &Shared) -> Bowled {
    let programme = s.programme();
    let book = lock(&s.book);
    Bowled::of(crate::centre::results::games(&book, programme.as_deref()))
}

/// Makes `change` as `by` (on a thread that may wait for the disk): the
/// entries after it, or why not.
async fn change(s: &Shared, entries: Arc<Mutex<Entries>>, change: Change, by: Who) -> Response {
    match apply(s, entries, change, by).await {
        Ok(v) => json_response(v),
        Err(r) => refused(&r),
    }
}

/// Makes `change` as `by` on a thread that may wait for the disk.
async fn apply(
    s: &Shared,
    entries: Arc<Mutex<Entries>>,
    change: Change,
    by: Who,
) -> Result<Value, Refusal> {
    let s = s.clone();
    let made = tokio::task::spawn_blocking(move || {
        let bowled = bowled(&s);
        let mut e = lock(&entries);
        let made = e.apply_as(change, &bowled, &by);
        if made.is_ok() {
            tracing::info!(by = by.name, revision = e.revision, "the entries changed");
        }
        made.map(|()| e.json())
    })
    .await;
    made.unwrap_or_else(|e| Err(Refusal::new(500, e.to_string())))
}

/// What `change` would do, checked as [`apply`] checks it, nothing made.
async fn preview(
    s: &Shared,
    entries: Arc<Mutex<Entries>>,
    change: Change,
    by: Who,
) -> Result<Value, Refusal> {
    let s = s.clone();
    let seen = tokio::task::spawn_blocking(move || {
        let bowled = bowled(&s);
        lock(&entries).preview(change, &bowled, &by)
    })
    .await;
    seen.unwrap_or_else(|e| Err(Refusal::new(500, e.to_string())))
}

/// The entry in `v["entry"]`; `withdrawn` when the object does not say.
fn entry_of(v: &Value, withdrawn: bool) -> Result<Entry, Refusal> {
    let Some(obj) = v.get("entry").and_then(Value::as_object) else {
        return Err(Refusal::new(
            400,
            "an entry is {\"entry\":{\"name\":\"…\",\"class\":\"B1\",\"sex\":\"F\",\"region\":\"…\",\"team\":\"…\",\"handicap\":0}}",
        ));
    };
    let get = |k: &str| {
        obj.get(k).map(|x| match x {
            Value::String(t) => t.trim().to_owned(),
            Value::Bool(true) => "yes".to_owned(),
            Value::Bool(false) | Value::Null => String::new(),
            other => other.to_string(),
        })
    };
    let mut entry = entry_from(get).map_err(|bad| {
        let problems = bad
            .into_iter()
            .map(|(field, message)| Issue {
                field: Some(field.to_owned()),
                message,
                ..Issue::default()
            })
            .collect();
        Refusal {
            status: 400,
            problems,
        }
    })?;
    if obj.get("withdrawn").is_none() {
        entry.withdrawn = withdrawn;
    }
    Ok(entry)
}

fn name_of(v: &Value) -> Result<String, Refusal> {
    v.get("name")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| Refusal::new(400, "name the entry: {\"name\":\"…\"}"))
}

/// The judge (whether the chief, whether they confirm), the body and the
/// entries, or the answer refusing them.
macro_rules! begin {
    ($s:expr, $headers:expr, $body:expr) => {{
        let (name, v) = match judged(&$s, &$headers, &$body).await {
            Ok(x) => x,
            Err(res) => return res,
        };
        let Some(entries) = $s.entries.clone() else {
            return no_programme();
        };
        let chief = session(&$s, &$headers).is_some_and(|(_, c)| c);
        let confirm = v.get(CONFIRM).and_then(Value::as_bool).unwrap_or(false);
        let by = Who {
            name,
            chief,
            confirm,
        };
        (by, v, entries)
    }};
}

pub(super) async fn add(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let (by, v, entries) = begin!(s, headers, body);
    match entry_of(&v, false) {
        Ok(entry) => change(&s, entries, Change::Add(entry), by).await,
        Err(r) => refused(&r),
    }
}

pub(super) async fn edit(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let (by, v, entries) = begin!(s, headers, body);
    let name = match name_of(&v) {
        Ok(n) => n,
        Err(r) => return refused(&r),
    };
    let was = lock(&entries)
        .programme()
        .entry(&name)
        .is_some_and(|e| e.withdrawn);
    match entry_of(&v, was) {
        Ok(entry) => change(&s, entries, Change::Edit { name, entry }, by).await,
        Err(r) => refused(&r),
    }
}

pub(super) async fn withdraw(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let (by, v, entries) = begin!(s, headers, body);
    let name = match name_of(&v) {
        Ok(n) => n,
        Err(r) => return refused(&r),
    };
    let withdrawn = v.get("withdrawn").and_then(Value::as_bool).unwrap_or(true);
    change(&s, entries, Change::Withdraw { name, withdrawn }, by).await
}

pub(super) async fn delete(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let (by, v, entries) = begin!(s, headers, body);
    match name_of(&v) {
        Ok(name) => change(&s, entries, Change::Delete { name }, by).await,
        Err(r) => refused(&r),
    }
}

/// A refused import: the first problems (at most [`csv::SHOWN`]), and how
/// many more there are.
fn refused_import(status: StatusCode, problems: &Problems) -> Response {
    let body = json!({
        "error": problems.text(),
        "problems": problems.shown,
        "more_problems": problems.more,
    });
    (status, axum::Json(body)).into_response()
}

/// An import's query: `mode=replace|add`, `dry_run=1`, `undo=1`,
/// `confirm=1`.
struct ImportQuery {
    mode: Mode,
    dry_run: bool,
    undo: bool,
    confirm: bool,
}

fn import_query(q: Option<&str>) -> Result<ImportQuery, String> {
    let mut out = ImportQuery {
        mode: Mode::Replace,
        dry_run: false,
        undo: false,
        confirm: false,
    };
    for pair in q.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let yes = match v {
            "1" | "true" | "yes" | "" => true,
            "0" | "false" | "no" => false,
            _ if k == "mode" => false,
            _ => return Err(format!("{k}={v:?}: write {k}=1 or {k}=0")),
        };
        match k {
            "mode" => {
                out.mode = Mode::parse(v)
                    .ok_or_else(|| format!("mode={v:?}: the mode is replace or add"))?;
            }
            "dry_run" => out.dry_run = yes,
            "undo" => out.undo = yes,
            "confirm" => out.confirm = yes,
            _ => {
                return Err(format!(
                    "{k:?} is not a parameter: mode, dry_run, undo or confirm"
                ));
            }
        }
    }
    Ok(out)
}

/// `POST /api/entries/import`: a CSV file (`Content-Type: text/csv`)
/// whose entries replace every entry (`mode=replace`, the default) or are
/// added to them (`mode=add`), or change nothing. With `dry_run=1` it
/// answers what it would do (the names added, removed and changed),
/// nothing made. With `undo=1` and no file, the entries are put back as
/// they were before the last import, while it is the last change. The
/// judge is checked before any of the body is read; the file is read a
/// piece at a time as it arrives, so what it costs is bounded whatever it
/// holds.
pub(super) async fn import(
    State(s): State<Shared>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let q = match import_query(query.as_deref()) {
        Ok(q) => q,
        Err(m) => return error(StatusCode::BAD_REQUEST, m),
    };
    let csv_type = headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/csv"));
    if !csv_type && !q.undo {
        return error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send the CSV file as it is (Content-Type: text/csv)",
        );
    }
    let Some((name, chief)) = session(&s, &headers) else {
        return error(StatusCode::UNAUTHORIZED, "a judge must log in");
    };
    let by = Who {
        name,
        chief,
        confirm: q.confirm,
    };
    let Some(entries) = s.entries.clone() else {
        return no_programme();
    };
    if q.undo {
        let made = if q.dry_run {
            preview(&s, entries, Change::UndoImport, by).await
        } else {
            apply(&s, entries, Change::UndoImport, by).await
        };
        return match made {
            Ok(v) => json_response(v),
            Err(r) => refused(&r),
        };
    }
    let mut file = csv::Import::new();
    let mut stream = body.into_data_stream();
    while let Some(piece) = stream.next().await {
        match piece {
            Ok(bytes) => file.push(&bytes),
            // Past the route's limit (`MAX_IMPORT_BODY`), or cut off.
            Err(_) if file.bytes() > MAX_CSV => {
                let problems = [csv::too_large(file.bytes())].into_iter().collect();
                return refused_import(StatusCode::PAYLOAD_TOO_LARGE, &problems);
            }
            Err(e) => {
                let m = format!("the file did not arrive whole: {e}");
                return error(StatusCode::BAD_REQUEST, m);
            }
        }
    }
    let parsed = match file.finish() {
        Ok(p) => p,
        Err(problems) => return refused_import(StatusCode::BAD_REQUEST, &problems),
    };
    // The list the import makes, to place a problem of its `n`th entry at
    // the file's row.
    let made = import::merge(
        &lock(&entries).programme().entries,
        parsed.entries.clone(),
        q.mode,
    );
    let list = parsed.entries.clone();
    let change = match q.mode {
        Mode::Replace => Change::Import(list),
        Mode::Add => Change::AddImport(list),
    };
    let answer = if q.dry_run {
        preview(&s, entries, change, by).await
    } else {
        apply(&s, entries, change, by).await
    };
    match answer {
        Ok(v) => json_response(v),
        // What the chief judge is asked to confirm.
        Err(r) if confirming(&r) => refused(&r),
        // Each problem at its row and column.
        Err(r) => {
            let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::BAD_REQUEST);
            let problems = r
                .problems
                .into_iter()
                .map(|mut i| {
                    let name = i.entry.and_then(|n| made.get(n.wrapping_sub(1)));
                    let in_file =
                        name.and_then(|m| parsed.entries.iter().position(|e| e.name == m.name));
                    match in_file {
                        Some(k) => {
                            i.entry = Some(k + 1);
                            parsed.place(i)
                        }
                        None => i,
                    }
                })
                .collect();
            refused_import(status, &problems)
        }
    }
}

//! The programme's routes (docs/centre.md, "API"; docs/programme.md, "The
//! programme on the centre's page"): `GET /api/programme/edit` is open to
//! all; `POST /api/programme/event`, `/block` and `/finals` need a judge
//! logged in and are recorded under their name.

use std::collections::BTreeMap;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::{Shared, error, json_response, judged, lock};
use crate::centre::entries::Refusal;
use crate::centre::entries::programme_edit::{Change, Part};

fn no_programme() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "no programme: the centre's config has no `programme`",
    )
}

/// The blocks whose event and games may no longer change, with why: those
/// with games bowled (placed in them from the mirrored journals), and
/// those pushed to the lanes since the centre started.
fn locked(s: &Shared) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let pushes = s.commands.list();
    for block in pushes
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p.get("block")?.as_str())
    {
        let m = format!("block {block:?} was pushed to the lanes");
        out.insert(block.to_owned(), m);
    }
    let programme = s.programme();
    let book = lock(&s.book);
    for g in crate::centre::results::games(&book, programme.as_deref()) {
        if let Some(block) = g.block {
            let m = format!("block {block:?} has games bowled");
            out.insert(block, m);
        }
    }
    out
}

/// `GET /api/programme/edit`: the events, blocks (each with `locked`: why
/// its event and games cannot change, or `null`) and finals as the page
/// edits them, the categories and entries they may name, whether the
/// programme is the centre's own (`own`), and the changes made, newest
/// first.
pub(super) async fn view(State(s): State<Shared>) -> Response {
    let Some(entries) = s.entries.clone() else {
        return no_programme();
    };
    let made = tokio::task::spawn_blocking(move || {
        let locked = locked(&s);
        lock(&entries).programme_json(&locked)
    })
    .await;
    match made {
        Ok(v) => json_response(v),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

/// `POST /api/programme/{event|block|finals}`: `{"op": "add"|"edit"|"delete",
/// …the fields}` (docs/programme.md): checked, kept and recorded; the
/// programme as `GET /api/programme/edit` gives it after, or why not
/// (`error`, and `problems`, each with its `field`).
pub(super) async fn change(
    State(s): State<Shared>,
    Path(part): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (by, v) = match judged(&s, &headers, &body).await {
        Ok(x) => x,
        Err(res) => return res,
    };
    let Some(part) = Part::parse(&part) else {
        let m = format!("{part:?}: change an event, a block or the finals");
        return error(StatusCode::NOT_FOUND, m);
    };
    let Some(entries) = s.entries.clone() else {
        return no_programme();
    };
    let made = tokio::task::spawn_blocking(move || {
        // Read before the entries are locked: both read the programme.
        let locked = locked(&s);
        let mut e = lock(&entries);
        let change = Change { part, request: &v };
        e.change_programme(change, &locked, &by)?;
        tracing::info!(by, revision = e.revision, "the programme changed");
        Ok::<_, Refusal>(e.programme_json(&locked))
    })
    .await;
    match made {
        Ok(Ok(v)) => json_response(v),
        Ok(Err(r)) => {
            let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::BAD_REQUEST);
            let body = json!({ "error": r.text(), "problems": r.problems });
            (status, axum::Json(body)).into_response()
        }
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

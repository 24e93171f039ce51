//! The competition's lanes added and removed on the page (docs/centre.md,
//! "Lanes added and removed on the page"): `POST /api/lanes/add` and
//! `POST /api/lanes/remove`, by a judge logged in, recorded under their
//! name; an added lane is taken at once (no restart), its card "never
//! connected" until it connects.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use super::{Shared, error, json_response, judged, lock};
use crate::centre::book::{Admit, Book};
use crate::centre::{MAX_LANE_NUMBER, MAX_LANES};

/// The request's `lane`: `{"lane": 13}`.
/// The judge and the lane a change names, or the answer refusing them.
async fn judged_lane(
    s: &Shared,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<(String, u32), Response> {
    let (by, v) = judged(s, headers, body).await?;
    let n = lane_of(&v).map_err(|m| error(StatusCode::BAD_REQUEST, m))?;
    Ok((by, n))
}

fn lane_of(v: &Value) -> Result<u32, String> {
    let n = v
        .get("lane")
        .and_then(Value::as_u64)
        .ok_or("name the lane: {\"lane\": 13}")?;
    u32::try_from(n)
        .ok()
        .filter(|n| (1..=MAX_LANE_NUMBER).contains(n))
        .ok_or_else(|| format!("{n} is not a lane number (1 to {MAX_LANE_NUMBER})"))
}

/// The card of a lane never heard from, as `GET /api/lanes` lists it:
/// `added` (who added it on the page and when, else `null`) and `login`
/// (whether the embedded broker has its `lane<N>` login; `null` with an
/// external broker).
pub(super) fn never_card(book: &Book, n: u32) -> Value {
    json!({ "lane": n, "online": false, "never_connected": true,
            "state": null, "mirror": null,
            "added": book.page_lanes.added.get(&n),
            "login": book.page_lanes.login(n) })
}

/// The answer to a change: the competition's lanes after it.
fn answer(s: &Shared) -> Response {
    json_response(json!({ "lanes": super::blocks::competition_lanes(s) }))
}

/// `POST /api/lanes/add`: `{"lane": 13}`, a lane of the competition from
/// now on: shown, offered to the blocks, and taken by the centre.
pub(super) async fn add(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let (by, n) = match judged_lane(&s, &headers, &body).await {
        Ok(x) => x,
        Err(res) => return res,
    };
    let lanes = super::blocks::competition_lanes(&s);
    if lanes.contains(&n) {
        let m = format!("lane {n} is already a lane of the competition");
        return error(StatusCode::CONFLICT, m);
    }
    if lanes.len() >= MAX_LANES {
        let m = format!("the competition has {MAX_LANES} lanes: no more fit");
        return error(StatusCode::BAD_REQUEST, m);
    }
    let s2 = s.clone();
    let made = tokio::task::spawn_blocking(move || {
        let mut book = lock(&s2.book);
        book.page_lanes.add(n, &by)?;
        if let Admit::Listed(admitted) = &mut book.admit {
            admitted.insert(n);
        }
        tracing::info!(by, lane = n, "a lane added on the page");
        Ok::<_, String>(())
    })
    .await;
    match made {
        Ok(Ok(())) => answer(&s),
        Ok(Err(m)) => error(StatusCode::INTERNAL_SERVER_ERROR, m),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

/// `POST /api/lanes/remove`: `{"lane": 13}`, off the page: refused while a
/// block has bowlers on it or once it has connected (its card and its
/// journals stay).
pub(super) async fn remove(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let (by, n) = match judged_lane(&s, &headers, &body).await {
        Ok(x) => x,
        Err(res) => return res,
    };
    if !super::blocks::competition_lanes(&s).contains(&n) {
        let m = format!("lane {n} is not a lane of the competition");
        return error(StatusCode::NOT_FOUND, m);
    }
    let used: Vec<String> = s
        .programme()
        .map(|p| {
            p.blocks
                .iter()
                .filter(|b| b.lanes.iter().any(|(l, _)| *l == n))
                .map(|b| b.id.clone())
                .collect()
        })
        .unwrap_or_default();
    if !used.is_empty() {
        let m = format!(
            "lane {n} has bowlers in block(s) {}: move them to another lane first",
            used.join(", ")
        );
        return error(StatusCode::CONFLICT, m);
    }
    let s2 = s.clone();
    let made = tokio::task::spawn_blocking(move || {
        let mut book = lock(&s2.book);
        if book.lanes.contains_key(&n) {
            return Err((
                StatusCode::CONFLICT,
                format!("lane {n} has connected: its card and its journals stay"),
            ));
        }
        let added = book.page_lanes.added.contains_key(&n);
        book.page_lanes
            .remove(n, &by)
            .map_err(|m| (StatusCode::INTERNAL_SERVER_ERROR, m))?;
        // A lane the page added is no longer taken; one the config or the
        // logins name still is (only its card goes).
        if added && let Admit::Listed(admitted) = &mut book.admit {
            admitted.remove(&n);
        }
        tracing::info!(by, lane = n, "a lane removed on the page");
        Ok(())
    })
    .await;
    match made {
        Ok(Ok(())) => answer(&s),
        Ok(Err((status, m))) => error(status, m),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

//! `POST /api/push`: a block's lineups sent to its lanes, one `lineup`
//! command per lane (docs/centre.md); the lanes' bowlers come from the
//! request or, with only a `block`, from the programme.
//!
//! A block some lane has begun or finished is pushed again only when the
//! request says so (`"again": true`) with a reason, which the push keeps;
//! else `409` names the lanes and what they have done of it. `GET
//! /api/programme` gives each block's status per lane ([`with_status`]).

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::{Shared, entries, error, json_response, judged, lock, online_lanes};
use crate::centre::book::Book;
use crate::centre::programme::Programme;
use crate::centre::status::{self, LaneStatus, State as Life};
use crate::centre::{MAX_LANE_NUMBER, MAX_LANES};

/// The longest reason for pushing a begun block again.
const MAX_REASON: usize = 200;

pub(super) async fn push(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let (by, v) = match judged(&s, &headers, &body).await {
        Ok(x) => x,
        Err(res) => return res,
    };
    let block = v.get("block").and_then(Value::as_str).map(str::to_owned);
    if block.as_ref().is_some_and(|b| b.is_empty() || b.len() > 64) {
        return error(StatusCode::BAD_REQUEST, "block: 1 to 64 characters");
    }
    let from_programme;
    let programme = s.programme();
    let lanes = match (v.get("lanes"), &programme, &block) {
        (Some(lanes), ..) => lanes.as_object(),
        (None, Some(p), Some(block)) => match p.lineups(block) {
            Ok(lineups) => {
                from_programme = lineups
                    .iter()
                    .map(|(lane, bowlers)| {
                        let list = bowlers.iter().map(crate::journal::bowler_json).collect();
                        (lane.to_string(), Value::Array(list))
                    })
                    .collect::<serde_json::Map<_, _>>();
                Some(&from_programme)
            }
            Err(e) => return error(StatusCode::BAD_REQUEST, e.to_string()),
        },
        _ => None,
    };
    let Some(lanes) = lanes else {
        return error(
            StatusCode::BAD_REQUEST,
            "a push is {\"block\":\"S1\",\"lanes\":{\"7\":[{\"name\":\"…\",\"class\":\"B1\"}]}}, or {\"block\":\"S1\"} with a programme",
        );
    };
    if lanes.is_empty() || lanes.len() > MAX_LANES {
        return error(
            StatusCode::BAD_REQUEST,
            format!("lanes: 1 to {MAX_LANES} lanes"),
        );
    }
    let mut actions = Vec::with_capacity(lanes.len());
    for (key, bowlers) in lanes {
        let Some(n) = crate::mqtt::topic::lane_number(key) else {
            return error(
                StatusCode::BAD_REQUEST,
                format!("lanes: {key:?} is not a lane number (1 to {MAX_LANE_NUMBER})"),
            );
        };
        if !bowlers.is_array() {
            return error(
                StatusCode::BAD_REQUEST,
                format!("lanes.{key}: a list of bowlers"),
            );
        }
        if let Some(name) = entries::withdrawn_in(programme.as_deref(), bowlers) {
            return error(
                StatusCode::BAD_REQUEST,
                format!("lanes.{key}: {name:?} is withdrawn from the competition"),
            );
        }
        // The lane checks the bowlers itself, as its own lineup action. A
        // block of the programme goes with its id and games (mqtt.md): the
        // lane starts it with those games and calls it by its id.
        let mut lineup = json!({ "ev": "lineup", "bowlers": bowlers });
        if let Some(b) = block
            .as_deref()
            .and_then(|b| programme.as_deref()?.block(b))
        {
            lineup["block"] = json!(b.id);
            lineup["games"] = json!(b.games);
        }
        actions.push((n, lineup));
    }
    let again = match begun_refusal(&s, programme.as_deref(), block.as_deref(), &actions, &v) {
        Ok(again) => again,
        Err(res) => return *res,
    };
    let online = online_lanes(&s);
    let held: Vec<u32> = actions
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| !online.contains(n))
        .collect();
    let id = s
        .commands
        .push_to("lineup", block, &by, actions, |n| !online.contains(&n));
    if let Some(reason) = &again {
        s.commands.note_again(id, reason);
        tracing::info!(
            push = id,
            by,
            reason,
            "a block begun on its lanes pushed again"
        );
    }
    // Each lane's part as `GET /api/pushes` gives it: held, or waiting
    // for the lane's answer, which the page follows there.
    let lanes = s
        .commands
        .list()
        .as_array()
        .and_then(|pushes| pushes.iter().find(|p| p["id"] == id))
        .map_or(Value::Null, |p| p["lanes"].clone());
    json_response(json!({ "push": id, "offline": held, "lanes": lanes }))
}

/// Each block of `GET /api/programme`'s `blocks` gets `status`: its lanes'
/// [`LaneStatus`] by lane number.
pub(super) fn with_status(v: &mut Value, book: &Book, p: &Programme) {
    let mut all = status::blocks(book, p);
    let Some(blocks) = v.get_mut("blocks").and_then(Value::as_array_mut) else {
        return;
    };
    for b in blocks {
        let lanes = b
            .get("id")
            .and_then(Value::as_str)
            .and_then(|id| all.remove(id))
            .unwrap_or_default();
        let lanes: serde_json::Map<String, Value> = lanes
            .into_iter()
            .filter_map(|(n, st)| Some((n.to_string(), serde_json::to_value(st).ok()?)))
            .collect();
        b["status"] = Value::Object(lanes);
    }
}

/// What lane `n` has done of the block, in words.
fn said(n: u32, st: &LaneStatus) -> String {
    let what = match st.state {
        Life::Done if st.ended => "finished it (end_block)".to_owned(),
        Life::Done => format!("bowled all {} game(s)", st.games),
        _ => format!("is bowling game {} of {}", st.games_bowled.max(1), st.games),
    };
    format!("lane {n} {what}")
}

/// Pushing `block` to lanes that have begun it: `Err(409)` naming them,
/// unless the request says `"again": true` with a `reason` (returned).
fn begun_refusal(
    s: &Shared,
    programme: Option<&Programme>,
    block: Option<&str>,
    actions: &[(u32, Value)],
    v: &Value,
) -> Result<Option<String>, Box<Response>> {
    let (Some(p), Some(block)) = (programme, block) else {
        return Ok(None);
    };
    let mut all = status::blocks(&lock(&s.book), p);
    let Some(lanes) = all.remove(block) else {
        return Ok(None);
    };
    let begun: Vec<(u32, LaneStatus)> = lanes
        .into_iter()
        .filter(|(n, st)| st.begun() && actions.iter().any(|(a, _)| a == n))
        .collect();
    if begun.is_empty() {
        return Ok(None);
    }
    let reason = v
        .get("reason")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|r| !r.is_empty());
    let again = v.get("again").and_then(Value::as_bool) == Some(true);
    match (again, reason) {
        (true, Some(r)) => Ok(Some(r.chars().take(MAX_REASON).collect())),
        (true, None) => Err(Box::new(error(
            StatusCode::BAD_REQUEST,
            "reason: say why the block is pushed again (up to 200 characters)",
        ))),
        (false, _) => {
            let lanes: Vec<String> = begun.iter().map(|(n, st)| said(*n, st)).collect();
            let message = format!(
                "block {block} has begun: {}; the lanes would bowl it again and those games would not count. To push it again, send \"again\": true and a \"reason\"",
                lanes.join(", ")
            );
            let detail: serde_json::Map<String, Value> = begun
                .iter()
                .filter_map(|(n, st)| Some((n.to_string(), serde_json::to_value(st).ok()?)))
                .collect();
            Err(Box::new(
                (
                    StatusCode::CONFLICT,
                    axum::Json(json!({ "error": message, "begun": detail })),
                )
                    .into_response(),
            ))
        }
    }
}

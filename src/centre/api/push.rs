//! `POST /api/push`: a block's lineups sent to its lanes, one `lineup`
//! command per lane (docs/centre.md); the lanes' bowlers come from the
//! request or, with only a `block`, from the programme.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use super::{Shared, entries, error, json_response, judged, online_lanes};
use crate::centre::{MAX_LANE_NUMBER, MAX_LANES};

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
        // The lane checks the bowlers itself, as its own lineup action.
        actions.push((n, json!({ "ev": "lineup", "bowlers": bowlers })));
    }
    let online = online_lanes(&s);
    let held: Vec<u32> = actions
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| !online.contains(n))
        .collect();
    let id = s
        .commands
        .push_to("lineup", block, &by, actions, |n| !online.contains(&n));
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

//! `POST /api/games/void`: the chief judge voids a game
//! (`crate::centre::void`): `{"block":"S1","lane":1,"name":"…","game":2,
//! "reason":"…"}` names the game as the block's journal on that lane has
//! it (or `"journal"` names the journal itself). It then counts nowhere
//! and the standings list it among the games not counted, with the reason,
//! who and when.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use super::{Shared, error, json_response, judged, lock, session};
use crate::centre::MAX_LANE_NUMBER;
use crate::centre::void::{MAX_REASON, Refused};

const EXAMPLE: &str =
    "void a game: {\"block\":\"S1\",\"lane\":1,\"name\":\"…\",\"game\":2,\"reason\":\"…\"}";

pub(super) async fn void(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let (by, v) = match judged(&s, &headers, &body).await {
        Ok(x) => x,
        Err(res) => return res,
    };
    if !session(&s, &headers).is_some_and(|(_, chief)| chief) {
        return error(
            StatusCode::FORBIDDEN,
            "only the chief judge (logged in with the shared PIN) may void a game",
        );
    }
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::trim);
    let lane = v
        .get("lane")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| (1..=MAX_LANE_NUMBER).contains(n));
    let game = v
        .get("game")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok());
    let (Some(lane), Some(name), Some(game)) = (lane, text("name"), game) else {
        return error(StatusCode::BAD_REQUEST, EXAMPLE);
    };
    let Some(reason) = text("reason").filter(|r| !r.is_empty()) else {
        return error(
            StatusCode::BAD_REQUEST,
            format!("reason: say why the game does not count (up to {MAX_REASON} characters)"),
        );
    };
    let block = text("block").filter(|b| !b.is_empty());
    let programme = s.programme();
    let (journal, games) = {
        let book = lock(&s.book);
        let journal = match (text("journal"), block, &programme) {
            (Some(j), ..) => Some(j.to_owned()),
            (None, Some(b), Some(p)) => crate::centre::status::blocks(&book, p)
                .get(b)
                .and_then(|lanes| lanes.get(&lane))
                .and_then(|st| st.journal.clone()),
            _ => None,
        };
        let Some(journal) = journal else {
            let m = match block {
                Some(b) => format!("lane {lane} has no journal of block {b}"),
                None => EXAMPLE.to_owned(),
            };
            return error(StatusCode::NOT_FOUND, m);
        };
        let games = crate::centre::results::games(&book, programme.as_deref());
        (journal, games)
    };
    let Some(g) = games
        .iter()
        .find(|g| g.lane == lane && g.journal == journal && g.name == name && g.game == game)
    else {
        return error(
            StatusCode::NOT_FOUND,
            format!("lane {lane} has no game {game} of {name:?} in {journal}"),
        );
    };
    match s.voids.void(g, block.or(g.block.as_deref()), reason, &by) {
        Ok(v) => {
            tracing::info!(by, lane, journal, name, game, reason, "a game voided");
            json_response(json!({ "voided": v }))
        }
        Err(e @ Refused::Already(_)) => error(StatusCode::CONFLICT, e.to_string()),
        Err(e @ Refused::Full) => error(StatusCode::CONFLICT, e.to_string()),
        Err(e @ Refused::Disk(_)) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

//! The blocks' lanes set from the page and the finals proposed from the
//! standings (docs/centre.md, "API"; docs/programme.md, "Lanes set on the
//! centre's page"): reading is open to all; setting a block's lanes needs
//! a judge logged in and is recorded under their name.

use std::collections::BTreeSet;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::{Shared, current, error, json_response, judged, lock};
use crate::centre::book::Admit;
use crate::centre::entries::blocks::Lanes;
use crate::centre::entries::{Entries, Refusal};
use crate::centre::standings::{FinalsProposal, Standings, programme_lanes, propose};

/// The lanes a block may be given: the programme's and those the centre
/// knows, within those it admits.
fn lanes_known(s: &Shared) -> Vec<u32> {
    let mut set: BTreeSet<u32> = s
        .programme()
        .map(|p| programme_lanes(&p).into_iter().collect())
        .unwrap_or_default();
    let book = lock(&s.book);
    set.extend(book.lanes.keys().copied());
    if let Admit::Listed(admitted) = &book.admit {
        set.extend(admitted.iter().copied());
        set.retain(|n| admitted.contains(n));
    }
    // The lanes added and removed on the page (api/lanes.rs).
    book.page_lanes
        .apply(&mut set, |n| book.lanes.contains_key(&n));
    set.into_iter().collect()
}

/// The lanes of the competition, for a card each: those the programme's
/// blocks use, those the centre admits (its config's `lanes`, else the
/// programme's, else the logins'), and those heard from.
pub(super) fn competition_lanes(s: &Shared) -> BTreeSet<u32> {
    let mut set: BTreeSet<u32> = s
        .programme()
        .map(|p| {
            p.blocks
                .iter()
                .flat_map(|b| b.lanes.iter().map(|(n, _)| *n))
                .collect()
        })
        .unwrap_or_default();
    let book = lock(&s.book);
    set.extend(book.lanes.keys().copied());
    if let Admit::Listed(admitted) = &book.admit {
        set.extend(admitted.iter().copied());
    }
    book.page_lanes
        .apply(&mut set, |n| book.lanes.contains_key(&n));
    set
}

/// `GET /api/finals`: each category's finals proposed from the standings
/// now, and the lanes a block may be given.
pub(super) async fn proposals(State(s): State<Shared>) -> Response {
    let Some(p) = s.programme() else {
        return json_response(json!({ "lanes": [], "finals": [] }));
    };
    let standings = current(&s);
    let mut on = programme_lanes(&p);
    let known = lanes_known(&s);
    on.retain(|n| known.contains(n));
    let finals: Vec<Value> = p
        .finals
        .iter()
        .filter_map(|f| {
            let proposal = match standings.finals.get(&f.category) {
                Some(st) => propose(&p, f, st, &on),
                None => FinalsProposal::waiting(&p, f),
            };
            serde_json::to_value(proposal).ok()
        })
        .collect();
    json_response(json!({ "lanes": known, "finals": finals }))
}

/// The lanes of a request: `{"7":["name",…]}`.
fn lanes_of(v: &Value) -> Result<Lanes, String> {
    let obj = v
        .get("lanes")
        .and_then(Value::as_object)
        .ok_or("set a block's lanes: {\"block\":\"RR-B1\",\"lanes\":{\"7\":[\"name\",…]}}")?;
    let mut out = Vec::new();
    for (k, names) in obj {
        let n = crate::mqtt::topic::lane_number(k)
            .ok_or_else(|| format!("{k:?} is not a lane number"))?;
        let list = names
            .as_array()
            .ok_or_else(|| format!("lanes.{k}: a list of names"))?
            .iter()
            .map(|x| x.as_str().map(str::to_owned))
            .collect::<Option<Vec<String>>>()
            .ok_or_else(|| format!("lanes.{k}: a list of names"))?;
        if !list.is_empty() {
            out.push((n, list));
        }
    }
    Ok(out)
}

/// The competition as a change to the blocks finds it.
struct Now {
    standings: Arc<Standings>,
    /// The blocks with games bowled.
    bowled: BTreeSet<String>,
    /// The lanes the centre takes.
    admit: Admit,
}

/// A change to what the page sets over the programme (blocks.rs), by a
/// judge logged in: `change` takes the request, the judge's name, the
/// competition now and the entries, on a blocking thread (it writes to
/// disk); the programme after it.
async fn change_blocks(
    s: Shared,
    headers: HeaderMap,
    body: Bytes,
    change: impl FnOnce(&Value, &str, &Now, &mut Entries) -> Result<(), Refusal> + Send + 'static,
) -> Response {
    let (by, v) = match judged(&s, &headers, &body).await {
        Ok(x) => x,
        Err(res) => return res,
    };
    let Some(entries) = s.entries.clone() else {
        return error(
            StatusCode::NOT_FOUND,
            "no programme: the centre's config has no `programme`",
        );
    };
    let made = tokio::task::spawn_blocking(move || {
        // Read before the entries are locked: both read the programme.
        let standings = current(&s);
        let programme = s.programme();
        let book = lock(&s.book);
        let now = Now {
            standings,
            bowled: crate::centre::results::games(&book, programme.as_deref())
                .into_iter()
                .filter_map(|g| g.block)
                .collect(),
            admit: book.admit.clone(),
        };
        drop(book);
        let mut e = lock(&entries);
        change(&v, &by, &now, &mut e)
            .map(|()| crate::centre::results::programme_json(&e.programme()))
    })
    .await;
    match made {
        Ok(Ok(v)) => json_response(v),
        Ok(Err(r)) => {
            let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::BAD_REQUEST);
            (status, axum::Json(json!({ "error": r.text() }))).into_response()
        }
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

/// The request's `block`.
fn block_of(v: &Value, example: &str) -> Result<String, Refusal> {
    v.get("block")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| Refusal::new(400, format!("name the block: {example}")))
}

/// `POST /api/blocks/lanes`: a block's lanes and bowlers, checked and
/// kept; the programme's blocks after it.
pub(super) async fn set_lanes(
    State(s): State<Shared>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let chief = super::session(&s, &headers).is_some_and(|(_, c)| c);
    let state_dir = s.state_dir.clone();
    change_blocks(s, headers, body, move |v, by, now, e| {
        let block = block_of(v, "{\"block\":\"RR-B1\",\"lanes\":{…}}")?;
        let lanes = lanes_of(v).map_err(|m| Refusal::new(400, m))?;
        if let Admit::Listed(admitted) = &now.admit
            && let Some((n, _)) = lanes.iter().find(|(n, _)| !admitted.contains(n))
        {
            let m = format!(
                "lane {n} is not one of the centre's lanes (its config's `lanes`, or the programme's)"
            );
            return Err(Refusal::new(400, m));
        }
        // The lanes' own faults first, then whether the finals may start.
        crate::centre::entries::blocks::check(&e.programme(), &block, &lanes)?;
        let early = super::early::gate(&block, v, chief, &e.programme(), &now.standings)?;
        let draw = super::early::draw_of(v)?;
        e.set_lanes(&block, lanes, &now.bowled, by)?;
        if let Some(early) = &early {
            super::early::record(state_dir.as_deref(), &block, by, early)?;
        }
        if let Some(seed) = draw {
            super::early::record_draw(state_dir.as_deref(), &block, by, seed, &v["lanes"])?;
        }
        tracing::info!(by, block, "a block's lanes set");
        Ok(())
    })
    .await
}

/// `POST /api/finals/roll-off`: `{"block": "SL2-B1", "winner": "…"}`, the
/// winner of the roll-off that broke the tied match of a step-ladder
/// block.
pub(super) async fn set_roll_off(
    State(s): State<Shared>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    change_blocks(s, headers, body, |v, by, now, e| {
        let example = "{\"block\":\"SL2-B1\",\"winner\":\"name\"}";
        let block = block_of(v, example)?;
        let winner = v
            .get("winner")
            .and_then(Value::as_str)
            .ok_or_else(|| Refusal::new(400, format!("name the winner: {example}")))?;
        let p = e.programme();
        let Some((f, k)) = p
            .finals
            .iter()
            .find_map(|f| Some((f, f.step_ladder.iter().position(|b| *b == block)?)))
        else {
            let m = format!("{block:?} is no finals' step-ladder block");
            return Err(Refusal::new(404, m));
        };
        let m = now
            .standings
            .finals
            .get(&f.category)
            .and_then(|st| st.step_ladder.matches.get(k));
        let tied = m
            .filter(|m| m.complete && m.tie && m.winner.is_none())
            .and_then(|m| Some([m.a.as_str(), m.b.as_deref()?]));
        e.set_roll_off(&block, winner, tied, by)?;
        tracing::info!(by, block, winner, "a roll-off's winner recorded");
        Ok(())
    })
    .await
}

//! Finals confirmed before the preliminaries they rank from are complete
//! (docs/centre.md, "Finals before the preliminaries end"): `POST
//! /api/blocks/lanes` for a finals block answers `409` naming what is
//! missing, unless the chief judge sends `"early": true` and a `reason`;
//! that confirmation is recorded in `finals-early.jsonl` in the centre's
//! `state_dir`, by who and when.
//!
//! Lanes the page drew (`"draw": {"seed": 123}`, docs/centre.md, "The
//! lane draw") are recorded in `draws.jsonl` beside it, with the seed, so
//! the draw can be made again.

use std::path::Path;

use serde_json::{Value, json};

use crate::centre::entries::Refusal;
use crate::centre::programme::Programme;
use crate::centre::standings::Standings;
use crate::centre::status::preliminaries_missing;
use crate::wall_clock::{rfc3339, unix_now};

/// The file of the early confirmations, in the `state_dir`.
pub const FILE: &str = "finals-early.jsonl";

/// The longest reason kept.
const MAX_REASON: usize = 200;

/// An early confirmation to record once the block's lanes are kept.
pub struct Early {
    reason: String,
    missing: Vec<String>,
}

/// Whether finals block `block` may be confirmed now: `Ok(None)` when its
/// preliminaries are complete (or it is no finals' block), `Ok(Some)` for
/// the chief judge's early confirmation, else the refusal.
pub fn gate(
    block: &str,
    v: &Value,
    chief: bool,
    p: &Programme,
    standings: &Standings,
) -> Result<Option<Early>, Refusal> {
    let missing = preliminaries_missing(p, block, standings);
    if missing.is_empty() {
        return Ok(None);
    }
    if v.get("early").and_then(Value::as_bool) != Some(true) {
        let m = format!(
            "the preliminaries of finals block {block} are not complete: {}. The chief judge may confirm it early with \"early\": true and a \"reason\"",
            missing.join("; ")
        );
        return Err(Refusal::new(409, m));
    }
    if !chief {
        let m = "only the chief judge (logged in with the shared PIN) may confirm finals before the preliminaries are complete";
        return Err(Refusal::new(403, m));
    }
    let reason = v
        .get("reason")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .ok_or_else(|| {
            Refusal::new(
                400,
                "reason: say why the finals are confirmed before the preliminaries are complete (up to 200 characters)",
            )
        })?;
    Ok(Some(Early {
        reason: reason.chars().take(MAX_REASON).collect(),
        missing,
    }))
}

/// The file of the lane draws, in the `state_dir`.
pub const DRAWS: &str = "draws.jsonl";

/// The request's `draw.seed`, when the page drew the lanes.
pub fn draw_of(v: &Value) -> Result<Option<u32>, Refusal> {
    match v.get("draw") {
        None | Some(Value::Null) => Ok(None),
        Some(d) => d
            .get("seed")
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| Refusal::new(400, "draw: {\"seed\": 0 to 4294967295}")),
    }
}

/// Appends the lanes drawn with `seed` for `block`, by `by`.
pub fn record_draw(
    state_dir: Option<&Path>,
    block: &str,
    by: &str,
    seed: u32,
    lanes: &Value,
) -> Result<(), Refusal> {
    let now = unix_now();
    let line = json!({ "at": rfc3339(now), "at_unix": now, "by": by, "block": block,
                       "seed": seed, "lanes": lanes });
    tracing::info!(by, block, seed, "a block's lanes drawn");
    append(state_dir, DRAWS, &line)
}

fn append(state_dir: Option<&Path>, file: &str, line: &Value) -> Result<(), Refusal> {
    let Some(dir) = state_dir else {
        return Ok(());
    };
    let path = dir.join(file);
    crate::centre::kept::append(&path, line)
        .map_err(|e| Refusal::new(500, format!("cannot record in {}: {e}", path.display())))
}

/// Appends `early` for `block`, by `by`, to the record in `state_dir`.
pub fn record(
    state_dir: Option<&Path>,
    block: &str,
    by: &str,
    early: &Early,
) -> Result<(), Refusal> {
    let now = unix_now();
    let line = json!({
        "at": rfc3339(now),
        "at_unix": now,
        "by": by,
        "block": block,
        "reason": early.reason,
        "missing": early.missing,
    });
    tracing::info!(
        by,
        block,
        reason = early.reason,
        "finals confirmed before the preliminaries are complete"
    );
    append(state_dir, FILE, &line)
}

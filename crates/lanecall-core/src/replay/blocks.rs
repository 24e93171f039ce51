//! The report's blocks (replay-output.md, `blocks` and `next_block`): each
//! block begun, and the centre's block a waiting lineup is for. It only
//! reads the lane.

use serde::Serialize;

use crate::lane::{Lane, Millis, Plan};

#[derive(Serialize)]
pub(super) struct BlockJson<'a> {
    block: u32,
    games: u8,
    started_at: Millis,
    ended: bool,
    /// The centre's id of the block (added later), when its lineup gave
    /// one.
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    /// Whether every game of the block is bowled (added later), for a
    /// block whose lineup came with the centre's block.
    #[serde(skip_serializing_if = "Option::is_none")]
    complete: Option<bool>,
}

/// The centre's block the waiting lineup is for (added later).
#[derive(Serialize)]
pub(super) struct NextBlockJson<'a> {
    block: u32,
    name: Option<&'a str>,
    games: Option<u8>,
}

/// The blocks begun on the lane in this journal, in order.
pub(super) fn blocks(lane: &Lane) -> impl Iterator<Item = BlockJson<'_>> {
    lane.blocks().iter().map(move |b| BlockJson {
        block: b.number,
        games: b.games,
        started_at: b.started_at,
        ended: b.ended,
        name: b.plan.name.as_deref(),
        complete: (b.plan != Plan::default()).then(|| lane.block_complete(b)),
    })
}

/// The centre's block of the lineup waiting to start, when it came with
/// one.
pub(super) fn next_block(lane: &Lane) -> Option<NextBlockJson<'_>> {
    let plan = lane.pending_plan();
    (lane.pending_lineup().is_some() && *plan != Plan::default()).then(|| NextBlockJson {
        block: lane.next_block_number(),
        name: plan.name.as_deref(),
        games: plan.games,
    })
}

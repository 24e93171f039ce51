//! What the centre knows of every lane, shared by the MQTT link, the
//! mirror and the web API: status, the state object as published, the
//! mirror's counts and one replay per journal. Everything is bounded.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Value, json};

use super::feed::Feed;
use super::{MAX_LANE_NUMBER, MAX_LANES};
use crate::store::journal_seq;

/// The mirror's counts for one lane (`mirror` in `GET /api/lanes`).
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct MirrorStats {
    /// Journal files mirrored.
    pub files: usize,
    /// Lines on the centre's disk, all files together.
    pub lines: u64,
    /// Files with a gap not yet filled (a `resend` asked for).
    pub gaps: usize,
    /// Lines held after a gap, waiting for the missing ones.
    pub held: usize,
    /// Lines that came again with the same text (ignored).
    pub duplicates: u64,
    /// Lines that came again with another text (kept the first, logged).
    pub conflicts: u64,
    /// Lines past a gap not held because the lane already had too many
    /// held (asked for again once the gap is filled).
    pub dropped: u64,
    /// When the last new line was written (UTC).
    pub last_line_at: Option<String>,
    /// The mirror cannot write this lane's lines (a full or read-only
    /// disk): the file and the OS's reason, until a write succeeds again.
    pub failed: Option<MirrorFailure>,
}

/// Why a lane's mirror cannot be written (`mirror.failed`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct MirrorFailure {
    pub file: String,
    pub reason: String,
}

/// One lane as the centre knows it.
#[derive(Default)]
pub struct LaneBook {
    /// From the lane's status topic; `None` before one came.
    pub online: Option<bool>,
    /// The lane's state object as it published it.
    pub state: Option<Value>,
    pub mirror: MirrorStats,
    /// One replay per journal file, by file name.
    pub journals: BTreeMap<String, Feed>,
}

impl LaneBook {
    /// The lane's journals in the order it wrote them (by `seq`).
    pub fn journals_in_order(&self) -> Vec<(&str, &Feed)> {
        let mut list: Vec<(&str, &Feed)> =
            self.journals.iter().map(|(k, v)| (k.as_str(), v)).collect();
        list.sort_by_key(|(name, _)| (journal_seq(name), *name));
        list
    }
}

/// Every lane known, and what was refused from the network.
#[derive(Default)]
pub struct Book {
    pub lanes: BTreeMap<u32, LaneBook>,
    /// Messages refused, by reason.
    pub refused: BTreeMap<&'static str, u64>,
    /// Whether the centre is connected to the broker.
    pub connected: bool,
    /// Why the last attempt to reach the broker failed, until one works.
    pub broker_error: Option<String>,
}

impl Book {
    pub fn refuse(&mut self, why: &'static str) {
        *self.refused.entry(why).or_default() += 1;
    }

    /// The lane `n`, made known if there is room; `None` (counted) when
    /// the number is out of range or [`MAX_LANES`] are known already.
    pub fn lane(&mut self, n: u32) -> Option<&mut LaneBook> {
        if !(1..=MAX_LANE_NUMBER).contains(&n) {
            self.refuse("lane_number");
            return None;
        }
        if !self.lanes.contains_key(&n) && self.lanes.len() >= MAX_LANES {
            self.refuse("too_many_lanes");
            return None;
        }
        Some(self.lanes.entry(n).or_default())
    }

    /// `GET /api/lanes`.
    pub fn lanes_json(&self) -> Value {
        Value::Array(
            self.lanes
                .iter()
                .map(|(n, l)| {
                    json!({
                        "lane": n,
                        "online": l.online.unwrap_or(false),
                        "state": l.state,
                        "mirror": l.mirror,
                    })
                })
                .collect(),
        )
    }

    /// `GET /api/centre`: the link and what was refused.
    pub fn centre_json(&self, site: &str) -> Value {
        let total: u64 = self.refused.values().sum();
        json!({
            "site": site,
            "connected": self.connected,
            "broker_error": self.broker_error,
            "lanes": self.lanes.len(),
            "refused": self.refused,
            "refused_total": total,
        })
    }
}

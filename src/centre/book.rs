//! What the centre knows of every lane, shared by the MQTT link, the
//! mirror and the web API: status, the state object as published, the
//! mirror's counts and one replay per journal. Everything is bounded.

use std::collections::{BTreeMap, BTreeSet};

use axum::body::Bytes;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::feed::Feed;
use super::{MAX_LANE_NUMBER, MAX_LANES};
use crate::journal::names::journal_seq;
use crate::wall_clock::{rfc3339, unix_now};

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

/// A lane's state object, kept as the text it came in (~80 kB for four
/// bowlers' sheets; as a `serde_json::Value` ten times that), with the
/// one part the centre reads itself. The text is shared, never copied,
/// by every `GET /api/lanes` that sends it.
pub struct LaneState {
    raw: Bytes,
    /// `journal.file` and `journal.lines`: the journal the lane writes.
    pub journal: Option<(String, u64)>,
}

impl LaneState {
    /// A state payload checked: a JSON object, or `None`.
    pub fn parse(payload: &[u8]) -> Option<LaneState> {
        #[derive(Deserialize)]
        struct Head {
            journal: Option<Value>,
        }
        let raw: &RawValue = serde_json::from_slice(payload).ok()?;
        if !raw.get().starts_with('{') {
            return None;
        }
        let head: Head = serde_json::from_str(raw.get()).ok()?;
        let journal = head.journal.and_then(|j| {
            Some((
                j.get("file")?.as_str()?.to_owned(),
                j.get("lines")?.as_u64()?,
            ))
        });
        Some(LaneState {
            raw: Bytes::copy_from_slice(raw.get().as_bytes()),
            journal,
        })
    }
}

/// One lane as the centre knows it.
#[derive(Default)]
pub struct LaneBook {
    /// From the lane's status topic; `None` before one came.
    pub online: Option<bool>,
    /// The lane's state object as it published it.
    pub state: Option<LaneState>,
    /// The journals its states have named, the current one last (at most
    /// [`JOURNALS_NAMED`]).
    named: Vec<String>,
    pub mirror: MirrorStats,
    /// One replay per journal file, by file name.
    pub journals: BTreeMap<String, Feed>,
}

/// Journals named by a lane's states kept, to tell one lane from two.
const JOURNALS_NAMED: usize = 16;

impl LaneBook {
    /// Notes the journal a state of the lane names; says why when it is
    /// one a single lane would never name (docs/centre.md, "Duplicate
    /// lanes"): a lane's journal only moves on, to a higher `seq`, and
    /// never back to one it left, while two lanes with one number take
    /// turns.
    pub fn journal_named(&mut self, file: Option<&str>) -> Option<String> {
        let file = file?;
        let current = self.named.last().cloned().unwrap_or_default();
        if current == file {
            return None;
        }
        let why = if let Some(at) = self.named.iter().position(|f| f == file) {
            self.named.remove(at);
            Some(format!("names {file} again after {current}"))
        } else {
            let newest = self.named.iter().map(|f| journal_seq(f)).max().unwrap_or(0);
            let seq = journal_seq(file);
            (seq != 0 && seq < newest)
                .then(|| format!("names {file} (seq {seq}) after a journal with seq {newest}"))
        };
        if self.named.len() >= JOURNALS_NAMED {
            self.named.remove(0);
        }
        self.named.push(file.to_owned());
        why
    }

    /// The lane's journals in the order it wrote them: by the `seq` their
    /// headers say (the mirror takes a journal only under the name of its
    /// header's `seq`, but a name alone never places it).
    pub fn journals_in_order(&self) -> Vec<(&str, &Feed)> {
        let mut list: Vec<(&str, &Feed)> =
            self.journals.iter().map(|(k, v)| (k.as_str(), v)).collect();
        list.sort_by_key(|(name, feed)| (feed.seq(), *name));
        list
    }
}

/// The lanes the centre takes messages of (docs/centre.md, "Known lanes").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Admit {
    /// These only: the programme's, the config's `lanes`, or the embedded
    /// broker's lane logins.
    Listed(BTreeSet<u32>),
    /// Any lane number, up to [`MAX_LANES`] of them (an external broker
    /// and nothing that names the lanes).
    #[default]
    Any,
}

/// Alarms kept at once; the oldest goes first.
pub const MAX_ALARMS: usize = 64;

/// Something about a lane a person must look at (`alarms` in
/// `GET /api/centre`): raised once, its `detail` kept up to date.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Alarm {
    /// `duplicate_lane`: two lanes (or two journal histories) say they
    /// are this lane; `conflict`: a line came again with other text;
    /// `journal_copy`: a journal mirrored already came again under another
    /// name (refused, not counted).
    pub kind: &'static str,
    pub lane: u32,
    /// When it was first raised (UTC).
    pub since: String,
    /// What was seen, for the judge.
    pub detail: String,
}

/// Every lane known, and what was refused from the network.
#[derive(Default)]
pub struct Book {
    /// Which lanes are taken at all; any other is refused and never kept.
    pub admit: Admit,
    /// The lanes added and removed on the page (docs/centre.md).
    pub page_lanes: super::lanes::Kept,
    pub lanes: BTreeMap<u32, LaneBook>,
    /// Raised alarms, oldest first, at most [`MAX_ALARMS`].
    pub alarms: Vec<Alarm>,
    /// Messages refused, by reason.
    pub refused: BTreeMap<&'static str, u64>,
    /// Whether the centre is connected to the broker.
    pub connected: bool,
    /// Why the last attempt to reach the broker failed, until one works.
    pub broker_error: Option<String>,
    /// The embedded broker's refusals (`broker` in `GET /api/centre`).
    pub broker_stats: Option<std::sync::Arc<super::broker::FrontStats>>,
    /// Counts the changes to the lanes' replays (`journals`): the
    /// standings computed at one count hold until the next.
    pub journals_changed: u64,
    /// The embedded broker's count of how far the centre is behind: a
    /// lane held back by it is not quiet.
    pub broker_backlog: Option<std::sync::Arc<super::broker::backlog::Backlog>>,
}

impl Book {
    pub fn refuse(&mut self, why: &'static str) {
        *self.refused.entry(why).or_default() += 1;
    }

    /// Raises an alarm of `kind` for `lane`, or updates its detail when
    /// it is raised already; logged the first time.
    pub fn alarm(&mut self, kind: &'static str, lane: u32, detail: String) {
        if let Some(a) = self
            .alarms
            .iter_mut()
            .find(|a| a.kind == kind && a.lane == lane)
        {
            a.detail = detail;
            return;
        }
        tracing::error!(lane, kind, "{detail}");
        if self.alarms.len() >= MAX_ALARMS {
            self.alarms.remove(0);
        }
        self.alarms.push(Alarm {
            kind,
            lane,
            since: rfc3339(unix_now()),
            detail,
        });
    }

    /// The lane `n`, made known if it is admitted and there is room;
    /// `None` (counted) when the number is out of range, not admitted, or
    /// [`MAX_LANES`] are known already.
    pub fn lane(&mut self, n: u32) -> Option<&mut LaneBook> {
        if !(1..=MAX_LANE_NUMBER).contains(&n) {
            self.refuse("lane_number");
            return None;
        }
        if let Admit::Listed(lanes) = &self.admit
            && !lanes.contains(&n)
        {
            self.refuse("unknown_lane");
            return None;
        }
        if !self.lanes.contains_key(&n) && self.lanes.len() >= MAX_LANES {
            self.refuse("too_many_lanes");
            return None;
        }
        Some(self.lanes.entry(n).or_default())
    }

    /// `GET /api/lanes`, as JSON text in pieces: each state is sent as it
    /// came, shared rather than copied, so that a request costs the
    /// centre a few bytes a lane however large the states (one body of
    /// 128 lanes' states, ~10 MB, made glibc keep every later block up to
    /// that size in its heap: BENCHMARKS.md).
    pub fn lanes_json(&self) -> Vec<Bytes> {
        #[derive(Serialize)]
        struct Head {
            lane: u32,
            online: bool,
        }
        let mut pieces = Vec::with_capacity(3 * self.lanes.len() + 1);
        let mut text = b"[".to_vec();
        for (i, (n, l)) in self.lanes.iter().enumerate() {
            if i > 0 {
                text.push(b',');
            }
            let head = Head {
                lane: *n,
                online: l.online.unwrap_or(false),
            };
            // `{"lane":3,"online":true}` opened up for the next keys.
            let _ = serde_json::to_writer(&mut text, &head);
            text.pop();
            text.extend_from_slice(b",\"state\":");
            match &l.state {
                Some(state) => {
                    pieces.push(Bytes::from(std::mem::take(&mut text)));
                    pieces.push(state.raw.clone());
                }
                None => text.extend_from_slice(b"null"),
            }
            text.extend_from_slice(b",\"mirror\":");
            let _ = serde_json::to_writer(&mut text, &l.mirror);
            text.push(b'}');
        }
        text.push(b']');
        pieces.push(Bytes::from(text));
        pieces
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
            "alarms": self.alarms,
            "broker": self.broker_stats.as_ref().map(|s| {
                s.snapshot().into_iter().collect::<BTreeMap<_, _>>()
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_is_kept_as_its_text_with_the_journal_read_out() {
        let text = r#"{"lane":7,"journal":{"file":"lane7-a.jsonl","lines":12},"bowlers":[]}"#;
        let s = LaneState::parse(text.as_bytes()).expect("an object");
        assert_eq!(s.raw, text.as_bytes());
        assert_eq!(s.journal, Some(("lane7-a.jsonl".to_owned(), 12)));
        // A journal of another shape is not read, the state still kept.
        let s = LaneState::parse(br#"{"journal":{"lines":"12"}}"#).expect("an object");
        assert_eq!(s.journal, None);
    }

    #[test]
    fn a_state_that_is_not_an_object_is_refused() {
        for bad in [&b"[1,2"[..], b"[null]", b"12", b"\"x\"", b"", b"{} {}"] {
            assert!(
                LaneState::parse(bad).is_none(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn a_lane_whose_states_take_turns_between_journals_is_two_lanes() {
        let mut lane = LaneBook::default();
        let a = "lane2-20261129T110000Z-000004.jsonl";
        let b = "lane2-20261129T120000Z-000005.jsonl";
        let c = "lane2-20261129T130000Z-000006.jsonl";
        // One lane: the same journal again and again, then the next.
        for file in [a, a, b, b, c] {
            assert_eq!(lane.journal_named(Some(file)), None, "{file}");
        }
        assert_eq!(lane.journal_named(None), None);
        // Back to one it left: another lane.
        let why = lane.journal_named(Some(b)).expect("two lanes");
        assert!(why.contains("again after lane2-20261129T130000Z"), "{why}");
        // A lower seq never named before: another lane too.
        let why = lane.journal_named(Some("lane2-20261129T090000Z-000001.jsonl"));
        assert!(
            why.expect("two lanes")
                .contains("seq 1) after a journal with seq 6")
        );
        // Names without a seq: only the turn back tells.
        let mut old = LaneBook::default();
        let (x, y) = (
            "lane2-20260101T000000Z-01.jsonl",
            "lane2-20260101T000005Z-01.jsonl",
        );
        assert_eq!(old.journal_named(Some(x)), None);
        assert_eq!(old.journal_named(Some(y)), None);
        assert!(old.journal_named(Some(x)).is_some());
    }

    #[test]
    fn a_lane_not_admitted_is_counted_and_never_kept() {
        let mut book = Book {
            admit: Admit::Listed([1, 2].into()),
            ..Book::default()
        };
        assert!(book.lane(2).is_some());
        assert!(book.lane(3).is_none());
        assert!(book.lane(1000).is_none());
        assert_eq!(book.lanes.keys().copied().collect::<Vec<_>>(), [2]);
        assert_eq!(book.refused["unknown_lane"], 1);
        assert_eq!(book.refused["lane_number"], 1);
    }

    #[test]
    fn an_alarm_is_raised_once_and_bounded() {
        let mut book = Book::default();
        book.alarm("duplicate_lane", 3, "first".into());
        book.alarm("duplicate_lane", 3, "again".into());
        book.alarm("conflict", 3, "other".into());
        assert_eq!(book.alarms.len(), 2);
        assert_eq!(book.alarms[0].detail, "again");
        let v = book.centre_json("cup");
        assert_eq!(v["alarms"][0]["kind"], "duplicate_lane");
        assert_eq!(v["alarms"][0]["lane"], 3);
        for n in 0..100 {
            book.alarm("conflict", 100 + n, String::new());
        }
        assert_eq!(book.alarms.len(), MAX_ALARMS);
        assert_eq!(book.alarms.last().unwrap().lane, 199);
    }

    #[test]
    fn lanes_json_writes_each_state_as_it_came() {
        let mut book = Book::default();
        let lane = book.lane(3).unwrap();
        lane.online = Some(true);
        lane.state = LaneState::parse(br#"{"up":"Anna"}"#);
        book.lane(4).unwrap();
        book.lane(5).unwrap().state = LaneState::parse(b" {\"up\" : \"Boris\"} ");
        let text = book.lanes_json().concat();
        // As serde writes the list with each state as its text.
        #[derive(Serialize)]
        struct Entry<'a> {
            lane: u32,
            online: bool,
            state: Option<&'a RawValue>,
            mirror: &'a MirrorStats,
        }
        let states: Vec<Option<Box<RawValue>>> = book
            .lanes
            .values()
            .map(|l| {
                let raw = l.state.as_ref()?.raw.to_vec();
                Some(RawValue::from_string(String::from_utf8(raw).unwrap()).unwrap())
            })
            .collect();
        let list: Vec<Entry> = book
            .lanes
            .iter()
            .zip(&states)
            .map(|((n, l), state)| Entry {
                lane: *n,
                online: l.online.unwrap_or(false),
                state: state.as_deref(),
                mirror: &l.mirror,
            })
            .collect();
        assert_eq!(
            String::from_utf8(text.clone()).unwrap(),
            serde_json::to_string(&list).unwrap()
        );
        let v: Value = serde_json::from_slice(&text).unwrap();
        assert_eq!(v[0]["lane"], 3);
        assert_eq!(v[0]["online"], true);
        assert_eq!(v[0]["state"], json!({ "up": "Anna" }));
        assert_eq!(v[0]["mirror"]["lines"], 0);
        assert_eq!(v[1]["state"], Value::Null);
        assert_eq!(v[1]["online"], false);
        assert_eq!(v[2]["state"], json!({ "up": "Boris" }));
        let empty = Book::default().lanes_json().concat();
        assert_eq!(empty, b"[]");
    }
}

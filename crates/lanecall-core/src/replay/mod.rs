//! Replay: a journal applied to a lane, and the result as `lanecall replay`
//! prints it (replay-output.md).
//!
//! [`Replay`] is also what the live daemon keeps: the lane plus what it said
//! and switched, so `GET /api/lane` and `lanecall replay --json` give the
//! same report, from one list of its fields. The daemon's report streams
//! as it is written: callouts and score sheets are never built up as one
//! big value in memory.
//!
//! This file applies a journal to a lane and keeps what it did;
//! `issues.rs` keeps the lines not applied (the first and the latest, all
//! counted); `report.rs` writes the JSON report; `write.rs` writes the
//! same bytes faster for `lanecall replay --json` (its callouts list, half
//! a long journal's report, built apart on a second thread); `sheet.rs`
//! the text score sheet a judge reads; `wall_clock.rs` the wall time of
//! a lane time, from the journal's `wall` fields; `blocks.rs` the
//! report's blocks.

mod blocks;
mod issues;
mod report;
mod sheet;
mod wall_clock;
mod write;

pub use issues::{ISSUES_KEPT, Issue, Issues, kind};
pub use report::{EntryView, Report, bowler_entries};
pub use sheet::{render_scores, render_sheet};

use std::io::BufRead;

use crate::journal::{Checked, Header, HeaderError, Input, Item, LineError, Reader, ShortLine};
use crate::lane::{
    Callout, ConductKind, Effect, Event, Lane, Millis, OutputChange, Refusal, Stamped,
};
use crate::wall::{DayDate, WallTime};
pub use wall_clock::WallClock;

/// A lane fed from a journal, with what it did.
pub struct Replay {
    lane: Lane,
    /// The header's wall-clock start, for people and for the day's
    /// journals.
    started_at: Option<String>,
    /// The wall-clock time of lane times (journal.md, "Wall-clock time").
    wall: WallClock,
    /// `started_at` read as a wall time.
    started_wall: Option<WallTime>,
    last_t: Millis,
    events: u64,
    callouts: Vec<Callout>,
    outputs: Vec<OutputChange>,
    errors: Issues,
    warnings: Issues,
    /// The effects of the latest input; reused to avoid an allocation per
    /// event.
    effects: Vec<Effect>,
}

impl Replay {
    pub fn new(header: &Header) -> Replay {
        let mut lane = Lane::new(header.lane, header.rules.clone());
        if let Some(day) = &header.day {
            lane.begin_day(day);
        }
        // The day the header's clock gave; a `date` event takes over from it.
        let day_date = header.day.as_ref().and_then(|d| d.date);
        let started = header
            .started_at
            .as_deref()
            .and_then(DayDate::of_started_at);
        lane.begin_date(day_date.or(started));
        Replay {
            lane,
            started_at: header.started_at.clone(),
            wall: WallClock::default(),
            started_wall: header.started_at.as_deref().and_then(WallTime::parse),
            last_t: 0,
            events: 0,
            callouts: Vec::new(),
            outputs: Vec::new(),
            errors: Issues::new(ISSUES_KEPT),
            warnings: Issues::new(ISSUES_KEPT),
            effects: Vec::with_capacity(8),
        }
    }

    pub fn lane(&self) -> &Lane {
        &self.lane
    }
    /// The journal header's `started_at`.
    pub fn started_at(&self) -> Option<&str> {
        self.started_at.as_deref()
    }
    /// The wall clock of the lane's times, as far as the journal tells.
    pub fn wall_clock(&self) -> &WallClock {
        &self.wall
    }
    /// Lane time `t` was wall time `wall` (a journal line's `wall`, read
    /// before the line is applied).
    pub fn read_wall(&mut self, t: Millis, wall: WallTime) {
        if t >= self.last_t {
            self.wall.read(t, wall);
        }
    }
    /// The errors listed: the first and the latest [`ISSUES_KEPT`].
    /// Empty only when there was none.
    pub fn errors(&self) -> &[Issue] {
        self.errors.listed()
    }
    /// The warnings listed, as [`Replay::errors`].
    pub fn warnings(&self) -> &[Issue] {
        self.warnings.listed()
    }
    /// Every error, counted by kind ([`kind`]), listed or not.
    pub fn error_counts(&self) -> &Issues {
        &self.errors
    }
    /// Every warning, counted by kind, listed or not.
    pub fn warning_counts(&self) -> &Issues {
        &self.warnings
    }
    /// The warnings and errors, one a line after `source` (the journal's
    /// name), and how many were not listed.
    pub fn issues_text(&self, source: &str) -> String {
        let mut out = String::new();
        for w in self.warnings() {
            out += &format!("{source}: line {}: warning: {}\n", w.line, w.message);
        }
        for e in self.errors() {
            out += &format!("{source}: line {}: {}\n", e.line, e.message);
        }
        for (what, issues) in [("warnings", &self.warnings), ("errors", &self.errors)] {
            if issues.omitted() > 0 {
                out += &format!(
                    "{source}: {} {what} in all, {} not listed\n",
                    issues.total(),
                    issues.omitted()
                );
            }
        }
        out
    }

    pub fn callouts(&self) -> &[Callout] {
        &self.callouts
    }
    pub fn outputs(&self) -> &[OutputChange] {
        &self.outputs
    }
    /// The time of the last line applied.
    pub fn last_t(&self) -> Millis {
        self.last_t
    }

    /// Event lines applied.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Records a line that could not be applied.
    pub fn reject(&mut self, line: u64, err: LineError) -> &[Effect] {
        self.effects.clear();
        self.errors.push(
            kind::JOURNAL,
            Issue {
                line,
                message: err.to_string(),
            },
        );
        &self.effects
    }

    /// Applies one event from journal line `line`, and returns its effects.
    pub fn apply(&mut self, line: u64, e: &Stamped<Event>) -> &[Effect] {
        self.apply_with(line, e.t, |lane, t, out| lane.handle(t, &e.event, out))
    }

    /// [`Replay::apply`] of a pinsetter line held in place, read already
    /// if it is a common one.
    fn apply_serial(&mut self, line: u64, t: Millis, text: &ShortLine) -> &[Effect] {
        let parsed = match text.common() {
            Some(common) => Ok(common.message()),
            None => crate::pinsetter::parse_line_bytes(text.as_bytes()),
        };
        self.apply_with(line, t, |lane, t, out| {
            lane.handle_pinsetter(t, parsed, out)
        })
    }

    fn apply_with(
        &mut self,
        line: u64,
        t: Millis,
        handle: impl FnOnce(&mut Lane, Millis, &mut Vec<Effect>),
    ) -> &[Effect] {
        if t < self.last_t {
            let err = LineError::TimeBackwards {
                t,
                previous: self.last_t,
            };
            return self.reject(line, err);
        }
        self.last_t = t;
        self.events += 1;
        if self.wall.is_empty() {
            // A journal written before lines gave their wall-clock time:
            // its header's `started_at` is its first line's.
            if let Some(w) = self.started_wall {
                self.wall.read(t, w);
            }
        }
        self.effects.clear();
        handle(&mut self.lane, t, &mut self.effects);
        self.record(line);
        &self.effects
    }

    /// The effects of the last [`Replay::apply`] or [`Replay::tick`].
    pub fn last_effects(&self) -> &[Effect] {
        &self.effects
    }

    /// Runs the lane's deadlines up to `now` (the live daemon's timer).
    pub fn tick(&mut self, now: Millis) -> &[Effect] {
        self.effects.clear();
        self.lane.tick(now, &mut self.effects);
        self.record(0);
        &self.effects
    }

    fn record(&mut self, line: u64) {
        // Most inputs: their one effect is `Changed`.
        if let [Effect::Changed] = self.effects[..] {
            return;
        }
        for effect in &self.effects {
            // Most effects: nothing to keep, and no jump through the table
            // below.
            if let Effect::Changed = effect {
                continue;
            }
            match effect {
                Effect::Callout(c) => self.callouts.push(*c),
                Effect::Output(o) => self.outputs.push(*o),
                Effect::Refused(r) => {
                    let kind = match r {
                        Refusal::Serial(_) => kind::SERIAL,
                        _ => kind::REFUSED,
                    };
                    let message = r.to_string();
                    self.errors.push(kind, Issue { line, message });
                }
                Effect::SerialGap { lost, .. } => self.warnings.push(
                    kind::SERIAL_GAP,
                    Issue {
                        line,
                        message: format!("pinsetter sequence number jumped: {lost} line(s) lost"),
                    },
                ),
                Effect::Conduct(c) if matches!(c.kind, ConductKind::PinsStoodUp { .. }) => {
                    let message = c.kind.to_string();
                    self.warnings
                        .push(kind::PINS_STOOD_UP, Issue { line, message });
                }
                Effect::Conduct(_) | Effect::Changed => {}
            }
        }
    }

    /// Reads a whole journal. Bad lines are recorded and skipped; only a
    /// file that is not a journal, or that cannot be read, is an error.
    pub fn from_reader(r: impl BufRead) -> Result<Replay, HeaderError> {
        let (header, mut lines) = Checked::new(Reader::new(r))?;
        let mut replay = Replay::new(&header);
        while let Some(item) = lines.next_item()? {
            replay.feed(item);
        }
        Ok(replay)
    }

    /// Applies one checked item of a journal.
    pub fn feed(&mut self, item: Item) -> &[Effect] {
        match item {
            Item::Event(n, Stamped { t, event }, wall) => {
                if let Some(wall) = wall {
                    self.read_wall(t, wall);
                }
                match event {
                    Input::Serial(line) => self.apply_serial(n, t, &line),
                    // Most lines: the reading applied as it is.
                    Input::Sensor(sensor) => {
                        self.apply_with(n, t, |lane, t, out| lane.handle_sensor(t, &sensor, out))
                    }
                    event => {
                        let e = Stamped {
                            t,
                            event: Event::from(event),
                        };
                        self.apply(n, &e)
                    }
                }
            }
            Item::Error(n, e) => self.reject(n, e),
            Item::Warning(line, message) => {
                self.warnings.push(kind::JOURNAL, Issue { line, message });
                self.effects.clear();
                &self.effects
            }
        }
    }

    /// The result, ready to serialize (replay-output.md).
    pub fn report(&self) -> Report<'_> {
        Report(self, &[])
    }

    /// The result with more fields the live daemon knows of (the speaker's
    /// state), after the replay's own.
    pub fn report_with<'a>(&'a self, extra: &'a [(&'static str, serde_json::Value)]) -> Report<'a> {
        Report(self, extra)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A journal of a few lines written with `wall` at the lines `walls`
    /// names (line index, wall time), and the same journal without any.
    fn journals_with_walls(walls: &[(usize, WallTime)]) -> (String, String) {
        let header = Header::new(
            2,
            Some("2026-11-29T14:00:00Z".into()),
            crate::lane::Rules::default(),
        );
        use crate::pinsetter::{Body, Message, format_line};
        let seven_ten = crate::pins::PinSet::from_mask("0000001001").unwrap();
        let full = crate::pins::PinSet::FULL;
        let bodies = [
            Body::Ready(full),
            Body::Pins(seven_ten),
            Body::Ready(seven_ten),
        ];
        let (mut with, mut without) = (header.to_line() + "\n", header.to_line() + "\n");
        for (i, body) in bodies.into_iter().enumerate() {
            let line = format_line(&Message { seq: i as u8, body });
            let e = Stamped {
                t: 1000 + 60_000 * i as u64,
                event: Event::Sensor(crate::lane::Sensor::Serial { line }),
            };
            let wall = walls.iter().find(|w| w.0 == i).map(|w| w.1);
            with += &(crate::journal::sealed_line_at(&e, i as u64 + 2, wall) + "\n");
            without += &(crate::journal::sealed_event_line(&e, i as u64 + 2) + "\n");
        }
        (with, without)
    }

    #[test]
    fn the_wall_clock_is_read_from_the_lines_and_changes_no_ruling() {
        let restart = WallTime::parse("2026-11-29T15:30:00.500Z").unwrap();
        let first = WallTime::parse("2026-11-29T14:00:01.000Z").unwrap();
        let (with, without) = journals_with_walls(&[(0, first), (2, restart)]);
        let a = Replay::from_reader(with.as_bytes()).unwrap();
        let b = Replay::from_reader(without.as_bytes()).unwrap();
        assert_eq!(a.events(), 3);
        assert_eq!(
            a.wall_clock().points(),
            &[(1000, first), (121_000, restart)]
        );
        assert_eq!(
            a.wall_clock().at(61_000).map(|w| w.to_string()).as_deref(),
            Some("2026-11-29T14:01:01.000Z")
        );
        // Without `wall`, the header's `started_at` is the first line's.
        assert_eq!(
            b.wall_clock().points(),
            &[(1000, WallTime::parse("2026-11-29T14:00:00Z").unwrap())]
        );
        let mut ra = serde_json::to_value(a.report()).unwrap();
        let mut rb = serde_json::to_value(b.report()).unwrap();
        assert_eq!(
            ra["wall_clock"][1],
            serde_json::json!({"t": 121_000, "wall": "2026-11-29T15:30:00.500Z"})
        );
        ra.as_object_mut().unwrap().remove("wall_clock");
        rb.as_object_mut().unwrap().remove("wall_clock");
        assert_eq!(ra, rb, "the wall clock changed a ruling");
        // The fast writer writes the same report.
        let mut fast = Vec::new();
        let report = a.report();
        report
            .write_json(&mut fast, |w| {
                report.write_callouts(0..report.callouts_len(), w)
            })
            .unwrap();
        let fast: serde_json::Value = serde_json::from_slice(&fast).unwrap();
        assert_eq!(
            fast["wall_clock"],
            serde_json::to_value(a.report()).unwrap()["wall_clock"]
        );
    }

    #[test]
    fn a_replay_of_many_bad_lines_lists_200_and_counts_them_all() {
        let header = Header::new(1, None, crate::lane::Rules::default());
        let mut w = crate::journal::Writer::create(Vec::new(), &header).unwrap();
        for t in 0..1000 {
            let e = Stamped {
                t,
                event: Event::Sensor(crate::lane::Sensor::Serial {
                    line: "garbage".into(),
                }),
            };
            w.write(&e).unwrap();
        }
        let journal = w.into_inner();
        let replay = Replay::from_reader(journal.as_slice()).unwrap();
        assert_eq!(replay.errors().len(), 2 * ISSUES_KEPT);
        assert_eq!(replay.errors()[0].line, 2);
        assert_eq!(replay.errors().last().unwrap().line, 1001);
        let report = serde_json::to_value(replay.report()).unwrap();
        assert_eq!(report["error_counts"]["total"], 1000);
        assert_eq!(report["error_counts"]["serial"], 1000);
        assert_eq!(report["errors_omitted"], 1000 - 2 * ISSUES_KEPT as u64);
        assert_eq!(report["errors"].as_array().unwrap().len(), 2 * ISSUES_KEPT);
    }
}

#[cfg(test)]
#[path = "block_plan_tests.rs"]
mod block_plan_tests;

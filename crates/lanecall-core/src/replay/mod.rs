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
//! the text score sheet a judge reads.

mod issues;
mod report;
mod sheet;
mod write;

pub use issues::{ISSUES_KEPT, Issue, Issues, kind};
pub use report::{EntryView, Report, bowler_entries};
pub use sheet::{render_scores, render_sheet};

use std::io::BufRead;

use crate::journal::{Checked, Header, HeaderError, Input, Item, LineError, Reader};
use crate::lane::{Callout, Effect, Event, Lane, Millis, OutputChange, Refusal, Stamped};

/// A lane fed from a journal, with what it did.
pub struct Replay {
    lane: Lane,
    /// The header's wall-clock start, for people and for the day's
    /// journals.
    started_at: Option<String>,
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
        Replay {
            lane,
            started_at: header.started_at.clone(),
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

    /// [`Replay::apply`] of a pinsetter line held as text.
    fn apply_serial(&mut self, line: u64, t: Millis, text: &str) -> &[Effect] {
        self.apply_with(line, t, |lane, t, out| lane.handle_serial(t, text, out))
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
        for effect in &self.effects {
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
            Item::Event(n, Stamped { t, event }) => match event {
                Input::Serial(line) => self.apply_serial(n, t, line.as_str()),
                event => {
                    let e = Stamped {
                        t,
                        event: Event::from(event),
                    };
                    self.apply(n, &e)
                }
            },
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

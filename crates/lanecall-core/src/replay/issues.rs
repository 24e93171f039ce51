//! The journal lines a replay did not apply, and its warnings: which are
//! listed (the first and the latest) and how many of each kind. It never
//! decides whether a line is applied.

use std::collections::BTreeMap;

use serde::Serialize;
use serde::ser::Serializer;

/// A journal line that was not applied, or a warning about one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Issue {
    pub line: u64,
    pub message: String,
}

/// How many issues of each list the report names: the first this many
/// and the latest this many. A noisy serial line gives a bad line per
/// millisecond for hours; every one of them kept would grow the live lane's
/// memory and its every snapshot without end.
pub const ISSUES_KEPT: usize = 100;

/// Issues as the report lists them: the first [`ISSUES_KEPT`], then the
/// latest [`ISSUES_KEPT`] in order, with exact counts by kind of all of
/// them.
#[derive(Clone, Debug, Default)]
pub struct Issues {
    /// The first `keep`, then the latest `keep`: one slice, so readers
    /// still get the listed issues in journal order.
    listed: Vec<Issue>,
    keep: usize,
    total: u64,
    counts: BTreeMap<&'static str, u64>,
}

impl Issues {
    /// Keeps the first `keep` and the latest `keep` issues.
    pub fn new(keep: usize) -> Issues {
        Issues {
            listed: Vec::new(),
            keep,
            total: 0,
            counts: BTreeMap::new(),
        }
    }

    /// Counts an issue of `kind` and lists it, dropping the oldest of the
    /// latest when the window is full.
    pub fn push(&mut self, kind: &'static str, issue: Issue) {
        self.total += 1;
        *self.counts.entry(kind).or_insert(0) += 1;
        if self.listed.len() == 2 * self.keep {
            if self.keep == 0 {
                return;
            }
            // The first `keep` stay; the oldest of the latest goes. At most
            // `keep` issues move, each a few words.
            self.listed.remove(self.keep);
        }
        self.listed.push(issue);
    }

    /// The issues listed, in journal order: the first, then the latest.
    pub fn listed(&self) -> &[Issue] {
        &self.listed
    }

    /// Every issue counted, listed or not.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Issues counted but not listed.
    pub fn omitted(&self) -> u64 {
        self.total - self.listed.len() as u64
    }

    /// Exact counts by kind.
    pub fn counts(&self) -> &BTreeMap<&'static str, u64> {
        &self.counts
    }
}

/// `{"total": n, kind: n, ...}`, written without a copy.
pub(super) struct Counts<'a>(pub(super) &'a Issues);

impl Serialize for Counts<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.counts.len() + 1))?;
        m.serialize_entry("total", &self.0.total)?;
        for (kind, n) in &self.0.counts {
            m.serialize_entry(kind, n)?;
        }
        m.end()
    }
}

/// The kinds of [`super::Replay::error_counts`]: why a line was not applied.
pub mod kind {
    /// A pinsetter line the core rejected (pinsetter-serial.md).
    pub const SERIAL: &str = "serial";
    /// An event the lane's rules refused (a panel action, a sensor out of
    /// turn).
    pub const REFUSED: &str = "refused";
    /// A journal line that could not be read (not JSON, damaged, a time
    /// going back, a repeated line).
    pub const JOURNAL: &str = "journal";
    /// Pinsetter lines lost between two sequence numbers (a warning).
    pub const SERIAL_GAP: &str = "serial_gap";
    /// A pin report naming pins standing that were down at the deck the
    /// ball was bowled at (a warning: the ball is applied and counted,
    /// and the lane's `conduct` has a `pins_stood_up` entry for the
    /// judges).
    pub const PINS_STOOD_UP: &str = "pins_stood_up";
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issue(line: u64) -> Issue {
        Issue {
            line,
            message: format!("bad {line}"),
        }
    }

    #[test]
    fn issues_keep_the_first_and_the_latest_and_count_every_one() {
        let mut issues = Issues::new(3);
        for line in 1..=10 {
            let kind = if line % 5 == 0 {
                kind::REFUSED
            } else {
                kind::SERIAL
            };
            issues.push(kind, issue(line));
        }
        let lines: Vec<u64> = issues.listed().iter().map(|i| i.line).collect();
        assert_eq!(lines, [1, 2, 3, 8, 9, 10]);
        assert_eq!(issues.total(), 10);
        assert_eq!(issues.omitted(), 4);
        assert_eq!(issues.counts()[kind::SERIAL], 8);
        assert_eq!(issues.counts()[kind::REFUSED], 2);
        let counts = serde_json::to_value(Counts(&issues)).unwrap();
        assert_eq!(
            counts,
            serde_json::json!({"total": 10, "serial": 8, "refused": 2})
        );
    }

    #[test]
    fn few_issues_are_all_listed() {
        let mut issues = Issues::new(3);
        for line in 1..=6 {
            issues.push(kind::JOURNAL, issue(line));
        }
        assert_eq!(issues.listed().len(), 6);
        assert_eq!(issues.omitted(), 0);
        issues.push(kind::JOURNAL, issue(7));
        let lines: Vec<u64> = issues.listed().iter().map(|i| i.line).collect();
        assert_eq!(lines, [1, 2, 3, 5, 6, 7]);
    }
}

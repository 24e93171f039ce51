//! Rate limiting of repeated log lines: a noisy pinsetter line gives a bad
//! line per millisecond, and one log line each would make journald drop
//! the log lines that matter (its own rate limit is per service, not per
//! message). [`LogLimiter`] lets one line per kind through per window and
//! sums up the rest: "1,204 bad serial lines in the last 10 s (latest: …)".
//!
//! It is pure: the caller gives the time and logs what it returns, so the
//! lane's thread and the serial task each keep their own.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The window the lane and the serial link use.
pub const WINDOW: Duration = Duration::from_secs(10);

/// What one kind of repeated line has done since its last log line.
#[derive(Debug)]
struct Kind {
    /// When the last line of this kind was let through.
    logged_at: Instant,
    /// The kind in the plural, for its summary.
    what: &'static str,
    /// Occurrences held back since then.
    held: u64,
    /// The latest one held back.
    latest: String,
}

/// At most one log line per kind per window.
#[derive(Debug)]
pub struct LogLimiter {
    window: Duration,
    kinds: BTreeMap<&'static str, Kind>,
}

impl LogLimiter {
    pub fn new(window: Duration) -> LogLimiter {
        LogLimiter {
            window,
            kinds: BTreeMap::new(),
        }
    }

    /// One occurrence of `kind` (named in the plural as `what`, e.g. "bad
    /// serial lines") at `now`: the line to log now, if any. The first
    /// one of a quiet kind is logged as it is; the ones after it within
    /// the window are held back and summed up by the next line.
    pub fn note(
        &mut self,
        kind: &'static str,
        what: &'static str,
        now: Instant,
        message: impl std::fmt::Display,
    ) -> Option<String> {
        match self.kinds.get_mut(kind) {
            Some(k) if now.saturating_duration_since(k.logged_at) < self.window => {
                k.held += 1;
                k.latest = message.to_string();
                None
            }
            Some(k) => {
                k.held += 1;
                k.latest = message.to_string();
                let line = summary(k, now);
                k.logged_at = now;
                k.held = 0;
                Some(line)
            }
            None => {
                self.kinds.insert(
                    kind,
                    Kind {
                        logged_at: now,
                        what,
                        held: 0,
                        latest: String::new(),
                    },
                );
                Some(message.to_string())
            }
        }
    }

    /// The summaries of the kinds whose window is over with occurrences
    /// held back, so that a burst that stopped is still told. Call it now
    /// and then (the lane's thread does once a second).
    pub fn flush(&mut self, now: Instant) -> Vec<String> {
        let window = self.window;
        let mut out = Vec::new();
        self.kinds.retain(|_, k| {
            if now.saturating_duration_since(k.logged_at) < window {
                return true;
            }
            if k.held == 0 {
                // Quiet for a whole window: the next one is logged as it is.
                return false;
            }
            out.push(summary(k, now));
            k.logged_at = now;
            k.held = 0;
            true
        });
        out
    }
}

/// "1,204 bad serial lines in the last 10 s (latest: …)".
fn summary(k: &Kind, now: Instant) -> String {
    let secs = now.saturating_duration_since(k.logged_at).as_secs().max(1);
    format!(
        "{} {} in the last {secs} s (latest: {})",
        thousands(k.held),
        k.what,
        k.latest
    )
}

/// 1204 as "1,204".
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    #[test]
    fn one_line_per_kind_per_window_and_a_summary_of_the_rest() {
        let t0 = Instant::now();
        let mut l = LogLimiter::new(10 * S);
        let what = "bad serial lines";
        assert_eq!(
            l.note("serial", what, t0, "line 1").as_deref(),
            Some("line 1")
        );
        for i in 2..=1205 {
            assert_eq!(l.note("serial", what, t0 + S, format!("line {i}")), None);
        }
        // Another kind is not held back by the first.
        assert_eq!(
            l.note("refused", "refusals", t0 + S, "no lineup")
                .as_deref(),
            Some("no lineup")
        );
        let line = l.note("serial", what, t0 + 10 * S, "line 1206");
        assert_eq!(
            line.as_deref(),
            Some("1,205 bad serial lines in the last 10 s (latest: line 1206)")
        );
        assert_eq!(l.note("serial", what, t0 + 11 * S, "line 1207"), None);
    }

    #[test]
    fn a_burst_that_stopped_is_summed_up_by_flush() {
        let t0 = Instant::now();
        let mut l = LogLimiter::new(10 * S);
        assert!(l.note("serial", "bad serial lines", t0, "a").is_some());
        assert!(l.note("serial", "bad serial lines", t0, "b").is_none());
        assert!(l.note("serial", "bad serial lines", t0, "c").is_none());
        assert!(l.flush(t0 + 9 * S).is_empty(), "window not over");
        assert_eq!(
            l.flush(t0 + 10 * S),
            ["2 bad serial lines in the last 10 s (latest: c)"]
        );
        // Nothing held back any more; after a quiet window the next one
        // is logged as it is.
        assert!(l.flush(t0 + 21 * S).is_empty());
        assert_eq!(
            l.note("serial", "bad serial lines", t0 + 22 * S, "d")
                .as_deref(),
            Some("d")
        );
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}

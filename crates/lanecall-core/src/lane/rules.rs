//! The settings that change what the lane computes. They travel in the
//! journal's header, so a replay always uses the rules the lane ran with.

use serde::{Deserialize, Serialize};

/// How a foul counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum FoulMode {
    /// A fouled ball counts as a delivery and its pins do not count.
    #[default]
    Score,
    /// The foul unit only warns: the lamp lights, nothing changes the score.
    Warn,
}

/// Between two pin reports the pinsetter reads the deck, sweeps and sets
/// the pins (seconds, on string and free-fall machines alike), then the
/// bowler steps up and the next ball rolls 18.29 m (about 2 s for the
/// fastest). 3 s is below any real cycle with room to spare, so it never
/// refuses a real ball.
pub const MIN_CYCLE_MS: u64 = 3000;

/// The longest a foul can still be called on a ball after its pin report
/// when the lane is not ready for the next ball sooner (rules.md, "The
/// foul window"). The report comes once the pins have settled, seconds
/// after the release; 3 s more covers the bowler's follow-through and a
/// step after it, and ends before a bowler has her ball back from the
/// return to orient for the next one.
pub const FOUL_WINDOW_MS: u64 = 3000;

/// rules.md and journal.md, with their defaults. Fields the lane does not
/// know are ignored, so a newer journal still replays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Rules {
    /// A foul-beam break no longer than this is the ball passing the line.
    pub ball_break_max_ms: u64,
    /// Release to ball detector, used when no ball break was seen.
    pub typical_travel_ms: u64,
    /// Longest a ball takes from the line to the detector.
    pub max_travel_ms: u64,
    /// A ball with no pin report after this raises an alarm.
    pub pin_report_timeout_ms: u64,
    /// The slow-bowling clock's limit.
    pub slow_bowling_limit_s: u64,
    /// How long the foul lamp stays on.
    pub foul_lamp_ms: u64,
    pub foul_mode: FoulMode,
    /// The least time from one `PINS` report to the next that a pinsetter
    /// can give: a report sooner than this is not a ball. 0 turns it off.
    pub min_cycle_ms: u64,
    /// Whether the speaker says more than IBSA allows in competition: the
    /// word "split" after a split leave, and the score on the rail's score
    /// button (training). A bowler's own `extras` in the lineup comes
    /// first. `[speaker] extras` in the config, off by default; a journal
    /// header without it was written when both were always said, so it
    /// replays with them on.
    #[serde(default = "said_before_the_setting")]
    pub speaker_extras: bool,
    /// When a ball stops being in play (rules.md, "The foul window"): at
    /// the pinsetter's READY, at a string pinsetter's settled deck that the
    /// next ball is rolled at, or this long after the ball's pin report,
    /// whichever comes first. `None`, a journal header without it, was
    /// written when a foul could be called until the next READY or the
    /// next delivery, and replays so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foul_window_ms: Option<u64>,
    /// Whether a judge's blindfold action for a bowler not on the lane now
    /// is taken when the lane keeps that bowler's blindfold for the day
    /// (rules.md, "Checks between blocks"). Not a setting: always on in a
    /// new journal; a header without it was written when such an action
    /// was refused, and replays so.
    #[serde(default)]
    pub blindfolds_between_blocks: bool,
    /// Whether `min_cycle_ms` counts only between reports over one link
    /// (journal.md, "What replay derives"): the first `PINS` after the
    /// link comes up (the daemon started again, a port reopened) is not
    /// measured against the last one before, as the lane cannot know how
    /// long the pinsetter cycled meanwhile (lane time does not count the
    /// minutes the lane was off). Not a setting: always on in a new
    /// journal; a header without it was written when such a report could
    /// be refused as too soon, and replays so.
    #[serde(default)]
    pub cycle_per_link: bool,
    /// Whether the lane says what it cannot take as typed or reported
    /// (journal.md, "Checked inputs"): a lineup's or a substitute's name
    /// that breaks the one rule for names ([`crate::names`]) or a
    /// handicap outside 0 to 300 is refused, a correction is checked as
    /// pins entered by hand are (only pins of the deck the ball was bowled
    /// at, none twice), and a pin report naming pins standing that were
    /// down at that deck is flagged to the judges (`pins_stood_up`). Not a
    /// setting: always on in a new journal; a header without it was
    /// written when such inputs were taken as they came (a name as typed,
    /// a correction's pins off the deck ignored, the report scored without
    /// a word), and replays so.
    #[serde(default)]
    pub checked_inputs: bool,
}

/// `speaker_extras` of a journal header that does not carry it: lanecall
/// said "split" and read the score to everyone before the setting existed.
fn said_before_the_setting() -> bool {
    true
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            ball_break_max_ms: 100,
            typical_travel_ms: 2500,
            max_travel_ms: 10_000,
            pin_report_timeout_ms: 15_000,
            slow_bowling_limit_s: 60,
            foul_lamp_ms: 3000,
            foul_mode: FoulMode::Score,
            min_cycle_ms: MIN_CYCLE_MS,
            speaker_extras: false,
            foul_window_ms: Some(FOUL_WINDOW_MS),
            blindfolds_between_blocks: true,
            cycle_per_link: true,
            checked_inputs: true,
        }
    }
}

impl Rules {
    /// Whether a foul takes the ball's pins away.
    pub fn fouls_count(&self) -> bool {
        self.foul_mode == FoulMode::Score
    }

    /// Settings that cannot work, each a sentence that starts with the
    /// key's name (a journal header's error).
    pub fn problems(&self) -> Vec<String> {
        self.key_problems()
            .into_iter()
            .map(|(key, what)| format!("{key} {what}"))
            .collect()
    }

    /// Settings that cannot work: each key's name, and what is wrong with
    /// it (a config file's problem at `rules.<key>`).
    pub fn key_problems(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if self.ball_break_max_ms == 0 {
            out.push(("ball_break_max_ms", "must be above 0".to_owned()));
        }
        if self.max_travel_ms < self.typical_travel_ms {
            out.push((
                "max_travel_ms",
                format!(
                    "({}) must not be below typical_travel_ms ({})",
                    self.max_travel_ms, self.typical_travel_ms
                ),
            ));
        }
        if self.pin_report_timeout_ms == 0 {
            out.push(("pin_report_timeout_ms", "must be above 0".to_owned()));
        }
        if self.slow_bowling_limit_s == 0 {
            out.push(("slow_bowling_limit_s", "must be above 0".to_owned()));
        }
        // Nothing on a lane takes a day: a larger value is a typo.
        const DAY_MS: u64 = 86_400_000;
        for (key, value) in [
            ("ball_break_max_ms", self.ball_break_max_ms),
            ("typical_travel_ms", self.typical_travel_ms),
            ("max_travel_ms", self.max_travel_ms),
            ("pin_report_timeout_ms", self.pin_report_timeout_ms),
            ("foul_lamp_ms", self.foul_lamp_ms),
            ("min_cycle_ms", self.min_cycle_ms),
            (
                "slow_bowling_limit_s",
                self.slow_bowling_limit_s.saturating_mul(1000),
            ),
            ("foul_window_ms", self.foul_window_ms.unwrap_or(0)),
        ] {
            if value > DAY_MS {
                out.push((key, "is longer than a day".to_owned()));
            }
        }
        out
    }
}

//! Validation: the raw structs into a [`Config`], every problem at once,
//! each by its key path with what to do about it. The tables read into
//! their own struct (`journal`, `pinsetter`, `gpio`, `speaker`, `web`,
//! `centre`) check themselves.
//!
//! It decides which values can work; it never reads the file (see `raw`)
//! and never opens a pin, a port or a socket.

use super::collect::Check;
use super::keys::name_of;
use super::problem::Problem;
use super::raw::{FOUL_MODES, RawConfig, RawRules};
use super::validated::*;
use crate::lane::rules::Rules;

// ---------------------------------------------------------------------------
// Step 2: validation
// ---------------------------------------------------------------------------

impl RawConfig {
    pub(super) fn validate(mut self) -> Result<Config, Vec<Problem>> {
        let mut c = Check::default();

        let lane = c.required("lane", self.lane, "the lane number, e.g. lane = 7");
        let state_dir = c.required(
            "state_dir",
            self.state_dir.take(),
            "the directory for the journals, e.g. state_dir = \"/var/lib/lanecall\"",
        );
        let mut journal = Some(self.journal);
        // The mirror would take the journal for its own copy.
        if let (Some(j), Some(dir)) = (&journal, &state_dir)
            && j.mirror.as_deref() == Some(dir.join("journal").as_path())
        {
            c.push(
                "journal.mirror",
                "is the journal folder itself (state_dir/journal): name a folder elsewhere, \
                 e.g. on a USB stick",
            );
            journal = None;
        }
        let raw_switches = self.pinsetter.switches.take();
        let pin_switches = self.pinsetter.pin_switches;
        let pinsetter = self.pinsetter.check(&mut c).then_some(self.pinsetter);
        // The rules first, as the foul beam's debounce is checked against
        // them, but their problems last, in the file's order.
        let mut rules_check = Check::default();
        let rules = self.rules.validate(&mut rules_check);
        let gpio = self.gpio.check(&mut c, rules.as_ref());
        let switches = super::switches::validate(&mut c, pin_switches, raw_switches, gpio.as_ref());
        // `[speaker] extras` is the rules' `speaker_extras`.
        let speaker = self.speaker.check(&mut c).then_some(self.speaker);
        let rules = rules.map(|rules| Rules {
            speaker_extras: speaker.as_ref().map_or(rules.speaker_extras, |s| s.extras),
            ..rules
        });
        let web = self.web.check(&mut c).then_some(self.web);
        c.problems.append(&mut rules_check.problems);
        let centre = match self.centre {
            None => Some(None),
            Some(centre) => centre.check(&mut c, lane).then_some(Some(centre)),
        };

        match (
            lane, state_dir, journal, pinsetter, gpio, speaker, web, rules, centre, switches,
        ) {
            (
                Some(lane),
                Some(state_dir),
                Some(journal),
                Some(pinsetter),
                Some(gpio),
                Some(speaker),
                Some(web),
                Some(rules),
                Some(centre),
                Some(switches),
            ) if c.problems.is_empty() => Ok(Config {
                lane,
                state_dir,
                journal,
                pinsetter,
                gpio,
                speaker,
                web,
                rules,
                centre,
                switches,
            }),
            _ => Err(c.problems),
        }
    }
}

impl RawRules {
    pub(super) fn validate(self, c: &mut Check) -> Option<Rules> {
        let mut rules = Rules::default();
        let mut ok = true;
        let mut foul_window_ms = rules.foul_window_ms.unwrap_or_default();
        let fields: [(&str, Option<i64>, &mut u64); 8] = [
            (
                "ball_break_max_ms",
                self.ball_break_max_ms,
                &mut rules.ball_break_max_ms,
            ),
            (
                "typical_travel_ms",
                self.typical_travel_ms,
                &mut rules.typical_travel_ms,
            ),
            (
                "max_travel_ms",
                self.max_travel_ms,
                &mut rules.max_travel_ms,
            ),
            (
                "pin_report_timeout_ms",
                self.pin_report_timeout_ms,
                &mut rules.pin_report_timeout_ms,
            ),
            (
                "slow_bowling_limit_s",
                self.slow_bowling_limit_s,
                &mut rules.slow_bowling_limit_s,
            ),
            ("foul_lamp_ms", self.foul_lamp_ms, &mut rules.foul_lamp_ms),
            ("min_cycle_ms", self.min_cycle_ms, &mut rules.min_cycle_ms),
            ("foul_window_ms", self.foul_window_ms, &mut foul_window_ms),
        ];
        for (name, value, field) in fields {
            let Some(value) = value else { continue };
            match u64::try_from(value) {
                Ok(v) => *field = v,
                Err(_) => {
                    c.push(
                        format!("rules.{name}"),
                        format!("{value} must not be negative"),
                    );
                    ok = false;
                }
            }
        }
        rules.foul_window_ms = Some(foul_window_ms);
        match c.choice(
            "rules.foul_mode",
            self.foul_mode.as_deref(),
            // Left out, `Rules::default()`'s.
            name_of(&FOUL_MODES, &rules.foul_mode),
            &FOUL_MODES,
        ) {
            Some(mode) => rules.foul_mode = mode,
            None => ok = false,
        }
        if !ok {
            return None;
        }
        let problems = rules.key_problems();
        for (key, what) in &problems {
            c.push(format!("rules.{key}"), what.as_str());
        }
        problems.is_empty().then_some(rules)
    }
}

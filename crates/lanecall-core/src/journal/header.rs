//! The journal's first line: which lane, which rules, which format, what
//! earlier journals of the day leave in force. It never reads an event line.

use std::io;

use serde::Deserialize;
use serde_json::{Value, json};

use super::seal::{looks_sealed, seal, unseal};
use super::{FORMAT_VERSION, LineError, OLDEST_FORMAT};
use crate::lane::{Day, Rules};

/// The journal's first line.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// The format the file was written in (1 or 2).
    pub version: u32,
    pub lane: u32,
    /// The journal's place among the lane's journals: each new one gets a
    /// higher number, whatever the wall clock says (0 in format 1).
    pub seq: u64,
    pub started_at: Option<String>,
    pub rules: Rules,
    /// What the lane's earlier journals of the same competition day leave
    /// in force (block numbers, blindfold checks); `None` for the day's
    /// first journal.
    pub day: Option<Day>,
}

/// Why a file is not a journal this version can replay.
#[derive(Debug, thiserror::Error)]
pub enum HeaderError {
    #[error("the file is empty: no journal header")]
    Empty,
    #[error("line 1 is not a lanecall journal header: {0}")]
    NotAHeader(String),
    #[error(
        "journal format version {0} is not supported (this lanecall reads versions {OLDEST_FORMAT} to {FORMAT_VERSION})"
    )]
    Version(u32),
    #[error("line 1, the header, is damaged: {0}")]
    Damaged(LineError),
    #[error("journal header rules: {0}")]
    Rules(String),
    #[error("journal header day: {0}")]
    Day(String),
    #[error("cannot read the journal: {0}")]
    Io(#[from] io::Error),
}

impl Header {
    /// A header in the format this lanecall writes.
    pub fn new(lane: u32, started_at: Option<String>, rules: Rules) -> Header {
        Header {
            version: FORMAT_VERSION,
            lane,
            seq: 0,
            started_at,
            rules,
            day: None,
        }
    }

    pub fn with_seq(self, seq: u64) -> Header {
        Header { seq, ..self }
    }

    pub fn with_day(self, day: Option<Day>) -> Header {
        Header { day, ..self }
    }

    pub fn parse(line: &str) -> Result<Header, HeaderError> {
        #[derive(Deserialize)]
        struct Raw {
            journal: String,
            version: u32,
            #[serde(default)]
            lane: u32,
            #[serde(default)]
            seq: u64,
            started_at: Option<String>,
            rules: Option<Value>,
            day: Option<Value>,
        }
        // A damaged byte may leave good JSON: the seal is checked first.
        let sealed = looks_sealed(line);
        if sealed {
            unseal(line).map_err(HeaderError::Damaged)?;
        }
        let raw: Raw =
            serde_json::from_str(line).map_err(|e| HeaderError::NotAHeader(e.to_string()))?;
        if raw.journal != "lanecall" {
            return Err(HeaderError::NotAHeader(format!(
                "\"journal\" is {:?}, not \"lanecall\"",
                raw.journal
            )));
        }
        if !(OLDEST_FORMAT..=FORMAT_VERSION).contains(&raw.version) {
            return Err(HeaderError::Version(raw.version));
        }
        if raw.version >= 2 && !sealed {
            return Err(HeaderError::Damaged(LineError::NoSeal));
        }
        // No `rules` at all takes every field's header default, as an
        // empty object does.
        let rules: Rules = serde_json::from_value(raw.rules.unwrap_or_else(|| json!({})))
            .map_err(|e| HeaderError::Rules(e.to_string()))?;
        let problems = rules.problems();
        if !problems.is_empty() {
            return Err(HeaderError::Rules(problems.join("; ")));
        }
        let day = match raw.day {
            None => None,
            Some(v) => {
                Some(serde_json::from_value(v).map_err(|e| HeaderError::Day(e.to_string()))?)
            }
        };
        Ok(Header {
            version: raw.version,
            lane: raw.lane,
            seq: raw.seq,
            started_at: raw.started_at,
            rules,
            day,
        })
    }

    /// The header line in the format this lanecall writes (sealed as line
    /// 1), without its `\n`.
    pub fn to_line(&self) -> String {
        let mut v = json!({
            "journal": "lanecall",
            "version": FORMAT_VERSION,
            "lane": self.lane,
            "seq": self.seq,
            "rules": self.rules,
        });
        if let Some(s) = &self.started_at {
            v["started_at"] = json!(s);
        }
        if let Some(day) = &self.day {
            v["day"] = json!(day);
        }
        seal(&v.to_string(), 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_header_parses_with_its_rules() {
        let h = Header::parse(
            r#"{"journal":"lanecall","version":1,"lane":7,"started_at":"2026-11-29T14:00:00Z",
 "rules":{"ball_break_max_ms":100,"typical_travel_ms":2500,"max_travel_ms":10000,
          "pin_report_timeout_ms":15000,"slow_bowling_limit_s":60}}"#,
        )
        .unwrap();
        assert_eq!(h.lane, 7);
        // Written before `speaker_extras` existed, when "split" and the
        // score were always said, and before `foul_window_ms`,
        // `blindfolds_between_blocks`, `cycle_per_link` and
        // `checked_inputs`.
        let before = Rules {
            speaker_extras: true,
            foul_window_ms: None,
            blindfolds_between_blocks: false,
            cycle_per_link: false,
            checked_inputs: false,
            ..Rules::default()
        };
        assert_eq!(h.rules, before);
        let bare = Header::parse(r#"{"journal":"lanecall","version":1,"lane":7}"#).unwrap();
        assert_eq!(bare.rules, before, "no rules at all: the same defaults");
    }

    #[test]
    fn left_out_rules_take_defaults_and_unknown_ones_are_ignored() {
        let h = Header::parse(r#"{"journal":"lanecall","version":1,"lane":2,"rules":{"slow_bowling_limit_s":25,"future":1}}"#).unwrap();
        assert_eq!(h.rules.slow_bowling_limit_s, 25);
        assert_eq!(h.rules.typical_travel_ms, 2500);
    }

    #[test]
    fn a_file_that_is_not_a_journal_is_refused() {
        assert!(matches!(
            Header::parse(r#"{"journal":"other","version":1}"#),
            Err(HeaderError::NotAHeader(_))
        ));
        assert!(matches!(
            Header::parse(r#"{"journal":"lanecall","version":3}"#),
            Err(HeaderError::Version(3))
        ));
        assert!(
            matches!(
                Header::parse(r#"{"journal":"lanecall","version":2}"#),
                Err(HeaderError::Damaged(LineError::NoSeal))
            ),
            "a format 2 header carries its seal"
        );
        assert!(matches!(
            Header::parse("hello"),
            Err(HeaderError::NotAHeader(_))
        ));
        let bad_rules =
            r#"{"journal":"lanecall","version":1,"rules":{"slow_bowling_limit_s":"x"}}"#;
        assert!(matches!(
            Header::parse(bad_rules),
            Err(HeaderError::Rules(_))
        ));
    }
}

//! The one problem collector of every settings file (the lane's config,
//! the centre's, the programme): each problem by its key path, with what
//! to do about it, every problem at once; and where a key is written, for
//! the messages' line and column.
//!
//! It decides how a value's problem is recorded and placed; which values
//! can work is for the checks that use it.

use std::ops::RangeInclusive;

use super::gpio::BcmPin;
use super::problem::Problem;

/// What a missing `pin` is told.
pub(crate) const PIN_NEEDED: &str = "the BCM GPIO number the wire is on, 2 to 27 (pin = 17)";

/// Collects the problems found while validating.
#[derive(Default)]
pub(crate) struct Check<'t> {
    pub(crate) problems: Vec<Problem>,
    /// The text a problem found by a byte offset is placed in (a file
    /// read with serde's spans, as the programme is); empty when the
    /// problems are placed by their key after (the configs).
    text: &'t str,
}

impl<'t> Check<'t> {
    /// A collector that places each problem [`Check::add`]s at its line
    /// and column in `text`.
    pub(crate) fn new(text: &'t str) -> Check<'t> {
        Check {
            problems: Vec::new(),
            text,
        }
    }

    /// A problem with the value `at`, placed where it is written.
    pub(crate) fn add<T>(
        &mut self,
        key: impl Into<String>,
        at: &toml::Spanned<T>,
        message: impl Into<String>,
    ) {
        self.problems.push(Problem {
            key: key.into(),
            message: message.into(),
            at: line_column(self.text, at.span().start),
        });
    }

    pub(crate) fn push(&mut self, key: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem::new(key, message));
    }

    /// A required key's value, or a problem saying what to write.
    pub(crate) fn required<T>(&mut self, key: &str, value: Option<T>, what: &str) -> Option<T> {
        if value.is_none() {
            self.push(key, format!("is missing: {what}"));
        }
        value
    }

    /// A whole number within `range`; `unit` follows the bounds in the
    /// message ("milliseconds").
    pub(crate) fn int(
        &mut self,
        key: &str,
        value: i64,
        range: RangeInclusive<i64>,
        unit: &str,
    ) -> Option<u64> {
        if range.contains(&value) {
            u64::try_from(value).ok()
        } else {
            self.push(
                key,
                format!(
                    "{value} is out of range: use {} to {} {unit}",
                    range.start(),
                    range.end()
                ),
            );
            None
        }
    }

    /// One of the named values, or a problem listing them.
    pub(crate) fn choice<T: Copy>(
        &mut self,
        key: &str,
        value: Option<&str>,
        default: &str,
        choices: &[(&str, T)],
    ) -> Option<T> {
        let value = value.unwrap_or(default);
        let found = choices.iter().find(|(name, _)| *name == value);
        if found.is_none() {
            let names: Vec<String> = choices
                .iter()
                .map(|(name, _)| format!("{name:?}"))
                .collect();
            self.push(key, format!("{value:?} is not one of {}", names.join(", ")));
        }
        found.map(|&(_, v)| v)
    }

    pub(crate) fn non_empty(
        &mut self,
        key: &str,
        value: Option<String>,
        what: &str,
    ) -> Option<String> {
        let value = self.required(key, value, what)?;
        if value.trim().is_empty() {
            self.push(key, format!("is empty: {what}"));
            return None;
        }
        Some(value)
    }

    pub(crate) fn pin(&mut self, key: &str, value: Option<i64>) -> Option<BcmPin> {
        let n = self.required(key, value, PIN_NEEDED)?;
        super::gpio::bcm_pin(n).map_err(|e| self.push(key, e)).ok()
    }
}

/// The line and column (from 1) of `key` (`gpio.inputs.ball.pin`,
/// `web.judges[2].name`) in `text`; for a key that is not written, of the
/// nearest table around it that is.
pub(crate) fn position(text: &str, key: &str) -> Option<(usize, usize)> {
    use toml::de::{DeTable, DeValue};
    let doc = DeTable::parse(text).ok()?;
    let mut table = doc.get_ref();
    let mut found = None;
    for (name, index) in key_parts(key) {
        let Some((k, v)) = table.iter().find(|(k, _)| k.get_ref().as_ref() == name) else {
            break;
        };
        found = Some(k.span().start);
        let mut value = v.get_ref();
        if let Some(i) = index {
            let Some(item) = value
                .as_array()
                .and_then(|a| a.as_ref().get(i.checked_sub(1)?))
            else {
                break;
            };
            found = Some(item.span().start);
            value = item.get_ref();
        }
        match value {
            DeValue::Table(t) => table = t,
            _ => break,
        }
    }
    line_column(text, found?)
}

/// The line and column (from 1, the column in characters) of the byte
/// `offset` of `text`: the one place a problem's place is computed.
pub(crate) fn line_column(text: &str, offset: usize) -> Option<(usize, usize)> {
    let before = text.get(..offset)?;
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Some((line, column))
}

/// A key path's parts as the walk writes them: each name
/// (unquoted) with its `[n]` index, if any.
pub(super) fn key_parts(key: &str) -> Vec<(String, Option<usize>)> {
    let mut parts = Vec::new();
    let mut rest = key;
    while !rest.is_empty() {
        let (name, after) = if let Some(quoted) = rest.strip_prefix('"') {
            let end = quoted.find('"').unwrap_or(quoted.len());
            (
                quoted[..end].to_owned(),
                quoted.get(end + 1..).unwrap_or(""),
            )
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            (rest[..end].to_owned(), &rest[end..])
        };
        let (index, after) = match after.strip_prefix('[').and_then(|a| a.split_once(']')) {
            Some((n, after)) => (n.parse().ok(), after),
            None => (None, after),
        };
        parts.push((name, index));
        rest = after.strip_prefix('.').unwrap_or(after);
    }
    parts
}

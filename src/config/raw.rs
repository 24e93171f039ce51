//! The file as written: the keys the lane knows and the type of each,
//! walked before deserializing so every unknown key and wrong type is
//! reported by its full path; and the serde structs the file is read
//! into, and the effective file written from (`print`).
//!
//! It decides which keys exist; it never judges a value (see `validate`)
//! and never supplies a default (see `defaults`).

use std::path::PathBuf;

use super::centre::CentreConfig;
use super::journal::JournalConfig;
use super::keys::{Key, Kind, name_of, toml_key};
use super::pinsetter::{self, PinsetterConfig};
use super::problem::Problem;
use super::shape;
use super::speaker::SpeakerConfig;
use super::web::WebConfig;
use super::wire::{self, GpioTable};
use crate::lane::rules::{FoulMode, Rules};

// ---------------------------------------------------------------------------
// Step 1a: the known keys, walked before deserializing
// ---------------------------------------------------------------------------

fn describe_value(value: &toml::Value) -> &'static str {
    match value {
        toml::Value::String(_) => "a string",
        toml::Value::Integer(_) => "a whole number",
        toml::Value::Float(_) => "a number with a decimal point",
        toml::Value::Boolean(_) => "true/false",
        toml::Value::Datetime(_) => "a date",
        toml::Value::Array(_) => "a list",
        toml::Value::Table(_) => "a table",
    }
}

pub(super) fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        toml_key(key)
    } else {
        format!("{prefix}.{}", toml_key(key))
    }
}

/// Reports every key of `table` not in `fields`, and every value of the
/// wrong type, by its full path.
pub(crate) fn walk(table: &toml::Table, fields: &[Key], prefix: &str, out: &mut Vec<Problem>) {
    for (key, value) in table {
        let path = join(prefix, key);
        match fields.iter().find(|k| k.name == key) {
            Some(k) => check_kind(value, k.kind, &path, out),
            None => out.push(Problem::new(path, unknown_key(key, prefix, fields))),
        }
    }
}

fn check_kind(value: &toml::Value, kind: Kind, path: &str, out: &mut Vec<Problem>) {
    use toml::Value as V;
    match (kind, value) {
        (Kind::Int, V::Integer(_))
        | (Kind::Float, V::Float(_) | V::Integer(_))
        | (Kind::Str, V::String(_))
        | (Kind::Bool, V::Boolean(_))
        | (Kind::StrOrInt, V::String(_) | V::Integer(_))
        | (Kind::Lanes, V::String(_)) => {}
        (Kind::Table(_), V::Table(table)) => {
            walk(table, kind.fields().unwrap_or_default(), path, out)
        }
        // Counted from 1, as the `[[...]]` headers are read in the file.
        (Kind::Tables(fields), V::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                check_kind(
                    item,
                    Kind::Table(fields),
                    &format!("{path}[{}]", i + 1),
                    out,
                );
            }
        }
        (Kind::Ints, V::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                check_kind(item, Kind::Int, &format!("{path}[{}]", i + 1), out);
            }
        }
        (Kind::StrOrInts, V::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                check_kind(item, Kind::StrOrInt, &format!("{path}[{}]", i + 1), out);
            }
        }
        (Kind::Lanes, V::Array(_)) => check_kind(value, Kind::Ints, path, out),
        // A GPIO input or output written as a value (`[gpio.buttons]
        // repeat = 5`).
        (Kind::Table(_), other)
            if kind
                .fields()
                .is_some_and(|fields| fields.iter().any(|k| k.name == "pin")) =>
        {
            out.push(Problem::new(
                path,
                format!(
                    "must be a table: write [{path}] with its pin, not {}",
                    describe_value(other)
                ),
            ));
        }
        (kind, value) => out.push(Problem::new(
            path,
            format!("must be {}, not {}", kind.describe(), describe_value(value)),
        )),
    }
}

fn unknown_key(key: &str, prefix: &str, fields: &[Key]) -> String {
    let names: Vec<&str> = fields.iter().map(|k| k.name).collect();
    if prefix == "gpio.buttons" {
        let near = match closest(key, &names) {
            Some(near) => format!(" (did you mean `{near}`?)"),
            None => String::new(),
        };
        return format!(
            "unknown button{near}; the lane knows {}",
            names.join(" and ")
        );
    }
    let here = if prefix.is_empty() {
        "at the top of the file".to_owned()
    } else {
        format!("in [{prefix}]")
    };
    let hint = match prefix {
        "gpio.inputs" => "; a rail button goes under [gpio.buttons.<name>]",
        "gpio.outputs.foul_lamp" if key == "pulse_ms" => {
            "; the lamp stays on for rules.foul_lamp_ms"
        }
        _ => "",
    };
    unknown_key_among(key, &names, &here) + hint
}

/// What an unknown key is told, in every file: the nearest known key, if
/// one is near, and the keys known `here` ("in [web]").
pub(crate) fn unknown_key_among(key: &str, names: &[&str], here: &str) -> String {
    match closest(key, names) {
        Some(near) => format!(
            "unknown key (did you mean `{near}`?); the keys {here} are: {}",
            names.join(", ")
        ),
        None => format!("unknown key; the keys {here} are: {}", names.join(", ")),
    }
}

/// The known key within two edits of a misspelt one (Levenshtein's
/// distance: an insertion, a deletion or a change is one edit).
fn closest<'a>(key: &str, names: &[&'a str]) -> Option<&'a str> {
    names
        .iter()
        .map(|name| (strsim::levenshtein(key, name), *name))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, name)| name)
}

// ---------------------------------------------------------------------------
// Step 1b: the raw file
// ---------------------------------------------------------------------------

/// The whole file: each table a field, the tables read as they are
/// used (`[gpio]` and `[rules]` are checked into the [`Config`]'s).
///
/// [`Config`]: super::validated::Config
#[derive(serde::Deserialize, serde::Serialize, Default)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawConfig {
    /// The lane's number, 1 to 999.
    #[serde(with = "lane", skip_serializing_if = "Option::is_none")]
    pub(super) lane: Option<u32>,
    /// The journals' folder; absolute.
    #[serde(
        deserialize_with = "state_dir",
        skip_serializing_if = "Option::is_none"
    )]
    pub(super) state_dir: Option<PathBuf>,
    pub(super) journal: JournalConfig,
    pub(super) pinsetter: PinsetterConfig,
    pub(super) gpio: GpioTable,
    pub(super) speaker: SpeakerConfig,
    pub(super) web: WebConfig,
    pub(super) rules: RawRules,
    pub(super) centre: Option<CentreConfig>,
}

/// The file's keys, each with what it holds: [`RawConfig`]'s fields.
pub(super) fn root() -> &'static [Key] {
    shape::keys::<RawConfig>()
}

/// Every key's default as the file writes it (docs/config.md): each
/// table's `Default`, with the tables left out by default (every GPIO
/// input and output, `[pinsetter.switches]`, `[centre]`) written in.
pub(super) fn root_defaults() -> toml::Table {
    let documented = RawConfig {
        pinsetter: pinsetter::documented(),
        gpio: wire::documented(),
        rules: RawRules::from(&Rules::default()),
        centre: Some(CentreConfig::default()),
        ..RawConfig::default()
    };
    toml::Table::try_from(documented).unwrap_or_default()
}

mod lane {
    use serde::{Deserializer, Serializer};

    use super::super::value::{Int, LaneNumber};

    type Lane = Int<LaneNumber, 1, 999>;

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
        Lane::deserialize(d).map(Some)
    }

    pub(super) fn serialize<S: Serializer>(v: &Option<u32>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(n) => Lane::serialize(n, s),
            None => s.serialize_none(),
        }
    }
}

fn state_dir<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
    const EXAMPLE: &str = "state_dir = \"/var/lib/lanecall\"";
    super::value::absolute(
        d,
        &format!("the directory for the journals, e.g. {EXAMPLE}"),
        EXAMPLE,
    )
}

/// `[rules] foul_mode` as the file names it.
pub(super) const FOUL_MODES: [(&str, FoulMode); 2] =
    [("score", FoulMode::Score), ("warn", FoulMode::Warn)];

/// [`Rules`]' fields as options, so `[rules]` denies unknown keys (Rules
/// itself ignores them, for journals from newer versions) and a missing
/// key takes `Rules::default()`'s value.
#[derive(serde::Deserialize, serde::Serialize, Default)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawRules {
    pub(super) ball_break_max_ms: Option<i64>,
    pub(super) typical_travel_ms: Option<i64>,
    pub(super) max_travel_ms: Option<i64>,
    pub(super) pin_report_timeout_ms: Option<i64>,
    pub(super) slow_bowling_limit_s: Option<i64>,
    pub(super) foul_lamp_ms: Option<i64>,
    pub(super) foul_mode: Option<String>,
    pub(super) min_cycle_ms: Option<i64>,
    pub(super) foul_window_ms: Option<i64>,
}

/// The `[rules]` that reads as these rules.
impl From<&Rules> for RawRules {
    fn from(r: &Rules) -> RawRules {
        let int = |n: u64| Some(i64::try_from(n).unwrap_or(i64::MAX));
        RawRules {
            ball_break_max_ms: int(r.ball_break_max_ms),
            typical_travel_ms: int(r.typical_travel_ms),
            max_travel_ms: int(r.max_travel_ms),
            pin_report_timeout_ms: int(r.pin_report_timeout_ms),
            slow_bowling_limit_s: int(r.slow_bowling_limit_s),
            foul_lamp_ms: int(r.foul_lamp_ms),
            foul_mode: Some(name_of(&FOUL_MODES, &r.foul_mode).to_owned()),
            min_cycle_ms: int(r.min_cycle_ms),
            foul_window_ms: r.foul_window_ms.and_then(int),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_key_is_within_two_edits() {
        assert_eq!(closest("pinn", &["pin", "pull"]), Some("pin"));
        assert_eq!(closest("debounce", &["debounce_ms"]), None);
        assert_eq!(
            closest("sesion_hour", &["session_hours", "listen"]),
            Some("session_hours")
        );
    }
}

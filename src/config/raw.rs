//! The file as written: the keys the lane knows and the type of each,
//! walked before deserializing so every unknown key and wrong type is
//! reported by its full path; the serde structs the file is read into; and
//! where a key is in the text, for the messages' line and column.
//!
//! It decides which keys exist; it never judges a value (see `validate`)
//! and never supplies a default (see `defaults`).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::problem::Problem;
use super::validated::toml_key;

// ---------------------------------------------------------------------------
// Step 1a: the known keys, walked before deserializing
// ---------------------------------------------------------------------------

/// What a key holds.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    Int,
    /// A float; an integer is accepted (`volume = 1`).
    Float,
    Str,
    Bool,
    /// A table with these keys.
    Table(&'static [(&'static str, Kind)]),
    /// A list of such tables (`[[name]]`).
    Tables(&'static [(&'static str, Kind)]),
    /// A list of whole numbers (`[6, 8]`).
    Ints,
    /// A string or a whole number (`"A0"` or `17`), judged in `validate`.
    StrOrInt,
    /// A list of strings or whole numbers (`["A0", 17]`).
    StrOrInts,
    /// Lane numbers: a list (`[1, 2, 5]`) or ranges in a string
    /// (`"1-24, 30"`), judged where it is read.
    Lanes,
}

impl Kind {
    fn describe(self) -> &'static str {
        match self {
            Kind::Int => "a whole number",
            Kind::Float => "a number",
            Kind::Str => "a string in quotes",
            Kind::Bool => "true or false",
            Kind::Table(_) => "a table",
            Kind::Tables(_) => "a list of tables ([[...]])",
            Kind::Ints => "a list of whole numbers ([6, 8])",
            Kind::StrOrInt => "an expander pin in quotes (\"A0\") or a BCM GPIO number",
            Kind::StrOrInts => "a list of expander pins (\"A0\") or BCM GPIO numbers",
            Kind::Lanes => "a list of lane numbers ([1, 2, 5]) or ranges in quotes (\"1-24, 30\")",
        }
    }
}

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

const INPUT: &[(&str, Kind)] = &[
    ("pin", Kind::Int),
    ("pull", Kind::Str),
    ("active", Kind::Str),
    ("debounce_ms", Kind::Int),
];
const LAMP: &[(&str, Kind)] = &[("pin", Kind::Int), ("active", Kind::Str)];
const PULSE: &[(&str, Kind)] = &[
    ("pin", Kind::Int),
    ("active", Kind::Str),
    ("pulse_ms", Kind::Int),
];
/// The rail buttons the lane acts on (`Lane::button` refuses any other
/// name), so a misspelt button is a problem here rather than a press the
/// lane refuses during a game.
pub const BUTTONS: [&str; 2] = ["repeat", "score"];
const BUTTON_TABLES: &[(&str, Kind)] = &[
    (BUTTONS[0], Kind::Table(INPUT)),
    (BUTTONS[1], Kind::Table(INPUT)),
];
pub(super) const RULES: &[(&str, Kind)] = &[
    ("ball_break_max_ms", Kind::Int),
    ("typical_travel_ms", Kind::Int),
    ("max_travel_ms", Kind::Int),
    ("pin_report_timeout_ms", Kind::Int),
    ("slow_bowling_limit_s", Kind::Int),
    ("foul_lamp_ms", Kind::Int),
    ("foul_mode", Kind::Str),
    ("min_cycle_ms", Kind::Int),
];
const SWITCHES: &[(&str, Kind)] = &[
    ("pins", Kind::StrOrInts),
    ("bus", Kind::Int),
    ("address", Kind::Int),
    ("interrupt", Kind::Int),
    ("active", Kind::Str),
    ("pull", Kind::Str),
    ("cycle", Kind::StrOrInt),
    ("cycle_active", Kind::Str),
    ("poll_ms", Kind::Int),
    ("debounce_ms", Kind::Int),
    ("settle_ms", Kind::Int),
    ("max_settle_ms", Kind::Int),
    ("flicker_changes", Kind::Int),
];
pub(super) const ROOT: &[(&str, Kind)] = &[
    ("lane", Kind::Int),
    ("state_dir", Kind::Str),
    ("journal", Kind::Table(&[("mirror", Kind::Str)])),
    (
        "pinsetter",
        Kind::Table(&[
            ("port", Kind::Str),
            ("baud", Kind::Int),
            ("reconnect_min_ms", Kind::Int),
            ("reconnect_max_ms", Kind::Int),
            ("kind", Kind::Str),
            ("switches", Kind::Table(SWITCHES)),
        ]),
    ),
    (
        "gpio",
        Kind::Table(&[
            ("backend", Kind::Str),
            (
                "inputs",
                Kind::Table(&[
                    ("foul_beam", Kind::Table(INPUT)),
                    ("ball", Kind::Table(INPUT)),
                    ("channel_left", Kind::Table(INPUT)),
                    ("channel_right", Kind::Table(INPUT)),
                ]),
            ),
            ("buttons", Kind::Table(BUTTON_TABLES)),
            (
                "outputs",
                Kind::Table(&[
                    ("foul_lamp", Kind::Table(LAMP)),
                    ("pinsetter_reset", Kind::Table(PULSE)),
                ]),
            ),
        ]),
    ),
    (
        "speaker",
        Kind::Table(&[
            ("enabled", Kind::Bool),
            ("device", Kind::Str),
            ("volume", Kind::Float),
            ("language", Kind::Str),
            ("stale_after_ms", Kind::Int),
            ("voice_dir", Kind::Str),
            ("extras", Kind::Bool),
        ]),
    ),
    (
        "web",
        Kind::Table(&[
            ("listen", Kind::Str),
            ("judge_pin_hash", Kind::Str),
            ("session_hours", Kind::Int),
            ("max_connections", Kind::Int),
            ("max_live_views", Kind::Int),
            ("tls_cert", Kind::Str),
            ("tls_key", Kind::Str),
            ("session_idle_s", Kind::Int),
            ("lockout_after", Kind::Int),
            ("lockout_base_s", Kind::Int),
            ("lockout_max_s", Kind::Int),
            ("event", Kind::Str),
            (
                "judges",
                Kind::Tables(&[("name", Kind::Str), ("pin_hash", Kind::Str)]),
            ),
        ]),
    ),
    ("rules", Kind::Table(RULES)),
    (
        "centre",
        Kind::Table(&[
            ("broker", Kind::Str),
            ("site", Kind::Str),
            ("username", Kind::Str),
            ("password_file", Kind::Str),
            ("ca_file", Kind::Str),
            ("accept_commands", Kind::Bool),
            ("neighbours", Kind::Ints),
        ]),
    ),
];

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        toml_key(key)
    } else {
        format!("{prefix}.{}", toml_key(key))
    }
}

/// Reports every key of `table` not in `fields`, and every value of the
/// wrong type, by its full path.
pub(crate) fn walk(
    table: &toml::Table,
    fields: &[(&str, Kind)],
    prefix: &str,
    out: &mut Vec<Problem>,
) {
    for (key, value) in table {
        let path = join(prefix, key);
        match fields.iter().find(|(name, _)| name == key) {
            Some(&(_, kind)) => check_kind(value, kind, &path, out),
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
        (Kind::Table(fields), V::Table(table)) => walk(table, fields, path, out),
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
        (Kind::Table(fields), other) if fields.iter().any(|(name, _)| *name == "pin") => {
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

fn unknown_key(key: &str, prefix: &str, fields: &[(&str, Kind)]) -> String {
    let names: Vec<&str> = fields.iter().map(|(name, _)| *name).collect();
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
    match closest(key, &names) {
        Some(near) => format!(
            "unknown key (did you mean `{near}`?); the keys {here} are: {}{hint}",
            names.join(", ")
        ),
        None => format!(
            "unknown key; the keys {here} are: {}{hint}",
            names.join(", ")
        ),
    }
}

/// The known key within two edits of a misspelt one.
fn closest<'a>(key: &str, names: &[&'a str]) -> Option<&'a str> {
    names
        .iter()
        .map(|name| (edit_distance(key, name), *name))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, name)| name)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != cb))
                .min(above + 1)
                .min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

// ---------------------------------------------------------------------------
// Step 1b: the raw file
// ---------------------------------------------------------------------------

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawConfig {
    pub(super) lane: Option<i64>,
    pub(super) state_dir: Option<String>,
    pub(super) journal: RawJournal,
    pub(super) pinsetter: RawPinsetter,
    pub(super) gpio: RawGpio,
    pub(super) speaker: RawSpeaker,
    pub(super) web: RawWeb,
    pub(super) rules: RawRules,
    pub(super) centre: Option<RawCentre>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawCentre {
    pub(super) broker: Option<String>,
    pub(super) site: Option<String>,
    pub(super) username: Option<String>,
    pub(super) password_file: Option<String>,
    pub(super) ca_file: Option<String>,
    pub(super) accept_commands: Option<bool>,
    pub(super) neighbours: Vec<i64>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawJournal {
    pub(super) mirror: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawPinsetter {
    pub(super) port: Option<String>,
    pub(super) baud: Option<i64>,
    pub(super) reconnect_min_ms: Option<i64>,
    pub(super) reconnect_max_ms: Option<i64>,
    pub(super) kind: Option<String>,
    pub(super) switches: Option<RawSwitches>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawSwitches {
    pub(super) pins: Option<Vec<toml::Value>>,
    pub(super) bus: Option<i64>,
    pub(super) address: Option<i64>,
    pub(super) interrupt: Option<i64>,
    pub(super) active: Option<String>,
    pub(super) pull: Option<String>,
    pub(super) cycle: Option<toml::Value>,
    pub(super) cycle_active: Option<String>,
    pub(super) poll_ms: Option<i64>,
    pub(super) debounce_ms: Option<i64>,
    pub(super) settle_ms: Option<i64>,
    pub(super) max_settle_ms: Option<i64>,
    pub(super) flicker_changes: Option<i64>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawGpio {
    pub(super) backend: Option<String>,
    pub(super) inputs: RawInputs,
    pub(super) buttons: BTreeMap<String, RawInput>,
    pub(super) outputs: RawOutputs,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawInputs {
    pub(super) foul_beam: Option<RawInput>,
    pub(super) ball: Option<RawInput>,
    pub(super) channel_left: Option<RawInput>,
    pub(super) channel_right: Option<RawInput>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawInput {
    pub(super) pin: Option<i64>,
    pub(super) pull: Option<String>,
    pub(super) active: Option<String>,
    pub(super) debounce_ms: Option<i64>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawOutputs {
    pub(super) foul_lamp: Option<RawLamp>,
    pub(super) pinsetter_reset: Option<RawPulse>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawLamp {
    pub(super) pin: Option<i64>,
    pub(super) active: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawPulse {
    pub(super) pin: Option<i64>,
    pub(super) active: Option<String>,
    pub(super) pulse_ms: Option<i64>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawSpeaker {
    pub(super) enabled: Option<bool>,
    pub(super) device: Option<String>,
    pub(super) volume: Option<f64>,
    pub(super) language: Option<String>,
    pub(super) stale_after_ms: Option<i64>,
    pub(super) voice_dir: Option<String>,
    /// Goes into the rules (`speaker_extras`): the journal's header must
    /// carry it, as it changes the callouts a replay gives.
    pub(super) extras: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawWeb {
    pub(super) listen: Option<String>,
    pub(super) judge_pin_hash: Option<String>,
    pub(super) session_hours: Option<i64>,
    pub(super) max_connections: Option<i64>,
    pub(super) max_live_views: Option<i64>,
    pub(super) tls_cert: Option<String>,
    pub(super) tls_key: Option<String>,
    pub(super) session_idle_s: Option<i64>,
    pub(super) lockout_after: Option<i64>,
    pub(super) lockout_base_s: Option<i64>,
    pub(super) lockout_max_s: Option<i64>,
    pub(super) event: Option<String>,
    pub(super) judges: Vec<RawJudge>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RawJudge {
    pub(super) name: Option<String>,
    pub(super) pin_hash: Option<String>,
}

/// [`Rules`]' fields as options, so `[rules]` denies unknown keys (Rules
/// itself ignores them, for journals from newer versions) and a missing key
/// takes `Rules::default()`'s value.
#[derive(Deserialize, Default)]
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
}

// ---------------------------------------------------------------------------
// Where a key is written, for the messages' line and column
// ---------------------------------------------------------------------------

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
    let offset = found?;
    let before = text.get(..offset)?;
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Some((line, column))
}

/// A key path's parts as [`join`] and the walk write them: each name
/// (unquoted) with its `[n]` index, if any.
fn key_parts(key: &str) -> Vec<(String, Option<usize>)> {
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

/// Removes `a.b.c` from a table, if it is there.
pub(super) fn remove_key(table: &mut toml::Table, key: &str) {
    match key.split_once('.') {
        None => {
            table.remove(key);
        }
        Some((head, rest)) => {
            if let Some(toml::Value::Table(inner)) = table.get_mut(head) {
                remove_key(inner, rest);
            }
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("pinn", "pin"), 1);
        assert_eq!(edit_distance("debounce", "debounce_ms"), 3);
        assert_eq!(closest("pinn", &["pin", "pull"]), Some("pin"));
    }
}

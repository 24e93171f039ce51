//! Reading a file: the one way lanecall reads its TOML files (the lane's
//! config, the centre's config, the competition's programme). The text is
//! read, parsed as TOML (a syntax error keeps toml's line and column),
//! walked against the file's known keys (every unknown key, with the
//! nearest known one, and every wrong type, by its full path), deserialized
//! into the raw structs and checked; every problem is placed at its line
//! and column in the file.
//!
//! It decides the order of the steps and how problems are reported
//! together; it never checks a value itself.

use std::path::Path;

use serde::de::DeserializeOwned;

use super::collect::{line_column, position};
use super::keys::Key;
use super::problem::{ConfigError, Problem};
use super::raw::{ROOT, RawConfig, remove_key, unknown_key_among, walk};
use super::validated::Config;

/// Reads the file at `path` and checks its text with `parse`: every file
/// lanecall reads its settings from goes through here, so that one that
/// cannot be read is reported the same way.
pub(crate) fn load_file<T>(
    path: &Path,
    parse: impl FnOnce(&str, &Path) -> Result<T, ConfigError>,
) -> Result<T, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })?;
    parse(&text, path)
}

/// toml's error for `path`: not TOML, or (for a file whose shape serde
/// checks) a value serde refuses; toml's message names the line and
/// column.
pub(crate) fn syntax_error(path: &Path, e: &toml::de::Error) -> ConfigError {
    ConfigError::Syntax {
        path: path.to_owned(),
        message: e.to_string().trim_end().to_owned(),
    }
}

/// A file whose shape serde checks (the programme): an unknown key, which
/// serde names with the keys it expected, is a problem worded and placed
/// as the walk's are; any other error is toml's ([`syntax_error`]).
pub(crate) fn serde_error(path: &Path, text: &str, e: &toml::de::Error) -> ConfigError {
    let unknown = e
        .message()
        .strip_prefix("unknown field `")
        .and_then(|rest| {
            let (key, rest) = rest.split_once('`')?;
            let names: Vec<&str> = rest
                .strip_prefix(", expected one of ")
                .or_else(|| rest.strip_prefix(", expected "))?
                .split(", ")
                .flat_map(|n| n.split(" or "))
                .map(|n| n.trim_matches('`'))
                .collect();
            Some((key, names))
        });
    match (unknown, e.span()) {
        (Some((key, names)), Some(span)) => ConfigError::Invalid {
            path: path.to_owned(),
            problems: vec![Problem {
                key: key.to_owned(),
                message: unknown_key_among(key, &names, "there"),
                at: line_column(text, span.start),
            }],
        },
        _ => syntax_error(path, e),
    }
}

/// `text` checked as a file of the keys `fields`, read into `R` and made a
/// `T` by `check`, every problem at once: the unknown keys and wrong types
/// the walk finds, and with them what `check` finds in the rest of the
/// file; each placed at its line and column. `path` only names the file.
pub(crate) fn parse_checked<R: DeserializeOwned, T>(
    text: &str,
    path: &Path,
    fields: &[Key],
    check: impl Fn(R) -> Result<T, Vec<Problem>>,
) -> Result<T, ConfigError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| syntax_error(path, &e))?;
    let located = |mut problems: Vec<Problem>| {
        for p in &mut problems {
            if p.at.is_none() {
                p.at = position(text, &p.key);
            }
        }
        ConfigError::Invalid {
            path: path.to_owned(),
            problems,
        }
    };
    let mut problems = Vec::new();
    walk(&table, fields, "", &mut problems);
    if problems.is_empty() {
        // The walk has checked every key and type, so this fails only
        // if the walk and the raw structs disagree; toml's message then
        // still names the key and its line.
        let raw: R = toml::from_str(text).map_err(|e| syntax_error(path, &e))?;
        return check(raw).map_err(located);
    }
    // Report the values' problems too, in the same run: check the file
    // again without the keys already reported, and add what that finds
    // about other keys.
    let mut rest = table;
    for p in &problems {
        remove_key(&mut rest, &p.key);
    }
    if let Ok(raw) = toml::Value::Table(rest).try_into::<R>()
        && let Err(more) = check(raw)
    {
        for m in more {
            let reported = problems
                .iter()
                .any(|p| m.key == p.key || m.key.starts_with(&format!("{}.", p.key)));
            if !reported {
                problems.push(m);
            }
        }
    }
    Err(located(problems))
}

impl Config {
    /// Reads and validates the file at `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        load_file(path, Config::parse)
    }

    /// Validates `text`; `path` only names the file in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        parse_checked(text, path, ROOT, RawConfig::validate)
    }

    /// Every key of the lane's file, with what it holds and its default,
    /// as a Markdown table (docs/config.md).
    pub fn key_table() -> String {
        super::keys::key_table(ROOT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Entry {
        name: String,
        region: String,
    }

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct File {
        entry: Vec<Entry>,
    }

    #[test]
    fn an_unknown_key_of_a_serde_file_is_named_as_in_the_configs() {
        let text = "[[entry]]\nname = \"A\"\nregoin = \"T\"\n";
        let e = toml::from_str::<File>(text).unwrap_err();
        let ConfigError::Invalid { problems, .. } = serde_error(Path::new("p.toml"), text, &e)
        else {
            panic!("{e}");
        };
        assert_eq!(
            problems.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "regoin: unknown key (did you mean `region`?); the keys there are: name, region \
              (line 3, column 1)"
            ]
        );
        let wrong = "[[entry]]\nname = 5\nregion = \"T\"\n";
        let e = toml::from_str::<File>(wrong).unwrap_err();
        assert!(matches!(
            serde_error(Path::new("p.toml"), wrong, &e),
            ConfigError::Syntax { .. }
        ));
    }
}

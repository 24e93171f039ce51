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

use super::keys::Key;
use super::problem::{ConfigError, Problem};
use super::raw::{ROOT, RawConfig, position, remove_key, walk};
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

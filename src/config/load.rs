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

use super::collect::{key_parts, line_column, position};
use super::keys::Key;
use super::problem::{ConfigError, Problem};
use super::raw::{RawConfig, join, root, root_defaults, unknown_key_among, walk};
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
    let walked = problems.len();
    let Some(raw) = read::<R>(text, path, &mut problems)? else {
        return Err(located(problems));
    };
    if problems.is_empty() {
        return check(raw).map_err(located);
    }
    // Report the values' problems too, in the same run: the file was
    // read without the keys already reported, and what the check finds
    // about other keys is added. A value a struct's field refused goes
    // with the check's problems, where its table's are.
    let refused = problems.split_off(walked);
    let mut more = check(raw).err().unwrap_or_default();
    more.splice(0..0, refused);
    for m in more {
        let reported = problems
            .iter()
            .any(|p| m.key == p.key || m.key.starts_with(&format!("{}.", p.key)));
        if !reported {
            problems.push(m);
        }
    }
    Err(located(problems))
}

/// `text` read into `R` without the keys already reported in
/// `problems`: each value a field refuses (a validating type's range, a
/// path that must be absolute) is a problem at its key, pushed, and the
/// file is read again without it, so every such value is reported at
/// once. `None` when a reported key cannot be left out (inside a list).
fn read<R: DeserializeOwned>(
    text: &str,
    path: &Path,
    problems: &mut Vec<Problem>,
) -> Result<Option<R>, ConfigError> {
    use toml::de::DeTable;
    let mut removed: Vec<String> = problems.iter().map(|p| p.key.clone()).collect();
    loop {
        let mut doc = DeTable::parse(text).map_err(|e| syntax_error(path, &e))?;
        for key in &removed {
            remove_key(doc.get_mut(), key);
        }
        let e = match R::deserialize(toml::Deserializer::from(doc)) {
            Ok(raw) => return Ok(Some(raw)),
            Err(e) => e,
        };
        let doc = DeTable::parse(text).map_err(|e| syntax_error(path, &e))?;
        let key = e
            .span()
            .and_then(|span| key_at(doc.get_ref(), span.start, ""));
        match key {
            Some(key) if removed.contains(&key) => return Ok(None),
            Some(key) => {
                problems.push(Problem::new(key.clone(), e.message()));
                removed.push(key);
            }
            // Only if the walk and the structs disagree; toml's message
            // then still names the key and its line.
            None if removed.is_empty() => return Err(syntax_error(path, &e)),
            None => return Ok(None),
        }
    }
}

/// The key path (as the walk writes it) of the value at byte `offset`.
fn key_at(table: &toml::de::DeTable, offset: usize, prefix: &str) -> Option<String> {
    use toml::de::DeValue;
    for (k, v) in table {
        let path = join(prefix, k.get_ref());
        match v.get_ref() {
            DeValue::Table(t) => {
                if let Some(found) = key_at(t, offset, &path) {
                    return Some(found);
                }
            }
            DeValue::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let at = format!("{path}[{}]", i + 1);
                    match item.get_ref() {
                        DeValue::Table(t) => {
                            if let Some(found) = key_at(t, offset, &at) {
                                return Some(found);
                            }
                        }
                        _ if item.span().contains(&offset) => return Some(at),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        if v.span().contains(&offset) {
            return Some(path);
        }
    }
    None
}

/// Removes the key `a.b.c` from a document, if it is there (not inside a
/// list).
fn remove_key(table: &mut toml::de::DeTable, key: &str) {
    use toml::de::DeValue;
    let parts = key_parts(key);
    let Some(((last, None), heads)) = parts.split_last() else {
        return;
    };
    let mut table = table;
    for (name, index) in heads {
        let Some(DeValue::Table(inner)) = table.get_mut(name.as_str()).map(|v| v.get_mut()) else {
            return;
        };
        if index.is_some() {
            return;
        }
        table = inner;
    }
    table.remove(last.as_str());
}

impl Config {
    /// Reads and validates the file at `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        load_file(path, Config::parse)
    }

    /// Validates `text`; `path` only names the file in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        parse_checked(text, path, root(), RawConfig::validate)
    }

    /// Every key of the lane's file, with what it holds and its default,
    /// as a Markdown table (docs/config.md).
    pub fn key_table() -> String {
        super::keys::key_table(root(), &root_defaults())
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

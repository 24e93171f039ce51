//! Reading a file: the text through the walk of the known keys, the raw
//! structs and their validation, every problem found on the way together.
//!
//! It decides the order of the steps and how problems are reported
//! together; it never checks a value itself.

use std::path::Path;

use super::problem::{ConfigError, Problem};
use super::raw::{ROOT, RawConfig, position, remove_key, walk};
use super::validated::Config;

impl Config {
    /// Reads and validates the file at `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        Config::parse(&text, path)
    }

    /// Validates `text`; `path` only names the file in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let syntax = |e: toml::de::Error| ConfigError::Syntax {
            path: path.to_owned(),
            message: e.to_string().trim_end().to_owned(),
        };
        let invalid = |problems| ConfigError::Invalid {
            path: path.to_owned(),
            problems,
        };

        let table: toml::Table = toml::from_str(text).map_err(syntax)?;
        let located = |mut problems: Vec<Problem>| {
            for p in &mut problems {
                p.at = position(text, &p.key);
            }
            invalid(problems)
        };
        let mut problems = Vec::new();
        walk(&table, ROOT, "", &mut problems);
        if problems.is_empty() {
            // The walk has checked every key and type, so this fails only
            // if the walk and the raw structs disagree; toml's message then
            // still names the key and its line.
            let raw: RawConfig = toml::from_str(text).map_err(syntax)?;
            return raw.validate().map_err(located);
        }
        // Report the values' problems too, in the same run: check the file
        // again without the keys already reported, and add what that finds
        // about other keys.
        let mut rest = table;
        for p in &problems {
            remove_key(&mut rest, &p.key);
        }
        if let Ok(raw) = toml::Value::Table(rest).try_into::<RawConfig>()
            && let Err(more) = raw.validate()
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
}

//! What is wrong with a configuration file: the error
//! [`Config::load`](super::Config::load) gives, and each problem by its
//! key, message and place in the file, as `lanecall check-config` and the
//! daemon's start print them.
//!
//! It decides how a problem is shown; it never finds one.

use std::fmt;
use std::path::{Path, PathBuf};

/// Why a configuration file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Not TOML; the message is toml's, with the line and column.
    #[error("{}: {message}", .path.display())]
    Syntax { path: PathBuf, message: String },
    /// TOML, but with unknown keys, values of the wrong type or values that
    /// cannot work: every one of them.
    #[error("{}: {} problem(s):\n{}", .path.display(), .problems.len(), list(.problems))]
    Invalid {
        path: PathBuf,
        problems: Vec<Problem>,
    },
}

fn list(problems: &[Problem]) -> String {
    let lines: Vec<String> = problems.iter().map(|p| format!("  {p}")).collect();
    lines.join("\n")
}

/// One thing wrong in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The key's full path, e.g. `gpio.outputs.foul_lamp.pin`.
    pub key: String,
    /// What is wrong and what to do.
    pub message: String,
    /// Where the key is in the file, line and column from 1; for a
    /// missing key, where its table is. `None` when neither is written.
    pub at: Option<(usize, usize)>,
}

impl Problem {
    pub(crate) fn new(key: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            key: key.into(),
            message: message.into(),
            at: None,
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.message)?;
        if let Some((line, column)) = self.at {
            write!(f, " (line {line}, column {column})")?;
        }
        Ok(())
    }
}

/// The one check of a path that must be absolute (`state_dir`, a mirror, a
/// password or CA file, the centre's files): the daemon's working directory
/// is not the technician's (under systemd it is /), so a relative path
/// would land somewhere nobody looks. `example` is the key written as it
/// should be, e.g. `state_dir = "/var/lib/lanecall"`.
pub(crate) fn absolute_path(key: &str, value: &str, example: &str) -> Result<PathBuf, Problem> {
    if Path::new(value).is_absolute() {
        return Ok(PathBuf::from(value));
    }
    Err(Problem::new(
        key,
        format!(
            "{value:?} is not an absolute path: the daemon does not run where you are; \
             write it from the root, e.g. {example}"
        ),
    ))
}

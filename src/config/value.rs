//! The validating value types of the config's tables, each a serde `with`
//! module: it reads a key's value, refuses one that cannot work with the
//! message the technician reads (the loader puts the key and its line in
//! front), and writes it back as the file has it. A table's struct so
//! holds usable values (a [`Duration`], an absolute path) straight from
//! the file, and the same struct prints the effective config.
//!
//! It decides how one value is read and written; which keys use which is
//! the tables' business.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A whole number of milliseconds from `MIN` to `MAX`, as a [`Duration`]:
/// `#[serde(with = "Millis::<1, 600_000>")]`.
pub(crate) struct Millis<const MIN: u64, const MAX: u64>;

impl<const MIN: u64, const MAX: u64> Millis<MIN, MAX> {
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let ms = i64::deserialize(d)?;
        match u64::try_from(ms) {
            Ok(ms) if (MIN..=MAX).contains(&ms) => Ok(Duration::from_millis(ms)),
            _ => Err(D::Error::custom(format!(
                "{ms} is out of range: use {MIN} to {MAX} milliseconds"
            ))),
        }
    }

    pub(crate) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        u64::try_from(d.as_millis())
            .unwrap_or(u64::MAX)
            .serialize(s)
    }
}

/// One of the named values of `choices`, or the message listing them.
pub(crate) fn choice<T: Copy>(value: &str, choices: &[(&str, T)]) -> Result<T, String> {
    match choices.iter().find(|(name, _)| *name == value) {
        Some(&(_, v)) => Ok(v),
        None => {
            let names: Vec<String> = choices
                .iter()
                .map(|(name, _)| format!("{name:?}"))
                .collect();
            Err(format!("{value:?} is not one of {}", names.join(", ")))
        }
    }
}

/// An absolute path, or none when the key is left out; `empty` is what
/// an empty one is told, `example` the key written as it should be.
pub(crate) fn absolute<'de, D: Deserializer<'de>>(
    d: D,
    empty: &str,
    example: &str,
) -> Result<Option<PathBuf>, D::Error> {
    let Some(path) = Option::<String>::deserialize(d)? else {
        return Ok(None);
    };
    if path.trim().is_empty() {
        return Err(D::Error::custom(format!("is empty: {empty}")));
    }
    if !Path::new(&path).is_absolute() {
        return Err(D::Error::custom(format!(
            "{path:?} is not an absolute path: the daemon does not run where you are; \
             write it from the root, e.g. {example}"
        )));
    }
    Ok(Some(PathBuf::from(path)))
}

/// The shortest `f64` that reads back as the same `f32`: 0.8, not
/// 0.800000011920929.
pub(crate) fn shortest(v: f32) -> f64 {
    match format!("{v:?}").parse::<f64>() {
        Ok(short) if short as f32 == v => short,
        _ => f64::from(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_written_short_and_read_back_the_same() {
        for v in [0.0f32, 0.8, 1.0, 1.7, 2.0, 0.333_333_34] {
            assert_eq!(shortest(v) as f32, v, "{v}");
        }
        assert_eq!(shortest(0.8), 0.8);
    }

    #[derive(serde::Deserialize, serde::Serialize, Debug)]
    struct Wait {
        #[serde(with = "Millis::<10, 20>")]
        wait_ms: Duration,
    }

    #[test]
    fn milliseconds_out_of_range_are_refused_with_the_range() {
        let wait: Wait = toml::from_str("wait_ms = 15").unwrap();
        assert_eq!(wait.wait_ms, Duration::from_millis(15));
        assert_eq!(toml::to_string(&wait).unwrap(), "wait_ms = 15\n");
        for (text, message) in [
            (
                "wait_ms = 9",
                "9 is out of range: use 10 to 20 milliseconds",
            ),
            (
                "wait_ms = -1",
                "-1 is out of range: use 10 to 20 milliseconds",
            ),
        ] {
            let e = toml::from_str::<Wait>(text).unwrap_err();
            assert_eq!(e.message(), message);
        }
    }
}

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

/// What a whole number counts, for [`Int`]: its name in the message
/// ("milliseconds") and the value the daemon uses.
pub(crate) trait Unit {
    const NAME: &'static str;
    type Value;
    fn from_count(n: u64) -> Self::Value;
    fn count(v: &Self::Value) -> u64;
}

/// A whole number from `MIN` to `MAX` counting `U`s, read as `U`'s value:
/// `#[serde(with = "Int::<Ms, 1, 600_000>")]`, or [`Millis`].
pub(crate) struct Int<U, const MIN: u64, const MAX: u64>(std::marker::PhantomData<U>);

impl<U: Unit, const MIN: u64, const MAX: u64> Int<U, MIN, MAX> {
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<U::Value, D::Error> {
        let n = i64::deserialize(d)?;
        match u64::try_from(n) {
            Ok(n) if (MIN..=MAX).contains(&n) => Ok(U::from_count(n)),
            _ => Err(D::Error::custom(format!(
                "{n} is out of range: use {MIN} to {MAX} {}",
                U::NAME
            ))),
        }
    }

    pub(crate) fn serialize<S: Serializer>(v: &U::Value, s: S) -> Result<S::Ok, S::Error> {
        i64::try_from(U::count(v)).unwrap_or(i64::MAX).serialize(s)
    }
}

/// Milliseconds from `MIN` to `MAX`, as a [`Duration`].
pub(crate) type Millis<const MIN: u64, const MAX: u64> = Int<Ms, MIN, MAX>;

macro_rules! units {
    ($($(#[$m:meta])* $unit:ident: $name:literal, $value:ty, |$n:ident| $from:expr, |$v:ident| $count:expr;)*) => {$(
        $(#[$m])*
        pub(crate) struct $unit;
        impl Unit for $unit {
            const NAME: &'static str = $name;
            type Value = $value;
            fn from_count($n: u64) -> $value {
                $from
            }
            fn count($v: &$value) -> u64 {
                $count
            }
        }
    )*};
}

units! {
    Ms: "milliseconds", Duration, |n| Duration::from_millis(n),
        |v| u64::try_from(v.as_millis()).unwrap_or(u64::MAX);
    Secs: "seconds", Duration, |n| Duration::from_secs(n), |v| v.as_secs();
    Hours: "hours", Duration, |n| Duration::from_secs(n * 3600), |v| v.as_secs() / 3600;
    Connections: "connections", usize, |n| n as usize, |v| *v as u64;
    /// `[web] lockout_after`.
    WrongPins: "wrong PINs", u32, |n| u32::try_from(n).unwrap_or(u32::MAX), |v| u64::from(*v);
    /// `[pinsetter.switches] bus`.
    I2cBus: "(/dev/i2c-N)", u8, |n| u8::try_from(n).unwrap_or(u8::MAX), |v| u64::from(*v);
    /// `[pinsetter.switches] address`.
    I2cAddress: "(0x20 to 0x27, set by the expander's A0-A2 pins)", u16,
        |n| u16::try_from(n).unwrap_or(u16::MAX), |v| u64::from(*v);
    /// The top's `lane`.
    LaneNumber: "(the lane number)", u32, |n| u32::try_from(n).unwrap_or(u32::MAX),
        |v| u64::from(*v);
    /// `[pinsetter.switches] flicker_changes`.
    Changes: "changes", u32, |n| u32::try_from(n).unwrap_or(u32::MAX), |v| u64::from(*v);
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

//! `[pinsetter]`: the pinsetter's serial line, or (`kind =
//! "pin_switches"`) its pin switches read directly; the table as the file
//! writes it and as the daemon uses it, one struct (each key a field with
//! its doc, its default in `Default`, its range or names in its type).
//!
//! It decides what the pinsetter's keys mean; it never opens a port.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::collect::Check;
use super::switches::SwitchesTable;
use super::value::Millis;

/// The pinsetter's serial line.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct PinsetterConfig {
    /// The serial device, e.g. `/dev/ttyUSB0`; never empty with a serial
    /// pinsetter (with pin switches it is not read, and left out empty).
    #[serde(skip_serializing_if = "is_empty")]
    pub port: PathBuf,
    /// One of [`BAUD_RATES`].
    #[serde(with = "baud")]
    pub baud: u32,
    /// First retry after the port is lost; above zero, so a lost port is
    /// never reopened in a spin.
    #[serde(rename = "reconnect_min_ms", with = "Millis::<1, 600_000>")]
    pub reconnect_min: Duration,
    /// The backoff doubles up to this; not below `reconnect_min`.
    #[serde(rename = "reconnect_max_ms", with = "Millis::<1, 600_000>")]
    pub reconnect_max: Duration,
    /// "serial", or "pin_switches" for a string pinsetter's switches
    /// read directly (`[pinsetter.switches]`).
    #[serde(rename = "kind", with = "kind")]
    pub(super) pin_switches: bool,
    /// `[pinsetter.switches]` as written; the validation moves it,
    /// checked, into `Config::switches`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) switches: Option<SwitchesTable>,
}

/// Every key's default, and no port (the file must name one).
impl Default for PinsetterConfig {
    fn default() -> Self {
        PinsetterConfig {
            port: PathBuf::new(),
            baud: 9600,
            reconnect_min: Duration::from_millis(500),
            reconnect_max: Duration::from_millis(10_000),
            pin_switches: false,
            switches: None,
        }
    }
}

/// The baud rates the pinsetter's serial line may use.
pub const BAUD_RATES: [u32; 8] = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200];

/// `[pinsetter] kind` as the file names it: `true` for pin switches.
const KINDS: [(&str, bool); 2] = [("serial", false), ("pin_switches", true)];

fn is_empty(port: &Path) -> bool {
    port.as_os_str().is_empty()
}

/// The table with its defaults for docs/config.md, with
/// `[pinsetter.switches]`' defaults (the table itself is none by default).
pub(super) fn documented() -> PinsetterConfig {
    PinsetterConfig {
        switches: Some(SwitchesTable::default()),
        ..PinsetterConfig::default()
    }
}

impl PinsetterConfig {
    /// What no one key's type can check: a serial pinsetter's port, the
    /// backoff's order. With pin switches the port is not read.
    pub(super) fn check(&self, c: &mut Check) -> bool {
        const WHAT: &str = "the pinsetter's serial device, e.g. port = \"/dev/ttyUSB0\" under \
                            [pinsetter] (or kind = \"pin_switches\" for a string pinsetter's \
                            switches)";
        let mut ok = true;
        if !self.pin_switches {
            if is_empty(&self.port) {
                c.push("pinsetter.port", format!("is missing: {WHAT}"));
                ok = false;
            } else if self.port.to_string_lossy().trim().is_empty() {
                c.push("pinsetter.port", format!("is empty: {WHAT}"));
                ok = false;
            }
        }
        if self.reconnect_min > self.reconnect_max {
            c.push(
                "pinsetter.reconnect_min_ms",
                format!(
                    "{} is above pinsetter.reconnect_max_ms ({}): the first retry cannot wait \
                     longer than the longest",
                    self.reconnect_min.as_millis(),
                    self.reconnect_max.as_millis()
                ),
            );
            ok = false;
        }
        ok
    }
}

mod baud {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    use super::BAUD_RATES;

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        let baud = i64::deserialize(d)?;
        match u32::try_from(baud) {
            Ok(b) if BAUD_RATES.contains(&b) => Ok(b),
            _ => {
                let rates: Vec<String> = BAUD_RATES.iter().map(u32::to_string).collect();
                Err(D::Error::custom(format!(
                    "{baud} is not a serial baud rate: use one of {} (the pinsetter's manual \
                     gives it; 9600 is usual)",
                    rates.join(", ")
                )))
            }
        }
    }

    pub(super) fn serialize<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(i64::from(*v))
    }
}

mod kind {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    use super::KINDS;

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        super::super::value::choice(&String::deserialize(d)?, &KINDS).map_err(D::Error::custom)
    }

    pub(super) fn serialize<S: Serializer>(v: &bool, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(super::super::keys::name_of(&KINDS, v))
    }
}

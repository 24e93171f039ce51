//! One wired input or output as the file writes it: `[gpio.inputs.<name>]`
//! and `[gpio.buttons.<name>]` ([`InputTable`]), `[gpio.outputs.foul_lamp]`
//! ([`LampTable`]) and `[gpio.outputs.pinsetter_reset]` ([`PulseTable`]).
//! Each key is a field with its doc and its check in its type; the
//! defaults (an input's pull, active level and debounce, an output's
//! level and pulse) are declared once, in the table's `Default`, which
//! both the reading and docs/config.md's table take.
//!
//! It decides what one input's or output's keys mean; which roles the
//! lane needs and that no two share a pin is `validate`'s.

use std::time::Duration;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::gpio::{BcmPin, LEVELS, PULLS, Pull, bcm_pin};
use super::keys::name_of;
use super::value::{Millis, choice};

/// An input: `[gpio.inputs.<name>]` or `[gpio.buttons.<name>]`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub(crate) struct InputTable {
    /// The BCM GPIO number the wire is on, 2 to 27; required.
    #[serde(with = "pin", skip_serializing_if = "Option::is_none")]
    pub(crate) pin: Option<BcmPin>,
    /// The pull resistor: "up", "down" or "off".
    #[serde(with = "pull")]
    pub(crate) pull: Pull,
    /// The level when active (beam broken, ball seen, button pressed).
    #[serde(rename = "active", with = "level")]
    pub(crate) active_high: bool,
    /// Kernel debounce.
    #[serde(rename = "debounce_ms", with = "Millis::<0, 1000>")]
    pub(crate) debounce: Duration,
}

impl Default for InputTable {
    fn default() -> Self {
        InputTable {
            pin: None,
            pull: Pull::Up,
            active_high: false,
            debounce: Duration::from_millis(5),
        }
    }
}

/// `[gpio.outputs.foul_lamp]`: on for `rules.foul_lamp_ms`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub(crate) struct LampTable {
    #[serde(with = "pin", skip_serializing_if = "Option::is_none")]
    pub(crate) pin: Option<BcmPin>,
    /// The level that switches the relay on.
    #[serde(rename = "active", with = "level")]
    pub(crate) active_high: bool,
}

impl Default for LampTable {
    fn default() -> Self {
        LampTable {
            pin: None,
            active_high: true,
        }
    }
}

/// `[gpio.outputs.pinsetter_reset]`: a pulse.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub(crate) struct PulseTable {
    #[serde(with = "pin", skip_serializing_if = "Option::is_none")]
    pub(crate) pin: Option<BcmPin>,
    /// The level that switches the relay on.
    #[serde(rename = "active", with = "level")]
    pub(crate) active_high: bool,
    /// How long a pulse holds the relay.
    #[serde(rename = "pulse_ms", with = "Millis::<10, 5000>")]
    pub(crate) pulse: Duration,
}

impl Default for PulseTable {
    fn default() -> Self {
        PulseTable {
            pin: None,
            active_high: true,
            pulse: Duration::from_millis(300),
        }
    }
}

pub(super) mod pin {
    use super::*;

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<BcmPin>, D::Error> {
        bcm_pin(i64::deserialize(d)?)
            .map(Some)
            .map_err(D::Error::custom)
    }

    pub(crate) fn serialize<S: Serializer>(v: &Option<BcmPin>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(pin) => s.serialize_u8(pin.number()),
            None => s.serialize_none(),
        }
    }
}

mod pull {
    use super::*;

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Pull, D::Error> {
        choice(&String::deserialize(d)?, &PULLS).map_err(D::Error::custom)
    }

    pub(super) fn serialize<S: Serializer>(v: &Pull, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(name_of(&PULLS, v))
    }
}

pub(super) mod level {
    use super::*;

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        choice(&String::deserialize(d)?, &LEVELS).map_err(D::Error::custom)
    }

    pub(crate) fn serialize<S: Serializer>(v: &bool, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(name_of(&LEVELS, v))
    }
}

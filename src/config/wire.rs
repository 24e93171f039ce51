//! `[gpio]` as the file writes it, one serde struct ([`GpioTable`]): the
//! backend, `[gpio.inputs]`, `[gpio.buttons]` and `[gpio.outputs]`, each
//! input or output one table: `[gpio.inputs.<name>]` and
//! `[gpio.buttons.<name>]` ([`InputTable`]), `[gpio.outputs.foul_lamp]`
//! ([`LampTable`]) and `[gpio.outputs.pinsetter_reset]` ([`PulseTable`]).
//! Each key is a field with its doc and its check in its type; the
//! defaults (an input's pull, active level and debounce, an output's
//! level and pulse) are declared once, in the table's `Default`, which
//! both the reading and docs/config.md's table take.
//! [`GpioTable::check`] makes the [`GpioConfig`] the sensors use (which
//! roles the lane needs, no two on one pin) and
//! [`GpioTable::from_config`] writes one back.
//!
//! It decides what the GPIO keys mean; it never opens a pin.

use std::time::Duration;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::collect::{Check, PIN_NEEDED};
use super::gpio::{
    BACKENDS, BcmPin, GpioBackend, GpioConfig, InputConfig, InputRole, LEVELS, OutputConfig, PULLS,
    Pull, bcm_pin, output_name,
};
use super::keys::name_of;
use super::value::{Millis, choice};
use crate::lane::Output;
use crate::lane::rules::Rules;

/// The rail buttons the lane acts on (`Lane::button` refuses any other
/// name), so a misspelt button is a problem here rather than a press the
/// lane refuses during a game: the fields of [`Buttons`], in their order.
pub const BUTTONS: [&str; 2] = ["repeat", "score"];

/// `[gpio]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub(crate) struct GpioTable {
    /// "rpi" (the Pi's GPIO header) or "none"; no default.
    #[serde(with = "backend", skip_serializing_if = "Option::is_none")]
    backend: Option<GpioBackend>,
    #[serde(skip_serializing_if = "Inputs::is_empty")]
    inputs: Inputs,
    #[serde(skip_serializing_if = "Buttons::is_empty")]
    buttons: Buttons,
    #[serde(skip_serializing_if = "Outputs::is_empty")]
    outputs: Outputs,
}

/// `[gpio.inputs]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
struct Inputs {
    #[serde(skip_serializing_if = "Option::is_none")]
    foul_beam: Option<InputTable>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ball: Option<InputTable>,
    #[serde(skip_serializing_if = "Option::is_none")]
    channel_left: Option<InputTable>,
    #[serde(skip_serializing_if = "Option::is_none")]
    channel_right: Option<InputTable>,
}

impl Inputs {
    fn is_empty(&self) -> bool {
        self == &Inputs::default()
    }
}

/// `[gpio.buttons]`: a table for each of [`BUTTONS`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
struct Buttons {
    #[serde(skip_serializing_if = "Option::is_none")]
    repeat: Option<InputTable>,
    #[serde(skip_serializing_if = "Option::is_none")]
    score: Option<InputTable>,
}

impl Buttons {
    fn is_empty(&self) -> bool {
        self == &Buttons::default()
    }

    /// Each button's slot with its name, in [`BUTTONS`]' order.
    fn slots(&mut self) -> [(&'static str, &mut Option<InputTable>); 2] {
        [
            (BUTTONS[0], &mut self.repeat),
            (BUTTONS[1], &mut self.score),
        ]
    }
}

/// `[gpio.outputs]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
struct Outputs {
    #[serde(skip_serializing_if = "Option::is_none")]
    foul_lamp: Option<LampTable>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pinsetter_reset: Option<PulseTable>,
}

impl Outputs {
    fn is_empty(&self) -> bool {
        self == &Outputs::default()
    }
}

/// The table with its defaults for docs/config.md: every input, button
/// and output with its defaults (each is left out by default).
pub(super) fn documented() -> GpioTable {
    let input = || Some(InputTable::default());
    GpioTable {
        backend: None,
        inputs: Inputs {
            foul_beam: input(),
            ball: input(),
            channel_left: input(),
            channel_right: input(),
        },
        buttons: Buttons {
            repeat: input(),
            score: input(),
        },
        outputs: Outputs {
            foul_lamp: Some(LampTable::default()),
            pinsetter_reset: Some(PulseTable::default()),
        },
    }
}

impl GpioTable {
    /// The GPIO setting the sensors use, or `None` with every problem in
    /// `c`: the backend named, the foul beam, the ball detector and both
    /// relays there with `backend = "rpi"`, every table with its pin, no
    /// pin twice, and the foul beam's debounce below
    /// `rules.ball_break_max_ms` (when the rules are usable).
    pub(super) fn check(mut self, c: &mut Check, rules: Option<&Rules>) -> Option<GpioConfig> {
        let backend = c.required(
            "gpio.backend",
            self.backend,
            "say where the sensors are: backend = \"rpi\" (the Pi's GPIO header) or \
             backend = \"none\" (no GPIO) under [gpio]",
        );

        let mut all_ok = true;
        let mut inputs = Vec::new();
        let fixed = [
            (
                InputRole::FoulBeam,
                self.inputs.foul_beam,
                true,
                "the foul-line beam",
            ),
            (InputRole::Ball, self.inputs.ball, true, "the ball detector"),
            (InputRole::ChannelLeft, self.inputs.channel_left, false, ""),
            (
                InputRole::ChannelRight,
                self.inputs.channel_right,
                false,
                "",
            ),
        ];
        let named = self
            .buttons
            .slots()
            .map(|(name, raw)| (InputRole::Button(name.to_owned()), raw.take(), false, ""));
        for (role, raw, required, what) in fixed.into_iter().chain(named) {
            match raw {
                Some(raw) => match input(c, role, raw) {
                    Some(input) => inputs.push(input),
                    None => all_ok = false,
                },
                None if required && backend == Some(GpioBackend::Rpi) => {
                    c.push(
                        role.config_key(),
                        format!(
                            "is missing: gpio.backend = \"rpi\" needs {what}: \
                             add [{}] with its pin",
                            role.config_key()
                        ),
                    );
                    all_ok = false;
                }
                None => {}
            }
        }

        let mut outputs = Vec::new();
        let lamp = self.outputs.foul_lamp.map(|raw| {
            output(
                c,
                Output::FoulLamp,
                raw.pin,
                raw.active_high,
                Duration::ZERO,
            )
        });
        let reset = self.outputs.pinsetter_reset.map(|raw| {
            output(
                c,
                Output::PinsetterReset,
                raw.pin,
                raw.active_high,
                raw.pulse,
            )
        });
        for (output, result, what) in [
            (Output::FoulLamp, lamp, "the foul lamp's relay"),
            (Output::PinsetterReset, reset, "the pinsetter reset's relay"),
        ] {
            match result {
                Some(Some(o)) => outputs.push(o),
                Some(None) => all_ok = false,
                None if backend == Some(GpioBackend::Rpi) => {
                    let key = format!("gpio.outputs.{}", output_name(output));
                    c.push(
                        &key,
                        format!(
                            "is missing: gpio.backend = \"rpi\" needs {what}: \
                             add [{key}] with its pin"
                        ),
                    );
                    all_ok = false;
                }
                None => {}
            }
        }

        // Every pin once: name the key that uses it first.
        let mut used: Vec<(BcmPin, String)> = Vec::new();
        let keyed = inputs
            .iter()
            .map(|i| (i.pin, format!("{}.pin", i.role.config_key())))
            .chain(
                outputs
                    .iter()
                    .map(|o| (o.pin, format!("gpio.outputs.{}.pin", output_name(o.output)))),
            );
        for (pin, key) in keyed {
            match used.iter().find(|(p, _)| *p == pin) {
                Some((_, first)) => {
                    c.push(
                        &key,
                        format!(
                            "{pin} is already used by {first}: each input and output needs its \
                             own GPIO"
                        ),
                    );
                    all_ok = false;
                }
                None => used.push((pin, key)),
            }
        }

        if let (Some(rules), Some(beam)) =
            (rules, inputs.iter().find(|i| i.role == InputRole::FoulBeam))
            && beam.debounce.as_millis() >= u128::from(rules.ball_break_max_ms)
        {
            c.push(
                "gpio.inputs.foul_beam.debounce_ms",
                format!(
                    "{} must be below rules.ball_break_max_ms ({}), or a ball crossing the line \
                     is filtered out",
                    beam.debounce.as_millis(),
                    rules.ball_break_max_ms
                ),
            );
            all_ok = false;
        }

        all_ok.then_some(())?;
        Some(GpioConfig {
            backend: backend?,
            inputs,
            outputs,
        })
    }

    /// The table that reads as `g`: what `check-config` prints.
    pub(super) fn from_config(g: &GpioConfig) -> GpioTable {
        let mut table = GpioTable {
            backend: Some(g.backend),
            ..GpioTable::default()
        };
        for input in &g.inputs {
            let written = InputTable {
                pin: Some(input.pin),
                pull: input.pull,
                active_high: input.active_high,
                debounce: input.debounce,
            };
            let slot = match &input.role {
                InputRole::FoulBeam => &mut table.inputs.foul_beam,
                InputRole::Ball => &mut table.inputs.ball,
                InputRole::ChannelLeft => &mut table.inputs.channel_left,
                InputRole::ChannelRight => &mut table.inputs.channel_right,
                InputRole::Button(name) => {
                    // A validated config holds only [`BUTTONS`].
                    if let Some((_, slot)) =
                        table.buttons.slots().into_iter().find(|(n, _)| n == name)
                    {
                        *slot = Some(written);
                    }
                    continue;
                }
            };
            *slot = Some(written);
        }
        for output in &g.outputs {
            let (pin, active_high) = (Some(output.pin), output.active_high);
            match output.output {
                Output::FoulLamp => table.outputs.foul_lamp = Some(LampTable { pin, active_high }),
                Output::PinsetterReset => {
                    table.outputs.pinsetter_reset = Some(PulseTable {
                        pin,
                        active_high,
                        pulse: output.pulse,
                    })
                }
            }
        }
        table
    }
}

/// One input, with its pin.
fn input(c: &mut Check, role: InputRole, raw: InputTable) -> Option<InputConfig> {
    let key = format!("{}.pin", role.config_key());
    let pin = c.required(&key, raw.pin, PIN_NEEDED)?;
    Some(InputConfig {
        role,
        pin,
        pull: raw.pull,
        active_high: raw.active_high,
        debounce: raw.debounce,
    })
}

/// One output, with its pin.
fn output(
    c: &mut Check,
    output: Output,
    pin: Option<BcmPin>,
    active_high: bool,
    pulse: Duration,
) -> Option<OutputConfig> {
    let key = format!("gpio.outputs.{}.pin", output_name(output));
    let pin = c.required(&key, pin, PIN_NEEDED)?;
    Some(OutputConfig {
        output,
        pin,
        active_high,
        pulse,
    })
}

mod backend {
    use super::*;

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<GpioBackend>, D::Error> {
        choice(&String::deserialize(d)?, &BACKENDS)
            .map(Some)
            .map_err(D::Error::custom)
    }

    pub(super) fn serialize<S: Serializer>(
        v: &Option<GpioBackend>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match v {
            Some(b) => s.serialize_str(name_of(&BACKENDS, b)),
            None => s.serialize_none(),
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_buttons_table_holds_the_buttons() {
        let names: Vec<&str> = super::super::shape::keys::<Buttons>()
            .iter()
            .map(|k| k.name)
            .collect();
        assert_eq!(names, BUTTONS);
    }
}

//! The GPIO part of a validated configuration: the backend, the inputs and
//! outputs by role, and [`BcmPin`], a pin number the header has.
//!
//! It decides what a usable GPIO setting holds; it never reads the file nor
//! opens a pin.

use std::fmt;
use std::time::Duration;

use super::keys::toml_key;
use crate::lane::Output;

/// Where the GPIO inputs and outputs are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpioBackend {
    /// The Raspberry Pi's GPIO header.
    Rpi,
    /// No GPIO (not a Pi, or a demo): inputs and outputs are not opened.
    None,
}

/// The GPIO inputs and outputs.
///
/// With [`GpioBackend::Rpi`] the inputs hold at least the foul beam and the
/// ball detector, and the outputs the foul lamp and the pinsetter reset.
/// With [`GpioBackend::None`] they may be empty, or hold what the file
/// lists (kept, so `check-config` shows them, but not opened). No two
/// entries share a pin. The default: no GPIO.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpioConfig {
    pub backend: GpioBackend,
    /// In the file's order: foul beam, ball, channel left, channel right,
    /// then the buttons by name.
    pub inputs: Vec<InputConfig>,
    /// Foul lamp, then pinsetter reset.
    pub outputs: Vec<OutputConfig>,
}

impl Default for GpioConfig {
    fn default() -> Self {
        GpioConfig {
            backend: GpioBackend::None,
            inputs: Vec::new(),
            outputs: Vec::new(),
        }
    }
}

impl GpioConfig {
    /// The input with this role, if configured.
    pub fn input(&self, role: &InputRole) -> Option<&InputConfig> {
        self.inputs.iter().find(|input| &input.role == role)
    }

    /// The output driving this, if configured.
    pub fn output(&self, output: Output) -> Option<&OutputConfig> {
        self.outputs.iter().find(|o| o.output == output)
    }
}

/// What a GPIO input tells the lane.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InputRole {
    /// The foul-line light beam: active while broken.
    FoulBeam,
    /// The ball detector behind the pins: active when a ball passes.
    Ball,
    /// The left channel (gutter) sensor.
    ChannelLeft,
    /// The right channel (gutter) sensor.
    ChannelRight,
    /// A rail button the bowler presses, by its name in the file
    /// (`[gpio.buttons.repeat]` is `Button("repeat")`); in a validated
    /// [`Config`] one of [`BUTTONS`](super::BUTTONS).
    Button(String),
}

impl InputRole {
    /// The input's table in the file, e.g. `gpio.inputs.foul_beam` or
    /// `gpio.buttons.repeat`, for messages that point the technician at it.
    pub fn config_key(&self) -> String {
        match self {
            InputRole::FoulBeam => "gpio.inputs.foul_beam".to_owned(),
            InputRole::Ball => "gpio.inputs.ball".to_owned(),
            InputRole::ChannelLeft => "gpio.inputs.channel_left".to_owned(),
            InputRole::ChannelRight => "gpio.inputs.channel_right".to_owned(),
            InputRole::Button(name) => format!("gpio.buttons.{}", toml_key(name)),
        }
    }
}

/// An input's pull resistor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pull {
    Up,
    Down,
    Off,
}

/// `[gpio] backend` as the file names it.
pub(crate) const BACKENDS: [(&str, GpioBackend); 2] =
    [("rpi", GpioBackend::Rpi), ("none", GpioBackend::None)];

/// An input's `pull` as the file names it.
pub(crate) const PULLS: [(&str, Pull); 3] =
    [("up", Pull::Up), ("down", Pull::Down), ("off", Pull::Off)];

/// An `active` level as the file names it: `true` for high.
pub(crate) const LEVELS: [(&str, bool); 2] = [("low", false), ("high", true)];

/// A GPIO input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputConfig {
    pub role: InputRole,
    pub pin: BcmPin,
    pub pull: Pull,
    /// The level when the input is active (beam broken, ball seen, button
    /// pressed): `true` for high, `false` for low.
    pub active_high: bool,
    /// Kernel debounce, 0..=1000 ms. The foul beam's is below
    /// `rules.ball_break_max_ms`, so a ball crossing the line is not
    /// filtered out.
    pub debounce: Duration,
}

/// A GPIO output driving a relay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputConfig {
    pub output: Output,
    pub pin: BcmPin,
    /// The level that switches the relay on: `true` for high.
    pub active_high: bool,
    /// How long a pulse holds the relay, 10..=5000 ms, for the pinsetter
    /// reset. Zero for the foul lamp, which is switched on and off (it
    /// stays on for `rules.foul_lamp_ms`).
    pub pulse: Duration,
}

/// A Broadcom GPIO number, 0..=27: the numbering `rppal` and the kernel
/// use, not the header's physical pin (see [`BcmPin::header_pin`]).
///
/// A validated [`Config`] never holds BCM 0 or 1: they are the HAT ID
/// EEPROM's I2C bus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BcmPin(u8);

/// The 40-pin header's physical pin for each BCM GPIO, indexed by BCM.
const HEADER_PINS: [u8; 28] = [
    27, 28, 3, 5, 7, 29, 31, 26, 24, 21, 19, 23, 32, 33, 8, 10, 36, 11, 12, 35, 38, 40, 15, 16, 18,
    22, 37, 13,
];

impl BcmPin {
    /// The pin for a BCM GPIO number, if it is one (0..=27).
    pub fn new(number: u8) -> Option<BcmPin> {
        (usize::from(number) < HEADER_PINS.len()).then_some(BcmPin(number))
    }

    /// The BCM GPIO number, as `rppal::gpio::Gpio::get` takes it.
    pub fn number(self) -> u8 {
        self.0
    }

    /// The physical pin on the 40-pin header (1..=40) where this GPIO is,
    /// for messages to the technician holding the wires.
    pub fn header_pin(self) -> u8 {
        HEADER_PINS[usize::from(self.0)]
    }

    /// The GPIO on this physical header pin, if it carries one.
    pub fn from_header_pin(header_pin: u8) -> Option<BcmPin> {
        HEADER_PINS
            .iter()
            .position(|&p| p == header_pin)
            .and_then(|bcm| u8::try_from(bcm).ok())
            .map(BcmPin)
    }
}

impl fmt::Display for BcmPin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BCM {} (header pin {})", self.0, self.header_pin())
    }
}

/// A BCM GPIO number a wire may be on (2 to 27), or what is wrong with
/// `n`: BCM 0 and 1 are the HAT ID EEPROM's, and a number above 27 is
/// likely the header's pin, named with its GPIO.
pub(crate) fn bcm_pin(n: i64) -> Result<BcmPin, String> {
    match n {
        0 | 1 => Err(format!(
            "BCM {n} is reserved for the HAT ID EEPROM (ID_SD/ID_SC): \
             move the wire to a free GPIO from 2 to 27"
        )),
        2..=27 => u8::try_from(n)
            .ok()
            .and_then(BcmPin::new)
            .ok_or_else(|| format!("{n} is not a BCM GPIO number")),
        _ => {
            let header = u8::try_from(n).ok().and_then(BcmPin::from_header_pin);
            let hint = match header {
                Some(bcm) if bcm.number() >= 2 => {
                    format!(
                        "; if the wire is on header pin {n}, that is BCM {}",
                        bcm.number()
                    )
                }
                _ => String::new(),
            };
            Err(format!(
                "{n} is not a BCM GPIO number: use 2 to 27 \
                 (the GPIO number, not the header pin){hint}"
            ))
        }
    }
}

/// An output's table name under `[gpio.outputs]`.
pub(crate) fn output_name(output: Output) -> &'static str {
    match output {
        Output::FoulLamp => "foul_lamp",
        Output::PinsetterReset => "pinsetter_reset",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_pins_match_the_pinout() {
        let pairs = [
            (2, 3),
            (3, 5),
            (4, 7),
            (17, 11),
            (27, 13),
            (22, 15),
            (10, 19),
            (9, 21),
            (11, 23),
            (0, 27),
            (5, 29),
            (6, 31),
            (13, 33),
            (19, 35),
            (26, 37),
            (14, 8),
            (15, 10),
            (18, 12),
            (23, 16),
            (24, 18),
            (25, 22),
            (8, 24),
            (7, 26),
            (1, 28),
            (12, 32),
            (16, 36),
            (20, 38),
            (21, 40),
        ];
        assert_eq!(pairs.len(), 28);
        for (bcm, header) in pairs {
            let pin = BcmPin::new(bcm).unwrap();
            assert_eq!(pin.header_pin(), header, "BCM {bcm}");
            assert_eq!(BcmPin::from_header_pin(header), Some(pin));
        }
        assert_eq!(BcmPin::new(28), None);
        assert_eq!(BcmPin::from_header_pin(1), None);
    }
}

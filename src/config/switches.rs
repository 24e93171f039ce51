//! `[pinsetter] kind` and `[pinsetter.switches]`: a string pinsetter's ten
//! pin switches (and its cycle signal) read directly, through an MCP23017
//! I2C expander or the Pi's own GPIO (see `crate::sensors::switches`).
//!
//! The types, their validation and their table in `check-config`'s output.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::collect::Check;
use super::gpio::{BcmPin, GpioConfig, Pull, output_name};
use super::keys::name_of;
use super::value::{Changes, I2cAddress, I2cBus, Int, Millis};
use super::wire::{level, pin};

/// Where one switch is wired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SwitchPin {
    /// An MCP23017 pin: 0..=7 are GPA0..GPA7 (`"A0"`), 8..=15 GPB0..GPB7.
    Expander(u8),
    /// A GPIO of the Pi.
    Gpio(BcmPin),
}

impl SwitchPin {
    /// As the file writes it: `"B3"` or `17`.
    pub fn to_toml(self) -> toml::Value {
        match self {
            SwitchPin::Expander(n) => toml::Value::String(self.name(n)),
            SwitchPin::Gpio(pin) => toml::Value::Integer(pin.number().into()),
        }
    }

    fn name(self, n: u8) -> String {
        format!("{}{}", if n < 8 { 'A' } else { 'B' }, n % 8)
    }
}

impl std::fmt::Display for SwitchPin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            SwitchPin::Expander(n) => write!(f, "expander {}", self.name(n)),
            SwitchPin::Gpio(pin) => write!(f, "GPIO {}", pin.number()),
        }
    }
}

/// `[pinsetter.switches] pull` as the file names it (`none`, where a GPIO
/// input's is `off`).
const SWITCH_PULLS: [(&str, Pull); 3] =
    [("up", Pull::Up), ("down", Pull::Down), ("none", Pull::Off)];

/// `[pinsetter.switches]` as the file writes it: each key a field with
/// its doc, its default in `Default`, its range or names in its type; the
/// pins and the cycle (expander pins or GPIOs, none taken twice) are
/// checked into a [`SwitchesConfig`] by `validate`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub(super) struct SwitchesTable {
    /// Pin 1 to pin 10's switches: expander pins (`"A0"`) or BCM GPIOs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pins: Option<Vec<toml::Value>>,
    /// The expander's I2C bus (`/dev/i2c-N`).
    #[serde(with = "Int::<I2cBus, 0, 22>")]
    bus: u8,
    /// The expander's address.
    #[serde(with = "Int::<I2cAddress, 0x20, 0x27>")]
    address: u16,
    /// The GPIO on the expander's INTA; none, the expander is polled.
    #[serde(with = "pin", skip_serializing_if = "Option::is_none")]
    interrupt: Option<BcmPin>,
    /// A standing pin's switch level.
    #[serde(with = "level")]
    active: bool,
    /// "up", "down" or "none".
    #[serde(with = "switch_pull")]
    pull: Pull,
    /// The machine's cycle signal, if wired.
    #[serde(skip_serializing_if = "Option::is_none")]
    cycle: Option<toml::Value>,
    /// The cycle signal's level while the machine cycles.
    #[serde(with = "level")]
    cycle_active: bool,
    #[serde(rename = "poll_ms", with = "Millis::<1, 1000>")]
    poll: Duration,
    #[serde(rename = "debounce_ms", with = "Millis::<0, 1000>")]
    debounce: Duration,
    #[serde(rename = "settle_ms", with = "Millis::<1, 10_000>")]
    settle: Duration,
    #[serde(rename = "max_settle_ms", with = "Millis::<1, 120_000>")]
    max_settle: Duration,
    /// Raw changes of one switch within one settling that make a flicker.
    #[serde(with = "Int::<Changes, 2, 1000>")]
    flicker_changes: u32,
}

impl Default for SwitchesTable {
    fn default() -> Self {
        SwitchesTable {
            pins: None,
            bus: 1,
            address: 0x20,
            interrupt: None,
            active: false,
            pull: Pull::Up,
            cycle: None,
            cycle_active: true,
            poll: Duration::from_millis(10),
            debounce: Duration::from_millis(20),
            settle: Duration::from_millis(600),
            max_settle: Duration::from_millis(8000),
            flicker_changes: 6,
        }
    }
}

mod switch_pull {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    use super::{Pull, SWITCH_PULLS};

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Pull, D::Error> {
        super::super::value::choice(&String::deserialize(d)?, &SWITCH_PULLS)
            .map_err(D::Error::custom)
    }

    pub(super) fn serialize<S: Serializer>(v: &Pull, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(super::name_of(&SWITCH_PULLS, v))
    }
}

/// `[pinsetter.switches]`, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwitchesConfig {
    /// Pin 1 to pin 10's switches, no two alike.
    pub pins: [SwitchPin; 10],
    /// The I2C bus (`/dev/i2c-N`) of the expander.
    pub bus: u8,
    /// The expander's address, 0x20..=0x27.
    pub address: u16,
    /// The GPIO on the expander's INTA; none, the expander is polled.
    pub interrupt: Option<BcmPin>,
    /// A standing pin's switch level: `true` for high.
    pub active_high: bool,
    pub pull: Pull,
    /// The machine's cycle signal, if wired.
    pub cycle: Option<SwitchPin>,
    /// The cycle signal's level while the machine cycles.
    pub cycle_active_high: bool,
    pub poll: Duration,
    pub debounce: Duration,
    pub settle: Duration,
    pub max_settle: Duration,
    /// Raw changes of one switch within one settling that make a flicker.
    pub flicker_changes: u32,
}

impl SwitchesConfig {
    /// Whether any switch (or the cycle) is on the expander.
    pub fn uses_expander(&self) -> bool {
        self.pins
            .iter()
            .chain(self.cycle.iter())
            .any(|p| matches!(p, SwitchPin::Expander(_)))
    }

    /// `[pinsetter.switches]` as the file writes it, for check-config's
    /// output.
    pub(super) fn to_raw(&self) -> SwitchesTable {
        SwitchesTable {
            pins: Some(self.pins.iter().map(|p| p.to_toml()).collect()),
            bus: self.bus,
            address: self.address,
            interrupt: self.interrupt,
            active: self.active_high,
            pull: self.pull,
            cycle: self.cycle.map(SwitchPin::to_toml),
            cycle_active: self.cycle_active_high,
            poll: self.poll,
            debounce: self.debounce,
            settle: self.settle,
            max_settle: self.max_settle,
            flicker_changes: self.flicker_changes,
        }
    }
}

/// `[pinsetter] kind` (`pin_switches`) and its switches: `Some(None)` for a serial
/// pinsetter, `Some(Some(..))` for pin switches, `None` on a problem.
pub(super) fn validate(
    c: &mut Check,
    pin_switches: bool,
    raw: Option<SwitchesTable>,
    gpio: Option<&GpioConfig>,
) -> Option<Option<SwitchesConfig>> {
    if !pin_switches {
        if raw.is_some() {
            c.push(
                "pinsetter.switches",
                "is only read with kind = \"pin_switches\" under [pinsetter]: set it, or \
                 remove [pinsetter.switches]",
            );
            return None;
        }
        return Some(None);
    }
    let Some(raw) = raw else {
        c.push(
            "pinsetter.switches",
            "is missing: kind = \"pin_switches\" needs [pinsetter.switches] with the ten pins",
        );
        return None;
    };
    raw.validate(c, gpio).map(Some)
}

impl SwitchesTable {
    fn validate(self, c: &mut Check, gpio: Option<&GpioConfig>) -> Option<SwitchesConfig> {
        const T: &str = "pinsetter.switches";
        let key = |name: &str| format!("{T}.{name}");
        let mut taken: Vec<(SwitchPin, String)> = Vec::new();
        let mut ok = true;
        let mut pins = Vec::new();
        match self.pins {
            None => {
                c.push(
                    key("pins"),
                    "is missing: the ten switches, pin 1 to pin 10, each an expander pin \
                     (\"A0\" to \"B7\") or a BCM GPIO number, e.g. pins = [\"A0\", \"A1\", …]",
                );
                ok = false;
            }
            Some(list) if list.len() != 10 => {
                c.push(
                    key("pins"),
                    format!(
                        "has {} entries: write ten, pin 1 to pin 10 in order",
                        list.len()
                    ),
                );
                ok = false;
            }
            Some(list) => {
                for (i, value) in list.iter().enumerate() {
                    let k = format!("{}[{}]", key("pins"), i + 1);
                    match switch_pin(c, &k, value, gpio, &mut taken) {
                        Some(p) => pins.push(p),
                        None => ok = false,
                    }
                }
            }
        }
        let cycle = match &self.cycle {
            None => Some(None),
            Some(v) => switch_pin(c, &key("cycle"), v, gpio, &mut taken).map(Some),
        };
        let interrupt = match self.interrupt {
            None => Some(None),
            Some(pin) => {
                taken_check(c, &key("interrupt"), SwitchPin::Gpio(pin), gpio, &mut taken)?;
                Some(Some(pin))
            }
        };
        let (settle, max_settle) = (Some(self.settle), Some(self.max_settle));
        if let (Some(s), Some(m)) = (settle, max_settle)
            && s >= m
        {
            c.push(
                key("settle_ms"),
                format!(
                    "{} is not below {T}.max_settle_ms ({}): the deck could never settle in time",
                    s.as_millis(),
                    m.as_millis()
                ),
            );
            ok = false;
        }
        if !ok {
            return None;
        }
        Some(SwitchesConfig {
            pins: pins.try_into().ok()?,
            bus: self.bus,
            address: self.address,
            interrupt: interrupt?,
            active_high: self.active,
            pull: self.pull,
            cycle: cycle?,
            cycle_active_high: self.cycle_active,
            poll: self.poll,
            debounce: self.debounce,
            settle: self.settle,
            max_settle: self.max_settle,
            flicker_changes: self.flicker_changes,
        })
    }
}

fn switch_pin(
    c: &mut Check,
    key: &str,
    value: &toml::Value,
    gpio: Option<&GpioConfig>,
    taken: &mut Vec<(SwitchPin, String)>,
) -> Option<SwitchPin> {
    let pin = match value {
        toml::Value::Integer(n) => SwitchPin::Gpio(c.pin(key, Some(*n))?),
        toml::Value::String(s) => match expander_pin(s) {
            Some(n) => SwitchPin::Expander(n),
            None => {
                c.push(
                    key,
                    format!(
                        "{s:?} is not an expander pin: write \"A0\" to \"A7\" or \"B0\" to \
                         \"B7\" (GPA0-GPA7, GPB0-GPB7 of the MCP23017), or a BCM GPIO number"
                    ),
                );
                return None;
            }
        },
        _ => return None, // the walk has reported the type
    };
    taken_check(c, key, pin, gpio, taken)?;
    Some(pin)
}

fn taken_check(
    c: &mut Check,
    key: &str,
    pin: SwitchPin,
    gpio: Option<&GpioConfig>,
    taken: &mut Vec<(SwitchPin, String)>,
) -> Option<()> {
    if let Some((_, first)) = taken.iter().find(|(p, _)| *p == pin) {
        c.push(
            key,
            format!("{pin} is already used by {first}: each switch needs its own input"),
        );
        return None;
    }
    if let (SwitchPin::Gpio(bcm), Some(gpio)) = (pin, gpio) {
        let used = gpio
            .inputs
            .iter()
            .map(|i| (i.pin, i.role.config_key()))
            .chain(
                gpio.outputs
                    .iter()
                    .map(|o| (o.pin, format!("gpio.outputs.{}", output_name(o.output)))),
            )
            .find(|(p, _)| *p == bcm);
        if let Some((_, by)) = used {
            c.push(
                key,
                format!(
                    "BCM {} is already used by {by}: move the switch to a free GPIO",
                    bcm.number()
                ),
            );
            return None;
        }
    }
    taken.push((pin, key.to_owned()));
    Some(())
}

/// `"A0"`..`"B7"` as 0..=15.
fn expander_pin(s: &str) -> Option<u8> {
    let mut chars = s.trim().chars();
    let port = match chars.next()?.to_ascii_uppercase() {
        'A' => 0,
        'B' => 8,
        _ => return None,
    };
    let n = chars.as_str().parse::<u8>().ok().filter(|n| *n < 8)?;
    Some(port + n)
}

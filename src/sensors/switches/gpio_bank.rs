//! The switches as wired: the expander's pins and the Pi's GPIO pins read
//! together into the levels the [`Deck`](super::deck::Deck) takes (bit
//! `n - 1` set when pin `n`'s switch says it stands, [`CYCLE_BIT`] while
//! the machine cycles).
//!
//! The switches on the Pi's GPIO are input lines of the header's chip,
//! found by its label and requested together from the kernel
//! ([`crate::sensors::gpio::chip`]); the expander is read over I2C.

use gpiocdev::Request;
use gpiocdev::line::Values;

use super::deck::CYCLE_BIT;
use super::mcp23017::Mcp23017;
use crate::config::{BcmPin, Pull, SwitchPin, SwitchesConfig};
use crate::sensors::GpioError;
use crate::sensors::gpio::chip::{self, InputLine};

/// Which input each bit of the levels comes from, and its active level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wiring {
    /// (bit of the levels, where, active high)
    pub entries: Vec<(u16, SwitchPin, bool)>,
}

impl Wiring {
    pub fn new(cfg: &SwitchesConfig) -> Wiring {
        let mut entries: Vec<(u16, SwitchPin, bool)> = cfg
            .pins
            .iter()
            .enumerate()
            .map(|(i, &pin)| (1 << i, pin, cfg.active_high))
            .collect();
        if let Some(cycle) = cfg.cycle {
            entries.push((CYCLE_BIT, cycle, cfg.cycle_active_high));
        }
        Wiring { entries }
    }

    /// The expander pins used (bit 0 = GPA0 … bit 15 = GPB7).
    pub fn expander_mask(&self) -> u16 {
        self.entries
            .iter()
            .filter_map(|(_, pin, _)| match pin {
                SwitchPin::Expander(n) => Some(1 << n),
                SwitchPin::Gpio(_) => None,
            })
            .fold(0, |a, b| a | b)
    }

    /// The levels from the expander's ports and the GPIO pins' levels.
    pub fn levels(&self, expander: u16, gpio_high: impl Fn(BcmPin) -> bool) -> u16 {
        self.entries
            .iter()
            .filter(|(_, pin, active_high)| {
                let high = match pin {
                    SwitchPin::Expander(n) => expander & (1 << n) != 0,
                    SwitchPin::Gpio(bcm) => gpio_high(*bcm),
                };
                high == *active_high
            })
            .fold(0, |acc, (bit, _, _)| acc | bit)
    }
}

/// The expander (if any pin is on it) and the GPIO pins, read as one.
pub struct RpiBank {
    pub(super) wiring: Wiring,
    pub(super) expander: Option<Expander>,
    pub(super) pins: Option<GpioPins>,
}

/// The switches' GPIO lines, in one request, and each pin's line offset.
pub(super) struct GpioPins {
    request: Request,
    offsets: Vec<(BcmPin, u32)>,
}

impl GpioPins {
    /// Which pins are high.
    fn read(&self) -> Result<Vec<(BcmPin, bool)>, String> {
        let mut values = Values::default();
        self.request
            .values(&mut values)
            .map_err(|e| format!("cannot read the GPIO pins: {e}"))?;
        Ok(self
            .offsets
            .iter()
            .map(|&(bcm, offset)| (bcm, values.get(offset).is_some_and(bool::from)))
            .collect())
    }
}

/// What a switch's pin is, for messages: `pin switch 7` or `the cycle
/// signal`.
fn switch_name(bit: u16) -> String {
    if bit == CYCLE_BIT {
        return "the cycle signal".into();
    }
    format!("pin switch {}", bit.trailing_zeros() + 1)
}

pub(super) struct Expander {
    pub(super) chip: Option<Mcp23017<rppal::i2c::I2c>>,
    pub(super) bus: u8,
    pub(super) address: u16,
    pub(super) pull_up: bool,
}

impl Expander {
    /// Opens and sets up the expander.
    pub(super) fn open(&mut self, used: u16) -> Result<(), String> {
        let mut i2c = rppal::i2c::I2c::with_bus(self.bus).map_err(|e| {
            format!(
                "cannot open /dev/i2c-{}: {e}: enable I2C (raspi-config, or dtparam=i2c_arm=on in \
                 /boot/firmware/config.txt) and run the daemon as a user in the `i2c` group",
                self.bus
            )
        })?;
        i2c.set_slave_address(self.address)
            .map_err(|e| format!("I2C address 0x{:x}: {e}", self.address))?;
        let chip = Mcp23017::configure(i2c, used, self.pull_up).map_err(|e| {
            format!(
                "no MCP23017 answers at 0x{:x} on /dev/i2c-{} ({e}): check the wiring, \
                 `i2cdetect -y {}`, and that I2C is enabled (raspi-config)",
                self.address, self.bus, self.bus
            )
        })?;
        self.chip = Some(chip);
        Ok(())
    }
}

impl RpiBank {
    /// Opens what the switches are wired to; a clear error when the
    /// expander does not answer or a GPIO cannot be had.
    pub fn open(cfg: &SwitchesConfig) -> Result<RpiBank, GpioError> {
        let wiring = Wiring::new(cfg);
        let mut expander = cfg.uses_expander().then(|| Expander {
            chip: None,
            bus: cfg.bus,
            address: cfg.address,
            pull_up: cfg.pull == Pull::Up,
        });
        if let Some(e) = &mut expander {
            e.open(wiring.expander_mask())
                .map_err(GpioError::Switches)?;
        }
        let gpio_pins: Vec<(BcmPin, String)> = wiring
            .entries
            .iter()
            .filter_map(|&(bit, p, _)| match p {
                SwitchPin::Gpio(b) => Some((b, switch_name(bit))),
                SwitchPin::Expander(_) => None,
            })
            .collect();
        let pins = if gpio_pins.is_empty() {
            None
        } else {
            let header = chip::find_header_chip().map_err(|e| match e {
                GpioError::NotAPi(why) => GpioError::NotAPi(format!(
                    "{why}; pin switches on GPIO pins need a Pi's header: wire them to the expander"
                )),
                other => other,
            })?;
            let line = InputLine {
                pull: cfg.pull,
                debounce: std::time::Duration::ZERO,
                edges: None,
            };
            let request = header.request_inputs(&gpio_pins, line)?;
            let offsets = gpio_pins
                .iter()
                .filter_map(|&(bcm, _)| header.offset(bcm).map(|o| (bcm, o)))
                .collect();
            Some(GpioPins { request, offsets })
        };
        Ok(RpiBank {
            wiring,
            expander,
            pins,
        })
    }
}

impl super::SwitchBank for RpiBank {
    fn read(&mut self) -> Result<u16, String> {
        let ports = match &mut self.expander {
            None => 0,
            Some(e) => {
                if e.chip.is_none() {
                    // Lost: set it up again (it may have lost power).
                    e.open(self.wiring.expander_mask())?;
                }
                let chip = e.chip.as_mut().ok_or("no expander")?;
                match chip.read() {
                    Ok(ports) => ports,
                    Err(err) => {
                        e.chip = None;
                        return Err(format!("MCP23017 at 0x{:x}: {err}", e.address));
                    }
                }
            }
        };
        let pins = match &self.pins {
            Some(pins) => pins.read()?,
            None => Vec::new(),
        };
        Ok(self
            .wiring
            .levels(ports, |bcm| pins.iter().any(|&(b, high)| b == bcm && high)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wiring_maps_ports_and_gpio_to_pins_and_cycle() {
        let mut pins = [SwitchPin::Expander(0); 10];
        for (i, p) in pins.iter_mut().enumerate().take(9) {
            *p = SwitchPin::Expander(i as u8);
        }
        pins[9] = SwitchPin::Gpio(BcmPin::new(5).unwrap());
        let cfg = SwitchesConfig {
            pins,
            bus: 1,
            address: 0x20,
            interrupt: None,
            active_high: false,
            pull: Pull::Up,
            cycle: Some(SwitchPin::Expander(10)),
            cycle_active_high: true,
            poll: std::time::Duration::from_millis(10),
            debounce: std::time::Duration::from_millis(20),
            settle: std::time::Duration::from_millis(600),
            max_settle: std::time::Duration::from_millis(8000),
            flicker_changes: 6,
        };
        let wiring = Wiring::new(&cfg);
        assert_eq!(wiring.expander_mask(), 0x05ff);
        // Active low: every switch closed (low), GPIO 5 low, cycle (B2) high.
        assert_eq!(wiring.levels(0x0400, |_| false), 0x3ff | CYCLE_BIT);
        // Pin 7 (A6) open, pin 10 (GPIO 5) open, cycle off.
        assert_eq!(
            wiring.levels(0x0040, |b| b.number() == 5),
            0x3ff & !(1 << 6) & !(1 << 9)
        );
    }
}

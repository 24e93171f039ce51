//! The switches as wired: the expander's pins and the Pi's GPIO pins read
//! together into the levels the [`Deck`](super::deck::Deck) takes (bit
//! `n - 1` set when pin `n`'s switch says it stands, [`CYCLE_BIT`] while
//! the machine cycles).

use rppal::gpio::{Gpio, InputPin};

use super::deck::CYCLE_BIT;
use super::mcp23017::Mcp23017;
use crate::config::{BcmPin, Pull, SwitchPin, SwitchesConfig};

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
    pub(super) pins: Vec<(BcmPin, InputPin)>,
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
    pub fn open(cfg: &SwitchesConfig) -> Result<RpiBank, String> {
        let wiring = Wiring::new(cfg);
        let mut expander = cfg.uses_expander().then(|| Expander {
            chip: None,
            bus: cfg.bus,
            address: cfg.address,
            pull_up: cfg.pull == Pull::Up,
        });
        if let Some(e) = &mut expander {
            e.open(wiring.expander_mask())?;
        }
        let mut pins = Vec::new();
        let gpio_pins: Vec<BcmPin> = wiring
            .entries
            .iter()
            .filter_map(|(_, p, _)| match p {
                SwitchPin::Gpio(b) => Some(*b),
                SwitchPin::Expander(_) => None,
            })
            .collect();
        if !gpio_pins.is_empty() {
            let gpio = Gpio::new()
                .map_err(|e| format!("cannot open the GPIO for the pin switches: {e}"))?;
            for bcm in gpio_pins {
                let pin = gpio
                    .get(bcm.number())
                    .map_err(|e| format!("GPIO {} (a pin switch): {e}", bcm.number()))?;
                let pin = match cfg.pull {
                    Pull::Up => pin.into_input_pullup(),
                    Pull::Down => pin.into_input_pulldown(),
                    Pull::Off => pin.into_input(),
                };
                pins.push((bcm, pin));
            }
        }
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
        let pins = &self.pins;
        Ok(self.wiring.levels(ports, |bcm| {
            pins.iter()
                .find(|(b, _)| *b == bcm)
                .is_some_and(|(_, p)| p.is_high())
        }))
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

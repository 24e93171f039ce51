//! The GPIOs the config wires against config.txt: a sensor, output or
//! pin switch on a pin a bus, driver or overlay takes, and the pin
//! switches' expander on I2C that config.txt leaves off. Each problem
//! names the config.txt line.

use std::path::Path;

use super::boot::BootConfig;
use super::files::Found;
use crate::config::gpio::{BcmPin, GpioBackend, output_name};
use crate::config::switches::SwitchPin;
use crate::config::validated::Config;

/// Every GPIO the config wires, by the key that names it.
fn wired_pins(config: &Config) -> Vec<(String, u8)> {
    let mut pins = Vec::new();
    if config.gpio.backend == GpioBackend::Rpi {
        for input in &config.gpio.inputs {
            pins.push((
                format!("{}.pin", input.role.config_key()),
                input.pin.number(),
            ));
        }
        for output in &config.gpio.outputs {
            pins.push((
                format!("gpio.outputs.{}.pin", output_name(output.output)),
                output.pin.number(),
            ));
        }
    }
    if let Some(s) = &config.switches {
        for (i, pin) in s.pins.iter().enumerate() {
            if let SwitchPin::Gpio(bcm) = pin {
                pins.push((format!("pinsetter.switches.pins[{}]", i + 1), bcm.number()));
            }
        }
        if let Some(SwitchPin::Gpio(bcm)) = s.cycle {
            pins.push(("pinsetter.switches.cycle".into(), bcm.number()));
        }
        if let Some(bcm) = s.interrupt {
            pins.push(("pinsetter.switches.interrupt".into(), bcm.number()));
        }
    }
    pins
}

pub(super) fn pins_check(config: &Config, path: &Path, boot: &BootConfig, found: &mut Found) {
    for (key, number) in wired_pins(config) {
        for claim in boot.claims.iter().filter(|c| c.pins.contains(&number)) {
            let pin =
                BcmPin::new(number).map_or_else(|| format!("BCM {number}"), |p| p.to_string());
            found.problems.push((
                key.clone(),
                format!(
                    "{pin} is taken by {} on this Pi: {} line {} has `{}`. Move the wire to a \
                     free GPIO and write its number here, or, if nothing on the Pi uses it, \
                     remove that line and reboot",
                    claim.what,
                    path.display(),
                    claim.line,
                    claim.text
                ),
            ));
        }
    }
    if let Some(s) = &config.switches
        && s.uses_expander()
        && s.bus == 1
        && !boot.i2c_arm
    {
        found.problems.push((
            "pinsetter.switches.pins".into(),
            format!(
                "the pin switches are read through the MCP23017 on /dev/i2c-1, but {} does not \
                 turn I2C on: add the line dtparam=i2c_arm=on under [all] there (or raspi-config \
                 → Interface Options → I2C), then reboot",
                path.display()
            ),
        ));
    }
}

//! The Pi's boot config (config.txt): which GPIOs its lines give to a bus
//! or a driver (I2C, SPI, the UART, I2S sound, a shutdown button, 1-Wire),
//! each by its line, and whether I2C and the UARTs are turned on. A wire
//! on such a pin reads the bus, not the sensor.
//!
//! Sections (`[pi4]`, `[pi5]`, `[all]`, `[none]`) are honoured as far as
//! the model is known: a section for another model is skipped; any other
//! filter, or an unknown model, is taken to apply, so a line that may be
//! in force is never missed. `include` is not followed.
//!
//! Pure: it reads text; `super` reads the file.

use super::model::PiModel;

/// Pins a line of config.txt gives to something else than the lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The line's number, from 1.
    pub line: usize,
    /// The line as written, without its comment.
    pub text: String,
    /// What takes the pins, e.g. "I2C (SDA, SCL)".
    pub what: &'static str,
    /// The BCM GPIOs taken.
    pub pins: Vec<u8>,
    /// The base parameter it comes from (`i2c_arm`), so a later `=off`
    /// takes it back; none for an overlay.
    base: Option<&'static str>,
}

/// What config.txt turns on, as far as the lane needs it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BootConfig {
    /// In the file's order.
    pub claims: Vec<Claim>,
    /// The ARM's I2C bus (/dev/i2c-1, BCM 2 and 3) is on: `dtparam=i2c_arm=on`,
    /// or an overlay on it (`i2c-rtc`).
    pub i2c_arm: bool,
    /// `enable_uart=1`.
    pub enable_uart: bool,
    /// `dtparam=uart0` or `dtoverlay=uart0` (a Pi 5's header UART).
    pub uart0: bool,
    /// `dtoverlay=disable-bt` or `miniuart-bt`: the PL011 (ttyAMA0) is the
    /// header's on a Pi 3 or 4.
    pub pl011_on_header: bool,
}

const I2C: &str = "I2C (SDA and SCL)";
const SPI: &str = "SPI (CE1, CE0, MISO, MOSI, SCLK)";
const UART: &str = "the UART (TXD and RXD)";
const I2S: &str = "I2S sound (PCM clock, frame, in and out)";

/// Whether a parameter's value turns it on (`on`, `true`, `1`, or no
/// value at all).
fn on(value: Option<&str>) -> bool {
    matches!(
        value.map(str::to_ascii_lowercase).as_deref(),
        None | Some("on" | "true" | "yes" | "1" | "okay")
    )
}

/// A base parameter of the device tree: what it takes when on.
fn base_param(name: &str) -> Option<(&'static str, &'static str, Vec<u8>)> {
    Some(match name {
        "i2c_arm" | "i2c" | "i2c1" => ("i2c_arm", I2C, vec![2, 3]),
        "spi" => ("spi", SPI, vec![7, 8, 9, 10, 11]),
        "i2s" => ("i2s", I2S, vec![18, 19, 20, 21]),
        "uart0" => ("uart0", UART, vec![14, 15]),
        _ => return None,
    })
}

/// An overlay that takes pins: what, its default pins, and the parameter
/// that moves its one pin (if any).
fn overlay(name: &str) -> Option<(&'static str, Vec<u8>, Option<&'static str>)> {
    Some(match name {
        "uart0" => (UART, vec![14, 15], None),
        "disable-bt" | "miniuart-bt" => (
            "the UART (TXD and RXD, Bluetooth's moved)",
            vec![14, 15],
            None,
        ),
        "gpio-shutdown" => (
            "the shutdown button (gpio-shutdown)",
            vec![3],
            Some("gpio_pin"),
        ),
        "gpio-poweroff" => (
            "the power-off signal (gpio-poweroff)",
            vec![26],
            Some("gpiopin"),
        ),
        "w1-gpio" | "w1-gpio-pullup" => ("1-Wire (w1-gpio)", vec![4], Some("gpiopin")),
        n if n.starts_with("i2c-rtc") || n.starts_with("i2c-sensor") => (I2C, vec![2, 3], None),
        n if ["hifiberry-", "iqaudio-", "i2s-", "googlevoicehat-"]
            .iter()
            .any(|p| n.starts_with(p)) =>
        {
            (I2S, vec![18, 19, 20, 21], None)
        }
        _ => return None,
    })
}

/// config.txt's `text`, read for `model` (`None`: not known, every
/// section applies).
pub fn read_boot_config(text: &str, model: Option<&PiModel>) -> BootConfig {
    let mut boot = BootConfig::default();
    // A model filter replaces the one before it; `[none]` holds until
    // `[all]`.
    let mut model_applies = true;
    let mut none = false;
    // The last overlay's claim and its pin parameter: a `dtparam=` after
    // `dtoverlay=` sets that overlay's parameters.
    let mut last: Option<(usize, &'static str)> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if let Some(filter) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let filter = filter.trim().to_ascii_lowercase();
            match filter.as_str() {
                "all" => (model_applies, none) = (true, false),
                "none" => none = true,
                f if super::model::MODEL_FILTERS.contains(&f) => {
                    model_applies = model.is_none_or(|m| m.matches(f));
                }
                _ => {}
            }
            last = None;
            continue;
        }
        if none || !model_applies {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let claim = |what, pins, base| Claim {
            line: i + 1,
            text: line.to_owned(),
            what,
            pins,
            base,
        };
        match key.trim() {
            "enable_uart" => {
                boot.enable_uart = value.trim() == "1";
                boot.claims.retain(|c| c.base != Some("enable_uart"));
                if boot.enable_uart {
                    boot.claims
                        .push(claim(UART, vec![14, 15], Some("enable_uart")));
                }
            }
            "dtparam" => {
                for param in value.split(',').map(str::trim) {
                    let (name, value) = match param.split_once('=') {
                        Some((n, v)) => (n.trim(), Some(v.trim())),
                        None => (param, None),
                    };
                    if let Some((index, pin_param)) = last
                        && name == pin_param
                    {
                        if let Some(pin) = value.and_then(|v| v.parse::<u8>().ok()) {
                            boot.claims[index].pins = vec![pin];
                        }
                        continue;
                    }
                    let Some((base, what, pins)) = base_param(name) else {
                        continue;
                    };
                    boot.claims.retain(|c| c.base != Some(base));
                    let enabled = on(value);
                    match base {
                        "i2c_arm" => boot.i2c_arm = enabled,
                        "uart0" => boot.uart0 = enabled,
                        _ => {}
                    }
                    if enabled {
                        boot.claims.push(claim(what, pins, Some(base)));
                    }
                }
            }
            "dtoverlay" => {
                let mut parts = value.split([',', ':']).map(str::trim);
                let name = parts.next().unwrap_or("");
                last = None;
                let Some((what, mut pins, pin_param)) = overlay(name) else {
                    continue;
                };
                for param in parts {
                    if let Some((n, v)) = param.split_once('=')
                        && Some(n.trim()) == pin_param
                        && let Ok(pin) = v.trim().parse::<u8>()
                    {
                        pins = vec![pin];
                    }
                }
                match name {
                    "uart0" => boot.uart0 = true,
                    "disable-bt" | "miniuart-bt" => boot.pl011_on_header = true,
                    _ if what == I2C => boot.i2c_arm = true,
                    _ => {}
                }
                boot.claims.push(claim(what, pins, None));
                if let Some(p) = pin_param {
                    last = Some((boot.claims.len() - 1, p));
                }
            }
            _ => {}
        }
    }
    boot
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pins(boot: &BootConfig) -> Vec<(usize, Vec<u8>)> {
        boot.claims
            .iter()
            .map(|c| (c.line, c.pins.clone()))
            .collect()
    }

    /// Raspberry Pi OS's own config.txt, with I2C turned on by raspi-config.
    const RASPIOS: &str = "\
# For more options and information see
# http://rpf.io/configtxt
dtparam=i2c_arm=on
#dtparam=i2s=on
#dtparam=spi=on
dtparam=audio=on
camera_auto_detect=1
display_auto_detect=1
auto_initramfs=1
dtoverlay=vc4-kms-v3d
max_framebuffers=2
arm_64bit=1

[cm4]
otg_mode=1

[cm5]
dtoverlay=dwc2,dr_mode=host

[all]
enable_uart=1
";

    #[test]
    fn raspberry_pi_os_gives_i2c_and_the_uart_and_nothing_commented_out() {
        let pi4 = PiModel::parse("Raspberry Pi 4 Model B Rev 1.4").unwrap();
        let boot = read_boot_config(RASPIOS, Some(&pi4));
        assert_eq!(pins(&boot), [(3, vec![2, 3]), (21, vec![14, 15])]);
        assert_eq!(boot.claims[0].text, "dtparam=i2c_arm=on");
        assert!(boot.i2c_arm && boot.enable_uart && !boot.uart0);
    }

    #[test]
    fn a_section_for_another_pi_is_skipped_unless_the_model_is_unknown() {
        let text = "[pi4]\ndtparam=spi=on\n[pi5]\ndtoverlay=gpio-shutdown\n[all]\n";
        let pi5 = PiModel::parse("Raspberry Pi 5 Model B Rev 1.0").unwrap();
        assert_eq!(pins(&read_boot_config(text, Some(&pi5))), [(4, vec![3])]);
        let pi4 = PiModel::parse("Raspberry Pi 4 Model B Rev 1.4").unwrap();
        assert_eq!(
            pins(&read_boot_config(text, Some(&pi4))),
            [(2, vec![7, 8, 9, 10, 11])]
        );
        assert_eq!(read_boot_config(text, None).claims.len(), 2);
        // [none] holds until [all]; an unknown filter applies.
        let text =
            "[none]\ndtparam=spi=on\n[pi4]\ndtparam=i2s=on\n[all]\n[HDMI:0]\nenable_uart=1\n";
        assert_eq!(
            pins(&read_boot_config(text, Some(&pi4))),
            [(7, vec![14, 15])]
        );
    }

    #[test]
    fn a_shutdown_button_or_a_1_wire_bus_moved_by_its_parameter() {
        let text = "dtoverlay=gpio-shutdown,gpio_pin=17,active_low=1\n\
                    dtoverlay=gpio-poweroff\n\
                    dtparam=gpiopin=21\n\
                    dtoverlay=w1-gpio\n\
                    dtoverlay=gpio-shutdown\n";
        let boot = read_boot_config(text, None);
        assert_eq!(
            pins(&boot),
            [(1, vec![17]), (2, vec![21]), (4, vec![4]), (5, vec![3])]
        );
        assert!(boot.claims[2].what.contains("1-Wire"));
    }

    #[test]
    fn a_sound_hat_takes_the_i2s_pins_and_a_clock_the_i2c_bus() {
        let text = "dtoverlay=hifiberry-dacplus\ndtoverlay=i2c-rtc,ds3231\n";
        let boot = read_boot_config(text, None);
        assert_eq!(pins(&boot), [(1, vec![18, 19, 20, 21]), (2, vec![2, 3])]);
        assert!(boot.i2c_arm, "the clock's overlay turns I2C on");
    }

    #[test]
    fn a_parameter_turned_off_later_gives_its_pins_back() {
        let text = "dtparam=i2c_arm=on,spi=on\ndtparam=i2c_arm=off\n";
        let boot = read_boot_config(text, None);
        assert_eq!(pins(&boot), [(1, vec![7, 8, 9, 10, 11])]);
        assert!(!boot.i2c_arm);
        let pi5 = "dtparam=uart0\n";
        assert!(read_boot_config(pi5, None).uart0);
        assert!(read_boot_config("dtoverlay=disable-bt\n", None).pl011_on_header);
    }
}

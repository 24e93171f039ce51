//! The GPIO chip of the Pi's 40-pin header, found by what it is, and its
//! lines requested through the kernel's GPIO character device (uAPI v2,
//! the `gpiocdev` crate).
//!
//! Chip numbers move between kernels (a Pi 5 had its header on gpiochip4,
//! then gpiochip0; 6.12.96+rpt and 6.18 have no gpiochip0 at all, only
//! gpiochip10 and up), so every `/dev/gpiochipN` there is, gaps allowed,
//! is read for its label and line names, and the header's is the one
//! labelled as a Pi's pin controller ([`HEADER_LABELS`]), or else the one
//! whose lines are named `GPIO2` to `GPIO27` (a newer kernel's name for
//! the same chip). [`choose_header_chip`] makes that choice over a list,
//! and [`list_chips`] makes the list from a directory with an injected
//! reader, so both are tested here without a Pi; [`read_chip`] is the
//! real reader.
//!
//! When no chip is the header's, [`no_header_chip`] says why: a machine
//! whose device tree does not call it a Raspberry Pi is
//! [`GpioError::NotAPi`] (nothing will change that); a Pi whose chips may
//! not be opened is [`GpioError::Open`], the only error with a hint about
//! permissions; any other Pi is [`GpioError::NoHeaderChip`], naming what
//! was looked for and the chips there are.
//!
//! A line is requested from the kernel, not driven behind its back: a
//! line another program holds fails with [`GpioError::Busy`], naming the
//! consumer the kernel reports for it, and ours show as `lanecall` in
//! `gpioinfo`.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gpiocdev::line::{Bias, EdgeDetection, EventClock, Value};
use gpiocdev::{Chip, Request};

use super::GpioError;
use crate::config::{BcmPin, Pull};

/// The labels of the Pi's header chips: Pi 3, 3B+ and Zero 2 W; Pi 4, 400
/// and CM4; Pi 5, 500 and CM5. On each the header's GPIO n is line n.
pub const HEADER_LABELS: [&str; 3] = ["pinctrl-bcm2835", "pinctrl-bcm2711", "pinctrl-rp1"];

/// The header's GPIOs a chip's line names must all have to be taken for
/// the header's when its label is none of [`HEADER_LABELS`].
const NAMED_LINES: std::ops::RangeInclusive<u8> = 2..=27;

/// Where the kernel says which board this is.
pub const MODEL_PATH: &str = "/proc/device-tree/model";

/// What the kernel says of a GPIO chip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChipInfo {
    pub label: String,
    /// By offset; empty for a line without a name.
    pub line_names: Vec<String>,
}

/// Why a chip could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChipUnreadable {
    pub message: String,
    /// EACCES or EPERM: a question of permissions, not of the chip.
    pub denied: bool,
}

/// A `/dev/gpiochipN` and what could be read of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedChip {
    pub path: PathBuf,
    pub info: Result<ChipInfo, ChipUnreadable>,
}

impl ListedChip {
    /// `/dev/gpiochip12 "pinctrl-rp1"`, for messages.
    fn describe(&self) -> String {
        match &self.info {
            Ok(info) => format!("{} {:?}", self.path.display(), info.label),
            Err(e) => format!("{} (cannot be read: {})", self.path.display(), e.message),
        }
    }
}

/// The header's chip, and where each BCM GPIO is on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderChip {
    pub path: PathBuf,
    pub label: String,
    /// The line offset of BCM GPIO n at index n, if the chip has it.
    offsets: Vec<Option<u32>>,
}

/// The header's chip among `chips`, if one is: the first labelled as a
/// Pi's pin controller, else the first whose lines are named `GPIO2` to
/// `GPIO27`. Chips that could not be read are passed over.
pub fn choose_header_chip(chips: &[ListedChip]) -> Option<HeaderChip> {
    let readable = || {
        chips
            .iter()
            .filter_map(|c| c.info.as_ref().ok().map(|info| (&c.path, info)))
    };
    let labelled = readable()
        .find(|(_, info)| HEADER_LABELS.contains(&info.label.as_str()))
        .map(|(path, info)| HeaderChip {
            path: path.clone(),
            label: info.label.clone(),
            offsets: (0..=27).map(Some).collect(),
        });
    labelled.or_else(|| {
        readable().find_map(|(path, info)| {
            let offset_of = |bcm: u8| {
                let name = format!("GPIO{bcm}");
                info.line_names
                    .iter()
                    .position(|n| *n == name)
                    .and_then(|i| u32::try_from(i).ok())
            };
            NAMED_LINES
                .clone()
                .all(|bcm| offset_of(bcm).is_some())
                .then(|| HeaderChip {
                    path: path.clone(),
                    label: info.label.clone(),
                    offsets: (0..=27).map(offset_of).collect(),
                })
        })
    })
}

/// The number of a `gpiochipN` name.
fn chip_number(name: &str) -> Option<u32> {
    let digits = name.strip_prefix("gpiochip")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Every `gpiochipN` in `dev` (any N, gaps allowed), in number order,
/// each read with `read`.
pub fn list_chips(
    dev: &Path,
    read: impl Fn(&Path) -> Result<ChipInfo, ChipUnreadable>,
) -> io::Result<Vec<ListedChip>> {
    let mut numbered = Vec::new();
    for entry in std::fs::read_dir(dev)? {
        let entry = entry?;
        if let Some(n) = entry.file_name().to_str().and_then(chip_number) {
            numbered.push((n, entry.path()));
        }
    }
    numbered.sort();
    Ok(numbered
        .into_iter()
        .map(|(_, path)| {
            let info = read(&path);
            ListedChip { path, info }
        })
        .collect())
}

/// Whether an error of the kernel is a refusal to let us open something.
fn is_denied(e: &gpiocdev::Error) -> bool {
    match e {
        gpiocdev::Error::Os(errno) => {
            io::Error::from_raw_os_error(errno.0).kind() == io::ErrorKind::PermissionDenied
        }
        _ => false,
    }
}

/// Reads a chip's label and line names from the kernel.
pub fn read_chip(path: &Path) -> Result<ChipInfo, ChipUnreadable> {
    let unreadable = |e: gpiocdev::Error| ChipUnreadable {
        message: e.to_string(),
        denied: is_denied(&e),
    };
    let chip = Chip::from_path(path).map_err(unreadable)?;
    let info = chip.info().map_err(unreadable)?;
    // A line whose info cannot be read is a line without a name: the chip
    // may still be the header's by its label.
    let line_names = (0..info.num_lines)
        .map(|offset| chip.line_info(offset).map(|l| l.name).unwrap_or_default())
        .collect();
    Ok(ChipInfo {
        label: info.label,
        line_names,
    })
}

/// Whether the device tree's model (`/proc/device-tree/model`, which ends
/// with a NUL) calls this machine a Raspberry Pi.
fn says_raspberry_pi(model: Option<&str>) -> bool {
    model.is_some_and(|m| m.contains("Raspberry Pi"))
}

/// The error when no chip is the header's: see the module's docs.
/// `model` is the device tree's model, if there is one; `chips` what
/// [`list_chips`] found (or why /dev could not be listed).
pub fn no_header_chip(chips: &io::Result<Vec<ListedChip>>, model: Option<&str>) -> GpioError {
    let described = match chips {
        Ok(chips) if chips.is_empty() => "it has no GPIO chip".to_string(),
        Ok(chips) => format!(
            "none of its GPIO chips is a Pi header's: {}",
            chips
                .iter()
                .map(ListedChip::describe)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Err(e) => format!("its GPIO chips cannot be listed: {e}"),
    };
    if !says_raspberry_pi(model) {
        let model = match model {
            Some(m) => format!("its device tree's model is {:?}", m.trim_end_matches('\0')),
            None => format!("it has no {MODEL_PATH}"),
        };
        return GpioError::NotAPi(format!("{model}, and {described}"));
    }
    let chips = match chips {
        Ok(chips) => chips,
        Err(e) => return GpioError::Open(format!("cannot list the GPIO chips in /dev: {e}")),
    };
    let denied: Vec<String> = chips
        .iter()
        .filter(|c| c.info.as_ref().is_err_and(|e| e.denied))
        .map(ListedChip::describe)
        .collect();
    if !denied.is_empty() {
        return GpioError::Open(format!(
            "permission denied: {}; run the daemon as a user in the `gpio` group, \
             with DeviceAllow=char-gpiochip rw in its unit (as the shipped one has)",
            denied.join(", ")
        ));
    }
    GpioError::NoHeaderChip {
        chips: chips.iter().map(ListedChip::describe).collect(),
    }
}

/// The model in `path`, if it can be read.
fn read_model(path: &Path) -> Option<String> {
    std::fs::read(path).ok().map(|bytes| {
        String::from_utf8_lossy(&bytes)
            .trim_end_matches('\0')
            .trim()
            .to_string()
    })
}

/// The header's chip among the `gpiochipN` in `dev`, read with `read`;
/// `model` is where the device tree's model is.
pub fn find_header_chip_in(
    dev: &Path,
    model: &Path,
    read: impl Fn(&Path) -> Result<ChipInfo, ChipUnreadable>,
) -> Result<HeaderChip, GpioError> {
    let chips = list_chips(dev, read);
    if let Some(chip) = chips.as_deref().ok().and_then(choose_header_chip) {
        return Ok(chip);
    }
    Err(no_header_chip(&chips, read_model(model).as_deref()))
}

/// The header's chip on this machine.
pub fn find_header_chip() -> Result<HeaderChip, GpioError> {
    find_header_chip_in(Path::new("/dev"), Path::new(MODEL_PATH), read_chip)
}

/// How an input line is requested.
#[derive(Clone, Copy, Debug)]
pub struct InputLine {
    pub pull: Pull,
    /// The kernel's debounce; zero for none.
    pub debounce: Duration,
    pub edges: Option<EdgeDetection>,
}

/// The name our lines carry in the kernel's line info (`gpioinfo`).
const CONSUMER: &str = "lanecall";

impl HeaderChip {
    /// The line offset of a BCM GPIO on this chip.
    pub fn offset(&self, bcm: BcmPin) -> Option<u32> {
        self.offsets
            .get(usize::from(bcm.number()))
            .copied()
            .flatten()
    }

    fn offset_for(&self, bcm: BcmPin, what: &str) -> Result<u32, GpioError> {
        self.offset(bcm).ok_or_else(|| GpioError::Pin {
            bcm: bcm.number(),
            what: what.to_string(),
            message: format!(
                "{} {:?} has no line named GPIO{}; wire it to another GPIO",
                self.path.display(),
                self.label,
                bcm.number()
            ),
        })
    }

    /// Input lines (each `(pin, what it is)`), in one request, read as
    /// their physical level (active high, whatever the wiring).
    pub fn request_inputs(
        &self,
        pins: &[(BcmPin, String)],
        line: InputLine,
    ) -> Result<Request, GpioError> {
        let offsets = pins
            .iter()
            .map(|(bcm, what)| self.offset_for(*bcm, what))
            .collect::<Result<Vec<u32>, _>>()?;
        let bias = match line.pull {
            Pull::Up => Bias::PullUp,
            Pull::Down => Bias::PullDown,
            Pull::Off => Bias::Disabled,
        };
        let mut builder = Request::builder();
        builder
            .on_chip(&self.path)
            .with_consumer(CONSUMER)
            .with_lines(&offsets)
            .as_input()
            .with_bias(bias);
        if let Some(edges) = line.edges {
            // The stamps are CLOCK_MONOTONIC, the clock `edge_instant`
            // compares them with (the default, asked for all the same).
            builder
                .with_edge_detection(edges)
                .with_event_clock(EventClock::Monotonic);
            if !line.debounce.is_zero() {
                builder.with_debounce_period(line.debounce);
            }
        }
        builder.request().map_err(|e| self.request_failed(pins, e))
    }

    /// An output line, driven to `high` from the moment it is ours.
    pub fn request_output(
        &self,
        bcm: BcmPin,
        what: &str,
        high: bool,
    ) -> Result<(Request, u32), GpioError> {
        let offset = self.offset_for(bcm, what)?;
        Request::builder()
            .on_chip(&self.path)
            .with_consumer(CONSUMER)
            .with_line(offset)
            .as_output(Value::from(high))
            .request()
            .map(|r| (r, offset))
            .map_err(|e| self.request_failed(&[(bcm, what.to_string())], e))
    }

    /// What a failed request means: a line held by someone else (named as
    /// the kernel names it), a chip we may not open, or the kernel's word.
    fn request_failed(&self, pins: &[(BcmPin, String)], e: gpiocdev::Error) -> GpioError {
        if is_denied(&e) {
            return GpioError::Open(format!(
                "permission denied on {}: {e}; run the daemon as a user in the `gpio` group, \
                 with DeviceAllow=char-gpiochip rw in its unit (as the shipped one has)",
                self.path.display()
            ));
        }
        if let Ok(chip) = Chip::from_path(&self.path) {
            for (bcm, what) in pins {
                let held = self
                    .offset(*bcm)
                    .and_then(|offset| chip.line_info(offset).ok())
                    .filter(|info| info.used);
                if let Some(info) = held {
                    return GpioError::Busy {
                        bcm: bcm.number(),
                        what: what.clone(),
                        consumer: info.consumer,
                    };
                }
            }
        }
        let (bcm, what) = match pins {
            [(bcm, what)] => (bcm.number(), what.clone()),
            _ => (
                pins.first().map_or(0, |(b, _)| b.number()),
                pins.iter()
                    .map(|(b, w)| format!("GPIO {} {w}", b.number()))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
        };
        GpioError::Pin {
            bcm,
            what,
            message: format!("{} {:?} refused it: {e}", self.path.display(), self.label),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chip(n: u32, label: &str, names: &[&str]) -> ListedChip {
        ListedChip {
            path: PathBuf::from(format!("/dev/gpiochip{n}")),
            info: Ok(ChipInfo {
                label: label.into(),
                line_names: names.iter().map(|s| s.to_string()).collect(),
            }),
        }
    }

    fn denied(n: u32) -> ListedChip {
        ListedChip {
            path: PathBuf::from(format!("/dev/gpiochip{n}")),
            info: Err(ChipUnreadable {
                message: "Permission denied (os error 13)".into(),
                denied: true,
            }),
        }
    }

    /// A Pi 5 on a current kernel: no gpiochip0, the header's chip at 13.
    fn pi5_chips() -> Vec<ListedChip> {
        vec![
            chip(10, "gpio-brcmstb@107d508500", &["-"; 32]),
            chip(11, "gpio-brcmstb@107d508520", &["-"; 15]),
            chip(12, "gpio-brcmstb@107d517c00", &["-"; 17]),
            chip(13, "pinctrl-rp1", &[]),
            chip(14, "raspberrypi-exp-gpio", &["BT_ON", "WL_ON"]),
        ]
    }

    fn bcm(n: u8) -> BcmPin {
        BcmPin::new(n).unwrap()
    }

    /// Names as a newer kernel might give them: GPIO n at line n + 3.
    fn named_header_lines() -> Vec<String> {
        let mut names = vec!["ID_SDA".to_string(), "ID_SCL".into(), "PWR".into()];
        names.extend((0..=27).map(|n| format!("GPIO{n}")));
        names
    }

    #[test]
    fn a_pi_5_with_no_gpiochip0_finds_its_header_on_the_rp1() {
        let found = choose_header_chip(&pi5_chips()).expect("the header's chip");
        assert_eq!(found.path, Path::new("/dev/gpiochip13"));
        assert_eq!(found.label, "pinctrl-rp1");
        assert_eq!(found.offset(bcm(17)), Some(17));
    }

    #[test]
    fn each_pi_finds_its_header_by_label() {
        for label in HEADER_LABELS {
            let chips = vec![
                chip(0, label, &[]),
                chip(1, "raspberrypi-exp-gpio", &["BT_ON"]),
            ];
            let found = choose_header_chip(&chips).expect(label);
            assert_eq!(found.path, Path::new("/dev/gpiochip0"), "{label}");
            assert_eq!(found.label, label);
            assert_eq!(found.offset(bcm(2)), Some(2));
            assert_eq!(found.offset(bcm(27)), Some(27));
        }
    }

    #[test]
    fn a_newer_kernels_name_is_found_by_its_line_names() {
        let names = named_header_lines();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let chips = vec![
            chip(20, "gpio-brcmstb@107d508500", &["RP1_SDA", "RP1_SCL"]),
            chip(21, "rp1-gpio", &names),
        ];
        let found = choose_header_chip(&chips).expect("the named chip");
        assert_eq!(found.path, Path::new("/dev/gpiochip21"));
        assert_eq!(found.offset(bcm(6)), Some(9));
        assert_eq!(found.offset(bcm(27)), Some(30));
    }

    #[test]
    fn a_label_is_trusted_before_line_names() {
        let names = named_header_lines();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let chips = vec![chip(2, "other", &names), chip(5, "pinctrl-bcm2711", &[])];
        let found = choose_header_chip(&chips).expect("the header's chip");
        assert_eq!(found.label, "pinctrl-bcm2711");
    }

    #[test]
    fn a_chip_missing_one_header_name_is_not_the_header() {
        let mut names = named_header_lines();
        names.retain(|n| n != "GPIO26");
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(choose_header_chip(&[chip(0, "other", &names)]), None);
        assert_eq!(choose_header_chip(&[denied(0)]), None);
    }

    /// A fake /dev: empty files named as chips (and some that are not).
    fn fake_dev(name: &str, files: &[&str]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lanecall-dev-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for f in files {
            std::fs::write(dir.join(f), "").unwrap();
        }
        dir
    }

    /// Reads a fake chip by its file name.
    fn pi5_reader(path: &Path) -> Result<ChipInfo, ChipUnreadable> {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let label = match name {
            "gpiochip11" => "gpio-brcmstb@107d508500",
            "gpiochip12" => "raspberrypi-exp-gpio",
            "gpiochip13" => "gpio-brcmstb@107d517c00",
            "gpiochip14" => "pinctrl-rp1",
            "gpiochip15" => "gpio-brcmstb@107d508520",
            other => panic!("read {other}, which is not a chip"),
        };
        Ok(ChipInfo {
            label: label.into(),
            line_names: Vec::new(),
        })
    }

    #[test]
    fn the_lister_reads_every_chip_in_dev_in_number_order_with_gaps() {
        let dev = fake_dev(
            "pi5",
            &[
                "gpiochip15",
                "gpiochip11",
                "gpiochip14",
                "gpiochip12",
                "gpiochip13",
                "gpiomem0",
                "gpiochip",
                "gpiochipx1",
                "i2c-1",
            ],
        );
        let chips = list_chips(&dev, pi5_reader).unwrap();
        let names: Vec<_> = chips
            .iter()
            .map(|c| c.path.file_name().unwrap().to_str().unwrap().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "gpiochip11",
                "gpiochip12",
                "gpiochip13",
                "gpiochip14",
                "gpiochip15"
            ]
        );
        let model = dev.join("model");
        std::fs::write(&model, "Raspberry Pi 5 Model B Rev 1.1\0").unwrap();
        let found = find_header_chip_in(&dev, &model, pi5_reader).unwrap();
        assert_eq!(found.path, dev.join("gpiochip14"));
        assert_eq!(found.label, "pinctrl-rp1");
        let _ = std::fs::remove_dir_all(&dev);
    }

    #[test]
    fn a_pi_without_its_header_chip_says_what_was_looked_for_and_what_is_there() {
        let chips = Ok(vec![
            chip(10, "gpio-brcmstb@107d508500", &[]),
            chip(11, "raspberrypi-exp-gpio", &[]),
        ]);
        let err = no_header_chip(&chips, Some("Raspberry Pi 5 Model B Rev 1.1"));
        assert!(matches!(err, GpioError::NoHeaderChip { .. }), "{err:?}");
        assert!(!err.is_permanent());
        let msg = err.to_string();
        for label in HEADER_LABELS {
            assert!(msg.contains(label), "{msg}");
        }
        assert!(msg.contains("GPIO2 to GPIO27"), "{msg}");
        assert!(
            msg.contains("/dev/gpiochip10 \"gpio-brcmstb@107d508500\""),
            "{msg}"
        );
        assert!(
            msg.contains("/dev/gpiochip11 \"raspberrypi-exp-gpio\""),
            "{msg}"
        );
        assert!(!msg.contains("group"), "{msg}");
    }

    #[test]
    fn only_a_chip_we_may_not_open_brings_the_permissions_hint() {
        let chips = Ok(vec![chip(0, "raspberrypi-exp-gpio", &[]), denied(4)]);
        let err = no_header_chip(&chips, Some("Raspberry Pi 4 Model B Rev 1.5"));
        assert!(matches!(err, GpioError::Open(_)), "{err:?}");
        assert!(!err.is_permanent());
        let msg = err.to_string();
        assert!(msg.contains("/dev/gpiochip4"), "{msg}");
        assert!(msg.contains("`gpio` group"), "{msg}");
    }

    #[test]
    fn a_machine_the_device_tree_does_not_call_a_pi_is_not_a_pi() {
        let chips = Ok(vec![chip(0, "INT34C5:00", &[]), denied(1)]);
        for model in [None, Some("QEMU Virtual Machine\0")] {
            let err = no_header_chip(&chips, model);
            assert!(matches!(err, GpioError::NotAPi(_)), "{err:?}");
            assert!(err.is_permanent());
            let msg = err.to_string();
            assert_eq!(
                msg.matches("this machine is not a Raspberry Pi").count(),
                1,
                "{msg}"
            );
            assert!(msg.contains("/dev/gpiochip0 \"INT34C5:00\""), "{msg}");
            assert!(msg.contains("backend = \"none\""), "{msg}");
        }
        let err = no_header_chip(&Ok(Vec::new()), Some("Generic board"));
        assert!(err.to_string().contains("no GPIO chip"), "{err}");
    }

    #[test]
    fn a_dev_without_chips_on_a_machine_without_a_model_is_not_a_pi() {
        let dev = fake_dev("none", &["null", "ttyS0"]);
        let err = find_header_chip_in(&dev, &dev.join("model"), pi5_reader).unwrap_err();
        assert!(err.is_permanent(), "{err:?}");
        let _ = std::fs::remove_dir_all(&dev);
    }

    #[test]
    fn only_gpiochip_and_a_number_is_a_chip() {
        assert_eq!(chip_number("gpiochip0"), Some(0));
        assert_eq!(chip_number("gpiochip14"), Some(14));
        assert_eq!(chip_number("gpiochip"), None);
        assert_eq!(chip_number("gpiochip1a"), None);
        assert_eq!(chip_number("gpiomem0"), None);
    }
}

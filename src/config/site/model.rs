//! Which Raspberry Pi this is (/proc/device-tree/model), as far as the
//! lane cares: which of config.txt's `[pi4]`-style sections apply to it,
//! and which device the header's UART (pins 8 and 10) is.
//!
//! Pure: it reads the model's text; `super` reads the file.

/// Where a Pi's header UART is, as its model decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UartLayout {
    /// Pi 5, 500, CM5: the header's is `/dev/ttyAMA0` once config.txt has
    /// `dtparam=uart0`; `/dev/serial0` is the 3-pin debug connector
    /// (ttyAMA10).
    Pi5,
    /// Pi 3, 4, 400, Zero W, Zero 2 W: Bluetooth holds the PL011
    /// (ttyAMA0), the header has the mini-UART (ttyS0), `/dev/serial0`,
    /// unless `dtoverlay=disable-bt` swaps them.
    Bluetooth,
    /// A Compute Module 4: as [`UartLayout::Bluetooth`] on a module with
    /// wireless, as [`UartLayout::Pl011`] without.
    MaybeBluetooth,
    /// Pi 1, 2, Zero, CM1, CM3: the header has the PL011, `/dev/serial0`
    /// (ttyAMA0).
    Pl011,
}

/// A Raspberry Pi model, from its model string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PiModel {
    /// As the device tree says it, e.g. "Raspberry Pi 4 Model B Rev 1.4".
    pub name: String,
    /// config.txt's model filters that select it (`pi4`, `pi400`).
    pub filters: &'static [&'static str],
    pub uart: UartLayout,
}

/// Every model filter config.txt knows: a section under one of these that
/// the model is not among is skipped. Any other filter (`[HDMI:1]`,
/// `[gpio4=1]`) is taken to apply: its lines may be in force.
pub const MODEL_FILTERS: [&str; 17] = [
    "pi1", "pi2", "pi3", "pi3+", "pi4", "pi400", "pi5", "pi500", "pi0", "pi0w", "pi02", "cm1",
    "cm3", "cm3+", "cm4", "cm4s", "cm5",
];

impl PiModel {
    /// The model named by /proc/device-tree/model's text (NUL-terminated
    /// there); `None` for anything that is not a Raspberry Pi.
    pub fn parse(text: &str) -> Option<PiModel> {
        use UartLayout::*;
        let name = text.trim_end_matches('\0').trim();
        let rest = name.strip_prefix("Raspberry Pi ")?;
        let is = |p: &str| rest.starts_with(p);
        let (filters, uart): (&'static [&'static str], UartLayout) = if is("500") {
            (&["pi5", "pi500"], Pi5)
        } else if is("5 ") || rest == "5" {
            (&["pi5"], Pi5)
        } else if is("Compute Module 5") {
            (&["pi5", "cm5"], Pi5)
        } else if is("400") {
            (&["pi4", "pi400"], Bluetooth)
        } else if is("4 ") || rest == "4" {
            (&["pi4"], Bluetooth)
        } else if is("Compute Module 4S") {
            (&["pi4", "cm4s"], Pl011)
        } else if is("Compute Module 4") {
            (&["pi4", "cm4"], MaybeBluetooth)
        } else if is("3 Model B Plus") || is("3 Model A Plus") {
            (&["pi3", "pi3+"], Bluetooth)
        } else if is("3 ") {
            (&["pi3"], Bluetooth)
        } else if is("Compute Module 3 Plus") {
            (&["pi3", "cm3+"], Pl011)
        } else if is("Compute Module 3") {
            (&["pi3", "cm3"], Pl011)
        } else if is("Zero 2") {
            (&["pi0", "pi02"], Bluetooth)
        } else if is("Zero W") {
            (&["pi0", "pi0w"], Bluetooth)
        } else if is("Zero") {
            (&["pi0"], Pl011)
        } else if is("2 ") {
            (&["pi2"], Pl011)
        } else if is("Compute Module") {
            (&["pi1", "cm1"], Pl011)
        } else {
            // "Raspberry Pi Model B Rev 2", "Model A Plus", …
            (&["pi1"], Pl011)
        };
        Some(PiModel {
            name: name.to_owned(),
            filters,
            uart,
        })
    }

    /// Whether a config.txt section under `filter` (lower case, without
    /// brackets) applies to this model.
    pub fn matches(&self, filter: &str) -> bool {
        !MODEL_FILTERS.contains(&filter) || self.filters.contains(&filter)
    }
}

/// The header UART of a model: its device and a line for the technician.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeaderUart {
    /// The device the pinsetter's port should name, e.g. `/dev/ttyAMA0`.
    pub path: &'static str,
    /// One line on it, e.g. what config.txt needs.
    pub note: &'static str,
}

/// The header UART (pins 8 and 10) of the Pi whose model string is
/// `model` (/proc/device-tree/model); `None` when it is no Raspberry Pi.
pub fn header_uart(model: &str) -> Option<HeaderUart> {
    let uart = PiModel::parse(model)?.uart;
    Some(match uart {
        UartLayout::Pi5 => HeaderUart {
            path: "/dev/ttyAMA0",
            note: "header pins 8 and 10 with dtparam=uart0 in config.txt; /dev/serial0 is the \
                   3-pin debug connector (ttyAMA10)",
        },
        UartLayout::Bluetooth | UartLayout::MaybeBluetooth => HeaderUart {
            path: "/dev/serial0",
            note: "header pins 8 and 10 (enable_uart=1): ttyS0, the mini-UART, while \
                   Bluetooth holds the PL011; dtoverlay=disable-bt makes it ttyAMA0",
        },
        UartLayout::Pl011 => HeaderUart {
            path: "/dev/serial0",
            note: "header pins 8 and 10 (enable_uart=1): ttyAMA0",
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_pi_is_told_apart_by_its_model_string() {
        let layout = |s: &str| PiModel::parse(s).map(|m| m.uart);
        assert_eq!(
            layout("Raspberry Pi 5 Model B Rev 1.0\0"),
            Some(UartLayout::Pi5)
        );
        assert_eq!(layout("Raspberry Pi 500 Rev 1.0"), Some(UartLayout::Pi5));
        assert_eq!(
            layout("Raspberry Pi Compute Module 5 Rev 1.0"),
            Some(UartLayout::Pi5)
        );
        assert_eq!(
            layout("Raspberry Pi 4 Model B Rev 1.4\0"),
            Some(UartLayout::Bluetooth)
        );
        assert_eq!(
            layout("Raspberry Pi 3 Model B Plus Rev 1.3"),
            Some(UartLayout::Bluetooth)
        );
        assert_eq!(
            layout("Raspberry Pi Zero 2 W Rev 1.0"),
            Some(UartLayout::Bluetooth)
        );
        assert_eq!(
            layout("Raspberry Pi Compute Module 4 Rev 1.1"),
            Some(UartLayout::MaybeBluetooth)
        );
        assert_eq!(
            layout("Raspberry Pi 2 Model B Rev 1.1"),
            Some(UartLayout::Pl011)
        );
        assert_eq!(layout("Raspberry Pi Zero Rev 1.3"), Some(UartLayout::Pl011));
        assert_eq!(layout("linux,dummy-virt"), None);
        assert_eq!(layout(""), None);
    }

    #[test]
    fn a_section_for_another_model_does_not_apply() {
        let pi400 = PiModel::parse("Raspberry Pi 400 Rev 1.0").unwrap();
        assert!(pi400.matches("pi4") && pi400.matches("pi400"));
        assert!(!pi400.matches("pi5") && !pi400.matches("pi3") && !pi400.matches("cm4"));
        // Not a model filter: it may apply.
        assert!(pi400.matches("hdmi:0") && pi400.matches("gpio4=1"));
        let pi3b = PiModel::parse("Raspberry Pi 3 Model B Rev 1.2").unwrap();
        assert!(pi3b.matches("pi3") && !pi3b.matches("pi3+"));
    }

    #[test]
    fn the_header_uart_of_a_pi_5_is_not_serial0() {
        let pi5 = header_uart("Raspberry Pi 5 Model B Rev 1.0\0").unwrap();
        assert_eq!(pi5.path, "/dev/ttyAMA0");
        assert!(pi5.note.contains("dtparam=uart0") && pi5.note.contains("ttyAMA10"));
        let pi4 = header_uart("Raspberry Pi 4 Model B Rev 1.4").unwrap();
        assert_eq!(pi4.path, "/dev/serial0");
        assert!(pi4.note.contains("mini-UART") && pi4.note.contains("disable-bt"));
        assert_eq!(header_uart("Intel NUC"), None);
    }
}

//! The pinsetter's serial port against this machine: the kernel's console
//! or a login prompt on it (the next boot's command line first, then the
//! running kernel's, then the enabled `serial-getty@` units), and on a Pi
//! a port that is not the header's UART or is off in config.txt. Each
//! problem is worded with its fix.

use std::path::{Path, PathBuf};

use super::boot::BootConfig;
use super::console::{consoles, enabled_gettys, tty_name, unit_files};
use super::files::{Found, HostFiles};
use super::model::{PiModel, UartLayout};
use crate::config::validated::Config;

pub(super) fn port_check(
    config: &Config,
    files: &HostFiles,
    model: Option<&PiModel>,
    boot: Option<&(PathBuf, BootConfig)>,
    found: &mut Found,
) {
    let port = &config.pinsetter.port;
    let port_tty = tty_name(port);
    let port_name = port
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // `serial0` and `serial1` on a command line mean what /dev/serial0
    // and /dev/serial1 link to (the Pi's firmware rewrites them so).
    let same = |tty: &str| {
        let resolved = match tty.strip_prefix("serial") {
            Some(n) if n.bytes().all(|b| b.is_ascii_digit()) => tty_name(&files.dev.join(tty)),
            _ => tty.to_owned(),
        };
        resolved == port_tty || tty == port_name
    };
    let shown = if port_tty == port_name {
        port.display().to_string()
    } else {
        format!("{} ({port_tty})", port.display())
    };
    let mut problem = |message: String| found.problems.push(("pinsetter.port".into(), message));

    // The next boot's command line first: fixing it is the fix.
    let next = HostFiles::first(&files.boot_cmdline);
    let mut named = false;
    if let Some((path, text)) = &next {
        for c in consoles(text).iter().filter(|c| same(&c.tty)) {
            named = true;
            problem(format!(
                "{shown} is the kernel's console: {} has `{}`, so boot messages and a login \
                 prompt (systemd starts one on the console) go to the pinsetter, and its reports \
                 to the login. Remove `{}` from {} (or raspi-config → Interface Options → Serial \
                 Port: login shell over serial 'No', hardware 'Yes'), then reboot",
                path.display(),
                c.param,
                c.param,
                path.display()
            ));
        }
    }
    if !named && let Ok(text) = std::fs::read_to_string(&files.proc_cmdline) {
        for c in consoles(&text).iter().filter(|c| same(&c.tty)) {
            let fix = match &next {
                Some((path, _)) => format!(
                    "{} no longer has it: reboot to take the console off the port",
                    path.display()
                ),
                None => "remove it from the boot loader's kernel command line, then reboot".into(),
            };
            problem(format!(
                "{shown} is the running kernel's console (`{}` in {}), so boot messages and a \
                 login prompt go to the pinsetter; {fix}",
                c.param,
                files.proc_cmdline.display()
            ));
        }
    }
    for getty in enabled_gettys(&unit_files(&files.systemd_etc))
        .iter()
        .filter(|g| same(&g.tty))
    {
        problem(format!(
            "{shown} has a login prompt on it ({} is enabled: {}), which answers the pinsetter's \
             reports and takes its line: run `sudo systemctl disable --now {}`",
            getty.unit,
            files.systemd_etc.join(&getty.path).display(),
            getty.unit
        ));
    }

    let Some(model) = model else {
        return;
    };
    let boot = boot.map(|(path, b)| (path.display().to_string(), b));
    match model.uart {
        UartLayout::Pi5 if port == Path::new("/dev/serial0") || port_tty == "ttyAMA10" => {
            problem(format!(
                "{shown} is the 3-pin debug connector of this {}, not header pins 8 and 10: the \
                 header's UART is /dev/ttyAMA0 once config.txt has `dtparam=uart0`. Write port = \
                 \"/dev/ttyAMA0\" under [pinsetter], add dtparam=uart0 to \
                 /boot/firmware/config.txt, then reboot",
                model.name
            ));
        }
        UartLayout::Pi5 => {
            if let Some((path, b)) = &boot
                && port_tty == "ttyAMA0"
                && !b.uart0
            {
                problem(format!(
                    "{shown} is header pins 8 and 10 of this {} only once {path} turns it on: add \
                     the line dtparam=uart0 under [all] there, then reboot",
                    model.name
                ));
            }
        }
        UartLayout::Bluetooth => match &boot {
            Some((path, b)) if port_tty == "ttyAMA0" && !b.pl011_on_header => {
                problem(format!(
                    "{shown} is the Bluetooth chip's UART on this {}, not the header's: use \
                     /dev/serial0 (the mini-UART, ttyS0), or give the header the PL011 with \
                     dtoverlay=disable-bt in {path} (Bluetooth is then off), then reboot",
                    model.name
                ));
            }
            Some((path, b))
                if (port_tty == "ttyS0" || port_tty == "serial0")
                    && !b.enable_uart
                    && !b.pl011_on_header =>
            {
                problem(format!(
                    "{shown} is the header's mini-UART on this {}, which is off until {path} has \
                     enable_uart=1: add it under [all] (or raspi-config → Interface Options → \
                     Serial Port: hardware 'Yes'), then reboot",
                    model.name
                ));
            }
            _ => {}
        },
        UartLayout::MaybeBluetooth | UartLayout::Pl011 => {}
    }
}

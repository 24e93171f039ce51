//! The pinsetter's serial port: the ports found and what each is (a Pi's
//! header UART by its model, a USB adapter), which answer is taken (one
//! that exists, or a name under /dev/serial/by-id/ not plugged in yet),
//! and the question itself. It never opens a port.

use std::fs;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use super::Options;
use super::prompt::{Prompt, until};

/// Where a missing pinsetter port is still taken, with a warning: the
/// adapter's fixed name, copied before it is plugged in.
const BY_ID: &str = "/dev/serial/by-id/";

/// The serial ports found: the fixed names under /dev/serial/by-id/ first,
/// then /dev/ttyUSB*, /dev/ttyACM*, the Pi's UARTs (/dev/serial0 and 1,
/// /dev/ttyAMA*) and /dev/ttyS0 and 1 when they have a UART behind them
/// (the systemd unit allows these).
pub fn serial_ports() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let listed = |dir: &str, keep: &dyn Fn(&str) -> bool| {
        let mut names: Vec<PathBuf> = fs::read_dir(dir)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .filter(|e| keep(&e.file_name().to_string_lossy()))
                    .map(|e| e.path())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    found.extend(listed(BY_ID, &|_| true));
    found.extend(listed("/dev", &|n| {
        ["ttyUSB", "ttyACM", "serial", "ttyAMA"]
            .iter()
            .any(|p| n.starts_with(p))
            || ["ttyS0", "ttyS1"].contains(&n) && uart_behind(n)
    }));
    found
}

/// Whether the 8250 driver found a UART behind `/dev/NAME` (a PC has
/// ttyS0 to ttyS31 whatever it has).
fn uart_behind(name: &str) -> bool {
    fs::read_to_string(format!("/sys/class/tty/{name}/type")).is_ok_and(|t| t.trim() != "0")
}

/// What a serial port is, for the list `setup` shows: on a Pi, its
/// header UART (pins 8 and 10) by its model.
fn port_note(port: &Path) -> String {
    let model = crate::config::HostFiles::real().pi_model();
    port_note_on(port, model.as_ref().map(|m| m.name.as_str()))
}

/// [`port_note`] on the Pi whose model string is `model` (none: not a Pi,
/// or not known).
fn port_note_on(port: &Path, model: Option<&str>) -> String {
    let header = model.and_then(crate::config::header_uart);
    if let Some(h) = header.filter(|h| port == Path::new(h.path)) {
        return format!("this Pi's header UART: {}", h.note);
    }
    let pi5 = header.is_some_and(|h| h.path != "/dev/serial0");
    let name = port.file_name().unwrap_or_default().to_string_lossy();
    if pi5 && ["serial0", "ttyAMA10"].contains(&name.as_ref()) {
        return "this Pi 5's 3-pin debug connector, not the header: the header's is /dev/ttyAMA0"
            .into();
    }
    let note = match name.as_ref() {
        "serial0" => "the Pi's header UART (pins 8 and 10), whichever it is now",
        "serial1" => "the Pi's other UART (Bluetooth's, on a Pi with Bluetooth)",
        "ttyS0" => "a Pi's mini-UART: the header's while Bluetooth is on; a PC's COM1",
        "ttyS1" => "a PC's COM2",
        n if n.starts_with("ttyAMA") => "a Pi's UART: ttyAMA0 is the header's with Bluetooth off",
        _ if port.starts_with(BY_ID) => "a USB adapter, by a name that stays",
        _ => "a USB adapter",
    };
    note.into()
}

/// Whether a port answer is taken: one that exists; one under
/// /dev/serial/by-id/ that does not, with a warning, when `missing_by_id`.
fn port_ok(port: &Path, missing_by_id: bool) -> Result<(), String> {
    if port.as_os_str().is_empty() {
        return Err("give the pinsetter's serial port, e.g. /dev/ttyUSB0".into());
    }
    if port.exists() {
        return Ok(());
    }
    let by_id = port.starts_with(BY_ID);
    if by_id && missing_by_id {
        eprintln!(
            "warning: pinsetter.port: {} does not exist (yet): it is kept, and the lane opens \
             it once the adapter is plugged in",
            port.display()
        );
        return Ok(());
    }
    Err(format!(
        "{} does not exist: plug the adapter in and look for it with `ls -l {BY_ID}`{}",
        port.display(),
        if by_id {
            ""
        } else {
            " (a name there is kept even before the adapter is plugged in)"
        }
    ))
}

/// The pinsetter's serial port: `--port`, or asked from the ports found;
/// Enter keeps `configured` (the existing config's), plugged in or not.
pub(super) fn ask_port<R: BufRead>(
    options: &Options,
    prompt: &mut Prompt<R>,
    configured: Option<PathBuf>,
) -> Result<PathBuf, String> {
    Ok(match &options.port {
        Some(port) => {
            port_ok(port, true).map_err(|e| format!("pinsetter.port: {e}"))?;
            port.clone()
        }
        None => {
            let found = serial_ports();
            if found.is_empty() {
                println!("No serial port found (is the adapter plugged in?).");
            } else {
                println!("Serial ports found:");
                for (i, p) in found.iter().enumerate() {
                    let note = port_note(p);
                    match fs::canonicalize(p) {
                        Ok(real) if real != *p => {
                            println!(
                                "  {}) {} -> {}  ({note})",
                                i + 1,
                                p.display(),
                                real.display()
                            )
                        }
                        _ => println!("  {}) {}  ({note})", i + 1, p.display()),
                    }
                }
            }
            let was = configured
                .clone()
                .or_else(|| (found.len() == 1).then(|| found[0].clone()));
            let question = match &was {
                Some(p) => format!(
                    "Pinsetter port (a number above or a path) [{}]: ",
                    p.display()
                ),
                None => "Pinsetter port (a number above or a path): ".to_owned(),
            };
            until(
                prompt,
                "pinsetter.port",
                &question,
                false,
                |prompt, answer| {
                    let port = match (answer.parse::<usize>(), &was) {
                        (Ok(n), _) if (1..=found.len()).contains(&n) => found[n - 1].clone(),
                        _ if answer.is_empty() && was.is_some() => was.clone().unwrap_or_default(),
                        _ => PathBuf::from(&answer),
                    };
                    if Some(&port) == configured.as_ref() && !port.exists() {
                        println!(
                            "pinsetter.port: {} is not there now: kept as configured; the lane \
                             opens it once the adapter is plugged in",
                            port.display()
                        );
                        return Ok(port);
                    }
                    // A person is asked before a missing name is kept.
                    match port_ok(&port, !prompt.terminal) {
                        Err(e) if prompt.terminal && port.starts_with(BY_ID) => {
                            println!("pinsetter.port: {e}");
                            let keep = prompt.ask(
                                "Keep it anyway, for an adapter not plugged in yet? [y/N]: ",
                            )?;
                            if keep.eq_ignore_ascii_case("y") {
                                Ok(port)
                            } else {
                                Err("not kept".into())
                            }
                        }
                        r => r.map(|()| port),
                    }
                },
            )?
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_serial_port_is_said_what_it_is() {
        let note = |p: &str| port_note(Path::new(p));
        assert!(note("/dev/serial0").contains("header UART"));
        assert!(note("/dev/ttyS0").contains("mini-UART"));
        assert!(note("/dev/ttyAMA10").contains("Pi's UART"));
        assert!(note("/dev/ttyS1").contains("COM2"));
        assert!(note("/dev/serial/by-id/usb-FTDI-if00").contains("stays"));
        assert_eq!(note("/dev/ttyUSB0"), "a USB adapter");
    }

    #[test]
    fn a_pi_names_its_own_header_uart() {
        let on = |p: &str, model: &str| port_note_on(Path::new(p), Some(model));
        let pi5 = "Raspberry Pi 5 Model B Rev 1.0";
        assert!(
            on("/dev/ttyAMA0", pi5).contains("header UART")
                && on("/dev/ttyAMA0", pi5).contains("dtparam=uart0")
        );
        assert!(on("/dev/serial0", pi5).contains("debug connector"));
        assert!(on("/dev/ttyAMA10", pi5).contains("debug connector"));
        let pi4 = "Raspberry Pi 4 Model B Rev 1.4";
        assert!(
            on("/dev/serial0", pi4).contains("header UART")
                && on("/dev/serial0", pi4).contains("mini-UART")
        );
        assert!(on("/dev/ttyAMA0", pi4).contains("Bluetooth off"));
        assert_eq!(
            port_note_on(Path::new("/dev/serial0"), None),
            port_note_on(Path::new("/dev/serial0"), Some("PC"))
        );
    }
}

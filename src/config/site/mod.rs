//! What this machine's own files say about a valid config, before a
//! technician loses a day to it on a real Raspberry Pi:
//!
//! - `storage`: a `state_dir` on a file system kept in memory (tmpfs,
//!   ramfs, raspi-config's overlay root), where the journal does not
//!   survive a power cut;
//! - `console`: the kernel's console or a login prompt on the pinsetter's
//!   serial port (the kernel command line, cmdline.txt, the enabled
//!   `serial-getty@` units);
//! - `model`: which Pi this is, and which device its header UART is (a
//!   Pi 5's `/dev/serial0` is its debug connector);
//! - `boot`: the pins config.txt gives to I2C, SPI, the UART, I2S or an
//!   overlay, which a wired sensor or switch must not be on, and whether
//!   I2C is on for the pin switches' expander.
//!
//! `serial` and `wiring` hold the config against what those say (the
//! pinsetter's port; the wired GPIOs), each problem worded with its fix;
//! the journal's folder is checked here.
//!
//! Each is a pure function of the text it is given, tested with fake
//! files; [`HostFiles`] says where the real ones are, and [`check`] reads
//! them for `Config::site_check` (check-config, setup, and the log of
//! `lanecall run`). It never opens the serial port nor a GPIO, and never
//! writes a file.

mod boot;
mod console;
mod files;
mod model;
mod serial;
mod storage;
mod wiring;

pub use boot::{BootConfig, Claim, read_boot_config};
pub use console::{Console, Getty, UnitFile, consoles, enabled_gettys, tty_name, unit_files};
pub use model::{HeaderUart, PiModel, UartLayout, header_uart};
use serial::port_check;
pub use storage::{Mount, VolatileFs, mount_of, volatile_storage};
use wiring::pins_check;

use super::validated::Config;
pub(super) use files::Found;
pub use files::HostFiles;

/// The machine's files read against `config`.
pub(super) fn check(config: &Config, files: &HostFiles) -> Found {
    let mut found = Found::default();
    storage_check(config, files, &mut found);
    let model = files.pi_model();
    let boot = HostFiles::first(&files.boot_config)
        .map(|(path, text)| (path.to_path_buf(), read_boot_config(&text, model.as_ref())));
    if config.switches.is_none() && !config.pinsetter.port.as_os_str().is_empty() {
        port_check(config, files, model.as_ref(), boot.as_ref(), &mut found);
    }
    if let Some((path, boot)) = &boot {
        pins_check(config, path, boot, &mut found);
    }
    found
}

fn storage_check(config: &Config, files: &HostFiles, found: &mut Found) {
    let dir = &config.state_dir;
    let Some(fs) = volatile_storage(dir) else {
        return;
    };
    let mount = storage::existing(dir).and_then(|p| {
        let text = std::fs::read_to_string(&files.mountinfo).ok()?;
        mount_of(&text, &p)
    });
    let on = match mount {
        Some(m) => format!(
            " (the {} mounted at {} from {})",
            m.fstype,
            m.point.display(),
            m.source
        ),
        None => String::new(),
    };
    let what = format!("{} is on {fs}{on}, {}", dir.display(), fs.why());
    if config.journal.allow_volatile {
        found.notes.push(format!(
            "state_dir: {what}; accepted (journal.allow_volatile = true), but no game played \
             here survives a power cut"
        ));
        return;
    }
    let fix = match fs {
        VolatileFs::Overlayfs => {
            "turn the overlay file system off (raspi-config → Performance Options → Overlay \
             File System), or put /var/lib/lanecall on its own writable partition"
        }
        VolatileFs::Tmpfs | VolatileFs::Ramfs => {
            "keep the journals on the SD card or a disk (state_dir = \"/var/lib/lanecall\", not \
             under /tmp or /run), or put /var/lib/lanecall on its own writable partition"
        }
    };
    found.problems.push((
        "state_dir".into(),
        format!(
            "{what}: the journal would not survive one, and a power cut mid-game would lose the \
             game. To fix it, {fix}. (For a demo or a bench, allow_volatile = true under \
             [journal] accepts it.)"
        ),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Problem;
    use std::path::{Path, PathBuf};

    /// A PIN hash that is not the example's placeholder (whose bytes are
    /// all zero), so check-config has nothing to say about it.
    const HASH: &str =
        "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

    /// A fake Pi: a root with the files `HostFiles::under` reads, each
    /// written as given, and /dev links.
    struct Pi {
        root: PathBuf,
    }

    impl Pi {
        fn new(name: &str, model: &str) -> Pi {
            let root =
                std::env::temp_dir().join(format!("lanecall-pi-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            let pi = Pi { root };
            pi.write("proc/device-tree/model", &format!("{model}\0"));
            pi.write(
                "proc/cmdline",
                "coherent_pool=1M 8250.nr_uarts=1 console=tty1 quiet",
            );
            pi.write(
                "boot/firmware/cmdline.txt",
                "console=tty1 root=PARTUUID=1234-02 rootfstype=ext4 fsck.repair=yes rootwait\n",
            );
            std::fs::create_dir_all(pi.root.join("etc/systemd/system")).unwrap();
            pi
        }

        fn write(&self, path: &str, text: &str) {
            let path = self.root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }

        /// /dev/NAME, a link to /dev/TTY (made) when `tty` is given.
        fn dev(&self, name: &str, tty: Option<&str>) -> PathBuf {
            let dev = self.root.join("dev");
            std::fs::create_dir_all(&dev).unwrap();
            if let Some(tty) = tty {
                std::fs::write(dev.join(tty), "").unwrap();
                if tty != name {
                    let _ = std::os::unix::fs::symlink(tty, dev.join(name));
                }
            }
            dev.join(name)
        }

        fn enable(&self, wants: &str, unit: &str) {
            let dir = self.root.join("etc/systemd/system").join(wants);
            std::fs::create_dir_all(&dir).unwrap();
            std::os::unix::fs::symlink("/lib/systemd/system/serial-getty@.service", dir.join(unit))
                .unwrap();
        }

        /// check-config's problems for `config` on this Pi.
        fn problems(&self, config: &str) -> Vec<Problem> {
            let config = Config::parse(config, Path::new("lanecall.toml"))
                .unwrap_or_else(|e| panic!("{e}\n{config}"));
            let host = crate::config::Host {
                cap_net_bind_service: Some(true),
                unprivileged_port_start: 1024,
                unit_grant: None,
                files: HostFiles::under(&self.root),
            };
            config.site_check(&host, "").problems
        }
    }

    impl Drop for Pi {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }

    /// A lane on the Pi's GPIO with the foul beam on `beam` and the
    /// pinsetter on `port`; its state folder accepted wherever it is (the
    /// storage check has its own test).
    fn lane(port: &Path, beam: u8) -> String {
        format!(
            "lane = 4\nstate_dir = \"/var/lib/lanecall\"\n[journal]\nallow_volatile = true\n\
             [pinsetter]\nport = {:?}\n[gpio]\nbackend = \"rpi\"\n\
             [gpio.inputs.foul_beam]\npin = {beam}\n[gpio.inputs.ball]\npin = 27\n\
             [gpio.outputs.foul_lamp]\npin = 24\n[gpio.outputs.pinsetter_reset]\npin = 25\n\
             [web]\njudge_pin_hash = \"{HASH}\"\n",
            port.display().to_string()
        )
    }

    fn says(problems: &[Problem], key: &str, fragments: &[&str]) {
        assert!(
            problems
                .iter()
                .any(|p| p.key == key && fragments.iter().all(|f| p.message.contains(f))),
            "no {key}: {fragments:?} in {problems:#?}"
        );
    }

    #[test]
    fn a_pi_set_up_right_has_nothing_to_say() {
        let pi = Pi::new("right", "Raspberry Pi 4 Model B Rev 1.4");
        pi.write(
            "boot/firmware/config.txt",
            "dtparam=audio=on\n[all]\nenable_uart=1\n",
        );
        let port = pi.dev("serial0", Some("ttyS0"));
        assert_eq!(pi.problems(&lane(&port, 17)), []);
    }

    #[test]
    fn a_login_console_on_the_pinsetters_port_is_refused_with_the_line_to_remove() {
        // raspi-config's "login shell over serial: Yes" on a Pi 4.
        let pi = Pi::new("console", "Raspberry Pi 4 Model B Rev 1.4");
        pi.write(
            "boot/firmware/cmdline.txt",
            "console=serial0,115200 console=tty1 root=PARTUUID=1234-02 rootwait\n",
        );
        pi.write(
            "proc/cmdline",
            "console=ttyS0,115200 console=tty1 root=PARTUUID=1234-02",
        );
        pi.write("boot/firmware/config.txt", "enable_uart=1\n");
        let port = pi.dev("serial0", Some("ttyS0"));
        let problems = pi.problems(&lane(&port, 17));
        assert_eq!(problems.len(), 1, "{problems:#?}");
        says(
            &problems,
            "pinsetter.port",
            &[
                "(ttyS0) is the kernel's console",
                "Remove `console=serial0,115200` from",
                "boot/firmware/cmdline.txt",
                "login shell over serial 'No', hardware 'Yes'",
                "then reboot",
            ],
        );
        // Taken out of cmdline.txt, but not rebooted yet.
        pi.write(
            "boot/firmware/cmdline.txt",
            "console=tty1 root=PARTUUID=1234-02\n",
        );
        says(
            &pi.problems(&lane(&port, 17)),
            "pinsetter.port",
            &["`console=ttyS0,115200`", "no longer has it: reboot"],
        );
        // A USB adapter is not the console.
        let usb = pi.dev("ttyUSB0", Some("ttyUSB0"));
        assert_eq!(pi.problems(&lane(&usb, 17)), []);
    }

    #[test]
    fn an_enabled_serial_getty_on_the_port_is_refused_with_the_command_to_disable_it() {
        let pi = Pi::new("getty", "Raspberry Pi 4 Model B Rev 1.4");
        pi.write(
            "boot/firmware/config.txt",
            "enable_uart=1\ndtoverlay=disable-bt\n",
        );
        pi.enable("getty.target.wants", "serial-getty@ttyAMA0.service");
        let port = pi.dev("serial0", Some("ttyAMA0"));
        let problems = pi.problems(&lane(&port, 17));
        assert_eq!(problems.len(), 1, "{problems:#?}");
        says(
            &problems,
            "pinsetter.port",
            &["sudo systemctl disable --now serial-getty@ttyAMA0.service"],
        );
    }

    #[test]
    fn pin_switches_are_not_on_a_serial_port_but_their_expander_needs_i2c() {
        let pi = Pi::new("switches", "Raspberry Pi 4 Model B Rev 1.4");
        pi.write(
            "boot/firmware/cmdline.txt",
            "console=serial0,115200 console=tty1\n",
        );
        pi.write("boot/firmware/config.txt", "#dtparam=i2c_arm=on\n");
        let port = pi.dev("serial0", Some("ttyS0"));
        let text = lane(&port, 17).replace(
            "[gpio]",
            "kind = \"pin_switches\"\n[pinsetter.switches]\n\
             pins = [\"A0\", \"A1\", \"A2\", \"A3\", \"A4\", \"A5\", \"A6\", \"A7\", \"B0\", 3]\n\
             [gpio]",
        );
        let problems = pi.problems(&text);
        assert_eq!(problems.len(), 1, "{problems:#?}");
        says(
            &problems,
            "pinsetter.switches.pins",
            &[
                "MCP23017 on /dev/i2c-1",
                "dtparam=i2c_arm=on",
                "then reboot",
            ],
        );
        // With I2C on, pin 10's switch on BCM 3 is on the bus's clock.
        pi.write("boot/firmware/config.txt", "[all]\ndtparam=i2c_arm=on\n");
        let problems = pi.problems(&text);
        assert_eq!(problems.len(), 1, "{problems:#?}");
        says(
            &problems,
            "pinsetter.switches.pins[10]",
            &[
                "BCM 3 (header pin 5) is taken by I2C",
                "line 2 has `dtparam=i2c_arm=on`",
            ],
        );
    }

    #[test]
    fn a_sensor_on_a_pin_a_hat_or_an_overlay_owns_names_the_config_txt_line() {
        let pi = Pi::new("pins", "Raspberry Pi 4 Model B Rev 1.4");
        pi.write(
            "boot/firmware/config.txt",
            "enable_uart=1\n[pi5]\ndtoverlay=gpio-shutdown,gpio_pin=17\n[pi4]\n\
             dtoverlay=hifiberry-dac\n[all]\ndtoverlay=gpio-poweroff,gpiopin=24\n",
        );
        let port = pi.dev("ttyUSB0", Some("ttyUSB0"));
        // The foul beam on 17 is only the Pi 5's shutdown button: not here.
        let problems = pi.problems(&lane(&port, 17).replace("pin = 27", "pin = 19"));
        assert_eq!(problems.len(), 2, "{problems:#?}");
        says(
            &problems,
            "gpio.inputs.ball.pin",
            &[
                "BCM 19",
                "I2S sound",
                "line 5 has `dtoverlay=hifiberry-dac`",
            ],
        );
        says(
            &problems,
            "gpio.outputs.foul_lamp.pin",
            &["BCM 24", "gpio-poweroff", "line 7"],
        );
        // Not knowing the model, every section may apply.
        pi.write("proc/device-tree/model", "");
        let problems = pi.problems(&lane(&port, 17));
        says(
            &problems,
            "gpio.inputs.foul_beam.pin",
            &["gpio-shutdown", "line 3"],
        );
    }

    #[test]
    fn a_pi_5_pinsetter_on_serial0_is_on_the_debug_connector() {
        let pi = Pi::new("pi5", "Raspberry Pi 5 Model B Rev 1.0");
        pi.write("boot/firmware/config.txt", "[all]\n");
        let port = pi.dev("serial0", Some("ttyAMA10"));
        says(
            &pi.problems(&lane(&port, 17)),
            "pinsetter.port",
            &["3-pin debug connector", "/dev/ttyAMA0", "dtparam=uart0"],
        );
        // The header's UART needs dtparam=uart0.
        let header = pi.dev("ttyAMA0", Some("ttyAMA0"));
        says(
            &pi.problems(&lane(&header, 17)),
            "pinsetter.port",
            &["add the line dtparam=uart0"],
        );
        pi.write("boot/firmware/config.txt", "[all]\ndtparam=uart0\n");
        assert_eq!(pi.problems(&lane(&header, 17)), []);
    }

    #[test]
    fn a_pi_4_pinsetter_on_ttyama0_is_on_bluetooth() {
        let pi = Pi::new("bt", "Raspberry Pi 4 Model B Rev 1.4");
        pi.write("boot/firmware/config.txt", "enable_uart=1\n");
        let port = pi.dev("ttyAMA0", Some("ttyAMA0"));
        says(
            &pi.problems(&lane(&port, 17)),
            "pinsetter.port",
            &["Bluetooth chip's UART", "dtoverlay=disable-bt"],
        );
        let mini = pi.dev("ttyS0", Some("ttyS0"));
        pi.write("boot/firmware/config.txt", "#enable_uart=1\n");
        says(
            &pi.problems(&lane(&mini, 17)),
            "pinsetter.port",
            &["mini-UART", "enable_uart=1"],
        );
    }

    #[test]
    fn a_journal_on_a_tmpfs_is_refused_unless_allowed() {
        let shm = Path::new("/dev/shm");
        if volatile_storage(shm) != Some(VolatileFs::Tmpfs) {
            return; // no tmpfs to try it on
        }
        let pi = Pi::new("tmpfs", "Raspberry Pi 4 Model B Rev 1.4");
        pi.write(
            "proc/self/mountinfo",
            "1 0 8:1 / / rw - ext4 /dev/root rw\n2 1 0:5 / /dev/shm rw - tmpfs tmpfs rw\n",
        );
        let port = pi.dev("ttyUSB0", Some("ttyUSB0"));
        let text = lane(&port, 17).replace("/var/lib/lanecall", "/dev/shm/lanecall-demo");
        let refused = text.replace("allow_volatile = true", "allow_volatile = false");
        let problems = pi.problems(&refused);
        assert_eq!(problems.len(), 1, "{problems:#?}");
        says(
            &problems,
            "state_dir",
            &[
                "/dev/shm/lanecall-demo is on tmpfs (the tmpfs mounted at /dev/shm from tmpfs)",
                "power cut",
                "allow_volatile = true",
            ],
        );
        let config = Config::parse(&text, Path::new("lanecall.toml")).unwrap();
        let host = crate::config::Host {
            cap_net_bind_service: Some(true),
            unprivileged_port_start: 1024,
            unit_grant: None,
            files: HostFiles::under(&pi.root),
        };
        let check = config.site_check(&host, "");
        assert_eq!(check.problems, []);
        assert!(
            check
                .notes
                .iter()
                .any(|n| n.contains("journal.allow_volatile = true")),
            "{:?}",
            check.notes
        );
    }
}

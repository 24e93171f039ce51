//! What else may use the pinsetter's serial port, found without opening
//! it: the kernel's console (`console=` on its command line, which also
//! makes systemd start a login there) and a login prompt (a
//! `serial-getty@` unit enabled in /etc/systemd/system). Either writes
//! into the pinsetter's line and reads its reports.
//!
//! Pure but for [`unit_files`] and [`tty_name`], which read the folders
//! and links they are given.

use std::path::{Path, PathBuf};

/// A `console=` of a kernel command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Console {
    /// As written, e.g. `console=serial0,115200`.
    pub param: String,
    /// The device's name, e.g. `serial0`, `ttyAMA0`.
    pub tty: String,
}

/// The `console=` parameters of a kernel command line (/proc/cmdline or
/// cmdline.txt) that are not a screen's (`tty1`): the kernel's own, before
/// a `--` (after it, they are init's).
pub fn consoles(cmdline: &str) -> Vec<Console> {
    cmdline
        .split_whitespace()
        .take_while(|w| *w != "--")
        .filter_map(|w| {
            let value = w.strip_prefix("console=")?;
            let tty = value.split(',').next().unwrap_or("");
            let screen = tty
                .strip_prefix("tty")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            (!tty.is_empty() && !screen).then(|| Console {
                param: w.to_owned(),
                tty: tty.to_owned(),
            })
        })
        .collect()
}

/// A unit file or link in /etc/systemd/system, by its path there
/// (`getty.target.wants/serial-getty@ttyAMA0.service`), with where it
/// links to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitFile {
    pub path: PathBuf,
    pub target: Option<PathBuf>,
}

/// A login prompt systemd starts on a serial port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Getty {
    /// `serial-getty@ttyAMA0.service`.
    pub unit: String,
    /// `ttyAMA0`.
    pub tty: String,
    /// Where it is enabled, relative to /etc/systemd/system.
    pub path: PathBuf,
}

/// The gettys enabled by `files` (/etc/systemd/system's): a
/// `serial-getty@` or `getty@` instance in a `*.wants` folder, or an
/// instance unit of its own there; not one masked (linked to /dev/null),
/// which systemd never starts.
pub fn enabled_gettys(files: &[UnitFile]) -> Vec<Getty> {
    let masked = |unit: &str| {
        files.iter().any(|f| {
            f.path == Path::new(unit) && f.target.as_deref() == Some(Path::new("/dev/null"))
        })
    };
    let mut found: Vec<Getty> = Vec::new();
    for file in files {
        let Some(unit) = file.path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some(tty) = ["serial-getty@", "getty@"]
            .iter()
            .find_map(|p| unit.strip_prefix(p)?.strip_suffix(".service"))
        else {
            continue;
        };
        let parent = file.path.parent().and_then(|p| p.to_str()).unwrap_or("");
        let wanted = parent.ends_with(".wants");
        let own = parent.is_empty() && file.target.as_deref() != Some(Path::new("/dev/null"));
        if tty.is_empty()
            || !(wanted || own)
            || masked(unit)
            || found.iter().any(|g| g.unit == unit)
        {
            continue;
        }
        found.push(Getty {
            unit: unit.to_owned(),
            tty: tty.to_owned(),
            path: file.path.clone(),
        });
    }
    found
}

/// The unit files in `dir` (/etc/systemd/system) and in its `*.wants`
/// folders, by their paths relative to it; none when it cannot be read.
pub fn unit_files(dir: &Path) -> Vec<UnitFile> {
    let entries = |d: &Path| -> Vec<PathBuf> {
        let mut names: Vec<PathBuf> = std::fs::read_dir(d)
            .map(|r| r.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        names.sort();
        names
    };
    let mut files = Vec::new();
    for path in entries(dir) {
        let Some(name) = path.file_name().map(PathBuf::from) else {
            continue;
        };
        if name.to_string_lossy().ends_with(".wants") && path.is_dir() {
            for inner in entries(&path) {
                if let Some(n) = inner.file_name() {
                    files.push(UnitFile {
                        path: name.join(n),
                        target: std::fs::read_link(&inner).ok(),
                    });
                }
            }
        } else {
            files.push(UnitFile {
                target: std::fs::read_link(&path).ok(),
                path: name,
            });
        }
    }
    files
}

/// The tty a device path names: its links followed (`/dev/serial0` →
/// `ttyAMA0`, a `/dev/serial/by-id/` name → `ttyUSB0`); its own name when
/// it cannot be followed (not plugged in, not there).
pub fn tty_name(path: &Path) -> String {
    std::fs::canonicalize(path)
        .ok()
        .as_deref()
        .unwrap_or(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_serial_consoles_are_found_and_a_screens_is_not() {
        let cmdline = "console=serial0,115200 console=tty1 root=PARTUUID=1234-02 rootfstype=ext4 \
                       fsck.repair=yes rootwait quiet splash";
        let found = consoles(cmdline);
        assert_eq!(
            found,
            [Console {
                param: "console=serial0,115200".into(),
                tty: "serial0".into()
            }]
        );
        let pi5 = consoles("coherent_pool=1M 8250.nr_uarts=1 console=ttyAMA10,115200 console=tty1");
        assert_eq!(pi5[0].tty, "ttyAMA10");
        // After `--`, a parameter is init's.
        assert!(consoles("quiet -- console=ttyS0").is_empty());
        assert!(consoles("console=ttyS0").iter().any(|c| c.tty == "ttyS0"));
    }

    fn unit(path: &str, target: Option<&str>) -> UnitFile {
        UnitFile {
            path: PathBuf::from(path),
            target: target.map(PathBuf::from),
        }
    }

    #[test]
    fn an_enabled_login_on_a_serial_port_is_found_and_a_masked_one_is_not() {
        let files = [
            unit(
                "getty.target.wants/getty@tty1.service",
                Some("/usr/lib/systemd/system/getty@.service"),
            ),
            unit(
                "getty.target.wants/serial-getty@ttyAMA0.service",
                Some("/usr/lib/systemd/system/serial-getty@.service"),
            ),
            unit(
                "multi-user.target.wants/serial-getty@ttyS0.service",
                Some("/usr/lib/systemd/system/serial-getty@.service"),
            ),
            unit("serial-getty@ttyS0.service", Some("/dev/null")),
            unit("serial-getty@ttyUSB1.service", None),
            unit("multi-user.target.wants/lanecall.service", None),
        ];
        let ttys: Vec<String> = enabled_gettys(&files).into_iter().map(|g| g.tty).collect();
        assert_eq!(ttys, ["tty1", "ttyAMA0", "ttyUSB1"]);
    }

    #[test]
    fn the_units_are_read_from_the_folder_and_its_wants() {
        let dir = std::env::temp_dir().join(format!("lanecall-units-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("getty.target.wants")).unwrap();
        std::os::unix::fs::symlink(
            "/lib/systemd/system/serial-getty@.service",
            dir.join("getty.target.wants/serial-getty@ttyS0.service"),
        )
        .unwrap();
        std::os::unix::fs::symlink("/dev/null", dir.join("serial-getty@ttyAMA0.service")).unwrap();
        let files = unit_files(&dir);
        assert_eq!(files.len(), 2, "{files:?}");
        let gettys = enabled_gettys(&files);
        assert_eq!(gettys.len(), 1);
        assert_eq!(gettys[0].unit, "serial-getty@ttyS0.service");
        assert!(unit_files(&dir.join("none")).is_empty());

        // /dev/serial0 -> ttyS0, followed.
        std::fs::write(dir.join("ttyS0"), "").unwrap();
        std::os::unix::fs::symlink("ttyS0", dir.join("serial0")).unwrap();
        assert_eq!(tty_name(&dir.join("serial0")), "ttyS0");
        assert_eq!(tty_name(&dir.join("serial1")), "serial1");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! What `lanecall check-config` checks beyond the file: a PIN hash left as
//! the example's placeholder, a panel port below 1024 that neither this
//! process nor the systemd unit may bind (with the note when a drop-in
//! grants it), a `[centre]` password file that cannot be read or that
//! others may read, and what the machine's own files say (`site`: a
//! journal on a file system a power cut empties, a console or a login on
//! the pinsetter's port, a Pi 5's debug connector taken for its header
//! UART, a wired pin config.txt gives to a bus). A config file others may
//! read is a warning ([`mode_warning`]), for check-config and `lanecall
//! run` alike.
//!
//! It decides check-config's problems and notes about a valid file; it
//! never changes the config. (`lanecall run` refuses a placeholder PIN
//! itself: `setup::placeholder_pins`.)

use std::path::{Path, PathBuf};

use super::collect::position;
use super::problem::Problem;
use super::site::HostFiles;
use super::validated::Config;

// ---------------------------------------------------------------------------
// Step 3: what `lanecall check-config` checks beyond the file
// ---------------------------------------------------------------------------

/// What the file cannot tell by itself: found by `lanecall check-config`;
/// the daemon's start only logs them, but refuses a placeholder PIN.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SiteCheck {
    /// Each makes check-config fail.
    pub problems: Vec<Problem>,
    /// Worth knowing, not wrong.
    pub notes: Vec<String>,
}

/// What this machine lets a process do, as [`Config::site_check`] needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    /// Whether CAP_NET_BIND_SERVICE (bit 10) is in `CapEff` of
    /// /proc/self/status; `None` when that cannot be read.
    pub cap_net_bind_service: Option<bool>,
    /// `net.ipv4.ip_unprivileged_port_start`: ports below it need the
    /// capability (1024 when it cannot be read, the kernel's default).
    pub unprivileged_port_start: u16,
    /// The installed unit file or drop-in whose `AmbientCapabilities=`
    /// gives the service CAP_NET_BIND_SERVICE, if one does.
    pub unit_grant: Option<PathBuf>,
    /// Where the machine's files are (the kernel command line, config.txt,
    /// the enabled units, the Pi's model), for the checks of `site`.
    pub files: HostFiles,
}

/// Where systemd finds the service's unit, first found first: a copy in
/// /etc overrides the package's.
const UNITS: [&str; 3] = [
    "/etc/systemd/system/lanecall.service",
    "/usr/lib/systemd/system/lanecall.service",
    "/lib/systemd/system/lanecall.service",
];

/// The local drop-ins (`systemctl edit lanecall`).
const DROP_INS: &str = "/etc/systemd/system/lanecall.service.d";

impl Host {
    /// This process on this machine.
    pub fn this() -> Host {
        let cap = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|status| {
                let hex = status.lines().find_map(|l| l.strip_prefix("CapEff:"))?;
                u64::from_str_radix(hex.trim(), 16).ok()
            })
            .map(|eff| eff & (1 << 10) != 0);
        let start = std::fs::read_to_string("/proc/sys/net/ipv4/ip_unprivileged_port_start")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(1024);
        let unit = UNITS.iter().map(PathBuf::from).find(|p| p.exists());
        let mut files: Vec<PathBuf> = unit.into_iter().collect();
        if let Ok(dir) = std::fs::read_dir(DROP_INS) {
            let mut confs: Vec<PathBuf> = dir
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "conf"))
                .collect();
            confs.sort();
            files.extend(confs);
        }
        let units: Vec<(PathBuf, String)> = files
            .into_iter()
            .filter_map(|f| std::fs::read_to_string(&f).ok().map(|t| (f, t)))
            .collect();
        Host {
            cap_net_bind_service: cap,
            unprivileged_port_start: start,
            unit_grant: unit_grant(&units),
            files: HostFiles::real(),
        }
    }
}

/// The file that gives the service CAP_NET_BIND_SERVICE, when the unit
/// and its drop-ins (in systemd's order) leave it both in the ambient set
/// and in the bounding set. Each line adds to a set; `~` takes away; an
/// empty value empties the set (the shipped unit's `CapabilityBoundingSet=`).
pub fn unit_grant(units: &[(PathBuf, String)]) -> Option<PathBuf> {
    const CAP: &str = "CAP_NET_BIND_SERVICE";
    let mut ambient: Option<&Path> = None;
    let mut bounding = true;
    for (path, text) in units {
        for line in text.lines().map(str::trim) {
            if line.starts_with(['#', ';']) {
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            let value = value.trim();
            let named = value
                .trim_start_matches('~')
                .split_whitespace()
                .any(|c| c == CAP);
            let has = if value.is_empty() {
                false
            } else if value.starts_with('~') {
                !named
            } else {
                named
            };
            match key.trim() {
                "AmbientCapabilities" if has => ambient = Some(path),
                "AmbientCapabilities" if value.is_empty() || value.starts_with('~') => {
                    ambient = None;
                }
                "CapabilityBoundingSet" if value.is_empty() || value.starts_with('~') => {
                    bounding = has && bounding;
                }
                "CapabilityBoundingSet" => bounding |= has,
                _ => {}
            }
        }
    }
    ambient.filter(|_| bounding).map(Path::to_path_buf)
}

/// `[centre] password_file`'s password, its first line, read when the
/// link starts and by check-config. A file others may read is refused: the
/// password is the lane's right to publish as itself.
pub fn read_password_file(path: &Path) -> Result<String, String> {
    use std::os::unix::fs::PermissionsExt as _;
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if meta.permissions().mode() & 0o004 != 0 {
        return Err(
            "anyone on the machine can read it: chmod o-r it (e.g. chmod 640, group lanecall)"
                .into(),
        );
    }
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let password = text.lines().next().unwrap_or("").to_owned();
    if password.is_empty() {
        return Err("is empty: write the password on its first line".into());
    }
    Ok(password)
}

/// What to say when anyone on the machine may read the config file at
/// `path` (it holds the judge PIN hashes): a warning, not an error, since
/// the lane still runs; `None` when others may not read it, or its mode
/// cannot be read.
pub fn mode_warning(path: &Path) -> Option<String> {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o7777;
    (mode & 0o004 != 0).then(|| {
        format!(
            "{0}: anyone on the machine can read it (mode {mode:04o}) and the judge PIN \
             hashes in it: run `chmod 640 {0}` (group lanecall reads it)",
            path.display()
        )
    })
}

/// A PIN hash that no PIN opens: the example file's placeholder, whose
/// hash bytes are all zero (no real argon2 output is).
pub fn is_placeholder_hash(hash: &str) -> bool {
    argon2::PasswordHash::new(hash)
        .ok()
        .and_then(|phc| phc.hash)
        .is_some_and(|h| h.as_bytes().iter().all(|&b| b == 0))
}

impl Config {
    /// The problems a valid file can still have on a lane: a PIN hash left
    /// as the example's placeholder, a panel port below 1024 that this
    /// process may not bind, and what `host`'s files say (see `site`).
    /// `text` is the file, for the keys' lines.
    pub fn site_check(&self, host: &Host, text: &str) -> SiteCheck {
        let mut check = SiteCheck::default();
        let mut problem = |key: String, message: String| {
            let at = position(text, &key);
            check.problems.push(Problem { key, message, at });
        };
        const SET: &str = "it is the example's placeholder, which no PIN opens: run \
                           `lanecall hash-pin PIN` with the judge's PIN (6 to 12 digits) and \
                           paste the line it prints here (docs/install.md, section 3)";
        if self
            .web
            .judge_pin_hash
            .as_deref()
            .is_some_and(is_placeholder_hash)
        {
            problem("web.judge_pin_hash".into(), SET.into());
        }
        for (i, judge) in self.web.judges.iter().enumerate() {
            if is_placeholder_hash(&judge.pin_hash) {
                problem(format!("web.judges[{}].pin_hash", i + 1), SET.into());
            }
        }

        // A voice named by `[speaker] voice` that the machine does not have.
        if let Some(dir) = &self.speaker.voice_folder()
            && let Ok(name) = dir.strip_prefix(super::defaults::VOICES_DIR)
            && !dir.is_dir()
        {
            let installed: Vec<String> = std::fs::read_dir(super::defaults::VOICES_DIR)
                .map(|d| {
                    d.flatten()
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default();
            let installed = match installed.is_empty() {
                true => "none".to_owned(),
                false => installed.join(", "),
            };
            problem(
                "speaker.voice".into(),
                format!(
                    "no voice {:?} in {} (installed: {installed}; \"builtin\" is always there)",
                    name.display().to_string(),
                    super::defaults::VOICES_DIR
                ),
            );
        }

        let port = self.web.listen.port();
        // Port 0 takes any free port, never a low one.
        if port != 0
            && port < host.unprivileged_port_start
            && host.cap_net_bind_service != Some(true)
        {
            let checked = match host.cap_net_bind_service {
                Some(_) => "this process lacks CAP_NET_BIND_SERVICE (CapEff in /proc/self/status)",
                None => "this process cannot read its capabilities (/proc/self/status)",
            };
            let start = host.unprivileged_port_start;
            match &host.unit_grant {
                Some(unit) => check.notes.push(format!(
                    "web.listen: port {port} is below {start} and {checked}, but {} gives the \
                     service CAP_NET_BIND_SERVICE (AmbientCapabilities=), so the service may \
                     bind it",
                    unit.display()
                )),
                None => problem(
                    "web.listen".into(),
                    format!(
                        "port {port} is below {start} (net.ipv4.ip_unprivileged_port_start) and \
                         {checked}. Nor does the service get it: the shipped unit \
                         (systemd/lanecall.service) empties CapabilityBoundingSet=, and neither \
                         the installed unit nor a drop-in in {DROP_INS} adds \
                         AmbientCapabilities=CAP_NET_BIND_SERVICE. Use a port from 1024 up, \
                         e.g. listen = \"0.0.0.0:8080\""
                    ),
                ),
            }
        }

        // The machine's own files: storage, serial console, header UART,
        // the pins config.txt gives away.
        let found = super::site::check(self, &host.files);
        for (key, message) in found.problems {
            problem(key, message);
        }
        check.notes.extend(found.notes);

        if let Some(file) = self
            .centre
            .as_ref()
            .and_then(|c| c.password_file.as_deref())
            && let Err(e) = read_password_file(file)
        {
            problem(
                "centre.password_file".into(),
                format!("{}: {e}", file.display()),
            );
        }
        check
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_unit_grants_no_low_port_and_a_drop_in_can() {
        let shipped = (
            PathBuf::from("lanecall.service"),
            include_str!("../../systemd/lanecall.service").to_owned(),
        );
        assert_eq!(unit_grant(std::slice::from_ref(&shipped)), None);
        let drop_in = |text: &str| (PathBuf::from("port.conf"), text.to_owned());
        // The ambient set alone is not enough: the bounding set is empty.
        let ambient = drop_in("[Service]\nAmbientCapabilities=CAP_NET_BIND_SERVICE\n");
        assert_eq!(unit_grant(&[shipped.clone(), ambient]), None);
        let both = drop_in(
            "[Service]\nAmbientCapabilities=CAP_NET_BIND_SERVICE\n\
             CapabilityBoundingSet=CAP_NET_BIND_SERVICE\n",
        );
        assert_eq!(
            unit_grant(&[shipped.clone(), both.clone()]),
            Some(PathBuf::from("port.conf"))
        );
        // A later empty assignment takes it back.
        let reset = drop_in("[Service]\nAmbientCapabilities=\n");
        assert_eq!(unit_grant(&[shipped, both, reset]), None);
    }

    #[test]
    fn only_an_all_zero_hash_is_the_placeholder() {
        let placeholder = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$\
                           AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
        assert!(is_placeholder_hash(placeholder));
        let real = crate::web::hash_pin("482913").unwrap();
        assert!(!is_placeholder_hash(&real));
        assert!(!is_placeholder_hash("1234"));
    }

    #[test]
    fn the_password_file_is_read_and_checked_by_check_config() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = std::env::temp_dir().join(format!("lanecall-pw-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("pw");
        std::fs::write(&file, "s3cret\nignored\n").unwrap();
        let mode = |m| std::fs::set_permissions(&file, std::fs::Permissions::from_mode(m)).unwrap();
        mode(0o640);
        assert_eq!(read_password_file(&file).unwrap(), "s3cret");

        let hash = crate::web::hash_pin("482913").unwrap();
        let mut config = Config::demo(dir.clone(), "127.0.0.1:8080".parse().unwrap(), hash);
        config.centre = Some(crate::config::CentreConfig {
            broker: crate::mqtt::BrokerUrl::parse("mqtt://c").unwrap(),
            ca_file: None,
            site: "s".into(),
            username: Some("u".into()),
            password_file: Some(file.clone()),
            accept_commands: false,
            neighbours: Vec::new(),
        });
        let host = Host {
            cap_net_bind_service: Some(false),
            unprivileged_port_start: 1024,
            unit_grant: None,
            files: HostFiles::under(&dir),
        };
        assert_eq!(config.site_check(&host, "").problems, Vec::new());
        mode(0o644);
        let problems = config.site_check(&host, "").problems;
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].key, "centre.password_file");
        assert!(
            problems[0]
                .message
                .contains("anyone on the machine can read it"),
            "{problems:?}"
        );
        mode(0o600);
        std::fs::write(&file, "\n").unwrap();
        assert!(read_password_file(&file).unwrap_err().contains("is empty"));
        assert!(read_password_file(&dir.join("none")).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}

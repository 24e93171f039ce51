//! Whether this machine's clock is synchronised: a pure decision over what
//! the time services say, and the readings that feed it.
//!
//! The lane's competition day is its clock's date only while a time
//! service has synchronised the clock (docs/journal.md, `date`): a Pi
//! without a clock battery and without a time server restarts near the
//! time it last ran. The kernel's own flag (`adjtimex`) cannot be read
//! inside the shipped unit (`ProtectClock=yes` refuses the call, even
//! only to read), so the services are asked instead:
//!
//! - systemd-timesyncd: `/run/systemd/timesync/synchronized` exists once
//!   it has synchronised the clock (systemd 239 and later); the service
//!   enabled on a system booted with systemd and no such file: not
//!   synchronised (yet). Installed but not enabled, or in a container
//!   without systemd, it says nothing.
//! - chrony: `chronyc -c tracking`'s last field, the leap status
//!   (`Normal`, `Insert second`, `Delete second` or `Not synchronised`),
//!   asked over chrony's local port, which any user may ask.
//! - neither installed: nothing says the clock is wrong (a PC with another
//!   time service, a test machine): the clock is taken as it is.
//!
//! `LANECALL_CLOCK_SYNC=synchronised` or `=unsynchronised` in the
//! daemon's environment replaces the readings (tests, and a technician
//! trying the judge's date confirmation on the bench).
//!
//! It never sets the clock.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The flag file systemd-timesyncd creates once it has synchronised.
pub const TIMESYNCD_FLAG: &str = "/run/systemd/timesync/synchronized";

/// Where Debian and Raspberry Pi OS install systemd-timesyncd.
const TIMESYNCD_PROGRAMS: [&str; 2] = [
    "/usr/lib/systemd/systemd-timesyncd",
    "/lib/systemd/systemd-timesyncd",
];

/// Where its unit is linked when enabled (Debian: sysinit.target).
const TIMESYNCD_ENABLED: [&str; 2] = [
    "/etc/systemd/system/sysinit.target.wants/systemd-timesyncd.service",
    "/etc/systemd/system/multi-user.target.wants/systemd-timesyncd.service",
];

/// Exists only on a system booted with systemd (`sd_booted`).
const SYSTEMD_BOOTED: &str = "/run/systemd/system";

/// chrony's client, where Debian installs it.
const CHRONYC: &str = "/usr/bin/chronyc";

/// How long chronyc may take to answer before it is taken as silent.
const CHRONYC_PATIENCE: Duration = Duration::from_secs(3);

/// How often the clock's state is read again while the lane runs.
pub const READ_EVERY: Duration = Duration::from_secs(10);

/// The environment variable that replaces the readings.
pub const FAKE_ENV: &str = "LANECALL_CLOCK_SYNC";

/// The clock's state, as the lane goes by it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClockSync {
    /// A time service has synchronised the clock: its date is the day's.
    Synchronised { by: &'static str },
    /// A time service runs and has not synchronised the clock: its date
    /// may be another day's. `why` says which service and what it said.
    Unsynchronised { why: String },
    /// No time service found: the clock is taken as it is.
    NoService,
}

impl ClockSync {
    /// Whether the clock's date may be taken as the day's.
    pub fn trusted(&self) -> bool {
        !matches!(self, ClockSync::Unsynchronised { .. })
    }

    /// For the panel (`clock` in `/api/lane`).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            ClockSync::Synchronised { by } => {
                serde_json::json!({"state": "synchronised", "by": by})
            }
            ClockSync::Unsynchronised { why } => {
                serde_json::json!({"state": "unsynchronised", "why": why})
            }
            ClockSync::NoService => serde_json::json!({"state": "no_service"}),
        }
    }
}

/// chrony's leap status (`chronyc -c tracking`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChronyLeap {
    /// `Normal`, `Insert second`, `Delete second`: synchronised.
    Synchronised,
    /// `Not synchronised`.
    Unsynchronised,
}

/// What the time services said.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Readings {
    /// systemd-timesyncd is installed and enabled, on a system booted
    /// with systemd: it runs, or will.
    pub timesyncd_enabled: bool,
    /// Its flag file exists.
    pub timesyncd_synchronized: bool,
    /// chrony's answer: `None` when chrony is not installed, an error
    /// when it did not answer.
    pub chrony: Option<Result<ChronyLeap, String>>,
}

/// The clock's state from what the services said. Either service saying
/// "synchronised" is enough (only one runs on a Debian system: each
/// conflicts with the other).
pub fn decide(r: &Readings) -> ClockSync {
    if r.timesyncd_synchronized {
        return ClockSync::Synchronised {
            by: "systemd-timesyncd",
        };
    }
    match &r.chrony {
        Some(Ok(ChronyLeap::Synchronised)) => ClockSync::Synchronised { by: "chrony" },
        Some(Ok(ChronyLeap::Unsynchronised)) => ClockSync::Unsynchronised {
            why: "chrony has no time source it trusts yet".into(),
        },
        Some(Err(e)) => ClockSync::Unsynchronised {
            why: format!("chrony's state cannot be read ({e})"),
        },
        None if r.timesyncd_enabled => ClockSync::Unsynchronised {
            why: format!("systemd-timesyncd has not synchronised the clock (no {TIMESYNCD_FLAG})"),
        },
        None => ClockSync::NoService,
    }
}

/// chrony's leap status from `chronyc -c tracking` (comma-separated, the
/// leap status last).
pub fn parse_chrony_tracking(csv: &str) -> Result<ChronyLeap, String> {
    let line = csv.lines().next().unwrap_or_default();
    let leap = line.rsplit(',').next().unwrap_or_default().trim();
    match leap {
        "Normal" | "Insert second" | "Delete second" => Ok(ChronyLeap::Synchronised),
        "Not synchronised" => Ok(ChronyLeap::Unsynchronised),
        other => Err(format!(
            "chronyc -c tracking ended {:?}, not a leap status",
            other.chars().take(40).collect::<String>()
        )),
    }
}

/// Where the lane reads its clock's state from.
pub trait SyncSource: Send {
    fn read(&mut self) -> ClockSync;
}

/// The time services of this machine.
pub struct SystemServices;

impl SyncSource for SystemServices {
    fn read(&mut self) -> ClockSync {
        let chrony = Path::new(CHRONYC).exists().then(ask_chrony);
        let exists = |p: &&str| Path::new(p).exists();
        decide(&Readings {
            timesyncd_enabled: TIMESYNCD_PROGRAMS.iter().any(exists)
                && TIMESYNCD_ENABLED.iter().any(exists)
                && Path::new(SYSTEMD_BOOTED).exists(),
            timesyncd_synchronized: Path::new(TIMESYNCD_FLAG).exists(),
            chrony,
        })
    }
}

/// A state given, whatever the machine says (tests, [`FAKE_ENV`]).
pub struct Fixed(pub ClockSync);

impl SyncSource for Fixed {
    fn read(&mut self) -> ClockSync {
        self.0.clone()
    }
}

/// The source the daemon reads: this machine's services, unless
/// [`FAKE_ENV`] says otherwise.
pub fn system_source() -> Box<dyn SyncSource> {
    match std::env::var(FAKE_ENV).as_deref() {
        Ok("synchronised") => Box::new(Fixed(ClockSync::Synchronised { by: FAKE_ENV })),
        Ok("unsynchronised") => Box::new(Fixed(ClockSync::Unsynchronised {
            why: format!("{FAKE_ENV}=unsynchronised"),
        })),
        Ok(other) => {
            tracing::warn!(
                "{FAKE_ENV}={other:?} is not \"synchronised\" or \"unsynchronised\": ignored, \
                 the time services are asked"
            );
            Box::new(SystemServices)
        }
        Err(_) => Box::new(SystemServices),
    }
}

/// Runs `chronyc -c tracking`, killed if it has not answered within
/// [`CHRONYC_PATIENCE`].
fn ask_chrony() -> Result<ChronyLeap, String> {
    let mut child = Command::new(CHRONYC)
        .args(["-c", "-n", "tracking"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run {CHRONYC}: {e}"))?;
    let until = Instant::now() + CHRONYC_PATIENCE;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(50)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "chronyc did not answer within {} s",
                    CHRONYC_PATIENCE.as_secs()
                ));
            }
            Err(e) => return Err(format!("chronyc: {e}")),
        }
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("chronyc: {e}"))?;
    if !out.status.success() {
        return Err(format!("chronyc ended with {}", out.status));
    }
    parse_chrony_tracking(&String::from_utf8_lossy(&out.stdout))
}

/// The clock's state read again every [`READ_EVERY`] on a thread of its
/// own (chronyc may take seconds): the lane's thread only looks at the
/// latest reading.
pub struct SyncWatch {
    latest: Arc<Mutex<ClockSync>>,
}

impl SyncWatch {
    /// Reads `source` once now, then on a thread of its own. A thread that
    /// cannot start leaves the first reading in force, and says so.
    pub fn start(mut source: Box<dyn SyncSource>) -> SyncWatch {
        let latest = Arc::new(Mutex::new(source.read()));
        let shared = Arc::downgrade(&latest);
        let spawned = std::thread::Builder::new()
            .name("clock-sync".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(READ_EVERY);
                    // The lane is gone: nobody reads it any more.
                    let Some(latest) = shared.upgrade() else {
                        return;
                    };
                    let now = source.read();
                    *latest.lock().unwrap_or_else(PoisonError::into_inner) = now;
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot start the thread that reads the clock's state: {e}");
        }
        SyncWatch { latest }
    }

    /// A state that never changes (tests).
    pub fn fixed(state: ClockSync) -> SyncWatch {
        SyncWatch {
            latest: Arc::new(Mutex::new(state)),
        }
    }

    /// The latest reading.
    pub fn now(&self) -> ClockSync {
        self.latest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_is_the_days_only_when_a_service_says_it_is_synchronised() {
        let none = Readings::default();
        assert_eq!(decide(&none), ClockSync::NoService);
        assert!(decide(&none).trusted(), "a PC with another time service");

        let booting = Readings {
            timesyncd_enabled: true,
            ..Readings::default()
        };
        let state = decide(&booting);
        assert!(!state.trusted());
        assert!(
            matches!(&state, ClockSync::Unsynchronised { why } if why.contains(TIMESYNCD_FLAG)),
            "{state:?}"
        );

        let synced = Readings {
            timesyncd_enabled: true,
            timesyncd_synchronized: true,
            chrony: None,
        };
        assert_eq!(
            decide(&synced),
            ClockSync::Synchronised {
                by: "systemd-timesyncd"
            }
        );

        let chrony = |answer| Readings {
            chrony: Some(answer),
            ..Readings::default()
        };
        assert_eq!(
            decide(&chrony(Ok(ChronyLeap::Synchronised))),
            ClockSync::Synchronised { by: "chrony" }
        );
        assert!(!decide(&chrony(Ok(ChronyLeap::Unsynchronised))).trusted());
        let silent = decide(&chrony(Err("chronyc did not answer within 3 s".into())));
        assert!(
            matches!(&silent, ClockSync::Unsynchronised { why } if why.contains("did not answer")),
            "a chrony that cannot be asked is not taken as synchronised: {silent:?}"
        );
    }

    #[test]
    fn chronys_leap_status_is_its_tracking_reports_last_field() {
        let synced = "A9FEA97B,169.254.169.123,3,1732890000.1,0.000001,0.000002,0.000003,-1.2,0.1,0.2,0.3,0.4,1.5,64.2,Normal\n";
        assert_eq!(parse_chrony_tracking(synced), Ok(ChronyLeap::Synchronised));
        let lost = "7F7F0101,,10,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,Not synchronised\n";
        assert_eq!(parse_chrony_tracking(lost), Ok(ChronyLeap::Unsynchronised));
        assert!(parse_chrony_tracking("").is_err());
        assert!(parse_chrony_tracking("506 Cannot talk to daemon").is_err());
    }
}

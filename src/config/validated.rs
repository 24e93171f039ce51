//! The validated configuration: the types the rest of the crate uses, every
//! field usable as it is (`print` writes it back as the file).
//!
//! It decides what a usable config holds; it never reads the file nor
//! checks a value (see `validate`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use super::defaults::*;
use super::gpio::GpioConfig;
pub use super::journal::JournalConfig;
use super::judges::JudgeConfig;
pub use super::speaker::SpeakerConfig;
use super::switches::SwitchesConfig;
use crate::lane::rules::Rules;
use crate::mqtt::BrokerUrl;

/// The lane's configuration, validated: every field can be used as it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The lane number shown on the panel and spoken, 1..=999.
    pub lane: u32,
    /// Journals live in `state_dir/journal` (see [`Config::journal_dir`]).
    pub state_dir: PathBuf,
    pub journal: JournalConfig,
    pub pinsetter: PinsetterConfig,
    pub gpio: GpioConfig,
    pub speaker: SpeakerConfig,
    pub web: WebConfig,
    /// The rules written into each journal's header.
    pub rules: Rules,
    /// `[centre]`: the link to the competition's centre over MQTT
    /// ([`crate::centre_link`]); none, no link at all.
    pub centre: Option<CentreConfig>,
    /// `[pinsetter] kind = "pin_switches"`: the pinsetter's pin switches
    /// read directly, instead of its serial line; none, the serial line.
    pub switches: Option<SwitchesConfig>,
}

/// `[centre]`: where the centre's MQTT broker is and what this lane does
/// with it (docs/mqtt.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CentreConfig {
    /// `mqtt://HOST:PORT`, or `mqtts://` for TLS.
    pub broker: BrokerUrl,
    /// The CAs that sign an `mqtts://` broker's certificate (PEM);
    /// none, the system's.
    pub ca_file: Option<PathBuf>,
    /// 1 to 32 characters of `a-z 0-9 - _`: the topics' `lanecall/<site>/`.
    pub site: String,
    pub username: Option<String>,
    /// The password, read when the link starts; absolute.
    pub password_file: Option<PathBuf>,
    /// Whether the centre's `lineup` and `hold` commands are taken.
    pub accept_commands: bool,
    /// The lanes beside this one, whose `delivering` is journaled.
    pub neighbours: Vec<u32>,
}

/// The pinsetter's serial line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PinsetterConfig {
    /// The serial device, e.g. `/dev/ttyUSB0`; never empty.
    pub port: PathBuf,
    /// One of [`BAUD_RATES`].
    pub baud: u32,
    /// First retry after the port is lost; above zero, so a lost port is
    /// never reopened in a spin.
    pub reconnect_min: Duration,
    /// The backoff doubles up to this; not below `reconnect_min`.
    pub reconnect_max: Duration,
}

/// Every key's default, and no port (the file must name one).
impl Default for PinsetterConfig {
    fn default() -> Self {
        PinsetterConfig {
            port: PathBuf::new(),
            baud: DEFAULT_BAUD,
            reconnect_min: Duration::from_millis(DEFAULT_RECONNECT_MIN_MS),
            reconnect_max: Duration::from_millis(DEFAULT_RECONNECT_MAX_MS),
        }
    }
}

/// The baud rates the pinsetter's serial line may use.
pub const BAUD_RATES: [u32; 8] = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200];

/// The callouts' language (the lane's; a bowler may have their own).
pub use crate::lane::Language;

/// The web panel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebConfig {
    pub listen: SocketAddr,
    /// The shared judge PIN's argon2 hash in PHC form
    /// (`$argon2id$v=19$...`), as `lanecall hash-pin PIN` prints it; a
    /// login with it gives the name typed at login. Optional when
    /// `judges` has at least one judge.
    pub judge_pin_hash: Option<String>,
    /// Judges with their own PIN (`[[web.judges]]`): the journal names who
    /// acted.
    pub judges: Vec<JudgeConfig>,
    /// How long a judge's login lasts: whole hours from 1 to 168 (a week,
    /// the web panel's cap).
    pub session: Duration,
    /// Open connections at most (see [`crate::web::server`]); the daemon
    /// lowers it further to stay below its file descriptor limit.
    pub max_connections: usize,
    /// Live views (`GET /api/events` streams) at most; fewer than
    /// `max_connections`, so a full set of live views leaves room for the
    /// judges' requests.
    pub max_live_views: usize,
    /// HTTPS instead of HTTP: the certificate and key files.
    pub tls: Option<TlsFiles>,
    /// How long a login lasts without a request (`session_idle_s`).
    pub session_idle: Duration,
    /// Wrong PINs in a row that lock the PIN checks (`lockout_after`).
    pub lockout_after: u32,
    /// The first lock's length, doubled at each lock (`lockout_base_s`).
    pub lockout_base: Duration,
    /// The longest lock (`lockout_max_s`).
    pub lockout_max: Duration,
    /// The event's title, printed at the top of the score sheet (`event`).
    pub event: String,
}

/// Every key's default, and no PIN (the file must give one).
impl Default for WebConfig {
    fn default() -> Self {
        WebConfig {
            listen: DEFAULT_LISTEN,
            judge_pin_hash: None,
            judges: Vec::new(),
            session: Duration::from_secs(DEFAULT_SESSION_HOURS * 3600),
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_live_views: DEFAULT_MAX_LIVE_VIEWS,
            tls: None,
            session_idle: Duration::from_secs(DEFAULT_SESSION_IDLE_S),
            lockout_after: DEFAULT_LOCKOUT_AFTER,
            lockout_base: Duration::from_secs(DEFAULT_LOCKOUT_BASE_S),
            lockout_max: Duration::from_secs(DEFAULT_LOCKOUT_MAX_S),
            event: String::new(),
        }
    }
}

impl WebConfig {
    /// Whether the panel is served over HTTPS, so the session cookie can be
    /// marked `Secure`.
    pub fn tls(&self) -> bool {
        self.tls.is_some()
    }
}

/// The PEM files for HTTPS. Both were readable, and held a certificate and
/// a private key, when the config was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate chain, the server's own certificate first.
    pub cert: PathBuf,
    /// The private key (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
}

// ---------------------------------------------------------------------------
// Built in code
// ---------------------------------------------------------------------------

impl Config {
    /// A lane for the demo and tests: no GPIO, a simulated pinsetter, the
    /// default speaker and rules.
    pub fn demo(state_dir: PathBuf, listen: SocketAddr, judge_pin_hash: String) -> Config {
        Config {
            lane: 1,
            state_dir,
            // The demo's state dir is often under /tmp, a tmpfs on many
            // systems, and its games are thrown away anyway.
            journal: JournalConfig {
                allow_volatile: true,
                ..JournalConfig::default()
            },
            pinsetter: PinsetterConfig {
                port: PathBuf::from("simulated"),
                ..PinsetterConfig::default()
            },
            gpio: GpioConfig::default(),
            speaker: SpeakerConfig::default(),
            web: WebConfig {
                listen,
                judge_pin_hash: Some(judge_pin_hash),
                ..WebConfig::default()
            },
            rules: Rules::default(),
            centre: None,
            switches: None,
        }
    }

    /// Where the journals are.
    pub fn journal_dir(&self) -> PathBuf {
        self.state_dir.join("journal")
    }
}

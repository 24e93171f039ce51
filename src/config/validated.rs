//! The validated configuration: the types the rest of the crate uses, every
//! field usable as it is, and the effective file `check-config` prints.
//!
//! It decides what a usable config holds; it never reads the file nor
//! checks a value (see `validate`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use super::defaults::*;
use super::gpio::{GpioBackend, GpioConfig, Pull, level, output_name};
use super::judges::JudgeConfig;
use super::keys::toml_str;
use super::switches::SwitchesConfig;
use crate::lane::Output;
use crate::lane::rules::{FoulMode, Rules};
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

/// The journals beyond `state_dir`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JournalConfig {
    /// A folder that gets a live second copy of the open journal (see
    /// [`crate::journal::mirror`]), e.g. on a USB stick; absolute. It need not exist
    /// when the config is read: the stick may be unplugged.
    pub mirror: Option<PathBuf>,
    /// Whether a `state_dir` on a file system kept in memory (tmpfs,
    /// ramfs, an overlay such as raspi-config's overlay root) is accepted:
    /// check-config then notes it instead of failing. The journal there is
    /// lost at a power cut whatever `fdatasync` returns, so only a demo or
    /// a bench sets it.
    pub allow_volatile: bool,
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

/// The speaker that calls out the pins.
#[derive(Clone, Debug, PartialEq)]
pub struct SpeakerConfig {
    pub enabled: bool,
    /// The ALSA device (`default` is ALSA's, card 0 on a Pi); `None` is
    /// "auto": the card `speaker::cards` ranks first at each open.
    pub device: Option<String>,
    /// 0.0..=2.0; 1.0 plays the voice pack as recorded.
    pub volume: f32,
    pub language: Language,
    /// A callout not started by then is dropped: a stale call misleads a
    /// blind bowler more than a missing one. Above zero.
    pub stale_after: Duration,
    /// The silence between two words of a callout, at least 260 ms: a
    /// hall whose echo runs "seven, ten" into "seventy" needs it longer.
    pub word_pause: Duration,
    /// A folder of recordings (`ru/strike.wav`, `en/7.wav`…) that replace
    /// the built-in voice; `None` keeps the built-in voice.
    pub voice_dir: Option<PathBuf>,
}

impl Default for SpeakerConfig {
    fn default() -> Self {
        SpeakerConfig {
            enabled: DEFAULT_SPEAKER_ENABLED,
            device: None,
            volume: DEFAULT_VOLUME as f32,
            language: DEFAULT_LANGUAGE,
            stale_after: Duration::from_millis(DEFAULT_STALE_AFTER_MS),
            word_pause: Duration::from_millis(DEFAULT_WORD_PAUSE_MS),
            voice_dir: None,
        }
    }
}

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
// Built in code, and written back as TOML
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

    /// The effective configuration, every key with its value, in the
    /// file's layout: what `lanecall check-config` prints. It parses back
    /// to an equal `Config`.
    pub fn to_toml(&self) -> String {
        let mut out = String::new();
        let mut line = |s: String| {
            out.push_str(&s);
            out.push('\n');
        };
        line("# The effective configuration: every key with the value the daemon uses.".into());
        line(format!("lane = {}", self.lane));
        line(format!(
            "state_dir = {}",
            toml_str(&self.state_dir.to_string_lossy())
        ));

        line(String::new());
        line("[journal]".into());
        if let Some(mirror) = &self.journal.mirror {
            line(format!("mirror = {}", toml_str(&mirror.to_string_lossy())));
        }
        line(format!("allow_volatile = {}", self.journal.allow_volatile));

        let p = &self.pinsetter;
        line(String::new());
        line("[pinsetter]".into());
        let kind = if self.switches.is_some() {
            "pin_switches"
        } else {
            "serial"
        };
        line(format!("kind = {}", toml_str(kind)));
        if !p.port.as_os_str().is_empty() {
            line(format!("port = {}", toml_str(&p.port.to_string_lossy())));
        }
        line(format!("baud = {}", p.baud));
        line(format!(
            "reconnect_min_ms = {}",
            p.reconnect_min.as_millis()
        ));
        line(format!(
            "reconnect_max_ms = {}",
            p.reconnect_max.as_millis()
        ));

        if let Some(switches) = &self.switches {
            switches.to_toml(&mut line);
        }

        line(String::new());
        line("[gpio]".into());
        let backend = match self.gpio.backend {
            GpioBackend::Rpi => "rpi",
            GpioBackend::None => "none",
        };
        line(format!("backend = {}", toml_str(backend)));
        for input in &self.gpio.inputs {
            line(String::new());
            line(format!("[{}]", input.role.config_key()));
            line(format!("pin = {}", input.pin.number()));
            let pull = match input.pull {
                Pull::Up => "up",
                Pull::Down => "down",
                Pull::Off => "off",
            };
            line(format!("pull = {}", toml_str(pull)));
            line(format!("active = {}", toml_str(level(input.active_high))));
            line(format!("debounce_ms = {}", input.debounce.as_millis()));
        }
        for output in &self.gpio.outputs {
            line(String::new());
            line(format!("[gpio.outputs.{}]", output_name(output.output)));
            line(format!("pin = {}", output.pin.number()));
            line(format!("active = {}", toml_str(level(output.active_high))));
            if output.output == Output::PinsetterReset {
                line(format!("pulse_ms = {}", output.pulse.as_millis()));
            }
        }

        let s = &self.speaker;
        line(String::new());
        line("[speaker]".into());
        line(format!("enabled = {}", s.enabled));
        line(format!(
            "device = {}",
            toml_str(s.device.as_deref().unwrap_or("auto"))
        ));
        line(format!("volume = {}", toml_float(s.volume)));
        let language = match s.language {
            Language::Ru => "ru",
            Language::En => "en",
        };
        line(format!("language = {}", toml_str(language)));
        line(format!("stale_after_ms = {}", s.stale_after.as_millis()));
        line(format!("word_pause_ms = {}", s.word_pause.as_millis()));
        // An installed voice is said by its name (`voice`), any other
        // folder as `voice_dir`.
        let installed = s
            .voice_dir
            .as_deref()
            .and_then(|d| d.strip_prefix(VOICES_DIR).ok());
        match (&s.voice_dir, installed) {
            (Some(_), Some(name)) => {
                line(format!("voice = {}", toml_str(&name.to_string_lossy())));
            }
            (dir, _) => {
                if let Some(dir) = dir {
                    line(format!("voice_dir = {}", toml_str(&dir.to_string_lossy())));
                }
                line(format!("voice = {}", toml_str("builtin")));
            }
        }
        line(format!("extras = {}", self.rules.speaker_extras));

        let w = &self.web;
        line(String::new());
        line("[web]".into());
        line(format!("listen = {}", toml_str(&w.listen.to_string())));
        if let Some(hash) = &w.judge_pin_hash {
            line(format!("judge_pin_hash = {}", toml_str(hash)));
        }
        line(format!("session_hours = {}", w.session.as_secs() / 3600));
        line(format!("max_connections = {}", w.max_connections));
        line(format!("max_live_views = {}", w.max_live_views));
        line(format!("event = {}", toml_str(&w.event)));
        if let Some(tls) = &w.tls {
            line(format!(
                "tls_cert = {}",
                toml_str(&tls.cert.to_string_lossy())
            ));
            line(format!(
                "tls_key = {}",
                toml_str(&tls.key.to_string_lossy())
            ));
        }
        line(format!("session_idle_s = {}", w.session_idle.as_secs()));
        line(format!("lockout_after = {}", w.lockout_after));
        line(format!("lockout_base_s = {}", w.lockout_base.as_secs()));
        line(format!("lockout_max_s = {}", w.lockout_max.as_secs()));
        for judge in &w.judges {
            line(String::new());
            line("[[web.judges]]".into());
            line(format!("name = {}", toml_str(&judge.name)));
            line(format!("pin_hash = {}", toml_str(&judge.pin_hash)));
        }

        let r = &self.rules;
        line(String::new());
        line("[rules]".into());
        line(format!("ball_break_max_ms = {}", r.ball_break_max_ms));
        line(format!("typical_travel_ms = {}", r.typical_travel_ms));
        line(format!("max_travel_ms = {}", r.max_travel_ms));
        line(format!(
            "pin_report_timeout_ms = {}",
            r.pin_report_timeout_ms
        ));
        line(format!("slow_bowling_limit_s = {}", r.slow_bowling_limit_s));
        line(format!("foul_lamp_ms = {}", r.foul_lamp_ms));
        let foul_mode = match r.foul_mode {
            FoulMode::Score => "score",
            FoulMode::Warn => "warn",
        };
        line(format!("foul_mode = {}", toml_str(foul_mode)));
        line(format!("min_cycle_ms = {}", r.min_cycle_ms));
        if let Some(ms) = r.foul_window_ms {
            line(format!("foul_window_ms = {ms}"));
        }

        if let Some(c) = &self.centre {
            line(String::new());
            line("[centre]".into());
            line(format!("broker = {}", toml_str(&c.broker.to_string())));
            line(format!("site = {}", toml_str(&c.site)));
            if let Some(user) = &c.username {
                line(format!("username = {}", toml_str(user)));
            }
            if let Some(file) = &c.password_file {
                line(format!(
                    "password_file = {}",
                    toml_str(&file.to_string_lossy())
                ));
            }
            if let Some(file) = &c.ca_file {
                line(format!("ca_file = {}", toml_str(&file.to_string_lossy())));
            }
            line(format!("accept_commands = {}", c.accept_commands));
            let lanes: Vec<String> = c.neighbours.iter().map(u32::to_string).collect();
            line(format!("neighbours = [{}]", lanes.join(", ")));
        }
        out
    }
}

/// The shortest float that reads back as the same `f32`.
pub(super) fn toml_float(v: f32) -> String {
    let short = format!("{v:?}");
    match short.parse::<f64>() {
        Ok(back) if back as f32 == v => short,
        _ => format!("{:?}", f64::from(v)),
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_round_trip() {
        for v in [0.0f32, 0.8, 1.0, 1.7, 2.0, 0.333_333_34] {
            let s = toml_float(v);
            assert_eq!(s.parse::<f64>().unwrap() as f32, v, "{s}");
        }
    }
}

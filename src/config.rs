//! Configuration: the lane's TOML file (`config/lanecall.toml` documents
//! every key) read in two steps, as ripgrep parses its flags.
//!
//! 1. The text is parsed into a table and walked against the list of known
//!    keys, so every unknown key and every value of the wrong type is
//!    reported with its full path (`gpio.inputs.foul_beam.pinn`), then
//!    deserialized into raw structs (`deny_unknown_fields`, every key an
//!    `Option`, integers as `i64` so a negative number is a range problem
//!    rather than a type error that hides the others).
//! 2. The raw structs are validated into a [`Config`] whose every field is
//!    usable: pins are [`BcmPin`]s no two inputs or outputs share, the
//!    listen address is a [`SocketAddr`], times are [`Duration`]s.
//!
//! Validation reports every problem at once, each by its key path with what
//! to do about it: the technician fixing a lane before a tournament should
//! not have to restart the daemon once per typo.
//!
//! This module only reads and checks; it never opens a pin, a port or a
//! socket.

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::lane::Output;
use crate::lane::rules::{FoulMode, Rules};

// ---------------------------------------------------------------------------
// Validated configuration
// ---------------------------------------------------------------------------

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
}

/// The journals beyond `state_dir`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JournalConfig {
    /// A folder that gets a live second copy of the open journal (see
    /// [`crate::mirror`]), e.g. on a USB stick; absolute. It need not exist
    /// when the config is read: the stick may be unplugged.
    pub mirror: Option<PathBuf>,
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

/// The baud rates the pinsetter's serial line may use.
pub const BAUD_RATES: [u32; 8] = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200];

/// Where the GPIO inputs and outputs are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpioBackend {
    /// The Raspberry Pi's GPIO header.
    Rpi,
    /// No GPIO (not a Pi, or a demo): inputs and outputs are not opened.
    None,
}

/// The GPIO inputs and outputs.
///
/// With [`GpioBackend::Rpi`] the inputs hold at least the foul beam and the
/// ball detector, and the outputs the foul lamp and the pinsetter reset.
/// With [`GpioBackend::None`] they may be empty, or hold what the file
/// lists (kept, so `check-config` shows them, but not opened). No two
/// entries share a pin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpioConfig {
    pub backend: GpioBackend,
    /// In the file's order: foul beam, ball, channel left, channel right,
    /// then the buttons by name.
    pub inputs: Vec<InputConfig>,
    /// Foul lamp, then pinsetter reset.
    pub outputs: Vec<OutputConfig>,
}

impl GpioConfig {
    /// The input with this role, if configured.
    pub fn input(&self, role: &InputRole) -> Option<&InputConfig> {
        self.inputs.iter().find(|input| &input.role == role)
    }

    /// The output driving this, if configured.
    pub fn output(&self, output: Output) -> Option<&OutputConfig> {
        self.outputs.iter().find(|o| o.output == output)
    }
}

/// What a GPIO input tells the lane.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InputRole {
    /// The foul-line light beam: active while broken.
    FoulBeam,
    /// The ball detector behind the pins: active when a ball passes.
    Ball,
    /// The left channel (gutter) sensor.
    ChannelLeft,
    /// The right channel (gutter) sensor.
    ChannelRight,
    /// A rail button the bowler presses, by its name in the file
    /// (`[gpio.buttons.repeat]` is `Button("repeat")`); in a validated
    /// [`Config`] one of [`BUTTONS`].
    Button(String),
}

impl InputRole {
    /// The input's table in the file, e.g. `gpio.inputs.foul_beam` or
    /// `gpio.buttons.repeat`, for messages that point the technician at it.
    pub fn config_key(&self) -> String {
        match self {
            InputRole::FoulBeam => "gpio.inputs.foul_beam".to_owned(),
            InputRole::Ball => "gpio.inputs.ball".to_owned(),
            InputRole::ChannelLeft => "gpio.inputs.channel_left".to_owned(),
            InputRole::ChannelRight => "gpio.inputs.channel_right".to_owned(),
            InputRole::Button(name) => format!("gpio.buttons.{}", toml_key(name)),
        }
    }
}

/// An input's pull resistor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pull {
    Up,
    Down,
    Off,
}

/// A GPIO input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputConfig {
    pub role: InputRole,
    pub pin: BcmPin,
    pub pull: Pull,
    /// The level when the input is active (beam broken, ball seen, button
    /// pressed): `true` for high, `false` for low.
    pub active_high: bool,
    /// Kernel debounce, 0..=1000 ms. The foul beam's is below
    /// `rules.ball_break_max_ms`, so a ball crossing the line is not
    /// filtered out.
    pub debounce: Duration,
}

/// A GPIO output driving a relay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputConfig {
    pub output: Output,
    pub pin: BcmPin,
    /// The level that switches the relay on: `true` for high.
    pub active_high: bool,
    /// How long a pulse holds the relay, 10..=5000 ms, for the pinsetter
    /// reset. Zero for the foul lamp, which is switched on and off (it
    /// stays on for `rules.foul_lamp_ms`).
    pub pulse: Duration,
}

/// A Broadcom GPIO number, 0..=27: the numbering `rppal` and the kernel
/// use, not the header's physical pin (see [`BcmPin::header_pin`]).
///
/// A validated [`Config`] never holds BCM 0 or 1: they are the HAT ID
/// EEPROM's I2C bus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BcmPin(u8);

/// The 40-pin header's physical pin for each BCM GPIO, indexed by BCM.
const HEADER_PINS: [u8; 28] = [
    27, 28, 3, 5, 7, 29, 31, 26, 24, 21, 19, 23, 32, 33, 8, 10, 36, 11, 12, 35, 38, 40, 15, 16, 18,
    22, 37, 13,
];

impl BcmPin {
    /// The pin for a BCM GPIO number, if it is one (0..=27).
    pub fn new(number: u8) -> Option<BcmPin> {
        (usize::from(number) < HEADER_PINS.len()).then_some(BcmPin(number))
    }

    /// The BCM GPIO number, as `rppal::gpio::Gpio::get` takes it.
    pub fn number(self) -> u8 {
        self.0
    }

    /// The physical pin on the 40-pin header (1..=40) where this GPIO is,
    /// for messages to the technician holding the wires.
    pub fn header_pin(self) -> u8 {
        HEADER_PINS[usize::from(self.0)]
    }

    /// The GPIO on this physical header pin, if it carries one.
    pub fn from_header_pin(header_pin: u8) -> Option<BcmPin> {
        HEADER_PINS
            .iter()
            .position(|&p| p == header_pin)
            .and_then(|bcm| u8::try_from(bcm).ok())
            .map(BcmPin)
    }
}

impl fmt::Display for BcmPin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BCM {} (header pin {})", self.0, self.header_pin())
    }
}

/// The callouts' language (the lane's; a bowler may have their own).
pub use crate::lane::Language;

/// The speaker that calls out the pins.
#[derive(Clone, Debug, PartialEq)]
pub struct SpeakerConfig {
    pub enabled: bool,
    /// The ALSA device; `None` is the system's default device.
    pub device: Option<String>,
    /// 0.0..=2.0; 1.0 plays the voice pack as recorded.
    pub volume: f32,
    pub language: Language,
    /// A callout not started by then is dropped: a stale call misleads a
    /// blind bowler more than a missing one. Above zero.
    pub stale_after: Duration,
    /// A folder of recordings (`ru/strike.wav`, `en/7.wav`…) that replace
    /// the built-in voice; `None` keeps the built-in voice.
    pub voice_dir: Option<PathBuf>,
}

impl Default for SpeakerConfig {
    fn default() -> Self {
        SpeakerConfig {
            enabled: true,
            device: None,
            volume: 1.0,
            language: Language::Ru,
            stale_after: Duration::from_millis(8000),
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

/// One `[[web.judges]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgeConfig {
    /// As the journal names them.
    pub name: String,
    /// Their PIN's hash, as `lanecall hash-pin PIN` prints it.
    pub pin_hash: String,
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/// Why a configuration file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Not TOML; the message is toml's, with the line and column.
    #[error("{}: {message}", .path.display())]
    Syntax { path: PathBuf, message: String },
    /// TOML, but with unknown keys, values of the wrong type or values that
    /// cannot work: every one of them.
    #[error("{}: {} problem(s):\n{}", .path.display(), .problems.len(), list(.problems))]
    Invalid {
        path: PathBuf,
        problems: Vec<Problem>,
    },
}

fn list(problems: &[Problem]) -> String {
    let lines: Vec<String> = problems.iter().map(|p| format!("  {p}")).collect();
    lines.join("\n")
}

/// One thing wrong in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The key's full path, e.g. `gpio.outputs.foul_lamp.pin`.
    pub key: String,
    /// What is wrong and what to do.
    pub message: String,
    /// Where the key is in the file, line and column from 1; for a
    /// missing key, where its table is. `None` when neither is written.
    pub at: Option<(usize, usize)>,
}

impl Problem {
    fn new(key: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            key: key.into(),
            message: message.into(),
            at: None,
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.message)?;
        if let Some((line, column)) = self.at {
            write!(f, " (line {line}, column {column})")?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------

impl Config {
    /// Reads and validates the file at `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        Config::parse(&text, path)
    }

    /// Validates `text`; `path` only names the file in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let syntax = |e: toml::de::Error| ConfigError::Syntax {
            path: path.to_owned(),
            message: e.to_string().trim_end().to_owned(),
        };
        let invalid = |problems| ConfigError::Invalid {
            path: path.to_owned(),
            problems,
        };

        let table: toml::Table = toml::from_str(text).map_err(syntax)?;
        let located = |mut problems: Vec<Problem>| {
            for p in &mut problems {
                p.at = position(text, &p.key);
            }
            invalid(problems)
        };
        let mut problems = Vec::new();
        walk(&table, ROOT, "", &mut problems);
        if problems.is_empty() {
            // The walk has checked every key and type, so this fails only
            // if the walk and the raw structs disagree; toml's message then
            // still names the key and its line.
            let raw: RawConfig = toml::from_str(text).map_err(syntax)?;
            return raw.validate().map_err(located);
        }
        // Report the values' problems too, in the same run: check the file
        // again without the keys already reported, and add what that finds
        // about other keys.
        let mut rest = table;
        for p in &problems {
            remove_key(&mut rest, &p.key);
        }
        if let Ok(raw) = toml::Value::Table(rest).try_into::<RawConfig>()
            && let Err(more) = raw.validate()
        {
            for m in more {
                let reported = problems
                    .iter()
                    .any(|p| m.key == p.key || m.key.starts_with(&format!("{}.", p.key)));
                if !reported {
                    problems.push(m);
                }
            }
        }
        Err(located(problems))
    }

    /// A lane for the demo and tests: no GPIO, a simulated pinsetter, the
    /// default speaker and rules.
    pub fn demo(state_dir: PathBuf, listen: SocketAddr, judge_pin_hash: String) -> Config {
        Config {
            lane: 1,
            state_dir,
            journal: JournalConfig::default(),
            pinsetter: PinsetterConfig {
                port: PathBuf::from("simulated"),
                baud: DEFAULT_BAUD,
                reconnect_min: Duration::from_millis(DEFAULT_RECONNECT_MIN_MS),
                reconnect_max: Duration::from_millis(DEFAULT_RECONNECT_MAX_MS),
            },
            gpio: GpioConfig {
                backend: GpioBackend::None,
                inputs: Vec::new(),
                outputs: Vec::new(),
            },
            speaker: SpeakerConfig::default(),
            web: WebConfig {
                listen,
                judge_pin_hash: Some(judge_pin_hash),
                judges: Vec::new(),
                session: Duration::from_secs(DEFAULT_SESSION_HOURS * 3600),
                max_connections: DEFAULT_MAX_CONNECTIONS,
                max_live_views: DEFAULT_MAX_LIVE_VIEWS,
                tls: None,
                session_idle: Duration::from_secs(DEFAULT_SESSION_IDLE_S),
                lockout_after: DEFAULT_LOCKOUT_AFTER,
                lockout_base: Duration::from_secs(DEFAULT_LOCKOUT_BASE_S),
                lockout_max: Duration::from_secs(DEFAULT_LOCKOUT_MAX_S),
            },
            rules: Rules::default(),
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

        let p = &self.pinsetter;
        line(String::new());
        line("[pinsetter]".into());
        line(format!("port = {}", toml_str(&p.port.to_string_lossy())));
        line(format!("baud = {}", p.baud));
        line(format!(
            "reconnect_min_ms = {}",
            p.reconnect_min.as_millis()
        ));
        line(format!(
            "reconnect_max_ms = {}",
            p.reconnect_max.as_millis()
        ));

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
            toml_str(s.device.as_deref().unwrap_or("default"))
        ));
        line(format!("volume = {}", toml_float(s.volume)));
        let language = match s.language {
            Language::Ru => "ru",
            Language::En => "en",
        };
        line(format!("language = {}", toml_str(language)));
        line(format!("stale_after_ms = {}", s.stale_after.as_millis()));
        if let Some(dir) = &s.voice_dir {
            line(format!("voice_dir = {}", toml_str(&dir.to_string_lossy())));
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
        out
    }
}

fn level(active_high: bool) -> &'static str {
    if active_high { "high" } else { "low" }
}

fn output_name(output: Output) -> &'static str {
    match output {
        Output::FoulLamp => "foul_lamp",
        Output::PinsetterReset => "pinsetter_reset",
    }
}

/// A TOML string literal, escaped.
fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

/// A key as TOML writes it: bare when it can be, quoted otherwise.
fn toml_key(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare { key.to_owned() } else { toml_str(key) }
}

/// The shortest float that reads back as the same `f32`.
fn toml_float(v: f32) -> String {
    let short = format!("{v:?}");
    match short.parse::<f64>() {
        Ok(back) if back as f32 == v => short,
        _ => format!("{:?}", f64::from(v)),
    }
}

// ---------------------------------------------------------------------------
// Step 1a: the known keys, walked before deserializing
// ---------------------------------------------------------------------------

/// What a key holds.
#[derive(Clone, Copy)]
enum Kind {
    Int,
    /// A float; an integer is accepted (`volume = 1`).
    Float,
    Str,
    Bool,
    /// A table with these keys.
    Table(&'static [(&'static str, Kind)]),
    /// A list of such tables (`[[name]]`).
    Tables(&'static [(&'static str, Kind)]),
}

impl Kind {
    fn describe(self) -> &'static str {
        match self {
            Kind::Int => "a whole number",
            Kind::Float => "a number",
            Kind::Str => "a string in quotes",
            Kind::Bool => "true or false",
            Kind::Table(_) => "a table",
            Kind::Tables(_) => "a list of tables ([[...]])",
        }
    }
}

fn describe_value(value: &toml::Value) -> &'static str {
    match value {
        toml::Value::String(_) => "a string",
        toml::Value::Integer(_) => "a whole number",
        toml::Value::Float(_) => "a number with a decimal point",
        toml::Value::Boolean(_) => "true/false",
        toml::Value::Datetime(_) => "a date",
        toml::Value::Array(_) => "a list",
        toml::Value::Table(_) => "a table",
    }
}

const INPUT: &[(&str, Kind)] = &[
    ("pin", Kind::Int),
    ("pull", Kind::Str),
    ("active", Kind::Str),
    ("debounce_ms", Kind::Int),
];
const LAMP: &[(&str, Kind)] = &[("pin", Kind::Int), ("active", Kind::Str)];
const PULSE: &[(&str, Kind)] = &[
    ("pin", Kind::Int),
    ("active", Kind::Str),
    ("pulse_ms", Kind::Int),
];
/// The rail buttons the lane acts on (`Lane::button` refuses any other
/// name), so a misspelt button is a problem here rather than a press the
/// lane refuses during a game.
pub const BUTTONS: [&str; 2] = ["repeat", "score"];
const BUTTON_TABLES: &[(&str, Kind)] = &[
    (BUTTONS[0], Kind::Table(INPUT)),
    (BUTTONS[1], Kind::Table(INPUT)),
];
const RULES: &[(&str, Kind)] = &[
    ("ball_break_max_ms", Kind::Int),
    ("typical_travel_ms", Kind::Int),
    ("max_travel_ms", Kind::Int),
    ("pin_report_timeout_ms", Kind::Int),
    ("slow_bowling_limit_s", Kind::Int),
    ("foul_lamp_ms", Kind::Int),
    ("foul_mode", Kind::Str),
    ("min_cycle_ms", Kind::Int),
];
const ROOT: &[(&str, Kind)] = &[
    ("lane", Kind::Int),
    ("state_dir", Kind::Str),
    ("journal", Kind::Table(&[("mirror", Kind::Str)])),
    (
        "pinsetter",
        Kind::Table(&[
            ("port", Kind::Str),
            ("baud", Kind::Int),
            ("reconnect_min_ms", Kind::Int),
            ("reconnect_max_ms", Kind::Int),
        ]),
    ),
    (
        "gpio",
        Kind::Table(&[
            ("backend", Kind::Str),
            (
                "inputs",
                Kind::Table(&[
                    ("foul_beam", Kind::Table(INPUT)),
                    ("ball", Kind::Table(INPUT)),
                    ("channel_left", Kind::Table(INPUT)),
                    ("channel_right", Kind::Table(INPUT)),
                ]),
            ),
            ("buttons", Kind::Table(BUTTON_TABLES)),
            (
                "outputs",
                Kind::Table(&[
                    ("foul_lamp", Kind::Table(LAMP)),
                    ("pinsetter_reset", Kind::Table(PULSE)),
                ]),
            ),
        ]),
    ),
    (
        "speaker",
        Kind::Table(&[
            ("enabled", Kind::Bool),
            ("device", Kind::Str),
            ("volume", Kind::Float),
            ("language", Kind::Str),
            ("stale_after_ms", Kind::Int),
            ("voice_dir", Kind::Str),
            ("extras", Kind::Bool),
        ]),
    ),
    (
        "web",
        Kind::Table(&[
            ("listen", Kind::Str),
            ("judge_pin_hash", Kind::Str),
            ("session_hours", Kind::Int),
            ("max_connections", Kind::Int),
            ("max_live_views", Kind::Int),
            ("tls_cert", Kind::Str),
            ("tls_key", Kind::Str),
            ("session_idle_s", Kind::Int),
            ("lockout_after", Kind::Int),
            ("lockout_base_s", Kind::Int),
            ("lockout_max_s", Kind::Int),
            (
                "judges",
                Kind::Tables(&[("name", Kind::Str), ("pin_hash", Kind::Str)]),
            ),
        ]),
    ),
    ("rules", Kind::Table(RULES)),
];

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        toml_key(key)
    } else {
        format!("{prefix}.{}", toml_key(key))
    }
}

/// Reports every key of `table` not in `fields`, and every value of the
/// wrong type, by its full path.
fn walk(table: &toml::Table, fields: &[(&str, Kind)], prefix: &str, out: &mut Vec<Problem>) {
    for (key, value) in table {
        let path = join(prefix, key);
        match fields.iter().find(|(name, _)| name == key) {
            Some(&(_, kind)) => check_kind(value, kind, &path, out),
            None => out.push(Problem::new(path, unknown_key(key, prefix, fields))),
        }
    }
}

fn check_kind(value: &toml::Value, kind: Kind, path: &str, out: &mut Vec<Problem>) {
    use toml::Value as V;
    match (kind, value) {
        (Kind::Int, V::Integer(_))
        | (Kind::Float, V::Float(_) | V::Integer(_))
        | (Kind::Str, V::String(_))
        | (Kind::Bool, V::Boolean(_)) => {}
        (Kind::Table(fields), V::Table(table)) => walk(table, fields, path, out),
        // Counted from 1, as the `[[...]]` headers are read in the file.
        (Kind::Tables(fields), V::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                check_kind(
                    item,
                    Kind::Table(fields),
                    &format!("{path}[{}]", i + 1),
                    out,
                );
            }
        }
        // A GPIO input or output written as a value (`[gpio.buttons]
        // repeat = 5`).
        (Kind::Table(fields), other) if fields.iter().any(|(name, _)| *name == "pin") => {
            out.push(Problem::new(
                path,
                format!(
                    "must be a table: write [{path}] with its pin, not {}",
                    describe_value(other)
                ),
            ));
        }
        (kind, value) => out.push(Problem::new(
            path,
            format!("must be {}, not {}", kind.describe(), describe_value(value)),
        )),
    }
}

fn unknown_key(key: &str, prefix: &str, fields: &[(&str, Kind)]) -> String {
    let names: Vec<&str> = fields.iter().map(|(name, _)| *name).collect();
    if prefix == "gpio.buttons" {
        let near = match closest(key, &names) {
            Some(near) => format!(" (did you mean `{near}`?)"),
            None => String::new(),
        };
        return format!(
            "unknown button{near}; the lane knows {}",
            names.join(" and ")
        );
    }
    let here = if prefix.is_empty() {
        "at the top of the file".to_owned()
    } else {
        format!("in [{prefix}]")
    };
    let hint = match prefix {
        "gpio.inputs" => "; a rail button goes under [gpio.buttons.<name>]",
        "gpio.outputs.foul_lamp" if key == "pulse_ms" => {
            "; the lamp stays on for rules.foul_lamp_ms"
        }
        _ => "",
    };
    match closest(key, &names) {
        Some(near) => format!(
            "unknown key (did you mean `{near}`?); the keys {here} are: {}{hint}",
            names.join(", ")
        ),
        None => format!(
            "unknown key; the keys {here} are: {}{hint}",
            names.join(", ")
        ),
    }
}

/// The known key within two edits of a misspelt one.
fn closest<'a>(key: &str, names: &[&'a str]) -> Option<&'a str> {
    names
        .iter()
        .map(|name| (edit_distance(key, name), *name))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, name)| name)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != cb))
                .min(above + 1)
                .min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

// ---------------------------------------------------------------------------
// Step 1b: the raw file
// ---------------------------------------------------------------------------

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawConfig {
    lane: Option<i64>,
    state_dir: Option<String>,
    journal: RawJournal,
    pinsetter: RawPinsetter,
    gpio: RawGpio,
    speaker: RawSpeaker,
    web: RawWeb,
    rules: RawRules,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawJournal {
    mirror: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawPinsetter {
    port: Option<String>,
    baud: Option<i64>,
    reconnect_min_ms: Option<i64>,
    reconnect_max_ms: Option<i64>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawGpio {
    backend: Option<String>,
    inputs: RawInputs,
    buttons: BTreeMap<String, RawInput>,
    outputs: RawOutputs,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawInputs {
    foul_beam: Option<RawInput>,
    ball: Option<RawInput>,
    channel_left: Option<RawInput>,
    channel_right: Option<RawInput>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawInput {
    pin: Option<i64>,
    pull: Option<String>,
    active: Option<String>,
    debounce_ms: Option<i64>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawOutputs {
    foul_lamp: Option<RawLamp>,
    pinsetter_reset: Option<RawPulse>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawLamp {
    pin: Option<i64>,
    active: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawPulse {
    pin: Option<i64>,
    active: Option<String>,
    pulse_ms: Option<i64>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawSpeaker {
    enabled: Option<bool>,
    device: Option<String>,
    volume: Option<f64>,
    language: Option<String>,
    stale_after_ms: Option<i64>,
    voice_dir: Option<String>,
    /// Goes into the rules (`speaker_extras`): the journal's header must
    /// carry it, as it changes the callouts a replay gives.
    extras: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawWeb {
    listen: Option<String>,
    judge_pin_hash: Option<String>,
    session_hours: Option<i64>,
    max_connections: Option<i64>,
    max_live_views: Option<i64>,
    tls_cert: Option<String>,
    tls_key: Option<String>,
    session_idle_s: Option<i64>,
    lockout_after: Option<i64>,
    lockout_base_s: Option<i64>,
    lockout_max_s: Option<i64>,
    judges: Vec<RawJudge>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawJudge {
    name: Option<String>,
    pin_hash: Option<String>,
}

/// [`Rules`]' fields as options, so `[rules]` denies unknown keys (Rules
/// itself ignores them, for journals from newer versions) and a missing key
/// takes `Rules::default()`'s value.
#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RawRules {
    ball_break_max_ms: Option<i64>,
    typical_travel_ms: Option<i64>,
    max_travel_ms: Option<i64>,
    pin_report_timeout_ms: Option<i64>,
    slow_bowling_limit_s: Option<i64>,
    foul_lamp_ms: Option<i64>,
    foul_mode: Option<String>,
    min_cycle_ms: Option<i64>,
}

// ---------------------------------------------------------------------------
// Step 2: validation
// ---------------------------------------------------------------------------

const DEFAULT_BAUD: u32 = 9600;
const DEFAULT_RECONNECT_MIN_MS: u64 = 500;
const DEFAULT_RECONNECT_MAX_MS: u64 = 10_000;
const DEFAULT_LISTEN: &str = "0.0.0.0:8080";
const DEFAULT_SESSION_HOURS: u64 = 12;
const DEFAULT_MAX_CONNECTIONS: usize = 256;
const DEFAULT_MAX_LIVE_VIEWS: usize = 64;
const DEFAULT_SESSION_IDLE_S: u64 = 2 * 3600;
const DEFAULT_LOCKOUT_AFTER: u32 = 5;
const DEFAULT_LOCKOUT_BASE_S: u64 = 60;
const DEFAULT_LOCKOUT_MAX_S: u64 = 3600;
/// Each named judge's hash is computed at every login.
const MAX_JUDGES: usize = 8;
/// `[speaker] volume`, and `lanecall say --volume`: 1.0 plays as recorded.
pub const VOLUME: RangeInclusive<f64> = 0.0..=2.0;
const DEFAULT_DEBOUNCE_MS: i64 = 5;
const DEFAULT_PULSE_MS: i64 = 300;

/// Collects the problems found while validating.
#[derive(Default)]
struct Check {
    problems: Vec<Problem>,
}

impl Check {
    fn push(&mut self, key: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem::new(key, message));
    }

    /// A required key's value, or a problem saying what to write.
    fn required<T>(&mut self, key: &str, value: Option<T>, what: &str) -> Option<T> {
        if value.is_none() {
            self.push(key, format!("is missing: {what}"));
        }
        value
    }

    /// A whole number within `range`; `unit` follows the bounds in the
    /// message ("milliseconds").
    fn int(
        &mut self,
        key: &str,
        value: i64,
        range: RangeInclusive<i64>,
        unit: &str,
    ) -> Option<u64> {
        if range.contains(&value) {
            u64::try_from(value).ok()
        } else {
            self.push(
                key,
                format!(
                    "{value} is out of range: use {} to {} {unit}",
                    range.start(),
                    range.end()
                ),
            );
            None
        }
    }

    fn millis(
        &mut self,
        key: &str,
        value: Option<i64>,
        default: i64,
        range: RangeInclusive<i64>,
    ) -> Option<Duration> {
        self.int(key, value.unwrap_or(default), range, "milliseconds")
            .map(Duration::from_millis)
    }

    /// One of the named values, or a problem listing them.
    fn choice<T: Copy>(
        &mut self,
        key: &str,
        value: Option<&str>,
        default: &str,
        choices: &[(&str, T)],
    ) -> Option<T> {
        let value = value.unwrap_or(default);
        let found = choices.iter().find(|(name, _)| *name == value);
        if found.is_none() {
            let names: Vec<String> = choices
                .iter()
                .map(|(name, _)| format!("{name:?}"))
                .collect();
            self.push(key, format!("{value:?} is not one of {}", names.join(", ")));
        }
        found.map(|&(_, v)| v)
    }

    fn non_empty(&mut self, key: &str, value: Option<String>, what: &str) -> Option<String> {
        let value = self.required(key, value, what)?;
        if value.trim().is_empty() {
            self.push(key, format!("is empty: {what}"));
            return None;
        }
        Some(value)
    }

    fn pin(&mut self, key: &str, value: Option<i64>) -> Option<BcmPin> {
        let n = self.required(
            key,
            value,
            "the BCM GPIO number the wire is on, 2 to 27 (pin = 17)",
        )?;
        match n {
            0 | 1 => {
                self.push(
                    key,
                    format!(
                        "BCM {n} is reserved for the HAT ID EEPROM (ID_SD/ID_SC): \
                         move the wire to a free GPIO from 2 to 27"
                    ),
                );
                None
            }
            2..=27 => u8::try_from(n).ok().and_then(BcmPin::new),
            _ => {
                let header = u8::try_from(n).ok().and_then(BcmPin::from_header_pin);
                let hint = match header {
                    Some(bcm) if bcm.number() >= 2 => {
                        format!(
                            "; if the wire is on header pin {n}, that is BCM {}",
                            bcm.number()
                        )
                    }
                    _ => String::new(),
                };
                self.push(
                    key,
                    format!(
                        "{n} is not a BCM GPIO number: use 2 to 27 \
                         (the GPIO number, not the header pin){hint}"
                    ),
                );
                None
            }
        }
    }

    fn active(&mut self, key: &str, value: Option<&str>, default: &str) -> Option<bool> {
        self.choice(key, value, default, &[("low", false), ("high", true)])
    }

    fn input(&mut self, role: InputRole, raw: RawInput) -> Option<InputConfig> {
        let table = role.config_key();
        let key = |name: &str| format!("{table}.{name}");
        let pin = self.pin(&key("pin"), raw.pin);
        let pull = self.choice(
            &key("pull"),
            raw.pull.as_deref(),
            "up",
            &[("up", Pull::Up), ("down", Pull::Down), ("off", Pull::Off)],
        );
        let active_high = self.active(&key("active"), raw.active.as_deref(), "low");
        let debounce = self.millis(
            &key("debounce_ms"),
            raw.debounce_ms,
            DEFAULT_DEBOUNCE_MS,
            0..=1000,
        );
        Some(InputConfig {
            role,
            pin: pin?,
            pull: pull?,
            active_high: active_high?,
            debounce: debounce?,
        })
    }

    fn output(
        &mut self,
        output: Output,
        pin: Option<i64>,
        active: Option<&str>,
        pulse_ms: Option<i64>,
    ) -> Option<OutputConfig> {
        let table = format!("gpio.outputs.{}", output_name(output));
        let pin = self.pin(&format!("{table}.pin"), pin);
        let active_high = self.active(&format!("{table}.active"), active, "high");
        let pulse = match output {
            Output::FoulLamp => Some(Duration::ZERO),
            Output::PinsetterReset => self.millis(
                &format!("{table}.pulse_ms"),
                pulse_ms,
                DEFAULT_PULSE_MS,
                10..=5000,
            ),
        };
        Some(OutputConfig {
            output,
            pin: pin?,
            active_high: active_high?,
            pulse: pulse?,
        })
    }
}

impl RawConfig {
    fn validate(self) -> Result<Config, Vec<Problem>> {
        let mut c = Check::default();

        let lane = c
            .required("lane", self.lane, "the lane number, e.g. lane = 7")
            .and_then(|n| c.int("lane", n, 1..=999, "(the lane number)"))
            .and_then(|n| u32::try_from(n).ok());
        let state_dir = c
            .non_empty(
                "state_dir",
                self.state_dir,
                "the directory for the journals, e.g. state_dir = \"/var/lib/lanecall\"",
            )
            .map(PathBuf::from)
            .and_then(|dir| {
                // Under systemd the daemon's working directory is /, and
                // only state_dir itself may be written.
                if dir.is_absolute() {
                    return Some(dir);
                }
                c.push(
                    "state_dir",
                    format!(
                        "{:?} is not an absolute path: the daemon does not run where you \
                         are; write it from the root, e.g. state_dir = \"/var/lib/lanecall\"",
                        dir.display().to_string()
                    ),
                );
                None
            });
        let mut journal = self.journal.validate(&mut c);
        // The mirror would take the journal for its own copy.
        if let (Some(j), Some(dir)) = (&journal, &state_dir)
            && j.mirror.as_deref() == Some(dir.join("journal").as_path())
        {
            c.push(
                "journal.mirror",
                "is the journal folder itself (state_dir/journal): name a folder elsewhere, \
                 e.g. on a USB stick",
            );
            journal = None;
        }
        let pinsetter = self.pinsetter.validate(&mut c);
        // The rules first, as the foul beam's debounce is checked against
        // them, but their problems last, in the file's order.
        let mut rules_check = Check::default();
        let rules = self.rules.validate(&mut rules_check);
        let gpio = self.gpio.validate(&mut c, rules.as_ref());
        let extras = self.speaker.extras.unwrap_or(false);
        let speaker = self.speaker.validate(&mut c);
        let rules = rules.map(|rules| Rules {
            speaker_extras: extras,
            ..rules
        });
        let web = self.web.validate(&mut c);
        c.problems.append(&mut rules_check.problems);

        match (
            lane, state_dir, journal, pinsetter, gpio, speaker, web, rules,
        ) {
            (
                Some(lane),
                Some(state_dir),
                Some(journal),
                Some(pinsetter),
                Some(gpio),
                Some(speaker),
                Some(web),
                Some(rules),
            ) if c.problems.is_empty() => Ok(Config {
                lane,
                state_dir,
                journal,
                pinsetter,
                gpio,
                speaker,
                web,
                rules,
            }),
            _ => Err(c.problems),
        }
    }
}

impl RawJournal {
    fn validate(self, c: &mut Check) -> Option<JournalConfig> {
        const EXAMPLE: &str = "e.g. mirror = \"/media/usb/lanecall\" under [journal]";
        let mirror = match self.mirror {
            None => None,
            Some(m) if m.trim().is_empty() => {
                c.push(
                    "journal.mirror",
                    format!("is empty: leave it out for no mirror, or name a folder, {EXAMPLE}"),
                );
                return None;
            }
            // The daemon's working directory is not the technician's: a
            // relative path would land somewhere nobody looks.
            Some(m) if !Path::new(&m).is_absolute() => {
                c.push(
                    "journal.mirror",
                    format!("{m:?} is not an absolute path: write it from the root, {EXAMPLE}"),
                );
                return None;
            }
            Some(m) => Some(PathBuf::from(m)),
        };
        Some(JournalConfig { mirror })
    }
}

impl RawPinsetter {
    fn validate(self, c: &mut Check) -> Option<PinsetterConfig> {
        let port = c
            .non_empty(
                "pinsetter.port",
                self.port,
                "the pinsetter's serial device, e.g. port = \"/dev/ttyUSB0\" under [pinsetter]",
            )
            .map(PathBuf::from);

        let baud = self.baud.unwrap_or(i64::from(DEFAULT_BAUD));
        let baud = match u32::try_from(baud) {
            Ok(b) if BAUD_RATES.contains(&b) => Some(b),
            _ => {
                let rates: Vec<String> = BAUD_RATES.iter().map(u32::to_string).collect();
                c.push(
                    "pinsetter.baud",
                    format!(
                        "{baud} is not a serial baud rate: use one of {} (the pinsetter's manual \
                         gives it; 9600 is usual)",
                        rates.join(", ")
                    ),
                );
                None
            }
        };

        let reconnect_min = c.millis(
            "pinsetter.reconnect_min_ms",
            self.reconnect_min_ms,
            DEFAULT_RECONNECT_MIN_MS as i64,
            1..=600_000,
        );
        let reconnect_max = c.millis(
            "pinsetter.reconnect_max_ms",
            self.reconnect_max_ms,
            DEFAULT_RECONNECT_MAX_MS as i64,
            1..=600_000,
        );
        if let (Some(min), Some(max)) = (reconnect_min, reconnect_max)
            && min > max
        {
            c.push(
                "pinsetter.reconnect_min_ms",
                format!(
                    "{} is above pinsetter.reconnect_max_ms ({}): the first retry cannot wait \
                     longer than the longest",
                    min.as_millis(),
                    max.as_millis()
                ),
            );
            return None;
        }

        Some(PinsetterConfig {
            port: port?,
            baud: baud?,
            reconnect_min: reconnect_min?,
            reconnect_max: reconnect_max?,
        })
    }
}

impl RawGpio {
    fn validate(self, c: &mut Check, rules: Option<&Rules>) -> Option<GpioConfig> {
        let backend = c
            .required(
                "gpio.backend",
                self.backend,
                "say where the sensors are: backend = \"rpi\" (the Pi's GPIO header) or \
                 backend = \"none\" (no GPIO) under [gpio]",
            )
            .and_then(|b| {
                c.choice(
                    "gpio.backend",
                    Some(&b),
                    "",
                    &[("rpi", GpioBackend::Rpi), ("none", GpioBackend::None)],
                )
            });

        let mut all_ok = true;
        let mut inputs = Vec::new();
        let fixed = [
            (
                InputRole::FoulBeam,
                self.inputs.foul_beam,
                true,
                "the foul-line beam",
            ),
            (InputRole::Ball, self.inputs.ball, true, "the ball detector"),
            (InputRole::ChannelLeft, self.inputs.channel_left, false, ""),
            (
                InputRole::ChannelRight,
                self.inputs.channel_right,
                false,
                "",
            ),
        ];
        let named = self
            .buttons
            .into_iter()
            .map(|(name, raw)| (InputRole::Button(name), Some(raw), false, ""));
        // The walk has refused every button name but [`BUTTONS`].
        for (role, raw, required, what) in fixed.into_iter().chain(named) {
            match raw {
                Some(raw) => match c.input(role, raw) {
                    Some(input) => inputs.push(input),
                    None => all_ok = false,
                },
                None if required && backend == Some(GpioBackend::Rpi) => {
                    c.push(
                        role.config_key(),
                        format!(
                            "is missing: gpio.backend = \"rpi\" needs {what}: \
                             add [{}] with its pin",
                            role.config_key()
                        ),
                    );
                    all_ok = false;
                }
                None => {}
            }
        }

        let mut outputs = Vec::new();
        let lamp = self
            .outputs
            .foul_lamp
            .map(|raw| c.output(Output::FoulLamp, raw.pin, raw.active.as_deref(), None));
        let reset = self.outputs.pinsetter_reset.map(|raw| {
            c.output(
                Output::PinsetterReset,
                raw.pin,
                raw.active.as_deref(),
                raw.pulse_ms,
            )
        });
        for (output, result, what) in [
            (Output::FoulLamp, lamp, "the foul lamp's relay"),
            (Output::PinsetterReset, reset, "the pinsetter reset's relay"),
        ] {
            match result {
                Some(Some(o)) => outputs.push(o),
                Some(None) => all_ok = false,
                None if backend == Some(GpioBackend::Rpi) => {
                    let key = format!("gpio.outputs.{}", output_name(output));
                    c.push(
                        &key,
                        format!(
                            "is missing: gpio.backend = \"rpi\" needs {what}: \
                             add [{key}] with its pin"
                        ),
                    );
                    all_ok = false;
                }
                None => {}
            }
        }

        // Every pin once: name the key that uses it first.
        let mut used: Vec<(BcmPin, String)> = Vec::new();
        let keyed = inputs
            .iter()
            .map(|i| (i.pin, format!("{}.pin", i.role.config_key())))
            .chain(
                outputs
                    .iter()
                    .map(|o| (o.pin, format!("gpio.outputs.{}.pin", output_name(o.output)))),
            );
        for (pin, key) in keyed {
            match used.iter().find(|(p, _)| *p == pin) {
                Some((_, first)) => {
                    c.push(
                        &key,
                        format!(
                            "{pin} is already used by {first}: each input and output needs its \
                             own GPIO"
                        ),
                    );
                    all_ok = false;
                }
                None => used.push((pin, key)),
            }
        }

        if let (Some(rules), Some(beam)) =
            (rules, inputs.iter().find(|i| i.role == InputRole::FoulBeam))
            && beam.debounce.as_millis() >= u128::from(rules.ball_break_max_ms)
        {
            c.push(
                "gpio.inputs.foul_beam.debounce_ms",
                format!(
                    "{} must be below rules.ball_break_max_ms ({}), or a ball crossing the line \
                     is filtered out",
                    beam.debounce.as_millis(),
                    rules.ball_break_max_ms
                ),
            );
            all_ok = false;
        }

        all_ok.then_some(())?;
        Some(GpioConfig {
            backend: backend?,
            inputs,
            outputs,
        })
    }
}

impl RawSpeaker {
    fn validate(self, c: &mut Check) -> Option<SpeakerConfig> {
        let device = match self.device.as_deref() {
            None | Some("default") => Some(None),
            Some(d) if d.trim().is_empty() => {
                c.push(
                    "speaker.device",
                    "is empty: write an ALSA device name (see `aplay -L`) or \"default\"",
                );
                None
            }
            Some(d) => Some(Some(d.to_owned())),
        };
        let volume = self.volume.unwrap_or(1.0);
        let volume = if VOLUME.contains(&volume) {
            Some(volume as f32)
        } else {
            c.push(
                "speaker.volume",
                format!("{volume} is out of range: use 0.0 to 2.0 (1.0 plays as recorded)"),
            );
            None
        };
        let language = c.choice(
            "speaker.language",
            self.language.as_deref(),
            "ru",
            &[("ru", Language::Ru), ("en", Language::En)],
        );
        let stale_after = c.millis(
            "speaker.stale_after_ms",
            self.stale_after_ms,
            8000,
            1..=600_000,
        );
        let voice_dir = match self.voice_dir.as_deref() {
            Some(d) if d.trim().is_empty() => {
                c.push(
                    "speaker.voice_dir",
                    "is empty: leave it out for the built-in voice, or name the folder of recordings",
                );
                None
            }
            d => Some(d.map(PathBuf::from)),
        };
        Some(SpeakerConfig {
            voice_dir: voice_dir?,
            enabled: self.enabled.unwrap_or(true),
            device: device?,
            volume: volume?,
            language: language?,
            stale_after: stale_after?,
        })
    }
}

impl RawWeb {
    fn validate(self, c: &mut Check) -> Option<WebConfig> {
        let listen = self.listen.as_deref().unwrap_or(DEFAULT_LISTEN);
        let listen = match listen.parse::<SocketAddr>() {
            Ok(addr) => Some(addr),
            Err(_) => {
                c.push(
                    "web.listen",
                    format!("{listen:?} is not an address like 0.0.0.0:8080"),
                );
                None
            }
        };

        let judges = validate_judges(self.judges, c);
        let hash = match self.judge_pin_hash {
            Some(hash) => pin_hash(c, "web.judge_pin_hash", hash).map(Some),
            // Named judges alone are enough.
            None if judges.as_ref().is_none_or(|j| !j.is_empty()) => Some(None),
            None => {
                c.push(
                    "web.judge_pin_hash",
                    format!("is missing: the judge PIN's hash: {HOW}"),
                );
                None
            }
        };

        let hours = self.session_hours.unwrap_or(DEFAULT_SESSION_HOURS as i64);
        let session = c
            .int("web.session_hours", hours, 1..=168, "hours")
            .map(|h| Duration::from_secs(h * 3600));
        let idle = self.session_idle_s.unwrap_or(DEFAULT_SESSION_IDLE_S as i64);
        let session_idle = c
            .int("web.session_idle_s", idle, 1..=7 * 86400, "seconds")
            .map(Duration::from_secs);
        let after = c
            .int(
                "web.lockout_after",
                self.lockout_after
                    .unwrap_or(i64::from(DEFAULT_LOCKOUT_AFTER)),
                1..=100,
                "wrong PINs",
            )
            .and_then(|n| u32::try_from(n).ok());
        let base = c
            .int(
                "web.lockout_base_s",
                self.lockout_base_s.unwrap_or(DEFAULT_LOCKOUT_BASE_S as i64),
                1..=86400,
                "seconds",
            )
            .map(Duration::from_secs);
        let max = c
            .int(
                "web.lockout_max_s",
                self.lockout_max_s.unwrap_or(DEFAULT_LOCKOUT_MAX_S as i64),
                1..=7 * 86400,
                "seconds",
            )
            .map(Duration::from_secs);
        if let (Some(b), Some(m)) = (base, max)
            && m < b
        {
            c.push(
                "web.lockout_max_s",
                format!(
                    "{} is shorter than lockout_base_s ({}): the longest lock cannot be shorter \
                     than the first",
                    m.as_secs(),
                    b.as_secs()
                ),
            );
        }

        // At least a few: a panel opens a live view and a request or two.
        let max_connections = c
            .int(
                "web.max_connections",
                self.max_connections
                    .unwrap_or(DEFAULT_MAX_CONNECTIONS as i64),
                8..=65_536,
                "connections",
            )
            .map(|n| n as usize);
        // Half the connections at most, so a full set of live views leaves
        // room for the judges' requests. The default is lowered to fit a
        // small max_connections; a value written in the file is checked.
        let half = max_connections.map_or(65_536 / 2, |n| n as i64 / 2);
        let max_live_views = match self.max_live_views {
            None => Some((DEFAULT_MAX_LIVE_VIEWS as i64).min(half) as usize),
            Some(n) => c
                .int(
                    "web.max_live_views",
                    n,
                    1..=half,
                    "live views (at most half of web.max_connections)",
                )
                .map(|n| n as usize),
        };
        let tls = tls_files(c, self.tls_cert, self.tls_key);

        Some(WebConfig {
            listen: listen?,
            judge_pin_hash: hash?,
            judges: judges?,
            session: session?,
            max_connections: max_connections?,
            max_live_views: max_live_views?,
            tls: tls?,
            session_idle: session_idle?,
            lockout_after: after?,
            lockout_base: base?,
            lockout_max: max.filter(|m| base.is_none_or(|b| *m >= b))?,
        })
    }
}

/// `tls_cert` and `tls_key`: both or neither, each a readable PEM file
/// with what it is named for. Read here so `lanecall check-config` finds a
/// file the daemon could not read before the daemon is restarted.
fn tls_files(c: &mut Check, cert: Option<String>, key: Option<String>) -> Option<Option<TlsFiles>> {
    use rustls_pki_types::pem::PemObject as _;
    use rustls_pki_types::{CertificateDer, PrivateKeyDer};
    const HOW: &str = "set both web.tls_cert and web.tls_key for HTTPS, or neither for HTTP";
    let (cert, key) = match (cert, key) {
        (None, None) => return Some(None),
        (Some(_), None) => {
            c.push("web.tls_key", format!("is missing: {HOW}"));
            return None;
        }
        (None, Some(_)) => {
            c.push("web.tls_cert", format!("is missing: {HOW}"));
            return None;
        }
        (Some(cert), Some(key)) => (PathBuf::from(cert), PathBuf::from(key)),
    };
    let mut ok = true;
    match std::fs::read(&cert) {
        Err(e) => {
            c.push(
                "web.tls_cert",
                format!("cannot read {}: {e}", cert.display()),
            );
            ok = false;
        }
        Ok(pem) => {
            let certs: Result<Vec<_>, _> = CertificateDer::pem_slice_iter(&pem).collect();
            if !certs.is_ok_and(|certs| !certs.is_empty()) {
                c.push(
                    "web.tls_cert",
                    format!(
                        "{} holds no certificate in PEM form (-----BEGIN CERTIFICATE-----)",
                        cert.display()
                    ),
                );
                ok = false;
            }
        }
    }
    match std::fs::read(&key) {
        Err(e) => {
            c.push("web.tls_key", format!("cannot read {}: {e}", key.display()));
            ok = false;
        }
        Ok(pem) => {
            if PrivateKeyDer::from_pem_slice(&pem).is_err() {
                c.push(
                    "web.tls_key",
                    format!(
                        "{} holds no private key in PEM form (-----BEGIN PRIVATE KEY-----)",
                        key.display()
                    ),
                );
                ok = false;
            }
        }
    }
    ok.then_some(Some(TlsFiles { cert, key }))
}

const HOW: &str = "run `lanecall hash-pin PIN` and paste its output";

/// A configured PIN hash that this build can check, or a problem at `key`.
fn pin_hash(c: &mut Check, key: &str, hash: String) -> Option<String> {
    let complete = argon2::PasswordHash::new(&hash).is_ok_and(|phc| phc.hash.is_some());
    if !hash.starts_with("$argon2") {
        c.push(
            key,
            format!("is not an argon2 hash (it must start with $argon2): {HOW}"),
        );
        None
    } else if !complete {
        c.push(
            key,
            format!("is not a complete argon2 hash (cut short when pasted?): {HOW}"),
        );
        None
    } else {
        Some(hash)
    }
}

fn validate_judges(raw: Vec<RawJudge>, c: &mut Check) -> Option<Vec<JudgeConfig>> {
    if raw.len() > MAX_JUDGES {
        c.push(
            "web.judges",
            format!(
                "{} judges: at most {MAX_JUDGES} (each login checks every judge's PIN)",
                raw.len()
            ),
        );
        return None;
    }
    let mut judges = Vec::new();
    let mut ok = true;
    for (i, j) in raw.into_iter().enumerate() {
        let key = |k: &str| format!("web.judges[{}].{k}", i + 1);
        let name = c
            .non_empty(
                &key("name"),
                j.name,
                "the judge's name as the journal writes it",
            )
            .map(|n| n.trim().to_owned())
            .and_then(|n| match crate::ports::valid_name(&n) {
                Ok(()) => Some(n),
                Err(m) => {
                    c.push(key("name"), m);
                    None
                }
            });
        if let Some(n) = &name
            && judges.iter().any(|j: &JudgeConfig| j.name == *n)
        {
            c.push(key("name"), format!("{n:?} is named twice"));
            ok = false;
        }
        let hash = c
            .required(
                &key("pin_hash"),
                j.pin_hash,
                &format!("the judge's PIN hash: {HOW}"),
            )
            .and_then(|h| pin_hash(c, &key("pin_hash"), h));
        match (name, hash) {
            (Some(name), Some(pin_hash)) => judges.push(JudgeConfig { name, pin_hash }),
            _ => ok = false,
        }
    }
    ok.then_some(judges)
}

impl RawRules {
    fn validate(self, c: &mut Check) -> Option<Rules> {
        let mut rules = Rules::default();
        let mut ok = true;
        let fields: [(&str, Option<i64>, &mut u64); 7] = [
            (
                "ball_break_max_ms",
                self.ball_break_max_ms,
                &mut rules.ball_break_max_ms,
            ),
            (
                "typical_travel_ms",
                self.typical_travel_ms,
                &mut rules.typical_travel_ms,
            ),
            (
                "max_travel_ms",
                self.max_travel_ms,
                &mut rules.max_travel_ms,
            ),
            (
                "pin_report_timeout_ms",
                self.pin_report_timeout_ms,
                &mut rules.pin_report_timeout_ms,
            ),
            (
                "slow_bowling_limit_s",
                self.slow_bowling_limit_s,
                &mut rules.slow_bowling_limit_s,
            ),
            ("foul_lamp_ms", self.foul_lamp_ms, &mut rules.foul_lamp_ms),
            ("min_cycle_ms", self.min_cycle_ms, &mut rules.min_cycle_ms),
        ];
        for (name, value, field) in fields {
            let Some(value) = value else { continue };
            match u64::try_from(value) {
                Ok(v) => *field = v,
                Err(_) => {
                    c.push(
                        format!("rules.{name}"),
                        format!("{value} must not be negative"),
                    );
                    ok = false;
                }
            }
        }
        match c.choice(
            "rules.foul_mode",
            self.foul_mode.as_deref(),
            "score",
            &[("score", FoulMode::Score), ("warn", FoulMode::Warn)],
        ) {
            Some(mode) => rules.foul_mode = mode,
            None => ok = false,
        }
        if !ok {
            return None;
        }
        let problems = rules.problems();
        for problem in &problems {
            // Rules::problems() starts each message with the key's name.
            let (first, rest) = problem.split_once(' ').unwrap_or((problem, ""));
            if RULES.iter().any(|(name, _)| *name == first) {
                // "max_travel_ms (2000) must not be ...": keep the value.
                let message = if rest.starts_with('(') {
                    problem.as_str()
                } else {
                    rest
                };
                c.push(format!("rules.{first}"), message);
            } else {
                c.push("rules", problem.as_str());
            }
        }
        problems.is_empty().then_some(rules)
    }
}

// ---------------------------------------------------------------------------
// Step 3: what `lanecall check-config` checks beyond the file
// ---------------------------------------------------------------------------

/// What the file cannot tell by itself: found by `lanecall check-config`,
/// not by the daemon's start (a lane with a placeholder PIN still scores).
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
}

/// Where systemd finds the service's unit and its drop-ins.
const UNIT: &str = "/etc/systemd/system/lanecall.service";

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
        let mut files = vec![PathBuf::from(UNIT)];
        if let Ok(dir) = std::fs::read_dir(format!("{UNIT}.d")) {
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
    /// as the example's placeholder, and a panel port below 1024 that this
    /// process may not bind. `text` is the file, for the keys' lines.
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
                         {UNIT} nor a drop-in in {UNIT}.d adds \
                         AmbientCapabilities=CAP_NET_BIND_SERVICE. Use a port from 1024 up, \
                         e.g. listen = \"0.0.0.0:8080\""
                    ),
                ),
            }
        }
        check
    }
}

/// The line and column (from 1) of `key` (`gpio.inputs.ball.pin`,
/// `web.judges[2].name`) in `text`; for a key that is not written, of the
/// nearest table around it that is.
fn position(text: &str, key: &str) -> Option<(usize, usize)> {
    use toml::de::{DeTable, DeValue};
    let doc = DeTable::parse(text).ok()?;
    let mut table = doc.get_ref();
    let mut found = None;
    for (name, index) in key_parts(key) {
        let Some((k, v)) = table.iter().find(|(k, _)| k.get_ref().as_ref() == name) else {
            break;
        };
        found = Some(k.span().start);
        let mut value = v.get_ref();
        if let Some(i) = index {
            let Some(item) = value
                .as_array()
                .and_then(|a| a.as_ref().get(i.checked_sub(1)?))
            else {
                break;
            };
            found = Some(item.span().start);
            value = item.get_ref();
        }
        match value {
            DeValue::Table(t) => table = t,
            _ => break,
        }
    }
    let offset = found?;
    let before = text.get(..offset)?;
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Some((line, column))
}

/// A key path's parts as [`join`] and the walk write them: each name
/// (unquoted) with its `[n]` index, if any.
fn key_parts(key: &str) -> Vec<(String, Option<usize>)> {
    let mut parts = Vec::new();
    let mut rest = key;
    while !rest.is_empty() {
        let (name, after) = if let Some(quoted) = rest.strip_prefix('"') {
            let end = quoted.find('"').unwrap_or(quoted.len());
            (
                quoted[..end].to_owned(),
                quoted.get(end + 1..).unwrap_or(""),
            )
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            (rest[..end].to_owned(), &rest[end..])
        };
        let (index, after) = match after.strip_prefix('[').and_then(|a| a.split_once(']')) {
            Some((n, after)) => (n.parse().ok(), after),
            None => (None, after),
        };
        parts.push((name, index));
        rest = after.strip_prefix('.').unwrap_or(after);
    }
    parts
}

/// Removes `a.b.c` from a table, if it is there.
fn remove_key(table: &mut toml::Table, key: &str) {
    match key.split_once('.') {
        None => {
            table.remove(key);
        }
        Some((head, rest)) => {
            if let Some(toml::Value::Table(inner)) = table.get_mut(head) {
                remove_key(inner, rest);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_pins_match_the_pinout() {
        let pairs = [
            (2, 3),
            (3, 5),
            (4, 7),
            (17, 11),
            (27, 13),
            (22, 15),
            (10, 19),
            (9, 21),
            (11, 23),
            (0, 27),
            (5, 29),
            (6, 31),
            (13, 33),
            (19, 35),
            (26, 37),
            (14, 8),
            (15, 10),
            (18, 12),
            (23, 16),
            (24, 18),
            (25, 22),
            (8, 24),
            (7, 26),
            (1, 28),
            (12, 32),
            (16, 36),
            (20, 38),
            (21, 40),
        ];
        assert_eq!(pairs.len(), 28);
        for (bcm, header) in pairs {
            let pin = BcmPin::new(bcm).unwrap();
            assert_eq!(pin.header_pin(), header, "BCM {bcm}");
            assert_eq!(BcmPin::from_header_pin(header), Some(pin));
        }
        assert_eq!(BcmPin::new(28), None);
        assert_eq!(BcmPin::from_header_pin(1), None);
    }

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("pinn", "pin"), 1);
        assert_eq!(edit_distance("debounce", "debounce_ms"), 3);
        assert_eq!(closest("pinn", &["pin", "pull"]), Some("pin"));
    }

    #[test]
    fn the_shipped_unit_grants_no_low_port_and_a_drop_in_can() {
        let shipped = (
            PathBuf::from("lanecall.service"),
            include_str!("../systemd/lanecall.service").to_owned(),
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
    fn floats_round_trip() {
        for v in [0.0f32, 0.8, 1.0, 1.7, 2.0, 0.333_333_34] {
            let s = toml_float(v);
            assert_eq!(s.parse::<f64>().unwrap() as f32, v, "{s}");
        }
    }
}

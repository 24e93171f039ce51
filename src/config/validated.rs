//! The validated configuration: the types the rest of the crate uses, every
//! field usable as it is (`print` writes it back as the file).
//!
//! It decides what a usable config holds; it never reads the file nor
//! checks a value (see `validate`).

use std::net::SocketAddr;
use std::path::PathBuf;

pub use super::centre::CentreConfig;
use super::gpio::GpioConfig;
pub use super::journal::JournalConfig;
pub use super::pinsetter::{BAUD_RATES, PinsetterConfig};
pub use super::speaker::SpeakerConfig;
use super::switches::SwitchesConfig;
pub use super::web::{TlsFiles, WebConfig};
use crate::lane::rules::Rules;

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

/// The callouts' language (the lane's; a bowler may have their own).
pub use crate::lane::Language;

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

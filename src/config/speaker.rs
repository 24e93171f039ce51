//! `[speaker]`: the table as the file writes it and as the speaker uses
//! it, one struct. Each key is a field with its doc, its default in
//! [`SpeakerConfig`]'s `Default`, and its check in the field's type or
//! in [`SpeakerConfig::check`] (`voice` and `voice_dir` together).
//!
//! It decides what the speaker's keys mean; it never opens a sound card.

use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::collect::Check;
use super::defaults::VOICES_DIR;
use super::value::Millis;
use crate::lane::Language;
use crate::lane::rules::Rules;

/// `[speaker] volume`, and `lanecall say --volume`: 1.0 plays as recorded.
pub const VOLUME: RangeInclusive<f64> = 0.0..=2.0;

/// `device`: the card the speaker ranks first (`device` `None`).
pub(super) const AUTO_DEVICE: &str = "auto";

/// `voice`: the built-in voice.
pub(super) const BUILTIN_VOICE: &str = "builtin";

/// The speaker that calls out the pins.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct SpeakerConfig {
    pub enabled: bool,
    /// The ALSA device (`default` is ALSA's, card 0 on a Pi); `None` is
    /// "auto": the card `speaker::cards` ranks first at each open.
    #[serde(with = "device")]
    pub device: Option<String>,
    /// 0.0..=2.0; 1.0 plays the voice pack as recorded.
    #[serde(with = "volume")]
    pub volume: f32,
    #[serde(with = "language")]
    pub language: Language,
    /// A callout not started by then is dropped: a stale call misleads a
    /// blind bowler more than a missing one. Above zero.
    #[serde(rename = "stale_after_ms", with = "Millis::<1, 600_000>")]
    pub stale_after: Duration,
    /// The silence between two words of a callout ("seven, ten"), at
    /// least 260 ms (shorter, "семь, десять" runs into "семьдесят"): a
    /// hall whose echo runs the words together needs it longer.
    #[serde(rename = "word_pause_ms", with = "Millis::<260, 2000>")]
    pub word_pause: Duration,
    /// How often a sound card that is missing (a USB DAC pulled out, an
    /// HDMI screen off) is looked for again; a callout waits at most this
    /// long once the card is back.
    #[serde(rename = "device_retry_ms", with = "Millis::<500, 60_000>")]
    pub device_retry: Duration,
    /// A folder of recordings (`ru/strike.wav`, `en/7.wav`…) that replace
    /// the built-in voice; see [`SpeakerConfig::voice_folder`].
    #[serde(
        deserialize_with = "voice_dir",
        skip_serializing_if = "Option::is_none"
    )]
    pub voice_dir: Option<PathBuf>,
    /// `"builtin"`, or a voice the package installs in [`VOICES_DIR`], by
    /// its folder's name.
    #[serde(deserialize_with = "voice")]
    pub voice: String,
    /// Goes into the rules (`speaker_extras`): the journal's header must
    /// carry it, as it changes the callouts a replay gives.
    pub extras: bool,
}

impl Default for SpeakerConfig {
    fn default() -> Self {
        SpeakerConfig {
            enabled: true,
            device: None,
            volume: 1.0,
            language: Language::Ru,
            stale_after: Duration::from_millis(8000),
            word_pause: Duration::from_millis(260),
            device_retry: Duration::from_secs(5),
            voice_dir: None,
            voice: BUILTIN_VOICE.to_owned(),
            extras: Rules::default().speaker_extras,
        }
    }
}

impl SpeakerConfig {
    /// The folder of the voice the lane speaks with: `voice_dir`, or an
    /// installed voice's; `None` for the built-in voice.
    pub fn voice_folder(&self) -> Option<PathBuf> {
        match (&self.voice_dir, self.voice.as_str()) {
            (Some(dir), _) => Some(dir.clone()),
            (None, BUILTIN_VOICE) => None,
            (None, name) => Some(PathBuf::from(VOICES_DIR).join(name)),
        }
    }

    /// What the keys say together: one voice at most.
    pub(super) fn check(&self, c: &mut Check) -> bool {
        if self.voice_dir.is_some() && self.voice != BUILTIN_VOICE {
            c.push(
                "speaker.voice",
                "and speaker.voice_dir both name a voice: keep one (voice_dir for recordings of \
                 your own)",
            );
            return false;
        }
        true
    }
}

mod device {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        match String::deserialize(d)? {
            d if d == super::AUTO_DEVICE => Ok(None),
            d if d.trim().is_empty() => Err(D::Error::custom(
                "is empty: write \"auto\", \"default\" or an ALSA device name (see `aplay -L`)",
            )),
            d => Ok(Some(d)),
        }
    }

    pub(super) fn serialize<S: Serializer>(v: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v.as_deref().unwrap_or(super::AUTO_DEVICE))
    }
}

mod volume {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
        let volume = f64::deserialize(d)?;
        if super::VOLUME.contains(&volume) {
            Ok(volume as f32)
        } else {
            Err(D::Error::custom(format!(
                "{volume} is out of range: use 0.0 to 2.0 (1.0 plays as recorded)"
            )))
        }
    }

    pub(super) fn serialize<S: Serializer>(v: &f32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(super::super::value::shortest(*v))
    }
}

mod language {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::lane::Language;

    const LANGUAGES: [(&str, Language); 2] = [("ru", Language::Ru), ("en", Language::En)];

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Language, D::Error> {
        super::super::value::choice(&String::deserialize(d)?, &LANGUAGES).map_err(D::Error::custom)
    }

    pub(super) fn serialize<S: Serializer>(v: &Language, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v.as_str())
    }
}

fn voice_dir<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
    match String::deserialize(d)? {
        dir if dir.trim().is_empty() => Err(serde::de::Error::custom(
            "is empty: leave it out for the built-in voice, or name the folder of recordings",
        )),
        dir => Ok(Some(PathBuf::from(dir))),
    }
}

fn voice<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let v = String::deserialize(d)?;
    let named = (1..=40).contains(&v.len())
        && v.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if named {
        Ok(v)
    } else {
        Err(serde::de::Error::custom(format!(
            "{v:?}: \"builtin\", or the name of a voice installed in {VOICES_DIR} (a-z, 0-9 and -, \
             e.g. \"rhvoice\")"
        )))
    }
}

/// `[speaker] device_retry_ms`: five seconds when left out, the file's
/// value when set and in range, refused with its range otherwise, and
/// printed back under its name.
#[cfg(test)]
mod device_retry_tests {
    use std::path::Path;
    use std::time::Duration;

    use crate::config::{Config, ConfigError};

    const MINIMAL: &str = "lane = 3\nstate_dir = \"/var/lib/lanecall\"\n[pinsetter]\nport = \"/dev/ttyUSB0\"\n[gpio]\nbackend = \"none\"\n[web]\njudge_pin_hash = \"$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"\n";

    fn with(line: &str) -> Result<Config, ConfigError> {
        let text = MINIMAL.replace("[gpio]", &format!("[speaker]\n{line}\n[gpio]"));
        Config::parse(&text, Path::new("lanecall.toml"))
    }

    #[test]
    fn the_device_retry_is_read_defaulted_refused_out_of_range_and_printed() {
        let config = Config::parse(MINIMAL, Path::new("lanecall.toml")).unwrap();
        assert_eq!(config.speaker.device_retry, Duration::from_secs(5));
        assert!(config.to_toml().contains("\ndevice_retry_ms = 5000\n"));
        let config = with("device_retry_ms = 1500").unwrap();
        assert_eq!(config.speaker.device_retry, Duration::from_millis(1500));
        assert!(config.to_toml().contains("\ndevice_retry_ms = 1500\n"));
        let Err(ConfigError::Invalid { problems, .. }) = with("device_retry_ms = 100") else {
            panic!("100 ms accepted");
        };
        assert_eq!(
            problems.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "speaker.device_retry_ms: 100 is out of range: use 500 to 60000 milliseconds \
              (line 6, column 1)"
            ]
        );
    }
}

/// `[speaker] word_pause_ms`, end to end: its default is the speaker's
/// floor, the file sets it, a shorter pause is refused, and the speaker
/// leaves that much silence between two words.
#[cfg(test)]
mod word_pause_tests {
    use std::path::Path;
    use std::time::Duration;

    use super::SpeakerConfig;
    use crate::config::{Config, ConfigError};
    use crate::lane::Language;
    use crate::speaker::pack::VoicePack;
    use crate::speaker::phrase::{PAUSE, WORD_PAUSE};

    const MINIMAL: &str = "lane = 3\nstate_dir = \"/var/lib/lanecall\"\n[pinsetter]\nport = \"/dev/ttyUSB0\"\n[gpio]\nbackend = \"none\"\n[web]\njudge_pin_hash = \"$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"\n";

    fn with_pause(line: &str) -> Result<Config, ConfigError> {
        let text = MINIMAL.replace("[gpio]", &format!("[speaker]\n{line}\n[gpio]"));
        Config::parse(&text, Path::new("lanecall.toml"))
    }

    #[test]
    fn the_word_pause_defaults_to_the_speakers_least_and_is_read() {
        assert_eq!(SpeakerConfig::default().word_pause, WORD_PAUSE);
        let config = Config::parse(MINIMAL, Path::new("lanecall.toml")).unwrap();
        assert_eq!(config.speaker.word_pause, WORD_PAUSE);
        assert!(config.to_toml().contains("\nword_pause_ms = 260\n"));
        let config = with_pause("word_pause_ms = 450").unwrap();
        assert_eq!(config.speaker.word_pause, Duration::from_millis(450));
        assert!(config.to_toml().contains("\nword_pause_ms = 450\n"));
    }

    #[test]
    fn a_word_pause_shorter_than_the_least_or_over_two_seconds_is_refused() {
        for (line, value) in [("word_pause_ms = 200", 200), ("word_pause_ms = 2001", 2001)] {
            let Err(ConfigError::Invalid { problems, .. }) = with_pause(line) else {
                panic!("{line} accepted");
            };
            assert_eq!(
                problems.iter().map(ToString::to_string).collect::<Vec<_>>(),
                [format!(
                    "speaker.word_pause_ms: {value} is out of range: use 260 to 2000 \
                     milliseconds (line 6, column 1)"
                )]
            );
        }
    }

    #[test]
    fn the_speaker_leaves_the_word_pause_between_two_words() {
        let silence = |pause: Duration| -> Duration {
            let clips = VoicePack::builtin(Language::En)
                .with_word_pause(pause)
                .sound(&["n7", PAUSE, "n10"]);
            assert_eq!(clips.len(), 3);
            clips[1].duration()
        };
        let least = silence(WORD_PAUSE);
        let longer = silence(Duration::from_millis(760));
        assert_eq!(longer - least, Duration::from_millis(500));
        // Never closer than the least.
        assert_eq!(silence(Duration::from_millis(10)), least);
    }
}

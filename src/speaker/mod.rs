//! The speaker: what a good sighted assistant would call after every ball,
//! in the bowler's language, through the lane's speaker.
//!
//! - [`pack`]: voice packs, one clip per word, built in or recorded;
//! - [`phrase`]: the clips of a callout (pin numbers, marks, side, channel,
//!   a score read on request), with Russian numerals composed correctly;
//! - [`cards`]: the sound cards `/proc/asound/cards` lists, and the one
//!   `[speaker] device = "auto"` takes (a USB DAC or an I2S HAT before the
//!   headphone jack, the jack before HDMI);
//! - [`player`]: playback on its own thread, one callout after another,
//!   never overlapping, a stale one dropped, "ready" only once the card
//!   has taken samples, a card pulled while idle seen within seconds and
//!   looked for again, a callout said meanwhile read on its return if still
//!   current.
//!
//! Nothing here may hold up the lane: [`Voice::say`] hands the clips over
//! and returns, and a missing sound card leaves the lane scoring silently.

pub mod cards;
pub mod check;
pub mod pack;
pub mod phrase;
pub mod player;

use crate::config::SpeakerConfig;
use crate::lane::{Bowler, Callout, Conduct, ConductKind, Language, Said, Verbosity};
use crate::ports::CalloutSink;
use pack::{Clip, VoicePack};
use player::{AudioOut, RodioOut, Speaker, SpeakerSettings, SpeakerState, Utterance};

/// The lane's voice: both languages' packs and the speaker.
pub struct Voice {
    ru: VoicePack,
    en: VoicePack,
    /// The lane's language; a bowler may have their own.
    language: Language,
    speaker: Speaker,
}

impl Voice {
    /// Loads the packs (recordings from `voice_dir` where there are some,
    /// the built-in voice for the rest) and starts the speaker.
    pub fn start(config: &SpeakerConfig) -> Voice {
        Voice::with_output(config, Box::new(RodioOut::new(config.device.clone())))
    }

    /// [`Voice::start`] with another output than the sound card (tests,
    /// benchmarks).
    pub fn with_output(config: &SpeakerConfig, out: Box<dyn AudioOut>) -> Voice {
        let pack = |language| load_pack(config, language);
        let speaker = if config.enabled {
            let settings = SpeakerSettings {
                device: config.device.clone(),
                volume: config.volume,
                stale_after: config.stale_after,
                retry: config.device_retry,
                ..SpeakerSettings::default()
            };
            Speaker::start(settings, out)
        } else {
            Speaker::disabled()
        };
        Voice {
            ru: pack(Language::Ru),
            en: pack(Language::En),
            language: config.language,
            speaker,
        }
    }

    fn pack(&self, language: Language) -> &VoicePack {
        match language {
            Language::Ru => &self.ru,
            Language::En => &self.en,
        }
    }

    /// The clips of what a callout says, for a bowler (or practice).
    pub fn clips(&self, said: &Said, bowler: Option<&Bowler>) -> Vec<Clip> {
        let voice = bowler.map(|b| b.voice).unwrap_or_default();
        let language = voice.language.unwrap_or(self.language);
        let pack = self.pack(language);
        pack.sound(&phrase::callout(said, language, voice.verbosity))
    }

    pub fn state(&self) -> SpeakerState {
        self.speaker.state()
    }

    /// "Scores not saved, call technician", in the lane's language, once
    /// at start: the journal is on a file system kept in memory
    /// (raspi-config's overlay), so the next power cut takes every game,
    /// and the assistant cannot see the panel's banner.
    pub fn journal_volatile(&self) {
        tracing::info!("callout: scores not saved, call technician");
        self.say_to_assistant("journal_volatile");
    }

    /// Says one clip to the assistant and the judges, in the lane's
    /// language (not a bowler's own: it is not their callout).
    fn say_to_assistant(&self, name: &str) {
        if let Some(clip) = self.pack(self.language).get(name).cloned() {
            self.speaker.say(Utterance {
                clips: vec![clip],
                queued_at: std::time::Instant::now(),
            });
        }
    }
}

/// The voice pack the config asks for, each clip it lacks said in the log.
fn load_pack(config: &SpeakerConfig, language: Language) -> VoicePack {
    let pack = read_pack(config, language).with_word_pause(config.word_pause);
    // Only a broken build lacks built-in clips: said, as the lane would
    // otherwise play silence and report its speaker ready.
    let missing = pack.missing();
    if !missing.is_empty() {
        tracing::error!(
            "the {} voice has no clip for {} word(s), which are not said: {}",
            language.as_str(),
            missing.len(),
            missing.join(", ")
        );
    }
    pack
}

fn read_pack(config: &SpeakerConfig, language: Language) -> VoicePack {
    let Some(dir) = &config.voice_folder() else {
        return VoicePack::builtin(language);
    };
    let dir = dir.join(language.as_str());
    match VoicePack::from_dir(&dir, language) {
        Ok((pack, missing)) => {
            if !missing.is_empty() {
                tracing::warn!(
                    folder = %dir.display(),
                    "voice recordings missing, the built-in voice says them: {}",
                    missing.join(", ")
                );
            }
            pack
        }
        Err(e) => {
            tracing::error!(
                "{e}: the built-in {} voice speaks instead",
                language.as_str()
            );
            VoicePack::builtin(language)
        }
    }
}

impl CalloutSink for Voice {
    fn say(&mut self, callout: &Callout, bowler: Option<&Bowler>) {
        let verbosity = bowler.map_or(Verbosity::Pins, |b| b.voice.verbosity);
        tracing::info!(
            bowler = bowler.map_or("practice", |b| b.name.as_str()),
            verbosity = verbosity.as_str(),
            "callout: {}",
            callout.words()
        );
        let clips = self.clips(&callout.said, bowler);
        if !clips.is_empty() {
            self.speaker.say(Utterance {
                clips,
                queued_at: std::time::Instant::now(),
            });
        }
    }

    /// Tells the assistant of a pinsetter fault and of a slow-bowling flag,
    /// in the lane's language. Nothing else of conduct is spoken: the
    /// bowlers hear only what IBSA allows.
    fn conduct(&mut self, incident: &Conduct) {
        let name = match incident.kind {
            ConductKind::PinsetterFault { .. } => "pinsetter_fault",
            ConductKind::SlowBowling { .. } => "slow_bowling_warning",
            _ => return,
        };
        self.say_to_assistant(name);
    }

    /// "Scoring stopped, call a judge", in the lane's language: the lane
    /// holds while its journal cannot be written, and the assistant beside
    /// a blind bowler cannot see the panel that says so.
    fn journal_failed(&mut self) {
        tracing::info!("callout: scoring stopped, call a judge");
        self.say_to_assistant("journal_failed");
    }

    fn status(&self) -> Option<serde_json::Value> {
        serde_json::to_value(self.speaker.state()).ok()
    }
}

/// The words `lanecall setup` plays to test a card ("seven, ten"), as
/// `lanecall say 7 10` says them.
pub const TEST_WORDS: [&str; 2] = ["7", "10"];

/// [`TEST_WORDS`] in the lane's own voice: the config's recordings where
/// it has some, in its language.
pub fn test_callout(config: &SpeakerConfig) -> Vec<Clip> {
    let pack = load_pack(config, config.language);
    let words: Vec<String> = TEST_WORDS.iter().map(|w| (*w).to_owned()).collect();
    clips_for_words(&words, &pack).unwrap_or_default()
}

/// The clips for words typed by a technician (`lanecall say 7 10 split`):
/// numbers are read as numbers, anything else must be a clip's name.
pub fn clips_for_words(words: &[String], pack: &VoicePack) -> Result<Vec<Clip>, String> {
    Ok(pack.sound(&clip_names_for_words(words, pack.language())?))
}

/// The names of the clips [`clips_for_words`] plays, in order, so `say`
/// can tell what it played.
pub fn clip_names_for_words(
    words: &[String],
    language: Language,
) -> Result<Vec<&'static str>, String> {
    let mut names = Vec::new();
    for word in words {
        if !names.is_empty() {
            names.push(phrase::PAUSE);
        }
        match word.parse::<u16>() {
            Ok(n) => names.extend(phrase::number(n, language)),
            Err(_) => match phrase::CLIPS.iter().find(|c| **c == word.as_str()) {
                Some(name) => names.push(*name),
                None => {
                    return Err(format!(
                        "no word {word:?} in the voice: say numbers or one of {}",
                        phrase::CLIPS
                            .iter()
                            .filter(|c| !c.starts_with('n') || c.len() > 4)
                            .copied()
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            },
        }
    }
    Ok(names)
}

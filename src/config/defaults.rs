//! The value of every key the file may leave out, in one place.
//! `config/lanecall.toml` documents each of them with this value, and
//! tests/config.rs fails when the example and the code disagree.
//!
//! A key read as one of named values (`pull = "up"`) has its default
//! written as the file writes it. The `[rules]` durations are
//! `Rules::default()`'s, which every journal's header also starts from.
//! Keys without a default (required, or absent when left out, such as
//! `journal.mirror` or `web.tls_cert`) are not here.
//!
//! The journal's, pinsetter's, speaker's and web panel's values reach the
//! validation, and `Config::demo`, through their table's `Default`
//! (`validated`), built from these; the declarations in `raw` name them
//! for docs/config.md's table.
//!
//! It decides nothing else: the ranges a value must fall in are in
//! `validate` and `validate_web`.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};

use crate::lane::Language;

// [journal]
pub(super) const DEFAULT_ALLOW_VOLATILE: bool = false;

// [pinsetter]
pub(super) const DEFAULT_BAUD: u32 = 9600;
pub(super) const DEFAULT_RECONNECT_MIN_MS: u64 = 500;
pub(super) const DEFAULT_RECONNECT_MAX_MS: u64 = 10_000;

// [pinsetter] kind and [pinsetter.switches]
pub(super) const DEFAULT_KIND: &str = "serial";
pub(super) const DEFAULT_BUS: i64 = 1;
pub(super) const DEFAULT_ADDRESS: i64 = 0x20;
pub(super) const DEFAULT_SWITCH_ACTIVE: &str = "low";
pub(super) const DEFAULT_SWITCH_PULL: &str = "up";
pub(super) const DEFAULT_CYCLE_ACTIVE: &str = "high";
pub(super) const DEFAULT_POLL_MS: i64 = 10;
pub(super) const DEFAULT_SWITCH_DEBOUNCE_MS: i64 = 20;
pub(super) const DEFAULT_SETTLE_MS: i64 = 600;
pub(super) const DEFAULT_MAX_SETTLE_MS: i64 = 8000;
pub(super) const DEFAULT_FLICKER_CHANGES: i64 = 6;

// [gpio.inputs.*] and [gpio.buttons.*]
pub(super) const DEFAULT_PULL: &str = "up";
pub(super) const DEFAULT_INPUT_ACTIVE: &str = "low";
pub(super) const DEFAULT_DEBOUNCE_MS: i64 = 5;

// [gpio.outputs.*]
pub(super) const DEFAULT_OUTPUT_ACTIVE: &str = "high";
pub(super) const DEFAULT_PULSE_MS: i64 = 300;

// [speaker]
pub(super) const DEFAULT_SPEAKER_ENABLED: bool = true;
pub(super) const DEFAULT_VOLUME: f64 = 1.0;
pub(super) const DEFAULT_LANGUAGE: Language = Language::Ru;
pub(super) const DEFAULT_STALE_AFTER_MS: u64 = 8000;
/// `device`: the card the speaker ranks first (`SpeakerConfig::device`
/// `None`).
pub(super) const AUTO_DEVICE: &str = "auto";
/// `voice`: the built-in voice (`SpeakerConfig::voice_dir` `None`).
pub(super) const BUILTIN_VOICE: &str = "builtin";
/// Also the least: shorter, "семь, десять" runs into "семьдесят".
pub(super) const DEFAULT_WORD_PAUSE_MS: u64 = 260;

// [web]
/// Also the centre's page's.
pub(crate) const DEFAULT_LISTEN: SocketAddr =
    SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 8080));
pub(crate) const DEFAULT_SESSION_HOURS: u64 = 12;
pub(super) const DEFAULT_MAX_CONNECTIONS: usize = 256;
/// Lowered to half of `max_connections` when that is smaller.
pub(super) const DEFAULT_MAX_LIVE_VIEWS: usize = 64;
pub(crate) const DEFAULT_SESSION_IDLE_S: u64 = 2 * 3600;
pub(crate) const DEFAULT_LOCKOUT_AFTER: u32 = 5;
pub(crate) const DEFAULT_LOCKOUT_BASE_S: u64 = 60;
pub(crate) const DEFAULT_LOCKOUT_MAX_S: u64 = 3600;

// [rules]
pub(super) const DEFAULT_FOUL_MODE: &str = "score";

// [centre]
pub(super) const DEFAULT_ACCEPT_COMMANDS: bool = false;

/// Where the package installs the voices `[speaker] voice` names, one
/// folder each (`rhvoice/ru/n7.wav`, its `LICENSE`).
pub const VOICES_DIR: &str = "/usr/share/lanecall/voices";

#[cfg(test)]
mod tests {
    use super::super::keys::Key;
    use super::super::keys::Kind;
    use super::super::raw::{ROOT, walk};

    /// The example with its commented-out keys (`# mirror = ...`,
    /// `# [[web.judges]]`, `# [centre]`) written in, as a technician would uncomment them.
    fn example_with_every_key() -> toml::Table {
        let example = include_str!("../../config/lanecall.toml");
        let uncommented: Vec<&str> = example
            .lines()
            .map(|line| match line.strip_prefix("# ") {
                Some(rest) if rest.starts_with('[') && !rest.contains(' ') => rest,
                Some(rest)
                    if rest.split_once(" = ").is_some_and(|(key, _)| {
                        !key.is_empty() && key.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                    }) =>
                {
                    rest
                }
                _ => line,
            })
            .collect();
        toml::from_str(&uncommented.join("\n")).unwrap()
    }

    /// The key paths of `fields` missing from `table`.
    fn missing(table: &toml::Table, fields: &[Key], prefix: &str, out: &mut Vec<String>) {
        for Key { name, kind, .. } in fields {
            let path = format!("{prefix}{name}");
            let (fields, inner) = match (kind, table.get(*name)) {
                (_, None) => {
                    out.push(path);
                    continue;
                }
                (Kind::Table(_) | Kind::Struct { .. }, Some(toml::Value::Table(t))) => {
                    (kind.fields().unwrap_or_default(), t)
                }
                (Kind::Tables(sub), Some(toml::Value::Array(items))) => {
                    match items.first().and_then(toml::Value::as_table) {
                        Some(t) => (*sub, t),
                        None => {
                            out.push(path);
                            continue;
                        }
                    }
                }
                _ => continue,
            };
            missing(inner, fields, &format!("{path}."), out);
        }
    }

    /// Every key the lane knows is documented in the example, set to its
    /// default or left commented out when it has none; and the example
    /// names no key the lane does not know, commented out or not.
    #[test]
    fn the_example_documents_every_key() {
        let example = example_with_every_key();
        let mut absent = Vec::new();
        missing(&example, ROOT, "", &mut absent);
        assert_eq!(
            absent,
            Vec::<String>::new(),
            "keys not in config/lanecall.toml"
        );
        let mut unknown = Vec::new();
        walk(&example, ROOT, "", &mut unknown);
        assert_eq!(unknown, Vec::new(), "config/lanecall.toml");
    }
}

/// `[speaker] word_pause_ms`, end to end: its default is the speaker's
/// floor, the file sets it, a shorter pause is refused, and the speaker
/// leaves that much silence between two words.
#[cfg(test)]
mod word_pause_tests {
    use std::path::Path;
    use std::time::Duration;

    use super::DEFAULT_WORD_PAUSE_MS;
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
        assert_eq!(Duration::from_millis(DEFAULT_WORD_PAUSE_MS), WORD_PAUSE);
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

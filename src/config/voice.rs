//! `[speaker] voice_dir` and `voice`: the folder of the voice the lane
//! speaks with, if not the built-in one. `voice` names a voice the package
//! installs ([`super::defaults::VOICES_DIR`]); `voice_dir`, recordings of one's own.

use std::path::PathBuf;

use super::collect::Check;

/// The voice's folder (`Some(None)`: the built-in voice); `None` with the
/// problems pushed.
pub(super) fn folder(
    c: &mut Check,
    voice_dir: Option<&str>,
    voice: Option<&str>,
) -> Option<Option<PathBuf>> {
    let voice_dir = match voice_dir {
        Some(d) if d.trim().is_empty() => {
            c.push(
                "speaker.voice_dir",
                "is empty: leave it out for the built-in voice, or name the folder of recordings",
            );
            None
        }
        d => Some(d.map(PathBuf::from)),
    };
    // An installed voice by its name: its folder, as `voice_dir`.
    let voice = match voice {
        None | Some(super::defaults::BUILTIN_VOICE) => Some(None),
        Some(v)
            if (1..=40).contains(&v.len())
                && v.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') =>
        {
            Some(Some(PathBuf::from(super::defaults::VOICES_DIR).join(v)))
        }
        Some(v) => {
            c.push(
                "speaker.voice",
                format!(
                    "{v:?}: \"builtin\", or the name of a voice installed in {} (a-z, 0-9 and -, \
                     e.g. \"rhvoice\")",
                    super::defaults::VOICES_DIR
                ),
            );
            None
        }
    };
    match (voice_dir, voice) {
        (Some(Some(_)), Some(Some(_))) => {
            c.push(
                "speaker.voice",
                "and speaker.voice_dir both name a voice: keep one (voice_dir for recordings of \
                 your own)",
            );
            None
        }
        (dir, voice) => dir.zip(voice).map(|(d, v)| d.or(v)),
    }
}

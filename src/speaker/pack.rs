//! Voice packs: one short mono clip per name in [`phrase::CLIPS`], in one
//! language.
//!
//! The built-in packs are the WAVs under `assets/voice/<lang>/`, embedded in
//! the binary. A folder of human recordings with the same file names
//! (`n7.wav`, `split.wav`, ...) can replace them clip by clip
//! ([`VoicePack::from_dir`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use super::phrase;
use crate::lane::Language;

/// One clip: mono 16-bit samples at `rate` Hz.
#[derive(Clone, Debug)]
pub struct Clip {
    pub rate: u32,
    pub samples: Cow<'static, [i16]>,
}

impl Clip {
    pub fn duration(&self) -> Duration {
        if self.rate == 0 {
            return Duration::ZERO;
        }
        Duration::from_secs_f64(self.samples.len() as f64 / f64::from(self.rate))
    }

    /// Reads a RIFF/WAVE file: 16-bit PCM, mono or stereo (mixed down to
    /// mono), any sample rate.
    pub fn from_wav(bytes: &[u8]) -> Result<Clip, PackError> {
        let wav = parse_wav(bytes)?;
        let data = wav.data;
        let samples: Vec<i16> = if wav.channels == 1 {
            data.chunks_exact(2)
                .map(|b| i16::from_le_bytes([b[0], b[1]]))
                .collect()
        } else {
            data.chunks_exact(4)
                .map(|b| {
                    let l = i32::from(i16::from_le_bytes([b[0], b[1]]));
                    let r = i32::from(i16::from_le_bytes([b[2], b[3]]));
                    ((l + r) / 2) as i16
                })
                .collect()
        };
        Ok(Clip {
            rate: wav.rate,
            samples: Cow::Owned(samples),
        })
    }

    /// Bytes the samples take in memory.
    fn bytes(&self) -> usize {
        std::mem::size_of_val(self.samples.as_ref())
    }
}

/// What is wrong with a WAV file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WavProblem {
    #[error("not a WAV file (no RIFF/WAVE header)")]
    NotWav,
    #[error("the {chunk} chunk runs past the end of the file (truncated?)")]
    Truncated { chunk: String },
    #[error("no fmt chunk before the data")]
    NoFormat,
    #[error("no data chunk")]
    NoData,
    #[error("no samples in the data chunk")]
    Empty,
    #[error("format code {0:#06x} is not PCM: save as 16-bit PCM")]
    NotPcm(u16),
    #[error("{0}-bit samples: save as 16-bit PCM")]
    Bits(u16),
    #[error("{0} channels: save as mono (or stereo)")]
    Channels(u16),
    #[error("sample rate {0} Hz")]
    Rate(u32),
}

/// A voice pack that cannot be loaded; names the file and the problem.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// From [`Clip::from_wav`], which is given bytes, not a file.
    #[error("{0}")]
    Wav(WavProblem),
    /// A recording in a voice folder is not a WAV the speaker can play.
    #[error("{}: {problem}", file.display())]
    BadFile { file: PathBuf, problem: WavProblem },
    /// A voice folder or a recording in it cannot be read.
    #[error("{}: cannot read: {source}", file.display())]
    Read {
        file: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl From<WavProblem> for PackError {
    fn from(problem: WavProblem) -> Self {
        PackError::Wav(problem)
    }
}

/// A WAV file's format and its sample bytes.
struct Wav<'a> {
    channels: u16,
    rate: u32,
    data: &'a [u8],
}

fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// WAVE_FORMAT_PCM and WAVE_FORMAT_EXTENSIBLE.
const FORMAT_PCM: u16 = 1;
const FORMAT_EXTENSIBLE: u16 = 0xfffe;

fn parse_wav(bytes: &[u8]) -> Result<Wav<'_>, WavProblem> {
    if bytes.len() < 12 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return Err(WavProblem::NotWav);
    }
    let mut format: Option<(u16, u32)> = None;
    let mut at = 12;
    while at + 8 <= bytes.len() {
        let id = &bytes[at..at + 4];
        let size = le32(bytes, at + 4) as usize;
        let body = at + 8;
        let end = body.checked_add(size).filter(|&e| e <= bytes.len());
        let Some(end) = end else {
            return Err(WavProblem::Truncated {
                chunk: String::from_utf8_lossy(id).trim().to_owned(),
            });
        };
        let chunk = &bytes[body..end];
        match id {
            b"fmt " => format = Some(parse_format(chunk)?),
            b"data" => {
                let (channels, rate) = format.ok_or(WavProblem::NoFormat)?;
                let frame = 2 * usize::from(channels);
                // A partial last frame is dropped.
                let data = &chunk[..chunk.len() - chunk.len() % frame];
                if data.is_empty() {
                    return Err(WavProblem::Empty);
                }
                return Ok(Wav {
                    channels,
                    rate,
                    data,
                });
            }
            _ => {}
        }
        // Chunks are padded to an even length.
        at = end + (size & 1);
    }
    Err(if format.is_some() {
        WavProblem::NoData
    } else {
        WavProblem::NotWav
    })
}

/// The channels and the rate from a fmt chunk, if the speaker can play it.
fn parse_format(fmt: &[u8]) -> Result<(u16, u32), WavProblem> {
    if fmt.len() < 16 {
        return Err(WavProblem::Truncated {
            chunk: "fmt".to_owned(),
        });
    }
    let mut code = le16(fmt, 0);
    let channels = le16(fmt, 2);
    let rate = le32(fmt, 4);
    let bits = le16(fmt, 14);
    if code == FORMAT_EXTENSIBLE && fmt.len() >= 26 {
        // The sub-format GUID starts with the format code.
        code = le16(fmt, 24);
    }
    if code != FORMAT_PCM {
        return Err(WavProblem::NotPcm(code));
    }
    if bits != 16 {
        return Err(WavProblem::Bits(bits));
    }
    if !(1..=2).contains(&channels) {
        return Err(WavProblem::Channels(channels));
    }
    if rate == 0 {
        return Err(WavProblem::Rate(rate));
    }
    Ok((channels, rate))
}

/// The committed WAVs, embedded in the binary (read from disk in debug
/// builds).
#[derive(rust_embed::Embed)]
#[folder = "assets/voice/"]
struct Builtin;

/// One language's clips.
#[derive(Clone, Debug)]
pub struct VoicePack {
    language: Language,
    clips: HashMap<&'static str, Clip>,
    /// Between two words of a callout: [`phrase::WORD_PAUSE`], or longer
    /// (`[speaker] word_pause_ms`).
    word_pause: std::time::Duration,
}

impl VoicePack {
    /// The pack built into the binary. A built-in clip that cannot be read
    /// is left out (and listed by [`VoicePack::missing`]); the voice-pack
    /// tests make sure none is.
    pub fn builtin(language: Language) -> VoicePack {
        VoicePack {
            language,
            clips: builtin_clips(language).clone(),
            word_pause: phrase::WORD_PAUSE,
        }
    }

    /// A folder of recordings named like the clips (`dir/n7.wav`,
    /// `dir/split.wav`, ...) replaces the built-in pack. A clip with no file
    /// there falls back to the built-in one and is returned in the list of
    /// missing clips; a file that cannot be read or is not a 16-bit PCM WAV
    /// is an error naming it.
    pub fn from_dir(
        dir: &Path,
        language: Language,
    ) -> Result<(VoicePack, Vec<&'static str>), PackError> {
        let read_error = |file: &Path, source| PackError::Read {
            file: file.to_owned(),
            source,
        };
        let meta = std::fs::metadata(dir).map_err(|e| read_error(dir, e))?;
        if !meta.is_dir() {
            let e = io::Error::new(io::ErrorKind::NotADirectory, "not a folder");
            return Err(read_error(dir, e));
        }
        let mut clips = HashMap::with_capacity(phrase::CLIPS.len());
        let mut missing = Vec::new();
        for &name in phrase::CLIPS {
            let file = dir.join(format!("{name}.wav"));
            match std::fs::read(&file) {
                Ok(bytes) => {
                    let clip = Clip::from_wav(&bytes).map_err(|e| match e {
                        PackError::Wav(problem) => PackError::BadFile {
                            file: file.clone(),
                            problem,
                        },
                        other => other,
                    })?;
                    clips.insert(name, clip);
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    missing.push(name);
                    if let Some(clip) = builtin_clips(language).get(name) {
                        clips.insert(name, clip.clone());
                    }
                }
                Err(e) => return Err(read_error(&file, e)),
            }
        }
        Ok((
            VoicePack {
                language,
                clips,
                word_pause: phrase::WORD_PAUSE,
            },
            missing,
        ))
    }

    /// The clips of [`phrase::CLIPS`] this pack lacks.
    pub fn missing(&self) -> Vec<&'static str> {
        phrase::CLIPS
            .iter()
            .copied()
            .filter(|name| !self.clips.contains_key(name))
            .collect()
    }

    pub fn get(&self, clip: &str) -> Option<&Clip> {
        self.clips.get(clip)
    }

    /// The pack with its words `pause` apart (`[speaker] word_pause_ms`),
    /// never closer than [`phrase::WORD_PAUSE`].
    pub fn with_word_pause(self, pause: std::time::Duration) -> VoicePack {
        VoicePack {
            word_pause: pause.max(phrase::WORD_PAUSE),
            ..self
        }
    }

    /// The clips of a callout's names ([`phrase::callout`]): a
    /// [`phrase::PAUSE`] is silence, so that with the gap on each side of
    /// it the words are the pack's word pause apart; a name the pack
    /// lacks is left out.
    pub fn sound(&self, names: &[&str]) -> Vec<Clip> {
        let fill = self.word_pause.saturating_sub(2 * phrase::CLIP_GAP);
        let mut out: Vec<Clip> = Vec::with_capacity(names.len());
        for &name in names {
            if name == phrase::PAUSE {
                // At the rate of the clip before it (none: nothing to part).
                if let Some(rate) = out.last().map(|c| c.rate) {
                    let frames = (fill.as_secs_f64() * f64::from(rate)).round() as usize;
                    out.push(Clip {
                        rate,
                        samples: Cow::Owned(vec![0; frames]),
                    });
                }
            } else if let Some(clip) = self.get(name) {
                out.push(clip.clone());
            }
        }
        out
    }

    pub fn language(&self) -> Language {
        self.language
    }

    /// Memory the samples take, in bytes.
    pub fn bytes(&self) -> usize {
        self.clips.values().map(Clip::bytes).sum()
    }
}

/// The built-in clips of `language`, decoded once and kept for the
/// process's life: every pack of a process holding many lanes (the
/// demo's centre, 48 lanes and more) says them from the same samples,
/// each pack's clips borrowing them.
fn builtin_clips(language: Language) -> &'static HashMap<&'static str, Clip> {
    static RU: OnceLock<HashMap<&'static str, Clip>> = OnceLock::new();
    static EN: OnceLock<HashMap<&'static str, Clip>> = OnceLock::new();
    let decoded = match language {
        Language::Ru => &RU,
        Language::En => &EN,
    };
    decoded.get_or_init(|| {
        phrase::CLIPS
            .iter()
            .filter_map(|&name| {
                let clip = builtin_clip(language, name)?;
                let samples: &'static [i16] = clip.samples.into_owned().leak();
                Some((
                    name,
                    Clip {
                        rate: clip.rate,
                        samples: Cow::Borrowed(samples),
                    },
                ))
            })
            .collect()
    })
}

fn builtin_clip(language: Language, name: &str) -> Option<Clip> {
    let path = format!("{}/{name}.wav", language.as_str());
    let file = Builtin::get(&path)?;
    match Clip::from_wav(&file.data) {
        Ok(clip) => Some(clip),
        Err(e) => {
            tracing::warn!("built-in voice clip {path}: {e}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::Builtin;

    /// The built-in voice is in the binary of every build, a debug one
    /// too: read from this checkout at run time instead, a package made
    /// from a debug build would play silence on another machine.
    #[test]
    fn the_builtin_voice_is_in_the_binary() {
        for path in ["en/n7.wav", "ru/n7.wav"] {
            let file = Builtin::get(path).unwrap_or_else(|| panic!("{path}"));
            assert!(
                matches!(file.data, Cow::Borrowed(_)),
                "{path} read from disk"
            );
        }
    }

    /// Packs of the built-in voice share its samples, decoded once: a
    /// process with many lanes holds one copy of each language's.
    #[test]
    fn built_in_packs_share_their_samples() {
        use super::{Language, VoicePack};
        for language in [Language::Ru, Language::En] {
            let (a, b) = (VoicePack::builtin(language), VoicePack::builtin(language));
            let (x, y) = (a.get("n7").unwrap(), b.get("n7").unwrap());
            assert!(matches!(x.samples, Cow::Borrowed(_)), "{language:?}");
            assert!(!x.samples.is_empty(), "{language:?}");
            assert!(
                std::ptr::eq(x.samples.as_ref(), y.samples.as_ref()),
                "{language:?}: each pack decoded its own samples"
            );
        }
    }
}

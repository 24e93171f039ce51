//! A callout's sound: its clips in order at the first clip's rate, the
//! gap between them, and the same rendered without a device or written as
//! a WAV file. It never opens a device nor decides when a callout plays.

use std::fs::File;
use std::io::{self, Write};
use std::num::NonZero;
use std::path::Path;
use std::time::Duration;

use rodio::buffer::SamplesBuffer;
use rodio::conversions::SampleTypeConverter;
use rodio::source::{UniformSourceIterator, Zero};
use rodio::{ChannelCount, Player, SampleRate};
use tracing::debug;

use crate::speaker::pack::Clip;

/// The rate [`render`] reports when it is given no clip with a usable rate.
const FALLBACK_RATE: u32 = 16_000;

const MONO: ChannelCount = NonZero::<u16>::MIN;

/// The sound of one clip, as rodio plays it: mono, `i16` converted to
/// rodio's sample type, at `rate`. `None` for a clip without a sample rate.
fn clip_source(clip: &Clip, rate: SampleRate) -> Option<SamplesBuffer> {
    let own = SampleRate::new(clip.rate)?;
    let samples: Vec<rodio::Sample> =
        SampleTypeConverter::new(clip.samples.iter().copied()).collect();
    let source = SamplesBuffer::new(MONO, own, samples);
    if own == rate {
        return Some(source);
    }
    // Resampled here, clip by clip: a queue whose rate changes mid-stream
    // is not converted cleanly (the first span after the change keeps the
    // old rate).
    let resampled: Vec<rodio::Sample> = UniformSourceIterator::new(source, MONO, rate).collect();
    Some(SamplesBuffer::new(MONO, rate, resampled))
}

/// Silence of `d` at `rate`.
pub(super) fn silence(rate: SampleRate, d: Duration) -> Zero {
    Zero::new_samples(MONO, rate, frames(rate.get(), d))
}

fn frames(rate: u32, d: Duration) -> usize {
    (u128::from(rate) * d.as_nanos() / 1_000_000_000) as usize
}

/// The rate a callout is played at: its first clip's.
fn callout_rate(clips: &[Clip]) -> Option<SampleRate> {
    clips.iter().find_map(|c| SampleRate::new(c.rate))
}

/// Appends one callout to a player: the clips in order, all at the first
/// clip's rate, with `gap` between them. Returns that rate and the length
/// of what was appended, or `None` if there was nothing to play. Playback
/// and [`render`] both go through here, so they sound the same.
pub(super) fn append_callout(
    player: &Player,
    clips: &[Clip],
    gap: Duration,
) -> Option<(SampleRate, Duration)> {
    let rate = callout_rate(clips)?;
    let mut frames_appended = 0;
    for clip in clips {
        let Some(source) = clip_source(clip, rate) else {
            debug!("a clip without a sample rate is skipped");
            continue;
        };
        if source.len() == 0 {
            continue;
        }
        if frames_appended > 0 {
            frames_appended += frames(rate.get(), gap);
            player.append(silence(rate, gap));
        }
        frames_appended += source.len();
        player.append(source);
    }
    (frames_appended > 0).then(|| {
        let length = frames_appended as f64 / f64::from(rate.get());
        (rate, Duration::from_secs_f64(length))
    })
}

/// Renders a callout without a device, exactly as the speaker plays it (the
/// clips in order, `gap` between them), through rodio's device-free
/// [`Player`] queue. Returns the sample rate (the first clip's; clips at
/// other rates are resampled to it) and mono 16-bit samples.
pub fn render(clips: &[Clip], gap: Duration) -> (u32, Vec<i16>) {
    let Some(rate) = callout_rate(clips) else {
        return (FALLBACK_RATE, Vec::new());
    };
    let (player, queue) = Player::new();
    let appended = append_callout(&player, clips, gap);
    // Detaching lets the queue end after the last clip instead of playing
    // silence for ever, without stopping what was appended.
    player.detach();
    if appended.is_none() {
        return (rate.get(), Vec::new());
    }
    (rate.get(), SampleTypeConverter::new(queue).collect())
}

/// Writes mono 16-bit PCM as a WAV file.
pub fn write_wav(path: &Path, rate: u32, samples: &[i16]) -> io::Result<()> {
    let bytes = wav_bytes(rate, samples)?;
    let mut file = File::create(path)?;
    file.write_all(&bytes)?;
    file.sync_all()
}

/// Mono 16-bit PCM as the bytes of a WAV file.
pub fn wav_bytes(rate: u32, samples: &[i16]) -> io::Result<Vec<u8>> {
    let data_len = samples
        .len()
        .checked_mul(2)
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| *n <= u32::MAX - 36)
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} samples are too many for one WAV file", samples.len()),
            )
        })?;
    if rate == 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a WAV file needs a sample rate above 0",
        ));
    }
    let channels: u16 = 1;
    let bits: u16 = 16;
    let block_align = channels * bits / 8;
    let byte_rate = rate
        .checked_mul(u32::from(block_align))
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "sample rate too high"))?;
    let mut w = Vec::with_capacity(44 + samples.len() * 2);
    w.extend_from_slice(b"RIFF");
    w.extend_from_slice(&(36 + data_len).to_le_bytes());
    w.extend_from_slice(b"WAVE");
    w.extend_from_slice(b"fmt ");
    w.extend_from_slice(&16u32.to_le_bytes());
    w.extend_from_slice(&1u16.to_le_bytes()); // PCM
    w.extend_from_slice(&channels.to_le_bytes());
    w.extend_from_slice(&rate.to_le_bytes());
    w.extend_from_slice(&byte_rate.to_le_bytes());
    w.extend_from_slice(&block_align.to_le_bytes());
    w.extend_from_slice(&bits.to_le_bytes());
    w.extend_from_slice(b"data");
    w.extend_from_slice(&data_len.to_le_bytes());
    for s in samples {
        w.extend_from_slice(&s.to_le_bytes());
    }
    Ok(w)
}

//! A folder of recordings checked as a voice pack (`lanecall voice check
//! DIR`): every clip a pack needs is there, readable, of a length a
//! callout can use, trimmed, not clipped, and as loud as the others, so
//! that no pin number stands out from the rest of a callout.
//!
//! Loudness is ITU-R BS.1770's: the K-weighted mean square of the clip,
//! in LUFS, over the whole clip (a clip is shorter than the standard's
//! 400 ms gating blocks), silence below −70 LUFS not counted.

use std::collections::BTreeSet;
use std::path::Path;

use super::pack::Clip;
use super::phrase::CLIPS;

/// The widest spread of loudness a pack may have, in LU.
pub const MAX_SPREAD_LU: f64 = 3.0;
/// A clip's length, in seconds: shorter is a click, longer holds up the
/// callout.
pub const LENGTH_S: std::ops::RangeInclusive<f64> = 0.15..=2.5;
/// What is said to the assistant and the judges, not in a callout, may
/// take longer: at most this many seconds.
pub const MESSAGE_S: f64 = 4.0;
const MESSAGES: [&str; 4] = [
    "pinsetter_fault",
    "slow_bowling_warning",
    "journal_failed",
    "journal_volatile",
];
/// A pin's number, at most: ten of them make a callout.
pub const PIN_NUMBER_S: f64 = 0.6;
/// Silence left at either end of a clip, at most.
pub const EDGE_MS: f64 = 50.0;
/// Below this a sample is silence (−40 dBFS).
const QUIET: i32 = 328;

/// What one clip measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    pub name: &'static str,
    pub seconds: f64,
    /// `None`: silent.
    pub lufs: Option<f64>,
    /// Silence before the sound starts, and after it ends, in ms.
    pub lead_ms: f64,
    pub tail_ms: f64,
    /// Samples at full scale.
    pub clipped: usize,
}

/// A folder checked.
#[derive(Debug, Default)]
pub struct Checked {
    pub clips: Vec<Measured>,
    pub missing: Vec<&'static str>,
    /// `.wav` files that are no clip's.
    pub extra: Vec<String>,
    pub problems: Vec<String>,
}

impl Checked {
    /// The quietest and loudest clip's loudness.
    pub fn loudness_range(&self) -> Option<(f64, f64)> {
        let mut l = self.clips.iter().filter_map(|c| c.lufs);
        let first = l.next()?;
        Some(l.fold((first, first), |(lo, hi), x| (lo.min(x), hi.max(x))))
    }
}

/// The K-weighting of BS.1770 at `rate`: a high shelf (+4 dB above about
/// 1.7 kHz, the head's effect) and a high pass at 38 Hz, as biquads
/// `[b0, b1, b2, a1, a2]`, drawn for any rate as libebur128 draws them (at
/// 48 kHz, the standard's own coefficients).
fn k_weighting(rate: u32) -> [[f64; 5]; 2] {
    let fs = f64::from(rate);
    // The shelf.
    let (f0, g, q) = (
        1_681.974_450_955_533,
        3.999_843_853_973_347,
        0.707_175_236_955_419_6,
    );
    let k = (std::f64::consts::PI * f0 / fs).tan();
    let vh = 10f64.powf(g / 20.0);
    let vb = vh.powf(0.499_666_774_154_541_6);
    let a0 = 1.0 + k / q + k * k;
    let shelf = [
        (vh + vb * k / q + k * k) / a0,
        2.0 * (k * k - vh) / a0,
        (vh - vb * k / q + k * k) / a0,
        2.0 * (k * k - 1.0) / a0,
        (1.0 - k / q + k * k) / a0,
    ];
    // The high pass.
    let (f0, q) = (38.135_470_876_024_44, 0.500_327_037_323_877_3);
    let k = (std::f64::consts::PI * f0 / fs).tan();
    let a0 = 1.0 + k / q + k * k;
    let pass = [
        1.0,
        -2.0,
        1.0,
        2.0 * (k * k - 1.0) / a0,
        (1.0 - k / q + k * k) / a0,
    ];
    [shelf, pass]
}

/// A clip's loudness in LUFS, `None` when it is silent (below −70).
pub fn loudness(clip: &Clip) -> Option<f64> {
    if clip.rate == 0 || clip.samples.is_empty() {
        return None;
    }
    let mut y: Vec<f64> = clip
        .samples
        .iter()
        .map(|&s| f64::from(s) / 32768.0)
        .collect();
    for [b0, b1, b2, a1, a2] in k_weighting(clip.rate) {
        let (mut x1, mut x2, mut y1, mut y2) = (0.0, 0.0, 0.0, 0.0);
        for v in &mut y {
            let x = *v;
            let out = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
            (x2, x1, y2, y1) = (x1, x, y1, out);
            *v = out;
        }
    }
    let mean = y.iter().map(|v| v * v).sum::<f64>() / y.len() as f64;
    let lufs = -0.691 + 10.0 * mean.log10();
    (lufs > -70.0).then_some(lufs)
}

/// Measures one clip.
pub fn measure(name: &'static str, clip: &Clip) -> Measured {
    let loud = |s: &&i16| i32::from(**s).abs() >= QUIET;
    let n = clip.samples.len();
    let first = clip.samples.iter().position(|s| loud(&s)).unwrap_or(n);
    let last = clip
        .samples
        .iter()
        .rposition(|s| loud(&s))
        .map_or(0, |i| i + 1);
    let ms = |frames: usize| frames as f64 * 1000.0 / f64::from(clip.rate.max(1));
    Measured {
        name,
        seconds: clip.duration().as_secs_f64(),
        lufs: loudness(clip),
        lead_ms: ms(first),
        tail_ms: ms(n.saturating_sub(last.max(first))),
        clipped: clip
            .samples
            .iter()
            .filter(|&&s| s == i16::MAX || s == i16::MIN)
            .count(),
    }
}

/// Checks the folder `dir` as a voice pack for one language.
pub fn check_dir(dir: &Path) -> Result<Checked, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut found = BTreeSet::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".wav") {
            found.insert(stem.to_owned());
        }
    }
    let mut out = Checked {
        extra: found
            .iter()
            .filter(|f| !CLIPS.contains(&f.as_str()))
            .map(|f| format!("{f}.wav"))
            .collect(),
        ..Checked::default()
    };
    for &name in CLIPS {
        if !found.contains(name) {
            out.missing.push(name);
            continue;
        }
        let file = dir.join(format!("{name}.wav"));
        let clip = match std::fs::read(&file)
            .map_err(|e| e.to_string())
            .and_then(|b| Clip::from_wav(&b).map_err(|e| e.to_string()))
        {
            Ok(c) => c,
            Err(e) => {
                out.problems.push(format!("{name}.wav: {e}"));
                continue;
            }
        };
        let m = measure(name, &clip);
        let mut problem = |what: String| out.problems.push(format!("{name}.wav: {what}"));
        if clip.rate < 16_000 {
            problem(format!("{} Hz: at least 16000 Hz", clip.rate));
        }
        let longest = match MESSAGES.contains(&name) {
            true => MESSAGE_S,
            false => *LENGTH_S.end(),
        };
        if m.seconds < *LENGTH_S.start() || m.seconds > longest {
            problem(format!(
                "{:.2} s long: {:.2} to {longest:.2} s",
                m.seconds,
                LENGTH_S.start()
            ));
        }
        let pin = name
            .strip_prefix('n')
            .and_then(|n| n.parse::<u8>().ok())
            .is_some_and(|n| (1..=10).contains(&n));
        if pin && m.seconds > PIN_NUMBER_S {
            problem(format!(
                "{:.2} s: a pin's number takes at most {PIN_NUMBER_S} s",
                m.seconds
            ));
        }
        if m.lufs.is_none() {
            problem("silent".into());
        } else if m.lead_ms > EDGE_MS || m.tail_ms > EDGE_MS {
            problem(format!(
                "{:.0} ms of silence before the voice and {:.0} ms after it: trim to {EDGE_MS} ms",
                m.lead_ms, m.tail_ms
            ));
        }
        if m.clipped > 2 {
            problem(format!(
                "{} samples at full scale: recorded too loud (clipped)",
                m.clipped
            ));
        }
        out.clips.push(m);
    }
    if let Some((lo, hi)) = out.loudness_range()
        && hi - lo > MAX_SPREAD_LU
    {
        let mut by: Vec<&Measured> = out.clips.iter().filter(|c| c.lufs.is_some()).collect();
        by.sort_by(|a, b| {
            a.lufs
                .partial_cmp(&b.lufs)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let median = by[by.len() / 2].lufs.unwrap_or(lo);
        let far: Vec<String> = by
            .iter()
            .filter(|c| {
                c.lufs
                    .is_some_and(|l| (l - median).abs() > MAX_SPREAD_LU / 2.0)
            })
            .map(|c| format!("{} {:+.1}", c.name, c.lufs.unwrap_or(median) - median))
            .collect();
        out.problems.push(format!(
            "loudness from {lo:.1} to {hi:.1} LUFS, {:.1} LU apart: at most {MAX_SPREAD_LU} LU; \
             furthest from the middle ({median:.1} LUFS): {}",
            hi - lo,
            far.join(", ")
        ));
    }
    Ok(out)
}

/// The loudness `voice normalise` brings every clip to, by default.
pub const TARGET_LUFS: f64 = -18.0;
/// The highest peak a normalised clip has: 1 dB below full scale.
const CEILING: f64 = 0.891;

/// `samples` with their loudness brought to `target` LUFS: a gain, and
/// where that gain would take a peak over −1 dBFS, a limiter (the gain
/// eased down over 5 ms before such a peak and back up over 50 ms after
/// it), the gain found again until the loudness is within 0.2 LU.
pub fn normalise(clip: &Clip, target: f64) -> Option<Clip> {
    let rate = f64::from(clip.rate);
    let attack = ((rate * 0.005) as usize).max(1);
    let release = (rate * 0.05).max(1.0);
    let x: Vec<f64> = clip
        .samples
        .iter()
        .map(|&s| f64::from(s) / 32768.0)
        .collect();
    let render = |gain: f64| -> Clip {
        // The most each sample may be multiplied by, smoothed: each limit
        // reached `attack` samples early, and let go slowly.
        let mut limit: Vec<f64> = x
            .iter()
            .map(|v| (CEILING / (v.abs() * gain).max(1e-9)).min(1.0))
            .collect();
        let mut held = 1.0f64;
        for i in (0..limit.len()).rev() {
            held = (held + (1.0 - held) / attack as f64).min(1.0).min(limit[i]);
            limit[i] = held;
        }
        let mut g = 1.0f64;
        let samples = x
            .iter()
            .zip(&limit)
            .map(|(v, l)| {
                g = if *l < g { *l } else { g + (1.0 - g) / release };
                let g = g.min(*l);
                (v * gain * g * 32768.0).round().clamp(-32767.0, 32767.0) as i16
            })
            .collect();
        Clip {
            rate: clip.rate,
            samples: std::borrow::Cow::Owned(samples),
        }
    };
    let mut gain = 10f64.powf((target - loudness(clip)?) / 20.0);
    let mut out = render(gain);
    for _ in 0..6 {
        let off = target - loudness(&out)?;
        if off.abs() < 0.2 {
            break;
        }
        gain *= 10f64.powf(off / 20.0);
        out = render(gain);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    fn sine(rate: u32, hz: f64, amplitude: f64, seconds: f64) -> Clip {
        let n = (f64::from(rate) * seconds) as usize;
        let samples = (0..n)
            .map(|i| {
                let t = i as f64 / f64::from(rate);
                (amplitude * 32767.0 * (2.0 * std::f64::consts::PI * hz * t).sin()) as i16
            })
            .collect();
        Clip {
            rate,
            samples: Cow::Owned(samples),
        }
    }

    /// BS.1770: a 997 Hz sine at full scale in one channel reads −3.01
    /// LUFS (at 48 kHz, the standard's rate; the filters drawn for a lower
    /// rate are a little off near its top); 20 dB down reads 20 LU less.
    #[test]
    fn a_full_scale_sine_reads_minus_three_lufs() {
        for (rate, within) in [(22_050, 0.3), (44_100, 0.1), (48_000, 0.05)] {
            let full = loudness(&sine(rate, 997.0, 1.0, 1.0)).unwrap();
            assert!((full + 3.01).abs() < within, "{rate} Hz: {full}");
            let down = loudness(&sine(rate, 997.0, 0.1, 1.0)).unwrap();
            assert!((down - full + 20.0).abs() < 0.1, "{rate} Hz: {down}");
        }
        assert_eq!(loudness(&sine(22_050, 997.0, 0.0, 1.0)), None);
    }

    /// A quiet clip and a loud one come out as loud as each other, with
    /// no peak over −1 dBFS, though the quiet one's needs a limiter.
    #[test]
    fn normalised_clips_are_as_loud_and_never_clip() {
        // A quiet tone with one sharp peak: its gain alone would clip.
        let mut quiet = sine(22_050, 440.0, 0.05, 0.4);
        let mut samples = quiet.samples.to_vec();
        samples[4000] = 30_000;
        quiet.samples = Cow::Owned(samples);
        let loud = sine(22_050, 700.0, 0.6, 0.4);
        for clip in [quiet, loud] {
            let out = normalise(&clip, TARGET_LUFS).unwrap();
            let l = loudness(&out).unwrap();
            assert!((l - TARGET_LUFS).abs() < 0.2, "{l}");
            let peak = out
                .samples
                .iter()
                .map(|s| i32::from(*s).abs())
                .max()
                .unwrap();
            assert!(f64::from(peak) <= CEILING * 32768.0 + 1.0, "peak {peak}");
            assert_eq!(out.samples.len(), clip.samples.len());
        }
    }

    #[test]
    fn the_silence_at_a_clips_ends_is_measured() {
        let mut clip = sine(22_050, 440.0, 0.5, 0.3);
        let mut samples = vec![0i16; 2205]; // 100 ms
        samples.extend_from_slice(&clip.samples);
        clip.samples = Cow::Owned(samples);
        let m = measure("n7", &clip);
        assert!((m.lead_ms - 100.0).abs() < 1.0, "{m:?}");
        assert!(m.tail_ms < 1.0, "{m:?}");
        assert_eq!(m.clipped, 0);
    }
}

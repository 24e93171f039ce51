//! `lanecall say` and `lanecall voice`: the speaker's voice from the
//! command line (docs/voice.md).

use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// `lanecall say WORDS`: the words in a voice, played or written to a
/// WAV file; exit 2 for a word or voice it does not have.
pub(super) fn say(
    lang: &str,
    out: Option<PathBuf>,
    device: Option<String>,
    volume: f32,
    voice: &str,
    words: &[String],
) -> ExitCode {
    use crate::speaker::pack::VoicePack;
    use crate::speaker::player::{AudioOut, CLIP_GAP, RodioOut, render, write_wav};
    let language = if lang == "en" {
        crate::lane::Language::En
    } else {
        crate::lane::Language::Ru
    };
    let dir = match voice {
        "builtin" => None,
        v if v.contains('/') => Some(PathBuf::from(v)),
        v => Some(Path::new(crate::config::VOICES_DIR).join(v)),
    };
    let pack = match dir {
        None => VoicePack::builtin(language),
        Some(dir) => match VoicePack::from_dir(&dir.join(lang), language) {
            Ok((pack, _)) => pack,
            Err(e) => {
                eprintln!("lanecall say: --voice {voice}: {e}");
                return ExitCode::from(super::exit::EX_INPUT);
            }
        },
    };
    let names = match crate::speaker::clip_names_for_words(words, language) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("lanecall say: {e}");
            return ExitCode::from(super::exit::EX_INPUT);
        }
    };
    // Only a broken build lacks one: said rather than played as silence.
    let lacking: Vec<&str> = (names.iter().copied())
        .filter(|n| *n != crate::speaker::phrase::PAUSE && pack.get(n).is_none())
        .collect();
    if !lacking.is_empty() {
        eprintln!(
            "lanecall say: the {voice} voice has no clip for {}",
            lacking.join(", ")
        );
        return ExitCode::FAILURE;
    }
    let clips = pack.sound(&names);
    let length: Duration = clips.iter().map(|c| c.duration() + CLIP_GAP).sum();
    // The words as spoken, a pause between two words shown as `,`.
    let what = format!(
        "{} ({} word(s), {:.2} s, {lang}, volume {volume})",
        names.join(" ").replace(" ,", ","),
        words.len(),
        length.saturating_sub(CLIP_GAP).as_secs_f64()
    );
    let result = match &out {
        Some(path) => {
            let (rate, samples) = render(&clips, CLIP_GAP);
            // As the speaker plays it: the samples scaled by the volume.
            let scaled: Vec<i16> = samples
                .iter()
                .map(|&s| (f32::from(s) * volume).round().clamp(-32768.0, 32767.0) as i16)
                .collect();
            write_wav(path, rate, &scaled)
                .map(|()| format!("Wrote {}: {what}", path.display()))
                .map_err(|e| format!("{}: {e}", path.display()))
        }
        None => {
            let mut speaker = RodioOut::new(device);
            speaker.open().and_then(|name| {
                speaker
                    .play(&clips, volume)
                    .map(|()| format!("Played on {name}: {what}"))
            })
        }
    };
    match result {
        Ok(done) => {
            println!("{done}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("lanecall say: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `lanecall voice check DIR`: exit 0 when the folder is a whole voice
/// pack, 1 with its problems, 2 when it cannot be read.
pub(super) fn voice_check(dir: &Path) -> ExitCode {
    let checked = match crate::speaker::check::check_dir(dir) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("lanecall voice check: {e}");
            return ExitCode::from(super::exit::EX_INPUT);
        }
    };
    println!(
        "{}: {} clip(s) of {}",
        dir.display(),
        checked.clips.len(),
        crate::speaker::phrase::CLIPS.len()
    );
    if let Some((lo, hi)) = checked.loudness_range() {
        let secs = checked.clips.iter().map(|c| c.seconds);
        let (short, long) = secs.fold((f64::MAX, 0.0f64), |(a, b), s| (a.min(s), b.max(s)));
        println!(
            "loudness {lo:.1} to {hi:.1} LUFS ({:.1} LU apart), lengths {short:.2} to {long:.2} s",
            hi - lo
        );
    }
    if !checked.missing.is_empty() {
        println!(
            "missing (the built-in voice says them): {}",
            checked.missing.join(", ")
        );
    }
    if !checked.extra.is_empty() {
        println!("not a clip, never played: {}", checked.extra.join(", "));
    }
    if checked.problems.is_empty() {
        println!("OK");
        return ExitCode::SUCCESS;
    }
    eprintln!("{} problem(s):", checked.problems.len());
    for p in &checked.problems {
        eprintln!("  {p}");
    }
    ExitCode::FAILURE
}

/// `lanecall voice normalise DIR`: every clip of the folder brought to
/// `lufs` in place; exit 2 when one cannot be read or written.
pub(super) fn voice_normalise(dir: &Path, lufs: f64) -> ExitCode {
    use crate::speaker::check::{loudness, normalise};
    use crate::speaker::pack::Clip;
    if !(-40.0..=-6.0).contains(&lufs) {
        eprintln!("lanecall voice normalise: --lufs {lufs}: -40 to -6");
        return ExitCode::from(super::exit::EX_INPUT);
    }
    let mut done = 0;
    for &name in crate::speaker::phrase::CLIPS {
        let file = dir.join(format!("{name}.wav"));
        let clip = match std::fs::read(&file) {
            Ok(bytes) => Clip::from_wav(&bytes).map_err(|e| e.to_string()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => Err(e.to_string()),
        };
        let written = clip.and_then(|clip| {
            let before = loudness(&clip);
            let Some(out) = normalise(&clip, lufs) else {
                return Err("silent".to_owned());
            };
            // In one rename: a clip is never left half written.
            crate::speaker::player::wav_bytes(out.rate, &out.samples)
                .and_then(|bytes| crate::atomic::atomic_write(&file, &bytes, None))
                .map_err(|e| e.to_string())?;
            Ok((before, loudness(&out)))
        });
        match written {
            Ok((Some(before), Some(after))) => {
                println!("{name}: {before:.1} -> {after:.1} LUFS");
                done += 1;
            }
            Ok(_) => {}
            Err(e) => {
                eprintln!("lanecall voice normalise: {}: {e}", file.display());
                return ExitCode::from(super::exit::EX_INPUT);
            }
        }
    }
    println!("{}: {done} clip(s) at {lufs} LUFS", dir.display());
    ExitCode::SUCCESS
}

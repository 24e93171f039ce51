//! The built-in voice packs, the phrases of a callout and recordings from a
//! folder.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use lanecall::lane::{BallResult, Language, Pin, PinSet, Said, Side, Verbosity};
use lanecall::speaker::pack::{Clip, PackError, VoicePack};
use lanecall::speaker::phrase::{self, CLIPS};
use lanecall::speaker::player::CLIP_GAP;

const LANGUAGES: [Language; 2] = [Language::Ru, Language::En];

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn pins(numbers: &[u8]) -> PinSet {
    PinSet::from_pins(numbers.iter().map(|&n| Pin::new(n).unwrap()))
}

fn rms(clip: &Clip) -> f64 {
    let sum: f64 = clip.samples.iter().map(|&s| f64::from(s).powi(2)).sum();
    (sum / clip.samples.len() as f64).sqrt()
}

/// A mono 16-bit PCM WAV of a 440 Hz tone.
fn tone_wav(rate: u32, seconds: f64) -> Vec<u8> {
    let n = (f64::from(rate) * seconds) as usize;
    let samples: Vec<i16> = (0..n)
        .map(|i| {
            let t = i as f64 / f64::from(rate);
            (8000.0 * (2.0 * std::f64::consts::PI * 440.0 * t).sin()) as i16
        })
        .collect();
    wav(1, rate, &samples)
}

fn wav(channels: u16, rate: u32, samples: &[i16]) -> Vec<u8> {
    let data = samples.len() as u32 * 2;
    let mut b = Vec::new();
    b.extend_from_slice(b"RIFF");
    b.extend_from_slice(&(36 + data).to_le_bytes());
    b.extend_from_slice(b"WAVEfmt ");
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&channels.to_le_bytes());
    b.extend_from_slice(&rate.to_le_bytes());
    b.extend_from_slice(&(rate * 2 * u32::from(channels)).to_le_bytes());
    b.extend_from_slice(&(2 * channels).to_le_bytes());
    b.extend_from_slice(&16u16.to_le_bytes());
    b.extend_from_slice(b"data");
    b.extend_from_slice(&data.to_le_bytes());
    for s in samples {
        b.extend_from_slice(&s.to_le_bytes());
    }
    b
}

#[test]
fn both_builtin_packs_load_with_every_clip() {
    let start = Instant::now();
    let packs = LANGUAGES.map(VoicePack::builtin);
    let took = start.elapsed();
    let bytes: usize = packs.iter().map(VoicePack::bytes).sum();
    println!(
        "both built-in packs loaded in {:.1} ms, {} kB of samples",
        took.as_secs_f64() * 1000.0,
        bytes / 1024
    );
    for pack in &packs {
        let lang = pack.language().as_str();
        assert!(
            pack.missing().is_empty(),
            "{lang}: missing {:?}",
            pack.missing()
        );
        for &name in CLIPS {
            let clip = pack.get(name).unwrap();
            assert!(!clip.samples.is_empty(), "{lang}/{name} is empty");
            assert_eq!(clip.rate, 22050, "{lang}/{name}");
            let d = clip.duration();
            assert!(d > Duration::from_millis(100), "{lang}/{name}: {d:?}");
            assert!(d <= Duration::from_millis(2500), "{lang}/{name}: {d:?}");
            let level = rms(clip);
            assert!(
                level > 1000.0,
                "{lang}/{name} is (nearly) silent: RMS {level:.0}"
            );
        }
    }
}

/// Every clip of the shipped packs is a word or a short sentence: neither
/// a cut-off blip nor a long recording; a pin's number is said quickly,
/// and all ten with the gaps between them well within the speaker's
/// default stale time (8 s), so the longest standing-pins call is heard.
#[test]
fn clip_durations() {
    let [ru, en] = LANGUAGES.map(VoicePack::builtin);
    println!("{:<22} {:>6} {:>6}", "clip", "ru s", "en s");
    for &name in CLIPS {
        let d = |p: &VoicePack| p.get(name).map_or(0.0, |c| c.duration().as_secs_f64());
        println!("{name:<22} {:>6.2} {:>6.2}", d(&ru), d(&en));
        for (lang, secs) in [("ru", d(&ru)), ("en", d(&en))] {
            assert!(
                (0.15..=2.5).contains(&secs),
                "{lang} {name}: {secs:.2} s, not within 0.15..=2.5 s"
            );
        }
    }
    for pack in [&ru, &en] {
        let numbers: Vec<f64> = (1..=10)
            .map(|n| pack.get(&format!("n{n}")).unwrap().duration().as_secs_f64())
            .collect();
        let longest = numbers.iter().copied().fold(0.0, f64::max);
        assert!(
            longest <= 0.6,
            "{:?}: a pin's number takes {longest:.2} s",
            pack.language()
        );
        // The longest leave a ball can leave is nine pins (all ten standing
        // is "no pins"), with a pause between each two.
        let mut longest_nine = numbers.clone();
        longest_nine.sort_by(f64::total_cmp);
        let nine = longest_nine[1..].iter().sum::<f64>() + 8.0 * phrase::WORD_PAUSE.as_secs_f64();
        assert!(
            nine <= 6.0,
            "{:?}: nine pins take {nine:.2} s",
            pack.language()
        );
    }
}

#[test]
fn clips_txt_matches_the_clip_list() {
    let listed = std::fs::read_to_string(manifest().join("assets/voice/clips.txt")).unwrap();
    let listed: Vec<&str> = listed.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(listed, CLIPS);
    for lang in ["ru", "en"] {
        let texts =
            std::fs::read_to_string(manifest().join(format!("assets/voice/{lang}.txt"))).unwrap();
        let names: Vec<&str> = texts
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let (name, text) = l.split_once('\t').expect("clip<TAB>text");
                assert!(!text.trim().is_empty(), "{lang}.txt: no text for {name}");
                name
            })
            .collect();
        assert_eq!(names, CLIPS, "{lang}.txt");
    }
}

#[test]
fn clip_names_are_unique() {
    for (i, a) in CLIPS.iter().enumerate() {
        assert!(!CLIPS[i + 1..].contains(a), "{a} twice in CLIPS");
    }
}

#[test]
fn every_number_to_300_uses_existing_clips() {
    for lang in LANGUAGES {
        for n in 0..=300 {
            let clips = phrase::number(n, lang);
            assert!(!clips.is_empty(), "{n}");
            for c in &clips {
                assert!(CLIPS.contains(c), "{n} in {lang:?}: no clip {c}");
            }
        }
    }
}

#[test]
fn russian_numbers() {
    let ru = |n| phrase::number(n, Language::Ru);
    assert_eq!(ru(0), ["n0"]);
    assert_eq!(ru(7), ["n7"]);
    assert_eq!(ru(10), ["n10"]);
    assert_eq!(ru(11), ["n11"]);
    assert_eq!(ru(19), ["n19"]);
    assert_eq!(ru(20), ["n20"]);
    assert_eq!(ru(21), ["n20", "n1"]);
    assert_eq!(ru(87), ["n80", "n7"]);
    assert_eq!(ru(100), ["n100"]);
    assert_eq!(ru(101), ["n100", "n1"]);
    assert_eq!(ru(110), ["n100", "n10"]);
    assert_eq!(ru(187), ["n100", "n80", "n7"]);
    assert_eq!(ru(200), ["n200"]);
    assert_eq!(ru(215), ["n200", "n15"]);
    assert_eq!(ru(287), ["n200", "n80", "n7"]);
    assert_eq!(ru(300), ["n300"]);
}

#[test]
fn english_numbers() {
    let en = |n| phrase::number(n, Language::En);
    assert_eq!(en(0), ["n0"]);
    assert_eq!(en(7), ["n7"]);
    assert_eq!(en(10), ["n10"]);
    assert_eq!(en(11), ["n11"]);
    assert_eq!(en(19), ["n19"]);
    assert_eq!(en(20), ["n20"]);
    assert_eq!(en(21), ["n20", "n1"]);
    assert_eq!(en(87), ["n80", "n7"]);
    assert_eq!(en(100), ["n1", "hundred"]);
    assert_eq!(en(101), ["n1", "hundred", "n1"]);
    assert_eq!(en(110), ["n1", "hundred", "n10"]);
    assert_eq!(en(187), ["n1", "hundred", "n80", "n7"]);
    assert_eq!(en(200), ["n2", "hundred"]);
    assert_eq!(en(215), ["n2", "hundred", "n15"]);
    assert_eq!(en(287), ["n2", "hundred", "n80", "n7"]);
    assert_eq!(en(300), ["n3", "hundred"]);
}

#[test]
fn numbers_past_a_perfect_game_are_still_read() {
    assert_eq!(phrase::number(450, Language::Ru), ["n4", "n5", "n0"]);
    assert_eq!(phrase::number(450, Language::En), ["n4", "hundred", "n50"]);
}

fn ball(r: BallResult) -> Said {
    Said::Ball(r)
}

/// The clips a callout says, without the pauses between its words.
fn say(said: &Said, lang: Language, v: Verbosity) -> Vec<&'static str> {
    let clips: Vec<&str> = phrase::callout(said, lang, v)
        .into_iter()
        .filter(|c| *c != phrase::PAUSE)
        .collect();
    for c in &clips {
        assert!(CLIPS.contains(c), "{said:?}: no clip {c}");
    }
    clips
}

/// Words apart, the parts of one number together: a pause between two
/// pins, a pin and a mark, never inside "сто двадцать семь".
#[test]
fn a_pause_parts_the_words_of_a_callout_and_never_a_number() {
    let split = ball(BallResult {
        standing: pins(&[7, 10]),
        full_rack: true,
        split: true,
        extras: true,
        ..Default::default()
    });
    for lang in LANGUAGES {
        assert_eq!(
            phrase::callout(&split, lang, Verbosity::Pins),
            ["n7", ",", "n10", ",", "split"]
        );
    }
    let score = Said::Score {
        frame: 7,
        total: 127,
    };
    assert_eq!(
        phrase::callout(&score, Language::Ru, Verbosity::Pins),
        ["frame", ",", "n7", ",", "n100", "n20", "n7"]
    );
    assert_eq!(
        phrase::callout(&split, Language::Ru, Verbosity::Short),
        ["n2f", "standing_few", ",", "split"]
    );
}

/// Every leave that can stand (1,023 decks), in each pack, rendered as the
/// speaker plays it: between two words the sound is silent (below -40
/// dBFS) for 250 ms at the least, so that "семь, десять" is not heard as
/// "семьдесят", nor "two, seven" as "twenty-seven". Measured in the
/// samples, around each place two words meet.
#[test]
fn every_leave_is_called_with_its_pins_heard_apart() {
    const QUIET: i16 = 328; // -40 dBFS
    for pack in LANGUAGES.map(VoicePack::builtin) {
        let mut shortest = Duration::MAX;
        for mask in 1u16..1024 {
            let standing = PinSet::from_pins(
                (1..=10)
                    .filter(|n| mask & (1 << (n - 1)) != 0)
                    .map(|n| Pin::new(n).unwrap()),
            );
            let said = ball(BallResult {
                standing,
                ..Default::default()
            });
            let names = phrase::callout(&said, pack.language(), Verbosity::Pins);
            let clips = pack.sound(&names);
            assert_eq!(clips.len(), names.len(), "{names:?}");
            // As the speaker plays it: the clips (one rate in a pack) with
            // the gap between them; rodio's device-free render gives the
            // same samples (checked here for one deck in 64, and in
            // tests/daemon/speaker.rs), only much slower.
            let rate = clips[0].rate;
            let gap = (f64::from(rate) * CLIP_GAP.as_secs_f64()) as usize;
            let mut sound: Vec<i16> = Vec::new();
            for (i, clip) in clips.iter().enumerate() {
                assert_eq!(clip.rate, rate);
                if i > 0 {
                    sound.extend(std::iter::repeat_n(0, gap));
                }
                sound.extend_from_slice(&clip.samples);
            }
            if mask % 64 == 1 {
                let (r, rendered) = lanecall::speaker::player::render(&clips, CLIP_GAP);
                let diff = rendered.iter().zip(&sound).position(|(a, b)| a != b);
                assert!(
                    r == rate && rendered.len() == sound.len() && diff.is_none(),
                    "{names:?}: rendered otherwise: {} vs {} samples at {r}/{rate}, first difference at {diff:?}",
                    rendered.len(),
                    sound.len()
                );
            }
            let mut at = 0;
            for (name, clip) in names.iter().zip(&clips) {
                let len = clip.samples.len();
                if *name == phrase::PAUSE {
                    // The middle of the pause; silence as far as it goes.
                    let mid = (at + len / 2).min(sound.len() - 1);
                    let quiet = |i: &usize| sound[*i].unsigned_abs() < QUIET.unsigned_abs();
                    let start = (0..=mid).rev().take_while(quiet).last().unwrap_or(mid);
                    let end = (mid..sound.len()).take_while(quiet).last().unwrap_or(mid);
                    let run = Duration::from_secs_f64((end + 1 - start) as f64 / f64::from(rate));
                    shortest = shortest.min(run);
                    assert!(
                        run >= Duration::from_millis(250),
                        "{:?} {names:?}: {} ms of silence between two words",
                        pack.language(),
                        run.as_millis()
                    );
                }
                at += len + gap;
            }
        }
        println!(
            "{:?}: the shortest silence between two words: {} ms",
            pack.language(),
            shortest.as_millis()
        );
    }
}

#[test]
fn a_split_is_its_pins_then_split() {
    let leave = BallResult {
        standing: pins(&[7, 10]),
        full_rack: true,
        split: true,
        ..Default::default()
    };
    // Competition: the pins only, in full or short.
    let pins_only = ball(leave);
    assert_eq!(
        say(&pins_only, Language::Ru, Verbosity::Short),
        ["n2f", "standing_few"]
    );
    // Training: the extras add "split".
    let split = ball(BallResult {
        extras: true,
        ..leave
    });
    for lang in LANGUAGES {
        assert_eq!(say(&pins_only, lang, Verbosity::Pins), ["n7", "n10"]);
        assert_eq!(say(&split, lang, Verbosity::Pins), ["n7", "n10", "split"]);
        assert!(say(&split, lang, Verbosity::Off).is_empty());
    }
    assert_eq!(
        say(&split, Language::Ru, Verbosity::Short),
        ["n2f", "standing_few", "split"]
    );
    assert_eq!(
        say(&split, Language::En, Verbosity::Short),
        ["n2", "standing_few", "split"]
    );
}

#[test]
fn a_leave_on_one_side_names_the_side_and_the_channel() {
    let leave = ball(BallResult {
        standing: pins(&[3, 6, 10]),
        channel: Some(Side::Right),
        ..Default::default()
    });
    for lang in LANGUAGES {
        assert_eq!(
            say(&leave, lang, Verbosity::Pins),
            ["n3", "n6", "n10", "right_side", "channel_right"]
        );
        // Short leaves out the side.
        assert_eq!(
            say(&leave, lang, Verbosity::Short),
            ["n3", "standing_few", "channel_right"]
        );
        assert!(say(&leave, lang, Verbosity::Off).is_empty());
    }
}

#[test]
fn short_counts_with_russian_agreement() {
    let leave = |p: &[u8]| {
        ball(BallResult {
            standing: pins(p),
            ..Default::default()
        })
    };
    let ru = |s: &Said| say(s, Language::Ru, Verbosity::Short);
    let en = |s: &Said| say(s, Language::En, Verbosity::Short);
    assert_eq!(ru(&leave(&[10])), ["n1f", "standing_one"]);
    assert_eq!(en(&leave(&[10])), ["n1", "standing_one"]);
    assert_eq!(ru(&leave(&[4, 7, 8])), ["n3", "standing_few"]);
    assert_eq!(ru(&leave(&[1, 2, 4, 7])), ["n4", "standing_few"]);
    assert_eq!(ru(&leave(&[1, 2, 3, 4, 7])), ["n5", "standing_many"]);
    assert_eq!(en(&leave(&[1, 2, 3, 4, 7])), ["n5", "standing_many"]);
    assert_eq!(
        ru(&leave(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10])),
        ["n10", "standing_many"]
    );
}

#[test]
fn marks_are_said_in_every_verbosity_but_off() {
    let strike = ball(BallResult {
        standing: PinSet::EMPTY,
        full_rack: true,
        strike: true,
        ..Default::default()
    });
    let spare = ball(BallResult {
        spare: true,
        ..Default::default()
    });
    let foul = ball(BallResult {
        standing: pins(&[7]),
        foul: true,
        ..Default::default()
    });
    let nothing = ball(BallResult {
        standing: PinSet::FULL,
        full_rack: true,
        channel: Some(Side::Left),
        ..Default::default()
    });
    for lang in LANGUAGES {
        for v in [Verbosity::Pins, Verbosity::Short] {
            assert_eq!(say(&strike, lang, v), ["strike"]);
            assert_eq!(say(&spare, lang, v), ["spare"]);
            assert_eq!(say(&foul, lang, v), ["foul"]);
            assert_eq!(say(&nothing, lang, v), ["no_pins", "channel_left"]);
        }
        for s in [&strike, &spare, &foul, &nothing] {
            assert!(say(s, lang, Verbosity::Off).is_empty());
        }
    }
}

#[test]
fn a_correction_is_announced_first() {
    let corrected = ball(BallResult {
        standing: pins(&[10]),
        correction: true,
        ..Default::default()
    });
    let corrected_spare = ball(BallResult {
        spare: true,
        correction: true,
        ..Default::default()
    });
    for lang in LANGUAGES {
        assert_eq!(
            say(&corrected, lang, Verbosity::Pins),
            ["correction", "n10", "right_side"]
        );
        assert_eq!(
            say(&corrected_spare, lang, Verbosity::Short),
            ["correction", "spare"]
        );
        assert!(say(&corrected, lang, Verbosity::Off).is_empty());
    }
    assert_eq!(
        say(&corrected, Language::Ru, Verbosity::Short),
        ["correction", "n1f", "standing_one"]
    );
}

#[test]
fn the_score_is_read_even_when_quiet() {
    let score = Said::Score {
        frame: 6,
        total: 87,
    };
    for lang in LANGUAGES {
        for v in [Verbosity::Pins, Verbosity::Short, Verbosity::Off] {
            assert_eq!(say(&score, lang, v), ["frame", "n6", "n80", "n7"]);
        }
    }
    let perfect = Said::Score {
        frame: 10,
        total: 300,
    };
    assert_eq!(
        say(&perfect, Language::Ru, Verbosity::Off),
        ["frame", "n10", "n300"]
    );
    assert_eq!(
        say(&perfect, Language::En, Verbosity::Off),
        ["frame", "n10", "n3", "hundred"]
    );
}

/// A fresh empty folder in the system's temporary directory.
fn temp_dir(name: &str) -> crate::support::Scratch {
    crate::support::Scratch::new(&format!("voice-{name}"))
}

#[test]
fn recordings_in_a_folder_replace_the_builtin_clips() {
    let dir = temp_dir("recordings");
    std::fs::write(dir.join("strike.wav"), tone_wav(44100, 0.4)).unwrap();
    // A stereo recording is mixed down to mono.
    let stereo: Vec<i16> = (0..16000)
        .flat_map(|i| [(i % 200) as i16 * 40, 1000])
        .collect();
    std::fs::write(dir.join("n7.wav"), wav(2, 16000, &stereo)).unwrap();
    std::fs::write(dir.join("not-a-clip.txt"), "ignored").unwrap();

    let (pack, missing) = VoicePack::from_dir(&dir, Language::En).unwrap();
    assert_eq!(pack.language(), Language::En);
    assert!(pack.missing().is_empty(), "{:?}", pack.missing());
    let expected: Vec<&str> = CLIPS
        .iter()
        .copied()
        .filter(|c| !["strike", "n7"].contains(c))
        .collect();
    assert_eq!(missing, expected);

    let strike = pack.get("strike").unwrap();
    assert_eq!(strike.rate, 44100);
    assert_eq!(strike.samples.len(), 17640);
    let n7 = pack.get("n7").unwrap();
    assert_eq!((n7.rate, n7.samples.len()), (16000, 16000));
    assert_eq!(n7.samples[1], (40 + 1000) / 2);
    assert_eq!(n7.duration(), Duration::from_secs(1));

    let builtin = VoicePack::builtin(Language::En);
    assert_eq!(
        pack.get("split").unwrap().samples,
        builtin.get("split").unwrap().samples
    );
}

fn problem_names(err: &PackError, file: &Path) {
    let text = err.to_string();
    assert!(
        text.contains(&file.display().to_string()),
        "the error does not name {}: {text}",
        file.display()
    );
}

#[test]
fn a_malformed_recording_is_an_error_naming_the_file() {
    let dir = temp_dir("malformed");
    std::fs::write(dir.join("strike.wav"), tone_wav(22050, 0.2)).unwrap();
    let bad = dir.join("split.wav");
    std::fs::write(&bad, b"RIFF\x10\0\0\0WAVEjunk").unwrap();
    let err = VoicePack::from_dir(&dir, Language::Ru).unwrap_err();
    println!("{err}");
    problem_names(&err, &bad);
    assert!(matches!(err, PackError::BadFile { .. }), "{err:?}");

    // 8-bit PCM is refused with a clear reason.
    let mut eight = tone_wav(22050, 0.2);
    eight[34] = 8;
    std::fs::write(&bad, &eight).unwrap();
    let err = VoicePack::from_dir(&dir, Language::Ru).unwrap_err();
    println!("{err}");
    problem_names(&err, &bad);
    assert!(err.to_string().contains("8-bit"), "{err}");

    // A file cut short.
    let whole = tone_wav(22050, 0.2);
    std::fs::write(&bad, &whole[..whole.len() / 2]).unwrap();
    let err = VoicePack::from_dir(&dir, Language::Ru).unwrap_err();
    println!("{err}");
    problem_names(&err, &bad);
    assert!(err.to_string().contains("truncated"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();

    let gone = dir.join("nowhere");
    let err = VoicePack::from_dir(&gone, Language::Ru).unwrap_err();
    problem_names(&err, &gone);
}

#[test]
fn from_wav_refuses_what_it_cannot_play() {
    assert!(Clip::from_wav(b"").is_err());
    assert!(Clip::from_wav(b"not a wav file at all").is_err());
    let mut float = tone_wav(22050, 0.1);
    float[20] = 3; // IEEE float
    let err = Clip::from_wav(&float).unwrap_err();
    assert!(err.to_string().contains("not PCM"), "{err}");
    let mut six = tone_wav(22050, 0.1);
    six[22] = 6; // six channels
    let err = Clip::from_wav(&six).unwrap_err();
    assert!(err.to_string().contains("6 channels"), "{err}");
    let clip = Clip::from_wav(&tone_wav(8000, 0.5)).unwrap();
    assert_eq!((clip.rate, clip.samples.len()), (8000, 4000));
    let expected = (8000.0 * (2.0 * std::f64::consts::PI * 440.0 / 8000.0).sin()) as i16;
    assert_eq!(clip.samples[..2], [0, expected]);
    // The same samples at an odd address (decoded one by one).
    let mut shifted = vec![0u8];
    shifted.extend(tone_wav(8000, 0.5));
    let again = Clip::from_wav(&shifted[1..]).unwrap();
    assert_eq!(again.samples, clip.samples);
}

/// Each built-in pack passes `lanecall voice check`: every clip, trimmed,
/// not clipped, of a usable length, and its clips' loudness within 3 LU
/// (BS.1770), so that no word of a callout stands out.
#[test]
fn the_built_in_packs_pass_the_voice_check() {
    use lanecall::speaker::check::{MAX_SPREAD_LU, check_dir};
    for lang in ["ru", "en"] {
        let checked = check_dir(&manifest().join("assets/voice").join(lang)).unwrap();
        assert!(
            checked.problems.is_empty(),
            "{lang}: {:?}",
            checked.problems
        );
        assert!(checked.missing.is_empty() && checked.extra.is_empty());
        let (lo, hi) = checked.loudness_range().unwrap();
        assert!(hi - lo <= MAX_SPREAD_LU, "{lang}: {lo:.1} to {hi:.1} LUFS");
    }
}

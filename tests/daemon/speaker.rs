//! The speaker beside the lane: callouts are read one after another, never
//! over each other and never late, and a missing sound card leaves the lane
//! scoring in silence until one is plugged in.
//!
//! No sound card is needed: `TestOut` renders what it is given into a
//! shared log and takes as long as the sound lasts, so overlap and
//! staleness are real. Clips are short sine bursts, one pitch per "word".

use crate::support;

use std::borrow::Cow;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use lanecall::speaker::pack::Clip;
use lanecall::speaker::player::{
    AudioOut, CLIP_GAP, RodioOut, Speaker, SpeakerSettings, SpeakerState, Utterance, render,
    write_wav,
};
use support::eventually;

const RATE: u32 = 16_000;

/// A "word": a sine burst at `hz` lasting `ms`.
fn word(hz: f32, ms: u32) -> Clip {
    let n = (RATE * ms / 1000) as usize;
    let samples: Vec<i16> = (0..n)
        .map(|i| {
            let t = i as f32 / RATE as f32;
            (8_000.0 * (std::f32::consts::TAU * hz * t).sin()) as i16
        })
        .collect();
    Clip {
        rate: RATE,
        samples: Cow::Owned(samples),
    }
}

/// One utterance as `TestOut` played it.
struct Played {
    start: Instant,
    end: Instant,
    /// The clips it was given, by their samples.
    clips: Vec<Vec<i16>>,
    /// What it sounded like.
    sound: Vec<i16>,
}

#[derive(Default)]
struct Shared {
    played: Mutex<Vec<Played>>,
    /// Whether the "DAC" is plugged in.
    plugged: AtomicBool,
    opens: AtomicUsize,
}

/// A sound card that renders into memory, in real time.
struct TestOut {
    shared: Arc<Shared>,
    /// Names the outage, so a test can find its own warnings in the log.
    reason: String,
    open: bool,
}

impl TestOut {
    fn new(plugged: bool, reason: &str) -> (Box<TestOut>, Arc<Shared>) {
        let shared = Arc::new(Shared::default());
        shared.plugged.store(plugged, Ordering::SeqCst);
        let out = TestOut {
            shared: shared.clone(),
            reason: reason.to_owned(),
            open: false,
        };
        (Box::new(out), shared)
    }
}

impl AudioOut for TestOut {
    fn open(&mut self) -> Result<String, String> {
        self.shared.opens.fetch_add(1, Ordering::SeqCst);
        if self.shared.plugged.load(Ordering::SeqCst) {
            self.open = true;
            Ok("test dac".to_owned())
        } else {
            Err(self.reason.clone())
        }
    }

    fn play(&mut self, clips: &[Clip], volume: f32) -> Result<(), String> {
        assert!(self.open, "play before open");
        if !self.shared.plugged.load(Ordering::SeqCst) {
            return Err(format!("{} (while playing)", self.reason));
        }
        let start = Instant::now();
        let (rate, sound) = render(clips, CLIP_GAP);
        let sound: Vec<i16> = sound
            .iter()
            .map(|s| (f32::from(*s) * volume) as i16)
            .collect();
        // A sound card takes the sound's own time to play it.
        thread::sleep(Duration::from_secs_f64(
            sound.len() as f64 / f64::from(rate),
        ));
        self.shared.played.lock().unwrap().push(Played {
            start,
            end: Instant::now(),
            clips: clips.iter().map(|c| c.samples.to_vec()).collect(),
            sound,
        });
        Ok(())
    }

    /// The card list, as `RodioOut` reads /proc/asound/cards while idle.
    fn check(&mut self) -> Result<(), String> {
        match self.shared.plugged.load(Ordering::SeqCst) {
            true => Ok(()),
            false => Err(format!("{} (while idle)", self.reason)),
        }
    }

    fn close(&mut self) {
        self.open = false;
    }
}

fn settings(stale_after: Duration, retry: Duration) -> SpeakerSettings {
    SpeakerSettings {
        device: None,
        volume: 1.0,
        stale_after,
        retry,
        ..SpeakerSettings::default()
    }
}

fn played_count(shared: &Shared) -> usize {
    shared.played.lock().unwrap().len()
}

fn rms(s: &[i16]) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    (s.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>() / s.len() as f64).sqrt()
}

/// The longest run of (near) silence, in samples.
fn longest_silence(s: &[i16]) -> usize {
    let (mut run, mut longest) = (0, 0);
    for x in s {
        if x.unsigned_abs() < 64 {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

/// Warnings logged by the speaker, for counting outages. Installed once for
/// the whole test binary; each test names its outages uniquely.
fn warnings() -> &'static Mutex<Vec<u8>> {
    static LOG: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOG.get_or_init(|| {
        let log = Arc::new(Mutex::new(Vec::new()));
        struct W(Arc<Mutex<Vec<u8>>>);
        impl Write for W {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let sink = log.clone();
        let _ = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::WARN)
            .with_ansi(false)
            .with_writer(move || W(sink.clone()))
            .try_init();
        log
    })
}

fn warnings_about(needle: &str) -> usize {
    let log = warnings().lock().unwrap();
    String::from_utf8_lossy(&log)
        .lines()
        .filter(|l| l.contains("WARN") && l.contains(needle))
        .count()
}

#[test]
fn callouts_are_read_in_order_one_after_another() {
    let (out, shared) = TestOut::new(true, "unused");
    let speaker = Speaker::start(
        settings(Duration::from_secs(5), Duration::from_millis(200)),
        out,
    );
    eventually("the speaker to be ready", || {
        speaker.state()
            == SpeakerState::Ready {
                device: "test dac".to_owned(),
            }
    });

    let (seven, ten, split) = (word(440.0, 30), word(660.0, 30), word(880.0, 40));
    let said = [
        vec![seven.clone(), ten.clone(), split.clone()],
        vec![ten.clone()],
        vec![split.clone(), seven.clone()],
    ];
    for clips in &said {
        speaker.say(Utterance::new(clips.clone()));
    }
    eventually("three callouts", || played_count(&shared) == 3);

    let played = shared.played.lock().unwrap();
    for (p, clips) in played.iter().zip(&said) {
        let want: Vec<Vec<i16>> = clips.iter().map(|c| c.samples.to_vec()).collect();
        assert_eq!(p.clips, want, "clips out of order");
        assert!(rms(&p.sound) > 1_000.0, "silent callout");
        // The gap between words is a pause, not a hole.
        let gap = (RATE as f64 * CLIP_GAP.as_secs_f64()) as usize;
        assert!(
            longest_silence(&p.sound) <= gap + 16,
            "long gap inside a callout"
        );
    }
    for pair in played.windows(2) {
        assert!(pair[1].start >= pair[0].end, "callouts overlap");
    }
    assert_eq!(speaker.dropped_stale(), 0);
}

#[test]
fn a_callout_kept_waiting_behind_a_long_one_is_dropped_not_read_late() {
    let (out, shared) = TestOut::new(true, "unused");
    let speaker = Speaker::start(
        settings(Duration::from_millis(150), Duration::from_millis(200)),
        out,
    );
    eventually("the speaker to be ready", || {
        matches!(speaker.state(), SpeakerState::Ready { .. })
    });

    // About 410 ms of speech: whatever is queued behind it waits longer
    // than 150 ms.
    let long: Vec<Clip> = [300.0, 400.0, 500.0, 600.0]
        .iter()
        .map(|hz| word(*hz, 50))
        .collect();
    let late = word(1_000.0, 20);
    speaker.say(Utterance::new(long.clone()));
    speaker.say(Utterance::new(vec![late.clone()]));

    eventually("the stale callout to be dropped", || {
        speaker.dropped_stale() == 1
    });
    assert_eq!(played_count(&shared), 1);

    // A fresh callout after the long one is read.
    let fresh = word(1_200.0, 20);
    speaker.say(Utterance::new(vec![fresh.clone()]));
    eventually("the fresh callout", || played_count(&shared) == 2);
    let played = shared.played.lock().unwrap();
    assert_eq!(played[0].clips.len(), 4);
    assert_eq!(played[1].clips, vec![fresh.samples.to_vec()]);
    assert!(
        played
            .iter()
            .all(|p| p.clips != vec![late.samples.to_vec()])
    );
    assert_eq!(speaker.dropped_stale(), 1);
}

/// Callouts held for the device are dropped once stale (250 ms here, well
/// before the DAC is plugged in).
#[test]
fn without_a_device_callouts_are_dropped_until_the_dac_is_plugged_in() {
    warnings();
    let reason = "dac-outage-test: no such card";
    let (out, shared) = TestOut::new(false, reason);
    let retry = Duration::from_millis(50);
    let speaker = Speaker::start(settings(Duration::from_millis(250), retry), out);
    let mut watch = speaker.watch();
    eventually("state NoDevice", || {
        speaker.state()
            == SpeakerState::NoDevice {
                reason: reason.to_owned(),
            }
    });

    // say never blocks, and nothing is played.
    let t = Instant::now();
    for _ in 0..10 {
        speaker.say(Utterance::new(vec![word(500.0, 40)]));
    }
    assert!(t.elapsed() < Duration::from_millis(200), "say blocked");

    // It keeps looking, at about `retry`, without spinning.
    let before = shared.opens.load(Ordering::SeqCst);
    // Time passing, in which the test counts the looks.
    thread::sleep(Duration::from_millis(300));
    let tries = shared.opens.load(Ordering::SeqCst) - before;
    assert!(tries < 40, "spinning ({tries} tries in 300 ms)");
    eventually("two more looks for the device", || {
        shared.opens.load(Ordering::SeqCst) - before >= 2
    });
    eventually("the held callouts dropped as stale", || {
        speaker.dropped_stale() == 10
    });
    assert_eq!(played_count(&shared), 0);
    assert_eq!(warnings_about("dac-outage-test"), 1, "warn once per outage");

    // Plugged in: ready, and speaking again.
    watch.mark_unchanged();
    shared.plugged.store(true, Ordering::SeqCst);
    eventually("state Ready", || {
        matches!(speaker.state(), SpeakerState::Ready { .. })
    });
    assert!(watch.has_changed().unwrap(), "watchers not told");
    let hello = word(700.0, 30);
    speaker.say(Utterance::new(vec![hello.clone()]));
    eventually("the callout", || played_count(&shared) == 1);
    assert_eq!(
        shared.played.lock().unwrap()[0].clips,
        vec![hello.samples.to_vec()]
    );

    // Unplugged while in use: a new outage, reported once more.
    shared.plugged.store(false, Ordering::SeqCst);
    speaker.say(Utterance::new(vec![word(700.0, 30)]));
    eventually("state NoDevice again", || {
        matches!(speaker.state(), SpeakerState::NoDevice { .. })
    });
    // Time passing, in which no second warning for this outage may come.
    thread::sleep(Duration::from_millis(150));
    assert_eq!(warnings_about("dac-outage-test"), 2, "warn once per outage");
    assert_eq!(played_count(&shared), 1);
}

/// A DAC pulled between callouts is seen while the lane is idle, not at
/// the next callout; a callout said while it is out is read once it is
/// back, still current.
#[test]
fn a_dac_pulled_while_idle_is_seen_and_a_callout_waits_for_its_return() {
    let (out, shared) = TestOut::new(true, "idle-pull-test: gone from the card list");
    let speaker = Speaker::start(
        SpeakerSettings {
            watch: Duration::from_millis(50),
            ..settings(Duration::from_secs(30), Duration::from_millis(100))
        },
        out,
    );
    eventually("the speaker to be ready", || {
        matches!(speaker.state(), SpeakerState::Ready { .. })
    });
    shared.plugged.store(false, Ordering::SeqCst);
    eventually("NoDevice with the reason, no callout said", || {
        speaker.state()
            == SpeakerState::NoDevice {
                reason: "idle-pull-test: gone from the card list (while idle)".to_owned(),
            }
    });
    let seven = word(440.0, 30);
    speaker.say(Utterance::new(vec![seven.clone()]));
    shared.plugged.store(true, Ordering::SeqCst);
    eventually("the held callout", || played_count(&shared) == 1);
    assert!(matches!(speaker.state(), SpeakerState::Ready { .. }));
    assert_eq!(
        shared.played.lock().unwrap()[0].clips,
        vec![seven.samples.to_vec()]
    );
    assert_eq!(speaker.dropped_stale(), 0);
}

#[test]
fn rodio_without_a_sound_card_reports_no_device() {
    if std::path::Path::new("/dev/snd").exists() {
        eprintln!("skipped: this machine has a sound card");
        return;
    }
    let mut out = RodioOut::new(None);
    let err = out
        .open()
        .expect_err("opened a sound card that is not there");
    assert!(!err.is_empty());
    // Asked again (the retry), still an error.
    assert!(out.open().is_err());
    // A named device that does not exist says which name it looked for.
    let err = RodioOut::new(Some("hw:CARD=Nothing,DEV=0".to_owned()))
        .open()
        .expect_err("opened a device that is not there");
    assert!(err.contains("hw:CARD=Nothing,DEV=0"), "{err}");

    let speaker = Speaker::start(
        settings(Duration::from_secs(5), Duration::from_millis(100)),
        Box::new(RodioOut::new(None)),
    );
    eventually(
        "state NoDevice",
        || matches!(speaker.state(), SpeakerState::NoDevice { ref reason } if reason != "not opened yet"),
    );
    let t = Instant::now();
    speaker.say(Utterance::new(vec![word(440.0, 30)]));
    assert!(t.elapsed() < Duration::from_millis(100), "say blocked");
}

#[test]
fn a_disabled_speaker_is_off_and_silent() {
    let speaker = Speaker::disabled();
    assert_eq!(speaker.state(), SpeakerState::Off);
    speaker.say(Utterance::new(vec![word(440.0, 20)]));
    assert_eq!(*speaker.watch().borrow(), SpeakerState::Off);
    assert_eq!(speaker.dropped_stale(), 0);
}

#[test]
fn the_panel_sees_the_state_as_tagged_json() {
    let json = |s: &SpeakerState| serde_json::to_value(s).unwrap();
    assert_eq!(
        json(&SpeakerState::Off),
        serde_json::json!({"state": "off"})
    );
    assert_eq!(
        json(&SpeakerState::Ready {
            device: "hw:CARD=Device,DEV=0".into()
        }),
        serde_json::json!({"state": "ready", "device": "hw:CARD=Device,DEV=0"})
    );
    assert_eq!(
        json(&SpeakerState::NoDevice {
            reason: "unplugged".into()
        }),
        serde_json::json!({"state": "no_device", "reason": "unplugged"})
    );
}

#[test]
fn render_plays_the_clips_in_order_with_the_gap_between() {
    let (a, b) = (word(440.0, 30), word(880.0, 45));
    let gap = Duration::from_millis(70);
    let (rate, sound) = render(&[a.clone(), b.clone()], gap);
    assert_eq!(rate, RATE);
    let gap_len = (RATE as usize) * 70 / 1000;
    assert_eq!(sound.len(), a.samples.len() + gap_len + b.samples.len());
    let total = Duration::from_secs_f64(sound.len() as f64 / f64::from(rate));
    let expected = a.duration() + gap + b.duration();
    assert!(total.abs_diff(expected) < Duration::from_millis(2));

    // i16 -> rodio's f32 -> i16 is exact.
    assert_eq!(&sound[..a.samples.len()], &a.samples[..]);
    let gap_part = &sound[a.samples.len()..a.samples.len() + gap_len];
    assert!(gap_part.iter().all(|s| *s == 0));
    assert_eq!(&sound[a.samples.len() + gap_len..], &b.samples[..]);
}

#[test]
fn render_of_nothing_is_empty_and_other_rates_are_resampled() {
    let (_, sound) = render(&[], CLIP_GAP);
    assert!(sound.is_empty());

    let a = word(440.0, 40);
    let b22 = Clip {
        rate: 22_050,
        samples: Cow::Owned(vec![4_000; 22_050 * 40 / 1000]),
    };
    let (rate, sound) = render(&[a.clone(), b22.clone()], CLIP_GAP);
    assert_eq!(rate, RATE);
    let got = sound.len() as f64 / f64::from(rate);
    let want = (a.duration() + CLIP_GAP + b22.duration()).as_secs_f64();
    assert!(
        (got - want).abs() < 0.005,
        "{got} s, expected about {want} s"
    );
}

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("lanecall-{}-{name}", std::process::id()))
}

#[test]
fn write_wav_writes_mono_16_bit_pcm() {
    let (rate, sound) = render(&[word(440.0, 30), word(660.0, 30)], CLIP_GAP);
    let path = temp_path("callout.wav");
    write_wav(&path, rate, &sound).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let _ = std::fs::remove_file(&path);

    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
    assert_eq!(&bytes[0..4], b"RIFF");
    assert_eq!(u32_at(4) as usize, bytes.len() - 8);
    assert_eq!(&bytes[8..12], b"WAVE");
    assert_eq!(&bytes[12..16], b"fmt ");
    assert_eq!(u32_at(16), 16);
    assert_eq!(u16_at(20), 1, "PCM");
    assert_eq!(u16_at(22), 1, "mono");
    assert_eq!(u32_at(24), rate);
    assert_eq!(u32_at(28), rate * 2, "byte rate");
    assert_eq!(u16_at(32), 2, "block align");
    assert_eq!(u16_at(34), 16, "bits per sample");
    assert_eq!(&bytes[36..40], b"data");
    assert_eq!(u32_at(40) as usize, sound.len() * 2);
    assert_eq!(bytes.len(), 44 + sound.len() * 2);
    let back: Vec<i16> = bytes[44..]
        .chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(back, sound);
}

#[test]
fn write_wav_refuses_a_rate_of_zero() {
    let path = temp_path("zero-rate.wav");
    assert!(write_wav(&path, 0, &[1, 2, 3]).is_err());
    let _ = std::fs::remove_file(&path);
}

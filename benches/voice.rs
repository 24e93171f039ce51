//! The voice's figures: loading both built-in voice packs, the memory they
//! take, and the time from the lane's callout effect to the first sample
//! the audio device takes.
//!
//! `cargo bench --bench voice` (prints figures; a timing never fails it).
//! The "device" is rodio's device-free queue pulled by a thread in 256-frame
//! periods, as ALSA pulls a USB DAC; on a Pi add the device's own buffer.

use std::time::{Duration, Instant};

use lanecall::config::SpeakerConfig;
use lanecall::lane::{BallResult, Callout, Language, Pin, PinSet, Said};
use lanecall::ports::CalloutSink;
use lanecall::speaker::Voice;
use lanecall::speaker::pack::VoicePack;
use lanecall::speaker::player::QueueOut;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

fn main() {
    // Loading.
    let mut loads = Vec::new();
    let mut bytes = 0;
    for _ in 0..20 {
        let t = Instant::now();
        let ru = VoicePack::builtin(Language::Ru);
        let en = VoicePack::builtin(Language::En);
        loads.push(t.elapsed().as_secs_f64() * 1000.0);
        bytes = ru.bytes() + en.bytes();
    }
    loads.sort_by(f64::total_cmp);
    println!(
        "load both packs: median {:.2} ms, max {:.2} ms over {} loads; samples take {} kB",
        percentile(&loads, 0.5),
        loads[loads.len() - 1],
        loads.len(),
        bytes / 1024
    );

    // Callout effect -> first sample taken by the device.
    let period = 256;
    let (out, mut queue) = QueueOut::new(Duration::from_millis(12));
    let mut voice = Voice::with_output(&SpeakerConfig::default(), Box::new(out));
    let (first_tx, first_rx) = std::sync::mpsc::channel::<Instant>();
    std::thread::spawn(move || {
        // The device: a period every 256 frames of 22,050 Hz, reporting the
        // moment a period holds sound after a long silence (the gaps
        // between the words of one callout are short).
        let mut silent_periods = usize::MAX;
        loop {
            let frames: Vec<f32> = queue.by_ref().take(period).collect();
            let loud = frames.iter().any(|s| s.abs() > 1e-4);
            if loud && silent_periods > 15 && first_tx.send(Instant::now()).is_err() {
                return;
            }
            silent_periods = if loud {
                0
            } else {
                silent_periods.saturating_add(1)
            };
            std::thread::sleep(Duration::from_micros(11_600));
        }
    });
    let seven_ten = PinSet::from_pins([7, 10].map(|n| Pin::new(n).unwrap()));
    let callout = Callout {
        t: 0,
        bowler: None,
        said: Said::Ball(BallResult {
            standing: seven_ten,
            full_rack: true,
            split: true,
            extras: true,
            ..Default::default()
        }),
    };
    let n = 50;
    let mut latencies = Vec::new();
    for _ in 0..n {
        while first_rx.try_recv().is_ok() {}
        let t = Instant::now();
        voice.say(&callout, None);
        let first = first_rx.recv().expect("the device heard the callout");
        assert!(first >= t, "an onset from before the callout");
        latencies.push(first.duration_since(t).as_secs_f64() * 1000.0);
        // Let it play out and the device fall silent.
        std::thread::sleep(Duration::from_millis(2000));
    }
    latencies.sort_by(f64::total_cmp);
    println!(
        "callout -> first sample taken by the device: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms over {n} callouts (device period 11.6 ms)",
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies[n - 1]
    );
}

//! Playback: the speaker beside the lane reads each callout aloud.
//!
//! One thread, named `speaker`, owns the audio device and plays utterances
//! one after another, the way a good assistant speaks: never two at once,
//! never cut off, and never a callout read so late that it describes a rack
//! the bowler has already moved on from (a stale one is dropped instead).
//!
//! A missing or failing device (no sound card, a USB DAC unplugged) is a
//! state, not an error: the lane keeps scoring in silence, the panel shows
//! `NoDevice` with the reason, and the thread looks for the device again so
//! that a DAC plugged in later starts speaking. `Ready` is said only once
//! the device has taken samples ([`AudioOut::prove`]); an open device is
//! checked every [`SpeakerSettings::watch`] while idle, so a DAC pulled
//! between callouts is seen then, not when the next callout is lost. A
//! callout said while there is no device waits for it, and is read on its
//! return if still current (`stale_after`), else dropped with a log line.
//! This module must never panic, never block the caller of
//! [`Speaker::say`], and never spin.
//!
//! [`render`] and [`write_wav`] are the same playback without a device, for
//! `lanecall say --out` and for tests.
//!
//! This file is the lane's side: the handle callouts are said through,
//! the settings, the state the panel shows and the outputs' trait.
//! `worker.rs` is the speaker thread: the queue, staleness and the
//! device's outages. `sound.rs` makes a callout's
//! sound from its clips (gaps, resampling, device-free rendering, WAV);
//! `device.rs` holds the outputs it plays through (ALSA through rodio, and
//! rodio's device-free queue).

mod device;
mod sound;
mod worker;

pub use device::{QueueOut, RodioOut};
pub use sound::{render, wav_bytes, write_wav};

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::thread;
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::watch;
use tracing::{debug, warn};

use super::pack::Clip;

use worker::Worker;

/// Playback and [`render`] use the same gap (said in `phrase`, beside the
/// pause between words it is part of).
pub use super::phrase::CLIP_GAP;

/// How many utterances may wait for the speaker. A lane produces a callout
/// every few seconds at most; a full queue means the device is stuck, and a
/// further callout would be stale by the time its turn came anyway.
const QUEUE_LEN: usize = 16;

/// The shortest `retry` honoured: a zero from the config must not turn the
/// search for a missing device into a busy loop.
const MIN_RETRY: Duration = Duration::from_millis(50);

/// How often an open device is looked at while the speaker is idle: a
/// card pulled between callouts is seen within this, not at the next
/// callout, which would be lost.
const WATCH: Duration = Duration::from_secs(2);

/// How the speaker plays; from the `[speaker]` section of the config.
#[derive(Clone, Debug, PartialEq)]
pub struct SpeakerSettings {
    /// The ALSA device name (`plughw:CARD=Device,DEV=0`, its description,
    /// or `default`); `None` is "auto", the card [`crate::speaker::cards`]
    /// chooses.
    pub device: Option<String>,
    /// Gain applied to the clips: 1.0 plays them as recorded.
    pub volume: f32,
    /// A callout that has waited longer than this when its turn comes is
    /// dropped: the bowler has moved on.
    pub stale_after: Duration,
    /// How often a missing device is looked for again.
    pub retry: Duration,
    /// How often an open device is checked while idle ([`AudioOut::check`]).
    pub watch: Duration,
}

impl Default for SpeakerSettings {
    fn default() -> Self {
        SpeakerSettings {
            device: None,
            volume: 1.0,
            stale_after: Duration::from_secs(3),
            retry: Duration::from_secs(5),
            watch: WATCH,
        }
    }
}

/// One callout: the clips to play in order, and when the lane asked for it
/// (the clock staleness is measured from).
pub struct Utterance {
    pub clips: Vec<Clip>,
    pub queued_at: Instant,
}

impl Utterance {
    /// An utterance queued now.
    pub fn new(clips: Vec<Clip>) -> Utterance {
        Utterance {
            clips,
            queued_at: Instant::now(),
        }
    }
}

/// What the panel shows about the speaker.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum SpeakerState {
    /// Disabled in the config.
    Off,
    /// Speaking through this device.
    Ready { device: String },
    /// No device to speak through; callouts are dropped until one appears.
    NoDevice { reason: String },
}

/// Where the speaker thread sends its sound: the audio device, or a test
/// renderer.
pub trait AudioOut: Send + 'static {
    /// Opens the device; returns its name, as the panel shows it.
    fn open(&mut self) -> Result<String, String>;
    /// Proves the device just opened takes samples (plays a short silence
    /// to the end): a device that opens but never plays is not "ready".
    /// Outputs without a device to prove (renderers) take the default.
    fn prove(&mut self) -> Result<(), String> {
        Ok(())
    }
    /// Whether the open device is still there, asked every
    /// [`SpeakerSettings::watch`] while idle; an `Err` says why not (the
    /// card left `/proc/asound/cards`, the stream reported an error).
    fn check(&mut self) -> Result<(), String> {
        Ok(())
    }
    /// Asked after a good [`AudioOut::check`]: why the device should be
    /// opened again, when a card "auto" prefers to the open one has come
    /// (the USB DAC plugged back in while the jack stood in for it).
    fn better(&mut self) -> Option<String> {
        None
    }
    /// Plays the clips of one callout, with [`CLIP_GAP`] between them, and
    /// returns once the last sample has been handed over and played. It
    /// blocks the speaker thread only. An `Err` means the device failed.
    fn play(&mut self, clips: &[Clip], volume: f32) -> Result<(), String>;
    /// Lets go of the device.
    fn close(&mut self);
}

/// The handle the lane speaks through. Cheap to call from async code: it
/// never blocks.
pub struct Speaker {
    /// Utterances for the speaker thread; `None` when disabled or when the
    /// thread could not be started (then `say` drops).
    tx: Option<SyncSender<Utterance>>,
    /// Kept here as well as in the thread so that `watch()` receivers never
    /// see the channel closed while the `Speaker` exists.
    state: Arc<watch::Sender<SpeakerState>>,
    dropped_stale: Arc<AtomicU64>,
}

impl Speaker {
    /// Starts the speaker thread with this output.
    pub fn start(mut settings: SpeakerSettings, out: Box<dyn AudioOut>) -> Speaker {
        settings.retry = settings.retry.max(MIN_RETRY);
        settings.watch = settings.watch.max(MIN_RETRY);
        let first = SpeakerState::NoDevice {
            reason: "not opened yet".to_owned(),
        };
        let state = Arc::new(watch::Sender::new(first));
        let dropped_stale = Arc::new(AtomicU64::new(0));
        let (tx, rx) = mpsc::sync_channel(QUEUE_LEN);
        let worker = Worker::new(
            settings,
            out,
            rx,
            state.clone(),
            dropped_stale.clone(),
            Box::new(Instant::now),
        );
        let tx = match thread::Builder::new()
            .name("speaker".to_owned())
            .spawn(move || worker.run())
        {
            Ok(_) => Some(tx),
            Err(e) => {
                let reason = format!("could not start the speaker thread: {e}");
                warn!("{reason}; callouts will not be spoken");
                state.send_replace(SpeakerState::NoDevice { reason });
                None
            }
        };
        Speaker {
            tx,
            state,
            dropped_stale,
        }
    }

    /// A speaker that is switched off: state `Off`, and `say` drops.
    pub fn disabled() -> Speaker {
        Speaker {
            tx: None,
            state: Arc::new(watch::Sender::new(SpeakerState::Off)),
            dropped_stale: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Queues a callout. Never blocks: if the queue is full the callout is
    /// dropped (it would be stale before its turn).
    pub fn say(&self, u: Utterance) {
        let Some(tx) = &self.tx else { return };
        match tx.try_send(u) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                warn!("the speaker is {QUEUE_LEN} callouts behind; this callout is dropped");
            }
            Err(TrySendError::Disconnected(_)) => {
                debug!("the speaker thread has ended; callout dropped");
            }
        }
    }

    /// The speaker's state now.
    pub fn state(&self) -> SpeakerState {
        self.state.borrow().clone()
    }

    /// The state, and every change to it (for the panel).
    pub fn watch(&self) -> watch::Receiver<SpeakerState> {
        self.state.subscribe()
    }

    /// How many callouts were dropped for having waited too long.
    pub fn dropped_stale(&self) -> u64 {
        self.dropped_stale.load(Ordering::Relaxed)
    }
}

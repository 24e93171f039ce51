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
//! that a DAC plugged in later starts speaking. This module must never
//! panic, never block the caller of [`Speaker::say`], and never spin.
//!
//! [`render`] and [`write_wav`] are the same playback without a device, for
//! `lanecall say --out` and for tests.
//!
//! This file is the speaker thread: the queue, staleness, the device's
//! outages and the state the panel shows. `sound.rs` makes a callout's
//! sound from its clips (gaps, resampling, device-free rendering, WAV);
//! `device.rs` holds the outputs it plays through (ALSA through rodio, and
//! rodio's device-free queue).

mod device;
mod sound;

pub use device::{QueueOut, RodioOut};
pub use sound::{render, wav_bytes, write_wav};

use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::thread;
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::watch;
use tracing::{debug, info, warn};

use super::pack::Clip;

/// The pause between the clips of one callout ("seven, ten, split"): long
/// enough to hear the words apart, short enough to sound like one sentence.
/// Playback and [`render`] use the same gap.
pub const CLIP_GAP: Duration = Duration::from_millis(70);

/// How many utterances may wait for the speaker. A lane produces a callout
/// every few seconds at most; a full queue means the device is stuck, and a
/// further callout would be stale by the time its turn came anyway.
const QUEUE_LEN: usize = 16;

/// The shortest `retry` honoured: a zero from the config must not turn the
/// search for a missing device into a busy loop.
const MIN_RETRY: Duration = Duration::from_millis(50);

/// How the speaker plays; from the `[speaker]` section of the config.
#[derive(Clone, Debug, PartialEq)]
pub struct SpeakerSettings {
    /// The ALSA device name (`hw:CARD=Device,DEV=0`, its description, or
    /// `default`); `None` is the default output.
    pub device: Option<String>,
    /// Gain applied to the clips: 1.0 plays them as recorded.
    pub volume: f32,
    /// A callout that has waited longer than this when its turn comes is
    /// dropped: the bowler has moved on.
    pub stale_after: Duration,
    /// How often a missing device is looked for again.
    pub retry: Duration,
}

impl Default for SpeakerSettings {
    fn default() -> Self {
        SpeakerSettings {
            device: None,
            volume: 1.0,
            stale_after: Duration::from_secs(3),
            retry: Duration::from_secs(5),
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
    /// Opens the device; returns its name.
    fn open(&mut self) -> Result<String, String>;
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
        let first = SpeakerState::NoDevice {
            reason: "not opened yet".to_owned(),
        };
        let state = Arc::new(watch::Sender::new(first));
        let dropped_stale = Arc::new(AtomicU64::new(0));
        let (tx, rx) = mpsc::sync_channel(QUEUE_LEN);
        let worker = Worker {
            settings,
            out,
            rx,
            state: state.clone(),
            dropped_stale: dropped_stale.clone(),
            open: false,
            in_outage: false,
            next_attempt: Instant::now(),
        };
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

/// The speaker thread's side.
struct Worker {
    settings: SpeakerSettings,
    out: Box<dyn AudioOut>,
    rx: Receiver<Utterance>,
    state: Arc<watch::Sender<SpeakerState>>,
    dropped_stale: Arc<AtomicU64>,
    /// The device is open and has not failed since.
    open: bool,
    /// The device is missing and the outage has been reported at warn:
    /// later failures of the same outage log at debug only.
    in_outage: bool,
    /// When to look for a missing device again while idle.
    next_attempt: Instant,
}

impl Worker {
    fn run(mut self) {
        self.try_open();
        loop {
            // Block on the channel: an utterance, or time to look for the
            // device again. Never a busy loop.
            let wait = if self.open {
                self.settings.retry
            } else {
                self.next_attempt.saturating_duration_since(Instant::now())
            };
            match self.rx.recv_timeout(wait) {
                Ok(u) => self.speak(u),
                Err(RecvTimeoutError::Timeout) => {
                    if !self.open {
                        self.try_open();
                    }
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        if self.open {
            self.close();
        }
        debug!("speaker thread ends");
    }

    fn speak(&mut self, u: Utterance) {
        let waited = u.queued_at.elapsed();
        if waited > self.settings.stale_after {
            self.dropped_stale.fetch_add(1, Ordering::Relaxed);
            debug!(
                waited_ms = waited.as_millis() as u64,
                "callout dropped: it waited too long to be read"
            );
            return;
        }
        if u.clips.is_empty() {
            return;
        }
        if !self.open {
            self.try_open();
            if !self.open {
                debug!("no audio device; callout dropped");
                return;
            }
        }
        let volume = usable_volume(self.settings.volume);
        let out = &mut self.out;
        let played = panic::catch_unwind(AssertUnwindSafe(|| out.play(&u.clips, volume)))
            .unwrap_or_else(|_| Err("the audio output panicked".to_owned()));
        if let Err(reason) = played {
            self.close();
            self.outage(format!("the audio device failed: {reason}"));
        }
    }

    fn try_open(&mut self) {
        let out = &mut self.out;
        let opened = panic::catch_unwind(AssertUnwindSafe(|| out.open()))
            .unwrap_or_else(|_| Err("the audio output panicked while opening".to_owned()));
        match opened {
            Ok(device) => {
                self.open = true;
                self.in_outage = false;
                info!(device = %device, "speaker ready");
                self.state.send_replace(SpeakerState::Ready { device });
            }
            Err(reason) => {
                self.close();
                self.outage(reason);
            }
        }
    }

    /// The device is missing or failed: say so once per outage, and look
    /// for it again after `retry`.
    fn outage(&mut self, reason: String) {
        self.open = false;
        self.next_attempt = Instant::now() + self.settings.retry;
        if self.in_outage {
            debug!(reason = %reason, "still no audio device");
        } else {
            self.in_outage = true;
            warn!(
                reason = %reason,
                "no audio device: callouts are dropped and the lane scores silently; \
                 looking again every {:?}",
                self.settings.retry
            );
        }
        self.state.send_if_modified(|s| {
            let new = SpeakerState::NoDevice { reason };
            if *s == new {
                false
            } else {
                *s = new;
                true
            }
        });
    }

    fn close(&mut self) {
        self.open = false;
        let out = &mut self.out;
        if panic::catch_unwind(AssertUnwindSafe(|| out.close())).is_err() {
            debug!("the audio output panicked while closing");
        }
    }
}

/// A volume the player can use: finite and not negative.
fn usable_volume(v: f32) -> f32 {
    if v.is_finite() { v.max(0.0) } else { 1.0 }
}

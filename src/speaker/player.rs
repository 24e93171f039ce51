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

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::num::NonZero;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::thread;
use std::time::{Duration, Instant};

use rodio::buffer::SamplesBuffer;
use rodio::conversions::SampleTypeConverter;
use rodio::cpal::traits::{DeviceTrait, HostTrait};
use rodio::cpal::{self, BufferSize};
use rodio::source::{EmptyCallback, UniformSourceIterator, Zero};
use rodio::{ChannelCount, DeviceSinkBuilder, MixerDeviceSink, Player, SampleRate};
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

/// The rate [`render`] reports when it is given no clip with a usable rate.
const FALLBACK_RATE: u32 = 16_000;

const MONO: ChannelCount = NonZero::<u16>::MIN;

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
fn silence(rate: SampleRate, d: Duration) -> Zero {
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
fn append_callout(
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
    let mut w = BufWriter::new(File::create(path)?);
    let channels: u16 = 1;
    let bits: u16 = 16;
    let block_align = channels * bits / 8;
    let byte_rate = rate
        .checked_mul(u32::from(block_align))
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "sample rate too high"))?;
    w.write_all(b"RIFF")?;
    w.write_all(&(36 + data_len).to_le_bytes())?;
    w.write_all(b"WAVE")?;
    w.write_all(b"fmt ")?;
    w.write_all(&16u32.to_le_bytes())?;
    w.write_all(&1u16.to_le_bytes())?; // PCM
    w.write_all(&channels.to_le_bytes())?;
    w.write_all(&rate.to_le_bytes())?;
    w.write_all(&byte_rate.to_le_bytes())?;
    w.write_all(&block_align.to_le_bytes())?;
    w.write_all(&bits.to_le_bytes())?;
    w.write_all(b"data")?;
    w.write_all(&data_len.to_le_bytes())?;
    for s in samples {
        w.write_all(&s.to_le_bytes())?;
    }
    w.flush()?;
    w.into_inner().map_err(|e| e.into_error())?.sync_all()
}

/// What the audio thread tells the speaker thread.
enum Event {
    /// The callout with this number has been handed to the device in full.
    Done(u64),
    /// The device reported an error (unplugged, broken stream).
    Failed(String),
}

/// The open device: rodio's sink on it and the player that queues our
/// sound into its mixer.
struct Opened {
    // Dropped before the sink, so the player stops before the stream goes.
    player: Player,
    /// `None` only in the unit tests, where a thread pulls the samples.
    _sink: Option<MixerDeviceSink>,
    events: Receiver<Event>,
    events_tx: mpsc::Sender<Event>,
    /// About how long a sample spends in the device's buffer after rodio
    /// has handed it over.
    latency: Duration,
    played: u64,
}

impl Opened {
    /// Plays one callout and waits until it has left the speaker.
    fn play(&mut self, clips: &[Clip], volume: f32) -> Result<(), String> {
        // A failure reported while idle (the DAC was unplugged).
        while let Ok(ev) = self.events.try_recv() {
            if let Event::Failed(e) = ev {
                return Err(e);
            }
        }
        self.player.set_volume(volume);
        let Some((rate, length)) = append_callout(&self.player, clips, CLIP_GAP) else {
            return Ok(());
        };
        // Silence for as long as the device buffers, so that when the
        // callback below runs the last word has left the speaker.
        self.player.append(silence(rate, self.latency));
        self.played += 1;
        let n = self.played;
        let tx = self.events_tx.clone();
        self.player.append(EmptyCallback::new(Box::new(move || {
            let _ = tx.send(Event::Done(n));
        })));
        // The player's own wait has no timeout; a device that stops taking
        // samples must not hold the speaker for ever.
        let deadline = Instant::now() + length + self.latency + Duration::from_secs(2);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(left) {
                Ok(Event::Done(m)) if m == n => break,
                Ok(Event::Done(_)) => continue,
                Ok(Event::Failed(e)) => return Err(e),
                Err(_) => return Err("the device stopped taking samples".to_owned()),
            }
        }
        // Returns at once: the queue has moved past the callback.
        self.player.sleep_until_end();
        Ok(())
    }
}

/// The real output: an ALSA device through rodio.
pub struct RodioOut {
    /// The configured device; `None` is the default output.
    device: Option<String>,
    opened: Option<Opened>,
}

impl RodioOut {
    /// The default output (`None`) or the named ALSA device.
    pub fn new(device: Option<String>) -> RodioOut {
        RodioOut {
            device,
            opened: None,
        }
    }
}

/// The audio host, without the panic `cpal::default_host` has when ALSA
/// cannot load its configuration.
fn audio_host() -> Result<cpal::Host, String> {
    #[cfg(any(
        target_os = "linux",
        target_os = "dragonfly",
        target_os = "freebsd",
        target_os = "netbsd"
    ))]
    {
        cpal::host_from_id(cpal::HostId::Alsa).map_err(|e| format!("ALSA is not available: {e}"))
    }
    #[cfg(not(any(
        target_os = "linux",
        target_os = "dragonfly",
        target_os = "freebsd",
        target_os = "netbsd"
    )))]
    {
        Ok(cpal::default_host())
    }
}

/// The name a device goes by in the config (its ALSA PCM name), with its
/// description when that says more.
fn device_label(d: &cpal::Device) -> String {
    let id = d.id().map(|i| i.id().to_owned()).ok();
    let name = d.description().map(|x| x.name().to_owned()).ok();
    match (id, name) {
        (Some(id), Some(name)) if name != id => format!("{id} ({name})"),
        (Some(id), _) => id,
        (None, Some(name)) => name,
        (None, None) => "unnamed device".to_owned(),
    }
}

fn matches_name(d: &cpal::Device, want: &str) -> bool {
    let id = d.id().ok();
    id.as_ref().is_some_and(|i| i.id() == want) || d.description().is_ok_and(|x| x.name() == want)
}

impl RodioOut {
    fn open_sink(
        &self,
        on_error: impl FnMut(cpal::Error) + Clone + Send + 'static,
    ) -> Result<(MixerDeviceSink, String), String> {
        let host = audio_host()?;
        let open = |d: cpal::Device| -> Result<(MixerDeviceSink, String), String> {
            let label = device_label(&d);
            let sink = DeviceSinkBuilder::from_device(d)
                .map_err(|e| format!("{label}: {}", error_chain(&e)))?
                .with_error_callback(on_error.clone())
                .open_sink_or_fallback()
                .map_err(|e| format!("{label}: {}", error_chain(&e)))?;
            Ok((sink, label))
        };
        match self.device.as_deref() {
            None | Some("default") => {
                // As rodio's `DeviceSinkBuilder::open_default_sink`: the
                // default output, else the first real device that opens.
                let default = host
                    .default_output_device()
                    .ok_or_else(|| "no default output device".to_owned())?;
                let err = match open(default) {
                    Ok(found) => return Ok(found),
                    Err(e) => e,
                };
                let others = host
                    .output_devices()
                    .map_err(|e| format!("{err}; listing the outputs failed: {e}"))?;
                others
                    .filter(|d| {
                        d.description()
                            .is_ok_and(|x| x.driver().is_some_and(|drv| drv != "null"))
                    })
                    .find_map(|d| open(d).ok())
                    .ok_or(err)
            }
            Some(want) => {
                let by_id = host.device_by_id(&cpal::DeviceId::new(host.id(), want));
                let found = match by_id {
                    Some(d) => Some(d),
                    None => host
                        .output_devices()
                        .map_err(|e| format!("listing the outputs failed: {e}"))?
                        .find(|d| matches_name(d, want)),
                };
                match found {
                    Some(d) => open(d),
                    None => {
                        let known: Vec<String> = host
                            .output_devices()
                            .map(|ds| ds.map(|d| device_label(&d)).collect())
                            .unwrap_or_default();
                        Err(format!(
                            "no output device named \"{want}\" (found: {})",
                            if known.is_empty() {
                                "none".to_owned()
                            } else {
                                known.join(", ")
                            }
                        ))
                    }
                }
            }
        }
    }
}

/// An error and its causes on one line.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cause = c.source();
    }
    s
}

impl AudioOut for RodioOut {
    fn open(&mut self) -> Result<String, String> {
        self.close();
        // No sound card at all: asking ALSA would only print its
        // complaints on stderr at every retry.
        if cfg!(target_os = "linux") && !Path::new("/dev/snd").exists() {
            let name = self.device.as_deref().unwrap_or("default");
            return Err(format!("{name}: no sound card (/dev/snd is absent)"));
        }
        let (events_tx, events) = mpsc::channel();
        let tx = events_tx.clone();
        let on_error = move |e: cpal::Error| {
            let _ = tx.send(Event::Failed(e.to_string()));
        };
        let (mut sink, label) = self.open_sink(on_error)?;
        // Closing is ours to decide and to log.
        sink.log_on_drop(false);
        let config = sink.config();
        let period = match config.buffer_size() {
            BufferSize::Fixed(frames) => {
                Duration::from_secs_f64(f64::from(*frames) / f64::from(config.sample_rate().get()))
            }
            BufferSize::Default => Duration::from_millis(50),
        };
        let player = Player::connect_new(sink.mixer());
        self.opened = Some(Opened {
            player,
            _sink: Some(sink),
            events,
            events_tx,
            // ALSA keeps two to four periods queued.
            latency: (period * 3).max(Duration::from_millis(60)),
            played: 0,
        });
        Ok(label)
    }

    fn play(&mut self, clips: &[Clip], volume: f32) -> Result<(), String> {
        let Some(o) = self.opened.as_mut() else {
            return Err("the device is not open".to_owned());
        };
        let played = o.play(clips, volume);
        if played.is_err() {
            self.close();
        }
        played
    }

    fn close(&mut self) {
        self.opened = None;
    }
}

/// rodio's device-free queue as an output: the returned queue stands in
/// for the sound card (a test or a benchmark pulls its samples as a device
/// would). `latency` is the device buffer it pretends to have.
pub struct QueueOut {
    opened: Opened,
}

impl QueueOut {
    pub fn new(latency: Duration) -> (QueueOut, rodio::queue::SourcesQueueOutput) {
        let (player, queue) = Player::new();
        let (events_tx, events) = mpsc::channel();
        let opened = Opened {
            player,
            _sink: None,
            events,
            events_tx,
            latency,
            played: 0,
        };
        (QueueOut { opened }, queue)
    }
}

impl AudioOut for QueueOut {
    fn open(&mut self) -> Result<String, String> {
        Ok("device-free queue".to_owned())
    }

    fn play(&mut self, clips: &[Clip], volume: f32) -> Result<(), String> {
        self.opened.play(clips, volume)
    }

    fn close(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    /// An `Opened` on rodio's device-free queue, and the queue itself to
    /// stand in for the device.
    fn opened() -> (Opened, rodio::queue::SourcesQueueOutput) {
        let (out, queue) = QueueOut::new(Duration::from_millis(20));
        (out.opened, queue)
    }

    fn clip(value: i16, n: usize) -> Clip {
        Clip {
            rate: 8_000,
            samples: Cow::Owned(vec![value; n]),
        }
    }

    /// A "device" that takes samples in real time, in 10 ms periods.
    fn device(mut queue: rodio::queue::SourcesQueueOutput) -> thread::JoinHandle<Vec<f32>> {
        thread::spawn(move || {
            let mut heard = Vec::new();
            let start = Instant::now();
            while start.elapsed() < Duration::from_millis(600) {
                heard.extend(queue.by_ref().take(80));
                thread::sleep(Duration::from_millis(10));
            }
            heard
        })
    }

    #[test]
    fn play_returns_after_the_callout_has_been_taken_by_the_device() {
        let (mut o, queue) = opened();
        let dev = device(queue);
        let t = Instant::now();
        let played = o.play(&[clip(8_000, 800), clip(-8_000, 400)], 0.5);
        assert_eq!(played, Ok(()));
        // 100 ms + gap + 50 ms + latency: it waited for the device.
        assert!(t.elapsed() >= Duration::from_millis(150));
        assert!(o.player.empty());
        let heard = dev.join().unwrap();
        let loud: Vec<f32> = heard.into_iter().filter(|s| *s != 0.0).collect();
        assert_eq!(loud.len(), 1_200);
        assert!(
            (loud[0] - 0.122).abs() < 0.001,
            "volume not applied: {}",
            loud[0]
        );
        assert!(loud[1_199] < 0.0);
    }

    #[test]
    fn a_device_error_ends_play_with_an_err() {
        let (mut o, _queue) = opened();
        o.events_tx
            .send(Event::Failed("unplugged".to_owned()))
            .unwrap();
        assert_eq!(o.play(&[clip(1_000, 80)], 1.0), Err("unplugged".to_owned()));
    }
}

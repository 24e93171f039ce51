//! The outputs the speaker thread plays through: an ALSA device through
//! rodio (found by name or, for "auto", the card `cards.rs` ranks first;
//! proved by a short silence; watched in the card list while idle; its
//! errors, its latency), and rodio's device-free queue standing in for
//! one. It never decides which callout plays or when, and never makes a
//! callout's sound (that is `sound.rs`).

use std::borrow::Cow;
use std::path::Path;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use rodio::cpal::traits::{DeviceTrait, HostTrait};
use rodio::cpal::{self, BufferSize};
use rodio::source::EmptyCallback;
use rodio::{DeviceSinkBuilder, MixerDeviceSink, Player};

use super::sound::{append_callout, silence};
use super::{AudioOut, CLIP_GAP};
use crate::speaker::cards::{self, Card, PROC_CARDS, ReadCards};
use crate::speaker::pack::Clip;

/// What [`AudioOut::prove`] plays: long enough to pass through the
/// device's buffer, too short to delay a callout that is waiting.
const PROOF: Duration = Duration::from_millis(100);

/// What the audio thread tells the speaker thread.
enum Event {
    /// The callout with this number has been handed to the device in full.
    Done(u64),
    /// The device reported an error (unplugged, broken stream).
    Failed(String),
    /// The device ran out of samples (or the machine was too busy to hand
    /// them over in time): a glitch ALSA recovers from, not a failure.
    Underrun,
}

impl Event {
    /// What the audio stack's error means for the speaker.
    fn from_error(e: &cpal::Error) -> Event {
        match e.kind() {
            cpal::ErrorKind::Xrun => Event::Underrun,
            _ => Event::Failed(e.to_string()),
        }
    }
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
    /// A failure the device reported while idle (the DAC was unplugged).
    fn failure(&self) -> Option<String> {
        while let Ok(ev) = self.events.try_recv() {
            if let Event::Failed(e) = ev {
                return Some(e);
            }
        }
        None
    }

    /// Plays one callout and waits until it has left the speaker.
    fn play(&mut self, clips: &[Clip], volume: f32) -> Result<(), String> {
        if let Some(e) = self.failure() {
            return Err(e);
        }
        let mut underruns = 0u32;
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
                Ok(Event::Underrun) => underruns += 1,
                Ok(Event::Failed(e)) => return Err(e),
                Err(_) => return Err("the device stopped taking samples".to_owned()),
            }
        }
        // Returns at once: the queue has moved past the callback.
        self.player.sleep_until_end();
        if underruns > 0 {
            tracing::warn!(
                underruns,
                "the sound card ran out of samples during a callout (the machine was too busy): \
                 it may have stuttered"
            );
        }
        Ok(())
    }
}

/// The real output: an ALSA device through rodio.
pub struct RodioOut {
    /// The configured device; `None` is "auto" (see [`cards`]).
    device: Option<String>,
    /// The kernel's card list, read at each open and while idle.
    cards: ReadCards,
    /// The card the open device is on, when it is known by id: watched
    /// for in the card list while idle.
    card: Option<Card>,
    opened: Option<Opened>,
}

impl RodioOut {
    /// "auto" (`None`), `default` or a named ALSA device.
    pub fn new(device: Option<String>) -> RodioOut {
        RodioOut::with_cards(device, Box::new(cards::read_proc))
    }

    /// [`RodioOut::new`] reading the card list from `cards` instead of
    /// `/proc/asound/cards`.
    pub fn with_cards(device: Option<String>, cards: ReadCards) -> RodioOut {
        RodioOut {
            device,
            cards,
            card: None,
            opened: None,
        }
    }

    /// The cards listed now; empty when the list cannot be read.
    fn listed(&self) -> Result<Vec<Card>, String> {
        (self.cards)()
            .map(|text| cards::parse(&text))
            .map_err(|e| format!("{PROC_CARDS}: {e}"))
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

/// How a device is opened: rodio's sink on it, with our error callback;
/// the error names the device.
type OpenDevice<'a> = dyn Fn(cpal::Device) -> Result<(MixerDeviceSink, String), String> + 'a;

impl RodioOut {
    /// Opens the configured device; returns the sink, the name the panel
    /// shows, and the card it is on when that is known.
    fn open_sink(
        &self,
        on_error: impl FnMut(cpal::Error) + Clone + Send + 'static,
    ) -> Result<(MixerDeviceSink, String, Option<Card>), String> {
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
            None => {
                let listed = self.listed().map_err(|e| format!("no sound card: {e}"))?;
                if listed.is_empty() {
                    return Err(format!("no sound card ({PROC_CARDS} lists none)"));
                }
                // In the order "auto" prefers them; the next one when a
                // card will not play (a webcam's microphone is USB-Audio).
                let mut failed = Vec::new();
                for card in cards::ranked(&listed) {
                    match open_named(&host, &card.pcm(), &open) {
                        Ok((sink, _)) => return Ok((sink, card.label(), Some(card.clone()))),
                        Err(e) => failed.push(e),
                    }
                }
                Err(format!("no sound card would play: {}", failed.join("; ")))
            }
            Some("default") => {
                // As rodio's `DeviceSinkBuilder::open_default_sink`: the
                // default output, else the first real device that opens.
                let default = host
                    .default_output_device()
                    .ok_or_else(|| "no default output device".to_owned())?;
                let err = match open(default) {
                    Ok((sink, label)) => return Ok((sink, label, None)),
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
                    .map(|(sink, label)| (sink, label, None))
                    .ok_or(err)
            }
            Some(want) => {
                let (sink, label) = open_named(&host, want, &open)?;
                // Named by its card's id: watched, and named as "auto"
                // names it.
                let card = cards::card_of(want).and_then(|id| {
                    let listed = self.listed().ok()?;
                    listed.into_iter().find(|c| c.id == id)
                });
                match card {
                    Some(card) => Ok((sink, format!("{} ({want})", card.name), Some(card))),
                    None => Ok((sink, label, None)),
                }
            }
        }
    }
}

/// The output device ALSA knows as `want` (`plughw:CARD=Device,DEV=0`),
/// or by that description, opened.
fn open_named(
    host: &cpal::Host,
    want: &str,
    open: &OpenDevice<'_>,
) -> Result<(MixerDeviceSink, String), String> {
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
            let name = self.device.as_deref().unwrap_or("auto");
            return Err(format!("{name}: no sound card (/dev/snd is absent)"));
        }
        let (events_tx, events) = mpsc::channel();
        let tx = events_tx.clone();
        let on_error = move |e: cpal::Error| {
            let _ = tx.send(Event::from_error(&e));
        };
        let (mut sink, label, card) = self.open_sink(on_error)?;
        self.card = card;
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

    /// A short silence played to the end: the stream pulled it through
    /// the device's buffer, so the card takes samples.
    fn prove(&mut self) -> Result<(), String> {
        let silence = Clip {
            rate: 16_000,
            samples: Cow::Owned(vec![0; (16_000 * PROOF.as_millis() / 1000) as usize]),
        };
        self.play(&[silence], 1.0)
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

    /// The stream's errors since the last callout, and whether the card
    /// is still in the kernel's list: a USB DAC pulled while idle is gone
    /// from it at once, whatever the stream has noticed.
    fn check(&mut self) -> Result<(), String> {
        let Some(o) = self.opened.as_ref() else {
            return Err("the device is not open".to_owned());
        };
        if let Some(e) = o.failure() {
            self.close();
            return Err(format!("the audio device failed: {e}"));
        }
        let Some(card) = &self.card else {
            return Ok(());
        };
        match self.listed() {
            Ok(listed) if !listed.iter().any(|c| c.id == card.id) => {
                let gone = format!(
                    "{} is no longer in {PROC_CARDS} (unplugged?): it is opened again when it \
                     is back",
                    card.label()
                );
                self.close();
                Err(gone)
            }
            Ok(_) => Ok(()),
            // Not a reason to drop a device that plays: the stream's own
            // errors still say when it goes.
            Err(e) => {
                tracing::debug!("{e}");
                Ok(())
            }
        }
    }

    /// "auto" on a card it ranks below one listed now: a USB DAC pulled
    /// and plugged back while the jack stood in for it is spoken through
    /// again, as it would be after a restart.
    fn better(&mut self) -> Option<String> {
        if self.device.is_some() {
            return None;
        }
        let open = self.card.as_ref()?;
        let listed = self.listed().ok()?;
        let best = cards::choose(&listed)?;
        (best.kind() < open.kind()).then(|| {
            format!(
                "{} is there, preferred to {}: the speaker moves to it",
                best.label(),
                open.label()
            )
        })
    }

    fn close(&mut self) {
        self.opened = None;
        self.card = None;
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
    use std::thread;

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

    /// An underrun (the machine too busy to feed the card) is a glitch
    /// ALSA recovers from: the callout plays on. Any other error ends it.
    #[test]
    fn an_underrun_is_not_a_device_failure() {
        let (mut o, queue) = opened();
        let dev = device(queue);
        let xrun = cpal::Error::from(cpal::ErrorKind::Xrun);
        assert!(matches!(Event::from_error(&xrun), Event::Underrun));
        o.events_tx.send(Event::from_error(&xrun)).unwrap();
        assert_eq!(o.play(&[clip(1_000, 80)], 1.0), Ok(()));
        assert_eq!(
            dev.join().unwrap().iter().filter(|s| **s != 0.0).count(),
            80
        );
        let gone = cpal::Error::from(cpal::ErrorKind::DeviceNotAvailable);
        assert!(matches!(Event::from_error(&gone), Event::Failed(_)));
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

//! The speaker thread: it owns the device and plays the callouts one
//! after another, holds those said while there is no device (said on its
//! return if still current, else dropped), drops a stale one, checks an
//! open device while idle, looks for a missing one every `retry`, and
//! publishes the state the panel shows. A panic in an output is caught
//! and taken as the device failing.

use std::collections::VecDeque;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tracing::{debug, info, warn};

use super::{AudioOut, QUEUE_LEN, SpeakerSettings, SpeakerState, Utterance};

/// The speaker thread's side.
pub(super) struct Worker {
    settings: SpeakerSettings,
    out: Box<dyn AudioOut>,
    rx: Receiver<Utterance>,
    state: Arc<watch::Sender<SpeakerState>>,
    dropped_stale: Arc<AtomicU64>,
    /// The time: `Instant::now`, or a clock a unit test moves.
    clock: Box<dyn Fn() -> Instant + Send>,
    /// The device is open, has taken samples, and has not failed since.
    open: bool,
    /// The device is missing and the outage has been reported at warn:
    /// later failures of the same outage log at debug only.
    in_outage: bool,
    /// When to look for a missing device again while idle.
    next_attempt: Instant,
    /// When to check the open device again while idle.
    next_check: Instant,
    /// Callouts that came while there was no device, oldest first: said
    /// when it is back if they are still current, dropped once stale. At
    /// most [`QUEUE_LEN`].
    pending: VecDeque<Utterance>,
}

impl Worker {
    pub(super) fn new(
        settings: SpeakerSettings,
        out: Box<dyn AudioOut>,
        rx: Receiver<Utterance>,
        state: Arc<watch::Sender<SpeakerState>>,
        dropped_stale: Arc<AtomicU64>,
        clock: Box<dyn Fn() -> Instant + Send>,
    ) -> Worker {
        let now = clock();
        Worker {
            settings,
            out,
            rx,
            state,
            dropped_stale,
            clock,
            open: false,
            in_outage: false,
            next_attempt: now,
            next_check: now,
            pending: VecDeque::new(),
        }
    }

    fn now(&self) -> Instant {
        (self.clock)()
    }

    pub(super) fn run(mut self) {
        self.try_open();
        loop {
            // Block on the channel: an utterance, or time to check the
            // device, look for it again or drop a stale callout. Never a
            // busy loop.
            let wait = self.next_wake().saturating_duration_since(self.now());
            match self.rx.recv_timeout(wait) {
                Ok(u) => self.take(u),
                Err(RecvTimeoutError::Timeout) => self.tick(),
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        if self.open {
            self.close();
        }
        debug!("speaker thread ends");
    }

    /// When [`Worker::tick`] has something to do.
    fn next_wake(&self) -> Instant {
        if self.open {
            return self.next_check;
        }
        // Just past the oldest callout's staleness, so that it is dropped
        // then, not when the device comes back.
        let stale = self
            .pending
            .front()
            .map(|u| u.queued_at + self.settings.stale_after + Duration::from_millis(1));
        stale.map_or(self.next_attempt, |s| s.min(self.next_attempt))
    }

    /// A callout from the lane: said now, or held until the device is back.
    fn take(&mut self, u: Utterance) {
        if self.open {
            self.speak(u);
            return;
        }
        self.hold(u);
        // A callout is a reason to look for the device now rather than at
        // the next retry: a DAC plugged in since is heard at once.
        self.try_open();
        self.say_held();
    }

    /// Time passed: check the open device, or drop what is stale and look
    /// for the missing one.
    fn tick(&mut self) {
        let now = self.now();
        if self.open {
            if now >= self.next_check {
                self.check();
            }
            return;
        }
        self.drop_stale_held();
        if now >= self.next_attempt {
            self.try_open();
            self.say_held();
        }
    }

    fn hold(&mut self, u: Utterance) {
        if u.clips.is_empty() {
            return;
        }
        self.pending.push_back(u);
        if self.pending.len() > QUEUE_LEN {
            self.pending.pop_front();
            self.dropped_stale.fetch_add(1, Ordering::Relaxed);
            info!(
                "callout dropped: {QUEUE_LEN} newer ones are waiting for the sound card                  (the oldest would be stale)"
            );
        }
    }

    fn drop_stale_held(&mut self) {
        let now = self.now();
        let stale_after = self.settings.stale_after;
        while let Some(u) = self.pending.front() {
            let waited = now.saturating_duration_since(u.queued_at);
            if waited <= stale_after {
                break;
            }
            self.pending.pop_front();
            self.dropped_stale.fetch_add(1, Ordering::Relaxed);
            info!(
                waited_ms = waited.as_millis() as u64,
                "callout dropped: it waited for the sound card longer than stale_after ({} ms)",
                stale_after.as_millis()
            );
        }
    }

    /// The callouts held while there was no device, now that it is back.
    fn say_held(&mut self) {
        while self.open
            && let Some(u) = self.pending.pop_front()
        {
            self.speak(u);
        }
    }

    fn speak(&mut self, u: Utterance) {
        let waited = self.now().saturating_duration_since(u.queued_at);
        if waited > self.settings.stale_after {
            self.dropped_stale.fetch_add(1, Ordering::Relaxed);
            info!(
                waited_ms = waited.as_millis() as u64,
                "callout dropped: it waited too long to be read (stale_after {} ms)",
                self.settings.stale_after.as_millis()
            );
            return;
        }
        if u.clips.is_empty() {
            return;
        }
        let volume = usable_volume(self.settings.volume);
        let out = &mut self.out;
        let played = panic::catch_unwind(AssertUnwindSafe(|| out.play(&u.clips, volume)))
            .unwrap_or_else(|_| Err("the audio output panicked".to_owned()));
        match played {
            Ok(()) => self.next_check = self.now() + self.settings.watch,
            Err(reason) => {
                self.close();
                self.outage(format!("the audio device failed: {reason}"));
                // Said again, whole, if the device is back in time.
                self.pending.push_front(u);
            }
        }
    }

    /// Opens the device, and calls it ready only once it has taken samples.
    fn try_open(&mut self) {
        let out = &mut self.out;
        let opened = panic::catch_unwind(AssertUnwindSafe(|| {
            let device = out.open()?;
            out.prove()
                .map(|()| device.clone())
                .map_err(|e| format!("{device} opened but took no samples: {e}"))
        }))
        .unwrap_or_else(|_| Err("the audio output panicked while opening".to_owned()));
        match opened {
            Ok(device) => {
                self.open = true;
                self.in_outage = false;
                self.next_check = self.now() + self.settings.watch;
                info!(device = %device, "speaker ready");
                self.state.send_replace(SpeakerState::Ready { device });
            }
            Err(reason) => {
                self.close();
                self.outage(reason);
            }
        }
    }

    /// Whether the open device is still there, while idle.
    fn check(&mut self) {
        self.next_check = self.now() + self.settings.watch;
        let out = &mut self.out;
        let checked = panic::catch_unwind(AssertUnwindSafe(|| out.check()))
            .unwrap_or_else(|_| Err("the audio output panicked while checked".to_owned()));
        if let Err(reason) = checked {
            self.close();
            self.outage(reason);
            return;
        }
        let out = &mut self.out;
        let better = panic::catch_unwind(AssertUnwindSafe(|| out.better())).unwrap_or(None);
        if let Some(why) = better {
            info!("{why}");
            self.close();
            self.try_open();
        }
    }

    /// The device is missing or failed: say so once per outage, and look
    /// for it again after `retry`.
    fn outage(&mut self, reason: String) {
        self.open = false;
        self.next_attempt = self.now() + self.settings.retry;
        if self.in_outage {
            debug!(reason = %reason, "still no audio device");
        } else {
            self.in_outage = true;
            warn!(
                reason = %reason,
                "no audio device: callouts wait for it at most stale_after and the lane scores \
                 silently; looking again every {:?}",
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

#[cfg(test)]
mod tests {
    //! The speaker thread's decisions, driven without the thread: the
    //! test moves the clock and calls what the thread calls when it wakes.

    use super::*;
    use std::borrow::Cow;
    use std::sync::mpsc;

    use crate::speaker::pack::Clip;
    use std::sync::Mutex;

    /// A card the test plugs and pulls; it records what it played.
    #[derive(Default)]
    struct Card {
        /// Listed by the kernel (as in /proc/asound/cards).
        present: bool,
        /// Opens, but its stream never takes a sample.
        stuck: bool,
        opens: usize,
        proved: usize,
        played: Vec<i16>,
    }

    struct FakeOut(Arc<Mutex<Card>>);

    impl AudioOut for FakeOut {
        fn open(&mut self) -> Result<String, String> {
            let mut c = self.0.lock().unwrap();
            c.opens += 1;
            match c.present {
                true => Ok("USB Audio Device (plughw:CARD=Device,DEV=0)".to_owned()),
                false => Err("no sound card (/proc/asound/cards lists none)".to_owned()),
            }
        }
        fn prove(&mut self) -> Result<(), String> {
            let mut c = self.0.lock().unwrap();
            match c.stuck {
                true => Err("the device stopped taking samples".to_owned()),
                false => {
                    c.proved += 1;
                    Ok(())
                }
            }
        }
        fn play(&mut self, clips: &[Clip], _volume: f32) -> Result<(), String> {
            let mut c = self.0.lock().unwrap();
            if !c.present {
                return Err("unplugged".to_owned());
            }
            c.played.extend(clips.iter().map(|clip| clip.samples[0]));
            Ok(())
        }
        fn check(&mut self) -> Result<(), String> {
            match self.0.lock().unwrap().present {
                true => Ok(()),
                false => Err("USB Audio Device is no longer in /proc/asound/cards".to_owned()),
            }
        }
        fn close(&mut self) {}
    }

    struct Bench {
        worker: Worker,
        card: Arc<Mutex<Card>>,
        clock: Arc<Mutex<Instant>>,
        start: Instant,
    }

    impl Bench {
        fn new(present: bool) -> Bench {
            let card = Arc::new(Mutex::new(Card {
                present,
                ..Card::default()
            }));
            let start = Instant::now();
            let clock = Arc::new(Mutex::new(start));
            let time = clock.clone();
            let (_tx, rx) = mpsc::sync_channel(1);
            let settings = SpeakerSettings {
                stale_after: Duration::from_secs(8),
                ..SpeakerSettings::default()
            };
            let worker = Worker::new(
                settings,
                Box::new(FakeOut(card.clone())),
                rx,
                Arc::new(watch::Sender::new(SpeakerState::NoDevice {
                    reason: "not opened yet".to_owned(),
                })),
                Arc::new(AtomicU64::new(0)),
                Box::new(move || *time.lock().unwrap()),
            );
            Bench {
                worker,
                card,
                clock,
                start,
            }
        }

        fn at(&self, secs: f64) -> Instant {
            self.start + Duration::from_secs_f64(secs)
        }

        /// Sets the clock to `secs` after the start.
        fn set(&self, secs: f64) {
            *self.clock.lock().unwrap() = self.at(secs);
        }

        /// Lets the thread sleep until it would wake, then wake: returns
        /// when that was, in seconds after the start.
        fn wake(&mut self) -> f64 {
            let when = self.worker.next_wake();
            *self.clock.lock().unwrap() = when;
            self.worker.tick();
            when.duration_since(self.start).as_secs_f64()
        }

        fn say(&mut self, word: i16, queued_at: f64) {
            let u = Utterance {
                clips: vec![Clip {
                    rate: 16_000,
                    samples: Cow::Owned(vec![word; 16]),
                }],
                queued_at: self.at(queued_at),
            };
            self.worker.take(u);
        }

        fn state(&self) -> SpeakerState {
            self.worker.state.borrow().clone()
        }

        fn played(&self) -> Vec<i16> {
            self.card.lock().unwrap().played.clone()
        }
    }

    #[test]
    fn ready_is_said_only_once_the_card_took_samples() {
        let mut b = Bench::new(true);
        b.card.lock().unwrap().stuck = true;
        b.worker.try_open();
        match b.state() {
            SpeakerState::NoDevice { reason } => {
                assert!(reason.contains("opened but took no samples"), "{reason}")
            }
            s => panic!("{s:?}"),
        }
        assert_eq!(b.card.lock().unwrap().proved, 0);
        // Looked at again after `retry`: this time the samples go through.
        b.card.lock().unwrap().stuck = false;
        assert_eq!(b.wake(), 5.0);
        assert_eq!(
            b.state(),
            SpeakerState::Ready {
                device: "USB Audio Device (plughw:CARD=Device,DEV=0)".to_owned()
            }
        );
        assert_eq!(b.card.lock().unwrap().proved, 1);
    }

    #[test]
    fn a_card_pulled_while_idle_is_seen_within_5_s() {
        let mut b = Bench::new(true);
        b.worker.try_open();
        assert!(matches!(b.state(), SpeakerState::Ready { .. }));
        // Idle, the card is looked at, and nothing changes while it is in.
        assert_eq!(b.wake(), 2.0);
        assert!(matches!(b.state(), SpeakerState::Ready { .. }));
        b.set(2.5);
        b.card.lock().unwrap().present = false;
        let seen = b.wake();
        assert!(seen - 2.5 <= 5.0, "seen {seen} s, pulled at 2.5 s");
        match b.state() {
            SpeakerState::NoDevice { reason } => {
                assert!(
                    reason.contains("no longer in /proc/asound/cards"),
                    "{reason}"
                )
            }
            s => panic!("{s:?}"),
        }
        // Plugged back in: opened again at the next retry.
        b.card.lock().unwrap().present = true;
        assert_eq!(b.wake(), seen + 5.0);
        assert!(matches!(b.state(), SpeakerState::Ready { .. }));
    }

    #[test]
    fn a_callout_due_while_the_card_is_away_is_said_when_it_is_back_in_time() {
        let mut b = Bench::new(false);
        b.worker.try_open();
        assert!(matches!(b.state(), SpeakerState::NoDevice { .. }));
        b.set(1.0);
        b.say(7, 1.0);
        assert!(b.played().is_empty());
        b.card.lock().unwrap().present = true;
        // The retry, 5 s after the last look (at 1 s, for the callout):
        // 5 s old, within stale_after's 8.
        assert_eq!(b.wake(), 6.0);
        assert_eq!(b.played(), [7]);
        assert_eq!(b.worker.dropped_stale.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn a_callout_that_waited_past_stale_after_for_the_card_is_dropped() {
        let mut b = Bench::new(false);
        b.worker.try_open();
        b.set(1.0);
        b.say(7, 1.0);
        b.set(4.0);
        b.say(10, 4.0);
        // Still away: the first callout is dropped once 8 s old, the
        // second kept.
        while b.wake() <= 9.0 {}
        assert_eq!(b.worker.dropped_stale.load(Ordering::Relaxed), 1);
        assert_eq!(b.worker.pending.len(), 1);
        assert!(b.played().is_empty());
        // Back, but found only after the second has gone stale too.
        b.card.lock().unwrap().present = true;
        while !matches!(b.state(), SpeakerState::Ready { .. }) {
            assert!(b.wake() < 20.0);
        }
        assert!(b.played().is_empty());
        assert_eq!(b.worker.dropped_stale.load(Ordering::Relaxed), 2);
        assert!(b.worker.pending.is_empty());
    }

    #[test]
    fn a_callout_cut_by_a_pulled_card_is_said_again_whole_when_it_is_back() {
        let mut b = Bench::new(true);
        b.worker.try_open();
        b.card.lock().unwrap().present = false;
        b.set(1.0);
        b.say(7, 1.0);
        assert!(matches!(b.state(), SpeakerState::NoDevice { .. }));
        assert!(b.played().is_empty());
        b.card.lock().unwrap().present = true;
        assert_eq!(b.wake(), 6.0);
        assert_eq!(b.played(), [7]);
    }
}

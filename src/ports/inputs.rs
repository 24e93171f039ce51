//! The lane's input channel: every source (the pinsetter link, the GPIO,
//! the panel, the demo) sends its [`Input`]s through one [`InputSender`]
//! to the lane's thread, in one order, the journal's.
//!
//! The channel is bounded ([`CAPACITY`] inputs): a pinsetter line full of
//! noise at full speed must not queue millions of lines (gigabytes, and
//! minutes before a good line behind them is journaled). When it fills up,
//! what gives way is noise, never a reading that means something:
//!
//! - A serial line that does not parse as a pinsetter message
//!   ([`crate::pinsetter::parse_line`]) is dropped and counted
//!   (`shed_serial`) once a sixteenth of the queue is taken
//!   ([`noise_limit`], 64 inputs): noise, which comes faster than anything
//!   else, takes at most that many places, so a judge's action or a ball
//!   that comes behind it is in the next write the lane's thread makes
//!   (what is queued when a write begins is written and synced together,
//!   up to 256 inputs), not behind a queue full of noise. Below that
//!   nothing is parsed here, and noise is journaled like any line.
//! - A serial line that parses waits for room: the serial task sleeps a
//!   moment and tries again ([`InputSender::send`], backing off from 1 to
//!   20 ms), so it never blocks the runtime, and while it waits it reads
//!   nothing, so the port's own buffer holds what follows. The lane's
//!   order is kept: a good line is queued behind the noise already in,
//!   never ahead of it (a reading's time must not go back).
//! - A foul-beam "broken" edge is shed and counted (`shed_beam`): a beam
//!   that flaps faster than the lane can journal is a fault. Its "clear"
//!   edge waits for room, never shed: a lane that saw the beam broken and
//!   never clear would take it for a person standing on the line (a foul).
//!   A clear edge without its break is ignored by the core.
//! - The ball detector, the channel sensors and the rail buttons wait for
//!   room: they are sent from the GPIO's own thread, which may block.
//! - A panel action waits like a good serial line, on the runtime without
//!   blocking it.
//!
//! Nothing here reads or judges a line beyond that: whatever is sent is
//! journaled, good or bad, and the core rejects it with its reason.
//!
//! A scripted clock's step ([`super::clock`]) is marked on the queue in
//! its place ([`InputSender::send_step`]) and waits for room like a good
//! serial line; the lane's thread takes it from its clock when it comes to
//! the mark ([`InputReceiver::take`]). [`InputReceiver::recv`] and its
//! kin pass over the marks.
//!
//! The stop goes beside the queue, not behind it: [`InputSender::stop`]
//! sets a flag the lane's thread looks at every turn, so a full queue
//! cannot hold a SIGTERM back.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{
    self, Receiver, RecvError, RecvTimeoutError, SyncSender, TryRecvError, TrySendError,
};
use std::time::{Duration, Instant};

use super::{Input, Reading};
use crate::lane::Sensor;

/// Inputs queued for the lane at most. Far more than a lane makes in a
/// second (a few per ball), small in memory (a line is 128 bytes at most).
pub const CAPACITY: usize = 1024;

/// The longest a waiting sender sleeps between two tries.
const MAX_WAIT: Duration = Duration::from_millis(20);

/// The lane's thread is gone: nothing can be sent any more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the lane's thread is gone")]
pub struct Closed;

/// What happened to a serial line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sent {
    Queued,
    /// Noise, dropped because the queue was full: the line, for the log.
    Shed(String),
}

/// What the queue holds: an input, or the mark of a scripted clock's step.
#[derive(Debug)]
enum Queued {
    Input(Input),
    Step,
}

/// What the lane's thread takes from the queue.
#[derive(Debug)]
pub enum Taken {
    Input(Input),
    /// Its clock has a step for it ([`super::LaneClock::step`]).
    Step,
}

/// One try at sending: a full queue gives the input back to retry or shed.
enum Tried {
    Sent,
    Full(Queued),
    Closed,
}

/// The channel's counts, shared by every sender and the lane's thread.
#[derive(Debug, Default)]
pub struct InputStats {
    sent: AtomicU64,
    taken: AtomicU64,
    shed_serial: AtomicU64,
    shed_beam: AtomicU64,
    stop: AtomicBool,
    /// The receiver is gone: noise that would be shed says so instead.
    closed: AtomicBool,
}

impl InputStats {
    /// Inputs ever queued.
    pub fn sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }
    /// Inputs sent and not yet taken by the lane.
    pub fn queued(&self) -> u64 {
        let taken = self.taken.load(Ordering::Relaxed);
        self.sent().saturating_sub(taken)
    }
    /// Serial lines that did not parse, dropped on a full queue.
    pub fn shed_serial(&self) -> u64 {
        self.shed_serial.load(Ordering::Relaxed)
    }
    /// Foul-beam edges dropped on a full queue.
    pub fn shed_beam(&self) -> u64 {
        self.shed_beam.load(Ordering::Relaxed)
    }
    /// Whether the daemon is stopping.
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Where sensors and the panel send their inputs.
#[derive(Clone, Debug)]
pub struct InputSender {
    tx: SyncSender<Queued>,
    stats: Arc<InputStats>,
    /// Past this many queued, noise is shed.
    noise_limit: u64,
}

/// Where the lane's thread takes its inputs: the std receiver, counting
/// what it takes so that the senders know how full the queue is.
#[derive(Debug)]
pub struct InputReceiver {
    rx: Receiver<Queued>,
    stats: Arc<InputStats>,
}

/// How many inputs may be queued before noise is shed: a sixteenth of the
/// queue (one at least).
pub fn noise_limit(capacity: usize) -> u64 {
    (capacity / 16).max(1) as u64
}

/// A bounded input channel: the sender for the sources, the receiver for
/// the lane's thread.
pub fn channel(capacity: usize) -> (InputSender, InputReceiver) {
    let (tx, rx) = mpsc::sync_channel(capacity);
    let stats = Arc::new(InputStats::default());
    let receiver = InputReceiver {
        rx,
        stats: Arc::clone(&stats),
    };
    let noise_limit = noise_limit(capacity);
    (
        InputSender {
            tx,
            stats,
            noise_limit,
        },
        receiver,
    )
}

impl Drop for InputReceiver {
    fn drop(&mut self) {
        self.stats.closed.store(true, Ordering::Relaxed);
    }
}

impl InputReceiver {
    /// The channel's counts and stop flag.
    pub fn stats(&self) -> Arc<InputStats> {
        Arc::clone(&self.stats)
    }

    fn took<T>(&self, r: Result<Queued, T>) -> Result<Queued, T> {
        if r.is_ok() {
            self.stats.taken.fetch_add(1, Ordering::Relaxed);
        }
        r
    }

    /// The next input or step, waiting at most `timeout`.
    pub fn take(&self, timeout: Duration) -> Result<Taken, RecvTimeoutError> {
        Ok(match self.took(self.rx.recv_timeout(timeout))? {
            Queued::Input(input) => Taken::Input(input),
            Queued::Step => Taken::Step,
        })
    }

    /// The next input or step already queued, without waiting.
    pub fn try_take(&self) -> Option<Taken> {
        Some(match self.took(self.rx.try_recv()).ok()? {
            Queued::Input(input) => Taken::Input(input),
            Queued::Step => Taken::Step,
        })
    }

    /// The next input, passing over the steps' marks.
    pub fn recv(&self) -> Result<Input, RecvError> {
        loop {
            if let Queued::Input(input) = self.took(self.rx.recv())? {
                return Ok(input);
            }
        }
    }

    /// The next input within `timeout`, passing over the steps' marks.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<Input, RecvTimeoutError> {
        let until = Instant::now() + timeout;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if let Queued::Input(input) = self.took(self.rx.recv_timeout(left))? {
                return Ok(input);
            }
        }
    }

    /// An input already queued, passing over the steps' marks.
    pub fn try_recv(&self) -> Result<Input, TryRecvError> {
        loop {
            if let Queued::Input(input) = self.took(self.rx.try_recv())? {
                return Ok(input);
            }
        }
    }
}

impl InputSender {
    /// The counts, for the lane's thread to publish.
    pub fn stats(&self) -> Arc<InputStats> {
        Arc::clone(&self.stats)
    }

    fn try_send(&self, input: Input) -> Tried {
        self.try_queue(Queued::Input(input))
    }

    fn try_queue(&self, queued: Queued) -> Tried {
        match self.tx.try_send(queued) {
            Ok(()) => {
                self.stats.sent.fetch_add(1, Ordering::Relaxed);
                Tried::Sent
            }
            Err(TrySendError::Full(back)) => Tried::Full(back),
            Err(TrySendError::Disconnected(_)) => Tried::Closed,
        }
    }

    /// Sends, waiting for room without blocking the runtime. Gives up
    /// when the daemon stops (what waited is not journaled then).
    pub async fn send(&self, input: Input) -> Result<(), Closed> {
        self.queue(Queued::Input(input)).await
    }

    /// Marks a scripted clock's step in its place among the inputs
    /// ([`super::ScriptFeed::send`]), waiting for room like
    /// [`InputSender::send`].
    pub async fn send_step(&self) -> Result<(), Closed> {
        self.queue(Queued::Step).await
    }

    /// [`InputSender::send_step`] from a thread that may block.
    pub fn send_step_blocking(&self) -> Result<(), Closed> {
        self.tx.send(Queued::Step).map_err(|_| Closed)?;
        self.stats.sent.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    async fn queue(&self, mut queued: Queued) -> Result<(), Closed> {
        let mut wait = Duration::from_millis(1);
        loop {
            match self.try_queue(queued) {
                Tried::Sent => return Ok(()),
                Tried::Closed => return Err(Closed),
                Tried::Full(back) => queued = back,
            }
            if self.stats.stopping() {
                return Err(Closed);
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(MAX_WAIT);
        }
    }

    /// Sends from a thread that may block (the GPIO's), waiting for room.
    pub fn send_blocking(&self, input: Input) -> Result<(), Closed> {
        self.tx.send(Queued::Input(input)).map_err(|_| Closed)?;
        self.stats.sent.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// A pinsetter line read at `at`: queued, or on a nearly full queue
    /// dropped if it does not parse and waited for if it does.
    pub async fn send_serial(&self, line: String, at: Instant) -> Result<Sent, Closed> {
        let input = Input::Reading(Reading {
            at,
            sensor: Sensor::Serial { line },
        });
        // Below the limit nothing is parsed here: that is the core's work,
        // after the journal has the line.
        if self.stats.closed.load(Ordering::Relaxed) {
            return Err(Closed);
        }
        let input = if self.stats.queued() < self.noise_limit {
            match self.try_send(input) {
                Tried::Sent => return Ok(Sent::Queued),
                Tried::Closed => return Err(Closed),
                Tried::Full(back) => back,
            }
        } else {
            Queued::Input(input)
        };
        match input {
            Queued::Input(Input::Reading(Reading {
                sensor: Sensor::Serial { line },
                ..
            })) if crate::pinsetter::parse_line(&line).is_err() => {
                self.stats.shed_serial.fetch_add(1, Ordering::Relaxed);
                Ok(Sent::Shed(line))
            }
            queued => self.queue(queued).await.map(|()| Sent::Queued),
        }
    }

    /// A foul-beam edge, from a thread that may block: a break is queued
    /// or shed (and counted) on a full queue; a clear waits for room.
    pub fn send_beam(&self, input: Input) -> Result<(), Closed> {
        let clear = matches!(
            input,
            Input::Reading(Reading {
                sensor: Sensor::FoulBeam { broken: false },
                ..
            })
        );
        if clear {
            return self.send_blocking(input);
        }
        match self.try_send(input) {
            Tried::Sent => Ok(()),
            Tried::Closed => Err(Closed),
            Tried::Full(_) => {
                self.stats.shed_beam.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
        }
    }

    /// Tells the lane's thread to stop, however full its queue: it sees
    /// the flag at its next turn; a [`Input::Shutdown`] wakes it if it
    /// sleeps on an empty queue.
    pub fn stop(&self) {
        self.stats.stop.store(true, Ordering::Relaxed);
        let _ = self.try_send(Input::Shutdown);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serial(line: &str) -> Input {
        Input::now(Sensor::Serial { line: line.into() })
    }

    const READY: &str = "$PS,READY,0,1111111111*54";

    #[tokio::test]
    async fn a_full_queue_sheds_noise_and_keeps_what_parses() {
        let (tx, rx) = channel(2);
        assert_eq!(noise_limit(2), 1);
        assert_eq!(noise_limit(CAPACITY), 64);
        let now = Instant::now();
        assert_eq!(tx.send_serial("x".into(), now).await, Ok(Sent::Queued));
        // Noise past a sixteenth of the queue is shed; a good line is not.
        assert_eq!(
            tx.send_serial("y".into(), now).await,
            Ok(Sent::Shed("y".into()))
        );
        assert_eq!(tx.stats().shed_serial(), 1);
        assert_eq!(tx.send_serial(READY.into(), now).await, Ok(Sent::Queued));
        // The queue is full: a broken beam is shed.
        tx.send_beam(Input::now(Sensor::FoulBeam { broken: true }))
            .unwrap();
        assert_eq!(tx.stats().shed_beam(), 1);
        // A clear edge waits, like a good line (below): never shed.
        let (beam_tx, beam_rx) = channel(1);
        beam_tx
            .send_beam(Input::now(Sensor::FoulBeam { broken: true }))
            .unwrap();
        let clear = std::thread::spawn(move || {
            beam_tx.send_beam(Input::now(Sensor::FoulBeam { broken: false }))
        });
        std::thread::sleep(Duration::from_millis(20));
        let edges: Vec<Input> = (0..2).map(|_| beam_rx.recv().unwrap()).collect();
        assert!(matches!(
            edges[1],
            Input::Reading(Reading {
                sensor: Sensor::FoulBeam { broken: false },
                ..
            })
        ));
        clear.join().unwrap().unwrap();
        // A good line waits until the lane takes one.
        let reader = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            (0..3).map(|_| rx.recv().unwrap()).collect::<Vec<_>>()
        });
        assert_eq!(tx.send_serial(READY.into(), now).await, Ok(Sent::Queued));
        let got = reader.join().unwrap();
        let lines: Vec<String> = got
            .into_iter()
            .filter_map(|i| match i {
                Input::Reading(Reading {
                    sensor: Sensor::Serial { line },
                    ..
                }) => Some(line),
                _ => None,
            })
            .collect();
        assert_eq!(lines, ["x", READY, READY]);
        assert_eq!(tx.stats().sent(), 3);
    }

    #[tokio::test]
    async fn noise_takes_at_most_a_sixteenth_of_the_queue() {
        let (tx, rx) = channel(32);
        let now = Instant::now();
        let mut shed = 0;
        for i in 0..40 {
            if let Ok(Sent::Shed(_)) = tx.send_serial(format!("hum {i}"), now).await {
                shed += 1;
            }
        }
        assert_eq!(tx.stats().queued(), noise_limit(32));
        assert_eq!(shed, 40 - noise_limit(32));
        // A judge's action and a good line still find room at once.
        let (reply, _) = tokio::sync::oneshot::channel();
        let action = Input::Action {
            panel: crate::lane::Panel::new(
                None,
                crate::lane::Action::Hold {
                    on: true,
                    reason: None,
                },
            ),
            reply: Some(reply),
        };
        assert!(matches!(tx.try_send(action), Tried::Sent));
        assert_eq!(tx.send_serial(READY.into(), now).await, Ok(Sent::Queued));
        assert_eq!(tx.stats().queued(), noise_limit(32) + 2);
        // What the lane takes frees places for noise again.
        rx.recv().unwrap();
        rx.try_recv().unwrap();
        rx.recv_timeout(Duration::from_millis(1)).unwrap();
        assert_eq!(tx.stats().queued(), noise_limit(32) - 1);
        assert_eq!(tx.send_serial("hum".into(), now).await, Ok(Sent::Queued));
    }

    #[tokio::test]
    async fn a_waiting_sender_gives_up_at_the_stop_and_when_the_lane_is_gone() {
        let (tx, rx) = channel(1);
        tx.send(serial("x")).await.unwrap();
        tx.stop();
        assert!(tx.stats().stopping());
        assert_eq!(tx.send(serial(READY)).await, Err(Closed));
        drop(rx);
        assert_eq!(
            tx.send_serial("y".into(), Instant::now()).await,
            Err(Closed)
        );
        assert_eq!(tx.send_blocking(serial("z")), Err(Closed));
    }
}

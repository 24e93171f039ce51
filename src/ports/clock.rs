//! The lane thread's clock port: where its lane time comes from.
//!
//! [`LaneClock`] is what the lane's thread asks of a clock: the lane time
//! of an input, the instant a deadline comes, how far its deadlines may
//! run, and a scripted clock's next step. Two clocks fill it:
//!
//! - [`Clock`]: the monotonic clock, as milliseconds since the journal
//!   started (at a `speed` for a lane played faster than life). A live
//!   lane's.
//! - [`ScriptedClock`]: lane time that a script gives (the demo's, a
//!   test's). The script's inputs are its clock's steps ([`ScriptFeed`]):
//!   each moves the lane's time to its own time `t`, with the script's
//!   input there if it has one, and says the time of the script's next
//!   step, before which the script sends nothing. The lane runs its
//!   deadlines up to that and never past it, and stamps an input from
//!   elsewhere (a neighbour, a panel) no later than it: a machine too busy
//!   to play the script on time plays it late, never differently, and
//!   the same script gives the same journal.
//!
//! A step takes its place among the lane's inputs: the feed marks it on
//! the input channel ([`InputSender::send_step`]), and the lane's thread
//! takes it from the clock when it comes to the mark
//! ([`Taken::Step`](super::inputs::Taken::Step)), so that it is applied in
//! the order it was sent, as any input.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::inputs::{Closed, InputSender};
use crate::lane::{Event, Millis};

/// Lane time, as the lane's thread reads it.
pub trait LaneClock: Send {
    /// The lane time of an input taken at `at` (a reading's stamp; now,
    /// for a panel's action).
    fn t(&self, at: Instant) -> Millis;

    /// The instant the lane's time reaches `t`: when the thread wakes for
    /// a deadline at `t`.
    fn instant(&self, t: Millis) -> Instant;

    /// The latest lane time a deadline may run to; `None`, any that is
    /// due by the clock.
    fn horizon(&self) -> Option<Millis> {
        None
    }

    /// The clock's next step, once the input channel has said one is
    /// there: the lane time it moves to, and the input there, if any.
    fn step(&mut self) -> Option<(Millis, Option<Event>)> {
        None
    }
}

/// Lane time from the monotonic clock: milliseconds since the journal
/// started, going on from where a recovered journal stopped. `speed` runs
/// the demo faster than life while its journal keeps the lane's own times.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    base: Instant,
    offset: Millis,
    speed: f64,
}

impl Clock {
    pub fn new(offset: Millis, speed: f64) -> Clock {
        Clock {
            base: Instant::now(),
            offset,
            speed: if speed > 0.0 { speed } else { 1.0 },
        }
    }

    /// The lane time of an instant.
    pub fn t(&self, at: Instant) -> Millis {
        let real = at.saturating_duration_since(self.base).as_secs_f64();
        self.offset + (real * 1000.0 * self.speed) as Millis
    }

    /// The instant of a lane time (for the next deadline).
    pub fn instant(&self, t: Millis) -> Instant {
        let lane_ms = t.saturating_sub(self.offset) as f64;
        self.base + Duration::from_secs_f64(lane_ms / 1000.0 / self.speed)
    }
}

impl LaneClock for Clock {
    fn t(&self, at: Instant) -> Millis {
        Clock::t(self, at)
    }

    fn instant(&self, t: Millis) -> Instant {
        Clock::instant(self, t)
    }
}

/// One step of a script: the lane time `t`, the script's input there (or
/// none: the script's time alone), and the time of its next step.
#[derive(Debug)]
struct Step {
    t: Millis,
    event: Option<Event>,
    next: Millis,
}

/// Lane time that a script gives: the lane's side of it.
pub struct ScriptedClock {
    clock: Clock,
    /// The lane time before which the script sends nothing more.
    next: Millis,
    steps: mpsc::Receiver<Step>,
}

/// The script's side of a [`ScriptedClock`]: where it sends its steps.
pub struct ScriptFeed {
    clock: Clock,
    start: Millis,
    steps: mpsc::Sender<Step>,
    inputs: InputSender,
}

impl ScriptedClock {
    /// A scripted clock on `clock`, starting at lane time `start` (where
    /// the lane's time stands), and its feed, which marks its steps on
    /// `inputs`, the lane's input channel.
    pub fn new(clock: Clock, start: Millis, inputs: InputSender) -> (ScriptedClock, ScriptFeed) {
        let (tx, rx) = mpsc::channel();
        let scripted = ScriptedClock {
            clock,
            next: start,
            steps: rx,
        };
        let feed = ScriptFeed {
            clock,
            start,
            steps: tx,
            inputs,
        };
        (scripted, feed)
    }
}

impl LaneClock for ScriptedClock {
    /// An input from outside the script: never past the script's next
    /// step, so that a script late on a busy machine keeps its own times.
    fn t(&self, at: Instant) -> Millis {
        self.clock.t(at).min(self.next)
    }

    fn instant(&self, t: Millis) -> Instant {
        self.clock.instant(t)
    }

    fn horizon(&self) -> Option<Millis> {
        Some(self.next)
    }

    fn step(&mut self) -> Option<(Millis, Option<Event>)> {
        let step = self.steps.try_recv().ok()?;
        self.next = step.next.max(step.t);
        Some((step.t, step.event))
    }
}

impl ScriptFeed {
    /// The lane's clock, by which the script sends each step when its
    /// time comes.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// The lane time the script starts at.
    pub fn start(&self) -> Millis {
        self.start
    }

    /// Moves the lane's time to `t`, with the script's input `event` there
    /// (none: the deadlines up to `t` run), and promises nothing before
    /// `next`. Waits for room on the input channel without blocking the
    /// runtime; [`Closed`] once the lane's thread is gone.
    pub async fn send(&self, t: Millis, event: Option<Event>, next: Millis) -> Result<(), Closed> {
        self.push(t, event, next)?;
        self.inputs.send_step().await
    }

    /// [`ScriptFeed::send`] from a thread that may block.
    pub fn send_blocking(
        &self,
        t: Millis,
        event: Option<Event>,
        next: Millis,
    ) -> Result<(), Closed> {
        self.push(t, event, next)?;
        self.inputs.send_step_blocking()
    }

    fn push(&self, t: Millis, event: Option<Event>, next: Millis) -> Result<(), Closed> {
        self.steps.send(Step { t, event, next }).map_err(|_| Closed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::Sensor;
    use crate::ports::inputs::{Taken, channel};

    #[test]
    fn the_real_clock_has_no_horizon_and_no_steps() {
        let mut clock = Clock::new(5_000, 2.0);
        let at = clock.instant(9_000);
        assert_eq!(LaneClock::t(&clock, at), 9_000);
        assert_eq!(clock.horizon(), None);
        assert!(clock.step().is_none());
    }

    #[test]
    fn a_scripted_clock_moves_by_its_steps_in_the_channels_order() {
        let real = Clock::new(0, 1.0);
        let (tx, rx) = channel(8);
        let (mut clock, feed) = ScriptedClock::new(real, 1_000, tx.clone());
        assert_eq!(feed.start(), 1_000);
        // Before any step, an input from outside, however late the real
        // clock, is at the script's start; an early one keeps its time.
        let late = real.instant(90_000);
        assert_eq!(clock.t(late), 1_000);
        assert_eq!(clock.t(real.instant(400)), 400);
        assert_eq!(clock.horizon(), Some(1_000));
        let beam = Some(Event::Sensor(Sensor::FoulBeam { broken: true }));
        feed.send_blocking(1_500, beam.clone(), 3_000).unwrap();
        tx.send_blocking(crate::ports::Input::Shutdown).unwrap();
        feed.send_blocking(3_000, None, 3_000).unwrap();
        // The steps are marked among the inputs, in the order sent.
        let order: Vec<&str> = (0..3)
            .map(|_| match rx.take(Duration::ZERO).unwrap() {
                Taken::Step => "step",
                Taken::Input(_) => "input",
            })
            .collect();
        assert_eq!(order, ["step", "input", "step"]);
        assert_eq!(clock.step(), Some((1_500, beam)));
        assert_eq!(clock.horizon(), Some(3_000));
        assert_eq!(clock.t(late), 3_000);
        assert_eq!(clock.step(), Some((3_000, None)));
        assert!(clock.step().is_none());
        // The lane's thread gone, the script hears it.
        drop((rx, clock));
        assert!(feed.send_blocking(4_000, None, 4_000).is_err());
    }

    #[test]
    fn recv_passes_over_the_steps_marks() {
        let (tx, rx) = channel(8);
        let (_clock, feed) = ScriptedClock::new(Clock::new(0, 1.0), 0, tx.clone());
        feed.send_blocking(10, None, 20).unwrap();
        tx.send_blocking(crate::ports::Input::Shutdown).unwrap();
        assert!(matches!(rx.recv(), Ok(crate::ports::Input::Shutdown)));
        assert_eq!(tx.stats().queued(), 0);
    }
}

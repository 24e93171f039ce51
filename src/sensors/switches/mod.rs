//! A string pinsetter's pin switches, read directly (`[pinsetter] kind =
//! "pin_switches"`): ten switches and the cycle signal on an MCP23017 I2C
//! expander or the Pi's GPIO.
//!
//! - [`deck`]: the pure state machine, samples in, decks and faults out.
//! - [`mcp23017`]: the expander's registers.
//! - [`gpio_bank`]: the switches as wired, read together.
//!
//! The reader is a thread: it reads the switches when the expander's INTA
//! says one changed (a falling edge on a line of the header's chip,
//! requested from the kernel as the lane's inputs are) or every `poll_ms`,
//! and at
//! the deck's deadlines; each deck and fault goes to the lane as
//! [`Sensor::Deck`] / [`Sensor::DeckFault`] on the bounded channel, waiting
//! for room (a deck is a ball: never shed). The switches are the lane's
//! pinsetter link: journaled up at the first reading, down once at an I2C
//! error (retried with backoff), up again when they answer.

pub mod deck;
pub mod gpio_bank;
pub mod mcp23017;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use gpiocdev::line::EdgeDetection;
use tracing::{info, warn};

use self::deck::{Deck, DeckTimes};
use self::gpio_bank::RpiBank;
use crate::config::{BcmPin, Pull, SwitchesConfig};
use crate::ports::{Input, InputSender};
use crate::sensors::GpioError;
use crate::sensors::gpio::EdgeThread;
use crate::sensors::gpio::chip::{self, InputLine};

/// Where the switches are read: their levels as the deck takes them.
pub trait SwitchBank: Send {
    fn read(&mut self) -> Result<u16, String>;
}

/// Called with each new reading of the levels (`lanecall monitor`).
pub type Echo = Box<dyn FnMut(u16) + Send>;

/// The switches, opened and ready to be read.
pub struct Switches {
    bank: Box<dyn SwitchBank>,
    times: DeckTimes,
    poll: Duration,
    /// The interrupt's line and thread, held: dropping it stops the
    /// interrupt.
    _interrupt: Option<EdgeThread>,
    wake: Option<mpsc::Receiver<()>>,
}

/// Opens the expander and pins as configured: a clear error when the
/// expander does not answer.
pub fn open(cfg: &SwitchesConfig) -> Result<Switches, GpioError> {
    let bank = RpiBank::open(cfg)?;
    let (interrupt, wake) = match cfg.interrupt {
        Some(bcm) => match interrupt(bcm) {
            Ok((pin, rx)) => (Some(pin), Some(rx)),
            Err(e) => {
                warn!(bcm = bcm.number(), error = %e, "no interrupt from the expander's INTA: polling instead");
                (None, None)
            }
        },
        None => (None, None),
    };
    info!(
        expander = cfg.uses_expander(),
        interrupt = wake.is_some(),
        "pin switches ready"
    );
    Ok(Switches {
        bank: Box::new(bank),
        times: times(cfg),
        poll: cfg.poll,
        _interrupt: interrupt,
        wake,
    })
}

fn interrupt(bcm: BcmPin) -> Result<(EdgeThread, mpsc::Receiver<()>), GpioError> {
    let header = chip::find_header_chip()?;
    let what = "the expander's INTA".to_string();
    let line = InputLine {
        pull: Pull::Up,
        debounce: Duration::ZERO,
        // INTA is active low: a falling edge is a change.
        edges: Some(EdgeDetection::FallingEdge),
    };
    let request = header.request_inputs(&[(bcm, what.clone())], line)?;
    let (tx, rx) = mpsc::sync_channel(1);
    let thread = EdgeThread::spawn(&what, request, move |_| {
        let _ = tx.try_send(());
    })
    .map_err(|e| GpioError::Pin {
        bcm: bcm.number(),
        what,
        message: format!("cannot start its thread: {e}"),
    })?;
    Ok((thread, rx))
}

/// The deck's times from the config.
pub fn times(cfg: &SwitchesConfig) -> DeckTimes {
    let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    DeckTimes {
        debounce_ms: ms(cfg.debounce),
        settle_ms: ms(cfg.settle),
        max_settle_ms: ms(cfg.max_settle),
        flicker_changes: cfg.flicker_changes,
        cycle: cfg.cycle.is_some(),
    }
}

impl Switches {
    /// Reads the switches on a thread until the returned task is dropped or
    /// aborted, or the lane stops.
    pub fn spawn(self, tx: InputSender, echo: Option<Echo>) -> tokio::task::JoinHandle<()> {
        let stop = Arc::new(AtomicBool::new(false));
        let guard = StopOnDrop(stop.clone());
        let thread = tokio::task::spawn_blocking(move || self.run(&tx, echo, &stop));
        tokio::spawn(async move {
            let _guard = guard;
            let _ = thread.await;
        })
    }

    fn run(mut self, tx: &InputSender, mut echo: Option<Echo>, stop: &AtomicBool) {
        let start = Instant::now();
        let ms = || u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
        let mut deck = Deck::new(self.times);
        let mut last = None;
        let mut backoff: Option<Duration> = None;
        while !stop.load(Ordering::Relaxed) && !tx.stats().stopping() {
            let now = ms();
            let out = match self.bank.read() {
                Ok(levels) => {
                    if backoff.take().is_some() {
                        info!("pin switches: read again");
                    }
                    if last != Some(levels) {
                        last = Some(levels);
                        if let Some(echo) = &mut echo {
                            echo(levels);
                        }
                    }
                    deck.sample(now, levels)
                }
                Err(e) => {
                    if backoff.is_none() {
                        warn!(error = %e, "pin switches cannot be read; retrying");
                    }
                    last = None;
                    backoff = Some(next_backoff(backoff));
                    deck.unreadable(now)
                }
            };
            for sensor in out {
                if tx.send_blocking(Input::now(sensor)).is_err() {
                    return;
                }
            }
            let wait = match backoff {
                Some(b) => b,
                None => {
                    // With the interrupt, a read now and then all the same,
                    // in case an edge was missed.
                    let mut wait = if self.wake.is_some() {
                        Duration::from_millis(100)
                    } else {
                        self.poll
                    };
                    if let Some(d) = deck.deadline() {
                        wait = wait.min(Duration::from_millis(d.saturating_sub(ms())));
                    }
                    wait
                }
            };
            match &self.wake {
                Some(rx) if backoff.is_none() => {
                    let _ = rx.recv_timeout(wait);
                }
                _ => std::thread::sleep(wait),
            }
        }
    }
}

/// 100 ms, doubling up to 5 s.
fn next_backoff(now: Option<Duration>) -> Duration {
    now.map_or(Duration::from_millis(100), |d| {
        (d * 2).min(Duration::from_secs(5))
    })
}

struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A reading of the levels as `lanecall monitor` prints it:
/// `switches 1111111011 cycle 0`, pin 1 first.
pub fn levels_line(levels: u16) -> String {
    let pins: String = (0..10)
        .map(|i| if levels & (1 << i) != 0 { '1' } else { '0' })
        .collect();
    let cycle = u8::from(levels & deck::CYCLE_BIT != 0);
    format!("switches {pins} cycle {cycle}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::Sensor;

    #[test]
    fn the_monitor_line_shows_pin_one_first() {
        assert_eq!(
            levels_line(0x3ff & !(1 << 8)),
            "switches 1111111101 cycle 0"
        );
        assert_eq!(levels_line(deck::CYCLE_BIT), "switches 0000000000 cycle 1");
    }

    /// Reads a full deck `good` times, then fails.
    struct Failing {
        good: u32,
    }

    impl SwitchBank for Failing {
        fn read(&mut self) -> Result<u16, String> {
            if self.good == 0 {
                return Err("Remote I/O error".into());
            }
            self.good -= 1;
            Ok(0x3ff)
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_reader_sends_the_link_the_set_deck_then_the_link_lost_once() {
        let switches = Switches {
            bank: Box::new(Failing { good: 40 }),
            times: DeckTimes {
                debounce_ms: 0,
                settle_ms: 1,
                max_settle_ms: 1000,
                flicker_changes: 6,
                cycle: false,
            },
            poll: Duration::from_millis(1),
            _interrupt: None,
            wake: None,
        };
        let (tx, rx) = crate::ports::inputs::channel(8);
        let echoed = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = echoed.clone();
        let task = switches.spawn(tx, Some(Box::new(move |l| seen.lock().unwrap().push(l))));
        let sent = tokio::task::spawn_blocking(move || {
            let next = || match rx.recv_timeout(Duration::from_secs(10)) {
                Ok(Input::Reading(r)) => r.sensor,
                other => panic!("no reading: {other:?}"),
            };
            let three = [next(), next(), next()];
            // Retried with backoff, but reported once.
            let more = rx.recv_timeout(Duration::from_millis(500));
            (three, more.is_err())
        })
        .await
        .unwrap();
        assert_eq!(
            sent.0,
            [
                Sensor::SerialLink { up: true },
                Sensor::Deck {
                    after: crate::lane::DeckAfter::Set,
                    standing: crate::lane::PinSet::FULL
                },
                Sensor::SerialLink { up: false },
            ]
        );
        assert!(sent.1, "the link lost twice");
        assert_eq!(*echoed.lock().unwrap(), vec![0x3ff]);
        task.abort();
        let _ = task.await;
    }

    #[test]
    fn the_backoff_doubles_to_five_seconds() {
        let mut b = None;
        let mut seen = Vec::new();
        for _ in 0..8 {
            let next = next_backoff(b);
            seen.push(next.as_millis());
            b = Some(next);
        }
        assert_eq!(seen, vec![100, 200, 400, 800, 1600, 3200, 5000, 5000]);
    }
}

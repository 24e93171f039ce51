//! GPIO on the Raspberry Pi (rppal API, from the `rpi-pal` fork): the lane's
//! inputs (foul-line beam, ball detector, channel sensors, rail buttons) as
//! sensor readings, and the outputs (foul lamp, pinsetter reset) as an
//! [`OutputSink`].
//!
//! Inputs use the kernel's edge detection with its debounce
//! (`set_async_interrupt`); rppal calls our callback on its own thread, and
//! the callback only maps the edge to a [`Sensor`], stamps it with the
//! kernel's time of the edge ([`edge_instant`]) and sends it on the
//! lane's bounded channel ([`crate::ports::inputs`]): a foul-beam break is shed
//! (and counted) when the channel is full; its clear, the ball detector,
//! channel sensors and buttons wait for room, on rppal's thread, never the
//! runtime. Outputs return from `set` at once; a pulse
//! is ended by a short timer thread, never by the lane's thread.
//!
//! The mapping from a level to an event and the output logic are small pure
//! parts, tested here without a Pi. On a machine that is not a Pi,
//! [`start_rpi`] fails with [`GpioError::NotAPi`]; the daemon then runs with
//! [`NullOutputs`] only if the config says `backend = "none"`.
//!
//! The pins come as the validated config has them ([`InputConfig`],
//! [`OutputConfig`]): a BCM number from 2 to 27, no two alike, so a pin
//! that still cannot be opened is a fault of the Pi, not of the file.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rppal::gpio::{self, Gpio, InputPin, OutputPin, Trigger};
use tracing::{debug, info, warn};

use crate::config::{InputConfig, InputRole, OutputConfig, Pull};
use crate::lane::{Output, Sensor, Side, Switch};
use crate::ports::{Input, InputSender, OutputSink, Reading};

#[derive(Debug, thiserror::Error)]
pub enum GpioError {
    #[error(
        "this machine is not a Raspberry Pi (no GPIO found: {0}); set [gpio] backend = \"none\" in the config to run without GPIO"
    )]
    NotAPi(String),
    /// A Pi whose GPIO cannot be opened (permissions, no `/dev/gpiochip`).
    #[error(
        "cannot open the GPIO ({0}); run the daemon as a user in the `gpio` group, or set [gpio] backend = \"none\" in the config to run without GPIO"
    )]
    Open(String),
    /// The pin switches' expander or pins (`[pinsetter.switches]`).
    #[error("pin switches: {0}")]
    Switches(String),
    #[error("GPIO {bcm} ({what}): {message}")]
    Pin {
        bcm: u8,
        what: String,
        message: String,
    },
}

/// What an edge on an input pin means for the lane, if anything.
///
/// `level_high` is the pin's level after the edge. The foul beam reports
/// both edges (broken and clear); the other inputs report only the edge to
/// their active level.
pub fn input_event(role: &InputRole, active_high: bool, level_high: bool) -> Option<Sensor> {
    let active = level_high == active_high;
    match role {
        InputRole::FoulBeam => Some(Sensor::FoulBeam { broken: active }),
        _ if !active => None,
        InputRole::Ball => Some(Sensor::Ball),
        InputRole::ChannelLeft => Some(Sensor::Channel { side: Side::Left }),
        InputRole::ChannelRight => Some(Sensor::Channel { side: Side::Right }),
        InputRole::Button(name) => Some(Sensor::Button { name: name.clone() }),
    }
}

/// The oldest a kernel's stamp of an edge is believed: an edge waits in
/// the kernel's buffer only while the lane's channel is full, for far less.
const MAX_EDGE_AGE: Duration = Duration::from_secs(10);

/// The instant of an edge the kernel stamped at `stamp` (rppal's
/// `Event::timestamp`: CLOCK_MONOTONIC, the clock of `Instant` on Linux),
/// from `now` and `monotonic_now`, that clock read at the same moment: `now`
/// less the edge's age. A stamp that is odd (after `monotonic_now`, or
/// older than [`MAX_EDGE_AGE`]: another clock than the one read) or a
/// clock that could not be read gives `now`, the time the edge is handled.
pub fn edge_instant(stamp: Duration, now: Instant, monotonic_now: Option<Duration>) -> Instant {
    monotonic_now
        .and_then(|clock| clock.checked_sub(stamp))
        .filter(|&age| age <= MAX_EDGE_AGE)
        .and_then(|age| now.checked_sub(age))
        .unwrap_or(now)
}

/// CLOCK_MONOTONIC now, the clock of the kernel's edge stamps.
fn monotonic_now() -> Option<Duration> {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    let secs = u64::try_from(now.tv_sec).ok()?;
    let nanos = u32::try_from(now.tv_nsec)
        .ok()
        .filter(|&n| n < 1_000_000_000)?;
    Some(Duration::new(secs, nanos))
}

/// The pin level (high?) that switches an output on or off.
pub fn output_level(active_high: bool, on: bool) -> bool {
    on == active_high
}

fn role_name(role: &InputRole) -> String {
    match role {
        InputRole::FoulBeam => "foul_beam".into(),
        InputRole::Ball => "ball".into(),
        InputRole::ChannelLeft => "channel_left".into(),
        InputRole::ChannelRight => "channel_right".into(),
        InputRole::Button(name) => format!("button {name}"),
    }
}

fn output_name(output: Output) -> &'static str {
    match output {
        Output::FoulLamp => "foul_lamp",
        Output::PinsetterReset => "pinsetter_reset",
    }
}

/// A pin the output logic can drive: an rppal [`OutputPin`], or a fake in
/// tests.
pub(crate) trait Drive: Send + 'static {
    fn drive(&mut self, high: bool);
}

impl Drive for OutputPin {
    fn drive(&mut self, high: bool) {
        if high {
            self.set_high();
        } else {
            self.set_low();
        }
    }
}

/// One output's pin and the count of changes asked of it.
struct Channel<P> {
    /// Bumped by every `set`, so a pulse's timer switches off only if
    /// nothing changed the output since that pulse began (a later `On`
    /// is not cut short by an earlier pulse's end).
    state: Mutex<(P, u64)>,
    active_high: bool,
    pulse: Duration,
}

impl<P: Drive> Channel<P> {
    /// Sets the level and returns this change's number.
    fn switch(&self, on: bool) -> u64 {
        let mut guard = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        guard.1 = guard.1.wrapping_add(1);
        guard.0.drive(output_level(self.active_high, on));
        guard.1
    }

    /// Switches off if change `generation` is still the latest.
    fn end_pulse(&self, generation: u64) {
        let mut guard = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if guard.1 == generation {
            guard.0.drive(output_level(self.active_high, false));
        }
    }
}

/// Drives the lane's outputs; `set` returns at once.
pub(crate) struct Outputs<P> {
    channels: Vec<(Output, Arc<Channel<P>>)>,
}

impl<P: Drive> Outputs<P> {
    /// Takes pins already switched off.
    pub(crate) fn new(pins: Vec<(Output, P, bool, Duration)>) -> Outputs<P> {
        let channels = pins
            .into_iter()
            .map(|(output, pin, active_high, pulse)| {
                let channel = Channel {
                    state: Mutex::new((pin, 0)),
                    active_high,
                    pulse,
                };
                (output, Arc::new(channel))
            })
            .collect();
        Outputs { channels }
    }
}

impl<P: Drive> OutputSink for Outputs<P> {
    fn set(&mut self, output: Output, switch: Switch) {
        let Some((_, channel)) = self.channels.iter().find(|(o, _)| *o == output) else {
            debug!(
                output = output_name(output),
                ?switch,
                "no GPIO pin for this output"
            );
            return;
        };
        match switch {
            Switch::On => {
                channel.switch(true);
            }
            Switch::Off => {
                channel.switch(false);
            }
            Switch::Pulse => {
                let generation = channel.switch(true);
                let timer = Arc::clone(channel);
                let spawned = std::thread::Builder::new()
                    .name("lanecall-pulse".into())
                    .spawn(move || {
                        std::thread::sleep(timer.pulse);
                        timer.end_pulse(generation);
                    });
                if let Err(e) = spawned {
                    // A relay left on would hold the pinsetter in reset:
                    // better a pulse too short than one that never ends.
                    warn!(output = output_name(output), error = %e, "cannot time the pulse; switching off now");
                    channel.end_pulse(generation);
                }
            }
        }
    }
}

/// The outputs when there is no GPIO (backend `none`): each switch is
/// logged at debug level.
#[derive(Debug, Default)]
pub struct NullOutputs;

impl OutputSink for NullOutputs {
    fn set(&mut self, output: Output, switch: Switch) {
        debug!(
            output = output_name(output),
            ?switch,
            "output (no GPIO backend)"
        );
    }
}

/// The running GPIO inputs. Keep it alive: dropping it stops the interrupt
/// threads and releases the pins.
#[derive(Debug)]
pub struct RpiGpio {
    /// Each pin owns its interrupt thread and its callback's sender.
    _inputs: Vec<InputPin>,
}

fn open_gpio() -> Result<Gpio, GpioError> {
    match Gpio::new() {
        Ok(gpio) => Ok(gpio),
        Err(e @ gpio::Error::UnknownModel) => Err(GpioError::NotAPi(e.to_string())),
        Err(e) => Err(GpioError::Open(e.to_string())),
    }
}

/// Opens the GPIO, configures the inputs (edges with kernel debounce, sent
/// on `tx`) and the outputs (all switched off), as the validated `[gpio]`
/// tables give them.
pub fn start_rpi(
    inputs: &[InputConfig],
    outputs: &[OutputConfig],
    tx: InputSender,
) -> Result<(RpiGpio, Box<dyn OutputSink>), GpioError> {
    let gpio = open_gpio()?;

    let mut out_pins = Vec::with_capacity(outputs.len());
    for s in outputs {
        let what = output_name(s.output);
        let bcm = s.pin.number();
        let pin = gpio.get(bcm).map_err(|e| GpioError::Pin {
            bcm,
            what: what.into(),
            message: e.to_string(),
        })?;
        let pin = if output_level(s.active_high, false) {
            pin.into_output_high()
        } else {
            pin.into_output_low()
        };
        info!(bcm, output = what, "GPIO output ready (off)");
        out_pins.push((s.output, pin, s.active_high, s.pulse));
    }

    let mut in_pins = Vec::with_capacity(inputs.len());
    for s in inputs {
        let what = role_name(&s.role);
        let bcm = s.pin.number();
        let pin_error = |e: gpio::Error| GpioError::Pin {
            bcm,
            what: what.clone(),
            message: e.to_string(),
        };
        let pin = gpio.get(bcm).map_err(pin_error)?;
        let mut pin = match s.pull {
            Pull::Up => pin.into_input_pullup(),
            Pull::Down => pin.into_input_pulldown(),
            Pull::Off => pin.into_input(),
        };
        let debounce = (!s.debounce.is_zero()).then_some(s.debounce);
        let role = s.role.clone();
        let active_high = s.active_high;
        let tx = tx.clone();
        // Each edge is stamped with the kernel's time of it (after its
        // debounce), not the callback's: the callback's thread may run late.
        pin.set_async_interrupt(Trigger::Both, debounce, move |event: gpio::Event| {
            let level_high = match event.trigger {
                Trigger::RisingEdge => true,
                Trigger::FallingEdge => false,
                _ => return,
            };
            if let Some(sensor) = input_event(&role, active_high, level_high) {
                let beam = matches!(sensor, Sensor::FoulBeam { .. });
                let at = edge_instant(event.timestamp, Instant::now(), monotonic_now());
                let input = Input::Reading(Reading { at, sensor });
                // The daemon gone means we are shutting down: nothing to do.
                let _ = if beam {
                    tx.send_beam(input)
                } else {
                    tx.send_blocking(input)
                };
            }
        })
        .map_err(pin_error)?;
        info!(bcm, input = %what, ?debounce, "GPIO input ready");
        in_pins.push(pin);
    }

    Ok((
        RpiGpio { _inputs: in_pins },
        Box::new(Outputs::new(out_pins)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::BcmPin;

    #[test]
    fn an_edge_is_stamped_at_the_kernels_time_of_it() {
        let now = Instant::now() + Duration::from_secs(60);
        let clock = Duration::from_secs(5000);
        let ms = Duration::from_millis;
        assert_eq!(edge_instant(clock - ms(3), now, Some(clock)), now - ms(3));
        assert_eq!(edge_instant(clock, now, Some(clock)), now);
        assert_eq!(
            edge_instant(clock - MAX_EDGE_AGE, now, Some(clock)),
            now - MAX_EDGE_AGE
        );
    }

    #[test]
    fn an_odd_kernel_stamp_gives_the_time_the_edge_is_handled() {
        let now = Instant::now();
        let clock = Duration::from_secs(5000);
        // After the clock read with it (another clock: the wall's).
        let wall = Duration::from_secs(1_780_000_000);
        assert_eq!(edge_instant(wall, now, Some(clock)), now);
        // Older than believed, or no stamp at all.
        let old = clock - MAX_EDGE_AGE - Duration::from_nanos(1);
        assert_eq!(edge_instant(old, now, Some(clock)), now);
        assert_eq!(edge_instant(Duration::ZERO, now, Some(clock)), now);
        // The clock could not be read.
        assert_eq!(edge_instant(clock, now, None), now);
    }

    #[test]
    fn the_kernels_clock_is_the_clock_of_instants() {
        let before = Instant::now();
        let stamp = monotonic_now().expect("CLOCK_MONOTONIC");
        let handled = Instant::now();
        let at = edge_instant(stamp, handled, monotonic_now());
        assert!(
            before <= at && at <= handled,
            "{before:?} {at:?} {handled:?}"
        );
    }

    #[test]
    fn foul_beam_reports_both_edges() {
        let k = InputRole::FoulBeam;
        assert_eq!(
            input_event(&k, true, true),
            Some(Sensor::FoulBeam { broken: true })
        );
        assert_eq!(
            input_event(&k, true, false),
            Some(Sensor::FoulBeam { broken: false })
        );
        // Active low (a beam receiver that pulls the line down when broken).
        assert_eq!(
            input_event(&k, false, false),
            Some(Sensor::FoulBeam { broken: true })
        );
        assert_eq!(
            input_event(&k, false, true),
            Some(Sensor::FoulBeam { broken: false })
        );
    }

    #[test]
    fn other_inputs_report_only_the_edge_to_active() {
        let cases = [
            (InputRole::Ball, Sensor::Ball),
            (InputRole::ChannelLeft, Sensor::Channel { side: Side::Left }),
            (
                InputRole::ChannelRight,
                Sensor::Channel { side: Side::Right },
            ),
            (
                InputRole::Button("repeat".into()),
                Sensor::Button {
                    name: "repeat".into(),
                },
            ),
        ];
        for (role, sensor) in cases {
            assert_eq!(input_event(&role, true, true), Some(sensor.clone()));
            assert_eq!(input_event(&role, true, false), None);
            assert_eq!(input_event(&role, false, false), Some(sensor));
            assert_eq!(input_event(&role, false, true), None);
        }
    }

    #[test]
    fn output_levels_follow_the_active_level() {
        assert!(output_level(true, true));
        assert!(!output_level(true, false));
        assert!(!output_level(false, true));
        assert!(output_level(false, false));
    }

    /// Records every level driven.
    #[derive(Clone, Default)]
    struct FakePin(Arc<Mutex<Vec<bool>>>);

    impl Drive for FakePin {
        fn drive(&mut self, high: bool) {
            self.0.lock().unwrap().push(high);
        }
    }

    impl FakePin {
        fn levels(&self) -> Vec<bool> {
            self.0.lock().unwrap().clone()
        }

        /// Waits (real time, at most 2 s) until `n` levels were driven.
        fn wait_for(&self, n: usize) -> Vec<bool> {
            let until = Instant::now() + Duration::from_secs(2);
            while self.levels().len() < n && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(2));
            }
            self.levels()
        }
    }

    fn outputs(active_high: bool, pulse: Duration) -> (Outputs<FakePin>, FakePin) {
        let pin = FakePin::default();
        let o = Outputs::new(vec![(Output::FoulLamp, pin.clone(), active_high, pulse)]);
        (o, pin)
    }

    #[test]
    fn on_and_off_drive_the_active_level() {
        let (mut o, pin) = outputs(true, Duration::from_millis(10));
        o.set(Output::FoulLamp, Switch::On);
        o.set(Output::FoulLamp, Switch::Off);
        assert_eq!(pin.levels(), [true, false]);

        let (mut o, pin) = outputs(false, Duration::from_millis(10));
        o.set(Output::FoulLamp, Switch::On);
        o.set(Output::FoulLamp, Switch::Off);
        assert_eq!(pin.levels(), [false, true]);
    }

    #[test]
    fn pulse_returns_at_once_and_switches_off_later() {
        let (mut o, pin) = outputs(true, Duration::from_millis(20));
        let before = Instant::now();
        o.set(Output::FoulLamp, Switch::Pulse);
        // `set` does not wait for the pulse (generous bound: no timing test).
        assert!(before.elapsed() < Duration::from_secs(1));
        assert_eq!(pin.levels()[..1], [true]);
        assert_eq!(pin.wait_for(2), [true, false]);
    }

    #[test]
    fn pulse_end_does_not_cut_a_later_switch() {
        let (mut o, pin) = outputs(true, Duration::from_millis(20));
        o.set(Output::FoulLamp, Switch::Pulse);
        o.set(Output::FoulLamp, Switch::On);
        // Long after the pulse would have ended: still only the two changes.
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(pin.levels(), [true, true]);
    }

    #[test]
    fn unconfigured_output_is_ignored() {
        let (mut o, pin) = outputs(true, Duration::from_millis(10));
        o.set(Output::PinsetterReset, Switch::Pulse);
        assert!(pin.levels().is_empty());
        NullOutputs.set(Output::FoulLamp, Switch::Pulse);
    }

    fn is_a_pi() -> bool {
        std::fs::read_to_string("/proc/device-tree/model").is_ok_and(|m| m.contains("Raspberry Pi"))
    }

    #[test]
    fn start_rpi_says_not_a_pi_here() {
        if is_a_pi() {
            return;
        }
        let (tx, _rx) = crate::ports::inputs::channel(8);
        let inputs = [InputConfig {
            role: InputRole::FoulBeam,
            pin: BcmPin::new(17).unwrap(),
            pull: Pull::Up,
            active_high: false,
            debounce: Duration::from_millis(5),
        }];
        let err = match start_rpi(&inputs, &[], tx) {
            Ok(_) => panic!("GPIO opened on a machine that is not a Pi"),
            Err(e) => e,
        };
        assert!(matches!(err, GpioError::NotAPi(_)), "{err:?}");
        let msg = err.to_string();
        assert!(msg.contains("not a Raspberry Pi"), "{msg}");
        assert!(msg.contains("backend = \"none\""), "{msg}");
    }
}

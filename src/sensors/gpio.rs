//! GPIO on the Raspberry Pi, through the kernel's GPIO character device
//! (uAPI v2, the `gpiocdev` crate): the lane's inputs (foul-line beam,
//! ball detector, channel sensors, rail buttons) as sensor readings, and
//! the outputs (foul lamp, pinsetter reset) as an [`OutputSink`].
//!
//! The header's chip is found by its label, whatever its number
//! ([`chip`]); every pin is a line requested from the kernel, so a pin
//! another program holds is refused with its name ([`GpioError::Busy`])
//! instead of being fought over.
//!
//! Each input is its own line request with the kernel's edge detection
//! (both edges), its debounce and bias, and a thread that waits for its
//! edges: the thread only maps the edge to a [`Sensor`], stamps it with
//! the kernel's time of the edge ([`edge_instant`]) and sends it on the
//! lane's bounded channel ([`crate::ports::inputs`]): a foul-beam break is
//! shed (and counted) when the channel is full; its clear, the ball
//! detector, channel sensors and buttons wait for room, on that thread,
//! never the runtime. Outputs are requested output lines, switched off
//! from the moment they are ours; `set` returns at once, and a pulse is
//! ended by a short timer thread, never by the lane's thread.
//!
//! The mapping from a level to an event and the output logic are small pure
//! parts, tested here without a Pi, as is the choice of chip. On a machine
//! that is not a Pi, [`start_rpi`] fails with [`GpioError::NotAPi`], the
//! one error that no retry can mend ([`GpioError::is_permanent`]); the
//! daemon then runs with [`NullOutputs`] only if the config says
//! `backend = "none"`.
//!
//! The pins come as the validated config has them ([`InputConfig`],
//! [`OutputConfig`]): a BCM number from 2 to 27, no two alike, so a pin
//! that still cannot be had is a fault of the Pi, not of the file.

pub mod chip;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use gpiocdev::Request;
use gpiocdev::line::{EdgeDetection, EdgeEvent, EdgeKind, Value};
use tracing::{debug, info, warn};

use self::chip::{HEADER_LABELS, InputLine};
use crate::config::{InputConfig, InputRole, OutputConfig};
use crate::lane::{Output, Sensor, Side, Switch};
use crate::ports::{Input, InputSender, OutputSink, Reading};

#[derive(Debug, thiserror::Error)]
pub enum GpioError {
    /// No header chip, and a device tree that does not say "Raspberry
    /// Pi": the only error no retry can mend.
    #[error(
        "this machine is not a Raspberry Pi ({0}); set [gpio] backend = \"none\" in the config to run without GPIO"
    )]
    NotAPi(String),
    /// A Pi none of whose chips is the header's.
    #[error(
        "no GPIO chip of the Pi's header: looked for one labelled {labels}, or one whose lines are named GPIO2 to GPIO27; the chips there are: {chips}; `gpiodetect` lists them too",
        labels = HEADER_LABELS.join(", "),
        chips = if chips.is_empty() { "none".to_string() } else { chips.join(", ") }
    )]
    NoHeaderChip {
        /// Each chip as `/dev/gpiochipN "label"`.
        chips: Vec<String>,
    },
    /// The GPIO chips may not be opened (EACCES, EPERM) or not listed.
    #[error("cannot open the GPIO: {0}")]
    Open(String),
    /// A line another program holds, as the kernel reports it.
    #[error(
        "GPIO {bcm} ({what}) is held by {}: stop it (`gpioinfo` shows the line) or wire this to another GPIO",
        held_by(consumer)
    )]
    Busy {
        bcm: u8,
        what: String,
        consumer: String,
    },
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

/// Who holds a line, as the kernel names it.
fn held_by(consumer: &str) -> String {
    if consumer.is_empty() {
        "another program (the kernel names none)".to_string()
    } else {
        format!("{consumer:?}")
    }
}

impl GpioError {
    /// Whether this machine can never do it: true only for
    /// [`GpioError::NotAPi`]. Every other error may pass (a program that
    /// lets go of a line, a chip that appears, a permission given).
    pub fn is_permanent(&self) -> bool {
        matches!(self, GpioError::NotAPi(_))
    }
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

/// The instant of an edge the kernel stamped at `stamp` (the edge event's
/// `timestamp_ns`: CLOCK_MONOTONIC, the clock of `Instant` on Linux),
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

/// A pin the output logic can drive: a requested output line, or a fake
/// in tests.
pub(crate) trait Drive: Send + 'static {
    fn drive(&mut self, high: bool);
}

/// An output line the kernel gave us.
struct OutputLine {
    request: Request,
    offset: u32,
    bcm: u8,
    output: Output,
}

impl Drive for OutputLine {
    fn drive(&mut self, high: bool) {
        if let Err(e) = self.request.set_value(self.offset, Value::from(high)) {
            // Nothing to retry with: the next switch tries again.
            warn!(bcm = self.bcm, output = output_name(self.output), error = %e, "cannot drive the output");
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

/// How long an edge thread waits for an edge before it looks whether it
/// should stop: how long dropping [`RpiGpio`] may take. An edge itself is
/// handled as soon as the kernel has it.
const STOP_LOOK: Duration = Duration::from_millis(100);

/// A thread that waits for the edges of a requested line and hands each
/// to `on_edge`. Dropping it stops the thread and releases the line.
#[derive(Debug)]
pub(crate) struct EdgeThread {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl EdgeThread {
    pub(crate) fn spawn(
        name: &str,
        request: Request,
        mut on_edge: impl FnMut(EdgeEvent) + Send + 'static,
    ) -> std::io::Result<EdgeThread> {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let line = name.to_string();
        let thread = std::thread::Builder::new()
            .name("lanecall-gpio".into())
            .spawn(move || {
                let mut failing = false;
                while !stopped.load(Ordering::Relaxed) {
                    let edge = request.wait_edge_event(STOP_LOOK).and_then(|ready| {
                        ready.then(|| request.read_edge_event()).transpose()
                    });
                    match edge {
                        Ok(Some(edge)) => {
                            failing = false;
                            on_edge(edge);
                        }
                        Ok(None) => failing = false,
                        Err(e) => {
                            if !failing {
                                warn!(input = %line, error = %e, "cannot read the GPIO's edges; retrying");
                            }
                            failing = true;
                            // Not a spin on a line that keeps failing.
                            std::thread::sleep(STOP_LOOK);
                        }
                    }
                }
            })?;
        Ok(EdgeThread {
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for EdgeThread {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            // The line is released when the thread, its owner, ends.
            let _ = thread.join();
        }
    }
}

/// The running GPIO inputs. Keep it alive: dropping it stops the edge
/// threads and releases their lines.
#[derive(Debug)]
pub struct RpiGpio {
    _inputs: Vec<EdgeThread>,
}

/// Finds the header's chip, requests the inputs (both edges with the
/// kernel's debounce, sent on `tx`) and the outputs (all switched off), as
/// the validated `[gpio]` tables give them.
pub fn start_rpi(
    inputs: &[InputConfig],
    outputs: &[OutputConfig],
    tx: InputSender,
) -> Result<(RpiGpio, Box<dyn OutputSink>), GpioError> {
    let chip = chip::find_header_chip()?;
    info!(chip = %chip.path.display(), label = %chip.label, "the header's GPIO chip");

    let mut out_lines = Vec::with_capacity(outputs.len());
    for s in outputs {
        let what = output_name(s.output);
        let (request, offset) =
            chip.request_output(s.pin, what, output_level(s.active_high, false))?;
        let bcm = s.pin.number();
        info!(bcm, output = what, "GPIO output ready (off)");
        let line = OutputLine {
            request,
            offset,
            bcm,
            output: s.output,
        };
        out_lines.push((s.output, line, s.active_high, s.pulse));
    }

    let mut threads = Vec::with_capacity(inputs.len());
    for s in inputs {
        let what = role_name(&s.role);
        let bcm = s.pin.number();
        let line = InputLine {
            pull: s.pull,
            debounce: s.debounce,
            edges: Some(EdgeDetection::BothEdges),
        };
        let request = chip.request_inputs(&[(s.pin, what.clone())], line)?;
        let role = s.role.clone();
        let active_high = s.active_high;
        let tx = tx.clone();
        // Each edge is stamped with the kernel's time of it (after its
        // debounce), not the thread's: the thread may run late.
        let on_edge = move |edge: EdgeEvent| {
            // Requested active high: a rising edge is a rising level.
            let level_high = edge.kind == EdgeKind::Rising;
            if let Some(sensor) = input_event(&role, active_high, level_high) {
                let beam = matches!(sensor, Sensor::FoulBeam { .. });
                let stamp = Duration::from_nanos(edge.timestamp_ns);
                let at = edge_instant(stamp, Instant::now(), monotonic_now());
                let input = Input::Reading(Reading { at, sensor });
                // The daemon gone means we are shutting down: nothing to do.
                let _ = if beam {
                    tx.send_beam(input)
                } else {
                    tx.send_blocking(input)
                };
            }
        };
        let thread = EdgeThread::spawn(&what, request, on_edge).map_err(|e| GpioError::Pin {
            bcm,
            what: what.clone(),
            message: format!("cannot start its thread: {e}"),
        })?;
        info!(bcm, input = %what, debounce = ?s.debounce, "GPIO input ready");
        threads.push(thread);
    }

    Ok((
        RpiGpio { _inputs: threads },
        Box::new(Outputs::new(out_lines)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{BcmPin, Pull};

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

    #[test]
    fn a_button_another_program_holds_names_that_program() {
        let err = GpioError::Busy {
            bcm: 6,
            what: role_name(&InputRole::Button("score".into())),
            consumer: "x120x-ups".into(),
        };
        let msg = err.to_string();
        assert!(
            msg.starts_with("GPIO 6 (button score) is held by \"x120x-ups\""),
            "{msg}"
        );
        assert!(!err.is_permanent());
        let nameless = GpioError::Busy {
            bcm: 17,
            what: role_name(&InputRole::FoulBeam),
            consumer: String::new(),
        };
        assert!(
            nameless.to_string().contains("held by another program"),
            "{nameless}"
        );
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

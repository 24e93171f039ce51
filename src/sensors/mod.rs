//! Sensors: the shell between the lane's hardware and the daemon's input
//! channel.
//!
//! - [`serial`] is the pinsetter link: it opens the serial port, cuts the
//!   byte stream into lines (bounded, lossy UTF-8) and sends each line as
//!   [`Sensor::Serial`]; a lost port is reported as
//!   [`Sensor::SerialLink`] and reopened with backoff.
//! - [`gpio`] is the Raspberry Pi's GPIO: debounced edges of the foul-line
//!   beam, the ball detector, the channel sensors and the rail buttons as
//!   sensor readings, and the foul lamp and pinsetter reset relays as an
//!   [`OutputSink`](crate::ports::OutputSink) ([`gpio::NullOutputs`] where
//!   there is no GPIO).
//! - [`switches`] is a string pinsetter's pin switches, read directly (an
//!   MCP23017 I2C expander or GPIO) into [`Sensor::Deck`] and
//!   [`Sensor::DeckFault`].
//! - [`monitor`] prints every input live, for `lanecall monitor` (wiring
//!   checks on the lane).
//!
//! Both take their settings as the validated config has them
//! ([`PinsetterConfig`] from `[pinsetter]`, [`InputConfig`] and
//! [`OutputConfig`] from `[gpio]`): nothing here checks them again.
//!
//! Every reading goes to the daemon as an [`Input`] on the bounded channel
//! of [`crate::ports::inputs`], stamped where it was taken; on a full channel
//! noise is shed first. Nothing here may block the lane's thread or the
//! runtime (output pulses are timed here, not by the caller),
//! panic on what the hardware or the wire brings, or spin on a device that
//! is gone. Nothing here interprets a reading: that is the core's job,
//! after the journal has the reading.

pub mod gpio;
pub mod serial;
pub mod switches;

use std::future::Future;
use std::io::Write;
use std::time::Instant;

use crate::config::{InputConfig, OutputConfig, PinsetterConfig};
use crate::journal::event_line;
use crate::lane::{Event, Sensor, Stamped};
use crate::ports::Input;

pub use gpio::GpioError;

/// Starts the given sensors and prints every reading to `out` as it
/// arrives, one line each: milliseconds since the start, then the reading
/// as a journal line. Returns on Ctrl-C, or when `out` cannot be written.
///
/// The GPIO outputs are held switched off while monitoring.
///
/// With `switches` (a string pinsetter's pin switches, opened), each change
/// of their levels is a line `switches 1111111011 cycle 0` (pin 1 first) on
/// stdout as well.
pub async fn monitor(
    link: Option<PinsetterConfig>,
    switches: Option<switches::Switches>,
    gpio: Option<(Vec<InputConfig>, Vec<OutputConfig>)>,
    out: impl Write + Send + 'static,
) -> Result<(), GpioError> {
    let stop = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::warn!(error = %e, "cannot catch Ctrl-C; stop the monitor another way");
            std::future::pending::<()>().await;
        }
    };
    monitor_until(link, switches, gpio, out, stop).await
}

/// What `lanecall monitor` reads the pinsetter from: its serial line, or
/// its pin switches (opened); a clear error when the port does not exist
/// or the expander does not answer, before anything is shown.
pub fn monitor_pinsetter(
    config: &crate::config::Config,
    path: &std::path::Path,
) -> Result<(Option<PinsetterConfig>, Option<switches::Switches>), String> {
    if let Some(cfg) = &config.switches {
        return switches::open(cfg)
            .map(|s| (None, Some(s)))
            .map_err(|e| e.to_string());
    }
    // Without the port the monitor would wait for ever, saying nothing
    // about the pinsetter; an adapter unplugged later is shown as
    // `serial_link` down, and up again when it is back.
    let port = &config.pinsetter.port;
    if let Err(e) = std::fs::metadata(port) {
        let what = if e.kind() == std::io::ErrorKind::NotFound {
            "does not exist".to_owned()
        } else {
            format!("cannot be reached: {e}")
        };
        return Err(format!(
            "the pinsetter port {} ([pinsetter] port in {}) {what}: plug the serial adapter in, \
             or find its name with `ls -l /dev/serial/by-id/` and set it in the config",
            port.display(),
            path.display()
        ));
    }
    Ok((Some(config.pinsetter.clone()), None))
}

/// [`monitor`], stopping when `stop` completes.
async fn monitor_until(
    link: Option<PinsetterConfig>,
    switches: Option<switches::Switches>,
    gpio: Option<(Vec<InputConfig>, Vec<OutputConfig>)>,
    out: impl Write + Send + 'static,
    stop: impl Future<Output = ()>,
) -> Result<(), GpioError> {
    let start = Instant::now();
    let (tx, rx) = crate::ports::inputs::channel(crate::ports::inputs::CAPACITY);

    // Held until the end: dropping them stops the inputs and frees the pins.
    let _gpio = match gpio {
        Some((inputs, outputs)) => Some(gpio::start_rpi(&inputs, &outputs, tx.clone())?),
        None => None,
    };
    let link_task = link.map(|settings| {
        let (state, _) = tokio::sync::watch::channel(false);
        tokio::spawn(serial::run_pinsetter_link(settings, tx.clone(), state))
    });
    let switches_task = switches.map(|switches| {
        let echo: switches::Echo = Box::new(move |levels| {
            let t = start.elapsed().as_millis();
            println!("{t:>8} {}", switches::levels_line(levels));
        });
        switches.spawn(tx.clone(), Some(echo))
    });
    drop(tx);

    // The std receiver blocks: read it on a blocking thread.
    let mut printer = tokio::task::spawn_blocking(move || print_inputs(rx, out, start));

    tokio::select! {
        () = stop => {}
        _ = &mut printer => {}
    }

    for task in link_task.into_iter().chain(switches_task) {
        task.abort();
        let _ = task.await;
    }
    drop(_gpio);
    // Every sender is gone now, so the printer ends.
    let _ = printer.await;
    Ok(())
}

/// One monitor line for a reading taken at `t` ms after the start.
pub fn monitor_line(t: u64, sensor: Sensor) -> String {
    let line = event_line(&Stamped {
        t,
        event: Event::Sensor(sensor),
    });
    format!("{t:>8} {line}")
}

fn print_inputs(rx: crate::ports::inputs::InputReceiver, mut out: impl Write, start: Instant) {
    while let Ok(input) = rx.recv() {
        let Input::Reading(reading) = input else {
            continue;
        };
        let t = reading.at.saturating_duration_since(start).as_millis();
        let t = u64::try_from(t).unwrap_or(u64::MAX);
        let line = monitor_line(t, reading.sensor);
        if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
        }
    }

    #[test]
    fn monitor_line_is_time_then_journal_form() {
        let line = monitor_line(1234, Sensor::Ball);
        assert_eq!(
            line,
            format!(
                "    1234 {}",
                event_line(&Stamped {
                    t: 1234,
                    event: Event::Sensor(Sensor::Ball)
                })
            )
        );
        assert!(line.contains("\"ev\":\"ball\""), "{line}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn monitor_prints_serial_lines_until_stopped() {
        let (mut master, slave) = serialport::TTYPort::pair().expect("a pseudo-terminal pair");
        let path = serialport::SerialPort::name(&slave).expect("the slave's name");
        let mut settings = PinsetterConfig::default();
        settings.port = path.into();
        settings.baud = 9600;
        settings.reconnect_min = Duration::from_millis(20);
        settings.reconnect_max = Duration::from_millis(200);
        let out = Shared::default();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let run = tokio::spawn(monitor_until(
            Some(settings),
            None,
            None,
            out.clone(),
            async {
                let _ = stop_rx.await;
            },
        ));

        let wait_for = |needle: &'static str| {
            let out = out.clone();
            async move {
                for _ in 0..250 {
                    if out.text().contains(needle) {
                        return true;
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                false
            }
        };
        assert!(
            wait_for("serial_link").await,
            "no link line: {}",
            out.text()
        );
        master.write_all(b"$PS,READY,0,1111111111*54\r\n").unwrap();
        assert!(wait_for("READY").await, "no serial line: {}", out.text());

        stop_tx.send(()).unwrap();
        tokio::time::timeout(Duration::from_secs(5), run)
            .await
            .expect("monitor stops")
            .unwrap()
            .unwrap();
        let text = out.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines[0].contains("\"ev\":\"serial_link\""), "{text}");
        assert!(lines[1].contains("$PS,READY,0,1111111111*54"), "{text}");
        drop(slave);
    }
}

//! The parts the wiring keeps going when they fail: the GPIO, a string
//! pinsetter's pin switches, and the panel's address. Each is tried at
//! start; one that fails there (a line another process holds, an expander
//! that does not answer, an address DHCP has not given yet) is reported to
//! [`Parts`] for the panel's banner and tried again with a backoff while
//! the lane runs, and cleared when it works. Only what can never work on
//! this machine stops the daemon (GPIO where there is no Raspberry Pi).

use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use super::DaemonError;
use crate::config::{Config, InputConfig, OutputConfig, SwitchesConfig};
use crate::lane::{Output, Sensor, Switch};
use crate::ports::{Input, InputSender, OutputSink, Parts};
use crate::sensors::gpio::start_rpi;

/// The first wait before a part is tried again; it doubles up to
/// [`RETRY_MAX`].
const RETRY_MIN: Duration = Duration::from_secs(1);
const RETRY_MAX: Duration = Duration::from_secs(30);

/// Waits of [`RETRY_MIN`], doubling up to [`RETRY_MAX`].
fn retries() -> impl Iterator<Item = Duration> {
    std::iter::successors(Some(RETRY_MIN), |d| Some((*d * 2).min(RETRY_MAX)))
}

/// The relays once the GPIO is open; until then a switch is logged and
/// lost (a foul lamp that cannot be lit is the banner's business).
struct LateOutputs(Arc<Mutex<Option<Box<dyn OutputSink>>>>);

impl OutputSink for LateOutputs {
    fn set(&mut self, output: Output, switch: Switch) {
        match self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
        {
            Some(outputs) => outputs.set(output, switch),
            None => tracing::debug!(?output, ?switch, "the GPIO is not open: output lost"),
        }
    }
}

const GPIO_MEANWHILE: &str = "lanecall tries again by itself; meanwhile the foul line, the \
     ball detector and the rail buttons are not read: a judge watches the foul line";

/// Opens the GPIO's inputs and outputs, now or, when it fails for a reason
/// that may pass, in a task that tries again until it opens (and then
/// holds the lines until it is aborted). An error only when this machine
/// can never have it.
pub(super) fn keep_gpio(
    inputs: &[InputConfig],
    outputs: &[OutputConfig],
    tx: &InputSender,
    parts: &Parts,
) -> Result<(JoinHandle<()>, Box<dyn OutputSink>), DaemonError> {
    let first = match start_rpi(inputs, outputs, tx.clone()) {
        Err(e) if e.is_permanent() => return Err(e.into()),
        first => first,
    };
    let slot = Arc::new(Mutex::new(None));
    let late = Arc::clone(&slot);
    let (inputs, outputs, tx, parts) =
        (inputs.to_vec(), outputs.to_vec(), tx.clone(), parts.clone());
    let task = tokio::spawn(async move {
        let attempt = move || start_rpi(&inputs, &outputs, tx.clone());
        let Some((_gpio, outputs)) =
            until_open("gpio", GPIO_MEANWHILE, &parts, first, attempt).await
        else {
            return;
        };
        *late.lock().unwrap_or_else(PoisonError::into_inner) = Some(outputs);
        // The lines stay requested (and the edges read) until the daemon
        // stops and aborts this task, which drops them.
        std::future::pending::<()>().await;
    });
    Ok((task, Box::new(LateOutputs(slot))))
}

const SWITCHES_MEANWHILE: &str = "lanecall tries again by itself; meanwhile a judge enters \
     the pins standing on the panel's pin pad";

/// Opens a string pinsetter's pin switches and reads them, trying again
/// with a backoff while they cannot be opened (the expander does not
/// answer, its bus is not there). The lane hears the pinsetter's link down
/// once, so the judges get the pin pad, and up at the switches' first
/// reading. An error only when this machine can never have them (switches
/// on GPIO where there is no Raspberry Pi).
pub(super) fn keep_switches(
    config: SwitchesConfig,
    tx: InputSender,
    parts: Parts,
) -> Result<JoinHandle<()>, DaemonError> {
    let first = match crate::sensors::switches::open(&config) {
        Err(e) if e.is_permanent() => return Err(e.into()),
        first => first,
    };
    Ok(tokio::spawn(async move {
        if first.is_err() {
            let down = Input::now(Sensor::SerialLink { up: false });
            if tx.send(down).await.is_err() {
                return;
            }
        }
        let attempt = move || crate::sensors::switches::open(&config);
        if let Some(switches) =
            until_open("switches", SWITCHES_MEANWHILE, &parts, first, attempt).await
        {
            let _ = switches.spawn(tx, None).await;
        }
    }))
}

/// `first`, when it opened, or else the first success of `attempt`, tried
/// again on a blocking thread after waits of [`retries`]; each failure is
/// `part`'s fault on the panel (with what happens `meanwhile`), cleared
/// once it opens. `None` when the runtime stops meanwhile.
async fn until_open<T, E>(
    part: &'static str,
    meanwhile: &'static str,
    parts: &Parts,
    first: Result<T, E>,
    attempt: impl Fn() -> Result<T, E> + Clone + Send + 'static,
) -> Option<T>
where
    T: Send + 'static,
    E: std::fmt::Display + Send + 'static,
{
    let mut waits = retries();
    let mut tried = first;
    loop {
        match tried {
            Ok(opened) => {
                parts.clear(part);
                return Some(opened);
            }
            Err(e) => parts.fault(part, e.to_string(), meanwhile),
        }
        tokio::time::sleep(waits.next().unwrap_or(RETRY_MAX)).await;
        tried = tokio::task::spawn_blocking(attempt.clone()).await.ok()?;
    }
}

/// A journal on a file system kept in memory (tmpfs, ramfs, an overlay:
/// raspi-config's overlay file system) is synced for nothing: every game
/// is gone at the next power cut. The lane scores all the same (the
/// judges may finish a block on paper from the panel) but says so in red
/// on the panel until it restarts on a real card, unless the config
/// allows it (`[journal] allow_volatile`: the demo, a bench). Whether it
/// must also be said aloud: the assistant does not see the panel.
pub(super) fn check_storage(config: &Config, parts: &Parts) -> bool {
    let Some(fs) = crate::config::volatile_storage(&config.state_dir) else {
        return false;
    };
    let dir = config.state_dir.display();
    if config.journal.allow_volatile {
        tracing::warn!(
            "the journal in {dir} is on {fs} ({}): allowed by [journal] allow_volatile, \
             so scores are kept only until the next power cut",
            fs.why()
        );
        return false;
    }
    parts.fault(
        "storage",
        format!(
            "the journal in {dir} is on {fs}, {}: scores are kept in memory only",
            fs.why()
        ),
        "turn the overlay file system off (raspi-config → Performance Options → Overlay File \
         System) or put /var/lib/lanecall on its own writable partition, then restart lanecall",
    );
    true
}

/// The panel's listening socket, or the address it waits for.
pub(super) enum Listener {
    Bound {
        listener: TcpListener,
        addr: SocketAddr,
    },
    /// The address is not on this machine yet (DHCP has not given it, the
    /// interface is not up): bound as soon as it is.
    Waiting { addr: SocketAddr, parts: Parts },
}

const LISTEN_MEANWHILE: &str = "the lane scores and speaks without the panel; lanecall binds \
     the address as soon as this machine has it (check the network, or set [web] listen to \
     \"0.0.0.0:8080\")";

impl Listener {
    /// Binds `addr` now; an address this machine does not have yet is
    /// waited for. Any other failure (the port taken, a port below 1024)
    /// is an error.
    pub(super) async fn bind(addr: SocketAddr, parts: &Parts) -> Result<Listener, DaemonError> {
        match TcpListener::bind(addr).await {
            Ok(listener) => Ok(Listener::Bound {
                addr: listener.local_addr().unwrap_or(addr),
                listener,
            }),
            Err(e) if e.kind() == io::ErrorKind::AddrNotAvailable => {
                parts.fault("listen", not_there(addr, &e), LISTEN_MEANWHILE);
                Ok(Listener::Waiting {
                    addr,
                    parts: parts.clone(),
                })
            }
            Err(source) => Err(DaemonError::Listen { addr, source }),
        }
    }

    /// The address it listens on, or will.
    pub(super) fn addr(&self) -> SocketAddr {
        match self {
            Listener::Bound { addr, .. } | Listener::Waiting { addr, .. } => *addr,
        }
    }

    /// The socket, once the address can be bound.
    pub(super) async fn when_present(self) -> TcpListener {
        let (addr, parts) = match self {
            Listener::Bound { listener, .. } => return listener,
            Listener::Waiting { addr, parts } => (addr, parts),
        };
        let mut waits = retries();
        loop {
            tokio::time::sleep(waits.next().unwrap_or(RETRY_MAX)).await;
            match TcpListener::bind(addr).await {
                Ok(listener) => {
                    parts.clear("listen");
                    tracing::info!(%addr, "the panel listens");
                    return listener;
                }
                Err(e) => parts.fault("listen", not_there(addr, &e), LISTEN_MEANWHILE),
            }
        }
    }
}

fn not_there(addr: SocketAddr, e: &io::Error) -> String {
    format!(
        "cannot listen on {addr} ([web] listen): {e}; this machine does not have the address {} yet",
        addr.ip()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_is_tried_again_sooner_first_then_every_half_minute() {
        let waits: Vec<u64> = retries().take(7).map(|d| d.as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 30, 30]);
    }

    #[tokio::test]
    async fn an_address_not_there_yet_is_waited_for_and_a_taken_port_is_an_error() {
        // TEST-NET-1: on no machine's interface.
        let absent = SocketAddr::from(([192, 0, 2, 1], 8080));
        let parts = Parts::default();
        match Listener::bind(absent, &parts).await {
            // A sandbox that binds any address: nothing to wait for.
            Ok(Listener::Bound { .. }) => return,
            Ok(Listener::Waiting { addr, .. }) => assert_eq!(addr, absent),
            Err(e) => panic!("{e}"),
        }
        let faults = parts.faults();
        assert_eq!(faults.len(), 1);
        assert_eq!(faults[0].part, "listen");
        assert!(faults[0].problem.contains("192.0.2.1"), "{faults:?}");

        let taken = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = taken.local_addr().unwrap();
        match Listener::bind(addr, &Parts::default()).await {
            Err(DaemonError::Listen { addr: a, .. }) => assert_eq!(a, addr),
            _ => panic!("a port taken is not waited for"),
        }
    }
}

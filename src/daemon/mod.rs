//! The wiring: starts the lane's thread ([`crate::lane_thread`]) and every
//! adapter around it (the GPIO, the lane's source of readings, the
//! speaker, the panel's HTTP server, the link to the centre), tells
//! systemd it is ready and alive, and stops it all on SIGTERM.
//!
//! This is the one place that knows every adapter; no adapter knows it.
//! They meet the lane's thread only through [`crate::ports`]. Where the
//! readings come from is the caller's choice ([`Source`]): the pinsetter's
//! link, pin switches, or a script that plays the lane ([`Script`], which
//! the simulator's lanes implement above the daemon). A new adapter is a
//! new file and one line in [`serve`].

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

use crate::config::{Config, GpioBackend};
use crate::journal::store::StoreError;
use crate::lane_thread::{HEARTBEAT, LaneRunner, RunnerSettings};
use crate::ports::{Input, InputSender, LaneSnapshot, OutputSink, Parts};
use crate::replay::Replay;
use crate::sensors::gpio::{GpioError, NullOutputs};
use crate::web::{self, ApiState};
use keep::{Listener, keep_gpio};
pub use source::{Script, ScriptedLane, Source};

mod keep;
mod source;

/// Why the daemon could not start.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Gpio(#[from] GpioError),
    #[error("cannot listen on {addr}: {source}")]
    Listen { addr: SocketAddr, source: io::Error },
    #[error("cannot start the lane's thread: {0}")]
    Thread(io::Error),
    #[error(transparent)]
    Tls(#[from] web::server::TlsError),
    #[error(transparent)]
    Centre(#[from] crate::centre_link::LinkError),
    #[error(
        "the lane's thread stopped by itself: the lane is not scored, exiting so that it restarts"
    )]
    LaneStopped,
}

impl DaemonError {
    /// Whether the config asks what this machine cannot do, so that no
    /// restart can help: GPIO (or pin switches on GPIO) on a machine that
    /// is not a Pi, HTTPS files that cannot be used. A part that may come
    /// (a GPIO line another process holds, an expander that does not
    /// answer) never stops the daemon ([`keep`]).
    pub fn is_config(&self) -> bool {
        match self {
            DaemonError::Gpio(e) => e.is_permanent(),
            DaemonError::Tls(_) => true,
            _ => false,
        }
    }
}

/// How the daemon runs beyond its config and its source.
#[derive(Clone, Debug, Default)]
pub struct ServeOptions {
    /// Stop by itself after this long (wall time).
    pub stop_after: Option<Duration>,
    /// What `check-config` would refuse on this machine (a serial console
    /// on the pinsetter's port, a pin a HAT's overlay takes), each as
    /// `key: message`: the lane runs, and the panel shows them.
    pub site_problems: Vec<String>,
}

/// What a running daemon tells the one who started it.
pub struct Started {
    pub listen: SocketAddr,
    pub journal: PathBuf,
}

/// Runs the lane: the lane's thread, its `source` of readings, the GPIO
/// (but for a script), the control API, the link to the centre. Returns
/// the lane as it stood when it stopped (on SIGTERM, Ctrl-C,
/// `stop_after`, or when a script that ends has played).
pub async fn serve(
    config: Config,
    source: Source,
    options: ServeOptions,
    on_start: impl FnOnce(&Started),
) -> Result<Replay, DaemonError> {
    // SIGTERM is caught from the start: one that comes as soon as the panel
    // answers must stop the lane cleanly, not kill it mid-write.
    let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let (tx, rx) = crate::ports::inputs::channel(crate::ports::inputs::CAPACITY);
    // Each part that fails says so here, for the panel's banners.
    let parts = crate::ports::Parts::default();
    let speed = source.script().map(|s| s.speed());
    let Gpio {
        task: gpio,
        outputs,
    } = open_gpio(&config, speed.is_none(), &tx, &parts)?;
    // The panel's port and HTTPS files before the journal: a port taken or
    // a file missing leaves no journal behind.
    let panel = Panel::bind(&config, &parts).await?;
    let lane = Lane::start(&config, speed, &options, outputs, &parts, &tx)?;
    let Lane {
        mut core,
        snapshot,
        centre,
    } = lane;
    let mut source = source::start(source, &mut core, &config, snapshot.clone(), &tx, &parts)?;
    let heartbeat = core.heartbeat();
    let journal = core.journal_path().to_owned();
    let lane_thread = std::thread::Builder::new()
        .name("lane".into())
        .spawn(move || core.run(rx))
        .map_err(DaemonError::Thread)?;
    let listen = panel.listener.addr();
    let web = panel.serve(&config, &tx, snapshot);
    on_start(&Started {
        listen,
        journal: journal.clone(),
    });
    tracing::info!(%listen, journal = %journal.display(), "lane {} is up", config.lane);
    let _ = sd_notify::notify(&[sd_notify::NotifyState::Ready]);
    let watchdog = tokio::spawn(watchdog(heartbeat));

    let mut lane_done = tokio::task::spawn_blocking(move || lane_thread.join());
    // The lane's thread ends only when told to: if it ends on its own (a
    // bug), the daemon must not go on serving a lane nobody scores.
    let mut script_played = false;
    let lane_ended = tokio::select! {
        () = wait_for_stop(options.stop_after, term) => None,
        _ = &mut source.task, if source.ends => {
            script_played = true;
            None
        }
        joined = &mut lane_done => Some(joined),
    };
    tracing::info!("stopping");
    let _ = sd_notify::notify(&[sd_notify::NotifyState::Stopping]);
    source.task.abort();
    watchdog.abort();
    if let Some(gpio) = gpio {
        gpio.abort();
    }
    stop_lane(tx, script_played).await;
    web.stop().await;
    let result = match lane_ended {
        Some(_) => Err(DaemonError::LaneStopped),
        None => match lane_done.await {
            Ok(Ok(replay)) => Ok(replay),
            _ => Err(DaemonError::LaneStopped),
        },
    };
    // After the lane's thread: its last lines go to the centre too.
    if let Some(link) = centre {
        link.stop().await;
    }
    result
}

/// The GPIO's task (while it is tried again or holds its lines) and its
/// outputs.
struct Gpio {
    task: Option<JoinHandle<()>>,
    outputs: Box<dyn OutputSink>,
}

/// The GPIO, first: on a machine that can never have it, fail before
/// anything else; a Pi's GPIO that fails now (a line another process
/// holds, a chip not there yet) is tried again while the lane runs. None
/// for a lane a script plays (`wanted` false), or without `[gpio]`.
fn open_gpio(
    config: &Config,
    wanted: bool,
    tx: &InputSender,
    parts: &Parts,
) -> Result<Gpio, DaemonError> {
    match config.gpio.backend {
        GpioBackend::Rpi if wanted => {
            let (task, outputs) = keep_gpio(&config.gpio.inputs, &config.gpio.outputs, tx, parts)?;
            Ok(Gpio {
                task: Some(task),
                outputs,
            })
        }
        _ => Ok(Gpio {
            task: None,
            outputs: Box::new(NullOutputs),
        }),
    }
}

/// The lane's thread before it runs, with what is wired to it.
struct Lane {
    core: LaneRunner,
    snapshot: watch::Receiver<LaneSnapshot>,
    /// The link to the centre (`[centre]`).
    centre: Option<crate::centre_link::CentreLink>,
}

impl Lane {
    /// Opens the journal and the lane in it, with the speaker, the
    /// journal's mirror and the link to the centre as the config asks.
    /// `speed`: a script plays the lane this much faster than life.
    fn start(
        config: &Config,
        speed: Option<f64>,
        options: &ServeOptions,
        outputs: Box<dyn OutputSink>,
        parts: &Parts,
        tx: &InputSender,
    ) -> Result<Lane, DaemonError> {
        let settings = RunnerSettings {
            state_dir: config.state_dir.clone(),
            lane: config.lane,
            rules: config.rules.clone(),
            speed: speed.unwrap_or(1.0),
            simulated: speed.is_some(),
            language: config.speaker.language,
        };
        let voice = Box::new(crate::speaker::Voice::start(&config.speaker));
        if !options.site_problems.is_empty() {
            parts.fault(
                "config",
                options.site_problems.join("; "),
                "run `sudo lanecall check-config`, fix what it names, then restart lanecall",
            );
        }
        if keep::check_storage(config, parts) {
            voice.journal_volatile();
        }
        let (mut core, snapshot) = LaneRunner::start(settings, outputs, voice)?;
        core.watch_parts(parts.clone());
        // `[journal] mirror`: a live second copy of the journal.
        if let Some(target) = &config.journal.mirror {
            core.add_journal_sink(Box::new(crate::journal::mirror::Mirror::start(
                target.clone(),
            )));
        }
        // `[centre]`: the link to the centre's broker; none, no connection.
        let centre = match &config.centre {
            Some(centre) => {
                let lane = crate::centre_link::LaneSide {
                    lane: config.lane,
                    journal_dir: config.journal_dir(),
                    inputs: tx.clone(),
                    state: snapshot.clone(),
                };
                let (link, sink) = crate::centre_link::CentreLink::start(centre, lane)?;
                core.add_journal_sink(sink);
                Some(link)
            }
            None => None,
        };
        Ok(Lane {
            core,
            snapshot,
            centre,
        })
    }
}

/// The panel's listening socket and HTTPS files, bound before the journal
/// is opened.
struct Panel {
    listener: Listener,
    tls: Option<tokio_rustls::TlsAcceptor>,
}

/// The panel's server, running until [`Web::stop`].
struct Web {
    stop: oneshot::Sender<()>,
    server: JoinHandle<()>,
}

impl Web {
    async fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.server.await;
    }
}

impl Panel {
    async fn bind(config: &Config, parts: &Parts) -> Result<Panel, DaemonError> {
        let tls = match &config.web.tls {
            Some(files) => Some(web::server::tls_acceptor(files)?),
            None => None,
        };
        let listener = Listener::bind(config.web.listen, parts).await?;
        Ok(Panel { listener, tls })
    }

    /// Serves the control API (and the panel) on the lane, within the
    /// connection cap the file limit allows.
    fn serve(self, config: &Config, tx: &InputSender, lane: watch::Receiver<LaneSnapshot>) -> Web {
        let api = web::router(ApiState {
            inputs: tx.clone(),
            lane,
            cookie_key: web::auth::session_key(&config.state_dir),
            auth: web::AuthSettings::from_config(config),
            journal_dir: Some(config.journal_dir()),
            live_views: config.web.max_live_views,
            event: config.web.event.clone(),
        });
        let fd_limit = web::server::fd_limit();
        let limits = web::server::Limits::new(web::server::connection_cap(
            config.web.max_connections,
            fd_limit,
        ));
        tracing::info!(
            max_connections = limits.max_connections,
            max_live_views = config.web.max_live_views,
            fd_limit,
            https = self.tls.is_some(),
            "the panel's connection cap is {}",
            limits.max_connections
        );
        if limits.max_connections < config.web.max_connections {
            tracing::warn!(
                "web.max_connections {} lowered to {}: the file limit is {fd_limit:?}; raise LimitNOFILE",
                config.web.max_connections,
                limits.max_connections
            );
        }
        let (stop, web_stopped) = oneshot::channel::<()>();
        let Panel { listener, tls } = self;
        let server = tokio::spawn(async move {
            let stopped = async {
                let _ = web_stopped.await;
            };
            tokio::pin!(stopped);
            let listener = tokio::select! {
                listener = listener.when_present() => listener,
                () = &mut stopped => return,
            };
            web::server::serve(listener, api, tls, limits, stopped).await;
        });
        Web { stop, server }
    }
}

/// Tells the lane's thread to stop. After a script that has played, its
/// last input sent but perhaps not taken (on a busy machine hundreds may
/// still be queued), the lane stops after them (the same seed, the same
/// journal, however late), unless it takes none for [`SCRIPT_DRAIN`] (a
/// lane that no longer reads its queue); else at once.
async fn stop_lane(tx: InputSender, script_played: bool) {
    if script_played {
        let drained = tokio::time::timeout(SCRIPT_DRAIN, tx.send(Input::Shutdown)).await;
        if drained.is_err() {
            tx.stop();
        }
    } else {
        tx.stop();
    }
}

/// How long the lane may take to make room for the stop at a
/// script's end before it is stopped with its queue.
const SCRIPT_DRAIN: Duration = Duration::from_secs(60);

/// Tells systemd the daemon is alive, but only while the lane's thread
/// keeps turning: a stuck lane gets restarted.
async fn watchdog(heartbeat: Arc<AtomicU64>) {
    let Some(timeout) = sd_notify::watchdog_enabled().filter(|d| !d.is_zero()) else {
        return;
    };
    let period = timeout / 2;
    let mut last_seen = heartbeat.load(Ordering::Relaxed);
    let mut last_change = Instant::now();
    loop {
        tokio::time::sleep(period).await;
        let beat = heartbeat.load(Ordering::Relaxed);
        if beat != last_seen {
            last_seen = beat;
            last_change = Instant::now();
        }
        // The lane's thread turns at least every HEARTBEAT.
        if last_change.elapsed() <= HEARTBEAT * 3 + period {
            let _ = sd_notify::notify(&[sd_notify::NotifyState::Watchdog]);
        } else {
            tracing::error!(
                "the lane's thread has not turned for {:?}: no watchdog ping",
                last_change.elapsed()
            );
        }
    }
}

async fn wait_for_stop(after: Option<Duration>, term: Option<tokio::signal::unix::Signal>) {
    let timer = async {
        match after {
            Some(d) => tokio::time::sleep(d).await,
            None => std::future::pending().await,
        }
    };
    let term = async {
        match term {
            Some(mut s) => {
                s.recv().await;
            }
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = timer => {}
        _ = term => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}

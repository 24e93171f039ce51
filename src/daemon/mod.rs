//! The wiring: starts the lane's thread ([`crate::lane_thread`]) and every
//! adapter around it (the GPIO, the pinsetter link or the demo, the
//! speaker, the panel's HTTP server), tells systemd it is ready and alive,
//! and stops it all on SIGTERM.
//!
//! This is the one place that knows every adapter; no adapter knows it.
//! They meet the lane's thread only through [`crate::ports`]. A new
//! adapter is a new file and one line in [`serve`].

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{oneshot, watch};

use crate::config::{Config, GpioBackend};
use crate::journal::store::StoreError;
use crate::lane::Millis;
use crate::lane_thread::{HEARTBEAT, LaneRunner, RunnerSettings};
use crate::ports::{Input, OutputSink};
use crate::replay::Replay;
use crate::sensors::gpio::{GpioError, NullOutputs};
use crate::web::{self, ApiState};
use keep::{Listener, keep_gpio, keep_switches};

mod keep;

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
    #[error("the centre: {0}")]
    CentreStart(String),
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

/// How the daemon runs beyond its config.
#[derive(Clone, Debug, Default)]
pub struct ServeOptions {
    /// Play the simulator instead of listening to a pinsetter: the demo.
    pub demo: Option<DemoOptions>,
    /// Stop by itself after this long; the demo, once its script has
    /// played this long at its speed.
    pub stop_after: Option<Duration>,
    /// What `check-config` would refuse on this machine (a serial console
    /// on the pinsetter's port, a pin a HAT's overlay takes), each as
    /// `key: message`: the lane runs, and the panel shows them.
    pub site_problems: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct DemoOptions {
    pub speed: f64,
    pub seed: u64,
    /// A lane of a demo centre with a programme: it bowls the blocks the
    /// centre whose page is here pushes, with the games the centre gives
    /// them ([`crate::demo::follow_pushes`]), not a script of its own.
    pub pushed: Option<SocketAddr>,
}

/// What a running daemon tells the one who started it.
pub struct Started {
    pub listen: SocketAddr,
    pub journal: PathBuf,
}

/// Runs the lane: the lane's thread, the pinsetter link (or the demo
/// simulator), the GPIO, the control API. Returns the lane as it stood
/// when it stopped (on SIGTERM, Ctrl-C or `stop_after`).
pub async fn serve(
    config: Config,
    options: ServeOptions,
    on_start: impl FnOnce(&Started),
) -> Result<Replay, DaemonError> {
    // SIGTERM is caught from the start: one that comes as soon as the panel
    // answers must stop the lane cleanly, not kill it mid-write.
    let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let (tx, rx) = crate::ports::inputs::channel(crate::ports::inputs::CAPACITY);
    let demo = options.demo.clone();
    // Each part that fails says so here, for the panel's banners.
    let parts = crate::ports::Parts::default();
    // GPIO first: on a machine that can never have it, fail before
    // anything else; a Pi's GPIO that fails now (a line another process
    // holds, a chip not there yet) is tried again while the lane runs.
    let (gpio, outputs): (Option<tokio::task::JoinHandle<()>>, Box<dyn OutputSink>) =
        match config.gpio.backend {
            GpioBackend::Rpi if demo.is_none() => {
                let (task, outputs) =
                    keep_gpio(&config.gpio.inputs, &config.gpio.outputs, &tx, &parts)?;
                (Some(task), outputs)
            }
            _ => (None, Box::new(NullOutputs)),
        };
    let switches = config.switches.clone().filter(|_| demo.is_none());
    // The panel's port and HTTPS files before the journal: a port taken or
    // a file missing leaves no journal behind.
    let tls = match &config.web.tls {
        Some(files) => Some(web::server::tls_acceptor(files)?),
        None => None,
    };
    let listener = Listener::bind(config.web.listen, &parts).await?;
    let listen = listener.addr();
    let settings = RunnerSettings {
        state_dir: config.state_dir.clone(),
        lane: config.lane,
        rules: config.rules.clone(),
        speed: demo.as_ref().map_or(1.0, |d| d.speed),
        simulated: demo.is_some(),
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
    if keep::check_storage(&config, &parts) {
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
    let clock = core.clock();
    let lane_state = snapshot.clone();
    // The demo's lane time follows its script, from where the lane stands.
    let script = demo.as_ref().map(|d| (d, core.follow_script()));
    let heartbeat = core.heartbeat();
    let journal = core.journal_path().to_owned();
    let lane_thread = std::thread::Builder::new()
        .name("lane".into())
        .spawn(move || core.run(rx))
        .map_err(DaemonError::Thread)?;

    let api = web::router(ApiState {
        inputs: tx.clone(),
        lane: snapshot,
        cookie_key: web::auth::session_key(&config.state_dir),
        auth: web::AuthSettings::from_config(&config),
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
        https = tls.is_some(),
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
    let (stop_web, web_stopped) = oneshot::channel::<()>();
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

    // The demo stops when its script has played `stop_after` (at its
    // speed), however late a busy machine plays it: the same seed, the same
    // journal.
    let (stop_after, script_end) = match script {
        Some((d, start)) if d.pushed.is_none() => (
            None,
            options
                .stop_after
                .map(|after| start + (after.as_secs_f64() * 1000.0 * d.speed) as Millis),
        ),
        _ => (options.stop_after, None),
    };
    let mut source = match script {
        Some((d, start)) if let Some(centre) = d.pushed => {
            tokio::spawn(crate::demo::follow_pushes(
                clock,
                start,
                config.lane,
                d.seed,
                centre,
                lane_state,
                tx.clone(),
            ))
        }
        Some((d, start)) => tokio::spawn(crate::demo::play(
            clock,
            start,
            script_end,
            config.lane,
            d.seed,
            tx.clone(),
        )),
        None if let Some(switches) = switches => {
            keep_switches(switches, tx.clone(), parts.clone())?
        }
        None => {
            let (link_state, _) = watch::channel(false);
            let link = config.pinsetter.clone();
            tokio::spawn(crate::sensors::serial::run_pinsetter_link(
                link,
                tx.clone(),
                link_state,
            ))
        }
    };
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
        () = wait_for_stop(stop_after, term) => None,
        _ = &mut source, if script_end.is_some() => {
            script_played = true;
            None
        }
        joined = &mut lane_done => Some(joined),
    };
    tracing::info!("stopping");
    let _ = sd_notify::notify(&[sd_notify::NotifyState::Stopping]);
    source.abort();
    watchdog.abort();
    if let Some(gpio) = gpio {
        gpio.abort();
    }
    if script_played {
        // The script has sent its last input, not the lane taken it: on a
        // busy machine hundreds may still be queued. The lane stops after
        // them (the same seed, the same journal, however late), unless it
        // takes none for a minute (a lane that no longer reads its queue).
        let drained = tokio::time::timeout(SCRIPT_DRAIN, tx.send(Input::Shutdown)).await;
        if drained.is_err() {
            tx.stop();
        }
    } else {
        tx.stop();
    }
    drop(tx);
    let _ = stop_web.send(());
    let _ = server.await;
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

/// How long the lane may take to make room for the stop at a demo
/// script's end before it is stopped with its queue.
const SCRIPT_DRAIN: Duration = Duration::from_secs(60);

/// `lanecall demo --lanes N`: the centre with its embedded broker and `N`
/// demo lanes, each a whole lane as [`serve`] runs it (journal, core,
/// panel, `[centre]` link), in this one process.
#[derive(Clone, Debug)]
pub struct CentreDemo {
    pub lanes: u32,
    /// The centre's and each lane's folder are made under it.
    pub state_dir: PathBuf,
    /// The centre's page; lane `k`'s panel listens on the next port up by
    /// `k` (any free port when this one is 0).
    pub listen: SocketAddr,
    pub judge_pin_hash: String,
    /// The PIN itself: the demo's director logs in with it.
    pub judge_pin: String,
    /// The competition's programme; `None`: the built-in one
    /// ([`crate::demo::programme`]).
    pub programme: Option<PathBuf>,
    pub demo: DemoOptions,
    pub stop_after: Option<Duration>,
}

/// Runs [`CentreDemo`] until every lane stops (SIGTERM, Ctrl-C or
/// `stop_after`); `on_start` gets the centre's page and each lane's panel.
/// Only lane 1 speaks: a room of loudspeakers saying every lane's pins at
/// once helps nobody.
pub async fn serve_centre_demo(
    demo: CentreDemo,
    on_start: impl FnOnce(SocketAddr, &[(u32, Started)]),
) -> Result<(), DaemonError> {
    // The demo's logins, made afresh: a password for each lane, as a real
    // centre has (docs/centre.md); only this process knows them.
    let logins_dir = demo.state_dir.join("centre");
    let logins = demo_logins(&logins_dir, demo.lanes).map_err(|e| {
        DaemonError::CentreStart(format!(
            "cannot write the demo's logins in {}: {e}",
            logins_dir.display()
        ))
    })?;
    let programme = crate::demo::programme::DemoProgramme::prepare(
        &logins_dir,
        demo.lanes,
        demo.programme.as_deref(),
    )
    .map_err(DaemonError::CentreStart)?;
    let centre = crate::centre::start(crate::centre::config::CentreConfig {
        site: "demo".into(),
        state_dir: demo.state_dir.join("centre"),
        web_listen: demo.listen,
        judge_pin_hash: demo.judge_pin_hash.clone(),
        judges: Vec::new(),
        // Any free port: the centre binds it and says which.
        broker: crate::centre::config::Broker::Embedded {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        },
        username: None,
        password_file: None,
        passwords: Some(logins.passwords.clone()),
        allow_anonymous: false,
        lanes: None,
        programme: Some(programme.path.clone()),
    })
    .await
    .map_err(DaemonError::CentreStart)?;
    let pushed = Some(centre.web);
    let broker = centre
        .broker
        .ok_or_else(|| DaemonError::CentreStart("the demo's broker did not start".into()))?;
    let (started_tx, mut started_rx) = tokio::sync::mpsc::unbounded_channel();
    let mut lanes = Vec::new();
    for k in 1..=demo.lanes {
        let port = match demo.listen.port() {
            0 => 0,
            p => p.saturating_add(u16::try_from(k).unwrap_or(u16::MAX)),
        };
        let mut config = Config::demo(
            demo.state_dir.join(format!("lane{k}")),
            SocketAddr::new(demo.listen.ip(), port),
            demo.judge_pin_hash.clone(),
        );
        config.lane = k;
        config.speaker.enabled &= k == 1;
        config.centre = Some(crate::config::CentreConfig {
            broker: crate::mqtt::BrokerUrl {
                host: "127.0.0.1".into(),
                port: broker.port(),
                tls: false,
            },
            ca_file: None,
            site: "demo".into(),
            username: Some(format!("lane{k}")),
            password_file: Some(logins.lane_password(k)),
            accept_commands: true,
            neighbours: [k - 1, k + 1]
                .into_iter()
                .filter(|n| (1..=demo.lanes).contains(n))
                .collect(),
        });
        std::fs::create_dir_all(&config.state_dir).map_err(|e| {
            DaemonError::CentreStart(format!("cannot make {}: {e}", config.state_dir.display()))
        })?;
        let options = ServeOptions {
            demo: Some(DemoOptions {
                speed: demo.demo.speed,
                seed: demo.demo.seed.wrapping_add(u64::from(k)),
                pushed,
            }),
            stop_after: demo.stop_after,
            site_problems: Vec::new(),
        };
        let tx = started_tx.clone();
        lanes.push(tokio::spawn(serve(config, options, move |s| {
            let _ = tx.send((
                k,
                Started {
                    listen: s.listen,
                    journal: s.journal.clone(),
                },
            ));
        })));
    }
    drop(started_tx);
    let mut started = Vec::new();
    while let Some(s) = started_rx.recv().await {
        started.push(s);
    }
    started.sort_by_key(|(k, _)| *k);
    if started.len() == lanes.len() {
        on_start(centre.web, &started);
        if let Some(block) = programme.first_block {
            tokio::spawn(crate::demo::director::push_when_online(
                centre.web,
                centre.book.clone(),
                lanes.len(),
                demo.judge_pin.clone(),
                block,
            ));
        }
    }
    let mut result = Ok(());
    for lane in lanes {
        match lane.await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => result = result.and(Err(e)),
            Err(_) => result = result.and(Err(DaemonError::LaneStopped)),
        }
    }
    centre.stop().await;
    result
}

/// The demo centre's MQTT logins on disk, readable by this user only.
struct DemoLogins {
    /// The embedded broker's `passwords` file.
    passwords: PathBuf,
    dir: PathBuf,
}

impl DemoLogins {
    /// Lane `k`'s `password_file`.
    fn lane_password(&self, k: u32) -> PathBuf {
        self.dir.join(format!("lane{k}.password"))
    }
}

/// Writes a fresh random password for each of `lanes` lanes into `dir`:
/// the broker's `passwords` file and each lane's own password file.
fn demo_logins(dir: &std::path::Path, lanes: u32) -> io::Result<DemoLogins> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::create_dir_all(dir)?;
    let logins = DemoLogins {
        passwords: dir.join("mqtt-passwords"),
        dir: dir.to_owned(),
    };
    let private = |path: &std::path::Path, text: &str| -> io::Result<()> {
        let _ = std::fs::remove_file(path);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)?;
        f.write_all(text.as_bytes())
    };
    let mut all = String::new();
    for k in 1..=lanes {
        let password = crate::web::auth::secret().map_err(io::Error::other)?;
        private(&logins.lane_password(k), &format!("{password}\n"))?;
        all += &format!("lane{k}:{password}\n");
    }
    private(&logins.passwords, &all)?;
    Ok(logins)
}

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

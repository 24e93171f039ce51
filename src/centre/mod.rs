//! `lanecall centre`: the competition's centre (docs/centre.md). It keeps a
//! mirror of every lane's journals from MQTT (docs/mqtt.md), replays each
//! with the lane's own core, and serves the lanes at a glance, the
//! standings and the chief judge's block control.
//!
//! - `config`: its config file; `broker`: the embedded MQTT broker;
//! - `link`: its MQTT client; `mirror`: the journals on its disk;
//!   `feed`: one replay per journal; `book`: what it knows of each lane;
//! - `kept`: what its page changes, kept in its `state_dir` with a record;
//! - `commands`: lineups and holds sent to the lanes, and their answers;
//! - `api`: its HTTP routes and page;
//! - [`programme`]: the chief judge's programme (entries, events, blocks
//!   with their lane assignments, finals) and each block's lineups;
//! - [`standings`]: the games the lanes report turned into the standings
//!   per category, team totals, the finals and the results protocol (pure
//!   logic, no network).

pub mod api;
pub mod book;
pub mod broker;
pub mod commands;
pub mod config;
pub mod entries;
pub mod feed;
pub mod kept;
pub mod lanes;
pub mod link;
pub mod mirror;
pub mod programme;
pub mod results;
pub mod say;
pub mod standings;
pub mod status;
pub mod void;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{mpsc, oneshot, watch};

use book::Book;
use config::{Broker, CentreConfig};

use crate::mqtt::BrokerUrl;

/// Lanes known at most.
pub const MAX_LANES: usize = 256;
pub use crate::mqtt::topic::MAX_LANE_NUMBER;
/// Journal files kept per lane.
pub const MAX_FILES: usize = 1024;
/// The largest MQTT message taken (a lane's state object).
pub const MAX_PAYLOAD: usize = 1 << 20;
/// The largest journal message taken.
pub const MAX_JOURNAL_MESSAGE: usize = 64 * 1024;
/// Journal lines waiting for the mirror's thread.
const MIRROR_QUEUE: usize = 4096;

/// A running centre; [`Centre::stop`] stops it.
pub struct Centre {
    /// Where the page and API listen.
    pub web: SocketAddr,
    /// Where the embedded broker listens (`None` with another broker).
    pub broker: Option<SocketAddr>,
    /// What the centre knows: lanes, mirrors, replays.
    pub book: Arc<Mutex<Book>>,
    stop: watch::Sender<bool>,
    stop_web: Option<oneshot::Sender<()>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    mirror: Option<std::thread::JoinHandle<()>>,
}

impl Centre {
    /// Stops the web server, says `offline` on the centre's status, and
    /// lets the mirror sync what it wrote. The embedded broker, if any,
    /// runs on until the process ends.
    pub async fn stop(mut self) {
        let _ = self.stop.send(true);
        if let Some(s) = self.stop_web.take() {
            let _ = s.send(());
        }
        for t in self.tasks.drain(..) {
            let _ = t.await;
        }
        if let Some(m) = self.mirror.take() {
            let _ = tokio::task::spawn_blocking(move || m.join()).await;
        }
    }
}

/// Starts the centre: the embedded broker (when no `broker` is set), the
/// mirror read back from disk, the MQTT link and the web server.
pub async fn start(config: CentreConfig) -> Result<Centre, String> {
    let book = Arc::new(Mutex::new(Book::default()));
    // The embedded broker's login for the centre, made at its start, and
    // the lanes with a login on it.
    let mut embedded_login = None;
    let mut login_lanes = None;
    let mut backlog = None;
    let mut embedded_at = None;
    let (broker, transport) = match &config.broker {
        Broker::External { url, ca_file } => (url.clone(), url.transport(ca_file.as_deref())?),
        Broker::Embedded { listen } => {
            let listen = *listen;
            let settings = broker::BrokerSettings {
                listen,
                passwords: config.passwords.clone(),
                allow_anonymous: config.allow_anonymous,
                site: config.site.clone(),
                centre_user: config.username.clone().unwrap_or_else(|| "centre".into()),
            };
            let user = settings.centre_user.clone();
            let alarms = Arc::clone(&book);
            let centre_user = user.clone();
            let on_alarm = Box::new(move |a: broker::Alarm| {
                alarms.lock().unwrap_or_else(PoisonError::into_inner).alarm(
                    a.kind(),
                    a.lane(&centre_user),
                    a.detail(),
                );
            });
            let started = tokio::task::spawn_blocking(move || broker::start(settings, on_alarm))
                .await
                .map_err(|e| e.to_string())??;
            let listen = started.listen;
            embedded_at = Some(listen);
            embedded_login = Some((user, started.centre_password));
            login_lanes = Some(started.lanes);
            backlog = Some(started.backlog);
            book.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .broker_stats = Some(started.stats);
            book.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .broker_backlog = backlog.clone();
            let host = if listen.ip().is_unspecified() {
                "127.0.0.1".to_owned()
            } else {
                listen.ip().to_string()
            };
            let url = BrokerUrl {
                host,
                port: listen.port(),
                tls: false,
            };
            (url, rumqttc::Transport::Tcp)
        }
    };
    let entries = match &config.programme {
        Some(path) => Some(Arc::new(Mutex::new(
            entries::Entries::load(path, &config.state_dir).map_err(|e| e.to_string())?,
        ))),
        None => None,
    };
    let programme = entries
        .as_ref()
        .map(|e| e.lock().unwrap_or_else(PoisonError::into_inner).programme());
    let logins = login_lanes.as_ref().map(|l| l.iter().copied().collect());
    let page_lanes = lanes::Kept::load(&config.state_dir, logins)?;
    {
        let mut b = book.lock().unwrap_or_else(PoisonError::into_inner);
        b.admit = admitted(&config, programme.as_deref(), login_lanes);
        // The lanes added on the page are taken as the config's are.
        if let book::Admit::Listed(admitted) = &mut b.admit {
            admitted.extend(page_lanes.added.keys().copied());
        }
        b.page_lanes = page_lanes;
    }
    let password = match &config.password_file {
        Some(p) => Some(
            crate::config::read_password_file(p)
                .map_err(|e| format!("password_file {}: {e}", p.display()))?,
        ),
        None => None,
    };
    let (username, password) = match embedded_login {
        Some((user, password)) => (Some(user), Some(password)),
        None => (config.username.clone(), password),
    };
    let settings = link::LinkSettings {
        broker,
        transport,
        site: config.site.clone(),
        username,
        password,
        backlog: backlog.clone(),
    };
    std::fs::create_dir_all(&config.state_dir)
        .map_err(|e| format!("cannot make {}: {e}", config.state_dir.display()))?;
    let (client, events) = link::client(&settings);
    let commands = Arc::new(commands::Commands::new(client.clone(), config.site.clone()));
    let resend_commands = Arc::clone(&commands);
    let mirror = mirror::Mirror::load(
        config.state_dir.join("lanes"),
        Arc::clone(&book),
        Box::new(move |lane, file, from, to| resend_commands.resend(lane, file, from, to)),
    )
    .map_err(|e| {
        format!(
            "cannot read the mirror in {}: {e}",
            config.state_dir.display()
        )
    })?;
    let (to_mirror, mirror_rx) = mpsc::channel(MIRROR_QUEUE);
    let mirror_thread = std::thread::Builder::new()
        .name("centre-mirror".into())
        .spawn(move || mirror.run(mirror_rx))
        .map_err(|e| e.to_string())?;

    let listener = tokio::net::TcpListener::bind(config.web_listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", config.web_listen))?;
    let web = listener.local_addr().map_err(|e| e.to_string())?;
    let mut auth = crate::web::AuthSettings::with_pin_hash(config.judge_pin_hash.clone());
    auth.judges = config.judges.clone();
    auth.state_dir = Some(config.state_dir.clone());
    let voids = Arc::new(void::Voids::load(Some(&config.state_dir))?);
    let app = api::router(
        Arc::clone(&book),
        entries,
        Arc::clone(&commands),
        &config.site,
        auth,
        crate::web::auth::session_key(&config.state_dir),
        voids,
    );
    let (stop_web, web_stopped) = oneshot::channel::<()>();
    let limits = crate::web::server::Limits::new(256);
    let server = tokio::spawn(crate::web::server::serve(
        listener,
        app,
        None,
        limits,
        async {
            let _ = web_stopped.await;
        },
    ));
    let (stop, stop_rx) = watch::channel(false);
    let ticks = {
        let to_mirror = to_mirror.clone();
        let mut stop_rx = stop_rx.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(mirror::TICK);
            loop {
                tokio::select! {
                    _ = stop_rx.changed() => break,
                    _ = every.tick() => { let _ = to_mirror.try_send(mirror::ToMirror::Tick); }
                }
            }
        })
    };
    let link = tokio::spawn(link::run(
        settings,
        client,
        events,
        Arc::clone(&book),
        commands,
        to_mirror,
        stop_rx,
    ));
    tracing::info!(%web, site = config.site, "centre started");
    Ok(Centre {
        web,
        broker: embedded_at,
        book,
        stop,
        stop_web: Some(stop_web),
        tasks: vec![server, ticks, link],
        mirror: Some(mirror_thread),
    })
}

/// The lanes the config names: its `lanes`, else those its programme's
/// blocks put bowlers on.
pub fn named_lanes(
    config: &CentreConfig,
    programme: Option<&programme::Programme>,
) -> Option<std::collections::BTreeSet<u32>> {
    config.lanes.clone().or_else(|| {
        let lanes: std::collections::BTreeSet<u32> = programme?
            .blocks
            .iter()
            .flat_map(|b| b.lanes.iter().map(|(n, _)| *n))
            .collect();
        (!lanes.is_empty()).then_some(lanes)
    })
}

/// The lanes the centre admits (docs/centre.md, "Known lanes"): those the
/// config names ([`named_lanes`]), else the lanes with a login on the
/// embedded broker (`login_lanes`); with an external broker and none of
/// these, any lane number (bounded by [`MAX_LANES`]), said at start.
fn admitted(
    config: &CentreConfig,
    programme: Option<&programme::Programme>,
    login_lanes: Option<Vec<u32>>,
) -> book::Admit {
    let lanes = named_lanes(config, programme).or_else(|| Some(login_lanes?.into_iter().collect()));
    match lanes {
        Some(lanes) => {
            tracing::info!(?lanes, "the centre takes these lanes only");
            book::Admit::Listed(lanes)
        }
        None => {
            tracing::warn!(
                "the centre takes any lane number (up to {MAX_LANES}): set `lanes` in its \
                 config, or a programme, so that only the competition's lanes are mirrored"
            );
            book::Admit::Any
        }
    }
}

//! The embedded MQTT broker (rumqttd), for a centre with no `broker`
//! configured: MQTT 3.1.1 on `embedded_listen`, retained messages, last
//! wills, QoS 1, persistent sessions while it runs, and the `passwords`
//! file as its logins. It keeps nothing on disk: after a restart the lanes
//! publish their state again and resend their journal lines (docs/centre.md).
//!
//! rumqttd listens on a loopback port only; the clients reach it through
//! `front`, which logs each in, holds it to [`acl`], closes one silent
//! past its keep-alive and bounds the connections not logged in yet.
//! rumqttd (0.20) has no access rules of its own, and the front already
//! sees every packet.
//!
//! The broker is built with the cargo feature `broker` (on by default, in
//! the lanecall-centre package); a lane's package has none, and [`start`]
//! then refuses with [`NOT_BUILT`]. The access rules ([`acl`]) are always
//! there: `lanecall centre-acl` writes them for Mosquitto.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

pub mod acl;
pub mod backlog;
#[cfg(feature = "broker")]
mod duplicates;
#[cfg(feature = "broker")]
mod front;
#[cfg(feature = "broker")]
mod logins;
#[cfg(feature = "broker")]
mod run;

#[cfg(feature = "broker")]
pub use run::start;

/// Whether this build has the embedded broker (the cargo feature
/// `broker`).
pub const BUILT: bool = cfg!(feature = "broker");

/// Why a centre without `broker` cannot start when this build has no
/// embedded broker.
pub const NOT_BUILT: &str = "this build of lanecall has no embedded MQTT broker (the lanecall \
     package is a lane's): set `broker = \"mqtt://HOST:1883\"` to use Mosquitto \
     (docs/centre.md), or install the lanecall-centre package, which has it";

/// How the embedded broker runs.
pub struct BrokerSettings {
    pub listen: SocketAddr,
    /// The `user:password` file; `None`: only the centre logs in (and
    /// anonymous clients, if allowed).
    pub passwords: Option<PathBuf>,
    /// Whether a client without a login is let in (docs/centre.md says
    /// what it may do).
    pub allow_anonymous: bool,
    pub site: String,
    /// The centre's own login name (its config's `username`, else "centre").
    pub centre_user: String,
}

/// A started broker.
pub struct Started {
    /// Where it listens (its port, when `listen` asked for port 0).
    pub listen: SocketAddr,
    /// A password for `centre_user` made at start, kept in memory only:
    /// the centre logs in to its own broker with it.
    pub centre_password: String,
    /// The lanes that have a login (`lane<N>`) in `passwords`.
    pub lanes: Vec<u32>,
    pub stats: Arc<FrontStats>,
    /// How far the centre's link is behind the lanes ([`backlog`]).
    pub backlog: Arc<backlog::Backlog>,
    /// rumqttd's own loopback address, behind the front: it takes only the
    /// front's internal secrets (for tests that check so).
    pub inner: SocketAddr,
}

/// What the embedded broker tells the centre to show the judges as an
/// alarm (`alarms` in `GET /api/centre`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Alarm {
    /// Lane N's login keeps connecting while it is connected: two lanes
    /// may be configured as lane N.
    Duplicate(u32),
    /// A client of `login` asked for another's client id (`whose`) and was
    /// refused: someone with that login tried to take the centre's or
    /// another lane's connection.
    Takeover {
        /// The login name (`None`: a client without one).
        login: Option<String>,
        /// The client id it asked for.
        client_id: String,
        whose: acl::Whose,
    },
}

impl Alarm {
    /// The alarm's kind: `duplicate_lane` or `takeover`.
    pub fn kind(&self) -> &'static str {
        match self {
            Alarm::Duplicate(_) => "duplicate_lane",
            Alarm::Takeover { .. } => "takeover",
        }
    }

    /// The lane it is about: the duplicated lane; for a takeover, the lane
    /// of the login that tried (0 when the login is not a lane's).
    pub fn lane(&self, centre_user: &str) -> u32 {
        match self {
            Alarm::Duplicate(n) => *n,
            Alarm::Takeover { login, .. } => match acl::Role::of(login.as_deref(), centre_user) {
                acl::Role::Lane(n) => n,
                _ => 0,
            },
        }
    }

    /// What was seen, for the judge; it names the login.
    pub fn detail(&self) -> String {
        match self {
            Alarm::Duplicate(n) => format!(
                "the login lane{n} keeps connecting while it is connected: two lanes may be \
                 configured as lane {n}"
            ),
            Alarm::Takeover {
                login,
                client_id,
                whose,
            } => {
                let who = match login {
                    Some(l) => format!("the login {l}"),
                    None => "a client without a login".to_owned(),
                };
                let whose = match whose {
                    acl::Whose::Centre => "the centre's".to_owned(),
                    acl::Whose::Lane(n) => format!("lane {n}'s"),
                    acl::Whose::Login(l) => format!("the login {l}'s"),
                };
                format!(
                    "{who} connected with the client id {client_id:?}, {whose}: refused (it \
                     would have taken that connection); whoever holds this login's password \
                     is trying to"
                )
            }
        }
    }
}

/// This build has no embedded broker: always [`NOT_BUILT`].
#[cfg(not(feature = "broker"))]
pub fn start(
    _settings: BrokerSettings,
    _on_alarm: Box<dyn Fn(Alarm) + Send + Sync>,
) -> Result<Started, String> {
    Err(NOT_BUILT.to_owned())
}

/// What the embedded broker's front refused, counted since start.
#[derive(Debug, Default)]
pub struct FrontStats {
    bad_logins: AtomicU64,
    anonymous_refused: AtomicU64,
    publish_denied: AtomicU64,
    subscribe_denied: AtomicU64,
    login_timeouts: AtomicU64,
    evicted_before_login: AtomicU64,
    refused_when_full: AtomicU64,
    client_id_refused: AtomicU64,
    takeovers_refused: AtomicU64,
}

impl FrontStats {
    /// Each counter by name.
    pub fn snapshot(&self) -> Vec<(&'static str, u64)> {
        [
            ("bad_logins", &self.bad_logins),
            ("anonymous_refused", &self.anonymous_refused),
            ("publish_denied", &self.publish_denied),
            ("subscribe_denied", &self.subscribe_denied),
            ("login_timeouts", &self.login_timeouts),
            ("evicted_before_login", &self.evicted_before_login),
            ("refused_when_full", &self.refused_when_full),
            ("client_id_refused", &self.client_id_refused),
            ("takeovers_refused", &self.takeovers_refused),
        ]
        .into_iter()
        .map(|(name, n)| (name, n.load(Ordering::Relaxed)))
        .collect()
    }
}

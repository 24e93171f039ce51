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

/// This build has no embedded broker: always [`NOT_BUILT`].
#[cfg(not(feature = "broker"))]
pub fn start(
    _settings: BrokerSettings,
    _on_duplicate: Box<dyn Fn(u32) + Send + Sync>,
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
        ]
        .into_iter()
        .map(|(name, n)| (name, n.load(Ordering::Relaxed)))
        .collect()
    }
}

//! `[web]`: the judges' panel, the table as the file writes it and as the
//! panel uses it, one struct. Each key is a field with its doc, its
//! default in [`WebConfig`]'s `Default`, and its check in its type (the
//! ranges, the listen address, a PIN hash, the event's title) or in
//! [`WebConfig::check`] for what keys say together (the live views
//! against the connections, the lockouts, a PIN or judges, the HTTPS
//! files, which are read there).
//!
//! It decides which of those values can work; it never opens the socket
//! nor checks a PIN against a hash.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};

use super::collect::Check;
use super::defaults::{
    DEFAULT_LISTEN, DEFAULT_LOCKOUT_AFTER, DEFAULT_LOCKOUT_BASE_S, DEFAULT_LOCKOUT_MAX_S,
    DEFAULT_SESSION_HOURS, DEFAULT_SESSION_IDLE_S,
};
use super::judges::{HOW, JudgeConfig, judges, pin_hash_problem};
use super::value::{Connections, Hours, Int, Secs, WrongPins};

/// The event title's length at most, in characters (one printed line).
const MAX_EVENT_CHARS: usize = 120;

/// `max_live_views` when the file leaves it out: lowered to half of
/// `max_connections` when that is smaller.
const LIVE_VIEWS: usize = 64;

/// The web panel.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct WebConfig {
    /// An address and port, `localhost:PORT` or a port alone.
    #[serde(with = "listen")]
    pub listen: SocketAddr,
    /// The shared judge PIN's argon2 hash in PHC form
    /// (`$argon2id$v=19$...`), as `lanecall hash-pin PIN` prints it; a
    /// login with it gives the name typed at login. Optional when
    /// `judges` has at least one judge.
    #[serde(
        deserialize_with = "judge_pin_hash",
        skip_serializing_if = "Option::is_none"
    )]
    pub judge_pin_hash: Option<String>,
    /// How long a judge's login lasts: whole hours from 1 to 168 (a week,
    /// the web panel's cap).
    #[serde(rename = "session_hours", with = "Int::<Hours, 1, 168>")]
    pub session: Duration,
    /// Open connections at most (see [`crate::web::server`]); the daemon
    /// lowers it further to stay below its file descriptor limit. At
    /// least a few: a panel opens a live view and a request or two.
    #[serde(with = "Int::<Connections, 8, 65_536>")]
    pub max_connections: usize,
    /// Live views (`GET /api/events` streams) at most; half of
    /// `max_connections` at most, so a full set of live views leaves room
    /// for the judges' requests. Left out, 64, lowered to that half.
    #[serde(default = "unset", deserialize_with = "live_views")]
    pub max_live_views: usize,
    /// HTTPS instead of HTTP: the certificate chain (PEM), the server's
    /// own certificate first; with `tls_key`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_cert: Option<PathBuf>,
    /// The private key (PKCS#8, PKCS#1 or SEC1, PEM); with `tls_cert`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_key: Option<PathBuf>,
    /// How long a login lasts without a request.
    #[serde(rename = "session_idle_s", with = "Int::<Secs, 1, 604_800>")]
    pub session_idle: Duration,
    /// Wrong PINs in a row that lock the PIN checks.
    #[serde(with = "Int::<WrongPins, 1, 100>")]
    pub lockout_after: u32,
    /// The first lock's length, doubled at each lock.
    #[serde(rename = "lockout_base_s", with = "Int::<Secs, 1, 86_400>")]
    pub lockout_base: Duration,
    /// The longest lock.
    #[serde(rename = "lockout_max_s", with = "Int::<Secs, 1, 604_800>")]
    pub lockout_max: Duration,
    /// The event's title, printed at the top of the score sheet: one line
    /// of at most 120 characters.
    #[serde(deserialize_with = "event")]
    pub event: String,
    /// Judges with their own PIN (`[[web.judges]]`): the journal names who
    /// acted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub judges: Vec<JudgeConfig>,
    /// `tls_cert` and `tls_key` once both were read and held a
    /// certificate and a key ([`WebConfig::check`]).
    #[serde(skip)]
    pub tls: Option<TlsFiles>,
}

/// Every key's default, and no PIN (the file must give one).
impl Default for WebConfig {
    fn default() -> Self {
        WebConfig {
            listen: DEFAULT_LISTEN,
            judge_pin_hash: None,
            session: Duration::from_secs(DEFAULT_SESSION_HOURS * 3600),
            max_connections: 256,
            max_live_views: LIVE_VIEWS,
            tls_cert: None,
            tls_key: None,
            session_idle: Duration::from_secs(DEFAULT_SESSION_IDLE_S),
            lockout_after: DEFAULT_LOCKOUT_AFTER,
            lockout_base: Duration::from_secs(DEFAULT_LOCKOUT_BASE_S),
            lockout_max: Duration::from_secs(DEFAULT_LOCKOUT_MAX_S),
            event: String::new(),
            judges: Vec::new(),
            tls: None,
        }
    }
}

/// The PEM files for HTTPS. Both were readable, and held a certificate and
/// a private key, when the config was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate chain, the server's own certificate first.
    pub cert: PathBuf,
    /// The private key (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
}

impl WebConfig {
    /// Whether the panel is served over HTTPS, so the session cookie can be
    /// marked `Secure`.
    pub fn tls(&self) -> bool {
        self.tls.is_some()
    }

    /// What the keys say together; the HTTPS files are read. `false` with
    /// the problems pushed.
    pub(super) fn check(&mut self, c: &mut Check) -> bool {
        let mut ok = true;
        let judges = judges(c, std::mem::take(&mut self.judges), "the journal writes");
        // Named judges alone are enough.
        if self.judge_pin_hash.is_none() && judges.as_ref().is_some_and(Vec::is_empty) {
            c.push(
                "web.judge_pin_hash",
                format!("is missing: the judge PIN's hash: {HOW}"),
            );
            ok = false;
        }
        match judges {
            Some(judges) => self.judges = judges,
            None => ok = false,
        }
        if self.lockout_max < self.lockout_base {
            c.push(
                "web.lockout_max_s",
                format!(
                    "{} is shorter than lockout_base_s ({}): the longest lock cannot be shorter \
                     than the first",
                    self.lockout_max.as_secs(),
                    self.lockout_base.as_secs()
                ),
            );
            ok = false;
        }
        let half = self.max_connections / 2;
        if self.max_live_views == unset() {
            self.max_live_views = LIVE_VIEWS.min(half);
        } else if !(1..=half).contains(&self.max_live_views) {
            c.push(
                "web.max_live_views",
                format!(
                    "{} is out of range: use 1 to {half} live views (at most half of \
                     web.max_connections)",
                    self.max_live_views
                ),
            );
            ok = false;
        }
        match tls_files(c, self.tls_cert.clone(), self.tls_key.clone()) {
            Some(tls) => self.tls = tls,
            None => ok = false,
        }
        ok
    }
}

/// `max_live_views` left out, until [`WebConfig::check`] sets it.
fn unset() -> usize {
    usize::MAX
}

fn live_views<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    let n = i64::deserialize(d)?;
    usize::try_from(n).map_err(|_| {
        D::Error::custom(format!(
            "{n} is out of range: use 1 to half of web.max_connections (live views)"
        ))
    })
}

pub(crate) fn judge_pin_hash<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let hash = String::deserialize(d)?;
    match pin_hash_problem(&hash) {
        Some(problem) => Err(D::Error::custom(problem)),
        None => Ok(Some(hash)),
    }
}

fn event<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let event = String::deserialize(d)?.trim().to_owned();
    let chars = event.chars().count();
    if chars > MAX_EVENT_CHARS {
        Err(D::Error::custom(format!(
            "is {chars} characters long; at most {MAX_EVENT_CHARS}"
        )))
    } else if event.chars().any(char::is_control) {
        Err(D::Error::custom(
            "has a control character (a tab or a line break): one line of text",
        ))
    } else {
        Ok(event)
    }
}

/// A listen address ([`super::listen_address`]), the lane's and the
/// centre's, the port alone taken on
/// every network; written back as an address and port.
pub(crate) mod listen {
    use std::net::SocketAddr;

    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SocketAddr, D::Error> {
        let text = String::deserialize(d)?;
        super::super::listen::listen_address(&text, super::DEFAULT_LISTEN).map_err(D::Error::custom)
    }

    pub(crate) fn serialize<S: Serializer>(v: &SocketAddr, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }
}

/// `tls_cert` and `tls_key`: both or neither, each a readable PEM file
/// with what it is named for. Read here so `lanecall check-config` finds a
/// file the daemon could not read before the daemon is restarted.
fn tls_files(
    c: &mut Check,
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
) -> Option<Option<TlsFiles>> {
    use rustls_pki_types::pem::PemObject as _;
    use rustls_pki_types::{CertificateDer, PrivateKeyDer};
    const HOW: &str = "set both web.tls_cert and web.tls_key for HTTPS, or neither for HTTP";
    let (cert, key) = match (cert, key) {
        (None, None) => return Some(None),
        (Some(_), None) => {
            c.push("web.tls_key", format!("is missing: {HOW}"));
            return None;
        }
        (None, Some(_)) => {
            c.push("web.tls_cert", format!("is missing: {HOW}"));
            return None;
        }
        (Some(cert), Some(key)) => (cert, key),
    };
    let mut ok = true;
    match std::fs::read(&cert) {
        Err(e) => {
            c.push(
                "web.tls_cert",
                format!("cannot read {}: {e}", cert.display()),
            );
            ok = false;
        }
        Ok(pem) => {
            let certs: Result<Vec<_>, _> = CertificateDer::pem_slice_iter(&pem).collect();
            if !certs.is_ok_and(|certs| !certs.is_empty()) {
                c.push(
                    "web.tls_cert",
                    format!(
                        "{} holds no certificate in PEM form (-----BEGIN CERTIFICATE-----)",
                        cert.display()
                    ),
                );
                ok = false;
            }
        }
    }
    match std::fs::read(&key) {
        Err(e) => {
            c.push("web.tls_key", format!("cannot read {}: {e}", key.display()));
            ok = false;
        }
        Ok(pem) => {
            if PrivateKeyDer::from_pem_slice(&pem).is_err() {
                c.push(
                    "web.tls_key",
                    format!(
                        "{} holds no private key in PEM form (-----BEGIN PRIVATE KEY-----)",
                        key.display()
                    ),
                );
                ok = false;
            }
        }
    }
    ok.then_some(Some(TlsFiles { cert, key }))
}

//! Validation of `[web]`: the listen address, the judges' PIN hashes, the
//! HTTPS files and the limits on connections and logins.
//!
//! It decides which of those values can work; it never opens the socket
//! nor checks a PIN against a hash.

use std::path::PathBuf;
use std::time::Duration;

use super::collect::Check;
use super::judges::{HOW, judges, pin_hash};
use super::raw::RawWeb;
use super::validated::{TlsFiles, WebConfig};

/// The event title's length at most, in characters (one printed line).
const MAX_EVENT_CHARS: usize = 120;

impl RawWeb {
    pub(super) fn validate(self, c: &mut Check) -> Option<WebConfig> {
        // A key left out takes the table's default.
        let default = WebConfig::default();
        let listen = match self.listen {
            None => Some(default.listen),
            Some(listen) => match super::listen::listen_address(&listen, default.listen) {
                Ok(addr) => Some(addr),
                Err(e) => {
                    c.push("web.listen", e);
                    None
                }
            },
        };

        let judges = judges(c, self.judges, "the journal writes");
        let hash = match self.judge_pin_hash {
            Some(hash) => pin_hash(c, "web.judge_pin_hash", hash).map(Some),
            // Named judges alone are enough.
            None if judges.as_ref().is_none_or(|j| !j.is_empty()) => Some(None),
            None => {
                c.push(
                    "web.judge_pin_hash",
                    format!("is missing: the judge PIN's hash: {HOW}"),
                );
                None
            }
        };

        let hours = self
            .session_hours
            .unwrap_or(default.session.as_secs() as i64 / 3600);
        let session = c
            .int("web.session_hours", hours, 1..=168, "hours")
            .map(|h| Duration::from_secs(h * 3600));
        let idle = self
            .session_idle_s
            .unwrap_or(default.session_idle.as_secs() as i64);
        let session_idle = c
            .int("web.session_idle_s", idle, 1..=7 * 86400, "seconds")
            .map(Duration::from_secs);
        let after = c
            .int(
                "web.lockout_after",
                self.lockout_after
                    .unwrap_or(i64::from(default.lockout_after)),
                1..=100,
                "wrong PINs",
            )
            .and_then(|n| u32::try_from(n).ok());
        let base = c
            .int(
                "web.lockout_base_s",
                self.lockout_base_s
                    .unwrap_or(default.lockout_base.as_secs() as i64),
                1..=86400,
                "seconds",
            )
            .map(Duration::from_secs);
        let max = c
            .int(
                "web.lockout_max_s",
                self.lockout_max_s
                    .unwrap_or(default.lockout_max.as_secs() as i64),
                1..=7 * 86400,
                "seconds",
            )
            .map(Duration::from_secs);
        if let (Some(b), Some(m)) = (base, max)
            && m < b
        {
            c.push(
                "web.lockout_max_s",
                format!(
                    "{} is shorter than lockout_base_s ({}): the longest lock cannot be shorter \
                     than the first",
                    m.as_secs(),
                    b.as_secs()
                ),
            );
        }

        // At least a few: a panel opens a live view and a request or two.
        let max_connections = c
            .int(
                "web.max_connections",
                self.max_connections
                    .unwrap_or(default.max_connections as i64),
                8..=65_536,
                "connections",
            )
            .map(|n| n as usize);
        // Half the connections at most, so a full set of live views leaves
        // room for the judges' requests. The default is lowered to fit a
        // small max_connections; a value written in the file is checked.
        let half = max_connections.map_or(65_536 / 2, |n| n as i64 / 2);
        let max_live_views = match self.max_live_views {
            None => Some((default.max_live_views as i64).min(half) as usize),
            Some(n) => c
                .int(
                    "web.max_live_views",
                    n,
                    1..=half,
                    "live views (at most half of web.max_connections)",
                )
                .map(|n| n as usize),
        };
        let tls = tls_files(c, self.tls_cert, self.tls_key);
        let event = self.event.unwrap_or_default().trim().to_owned();
        let event = if event.chars().count() > MAX_EVENT_CHARS {
            c.push(
                "web.event",
                format!(
                    "is {} characters long; at most {MAX_EVENT_CHARS}",
                    event.chars().count()
                ),
            );
            None
        } else if event.chars().any(char::is_control) {
            c.push(
                "web.event",
                "has a control character (a tab or a line break): one line of text".to_owned(),
            );
            None
        } else {
            Some(event)
        };

        Some(WebConfig {
            listen: listen?,
            judge_pin_hash: hash?,
            judges: judges?,
            session: session?,
            max_connections: max_connections?,
            max_live_views: max_live_views?,
            tls: tls?,
            session_idle: session_idle?,
            lockout_after: after?,
            lockout_base: base?,
            lockout_max: max.filter(|m| base.is_none_or(|b| *m >= b))?,
            event: event?,
        })
    }
}

/// `tls_cert` and `tls_key`: both or neither, each a readable PEM file
/// with what it is named for. Read here so `lanecall check-config` finds a
/// file the daemon could not read before the daemon is restarted.
fn tls_files(c: &mut Check, cert: Option<String>, key: Option<String>) -> Option<Option<TlsFiles>> {
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
        (Some(cert), Some(key)) => (PathBuf::from(cert), PathBuf::from(key)),
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

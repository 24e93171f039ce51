//! `[centre]`: the link to the competition's centre (docs/mqtt.md), the
//! table as the file writes it and as the link uses it, one struct (each
//! key a field with its doc, its default in `Default`, its check in its
//! type); what one key cannot say alone (a password without a user, a CA
//! file without TLS, this lane among its neighbours) in
//! [`CentreConfig::check`], every problem by its key.
//!
//! It decides which values can work; it never reads the password file
//! (that is `check` and the link's start) nor opens a socket.

use std::path::PathBuf;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::collect::Check;
use crate::mqtt::{BrokerUrl, read_ca_file};

/// The longest MQTT user name taken.
const MAX_USERNAME: usize = 64;

/// How many lanes beside this one may be named.
const MAX_NEIGHBOURS: usize = 8;

const BROKER: &str = "the centre's MQTT broker, e.g. broker = \"mqtt://192.168.1.10:1883\"";
const SITE: &str = "the competition's name in the topics, e.g. site = \"minsk2026\"";

/// `[centre]`: where the centre's MQTT broker is and what this lane does
/// with it (docs/mqtt.md).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct CentreConfig {
    /// `mqtt://HOST:PORT`, or `mqtts://` for TLS.
    #[serde(with = "broker", skip_serializing_if = "no_broker")]
    pub broker: BrokerUrl,
    /// 1 to 32 characters of `a-z 0-9 - _`: the topics' `lanecall/<site>/`.
    #[serde(deserialize_with = "site", skip_serializing_if = "String::is_empty")]
    pub site: String,
    /// The MQTT user name: 1 to 64 characters, no control characters.
    #[serde(deserialize_with = "username", skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// The password, read when the link starts; absolute.
    #[serde(
        deserialize_with = "password_file",
        skip_serializing_if = "Option::is_none"
    )]
    pub password_file: Option<PathBuf>,
    /// The CAs that sign an `mqtts://` broker's certificate (PEM);
    /// none, the system's.
    #[serde(deserialize_with = "ca_file", skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<PathBuf>,
    /// Whether the centre's `lineup` and `hold` commands are taken.
    pub accept_commands: bool,
    /// The lanes beside this one, whose `delivering` is journaled.
    #[serde(deserialize_with = "neighbours")]
    pub neighbours: Vec<u32>,
}

/// No broker (the file must name one), no site, no user, no files; the
/// commands refused, no neighbours.
impl Default for CentreConfig {
    fn default() -> Self {
        CentreConfig {
            broker: BrokerUrl {
                host: String::new(),
                port: 0,
                tls: false,
            },
            site: String::new(),
            username: None,
            password_file: None,
            ca_file: None,
            accept_commands: false,
            neighbours: Vec::new(),
        }
    }
}

fn no_broker(b: &BrokerUrl) -> bool {
    b.host.is_empty()
}

impl CentreConfig {
    /// What no one key can say alone; `lane` is this lane's number.
    pub(super) fn check(&self, c: &mut Check, lane: Option<u32>) -> bool {
        let before = c.problems.len();
        let has_broker = !no_broker(&self.broker);
        if !has_broker {
            c.push("centre.broker", format!("is missing: {BROKER}"));
        }
        if self.site.is_empty() {
            c.push("centre.site", format!("is missing: {SITE}"));
        }
        if self.password_file.is_some() && self.username.is_none() {
            c.push(
                "centre.password_file",
                "a password needs a user name: set centre.username too",
            );
        }
        if self.neighbours.len() > MAX_NEIGHBOURS {
            c.push(
                "centre.neighbours",
                format!(
                    "names {} lanes: at most {MAX_NEIGHBOURS}",
                    self.neighbours.len()
                ),
            );
        }
        let mut seen = Vec::new();
        for (i, &n) in self.neighbours.iter().enumerate() {
            let key = format!("centre.neighbours[{}]", i + 1);
            if c.int(&key, i64::from(n), 1..=999, "(a lane number)")
                .is_none()
            {
                continue;
            }
            if Some(n) == lane {
                c.push(
                    key,
                    format!("{n} is this lane itself: name the lanes beside it"),
                );
            } else if seen.contains(&n) {
                c.push(key, format!("lane {n} is named twice"));
            } else {
                seen.push(n);
            }
        }
        match &self.ca_file {
            None => {}
            Some(_) if has_broker && !self.broker.tls => c.push(
                "centre.ca_file",
                "is only for a broker over TLS (mqtts://): leave it out, or use mqtts://",
            ),
            // Read here so check-config finds a file the link could not use.
            Some(p) => {
                if let Err(e) = read_ca_file(p) {
                    c.push("centre.ca_file", e);
                }
            }
        }
        c.problems.len() == before
    }
}

mod broker {
    use super::*;

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<BrokerUrl, D::Error> {
        let url = String::deserialize(d)?;
        if url.trim().is_empty() {
            return Err(D::Error::custom(format!("is empty: {BROKER}")));
        }
        BrokerUrl::parse(&url).map_err(D::Error::custom)
    }

    pub(super) fn serialize<S: Serializer>(b: &BrokerUrl, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(b)
    }
}

fn site<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let site = String::deserialize(d)?;
    if site.trim().is_empty() {
        return Err(D::Error::custom(format!("is empty: {SITE}")));
    }
    let ok = site.len() <= 32
        && site
            .chars()
            .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-' || ch == '_');
    if !ok {
        return Err(D::Error::custom(format!(
            "{site:?}: use 1 to 32 characters of a-z, 0-9, - and _, the same on every lane and \
             the centre"
        )));
    }
    Ok(site)
}

fn username<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let u = String::deserialize(d)?;
    if u.is_empty() || u.chars().count() > MAX_USERNAME || u.chars().any(char::is_control) {
        return Err(D::Error::custom(format!(
            "use 1 to {MAX_USERNAME} characters, no control characters, or leave it out"
        )));
    }
    Ok(Some(u))
}

fn password_file<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
    const EXAMPLE: &str = "password_file = \"/etc/lanecall/mqtt-password\" under [centre]";
    super::value::absolute(
        d,
        &format!("leave it out for no password, or name the file, e.g. {EXAMPLE}"),
        EXAMPLE,
    )
}

fn ca_file<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
    const EXAMPLE: &str = "ca_file = \"/etc/lanecall/centre-ca.pem\" under [centre]";
    super::value::absolute(
        d,
        &format!("leave it out for the system's CAs, or name the file, e.g. {EXAMPLE}"),
        EXAMPLE,
    )
}

/// Lane numbers; each one's range is checked with the others
/// ([`CentreConfig::check`]), so all are reported at once by their place.
fn neighbours<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
    Vec::<i64>::deserialize(d)?
        .into_iter()
        .map(|n| {
            u32::try_from(n).map_err(|_| {
                D::Error::custom(format!("{n} is out of range: use 1 to 999 (a lane number)"))
            })
        })
        .collect()
}

//! Validation of `[centre]`: the link to the competition's centre
//! (docs/mqtt.md), every problem by its key.
//!
//! It decides which values can work; it never reads the password file
//! (that is `check` and the link's start) nor opens a socket.

use super::collect::Check;
use super::defaults::DEFAULT_ACCEPT_COMMANDS;
use super::problem::absolute_path;
use super::raw::RawCentre;
use super::validated::CentreConfig;
use crate::mqtt::{BrokerUrl, read_ca_file};

/// The longest MQTT user name taken.
const MAX_USERNAME: usize = 64;

/// How many lanes beside this one may be named.
const MAX_NEIGHBOURS: usize = 8;

impl RawCentre {
    pub(super) fn validate(self, c: &mut Check, lane: Option<u32>) -> Option<CentreConfig> {
        let before = c.problems.len();
        let broker = c.non_empty(
            "centre.broker",
            self.broker,
            "the centre's MQTT broker, e.g. broker = \"mqtt://192.168.1.10:1883\"",
        );
        let broker = broker.and_then(|b| match BrokerUrl::parse(&b) {
            Ok(a) => Some(a),
            Err(m) => {
                c.push("centre.broker", m);
                None
            }
        });
        let site = c
            .non_empty(
                "centre.site",
                self.site,
                "the competition's name in the topics, e.g. site = \"minsk2026\"",
            )
            .and_then(|site| {
                let ok = site.len() <= 32
                    && site
                        .chars()
                        .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-' || ch == '_');
                if ok {
                    return Some(site);
                }
                c.push(
                    "centre.site",
                    format!(
                        "{site:?}: use 1 to 32 characters of a-z, 0-9, - and _, the same on every lane and the centre"
                    ),
                );
                None
            });
        let username = match self.username {
            Some(u)
                if u.is_empty()
                    || u.chars().count() > MAX_USERNAME
                    || u.chars().any(char::is_control) =>
            {
                c.push(
                    "centre.username",
                    format!(
                        "use 1 to {MAX_USERNAME} characters, no control characters, or leave it out"
                    ),
                );
                None
            }
            u => u,
        };
        let password_file = match self.password_file.map(|p| {
            let example = "password_file = \"/etc/lanecall/mqtt-password\" under [centre]";
            absolute_path("centre.password_file", &p, example)
        }) {
            None => None,
            Some(Err(p)) => {
                c.problems.push(p);
                None
            }
            Some(Ok(_)) if username.is_none() => {
                c.push(
                    "centre.password_file",
                    "a password needs a user name: set centre.username too",
                );
                None
            }
            Some(Ok(p)) => Some(p),
        };
        let mut neighbours = Vec::new();
        if self.neighbours.len() > MAX_NEIGHBOURS {
            c.push(
                "centre.neighbours",
                format!(
                    "names {} lanes: at most {MAX_NEIGHBOURS}",
                    self.neighbours.len()
                ),
            );
        }
        for (i, n) in self.neighbours.iter().enumerate() {
            let key = format!("centre.neighbours[{}]", i + 1);
            let Some(n) = c.int(&key, *n, 1..=999, "(a lane number)") else {
                continue;
            };
            let n = n as u32;
            if Some(n) == lane {
                c.push(
                    key,
                    format!("{n} is this lane itself: name the lanes beside it"),
                );
            } else if neighbours.contains(&n) {
                c.push(key, format!("lane {n} is named twice"));
            } else {
                neighbours.push(n);
            }
        }
        let ca_file = match self.ca_file.map(|p| {
            let example = "ca_file = \"/etc/lanecall/centre-ca.pem\" under [centre]";
            absolute_path("centre.ca_file", &p, example)
        }) {
            None => None,
            Some(Err(p)) => {
                c.problems.push(p);
                None
            }
            Some(Ok(_)) if broker.as_ref().is_some_and(|b| !b.tls) => {
                c.push(
                    "centre.ca_file",
                    "is only for a broker over TLS (mqtts://): leave it out, or use mqtts://",
                );
                None
            }
            // Read here so check-config finds a file the link could not use.
            Some(Ok(p)) => match read_ca_file(&p) {
                Ok(_) => Some(p),
                Err(e) => {
                    c.push("centre.ca_file", e);
                    None
                }
            },
        };
        let broker = broker?;
        (c.problems.len() == before).then(|| CentreConfig {
            broker,
            ca_file,
            site: site.unwrap_or_default(),
            username,
            password_file,
            accept_commands: self.accept_commands.unwrap_or(DEFAULT_ACCEPT_COMMANDS),
            neighbours,
        })
    }
}

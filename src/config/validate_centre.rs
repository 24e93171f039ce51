//! Validation of `[centre]`: the link to the competition's centre
//! (docs/mqtt.md), every problem by its key.
//!
//! It decides which values can work; it never reads the password file
//! (that is `check` and the link's start) nor opens a socket.

use std::path::{Path, PathBuf};

use super::defaults::{DEFAULT_ACCEPT_COMMANDS, DEFAULT_BROKER_PORT};
use super::raw::RawCentre;
use super::validate::Check;
use super::validated::CentreConfig;

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
        let address = broker.and_then(|b| match broker_address(&b) {
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
        let password_file = match self.password_file {
            None => None,
            Some(p) if !Path::new(&p).is_absolute() => {
                c.push(
                    "centre.password_file",
                    format!("{p:?} is not an absolute path: write it from the root, e.g. password_file = \"/etc/lanecall/mqtt-password\""),
                );
                None
            }
            Some(_) if username.is_none() => {
                c.push(
                    "centre.password_file",
                    "a password needs a user name: set centre.username too",
                );
                None
            }
            Some(p) => Some(PathBuf::from(p)),
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
        let (host, port) = address?;
        (c.problems.len() == before).then(|| CentreConfig {
            host,
            port,
            site: site.unwrap_or_default(),
            username,
            password_file,
            accept_commands: self.accept_commands.unwrap_or(DEFAULT_ACCEPT_COMMANDS),
            neighbours,
        })
    }
}

/// `mqtt://HOST[:PORT]` into its host and port.
fn broker_address(url: &str) -> Result<(String, u16), String> {
    const EXAMPLE: &str = "e.g. broker = \"mqtt://192.168.1.10:1883\"";
    let Some(rest) = url.strip_prefix("mqtt://") else {
        if url.starts_with("mqtts://") {
            return Err(format!(
                "{url:?}: this lane does not speak TLS to the broker; use mqtt:// on the centre's own network, {EXAMPLE}"
            ));
        }
        return Err(format!("{url:?} does not start with mqtt://: {EXAMPLE}"));
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
        match v6.split_once(']') {
            Some((h, "")) => (h, None),
            Some((h, p)) => (h, Some(p.strip_prefix(':').unwrap_or(p))),
            None => return Err(format!("{url:?}: an IPv6 address ends with ], {EXAMPLE}")),
        }
    } else {
        match rest.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (rest, None),
        }
    };
    let bad_host = host.is_empty()
        || host
            .chars()
            .any(|ch| ch.is_whitespace() || matches!(ch, '/' | '@' | '?' | '#'));
    if bad_host {
        return Err(format!("{url:?} has no usable host: {EXAMPLE}"));
    }
    let port = match port {
        None => DEFAULT_BROKER_PORT,
        Some(p) => match p.parse::<u16>() {
            Ok(p) if p > 0 => p,
            _ => return Err(format!("{url:?}: the port must be 1 to 65535, {EXAMPLE}")),
        },
    };
    Ok((host.to_owned(), port))
}

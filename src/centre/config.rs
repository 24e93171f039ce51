//! The centre's configuration file (docs/centre.md), read like the lane's:
//! every unknown key and wrong type reported by its path, line and column,
//! every problem at once.

use std::collections::BTreeSet;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::path::{Path, PathBuf};

use serde::de::{Error as _, Visitor};
use serde::{Deserialize, Deserializer};

use super::{MAX_LANE_NUMBER, MAX_LANES};
use crate::config::judges::HOW;
use crate::config::shape::{self, LANES};
use crate::config::{
    Check, ConfigError, DEFAULT_LISTEN, JudgeConfig, Problem, absolute_path, judge_pin_hash,
    judges, listen_value, load_file, parse_checked, position,
};
use crate::mqtt::{BrokerUrl, read_ca_file};

/// The MQTT port the embedded broker listens on when none is configured.
pub const DEFAULT_EMBEDDED_LISTEN: SocketAddr =
    SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 1883));

/// The centre's file (docs/centre.md), every key optional in the file and
/// unknown keys refused; its known keys are its fields (`shape`). A key
/// whose value alone decides is read checked (`site`, the paths of
/// `state_dir`, `password_file` and `programme`, `lanes`); a key whose
/// being set decides what the others may be (`broker` against the
/// embedded broker's keys, `ca_file`) is read as written and checked
/// with them ([`Raw::check`]).
#[derive(serde::Deserialize, serde::Serialize, Default)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct Raw {
    /// The competition's name in the MQTT topics: 1 to 32 characters of
    /// a-z, 0-9, - and _. Required.
    #[serde(deserialize_with = "site", skip_serializing_if = "Option::is_none")]
    site: Option<String>,
    /// The folder for the lanes' journal copies; absolute. Required.
    #[serde(
        deserialize_with = "paths::state_dir",
        skip_serializing_if = "Option::is_none"
    )]
    state_dir: Option<PathBuf>,
    /// An external broker (`mqtt://` or `mqtts://`); left out, the
    /// embedded one.
    #[serde(skip_serializing_if = "Option::is_none")]
    broker: Option<String>,
    /// Where the embedded broker listens; left out,
    /// [`DEFAULT_EMBEDDED_LISTEN`].
    #[serde(skip_serializing_if = "Option::is_none")]
    embedded_listen: Option<String>,
    /// The centre's own MQTT login.
    #[serde(skip_serializing_if = "Option::is_none")]
    username: Option<String>,
    /// Its password's file; absolute, and goes with `username`.
    #[serde(
        deserialize_with = "paths::password_file",
        skip_serializing_if = "Option::is_none"
    )]
    password_file: Option<PathBuf>,
    /// The CAs of an external broker over TLS; absolute.
    #[serde(skip_serializing_if = "Option::is_none")]
    ca_file: Option<String>,
    /// The embedded broker's logins; absolute.
    #[serde(skip_serializing_if = "Option::is_none")]
    passwords: Option<String>,
    /// The competition's programme; absolute.
    #[serde(
        deserialize_with = "paths::programme",
        skip_serializing_if = "Option::is_none"
    )]
    programme: Option<PathBuf>,
    /// The embedded broker lets clients in without a login; left out,
    /// false.
    #[serde(skip_serializing_if = "Option::is_none")]
    allow_anonymous: Option<bool>,
    /// The lanes the centre admits ([`parse_lanes`]).
    #[serde(deserialize_with = "lanes", skip_serializing_if = "Option::is_none")]
    lanes: Option<BTreeSet<u32>>,
    web: Web,
}

impl Raw {
    /// Every key's default as the file writes it (docs/config.md): the
    /// struct's `Default`, with the two keys it leaves `None` (the check
    /// asks whether they are set) written in as the check takes them
    /// when left out.
    fn documented() -> toml::Table {
        let documented = Raw {
            embedded_listen: Some(DEFAULT_EMBEDDED_LISTEN.to_string()),
            allow_anonymous: Some(false),
            ..Raw::default()
        };
        toml::Table::try_from(documented).unwrap_or_default()
    }
}

/// `site`, when written: a name the MQTT topics take ([`valid_site`]).
fn site<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let site = String::deserialize(d)?;
    if valid_site(&site) {
        Ok(Some(site))
    } else {
        Err(D::Error::custom(format!(
            "{site:?} must be 1 to 32 characters of a-z, 0-9, - and _"
        )))
    }
}

/// `lanes`, when written: the lanes [`parse_lanes`] reads, through the
/// newtype name that makes its key
/// [`Kind::Lanes`](crate::config::keys::Kind::Lanes) (the walk has
/// checked it is a string or a list of whole numbers).
fn lanes<'de, D: Deserializer<'de>>(d: D) -> Result<Option<BTreeSet<u32>>, D::Error> {
    struct Lanes;
    impl<'de> Visitor<'de> for Lanes {
        type Value = BTreeSet<u32>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a list of lane numbers or ranges")
        }
        fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            let value = toml::Value::deserialize(d)?;
            parse_lanes(&value).map_err(D::Error::custom)
        }
    }
    d.deserialize_newtype_struct(LANES, Lanes).map(Some)
}

/// The path keys read checked: each absolute, through the one check.
mod paths {
    use std::path::PathBuf;

    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer};

    fn path<'de, D: Deserializer<'de>>(d: D, key: &str) -> Result<Option<PathBuf>, D::Error> {
        let value = String::deserialize(d)?;
        crate::config::absolute_path(key, &value, super::example(key))
            .map(Some)
            .map_err(|p| D::Error::custom(p.message))
    }

    pub(super) fn state_dir<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
        path(d, "state_dir")
    }

    pub(super) fn password_file<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<PathBuf>, D::Error> {
        path(d, "password_file")
    }

    pub(super) fn programme<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
        path(d, "programme")
    }
}

/// `[web]`: the centre's page, read with the lane's `[web]` value types.
#[derive(serde::Deserialize, serde::Serialize)]
#[serde(default)]
pub(crate) struct Web {
    /// Where the centre's page listens: by default where a lane's panel
    /// does.
    #[serde(with = "listen_value")]
    listen: SocketAddr,
    /// The chief judge's PIN hash, as `lanecall hash-pin PIN` prints it.
    #[serde(
        deserialize_with = "judge_pin_hash",
        skip_serializing_if = "Option::is_none"
    )]
    judge_pin_hash: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    judges: Vec<JudgeConfig>,
}

impl Default for Web {
    fn default() -> Self {
        Web {
            listen: DEFAULT_LISTEN,
            judge_pin_hash: None,
            judges: Vec::new(),
        }
    }
}

/// The broker the centre talks to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Broker {
    /// An external broker (Mosquitto), and the CAs that sign its
    /// certificate when it is `mqtts://` (none: the system's).
    External {
        url: BrokerUrl,
        ca_file: Option<PathBuf>,
    },
    /// The broker built into the centre, listening here.
    Embedded { listen: SocketAddr },
}

/// A checked centre configuration.
#[derive(Clone, Debug)]
pub struct CentreConfig {
    pub site: String,
    pub state_dir: PathBuf,
    pub web_listen: SocketAddr,
    /// The chief judge's PIN (argon2 PHC string, `lanecall hash-pin`):
    /// shared, a login with it acts under the name typed.
    pub judge_pin_hash: String,
    /// Judges and secretaries with a PIN of their own (`[[web.judges]]`):
    /// a login with one acts under its name.
    pub judges: Vec<crate::config::JudgeConfig>,
    pub broker: Broker,
    /// The centre's own MQTT login.
    pub username: Option<String>,
    pub password_file: Option<PathBuf>,
    /// The embedded broker's logins: `user:password` lines, hashed in
    /// place at start.
    pub passwords: Option<PathBuf>,
    /// The embedded broker lets clients in without a login (a closed test
    /// network only; they never send commands).
    pub allow_anonymous: bool,
    /// The lanes the centre admits (`lanes`); `None`: those of the
    /// programme, or of the embedded broker's logins (docs/centre.md).
    pub lanes: Option<BTreeSet<u32>>,
    /// The competition's programme (read by the standings).
    pub programme: Option<PathBuf>,
}

/// The lanes a `lanes` value names: `[1, 2, 5]`, or numbers and ranges
/// in a string (`"1-24, 30"`), each 1 to [`MAX_LANE_NUMBER`].
pub fn parse_lanes(value: &toml::Value) -> Result<BTreeSet<u32>, String> {
    let number = |text: &str| {
        text.trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_LANE_NUMBER).contains(n))
            .ok_or_else(|| {
                format!(
                    "{:?} is not a lane number from 1 to {MAX_LANE_NUMBER}",
                    text.trim()
                )
            })
    };
    let mut lanes = BTreeSet::new();
    match value {
        toml::Value::Array(items) => {
            for item in items {
                let n = item.as_integer().map(|n| n.to_string()).unwrap_or_default();
                lanes.insert(number(&n)?);
            }
        }
        toml::Value::String(text) => {
            for part in text.split(',') {
                match part.split_once('-') {
                    Some((a, b)) => {
                        let (a, b) = (number(a)?, number(b)?);
                        if a > b {
                            return Err(format!("{:?} runs backwards", part.trim()));
                        }
                        lanes.extend(a..=b);
                    }
                    None => {
                        lanes.insert(number(part)?);
                    }
                }
            }
        }
        _ => return Err("must be a list of lane numbers or ranges".into()),
    }
    if lanes.is_empty() {
        return Err("names no lane".into());
    }
    if lanes.len() > MAX_LANES {
        return Err(format!(
            "names {} lanes: a centre takes {MAX_LANES} at most",
            lanes.len()
        ));
    }
    Ok(lanes)
}

/// Whether `site` is 1 to 32 characters of `a-z 0-9 - _` (docs/mqtt.md).
pub fn valid_site(site: &str) -> bool {
    (1..=32).contains(&site.len())
        && site
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

impl CentreConfig {
    /// Reads and checks the file at `path`.
    /// Refuses too, by the same problems, an embedded broker's
    /// `passwords` file the centre could never start with
    /// ([`passwords_problem`]): `lanecall check-config` and `lanecall
    /// centre` (exit 78) say the same.
    pub fn load(path: &Path) -> Result<CentreConfig, ConfigError> {
        load_file(path, |text, path| {
            let config = CentreConfig::parse(text, path)?;
            let problems: Vec<Problem> = match (&config.broker, &config.passwords) {
                (Broker::Embedded { .. }, Some(file)) => passwords_problem(file)
                    .map(|message| Problem {
                        at: position(text, "passwords"),
                        ..Problem::new("passwords", message)
                    })
                    .into_iter()
                    .collect(),
                _ => Vec::new(),
            };
            if problems.is_empty() {
                Ok(config)
            } else {
                Err(ConfigError::Invalid {
                    path: path.to_owned(),
                    problems,
                })
            }
        })
    }

    /// Every key of the centre's file, with what it holds and its
    /// default, as a Markdown table (docs/config.md).
    pub fn key_table() -> String {
        crate::config::keys::key_table(shape::keys::<Raw>(), &Raw::documented())
    }

    /// Checks `text`; `path` only names the file in errors.
    pub fn parse(text: &str, path: &Path) -> Result<CentreConfig, ConfigError> {
        parse_checked(text, path, shape::keys::<Raw>(), |raw: Raw| {
            let mut c = Check::default();
            match raw.check(&mut c) {
                Some(config) if c.problems.is_empty() => Ok(config),
                _ => Err(c.problems),
            }
        })
    }
}

/// Why the embedded broker could not take its logins from the
/// `passwords` file at `file` (as `broker::logins` reads it at start):
/// missing, not a file, readable by everyone, or unreadable. Its lines
/// are checked at start, where plain passwords are hashed in place.
pub fn passwords_problem(file: &Path) -> Option<String> {
    use std::os::unix::fs::PermissionsExt as _;
    let what = "the embedded broker's logins, `lane<N>:password` lines (docs/centre.md)";
    let meta = match std::fs::metadata(file) {
        Ok(m) => m,
        Err(e) => return Some(format!("cannot read {}: {e}: {what}", file.display())),
    };
    if !meta.is_file() {
        return Some(format!("{} is not a file: {what}", file.display()));
    }
    if meta.permissions().mode() & 0o004 != 0 {
        return Some(format!(
            "{0} is readable by everyone: run `chmod 640 {0}`",
            file.display()
        ));
    }
    match std::fs::File::open(file) {
        Ok(_) => None,
        Err(e) => Some(format!("cannot read {}: {e}: {what}", file.display())),
    }
}

/// A path key of the centre's file written as it should be.
fn example(key: &str) -> &'static str {
    match key {
        "state_dir" => "state_dir = \"/var/lib/lanecall-centre\"",
        "ca_file" => "ca_file = \"/etc/lanecall/centre-ca.pem\"",
        "password_file" => "password_file = \"/etc/lanecall/centre-mqtt-password\"",
        "passwords" => "passwords = \"/etc/lanecall/mqtt-passwords\"",
        _ => "programme = \"/etc/lanecall/programme.toml\"",
    }
}

/// A path key checked with the others (`ca_file`, `passwords`), through
/// the one absolute-path check.
fn absolute(key: &str, value: Option<String>, c: &mut Check) -> Option<PathBuf> {
    absolute_path(key, &value?, example(key))
        .map_err(|p| c.problems.push(p))
        .ok()
}

fn address(
    key: &str,
    value: Option<String>,
    default: SocketAddr,
    c: &mut Check,
) -> Option<SocketAddr> {
    let Some(value) = value else {
        return Some(default);
    };
    match crate::config::listen_address(&value, default) {
        Ok(a) => Some(a),
        Err(e) => {
            c.push(key, e);
            None
        }
    }
}

impl Raw {
    fn check(self, c: &mut Check) -> Option<CentreConfig> {
        let site = c.required(
            "site",
            self.site,
            "the competition's name in the MQTT topics, e.g. site = \"minsk-2026\"",
        );
        let state_dir = c.required(
            "state_dir",
            self.state_dir,
            "the folder for the lanes' journal copies, e.g. state_dir = \"/var/lib/lanecall-centre\"",
        );
        let web_listen = Some(self.web.listen);
        let judge_pin_hash = self.web.judge_pin_hash;
        if judge_pin_hash.is_none() {
            c.push(
                "web.judge_pin_hash",
                format!("is missing: the chief judge's PIN hash: {HOW}"),
            );
        }
        let judges = judges(c, self.web.judges, "the records write");
        let ca_file = self.ca_file;
        let broker = match self.broker {
            Some(url) => match BrokerUrl::parse(&url) {
                Ok(url) => {
                    if self.embedded_listen.is_some() {
                        c.push(
                            "embedded_listen",
                            "is only for the embedded broker: leave it out when `broker` is set",
                        );
                    }
                    if self.passwords.is_some() {
                        c.push(
                            "passwords",
                            "is only for the embedded broker: the external broker has its own password file",
                        );
                    }
                    if self.allow_anonymous.is_some() {
                        c.push(
                            "allow_anonymous",
                            "is only for the embedded broker: the external broker's own config says who may log in",
                        );
                    }
                    let ca_file = absolute("ca_file", ca_file, c);
                    match &ca_file {
                        Some(_) if !url.tls => c.push(
                            "ca_file",
                            "is only for a broker over TLS (mqtts://): leave it out, or use mqtts://",
                        ),
                        Some(path) => {
                            if let Err(e) = read_ca_file(path) {
                                c.push("ca_file", e);
                            }
                        }
                        None => {}
                    }
                    Some(Broker::External { url, ca_file })
                }
                Err(e) => {
                    c.push("broker", e);
                    None
                }
            },
            None if !super::broker::BUILT => {
                c.push(
                    "broker",
                    format!("is missing: {}", super::broker::NOT_BUILT),
                );
                None
            }
            None => {
                if ca_file.is_some() {
                    c.push(
                        "ca_file",
                        "is only for an external broker over TLS (mqtts://): the embedded broker speaks plain MQTT",
                    );
                }
                address(
                    "embedded_listen",
                    self.embedded_listen,
                    DEFAULT_EMBEDDED_LISTEN,
                    c,
                )
                .and_then(|listen| {
                    if listen.port() == 0 {
                        c.push(
                            "embedded_listen",
                            "needs a port: the lanes' configs name it (1883 is MQTT's)",
                        );
                        return None;
                    }
                    if self.passwords.is_none() && self.allow_anonymous != Some(true) {
                        c.push(
                            "passwords",
                            "is missing: the embedded broker takes only logins, so that no one \
                             else on the network can write a lane's results. Name a file of \
                             `lane<N>:password` lines (one per lane; docs/centre.md), or set \
                             allow_anonymous = true on a closed test network",
                        );
                        return None;
                    }
                    Some(Broker::Embedded { listen })
                })
            }
        };
        let password_file = self.password_file;
        if password_file.is_some() && self.username.is_none() {
            c.push(
                "username",
                "is missing: a password_file goes with a username",
            );
        }
        let passwords = absolute("passwords", self.passwords, c);
        Some(CentreConfig {
            site: site?,
            state_dir: state_dir?,
            web_listen: web_listen?,
            judge_pin_hash: judge_pin_hash?,
            judges: judges?,
            broker: broker?,
            username: self.username,
            password_file,
            passwords,
            allow_anonymous: self.allow_anonymous.unwrap_or(false),
            lanes: self.lanes,
            programme: self.programme,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash() -> String {
        crate::web::hash_pin("432100").unwrap()
    }

    /// A config of `keys` and the least the rest needs, checked.
    fn with(keys: &str) -> Result<CentreConfig, String> {
        let base = format!(
            "site = \"c\"\nstate_dir = \"/c\"\n[web]\njudge_pin_hash = \"{}\"\n",
            hash()
        );
        CentreConfig::parse(&format!("{keys}\n{base}"), Path::new("c.toml"))
            .map_err(|e| e.to_string())
    }

    #[cfg(feature = "broker")]
    #[test]
    fn a_minimal_file_takes_the_defaults() {
        let text = format!(
            "site = \"cup\"\nstate_dir = \"/tmp/c\"\npasswords = \"/etc/p\"\n[web]\njudge_pin_hash = \"{}\"\n",
            hash()
        );
        let c = CentreConfig::parse(&text, Path::new("c.toml")).unwrap();
        assert!(!c.allow_anonymous);
        assert_eq!(c.lanes, None);
        assert_eq!(c.web_listen.to_string(), "0.0.0.0:8080");
        assert_eq!(
            c.broker,
            Broker::Embedded {
                listen: "0.0.0.0:1883".parse().unwrap()
            }
        );
    }

    #[test]
    fn unknown_keys_and_bad_values_are_named_with_their_line() {
        let text =
            "site = \"Cup!\"\nstate_dir = \"rel\"\nbrokr = \"x\"\n[web]\nlisten = \"nope\"\n";
        let e = CentreConfig::parse(text, Path::new("c.toml")).unwrap_err();
        let s = e.to_string();
        assert!(
            s.contains("brokr: unknown key (did you mean `broker`?)"),
            "{s}"
        );
        assert!(s.contains("(line 3, column 1)"), "{s}");
        let text = "site = \"Cup!\"\nstate_dir = \"rel\"\nbroker = \"http://x\"\n[web]\nlisten = \"nope\"\n";
        if crate::centre::broker::BUILT {
            let port0 = "site = \"c\"\nstate_dir = \"/c\"\nembedded_listen = \"0.0.0.0:0\"\n";
            let s = CentreConfig::parse(port0, Path::new("c.toml"))
                .unwrap_err()
                .to_string();
            assert!(s.contains("embedded_listen: needs a port"), "{s}");
        }
        let s = CentreConfig::parse(text, Path::new("c.toml"))
            .unwrap_err()
            .to_string();
        assert!(s.contains("site: \"Cup!\" must be 1 to 32"), "{s}");
        assert!(
            s.contains("state_dir: \"rel\" is not an absolute path"),
            "{s}"
        );
        assert!(
            s.contains("broker: \"http://x\" does not start with mqtt://"),
            "{s}"
        );
        assert!(s.contains("web.listen: \"nope\""), "{s}");
        assert!(s.contains("web.judge_pin_hash: is missing"), "{s}");
    }

    #[cfg(feature = "broker")]
    #[test]
    fn the_embedded_broker_takes_logins_unless_told_otherwise() {
        let e = with("").unwrap_err();
        assert!(e.contains("passwords: is missing"), "{e}");
        assert!(e.contains("allow_anonymous = true"), "{e}");
        let e = with("embedded_listen = \"127.0.0.1:1883\"").unwrap_err();
        assert!(e.contains("passwords: is missing"), "{e}");
        let c = with("allow_anonymous = true").unwrap();
        assert!(c.allow_anonymous && c.passwords.is_none());
        let e = with("broker = \"mqtt://c\"\nallow_anonymous = false").unwrap_err();
        assert!(
            e.contains("allow_anonymous: is only for the embedded broker"),
            "{e}"
        );
    }

    #[test]
    fn named_judges_each_have_a_name_and_a_pin_hash() {
        let judge = |name: &str, hash: &str| {
            format!("[[web.judges]]\nname = {name:?}\npin_hash = {hash:?}\n")
        };
        let text = |judges: &str| {
            format!(
                "site = \"c\"\nstate_dir = \"/c\"\nbroker = \"mqtt://c\"\n[web]\njudge_pin_hash = \"{}\"\n{judges}",
                hash()
            )
        };
        let good = judge(" Pavel Sokolov ", &hash());
        let c = CentreConfig::parse(&text(&good), Path::new("c.toml")).unwrap();
        assert_eq!(c.judges.len(), 1);
        assert_eq!(c.judges[0].name, "Pavel Sokolov");
        let bad = good.clone() + &judge("Pavel Sokolov", "x") + "[[web.judges]]\nname = \"\"\n";
        let e = CentreConfig::parse(&text(&bad), Path::new("c.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("web.judges[2].name: \"Pavel Sokolov\" is named twice"),
            "{e}"
        );
        assert!(e.contains("web.judges[2].pin_hash: "), "{e}");
        assert!(
            e.contains("web.judges[3].name: is empty: the judge's name as the records write it"),
            "{e}"
        );
        assert!(e.contains("web.judges[3].pin_hash: is missing"), "{e}");
    }

    #[test]
    fn lanes_are_a_list_or_ranges() {
        let base = format!(
            "site = \"c\"\nstate_dir = \"/c\"\nbroker = \"mqtt://c\"\n[web]\njudge_pin_hash = \"{}\"\n",
            hash()
        );
        let lanes = |value: &str| {
            CentreConfig::parse(&format!("lanes = {value}\n{base}"), Path::new("c.toml"))
                .map(|c| c.lanes.unwrap().into_iter().collect::<Vec<_>>())
                .map_err(|e| e.to_string())
        };
        assert_eq!(lanes("[3, 1, 2]").unwrap(), [1, 2, 3]);
        assert_eq!(lanes("\"1-3, 7\"").unwrap(), [1, 2, 3, 7]);
        assert_eq!(lanes("\" 9 \"").unwrap(), [9]);
        for (bad, says) in [
            ("\"3-1\"", "runs backwards"),
            ("\"0-2\"", "\"0\" is not a lane number"),
            ("[1, 1000]", "\"1000\" is not a lane number"),
            ("\"1-x\"", "is not a lane number"),
            ("[]", "names no lane"),
            ("\"1-999\"", "a centre takes 256 at most"),
            ("[\"1\"]", "lanes[1]: must be a whole number"),
            ("7", "lanes: must be a list of lane numbers"),
        ] {
            let e = lanes(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn sites_and_ca_files() {
        assert!(valid_site("a-b_9") && !valid_site("") && !valid_site(&"a".repeat(33)));
        let c = with("broker = \"mqtts://centre.local\"").unwrap();
        assert_eq!(
            c.broker,
            Broker::External {
                url: BrokerUrl::parse("mqtts://centre.local:8883").unwrap(),
                ca_file: None
            }
        );
        let e = with("broker = \"mqtt://c\"\nca_file = \"/etc/ssl/ca.pem\"").unwrap_err();
        assert!(e.contains("ca_file: is only for a broker over TLS"), "{e}");
        let e = with("broker = \"mqtts://c\"\nca_file = \"/nonexistent/ca.pem\"").unwrap_err();
        assert!(
            e.contains("ca_file: cannot read /nonexistent/ca.pem"),
            "{e}"
        );
        if crate::centre::broker::BUILT {
            let e = with("ca_file = \"/etc/ssl/ca.pem\"").unwrap_err();
            assert!(e.contains("ca_file: is only for an external broker"), "{e}");
        }
    }

    #[cfg(not(feature = "broker"))]
    #[test]
    fn without_the_embedded_broker_a_centre_names_its_broker() {
        for keys in ["passwords = \"/etc/p\"", "allow_anonymous = true", ""] {
            let e = with(keys).unwrap_err();
            assert!(
                e.contains(
                    "broker: is missing: this build of lanecall has no embedded MQTT broker"
                ),
                "{e}"
            );
            assert!(
                e.contains("Mosquitto") && e.contains("lanecall-centre"),
                "{e}"
            );
        }
        assert!(with("broker = \"mqtt://c\"").is_ok());
    }
}

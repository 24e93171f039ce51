//! The value of every key the file may leave out, in one place.
//! `config/lanecall.toml` documents each of them with this value, and
//! tests/config.rs fails when the example and the code disagree.
//!
//! A key read as one of named values (`pull = "up"`) has its default
//! written as the file writes it. The `[rules]` durations are
//! `Rules::default()`'s, which every journal's header also starts from.
//! Keys without a default (required, or absent when left out, such as
//! `journal.mirror` or `web.tls_cert`) are not here.
//!
//! Every table is read into its own struct and has its defaults in that
//! struct's `Default`; what is left here is what another part also uses
//! (the web's defaults, which the centre's page shares) and the voices'
//! folder.
//!
//! It decides nothing else: the ranges a value must fall in are in
//! the value types (`value`) and `validate`.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};

// [web]
/// Also the centre's page's.
pub(crate) const DEFAULT_LISTEN: SocketAddr =
    SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 8080));
pub(crate) const DEFAULT_SESSION_HOURS: u64 = 12;
pub(crate) const DEFAULT_SESSION_IDLE_S: u64 = 2 * 3600;
pub(crate) const DEFAULT_LOCKOUT_AFTER: u32 = 5;
pub(crate) const DEFAULT_LOCKOUT_BASE_S: u64 = 60;
pub(crate) const DEFAULT_LOCKOUT_MAX_S: u64 = 3600;

/// Where the package installs the voices `[speaker] voice` names, one
/// folder each (`rhvoice/ru/n7.wav`, its `LICENSE`).
pub const VOICES_DIR: &str = "/usr/share/lanecall/voices";

#[cfg(test)]
mod tests {
    use super::super::keys::Key;
    use super::super::keys::Kind;
    use super::super::raw::{root, walk};

    /// The example with its commented-out keys (`# mirror = ...`,
    /// `# [[web.judges]]`, `# [centre]`) written in, as a technician would uncomment them.
    fn example_with_every_key() -> toml::Table {
        let example = include_str!("../../config/lanecall.toml");
        let uncommented: Vec<&str> = example
            .lines()
            .map(|line| match line.strip_prefix("# ") {
                Some(rest) if rest.starts_with('[') && !rest.contains(' ') => rest,
                Some(rest)
                    if rest.split_once(" = ").is_some_and(|(key, _)| {
                        !key.is_empty() && key.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                    }) =>
                {
                    rest
                }
                _ => line,
            })
            .collect();
        toml::from_str(&uncommented.join("\n")).unwrap()
    }

    /// The key paths of `fields` missing from `table`.
    fn missing(table: &toml::Table, fields: &[Key], prefix: &str, out: &mut Vec<String>) {
        for Key { name, kind, .. } in fields {
            let path = format!("{prefix}{name}");
            let (fields, inner) = match (kind, table.get(*name)) {
                (_, None) => {
                    out.push(path);
                    continue;
                }
                (Kind::Table(_), Some(toml::Value::Table(t))) => {
                    (kind.fields().unwrap_or_default(), t)
                }
                (Kind::Tables(sub), Some(toml::Value::Array(items))) => {
                    match items.first().and_then(toml::Value::as_table) {
                        Some(t) => (*sub, t),
                        None => {
                            out.push(path);
                            continue;
                        }
                    }
                }
                _ => continue,
            };
            missing(inner, fields, &format!("{path}."), out);
        }
    }

    /// Every key the lane knows is documented in the example, set to its
    /// default or left commented out when it has none; and the example
    /// names no key the lane does not know, commented out or not.
    #[test]
    fn the_example_documents_every_key() {
        let example = example_with_every_key();
        let mut absent = Vec::new();
        missing(&example, root(), "", &mut absent);
        assert_eq!(
            absent,
            Vec::<String>::new(),
            "keys not in config/lanecall.toml"
        );
        let mut unknown = Vec::new();
        walk(&example, root(), "", &mut unknown);
        assert_eq!(unknown, Vec::new(), "config/lanecall.toml");
    }
}

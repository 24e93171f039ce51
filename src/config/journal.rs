//! `[journal]`: the journals beyond `state_dir`, the table as the file
//! writes it and as the daemon uses it, one struct (each key a field with
//! its doc; its default in `Default`; its check in its type).
//!
//! It decides what the journal's keys mean; it never opens a file.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The journals beyond `state_dir`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct JournalConfig {
    /// A folder that gets a live second copy of the open journal (see
    /// [`crate::journal::mirror`]), e.g. on a USB stick; absolute. It need
    /// not exist when the config is read: the stick may be unplugged.
    #[serde(deserialize_with = "mirror", skip_serializing_if = "Option::is_none")]
    pub mirror: Option<PathBuf>,
    /// Whether a `state_dir` on a file system kept in memory (tmpfs,
    /// ramfs, an overlay such as raspi-config's overlay root) is accepted:
    /// check-config then notes it instead of failing. The journal there is
    /// lost at a power cut whatever `fdatasync` returns, so only a demo or
    /// a bench sets it.
    pub allow_volatile: bool,
}

fn mirror<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
    const EXAMPLE: &str = "mirror = \"/media/usb/lanecall\" under [journal]";
    super::value::absolute(
        d,
        &format!("leave it out for no mirror, or name a folder, e.g. {EXAMPLE}"),
        EXAMPLE,
    )
}

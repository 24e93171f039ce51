//! A slow SD card under the real daemon: `slow_sync.c`, built here once a
//! run with the C compiler every Rust toolchain links with, and loaded
//! with `LD_PRELOAD`. Every `fsync`/`fdatasync` of the process waits the
//! card's time first, and is counted in a file the test reads.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The shim's shared library, built on first use (`None`: no `cc`, the
/// test is skipped or fails as [`super::require`] says).
pub fn library() -> Option<PathBuf> {
    static BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let cc = super::require_tool("cc", "gcc")?;
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
            let lib = dir.join("libslow_sync.so");
            // Built beside and renamed: test programs running side by side
            // never load a half-written library.
            let tmp = dir.join(format!("libslow_sync.so.{}", std::process::id()));
            let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/slow_sync.c");
            let status = std::process::Command::new(cc)
                .args(["-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o"])
                .arg(&tmp)
                .arg(&source)
                .arg("-ldl")
                .status()
                .expect("cc runs");
            assert!(status.success(), "cc could not build {}", source.display());
            std::fs::rename(&tmp, &lib).expect("the library is put in place");
            Some(lib)
        })
        .clone()
}

/// A card whose every sync takes `ms` milliseconds, for one daemon.
pub struct SlowCard {
    lib: PathBuf,
    log: PathBuf,
    ms: String,
}

impl SlowCard {
    /// A card of `ms` milliseconds a sync, counting its syncs in `dir`.
    pub fn new(dir: &Path, ms: u64) -> Option<SlowCard> {
        Some(SlowCard {
            lib: library()?,
            log: dir.join("syncs"),
            ms: ms.to_string(),
        })
    }

    /// The daemon's environment: the shim, its delay and its count.
    pub fn env(&self) -> Vec<(&str, &str)> {
        vec![
            ("LD_PRELOAD", self.lib.to_str().expect("a UTF-8 path")),
            ("SLOW_SYNC_MS", &self.ms),
            ("SLOW_SYNC_LOG", self.log.to_str().expect("a UTF-8 path")),
        ]
    }

    /// The syncs begun so far.
    pub fn syncs(&self) -> u64 {
        std::fs::metadata(&self.log).map_or(0, |m| m.len())
    }
}

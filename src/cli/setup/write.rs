//! How setup replaces a file: in one rename, with the old file's owner,
//! group and mode (a new config: group `lanecall`, mode
//! [`CONFIG_MODE`]). On an error the old file is as it was.

use std::fs;
use std::io;
use std::path::Path;

use super::CONFIG_MODE;
use crate::atomic::atomic_write_owned;

/// Replaces `path` by `text` through [`atomic_write_owned`]: with the old
/// file's owner and group (new: group `lanecall` when it exists and this is
/// root) and `mode` (`None`: the old file's, else [`CONFIG_MODE`]). The
/// folder is made first if need be. On an error the old file is as it was.
pub fn write_atomically(path: &Path, text: &str, mode: Option<u32>) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?;
    let mode = mode.or_else(|| match fs::metadata(path) {
        Ok(_) => None,
        Err(_) => Some(CONFIG_MODE),
    });
    atomic_write_owned(path, text.as_bytes(), mode, lanecall_group())
}

/// The `lanecall` group's id, for a new config the service must read.
fn lanecall_group() -> Option<u32> {
    if !rustix::process::geteuid().is_root() {
        return None;
    }
    fs::read_to_string("/etc/group")
        .ok()?
        .lines()
        .find_map(|l| {
            let mut f = l.split(':');
            (f.next()? == "lanecall").then(|| f.nth(1)?.parse().ok())?
        })
}

//! Replacing a whole file so that a power cut or a failed write leaves the
//! old content or the new, never half of one: the config `setup` writes,
//! the judges' sessions, the session key, the embedded broker's logins.
//!
//! It decides how a file is replaced (a temporary file in the same folder,
//! synced, renamed over the old one, the folder synced) and what the new
//! file keeps of the old one (its owner and group, and its mode unless one
//! is given). It never decides what is written.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A new file's mode when neither a mode nor an old file says one: only
/// the owner reads it.
pub const PRIVATE: u32 = 0o600;

/// Replaces `path` by `bytes` in one rename: a temporary file in the same
/// folder, written and synced, with the old file's owner and group (when
/// this runs as root) and `mode` (`None`: the old file's, else
/// [`PRIVATE`]); then the folder synced, so the rename survives a power
/// cut. On an error the old file is as it was and the temporary file is
/// gone; the error names the file.
pub fn atomic_write(path: &Path, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    atomic_write_owned(path, bytes, mode, None)
}

/// [`atomic_write`], and a new file (none at `path` yet) is given group
/// `new_group` when this runs as root.
pub fn atomic_write_owned(
    path: &Path,
    bytes: &[u8],
    mode: Option<u32>,
    new_group: Option<u32>,
) -> io::Result<()> {
    let dir = folder(path);
    let old = fs::metadata(path).ok();
    let owner = match &old {
        Some(m) => Some((m.uid(), m.gid())),
        None => new_group.map(|gid| (0, gid)),
    };
    let mode = mode.unwrap_or_else(|| old.map_or(PRIVATE, |m| m.mode() & 0o7777));
    let (tmp, mut f) = temporary(&dir, path).map_err(|e| named(e, path))?;
    let written = (|| {
        f.write_all(bytes)?;
        if let Some((uid, gid)) = owner
            && rustix::process::geteuid().is_root()
        {
            std::os::unix::fs::fchown(&f, Some(uid), Some(gid))?;
        }
        f.set_permissions(fs::Permissions::from_mode(mode))?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(named(e, path));
    }
    sync_dir(&dir).map_err(|e| named(e, &dir))
}

/// Makes a directory entry (a new or renamed file) survive a power cut.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    match fs::File::open(dir).and_then(|d| d.sync_all()) {
        // Some file systems (FUSE ones among them) do not sync a folder;
        // the file's own sync is then all there is.
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::InvalidInput | io::ErrorKind::Unsupported
            ) =>
        {
            Ok(())
        }
        other => other,
    }
}

/// The folder `path` is in (`.` for a bare name).
fn folder(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// A new temporary file beside `path`, readable by no one else while it
/// is written. One left by a crash under the same name is replaced.
fn temporary(dir: &Path, path: &Path) -> io::Result<(PathBuf, fs::File)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.{}-{n}.tmp", std::process::id()));
    let open = || {
        fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
    };
    let f = match open() {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            fs::remove_file(&tmp)?;
            open()?
        }
        other => other?,
    };
    Ok((tmp, f))
}

fn named(e: io::Error, what: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", what.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("lanecall-atomic-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().mode() & 0o7777
    }

    #[test]
    fn a_new_file_is_private_and_a_replaced_one_keeps_its_mode() {
        let d = dir("mode");
        let path = d.join("f.toml");
        atomic_write(&path, b"one\n", None).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"one\n");
        assert_eq!(mode(&path), PRIVATE);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        atomic_write(&path, b"two\n", None).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two\n");
        assert_eq!(mode(&path), 0o640, "the old file's mode");
        atomic_write(&path, b"three\n", Some(0o604)).unwrap();
        assert_eq!(mode(&path), 0o604, "the mode given");
        let left: Vec<_> = fs::read_dir(&d).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file left: {left:?}");
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_whole() {
        let d = dir("readonly");
        let path = d.join("f.toml");
        atomic_write(&path, b"old content\n", Some(0o640)).unwrap();
        fs::set_permissions(&d, fs::Permissions::from_mode(0o500)).unwrap();
        let result = atomic_write(&path, b"new content\n", None);
        fs::set_permissions(&d, fs::Permissions::from_mode(0o700)).unwrap();
        // Root writes in a read-only folder: then the write goes through.
        if rustix::process::geteuid().is_root() {
            assert_eq!(fs::read(&path).unwrap(), b"new content\n");
        } else {
            let e = result.unwrap_err();
            assert!(e.to_string().contains("f.toml"), "{e}");
            assert_eq!(fs::read(&path).unwrap(), b"old content\n");
        }
        assert_eq!(mode(&path), 0o640);
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn a_write_that_cannot_be_renamed_leaves_the_old_file_and_no_temporary() {
        // A folder at the path: the rename fails after the temporary file
        // is written, whoever runs this.
        let d = dir("rename");
        let path = d.join("taken");
        fs::create_dir(&path).unwrap();
        fs::write(path.join("inside"), "kept").unwrap();
        let e = atomic_write(&path, b"new", None).unwrap_err();
        assert!(e.to_string().contains("taken"), "{e}");
        assert_eq!(fs::read_to_string(path.join("inside")).unwrap(), "kept");
        let names: Vec<String> = fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["taken"], "the temporary file is removed");
        let _ = fs::remove_dir_all(&d);
    }
}

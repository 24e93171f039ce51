//! A file system mounted for one test (a small tmpfs, an ext4 image):
//! disk faults injected under a real process. Mounting needs root (CI
//! runs as root); elsewhere the test says so and passes, under CI it fails.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A mount made for one test, taken down when dropped.
pub struct Mount {
    point: PathBuf,
}

impl Mount {
    /// `mount ARGS… point`, or `None` (after saying why) where this
    /// machine does not let the test mount: not root. Under CI that is a
    /// failure, since CI runs as root.
    pub fn new(args: &[&str], point: &Path) -> Option<Mount> {
        fs::create_dir_all(point).unwrap();
        let out = Command::new("mount").args(args).arg(point).output();
        match out {
            Ok(o) if o.status.success() => Some(Mount {
                point: point.to_owned(),
            }),
            other => {
                let why = match other {
                    Ok(o) => String::from_utf8_lossy(&o.stderr).into_owned(),
                    Err(e) => e.to_string(),
                };
                assert!(
                    std::env::var_os("CI").is_none(),
                    "CI runs as root and must be able to mount: {why}"
                );
                eprintln!("skipped: this fault test mounts a file system, which needs root: {why}");
                None
            }
        }
    }

    /// The device mounted here (`/dev/loop3`).
    pub fn device(&self) -> String {
        let out = Command::new("findmnt")
            .args(["-n", "-o", "SOURCE"])
            .arg(&self.point)
            .output()
            .expect("findmnt runs");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.point).status();
    }
}

/// Writes into `dir` until the disk is full.
pub fn fill(dir: &Path) -> PathBuf {
    let path = dir.join("filler");
    let mut f = fs::File::create(&path).unwrap();
    let mut size = 1 << 16;
    let chunk = vec![b'x'; size];
    while size > 0 {
        match f.write(&chunk[..size]) {
            Ok(n) if n == size => {}
            _ => size /= 2,
        }
    }
    let _ = f.sync_all();
    path
}

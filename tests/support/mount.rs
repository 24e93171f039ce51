//! A file system mounted for one test (a small tmpfs, an ext4 image):
//! disk faults injected under a real process. Mounting needs root (CI
//! runs as root); elsewhere the test is skipped, or fails under CI
//! ([`super::require`]).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A mount made for one test, taken down when dropped.
pub struct Mount {
    point: PathBuf,
}

impl Mount {
    /// `mount ARGS… point`, or `None` where this machine does not let
    /// the test mount (not root) and skipping is allowed ([`super::require`]).
    pub fn new(args: &[&str], point: &Path) -> Option<Mount> {
        fs::create_dir_all(point).unwrap();
        let mount = super::require_tool("mount", "mount")?;
        let out = Command::new(mount).args(args).arg(point).output();
        let why = match out {
            Ok(o) if o.status.success() => {
                return Some(Mount {
                    point: point.to_owned(),
                });
            }
            Ok(o) => String::from_utf8_lossy(&o.stderr).into_owned(),
            Err(e) => e.to_string(),
        };
        super::require(
            None,
            &format!("a mount ({why})"),
            "run the tests as root, as CI does",
        )
    }

    /// An 8 MiB ext4 image made at `image` and mounted at `point` as an
    /// SD card's file system is (`errors=remount-ro`); `None` where the
    /// tools or root are missing and skipping is allowed.
    pub fn ext4(image: &Path, point: &Path) -> Option<Mount> {
        let mkfs = super::require_tool("mkfs.ext4", "e2fsprogs")?;
        super::require_tool("e2fsck", "e2fsprogs")?;
        super::require_tool("findmnt", "util-linux")?;
        fs::File::create(image)
            .and_then(|f| f.set_len(8 << 20))
            .expect("the image is made");
        let made = Command::new(mkfs)
            .args(["-q", "-F"])
            .arg(image)
            .status()
            .expect("mkfs.ext4 runs");
        assert!(made.success(), "mkfs.ext4: {made:?}");
        Mount::ext4_again(image, point)
    }

    /// The ext4 image at `image` mounted at `point` again, as [`Mount::ext4`].
    pub fn ext4_again(image: &Path, point: &Path) -> Option<Mount> {
        let image = image.to_string_lossy();
        Mount::new(&["-o", "loop,errors=remount-ro", &image], point)
    }

    /// The mounted ext4 fails as an SD card with a write error does: it
    /// remounts itself read-only.
    pub fn fail_ext4(&self) {
        let device = self.device();
        let loop_name = device.trim_start_matches("/dev/");
        fs::write(format!("/sys/fs/ext4/{loop_name}/trigger_fs_error"), "1")
            .expect("ext4 takes a simulated error");
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

/// The technician's repair of an unmounted ext4 image: `e2fsck -fy`.
pub fn repair_ext4(image: &Path) {
    let fsck = Command::new("e2fsck")
        .arg("-fy")
        .arg(image)
        .status()
        .unwrap();
    assert!(fsck.code().is_some_and(|c| c <= 1), "e2fsck: {fsck:?}");
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

//! Whether the journal's folder survives a power cut: a file system kept
//! in memory (tmpfs, ramfs, or an overlay such as raspi-config's overlay
//! root, whose writes go to memory) loses every line at a power cut,
//! whatever `fdatasync` returned. `statfs` tells them apart;
//! /proc/self/mountinfo names the mount for the message.
//!
//! It only looks; it never writes nor mounts anything.

use std::fmt;
use std::path::{Path, PathBuf};

/// A file system the journal does not survive a power cut on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VolatileFs {
    /// Memory and swap (`TMPFS_MAGIC`): /tmp on many systems, /run.
    Tmpfs,
    /// Memory (`RAMFS_MAGIC`).
    Ramfs,
    /// An overlay (`OVERLAYFS_SUPER_MAGIC`): raspi-config's overlay file
    /// system keeps its upper layer in memory.
    Overlayfs,
}

const TMPFS_MAGIC: u32 = 0x0102_1994;
const RAMFS_MAGIC: u32 = 0x8584_58f6;
const OVERLAYFS_SUPER_MAGIC: u32 = 0x794c_7630;

impl VolatileFs {
    /// The kind for `statfs`'s `f_type`, if it is one of them.
    pub fn from_magic(f_type: u32) -> Option<VolatileFs> {
        match f_type {
            TMPFS_MAGIC => Some(VolatileFs::Tmpfs),
            RAMFS_MAGIC => Some(VolatileFs::Ramfs),
            OVERLAYFS_SUPER_MAGIC => Some(VolatileFs::Overlayfs),
            _ => None,
        }
    }

    /// What it means for the journal, in a few words.
    pub fn why(self) -> &'static str {
        match self {
            VolatileFs::Tmpfs | VolatileFs::Ramfs => "kept in memory, emptied by every power cut",
            VolatileFs::Overlayfs => {
                "an overlay whose writes (with raspi-config's overlay file system) are kept in \
                 memory and lost at every power cut"
            }
        }
    }
}

impl fmt::Display for VolatileFs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            VolatileFs::Tmpfs => "tmpfs",
            VolatileFs::Ramfs => "ramfs",
            VolatileFs::Overlayfs => "overlayfs",
        })
    }
}

/// The volatile file system `path` is on, or would be on once made: that
/// of its nearest existing ancestor. `None` on a disk's file system, or
/// when nothing of the path can be looked at.
pub fn volatile_storage(path: &Path) -> Option<VolatileFs> {
    for here in path.ancestors() {
        match rustix::fs::statfs(here) {
            // `f_type` is a C long (u32 on 32-bit ARM); the magic numbers
            // are 32-bit values.
            #[allow(clippy::unnecessary_cast)]
            Ok(st) => return VolatileFs::from_magic(st.f_type as u32),
            Err(rustix::io::Errno::NOENT | rustix::io::Errno::NOTDIR) => continue,
            Err(_) => return None,
        }
    }
    None
}

/// A mount, as /proc/self/mountinfo lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    /// Where it is mounted (`/`, `/var/lib/lanecall`).
    pub point: PathBuf,
    /// `ext4`, `tmpfs`, `overlay`…
    pub fstype: String,
    /// What is mounted (`/dev/mmcblk0p2`, `overlayroot`, `tmpfs`).
    pub source: String,
}

/// The mount holding `path` (absolute, symbolic links resolved) in the
/// text of /proc/self/mountinfo: the last-mounted of the longest mount
/// points above it.
pub fn mount_of(mountinfo: &str, path: &Path) -> Option<Mount> {
    let mut best: Option<Mount> = None;
    for line in mountinfo.lines() {
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let Some(point) = left.split(' ').nth(4) else {
            continue;
        };
        let mut right = right.split(' ');
        let (Some(fstype), Some(source)) = (right.next(), right.next()) else {
            continue;
        };
        let point = PathBuf::from(unescape(point));
        if path.starts_with(&point)
            && best
                .as_ref()
                .is_none_or(|b| point.components().count() >= b.point.components().count())
        {
            best = Some(Mount {
                point,
                fstype: fstype.to_owned(),
                source: unescape(source),
            });
        }
    }
    best
}

/// mountinfo's octal escapes (`\040` for a space) undone.
fn unescape(field: &str) -> String {
    let mut out = String::new();
    let mut rest = field;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let code = rest.get(i + 1..i + 4);
        match code.and_then(|c| u8::from_str_radix(c, 8).ok()) {
            Some(byte) => {
                out.push(char::from(byte));
                rest = &rest[i + 4..];
            }
            None => {
                out.push('\\');
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The nearest existing ancestor of `path`, symbolic links resolved, as
/// mountinfo names it.
pub(super) fn existing(path: &Path) -> Option<PathBuf> {
    path.ancestors().find_map(|p| std::fs::canonicalize(p).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// raspi-config's overlay file system, as a Pi 4 with it turned on
    /// lists its mounts.
    const OVERLAY_ROOT: &str = "\
24 1 179:2 / /media/root-ro ro,relatime shared:1 - ext4 /dev/mmcblk0p2 ro
25 1 0:22 / /media/root-rw rw,relatime shared:2 - tmpfs tmpfs-root rw
26 0 0:23 / / rw,relatime shared:3 - overlay overlayroot rw,lowerdir=/media/root-ro,upperdir=/media/root-rw/overlay
27 26 179:1 / /boot/firmware rw,relatime shared:4 - vfat /dev/mmcblk0p1 rw
30 26 0:25 / /run rw,nosuid,nodev shared:5 - tmpfs tmpfs rw,size=380000k
";

    #[test]
    fn the_overlay_root_holds_var_lib_lanecall() {
        let m = mount_of(OVERLAY_ROOT, Path::new("/var/lib/lanecall")).unwrap();
        assert_eq!(m.point, PathBuf::from("/"));
        assert_eq!(
            (m.fstype.as_str(), m.source.as_str()),
            ("overlay", "overlayroot")
        );
        let boot = mount_of(OVERLAY_ROOT, Path::new("/boot/firmware/config.txt")).unwrap();
        assert_eq!(boot.fstype, "vfat");
        // A folder beside a mount point is not under it.
        let runner = mount_of(OVERLAY_ROOT, Path::new("/running")).unwrap();
        assert_eq!(runner.point, PathBuf::from("/"));
    }

    #[test]
    fn a_usb_stick_with_a_space_in_its_name_is_named_as_mounted() {
        let text = "1 0 8:1 / / rw - ext4 /dev/root rw\n\
                    2 1 8:17 / /media/lane\\0407 rw - vfat /dev/sda1 rw\n";
        let m = mount_of(text, Path::new("/media/lane 7/journal")).unwrap();
        assert_eq!(m.point, PathBuf::from("/media/lane 7"));
        assert_eq!(unescape("a\\134b\\x"), "a\\b\\x");
    }

    #[test]
    fn only_memory_and_overlay_file_systems_are_volatile() {
        assert_eq!(VolatileFs::from_magic(0x0102_1994), Some(VolatileFs::Tmpfs));
        assert_eq!(VolatileFs::from_magic(0x8584_58f6), Some(VolatileFs::Ramfs));
        assert_eq!(
            VolatileFs::from_magic(0x794c_7630),
            Some(VolatileFs::Overlayfs)
        );
        // ext4, vfat, btrfs.
        for disk in [0xef53, 0x4d44, 0x9123_683e] {
            assert_eq!(VolatileFs::from_magic(disk), None);
        }
        assert_eq!(VolatileFs::Overlayfs.to_string(), "overlayfs");
    }

    #[test]
    fn a_folder_not_made_yet_is_judged_by_its_parent() {
        // /dev/shm is a tmpfs wherever it exists (systemd and Docker mount
        // one); /proc/self is not a tmpfs.
        let shm = Path::new("/dev/shm");
        if rustix::fs::statfs(shm).is_ok_and(|s| VolatileFs::from_magic(s.f_type as u32).is_some())
        {
            assert_eq!(
                volatile_storage(&shm.join("lanecall-never-made/journal")),
                Some(VolatileFs::Tmpfs)
            );
        }
        assert_eq!(volatile_storage(Path::new("/proc/self/never-made")), None);
    }
}

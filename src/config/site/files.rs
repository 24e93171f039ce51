//! Where the machine's files are ([`HostFiles`]) and what reading them
//! found ([`Found`]): what `site`'s checks share.

use std::path::{Path, PathBuf};

use super::model::PiModel;

/// Where this machine's files are: the real ones ([`HostFiles::real`]),
/// or a fake root's in tests ([`HostFiles::under`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostFiles {
    /// The running kernel's command line (/proc/cmdline).
    pub proc_cmdline: PathBuf,
    /// The next boot's, first found first: /boot/firmware/cmdline.txt
    /// (Raspberry Pi OS from Bookworm), /boot/cmdline.txt (before it).
    pub boot_cmdline: Vec<PathBuf>,
    /// The boot config, first found first: /boot/firmware/config.txt,
    /// /boot/config.txt.
    pub boot_config: Vec<PathBuf>,
    /// Where units are enabled (/etc/systemd/system).
    pub systemd_etc: PathBuf,
    /// The Pi's model (/proc/device-tree/model).
    pub model: PathBuf,
    /// The devices (/dev): `serial0` on a command line is what
    /// /dev/serial0 links to.
    pub dev: PathBuf,
    /// This process's mounts (/proc/self/mountinfo).
    pub mountinfo: PathBuf,
}

impl HostFiles {
    /// This machine's.
    pub fn real() -> HostFiles {
        HostFiles::under(Path::new("/"))
    }

    /// The same files under another root: a test's fake machine.
    pub fn under(root: &Path) -> HostFiles {
        HostFiles {
            proc_cmdline: root.join("proc/cmdline"),
            boot_cmdline: vec![
                root.join("boot/firmware/cmdline.txt"),
                root.join("boot/cmdline.txt"),
            ],
            boot_config: vec![
                root.join("boot/firmware/config.txt"),
                root.join("boot/config.txt"),
            ],
            systemd_etc: root.join("etc/systemd/system"),
            model: root.join("proc/device-tree/model"),
            dev: root.join("dev"),
            mountinfo: root.join("proc/self/mountinfo"),
        }
    }

    /// The first of `paths` that can be read, with its text.
    pub(super) fn first(paths: &[PathBuf]) -> Option<(&Path, String)> {
        paths
            .iter()
            .find_map(|p| std::fs::read_to_string(p).ok().map(|t| (p.as_path(), t)))
    }

    /// The model of this Pi; `None` on anything else.
    pub fn pi_model(&self) -> Option<PiModel> {
        std::fs::read_to_string(&self.model)
            .ok()
            .and_then(|t| PiModel::parse(&t))
    }
}

/// What [`check`] found: problems by key, and notes.
#[derive(Debug, Default)]
pub(in crate::config) struct Found {
    pub(in crate::config) problems: Vec<(String, String)>,
    pub(in crate::config) notes: Vec<String>,
}

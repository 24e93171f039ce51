//! A test's own folder: a fresh temporary directory, removed when the test
//! passes and kept when it fails, its path said, to read what the daemon
//! left there (its log, its journal, the broker's log).

use std::ops::Deref;
use std::path::Path;

/// A fresh folder named after the test (`lanecall-<name>-…` in the
/// temporary directory). Removed when dropped, unless the thread is
/// panicking: then kept, and its path printed.
pub struct Scratch(Option<tempfile::TempDir>);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        use std::os::unix::fs::PermissionsExt as _;
        // Readable by all, as a folder the test made itself would be: a
        // broker or daemon the test starts may run as another user.
        let dir = tempfile::Builder::new()
            .prefix(&format!("lanecall-{name}-"))
            .permissions(std::fs::Permissions::from_mode(0o755))
            .tempdir()
            .unwrap_or_else(|e| panic!("cannot make a temporary folder for {name}: {e}"));
        Scratch(Some(dir))
    }

    pub fn path(&self) -> &Path {
        self.0.as_ref().map_or(Path::new(""), |d| d.path())
    }
}

/// As its path: `{dir:?}` writes a TOML string of it, as a `PathBuf` would.
impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.path().fmt(f)
    }
}

impl Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.path()
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.path().as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking()
            && let Some(dir) = self.0.take()
        {
            eprintln!("kept for a look: {}", dir.keep().display());
        }
    }
}

#[test]
fn a_scratch_folder_goes_when_the_test_passes_and_stays_when_it_fails() {
    let passed = Scratch::new("scratch-passed");
    let path = passed.to_path_buf();
    std::fs::write(passed.join("x"), "x").unwrap();
    drop(passed);
    assert!(!path.exists());
    let kept = std::thread::spawn(|| {
        let failed = Scratch::new("scratch-failed");
        let path = failed.to_path_buf();
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _failed = failed;
            panic!("a failing test");
        }));
        path
    })
    .join()
    .unwrap();
    assert!(kept.is_dir(), "{}", kept.display());
    std::fs::remove_dir_all(kept).unwrap();
}

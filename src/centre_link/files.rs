//! The journal files as the link reads them: a small trait, so that the
//! link's logic (`lines.rs`, `resend.rs`, `publishing.rs`) never opens a
//! file itself. [`Disk`] is the lane's folder; the tests hand the logic
//! journals held in memory ([`tests::MemFiles`]).

use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

/// What the link reads of the journal folder.
pub trait JournalFiles: Send {
    /// The journal at `path`, read from byte `offset` on.
    fn open_at(&self, path: &Path, offset: u64) -> io::Result<Box<dyn Read + '_>>;
    /// The names of the files in the folder `dir`.
    fn names(&self, dir: &Path) -> io::Result<Vec<String>>;
    /// Whether `path` is a plain file (not a folder, not a link).
    fn is_file(&self, path: &Path) -> bool;
}

/// The journals on the lane's disk.
pub struct Disk;

impl JournalFiles for Disk {
    fn open_at(&self, path: &Path, offset: u64) -> io::Result<Box<dyn Read + '_>> {
        let mut f = std::fs::File::open(path)?;
        f.seek(SeekFrom::Start(offset))?;
        Ok(Box::new(f))
    }

    fn names(&self, dir: &Path) -> io::Result<Vec<String>> {
        Ok(std::fs::read_dir(dir)?
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .collect())
    }

    fn is_file(&self, path: &Path) -> bool {
        std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::path::PathBuf;
    use std::sync::{Arc, Mutex};

    /// Journals held in memory, shared with the test that writes them.
    #[derive(Clone, Default)]
    pub struct MemFiles(pub Arc<Mutex<BTreeMap<PathBuf, Vec<u8>>>>);

    impl MemFiles {
        /// Appends `lines` (each with its `\n`) to `path`: its length.
        pub fn append(&self, path: &Path, lines: &[&str]) -> u64 {
            let mut files = self.0.lock().unwrap();
            let bytes = files.entry(path.to_owned()).or_default();
            for l in lines {
                bytes.extend_from_slice(l.as_bytes());
                bytes.push(b'\n');
            }
            bytes.len() as u64
        }

        pub fn remove(&self, path: &Path) {
            self.0.lock().unwrap().remove(path);
        }
    }

    impl JournalFiles for MemFiles {
        fn open_at(&self, path: &Path, offset: u64) -> io::Result<Box<dyn Read + '_>> {
            let files = self.0.lock().unwrap();
            let bytes = files
                .get(path)
                .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
            let from = (offset as usize).min(bytes.len());
            Ok(Box::new(io::Cursor::new(bytes[from..].to_vec())))
        }

        fn names(&self, dir: &Path) -> io::Result<Vec<String>> {
            let files = self.0.lock().unwrap();
            Ok(files
                .keys()
                .filter(|p| p.parent() == Some(dir))
                .filter_map(|p| Some(p.file_name()?.to_str()?.to_owned()))
                .collect())
        }

        fn is_file(&self, path: &Path) -> bool {
            self.0.lock().unwrap().contains_key(path)
        }
    }
}

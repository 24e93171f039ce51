//! What the centre keeps in its `state_dir` from its page (the entries,
//! the programme, the blocks' lanes, the lanes), each file with its
//! record of changes: a change is kept only with its record, each written
//! to the disk before it is answered.

use std::io::Write;
use std::path::Path;

use serde_json::Value;

/// Writes `text` whole to `path` (atomically, synced), then appends
/// `record` to `log`; when the record cannot be written, the file is put
/// back as it was (or removed, when there was none).
pub fn save(path: &Path, text: &[u8], log: &Path, record: &Value) -> std::io::Result<()> {
    let old = std::fs::read(path).ok();
    crate::atomic::atomic_write(path, text, None)?;
    if let Err(e) = append(log, record) {
        let back = match &old {
            Some(bytes) => crate::atomic::atomic_write(path, bytes, None),
            None => std::fs::remove_file(path),
        };
        if let Err(b) = back {
            tracing::error!(
                "{} changed but its record {} did not: {b}",
                path.display(),
                log.display()
            );
        }
        return Err(e);
    }
    Ok(())
}

/// Appends one line to the record at `path`, synced (its folder too when
/// the record is new).
pub fn append(path: &Path, record: &Value) -> std::io::Result<()> {
    let new = !path.exists();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    f.write_all(format!("{record}\n").as_bytes())?;
    f.sync_data()?;
    if new && let Some(dir) = path.parent() {
        crate::atomic::sync_dir(dir)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_whose_record_cannot_be_written_is_not_kept() {
        let dir = std::env::temp_dir().join(format!("lanecall-kept-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (file, log) = (dir.join("lanes.toml"), dir.join("lanes-changes.jsonl"));
        let record = serde_json::json!({"change": "add", "lane": 7});
        save(&file, b"one", &log, &record).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"one");
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            format!("{record}\n")
        );
        // A record that cannot be appended to (a folder in its place).
        let blocked = dir.join("blocked.jsonl");
        std::fs::create_dir_all(&blocked).unwrap();
        assert!(save(&file, b"two", &blocked, &record).is_err());
        assert_eq!(
            std::fs::read(&file).unwrap(),
            b"one",
            "the old file put back"
        );
        let new = dir.join("new.toml");
        assert!(save(&new, b"two", &blocked, &record).is_err());
        assert!(!new.exists(), "a file that was not there stays away");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

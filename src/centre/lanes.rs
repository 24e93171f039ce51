//! The competition's lanes set on the centre's page (docs/centre.md,
//! "Lanes added and removed on the page"): lanes added beyond those the
//! config, the programme and the broker's logins name, and lanes taken
//! off the page, kept in `lanes.toml` in the centre's `state_dir` and each
//! change recorded in `lanes-changes.jsonl` with who made it and when.
//!
//! Pure bookkeeping and its file: the API (`api/lanes.rs`) checks a
//! change against the blocks and the book, and admits an added lane.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The lanes set on the page, in the `state_dir`.
pub const FILE: &str = "lanes.toml";
/// One JSON line a change: `{"at", "by", "change": "add"|"remove", "lane"}`.
pub const CHANGES: &str = "lanes-changes.jsonl";

/// Who added a lane, and when (RFC 3339, UTC).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Added {
    pub by: String,
    pub at: String,
}

/// What `lanes.toml` holds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    /// Lane number (as text: TOML keys) → who added it.
    #[serde(default)]
    added: BTreeMap<String, Added>,
    /// Lanes of the config, the programme or the logins taken off the page.
    #[serde(default)]
    removed: BTreeSet<u32>,
}

/// The lanes the page set, and what the broker knows of the lanes'
/// logins.
#[derive(Clone, Debug, Default)]
pub struct Kept {
    /// Where `lanes.toml` is; `None`: nothing is kept (a centre not
    /// started from a config, in tests).
    dir: Option<PathBuf>,
    pub added: BTreeMap<u32, Added>,
    pub removed: BTreeSet<u32>,
    /// The lanes with a `lane<N>` login on the embedded broker; `None`
    /// with an external broker (its logins are not the centre's to know).
    pub logins: Option<BTreeSet<u32>>,
}

impl Kept {
    /// Reads `lanes.toml` in `dir` (none there: nothing set yet).
    pub fn load(dir: &Path, logins: Option<BTreeSet<u32>>) -> Result<Kept, String> {
        let path = dir.join(FILE);
        let file: File = match std::fs::read_to_string(&path) {
            Ok(text) => toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => File::default(),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        let mut added = BTreeMap::new();
        for (k, v) in file.added {
            let n = crate::mqtt::topic::lane_number(&k)
                .ok_or_else(|| format!("{}: {k:?} is not a lane number", path.display()))?;
            added.insert(n, v);
        }
        Ok(Kept {
            dir: Some(dir.to_owned()),
            added,
            removed: file.removed,
            logins,
        })
    }

    /// The competition's lanes from `base` (the programme's, the
    /// admitted, those heard from): with the lanes added, without those
    /// removed unless `heard` (a lane that connected keeps its card).
    pub fn apply(&self, base: &mut BTreeSet<u32>, heard: impl Fn(u32) -> bool) {
        base.extend(self.added.keys().copied());
        base.retain(|n| !self.removed.contains(n) || heard(*n));
    }

    /// Whether lane `n` has a login on the embedded broker (`None`: an
    /// external broker).
    pub fn login(&self, n: u32) -> Option<bool> {
        self.logins.as_ref().map(|l| l.contains(&n))
    }

    /// Lane `n` added by `by`: written, then recorded; on any failure
    /// nothing changes (the old file put back).
    pub fn add(&mut self, n: u32, by: &str) -> Result<(), String> {
        let mut next = self.clone();
        next.removed.remove(&n);
        let at = crate::wall_clock::rfc3339(crate::wall_clock::unix_now());
        next.added.insert(
            n,
            Added {
                by: by.to_owned(),
                at: at.clone(),
            },
        );
        let record = serde_json::json!({ "at": at, "by": by, "change": "add", "lane": n });
        next.save(&record)?;
        *self = next;
        Ok(())
    }

    /// Lane `n` taken off by `by` (written and recorded as [`Kept::add`]).
    pub fn remove(&mut self, n: u32, by: &str) -> Result<(), String> {
        let mut next = self.clone();
        if next.added.remove(&n).is_none() {
            next.removed.insert(n);
        }
        let at = crate::wall_clock::rfc3339(crate::wall_clock::unix_now());
        let record = serde_json::json!({ "at": at, "by": by, "change": "remove", "lane": n });
        next.save(&record)?;
        *self = next;
        Ok(())
    }

    fn save(&self, record: &serde_json::Value) -> Result<(), String> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        let path = dir.join(FILE);
        let file = File {
            added: self
                .added
                .iter()
                .map(|(n, a)| (n.to_string(), a.clone()))
                .collect(),
            removed: self.removed.clone(),
        };
        let text = toml::to_string(&file).map_err(|e| format!("not saved: {e}"))?;
        std::fs::create_dir_all(dir)
            .and_then(|()| super::kept::save(&path, text.as_bytes(), &dir.join(CHANGES), record))
            .map_err(|e| format!("not saved: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("lanecall-pagelanes-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn lanes_added_and_removed_are_kept_and_recorded() {
        let d = dir("kept");
        let mut k = Kept::load(&d, Some([1, 2].into())).unwrap();
        k.add(7, "Irina Orlova").unwrap();
        k.remove(2, "Pavel Sokolov").unwrap();
        let again = Kept::load(&d, None).unwrap();
        assert_eq!(again.added[&7].by, "Irina Orlova");
        assert_eq!(again.removed, BTreeSet::from([2]));
        let mut base = BTreeSet::from([1, 2, 3]);
        again.apply(&mut base, |_| false);
        assert_eq!(base, BTreeSet::from([1, 3, 7]));
        let mut base = BTreeSet::from([1, 2, 3]);
        again.apply(&mut base, |n| n == 2);
        assert_eq!(
            base,
            BTreeSet::from([1, 2, 3, 7]),
            "lane 2 connected: its card stays"
        );
        assert_eq!(
            (k.login(1), k.login(7), again.login(1)),
            (Some(true), Some(false), None)
        );
        // An added lane taken off is forgotten, not listed as removed.
        k.remove(7, "Irina Orlova").unwrap();
        let again = Kept::load(&d, None).unwrap();
        assert!(again.added.is_empty());
        assert_eq!(again.removed, BTreeSet::from([2]));
        let log = std::fs::read_to_string(d.join(CHANGES)).unwrap();
        let changes: Vec<serde_json::Value> = log
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(changes.len(), 3);
        assert_eq!(changes[1]["change"], "remove");
        assert_eq!(changes[1]["by"], "Pavel Sokolov");
        assert_eq!(changes[1]["lane"], 2);
    }

    #[test]
    fn a_damaged_file_is_named() {
        let d = dir("bad");
        std::fs::write(d.join(FILE), "[added.x7]\nby = \"a\"\nat = \"b\"\n").unwrap();
        let e = Kept::load(&d, None).unwrap_err();
        assert!(e.ends_with("\"x7\" is not a lane number"), "{e}");
    }
}

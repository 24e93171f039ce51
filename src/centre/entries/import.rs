//! What an import does to the entries (docs/programme.md, "Entries as
//! CSV"): the file's entries replace the list, or are added to it (a name
//! already entered takes the file's values); what it would do is said by
//! name before it is done ([`Diff`]), and the list before the last import
//! is kept, one level, so that the import can be undone.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Serialize;

use crate::centre::programme::Entry;

/// The list before the last import, in the `state_dir` (as `entries.toml`
/// writes it); gone once another change is made or the import is undone.
pub const BEFORE: &str = "entries-before-import.toml";

/// How an import's entries make the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The file's entries are the list.
    Replace,
    /// The file's entries are added to the list; one whose name is
    /// entered already takes the file's values; none is removed.
    Add,
}

impl Mode {
    /// `replace` or `add`.
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "replace" => Some(Mode::Replace),
            "add" => Some(Mode::Add),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Replace => "replace",
            Mode::Add => "add",
        }
    }
}

/// The list an import in `mode` makes of `old` with the file's entries.
pub fn merge(old: &[Entry], file: Vec<Entry>, mode: Mode) -> Vec<Entry> {
    match mode {
        Mode::Replace => file,
        Mode::Add => {
            let mut list = old.to_vec();
            let at: BTreeMap<String, usize> = list
                .iter()
                .enumerate()
                .map(|(i, e)| (e.name.clone(), i))
                .collect();
            for e in file {
                match at.get(&e.name) {
                    Some(&i) => list[i] = e,
                    None => list.push(e),
                }
            }
            list
        }
    }
}

/// What a change of the list does, by name.
#[derive(Debug, Default, PartialEq, Eq, Serialize)]
pub struct Diff {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// Entered before and after, with another class, sex, region, team,
    /// handicap or withdrawal.
    pub changed: Vec<String>,
    /// How many stay as they were.
    pub unchanged: usize,
}

/// `old` to `new` by name, each list in its order.
pub fn diff(old: &[Entry], new: &[Entry]) -> Diff {
    let before: BTreeMap<&str, &Entry> = old.iter().map(|e| (e.name.as_str(), e)).collect();
    let after: BTreeSet<&str> = new.iter().map(|e| e.name.as_str()).collect();
    let mut d = Diff::default();
    for e in new {
        match before.get(e.name.as_str()) {
            None => d.added.push(e.name.clone()),
            Some(was) if *was != e => d.changed.push(e.name.clone()),
            Some(_) => d.unchanged += 1,
        }
    }
    d.removed = old
        .iter()
        .filter(|e| !after.contains(e.name.as_str()))
        .map(|e| e.name.clone())
        .collect();
    d
}

/// Keeps `list` as the list before an import (atomically, synced).
pub fn keep(state_dir: &Path, title: &str, list: &[Entry]) -> std::io::Result<()> {
    let text = super::entries_text(
        title,
        list,
        &[],
        "# The entries before the last CSV import, kept by `lanecall centre` so\n\
         # that the import can be undone from its page (docs/programme.md).",
    )
    .map_err(std::io::Error::other)?;
    crate::atomic::atomic_write(&state_dir.join(BEFORE), text.as_bytes(), None)
}

/// Forgets the list before an import.
pub fn forget(state_dir: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(state_dir.join(BEFORE)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The entries' values kept before the last import, when they were kept
/// for the programme titled `title`.
pub fn kept(state_dir: &Path, title: &str) -> Option<Vec<toml::Value>> {
    let text = std::fs::read_to_string(state_dir.join(BEFORE)).ok()?;
    let t: toml::Table = toml::from_str(&text).ok()?;
    if t.get("programme_title")?.as_str()? != title {
        return None;
    }
    match t.get("entry") {
        Some(toml::Value::Array(a)) => Some(a.clone()),
        None => Some(Vec::new()),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::centre::programme::Sex;
    use crate::lane::Class;

    fn e(name: &str, handicap: i32) -> Entry {
        Entry {
            name: name.into(),
            class: Class::B2,
            sex: Sex::F,
            region: "Tula".into(),
            team: None,
            handicap,
            withdrawn: false,
        }
    }

    #[test]
    fn adding_keeps_the_list_updates_the_same_names_and_appends_the_new() {
        let old = [e("Anna", 0), e("Olga", 0), e("Ivan", 0)];
        let file = vec![e("Petr", 0), e("Olga", 5)];
        let add = merge(&old, file.clone(), Mode::Add);
        assert_eq!(
            add,
            [e("Anna", 0), e("Olga", 5), e("Ivan", 0), e("Petr", 0)]
        );
        let d = diff(&old, &add);
        assert_eq!(d.added, ["Petr"]);
        assert_eq!(d.changed, ["Olga"]);
        assert!(d.removed.is_empty());
        assert_eq!(d.unchanged, 2);
        let replace = merge(&old, file, Mode::Replace);
        let d = diff(&old, &replace);
        assert_eq!(d.removed, ["Anna", "Ivan"]);
        assert_eq!((d.added.len(), d.changed.len(), d.unchanged), (1, 1, 0));
        assert_eq!(Mode::parse("merge"), None);
    }

    #[test]
    fn the_list_kept_is_read_back_for_its_programme_only() {
        let dir = std::env::temp_dir().join(format!("lanecall-before-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        keep(&dir, "Cup", &[e("Anna", 3)]).unwrap();
        let v = kept(&dir, "Cup").unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0]["handicap"].as_integer(), Some(3));
        assert!(kept(&dir, "Another cup").is_none());
        forget(&dir).unwrap();
        forget(&dir).unwrap();
        assert!(kept(&dir, "Cup").is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}

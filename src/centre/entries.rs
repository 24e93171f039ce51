//! The competition's entries as the centre's page changes them
//! (docs/programme.md, "Entries on the centre's page").
//!
//! The programme file stays the chief judge's: the centre never writes
//! it. Once an entry is changed from the page, the centre keeps every
//! entry in `entries.toml` in its `state_dir` (the programme's `[[entry]]`
//! tables, as the programme file writes them) and from then on reads its
//! entries from there, the rest of the programme from the file. Each
//! change is checked by the programme's own checks, written whole
//! (atomically, synced) and recorded with who made it in
//! `entries-changes.jsonl`.

pub mod blocks;
pub mod csv;
mod fields;
pub mod guard;
pub mod import;
pub mod programme_edit;
pub mod rename;

use fields::check_text;
pub use fields::{entry_from, entry_value, latin};
pub use guard::{Bowled, Who};

use std::collections::{BTreeSet, VecDeque};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub use super::programme::text_problems;
use super::programme::{Entry, Programme, ProgrammeError};
// The tests' own names for an entry's fields.
use crate::wall_clock::{rfc3339, unix_now};
#[cfg(test)]
use {super::programme::Sex, crate::lane::Class};

/// Entries a competition has at most.
pub const MAX_ENTRIES: usize = 1000;
/// The centre's entries, in its `state_dir`.
pub const FILE: &str = "entries.toml";
/// The record of every change, one JSON object a line.
pub const CHANGES: &str = "entries-changes.jsonl";
/// Changes `GET /api/entries` shows, newest first.
pub const SHOWN_CHANGES: usize = 100;

/// One problem with a change: where it is (an entry by its number from 1,
/// a CSV row and column, a field) and what is wrong.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Issue {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    pub message: String,
}

impl Issue {
    pub fn message(m: impl Into<String>) -> Issue {
        Issue {
            message: m.into(),
            ..Issue::default()
        }
    }
}

impl std::fmt::Display for Issue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut place = Vec::new();
        if let Some(n) = self.entry {
            place.push(format!("entry {n}"));
        }
        if let Some(r) = self.row {
            place.push(format!("row {r}"));
        }
        match (self.column, &self.field) {
            (Some(c), Some(n)) => place.push(format!("column {c} ({n})")),
            (Some(c), None) => place.push(format!("column {c}")),
            (None, Some(n)) => place.push(n.clone()),
            (None, None) => {}
        }
        if place.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", place.join(", "), self.message)
        }
    }
}

/// Why a change was not made: nothing of it was.
#[derive(Debug)]
pub struct Refusal {
    /// The HTTP status: 400 a bad entry, 404 no such entry, 409 a change
    /// the competition so far forbids, 500 the disk.
    pub status: u16,
    pub problems: Vec<Issue>,
}

impl Refusal {
    pub fn new(status: u16, m: impl Into<String>) -> Refusal {
        Refusal {
            status,
            problems: vec![Issue::message(m)],
        }
    }
    /// Every problem, one a line.
    pub fn text(&self) -> String {
        let lines: Vec<String> = self.problems.iter().map(Issue::to_string).collect();
        lines.join("\n")
    }
}

/// A change to the entries.
#[derive(Debug)]
pub enum Change {
    Add(Entry),
    /// The entry named `name` becomes `entry`.
    Edit {
        name: String,
        entry: Entry,
    },
    Withdraw {
        name: String,
        withdrawn: bool,
    },
    Delete {
        name: String,
    },
    /// Every entry replaced by these (a CSV import).
    Import(Vec<Entry>),
    /// These added to the entries, each whose name is entered already
    /// taking its values (a CSV import "add to the list").
    AddImport(Vec<Entry>),
    /// The entries as they were before the last import, when it was the
    /// last change.
    UndoImport,
}

/// `entries.toml` as read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    /// The programme's `title` when written: a file left from another
    /// competition is refused rather than taken.
    programme_title: String,
    #[serde(default)]
    entry: Vec<toml::Value>,
    /// The names corrected, in the order made (`rename.rs`).
    #[serde(default)]
    rename: Vec<rename::Rename>,
}

/// The programme with the centre's entries, and their record.
pub struct Entries {
    /// The programme file's text.
    text: String,
    file: PathBuf,
    log: PathBuf,
    programme: Arc<Programme>,
    /// Counts the changes made since the start.
    pub revision: u64,
    changes: VecDeque<Value>,
    /// What the page set over the programme file (`blocks.rs`).
    set: blocks::Set,
    state_dir: PathBuf,
    /// The entries before the last import, while it is the last change.
    before_import: Option<Vec<Entry>>,
    /// The names corrected, in the order made.
    renames: Vec<rename::Rename>,
}

impl Entries {
    /// Reads the programme file, and the centre's entries when it has
    /// some.
    pub fn load(path: &Path, state_dir: &Path) -> Result<Entries, ProgrammeError> {
        let (text, mut programme) = programme_edit::read(path, state_dir)?;
        let file = state_dir.join(FILE);
        let log = state_dir.join(CHANGES);
        let changes = read_tail(&log);
        let set = blocks::load(state_dir, &programme)?;
        blocks::overlay(&mut programme, &set);
        let before_import = import::kept(state_dir, &programme.title)
            .and_then(|v| Programme::with_entries(&text, v, &state_dir.join(import::BEFORE)).ok())
            .map(|p| p.entries);
        Ok(Entries {
            text,
            file,
            log,
            programme: Arc::new(programme),
            revision: 0,
            changes,
            set,
            state_dir: state_dir.to_owned(),
            before_import,
            renames: rename::kept(state_dir),
        })
    }

    pub fn programme(&self) -> Arc<Programme> {
        Arc::clone(&self.programme)
    }

    /// `GET /api/entries`.
    pub fn json(&self) -> Value {
        json!({
            "entries": self.programme.entries,
            "own": self.file.exists(),
            "max": MAX_ENTRIES,
            "undo_import": self.before_import.is_some(),
            "renamed": self.renames,
            "changes": self.changes.iter().rev().collect::<Vec<_>>(),
        })
    }

    /// Why `name`'s entry must stay as it is named: the blocks, teams,
    /// finals or games that name it.
    fn used(&self, name: &str, bowled: &BTreeSet<String>) -> Option<String> {
        let p = &self.programme;
        if bowled.contains(name) {
            return Some(format!("{name:?} has bowled"));
        }
        for b in &p.blocks {
            if let Some((lane, _)) = b.lanes.iter().find(|(_, l)| l.iter().any(|n| n == name)) {
                return Some(format!("{name:?} is on lane {lane} of block {:?}", b.id));
            }
        }
        for ev in &p.events {
            if let Some(t) = ev
                .teams
                .iter()
                .find(|t| t.members.iter().any(|n| n == name))
            {
                let m = format!("{name:?} is in team {:?} of event {:?}", t.name, ev.id);
                return Some(m);
            }
        }
        p.finals
            .iter()
            .any(|f| {
                f.roll_off
                    .iter()
                    .chain(f.roll_off_won.values())
                    .any(|n| n == name)
            })
            .then(|| format!("{name:?} won a roll-off in the finals"))
    }

    fn index(&self, name: &str) -> Result<usize, Refusal> {
        self.programme
            .entries
            .iter()
            .position(|e| e.name == name)
            .ok_or_else(|| Refusal::new(404, format!("there is no entry {name:?}")))
    }

    /// Checks `change` and makes it: written to disk, recorded as made by
    /// `by`, or refused with nothing changed. `bowled`: the names with
    /// games in the mirrored journals.
    pub fn apply(
        &mut self,
        change: Change,
        bowled: &BTreeSet<String>,
        by: &str,
    ) -> Result<(), Refusal> {
        let bowled = Bowled {
            names: bowled.clone(),
            ..Bowled::default()
        };
        self.apply_as(change, &bowled, &Who::from(by))
    }

    /// [`Entries::apply`] as `who` asks it, with the games bowled: the
    /// class, sex and handicap of a bowler who has bowled are kept by
    /// `guard.rs`.
    pub fn apply_as(&mut self, change: Change, bowled: &Bowled, who: &Who) -> Result<(), Refusal> {
        let importing = matches!(change, Change::Import(_) | Change::AddImport(_));
        let old = self.programme.entries.clone();
        let (programme, record, renames) = self.plan(change, bowled, who)?;
        self.save(&programme, &record, &renames)?;
        // One level: an import keeps the list before it; any other change
        // forgets it.
        let kept = if importing {
            import::keep(&self.state_dir, &programme.title, &old).map(|()| Some(old))
        } else {
            import::forget(&self.state_dir).map(|()| None)
        };
        self.before_import = kept.unwrap_or_else(|e| {
            tracing::warn!("the entries before the import are not kept: {e}");
            None
        });
        self.programme = Arc::new(programme);
        self.renames = renames;
        self.revision += 1;
        if self.changes.len() >= SHOWN_CHANGES {
            self.changes.pop_front();
        }
        self.changes.push_back(record);
        Ok(())
    }

    /// What `change` would do, checked as [`Entries::apply`] checks it,
    /// nothing made: for an import, the names it adds, removes and
    /// changes; for the chief judge, in `moves`, what it moves in bowled
    /// bowlers' results (to be confirmed when it is made).
    pub fn preview(&self, change: Change, bowled: &Bowled, who: &Who) -> Result<Value, Refusal> {
        let seeing = Who {
            confirm: true,
            ..who.clone()
        };
        self.plan(change, bowled, &seeing)
            .map(|(_, mut record, _)| {
                if let Some(r) = record.as_object_mut() {
                    r.remove("at");
                    r.remove("by");
                    r.remove("confirmed_by_chief");
                }
                record
            })
    }

    /// The programme `change` makes, its record and the names corrected;
    /// or why not.
    fn plan(
        &self,
        change: Change,
        bowled: &Bowled,
        who: &Who,
    ) -> Result<(Programme, Value, Vec<rename::Rename>), Refusal> {
        let mut list = self.programme.entries.clone();
        let at = rfc3339(unix_now());
        let mut record = json!({ "at": at, "by": who.name });
        let mut renames = self.renames.clone();
        let renamed = &self.programme.renamed;
        // A name another entry bowled under is that entry's.
        let old_name = |e: &Entry| {
            renamed.get(&e.name).map(|now| {
                Issue::message(format!(
                    "{:?} is the name {now:?} bowled under before it was corrected: enter it as {now:?}",
                    e.name
                ))
            })
        };
        match change {
            Change::Add(entry) => {
                if list.len() >= MAX_ENTRIES {
                    let m = format!("the competition has {MAX_ENTRIES} entries: no more fit");
                    return Err(Refusal::new(400, m));
                }
                check_text(std::iter::once((list.len() + 1, &entry)))?;
                if let Some(why) = old_name(&entry) {
                    return Err(Refusal::new(409, why.message));
                }
                record["change"] = "add".into();
                record["entry"] = json!(entry);
                list.push(entry);
            }
            Change::Edit { name, entry } => {
                let i = self.index(&name)?;
                if entry.name != name {
                    if let Some(m) = rename::refused(renamed, &list, &name, &entry.name) {
                        return Err(Refusal::new(409, m));
                    }
                    // The journals, blocks, teams or roll-offs that name
                    // it keep the old name: it is mapped.
                    if self.used(&name, &bowled.names).is_some() {
                        if renames.len() >= MAX_ENTRIES {
                            let m = format!(
                                "{MAX_ENTRIES} names are corrected already: no more are kept"
                            );
                            return Err(Refusal::new(409, m));
                        }
                        renames.push(rename::Rename {
                            from: name.clone(),
                            to: entry.name.clone(),
                            by: who.name.clone(),
                            at: at.clone(),
                        });
                        record["renamed"] = true.into();
                    }
                }
                check_text(std::iter::once((i + 1, &entry)))?;
                record["change"] = "edit".into();
                record["name"] = name.into();
                record["entry"] = json!(entry);
                list[i] = entry;
            }
            Change::Withdraw { name, withdrawn } => {
                let i = self.index(&name)?;
                list[i].withdrawn = withdrawn;
                record["change"] = if withdrawn { "withdraw" } else { "reinstate" }.into();
                record["name"] = name.into();
            }
            Change::Delete { name } => {
                self.index(&name)?;
                if let Some(why) = self.used(&name, &bowled.names) {
                    let m = format!("{why}: withdraw the entry instead of deleting it");
                    return Err(Refusal::new(409, m));
                }
                list.retain(|e| e.name != name);
                record["change"] = "delete".into();
                record["name"] = name.into();
            }
            Change::Import(_) | Change::AddImport(_) | Change::UndoImport => {
                let (mode, new) = match change {
                    Change::Import(new) => ("replace", new),
                    Change::AddImport(new) => ("add", import::merge(&list, new, import::Mode::Add)),
                    _ => match &self.before_import {
                        Some(before) => ("undo", before.clone()),
                        None => {
                            let m = "there is no import to undo: only the last change, if it was an import, can be undone";
                            return Err(Refusal::new(409, m));
                        }
                    },
                };
                if new.len() > MAX_ENTRIES {
                    let m = format!("{} entries: at most {MAX_ENTRIES}", new.len());
                    return Err(Refusal::new(400, m));
                }
                let diff = import::diff(&list, &new);
                let changed: BTreeSet<&str> = diff
                    .added
                    .iter()
                    .chain(&diff.changed)
                    .map(String::as_str)
                    .collect();
                check_text(
                    new.iter()
                        .enumerate()
                        .filter(|(_, e)| mode == "replace" || changed.contains(e.name.as_str()))
                        .map(|(k, e)| (k + 1, e)),
                )?;
                let kept: BTreeSet<&str> = new.iter().map(|e| e.name.as_str()).collect();
                let lost: Vec<Issue> = list
                    .iter()
                    .filter(|e| !kept.contains(e.name.as_str()))
                    .filter_map(|e| self.used(&e.name, &bowled.names))
                    .map(|why| {
                        Issue::message(format!(
                            "{why}: it cannot be left out (mark it withdrawn instead)"
                        ))
                    })
                    .chain(new.iter().filter_map(old_name))
                    .collect();
                if !lost.is_empty() {
                    return Err(Refusal {
                        status: 409,
                        problems: lost,
                    });
                }
                record["change"] = if mode == "undo" {
                    "undo_import"
                } else {
                    "import"
                }
                .into();
                record["mode"] = mode.into();
                record["entries"] = new.len().into();
                record["added"] = json!(diff.added);
                record["removed"] = json!(diff.removed);
                record["changed"] = json!(diff.changed);
                record["unchanged"] = diff.unchanged.into();
                list = new;
            }
        }
        let values = list.iter().map(entry_value).collect::<Vec<_>>();
        let map = rename::resolve(&renames);
        let mut programme = rename::with_entries(&self.text, values, &self.file, &map)
            .map_err(|e| refusal_of(&e))?;
        blocks::overlay(&mut programme, &self.set);
        let moves = guard::check(&self.programme, &programme, bowled, who)?;
        if !moves.is_empty() {
            record["confirmed_by_chief"] = true.into();
            record["moves"] = json!(moves);
        }
        Ok((programme, record, renames))
    }

    /// Writes `entries.toml` whole, then records the change; if the record
    /// cannot be written, the old file is put back.
    fn save(
        &self,
        programme: &Programme,
        record: &Value,
        renames: &[rename::Rename],
    ) -> Result<(), Refusal> {
        let text = file_text(programme, renames).map_err(|e| Refusal::new(500, e))?;
        crate::centre::kept::save(&self.file, text.as_bytes(), &self.log, record).map_err(disk)
    }
}

/// The text of `entries.toml` for `programme`.
fn file_text(programme: &Programme, renames: &[rename::Rename]) -> Result<String, String> {
    entries_text(
        &programme.title,
        &programme.entries,
        renames,
        "# The competition's entries, written by `lanecall centre` at each change\n\
         # from its page (docs/programme.md). The programme file's [[entry]]\n\
         # tables are not read while this file is here.",
    )
}

/// `entries` as the programme file's `[[entry]]` tables, under `head`.
fn entries_text(
    title: &str,
    entries: &[Entry],
    renames: &[rename::Rename],
    head: &str,
) -> Result<String, String> {
    let mut t = toml::Table::new();
    t.insert("programme_title".into(), title.into());
    let list = entries.iter().map(entry_value).collect();
    t.insert("entry".into(), toml::Value::Array(list));
    if !renames.is_empty() {
        let done = toml::Value::try_from(renames).map_err(|e| e.to_string())?;
        t.insert("rename".into(), done);
    }
    let body = toml::to_string(&t).map_err(|e| e.to_string())?;
    Ok(format!("{head}\n\n{body}"))
}

/// A change not written to the disk: refused, nothing of it kept.
fn disk(e: std::io::Error) -> Refusal {
    Refusal::new(500, format!("not saved: {e}"))
}

/// The last [`SHOWN_CHANGES`] records, from at most the file's last
/// 256 KiB.
fn read_tail(path: &Path) -> VecDeque<Value> {
    let mut out = VecDeque::new();
    let Ok(mut f) = std::fs::File::open(path) else {
        return out;
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let from = len.saturating_sub(256 * 1024);
    let mut bytes = Vec::new();
    if f.seek(SeekFrom::Start(from)).is_err() || f.read_to_end(&mut bytes).is_err() {
        return out;
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut lines = text.lines();
    if from > 0 {
        lines.next();
    }
    for line in lines {
        if let Ok(v) = serde_json::from_str::<Value>(line) {
            if out.len() >= SHOWN_CHANGES {
                out.pop_front();
            }
            out.push_back(v);
        }
    }
    out
}

/// The programme's problems as a change's: `entry[3].handicap` is the
/// third entry's `handicap`.
fn refusal_of(e: &ProgrammeError) -> Refusal {
    let problems = match e {
        ProgrammeError::Invalid { problems, .. } => problems
            .iter()
            .map(|p| {
                let placed = p.key.strip_prefix("entry[").and_then(|rest| {
                    let (n, field) = rest.split_once("].")?;
                    Some((n.parse::<usize>().ok()?, field.to_owned()))
                });
                match placed {
                    Some((n, field)) => Issue {
                        entry: Some(n),
                        field: Some(field),
                        message: p.message.clone(),
                        ..Issue::default()
                    },
                    None => Issue::message(p.to_string()),
                }
            })
            .collect(),
        other => vec![Issue::message(other.to_string())],
    };
    Refusal {
        status: 400,
        problems,
    }
}

#[cfg(test)]
mod tests;

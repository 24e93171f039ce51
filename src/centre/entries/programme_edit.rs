//! The programme's events, blocks and finals made and edited on the
//! centre's page (docs/programme.md, "The programme on the centre's
//! page").
//!
//! Kept like the entries: at the first change from the page the centre
//! writes `programme.toml` in its `state_dir`, a programme file (the same
//! keys, its `[[entry]]` tables left out: the entries are the centre's,
//! `entries.rs`), and from then on reads its events, blocks and finals
//! from there, the rest (title, dates, place, judges) from the programme
//! file. Each change is made on the stored TOML tables (a key it does not
//! know stays as it was), checked by the programme's own checks with the
//! entries the centre keeps, written whole (atomically, synced) and
//! recorded with who made it in `programme-changes.jsonl`.

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{Entries, Issue, MAX_ENTRIES, Refusal, blocks, disk, entry_value, read_tail};
use crate::centre::programme::{Programme, ProgrammeError, ROUND_ROBIN_SIZE};
use crate::wall_clock::{rfc3339, unix_now};

/// The programme made on the page, in the `state_dir`.
pub const FILE: &str = "programme.toml";
/// The record of every change, one JSON object a line.
pub const CHANGES: &str = "programme-changes.jsonl";
/// The keys the stored programme holds in place of the file's.
const PARTS: [&str; 3] = ["event", "block", "finals"];

/// What a change is about: `event`, `block` or `finals`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Event,
    Block,
    Finals,
}

impl Part {
    pub fn parse(s: &str) -> Option<Part> {
        match s {
            "event" => Some(Part::Event),
            "block" => Some(Part::Block),
            "finals" => Some(Part::Finals),
            _ => None,
        }
    }
    fn key(self) -> &'static str {
        match self {
            Part::Event => "event",
            Part::Block => "block",
            Part::Finals => "finals",
        }
    }
    /// The field that names one: an event's or a block's `id`, the finals'
    /// `category`.
    fn id_key(self) -> &'static str {
        match self {
            Part::Finals => "category",
            _ => "id",
        }
    }
    /// How many the page keeps at most: each change checks and writes the
    /// whole programme. Finals are at most one a category.
    fn most(self) -> usize {
        match self {
            Part::Event => MAX_EVENTS,
            Part::Block => MAX_BLOCKS,
            Part::Finals => 9,
        }
    }
    /// Its name in a refusal, more than one.
    fn many(self) -> &'static str {
        match self {
            Part::Event => "events",
            Part::Block => "blocks",
            Part::Finals => "finals",
        }
    }
}

/// Events a programme made on the page has at most.
pub const MAX_EVENTS: usize = 64;
/// Blocks a programme made on the page has at most.
pub const MAX_BLOCKS: usize = 512;

fn syntax(path: &Path, message: impl Into<String>) -> ProgrammeError {
    ProgrammeError::Syntax {
        path: path.to_owned(),
        message: message.into(),
    }
}

fn table_of(text: &str, path: &Path) -> Result<toml::Table, ProgrammeError> {
    text.parse::<toml::Table>()
        .map_err(|e| syntax(path, e.to_string()))
}

/// The programme file's text, with the events, blocks and finals of the
/// stored programme when the `state_dir` has one (`Some` its path).
fn compose(
    file_text: &str,
    file: &Path,
    state_dir: &Path,
) -> Result<(String, Option<std::path::PathBuf>), ProgrammeError> {
    let stored = state_dir.join(FILE);
    let own = match std::fs::read_to_string(&stored) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok((file_text.to_owned(), None));
        }
        Err(source) => {
            return Err(ProgrammeError::Read {
                path: stored,
                source,
            });
        }
    };
    let mut table = match table_of(file_text, file) {
        Ok(t) => t,
        // The file's own checks name the line and column.
        Err(e) => return Err(Programme::parse(file_text, file).err().unwrap_or(e)),
    };
    let own_table = table_of(&own, &stored)?;
    let (title, own_title) = (table.get("title"), own_table.get("title"));
    if own_title != title {
        let shown =
            |v: Option<&toml::Value>| v.and_then(toml::Value::as_str).unwrap_or("").to_owned();
        return Err(syntax(
            &stored,
            format!(
                "written for the programme {:?}, not {:?}: move it away to take the \
                 programme file's events, blocks and finals, or write the title there if it \
                 was only retitled",
                shown(own_title),
                shown(title)
            ),
        ));
    }
    for key in PARTS {
        match own_table.get(key) {
            Some(v) => table.insert(key.into(), v.clone()),
            None => table.remove(key),
        };
    }
    let text = toml::to_string(&table).map_err(|e| syntax(&stored, e.to_string()))?;
    Ok((text, Some(stored)))
}

/// The programme text the centre reads (the file's, with the stored
/// programme's parts) and the programme with the centre's entries (those
/// of `entries.toml` when it is there, else the file's), checked as one:
/// never the file's own entry list against the centre's programme.
pub(super) fn read(path: &Path, state_dir: &Path) -> Result<(String, Programme), ProgrammeError> {
    let file_text = std::fs::read_to_string(path).map_err(|source| ProgrammeError::Read {
        path: path.to_owned(),
        source,
    })?;
    let (text, stored) = compose(&file_text, path, state_dir)?;
    let entries_file = state_dir.join(super::FILE);
    let own = match std::fs::read_to_string(&entries_file) {
        Ok(own) => own,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return match &stored {
                None => Ok((text.clone(), Programme::parse(&text, path)?)),
                Some(stored) => {
                    let entries = table_of(&file_text, path)?
                        .get("entry")
                        .and_then(toml::Value::as_array)
                        .cloned()
                        .unwrap_or_default();
                    let p = Programme::with_entries(&text, entries, stored)?;
                    tracing::info!(file = %stored.display(), "the programme is the centre's own");
                    Ok((text, p))
                }
            };
        }
        Err(source) => {
            return Err(ProgrammeError::Read {
                path: entries_file,
                source,
            });
        }
    };
    let f: super::File =
        toml::from_str(&own).map_err(|e| crate::config::serde_error(&entries_file, &own, &e))?;
    let title = table_of(&text, path)?
        .get("title")
        .and_then(toml::Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if f.programme_title != title {
        return Err(syntax(
            &entries_file,
            format!(
                "written for the programme {:?}, not {title:?}: move it away to take the \
                 programme file's entries, or write the title there if it was only retitled",
                f.programme_title
            ),
        ));
    }
    if f.entry.len() > MAX_ENTRIES {
        let n = f.entry.len();
        return Err(syntax(
            &entries_file,
            format!("{n} entries: at most {MAX_ENTRIES}"),
        ));
    }
    let renamed = super::rename::resolve(&f.rename);
    let p = super::rename::with_entries(&text, f.entry, &entries_file, &renamed)?;
    tracing::info!(file = %entries_file.display(), "the entries are the centre's own");
    Ok((text, p))
}

/// One change asked on the page: `op` (`add`, `edit` or `delete`) on
/// `part`, with the part's fields (`{"op":"add","id":"S1",…}`).
pub struct Change<'a> {
    pub part: Part,
    pub request: &'a Value,
}

/// A problem with a field of the request.
fn field(name: &str, message: impl Into<String>) -> Issue {
    Issue {
        field: Some(name.to_owned()),
        message: message.into(),
        ..Issue::default()
    }
}

fn refused(status: u16, problems: Vec<Issue>) -> Refusal {
    Refusal { status, problems }
}

/// The request's fields as the programme's TOML keys: each known field
/// that is there, converted; a wrong kind of value is a problem by its
/// field.
fn fields(part: Part, req: &Map<String, Value>, bad: &mut Vec<Issue>) -> toml::Table {
    let mut t = toml::Table::new();
    let text = |k: &str, t: &mut toml::Table, bad: &mut Vec<Issue>| match req.get(k) {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => {
            t.insert(k.into(), s.trim().to_owned().into());
        }
        Some(_) => bad.push(field(k, "write it as text")),
    };
    let number = |k: &str, t: &mut toml::Table, bad: &mut Vec<Issue>| match req.get(k) {
        None | Some(Value::Null) => {}
        Some(v) => match v
            .as_i64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
        {
            Some(n) => {
                t.insert(k.into(), n.into());
            }
            None => bad.push(field(k, format!("{v} is not a whole number"))),
        },
    };
    let names = |k: &str, v: &Value, bad: &mut Vec<Issue>| -> Option<toml::Value> {
        let list = v.as_array().and_then(|a| {
            a.iter()
                .map(|x| x.as_str().map(|s| toml::Value::from(s.trim())))
                .collect::<Option<Vec<_>>>()
        });
        if list.is_none() {
            bad.push(field(k, "a list of names"));
        }
        list.map(toml::Value::Array)
    };
    match part {
        Part::Event => {
            text("id", &mut t, bad);
            text("kind", &mut t, bad);
            match req.get("teams") {
                None | Some(Value::Null) => {}
                Some(Value::Object(teams)) => {
                    let mut out = toml::Table::new();
                    for (name, members) in teams {
                        if let Some(list) = names(&format!("teams.{name}"), members, bad) {
                            out.insert(name.trim().to_owned(), list);
                        }
                    }
                    t.insert("teams".into(), out.into());
                }
                Some(_) => bad.push(field("teams", "each team's name and its members")),
            }
        }
        Part::Block => {
            text("id", &mut t, bad);
            text("event", &mut t, bad);
            number("games", &mut t, bad);
            number("day", &mut t, bad);
        }
        Part::Finals => {
            text("category", &mut t, bad);
            number("size", &mut t, bad);
            text("round_robin", &mut t, bad);
            if let Some(v) = req.get("step_ladder").filter(|v| !v.is_null())
                && let Some(list) = names("step_ladder", v, bad)
            {
                t.insert("step_ladder".into(), list);
            }
        }
    }
    t
}

impl Entries {
    /// `GET /api/programme/edit`: the events, blocks and finals as the page
    /// edits them, each block with why it cannot change (`locked`, from
    /// `locked`), the categories the entries make, and the changes made,
    /// newest first.
    pub fn programme_json(&self, locked: &BTreeMap<String, String>) -> Value {
        let p = &self.programme;
        let blocks: Vec<Value> = p
            .blocks
            .iter()
            .map(|b| {
                let lanes: BTreeMap<String, &Vec<String>> =
                    b.lanes.iter().map(|(n, l)| (n.to_string(), l)).collect();
                json!({
                    "id": b.id, "event": b.event, "games": b.games, "day": b.day,
                    "lanes": lanes, "locked": locked.get(&b.id),
                })
            })
            .collect();
        let changes: VecDeque<Value> = read_tail(&self.state_dir.join(CHANGES));
        json!({
            "own": self.state_dir.join(FILE).exists(),
            "title": p.title,
            "events": p.events,
            "blocks": blocks,
            "finals": p.finals,
            "categories": p.categories().iter().map(|c| c.id.clone()).collect::<Vec<_>>(),
            "entries": p.entries.iter().map(|e| json!({"name": e.name, "class": e.class, "withdrawn": e.withdrawn})).collect::<Vec<_>>(),
            "changes": changes.iter().rev().collect::<Vec<_>>(),
        })
    }

    /// Checks `change` and makes it: written to `programme.toml`, recorded
    /// as made by `by`, or refused with nothing changed. `locked`: the
    /// blocks that may not change what is bowled in them (games bowled,
    /// or pushed to the lanes), with why.
    pub fn change_programme(
        &mut self,
        change: Change,
        locked: &BTreeMap<String, String>,
        by: &str,
    ) -> Result<(), Refusal> {
        let (programme, text, record) = self.plan_programme(change, locked, by)?;
        self.save_programme(&text, &record)?;
        self.text = text;
        self.programme = Arc::new(programme);
        self.revision += 1;
        Ok(())
    }

    /// The programme `change` makes, its text and its record; or why not.
    fn plan_programme(
        &self,
        change: Change,
        locked: &BTreeMap<String, String>,
        by: &str,
    ) -> Result<(Programme, String, Value), Refusal> {
        let part = change.part;
        let Some(req) = change.request.as_object() else {
            let m = "a change is {\"op\":\"add|edit|delete\", …the fields}";
            return Err(Refusal::new(400, m));
        };
        let op = req.get("op").and_then(Value::as_str).unwrap_or("");
        if !matches!(op, "add" | "edit" | "delete") {
            let m = format!("op {op:?}: add, edit or delete");
            return Err(refused(400, vec![field("op", m)]));
        }
        let mut bad = Vec::new();
        let new = fields(part, req, &mut bad);
        let id = new
            .get(part.id_key())
            .and_then(toml::Value::as_str)
            .unwrap_or("")
            .to_owned();
        if id.is_empty() {
            bad.push(field(part.id_key(), "it is empty"));
        }
        if !bad.is_empty() {
            return Err(refused(400, bad));
        }
        let mut table =
            table_of(&self.text, &self.file).map_err(|e| Refusal::new(500, e.to_string()))?;
        let mut list: Vec<toml::Value> = table
            .get(part.key())
            .and_then(toml::Value::as_array)
            .cloned()
            .unwrap_or_default();
        let id_key = part.id_key();
        let at = list
            .iter()
            .position(|v| v.get(id_key).and_then(toml::Value::as_str) == Some(&id));
        let what = match part {
            Part::Event => format!("event {id:?}"),
            Part::Block => format!("block {id:?}"),
            Part::Finals => format!("the finals of {id:?}"),
        };
        // The locked blocks the change would touch.
        let p = &self.programme;
        let touched: Vec<&String> = match part {
            Part::Event => p
                .blocks
                .iter()
                .filter(|b| b.event == id)
                .map(|b| &b.id)
                .collect(),
            Part::Block => p.block(&id).map(|b| &b.id).into_iter().collect(),
            Part::Finals => p
                .finals
                .iter()
                .filter(|f| f.category == id)
                .flat_map(|f| std::iter::once(&f.round_robin).chain(&f.step_ladder))
                .collect(),
        };
        let lock = touched.iter().find_map(|b| locked.get(*b));
        match (op, at) {
            ("add", Some(_)) => {
                let m = format!("there is already {what}: edit it");
                return Err(refused(409, vec![field(id_key, m)]));
            }
            ("add", None) if list.len() >= part.most() => {
                let m = format!(
                    "the programme has {} {}: no more fit",
                    part.most(),
                    part.many()
                );
                return Err(Refusal::new(400, m));
            }
            ("add", None) => list.push(toml::Value::Table(new.clone())),
            (_, None) => return Err(Refusal::new(404, format!("there is no {what}"))),
            ("delete", Some(i)) => {
                if let Some(why) = lock {
                    let m = format!("{why}: {what} cannot be deleted");
                    return Err(Refusal::new(409, m));
                }
                list.remove(i);
            }
            (_, Some(i)) => {
                let Some(old) = list[i].as_table_mut() else {
                    return Err(Refusal::new(500, format!("{what} is not a table")));
                };
                // What is bowled stays: a block's event and games, an
                // event's kind and teams, the finals' blocks.
                let bowled_keys: &[&str] = match part {
                    Part::Block => &["event", "games"],
                    Part::Event => &["kind", "teams"],
                    Part::Finals => &["size", "round_robin", "step_ladder"],
                };
                if let Some(why) = lock {
                    // A finals' size not written is the default.
                    let size = toml::Value::from(ROUND_ROBIN_SIZE as i64);
                    let was = |k: &str| old.get(k).or((k == "size").then_some(&size));
                    let moved: Vec<&str> = bowled_keys
                        .iter()
                        .copied()
                        .filter(|k| new.contains_key(*k) && new.get(*k) != was(k))
                        .collect();
                    if !moved.is_empty() {
                        let m = format!("{why}: its {} cannot change", moved.join(" and "));
                        return Err(Refusal::new(409, m));
                    }
                }
                if part == Part::Event && !new.contains_key("teams") {
                    old.remove("teams");
                }
                for (k, v) in new.clone() {
                    if k == "teams" && v.as_table().is_some_and(toml::Table::is_empty) {
                        old.remove("teams");
                    } else {
                        old.insert(k, v);
                    }
                }
            }
        }
        table.insert(part.key().into(), toml::Value::Array(list.clone()));
        let text = toml::to_string(&table).map_err(|e| Refusal::new(500, e.to_string()))?;
        let entries = p.entries.iter().map(entry_value).collect();
        let stored = self.state_dir.join(FILE);
        let mut programme = super::rename::with_entries(&text, entries, &stored, &p.renamed)
            .map_err(|e| {
                let problems = match e {
                    ProgrammeError::Invalid { problems, .. } => problems
                        .into_iter()
                        .map(|p| field(&p.key, p.message))
                        .collect(),
                    other => vec![Issue::message(other.to_string())],
                };
                refused(400, problems)
            })?;
        blocks::overlay(&mut programme, &self.set);
        let value = serde_json::to_value(&new).unwrap_or(Value::Null);
        let mut record = json!({
            "at": rfc3339(unix_now()), "by": by, "change": part.key(), "op": op,
        });
        record[id_key] = id.into();
        if op != "delete" {
            record[part.key()] = value;
        }
        Ok((programme, text, record))
    }

    /// Writes `programme.toml` whole (the programme's text without its
    /// entries), then records the change; if the record cannot be
    /// written, the old file is put back.
    fn save_programme(&self, text: &str, record: &Value) -> Result<(), Refusal> {
        let path = self.state_dir.join(FILE);
        let mut table = table_of(text, &path).map_err(|e| Refusal::new(500, e.to_string()))?;
        table.remove("entry");
        let body = toml::to_string(&table).map_err(|e| Refusal::new(500, e.to_string()))?;
        let out = format!(
            "# The competition's programme, written by `lanecall centre` at each change\n\
             # from its page (docs/programme.md). Its events, blocks and finals are\n\
             # read in place of the programme file's; the entries are the centre's.\n\n{body}"
        );
        crate::centre::kept::save(&path, out.as_bytes(), &self.state_dir.join(CHANGES), record)
            .map_err(disk)
    }
}

#[cfg(test)]
#[path = "programme_edit_tests.rs"]
mod tests;

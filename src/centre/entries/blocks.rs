//! Blocks' lanes set from the centre's page (docs/programme.md, "Lanes
//! set on the centre's page"): a block's lanes and their bowlers chosen
//! by form, or a finals block's lanes confirmed from the proposal; and the
//! winner of a roll-off that broke a tied step-ladder match. Kept
//! like the entries: `blocks.toml` in the `state_dir`, written whole
//! (atomically, synced), each change recorded with who made it in
//! `blocks-changes.jsonl`; a block named there takes its lanes from there,
//! not from the programme file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Entries, Refusal, disk};
use crate::centre::programme::{Programme, ProgrammeError};
use crate::wall_clock::{rfc3339, unix_now};

/// The blocks' lanes set on the page, in the `state_dir`.
pub const FILE: &str = "blocks.toml";
/// The record of every change, one JSON object a line.
pub const CHANGES: &str = "blocks-changes.jsonl";
/// Bowlers on one lane at most.
pub const MAX_A_LANE: usize = 4;

pub use crate::centre::standings::Lanes;

/// What the page set over the programme file.
#[derive(Clone, Default)]
pub struct Set {
    /// Blocks' lanes, by block id.
    pub lanes: BTreeMap<String, Lanes>,
    /// Roll-offs' winners, by the step-ladder block whose tie they broke.
    pub roll_off_won: BTreeMap<String, String>,
}

/// `blocks.toml` as written and read.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct File {
    programme_title: String,
    #[serde(default)]
    block: Vec<FileBlock>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    roll_off_won: BTreeMap<String, String>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct FileBlock {
    id: String,
    lanes: BTreeMap<String, Vec<String>>,
}

/// What `dir`'s `blocks.toml` sets; nothing when there is no file. A
/// block the programme no longer has is left out (logged).
pub(super) fn load(dir: &Path, programme: &Programme) -> Result<Set, ProgrammeError> {
    let path = dir.join(FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Set::default()),
        Err(source) => return Err(ProgrammeError::Read { path, source }),
    };
    let f: File =
        toml::from_str(&text).map_err(|e| crate::config::serde_error(&path, &text, &e))?;
    if f.programme_title != programme.title {
        return Err(ProgrammeError::Syntax {
            path,
            message: format!(
                "written for the programme {:?}, not {:?}: move it away to take the \
                 programme file's lanes",
                f.programme_title, programme.title
            ),
        });
    }
    let known = |id: &str| {
        let known = programme.block(id).is_some();
        if !known {
            tracing::warn!(
                block = id,
                "{FILE}: the programme has no such block: left out"
            );
        }
        known
    };
    let mut out = Set::default();
    for b in f.block {
        if known(&b.id) {
            let lanes = b
                .lanes
                .into_iter()
                .filter_map(|(k, v)| Some((k.parse().ok()?, v)))
                .collect();
            out.lanes.insert(b.id, lanes);
        }
    }
    out.roll_off_won = f
        .roll_off_won
        .into_iter()
        .filter(|(id, _)| known(id))
        .collect();
    Ok(out)
}

/// `programme` with what the page set, each name as shown now (a name
/// corrected since, `rename.rs`, as corrected).
pub(super) fn overlay(programme: &mut Programme, set: &Set) {
    let shown = |n: &String| super::rename::shown(&programme.renamed, n).to_owned();
    let mut lanes_of = BTreeMap::new();
    for (id, lanes) in &set.lanes {
        let named: Lanes = lanes
            .iter()
            .map(|(n, l)| (*n, l.iter().map(shown).collect()))
            .collect();
        lanes_of.insert(id.clone(), named);
    }
    let won: Vec<(String, String)> = set
        .roll_off_won
        .iter()
        .map(|(b, w)| (b.clone(), shown(w)))
        .collect();
    for b in &mut programme.blocks {
        if let Some(lanes) = lanes_of.remove(&b.id) {
            b.lanes = lanes;
        }
    }
    for f in &mut programme.finals {
        f.roll_off_won = won
            .iter()
            .filter(|(block, _)| f.step_ladder.contains(block))
            .cloned()
            .collect();
    }
}

/// Checks the lanes asked for `block`: every lane number known, 1 to
/// [`MAX_A_LANE`] bowlers a lane, each an entry not withdrawn, none twice.
pub fn check(p: &Programme, block: &str, lanes: &Lanes) -> Result<(), Refusal> {
    let bad = |m: String| Err(Refusal::new(400, m));
    let Some(b) = p.block(block) else {
        let m = format!("the programme has no block {block:?}");
        return Err(Refusal::new(404, m));
    };
    if lanes.is_empty() {
        return bad("give the block at least one lane with a bowler".into());
    }
    if lanes.len() > crate::centre::MAX_LANES {
        return bad(format!("at most {} lanes", crate::centre::MAX_LANES));
    }
    let mut seen = BTreeSet::new();
    let mut lane_seen = BTreeSet::new();
    for (lane, names) in lanes {
        if !(1..=crate::centre::MAX_LANE_NUMBER).contains(lane) {
            return bad(format!("{lane} is not a lane number"));
        }
        if !lane_seen.insert(*lane) {
            return bad(format!("lane {lane} is given twice"));
        }
        if names.is_empty() || names.len() > MAX_A_LANE {
            return bad(format!(
                "lane {lane}: 1 to {MAX_A_LANE} bowlers, not {}",
                names.len()
            ));
        }
        for n in names {
            match p.entry(n) {
                None => return bad(format!("lane {lane}: {n:?} is not an entry")),
                Some(e) if e.withdrawn => {
                    return bad(format!(
                        "lane {lane}: {n:?} is withdrawn from the competition"
                    ));
                }
                Some(_) => {}
            }
            if !seen.insert(n.as_str()) {
                return bad(format!("{n:?} is on two lanes of block {block:?}"));
            }
        }
    }
    // A team event's block: its teams whole, as the programme's checks
    // want them.
    if let Some(ev) = p.event(&b.event).filter(|e| !e.teams.is_empty()) {
        for n in &seen {
            if !ev.teams.iter().any(|t| t.members.iter().any(|m| m == n)) {
                return bad(format!("{n:?} is in no team of event {:?}", ev.id));
            }
        }
        for t in &ev.teams {
            let here = t
                .members
                .iter()
                .filter(|m| seen.contains(m.as_str()))
                .count();
            if here > 0 && here < t.members.len() {
                return bad(format!(
                    "team {:?} has {here} of its {} members in this block",
                    t.name,
                    t.members.len()
                ));
            }
        }
    }
    Ok(())
}

impl Entries {
    /// Sets `block`'s lanes as `by` asked: checked ([`check`]), refused
    /// when the block has games bowled (`bowled_blocks`), written to
    /// `blocks.toml` and recorded; nothing changes when any of it fails.
    pub fn set_lanes(
        &mut self,
        block: &str,
        mut lanes: Lanes,
        bowled_blocks: &BTreeSet<String>,
        by: &str,
    ) -> Result<(), Refusal> {
        check(&self.programme, block, &lanes)?;
        if bowled_blocks.contains(block) {
            let m = format!("block {block:?} has games bowled: its lanes stay as they were");
            return Err(Refusal::new(409, m));
        }
        lanes.sort_by_key(|(n, _)| *n);
        let mut set = self.set.clone();
        set.lanes.insert(block.to_owned(), lanes.clone());
        let shown: BTreeMap<String, &Vec<String>> =
            lanes.iter().map(|(n, v)| (n.to_string(), v)).collect();
        self.save_set(
            set,
            json!({ "by": by, "change": "lanes", "block": block, "lanes": shown }),
        )
    }

    /// Records `winner` as the winner of the roll-off that broke the tied
    /// match of step-ladder block `block`; `tied` is that match's two
    /// bowlers when it is complete, tied and undecided.
    pub fn set_roll_off(
        &mut self,
        block: &str,
        winner: &str,
        tied: Option<[&str; 2]>,
        by: &str,
    ) -> Result<(), Refusal> {
        let Some(tied) = tied else {
            let m =
                format!("block {block:?}'s step-ladder match is not a tie waiting for a roll-off");
            return Err(Refusal::new(409, m));
        };
        if !tied.contains(&winner) {
            let m = format!(
                "{winner:?} did not bowl the tied match: {} or {}",
                tied[0], tied[1]
            );
            return Err(Refusal::new(400, m));
        }
        let mut set = self.set.clone();
        set.roll_off_won.insert(block.to_owned(), winner.to_owned());
        self.save_set(
            set,
            json!({ "by": by, "change": "roll_off", "block": block, "winner": winner }),
        )
    }

    /// Writes `set` to `blocks.toml`, then `record` (stamped now) to its
    /// changes; on success the programme takes it. Nothing changes when
    /// either fails.
    fn save_set(&mut self, set: Set, mut record: serde_json::Value) -> Result<(), Refusal> {
        let dir = self.file.parent().unwrap_or(Path::new("."));
        let file = File {
            programme_title: self.programme.title.clone(),
            block: set
                .lanes
                .iter()
                .map(|(id, l)| FileBlock {
                    id: id.clone(),
                    lanes: l.iter().map(|(n, v)| (n.to_string(), v.clone())).collect(),
                })
                .collect(),
            roll_off_won: set.roll_off_won.clone(),
        };
        let body = toml::to_string(&file).map_err(|e| Refusal::new(500, e.to_string()))?;
        let text = format!(
            "# The blocks' lanes and the roll-offs' winners set on the centre's page,\n\
             # written by `lanecall centre` at each change (docs/programme.md). A block\n\
             # named here takes its lanes from here, not from the programme file.\n\n{body}"
        );
        record["at"] = rfc3339(unix_now()).into();
        crate::centre::kept::save(
            &dir.join(FILE),
            text.as_bytes(),
            &dir.join(CHANGES),
            &record,
        )
        .map_err(disk)?;
        let mut programme = (*self.programme).clone();
        overlay(&mut programme, &set);
        self.programme = Arc::new(programme);
        self.set = set;
        self.revision += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A folder with the example programme and an empty state folder.
    fn programme_dir(name: &str) -> (PathBuf, PathBuf) {
        let dir = std::env::temp_dir().join(format!("lanecall-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("state")).unwrap();
        let path = dir.join("programme.toml");
        std::fs::write(&path, include_str!("../../../tests/programme/example.toml")).unwrap();
        (dir, path)
    }

    fn lanes(list: &[(u32, &[&str])]) -> Lanes {
        list.iter()
            .map(|(n, v)| (*n, v.iter().map(|s| (*s).to_owned()).collect()))
            .collect()
    }

    #[test]
    fn a_finals_block_gets_its_lanes_and_keeps_them_after_a_restart() {
        let (dir, path) = programme_dir("blocks-restart");
        let state = dir.join("state");
        let mut e = Entries::load(&path, &state).unwrap();
        assert!(e.programme().lineups("RR-B1").is_err());
        let set = lanes(&[
            (2, &["Anna Kuznetsova", "Dmitri Orlov"]),
            (1, &["Olga Smirnova", "Ivan Petrov"]),
        ]);
        e.set_lanes("RR-B1", set, &BTreeSet::new(), "Irina Orlova")
            .unwrap();
        let l = e.programme().lineups("RR-B1").unwrap();
        assert_eq!(
            l.iter().map(|(n, b)| (*n, b.len())).collect::<Vec<_>>(),
            [(1, 2), (2, 2)]
        );
        let record = std::fs::read_to_string(state.join(CHANGES)).unwrap();
        assert!(record.contains("\"by\":\"Irina Orlova\""), "{record}");
        let again = Entries::load(&path, &state).unwrap();
        assert_eq!(
            again.programme().block("RR-B1").unwrap().lanes[0].1[0],
            "Olga Smirnova"
        );
    }

    #[test]
    fn five_on_a_lane_a_withdrawn_entry_a_name_twice_or_a_bowled_block_are_refused() {
        let (dir, path) = programme_dir("blocks-refused");
        let mut e = Entries::load(&path, &dir.join("state")).unwrap();
        let five = [
            "Anna Kuznetsova",
            "Olga Smirnova",
            "Ivan Petrov",
            "Dmitri Orlov",
            "Sergei Volkov",
        ];
        let r = e.set_lanes("RR-B1", lanes(&[(1, &five)]), &BTreeSet::new(), "x");
        assert_eq!(r.unwrap_err().status, 400);
        let twice = lanes(&[(1, &["Anna Kuznetsova"]), (2, &["Anna Kuznetsova"])]);
        assert!(e.set_lanes("RR-B1", twice, &BTreeSet::new(), "x").is_err());
        let nobody = lanes(&[(1, &["Nobody"])]);
        assert!(e.set_lanes("RR-B1", nobody, &BTreeSet::new(), "x").is_err());
        // Doubles: a team whole, and only the event's teams.
        let half = lanes(&[(5, &["Anna Kuznetsova"])]);
        assert!(e.set_lanes("D1", half, &BTreeSet::new(), "x").is_err());
        let stranger = lanes(&[(5, &["Anna Kuznetsova", "Ivan Petrov", "Sergei Volkov"])]);
        assert!(e.set_lanes("D1", stranger, &BTreeSet::new(), "x").is_err());
        let bowled = BTreeSet::from(["S1".to_owned()]);
        let r = e.set_lanes("S1", lanes(&[(1, &["Anna Kuznetsova"])]), &bowled, "x");
        assert_eq!(r.unwrap_err().status, 409);
        assert!(!dir.join("state").join(FILE).exists(), "nothing written");
        let pair = lanes(&[(5, &["Anna Kuznetsova", "Ivan Petrov"])]);
        e.set_lanes("D1", pair, &BTreeSet::new(), "x").unwrap();
    }

    #[test]
    fn a_roll_offs_winner_is_kept_with_the_lanes_and_only_for_a_tie() {
        let (dir, path) = programme_dir("blocks-roll-off");
        let state = dir.join("state");
        let mut e = Entries::load(&path, &state).unwrap();
        let tied = Some(["Dmitri Orlov", "Anna Kuznetsova"]);
        let r = e.set_roll_off("SL1-B1", "Anna Kuznetsova", None, "x");
        assert_eq!(r.unwrap_err().status, 409, "no tie: nothing to break");
        let r = e.set_roll_off("SL1-B1", "Ivan Petrov", tied, "x");
        assert_eq!(r.unwrap_err().status, 400, "not one of the two");
        assert!(!state.join(FILE).exists(), "nothing written");

        let rr = lanes(&[(1, &["Ivan Petrov", "Olga Smirnova"])]);
        e.set_lanes("RR-B1", rr, &BTreeSet::new(), "x").unwrap();
        e.set_roll_off("SL1-B1", "Anna Kuznetsova", tied, "Irina Orlova")
            .unwrap();
        let won = |e: &Entries| e.programme().finals[0].roll_off_won.clone();
        let want = BTreeMap::from([("SL1-B1".to_owned(), "Anna Kuznetsova".to_owned())]);
        assert_eq!(won(&e), want);
        let record = std::fs::read_to_string(state.join(CHANGES)).unwrap();
        let last: serde_json::Value = serde_json::from_str(record.lines().last().unwrap()).unwrap();
        assert_eq!(
            (&last["change"], &last["winner"], &last["by"]),
            (
                &json!("roll_off"),
                &json!("Anna Kuznetsova"),
                &json!("Irina Orlova")
            )
        );
        // Both kept after a restart.
        let again = Entries::load(&path, &state).unwrap();
        assert_eq!(won(&again), want);
        assert_eq!(again.programme().block("RR-B1").unwrap().lanes.len(), 1);
        // The winner's entry cannot be deleted now.
        assert!(again.used("Anna Kuznetsova", &BTreeSet::new()).is_some());
    }
}

//! Names corrected on the centre's page (docs/programme.md, "A name
//! corrected"): a bowler who has bowled, or whom a block, a team or a
//! roll-off names, keeps the name the lane journalled (the journals are
//! their identity, and the lanes are not told); the centre shows and
//! prints them under the corrected name.
//!
//! Each correction is kept in `entries.toml` (`[[rename]]`, with who made
//! it and when) and resolved into one map from every name a journal may
//! hold to the entry's name now ([`resolve`]): `A` corrected to `B`, then
//! `B` to `C`, maps both `A` and `B` to `C`. The mirrored games are read
//! through it (`results::games`), and so are the programme file's and the
//! page's blocks, teams and roll-offs that name the old name.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::centre::programme::{Programme, ProgrammeError};

/// One correction: `from` is shown as `to` from `at`, made by `by`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Rename {
    pub from: String,
    pub to: String,
    pub by: String,
    pub at: String,
}

/// Every name a journal may hold to the entry's name now, from the
/// corrections in the order made. A name corrected back to itself maps
/// nowhere.
pub fn resolve(done: &[Rename]) -> BTreeMap<String, String> {
    let mut map: BTreeMap<String, String> = BTreeMap::new();
    for r in done {
        for to in map.values_mut() {
            if *to == r.from {
                to.clone_from(&r.to);
            }
        }
        map.insert(r.from.clone(), r.to.clone());
    }
    map.retain(|from, to| from != to);
    map
}

/// `name` as shown now.
pub fn shown<'a>(map: &'a BTreeMap<String, String>, name: &'a str) -> &'a str {
    map.get(name).map_or(name, String::as_str)
}

/// Why `to` cannot be the new name of entry `name`: it is another entry,
/// or the name another entry bowled under.
pub fn refused(
    map: &BTreeMap<String, String>,
    entries: &[crate::centre::programme::Entry],
    name: &str,
    to: &str,
) -> Option<String> {
    if entries.iter().any(|e| e.name == to) {
        return Some(format!(
            "{to:?} is another entry: a name is one bowler's (withdraw or delete that entry first)"
        ));
    }
    match map.get(to) {
        Some(now) if now != name => Some(format!(
            "{to:?} is the name {now:?} bowled under before it was corrected: its games are {now:?}'s"
        )),
        _ => None,
    }
}

/// The names corrected in `state_dir`'s `entries.toml`, in the order
/// made; none when it has none or cannot be read (its reader says why).
pub fn kept(state_dir: &Path) -> Vec<Rename> {
    #[derive(Deserialize)]
    struct Renames {
        #[serde(default)]
        rename: Vec<Rename>,
    }
    std::fs::read_to_string(state_dir.join(super::FILE))
        .ok()
        .and_then(|t| toml::from_str::<Renames>(&t).ok())
        .map(|r| r.rename)
        .unwrap_or_default()
}

/// [`Programme::with_entries`] with the names `map` corrects as shown
/// now wherever `text` gives them ([`programme_text`]), and the map kept
/// in the programme for the games read from the journals.
pub fn with_entries(
    text: &str,
    entries: Vec<toml::Value>,
    path: &Path,
    map: &BTreeMap<String, String>,
) -> Result<Programme, ProgrammeError> {
    let named = programme_text(text, map).map_err(|message| ProgrammeError::Syntax {
        path: path.to_owned(),
        message,
    })?;
    let mut p = Programme::with_entries(&named, entries, path)?;
    p.renamed.clone_from(map);
    Ok(p)
}

/// The programme file's text with every name it gives a bowler (the
/// blocks' lanes, the teams' members, the finals' roll-offs) as shown
/// now; the text as it is when nothing is renamed.
pub fn programme_text(text: &str, map: &BTreeMap<String, String>) -> Result<String, String> {
    if map.is_empty() {
        return Ok(text.to_owned());
    }
    let mut table: toml::Table = text.parse().map_err(|e: toml::de::Error| e.to_string())?;
    let rename_list = |v: &mut toml::Value| {
        if let Some(list) = v.as_array_mut() {
            for n in list {
                if let Some(to) = n.as_str().and_then(|s| map.get(s)) {
                    *n = toml::Value::String(to.clone());
                }
            }
        }
    };
    for (key, inner) in [("block", "lanes"), ("event", "teams")] {
        if let Some(list) = table.get_mut(key).and_then(toml::Value::as_array_mut) {
            for t in list.iter_mut().filter_map(toml::Value::as_table_mut) {
                if let Some(named) = t.get_mut(inner).and_then(toml::Value::as_table_mut) {
                    named.iter_mut().for_each(|(_, v)| rename_list(v));
                }
            }
        }
    }
    if let Some(list) = table.get_mut("finals").and_then(toml::Value::as_array_mut) {
        for t in list.iter_mut().filter_map(toml::Value::as_table_mut) {
            if let Some(v) = t.get_mut("roll_off") {
                rename_list(v);
            }
        }
    }
    toml::to_string(&table).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(from: &str, to: &str) -> Rename {
        Rename {
            from: from.into(),
            to: to.into(),
            by: "Irina Orlova".into(),
            at: "2026-05-02T10:00:00Z".into(),
        }
    }

    #[test]
    fn corrections_chain_and_a_name_put_back_maps_nowhere() {
        let map = resolve(&[
            r("Ivan Petorv", "Ivan Petrvo"),
            r("Ivan Petrvo", "Ivan Petrov"),
        ]);
        assert_eq!(shown(&map, "Ivan Petorv"), "Ivan Petrov");
        assert_eq!(shown(&map, "Ivan Petrvo"), "Ivan Petrov");
        assert_eq!(shown(&map, "Anna Kuznetsova"), "Anna Kuznetsova");
        let back = resolve(&[r("A", "B"), r("B", "A")]);
        assert_eq!(back.len(), 1, "{back:?}");
        assert_eq!(shown(&back, "A"), "A");
        assert_eq!(shown(&back, "B"), "A");
    }

    #[test]
    fn a_new_name_that_is_another_entry_or_another_bowlers_old_name_is_refused() {
        let entry = |n: &str| crate::centre::programme::Entry {
            name: n.into(),
            class: crate::lane::Class::B1,
            sex: crate::centre::programme::Sex::M,
            region: "Tula".into(),
            team: None,
            handicap: 0,
            withdrawn: false,
        };
        let entries = [entry("Ivan Petrov"), entry("Oleg Sidorov")];
        let map = resolve(&[r("Oleg Sidorv", "Oleg Sidorov")]);
        let m = refused(&map, &entries, "Ivan Petrov", "Oleg Sidorov").unwrap();
        assert!(m.contains("is another entry"), "{m}");
        let m = refused(&map, &entries, "Ivan Petrov", "Oleg Sidorv").unwrap();
        assert!(m.contains("bowled under"), "{m}");
        assert_eq!(refused(&map, &entries, "Oleg Sidorov", "Oleg Sidorv"), None);
        assert_eq!(refused(&map, &entries, "Ivan Petrov", "Ivan Petrow"), None);
    }

    #[test]
    fn the_programme_files_blocks_teams_and_roll_offs_name_the_bowler_as_shown() {
        let text = r#"
title = "T"
[[block]]
id = "Ivan Petorv"
lanes = { 1 = ["Ivan Petorv", "Anna K"] }
[[event]]
id = "D"
teams = { "Ivan Petorv" = ["Ivan Petorv", "Anna K"] }
[[finals]]
category = "B1"
roll_off = ["Ivan Petorv"]
"#;
        let map = resolve(&[r("Ivan Petorv", "Ivan Petrov")]);
        let out: toml::Table = programme_text(text, &map).unwrap().parse().unwrap();
        let b = &out["block"][0];
        assert_eq!(b["id"].as_str(), Some("Ivan Petorv"), "an id is not a name");
        assert_eq!(b["lanes"]["1"][0].as_str(), Some("Ivan Petrov"));
        assert_eq!(b["lanes"]["1"][1].as_str(), Some("Anna K"));
        let t = &out["event"][0]["teams"];
        assert_eq!(t["Ivan Petorv"][0].as_str(), Some("Ivan Petrov"));
        assert_eq!(
            out["finals"][0]["roll_off"][0].as_str(),
            Some("Ivan Petrov")
        );
        assert_eq!(programme_text(text, &BTreeMap::new()).unwrap(), text);
    }
}

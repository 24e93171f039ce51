//! Tests of the programme made and edited on the page.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde_json::json;

use super::*;
use crate::centre::entries::Change as EntryChange;
use crate::centre::entries::entry_from;

/// A programme with its title and nothing else, in a fresh folder with an
/// empty state folder.
fn bare(name: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("lanecall-prog-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("state")).unwrap();
    let path = dir.join("programme.toml");
    std::fs::write(
        &path,
        "title = \"Cup\"\ndates = \"1 May\"\nplace = \"Tula\"\njudges = [\"chief judge: Irina Orlova\"]\n",
    )
    .unwrap();
    (path, dir.join("state"))
}

fn add_entries(e: &mut Entries, list: &[(&str, &str, &str)]) {
    for (name, class, sex) in list {
        let entry = entry_from(|k| match k {
            "name" => Some((*name).to_owned()),
            "class" => Some((*class).to_owned()),
            "sex" => Some((*sex).to_owned()),
            "region" => Some("Tula".to_owned()),
            _ => None,
        })
        .unwrap();
        e.apply(EntryChange::Add(entry), &BTreeSet::new(), "x")
            .unwrap();
    }
}

fn change(e: &mut Entries, part: Part, v: serde_json::Value) -> Result<(), Refusal> {
    let locked = BTreeMap::new();
    e.change_programme(Change { part, request: &v }, &locked, "Irina Orlova")
}

const FOUR: [(&str, &str, &str); 4] = [
    ("Anna", "B1", "F"),
    ("Olga", "B1", "F"),
    ("Ivan", "B1", "M"),
    ("Dmitri", "B1", "M"),
];

#[test]
fn a_programme_made_on_the_page_is_checked_against_the_kept_entries_and_kept() {
    let (path, state) = bare("made");
    let mut e = Entries::load(&path, &state).unwrap();
    add_entries(&mut e, &FOUR);
    // The file has no entry: a team of the centre's entries is taken.
    change(
        &mut e,
        Part::Event,
        json!({"op": "add", "id": "doubles", "kind": "doubles",
               "teams": {"Tula": ["Anna", "Ivan"], "Kazan": ["Olga", "Dmitri"]}}),
    )
    .unwrap();
    change(
        &mut e,
        Part::Event,
        json!({"op": "add", "id": "singles", "kind": "singles"}),
    )
    .unwrap();
    for (id, games) in [("S1", 6), ("RR-B1", 3), ("SL1-B1", 1), ("SL2-B1", 1)] {
        let b = json!({"op": "add", "id": id, "event": "singles", "games": games, "day": 1});
        change(&mut e, Part::Block, b).unwrap();
    }
    change(
        &mut e,
        Part::Finals,
        json!({"op": "add", "category": "B1", "round_robin": "RR-B1",
               "step_ladder": ["SL1-B1", "SL2-B1"]}),
    )
    .unwrap();
    // Every problem at once, nothing changed.
    let r = change(
        &mut e,
        Part::Block,
        json!({"op": "add", "id": "S2", "event": "trios", "games": 13, "day": 1}),
    )
    .unwrap_err();
    assert_eq!(r.status, 400);
    assert_eq!(r.problems.len(), 2, "{}", r.text());
    assert!(
        r.text().contains("there is no event \"trios\""),
        "{}",
        r.text()
    );
    assert!(r.text().contains("13 games"), "{}", r.text());
    let r = change(
        &mut e,
        Part::Event,
        json!({"op": "add", "id": "trios", "kind": "trios", "teams": {"T": ["Anna", "Nobody", "Ivan"]}}),
    )
    .unwrap_err();
    assert!(
        r.text().contains("\"Nobody\" is not an entry"),
        "{}",
        r.text()
    );
    assert_eq!(e.programme().blocks.len(), 4);

    let record = std::fs::read_to_string(state.join(CHANGES)).unwrap();
    assert_eq!(record.lines().count(), 7, "{record}");
    assert!(record.contains("\"by\":\"Irina Orlova\""));
    // A restart reads it back with the kept entries.
    let again = Entries::load(&path, &state).unwrap();
    let p = again.programme();
    assert_eq!(p.events.len(), 2);
    assert_eq!(p.finals[0].step_ladder, ["SL1-B1", "SL2-B1"]);
    assert_eq!(p.block("S1").unwrap().games, 6);
    let view = again.programme_json(&BTreeMap::new());
    assert_eq!(view["own"], json!(true));
    assert_eq!(view["changes"][0]["change"], json!("finals"));
    // The stored file is a programme file: title and all, no entries.
    let stored = std::fs::read_to_string(state.join(FILE)).unwrap();
    assert!(stored.contains("title = \"Cup\"") && !stored.contains("[[entry]]"));
    // The entries stay editable against the page's programme.
    let mut again = again;
    add_entries(&mut again, &[("Pavel", "B2", "M")]);
}

#[test]
fn a_bowled_or_pushed_block_keeps_its_event_and_games_and_is_not_deleted() {
    let (path, state) = bare("locked");
    let mut e = Entries::load(&path, &state).unwrap();
    add_entries(&mut e, &FOUR);
    change(
        &mut e,
        Part::Event,
        json!({"op": "add", "id": "singles", "kind": "singles"}),
    )
    .unwrap();
    for id in ["S1", "S2"] {
        let b = json!({"op": "add", "id": id, "event": "singles", "games": 3, "day": 1});
        change(&mut e, Part::Block, b).unwrap();
    }
    let locked = BTreeMap::from([("S1".to_owned(), "block \"S1\" has games bowled".to_owned())]);
    let try_it = |e: &mut Entries, part, v: serde_json::Value| {
        e.change_programme(Change { part, request: &v }, &locked, "x")
    };
    let r = try_it(&mut e, Part::Block, json!({"op": "delete", "id": "S1"})).unwrap_err();
    assert_eq!(r.status, 409);
    assert!(r.text().contains("has games bowled"), "{}", r.text());
    let r = try_it(
        &mut e,
        Part::Block,
        json!({"op": "edit", "id": "S1", "games": 4}),
    )
    .unwrap_err();
    assert_eq!(r.status, 409);
    assert!(r.text().contains("games cannot change"), "{}", r.text());
    let r = try_it(
        &mut e,
        Part::Event,
        json!({"op": "delete", "id": "singles"}),
    )
    .unwrap_err();
    assert_eq!(r.status, 409);
    // Its day may change, and the other block anything.
    try_it(
        &mut e,
        Part::Block,
        json!({"op": "edit", "id": "S1", "games": 3, "day": 2}),
    )
    .unwrap();
    try_it(&mut e, Part::Block, json!({"op": "delete", "id": "S2"})).unwrap();
    let p = e.programme();
    assert_eq!(p.block("S1").unwrap().day, 2);
    assert!(p.block("S2").is_none());
    let r = try_it(&mut e, Part::Block, json!({"op": "delete", "id": "S2"})).unwrap_err();
    assert_eq!(r.status, 404);
}

#[test]
fn the_files_programme_gives_way_to_the_stored_one_and_unknown_keys_stay() {
    let dir = std::env::temp_dir().join(format!("lanecall-prog-example-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("state")).unwrap();
    let path = dir.join("programme.toml");
    std::fs::write(&path, include_str!("../../../tests/programme/example.toml")).unwrap();
    let state = dir.join("state");
    let mut e = Entries::load(&path, &state).unwrap();
    change(
        &mut e,
        Part::Block,
        json!({"op": "edit", "id": "S2", "day": 3}),
    )
    .unwrap();
    let p = e.programme();
    let s2 = p.block("S2").unwrap();
    assert_eq!((s2.day, s2.games, s2.lanes.len()), (3, 6, 3), "lanes kept");
    // Another title in the programme file: the stored one is refused.
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("Moscow Open,", "Tula Open,")).unwrap();
    let err = Entries::load(&path, &state).err().unwrap().to_string();
    assert!(err.contains("written for the programme"), "{err}");
}

#[test]
fn a_files_teams_and_finals_are_checked_against_the_centres_entries_not_its_own() {
    let (path, state) = bare("file-finals");
    let mut e = Entries::load(&path, &state).unwrap();
    add_entries(&mut e, &FOUR);
    // The file gains doubles of the centre's entries and the B1 finals
    // while it has no entry of its own: the centre's four entries are
    // the teams' members and make B1 and its round robin's three games.
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(
        "[[event]]\nid = \"singles\"\nkind = \"singles\"\n\
         [[event]]\nid = \"doubles\"\nkind = \"doubles\"\n\
         teams = { Tula = [\"Anna\", \"Ivan\"], Kazan = [\"Olga\", \"Dmitri\"] }\n\
         [[block]]\nid = \"RR\"\nevent = \"singles\"\ngames = 3\nday = 1\n\
         [[block]]\nid = \"SL1\"\nevent = \"singles\"\ngames = 1\nday = 1\n\
         [[block]]\nid = \"SL2\"\nevent = \"singles\"\ngames = 1\nday = 1\n\
         [[finals]]\ncategory = \"B1\"\nround_robin = \"RR\"\nstep_ladder = [\"SL1\", \"SL2\"]\n",
    );
    std::fs::write(&path, text).unwrap();
    let again = Entries::load(&path, &state).unwrap();
    let p = again.programme();
    assert_eq!(p.finals[0].category, "B1");
    assert_eq!(p.event("doubles").unwrap().teams.len(), 2);
    assert_eq!(p.entries.len(), 4);
}

#[test]
fn the_finals_size_is_set_on_the_page_and_kept_once_their_round_robin_is_bowled() {
    let (path, state) = bare("size");
    let mut e = Entries::load(&path, &state).unwrap();
    add_entries(&mut e, &FOUR);
    change(
        &mut e,
        Part::Event,
        json!({"op": "add", "id": "singles", "kind": "singles"}),
    )
    .unwrap();
    for (id, games) in [("RR", 3), ("SL1", 1), ("SL2", 1)] {
        let b = json!({"op": "add", "id": id, "event": "singles", "games": games, "day": 2});
        change(&mut e, Part::Block, b).unwrap();
    }
    // Finals of a category with no bowler yet wait for it.
    let finals = |size: i64| json!({"op": "add", "category": "B2", "size": size, "round_robin": "RR", "step_ladder": ["SL1", "SL2"]});
    change(&mut e, Part::Finals, finals(8)).unwrap();
    change(
        &mut e,
        Part::Finals,
        json!({"op": "delete", "category": "B2"}),
    )
    .unwrap();
    let mut b1 = finals(3);
    b1["category"] = "B1".into();
    change(&mut e, Part::Finals, b1).unwrap();
    let p = e.programme();
    assert_eq!(p.finals[0].size, 3);
    assert_eq!(p.block("RR").unwrap().games, 3, "three finalists: 3 rounds");
    let locked = BTreeMap::from([("RR".to_owned(), "block \"RR\" has games bowled".to_owned())]);
    let edit = |e: &mut Entries, size: i64| {
        let v = json!({"op": "edit", "category": "B1", "size": size, "round_robin": "RR", "step_ladder": ["SL1", "SL2"]});
        e.change_programme(
            Change {
                part: Part::Finals,
                request: &v,
            },
            &locked,
            "x",
        )
    };
    let r = edit(&mut e, 4).unwrap_err();
    assert_eq!(r.status, 409);
    assert!(r.text().contains("its size cannot change"), "{}", r.text());
    edit(&mut e, 3).unwrap();
}

#[test]
fn the_page_keeps_a_bounded_number_of_events() {
    let (path, state) = bare("bound");
    let mut e = Entries::load(&path, &state).unwrap();
    for k in 0..MAX_EVENTS {
        let v = json!({"op": "add", "id": format!("E{k}"), "kind": "singles"});
        change(&mut e, Part::Event, v).unwrap();
    }
    let v = json!({"op": "add", "id": "one more", "kind": "singles"});
    let r = change(&mut e, Part::Event, v).unwrap_err();
    assert_eq!(r.status, 400);
    assert_eq!(r.text(), "the programme has 64 events: no more fit");
    assert_eq!(e.programme().events.len(), MAX_EVENTS);
    assert_eq!(
        crate::centre::say::russian(&r.text()).as_deref(),
        Some("видов в программе уже 64: больше нельзя")
    );
}

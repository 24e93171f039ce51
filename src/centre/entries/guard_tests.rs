//! The guard on bowled results and the names corrected, on the example
//! programme's entries.

use std::path::PathBuf;

use super::super::{Change, Entries, Refusal};
use super::*;
use crate::lane::Class;

const EXAMPLE: &str = include_str!("../../../tests/programme/example.toml");

fn folder(name: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("lanecall-guard-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("state")).unwrap();
    let programme = dir.join("programme.toml");
    std::fs::write(&programme, EXAMPLE).unwrap();
    (programme, dir.join("state"))
}

/// One complete game of `score` for each `(name, block)`.
fn bowled(games: &[(&str, &str, u32)]) -> Bowled {
    Bowled::of(
        games
            .iter()
            .map(|&(name, block, score)| BowledGame {
                lane: 1,
                journal: format!("{block}.jsonl"),
                block: Some(block.to_owned()),
                name: name.to_owned(),
                class: None,
                game: 1,
                score,
                frames: 10,
                complete: true,
            })
            .collect(),
    )
}

/// The four B1 bowlers' first game of S1.
fn qualifying() -> Bowled {
    bowled(&[
        ("Anna Kuznetsova", "S1", 190),
        ("Olga Smirnova", "S1", 150),
        ("Ivan Petrov", "S1", 170),
        ("Dmitri Orlov", "S1", 120),
    ])
}

fn who(chief: bool, confirm: bool) -> Who {
    Who {
        name: "Irina Orlova".into(),
        chief,
        confirm,
    }
}

fn to_b2(e: &Entries, name: &str) -> Change {
    let mut entry = e.programme().entry(name).unwrap().clone();
    entry.class = Class::B2;
    Change::Edit {
        name: name.into(),
        entry,
    }
}

fn class_of(e: &Entries, name: &str) -> Class {
    e.programme().entry(name).unwrap().class
}

fn texts(r: &Refusal) -> String {
    r.text()
}

#[test]
fn a_bowled_bowlers_class_changes_only_by_the_chief_judge_once_confirmed() {
    let (programme, state) = folder("chief");
    let mut e = Entries::load(&programme, &state).unwrap();
    let games = qualifying();
    let r = e
        .apply_as(to_b2(&e, "Ivan Petrov"), &games, &who(false, true))
        .unwrap_err();
    assert_eq!(r.status, 409);
    assert!(texts(&r).contains("only the chief judge"), "{}", texts(&r));
    assert!(!confirming(&r));
    assert_eq!(class_of(&e, "Ivan Petrov"), Class::B1);

    let r = e
        .apply_as(to_b2(&e, "Ivan Petrov"), &games, &who(true, false))
        .unwrap_err();
    assert_eq!(r.status, 409);
    assert!(confirming(&r), "{}", texts(&r));
    let said = texts(&r);
    for moved in [
        "Ivan Petrov: class B1 → B2",
        "Ivan Petrov leaves category B1 and joins B2",
        "Ivan Petrov is seed 2 of the finals of B1",
        "the finals of B1: seeds Anna Kuznetsova, Ivan Petrov, Olga Smirnova, Dmitri Orlov become Anna Kuznetsova, Olga Smirnova, Dmitri Orlov",
    ] {
        assert!(said.contains(moved), "{moved:?} not in {said}");
    }
    assert_eq!(class_of(&e, "Ivan Petrov"), Class::B1, "nothing made");

    e.apply_as(to_b2(&e, "Ivan Petrov"), &games, &who(true, true))
        .unwrap();
    assert_eq!(class_of(&e, "Ivan Petrov"), Class::B2);
    let last = &e.json()["changes"][0];
    assert_eq!(last["confirmed_by_chief"], true);
    assert!(last["moves"][0].as_str().unwrap().contains("B1 → B2"));

    // A bowler with no game: anyone, at once.
    e.apply_as(
        to_b2(&e, "Anna Kuznetsova"),
        &Bowled::default(),
        &who(false, false),
    )
    .unwrap();
}

#[test]
fn never_once_the_finals_have_started_even_for_the_chief() {
    let (programme, state) = folder("finals");
    let mut e = Entries::load(&programme, &state).unwrap();
    let mut games = qualifying().games;
    games.extend(bowled(&[("Anna Kuznetsova", "RR-B1", 200)]).games);
    let games = Bowled::of(games);
    for name in ["Ivan Petrov", "Anna Kuznetsova"] {
        let r = e
            .apply_as(to_b2(&e, name), &games, &who(true, true))
            .unwrap_err();
        assert_eq!(r.status, 409);
        let m = texts(&r);
        assert!(
            m.contains(&format!(
                "{name:?}: the finals of B1 have started (block \"RR-B1\" has games)"
            )),
            "{m}"
        );
        assert_eq!(class_of(&e, name), Class::B1);
    }
    // B2's handicap is no finalist's: the chief still may.
    let mut s = e.programme().entry("Sergei Volkov").unwrap().clone();
    s.handicap = 5;
    let edit = Change::Edit {
        name: s.name.clone(),
        entry: s,
    };
    let with_b2 = Bowled::of(
        games
            .games
            .iter()
            .cloned()
            .chain(bowled(&[("Sergei Volkov", "S1", 160)]).games)
            .collect(),
    );
    e.apply_as(edit, &with_b2, &who(true, true)).unwrap();
}

#[test]
fn an_import_that_moves_a_bowled_bowler_names_them_and_waits_for_the_chief() {
    let (programme, state) = folder("import");
    let mut e = Entries::load(&programme, &state).unwrap();
    let mut list = e.programme().entries.clone();
    list[2].handicap = 10; // Ivan Petrov
    list[3].sex = crate::centre::programme::Sex::F; // Dmitri Orlov
    let games = qualifying();
    let r = e
        .preview(Change::Import(list.clone()), &games, &who(false, false))
        .unwrap_err();
    let m = texts(&r);
    assert!(
        m.contains("\"Ivan Petrov\" has bowled") && m.contains("\"Dmitri Orlov\" has bowled"),
        "{m}"
    );
    // The chief's preview says what it moves, beside what it adds.
    let seen = e
        .preview(Change::Import(list.clone()), &games, &who(true, false))
        .unwrap();
    assert_eq!(
        seen["changed"],
        serde_json::json!(["Ivan Petrov", "Dmitri Orlov"])
    );
    assert!(
        seen["moves"]
            .to_string()
            .contains("Dmitri Orlov: sex M → F"),
        "{seen}"
    );
    let r = e
        .apply_as(Change::AddImport(list.clone()), &games, &who(true, false))
        .unwrap_err();
    assert!(confirming(&r));
    assert!(
        texts(&r).contains("Ivan Petrov: handicap 0 → 10"),
        "{}",
        texts(&r)
    );
    e.apply_as(Change::Import(list), &games, &who(true, true))
        .unwrap();
    assert_eq!(e.programme().entry("Ivan Petrov").unwrap().handicap, 10);
    // Undone: the same guard.
    let r = e
        .apply_as(Change::UndoImport, &games, &who(false, false))
        .unwrap_err();
    assert!(texts(&r).contains("only the chief judge"), "{}", texts(&r));
    e.apply_as(Change::UndoImport, &games, &who(true, true))
        .unwrap();
    assert_eq!(e.programme().entry("Ivan Petrov").unwrap().handicap, 0);
}

fn rename(e: &Entries, from: &str, to: &str) -> Change {
    let mut entry = e.programme().entry(from).unwrap().clone();
    entry.name = to.into();
    Change::Edit {
        name: from.into(),
        entry,
    }
}

#[test]
fn a_bowled_name_is_corrected_and_followed_everywhere_the_programme_names_it() {
    let (programme, state) = folder("rename");
    let mut e = Entries::load(&programme, &state).unwrap();
    let games = qualifying();
    e.apply_as(
        rename(&e, "Ivan Petrov", "Ivan Petrow"),
        &games,
        &who(false, false),
    )
    .unwrap();
    // Corrected again: both names the journals may hold map to the last.
    let games = Bowled::of(
        games
            .games
            .iter()
            .map(|g| BowledGame {
                name: crate::centre::entries::rename::shown(&e.programme().renamed, &g.name)
                    .to_owned(),
                ..g.clone()
            })
            .collect(),
    );
    e.apply_as(
        rename(&e, "Ivan Petrow", "Ivan Petrov-Sidorov"),
        &games,
        &who(false, false),
    )
    .unwrap();
    let check = |e: &Entries| {
        let p = e.programme();
        assert_eq!(p.renamed.get("Ivan Petrov").unwrap(), "Ivan Petrov-Sidorov");
        assert_eq!(p.renamed.get("Ivan Petrow").unwrap(), "Ivan Petrov-Sidorov");
        assert!(p.entry("Ivan Petrov-Sidorov").is_some() && p.entry("Ivan Petrov").is_none());
        assert_eq!(p.block("S1").unwrap().lanes[1].1[0], "Ivan Petrov-Sidorov");
        let doubles = p.event("doubles").unwrap();
        assert!(
            doubles
                .teams
                .iter()
                .any(|t| t.members.contains(&"Ivan Petrov-Sidorov".to_owned()))
        );
    };
    check(&e);
    let json = e.json();
    assert_eq!(json["renamed"][0]["from"], "Ivan Petrov");
    assert_eq!(json["renamed"][0]["by"], "Irina Orlova");
    assert!(json["renamed"][1]["at"].as_str().is_some());
    check(&Entries::load(&programme, &state).unwrap());

    // Another entry's name, or a name someone bowled under: refused.
    let r = e
        .apply_as(
            rename(&e, "Dmitri Orlov", "Anna Kuznetsova"),
            &games,
            &who(true, true),
        )
        .unwrap_err();
    assert!(
        texts(&r).contains("\"Anna Kuznetsova\" is another entry"),
        "{}",
        texts(&r)
    );
    let r = e
        .apply_as(
            rename(&e, "Dmitri Orlov", "Ivan Petrov"),
            &games,
            &who(true, true),
        )
        .unwrap_err();
    assert!(texts(&r).contains("bowled under"), "{}", texts(&r));
    let mut old = e.programme().entry("Dmitri Orlov").unwrap().clone();
    old.name = "Ivan Petrow".into();
    let r = e
        .apply_as(Change::Add(old), &games, &who(true, true))
        .unwrap_err();
    assert!(texts(&r).contains("bowled under"), "{}", texts(&r));
}

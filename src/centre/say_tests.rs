//! The catalogue's own checks: every template's Russian uses only its
//! English's parts, and messages made of messages are said whole.

use super::*;

#[test]
fn every_russian_uses_only_its_englishs_parts() {
    for (en, ru) in SAY {
        let parts = |s: &str| -> Vec<usize> {
            (0..s.len())
                .filter_map(|i| s.get(i..).and_then(placeholder).map(|(n, _)| n))
                .collect()
        };
        let (e, r) = (parts(en), parts(ru));
        for n in &r {
            assert!(
                e.contains(n),
                "{en:?}: the Russian names {{{n}}}, the English does not"
            );
        }
        for n in &e {
            assert!(r.contains(n), "{en:?}: the Russian leaves out {{{n}}}");
        }
        assert!(
            SAY.iter().filter(|(other, _)| other == en).count() == 1,
            "{en:?} is in the catalogue twice"
        );
    }
}

#[test]
fn a_message_made_of_messages_is_said_whole() {
    assert_eq!(
        russian("\"Anna Kuznetsova\" has bowled: the name cannot change").as_deref(),
        Some("«Anna Kuznetsova» уже выступал(а): имя изменить нельзя")
    );
    assert_eq!(
        russian("lanes.7: \"Ivan Petrov\" is withdrawn from the competition").as_deref(),
        Some("дорожка 7: «Ivan Petrov» снят(а) с соревнований")
    );
    assert_eq!(
        russian("dry_run=\"x\": write dry_run=1 or dry_run=0").as_deref(),
        Some("dry_run=\"x\": пишите dry_run=1 или dry_run=0")
    );
    assert_eq!(russian("something nobody said"), None);
    // A message not in the catalogue is not taken as a part of one.
    assert_eq!(russian("block \"S1\" was bowled by lane 3 already"), None);
    assert_eq!(russian("there is no lane 9 in this block"), None);
    assert_eq!(
        russian("not JSON: expected value at line 1 column 1").as_deref(),
        Some("не JSON: expected value at line 1 column 1")
    );
    assert_eq!(russian("wrong PIN\nsomething nobody said"), None);
}

#[test]
fn problems_are_said_with_their_place() {
    let mut v = serde_json::json!({
        "error": "entry 7, class: \"B4\" is not a class: B1, B2 or B3",
        "problems": [{ "entry": 7, "field": "class", "message": "\"B4\" is not a class: B1, B2 or B3" }],
    });
    add_russian(&mut v);
    assert_eq!(
        v["problems"][0]["message_ru"],
        "«B4» — не класс: B1, B2 или B3"
    );
    assert_eq!(
        v["error_ru"],
        "участник 7, класс: «B4» — не класс: B1, B2 или B3"
    );
    assert_eq!(
        v["error"],
        "entry 7, class: \"B4\" is not a class: B1, B2 or B3"
    );
}

#[test]
fn only_a_russian_first_language_is_russian() {
    let h = |v: &str| {
        let mut m = HeaderMap::new();
        m.insert(header::ACCEPT_LANGUAGE, v.parse().unwrap());
        wants_russian(&m)
    };
    assert!(h("ru"));
    assert!(h("ru-RU,ru;q=0.9,en;q=0.8"));
    assert!(!h("en-GB,ru;q=0.5"));
    assert!(!h("rus"));
    assert!(!wants_russian(&HeaderMap::new()));
}

/// What a lane answers to a push or a hold, and a held push's refusals,
/// as the centre relays them (`/api/pushes`, `/api/pushes/cancel`).
#[test]
fn the_lanes_answers_and_a_cancels_refusals_are_said() {
    use crate::centre::commands::CancelRefused;
    use crate::lane::Refusal;
    let names = lanecall_core::names::NameProblem::Empty { what: "name" };
    let said = [
        Refusal::LineupSize(9).to_string(),
        Refusal::EmptyName.to_string(),
        Refusal::DuplicateName("Anna".into()).to_string(),
        Refusal::BadName {
            name: "x".into(),
            problem: names,
        }
        .to_string(),
        Refusal::BlockOpen(2).to_string(),
        Refusal::NoBlockOpen.to_string(),
        Refusal::LineupGames(40).to_string(),
        // The lineup's block id, refused as the lane checks it.
        Refusal::BadBlockId {
            id: lanecall_core::names::shown("RR\u{202e}B1"),
            problem: lanecall_core::names::check_name("RR\u{202e}B1").unwrap_err(),
        }
        .to_string(),
        Refusal::BadBlockId {
            id: String::new(),
            problem: lanecall_core::names::check_name("").unwrap_err(),
        }
        .to_string(),
        Refusal::BadBlockId {
            id: "x".repeat(64),
            problem: lanecall_core::names::check_name(&"x".repeat(200)).unwrap_err(),
        }
        .to_string(),
        Refusal::AlreadyHeld.to_string(),
        Refusal::NotHeld.to_string(),
        Refusal::NotTheBlocksGames {
            block: Some("RR-B1".into()),
            planned: 5,
            given: 3,
        }
        .to_string(),
        Refusal::NotTheBlocksGames {
            block: None,
            planned: 1,
            given: 3,
        }
        .to_string(),
        CancelRefused::NoPush(9).to_string(),
        CancelRefused::NoLane(9, 3).to_string(),
        CancelRefused::NotHeld(9, Some(3)).to_string(),
        CancelRefused::NotHeld(9, None).to_string(),
    ];
    for en in said {
        let ru = russian(&en).unwrap_or_else(|| panic!("not in the catalogue: {en:?}"));
        assert!(
            !(1..=9).any(|n| ru.contains(&format!("{{{n}}}"))),
            "{en:?} → {ru:?}"
        );
    }
}

/// The messages of the programme's edits, a bowled bowler's guard and
/// name, the finals' sizing, the lanes on the page and a block's life, as
/// the centre writes them (src/centre/entries/programme_edit.rs, guard.rs,
/// api/*.rs, programme/check.rs, status.rs, void.rs): each said whole.
#[test]
fn the_programme_the_guard_the_lanes_and_a_blocks_life_are_said() {
    let said = [
        "a change is {\"op\":\"add|edit|delete\", …the fields}",
        "op \"move\": add, edit or delete",
        "write it as text",
        "\"x\" is not a whole number",
        "a list of names",
        "each team's name and its members",
        "it is empty",
        "there is already event \"singles\": edit it",
        "there is already block \"S1\": edit it",
        "there is already the finals of \"B1\": edit it",
        "there is no event \"x\"",
        "there is no block \"S9\"",
        "there is no the finals of \"B3\"",
        "block \"S1\" has games bowled: block \"S1\" cannot be deleted",
        "block \"S1\" was pushed to the lanes: event \"singles\" cannot be deleted",
        "block \"S1\" has games bowled: the finals of \"B1\" cannot be deleted",
        "block \"S1\" has games bowled: its games cannot change",
        "block \"S1\" has games bowled: its event and games cannot change",
        "block \"S1\" was pushed to the lanes: its event cannot change",
        "block \"D1\" has games bowled: its kind cannot change",
        "block \"D1\" has games bowled: its teams cannot change",
        "block \"D1\" has games bowled: its kind and teams cannot change",
        "block \"RR-B1\" has games bowled: its round_robin cannot change",
        "block \"RR-B1\" has games bowled: its step_ladder cannot change",
        "block \"RR-B1\" has games bowled: its round_robin and step_ladder cannot change",
        "\"teams\": change an event, a block or the finals",
        "block \"S1\" is not a table",
        "\"Anna\" has bowled: only the chief judge changes the class, sex or handicap of a bowler who has bowled",
        "\"Anna\": the finals of B1 have started (block \"RR-B1\" has games): the class, sex and handicap stay as they are",
        "this changes the results of a bowler who has bowled; repeat it with \"confirm\": true to make it:\nAnna: class B1 → B2, sex F → M, handicap 0 → 8\nAnna leaves category B1 and joins B2",
        "Anna: class B1 → B2",
        "Anna: sex M → F",
        "Anna: handicap 0 → 8",
        "Anna: class B2 → B3, handicap 8 → 0",
        "Anna leaves category B2 and joins none",
        "Anna leaves category none and joins B2-F",
        "Anna: place 1 in B2 → place 2 in B3",
        "Anna: place 1 in B2 → unranked in B3",
        "Anna: unranked in B2 → in no category",
        "Anna is seed 2 of the finals of B1",
        "the categories B1, B2 become B1, B2-M, B2-F",
        "the finals of B1: seeds Anna, Olga, Ivan become Olga, Ivan, Dmitri",
        "\"Iwan\" is the name \"Ivan\" bowled under before it was corrected: its games are \"Ivan\"'s",
        "\"Ivan\" is the name \"Iwan\" bowled under before it was corrected: enter it as \"Iwan\"",
        "\"mood\" is not a parameter: mode, dry_run, undo or confirm",
        "there is no category \"B4\": a category is B1, B2 or B3, with -M or -F when its men and women are apart",
        "there is no category \"B1\": class B1 has 13 bowlers, more than 12, so its men and women are two categories, B1-M and B1-F; these finals need their category changed, or the class 12 bowlers or fewer",
        "finals[1].category: there is no category \"B4\": a category is B1, B2 or B3, with -M or -F when its men and women are apart",
        "a round robin of the top 9: it takes the top 3 to 8 (the step-ladder needs 3)",
        "no bowler in the category yet",
        "no bowler in the category",
        "name the lane: {\"lane\": 13}",
        "0 is not a lane number (1 to 999)",
        "lane 9 is already a lane of the competition",
        "the competition has 256 lanes: no more fit",
        "lane 9 is not a lane of the competition",
        "lane 9 has bowlers in block(s) S2: move them to another lane first",
        "lane 9 has bowlers in block(s) S1, S2: move them to another lane first",
        "lane 9 has connected: its card and its journals stay",
        "not saved: Permission denied (os error 13)",
        "block S1 has begun: lane 1 finished it (end_block), lane 2 bowled all 6 game(s), lane 3 is bowling game 2 of 6; the lanes would bowl it again and those games would not count. To push it again, send \"again\": true and a \"reason\"",
        "block S1 has begun: lane 3 is bowling game 1 of 6; the lanes would bowl it again and those games would not count. To push it again, send \"again\": true and a \"reason\"",
        "reason: say why the block is pushed again (up to 200 characters)",
        "the preliminaries of finals block RR-B1 are not complete: Anna Kuznetsova has bowled 1 of 6 game(s); block S2 has no lanes yet. The chief judge may confirm it early with \"early\": true and a \"reason\"",
        "the preliminaries of finals block RR-B1 are not complete: block S2 has no lanes yet. The chief judge may confirm it early with \"early\": true and a \"reason\"",
        "only the chief judge (logged in with the shared PIN) may confirm finals before the preliminaries are complete",
        "reason: say why the finals are confirmed before the preliminaries are complete (up to 200 characters)",
        "cannot record in /var/lib/lanecall/finals-early.jsonl: Permission denied (os error 13)",
        "draw: {\"seed\": 0 to 4294967295}",
        "only the chief judge (logged in with the shared PIN) may void a game",
        "void a game: {\"block\":\"S1\",\"lane\":1,\"name\":\"…\",\"game\":2,\"reason\":\"…\"}",
        "reason: say why the game does not count (up to 200 characters)",
        "lane 3 has no journal of block S1",
        "lane 3 has no game 2 of \"Anna\" in lane3-20261128T100000Z-000001.jsonl",
        "that game is voided already (by Irina Orlova)",
        "10000 games are voided already: no more are kept",
        "cannot keep the voided game: No space left on device (os error 28)",
    ];
    let mut unsaid = Vec::new();
    for en in said {
        match russian(en) {
            Some(ru) if !(1..=9).any(|n| ru.contains(&format!("{{{n}}}"))) => {}
            other => unsaid.push(format!("{en:?} → {other:?}")),
        }
    }
    assert!(unsaid.is_empty(), "not said:\n{}", unsaid.join("\n"));
    // Lists of messages are said item by item; M/F as the page says them.
    assert_eq!(
        russian("block S1 has begun: lane 1 finished it (end_block), lane 3 is bowling game 2 of 6; the lanes would bowl it again and those games would not count. To push it again, send \"again\": true and a \"reason\"").as_deref(),
        Some("блок S1 уже начат: дорожка 1 его закончила (end_block), дорожка 3 играет игру 2 из 6; дорожки сыграли бы его снова, и эти игры не были бы засчитаны. Чтобы отправить его снова, пришлите \"again\": true и \"reason\" (причину)")
    );
    assert_eq!(
        russian("Anna: class B1 → B2, sex F → M").as_deref(),
        Some("Anna: класс B1 → B2, пол Ж → М")
    );
    // A list with one item the catalogue does not have stays English.
    assert_eq!(
        russian(
            "block S1 has begun: lane 1 finished it (end_block), lane 3 went home; the lanes would bowl it again and those games would not count. To push it again, send \"again\": true and a \"reason\""
        ),
        None
    );
}

/// A 409 asking the chief judge to confirm: its `confirm` lines in
/// Russian too (`confirm_ru`), the English kept.
#[test]
fn the_lines_to_confirm_are_said() {
    let mut v = serde_json::json!({
        "error": "this changes the results of a bowler who has bowled; repeat it with \"confirm\": true to make it:\nSergei Volkov: class B2 → B3\nSergei Volkov leaves category B2 and joins B3",
        "confirm": ["Sergei Volkov: class B2 → B3", "Sergei Volkov leaves category B2 and joins B3"],
        "problems": [],
    });
    add_russian(&mut v);
    assert_eq!(
        v["confirm_ru"],
        serde_json::json!([
            "Sergei Volkov: класс B2 → B3",
            "Sergei Volkov переходит из категории B2 в категорию B3"
        ])
    );
    assert_eq!(v["confirm"][0], "Sergei Volkov: class B2 → B3");
    assert!(
        v["error_ru"]
            .as_str()
            .unwrap()
            .starts_with("это меняет результаты"),
        "{v}"
    );
    // An import's dry run: what it would move.
    let mut v = serde_json::json!({ "added": [], "moves": ["Yulia Frolova: handicap 0 → 5", "something nobody said"] });
    add_russian(&mut v);
    assert_eq!(
        v["moves_ru"],
        serde_json::json!(["Yulia Frolova: гандикап 0 → 5", "something nobody said"])
    );
}

/// The list of every bowler's missing games for 70 bowlers.
fn missing_games(n: usize) -> String {
    let names: Vec<String> = (0..n)
        .map(|k| format!("\"Bowler Number{k} Longname\" has bowled 1 of 3 game(s)"))
        .collect();
    format!(
        "the preliminaries of finals block RR-B1 are not complete: {}. The chief judge may \
         confirm it early with \"early\": true and a \"reason\"",
        names.join("; ")
    )
}

#[test]
fn the_work_to_say_an_answer_is_bounded_and_a_long_real_list_fits_in_it() {
    // The longest list said: 70 bowlers, 3.9 KB, in Russian whole.
    let said = russian(&missing_games(70)).expect("the list said");
    assert!(said.starts_with("предварительные игры финального блока RR-B1 не закончены: «Bowler Number0 Longname»: сыграно игр 1 из 3; "), "{said}");
    // Lanes' answers made to cost (parts that could end at every other
    // character): one answer's messages share one budget, and those past
    // it stay English.
    let costly = "\"x\": \"y\"[1].z: ".repeat(256);
    let mut answer = serde_json::json!({ "lanes": (0..64).map(|n| serde_json::json!({
        "lane": n, "error": costly.clone() })).collect::<Vec<_>>() });
    add_russian(&mut answer);
    let said = answer["lanes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l.get("error_ru").is_some())
        .count();
    assert!(said < 64, "all 64 said: the work was not bounded");
    assert_eq!(
        LEFT.with(|l| l.get()),
        0,
        "the answer's budget spent, no more"
    );
}

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

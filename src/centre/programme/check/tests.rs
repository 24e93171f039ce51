//! The finals sized from the entries: the round robin's games follow the
//! category's bowlers, a category with no bowler yet waits, and a class
//! grown past the combined size is refused with the finals it breaks.

use std::path::Path;

use super::super::{Programme, ProgrammeError};

const EXAMPLE: &str = include_str!("../../../../tests/programme/example.toml");

/// The example with `extra` B1 bowlers (`sex` each) added.
fn with_b1(extra: usize, sex: &str) -> String {
    let mut text = EXAMPLE.to_owned();
    for i in 0..extra {
        text.push_str(&format!(
            "\n[[entry]]\nname = \"Late {i}\"\nclass = \"B1\"\nsex = \"{sex}\"\nregion = \"Tver\"\n"
        ));
    }
    text
}

fn parse(text: &str) -> Result<Programme, ProgrammeError> {
    Programme::parse(text, Path::new("programme.toml"))
}

fn problems(text: &str) -> Vec<String> {
    match parse(text) {
        Err(ProgrammeError::Invalid { problems, .. }) => problems
            .iter()
            .map(|p| format!("{}: {}", p.key, p.message))
            .collect(),
        other => panic!("not refused: {other:?}"),
    }
}

fn games(p: &Programme, block: &str) -> u32 {
    p.block(block).unwrap().games
}

#[test]
fn the_round_robins_games_follow_the_categorys_bowlers_whatever_the_file_wrote() {
    // The file says RR-B1 has 3 games: right for its 4 bowlers.
    let p = parse(EXAMPLE).unwrap();
    assert_eq!(games(&p, "RR-B1"), 3);
    assert_eq!(p.finals[0].size, 8);
    // A fifth bowler: 5 rounds, no longer "it needs 5".
    let p = parse(&with_b1(1, "M")).unwrap();
    assert_eq!(games(&p, "RR-B1"), 5);
    // Eight and more: the top 8, 7 rounds.
    assert_eq!(games(&parse(&with_b1(4, "F")).unwrap(), "RR-B1"), 7);
    assert_eq!(games(&parse(&with_b1(8, "F")).unwrap(), "RR-B1"), 7);
    // The step-ladder's blocks are one game each.
    let text = EXAMPLE.replace(
        "id = \"SL1-B1\"\nevent = \"singles\"\ngames = 1",
        "id = \"SL1-B1\"\nevent = \"singles\"\ngames = 3",
    );
    assert_ne!(text, EXAMPLE);
    assert_eq!(games(&parse(&text).unwrap(), "SL1-B1"), 1);
    // A block not in the finals keeps its games.
    assert_eq!(games(&p, "S1"), 6);
}

#[test]
fn a_withdrawn_bowler_is_not_in_the_round_robin() {
    let text = with_b1(2, "M").replacen(
        "name = \"Late 1\"\nclass = \"B1\"\nsex = \"M\"\nregion = \"Tver\"\n",
        "name = \"Late 1\"\nclass = \"B1\"\nsex = \"M\"\nregion = \"Tver\"\nwithdrawn = true\n",
        1,
    );
    // 6 bowlers, one withdrawn: 5 in the round robin, 5 rounds.
    assert_eq!(games(&parse(&text).unwrap(), "RR-B1"), 5);
}

#[test]
fn the_finals_may_take_the_top_3_to_8() {
    let sized = |n: &str| {
        with_b1(6, "M").replace(
            "round_robin = \"RR-B1\"",
            &format!("round_robin = \"RR-B1\"\nsize = {n}"),
        )
    };
    let p = parse(&sized("4")).unwrap();
    assert_eq!(p.finals[0].size, 4);
    assert_eq!(games(&p, "RR-B1"), 3);
    assert_eq!(games(&parse(&sized("5")).unwrap(), "RR-B1"), 5);
    for bad in ["2", "9"] {
        let found = problems(&sized(bad));
        assert_eq!(
            found,
            [format!(
                "finals[1].size: a round robin of the top {bad}: it takes the top 3 to 8 \
                 (the step-ladder needs 3)"
            )]
        );
    }
}

#[test]
fn finals_of_a_category_with_no_bowler_yet_wait() {
    // No B3 bowler, and B1's men are in the combined B1 while it has 12
    // or fewer: neither is a problem; the standings have no such finals.
    for category in ["B3", "B1-M"] {
        let text = EXAMPLE.replace("category = \"B1\"", &format!("category = \"{category}\""));
        let p = parse(&text).unwrap();
        assert_eq!(p.finals[0].category, category);
        assert_eq!(games(&p, "RR-B1"), 3, "the games written, with no bowler");
    }
    let text = EXAMPLE.replace("category = \"B1\"", "category = \"B4\"");
    assert_eq!(
        problems(&text),
        [
            "finals[1].category: there is no category \"B4\": a category is B1, B2 or B3, \
          with -M or -F when its men and women are apart"
        ]
    );
}

#[test]
fn a_thirteenth_bowler_in_a_class_with_combined_finals_is_refused_naming_them() {
    // 12 B1 bowlers: one category, its finals stand.
    assert_eq!(games(&parse(&with_b1(8, "M")).unwrap(), "RR-B1"), 7);
    assert_eq!(
        problems(&with_b1(9, "M")),
        [
            "finals[1].category: there is no category \"B1\": class B1 has 13 bowlers, more \
          than 12, so its men and women are two categories, B1-M and B1-F; these finals need \
          their category changed, or the class 12 bowlers or fewer"
        ]
    );
    // Finals written for the men: they stand once the class is apart.
    let men = with_b1(9, "M").replace("category = \"B1\"", "category = \"B1-M\"");
    let p = parse(&men).unwrap();
    assert_eq!(games(&p, "RR-B1"), 7, "the top 8 of 11 men");
}

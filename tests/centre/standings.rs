//! The centre's programme, standings, finals and results protocol
//! (docs/programme.md). Every expected rank and total below is worked out
//! by hand in the comment above it.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use lanecall::centre::programme::{LineupError, Programme, ProgrammeError};
use lanecall::centre::standings::{
    BowledGame, CsvLang, Mark, Standing, Standings, bowled_games, protocol_csv, protocol_text,
    round_robin_schedule, standings, start_list_text,
};
use lanecall::lane::{Action, Class, Effect, Event, Lane, Panel, Rules};
use lanecall::replay::Replay;
use serde_json::{Value, json};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_owned()
}

fn example_text() -> String {
    std::fs::read_to_string(root().join("tests/programme/example.toml")).unwrap()
}

fn example() -> Programme {
    Programme::load(&root().join("tests/programme/example.toml")).unwrap()
}

fn parse(text: &str) -> Result<Programme, ProgrammeError> {
    Programme::parse(text, Path::new("prog.toml"))
}

/// A complete game.
fn game(lane: u32, block: &str, name: &str, game: u32, score: u32) -> BowledGame {
    BowledGame {
        lane,
        journal: format!("lane{lane}-20261128T090000Z-000001.jsonl"),
        block: Some(block.to_owned()),
        name: name.to_owned(),
        class: Some(Class::B1),
        game,
        score,
        frames: 10,
        complete: true,
    }
}

/// The category's lines as (rank, name, total), rank 0 for a line not
/// ranked.
fn ranks(s: &Standings, category: &str) -> Vec<(u32, String, u32)> {
    let c = s.categories.iter().find(|c| c.id == category).unwrap();
    c.entries
        .iter()
        .map(|e| (e.rank.unwrap_or(0), e.name.clone(), e.total))
        .collect()
}

fn line<'a>(s: &'a Standings, name: &str) -> &'a Standing {
    s.categories
        .iter()
        .flat_map(|c| &c.entries)
        .find(|e| e.name == name)
        .unwrap()
}

// ---------------------------------------------------------------------------
// The programme

#[test]
fn the_example_in_the_doc_is_the_fixture_and_parses() {
    let doc = std::fs::read_to_string(root().join("docs/programme.md")).unwrap();
    let start = doc.find("```toml\n").expect("a toml block") + "```toml\n".len();
    let end = start + doc[start..].find("```").unwrap();
    assert_eq!(&doc[start..end], example_text());
    let p = parse(&doc[start..end]).unwrap();
    assert_eq!(p.title, "Moscow Open, ten-pin bowling for the blind");
    assert_eq!(p.judges[0].role, "chief judge");
    assert_eq!(p.judges[0].name, "Irina Orlova");
    assert_eq!(p.entries.len(), 6);
    assert_eq!(p.blocks.len(), 6);
    // B1: 4 bowlers, B2: 2; both 12 or fewer, so both combined.
    let ids: Vec<String> = p.categories().into_iter().map(|c| c.id).collect();
    assert_eq!(ids, ["B1", "B2"]);
    assert_eq!(p.block("S2").unwrap().lanes[0].0, 2);
}

#[test]
fn lineups_give_each_lane_its_bowlers_in_lane_order_and_the_lane_takes_them() {
    let p = example();
    let s2 = p.lineups("S2").unwrap();
    let lanes: Vec<u32> = s2.iter().map(|(n, _)| *n).collect();
    assert_eq!(lanes, [2, 3, 4]);
    let names: Vec<&str> = s2[2].1.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["Sergei Volkov", "Yulia Frolova"]);
    // Sergei: handicap 8. Yulia: a woman in combined B2, 0 + 10.
    assert_eq!(s2[2].1[0].handicap, 8);
    assert_eq!(s2[2].1[1].handicap, 10);
    assert_eq!(s2[2].1[1].class, Class::B2);
    // Anna in singles: 10 (combined B1); in doubles: 0, team "Moscow".
    assert_eq!(s2[0].1[0].handicap, 10);
    let d1 = p.lineups("D1").unwrap();
    assert_eq!(d1[0].0, 5);
    assert_eq!(d1[0].1[0].handicap, 0);
    assert_eq!(d1[0].1[0].team.as_deref(), Some("Moscow"));
    for (lane, bowlers) in s2.into_iter().chain(d1) {
        let mut l = Lane::new(lane, Rules::default());
        let mut out = Vec::new();
        let action = Action::lineup(bowlers);
        l.handle(0, &Event::Panel(Panel::new(None, action)), &mut out);
        assert!(
            !out.iter().any(|e| matches!(e, Effect::Refused(_))),
            "{out:?}"
        );
        assert!(l.pending_lineup().is_some());
    }
    assert_eq!(p.lineups("S9"), Err(LineupError::UnknownBlock("S9".into())));
    assert_eq!(
        p.lineups("RR-B1"),
        Err(LineupError::NoLanes("RR-B1".into()))
    );
}

/// The example with the first `from` replaced by `to` must be refused with
/// a problem at `key` whose message holds `message`, on the line where `to`
/// starts.
fn refused(from: &str, to: &str, key: &str, message: &str) {
    refused_below(from, to, key, message, 0);
}

/// As [`refused`], the problem `below` lines under where `to` starts.
fn refused_below(from: &str, to: &str, key: &str, message: &str, below: usize) {
    let text = example_text();
    assert!(text.contains(from), "{from}");
    let at = text.find(from).unwrap();
    let bad = text.replacen(from, to, 1);
    let line = bad[..at].matches('\n').count() + 1 + below;
    let Err(ProgrammeError::Invalid { problems, path }) = parse(&bad) else {
        panic!("{to}: accepted");
    };
    assert_eq!(path, Path::new("prog.toml"));
    let found = problems
        .iter()
        .find(|p| p.key == key && p.message.contains(message))
        .unwrap_or_else(|| panic!("no problem at {key} saying {message}: {problems:?}"));
    assert_eq!(found.at.map(|a| a.0), Some(line), "{found}");
}

#[test]
fn each_check_names_the_problem_and_where() {
    refused(
        "name = \"Olga Smirnova\"",
        "name = \"Anna Kuznetsova\" ",
        "entry[2].name",
        "\"Anna Kuznetsova\" is entered twice",
    );
    refused(
        "name = \"Olga Smirnova\"",
        "name = \" \"",
        "entry[2].name",
        "empty",
    );
    refused(
        "handicap = 8",
        "handicap = 400",
        "entry[5].handicap",
        "400 is not a handicap",
    );
    refused(
        "\"lane judge: Maria Lebedeva\"",
        "\"Maria Lebedeva\"",
        "judges[3]",
        "is not \"role: name\"",
    );
    refused(
        "id = \"doubles\"",
        "id = \"singles\"",
        "event[2].id",
        "defined twice",
    );
    refused(
        "\"Moscow\" = [\"Anna Kuznetsova\", \"Ivan Petrov\"]",
        "\"Moscow\" = [\"Anna Kuznetsova\", \"Ivan Petrov\", \"Sergei Volkov\"]",
        "event[2].teams.Moscow",
        "has 3 member(s); a doubles team has 2",
    );
    refused(
        "\"Tatarstan\" = [\"Olga Smirnova\", \"Dmitri Orlov\"]",
        "\"Tatarstan\" = [\"Olga Smirnova\", \"Ivan Petrov\"]",
        "event[2].teams.Tatarstan[2]",
        "\"Ivan Petrov\" is already in team \"Moscow\"",
    );
    refused(
        "\"Tatarstan\" = [\"Olga Smirnova\", \"Dmitri Orlov\"]",
        "\"Tatarstan\" = [\"Olga Smirnova\", \"Dmitri Orloff\"]",
        "event[2].teams.Tatarstan[2]",
        "\"Dmitri Orloff\" is not an entry",
    );
    refused(
        "kind = \"doubles\"\nteams",
        "kind = \"singles\"\nteams",
        "event[2].teams",
        "a singles event has no teams",
    );
    refused(
        "id = \"S2\"",
        "id = \"S1\"",
        "block[2].id",
        "block \"S1\" is defined twice",
    );
    refused(
        "event = \"doubles\"",
        "event = \"double\"",
        "block[3].event",
        "no event \"double\"",
    );
    refused(
        "games = 6",
        "games = 13",
        "block[1].games",
        "13 games: a block has 1 to 12",
    );
    refused("day = 1", "day = 0", "block[1].day", "days count from 1");
    // An entry on two lanes of one block.
    refused(
        "3 = [\"Sergei Volkov\", \"Yulia Frolova\"] }",
        "3 = [\"Sergei Volkov\", \"Anna Kuznetsova\"] }",
        "block[1].lanes.3[2]",
        "\"Anna Kuznetsova\" is already on lane 1 in this block",
    );
    refused(
        "[\"Ivan Petrov\", \"Dmitri Orlov\"], 3",
        "[\"Ivan Petrov\", \"Ivan Petrov\"], 3",
        "block[1].lanes.2[2]",
        "\"Ivan Petrov\" is twice on lane 2",
    );
    refused(
        "\"Dmitri Orlov\"], 3 = [\"Sergei",
        "\"Dmitri Orlof\"], 3 = [\"Sergei",
        "block[1].lanes.2[2]",
        "\"Dmitri Orlof\" is not an entry",
    );
    refused(
        "lanes = { 1 = [\"Anna Kuznetsova\", \"Olga Smirnova\"], 2 = [\"Ivan Petrov\", \"Dmitri Orlov\"], 3",
        "lanes = { 1 = [\"Anna Kuznetsova\", \"Olga Smirnova\", \"Ivan Petrov\", \"Dmitri Orlov\", \"Sergei Volkov\"], 3",
        "block[1].lanes.1",
        "5 bowlers on lane 1: a lane takes 1 to 4",
    );
    refused(
        "lanes = { 5 =",
        "lanes = { x5 =",
        "block[3].lanes.x5",
        "\"x5\" is not a lane number",
    );
    // A doubles block: Sergei is in no team, and Moscow is half there.
    refused(
        "5 = [\"Anna Kuznetsova\", \"Ivan Petrov\"]",
        "5 = [\"Anna Kuznetsova\", \"Sergei Volkov\"]",
        "block[3].lanes.5[2]",
        "\"Sergei Volkov\" is in no team of event \"doubles\"",
    );
    refused(
        "5 = [\"Anna Kuznetsova\", \"Ivan Petrov\"]",
        "5 = [\"Anna Kuznetsova\"]",
        "block[3].lanes",
        "team \"Moscow\" has 1 of its 2 members in this block",
    );
    // A category with no bowler yet waits (src/centre/programme/check
    // tests); one no class makes is refused.
    refused(
        "category = \"B1\"",
        "category = \"B1-X\"",
        "finals[1].category",
        "there is no category \"B1-X\": a category is B1, B2 or B3",
    );
    refused(
        "round_robin = \"RR-B1\"",
        "round_robin = \"D1\"",
        "finals[1].round_robin",
        "block \"D1\" is not in a singles event",
    );
    refused(
        "step_ladder = [\"SL1-B1\", \"SL2-B1\"]",
        "step_ladder = [\"SL1-B1\"]",
        "finals[1].step_ladder",
        "the step-ladder has 2 blocks, not 1",
    );
    refused(
        "step_ladder = [\"SL1-B1\", \"SL2-B1\"]",
        "step_ladder = [\"SL1-B1\", \"SL1-B1\"]",
        "finals[1].step_ladder[2]",
        "block \"SL1-B1\" is in the finals twice",
    );
    refused(
        "kind = \"doubles\"\nteams = { \"Moscow\" = [\"Anna Kuznetsova\", \"Ivan Petrov\"], \"Tatarstan\" = [\"Olga Smirnova\", \"Dmitri Orlov\"] }",
        "kind = \"doubles\"",
        "event[2].kind",
        "a team event needs its teams",
    );
    refused(
        "id = \"singles\"",
        "id = \"\"",
        "event[1].id",
        "the id is empty",
    );
    refused("id = \"S1\"", "id = \"\"", "block[1].id", "the id is empty");
    refused(
        "team = \"Moscow\"",
        "team = \"\"",
        "entry[1].team",
        "the team's name is empty",
    );
    // A region follows the rule the page and the lanes follow: nothing
    // that turns the text around or writes to a terminal.
    refused(
        "region = \"Moscow\"",
        "region = \"Mos\\u202Ecow\"",
        "entry[1].region",
        "the region holds an invisible formatting character (U+202E)",
    );
    refused(
        "region = \"Moscow\"",
        "region = \"\\u001B[2JMoscow\"",
        "entry[1].region",
        "the region holds a control character (U+001B)",
    );
    refused(
        "lanes = { 5 = [\"Anna Kuznetsova\", \"Ivan Petrov\"], 6",
        "lanes = { 5 = [\"Anna Kuznetsova\", \"Ivan Petrov\"], 05 = [], 6",
        "block[3].lanes.05",
        "lane 5 is written twice",
    );
    refused(
        "lanes = { 5 = [\"Anna Kuznetsova\", \"Ivan Petrov\"], 6",
        "lanes = { 5 = [\"Anna Kuznetsova\", \"Ivan Petrov\"], 7 = [], 6",
        "block[3].lanes.7",
        "0 bowlers on lane 7: a lane takes 1 to 4",
    );
    refused_below(
        "step_ladder = [\"SL1-B1\", \"SL2-B1\"]",
        "step_ladder = [\"SL1-B1\", \"SL2-B1\"]\nroll_off = [\"Nobody\"]",
        "finals[1].roll_off[1]",
        "\"Nobody\" is not an entry",
        1,
    );
    refused_below(
        "[[finals]]",
        "[[finals]]\ncategory = \"B1\"\nround_robin = \"S1\"\nstep_ladder = [\"S2\", \"D1\"]\n[[finals]]",
        "finals[2].category",
        "category \"B1\" has finals twice",
        5,
    );
    refused(
        "step_ladder = [\"SL1-B1\", \"SL2-B1\"]",
        "step_ladder = [\"SL1-B1\", \"D1\"]",
        "finals[1].step_ladder[2]",
        "block \"D1\" is not in a singles event",
    );
}

#[test]
fn a_value_of_the_wrong_kind_is_tomls_message_with_the_line() {
    let bad = example_text().replacen("class = \"B2\"", "class = \"B4\"", 1);
    let line = bad[..bad.find("\"B4\"").unwrap()].matches('\n').count() + 1;
    let err = parse(&bad).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, ProgrammeError::Syntax { .. }), "{text}");
    assert!(text.starts_with("prog.toml: "), "{text}");
    assert!(text.contains(&format!("line {line}")), "{text}");
    assert!(text.contains("B4"), "{text}");
    let bad = example_text().replacen("region = \"Tula\"", "regoin = \"Tula\"", 1);
    let text = parse(&bad).unwrap_err().to_string();
    assert!(text.contains("regoin"), "{text}");
    let missing = Programme::load(Path::new("/nonexistent/prog.toml")).unwrap_err();
    assert!(
        missing
            .to_string()
            .starts_with("cannot read /nonexistent/prog.toml")
    );
}

#[test]
fn a_file_with_several_problems_lists_them_all_as_the_doc_shows() {
    let path = root().join("tests/programme/bad.toml");
    let err = Programme::load(&path).unwrap_err();
    let ProgrammeError::Invalid { problems, .. } = &err else {
        panic!("{err}");
    };
    let listed: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    assert_eq!(
        listed,
        [
            "block[1].lanes.1[2]: \"Olga Smirnova\" is twice on lane 1 (line 23, column 23)",
            "block[1].lanes.2[1]: \"Olga Smirnova\" is already on lane 1 in this block (line 24, column 6)",
            "block[1].lanes.3[1]: \"Pavel\" is not an entry (line 25, column 6)",
        ]
    );
    let doc = std::fs::read_to_string(root().join("docs/programme.md")).unwrap();
    for l in &listed {
        assert!(
            doc.contains(l.as_str()),
            "docs/programme.md should show {l}"
        );
    }
}

// ---------------------------------------------------------------------------
// What the lanes report

/// Every journal under tests/logs/ whose expected sheet names each game's
/// frames: the games `bowled_games` gives equal the sheet's.
#[test]
fn bowled_games_equal_the_expected_sheets_of_the_journals() {
    let mut checked = 0;
    for entry in std::fs::read_dir(root().join("tests/logs")).unwrap() {
        let path = entry.unwrap().path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some(stem) = name.strip_suffix(".expect.json") else {
            continue;
        };
        let expect: Value = serde_json::from_reader(File::open(&path).unwrap()).unwrap();
        let journal = format!("{stem}.jsonl");
        let lane = expect["lane"].as_u64().unwrap() as u32;
        let mut want = Vec::new();
        let mut whole = true;
        for b in expect["bowlers"].as_array().unwrap() {
            for g in b["games"].as_array().unwrap() {
                let Some(frames) = g["frames"].as_array() else {
                    whole = false;
                    continue;
                };
                let class = match b["class"].as_str() {
                    Some("B1") => Class::B1,
                    Some("B2") => Class::B2,
                    Some("B3") => Class::B3,
                    _ => {
                        whole = false;
                        continue;
                    }
                };
                want.push(BowledGame {
                    lane,
                    journal: journal.clone(),
                    block: Some("S1".into()),
                    name: b["name"].as_str().unwrap().to_owned(),
                    class: Some(class),
                    game: g["game"].as_u64().unwrap() as u32,
                    score: g["total"].as_u64().unwrap() as u32,
                    frames: frames.iter().filter(|f| !f["cumulative"].is_null()).count() as u8,
                    complete: g["complete"].as_bool().unwrap(),
                });
            }
        }
        if !whole {
            continue;
        }
        let file = File::open(root().join("tests/logs").join(&journal)).unwrap();
        let replay = Replay::from_reader(BufReader::new(file)).unwrap();
        let got = bowled_games(&replay, lane, &journal, Some("S1"));
        assert_eq!(got, want, "{journal}");
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} journals checked");
}

#[test]
fn an_unfinished_game_shows_its_running_total_through_the_frames_scored() {
    // torn_journal: the game stops after frame 7, a strike: frames 1-6
    // are scored, total 94, not complete.
    let file = File::open(root().join("tests/logs/torn_journal.jsonl")).unwrap();
    let replay = Replay::from_reader(BufReader::new(file)).unwrap();
    let games = bowled_games(&replay, 11, "torn_journal.jsonl", None);
    assert_eq!(games.len(), 1);
    assert_eq!(
        (games[0].score, games[0].frames, games[0].complete),
        (94, 6, false)
    );
}

// ---------------------------------------------------------------------------
// Standings

#[test]
fn without_a_programme_every_bowler_is_ranked_in_their_class_on_live_totals() {
    let moved = |g: BowledGame| BowledGame {
        journal: "lane3-20261128T140000Z-000002.jsonl".into(),
        ..g
    };
    let b2 = |g: BowledGame| BowledGame {
        class: Some(Class::B2),
        ..g
    };
    let games = vec![
        // Anna: lane 1, then lane 3 in a later journal: 150 + 160 + 140 = 450.
        moved(game(3, "x", "Anna", 1, 140)),
        game(1, "x", "Anna", 1, 150),
        game(1, "x", "Anna", 2, 160),
        // Boris: 200, and 90 through frame 5 of game 2: 290 live.
        game(1, "x", "Boris", 1, 200),
        BowledGame {
            score: 90,
            frames: 5,
            complete: false,
            ..game(1, "x", "Boris", 2, 0)
        },
        // Vera, B2: 170. Gleb, class unknown: 100.
        b2(game(2, "x", "Vera", 1, 170)),
        BowledGame {
            class: None,
            ..game(2, "x", "Gleb", 1, 100)
        },
    ];
    let s = standings(None, &games);
    let ids: Vec<&str> = s.categories.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["B1", "B2", "unknown"]);
    assert_eq!(
        ranks(&s, "B1"),
        [(1, "Anna".into(), 450), (2, "Boris".into(), 290)]
    );
    let v = serde_json::to_value(&s).unwrap();
    let anna = &v["categories"][0]["entries"][0];
    assert_eq!(anna["name"], "Anna");
    assert_eq!(anna["lane"], 3);
    assert_eq!(anna["games"], json!([150, 160, 140]));
    assert_eq!(anna["total"], 450);
    assert_eq!(anna["class"], "B1");
    // The fields docs/programme.md lists, and no other.
    let keys: Vec<&str> = anna
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut want = [
        "rank", "mark", "name", "lane", "class", "sex", "region", "team", "games", "complete",
        "playing", "scratch", "handicap", "bonus", "total",
    ];
    want.sort();
    let mut keys = keys;
    keys.sort();
    assert_eq!(keys, want);
    let boris = &v["categories"][0]["entries"][1];
    assert_eq!(boris["complete"], 1);
    assert_eq!(boris["playing"], json!({"game": 2, "frames": 5}));
    assert_eq!(ranks(&s, "B2"), [(1, "Vera".into(), 170)]);
    assert_eq!(ranks(&s, "unknown"), [(1, "Gleb".into(), 100)]);
    assert_eq!(v["categories"][2]["title_ru"], "класс не указан");
    assert_eq!(v["teams"], json!([]));
}

/// A programme of `men` B2 men and `women` B2 women, all on one singles
/// block.
fn b2_programme(men: usize, women: usize) -> Programme {
    let mut text = String::from(
        "title = \"t\"\ndates = \"d\"\nplace = \"p\"\n\
         [[event]]\nid = \"singles\"\nkind = \"singles\"\n\
         [[block]]\nid = \"S1\"\nevent = \"singles\"\ngames = 2\nday = 1\n",
    );
    for (sex, n) in [("M", men), ("F", women)] {
        for i in 1..=n {
            text += &format!(
                "[[entry]]\nname = \"{sex}{i}\"\nclass = \"B2\"\nsex = \"{sex}\"\nregion = \"R\"\n"
            );
        }
    }
    parse(&text).unwrap()
}

#[test]
fn a_class_of_12_is_one_category_and_its_women_get_10_pins_a_game() {
    // 7 men + 5 women = 12: combined.
    let p = b2_programme(7, 5);
    let ids: Vec<String> = p.categories().into_iter().map(|c| c.id).collect();
    assert_eq!(ids, ["B2"]);
    // F1: 150 + 160 = 310, + 2 × 10 = 330. M1: 165 + 160 = 325.
    let games = [
        game(1, "S1", "F1", 1, 150),
        game(1, "S1", "F1", 2, 160),
        game(2, "S1", "M1", 1, 165),
        game(2, "S1", "M1", 2, 160),
    ];
    let s = standings(Some(&p), &games);
    let c = &s.categories[0];
    assert!(c.combined);
    assert_eq!(c.title, "B2 men and women");
    assert_eq!(c.title_ru, "B2 мужчины и женщины");
    let top: Vec<(u32, String, u32)> = ranks(&s, "B2").into_iter().take(2).collect();
    assert_eq!(top, [(1, "F1".into(), 330), (2, "M1".into(), 325)]);
    let f1 = line(&s, "F1");
    assert_eq!((f1.scratch, f1.bonus, f1.handicap), (310, 20, 0));
    assert_eq!(line(&s, "M1").bonus, 0);
    // Everyone entered is listed, with no games yet: 12 lines.
    assert_eq!(c.entries.len(), 12);
}

#[test]
fn a_class_of_13_is_two_categories_with_no_womens_pins() {
    // 7 men + 6 women = 13: men and women apart.
    let p = b2_programme(7, 6);
    let ids: Vec<String> = p.categories().into_iter().map(|c| c.id).collect();
    assert_eq!(ids, ["B2-M", "B2-F"]);
    let games = [game(1, "S1", "F1", 1, 150), game(2, "S1", "M1", 1, 165)];
    let s = standings(Some(&p), &games);
    assert!(!s.categories[0].combined);
    assert_eq!(s.categories[0].title, "B2 men");
    assert_eq!(s.categories[1].title_ru, "B2 женщины");
    // F1: 150, no bonus.
    assert_eq!(ranks(&s, "B2-F")[0], (1, "F1".into(), 150));
    assert_eq!(line(&s, "F1").bonus, 0);
    assert_eq!(ranks(&s, "B2-M")[0], (1, "M1".into(), 165));
}

#[test]
fn the_programmes_handicap_is_added_once_a_game() {
    // Example: Sergei (B2, M, handicap 8): 170 + 150 = 320 + 16 = 336.
    // Yulia (B2, F, combined B2): 165 + 160 = 325 + 20 = 345.
    let p = example();
    let games = [
        game(3, "S1", "Sergei Volkov", 1, 170),
        game(3, "S1", "Sergei Volkov", 2, 150),
        game(3, "S1", "Yulia Frolova", 1, 165),
        game(3, "S1", "Yulia Frolova", 2, 160),
    ];
    let s = standings(Some(&p), &games);
    assert_eq!(
        ranks(&s, "B2"),
        [
            (1, "Yulia Frolova".into(), 345),
            (2, "Sergei Volkov".into(), 336)
        ]
    );
    let sergei = line(&s, "Sergei Volkov");
    assert_eq!(
        (sergei.scratch, sergei.handicap, sergei.bonus),
        (320, 16, 0)
    );
}

#[test]
fn ties_go_to_the_higher_last_game_then_share_the_rank() {
    // All four total 380. Y's last game 200 is the highest: 1st. W and Z
    // bowled 190, 190: equal in every game, both 2nd (W listed first). X's
    // last game 180: 4th.
    let games = [
        game(1, "x", "X", 1, 200),
        game(1, "x", "X", 2, 180),
        game(1, "x", "Y", 1, 180),
        game(1, "x", "Y", 2, 200),
        game(2, "x", "Z", 1, 190),
        game(2, "x", "Z", 2, 190),
        game(2, "x", "W", 1, 190),
        game(2, "x", "W", 2, 190),
    ];
    let s = standings(None, &games);
    assert_eq!(
        ranks(&s, "B1"),
        [
            (1, "Y".into(), 380),
            (2, "W".into(), 380),
            (2, "Z".into(), 380),
            (4, "X".into(), 380)
        ]
    );
}

#[test]
fn a_ties_last_game_counts_with_the_womens_pins() {
    // Combined B1 of the example. Olga: 190 + 170 = 360 + 20 = 380, last
    // game 170 + 10 = 180. Dmitri: 200 + 180 = 380, last game 180. Equal
    // last games; the game before: Olga 200, Dmitri 200: equal, so both
    // are 1st.
    let p = example();
    let games = [
        game(1, "S1", "Olga Smirnova", 1, 190),
        game(1, "S1", "Olga Smirnova", 2, 170),
        game(2, "S1", "Dmitri Orlov", 1, 200),
        game(2, "S1", "Dmitri Orlov", 2, 180),
    ];
    let s = standings(Some(&p), &games);
    let top: Vec<(u32, String, u32)> = ranks(&s, "B1").into_iter().take(2).collect();
    assert_eq!(
        top,
        [
            (1, "Dmitri Orlov".into(), 380),
            (1, "Olga Smirnova".into(), 380)
        ]
    );
}

#[test]
fn team_games_add_up_the_members_games_of_the_same_block_and_game() {
    // Doubles D1. Moscow: Anna 150, 160 and Ivan 170, 140 (game 2 through
    // frame 7): 320, 300 = 620. Tatarstan: Olga 180, 150 and Dmitri 160,
    // 170: 340, 320 = 660. Singles games do not count for teams.
    let p = example();
    let live = BowledGame {
        complete: false,
        frames: 7,
        ..game(5, "D1", "Ivan Petrov", 2, 140)
    };
    let games = [
        game(5, "D1", "Anna Kuznetsova", 1, 150),
        game(5, "D1", "Anna Kuznetsova", 2, 160),
        game(5, "D1", "Ivan Petrov", 1, 170),
        live,
        game(6, "D1", "Olga Smirnova", 1, 180),
        game(6, "D1", "Olga Smirnova", 2, 150),
        game(6, "D1", "Dmitri Orlov", 1, 160),
        game(6, "D1", "Dmitri Orlov", 2, 170),
        game(1, "S1", "Anna Kuznetsova", 1, 300),
    ];
    let s = standings(Some(&p), &games);
    assert_eq!(s.teams.len(), 1);
    let t = &s.teams[0];
    assert_eq!(t.event, "doubles");
    let got: Vec<(u32, &str, &[u32], u32)> = t
        .entries
        .iter()
        .map(|e| {
            let s = &e.standing;
            (
                s.rank.unwrap_or(0),
                s.name.as_str(),
                s.games.as_slice(),
                s.total,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (1, "Tatarstan", &[340, 320][..], 660),
            (2, "Moscow", &[320, 300][..], 620)
        ]
    );
    let moscow = &t.entries[1];
    assert_eq!(moscow.members, ["Anna Kuznetsova", "Ivan Petrov"]);
    assert_eq!(moscow.standing.complete, 1);
    assert_eq!(
        moscow.standing.playing.map(|p| (p.game, p.frames)),
        Some((2, 7))
    );
    // Anna's doubles games are not singles games: her singles total is 300
    // + 10.
    assert_eq!(line(&s, "Anna Kuznetsova").total, 310);
}

#[test]
fn games_the_programme_cannot_place_are_listed_and_counted_nowhere() {
    let p = example();
    let games = [
        BowledGame {
            block: None,
            ..game(1, "S1", "Ivan Petrov", 1, 200)
        },
        game(1, "S9", "Ivan Petrov", 1, 210),
        game(1, "S1", "Guest", 1, 220),
        game(1, "S1", "Ivan Petrov", 1, 190),
    ];
    let s = standings(Some(&p), &games);
    assert_eq!(line(&s, "Ivan Petrov").total, 190);
    let reasons: Vec<(&str, &str)> = s
        .unplaced
        .iter()
        .map(|u| (u.name.as_str(), u.reason))
        .collect();
    assert_eq!(
        reasons,
        [
            ("Ivan Petrov", "the lineup did not come from the programme"),
            ("Ivan Petrov", "the programme has no such block"),
            ("Guest", "not an entry of the programme")
        ]
    );
}

// ---------------------------------------------------------------------------
// Finals

#[test]
fn the_round_robin_of_8_meets_everyone_once_as_the_doc_table_says() {
    let rounds = round_robin_schedule(8);
    assert_eq!(rounds.len(), 7);
    let mut met = std::collections::BTreeSet::new();
    for r in &rounds {
        assert_eq!(r.len(), 4);
        for &(a, b) in r {
            assert!(met.insert((a, b.unwrap())), "{a}-{b:?} twice");
        }
    }
    assert_eq!(met.len(), 28);
    // The doc's table, row by row.
    let doc = std::fs::read_to_string(root().join("docs/programme.md")).unwrap();
    for (i, r) in rounds.iter().enumerate() {
        let pairs: Vec<String> = r
            .iter()
            .map(|(a, b)| format!("{a}–{}", b.unwrap()))
            .collect();
        let row = format!("| {} | {} |", i + 1, pairs.join(", "));
        assert!(doc.contains(&row), "docs/programme.md lacks {row}");
    }
    // 5 bowlers: a bye each, 5 rounds of 2 matches and a bye.
    let five = round_robin_schedule(5);
    assert_eq!(five.len(), 5);
    for r in &five {
        assert_eq!(r.iter().filter(|(_, b)| b.is_none()).count(), 1);
    }
}

/// The example's B1 finals, worked by hand:
///
/// Preliminaries (S1): Ivan 200 + 210 = 410; Anna 190 + 195 = 385 + 20 =
/// 405; Dmitri 180 + 190 = 370; Olga 170 + 175 = 345 + 20 = 365. Seeds:
/// 1 Ivan, 2 Anna, 3 Dmitri, 4 Olga. Rounds (circle method, 4): 1–4, 2–3;
/// 1–3, 2–4; 1–2, 3–4.
///
/// - R1: Ivan 180, Olga 170 + 10 = 180: tie, 10 each. Anna 200 + 10 = 210,
///   Dmitri 190: Anna 20.
/// - R2: Ivan 220, Dmitri 200: Ivan 20. Anna 150 + 10 = 160, Olga 160 + 10
///   = 170: Olga 20.
/// - R3: Ivan 190, Anna 185 + 10 = 195: Anna 20. Dmitri 210, Olga 200 + 10
///   = 210: tie, 10 each.
///
/// Totals: Ivan 410 + 590 + 30 = 1030; Anna 405 + 565 + 40 = 1010; Dmitri
/// 370 + 600 + 10 = 980; Olga (ties in R1 and R3, a win in R2) 365 + 560
/// + 40 = 965.
///
/// Step-ladder 1: Dmitri 200 against Anna 190 + 10 = 200: a tie, for a
/// roll-off. Step-ladder 2 (Dmitri won the roll-off): Dmitri 230, Ivan 220.
fn finals_games() -> Vec<BowledGame> {
    let mut g = Vec::new();
    for (name, lane, prelim, rr, sl1, sl2) in [
        (
            "Ivan Petrov",
            1,
            [200, 210],
            [180, 220, 190],
            None,
            Some(220),
        ),
        (
            "Anna Kuznetsova",
            2,
            [190, 195],
            [200, 150, 185],
            Some(190),
            None,
        ),
        (
            "Dmitri Orlov",
            3,
            [180, 190],
            [190, 200, 210],
            Some(200),
            Some(230),
        ),
        ("Olga Smirnova", 4, [170, 175], [170, 160, 200], None, None),
    ] {
        for (i, s) in prelim.into_iter().enumerate() {
            g.push(game(lane, "S1", name, i as u32 + 1, s));
        }
        for (i, s) in rr.into_iter().enumerate() {
            g.push(game(lane + 10, "RR-B1", name, i as u32 + 1, s));
        }
        g.extend(sl1.map(|s| game(20, "SL1-B1", name, 1, s)));
        g.extend(sl2.map(|s| game(21, "SL2-B1", name, 1, s)));
    }
    g
}

#[test]
fn the_round_robin_adds_bonus_pins_and_a_tied_step_ladder_waits_for_its_roll_off() {
    let p = example();
    let s = standings(Some(&p), &finals_games());
    // The preliminaries count only S1.
    assert_eq!(
        ranks(&s, "B1"),
        [
            (1, "Ivan Petrov".into(), 410),
            (2, "Anna Kuznetsova".into(), 405),
            (3, "Dmitri Orlov".into(), 370),
            (4, "Olga Smirnova".into(), 365)
        ]
    );
    let f = &s.finals["B1"];
    assert_eq!(
        f.seeds,
        [
            "Ivan Petrov",
            "Anna Kuznetsova",
            "Dmitri Orlov",
            "Olga Smirnova"
        ]
    );
    let table: Vec<(u32, &str, u32, u32, u32, u32)> = f
        .round_robin
        .iter()
        .map(|r| (r.rank, r.name.as_str(), r.pins, r.wins, r.bonus, r.total))
        .collect();
    assert_eq!(
        table,
        [
            (1, "Ivan Petrov", 590, 1, 30, 1030),
            (2, "Anna Kuznetsova", 565, 2, 40, 1010),
            (3, "Dmitri Orlov", 600, 0, 10, 980),
            (4, "Olga Smirnova", 560, 1, 40, 965)
        ]
    );
    let first = &f.matches[0];
    assert_eq!((first.round, first.a.as_str()), (1, "Ivan Petrov"));
    assert_eq!(first.b.as_deref(), Some("Olga Smirnova"));
    assert_eq!((first.a_score, first.b_score), (Some(180), Some(180)));
    assert!(first.tie && first.winner.is_none());
    // 3rd against 2nd: tied, no winner yet, no second match, no places.
    let sl = &f.step_ladder;
    assert_eq!(sl.matches.len(), 1);
    assert_eq!(sl.matches[0].a, "Dmitri Orlov");
    assert_eq!(sl.matches[0].b.as_deref(), Some("Anna Kuznetsova"));
    assert_eq!(
        (sl.matches[0].a_score, sl.matches[0].b_score),
        (Some(200), Some(200))
    );
    assert!(sl.matches[0].tie && sl.matches[0].winner.is_none());
    assert!(sl.places.is_empty());
}

#[test]
fn after_the_roll_off_the_step_ladder_gives_the_places() {
    let text = example_text() + "roll_off = [\"Dmitri Orlov\"]\n";
    let p = parse(&text).unwrap();
    let s = standings(Some(&p), &finals_games());
    let sl = &s.finals["B1"].step_ladder;
    assert_eq!(sl.matches[0].winner.as_deref(), Some("Dmitri Orlov"));
    assert_eq!(sl.matches[1].a, "Dmitri Orlov");
    assert_eq!(sl.matches[1].b.as_deref(), Some("Ivan Petrov"));
    assert_eq!(sl.matches[1].winner.as_deref(), Some("Dmitri Orlov"));
    assert_eq!(
        sl.places,
        [
            "Dmitri Orlov",
            "Ivan Petrov",
            "Anna Kuznetsova",
            "Olga Smirnova"
        ]
    );
}

#[test]
fn a_round_robin_match_is_decided_only_when_both_games_are_complete() {
    // Round 1, Ivan 180 (complete) against Olga 150 + 10 through frame 8:
    // no winner, no bonus yet.
    let p = example();
    let mut games = finals_games();
    let olga = games
        .iter_mut()
        .find(|g| g.name == "Olga Smirnova" && g.block.as_deref() == Some("RR-B1") && g.game == 1)
        .unwrap();
    olga.score = 150;
    olga.complete = false;
    olga.frames = 8;
    let s = standings(Some(&p), &games);
    let m = &s.finals["B1"].matches[0];
    assert!(!m.complete && m.winner.is_none() && !m.tie);
    assert_eq!(m.b_score, Some(160));
    let ivan = &s.finals["B1"]
        .round_robin
        .iter()
        .find(|r| r.name == "Ivan Petrov")
        .unwrap();
    // Ivan: only round 2's 20.
    assert_eq!(ivan.bonus, 20);
}

// ---------------------------------------------------------------------------
// The results protocol

#[test]
fn the_text_protocol_has_the_heading_and_every_ranking() {
    let p = example();
    let s = standings(Some(&p), &finals_games());
    let text = protocol_text(Some(&p), &s);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "Moscow Open, ten-pin bowling for the blind");
    assert_eq!(
        lines[1],
        "Открытый чемпионат Москвы по боулингу, спорт слепых"
    );
    assert_eq!(
        lines[2],
        "28-30 November 2026, Moscow, Kosmik bowling centre"
    );
    assert!(lines.contains(&"  chief judge: Irina Orlova"));
    assert!(lines.contains(&"B1 men and women / B1 мужчины и женщины"));
    // Anna: 2nd, Moscow, B1, 190 195, scratch 385, handicap 0, bonus 20,
    // total 405.
    let anna = lines
        .iter()
        .find(|l| l.contains("Anna Kuznetsova") && l.contains("405"))
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .unwrap();
    assert_eq!(
        anna,
        [
            "2",
            "Anna",
            "Kuznetsova",
            "Moscow",
            "B1",
            "190",
            "195",
            "385",
            "0",
            "20",
            "405"
        ]
    );
    // The round robin's table and the tied step-ladder match.
    let rr = lines
        .iter()
        .find(|l| l.contains("Ivan Petrov") && l.contains("1030"))
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .unwrap();
    // Rank, name, preliminary, scratch, handicap, women's pins, bonus, total.
    assert_eq!(
        rr,
        ["1", "Ivan", "Petrov", "410", "590", "0", "0", "30", "1030"]
    );
    // Anna's women's pins have their own column: the row adds up.
    let anna_rr = lines
        .iter()
        .find(|l| l.contains("Anna Kuznetsova") && l.contains("535"))
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .unwrap();
    let n: Vec<u32> = anna_rr[3..].iter().map(|x| x.parse().unwrap()).collect();
    assert_eq!(n[..5].iter().sum::<u32>(), n[5], "{anna_rr:?}");
    assert_eq!(n[3], 30, "three games of +10: {anna_rr:?}");
    assert!(
        lines.contains(&"Step-ladder 1: Dmitri Orlov 200 : 200 Anna Kuznetsova"),
        "{text}"
    );
}

#[test]
fn the_csv_protocol_has_a_row_per_bowler_and_team() {
    let p = example();
    let mut games = finals_games();
    games.push(game(5, "D1", "Anna Kuznetsova", 1, 150));
    let s = standings(Some(&p), &games);
    let csv = protocol_csv(&s, CsvLang::En);
    // UTF-8 with a byte order mark, for a spreadsheet to read it so.
    let csv = csv.strip_prefix('\u{feff}').expect("a byte order mark");
    let rows: Vec<&str> = csv.split("\r\n").collect();
    assert_eq!(
        rows[0],
        "category,rank,name,region,class,sex,team,game 1,game 2,scratch,handicap,bonus,total,place,mark,members"
    );
    // The final place is the step-ladder's, not the preliminaries' rank:
    // the roll-off is not recorded, so the finals are not decided yet.
    assert_eq!(
        rows[1],
        "B1,1,Ivan Petrov,Moscow,B1,M,Moscow,200,210,410,0,0,410,,,"
    );
    assert_eq!(
        rows[2],
        "B1,2,Anna Kuznetsova,Moscow,B1,F,Moscow,190,195,385,0,20,405,,,"
    );
    // B2: nobody has bowled, though S1 (their block) has: not ranked, DNS.
    assert_eq!(rows[5], "B2,,Sergei Volkov,Tula,B2,M,,,,0,0,0,0,,DNS,");
    // Moscow's doubles: Anna's 150, and the team's members.
    assert_eq!(
        rows[7],
        "doubles,1,Moscow,,,,,150,,150,0,0,150,1,,\"Anna Kuznetsova, Ivan Petrov\""
    );
    // Then the round robin of B1 and its step-ladder.
    let rr = rows
        .iter()
        .position(|r| r.starts_with("category,round robin rank,"))
        .unwrap();
    assert_eq!(
        rows[rr],
        "category,round robin rank,name,preliminary,match 1,match 2,match 3,scratch,handicap,women's pins,wins,ties,bonus,total"
    );
    assert_eq!(
        rows[rr + 1],
        "B1,1,Ivan Petrov,410,180,220,190,590,0,0,1,1,30,1030"
    );
    let anna = rows[rr + 1..rr + 5]
        .iter()
        .find(|r| r.contains("Anna"))
        .unwrap();
    assert_eq!(
        *anna,
        "B1,2,Anna Kuznetsova,405,200,150,185,535,0,30,2,0,40,1010"
    );
    let sl = rows
        .iter()
        .position(|r| r.starts_with("category,step-ladder match,"))
        .unwrap();
    assert_eq!(rows[sl + 1], "B1,1,Dmitri Orlov,200,Anna Kuznetsova,200,");
    assert_eq!(rows.last(), Some(&""));
    // A field with a comma or a quote is quoted.
    let text = example_text().replacen("region = \"Tula\"", "region = \"Tula, \\\"TOS\\\"\"", 1);
    let s = standings(Some(&parse(&text).unwrap()), &[]);
    assert!(protocol_csv(&s, CsvLang::En).contains(",\"Tula, \"\"TOS\"\"\",B2,"));
}

#[test]
fn the_russian_csv_has_semicolons_russian_headings_and_the_final_places() {
    let text = example_text().replace(
        "round_robin = \"RR-B1\"",
        "round_robin = \"RR-B1\"\nroll_off = [\"Dmitri Orlov\"]",
    );
    let p = parse(&text).unwrap();
    let s = standings(Some(&p), &finals_games());
    let csv = protocol_csv(&s, CsvLang::Ru);
    let csv = csv.strip_prefix('\u{feff}').expect("a byte order mark");
    let rows: Vec<&str> = csv.split("\r\n").collect();
    assert!(
        rows[0].starts_with("категория;место в квалификации;фамилия имя;"),
        "{}",
        rows[0]
    );
    assert!(
        rows[0].ends_with(";итого;место;отметка;состав"),
        "{}",
        rows[0]
    );
    // Places after the step-ladder: Dmitri won both matches; Ivan 2nd;
    // Anna lost the first; Olga 4th in the round robin.
    let place = |name: &str| {
        let r = rows
            .iter()
            .find(|r| r.starts_with("B1;") && r.contains(name))
            .unwrap();
        let cells: Vec<&str> = r.split(';').collect();
        (
            cells[1].to_owned(),
            cells[cells.len() - 3].to_owned(),
            cells[5].to_owned(),
        )
    };
    assert_eq!(place("Dmitri Orlov"), ("3".into(), "1".into(), "М".into()));
    assert_eq!(place("Ivan Petrov"), ("1".into(), "2".into(), "М".into()));
    assert_eq!(
        place("Anna Kuznetsova"),
        ("2".into(), "3".into(), "Ж".into())
    );
    assert_eq!(place("Olga Smirnova"), ("4".into(), "4".into(), "Ж".into()));
    assert!(rows.iter().any(|r| r.contains(";не явился;")), "{csv}");
    assert!(
        rows.iter()
            .any(|r| r.starts_with("категория;встреча степ-лэддера;"))
    );
}

#[test]
fn withdrawn_and_no_show_bowlers_are_not_ranked_and_come_last_with_their_mark() {
    // Olga withdrawn after her best games; Sergei never bowled; Yulia
    // bowled S1.
    let text = example_text().replacen(
        "name = \"Olga Smirnova\"",
        "name = \"Olga Smirnova\"\nwithdrawn = true",
        1,
    );
    let p = parse(&text).unwrap();
    let mut games = vec![
        game(1, "S1", "Olga Smirnova", 1, 290),
        game(1, "S1", "Anna Kuznetsova", 1, 150),
        game(2, "S1", "Ivan Petrov", 1, 170),
        game(3, "S1", "Yulia Frolova", 1, 120),
    ];
    for g in &mut games[3..] {
        g.class = Some(Class::B2);
    }
    let s = standings(Some(&p), &games);
    assert_eq!(
        ranks(&s, "B1"),
        [
            (1, "Ivan Petrov".to_owned(), 170),
            (2, "Anna Kuznetsova".to_owned(), 160),
            (0, "Dmitri Orlov".to_owned(), 0),
            (0, "Olga Smirnova".to_owned(), 300),
        ]
    );
    assert_eq!(line(&s, "Olga Smirnova").mark, Some(Mark::Withdrawn));
    assert_eq!(line(&s, "Dmitri Orlov").mark, Some(Mark::Dns));
    assert_eq!(line(&s, "Anna Kuznetsova").mark, None);
    assert_eq!(ranks(&s, "B2")[1], (0, "Sergei Volkov".to_owned(), 0));
    assert_eq!(line(&s, "Sergei Volkov").mark, Some(Mark::Dns));
    // In the JSON: no rank, the mark.
    let v = serde_json::to_value(&s).unwrap();
    let olga = &v["categories"][0]["entries"][3];
    assert_eq!(
        (&olga["rank"], &olga["mark"]),
        (&Value::Null, &json!("withdrawn"))
    );
    // The finals seed only ranked bowlers.
    assert_eq!(s.finals["B1"].seeds, ["Ivan Petrov", "Anna Kuznetsova"]);
    // In the text protocol: no rank, the mark in both languages.
    let text = protocol_text(Some(&p), &s);
    let olga = text.lines().find(|l| l.contains("Olga Smirnova")).unwrap();
    assert!(olga.trim_start().starts_with("Olga"), "{olga}");
    assert!(olga.ends_with("withdrawn / снят"), "{olga}");
    // While the lane's first game is on, a bowler yet to bowl is not DNS.
    let mut first = game(2, "S1", "Ivan Petrov", 1, 40);
    first.complete = false;
    let s = standings(Some(&p), &[first]);
    assert_eq!(line(&s, "Dmitri Orlov").mark, None);
    assert_eq!(line(&s, "Dmitri Orlov").rank, None);
    // Before any block is bowled: nobody ranked, nobody marked DNS.
    let s = standings(Some(&p), &[]);
    assert!(
        s.categories
            .iter()
            .flat_map(|c| &c.entries)
            .all(|e| e.rank.is_none())
    );
    assert_eq!(line(&s, "Dmitri Orlov").mark, None);
    // A round robin can be proposed ahead, by name; never with Olga.
    assert_eq!(
        s.finals["B1"].seeds,
        ["Anna Kuznetsova", "Dmitri Orlov", "Ivan Petrov"]
    );
}

#[test]
fn a_teams_handicap_is_each_members_for_each_game_they_bowled() {
    // Ivan with handicap 5 bowls 2 doubles games, Anna (none) 2: Moscow
    // 150 + 170 = 320 and 160 + 140 = 300, scratch 620, handicap 2 × 5 =
    // 10, total 630. A woman's 10 pins do not count for a team.
    let text = example_text().replacen(
        "name = \"Ivan Petrov\"",
        "name = \"Ivan Petrov\"\nhandicap = 5",
        1,
    );
    let p = parse(&text).unwrap();
    let games = [
        game(5, "D1", "Anna Kuznetsova", 1, 150),
        game(5, "D1", "Anna Kuznetsova", 2, 160),
        game(5, "D1", "Ivan Petrov", 1, 170),
        game(5, "D1", "Ivan Petrov", 2, 140),
    ];
    let s = standings(Some(&p), &games);
    let moscow = &s.teams[0].entries[0].standing;
    assert_eq!(moscow.name, "Moscow");
    assert_eq!(
        (moscow.scratch, moscow.handicap, moscow.bonus, moscow.total),
        (620, 10, 0, 630)
    );
}

#[test]
fn the_start_list_gives_each_block_its_lanes_and_bowlers_in_order() {
    let text = example_text().replacen(
        "name = \"Olga Smirnova\"",
        "name = \"Olga Smirnova\"\nwithdrawn = true",
        1,
    );
    let p = parse(&text).unwrap();
    let list = start_list_text(&p, Some("S2"), false).unwrap();
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(lines[2], "Start list");
    assert_eq!(lines[4], "Block S2 · singles · day 2 · games: 6");
    assert_eq!(lines[5], "  Lane 2");
    assert_eq!(
        lines[6],
        "    1. Anna Kuznetsova              B1  F Moscow · Moscow"
    );
    assert_eq!(
        lines[7],
        "    2. Olga Smirnova                B1  F Kazan · Tatarstan  (withdrawn)"
    );
    assert_eq!(lines[8], "  Lane 3");
    assert!(!list.contains("Block S1"), "{list}");
    // Every block, in Russian.
    let ru = start_list_text(&p, None, true).unwrap();
    assert!(ru.starts_with("Открытый чемпионат Москвы"), "{ru}");
    assert!(
        ru.contains("Блок S1 · singles · день 1 · игр: 6\n  Дорожка 1\n"),
        "{ru}"
    );
    assert!(
        ru.contains("Olga Smirnova                B1  Ж Kazan · Tatarstan  (снят)"),
        "{ru}"
    );
    assert!(ru.contains("Блок D1"), "{ru}");
    assert_eq!(start_list_text(&p, Some("S9"), false), None);
}

//! The centre's programme, standings, finals and results protocol
//! (docs/programme.md). Every expected rank and total below is worked out
//! by hand in the comment above it.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use lanecall::centre::programme::{LineupError, Programme, ProgrammeError};
use lanecall::centre::standings::{
    BowledGame, Standing, Standings, bowled_games, protocol_csv, protocol_text,
    round_robin_schedule, standings,
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

/// The category's lines as (rank, name, total).
fn ranks(s: &Standings, category: &str) -> Vec<(u32, String, u32)> {
    let c = s.categories.iter().find(|c| c.id == category).unwrap();
    c.entries
        .iter()
        .map(|e| (e.rank, e.name.clone(), e.total))
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
        let action = Action::Lineup { bowlers };
        l.handle(0, &Event::Panel(Panel { by: None, action }), &mut out);
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
    let text = example_text();
    assert!(text.contains(from), "{from}");
    let at = text.find(from).unwrap();
    let bad = text.replacen(from, to, 1);
    let line = bad[..at].matches('\n').count() + 1;
    let Err(ProgrammeError::Invalid { problems, path }) = parse(&bad) else {
        panic!("{to}: accepted");
    };
    assert_eq!(path, Path::new("prog.toml"));
    let found = problems
        .iter()
        .find(|p| p.key == key)
        .unwrap_or_else(|| panic!("no problem at {key}: {problems:?}"));
    assert!(found.message.contains(message), "{found}");
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
    refused(
        "category = \"B1\"",
        "category = \"B3\"",
        "finals[1].category",
        "no category \"B3\"; the entries make B1, B2",
    );
    refused(
        "round_robin = \"RR-B1\"",
        "round_robin = \"S1\"",
        "finals[1].round_robin",
        "block \"S1\" has 6 games; it needs 3",
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

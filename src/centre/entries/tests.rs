use std::collections::BTreeSet;
use std::path::PathBuf;

use super::csv::{MAX_CSV, parse, write};
use super::*;

const EXAMPLE: &str = include_str!("../../../tests/programme/example.toml");

/// A folder with the example programme and an empty state folder.
fn folder(name: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("lanecall-entries-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("state")).unwrap();
    let programme = dir.join("programme.toml");
    std::fs::write(&programme, EXAMPLE).unwrap();
    (programme, dir.join("state"))
}

fn names(e: &Entries) -> Vec<String> {
    e.programme()
        .entries
        .iter()
        .map(|e| e.name.clone())
        .collect()
}

fn issues(text: &[u8]) -> Vec<String> {
    parse(text)
        .unwrap_err()
        .iter()
        .map(Issue::to_string)
        .collect()
}

#[test]
fn a_good_file_is_read_with_every_column() {
    let text = "name,class,sex,region,team,handicap,withdrawn\r\n\
                Anna Kuznetsova,B1,F,Moscow,Moscow,,\r\n\
                Sergei Volkov,b2,m,Tula,,8,yes\r\n";
    let p = parse(text.as_bytes()).unwrap();
    assert_eq!(p.entries.len(), 2);
    let (a, s) = (&p.entries[0], &p.entries[1]);
    assert_eq!(
        (a.name.as_str(), a.class, a.sex, a.team.as_deref()),
        ("Anna Kuznetsova", Class::B1, Sex::F, Some("Moscow"))
    );
    assert_eq!(
        (s.class, s.sex, s.handicap, s.team.as_deref()),
        (Class::B2, Sex::M, 8, None)
    );
    assert!(s.withdrawn && !a.withdrawn);
    assert_eq!(p.rows, [2, 3]);
}

#[test]
fn a_byte_order_mark_and_semicolons_are_as_spreadsheets_write_them() {
    let text = "\u{FEFF}Name;Class;Sex;Region\nИван Петров;B1;М;Москва\n;;;\n";
    let p = parse(text.as_bytes()).unwrap();
    assert_eq!(p.entries.len(), 1, "the blank row is skipped");
    assert_eq!(p.entries[0].name, "Иван Петров");
    assert_eq!(p.entries[0].sex, Sex::M);
    assert_eq!(p.entries[0].region, "Москва");
}

#[test]
fn quoted_values_hold_separators_quotes_and_line_breaks() {
    let text = "name,class,sex,region,team\n\
                \"Orlov, Dmitri\",B1,M,\"Kazan \"\"Ak Bars\"\"\",\"Two, \"\"lines\"\"\"\n\
                Olga,B3,F,Tula,\n";
    let p = parse(text.as_bytes()).unwrap();
    assert_eq!(p.entries[0].name, "Orlov, Dmitri");
    assert_eq!(p.entries[0].region, "Kazan \"Ak Bars\"");
    assert_eq!(p.entries[0].team.as_deref(), Some("Two, \"lines\""));
    assert_eq!(p.rows, [2, 3]);
    // A quoted line break is read whole and does not count as a row; a
    // team holding it is refused by the rule for names, as a region that
    // turns the text around is.
    let broken = "name,class,sex,region,team\n\
                  Orlov,B1,M,Kazan,\"Two\nlines\"\n\
                  Olga,B3,F,Tula\u{202E},\n";
    assert_eq!(
        issues(broken.as_bytes()),
        [
            "row 2, column 5 (team): the team's name holds a control character (U+000A)",
            "row 3, column 4 (region): the region holds an invisible formatting character \
             (U+202E): type it with letters, digits, spaces and punctuation only"
        ]
    );
    // Written and read back: the same entries.
    let again = parse(write(&p.entries).as_bytes()).unwrap();
    assert_eq!(again.entries, p.entries);
}

#[test]
fn every_problem_is_named_by_its_row_and_column() {
    let text = "name;class;sex;region;handicap\n\
                Anna;B4;F;Moscow;0\n\
                Ivan;B1;X;Moscow;ten\n\
                Olga;B1;F;Kazan;0;extra\n";
    assert_eq!(
        issues(text.as_bytes()),
        [
            "row 2, column 2 (class): \"B4\" is not a class: B1, B2 or B3",
            "row 3, column 3 (sex): \"X\" is not M or F",
            "row 3, column 5 (handicap): \"ten\" is not a whole number of pins",
            "row 4, column 6: \"extra\" is beyond the last column",
        ]
    );
    let e = issues(b"name,class,sex,regoin\nA,B1,F,X\n");
    assert!(
        e[0].starts_with("row 1, column 4: \"regoin\" is not a column"),
        "{e:?}"
    );
    assert!(
        e.iter()
            .any(|m| m.starts_with("row 1, region: there is no column")),
        "{e:?}"
    );
    let e = issues(b"name,class,sex,region\n\"Anna,B1,F,X\n");
    assert_eq!(e, ["row 2, column 1: a quote opened here is never closed"]);
    let e = issues(b"name,class,sex,region\nAn\"na,B1,F,X\n");
    assert!(
        e[0].starts_with("row 2, column 1: a quote inside a value"),
        "{e:?}"
    );
    let e = issues(b"name,class,sex,region\nA,B1,F,X\nB,B1,F,\xff\n");
    assert_eq!(e, ["row 3: not UTF-8 text: save the file as \"CSV UTF-8\""]);
    assert!(issues(b"")[0].contains("the file is empty"));
    let big = vec![b'a'; MAX_CSV + 1];
    assert!(issues(&big)[0].contains("at most 1048576"));
}

#[test]
fn an_import_with_one_bad_row_changes_nothing() {
    let (programme, state) = folder("bad-row");
    let mut e = Entries::load(&programme, &state).unwrap();
    let before = names(&e);
    let mut csv = write(&e.programme().entries);
    // A seventh bowler with a handicap the programme refuses, and a name
    // entered twice: both found as the file is read.
    csv += "New Bowler,B3,M,Tver,,400,\r\nYulia Frolova,B2,F,Tula,,,\r\n";
    let said: Vec<String> = parse(csv.as_bytes())
        .unwrap_err()
        .iter()
        .map(Issue::to_string)
        .collect();
    assert_eq!(
        said,
        [
            "row 8, column 6 (handicap): 400 is not a handicap (0 to 300 pins a game)",
            "row 9, column 1 (name): \"Yulia Frolova\" is entered twice: on row 7 too",
        ]
    );
    // The same entries given whole: the programme's checks refuse them.
    let mut parsed = parse(write(&e.programme().entries).as_bytes()).unwrap();
    let twice = e.programme().entry("Yulia Frolova").unwrap().clone();
    let mut new = twice.clone();
    new.name = "New Bowler".into();
    new.class = crate::lane::Class::B3;
    new.handicap = 400;
    parsed.entries.extend([new, twice]);
    parsed.rows.extend([8, 9]);
    let r = e
        .apply(
            Change::Import(parsed.entries.clone()),
            &BTreeSet::new(),
            "Irina Orlova",
        )
        .unwrap_err();
    let placed: Vec<String> = r
        .problems
        .into_iter()
        .map(|i| parsed.place(i).to_string())
        .collect();
    assert_eq!(
        placed,
        [
            "row 8, column 6 (handicap): 400 is not a handicap (0 to 300 pins a game)",
            "row 9, column 1 (name): \"Yulia Frolova\" is entered twice",
        ]
    );
    assert_eq!(names(&e), before);
    assert!(!state.join(FILE).exists(), "nothing written");
    assert!(!state.join(CHANGES).exists(), "nothing recorded");
    let again = Entries::load(&programme, &state).unwrap();
    assert_eq!(names(&again), before);
}

#[test]
fn changes_are_kept_and_recorded_with_who_made_them() {
    let (programme, state) = folder("kept");
    let mut e = Entries::load(&programme, &state).unwrap();
    let nobody = BTreeSet::new();
    let mut new = e.programme().entries[4].clone();
    new.name = "Pavel Gusev".into();
    e.apply(Change::Add(new.clone()), &nobody, "Pavel Sokolov")
        .unwrap();
    new.handicap = 12;
    let edit = Change::Edit {
        name: "Pavel Gusev".into(),
        entry: new,
    };
    e.apply(edit, &nobody, "Irina Orlova").unwrap();
    let withdraw = Change::Withdraw {
        name: "Sergei Volkov".into(),
        withdrawn: true,
    };
    e.apply(withdraw, &nobody, "Irina Orlova").unwrap();
    // Read again, as a centre started again reads them.
    let again = Entries::load(&programme, &state).unwrap();
    let p = again.programme();
    assert_eq!(p.entry("Pavel Gusev").unwrap().handicap, 12);
    assert!(p.entry("Sergei Volkov").unwrap().withdrawn);
    // S1 lane 3 is Sergei Volkov and Yulia Frolova: only she is sent.
    let lineups = p.lineups("S1").unwrap();
    let lane3: Vec<&str> = lineups[2].1.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(lane3, ["Yulia Frolova"]);
    let log = std::fs::read_to_string(state.join(CHANGES)).unwrap();
    let by: Vec<(String, String)> = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| {
            (
                v["change"].as_str().unwrap().into(),
                v["by"].as_str().unwrap().into(),
            )
        })
        .collect();
    let by: Vec<(&str, &str)> = by.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    assert_eq!(
        by,
        [
            ("add", "Pavel Sokolov"),
            ("edit", "Irina Orlova"),
            ("withdraw", "Irina Orlova")
        ]
    );
    assert_eq!(again.json()["changes"][0]["change"], "withdraw");
    // The programme file itself is as it was written.
    assert_eq!(std::fs::read_to_string(&programme).unwrap(), EXAMPLE);
}

#[test]
fn an_entry_in_use_is_withdrawn_not_deleted() {
    let (programme, state) = folder("in-use");
    let mut e = Entries::load(&programme, &state).unwrap();
    let nobody = BTreeSet::new();
    let delete = |n: &str| Change::Delete { name: n.into() };
    let r = e.apply(delete("Ivan Petrov"), &nobody, "x").unwrap_err();
    assert_eq!(r.status, 409);
    assert!(
        r.text().contains("is on lane 2 of block \"S1\""),
        "{}",
        r.text()
    );
    // A B2 bowler: a B1 one would need another round robin game.
    let mut new = e.programme().entries[4].clone();
    new.name = "Guest".into();
    e.apply(Change::Add(new), &nobody, "x").unwrap();
    let bowled: BTreeSet<String> = ["Guest".to_owned()].into();
    let r = e.apply(delete("Guest"), &bowled, "x").unwrap_err();
    assert!(
        r.text().contains("\"Guest\" has bowled: withdraw"),
        "{}",
        r.text()
    );
    e.apply(delete("Guest"), &nobody, "x").unwrap();
    assert!(e.programme().entry("Guest").is_none());
    let r = e.apply(delete("Nobody"), &nobody, "x").unwrap_err();
    assert_eq!(r.status, 404);
}

#[test]
fn a_file_left_from_another_programme_is_refused() {
    let (programme, state) = folder("other");
    std::fs::write(
        state.join(FILE),
        "programme_title = \"Last year\"\n[[entry]]\nname = \"A\"\nclass = \"B1\"\nsex = \"M\"\nregion = \"R\"\n",
    )
    .unwrap();
    let e = Entries::load(&programme, &state).err().unwrap().to_string();
    assert!(e.contains("written for the programme \"Last year\""), "{e}");
}

#[test]
fn at_most_a_thousand_entries() {
    let (programme, state) = folder("limit");
    let mut e = Entries::load(&programme, &state).unwrap();
    let mut list = e.programme().entries.clone();
    let template = list[4].clone();
    for i in list.len()..=MAX_ENTRIES {
        let mut b = template.clone();
        b.name = format!("Bowler {i}");
        list.push(b);
    }
    assert_eq!(list.len(), MAX_ENTRIES + 1);
    let r = e
        .apply(Change::Import(list.clone()), &BTreeSet::new(), "x")
        .unwrap_err();
    assert_eq!(r.text(), "1001 entries: at most 1000");
    list.pop();
    e.apply(Change::Import(list), &BTreeSet::new(), "x")
        .unwrap();
    let mut one_more = template;
    one_more.name = "One more".into();
    let r = e
        .apply(Change::Add(one_more), &BTreeSet::new(), "x")
        .unwrap_err();
    assert!(r.text().contains("no more fit"), "{}", r.text());
    assert_eq!(e.programme().entries.len(), MAX_ENTRIES);
}

/// The names a person types follow one rule (the core's `names`), on the
/// page as in a file: a region with a right-to-left override or ESC, or
/// 60,000 characters long, and a name or a team likewise, are refused and
/// nothing changes.
#[test]
fn an_entrys_name_region_and_team_follow_the_one_rule_for_names() {
    let (programme, state) = folder("text");
    let mut e = Entries::load(&programme, &state).unwrap();
    let before = names(&e);
    let entry = |name: &str, region: &str, team: Option<&str>| {
        let fields = [
            ("name", name.to_owned()),
            ("class", "B2".to_owned()),
            ("sex", "F".to_owned()),
            ("region", region.to_owned()),
        ];
        entry_from(|k| {
            fields
                .iter()
                .find(|(f, _)| *f == k)
                .map(|(_, v)| v.clone())
                .or_else(|| (k == "team").then(|| team.map(str::to_owned)).flatten())
        })
    };
    let long = "x".repeat(60_000);
    for (name, region, team, field) in [
        ("Anna", "Kazan\u{202E}", None, "region"),
        ("Anna", "Kazan\u{1b}[31m", None, "region"),
        ("Anna", long.as_str(), None, "region"),
        ("An\u{200B}na", "Kazan", None, "name"),
        ("centre: Anna", "Kazan", None, "name"),
        ("Anna", "Kazan", Some("Team\u{2067}"), "team"),
    ] {
        let bad = entry(name, region, team).unwrap_err();
        assert_eq!(
            bad.iter().map(|(f, _)| *f).collect::<Vec<_>>(),
            [field],
            "{name:.20?} {region:.20?}: {bad:?}"
        );
    }
    assert_eq!(
        entry("Anna", &"x".repeat(65), None).unwrap_err()[0].1,
        "the region is longer than 64 characters"
    );
    // The same through a change made otherwise than from fields: refused,
    // placed at its entry, nothing written.
    let mut good = entry("Anna Sokolova", "Kazan", None).unwrap();
    good.region = "Ka\u{202E}zan".into();
    let r = e
        .apply(Change::Add(good), &BTreeSet::new(), "Judge Orlova")
        .unwrap_err();
    assert_eq!(r.status, 400);
    assert_eq!(r.problems[0].field.as_deref(), Some("region"));
    assert_eq!(names(&e), before);
    // A region may be empty; 64 characters of any script are taken.
    let ok = entry("Anna Sokolova", &"я".repeat(64), Some("Kazan")).unwrap();
    e.apply(Change::Add(ok), &BTreeSet::new(), "Judge Orlova")
        .unwrap();
    assert!(entry("Anna", "", None).is_ok());
}

/// A late entry during the qualifying: its category's round robin grows
/// (docs/programme.md, "Finals sized from the entries"), it is never
/// refused for it; a 13th bowler of a class whose finals are combined is
/// refused with the finals named.
#[test]
fn a_late_entry_resizes_the_round_robin_and_a_thirteenth_names_the_finals() {
    let (programme, state) = folder("late");
    let mut e = Entries::load(&programme, &state).unwrap();
    assert_eq!(e.programme().block("RR-B1").unwrap().games, 3);
    let bowled: BTreeSet<String> = ["Anna Kuznetsova", "Ivan Petrov"].map(String::from).into();
    let mut late = e.programme().entries[2].clone();
    late.name = "Late Bowler 1".into();
    e.apply(Change::Add(late.clone()), &bowled, "Pavel Sokolov")
        .unwrap();
    assert_eq!(e.programme().block("RR-B1").unwrap().games, 5);
    let again = Entries::load(&programme, &state).unwrap();
    assert_eq!(again.programme().block("RR-B1").unwrap().games, 5);
    assert_eq!(again.programme().lineups("S1").unwrap().len(), 3);
    for i in 2..=8 {
        late.name = format!("Late Bowler {i}");
        e.apply(Change::Add(late.clone()), &bowled, "Pavel Sokolov")
            .unwrap();
    }
    assert_eq!(e.programme().block("RR-B1").unwrap().games, 7);
    late.name = "Late Bowler 9".into();
    let r = e
        .apply(Change::Add(late), &bowled, "Pavel Sokolov")
        .unwrap_err();
    assert_eq!(r.status, 400);
    assert!(
        r.text()
            .contains("finals[1].category: there is no category \"B1\": class B1 has 13"),
        "{}",
        r.text()
    );
    assert_eq!(e.programme().entries.len(), 14);
}

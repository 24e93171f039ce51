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
    assert_eq!(
        entry(&c.get("/api/entries"), "Nina Guseva").unwrap()["handicap"],
        15
    );
}

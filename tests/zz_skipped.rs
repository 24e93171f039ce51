//! The skipped tests, listed once at the end of a `cargo test` (cargo
//! runs the test programs in the order of their names: this one comes
//! last). A test skips when the machine lacks a tool it cannot fetch
//! itself and neither CI nor `LANECALL_REQUIRE_ALL=1` asks for every test
//! (tests/support/needs.rs).

#[allow(dead_code)]
#[path = "support/needs.rs"]
mod needs;

use std::collections::BTreeSet;
use std::io::Write;

/// Each skipped test with what it lacked, and the Debian packages that
/// would run them: from the records the skips left.
fn skips() -> (Vec<String>, BTreeSet<String>, BTreeSet<String>) {
    let mut lines = Vec::new();
    let mut packages = BTreeSet::new();
    let mut other = BTreeSet::new();
    let Ok(dir) = std::fs::read_dir(needs::skips_dir()) else {
        return (lines, packages, other);
    };
    for entry in dir.flatten() {
        let test = entry.file_name().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        let (what, how) = text.trim_end().split_once('\t').unwrap_or((&text, ""));
        lines.push(format!("  {test}: no {what}"));
        match how.strip_prefix("apt-get install ") {
            Some(list) => packages.extend(
                list.split(|c: char| c == ',' || c.is_whitespace())
                    .take_while(|w| !w.is_empty())
                    .map(str::to_owned),
            ),
            None => {
                other.insert(how.to_owned());
            }
        }
    }
    lines.sort();
    (lines, packages, other)
}

#[test]
fn the_skipped_tests_are_listed_with_what_would_run_them() {
    let (lines, packages, other) = skips();
    if lines.is_empty() {
        return;
    }
    let mut out = format!(
        "\n{} tests skipped for want of a tool (records in {}):\n{}\n",
        lines.len(),
        needs::skips_dir().display(),
        lines.join("\n")
    );
    if !packages.is_empty() {
        let list: Vec<&str> = packages.iter().map(String::as_str).collect();
        out += &format!("to run them: sudo apt-get install {}\n", list.join(" "));
    }
    for how in &other {
        out += &format!("and: {how}\n");
    }
    // Past the harness's capture: the list is seen although the test
    // passes.
    let _ = std::io::stderr().write_all(out.as_bytes());
    assert!(
        !needs::strict(),
        "{out}CI and LANECALL_REQUIRE_ALL=1 run every test: a record above is left from a run \
         without them (delete {} if that test no longer skips)",
        needs::skips_dir().display()
    );
}

//! `lanecall backup DIR`: run as the technician runs it, on a journal
//! folder with a finished journal, one being written (a torn last line),
//! one with damaged lines, and a file the daemon set aside.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::{Command, Output};

use lanecall::journal::Writer;
use lanecall::sim::Scenario;

const GOOD: &str = "lane3-20261130T100000Z-000001.jsonl";
const OPEN: &str = "lane3-20261130T120000Z-000002.jsonl";
const DAMAGED: &str = "lane3-20261129T100000Z-01.jsonl";
const SET_ASIDE: &str = "lane3-20261128T100000Z-01.jsonl.damaged";

fn temp_dir(name: &str) -> crate::support::Scratch {
    crate::support::Scratch::new(&format!("backup-{name}"))
}

/// A simulated block as the daemon writes it (format 2, every line sealed).
fn journal(seed: u64) -> Vec<u8> {
    let scenario = Scenario::demo(seed);
    let mut w = Writer::create(Vec::new(), &scenario.header()).unwrap();
    for e in scenario.run() {
        w.write(&e).unwrap();
    }
    w.into_inner()
}

/// Changes one digit inside line `n` (1-based): its seal no longer fits.
fn damage_line(text: &mut [u8], n: usize) {
    let start = text
        .split(|&b| b == b'\n')
        .take(n - 1)
        .map(|l| l.len() + 1)
        .sum::<usize>();
    // The first digit of `"t":…`, well before the seal.
    let digit = start + text[start..].iter().position(u8::is_ascii_digit).unwrap();
    text[digit] = if text[digit] == b'9' {
        b'0'
    } else {
        text[digit] + 1
    };
}

/// The journal folder: returns the bytes of each file as written.
fn journal_folder(dir: &Path) -> Vec<(&'static str, Vec<u8>)> {
    let good = journal(1);
    let mut open = journal(2);
    // The daemon is in the middle of writing a line.
    open.extend_from_slice(b"{\"t\":999999,\"ev\":\"ba");
    let mut damaged = journal(3);
    damage_line(&mut damaged, 17);
    damage_line(&mut damaged, 40);
    let set_aside = b"\x00\xffnot a journal at all\n{\"t\":1".to_vec();
    let files = vec![
        (GOOD, good),
        (OPEN, open),
        (DAMAGED, damaged),
        (SET_ASIDE, set_aside),
    ];
    for (name, bytes) in &files {
        fs::write(dir.join(name), bytes).unwrap();
    }
    files
}

fn backup(dir: &Path, journals: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lanecall"))
        .arg("backup")
        .arg(dir)
        .arg("--journal-dir")
        .arg(journals)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The line `backup` printed about `name`.
fn line_about<'a>(text: &'a str, name: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(&format!("{name}: ")))
        .unwrap_or_else(|| panic!("no line about {name} in:\n{text}"))
}

/// The whole lines of a journal: up to its last `\n`.
fn whole_lines(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    &bytes[..end]
}

/// Every file in the folder with its bytes and inode, to see that nothing
/// changed.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>, u64)> {
    let mut files: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (
                name,
                fs::read(&path).unwrap(),
                fs::metadata(&path).unwrap().ino(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn copies_whole_lines_names_damaged_lines_and_is_idempotent() {
    let dir = temp_dir("copies");
    let (journals, usb) = (dir.join("journal"), dir.join("usb"));
    fs::create_dir_all(&journals).unwrap();
    fs::create_dir_all(&usb).unwrap();
    let files = journal_folder(&journals);

    let first = backup(&usb, &journals);
    let text = stdout(&first);
    assert_eq!(
        first.status.code(),
        Some(1),
        "a damaged line fails the backup:\n{text}"
    );
    for (name, bytes) in &files {
        let copy = fs::read(usb.join(name)).unwrap();
        if name.ends_with(".jsonl") {
            assert_eq!(copy, whole_lines(bytes), "{name}: whole lines only");
        } else {
            assert_eq!(&copy, bytes, "{name}: evidence is copied as it is");
        }
    }
    let good = line_about(&text, GOOD);
    assert!(
        good.contains("copied") && good.contains("checksums good"),
        "{good}"
    );
    let lines = whole_lines(&files[0].1)
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    assert!(good.contains(&format!(" {lines} lines,")), "{good}");
    let open = line_about(&text, OPEN);
    assert!(open.contains("checksums good"), "{open}");
    assert!(
        open.contains("20 bytes after the last whole line left out"),
        "{open}"
    );
    let damaged = line_about(&text, DAMAGED);
    assert!(
        damaged.contains("2 damaged line(s): line 17, line 40"),
        "{damaged}"
    );
    let set_aside = line_about(&text, SET_ASIDE);
    assert!(
        set_aside.contains("not a journal: kept as evidence"),
        "{set_aside}"
    );
    let names: Vec<String> = snapshot(&usb).into_iter().map(|f| f.0).collect();
    assert_eq!(names.len(), 4, "no temporary file is left: {names:?}");

    // Again: every file is up to date, and nothing in the folder changes.
    let before = snapshot(&usb);
    let second = backup(&usb, &journals);
    let text = stdout(&second);
    for (name, _) in &files {
        assert!(line_about(&text, name).contains("up to date"), "{text}");
    }
    assert_eq!(snapshot(&usb), before, "a second run changes nothing");
    assert_eq!(second.status.code(), Some(1), "the damage is still there");

    // The open journal grows: its copy is extended to the new whole lines.
    let mut grown = files[1].1.clone();
    grown.extend_from_slice(b"ll\"}\n{\"t\":1000000,\"ev\":\"ba");
    fs::write(journals.join(OPEN), &grown).unwrap();
    let third = backup(&usb, &journals);
    let text = stdout(&third);
    assert!(line_about(&text, OPEN).contains("extended"), "{text}");
    assert_eq!(fs::read(usb.join(OPEN)).unwrap(), whole_lines(&grown));
}

#[test]
fn a_different_file_in_the_folder_is_not_overwritten() {
    let dir = temp_dir("conflict");
    let (journals, usb) = (dir.join("journal"), dir.join("usb"));
    fs::create_dir_all(&journals).unwrap();
    fs::create_dir_all(&usb).unwrap();
    let good = journal(1);
    fs::write(journals.join(GOOD), &good).unwrap();
    let other = journal(4);
    fs::write(usb.join(GOOD), &other).unwrap();

    let out = backup(&usb, &journals);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let beside = "lane3-20261130T100000Z-000001.conflict-2.jsonl";
    let line = line_about(&text, GOOD);
    assert!(
        line.contains("different file") && line.contains(beside),
        "{line}"
    );
    assert_eq!(fs::read(usb.join(GOOD)).unwrap(), other, "left as it was");
    assert_eq!(fs::read(usb.join(beside)).unwrap(), good);

    // Running again finds the copy beside it up to date.
    let again = backup(&usb, &journals);
    let text = stdout(&again);
    assert!(line_about(&text, GOOD).contains("up to date"), "{text}");
    assert_eq!(snapshot(&usb).len(), 2);
}

#[test]
fn exit_codes_and_what_the_technician_reads() {
    let dir = temp_dir("codes");
    let (journals, usb) = (dir.join("journal"), dir.join("usb"));
    fs::create_dir_all(&journals).unwrap();

    // The stick is not mounted.
    let out = backup(&usb, &journals);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&*usb.to_string_lossy()), "{err}");
    assert!(err.contains("create it or mount the USB stick"), "{err}");

    // Sound journals of both formats: exit 0.
    fs::create_dir_all(&usb).unwrap();
    fs::write(journals.join(GOOD), journal(1)).unwrap();
    let format1 =
        "{\"journal\":\"lanecall\",\"version\":1,\"lane\":3}\n{\"t\":1,\"ev\":\"ball\"}\n";
    fs::write(journals.join(DAMAGED), format1).unwrap();
    let out = backup(&usb, &journals);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let expected = format!("2 lines, {} bytes, format 1: no checksums", format1.len());
    assert!(line_about(&text, DAMAGED).contains(&expected), "{text}");

    // Many damaged lines: the first ten are named.
    let mut bad = journal(5);
    for n in 20..32 {
        damage_line(&mut bad, n);
    }
    fs::write(journals.join(OPEN), &bad).unwrap();
    let out = backup(&usb, &journals);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let named: Vec<String> = (20..30).map(|n| format!("line {n}")).collect();
    let expected = format!("12 damaged line(s): {}, ...", named.join(", "));
    assert!(line_about(&text, OPEN).contains(&expected), "{text}");
}

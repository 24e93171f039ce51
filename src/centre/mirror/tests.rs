//! The mirror's unit tests.

use super::*;
use crate::centre::MAX_JOURNAL_MESSAGE;

#[test]
fn only_journal_names_become_paths() {
    assert!(valid_file_name("lane7-20261129T140000Z-000012.jsonl"));
    assert!(valid_file_name("lane7-20261129T140000Z-01.jsonl"));
    for bad in [
        "../lane7-20261129T140000Z-000012.jsonl",
        "lane7-20261129T140000Z-000012.jsonl/..",
        "lane7/../x.jsonl",
        "lane7-20261129T140000Z-000012",
        "x.jsonl",
        "",
    ] {
        assert!(!valid_file_name(bad), "{bad}");
    }
}

/// A sync that fails (here `/dev/null`, which takes writes and no
/// sync) puts nothing into the replay, holds the line and shows why;
/// the line written again later is synced and replayed.
fn file<'a>(m: &'a mut Mirror, name: &str) -> &'a mut Option<File> {
    &mut m
        .lanes
        .get_mut(&3)
        .unwrap()
        .files
        .get_mut(name)
        .unwrap()
        .file
}

#[test]
fn a_line_reaches_the_replay_only_once_it_is_synced() {
    let (dir, book, _, mut mirror) = lane_3("sync");
    let name = "lane3-20261129T140000Z-000001.jsonl";
    let journal = include_str!("../../../tests/logs/all_spares.jsonl");
    let lines: Vec<&str> = journal.lines().take(3).collect();
    let send = |mirror: &mut Mirror, n: usize| {
        mirror.handle_now(ToMirror::Line(
            3,
            JournalLine {
                file: name.into(),
                n: n as u64,
                line: lines[n - 1].into(),
            },
        ));
        mirror.sync_now();
    };
    // What the replay of lane 3's file shows, and what the file holds.
    let replayed = |book: &Mutex<Book>| {
        lock(book).lanes[&3].journals[name]
            .replay()
            .map(|r| r.events())
    };
    let path = dir.join("3").join(name);
    let on_disk = || {
        Feed::from_bytes(&fs::read(&path).unwrap())
            .replay()
            .map(|r| r.events())
    };
    send(&mut mirror, 1);
    send(&mut mirror, 2);
    assert_eq!(replayed(&book), on_disk());

    let null = OpenOptions::new().append(true).open("/dev/null").unwrap();
    let real = file(&mut mirror, name).replace(null);
    send(&mut mirror, 3);
    let stats = lock(&book).lanes[&3].mirror.clone();
    assert_eq!((stats.lines, stats.held), (2, 1));
    let failed = stats.failed.expect("the failed sync shows");
    assert_eq!(failed.file, name);
    assert!(
        failed.reason.contains("Invalid argument"),
        "{}",
        failed.reason
    );
    assert_eq!(replayed(&book), on_disk(), "line 3 is not in the replay");
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        lines[..2].join("\n") + "\n"
    );

    // The disk back, line 3 comes again (the resend): written, synced,
    // replayed.
    mirror
        .lanes
        .get_mut(&3)
        .unwrap()
        .files
        .get_mut(name)
        .unwrap()
        .file = real;
    send(&mut mirror, 3);
    let stats = lock(&book).lanes[&3].mirror.clone();
    assert_eq!((stats.lines, stats.held, stats.failed), (3, 0, None));
    assert_eq!(replayed(&book), on_disk());
    assert_eq!(fs::read_to_string(&path).unwrap(), lines.join("\n") + "\n");
    let _ = fs::remove_dir_all(&dir);
}

/// A journal message of `file` line `n` with `line`.
fn message(file: &str, n: u64, line: &str) -> Vec<u8> {
    serde_json::json!({ "file": file, "n": n, "line": line })
        .to_string()
        .into_bytes()
}

#[test]
fn journal_messages_are_checked() {
    let file = "lane7-20261129T140000Z-000012.jsonl";
    let ball = crate::journal::seal(r#"{"t":5120,"ev":"ball"}"#, 2);
    assert_eq!(check_journal(&message(file, 2, &ball), 7).unwrap().n, 2);
    assert_eq!(check_journal(b"nope", 7), Err("journal_not_json"));
    assert_eq!(
        check_journal(&message("../x", 2, &ball), 7),
        Err("journal_file_name")
    );
    assert_eq!(
        check_journal(&message(file, 0, &ball), 7),
        Err("journal_line_number")
    );
    assert_eq!(
        check_journal(&vec![b' '; MAX_JOURNAL_MESSAGE + 1], 7),
        Err("journal_too_large")
    );
}

/// A line is written only when it is provably lane 7's: its file names
/// lane 7, its seal holds and numbers it as the message does, and a
/// header is lane 7's with the file name's `seq`.
#[test]
fn only_lines_proved_to_be_the_lanes_own_pass() {
    use crate::journal::{Header, seal};
    let file = "lane7-20261129T140000Z-000012.jsonl";
    let header = Header::new(7, None, Default::default())
        .with_seq(12)
        .to_line();
    assert_eq!(check_journal(&message(file, 1, &header), 7).unwrap().n, 1);
    let ball = seal(r#"{"t":5120,"ev":"ball"}"#, 2);
    // On another lane's topic, or in a file of another lane.
    assert_eq!(
        check_journal(&message(file, 2, &ball), 8),
        Err("journal_file_lane")
    );
    assert_eq!(
        check_journal(
            &message("lane07-20261129T140000Z-000012.jsonl", 2, &ball),
            7
        ),
        Err("journal_file_lane")
    );
    // A seal that does not hold, no seal (format 1), garbage.
    let forged = ball.replace("5120", "5121");
    assert_eq!(
        check_journal(&message(file, 2, &forged), 7),
        Err("journal_seal")
    );
    assert_eq!(
        check_journal(&message(file, 2, r#"{"t":5120,"ev":"ball"}"#), 7),
        Err("journal_seal")
    );
    assert_eq!(
        check_journal(&message(file, 2, "garbage"), 7),
        Err("journal_seal")
    );
    // A sealed line sent as another line number.
    assert_eq!(
        check_journal(&message(file, 3, &ball), 7),
        Err("journal_seal_number")
    );
    // Line 1 must be a header of this lane and of the name's seq.
    assert_eq!(
        check_journal(&message(file, 1, &seal(r#"{"t":1,"ev":"ball"}"#, 1)), 7),
        Err("journal_header")
    );
    let lane_5 = Header::new(5, None, Default::default())
        .with_seq(12)
        .to_line();
    assert_eq!(
        check_journal(&message(file, 1, &lane_5), 7),
        Err("journal_header_lane")
    );
    // A header under a name that is not its `seq`'s passes here: the
    // mirror refuses it, where it can tell a copy (and alarm).
    let seq_3 = Header::new(7, None, Default::default())
        .with_seq(3)
        .to_line();
    assert_eq!(check_journal(&message(file, 1, &seq_3), 7).unwrap().n, 1);
}

/// What a mirror asked for: lane, file, from, to.
type Asked = Arc<Mutex<Vec<(u32, Option<String>, u64, Option<u64>)>>>;

/// A fresh mirror in a temporary folder, lane 3 known, and what it asks.
fn lane_3(name: &str) -> (PathBuf, Arc<Mutex<Book>>, Asked, Mirror) {
    let dir = std::env::temp_dir().join(format!("lanecall-mirror-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let book = Arc::new(Mutex::new(Book::default()));
    lock(&book).lane(3);
    let asked = Asked::default();
    let log = Arc::clone(&asked);
    let resend: Resend = Box::new(move |n, file, from, to| {
        log.lock()
            .unwrap()
            .push((n, file.map(str::to_owned), from, to));
    });
    let mirror = Mirror::load(dir.clone(), Arc::clone(&book), resend).unwrap();
    (dir, book, asked, mirror)
}

/// A lane whose state and lines the broker skipped (a flood) is asked on
/// `online` for its current journals, again after each RESEND_AGAIN
/// while no state comes, at most UNSURE_ASKS times; once its state comes
/// it is asked for what follows in the file the state names.
#[test]
fn a_lane_without_state_is_asked_until_its_state_comes() {
    let (dir, book, asked, mut mirror) = lane_3("unsure");
    mirror.handle_now(ToMirror::Online(3));
    let start = Instant::now();
    let check = |mirror: &mut Mirror, at: Instant| {
        mirror.check(&lock(&book), at);
        std::mem::take(&mut *asked.lock().unwrap())
    };
    assert_eq!(check(&mut mirror, start), [], "not asked at once");
    let mut at = start + QUIET;
    for _ in 0..check::UNSURE_ASKS {
        assert_eq!(check(&mut mirror, at), [(3, None, 1, None)]);
        assert_eq!(
            check(&mut mirror, at + CHECK_EVERY),
            [],
            "not before RESEND_AGAIN"
        );
        at += RESEND_AGAIN;
    }
    assert_eq!(
        check(&mut mirror, at),
        [],
        "bounded: the state a minute later asks"
    );

    // Its state comes: the file it names, from the first line missing.
    let name = "lane3-20261129T140000Z-000001.jsonl";
    let state = format!(r#"{{"journal":{{"file":"{name}","lines":12}}}}"#);
    lock(&book).lanes.get_mut(&3).unwrap().state =
        Some(super::super::book::LaneState::parse(state.as_bytes()).unwrap());
    at += RESEND_AGAIN;
    assert_eq!(
        check(&mut mirror, at),
        [(3, None, 1, None)],
        "no line yet: all of it"
    );
    mirror.handle_now(ToMirror::Line(
        3,
        JournalLine {
            file: name.into(),
            n: 1,
            line: include_str!("../../../tests/logs/all_spares.jsonl")
                .lines()
                .next()
                .unwrap()
                .into(),
        },
    ));
    mirror.sync_now();
    at += RESEND_AGAIN;
    assert_eq!(
        check(&mut mirror, at),
        [(3, Some(name.to_owned()), 2, None)]
    );
    let _ = fs::remove_dir_all(&dir);
}

/// A gap is asked for up to the line before the first held one; once it
/// is filled, the next gap at once; after a line was dropped (more than
/// MAX_HELD held), all that follows.
#[test]
fn a_gap_is_asked_for_to_its_end_and_the_next_one_at_once() {
    let (dir, book, asked, mut mirror) = lane_3("gaps");
    let name = "lane3-20261129T140000Z-000001.jsonl";
    let send = |mirror: &mut Mirror, n: u64| {
        mirror.handle_now(ToMirror::Line(
            3,
            JournalLine {
                file: name.into(),
                n,
                line: format!("{{\"line\":{n}}}"),
            },
        ));
        mirror.sync_now();
        mirror.tick_now();
        let asked = std::mem::take(&mut *asked.lock().unwrap());
        asked
            .into_iter()
            .map(|(_, file, from, to)| {
                assert_eq!(file.as_deref(), Some(name));
                (from, to)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(send(&mut mirror, 1), []);
    assert_eq!(send(&mut mirror, 4), [(2, Some(3))]);
    assert_eq!(send(&mut mirror, 7), [], "asked already");
    assert_eq!(send(&mut mirror, 2), []);
    assert_eq!(send(&mut mirror, 3), [(5, Some(6))], "the next gap at once");
    assert_eq!(send(&mut mirror, 5), []);
    assert_eq!(send(&mut mirror, 6), [], "no gap left");

    // More held than MAX_HELD: the last is dropped, and the ask once the
    // gap is filled is for all that follows.
    let first = 9;
    assert_eq!(send(&mut mirror, first), [(8, Some(8))]);
    for n in first + 1..first + MAX_HELD as u64 {
        assert_eq!(send(&mut mirror, n), []);
    }
    let dropped = first + MAX_HELD as u64;
    assert_eq!(send(&mut mirror, dropped), []);
    assert_eq!(lock(&book).lanes[&3].mirror.dropped, 1);
    assert_eq!(send(&mut mirror, 8), [(dropped, None)]);
    let _ = fs::remove_dir_all(&dir);
}

/// A line that comes again with other text stops its file where it is
/// (what follows could be either journal's), raises an alarm and asks the
/// lane for that line; a second journal with a `seq` the lane has used is
/// a second history: an alarm, and never mirrored.
#[test]
fn a_conflict_stops_the_file_and_a_second_history_is_never_spliced() {
    let (dir, book, asked, mut mirror) = lane_3("conflict");
    let name = "lane3-20261129T140000Z-000001.jsonl";
    let send = |mirror: &mut Mirror, file: &str, n: u64, line: &str| {
        mirror.handle_now(ToMirror::Line(
            3,
            JournalLine {
                file: file.into(),
                n,
                line: line.into(),
            },
        ));
        mirror.sync_now();
    };
    let header = |started: &str| {
        crate::journal::Header::new(3, Some(started.into()), Default::default())
            .with_seq(1)
            .to_line()
    };
    let one = header("2026-11-29T14:00:00Z");
    send(&mut mirror, name, 1, &one);
    send(&mut mirror, name, 2, "two");
    send(&mut mirror, name, 2, "other two");
    send(&mut mirror, name, 3, "three");
    assert_eq!(
        fs::read_to_string(dir.join("3").join(name)).unwrap(),
        format!("{one}\ntwo\n")
    );
    {
        let book = lock(&book);
        assert_eq!(book.lanes[&3].mirror.conflicts, 1);
        assert_eq!(book.refused["journal_file_in_conflict"], 1);
        assert_eq!(book.alarms[0].kind, "conflict");
        assert!(
            book.alarms[0].detail.contains("stops at line 2"),
            "{:?}",
            book.alarms
        );
    }
    assert_eq!(
        asked.lock().unwrap().as_slice(),
        [(3, Some(name.to_owned()), 2, Some(2))]
    );
    // Another journal with seq 1: never mirrored, and an alarm.
    let other = "lane3-20261129T150000Z-000001.jsonl";
    send(&mut mirror, other, 1, &header("2026-11-29T15:00:00Z"));
    send(&mut mirror, other, 2, "TWO");
    assert!(!dir.join("3").join(other).exists());
    let book = lock(&book);
    assert_eq!(book.alarms[1].kind, "duplicate_lane");
    assert!(book.alarms[1].detail.contains("two journals with seq 1"));
    assert_eq!(book.refused["journal_seq_again"], 1);
    assert_eq!(book.refused["journal_file_refused"], 1);
    assert!(!book.lanes[&3].journals.contains_key(other));
    drop(book);
    let _ = fs::remove_dir_all(&dir);
}

/// A lane whose state says it has lines the mirror lacks, but none of
/// whose lines has come yet (they may be on the way, behind other lanes'
/// at a busy start), is asked only QUIET after the mirror first saw it:
/// asking at once would bring every line twice.
#[test]
fn a_lane_never_heard_is_asked_only_after_quiet() {
    let (dir, book, asked, mut mirror) = lane_3("never-heard");
    let name = "lane3-20261129T140000Z-000001.jsonl";
    let state = format!(r#"{{"journal":{{"file":"{name}","lines":12}}}}"#);
    lock(&book).lanes.get_mut(&3).unwrap().state =
        Some(super::super::book::LaneState::parse(state.as_bytes()).unwrap());
    let start = Instant::now();
    let check = |mirror: &mut Mirror, at: Instant| {
        mirror.check(&lock(&book), at);
        std::mem::take(&mut *asked.lock().unwrap())
    };
    assert_eq!(check(&mut mirror, start), [], "not asked at once");
    assert_eq!(check(&mut mirror, start + QUIET - CHECK_EVERY), []);
    assert_eq!(check(&mut mirror, start + QUIET), [(3, None, 1, None)]);
    let _ = fs::remove_dir_all(&dir);
}

/// Lane 3's format 2 journal: its header (`seq`, started at `started`)
/// and a ball.
fn journal_3(seq: u64, started: &str) -> [String; 2] {
    let header = crate::journal::Header::new(3, Some(started.into()), Default::default())
        .with_seq(seq)
        .to_line();
    [header, crate::journal::seal(r#"{"t":5120,"ev":"ball"}"#, 2)]
}

/// Sends lines `lines` of `file`, line 2 first (held until line 1 comes)
/// and line 2 again, and syncs.
fn send_journal(mirror: &mut Mirror, file: &str, lines: &[String]) {
    for n in [2, 1, 2] {
        mirror.handle_now(ToMirror::Line(
            3,
            JournalLine {
                file: file.into(),
                n,
                line: lines[n as usize - 1].clone(),
            },
        ));
    }
    mirror.sync_now();
}

/// A journal is known by its header, never by its name alone: the lane's
/// own journal sent again under every other name a lane could give it is
/// refused (its held lines too) and alarmed, never mirrored nor replayed;
/// a header under a name without its `seq` is refused; a journal new by
/// its header is taken, under a name a copy was refused under too.
#[test]
fn a_journal_is_known_by_its_header_and_a_copy_never_counts() {
    let (dir, book, _, mut mirror) = lane_3("copies");
    let s1 = journal_3(1, "2026-11-29T11:00:00Z");
    let name = "lane3-20261129T110000Z-000001.jsonl";
    send_journal(&mut mirror, name, &s1);
    let copies = [
        "lane3-20261129T110000Z-01.jsonl",
        "lane3-20261129T120000Z-000001.jsonl",
        "lane3-20261129T110000Z-000002.jsonl",
        "lane3-20261130T090000Z-0000001.jsonl",
    ];
    for copy in copies {
        send_journal(&mut mirror, copy, &s1);
        assert!(!dir.join("3").join(copy).exists(), "{copy} written");
    }
    {
        let book = lock(&book);
        let lane = &book.lanes[&3];
        assert_eq!(lane.journals.keys().collect::<Vec<_>>(), [name]);
        assert_eq!(
            (lane.mirror.files, lane.mirror.lines, lane.mirror.held),
            (1, 2, 0)
        );
        assert_eq!(book.refused["journal_copy"], 4);
        assert_eq!(book.refused["journal_file_refused"], 4);
        let alarm = book.alarms.iter().find(|a| a.kind == "journal_copy");
        let detail = &alarm.expect("a journal_copy alarm").detail;
        assert!(
            detail.contains(name) && detail.contains("seq 1"),
            "{detail}"
        );
    }

    // A format 2 header whose `seq` its name does not carry: refused.
    let s4 = journal_3(4, "2026-11-29T16:00:00Z");
    send_journal(&mut mirror, "lane3-20261129T160000Z-01.jsonl", &s4);
    send_journal(&mut mirror, "lane3-20261129T160000Z-000005.jsonl", &s4);
    assert_eq!(lock(&book).refused["journal_header_seq"], 2);

    // New journals are taken: the next `seq`, and the lane's own journal
    // under a name a copy took first.
    let s2 = journal_3(2, "2026-11-29T13:00:00Z");
    let name2 = "lane3-20261129T130000Z-000002.jsonl";
    send_journal(&mut mirror, name2, &s2);
    let taken = "lane3-20261129T180000Z-000003.jsonl";
    send_journal(&mut mirror, taken, &s1);
    send_journal(&mut mirror, taken, &journal_3(3, "2026-11-29T18:00:00Z"));
    let book = lock(&book);
    let lane = &book.lanes[&3];
    assert_eq!(
        lane.journals_in_order()
            .iter()
            .map(|(name, f)| (*name, f.seq()))
            .collect::<Vec<_>>(),
        [(name, 1), (name2, 2), (taken, 3)]
    );
    assert_eq!((lane.mirror.files, lane.mirror.lines), (3, 6));
    drop(book);
    let _ = fs::remove_dir_all(&dir);
}

/// Journals without a `seq` in their header (format 1, and the format 2
/// headers of lanes the tests start from a journal of their own) are
/// known by their header's bytes: each new one is taken, under any name
/// without a `seq`; one sent again is a copy.
#[test]
fn journals_without_a_seq_are_known_by_their_header() {
    let (dir, book, _, mut mirror) = lane_3("no-seq");
    let a = journal_3(0, "2026-01-01T00:00:00Z");
    let b = journal_3(0, "2026-01-01T00:05:00Z");
    send_journal(&mut mirror, "lane3-20260101T000000Z-01.jsonl", &a);
    send_journal(&mut mirror, "lane3-20260101T000500Z-01.jsonl", &b);
    send_journal(&mut mirror, "lane3-20260101T000000Z-02.jsonl", &a);
    let book = lock(&book);
    assert_eq!(book.lanes[&3].mirror.files, 2);
    assert_eq!(book.refused["journal_copy"], 1);
    drop(book);
    let _ = fs::remove_dir_all(&dir);
}

/// A mirror read back at start weighs its files as their lines were
/// weighed: copies an older centre took are kept on the disk but not
/// replayed (an alarm), the journal under its own name is; a format 1
/// journal under a name of its time is read back as before.
#[test]
fn copies_on_the_disk_are_not_replayed_after_a_restart() {
    let dir = std::env::temp_dir().join(format!("lanecall-mirror-reload-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("3")).unwrap();
    let s1 = journal_3(1, "2026-11-29T11:00:00Z").join("\n") + "\n";
    let name = "lane3-20261129T110000Z-000001.jsonl";
    let copies = [
        "lane3-20261129T110000Z-01.jsonl",
        "lane3-20261129T120000Z-000001.jsonl",
    ];
    for file in [name].iter().chain(&copies) {
        fs::write(dir.join("3").join(file), &s1).unwrap();
    }
    let old = "lane3-20261129T100000Z-01.jsonl";
    let format_1 = include_str!("../../../tests/logs/all_spares.jsonl");
    fs::write(dir.join("3").join(old), format_1).unwrap();
    let book = Arc::new(Mutex::new(Book::default()));
    lock(&book).lane(3);
    let resend: Resend = Box::new(|_, _, _, _| {});
    let mut mirror = Mirror::load(dir.clone(), Arc::clone(&book), resend).unwrap();
    {
        let book = lock(&book);
        let lane = &book.lanes[&3];
        let mut replayed: Vec<&str> = lane.journals.keys().map(String::as_str).collect();
        replayed.sort();
        assert_eq!(replayed, [old, name]);
        assert!(lane.journals[old].replay().is_some());
        assert_eq!(lane.mirror.files, 2);
        assert!(book.alarms.iter().any(|a| a.kind == "journal_copy"));
    }
    for file in copies {
        assert_eq!(fs::read_to_string(dir.join("3").join(file)).unwrap(), s1);
    }
    // A line of a copy that comes again is refused.
    mirror.handle_now(ToMirror::Line(
        3,
        JournalLine {
            file: copies[0].into(),
            n: 3,
            line: "three".into(),
        },
    ));
    assert_eq!(lock(&book).refused["journal_file_refused"], 1);
    let _ = fs::remove_dir_all(&dir);
}

/// The tests that do not hold the clock take it as it is.
impl Mirror {
    fn handle_now(&mut self, msg: ToMirror) {
        self.handle(msg, Instant::now());
    }
    fn sync_now(&mut self) {
        self.sync(Instant::now());
    }
    fn tick_now(&mut self) {
        self.tick(Instant::now());
    }
}

/// Line `n` of lane 3's `file` (its text `{"line":n}`) at `at`, synced.
fn line_at(mirror: &mut Mirror, file: &str, n: u64, at: Instant) {
    let line = format!("{{\"line\":{n}}}");
    mirror.handle(
        ToMirror::Line(
            3,
            JournalLine {
                file: file.into(),
                n,
                line,
            },
        ),
        at,
    );
    mirror.sync(at);
}

/// A gap's resend is asked again RESEND_AGAIN after the ask while no
/// line fills it, never sooner; a line that fills a part of it shows the
/// resend is being answered: the wait starts again from there.
#[test]
fn a_gap_is_asked_again_only_after_resend_again_without_a_line() {
    let (dir, _book, asked, mut mirror) = lane_3("gap-again");
    let name = "lane3-20261129T140000Z-000001.jsonl";
    let t0 = Instant::now();
    let tick = |mirror: &mut Mirror, at: Instant| {
        mirror.tick(at);
        let asked = std::mem::take(&mut *asked.lock().unwrap());
        asked
            .into_iter()
            .map(|(_, _, from, to)| (from, to))
            .collect::<Vec<_>>()
    };
    line_at(&mut mirror, name, 1, t0);
    line_at(&mut mirror, name, 5, t0);
    assert_eq!(tick(&mut mirror, t0), [(2, Some(4))], "asked at once");
    let ms = Duration::from_millis(1);
    assert_eq!(tick(&mut mirror, t0 + RESEND_AGAIN - ms), []);
    assert_eq!(tick(&mut mirror, t0 + RESEND_AGAIN), [(2, Some(4))]);
    // Line 2 comes a second later: the resend is being answered.
    let t1 = t0 + RESEND_AGAIN + Duration::from_secs(1);
    line_at(&mut mirror, name, 2, t1);
    assert_eq!(tick(&mut mirror, t1), []);
    assert_eq!(tick(&mut mirror, t1 + RESEND_AGAIN - ms), []);
    assert_eq!(tick(&mut mirror, t1 + RESEND_AGAIN), [(3, Some(4))]);
    let _ = fs::remove_dir_all(&dir);
}

/// A journal's replay is settled SETTLE after its last line was synced,
/// not sooner; a line in between starts the wait again.
#[test]
fn a_journal_settles_only_after_settle_without_a_line() {
    let (dir, book, _, mut mirror) = lane_3("settle");
    let name = "lane3-20261129T140000Z-000001.jsonl";
    let settled = |mirror: &Mirror| mirror.lanes[&3].files[name].settled;
    let changes = || lock(&book).journals_changed;
    let t0 = Instant::now();
    line_at(&mut mirror, name, 1, t0);
    assert!(!settled(&mirror));
    let ms = Duration::from_millis(1);
    mirror.tick(t0 + SETTLE - ms);
    assert!(!settled(&mirror));
    let t1 = t0 + SETTLE - ms;
    line_at(&mut mirror, name, 2, t1);
    mirror.tick(t0 + SETTLE);
    assert!(!settled(&mirror), "the wait starts again at line 2");
    let before = changes();
    mirror.tick(t1 + SETTLE);
    assert!(settled(&mirror));
    assert_eq!(changes(), before + 1, "the standings are told");
    let _ = fs::remove_dir_all(&dir);
}

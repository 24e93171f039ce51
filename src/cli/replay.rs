//! `lanecall replay LOG`: a journal's score sheet or replay output
//! (docs/replay-output.md).

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;

use crate::journal::{Checked, HeaderError, Item, Reader};
use crate::replay::{Replay, render_scores};

/// Items handed from the reading thread to the replaying one at a time.
const BATCH: usize = 4096;
/// Batches on their way between the two: a few MiB at most.
const IN_FLIGHT: usize = 4;

/// Replays the journal at `path` as [`Replay::from_reader`] does, with its
/// reading and checking (half the work) on a thread of its own and the
/// lane on this one, in batches, so that a long journal replays in about
/// the time of the slower half.
pub fn replay_file(path: &Path) -> Result<Replay, HeaderError> {
    let file = File::open(path)?;
    let reader = Reader::new(BufReader::with_capacity(1 << 16, file));
    let (header, mut lines) = Checked::new(reader)?;
    let mut replay = Replay::new(&header);
    let (full_tx, full_rx) = mpsc::sync_channel::<Vec<Item>>(IN_FLIGHT);
    let (empty_tx, empty_rx) = mpsc::channel::<Vec<Item>>();
    std::thread::scope(|scope| {
        let reading = scope.spawn(move || -> io::Result<()> {
            loop {
                let mut batch = empty_rx
                    .try_recv()
                    .unwrap_or_else(|_| Vec::with_capacity(BATCH));
                let mut end = false;
                while batch.len() < BATCH {
                    match lines.next_item()? {
                        Some(item) => batch.push(item),
                        None => {
                            end = true;
                            break;
                        }
                    }
                }
                if full_tx.send(batch).is_err() || end {
                    return Ok(());
                }
            }
        });
        // Ends when the reading thread is done and its sender gone.
        for mut batch in full_rx {
            for item in batch.drain(..) {
                replay.feed(item);
            }
            let _ = empty_tx.send(batch);
        }
        reading
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the journal's reader stopped")))
    })?;
    Ok(replay)
}

/// Writes the replay's report (replay-output.md) as serde_json writes
/// [`Replay::report`], its two long lists (the bowlers' sheets and the
/// callouts, most of a long journal's report) half on this thread, written
/// straight out, and half on two others meanwhile, written out when this
/// one comes to them.
fn write_json(replay: &Replay, out: &mut impl Write) -> io::Result<()> {
    let report = replay.report();
    let report = &report;
    let (bowlers, callouts) = (report.bowlers_len(), report.callouts_len());
    let (b_mid, c_mid) = (bowlers / 2, callouts / 2);
    let later_bowlers = move || -> io::Result<Vec<u8>> {
        let mut b = Vec::new();
        report.write_bowlers(b_mid..bowlers, &mut b).map(|()| b)
    };
    let later_callouts = move || -> io::Result<Vec<u8>> {
        // About 100 bytes a callout.
        let mut c = Vec::with_capacity(128 * (callouts - c_mid));
        report.write_callouts(c_mid..callouts, &mut c).map(|()| c)
    };
    std::thread::scope(|scope| {
        let b = scope.spawn(later_bowlers);
        let c = scope.spawn(later_callouts);
        report.write_json_parts(
            out,
            |out| {
                report.write_bowlers(0..b_mid, out)?;
                out.write_all(&b.join().unwrap_or_else(|_| later_bowlers())?)
            },
            |out| {
                report.write_callouts(0..c_mid, out)?;
                out.write_all(&c.join().unwrap_or_else(|_| later_callouts())?)
            },
        )
    })
}

/// Standard output for one long write: its file itself where it can be
/// had, without the line buffer of [`io::Stdout`] (which looks for the
/// last line end in every write, the whole report's bytes).
fn raw_stdout() -> Box<dyn Write> {
    use std::os::fd::AsFd;
    match io::stdout().as_fd().try_clone_to_owned() {
        Ok(fd) => Box::new(File::from(fd)),
        Err(_) => Box::new(io::stdout().lock()),
    }
}

/// `lanecall replay LOG [--json] [--strict]`.
pub fn main(log: PathBuf, json: bool, strict: bool) -> ExitCode {
    let replay = match replay_file(&log) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("lanecall replay: {}: {e}", log.display());
            return ExitCode::from(super::exit::EX_INPUT);
        }
    };
    let mut out = BufWriter::with_capacity(1 << 16, raw_stdout());
    let written = if json {
        write_json(&replay, &mut out).and_then(|()| writeln!(out))
    } else {
        out.write_all(render_scores(&replay).as_bytes())
    };
    if let Err(e) = written.and_then(|()| out.flush())
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        eprintln!("lanecall replay: cannot write the result: {e}");
        return ExitCode::from(super::exit::EX_INPUT);
    }
    eprint!("{}", replay.issues_text(&log.display().to_string()));
    // Counted, not listed: the list keeps only the first and the latest.
    let code = if strict && replay.error_counts().total() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    // The process ends here, and the replay's memory with it: not freed
    // piece by piece first.
    std::mem::forget(replay);
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every journal of tests/logs/ replays to the same output on two
    /// threads as on one, and a journal that cannot be read says the same.
    #[test]
    fn two_threads_replay_as_one() {
        let logs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/logs");
        let mut seen = 0;
        for entry in std::fs::read_dir(&logs).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "jsonl") {
                continue;
            }
            let one = File::open(&path)
                .map_err(HeaderError::from)
                .and_then(|f| Replay::from_reader(BufReader::new(f)));
            let two = replay_file(&path);
            match (one, two) {
                (Ok(one), Ok(two)) => {
                    let one = serde_json::to_string(&one.report()).unwrap();
                    let mut written = Vec::new();
                    write_json(&two, &mut written).unwrap();
                    let two = serde_json::to_string(&two.report()).unwrap();
                    assert_eq!(one, two, "{}", path.display());
                    assert_eq!(
                        String::from_utf8(written).unwrap(),
                        two,
                        "{}",
                        path.display()
                    );
                }
                (Err(one), Err(two)) => {
                    assert_eq!(one.to_string(), two.to_string(), "{}", path.display())
                }
                (one, two) => panic!(
                    "{}: one thread {:?}, two {:?}",
                    path.display(),
                    one.map(|_| ()),
                    two.map(|_| ())
                ),
            }
            seen += 1;
        }
        assert!(seen >= 20, "only {seen} journals in {}", logs.display());
        // A simulated day: many batches, the last one part full.
        let scenario = crate::sim::Scenario {
            games: 12,
            blocks: 5,
            ..crate::sim::Scenario::demo(7)
        };
        let mut w = crate::journal::Writer::create(Vec::new(), &scenario.header()).unwrap();
        scenario.run().for_each(|e| w.write(&e).unwrap());
        let day = w.into_inner();
        let path =
            std::env::temp_dir().join(format!("lanecall-replay-{}.jsonl", std::process::id()));
        std::fs::write(&path, &day).unwrap();
        let one = Replay::from_reader(&day[..]).unwrap();
        let two = replay_file(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(one.events() > 3 * BATCH as u64, "{} events", one.events());
        let mut written = Vec::new();
        write_json(&two, &mut written).unwrap();
        assert_eq!(
            serde_json::to_string(&one.report()).unwrap(),
            String::from_utf8(written).unwrap()
        );
        assert!(replay_file(&logs.join("no-such-journal.jsonl")).is_err());
    }
}

//! One lane journal replayed as its lines arrive: the lines go through the
//! journal's checked reader (src/journal/), exactly as `lanecall replay`
//! reads a file, into a [`Replay`] (the same core as the lane's).
//!
//! The checked reader holds each event until the next line confirms its
//! time, so the newest event waits for the next line. When a journal has
//! been quiet for a moment the feed is *settled*: the waiting event is
//! given out as the end of the file would, so the replay equals `lanecall
//! replay` of the mirror file at that moment, and reading goes on when
//! more lines come. Only if the next event then shows that the settled
//! line's time was the damaged one (the whole file's read would have
//! refused it) is the feed *stale*: it is read again from the mirror file.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read};
use std::sync::{Arc, Mutex, PoisonError};

use crate::journal::{Checked, Item, LineError, Reader};
use crate::lane::Millis;
use crate::replay::Replay;

/// Lines given to the reader and not yet read.
#[derive(Default)]
struct Queue {
    bytes: VecDeque<u8>,
}

/// The checked reader's input: whole lines pushed in, "would block" when
/// none is waiting (the reader then stops without taking anything, and
/// reads on when more lines come).
struct QueueReader {
    queue: Arc<Mutex<Queue>>,
    buf: Vec<u8>,
    pos: usize,
}

impl Read for QueueReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = {
            let available = self.fill_buf()?;
            let n = available.len().min(out.len());
            out[..n].copy_from_slice(&available[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for QueueReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos >= self.buf.len() {
            let mut q = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
            self.buf.clear();
            self.buf.extend(q.bytes.drain(..));
            self.pos = 0;
            if self.buf.is_empty() {
                return Err(io::ErrorKind::WouldBlock.into());
            }
        }
        Ok(&self.buf[self.pos..])
    }

    fn consume(&mut self, amt: usize) {
        self.pos = (self.pos + amt).min(self.buf.len());
    }
}

enum State {
    /// No line yet.
    Empty,
    Running(Box<Checked<QueueReader>>, Box<Replay>),
    /// The first line is not a journal header.
    NotAJournal(String),
}

/// One journal's replay, fed line by line.
pub struct Feed {
    queue: Arc<Mutex<Queue>>,
    state: State,
    /// After settling: the time applied before the settled event, and the
    /// settled event's, until the next event confirms it.
    settled: Option<(Millis, Millis)>,
    stale: bool,
    /// The header's `seq` (0 before the header, and in format 1): where
    /// the journal stands among its lane's.
    seq: u64,
}

impl Default for Feed {
    fn default() -> Self {
        Feed::new()
    }
}

impl Feed {
    pub fn new() -> Feed {
        Feed {
            queue: Arc::default(),
            state: State::Empty,
            settled: None,
            stale: false,
            seq: 0,
        }
    }

    /// A feed of a whole file's bytes (whole lines), not settled.
    pub fn from_bytes(bytes: &[u8]) -> Feed {
        let mut feed = Feed::new();
        feed.push_bytes(bytes);
        feed
    }

    /// Whether the feed must be read again from the file: a line came
    /// that the whole file's read takes otherwise than the settled feed.
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// The replay so far; `None` before the header.
    pub fn replay(&self) -> Option<&Replay> {
        match &self.state {
            State::Running(_, r) => Some(r),
            _ => None,
        }
    }

    /// The header's `seq`: the journal's place among its lane's (0 before
    /// the header, and in format 1).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Why the journal cannot be replayed, if it cannot.
    pub fn error(&self) -> Option<&str> {
        match &self.state {
            State::NotAJournal(e) => Some(e),
            _ => None,
        }
    }

    /// Takes one line (without its `\n`).
    pub fn push_line(&mut self, line: &str) {
        {
            let mut q = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
            q.bytes.extend(line.as_bytes());
            q.bytes.push_back(b'\n');
        }
        self.pump();
    }

    fn push_bytes(&mut self, bytes: &[u8]) {
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .bytes
            .extend(bytes);
        self.pump();
    }

    /// Applies the event waiting for the next line, as the end of the
    /// journal would.
    pub fn settle(&mut self) {
        let State::Running(checked, replay) = &mut self.state else {
            return;
        };
        let before = replay.last_t();
        if let Some(t) = checked.flush() {
            self.pump();
            self.settled = Some((before, t));
        }
    }

    fn pump(&mut self) {
        if let State::Empty = self.state {
            let reader = QueueReader {
                queue: Arc::clone(&self.queue),
                buf: Vec::new(),
                pos: 0,
            };
            self.state = match Checked::new(Reader::new(reader)) {
                Ok((header, checked)) => {
                    self.seq = header.seq;
                    let replay = Replay::new(&header);
                    State::Running(Box::new(checked), Box::new(replay))
                }
                Err(crate::journal::HeaderError::Io(e))
                    if e.kind() == io::ErrorKind::WouldBlock =>
                {
                    return;
                }
                Err(e) => State::NotAJournal(e.to_string()),
            };
        }
        let State::Running(checked, replay) = &mut self.state else {
            return;
        };
        loop {
            match checked.next_item() {
                Ok(Some(item)) => {
                    if let Some((before, t)) = self.settled {
                        match &item {
                            Item::Event(..) => self.settled = None,
                            Item::Error(_, LineError::TimeBackwards { t: e, previous })
                                if *previous == t && *e >= before =>
                            {
                                self.stale = true;
                                self.settled = None;
                            }
                            _ => {}
                        }
                    }
                    replay.feed(item);
                }
                Ok(None) => return,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) => {
                    self.state = State::NotAJournal(format!("cannot read: {e}"));
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(name: &str) -> String {
        let path = format!("{}/tests/logs/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(path).unwrap()
    }

    #[test]
    fn a_journal_fed_line_by_line_and_settled_equals_its_replay() {
        for name in ["four_bowlers.jsonl", "fouls.jsonl", "noisy_serial.jsonl"] {
            let text = log(name);
            let whole = Replay::from_reader(text.as_bytes()).unwrap();
            let mut feed = Feed::new();
            for line in text.lines() {
                feed.push_line(line);
            }
            feed.settle();
            assert!(!feed.is_stale());
            let a = serde_json::to_value(whole.report()).unwrap();
            let b = serde_json::to_value(feed.replay().unwrap().report()).unwrap();
            assert_eq!(a, b, "{name}");
        }
    }

    #[test]
    fn a_settled_line_whose_time_the_next_line_shows_damaged_makes_the_feed_stale() {
        let header = log("four_bowlers.jsonl").lines().next().unwrap().to_owned();
        let lines = [
            header.as_str(),
            r#"{"t":100,"ev":"button","name":"repeat"}"#,
            r#"{"t":5000,"ev":"button","name":"repeat"}"#,
            r#"{"t":200,"ev":"button","name":"repeat"}"#,
        ];
        let mut feed = Feed::new();
        for l in &lines[..3] {
            feed.push_line(l);
        }
        feed.settle();
        assert_eq!(feed.replay().unwrap().last_t(), 5000);
        feed.push_line(lines[3]);
        assert!(feed.is_stale());
        // Read again from the whole file it equals the whole file's replay,
        // which refused line 3 and applied line 4.
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let mut again = Feed::from_bytes(text.as_bytes());
        again.settle();
        assert!(!again.is_stale());
        let whole = Replay::from_reader(text.as_bytes()).unwrap();
        assert!(
            whole
                .errors()
                .iter()
                .any(|e| e.line == 3 && e.message.contains("a damaged time")),
            "{:?}",
            whole.errors()
        );
        assert_eq!(
            serde_json::to_value(whole.report()).unwrap(),
            serde_json::to_value(again.replay().unwrap().report()).unwrap()
        );
    }

    #[test]
    fn a_first_line_that_is_no_header_is_reported() {
        let mut feed = Feed::new();
        feed.push_line("{\"t\":1,\"ev\":\"ball\"}");
        assert!(feed.error().is_some());
        assert!(feed.replay().is_none());
    }
}

//! The journal lines on their way to the broker: which were sent, which
//! the broker acknowledged, and reading the next ones from the journal
//! files by path, a bounded batch at a time, through [`JournalFiles`]
//! (never a file opened here).
//!
//! Nothing is held but the lines sent and not yet acknowledged (at most
//! the link's window): after a reconnect, sending goes on from the first
//! line the broker did not acknowledge, read again from its file, across a
//! change of journal (the next block's) as well.

use std::collections::VecDeque;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::files::JournalFiles;

/// The most bytes read from a journal at once. A line longer than this is
/// read whole all the same, in more reads.
const CHUNK: usize = 64 * 1024;

/// One journal line to publish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The journal file's name.
    pub file: Arc<str>,
    /// Its number in the file, from 1 (the header).
    pub n: u64,
    /// The line as in the file, without its `\n`.
    pub text: String,
    /// The offset just past its `\n`.
    pub end: u64,
}

impl Line {
    /// The `journal` topic's payload (docs/mqtt.md).
    pub fn payload(&self) -> String {
        serde_json::json!({"file": &*self.file, "n": self.n, "line": self.text}).to_string()
    }
}

/// Reads whole lines of `path` from byte `offset` (line `n` starts there)
/// up to byte `limit`, at most `max` of them.
pub fn read_lines(
    files: &dyn JournalFiles,
    path: &Path,
    file: &Arc<str>,
    mut offset: u64,
    mut n: u64,
    limit: u64,
    max: usize,
) -> io::Result<Vec<Line>> {
    let mut lines = Vec::new();
    if offset >= limit || max == 0 {
        return Ok(lines);
    }
    let mut f = files.open_at(path, offset)?;
    let mut buf: Vec<u8> = Vec::new();
    let mut at = offset;
    while lines.len() < max && at < limit {
        let want = (limit - at).min(CHUNK as u64) as usize;
        let start = buf.len();
        buf.resize(start + want, 0);
        let got = f.read(&mut buf[start..])?;
        buf.truncate(start + got);
        if got == 0 {
            break;
        }
        at += got as u64;
        let mut consumed = 0;
        while lines.len() < max {
            let Some(i) = buf[consumed..].iter().position(|&b| b == b'\n') else {
                break;
            };
            let text = String::from_utf8_lossy(&buf[consumed..consumed + i]).into_owned();
            consumed += i + 1;
            offset += i as u64 + 1;
            lines.push(Line {
                file: file.clone(),
                n,
                text,
                end: offset,
            });
            n += 1;
        }
        buf.drain(..consumed);
    }
    Ok(lines)
}

/// Where sending stands in one journal: the next line's number and offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pos {
    /// Which journal: an index that only goes up (see [`Lines::first`]).
    file: u64,
    n: u64,
    offset: u64,
}

struct Journal {
    path: PathBuf,
    name: Arc<str>,
    /// The durable length the lane's thread last told.
    notified: u64,
}

/// A line sent and not yet acknowledged.
struct Sent {
    id: u64,
    file: u64,
    n: u64,
    end: u64,
    acked: bool,
}

/// The journal lines' progress towards the broker.
#[derive(Default)]
pub struct Lines {
    /// The journals still concerned, oldest first; the last is the one
    /// being written, the ones before it are closed.
    journals: VecDeque<Journal>,
    /// The index of `journals[0]`.
    first: u64,
    /// The first line the broker has not acknowledged.
    acked: Option<Pos>,
    /// The next line to send.
    sent: Option<Pos>,
    outstanding: VecDeque<Sent>,
    next_id: u64,
}

impl Lines {
    /// The lane's thread told that `path` holds `len` durable bytes.
    pub fn notified(&mut self, path: PathBuf, len: u64) {
        if let Some(last) = self.journals.back_mut()
            && last.path == path
        {
            last.notified = last.notified.max(len);
            return;
        }
        let name: Arc<str> = Arc::from(
            path.file_name()
                .map_or_else(|| path.to_string_lossy(), |n| n.to_string_lossy())
                .as_ref(),
        );
        self.journals.push_back(Journal {
            path,
            name,
            notified: len,
        });
        if self.acked.is_none() {
            let start = Pos {
                file: self.first + self.journals.len() as u64 - 1,
                n: 1,
                offset: 0,
            };
            self.acked = Some(start);
            self.sent = Some(start);
        }
    }

    /// The lines sent and not acknowledged.
    pub fn in_flight(&self) -> usize {
        self.outstanding.len()
    }

    /// The newest journal's path and durable length, for a resend of it.
    pub fn newest(&self) -> Option<(&Path, u64)> {
        self.journals.back().map(|j| (j.path.as_path(), j.notified))
    }

    /// The first line of the journal `name` that the ordinary sending has
    /// still to send (it sends that one and every later one): 1 for a
    /// journal it has not begun, `None` for one it is past or does not
    /// know. A resend stops there rather than send those lines twice.
    pub fn sends_from(&self, name: &str) -> Option<u64> {
        let sent = self.sent?;
        let i = self.journals.iter().position(|j| &*j.name == name)?;
        let file = self.first + i as u64;
        match file.cmp(&sent.file) {
            std::cmp::Ordering::Less => None,
            std::cmp::Ordering::Equal => Some(sent.n),
            std::cmp::Ordering::Greater => Some(1),
        }
    }

    /// A new connection: the lines sent on the last one and not
    /// acknowledged are sent again.
    pub fn rewind(&mut self) {
        self.outstanding.clear();
        self.sent = self.acked;
    }

    /// The next lines to send, at most `max`, each with the id to
    /// acknowledge it by. The caller publishes them all in order.
    pub fn next(&mut self, files: &dyn JournalFiles, max: usize) -> io::Result<Vec<(u64, Line)>> {
        let mut out = Vec::new();
        while out.len() < max {
            let Some(pos) = self.sent else { break };
            let Some(j) = self.journals.get((pos.file - self.first) as usize) else {
                break;
            };
            let closed = pos.file + 1 < self.first + self.journals.len() as u64;
            // A closed journal is written no more: every whole line in it
            // is durable, whether its last notification came or not.
            let limit = if closed { u64::MAX } else { j.notified };
            let lines = match read_lines(
                files,
                &j.path,
                &j.name,
                pos.offset,
                pos.n,
                limit,
                max - out.len(),
            ) {
                Ok(lines) => lines,
                Err(e) if closed && e.kind() == io::ErrorKind::NotFound => {
                    tracing::warn!(
                        "centre link: {} is gone before it was sent whole",
                        j.path.display()
                    );
                    Vec::new()
                }
                Err(e) => return Err(e),
            };
            if lines.is_empty() {
                if !closed {
                    break;
                }
                // On to the next journal, from its header.
                self.sent = Some(Pos {
                    file: pos.file + 1,
                    n: 1,
                    offset: 0,
                });
                continue;
            }
            for line in lines {
                self.sent = Some(Pos {
                    file: pos.file,
                    n: line.n + 1,
                    offset: line.end,
                });
                let id = self.next_id;
                self.next_id += 1;
                self.outstanding.push_back(Sent {
                    id,
                    file: pos.file,
                    n: line.n,
                    end: line.end,
                    acked: false,
                });
                out.push((id, line));
            }
        }
        Ok(out)
    }

    /// The broker acknowledged the line sent as `id`.
    pub fn ack(&mut self, id: u64) {
        let Some(front) = self.outstanding.front() else {
            return;
        };
        let Some(i) = id.checked_sub(front.id) else {
            return;
        };
        if let Some(s) = self.outstanding.get_mut(i as usize) {
            s.acked = true;
        }
        while let Some(s) = self.outstanding.front()
            && s.acked
        {
            self.acked = Some(Pos {
                file: s.file,
                n: s.n + 1,
                offset: s.end,
            });
            self.outstanding.pop_front();
        }
        // Journals before the acknowledged one are done with.
        if let Some(acked) = self.acked {
            while self.first < acked.file && self.journals.len() > 1 {
                self.journals.pop_front();
                self.first += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::centre_link::files::tests::MemFiles;

    fn texts(batch: &[(u64, Line)]) -> Vec<(String, u64, String)> {
        batch
            .iter()
            .map(|(_, l)| (l.file.to_string(), l.n, l.text.clone()))
            .collect()
    }

    #[test]
    fn unacknowledged_lines_are_sent_again_across_a_new_journal() {
        let disk = MemFiles::default();
        let append = |path: &Path, lines: &[&str]| disk.append(path, lines);
        let d = Path::new("/j");
        let a = d.join("a.jsonl");
        let b = d.join("b.jsonl");
        let len = append(&a, &["h", "1", "2"]);
        // A line written but not durable yet is not sent.
        append(&a, &["3"]);
        let mut lines = Lines::default();
        lines.notified(a.clone(), len);
        let first = lines.next(&disk, 10).unwrap();
        assert_eq!(
            texts(&first),
            [
                ("a.jsonl", 1, "h"),
                ("a.jsonl", 2, "1"),
                ("a.jsonl", 3, "2")
            ]
            .map(|(f, n, t)| (f.to_owned(), n, t.to_owned()))
        );
        lines.ack(first[0].0);
        // The next block's journal: the rest of the old one goes first,
        // up to its last whole line.
        let blen = append(&b, &["H", "x"]);
        lines.notified(b.clone(), blen);
        let second = lines.next(&disk, 10).unwrap();
        assert_eq!(
            texts(&second),
            [
                ("a.jsonl", 4, "3"),
                ("b.jsonl", 1, "H"),
                ("b.jsonl", 2, "x")
            ]
            .map(|(f, n, t)| (f.to_owned(), n, t.to_owned()))
        );
        // Acknowledged out of order: the first gap holds the rest back.
        lines.ack(second[1].0);
        lines.rewind();
        let again = lines.next(&disk, 10).unwrap();
        assert_eq!(
            texts(&again),
            [
                ("a.jsonl", 2, "1"),
                ("a.jsonl", 3, "2"),
                ("a.jsonl", 4, "3"),
                ("b.jsonl", 1, "H"),
                ("b.jsonl", 2, "x")
            ]
            .map(|(f, n, t)| (f.to_owned(), n, t.to_owned()))
        );
        for (id, _) in &again {
            lines.ack(*id);
        }
        assert_eq!(lines.in_flight(), 0);
        assert_eq!(lines.journals.len(), 1, "the old journal is dropped");
        lines.rewind();
        assert!(lines.next(&disk, 10).unwrap().is_empty());
    }

    #[test]
    fn a_batch_is_bounded_and_long_lines_are_read_whole() {
        let disk = MemFiles::default();
        let a = Path::new("/j/a.jsonl");
        let long = "y".repeat(CHUNK * 2 + 7);
        let len = disk.append(a, &["h", &long, "z"]);
        let mut lines = Lines::default();
        lines.notified(a.to_owned(), len);
        let one = lines.next(&disk, 1).unwrap();
        assert_eq!(one.len(), 1);
        let rest = lines.next(&disk, 10).unwrap();
        assert_eq!(rest.len(), 2);
        assert_eq!(rest[0].1.text, long);
        assert_eq!(rest[1].1.n, 3);
        assert_eq!(rest[1].1.end, len);
    }
}

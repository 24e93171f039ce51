//! What the lane publishes to the centre, and when: a state machine
//! without I/O. In come the packets of the connection (a publish written
//! with its packet id, the broker's PUBACK), the lane's news (a durable
//! journal length, a changed state, a command's answer, a `resend`) and
//! the time; out go the publishes, through the sender the caller hands it
//! (false when the client's queue is full: nothing was queued then). The
//! journal files are read through [`JournalFiles`].
//!
//! - On each connection: `online` (retained); the journal's lines from
//!   the first one the broker did not acknowledge on the connection
//!   before; the state at once.
//! - At most [`WINDOW`] lines (and resent lines) unacknowledged; replies
//!   and the state while fewer than twice that are in flight.
//! - The state at most every [`STATE_EVERY`], again every [`STATE_AGAIN`]
//!   unchanged ([`STATE_DELIVERING`] while the lane delivers), and again
//!   after a `resend`, so a centre that missed it learns how far to ask.
//! - A `resend` runs at the pace of `resend.rs`; it is not rewound by a
//!   new connection (its lines are not acknowledged one by one: a centre
//!   that still misses some asks again).

use std::collections::VecDeque;
use std::io;
use std::path::PathBuf;
use std::time::Instant;

use rumqttc::{Event, Incoming, Outgoing};

use super::files::JournalFiles;
use super::lines::Lines;
use super::neighbours::delivering;
use super::resend::{Resends, day_journals};
use super::wire::{Tag, Wire};
use super::{MAX_OUTBOX, STATE_AGAIN, STATE_DELIVERING, STATE_EVERY, Topics, WINDOW, command};

/// One publish, QoS 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Publish {
    pub topic: String,
    pub retain: bool,
    pub payload: Vec<u8>,
}

/// The link's publishing, from one connection to the next.
pub struct Publishing {
    topics: Topics,
    /// Where the journals are: a resend names a file here, never elsewhere.
    journal_dir: PathBuf,
    files: Box<dyn JournalFiles>,
    lines: Lines,
    resends: Resends,
    /// This connection's publishes, to match PUBACKs to journal lines.
    wire: Wire,
    /// Replies waiting for room on the connection.
    outbox: VecDeque<String>,
    /// When the state last went out on this connection.
    state_sent: Option<Instant>,
    /// The state is to go out (changed, asked for, or a new connection).
    state_due: bool,
    /// A `resend` came: the state (with the journal's length) goes out
    /// again, so a centre that missed it learns how far to ask.
    state_asked: bool,
    /// This lane's `delivering`, in the state last published.
    delivering: bool,
}

impl Publishing {
    pub fn new(topics: Topics, journal_dir: PathBuf, files: Box<dyn JournalFiles>) -> Publishing {
        Publishing {
            topics,
            journal_dir,
            files,
            lines: Lines::default(),
            resends: Resends::default(),
            wire: Wire::default(),
            outbox: VecDeque::new(),
            state_sent: None,
            state_due: true,
            state_asked: false,
            delivering: false,
        }
    }

    /// The lane's current journals, oldest first (`resend.rs`).
    pub fn current_journals(&self) -> io::Result<Vec<PathBuf>> {
        let files = day_journals(&*self.files, &self.journal_dir, None)?;
        Ok(files.into_iter().map(|(p, _)| p).collect())
    }

    /// A new connection (its CONNACK came): `online`, and the lines not
    /// acknowledged on the one before are sent again.
    pub fn connected(&mut self, send: &mut impl FnMut(Publish) -> bool) {
        self.wire = Wire::default();
        let online = self.publish(&self.topics.status, true, "online");
        self.send(send, online, Tag::Other);
        self.lines.rewind();
        self.state_sent = None;
        self.state_due = true;
    }

    /// The lane's thread told that `path` holds `len` durable bytes.
    pub fn notified(&mut self, path: PathBuf, len: u64) {
        self.lines.notified(path, len);
    }

    /// The lane's state changed.
    pub fn state_changed(&mut self) {
        self.state_due = true;
    }

    /// The journal lines sent and not acknowledged.
    pub fn lines_in_flight(&self) -> usize {
        self.lines.in_flight()
    }

    /// A packet of the connection: a publish written (with its packet
    /// id), or the broker's acknowledgement of one.
    pub fn packet(&mut self, ev: &Event) {
        match ev {
            Event::Outgoing(Outgoing::Publish(pkid)) => {
                if let Some(tag) = self.wire.queued.pop_front() {
                    self.wire.unacked.insert(*pkid, tag);
                }
            }
            Event::Incoming(Incoming::PubAck(ack)) => {
                if let Some(Tag::Line(id)) = self.wire.unacked.remove(&ack.pkid) {
                    self.lines.ack(id);
                }
            }
            _ => {}
        }
    }

    /// A reply to a command, sent when there is room; past [`MAX_OUTBOX`]
    /// waiting the oldest is dropped.
    pub fn answer(&mut self, id: Option<&str>, result: Result<(), String>) {
        if self.outbox.len() >= MAX_OUTBOX {
            self.outbox.pop_front();
            tracing::warn!("centre link: too many replies waiting: the oldest is dropped");
        }
        self.outbox.push_back(command::reply(id, result));
    }

    /// A `resend` command: `file` from line `from` (to `to`), or with no
    /// `file` the lane's current journals from their first line. The
    /// state goes out again either way.
    pub fn resend(&mut self, file: Option<&str>, from: u64, to: Option<u64>) -> Result<(), String> {
        self.state_asked = true;
        let files = &*self.files;
        match file {
            Some(file) => command::journal_file(files, &self.journal_dir, file)
                .and_then(|path| self.resends.ask(path, file, from, to)),
            None => {
                // The current journals from their first line: for a centre
                // that has none of this lane's.
                let newest = self.lines.newest().map(|(p, _)| p.to_owned());
                day_journals(files, &self.journal_dir, newest.as_deref())
                    .map_err(|e| format!("cannot list the journals: {e}"))
                    .and_then(|found| {
                        found
                            .into_iter()
                            .try_for_each(|(path, name)| self.resends.ask(path, &name, 1, None))
                    })
            }
        }
    }

    /// Publishes what is waiting, as far as the window allows: replies,
    /// then the journal's new lines, then lines asked for again.
    pub fn pump(&mut self, now: Instant, send: &mut impl FnMut(Publish) -> bool) -> io::Result<()> {
        while let Some(reply) = self.outbox.front() {
            let p = self.publish(&self.topics.reply, false, reply.as_bytes());
            if self.wire.in_flight() >= 2 * WINDOW || !self.send(send, p, Tag::Other) {
                break;
            }
            self.outbox.pop_front();
        }
        let room = WINDOW.saturating_sub(self.wire.in_flight());
        for (id, line) in self.lines.next(&*self.files, room)? {
            // The window keeps the client's queue from filling.
            let p = self.publish(&self.topics.journal, false, line.payload());
            self.send(send, p, Tag::Line(id));
        }
        let room = WINDOW.saturating_sub(self.wire.in_flight());
        for line in self.resends.next(&*self.files, &self.lines, room, now)? {
            let p = self.publish(&self.topics.journal, false, line.payload());
            self.send(send, p, Tag::Other);
        }
        Ok(())
    }

    /// Publishes the lane's state (`json` gives it) if it is due at
    /// `now`; see the module's rules.
    pub fn state(
        &mut self,
        now: Instant,
        json: impl FnOnce() -> String,
        send: &mut impl FnMut(Publish) -> bool,
    ) {
        let again_every = self.again_every();
        if std::mem::take(&mut self.state_asked)
            || self.state_sent.is_some_and(|t| now >= t + again_every)
        {
            self.state_due = true;
        }
        let state_at = self.state_sent.map_or(now, |t| t + STATE_EVERY);
        if self.state_due && now >= state_at && self.wire.in_flight() < 2 * WINDOW {
            let json = json();
            self.delivering = delivering(json.as_bytes());
            let p = self.publish(&self.topics.state, true, json.as_bytes());
            if self.send(send, p, Tag::Other) {
                self.state_due = false;
                self.state_sent = Some(now);
            }
        }
    }

    /// When something is due without news: the state (to send, or to
    /// send again), or resent lines held by the pace.
    pub fn wake_at(&self, now: Instant) -> Instant {
        let state = match self.state_sent {
            None => now,
            Some(t) if self.state_due => t + STATE_EVERY,
            Some(t) => t + self.again_every(),
        };
        self.resends.wake_at().map_or(state, |r| r.min(state))
    }

    /// A clean stop: `offline` (retained).
    pub fn offline(&mut self, send: &mut impl FnMut(Publish) -> bool) {
        let p = self.publish(&self.topics.status, true, "offline");
        self.send(send, p, Tag::Other);
    }

    fn again_every(&self) -> std::time::Duration {
        if self.delivering {
            STATE_DELIVERING
        } else {
            STATE_AGAIN
        }
    }

    fn publish(&self, topic: &str, retain: bool, payload: impl Into<Vec<u8>>) -> Publish {
        Publish {
            topic: topic.to_owned(),
            retain,
            payload: payload.into(),
        }
    }

    /// Hands `p` to the client; its tag waits for its packet id.
    fn send(&mut self, send: &mut impl FnMut(Publish) -> bool, p: Publish, tag: Tag) -> bool {
        let sent = send(p);
        if sent {
            self.wire.queued.push_back(tag);
        }
        sent
    }
}

#[cfg(test)]
#[path = "publishing_tests.rs"]
mod tests;

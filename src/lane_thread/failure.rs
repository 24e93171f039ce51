//! The journal that cannot be written: the lane holds, readings wait
//! (bounded) and a judge's action is answered that it was not taken; once
//! the journal takes writes again, the failure goes into it as a hold
//! around what waited, and the lane goes on by itself. Also the journal's
//! path checked under the running lane (a file deleted, replaced or cut
//! short) and the notices the judges see of it.
//!
//! Nothing here applies an input the journal does not have, nor decides
//! anything of the rules.

use std::io;
use std::time::Instant;

use super::{LaneRunner, MAX_NOTICES, MAX_WAITING, RETRY};
use crate::journal::store::PathState;
use crate::lane::{Action, Event, Millis, Panel, Stamped};
use crate::ports::{NotTaken, Reply};
use crate::wall_clock::{rfc3339, unix_now};

/// The journal cannot be written: nothing is applied until it can.
pub(super) struct Failure {
    pub(super) reason: String,
    pub(super) since_t: Millis,
    /// Readings (and scripted actions) not yet journaled, in order.
    pub(super) waiting: std::collections::VecDeque<Stamped<Event>>,
    pub(super) shed: u64,
    /// Where the hold that covers the failure in the journal stands.
    hold: FailureHold,
}

/// When the journal takes writes again, the failure goes into it as a
/// hold by `lanecall` from its start to its end, around the readings that
/// waited: the lane was held (nobody was told to bowl), so no slow-bowling
/// clock runs over it, in the live lane as in a replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FailureHold {
    /// Not journaled yet.
    ToStart,
    /// Journaled on; off still to come.
    On,
    /// Nothing (more) to journal: done, or a judge's hold was on anyway.
    Done,
}

impl LaneRunner {
    /// The journal just failed: the lane holds, and everyone is told.
    pub(super) fn fail(&mut self, e: &io::Error, t: Millis) {
        let reason = e.to_string();
        tracing::error!(
            journal = %self.journal.path().display(),
            "cannot journal an input, the lane holds until it can: {reason}"
        );
        self.speaker.journal_failed();
        self.failure = Some(Failure {
            reason,
            since_t: t,
            waiting: Default::default(),
            shed: 0,
            hold: FailureHold::ToStart,
        });
        self.next_duty = Instant::now() + RETRY;
        self.publish();
    }

    /// While the journal fails: a reading waits (bounded) to be journaled
    /// when it can be; a judge's action is answered at once that it was
    /// not taken.
    pub(super) fn wait_or_refuse(&mut self, e: Stamped<Event>, reply: Option<Reply>) {
        let Some(f) = &mut self.failure else { return };
        match reply {
            Some(reply) => {
                let _ = reply.send(Err(NotTaken::NotDurable(f.reason.clone())));
            }
            None if f.waiting.len() < MAX_WAITING => f.waiting.push_back(e),
            None => f.shed += 1,
        }
    }

    /// Tries the journal again: the failure's hold, then what waited, in
    /// order, then the hold's end are journaled and applied. The lane goes
    /// on by itself once it can.
    pub(super) fn retry(&mut self) {
        let Some(mut f) = self.failure.take() else {
            return;
        };
        self.in_a_row = true;
        let result = self.catch_up(&mut f);
        self.in_a_row = false;
        match result {
            Ok(()) => {
                tracing::warn!(
                    journal = %self.journal.path().display(),
                    shed = f.shed,
                    "the journal takes writes again: the lane goes on"
                );
                self.notice(format!(
                    "the journal could not be written from t={} ms ({}); it was written again after that{}",
                    f.since_t,
                    f.reason,
                    if f.shed > 0 { format!(", {} input(s) were lost while it failed", f.shed) } else { String::new() }
                ));
                self.publish();
            }
            Err(e) => {
                f.reason = e.to_string();
                self.failure = Some(f);
                self.publish();
            }
        }
    }

    fn catch_up(&mut self, f: &mut Failure) -> io::Result<()> {
        let hold = |on: bool, t: Millis, reason: Option<String>| Stamped {
            t,
            event: Event::Panel(Panel::new(
                Some("lanecall".into()),
                Action::Hold { on, reason },
            )),
        };
        if f.hold == FailureHold::ToStart {
            if self.replay.lane().hold().is_some() {
                f.hold = FailureHold::Done;
            } else {
                let reason = format!("the journal could not be written: {}", f.reason);
                self.journal_and_apply(&[hold(true, f.since_t, Some(reason))])?;
                f.hold = FailureHold::On;
            }
        }
        while !f.waiting.is_empty() {
            let waiting = f.waiting.make_contiguous();
            let n = super::run_len(waiting);
            self.journal_and_apply(&waiting[..n])?;
            f.waiting.drain(..n);
        }
        if f.hold == FailureHold::On {
            let t = self.real.t(Instant::now()).max(self.replay.last_t());
            self.journal_and_apply(&[hold(false, t, None)])?;
            f.hold = FailureHold::Done;
            return Ok(());
        }
        // Nothing was written (a judge's hold was on, nothing waited): the
        // folder must take a write all the same.
        self.journal.roll_back()?;
        self.store.probe()
    }

    /// Notices a journal deleted or replaced under the running lane, and
    /// puts it back at its path from the open file.
    pub(super) fn check_path(&mut self) {
        let state = self.journal.path_state();
        if state == PathState::Same {
            self.path_problem = None;
            return;
        }
        let what = match state {
            PathState::Missing => "deleted",
            PathState::Shortened { len, expected } => {
                let message = format!(
                    "the journal file was cut short while the lane ran: {len} of {expected} bytes are left; the lane's own record is complete, a judge should keep the backup"
                );
                return self.path_problem(message);
            }
            _ => "replaced by another file",
        };
        let message = match self.journal.restore() {
            Ok(kept) => {
                let kept = kept.map_or(String::new(), |k| {
                    format!(" (the other file is kept as {})", k.display())
                });
                format!(
                    "the journal file was {what} while the lane ran: restored at its path from the open file{kept}"
                )
            }
            Err(e) => format!(
                "the journal file was {what} while the lane ran and cannot be restored yet: {e}"
            ),
        };
        self.path_problem(message);
    }

    /// Tells a problem with the journal's path once.
    fn path_problem(&mut self, message: String) {
        if self.path_problem.as_deref() != Some(message.as_str()) {
            tracing::error!(journal = %self.journal.path().display(), "{message}");
            self.path_problem = Some(message.clone());
            self.notice(message);
            self.publish();
        }
    }

    fn notice(&mut self, message: String) {
        if self.notices.len() == MAX_NOTICES {
            self.notices.pop_front();
        }
        self.notices.push_back((rfc3339(unix_now()), message));
    }
}

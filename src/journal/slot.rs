//! The newest durable length of the journal being written, as the lane's
//! thread tells it after every append, for a reader that copies or sends
//! the new lines from the file on its own thread ([`crate::journal::mirror`],
//! [`crate::centre_link`]).
//!
//! A notification only overwrites the newest `(journal, length)`: however
//! far behind the reader is, nothing queues, and the lane's thread never
//! waits for it. The reader reads the journal itself, so the newest length
//! is all it needs. It can wait on a thread ([`JournalSlot::wait`]) or in
//! a task ([`JournalSlot::changed`]).

use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// See the module's documentation.
#[derive(Default)]
pub struct JournalSlot {
    slot: Mutex<Slot>,
    wake: Condvar,
    notify: tokio::sync::Notify,
}

#[derive(Default)]
struct Slot {
    latest: Option<(PathBuf, u64)>,
    /// Whether `latest` changed since the reader took it.
    fresh: bool,
    stop: bool,
}

/// What [`JournalSlot::wait`] found.
pub struct Taken {
    /// The newest journal and its length, fresh or not.
    pub latest: Option<(PathBuf, u64)>,
    /// The writer is gone: make a last pass and end.
    pub stop: bool,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere must not take the lane thread down with it.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl JournalSlot {
    /// The journal at `journal` now holds `len` bytes of whole, durable
    /// lines. Never blocks (beyond the slot's lock), never fails.
    pub fn written(&self, journal: &Path, len: u64) {
        let mut slot = lock(&self.slot);
        match &mut slot.latest {
            // The same journal as last time, as nearly always: no allocation.
            Some((path, newest)) if path == journal => *newest = len,
            latest => *latest = Some((journal.to_owned(), len)),
        }
        slot.fresh = true;
        drop(slot);
        self.wake.notify_one();
        self.notify.notify_one();
    }

    /// Tells the reader to make a last pass and end.
    pub fn stop(&self) {
        lock(&self.slot).stop = true;
        self.wake.notify_one();
        self.notify.notify_one();
    }

    /// The newest notification, without taking it.
    pub fn latest(&self) -> Option<(PathBuf, u64)> {
        lock(&self.slot).latest.clone()
    }

    /// The newest notification if it is new since the last take.
    pub fn take(&self) -> Option<(PathBuf, u64)> {
        let mut slot = lock(&self.slot);
        if !slot.fresh {
            return None;
        }
        slot.fresh = false;
        slot.latest.clone()
    }

    /// Waits, on a thread, for a new notification or the stop; with a
    /// `timeout`, for at most that long.
    pub fn wait(&self, timeout: Option<Duration>) -> Taken {
        let mut slot = lock(&self.slot);
        while !slot.fresh && !slot.stop {
            match timeout {
                Some(t) => {
                    let (s, wait) = self
                        .wake
                        .wait_timeout(slot, t)
                        .unwrap_or_else(PoisonError::into_inner);
                    slot = s;
                    if wait.timed_out() {
                        break;
                    }
                }
                None => {
                    slot = self.wake.wait(slot).unwrap_or_else(PoisonError::into_inner);
                }
            }
        }
        slot.fresh = false;
        Taken {
            latest: slot.latest.clone(),
            stop: slot.stop,
        }
    }

    /// Waits, in a task, until something was told since the last wait
    /// (then [`JournalSlot::take`] it).
    pub async fn changed(&self) {
        self.notify.notified().await;
    }

    /// Whether the writer is gone.
    pub fn stopping(&self) -> bool {
        lock(&self.slot).stop
    }
}

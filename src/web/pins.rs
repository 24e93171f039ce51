//! The PIN checks: one thread, one argon2 memory buffer, a bounded queue,
//! and the lockout that stops PIN guessing.
//!
//! Why one thread with one buffer: `Argon2::verify_password` allocates its
//! 19 MiB of memory on each call, and glibc keeps much of what several
//! threads freed in their arenas, so a guessing run left hundreds of MB
//! behind. Here the buffer is allocated once, at the first check, and
//! reused by every check after it: the daemon's memory stays flat however
//! many logins come.
//!
//! Before a check, and with its answer, the lockout of [`super::limit`]
//! is asked and told: wrong PINs lock the address they came from, and
//! many from several addresses lock the addresses that have not logged in
//! lately; a locked login is answered at once, without argon2 work.
//!
//! `lanecall unlock` clears the lockout through a file, `state_dir/unlock`:
//! the checker looks for it once a second and removes it when it has
//! cleared the lock. A file needs no socket to keep open or clean up, and
//! whoever may write the state directory may run the lane anyway.

use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use argon2::Block;
use tokio::sync::oneshot;

use super::auth::StoredHash;
use super::limit::{Guard, Lock, Security};

pub use super::limit::Lockout;

/// The name of the file `lanecall unlock` writes in the state directory.
pub const UNLOCK_FILE: &str = "unlock";

/// How many logins may wait for the checker; more are answered "busy".
/// One check takes a fraction of a second, so a full queue is a few
/// seconds of work: a judge behind it still gets an answer soon.
pub const QUEUE: usize = 4;

/// How often the checker looks for the unlock file while idle.
const UNLOCK_POLL: Duration = Duration::from_secs(1);

/// The answer to one login's PIN.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The PIN is the one of hash number `n` (in the order given to
    /// [`Checker::start`]).
    Match(usize),
    Wrong,
    /// A lock refused it (see [`Lock`]); nothing was checked.
    Locked(Lock),
    /// The queue is full (or the checker stopped); nothing was checked.
    Busy,
}

struct Job {
    pin: String,
    from: Option<IpAddr>,
    reply: oneshot::Sender<Verdict>,
}

/// The PIN checker: a handle to its thread. The thread ends when the last
/// handle is dropped.
#[derive(Clone)]
pub struct Checker {
    queue: SyncSender<Job>,
    guard: Arc<Mutex<Guard>>,
}

fn lock(guard: &Mutex<Guard>) -> MutexGuard<'_, Guard> {
    // The guard holds counters only: one left by a panicking holder is
    // still worth reading.
    guard.lock().unwrap_or_else(|e| e.into_inner())
}

impl Checker {
    /// Starts the checker for `hashes` (PHC strings; one that does not parse
    /// matches nothing). `unlock_dir` is where `lanecall unlock` leaves its
    /// file (none: no unlocking but by a restart).
    /// If the thread cannot be started, every check answers
    /// [`Verdict::Busy`] (and the reason is logged).
    pub fn start(hashes: Vec<String>, lockout: Lockout, unlock_dir: Option<PathBuf>) -> Checker {
        let (queue, jobs) = mpsc::sync_channel::<Job>(QUEUE);
        let guard = Arc::new(Mutex::new(Guard::new(lockout)));
        let unlock_file = unlock_dir.map(|d| d.join(UNLOCK_FILE));
        if let Some(f) = &unlock_file {
            // Left from a run that ended before it was seen: a fresh start
            // is unlocked anyway.
            let _ = std::fs::remove_file(f);
        }
        let stored: Vec<Option<StoredHash>> = hashes.iter().map(|h| StoredHash::parse(h)).collect();
        let worker_guard = Arc::clone(&guard);
        let started = std::thread::Builder::new()
            .name("pin-checks".into())
            .spawn(move || run(&stored, &jobs, &worker_guard, unlock_file.as_deref()));
        if let Err(e) = started {
            tracing::error!("cannot start the PIN checks, no judge can log in: {e}");
        }
        Checker { queue, guard }
    }

    /// Checks `pin` from `from`: against every hash, in one buffer, unless
    /// the checks are locked or the queue is full.
    pub async fn check(&self, pin: String, from: Option<IpAddr>) -> Verdict {
        if let Some(locked) = lock(&self.guard).locked(Instant::now(), from) {
            return Verdict::Locked(locked);
        }
        let (reply, answer) = oneshot::channel();
        match self.queue.try_send(Job { pin, from, reply }) {
            Ok(()) => answer.await.unwrap_or(Verdict::Busy),
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => Verdict::Busy,
        }
    }

    /// What the judges are shown.
    pub fn security(&self) -> Security {
        lock(&self.guard).security(Instant::now())
    }
}

/// The checker's thread: takes jobs until every handle is gone.
fn run(
    stored: &[Option<StoredHash>],
    jobs: &mpsc::Receiver<Job>,
    guard: &Mutex<Guard>,
    unlock_file: Option<&std::path::Path>,
) {
    let blocks = stored
        .iter()
        .flatten()
        .map(StoredHash::blocks)
        .max()
        .unwrap_or(0);
    // Allocated at the first check, then reused for every check.
    let mut memory: Vec<Block> = Vec::new();
    loop {
        let job = match jobs.recv_timeout(UNLOCK_POLL) {
            Ok(job) => Some(job),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => return,
        };
        if let Some(f) = unlock_file
            && std::fs::remove_file(f).is_ok()
        {
            lock(guard).unlock();
            tracing::warn!("PIN checks unlocked by `lanecall unlock`");
        }
        let Some(Job { pin, from, reply }) = job else {
            continue;
        };
        // Checked again here: tries queued before the lock must not be
        // checked after it.
        if let Some(locked) = lock(guard).locked(Instant::now(), from) {
            let _ = reply.send(Verdict::Locked(locked));
            continue;
        }
        if memory.len() < blocks {
            memory = vec![Block::default(); blocks];
        }
        // Every hash is computed whatever matched first: the time a login
        // takes does not tell which judge's PIN (if any) it was.
        let mut found = None;
        for (i, s) in stored.iter().enumerate() {
            let hit = s
                .as_ref()
                .is_some_and(|s| s.matches(pin.as_bytes(), &mut memory));
            if hit && found.is_none() {
                found = Some(i);
            }
        }
        let verdict = {
            let mut g = lock(guard);
            g.checks += 1;
            match found {
                Some(i) => {
                    g.right(Instant::now(), from);
                    Verdict::Match(i)
                }
                None => {
                    g.wrong(Instant::now(), from);
                    Verdict::Wrong
                }
            }
        };
        let _ = reply.send(verdict);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checker_finds_the_matching_hash_and_counts_wrong_ones() {
        let a = crate::web::hash_pin("135790").unwrap();
        let b = crate::web::hash_pin("246802").unwrap();
        let checker = Checker::start(
            vec!["not a hash".into(), a, b],
            Lockout {
                after: 2,
                ..Lockout::default()
            },
            None,
        );
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            assert_eq!(
                checker.check("246802".into(), None).await,
                Verdict::Match(2)
            );
            assert_eq!(
                checker.check("135790".into(), None).await,
                Verdict::Match(1)
            );
            assert_eq!(checker.check("111111".into(), None).await, Verdict::Wrong);
            assert_eq!(checker.check("111112".into(), None).await, Verdict::Wrong);
            assert!(matches!(
                checker.check("135790".into(), None).await,
                Verdict::Locked(_)
            ));
            assert_eq!(checker.security().pin_checks, 4);
        });
    }
}

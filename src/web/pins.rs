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
//! Why a lockout rather than a slower rate: a rate per address is beaten by
//! many addresses, and a global rate slow enough to matter also keeps the
//! real judge waiting. After [`Lockout::after`] wrong PINs in a row (from
//! anywhere) the checks stop for [`Lockout::base`], doubling with each lock
//! up to [`Lockout::max`]; while locked, a login is answered at once,
//! without argon2 work. At the defaults (5 tries, 1 min doubling to 1 h)
//! that is about 30 PINs in the first hour of an attack and 5 an hour after
//! it.
//!
//! `lanecall unlock` clears the lockout through a file, `state_dir/unlock`:
//! the checker looks for it once a second and removes it when it has
//! cleared the lock. A file needs no socket to keep open or clean up, and
//! whoever may write the state directory may run the lane anyway.

use std::collections::VecDeque;
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use argon2::Block;
use serde::Serialize;
use tokio::sync::oneshot;

use super::auth::StoredHash;

/// The name of the file `lanecall unlock` writes in the state directory.
pub const UNLOCK_FILE: &str = "unlock";

/// How many logins may wait for the checker; more are answered "busy".
/// One check takes a fraction of a second, so a full queue is a few
/// seconds of work: a judge behind it still gets an answer soon.
pub const QUEUE: usize = 4;

/// How often the checker looks for the unlock file while idle.
const UNLOCK_POLL: Duration = Duration::from_secs(1);

/// How many addresses of wrong tries are shown to the judges.
const ADDRESSES_SHOWN: usize = 10;

/// When PIN checks lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lockout {
    /// Wrong PINs in a row (from any address) that lock the checks.
    pub after: u32,
    /// The first lock's length; each lock after it is twice as long.
    pub base: Duration,
    /// The longest lock.
    pub max: Duration,
}

impl Default for Lockout {
    fn default() -> Lockout {
        Lockout {
            after: 5,
            base: Duration::from_secs(60),
            max: Duration::from_secs(3600),
        }
    }
}

/// The answer to one login's PIN.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The PIN is the one of hash number `n` (in the order given to
    /// [`Checker::start`]).
    Match(usize),
    Wrong,
    /// The checks are locked for this much longer; nothing was checked.
    Locked(Duration),
    /// The queue is full (or the checker stopped); nothing was checked.
    Busy,
}

/// What the judges are shown about wrong PINs (`GET /api/security`).
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Security {
    /// Whether logins are refused now.
    pub locked: bool,
    /// Seconds until they are taken again (0 when not locked).
    pub locked_for_s: u64,
    /// Wrong PINs since the daemon started (or since `lanecall unlock`).
    pub wrong_pins: u64,
    /// Wrong PINs since the last lock or right PIN: the lock comes at
    /// `lock_after`.
    pub wrong_in_a_row: u32,
    pub lock_after: u32,
    /// How many times the checks locked.
    pub lockouts: u32,
    /// The addresses the last wrong PINs came from, newest first, each once.
    pub addresses: Vec<String>,
    /// Argon2 checks run since start: a locked login does not add to it.
    pub pin_checks: u64,
}

/// The lockout's state. Times are on the monotonic clock, so setting the
/// wall clock neither ends nor extends a lock.
#[derive(Debug)]
struct Guard {
    lockout: Lockout,
    wrong_in_a_row: u32,
    wrong_total: u64,
    /// Locks since the last right PIN or quiet spell: each doubles.
    locks_in_a_row: u32,
    lockouts: u32,
    locked_until: Option<Instant>,
    last_wrong: Option<Instant>,
    addresses: VecDeque<IpAddr>,
    checks: u64,
}

impl Guard {
    fn new(lockout: Lockout) -> Guard {
        Guard {
            lockout,
            wrong_in_a_row: 0,
            wrong_total: 0,
            locks_in_a_row: 0,
            lockouts: 0,
            locked_until: None,
            last_wrong: None,
            addresses: VecDeque::new(),
            checks: 0,
        }
    }

    /// How much longer the checks are locked, if they are.
    fn locked(&self, now: Instant) -> Option<Duration> {
        self.locked_until
            .and_then(|until| until.checked_duration_since(now))
            .filter(|left| !left.is_zero())
    }

    fn wrong(&mut self, now: Instant, from: Option<IpAddr>) {
        // A long quiet spell after the last lock ends the doubling: a judge
        // who mistypes next week is not locked out for an hour.
        if self
            .last_wrong
            .is_some_and(|t| now.saturating_duration_since(t) > self.lockout.max * 2)
        {
            self.locks_in_a_row = 0;
        }
        self.last_wrong = Some(now);
        self.wrong_total += 1;
        self.wrong_in_a_row += 1;
        if let Some(ip) = from {
            self.addresses.retain(|a| *a != ip);
            self.addresses.push_front(ip);
            self.addresses.truncate(ADDRESSES_SHOWN);
        }
        if self.wrong_in_a_row >= self.lockout.after {
            let doubling = 2u32.saturating_pow(self.locks_in_a_row.min(31));
            let length = self
                .lockout
                .base
                .saturating_mul(doubling)
                .min(self.lockout.max);
            self.locked_until = Some(now + length);
            self.locks_in_a_row += 1;
            self.lockouts += 1;
            self.wrong_in_a_row = 0;
            let addresses: Vec<String> = self.addresses.iter().map(IpAddr::to_string).collect();
            // Once per lock, not per try: a guessing run must not flood the
            // log (or the card it is on).
            tracing::warn!(
                wrong_pins = self.wrong_total,
                seconds = length.as_secs(),
                addresses = addresses.join(" "),
                "PIN checks locked after {} wrong PINs in a row: someone may be guessing the \
                 judge PIN; `lanecall unlock` ends the lock",
                self.lockout.after,
            );
        }
    }

    fn right(&mut self) {
        self.wrong_in_a_row = 0;
        self.locks_in_a_row = 0;
    }

    fn unlock(&mut self) {
        *self = Guard {
            checks: self.checks,
            ..Guard::new(self.lockout)
        };
    }

    fn security(&self, now: Instant) -> Security {
        let left = self.locked(now);
        Security {
            locked: left.is_some(),
            // Rounded up: "0 s left" while still locked would mislead.
            locked_for_s: left.map_or(0, |d| d.as_secs() + u64::from(d.subsec_nanos() > 0)),
            wrong_pins: self.wrong_total,
            wrong_in_a_row: self.wrong_in_a_row,
            lock_after: self.lockout.after,
            lockouts: self.lockouts,
            addresses: self.addresses.iter().map(IpAddr::to_string).collect(),
            pin_checks: self.checks,
        }
    }
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
        if let Some(left) = lock(&self.guard).locked(Instant::now()) {
            return Verdict::Locked(left);
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
        if let Some(left) = lock(guard).locked(Instant::now()) {
            let _ = reply.send(Verdict::Locked(left));
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
                    g.right();
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
    fn locks_after_the_set_number_doubling_up_to_the_max() {
        let lockout = Lockout {
            after: 3,
            base: Duration::from_secs(60),
            max: Duration::from_secs(200),
        };
        let mut g = Guard::new(lockout);
        let t0 = Instant::now();
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        g.wrong(t0, Some(ip));
        g.wrong(t0, Some(ip));
        assert_eq!(g.locked(t0), None);
        g.wrong(t0, None);
        assert_eq!(g.locked(t0), Some(Duration::from_secs(60)));
        let t1 = t0 + Duration::from_secs(61);
        assert_eq!(g.locked(t1), None);
        for _ in 0..3 {
            g.wrong(t1, None);
        }
        assert_eq!(g.locked(t1), Some(Duration::from_secs(120)));
        let t2 = t1 + Duration::from_secs(121);
        for _ in 0..3 {
            g.wrong(t2, None);
        }
        assert_eq!(g.locked(t2), Some(Duration::from_secs(200)), "capped");
        let s = g.security(t2);
        assert_eq!((s.wrong_pins, s.lockouts, s.addresses.len()), (9, 3, 1));
        g.unlock();
        assert_eq!(g.locked(t2), None);
    }

    #[test]
    fn a_right_pin_ends_the_doubling() {
        let mut g = Guard::new(Lockout {
            after: 1,
            ..Lockout::default()
        });
        let t0 = Instant::now();
        g.wrong(t0, None);
        let t1 = t0 + Duration::from_secs(61);
        g.right();
        g.wrong(t1, None);
        assert_eq!(g.locked(t1), Some(Duration::from_secs(60)));
    }

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

//! The judges' sessions, kept by the server: the cookie only names one by a
//! random id (signed by the jar), so a logout, a PIN change or the end of a
//! session really ends it, whatever a copied cookie says.
//!
//! A session ends when it has not been used for the idle time, or when its
//! full length is up, whichever comes first. Both are measured on the
//! monotonic clock while the daemon runs, so setting the wall clock (a Pi
//! without its RTC getting NTP time, or someone's mistake) neither ends nor
//! revives a session.
//!
//! The list is kept in `state_dir/sessions.json` so that a restart (a
//! watchdog's, a power cut's) does not log the judges out mid-block. The
//! file holds each session's remaining time; at start the wall-clock time
//! since the file was written is taken off, but only ever taken off: a
//! clock set backwards gives a session no more than it had.
//!
//! A session is made with one of the config's logins and remembers a
//! digest of it ([`login_digest`]): of a named judge's name and PIN hash,
//! or of the shared PIN's hash. When the config changes that login (a new
//! PIN hash, a judge renamed or removed), the sessions made with the old
//! one are dropped at start: a judge renamed with the same PIN does not go
//! on acting under the old name.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The file in the state directory.
pub const SESSIONS_FILE: &str = "sessions.json";

/// At most this many sessions; a new one drops the oldest. A lane has a
/// few judges and a few tablets; the bound keeps a judge logging in over
/// and over from growing the list.
pub const MAX_SESSIONS: usize = 32;

/// The file is written again for a session that is only being used (its
/// idle time moving on) at most this often: a restart may take this much
/// off a judge's idle time, and the card is not written on each request.
const SAVE_IDLE_EVERY: Duration = Duration::from_secs(60);

/// A digest of a configured PIN hash: which PIN a session was made with,
/// without keeping the hash (or anything that could check a guess) in the
/// sessions file.
pub fn pin_digest(hash: &str) -> String {
    hex16(&Sha256::digest(hash.as_bytes()))
}

/// A digest of one of the config's logins, which a session keeps: the
/// shared PIN's is [`pin_digest`] of its hash (`name` `None`); a named
/// judge's covers their name too, so renaming or removing the judge ends
/// the sessions made under the old name, as a new PIN does.
pub fn login_digest(name: Option<&str>, hash: &str) -> String {
    let Some(name) = name else {
        return pin_digest(hash);
    };
    let mut d = Sha256::new();
    // A name has no control character: the NULs keep the parts apart.
    d.update(b"judge\0");
    d.update(name.as_bytes());
    d.update(b"\0");
    d.update(hash.as_bytes());
    hex16(&d.finalize())
}

/// The first 16 bytes of a digest, in hex.
fn hex16(d: &[u8]) -> String {
    d.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// How long sessions last.
#[derive(Clone, Copy, Debug)]
pub struct Lengths {
    /// From login, whatever the use.
    pub absolute: Duration,
    /// Without a request.
    pub idle: Duration,
}

#[derive(Debug, Clone)]
struct Entry {
    id: String,
    judge: String,
    pin: String,
    ends: Instant,
    idle_ends: Instant,
    /// `idle_ends` as last written to the file.
    saved_idle_ends: Instant,
}

#[derive(Serialize, Deserialize)]
struct FileEntry {
    id: String,
    judge: String,
    pin: String,
    left_s: u64,
    idle_left_s: u64,
}

#[derive(Serialize, Deserialize)]
struct File {
    /// Unix seconds when written.
    saved: u64,
    sessions: Vec<FileEntry>,
}

struct Inner {
    /// Oldest first.
    list: Vec<Entry>,
    /// Bumped at each change to save.
    generation: u64,
}

/// The session list. Cheap to clone (shared).
#[derive(Clone)]
pub struct Sessions {
    inner: Arc<Mutex<Inner>>,
    lengths: Lengths,
    file: Option<PathBuf>,
    /// The last generation written, so a slow write never replaces a newer
    /// one.
    written: Arc<Mutex<u64>>,
}

fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn unix_now() -> u64 {
    crate::wall_clock::unix_now()
}

impl Sessions {
    /// The sessions kept in `file` (none if it is `None`, missing or
    /// unreadable) whose login digest ([`login_digest`]) is among `pins`.
    pub fn load(file: Option<PathBuf>, lengths: Lengths, pins: &[String]) -> Sessions {
        let now = Instant::now();
        let mut list = Vec::new();
        if let Some(path) = &file
            && let Ok(text) = std::fs::read_to_string(path)
        {
            match serde_json::from_str::<File>(&text) {
                Ok(saved) => {
                    let gone = Duration::from_secs(unix_now().saturating_sub(saved.saved));
                    for e in saved.sessions {
                        let left = Duration::from_secs(e.left_s).min(lengths.absolute);
                        let idle = Duration::from_secs(e.idle_left_s).min(lengths.idle);
                        let (Some(left), Some(idle)) =
                            (left.checked_sub(gone), idle.checked_sub(gone))
                        else {
                            continue;
                        };
                        // A login the config no longer has (a new PIN, a
                        // judge renamed or removed): the session ends.
                        let known = pins.contains(&e.pin);
                        let sane = crate::ports::valid_name(&e.judge).is_ok() && e.id.len() == 64;
                        if known && sane && !left.is_zero() && !idle.is_zero() {
                            list.push(Entry {
                                id: e.id,
                                judge: e.judge,
                                pin: e.pin,
                                ends: now + left,
                                idle_ends: now + idle,
                                saved_idle_ends: now + idle,
                            });
                        }
                    }
                    list.truncate(MAX_SESSIONS);
                }
                Err(e) => {
                    tracing::warn!(file = %path.display(), "the saved sessions cannot be read, judges log in again: {e}");
                }
            }
        }
        let kept = list.len();
        let sessions = Sessions {
            inner: Arc::new(Mutex::new(Inner {
                list,
                generation: 1,
            })),
            lengths,
            file,
            written: Arc::new(Mutex::new(0)),
        };
        if kept > 0 {
            tracing::info!(
                sessions = kept,
                "judges' sessions kept from before the restart"
            );
        }
        // What was dropped (expired, revoked by a PIN change) is dropped
        // from the file too.
        sessions.save_now();
        sessions
    }

    /// A new session for `judge`, made with the PIN whose digest is `pin`:
    /// its id, or `None` if the system gave no random bytes.
    pub fn create(&self, judge: &str, pin: &str) -> Option<String> {
        let id = super::auth::secret().ok()?;
        let now = Instant::now();
        {
            let mut inner = locked(&self.inner);
            inner.list.push(Entry {
                id: id.clone(),
                judge: judge.to_owned(),
                pin: pin.to_owned(),
                ends: now + self.lengths.absolute,
                idle_ends: now + self.lengths.idle,
                saved_idle_ends: now + self.lengths.idle,
            });
            if inner.list.len() > MAX_SESSIONS {
                let over = inner.list.len() - MAX_SESSIONS;
                inner.list.drain(..over);
            }
            inner.generation += 1;
        }
        self.save();
        Some(id)
    }

    /// The judge of session `id` if it is still good; using it moves its
    /// idle end on.
    pub fn judge(&self, id: &str) -> Option<String> {
        self.login(id).map(|(judge, _)| judge)
    }

    /// The judge of session `id` and the digest of the PIN they logged in
    /// with, if it is still good; using it moves its idle end on.
    pub fn login(&self, id: &str) -> Option<(String, String)> {
        self.login_at(id, Instant::now())
    }

    /// [`Sessions::login`] at `now` (a test's clock).
    fn login_at(&self, id: &str, now: Instant) -> Option<(String, String)> {
        let (judge, save) = {
            let mut inner = locked(&self.inner);
            let i = inner.list.iter().position(|e| e.id == id)?;
            let e = &mut inner.list[i];
            if now >= e.ends || now >= e.idle_ends {
                inner.list.remove(i);
                inner.generation += 1;
                (None, true)
            } else {
                e.idle_ends = (now + self.lengths.idle).min(e.ends);
                let save =
                    e.idle_ends.saturating_duration_since(e.saved_idle_ends) >= SAVE_IDLE_EVERY;
                let judge = (e.judge.clone(), e.pin.clone());
                if save {
                    inner.generation += 1;
                }
                (Some(judge), save)
            }
        };
        if save {
            self.save();
        }
        judge
    }

    /// Ends session `id`.
    pub fn revoke(&self, id: &str) {
        let removed = {
            let mut inner = locked(&self.inner);
            let before = inner.list.len();
            inner.list.retain(|e| e.id != id);
            let removed = inner.list.len() != before;
            if removed {
                inner.generation += 1;
            }
            removed
        };
        if removed {
            self.save();
        }
    }

    /// How many sessions are open.
    pub fn len(&self) -> usize {
        locked(&self.inner).list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The file's content now, and its generation; marks the idle ends as
    /// saved.
    fn snapshot(&self) -> (u64, String) {
        let now = Instant::now();
        let mut inner = locked(&self.inner);
        let mut sessions = Vec::new();
        for e in &mut inner.list {
            e.saved_idle_ends = e.idle_ends;
            sessions.push(FileEntry {
                id: e.id.clone(),
                judge: e.judge.clone(),
                pin: e.pin.clone(),
                left_s: e.ends.saturating_duration_since(now).as_secs(),
                idle_left_s: e.idle_ends.saturating_duration_since(now).as_secs(),
            });
        }
        let file = File {
            saved: unix_now(),
            sessions,
        };
        (
            inner.generation,
            serde_json::to_string(&file).unwrap_or_default(),
        )
    }

    /// Writes the file off the async threads (it is synced to the card).
    fn save(&self) {
        if self.file.is_none() {
            return;
        }
        let me = self.clone();
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => {
                rt.spawn_blocking(move || me.save_now());
            }
            Err(_) => me.save_now(),
        }
    }

    fn save_now(&self) {
        let Some(path) = &self.file else { return };
        let mut written = locked(&self.written);
        let (generation, text) = self.snapshot();
        if generation <= *written {
            return;
        }
        // Only the daemon's user may read it: an id in it is a login.
        match crate::atomic::atomic_write(path, text.as_bytes(), Some(crate::atomic::PRIVATE)) {
            Ok(()) => *written = generation,
            Err(e) => {
                tracing::warn!(file = %path.display(), "cannot keep the sessions; judges log in again after a restart: {e}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lengths() -> Lengths {
        Lengths {
            absolute: Duration::from_secs(3600),
            idle: Duration::from_secs(600),
        }
    }

    #[test]
    fn sessions_are_bounded_and_revocable() {
        let s = Sessions::load(None, lengths(), &[]);
        let first = s.create("A", "p").unwrap();
        let ids: Vec<String> = (0..MAX_SESSIONS)
            .map(|_| s.create("B", "p").unwrap())
            .collect();
        assert_eq!(s.len(), MAX_SESSIONS);
        assert_eq!(s.judge(&first), None, "the oldest is dropped");
        assert_eq!(s.judge(&ids[0]).as_deref(), Some("B"));
        s.revoke(&ids[0]);
        assert_eq!(s.judge(&ids[0]), None);
    }

    #[test]
    fn a_session_unused_for_the_idle_time_ends_and_each_use_moves_it_on() {
        let s = Sessions::load(None, lengths(), &[]);
        let start = Instant::now();
        let id = s.create("A", "p").unwrap();
        let idle = lengths().idle;
        let second = Duration::from_secs(1);
        // Used just before its idle end: good, and the end moves on.
        let used = start + idle - second;
        assert_eq!(s.login_at(&id, used).map(|l| l.0).as_deref(), Some("A"));
        assert!(s.login_at(&id, used + idle - second).is_some());
        // Then unused for longer than the idle time: ended for good.
        let late = used + idle - second + idle + second;
        assert_eq!(s.login_at(&id, late), None);
        assert_eq!(s.judge(&id), None);
        assert!(s.is_empty());
        // And never past its absolute end, however often used.
        let id = s.create("B", "p").unwrap();
        let mut t = Instant::now();
        while t < start + lengths().absolute {
            assert!(s.login_at(&id, t).is_some());
            t += idle / 2;
        }
        assert_eq!(s.login_at(&id, start + lengths().absolute + idle), None);
    }

    #[test]
    fn a_saved_session_comes_back_only_for_the_same_pin_and_never_longer() {
        let dir = std::env::temp_dir().join(format!("lanecall-sessions-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(SESSIONS_FILE);
        let _ = std::fs::remove_file(&file);
        let s = Sessions::load(Some(file.clone()), lengths(), &["p".into()]);
        let id = s.create("Judge", "p").unwrap();
        s.save_now();
        let again = Sessions::load(Some(file.clone()), lengths(), &["p".into()]);
        assert_eq!(again.judge(&id).as_deref(), Some("Judge"));
        // Written with the clock far ahead, read with it back: no more time.
        let text = std::fs::read_to_string(&file).unwrap();
        let mut saved: File = serde_json::from_str(&text).unwrap();
        saved.saved += 10 * 365 * 86400;
        std::fs::write(&file, serde_json::to_string(&saved).unwrap()).unwrap();
        let back = Sessions::load(Some(file.clone()), lengths(), &["p".into()]);
        assert_eq!(back.judge(&id).as_deref(), Some("Judge"));
        // Written long ago (the daemon was off): the time is gone.
        saved.saved -= 20 * 365 * 86400;
        std::fs::write(&file, serde_json::to_string(&saved).unwrap()).unwrap();
        let old = Sessions::load(Some(file.clone()), lengths(), &["p".into()]);
        assert_eq!(old.judge(&id), None);
        // Another PIN now.
        std::fs::write(&file, text).unwrap();
        let other = Sessions::load(Some(file.clone()), lengths(), &["q".into()]);
        assert_eq!(other.judge(&id), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_named_judges_digest_changes_with_the_name_and_the_shared_pins_does_not() {
        let hash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA";
        assert_eq!(login_digest(None, hash), pin_digest(hash));
        let orlova = login_digest(Some("Judge Orlova"), hash);
        assert_eq!(orlova, login_digest(Some("Judge Orlova"), hash));
        assert_ne!(orlova, login_digest(Some("Judge Petrova"), hash));
        assert_ne!(orlova, pin_digest(hash));
        assert_eq!(orlova.len(), 32);

        let dir = std::env::temp_dir().join(format!("lanecall-renamed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(SESSIONS_FILE);
        let _ = std::fs::remove_file(&file);
        let s = Sessions::load(Some(file.clone()), lengths(), std::slice::from_ref(&orlova));
        let id = s.create("Judge Orlova", &orlova).unwrap();
        s.save_now();
        let renamed = login_digest(Some("Judge Petrova"), hash);
        let again = Sessions::load(Some(file.clone()), lengths(), &[renamed]);
        assert_eq!(again.judge(&id), None, "the old name's session ended");
        assert!(again.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}

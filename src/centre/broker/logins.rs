//! The embedded broker's logins: the `passwords` file, whose plain
//! `user:password` lines are replaced by argon2id hashes at start, and the
//! check of a CONNECT's login against them.
//!
//! Never logs or returns a password; an error names the file and line.

use std::collections::{HashMap, HashSet};
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};
use tokio::sync::Semaphore;

/// Logins verified this run kept at most; past that the list starts
/// again (each login is then verified once more).
const MAX_VERIFIED: usize = 4096;
/// argon2 checks run at once: two cores' worth. 128 lanes logging in
/// together after the centre's start wait half as long as one at a time
/// (BENCHMARKS.md, "The centre: 128 lanes").
const CHECKS_AT_ONCE: usize = 2;

/// One line of the `passwords` file.
enum Line {
    /// A comment or a blank line, kept as it is.
    Other(String),
    /// `user:secret`: a plain password, or an argon2 hash of one.
    Login { user: String, secret: String },
}

impl Line {
    fn hashed(&self) -> bool {
        matches!(self, Line::Login { secret, .. } if secret.starts_with("$argon2"))
    }
}

/// Reads a `user:password` file: one login a line; blank lines and lines
/// starting with `#` are kept as they are.
fn read_passwords(path: &Path, text: &str) -> Result<Vec<Line>, String> {
    let mut lines = Vec::new();
    let mut first: HashMap<&str, usize> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let at = || format!("{} line {}", path.display(), i + 1);
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with('#') {
            lines.push(Line::Other(line.to_owned()));
            continue;
        }
        let Some((user, secret)) = line
            .split_once(':')
            .filter(|(u, p)| !u.is_empty() && !p.is_empty())
        else {
            return Err(format!("{}: not `user:password`", at()));
        };
        if let Some(j) = first.insert(user, i + 1) {
            return Err(format!("{}: {user} again (first on line {j})", at()));
        }
        let login = Line::Login {
            user: user.to_owned(),
            secret: secret.to_owned(),
        };
        if login.hashed()
            && let Err(e) = crate::web::check_pin_hash(secret)
        {
            return Err(format!("{}: not an argon2 hash: {e}", at()));
        }
        lines.push(login);
    }
    Ok(lines)
}

/// An argon2id PHC string of `password`, with a fresh salt; argon2's
/// default cost, the judges' PINs' (OWASP's minimum, src/web/auth.rs),
/// in the process's one argon2 buffer.
fn hash(password: &str) -> Result<String, String> {
    crate::web::auth::hash_secret(password.as_bytes())
        .map_err(|e| format!("cannot hash a password: {e}"))
}

/// The logins of the `passwords` file at `path` (user, argon2 hash).
/// Refuses a file everyone may read. Plain passwords are hashed and the
/// file rewritten in one rename, keeping its mode and owner; when it
/// cannot be rewritten the centre says so and goes on with the hashes.
pub fn load(path: &Path) -> Result<Vec<(String, String)>, String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if meta.permissions().mode() & 0o004 != 0 {
        return Err(format!(
            "{0} is readable by everyone: run `chmod 640 {0}`",
            path.display()
        ));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut lines = read_passwords(path, &text)?;
    let plain = lines
        .iter()
        .filter(|l| matches!(l, Line::Login { .. }) && !l.hashed())
        .count();
    let mut logins = Vec::new();
    let mut rewritten = String::new();
    for line in &mut lines {
        match line {
            Line::Other(text) => rewritten += text,
            Line::Login { user, secret } => {
                if !secret.starts_with("$argon2") {
                    *secret = hash(secret)?;
                }
                rewritten += &format!("{user}:{secret}");
                logins.push((user.clone(), secret.clone()));
            }
        }
        rewritten.push('\n');
    }
    if plain > 0 {
        match crate::atomic::atomic_write(path, rewritten.as_bytes(), None) {
            Ok(()) => tracing::info!(
                file = %path.display(),
                "{plain} plain password(s) replaced by their argon2 hashes"
            ),
            Err(e) => tracing::warn!(
                file = %path.display(),
                "cannot replace its plain passwords by their hashes; they stay there in plain text: {e}"
            ),
        }
    }
    Ok(logins)
}

fn digest(password: &str) -> [u8; 32] {
    Sha256::digest(password.as_bytes()).into()
}

/// The broker's logins, and those verified this run.
pub struct Logins {
    /// User → argon2 PHC string.
    hashes: HashMap<String, String>,
    centre_user: String,
    /// The SHA-256 of the centre's password made at start.
    centre: [u8; 32],
    /// (user, SHA-256 of the password) of the logins verified this run:
    /// a lane that connects again is not verified again.
    verified: Mutex<HashSet<(String, [u8; 32])>>,
    /// argon2 is slow on purpose (and takes 19 MiB): [`CHECKS_AT_ONCE`]
    /// verifications at a time.
    turn: Arc<Semaphore>,
}

impl Logins {
    /// `hashes`: (user, argon2 PHC string); the centre logs in as
    /// `centre_user` with `centre_password` (or its line in `hashes`).
    pub fn new(hashes: Vec<(String, String)>, centre_user: &str, centre_password: &str) -> Logins {
        Logins {
            hashes: hashes.into_iter().collect(),
            centre_user: centre_user.to_owned(),
            centre: digest(centre_password),
            verified: Mutex::new(HashSet::new()),
            turn: Arc::new(Semaphore::new(CHECKS_AT_ONCE)),
        }
    }

    /// The login names, the centre's included.
    pub fn users(&self) -> impl Iterator<Item = &str> {
        self.hashes
            .keys()
            .map(String::as_str)
            .chain(std::iter::once(self.centre_user.as_str()))
    }

    /// Whether `user` is a login.
    pub fn knows(&self, user: &str) -> bool {
        user == self.centre_user || self.hashes.contains_key(user)
    }

    /// Whether `user` logs in with `password`. A login not yet verified
    /// this run waits its turn for an argon2 check on a blocking thread.
    pub async fn check(self: &Arc<Self>, user: &str, password: &str) -> bool {
        let key = (user.to_owned(), digest(password));
        if user == self.centre_user && key.1 == self.centre {
            return true;
        }
        let Some(hash) = self.hashes.get(user).cloned() else {
            return false;
        };
        if self.was_verified(&key) {
            return true;
        }
        let Ok(turn) = Arc::clone(&self.turn).acquire_owned().await else {
            return false;
        };
        let (logins, password) = (Arc::clone(self), password.to_owned());
        // The permit goes with the check: a connection given up while it
        // runs does not let a second one start beside it.
        tokio::task::spawn_blocking(move || {
            let _turn = turn;
            if logins.was_verified(&key) {
                return true;
            }
            let ok = crate::web::verify_pin(&password, &hash);
            if ok {
                let mut verified = logins.verified.lock().unwrap_or_else(|e| e.into_inner());
                if verified.len() >= MAX_VERIFIED {
                    verified.clear();
                }
                verified.insert(key);
            }
            ok
        })
        .await
        .unwrap_or(false)
    }

    fn was_verified(&self, key: &(String, [u8; 32])) -> bool {
        self.verified
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt as _;

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("lanecall-logins-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn write(path: &Path, text: &str, mode: u32) {
        std::fs::write(path, text).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn plain_passwords_are_hashed_in_place_and_hashes_kept() {
        let d = dir("hash");
        let path = d.join("passwords");
        write(&path, "# the lanes\nlane1:one\n\nlane2:two\n", 0o640);
        let first = load(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("one") && !text.contains(":two"), "{text}");
        assert!(
            text.starts_with("# the lanes\nlane1:$argon2id$v=19$m=19456,t=2,p=1$"),
            "{text}"
        );
        assert!(text.contains("\n\nlane2:$argon2id$"), "{text}");
        assert_eq!(std::fs::metadata(&path).unwrap().mode() & 0o777, 0o640);
        assert!(crate::web::verify_pin("one", &first[0].1));
        // Already hashed: read as it is, the file untouched.
        assert_eq!(load(&path).unwrap(), first);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }

    #[test]
    fn a_file_everyone_reads_and_bad_lines_are_refused_without_the_password() {
        let d = dir("bad");
        let path = d.join("passwords");
        write(&path, "lane1:one\n", 0o644);
        let e = load(&path).unwrap_err();
        assert!(e.contains(&format!("chmod 640 {}", path.display())), "{e}");
        for (text, says) in [
            ("lane1:one\nlane2-secret\n", "line 2: not `user:password`"),
            ("lane1:\n", "line 1: not `user:password`"),
            (":secret\n", "line 1: not `user:password`"),
            (
                "lane1:one\nlane1:secret\n",
                "line 2: lane1 again (first on line 1)",
            ),
            ("lane1:$argon2id$secret\n", "line 1: not an argon2 hash"),
        ] {
            write(&path, text, 0o600);
            let e = load(&path).unwrap_err();
            assert!(e.contains(&format!("{} {says}", path.display())), "{e}");
            assert!(!e.contains("secret"), "{e}");
        }
    }

    #[tokio::test]
    async fn logins_are_checked_and_the_centre_has_its_own() {
        let logins = Arc::new(Logins::new(
            vec![("lane1".into(), hash("one").unwrap())],
            "centre",
            "made-at-start",
        ));
        assert!(logins.check("lane1", "one").await);
        assert!(logins.was_verified(&("lane1".into(), digest("one"))));
        assert!(logins.check("lane1", "one").await, "again, from the list");
        assert!(!logins.check("lane1", "two").await);
        assert!(!logins.check("lane2", "one").await);
        assert!(logins.check("centre", "made-at-start").await);
        assert!(!logins.check("centre", "one").await);
        let mut users: Vec<&str> = logins.users().collect();
        users.sort();
        assert_eq!(users, ["centre", "lane1"]);
    }
}

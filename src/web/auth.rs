//! Judges' PINs and the session cookie.
//!
//! A judge PIN is stored only as an argon2id hash (a PHC string made by
//! `lanecall hash-pin PIN`); the PIN itself never reaches a file or a log.
//! A PIN is 6 to 12 digits: with the lockout ([`super::pins`]) a guesser
//! gets a few dozen tries an hour, and a million PINs then take years.
//! A login gives a session ([`super::sessions`]); the cookie holds only its
//! random id, signed with the daemon's key.
//!
//! This module must never log a PIN, a hash or a cookie value, and never
//! accept a cookie whose signature does not check out.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use argon2::password_hash::phc::{Output, ParamsString, Salt};
use argon2::{Algorithm, Argon2, Block, Params, PasswordHash, Version};
use axum_extra::extract::cookie::{Cookie, Key, SameSite, SignedCookieJar};

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "lanecall_session";

/// The argon2id cost: OWASP's minimum (19 MiB, 2 passes, 1 lane). A
/// verification takes a fraction of a second on a Raspberry Pi 4; more
/// memory would make a burst of logins a memory problem on a 1 GB board.
const M_COST_KIB: u32 = 19 * 1024;
const T_COST: u32 = 2;
const P_COST: u32 = 1;

/// The fewest digits a PIN has.
pub const PIN_MIN_DIGITS: usize = 6;

/// The most digits a PIN has: the panel's PIN field takes no more.
pub const PIN_MAX_DIGITS: usize = 12;

/// Whether `pin` has a PIN's shape: 6 to 12 digits 0-9. A login with
/// anything else is answered without an argon2 check.
pub fn pin_shape_ok(pin: &str) -> bool {
    (PIN_MIN_DIGITS..=PIN_MAX_DIGITS).contains(&pin.len())
        && pin.bytes().all(|b| b.is_ascii_digit())
}

/// Why a PIN could not be hashed.
#[derive(Debug, thiserror::Error)]
pub enum PinError {
    #[error(
        "a PIN is {PIN_MIN_DIGITS} to {PIN_MAX_DIGITS} digits (0-9), nothing else: choose another"
    )]
    Shape,
    #[error("cannot hash the PIN: {0}")]
    Hash(String),
}

/// Why a configured PIN hash cannot be used.
#[derive(Debug, thiserror::Error)]
#[error(
    "the judge PIN hash is not an argon2 PHC string ({0}): make one with `lanecall hash-pin PIN`"
)]
pub struct PinHashError(String);

/// 32 random bytes from the operating system, in hex: a session id, a
/// password or a mark no one can guess.
pub fn secret() -> Result<String, String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| format!("the system gave no random bytes: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A PHC hash string, parsed once, checked against a PIN or a password in
/// argon2 memory its caller gives.
pub(crate) struct StoredHash {
    argon2: Argon2<'static>,
    salt: Vec<u8>,
    output: Output,
}

impl StoredHash {
    /// The hash, its cost parameters its own; `None` if it does not parse
    /// (it then matches nothing).
    pub(crate) fn parse(hash: &str) -> Option<StoredHash> {
        let phc = PasswordHash::new(hash).ok()?;
        let algorithm = Algorithm::try_from(phc.algorithm.as_str()).ok()?;
        let version = match phc.version {
            Some(v) => Version::try_from(v).ok()?,
            None => Version::default(),
        };
        let params = Params::try_from(&phc).ok()?;
        let salt = phc.salt.as_ref()?.as_ref().to_vec();
        let output = phc.hash?;
        Some(StoredHash {
            argon2: Argon2::new(algorithm, version, params),
            salt,
            output,
        })
    }

    /// The argon2 memory a check takes, in blocks of 1 KiB.
    pub(crate) fn blocks(&self) -> usize {
        self.argon2.params().block_count()
    }

    /// Whether `secret` gives this hash, computed in `memory` (at least
    /// [`StoredHash::blocks`] long) and compared in constant time.
    pub(crate) fn matches(&self, secret: &[u8], memory: &mut [Block]) -> bool {
        let mut out = [0u8; Output::MAX_LENGTH];
        let Some(out) = out.get_mut(..self.output.len()) else {
            return false;
        };
        if self
            .argon2
            .hash_password_into_with_memory(secret, &self.salt, out, memory)
            .is_err()
        {
            return false;
        }
        // `Output`'s equality is constant-time.
        Output::new(out).is_ok_and(|o| o == self.output)
    }
}

/// The argon2 memory of [`hash_pin`], [`verify_pin`] and [`hash_secret`]:
/// one buffer for the whole process, made at the first hash or check,
/// grown to the largest cost met and then kept. argon2 allocating its
/// 19 MiB afresh for each call made glibc keep them (it raises its `mmap`
/// threshold to the size of the last block freed, and later blocks come
/// from the heap and stay): a centre that hashed 64 MQTT passwords at
/// start held 1.2 GB (BENCHMARKS.md). The PIN checker keeps its own
/// buffer on its own thread ([`super::pins`]).
static MEMORY: Mutex<Vec<Block>> = Mutex::new(Vec::new());

/// Runs `work` in the shared argon2 memory, `blocks` long; one hash at a
/// time.
fn in_memory<T>(blocks: usize, work: impl FnOnce(&mut [Block]) -> T) -> T {
    let mut memory = MEMORY.lock().unwrap_or_else(PoisonError::into_inner);
    if memory.len() < blocks {
        // The smaller buffer goes before the larger one is made.
        *memory = Vec::new();
        *memory = vec![Block::default(); blocks];
    }
    work(&mut memory[..blocks])
}

/// Hashes a PIN for the config: an argon2id PHC string
/// (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`) with a fresh random salt
/// from the operating system.
pub fn hash_pin(pin: &str) -> Result<String, PinError> {
    if !pin_shape_ok(pin) {
        return Err(PinError::Shape);
    }
    hash_secret(pin.as_bytes()).map_err(PinError::Hash)
}

/// An argon2id PHC string of `secret` at the PIN's cost (OWASP's minimum,
/// argon2's default), with a fresh random salt of 16 bytes: a PIN's or an
/// MQTT password's.
pub fn hash_secret(secret: &[u8]) -> Result<String, String> {
    let params = Params::new(M_COST_KIB, T_COST, P_COST, None).map_err(|e| e.to_string())?;
    let mut salt = [0u8; Salt::RECOMMENDED_LENGTH];
    getrandom::fill(&mut salt).map_err(|e| format!("the system gave no random bytes: {e}"))?;
    let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
    let argon2 = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    in_memory(params.block_count(), |memory| {
        argon2.hash_password_into_with_memory(secret, &salt, &mut out, memory)
    })
    .map_err(|e| e.to_string())?;
    let phc = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params).map_err(|e| e.to_string())?,
        salt: Some(Salt::new(&salt).map_err(|e| e.to_string())?),
        hash: Some(Output::new(&out).map_err(|e| e.to_string())?),
    };
    Ok(phc.to_string())
}

/// Whether `pin` matches `hash` (a PHC string). The cost parameters are the
/// hash's own. A hash that does not parse matches nothing. Slow on purpose:
/// call it off the async threads.
pub fn verify_pin(pin: &str, hash: &str) -> bool {
    let Some(stored) = StoredHash::parse(hash) else {
        return false;
    };
    in_memory(stored.blocks(), |memory| {
        stored.matches(pin.as_bytes(), memory)
    })
}

/// Checks that a configured hash is a PHC string this build can verify
/// against, so a typo in the config is reported at start, not as "wrong
/// PIN" at the first login.
pub fn check_pin_hash(hash: &str) -> Result<(), PinHashError> {
    let parsed = PasswordHash::new(hash).map_err(|e| PinHashError(e.to_string()))?;
    Algorithm::try_from(parsed.algorithm.as_str())
        .map(|_| ())
        .map_err(|e| PinHashError(e.to_string()))
}

/// The session id in this request's cookie, if its signature checks out.
/// Whether the session is still open is the session list's to say.
pub(crate) fn session_id(jar: &SignedCookieJar) -> Option<String> {
    let cookie = jar.get(SESSION_COOKIE)?;
    let id = cookie.value();
    (id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit())).then(|| id.to_owned())
}

/// The jar with the cookie for session `id`, kept by the browser for
/// `length`. `secure` when the panel is served over TLS: the browser then
/// never sends it over plain HTTP.
pub(crate) fn start_session(
    jar: SignedCookieJar,
    id: String,
    length: Duration,
    secure: bool,
) -> SignedCookieJar {
    // SameSite=Strict keeps other sites' pages from using it.
    let mut cookie = Cookie::build((SESSION_COOKIE, id))
        .http_only(true)
        .secure(secure)
        .same_site(SameSite::Strict)
        .path("/");
    // The `time` crate's Duration, reached through cookie's own conversion
    // (the session length is checked at start to fit).
    if let Ok(max_age) = length.try_into() {
        cookie = cookie.max_age(max_age);
    }
    jar.add(cookie)
}

/// The jar with the session cookie removed.
pub(crate) fn end_session(jar: SignedCookieJar) -> SignedCookieJar {
    jar.remove(Cookie::build(SESSION_COOKIE).path("/"))
}

/// The key that signs the judges' session cookies, kept in the state
/// directory so that a restart (a watchdog's, a power cut's) does not log
/// the judges out in the middle of a block. A missing or unusable file is
/// replaced by a new key (everyone logs in again), never a failure.
pub fn session_key(state_dir: &std::path::Path) -> Key {
    let path = state_dir.join("session.key");
    if let Ok(bytes) = std::fs::read(&path)
        && bytes.len() >= 64
        && let Ok(key) = Key::try_from(bytes.as_slice())
    {
        return key;
    }
    let key = Key::generate();
    let written = crate::atomic::atomic_write(&path, key.master(), Some(crate::atomic::PRIVATE));
    if let Err(e) = written {
        tracing::warn!(file = %path.display(), "cannot keep the session key; judges log in again after a restart: {e}");
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use argon2::PasswordVerifier as _;

    #[test]
    fn hashes_and_checks_reuse_one_argon2_buffer_and_agree_with_argon2() {
        let hash = hash_secret(b"one").unwrap();
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        let parsed = PasswordHash::new(&hash).unwrap();
        assert_eq!(parsed.salt.map(|s| s.as_ref().len()), Some(16));
        assert_eq!(parsed.hash.map(|h| h.len()), Some(32));
        // argon2's own check takes it, and its own hash is checked here.
        assert!(Argon2::default().verify_password(b"one", &parsed).is_ok());
        let theirs = argon2::PasswordHasher::hash_password(&Argon2::default(), b"two").unwrap();
        assert!(verify_pin("two", &theirs.to_string()));

        let buffer = || {
            let m = MEMORY.lock().unwrap_or_else(PoisonError::into_inner);
            (m.as_ptr() as usize, m.len())
        };
        let first = buffer();
        assert!(first.1 >= M_COST_KIB as usize, "{first:?}");
        for _ in 0..3 {
            assert!(verify_pin("one", &hash));
            assert!(!verify_pin("two", &hash));
            assert!(hash_pin("135790").is_ok());
        }
        assert_eq!(buffer(), first, "no new argon2 memory for later hashes");
        assert!(!verify_pin("one", "$argon2id$v=19$not-a-hash"));
    }

    #[test]
    fn the_session_key_survives_a_restart_and_a_bad_file_is_replaced() {
        let dir = std::env::temp_dir().join(format!("lanecall-key-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let first = session_key(&dir);
        let again = session_key(&dir);
        assert_eq!(
            first.master(),
            again.master(),
            "the same key after a restart"
        );
        std::fs::write(dir.join("session.key"), b"short").unwrap();
        let new = session_key(&dir);
        assert_ne!(new.master(), first.master());
        assert_eq!(
            std::fs::read(dir.join("session.key")).unwrap(),
            new.master()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

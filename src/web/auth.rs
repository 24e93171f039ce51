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

use std::time::Duration;

use argon2::{Algorithm, Argon2, Params, PasswordHash, PasswordHasher, PasswordVerifier, Version};
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

fn hasher() -> Result<Argon2<'static>, PinError> {
    let params =
        Params::new(M_COST_KIB, T_COST, P_COST, None).map_err(|e| PinError::Hash(e.to_string()))?;
    Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

/// 32 random bytes from the operating system, in hex: a session id, a
/// password or a mark no one can guess.
pub fn secret() -> Result<String, String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| format!("the system gave no random bytes: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Makes the allocator hand each argon2 check's memory (19 MiB) back to
/// the system when the check is done. glibc raises its threshold for
/// serving a block by `mmap` to the size of the last one freed, so from
/// the second check on those blocks come from the heap and stay: a centre
/// that hashed or checked 64 MQTT passwords held 1.2 GB (BENCHMARKS.md).
/// Called once, first thing in `main`.
pub fn return_argon2_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a number in glibc's allocator; it is called
    // before any thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
    }
}

/// Hashes a PIN for the config: an argon2id PHC string
/// (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`) with a fresh random salt
/// from the operating system.
pub fn hash_pin(pin: &str) -> Result<String, PinError> {
    if !pin_shape_ok(pin) {
        return Err(PinError::Shape);
    }
    let hash = hasher()?
        .hash_password(pin.as_bytes())
        .map_err(|e| PinError::Hash(e.to_string()))?;
    Ok(hash.to_string())
}

/// Whether `pin` matches `hash` (a PHC string). The cost parameters are the
/// hash's own. A hash that does not parse matches nothing. Slow on purpose:
/// call it off the async threads.
pub fn verify_pin(pin: &str, hash: &str) -> bool {
    let Ok(parsed) = PasswordHash::new(hash) else {
        return false;
    };
    Argon2::default()
        .verify_password(pin.as_bytes(), &parsed)
        .is_ok()
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

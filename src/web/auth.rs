//! Judges' PINs and sessions.
//!
//! The judge PIN is stored only as an argon2id hash (a PHC string made by
//! `lanecall hash-pin PIN`); the PIN itself never reaches a file or a log.
//! A login gives a session: a cookie signed with the daemon's key that holds
//! the judge's name and when the session ends. The server keeps no session
//! table, so a restart does not log anyone out, and logging out only asks
//! the browser to forget the cookie (a copied cookie stays good until it
//! expires: keep `session` short).
//!
//! This module must never log a PIN, a hash or a cookie value, and never
//! accept a session whose signature or expiry does not check out.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use argon2::{Algorithm, Argon2, Params, PasswordHash, PasswordHasher, PasswordVerifier, Version};
use axum_extra::extract::cookie::{Cookie, SameSite, SignedCookieJar};
use serde::{Deserialize, Serialize};

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "lanecall_session";

/// The longest judge name a login may give, in characters.
pub const MAX_NAME_CHARS: usize = 60;

/// The argon2id cost: OWASP's minimum (19 MiB, 2 passes, 1 lane). A
/// verification takes a fraction of a second on a Raspberry Pi 4; more
/// memory would make a burst of logins a memory problem on a 1 GB board.
const M_COST_KIB: u32 = 19 * 1024;
const T_COST: u32 = 2;
const P_COST: u32 = 1;

/// Why a PIN could not be hashed.
#[derive(Debug, thiserror::Error)]
pub enum PinError {
    #[error("the PIN is empty: choose a PIN of at least 4 characters")]
    Empty,
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

/// Hashes a PIN for the config: an argon2id PHC string
/// (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`) with a fresh random salt
/// from the operating system.
pub fn hash_pin(pin: &str) -> Result<String, PinError> {
    if pin.is_empty() {
        return Err(PinError::Empty);
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

/// What the session cookie holds (as JSON, signed by the jar).
#[derive(Debug, Serialize, Deserialize)]
struct Session {
    name: String,
    /// Unix seconds after which the session is no longer accepted.
    expires: u64,
}

fn unix_now() -> u64 {
    // A clock before 1970 (a Pi without its RTC before NTP) reads as 0:
    // sessions then look fresh, never the other way round.
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The judge logged in with this request's session cookie, if its signature
/// checks out and it has not expired.
pub(crate) fn judge(jar: &SignedCookieJar) -> Option<String> {
    let cookie = jar.get(SESSION_COOKIE)?;
    let session: Session = serde_json::from_str(cookie.value()).ok()?;
    (session.expires > unix_now() && valid_name(&session.name).is_ok()).then_some(session.name)
}

/// The jar with a new session for `name`, good for `length`.
pub(crate) fn start_session(jar: SignedCookieJar, name: &str, length: Duration) -> SignedCookieJar {
    let session = Session {
        name: name.to_owned(),
        expires: unix_now().saturating_add(length.as_secs()),
    };
    let value = serde_json::to_string(&session).unwrap_or_default();
    // Not `Secure`: the panel is served over plain HTTP on the lane's own
    // network. SameSite=Strict keeps other sites' pages from using it.
    let mut cookie = Cookie::build((SESSION_COOKIE, value))
        .http_only(true)
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

/// Checks a judge name as given at login: it is written into the journal
/// with every action the judge takes.
pub(crate) fn valid_name(name: &str) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err("the name is empty".into());
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(format!(
            "the name is longer than {MAX_NAME_CHARS} characters"
        ));
    }
    if name.chars().any(char::is_control) {
        return Err("the name holds a control character".into());
    }
    Ok(())
}

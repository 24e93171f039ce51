//! The limits on `POST /api/login`: how often one address may try, and
//! the lockout after wrong PINs, which punishes the guesser, not the
//! judges.
//!
//! **The rate.** Each address gets a small burst of tries, then one every
//! few seconds; past it, `429` with `Retry-After` instead of a queue, so
//! one client cannot take every PIN check for itself.
//!
//! **The lockout** ([`Guard`], kept by the PIN checker, [`super::pins`]).
//! Two counts of wrong PINs, each locking for [`Lockout::base`], doubling
//! with each lock in a row up to [`Lockout::max`]; while locked, a login
//! is answered at once, without argon2 work:
//!
//! - *One address's*: [`Lockout::after`] wrong PINs in a row from it lock
//!   that address alone. The phone guessing on the Wi-Fi is locked out;
//!   the chief judge's tablet, at another address, is not.
//! - *All together*: every wrong PIN counts, but each address for at most
//!   [`Lockout::after`] of them, so it takes at least [`OVERALL`]
//!   addresses; at [`OVERALL`] × [`Lockout::after`] (20 at the defaults)
//!   with no right PIN between, logins are locked for every address that
//!   has not logged in with a right PIN in the last [`TRUSTED_FOR`]. A
//!   guesser with many addresses is slowed to 20 PINs per lock (about 120
//!   in the first hour, 20 an hour after it; a 6-digit PIN holds for
//!   years), and still cannot lock out a tablet that logged in today:
//!   only that tablet's own address can lock it, and only a right PIN
//!   puts an address among those let through.
//!
//! Both tables are bounded: [`GUESSERS_KEPT`] addresses of wrong PINs
//! (past it the forgettable ones go, then the unlocked one heard from
//! longest ago), [`TRUSTED_KEPT`] that logged in. An IPv6 address counts as its
//! /64, which one device may hold whole.
//!
//! The key is the peer's IP address from axum's `ConnectInfo<SocketAddr>`
//! (the daemon's server, [`super::server`], gives it to each request as
//! `into_make_service_with_connect_info` would). Headers
//! such as `X-Forwarded-For` are not believed: the daemon is reached
//! directly on the lane's network, and any client could write them. A
//! request without `ConnectInfo` (a server on a Unix socket, a test calling
//! the router directly) is not refused: all such requests share one
//! address.

use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;
use serde::Serialize;

use super::ApiError;
use super::bucket::KeyedBucket;

/// Login attempts one address may make at once.
pub const LOGIN_BURST: u32 = 5;

/// After the burst, one more attempt per this long.
pub const LOGIN_PERIOD: Duration = Duration::from_secs(2);

/// Addresses remembered at most: past it, those with a full quota again
/// are forgotten, then the one whose quota refills soonest.
const ADDRESSES_KEPT: usize = 1024;

/// The answer's message when an address is over its quota.
pub const TOO_MANY: &str = "too many tries: wait a moment";

/// The peer's IP address (IPv4-mapped IPv6 as IPv4), or `None` when the
/// server did not record one.
fn peer_address<B>(req: &axum::http::Request<B>) -> Option<IpAddr> {
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(addr)| addr.ip().to_canonical())
}

/// The login rate: one bucket per address.
type LoginRate = Arc<Mutex<KeyedBucket<Option<IpAddr>>>>;

/// The answer to a login over its address's quota: the API's JSON error
/// shape, `Retry-After` the wait rounded up to whole seconds (and one
/// more on a whole second, as before).
fn refused(wait: Duration) -> Response {
    let mut res = ApiError::new(StatusCode::TOO_MANY_REQUESTS, TOO_MANY).into_response();
    res.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from(wait.as_secs().saturating_add(1)),
    );
    res
}

async fn rate(
    axum::extract::State(rate): axum::extract::State<LoginRate>,
    req: Request,
    next: Next,
) -> Response {
    let key = peer_address(&req);
    let taken = rate
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .try_take(&key, Instant::now());
    match taken {
        Ok(()) => next.run(req).await,
        Err(wait) => refused(wait),
    }
}

/// `route` behind the per-address login limit: [`LOGIN_BURST`] tries,
/// then one per [`LOGIN_PERIOD`], for at most [`ADDRESSES_KEPT`]
/// addresses.
pub fn limit_login<S>(route: MethodRouter<S>) -> MethodRouter<S>
where
    S: Clone + Send + Sync + 'static,
{
    let state: LoginRate = Arc::new(Mutex::new(KeyedBucket::new(
        LOGIN_BURST,
        LOGIN_PERIOD,
        ADDRESSES_KEPT,
    )));
    route.route_layer(middleware::from_fn_with_state(state, rate))
}

// ----- The lockout ------------------------------------------------------------

/// When wrong PINs lock logins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lockout {
    /// Wrong PINs in a row from one address that lock that address;
    /// [`OVERALL`] times as many from anywhere (and from more than one
    /// address) lock the addresses that have not logged in lately.
    pub after: u32,
    /// The first lock's length; each lock after it is twice as long.
    pub base: Duration,
    /// The longest lock.
    pub max: Duration,
}

/// The config's `[web]` lockout defaults.
impl Default for Lockout {
    fn default() -> Lockout {
        use crate::config::{DEFAULT_LOCKOUT_AFTER, DEFAULT_LOCKOUT_BASE_S, DEFAULT_LOCKOUT_MAX_S};
        Lockout {
            after: DEFAULT_LOCKOUT_AFTER,
            base: Duration::from_secs(DEFAULT_LOCKOUT_BASE_S),
            max: Duration::from_secs(DEFAULT_LOCKOUT_MAX_S),
        }
    }
}

/// Wrong PINs from anywhere, as a multiple of [`Lockout::after`], that lock
/// logins from the addresses that have not logged in lately.
pub const OVERALL: u32 = 4;

/// Addresses whose wrong PINs are remembered; past it, those whose lock and
/// doubling are over are forgotten, then the one heard from longest ago.
pub const GUESSERS_KEPT: usize = 1024;

/// Addresses remembered as having logged in with a right PIN; past it, the
/// one that logged in longest ago is forgotten. Only a right PIN adds one,
/// so a guesser cannot push the judges' tablets out of it.
pub const TRUSTED_KEPT: usize = 64;

/// How long a right PIN keeps its address past the overall lock.
pub const TRUSTED_FOR: Duration = Duration::from_secs(24 * 3600);

/// How many addresses of wrong tries (and of locked ones) are shown to the
/// judges.
const ADDRESSES_SHOWN: usize = 10;

/// Why a login was refused without a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lock {
    /// Its address guessed: it is locked for this much longer.
    Address(Duration),
    /// Many wrong PINs from several addresses: logins from addresses that
    /// have not logged in lately are locked for this much longer.
    Overall(Duration),
}

impl Lock {
    /// How much longer it lasts.
    pub fn left(self) -> Duration {
        match self {
            Lock::Address(d) | Lock::Overall(d) => d,
        }
    }
}

/// What a lock is keyed by: an IPv4 address, an IPv6 address's /64 (one
/// device may use a whole /64), or `None` for requests without an address.
fn key_of(from: Option<IpAddr>) -> Option<IpAddr> {
    from.map(|ip| match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let prefix = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(Ipv6Addr::from(prefix))
        }
        v4 => v4,
    })
}

/// Wrong PINs in a row and the locks they brought, of one address or of
/// all together. Times are on the monotonic clock, so setting the wall
/// clock neither ends nor extends a lock.
#[derive(Clone, Debug, Default)]
struct Count {
    wrong_in_a_row: u32,
    /// Locks since the last right PIN or quiet spell: each doubles.
    locks_in_a_row: u32,
    locked_until: Option<Instant>,
    last_wrong: Option<Instant>,
}

impl Count {
    fn locked(&self, now: Instant) -> Option<Duration> {
        self.locked_until
            .and_then(|until| until.checked_duration_since(now))
            .filter(|left| !left.is_zero())
    }

    /// Whether a long quiet spell has passed since the last wrong PIN: it
    /// ends the doubling, so a judge who mistypes next week is not locked
    /// out for an hour.
    fn quiet(&self, now: Instant, lockout: &Lockout) -> bool {
        self.last_wrong
            .is_none_or(|t| now.saturating_duration_since(t) > lockout.max.saturating_mul(2))
    }

    /// One more wrong PIN at `now`.
    fn wrong(&mut self, now: Instant, lockout: &Lockout) {
        if self.quiet(now, lockout) {
            self.locks_in_a_row = 0;
        }
        self.last_wrong = Some(now);
        self.wrong_in_a_row += 1;
    }

    /// Locks at `now`, each lock in a row twice as long as the last: the
    /// lock's length.
    fn lock(&mut self, now: Instant, lockout: &Lockout) -> Duration {
        let doubling = 2u32.saturating_pow(self.locks_in_a_row.min(31));
        let length = lockout.base.saturating_mul(doubling).min(lockout.max);
        self.locked_until = Some(now + length);
        self.locks_in_a_row += 1;
        self.wrong_in_a_row = 0;
        length
    }

    /// Whether it may be forgotten: not locked, its doubling over.
    fn stale(&self, now: Instant, lockout: &Lockout) -> bool {
        self.locked(now).is_none() && self.quiet(now, lockout)
    }
}

/// What the judges are shown about wrong PINs (`GET /api/security`).
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Security {
    /// Whether logins from addresses that have not logged in lately are
    /// refused now (the overall lock).
    pub locked: bool,
    /// Seconds until they are taken again (0 when not locked).
    pub locked_for_s: u64,
    /// Wrong PINs since the daemon started (or since `lanecall unlock`).
    pub wrong_pins: u64,
    /// Wrong PINs counted towards the overall lock since the last one or
    /// the last right PIN (at most `lock_after` from each address): it
    /// comes at `overall_lock_after`.
    pub wrong_in_a_row: u32,
    /// Wrong PINs in a row from one address that lock that address.
    pub lock_after: u32,
    pub overall_lock_after: u32,
    /// How many times the overall lock came.
    pub lockouts: u32,
    /// How many times an address was locked.
    pub address_lockouts: u32,
    /// The addresses the last wrong PINs came from, newest first, each once.
    pub addresses: Vec<String>,
    /// Addresses locked now (at most 10 shown; an IPv6 one as its /64).
    pub locked_addresses: Vec<String>,
    /// Argon2 checks run since start: a locked login does not add to it.
    pub pin_checks: u64,
}

/// The lockout's state: wrong PINs counted for each address and for all
/// together, and the addresses that logged in lately.
#[derive(Debug)]
pub(crate) struct Guard {
    lockout: Lockout,
    overall: Count,
    /// How many wrong PINs each address added to the overall count since
    /// it was last cleared: at most [`Lockout::after`] each, so at most
    /// [`OVERALL`] times that many addresses.
    run: HashMap<Option<IpAddr>, u32>,
    /// Each address's own count, at most [`GUESSERS_KEPT`].
    guessers: HashMap<Option<IpAddr>, Count>,
    /// When each address last logged in with a right PIN.
    trusted: HashMap<Option<IpAddr>, Instant>,
    wrong_total: u64,
    lockouts: u32,
    address_lockouts: u32,
    shown: VecDeque<IpAddr>,
    /// Argon2 checks run.
    pub(crate) checks: u64,
}

impl Guard {
    pub(crate) fn new(lockout: Lockout) -> Guard {
        Guard {
            lockout: Lockout {
                after: lockout.after.max(1),
                ..lockout
            },
            overall: Count::default(),
            run: HashMap::new(),
            guessers: HashMap::new(),
            trusted: HashMap::new(),
            wrong_total: 0,
            lockouts: 0,
            address_lockouts: 0,
            shown: VecDeque::new(),
            checks: 0,
        }
    }

    /// Wrong PINs from anywhere that bring the overall lock.
    fn overall_after(&self) -> u32 {
        self.lockout.after.saturating_mul(OVERALL)
    }

    fn trusted(&self, key: Option<IpAddr>, now: Instant) -> bool {
        self.trusted
            .get(&key)
            .is_some_and(|t| now.saturating_duration_since(*t) < TRUSTED_FOR)
    }

    /// The lock a login from `from` meets at `now`, if any: its address's
    /// own, else the overall one unless the address logged in lately.
    pub(crate) fn locked(&self, now: Instant, from: Option<IpAddr>) -> Option<Lock> {
        let key = key_of(from);
        if let Some(left) = self.guessers.get(&key).and_then(|c| c.locked(now)) {
            return Some(Lock::Address(left));
        }
        match self.overall.locked(now) {
            Some(left) if !self.trusted(key, now) => Some(Lock::Overall(left)),
            _ => None,
        }
    }

    /// Room for one more address in the table: the forgettable ones go,
    /// then, while it is still full, the one heard from longest ago that
    /// is not locked (a locked one only when all are).
    fn make_room(&mut self, now: Instant) {
        if self.guessers.len() < GUESSERS_KEPT {
            return;
        }
        let lockout = self.lockout;
        self.guessers.retain(|_, c| !c.stale(now, &lockout));
        while self.guessers.len() >= GUESSERS_KEPT {
            let oldest = self
                .guessers
                .iter()
                .min_by_key(|(_, c)| (c.locked(now).is_some(), c.last_wrong))
                .map(|(k, _)| *k);
            let Some(k) = oldest else { break };
            self.guessers.remove(&k);
        }
    }

    /// A wrong PIN from `from` at `now`.
    pub(crate) fn wrong(&mut self, now: Instant, from: Option<IpAddr>) {
        let lockout = self.lockout;
        self.wrong_total += 1;
        if let Some(ip) = from {
            self.shown.retain(|a| *a != ip);
            self.shown.push_front(ip);
            self.shown.truncate(ADDRESSES_SHOWN);
        }
        let key = key_of(from);
        if !self.guessers.contains_key(&key) {
            self.make_room(now);
        }
        let count = self.guessers.entry(key).or_default();
        count.wrong(now, &lockout);
        // Once per lock, not per try: a guessing run must not flood the log
        // (or the card it is on).
        if count.wrong_in_a_row >= lockout.after {
            let length = count.lock(now, &lockout);
            self.address_lockouts += 1;
            let address = from.map_or_else(|| "unknown".to_owned(), |a| a.to_string());
            tracing::warn!(
                seconds = length.as_secs(),
                "logins from {address} locked after {} wrong PINs in a row from it: someone \
                 there may be guessing the judge PIN; `lanecall unlock` ends the lock",
                lockout.after,
            );
        }
        // One address counts for at most its own lock's worth: an address
        // alone is held by its own lock, the overall one is for guessing
        // spread over addresses.
        let added = self.run.entry(key).or_default();
        if *added >= lockout.after {
            return;
        }
        *added += 1;
        self.overall.wrong(now, &lockout);
        if self.overall.wrong_in_a_row >= self.overall_after() {
            let length = self.overall.lock(now, &lockout);
            self.run.clear();
            self.lockouts += 1;
            let addresses: Vec<String> = self.shown.iter().map(IpAddr::to_string).collect();
            tracing::warn!(
                wrong_pins = self.wrong_total,
                seconds = length.as_secs(),
                addresses = addresses.join(" "),
                "PIN checks locked for addresses that have not logged in lately, after {} \
                 wrong PINs from several addresses: someone may be guessing the judge PIN; \
                 `lanecall unlock` ends the lock",
                self.overall_after(),
            );
        }
    }

    /// A right PIN from `from` at `now`: its address's count and the
    /// overall one start again, and the address is let past the overall
    /// lock for [`TRUSTED_FOR`].
    pub(crate) fn right(&mut self, now: Instant, from: Option<IpAddr>) {
        let key = key_of(from);
        self.guessers.remove(&key);
        self.overall.wrong_in_a_row = 0;
        self.run.clear();
        self.trusted.insert(key, now);
        if self.trusted.len() > TRUSTED_KEPT {
            let oldest = self
                .trusted
                .iter()
                .min_by_key(|(_, t)| **t)
                .map(|(k, _)| *k);
            if let Some(k) = oldest {
                self.trusted.remove(&k);
            }
        }
    }

    /// `lanecall unlock`: every lock and count cleared; the addresses that
    /// logged in and the checks run are kept.
    pub(crate) fn unlock(&mut self) {
        *self = Guard {
            checks: self.checks,
            trusted: std::mem::take(&mut self.trusted),
            ..Guard::new(self.lockout)
        };
    }

    pub(crate) fn security(&self, now: Instant) -> Security {
        let left = self.overall.locked(now);
        let mut locked_addresses: Vec<String> = self
            .guessers
            .iter()
            .filter(|(_, c)| c.locked(now).is_some())
            .map(|(k, _)| k.map_or_else(|| "unknown".to_owned(), |a| a.to_string()))
            .collect();
        locked_addresses.sort();
        locked_addresses.truncate(ADDRESSES_SHOWN);
        Security {
            locked: left.is_some(),
            // Rounded up: "0 s left" while still locked would mislead.
            locked_for_s: left.map_or(0, |d| d.as_secs() + u64::from(d.subsec_nanos() > 0)),
            wrong_pins: self.wrong_total,
            wrong_in_a_row: self.overall.wrong_in_a_row,
            lock_after: self.lockout.after,
            overall_lock_after: self.overall_after(),
            lockouts: self.lockouts,
            address_lockouts: self.address_lockouts,
            addresses: self.shown.iter().map(IpAddr::to_string).collect(),
            locked_addresses,
            pin_checks: self.checks,
        }
    }
}

/// Where the logins are served: what the answer to a locked login tells a
/// judge to run, and where.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Place {
    #[default]
    Lane,
    Centre,
}

impl Place {
    /// The command that ends a lockout here, and where it is run.
    pub fn unlock_hint(self) -> &'static str {
        match self {
            Place::Lane => "`lanecall unlock` on the lane's computer",
            Place::Centre => {
                "`lanecall unlock --config /etc/lanecall/centre.toml` (the config the centre \
                 runs with) on the centre's computer"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(n: u32) -> Option<IpAddr> {
        Some(IpAddr::V4(std::net::Ipv4Addr::from(0x0a00_0000 + n)))
    }

    #[test]
    fn an_address_locks_alone_doubling_up_to_the_max() {
        let mut g = Guard::new(Lockout {
            after: 3,
            base: Duration::from_secs(60),
            max: Duration::from_secs(200),
        });
        let t0 = Instant::now();
        g.wrong(t0, ip(1));
        g.wrong(t0, ip(1));
        assert_eq!(g.locked(t0, ip(1)), None);
        g.wrong(t0, ip(1));
        let a = |s| Some(Lock::Address(Duration::from_secs(s)));
        assert_eq!(g.locked(t0, ip(1)), a(60));
        assert_eq!(g.locked(t0, ip(2)), None, "another address is not locked");
        assert_eq!(g.locked(t0, None), None);
        let t1 = t0 + Duration::from_secs(61);
        assert_eq!(g.locked(t1, ip(1)), None);
        for _ in 0..3 {
            g.wrong(t1, ip(1));
        }
        assert_eq!(g.locked(t1, ip(1)), a(120));
        let t2 = t1 + Duration::from_secs(121);
        for _ in 0..3 {
            g.wrong(t2, ip(1));
        }
        assert_eq!(g.locked(t2, ip(1)), a(200), "capped");
        // One address alone never brings the overall lock: it counts
        // for at most `after` of its wrong PINs.
        let s = g.security(t2);
        assert!(!s.locked, "{s:?}");
        assert_eq!(
            (
                s.wrong_pins,
                s.wrong_in_a_row,
                s.address_lockouts,
                s.lockouts
            ),
            (9, 3, 3, 0)
        );
        assert_eq!(s.locked_addresses, ["10.0.0.1"]);
        g.unlock();
        assert_eq!(g.locked(t2, ip(1)), None);
    }

    #[test]
    fn many_addresses_lock_those_that_have_not_logged_in() {
        let lockout = Lockout::default();
        let mut g = Guard::new(lockout);
        let t0 = Instant::now();
        g.right(t0, ip(100));
        // 19 wrong PINs from 19 addresses (a few repeated past `after`
        // count once each).
        for n in 0..19 {
            g.wrong(t0, ip(n));
        }
        assert_eq!(g.locked(t0, ip(500)), None);
        g.wrong(t0, ip(19));
        let left = Some(Lock::Overall(lockout.base));
        assert_eq!(g.locked(t0, ip(500)), left, "a new address");
        assert_eq!(g.locked(t0, ip(3)), left, "a guessing one");
        assert_eq!(g.locked(t0, ip(100)), None, "one that logged in");
        let s = g.security(t0);
        assert!(s.locked);
        assert_eq!(
            (s.lockouts, s.overall_lock_after, s.wrong_in_a_row),
            (1, 20, 0)
        );
        // A day later the address that logged in is new again.
        let later = t0 + TRUSTED_FOR;
        for n in 0..20 {
            g.wrong(later, ip(1000 + n));
        }
        assert!(matches!(g.locked(later, ip(100)), Some(Lock::Overall(_))));
        // `lanecall unlock` clears the locks, not who logged in.
        g.right(later, ip(100));
        g.unlock();
        assert_eq!(g.locked(later, ip(500)), None);
        assert!(g.trusted(key_of(ip(100)), later));
    }

    #[test]
    fn each_address_adds_at_most_its_own_locks_worth_to_the_overall_count() {
        let mut g = Guard::new(Lockout::default());
        let t0 = Instant::now();
        // Three addresses, each far past its own lock: 15 counted.
        for n in 0..3 {
            for _ in 0..20 {
                g.wrong(t0, ip(n));
            }
        }
        assert_eq!(g.security(t0).wrong_in_a_row, 15);
        assert_eq!(g.locked(t0, ip(9)), None);
        // A right PIN starts the overall count again.
        g.right(t0, ip(9));
        assert_eq!(g.security(t0).wrong_in_a_row, 0);
        for n in 10..14 {
            for _ in 0..5 {
                g.wrong(t0, ip(n));
            }
        }
        assert!(matches!(g.locked(t0, ip(20)), Some(Lock::Overall(_))));
    }

    #[test]
    fn the_tables_are_bounded_and_an_ipv6_device_is_its_64() {
        let mut g = Guard::new(Lockout::default());
        let t0 = Instant::now();
        for _ in 0..5 {
            g.wrong(t0, ip(0));
        }
        assert!(g.locked(t0, ip(0)).is_some());
        for n in 1..(GUESSERS_KEPT as u32 + 10) {
            g.wrong(t0 + Duration::from_millis(u64::from(n)), ip(n));
        }
        assert_eq!(g.guessers.len(), GUESSERS_KEPT);
        assert!(
            matches!(g.locked(t0, ip(0)), Some(Lock::Address(_))),
            "a locked address is kept"
        );
        assert!(!g.guessers.contains_key(&ip(1)), "the oldest is forgotten");
        assert!(g.guessers.contains_key(&ip(GUESSERS_KEPT as u32 + 9)));
        assert!(g.run.len() <= (Lockout::default().after * OVERALL) as usize);
        for n in 0..(TRUSTED_KEPT as u32 + 10) {
            g.right(t0 + Duration::from_millis(u64::from(n)), ip(n));
        }
        assert_eq!(g.trusted.len(), TRUSTED_KEPT);
        assert!(g.shown.len() <= ADDRESSES_SHOWN);

        let v6 = |s: &str| Some(s.parse::<IpAddr>().unwrap());
        let mut g = Guard::new(Lockout::default());
        for n in 0..5 {
            g.wrong(t0, v6(&format!("2001:db8::{n}")));
        }
        assert!(g.locked(t0, v6("2001:db8::ffff")).is_some(), "the same /64");
        assert_eq!(g.locked(t0, v6("2001:db8:0:1::1")), None, "another /64");
        assert_eq!(
            key_of(v6("::ffff:10.0.0.1")),
            ip(1),
            "an IPv4-mapped address is its IPv4 address"
        );
    }
}

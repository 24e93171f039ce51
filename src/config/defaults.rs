//! The value of every key the file may leave out. `config/lanecall.toml`
//! documents each of them, and tests/config.rs fails when the example and
//! these disagree.
//!
//! It decides nothing else: the ranges a value must fall in are in
//! `validate`, and `[rules]`' defaults are `Rules::default()`, which every
//! journal's header also starts from.

pub(super) const DEFAULT_BAUD: u32 = 9600;
pub(super) const DEFAULT_RECONNECT_MIN_MS: u64 = 500;
pub(super) const DEFAULT_RECONNECT_MAX_MS: u64 = 10_000;
pub(super) const DEFAULT_LISTEN: &str = "0.0.0.0:8080";
pub(super) const DEFAULT_SESSION_HOURS: u64 = 12;
pub(super) const DEFAULT_MAX_CONNECTIONS: usize = 256;
pub(super) const DEFAULT_MAX_LIVE_VIEWS: usize = 64;
pub(super) const DEFAULT_SESSION_IDLE_S: u64 = 2 * 3600;
pub(super) const DEFAULT_LOCKOUT_AFTER: u32 = 5;
pub(super) const DEFAULT_LOCKOUT_BASE_S: u64 = 60;
pub(super) const DEFAULT_LOCKOUT_MAX_S: u64 = 3600;
pub(super) const DEFAULT_DEBOUNCE_MS: i64 = 5;
pub(super) const DEFAULT_PULSE_MS: i64 = 300;

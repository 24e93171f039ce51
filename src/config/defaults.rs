//! The value of every key the file may leave out, in one place.
//! `config/lanecall.toml` documents each of them with this value, and
//! tests/config.rs fails when the example and the code disagree.
//!
//! A key read as one of named values (`pull = "up"`) has its default
//! written as the file writes it. The `[rules]` durations are
//! `Rules::default()`'s, which every journal's header also starts from.
//! Keys without a default (required, or absent when left out, such as
//! `journal.mirror` or `web.tls_cert`) are not here.
//!
//! It decides nothing else: the ranges a value must fall in are in
//! `validate` and `validate_web`.

use super::validated::Language;

// [pinsetter]
pub(super) const DEFAULT_BAUD: u32 = 9600;
pub(super) const DEFAULT_RECONNECT_MIN_MS: u64 = 500;
pub(super) const DEFAULT_RECONNECT_MAX_MS: u64 = 10_000;

// [gpio.inputs.*] and [gpio.buttons.*]
pub(super) const DEFAULT_PULL: &str = "up";
pub(super) const DEFAULT_INPUT_ACTIVE: &str = "low";
pub(super) const DEFAULT_DEBOUNCE_MS: i64 = 5;

// [gpio.outputs.*]
pub(super) const DEFAULT_OUTPUT_ACTIVE: &str = "high";
pub(super) const DEFAULT_PULSE_MS: i64 = 300;

// [speaker]
pub(super) const DEFAULT_SPEAKER_ENABLED: bool = true;
pub(super) const DEFAULT_VOLUME: f64 = 1.0;
pub(super) const DEFAULT_LANGUAGE: Language = Language::Ru;
pub(super) const DEFAULT_STALE_AFTER_MS: u64 = 8000;
pub(super) const DEFAULT_EXTRAS: bool = false;

// [web]
pub(super) const DEFAULT_LISTEN: &str = "0.0.0.0:8080";
pub(super) const DEFAULT_SESSION_HOURS: u64 = 12;
pub(super) const DEFAULT_MAX_CONNECTIONS: usize = 256;
/// Lowered to half of `max_connections` when that is smaller.
pub(super) const DEFAULT_MAX_LIVE_VIEWS: usize = 64;
pub(super) const DEFAULT_SESSION_IDLE_S: u64 = 2 * 3600;
pub(super) const DEFAULT_LOCKOUT_AFTER: u32 = 5;
pub(super) const DEFAULT_LOCKOUT_BASE_S: u64 = 60;
pub(super) const DEFAULT_LOCKOUT_MAX_S: u64 = 3600;

// [rules]
pub(super) const DEFAULT_FOUL_MODE: &str = "score";


//! The lane daemon as a real process: `lanecall run`, `demo`, `setup`,
//! `check-config` and the other commands, driven through a pseudo-terminal
//! pinsetter, HTTP, a real browser and injected faults.

#[path = "../support/mod.rs"]
mod support;

mod api;
mod backup;
mod cli;
mod clock_day;
mod competition_day;
mod config;
mod crash;
mod demo;
mod flood;
mod history_memory;
mod http_limits;
mod journal_faults;
mod lane_trust;
mod login_guard;
mod panel_browser;
mod serial_link;
mod setup;
mod slow_card;
mod speaker;

//! The lane's offline tests: scoring scenarios, properties, replay of every
//! journal in tests/logs, the voice and the pin switches' and journal's
//! sinks. They need no pseudo-terminal, socket or browser, so they also run
//! on the Pi's architectures under qemu-user (.ci/arm64).

#[path = "../support/mod.rs"]
mod support;

mod journal_sink;
mod lane_scenarios;
mod pin_switches;
mod properties;
mod replay_logs;
mod voice_lane;
mod voice_pack;

//! # lanecall
//!
//! A lane controller for ten-pin bowling by blind and visually impaired
//! athletes: it scores the lane from the pinsetter and the foul line, calls
//! out the standing pins, and keeps a journal of every input.
//!
//! `docs/design.md` is the page to read first: the map below extended to
//! the competition's centre (lanes → MQTT → the centre's link → mirror →
//! replays → results → pages), the rules of the house, and why the
//! dependencies are what they are.
//!
//! # Layout
//!
//! Two crates: this one (the daemon, the centre, the CLI: everything that
//! touches the world) and `lanecall-core` (crates/lanecall-core: the pure
//! core), whose modules this one re-exports under the same paths:
//! [`lane`], [`pins`], [`pinsetter`], [`journal`], [`replay`], [`sim`].
//! The core depends on no runtime, server, device or file crate, so the
//! compiler keeps it free of I/O; `tests/layout/layout.rs` holds the list
//! of what it may depend on and checks its code names no file, socket or
//! clock.
//!
//! Data flows one way, and every module has one place in it:
//!
//! ```text
//! sensors ─┐                                                ┌─► speaker
//! panel   ─┼─► ports ─► lane_thread: journal ─► lane (core) ┼─► relays
//! demo    ─┘   (Input)  (fsync first)           -> effects  └─► panel (snapshot)
//! ```
//!
//! - [`ports`] is what goes into the lane's thread and what comes out, and
//!   its clock: an [`ports::Input`] on the one bounded channel
//!   ([`ports::inputs`]); the relays ([`ports::OutputSink`]), the speaker
//!   ([`ports::CalloutSink`]), the panel's [`ports::LaneSnapshot`] and the
//!   journal's lines as they become durable ([`ports::JournalSink`]). Every
//!   adapter depends on the ports and on nothing of the others.
//! - [`lane_thread`] owns the lane: it journals each input, durably, and
//!   only then applies it to the core, meets the core's deadlines, and
//!   sends the effects to the ports' sinks. It decides what happens when
//!   the journal cannot be written (the lane holds).
//! - [`lane`] (in the core) decides every ruling: scoring, delivery
//!   detection, fouls, turn order, conduct (slow bowling, blindfolds) and
//!   the callout words. It takes timestamped events and returns effects; it
//!   does no I/O. [`pinsetter`] is its parser of the pinsetter's serial
//!   lines; [`pins`] the pin numbers and pin sets both use.
//! - The adapters turn the world into inputs and effects into the world:
//!   [`sensors`] (the pinsetter link, the GPIO), [`speaker`] (callouts),
//!   [`web`] (the judges' panel and its API), [`demo`] (the simulator
//!   played as a lane).
//! - [`daemon`] is the wiring, the only module that knows every adapter:
//!   [`daemon::serve`] starts the lane's thread and the adapters, the HTTP
//!   server, and tells systemd. No adapter uses it.
//!
//! **Adding an adapter** (an MQTT link, another pinsetter): a new file
//! that takes an [`ports::InputSender`] to send readings, or implements a
//! sink of [`ports`], or reads the [`ports::LaneSnapshot`] channel; then
//! one line in [`daemon::serve`] to start it. It uses [`ports`] (and the
//! core's types in [`lane`]), never [`daemon`] nor another adapter.
//! `tests/layout/layout.rs` fails on an import circle between modules (of
//! this crate, and of the core).
//!
//! The rest:
//!
//! - [`config`] reads and checks the config file; each module gets its
//!   validated part.
//! - [`journal`] is the journal: its format from the core (journal.md: the
//!   header, one JSON line per input, the reader that reports a bad line by
//!   its number and ignores a torn last line, and the writer, over any
//!   reader or writer), and its files on this machine: [`journal::store`]
//!   keeps them on disk (open, recover, append durably),
//!   [`journal::mirror`] keeps a live second copy of the open journal in
//!   another folder, on its own thread, catching up after the folder was
//!   missing, [`journal::backup`] copies the journal folder to another (a
//!   USB stick) for `lanecall backup` (whole lines only, each file durable
//!   before it takes its name, the copies' seals checked), and
//!   [`journal::slot`] is how the lane's thread tells the mirror and the
//!   centre link of new journal lines without ever waiting for them.
//! - [`replay`] (in the core) applies a journal to a lane and reports the result as
//!   `lanecall replay` prints it (replay-output.md), as JSON or as a score
//!   sheet for a terminal; the lane's thread keeps a [`replay::Replay`] too.
//! - [`centre`] is `lanecall centre`: the competition's centre, which
//!   mirrors every lane's journals over MQTT, replays them with the same
//!   core, and serves the standings, the programme and the block control.
//! - [`centre_link`] is `[centre]`: the lane's link to the competition's
//!   centre over MQTT (docs/mqtt.md), on its own thread.
//! - [`clock_sync`] says whether this machine's clock is synchronised (the
//!   time services' state, read without the calls the unit forbids): the
//!   lane takes its clock's date as the competition day's only then.
//! - [`sim`] (in the core) simulates bowlers and a pinsetter as sensor events, for tests
//!   and the demo lane.
//! - [`cli`] is the command line: its commands, what each runs, and its
//!   exit codes ([`cli::exit`]); `src/main.rs` only calls it.
//! - [`cli::setup`] is `lanecall setup`: asks the lane, port, PIN and language,
//!   writes them into the config keeping its comments, starts the service.
//! - [`atomic`] replaces a whole file in one rename, synced, keeping its
//!   owner and mode: the config, the sessions, the session key, the logins.
//! - [`log_limit`] logs a repeated bad input once per kind per window.
//! - [`csv`] writes every CSV cell the lane and the centre hand out (a
//!   spreadsheet never takes one for a formula) and reads CSV files a
//!   piece at a time.
//! - [`web::server`] serves the panel: its own accept loop with timeouts, a
//!   cap on open connections below the file limit, and HTTPS when
//!   configured.

#![forbid(unsafe_code)]

// The pure core, its own crate (crates/lanecall-core), under the paths it
// always had: `crate::lane::Lane`, `lanecall::journal::Reader`, …
// The journal's format is the core's too, under [`journal`] with its files.
pub use lanecall_core::{lane, pins, pinsetter, replay, sim, wall};

pub mod atomic;
pub mod centre;
pub mod centre_link;
pub mod cli;
pub mod clock_sync;
pub mod config;
pub mod csv;
pub mod daemon;
pub mod demo;
pub mod journal;
pub mod lane_thread;
pub mod log_limit;
pub mod mqtt;
pub mod ports;
pub mod sensors;
pub mod speaker;
pub mod wall_clock;
pub mod web;

//! # lanecall
//!
//! A lane controller for ten-pin bowling by blind and visually impaired
//! athletes: it scores the lane from the pinsetter and the foul line, calls
//! out the standing pins, and keeps a journal of every input.
//!
//! # Layout
//!
//! - [`lane`] is the pure core: pins, scoring, delivery detection, fouls,
//!   turn order, conduct (slow bowling, blindfolds) and the callout words.
//!   It takes timestamped events and returns effects; it does no I/O.
//! - [`journal`] is the journal format (journal.md): the header, one JSON
//!   line per input, the reader that reports a bad line by its number and
//!   ignores a torn last line, and the writer.
//! - [`pinsetter`] parses and checks the pinsetter's serial lines.
//! - [`replay`] applies a journal to a lane and reports the result as
//!   `lanecall replay` prints it (replay-output.md), as JSON or as a score
//!   sheet for a terminal.
//! - [`backup`] copies the journal folder to another (a USB stick) for
//!   `lanecall backup`: whole lines only, each file durable before it takes
//!   its name, the copies' seals checked.
//! - [`mirror`] keeps a live second copy of the open journal in another
//!   folder, on its own thread, catching up after the folder was missing.
//! - [`sim`] simulates bowlers and a pinsetter as sensor events, for tests
//!   and the demo lane.
//! - [`web`] is the control API for the judges' panel; [`web::server`]
//!   serves it: its own accept loop with timeouts, a cap on open
//!   connections below the file limit, and HTTPS when configured.

pub mod backup;
pub mod config;
pub mod daemon;
pub mod demo;
pub mod inputs;
pub mod journal;
pub mod lane;
pub mod log_limit;
pub mod mirror;
pub mod pinsetter;
pub mod replay;
pub mod sensors;
pub mod sim;
pub mod speaker;
pub mod store;
pub mod web;

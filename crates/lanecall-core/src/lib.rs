//! # lanecall-core
//!
//! lanecall's pure core: everything that decides, and nothing that touches
//! the world. It reads no clock, no file, no socket and no pin; the lane's
//! time is the `t` of its inputs. The daemon (the `lanecall` crate) drives
//! it, the centre replays journals with it, and tests, benches and the fuzz
//! targets use it directly.
//!
//! - [`lane`] is the lane: a state machine that takes one timestamped input
//!   at a time and returns effects. It decides every ruling (pins, scoring,
//!   delivery detection, fouls, turn order, conduct, the callout words).
//! - [`pins`] is pin numbers and pin sets, leaves and splits: what the lane
//!   and the pinsetter's parser share.
//! - [`pinsetter`] parses and formats the pinsetter's serial lines
//!   (pinsetter-protocol.md).
//! - [`journal`] is the journal format (journal.md): the header, one JSON
//!   line per input and its seal, the reader that reports a bad line by its
//!   number and the writer, over any `BufRead`/`Write`. Keeping the files is
//!   the daemon's (its `store`).
//! - [`replay`] applies a journal to a lane and reports the result as
//!   `lanecall replay` prints it (replay-output.md).
//! - [`sim`] simulates bowlers and a pinsetter as sensor events, for tests
//!   and the demo lane.
//! - [`wall`] is wall-clock time as the journal writes it, and the wall
//!   time of a lane time (read from the journal, never from a clock).
//! - [`names`] is the one rule for the names a person types (a bowler's,
//!   a judge's, a team's, a region): what the lane's lineup, the daemon's
//!   logins and the centre's entries all check.
//!
//! The modules use each other one way: `pins`, `wall` and `names` at the bottom; `pinsetter`
//! uses `pins`; `lane` uses both; `journal` the lane's types; `replay` the
//! journal and the lane; `sim` all but `replay`. `tests/layout.rs` checks
//! that there is no circle, and that this crate depends on nothing that does
//! I/O.

#![forbid(unsafe_code)]

pub mod journal;
pub mod lane;
pub mod names;
pub mod pins;
pub mod pinsetter;
pub mod replay;
pub mod sim;
pub mod wall;

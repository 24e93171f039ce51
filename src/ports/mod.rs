//! The lane thread's ports: what goes into it and what comes out, and
//! its clock. Every adapter (the pinsetter link, the GPIO, the panel, the
//! speaker, the demo) depends on these and on nothing of the others.
//!
//! - In: an [`Input`] (a sensor [`Reading`] or a panel action) on the one
//!   bounded channel of [`inputs`] ([`InputSender`]), in the journal's
//!   order. A panel action's reply says whether the lane took it
//!   ([`NotTaken`]); a judge's name that signs it is checked by
//!   [`valid_name`].
//! - Out: the relays ([`OutputSink`]), the callouts and incidents
//!   ([`CalloutSink`]), the lane's result after each change
//!   ([`LaneSnapshot`], on a `watch` channel), and the journal's lines as
//!   they become durable ([`JournalSink`]).
//! - The parts that fail ([`parts`]): each adapter says what is wrong
//!   with its part and how to fix it, for the panel's banners.
//! - Time: the [`clock`] port ([`LaneClock`]): the monotonic clock
//!   ([`Clock`]) or a script's ([`ScriptedClock`]) gives the lane time.
//!
//! Nothing here does I/O, journals, or decides anything about the lane:
//! that is [`crate::lane_thread`] (journal, then core) and [`crate::lane`]
//! (the rules). Only the core's types ([`crate::lane`]) are used here.

pub mod clock;
pub mod inputs;
pub mod parts;

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::oneshot;

use crate::lane::{Bowler, Callout, Conduct, Millis, Output, Panel, Refusal, Sensor, Switch};

pub use clock::{Clock, LaneClock, ScriptFeed, ScriptedClock};
pub use inputs::InputSender;
pub use parts::Parts;

/// A sensor reading, stamped where it was taken.
#[derive(Debug)]
pub struct Reading {
    pub at: Instant,
    pub sensor: Sensor,
}

/// Why a panel action was not taken.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotTaken {
    /// The lane's rules refused it (it is journaled all the same).
    #[error("{0}")]
    Refused(Refusal),
    /// The journal cannot be written, so nothing is applied: the lane
    /// holds until it can.
    #[error("the journal cannot be written: {0}; the lane is held until it can")]
    NotDurable(String),
    /// The lane does not know the competition day's date (its clock is
    /// not synchronised and nobody gave it): not journaled, the message
    /// says what to do.
    #[error("{0}")]
    Day(String),
}

/// The answer to a panel action: the lane time it was journaled at (a
/// later `withdraw` names it by that time), or why it was not taken.
pub type Reply = oneshot::Sender<Result<Millis, NotTaken>>;

/// What the lane's thread is asked to do.
#[derive(Debug)]
pub enum Input {
    Reading(Reading),
    /// A panel action: journaled and applied; the reply says whether the
    /// lane took it. One with no reply waits like a reading while the
    /// journal cannot be written.
    Action {
        panel: Panel,
        reply: Option<Reply>,
    },
    /// Stop after what is queued.
    Shutdown,
}

impl Input {
    /// A reading taken now.
    pub fn now(sensor: Sensor) -> Input {
        Input::Reading(Reading {
            at: Instant::now(),
            sensor,
        })
    }
}

/// The GPIO outputs (relays). `set` must return at once: a pulse is timed
/// by the sink, never by the lane's thread.
pub trait OutputSink: Send {
    fn set(&mut self, output: Output, switch: Switch);
}

/// Says the callouts ([`crate::speaker::Voice`]). `say` must return at
/// once: playing is the speaker thread's work, never the lane's.
pub trait CalloutSink: Send {
    fn say(&mut self, callout: &Callout, bowler: Option<&Bowler>);

    /// An incident the assistant should hear of (a pinsetter fault, a
    /// slow-bowling flag).
    fn conduct(&mut self, _incident: &Conduct) {}

    /// The journal cannot be written: the lane holds and scores nothing
    /// until it can. The assistant must hear it ("scoring stopped, call a
    /// judge"), in the lane's language.
    fn journal_failed(&mut self) {}

    /// The speaker's state for the panel, if it has one.
    fn status(&self) -> Option<serde_json::Value> {
        None
    }
}

/// Told of the journal's lines as they become durable, for whoever passes
/// them on (a link to the centre). `written` must return at once: reading
/// the new lines, by path, is the sink's own work (as the journal's mirror
/// does), never the lane's thread's.
pub trait JournalSink: Send {
    /// `journal` now holds `len` bytes of whole, durable lines. Told when
    /// the sink is added and after every append, before the lane applies
    /// the input; a new journal (the next block's) comes with its own path.
    fn written(&mut self, journal: &Path, len: u64);

    /// The sink's state for the panel, if it has one: its name under the
    /// journal's state in `/api/lane` (`journal.mirror`) and its value.
    /// Asked after every turn of the lane's duties: it must be cheap.
    fn status(&self) -> Option<(&'static str, serde_json::Value)> {
        None
    }
}

/// The lane's latest result (replay-output.md), serialized once per
/// change for every reader.
#[derive(Clone, Debug)]
pub struct LaneSnapshot {
    /// Goes up by one at every change.
    pub version: u64,
    pub json: Arc<str>,
}

/// The longest judge name a login may give, in characters: the core's
/// one limit for every name a person types.
pub use lanecall_core::names::MAX_NAME_CHARS;

/// Checks a judge name as given at login (and a name from a config or the
/// centre): it is written into the journal with every action the judge
/// takes, so it must read as what it is. A name that starts `centre:` is
/// the centre's (its commands are signed so), and a name with a character
/// that does not show, or that turns the text around, could pass for
/// another. The rule is the core's ([`lanecall_core::names::check_name`]),
/// the same the lane's lineup and the centre's entries follow; this gives
/// its message as text.
pub fn valid_name(name: &str) -> Result<(), String> {
    lanecall_core::names::check_name(name).map_err(|e| e.to_string())
}

//! Where the lane's readings come from, given to [`super::serve`] by its
//! caller: the pinsetter's serial link, a string pinsetter's pin switches,
//! or a script that plays the lane in place of its pinsetter and bowlers
//! (the simulator, from a layer above the daemon). The panel and the centre's
//! link send their inputs whatever the source.
//!
//! The daemon knows a script only by [`Script`]: how fast it plays,
//! whether it ends by itself, and how to start it on a lane. A lane with a
//! script has no GPIO, and its lane time is the script's: its clock port
//! is a scripted clock ([`crate::ports::ScriptedClock`]) the script moves.

use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::DaemonError;
use super::keep::keep_switches;
use crate::config::{Config, SwitchesConfig};
use crate::lane_thread::LaneRunner;
use crate::ports::{InputSender, LaneSnapshot, Parts, ScriptFeed};

/// The lane's source of readings.
pub enum Source {
    /// The pinsetter's serial link (`[pinsetter]`), with the GPIO.
    Pinsetter,
    /// A string pinsetter's pin switches (`[switches]`), with the GPIO.
    Switches(SwitchesConfig),
    /// A script plays the lane: no GPIO, no pinsetter.
    Script(Box<dyn Script>),
}

impl Source {
    /// The source a lane's config names: its pin switches when it has
    /// `[switches]`, else the pinsetter's link.
    pub fn of(config: &Config) -> Source {
        match &config.switches {
            Some(switches) => Source::Switches(switches.clone()),
            None => Source::Pinsetter,
        }
    }

    /// The script, when a script plays the lane.
    pub(super) fn script(&self) -> Option<&dyn Script> {
        match self {
            Source::Script(script) => Some(script.as_ref()),
            _ => None,
        }
    }
}

/// A script that plays a lane in place of its pinsetter and bowlers.
pub trait Script: Send {
    /// How much faster than life it plays (1.0: real time). The lane's
    /// clock runs as fast.
    fn speed(&self) -> f64;

    /// Whether it ends by itself: the daemon then stops once the lane has
    /// taken the script's last input. One that does not end plays until
    /// the daemon stops.
    fn ends(&self) -> bool;

    /// Starts playing on `lane`; the task ends when the script has played
    /// or the lane's thread is gone.
    fn play(self: Box<Self>, lane: ScriptedLane) -> JoinHandle<()>;
}

/// What a script plays on.
pub struct ScriptedLane {
    /// The lane's number (`lane` in the config).
    pub number: u32,
    /// Where the script sends its inputs, as steps of the lane's clock,
    /// each when the clock reaches its time; it starts where the lane's
    /// time stands (its journal may already hold earlier lines).
    pub feed: ScriptFeed,
    /// The lane's result after each change.
    pub state: watch::Receiver<LaneSnapshot>,
}

/// A source started: its task, and whether its end means the script has
/// played (the daemon then stops).
pub(super) struct Running {
    pub task: JoinHandle<()>,
    pub ends: bool,
}

/// Starts `source` on the lane, before its thread runs: a script's lane
/// follows the script's clock.
pub(super) fn start(
    source: Source,
    core: &mut LaneRunner,
    config: &Config,
    state: watch::Receiver<LaneSnapshot>,
    tx: &InputSender,
    parts: &Parts,
) -> Result<Running, DaemonError> {
    let running = |task, ends| Running { task, ends };
    match source {
        Source::Script(script) => {
            let ends = script.ends();
            let lane = ScriptedLane {
                number: config.lane,
                feed: core.script_clock(tx.clone()),
                state,
            };
            Ok(running(script.play(lane), ends))
        }
        Source::Switches(switches) => Ok(running(
            keep_switches(switches, tx.clone(), parts.clone())?,
            false,
        )),
        Source::Pinsetter => {
            let (link_state, _) = watch::channel(false);
            let link = config.pinsetter.clone();
            Ok(running(
                tokio::spawn(crate::sensors::serial::run_pinsetter_link(
                    link,
                    tx.clone(),
                    link_state,
                )),
                false,
            ))
        }
    }
}

//! The live lane: inputs from the sensors and the panel, journaled and then
//! applied to the core, and the core's effects sent to the outputs.
//!
//! One thread owns the lane. Everything reaches it as an [`Input`] on one
//! bounded channel ([`crate::inputs`]), so the journal's order is the order
//! the lane saw.

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use tokio::sync::{oneshot, watch};

use axum_extra::extract::cookie::Key;

use crate::config::{Config, GpioBackend};
use crate::inputs::{InputReceiver, InputStats};
use crate::journal::Header;
use crate::lane::{
    Action, Bowler, Callout, Conduct, Day, Effect, Event, Language, Millis, Output, Panel, Refusal,
    Rules, Sensor, Stamped, Switch,
};
use crate::log_limit::LogLimiter;
use crate::mirror::Mirror;
use crate::replay::Replay;
use crate::sensors::gpio::{GpioError, NullOutputs, RpiGpio, start_rpi};
use crate::store::{JournalFile, PathState, Recovered, Store, StoreError, rfc3339, unix_now};
use crate::web::{self, ApiState};

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
}

/// What the lane's thread is asked to do.
#[derive(Debug)]
pub enum Input {
    Reading(Reading),
    /// A panel action: journaled and applied; the reply says whether the
    /// lane took it. One with no reply (the demo's script) waits like a
    /// reading while the journal cannot be written.
    Action {
        by: Option<String>,
        action: Action,
        reply: Option<oneshot::Sender<Result<(), NotTaken>>>,
    },
    /// Stop after what is queued.
    Shutdown,
}

pub use crate::inputs::InputSender;

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

/// Lane time from the monotonic clock: milliseconds since the journal
/// started, going on from where a recovered journal stopped. `speed` runs
/// the demo faster than life while its journal keeps the lane's own times.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    base: Instant,
    offset: Millis,
    speed: f64,
}

impl Clock {
    pub fn new(offset: Millis, speed: f64) -> Clock {
        Clock {
            base: Instant::now(),
            offset,
            speed: if speed > 0.0 { speed } else { 1.0 },
        }
    }

    /// The lane time of an instant.
    pub fn t(&self, at: Instant) -> Millis {
        let real = at.saturating_duration_since(self.base).as_secs_f64();
        self.offset + (real * 1000.0 * self.speed) as Millis
    }

    /// The instant of a lane time (for the next deadline).
    pub fn instant(&self, t: Millis) -> Instant {
        let lane_ms = t.saturating_sub(self.offset) as f64;
        self.base + Duration::from_secs_f64(lane_ms / 1000.0 / self.speed)
    }
}

/// What the lane's thread needs to start.
pub struct CoreSettings {
    pub state_dir: PathBuf,
    pub lane: u32,
    pub rules: Rules,
    /// 1.0 but for the demo.
    pub speed: f64,
    /// `[journal] mirror`: where a live second copy of the journal goes.
    pub mirror: Option<PathBuf>,
    /// `[speaker] language`: the callouts' language for a bowler without
    /// their own, published as `speaker_language` for the panel's editor.
    pub language: Language,
}

/// The lane's latest result (replay-output.md), serialized once per
/// change for every reader.
#[derive(Clone, Debug)]
pub struct LaneSnapshot {
    /// Goes up by one at every change.
    pub version: u64,
    pub json: Arc<str>,
}

/// The longest the lane's thread sleeps, so that the watchdog sees it
/// alive: idle, it wakes once a second and does nothing else.
const HEARTBEAT: Duration = Duration::from_secs(1);

/// How long a deadline waits for readings stamped before it that are still
/// on their way (a GPIO edge a moment before a beam break turns into a
/// person's): they are applied first, in the order they happened.
const GRACE: Duration = Duration::from_millis(25);

/// How often a journal that cannot be written is tried again, and how
/// often the journal's path is checked.
const RETRY: Duration = Duration::from_secs(1);

/// Readings kept while the journal cannot be written, to journal and apply
/// when it can; past this many the newest are shed (and counted).
const MAX_WAITING: usize = 4096;

/// Notices (and journals set aside at start) listed for the panel.
const MAX_NOTICES: usize = 10;

/// How long the lane's thread goes on journaling what is queued once told
/// to stop: systemd's stop must not wait on a queue full of noise, and what
/// is left after this is counted in the log.
const STOP_BUDGET: Duration = Duration::from_millis(500);

/// The journal cannot be written: nothing is applied until it can.
struct Failure {
    reason: String,
    since_t: Millis,
    /// Readings (and scripted actions) not yet journaled, in order.
    waiting: std::collections::VecDeque<Stamped<Event>>,
    shed: u64,
    /// Where the hold that covers the failure in the journal stands.
    hold: FailureHold,
}

/// When the journal takes writes again, the failure goes into it as a
/// hold by `lanecall` from its start to its end, around the readings that
/// waited: the lane was held (nobody was told to bowl), so no slow-bowling
/// clock runs over it, in the live lane as in a replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FailureHold {
    /// Not journaled yet.
    ToStart,
    /// Journaled on; off still to come.
    On,
    /// Nothing (more) to journal: done, or a judge's hold was on anyway.
    Done,
}

/// The lane's thread: journal, core, effects.
pub struct Core {
    settings: CoreSettings,
    store: Store,
    journal: JournalFile,
    replay: Replay,
    clock: Clock,
    /// Set while the journal cannot be written.
    failure: Option<Failure>,
    /// Journals found unusable at start and renamed aside, with why.
    set_aside: Vec<(String, String)>,
    /// What the judges should know of the journal (wall time, message).
    notices: std::collections::VecDeque<(String, String)>,
    /// The last problem with the journal's path, so it is told once.
    path_problem: Option<String>,
    /// When the journal is next retried and its path checked.
    next_duty: Instant,
    /// The live second copy, if the config asks for one.
    mirror: Option<Mirror>,
    /// The mirror's state as last published.
    mirror_status: Option<serde_json::Value>,
    outputs: Box<dyn OutputSink>,
    speaker: Box<dyn CalloutSink>,
    snapshot: watch::Sender<LaneSnapshot>,
    version: u64,
    /// Milliseconds since `started` of the loop's last turn, for the
    /// watchdog.
    heartbeat: Arc<AtomicU64>,
    started: Instant,
    /// The speaker's state as last published.
    speaker_status: Option<serde_json::Value>,
    /// The input channel's counts (shed, queued) and the stop flag.
    inputs: Arc<InputStats>,
    /// The channel's counts as last published: (shed_serial, shed_beam).
    inputs_published: (u64, u64),
    /// Repeated bad inputs are logged once per kind per window.
    log_limit: LogLimiter,
}

impl Core {
    /// Opens the newest journal and replays it (the lane goes on where it
    /// stopped, mid-frame included), or starts a new one when the last
    /// block is over and the journal is from an earlier day or other rules.
    pub fn start(
        settings: CoreSettings,
        outputs: Box<dyn OutputSink>,
        speaker: Box<dyn CalloutSink>,
    ) -> Result<(Core, watch::Receiver<LaneSnapshot>), StoreError> {
        let store = Store::open(&settings.state_dir, settings.lane)?;
        let now = unix_now();
        // The newest journal that can be read; one that cannot is renamed
        // aside (never deleted) and the next newest is tried.
        let mut set_aside = Vec::new();
        let recovered = loop {
            let Some(path) = store.newest()? else {
                break None;
            };
            match JournalFile::recover(&path) {
                Ok(r) => break Some(r),
                Err(e) => {
                    let aside = store.set_aside(&path)?;
                    tracing::error!(
                        journal = %path.display(),
                        kept_as = %aside.display(),
                        "cannot recover the journal, set it aside and going on without it: {e}"
                    );
                    // Every one is in the log; the panel lists the first few.
                    if set_aside.len() < MAX_NOTICES {
                        let name = aside.file_name().map(|n| n.to_string_lossy().into_owned());
                        set_aside.push((name.unwrap_or_default(), e.to_string()));
                    }
                }
            }
        };
        // Lane time goes on from the last journal, new or not.
        let last_t = recovered.as_ref().map_or(0, |r| r.replay.last_t());
        let day = recovered
            .as_ref()
            .and_then(|r| Self::same_day(&r.replay, &settings, now));
        let (journal, replay) = match recovered {
            Some(r) if !Self::wants_new_journal(&r, &settings, now) => {
                if let Some(torn) = &r.torn {
                    tracing::warn!(
                        journal = %r.file.path().display(),
                        "cut a torn last line left by a power loss: {torn:?}"
                    );
                }
                tracing::info!(
                    journal = %r.file.path().display(),
                    lines = r.file.lines(),
                    "recovered the lane from its journal"
                );
                (r.file, r.replay)
            }
            _ => {
                let header = Self::header(&settings, now).with_day(day);
                let file = store.create(&header, now)?;
                tracing::info!(journal = %file.path().display(), "started a new journal");
                (file, Replay::new(&header))
            }
        };
        let clock = Clock::new(last_t, settings.speed);
        // Published for real below, with the speaker's state.
        let (tx, rx) = watch::channel(LaneSnapshot {
            version: 0,
            json: Arc::from("{}"),
        });
        let mut core = Core {
            settings,
            store,
            journal,
            replay,
            clock,
            failure: None,
            set_aside,
            notices: Default::default(),
            path_problem: None,
            next_duty: Instant::now() + RETRY,
            mirror: None,
            mirror_status: None,
            outputs,
            speaker,
            snapshot: tx,
            version: 0,
            heartbeat: Arc::new(AtomicU64::new(0)),
            started: Instant::now(),
            speaker_status: None,
            inputs: Arc::default(),
            inputs_published: (0, 0),
            log_limit: LogLimiter::new(crate::log_limit::WINDOW),
        };
        if let Some(target) = core.settings.mirror.clone() {
            let mirror = Mirror::start(target);
            mirror.written(core.journal.path(), core.journal.len());
            core.mirror = Some(mirror);
        }
        core.publish();
        Ok((core, rx))
    }

    fn wants_new_journal(r: &Recovered, settings: &CoreSettings, now: u64) -> bool {
        let lane = r.replay.lane();
        if lane.open_block().is_some() {
            return false;
        }
        let started_day = r
            .header
            .started_at
            .as_deref()
            .map(|s| s.get(..10).unwrap_or(s).to_owned());
        let today = rfc3339(now)[..10].to_owned();
        started_day.as_deref() != Some(today.as_str())
            || r.header.rules != settings.rules
            || r.header.lane != settings.lane
    }

    /// What a journal leaves in force for the lane's next journal, when
    /// that one starts on the same day (by the wall clock's date, as
    /// [`Core::wants_new_journal`] decides) for the same lane.
    fn same_day(replay: &Replay, settings: &CoreSettings, now: u64) -> Option<Day> {
        let started = replay.started_at()?;
        let same =
            started.get(..10) == rfc3339(now).get(..10) && replay.lane().number() == settings.lane;
        same.then(|| replay.lane().day())
    }

    fn header(settings: &CoreSettings, now: u64) -> Header {
        Header::new(settings.lane, Some(rfc3339(now)), settings.rules.clone())
    }

    /// The loop's last turn, in milliseconds since start (for the watchdog).
    pub fn heartbeat(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.heartbeat)
    }

    pub fn clock(&self) -> Clock {
        self.clock
    }

    pub fn journal_path(&self) -> &Path {
        self.journal.path()
    }

    /// Runs until [`Input::Shutdown`], the channel's stop flag
    /// ([`InputSender::stop`]) or until every sender is gone, and returns
    /// the lane as it stood. Once told to stop it journals what is queued
    /// for at most [`STOP_BUDGET`].
    pub fn run(mut self, inputs: InputReceiver) -> Replay {
        self.inputs = inputs.stats();
        let mut stop_seen: Option<Instant> = None;
        loop {
            let now = Instant::now();
            self.heartbeat.store(
                now.duration_since(self.started).as_millis() as u64,
                Ordering::Relaxed,
            );
            // The flag, not a message behind the queue: a queue full of
            // noise cannot hold the stop back.
            if self.inputs.stopping() {
                let since = *stop_seen.get_or_insert(now);
                if now.saturating_duration_since(since) >= STOP_BUDGET {
                    break;
                }
            }
            if now >= self.next_duty {
                self.next_duty = now + RETRY;
                for line in self.log_limit.flush(now) {
                    tracing::warn!("{line}");
                }
                if self.inputs_counts() != self.inputs_published {
                    self.publish();
                }
                self.check_path();
                if self.failure.is_some() {
                    self.retry();
                }
                // A mirror that failed or came back shows on the panel.
                if self.mirror.as_ref().map(Mirror::status) != self.mirror_status {
                    self.publish();
                }
            }
            // While the journal fails the lane stands still: no deadline
            // runs ahead of the readings still waiting for it.
            let deadline = self
                .replay
                .lane()
                .poll_deadline()
                .filter(|_| self.failure.is_none());
            let wake = deadline
                .map(|d| self.clock.instant(d) + GRACE)
                .map_or(now + HEARTBEAT, |at| at.min(now + HEARTBEAT))
                .min(self.next_duty);
            // Stopping, only what is queued is taken: no waiting for more.
            let timeout = match stop_seen {
                Some(_) => Duration::ZERO,
                None => wake.saturating_duration_since(now),
            };
            match inputs.recv_timeout(timeout) {
                Err(mpsc::RecvTimeoutError::Timeout) if stop_seen.is_some() => break,
                Ok(Input::Reading(r)) => {
                    let t = self.clock.t(r.at);
                    self.apply(t, Event::Sensor(r.sensor), None);
                }
                Ok(Input::Action { by, action, reply }) => {
                    let t = self.clock.t(Instant::now());
                    self.apply(t, Event::Panel(Panel { by, action }), reply);
                }
                Ok(Input::Shutdown) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    // Tick to the deadline itself, not to now: a reading
                    // stamped between the two keeps its own time.
                    let passed = Instant::now().checked_sub(GRACE).map(|at| self.clock.t(at));
                    if let Some(due) = deadline.filter(|&d| passed.is_some_and(|p| d <= p)) {
                        self.replay.tick(due);
                        self.effects(false);
                    }
                    // A sound card that came or went shows on the panel.
                    if self.speaker.status() != self.speaker_status {
                        self.publish();
                    }
                }
            }
        }
        if let Some(f) = &self.failure {
            tracing::error!(
                "stopping with {} input(s) never journaled: {}",
                f.waiting.len() as u64 + f.shed,
                f.reason
            );
        }
        let queued = self.queued();
        if queued > 0 {
            tracing::warn!("stopping with {queued} input(s) still queued, not journaled");
        }
        for line in self
            .log_limit
            .flush(Instant::now() + crate::log_limit::WINDOW)
        {
            tracing::warn!("{line}");
        }
        tracing::info!("the lane's thread stopped");
        self.replay
    }

    /// Journals one input, then applies it; an input that cannot be
    /// journaled is not applied.
    fn apply(
        &mut self,
        t: Millis,
        event: Event,
        reply: Option<oneshot::Sender<Result<(), NotTaken>>>,
    ) {
        // Never earlier than what the lane has seen (a reading stamped by
        // its source just before a timer fired), so that a replay meets the
        // deadlines in the same order as the live lane did.
        let t = t.max(self.replay.last_t()).max(self.replay.lane().now());
        let stamped = Stamped { t, event };
        if self.failure.is_some() {
            self.wait_or_refuse(stamped, reply);
            return;
        }
        match self.journal_and_apply(&stamped) {
            Ok(refusal) => {
                if let Some(reply) = reply {
                    let _ = reply.send(refusal.map_or(Ok(()), |r| Err(NotTaken::Refused(r))));
                }
            }
            Err(e) => {
                self.fail(&e, t);
                self.wait_or_refuse(stamped, reply);
            }
        }
    }

    /// Journals an input and, once it is durable, applies it and sends its
    /// effects; returns the lane's refusal, if any.
    fn journal_and_apply(&mut self, e: &Stamped<Event>) -> io::Result<Option<Refusal>> {
        let line = self.journal_input(e)?;
        if let Some(mirror) = &self.mirror {
            mirror.written(self.journal.path(), self.journal.len());
        }
        self.replay.apply(line, e);
        Ok(self.effects(true))
    }

    /// Appends an input to the journal, durably; after a block ends, the
    /// next lineup starts a journal of its own (the lane switches to it only
    /// once the lineup is in it). Returns the line's number.
    ///
    /// A new journal's first line is the pinsetter link's state the lane
    /// had (a `serial_link` reading at the lineup's time), when it had one:
    /// the port stays open across blocks and reports no change, and the
    /// new journal, replayed alone or recovered after a restart, must not
    /// show a working link as never connected.
    fn journal_input(&mut self, e: &Stamped<Event>) -> io::Result<u64> {
        let lane = self.replay.lane();
        let link_up = lane.link_up();
        let next_block = matches!(
            e.event,
            Event::Panel(Panel {
                action: Action::Lineup { .. },
                ..
            })
        ) && !lane.blocks().is_empty()
            && lane.open_block().is_none();
        if !next_block {
            return self.journal.append(e);
        }
        let now = unix_now();
        let day = Self::same_day(&self.replay, &self.settings, now);
        let header = Self::header(&self.settings, now).with_day(day);
        let mut file = self
            .store
            .create(&header, now)
            .map_err(|e| io::Error::other(e.to_string()))?;
        let inherited = link_up.map(|up| Stamped {
            t: e.t,
            event: Event::Sensor(Sensor::SerialLink { up }),
        });
        let appended = match &inherited {
            Some(link) => file.append(link).map(Some),
            None => Ok(None),
        }
        .and_then(|link_line| Ok((link_line, file.append(e)?)));
        match appended {
            Ok((link_line, line)) => {
                tracing::info!(journal = %file.path().display(), "started a new journal for the next block");
                self.journal = file;
                self.replay = Replay::new(&header);
                if let (Some(n), Some(link)) = (link_line, &inherited) {
                    self.replay.apply(n, link);
                }
                Ok(line)
            }
            Err(err) => {
                // A journal with only its header would be taken as the
                // newest at a restart: remove it, the lane stays in the old.
                let _ = std::fs::remove_file(file.path());
                Err(err)
            }
        }
    }

    /// The journal just failed: the lane holds, and everyone is told.
    fn fail(&mut self, e: &io::Error, t: Millis) {
        let reason = e.to_string();
        tracing::error!(
            journal = %self.journal.path().display(),
            "cannot journal an input, the lane holds until it can: {reason}"
        );
        self.speaker.journal_failed();
        self.failure = Some(Failure {
            reason,
            since_t: t,
            waiting: Default::default(),
            shed: 0,
            hold: FailureHold::ToStart,
        });
        self.next_duty = Instant::now() + RETRY;
        self.publish();
    }

    /// While the journal fails: a reading waits (bounded) to be journaled
    /// when it can be; a judge's action is answered at once that it was
    /// not taken.
    fn wait_or_refuse(
        &mut self,
        e: Stamped<Event>,
        reply: Option<oneshot::Sender<Result<(), NotTaken>>>,
    ) {
        let Some(f) = &mut self.failure else { return };
        match reply {
            Some(reply) => {
                let _ = reply.send(Err(NotTaken::NotDurable(f.reason.clone())));
            }
            None if f.waiting.len() < MAX_WAITING => f.waiting.push_back(e),
            None => f.shed += 1,
        }
    }

    /// Tries the journal again: the failure's hold, then what waited, in
    /// order, then the hold's end are journaled and applied. The lane goes
    /// on by itself once it can.
    fn retry(&mut self) {
        let Some(mut f) = self.failure.take() else {
            return;
        };
        let result = self.catch_up(&mut f);
        match result {
            Ok(()) => {
                tracing::warn!(
                    journal = %self.journal.path().display(),
                    shed = f.shed,
                    "the journal takes writes again: the lane goes on"
                );
                self.notice(format!(
                    "the journal could not be written from t={} ms ({}); it was written again after that{}",
                    f.since_t,
                    f.reason,
                    if f.shed > 0 { format!(", {} input(s) were lost while it failed", f.shed) } else { String::new() }
                ));
                self.publish();
            }
            Err(e) => {
                f.reason = e.to_string();
                self.failure = Some(f);
                self.publish();
            }
        }
    }

    fn catch_up(&mut self, f: &mut Failure) -> io::Result<()> {
        let hold = |on: bool, t: Millis, reason: Option<String>| Stamped {
            t,
            event: Event::Panel(Panel {
                by: Some("lanecall".into()),
                action: Action::Hold { on, reason },
            }),
        };
        if f.hold == FailureHold::ToStart {
            if self.replay.lane().hold().is_some() {
                f.hold = FailureHold::Done;
            } else {
                let reason = format!("the journal could not be written: {}", f.reason);
                self.journal_and_apply(&hold(true, f.since_t, Some(reason)))?;
                f.hold = FailureHold::On;
            }
        }
        while let Some(e) = f.waiting.front() {
            self.journal_and_apply(e)?;
            f.waiting.pop_front();
        }
        if f.hold == FailureHold::On {
            let t = self.clock.t(Instant::now()).max(self.replay.last_t());
            self.journal_and_apply(&hold(false, t, None))?;
            f.hold = FailureHold::Done;
            return Ok(());
        }
        // Nothing was written (a judge's hold was on, nothing waited): the
        // folder must take a write all the same.
        self.journal.roll_back()?;
        self.store.probe()
    }

    /// Notices a journal deleted or replaced under the running lane, and
    /// puts it back at its path from the open file.
    fn check_path(&mut self) {
        let state = self.journal.path_state();
        if state == PathState::Same {
            self.path_problem = None;
            return;
        }
        let what = match state {
            PathState::Missing => "deleted",
            PathState::Shortened { len, expected } => {
                let message = format!(
                    "the journal file was cut short while the lane ran: {len} of {expected} bytes are left; the lane's own record is complete, a judge should keep the backup"
                );
                return self.path_problem(message);
            }
            _ => "replaced by another file",
        };
        let message = match self.journal.restore() {
            Ok(kept) => {
                let kept = kept.map_or(String::new(), |k| {
                    format!(" (the other file is kept as {})", k.display())
                });
                format!(
                    "the journal file was {what} while the lane ran: restored at its path from the open file{kept}"
                )
            }
            Err(e) => format!(
                "the journal file was {what} while the lane ran and cannot be restored yet: {e}"
            ),
        };
        self.path_problem(message);
    }

    /// Tells a problem with the journal's path once.
    fn path_problem(&mut self, message: String) {
        if self.path_problem.as_deref() != Some(message.as_str()) {
            tracing::error!(journal = %self.journal.path().display(), "{message}");
            self.path_problem = Some(message.clone());
            self.notice(message);
            self.publish();
        }
    }

    fn notice(&mut self, message: String) {
        if self.notices.len() == MAX_NOTICES {
            self.notices.pop_front();
        }
        self.notices.push_back((rfc3339(unix_now()), message));
    }

    /// The journal's state for the panel (`journal` in `/api/lane`).
    fn journal_status(&self) -> serde_json::Value {
        let name = self.journal.path().file_name().map(|n| n.to_string_lossy());
        let mut v = serde_json::json!({
            "state": if self.failure.is_some() { "failed" } else { "ok" },
            "file": name,
            "lines": self.journal.lines(),
            "set_aside": self.set_aside.iter().map(|(file, reason)| serde_json::json!({"file": file, "reason": reason})).collect::<Vec<_>>(),
            "notices": self.notices.iter().map(|(at, message)| serde_json::json!({"at": at, "message": message})).collect::<Vec<_>>(),
        });
        if let Some(m) = &self.mirror_status {
            v["mirror"] = m.clone();
        }
        if let Some(f) = &self.failure {
            v["failed"] = serde_json::json!({
                "reason": f.reason,
                "since_t": f.since_t,
                "waiting": f.waiting.len(),
                "shed": f.shed,
            });
        }
        v
    }

    /// Sends the effects of the last input or tick to the outputs, the
    /// speaker and the log, publishes the new state, and returns a refusal.
    /// After an input the state is always published: even one the lane
    /// refused is journaled, counted and listed.
    fn effects(&mut self, after_input: bool) -> Option<Refusal> {
        let mut refusal = None;
        let mut changed = false;
        let lane = self.replay.lane();
        for effect in self.replay.last_effects() {
            match effect {
                Effect::Output(o) => self.outputs.set(o.output, o.switch),
                Effect::Callout(c) => {
                    let bowler = c
                        .bowler
                        .and_then(|e| lane.entries().get(e as usize))
                        .map(|e| &e.bowler);
                    self.speaker.say(c, bowler);
                }
                Effect::Conduct(c) => {
                    tracing::warn!(bowler = c.bowler.as_deref().unwrap_or("lane"), "{}", c.kind);
                    self.speaker.conduct(c);
                }
                Effect::Refused(r) => {
                    let kind = match r {
                        Refusal::Serial(_) => crate::replay::kind::SERIAL,
                        _ => crate::replay::kind::REFUSED,
                    };
                    if let Some(line) = self.log_limit.note(
                        kind,
                        plural(kind),
                        Instant::now(),
                        format_args!("refused: {r}"),
                    ) {
                        tracing::warn!("{line}");
                    }
                    refusal = Some(r.clone());
                }
                Effect::SerialGap { lost, .. } => {
                    let kind = crate::replay::kind::SERIAL_GAP;
                    let message = format_args!("pinsetter lines lost: {lost}");
                    if let Some(line) =
                        self.log_limit
                            .note(kind, plural(kind), Instant::now(), message)
                    {
                        tracing::warn!("{line}");
                    }
                }
                Effect::Changed => changed = true,
            }
        }
        if changed || after_input {
            self.publish();
        }
        refusal
    }

    /// The channel's shed counts: (serial lines, beam edges).
    fn inputs_counts(&self) -> (u64, u64) {
        (self.inputs.shed_serial(), self.inputs.shed_beam())
    }

    /// Inputs sent and not yet taken.
    fn queued(&self) -> u64 {
        self.inputs.queued()
    }

    fn publish(&mut self) {
        self.version += 1;
        self.speaker_status = self.speaker.status();
        let mut extra: Vec<(&'static str, serde_json::Value)> = self
            .speaker_status
            .iter()
            .map(|s| ("speaker", s.clone()))
            .collect();
        self.mirror_status = self.mirror.as_ref().map(Mirror::status);
        extra.push((
            "speaker_language",
            serde_json::json!(self.settings.language),
        ));
        extra.push(("journal", self.journal_status()));
        self.inputs_published = self.inputs_counts();
        let (shed_serial, shed_beam) = self.inputs_published;
        extra.push((
            "inputs",
            serde_json::json!({
                "shed_serial": shed_serial,
                "shed_beam": shed_beam,
                "queued": self.queued(),
            }),
        ));
        match serde_json::to_string(&self.replay.report_with(&extra)) {
            Ok(json) => {
                self.snapshot.send_replace(LaneSnapshot {
                    version: self.version,
                    json: json.into(),
                });
            }
            Err(e) => tracing::error!("cannot serialize the lane: {e}"),
        }
    }
}

/// A kind of repeated log line ([`crate::replay::kind`]) in the plural, for
/// its summary.
fn plural(kind: &str) -> &'static str {
    match kind {
        crate::replay::kind::SERIAL => "bad serial lines",
        crate::replay::kind::SERIAL_GAP => "pinsetter sequence gaps",
        _ => "refused inputs",
    }
}

/// Why the daemon could not start.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Gpio(#[from] GpioError),
    #[error("cannot listen on {addr}: {source}")]
    Listen { addr: SocketAddr, source: io::Error },
    #[error("cannot start the lane's thread: {0}")]
    Thread(io::Error),
    #[error(transparent)]
    Tls(#[from] web::server::TlsError),
    #[error(
        "the lane's thread stopped by itself: the lane is not scored, exiting so that it restarts"
    )]
    LaneStopped,
}

/// How the daemon runs beyond its config.
#[derive(Clone, Debug, Default)]
pub struct ServeOptions {
    /// Play the simulator instead of listening to a pinsetter: the demo.
    pub demo: Option<DemoOptions>,
    /// Stop by itself after this long.
    pub stop_after: Option<Duration>,
}

#[derive(Clone, Debug)]
pub struct DemoOptions {
    pub speed: f64,
    pub seed: u64,
}

/// What a running daemon tells the one who started it.
pub struct Started {
    pub listen: SocketAddr,
    pub journal: PathBuf,
}

/// Runs the lane: the lane's thread, the pinsetter link (or the demo
/// simulator), the GPIO, the control API. Returns the lane as it stood
/// when it stopped (on SIGTERM, Ctrl-C or `stop_after`).
pub async fn serve(
    config: Config,
    options: ServeOptions,
    on_start: impl FnOnce(&Started),
) -> Result<Replay, DaemonError> {
    // SIGTERM is caught from the start: one that comes as soon as the panel
    // answers must stop the lane cleanly, not kill it mid-write.
    let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let (tx, rx) = crate::inputs::channel(crate::inputs::CAPACITY);
    let demo = options.demo.clone();
    // GPIO first: on a machine that is not a Pi, fail before anything else.
    let (_gpio, outputs): (Option<RpiGpio>, Box<dyn OutputSink>) = match config.gpio.backend {
        GpioBackend::Rpi if demo.is_none() => {
            let (gpio, outputs) = start_rpi(&config.gpio.inputs, &config.gpio.outputs, tx.clone())?;
            (Some(gpio), outputs)
        }
        _ => (None, Box::new(NullOutputs)),
    };
    let settings = CoreSettings {
        state_dir: config.state_dir.clone(),
        lane: config.lane,
        rules: config.rules.clone(),
        speed: demo.as_ref().map_or(1.0, |d| d.speed),
        mirror: config.journal.mirror.clone(),
        language: config.speaker.language,
    };
    let voice = Box::new(crate::speaker::Voice::start(&config.speaker));
    let (core, snapshot) = Core::start(settings, outputs, voice)?;
    let clock = core.clock();
    let heartbeat = core.heartbeat();
    let journal = core.journal_path().to_owned();
    let lane_thread = std::thread::Builder::new()
        .name("lane".into())
        .spawn(move || core.run(rx))
        .map_err(DaemonError::Thread)?;

    let tls = match &config.web.tls {
        Some(files) => Some(web::server::tls_acceptor(files)?),
        None => None,
    };
    let listener = tokio::net::TcpListener::bind(config.web.listen)
        .await
        .map_err(|source| DaemonError::Listen {
            addr: config.web.listen,
            source,
        })?;
    let listen = listener.local_addr().unwrap_or(config.web.listen);
    let api = web::router(ApiState {
        inputs: tx.clone(),
        lane: snapshot,
        cookie_key: session_key(&config.state_dir),
        auth: web::AuthSettings::from_config(&config),
        journal_dir: Some(config.journal_dir()),
        live_views: config.web.max_live_views,
    });
    let fd_limit = web::server::fd_limit();
    let limits = web::server::Limits::new(web::server::connection_cap(
        config.web.max_connections,
        fd_limit,
    ));
    tracing::info!(
        max_connections = limits.max_connections,
        max_live_views = config.web.max_live_views,
        fd_limit,
        https = tls.is_some(),
        "the panel's connection cap is {}",
        limits.max_connections
    );
    if limits.max_connections < config.web.max_connections {
        tracing::warn!(
            "web.max_connections {} lowered to {}: the file limit is {fd_limit:?}; raise LimitNOFILE",
            config.web.max_connections,
            limits.max_connections
        );
    }
    let (stop_web, web_stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(web::server::serve(listener, api, tls, limits, async {
        let _ = web_stopped.await;
    }));

    let source = match &demo {
        Some(d) => {
            let start = clock.t(Instant::now());
            tokio::spawn(crate::demo::play(clock, start, d.seed, tx.clone()))
        }
        None => {
            let (link_state, _) = watch::channel(false);
            let link = config.pinsetter.clone();
            tokio::spawn(crate::sensors::serial::run_pinsetter_link(
                link,
                tx.clone(),
                link_state,
            ))
        }
    };
    on_start(&Started {
        listen,
        journal: journal.clone(),
    });
    tracing::info!(%listen, journal = %journal.display(), "lane {} is up", config.lane);
    let _ = sd_notify::notify(&[sd_notify::NotifyState::Ready]);
    let watchdog = tokio::spawn(watchdog(heartbeat));

    let mut lane_done = tokio::task::spawn_blocking(move || lane_thread.join());
    // The lane's thread ends only when told to: if it ends on its own (a
    // bug), the daemon must not go on serving a lane nobody scores.
    let lane_ended = tokio::select! {
        () = wait_for_stop(options.stop_after, term) => None,
        joined = &mut lane_done => Some(joined),
    };
    tracing::info!("stopping");
    let _ = sd_notify::notify(&[sd_notify::NotifyState::Stopping]);
    source.abort();
    watchdog.abort();
    tx.stop();
    drop(tx);
    let _ = stop_web.send(());
    let _ = server.await;
    if lane_ended.is_some() {
        return Err(DaemonError::LaneStopped);
    }
    match lane_done.await {
        Ok(Ok(replay)) => Ok(replay),
        _ => Err(DaemonError::LaneStopped),
    }
}

/// The key that signs the judges' session cookies, kept in the state
/// directory so that a restart (a watchdog's, a power cut's) does not log
/// the judges out in the middle of a block. A missing or unusable file is
/// replaced by a new key (everyone logs in again), never a failure.
fn session_key(state_dir: &Path) -> Key {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let path = state_dir.join("session.key");
    if let Ok(bytes) = std::fs::read(&path)
        && bytes.len() >= 64
        && let Ok(key) = Key::try_from(bytes.as_slice())
    {
        return key;
    }
    let key = Key::generate();
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&path)
        .and_then(|mut f| f.write_all(key.master()).and_then(|()| f.sync_all()));
    if let Err(e) = written {
        tracing::warn!(file = %path.display(), "cannot keep the session key; judges log in again after a restart: {e}");
    }
    key
}

/// Tells systemd the daemon is alive, but only while the lane's thread
/// keeps turning: a stuck lane gets restarted.
async fn watchdog(heartbeat: Arc<AtomicU64>) {
    let Some(timeout) = sd_notify::watchdog_enabled().filter(|d| !d.is_zero()) else {
        return;
    };
    let period = timeout / 2;
    let mut last_seen = heartbeat.load(Ordering::Relaxed);
    let mut last_change = Instant::now();
    loop {
        tokio::time::sleep(period).await;
        let beat = heartbeat.load(Ordering::Relaxed);
        if beat != last_seen {
            last_seen = beat;
            last_change = Instant::now();
        }
        // The lane's thread turns at least every HEARTBEAT.
        if last_change.elapsed() <= HEARTBEAT * 3 + period {
            let _ = sd_notify::notify(&[sd_notify::NotifyState::Watchdog]);
        } else {
            tracing::error!(
                "the lane's thread has not turned for {:?}: no watchdog ping",
                last_change.elapsed()
            );
        }
    }
}

async fn wait_for_stop(after: Option<Duration>, term: Option<tokio::signal::unix::Signal>) {
    let timer = async {
        match after {
            Some(d) => tokio::time::sleep(d).await,
            None => std::future::pending().await,
        }
    };
    let term = async {
        match term {
            Some(mut s) => {
                s.recv().await;
            }
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = timer => {}
        _ = term => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_key_survives_a_restart_and_a_bad_file_is_replaced() {
        let dir = std::env::temp_dir().join(format!("lanecall-key-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let first = session_key(&dir);
        let again = session_key(&dir);
        assert_eq!(
            first.master(),
            again.master(),
            "the same key after a restart"
        );
        std::fs::write(dir.join("session.key"), b"short").unwrap();
        let new = session_key(&dir);
        assert_ne!(new.master(), first.master());
        assert_eq!(
            std::fs::read(dir.join("session.key")).unwrap(),
            new.master()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

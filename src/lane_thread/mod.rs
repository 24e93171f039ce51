//! The lane's thread: inputs from the sensors and the panel, journaled and
//! then applied to the core, and the core's effects sent to the outputs.
//!
//! One thread owns the lane. Everything reaches it as an [`Input`] on one
//! bounded channel ([`crate::ports::inputs`]), so the journal's order is
//! the order the lane saw. Nothing is applied, shown or said before it is durable in the
//! journal; while the journal cannot be written the lane holds
//! (`failure.rs`). The core's deadlines are met here, as ticks. After
//! every change it publishes the lane for the panel, with its own state
//! beside it (`publish.rs`).
//!
//! It knows which competition day it is (`day.rs`): its clock's date while
//! a time service has synchronised the clock ([`crate::clock_sync`]), else
//! the date a judge or the centre gave in this run, journaled; without one
//! no block starts.
//!
//! It decides nothing of the rules (that is [`crate::lane`]) and knows no
//! adapter: it sees the outputs, the speaker and the panel only through
//! the ports ([`crate::ports`]). Starting the adapters, the HTTP server and
//! systemd's notifications is the wiring's ([`crate::daemon`]).

mod day;
mod failure;
mod publish;
#[cfg(test)]
mod script_tests;
mod wall;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::clock_sync::SyncWatch;
use crate::journal::Header;
use crate::journal::store::{JournalFile, Recovered, Store, StoreError};
use crate::lane::{
    Action, Day, Effect, Event, Language, Millis, Panel, Refusal, Rules, Sensor, Stamped,
};
use crate::log_limit::LogLimiter;
use crate::ports::inputs::{InputReceiver, InputSender, InputStats, Taken};
use crate::ports::{
    CalloutSink, Clock, Input, JournalSink, LaneClock, LaneSnapshot, NotTaken, OutputSink, Parts,
    Reply, ScriptFeed, ScriptedClock,
};
use crate::replay::Replay;
use crate::wall::{DayDate, WallTime};
use crate::wall_clock::{rfc3339, unix_now};
use failure::Failure;

/// What the lane's thread needs to start.
pub struct RunnerSettings {
    pub state_dir: PathBuf,
    pub lane: u32,
    pub rules: Rules,
    /// 1.0 but for the demo.
    pub speed: f64,
    /// A simulated lane (the demo): its day is its clock's, whatever a
    /// time service says of the clock, as nobody is there to confirm it.
    pub simulated: bool,
    /// `[speaker] language`: the callouts' language for a bowler without
    /// their own, published as `speaker_language` for the panel's editor.
    pub language: Language,
}

/// The longest the lane's thread sleeps, so that the watchdog sees it
/// alive: idle, it wakes once a second and does nothing else.
pub(crate) const HEARTBEAT: Duration = Duration::from_secs(1);

/// How long a deadline waits for readings stamped before it that are still
/// on their way (a GPIO edge a moment before a beam break turns into a
/// person's): they are applied first, in the order they happened.
const GRACE: Duration = Duration::from_millis(25);

/// Inputs journaled with one write and one sync at most: what is queued
/// when a write begins goes out together (group commit), so a judge's
/// action behind a burst of noise waits for one sync of it, not one a
/// line. Far above the queue's noise limit (64).
const BATCH: usize = 256;

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

/// The lane's thread: journal, core, effects.
pub struct LaneRunner {
    settings: RunnerSettings,
    store: Store,
    journal: JournalFile,
    replay: Replay,
    /// The monotonic clock from where the journal stopped.
    real: Clock,
    /// Where the lane's time comes from: `real`, or a script's clock
    /// ([`LaneRunner::script_clock`]).
    clock: Box<dyn LaneClock>,
    /// Set while the journal cannot be written.
    failure: Option<Failure>,
    /// Inputs are being applied in a row (what one write journaled, or
    /// what waited for the journal, [`LaneRunner::retry`]): the state is
    /// published once after them all (after a failure with its notice,
    /// never "ok" without it).
    in_a_row: bool,
    /// Journals found unusable at start and renamed aside, with why.
    set_aside: Vec<(String, String)>,
    /// What the judges should know of the journal (wall time, message).
    notices: std::collections::VecDeque<(String, String)>,
    /// The last problem with the journal's path, so it is told once.
    path_problem: Option<String>,
    /// When the journal is next retried and its path checked.
    next_duty: Instant,
    /// The journal sinks' states as last published (the mirror's).
    sinks_status: Vec<(&'static str, serde_json::Value)>,
    /// Told of every durable append ([`LaneRunner::add_journal_sink`]).
    journal_sinks: Vec<Box<dyn JournalSink>>,
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
    /// The parts that fail ([`LaneRunner::watch_parts`]), and their
    /// version as last published.
    parts: Parts,
    parts_published: u64,
    /// The input channel's counts (shed, queued) and the stop flag.
    inputs: Arc<InputStats>,
    /// The channel's counts as last published: (shed_serial, shed_beam).
    inputs_published: (u64, u64),
    /// Repeated bad inputs are logged once per kind per window.
    log_limit: LogLimiter,
    /// A line of this run gave the wall-clock time (`wall`).
    wall_given: bool,
    zone: wall::Zone,
    /// Whether the clock is synchronised, read on a thread of its own.
    sync: SyncWatch,
    /// The clock's state as last published.
    clock_published: serde_json::Value,
    /// The competition day's date a `date` gave in this run (a judge, the
    /// centre, the clock): while the clock is not synchronised, the day.
    given: Option<DayDate>,
}

impl LaneRunner {
    /// Opens the newest journal and replays it (the lane goes on where it
    /// stopped, mid-frame included), or starts a new one when the last
    /// block is over and the journal is from an earlier day or other rules.
    pub fn start(
        settings: RunnerSettings,
        outputs: Box<dyn OutputSink>,
        speaker: Box<dyn CalloutSink>,
    ) -> Result<(LaneRunner, watch::Receiver<LaneSnapshot>), StoreError> {
        let sync = SyncWatch::start(crate::clock_sync::system_source());
        Self::start_with_clock(settings, outputs, speaker, sync)
    }

    /// [`LaneRunner::start`] with the clock's state read from `sync`.
    pub fn start_with_clock(
        settings: RunnerSettings,
        outputs: Box<dyn OutputSink>,
        speaker: Box<dyn CalloutSink>,
        sync: SyncWatch,
    ) -> Result<(LaneRunner, watch::Receiver<LaneSnapshot>), StoreError> {
        let store = Store::open(&settings.state_dir, settings.lane)?;
        let now = unix_now();
        let clock_date = day::clock_date(now);
        // Not synchronised, the clock's date may be yesterday's: the
        // journal goes on until someone gives the date (`day.rs`).
        let today = day::trusted(&settings, &sync.now()).then_some(clock_date);
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
            .and_then(|r| Self::same_day(&r.replay, &settings, today.unwrap_or(clock_date)));
        let (journal, replay) = match recovered {
            Some(r) if !Self::wants_new_journal(&r, &settings, today) => {
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
        let mut core = LaneRunner {
            settings,
            store,
            journal,
            replay,
            real: clock,
            clock: Box::new(clock),
            failure: None,
            in_a_row: false,
            set_aside,
            notices: Default::default(),
            path_problem: None,
            next_duty: Instant::now() + RETRY,
            sinks_status: Vec::new(),
            journal_sinks: Vec::new(),
            outputs,
            speaker,
            snapshot: tx,
            version: 0,
            heartbeat: Arc::new(AtomicU64::new(0)),
            started: Instant::now(),
            speaker_status: None,
            parts: Parts::default(),
            parts_published: 0,
            inputs: Arc::default(),
            inputs_published: (0, 0),
            log_limit: LogLimiter::new(crate::log_limit::WINDOW),
            wall_given: false,
            zone: Default::default(),
            sync,
            clock_published: serde_json::Value::Null,
            given: None,
        };
        core.publish();
        Ok((core, rx))
    }

    /// Whether the lane starts a new journal rather than go on in the one
    /// it recovered: its last block is over, and the journal is another
    /// day's (`today`, when the lane knows it: the journal's date, journaled
    /// or its header's), for other rules or another lane.
    fn wants_new_journal(r: &Recovered, settings: &RunnerSettings, today: Option<DayDate>) -> bool {
        let lane = r.replay.lane();
        if lane.open_block().is_some() {
            return false;
        }
        today.is_some_and(|d| lane.date() != Some(d))
            || r.header.rules != settings.rules
            || r.header.lane != settings.lane
    }

    /// What a journal leaves in force for the lane's next journal, when
    /// that one starts on the same day (the journal's date is `today`) for
    /// the same lane.
    fn same_day(replay: &Replay, settings: &RunnerSettings, today: DayDate) -> Option<Day> {
        let lane = replay.lane();
        let same = lane.date() == Some(today) && lane.number() == settings.lane;
        same.then(|| lane.day())
    }

    fn header(settings: &RunnerSettings, now: u64) -> Header {
        Header::new(settings.lane, Some(rfc3339(now)), settings.rules.clone())
    }

    /// The loop's last turn, in milliseconds since start (for the watchdog).
    pub fn heartbeat(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.heartbeat)
    }

    /// The monotonic clock the lane's time runs by, from where its
    /// journal stopped.
    pub fn clock(&self) -> Clock {
        self.real
    }

    /// Takes the lane's time from `clock` instead of the monotonic one.
    pub fn use_clock(&mut self, clock: Box<dyn LaneClock>) {
        self.clock = clock;
    }

    /// Makes the lane's time a script's ([`ScriptedClock`], the demo's)
    /// rather than the clock's alone: a deadline runs by the clock only up
    /// to the script's next step, so a step late in the channel on a busy
    /// machine never finds a deadline run past it, and the same script
    /// gives the same journal. Returns where the script sends its steps,
    /// marked on `inputs`, the lane's input channel; it starts at the lane
    /// time where the lane stands.
    pub fn script_clock(&mut self, inputs: InputSender) -> ScriptFeed {
        let start = self.replay.last_t().max(self.replay.lane().now());
        let (clock, feed) = ScriptedClock::new(self.real, start, inputs);
        self.clock = Box::new(clock);
        feed
    }

    /// Adds a sink told of the journal's lines as they become durable; it
    /// is told of the journal as it stands now first.
    pub fn add_journal_sink(&mut self, mut sink: Box<dyn JournalSink>) {
        sink.written(self.journal.path(), self.journal.len());
        let shows = sink.status().is_some();
        self.journal_sinks.push(sink);
        if shows {
            self.publish();
        }
    }

    pub fn journal_path(&self) -> &Path {
        self.journal.path()
    }

    /// Runs until [`Input::Shutdown`], the channel's stop flag
    /// ([`InputSender::stop`](crate::ports::InputSender::stop)) or until every sender is gone, and returns
    /// the lane as it stood. Once told to stop it journals what is queued
    /// for at most [`STOP_BUDGET`].
    pub fn run(mut self, inputs: InputReceiver) -> Replay {
        self.inputs = inputs.stats();
        let mut stop_seen: Option<Instant> = None;
        // Taken from the queue behind a batch without joining it.
        let mut held: Option<Taken> = None;
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
                // A mirror or a part that failed or came back, or the
                // clock synchronised, shows on the panel.
                if self.sinks_status() != self.sinks_status
                    || self.parts.version() != self.parts_published
                    || self.clock_status() != self.clock_published
                {
                    self.publish();
                }
            }
            let deadline = runnable(
                self.replay.lane().poll_deadline(),
                self.failure.is_some(),
                self.clock.horizon(),
            );
            let wake = deadline
                .map(|d| self.clock.instant(d) + GRACE)
                .map_or(now + HEARTBEAT, |at| at.min(now + HEARTBEAT))
                .min(self.next_duty);
            // Stopping, only what is queued is taken: no waiting for more.
            let timeout = match stop_seen {
                Some(_) => Duration::ZERO,
                None => wake.saturating_duration_since(now),
            };
            let taken = match held.take() {
                Some(taken) => Ok(taken),
                None => inputs.take(timeout),
            };
            match taken {
                Err(mpsc::RecvTimeoutError::Timeout) if stop_seen.is_some() => break,
                Ok(Taken::Input(input @ (Input::Reading(_) | Input::Action { .. }))) => {
                    held = self.batch(input, &inputs);
                }
                Ok(Taken::Step) => {
                    if let Some((t, event)) = self.clock.step() {
                        self.step(t, event);
                    }
                }
                Ok(Taken::Input(Input::Shutdown)) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                    break;
                }
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

    /// Takes `first` and the inputs queued behind it (up to [`BATCH`]),
    /// stamped as they are taken, and journals and applies them together.
    /// Returns what was taken and does not join them (a step, the stop),
    /// for the loop's next turn.
    fn batch(&mut self, first: Input, inputs: &InputReceiver) -> Option<Taken> {
        let mut batch = Vec::new();
        let mut next = Some(Taken::Input(first));
        while let Some(taken) = next.take() {
            let (t, event, reply) = match taken {
                Taken::Input(Input::Reading(r)) => {
                    (self.clock.t(r.at), Event::Sensor(r.sensor), None)
                }
                // Judged against the lane as it stands once what came
                // before is applied (`day.rs`).
                Taken::Input(Input::Action { panel, reply }) if alone(&panel.action) => {
                    self.apply_all(batch);
                    let t = self.clock.t(Instant::now());
                    self.action(t, panel, reply);
                    return None;
                }
                Taken::Input(Input::Action { panel, reply }) => {
                    (self.clock.t(Instant::now()), Event::Panel(panel), reply)
                }
                other => {
                    self.apply_all(batch);
                    return Some(other);
                }
            };
            batch.push((t, event, reply));
            next = self.next_in_batch(batch.len(), inputs);
        }
        self.apply_all(batch);
        None
    }

    /// What is queued next, while the batch has room.
    fn next_in_batch(&self, len: usize, inputs: &InputReceiver) -> Option<Taken> {
        if len < BATCH { inputs.try_take() } else { None }
    }

    /// A step of the lane's clock (a script's), at its time `t`: its
    /// input, or with none, the time alone: the deadlines up to it run.
    fn step(&mut self, t: Millis, event: Option<Event>) {
        match event {
            Some(event) => self.apply(t, event, None),
            None if self.failure.is_none() => {
                self.replay.tick(t);
                self.effects(false);
            }
            None => {}
        }
    }

    /// [`LaneRunner::apply_all`] for one input.
    fn apply(&mut self, t: Millis, event: Event, reply: Option<Reply>) {
        self.apply_all(vec![(t, event, reply)]);
    }

    /// Journals inputs, in runs of one write and one sync each
    /// ([`run_len`]), then applies each run once it is durable and answers
    /// its actions; an input that cannot be journaled is not applied.
    fn apply_all(&mut self, inputs: Vec<(Millis, Event, Option<Reply>)>) {
        // Never earlier than what the lane has seen (a reading stamped by
        // its source just before a timer fired), so that a replay meets the
        // deadlines in the same order as the live lane did.
        let mut floor = self.replay.last_t().max(self.replay.lane().now());
        let (events, replies): (Vec<_>, Vec<_>) = inputs
            .into_iter()
            .map(|(t, event, reply)| {
                floor = floor.max(t);
                (Stamped { t: floor, event }, reply)
            })
            .unzip();
        let mut replies = replies.into_iter();
        let mut rest = &events[..];
        while !rest.is_empty() && self.failure.is_none() {
            let (run, after) = rest.split_at(run_len(rest));
            match self.journal_and_apply(run) {
                Ok(refusals) => {
                    for (e, refusal) in run.iter().zip(refusals) {
                        if let Some(reply) = replies.next().flatten() {
                            let _ =
                                reply.send(refusal.map_or(Ok(e.t), |r| Err(NotTaken::Refused(r))));
                        }
                    }
                    rest = after;
                }
                Err(e) => self.fail(&e, run[0].t),
            }
        }
        for (e, reply) in rest.iter().zip(replies) {
            self.wait_or_refuse(e.clone(), reply);
        }
    }

    /// Journals a run of inputs ([`run_len`]) with one write and one sync and,
    /// once they are durable, applies each and sends its effects; returns
    /// the lane's refusal of each.
    fn journal_and_apply(&mut self, run: &[Stamped<Event>]) -> io::Result<Vec<Option<Refusal>>> {
        let (first, walls) = match run {
            [one] => {
                let (line, wall) = self.journal_input(one)?;
                (line, vec![wall])
            }
            _ => {
                let walls = self.walls_for(run);
                let lines = run.iter().zip(walls.iter().copied());
                (self.journal.append_all(lines)?, walls)
            }
        };
        self.wall_given = true;
        for sink in &mut self.journal_sinks {
            sink.written(self.journal.path(), self.journal.len());
        }
        let in_a_row = self.in_a_row;
        self.in_a_row |= run.len() > 1;
        let mut refusals = Vec::with_capacity(run.len());
        for ((line, e), wall) in (first..).zip(run).zip(walls) {
            if let Some(wall) = wall {
                self.replay.read_wall(e.t, wall);
            }
            self.replay.apply(line, e);
            self.note_date(e);
            refusals.push(self.effects(true));
        }
        self.in_a_row = in_a_row;
        if run.len() > 1 && !in_a_row {
            self.publish();
        }
        Ok(refusals)
    }

    /// Appends an input to the journal, durably; after a block ends, the
    /// next lineup starts a journal of its own (the lane switches to it only
    /// once the lineup is in it). Returns the line's number.
    ///
    /// A new journal's first line is the pinsetter link's state the lane
    /// had (a `serial_link` reading at the lineup's time), when it had one:
    /// the port stays open across blocks and reports no change, and the
    /// new journal, replayed alone or recovered after a restart, must not
    /// show a working link as never connected. The wall-clock time a line
    /// gave is returned with it, to read before the line is applied.
    fn journal_input(&mut self, e: &Stamped<Event>) -> io::Result<(u64, Option<WallTime>)> {
        let lane = self.replay.lane();
        let link_up = lane.link_up();
        let now = unix_now();
        let between_blocks = !lane.blocks().is_empty() && lane.open_block().is_none();
        // The next block's lineup starts a journal carrying the day; a
        // date that begins a new day, after blocks, one carrying nothing.
        let day = match &e.event {
            Event::Panel(Panel {
                action: Action::Lineup { .. },
                ..
            }) if between_blocks => Some(Self::same_day(
                &self.replay,
                &self.settings,
                self.today().unwrap_or(day::clock_date(now)),
            )),
            Event::Panel(Panel {
                action: Action::Date { date, .. },
                ..
            }) if between_blocks && lane.date() != Some(*date) => Some(None),
            _ => None,
        };
        let Some(day) = day else {
            let wall = self.wall_for(e.t, false);
            return Ok((self.journal.append_at(e, wall)?, wall));
        };
        let wall = self.wall_for(e.t, true);
        let header = Self::header(&self.settings, now).with_day(day);
        let mut file = self
            .store
            .create(&header, now)
            .map_err(|e| io::Error::other(e.to_string()))?;
        let inherited = link_up.map(|up| Stamped {
            t: e.t,
            event: Event::Sensor(Sensor::SerialLink { up }),
        });
        // The new journal's first line gives the wall-clock time.
        let appended = match &inherited {
            Some(link) => file.append_at(link, wall).map(Some),
            None => Ok(None),
        }
        .and_then(|link_line| {
            let wall = if link_line.is_some() { None } else { wall };
            Ok((link_line, file.append_at(e, wall)?))
        });
        match appended {
            Ok((link_line, line)) => {
                tracing::info!(journal = %file.path().display(), "started a new journal for the next block or day");
                self.journal = file;
                self.replay = Replay::new(&header);
                if let Some(wall) = wall {
                    self.replay.read_wall(e.t, wall);
                }
                if let (Some(n), Some(link)) = (link_line, &inherited) {
                    self.replay.apply(n, link);
                }
                Ok((line, None))
            }
            Err(err) => {
                // A journal with only its header would be taken as the
                // newest at a restart: remove it, the lane stays in the old.
                let _ = std::fs::remove_file(file.path());
                Err(err)
            }
        }
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
        if (changed || after_input) && !self.in_a_row {
            self.publish();
        }
        refusal
    }
}

/// The lane's next deadline, if its thread may run it when it comes due.
/// While the journal fails the lane stands still: no deadline runs ahead
/// of the readings still waiting for it. Nor past the clock's `horizon`
/// (a script's next step).
fn runnable(deadline: Option<Millis>, failing: bool, horizon: Option<Millis>) -> Option<Millis> {
    deadline
        .filter(|_| !failing)
        .filter(|&d| horizon.is_none_or(|next| d <= next))
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

/// A panel action journaled and applied on its own, never in a batch: it
/// may start a new journal (a lineup, a date: `journal_input`), or is
/// judged against the lane as it stands (`day.rs`).
fn alone(action: &Action) -> bool {
    matches!(
        action,
        Action::Lineup { .. } | Action::Date { .. } | Action::StartBlock { .. }
    )
}

/// How many of `events` go out in one write: one that goes [`alone`] on
/// its own, else those before the next such one, up to [`BATCH`].
fn run_len(events: &[Stamped<Event>]) -> usize {
    let alone = |e: &Stamped<Event>| matches!(&e.event, Event::Panel(p) if alone(&p.action));
    match events.iter().position(alone) {
        Some(0) => 1,
        Some(n) => n.min(BATCH),
        None => events.len().min(BATCH),
    }
}

#[cfg(test)]
mod run_tests {
    use super::*;

    fn at(t: Millis, event: Event) -> Stamped<Event> {
        Stamped { t, event }
    }

    #[test]
    fn a_block_start_goes_out_alone_and_ends_the_run_before_it() {
        let ball = || at(1, Event::Sensor(Sensor::Ball));
        let hold = at(
            2,
            Event::Panel(Panel::new(
                None,
                Action::Hold {
                    on: true,
                    reason: None,
                },
            )),
        );
        let start = at(
            3,
            Event::Panel(Panel::new(None, Action::StartBlock { games: 3 })),
        );
        assert_eq!(run_len(&[ball(), hold.clone(), ball()]), 3);
        assert_eq!(run_len(&[ball(), hold.clone(), start.clone(), ball()]), 2);
        assert_eq!(run_len(&[start, ball()]), 1);
        assert_eq!(run_len(&vec![hold; BATCH + 5]), BATCH);
    }
}

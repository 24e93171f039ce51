//! `[centre]`: the lane's link to the competition's centre over MQTT
//! (docs/mqtt.md). An adapter on the lane thread's ports:
//!
//! - `status`: `online` (retained) once connected; the connection's last
//!   will is `offline` (retained), and a clean stop publishes `offline`.
//! - `state`: the [`LaneSnapshot`] (`/api/lane`), retained, at most 4 a
//!   second, the latest always sent.
//! - `journal`: every durable journal line, read from the journal files
//!   (a [`JournalSink`] only notes the newest length), QoS 1, in order.
//!   The broker's acknowledgements are tracked (`lines.rs`): after a
//!   reconnect, sending goes on from the first line not acknowledged.
//! - `command` / `reply`: the centre's `lineup` and `hold` (only with
//!   `accept_commands`) go to the lane's thread as panel actions signed
//!   `centre: <by>`, with the command's id (`cmd`), so they are journaled
//!   before they are applied, and the reply is the lane's answer; an id
//!   run before (in this run, or journaled before a restart: `ran.rs`) is
//!   answered and not run again; `resend` publishes a journal's lines
//!   again. A retained command (one the broker kept and replays at
//!   subscribe) is never run, only logged.
//! - Adjacent lanes: a change of a neighbour's `delivering` is sent to the
//!   lane's thread as a [`Sensor::Neighbour`] reading; a neighbour that
//!   goes offline, one whose busy state is not refreshed within
//!   [`NEIGHBOUR_TTL`], and every busy one when the broker is lost, as not
//!   busy. While this lane's own `delivering` is true its state goes out
//!   every [`STATE_DELIVERING`], so its neighbours keep it busy.
//!
//! - The centre's time (`centre/time`): each live one (never a retained
//!   copy, which may be hours old) whose clock is synchronised goes to the
//!   lane's thread as the centre's `date`; the lane journals it only while
//!   its own clock is not synchronised (`lane_thread`'s `day.rs`).
//!
//! It runs on its own thread, so the lane's thread never waits for it; a
//! broker that is down or slow is tried again after 250 ms, doubling up to
//! 5 s. The broker is spoken to in plain MQTT (no TLS).

mod command;
mod lines;
mod ran;
mod resend;
mod take;
mod wire;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use rumqttc::{
    AsyncClient, ConnectionError, Event, Incoming, LastWill, MqttOptions, Outgoing, QoS,
};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

use crate::config::CentreConfig;
use crate::journal::slot::JournalSlot;
use crate::lane::{Action, DateFrom, Panel, Sensor};
use crate::ports::{Input, InputSender, JournalSink, LaneSnapshot, NotTaken};
use crate::wall::{DayDate, WallTime};
use command::Command;
use lines::Lines;
use ran::Ran;
use resend::Resends;
use wire::{AbortOnDrop, Events, Tag, Wire, poll, publish};

/// The keep-alive: a lane that drops off is `offline` within 1.5 times it.
const KEEP_ALIVE: Duration = Duration::from_secs(10);
/// How long a connection may take, up to the broker's CONNACK. A centre
/// checks each lane's password with argon2 (tens of ms each, a few at a
/// time): when a whole hall of lanes connects at once the last CONNACKs
/// take seconds, and a lane that gave up sooner would only queue its
/// check again behind the others.
const CONNECT_TIMEOUT_S: u64 = 20;
/// The first retry after the broker is lost or refuses; doubles up to
/// [`BACKOFF_MAX`].
const BACKOFF_MIN: Duration = Duration::from_millis(250);
const BACKOFF_MAX: Duration = Duration::from_secs(5);
/// At most this many journal lines (and resent lines) unacknowledged.
const WINDOW: usize = 64;
/// The state is published at most this often.
const STATE_EVERY: Duration = Duration::from_millis(250);
/// An unchanged state is published again this often: a reader that lost
/// the last one (a broker that dropped it for a reader far behind) learns
/// how far the journal is.
const STATE_AGAIN: Duration = Duration::from_secs(60);
/// While the lane is delivering its state goes out again this often: its
/// neighbours take a `delivering` not refreshed within [`NEIGHBOUR_TTL`]
/// as over (a lane that lost its link must not hold them for good).
const STATE_DELIVERING: Duration = Duration::from_secs(2);
/// A neighbour's `delivering` lasts this long after its last state.
const NEIGHBOUR_TTL: Duration = Duration::from_secs(5);
/// The largest MQTT packet, either way: a lane's state with a full lineup
/// is well below it.
const MAX_PACKET: usize = 1 << 20;
/// How long a command waits for the lane's answer.
const LANE_REPLY: Duration = Duration::from_secs(10);
/// How long a clean stop waits to send what is left and `offline`.
const STOP_WAIT: Duration = Duration::from_secs(2);
/// Replies waiting for the connection; past this the oldest are dropped.
const MAX_OUTBOX: usize = 256;
/// Actions waiting for the lane's answer at once; more are refused.
const MAX_ACTIONS: usize = 16;

/// Why the link could not start.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("centre.password_file {}: {reason}", path.display())]
    Password { path: PathBuf, reason: String },
    #[error("centre.broker {broker}: {reason}")]
    Tls { broker: String, reason: String },
    #[error("cannot start the centre link's thread: {0}")]
    Thread(io::Error),
}

/// The running link. [`CentreLink::stop`] ends it cleanly (`offline`).
pub struct CentreLink {
    stop: watch::Sender<bool>,
    thread: std::thread::JoinHandle<()>,
}

/// What the link needs from the lane.
pub struct LaneSide {
    pub lane: u32,
    /// Where the journals are: a resend names a file here, never elsewhere.
    pub journal_dir: PathBuf,
    pub inputs: InputSender,
    pub state: watch::Receiver<LaneSnapshot>,
}

/// The sink the lane's thread tells of every durable append.
struct Sink(Arc<JournalSlot>);

impl JournalSink for Sink {
    fn written(&mut self, journal: &Path, len: u64) {
        self.0.written(journal, len);
    }
}

impl CentreLink {
    /// Reads the password file and starts the link's thread. The sink
    /// returned goes to the lane's thread
    /// ([`crate::lane_thread::LaneRunner::add_journal_sink`]).
    pub fn start(
        config: &CentreConfig,
        lane: LaneSide,
    ) -> Result<(CentreLink, Box<dyn JournalSink>), LinkError> {
        let password = match &config.password_file {
            Some(path) => Some(read_password(path)?),
            None => None,
        };
        let slot = Arc::new(JournalSlot::default());
        let (stop, stopped) = watch::channel(false);
        let topics = Topics::new(&config.site, lane.lane);
        let transport = config
            .broker
            .transport(config.ca_file.as_deref())
            .map_err(|reason| LinkError::Tls {
                broker: config.broker.to_string(),
                reason,
            })?;
        let mut options = MqttOptions::new(
            format!("lanecall-{}-lane-{}", config.site, lane.lane),
            config.broker.host.clone(),
            config.broker.port,
        );
        options
            .set_transport(transport)
            .set_keep_alive(KEEP_ALIVE)
            .set_clean_session(true)
            .set_max_packet_size(MAX_PACKET, MAX_PACKET)
            .set_last_will(LastWill::new(
                &topics.status,
                "offline",
                QoS::AtLeastOnce,
                true,
            ));
        if let Some(user) = &config.username {
            options.set_credentials(user.clone(), password.unwrap_or_default());
        }
        let (replies_tx, replies) = mpsc::channel(64);
        let link = Link {
            options,
            neighbour_topics: config
                .neighbours
                .iter()
                .map(|n| (n, Topics::new(&config.site, *n)))
                .flat_map(|(n, t)| [(t.state, (*n, false)), (t.status, (*n, true))])
                .collect(),
            topics,
            accept_commands: config.accept_commands,
            journal_dir: lane.journal_dir,
            inputs: lane.inputs,
            state: lane.state,
            slot: slot.clone(),
            lines: Lines::default(),
            resends: Resends::default(),
            busy: config.neighbours.iter().map(|n| (*n, false)).collect(),
            busy_until: BTreeMap::new(),
            delivering: false,
            ran: Ran::default(),
            replies_tx,
            replies,
            outbox: VecDeque::new(),
            actions: Arc::default(),
            state_asked: false,
            stopped,
        };
        let thread = std::thread::Builder::new()
            .name("centre-link".into())
            .spawn(move || {
                match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt.block_on(link.run()),
                    Err(e) => tracing::error!("centre link: cannot start its runtime: {e}"),
                }
            })
            .map_err(LinkError::Thread)?;
        Ok((CentreLink { stop, thread }, Box::new(Sink(slot))))
    }

    /// Sends what is left of the journal and `offline`, waiting at most
    /// a few seconds for a broker that does not answer, and ends.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let thread = self.thread;
        let _ = tokio::task::spawn_blocking(move || thread.join()).await;
    }
}

/// The password file, read once at the start.
fn read_password(path: &Path) -> Result<String, LinkError> {
    crate::config::read_password_file(path).map_err(|reason| LinkError::Password {
        path: path.to_owned(),
        reason,
    })
}

/// The `delivering` of a lane's state (replay-output.md), this lane's or a
/// neighbour's; false for a state that does not say.
fn delivering(state: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct State {
        #[serde(default)]
        delivering: bool,
    }
    serde_json::from_slice::<State>(state).is_ok_and(|s| s.delivering)
}

/// The date of a `centre/time` payload (docs/mqtt.md) when the centre's
/// clock is synchronised; `None` when the centre says it is not.
fn centre_date(payload: &[u8]) -> Result<Option<DayDate>, String> {
    #[derive(serde::Deserialize)]
    struct Time {
        wall: String,
        synchronised: bool,
    }
    let time: Time = serde_json::from_slice(payload)
        .map_err(|e| format!("not the centre's time ({{\"wall\", \"synchronised\"}}): {e}"))?;
    if !time.synchronised {
        return Ok(None);
    }
    let wall = WallTime::parse(&time.wall).ok_or_else(|| {
        format!(
            "wall {:?} is not an RFC 3339 time",
            time.wall.chars().take(40).collect::<String>()
        )
    })?;
    Ok(Some(wall.date()))
}

/// A lane's topics (docs/mqtt.md).
struct Topics {
    status: String,
    state: String,
    journal: String,
    command: String,
    reply: String,
    /// The centre's clock (not a lane's topic, the site's).
    centre_time: String,
}

impl Topics {
    fn new(site: &str, lane: u32) -> Topics {
        let topic = |what| crate::mqtt::topic::lane(site, lane, what);
        Topics {
            status: topic("status"),
            state: topic("state"),
            journal: topic("journal"),
            command: topic(crate::mqtt::topic::COMMAND),
            reply: topic("reply"),
            centre_time: crate::mqtt::topic::centre_time(site),
        }
    }
}

/// How a connection ended.
enum End {
    Stopped,
    Lost {
        connected: bool,
        error: ConnectionError,
    },
}

/// The lane's answer to a command.
struct Answer {
    id: String,
    result: Result<(), String>,
    /// Whether the action may have reached the journal: if not, its id
    /// may be sent again.
    journaled: bool,
}

struct Link {
    options: MqttOptions,
    topics: Topics,
    /// A neighbour's `state` or `status` topic: its lane, and whether it is
    /// the status.
    neighbour_topics: HashMap<String, (u32, bool)>,
    accept_commands: bool,
    journal_dir: PathBuf,
    inputs: InputSender,
    state: watch::Receiver<LaneSnapshot>,
    slot: Arc<JournalSlot>,
    lines: Lines,
    resends: Resends,
    /// Each neighbour's `delivering` as last sent to the lane's thread.
    busy: BTreeMap<u32, bool>,
    /// When each busy neighbour is taken as not busy, unless its state
    /// comes again first.
    busy_until: BTreeMap<u32, Instant>,
    /// This lane's `delivering`, in the state last published.
    delivering: bool,
    /// The command ids run.
    ran: Ran,
    /// The lane's answers to commands.
    replies_tx: mpsc::Sender<Answer>,
    replies: mpsc::Receiver<Answer>,
    /// Replies waiting for room on the connection.
    outbox: VecDeque<String>,
    /// Actions sent to the lane and not answered yet.
    actions: Arc<std::sync::atomic::AtomicUsize>,
    /// A `resend` came: the state (with the journal's length) goes out
    /// again, so a centre that missed it learns how far to ask.
    state_asked: bool,
    stopped: watch::Receiver<bool>,
}

impl Link {
    async fn run(mut self) {
        self.ran = resend::day_journals(&self.journal_dir, None)
            .and_then(|files| {
                let paths: Vec<PathBuf> = files.into_iter().map(|(p, _)| p).collect();
                Ran::from_journals(&paths)
            })
            .unwrap_or_else(|e| {
                tracing::warn!("centre link: cannot read the command ids journaled: {e}");
                Ran::default()
            });
        let mut backoff = BACKOFF_MIN;
        let mut said: Option<String> = None;
        loop {
            match self.session().await {
                End::Stopped => return,
                End::Lost { connected, error } => {
                    self.all_neighbours_clear().await;
                    if connected {
                        backoff = BACKOFF_MIN;
                        said = None;
                    }
                    // Once per kind of failure, not once per retry.
                    let text = error.to_string();
                    if said.as_deref() != Some(&text) {
                        tracing::warn!(
                            "centre link: {}:{}: {text}; trying again, every {} s at the most",
                            self.options.broker_address().0,
                            self.options.broker_address().1,
                            BACKOFF_MAX.as_secs()
                        );
                        said = Some(text);
                    }
                    let mut stopped = self.stopped.clone();
                    tokio::select! {
                        () = tokio::time::sleep(backoff) => {}
                        _ = stopped.wait_for(|s| *s) => return,
                    }
                    backoff = (backoff * 2).min(BACKOFF_MAX);
                }
            }
        }
    }

    /// One connection, from connecting to losing it or the stop.
    async fn session(&mut self) -> End {
        let (client, mut eventloop) = AsyncClient::new(self.options.clone(), 4 * WINDOW);
        eventloop
            .network_options
            .set_connection_timeout(CONNECT_TIMEOUT_S);
        // The event loop is polled by a task of its own, so that nothing
        // here ever cancels it halfway through a packet.
        let (events_tx, mut events) = mpsc::channel(4 * WINDOW);
        let poller = tokio::spawn(poll(eventloop, events_tx));
        let _poller = AbortOnDrop(poller);
        let mut stopped = self.stopped.clone();
        loop {
            tokio::select! {
                ev = events.recv() => match ev {
                    Some(Ok(Event::Incoming(Incoming::ConnAck(_)))) => break,
                    Some(Ok(_)) => {}
                    Some(Err(error)) => return End::Lost { connected: false, error },
                    None => return End::Stopped,
                },
                _ = stopped.wait_for(|s| *s) => return End::Stopped,
            }
        }
        tracing::info!(
            "centre link: connected to {}:{}",
            self.options.broker_address().0,
            self.options.broker_address().1
        );
        let mut wire = Wire::default();
        publish(
            &client,
            &mut wire,
            &self.topics.status,
            true,
            "online",
            Tag::Other,
        );
        let _ = client.try_subscribe(&self.topics.command, QoS::AtLeastOnce);
        let _ = client.try_subscribe(&self.topics.centre_time, QoS::AtLeastOnce);
        for topic in self.neighbour_topics.keys() {
            let _ = client.try_subscribe(topic, QoS::AtLeastOnce);
        }
        self.lines.rewind();
        let mut state_sent: Option<Instant> = None;
        let mut state_due = true;
        let mut lane_gone = false;
        loop {
            if let Err(e) = self.pump(&client, &mut wire) {
                tracing::warn!("centre link: cannot read the journal: {e}");
            }
            let now = Instant::now();
            let again_every = if self.delivering {
                STATE_DELIVERING
            } else {
                STATE_AGAIN
            };
            if std::mem::take(&mut self.state_asked)
                || state_sent.is_some_and(|t| now >= t + again_every)
            {
                state_due = true;
            }
            let state_at = state_sent.map_or(now, |t| t + STATE_EVERY);
            let state_again = state_sent.map_or(now, |t| t + again_every);
            let neighbour_due = self.busy_until.values().min().copied();
            let resend_at = self.resends.wake_at();
            if state_due && now >= state_at && wire.in_flight() < 2 * WINDOW {
                let json = self.state.borrow_and_update().json.clone();
                self.delivering = delivering(json.as_bytes());
                if publish(
                    &client,
                    &mut wire,
                    &self.topics.state,
                    true,
                    json.as_bytes(),
                    Tag::Other,
                ) {
                    state_due = false;
                    state_sent = Some(now);
                }
            }
            tokio::select! {
                ev = events.recv() => match ev {
                    Some(Ok(ev)) => self.event(ev, &mut wire).await,
                    Some(Err(error)) => return End::Lost { connected: true, error },
                    None => return End::Stopped,
                },
                () = self.slot.changed() => {
                    if let Some((path, len)) = self.slot.take() {
                        self.lines.notified(path, len);
                    }
                }
                changed = self.state.changed(), if !lane_gone => match changed {
                    Ok(()) => state_due = true,
                    Err(_) => lane_gone = true,
                },
                () = tokio::time::sleep_until(state_at), if state_due => {}
                () = tokio::time::sleep_until(state_again), if !state_due => {}
                () = tokio::time::sleep_until(resend_at.map_or(now, Instant::from_std)),
                    if resend_at.is_some() => {}
                () = tokio::time::sleep_until(neighbour_due.unwrap_or(now)),
                    if neighbour_due.is_some() => self.neighbours_expired().await,
                Some(answer) = self.replies.recv() => {
                    if !answer.journaled {
                        self.ran.forget(&answer.id);
                    }
                    self.answer(Some(&answer.id), answer.result);
                }
                _ = stopped.wait_for(|s| *s) => {
                    self.goodbye(&client, &mut events, &mut wire).await;
                    return End::Stopped;
                }
            }
        }
    }

    /// Publishes what is waiting, as far as the window allows: replies,
    /// then the journal's new lines, then lines asked for again.
    fn pump(&mut self, client: &AsyncClient, wire: &mut Wire) -> io::Result<()> {
        while let Some(reply) = self.outbox.front() {
            if wire.in_flight() >= 2 * WINDOW
                || !publish(
                    client,
                    wire,
                    &self.topics.reply,
                    false,
                    reply.as_bytes(),
                    Tag::Other,
                )
            {
                break;
            }
            self.outbox.pop_front();
        }
        if let Some((path, len)) = self.slot.take() {
            self.lines.notified(path, len);
        }
        let room = WINDOW.saturating_sub(wire.in_flight());
        for (id, line) in self.lines.next(room)? {
            // The window keeps the client's queue from filling.
            publish(
                client,
                wire,
                &self.topics.journal,
                false,
                line.payload(),
                Tag::Line(id),
            );
        }
        let room = WINDOW.saturating_sub(wire.in_flight());
        for line in self
            .resends
            .next(&self.lines, room, std::time::Instant::now())?
        {
            publish(
                client,
                wire,
                &self.topics.journal,
                false,
                line.payload(),
                Tag::Other,
            );
        }
        Ok(())
    }

    async fn event(&mut self, ev: Event, wire: &mut Wire) {
        match ev {
            Event::Outgoing(Outgoing::Publish(pkid)) => {
                if let Some(tag) = wire.queued.pop_front() {
                    wire.unacked.insert(pkid, tag);
                }
            }
            Event::Incoming(Incoming::PubAck(ack)) => {
                if let Some(Tag::Line(id)) = wire.unacked.remove(&ack.pkid) {
                    self.lines.ack(id);
                }
            }
            Event::Incoming(Incoming::Publish(p)) => {
                if p.topic == self.topics.command && p.retain {
                    // Kept by the broker from some time before: never run,
                    // nor answered (a reply would say it was looked at).
                    tracing::warn!(
                        "centre link: a retained command on {} ignored: commands are never \
                         retained, a retained one is from some time before",
                        self.topics.command
                    );
                } else if p.topic == self.topics.command {
                    self.command(&p.payload).await;
                } else if p.topic == self.topics.centre_time {
                    // A retained copy is from whenever the centre last
                    // published: only a live one says today's date.
                    if !p.retain {
                        self.centre_time(&p.payload).await;
                    }
                } else if let Some(&(lane, is_status)) = self.neighbour_topics.get(&p.topic) {
                    let busy = if is_status {
                        // Online says nothing of delivering: its state does.
                        if &p.payload[..] != b"offline" {
                            return;
                        }
                        false
                    } else {
                        delivering(&p.payload)
                    };
                    if busy {
                        self.busy_until.insert(lane, Instant::now() + NEIGHBOUR_TTL);
                    } else {
                        self.busy_until.remove(&lane);
                    }
                    self.neighbour(lane, busy).await;
                }
            }
            _ => {}
        }
    }

    /// The centre's clock: its date to the lane's thread while it is
    /// synchronised.
    async fn centre_time(&mut self, payload: &[u8]) {
        match centre_date(payload) {
            Ok(Some(date)) => {
                let action = Action::Date {
                    date,
                    from: DateFrom::Centre,
                };
                let input = Input::Action {
                    panel: Panel::new(None, action),
                    reply: None,
                };
                let _ = self.inputs.send(input).await;
            }
            Ok(None) => tracing::debug!("centre link: the centre's clock is not synchronised"),
            Err(e) => tracing::debug!("centre link: {}: {e}", self.topics.centre_time),
        }
    }

    fn answer(&mut self, id: Option<&str>, result: Result<(), String>) {
        if self.outbox.len() >= MAX_OUTBOX {
            self.outbox.pop_front();
            tracing::warn!("centre link: too many replies waiting: the oldest is dropped");
        }
        self.outbox.push_back(command::reply(id, result));
    }

    /// A neighbour's `delivering`, sent to the lane's thread on a change.
    async fn neighbour(&mut self, lane: u32, busy: bool) {
        let Some(known) = self.busy.get_mut(&lane) else {
            return;
        };
        if *known == busy {
            return;
        }
        *known = busy;
        let _ = self
            .inputs
            .send(Input::now(Sensor::Neighbour { lane, busy }))
            .await;
    }

    /// Busy neighbours whose state did not come again in time: not busy.
    async fn neighbours_expired(&mut self) {
        let now = Instant::now();
        let expired: Vec<u32> = self
            .busy_until
            .iter()
            .filter(|(_, until)| **until <= now)
            .map(|(n, _)| *n)
            .collect();
        for lane in expired {
            self.busy_until.remove(&lane);
            tracing::info!(
                lane,
                "centre link: no state from the neighbour for {} s: taken as not delivering",
                NEIGHBOUR_TTL.as_secs()
            );
            self.neighbour(lane, false).await;
        }
    }

    /// The broker is lost: a lane is never held by a neighbour it cannot see.
    async fn all_neighbours_clear(&mut self) {
        self.busy_until.clear();
        let busy: Vec<u32> = self
            .busy
            .iter()
            .filter(|(_, b)| **b)
            .map(|(n, _)| *n)
            .collect();
        for lane in busy {
            self.neighbour(lane, false).await;
        }
    }

    /// A clean stop: the journal's last lines, then `offline`, then the
    /// goodbye, for at most [`STOP_WAIT`].
    async fn goodbye(&mut self, client: &AsyncClient, events: &mut Events, wire: &mut Wire) {
        let until = Instant::now() + STOP_WAIT;
        let mut offline_sent = false;
        while Instant::now() < until {
            let _ = self.pump(client, wire);
            if !offline_sent && self.lines.in_flight() == 0 {
                publish(
                    client,
                    wire,
                    &self.topics.status,
                    true,
                    "offline",
                    Tag::Other,
                );
                let _ = client.try_disconnect();
                offline_sent = true;
            }
            match tokio::time::timeout_at(until, events.recv()).await {
                Ok(Some(Ok(Event::Outgoing(Outgoing::Disconnect))))
                | Ok(Some(Err(_)) | None)
                | Err(_) => break,
                Ok(Some(Ok(ev))) => {
                    if let Event::Incoming(Incoming::PubAck(ack)) = &ev
                        && let Some(Tag::Line(id)) = wire.unacked.remove(&ack.pkid)
                    {
                        self.lines.ack(id);
                    }
                    if let Event::Outgoing(Outgoing::Publish(pkid)) = ev
                        && let Some(tag) = wire.queued.pop_front()
                    {
                        wire.unacked.insert(pkid, tag);
                    }
                }
            }
        }
        if !offline_sent {
            tracing::warn!("centre link: stopped before the broker took the last lines");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock_sync::ClockSync;

    #[test]
    fn the_lane_takes_the_date_of_a_synchronised_centre_only() {
        let evening = WallTime::parse("2026-11-30T21:59:59.500Z").unwrap();
        let synced =
            crate::centre::link::time_payload(evening, &ClockSync::Synchronised { by: "chrony" });
        assert_eq!(
            centre_date(synced.as_bytes()),
            Ok(DayDate::parse("2026-11-30"))
        );
        for unsure in [
            ClockSync::Unsynchronised {
                why: "chrony has no time source it trusts yet".into(),
            },
            ClockSync::NoService,
        ] {
            let said = crate::centre::link::time_payload(evening, &unsure);
            assert_eq!(centre_date(said.as_bytes()), Ok(None), "{said}");
        }
        assert!(centre_date(b"online").is_err());
        let bad = br#"{"wall":"tomorrow","synchronised":true}"#;
        assert!(
            centre_date(bad)
                .unwrap_err()
                .contains("not an RFC 3339 time")
        );
    }
}

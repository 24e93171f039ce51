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
//!   lane's thread as a
//!   [`Sensor::Neighbour`](crate::lane::Sensor::Neighbour) reading; a
//!   neighbour that goes offline, one whose busy state is not refreshed
//!   within [`NEIGHBOUR_TTL`], and every busy one when the broker is lost,
//!   as not busy. While this lane's own `delivering` is true its state
//!   goes out every [`STATE_DELIVERING`], so its neighbours keep it busy.
//!
//! - The centre's time (`centre/time`): each live one (never a retained
//!   copy, which may be hours old) whose clock is synchronised goes to the
//!   lane's thread as the centre's `date`; the lane journals it only while
//!   its own clock is not synchronised (`lane_thread`'s `day.rs`).
//!
//! It runs on its own thread, so the lane's thread never waits for it; a
//! broker that is down or slow is tried again after 250 ms, doubling up to
//! 5 s. The broker is spoken to in MQTT, over TLS for an `mqtts://`
//! broker (`[centre] ca_file`, else the system's CAs).
//!
//! This file starts and stops the link and holds its state; `session.rs`
//! is one connection after another (the events, the clean stop) around
//! `publishing.rs`, the logic of what is published when (a state machine
//! without I/O: packets and time in, publishes out; the journal files
//! behind `files.rs`'s trait), `take.rs` the commands taken,
//! `neighbours.rs` the adjacent lanes, `centre_time.rs` the centre's date.

mod centre_time;
mod command;
mod files;
mod lines;
mod neighbours;
mod publishing;
mod ran;
mod resend;
mod session;
mod take;
mod wire;

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use rumqttc::{ConnectionError, LastWill, MqttOptions, QoS};
use tokio::sync::{mpsc, oneshot, watch};

use crate::config::CentreConfig;
use crate::journal::slot::JournalSlot;
use crate::lane::Panel;
use crate::ports::{Input, InputSender, JournalSink, LaneSnapshot, NotTaken};
use command::Command;
use neighbours::Neighbours;
use publishing::Publishing;
use ran::Ran;

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
        // Its login name when it has one (docs/mqtt.md, "Client ids").
        let id = crate::mqtt::client_id::of_link(
            config.username.as_deref(),
            crate::mqtt::client_id::lane_without_login(&config.site, lane.lane),
        );
        let mut options = MqttOptions::new(id, config.broker.host.clone(), config.broker.port);
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
            out: Publishing::new(topics.clone(), lane.journal_dir, Box::new(files::Disk)),
            topics,
            accept_commands: config.accept_commands,
            inputs: lane.inputs,
            state: lane.state,
            slot: slot.clone(),
            neighbours: Neighbours::new(&config.neighbours),
            ran: Ran::default(),
            replies_tx,
            replies,
            actions: Arc::default(),
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

/// A lane's topics (docs/mqtt.md).
#[derive(Clone)]
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
    inputs: InputSender,
    state: watch::Receiver<LaneSnapshot>,
    slot: Arc<JournalSlot>,
    /// What is published, and when (the journal's lines, the state,
    /// replies): the logic without I/O.
    out: Publishing,
    /// The adjacent lanes' `delivering`.
    neighbours: Neighbours,
    /// The command ids run.
    ran: Ran,
    /// The lane's answers to commands.
    replies_tx: mpsc::Sender<Answer>,
    replies: mpsc::Receiver<Answer>,
    /// Actions sent to the lane and not answered yet.
    actions: Arc<std::sync::atomic::AtomicUsize>,
    stopped: watch::Receiver<bool>,
}

//! The embedded broker's front: every client's connection, read packet by
//! packet with rumqttc's MQTT 3.1.1 codec, before any of it reaches
//! rumqttd on the loopback.
//!
//! - **Login.** A client has [`LOGIN_TIME`] to send its CONNECT; its login
//!   is checked ([`Logins`]) and a bad one answered with CONNACK 4 (bad
//!   username or password) or 5 (not authorized) and closed. Only then is
//!   rumqttd connected, with the CONNECT's password replaced by the
//!   login's internal secret: rumqttd takes nothing but the front.
//! - **Client id.** A login is kept at rumqttd under its own name
//!   ([`acl::client_id`]): a CONNECT asking for another's id (the centre's,
//!   a lane's, another login's) is a takeover, answered with CONNACK 2
//!   (identifier rejected), counted and raised as an alarm naming the
//!   login; any other id not the login's is refused the same way, without
//!   the alarm.
//! - **Access.** Each PUBLISH (and the CONNECT's will) and SUBSCRIBE is
//!   checked against [`acl`]; one the login may not make closes the
//!   connection, and never reaches rumqttd.
//! - **Keep-alive.** A client that sent nothing for 1.5 times its
//!   keep-alive (MQTT 3.1.1, 3.1.2.10) is closed: rumqttd (0.20) restarts
//!   a client's timer whenever it sends it something.
//! - **Slots.** At most `max` connections; when all are taken, the oldest
//!   connection not logged in yet is closed to make room, never a logged-in
//!   one.

use std::collections::{HashMap, HashSet};
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rumqttc::mqttbytes::v4::{ConnAck, Connect, ConnectReturnCode, Login, Packet};
use rumqttc::mqttbytes::{self, Protocol};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio_util::bytes::BytesMut;

use super::acl::{self, ClientId, Role};
use super::duplicates::Duplicates;
use super::logins::Logins;
use super::{Alarm, FrontStats};
use crate::centre::MAX_PAYLOAD;
use crate::web::server::cap::Capped;

/// How long a client has from its TCP connect to send a whole CONNECT.
pub const LOGIN_TIME: Duration = Duration::from_secs(3);
/// How long a CONNECT's password check may then wait for its turn.
pub const CHECK_TIME: Duration = Duration::from_secs(10);
/// The largest CONNECT taken: a client not logged in yet holds no more.
const MAX_CONNECT: usize = 8 << 10;
/// The largest packet taken after the CONNECT, as rumqttd's own limit.
const MAX_PACKET: usize = MAX_PAYLOAD;
/// Bytes read from a client at a time.
const READ_CHUNK: usize = 16 << 10;
/// (login, reason) pairs remembered as logged; past that the list starts
/// again.
const MAX_TOLD: usize = 4096;

/// rumqttd's login name for a client without one (a `passwords` user
/// never holds a `:`).
pub const ANONYMOUS: &str = ":anonymous";

/// Adds one to `counter`: its new value.
fn count(counter: &AtomicU64) -> u64 {
    counter.fetch_add(1, Ordering::Relaxed) + 1
}

/// What the front needs to know.
pub struct Settings {
    /// rumqttd's loopback address.
    pub inner: SocketAddr,
    /// Connections at once.
    pub max: usize,
    /// [`LOGIN_TIME`], but in tests.
    pub login_time: Duration,
    /// How long a password check may take, its wait for a turn included
    /// ([`CHECK_TIME`]).
    pub check_time: Duration,
    pub site: String,
    pub centre_user: String,
    pub allow_anonymous: bool,
    pub logins: Arc<Logins>,
    /// Login ([`ANONYMOUS`] for none) → the secret rumqttd takes for it.
    pub secrets: HashMap<String, String>,
    /// Told of a lane whose login is used by two clients at once, and of
    /// a takeover refused.
    pub on_alarm: Box<dyn Fn(Alarm) + Send + Sync>,
    /// A lane's PUBLISH waits while the centre is far behind.
    pub backlog: Arc<super::backlog::Backlog>,
}

struct Front {
    settings: Settings,
    stats: Arc<FrontStats>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Connections open, under the cap ([`Capped`]): each one not logged
    /// in yet holds the way to close it (idle, in the order they came);
    /// one logged in holds nothing (never closed to make room).
    open: Capped<Option<oneshot::Sender<()>>>,
    /// Connections open per login.
    logged_in: HashMap<String, usize>,
    duplicates: Duplicates,
    /// (login, reason) already logged.
    told: HashSet<(String, &'static str)>,
}

/// Relays the connections accepted on `outer` as the module says, on a
/// thread of its own.
pub fn start(
    outer: std::net::TcpListener,
    settings: Settings,
    stats: Arc<FrontStats>,
) -> io::Result<()> {
    outer.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let front = Arc::new(Front {
        settings,
        stats,
        state: Mutex::new(State::default()),
    });
    std::thread::Builder::new()
        .name("mqtt-front".into())
        .spawn(move || runtime.block_on(accept(outer, front)))?;
    Ok(())
}

async fn accept(outer: std::net::TcpListener, front: Arc<Front>) {
    let listener = match TcpListener::from_std(outer) {
        Ok(l) => l,
        Err(e) => {
            tracing::error!("the embedded broker cannot listen: {e}");
            return;
        }
    };
    loop {
        let (client, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                // Out of file descriptors and the like: wait, go on.
                tracing::warn!("the embedded broker cannot accept a connection: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Some((id, evicted)) = front.admit(peer) else {
            continue;
        };
        let slot = Slot {
            front: Arc::clone(&front),
            id,
            login: None,
        };
        tokio::spawn(async move {
            if let Err(e) = serve(client, slot, evicted).await {
                tracing::info!(%peer, "MQTT connection closed: {e}");
            }
        });
    }
}

impl Front {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A slot for a new connection, the oldest one not logged in yet
    /// closed for it when all are taken: its id and what says it is
    /// closed so; `None` when every slot is logged in.
    fn admit(&self, peer: SocketAddr) -> Option<(u64, oneshot::Receiver<()>)> {
        let max = self.settings.max;
        let (close, closed) = oneshot::channel();
        // The oldest not logged in is the idlest.
        let admitted = self
            .state()
            .open
            .admit(Some(close), max, |id, c| c.as_ref().map(|_| id));
        let Some(admitted) = admitted else {
            // Counted; logged at the 1st, 2nd, 4th, 8th… only.
            let refused = count(&self.stats.refused_when_full);
            if refused.is_power_of_two() {
                tracing::warn!(%peer, refused, "the embedded broker has {max} connections logged in: refused");
            }
            return None;
        };
        for close in admitted.evicted.into_iter().flatten() {
            // Its slot goes to the new one.
            let _ = close.send(());
            let evicted = count(&self.stats.evicted_before_login);
            if evicted.is_power_of_two() {
                tracing::warn!(%peer, evicted, "the embedded broker has {max} connections: the oldest not logged in closed");
            }
        }
        Some((admitted.id, closed))
    }

    /// Logs `what` for `login` the first time only.
    fn tell(&self, login: &str, reason: &'static str, what: impl FnOnce()) {
        let mut s = self.state();
        if s.told.len() >= MAX_TOLD {
            s.told.clear();
        }
        if s.told.insert((login.to_owned(), reason)) {
            drop(s);
            what();
        }
    }
}

/// A connection's place among the `max`, given back when it ends.
struct Slot {
    front: Arc<Front>,
    id: u64,
    /// The login, once logged in.
    login: Option<String>,
}

impl Slot {
    /// Marks the connection logged in as `login`: whether another of that
    /// login is open, or `None` if it was closed to make room meanwhile.
    fn log_in(&mut self, login: &str) -> Option<bool> {
        let mut s = self.front.state();
        s.open.get_mut(self.id)?.take()?;
        let open = s.logged_in.entry(login.to_owned()).or_default();
        *open += 1;
        let again = *open > 1;
        self.login = Some(login.to_owned());
        Some(again)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut s = self.front.state();
        // Not in the table if closed to make room: its slot given on.
        s.open.remove(self.id);
        if let Some(login) = self.login.take()
            && let Some(n) = s.logged_in.get_mut(&login)
        {
            *n -= 1;
            if *n == 0 {
                s.logged_in.remove(&login);
            }
        }
    }
}

/// A login the front took: who, and the CONNECT to hand rumqttd.
struct Admitted {
    role: Role,
    login: String,
    connect: Connect,
}

/// One connection: its login (unless it is closed to make room), then the
/// relay.
async fn serve(
    mut client: TcpStream,
    mut slot: Slot,
    evicted: oneshot::Receiver<()>,
) -> io::Result<()> {
    let front = Arc::clone(&slot.front);
    let mut buf = BytesMut::new();
    let admitted = tokio::select! {
        a = log_in(&front, &mut client, &mut buf) => a?,
        _ = evicted => return Ok(()),
    };
    let Some(admitted) = admitted else {
        return Ok(());
    };
    match slot.log_in(&admitted.login) {
        None => return Ok(()),
        Some(true) => {
            if let Role::Lane(n) = admitted.role {
                let report = front.state().duplicates.note(n, Instant::now());
                if report {
                    tracing::warn!(
                        lane = n,
                        "lane {n}'s login is used by two clients at once: two lanes configured as lane {n}?"
                    );
                    (front.settings.on_alarm)(Alarm::Duplicate(n));
                }
            }
        }
        Some(false) => {}
    }
    relay(&front, client, admitted, buf).await
}

/// The client's CONNECT, checked: `None` when it was refused (and the
/// client told so, if it asked in MQTT).
async fn log_in(
    front: &Front,
    client: &mut TcpStream,
    buf: &mut BytesMut,
) -> io::Result<Option<Admitted>> {
    let first = tokio::time::timeout(front.settings.login_time, async {
        loop {
            if let Some((_, packet)) = next_packet(buf, MAX_CONNECT)? {
                return Ok::<_, io::Error>(packet);
            }
            buf.reserve(1 << 10);
            if client.read_buf(buf).await? == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
        }
    })
    .await;
    let mut connect = match first {
        Err(_) => {
            count(&front.stats.login_timeouts);
            return Ok(None);
        }
        Ok(Err(e)) => {
            tracing::debug!("MQTT connection closed before its login: {e}");
            return Ok(None);
        }
        Ok(Ok(Packet::Connect(c))) if c.protocol == Protocol::V4 => c,
        Ok(Ok(Packet::Connect(_))) => {
            return refuse(client, ConnectReturnCode::RefusedProtocolVersion).await;
        }
        Ok(Ok(_)) => return Ok(None),
    };
    let s = &front.settings;
    let user = connect.login.as_ref().map(|l| l.username.clone());
    let login = user.clone().unwrap_or_else(|| ANONYMOUS.to_owned());
    match &connect.login {
        None if !s.allow_anonymous => {
            count(&front.stats.anonymous_refused);
            front.tell(&login, "anonymous", || {
                tracing::warn!("the embedded broker refused a client without a login");
            });
            return refuse(client, ConnectReturnCode::NotAuthorized).await;
        }
        None => {}
        Some(l) => {
            let checked =
                tokio::time::timeout(s.check_time, s.logins.check(&l.username, &l.password)).await;
            let Ok(ok) = checked else {
                // Not a wrong password: too many logins at once (a hall of
                // lanes starting together). The client comes back.
                count(&front.stats.login_timeouts);
                front.tell(&login, "check timeout", || {
                    tracing::warn!(
                        login,
                        "the embedded broker could not check a password within {:?} \
                         (too many logins at once): asked to come back",
                        s.check_time
                    );
                });
                return refuse(client, ConnectReturnCode::ServiceUnavailable).await;
            };
            if !ok {
                count(&front.stats.bad_logins);
                // Unknown names are logged as one: a guesser's names would
                // each be a line.
                let known = if s.logins.knows(&l.username) {
                    login.as_str()
                } else {
                    ""
                };
                front.tell(known, "bad login", || {
                    tracing::warn!(login, "the embedded broker refused a wrong password");
                });
                return refuse(client, ConnectReturnCode::BadUserNamePassword).await;
            }
        }
    }
    let role = Role::of(user.as_deref(), &s.centre_user);
    if let Some(will) = &connect.last_will
        && !acl::may_publish(&s.site, &role, &will.topic)
    {
        count(&front.stats.publish_denied);
        front.tell(&login, "will", || {
            tracing::warn!(
                login,
                topic = will.topic,
                "the embedded broker refused a last will this login may not publish"
            );
        });
        return refuse(client, ConnectReturnCode::NotAuthorized).await;
    }
    match acl::client_id(
        &s.site,
        &s.centre_user,
        user.as_deref(),
        &connect.client_id,
        |u| s.logins.knows(u),
    ) {
        ClientId::Own(id) => connect.client_id = id,
        ClientId::Others(whose) => {
            count(&front.stats.client_id_refused);
            count(&front.stats.takeovers_refused);
            let asked = connect.client_id.clone();
            front.tell(&login, "takeover", || {
                tracing::warn!(
                    login,
                    client_id = asked,
                    "the embedded broker refused a client id that is another's (a takeover)"
                );
            });
            (s.on_alarm)(Alarm::Takeover {
                login: user,
                client_id: connect.client_id,
                whose,
            });
            return refuse(client, ConnectReturnCode::BadClientId).await;
        }
        ClientId::Foreign => {
            count(&front.stats.client_id_refused);
            let asked = connect.client_id.clone();
            front.tell(&login, "client id", || {
                tracing::warn!(
                    login,
                    client_id = asked,
                    "the embedded broker refused a client id not this login's: a login \
                     connects with its own name as its client id"
                );
            });
            return refuse(client, ConnectReturnCode::BadClientId).await;
        }
    }
    let Some(secret) = s.secrets.get(&login) else {
        return refuse(client, ConnectReturnCode::ServiceUnavailable).await;
    };
    connect.login = Some(Login::new(login.clone(), secret.clone()));
    Ok(Some(Admitted {
        role,
        login,
        connect,
    }))
}

/// Answers a CONNECT with `code` (a refusal); the connection then ends.
async fn refuse(client: &mut TcpStream, code: ConnectReturnCode) -> io::Result<Option<Admitted>> {
    let mut ack = BytesMut::new();
    Packet::ConnAck(ConnAck::new(code, false))
        .write(&mut ack, usize::MAX)
        .map_err(invalid)?;
    client.write_all(&ack).await?;
    let _ = client.shutdown().await;
    Ok(None)
}

fn invalid(e: mqttbytes::Error) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e.to_string())
}

/// The next whole packet at the start of `buf`, taken from it: its bytes
/// as they came and what they say; `None` while more bytes are needed.
fn next_packet(buf: &mut BytesMut, max: usize) -> io::Result<Option<(BytesMut, Packet)>> {
    match mqttbytes::check(buf.iter(), max) {
        Ok(header) => {
            let raw = buf.split_to(header.frame_length());
            let packet = Packet::read(&mut raw.clone(), max).map_err(invalid)?;
            Ok(Some((raw, packet)))
        }
        Err(mqttbytes::Error::InsufficientBytes(_)) => Ok(None),
        Err(e) => Err(invalid(e)),
    }
}

/// A logged-in connection, relayed to rumqttd until either side closes
/// it, the client makes a PUBLISH or SUBSCRIBE its login may not, or it
/// is silent for longer than its keep-alive allows. `buf` holds what the
/// client sent after its CONNECT.
async fn relay(
    front: &Front,
    client: TcpStream,
    admitted: Admitted,
    mut buf: BytesMut,
) -> io::Result<()> {
    let Admitted {
        role,
        login,
        connect,
    } = admitted;
    let broker = TcpStream::connect(front.settings.inner).await?;
    client.set_nodelay(true)?;
    broker.set_nodelay(true)?;
    let (mut from_client, mut to_client) = client.into_split();
    let (mut from_broker, mut to_broker) = broker.into_split();
    let silence = (connect.keep_alive > 0)
        .then(|| Duration::from_millis(u64::from(connect.keep_alive) * 1500));
    let mut first = BytesMut::new();
    Packet::Connect(connect)
        .write(&mut first, usize::MAX)
        .map_err(invalid)?;
    to_broker.write_all(&first).await?;
    let up = async {
        loop {
            while let Some((raw, packet)) = next_packet(&mut buf, MAX_PACKET)? {
                if !allowed(front, &role, &login, &packet) {
                    return Ok(());
                }
                if let (Role::Lane(_), Packet::Publish(p)) = (&role, &packet) {
                    front.settings.backlog.relay(p.payload.len()).await;
                }
                to_broker.write_all(&raw).await?;
            }
            // A large packet (a lane's state) grew the buffer: once it is
            // relayed, the connection goes back to a small one, or every
            // idle lane would keep its largest packet's room.
            if buf.is_empty() && buf.capacity() > 2 * READ_CHUNK {
                buf = BytesMut::new();
            }
            buf.reserve(READ_CHUNK);
            let read = from_client.read_buf(&mut buf);
            let n = match silence {
                Some(limit) => tokio::time::timeout(limit, read).await.map_err(|_| {
                    io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("nothing from the client for {limit:?} (1.5 x its keep-alive)"),
                    )
                })??,
                None => read.await?,
            };
            if n == 0 {
                return Ok(());
            }
        }
    };
    let down = tokio::io::copy(&mut from_broker, &mut to_client);
    tokio::select! {
        r = up => r,
        r = down => r.map(|_| ()),
    }
}

/// Whether `login` (of `role`) may make `packet`; counted and logged
/// (once per login and reason) when not.
fn allowed(front: &Front, role: &Role, login: &str, packet: &Packet) -> bool {
    let site = &front.settings.site;
    let (reason, counter, topic) = match packet {
        Packet::Publish(p) if !acl::may_publish(site, role, &p.topic) => {
            ("publish", &front.stats.publish_denied, p.topic.as_str())
        }
        Packet::Subscribe(s) => match s
            .filters
            .iter()
            .find(|f| !acl::may_subscribe(site, role, &f.path))
        {
            Some(f) => ("subscribe", &front.stats.subscribe_denied, f.path.as_str()),
            None => return true,
        },
        Packet::Connect(_) => {
            tracing::debug!(login, "a second CONNECT: closed");
            return false;
        }
        _ => return true,
    };
    count(counter);
    front.tell(login, reason, || {
        tracing::warn!(
            login,
            topic,
            "the embedded broker refused a {reason} this login may not make, and closed the connection"
        );
    });
    false
}

#[cfg(test)]
mod tests;

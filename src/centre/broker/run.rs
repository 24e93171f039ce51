//! Starting rumqttd behind the front.

use std::collections::HashMap;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rumqttd::{Broker, Config, ConnectionSettings, RouterConfig, ServerSettings};
use tokio_util::bytes::BytesMut;

use super::{Alarm, BrokerSettings, FrontStats, Started, acl, front, logins};
use crate::centre::MAX_PAYLOAD;
use crate::web::auth::secret;

/// Clients connected at once.
const MAX_CONNECTIONS: usize = 1024;

/// Starts the broker on `s.listen` on its own threads; returns once it
/// accepts connections. It runs until the process ends (rumqttd has no
/// stop). `on_alarm` is told of a lane whose login two clients use at
/// once (at most every 30 s per lane), and of each takeover refused (a
/// login asking for another's client id).
pub fn start(
    s: BrokerSettings,
    on_alarm: Box<dyn Fn(Alarm) + Send + Sync>,
) -> Result<Started, String> {
    let hashes = match &s.passwords {
        Some(path) => logins::load(path)?,
        None => {
            tracing::warn!(
                "the embedded broker has no `passwords` file: only the centre logs in{}",
                if s.allow_anonymous {
                    ", and anyone without a login"
                } else {
                    ""
                }
            );
            Vec::new()
        }
    };
    let mut lanes: Vec<u32> = hashes
        .iter()
        .filter_map(
            |(user, _)| match acl::Role::of(Some(user), &s.centre_user) {
                acl::Role::Lane(n) => Some(n),
                _ => None,
            },
        )
        .collect();
    lanes.sort_unstable();
    let centre_password = secret()?;
    let logins = Arc::new(logins::Logins::new(
        hashes,
        &s.centre_user,
        &centre_password,
    ));
    // One secret per login, for rumqttd: only the front knows them.
    let mut secrets = HashMap::new();
    for user in logins.users().chain([front::ANONYMOUS]) {
        secrets.insert(user.to_owned(), secret()?);
    }
    // Bound here, so that a port in use is a clear error rather than a
    // line in rumqttd's log.
    let outer = TcpListener::bind(s.listen)
        .map_err(|e| format!("the embedded broker cannot listen on {}: {e}", s.listen))?;
    let listen = outer
        .local_addr()
        .map_err(|e| format!("the embedded broker cannot listen on {}: {e}", s.listen))?;
    let probe_secret = &secrets[front::ANONYMOUS];
    // rumqttd takes an address, not a socket: a free loopback port is let
    // go for it to bind, and another process may take it first. Then
    // rumqttd's thread ends at once with its bind error, and a new port
    // is tried.
    let mut tries = 0;
    let inner = loop {
        tries += 1;
        let inner = TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0))
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("the embedded broker cannot listen on the loopback: {e}"))?;
        let broker = std::thread::Builder::new()
            .name("mqtt-broker".into())
            .spawn({
                let config = rumqttd_config(inner, &secrets);
                move || Broker::new(config).start().map_err(|e| e.to_string())
            })
            .map_err(|e| format!("cannot start the embedded broker: {e}"))?;
        match answering(inner, probe_secret, &broker) {
            Ok(()) => {
                std::thread::spawn(move || {
                    if let Ok(Err(e)) = broker.join() {
                        tracing::error!("the embedded broker stopped: {e}");
                    }
                });
                break inner;
            }
            Err(e) if broker.is_finished() && tries < 5 => {
                tracing::info!(
                    port = inner.port(),
                    "the embedded broker's loopback port was taken: {e}"
                );
            }
            Err(e) => {
                return Err(format!(
                    "the embedded broker did not answer a login on {inner}: {e}"
                ));
            }
        }
    };
    let stats = Arc::new(FrontStats::default());
    let backlog = Arc::new(super::backlog::Backlog::default());
    let settings = front::Settings {
        inner,
        max: MAX_CONNECTIONS,
        login_time: front::LOGIN_TIME,
        check_time: front::CHECK_TIME,
        site: s.site,
        centre_user: s.centre_user,
        allow_anonymous: s.allow_anonymous,
        logins,
        secrets,
        on_alarm,
        backlog: Arc::clone(&backlog),
    };
    front::start(outer, settings, Arc::clone(&stats))
        .map_err(|e| format!("cannot start the embedded broker's listener: {e}"))?;
    tracing::info!(%listen, "embedded MQTT broker listening");
    Ok(Started {
        listen,
        centre_password,
        lanes,
        stats,
        backlog,
        inner,
    })
}

/// rumqttd's config: one MQTT 3.1.1 server on `inner`, taking only the
/// front's internal `secrets`.
fn rumqttd_config(inner: SocketAddr, secrets: &HashMap<String, String>) -> Config {
    let server = ServerSettings {
        name: "lanecall".into(),
        listen: inner,
        tls: None,
        next_connection_delay_ms: 1,
        connections: ConnectionSettings {
            connection_timeout_ms: 10_000,
            max_payload_size: MAX_PAYLOAD,
            max_inflight_count: 500,
            auth: Some(secrets.clone()),
            external_auth: None,
            dynamic_filters: true,
        },
    };
    Config {
        id: 0,
        router: RouterConfig {
            max_connections: MAX_CONNECTIONS,
            max_outgoing_packet_count: 500,
            // Each subscription's log in memory: 4 segments of 1 MiB of
            // payload at most, twice what the front lets the centre fall
            // behind (`backlog::MAX_BEHIND`). A subscriber that falls
            // further behind loses the oldest messages; the centre asks
            // for the lines again (`resend`). The log costs more than its
            // payload: each message kept holds the whole read buffer it
            // came in (a lane's small journal line can keep a ~77 kB
            // state's buffer), so the process's memory follows the log's
            // length: the 48-lane demo levels off at 499 MiB with 4
            // segments, 674 MiB with 8 (BENCHMARKS.md).
            max_segment_size: 1 << 20,
            max_segment_count: 4,
            custom_segment: None,
            initialized_filters: None,
            shared_subscriptions_strategy: Default::default(),
        },
        v4: Some(HashMap::from([("1".to_owned(), server)])),
        ..Config::default()
    }
}

/// Waits (at most 5 s) until rumqttd at `inner` takes a login; an error
/// at once when its thread `broker` has ended (its server could not bind).
fn answering<T>(
    inner: SocketAddr,
    secret: &str,
    broker: &std::thread::JoinHandle<T>,
) -> std::io::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match logs_in(inner, secret) {
            Ok(()) => return Ok(()),
            Err(e) if broker.is_finished() || Instant::now() >= deadline => return Err(e),
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// Whether rumqttd at `inner` takes a login: a CONNECT answered by a
/// CONNACK, then the connection closed (a bare connection, or a
/// DISCONNECT, rumqttd would log as an error).
fn logs_in(inner: SocketAddr, secret: &str) -> std::io::Result<()> {
    use rumqttc::mqttbytes::v4::{Connect, ConnectReturnCode, Login, Packet};
    use std::io::{Error, Read, Write};
    let wait = Duration::from_millis(500);
    let mut stream = TcpStream::connect_timeout(&inner, wait)?;
    stream.set_read_timeout(Some(wait))?;
    let mut connect = Connect::new("lanecall-broker-ready");
    connect.login = Some(Login::new(front::ANONYMOUS, secret));
    let mut hello = BytesMut::new();
    connect.write(&mut hello).map_err(Error::other)?;
    stream.write_all(&hello)?;
    let mut ack = [0u8; 4];
    stream.read_exact(&mut ack)?;
    match Packet::read(&mut BytesMut::from(&ack[..]), ack.len()) {
        Ok(Packet::ConnAck(a)) if a.code == ConnectReturnCode::Success => Ok(()),
        other => Err(Error::other(format!("it answered {other:?}"))),
    }
}

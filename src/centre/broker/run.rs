//! Starting rumqttd behind the front.

use std::collections::HashMap;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rumqttd::{Broker, Config, ConnectionSettings, RouterConfig, SegmentConfig, ServerSettings};
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
                let config = rumqttd_config(inner, &secrets, &s.site);
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
/// front's internal `secrets`, for the topics of `site`.
fn rumqttd_config(inner: SocketAddr, secrets: &HashMap<String, String>, site: &str) -> Config {
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
            // for the lines again (`resend`). A kept message owns its
            // bytes (the patch of vendor/rumqttd), so the logs cost what
            // they count; one lane's states have smaller ones.
            max_segment_size: 1 << 20,
            max_segment_count: 4,
            custom_segment: Some(one_lane_states(site)),
            initialized_filters: None,
            shared_subscriptions_strategy: Default::default(),
        },
        v4: Some(HashMap::from([("1".to_owned(), server)])),
        ..Config::default()
    }
}

/// The logs of subscriptions to one lane's `state` (its neighbours', a
/// screen's): the latest two states, each in a segment of its own (a
/// segment is closed once it holds 1 KiB, rumqttd's least). A state is
/// the whole of the lane's `/api/lane` (~77 kB in the 48-lane demo, more
/// as the day goes on) and each tells all there is, so an older one is
/// of no use to a reader of that lane. With the default log each such
/// subscription kept its lane's last 4 MiB of states: in the 48-lane demo,
/// where each lane's two neighbours read its state, most of what the
/// broker kept (BENCHMARKS.md). The subscription to
/// every lane's state (the centre's `+`, which no pattern here matches)
/// keeps the default, so the centre is never skipped ahead within
/// [`super::backlog::MAX_BEHIND`].
fn one_lane_states(site: &str) -> HashMap<String, SegmentConfig> {
    (1..=crate::mqtt::topic::MAX_LANE_NUMBER)
        .map(|n| {
            let filter = crate::mqtt::topic::lane(site, n, "state");
            let log = SegmentConfig {
                max_segment_size: 1 << 10,
                max_segment_count: 2,
            };
            (filter, log)
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mqtt::topic;
    use rumqttd::protocol::matches;

    /// The small logs are those of one lane's state, for every lane
    /// number, as rumqttd picks a subscription's log (`Data::new`: the
    /// subscription's filter matched against each pattern): never the
    /// centre's subscription to every lane's state, nor another topic.
    #[test]
    fn only_one_lanes_state_has_a_small_log() {
        let config = rumqttd_config("127.0.0.1:1".parse().unwrap(), &HashMap::new(), "cup");
        let small = config.router.custom_segment.unwrap();
        assert_eq!(small.len(), topic::MAX_LANE_NUMBER as usize);
        let small_for = |filter: &str| small.keys().filter(|p| matches(filter, p)).count();
        for n in [1, 7, 48, topic::MAX_LANE_NUMBER] {
            assert_eq!(small_for(&topic::lane("cup", n, "state")), 1, "lane {n}");
            for what in topic::FROM_LANE.iter().chain([&topic::COMMAND]) {
                if *what != "state" {
                    assert_eq!(small_for(&topic::lane("cup", n, what)), 0, "{what}");
                }
            }
            assert_eq!(small_for(&topic::lane("other", n, "state")), 0);
        }
        for what in topic::FROM_LANE {
            assert_eq!(small_for(&topic::every_lane("cup", what)), 0, "{what}");
        }
        assert_eq!(small_for("lanecall/cup/#"), 0);
        assert_eq!(small_for(&topic::centre_status("cup")), 0);
        // rumqttd's least: smaller panics when the log is made.
        assert!(
            small
                .values()
                .all(|s| s.max_segment_size >= 1024 && s.max_segment_count >= 1)
        );
        assert_eq!(config.router.max_segment_count, 4);
    }
}

//! The embedded MQTT broker (rumqttd), for a centre with no `broker`
//! configured: MQTT 3.1.1 on `embedded_listen`, retained messages, last
//! wills, QoS 1, persistent sessions while it runs, and the `passwords`
//! file as its logins. It keeps nothing on disk: after a restart the lanes
//! publish their state again and resend their journal lines (docs/centre.md).
//!
//! rumqttd (0.20) restarts a client's keep-alive timer whenever it sends
//! that client something, so a lane whose network went silent stays
//! "online" while the centre or a neighbour keeps publishing to it. So
//! rumqttd listens on a loopback port only, and the clients reach it
//! through [`front`], which closes a connection whose client sent nothing
//! for 1.5 times its keep-alive (MQTT 3.1.1, 3.1.2.10): rumqttd then sees
//! the connection lost and publishes the lane's last will.

use std::collections::HashMap;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use rumqttd::{Broker, Config, ConnectionSettings, RouterConfig, ServerSettings};

use super::MAX_PAYLOAD;
use super::config::read_passwords;

mod front;

/// Clients connected at once.
const MAX_CONNECTIONS: usize = 1024;

/// Starts the broker on `listen` on its own threads; returns once it
/// accepts connections. It runs until the process ends (rumqttd has no
/// stop).
pub fn start(listen: SocketAddr, passwords: Option<&Path>) -> Result<(), String> {
    let auth = match passwords {
        Some(path) => {
            let logins = read_passwords(path)?;
            Some(logins.into_iter().collect::<HashMap<_, _>>())
        }
        None => {
            tracing::warn!(
                "the embedded broker takes anyone: set `passwords` in the centre's config \
                 so only the lanes and the centre can log in"
            );
            None
        }
    };
    // Bound here, so that a port in use is a clear error rather than a
    // line in rumqttd's log.
    let outer = TcpListener::bind(listen)
        .map_err(|e| format!("the embedded broker cannot listen on {listen}: {e}"))?;
    // A free loopback port, let go for rumqttd to bind (it takes an
    // address, not a socket).
    let inner = TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map_err(|e| format!("the embedded broker cannot listen on the loopback: {e}"))?;
    let server = ServerSettings {
        name: "lanecall".into(),
        listen: inner,
        tls: None,
        next_connection_delay_ms: 1,
        connections: ConnectionSettings {
            connection_timeout_ms: 10_000,
            max_payload_size: MAX_PAYLOAD,
            max_inflight_count: 500,
            auth,
            external_auth: None,
            dynamic_filters: true,
        },
    };
    let config = Config {
        id: 0,
        router: RouterConfig {
            max_connections: MAX_CONNECTIONS,
            max_outgoing_packet_count: 500,
            // Each subscription's log in memory: 8 segments of 1 MiB of
            // payload at most. A subscriber that falls further behind
            // loses the oldest messages; the centre asks for the lines
            // again (`resend`). 48 lanes sending whole blocks at once
            // overflow it a few times (4 x 256 KiB: ~55 times, every
            // line mirrored 3 s later); BENCHMARKS.md.
            max_segment_size: 1 << 20,
            max_segment_count: 8,
            custom_segment: None,
            initialized_filters: None,
            shared_subscriptions_strategy: Default::default(),
        },
        v4: Some(HashMap::from([("1".to_owned(), server)])),
        ..Config::default()
    };
    let mut broker = Broker::new(config);
    std::thread::Builder::new()
        .name("mqtt-broker".into())
        .spawn(move || {
            if let Err(e) = broker.start() {
                tracing::error!("the embedded broker stopped: {e}");
            }
        })
        .map_err(|e| format!("cannot start the embedded broker: {e}"))?;
    let deadline = Instant::now() + Duration::from_secs(5);
    while TcpStream::connect_timeout(&inner, Duration::from_millis(200)).is_err() {
        if Instant::now() >= deadline {
            return Err(format!(
                "the embedded broker did not start listening on {inner}"
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    front::start(outer, inner, MAX_CONNECTIONS)
        .map_err(|e| format!("cannot start the embedded broker's listener: {e}"))?;
    tracing::info!(%listen, "embedded MQTT broker listening");
    Ok(())
}

//! The embedded broker's listener: each client's connection relayed to
//! rumqttd on the loopback, and closed when the client has sent nothing
//! for 1.5 times the keep-alive its CONNECT asked for.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Bytes of a connection's start kept to read its CONNECT's keep-alive:
/// the fixed header (at most 5), the protocol name (at most 8), level,
/// flags and the keep-alive itself.
const HEAD: usize = 32;

/// Relays the connections accepted on `outer` to `inner`, at most `max`
/// at once, on a thread of its own.
pub fn start(outer: std::net::TcpListener, inner: SocketAddr, max: usize) -> io::Result<()> {
    outer.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    std::thread::Builder::new()
        .name("mqtt-front".into())
        .spawn(move || runtime.block_on(accept(outer, inner, max)))?;
    Ok(())
}

async fn accept(outer: std::net::TcpListener, inner: SocketAddr, max: usize) {
    let listener = match TcpListener::from_std(outer) {
        Ok(l) => l,
        Err(e) => {
            tracing::error!("the embedded broker cannot listen: {e}");
            return;
        }
    };
    let open = Arc::new(AtomicUsize::new(0));
    let mut refused: u64 = 0;
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
        if open.load(Ordering::Relaxed) >= max {
            // Counted; logged at the 1st, 2nd, 4th, 8th… only.
            refused += 1;
            if refused.is_power_of_two() {
                tracing::warn!(%peer, refused, "the embedded broker has {max} connections: refused");
            }
            continue;
        }
        open.fetch_add(1, Ordering::Relaxed);
        let open = Arc::clone(&open);
        tokio::spawn(async move {
            if let Err(e) = relay(client, inner).await {
                tracing::info!(%peer, "MQTT connection closed: {e}");
            }
            open.fetch_sub(1, Ordering::Relaxed);
        });
    }
}

/// One connection, until either side closes it or the client is silent
/// for longer than its keep-alive allows.
async fn relay(client: TcpStream, inner: SocketAddr) -> io::Result<()> {
    let broker = TcpStream::connect(inner).await?;
    client.set_nodelay(true)?;
    broker.set_nodelay(true)?;
    let (mut from_client, mut to_client) = client.into_split();
    let (mut from_broker, mut to_broker) = broker.into_split();
    let up = async {
        let mut buf = vec![0; 16 << 10];
        let mut head = Vec::with_capacity(HEAD);
        // `None` until the CONNECT is read; then its limit, if any.
        let mut silence: Option<Option<Duration>> = None;
        loop {
            let n = match silence {
                Some(Some(limit)) => tokio::time::timeout(limit, from_client.read(&mut buf))
                    .await
                    .map_err(|_| {
                        io::Error::new(
                            io::ErrorKind::TimedOut,
                            format!("nothing from the client for {limit:?} (1.5 x its keep-alive)"),
                        )
                    })??,
                _ => from_client.read(&mut buf).await?,
            };
            if n == 0 {
                return Ok(());
            }
            if silence.is_none() {
                head.extend_from_slice(&buf[..n.min(HEAD - head.len())]);
                silence = connect_keep_alive(&head)
                    .map(|k| (k > 0).then(|| Duration::from_millis(u64::from(k) * 1500)));
                if silence.is_none() && head.len() == HEAD {
                    // Not a CONNECT rumqttd will take: it closes the
                    // connection itself.
                    silence = Some(None);
                }
            }
            to_broker.write_all(&buf[..n]).await?;
        }
    };
    let down = tokio::io::copy(&mut from_broker, &mut to_client);
    tokio::select! {
        r = up => r,
        r = down => r.map(|_| ()),
    }
}

/// The keep-alive (seconds) of the MQTT CONNECT packet `head` begins
/// with, once enough of it is there; `None` before that, or when it is
/// not a CONNECT (its checks are rumqttd's).
fn connect_keep_alive(head: &[u8]) -> Option<u16> {
    if *head.first()? != 0x10 {
        return None;
    }
    // The remaining length: 1 to 4 bytes of 7 bits, the last without 0x80.
    let mut at = 1;
    while *head.get(at)? & 0x80 != 0 {
        at += 1;
        if at > 4 {
            return None;
        }
    }
    let name = at + 1;
    let len = usize::from(u16::from_be_bytes([*head.get(name)?, *head.get(name + 1)?]));
    // Protocol name, level, flags, then the keep-alive.
    let keep_alive = name + 2 + len + 2;
    Some(u16::from_be_bytes([
        *head.get(keep_alive)?,
        *head.get(keep_alive + 1)?,
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// A stand-in for rumqttd that sends each client a byte every 100 ms,
    /// as a broker does with the messages it has for a lane.
    fn chatty_broker() -> SocketAddr {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for mut c in listener.incoming().flatten() {
                std::thread::spawn(move || {
                    while c.write_all(b"x").is_ok() {
                        std::thread::sleep(Duration::from_millis(100));
                    }
                });
            }
        });
        addr
    }

    /// Reads until the connection ends: true if it did within `limit`.
    fn ends(c: &mut std::net::TcpStream, limit: Duration) -> bool {
        let until = std::time::Instant::now() + limit;
        c.set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        let mut buf = [0; 64];
        while std::time::Instant::now() < until {
            match c.read(&mut buf) {
                Ok(0) => return true,
                Err(e) if e.kind() == io::ErrorKind::ConnectionReset => return true,
                Ok(_) | Err(_) => {}
            }
        }
        false
    }

    #[test]
    fn a_client_silent_past_its_keep_alive_is_cut_off_while_the_broker_talks_and_the_rest_refused()
    {
        let outer = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let front = outer.local_addr().unwrap();
        start(outer, chatty_broker(), 2).unwrap();
        // Keep-alive 1 s, then nothing: cut off (after 1.5 s), though the
        // broker keeps sending to it.
        let mut silent = std::net::TcpStream::connect(front).unwrap();
        silent
            .write_all(&[0x10, 12, 0, 4, b'M', b'Q', b'T', b'T', 4, 2, 0, 1, 0, 0])
            .unwrap();
        // No keep-alive (0): never cut off for silence.
        let mut patient = std::net::TcpStream::connect(front).unwrap();
        patient
            .write_all(&[0x10, 12, 0, 4, b'M', b'Q', b'T', b'T', 4, 2, 0, 0, 0, 0])
            .unwrap();
        // Give the front time to take both before the third.
        std::thread::sleep(Duration::from_millis(300));
        let mut third = std::net::TcpStream::connect(front).unwrap();
        assert!(
            ends(&mut third, Duration::from_secs(20)),
            "the third is refused"
        );
        assert!(
            ends(&mut silent, Duration::from_secs(20)),
            "the silent one is cut off"
        );
        assert!(
            !ends(&mut patient, Duration::from_secs(3)),
            "the patient one stays"
        );
    }

    #[test]
    fn the_keep_alive_is_read_from_a_connect() {
        // CONNECT, remaining length 16, "MQTT", level 4, flags 2, keep-alive 5.
        let connect = [
            0x10, 16, 0, 4, b'M', b'Q', b'T', b'T', 4, 2, 0, 5, 0, 4, b'l', b'a', b'n', b'e',
        ];
        assert_eq!(connect_keep_alive(&connect), Some(5));
        for cut in 0..12 {
            assert_eq!(connect_keep_alive(&connect[..cut]), None, "{cut} bytes");
        }
        // MQTT 3.1's name, and a two-byte remaining length.
        let old = [
            0x10, 0x80, 0x01, 0, 6, b'M', b'Q', b'I', b's', b'd', b'p', 3, 2, 0x01, 0x2c,
        ];
        assert_eq!(connect_keep_alive(&old), Some(300));
        assert_eq!(connect_keep_alive(&[0x30, 2, 0, 0]), None, "a PUBLISH");
        assert_eq!(connect_keep_alive(&[0x10, 0xff, 0xff, 0xff, 0xff, 1]), None);
    }
}

//! The control API's HTTP server, for a lane's panel and the centre alike:
//! its own accept loop over hyper, because the panel shares a process with
//! the pinsetter's serial port and the GPIO, and every connection is a
//! file descriptor they may need.
//!
//! `axum::serve` takes every connection and keeps it while the client
//! likes: a thousand clients that connect and send nothing (or a header a
//! byte at a time) used up the process's file descriptors, every other
//! client was refused, and a replugged pinsetter could not be reopened.
//! Here:
//!
//! - **Timeouts.** A new connection must send its first byte within
//!   [`FIRST_BYTE_TIMEOUT`] (over HTTPS the handshake counts); once a
//!   request's head has begun it must be complete within
//!   [`HEADER_TIMEOUT`], however slowly it trickles in; a kept-alive
//!   connection with no request in flight is closed after [`IDLE_TIMEOUT`].
//! - **A body keeps coming** ([`body`]): while a handler reads a request's
//!   body, no [`BODY_TIMEOUT`] may pass without a byte, and past its first
//!   [`BODY_TIMEOUT`] the body must have come at [`BODY_MIN_RATE`] bytes a
//!   second on average (each [`BODY_MIN_RATE`] bytes buy a second). Else
//!   the request is answered `408` and the connection closed. The rest of
//!   a request in flight has no limit here: a live view
//!   (`GET /api/events`) lasts as long as the panel is open.
//! - **A cap on open connections** ([`Limits::max_connections`], from
//!   `[web] max_connections`, lowered to stay [`FD_RESERVE`] below the
//!   process's file limit). When the cap is reached, a new connection
//!   takes the place of the connection heard from least recently while
//!   the server waits on it ([`conn`], by the policy of [`cap`], which
//!   the embedded broker's front shares): one idle (never sent a whole
//!   request, or kept alive between requests) or one whose body is being
//!   read, by its last byte. A body trickling in a byte every few seconds
//!   is thus the first to go, a judge's sent at a normal rate the last. A
//!   request being handled or answered is never cut off to make room, so a
//!   panel keeps working while someone floods the port, and a fresh client
//!   gets in at once rather than after a timeout. Only when every
//!   connection is being handled or answered is a new one refused: `503`
//!   with `Connection: close` (over HTTPS, closed without an answer: there
//!   is no session to answer in yet).
//! - **The peer's address** is given to the router as
//!   `ConnectInfo<SocketAddr>`, as `into_make_service_with_connect_info`
//!   does, for the login rate limit ([`super::limit`]).
//! - **HTTPS** when `[web] tls_cert` and `tls_key` are set ([`tls_acceptor`]).
//! - **Graceful shutdown**: stop accepting, let requests in flight finish
//!   for up to [`SHUTDOWN_GRACE`], then close what is left.
//!
//! Routes that need a login check the session before they read a body
//! (src/web/mod.rs, src/centre/api.rs): a stranger's upload is answered
//! `401` unread, and holds neither memory nor a place long.

mod body;
pub mod cap;
mod conn;
mod tls;

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt as _;

use conn::{Conn, Registered, Registry, Tracked, Watched};
pub use tls::{TlsError, tls_acceptor};

/// How long a new connection has to send its first byte (over HTTPS: to
/// finish the handshake and send its first request byte). A tablet on a
/// weak Wi-Fi needs well under a second for either.
pub const FIRST_BYTE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a request's head may take from its first byte to its blank
/// line: a slow client's head is a few hundred bytes.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a request body may go without a byte while it is read, and
/// how long its first bytes have before [`BODY_MIN_RATE`] applies. A
/// tablet's body (a judge's action, a login: well under 1 KiB) goes in one
/// packet; on a Wi-Fi that drops packets, TCP resends a lost one within a
/// few seconds, and a link silent for 10 s is gone.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// The least average rate of a request body past its first
/// [`BODY_TIMEOUT`], in bytes a second: each this many bytes received buy
/// the body another second. A bad Wi-Fi still moves tens of kilobytes a
/// second, so a 1 MiB entries file from a laptop takes well under a
/// minute where this allows over 17; a body trickled a byte every 2 s is
/// closed after about 10 s.
pub const BODY_MIN_RATE: u64 = 1024;

/// How long a kept-alive connection may wait for its next request. A panel
/// polling the lane asks every few seconds; one that stopped reconnects.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// How long requests in flight may go on after the daemon is told to stop.
/// Well inside systemd's `TimeoutStopSec=10`, which also has the lane's
/// thread to wait for.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// File descriptors kept for the rest of the daemon: the journal and its
/// mirror, the pinsetter's port (reopened when replugged), the GPIO chip,
/// the sound card, journal reads for exports, the runtime's own.
pub const FD_RESERVE: u64 = 128;

/// The answer to a connection beyond the cap when none can be closed for
/// it (every connection is being handled or answered). Written straight to
/// the socket: the connection gets no task. The centre serves it too: it
/// names no lane.
const FULL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\n\
Content-Type: application/json\r\n\
Retry-After: 5\r\n\
Connection: close\r\n\
Content-Length: 55\r\n\
\r\n\
{\"error\":\"too many connections: try again in a moment\"}";

/// The server's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Open connections at most.
    pub max_connections: usize,
    /// See [`FIRST_BYTE_TIMEOUT`].
    pub first_byte: Duration,
    /// See [`HEADER_TIMEOUT`].
    pub header: Duration,
    /// See [`IDLE_TIMEOUT`].
    pub idle: Duration,
    /// See [`BODY_TIMEOUT`].
    pub body: Duration,
    /// See [`BODY_MIN_RATE`].
    pub body_rate: u64,
    /// See [`SHUTDOWN_GRACE`].
    pub grace: Duration,
}

impl Limits {
    /// The default timeouts with at most `max_connections` connections.
    pub fn new(max_connections: usize) -> Limits {
        Limits {
            max_connections: max_connections.max(1),
            first_byte: FIRST_BYTE_TIMEOUT,
            header: HEADER_TIMEOUT,
            idle: IDLE_TIMEOUT,
            body: BODY_TIMEOUT,
            body_rate: BODY_MIN_RATE,
            grace: SHUTDOWN_GRACE,
        }
    }
}

/// The process's soft limit on open files, `None` if unlimited.
pub fn fd_limit() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::Nofile).current
}

/// The connection cap that leaves [`FD_RESERVE`] descriptors of `fd_limit`
/// to the rest of the daemon: `configured`, or less under a low limit.
pub fn connection_cap(configured: usize, fd_limit: Option<u64>) -> usize {
    let Some(limit) = fd_limit else {
        return configured.max(1);
    };
    let room = usize::try_from(limit.saturating_sub(FD_RESERVE)).unwrap_or(usize::MAX);
    configured.min(room).max(1)
}

/// Serves `app` on `listener` until `shutdown` completes, then stops
/// accepting and gives requests in flight [`Limits::grace`] to finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    tls: Option<TlsAcceptor>,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    let registry = Arc::new(Registry::default());
    let stop = CancellationToken::new();
    let mut tasks = JoinSet::new();
    let mut http = http1::Builder::new();
    // Only a backstop: the connection's own deadlines (first byte, head,
    // idle) come first. hyper's timer starts when it waits for a head, so
    // it covers an idle wait and a head together.
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.idle + limits.header)
        .keep_alive(true);
    let mut refused_since_warning = 0u64;
    let mut last_warning: Option<Instant> = None;
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            biased;
            () = &mut shutdown => break,
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        accept_failed(&e, &mut last_warning).await;
                        continue;
                    }
                };
                let conn = Arc::new(Conn::new(peer));
                let Some(id) = registry.admit(&conn, limits.max_connections) else {
                    refused_since_warning += 1;
                    if last_warning.is_none_or(|at| at.elapsed() > Duration::from_secs(10)) {
                        tracing::warn!(
                            refused = refused_since_warning,
                            "every connection is being answered: refusing new ones"
                        );
                        refused_since_warning = 0;
                        last_warning = Some(Instant::now());
                    }
                    if tls.is_none() {
                        // A fresh socket's send buffer is empty: this does
                        // not block, and a client that reads nothing costs
                        // nothing.
                        let _ = stream.try_write(FULL);
                    }
                    continue;
                };
                let registered = Registered { registry: Arc::clone(&registry), id };
                tasks.spawn(connection(
                    stream,
                    conn,
                    registered,
                    app.clone(),
                    tls.clone(),
                    http.clone(),
                    limits,
                    stop.clone(),
                ));
            }
        }
    }
    drop(listener);
    stop.cancel();
    let open = registry.len();
    tracing::debug!(open, "the panel stops accepting connections");
    let drained = tokio::time::timeout(limits.grace, async {
        while tasks.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::info!(
            open = registry.len(),
            "closing the panel's connections still answering after {:?}",
            limits.grace
        );
        tasks.shutdown().await;
    }
}

/// After a failed accept: a connection that went away before it was
/// taken is nothing; out of file descriptors or memory, wait a moment
/// rather than spin, and say so now and then.
async fn accept_failed(e: &io::Error, last_warning: &mut Option<Instant>) {
    use io::ErrorKind as K;
    if matches!(
        e.kind(),
        K::ConnectionAborted | K::ConnectionReset | K::Interrupted
    ) {
        return;
    }
    if last_warning.is_none_or(|at| at.elapsed() > Duration::from_secs(10)) {
        tracing::warn!("cannot accept a panel connection: {e}");
        *last_warning = Some(Instant::now());
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// One connection, from its accept to its close.
#[allow(clippy::too_many_arguments)]
async fn connection(
    stream: TcpStream,
    conn: Arc<Conn>,
    _registered: Registered,
    app: Router,
    tls: Option<TlsAcceptor>,
    http: http1::Builder,
    limits: Limits,
    stop: CancellationToken,
) {
    // Answers are small and a judge waits on each.
    let _ = stream.set_nodelay(true);
    let Some(acceptor) = tls else {
        return drive(stream, &conn, app, &http, &limits, &stop).await;
    };
    // The handshake is the first thing a client sends: it falls under the
    // first-byte timeout, counted from the accept.
    let handshake = tokio::select! {
        done = tokio::time::timeout(limits.first_byte, acceptor.accept(stream)) => done,
        () = conn.evict.notified() => return,
        () = stop.cancelled() => return,
    };
    match handshake {
        Ok(Ok(stream)) => drive(stream, &conn, app, &http, &limits, &stop).await,
        Ok(Err(e)) => tracing::debug!(peer = %conn.peer, "TLS handshake failed: {e}"),
        Err(_) => tracing::debug!(peer = %conn.peer, "no TLS handshake in time"),
    }
}

/// Serves HTTP/1.1 on `io` until the client closes, a deadline passes, a
/// newer connection takes its place, or the server stops.
async fn drive<IO>(
    io: IO,
    conn: &Arc<Conn>,
    app: Router,
    http: &http1::Builder,
    limits: &Limits,
    stop: &CancellationToken,
) where
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let peer = conn.peer;
    let watched = TokioIo::new(Watched {
        io,
        conn: Arc::clone(conn),
    });
    let on_request = Arc::clone(conn);
    let limits_now = *limits;
    let service = hyper::service::service_fn(move |req: Request<Incoming>| {
        let busy = on_request.begin();
        let timed_out = Arc::new(AtomicBool::new(false));
        let conn = Arc::clone(&on_request);
        let too_slow = Arc::clone(&timed_out);
        let mut req =
            req.map(|b| Body::new(body::Timed::new(b, conn, limits_now, Arc::clone(&too_slow))));
        // What `into_make_service_with_connect_info` gives each request.
        req.extensions_mut().insert(ConnectInfo(peer));
        let app = app.clone();
        async move {
            let Ok(mut res) = app.oneshot(req).await;
            if timed_out.load(Ordering::Relaxed) {
                // Whatever the handler made of the failed read: the client
                // is told why, and the connection closes after it.
                res = body::too_slow(&limits_now);
            }
            Ok::<_, Infallible>(res.map(|body| Tracked { body, _busy: busy }))
        }
    });
    let connection = http.serve_connection(watched, service);
    tokio::pin!(connection);
    let mut draining = false;
    loop {
        let deadline = conn.deadline(limits);
        let timer = async move {
            match deadline {
                Some(at) => tokio::time::sleep_until(at.into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            done = connection.as_mut() => {
                if let Err(e) = done {
                    tracing::debug!(%peer, "connection ended: {e}");
                }
                return;
            }
            () = conn.changed.notified() => {}
            () = timer => {
                if conn.deadline(limits).is_some_and(|at| at <= Instant::now()) {
                    tracing::debug!(%peer, "closing a connection that sent nothing in time");
                    return;
                }
            }
            () = conn.evict.notified() => return,
            () = stop.cancelled(), if !draining => {
                // Closes the connection now if idle, after the answer in
                // flight otherwise.
                connection.as_mut().graceful_shutdown();
                draining = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_stays_below_the_file_limit() {
        assert_eq!(connection_cap(256, None), 256);
        assert_eq!(connection_cap(256, Some(4096)), 256);
        assert_eq!(connection_cap(256, Some(1024)), 256);
        assert_eq!(connection_cap(4096, Some(1024)), 1024 - FD_RESERVE as usize);
        assert_eq!(connection_cap(256, Some(200)), 200 - FD_RESERVE as usize);
        assert_eq!(connection_cap(256, Some(10)), 1, "never zero");
    }

    #[test]
    fn the_full_answer_has_the_length_it_says() {
        let text = std::str::from_utf8(FULL).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        let length = format!("Content-Length: {}", body.len());
        assert!(head.split("\r\n").any(|line| line == length), "{head}");
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert!(json["error"].as_str().unwrap().contains("too many"));
    }
}

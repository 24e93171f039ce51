//! The control API's HTTP server: its own accept loop over hyper, because
//! the panel shares a process with the pinsetter's serial port and the
//! GPIO, and every connection is a file descriptor they may need.
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
//!   A request in flight has no limit here: a live view
//!   (`GET /api/events`) lasts as long as the panel is open.
//! - **A cap on open connections** ([`Limits::max_connections`], from
//!   `[web] max_connections`, lowered to stay [`FD_RESERVE`] below the
//!   process's file limit). When the cap is reached, a new connection
//!   takes the place of the connection that has been idle longest (no
//!   request in flight: one that never sent a whole request, or a
//!   kept-alive one between requests), which is closed. A client that is
//!   sending or being answered is never cut off to make room, so a panel
//!   keeps working while someone floods the port, and a fresh client gets
//!   in at once rather than after a timeout. Only when every connection has
//!   a request in flight is a new one refused: `503` with
//!   `Connection: close` (over HTTPS, closed without an answer: there is no
//!   session to answer in yet).
//! - **The peer's address** is given to the router as
//!   `ConnectInfo<SocketAddr>`, as `into_make_service_with_connect_info`
//!   does, for the login rate limit ([`super::limit`]).
//! - **HTTPS** when `[web] tls_cert` and `tls_key` are set ([`tls_acceptor`]):
//!   rustls with the ring backend (no cmake or assembler to build it).
//! - **Graceful shutdown**: stop accepting, let requests in flight finish
//!   for up to [`SHUTDOWN_GRACE`], then close what is left.
//!
//! One concern, in one file a little over 700 lines: each piece above works
//! on the same table of open connections.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use axum::http::Request;
use hyper::body::{Body as HttpBody, Frame, Incoming, SizeHint};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt as _;

use crate::config::TlsFiles;

/// How long a new connection has to send its first byte (over HTTPS: to
/// finish the handshake and send its first request byte). A tablet on a
/// weak Wi-Fi needs well under a second for either.
pub const FIRST_BYTE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a request's head may take from its first byte to its blank
/// line: a slow client's head is a few hundred bytes.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

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
/// it. Written straight to the socket: the connection gets no task.
const FULL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\n\
Content-Type: application/json\r\n\
Retry-After: 5\r\n\
Connection: close\r\n\
Content-Length: 67\r\n\
\r\n\
{\"error\":\"too many connections to the lane: try again in a moment\"}";

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

// ----- HTTPS ------------------------------------------------------------------

/// Why HTTPS cannot be served with the configured files.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot read {}: {source}", .path.display())]
    Read { path: PathBuf, source: io::Error },
    #[error("{} holds no certificate in PEM form", .0.display())]
    NoCertificate(PathBuf),
    #[error("{} holds no private key in PEM form", .0.display())]
    NoKey(PathBuf),
    #[error("cannot serve HTTPS with {} and {}: {source}", .cert.display(), .key.display())]
    Rejected {
        cert: PathBuf,
        key: PathBuf,
        source: rustls::Error,
    },
}

/// The TLS side of the server for the certificate chain and key in `files`.
pub fn tls_acceptor(files: &TlsFiles) -> Result<TlsAcceptor, TlsError> {
    let read = |path: &PathBuf| {
        std::fs::read(path).map_err(|source| TlsError::Read {
            path: path.clone(),
            source,
        })
    };
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&read(&files.cert)?)
        .collect::<Result<_, _>>()
        .map_err(|_| TlsError::NoCertificate(files.cert.clone()))?;
    if certs.is_empty() {
        return Err(TlsError::NoCertificate(files.cert.clone()));
    }
    let key = PrivateKeyDer::from_pem_slice(&read(&files.key)?)
        .map_err(|_| TlsError::NoKey(files.key.clone()))?;
    let rejected = |source| TlsError::Rejected {
        cert: files.cert.clone(),
        key: files.key.clone(),
        source,
    };
    // The provider is named here rather than taken from the process's
    // default, which another crate could set differently.
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(rejected)?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(rejected)?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

// ----- connections ------------------------------------------------------------

/// What the server knows of one open connection.
struct Conn {
    peer: SocketAddr,
    state: Mutex<ConnState>,
    /// Wakes the connection's task: its deadline may have moved.
    changed: Notify,
    /// Tells the connection's task to close now: a newer connection took
    /// its place.
    evict: Notify,
}

struct ConnState {
    /// Requests being answered (their response bodies not yet dropped).
    busy: usize,
    /// When the connection last had no request in flight (its accept, or
    /// the end of its last answer).
    idle_since: Instant,
    /// When the first byte of the next request's head came, while idle.
    head_started: Option<Instant>,
    /// Whether a request has begun: a connection's first request must
    /// start within the first-byte timeout, a later one within the idle
    /// timeout.
    served: bool,
}

impl Conn {
    fn new(peer: SocketAddr) -> Conn {
        Conn {
            peer,
            state: Mutex::new(ConnState {
                busy: 0,
                idle_since: Instant::now(),
                head_started: None,
                served: false,
            }),
            changed: Notify::new(),
            evict: Notify::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, ConnState> {
        // The state is a few numbers, always whole: a panic elsewhere
        // cannot leave it half-changed.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// When the connection is to be closed, if nothing happens meanwhile;
    /// `None` while a request is in flight.
    fn deadline(&self, limits: &Limits) -> Option<Instant> {
        let s = self.lock();
        if s.busy > 0 {
            return None;
        }
        Some(match s.head_started {
            Some(at) => at + limits.header,
            None if s.served => s.idle_since + limits.idle,
            None => s.idle_since + limits.first_byte,
        })
    }

    /// Since when the connection has had no request in flight, if so.
    fn idle_since(&self) -> Option<Instant> {
        let s = self.lock();
        (s.busy == 0).then_some(s.idle_since)
    }

    /// Bytes came in: while no request is in flight, they begin a head.
    fn read_some(&self) {
        let mut s = self.lock();
        if s.busy == 0 && s.head_started.is_none() {
            s.head_started = Some(Instant::now());
            drop(s);
            self.changed.notify_one();
        }
    }

    /// A request's head is complete: it is in flight until its response
    /// body is dropped (sent or abandoned).
    fn begin(self: &Arc<Self>) -> Busy {
        let mut s = self.lock();
        s.busy += 1;
        s.head_started = None;
        s.served = true;
        drop(s);
        self.changed.notify_one();
        Busy(Arc::clone(self))
    }
}

/// A request in flight on a connection.
struct Busy(Arc<Conn>);

impl Drop for Busy {
    fn drop(&mut self) {
        let mut s = self.0.lock();
        s.busy = s.busy.saturating_sub(1);
        if s.busy == 0 {
            s.idle_since = Instant::now();
        }
        drop(s);
        self.0.changed.notify_one();
    }
}

/// A response body that keeps its request in flight until it is dropped.
struct Tracked {
    body: Body,
    _busy: Busy,
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A connection's stream that tells its [`Conn`] when bytes come in.
struct Watched<IO> {
    io: IO,
    conn: Arc<Conn>,
}

impl<IO: AsyncRead + Unpin> AsyncRead for Watched<IO> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.conn.read_some();
        }
        polled
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Watched<IO> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// The open connections, for the cap.
#[derive(Default)]
struct Registry {
    conns: Mutex<HashMap<u64, Arc<Conn>>>,
    next: AtomicU64,
}

impl Registry {
    fn lock(&self) -> MutexGuard<'_, HashMap<u64, Arc<Conn>>> {
        self.conns.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes room for `conn` under `cap` by closing the connection idle
    /// longest, and registers it; `None` if every connection is busy.
    fn admit(&self, conn: &Arc<Conn>, cap: usize) -> Option<u64> {
        let mut conns = self.lock();
        while conns.len() >= cap {
            let oldest = conns
                .iter()
                .filter_map(|(id, c)| c.idle_since().map(|since| (since, *id)))
                .min();
            let (_, id) = oldest?;
            if let Some(old) = conns.remove(&id) {
                tracing::debug!(peer = %old.peer, "closing an idle connection to make room");
                old.evict.notify_one();
            }
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        conns.insert(id, Arc::clone(conn));
        Some(id)
    }

    fn len(&self) -> usize {
        self.lock().len()
    }
}

/// Takes a connection out of the registry when its task ends, however it
/// ends (closed, timed out, aborted at shutdown).
struct Registered {
    registry: Arc<Registry>,
    id: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.registry.lock().remove(&self.id);
    }
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
                            "every connection has a request in flight: refusing new ones"
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
    let service = hyper::service::service_fn(move |mut req: Request<Incoming>| {
        // What `into_make_service_with_connect_info` gives each request.
        req.extensions_mut().insert(ConnectInfo(peer));
        let busy = on_request.begin();
        let app = app.clone();
        async move {
            let Ok(res) = app.oneshot(req).await;
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

    fn peer() -> SocketAddr {
        "127.0.0.1:1".parse().unwrap()
    }

    #[test]
    fn a_full_registry_closes_the_longest_idle_and_never_a_busy_one() {
        let registry = Registry::default();
        let busy = Arc::new(Conn::new(peer()));
        let _in_flight = busy.begin();
        let idle_old = Arc::new(Conn::new(peer()));
        std::thread::sleep(Duration::from_millis(2));
        let idle_new = Arc::new(Conn::new(peer()));
        // The busy one is the oldest of all, yet it stays.
        registry.admit(&busy, 3).unwrap();
        let old_id = registry.admit(&idle_old, 3).unwrap();
        registry.admit(&idle_new, 3).unwrap();
        let fresh = Arc::new(Conn::new(peer()));
        registry.admit(&fresh, 3).unwrap();
        let conns = registry.lock();
        assert_eq!(conns.len(), 3);
        assert!(!conns.contains_key(&old_id), "the longest idle went");
        drop(conns);

        let full = Registry::default();
        let a = Arc::new(Conn::new(peer()));
        let _a = a.begin();
        full.admit(&a, 1).unwrap();
        assert!(full.admit(&Arc::new(Conn::new(peer())), 1).is_none());
    }

    #[test]
    fn deadlines_follow_the_connection() {
        let limits = Limits::new(8);
        let conn = Arc::new(Conn::new(peer()));
        let accepted = conn.lock().idle_since;
        assert_eq!(conn.deadline(&limits), Some(accepted + FIRST_BYTE_TIMEOUT));
        conn.read_some();
        let head = conn.lock().head_started.unwrap();
        assert_eq!(conn.deadline(&limits), Some(head + HEADER_TIMEOUT));
        let busy = conn.begin();
        assert_eq!(conn.deadline(&limits), None, "no limit in flight");
        conn.read_some();
        assert_eq!(conn.lock().head_started, None, "a body is not a head");
        drop(busy);
        let idle = conn.lock().idle_since;
        assert_eq!(conn.deadline(&limits), Some(idle + IDLE_TIMEOUT));
    }
}

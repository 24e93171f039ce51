//! The table of open connections: what the server knows of each (whether a
//! request is in flight, whether the server waits on the client, when the
//! client last sent a byte), their deadlines, and which one makes room for
//! a newcomer when the table is full.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;

use super::Limits;
use super::cap::Capped;

/// What the server knows of one open connection.
pub(super) struct Conn {
    pub(super) peer: SocketAddr,
    state: Mutex<ConnState>,
    /// Wakes the connection's task: its deadline may have moved.
    pub(super) changed: Notify,
    /// Tells the connection's task to close now: a newer connection took
    /// its place.
    pub(super) evict: Notify,
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
    /// When the client last sent a byte (head or body); its accept before.
    last_byte: Instant,
    /// The request body the server is waiting for, if any.
    body: Option<BodyWait>,
}

/// A request body being read: the server waits on the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BodyWait {
    /// When the server began to read it.
    since: Instant,
    /// Its bytes so far.
    received: u64,
}

impl Conn {
    pub(super) fn new(peer: SocketAddr) -> Conn {
        let now = Instant::now();
        Conn {
            peer,
            state: Mutex::new(ConnState {
                busy: 0,
                idle_since: now,
                head_started: None,
                served: false,
                last_byte: now,
                body: None,
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
    /// `None` while a request is in flight (a body's own deadline is kept
    /// by its reader, [`super::body::Timed`], which answers `408`).
    pub(super) fn deadline(&self, limits: &Limits) -> Option<Instant> {
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

    /// When the body being read must be complete by, if nothing more
    /// comes: [`Limits::body`] after its last byte (or after the server
    /// began to read it), and no later than [`Limits::body`] after it
    /// began plus a second for each [`Limits::body_rate`] bytes received.
    /// `None` when no body is being read.
    pub(super) fn body_deadline(&self, limits: &Limits) -> Option<Instant> {
        let s = self.lock();
        let body = s.body?;
        let gap = s.last_byte.max(body.since) + limits.body;
        let credit = Duration::from_secs_f64(body.received as f64 / limits.body_rate.max(1) as f64);
        Some(gap.min(body.since + limits.body + credit))
    }

    /// When the server last heard from the client while waiting on it: its
    /// last byte, or when the server began to wait (the end of its last
    /// answer; the start of a body's read). `None` while the server is the
    /// one to act: a request being handled or answered.
    pub(super) fn last_heard(&self) -> Option<Instant> {
        let s = self.lock();
        if s.busy == 0 {
            Some(s.last_byte.max(s.idle_since))
        } else {
            s.body.map(|b| s.last_byte.max(b.since))
        }
    }

    /// Bytes came in: while no request is in flight, they begin a head.
    pub(super) fn read_some(&self) {
        let mut s = self.lock();
        s.last_byte = Instant::now();
        if s.busy == 0 && s.head_started.is_none() {
            s.head_started = Some(s.last_byte);
            drop(s);
            self.changed.notify_one();
        }
    }

    /// A request's head is complete: it is in flight until its response
    /// body is dropped (sent or abandoned).
    pub(super) fn begin(self: &Arc<Self>) -> Busy {
        let mut s = self.lock();
        s.busy += 1;
        s.head_started = None;
        s.served = true;
        drop(s);
        self.changed.notify_one();
        Busy(Arc::clone(self))
    }

    /// The server reads a request's body: it waits on the client.
    pub(super) fn body_read(&self) {
        let mut s = self.lock();
        if s.body.is_none() {
            s.body = Some(BodyWait {
                since: Instant::now(),
                received: 0,
            });
        }
    }

    /// `n` bytes of the body came.
    pub(super) fn body_received(&self, n: usize) {
        let mut s = self.lock();
        if let Some(body) = &mut s.body {
            body.received = body.received.saturating_add(n as u64);
        }
    }

    /// The body is read whole, failed, or is no longer read.
    pub(super) fn body_ended(&self) {
        self.lock().body = None;
    }
}

/// A request in flight on a connection.
pub(super) struct Busy(Arc<Conn>);

impl Drop for Busy {
    fn drop(&mut self) {
        let mut s = self.0.lock();
        s.busy = s.busy.saturating_sub(1);
        if s.busy == 0 {
            s.idle_since = Instant::now();
            s.body = None;
        }
        drop(s);
        self.0.changed.notify_one();
    }
}

/// A response body that keeps its request in flight until it is dropped.
pub(super) struct Tracked {
    pub(super) body: Body,
    pub(super) _busy: Busy,
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
pub(super) struct Watched<IO> {
    pub(super) io: IO,
    pub(super) conn: Arc<Conn>,
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

/// The open connections, under the cap ([`super::cap`]).
#[derive(Default)]
pub(super) struct Registry {
    conns: Mutex<Capped<Arc<Conn>>>,
}

impl Registry {
    fn lock(&self) -> MutexGuard<'_, Capped<Arc<Conn>>> {
        self.conns.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes room for `conn` under `cap` by closing the connection the
    /// server has heard from least recently while waiting on it (see
    /// [`Conn::last_heard`]), and registers it; `None` if the server is
    /// handling or answering a request on every connection.
    pub(super) fn admit(&self, conn: &Arc<Conn>, cap: usize) -> Option<u64> {
        let admitted = self
            .lock()
            .admit(Arc::clone(conn), cap, |_, c| c.last_heard())?;
        for old in admitted.evicted {
            tracing::debug!(peer = %old.peer, "closing the connection heard from least recently to make room");
            old.evict.notify_one();
        }
        Some(admitted.id)
    }

    pub(super) fn len(&self) -> usize {
        self.lock().len()
    }
}

/// Takes a connection out of the registry when its task ends, however it
/// ends (closed, timed out, aborted at shutdown).
pub(super) struct Registered {
    pub(super) registry: Arc<Registry>,
    pub(super) id: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.registry.lock().remove(self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FIRST_BYTE_TIMEOUT, HEADER_TIMEOUT, IDLE_TIMEOUT};
    use super::*;

    fn peer() -> SocketAddr {
        "127.0.0.1:1".parse().unwrap()
    }

    /// A connection whose last byte came `ago` before now.
    fn heard(ago: Duration) -> Arc<Conn> {
        let conn = Arc::new(Conn::new(peer()));
        let at = Instant::now() - ago;
        let mut s = conn.lock();
        s.idle_since = at;
        s.last_byte = at;
        drop(s);
        conn
    }

    #[test]
    fn a_full_registry_closes_the_longest_silent_and_never_one_being_answered() {
        let registry = Registry::default();
        // Being answered, and silent longest of all: it stays.
        let busy = heard(Duration::from_secs(60));
        let _in_flight = busy.begin();
        let idle_old = heard(Duration::from_secs(5));
        let idle_new = heard(Duration::from_secs(1));
        registry.admit(&busy, 3).unwrap();
        let old_id = registry.admit(&idle_old, 3).unwrap();
        registry.admit(&idle_new, 3).unwrap();
        let fresh = Arc::new(Conn::new(peer()));
        registry.admit(&fresh, 3).unwrap();
        let mut conns = registry.lock();
        assert_eq!(conns.len(), 3);
        assert!(conns.get_mut(old_id).is_none(), "the longest silent went");
        drop(conns);

        let full = Registry::default();
        let a = Arc::new(Conn::new(peer()));
        let _a = a.begin();
        full.admit(&a, 1).unwrap();
        assert!(full.admit(&Arc::new(Conn::new(peer())), 1).is_none());
    }

    #[test]
    fn a_trickling_body_is_evicted_before_a_judge_sending_at_a_normal_rate() {
        let registry = Registry::default();
        // Mid-body, its last byte 2 s ago: the server waits on it.
        let trickler = heard(Duration::from_secs(2));
        let _t = trickler.begin();
        trickler.body_read();
        trickler.lock().body.as_mut().unwrap().since = Instant::now() - Duration::from_secs(3);
        // A judge mid-body whose bytes come now.
        let judge = heard(Duration::from_secs(30));
        let _j = judge.begin();
        judge.body_read();
        judge.read_some();
        let trickler_id = registry.admit(&trickler, 2).unwrap();
        let judge_id = registry.admit(&judge, 2).unwrap();
        assert!(registry.admit(&Arc::new(Conn::new(peer())), 2).is_some());
        let mut conns = registry.lock();
        assert!(conns.get_mut(trickler_id).is_none(), "the trickler went");
        assert!(conns.get_mut(judge_id).is_some(), "the judge stays");
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
        assert_eq!(conn.deadline(&limits), None, "the body has its own");
        assert_eq!(conn.last_heard(), None, "handled: not to be evicted");
        conn.read_some();
        assert_eq!(conn.lock().head_started, None, "a body is not a head");
        drop(busy);
        let idle = conn.lock().idle_since;
        assert_eq!(conn.deadline(&limits), Some(idle + IDLE_TIMEOUT));
    }

    #[test]
    fn a_body_must_keep_coming_and_at_the_least_rate() {
        let limits = Limits::new(8);
        let conn = Arc::new(Conn::new(peer()));
        let _busy = conn.begin();
        assert_eq!(conn.body_deadline(&limits), None, "not read yet");
        conn.body_read();
        let since = conn.lock().body.unwrap().since;
        assert_eq!(conn.body_deadline(&limits), Some(since + limits.body));
        assert_eq!(
            conn.last_heard(),
            Some(since),
            "waited on since the read began"
        );
        // A stall after much: the gap since its last byte decides.
        conn.body_received(1 << 20);
        let last = since + Duration::from_secs(3);
        conn.lock().last_byte = last;
        assert_eq!(conn.body_deadline(&limits), Some(last + limits.body));
        assert_eq!(conn.last_heard(), Some(last));
        // A trickle: its bytes buy a second per body_rate bytes.
        let trickle = Arc::new(Conn::new(peer()));
        let _busy = trickle.begin();
        trickle.body_read();
        let since = trickle.lock().body.unwrap().since;
        trickle.body_received(limits.body_rate as usize * 2);
        trickle.lock().last_byte = since + Duration::from_secs(9);
        assert_eq!(
            trickle.body_deadline(&limits),
            Some(since + limits.body + Duration::from_secs(2))
        );
        trickle.body_ended();
        assert_eq!(trickle.body_deadline(&limits), None);
    }
}

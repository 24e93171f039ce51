//! A request's body with a deadline: read through [`Timed`], which counts
//! its bytes on the connection and fails the read when the body comes too
//! slowly ([`super::Conn::body_deadline`]); the server then answers `408`
//! ([`too_slow`]) and closes the connection.

use std::future::Future as _;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::http::{StatusCode, header};
use axum::response::Response;
use hyper::body::{Body as HttpBody, Frame, Incoming, SizeHint};
use tokio::time::Sleep;

use super::Limits;
use super::conn::Conn;

/// Why a body's read failed: it came too slowly.
#[derive(Debug, thiserror::Error)]
#[error("the request body came too slowly")]
pub struct TooSlow;

/// A request body whose read the connection's deadline bounds.
pub(super) struct Timed {
    inner: Incoming,
    conn: Arc<Conn>,
    limits: Limits,
    timer: Option<Pin<Box<Sleep>>>,
    /// Set when the deadline passed: the answer is then `408`.
    timed_out: Arc<AtomicBool>,
    done: bool,
}

impl Timed {
    pub(super) fn new(
        inner: Incoming,
        conn: Arc<Conn>,
        limits: Limits,
        timed_out: Arc<AtomicBool>,
    ) -> Timed {
        Timed {
            inner,
            conn,
            limits,
            timer: None,
            timed_out,
            done: false,
        }
    }

    fn end(&mut self) {
        self.done = true;
        self.conn.body_ended();
    }
}

impl HttpBody for Timed {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::BoxError>>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        this.conn.body_read();
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.conn.body_received(data.len());
                }
                if this.inner.is_end_stream() {
                    this.end();
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => {
                this.end();
                Poll::Ready(Some(Err(e.into())))
            }
            Poll::Ready(None) => {
                this.end();
                Poll::Ready(None)
            }
            Poll::Pending => {
                let Some(at) = this.conn.body_deadline(&this.limits) else {
                    return Poll::Pending;
                };
                let at = tokio::time::Instant::from_std(at);
                let timer = this
                    .timer
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(at)));
                if timer.deadline() != at {
                    timer.as_mut().reset(at);
                }
                if timer.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                tracing::debug!(peer = %this.conn.peer, "a request body came too slowly");
                this.timed_out.store(true, Ordering::Relaxed);
                this.end();
                Poll::Ready(Some(Err(TooSlow.into())))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Timed {
    fn drop(&mut self) {
        if !self.done {
            self.conn.body_ended();
        }
    }
}

/// The answer to a request whose body came too slowly; the connection is
/// closed after it.
pub(super) fn too_slow(limits: &Limits) -> Response {
    let message = format!(
        "the request body came too slowly: a body must keep coming (a byte at least every {:?}) \
         and at {} bytes a second or more after its first {:?}",
        limits.body, limits.body_rate, limits.body
    );
    let body = serde_json::json!({ "error": message }).to_string();
    let mut res = Response::new(Body::from(body));
    *res.status_mut() = StatusCode::REQUEST_TIMEOUT;
    let headers = res.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    headers.insert(
        header::CONNECTION,
        header::HeaderValue::from_static("close"),
    );
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_says_what_a_body_must_do() {
        let res = too_slow(&Limits::new(8));
        assert_eq!(res.status(), StatusCode::REQUEST_TIMEOUT);
        assert_eq!(res.headers()[header::CONNECTION], "close");
    }
}

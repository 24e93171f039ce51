//! One connection's publishes: each one's PUBACK matched to what it was
//! (`publishing.rs` keeps them), and the event loop polled by a task of
//! its own.

use std::collections::{HashMap, VecDeque};

use rumqttc::{ConnectionError, Event, EventLoop};
use tokio::sync::mpsc;

/// What a publish sent on the connection was, to match its PUBACK.
#[derive(Clone, Copy)]
pub(super) enum Tag {
    /// A journal line, by its id in [`super::lines::Lines`].
    Line(u64),
    Other,
}

/// The publishes of one connection, to match PUBACKs to journal lines.
#[derive(Default)]
pub(super) struct Wire {
    /// Publishes handed to the client, not yet written (in order).
    pub(super) queued: VecDeque<Tag>,
    /// Publishes written and not yet acknowledged, by packet id.
    pub(super) unacked: HashMap<u16, Tag>,
}

impl Wire {
    pub(super) fn in_flight(&self) -> usize {
        self.queued.len() + self.unacked.len()
    }
}

/// The event loop's events, as its task hands them over.
pub(super) type Events = mpsc::Receiver<Result<Event, ConnectionError>>;

/// Polls the event loop until the connection ends or nobody listens.
pub(super) async fn poll(mut events: EventLoop, to: mpsc::Sender<Result<Event, ConnectionError>>) {
    loop {
        let ev = events.poll().await;
        let end = ev.is_err();
        if to.send(ev).await.is_err() || end {
            return;
        }
    }
}

pub(super) struct AbortOnDrop(pub(super) tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

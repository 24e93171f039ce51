//! `GET /api/events`: the lane as Server-Sent Events, so a panel sees each
//! change as it happens instead of polling.
//!
//! On connect the client gets one `lane` event with the current snapshot
//! (the same text as `GET /api/lane`, its `id` the snapshot's version), then
//! one `lane` event per new version. A slow client is never queued up: it
//! gets the latest snapshot when it catches up, never a backlog. A comment
//! line every [`KEEP_ALIVE`] keeps proxies and the browser from closing an
//! idle stream. The stream ends when the lane's thread stops publishing
//! (the daemon is stopping), so a graceful shutdown is not held up.

use std::convert::Infallible;
use std::time::Duration;

use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::stream::{self, Stream, StreamExt};
use tokio::sync::watch;

use crate::ports::LaneSnapshot;

/// How often an idle stream gets a keep-alive comment.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The SSE event name of a snapshot.
pub const LANE_EVENT: &str = "lane";

fn lane_event(snapshot: &LaneSnapshot) -> Event {
    // A number has no line break and the JSON is on one line; `data`
    // splits any line break into more `data:` lines rather than failing.
    Event::default()
        .event(LANE_EVENT)
        .id(snapshot.version.to_string())
        .data(&*snapshot.json)
}

/// The lane's snapshots as events: the current one, then each new one.
pub fn snapshots(
    mut lane: watch::Receiver<LaneSnapshot>,
) -> impl Stream<Item = Result<Event, Infallible>> + Send + 'static {
    let first = lane.borrow_and_update().clone();
    let first_event = lane_event(&first);
    let rest = stream::unfold((lane, first.version), |(mut lane, last)| async move {
        loop {
            // An error: the sender is gone, the lane has stopped.
            lane.changed().await.ok()?;
            let snapshot = lane.borrow_and_update().clone();
            if snapshot.version != last {
                let event = lane_event(&snapshot);
                return Some((Ok(event), (lane, snapshot.version)));
            }
        }
    });
    stream::once(async move { Ok(first_event) }).chain(rest)
}

/// The SSE answer for a client. `held` (a live view's permit) is kept as
/// long as the stream, and dropped when the client goes or the lane stops.
pub fn sse(
    lane: watch::Receiver<LaneSnapshot>,
    held: impl Send + Sync + 'static,
) -> Sse<impl Stream<Item = Result<Event, Infallible>> + Send + 'static> {
    let stream = snapshots(lane).map(move |event| {
        let _ = &held;
        event
    });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
}

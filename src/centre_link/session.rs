//! One connection to the broker after another: connecting, with a
//! backoff after a loss; the loop that publishes the status, the state,
//! replies and the journal's lines as far as the window allows; the
//! connection's events (PUBACKs, commands, the centre's time, the
//! neighbours' states); and the clean stop, `offline` last.

use std::io;
use std::path::PathBuf;

use rumqttc::{AsyncClient, Event, Incoming, Outgoing, QoS};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::neighbours::delivering;
use super::ran::Ran;
use super::wire::{AbortOnDrop, Events, Tag, Wire, poll, publish};
use super::{
    BACKOFF_MAX, BACKOFF_MIN, CONNECT_TIMEOUT_S, End, Link, MAX_OUTBOX, NEIGHBOUR_TTL, STATE_AGAIN,
    STATE_DELIVERING, STATE_EVERY, STOP_WAIT, WINDOW, command, resend,
};

impl Link {
    pub(super) async fn run(mut self) {
        self.ran = resend::day_journals(&self.journal_dir, None)
            .and_then(|files| {
                let paths: Vec<PathBuf> = files.into_iter().map(|(p, _)| p).collect();
                Ran::from_journals(&paths)
            })
            .unwrap_or_else(|e| {
                tracing::warn!("centre link: cannot read the command ids journaled: {e}");
                Ran::default()
            });
        let mut backoff = BACKOFF_MIN;
        let mut said: Option<String> = None;
        loop {
            match self.session().await {
                End::Stopped => return,
                End::Lost { connected, error } => {
                    self.all_neighbours_clear().await;
                    if connected {
                        backoff = BACKOFF_MIN;
                        said = None;
                    }
                    // Once per kind of failure, not once per retry.
                    let text = error.to_string();
                    if said.as_deref() != Some(&text) {
                        tracing::warn!(
                            "centre link: {}:{}: {text}; trying again, every {} s at the most",
                            self.options.broker_address().0,
                            self.options.broker_address().1,
                            BACKOFF_MAX.as_secs()
                        );
                        said = Some(text);
                    }
                    let mut stopped = self.stopped.clone();
                    tokio::select! {
                        () = tokio::time::sleep(backoff) => {}
                        _ = stopped.wait_for(|s| *s) => return,
                    }
                    backoff = (backoff * 2).min(BACKOFF_MAX);
                }
            }
        }
    }

    /// One connection, from connecting to losing it or the stop.
    async fn session(&mut self) -> End {
        let (client, mut eventloop) = AsyncClient::new(self.options.clone(), 4 * WINDOW);
        eventloop
            .network_options
            .set_connection_timeout(CONNECT_TIMEOUT_S);
        // The event loop is polled by a task of its own, so that nothing
        // here ever cancels it halfway through a packet.
        let (events_tx, mut events) = mpsc::channel(4 * WINDOW);
        let poller = tokio::spawn(poll(eventloop, events_tx));
        let _poller = AbortOnDrop(poller);
        let mut stopped = self.stopped.clone();
        loop {
            tokio::select! {
                ev = events.recv() => match ev {
                    Some(Ok(Event::Incoming(Incoming::ConnAck(_)))) => break,
                    Some(Ok(_)) => {}
                    Some(Err(error)) => return End::Lost { connected: false, error },
                    None => return End::Stopped,
                },
                _ = stopped.wait_for(|s| *s) => return End::Stopped,
            }
        }
        tracing::info!(
            "centre link: connected to {}:{}",
            self.options.broker_address().0,
            self.options.broker_address().1
        );
        let mut wire = Wire::default();
        publish(
            &client,
            &mut wire,
            &self.topics.status,
            true,
            "online",
            Tag::Other,
        );
        let _ = client.try_subscribe(&self.topics.command, QoS::AtLeastOnce);
        let _ = client.try_subscribe(&self.topics.centre_time, QoS::AtLeastOnce);
        for topic in self.neighbour_topics.keys() {
            let _ = client.try_subscribe(topic, QoS::AtLeastOnce);
        }
        self.lines.rewind();
        let mut state_sent: Option<Instant> = None;
        let mut state_due = true;
        let mut lane_gone = false;
        loop {
            if let Err(e) = self.pump(&client, &mut wire) {
                tracing::warn!("centre link: cannot read the journal: {e}");
            }
            let now = Instant::now();
            let again_every = if self.delivering {
                STATE_DELIVERING
            } else {
                STATE_AGAIN
            };
            if std::mem::take(&mut self.state_asked)
                || state_sent.is_some_and(|t| now >= t + again_every)
            {
                state_due = true;
            }
            let state_at = state_sent.map_or(now, |t| t + STATE_EVERY);
            let state_again = state_sent.map_or(now, |t| t + again_every);
            let neighbour_due = self.busy_until.values().min().copied();
            let resend_at = self.resends.wake_at();
            if state_due && now >= state_at && wire.in_flight() < 2 * WINDOW {
                let json = self.state.borrow_and_update().json.clone();
                self.delivering = delivering(json.as_bytes());
                if publish(
                    &client,
                    &mut wire,
                    &self.topics.state,
                    true,
                    json.as_bytes(),
                    Tag::Other,
                ) {
                    state_due = false;
                    state_sent = Some(now);
                }
            }
            tokio::select! {
                ev = events.recv() => match ev {
                    Some(Ok(ev)) => self.event(ev, &mut wire).await,
                    Some(Err(error)) => return End::Lost { connected: true, error },
                    None => return End::Stopped,
                },
                () = self.slot.changed() => {
                    if let Some((path, len)) = self.slot.take() {
                        self.lines.notified(path, len);
                    }
                }
                changed = self.state.changed(), if !lane_gone => match changed {
                    Ok(()) => state_due = true,
                    Err(_) => lane_gone = true,
                },
                () = tokio::time::sleep_until(state_at), if state_due => {}
                () = tokio::time::sleep_until(state_again), if !state_due => {}
                () = tokio::time::sleep_until(resend_at.map_or(now, Instant::from_std)),
                    if resend_at.is_some() => {}
                () = tokio::time::sleep_until(neighbour_due.unwrap_or(now)),
                    if neighbour_due.is_some() => self.neighbours_expired().await,
                Some(answer) = self.replies.recv() => {
                    if !answer.journaled {
                        self.ran.forget(&answer.id);
                    }
                    self.answer(Some(&answer.id), answer.result);
                }
                _ = stopped.wait_for(|s| *s) => {
                    self.goodbye(&client, &mut events, &mut wire).await;
                    return End::Stopped;
                }
            }
        }
    }

    /// Publishes what is waiting, as far as the window allows: replies,
    /// then the journal's new lines, then lines asked for again.
    fn pump(&mut self, client: &AsyncClient, wire: &mut Wire) -> io::Result<()> {
        while let Some(reply) = self.outbox.front() {
            if wire.in_flight() >= 2 * WINDOW
                || !publish(
                    client,
                    wire,
                    &self.topics.reply,
                    false,
                    reply.as_bytes(),
                    Tag::Other,
                )
            {
                break;
            }
            self.outbox.pop_front();
        }
        if let Some((path, len)) = self.slot.take() {
            self.lines.notified(path, len);
        }
        let room = WINDOW.saturating_sub(wire.in_flight());
        for (id, line) in self.lines.next(room)? {
            // The window keeps the client's queue from filling.
            publish(
                client,
                wire,
                &self.topics.journal,
                false,
                line.payload(),
                Tag::Line(id),
            );
        }
        let room = WINDOW.saturating_sub(wire.in_flight());
        for line in self
            .resends
            .next(&self.lines, room, std::time::Instant::now())?
        {
            publish(
                client,
                wire,
                &self.topics.journal,
                false,
                line.payload(),
                Tag::Other,
            );
        }
        Ok(())
    }

    async fn event(&mut self, ev: Event, wire: &mut Wire) {
        match ev {
            Event::Outgoing(Outgoing::Publish(pkid)) => {
                if let Some(tag) = wire.queued.pop_front() {
                    wire.unacked.insert(pkid, tag);
                }
            }
            Event::Incoming(Incoming::PubAck(ack)) => {
                if let Some(Tag::Line(id)) = wire.unacked.remove(&ack.pkid) {
                    self.lines.ack(id);
                }
            }
            Event::Incoming(Incoming::Publish(p)) => {
                if p.topic == self.topics.command && p.retain {
                    // Kept by the broker from some time before: never run,
                    // nor answered (a reply would say it was looked at).
                    tracing::warn!(
                        "centre link: a retained command on {} ignored: commands are never \
                         retained, a retained one is from some time before",
                        self.topics.command
                    );
                } else if p.topic == self.topics.command {
                    self.command(&p.payload).await;
                } else if p.topic == self.topics.centre_time {
                    // A retained copy is from whenever the centre last
                    // published: only a live one says today's date.
                    if !p.retain {
                        self.centre_time(&p.payload).await;
                    }
                } else if let Some(&(lane, is_status)) = self.neighbour_topics.get(&p.topic) {
                    let busy = if is_status {
                        // Online says nothing of delivering: its state does.
                        if &p.payload[..] != b"offline" {
                            return;
                        }
                        false
                    } else {
                        delivering(&p.payload)
                    };
                    if busy {
                        self.busy_until.insert(lane, Instant::now() + NEIGHBOUR_TTL);
                    } else {
                        self.busy_until.remove(&lane);
                    }
                    self.neighbour(lane, busy).await;
                }
            }
            _ => {}
        }
    }

    pub(super) fn answer(&mut self, id: Option<&str>, result: Result<(), String>) {
        if self.outbox.len() >= MAX_OUTBOX {
            self.outbox.pop_front();
            tracing::warn!("centre link: too many replies waiting: the oldest is dropped");
        }
        self.outbox.push_back(command::reply(id, result));
    }

    /// A clean stop: the journal's last lines, then `offline`, then the
    /// goodbye, for at most [`STOP_WAIT`].
    async fn goodbye(&mut self, client: &AsyncClient, events: &mut Events, wire: &mut Wire) {
        let until = Instant::now() + STOP_WAIT;
        let mut offline_sent = false;
        while Instant::now() < until {
            let _ = self.pump(client, wire);
            if !offline_sent && self.lines.in_flight() == 0 {
                publish(
                    client,
                    wire,
                    &self.topics.status,
                    true,
                    "offline",
                    Tag::Other,
                );
                let _ = client.try_disconnect();
                offline_sent = true;
            }
            match tokio::time::timeout_at(until, events.recv()).await {
                Ok(Some(Ok(Event::Outgoing(Outgoing::Disconnect))))
                | Ok(Some(Err(_)) | None)
                | Err(_) => break,
                Ok(Some(Ok(ev))) => {
                    if let Event::Incoming(Incoming::PubAck(ack)) = &ev
                        && let Some(Tag::Line(id)) = wire.unacked.remove(&ack.pkid)
                    {
                        self.lines.ack(id);
                    }
                    if let Event::Outgoing(Outgoing::Publish(pkid)) = ev
                        && let Some(tag) = wire.queued.pop_front()
                    {
                        wire.unacked.insert(pkid, tag);
                    }
                }
            }
        }
        if !offline_sent {
            tracing::warn!("centre link: stopped before the broker took the last lines");
        }
    }
}

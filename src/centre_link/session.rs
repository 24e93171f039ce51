//! One connection to the broker after another: connecting, with a
//! backoff after a loss; the loop that hands the connection's packets,
//! the lane's news and the time to `publishing.rs` and its publishes to
//! the client; the connection's other events (commands, the centre's
//! time, the neighbours' states); and the clean stop, `offline` last.

use rumqttc::{AsyncClient, Event, Incoming, Outgoing, QoS};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::neighbours::delivering;
use super::publishing::Publish;
use super::ran::Ran;
use super::wire::{AbortOnDrop, Events, poll};
use super::{BACKOFF_MAX, BACKOFF_MIN, CONNECT_TIMEOUT_S, End, Link, STOP_WAIT, WINDOW};

/// Hands a publish to the client, QoS 1; false when its queue is full
/// (nothing was queued then).
fn sender(client: &AsyncClient) -> impl FnMut(Publish) -> bool + '_ {
    |p: Publish| {
        client
            .try_publish(p.topic, QoS::AtLeastOnce, p.retain, p.payload)
            .is_ok()
    }
}

impl Link {
    pub(super) async fn run(mut self) {
        self.ran = (self.out.current_journals())
            .and_then(|paths| Ran::from_journals(&paths))
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
        let mut send = sender(&client);
        self.out.connected(&mut send);
        let _ = client.try_subscribe(&self.topics.command, QoS::AtLeastOnce);
        let _ = client.try_subscribe(&self.topics.centre_time, QoS::AtLeastOnce);
        for topic in self.neighbour_topics.keys() {
            let _ = client.try_subscribe(topic, QoS::AtLeastOnce);
        }
        let mut lane_gone = false;
        loop {
            self.pump(&mut send);
            let now = Instant::now();
            let state = &mut self.state;
            let json = || state.borrow_and_update().json.to_string();
            self.out.state(now.into_std(), json, &mut send);
            let wake = Instant::from_std(self.out.wake_at(now.into_std()));
            let neighbour_due = self.neighbours.due().map(Instant::from_std);
            tokio::select! {
                ev = events.recv() => match ev {
                    Some(Ok(ev)) => self.event(ev).await,
                    Some(Err(error)) => return End::Lost { connected: true, error },
                    None => return End::Stopped,
                },
                () = self.slot.changed() => {
                    if let Some((path, len)) = self.slot.take() {
                        self.out.notified(path, len);
                    }
                }
                changed = self.state.changed(), if !lane_gone => match changed {
                    Ok(()) => self.out.state_changed(),
                    Err(_) => lane_gone = true,
                },
                () = tokio::time::sleep_until(wake) => {}
                () = tokio::time::sleep_until(neighbour_due.unwrap_or(now)),
                    if neighbour_due.is_some() => self.neighbours_expired().await,
                Some(answer) = self.replies.recv() => {
                    if !answer.journaled {
                        self.ran.forget(&answer.id);
                    }
                    self.out.answer(Some(&answer.id), answer.result);
                }
                _ = stopped.wait_for(|s| *s) => {
                    self.goodbye(&client, &mut events).await;
                    return End::Stopped;
                }
            }
        }
    }

    /// What is waiting goes out, as far as the window allows (the
    /// lane's newest durable length first).
    fn pump(&mut self, send: &mut impl FnMut(Publish) -> bool) {
        if let Some((path, len)) = self.slot.take() {
            self.out.notified(path, len);
        }
        if let Err(e) = self.out.pump(Instant::now().into_std(), send) {
            tracing::warn!("centre link: cannot read the journal: {e}");
        }
    }

    async fn event(&mut self, ev: Event) {
        self.out.packet(&ev);
        let Event::Incoming(Incoming::Publish(p)) = ev else {
            return;
        };
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
            self.neighbour(lane, busy).await;
        }
    }

    /// A clean stop: the journal's last lines, then `offline`, then the
    /// goodbye, for at most [`STOP_WAIT`].
    async fn goodbye(&mut self, client: &AsyncClient, events: &mut Events) {
        let until = Instant::now() + STOP_WAIT;
        let mut offline_sent = false;
        let mut send = sender(client);
        while Instant::now() < until {
            self.pump(&mut send);
            if !offline_sent && self.out.lines_in_flight() == 0 {
                self.out.offline(&mut send);
                let _ = client.try_disconnect();
                offline_sent = true;
            }
            match tokio::time::timeout_at(until, events.recv()).await {
                Ok(Some(Ok(Event::Outgoing(Outgoing::Disconnect))))
                | Ok(Some(Err(_)) | None)
                | Err(_) => break,
                Ok(Some(Ok(ev))) => self.out.packet(&ev),
            }
        }
        if !offline_sent {
            tracing::warn!("centre link: stopped before the broker took the last lines");
        }
    }
}

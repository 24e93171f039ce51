//! The centre's MQTT client: one connection (client id: its login name,
//! else `lanecall-centre-<site>`; persistent session), QoS 1 subscriptions to
//! every lane's status, state, journal and reply topics, and its own
//! status with a last will. Each message is checked and handed on: status
//! and state to the [`Book`], journal lines to the mirror's thread,
//! replies to the [`Commands`]. Every [`TIME_EVERY`] it publishes its clock
//! (`centre/time`, retained) and whether a time service has synchronised
//! it: a lane whose clock is not synchronised takes the competition day's
//! date from it (docs/mqtt.md). A lost broker is tried again with a
//! backoff (0.5 s doubling to 30 s); it never holds up the web server,
//! which only reads the book.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rumqttc::{AsyncClient, Event, EventLoop, LastWill, MqttOptions, Packet, QoS, Transport};
use tokio::sync::{mpsc, watch};

use super::MAX_PAYLOAD;
use super::book::Book;
use super::commands::Commands;
use super::mirror::{ToMirror, check_journal};
use crate::mqtt::{BrokerUrl, client_id, topic};

/// How often the centre publishes its clock.
pub const TIME_EVERY: Duration = Duration::from_secs(15);

/// The `centre/time` payload: the centre's clock now, and whether a time
/// service has synchronised it (only then do lanes take its date).
pub fn time_payload(wall: crate::wall::WallTime, sync: &crate::clock_sync::ClockSync) -> String {
    use crate::clock_sync::ClockSync;
    let v = match sync {
        ClockSync::Synchronised { by } => {
            serde_json::json!({"wall": wall.to_string(), "synchronised": true, "by": by})
        }
        ClockSync::Unsynchronised { why } => {
            serde_json::json!({"wall": wall.to_string(), "synchronised": false, "why": why})
        }
        ClockSync::NoService => serde_json::json!({
            "wall": wall.to_string(),
            "synchronised": false,
            "why": "no time service (chrony or systemd-timesyncd) on the centre",
        }),
    };
    v.to_string()
}

/// What the link needs to connect.
pub struct LinkSettings {
    pub broker: BrokerUrl,
    /// Plain TCP, or TLS for an `mqtts://` broker.
    pub transport: Transport,
    pub site: String,
    pub username: Option<String>,
    pub password: Option<String>,
    /// The embedded broker's count of how far this link is behind the
    /// lanes (`None` with another broker).
    pub backlog: Option<Arc<super::broker::backlog::Backlog>>,
}

/// The client and its event loop, not yet polled.
pub fn client(s: &LinkSettings) -> (AsyncClient, EventLoop) {
    let id = client_id::of_link(
        s.username.as_deref(),
        client_id::centre_without_login(&s.site),
    );
    let mut opts = MqttOptions::new(id, &s.broker.host, s.broker.port);
    opts.set_transport(s.transport.clone())
        .set_clean_session(false)
        .set_keep_alive(Duration::from_secs(10))
        .set_max_packet_size(MAX_PAYLOAD + 1024, MAX_PAYLOAD + 1024)
        .set_last_will(LastWill::new(
            topic::centre_status(&s.site),
            "offline",
            QoS::AtLeastOnce,
            true,
        ));
    if let Some(user) = &s.username {
        opts.set_credentials(user, s.password.clone().unwrap_or_default());
    }
    AsyncClient::new(opts, 1024)
}

/// Which lane (`None`: not a lane number) and topic kind a topic under
/// `lanecall/<site>/lane/` is.
pub fn parse_topic<'a>(site: &str, t: &'a str) -> Option<(Option<u32>, &'a str)> {
    match topic::place(site, t)? {
        topic::Place::Lane(n, what) => Some((topic::lane_number(n), what)),
        topic::Place::CentreStatus | topic::Place::CentreTime => None,
    }
}

/// Polls the connection until `stop` turns true.
pub async fn run(
    settings: LinkSettings,
    client: AsyncClient,
    mut events: EventLoop,
    book: Arc<Mutex<Book>>,
    commands: Arc<Commands>,
    mirror: mpsc::Sender<ToMirror>,
    mut stop: watch::Receiver<bool>,
) {
    let site = settings.site.clone();
    let mut backoff = Duration::from_millis(500);
    // The clock goes out from a task of its own: a tick raced against
    // `events.poll()` would drop a connection half made, and the next poll
    // would open a second one with the same client id, which the broker
    // takes as a takeover of the first.
    let clock = ClockPublisher::start(client.clone(), site.clone());
    loop {
        let event = tokio::select! {
            _ = stop.changed() => break,
            event = events.poll() => event,
        };
        match event {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                tracing::info!(
                    broker = %settings.broker,
                    "connected to the MQTT broker"
                );
                backoff = Duration::from_millis(500);
                book.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .broker_error = None;
                let topics = topic::FROM_LANE.map(|k| rumqttc::SubscribeFilter {
                    path: topic::every_lane(&site, k),
                    qos: QoS::AtLeastOnce,
                });
                if let Err(e) = client.try_subscribe_many(topics) {
                    tracing::error!("cannot subscribe: {e}");
                }
                let _ = client.try_publish(
                    topic::centre_status(&site),
                    QoS::AtLeastOnce,
                    true,
                    "online",
                );
                clock.connected(true);
            }
            // Connected means subscribed: from here on no lane's message is missed.
            Ok(Event::Incoming(Packet::SubAck(_))) => {
                if let Some(b) = &settings.backlog {
                    b.subscribed(true);
                }
                book.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .connected = true;
                let _ = mirror.send(ToMirror::Connected).await;
            }
            Ok(Event::Incoming(Packet::Publish(p))) => {
                if let Some(b) = &settings.backlog {
                    b.took(p.payload.len());
                }
                let topic = p.topic.clone();
                handle(&site, &topic, &p.payload, &book, &commands, &mirror).await;
            }
            Ok(_) => {}
            Err(e) => {
                clock.connected(false);
                if let Some(b) = &settings.backlog {
                    b.subscribed(false);
                }
                let text = e.to_string();
                let (was, said) = {
                    let mut book = book.lock().unwrap_or_else(PoisonError::into_inner);
                    let said = book.broker_error.replace(text.clone());
                    (std::mem::replace(&mut book.connected, false), said)
                };
                // Once per kind of failure, not once per retry.
                if was {
                    tracing::warn!(
                        "lost the MQTT broker {}: {text}; trying again",
                        settings.broker
                    );
                } else if said.as_deref() != Some(&text) {
                    tracing::warn!(
                        "cannot reach the MQTT broker {}: {text}; trying again",
                        settings.broker
                    );
                }
                tokio::select! {
                    _ = stop.changed() => break,
                    () = tokio::time::sleep(backoff) => {}
                }
                backoff = (backoff * 2).min(Duration::from_secs(30));
            }
        }
    }
    drop(clock);
    // A clean stop: say so, then leave (the will is not sent).
    let _ = client.try_publish(
        topic::centre_status(&site),
        QoS::AtLeastOnce,
        true,
        "offline",
    );
    let _ = client.try_disconnect();
    let flush = async {
        while let Ok(event) = events.poll().await {
            if matches!(event, Event::Outgoing(rumqttc::Outgoing::Disconnect)) {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), flush).await;
}

/// Publishes the centre's clock every [`TIME_EVERY`] and at once on each
/// connection, only while connected: a time queued meanwhile would go out
/// late, and a lane would take a stale date from it. Stops when dropped.
struct ClockPublisher {
    connected: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl ClockPublisher {
    fn start(client: AsyncClient, site: String) -> ClockPublisher {
        let (connected, mut now) = watch::channel(false);
        let task = tokio::spawn(async move {
            let sync = crate::clock_sync::SyncWatch::start(crate::clock_sync::system_source());
            let mut due = tokio::time::interval(TIME_EVERY);
            loop {
                tokio::select! {
                    _ = due.tick() => {}
                    changed = now.changed() => {
                        if changed.is_err() {
                            return;
                        }
                    }
                }
                if *now.borrow_and_update() {
                    let payload = time_payload(crate::wall_clock::wall_now(), &sync.now());
                    let _ = client.try_publish(
                        topic::centre_time(&site),
                        QoS::AtLeastOnce,
                        true,
                        payload,
                    );
                }
            }
        });
        ClockPublisher { connected, task }
    }

    fn connected(&self, yes: bool) {
        self.connected.send_replace(yes);
    }
}

impl Drop for ClockPublisher {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn handle(
    site: &str,
    topic: &str,
    payload: &[u8],
    book: &Mutex<Book>,
    commands: &Commands,
    mirror: &mpsc::Sender<ToMirror>,
) {
    let refuse = |why: &'static str| {
        tracing::debug!(topic, why, "message refused");
        book.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .refuse(why);
    };
    let Some((lane, kind)) = parse_topic(site, topic) else {
        return refuse("topic");
    };
    let Some(n) = lane else {
        return refuse("lane_number");
    };
    if payload.len() > MAX_PAYLOAD {
        return refuse("too_large");
    }
    if kind == "journal" {
        // Checked before the lane is made known: junk makes no lane.
        match check_journal(payload, n) {
            Ok(line) => {
                if book
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .lane(n)
                    .is_some()
                {
                    let _ = mirror.send(ToMirror::Line(n, line)).await;
                }
            }
            Err(why) => refuse(why),
        }
        return;
    }
    match kind {
        "status" => {
            let online = match payload {
                b"online" => true,
                b"offline" => false,
                _ => return refuse("status_payload"),
            };
            let back = match book.lock().unwrap_or_else(PoisonError::into_inner).lane(n) {
                Some(l) => l.online.replace(online) != Some(true) && online,
                None => false,
            };
            if back {
                // A lane back (or first seen): ask what the mirror misses,
                // and send what was pushed while it was away.
                commands.lane_online(n);
                let _ = mirror.send(ToMirror::Online(n)).await;
            }
        }
        "state" => match super::book::LaneState::parse(payload) {
            Some(state) => {
                let mut book = book.lock().unwrap_or_else(PoisonError::into_inner);
                let Some(l) = book.lane(n) else {
                    return;
                };
                let back = l.journal_named(state.journal.as_ref().map(|(f, _)| f.as_str()));
                let back = back.map(|why| {
                    format!("lane {n}'s state {why}: two lanes may be configured as lane {n}")
                });
                l.state = Some(state);
                if let Some(detail) = back {
                    book.alarm("duplicate_lane", n, detail);
                }
            }
            None => refuse("state_not_json"),
        },
        "reply" => {
            if let Err(why) = commands.reply(n, payload) {
                refuse(why);
            }
        }
        _ => refuse("topic"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics() {
        assert_eq!(
            parse_topic("cup", "lanecall/cup/lane/7/journal"),
            Some((Some(7), "journal"))
        );
        assert_eq!(
            parse_topic("cup", "lanecall/cup/lane/x/state"),
            Some((None, "state"))
        );
        assert_eq!(
            parse_topic("cup", "lanecall/cup/lane/99999999999/state"),
            Some((None, "state"))
        );
        assert_eq!(parse_topic("cup", "lanecall/other/lane/7/state"), None);
    }
}

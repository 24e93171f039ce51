//! Commands to the lanes (docs/mqtt.md, "command and reply"): a block's
//! lineups pushed to several lanes, a hold, a `resend` for the mirror; and
//! what each lane answered. The last [`MAX_PUSHES`] pushes are kept. A
//! command held for a lane that is offline can be cancelled by a judge
//! before it is sent ([`Commands::cancel`]), recorded by who and when.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rumqttc::{AsyncClient, QoS};
use serde::Serialize;
use serde_json::{Value, json};

use crate::wall_clock::{rfc3339, unix_now};

/// Pushes (and holds) kept for `GET /api/pushes`.
pub const MAX_PUSHES: usize = 64;
/// How long a lane has to answer before it is shown as not answering.
pub const REPLY_WAIT: Duration = Duration::from_secs(10);

/// One lane's part of a push.
struct Sent {
    lane: u32,
    id: String,
    at: Instant,
    /// `None` while no answer came: `Some(Ok)` accepted, `Some(Err)`
    /// refused with the lane's reason.
    answer: Option<Result<(), String>>,
    /// The lane was offline: the command waits to be sent when it comes
    /// back (`Commands::lane_online`).
    held: Option<Value>,
    /// Cancelled while held, by whom and when: never sent.
    cancelled: Option<Cancelled>,
}

struct Cancelled {
    by: String,
    at: String,
    at_unix: u64,
}

/// Why [`Commands::cancel`] cancelled nothing.
#[derive(Debug, PartialEq, Eq)]
pub enum CancelRefused {
    /// No push of that number is kept.
    NoPush(u64),
    /// The push has no command for that lane.
    NoLane(u64, u32),
    /// Nothing of the push is held any more (sent, or cancelled already).
    NotHeld(u64, Option<u32>),
}

impl std::fmt::Display for CancelRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CancelRefused::NoPush(p) => write!(
                f,
                "there is no push {p} (the last {MAX_PUSHES} are kept: GET /api/pushes)"
            ),
            CancelRefused::NoLane(p, l) => write!(f, "push {p} sent nothing to lane {l}"),
            CancelRefused::NotHeld(p, Some(l)) => write!(
                f,
                "push {p} is not held for lane {l}: it was sent already, or cancelled"
            ),
            CancelRefused::NotHeld(p, None) => write!(
                f,
                "push {p} is held for no lane: it was sent already, or cancelled"
            ),
        }
    }
}

struct Push {
    id: u64,
    kind: &'static str,
    block: Option<String>,
    by: String,
    at: String,
    at_unix: u64,
    lanes: Vec<Sent>,
    /// A block pushed again to lanes that had begun it: the chief
    /// judge's reason.
    again: Option<String>,
}

#[derive(Serialize)]
struct LaneStatus<'a> {
    lane: u32,
    command: &'a str,
    /// `offline` (held until the lane comes back), `cancelled` (while
    /// held: never sent), `pending`, `accepted`, `refused` or `no_answer`.
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    /// Status `cancelled`: the judge who cancelled it and when.
    #[serde(skip_serializing_if = "Option::is_none")]
    cancelled_by: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cancelled_at: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cancelled_at_unix: Option<u64>,
}

/// Publishes commands and keeps the answers.
pub struct Commands {
    client: AsyncClient,
    site: String,
    /// This run's mark in every command id: a lane runs an id once, so a
    /// centre started again must never send an id it sent before.
    run: String,
    next: AtomicU64,
    pushes: Mutex<VecDeque<Push>>,
}

impl Commands {
    pub fn new(client: AsyncClient, site: String) -> Commands {
        // The clock, should the random source fail.
        let run = crate::web::auth::secret()
            .map(|s| s[..12].to_owned())
            .unwrap_or_else(|_| format!("t{}", unix_now()));
        Commands {
            client,
            site,
            run,
            next: AtomicU64::new(1),
            pushes: Mutex::new(VecDeque::new()),
        }
    }

    fn publish(&self, lane: u32, command: &Value) -> Result<(), String> {
        let topic = crate::mqtt::topic::lane(&self.site, lane, crate::mqtt::topic::COMMAND);
        self.client
            .try_publish(topic, QoS::AtLeastOnce, false, command.to_string())
            .map_err(|e| format!("cannot send to the broker: {e}"))
    }

    /// Asks `lane` to publish `file` again from line `from`, to line
    /// `to` if given; with no `file`, its current journals from line 1.
    pub fn resend(&self, lane: u32, file: Option<&str>, from: u64, to: Option<u64>) {
        let id = format!(
            "r-{}-{}",
            self.run,
            self.next.fetch_add(1, Ordering::Relaxed)
        );
        let cmd = match (file, to) {
            (Some(file), None) => json!({ "id": id, "resend": { "file": file, "from": from } }),
            (Some(file), Some(to)) => {
                json!({ "id": id, "resend": { "file": file, "from": from, "to": to } })
            }
            (None, _) => json!({ "id": id, "resend": { "from": 1 } }),
        };
        if let Err(e) = self.publish(lane, &cmd) {
            tracing::warn!(lane, file, "resend not sent: {e}");
        }
    }

    /// Sends one action per lane (`lineup` or `hold`), by the chief judge
    /// `by`; returns the push's number.
    pub fn push(
        &self,
        kind: &'static str,
        block: Option<String>,
        by: &str,
        actions: Vec<(u32, Value)>,
    ) -> u64 {
        self.push_to(kind, block, by, actions, |_| false)
    }

    /// As [`Commands::push`]; a lane `offline` says is offline gets its
    /// command when it comes back online ([`Commands::lane_online`]).
    pub fn push_to(
        &self,
        kind: &'static str,
        block: Option<String>,
        by: &str,
        actions: Vec<(u32, Value)>,
        offline: impl Fn(u32) -> bool,
    ) -> u64 {
        let push_id = self.next.fetch_add(1, Ordering::Relaxed);
        let mut lanes = Vec::with_capacity(actions.len());
        for (lane, action) in actions {
            let id = format!("p-{}-{push_id}-{lane}", self.run);
            let cmd = json!({ "id": id, "by": by, "action": action });
            let (answer, held) = if offline(lane) {
                (None, Some(cmd))
            } else {
                (self.publish(lane, &cmd).err().map(Err), None)
            };
            lanes.push(Sent {
                lane,
                id,
                at: Instant::now(),
                answer,
                held,
                cancelled: None,
            });
        }
        let mut pushes = self.pushes.lock().unwrap_or_else(PoisonError::into_inner);
        if pushes.len() >= MAX_PUSHES {
            pushes.pop_front();
        }
        pushes.push_back(Push {
            id: push_id,
            kind,
            block,
            by: by.to_owned(),
            at: rfc3339(unix_now()),
            at_unix: unix_now(),
            lanes,
            again: None,
        });
        push_id
    }

    /// Records on push `push` why a block begun on its lanes was pushed
    /// again (`GET /api/pushes`: `again`).
    pub fn note_again(&self, push: u64, reason: &str) {
        let mut pushes = self.pushes.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(p) = pushes.iter_mut().find(|p| p.id == push) {
            p.again = Some(reason.to_owned());
        }
    }

    /// Lane `lane` is back online: the commands held for it are sent, in
    /// the order they were pushed. Returns how many.
    pub fn lane_online(&self, lane: u32) -> usize {
        let mut pushes = self.pushes.lock().unwrap_or_else(PoisonError::into_inner);
        let mut sent = 0;
        for s in pushes.iter_mut().flat_map(|p| p.lanes.iter_mut()) {
            if s.lane != lane {
                continue;
            }
            if let Some(cmd) = s.held.take() {
                s.answer = self.publish(lane, &cmd).err().map(Err);
                s.at = Instant::now();
                sent += 1;
            }
        }
        if sent > 0 {
            tracing::info!(lane, sent, "commands held for a lane sent as it came back");
        }
        sent
    }

    /// Cancels what push `push` holds for `lane` (every lane it holds
    /// for, with no `lane`), by the judge `by`: it is never sent. Returns
    /// the lanes cancelled.
    pub fn cancel(
        &self,
        push: u64,
        lane: Option<u32>,
        by: &str,
    ) -> Result<Vec<u32>, CancelRefused> {
        let mut pushes = self.pushes.lock().unwrap_or_else(PoisonError::into_inner);
        let p = pushes
            .iter_mut()
            .find(|p| p.id == push)
            .ok_or(CancelRefused::NoPush(push))?;
        if let Some(l) = lane
            && !p.lanes.iter().any(|s| s.lane == l)
        {
            return Err(CancelRefused::NoLane(push, l));
        }
        let now = unix_now();
        let mut done = Vec::new();
        for s in p.lanes.iter_mut() {
            if lane.is_some_and(|l| l != s.lane) || s.held.take().is_none() {
                continue;
            }
            s.cancelled = Some(Cancelled {
                by: by.to_owned(),
                at: rfc3339(now),
                at_unix: now,
            });
            done.push(s.lane);
        }
        if done.is_empty() {
            return Err(CancelRefused::NotHeld(push, lane));
        }
        tracing::info!(push, ?done, by, "a held command cancelled");
        Ok(done)
    }

    /// A lane's reply, from lane `lane`'s own topic: only the first answer
    /// to an id this centre sent that lane counts (a later one is refused
    /// as `reply_again`). Answers to `resend` are only logged when refused.
    pub fn reply(&self, lane: u32, payload: &[u8]) -> Result<(), &'static str> {
        let v: Value = serde_json::from_slice(payload).map_err(|_| "reply_not_json")?;
        let id = v
            .get("id")
            .and_then(Value::as_str)
            .ok_or("reply_without_id")?;
        let ok = v
            .get("ok")
            .and_then(Value::as_bool)
            .ok_or("reply_without_ok")?;
        let error = v
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("refused")
            .chars()
            .take(500)
            .collect::<String>();
        if id.starts_with("r-") {
            if !ok {
                tracing::warn!(lane, id, "a lane refused a resend: {error}");
            }
            return Ok(());
        }
        let mut pushes = self.pushes.lock().unwrap_or_else(PoisonError::into_inner);
        let sent = pushes
            .iter_mut()
            .flat_map(|p| p.lanes.iter_mut())
            // A cancelled command was never sent: nothing answers it.
            .find(|s| s.lane == lane && s.id == id && s.cancelled.is_none())
            .ok_or("reply_unknown_id")?;
        if sent.answer.is_some() {
            tracing::warn!(
                lane,
                id,
                "a second reply to one command: the first one stands"
            );
            return Err("reply_again");
        }
        sent.answer = Some(if ok { Ok(()) } else { Err(error) });
        Ok(())
    }

    /// `GET /api/pushes`: newest first.
    pub fn list(&self) -> Value {
        let pushes = self.pushes.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        Value::Array(
            pushes
                .iter()
                .rev()
                .map(|p| {
                    let lanes: BTreeMap<String, LaneStatus> = p
                        .lanes
                        .iter()
                        .map(|s| {
                            let (status, error) = match &s.answer {
                                None if s.cancelled.is_some() => ("cancelled", None),
                                None if s.held.is_some() => ("offline", None),
                                Some(Ok(())) => ("accepted", None),
                                Some(Err(e)) => ("refused", Some(e.as_str())),
                                None if now - s.at >= REPLY_WAIT => ("no_answer", None),
                                None => ("pending", None),
                            };
                            let st = LaneStatus {
                                lane: s.lane,
                                command: &s.id,
                                status,
                                error,
                                cancelled_by: s.cancelled.as_ref().map(|c| c.by.as_str()),
                                cancelled_at: s.cancelled.as_ref().map(|c| c.at.as_str()),
                                cancelled_at_unix: s.cancelled.as_ref().map(|c| c.at_unix),
                            };
                            (s.lane.to_string(), st)
                        })
                        .collect();
                    json!({
                        "id": p.id,
                        "kind": p.kind,
                        "block": p.block,
                        "by": p.by,
                        "at": p.at,
                        "at_unix": p.at_unix,
                        "lanes": lanes,
                        "again": p.again,
                    })
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Commands kept without a broker: publishing only queues them in
    /// the event loop returned with them.
    fn commands() -> (Commands, rumqttc::EventLoop) {
        let opts = rumqttc::MqttOptions::new("test", "127.0.0.1", 1);
        let (client, events) = AsyncClient::new(opts, 64);
        (Commands::new(client, "cup".into()), events)
    }

    fn status(c: &Commands, lane: &str) -> Value {
        c.list()[0]["lanes"][lane].clone()
    }

    #[test]
    fn only_the_first_reply_from_the_lane_it_was_sent_to_counts() {
        let (c, _events) = commands();
        c.push(
            "lineup",
            None,
            "Ivanova",
            vec![(7, json!({"ev": "lineup"}))],
        );
        let id = status(&c, "7")["command"].as_str().unwrap().to_owned();
        let reply = |ok: bool| json!({ "id": id, "ok": ok }).to_string().into_bytes();
        // From another lane's topic: not an answer to this command.
        assert_eq!(c.reply(8, &reply(true)), Err("reply_unknown_id"));
        assert_eq!(status(&c, "7")["status"], "pending");
        assert_eq!(c.reply(7, &reply(false)), Ok(()));
        // A second answer never turns a refusal into "accepted".
        assert_eq!(c.reply(7, &reply(true)), Err("reply_again"));
        assert_eq!(status(&c, "7")["status"], "refused");
    }

    #[test]
    fn a_command_to_an_offline_lane_is_held_until_it_comes_back() {
        let (c, _events) = commands();
        let actions = vec![(5, json!({"ev": "lineup"})), (6, json!({"ev": "lineup"}))];
        c.push_to("lineup", Some("S1".into()), "Ivanova", actions, |l| l == 5);
        assert_eq!(status(&c, "5")["status"], "offline");
        assert_eq!(status(&c, "6")["status"], "pending");
        assert_eq!(c.lane_online(6), 0, "nothing held for lane 6");
        assert_eq!(c.lane_online(5), 1);
        assert_eq!(status(&c, "5")["status"], "pending");
        assert_eq!(c.lane_online(5), 0, "sent once");
        let id = status(&c, "5")["command"].as_str().unwrap().to_owned();
        let reply = json!({ "id": id, "ok": true }).to_string().into_bytes();
        assert_eq!(c.reply(5, &reply), Ok(()));
        assert_eq!(status(&c, "5")["status"], "accepted");
    }

    #[test]
    fn a_held_command_cancelled_is_never_sent_and_says_by_whom() {
        let (c, _events) = commands();
        let actions = vec![(5, json!({"ev": "lineup"})), (6, json!({"ev": "lineup"}))];
        let p = c.push_to("lineup", Some("S1".into()), "Ivanova", actions, |l| l == 5);
        assert_eq!(
            c.cancel(p + 1, Some(5), "Orlova"),
            Err(CancelRefused::NoPush(p + 1))
        );
        assert_eq!(
            c.cancel(p, Some(7), "Orlova"),
            Err(CancelRefused::NoLane(p, 7))
        );
        // Lane 6 was online: its command went at once.
        assert_eq!(
            c.cancel(p, Some(6), "Orlova"),
            Err(CancelRefused::NotHeld(p, Some(6)))
        );
        assert_eq!(c.cancel(p, Some(5), "Orlova"), Ok(vec![5]));
        let s = status(&c, "5");
        assert_eq!(s["status"], "cancelled");
        assert_eq!(s["cancelled_by"], "Orlova");
        assert!(s["cancelled_at_unix"].as_u64().is_some(), "{s}");
        assert_eq!(
            c.cancel(p, None, "Orlova"),
            Err(CancelRefused::NotHeld(p, None))
        );
        assert_eq!(c.lane_online(5), 0, "a cancelled command is never sent");
        assert_eq!(status(&c, "5")["status"], "cancelled");
        assert_eq!(status(&c, "6")["status"], "pending");
    }

    #[test]
    fn two_runs_never_send_the_same_command_id() {
        let ((a, _a), (b, _b)) = (commands(), commands());
        a.push("hold", None, "Ivanova", vec![(7, json!({"ev": "hold"}))]);
        b.push("hold", None, "Ivanova", vec![(7, json!({"ev": "hold"}))]);
        assert_ne!(status(&a, "7")["command"], status(&b, "7")["command"]);
    }
}

//! The link's publishing without a broker: the test writes the journals
//! (in memory), plays the client (packet ids) and the broker (PUBACKs),
//! and holds the clock.

use std::path::Path;
use std::time::Duration;

use rumqttc::PubAck;
use serde_json::Value;

use super::*;
use crate::centre_link::files::tests::MemFiles;
use crate::centre_link::resend::{PACE_EVERY, PACE_LINES};

const OLD: &str = "lane3-20261130T090000Z-000001.jsonl";
const CUR: &str = "lane3-20261130T120000Z-000002.jsonl";

/// A link whose connection the test plays.
struct Link {
    out: Publishing,
    files: MemFiles,
    /// Publishes written on the connection, with their packet ids.
    written: Vec<(u16, Publish)>,
    pkid: u16,
    now: Instant,
    /// The client's queue is full: every publish is refused.
    full: bool,
    /// The lane's state.
    state: String,
}

impl Link {
    fn new() -> Link {
        let files = MemFiles::default();
        let out = Publishing::new(
            Topics::new("t", 3),
            PathBuf::from("/journal"),
            Box::new(files.clone()),
        );
        Link {
            out,
            files,
            written: Vec::new(),
            pkid: 0,
            now: Instant::now(),
            full: false,
            state: r#"{"lane":3}"#.into(),
        }
    }

    fn path(name: &str) -> PathBuf {
        Path::new("/journal").join(name)
    }

    /// Appends lines to a journal and tells the link its length.
    fn journal(&mut self, name: &str, lines: &[&str]) {
        let len = self.files.append(&Link::path(name), lines);
        self.out.notified(Link::path(name), len);
    }

    /// Writes each publish the client took, with its packet id.
    fn write(&mut self, taken: Vec<Publish>) -> Vec<Publish> {
        for p in &taken {
            self.pkid += 1;
            self.out
                .packet(&Event::Outgoing(Outgoing::Publish(self.pkid)));
            self.written.push((self.pkid, p.clone()));
        }
        taken
    }

    fn connect(&mut self) -> Vec<Publish> {
        self.pkid = 0;
        self.written.clear();
        let mut taken = Vec::new();
        self.out.connected(&mut |p| {
            taken.push(p);
            true
        });
        self.write(taken)
    }

    /// One turn of the link's loop at the test's time: what went out.
    fn turn(&mut self) -> Vec<Publish> {
        let full = self.full;
        let mut taken = Vec::new();
        let mut send = |p| {
            if !full {
                taken.push(p);
            }
            !full
        };
        self.out.pump(self.now, &mut send).unwrap();
        let state = self.state.clone();
        self.out.state(self.now, || state, &mut send);
        self.write(taken)
    }

    /// The broker acknowledges the publishes written as `pkids`.
    fn ack(&mut self, pkids: impl IntoIterator<Item = u16>) {
        for pkid in pkids {
            self.out
                .packet(&Event::Incoming(Incoming::PubAck(PubAck::new(pkid))));
        }
    }

    /// The packet id of the journal line (`file`, `n`) last written.
    fn pkid_of(&self, file: &str, n: u64) -> u16 {
        (self.written.iter().rev())
            .find(|(_, p)| journal(p) == Some((file.to_owned(), n)))
            .map(|(id, _)| *id)
            .unwrap()
    }

    fn ack_all(&mut self) {
        let all: Vec<u16> = self.written.iter().map(|(id, _)| *id).collect();
        self.ack(all);
    }
}

/// A journal publish's file and line number.
fn journal(p: &Publish) -> Option<(String, u64)> {
    if p.topic != "lanecall/t/lane/3/journal" {
        return None;
    }
    let v: Value = serde_json::from_slice(&p.payload).unwrap();
    Some((v["file"].as_str()?.to_owned(), v["n"].as_u64()?))
}

fn lines(ps: &[Publish]) -> Vec<(String, u64)> {
    ps.iter().filter_map(journal).collect()
}

fn of(file: &str, ns: impl IntoIterator<Item = u64>) -> Vec<(String, u64)> {
    ns.into_iter().map(|n| (file.to_owned(), n)).collect()
}

fn on<'a>(ps: &'a [Publish], what: &str) -> Vec<&'a Publish> {
    let topic = format!("lanecall/t/lane/3/{what}");
    ps.iter().filter(|p| p.topic == topic).collect()
}

/// A journal of `n` lines: a header and balls.
fn numbered(n: usize) -> Vec<String> {
    let mut all = vec![r#"{"journal":"lanecall"}"#.to_owned()];
    all.extend((2..=n).map(|i| format!(r#"{{"t":{i}}}"#)));
    all
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// The lines sent and not acknowledged when the connection is lost go
/// again on the next one, by themselves (no resend asked), and so do
/// the next block's journal started while the broker was away and the
/// last lines of the one it closed, each once, in order.
#[test]
fn the_next_blocks_journal_started_while_the_broker_is_away_loses_no_line() {
    let mut link = Link::new();
    let on_connect = link.connect();
    assert_eq!(on_connect[0].topic, "lanecall/t/lane/3/status");
    assert_eq!(
        (on_connect[0].retain, &on_connect[0].payload[..]),
        (true, &b"online"[..])
    );
    link.journal(OLD, &["h", "a", "b"]);
    assert_eq!(lines(&link.turn()), of(OLD, 1..=3));
    link.ack([link.pkid_of(OLD, 1)]);
    // Lost: line 4 is journaled, the block ends, the next journal starts.
    link.journal(OLD, &["c"]);
    link.journal(CUR, &["H", "x"]);
    let again = link.connect();
    assert_eq!(lines(&again), [], "nothing before the CONNACK's online");
    let sent = lines(&link.turn());
    let mut want = of(OLD, 2..=4);
    want.extend(of(CUR, 1..=2));
    assert_eq!(sent, want);
    link.ack_all();
    assert_eq!(link.out.lines_in_flight(), 0);
    link.connect();
    assert_eq!(
        lines(&link.turn()),
        [],
        "what was acknowledged is not sent again"
    );
    link.journal(CUR, &["y"]);
    assert_eq!(lines(&link.turn()), of(CUR, [3]));
}

/// The broker's acknowledgements move the lane's place only over a run
/// of lines: one not acknowledged holds back those after it, which go
/// again after a reconnect; an acknowledgement of a publish that is not
/// a journal line (the state, a reply) moves nothing.
#[test]
fn what_is_acknowledged_is_the_run_before_the_first_line_not_acknowledged() {
    let mut link = Link::new();
    link.connect();
    link.journal(CUR, &["h", "1", "2", "3", "4"]);
    link.turn();
    let ids: Vec<u16> = (1..=5).map(|n| link.pkid_of(CUR, n)).collect();
    link.ack([ids[0], ids[2], ids[3], 1]);
    assert_eq!(link.out.lines_in_flight(), 4);
    link.connect();
    assert_eq!(lines(&link.turn()), of(CUR, 2..=5));
    // A PUBACK for a packet id never written is no acknowledgement.
    link.ack([999]);
    assert_eq!(link.out.lines_in_flight(), 4);
    let ids: Vec<u16> = (2..=5).map(|n| link.pkid_of(CUR, n)).collect();
    link.ack(ids);
    assert_eq!(link.out.lines_in_flight(), 0);
}

/// At most WINDOW publishes in flight for the journal's lines (the
/// status and state count); each acknowledgement makes room for one
/// more. Replies and the state go while fewer than twice that are in
/// flight; a resent line waits for room as an ordinary one does.
#[test]
fn the_window_bounds_what_is_in_flight() {
    let mut link = Link::new();
    link.connect();
    let all = numbered(100);
    link.journal(CUR, &strs(&all));
    let first = link.turn();
    // The online status is in flight with the lines; the state goes
    // with the window full.
    assert_eq!(lines(&first), of(CUR, 1..=WINDOW as u64 - 1));
    assert_eq!(on(&first, "state").len(), 1);
    assert_eq!(lines(&link.turn()), [], "the window is full");
    let ten: Vec<u16> = (1..=10).map(|n| link.pkid_of(CUR, n)).collect();
    link.ack(ten);
    // Ten acknowledged: room for nine, the state being in flight too.
    assert_eq!(
        lines(&link.turn()),
        of(CUR, WINDOW as u64..=WINDOW as u64 + 8)
    );
    assert_eq!(lines(&link.turn()), []);
    // A reply and a resend's lines, with the window full.
    link.out.answer(Some("c-1"), Ok(()));
    assert_eq!(link.out.resend(Some(CUR), 1, Some(3)), Ok(()));
    let more = link.turn();
    assert_eq!(
        on(&more, "reply").len(),
        1,
        "a reply goes with the window full"
    );
    assert_eq!(lines(&more), [], "no resent line without room");
    link.ack_all();
    link.now += PACE_EVERY;
    let resent = lines(&link.turn());
    assert!(resent.ends_with(&of(CUR, 1..=3)), "{resent:?}");
}

/// A resend for a journal the lane does not have (or no longer has) is
/// refused with the reason, one for a name outside its journals too; a
/// resend from past the journal's end sends nothing; one whose journal
/// disappears while it runs ends there and leaves the others going.
#[test]
fn a_resend_for_lines_the_lane_no_longer_has() {
    let mut link = Link::new();
    link.connect();
    link.journal(CUR, &["h"]);
    link.turn();
    assert_eq!(
        link.out.resend(Some(OLD), 1, None),
        Err(format!("this lane has no journal {OLD:?}"))
    );
    assert_eq!(
        link.out.resend(Some("../lanecall.toml"), 1, None),
        Err("\"../lanecall.toml\" is not the name of a journal file".into())
    );
    let old = numbered(100);
    link.files.append(&Link::path(OLD), &strs(&old));
    assert_eq!(link.out.resend(Some(OLD), 101, None), Ok(()));
    assert_eq!(lines(&link.turn()), []);
    link.ack_all();

    // Removed while it is resent: the resend ends, the link goes on.
    let other = "lane3-20261130T100000Z-000003.jsonl";
    link.files.append(&Link::path(other), &["h", "z"]);
    link.out.resend(Some(OLD), 1, None).unwrap();
    link.out.resend(Some(other), 1, None).unwrap();
    link.now += PACE_EVERY;
    assert_eq!(lines(&link.turn()), of(OLD, 1..=PACE_LINES as u64));
    link.ack_all();
    link.files.remove(&Link::path(OLD));
    link.now += PACE_EVERY;
    let mut out = Vec::new();
    link.out
        .pump(link.now, &mut |p| {
            out.push(p);
            true
        })
        .unwrap();
    assert_eq!(lines(&out), of(other, 1..=2));
}

/// A reconnect in the middle of a resend: the ordinary lines go again
/// from the first not acknowledged; the resend goes on from where it
/// stood, at its pace, never from its start again.
#[test]
fn a_reconnect_mid_resend_goes_on_where_it_stood() {
    let mut link = Link::new();
    link.connect();
    let old = numbered(100);
    link.files.append(&Link::path(OLD), &strs(&old));
    link.journal(CUR, &["h", "1"]);
    link.out.resend(Some(OLD), 1, None).unwrap();
    let first = lines(&link.turn());
    let mut want = of(CUR, 1..=2);
    want.extend(of(OLD, 1..=PACE_LINES as u64));
    assert_eq!(first, want);
    assert_eq!(lines(&link.turn()), [], "the pace holds the rest");
    assert_eq!(link.out.wake_at(link.now), link.now + PACE_EVERY);
    link.connect();
    link.now += PACE_EVERY;
    let mut want = of(CUR, 1..=2);
    want.extend(of(OLD, PACE_LINES as u64 + 1..=2 * PACE_LINES as u64));
    assert_eq!(lines(&link.turn()), want);
}

/// The state: at once on a connection, then at most every STATE_EVERY
/// when it changes; unchanged, again every STATE_AGAIN, or every
/// STATE_DELIVERING while it says the lane delivers (its neighbours
/// keep it busy only while it comes); and again after a resend.
#[test]
fn the_state_goes_out_when_due_and_again_while_the_lane_delivers() {
    let mut link = Link::new();
    let t0 = link.now;
    link.connect();
    let states = |ps: &[Publish]| on(ps, "state").len();
    assert_eq!(states(&link.turn()), 1);
    assert!(
        on(
            &link
                .written
                .iter()
                .map(|(_, p)| p.clone())
                .collect::<Vec<_>>(),
            "state"
        )[0]
        .retain
    );
    link.out.state_changed();
    link.now = t0 + Duration::from_millis(100);
    assert_eq!(states(&link.turn()), 0, "not twice within STATE_EVERY");
    assert_eq!(link.out.wake_at(link.now), t0 + STATE_EVERY);
    link.now = t0 + STATE_EVERY;
    assert_eq!(states(&link.turn()), 1);
    let sent = link.now;
    assert_eq!(link.out.wake_at(link.now), sent + STATE_AGAIN);
    link.now = sent + STATE_AGAIN - Duration::from_millis(1);
    assert_eq!(states(&link.turn()), 0);
    link.now = sent + STATE_AGAIN;
    assert_eq!(
        states(&link.turn()),
        1,
        "unchanged, again after STATE_AGAIN"
    );

    // Delivering: one snapshot, never changed, goes out again and again.
    link.state = r#"{"lane":3,"delivering":true}"#.into();
    link.out.state_changed();
    link.now += STATE_EVERY;
    assert_eq!(states(&link.turn()), 1);
    for _ in 0..3 {
        assert_eq!(link.out.wake_at(link.now), link.now + STATE_DELIVERING);
        link.now += STATE_DELIVERING;
        assert_eq!(states(&link.turn()), 1);
    }
    link.ack_all();

    // A resend asks for it again.
    link.journal(CUR, &["h"]);
    link.turn();
    link.now += STATE_EVERY;
    link.out.resend(Some(CUR), 1, None).unwrap();
    assert_eq!(states(&link.turn()), 1);
}

/// Replies the client cannot take yet (its queue full) wait, in order,
/// and go once it takes them; past MAX_OUTBOX the oldest is dropped.
#[test]
fn replies_wait_for_the_client_and_the_oldest_is_dropped_past_the_bound() {
    let mut link = Link::new();
    link.connect();
    link.full = true;
    for i in 0..MAX_OUTBOX + 2 {
        link.out.answer(Some(&format!("c-{i}")), Ok(()));
    }
    assert_eq!(link.turn(), []);
    link.full = false;
    let mut ids: Vec<String> = Vec::new();
    loop {
        let replies: Vec<String> = (on(&link.turn(), "reply").iter())
            .map(|p| serde_json::from_slice::<Value>(&p.payload).unwrap()["id"].to_string())
            .collect();
        if replies.is_empty() {
            break;
        }
        // At most twice the window in flight at once.
        assert!(replies.len() <= 2 * WINDOW);
        ids.extend(replies);
        link.ack_all();
    }
    assert_eq!(ids.len(), MAX_OUTBOX);
    assert_eq!(ids[0], "\"c-2\"");
    assert_eq!(ids[MAX_OUTBOX - 1], format!("\"c-{}\"", MAX_OUTBOX + 1));
}

//! The lane on a slow SD card (every `fsync`/`fdatasync` of the real
//! daemon slowed by `support::slow_sync`): a judge's action sent right
//! behind a burst of serial noise waits for at most a few syncs, because
//! what waits together is journaled together, never for one sync per
//! noise line. The syncs are counted, not timed.

use std::fs;
use std::io::Write;

use serialport::{SerialPort, TTYPort};

use crate::support;

/// A sync as slow as an SD card's in its garbage collection.
const SYNC_MS: u64 = 200;

/// Noise lines in the burst: below the queue's noise limit (64), so none
/// is shed and each must be journaled.
const BURST: usize = 60;

#[test]
fn a_judges_action_behind_a_burst_of_noise_waits_for_few_syncs() {
    let dir = support::Scratch::new("slow-card");
    let Some(card) = support::slow_sync::SlowCard::new(&dir, SYNC_MS) else {
        return;
    };
    fs::create_dir_all(dir.join("journal")).unwrap();
    let journal = dir.join("journal/lane3-20260101T000000Z-01.jsonl");
    fs::write(&journal, support::journal_with_open_block(3, 1)).unwrap();
    let (mut master, slave) = TTYPort::pair().expect("a pseudo-terminal pair");
    let port = slave.name().expect("the slave's name");
    let http = support::free_port();
    let hash = lanecall::web::hash_pin("246810").unwrap();
    let config = support::write_config(&dir, 3, &port, http, &hash);
    let mut daemon = support::Daemon::start_with_env(&config, http, &card.env());
    daemon.wait_lane("the serial link up", |l| l["pinsetter"]["link"] == "up");
    drop(slave);
    daemon.login("246810");

    // The burst in one write: the lane's thread takes its first line and
    // syncs it while the rest queue behind, then the judge's hold.
    let before = card.syncs();
    let burst: String = (0..BURST)
        .map(|i| format!("noise {i:02} on a long cable\r\n"))
        .collect();
    master.write_all(burst.as_bytes()).unwrap();
    support::eventually("the burst's first sync to begin", || {
        (card.syncs() > before).then_some(()).ok_or("no sync yet")
    });
    let sent = card.syncs();
    let (status, body) = daemon.action(serde_json::json!({"ev": "hold", "on": true}));
    let waited = card.syncs() - sent;
    assert_eq!(status, 200, "the hold was not taken: {body}");
    assert!(
        waited <= 6,
        "the judge's hold waited for {waited} syncs of {SYNC_MS} ms behind {BURST} noise lines"
    );

    // Nothing of the burst is lost: every line journaled, counted, in order
    // before the hold it came before.
    let lane = daemon.wait_lane("the burst counted and the lane held", |l| {
        l["error_counts"]["serial"] == BURST as u64 && l["hold"].is_object()
    });
    assert_eq!(lane["inputs"]["shed_serial"], 0, "{}", lane["inputs"]);
    let text = fs::read_to_string(&journal).unwrap();
    let noise = text.matches("on a long cable").count();
    let hold_at = text.find("\"hold\"").expect("the hold is journaled");
    let last_noise = text.rfind("on a long cable").unwrap();
    assert_eq!(noise, BURST, "every noise line journaled once");
    assert!(
        last_noise < hold_at,
        "the noise is journaled before the hold"
    );
    eprintln!(
        "slow card figures: {SYNC_MS} ms a sync, the hold behind {BURST} noise lines waited for {waited} syncs"
    );
}

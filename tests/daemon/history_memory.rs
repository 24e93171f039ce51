//! The history routes on a journal of a million bad serial lines (a noisy
//! cable left on for hours): the replay keeps a bounded window of errors,
//! so reading it and exporting it take bounded memory, and a third replay
//! at once is answered `503` instead of queued.

use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::http::{Request, StatusCode};
use axum_extra::extract::cookie::Key;
use lanecall::journal::{Header, Writer};
use lanecall::lane::{Event, Rules, Sensor, Stamped};
use lanecall::web::{ApiState, AuthSettings, JOURNALS_BUSY, LaneSnapshot, router};
use serde_json::Value;
use tokio::sync::watch;
use tower::ServiceExt as _;

const ID: &str = "lane4-20261129T100000Z-000001";
const BAD_LINES: u64 = 1_000_000;
const MIB: u64 = 1024 * 1024;
const PIN_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$wQLBJ53yXnWS1FSmR7RdxA$pRDX/Tw1tO9l8PpLiGTMUICb8JmI11KCknIhF4PxrIw";

/// This process's peak resident memory so far, from `/proc`.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<u64>()
        .unwrap()
        * 1024
}

/// A journal of `BAD_LINES` serial lines that do not parse, written as
/// it goes.
fn noisy_journal(dir: &Path) {
    let file = std::fs::File::create(dir.join(format!("{ID}.jsonl"))).unwrap();
    let header = Header::new(4, Some("2026-11-29T10:00:00Z".into()), Rules::default());
    let mut w = Writer::create(BufWriter::new(file), &header).unwrap();
    for t in 0..BAD_LINES {
        let e = Stamped {
            t,
            event: Event::Sensor(Sensor::Serial {
                line: "$PS,PINS,7,0000000000*00".into(),
            }),
        };
        w.write(&e).unwrap();
    }
    w.into_inner().flush().unwrap();
}

fn app(dir: &Path) -> Router {
    let (inputs, _rx) = lanecall::ports::inputs::channel(8);
    let (_snapshots, lane) = watch::channel(LaneSnapshot {
        version: 1,
        json: "{}".into(),
    });
    router(ApiState {
        inputs,
        lane,
        cookie_key: Key::generate(),
        // A hash made beforehand: making one takes 19 MiB, which would
        // hide what the replay takes in the peak.
        auth: AuthSettings {
            session: Duration::from_secs(600),
            ..AuthSettings::with_pin_hash(PIN_HASH)
        },
        journal_dir: Some(dir.to_owned()),
        live_views: 64,
        event: String::new(),
    })
}

async fn get(app: &Router, uri: &str) -> (StatusCode, Vec<u8>) {
    let req = Request::get(uri).body(Body::empty()).unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let body = to_bytes(res.into_body(), usize::MAX).await.unwrap();
    (status, body.to_vec())
}

/// The length of a body, read as it streams, without keeping it.
async fn streamed_len(app: &Router, uri: &str) -> (StatusCode, u64) {
    use futures_util::StreamExt as _;
    let req = Request::get(uri).body(Body::empty()).unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let mut body = res.into_body().into_data_stream();
    let mut len = 0;
    while let Some(chunk) = body.next().await {
        len += chunk.unwrap().len() as u64;
    }
    (status, len)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_journal_of_a_million_bad_lines_is_read_in_bounded_memory() {
    let dir = crate::support::Scratch::new("history-mem");
    noisy_journal(&dir);
    let app = app(&dir);

    let before = peak_rss();
    eprintln!(
        "history figures: peak RSS before reading: {:.1} MiB",
        before as f64 / MIB as f64
    );
    let (status, body) = get(&app, &format!("/api/history/{ID}")).await;
    assert_eq!(status, StatusCode::OK);
    let report: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(report["error_counts"]["total"], BAD_LINES);
    assert_eq!(report["error_counts"]["serial"], BAD_LINES);
    assert_eq!(report["errors"].as_array().unwrap().len(), 200);
    assert_eq!(report["errors_omitted"], BAD_LINES - 200);
    let after_report = peak_rss().saturating_sub(before);
    for export in ["json", "csv"] {
        let (status, body) = get(&app, &format!("/export/{ID}.{export}")).await;
        assert_eq!(status, StatusCode::OK, "{export}");
        assert!(
            body.len() < 256 * 1024,
            "the {export} export is {} bytes",
            body.len()
        );
    }
    let (status, len) = streamed_len(&app, &format!("/export/{ID}.jsonl")).await;
    assert_eq!(status, StatusCode::OK);
    let journal_len = std::fs::metadata(dir.join(format!("{ID}.jsonl")))
        .unwrap()
        .len();
    assert_eq!(len, journal_len);
    let growth = peak_rss().saturating_sub(before);
    eprintln!(
        "history figures: {BAD_LINES} bad lines ({} MiB journal): /api/history raised the peak RSS by {:.1} MiB, with the three exports {:.1} MiB; the report is {} KiB",
        journal_len / MIB,
        after_report as f64 / MIB as f64,
        growth as f64 / MIB as f64,
        body.len() / 1024,
    );
    assert!(
        growth < 48 * MIB,
        "reading the journal raised the peak RSS by {} MiB",
        growth / MIB
    );

    // Two replays at once; the third is told to come back.
    let uri = format!("/api/history/{ID}");
    let (a, b, c) = tokio::join!(get(&app, &uri), get(&app, &uri), get(&app, &uri));
    let mut statuses = [a.0, b.0, c.0];
    statuses.sort();
    assert_eq!(
        statuses,
        [
            StatusCode::OK,
            StatusCode::OK,
            StatusCode::SERVICE_UNAVAILABLE
        ]
    );
    let busy = [a, b, c]
        .into_iter()
        .find(|r| r.0 == StatusCode::SERVICE_UNAVAILABLE)
        .unwrap();
    let busy: Value = serde_json::from_slice(&busy.1).unwrap();
    assert_eq!(busy["error"], JOURNALS_BUSY);
}

//! The pinsetter serial link (pinsetter-serial.md): open the port, cut the
//! byte stream into lines, and send each line to the lane as
//! [`Sensor::Serial`] exactly as received. Parsing and checking the lines is
//! the core's job ([`crate::pinsetter`]), so that every line, good or bad,
//! reaches the journal first.
//!
//! A lost port (USB adapter unplugged, end of stream, read error) is
//! reported once as [`Sensor::SerialLink`] `{ up: false }` and reopened with
//! exponential backoff. This module must never spin on a dead port, never
//! grow a buffer without bound on a noisy line, never block the lane's
//! thread or the runtime, and never panic on what the wire brings. The
//! lane's channel is bounded ([`crate::ports::inputs`]): when it is full a line
//! that does not parse is shed (counted, and logged once per 10 s), and one
//! that parses waits for room, the task sleeping meanwhile.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use tokio_serial::{DataBits, FlowControl, Parity, SerialPortBuilderExt, SerialStream, StopBits};
use tokio_util::bytes::{Buf, BytesMut};
use tokio_util::codec::{Decoder, FramedRead};
use tracing::{debug, info, warn};

use crate::config::PinsetterConfig;
use crate::lane::Sensor;
use crate::log_limit::LogLimiter;
use crate::pinsetter::MAX_LINE;
use crate::ports::inputs::Sent;
use crate::ports::{Input, InputSender};

/// Splits the pinsetter's byte stream into lines.
///
/// - A line ends at `\n`; one `\r` before it is removed.
/// - Bytes that are not UTF-8 become U+FFFD, so the line still reaches the
///   journal and the core rejects it with a reason.
/// - A line longer than [`MAX_LINE`] bytes without a line end is cut: its
///   first `MAX_LINE + 1` bytes are emitted (so the core rejects it as too
///   long) and the rest is dropped up to the next `\n`. The decoder never
///   holds more than `MAX_LINE + 2` bytes of one line.
/// - Empty lines are dropped.
#[derive(Debug, Default)]
pub struct PinsetterLines {
    /// Dropping the tail of an overlong line until its `\n`.
    discarding: bool,
    /// Bytes of the buffer already searched for `\n`, so a line arriving a
    /// byte at a time is not rescanned from its start each time.
    searched: usize,
}

impl PinsetterLines {
    pub fn new() -> PinsetterLines {
        PinsetterLines::default()
    }
}

/// The decoder, for tests outside this module.
pub fn decoder_for_tests() -> PinsetterLines {
    PinsetterLines::new()
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

impl Decoder for PinsetterLines {
    type Item = String;
    type Error = std::io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<String>, std::io::Error> {
        loop {
            if self.discarding {
                match src.iter().position(|&b| b == b'\n') {
                    Some(i) => {
                        src.advance(i + 1);
                        self.discarding = false;
                        self.searched = 0;
                        continue;
                    }
                    None => {
                        src.clear();
                        return Ok(None);
                    }
                }
            }
            let start = self.searched.min(src.len());
            match src[start..].iter().position(|&b| b == b'\n') {
                Some(i) => {
                    let end = start + i;
                    let mut line = src.split_to(end + 1);
                    self.searched = 0;
                    line.truncate(end);
                    if line.last() == Some(&b'\r') {
                        line.truncate(end - 1);
                    }
                    if line.is_empty() {
                        continue;
                    }
                    // An overlong line that arrived whole is cut the same
                    // way as one still arriving.
                    line.truncate(MAX_LINE + 1);
                    return Ok(Some(lossy(&line)));
                }
                None => {
                    // A `\r` at the very end may be the start of this
                    // line's `\r\n`: it does not count towards the length.
                    let content = if src.last() == Some(&b'\r') {
                        src.len() - 1
                    } else {
                        src.len()
                    };
                    if content > MAX_LINE {
                        let cut = src.split_to(MAX_LINE + 1);
                        self.discarding = true;
                        self.searched = 0;
                        return Ok(Some(lossy(&cut)));
                    }
                    self.searched = src.len();
                    return Ok(None);
                }
            }
        }
    }

    /// At the end of the stream a last line without its `\n` (the port was
    /// lost mid-line) is still passed on: the core's checksum decides.
    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<String>, std::io::Error> {
        if let Some(line) = self.decode(src)? {
            return Ok(Some(line));
        }
        let discarding = std::mem::take(&mut self.discarding);
        self.searched = 0;
        let rest = src.split();
        if discarding {
            return Ok(None);
        }
        let mut rest = &rest[..];
        if rest.last() == Some(&b'\r') {
            rest = &rest[..rest.len() - 1];
        }
        if rest.is_empty() {
            Ok(None)
        } else {
            Ok(Some(lossy(rest)))
        }
    }
}

/// Exponential backoff between attempts to open the port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Backoff {
    min: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    pub(crate) fn new(min: Duration, max: Duration) -> Backoff {
        // A zero minimum would make a busy loop: one millisecond at least.
        let min = min.max(Duration::from_millis(1));
        let max = max.max(min);
        Backoff {
            min,
            max,
            next: min,
        }
    }

    /// The wait before the next attempt; each call doubles the next one.
    pub(crate) fn next_delay(&mut self) -> Duration {
        let d = self.next;
        self.next = self.next.saturating_mul(2).min(self.max);
        d
    }

    pub(crate) fn reset(&mut self) {
        self.next = self.min;
    }
}

/// Why a connection ended.
enum Ended {
    /// The daemon is gone (the channel is closed).
    DaemonGone,
    /// End of stream: the device went away.
    Eof,
    Error(std::io::Error),
}

/// Opens the port as 8N1 without flow control, at the configured baud.
fn open(settings: &PinsetterConfig) -> tokio_serial::Result<SerialStream> {
    tokio_serial::new(settings.port.to_string_lossy(), settings.baud)
        .data_bits(DataBits::Eight)
        .parity(Parity::None)
        .stop_bits(StopBits::One)
        .flow_control(FlowControl::None)
        .open_native_async()
}

/// Runs the pinsetter link until the daemon is gone (a send on `tx` fails).
///
/// `settings` is the validated `[pinsetter]` table: a lost port is reopened
/// after `reconnect_min`, the wait doubling up to `reconnect_max`.
///
/// Each line goes to `tx` as [`Sensor::Serial`]; the link's state goes to
/// `tx` as [`Sensor::SerialLink`] (journaled) and to `link_state` (for the
/// panel). A port that cannot be opened is reported down once, at the
/// first failed attempt (unless the lane was already told); while it stays
/// missing the task sends nothing more until it opens,
/// so the daemon should abort this task on shutdown rather than wait for
/// it: it holds nothing that needs a clean stop.
pub async fn run_pinsetter_link(
    settings: PinsetterConfig,
    tx: InputSender,
    link_state: tokio::sync::watch::Sender<bool>,
) {
    let port = settings.port.display().to_string();
    let mut backoff = Backoff::new(settings.reconnect_min, settings.reconnect_max);
    // Whether this outage has been logged at warn level already.
    let mut outage_logged = false;
    let mut open_attempt: u64 = 0;
    // Whether the lane has been told the link is down (a lost link always
    // is): a port that never opens is a link down too (the panel then
    // offers manual pin entry), said once.
    let mut down_sent = false;
    loop {
        open_attempt += 1;
        match open(&settings) {
            Ok(stream) => {
                info!(port = %port, baud = settings.baud, "pinsetter link up");
                open_attempt = 0;
                if !report_link(&link_state, &tx, true).await {
                    return;
                }
                let opened = Instant::now();
                let (ended, got_data) = read_lines(stream, &tx).await;
                match ended {
                    Ended::DaemonGone => return,
                    Ended::Eof => {
                        warn!(port = %port, "pinsetter link lost: end of stream (unplugged?); reopening")
                    }
                    Ended::Error(e) => {
                        warn!(port = %port, error = %e, "pinsetter link lost: read error; reopening")
                    }
                }
                // That warning was this outage's one log at warn level.
                outage_logged = true;
                if !report_link(&link_state, &tx, false).await {
                    return;
                }
                down_sent = true;
                // Back to the shortest wait only after a link that worked:
                // a port that opens and drops at once (a flapping adapter)
                // keeps backing off instead of journaling up/down pairs at
                // the shortest interval.
                if got_data || opened.elapsed() >= settings.reconnect_max {
                    backoff.reset();
                }
            }
            Err(e) => {
                if outage_logged {
                    debug!(port = %port, error = %e, open_attempt, "pinsetter port still unavailable");
                } else {
                    warn!(port = %port, error = %e, open_attempt, "cannot open the pinsetter port; retrying with backoff");
                    outage_logged = true;
                }
                if !down_sent {
                    if !report_link(&link_state, &tx, false).await {
                        return;
                    }
                    down_sent = true;
                }
            }
        }
        tokio::time::sleep(backoff.next_delay()).await;
    }
}

/// Tells the panel and the lane (journaled) that the link is `up` or down;
/// false when the daemon is gone. The state first: whoever hears of the
/// link from the lane finds the state already set.
async fn report_link(
    link_state: &tokio::sync::watch::Sender<bool>,
    tx: &InputSender,
    up: bool,
) -> bool {
    link_state.send_replace(up);
    tx.send(Input::now(Sensor::SerialLink { up })).await.is_ok()
}

/// Reads lines until the stream ends. Also says whether any line arrived.
async fn read_lines(stream: SerialStream, tx: &InputSender) -> (Ended, bool) {
    let mut lines = FramedRead::new(stream, PinsetterLines::new());
    let mut got_data = false;
    let mut shed_log = LogLimiter::new(crate::log_limit::WINDOW);
    loop {
        match lines.next().await {
            Some(Ok(line)) => {
                got_data = true;
                let now = Instant::now();
                match tx.send_serial(line, now).await {
                    Err(_) => return (Ended::DaemonGone, got_data),
                    Ok(Sent::Queued) => {}
                    Ok(Sent::Shed(line)) => {
                        let what = "noise lines shed (the lane's queue was full)";
                        if let Some(l) = shed_log.note("shed", what, now, format_args!("{line:?}"))
                        {
                            warn!("{l}");
                        }
                    }
                }
            }
            Some(Err(e)) => return (Ended::Error(e), got_data),
            None => return (Ended::Eof, got_data),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(d: &mut PinsetterLines, buf: &mut BytesMut) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(line) = d.decode(buf).unwrap() {
            out.push(line);
        }
        out
    }

    fn feed(chunks: &[&[u8]]) -> Vec<String> {
        let mut d = PinsetterLines::new();
        let mut buf = BytesMut::new();
        let mut out = Vec::new();
        for c in chunks {
            buf.extend_from_slice(c);
            out.extend(decode_all(&mut d, &mut buf));
        }
        out
    }

    #[test]
    fn splits_lines_and_strips_one_cr() {
        let out = feed(&[b"$PS,READY,0,1111111111*54\r\n$PS,PINS,1,0000001001*1A\nabc\r\r\n"]);
        assert_eq!(
            out,
            [
                "$PS,READY,0,1111111111*54",
                "$PS,PINS,1,0000001001*1A",
                "abc\r"
            ]
        );
    }

    #[test]
    fn drops_empty_lines() {
        assert_eq!(feed(&[b"\n\r\n\r\nx\n\n"]), ["x"]);
    }

    #[test]
    fn joins_partial_reads_across_buffers() {
        let line = b"$PS,READY,0,1111111111*54\r\n";
        // One byte at a time, including the CR and LF arriving apart.
        let chunks: Vec<&[u8]> = line.chunks(1).collect();
        assert_eq!(feed(&chunks), ["$PS,READY,0,1111111111*54"]);
        assert_eq!(
            feed(&[b"$PS,PI", b"NS,1,0000", b"001001*1A\r", b"\n$PS", b",X\n"]),
            ["$PS,PINS,1,0000001001*1A", "$PS,X"]
        );
    }

    #[test]
    fn non_utf8_bytes_become_replacement_characters() {
        assert_eq!(
            feed(&[b"$PS,\xffREADY\xc3\r\n"]),
            ["$PS,\u{FFFD}READY\u{FFFD}"]
        );
    }

    #[test]
    fn overlong_line_is_cut_to_129_bytes_and_resyncs() {
        let mut wire = vec![b'A'; 300];
        wire.extend_from_slice(b"\r\n$PS,PINS,1,0000001001*1A\r\n");
        let out = feed(&[&wire]);
        assert_eq!(
            out,
            ["A".repeat(MAX_LINE + 1), "$PS,PINS,1,0000001001*1A".into()]
        );
        // The same, arriving in small pieces.
        let chunks: Vec<&[u8]> = wire.chunks(7).collect();
        assert_eq!(feed(&chunks), out);
    }

    #[test]
    fn line_of_max_length_is_whole_even_when_cr_and_lf_arrive_late() {
        let body = vec![b'B'; MAX_LINE];
        let want = "B".repeat(MAX_LINE);
        assert_eq!(feed(&[&body, b"\r", b"\n"]), std::slice::from_ref(&want));
        let mut one = body.clone();
        one.extend_from_slice(b"\r\n");
        assert_eq!(feed(&[&one]), [want]);
    }

    #[test]
    fn line_one_over_the_limit_is_passed_on_at_129_bytes() {
        // Whole or cut, the core sees 129 bytes and rejects them as too long.
        let body = vec![b'C'; MAX_LINE + 1];
        let want = "C".repeat(MAX_LINE + 1);
        let mut whole = body.clone();
        whole.extend_from_slice(b"\n");
        assert_eq!(feed(&[&whole]), std::slice::from_ref(&want));
        assert_eq!(feed(&[&body, b"\n", b"ok\n"]), [want, "ok".into()]);
    }

    #[test]
    fn buffer_never_grows_on_endless_noise() {
        let mut d = PinsetterLines::new();
        let mut buf = BytesMut::new();
        let noise = [0x55u8; 1000];
        let mut out = Vec::new();
        for _ in 0..1000 {
            buf.extend_from_slice(&noise);
            out.extend(decode_all(&mut d, &mut buf));
            assert!(
                buf.len() <= MAX_LINE + 2,
                "buffer holds {} bytes",
                buf.len()
            );
        }
        // One cut line for the whole burst, then the link resyncs.
        assert_eq!(out.len(), 1);
        buf.extend_from_slice(b"\n$PS,OK\r\n");
        assert_eq!(decode_all(&mut d, &mut buf), ["$PS,OK"]);
        assert!(buf.is_empty());
    }

    #[test]
    fn waiting_line_is_bounded() {
        let mut d = PinsetterLines::new();
        let mut buf = BytesMut::new();
        for _ in 0..MAX_LINE {
            buf.extend_from_slice(b"x");
            assert_eq!(d.decode(&mut buf).unwrap(), None);
        }
        buf.extend_from_slice(b"\r");
        assert_eq!(d.decode(&mut buf).unwrap(), None);
        buf.extend_from_slice(b"y");
        let cut = d.decode(&mut buf).unwrap().unwrap();
        assert_eq!(cut.len(), MAX_LINE + 1);
        // The rest of the overlong line is dropped.
        assert_eq!(d.decode(&mut buf).unwrap(), None);
        assert!(buf.is_empty());
    }

    #[test]
    fn eof_passes_on_a_last_line_without_newline() {
        let mut d = PinsetterLines::new();
        let mut buf = BytesMut::from(&b"a\n$PS,READY,0,1111111111*54\r"[..]);
        assert_eq!(d.decode_eof(&mut buf).unwrap().as_deref(), Some("a"));
        assert_eq!(
            d.decode_eof(&mut buf).unwrap().as_deref(),
            Some("$PS,READY,0,1111111111*54")
        );
        assert_eq!(d.decode_eof(&mut buf).unwrap(), None);
        // The tail of a cut line is not passed on again.
        let mut d = PinsetterLines::new();
        let mut buf = BytesMut::from(&[b'Z'; 200][..]);
        assert_eq!(
            d.decode_eof(&mut buf).unwrap().map(|l| l.len()),
            Some(MAX_LINE + 1)
        );
        assert_eq!(d.decode_eof(&mut buf).unwrap(), None);
        assert!(buf.is_empty());
    }

    #[test]
    fn backoff_doubles_up_to_the_maximum_and_resets() {
        let ms = Duration::from_millis;
        let mut b = Backoff::new(ms(100), ms(1000));
        let got: Vec<_> = (0..6).map(|_| b.next_delay()).collect();
        assert_eq!(
            got,
            [ms(100), ms(200), ms(400), ms(800), ms(1000), ms(1000)]
        );
        b.reset();
        assert_eq!(b.next_delay(), ms(100));
    }

    #[test]
    fn backoff_never_waits_zero() {
        let mut b = Backoff::new(Duration::ZERO, Duration::ZERO);
        assert!(b.next_delay() >= Duration::from_millis(1));
        assert!(b.next_delay() >= Duration::from_millis(1));
    }
}

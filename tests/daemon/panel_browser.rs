//! The tablet panel in a real headless Chromium (Debian's `chromium`,
//! driven by playwright-core from `tests/browser/`): a judge logs in, sets
//! the lane order, checks a blindfold, starts the block, sees a ball from
//! the pinsetter arrive on the score sheet, corrects it and exports the
//! sheet as CSV; then, fed a journal that cannot be written, the panel
//! shows its banner over every section and a judge action's 503 refusal,
//! and drops the banner when the journal is written again. Screenshots go
//! to `target/panel-screenshots/`.
//!
//! The lane is the real `lanecall run`, its pinsetter a pseudo-terminal this
//! test writes to when the browser script asks for a ball.
//!
//! Another runs `tests/browser/judge.mjs`: a wrong deck and a dead ball,
//! a new blindfold check asked for, and the day's second block.
//!
//! A third test runs `tests/browser/editor.mjs` against a lane whose
//! callouts are in English and whose pinsetter port never opened: the lane
//! order editor shows exactly what it saves.
//!
//! Needs `node`, `chromium` and `npm ci` in `tests/browser/` (`.ci/run`
//! installs them). Without them the test says so and passes, except under
//! CI, where it fails.

use std::fs;
use std::io::Write;
use std::process::{Child, Command, Stdio};

use lanecall::lane::PinSet;
use lanecall::pinsetter::{Body, Message, format_line};
use serialport::{SerialPort, TTYPort};

use crate::support;

struct Daemon(Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_judge_runs_the_lane_from_the_panel_in_a_real_browser() {
    run_with_pinsetter("panel.mjs", "panel");
}

/// A wrong deck, a dead ball, a new blindfold check and the day's second
/// block, as the judge sees them (`tests/browser/judge.mjs`): the banner
/// names the pins the pinsetter set and did not set as soon as it reports
/// the deck, as pins ("set: pin 10", never a bare "10"), in both
/// languages; the ball bowled at it is starred on the sheet, the legend one
/// tap on `?` away says what the star, the dashed box and the circle mean,
/// and the ball is gone after the judge declares it dead; the card of a B1
/// bowler whose check a judge calls into question says a new check is
/// awaited (and the status, since the lane waits for it) until the new
/// check; after the first block ends the next one is "Block 2".
#[test]
fn a_judge_handles_a_wrong_deck_a_recheck_and_the_second_block() {
    run_with_pinsetter("judge.mjs", "judge");
}

/// A fresh scratch folder for the test `tag`; `None` (the test is
/// skipped) when the browser tools are missing and skipping is allowed
/// (tests/support/needs.rs).
fn scratch(tag: &str) -> Option<crate::support::Scratch> {
    if !support::browser_tools() {
        return None;
    }
    let dir = crate::support::Scratch::new(tag);
    Some(dir)
}

/// Runs `tests/browser/<script>` against the real `lanecall run`, its
/// pinsetter a pseudo-terminal. The script asks for pinsetter lines by
/// printing `READY <mask>` (the deck set), `PINS <mask>` (what stands after
/// a ball) or `BALL <mask>` (a full deck set, then a ball leaving the
/// mask), and waits for `sent` on stdin.
fn run_with_pinsetter(script: &str, tag: &str) {
    let Some(dir) = scratch(tag) else {
        return;
    };

    let (mut pinsetter, slave) = TTYPort::pair().expect("a pseudo-terminal pair");
    let port = slave.name().expect("the slave's name");
    let http = support::free_port();
    let pin = "246813";
    let hash = lanecall::web::hash_pin(pin).unwrap();
    let config = support::write_config(&dir, 5, &port, http, &hash);
    let _daemon = Daemon(
        Command::new(env!("CARGO_BIN_EXE_lanecall"))
            .args(["run", "--config"])
            .arg(&config)
            .env("RUST_LOG", "warn")
            // Times of day in a zone that is not the browser's (UTC+12).
            .env("TZ", "Asia/Kamchatka")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("lanecall runs"),
    );
    support::wait_listening(http);
    drop(slave);

    let mut seq = 0u8;
    let mut send = |body| {
        let line = format_line(&Message { seq, body });
        seq = seq.wrapping_add(1);
        pinsetter
            .write_all(format!("{line}\r\n").as_bytes())
            .unwrap();
    };
    let mask = |m: &str| PinSet::from_mask(m.trim()).expect("a mask");
    support::run_browser_asking(script, http, pin, tag, |line| {
        if let Some(m) = line.strip_prefix("BALL ") {
            send(Body::Ready(PinSet::FULL));
            send(Body::Pins(mask(m)));
        } else if let Some(m) = line.strip_prefix("READY ") {
            send(Body::Ready(mask(m)));
        } else if let Some(m) = line.strip_prefix("PINS ") {
            send(Body::Pins(mask(m)));
        } else {
            return false;
        }
        true
    });
}

/// The lane order editor: after ↑, ↓, ✕ and a substitution the form is
/// what the server then has; a new bowler's class must be chosen; the
/// bowler who left keeps a marked card; each bowler's callout language is
/// kept, and a new one takes the lane's `[speaker] language` (English
/// here), not the screen's (Russian). The pinsetter port never opens: the
/// panel shows the link down and offers manual pin entry.
#[test]
fn the_lane_order_editor_saves_what_it_shows() {
    run_without_pinsetter(&["editor.mjs"], "editor", |text| {
        let english = text.replace("[speaker]\n", "[speaker]\nlanguage = \"en\"\n");
        assert_ne!(text, english, "the config has a [speaker] table");
        english
    });
}

/// A lineup the centre pushed for its block SL-B2-M1 of one game
/// (`tests/browser/pushed.mjs`): the start form offers one game and names
/// the block as the centre does, warns of three, keeps the block through a
/// judge's edit; the block starts under the centre's id, and once its game
/// is bowled the panel says it is complete.
#[test]
fn the_panel_starts_the_centres_block_with_its_games() {
    run_without_pinsetter(&["pushed.mjs"], "pushed", |text| text);
}

/// Runs `tests/browser/<args[0]>` (with the rest of `args` after its own)
/// against the real `lanecall run` whose pinsetter port never opens, with
/// its config as `edit` leaves it.
fn run_without_pinsetter(args: &[&str], tag: &str, edit: impl FnOnce(String) -> String) {
    let Some(dir) = scratch(tag) else {
        return;
    };
    let http = support::free_port();
    let pin = "246813";
    let hash = lanecall::web::hash_pin(pin).unwrap();
    let port = dir.join("ttyNOPINSETTER");
    let config = support::write_config(&dir, 6, port.to_str().unwrap(), http, &hash);
    let text = fs::read_to_string(&config).unwrap();
    fs::write(&config, edit(text)).unwrap();
    let _daemon = support::Daemon::start(&config, http);

    let status = support::browser_command(args[0], http, pin)
        .args(&args[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit())
        .status()
        .expect("node runs");
    assert!(status.success(), "the browser script failed: {status}");
}

/// The scoreboard, `/board` (`tests/browser/board.mjs`): four bowlers'
/// marks, running totals and game totals, the bowler and ball up and the
/// pins standing are what `GET /api/lane` holds; at 1920×1080 and
/// 1280×800 nothing scrolls and every row is on the screen; the text is
/// at least 7:1 against its background in both themes; a hold, a dropped
/// stream and a blindfold adjustment are shown as banners; with games of
/// 200 and more every running total is inside its cell at both sizes in
/// both themes and a handicap shows as "+12 = 312"; "Legend" explains the
/// marks as the board draws them; the page weighs less than 150 KB.
#[test]
fn the_scoreboard_shows_the_lane_in_large_type() {
    run_with_pinsetter("board.mjs", "board");
}

/// The bowler's phone, `/me` (`tests/browser/me.mjs`): the lane order to
/// pick from; after the bowler's own ball the live region says the lane's
/// callout for it in the bowler's language, after another bowler's ball
/// nothing; "My score" says the score of the lane's sheet; a reload keeps
/// the bowler and says nothing old; `?lang=en` and the language switch set
/// the page's language, kept in the URL; nothing scrolls sideways at 320 px
/// and 400 % zoom; the page weighs less than 150 KB.
#[test]
fn a_bowler_follows_their_own_balls_on_a_phone() {
    run_with_pinsetter("me.mjs", "me");
}

/// The lane view (`tests/browser/lane.mjs`): with four bowlers in two
/// teams, every bowler's current frame and the ball up are in sight
/// without scrolling on a 1280×800 and an 800×1280 tablet; frame columns
/// keep their width; a frame's total shows once it is settled and is the
/// lane's, team totals are the sums of the lane's; the pin pad asks first
/// while the pinsetter sends; the tabs have addresses, survive a reload
/// and follow Back; a penalty is confirmed on screen and undone (the lane
/// has it withdrawn); the printed sheet with its marks' legend; the page's
/// weight.
#[test]
fn the_lane_view_shows_every_bowler_at_once() {
    run_with_pinsetter("lane.mjs", "lane");
}

/// The pin pad (`tests/browser/lane.mjs pad`) on a lane whose string
/// pinsetter's expander does not answer (its I2C bus is not there): the
/// part named in red with its fix; the pad shown at once, naming who is
/// up, a ball is one tap
/// plus the pins still standing (a strike one tap), the pins down before
/// the ball cannot be tapped, and a ball recorded by hand and undone is
/// off the lane, the same bowler up again for the same ball; the printed
/// sheet has the event's title (`[web] event`).
#[test]
fn the_pin_pad_records_a_ball_in_one_tap_plus_the_pins() {
    run_without_pinsetter(&["lane.mjs", "pad"], "pad", |text| {
        let titled = text
            .replace("[web]\n", "[web]\nevent = \"Cup of the Volga 2026\"\n")
            .replace("[pinsetter]\n", "[pinsetter]\nkind = \"pin_switches\"\n")
            + "[pinsetter.switches]\npins = [\"A0\", \"A1\", \"A2\", \"A3\", \"A4\", \"A5\", \
               \"A6\", \"A7\", \"B0\", \"B1\"]\nbus = 21\n";
        assert!(titled.contains("event = "), "the config has a [web] table");
        assert!(
            titled.contains("pin_switches"),
            "the config has a [pinsetter] table"
        );
        titled
    });
}

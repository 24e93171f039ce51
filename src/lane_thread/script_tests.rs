//! The lane's thread driven by a scripted clock port: the lane times it
//! journals a script's steps at, and an input from outside between them,
//! however late or early the script plays against the real clock.

use super::*;
use crate::lane::Sensor;
use crate::ports::Reading;
use crate::ports::inputs::channel;
use crate::sensors::gpio::NullOutputs;

struct Quiet;

impl CalloutSink for Quiet {
    fn say(&mut self, _: &crate::lane::Callout, _: Option<&crate::lane::Bowler>) {}
}

/// A fresh folder for one test's lane, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let dir = std::env::temp_dir().join(format!(
            "lanecall-script-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temp folder");
        Dir(dir)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn lane(dir: &Dir) -> LaneRunner {
    let settings = RunnerSettings {
        state_dir: dir.0.clone(),
        lane: 7,
        rules: crate::lane::Rules::default(),
        speed: 1.0,
        simulated: true,
        language: Language::En,
    };
    let (core, _snapshots) =
        LaneRunner::start(settings, Box::new(NullOutputs), Box::new(Quiet)).expect("the lane");
    core
}

/// Each journal line after the header: its lane time less `start`, and
/// its kind.
fn journaled(journal: &Path, start: Millis) -> Vec<(Millis, String)> {
    let text = std::fs::read_to_string(journal).expect("the journal");
    text.lines()
        .skip(1)
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a journal line");
            let t = v["t"].as_u64().expect("a lane time");
            (t - start, v["ev"].as_str().unwrap_or_default().to_owned())
        })
        .collect()
}

/// A lane following a script journals an input from outside it (a
/// neighbour's message, a panel) no later than the script's next step: a
/// script playing late on a busy machine, here a minute of lane time
/// behind the clock, keeps its own times instead of being pressed into
/// the moment the outside input came.
#[test]
fn an_outside_input_never_presses_a_late_script_into_one_moment() {
    let dir = Dir::new("late");
    let mut core = lane(&dir);
    let journal = core.journal_path().to_owned();
    let (tx, rx) = channel(64);
    let feed = core.script_clock(tx.clone());
    let (start, clock) = (feed.start(), feed.clock());
    let thread = std::thread::spawn(move || core.run(rx));
    let beam = |broken| Some(Event::Sensor(Sensor::FoulBeam { broken }));
    feed.send_blocking(start + 1_000, beam(true), start + 2_000)
        .expect("the lane takes it");
    // The neighbour's message, read a minute after the script's time.
    tx.send_blocking(Input::Reading(Reading {
        at: clock.instant(start + 61_000),
        sensor: Sensor::Neighbour {
            lane: 3,
            busy: true,
        },
    }))
    .expect("the lane takes it");
    feed.send_blocking(start + 2_000, beam(false), Millis::MAX)
        .expect("the lane takes it");
    tx.send_blocking(Input::Shutdown).expect("the lane stops");
    thread.join().expect("the lane's thread");
    assert_eq!(
        journaled(&journal, start),
        [
            (1_000, "foul_beam".to_owned()),
            (2_000, "neighbour".to_owned()),
            (2_000, "foul_beam".to_owned())
        ]
    );
}

/// The simulator's block sent as steps all at once, hours of lane time
/// ahead of the real clock: the lane journals each at the script's time,
/// the script's last step (its time alone) runs the lane's deadlines up
/// to it and no further, and the same script gives the same lane.
#[test]
fn a_script_played_ahead_of_the_clock_is_journaled_at_its_own_times() {
    let events: Vec<_> = crate::sim::Scenario::demo_on_lane(7, 3)
        .run()
        .take(60)
        .collect();
    let end = events.last().expect("a block has events").t + 5_000;
    let play = |name| {
        let dir = Dir::new(name);
        let mut core = lane(&dir);
        let journal = core.journal_path().to_owned();
        let (tx, rx) = channel(8);
        let feed = core.script_clock(tx.clone());
        let start = feed.start();
        let thread = std::thread::spawn(move || core.run(rx));
        for (i, e) in events.iter().enumerate() {
            let next = events.get(i + 1).map_or(end, |n| n.t);
            feed.send_blocking(start + e.t, Some(e.event.clone()), start + next)
                .expect("the lane takes it");
        }
        feed.send_blocking(start + end, None, start + end)
            .expect("the lane takes it");
        tx.send_blocking(Input::Shutdown).expect("the lane stops");
        let replay = thread.join().expect("the lane's thread");
        let lines = journaled(&journal, start);
        (lines, replay.lane().now() - start, render(&replay))
    };
    let (lines, now, sheet) = play("ahead-1");
    let times: Vec<Millis> = events.iter().map(|e| e.t).collect();
    let got: Vec<Millis> = lines.iter().map(|(t, _)| *t).collect();
    assert_eq!(got, times, "each step at the script's own time");
    assert_eq!(now, end, "the last step's time, not the real clock's");
    assert_eq!(
        play("ahead-2"),
        (lines, now, sheet),
        "the same script, the same lane"
    );
}

#[test]
fn a_deadline_runs_unless_the_journal_fails_or_the_script_has_not_reached_it() {
    // A live lane: by the clock alone.
    assert_eq!(runnable(Some(1100), false, None), Some(1100));
    assert_eq!(runnable(None, false, None), None);
    assert_eq!(runnable(Some(1100), true, None), None);
    // A script whose next input is at 1050: a deadline at 1100 waits
    // for it, however late it comes; one up to 1050 runs.
    assert_eq!(runnable(Some(1100), false, Some(1050)), None);
    assert_eq!(runnable(Some(1050), false, Some(1050)), Some(1050));
    assert_eq!(runnable(Some(1000), true, Some(1050)), None);
}

fn render(replay: &Replay) -> String {
    crate::replay::render_sheet(replay)
}

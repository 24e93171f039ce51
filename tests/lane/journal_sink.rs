//! The lane thread's journal port: a sink added to the lane is told of the
//! journal's durable length after every append, by path, also across the
//! new journal the next block starts; and the lane times it journals a
//! script's inputs at.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use lanecall::journal::parse_event;
use lanecall::lane::{Event, Millis, PinSet};
use lanecall::lane_thread::{LaneRunner, RunnerSettings};
use lanecall::pinsetter::{Body, Message, format_line};
use lanecall::ports::{CalloutSink, Input, JournalSink};
use lanecall::sensors::gpio::NullOutputs;

/// Every `(journal, len)` the sink was told, in order.
#[derive(Clone, Default)]
struct Told(Arc<Mutex<Vec<(PathBuf, u64)>>>);

impl JournalSink for Told {
    fn written(&mut self, journal: &std::path::Path, len: u64) {
        self.0.lock().unwrap().push((journal.to_owned(), len));
    }
}

struct Quiet;

impl CalloutSink for Quiet {
    fn say(&mut self, _: &lanecall::lane::Callout, _: Option<&lanecall::lane::Bowler>) {}
}

/// A judge's action from its journal line.
fn action(json: &str) -> Input {
    let Event::Panel(p) = parse_event(json)
        .unwrap_or_else(|e| panic!("{json}: {e}"))
        .event
    else {
        panic!("not a panel event: {json}");
    };
    Input::Action {
        panel: p,
        reply: None,
    }
}

/// The byte length of each of the first lines of a file, summed up: the
/// ends of its lines.
fn line_ends(text: &str) -> Vec<u64> {
    let mut end = 0;
    text.split_inclusive('\n')
        .map(|l| {
            end += l.len() as u64;
            end
        })
        .collect()
}

#[test]
fn a_journal_sink_is_told_of_every_durable_line_and_of_the_next_blocks_journal() {
    let dir = crate::support::Scratch::new("journal-sink");
    let settings = RunnerSettings {
        state_dir: dir.to_path_buf(),
        lane: 2,
        rules: lanecall::lane::Rules {
            min_cycle_ms: 0,
            ..Default::default()
        },
        speed: 1.0,
        simulated: false,
        language: lanecall::lane::Language::En,
    };
    let (mut core, _snapshots) =
        LaneRunner::start(settings, Box::new(NullOutputs), Box::new(Quiet))
            .expect("the lane starts");
    let first = core.journal_path().to_owned();
    let told = Told::default();
    core.add_journal_sink(Box::new(told.clone()));
    let (tx, rx) = lanecall::ports::inputs::channel(64);
    let lane = std::thread::spawn(move || core.run(rx));

    let send = |input| tx.send_blocking(input).expect("the lane takes it");
    let lineup =
        r#"{"t":0,"ev":"lineup","by":"Judge Orlova","bowlers":[{"name":"Anna","class":"B2"}]}"#;
    send(action(lineup));
    send(action(
        r#"{"t":0,"ev":"start_block","by":"Judge Orlova","games":1}"#,
    ));
    for (seq, body) in [
        (0, Body::Ready(PinSet::FULL)),
        (1, Body::Pins(PinSet::EMPTY)),
    ] {
        let line = format_line(&Message { seq, body });
        send(Input::now(lanecall::lane::Sensor::Serial { line }));
    }
    send(action(r#"{"t":0,"ev":"end_block","by":"Judge Orlova"}"#));
    // The next block's lineup starts a journal of its own.
    send(action(lineup));
    send(Input::Shutdown);
    lane.join().expect("the lane's thread");

    let told = told.0.lock().unwrap().clone();
    let first_text = std::fs::read_to_string(&first).unwrap();
    // The header, then five inputs: lineup, start, two serial lines, end.
    let first_ends = line_ends(&first_text);
    assert_eq!(first_ends.len(), 6, "{first_text}");
    let in_first: Vec<u64> = told
        .iter()
        .filter(|(p, _)| *p == first)
        .map(|&(_, len)| len)
        .collect();
    // Told at once of the header alone, then after each write: inputs
    // queued together are written together (group commit), so each told
    // length is a line's end, in order, up to the last one.
    assert_eq!(in_first.first(), first_ends.first(), "{in_first:?}");
    assert_eq!(in_first.last(), first_ends.last(), "{in_first:?}");
    assert!(
        in_first.windows(2).all(|w| w[0] < w[1]) && in_first.iter().all(|l| first_ends.contains(l)),
        "told {in_first:?}, line ends {first_ends:?}"
    );

    let (second, second_len) = told.last().unwrap().clone();
    assert_ne!(second, first, "the next block's journal has its own file");
    let second_text = std::fs::read_to_string(&second).unwrap();
    // Its header and the lineup that started it: told once, whole.
    let second_ends = line_ends(&second_text);
    assert_eq!(second_ends.len(), 2, "{second_text}");
    assert_eq!(second_len, second_ends[1]);
    assert_eq!(told.len(), in_first.len() + 1, "{told:?}");
}

/// A lane following a script (the demo) journals an input from outside it
/// (a neighbour's message, a panel) no later than the script's next input:
/// a script playing late on a busy machine, here a minute of lane time
/// behind the clock, keeps its own times instead of being pressed into the
/// moment the outside input came (where the lane would take its ball and
/// pin report as one instant and refuse the ball).
#[test]
fn an_outside_input_never_presses_a_late_script_into_one_moment() {
    use lanecall::lane::Sensor;
    use lanecall::ports::Reading;

    let dir = crate::support::Scratch::new("script-late");
    let settings = RunnerSettings {
        state_dir: dir.to_path_buf(),
        lane: 2,
        rules: lanecall::lane::Rules::default(),
        speed: 1.0,
        simulated: false,
        language: lanecall::lane::Language::En,
    };
    let (mut core, _snapshots) =
        LaneRunner::start(settings, Box::new(NullOutputs), Box::new(Quiet))
            .expect("the lane starts");
    let journal = core.journal_path().to_owned();
    let (tx, rx) = lanecall::ports::inputs::channel(64);
    let feed = core.script_clock(tx.clone());
    let (start, clock) = (feed.start(), feed.clock());
    let lane = std::thread::spawn(move || core.run(rx));
    let send = |input| tx.send_blocking(input).expect("the lane takes it");
    let beam = |state| Some(Event::Sensor(Sensor::FoulBeam { broken: state }));
    feed.send_blocking(start + 1_000, beam(true), start + 2_000)
        .expect("the lane takes it");
    // The neighbour's message, read a minute after the script's time.
    send(Input::Reading(Reading {
        at: clock.instant(start + 61_000),
        sensor: Sensor::Neighbour {
            lane: 3,
            busy: true,
        },
    }));
    feed.send_blocking(start + 2_000, beam(false), Millis::MAX)
        .expect("the lane takes it");
    send(Input::Shutdown);
    lane.join().expect("the lane's thread");

    let text = std::fs::read_to_string(&journal).unwrap();
    let times: Vec<(u64, String)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["t"].as_u64().unwrap() - start,
                v["ev"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        times,
        [
            (1_000, "foul_beam".to_owned()),
            (2_000, "neighbour".to_owned()),
            (2_000, "foul_beam".to_owned())
        ],
        "{text}"
    );
}

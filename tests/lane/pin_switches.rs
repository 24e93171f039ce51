//! A string pinsetter's lane scores exactly as a serial one: the same game
//! as the pinsetter's `$PS` lines, and as its ten pin switches moving the
//! way string machines move them, read by the reader's state machine,
//! journaled and replayed by the same core, gives the same sheet.

use lanecall::journal::Header;
use lanecall::lane::scoring::{from_notation, next_position};
use lanecall::lane::{Action, Event, Panel, PinSet, Sensor, Stamped};
use lanecall::replay::Replay;
use lanecall::sensors::switches::deck::{CYCLE_BIT, Deck, DeckTimes};
use serde_json::Value;

use crate::support;

/// Splits, a spare off a split, strikes, a tenth frame of three balls.
const GAME: &str = "X 9/ 72 X X 8- 9/ 9- X X9/";
const TOTAL: u64 = 177;

/// The first ball's time; each ball 15 s after the last.
fn ball_at(i: usize) -> u64 {
    10_000 + 15_000 * i as u64
}

/// Each ball's deck before it and what stood after it.
fn decks() -> Vec<(PinSet, PinSet)> {
    let balls = from_notation(GAME).unwrap();
    let mut before = PinSet::FULL;
    let mut out = Vec::new();
    for (i, ball) in balls.iter().enumerate() {
        out.push((before, ball.standing));
        before = next_position(&balls[..=i], true).map_or(PinSet::FULL, |p| p.before);
    }
    out
}

fn journal(events: Vec<Stamped<Event>>) -> Value {
    let header = Header::new(4, None, support::fast_pinsetter_rules());
    let mut all: Vec<Stamped<Event>> = support::journal_with_open_block(4, 1)
        .lines()
        .skip(1)
        .map(|l| lanecall::journal::parse_event(l).unwrap())
        .collect();
    all.extend(events);
    let text = support::journal_of(&header, &all);
    let replay = Replay::from_reader(text.as_bytes()).unwrap();
    serde_json::to_value(replay.report()).unwrap()
}

fn sensor(t: u64, sensor: Sensor) -> Stamped<Event> {
    Stamped {
        t,
        event: Event::Sensor(sensor),
    }
}

/// The game from a serial pinsetter: `READY`, then `PINS` and `READY` for
/// each ball.
fn serial() -> Value {
    let lines = support::pinsetter_lines(GAME, 0);
    let mut events = vec![sensor(
        1_000,
        Sensor::Serial {
            line: lines[0].clone(),
        },
    )];
    for (i, pair) in lines[1..].chunks(2).enumerate() {
        let t = ball_at(i);
        events.push(sensor(t - 200, Sensor::Ball));
        events.push(sensor(
            t + 700,
            Sensor::Serial {
                line: pair[0].clone(),
            },
        ));
        events.push(sensor(
            t + 6_500,
            Sensor::Serial {
                line: pair[1].clone(),
            },
        ));
    }
    journal(events)
}

/// How the machine moves the pins between balls.
#[derive(Clone, Copy, Debug)]
enum Machine {
    /// Lifts every pin for `lifted_ms`, lowers those of the next deck; no
    /// cycle signal.
    LiftsAll { lifted_ms: u64 },
    /// Lowers only the pins the next deck lacks; standing pins stay put.
    LeavesStanding,
    /// Lifts every pin, lowers the next deck, with the cycle signal wired.
    WithCycle,
}

/// Switch levels over time, fed to the reader's state machine at each
/// change and polled at its deadlines.
struct Timeline {
    deck: Deck,
    levels: u16,
    out: Vec<Stamped<Event>>,
}

impl Timeline {
    fn until(&mut self, t: u64) {
        while let Some(d) = self.deck.deadline().filter(|d| *d <= t) {
            for s in self.deck.poll(d) {
                self.out.push(sensor(d, s));
            }
        }
    }

    fn set(&mut self, t: u64, levels: u16) {
        self.until(t);
        self.levels = levels;
        for s in self.deck.sample(t, levels) {
            self.out.push(sensor(t, s));
        }
    }

    fn pins(&mut self, t: u64, pins: PinSet) {
        self.set(t, (self.levels & CYCLE_BIT) | pins.bits());
    }

    fn cycle(&mut self, t: u64, on: bool) {
        let pins = self.levels & !CYCLE_BIT;
        self.set(t, if on { pins | CYCLE_BIT } else { pins });
    }
}

/// The game from the pin switches of `machine`.
fn switches(machine: Machine) -> Value {
    let mut line = Timeline {
        deck: Deck::new(DeckTimes {
            debounce_ms: 20,
            // Without the cycle signal, longer than the machine holds the
            // pins lifted (docs: hardware/README.md).
            settle_ms: 2_500,
            max_settle_ms: 8_000,
            flicker_changes: 6,
            cycle: matches!(machine, Machine::WithCycle),
        }),
        levels: 0,
        out: Vec::new(),
    };
    line.pins(1_000, PinSet::FULL);
    let decks = decks();
    for (i, (before, after)) in decks.iter().enumerate() {
        let t = ball_at(i);
        let next = decks.get(i + 1).map_or(PinSet::FULL, |d| d.0);
        // The ball detector at the pin deck.
        line.until(t - 200);
        line.out.push(sensor(t - 200, Sensor::Ball));
        // The pins fall over 80 ms, the lower-numbered half first.
        let fallen = before.without(*after).bits();
        let first = (0..10)
            .map(|b| 1u16 << b)
            .filter(|m| fallen & m != 0)
            .take(fallen.count_ones() as usize / 2)
            .fold(0, |acc, m| acc | m);
        line.set(t, before.bits() & !first);
        line.pins(t + 80, *after);
        if before == after && !matches!(machine, Machine::WithCycle) {
            // Nothing fell and no cycle signal: no switch moved, so the
            // lane asks a judge for the pins, who enters them.
            line.until(t + 3_000);
            line.out.push(Stamped {
                t: t + 3_000,
                event: Event::Panel(Panel::new(
                    Some("Judge Orlova".into()),
                    Action::ManualPins {
                        standing: *after,
                        twice: PinSet::EMPTY,
                    },
                )),
            });
        }
        match machine {
            Machine::LiftsAll { lifted_ms } => {
                line.pins(t + 5_000, PinSet::EMPTY);
                line.pins(t + 5_000 + lifted_ms, next);
            }
            Machine::LeavesStanding => line.pins(t + 6_000, next),
            Machine::WithCycle => {
                line.cycle(t + 3_000, true);
                line.pins(t + 3_500, PinSet::EMPTY);
                line.pins(t + 5_000, next);
                line.cycle(t + 6_000, false);
            }
        }
    }
    line.until(ball_at(decks.len()));
    journal(line.out)
}

fn errors(report: &Value) -> Vec<&str> {
    report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect()
}

#[test]
fn a_string_pinsetters_switches_score_the_game_as_its_serial_lines_do() {
    let serial = serial();
    let game = &serial["bowlers"][0]["games"][0];
    assert_eq!(game["total"], TOTAL, "{game}");
    assert_eq!(errors(&serial), Vec::<&str>::new());
    for machine in [
        Machine::LiftsAll { lifted_ms: 2_000 },
        Machine::LeavesStanding,
        Machine::WithCycle,
    ] {
        let report = switches(machine);
        assert_eq!(errors(&report), Vec::<&str>::new(), "{machine:?}");
        assert_eq!(report["bowlers"], serial["bowlers"], "{machine:?}");
    }
}

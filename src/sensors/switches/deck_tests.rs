//! Scripted switch timelines: exact times in, exact reports out.

use super::*;

const TIMES: DeckTimes = DeckTimes {
    debounce_ms: 20,
    settle_ms: 600,
    max_settle_ms: 8000,
    flicker_changes: 6,
    cycle: false,
};

/// A deck fed a timeline, polled at each of its deadlines in between.
struct Run {
    deck: Deck,
    out: Vec<(u64, Sensor)>,
    levels: u16,
}

impl Run {
    fn new(times: DeckTimes) -> Run {
        Run {
            deck: Deck::new(times),
            out: Vec::new(),
            levels: 0,
        }
    }

    /// Polls every deadline up to `t`.
    fn until(&mut self, t: u64) {
        for _ in 0..10_000 {
            match self.deck.deadline() {
                Some(d) if d <= t => {
                    for s in self.deck.poll(d) {
                        self.out.push((d, s));
                    }
                }
                _ => return,
            }
        }
        panic!("the deadline never moves past {t}");
    }

    fn sample(&mut self, t: u64, levels: u16) {
        self.until(t);
        self.levels = levels;
        for s in self.deck.sample(t, levels) {
            self.out.push((t, s));
        }
    }

    /// These pins fall at `t`.
    fn down(&mut self, t: u64, pins: &[u8]) {
        let levels = self.levels & !bits(pins);
        self.sample(t, levels);
    }

    fn up(&mut self, t: u64, pins: &[u8]) {
        let levels = self.levels | bits(pins);
        self.sample(t, levels);
    }

    fn cycle(&mut self, t: u64, on: bool) {
        let levels = if on {
            self.levels | CYCLE_BIT
        } else {
            self.levels & !CYCLE_BIT
        };
        self.sample(t, levels);
    }

    /// What was reported from `from` on.
    fn since(&self, from: u64) -> Vec<(u64, Sensor)> {
        self.out
            .iter()
            .filter(|(t, _)| *t >= from)
            .cloned()
            .collect()
    }
}

fn bits(pins: &[u8]) -> u16 {
    pins.iter().fold(0, |acc, p| acc | 1 << (p - 1))
}

fn set(pins: &[u8]) -> PinSet {
    PinSet::from_bits(bits(pins)).unwrap()
}

fn deck(after: DeckAfter, pins: &[u8]) -> Sensor {
    Sensor::Deck {
        after,
        standing: set(pins),
    }
}

fn fault(fault: DeckFault, pins: &[u8]) -> Sensor {
    Sensor::DeckFault {
        fault,
        pins: set(pins),
    }
}

const ALL: [u8; 10] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

/// A lane at rest with a full deck, its start-up `Set` reported at 600.
fn full(times: DeckTimes) -> Run {
    let mut run = Run::new(times);
    run.sample(0, bits(&ALL));
    run.until(1000);
    assert_eq!(
        run.out,
        vec![
            (0, Sensor::SerialLink { up: true }),
            (600, deck(DeckAfter::Set, &ALL))
        ]
    );
    run
}

#[test]
fn the_first_settled_deck_is_a_set() {
    let mut run = Run::new(TIMES);
    run.sample(0, bits(&[1, 2, 3]));
    run.until(599);
    assert_eq!(run.out, vec![(0, Sensor::SerialLink { up: true })]);
    run.until(600);
    assert_eq!(run.since(1), vec![(600, deck(DeckAfter::Set, &[1, 2, 3]))]);
}

#[test]
fn a_strike_then_the_set() {
    let mut run = full(TIMES);
    // The pins fall over 150 ms, 1 and 5 bouncing once.
    run.down(5000, &[1]);
    run.up(5005, &[1]);
    run.down(5010, &[1, 2, 3]);
    run.down(5080, &[4, 5, 6]);
    run.up(5090, &[5]);
    run.down(5095, &[5, 7, 8, 9, 10]);
    run.until(20_000);
    assert_eq!(run.since(2000), vec![(5695, deck(DeckAfter::Ball, &[]))]);
    run.up(30_000, &ALL);
    run.until(40_000);
    assert_eq!(
        run.since(30_000),
        vec![(30_600, deck(DeckAfter::Set, &ALL))]
    );
}

#[test]
fn a_spare_in_two_balls() {
    let mut run = full(TIMES);
    run.down(5000, &[1, 2, 4, 5, 7, 8, 9]);
    run.until(10_000);
    run.down(15_000, &[3, 6]);
    run.down(15_100, &[10]);
    run.until(20_000);
    assert_eq!(
        run.since(2000),
        vec![
            (5600, deck(DeckAfter::Ball, &[3, 6, 10])),
            (15_700, deck(DeckAfter::Ball, &[])),
        ]
    );
}

#[test]
fn a_machine_lifting_every_pin_and_lowering_the_standing_ones_sets_the_deck() {
    let mut run = full(TIMES);
    run.down(5000, &[1, 2, 4, 5, 7, 8, 9]);
    // Pin 3 wobbles shorter than the debounce: nothing set.
    run.down(6000, &[3]);
    run.up(6005, &[3]);
    // Every pin lifted, the standing three lowered again.
    run.down(8000, &[3, 6, 10]);
    run.up(8400, &[3, 6, 10]);
    run.until(20_000);
    assert_eq!(
        run.since(2000),
        vec![
            (5600, deck(DeckAfter::Ball, &[3, 6, 10])),
            (9000, deck(DeckAfter::Set, &[3, 6, 10])),
        ]
    );
}

#[test]
fn a_seven_ten_split_is_a_ball_deck_of_two() {
    let mut run = full(TIMES);
    run.down(5000, &[1, 2, 3, 5]);
    run.down(5040, &[4, 6, 8, 9]);
    run.until(10_000);
    assert_eq!(
        run.since(2000),
        vec![(5640, deck(DeckAfter::Ball, &[7, 10]))]
    );
}

#[test]
fn a_gutter_ball_without_a_cycle_input_reports_nothing() {
    let mut run = full(TIMES);
    run.until(60_000);
    assert_eq!(run.since(2000), vec![]);
}

#[test]
fn a_gutter_ball_with_a_cycle_input_is_a_full_ball_deck_then_a_set() {
    let mut run = full(DeckTimes {
        cycle: true,
        ..TIMES
    });
    run.cycle(10_000, true);
    // The strings lift and lower the pins during the cycle: no report.
    run.down(10_500, &ALL);
    run.up(12_000, &ALL);
    run.cycle(14_000, false);
    run.until(20_000);
    assert_eq!(
        run.since(2000),
        vec![
            (10_020, deck(DeckAfter::Ball, &ALL)),
            (14_620, deck(DeckAfter::Set, &ALL)),
        ]
    );
}

#[test]
fn with_a_cycle_input_a_ball_already_reported_is_not_reported_again() {
    let mut run = full(DeckTimes {
        cycle: true,
        ..TIMES
    });
    run.down(5000, &[1, 2, 3, 5, 8, 9]);
    run.cycle(7000, true);
    run.down(7500, &[4, 6, 7, 10]);
    run.up(9000, &[4, 6, 7, 10]);
    run.cycle(10_000, false);
    run.until(20_000);
    assert_eq!(
        run.since(2000),
        vec![
            (5600, deck(DeckAfter::Ball, &[4, 6, 7, 10])),
            (10_620, deck(DeckAfter::Set, &[4, 6, 7, 10])),
        ]
    );
}

#[test]
fn a_flickering_switch_is_one_fault_and_no_deck() {
    let mut run = full(TIMES);
    // Pin 4 chatters every 50 ms for a second, then lies down.
    for i in 0..20u64 {
        if i % 2 == 0 {
            run.down(5000 + i * 50, &[4]);
        } else {
            run.up(5000 + i * 50, &[4]);
        }
    }
    run.down(6000, &[4]);
    run.until(10_000);
    assert_eq!(
        run.since(2000),
        vec![(5300, fault(DeckFault::Flicker, &[4]))]
    );
    // The next episode gives decks again.
    run.down(12_000, &[1]);
    run.until(20_000);
    assert_eq!(
        run.since(11_000),
        vec![(12_600, deck(DeckAfter::Ball, &[2, 3, 5, 6, 7, 8, 9, 10]))]
    );
}

#[test]
fn a_deck_that_never_settles_is_reported_once() {
    let mut run = full(DeckTimes {
        flicker_changes: 1000,
        ..TIMES
    });
    // Pin 6 changes every 300 ms for 30 s: never 600 ms quiet.
    for i in 0..100u64 {
        if i % 2 == 0 {
            run.down(5000 + i * 300, &[6]);
        } else {
            run.up(5000 + i * 300, &[6]);
        }
    }
    run.until(60_000);
    assert_eq!(
        run.since(2000),
        vec![(13_000, fault(DeckFault::Unsettled, &[6]))]
    );
}

#[test]
fn a_bounce_shorter_than_the_debounce_is_ignored() {
    let mut run = full(TIMES);
    run.down(5000, &[5]);
    run.up(5015, &[5]);
    run.until(10_000);
    assert_eq!(run.since(2000), vec![]);
    assert_eq!(run.deck.stable(), bits(&ALL));
    // A pin down and back up again leaves the same deck: not reported.
    run.down(11_000, &[3]);
    run.up(11_200, &[3]);
    run.until(15_000);
    assert_eq!(run.since(2000), vec![]);
}

#[test]
fn the_expander_failing_and_coming_back() {
    let mut run = full(TIMES);
    run.out
        .extend(run.deck.unreadable(5000).into_iter().map(|s| (5000, s)));
    // Retried with backoff: still failing, reported once.
    for t in [5100, 5300, 5700, 6500] {
        run.out
            .extend(run.deck.unreadable(t).into_iter().map(|s| (t, s)));
        run.until(t);
    }
    assert_eq!(run.deck.deadline(), None);
    // It answers again: the deck as it stands, as a Set.
    run.sample(8000, bits(&[1, 2, 3, 4, 5, 6, 7, 8, 9]));
    run.until(20_000);
    assert_eq!(
        run.since(2000),
        vec![
            (5000, Sensor::SerialLink { up: false }),
            (8000, Sensor::SerialLink { up: true }),
            (8600, deck(DeckAfter::Set, &[1, 2, 3, 4, 5, 6, 7, 8, 9])),
        ]
    );
}

//! Scenarios from the lane, driven through the lane's public API: a judge,
//! an assistant, the pinsetter and the sensors, each event built in Rust.
//!
//! Times are milliseconds since the journal started. Unless a scenario says
//! otherwise the rules are the defaults: a ball break is at most 100 ms, a
//! ball takes 2.5 s from the line to the detector, the pin report is due
//! 15 s after the ball, the slow-bowling limit is 60 s and the foul lamp
//! stays on 3 s.

use lanecall::journal::Header;
use lanecall::lane::scoring::{self, Ball, Sheet};
use lanecall::lane::{
    Action, Bowler, Class, Conduct, ConductKind, Effect, Effects, Event, FoulMode, Lane, LaterBall,
    Level, Millis, Output, OutputChange, Panel, Pin, PinSet, Refusal, Rules, Sensor, Side, Stamped,
    Switch, Withdrawable,
};
use lanecall::lane::{DeckAfter, DeckFault};
use lanecall::pinsetter::{Body, Message, format_line};
use lanecall::replay::Replay;

// ----- the lane and its people ----------------------------------------------

fn pins(list: &[u8]) -> PinSet {
    PinSet::from_pins(list.iter().map(|&n| Pin::new(n).expect("a pin number")))
}

fn bowler(name: &str, class: Class) -> Bowler {
    Bowler {
        name: name.to_owned(),
        class,
        handicap: 0,
        team: None,
        voice: Default::default(),
    }
}

const JUDGE: &str = "Judge Ivanova";

/// A lane with its pinsetter's sequence counter.
struct Sim {
    lane: Lane,
    seq: u8,
}

impl Sim {
    fn new(rules: Rules) -> Sim {
        Sim {
            lane: Lane::new(7, rules),
            seq: 0,
        }
    }

    /// Lineup, a blindfold check for every B1 bowler and the block's start,
    /// all at t = 0: the slow clock of the first bowler starts then.
    fn start(rules: Rules, lineup: &[(&str, Class)], games: u32) -> Sim {
        let mut s = Sim::new(rules);
        let bowlers: Vec<Bowler> = lineup.iter().map(|&(n, c)| bowler(n, c)).collect();
        s.ok(0, Action::lineup(bowlers));
        for &(name, class) in lineup {
            if class == Class::B1 {
                s.ok(
                    0,
                    Action::BlindfoldCheck {
                        bowler: name.to_owned(),
                        ok: true,
                    },
                );
            }
        }
        s.ok(0, Action::StartBlock { games });
        s
    }

    fn handle(&mut self, t: Millis, event: Event) -> Vec<Effect> {
        let mut out = Vec::new();
        self.lane.handle(t, &event, &mut out);
        out
    }

    fn tick(&mut self, now: Millis) -> Vec<Effect> {
        let mut out = Vec::new();
        self.lane.tick(now, &mut out);
        out
    }

    fn sensor(&mut self, t: Millis, s: Sensor) -> Vec<Effect> {
        self.handle(t, Event::Sensor(s))
    }

    /// A panel action by the judge.
    fn judge(&mut self, t: Millis, action: Action) -> Vec<Effect> {
        self.handle(t, Event::Panel(Panel::new(Some(JUDGE.to_owned()), action)))
    }

    /// A panel action the lane must accept.
    fn ok(&mut self, t: Millis, action: Action) -> Vec<Effect> {
        let what = format!("{action:?}");
        let fx = self.judge(t, action);
        assert_eq!(fx.refusals(), [], "{what} at t={t}");
        fx
    }

    fn serial(&mut self, t: Millis, body: Body) -> Vec<Effect> {
        let line = format_line(&Message {
            seq: self.seq,
            body,
        });
        self.seq = self.seq.wrapping_add(1);
        self.sensor(t, Sensor::Serial { line })
    }

    /// A line with sequence number `seq`, the counter left as it is: a
    /// resend, or a line that claims a number already used.
    fn line(&mut self, t: Millis, seq: u8, body: Body) -> Vec<Effect> {
        let line = format_line(&Message { seq, body });
        self.sensor(t, Sensor::Serial { line })
    }

    fn ready(&mut self, t: Millis, deck: PinSet) -> Vec<Effect> {
        self.serial(t, Body::Ready(deck))
    }

    fn report(&mut self, t: Millis, standing: PinSet) -> Vec<Effect> {
        self.serial(t, Body::Pins(standing))
    }

    fn ball(&mut self, t: Millis) -> Vec<Effect> {
        self.sensor(t, Sensor::Ball)
    }

    fn beam(&mut self, t: Millis, broken: bool) -> Vec<Effect> {
        self.sensor(t, Sensor::FoulBeam { broken })
    }

    fn button(&mut self, t: Millis, name: &str) -> Vec<Effect> {
        self.sensor(
            t,
            Sensor::Button {
                name: name.to_owned(),
            },
        )
    }

    /// The ball reaches the detector at `t`; the pinsetter reports 500 ms
    /// later.
    fn delivery(&mut self, t: Millis, standing: PinSet) -> Vec<Effect> {
        let mut fx = self.ball(t);
        fx.extend(self.report(t + 500, standing));
        fx
    }

    /// One whole ball at a good pace, starting at `t`: the pinsetter's
    /// READY with the deck the bowler up faces, the ball 5 s later and its
    /// pin report. Returns the effects of the pin report's ball.
    fn bowl(&mut self, t: Millis, standing: PinSet) -> Vec<Effect> {
        let deck = self.lane.up().map_or(PinSet::FULL, |u| u.at.before);
        self.ready(t, deck);
        self.delivery(t + 5_000, standing)
    }

    /// Open frames of 9 (`9-`) until game `game` is over for everybody;
    /// returns the time after the last ball.
    fn open_frames_through_game(&mut self, mut t: Millis, game: u8) -> Millis {
        while let Some(up) = self.lane.up().filter(|u| u.game <= game) {
            assert_eq!(self.bowl(t, pins(&[7])).refusals(), [], "{up:?}");
            t += 10_000;
        }
        t
    }

    fn sheet(&self, entry: usize, game: usize) -> Sheet {
        scoring::sheet(
            &self.lane.entries()[entry].games[game],
            self.lane.rules().fouls_count(),
        )
    }

    fn marks(&self, entry: usize, game: usize) -> Vec<String> {
        self.sheet(entry, game)
            .frames
            .iter()
            .map(|f| f.marks())
            .collect()
    }

    /// Who is up, as (entry, game, frame, ball).
    fn up(&self) -> Option<(usize, u8, u8, u8)> {
        self.lane
            .up()
            .map(|u| (u.entry, u.game, u.at.frame, u.at.ball))
    }

    /// The lane's state as text, to show that a refused input changed
    /// nothing.
    fn snapshot(&self) -> String {
        format!("{:?}", self.lane)
    }

    /// The state the lane would have if only time passed until `t`.
    fn snapshot_after_time(&self, t: Millis) -> String {
        let mut copy = self.lane.clone();
        copy.tick(t, &mut Vec::new());
        format!("{copy:?}")
    }
}

// ----- reading the effects (lanecall::lane::Effects) -------------------------

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|w| (*w).to_owned()).collect()
}

fn out(t: Millis, output: Output, switch: Switch) -> OutputChange {
    OutputChange { t, output, switch }
}

fn is_slow(c: &Conduct) -> bool {
    matches!(c.kind, ConductKind::SlowBowling { .. })
}

fn is_foul(c: &Conduct) -> bool {
    matches!(c.kind, ConductKind::Foul { .. })
}

/// A ball as the lane records it: `deck` is the pinsetter's last READY
/// before it, if one came.
fn recorded(t: Millis, standing: PinSet, corrected: bool, deck: Option<PinSet>) -> Ball {
    Ball {
        t,
        standing,
        foul: false,
        channel: None,
        corrected,
        deck,
    }
}

fn correct(bowler: &str, frame: u8, ball: u8, standing: PinSet) -> Action {
    Action::Correct {
        bowler: bowler.to_owned(),
        game: 1,
        frame,
        ball,
        standing,
        twice: PinSet::EMPTY,
        foul: None,
        later: Vec::new(),
    }
}

fn warn_rules() -> Rules {
    Rules {
        foul_mode: FoulMode::Warn,
        ..Rules::default()
    }
}

// ----- the pin report --------------------------------------------------------

#[test]
fn a_ball_without_a_pin_report_raises_the_alarm_at_the_timeout_and_a_late_report_still_counts() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.ready(1_000, PinSet::FULL);
    s.ball(5_000);

    // 5 s + pin_report_timeout_ms (15 s).
    assert_eq!(s.lane.poll_deadline(), Some(20_000));
    assert_eq!(s.tick(19_999), []);
    let fx = s.tick(20_000);
    let alarms = fx.conducts();
    assert_eq!(alarms.len(), 1, "{fx:?}");
    assert_eq!(alarms[0].t, 20_000);
    assert_eq!(alarms[0].kind, ConductKind::NoPinReport);
    assert_eq!(s.lane.conduct(), &alarms[..]);
    assert!(s.lane.entries()[0].games.is_empty(), "no ball without pins");

    // The pinsetter answers late: the ball is Anna's first.
    let fx = s.report(25_000, pins(&[7, 10]));
    assert_eq!(fx.refusals(), []);
    assert_eq!(
        s.lane.entries()[0].games,
        [vec![recorded(
            25_000,
            pins(&[7, 10]),
            false,
            Some(PinSet::FULL)
        )]]
    );
    assert_eq!(fx.said(), [words(&["7", "10"])]); // no "split" in competition
    assert_eq!(s.up(), Some((0, 1, 1, 2)));
    assert_eq!(s.lane.up().unwrap().at.before, pins(&[7, 10]));
    assert_eq!(s.lane.conduct().len(), 1, "no second alarm");
}

#[test]
fn a_judge_correction_for_the_ball_awaiting_its_pin_report_records_it() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.ready(1_000, PinSet::FULL);
    s.ball(5_000);
    s.tick(20_000);
    assert_eq!(s.lane.conduct()[0].kind, ConductKind::NoPinReport);

    // The panel asks the judge for the standing pins of Anna's 1st ball.
    let fx = s.judge(21_000, correct("Anna", 1, 1, pins(&[10])));
    assert_eq!(fx.refusals(), []);
    assert_eq!(
        s.lane.entries()[0].games,
        [vec![recorded(
            21_000,
            pins(&[10]),
            true,
            Some(PinSet::FULL)
        )]]
    );
    assert_eq!(fx.said(), [words(&["10", "right_side"])]);
    assert_eq!(s.up(), Some((0, 1, 1, 2)));
    assert_eq!(
        s.lane.poll_deadline(),
        Some(24_000),
        "no alarm is due any more, only the end of the ball's foul window"
    );

    // The game goes on from the judge's entry: ball 2 at the 10.
    s.ready(22_000, pins(&[10]));
    let fx = s.delivery(27_000, PinSet::EMPTY);
    assert_eq!(fx.said(), [words(&["spare"])]);
    assert_eq!(s.marks(0, 0), ["9/"]);
}

#[test]
fn a_second_ball_before_the_pin_report_is_refused_and_changes_nothing() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.ready(1_000, PinSet::FULL);
    s.ball(5_000);

    let expected = s.snapshot_after_time(6_000);
    let fx = s.ball(6_000);
    assert_eq!(fx, [Effect::Refused(Refusal::SecondBall(5_000))]);
    assert_eq!(s.snapshot(), expected);
    assert_eq!(
        s.lane.poll_deadline(),
        Some(20_000),
        "alarm of the 1st ball"
    );

    s.report(7_000, pins(&[4]));
    assert_eq!(s.lane.entries()[0].games[0].len(), 1);
    assert_eq!(s.marks(0, 0), ["9"]);
}

// ----- holds -----------------------------------------------------------------

#[test]
fn a_pinsetter_fault_holds_the_lane_and_stops_the_slow_clock_until_the_next_ready() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.ready(0, PinSet::FULL);
    assert!(!s.lane.held());

    let fx = s.serial(10_000, Body::Fault("JAM".to_owned()));
    assert_eq!(fx.refusals(), []);
    assert!(s.lane.held());
    assert_eq!(s.lane.pinsetter_fault(), Some("JAM"));
    assert_eq!(s.lane.slow_clock(), Some((0, 10_000, false)));
    let c = fx.conducts();
    assert_eq!(c.len(), 1);
    assert_eq!((c[0].t, c[0].bowler.as_deref()), (10_000, None));
    assert_eq!(
        c[0].kind,
        ConductKind::PinsetterFault {
            text: "JAM".to_owned()
        }
    );

    // Three minutes of repair: no slow bowling.
    assert_eq!(s.lane.poll_deadline(), None);
    assert_eq!(s.tick(200_000), []);
    assert_eq!(s.lane.slow_clock(), Some((0, 10_000, false)));

    s.ready(200_000, PinSet::FULL);
    assert!(!s.lane.held());
    assert_eq!(s.lane.pinsetter_fault(), None);
    assert_eq!(s.lane.slow_clock(), Some((0, 10_000, true)));
    // 50 s left on the clock: flagged once past them.
    assert_eq!(s.lane.poll_deadline(), Some(250_001));
    assert!(s.tick(250_000).conducts().is_empty());
    let slow = s.tick(250_001).conducts();
    assert_eq!(slow.len(), 1);
    assert_eq!(slow[0].t, 250_001);
    assert_eq!(
        slow[0].kind,
        ConductKind::SlowBowling {
            level: Level::Warning,
            seconds: 60.001,
            confirmed_by: None
        }
    );
}

#[test]
fn a_judge_hold_stops_the_slow_clock_until_released_and_a_second_hold_is_refused() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.ready(0, PinSet::FULL);

    let hold = |on| Action::Hold {
        on,
        reason: Some("ball return".to_owned()),
    };
    let fx = s.judge(10_000, hold(true));
    assert_eq!(fx.refusals(), []);
    assert!(s.lane.held());
    let h = s.lane.hold().expect("held");
    assert_eq!(h.since, 10_000);
    assert_eq!(h.reason.as_deref(), Some("ball return"));
    assert_eq!(h.by.as_deref(), Some(JUDGE));
    assert_eq!(s.lane.slow_clock(), Some((0, 10_000, false)));
    assert_eq!(s.lane.poll_deadline(), None);

    let before = s.snapshot_after_time(15_000);
    let fx = s.judge(15_000, hold(true));
    assert_eq!(fx, [Effect::Refused(Refusal::AlreadyHeld)]);
    assert_eq!(s.snapshot(), before);

    let fx = s.judge(40_000, hold(false));
    assert_eq!(fx.refusals(), []);
    assert!(!s.lane.held());
    assert_eq!(s.lane.hold(), None);
    assert_eq!(s.lane.slow_clock(), Some((0, 10_000, true)));
    assert_eq!(s.lane.poll_deadline(), Some(90_001));

    let fx = s.judge(41_000, hold(false));
    assert_eq!(fx, [Effect::Refused(Refusal::NotHeld)]);
}

// ----- slow bowling ----------------------------------------------------------

#[test]
fn slow_bowling_is_flagged_before_the_release_and_the_second_time_is_a_penalty_a_judge_confirms() {
    let mut s = Sim::start(
        Rules::default(),
        &[("Anna", Class::B3), ("Boris", Class::B3)],
        1,
    );
    s.ready(0, PinSet::FULL);

    // Anna still holds the ball when her 60 s are past.
    assert_eq!(s.lane.poll_deadline(), Some(60_001));
    assert_eq!(s.tick(60_000).conducts(), []);
    let fx = s.tick(60_001);
    let c = fx.conducts();
    assert_eq!(c.len(), 1);
    assert_eq!((c[0].t, c[0].bowler.as_deref()), (60_001, Some("Anna")));
    assert_eq!(
        c[0].kind,
        ConductKind::SlowBowling {
            level: Level::Warning,
            seconds: 60.001,
            confirmed_by: None
        }
    );
    // She releases at 67.5 s (no ball break: ball − 2.5 s); the entry
    // keeps her whole time.
    s.delivery(70_000, pins(&[7]));
    assert_eq!(
        s.lane.conduct()[0].kind,
        ConductKind::SlowBowling {
            level: Level::Warning,
            seconds: 67.5,
            confirmed_by: None
        }
    );

    // Her second ball: slow again, a penalty for the judge.
    s.ready(71_000, pins(&[7]));
    let c = s.tick(131_001).conducts();
    assert_eq!(c.len(), 1);
    assert_eq!((c[0].t, c[0].bowler.as_deref()), (131_001, Some("Anna")));
    assert_eq!(
        c[0].kind,
        ConductKind::SlowBowling {
            level: Level::Penalty,
            seconds: 60.001,
            confirmed_by: None
        }
    );
    s.delivery(135_000, PinSet::EMPTY);

    // Boris's first slow ball is his own warning.
    s.ready(136_000, PinSet::FULL);
    assert_eq!(s.up(), Some((1, 1, 1, 1)));
    let c = s.tick(196_001).conducts();
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].bowler.as_deref(), Some("Boris"));
    assert!(matches!(
        c[0].kind,
        ConductKind::SlowBowling {
            level: Level::Warning,
            ..
        }
    ));
    // He releases at 61.5 s.
    s.delivery(200_000, pins(&[1, 2, 3]));

    let fx = s.judge(
        203_000,
        Action::Penalty {
            bowler: "Anna".to_owned(),
            reason: "slow bowling, second time".to_owned(),
        },
    );
    assert_eq!(fx.refusals(), []);
    let kinds: Vec<(Option<&str>, &ConductKind)> = s
        .lane
        .conduct()
        .iter()
        .map(|c| (c.bowler.as_deref(), &c.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            (
                Some("Anna"),
                &ConductKind::SlowBowling {
                    level: Level::Warning,
                    seconds: 67.5,
                    confirmed_by: None
                }
            ),
            (
                Some("Anna"),
                &ConductKind::SlowBowling {
                    level: Level::Penalty,
                    seconds: 61.5,
                    confirmed_by: Some(JUDGE.to_owned())
                }
            ),
            (
                Some("Boris"),
                &ConductKind::SlowBowling {
                    level: Level::Warning,
                    seconds: 61.5,
                    confirmed_by: None
                }
            ),
            (
                Some("Anna"),
                &ConductKind::Penalty {
                    reason: "slow bowling, second time".to_owned(),
                    by: Some(JUDGE.to_owned()),
                    withdrawn: false,
                    confirms: Some(s.lane.conduct()[1].id),
                }
            ),
        ]
    );

    // The judge takes the penalty back: it no longer counts, and the
    // clock's penalty waits for a judge again. Twice is refused.
    let withdraw = Action::Withdraw {
        of: Withdrawable::Penalty,
        at: 203_000,
        bowler: Some("Anna".to_owned()),
    };
    s.ok(204_000, withdraw.clone());
    assert!(matches!(
        s.lane.conduct()[3].kind,
        ConductKind::Penalty {
            withdrawn: true,
            confirms: None,
            ..
        }
    ));
    assert!(matches!(
        s.lane.conduct()[1].kind,
        ConductKind::SlowBowling {
            level: Level::Penalty,
            confirmed_by: None,
            ..
        }
    ));
    let fx = s.judge(205_000, withdraw);
    assert!(
        matches!(
            &fx.refusals()[..],
            [Refusal::NothingToWithdraw {
                what: "penalty",
                at: 203_000,
                ..
            }]
        ),
        "{fx:?}"
    );
    let text = fx.refusals()[0].to_string();
    assert!(text.contains("penalty at t=203000 for Anna"), "{text}");
}

#[test]
fn the_ball_detector_stops_the_slow_clock_while_the_pin_report_is_awaited() {
    // Anna releases at 47.5 s (ball seen at 50 s, no ball break): she was
    // in time, whatever the pinsetter does afterwards.
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.ready(0, PinSet::FULL);
    s.ball(50_000);
    let fx = s.tick(65_000);
    let kinds: Vec<ConductKind> = fx.conducts().into_iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [ConductKind::NoPinReport]);
    assert!(!s.lane.conduct().iter().any(is_slow));
}

#[test]
fn after_a_correction_changes_who_is_up_the_slow_clock_runs_for_the_new_bowler() {
    let mut s = Sim::start(
        Rules::default(),
        &[("Anna", Class::B3), ("Boris", Class::B3)],
        1,
    );
    s.ready(500, PinSet::FULL);
    s.delivery(5_000, pins(&[7]));
    s.ready(6_000, pins(&[7]));
    assert_eq!(s.lane.slow_clock().map(|c| c.0), Some(0));
    // The 7 fell late: a strike, and Boris is up.
    s.ok(8_000, correct("Anna", 1, 1, PinSet::EMPTY));
    assert_eq!(s.up(), Some((1, 1, 1, 1)));
    s.ready(10_000, PinSet::FULL);
    // Boris takes 65 s: the warning is his, not Anna's.
    let c = s.tick(75_000).conducts();
    let who: Vec<(Millis, Option<&str>)> = c.iter().map(|c| (c.t, c.bowler.as_deref())).collect();
    assert_eq!(who, [(70_001, Some("Boris"))]);
    assert_eq!(s.lane.slow_clock().map(|c| c.0), Some(1), "Boris's clock");
}

// ----- fouls -----------------------------------------------------------------

#[test]
fn a_long_break_after_the_pin_report_before_ready_is_a_foul_on_the_recorded_ball() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B2)], 1);
    s.ready(1_000, PinSet::FULL);
    let fx = s.delivery(5_000, pins(&[7]));
    assert_eq!(fx.said(), [words(&["7", "left_side"])]);
    assert_eq!(s.marks(0, 0), ["9"]);

    // She steps over the line after the ball: the beam stays broken.
    s.beam(6_000, true);
    assert_eq!(s.lane.poll_deadline(), Some(6_101));
    let fx = s.tick(6_200);
    let c = fx.conducts();
    assert_eq!(c.len(), 1, "{fx:?}");
    assert_eq!((c[0].t, c[0].bowler.as_deref()), (6_101, Some("Anna")));
    assert_eq!(
        c[0].kind,
        ConductKind::Foul {
            game: 1,
            frame: 1,
            ball: 1,
            counted: true,
            withdrawn: false,
            by: None
        }
    );
    assert_eq!(
        fx.outputs(),
        [
            out(6_101, Output::FoulLamp, Switch::On),
            out(6_101, Output::PinsetterReset, Switch::Pulse)
        ]
    );
    assert_eq!(fx.said(), [words(&["foul"])]);
    s.beam(7_000, false);

    // Re-scored: F, and the second ball is at a full rack.
    assert_eq!(s.marks(0, 0), ["F"]);
    assert_eq!(s.sheet(0, 0).frames[0].balls[0].pinfall, 0);
    let up = s.lane.up().unwrap();
    assert_eq!((up.at.frame, up.at.ball), (1, 2));
    assert_eq!(up.at.before, PinSet::FULL);
    assert!(!up.at.fresh_rack);

    // All ten on the second ball is a spare: F/, and the bonus is the next
    // ball.
    s.ready(8_000, PinSet::FULL);
    let fx = s.delivery(12_000, PinSet::EMPTY);
    assert_eq!(fx.said(), [words(&["spare"])]);
    s.bowl(13_000, pins(&[6, 7, 8, 9, 10]));
    assert_eq!(s.marks(0, 0), ["F/", "5"]);
    assert_eq!(s.sheet(0, 0).frames[0].cumulative, Some(15));
    assert_eq!(s.lane.conduct().iter().filter(|c| is_foul(c)).count(), 1);
}

#[test]
fn a_late_foul_on_a_strike_gives_the_bowler_a_second_ball_at_a_full_rack() {
    let mut s = Sim::start(
        Rules::default(),
        &[("Anna", Class::B3), ("Boris", Class::B3)],
        1,
    );
    s.ready(1_000, PinSet::FULL);
    s.delivery(5_000, PinSet::EMPTY);
    assert_eq!(s.up(), Some((1, 1, 1, 1)), "Boris after Anna's strike");
    s.beam(6_000, true);
    let fx = s.beam(6_500, false);
    assert_eq!(fx.said(), [words(&["foul"])]);
    assert_eq!(s.marks(0, 0), ["F"]);
    assert_eq!(s.up(), Some((0, 1, 1, 2)), "Anna's frame is not over");
    s.ready(8_000, PinSet::FULL);
    s.delivery(12_000, PinSet::EMPTY);
    assert_eq!(s.marks(0, 0), ["F/"]);
    assert_eq!(s.up(), Some((1, 1, 1, 1)));
}

#[test]
fn a_long_break_after_ready_is_orientation_for_the_next_ball_not_a_foul() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B1)], 1);
    s.ready(1_000, PinSet::FULL);
    s.delivery(5_000, pins(&[7]));
    s.ready(6_000, pins(&[7]));

    // She walks to the line to find it, and steps back.
    s.beam(7_000, true);
    s.beam(7_800, false);
    // The ball crosses the line at 10 s.
    s.beam(10_000, true);
    s.beam(10_030, false);
    let fx = s.delivery(12_000, PinSet::EMPTY);

    assert_eq!(fx.said(), [words(&["spare"])]);
    assert_eq!(s.marks(0, 0), ["9/"]);
    assert!(s.lane.entries()[0].games[0].iter().all(|b| !b.foul));
    assert!(!s.lane.conduct().iter().any(is_foul));
    assert_eq!(fx.outputs(), []);
}

// ----- the foul window: until the lane is ready for the next ball ------------

fn fouls_called(s: &Sim) -> usize {
    s.lane.conduct().iter().filter(|c| is_foul(c)).count()
}

/// The rules of a journal written before `foul_window_ms`: a foul could
/// be called until the next READY or the next delivery.
fn window_of_old() -> Rules {
    Rules {
        foul_window_ms: None,
        ..Rules::default()
    }
}

/// A string pinsetter that leaves the standing pins sets no deck between a
/// frame's balls: once the deck after the first ball settled, the lane is
/// ready for the second, and a B1 bowler walking to the line to find it is
/// orienting, not fouling the first ball.
#[test]
fn on_a_string_pinsetter_the_settled_deck_the_next_ball_is_rolled_at_ends_the_foul_window() {
    let mut s = string_lane();
    s.ball(6_000);
    s.sensor(7_500, deck(DeckAfter::Ball, &[7, 10]));
    assert_eq!(s.lane.in_play(), None, "the lane is ready for ball 2");
    // She orients over the line, and steps back.
    s.beam(9_000, true);
    let fx = s.beam(10_000, false);
    assert_eq!((fx.conducts(), fx.said()), (vec![], vec![]));
    assert_eq!(s.marks(0, 0), ["8"]);
    // Ball 2 crosses the line at 14 s: the orientation was before it.
    s.beam(14_000, true);
    s.beam(14_030, false);
    s.ball(16_000);
    let fx = s.sensor(17_500, deck(DeckAfter::Ball, &[]));
    assert_eq!(fx.said(), [words(&["spare"])]);
    assert_eq!(s.marks(0, 0), ["8/"]);
    assert_eq!(fouls_called(&s), 0);
    assert_eq!(fx.outputs(), []);
}

/// After a frame's last ball the machine must set a new rack: the ball is
/// in play until that deck is set, at most `foul_window_ms` after the pin
/// report.
#[test]
fn on_a_string_pinsetter_a_foul_before_the_next_deck_is_set_is_still_called() {
    let mut s = string_lane();
    s.ball(6_000);
    s.sensor(7_500, deck(DeckAfter::Ball, &[7, 10]));
    s.ball(16_000);
    s.sensor(17_500, deck(DeckAfter::Ball, &[10]));
    assert_eq!(s.marks(0, 0), ["81"]);
    assert!(s.lane.in_play().is_some(), "no full rack set yet");
    s.beam(18_500, true);
    let fx = s.beam(19_200, false);
    assert_eq!(fx.said(), [words(&["foul"])]);
    assert_eq!(s.marks(0, 0), ["8F"]);
    assert_eq!(fouls_called(&s), 1);
}

/// The same lane under a journal written before the foul window: replayed
/// as it was, the orientation after the settled deck fouls the first ball.
#[test]
fn a_journal_without_the_foul_window_keeps_the_window_it_was_bowled_with() {
    let mut s = Sim::start(window_of_old(), &[("Anna", Class::B1)], 1);
    s.sensor(
        1_000,
        deck(DeckAfter::Set, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
    );
    s.ball(6_000);
    s.sensor(7_500, deck(DeckAfter::Ball, &[7, 10]));
    assert!(s.lane.in_play().is_some());
    s.beam(9_000, true);
    s.beam(10_000, false);
    assert_eq!(s.marks(0, 0), ["F"]);
    assert_eq!(fouls_called(&s), 1);
    // And a serial pinsetter's slow READY: the window runs until it.
    let mut s = Sim::start(window_of_old(), &[("Anna", Class::B1)], 1);
    s.ready(1_000, PinSet::FULL);
    s.delivery(5_000, pins(&[7]));
    assert_eq!(s.lane.poll_deadline(), None);
    s.beam(12_000, true);
    s.beam(13_000, false);
    assert_eq!(fouls_called(&s), 1);
}

/// A serial pinsetter whose READY is slow: the ball stops being in play
/// `foul_window_ms` (3 s) after its pin report, and the bowler orienting
/// after that, before the READY, is not fouling it.
#[test]
fn on_a_serial_pinsetter_a_slow_ready_ends_the_foul_window_foul_window_ms_after_the_pin_report() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B1)], 1);
    s.ready(1_000, PinSet::FULL);
    s.delivery(5_000, pins(&[7]));
    assert!(s.lane.in_play().is_some());
    assert_eq!(s.lane.poll_deadline(), Some(8_500), "the report at 5.5 s");
    let fx = s.tick(8_500);
    assert_eq!(fx.conducts(), []);
    assert_eq!(s.lane.in_play(), None);
    // She walks to the line to find it; the pinsetter's READY comes only
    // while she is there.
    s.beam(9_000, true);
    s.ready(9_500, pins(&[7]));
    let fx = s.beam(10_000, false);
    assert_eq!((fx.conducts(), fx.said()), (vec![], vec![]));
    assert_eq!(s.marks(0, 0), ["9"]);
    s.beam(14_000, true);
    s.beam(14_030, false);
    let fx = s.delivery(16_000, PinSet::EMPTY);
    assert_eq!(fx.said(), [words(&["spare"])]);
    assert_eq!(s.marks(0, 0), ["9/"]);
    assert_eq!(fouls_called(&s), 0);
}

/// A break that starts while the ball is in play is a foul on it, even
/// when it is told from a ball's passing only after the window closed.
#[test]
fn a_break_that_starts_inside_the_foul_window_is_a_foul_on_the_ball() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.ready(1_000, PinSet::FULL);
    s.delivery(5_000, pins(&[7]));
    // 50 ms before the window closes at 8.5 s; a person from 8.551 s.
    s.beam(8_450, true);
    let fx = s.tick(8_600);
    assert_eq!(fx.said(), [words(&["foul"])]);
    assert_eq!(fx.conducts()[0].t, 8_551);
    s.beam(9_000, false);
    assert_eq!(s.marks(0, 0), ["F"]);
    assert_eq!(s.lane.in_play(), None);
    // A READY before the window's time closes it, the same way.
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.ready(1_000, PinSet::FULL);
    s.delivery(5_000, pins(&[7]));
    s.beam(6_950, true);
    s.ready(7_000, pins(&[7]));
    let fx = s.tick(7_100);
    assert_eq!(fx.said(), [words(&["foul"])]);
    s.beam(7_500, false);
    // And one that starts after the READY is orientation.
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.ready(1_000, PinSet::FULL);
    s.delivery(5_000, pins(&[7]));
    s.ready(7_000, pins(&[7]));
    s.beam(7_010, true);
    let fx = s.beam(7_500, false);
    assert_eq!(fx.said(), Vec::<Vec<String>>::new());
    assert_eq!(fouls_called(&s), 0);
}

#[test]
fn the_foul_lamp_goes_off_foul_lamp_ms_after_it_went_on() {
    let rules = Rules {
        foul_lamp_ms: 2_000,
        ..Rules::default()
    };
    let mut s = Sim::start(rules, &[("Anna", Class::B3)], 1);
    s.ready(1_000, PinSet::FULL);
    s.delivery(5_000, pins(&[7]));
    s.beam(6_000, true);
    let fx = s.beam(6_400, false);
    assert_eq!(
        fx.outputs()[0],
        out(6_101, Output::FoulLamp, Switch::On),
        "{fx:?}"
    );
    assert_eq!(s.lane.poll_deadline(), Some(8_101));
    assert_eq!(s.tick(8_100).outputs(), []);
    assert_eq!(
        s.tick(8_101).outputs(),
        [out(8_101, Output::FoulLamp, Switch::Off)]
    );
    // Then only the ball's foul window, 3 s after its pin report.
    assert_eq!(s.lane.poll_deadline(), Some(8_500));
    assert_eq!(s.tick(8_500).outputs(), []);
    assert_eq!(s.lane.poll_deadline(), None);
}

#[test]
fn in_warn_mode_a_foul_lights_the_lamp_and_is_listed_but_the_pins_count() {
    let mut s = Sim::start(warn_rules(), &[("Anna", Class::B3)], 1);
    s.ready(1_000, PinSet::FULL);
    s.delivery(5_000, pins(&[7]));
    s.beam(6_000, true);
    let fx = s.beam(6_400, false);

    let c = fx.conducts();
    assert_eq!(c.len(), 1, "{fx:?}");
    assert_eq!(
        c[0].kind,
        ConductKind::Foul {
            game: 1,
            frame: 1,
            ball: 1,
            counted: false,
            withdrawn: false,
            by: None
        }
    );
    assert_eq!(fx.outputs(), [out(6_101, Output::FoulLamp, Switch::On)]);

    assert_eq!(s.marks(0, 0), ["9"]);
    assert_eq!(s.sheet(0, 0).frames[0].balls[0].pinfall, 9);
    let up = s.lane.up().unwrap();
    assert_eq!((up.at.frame, up.at.ball, up.at.before), (1, 2, pins(&[7])));
    s.ready(8_000, pins(&[7]));
    s.delivery(12_000, PinSet::EMPTY);
    s.bowl(13_000, pins(&[6, 7, 8, 9, 10]));
    assert_eq!(s.marks(0, 0), ["9/", "5"]);
    assert_eq!(s.sheet(0, 0).frames[0].cumulative, Some(15));
}

// ----- no pinsetter ----------------------------------------------------------

#[test]
fn manual_pins_record_a_ball_without_a_pinsetter_and_the_lane_is_ready_at_once() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    let manual = |list: &[u8]| Action::ManualPins {
        standing: pins(list),
        twice: PinSet::EMPTY,
    };

    let fx = s.ok(10_000, manual(&[7, 10]));
    assert_eq!(fx.said(), [words(&["7", "10"])]); // no "split" in competition
    assert_eq!(
        s.lane.entries()[0].games,
        [vec![recorded(10_000, pins(&[7, 10]), false, None)]]
    );
    assert_eq!(s.up(), Some((0, 1, 1, 2)));
    assert_eq!(s.lane.up().unwrap().at.before, pins(&[7, 10]));
    assert_eq!(s.lane.slow_clock(), Some((0, 0, true)));

    let fx = s.ok(20_000, manual(&[]));
    assert_eq!(fx.said(), [words(&["spare"])]);
    assert_eq!(s.marks(0, 0), ["8/"]);
    assert_eq!(s.up(), Some((0, 1, 2, 1)));
    assert_eq!(s.lane.slow_clock(), Some((0, 0, true)));
    assert_eq!(s.lane.poll_deadline(), Some(80_001));
}

#[test]
fn pins_entered_by_hand_are_withdrawn_while_their_ball_is_the_last() {
    let mut s = Sim::start(
        Rules::default(),
        &[("Anna", Class::B3), ("Boris", Class::B3)],
        1,
    );
    let manual = |list: &[u8]| Action::ManualPins {
        standing: pins(list),
        twice: PinSet::EMPTY,
    };
    let withdraw = |at| Action::Withdraw {
        of: Withdrawable::ManualPins,
        at,
        bowler: None,
    };
    s.ok(10_000, manual(&[7, 10]));
    s.ok(20_000, manual(&[]));
    assert_eq!(s.up(), Some((1, 1, 1, 1)));

    // A tap too many: Anna's spare was a miss of the 10 pin.
    s.ok(21_000, withdraw(20_000));
    assert_eq!(s.marks(0, 0), ["8"]);
    assert_eq!(s.up(), Some((0, 1, 1, 2)));
    assert_eq!(s.lane.up().unwrap().at.before, pins(&[7, 10]));
    assert_eq!(s.lane.slow_clock(), Some((0, 0, true)), "ready at once");
    s.ok(22_000, manual(&[10]));
    assert_eq!(s.marks(0, 0), ["81"]);

    // Only the last ball, and only one entered by hand.
    let fx = s.judge(23_000, withdraw(10_000));
    assert!(
        matches!(
            &fx.refusals()[..],
            [Refusal::NothingToWithdraw {
                what: "manual_pins",
                at: 10_000,
                ..
            }]
        ),
        "{fx:?}"
    );
    s.ready(24_000, PinSet::FULL);
    s.delivery(30_000, pins(&[1]));
    s.tick(31_000);
    let before = s.snapshot();
    let fx = s.judge(31_000, withdraw(22_000));
    assert_eq!(fx.refusals().len(), 1, "{fx:?}");
    assert_eq!(s.snapshot(), before);
}

#[test]
fn a_blindfold_action_is_withdrawn_while_it_is_the_bowlers_latest() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B1)], 1);
    let anna = || "Anna".to_owned();
    let withdraw = |of, at| Action::Withdraw {
        of,
        at,
        bowler: Some(anna()),
    };
    // A failed check pressed by mistake: the check before it holds again
    // and the conduct entry says it was withdrawn.
    s.ok(
        5_000,
        Action::BlindfoldCheck {
            bowler: anna(),
            ok: false,
        },
    );
    assert!(!s.lane.blindfolds()[0].ok());
    s.ok(6_000, withdraw(Withdrawable::BlindfoldCheck, 5_000));
    let b = &s.lane.blindfolds()[0];
    assert!(b.ok());
    assert_eq!(b.last_check, Some((0, true, Some(JUDGE.to_owned()))));
    assert!(matches!(
        s.lane.conduct().last().unwrap().kind,
        ConductKind::Blindfold {
            issue: "failed_check",
            withdrawn: true,
            ..
        }
    ));

    // An adjustment withdrawn: the lane is no longer held for her.
    s.ok(7_000, Action::BlindfoldAdjust { bowler: anna() });
    assert!(!s.lane.blindfolds()[0].ok());
    let wrong = s.judge(8_000, withdraw(Withdrawable::BlindfoldRecheck, 7_000));
    assert_eq!(wrong.refusals().len(), 1, "not the action at 7000");
    s.ok(8_000, withdraw(Withdrawable::BlindfoldAdjust, 7_000));
    assert!(s.lane.blindfolds()[0].ok());

    // Once withdrawn, or once another action followed, it stays.
    let again = s.judge(9_000, withdraw(Withdrawable::BlindfoldAdjust, 7_000));
    assert_eq!(again.refusals().len(), 1);
    s.ok(10_000, Action::BlindfoldRecheck { bowler: anna() });
    s.ok(
        11_000,
        Action::BlindfoldCheck {
            bowler: anna(),
            ok: true,
        },
    );
    let late = s.judge(12_000, withdraw(Withdrawable::BlindfoldRecheck, 10_000));
    assert_eq!(late.refusals().len(), 1);
    assert!(s.lane.blindfolds()[0].ok());
}

// ----- a string pinsetter's pin switches --------------------------------------

fn deck(after: DeckAfter, list: &[u8]) -> Sensor {
    Sensor::Deck {
        after,
        standing: pins(list),
    }
}

/// A string pinsetter's lane, Anna (B3) up, a full deck set at 1000.
fn string_lane() -> Sim {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.sensor(
        1_000,
        deck(DeckAfter::Set, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
    );
    s
}

#[test]
fn a_string_pinsetters_decks_score_as_ready_and_pins_and_a_deck_fault_never_scores() {
    let mut s = string_lane();
    s.ball(6_000);
    let fx = s.sensor(7_500, deck(DeckAfter::Ball, &[7, 10]));
    assert_eq!(fx.said(), [words(&["7", "10"])]);
    assert_eq!(s.marks(0, 0), ["8"]);

    // The same deck again before the machine set one: not a second ball.
    let fx = s.sensor(8_000, deck(DeckAfter::Ball, &[7, 10]));
    assert_eq!((fx.refusals(), fx.said()), (vec![], vec![]));

    // A flickering switch after the second ball: a fault, nothing scored,
    // the lane waits for a judge; the next deck set ends the fault.
    s.sensor(12_000, deck(DeckAfter::Set, &[7, 10]));
    s.ball(20_000);
    let fx = s.sensor(
        21_500,
        Sensor::DeckFault {
            fault: DeckFault::Flicker,
            pins: pins(&[7]),
        },
    );
    assert_eq!(fx.said(), Vec::<Vec<String>>::new());
    assert_eq!(s.marks(0, 0), ["8"]);
    assert_eq!(
        s.lane.pinsetter_fault(),
        Some("pin switches: pin 7 flickers")
    );
    assert!(matches!(
        &fx.conducts()[..],
        [Conduct {
            kind: ConductKind::PinsetterFault { .. },
            ..
        }]
    ));
    s.ok(
        25_000,
        Action::ManualPins {
            standing: pins(&[7]),
            twice: PinSet::EMPTY,
        },
    );
    assert_eq!(s.marks(0, 0), ["81"]);
    s.sensor(
        30_000,
        deck(DeckAfter::Set, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
    );
    assert_eq!(s.lane.pinsetter_fault(), None);
}

#[test]
fn a_ball_deck_with_no_set_since_the_last_is_a_ball_only_after_the_ball_detectors_ball() {
    let mut s = string_lane();
    s.ball(6_000);
    s.sensor(7_500, deck(DeckAfter::Ball, &[3, 6, 10]));
    // The machine left the three standing and set nothing. A pin falling
    // late, with no ball from the detector, is not a ball.
    let fx = s.sensor(12_000, deck(DeckAfter::Ball, &[6, 10]));
    assert!(
        matches!(&fx.refusals()[..], [Refusal::DeckWithoutSet { .. }]),
        "{fx:?}"
    );
    assert_eq!(s.marks(0, 0), ["7"]);
    // The detector's ball, then fewer of those pins: the deck left was the
    // deck set, and this is the second ball.
    s.ball(20_000);
    let fx = s.sensor(21_500, deck(DeckAfter::Ball, &[10]));
    assert_eq!(fx.refusals(), vec![]);
    assert_eq!(s.marks(0, 0), ["72"]);
}

// ----- the rail buttons ------------------------------------------------------

#[test]
fn rail_buttons_repeat_the_last_callout_and_read_the_score() {
    // Training: the extras (split, the score on request) are on.
    let rules = Rules {
        speaker_extras: true,
        ..Rules::default()
    };
    let mut s = Sim::start(rules, &[("Anna", Class::B1)], 1);
    assert_eq!(
        s.button(500, "repeat"),
        [Effect::Refused(Refusal::NothingToRepeat)]
    );

    s.bowl(1_000, pins(&[7, 10]));
    let first = *s.lane.last_callout().expect("said");
    s.tick(11_000);
    let fx = s.button(11_000, "repeat");
    assert_eq!(fx.said(), [words(&["7", "10", "split"])]);
    let Some(Effect::Callout(again)) = fx.first() else {
        panic!("{fx:?}")
    };
    assert_eq!(
        (again.t, again.bowler, again.said),
        (11_000, Some(0), first.said)
    );

    s.bowl(12_000, PinSet::EMPTY);
    s.bowl(22_000, pins(&[10]));
    let fx = s.button(32_000, "score");
    assert_eq!(fx.said(), [words(&["frame", "2", "19"])]);
    assert_eq!(
        s.lane.last_callout().map(|c| c.words().tokens()),
        Some(words(&["frame", "2", "19"]))
    );

    let before = s.snapshot_after_time(33_000);
    let fx = s.button(33_000, "coach");
    assert_eq!(
        fx,
        [Effect::Refused(Refusal::UnknownButton("coach".to_owned()))]
    );
    assert_eq!(s.snapshot(), before);
}

// ----- blindfolds ------------------------------------------------------------

#[test]
fn a_blindfold_adjustment_holds_the_lane_for_that_b1_bowler_until_a_new_check() {
    let mut s = Sim::start(
        Rules::default(),
        &[("Anna", Class::B1), ("Boris", Class::B2)],
        1,
    );
    s.ready(0, PinSet::FULL);
    let fx = s.ok(
        10_000,
        Action::BlindfoldAdjust {
            bowler: "Anna".to_owned(),
        },
    );
    assert_eq!(fx.conducts(), []);
    assert!(s.lane.held());
    assert_eq!(s.lane.slow_clock(), Some((0, 10_000, false)));
    assert_eq!(s.lane.poll_deadline(), None);
    assert_eq!(s.tick(100_000).conducts(), []);

    s.ok(
        100_000,
        Action::BlindfoldCheck {
            bowler: "Anna".to_owned(),
            ok: true,
        },
    );
    assert!(!s.lane.held());
    assert_eq!(s.lane.slow_clock(), Some((0, 10_000, true)));
    assert_eq!(s.lane.poll_deadline(), Some(150_001));

    let fx = s.judge(
        101_000,
        Action::BlindfoldCheck {
            bowler: "Boris".to_owned(),
            ok: true,
        },
    );
    assert_eq!(
        fx,
        [Effect::Refused(Refusal::NotB1("Boris".to_owned(), "B2"))]
    );
}

#[test]
fn a_delivery_during_a_blindfold_adjustment_is_a_blindfold_incident() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B1)], 1);
    s.ready(1_000, PinSet::FULL);
    s.ok(
        10_000,
        Action::BlindfoldAdjust {
            bowler: "Anna".to_owned(),
        },
    );
    let fx = s.delivery(20_000, pins(&[4]));
    let c = fx.conducts();
    assert_eq!(c.len(), 1, "{fx:?}");
    assert_eq!((c[0].t, c[0].bowler.as_deref()), (20_500, Some("Anna")));
    assert_eq!(
        c[0].kind,
        ConductKind::Blindfold {
            issue: "bowled_unchecked",
            by: None,
            withdrawn: false,
        }
    );
    assert_eq!(s.marks(0, 0), ["9"], "the ball still counts");
}

#[test]
fn a_blindfold_adjustment_between_deliveries_holds_the_lane_at_once() {
    // rules.md: a bowler may adjust a blindfold only between deliveries.
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B1)], 1);
    s.bowl(1_000, pins(&[7]));
    // Anna is up for her second ball; the pinsetter has not said READY.
    s.ok(
        7_000,
        Action::BlindfoldAdjust {
            bowler: "Anna".to_owned(),
        },
    );
    assert!(s.lane.held(), "held for Anna until a new check");
    s.ready(8_000, pins(&[7]));
    assert!(s.lane.held());
    s.ok(
        30_000,
        Action::BlindfoldCheck {
            bowler: "Anna".to_owned(),
            ok: true,
        },
    );
    assert!(!s.lane.held());
}

// ----- the lane order --------------------------------------------------------

#[test]
fn substitutes_come_in_between_games_only_and_the_order_is_locked_during_a_block() {
    let mut s = Sim::start(
        Rules::default(),
        &[("Anna", Class::B3), ("Boris", Class::B3)],
        2,
    );
    let carla = bowler("Carla", Class::B3);
    let sub = || Action::Substitute {
        out: "Anna".to_owned(),
        incoming: bowler("Carla", Class::B3),
    };

    let fx = s.judge(100, Action::lineup(vec![bowler("Dina", Class::B3)]));
    assert_eq!(fx, [Effect::Refused(Refusal::BlockOpen(1))]);

    s.bowl(1_000, pins(&[7]));
    s.tick(11_000);
    let fx = s.judge(11_000, sub());
    assert_eq!(
        fx,
        [Effect::Refused(Refusal::NotBetweenGames {
            name: "Anna".to_owned(),
            game: 1,
            frame: 1
        })]
    );
    assert_eq!(s.lane.entries().len(), 2);

    let t = s.open_frames_through_game(12_000, 1);
    assert_eq!(s.sheet(0, 0).total, 90);
    assert_eq!(s.sheet(1, 0).total, 90);
    assert_eq!(s.up(), Some((0, 2, 1, 1)));
    s.ok(t, sub());
    let entries = s.lane.entries();
    assert_eq!(entries.len(), 3);
    assert_eq!(entries[2].bowler, carla);
    assert_eq!(
        (entries[2].block, entries[2].position, entries[2].first_game),
        (1, 1, 2)
    );
    assert_eq!(s.lane.blocks()[0].slots, [vec![0, 2], vec![1]]);
    assert_eq!(s.up(), Some((2, 2, 1, 1)));

    // Carla rolls one ball, then the block is ended: the game is cut off.
    s.bowl(t + 1_000, pins(&[7]));
    let fx = s.ok(t + 20_000, Action::EndBlock);
    assert_eq!(
        fx.outputs(),
        [out(t + 20_000, Output::PinsetterReset, Switch::Pulse)]
    );
    assert!(s.lane.open_block().is_none());
    assert_eq!(s.up(), None);
    s.ok(t + 30_000, Action::lineup(vec![bowler("Dina", Class::B3)]));
}

#[test]
fn four_bowlers_bowl_whole_frames_in_lineup_order_over_two_games_then_practice() {
    let names = ["Anna", "Boris", "Carla", "Dmitri"];
    let lineup: Vec<(&str, Class)> = names.iter().map(|&n| (n, Class::B3)).collect();
    let mut s = Sim::start(Rules::default(), &lineup, 2);
    let mut t = 1_000;
    for game in 1..=2 {
        for frame in 1..=10 {
            for (e, name) in names.iter().enumerate() {
                assert_eq!(s.up(), Some((e, game, frame, 1)), "{name}");
                // Each bowler leaves their own pin on ball 1 and makes the
                // spare, except in the tenth: 9 and a miss.
                s.bowl(t, pins(&[7 + e as u8]));
                t += 10_000;
                assert_eq!(s.up(), Some((e, game, frame, 2)), "{name}");
                let second = if frame == 10 {
                    pins(&[7 + e as u8])
                } else {
                    PinSet::EMPTY
                };
                s.bowl(t, second);
                t += 10_000;
            }
        }
        if game == 1 {
            assert_eq!(s.up(), Some((0, 2, 1, 1)), "game 2 starts with Anna");
        }
    }
    assert_eq!(s.up(), None);
    for (e, name) in names.iter().enumerate() {
        assert_eq!(s.lane.entries()[e].games.len(), 2);
        for g in 0..2 {
            let sheet = s.sheet(e, g);
            assert!(sheet.complete);
            // Nine spares each followed by a 9, then 9-: 9 × 19 + 9.
            assert_eq!(sheet.total, 180, "{name} game {}", g + 1);
        }
    }

    // The block's games are over: a further ball is practice.
    let fx = s.bowl(t, pins(&[5]));
    assert_eq!(fx.said(), [words(&["5"])]);
    assert_eq!(s.lane.practice().len(), 1);
    assert_eq!(s.lane.practice()[0].ball.standing, pins(&[5]));
    assert!(s.lane.entries().iter().all(|e| e.games.len() == 2));
    assert!(
        s.lane.entries()[0].games[1].len() == 20,
        "no ball added to a finished game"
    );

    // Ending a finished block asks nothing of the pinsetter.
    let fx = s.ok(t + 20_000, Action::EndBlock);
    assert_eq!(fx.outputs(), []);
}

// ----- corrections -----------------------------------------------------------

#[test]
fn a_correction_that_would_move_later_balls_to_other_frames_is_refused() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.bowl(1_000, pins(&[7]));
    s.bowl(11_000, PinSet::EMPTY);
    assert_eq!(s.marks(0, 0), ["9/"]);

    // Making the first ball a strike would push the second into frame 2.
    s.tick(30_000);
    let before = s.snapshot();
    let fx = s.judge(30_000, correct("Anna", 1, 1, PinSet::EMPTY));
    assert_eq!(
        fx,
        [Effect::Refused(Refusal::CorrectionReshapes {
            bowler: "Anna".to_owned(),
            frame: 1,
            ball: 1
        })]
    );
    assert_eq!(s.snapshot(), before);
    assert_eq!(s.marks(0, 0), ["9/"]);
}

#[test]
fn correcting_the_last_ball_into_a_strike_ends_the_frame_and_the_next_bowler_is_up() {
    let mut s = Sim::start(
        Rules::default(),
        &[("Anna", Class::B3), ("Boris", Class::B3)],
        1,
    );
    s.bowl(1_000, pins(&[7]));
    assert_eq!(s.up(), Some((0, 1, 1, 2)));

    // The 7 fell late.
    let fx = s.ok(8_000, correct("Anna", 1, 1, PinSet::EMPTY));
    assert_eq!(fx.said(), [words(&["correction", "strike"])]);
    assert_eq!(s.marks(0, 0), ["X"]);
    let ball = s.lane.entries()[0].games[0][0];
    assert_eq!((ball.standing, ball.corrected), (PinSet::EMPTY, true));
    assert_eq!(s.up(), Some((1, 1, 1, 1)), "Boris is up");
}

// ----- callouts --------------------------------------------------------------

#[test]
fn the_channel_sensor_and_a_one_sided_leave_are_named_in_the_callout() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B1)], 1);

    s.ready(1_000, PinSet::FULL);
    let fx = s.delivery(5_000, pins(&[3, 6, 10]));
    assert_eq!(fx.said(), [words(&["3", "6", "10", "right_side"])]);

    // The second ball goes into the right channel.
    s.ready(6_000, pins(&[3, 6, 10]));
    s.sensor(9_000, Sensor::Channel { side: Side::Right });
    let fx = s.delivery(10_000, pins(&[3, 6, 10]));
    assert_eq!(
        fx.said(),
        [words(&["3", "6", "10", "right_side", "channel_right"])]
    );
    assert_eq!(s.lane.entries()[0].games[0][1].channel, Some(Side::Right));

    // Frame 2: the left channel at a full rack.
    s.ready(11_000, PinSet::FULL);
    s.sensor(14_000, Sensor::Channel { side: Side::Left });
    let fx = s.delivery(15_000, PinSet::FULL);
    assert_eq!(fx.said(), [words(&["no_pins", "channel_left"])]);

    // The channel belongs to its own delivery only; 2-4-7 is all left.
    s.ready(16_000, PinSet::FULL);
    let fx = s.delivery(20_000, pins(&[2, 4, 7]));
    assert_eq!(fx.said(), [words(&["2", "4", "7", "left_side"])]);
    assert_eq!(s.lane.entries()[0].games[0][3].channel, None);
}

// ----- the journal -----------------------------------------------------------

#[test]
fn a_journal_line_whose_t_goes_backwards_is_an_error_and_changes_nothing() {
    let mut r = Replay::new(&Header::new(7, None, Rules::default()));
    let at = |t, action| Stamped {
        t,
        event: Event::Panel(Panel::new(None, action)),
    };
    let lineup = Action::lineup(vec![bowler("Anna", Class::B3)]);
    assert_eq!(r.apply(2, &at(1_000, lineup)), [Effect::Changed]);

    let fx = r.apply(3, &at(500, Action::StartBlock { games: 1 }));
    assert_eq!(fx, []);
    assert!(r.lane().open_block().is_none());
    assert_eq!(r.events(), 1);
    assert_eq!(r.errors().len(), 1);
    assert_eq!(r.errors()[0].line, 3);
    assert_eq!(
        r.errors()[0].message,
        "t=500 is before the previous line's t=1000: t never decreases"
    );

    // The rejected line did not move the clock back: 800 is still early.
    r.apply(4, &at(800, Action::StartBlock { games: 1 }));
    assert_eq!(r.errors().len(), 2);
    assert_eq!(r.errors()[1].line, 4);
    assert!(r.lane().open_block().is_none());

    r.apply(5, &at(1_000, Action::StartBlock { games: 1 }));
    assert!(r.lane().open_block().is_some());
    assert_eq!(r.errors().len(), 2);

    let json = serde_json::to_value(r.report()).expect("serializes");
    assert_eq!(json["errors"][0]["line"], 3);
    assert_eq!(json["errors"][1]["line"], 4);
    assert_eq!(json["events"], 2);
}

// ----- the pinsetter's sequence numbers and cycle ----------------------------

/// The balls recorded for entry 0, game 1.
fn balls_of(s: &Sim) -> usize {
    s.lane.entries()[0].games.first().map_or(0, Vec::len)
}

#[test]
fn resending_the_line_before_last_or_the_last_two_lines_bowls_nothing_twice() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    let leave = pins(&[9, 10]);
    s.ready(1_000, PinSet::FULL); // seq 0
    s.delivery(6_000, leave); // PINS, seq 1
    // The line before last, then the last two.
    assert_eq!(s.line(7_000, 0, Body::Ready(PinSet::FULL)).refusals(), []);
    assert_eq!(s.line(7_100, 0, Body::Ready(PinSet::FULL)).refusals(), []);
    assert_eq!(s.line(7_200, 1, Body::Pins(leave)).refusals(), []);
    assert_eq!(s.marks(0, 0), ["8"]);
    assert_eq!(s.up(), Some((0, 1, 1, 2)));

    s.ready(9_000, leave); // seq 2
    s.delivery(14_000, PinSet::EMPTY); // seq 3
    assert_eq!(s.line(15_000, 2, Body::Ready(leave)).refusals(), []);
    assert_eq!(s.line(15_100, 2, Body::Ready(leave)).refusals(), []);
    assert_eq!(s.line(15_200, 3, Body::Pins(PinSet::EMPTY)).refusals(), []);
    assert_eq!(s.marks(0, 0), ["8/"]);
    assert_eq!(balls_of(&s), 2);
    assert_eq!(s.lane.serial().retransmissions, 6);
    assert_eq!(s.lane.serial().gaps, 0);

    // The game goes on as if nothing had been resent.
    s.bowl(20_000, pins(&[7]));
    assert_eq!(s.marks(0, 0), ["8/", "9"]);
    assert_eq!(s.sheet(0, 0).frames[0].cumulative, Some(19));
}

#[test]
fn the_same_seq_with_another_body_is_an_error_and_never_a_ball() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.ready(1_000, PinSet::FULL); // seq 0
    s.delivery(6_000, pins(&[7, 10])); // seq 1
    let before = s.lane.entries().to_vec();
    let fx = s.line(10_000, 1, Body::Pins(PinSet::EMPTY));
    let r = fx.refusals();
    assert_eq!(r.len(), 1, "{fx:?}");
    assert_eq!(
        r[0].to_string(),
        "serial line: seq 1 again with another body (was PINS 0000001001, now PINS \
         0000000000): ignored, not a ball"
    );
    assert!(fx.said().is_empty());
    assert_eq!(s.lane.entries(), before.as_slice());
    // A READY under a used number is no deck either.
    let fx = s.line(10_500, 0, Body::Ready(pins(&[7])));
    assert!(matches!(
        fx.refusals()[..],
        [Refusal::SeqConflict { seq: 0, .. }]
    ));
    assert_eq!(s.lane.deck(), Some(PinSet::FULL));
    assert_eq!(s.lane.serial().conflicts, 2);
    assert_eq!(s.marks(0, 0), ["8"]);
}

#[test]
fn thirty_pins_without_ready_within_a_second_are_at_most_the_one_real_ball() {
    // All ten down thirty times: the same report again, ignored.
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.ready(1_000, PinSet::FULL);
    s.ball(6_000);
    for i in 0..30 {
        assert_eq!(s.report(6_500 + i * 33, PinSet::EMPTY).refusals(), []);
    }
    assert_eq!(s.marks(0, 0), ["X"]);
    assert_eq!(balls_of(&s), 1);
    assert_eq!(s.lane.serial().repeats, 29);

    // Other pins each time: errors, not balls.
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.ready(1_000, PinSet::FULL);
    s.ball(6_000);
    let mut refused = Vec::new();
    for i in 0..30u8 {
        let standing = if i % 2 == 0 {
            PinSet::EMPTY
        } else {
            pins(&[10])
        };
        refused.extend(s.report(6_500 + u64::from(i) * 33, standing).refusals());
    }
    assert_eq!(s.marks(0, 0), ["X"]);
    assert_eq!(balls_of(&s), 1);
    assert_eq!(refused.len(), 15, "{refused:?}");
    assert!(
        refused
            .iter()
            .all(|r| matches!(r, Refusal::PinsWithoutReady { .. }))
    );
    assert!(
        refused[0]
            .to_string()
            .starts_with("serial line: PINS 0000000001 with no READY since the last PINS"),
        "{}",
        refused[0]
    );

    // A number skipped before each (a READY may have been lost): the
    // minimum cycle still tells they are no balls.
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.ready(1_000, PinSet::FULL);
    s.ball(6_000);
    let mut refused = Vec::new();
    for i in 0..30u64 {
        s.seq = s.seq.wrapping_add(1);
        refused.extend(s.report(6_500 + i * 33, PinSet::EMPTY).refusals());
    }
    assert_eq!(s.marks(0, 0), ["X"]);
    assert_eq!(balls_of(&s), 1);
    assert_eq!(refused.len(), 29);
    assert!(
        refused
            .iter()
            .all(|r| matches!(r, Refusal::PinsTooSoon { .. }))
    );
    assert_eq!(s.lane.serial().too_soon, 29);
}

#[test]
fn a_pins_that_reports_the_same_deck_again_is_ignored() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.ready(1_000, PinSet::FULL);
    s.delivery(6_000, pins(&[4, 7]));
    // The pinsetter reads the deck again under a new number, long after.
    let fx = s.report(12_000, pins(&[4, 7]));
    assert_eq!(fx.refusals(), []);
    assert!(fx.said().is_empty());
    assert_eq!(s.lane.serial().repeats, 1);
    s.ready(13_000, pins(&[4, 7]));
    s.delivery(18_000, PinSet::EMPTY);
    assert_eq!(s.marks(0, 0), ["8/"]);
}

#[test]
fn a_pins_sooner_than_the_minimum_cycle_after_the_last_is_refused() {
    for (min_cycle_ms, counted) in [(3_000, false), (0, true)] {
        let rules = Rules {
            min_cycle_ms,
            ..Rules::default()
        };
        let mut s = Sim::start(rules, &[("Anna", Class::B3)], 1);
        s.ready(1_000, PinSet::FULL);
        s.delivery(6_000, pins(&[10])); // PINS at 6 500
        s.ready(7_000, pins(&[10]));
        let fx = s.report(9_499, PinSet::EMPTY);
        if counted {
            assert_eq!(fx.refusals(), []);
            assert_eq!(s.marks(0, 0), ["9/"]);
            continue;
        }
        assert_eq!(
            fx.refusals(),
            [Refusal::PinsTooSoon {
                standing: PinSet::EMPTY,
                after_ms: 2_999,
                min_cycle_ms: 3_000
            }]
        );
        assert!(fx[0].clone() != Effect::Changed);
        assert_eq!(s.marks(0, 0), ["9"]);
        assert_eq!(s.lane.serial().too_soon, 1);
        // At the minimum cycle it is a ball.
        assert_eq!(s.report(9_500, PinSet::EMPTY).refusals(), []);
        assert_eq!(s.marks(0, 0), ["9/"]);
    }
}

/// The lane off for a while (a power cut, a restart) does not count in
/// lane time: the first `PINS` once the link is up again cannot be
/// measured against the last one before. A journal written before the
/// rule `cycle_per_link` replays as it was bowled: refused.
#[test]
fn the_first_pins_after_the_link_comes_up_is_not_measured_against_the_last() {
    for cycle_per_link in [true, false] {
        let rules = Rules {
            cycle_per_link,
            ..Rules::default()
        };
        let mut s = Sim::start(rules, &[("Anna", Class::B3)], 1);
        s.sensor(0, Sensor::SerialLink { up: true });
        s.ready(1_000, PinSet::FULL);
        s.delivery(6_000, pins(&[10])); // PINS at 6 500
        s.ready(7_000, pins(&[10]));
        // The lane restarts: its journal goes on at its last `t`.
        s.sensor(7_100, Sensor::SerialLink { up: true });
        let fx = s.report(8_000, PinSet::EMPTY);
        if cycle_per_link {
            assert_eq!(fx.refusals(), []);
            assert_eq!(s.marks(0, 0), ["9/"]);
            // Only the first: the next is measured again.
            s.ready(9_000, PinSet::FULL);
            let fx = s.report(10_000, PinSet::EMPTY);
            assert!(matches!(
                fx.refusals()[..],
                [Refusal::PinsTooSoon {
                    after_ms: 2_000,
                    ..
                }]
            ));
            assert_eq!(s.lane.serial().too_soon, 1);
        } else {
            assert!(matches!(
                fx.refusals()[..],
                [Refusal::PinsTooSoon {
                    after_ms: 1_500,
                    ..
                }]
            ));
            assert_eq!(s.marks(0, 0), ["9"]);
        }
    }
}

#[test]
fn a_game_with_a_respotted_foul_a_fault_and_a_lost_link_scores_as_before() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.sensor(0, Sensor::SerialLink { up: true });
    let mut t = 1_000;
    // Frame 1: X.
    s.bowl(t, PinSet::EMPTY);
    t += 10_000;
    // Frame 2: a foul on the first ball (8 down), the rack respotted: F9.
    s.ready(t, PinSet::FULL);
    s.beam(t + 4_000, true);
    s.beam(t + 4_050, false); // the ball crosses the line
    s.beam(t + 4_500, true); // then her foot
    s.tick(t + 4_700);
    s.beam(t + 5_000, false);
    let fx = s.delivery(t + 6_000, pins(&[9, 10]));
    assert!(
        fx.outputs()
            .contains(&out(t + 6_500, Output::PinsetterReset, Switch::Pulse))
    );
    t += 10_000;
    s.bowl(t, pins(&[10]));
    t += 10_000;
    // Frame 3: a jam after the first ball; the pinsetter recovers.
    s.ready(t, PinSet::FULL);
    s.delivery(t + 5_000, pins(&[7]));
    s.serial(t + 6_000, Body::Fault("JAM".to_owned()));
    assert!(s.lane.held());
    t += 120_000;
    s.bowl(t, PinSet::EMPTY);
    assert!(!s.lane.held());
    t += 10_000;
    // Frame 4: the cable is pulled after the first ball, its READY is lost,
    // and the pinsetter resends its last PINS when the cable is back.
    s.ready(t, PinSet::FULL);
    s.delivery(t + 5_000, pins(&[1, 2, 4]));
    let last_pins = s.seq - 1;
    s.sensor(t + 6_000, Sensor::SerialLink { up: false });
    s.seq = s.seq.wrapping_add(1); // READY with the leave, never received
    s.sensor(t + 30_000, Sensor::SerialLink { up: true });
    assert_eq!(
        s.line(t + 30_100, last_pins, Body::Pins(pins(&[1, 2, 4])))
            .refusals(),
        []
    );
    let fx = s.delivery(t + 40_000, pins(&[4]));
    assert_eq!(fx.refusals(), []);
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::SerialGap { lost: 1, .. }))
    );
    t += 50_000;
    // Frames 5 to 10: nines.
    while s.lane.up().is_some() {
        s.bowl(t, pins(&[7]));
        t += 10_000;
    }
    assert_eq!(
        s.marks(0, 0),
        ["X", "F9", "9/", "72", "9-", "9-", "9-", "9-", "9-", "9-"]
    );
    // X with F and 9 after it, F9, 9/ and 7, 72, six nines.
    assert_eq!(s.sheet(0, 0).total, 19 + 9 + 17 + 9 + 6 * 9);
    let stats = s.lane.serial();
    assert_eq!((stats.retransmissions, stats.gaps, stats.lost), (1, 1, 1));
    assert_eq!(
        (
            stats.conflicts,
            stats.stale,
            stats.without_ready,
            stats.too_soon
        ),
        (0, 0, 0, 0)
    );
}

// ----- the slow clock's start and limit --------------------------------------

fn limit_rules() -> Rules {
    Rules {
        slow_bowling_limit_s: 20,
        ..Rules::default()
    }
}

/// A ball released at `release` by a ball break on the foul beam, reaching
/// the detector 2.5 s later and reported 2 s after that.
fn release_at(s: &mut Sim, release: Millis, standing: PinSet) -> Vec<Effect> {
    let mut fx = s.beam(release, true);
    fx.extend(s.beam(release + 40, false));
    fx.extend(s.delivery(release + 2_500, standing));
    fx
}

#[test]
fn a_release_exactly_at_the_slow_bowling_limit_is_in_time_and_one_millisecond_past_it_is_not() {
    let mut s = Sim::start(limit_rules(), &[("Anna", Class::B3)], 1);
    s.ready(0, PinSet::FULL);
    assert_eq!(s.lane.poll_deadline(), Some(20_001));
    let fx = release_at(&mut s, 20_000, pins(&[10]));
    assert_eq!(fx.refusals(), []);
    assert!(!s.lane.conduct().iter().any(is_slow), "20.000 s is in time");

    s.ready(30_000, pins(&[10]));
    release_at(&mut s, 50_001, PinSet::EMPTY);
    let slow: Vec<&Conduct> = s.lane.conduct().iter().filter(|c| is_slow(c)).collect();
    assert_eq!(slow.len(), 1);
    assert_eq!(
        slow[0].kind,
        ConductKind::SlowBowling {
            level: Level::Warning,
            seconds: 20.001,
            confirmed_by: None
        }
    );
}

#[test]
fn the_first_ball_of_a_block_is_timed_from_the_pinsetters_ready_not_from_the_block_start() {
    let mut s = Sim::new(limit_rules());
    s.sensor(0, Sensor::SerialLink { up: true });
    s.ready(300, PinSet::FULL);
    s.ok(1_000, Action::lineup(vec![bowler("Anna", Class::B3)]));
    // A practice ball: the pinsetter is still cycling at the block start.
    s.delivery(4_000, pins(&[7]));
    s.ok(7_000, Action::StartBlock { games: 1 });
    assert_eq!(s.lane.slow_clock(), None);
    s.ready(9_500, PinSet::FULL);
    assert_eq!(s.lane.slow_clock(), Some((0, 0, true)));
    // 19.5 s after the READY, 22 s after the block start: in time.
    release_at(&mut s, 29_000, PinSet::EMPTY);
    assert!(!s.lane.conduct().iter().any(is_slow));
}

#[test]
fn with_the_pinsetter_linked_and_silent_the_clock_waits_for_its_ready() {
    let mut s = Sim::new(limit_rules());
    s.sensor(0, Sensor::SerialLink { up: true });
    s.ok(1_000, Action::lineup(vec![bowler("Anna", Class::B3)]));
    s.ok(2_000, Action::StartBlock { games: 1 });
    assert_eq!(s.lane.slow_clock(), None);
    s.ready(40_000, PinSet::FULL);
    assert_eq!(s.lane.poll_deadline(), Some(60_001));
}

#[test]
fn on_a_lane_with_pins_set_by_hand_the_clock_starts_at_the_block_start_and_a_pinsetters_ready_starts_it_again()
 {
    let mut s = Sim::start(limit_rules(), &[("Anna", Class::B3)], 1);
    // No pinsetter has spoken and none is linked: the pins stand.
    assert_eq!(s.lane.slow_clock(), Some((0, 0, true)));
    assert_eq!(s.lane.poll_deadline(), Some(20_001));
    // A pinsetter says READY before the ball: the lane is ready from then.
    s.ready(5_000, PinSet::FULL);
    assert_eq!(s.lane.poll_deadline(), Some(25_001));
    // A READY again (a deck set once more) does not restart a clock the
    // pinsetter started.
    s.ready(6_000, PinSet::FULL);
    assert_eq!(s.lane.poll_deadline(), Some(25_001));
}

#[test]
fn a_judge_asking_for_a_new_blindfold_check_holds_the_lane_and_stops_the_clock_until_it() {
    let mut s = Sim::start(limit_rules(), &[("Anna", Class::B1)], 1);
    s.ready(0, PinSet::FULL);
    let recheck = Action::BlindfoldRecheck {
        bowler: "Anna".to_owned(),
    };
    s.ok(5_000, recheck);
    assert!(s.lane.held());
    assert_eq!(
        s.lane.pause(Some(0)),
        Some(lanecall::lane::Pause::Blindfold)
    );
    assert_eq!(s.lane.slow_clock(), Some((0, 5_000, false)));
    assert!(s.lane.blindfolds()[0].recheck);
    s.ok(
        65_000,
        Action::BlindfoldCheck {
            bowler: "Anna".to_owned(),
            ok: true,
        },
    );
    assert!(!s.lane.held());
    assert_eq!(s.lane.poll_deadline(), Some(80_001));
    // Refused for a bowler not on the lane.
    let fx = s.judge(
        66_000,
        Action::BlindfoldRecheck {
            bowler: "Nobody".to_owned(),
        },
    );
    assert_eq!(
        fx,
        [Effect::Refused(Refusal::UnknownBowler("Nobody".to_owned()))]
    );
}

// ----- blindfolds at the release ---------------------------------------------

fn unchecked(s: &Sim) -> usize {
    s.lane
        .conduct()
        .iter()
        .filter(|c| {
            matches!(
                c.kind,
                ConductKind::Blindfold {
                    issue: "bowled_unchecked",
                    ..
                }
            )
        })
        .count()
}

#[test]
fn adjusting_the_blindfold_between_the_release_and_the_pin_report_is_allowed() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B1)], 1);
    s.ready(0, PinSet::FULL);
    s.beam(10_000, true);
    s.beam(10_040, false);
    s.ok(
        11_000,
        Action::BlindfoldAdjust {
            bowler: "Anna".to_owned(),
        },
    );
    s.delivery(12_500, pins(&[7]));
    assert_eq!(unchecked(&s), 0);
    assert_eq!(s.lane.entries()[0].games[0].len(), 1);
}

#[test]
fn a_blindfold_check_recorded_after_the_release_is_too_late_for_that_ball() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B1)], 1);
    s.ready(0, PinSet::FULL);
    s.ok(
        2_000,
        Action::BlindfoldAdjust {
            bowler: "Anna".to_owned(),
        },
    );
    // No ball break: the release is the ball's time − 2.5 s = 10 s.
    s.ball(12_500);
    s.ok(
        12_600,
        Action::BlindfoldCheck {
            bowler: "Anna".to_owned(),
            ok: true,
        },
    );
    let fx = s.report(13_000, pins(&[7]));
    let c = fx.conducts();
    assert_eq!(c.len(), 1);
    assert_eq!((c[0].t, c[0].bowler.as_deref()), (13_000, Some("Anna")));
    // A check at the release itself is in time.
    s.ok(
        15_000,
        Action::BlindfoldAdjust {
            bowler: "Anna".to_owned(),
        },
    );
    s.ready(16_000, pins(&[7]));
    s.ok(
        20_000,
        Action::BlindfoldCheck {
            bowler: "Anna".to_owned(),
            ok: true,
        },
    );
    s.ball(22_500);
    s.report(23_000, PinSet::EMPTY);
    assert_eq!(unchecked(&s), 1);
}

#[test]
fn a_blindfold_check_holds_for_the_next_block_of_the_day() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B1)], 1);
    s.ok(1_000, Action::EndBlock);
    s.ok(2_000, Action::lineup(vec![bowler("Boris", Class::B3)]));
    s.ok(3_000, Action::StartBlock { games: 1 });
    s.ok(4_000, Action::EndBlock);
    // Anna is back in the third block: her check from the first holds.
    s.ok(5_000, Action::lineup(vec![bowler("Anna", Class::B1)]));
    s.ok(6_000, Action::StartBlock { games: 1 });
    assert_eq!(s.lane.open_block().map(|b| b.number), Some(3));
    assert!(!s.lane.held());
}

/// Between blocks a judge checks a B1 bowler who is not on the lane now
/// (the block ended, or the next lineup is another's): the lane keeps her
/// blindfold for the day, so the check counts, and her next block starts
/// on it.
#[test]
fn a_blindfold_check_between_blocks_of_a_bowler_not_on_the_lineup_counts_for_her_next_block() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B1)], 1);
    s.ok(1_000, Action::EndBlock);
    // The blindfold failed a judge's check after the block.
    let fx = s.ok(
        2_000,
        Action::BlindfoldCheck {
            bowler: "Anna".to_owned(),
            ok: false,
        },
    );
    assert!(matches!(
        &fx.conducts()[..],
        [Conduct {
            kind: ConductKind::Blindfold {
                issue: "failed_check",
                ..
            },
            ..
        }]
    ));
    assert!(s.lane.day().blindfolds.is_empty(), "no check holds for her");
    let anna = || Action::lineup(vec![bowler("Anna", Class::B1)]);
    s.ok(3_000, anna());
    let fx = s.judge(4_000, Action::StartBlock { games: 1 });
    assert_eq!(
        fx.refusals(),
        [Refusal::BlindfoldsUnchecked(vec!["Anna".to_owned()])]
    );
    s.ok(
        5_000,
        Action::BlindfoldCheck {
            bowler: "Anna".to_owned(),
            ok: true,
        },
    );
    s.ok(6_000, Action::StartBlock { games: 1 });
    s.ok(7_000, Action::EndBlock);

    // A judge asks for a new check while the next lineup is Boris's.
    s.ok(8_000, Action::lineup(vec![bowler("Boris", Class::B3)]));
    s.ok(
        9_000,
        Action::BlindfoldRecheck {
            bowler: "Anna".to_owned(),
        },
    );
    s.ok(10_000, Action::StartBlock { games: 1 });
    s.ok(11_000, Action::EndBlock);
    s.ok(12_000, anna());
    let fx = s.judge(13_000, Action::StartBlock { games: 1 });
    assert_eq!(
        fx.refusals(),
        [Refusal::BlindfoldsUnchecked(vec!["Anna".to_owned()])]
    );
    s.ok(
        14_000,
        Action::BlindfoldCheck {
            bowler: "Anna".to_owned(),
            ok: true,
        },
    );
    s.ok(15_000, Action::StartBlock { games: 1 });
    assert_eq!(s.lane.open_block().map(|b| b.number), Some(4));

    // A bowler the lane has no blindfold for is still no one it knows.
    let fx = s.judge(
        16_000,
        Action::BlindfoldCheck {
            bowler: "Nobody".to_owned(),
            ok: false,
        },
    );
    assert_eq!(fx.refusals(), [Refusal::UnknownBowler("Nobody".to_owned())]);
}

/// A journal written before checks between blocks were taken replays as
/// it was bowled: the action refused, the block started on the old check.
#[test]
fn a_journal_without_checks_between_blocks_refuses_them_as_it_did() {
    let rules = Rules {
        blindfolds_between_blocks: false,
        ..Rules::default()
    };
    let mut s = Sim::start(rules, &[("Anna", Class::B1)], 1);
    s.ok(1_000, Action::EndBlock);
    let fx = s.judge(
        2_000,
        Action::BlindfoldCheck {
            bowler: "Anna".to_owned(),
            ok: false,
        },
    );
    assert_eq!(fx.refusals(), [Refusal::UnknownBowler("Anna".to_owned())]);
    s.ok(3_000, Action::lineup(vec![bowler("Anna", Class::B1)]));
    s.ok(4_000, Action::StartBlock { games: 1 });
}

/// The same between journals: the day's checks a new journal starts with
/// can be failed before the bowler is on its lineup.
#[test]
fn a_day_check_from_an_earlier_journal_can_be_failed_before_the_bowler_is_on_a_lineup() {
    let day = lanecall::lane::Day {
        date: None,
        blocks: 1,
        blindfolds: vec![lanecall::lane::DayCheck {
            bowler: "Anna".to_owned(),
            t: 100,
            by: Some(JUDGE.to_owned()),
        }],
    };
    let mut s = Sim::new(Rules::default());
    s.lane.begin_day(&day);
    s.ok(
        1_000,
        Action::BlindfoldCheck {
            bowler: "Anna".to_owned(),
            ok: false,
        },
    );
    s.ok(2_000, Action::lineup(vec![bowler("Anna", Class::B1)]));
    let fx = s.judge(3_000, Action::StartBlock { games: 1 });
    assert_eq!(
        fx.refusals(),
        [Refusal::BlindfoldsUnchecked(vec!["Anna".to_owned()])]
    );
}

// ----- after the last game, and blocks through the day -------------------------

#[test]
fn balls_after_the_last_game_and_before_end_block_are_not_practice() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    let t = s.open_frames_through_game(0, 1);
    assert_eq!(s.up(), None);
    s.bowl(t, pins(&[7, 10]));
    let after = s.lane.practice();
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].after_block, Some(1));
    assert_eq!(after[0].ball.standing, pins(&[7, 10]));
    assert_eq!(s.lane.entries()[0].games[0].len(), 20);
    s.ok(t + 20_000, Action::EndBlock);
    s.bowl(t + 30_000, pins(&[5]));
    assert_eq!(s.lane.practice()[1].after_block, None);
}

#[test]
fn a_journal_that_goes_on_from_the_days_earlier_ones_numbers_its_blocks_on_and_keeps_their_checks()
{
    let day = lanecall::lane::Day {
        date: None,
        blocks: 2,
        blindfolds: vec![lanecall::lane::DayCheck {
            bowler: "Anna".to_owned(),
            t: 100,
            by: Some(JUDGE.to_owned()),
        }],
    };
    let mut s = Sim::new(Rules::default());
    s.lane.begin_day(&day);
    assert_eq!(s.lane.next_block_number(), 3);
    s.ok(1_000, Action::lineup(vec![bowler("Anna", Class::B1)]));
    s.ok(2_000, Action::StartBlock { games: 1 });
    assert_eq!(s.lane.open_block().map(|b| b.number), Some(3));
    assert_eq!(s.lane.entries()[0].block, 3);
    assert!(s.lane.block(3).is_some() && s.lane.block(1).is_none());
    // What it leaves for the next journal.
    assert_eq!(
        s.lane.day(),
        lanecall::lane::Day {
            blocks: 3,
            ..day.clone()
        }
    );
    // Through the header.
    let header = Header::new(7, None, Rules::default()).with_day(Some(day.clone()));
    let parsed = Header::parse(&header.to_line()).expect("a header");
    assert_eq!(parsed.day, Some(day));
    let replay = Replay::new(&parsed);
    assert_eq!(replay.lane().next_block_number(), 3);
}

#[test]
fn a_ball_released_at_the_limit_and_still_on_the_foul_beam_after_it_is_never_flagged() {
    let mut s = Sim::start(limit_rules(), &[("Anna", Class::B3)], 1);
    s.ready(0, PinSet::FULL);
    s.beam(19_990, true);
    // 20.001 s: the ball is still passing the line.
    assert_eq!(s.tick(20_050).conducts(), []);
    let fx = s.beam(20_030, false);
    assert_eq!(
        fx.conducts(),
        [],
        "released at 19.99 s: nothing flagged, nothing said"
    );
    s.delivery(22_500, pins(&[10]));
    assert!(!s.lane.conduct().iter().any(is_slow));
    // A person on the line at the limit: flagged once the break is too
    // long for a ball.
    s.ready(30_000, pins(&[10]));
    s.beam(49_950, true);
    assert_eq!(s.tick(50_050).conducts(), []);
    let c = s.tick(50_051).conducts();
    assert_eq!(c.len(), 1);
    assert!(is_slow(&c[0]));
}

#[test]
fn a_header_day_with_an_absurd_block_count_replays_without_a_panic() {
    let line = r#"{"journal":"lanecall","version":1,"lane":7,"day":{"blocks":4294967295}}"#;
    let header = Header::parse(line).expect("a header");
    let mut replay = Replay::new(&header);
    let lineup = Event::Panel(Panel::new(
        None,
        Action::lineup(vec![bowler("Anna", Class::B3)]),
    ));
    replay.apply(
        2,
        &Stamped {
            t: 0,
            event: lineup,
        },
    );
    let start = Event::Panel(Panel::new(None, Action::StartBlock { games: 1 }));
    replay.apply(3, &Stamped { t: 1, event: start });
    let _ = lanecall::replay::render_sheet(&replay);
    let _ = serde_json::to_value(replay.report()).unwrap();
    // A day that is not an object is a header error, not a panic.
    let bad = r#"{"journal":"lanecall","version":1,"lane":7,"day":{"blocks":"two"}}"#;
    let err = Header::parse(bad).expect_err("a bad day");
    assert!(err.to_string().contains("day"), "{err}");
}

// ----- the deck set, dead balls, late fouls ----------------------------------

#[test]
fn a_wrong_deck_is_named_at_once_and_the_slow_clock_waits_until_it_is_set_right() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.ready(1_000, PinSet::FULL);
    s.delivery(5_000, PinSet::EMPTY);
    // Frame 2's rack: the machine knocked the 5 down while setting it.
    let no_five = PinSet::FULL.without(pins(&[5]));
    s.ready(8_000, no_five);
    let wrong = s.lane.wrong_deck().expect("the deck is wrong");
    assert_eq!((wrong.up.at.frame, wrong.up.at.ball), (2, 1));
    assert_eq!(wrong.expected(), PinSet::FULL);
    assert_eq!(wrong.set, no_five);
    assert_eq!(wrong.missing(), pins(&[5]));
    assert_eq!(wrong.extra(), PinSet::EMPTY);
    // The clock stands while the judge has the machine re-rack: 90 s,
    // past the 60 s limit, and no flag.
    assert_eq!(s.lane.slow_clock(), Some((0, 0, false)));
    assert_eq!(s.lane.poll_deadline(), None);
    assert_eq!(s.tick(98_000), []);
    s.ready(98_000, PinSet::FULL);
    assert_eq!(s.lane.wrong_deck(), None);
    assert_eq!(s.lane.slow_clock(), Some((0, 0, true)));
    assert_eq!(s.lane.poll_deadline(), Some(158_001));
    assert!(s.lane.conduct().is_empty());
}

#[test]
fn a_ball_bowled_at_a_wrong_deck_counts_only_the_pins_it_knocked_down() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    // The 1-pin is missing from the rack and the ball takes all the rest:
    // 9, not a strike; the head pin is the second ball's.
    s.ready(1_000, PinSet::FULL.without(pins(&[1])));
    let fx = s.delivery(5_000, PinSet::EMPTY);
    assert_eq!(fx.refusals(), []);
    assert_eq!(s.marks(0, 0), ["9"]);
    assert_eq!(s.lane.up().unwrap().at.before, pins(&[1]));
    let last = s.lane.last_ball().expect("a ball to declare dead");
    assert_eq!(
        last.scored.wrong_deck,
        Some(PinSet::FULL.without(pins(&[1])))
    );
    // The pinsetter, which saw nothing standing, sets a full rack: wrong
    // again (the rules want the head pin alone).
    s.ready(8_000, PinSet::FULL);
    assert_eq!(
        s.lane.wrong_deck().unwrap().extra(),
        PinSet::FULL.without(pins(&[1]))
    );
}

fn dead_ball() -> Action {
    Action::DeadBall
}

#[test]
fn a_dead_ball_is_bowled_again_at_the_deck_before_it() {
    let mut s = Sim::start(
        Rules::default(),
        &[("Anna", Class::B3), ("Boris", Class::B3)],
        1,
    );
    assert_eq!(
        s.judge(500, dead_ball()).refusals(),
        [Refusal::NoBallToVoid]
    );
    s.ready(1_000, PinSet::FULL);
    s.delivery(5_000, pins(&[7, 10]));
    s.ready(8_000, pins(&[7, 10]));
    s.delivery(15_000, pins(&[10]));
    // Boris is up at a full rack; Anna's second ball is declared dead.
    s.ready(18_000, PinSet::FULL);
    assert_eq!(s.up(), Some((1, 1, 1, 1)));
    let fx = s.ok(19_000, dead_ball());
    assert_eq!(s.up(), Some((0, 1, 1, 2)));
    assert_eq!(s.marks(0, 0), ["8"]);
    // No output sets a 7-10: the panel shows the deck wrong until the
    // machine respots it, and the clock (Anna's now) waits.
    assert_eq!(fx.outputs(), []);
    let c = fx.conducts();
    assert_eq!(
        c[0].kind,
        ConductKind::DeadBall {
            game: 1,
            frame: 1,
            ball: 2,
            deck: vec![7, 10],
            by: Some(JUDGE.to_owned())
        }
    );
    assert_eq!(
        s.lane.wrong_deck().unwrap().extra(),
        PinSet::FULL.without(pins(&[7, 10]))
    );
    assert_eq!(s.lane.slow_clock(), Some((0, 0, false)));
    // Only the last ball can be dead, once.
    assert_eq!(
        s.judge(20_000, dead_ball()).refusals(),
        [Refusal::NoBallToVoid]
    );
    s.ready(30_000, pins(&[7, 10]));
    assert_eq!(s.lane.slow_clock(), Some((0, 0, true)));
    s.delivery(35_000, PinSet::EMPTY);
    assert_eq!(s.marks(0, 0), ["8/"]);
    assert_eq!(s.up(), Some((1, 1, 1, 1)));
    // Once the block is over there is nothing to void.
    s.ok(40_000, Action::EndBlock);
    assert_eq!(
        s.judge(41_000, dead_ball()).refusals(),
        [Refusal::NoBlockOpen]
    );
}

#[test]
fn a_dead_first_ball_asks_for_a_full_rack_and_takes_its_foul_with_it() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.ready(1_000, PinSet::FULL);
    // A foul on the first ball, then the ball is declared dead before the
    // pinsetter has set anything.
    s.beam(2_000, true);
    s.beam(2_040, false);
    s.beam(2_500, true);
    s.tick(2_700);
    s.beam(3_000, false);
    // The ball detector fired: the ball is under way, not yet recorded.
    s.ball(4_500);
    assert_eq!(
        s.judge(4_700, dead_ball()).refusals(),
        [Refusal::BallUnderWay]
    );
    let fx = s.report(5_000, pins(&[4, 7]));
    assert_eq!(s.marks(0, 0), ["F"]);
    assert!(
        fx.outputs()
            .contains(&out(5_000, Output::PinsetterReset, Switch::Pulse))
    );
    s.tick(6_000);
    // No READY since the ball: the pinsetter is asked for a full rack.
    let fx = s.ok(7_000, dead_ball());
    assert_eq!(
        fx.outputs(),
        [out(7_000, Output::PinsetterReset, Switch::Pulse)]
    );
    assert!(s.lane.entries()[0].games.is_empty(), "the game has no ball");
    assert_eq!(s.up(), Some((0, 1, 1, 1)));
    let foul = s.lane.conduct().iter().find(|c| is_foul(c)).unwrap();
    assert!(matches!(
        foul.kind,
        ConductKind::Foul {
            withdrawn: true,
            ..
        }
    ));
    // The rack comes: the lane is ready and the clock runs.
    s.ready(10_000, PinSet::FULL);
    assert_eq!(s.lane.wrong_deck(), None);
    assert_eq!(s.lane.slow_clock(), Some((0, 0, true)));
}

fn correct_foul(frame: u8, ball: u8, standing: PinSet, foul: bool, later: &[PinSet]) -> Action {
    Action::Correct {
        bowler: "Anna".to_owned(),
        game: 1,
        frame,
        ball,
        standing,
        twice: PinSet::EMPTY,
        foul: Some(foul),
        later: later
            .iter()
            .map(|&standing| LaterBall {
                standing,
                twice: PinSet::EMPTY,
                foul: None,
            })
            .collect(),
    }
}

#[test]
fn a_foul_is_called_only_until_a_later_ball_is_bowled_at_the_deck_it_left() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.bowl(1_000, pins(&[7]));
    // Before the second ball the judge may still call it.
    let before = s.lane.clone();
    s.ok(7_000, correct_foul(1, 1, pins(&[7]), true, &[]));
    assert_eq!(s.marks(0, 0), ["F"]);
    assert_eq!(s.lane.up().unwrap().at.before, PinSet::FULL);
    s.lane = before;
    s.bowl(10_000, PinSet::EMPTY);
    assert_eq!(s.marks(0, 0), ["9/"]);
    let snapshot = s.snapshot_after_time(20_000);
    let fx = s.judge(20_000, correct_foul(1, 1, pins(&[7]), true, &[]));
    assert_eq!(
        fx.refusals(),
        [Refusal::FoulTooLate {
            bowler: "Anna".into(),
            frame: 1,
            ball: 1,
            later_frame: 1,
            later_ball: 2
        }]
    );
    assert_eq!(s.snapshot(), snapshot, "nothing changed");
    // More later balls than were bowled.
    let fx = s.judge(
        20_000,
        correct_foul(1, 1, pins(&[7]), true, &[PinSet::EMPTY; 2]),
    );
    assert!(matches!(
        fx.refusals()[..],
        [Refusal::TooManyLater {
            recorded: 1,
            given: 2,
            ..
        }]
    ));
    // With the second ball re-entered (the judge rules it took all ten at
    // the respotted rack) the foul is called: F/.
    s.ok(
        21_000,
        correct_foul(1, 1, pins(&[7]), true, &[PinSet::EMPTY]),
    );
    assert_eq!(s.marks(0, 0), ["F/"]);
    let sheet = s.sheet(0, 0);
    assert_eq!(sheet.frames[0].balls[1].pinfall, 10);
    assert!(s.lane.conduct().iter().any(is_foul));
}

/// The blindfold checks kept for the day are bounded: a judge setting one
/// new B1 bowler after another (70 lineups, each checked) leaves the lane
/// remembering 64, the oldest forgotten, the bowler on the lane kept.
#[test]
fn the_blindfolds_remembered_for_the_day_are_bounded() {
    let mut s = Sim::new(Rules::default());
    for i in 0..70u64 {
        let name = format!("Bowler {i}");
        s.ok(i * 1_000, Action::lineup(vec![bowler(&name, Class::B1)]));
        s.ok(
            i * 1_000 + 500,
            Action::BlindfoldCheck {
                bowler: name,
                ok: true,
            },
        );
    }
    let kept: Vec<&str> = s
        .lane
        .blindfolds()
        .iter()
        .map(|b| b.bowler.as_str())
        .collect();
    assert_eq!(kept.len(), 64);
    assert_eq!(kept.first(), Some(&"Bowler 6"));
    assert_eq!(kept.last(), Some(&"Bowler 69"));
    assert!(s.lane.blindfolds().iter().all(|b| b.ok()));
}

/// A journal header carrying more checks than the lane keeps starts the
/// lane with the newest 64.
#[test]
fn a_header_day_with_too_many_blindfold_checks_keeps_the_newest() {
    let checks: Vec<String> = (0..100)
        .map(|i| format!(r#"{{"bowler":"Bowler {i}","t":{i}}}"#))
        .collect();
    let line = format!(
        r#"{{"journal":"lanecall","version":1,"lane":7,"day":{{"blocks":1,"blindfolds":[{}]}}}}"#,
        checks.join(",")
    );
    let header = Header::parse(&line).expect("a header");
    let replay = Replay::new(&header);
    let kept = replay.lane().blindfolds();
    assert_eq!(kept.len(), 64);
    assert_eq!(kept[0].bowler, "Bowler 36");
    assert_eq!(kept[63].bowler, "Bowler 99");
}

#[test]
fn a_lane_is_delivering_from_the_foul_line_until_its_pin_report_or_the_timeout() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.ready(1_000, PinSet::FULL);
    assert!(!s.lane.delivering(), "ready, nobody at the line");
    s.beam(3_000, true);
    assert!(s.lane.delivering(), "at the line");
    s.beam(3_040, false);
    assert!(s.lane.delivering(), "the ball is rolling");
    s.ball(5_500);
    assert!(s.lane.delivering(), "the pinsetter has not reported");
    s.report(6_000, pins(&[7]));
    assert!(!s.lane.delivering(), "reported");

    // No report: the lane gives up waiting at the timeout (15 s).
    s.ready(9_000, pins(&[7]));
    s.ball(12_000);
    assert!(s.lane.delivering());
    s.tick(26_999);
    assert!(s.lane.delivering());
    s.tick(27_000);
    assert!(!s.lane.delivering(), "past the pin report timeout");

    // A person standing at the line, with no ball.
    s.report(28_000, PinSet::EMPTY);
    s.ready(31_000, PinSet::FULL);
    s.beam(32_000, true);
    s.tick(40_000);
    assert!(s.lane.delivering(), "still at the line");
    s.beam(41_000, false);
    assert!(!s.lane.delivering());
}

#[test]
fn a_busy_neighbour_stops_the_slow_clock_and_a_bad_neighbour_changes_nothing() {
    let neighbour = |lane, busy| Sensor::Neighbour { lane, busy };
    let mut s = Sim::start(warn_rules(), &[("Anna", Class::B3)], 1);
    let limit = warn_rules().slow_bowling_limit_s * 1000;
    s.ready(1_000, PinSet::FULL);
    assert_eq!(s.sensor(2_000, neighbour(8, true)).refusals(), []);
    assert_eq!(
        s.lane.neighbours_busy().iter().copied().collect::<Vec<_>>(),
        [8]
    );
    assert_eq!(
        s.lane.pause(Some(0)),
        Some(lanecall::lane::Pause::Neighbour)
    );
    // Busy again: nothing new.
    assert_eq!(s.sensor(3_000, neighbour(8, true)).refusals(), []);
    assert_eq!(s.sensor(12_000, neighbour(8, false)).refusals(), []);
    assert_eq!(s.lane.pause(Some(0)), None);
    // 1 s ran before lane 8 got busy, 10 s stood still: flagged at
    // 12 s + (limit - 1 s) + 1 ms.
    let due = 12_000 + limit - 1_000 + 1;
    assert_eq!(s.lane.poll_deadline(), Some(due));
    assert_eq!(s.tick(due - 1).conducts(), []);
    assert!(s.tick(due).conducts().iter().all(is_slow));
    assert_eq!(s.lane.conduct().len(), 1);

    // This lane's own number, or a ninth busy lane: refused, nothing changes.
    s.tick(due + 1);
    let before = s.snapshot();
    assert_eq!(
        s.sensor(due + 1, neighbour(7, true)).refusals(),
        [Refusal::OwnLaneAsNeighbour(7)]
    );
    assert_eq!(s.snapshot(), before);
    for lane in 20..28 {
        assert_eq!(s.sensor(due + 2, neighbour(lane, true)).refusals(), []);
    }
    let with_eight = s.snapshot();
    assert_ne!(before, with_eight);
    assert_eq!(
        s.sensor(due + 2, neighbour(40, true)).refusals(),
        [Refusal::TooManyNeighbours(40)]
    );
    assert_eq!(s.snapshot(), with_eight);
}

// ----- inputs said, not smoothed (the rule `checked_inputs`) -----------------

/// The rules of a journal written before `checked_inputs`: its inputs are
/// taken as they came then.
fn before_checked_inputs() -> Rules {
    Rules {
        checked_inputs: false,
        ..Rules::default()
    }
}

fn lineup_of(bowlers: Vec<Bowler>) -> Action {
    Action::lineup(bowlers)
}

#[test]
fn a_lineup_name_that_hides_characters_turns_the_text_or_runs_long_is_refused_by_the_one_rule() {
    let rlo = "Anna\u{202E}K.";
    let bad = [
        rlo.to_owned(),
        "An\u{200B}na".to_owned(),
        "Anna\u{1b}[2J".to_owned(),
        "a".repeat(8000),
        "centre: Anna".to_owned(),
    ];
    for name in &bad {
        let mut s = Sim::new(Rules::default());
        let before = s.snapshot();
        let fx = s.judge(0, lineup_of(vec![bowler(name, Class::B3)]));
        let refused = fx.refusals();
        assert!(
            matches!(&refused[..], [Refusal::BadName { problem, .. }]
                if lanecall_core_names_problem(name) == Some(*problem)),
            "{name:.40?}: {refused:?}"
        );
        assert_eq!(s.snapshot(), before, "{name:.40?}: nothing changed");
        // The message says what is wrong and never carries the trick.
        let message = refused[0].to_string();
        assert!(!message.contains('\u{202E}') && !message.contains('\u{1b}'));
        assert!(message.chars().count() < 200, "{message}");
        // A journal from before the rule takes it, as it did.
        let mut old = Sim::new(before_checked_inputs());
        old.ok(0, lineup_of(vec![bowler(name, Class::B3)]));
    }
    let fx = Sim::new(Rules::default()).judge(0, lineup_of(vec![bowler(rlo, Class::B3)]));
    assert_eq!(
        fx.refusals()[0].to_string(),
        "the bowler \"Anna\\u{202e}K.\": the name holds an invisible formatting character \
         (U+202E): type it with letters, digits, spaces and punctuation only"
    );
    // 64 characters, letters of any script: taken.
    let mut s = Sim::new(Rules::default());
    s.ok(
        0,
        lineup_of(vec![
            bowler(&"я".repeat(64), Class::B1),
            bowler("D'Arcy-Smith Jr.", Class::B2),
        ]),
    );
}

/// What the core's rule says of `name`, for the test to compare with the
/// lane's refusal.
fn lanecall_core_names_problem(name: &str) -> Option<lanecall_core::names::NameProblem> {
    lanecall_core::names::check_name(name).err()
}

#[test]
fn a_lineup_team_follows_the_name_rule_and_a_handicap_is_0_to_300() {
    let with = |team: Option<&str>, handicap: i32| {
        lineup_of(vec![Bowler {
            team: team.map(str::to_owned),
            handicap,
            ..bowler("Anna", Class::B3)
        }])
    };
    let mut s = Sim::new(Rules::default());
    let fx = s.judge(0, with(Some("Kazan\u{202E}"), 0));
    assert!(
        matches!(&fx.refusals()[..], [Refusal::BadTeam { bowler, .. }] if bowler == "Anna"),
        "{fx:?}"
    );
    for handicap in [100_000, 301, -1] {
        let fx = s.judge(0, with(None, handicap));
        assert_eq!(
            fx.refusals(),
            [Refusal::HandicapOutOfRange {
                bowler: "Anna".into(),
                handicap
            }]
        );
        assert_eq!(s.lane.pending_lineup(), None);
    }
    assert_eq!(
        s.judge(0, with(None, 100_000)).refusals()[0].to_string(),
        "Anna's handicap is 100000: a handicap is 0 to 300 pins a game, as in the programme"
    );
    s.ok(0, with(Some("Kazan"), 300));
    s.ok(0, with(None, 0));
    // Before the rule: taken as it came.
    Sim::new(before_checked_inputs()).ok(0, with(Some("Kazan\u{202E}"), 100_000));
}

#[test]
fn a_substitute_follows_the_same_rule() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 2);
    let t = s.open_frames_through_game(1_000, 1);
    let sub = |incoming: Bowler| Action::Substitute {
        out: "Anna".into(),
        incoming,
    };
    let before = s.snapshot_after_time(t);
    let fx = s.judge(t, sub(bowler("Boris\u{2066}", Class::B3)));
    assert!(
        matches!(&fx.refusals()[..], [Refusal::BadName { .. }]),
        "{fx:?}"
    );
    let fx = s.judge(
        t,
        sub(Bowler {
            handicap: 100_000,
            ..bowler("Boris", Class::B3)
        }),
    );
    assert!(
        matches!(&fx.refusals()[..], [Refusal::HandicapOutOfRange { .. }]),
        "{fx:?}"
    );
    assert_eq!(s.snapshot(), before);
    s.ok(t, sub(bowler("Boris", Class::B3)));
}

fn correct_entered(frame: u8, ball: u8, entered: &[u8], later: &[&[u8]]) -> Action {
    // Pins as a pin pad gives them: a pin tapped twice is in `twice`.
    let split = |list: &[u8]| {
        let mut standing = PinSet::EMPTY;
        let mut twice = PinSet::EMPTY;
        for &n in list {
            let one = pins(&[n]);
            if standing.contains(Pin::new(n).unwrap()) {
                twice = twice.union(one);
            }
            standing = standing.union(one);
        }
        (standing, twice)
    };
    let (standing, twice) = split(entered);
    Action::Correct {
        bowler: "Anna".to_owned(),
        game: 1,
        frame,
        ball,
        standing,
        twice,
        foul: None,
        later: later
            .iter()
            .map(|l| {
                let (standing, twice) = split(l);
                LaterBall {
                    standing,
                    twice,
                    foul: None,
                }
            })
            .collect(),
    }
}

#[test]
fn a_correction_is_checked_as_manual_pins_are_not_clamped_silently() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.bowl(1_000, pins(&[7, 10]));
    s.bowl(11_000, pins(&[10]));
    assert_eq!(s.marks(0, 0), ["81"]);
    let before = s.snapshot_after_time(20_000);

    // The second ball was bowled at the 7-10: the 1 was down.
    let fx = s.judge(20_000, correct_entered(1, 2, &[1, 10], &[]));
    assert_eq!(
        fx.refusals(),
        [Refusal::CorrectionPinsNotStanding {
            bowler: "Anna".into(),
            frame: 1,
            ball: 2,
            pins: pins(&[1]),
            deck: pins(&[7, 10]),
        }]
    );
    assert_eq!(
        fx.refusals()[0].to_string(),
        "correction of frame 1 ball 2 of Anna: pin 1 was not standing: the deck it was bowled \
         at was 7, 10"
    );
    // A pin tapped twice.
    let fx = s.judge(20_000, correct_entered(1, 1, &[7, 7, 10], &[]));
    assert_eq!(
        fx.refusals(),
        [Refusal::CorrectionPinsTwice {
            bowler: "Anna".into(),
            frame: 1,
            ball: 1,
            pins: pins(&[7]),
        }]
    );
    // A later ball re-entered with a pin off the deck it is counted at
    // (the first ball corrected to the 10 alone: the second faces the 10).
    let fx = s.judge(20_000, correct_entered(1, 1, &[10], &[&[7, 10]]));
    assert_eq!(
        fx.refusals(),
        [Refusal::CorrectionPinsNotStanding {
            bowler: "Anna".into(),
            frame: 1,
            ball: 2,
            pins: pins(&[7]),
            deck: pins(&[10]),
        }]
    );
    assert_eq!(s.snapshot(), before, "nothing changed");
    // A correction within the deck is taken.
    s.ok(20_000, correct_entered(1, 2, &[], &[]));
    assert_eq!(s.marks(0, 0), ["8/"]);

    // The ball awaiting its report is given pins of the deck it is
    // bowled at only.
    s.ready(30_000, PinSet::FULL);
    s.ball(35_000);
    let fx = s.judge(36_000, correct_entered(2, 1, &[7, 7], &[]));
    assert!(
        matches!(&fx.refusals()[..], [Refusal::CorrectionPinsTwice { .. }]),
        "{fx:?}"
    );

    // Before the rule: the pin off the deck is ignored, as it was.
    let mut old = Sim::start(before_checked_inputs(), &[("Anna", Class::B3)], 1);
    old.bowl(1_000, pins(&[7, 10]));
    old.bowl(11_000, pins(&[10]));
    old.ok(20_000, correct_entered(1, 2, &[1, 10], &[]));
    assert_eq!(old.marks(0, 0), ["81"]);
}

#[test]
fn a_pin_report_standing_pins_that_had_fallen_is_counted_as_fallen_and_flagged_to_the_judges() {
    let mut s = Sim::start(Rules::default(), &[("Anna", Class::B3)], 1);
    s.bowl(1_000, pins(&[7, 10]));
    // The machine set the 7-10; its report after the ball has the 1 and
    // the 2 standing again, and the 7 and the 10.
    let fx = s.bowl(11_000, pins(&[1, 2, 7, 10]));
    assert_eq!(fx.refusals(), [], "journaled and applied as it came");
    let flagged = fx.conducts();
    assert_eq!(
        flagged.iter().map(|c| &c.kind).collect::<Vec<_>>(),
        [&ConductKind::PinsStoodUp {
            game: 1,
            frame: 1,
            ball: 2,
            pins: vec![1, 2],
            bowled_at: vec![7, 10],
        }]
    );
    assert_eq!(flagged[0].bowler.as_deref(), Some("Anna"));
    assert_eq!(
        s.lane.conduct().len(),
        1,
        "on the lane's state the panel shows"
    );
    assert_eq!(
        flagged[0].kind.to_string(),
        "pin report for game 1, frame 1, ball 2 names pins 1, 2 standing that were down at the \
         deck it was bowled at (7, 10): counted as fallen; a judge checks the deck and corrects \
         the ball or declares it dead"
    );
    // The ball counts what the report says of the deck's pins: the 7 and
    // the 10 stand, nothing fell.
    assert_eq!(s.marks(0, 0), ["8-"]);
    let json = serde_json::to_value(&flagged[0]).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"t": 16_500, "bowler": "Anna", "kind": "pins_stood_up",
            "game": 1, "frame": 1, "ball": 2, "pins": [1, 2], "bowled_at": [7, 10]})
    );
    // A report within the deck raises nothing.
    let fx = s.bowl(21_000, pins(&[7]));
    assert_eq!(fx.conducts(), []);

    // A string pinsetter's deck after a ball, the same.
    let mut s = string_lane();
    s.ball(6_000);
    s.sensor(7_500, deck(DeckAfter::Ball, &[7, 10]));
    s.sensor(12_000, deck(DeckAfter::Set, &[7, 10]));
    s.ball(20_000);
    let fx = s.sensor(21_500, deck(DeckAfter::Ball, &[4, 7, 10]));
    assert!(
        matches!(&fx.conducts()[..], [Conduct { kind: ConductKind::PinsStoodUp { pins, .. }, .. }] if pins == &[4]),
        "{fx:?}"
    );

    // Before the rule: scored the same, without a word.
    let mut old = Sim::start(before_checked_inputs(), &[("Anna", Class::B3)], 1);
    old.bowl(1_000, pins(&[7, 10]));
    let fx = old.bowl(11_000, pins(&[1, 2, 7, 10]));
    assert_eq!(fx.conducts(), []);
    assert_eq!(old.marks(0, 0), ["8-"]);
}

//! A simulated lane: bowlers, a foul line and a pinsetter, as the inputs
//! their sensors and the judges' panel would give.
//!
//! Pure and deterministic: the same [`Scenario`] always gives the same
//! events. It keeps a [`Lane`] of its own to know who is up and what stands,
//! so it never disagrees with the core about turn order or respots. Tests use
//! it to make journals of any length; the demo plays it in real time.

use std::collections::VecDeque;

use crate::journal::Header;
use crate::lane::{
    Action, Bowler, Class, Effect, Event, Lane, Millis, Panel, PinSet, Rules, Sensor, Side, Stamped,
};
use crate::pinsetter::{Body, Message, format_line};

/// A small, fast, seedable generator (xorshift64*), so the simulation
/// needs no dependency and replays identically everywhere.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A whole number in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 > 1.0 - p
    }
}

/// What to simulate.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub lane: u32,
    pub rules: Rules,
    pub bowlers: Vec<Bowler>,
    pub games: u8,
    pub blocks: u32,
    pub seed: u64,
    /// Chance that a delivery is fouled (a person on the line after the
    /// release).
    pub foul_chance: f64,
    /// Chance of a burst of noise on the serial line before a report.
    pub noise_chance: f64,
    /// Chance that a bowler takes longer than the slow-bowling limit.
    pub slow_chance: f64,
    /// Chance that a B1 bowler walks to the line to orient before a ball.
    pub orientation_chance: f64,
}

impl Scenario {
    /// Three bowlers, one of each class, as the demo plays them.
    pub fn demo(seed: u64) -> Scenario {
        let bowler = |name: &str, class, handicap, team: Option<&str>| Bowler {
            name: name.to_owned(),
            class,
            handicap,
            team: team.map(str::to_owned),
            voice: Default::default(),
        };
        Scenario {
            lane: 7,
            rules: Rules::default(),
            bowlers: vec![
                bowler("Anna Kuznetsova", Class::B1, 12, Some("Kazan")),
                bowler("Ivan Petrov", Class::B2, 8, Some("Kazan")),
                bowler("Olga Smirnova", Class::B3, 0, None),
            ],
            games: 3,
            blocks: 1,
            seed,
            foul_chance: 0.03,
            noise_chance: 0.01,
            slow_chance: 0.03,
            orientation_chance: 0.5,
        }
    }

    /// The demo on lane `lane` of a centre: lane 7 has the demo's own
    /// three bowlers, every other lane three of its own (a B1, a B2 and a
    /// B3, named so that no two lanes share a name), so that a centre's
    /// standings tell them apart.
    pub fn demo_on_lane(lane: u32, seed: u64) -> Scenario {
        let mut s = Scenario::demo(seed);
        s.lane = lane;
        if lane != 7 {
            for (i, b) in s.bowlers.iter_mut().enumerate() {
                b.name = demo_name(lane, i).0;
                b.team = None;
            }
        }
        s
    }

    pub fn header(&self) -> Header {
        Header::new(self.lane, None, self.rules.clone())
    }

    pub fn run(self) -> Simulator {
        Simulator::new(self)
    }
}

/// The name of bowler `i` (0 to 2) of lane `lane` of a demo centre, and
/// whether she is a woman: 144 names, unique on lanes 1 to 48, numbered
/// past them.
pub fn demo_name(lane: u32, i: usize) -> (String, bool) {
    // (name, a woman's name): her surname takes the feminine -a.
    const FIRST: [(&str, bool); 12] = [
        ("Alexei", false),
        ("Daria", true),
        ("Boris", false),
        ("Elena", true),
        ("Fyodor", false),
        ("Galina", true),
        ("Kirill", false),
        ("Irina", true),
        ("Maxim", false),
        ("Lidia", true),
        ("Pavel", false),
        ("Nina", true),
    ];
    const LAST: [&str; 12] = [
        "Belov", "Volkov", "Gromov", "Zaitsev", "Karpov", "Lebedev", "Morozov", "Nikitin", "Orlov",
        "Sokolov", "Titov", "Frolov",
    ];
    let n = (lane as usize).wrapping_sub(1) * 3 + i;
    let (first, woman) = FIRST[n % 12];
    let last = LAST[(n / 12 + n) % 12];
    let mut name = format!("{first} {last}{}", if woman { "a" } else { "" });
    if !(1..=48).contains(&lane) {
        name = format!("{name} {lane}");
    }
    (name, woman)
}

/// The events of a scenario, in time order.
pub struct Simulator {
    rng: Rng,
    scenario: Scenario,
    /// The simulator's own view of the lane.
    lane: Lane,
    effects: Vec<Effect>,
    queue: VecDeque<Stamped<Event>>,
    t: Millis,
    seq: u8,
    blocks_started: u32,
    /// Per bowler: how well they bowl, 0..1.
    skill: Vec<f64>,
    done: bool,
}

const JUDGE: &str = "Judge Orlova";

impl Simulator {
    fn new(scenario: Scenario) -> Simulator {
        let mut rng = Rng::new(scenario.seed);
        let skill = scenario
            .bowlers
            .iter()
            .map(|_| 0.55 + rng.range(0, 35) as f64 / 100.0)
            .collect();
        Simulator {
            lane: Lane::new(scenario.lane, scenario.rules.clone()),
            rng,
            scenario,
            effects: Vec::new(),
            queue: VecDeque::new(),
            t: 0,
            seq: 0,
            blocks_started: 0,
            skill,
            done: false,
        }
    }

    /// Queues an event at `t` and lets the simulator's lane see it.
    fn emit(&mut self, t: Millis, event: Event) {
        let t = t.max(self.t);
        self.t = t;
        self.effects.clear();
        self.lane.handle(t, &event, &mut self.effects);
        self.queue.push_back(Stamped { t, event });
    }

    fn sensor(&mut self, t: Millis, s: Sensor) {
        self.emit(t, Event::Sensor(s));
    }

    fn panel(&mut self, t: Millis, action: Action) {
        let by = Some(JUDGE.to_owned());
        self.emit(t, Event::Panel(Panel::new(by, action)));
    }

    fn serial(&mut self, t: Millis, body: Body) {
        let line = format_line(&Message {
            seq: self.seq,
            body,
        });
        self.seq = self.seq.wrapping_add(1);
        self.sensor(t, Sensor::Serial { line });
    }

    fn start_block(&mut self) {
        let t = self.t + 2000;
        if self.blocks_started == 0 {
            self.sensor(t, Sensor::SerialLink { up: true });
            self.serial(t + 200, Body::Ready(PinSet::FULL));
        }
        let bowlers = self.scenario.bowlers.clone();
        self.panel(t + 1000, Action::lineup(bowlers.clone()));
        let mut at = t + 5000;
        for b in bowlers.iter().filter(|b| b.class == Class::B1) {
            let bowler = b.name.clone();
            self.panel(at, Action::BlindfoldCheck { bowler, ok: true });
            at += 20_000;
        }
        let games = u32::from(self.scenario.games);
        self.panel(at + 10_000, Action::StartBlock { games });
        self.blocks_started += 1;
    }

    /// Pins left standing of `before` after a ball by a bowler of `skill`,
    /// drawn from leaves seen on real lanes so that the sheet looks like a
    /// lane's: many single pins, some clusters, a split now and then.
    fn knock(&mut self, before: PinSet, fresh: bool, skill: f64) -> PinSet {
        const LEAVES: [(&[u8], u64); 20] = [
            (&[10], 20),
            (&[7], 10),
            (&[5], 6),
            (&[8], 5),
            (&[9], 5),
            (&[2], 4),
            (&[6, 10], 8),
            (&[3, 6, 10], 5),
            (&[4, 7], 6),
            (&[2, 4, 7, 8], 3),
            (&[2, 4, 5, 8], 3),
            (&[6, 9, 10], 3),
            (&[1, 2, 4], 2),
            (&[1, 2, 4, 7], 4),
            (&[3, 6, 9, 10], 4),
            (&[1, 2, 3, 4, 6, 7, 10], 2),
            (&[7, 10], 2),
            (&[3, 10], 2),
            (&[2, 7], 2),
            (&[4, 6], 1),
        ];
        if self.rng.chance(0.03) {
            return before; // into the channel
        }
        if !fresh {
            if self
                .rng
                .chance(skill * if before.len() <= 2 { 0.7 } else { 0.45 })
            {
                return PinSet::EMPTY;
            }
            // Some of the leave stays up.
            let kept: Vec<_> = before.iter().filter(|_| self.rng.chance(0.4)).collect();
            let kept = if kept.is_empty() {
                before.iter().last()
            } else {
                kept.first().copied()
            };
            return PinSet::from_pins(kept).intersect(before);
        }
        if self.rng.chance(skill * 0.45) {
            return PinSet::EMPTY;
        }
        let total: u64 = LEAVES.iter().map(|(_, w)| w).sum();
        let mut pick = self.rng.range(0, total - 1);
        let pins = LEAVES
            .iter()
            .find(|(_, w)| {
                let hit = pick < *w;
                pick = pick.saturating_sub(*w);
                hit
            })
            .map_or(&[10][..], |(p, _)| p);
        PinSet::from_pins(pins.iter().filter_map(|&n| crate::lane::Pin::new(n))).intersect(before)
    }

    /// One delivery by the bowler up, from the lane ready to the next READY.
    fn delivery(&mut self) {
        let Some(up) = self.lane.up() else { return };
        let entry = &self.lane.entries()[up.entry];
        let slot = usize::from(entry.position) - 1;
        let b1 = entry.bowler.class == Class::B1;
        let skill = self.skill.get(slot).copied().unwrap_or(0.7);
        let limit = self.scenario.rules.slow_bowling_limit_s * 1000;
        let wait = if self.rng.chance(self.scenario.slow_chance) {
            limit + self.rng.range(2_000, 20_000)
        } else {
            self.rng
                .range(6_000, limit.saturating_sub(15_000).max(7_000))
        };
        let ready = self.t;
        let release = ready + wait;
        if b1 && self.rng.chance(self.scenario.orientation_chance) && wait > 5_000 {
            let start = ready + wait / 3;
            self.sensor(start, Sensor::FoulBeam { broken: true });
            let end = start + self.rng.range(1_200, 3_000).min(wait / 2);
            self.sensor(end, Sensor::FoulBeam { broken: false });
        }
        self.sensor(release, Sensor::FoulBeam { broken: true });
        let passage = self.rng.range(20, 80);
        self.sensor(release + passage, Sensor::FoulBeam { broken: false });
        let standing = self.knock(up.at.before, up.at.fresh_rack, skill);
        if standing == up.at.before && self.rng.chance(0.7) {
            let side = if self.rng.chance(0.5) {
                Side::Left
            } else {
                Side::Right
            };
            let at = release + self.rng.range(800, 1_600);
            self.sensor(at, Sensor::Channel { side });
        }
        // A foul: the bowler steps over the line after the release, most
        // often at once, sometimes only after the pins are reported.
        let foul = self.rng.chance(self.scenario.foul_chance);
        let late_foul = foul && self.rng.chance(0.3);
        if foul && !late_foul {
            let on = release + self.rng.range(300, 1_200);
            self.person_on_line(on);
        }
        let ball = release + self.rng.range(2_200, 2_800);
        if !self.rng.chance(0.01) {
            self.sensor(ball, Sensor::Ball);
        }
        let report = ball + self.rng.range(1_500, 2_500);
        if self.rng.chance(self.scenario.noise_chance) {
            let line = "$PS,PI\u{7f}NS,,0000?*ZZ".to_owned();
            self.sensor(report - 300, Sensor::Serial { line });
        }
        self.serial(report, Body::Pins(standing));
        if late_foul {
            let on = report + self.rng.range(300, 1_200);
            self.person_on_line(on);
        }
        if self.rng.chance(0.02) {
            let name = "repeat".to_owned();
            self.sensor(report + 2_400, Sensor::Button { name });
        }
        // The pinsetter sets what the lane says stands for the next ball:
        // the leave, a fresh rack, or a respot after a foul.
        let next = self.lane.up().map_or(PinSet::FULL, |u| u.at.before);
        let ready = report + self.rng.range(2_500, 3_500);
        self.serial(ready, Body::Ready(next));
    }

    /// A person's break of the foul beam, well longer than a ball's.
    fn person_on_line(&mut self, on: Millis) {
        self.sensor(on, Sensor::FoulBeam { broken: true });
        let off = on + self.rng.range(400, 900);
        self.sensor(off, Sensor::FoulBeam { broken: false });
    }

    fn refill(&mut self) {
        if self.lane.open_block().is_none() {
            if self.blocks_started == self.scenario.blocks {
                self.done = true;
                return;
            }
            self.start_block();
        } else if self.lane.up().is_some() {
            self.delivery();
        } else {
            self.panel(self.t + 30_000, Action::EndBlock);
        }
    }
}

impl Iterator for Simulator {
    type Item = Stamped<Event>;

    fn next(&mut self) -> Option<Stamped<Event>> {
        while self.queue.is_empty() && !self.done {
            self.refill();
        }
        self.queue.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::Effects;

    #[test]
    fn demo_lanes_have_bowlers_of_their_own() {
        let mut names = std::collections::BTreeSet::new();
        for lane in 1..=50 {
            let s = Scenario::demo_on_lane(lane, 1);
            assert_eq!(s.lane, lane);
            let classes: Vec<_> = s.bowlers.iter().map(|b| b.class).collect();
            assert_eq!(classes, [Class::B1, Class::B2, Class::B3]);
            for b in &s.bowlers {
                assert!(names.insert(b.name.clone()), "{} twice", b.name);
            }
        }
        assert_eq!(
            Scenario::demo_on_lane(7, 1).bowlers,
            Scenario::demo(1).bowlers
        );
    }

    #[test]
    fn the_same_seed_gives_the_same_lane() {
        let a: Vec<_> = Scenario::demo(5).run().collect();
        let b: Vec<_> = Scenario::demo(5).run().collect();
        let c: Vec<_> = Scenario::demo(6).run().collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn a_demo_block_is_bowled_to_the_end_in_time_order() {
        let events: Vec<_> = Scenario::demo(1).run().collect();
        assert!(events.windows(2).all(|w| w[0].t <= w[1].t));
        let mut lane = Lane::new(7, Rules::default());
        let mut out = Vec::new();
        for e in &events {
            lane.handle(e.t, &e.event, &mut out);
        }
        let refused = out
            .refusals()
            .into_iter()
            .filter(|r| !matches!(r, crate::lane::Refusal::Serial(_)))
            .count();
        assert_eq!(refused, 0, "the simulator only does what the lane allows");
        assert_eq!(lane.blocks().len(), 1);
        assert!(lane.blocks()[0].ended);
        for entry in lane.entries() {
            assert_eq!(
                entry.games.len(),
                3,
                "{} bowled every game",
                entry.bowler.name
            );
        }
    }
}

//! Arbitrary bytes as one pinsetter line (parse, and format/parse round
//! trip), then as a script that drives a lane through sensor readings and
//! panel actions. Nothing may panic; a parsed line must format back to a line
//! that parses to the same message.
#![no_main]

use lanecall::lane::{
    Action, Bowler, Class, Event, Lane, LaterBall, Panel, PinSet, Rules, Sensor, Side,
};
use lanecall::pinsetter::{self, Body, Message};
use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 6] = ["Anna", "Boris", "Chen", "Dana", "Emil", "Fatima"];

/// Reads the input a byte at a time; zeros once it runs out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn u16(&mut self) -> u16 {
        u16::from(self.u8()) | u16::from(self.u8()) << 8
    }
    fn bool(&mut self) -> bool {
        self.u8() & 1 != 0
    }
    fn take(&mut self, n: usize) -> &[u8] {
        let n = n.min(self.0.len());
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        head
    }
    fn pins(&mut self) -> PinSet {
        PinSet::from_bits(self.u16() & 0x3ff).unwrap()
    }
    /// A foul as a correction gives it: kept, withdrawn or called.
    fn foul(&mut self) -> Option<bool> {
        match self.u8() % 3 {
            0 => None,
            1 => Some(false),
            _ => Some(true),
        }
    }
    fn class(&mut self) -> Class {
        match self.u8() % 3 {
            0 => Class::B1,
            1 => Class::B2,
            _ => Class::B3,
        }
    }
    fn name(&mut self) -> String {
        NAMES[usize::from(self.u8()) % NAMES.len()].to_owned()
    }
    fn bowler(&mut self, name: String) -> Bowler {
        let class = self.class();
        let handicap = i32::from(self.u8() as i8);
        let team = match self.u8() % 3 {
            0 => None,
            1 => Some("North".to_owned()),
            _ => Some("South".to_owned()),
        };
        Bowler {
            name,
            class,
            handicap,
            team,
            voice: Default::default(),
        }
    }
    fn side(&mut self) -> Side {
        if self.bool() { Side::Left } else { Side::Right }
    }
}

fn round_trip(line: &str) {
    if let Ok(msg) = pinsetter::parse_line(line) {
        let again = pinsetter::format_line(&msg);
        match pinsetter::parse_line(&again) {
            Ok(back) => assert_eq!(back, msg, "{line:?} formats as {again:?}"),
            Err(e) => panic!("{line:?} parses to {msg:?}, which formats as {again:?}: {e}"),
        }
    }
}

fn panel(action: Action) -> Event {
    Event::Panel(Panel::new(Some("judge".to_owned()), action))
}

fn serial(msg: Message) -> Event {
    Event::Sensor(Sensor::Serial {
        line: pinsetter::format_line(&msg),
    })
}

fn drive(data: &[u8]) {
    let mut b = Bytes(data);
    let mut lane = Lane::new(1, Rules::default());
    let mut effects = Vec::new();
    let mut t: u64 = 0;

    // A lineup of 1..=4 bowlers, a blindfold check for each, the pinsetter
    // link up and a first deck, so a block can start.
    let n = 1 + usize::from(b.u8() % 4);
    let bowlers: Vec<Bowler> = NAMES[..n]
        .iter()
        .map(|s| b.bowler((*s).to_owned()))
        .collect();
    let mut setup = vec![
        Event::Sensor(Sensor::SerialLink { up: true }),
        panel(Action::lineup(bowlers.clone())),
    ];
    for bw in &bowlers {
        setup.push(panel(Action::BlindfoldCheck {
            bowler: bw.name.clone(),
            ok: true,
        }));
    }
    setup.push(serial(Message {
        seq: 0,
        body: Body::Ready(PinSet::FULL),
    }));
    for event in &setup {
        t += 100;
        effects.clear();
        lane.handle(t, event, &mut effects);
    }

    let mut seq: u8 = 1;
    while !b.is_empty() {
        // Time goes on by a byte-derived amount: mostly short steps, now and
        // then long ones (ball travel, pin report timeout, slow bowling).
        let step = b.u8();
        t += match step >> 6 {
            0 => u64::from(step & 0x3f),
            1 => u64::from(step & 0x3f) * 50,
            2 => u64::from(step & 0x3f) * 500,
            _ => u64::from(step & 0x3f) * 5_000,
        };
        let op = b.u8();
        let event = match op % 24 {
            0 | 1 => Event::Sensor(Sensor::Ball),
            2 | 3 => Event::Sensor(Sensor::FoulBeam { broken: b.bool() }),
            4 => {
                let len = usize::from(b.u8() % 48);
                let chunk = b.take(len);
                Event::Sensor(Sensor::Serial {
                    line: String::from_utf8_lossy(chunk).into_owned(),
                })
            }
            5..=7 => {
                // A well-formed pinsetter line, mostly in sequence.
                let s = b.u8();
                seq = match s % 8 {
                    0 => seq,                      // retransmission
                    1 => seq.wrapping_add(s >> 3), // gap
                    2 => s,                        // anything
                    _ => seq.wrapping_add(1),
                };
                let body = match op % 24 {
                    5 => Body::Ready(b.pins()),
                    6 => Body::Pins(b.pins()),
                    _ if s & 0x80 != 0 => Body::Fault("JAM AT DECK".to_owned()),
                    _ => Body::Pins(b.pins()),
                };
                serial(Message { seq, body })
            }
            8 => Event::Sensor(Sensor::Channel { side: b.side() }),
            9 => Event::Sensor(Sensor::Button {
                name: if b.bool() {
                    "repeat".to_owned()
                } else {
                    "score".to_owned()
                },
            }),
            10 => Event::Sensor(Sensor::SerialLink { up: b.bool() }),
            11 => panel(Action::StartBlock {
                games: u32::from(b.u8() % 14),
            }),
            12 => panel(Action::Hold {
                on: b.bool(),
                reason: None,
            }),
            13 => {
                let standing = b.pins();
                let twice = b.pins();
                panel(Action::ManualPins { standing, twice })
            }
            14 => panel(Action::Correct {
                bowler: b.name(),
                game: b.u8() % 14,
                frame: b.u8() % 12,
                ball: b.u8() % 4,
                standing: b.pins(),
                twice: b.pins(),
                foul: b.foul(),
                later: (0..b.u8() % 3)
                    .map(|_| LaterBall {
                        standing: b.pins(),
                        twice: b.pins(),
                        foul: b.foul(),
                    })
                    .collect(),
            }),
            15 => panel(Action::EndBlock),
            16 => panel(Action::BlindfoldCheck {
                bowler: b.name(),
                ok: b.bool(),
            }),
            17 => panel(Action::BlindfoldAdjust { bowler: b.name() }),
            18 => {
                let out = b.name();
                let incoming = b.name();
                let incoming = b.bowler(incoming);
                panel(Action::Substitute { out, incoming })
            }
            19 => panel(Action::Penalty {
                bowler: b.name(),
                reason: "slow bowling".to_owned(),
            }),
            20 => {
                let n = usize::from(b.u8() % 6);
                let bowlers = (0..n)
                    .map(|_| {
                        let name = b.name();
                        b.bowler(name)
                    })
                    .collect();
                panel(Action::lineup(bowlers))
            }
            _ => {
                // Just let the clock run to the lane's next deadline.
                if let Some(d) = lane.poll_deadline() {
                    t = t.max(d);
                }
                effects.clear();
                lane.tick(t, &mut effects);
                continue;
            }
        };
        effects.clear();
        lane.handle(t, &event, &mut effects);
        let _ = lane.poll_deadline();
        let _ = lane.up();
        let _ = lane.slow_clock();
    }
    // Run out every pending deadline (bounded, in case one never moves on).
    for _ in 0..64 {
        match lane.poll_deadline() {
            Some(d) => {
                t = t.max(d);
                effects.clear();
                lane.tick(t, &mut effects);
            }
            None => break,
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(line) = std::str::from_utf8(data) {
        round_trip(line);
    }
    drive(data);
});

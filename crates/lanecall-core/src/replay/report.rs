//! The JSON report of a replay (replay-output.md), written as it streams:
//! every field's name and shape. It never changes the lane nor decides a
//! score (the lane's scoring does); the text sheet reads its bowlers.

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use super::Replay;
use super::blocks;
use super::issues::Counts;
use crate::lane::scoring::{self, ScoredBall, Sheet};
use crate::lane::{Callout, Entry, Lane, Millis, OutputChange, Pin, PinSet, Word};

/// Serializes an iterator made on demand, so a long list is never copied.
struct SeqOf<F>(F);

impl<F, I> Serialize for SeqOf<F>
where
    F: Fn() -> I,
    I: IntoIterator,
    I::Item: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((self.0)())
    }
}

/// A pin set as the sorted list of its pin numbers.
#[derive(Clone, Copy)]
struct PinList(PinSet);

impl Serialize for PinList {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(Pin::number))
    }
}

fn pins(p: PinSet) -> PinList {
    PinList(p)
}

/// The replay-output.md object.
pub struct Report<'a>(
    pub(super) &'a Replay,
    pub(super) &'a [(&'static str, serde_json::Value)],
);

impl Serialize for Report<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Report(r, _) = self;
        let lane = &r.lane;
        let fouls_count = lane.rules().fouls_count();
        let mut m = s.serialize_struct("Report", 16)?;
        m.serialize_field("lane", &lane.number())?;
        m.serialize_field(
            "bowlers",
            &SeqOf(|| bowler_entries(lane).map(move |e| BowlerJson::new(e, fouls_count))),
        )?;
        self.middle_fields(&mut m)?;
        m.serialize_field(
            "callouts",
            &SeqOf(|| r.callouts.iter().map(|c| CalloutJson(c, lane))),
        )?;
        self.tail_fields(&mut m)?;
        m.end()
    }
}

/// The report's fields between two of its long lists, as a JSON object of
/// their own: [`Report::write_json`] writes them without the braces.
#[derive(Clone, Copy)]
pub(super) enum Part {
    /// From `practice` to `conduct`.
    Middle,
    /// From `outputs` to the end.
    Tail,
}

pub(super) struct Fields<'a>(pub(super) &'a Report<'a>, pub(super) Part);

impl Serialize for Fields<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_struct("Report", 16)?;
        match self.1 {
            Part::Middle => self.0.middle_fields(&mut m)?,
            Part::Tail => self.0.tail_fields(&mut m)?,
        }
        m.end()
    }
}

impl Report<'_> {
    /// `practice`, `after_block`, `conduct`.
    fn middle_fields<M: SerializeStruct>(&self, m: &mut M) -> Result<(), M::Error> {
        let Report(r, _) = self;
        let lane = &r.lane;
        let fouls_count = lane.rules().fouls_count();
        let outside = move |after: bool| {
            lane.practice()
                .iter()
                .filter(move |p| p.after_block.is_some() == after)
                .map(move |p| {
                    let (scored, _) = scoring::roll(p.at, &p.ball, fouls_count);
                    PracticeJson {
                        t: p.ball.t,
                        standing: pins(scored.standing),
                        pinfall: scored.pinfall,
                        foul: p.ball.foul,
                        block: p.after_block,
                    }
                })
        };
        m.serialize_field("practice", &SeqOf(|| outside(false)))?;
        m.serialize_field("after_block", &SeqOf(|| outside(true)))?;
        m.serialize_field("conduct", lane.conduct())?;
        Ok(())
    }

    /// From `outputs` to `events`, then the extra fields.
    fn tail_fields<M: SerializeStruct>(&self, m: &mut M) -> Result<(), M::Error> {
        let Report(r, extra) = self;
        let lane = &r.lane;
        m.serialize_field("outputs", &SeqOf(|| r.outputs.iter().map(OutputJson)))?;
        m.serialize_field("errors", r.errors.listed())?;
        m.serialize_field("error_counts", &Counts(&r.errors))?;
        m.serialize_field("errors_omitted", &r.errors.omitted())?;
        m.serialize_field("warnings", r.warnings.listed())?;
        m.serialize_field("warning_counts", &Counts(&r.warnings))?;
        m.serialize_field("warnings_omitted", &r.warnings.omitted())?;
        m.serialize_field(
            "up",
            &lane.up().map(|u| UpJson {
                bowler: &lane.entries()[u.entry].bowler.name,
                game: u.game,
                frame: u.at.frame,
                ball: u.at.ball,
                standing: pins(u.at.before),
            }),
        )?;
        m.serialize_field(
            "in_play",
            &lane.in_play().map(|(e, game, frame, ball)| InPlayJson {
                bowler: &lane.entries()[e].bowler.name,
                game,
                frame,
                ball,
            }),
        )?;
        m.serialize_field(
            "wrong_deck",
            &lane.wrong_deck().map(|w| WrongDeckJson {
                bowler: &lane.entries()[w.up.entry].bowler.name,
                game: w.up.game,
                frame: w.up.at.frame,
                ball: w.up.at.ball,
                deck: DeckJson::new(w.expected(), w.set),
            }),
        )?;
        m.serialize_field(
            "last_ball",
            &lane.last_ball().map(|l| LastBallJson {
                bowler: &lane.entries()[l.entry].bowler.name,
                game: l.game,
                frame: l.scored.at.frame,
                ball: l.scored.at.ball,
                wrong_deck: l
                    .scored
                    .wrong_deck
                    .map(|set| DeckJson::new(l.scored.at.before, set)),
            }),
        )?;
        m.serialize_field(
            "pinsetter",
            &PinsetterJson {
                link: lane.link_up().map(|up| if up { "up" } else { "down" }),
                fault: lane.pinsetter_fault(),
                deck: lane.deck().map(pins),
                stats: lane.serial(),
            },
        )?;
        m.serialize_field(
            "hold",
            &lane.hold().map(|h| HoldJson {
                since: h.since,
                reason: h.reason.as_deref(),
                by: h.by.as_deref(),
            }),
        )?;
        m.serialize_field("delivering", &lane.delivering())?;
        m.serialize_field("neighbours_busy", lane.neighbours_busy())?;
        m.serialize_field(
            "blindfolds",
            &SeqOf(|| {
                lane.blindfolds().iter().map(|b| BlindfoldJson {
                    bowler: &b.bowler,
                    checked_at: b.last_check.as_ref().map(|c| c.0),
                    ok: b.last_check.as_ref().is_some_and(|c| c.1),
                    by: b.last_check.as_ref().and_then(|c| c.2.as_deref()),
                    adjusting: b.adjusting,
                    recheck: b.recheck,
                })
            }),
        )?;
        m.serialize_field("blocks", &SeqOf(|| blocks::blocks(lane)))?;
        // Added later: only when the waiting lineup came with the centre's
        // block, so a journal without one gives the report it always gave.
        if let Some(next) = blocks::next_block(lane) {
            m.serialize_field("next_block", &next)?;
        }
        m.serialize_field(
            "day",
            &lane.date().map(|date| {
                let given = lane.date_given();
                DayJson {
                    date,
                    from: given.map_or("header", |g| g.from.as_str()),
                    by: given.and_then(|g| g.by.as_deref()),
                    t: given.map(|g| g.t),
                }
            }),
        )?;
        m.serialize_field(
            "wall_clock",
            &SeqOf(|| {
                r.wall.points().iter().map(|&(t, wall)| WallJson {
                    t,
                    wall: wall.to_string(),
                })
            }),
        )?;
        m.serialize_field("events", &r.events)?;
        for (key, value) in extra.iter() {
            m.serialize_field(key, value)?;
        }
        Ok(())
    }
}

/// The competition day: its date, and who gave it (`header`: the
/// journal's header, no `date` event).
#[derive(Serialize)]
struct DayJson<'a> {
    date: crate::wall::DayDate,
    from: &'static str,
    by: Option<&'a str>,
    t: Option<Millis>,
}

/// A point of the wall clock: lane time `t` was wall time `wall`.
#[derive(Serialize)]
struct WallJson {
    t: Millis,
    wall: String,
}

/// Entries as the sheet lists them: block by block, each place in the lane
/// order with its substitutes after it, then a lineup not yet started.
pub fn bowler_entries(lane: &Lane) -> impl Iterator<Item = EntryView<'_>> + Clone {
    let started = lane.blocks().iter().flat_map(move |b| {
        b.slots
            .iter()
            .flatten()
            .map(move |&i| EntryView::Bowled(&lane.entries()[i]))
    });
    let next_block = lane.next_block_number();
    let waiting = lane
        .pending_lineup()
        .into_iter()
        .flatten()
        .enumerate()
        .map(move |(i, b)| EntryView::Waiting(b, next_block, i as u8 + 1));
    started.chain(waiting)
}

/// A bowler on the sheet.
#[derive(Clone, Copy)]
pub enum EntryView<'a> {
    Bowled(&'a Entry),
    /// In a lineup whose block has not started: block and place.
    Waiting(&'a crate::lane::Bowler, u32, u8),
}

#[derive(Serialize)]
pub(super) struct BowlerJson<'a> {
    pub(super) name: &'a str,
    pub(super) class: &'static str,
    pub(super) handicap: crate::lane::Handicap,
    pub(super) team: Option<&'a str>,
    /// What the speaker says after this bowler's balls.
    pub(super) voice: &'static str,
    /// The bowler's own callout language, if not the lane's.
    pub(super) lang: Option<&'static str>,
    /// The bowler's own `extras` (split, score on request), if not the
    /// lane's.
    pub(super) extras: Option<bool>,
    pub(super) block: u32,
    pub(super) position: u8,
    pub(super) games: Vec<GameJson>,
    pub(super) series: u32,
    pub(super) series_with_handicap: i64,
}

impl<'a> BowlerJson<'a> {
    pub(super) fn new(e: EntryView<'a>, fouls_count: bool) -> BowlerJson<'a> {
        let (bowler, block, position, games) = match e {
            EntryView::Bowled(entry) => (
                &entry.bowler,
                entry.block,
                entry.position,
                entry
                    .games
                    .iter()
                    .enumerate()
                    .map(|(i, balls)| GameJson {
                        game: entry.game_number(i),
                        sheet: scoring::sheet(balls, fouls_count),
                    })
                    .collect(),
            ),
            EntryView::Waiting(b, block, position) => (b, block, position, Vec::new()),
        };
        let series: u32 = games
            .iter()
            .map(|g: &GameJson| u32::from(g.sheet.total))
            .sum();
        BowlerJson {
            name: &bowler.name,
            class: bowler.class.as_str(),
            handicap: bowler.handicap,
            team: bowler.team.as_deref(),
            voice: bowler.voice.verbosity.as_str(),
            lang: bowler.voice.language.map(|l| l.as_str()),
            extras: bowler.voice.extras,
            block,
            position,
            series_with_handicap: i64::from(series)
                + crate::lane::handicap::over(bowler.handicap, games.len()),
            series,
            games,
        }
    }
}

pub(super) struct GameJson {
    pub(super) game: u8,
    pub(super) sheet: Sheet,
}

impl Serialize for GameJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_struct("Game", 4)?;
        m.serialize_field("game", &self.game)?;
        m.serialize_field("complete", &self.sheet.complete)?;
        m.serialize_field("total", &self.sheet.total)?;
        m.serialize_field(
            "frames",
            &SeqOf(|| {
                self.sheet.frames.iter().map(|f| FrameJson {
                    frame: f.number,
                    marks: f.marks(),
                    cumulative: f.cumulative,
                    balls: SeqOf(|| f.balls.iter().map(BallJson)),
                })
            }),
        )?;
        m.end()
    }
}

#[derive(Serialize)]
struct FrameJson<B: Serialize> {
    frame: u8,
    marks: String,
    cumulative: Option<u16>,
    balls: B,
}

struct BallJson<'a>(&'a ScoredBall);

impl Serialize for BallJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let b = self.0;
        let mut m = s.serialize_struct("Ball", 6)?;
        m.serialize_field("pinfall", &b.pinfall)?;
        m.serialize_field("standing", &pins(b.standing))?;
        m.serialize_field("foul", &b.foul)?;
        m.serialize_field("split", &b.split)?;
        m.serialize_field(
            "wrong_deck",
            &b.wrong_deck.map(|set| DeckJson::new(b.at.before, set)),
        )?;
        if let Some(side) = b.channel {
            m.serialize_field("channel", side.as_str())?;
        }
        m.end()
    }
}

#[derive(Serialize)]
struct PracticeJson<P: Serialize> {
    t: Millis,
    standing: P,
    pinfall: u8,
    foul: bool,
    /// For a ball after a block's last game: that block.
    #[serde(skip_serializing_if = "Option::is_none")]
    block: Option<u32>,
}

pub(super) struct CalloutJson<'a>(pub(super) &'a Callout, pub(super) &'a Lane);

impl Serialize for CalloutJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let CalloutJson(c, lane) = self;
        let bowler = c
            .bowler
            .and_then(|e| lane.entries().get(e as usize))
            .map(|e| e.bowler.name.as_str());
        let words = c.words();
        let mut m = s.serialize_struct("Callout", 5)?;
        m.serialize_field("t", &c.t)?;
        m.serialize_field("bowler", &bowler)?;
        m.serialize_field("standing", &pins(c.standing()))?;
        m.serialize_field(
            "words",
            &SeqOf(|| words.as_slice().iter().map(|w| Token(*w))),
        )?;
        m.serialize_field("text", &Text(&words))?;
        m.end()
    }
}

/// Words as English text, written without an allocation: spelled into a
/// buffer on the stack, as `Words`' `Display` spells them.
struct Text<'a>(&'a crate::lane::Words);

/// Room for the longest callout's text.
const TEXT_MAX: usize = 256;

impl Serialize for Text<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut buf = [0u8; TEXT_MAX];
        let mut len = 0;
        let mut sep: &[u8] = b"";
        for &word in self.0.as_slice() {
            let mut digits = itoa::Buffer::new();
            let part = match word {
                Word::Pin(p) => digits.format(p.number()).as_bytes(),
                Word::Number(n) => digits.format(n).as_bytes(),
                w => w.fixed_english().as_bytes(),
            };
            let end = len + sep.len() + part.len();
            let Some(out) = buf.get_mut(len..end) else {
                return s.collect_str(self.0);
            };
            let (head, tail) = out.split_at_mut(sep.len());
            head.copy_from_slice(sep);
            tail.copy_from_slice(part);
            len = end;
            sep = if word == Word::Frame { b" " } else { b", " };
        }
        match std::str::from_utf8(&buf[..len]) {
            Ok(text) => s.serialize_str(text),
            Err(_) => s.collect_str(self.0),
        }
    }
}

/// A word as its token, written without an allocation.
struct Token(Word);

impl Serialize for Token {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut digits = itoa::Buffer::new();
        let number = match self.0 {
            Word::Pin(p) => digits.format(p.number()),
            Word::Number(n) => digits.format(n),
            w => return s.serialize_str(w.fixed_token()),
        };
        s.serialize_str(number)
    }
}

struct OutputJson<'a>(&'a OutputChange);

impl Serialize for OutputJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let o = self.0;
        let mut m = s.serialize_struct("Output", 3)?;
        m.serialize_field("t", &o.t)?;
        m.serialize_field("output", &o.output)?;
        m.serialize_field("state", &o.switch)?;
        m.end()
    }
}

#[derive(Serialize)]
struct UpJson<'a, P: Serialize> {
    bowler: &'a str,
    game: u8,
    frame: u8,
    ball: u8,
    /// What stands for the ball.
    standing: P,
}

/// The last ball, while a foul can still be called on it.
#[derive(Serialize)]
struct InPlayJson<'a> {
    bowler: &'a str,
    game: u8,
    frame: u8,
    ball: u8,
}

/// A deck set that is not the one the rules expect.
#[derive(Serialize)]
struct DeckJson {
    expected: PinList,
    set: PinList,
    /// Expected, not set.
    missing: PinList,
    /// Set, not expected.
    extra: PinList,
}

impl DeckJson {
    fn new(expected: PinSet, set: PinSet) -> DeckJson {
        DeckJson {
            expected: pins(expected),
            set: pins(set),
            missing: pins(expected.without(set)),
            extra: pins(set.without(expected)),
        }
    }
}

/// The deck set now for the ball up, when it is wrong.
#[derive(Serialize)]
struct WrongDeckJson<'a> {
    bowler: &'a str,
    game: u8,
    frame: u8,
    ball: u8,
    #[serde(flatten)]
    deck: DeckJson,
}

/// The ball a judge can declare dead.
#[derive(Serialize)]
struct LastBallJson<'a> {
    bowler: &'a str,
    game: u8,
    frame: u8,
    ball: u8,
    wrong_deck: Option<DeckJson>,
}

#[derive(Serialize)]
struct PinsetterJson<'a, P: Serialize> {
    link: Option<&'static str>,
    fault: Option<&'a str>,
    deck: Option<P>,
    #[serde(flatten)]
    stats: crate::lane::SerialStats,
}

#[derive(Serialize)]
struct HoldJson<'a> {
    since: Millis,
    reason: Option<&'a str>,
    by: Option<&'a str>,
}

#[derive(Serialize)]
struct BlindfoldJson<'a> {
    bowler: &'a str,
    checked_at: Option<Millis>,
    ok: bool,
    by: Option<&'a str>,
    adjusting: bool,
    /// A judge asked for a new check.
    recheck: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::{Side, Words};

    /// The text and tokens written from the stack read as `Words`' own
    /// spelling does.
    #[test]
    fn text_and_tokens_are_spelled_as_the_words_display() {
        let mut all = Vec::new();
        for mask in 0u16..1024 {
            let mut w = Words::new();
            if mask % 7 == 0 {
                w.push(Word::Correction);
            }
            for n in 1..=10u8 {
                if mask & (1 << (n - 1)) != 0 {
                    w.push(Word::Pin(Pin::new(n).unwrap()));
                }
            }
            let side = if mask % 2 == 0 {
                Side::Left
            } else {
                Side::Right
            };
            if mask % 3 == 0 {
                w.push(Word::Split);
                w.push(Word::SideOf(side));
            }
            if mask % 5 == 0 {
                w.push(Word::Channel(side));
            }
            all.push(w);
        }
        for (frame, total) in [(1, 0), (6, 87), (10, 300), (9, u16::MAX)] {
            let mut w = Words::new();
            w.push(Word::Frame);
            w.push(Word::Number(frame));
            w.push(Word::Number(total));
            all.push(w);
        }
        for fixed in [Word::Strike, Word::Spare, Word::Foul, Word::NoPins] {
            let mut w = Words::new();
            w.push(fixed);
            all.push(w);
        }
        for w in &all {
            let text = serde_json::to_string(&Text(w)).unwrap();
            assert_eq!(text, serde_json::to_string(&w.to_string()).unwrap());
            let tokens: Vec<String> = w
                .as_slice()
                .iter()
                .map(|&t| serde_json::to_string(&Token(t)).unwrap())
                .collect();
            let expected: Vec<String> = w
                .tokens()
                .iter()
                .map(|t| serde_json::to_string(t).unwrap())
                .collect();
            assert_eq!(tokens, expected);
        }
        let mut seven_ten = Words::new();
        for n in [7, 10] {
            seven_ten.push(Word::Pin(Pin::new(n).unwrap()));
        }
        seven_ten.push(Word::Split);
        let spoken: Vec<String> = [seven_ten, all[1025]]
            .iter()
            .map(|w| serde_json::to_string(&Text(w)).unwrap())
            .collect();
        assert_eq!(spoken, ["\"7, 10, split\"", "\"frame 6, 87\""]);
    }
}

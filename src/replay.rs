//! Replay: a journal applied to a lane, and the result as `lanecall replay`
//! prints it (replay-output.md).
//!
//! [`Replay`] is also what the live daemon keeps: the lane plus what it said
//! and switched, so `GET /api/lane` and `lanecall replay --json` come from
//! one serializer. The report streams as it is written: callouts and score
//! sheets are never built up as one big value in memory.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::BufRead;

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use crate::journal::{Checked, Header, HeaderError, Item, LineError, Reader};
use crate::lane::scoring::{self, ScoredBall, Sheet};
use crate::lane::{
    Callout, Effect, Entry, Event, Lane, Millis, OutputChange, Pin, PinSet, Refusal, Stamped, Word,
};

/// A journal line that was not applied, or a warning about one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Issue {
    pub line: u64,
    pub message: String,
}

/// How many issues of each list the report names: the first this many
/// and the latest this many. A noisy serial line gives a bad line per
/// millisecond for hours; every one of them kept would grow the live lane's
/// memory and its every snapshot without end.
pub const ISSUES_KEPT: usize = 100;

/// Issues as the report lists them: the first [`ISSUES_KEPT`], then the
/// latest [`ISSUES_KEPT`] in order, with exact counts by kind of all of
/// them.
#[derive(Clone, Debug, Default)]
pub struct Issues {
    /// The first `keep`, then the latest `keep`: one slice, so readers
    /// still get the listed issues in journal order.
    listed: Vec<Issue>,
    keep: usize,
    total: u64,
    counts: BTreeMap<&'static str, u64>,
}

impl Issues {
    /// Keeps the first `keep` and the latest `keep` issues.
    pub fn new(keep: usize) -> Issues {
        Issues {
            listed: Vec::new(),
            keep,
            total: 0,
            counts: BTreeMap::new(),
        }
    }

    /// Counts an issue of `kind` and lists it, dropping the oldest of the
    /// latest when the window is full.
    pub fn push(&mut self, kind: &'static str, issue: Issue) {
        self.total += 1;
        *self.counts.entry(kind).or_insert(0) += 1;
        if self.listed.len() == 2 * self.keep {
            if self.keep == 0 {
                return;
            }
            // The first `keep` stay; the oldest of the latest goes. At most
            // `keep` issues move, each a few words.
            self.listed.remove(self.keep);
        }
        self.listed.push(issue);
    }

    /// The issues listed, in journal order: the first, then the latest.
    pub fn listed(&self) -> &[Issue] {
        &self.listed
    }

    /// Every issue counted, listed or not.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Issues counted but not listed.
    pub fn omitted(&self) -> u64 {
        self.total - self.listed.len() as u64
    }

    /// Exact counts by kind.
    pub fn counts(&self) -> &BTreeMap<&'static str, u64> {
        &self.counts
    }
}

/// `{"total": n, kind: n, ...}`, written without a copy.
struct Counts<'a>(&'a Issues);

impl Serialize for Counts<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.counts.len() + 1))?;
        m.serialize_entry("total", &self.0.total)?;
        for (kind, n) in &self.0.counts {
            m.serialize_entry(kind, n)?;
        }
        m.end()
    }
}

/// The kinds of [`Replay::error_counts`]: why a line was not applied.
pub mod kind {
    /// A pinsetter line the core rejected (pinsetter-serial.md).
    pub const SERIAL: &str = "serial";
    /// An event the lane's rules refused (a panel action, a sensor out of
    /// turn).
    pub const REFUSED: &str = "refused";
    /// A journal line that could not be read (not JSON, damaged, a time
    /// going back, a repeated line).
    pub const JOURNAL: &str = "journal";
    /// Pinsetter lines lost between two sequence numbers (a warning).
    pub const SERIAL_GAP: &str = "serial_gap";
}

/// A lane fed from a journal, with what it did.
pub struct Replay {
    lane: Lane,
    /// The header's wall-clock start, for people and for the day's
    /// journals.
    started_at: Option<String>,
    last_t: Millis,
    events: u64,
    callouts: Vec<Callout>,
    outputs: Vec<OutputChange>,
    errors: Issues,
    warnings: Issues,
    /// The effects of the latest input; reused to avoid an allocation per
    /// event.
    effects: Vec<Effect>,
}

impl Replay {
    pub fn new(header: &Header) -> Replay {
        let mut lane = Lane::new(header.lane, header.rules.clone());
        if let Some(day) = &header.day {
            lane.begin_day(day);
        }
        Replay {
            lane,
            started_at: header.started_at.clone(),
            last_t: 0,
            events: 0,
            callouts: Vec::new(),
            outputs: Vec::new(),
            errors: Issues::new(ISSUES_KEPT),
            warnings: Issues::new(ISSUES_KEPT),
            effects: Vec::with_capacity(8),
        }
    }

    pub fn lane(&self) -> &Lane {
        &self.lane
    }
    /// The journal header's `started_at`.
    pub fn started_at(&self) -> Option<&str> {
        self.started_at.as_deref()
    }
    /// The errors listed: the first and the latest [`ISSUES_KEPT`].
    /// Empty only when there was none.
    pub fn errors(&self) -> &[Issue] {
        self.errors.listed()
    }
    /// The warnings listed, as [`Replay::errors`].
    pub fn warnings(&self) -> &[Issue] {
        self.warnings.listed()
    }
    /// Every error, counted by kind ([`kind`]), listed or not.
    pub fn error_counts(&self) -> &Issues {
        &self.errors
    }
    /// Every warning, counted by kind, listed or not.
    pub fn warning_counts(&self) -> &Issues {
        &self.warnings
    }
    pub fn callouts(&self) -> &[Callout] {
        &self.callouts
    }
    pub fn outputs(&self) -> &[OutputChange] {
        &self.outputs
    }
    /// The time of the last line applied.
    pub fn last_t(&self) -> Millis {
        self.last_t
    }

    /// Event lines applied.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Records a line that could not be applied.
    pub fn reject(&mut self, line: u64, err: LineError) -> &[Effect] {
        self.effects.clear();
        self.errors.push(
            kind::JOURNAL,
            Issue {
                line,
                message: err.to_string(),
            },
        );
        &self.effects
    }

    /// Applies one event from journal line `line`, and returns its effects.
    pub fn apply(&mut self, line: u64, e: &Stamped<Event>) -> &[Effect] {
        if e.t < self.last_t {
            let err = LineError::TimeBackwards {
                t: e.t,
                previous: self.last_t,
            };
            return self.reject(line, err);
        }
        self.last_t = e.t;
        self.events += 1;
        self.effects.clear();
        self.lane.handle(e.t, &e.event, &mut self.effects);
        self.record(line);
        &self.effects
    }

    /// The effects of the last [`Replay::apply`] or [`Replay::tick`].
    pub fn last_effects(&self) -> &[Effect] {
        &self.effects
    }

    /// Runs the lane's deadlines up to `now` (the live daemon's timer).
    pub fn tick(&mut self, now: Millis) -> &[Effect] {
        self.effects.clear();
        self.lane.tick(now, &mut self.effects);
        self.record(0);
        &self.effects
    }

    fn record(&mut self, line: u64) {
        for effect in &self.effects {
            match effect {
                Effect::Callout(c) => self.callouts.push(*c),
                Effect::Output(o) => self.outputs.push(*o),
                Effect::Refused(r) => {
                    let kind = match r {
                        Refusal::Serial(_) => kind::SERIAL,
                        _ => kind::REFUSED,
                    };
                    let message = r.to_string();
                    self.errors.push(kind, Issue { line, message });
                }
                Effect::SerialGap { lost, .. } => self.warnings.push(
                    kind::SERIAL_GAP,
                    Issue {
                        line,
                        message: format!("pinsetter sequence number jumped: {lost} line(s) lost"),
                    },
                ),
                Effect::Conduct(_) | Effect::Changed => {}
            }
        }
    }

    /// Reads a whole journal. Bad lines are recorded and skipped; only a
    /// file that is not a journal, or that cannot be read, is an error.
    pub fn from_reader(r: impl BufRead) -> Result<Replay, HeaderError> {
        let (header, mut lines) = Checked::new(Reader::new(r))?;
        let mut replay = Replay::new(&header);
        while let Some(item) = lines.next_item()? {
            replay.feed(item);
        }
        Ok(replay)
    }

    /// Applies one checked item of a journal.
    pub fn feed(&mut self, item: Item) -> &[Effect] {
        match item {
            Item::Event(n, e) => self.apply(n, &e),
            Item::Error(n, e) => self.reject(n, e),
            Item::Warning(line, message) => {
                self.warnings.push(kind::JOURNAL, Issue { line, message });
                self.effects.clear();
                &self.effects
            }
        }
    }

    /// The result, ready to serialize (replay-output.md).
    pub fn report(&self) -> Report<'_> {
        Report(self, &[])
    }

    /// The result with more fields the live daemon knows of (the speaker's
    /// state), after the replay's own.
    pub fn report_with<'a>(&'a self, extra: &'a [(&'static str, serde_json::Value)]) -> Report<'a> {
        Report(self, extra)
    }
}

// ----- JSON ---------------------------------------------------------------

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
pub struct Report<'a>(&'a Replay, &'a [(&'static str, serde_json::Value)]);

impl Serialize for Report<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Report(r, extra) = self;
        let lane = &r.lane;
        let fouls_count = lane.rules().fouls_count();
        let mut m = s.serialize_struct("Report", 16)?;
        m.serialize_field("lane", &lane.number())?;
        m.serialize_field(
            "bowlers",
            &SeqOf(|| bowler_entries(lane).map(move |e| BowlerJson::new(e, fouls_count))),
        )?;
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
        m.serialize_field(
            "callouts",
            &SeqOf(|| r.callouts.iter().map(|c| CalloutJson(c, lane))),
        )?;
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
        m.serialize_field(
            "blocks",
            &SeqOf(|| {
                lane.blocks().iter().map(|b| BlockJson {
                    block: b.number,
                    games: b.games,
                    started_at: b.started_at,
                    ended: b.ended,
                })
            }),
        )?;
        m.serialize_field("events", &r.events)?;
        for (key, value) in extra.iter() {
            m.serialize_field(key, value)?;
        }
        m.end()
    }
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
struct BowlerJson<'a> {
    name: &'a str,
    class: &'static str,
    handicap: i32,
    team: Option<&'a str>,
    /// What the speaker says after this bowler's balls.
    voice: &'static str,
    /// The bowler's own callout language, if not the lane's.
    lang: Option<&'static str>,
    /// The bowler's own `extras` (split, score on request), if not the
    /// lane's.
    extras: Option<bool>,
    block: u32,
    position: u8,
    games: Vec<GameJson>,
    series: u32,
    series_with_handicap: i64,
}

impl<'a> BowlerJson<'a> {
    fn new(e: EntryView<'a>, fouls_count: bool) -> BowlerJson<'a> {
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
                + i64::from(bowler.handicap) * games.len() as i64,
            series,
            games,
        }
    }
}

struct GameJson {
    game: u8,
    sheet: Sheet,
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

struct CalloutJson<'a>(&'a Callout, &'a Lane);

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

/// Words as English text, written without an allocation.
struct Text<'a>(&'a crate::lane::Words);

impl Serialize for Text<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self.0)
    }
}

/// A word as its token, written without an allocation.
struct Token(Word);

impl Serialize for Token {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Word::Pin(p) => s.collect_str(&p),
            Word::Number(n) => s.collect_str(&n),
            w => s.serialize_str(w.fixed_token()),
        }
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

#[derive(Serialize)]
struct BlockJson {
    block: u32,
    games: u8,
    started_at: Millis,
    ended: bool,
}

// ----- the terminal score sheet -------------------------------------------

/// A ball's symbol on a printed sheet: a split's count is circled, and a
/// ball bowled at a wrong deck is starred.
fn sheet_symbol(b: &ScoredBall) -> String {
    const CIRCLED: [char; 10] = ['⓪', '①', '②', '③', '④', '⑤', '⑥', '⑦', '⑧', '⑨'];
    let mut symbol = if b.split && !b.foul && (1..=9).contains(&b.pinfall) {
        CIRCLED[usize::from(b.pinfall)].to_string()
    } else {
        b.mark().to_string()
    };
    if b.wrong_deck.is_some() {
        symbol.push('*');
    }
    symbol
}

fn time(t: Millis) -> String {
    let s = t / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// The score sheet a judge reads in a terminal, with the journal's errors
/// and warnings at the end.
pub fn render_sheet(r: &Replay) -> String {
    sheet(r, true)
}

/// The score sheet without the errors and warnings, for `lanecall replay`,
/// which prints those on stderr (once each).
pub fn render_scores(r: &Replay) -> String {
    sheet(r, false)
}

fn sheet(r: &Replay, with_issues: bool) -> String {
    let lane = r.lane();
    let fouls_count = lane.rules().fouls_count();
    let mut out = String::new();
    let _ = writeln!(out, "Lane {}", lane.number());
    let mut last_block = 0;
    let mut any_split = false;
    for e in bowler_entries(lane) {
        let b = BowlerJson::new(e, fouls_count);
        if b.block != last_block {
            last_block = b.block;
            let games = lane.block(b.block).map(|x| x.games);
            match games {
                Some(g) => {
                    let plural = if g == 1 { "" } else { "s" };
                    _ = writeln!(out, "\nBlock {} ({g} game{plural})", b.block)
                }
                None => _ = writeln!(out, "\nLineup for block {} (not started)", b.block),
            }
        }
        let mut who = format!("{}. {} ({}", b.position, b.name, b.class);
        if let Some(team) = b.team {
            let _ = write!(who, ", {team}");
        }
        if b.handicap != 0 {
            let _ = write!(who, ", handicap {}", b.handicap);
        }
        let _ = writeln!(out, "\n  {who})");
        if !b.games.is_empty() {
            let frames: String = (1..=10)
                .map(|n| format!("|{n:^width$}", width = if n == 10 { 7 } else { 5 }))
                .collect();
            let _ = writeln!(out, "    frame   {frames}|");
        }
        for g in &b.games {
            let mut marks = String::new();
            let mut totals = String::new();
            for f in &g.sheet.frames {
                let width = if f.number == 10 { 7 } else { 5 };
                any_split |= f.balls.iter().any(|b| b.split);
                let symbols: Vec<String> = f.balls.iter().map(sheet_symbol).collect();
                let _ = write!(marks, "|{:^width$}", symbols.join(" "));
                let cum = f.cumulative.map(|c| c.to_string()).unwrap_or_default();
                let _ = write!(totals, "|{cum:>width$}");
            }
            let state = if g.sheet.complete {
                ""
            } else {
                " (not finished)"
            };
            let _ = writeln!(
                out,
                "    game {:>2} {marks}|  {}{state}",
                g.game, g.sheet.total
            );
            let _ = writeln!(out, "            {totals}|");
            for f in &g.sheet.frames {
                for b in &f.balls {
                    if let Some(set) = b.wrong_deck {
                        let _ = writeln!(
                            out,
                            "            * frame {} ball {} bowled at a wrong deck: set {set}, the rules' deck {}",
                            f.number, b.at.ball, b.at.before
                        );
                    }
                }
            }
        }
        if !b.games.is_empty() {
            let _ = write!(out, "    series {}", b.series);
            if b.handicap != 0 {
                let _ = write!(out, ", with handicap {}", b.series_with_handicap);
            }
            out.push('\n');
        }
    }
    let after = lane.practice().iter().filter(|p| p.after_block.is_some());
    let after = after.count();
    let practice = lane.practice().len() - after;
    if practice > 0 {
        let _ = writeln!(out, "\nPractice: {practice} deliveries");
    }
    if after > 0 {
        let _ = writeln!(
            out,
            "\nAfter the block: {after} deliveries after the last game, counted nowhere"
        );
    }
    if !lane.conduct().is_empty() {
        let _ = writeln!(out, "\nConduct");
        for c in lane.conduct() {
            let who = c.bowler.as_deref().unwrap_or("lane");
            let what = &c.kind;
            let _ = writeln!(out, "  {}  {who}: {what}", time(c.t));
        }
    }
    let issues = [("Errors", &r.errors), ("Warnings", &r.warnings)];
    for (title, issues) in issues.into_iter().filter(|_| with_issues) {
        let list = issues.listed();
        if !list.is_empty() {
            let _ = writeln!(out, "\n{title}");
            for (n, i) in list.iter().enumerate() {
                if n == ISSUES_KEPT && issues.omitted() > 0 {
                    let _ = writeln!(out, "  … {} more not listed", issues.omitted());
                }
                let _ = writeln!(out, "  line {}: {}", i.line, i.message);
            }
        }
    }
    if any_split {
        let _ = writeln!(out, "\nSplits are circled: ① to ⑨.");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issue(line: u64) -> Issue {
        Issue {
            line,
            message: format!("bad {line}"),
        }
    }

    #[test]
    fn issues_keep_the_first_and_the_latest_and_count_every_one() {
        let mut issues = Issues::new(3);
        for line in 1..=10 {
            let kind = if line % 5 == 0 {
                kind::REFUSED
            } else {
                kind::SERIAL
            };
            issues.push(kind, issue(line));
        }
        let lines: Vec<u64> = issues.listed().iter().map(|i| i.line).collect();
        assert_eq!(lines, [1, 2, 3, 8, 9, 10]);
        assert_eq!(issues.total(), 10);
        assert_eq!(issues.omitted(), 4);
        assert_eq!(issues.counts()[kind::SERIAL], 8);
        assert_eq!(issues.counts()[kind::REFUSED], 2);
        let counts = serde_json::to_value(Counts(&issues)).unwrap();
        assert_eq!(
            counts,
            serde_json::json!({"total": 10, "serial": 8, "refused": 2})
        );
    }

    #[test]
    fn few_issues_are_all_listed() {
        let mut issues = Issues::new(3);
        for line in 1..=6 {
            issues.push(kind::JOURNAL, issue(line));
        }
        assert_eq!(issues.listed().len(), 6);
        assert_eq!(issues.omitted(), 0);
        issues.push(kind::JOURNAL, issue(7));
        let lines: Vec<u64> = issues.listed().iter().map(|i| i.line).collect();
        assert_eq!(lines, [1, 2, 3, 5, 6, 7]);
    }

    #[test]
    fn a_replay_of_many_bad_lines_lists_200_and_counts_them_all() {
        let header = Header::new(1, None, crate::lane::Rules::default());
        let mut w = crate::journal::Writer::create(Vec::new(), &header).unwrap();
        for t in 0..1000 {
            let e = Stamped {
                t,
                event: Event::Sensor(crate::lane::Sensor::Serial {
                    line: "garbage".into(),
                }),
            };
            w.write(&e).unwrap();
        }
        let journal = w.into_inner();
        let replay = Replay::from_reader(journal.as_slice()).unwrap();
        assert_eq!(replay.errors().len(), 2 * ISSUES_KEPT);
        assert_eq!(replay.errors()[0].line, 2);
        assert_eq!(replay.errors().last().unwrap().line, 1001);
        let report = serde_json::to_value(replay.report()).unwrap();
        assert_eq!(report["error_counts"]["total"], 1000);
        assert_eq!(report["error_counts"]["serial"], 1000);
        assert_eq!(report["errors_omitted"], 1000 - 2 * ISSUES_KEPT as u64);
        assert_eq!(report["errors"].as_array().unwrap().len(), 2 * ISSUES_KEPT);
    }

    fn sheet_of(log: &str) -> String {
        let path = format!("{}/tests/logs/{log}.jsonl", env!("CARGO_MANIFEST_DIR"));
        let file = std::fs::File::open(path).unwrap();
        render_sheet(&Replay::from_reader(std::io::BufReader::new(file)).unwrap())
    }

    #[test]
    fn the_sheet_says_the_balls_after_the_block_count_nowhere() {
        let sheet = sheet_of("after_block");
        assert!(sheet.contains("\nPractice: 1 deliveries\n"), "{sheet}");
        assert!(
            sheet
                .contains("\nAfter the block: 2 deliveries after the last game, counted nowhere\n"),
            "{sheet}"
        );
    }

    #[test]
    fn the_sheet_names_blocks_by_their_number_in_the_day() {
        let sheet = sheet_of("block_numbers");
        assert!(sheet.contains("\nBlock 2 (1 game)\n"), "{sheet}");
        assert!(sheet.contains("\nBlock 3 (1 game)\n"), "{sheet}");
        assert!(!sheet.contains("Block 1"), "{sheet}");
    }

    #[test]
    fn the_text_sheet_stars_a_ball_bowled_at_a_wrong_deck_and_names_its_decks() {
        let journal = include_str!("../tests/logs/wrong_deck.jsonl");
        let replay = Replay::from_reader(journal.as_bytes()).unwrap();
        let sheet = render_sheet(&replay);
        assert!(sheet.contains("|8* / |"), "{sheet}");
        assert!(sheet.contains("|F 2* |"), "{sheet}");
        assert!(
            sheet.contains(
                "* frame 2 ball 1 bowled at a wrong deck: set 1-2-3-4-6-7-8-9-10, the rules' deck 1-2-3-4-5-6-7-8-9-10"
            ),
            "{sheet}"
        );
        assert!(
            sheet.contains("* frame 4 ball 2 bowled at a wrong deck: set 4-7, the rules' deck 1-2-3-4-5-6-7-8-9-10"),
            "{sheet}"
        );
        assert_eq!(sheet.matches("wrong deck").count(), 2, "{sheet}");
    }
}

//! The JSON report written straight to bytes, for `lanecall replay --json`:
//! the same bytes as serde_json makes of [`Report`], its two long lists
//! (the bowlers' sheets and the callouts, most of a long journal's report)
//! written by hand, and the callouts apart, so that another thread can
//! write them meanwhile. It decides no field nor value: `report.rs` does.

use std::hash::{Hash, Hasher};
use std::io::{self, Write};
use std::ops::Range;

use super::Report;
use super::report::{BowlerJson, CalloutJson, Fields, Part, bowler_entries};
use crate::lane::{PinSet, Said, Word};

/// Bytes of a list written before they go to the writer.
const CHUNK: usize = 1 << 16;
/// Slots of a [`SaidCache`], and the bytes it holds at most.
const SAID_SLOTS: usize = 1021;
const SAID_BYTES: usize = 1 << 17;

/// A JSON text being written, as serde_json's compact formatter writes it.
struct Json(Vec<u8>);

/// Callouts' spelled-out parts ([`Json::said`]) as written last for each
/// of a few [`Said`]s: a long journal's callouts say a few hundred
/// different things, each spelled once instead of at every callout. One
/// slot for each hash of a `Said`, a later one taking it over; all are
/// dropped when their bytes reach a limit.
struct SaidCache {
    slots: Vec<Option<(Said, Range<usize>)>>,
    bytes: Vec<u8>,
    limit: usize,
}

impl SaidCache {
    fn new(slots: usize, limit: usize) -> SaidCache {
        SaidCache {
            slots: vec![None; slots.max(1)],
            bytes: Vec::new(),
            limit,
        }
    }

    /// `said` spelled out, as [`Json::said`] writes it.
    fn get(&mut self, said: &Said) -> &[u8] {
        let mut h = SlotHasher(0);
        said.hash(&mut h);
        let slot = (h.0 % self.slots.len() as u64) as usize;
        if let Some((held, range)) = &self.slots[slot]
            && held == said
        {
            return &self.bytes[range.clone()];
        }
        if self.bytes.len() >= self.limit {
            self.bytes.clear();
            self.slots.fill(None);
        }
        let mut json = Json(std::mem::take(&mut self.bytes));
        let start = json.0.len();
        json.said(said);
        self.bytes = json.0;
        let range = start..self.bytes.len();
        self.slots[slot] = Some((*said, range.clone()));
        &self.bytes[range]
    }
}

/// A multiply-and-rotate hash of a few small numbers: a slot of
/// [`SaidCache`] in a few instructions.
struct SlotHasher(u64);

impl Hasher for SlotHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b.into());
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.write_u64(n.into());
    }
    fn write_u16(&mut self, n: u16) {
        self.write_u64(n.into());
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n.into());
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl Json {
    #[inline]
    fn raw(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    #[inline]
    fn uint(&mut self, n: u64) {
        // Most are small (pins, pinfalls, frames): their digits pushed.
        if n < 10 {
            self.0.push(b'0' + n as u8);
        } else if n < 100 {
            self.0
                .extend_from_slice(&[b'0' + (n / 10) as u8, b'0' + (n % 10) as u8]);
        } else {
            self.raw(itoa::Buffer::new().format(n).as_bytes());
        }
    }

    fn int(&mut self, n: i64) {
        self.raw(itoa::Buffer::new().format(n).as_bytes());
    }

    fn bool(&mut self, b: bool) {
        self.raw(if b { b"true" } else { b"false" });
    }

    /// A string, escaped as serde_json escapes it.
    fn str(&mut self, s: &str) {
        self.raw(b"\"");
        self.str_contents(s);
        self.raw(b"\"");
    }

    /// A string's contents, without its quotes.
    fn str_contents(&mut self, s: &str) {
        if s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
            // Rare (names with quotes or control characters): serde's
            // own escaping, which cannot fail on a Vec.
            let start = self.0.len();
            let _ = serde_json::to_writer(&mut self.0, s);
            // Its quotes off.
            self.0.pop();
            self.0.remove(start);
        } else {
            self.raw(s.as_bytes());
        }
    }

    fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.str(s),
            None => self.raw(b"null"),
        }
    }

    fn pins(&mut self, pins: PinSet) {
        self.raw(b"[");
        for (i, pin) in pins.iter().enumerate() {
            if i > 0 {
                self.raw(b",");
            }
            self.uint(pin.number().into());
        }
        self.raw(b"]");
    }

    /// The fields of `part` (an object of their own), without its braces.
    fn fields(&mut self, report: &Report<'_>, part: Part) -> io::Result<()> {
        let object = serde_json::to_vec(&Fields(report, part))?;
        let inner = object
            .strip_prefix(b"{")
            .and_then(|o| o.strip_suffix(b"}"))
            .unwrap_or(&object);
        self.raw(inner);
        Ok(())
    }

    fn bowler(&mut self, b: &BowlerJson<'_>) {
        self.raw(b"{\"name\":");
        self.str(b.name);
        self.raw(b",\"class\":");
        self.str(b.class);
        self.raw(b",\"handicap\":");
        self.int(b.handicap.into());
        self.raw(b",\"team\":");
        self.opt_str(b.team);
        self.raw(b",\"voice\":");
        self.str(b.voice);
        self.raw(b",\"lang\":");
        self.opt_str(b.lang);
        self.raw(b",\"extras\":");
        match b.extras {
            Some(e) => self.bool(e),
            None => self.raw(b"null"),
        }
        self.raw(b",\"block\":");
        self.uint(b.block.into());
        self.raw(b",\"position\":");
        self.uint(b.position.into());
        self.raw(b",\"games\":[");
        for (i, g) in b.games.iter().enumerate() {
            if i > 0 {
                self.raw(b",");
            }
            self.raw(b"{\"game\":");
            self.uint(g.game.into());
            self.raw(b",\"complete\":");
            self.bool(g.sheet.complete);
            self.raw(b",\"total\":");
            self.uint(g.sheet.total.into());
            self.raw(b",\"frames\":[");
            for (i, f) in g.sheet.frames.iter().enumerate() {
                if i > 0 {
                    self.raw(b",");
                }
                self.raw(b"{\"frame\":");
                self.uint(f.number.into());
                self.raw(b",\"marks\":");
                let mut marks = [0u8; 16];
                let mut len = 0;
                for ball in &f.balls {
                    let mark = ball.mark();
                    match marks.get_mut(len..len + mark.len_utf8()) {
                        Some(room) => len += mark.encode_utf8(room).len(),
                        None => {
                            len = usize::MAX;
                            break;
                        }
                    }
                }
                match marks.get(..len).and_then(|m| std::str::from_utf8(m).ok()) {
                    Some(m) => self.str(m),
                    None => self.str(&f.marks()),
                }
                self.raw(b",\"cumulative\":");
                match f.cumulative {
                    Some(c) => self.uint(c.into()),
                    None => self.raw(b"null"),
                }
                self.raw(b",\"balls\":[");
                for (i, ball) in f.balls.iter().enumerate() {
                    if i > 0 {
                        self.raw(b",");
                    }
                    self.raw(b"{\"pinfall\":");
                    self.uint(ball.pinfall.into());
                    self.raw(b",\"standing\":");
                    self.pins(ball.standing);
                    self.raw(b",\"foul\":");
                    self.bool(ball.foul);
                    self.raw(b",\"split\":");
                    self.bool(ball.split);
                    self.raw(b",\"wrong_deck\":");
                    match ball.wrong_deck {
                        Some(set) => self.deck(ball.at.before, set),
                        None => self.raw(b"null"),
                    }
                    if let Some(side) = ball.channel {
                        self.raw(b",\"channel\":");
                        self.str(side.as_str());
                    }
                    self.raw(b"}");
                }
                self.raw(b"]}");
            }
            self.raw(b"]}");
        }
        self.raw(b"],\"series\":");
        self.uint(b.series.into());
        self.raw(b",\"series_with_handicap\":");
        self.int(b.series_with_handicap);
        self.raw(b"}");
    }

    /// As `DeckJson`.
    fn deck(&mut self, expected: PinSet, set: PinSet) {
        self.raw(b"{\"expected\":");
        self.pins(expected);
        self.raw(b",\"set\":");
        self.pins(set);
        self.raw(b",\"missing\":");
        self.pins(expected.without(set));
        self.raw(b",\"extra\":");
        self.pins(set.without(expected));
        self.raw(b"}");
    }

    /// A callout, its spelled-out part (`said`) taken from `cache`.
    fn callout(&mut self, c: &CalloutJson<'_>, cache: &mut SaidCache) {
        let CalloutJson(c, lane) = c;
        let bowler = c
            .bowler
            .and_then(|e| lane.entries().get(e as usize))
            .map(|e| e.bowler.name.as_str());
        self.raw(b"{\"t\":");
        self.uint(c.t);
        self.raw(b",\"bowler\":");
        self.opt_str(bowler);
        self.raw(cache.get(&c.said));
    }

    /// The rest of a callout after its `bowler`: what it says, and the
    /// callout's closing brace.
    fn said(&mut self, said: &Said) {
        let words = said.words();
        self.raw(b",\"standing\":");
        self.pins(said.standing());
        self.raw(b",\"words\":[");
        for (i, &word) in words.as_slice().iter().enumerate() {
            if i > 0 {
                self.raw(b",");
            }
            self.raw(b"\"");
            self.word(word, Word::fixed_token);
            self.raw(b"\"");
        }
        // The text, as `Words`' `Display` spells it.
        self.raw(b"],\"text\":\"");
        let mut sep: &[u8] = b"";
        for &word in words.as_slice() {
            self.raw(sep);
            self.word(word, Word::fixed_english);
            sep = if word == Word::Frame { b" " } else { b", " };
        }
        self.raw(b"\"}");
    }

    /// A word inside a string: its number, or as `fixed` spells it.
    fn word(&mut self, word: Word, fixed: fn(Word) -> &'static str) {
        match word {
            Word::Pin(p) => self.uint(p.number().into()),
            Word::Number(n) => self.uint(n.into()),
            // Plain words (a test checks): nothing to escape.
            w => self.raw(fixed(w).as_bytes()),
        }
    }
}

impl Report<'_> {
    /// How many callouts the report lists.
    pub fn callouts_len(&self) -> usize {
        self.0.callouts.len()
    }

    /// The callouts `range` of the report's `callouts` list as JSON text,
    /// with the `,` before each callout but the list's first (and without
    /// the list's brackets): the parts `0..m` and `m..len` written one
    /// after the other are the whole list, so that two threads may write
    /// one part each.
    pub fn write_callouts(&self, range: Range<usize>, w: &mut impl Write) -> io::Result<()> {
        let Report(r, _) = self;
        let end = range.end.min(r.callouts.len());
        let start = range.start.min(end);
        let mut out = Json(Vec::with_capacity(CHUNK.min(128 * (end - start)) + 256));
        let mut cache = SaidCache::new(SAID_SLOTS, SAID_BYTES);
        for (i, c) in r.callouts[start..end].iter().enumerate() {
            if start + i > 0 {
                out.raw(b",");
            }
            out.callout(&CalloutJson(c, &r.lane), &mut cache);
            if out.0.len() >= CHUNK {
                w.write_all(&out.0)?;
                out.0.clear();
            }
        }
        w.write_all(&out.0)
    }

    /// How many bowlers' sheets the report lists.
    pub fn bowlers_len(&self) -> usize {
        bowler_entries(&self.0.lane).count()
    }

    /// The bowlers' sheets `range` of the report's `bowlers` list, with
    /// the `,` before each sheet but the list's first (and without the
    /// list's brackets), as [`Report::write_callouts`] writes callouts.
    pub fn write_bowlers(&self, range: Range<usize>, w: &mut impl Write) -> io::Result<()> {
        let lane = &self.0.lane;
        let fouls_count = lane.rules().fouls_count();
        let mut out = Json(Vec::with_capacity(2 * CHUNK));
        let entries = bowler_entries(lane).enumerate();
        for (i, entry) in entries
            .skip(range.start)
            .take(range.end.saturating_sub(range.start))
        {
            if i > 0 {
                out.raw(b",");
            }
            out.bowler(&BowlerJson::new(entry, fouls_count));
            if out.0.len() >= CHUNK {
                w.write_all(&out.0)?;
                out.0.clear();
            }
        }
        w.write_all(&out.0)
    }

    /// Writes the report as `serde_json::to_writer` does, the callouts
    /// (inside their list's brackets) written by `callouts` as
    /// [`Report::write_callouts`] writes them: parts of them may be written
    /// on other threads while the bowlers are written here.
    pub fn write_json<W: Write>(
        &self,
        w: &mut W,
        callouts: impl FnOnce(&mut W) -> io::Result<()>,
    ) -> io::Result<()> {
        let all = self.bowlers_len();
        self.write_json_parts(w, |w| self.write_bowlers(0..all, w), callouts)
    }

    /// [`Report::write_json`] with the sheets of the `bowlers` list (inside
    /// its brackets) written by `bowlers`, as [`Report::write_bowlers`]
    /// writes them.
    pub fn write_json_parts<W: Write>(
        &self,
        w: &mut W,
        bowlers: impl FnOnce(&mut W) -> io::Result<()>,
        callouts: impl FnOnce(&mut W) -> io::Result<()>,
    ) -> io::Result<()> {
        let Report(r, _) = self;
        let lane = &r.lane;
        let mut out = Json(Vec::with_capacity(CHUNK));
        out.raw(b"{\"lane\":");
        out.uint(lane.number().into());
        out.raw(b",\"bowlers\":[");
        w.write_all(&out.0)?;
        out.0.clear();
        bowlers(w)?;
        out.raw(b"],");
        out.fields(self, Part::Middle)?;
        out.raw(b",\"callouts\":[");
        w.write_all(&out.0)?;
        out.0.clear();
        callouts(w)?;
        out.raw(b"],");
        out.fields(self, Part::Tail)?;
        out.raw(b"}");
        w.write_all(&out.0)
    }
}

#[cfg(test)]
mod tests {
    use crate::replay::Replay;

    /// Every word's fixed spelling is written as it is: nothing in it for
    /// serde_json to escape. Numbers as itoa writes them.
    #[test]
    fn words_and_numbers_need_no_escape() {
        use crate::lane::{Side, Word};
        let words = [Side::Left, Side::Right]
            .into_iter()
            .flat_map(|s| [Word::SideOf(s), Word::Channel(s)])
            .chain([
                Word::Strike,
                Word::Spare,
                Word::Foul,
                Word::Split,
                Word::NoPins,
                Word::Correction,
                Word::Frame,
            ]);
        for word in words {
            for text in [word.fixed_token(), word.fixed_english()] {
                assert!(!text.is_empty(), "{word:?}");
                assert_eq!(serde_json::to_string(text).unwrap(), format!("\"{text}\""));
            }
        }
        for n in (0..1000).chain([u64::MAX]) {
            let mut json = super::Json(Vec::new());
            json.uint(n);
            assert_eq!(json.0, n.to_string().as_bytes());
        }
    }

    /// A callout's spelled-out part read from the cache is the part
    /// spelled afresh, whether its slot held it, held another or the
    /// cache was just emptied.
    #[test]
    fn the_said_cache_gives_what_it_was_given() {
        use crate::lane::{BallResult, PinSet, Said, Side};
        let mut saids = Vec::new();
        for mask in [0u16, 1, 0b10_0100_0000, 0b11_1111_1111, 0b00_0000_0110] {
            let standing = PinSet::from_bits(mask).unwrap();
            for flags in 0..16u8 {
                saids.push(Said::Ball(BallResult {
                    standing,
                    strike: flags & 1 != 0,
                    spare: flags & 2 != 0,
                    split: flags & 4 != 0,
                    extras: true,
                    channel: (flags & 8 != 0).then_some(Side::Left),
                    ..BallResult::default()
                }));
            }
        }
        saids.extend((1..=10).map(|frame| Said::Score { frame, total: 300 }));
        for (slots, limit) in [(1, 0), (7, 200), (1021, 1 << 17)] {
            let mut cache = super::SaidCache::new(slots, limit);
            for round in 0..3 {
                for said in &saids {
                    let mut fresh = super::Json(Vec::new());
                    fresh.said(said);
                    assert_eq!(
                        cache.get(said),
                        fresh.0,
                        "{said:?}, {slots} slots, round {round}"
                    );
                }
            }
            // At most one said past the limit.
            assert!(cache.bytes.len() <= limit + 256, "{}", cache.bytes.len());
        }
    }

    fn both(replay: &Replay) -> (String, String) {
        let report = replay.report();
        let serde = serde_json::to_string(&report).unwrap();
        let mut fast = Vec::new();
        report
            .write_json(&mut fast, |w| {
                report.write_callouts(0..report.callouts_len(), w)
            })
            .unwrap();
        (serde, String::from_utf8(fast).unwrap())
    }

    /// Simulated days, with their names made hard to write, read as serde
    /// writes them.
    #[test]
    fn the_written_report_is_serdes_byte_for_byte() {
        for seed in 0..6 {
            let mut scenario = crate::sim::Scenario {
                games: 3,
                blocks: 2,
                ..crate::sim::Scenario::demo(seed)
            };
            if seed % 2 == 1 {
                // Quotes, a backslash, control characters and non-ASCII
                // text, each escaped as serde does: names a journal from
                // before the rule `checked_inputs` can hold.
                scenario.rules.checked_inputs = false;
                for b in &mut scenario.bowlers {
                    b.name.insert_str(0, "\"\\\u{1}é\t");
                    b.team = Some("\u{7f}\n".into());
                }
            }
            let mut w = crate::journal::Writer::create(Vec::new(), &scenario.header()).unwrap();
            scenario.run().for_each(|e| w.write(&e).unwrap());
            let day = w.into_inner();
            let replay = Replay::from_reader(&day[..]).unwrap();
            assert!(replay.callouts().len() > 10, "seed {seed}");
            let (serde, fast) = both(&replay);
            assert_eq!(fast, serde, "seed {seed}");
            // Written in two parts, split anywhere, the same bytes.
            let report = replay.report();
            let (bowlers, callouts) = (report.bowlers_len(), report.callouts_len());
            assert!(bowlers > 1, "seed {seed}");
            for (b, c) in [
                (0, 0),
                (1, 1),
                (bowlers / 2, callouts / 3),
                (bowlers, callouts),
            ] {
                let mut parts = Vec::new();
                report
                    .write_json_parts(
                        &mut parts,
                        |w| {
                            report.write_bowlers(0..b, w)?;
                            report.write_bowlers(b..bowlers, w)
                        },
                        |w| {
                            report.write_callouts(0..c, w)?;
                            report.write_callouts(c..callouts, w)
                        },
                    )
                    .unwrap();
                assert_eq!(
                    String::from_utf8(parts).unwrap(),
                    serde,
                    "seed {seed}, {b}, {c}"
                );
            }
        }
    }
}

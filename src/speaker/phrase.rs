//! The phrases of a callout: which voice clips to play, in order.
//!
//! A callout is a sequence of clip names from [`CLIPS`]; every voice pack has
//! one clip per name, in Russian and in English. Pins are read as numbers
//! ("семь, десять" / "seven, ten"), as a sighted assistant calls them.

use crate::lane::{Language, Said, Side, Verbosity, Word, Words};

/// Every clip a voice pack holds, the same names in both languages.
/// `assets/voice/clips.txt` lists the same names in the same order.
pub const CLIPS: &[&str] = &[
    // Numbers: pins, frames and scores.
    "n0",
    "n1",
    "n2",
    "n3",
    "n4",
    "n5",
    "n6",
    "n7",
    "n8",
    "n9",
    "n10",
    "n11",
    "n12",
    "n13",
    "n14",
    "n15",
    "n16",
    "n17",
    "n18",
    "n19",
    "n20",
    "n30",
    "n40",
    "n50",
    "n60",
    "n70",
    "n80",
    "n90",
    "n100",
    "n200",
    "n300",
    // "hundred" after a digit (English: "two hundred").
    "hundred",
    // "one", "two" counting pins: Russian "одна", "две" (кегля is feminine).
    "n1f",
    "n2f",
    // Marks.
    "strike",
    "spare",
    "foul",
    "split",
    "left_side",
    "right_side",
    "channel_left",
    "channel_right",
    "no_pins",
    "correction",
    "frame",
    // For the assistant and the judges.
    "pinsetter_fault",
    "slow_bowling_warning",
    // The journal cannot be written: the lane holds (said to the assistant).
    "journal_failed",
    // The journal is on a file system kept in memory (said at start).
    "journal_volatile",
    // Short verbosity: how many pins stand, with Russian agreement.
    "standing_one",
    "standing_few",
    "standing_many",
];

/// Between two words of a callout (two pins, a pin and "split"): not a
/// clip but a pause ([`WORD_PAUSE`] of silence in all), so that "семь,
/// десять" is never heard as "семьдесят" (seventy) nor "two, seven" as
/// "twenty-seven". The clips of one word (a number read in parts) keep
/// the short gap between them.
pub const PAUSE: &str = ",";

/// The pause between the clips of one callout ("seven, ten, split"): long
/// enough to hear the words apart, short enough to sound like one sentence.
pub const CLIP_GAP: std::time::Duration = std::time::Duration::from_millis(70);

/// The silence between two words of a callout, at the least.
pub const WORD_PAUSE: std::time::Duration = std::time::Duration::from_millis(260);

const UNITS: [&str; 20] = [
    "n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10", "n11", "n12", "n13", "n14",
    "n15", "n16", "n17", "n18", "n19",
];

/// Indexed by the tens digit; 0 and 1 are read through [`UNITS`].
const TENS: [&str; 10] = [
    "", "", "n20", "n30", "n40", "n50", "n60", "n70", "n80", "n90",
];

/// Indexed by the hundreds digit; Russian has a word for each.
const HUNDREDS_RU: [&str; 4] = ["", "n100", "n200", "n300"];

/// A number as clips: ru 287 = `n200 n80 n7`, en 287 = `n2 hundred n80 n7`.
///
/// Every number 0..=300 (each score, frame and pin) is composed; Russian
/// up to 399 and English up to 999 too. Anything larger, which no ten-pin
/// sheet holds, is read digit by digit.
pub fn number(n: u16, language: Language) -> Vec<&'static str> {
    let mut clips = Vec::with_capacity(4);
    let hundreds = usize::from(n / 100);
    let rest = n % 100;
    let composed = match language {
        Language::Ru => hundreds < HUNDREDS_RU.len(),
        Language::En => hundreds < 10,
    };
    if !composed {
        let digits = n.to_string();
        return digits
            .bytes()
            .map(|d| UNITS[usize::from(d - b'0')])
            .collect();
    }
    if hundreds > 0 {
        match language {
            Language::Ru => clips.push(HUNDREDS_RU[hundreds]),
            Language::En => clips.extend([UNITS[hundreds], "hundred"]),
        }
        if rest == 0 {
            return clips;
        }
    }
    below_hundred(rest, &mut clips);
    clips
}

fn below_hundred(n: u16, clips: &mut Vec<&'static str>) {
    let n = usize::from(n);
    if n < 20 {
        clips.push(UNITS[n]);
    } else {
        clips.push(TENS[n / 10]);
        if n % 10 != 0 {
            clips.push(UNITS[n % 10]);
        }
    }
}

/// The clip of a word that is not a number.
fn fixed(word: Word) -> Option<&'static str> {
    Some(match word {
        Word::Strike => "strike",
        Word::Spare => "spare",
        Word::Foul => "foul",
        Word::Split => "split",
        Word::SideOf(Side::Left) => "left_side",
        Word::SideOf(Side::Right) => "right_side",
        Word::Channel(Side::Left) => "channel_left",
        Word::Channel(Side::Right) => "channel_right",
        Word::NoPins => "no_pins",
        Word::Correction => "correction",
        Word::Frame => "frame",
        Word::Pin(_) | Word::Number(_) => return None,
    })
}

fn push_word(word: Word, language: Language, clips: &mut Vec<&'static str>) {
    if !clips.is_empty() {
        clips.push(PAUSE);
    }
    match word {
        Word::Pin(p) => clips.extend(number(u16::from(p.number()), language)),
        Word::Number(n) => clips.extend(number(n, language)),
        other => clips.extend(fixed(other)),
    }
}

/// The clips of a callout, in the order spoken.
///
/// - [`Verbosity::Pins`]: the core's words exactly ([`Said::words`]).
/// - [`Verbosity::Short`]: strike, spare, foul, no pins and the correction
///   word as in `Pins`; a leave is the count of standing pins with
///   "кегля стоит / кегли стоят / кеглей стоят" ("pin(s) standing"), then
///   `split` (when the core's words have it: the extras are on) and the
///   channel; the side is not said.
/// - [`Verbosity::Hidden`]: as `Pins`, but of the standing pins only
///   those hidden behind another standing pin; with none hidden, as
///   `Short`.
/// - [`Verbosity::Off`]: nothing after a ball; the score on request (which
///   the lane gives only with the extras on) is always read.
///
/// Whether "split" and the score are said at all is the core's choice
/// ([`crate::lane::BallResult::extras`]): this only reads its words.
pub fn callout(said: &Said, language: Language, verbosity: Verbosity) -> Vec<&'static str> {
    let words = said.words();
    match (said, verbosity) {
        (Said::Ball(_), Verbosity::Off) => Vec::new(),
        (Said::Ball(_), Verbosity::Short) => short(&words, language),
        (Said::Ball(_), Verbosity::Hidden) => hidden(&words, language),
        _ => {
            let mut clips = Vec::with_capacity(words.as_slice().len() + 4);
            for &word in words.as_slice() {
                push_word(word, language, &mut clips);
            }
            clips
        }
    }
}

/// The pins a bowler cannot tell from the others: each standing pin
/// right behind another standing pin (the 5 behind the 1, the 8 behind
/// the 2, the 9 behind the 3), then the side and the channel as the core
/// says them; with none hidden, [`short`].
fn hidden(words: &Words, language: Language) -> Vec<&'static str> {
    const BEHIND: [(u8, u8); 3] = [(1, 5), (2, 8), (3, 9)];
    let standing: Vec<u8> = words
        .as_slice()
        .iter()
        .filter_map(|w| match w {
            Word::Pin(p) => Some(p.number()),
            _ => None,
        })
        .collect();
    let hidden: Vec<Word> = words
        .as_slice()
        .iter()
        .copied()
        .filter(|w| match w {
            Word::Pin(p) => BEHIND
                .iter()
                .any(|&(front, back)| p.number() == back && standing.contains(&front)),
            _ => false,
        })
        .collect();
    if hidden.is_empty() {
        return short(words, language);
    }
    let mut clips = Vec::with_capacity(8);
    for &word in words.as_slice() {
        let said = match word {
            Word::Pin(_) => hidden.contains(&word),
            _ => true,
        };
        if said {
            push_word(word, language, &mut clips);
        }
    }
    clips
}

fn short(words: &Words, language: Language) -> Vec<&'static str> {
    let standing = words
        .as_slice()
        .iter()
        .filter(|w| matches!(w, Word::Pin(_)))
        .count() as u16;
    let mut clips = Vec::with_capacity(6);
    if standing == 0 {
        for &word in words.as_slice() {
            push_word(word, language, &mut clips);
        }
        return clips;
    }
    if words.as_slice().contains(&Word::Correction) {
        clips.extend(["correction", PAUSE]);
    }
    match (language, standing) {
        (Language::Ru, 1) => clips.push("n1f"),
        (Language::Ru, 2) => clips.push("n2f"),
        _ => clips.extend(number(standing, language)),
    }
    clips.push(match standing {
        1 => "standing_one",
        2..=4 => "standing_few",
        _ => "standing_many",
    });
    for &word in words.as_slice() {
        if matches!(word, Word::Split | Word::Channel(_)) {
            push_word(word, language, &mut clips);
        }
    }
    clips
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::{Pin, Side};

    /// Every clip a pack holds is one something says: a clip nothing says
    /// would be documented and recorded for nothing.
    #[test]
    fn every_clip_is_said_by_something() {
        let mut said: Vec<&str> = Vec::new();
        for language in [Language::Ru, Language::En] {
            for n in 0..=300 {
                said.extend(number(n, language));
            }
        }
        let words = [
            Word::Strike,
            Word::Spare,
            Word::Foul,
            Word::Split,
            Word::SideOf(Side::Left),
            Word::SideOf(Side::Right),
            Word::Channel(Side::Left),
            Word::Channel(Side::Right),
            Word::NoPins,
            Word::Correction,
            Word::Frame,
            Word::Pin(Pin::new(7).unwrap()),
        ];
        said.extend(words.iter().filter_map(|&w| fixed(w)));
        // Short verbosity's counts, with Russian agreement.
        said.extend([
            "n1f",
            "n2f",
            "standing_one",
            "standing_few",
            "standing_many",
        ]);
        // Said to the assistant by the speaker (`speaker::Voice`).
        said.extend([
            "pinsetter_fault",
            "slow_bowling_warning",
            "journal_failed",
            "journal_volatile",
        ]);
        let unsaid: Vec<&str> = CLIPS
            .iter()
            .copied()
            .filter(|c| !said.contains(c))
            .collect();
        assert!(unsaid.is_empty(), "clips nothing says: {unsaid:?}");
    }
}

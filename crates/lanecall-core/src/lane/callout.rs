//! The words the speaker says after a ball.
//!
//! IBSA allows an assistant to tell a bowler only the numbers of the pins
//! left standing, the side on which pins were missed, and the channel the
//! ball went into. [`Word`] has no variant for anything else, so the lane
//! cannot coach by construction. Strike, spare, "no pins" and foul say the
//! same fact as the pin numbers. "Split" and the score read on request are
//! extras, said only when the lane or the bowler has them on (training):
//! [`BallResult::extras`], and the lane refuses the score button without
//! them.

use std::fmt;

use crate::pins::{Pin, PinSet, Side};

/// One word of a callout, as the voice pack names its clip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    /// A standing pin's number.
    Pin(Pin),
    Strike,
    Spare,
    Foul,
    /// The leave is a split (an extra: only with [`BallResult::extras`]).
    Split,
    /// Every standing pin is on this side.
    SideOf(Side),
    /// The ball went into this channel.
    Channel(Side),
    /// Not one pin fell from a full rack.
    NoPins,
    /// What follows corrects an earlier callout.
    Correction,
    /// "frame", before a frame number (score on request).
    Frame,
    /// A number read from the score sheet (score on request).
    Number(u16),
}

impl Word {
    /// The token in the replay output and the voice pack's clip name.
    pub fn token(self) -> String {
        match self {
            Word::Pin(p) => p.to_string(),
            Word::Number(n) => n.to_string(),
            other => other.fixed_text(false).to_owned(),
        }
    }

    /// The token of a word that is not a number.
    pub fn fixed_token(self) -> &'static str {
        self.fixed_text(false)
    }

    /// The English text of a word that is not a number.
    pub fn fixed_english(self) -> &'static str {
        self.fixed_text(true)
    }

    /// English, for `text`.
    fn fixed_text(self, english: bool) -> &'static str {
        match (self, english) {
            (Word::Strike, _) => "strike",
            (Word::Spare, _) => "spare",
            (Word::Foul, _) => "foul",
            (Word::Split, _) => "split",
            (Word::SideOf(Side::Left), false) => "left_side",
            (Word::SideOf(Side::Right), false) => "right_side",
            (Word::SideOf(Side::Left), true) => "left side",
            (Word::SideOf(Side::Right), true) => "right side",
            (Word::Channel(Side::Left), false) => "channel_left",
            (Word::Channel(Side::Right), false) => "channel_right",
            (Word::Channel(Side::Left), true) => "left channel",
            (Word::Channel(Side::Right), true) => "right channel",
            (Word::NoPins, false) => "no_pins",
            (Word::NoPins, true) => "no pins down",
            (Word::Correction, _) => "correction",
            (Word::Frame, _) => "frame",
            (Word::Pin(_) | Word::Number(_), _) => "",
        }
    }
}

/// Most words one callout can hold: ten pins, split, side, channel and a
/// correction word.
const MAX_WORDS: usize = 14;

/// The words of one callout, in the order spoken. Fixed size, so building a
/// callout never allocates.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Words {
    len: u8,
    items: [Word; MAX_WORDS],
}

impl Words {
    pub fn new() -> Words {
        Words {
            len: 0,
            items: [Word::NoPins; MAX_WORDS],
        }
    }

    /// Appends a word; a word past the limit is dropped (no callout the lane
    /// builds comes near it).
    pub fn push(&mut self, word: Word) {
        if let Some(slot) = self.items.get_mut(self.len as usize) {
            *slot = word;
            self.len += 1;
        }
    }

    pub fn as_slice(&self) -> &[Word] {
        &self.items[..self.len as usize]
    }

    pub fn tokens(&self) -> Vec<String> {
        self.as_slice().iter().map(|w| w.token()).collect()
    }

    /// The words of a ball's result: the standing pins in ascending order,
    /// then split (with the extras on), side and channel as they apply; or
    /// strike, spare, foul, no pins down.
    pub fn for_ball(result: &BallResult) -> Words {
        let mut words = Words::new();
        if result.correction {
            words.push(Word::Correction);
        }
        if result.foul {
            words.push(Word::Foul);
        } else if result.strike {
            words.push(Word::Strike);
        } else if result.spare {
            words.push(Word::Spare);
        } else if result.full_rack && result.standing == PinSet::FULL {
            words.push(Word::NoPins);
        } else {
            for pin in result.standing.iter() {
                words.push(Word::Pin(pin));
            }
            if result.split && result.extras {
                words.push(Word::Split);
            }
            if let Some(side) = result.standing.side() {
                words.push(Word::SideOf(side));
            }
        }
        if let Some(side) = result.channel {
            words.push(Word::Channel(side));
        }
        words
    }
}

impl Default for Words {
    fn default() -> Self {
        Words::new()
    }
}

impl fmt::Debug for Words {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl fmt::Display for Words {
    /// English text: `7, 10, split`, `frame 6, 87`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        for word in self.as_slice() {
            f.write_str(sep)?;
            match word {
                Word::Pin(p) => write!(f, "{p}")?,
                Word::Number(n) => write!(f, "{n}")?,
                other => f.write_str(other.fixed_text(true))?,
            }
            sep = if matches!(word, Word::Frame) {
                " "
            } else {
                ", "
            };
        }
        Ok(())
    }
}

/// What a callout says, kept compact; [`Said::words`] spells it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Said {
    /// The result of a ball.
    Ball(BallResult),
    /// The score on request: the frame the bowler is in and the game's
    /// total so far.
    Score { frame: u8, total: u16 },
}

impl Said {
    pub fn words(&self) -> Words {
        match self {
            Said::Ball(result) => Words::for_ball(result),
            Said::Score { frame, total } => {
                let mut words = Words::new();
                words.push(Word::Frame);
                words.push(Word::Number(u16::from(*frame)));
                words.push(Word::Number(*total));
                words
            }
        }
    }

    /// The standing pins the words name: none for a strike, a spare, a
    /// foul or a score.
    pub fn standing(&self) -> PinSet {
        match self {
            Said::Ball(r) if !(r.strike || r.spare || r.foul) => r.standing,
            _ => PinSet::EMPTY,
        }
    }
}

/// What a callout needs to know of one ball.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BallResult {
    pub standing: PinSet,
    pub full_rack: bool,
    pub strike: bool,
    pub spare: bool,
    pub foul: bool,
    pub split: bool,
    pub channel: Option<Side>,
    pub correction: bool,
    /// Whether the bowler hears the extras ("split"): training, not
    /// competition.
    pub extras: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standing(pins: &[u8]) -> PinSet {
        PinSet::from_pins(pins.iter().map(|&n| Pin::new(n).unwrap()))
    }

    #[test]
    fn a_split_is_called_by_its_pins_and_named_only_with_the_extras() {
        let split = BallResult {
            standing: standing(&[10, 7]),
            full_rack: true,
            split: true,
            ..Default::default()
        };
        let w = Words::for_ball(&split);
        assert_eq!(w.tokens(), ["7", "10"], "competition: the pins only");
        assert_eq!(w.to_string(), "7, 10");
        let w = Words::for_ball(&BallResult {
            extras: true,
            ..split
        });
        assert_eq!(w.tokens(), ["7", "10", "split"], "training");
        assert_eq!(w.to_string(), "7, 10, split");
    }

    #[test]
    fn a_split_on_one_side_keeps_its_side_and_channel_without_the_extras() {
        let w = Words::for_ball(&BallResult {
            standing: standing(&[6, 7]),
            full_rack: true,
            split: true,
            channel: Some(Side::Left),
            correction: true,
            ..Default::default()
        });
        assert_eq!(w.tokens(), ["correction", "6", "7", "channel_left"]);
        let w = Words::for_ball(&BallResult {
            standing: standing(&[3, 10]),
            full_rack: true,
            split: true,
            channel: Some(Side::Right),
            ..Default::default()
        });
        assert_eq!(w.tokens(), ["3", "10", "right_side", "channel_right"]);
    }

    #[test]
    fn strike_spare_and_no_pins_are_said_whatever_the_extras() {
        for extras in [false, true] {
            let strike = BallResult {
                full_rack: true,
                strike: true,
                extras,
                ..Default::default()
            };
            assert_eq!(Words::for_ball(&strike).tokens(), ["strike"]);
            let spare = BallResult {
                spare: true,
                extras,
                ..Default::default()
            };
            assert_eq!(Words::for_ball(&spare).tokens(), ["spare"]);
            let none = BallResult {
                standing: PinSet::FULL,
                full_rack: true,
                extras,
                ..Default::default()
            };
            assert_eq!(Words::for_ball(&none).tokens(), ["no_pins"]);
        }
    }

    #[test]
    fn a_leave_on_one_side_names_the_side_and_the_channel() {
        let w = Words::for_ball(&BallResult {
            standing: standing(&[3, 6, 10]),
            channel: Some(Side::Right),
            ..Default::default()
        });
        assert_eq!(w.tokens(), ["3", "6", "10", "right_side", "channel_right"]);
        assert_eq!(w.to_string(), "3, 6, 10, right side, right channel");
    }

    #[test]
    fn nothing_down_from_a_full_rack_is_no_pins() {
        let w = Words::for_ball(&BallResult {
            standing: PinSet::FULL,
            full_rack: true,
            channel: Some(Side::Left),
            ..Default::default()
        });
        assert_eq!(w.tokens(), ["no_pins", "channel_left"]);
    }

    #[test]
    fn a_foul_says_foul_and_nothing_of_the_pins() {
        let w = Words::for_ball(&BallResult {
            standing: standing(&[7]),
            foul: true,
            ..Default::default()
        });
        assert_eq!(w.tokens(), ["foul"]);
    }

    #[test]
    fn the_score_reads_frame_then_total() {
        let w = Said::Score {
            frame: 6,
            total: 87,
        }
        .words();
        assert_eq!(w.to_string(), "frame 6, 87");
        assert_eq!(w.tokens(), ["frame", "6", "87"]);
    }
}

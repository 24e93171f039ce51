//! Pins, pin sets, leaves and splits.
//!
//! A pin set is ten bits in a `u16`: bit `i - 1` is pin `i`. Pin numbers run
//! 1 in front; 2, 3; 4, 5, 6; 7, 8, 9, 10 at the back, left to right as the
//! bowler sees them (rules.md).

use std::fmt;

/// A pin number, always 1..=10.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pin(u8);

impl Pin {
    /// The head pin.
    pub const HEAD: Pin = Pin(1);

    /// `None` unless `n` is 1..=10.
    pub const fn new(n: u8) -> Option<Pin> {
        if n >= 1 && n <= 10 {
            Some(Pin(n))
        } else {
            None
        }
    }

    pub const fn number(self) -> u8 {
        self.0
    }

    const fn bit(self) -> u16 {
        1 << (self.0 - 1)
    }

    /// Where the pin stands across the lane: negative left of the centre
    /// line, positive right of it, zero on it (pins 1 and 5).
    const fn column(self) -> i8 {
        match self.0 {
            7 => -3,
            4 => -2,
            2 | 8 => -1,
            1 | 5 => 0,
            3 | 9 => 1,
            6 => 2,
            _ => 3, // 10
        }
    }
}

impl fmt::Display for Pin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Which half of the deck a leave stands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Left,
    Right,
}

impl Side {
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Left => "left",
            Side::Right => "right",
        }
    }
}

/// A set of pins, ten bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct PinSet(u16);

/// Pairs of pins that belong to one group of a leave (rules.md, USBC 2h):
/// diagonal neighbours, and a pin straight behind another.
const TOUCHING: [(u8, u8); 15] = [
    (1, 2),
    (1, 3),
    (2, 4),
    (2, 5),
    (3, 5),
    (3, 6),
    (4, 7),
    (4, 8),
    (5, 8),
    (5, 9),
    (6, 9),
    (6, 10),
    (1, 5),
    (2, 8),
    (3, 9),
];

/// `NEIGHBOURS[i]` is the set of pins grouped with pin `i + 1`.
const NEIGHBOURS: [u16; 10] = {
    let mut table = [0u16; 10];
    let mut k = 0;
    while k < TOUCHING.len() {
        let (a, b) = TOUCHING[k];
        table[(a - 1) as usize] |= 1 << (b - 1);
        table[(b - 1) as usize] |= 1 << (a - 1);
        k += 1;
    }
    table
};

/// Whether each of the 1024 leaves is a split, computed once at compile time.
const SPLITS: [bool; 1024] = {
    let mut table = [false; 1024];
    let mut set = 0;
    while set < 1024 {
        table[set] = is_split_bits(set as u16);
        set += 1;
    }
    table
};

const fn is_split_bits(set: u16) -> bool {
    if set & 1 != 0 || set.count_ones() < 2 {
        return false;
    }
    // Flood the group of the lowest standing pin; a split leaves some
    // standing pin outside it.
    let mut group = set & set.wrapping_neg();
    loop {
        let mut grown = group;
        let mut i = 0;
        while i < 10 {
            if group & (1 << i) != 0 {
                grown |= NEIGHBOURS[i] & set;
            }
            i += 1;
        }
        if grown == group {
            return group != set;
        }
        group = grown;
    }
}

impl PinSet {
    pub const EMPTY: PinSet = PinSet(0);
    pub const FULL: PinSet = PinSet(0x3ff);

    /// `None` when a bit above pin 10 is set.
    pub const fn from_bits(bits: u16) -> Option<PinSet> {
        if bits & !0x3ff == 0 {
            Some(PinSet(bits))
        } else {
            None
        }
    }

    pub const fn bits(self) -> u16 {
        self.0
    }

    pub fn from_pins(pins: impl IntoIterator<Item = Pin>) -> PinSet {
        PinSet(pins.into_iter().fold(0, |acc, p| acc | p.bit()))
    }

    /// Parses the pinsetter's mask: ten `0`/`1` characters, the first one
    /// pin 1.
    pub fn from_mask(mask: &str) -> Option<PinSet> {
        PinSet::from_mask_bytes(mask.as_bytes())
    }

    /// [`PinSet::from_mask`] of the mask's bytes.
    pub fn from_mask_bytes(bytes: &[u8]) -> Option<PinSet> {
        if bytes.len() != 10 {
            return None;
        }
        let mut bits = 0;
        for (i, b) in bytes.iter().enumerate() {
            match b {
                b'1' => bits |= 1 << i,
                b'0' => {}
                _ => return None,
            }
        }
        Some(PinSet(bits))
    }

    pub fn mask(self) -> String {
        (0..10)
            .map(|i| if self.0 & (1 << i) != 0 { '1' } else { '0' })
            .collect()
    }

    pub const fn contains(self, pin: Pin) -> bool {
        self.0 & pin.bit() != 0
    }

    pub const fn len(self) -> u8 {
        self.0.count_ones() as u8
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub const fn intersect(self, other: PinSet) -> PinSet {
        PinSet(self.0 & other.0)
    }

    pub const fn union(self, other: PinSet) -> PinSet {
        PinSet(self.0 | other.0)
    }

    pub const fn without(self, other: PinSet) -> PinSet {
        PinSet(self.0 & !other.0)
    }

    /// The pins in ascending order.
    pub fn iter(self) -> PinIter {
        PinIter(self.0)
    }

    /// A split (rules.md): the head pin is down and the standing pins fall
    /// into two or more groups. Only meaningful for a ball rolled at a full
    /// rack; the caller checks that.
    pub fn is_split(self) -> bool {
        SPLITS[self.0 as usize]
    }

    /// The side every standing pin is on, when they all are on one side of
    /// the centre line (pins 1 and 5 stand on it and belong to neither).
    pub fn side(self) -> Option<Side> {
        let mut pins = self.iter().peekable();
        pins.peek()?;
        if pins.clone().all(|p| p.column() < 0) {
            Some(Side::Left)
        } else if pins.all(|p| p.column() > 0) {
            Some(Side::Right)
        } else {
            None
        }
    }
}

/// The pins of a set in ascending order.
#[derive(Clone, Debug)]
pub struct PinIter(u16);

impl Iterator for PinIter {
    type Item = Pin;

    fn next(&mut self) -> Option<Pin> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Pin(i + 1))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl fmt::Display for PinSet {
    /// `7-10`, or `-` when nothing stands.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("-");
        }
        for (i, p) in self.iter().enumerate() {
            if i > 0 {
                f.write_str("-")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(pins: &[u8]) -> PinSet {
        PinSet::from_pins(pins.iter().map(|&n| Pin::new(n).unwrap()))
    }

    #[test]
    fn pin_numbers_outside_one_to_ten_do_not_exist() {
        assert!(Pin::new(0).is_none());
        assert!(Pin::new(11).is_none());
        assert_eq!(Pin::new(10).map(Pin::number), Some(10));
    }

    #[test]
    fn the_rule_book_splits_are_splits() {
        for leave in [&[7, 10][..], &[4, 6], &[5, 6], &[9, 10], &[3, 10], &[2, 7]] {
            assert!(set(leave).is_split(), "{:?} is a split", leave);
        }
    }

    #[test]
    fn the_rule_book_non_splits_are_not() {
        for leave in [&[6, 10][..], &[2, 8], &[3, 9], &[2, 4, 5]] {
            assert!(!set(leave).is_split(), "{:?} is not a split", leave);
        }
    }

    #[test]
    fn a_leave_with_the_head_pin_standing_is_never_a_split() {
        assert!(!set(&[1, 7, 10]).is_split());
        assert!(!set(&[7]).is_split());
        assert!(!PinSet::EMPTY.is_split());
    }

    #[test]
    fn masks_round_trip_and_reject_garbage() {
        let s = PinSet::from_mask("0000001001").unwrap();
        assert_eq!(s, set(&[7, 10]));
        assert_eq!(s.mask(), "0000001001");
        assert!(PinSet::from_mask("000000100").is_none());
        assert!(PinSet::from_mask("00000010x1").is_none());
        assert!(PinSet::from_mask("00000010011").is_none());
    }

    #[test]
    fn the_side_of_a_leave() {
        assert_eq!(set(&[2, 4, 7]).side(), Some(Side::Left));
        assert_eq!(set(&[3, 6, 9, 10]).side(), Some(Side::Right));
        assert_eq!(set(&[8]).side(), Some(Side::Left));
        assert_eq!(set(&[7, 10]).side(), None);
        assert_eq!(set(&[5]).side(), None);
        assert_eq!(PinSet::EMPTY.side(), None);
    }

    #[test]
    fn display_is_the_usual_leave_notation() {
        assert_eq!(set(&[10, 7]).to_string(), "7-10");
        assert_eq!(PinSet::EMPTY.to_string(), "-");
    }
}

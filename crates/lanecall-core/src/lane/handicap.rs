//! A bowler's handicap: the one type and the one rule for adding it, the
//! same on the lane, in replay and at the centre.
//!
//! rules.md: a handicap is a number of pins per game per bowler, 0 to
//! [`MAX_HANDICAP`], on the lane as in the programme. The lane refuses
//! any other in a lineup or a substitution (the rule `checked_inputs`) and
//! the programme in an entry; a journal from before that check may hold
//! any whole number, and replays as it was written, the number added as it
//! is (signed).

/// Pins added to each game a bowler bowls.
pub type Handicap = i32;

/// The largest handicap a bowler can have, in pins a game: the
/// programme's limit (programme.md), so the lane takes what the centre
/// can enter and nothing else.
pub const MAX_HANDICAP: Handicap = 300;

/// Whether the lane and the programme take `handicap`: 0 to
/// [`MAX_HANDICAP`].
pub fn in_range(handicap: Handicap) -> bool {
    (0..=MAX_HANDICAP).contains(&handicap)
}

/// The one rule for adding a handicap: once for each game bowled, as it
/// is. The lane's `series_with_handicap` is the series plus this; the
/// centre's `handicap` column is this for the games it counts.
pub fn over(handicap: Handicap, games: usize) -> i64 {
    i64::from(handicap) * games as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handicap_counts_once_per_game_as_given() {
        assert_eq!(over(12, 3), 36);
        assert_eq!(over(MAX_HANDICAP, 12), 3_600);
        assert_eq!(over(0, 5), 0);
        assert_eq!(over(12, 0), 0);
        // A journal from before the check replays its number as it is.
        assert_eq!(over(-5, 2), -10);
        assert_eq!(over(Handicap::MAX, 12), 12 * i64::from(i32::MAX));
    }

    #[test]
    fn a_handicap_is_0_to_300() {
        assert!(in_range(0) && in_range(300));
        assert!(!in_range(-1) && !in_range(301) && !in_range(100_000));
    }
}

//! The competition seen from the centre: many lanes, one programme.
//!
//! - [`programme`] reads the chief judge's programme (entries, events,
//!   blocks with their lane assignments, finals) and gives each block's
//!   lineups for the lanes.
//! - [`standings`] turns the games the lanes report into the standings per
//!   category, team totals, the finals and the results protocol.
//!
//! Pure logic: no network, no files beyond the programme's.

pub mod programme;
pub mod standings;

//! The speaker: voice packs, the phrases of a callout, and playback.

pub mod pack;
pub mod phrase;
pub mod player;

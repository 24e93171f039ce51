//! Playback.

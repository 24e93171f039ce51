//! Phrases.

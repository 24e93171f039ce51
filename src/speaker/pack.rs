//! Voice packs.

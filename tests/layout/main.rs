//! The house's rules read from its source and docs: the modules' layout
//! and the docs' references.

mod docs;
mod layout;

//! The journal: its format is the core's ([`lanecall_core::journal`],
//! re-exported here: the header, the lines, the reader and the writer);
//! around it, what keeps it on this machine:
//!
//! - [`names`]: a journal file's name, made and read.
//! - [`store`]: the lane's journal files on disk; a line made durable
//!   before the lane sees its input, the newest file found and continued
//!   after a restart.
//! - [`slot`]: how the lane's thread tells the mirror and the centre link
//!   of new durable lines without ever waiting for them.
//! - [`mirror`]: a live second copy of the open journal in another folder,
//!   on its own thread (a [`crate::ports::JournalSink`]).
//! - [`backup`]: `lanecall backup`, the journal folder copied to another
//!   (a USB stick), whole lines only, the copies' seals checked.

pub use lanecall_core::journal::*;

pub mod backup;
pub mod mirror;
pub mod names;
pub mod slot;
pub mod store;

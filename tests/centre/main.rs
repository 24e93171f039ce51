//! The competition centre as a real process, with its embedded broker or a
//! real Mosquitto, and real lanes; its programme, standings and protocol.

#[path = "../support/mod.rs"]
mod support;

mod centre;
mod centre_attacks;
mod centre_demo;
mod centre_director;
mod centre_entries;
mod centre_faults;
mod centre_link;
mod centre_protocol;
mod embedded_broker;
mod standings;

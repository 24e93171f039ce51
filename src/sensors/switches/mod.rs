//! A string pinsetter's pin switches, read directly (`[pinsetter] kind =
//! "pin_switches"`): ten switches and the cycle signal on an MCP23017 I2C
//! expander or the Pi's GPIO.
//!
//! - [`deck`]: the pure state machine, samples in, decks and faults out.

pub mod deck;

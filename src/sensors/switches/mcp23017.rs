//! The MCP23017 I2C expander, as the pin switches use it: every used pin
//! an input (pull-ups as configured), an interrupt on any change of a used
//! pin on INTA (IOCON.MIRROR: both ports on INTA, active low), and both
//! ports read in one transfer, which clears the interrupt.
//!
//! Every transfer is an SMBus one: a byte-data write per register, and an
//! "I2C block data" read of GPIOA then GPIOB (the register, a repeated
//! start, two bytes: what the expander's sequential addressing expects).
//! An adapter that speaks only SMBus (the kernel's `i2c-stub`, which the
//! VM test puts in the expander's place) can carry them all.
//!
//! The registers are written through [`Registers`], so the setup is tested
//! against a fake bus that records the writes.

/// Register addresses with IOCON.BANK = 0 (the power-on layout).
pub mod reg {
    pub const IODIRA: u8 = 0x00;
    pub const IODIRB: u8 = 0x01;
    pub const IPOLA: u8 = 0x02;
    pub const IPOLB: u8 = 0x03;
    pub const GPINTENA: u8 = 0x04;
    pub const GPINTENB: u8 = 0x05;
    pub const INTCONA: u8 = 0x08;
    pub const INTCONB: u8 = 0x09;
    pub const IOCON: u8 = 0x0a;
    pub const GPPUA: u8 = 0x0c;
    pub const GPPUB: u8 = 0x0d;
    pub const GPIOA: u8 = 0x12;
}

/// IOCON: INTA and INTB mirrored (either port's change on INTA); INTA
/// active low, push-pull; sequential addressing (GPIOA then GPIOB).
pub const IOCON_MIRROR: u8 = 0x40;

/// An I2C device's registers.
pub trait Registers {
    fn write(&mut self, register: u8, value: u8) -> std::io::Result<()>;
    /// Reads `buf.len()` registers from `register` on.
    fn read(&mut self, register: u8, buf: &mut [u8]) -> std::io::Result<()>;
}

impl Registers for rppal::i2c::I2c {
    fn write(&mut self, register: u8, value: u8) -> std::io::Result<()> {
        self.smbus_write_byte(register, value)
            .map_err(std::io::Error::other)
    }

    fn read(&mut self, register: u8, buf: &mut [u8]) -> std::io::Result<()> {
        // rppal's block_read is I2C_SMBUS_I2C_BLOCK_DATA, not a raw
        // write-then-read: see the module's docs.
        self.block_read(register, buf)
            .map_err(std::io::Error::other)
    }
}

/// The expander, set up.
pub struct Mcp23017<R> {
    bus: R,
}

impl<R: Registers> Mcp23017<R> {
    /// Sets the expander up: `used` (bit 0 = GPA0 … bit 15 = GPB7) as
    /// inputs with an interrupt on change, pulled up when `pull_up`. The
    /// unused pins are inputs too (the power-on state), without interrupt.
    pub fn configure(mut bus: R, used: u16, pull_up: bool) -> std::io::Result<Mcp23017<R>> {
        let [used_a, used_b] = used.to_le_bytes();
        let pull = if pull_up { used } else { 0 };
        let [pull_a, pull_b] = pull.to_le_bytes();
        for (register, value) in [
            (reg::IOCON, IOCON_MIRROR),
            (reg::IODIRA, 0xff),
            (reg::IODIRB, 0xff),
            (reg::IPOLA, 0x00),
            (reg::IPOLB, 0x00),
            (reg::GPPUA, pull_a),
            (reg::GPPUB, pull_b),
            (reg::INTCONA, 0x00),
            (reg::INTCONB, 0x00),
            (reg::GPINTENA, used_a),
            (reg::GPINTENB, used_b),
        ] {
            bus.write(register, value)?;
        }
        let mut expander = Mcp23017 { bus };
        // Clears an interrupt pending from before.
        expander.read()?;
        Ok(expander)
    }

    /// GPIOA (low byte) and GPIOB (high byte); clears the interrupt.
    pub fn read(&mut self) -> std::io::Result<u16> {
        let mut buf = [0u8; 2];
        self.bus.read(reg::GPIOA, &mut buf)?;
        Ok(u16::from_le_bytes(buf))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A bus that records the writes and answers reads from `levels`.
    #[derive(Default)]
    pub(crate) struct FakeBus {
        pub(crate) writes: Vec<(u8, u8)>,
        pub(crate) levels: u16,
        pub(crate) dead: bool,
    }

    impl Registers for FakeBus {
        fn write(&mut self, register: u8, value: u8) -> std::io::Result<()> {
            if self.dead {
                return Err(std::io::Error::other("Remote I/O error"));
            }
            self.writes.push((register, value));
            Ok(())
        }

        fn read(&mut self, register: u8, buf: &mut [u8]) -> std::io::Result<()> {
            if self.dead {
                return Err(std::io::Error::other("Remote I/O error"));
            }
            assert_eq!(register, reg::GPIOA);
            buf.copy_from_slice(&self.levels.to_le_bytes());
            Ok(())
        }
    }

    #[test]
    fn the_setup_writes_inputs_pullups_and_interrupts_on_change() {
        // Pins A0..A7, B0, B1 and the cycle on B2.
        let used = 0x07ff;
        let bus = FakeBus {
            levels: 0x0155,
            ..FakeBus::default()
        };
        let mut mcp = Mcp23017::configure(bus, used, true).unwrap();
        assert_eq!(
            mcp.bus.writes,
            vec![
                (reg::IOCON, 0x40),
                (reg::IODIRA, 0xff),
                (reg::IODIRB, 0xff),
                (reg::IPOLA, 0),
                (reg::IPOLB, 0),
                (reg::GPPUA, 0xff),
                (reg::GPPUB, 0x07),
                (reg::INTCONA, 0),
                (reg::INTCONB, 0),
                (reg::GPINTENA, 0xff),
                (reg::GPINTENB, 0x07),
            ]
        );
        assert_eq!(mcp.read().unwrap(), 0x0155);
        // Without pull-ups.
        let mcp = Mcp23017::configure(FakeBus::default(), used, false).unwrap();
        assert!(mcp.bus.writes.contains(&(reg::GPPUA, 0)));
        assert!(mcp.bus.writes.contains(&(reg::GPPUB, 0)));
    }

    #[test]
    fn an_expander_that_does_not_answer_is_an_error() {
        let bus = FakeBus {
            dead: true,
            ..FakeBus::default()
        };
        assert!(Mcp23017::configure(bus, 0x3ff, true).is_err());
    }
}

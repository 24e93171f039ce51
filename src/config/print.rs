//! The effective configuration `lanecall check-config` prints: a
//! validated [`Config`] turned back into the serde structs the file is
//! read into (`raw`) and serialized by them. Every key so has the name,
//! the unit and the table it has in the file, declared once in `raw`, and
//! the text loads back to an equal `Config`.
//!
//! It decides how a value is written in the file; it never judges one.

use super::raw::{RawConfig, RawRules};
use super::validated::{Config, PinsetterConfig, SpeakerConfig};
use super::wire::GpioTable;

impl Config {
    /// The effective configuration, every key with its value, in the
    /// file's layout: what `lanecall check-config` prints. It loads back
    /// to an equal `Config`.
    pub fn to_toml(&self) -> String {
        // Every field of the raw structs is a string, a number, a bool, a
        // list or a table, which TOML always writes.
        let text = toml::to_string(&self.to_raw())
            .unwrap_or_else(|e| format!("# the configuration cannot be written: {e}\n"));
        format!("# The effective configuration: every key with the value the daemon uses.\n{text}")
    }

    /// The file that reads as this config.
    fn to_raw(&self) -> RawConfig {
        RawConfig {
            lane: Some(self.lane),
            state_dir: Some(self.state_dir.clone()),
            journal: self.journal.clone(),
            pinsetter: PinsetterConfig {
                pin_switches: self.switches.is_some(),
                switches: self.switches.as_ref().map(|s| s.to_raw()),
                ..self.pinsetter.clone()
            },
            gpio: GpioTable::from_config(&self.gpio),
            // `extras` is the rules' `speaker_extras`, kept under `[speaker]`.
            speaker: SpeakerConfig {
                extras: self.rules.speaker_extras,
                ..self.speaker.clone()
            },
            web: self.web.clone(),
            rules: RawRules::from(&self.rules),
            centre: self.centre.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// A file with every table the lane knows set: pin switches with an
    /// interrupt and a cycle signal, rail buttons, named judges, a mirror,
    /// an installed voice and a centre.
    const EVERY_TABLE: &str = r#"
lane = 12
state_dir = "/var/lib/lane \"12\""
[journal]
mirror = "/media/usb stick/lanecall"
[pinsetter]
kind = "pin_switches"
reconnect_min_ms = 250
[pinsetter.switches]
pins = ["A0", "A1", "A2", "A3", "A4", "A5", "A6", "A7", "B0", 17]
interrupt = 22
cycle = "B3"
pull = "none"
[gpio]
backend = "rpi"
[gpio.inputs.foul_beam]
pin = 5
[gpio.inputs.ball]
pin = 6
pull = "off"
active = "high"
[gpio.inputs.channel_right]
pin = 13
[gpio.buttons.score]
pin = 19
debounce_ms = 30
[gpio.outputs.foul_lamp]
pin = 20
[gpio.outputs.pinsetter_reset]
pin = 21
pulse_ms = 450
[speaker]
device = "plughw:CARD=Headphones,DEV=0"
volume = 0.8
language = "en"
voice = "rhvoice-elena"
word_pause_ms = 400
extras = true
[web]
listen = "[::1]:9000"
session_hours = 3
event = "Cup \"Minsk\" 2026"
[[web.judges]]
name = "Judge Orlova"
pin_hash = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
[rules]
foul_mode = "warn"
slow_bowling_limit_s = 90
[centre]
broker = "mqtts://centre.local:8883"
site = "minsk-2026"
username = "lane12"
accept_commands = true
neighbours = [11, 13]
"#;

    /// Prints `config`, loads the text back, and says what differs.
    fn round_trip(config: &Config, name: &str) {
        let printed = config.to_toml();
        let again = Config::parse(&printed, Path::new("printed.toml"))
            .unwrap_or_else(|e| panic!("{name}: the printed config does not load: {e}\n{printed}"));
        assert_eq!(&again, config, "{name}:\n{printed}");
        assert_eq!(again.to_toml(), printed, "{name}");
    }

    #[test]
    fn every_example_config_loads_prints_and_loads_back_the_same() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("config");
        let mut lanes = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let file = entry.unwrap().path();
            let text = std::fs::read_to_string(&file).unwrap();
            let table: toml::Table = text.parse().unwrap();
            // The centre's example (`site` at the top) prints nothing.
            if !table.contains_key("lane") {
                continue;
            }
            let config = Config::parse(&text, &file).unwrap_or_else(|e| panic!("{e}"));
            round_trip(&config, &file.display().to_string());
            lanes += 1;
        }
        assert!(lanes >= 1, "no lane config in {}", dir.display());
    }

    #[test]
    fn every_table_prints_and_loads_back_the_same() {
        let config = Config::parse(EVERY_TABLE, Path::new("lanecall.toml"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(config.switches.is_some() && config.centre.is_some());
        assert_eq!(config.web.judges.len(), 1);
        round_trip(&config, "every table");
        let demo = Config::demo(
            "/tmp/lanecall-demo".into(),
            "127.0.0.1:8080".parse().unwrap(),
            config.web.judges[0].pin_hash.clone(),
        );
        round_trip(&demo, "the demo");
    }

    /// The printed file has the input's key names and units: each key
    /// set above is printed with the value written.
    #[test]
    fn a_key_is_printed_with_its_name_and_unit() {
        let config = Config::parse(EVERY_TABLE, Path::new("lanecall.toml")).unwrap();
        let printed = config.to_toml();
        for line in [
            "reconnect_min_ms = 250\n",
            "pulse_ms = 450\n",
            "session_hours = 3\n",
            "word_pause_ms = 400\n",
            "volume = 0.8\n",
            "voice = \"rhvoice-elena\"\n",
            "[gpio.buttons.score]\n",
            "[[web.judges]]\n",
            "[centre]\nbroker = \"mqtts://centre.local:8883\"\n",
        ] {
            assert!(printed.contains(line), "{line:?} not in\n{printed}");
        }
    }
}

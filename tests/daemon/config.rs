//! The lane's configuration file: the documented example loads, the
//! effective config round-trips, and every mistake a technician can make is
//! reported by its key, all at once.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use lanecall::config::{
    BUTTONS, BcmPin, Config, ConfigError, GpioBackend, InputRole, Language, Problem, Pull,
    SwitchPin,
};
use lanecall::lane::Output;
use lanecall::lane::rules::{FoulMode, Rules};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/config/lanecall.toml");
const HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

/// The smallest file a Pi lane accepts.
fn minimal() -> String {
    format!(
        r#"
lane = 3
state_dir = "/var/lib/lanecall"

[pinsetter]
port = "/dev/ttyUSB0"

[gpio]
backend = "rpi"

[gpio.inputs.foul_beam]
pin = 17

[gpio.inputs.ball]
pin = 27

[gpio.outputs.foul_lamp]
pin = 24

[gpio.outputs.pinsetter_reset]
pin = 25

[web]
judge_pin_hash = "{HASH}"
"#
    )
}

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(text, Path::new("lanecall.toml"))
}

/// The problems of a file that must be invalid.
fn problems(text: &str) -> Vec<Problem> {
    match parse(text) {
        Err(ConfigError::Invalid { problems, .. }) => problems,
        Err(other) => panic!("expected problems, got {other}"),
        Ok(config) => panic!("expected problems, got {config:#?}"),
    }
}

/// Asserts a problem names `key` and says `fragment`.
fn assert_problem(problems: &[Problem], key: &str, fragment: &str) {
    assert!(
        problems
            .iter()
            .any(|p| p.key == key && p.message.contains(fragment)),
        "no problem `{key}: ...{fragment}...` in:\n{}",
        problems
            .iter()
            .map(|p| format!("  {p}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The single problem of the minimal file with `old` replaced by `new`.
fn one_problem(old: &str, new: &str, key: &str, fragment: &str) {
    let text = minimal();
    assert!(text.contains(old), "{old:?} not in the minimal file");
    let problems = problems(&text.replacen(old, new, 1));
    assert_problem(&problems, key, fragment);
    assert_eq!(problems.len(), 1, "{problems:?}");
}

// ----- the example file -----------------------------------------------------

#[test]
fn example_file_loads_with_every_key() {
    let config = Config::load(Path::new(EXAMPLE)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(config.lane, 7);
    assert_eq!(config.state_dir, PathBuf::from("/var/lib/lanecall"));
    assert_eq!(
        config.journal_dir(),
        PathBuf::from("/var/lib/lanecall/journal")
    );
    assert_eq!(
        config.journal.mirror, None,
        "the example leaves the mirror out"
    );
    assert_eq!(config.pinsetter.port, PathBuf::from("/dev/ttyUSB0"));
    assert_eq!(config.pinsetter.baud, 9600);
    assert_eq!(config.pinsetter.reconnect_min, Duration::from_millis(500));
    assert_eq!(config.pinsetter.reconnect_max, Duration::from_secs(10));

    let gpio = &config.gpio;
    assert_eq!(gpio.backend, GpioBackend::Rpi);
    let pins: Vec<(InputRole, u8)> = gpio
        .inputs
        .iter()
        .map(|i| (i.role.clone(), i.pin.number()))
        .collect();
    assert_eq!(
        pins,
        [
            (InputRole::FoulBeam, 17),
            (InputRole::Ball, 27),
            (InputRole::ChannelLeft, 22),
            (InputRole::ChannelRight, 23),
            (InputRole::Button("repeat".into()), 5),
            (InputRole::Button("score".into()), 6),
        ]
    );
    let beam = gpio.input(&InputRole::FoulBeam).unwrap();
    assert_eq!(beam.pull, Pull::Up);
    assert!(!beam.active_high);
    assert_eq!(beam.debounce, Duration::from_millis(5));
    assert_eq!(beam.pin.header_pin(), 11);

    let lamp = gpio.output(Output::FoulLamp).unwrap();
    assert_eq!((lamp.pin.number(), lamp.active_high), (24, true));
    let reset = gpio.output(Output::PinsetterReset).unwrap();
    assert_eq!(reset.pin.number(), 25);
    assert_eq!(reset.pulse, Duration::from_millis(300));

    assert!(config.speaker.enabled);
    assert_eq!(config.speaker.device, None);
    assert_eq!(config.speaker.volume, 1.0);
    assert_eq!(config.speaker.language, Language::Ru);
    assert_eq!(config.speaker.stale_after, Duration::from_secs(8));

    assert_eq!(
        config.web.listen,
        "0.0.0.0:8080".parse::<SocketAddr>().unwrap()
    );
    assert!(
        config
            .web
            .judge_pin_hash
            .as_deref()
            .is_some_and(|h| h.starts_with("$argon2id$"))
    );
    assert_eq!(config.web.session, Duration::from_secs(12 * 3600));

    assert_eq!(config.rules, Rules::default());
}

#[test]
fn example_file_round_trips_through_to_toml() {
    let config = Config::load(Path::new(EXAMPLE)).unwrap();
    let text = config.to_toml();
    let again = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(again, config);
    assert_eq!(again.to_toml(), text);
}

#[test]
fn example_file_states_every_key() {
    // Every key check-config prints is written (and so documented) in the
    // example.
    let config = Config::load(Path::new(EXAMPLE)).unwrap();
    let example: toml::Table = toml::from_str(&std::fs::read_to_string(EXAMPLE).unwrap()).unwrap();
    let effective: toml::Table = toml::from_str(&config.to_toml()).unwrap();
    assert_eq!(example, effective);
}

#[test]
fn every_rules_field_is_a_config_key() {
    // Rules serialized as a [rules] table: a field added to Rules but not to
    // the config's mirror of it would be an unknown key here. The
    // exceptions are `speaker_extras`, which is `[speaker] extras`, and
    // `blindfolds_between_blocks`, `cycle_per_link` and `checked_inputs`,
    // which are not settings.
    let rules = Rules {
        foul_mode: FoulMode::Warn,
        slow_bowling_limit_s: 90,
        speaker_extras: true,
        ..Rules::default()
    };
    let mut table = toml::Table::try_from(&rules).unwrap();
    let extras = table.remove("speaker_extras").expect("speaker_extras");
    // Not settings: on in every new journal (journal.md).
    for key in [
        "blindfolds_between_blocks",
        "cycle_per_link",
        "checked_inputs",
    ] {
        table.remove(key).expect(key);
    }
    let config = parse(&format!(
        "{}\n[rules]\n{table}\n[speaker]\nextras = {extras}\n",
        minimal()
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(config.rules, rules);
}

#[test]
fn speaker_extras_are_off_unless_the_config_turns_them_on() {
    // Competition by default: no "split", no score read aloud.
    let config = parse(&minimal()).unwrap_or_else(|e| panic!("{e}"));
    assert!(!config.rules.speaker_extras);
    assert!(config.to_toml().contains("[speaker]\nenabled = true\n"));
    assert!(config.to_toml().contains("\nextras = false\n"));
    let example = Config::load(Path::new(EXAMPLE)).unwrap();
    assert!(
        !example.rules.speaker_extras,
        "the example states the default"
    );

    // Training: on, into the rules the journal header carries.
    let text = minimal().replace("[web]", "[speaker]\nextras = true\n\n[web]");
    let config = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert!(config.rules.speaker_extras);
    assert!(config.to_toml().contains("\nextras = true\n"));
    assert_eq!(parse(&config.to_toml()).unwrap(), config);

    // check-config names a bad value by its key, and a misplaced one.
    let bad = minimal().replace("[web]", "[speaker]\nextras = \"yes\"\n\n[web]");
    let found = problems(&bad);
    assert_problem(&found, "speaker.extras", "must be true or false");
    assert_eq!(found.len(), 1, "{found:?}");
    let misplaced = minimal() + "\n[rules]\nspeaker_extras = true\n";
    assert_problem(&problems(&misplaced), "rules.speaker_extras", "unknown");
}

#[test]
fn tweaked_values_round_trip() {
    let text = minimal()
        .replace("[pinsetter]", "[pinsetter]\nbaud = 115200\nreconnect_min_ms = 1\nreconnect_max_ms = 1")
        .replace(
            "[web]",
            "[speaker]\nenabled = false\ndevice = \"plughw:CARD=Headphones,DEV=0\"\nvolume = 0.8\n\
             language = \"en\"\n\n[gpio.buttons.score]\npin = 5\npull = \"off\"\nactive = \"high\"\n\
             debounce_ms = 0\n\n[web]\nlisten = \"[::1]:9000\"\nsession_hours = 168",
        );
    let config = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(config.speaker.volume, 0.8);
    assert_eq!(
        config.speaker.device.as_deref(),
        Some("plughw:CARD=Headphones,DEV=0")
    );
    assert_eq!(config.web.listen.port(), 9000);
    let button = config
        .gpio
        .input(&InputRole::Button("score".into()))
        .unwrap();
    assert_eq!((button.pull, button.active_high), (Pull::Off, true));
    assert_eq!(button.debounce, Duration::ZERO);
    let again = parse(&config.to_toml()).unwrap_or_else(|e| panic!("{e}\n{}", config.to_toml()));
    assert_eq!(again, config);
}

#[test]
fn defaults_fill_every_optional_key() {
    let config = parse(&minimal()).unwrap_or_else(|e| panic!("{e}"));
    let example = Config::load(Path::new(EXAMPLE)).unwrap();
    assert_eq!(config.pinsetter.baud, example.pinsetter.baud);
    assert_eq!(
        config.pinsetter.reconnect_min,
        example.pinsetter.reconnect_min
    );
    assert_eq!(
        config.pinsetter.reconnect_max,
        example.pinsetter.reconnect_max
    );
    assert_eq!(config.speaker, example.speaker);
    assert_eq!(config.web.listen, example.web.listen);
    assert_eq!(config.web.session, example.web.session);
    assert_eq!(config.rules, Rules::default());
    assert_eq!(
        config.gpio.input(&InputRole::FoulBeam),
        example.gpio.input(&InputRole::FoulBeam)
    );
    assert_eq!(config.gpio.outputs, example.gpio.outputs);
}

#[test]
fn demo_lane_has_no_gpio_and_round_trips() {
    let demo = Config::demo(
        PathBuf::from("/tmp/lanecall-demo"),
        "127.0.0.1:8080".parse().unwrap(),
        HASH.to_owned(),
    );
    assert_eq!(demo.gpio.backend, GpioBackend::None);
    assert!(demo.gpio.inputs.is_empty() && demo.gpio.outputs.is_empty());
    assert_eq!(demo.pinsetter.port, PathBuf::from("simulated"));
    assert_eq!(parse(&demo.to_toml()).unwrap(), demo);
}

#[test]
fn backend_none_runs_without_gpio_and_keeps_listed_pins() {
    let text = format!(
        "lane = 1\nstate_dir = \"/s\"\n[pinsetter]\nport = \"p\"\n[gpio]\nbackend = \"none\"\n\
         [gpio.inputs.ball]\npin = 4\n[web]\njudge_pin_hash = \"{HASH}\"\n"
    );
    let config = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(config.gpio.backend, GpioBackend::None);
    assert_eq!(config.gpio.inputs.len(), 1);
    assert_eq!(config.gpio.inputs[0].pin, BcmPin::new(4).unwrap());
    assert!(config.gpio.outputs.is_empty());
}

#[test]
fn journal_mirror_takes_an_absolute_path_and_round_trips() {
    let text = minimal().replace(
        "[pinsetter]",
        "[journal]\nmirror = \"/media/usb stick/lanecall\"\n\n[pinsetter]",
    );
    let config = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        config.journal.mirror.as_deref(),
        Some(Path::new("/media/usb stick/lanecall"))
    );
    let printed = config.to_toml();
    assert!(
        printed.contains("[journal]\nmirror = \"/media/usb stick/lanecall\"\n"),
        "{printed}"
    );
    let again = parse(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    assert_eq!(again, config);
    assert_eq!(again.to_toml(), printed);
    // Without the key, no mirror.
    assert_eq!(parse(&minimal()).unwrap().journal.mirror, None);
}

// ----- each validation names its key ---------------------------------------

#[test]
fn journal_mirror_must_be_an_absolute_path() {
    let with = |mirror: &str| {
        minimal().replace(
            "[pinsetter]",
            &format!("[journal]\nmirror = {mirror:?}\n\n[pinsetter]"),
        )
    };
    let relative = problems(&with("usb/lanecall"));
    assert_problem(
        &relative,
        "journal.mirror",
        "\"usb/lanecall\" is not an absolute path",
    );
    assert_eq!(relative.len(), 1, "{relative:?}");
    let empty = problems(&with(""));
    assert_problem(&empty, "journal.mirror", "is empty");
    assert_eq!(empty.len(), 1, "{empty:?}");
    let itself = problems(&with("/var/lib/lanecall/journal/"));
    assert_problem(&itself, "journal.mirror", "is the journal folder itself");
    assert_eq!(itself.len(), 1, "{itself:?}");
}

#[test]
fn pin_used_twice_names_both_keys() {
    one_problem(
        "[gpio.outputs.foul_lamp]\npin = 24",
        "[gpio.outputs.foul_lamp]\npin = 17",
        "gpio.outputs.foul_lamp.pin",
        "BCM 17 (header pin 11) is already used by gpio.inputs.foul_beam.pin",
    );
}

#[test]
fn pin_used_twice_by_a_button() {
    let text = minimal() + "\n[gpio.buttons.repeat]\npin = 27\n";
    let problems = problems(&text);
    assert_problem(
        &problems,
        "gpio.buttons.repeat.pin",
        "already used by gpio.inputs.ball.pin",
    );
}

#[test]
fn only_the_lanes_buttons_are_accepted() {
    // `Lane::button` acts on these and refuses any other name.
    assert_eq!(BUTTONS, ["repeat", "score"]);

    let text = minimal()
        + "\n[gpio.buttons.repaet]\npin = 5\n[gpio.buttons.coach]\npin = 6\n\
           [gpio.buttons.\"\"]\npin = 7\n[gpio.buttons.score]\npin = 8\n";
    let named = problems(&text);
    assert_problem(
        &named,
        "gpio.buttons.repaet",
        "unknown button (did you mean `repeat`?); the lane knows repeat and score",
    );
    assert_problem(
        &named,
        "gpio.buttons.coach",
        "unknown button; the lane knows repeat and score",
    );
    assert_problem(
        &named,
        "gpio.buttons.\"\"",
        "unknown button; the lane knows repeat and score",
    );
    // The good button is not a problem; each bad one is reported once.
    assert_eq!(named.len(), 3, "{named:?}");

    // Reported with the other unknown keys, all at once.
    let text = minimal().replace("pin = 17", "pinn = 17") + "\n[gpio.buttons.Repeat]\npin = 5\n";
    let mixed = problems(&text);
    assert_problem(&mixed, "gpio.inputs.foul_beam.pinn", "unknown key");
    assert_problem(
        &mixed,
        "gpio.buttons.Repeat",
        "unknown button (did you mean `repeat`?)",
    );
    // The misspelt key leaves the pin missing: said in the same run.
    assert_problem(&mixed, "gpio.inputs.foul_beam.pin", "is missing");
    assert_eq!(mixed.len(), 3, "{mixed:?}");

    let value = problems(&(minimal() + "\n[gpio.buttons]\nrepeat = 5\n"));
    assert_problem(
        &value,
        "gpio.buttons.repeat",
        "must be a table: write [gpio.buttons.repeat] with its pin, not a whole number",
    );
    assert_eq!(value.len(), 1, "{value:?}");

    let config =
        parse(&(minimal() + "\n[gpio.buttons.repeat]\npin = 5\n[gpio.buttons.score]\npin = 6\n"))
            .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        config
            .gpio
            .input(&InputRole::Button("repeat".into()))
            .is_some()
    );
    assert!(
        config
            .gpio
            .input(&InputRole::Button("score".into()))
            .is_some()
    );
}

#[test]
fn pin_out_of_range() {
    one_problem(
        "pin = 27",
        "pin = 28",
        "gpio.inputs.ball.pin",
        "use 2 to 27",
    );
    one_problem(
        "pin = 27",
        "pin = -3",
        "gpio.inputs.ball.pin",
        "not a BCM GPIO number",
    );
}

#[test]
fn header_pin_number_gets_a_hint() {
    one_problem(
        "pin = 25",
        "pin = 40",
        "gpio.outputs.pinsetter_reset.pin",
        "header pin 40, that is BCM 21",
    );
}

#[test]
fn bcm_0_and_1_are_refused_for_the_hat_eeprom() {
    one_problem(
        "pin = 17",
        "pin = 0",
        "gpio.inputs.foul_beam.pin",
        "HAT ID EEPROM",
    );
    one_problem(
        "pin = 24",
        "pin = 1",
        "gpio.outputs.foul_lamp.pin",
        "HAT ID EEPROM",
    );
}

#[test]
fn uart_pins_14_and_15_are_allowed() {
    let text = minimal()
        .replace("pin = 24", "pin = 14")
        .replace("pin = 25", "pin = 15");
    let config = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        config.gpio.output(Output::FoulLamp).unwrap().pin.number(),
        14
    );
}

#[test]
fn bad_listen_address() {
    one_problem(
        "[web]",
        "[web]\nlisten = \"0.0.0.0:80800\"",
        "web.listen",
        "\"0.0.0.0:80800\" is not an address: write an address and port such as 0.0.0.0:8080 (0.0.0.0 listens on every network, 127.0.0.1 on this machine only), localhost:8080 or a port alone (8080)",
    );
}

#[test]
fn baud_zero_or_unusual() {
    one_problem(
        "[pinsetter]",
        "[pinsetter]\nbaud = 0",
        "pinsetter.baud",
        "0 is not a serial baud rate",
    );
    one_problem(
        "[pinsetter]",
        "[pinsetter]\nbaud = 9601",
        "pinsetter.baud",
        "use one of 1200, 2400",
    );
}

#[test]
fn reconnect_min_above_max() {
    one_problem(
        "[pinsetter]",
        "[pinsetter]\nreconnect_min_ms = 5000\nreconnect_max_ms = 1000",
        "pinsetter.reconnect_min_ms",
        "above pinsetter.reconnect_max_ms (1000)",
    );
    one_problem(
        "[pinsetter]",
        "[pinsetter]\nreconnect_min_ms = 0",
        "pinsetter.reconnect_min_ms",
        "out of range",
    );
}

#[test]
fn volume_out_of_range() {
    one_problem(
        "[web]",
        "[speaker]\nvolume = 2.5\n[web]",
        "speaker.volume",
        "use 0.0 to 2.0",
    );
    one_problem(
        "[web]",
        "[speaker]\nvolume = -1\n[web]",
        "speaker.volume",
        "out of range",
    );
    // The bounds themselves are accepted: 0.0..=2.0, as the example file says.
    for volume in ["0.0", "2.0", "2"] {
        let text = minimal().replace("[web]", &format!("[speaker]\nvolume = {volume}\n[web]"));
        parse(&text).unwrap_or_else(|e| panic!("volume = {volume}: {e}"));
    }
}

#[test]
fn judge_pin_hash_must_be_argon2() {
    one_problem(
        HASH,
        "1234",
        "web.judge_pin_hash",
        "run `lanecall hash-pin PIN` and paste its output",
    );
    one_problem(
        HASH,
        &HASH[..40],
        "web.judge_pin_hash",
        "not a complete argon2 hash",
    );
}

#[test]
fn named_judges_need_no_shared_pin_and_round_trip() {
    let shared = format!("judge_pin_hash = \"{HASH}\"");
    let judges = format!(
        "session_idle_s = 5\nlockout_after = 3\nlockout_base_s = 2\nlockout_max_s = 8\n\
         [[web.judges]]\nname = \"Judge Orlova\"\npin_hash = \"{HASH}\"\n\
         [[web.judges]]\nname = \"Judge Ivanov\"\npin_hash = \"{HASH}\"\n"
    );
    let text = minimal().replace(&shared, &judges);
    let config = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(config.web.judge_pin_hash, None);
    let names: Vec<&str> = config.web.judges.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["Judge Orlova", "Judge Ivanov"]);
    assert_eq!(config.web.session_idle, Duration::from_secs(5));
    assert_eq!(config.web.lockout_after, 3);
    assert_eq!(config.web.lockout_max, Duration::from_secs(8));
    let again = parse(&config.to_toml()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again, config);
}

#[test]
fn named_judges_are_checked_one_by_one() {
    let shared = format!("judge_pin_hash = \"{HASH}\"");
    let text = minimal().replace(
        &shared,
        &format!(
            "[[web.judges]]\nname = \"A\"\npin_hash = \"{HASH}\"\n\
             [[web.judges]]\nname = \"A\"\npin_hash = \"1234\"\n\
             [[web.judges]]\nname = \"B\"\npin = 5\n"
        ),
    );
    let problems = problems(&text);
    assert_problem(&problems, "web.judges[3].pin", "unknown key");
    let text = text.replace("pin = 5", &format!("pin_hash = \"{HASH}\""));
    let problems = self::problems(&text);
    assert_problem(&problems, "web.judges[2].name", "named twice");
    assert_problem(&problems, "web.judges[2].pin_hash", "hash-pin");
    let problems = self::problems(
        &minimal().replace("[web]", "[web]\nlockout_base_s = 60\nlockout_max_s = 30"),
    );
    assert_problem(
        &problems,
        "web.lockout_max_s",
        "shorter than lockout_base_s",
    );
}

#[test]
fn the_event_title_is_one_printed_line() {
    let with = |title: &str| minimal().replace("[web]", &format!("[web]\nevent = {title:?}"));
    let config = parse(&with("  Кубок Москвы, B1–B3  ")).expect("a title");
    assert_eq!(config.web.event, "Кубок Москвы, B1–B3");
    assert_problem(
        &problems(&with(&"x".repeat(121))),
        "web.event",
        "121 characters long; at most 120",
    );
    assert_problem(
        &problems(&with("Cup\nday 2")),
        "web.event",
        "control character",
    );
    assert_eq!(parse(&minimal()).unwrap().web.event, "");
}

#[test]
fn judge_pin_hash_is_required() {
    let text = minimal().replace(&format!("judge_pin_hash = \"{HASH}\""), "");
    let problems = problems(&text);
    assert_problem(&problems, "web.judge_pin_hash", "`lanecall hash-pin PIN`");
}

#[test]
fn empty_state_dir_or_port() {
    one_problem(
        "state_dir = \"/var/lib/lanecall\"",
        "state_dir = \"\"",
        "state_dir",
        "is empty",
    );
    one_problem(
        "port = \"/dev/ttyUSB0\"",
        "port = \" \"",
        "pinsetter.port",
        "is empty",
    );
}

#[test]
fn relative_state_dir_is_refused() {
    // The daemon's working directory is / under systemd, not where the
    // file was written.
    one_problem(
        "state_dir = \"/var/lib/lanecall\"",
        "state_dir = \"var/lib/lanecall\"",
        "state_dir",
        "\"var/lib/lanecall\" is not an absolute path",
    );
    one_problem(
        "state_dir = \"/var/lib/lanecall\"",
        "state_dir = \"./state\"",
        "state_dir",
        "write it from the root, e.g. state_dir = \"/var/lib/lanecall\"",
    );
}

#[test]
fn problems_name_their_line_and_column() {
    // The minimal file starts with an empty line: `lane` is on line 2.
    let text = minimal()
        .replace("lane = 3", "lane = 0")
        .replace("pin = 17", "pinn = 17")
        .replace("[web]", "[web]\n  listen = \"nowhere\"");
    let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let problems = problems(&text);
    let at = |key: &str| problems.iter().find(|p| p.key == key).unwrap().at;
    assert_eq!(at("lane"), Some((2, 1)));
    assert_eq!(at("gpio.inputs.foul_beam.pinn"), Some((line_of("pinn"), 1)));
    assert_eq!(at("web.listen"), Some((line_of("nowhere"), 3)));
    // A missing key: where its table is, at its name in the header.
    assert_eq!(
        at("gpio.inputs.foul_beam.pin"),
        Some((line_of("[gpio.inputs.foul_beam]"), 14))
    );
    let error = parse(&text).unwrap_err().to_string();
    assert!(
        error.contains(&format!(
            "\n  web.listen: \"nowhere\" is not an address: write an address and port such as 0.0.0.0:8080 (0.0.0.0 listens on every network, 127.0.0.1 on this machine only), localhost:8080 or a port alone (8080) (line {}, column 3)",
            line_of("nowhere")
        )),
        "{error}"
    );
    // Named judges are counted from 1, as the file's [[web.judges]].
    let text = minimal().replace(
        &format!("judge_pin_hash = \"{HASH}\""),
        &format!(
            "[[web.judges]]\nname = \"A\"\npin_hash = \"{HASH}\"\n\
             [[web.judges]]\nname = \"B\"\npin_hash = \"1234\"\n"
        ),
    );
    let bad = text.lines().position(|l| l.contains("1234")).unwrap() + 1;
    let problems = self::problems(&text);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].key, "web.judges[2].pin_hash");
    assert_eq!(problems[0].at, Some((bad, 1)));
}

#[test]
fn required_keys_are_named() {
    let problems = problems("");
    for key in [
        "lane",
        "state_dir",
        "pinsetter.port",
        "gpio.backend",
        "web.judge_pin_hash",
    ] {
        assert_problem(&problems, key, "is missing");
    }
    assert_eq!(problems.len(), 5, "{problems:?}");
}

#[test]
fn rpi_backend_needs_beam_ball_lamp_and_reset() {
    let text = format!(
        "lane = 1\nstate_dir = \"/s\"\n[pinsetter]\nport = \"p\"\n[gpio]\nbackend = \"rpi\"\n\
         [web]\njudge_pin_hash = \"{HASH}\"\n"
    );
    let problems = problems(&text);
    for key in [
        "gpio.inputs.foul_beam",
        "gpio.inputs.ball",
        "gpio.outputs.foul_lamp",
        "gpio.outputs.pinsetter_reset",
    ] {
        assert_problem(&problems, key, "gpio.backend = \"rpi\" needs");
    }
    assert_eq!(problems.len(), 4, "{problems:?}");
}

#[test]
fn bad_backend_and_choices() {
    one_problem(
        "backend = \"rpi\"",
        "backend = \"pi\"",
        "gpio.backend",
        "\"pi\" is not one of \"rpi\", \"none\"",
    );
    one_problem(
        "pin = 17",
        "pin = 17\npull = \"upp\"",
        "gpio.inputs.foul_beam.pull",
        "not one of \"up\", \"down\", \"off\"",
    );
    one_problem(
        "pin = 24",
        "pin = 24\nactive = \"on\"",
        "gpio.outputs.foul_lamp.active",
        "not one of \"low\", \"high\"",
    );
    one_problem(
        "[web]",
        "[speaker]\nlanguage = \"de\"\n[web]",
        "speaker.language",
        "not one of \"ru\", \"en\"",
    );
}

#[test]
fn time_ranges() {
    one_problem(
        "pin = 17",
        "pin = 17\ndebounce_ms = 1001",
        "gpio.inputs.foul_beam.debounce_ms",
        "use 0 to 1000",
    );
    one_problem(
        "pin = 25",
        "pin = 25\npulse_ms = 5",
        "gpio.outputs.pinsetter_reset.pulse_ms",
        "use 10 to 5000",
    );
    one_problem(
        "[web]",
        "[web]\nsession_hours = 0",
        "web.session_hours",
        "use 1 to 168",
    );
    one_problem("lane = 3", "lane = 0", "lane", "use 1 to 999");
}

#[test]
fn foul_beam_debounce_must_be_below_the_ball_break() {
    one_problem(
        "pin = 17",
        "pin = 17\ndebounce_ms = 100",
        "gpio.inputs.foul_beam.debounce_ms",
        "must be below rules.ball_break_max_ms (100)",
    );
}

#[test]
fn bad_rules_are_prefixed() {
    let text = minimal()
        + "\n[rules]\nball_break_max_ms = 0\ntypical_travel_ms = 3000\nmax_travel_ms = 2000\n";
    let problems = problems(&text);
    assert_problem(&problems, "rules.ball_break_max_ms", "must be above 0");
    assert_problem(
        &problems,
        "rules.max_travel_ms",
        "must not be below typical_travel_ms (3000)",
    );
    one_problem(
        "[web]",
        "[rules]\nfoul_lamp_ms = -1\n[web]",
        "rules.foul_lamp_ms",
        "must not be negative",
    );
    one_problem(
        "[web]",
        "[rules]\nfoul_mode = \"strict\"\n[web]",
        "rules.foul_mode",
        "not one of \"score\", \"warn\"",
    );
}

// ----- all at once ---------------------------------------------------------

#[test]
fn every_problem_is_reported_at_once() {
    let text = minimal()
        .replace("pin = 24", "pin = 17")
        .replace("pin = 27", "pin = 1")
        .replace("[pinsetter]", "[pinsetter]\nbaud = 0")
        .replace(HASH, "secret")
        .replace("[web]", "[web]\nlisten = \"nowhere\"")
        + "\n[speaker]\nvolume = 3.0\n\n[rules]\nslow_bowling_limit_s = 0\n";
    let problems = problems(&text);
    assert_problem(
        &problems,
        "gpio.outputs.foul_lamp.pin",
        "already used by gpio.inputs.foul_beam.pin",
    );
    assert_problem(&problems, "gpio.inputs.ball.pin", "HAT ID EEPROM");
    assert_problem(&problems, "pinsetter.baud", "not a serial baud rate");
    assert_problem(&problems, "web.judge_pin_hash", "hash-pin");
    assert_problem(&problems, "web.listen", "not an address");
    assert_problem(&problems, "speaker.volume", "out of range");
    assert_problem(&problems, "rules.slow_bowling_limit_s", "must be above 0");
    assert_eq!(problems.len(), 7, "{problems:?}");

    let error = parse(&text).unwrap_err().to_string();
    assert!(
        error.starts_with("lanecall.toml: 7 problem(s):\n"),
        "{error}"
    );
    assert!(
        error.contains("\n  web.listen: \"nowhere\" is not an address"),
        "{error}"
    );
}

// ----- unknown keys, types, syntax -----------------------------------------

#[test]
fn unknown_key_names_its_full_path() {
    let problems = problems(&minimal().replace("pin = 17", "pinn = 17"));
    assert_problem(
        &problems,
        "gpio.inputs.foul_beam.pinn",
        "unknown key (did you mean `pin`?)",
    );
    assert_problem(&problems, "gpio.inputs.foul_beam.pin", "is missing");
    assert_eq!(problems.len(), 2, "{problems:?}");
}

#[test]
fn unknown_keys_and_bad_values_are_reported_in_one_run() {
    let text = minimal().replace("lane = 3", "lane = 0\ncolour = \"red\"");
    let problems = problems(&text);
    assert_problem(&problems, "colour", "unknown key");
    assert_problem(&problems, "lane", "out of range");
    assert_eq!(problems.len(), 2, "{problems:?}");
}

/// A table read into one struct refuses a value in the field's own type
/// (a range, a path, a PIN hash, a pin); each such value is reported with
/// its key and line, all in one run, beside an unknown key, a wrong type
/// and a problem the table's check finds.
#[test]
fn every_refused_value_of_a_struct_table_is_reported_in_one_run() {
    let text = minimal()
        .replace(
            "[pinsetter]",
            "[journal]\nmirror = \"usb\"\n[speaker]\nvolume = 5.0\nword_pause_ms = 10\n\
             stale_after_ms = \"soon\"\ncolour = 1\n[pinsetter]",
        )
        .replace("pin = 17", "pin = 1")
        .replace(
            "[web]",
            "[web]\nsession_hours = 0\nlockout_base_s = 600\nlockout_max_s = 60",
        );
    let problems = problems(&text);
    let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
    for (key, fragment, needle) in [
        (
            "journal.mirror",
            "\"usb\" is not an absolute path",
            "mirror =",
        ),
        (
            "speaker.volume",
            "5 is out of range: use 0.0 to 2.0",
            "volume =",
        ),
        (
            "speaker.word_pause_ms",
            "10 is out of range: use 260 to 2000 milliseconds",
            "word_pause_ms",
        ),
        (
            "speaker.stale_after_ms",
            "must be a whole number, not a string",
            "stale_after_ms",
        ),
        ("speaker.colour", "unknown key", "colour"),
        (
            "gpio.inputs.foul_beam.pin",
            "BCM 1 is reserved for the HAT ID EEPROM",
            "pin = 1",
        ),
        (
            "web.session_hours",
            "0 is out of range: use 1 to 168 hours",
            "session_hours",
        ),
        (
            "web.lockout_max_s",
            "60 is shorter than lockout_base_s (600)",
            "lockout_max_s",
        ),
    ] {
        assert_problem(&problems, key, fragment);
        let at = problems.iter().find(|p| p.key == key).unwrap().at;
        assert_eq!(at, Some((line_of(needle), 1)), "{key}");
    }
    assert_eq!(problems.len(), 8, "{problems:#?}");
}

#[test]
fn every_unknown_key_is_reported() {
    let text = minimal()
        + "\ncolour = \"red\"\n[gpio.inputs.gutter]\npin = 9\n[gpio.buttons.repeat]\npin = 5\nbounce = 3\n\
           [gpio.outputs.foul_lamp.extra]\nx = 1\n[rules]\nfoul = \"warn\"\n";
    let problems = problems(&text);
    // After the minimal file's last table, so it belongs to [web].
    assert_problem(&problems, "web.colour", "the keys in [web] are: listen");
    assert_problem(&problems, "gpio.inputs.gutter", "[gpio.buttons.<name>]");
    assert_problem(&problems, "gpio.buttons.repeat.bounce", "unknown key");
    assert_problem(&problems, "gpio.outputs.foul_lamp.extra", "unknown key");
    assert_problem(&problems, "rules.foul", "the keys in [rules] are");
    assert_eq!(problems.len(), 5, "{problems:?}");
}

#[test]
fn unknown_key_under_journal_is_named() {
    let text = minimal().replace(
        "[pinsetter]",
        "[journal]\nmirorr = \"/media/usb\"\n\n[pinsetter]",
    );
    let problems = problems(&text);
    assert_problem(
        &problems,
        "journal.mirorr",
        "unknown key (did you mean `mirror`?); the keys in [journal] are: mirror",
    );
    assert_eq!(problems.len(), 1, "{problems:?}");
}

#[test]
fn pulse_ms_on_the_lamp_is_unknown() {
    one_problem(
        "pin = 24",
        "pin = 24\npulse_ms = 300",
        "gpio.outputs.foul_lamp.pulse_ms",
        "rules.foul_lamp_ms",
    );
}

#[test]
fn wrong_types_name_their_keys() {
    let text = minimal()
        .replace("lane = 3", "lane = \"3\"")
        .replace("pin = 17", "pin = 17.0")
        + "\n[speaker]\nenabled = \"yes\"\n";
    let problems = problems(&text);
    assert_problem(&problems, "lane", "must be a whole number, not a string");
    assert_problem(
        &problems,
        "gpio.inputs.foul_beam.pin",
        "must be a whole number",
    );
    assert_problem(&problems, "speaker.enabled", "must be true or false");
    assert_eq!(problems.len(), 3, "{problems:?}");
}

#[test]
fn syntax_error_keeps_the_line_number() {
    // toml points at the value that does not end where it should.
    let text = minimal().replace("pin = 27", "pin = 27 27");
    let line = text.lines().position(|l| l == "pin = 27 27").unwrap() + 1;
    match parse(&text) {
        Err(error @ ConfigError::Syntax { .. }) => {
            let message = error.to_string();
            assert!(message.starts_with("lanecall.toml: "), "{message}");
            assert!(
                message.contains(&format!("line {line}, column 7")),
                "{message}"
            );
        }
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn missing_file_names_it() {
    let error = Config::load(Path::new("/nonexistent/lanecall.toml")).unwrap_err();
    assert!(matches!(error, ConfigError::Read { .. }));
    assert!(
        error
            .to_string()
            .starts_with("cannot read /nonexistent/lanecall.toml: "),
        "{error}"
    );
}

// ----- the example and the docs state the code's defaults -------------------

/// Every leaf of a table, by its dotted path, with its value.
fn leaves(table: &toml::Table, prefix: &str, out: &mut Vec<(String, toml::Value)>) {
    for (key, value) in table {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match value {
            toml::Value::Table(t) => leaves(t, &path, out),
            v => out.push((path, v.clone())),
        }
    }
}

/// The example file with only its required keys: what the code fills in
/// for everything else is its defaults.
fn defaults_of_the_code() -> toml::Table {
    let example = Config::load(Path::new(EXAMPLE)).unwrap();
    let mut required = format!(
        "lane = {}\nstate_dir = {:?}\n[pinsetter]\nport = {:?}\n[gpio]\nbackend = \"rpi\"\n\
         [web]\njudge_pin_hash = {:?}\n",
        example.lane,
        example.state_dir,
        example.pinsetter.port,
        example.web.judge_pin_hash.clone().unwrap(),
    );
    for input in &example.gpio.inputs {
        required += &format!(
            "[{}]\npin = {}\n",
            input.role.config_key(),
            input.pin.number()
        );
    }
    for output in &example.gpio.outputs {
        let name = match output.output {
            Output::FoulLamp => "foul_lamp",
            Output::PinsetterReset => "pinsetter_reset",
        };
        required += &format!("[gpio.outputs.{name}]\npin = {}\n", output.pin.number());
    }
    let config = parse(&required).unwrap_or_else(|e| panic!("{e}\n{required}"));
    toml::from_str(&config.to_toml()).unwrap()
}

/// The keys of the example that differ from the code's defaults on purpose.
fn deliberately_different(key: &str) -> bool {
    // Required, so no default: the lane's own values.
    let required = ["lane", "state_dir", "pinsetter.port", "gpio.backend"];
    // The placeholder, which check-config refuses: there is no default PIN.
    let placeholder = key == "web.judge_pin_hash";
    // The wiring: each pin is the technician's choice.
    let pin = key.starts_with("gpio.") && key.ends_with(".pin");
    // Buttons bounce longer than the sensors (default 5): the example says so.
    let buttons = key.starts_with("gpio.buttons.") && key.ends_with(".debounce_ms");
    required.contains(&key) || placeholder || pin || buttons
}

#[test]
fn every_value_in_the_example_is_the_codes_default() {
    let example: toml::Table = toml::from_str(&std::fs::read_to_string(EXAMPLE).unwrap()).unwrap();
    let mut stated = Vec::new();
    leaves(&example, "", &mut stated);
    let mut defaults = Vec::new();
    leaves(&defaults_of_the_code(), "", &mut defaults);
    let mut checked = 0;
    for (key, value) in &stated {
        let default = defaults.iter().find(|(k, _)| k == key).map(|(_, v)| v);
        if deliberately_different(key) {
            continue;
        }
        assert_eq!(Some(value), default, "{key} in config/lanecall.toml");
        checked += 1;
    }
    // Pull, active and debounce of six inputs, two outputs' levels, the
    // pulse, the serial line, speaker, web and rules: most of the file.
    assert!(checked >= 40, "only {checked} keys checked");
    // And the other way: every key the code gives a value when it is left
    // out is stated in the example, so no default goes undocumented.
    let unstated: Vec<&String> = defaults
        .iter()
        .map(|(key, _)| key)
        .filter(|key| !stated.iter().any(|(k, _)| k == *key))
        .collect();
    assert!(
        unstated.is_empty(),
        "not in config/lanecall.toml: {unstated:?}"
    );
    // The buttons' debounce does differ, as the example's comment says.
    let button = stated
        .iter()
        .find(|(k, _)| k == "gpio.buttons.repeat.debounce_ms")
        .map(|(_, v)| v.clone());
    assert_eq!(button, Some(toml::Value::Integer(20)));
}

/// The example's values of each leaf key name (`pulse_ms` → 300).
fn example_values(leaf: &str) -> Vec<toml::Value> {
    let example: toml::Table = toml::from_str(&std::fs::read_to_string(EXAMPLE).unwrap()).unwrap();
    let mut stated = Vec::new();
    leaves(&example, "", &mut stated);
    stated
        .into_iter()
        .filter(|(k, _)| k.rsplit('.').next() == Some(leaf))
        .map(|(_, v)| v)
        .collect()
}

fn toml_value(text: &str) -> Option<toml::Value> {
    let table: toml::Table = toml::from_str(&format!("v = {text}")).ok()?;
    table.get("v").cloned()
}

#[test]
fn the_install_and_hardware_docs_state_the_examples_values() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut wrong = Vec::new();
    let mut checked = 0;
    for doc in ["docs/install.md", "hardware/README.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        for (n, line) in text.lines().enumerate() {
            // `pulse_ms = 300`: a key as written in the file.
            for snippet in line.split('`').skip(1).step_by(2) {
                let Some((key, value)) = snippet.split_once(" = ") else {
                    continue;
                };
                let values = example_values(key);
                let Some(value) = toml_value(value) else {
                    continue;
                };
                if values.is_empty() || key.contains(' ') {
                    continue;
                }
                checked += 1;
                if !values.contains(&value) {
                    wrong.push(format!(
                        "{doc}:{}: `{snippet}`, the example has {values:?}",
                        n + 1
                    ));
                }
            }
            // | `[rules] foul_lamp_ms` | `3000` | ...: the value of that key.
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            if let [_, key, value, ..] = cells[..]
                && let Some(key) = key.strip_prefix("`[").and_then(|k| k.strip_suffix('`'))
                && let Some((table, leaf)) = key.split_once("] ")
                && let Some(value) = value.strip_prefix('`').and_then(|v| v.strip_suffix('`'))
                && let Some(value) = toml_value(value)
            {
                let example: toml::Table =
                    toml::from_str(&std::fs::read_to_string(EXAMPLE).unwrap()).unwrap();
                let stated = example
                    .get(table)
                    .and_then(|t| t.get(leaf))
                    .unwrap_or_else(|| panic!("{doc}:{}: no {table}.{leaf} in the example", n + 1));
                checked += 1;
                if *stated != value {
                    wrong.push(format!(
                        "{doc}:{}: {table}.{leaf} = {value}, the example has {stated}",
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert!(checked >= 30, "only {checked} values checked");
}

// ----- [centre] -------------------------------------------------------------

#[test]
fn centre_is_read_checked_and_round_trips() {
    assert_eq!(
        parse(&minimal()).unwrap().centre,
        None,
        "no [centre], no link"
    );
    let text = format!(
        "{}\n[centre]\nbroker = \"mqtt://centre.local\"\nsite = \"minsk-2026\"\n\
         username = \"lane3\"\npassword_file = \"/etc/lanecall/mqtt-password\"\n\
         accept_commands = true\nneighbours = [2, 4]\n",
        minimal()
    );
    let config = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let centre = config.centre.clone().expect("a [centre]");
    assert_eq!(
        (
            centre.broker.host.as_str(),
            centre.broker.port,
            centre.site.as_str()
        ),
        ("centre.local", 1883, "minsk-2026")
    );
    assert_eq!(centre.username.as_deref(), Some("lane3"));
    assert!(centre.accept_commands);
    assert_eq!(centre.neighbours, [2, 4]);
    let printed = config.to_toml();
    assert!(
        printed.contains("[centre]\nbroker = \"mqtt://centre.local:1883\"\n"),
        "{printed}"
    );
    assert_eq!(parse(&printed).unwrap(), config);
    // accept_commands is off unless the file turns it on.
    let plain = parse(&format!(
        "{}\n[centre]\nbroker = \"mqtt://[::1]:8883\"\nsite = \"s\"\n",
        minimal()
    ))
    .unwrap();
    let centre = plain.centre.clone().unwrap();
    assert_eq!(
        (centre.broker.host.as_str(), centre.broker.port),
        ("::1", 8883)
    );
    assert!(!centre.accept_commands);
    assert_eq!(parse(&plain.to_toml()).unwrap(), plain);
}

#[test]
fn centre_problems_name_their_keys() {
    let with = |keys: &str| problems(&format!("{}\n[centre]\n{keys}\n", minimal()));
    let p = with("site = \"s\"");
    assert_problem(&p, "centre.broker", "is missing");
    let p = with("broker = \"mqtt://c\"\nsite = \"s\"\nca_file = \"/etc/ssl/ca.pem\"");
    assert_problem(&p, "centre.ca_file", "only for a broker over TLS");
    let p = with("broker = \"mqtts://c\"\nsite = \"s\"\nca_file = \"ca.pem\"");
    assert_problem(&p, "centre.ca_file", "not an absolute path");
    let p = with("broker = \"mqtts://c\"\nsite = \"s\"\nca_file = \"/nonexistent/ca.pem\"");
    assert_problem(&p, "centre.ca_file", "cannot read /nonexistent/ca.pem");
    let p = with("broker = \"http://c\"\nsite = \"s\"");
    assert_problem(
        &p,
        "centre.broker",
        "does not start with mqtt:// or mqtts://",
    );
    let p = with("broker = \"mqtt://c:0\"\nsite = \"s\"");
    assert_problem(&p, "centre.broker", "the port must be 1 to 65535");
    let p = with("broker = \"mqtt://c\"\nsite = \"Minsk 2026\"");
    assert_problem(&p, "centre.site", "a-z, 0-9, - and _");
    let p = with("broker = \"mqtt://c\"\nsite = \"s\"\npassword_file = \"/p\"");
    assert_problem(&p, "centre.password_file", "needs a user name");
    let p = with("broker = \"mqtt://c\"\nsite = \"s\"\nusername = \"u\"\npassword_file = \"p\"");
    assert_problem(&p, "centre.password_file", "not an absolute path");
    let p = with("broker = \"mqtt://c\"\nsite = \"s\"\nneighbours = [3, 4, 4, 0]");
    assert_problem(&p, "centre.neighbours[1]", "this lane itself");
    assert_problem(&p, "centre.neighbours[3]", "named twice");
    assert_problem(&p, "centre.neighbours[4]", "out of range");
    assert_eq!(p.len(), 3, "{p:?}");
    let p = with("broker = \"mqtt://c\"\nsite = \"s\"\nneighbours = [\"4\"]");
    assert_problem(&p, "centre.neighbours[1]", "must be a whole number");
    let p = with("broker = \"mqtt://c\"\nsite = \"s\"\nneighbour = [4]");
    assert_problem(&p, "centre.neighbour", "did you mean `neighbours`");
}

// ---------------------------------------------------------------------------
// [pinsetter] kind = "pin_switches"
// ---------------------------------------------------------------------------

/// The example's commented `[pinsetter.switches]`, uncommented.
fn example_switches_table() -> String {
    let text = std::fs::read_to_string(EXAMPLE).unwrap();
    let mut out = String::new();
    let mut inside = false;
    for line in text.lines() {
        if line == "# [pinsetter.switches]" {
            inside = true;
        } else if inside && !line.starts_with('#') {
            break;
        }
        if inside
            && let Some(value) = line.strip_prefix("# ")
            && value.contains(" = ")
        {
            out += value;
            out += "\n";
        }
    }
    out
}

/// The minimal lane with pin switches instead of a serial port.
fn with_switches(switches: &str) -> String {
    minimal().replace(
        "[pinsetter]\nport = \"/dev/ttyUSB0\"\n",
        &format!("[pinsetter]\nkind = \"pin_switches\"\n\n[pinsetter.switches]\n{switches}\n"),
    )
}

const TEN: &str = r#"pins = ["A0", "A1", "A2", "A3", "A4", "A5", "A6", "A7", "B0", "B1"]"#;

#[test]
fn the_examples_switches_table_states_every_key_with_its_default() {
    let table = example_switches_table();
    let config = parse(&with_switches(&table)).unwrap_or_else(|e| panic!("{e}\n{table}"));
    let switches = config.switches.clone().expect("pin switches");
    assert_eq!(switches.pins[0], SwitchPin::Expander(0));
    assert_eq!(switches.pins[9], SwitchPin::Expander(9));
    assert_eq!(switches.address, 0x20);
    assert_eq!(switches.settle, Duration::from_millis(600));
    // Every key the effective config writes is in the example's table, with
    // the same value: the example's values are the defaults (but the
    // wiring: pins, interrupt, cycle).
    let effective: toml::Table = toml::from_str(&config.to_toml()).unwrap();
    let written = effective["pinsetter"]["switches"]
        .as_table()
        .unwrap()
        .clone();
    let stated: toml::Table = toml::from_str(&table).unwrap();
    assert_eq!(stated, written);
    let defaults = parse(&with_switches(TEN)).unwrap().switches.unwrap();
    assert_eq!(
        defaults,
        lanecall::config::SwitchesConfig {
            pins: switches.pins,
            interrupt: None,
            cycle: None,
            ..switches.clone()
        }
    );
    // Every key [pinsetter.switches] knows is stated.
    for key in [
        "pins",
        "bus",
        "address",
        "interrupt",
        "active",
        "pull",
        "cycle",
        "cycle_active",
        "poll_ms",
        "debounce_ms",
        "settle_ms",
        "max_settle_ms",
        "flicker_changes",
    ] {
        assert!(stated.contains_key(key), "{key} not in the example");
    }
    // And round-trips.
    let again = parse(&config.to_toml()).unwrap();
    assert_eq!(again, config);
}

#[test]
fn a_serial_pinsetter_is_the_default_and_pin_switches_need_no_port() {
    let config = parse(&minimal()).unwrap();
    assert_eq!(config.switches, None);
    assert!(config.to_toml().contains("kind = \"serial\""));
    let config = parse(&with_switches(&format!("{TEN}\ninterrupt = 22\ncycle = 5"))).unwrap();
    let switches = config.switches.unwrap();
    assert_eq!(switches.interrupt, BcmPin::new(22));
    assert_eq!(switches.cycle, BcmPin::new(5).map(SwitchPin::Gpio));
    assert!(switches.uses_expander());
    // GPIO only.
    let gpio = "pins = [4, 5, 6, 7, 8, 9, 10, 11, 12, 13]";
    let config = parse(&with_switches(gpio)).unwrap();
    assert!(!config.switches.unwrap().uses_expander());
}

#[test]
fn bad_switches_are_named_by_their_key() {
    let p = problems(&with_switches(r#"pins = ["A0", "A1"]"#));
    assert_problem(&p, "pinsetter.switches.pins", "has 2 entries");
    let p = problems(&with_switches(
        r#"pins = ["A0", "A1", "C2", "A3", "A4", "A5", "A6", "A7", "B0", "A1"]"#,
    ));
    assert_problem(&p, "pinsetter.switches.pins[3]", "not an expander pin");
    assert_problem(&p, "pinsetter.switches.pins[10]", "already used by");
    // BCM 17 is the foul beam's in minimal().
    let p = problems(&with_switches(
        r#"pins = ["A0", "A1", 17, "A3", "A4", "A5", "A6", "A7", "B0", 40]"#,
    ));
    assert_problem(&p, "pinsetter.switches.pins[3]", "gpio.inputs.foul_beam");
    assert_problem(&p, "pinsetter.switches.pins[10]", "not a BCM GPIO number");
    let p = problems(&with_switches(&format!(
        "{TEN}\naddress = 0x30\nsettle_ms = 9000\nactive = \"up\"\npull = \"off\"\ncycle = \"A0\""
    )));
    assert_problem(&p, "pinsetter.switches.address", "0x20 to 0x27");
    assert_problem(&p, "pinsetter.switches.settle_ms", "max_settle_ms");
    assert_problem(&p, "pinsetter.switches.active", "\"up\" is not one of");
    assert_problem(&p, "pinsetter.switches.pull", "\"off\" is not one of");
    assert_problem(&p, "pinsetter.switches.cycle", "already used by");
    let p = problems(&with_switches(&format!("{TEN}\npins_x = 1\nbus = \"one\"")));
    assert_problem(&p, "pinsetter.switches.pins_x", "unknown key");
    assert_problem(&p, "pinsetter.switches.bus", "must be a whole number");
    // The kind and its table go together.
    let p = problems(&minimal().replace("port = \"/dev/ttyUSB0\"", "kind = \"pin_switches\""));
    assert_problem(&p, "pinsetter.switches", "is missing");
    let p = problems(&minimal().replace(
        "port = \"/dev/ttyUSB0\"\n",
        &format!("port = \"/dev/ttyUSB0\"\n[pinsetter.switches]\n{TEN}\n"),
    ));
    assert_problem(&p, "pinsetter.switches", "kind = \"pin_switches\"");
    let p = problems(&minimal().replace("port = \"/dev/ttyUSB0\"", "kind = \"reeds\""));
    assert_problem(&p, "pinsetter.kind", "\"reeds\" is not one of");
}

/// `[speaker] voice` names a voice installed in /usr/share/lanecall/voices
/// (its folder is then the voice's, as `voice_dir`'s), or "builtin"; a
/// name that is no folder's name, or both keys, is refused; a voice the
/// machine lacks is a site problem naming the voices it has; the printed
/// config says the name back.
#[test]
fn speaker_voice_names_an_installed_voice() {
    let with = |speaker: &str| format!("{}\n[speaker]\n{speaker}\n", minimal());
    let c = parse(&with("voice = \"rhvoice-elena\"")).unwrap();
    assert_eq!(
        c.speaker.voice_folder().as_deref(),
        Some(Path::new("/usr/share/lanecall/voices/rhvoice-elena"))
    );
    assert!(
        c.to_toml().contains("\nvoice = \"rhvoice-elena\"\n"),
        "{}",
        c.to_toml()
    );
    let builtin = parse(&with("voice = \"builtin\"")).unwrap();
    assert_eq!(builtin.speaker.voice_folder(), None);
    assert!(builtin.to_toml().contains("\nvoice = \"builtin\"\n"));
    for bad in ["../etc", "RHVoice", "", "a/b"] {
        let p = problems(&with(&format!("voice = {bad:?}")));
        assert_problem(
            &p,
            "speaker.voice",
            "the name of a voice installed in /usr/share/lanecall/voices",
        );
    }
    let p = problems(&with(
        "voice = \"rhvoice\"\nvoice_dir = \"/etc/lanecall/voice\"",
    ));
    assert_problem(&p, "speaker.voice", "keep one");

    let host = lanecall::config::Host::this();
    let text = with("voice = \"no-such-voice\"");
    let site = parse(&text).unwrap().site_check(&host, &text);
    assert!(
        site.problems.iter().any(|p| p.key == "speaker.voice"
            && p.message
                .contains("no voice \"no-such-voice\" in /usr/share/lanecall/voices (installed: ")),
        "{:?}",
        site.problems
    );
}

// ----- a journal that cannot survive a power cut ---------------------------

#[test]
fn a_journal_in_memory_is_refused_unless_allow_volatile_says_so() {
    // Left out: false, and printed so.
    let config = parse(&minimal()).unwrap();
    assert!(!config.journal.allow_volatile);
    assert!(
        config
            .to_toml()
            .contains("[journal]\nallow_volatile = false\n"),
        "{}",
        config.to_toml()
    );
    // Set: kept, and round-trips beside the mirror.
    let text = minimal().replace(
        "[pinsetter]",
        "[journal]\nmirror = \"/media/usb/lanecall\"\nallow_volatile = true\n\n[pinsetter]",
    );
    let config = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert!(config.journal.allow_volatile);
    assert_eq!(parse(&config.to_toml()).unwrap(), config);
    // A demo's state folder is often under /tmp: it is allowed there.
    let demo = Config::demo(
        PathBuf::from("/tmp/lanecall-demo"),
        "127.0.0.1:8080".parse().unwrap(),
        HASH.to_owned(),
    );
    assert!(demo.journal.allow_volatile);
    // Written as a string, it is named.
    one_problem(
        "[pinsetter]",
        "[journal]\nallow_volatile = \"yes\"\n[pinsetter]",
        "journal.allow_volatile",
        "must be true or false",
    );
}

#[test]
fn the_header_uart_is_named_for_each_pi() {
    use lanecall::config::header_uart;
    let pi5 = header_uart("Raspberry Pi 5 Model B Rev 1.0\0").unwrap();
    assert_eq!(pi5.path, "/dev/ttyAMA0");
    let zero = header_uart("Raspberry Pi Zero 2 W Rev 1.0\0").unwrap();
    assert_eq!(zero.path, "/dev/serial0");
    assert!(header_uart("QEMU Virtual Machine").is_none());
}

/// A file that says nothing of sessions and lockouts, and the centre's
/// page (which has no `[web]` keys for them), get the same defaults.
#[test]
fn the_lanes_web_defaults_are_the_centres() {
    use lanecall::web::AuthSettings;
    let lane = AuthSettings::from_config(&parse(&minimal()).unwrap());
    let centre = AuthSettings::with_pin_hash(HASH);
    assert_eq!(
        (lane.session, lane.idle, lane.lockout),
        (centre.session, centre.idle, centre.lockout)
    );
    assert_eq!(lane.session, std::time::Duration::from_secs(12 * 3600));
}

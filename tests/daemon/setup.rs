//! `lanecall setup` and `lanecall run` on the shipped placeholder PIN, as a
//! script runs them: answers on stdin, the built binary.

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_lanecall");
const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/config/lanecall.toml");

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn scratch(name: &str) -> crate::support::Scratch {
    crate::support::Scratch::new(&format!("setup-{name}"))
}

/// `lanecall setup ARGS` with `answers` on stdin (not a terminal).
fn setup(args: &[&str], answers: &str, path: Option<&str>) -> Output {
    let mut command = Command::new(BIN);
    command
        .arg("setup")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(path) = path {
        command.env("PATH", path);
    }
    let mut child = command.spawn().unwrap();
    // A refused answer ends the command before it reads the rest.
    let _ = child.stdin.take().unwrap().write_all(answers.as_bytes());
    child.wait_with_output().unwrap()
}

fn comments(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.trim_start().starts_with('#'))
        .collect()
}

/// The value of `key` in `[table]` of a TOML text.
fn value(text: &str, table: &str, key: &str) -> toml::Value {
    let t: toml::Table = toml::from_str(text).unwrap();
    let t = if table.is_empty() {
        &t
    } else {
        t[table].as_table().unwrap()
    };
    t[key].clone()
}

#[test]
fn setup_writes_the_answers_into_the_example_keeping_its_comments() {
    let dir = scratch("answers");
    let port = dir.join("ttyUSB-test");
    fs::write(&port, "").unwrap();
    let config = dir.join("lanecall.toml");
    fs::copy(EXAMPLE, &config).unwrap();
    fs::set_permissions(&config, fs::Permissions::from_mode(0o640)).unwrap();
    // Root keeps another owner's file theirs (the package's is root:lanecall).
    let root = rustix::process::geteuid().is_root();
    if root {
        std::os::unix::fs::chown(&config, Some(65534), Some(65534)).unwrap();
    }
    let answers = format!("12\n{}\n48291357\n48291357\nen\n", port.display());
    let out = setup(
        &["--config", config.to_str().unwrap(), "--no-start"],
        &answers,
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    let example = fs::read_to_string(EXAMPLE).unwrap();
    let written = fs::read_to_string(&config).unwrap();
    assert_eq!(comments(&written), comments(&example));
    // Only the four values' lines differ.
    let changed: Vec<(&str, &str)> = example
        .lines()
        .zip(written.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(example.lines().count(), written.lines().count());
    assert_eq!(changed.len(), 4, "{changed:#?}");
    assert_eq!(value(&written, "", "lane").as_integer(), Some(12));
    assert_eq!(value(&written, "pinsetter", "port").as_str(), port.to_str());
    assert_eq!(value(&written, "speaker", "language").as_str(), Some("en"));
    let hash = value(&written, "web", "judge_pin_hash");
    assert!(lanecall::web::verify_pin(
        "48291357",
        hash.as_str().unwrap()
    ));
    assert!(!lanecall::web::verify_pin(
        "48291356",
        hash.as_str().unwrap()
    ));
    let mode = fs::metadata(&config).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o640);
    if root {
        use std::os::unix::fs::MetadataExt;
        let meta = fs::metadata(&config).unwrap();
        assert_eq!((meta.uid(), meta.gid()), (65534, 65534));
    }

    // check-config takes it.
    let check = Command::new(BIN)
        .arg("check-config")
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));

    // With flags and no config yet: the example embedded in the binary;
    // only the PIN is read, twice.
    let fresh = dir.join("etc").join("lanecall.toml");
    let out = setup(
        &[
            "--config",
            fresh.to_str().unwrap(),
            "--lane",
            "3",
            "--port",
            port.to_str().unwrap(),
            "--language",
            "ru",
            "--no-start",
        ],
        "654321\n654321\n",
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let written = fs::read_to_string(&fresh).unwrap();
    assert_eq!(comments(&written), comments(&example));
    assert_eq!(value(&written, "", "lane").as_integer(), Some(3));
    let hash = value(&written, "web", "judge_pin_hash");
    assert!(lanecall::web::verify_pin("654321", hash.as_str().unwrap()));
}

#[test]
fn setup_run_again_keeps_every_value_on_enter_even_an_unplugged_port() {
    let dir = scratch("again");
    let port = dir.join("ttyUSB-gone");
    fs::write(&port, "").unwrap();
    let config = dir.join("lanecall.toml");
    let first = setup(
        &["--config", config.to_str().unwrap(), "--no-start"],
        &format!("7\n{}\n48291357\n48291357\nen\n", port.display()),
        None,
    );
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let before = fs::read_to_string(&config).unwrap();
    // The adapter unplugged: Enter to every question keeps what is there.
    fs::remove_file(&port).unwrap();
    let again = setup(
        &["--config", config.to_str().unwrap(), "--no-start"],
        "\n\n\n\n",
        None,
    );
    let stdout = text(&again.stdout);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}\n{stdout}",
        text(&again.stderr)
    );
    assert!(
        stdout.contains(&format!(
            "Pinsetter port (a number above or a path) [{}]",
            port.display()
        )),
        "{stdout}"
    );
    assert!(stdout.contains("Lane number [7]"), "{stdout}");
    assert!(stdout.contains("kept as configured"), "{stdout}");
    assert_eq!(fs::read_to_string(&config).unwrap(), before);
}

#[test]
fn a_pin_switch_lane_is_not_asked_for_a_serial_port() {
    let dir = scratch("switches");
    let config = dir.join("lanecall.toml");
    let example = fs::read_to_string(EXAMPLE).unwrap();
    let switches = example
        .replace("kind = \"serial\"", "kind = \"pin_switches\"")
        .replace("# [pinsetter.switches]", "[pinsetter.switches]")
        .replace("# pins = [", "pins = [");
    assert_ne!(switches, example);
    fs::write(&config, &switches).unwrap();
    let args = ["--config", config.to_str().unwrap(), "--no-start"];

    // Lane, PIN twice, language: no port among the questions.
    let out = setup(&args, "5\n48291357\n48291357\nru\n", None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("pin switches"),
        "{}",
        text(&out.stdout)
    );
    let written = fs::read_to_string(&config).unwrap();
    assert_eq!(value(&written, "", "lane").as_integer(), Some(5));
    assert_eq!(
        value(&written, "pinsetter", "port"),
        value(&switches, "pinsetter", "port")
    );

    // A port given for it is named as the mistake; the file stays.
    let mut with_port = args.to_vec();
    with_port.extend(["--port", "/dev/ttyUSB0"]);
    let out = setup(&with_port, "5\n48291357\n48291357\nru\n", None);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        text(&out.stderr).contains("pinsetter.port: this lane reads its pinsetter's pin switches"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(fs::read_to_string(&config).unwrap(), written);
}

#[test]
fn setup_refuses_a_bad_answer_and_leaves_the_old_file() {
    let dir = scratch("refuse");
    let port = dir.join("ttyUSB-test");
    fs::write(&port, "").unwrap();
    let config = dir.join("lanecall.toml");
    fs::copy(EXAMPLE, &config).unwrap();
    let before = fs::read(&config).unwrap();
    let p = port.to_str().unwrap();
    let c = config.to_str().unwrap();
    let cases: [(&[&str], String, &str); 6] = [
        (
            &[],
            format!("12\n{p}\n12345\n"),
            "web.judge_pin_hash: a PIN is 6 to 12 digits",
        ),
        (
            &[],
            format!("12\n{p}\n12ab56\n"),
            "web.judge_pin_hash: a PIN is 6 to 12 digits",
        ),
        (
            &[],
            format!("12\n{p}\n123456\n123465\n"),
            "web.judge_pin_hash: the two PINs differ",
        ),
        (&[], format!("1000\n{p}\n123456\n123456\nen\n"), "lane: "),
        (
            &["--lane", "0"],
            format!("{p}\n123456\n123456\nen\n"),
            "lane: ",
        ),
        (
            &["--port", "/dev/ttyUSB-lanecall-none"],
            "12\n123456\n123456\nen\n".into(),
            "pinsetter.port: /dev/ttyUSB-lanecall-none does not exist",
        ),
    ];
    for (args, answers, wanted) in cases {
        let mut all = vec!["--config", c, "--no-start"];
        all.extend(args);
        let out = setup(&all, &answers, None);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?} {answers:?}: {stderr}");
        assert!(stderr.contains(wanted), "{wanted}: {stderr}");
        assert_eq!(fs::read(&config).unwrap(), before, "{args:?} {answers:?}");
    }
    // Nothing left beside it.
    let names: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");

    // A name under /dev/serial/by-id/ is kept before the adapter is
    // plugged in, with a warning.
    let by_id = "/dev/serial/by-id/usb-FTDI_lanecall_test-if00-port0";
    let out = setup(
        &["--config", c, "--no-start", "--port", by_id],
        "12\n123456\n123456\nen\n",
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("warning: pinsetter.port:"));
    let written = fs::read_to_string(&config).unwrap();
    assert_eq!(value(&written, "pinsetter", "port").as_str(), Some(by_id));
}

/// A `systemctl` that writes its arguments to a file and exits `code`.
fn fake_systemctl(dir: &Path, code: i32) -> PathBuf {
    let bin = dir.join("bin");
    fs::create_dir_all(&bin).unwrap();
    let script = bin.join("systemctl");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$@\" >> {:?}\nexit {code}\n",
            dir.join("calls")
        ),
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

#[test]
fn setup_enables_and_restarts_the_service_or_says_what_to_run() {
    let dir = scratch("start");
    let port = dir.join("ttyUSB-test");
    fs::write(&port, "").unwrap();
    let config = dir.join("lanecall.toml");
    let args = [
        "--config",
        config.to_str().unwrap(),
        "--lane",
        "5",
        "--port",
        port.to_str().unwrap(),
        "--language",
        "en",
    ];
    let bin = fake_systemctl(&dir, 0);
    let out = setup(&args, "123456\n123456\n", bin.to_str());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        fs::read_to_string(dir.join("calls")).unwrap(),
        "enable lanecall\nrestart lanecall\n"
    );

    // systemctl fails: said, with what to run; the config is written.
    fs::remove_file(&config).unwrap();
    let bin = fake_systemctl(&dir, 1);
    let out = setup(&args, "123456\n123456\n", bin.to_str());
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("systemctl enable lanecall failed")
            && stderr.contains("sudo systemctl enable --now lanecall"),
        "{stderr}"
    );
    assert!(config.exists());

    // No systemctl at all.
    let out = setup(&args, "123456\n123456\n", Some("/nonexistent"));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot run systemctl enable lanecall")
            && stderr.contains("sudo systemctl enable --now lanecall"),
        "{stderr}"
    );
}

#[test]
fn run_refuses_the_placeholder_pin_naming_setup() {
    let out = Command::new(BIN)
        .args(["run", "--config", EXAMPLE])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(78), "{stderr}");
    assert!(
        stderr.contains("web.judge_pin_hash is the example's placeholder")
            && stderr.contains("sudo lanecall setup"),
        "{stderr}"
    );

    // A judge of their own with the placeholder: the same.
    let dir = scratch("run");
    let config = config_with_a_placeholder_judge(&dir);
    let out = Command::new(BIN)
        .arg("run")
        .arg("--config")
        .arg(&config)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(78), "{stderr}");
    assert!(
        stderr.contains("web.judges[1].pin_hash is the example's placeholder"),
        "{stderr}"
    );
}

#[test]
fn the_unit_does_not_restart_on_exit_78() {
    let unit = include_str!("../../systemd/lanecall.service");
    assert!(
        unit.lines().any(|l| l == "RestartPreventExitStatus=78"),
        "{unit}"
    );
}

/// The devices the service may open: the GPIO, the sound cards and the
/// serial ports `setup` lists (USB adapters, the Pi's PL011 UARTs and its
/// mini-UART ttyS0, a PC's ttyS1), and not the consoles that share
/// ttyS's major number.
#[test]
fn the_unit_allows_the_serial_ports_setup_offers_and_no_console() {
    let unit = include_str!("../../systemd/lanecall.service");
    let allowed: Vec<&str> = unit
        .lines()
        .filter_map(|l| l.strip_prefix("DeviceAllow="))
        .collect();
    let serial: Vec<&str> = allowed
        .iter()
        .copied()
        .filter(|d| d.contains("tty") || d.contains("serial"))
        .collect();
    assert_eq!(
        serial,
        [
            "char-ttyUSB rw",
            "char-ttyACM rw",
            "char-ttyAMA rw",
            "/dev/ttyS0 rw",
            "/dev/ttyS1 rw"
        ]
    );
    assert!(unit.lines().any(|l| l == "DevicePolicy=closed"));
    assert!(
        !allowed
            .iter()
            .any(|d| d.starts_with("char-tty ") || d.starts_with("char-ttyS "))
    );
}

/// What the service opens for a string pinsetter's expander, the unit as
/// shipped allows: the I2C buses' devices, the group that owns them (which
/// the package's sysusers file makes the lanecall user a member of, as it
/// does for every group the unit names), and i2c-dev loaded at boot, before
/// the service looks its major number up.
#[test]
fn the_unit_lets_the_service_open_the_expanders_bus() {
    let unit = include_str!("../../systemd/lanecall.service");
    let sysusers = include_str!("../../packaging/lanecall.sysusers");
    let modules = include_str!("../../packaging/modules-load.conf");
    let rules = include_str!("../../packaging/lanecall-gpio.rules");
    assert!(
        unit.lines().any(|l| l == "DeviceAllow=char-i2c rw"),
        "{unit}"
    );
    let groups: Vec<&str> = unit
        .lines()
        .find_map(|l| l.strip_prefix("SupplementaryGroups="))
        .expect("SupplementaryGroups=")
        .split_whitespace()
        .collect();
    assert!(groups.contains(&"i2c"), "{groups:?}");
    for group in groups {
        assert!(
            sysusers.lines().any(|l| l == format!("m lanecall {group}")),
            "the unit names group {group}, which sysusers does not give lanecall"
        );
    }
    assert!(sysusers.lines().any(|l| l == "g i2c -"), "{sysusers}");
    assert!(modules.lines().any(|l| l == "i2c-dev"), "{modules}");
    assert!(
        rules
            .lines()
            .any(|l| l.contains("SUBSYSTEM==\"i2c-dev\"") && l.contains("GROUP=\"i2c\"")),
        "{rules}"
    );
}

/// Reads the terminal's screen until it shows `wanted`, for up to 20 s.
fn screen_until(master: &mut serialport::TTYPort, screen: &mut String, wanted: &str) {
    use std::io::Read;
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut buf = [0u8; 4096];
    while !screen.contains(wanted) {
        assert!(
            std::time::Instant::now() < until,
            "no {wanted:?} in {screen:?}"
        );
        if let Ok(n) = master.read(&mut buf) {
            screen.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    }
}

#[test]
fn at_a_terminal_the_pin_is_not_echoed_and_a_bad_answer_is_asked_again() {
    use rustix::termios::{self, LocalModes, OptionalActions};
    use serialport::SerialPort;
    let dir = scratch("terminal");
    let port = dir.join("ttyUSB-test");
    fs::write(&port, "").unwrap();
    let config = dir.join("lanecall.toml");
    let (mut master, slave) = serialport::TTYPort::pair().expect("a pseudo-terminal pair");
    master
        .set_timeout(std::time::Duration::from_millis(100))
        .unwrap();
    let tty = slave.name().unwrap();
    // A terminal as a person has it: lines, echoed.
    let stdin = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&tty)
        .unwrap();
    let mut modes = termios::tcgetattr(&stdin).unwrap();
    modes.local_modes |= LocalModes::ECHO | LocalModes::ICANON;
    termios::tcsetattr(&stdin, OptionalActions::Now, &modes).unwrap();
    let child = Command::new(BIN)
        .arg("setup")
        .arg("--config")
        .arg(&config)
        .arg("--no-start")
        .stdin(stdin.try_clone().unwrap())
        .stdout(stdin.try_clone().unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut screen = String::new();
    let answer = |master: &mut serialport::TTYPort, screen: &mut String, q: &str, a: &str| {
        screen_until(master, screen, q);
        master.write_all(format!("{a}\n").as_bytes()).unwrap();
    };
    answer(&mut master, &mut screen, "Lane number [7]: ", "1000");
    // Asked again, with what is wrong.
    answer(&mut master, &mut screen, "lane: ", "12");
    answer(
        &mut master,
        &mut screen,
        "Pinsetter port",
        port.to_str().unwrap(),
    );
    answer(
        &mut master,
        &mut screen,
        "Judge PIN, 6 to 12 digits: ",
        "48291357",
    );
    answer(&mut master, &mut screen, "The same PIN again: ", "48291350");
    screen_until(&mut master, &mut screen, "the two PINs differ");
    // What follows it: the PIN asked again.
    let differ = screen.find("the two PINs differ").unwrap();
    let mut transcript: String = screen.drain(..differ).collect();
    answer(
        &mut master,
        &mut screen,
        "Judge PIN, 6 to 12 digits: ",
        "48291357",
    );
    answer(&mut master, &mut screen, "The same PIN again: ", "48291357");
    answer(&mut master, &mut screen, "Callout language", "en");
    screen_until(&mut master, &mut screen, "Wrote ");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    transcript.push_str(&screen);
    let screen = transcript;
    assert!(
        !screen.contains("48291357") && !screen.contains("48291350"),
        "the PIN was echoed: {screen:?}"
    );
    // The language was echoed as typed: the terminal echoes when asked to.
    assert!(screen.contains("en\n"), "{screen:?}");
    let written = fs::read_to_string(&config).unwrap();
    assert_eq!(value(&written, "", "lane").as_integer(), Some(12));
    let hash = value(&written, "web", "judge_pin_hash");
    assert!(lanecall::web::verify_pin(
        "48291357",
        hash.as_str().unwrap()
    ));
}

#[test]
fn setup_leaves_a_config_others_could_read_0640() {
    let dir = scratch("mode");
    let port = dir.join("ttyUSB-test");
    fs::write(&port, "").unwrap();
    let config = dir.join("lanecall.toml");
    fs::copy(EXAMPLE, &config).unwrap();
    fs::set_permissions(&config, fs::Permissions::from_mode(0o644)).unwrap();
    let answers = format!("12\n{}\n48291357\n48291357\nen\n", port.display());
    let out = setup(
        &["--config", config.to_str().unwrap(), "--no-start"],
        &answers,
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let mode = fs::metadata(&config).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o640, "{mode:o}");
}

#[test]
fn check_config_and_run_warn_when_others_may_read_the_config() {
    let dir = scratch("warn");
    let config = config_with_a_placeholder_judge(&dir);
    let full = fs::read_to_string(&config).unwrap();
    let (without_judge, judge) = full.split_at(full.find("[[web.judges]]").unwrap());
    fs::write(&config, without_judge).unwrap();
    let chmod = format!("chmod 640 {}", config.display());
    let check = |mode: u32| {
        fs::set_permissions(&config, fs::Permissions::from_mode(mode)).unwrap();
        Command::new(BIN)
            .arg("check-config")
            .arg(&config)
            .output()
            .unwrap()
    };
    let open = check(0o644);
    let stderr = text(&open.stderr);
    assert!(
        stderr.contains("warning:") && stderr.contains("(mode 0644)") && stderr.contains(&chmod),
        "{stderr}"
    );
    let closed = check(0o640);
    assert!(
        !text(&closed.stderr).contains("warning:"),
        "{}",
        text(&closed.stderr)
    );
    assert_eq!(
        open.status.code(),
        closed.status.code(),
        "a warning, not a problem"
    );

    // `run` logs it as a WARN (and here stops at the placeholder PIN).
    fs::write(&config, format!("{without_judge}{judge}")).unwrap();
    fs::set_permissions(&config, fs::Permissions::from_mode(0o604)).unwrap();
    let out = Command::new(BIN)
        .arg("run")
        .arg("--config")
        .arg(&config)
        .env_remove("JOURNAL_STREAM")
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(78), "{stderr}");
    assert!(
        stderr.contains("WARN") && stderr.contains(&chmod),
        "{stderr}"
    );
}

/// A lane's config in `dir` with a real judge PIN and a `[[web.judges]]`
/// judge whose PIN hash is the example's placeholder (its section last).
fn config_with_a_placeholder_judge(dir: &Path) -> PathBuf {
    let placeholder = value(
        &fs::read_to_string(EXAMPLE).unwrap(),
        "web",
        "judge_pin_hash",
    );
    let real = lanecall::web::hash_pin("482913").unwrap();
    let config = dir.join("lanecall.toml");
    fs::write(
        &config,
        format!(
            "lane = 2\nstate_dir = {dir:?}\n[pinsetter]\nport = \"/dev/null\"\n[gpio]\n\
             backend = \"none\"\n[web]\nlisten = \"127.0.0.1:0\"\njudge_pin_hash = {real:?}\n\
             [[web.judges]]\nname = \"Judge Orlova\"\npin_hash = {placeholder}\n"
        ),
    )
    .unwrap();
    config
}

/// Without a sound card (this build machine, a bench) the speaker's step
/// is one line, and the rest of setup goes on.
#[test]
fn without_a_sound_card_setup_says_so_in_one_line_and_goes_on() {
    if Path::new("/proc/asound/cards").exists() {
        eprintln!("skipped: this machine lists sound cards");
        return;
    }
    let dir = scratch("no-card");
    let port = dir.join("ttyUSB-test");
    fs::write(&port, "").unwrap();
    let config = dir.join("lanecall.toml");
    let out = setup(
        &["--config", config.to_str().unwrap(), "--no-start"],
        &format!("4\n{}\n48291357\n48291357\nen\n", port.display()),
        None,
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said: Vec<&str> = stdout
        .lines()
        .filter(|l| l.to_lowercase().contains("sound card"))
        .collect();
    assert_eq!(
        said,
        [
            "No sound card found: [speaker] device stays \"auto\" (the lane speaks once one is \
          plugged in)."
        ],
        "{stdout}"
    );
    let written = fs::read_to_string(&config).unwrap();
    assert_eq!(value(&written, "speaker", "device").as_str(), Some("auto"));
}

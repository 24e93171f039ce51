//! The command line as a technician meets it: the built binary run as a
//! shell would run it, its help, its exit codes and what it prints.

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_lanecall");
const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/config/lanecall.toml");

fn lanecall(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("lanecall runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh folder for one test, readable by every user (a test runs the
/// binary as `nobody` when it is root).
fn scratch(name: &str) -> crate::support::Scratch {
    crate::support::Scratch::new(&format!("cli-{name}"))
}

/// A config of a lane with no GPIO, listening on `listen`.
fn config(dir: &Path, listen: &str, port: &str) -> PathBuf {
    let hash = lanecall::web::hash_pin("482913").unwrap();
    let path = dir.join("lanecall.toml");
    fs::write(
        &path,
        format!(
            "lane = 2\nstate_dir = {dir:?}\n[pinsetter]\nport = {port:?}\n[gpio]\n\
             backend = \"none\"\n[web]\nlisten = {listen:?}\njudge_pin_hash = {hash:?}\n"
        ),
    )
    .unwrap();
    path
}

/// The shipped example, written into `dir` with a real PIN's hash in
/// place of its placeholder.
fn example_with_a_pin(dir: &Path) -> PathBuf {
    let real = lanecall::web::hash_pin("482913").unwrap();
    let example = lanecall::config::Config::load(Path::new(EXAMPLE)).unwrap();
    let placeholder = example.web.judge_pin_hash.unwrap();
    let file = dir.join("lanecall.toml");
    let shipped = fs::read_to_string(EXAMPLE).unwrap();
    fs::write(&file, shipped.replace(&placeholder, &real)).unwrap();
    file
}

// ----- help -------------------------------------------------------------------

/// The entries of the `Arguments:` and `Options:` sections of a help text,
/// each as (what is typed, what the help says of it, without the
/// `[default: …]` and `[possible values: …]` clap adds).
fn entries(help: &str) -> Vec<(String, String)> {
    let mut entries: Vec<(String, String)> = Vec::new();
    let mut in_section = false;
    for line in help.lines() {
        if line == "Arguments:" || line == "Options:" {
            in_section = true;
            continue;
        }
        if !line.starts_with(' ') {
            in_section = false;
            continue;
        }
        if !in_section || line.trim().is_empty() {
            continue;
        }
        let body = line.trim_start();
        let indent = line.len() - body.len();
        let starts_entry = indent <= 6 && (body.starts_with('-') || body.starts_with(['<', '[']));
        if starts_entry {
            let (spec, said) = body.split_once("  ").unwrap_or((body, ""));
            entries.push((spec.to_owned(), said.trim().to_owned()));
        } else if let Some(last) = entries.last_mut() {
            // Help on the next line, or wrapped.
            last.1.push(' ');
            last.1.push_str(body);
        }
    }
    for (_, said) in &mut entries {
        for bracket in ["[default: ", "[possible values: "] {
            while let Some(start) = said.find(bracket) {
                let end = said[start..]
                    .find(']')
                    .map_or(said.len(), |e| start + e + 1);
                said.replace_range(start..end, "");
            }
        }
        *said = said.trim().to_owned();
    }
    entries
}

#[test]
fn every_option_and_argument_of_every_command_has_help() {
    let top = lanecall(&["help"]);
    assert!(top.status.success());
    let top = text(&top.stdout);
    let commands: Vec<String> = top
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect();
    for command in [
        "replay",
        "run",
        "demo",
        "check-config",
        "say",
        "monitor",
        "simulate",
    ] {
        assert!(commands.iter().any(|c| c == command), "{command}: {top}");
    }
    let mut missing = Vec::new();
    for command in &commands {
        let out = lanecall(&["help", command]);
        assert!(out.status.success(), "lanecall help {command}");
        let help = text(&out.stdout);
        let entries = entries(&help);
        assert!(
            entries.iter().any(|(spec, _)| spec.contains("--help")),
            "{command}: no options read from\n{help}"
        );
        for (spec, said) in entries {
            if said.is_empty() {
                missing.push(format!("lanecall {command} {spec}"));
            }
        }
    }
    assert!(missing.is_empty(), "without help: {missing:#?}");
}

#[test]
fn the_help_reader_sees_an_option_without_help() {
    let help = "Usage: x\n\nArguments:\n  <PATH>  \n\nOptions:\n      --config <CONFIG>  [default: /etc/x]\n      --seed <SEED>      Same seed [default: 1]\n  -h, --help             Print help\n";
    let entries = entries(help);
    assert_eq!(
        entries,
        [
            ("<PATH>".to_owned(), String::new()),
            ("--config <CONFIG>".to_owned(), String::new()),
            ("--seed <SEED>".to_owned(), "Same seed".to_owned()),
            ("-h, --help".to_owned(), "Print help".to_owned()),
        ]
    );
}

// ----- check-config -------------------------------------------------------------

/// `config/centre.toml` is a centre's config, every key documented:
/// `check-config` tells it from a lane's, refuses only its placeholder PIN
/// as shipped, and with a real PIN and a programme says what the centre
/// will use; a typo in a key is named with the nearest one.
#[test]
fn check_config_reads_the_shipped_centre_config_as_a_centres() {
    const CENTRE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/config/centre.toml");
    const PROGRAMME: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/programme/example.toml");
    // As installed: its broker's logins file there (the shipped path names
    // one this machine has not).
    let dir = scratch("centre");
    let logins = dir.join("mqtt-passwords");
    fs::write(&logins, "lane1:secret\n").unwrap();
    fs::set_permissions(&logins, std::os::unix::fs::PermissionsExt::from_mode(0o640)).unwrap();
    let shipped = fs::read_to_string(CENTRE).unwrap().replace(
        "passwords = \"/etc/lanecall/mqtt-passwords\"",
        &format!("passwords = {logins:?}"),
    );
    let installed = dir.join("installed.toml");
    fs::write(&installed, &shipped).unwrap();
    let out = lanecall(&["check-config", "--config", installed.to_str().unwrap()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let line = shipped
        .lines()
        .position(|l| l.starts_with("judge_pin_hash = "))
        .unwrap()
        + 1;
    assert!(
        stderr.contains("web.judge_pin_hash: it is the example's placeholder, which no PIN opens")
            && stderr.contains(&format!("(line {line})")),
        "{stderr}"
    );
    // That alone: nothing of a lane's config is asked for.
    let problems = stderr.lines().filter(|l| !l.starts_with("warning:"));
    assert_eq!(problems.count(), 1, "{stderr}");

    let placeholder = shipped
        .lines()
        .find_map(|l| l.strip_prefix("judge_pin_hash = \""))
        .and_then(|l| l.strip_suffix('"'))
        .unwrap();
    let real = lanecall::web::hash_pin("482913").unwrap();
    let file = dir.join("centre.toml");
    let ours = shipped.replace(placeholder, &real).replace(
        "# programme = \"/etc/lanecall/programme.toml\"",
        &format!("programme = \"{PROGRAMME}\""),
    );
    fs::write(&file, &ours).unwrap();
    let out = lanecall(&["check-config", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for want in [
        "a centre's config: site \"minsk-2026\"",
        "broker: the embedded one on 0.0.0.0:1883",
        "lanes: 1, 2, 3, 4, 5, 6",
        "6 entries",
    ] {
        assert!(stdout.contains(want), "{want}: {stdout}");
    }

    fs::write(&file, ours.replace("embedded_listen", "embeded_listen")).unwrap();
    let out = lanecall(&["check-config", file.to_str().unwrap()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("did you mean `embedded_listen`?"),
        "{stderr}"
    );
}

#[test]
fn check_config_refuses_the_shipped_placeholder_pin_with_no_environment() {
    // As `env -i lanecall check-config --config config/lanecall.toml`: no
    // PATH, no HOME.
    let out = Command::new(BIN)
        .env_clear()
        .args(["check-config", "--config", EXAMPLE])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let line = fs::read_to_string(EXAMPLE)
        .unwrap()
        .lines()
        .position(|l| l.starts_with("judge_pin_hash = "))
        .unwrap()
        + 1;
    assert!(
        stderr.contains("web.judge_pin_hash: it is the example's placeholder")
            && stderr.contains("run `lanecall hash-pin PIN`")
            && stderr.contains(&format!("(line {line}, column 1)")),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));

    // With a real hash in its place, the same file passes, still without
    // PATH, and the effective config is printed.
    let dir = scratch("example");
    let file = example_with_a_pin(&dir);
    let real = lanecall::config::Config::load(&file)
        .unwrap()
        .web
        .judge_pin_hash
        .unwrap();
    let out = Command::new(BIN)
        .env_clear()
        .arg("check-config")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("# The effective configuration")
            && stdout.contains(&format!("judge_pin_hash = \"{real}\"")),
        "{stdout}"
    );
}

/// Runs `check-config` as a user without capabilities: `nobody` when the
/// tests run as root, else the user running them.
fn check_config_unprivileged(file: &Path) -> Output {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(BIN);
    command.arg("check-config").arg(file);
    if rustix::process::getuid().is_root() {
        command.uid(65534).gid(65534);
    }
    command.output().unwrap()
}

#[test]
fn check_config_refuses_a_low_port_this_process_may_not_bind() {
    let dir = scratch("port");
    let low = config(&dir, "0.0.0.0:80", "/dev/ttyUSB0");
    let out = check_config_unprivileged(&low);
    let stderr = text(&out.stderr);
    // What the machine allows decides: a kernel that lets anyone bind port
    // 80, or an installed unit that gives the service the capability.
    let host = lanecall::config::Host::this();
    if host.unprivileged_port_start <= 80 {
        assert_eq!(out.status.code(), Some(0), "{stderr}");
    } else if let Some(unit) = host.unit_grant {
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert!(
            stderr.contains("note: web.listen") && stderr.contains(&*unit.to_string_lossy()),
            "{stderr}"
        );
    } else {
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("web.listen: port 80 is below")
                && stderr.contains("lacks CAP_NET_BIND_SERVICE (CapEff in /proc/self/status)")
                && stderr.contains("AmbientCapabilities=CAP_NET_BIND_SERVICE")
                && stderr.contains("listen = \"0.0.0.0:8080\"")
                && stderr.contains("(line 8, column 1)"),
            "{stderr}"
        );
    }
    // Port 8080 needs no capability.
    let high = config(&dir, "0.0.0.0:8080", "/dev/ttyUSB0");
    let out = check_config_unprivileged(&high);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn check_config_takes_the_path_either_way() {
    let dir = scratch("path");
    let file = config(&dir, "127.0.0.1:8080", "/dev/ttyUSB0");
    let file = file.to_str().unwrap();
    let positional = lanecall(&["check-config", file]);
    let option = lanecall(&["check-config", "--config", file]);
    assert_eq!(positional.status.code(), Some(0));
    assert_eq!(option.status.code(), Some(0));
    assert_eq!(positional.stdout, option.stdout);
    let both = lanecall(&["check-config", file, "--config", file]);
    assert_eq!(both.status.code(), Some(2), "{}", text(&both.stderr));
}

// ----- say ----------------------------------------------------------------------

/// The samples of a mono 16-bit WAV file as `write_wav` writes it.
fn wav_samples(path: &Path) -> Vec<i16> {
    let bytes = fs::read(path).unwrap();
    assert_eq!(&bytes[..4], b"RIFF");
    bytes[44..]
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect()
}

/// `voice check` names what a folder of recordings lacks and what is
/// wrong with a clip; `voice normalise` brings the loudness together, and
/// a folder it cannot read exits 2.
#[test]
fn voice_check_names_each_problem_and_normalise_evens_the_loudness() {
    let dir = scratch("voice");
    let pack = dir.join("ru");
    fs::create_dir_all(&pack).unwrap();
    let builtin = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/voice/ru");
    for entry in fs::read_dir(&builtin).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, pack.join(path.file_name().unwrap())).unwrap();
    }
    fs::remove_file(pack.join("split.wav")).unwrap();
    fs::write(pack.join("notes.wav"), b"").unwrap();
    // n7 twelve dB quieter, with 200 ms of silence before it.
    let mut n7 = wav_samples(&pack.join("n7.wav"));
    n7.iter_mut().for_each(|s| *s /= 4);
    let mut quiet = vec![0i16; 4410];
    quiet.extend(n7);
    lanecall::speaker::player::write_wav(&pack.join("n7.wav"), 22_050, &quiet).unwrap();

    let out = lanecall(&["voice", "check", pack.to_str().unwrap()]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("missing (the built-in voice says them): split"),
        "{stdout}"
    );
    assert!(
        stdout.contains("not a clip, never played: notes.wav"),
        "{stdout}"
    );
    assert!(
        stderr.contains("n7.wav: 204 ms of silence before the voice"),
        "{stderr}"
    );
    assert!(
        stderr.contains("LU apart: at most 3 LU") && stderr.contains("n7 -1"),
        "{stderr}"
    );

    let out = lanecall(&["voice", "normalise", pack.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = lanecall(&["voice", "check", pack.to_str().unwrap()]);
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("LU apart"), "{stderr}");
    assert!(
        stderr.contains("ms of silence before the voice"),
        "{stderr}"
    );

    let out = lanecall(&["voice", "check", dir.join("nowhere").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

#[test]
fn say_names_what_it_wrote_and_keeps_to_the_volume_range() {
    let dir = scratch("say");
    let full = dir.join("full.wav");
    let out = lanecall(&["say", "--out", full.to_str().unwrap(), "7", "10", "split"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(
        stdout.starts_with(&format!(
            "Wrote {}: n7, n10, split (3 word(s), ",
            full.display()
        )) && stdout.contains("ru, volume 1)"),
        "{stdout}"
    );

    // The volume is applied to the file as the speaker applies it.
    let half = dir.join("half.wav");
    let out = lanecall(&[
        "say",
        "--volume",
        "0.5",
        "--out",
        half.to_str().unwrap(),
        "7",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains(": n7 (1 word(s), "));
    let one = dir.join("one.wav");
    assert!(
        lanecall(&["say", "--out", one.to_str().unwrap(), "7"])
            .status
            .success()
    );
    let (loud, quiet) = (wav_samples(&one), wav_samples(&half));
    assert_eq!(loud.len(), quiet.len());
    assert!(loud.iter().any(|&s| s != 0));
    for (l, q) in loud.iter().zip(&quiet) {
        assert!(
            (f32::from(*l) * 0.5 - f32::from(*q)).abs() <= 0.5,
            "{l} {q}"
        );
    }

    // [speaker] volume's range, 0.0 to 2.0, here too.
    for bad in ["2.5", "-0.1", "loud"] {
        let out = lanecall(&["say", "--volume", bad, "--out", "/dev/null", "7"]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {stderr}");
        assert!(stderr.contains("use 0.0 to 2.0"), "{bad}: {stderr}");
    }
}

// ----- monitor ------------------------------------------------------------------

#[test]
fn monitor_says_the_port_is_missing_and_fails() {
    let dir = scratch("monitor");
    let port = dir.join("ttyUSB-not-plugged");
    let file = config(&dir, "127.0.0.1:8080", port.to_str().unwrap());
    let mut child = Command::new(BIN)
        .args(["monitor", "--config"])
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = support::eventually("the monitor to end on a port that does not exist", || {
        child.try_wait().unwrap()
    });
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the pinsetter port {} ([pinsetter] port in {}) does not exist",
            port.display(),
            file.display()
        )),
        "{stderr}"
    );
}

// ----- hash-pin -----------------------------------------------------------------

#[test]
fn hash_pin_reads_the_pin_from_stdin_when_not_given() {
    use std::io::Write;
    let hash_of = |input: &[u8]| {
        let mut child = Command::new(BIN)
            .arg("hash-pin")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input).unwrap();
        child.wait_with_output().unwrap()
    };
    let out = hash_of(b"482913\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Only the hash on stdout (no prompt: stdin is no terminal), and one
    // the PIN opens.
    let hash = text(&out.stdout);
    assert_eq!(hash.lines().count(), 1, "{hash}");
    assert!(lanecall::web::verify_pin("482913", hash.trim()), "{hash}");
    assert!(!lanecall::web::verify_pin("482914", hash.trim()));
    let out = hash_of(b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no PIN given"),
        "{}",
        text(&out.stderr)
    );
    let out = hash_of(b"12ab56\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
}

// ----- run, centre ---------------------------------------------------------------

#[test]
fn run_and_centre_say_a_config_they_cannot_read_once_and_exit_78() {
    let dir = scratch("missing-config");
    let file = dir.join("lanecall.toml");
    for command in ["run", "centre"] {
        let out = lanecall(&[command, "--config", file.to_str().unwrap()]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(78), "{command}: {stderr}");
        let wanted = format!("lanecall {command}: cannot read {}", file.display());
        assert_eq!(stderr.matches(&wanted).count(), 1, "{command}: {stderr}");
        assert_eq!(
            stderr.matches("cannot read").count(),
            1,
            "{command}: {stderr}"
        );
    }
}

#[test]
fn a_centre_that_cannot_start_says_why_once() {
    let dir = scratch("centre-port");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap();
    let file = dir.join("centre.toml");
    fs::write(
        &file,
        format!(
            "site = \"cup\"\nstate_dir = {dir:?}\nbroker = \"mqtt://127.0.0.1:1\"\n\
             [web]\nlisten = \"{addr}\"\njudge_pin_hash = {:?}\n",
            lanecall::web::hash_pin("482913").unwrap()
        ),
    )
    .unwrap();
    let out = lanecall(&["centre", "--config", file.to_str().unwrap()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.matches("Address already in use").count(),
        1,
        "{stderr}"
    );
}

/// A centre whose embedded broker's `passwords` file is missing, or that
/// it cannot read, can never start: check-config names the file and the
/// line, and `lanecall centre` says the same and exits 78 (no restart).
#[test]
fn a_missing_or_unreadable_passwords_file_fails_check_config_and_the_centre_exits_78() {
    use std::os::unix::process::CommandExt;
    let dir = scratch("centre-logins");
    fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let logins = dir.join("mqtt-passwords");
    let file = dir.join("centre.toml");
    fs::write(
        &file,
        format!(
            "site = \"cup\"\nstate_dir = {:?}\nembedded_listen = \"127.0.0.1:1\"\n\
             passwords = {logins:?}\n[web]\nlisten = \"127.0.0.1:1\"\njudge_pin_hash = {:?}\n",
            dir.join("state"),
            lanecall::web::hash_pin("482913").unwrap()
        ),
    )
    .unwrap();
    fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    // Run as `nobody` when root, so that a file of mode 000 is unreadable.
    let run = |args: &[&str]| {
        let mut command = Command::new(BIN);
        command.args(args).arg(&file);
        if rustix::process::getuid().is_root() {
            command.uid(65534).gid(65534);
        }
        command.output().unwrap()
    };
    let missing = format!(
        "passwords: cannot read {}: No such file or directory (os error 2): \
         the embedded broker's logins",
        logins.display()
    );
    fs::write(&logins, "lane1:secret\n").unwrap();
    fs::set_permissions(&logins, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    let unreadable = format!(
        "passwords: cannot read {}: Permission denied (os error 13)",
        logins.display()
    );
    for (case, wanted) in [("unreadable", unreadable), ("missing", missing)] {
        if case == "missing" {
            fs::remove_file(&logins).unwrap();
        }
        let out = run(&["check-config"]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{case}: {stderr}");
        assert!(
            stderr.contains(&wanted) && stderr.contains("(line 4, column 1)"),
            "{case}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{case}: {}", text(&out.stdout));
        let out = run(&["centre", "--config"]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(78), "{case}: {stderr}");
        assert_eq!(stderr.matches(&wanted).count(), 1, "{case}: {stderr}");
    }
}

#[test]
fn run_with_gpio_on_a_machine_that_is_not_a_pi_exits_78_for_no_restart() {
    let on_a_pi =
        fs::read_to_string("/proc/device-tree/model").is_ok_and(|m| m.contains("Raspberry Pi"));
    if on_a_pi {
        // Its GPIO opens: nothing to refuse.
        return;
    }
    // The shipped example: GPIO on the Pi's header.
    let dir = scratch("not-a-pi");
    let file = example_with_a_pin(&dir);
    let example = lanecall::config::Config::load(&file).unwrap();
    assert_eq!(example.gpio.backend, lanecall::config::GpioBackend::Rpi);
    let out = lanecall(&["run", "--config", file.to_str().unwrap()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(78), "{stderr}");
    assert_eq!(
        stderr.matches("this machine is not a Raspberry Pi").count(),
        1,
        "{stderr}"
    );
}

/// A string pinsetter's expander on a bus this machine does not have: the
/// lane runs all the same, its panel names the part and its fix, and the
/// pinsetter's link is down, which gives the judges the pin pad.
#[test]
fn run_with_pin_switches_that_do_not_answer_keeps_the_lane_and_names_the_part() {
    let dir = scratch("switches-absent");
    let http = support::free_port();
    let file = support::write_config(
        &dir,
        2,
        "/dev/ttyUSB0",
        http,
        &lanecall::web::hash_pin("482913").unwrap(),
    );
    let text = fs::read_to_string(&file)
        .unwrap()
        .replace("[pinsetter]\n", "[pinsetter]\nkind = \"pin_switches\"\n")
        + "[pinsetter.switches]\n\
           pins = [\"A0\", \"A1\", \"A2\", \"A3\", \"A4\", \"A5\", \"A6\", \"A7\", \"B0\", \"B1\"]\n\
           bus = 21\n";
    fs::write(&file, text).unwrap();
    let mut child = Command::new(BIN)
        .args(["run", "--config", file.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lane = support::eventually("the panel to show the expander's fault", || {
        support::centre::get(http, "/api/lane").filter(|l| {
            l["parts"].as_array().is_some_and(|p| !p.is_empty()) && l["pinsetter"]["link"] == "down"
        })
    });
    let still_running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    assert!(still_running, "the daemon stopped");
    let parts = lane["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 1, "{parts:?}");
    assert_eq!(parts[0]["part"], "switches");
    let problem = parts[0]["problem"].as_str().unwrap();
    assert!(problem.contains("/dev/i2c-21"), "{problem}");
    assert!(
        parts[0]["fix"].as_str().unwrap().contains("pin pad"),
        "{parts:?}"
    );
}

#[test]
fn run_on_a_port_already_taken_fails_before_writing_a_journal() {
    let dir = scratch("port-taken");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let file = config(&dir, &addr, "/dev/ttyUSB0");
    let out = lanecall(&["run", "--config", file.to_str().unwrap()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot listen on {addr}")),
        "{stderr}"
    );
    fn files(dir: &Path) -> Vec<PathBuf> {
        fs::read_dir(dir)
            .unwrap()
            .flat_map(|e| {
                let path = e.unwrap().path();
                if path.is_dir() {
                    files(&path)
                } else {
                    vec![path]
                }
            })
            .collect()
    }
    let journals: Vec<PathBuf> = files(&dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    assert!(journals.is_empty(), "{journals:?}");
}

// ----- unlock -------------------------------------------------------------------

#[test]
fn unlock_with_a_config_no_daemon_has_run_names_the_missing_state_dir() {
    let dir = scratch("unlock");
    let file = config(&dir, "127.0.0.1:8080", "/dev/ttyUSB0");
    let state_dir = dir.join("never-made");
    let text_of_file = fs::read_to_string(&file).unwrap();
    let moved = text_of_file.replace(
        &format!("state_dir = {dir:?}"),
        &format!("state_dir = {state_dir:?}"),
    );
    assert_ne!(moved, text_of_file);
    fs::write(&file, moved).unwrap();
    let out = lanecall(&["unlock", "--config", file.to_str().unwrap()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{} (state_dir in {}) does not exist",
            state_dir.display(),
            file.display()
        )) && stderr.contains("--config")
            && !stderr.contains("daemon's user or root"),
        "{stderr}"
    );
}

// ----- replay -------------------------------------------------------------------

const NOISY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/logs/noisy_serial.jsonl");

/// Its errors and warnings, by hand from the journal.
const NOISY_ISSUES: [&str; 12] = [
    "line 11: serial line: checksum mismatch: line says 72, bytes give 53",
    "line 17: serial line: pin mask `11111111x1` is not ten characters 0/1",
    "line 30: serial line: checksum mismatch: line says 1D, bytes give 19",
    "line 34: serial line: pin mask `00000000001` is not ten characters 0/1",
    "line 50: serial line: unknown message type `STATUS`",
    "line 56: serial line: not a pinsetter line (no `$PS,` at the start)",
    "line 15: warning: pinsetter sequence number jumped: 1 line(s) lost",
    "line 21: warning: pinsetter sequence number jumped: 1 line(s) lost",
    "line 32: warning: pinsetter sequence number jumped: 1 line(s) lost",
    "line 38: warning: pinsetter sequence number jumped: 1 line(s) lost",
    "line 54: warning: pinsetter sequence number jumped: 1 line(s) lost",
    "line 77: warning: pinsetter sequence number jumped: 3 line(s) lost",
];

#[test]
fn replay_prints_each_error_once_on_stderr() {
    for json in [false, true] {
        let mut args = vec!["replay", NOISY];
        if json {
            args.insert(1, "--json");
        }
        let out = lanecall(&args);
        assert_eq!(out.status.code(), Some(0));
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        for issue in NOISY_ISSUES {
            let wanted = format!("{NOISY}: {issue}");
            assert_eq!(
                stderr.matches(&wanted).count(),
                1,
                "json {json}: {wanted}\n{stderr}"
            );
            // Not again on the sheet; the JSON holds them as data.
            let message = issue.split_once(": ").unwrap().1;
            if !json {
                assert!(!stdout.contains(message), "{message}\n{stdout}");
            }
        }
        assert_eq!(stderr.lines().count(), NOISY_ISSUES.len(), "{stderr}");
        if json {
            let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            assert_eq!(report["errors"].as_array().unwrap().len(), 6);
        }
    }
}

#[test]
fn the_replay_sheet_numbers_the_frames() {
    let out = lanecall(&["replay", NOISY]);
    let stdout = text(&out.stdout);
    let sheet: Vec<&str> = stdout.lines().collect();
    let game = sheet
        .iter()
        .position(|l| l.starts_with("    game  1 "))
        .unwrap();
    assert_eq!(
        sheet[game - 1],
        "    frame   |  1  |  2  |  3  |  4  |  5  |  6  |  7  |  8  |  9  |  10   |"
    );
    assert_eq!(
        sheet[game],
        "    game  1 | 9 / | ⑧ 1 |  X  | 7 / | 9 - |  X  | 9 / | ⑧ 1 |  X  | 9 / X |  162"
    );
}

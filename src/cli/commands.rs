//! What the lane's commands run: `check-config`, `simulate`, `backup`,
//! `run`, `demo`, `unlock`, `monitor`, `say`, `hash-pin`.

use std::io::{self, BufWriter, IsTerminal};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use super::{block_on, init_logs};
use crate::config::{Config, GpioBackend, Host};
use crate::daemon::{ServeOptions, Source, serve};
use crate::demo::DemoLane;
use crate::demo::centre::{CentreDemo, CentreDemoError, serve_centre};
use crate::journal::Writer;
use crate::replay::render_sheet;
use crate::sim::Scenario;

/// Exit 1 with every problem of the file, and what the file alone cannot
/// tell (a placeholder PIN hash, a port this process may not bind); else
/// the effective config.
pub(super) fn check_config(path: &Path) -> ExitCode {
    if is_centre_config(path) {
        return super::centre::check_config(path);
    }
    let config = match Config::load(path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(w) = crate::config::mode_warning(path) {
        eprintln!("warning: {w}");
    }
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let site = config.site_check(&Host::this(), &text);
    for note in &site.notes {
        eprintln!("{}: note: {note}", path.display());
    }
    if site.problems.is_empty() {
        print!("{}", config.to_toml());
        return ExitCode::SUCCESS;
    }
    eprintln!("{}: {} problem(s):", path.display(), site.problems.len());
    for p in &site.problems {
        eprintln!("  {p}");
    }
    ExitCode::FAILURE
}

/// A centre's config (`site` at the top, where a lane's config has
/// `lane`), as `check-config` tells them apart.
fn is_centre_config(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    text.parse::<toml::Table>()
        .is_ok_and(|t| t.contains_key("site") && !t.contains_key("lane"))
}

pub(super) fn simulate(seed: u64, games: u8, blocks: u32) -> ExitCode {
    let scenario = Scenario {
        games,
        blocks,
        ..Scenario::demo(seed)
    };
    let header = scenario.header();
    let written = Writer::create(BufWriter::new(io::stdout().lock()), &header).and_then(|mut w| {
        scenario.run().try_for_each(|e| w.write(&e))?;
        w.flush()
    });
    match written {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            eprintln!("lanecall simulate: {e}");
            ExitCode::FAILURE
        }
        _ => ExitCode::SUCCESS,
    }
}

/// Exit 1 when a file could not be copied or has damaged lines.
pub(super) fn backup(dir: &Path, config: &Path, journal_dir: Option<PathBuf>) -> ExitCode {
    let journal_dir = match journal_dir {
        Some(d) => d,
        None => match Config::load(config) {
            Ok(c) => c.journal_dir(),
            Err(e) => {
                eprintln!("lanecall backup: {e}");
                eprintln!("(or name the journal folder with --journal-dir)");
                return ExitCode::FAILURE;
            }
        },
    };
    println!("Copying {} to {}", journal_dir.display(), dir.display());
    let (mut files, mut bad) = (0, 0);
    let started = crate::journal::backup::backup(&journal_dir, dir, |report| {
        files += 1;
        if report.ok() {
            println!("{report}");
        } else {
            bad += 1;
            if report.result.is_err() {
                eprintln!("{report}");
            } else {
                println!("{report}");
            }
        }
    });
    if let Err(e) = started {
        eprintln!("lanecall backup: {e}");
        return ExitCode::FAILURE;
    }
    if bad == 0 {
        println!("{files} file(s) in {}: all good.", dir.display());
        ExitCode::SUCCESS
    } else {
        println!(
            "{files} file(s), {bad} not copied or with damaged lines: see above. \
             What could be copied is in {}.",
            dir.display()
        );
        ExitCode::FAILURE
    }
}

/// The exit code of a daemon that could not start or stopped: 78 when only
/// another config (or machine) can make it start, so that systemd does
/// not try again (`RestartPreventExitStatus=78`); 1 otherwise.
fn daemon_exit(e: &crate::daemon::DaemonError) -> ExitCode {
    if e.is_config() {
        ExitCode::from(super::exit::EX_CONFIG)
    } else {
        ExitCode::FAILURE
    }
}

/// The demo's blocks before its last, each with its journal and sheet, read
/// back from the lane's journals (the store's list) from `first` on (the
/// last block's sheet is the lane's own).
fn print_earlier_blocks(state_dir: &Path, lane: u32, first: &Path) {
    use crate::journal::names::{file_name, journal_seq};
    let listed = crate::journal::store::Store::open(state_dir, lane).and_then(|store| store.list());
    let mut journals = match listed {
        Ok(journals) => journals,
        Err(e) => {
            eprintln!("lanecall demo: {e}");
            return;
        }
    };
    let from = journal_seq(file_name(first));
    journals.retain(|p| journal_seq(file_name(p)) >= from);
    let last = journals.pop();
    for journal in &journals {
        match super::replay::replay_file(journal) {
            Ok(replay) => print!(
                "\nJournal:  {}\n{}",
                journal.display(),
                render_sheet(&replay)
            ),
            Err(e) => eprintln!("lanecall demo: {}: {e}", journal.display()),
        }
    }
    if let Some(last) = last {
        println!("\nJournal:  {}", last.display());
    }
}

/// Runs the daemon on `source` until it is stopped; returns its exit
/// code. A script's lane (the demo) says where its panel and journal are,
/// and prints its sheets at the end.
pub(super) fn live(config: Config, source: Source, options: ServeOptions) -> ExitCode {
    let demo = matches!(source, Source::Script(_));
    let (state_dir, lane) = (config.state_dir.clone(), config.lane);
    let mut first_journal = None;
    let daemon = serve(config, source, options, |started| {
        if demo {
            first_journal = Some(started.journal.clone());
            println!("Panel:    http://{}/", started.listen);
            let port = started.listen.port();
            if started.listen.ip().is_loopback() {
                println!(
                    "          (this machine only; for a tablet on the same network, run the \
                     demo with --listen 0.0.0.0:{port} and open http://<this machine's \
                     address>:{port}/ on the tablet)"
                );
            } else if started.listen.ip().is_unspecified() {
                println!("          (on a tablet: http://<this machine's address>:{port}/)");
            }
            println!("Journal:  {}", started.journal.display());
        }
    });
    match block_on("lanecall", daemon, daemon_exit) {
        Ok(replay) => {
            if demo {
                if let Some(first) = &first_journal {
                    print_earlier_blocks(&state_dir, lane, first);
                }
                print!("{}", render_sheet(&replay));
                // With the journal, this time gives the same lane again: the
                // timers that ran after the last input ran up to it.
                let now = replay.lane().now();
                println!(
                    "Stopped at lane time {} ({now} ms).",
                    crate::demo::clock(now)
                );
            }
            ExitCode::SUCCESS
        }
        Err(code) => code,
    }
}

pub(super) fn demo(
    speed: f64,
    duration: Option<f64>,
    state_dir: Option<PathBuf>,
    listen: SocketAddr,
    judge_pin: &str,
    seed: u64,
    centre: Option<(u32, Option<PathBuf>)>,
) -> ExitCode {
    init_logs();
    if !(speed.is_finite() && speed > 0.0 && speed <= 1000.0) {
        eprintln!("lanecall demo: --speed must be above 0 and at most 1000, not {speed}");
        return ExitCode::from(super::exit::EX_INPUT);
    }
    let stop_after = match duration {
        Some(s) if s.is_finite() && s > 0.0 => Some(Duration::from_secs_f64(s)),
        Some(s) => {
            eprintln!("lanecall demo: --for takes a number of seconds above 0, not {s}");
            return ExitCode::from(super::exit::EX_INPUT);
        }
        None => None,
    };
    let state_dir = state_dir.unwrap_or_else(|| {
        std::env::temp_dir().join(format!("lanecall-demo-{}", crate::wall_clock::unix_now()))
    });
    if let Err(e) = std::fs::create_dir_all(&state_dir) {
        eprintln!("lanecall demo: cannot create {}: {e}", state_dir.display());
        return ExitCode::FAILURE;
    }
    let hash = match crate::web::hash_pin(judge_pin) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("lanecall demo: --judge-pin: {e}");
            return ExitCode::from(super::exit::EX_INPUT);
        }
    };
    if let Some((lanes, programme)) = centre {
        if !(1..=128).contains(&lanes) {
            eprintln!("lanecall demo: --lanes takes 1 to 128 lanes, not {lanes}");
            return ExitCode::from(super::exit::EX_INPUT);
        }
        let demo = CentreDemo {
            lanes,
            state_dir,
            listen,
            judge_pin_hash: hash,
            judge_pin: judge_pin.to_owned(),
            programme,
            speed,
            seed,
            stop_after,
        };
        return centre_demo(demo, judge_pin);
    }
    println!(
        "lanecall demo: a simulated lane 7 with three bowlers (B1, B2, B3), {speed}x real time."
    );
    println!(
        "It runs without GPIO, a pinsetter or a sound card: the simulator plays the
bowlers and the pinsetter; the callouts are spoken when there is a sound
card and written to the log in any case.
Now and then the simulated pinsetter sends a garbled line on purpose, as a
noisy cable would: the log then warns \"refused: serial line: ...\", the line
is kept in the journal, and the lane goes on with the next good one.
Judge PIN: {judge_pin}"
    );
    let mut config = Config::demo(state_dir, listen, hash);
    config.lane = 7;
    // `--for` is the script's length at its speed, not wall time.
    let script = DemoLane {
        speed,
        seed,
        length: stop_after,
    };
    live(
        config,
        Source::Script(Box::new(script)),
        ServeOptions::default(),
    )
}

/// `lanecall demo --lanes N`: prints the PIN, each page a director opens
/// and every lane's panel, runs until stopped.
pub(super) fn centre_demo(demo: CentreDemo, judge_pin: &str) -> ExitCode {
    let (lanes, speed) = (demo.lanes, demo.speed);
    let programme = demo.programme.as_ref().map_or_else(
        || "the built-in programme: categories, a trios event, the B1 finals".to_owned(),
        |p| format!("the programme {}", p.display()),
    );
    let daemon = serve_centre(demo, |centre, started| {
        println!(
            "lanecall demo: a centre with {lanes} simulated lanes, {speed}x real time, bowling"
        );
        println!(
            "{programme}: each lane bowls the blocks the centre pushes to it (the first is pushed \
             once every lane is online; push the next ones from the centre's page)."
        );
        println!("Chief judge PIN (the centre and every lane): {judge_pin}");
        println!("Centre:    http://{centre}/   the lanes, standings, blocks and results");
        println!("TV:        http://{centre}/tv   for the hall's screens");
        println!("Protocol:  http://{centre}/protocol   the results protocol, to print on A4");
        println!("Results:   http://{centre}/results.txt   (also .csv, .json)");
        for (lane, s) in started {
            println!(
                "Lane {lane}: http://{}/  journal {}",
                s.listen,
                s.journal.display()
            );
        }
    });
    let exit = |e: &CentreDemoError| match e {
        CentreDemoError::Lane(e) => daemon_exit(e),
        CentreDemoError::Centre(_) => ExitCode::FAILURE,
    };
    let result = block_on("lanecall", daemon, exit);
    result.map_or_else(|code| code, |()| ExitCode::SUCCESS)
}

/// Leaves the unlock file for the daemon (a lane's, or a centre's when
/// `config` is a centre's) and waits for it to be taken.
pub(super) fn unlock(config: &Path) -> ExitCode {
    use crate::web::pins::UNLOCK_FILE;
    // A centre keeps its judges' logins, and takes the same file, in its
    // own state_dir.
    let (loaded, daemon) = if is_centre_config(config) {
        let loaded = crate::centre::config::CentreConfig::load(config).map(|c| c.state_dir);
        (loaded.map_err(|e| e.to_string()), "centre")
    } else {
        let loaded = Config::load(config).map(|c| c.state_dir);
        (loaded.map_err(|e| e.to_string()), "daemon")
    };
    let state_dir = match loaded {
        Ok(d) => d,
        Err(e) => {
            eprintln!("lanecall unlock: {e}");
            return ExitCode::FAILURE;
        }
    };
    let file = state_dir.join(UNLOCK_FILE);
    if let Err(e) = std::fs::write(&file, b"") {
        let fix = match e.kind() {
            io::ErrorKind::NotFound if !state_dir.is_dir() => format!(
                " ({} (state_dir in {}) does not exist: no {daemon} has run with this config; \
                 name the config the running one uses with --config)",
                state_dir.display(),
                config.display()
            ),
            io::ErrorKind::PermissionDenied => " (run it as the daemon's user or root)".to_owned(),
            _ => String::new(),
        };
        eprintln!("lanecall unlock: cannot write {}: {e}{fix}", file.display());
        return ExitCode::FAILURE;
    }
    // The daemon looks for the file once a second and removes it when the
    // lock is cleared.
    let until = std::time::Instant::now() + Duration::from_secs(5);
    while std::time::Instant::now() < until {
        if !file.exists() {
            println!("PIN checks unlocked: judges can log in again.");
            return ExitCode::SUCCESS;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = std::fs::remove_file(&file);
    eprintln!(
        "lanecall unlock: the {daemon} did not take {} within 5 s: is it running with {}? \
         (a restart also ends a lockout)",
        file.display(),
        config.display()
    );
    ExitCode::FAILURE
}

pub(super) fn monitor(path: &std::path::Path, as_service: bool) -> ExitCode {
    if as_service {
        return monitor_as_service(path);
    }
    init_logs();
    let config = match Config::load(path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let (link, switches) = match crate::sensors::monitor_pinsetter(&config, path) {
        Ok(sources) => sources,
        Err(e) => {
            eprintln!("lanecall monitor: {e}");
            return ExitCode::FAILURE;
        }
    };
    let gpio = (config.gpio.backend == GpioBackend::Rpi)
        .then(|| (config.gpio.inputs.clone(), config.gpio.outputs.clone()));
    eprintln!("Every input as the lane would journal it; Ctrl-C stops.");
    let monitor = crate::sensors::monitor(link, switches, gpio, io::stdout());
    block_on("lanecall monitor", monitor, |_| ExitCode::FAILURE)
        .map_or_else(|code| code, |()| ExitCode::SUCCESS)
}

/// The unit's settings that decide what the service may open: its
/// identity and groups, its device rules, and the sandbox around them.
const SERVICE_LIMITS: [&str; 12] = [
    "User",
    "Group",
    "SupplementaryGroups",
    "DevicePolicy",
    "DeviceAllow",
    "PrivateDevices",
    "ProtectSystem",
    "ProtectHome",
    "PrivateTmp",
    "NoNewPrivileges",
    "ProtectKernelModules",
    "RestrictAddressFamilies",
];

/// `lanecall monitor --as-service`: the monitor run by systemd with the
/// installed lanecall.service's own limits (`systemctl show`), so that a
/// device the service may not open (an I2C bus without `char-i2c`, a
/// group it lacks) fails here as it fails for the lane, rather than
/// working for a technician's shell and hiding it.
fn monitor_as_service(path: &std::path::Path) -> ExitCode {
    let mut show = std::process::Command::new("systemctl");
    show.args(["show", "lanecall.service"]);
    for key in SERVICE_LIMITS {
        show.arg("--property").arg(key);
    }
    let shown = match show.output() {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
        Ok(out) => {
            eprintln!(
                "lanecall monitor: `systemctl show lanecall` failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("lanecall monitor: cannot run systemctl ({e}): --as-service needs systemd");
            return ExitCode::FAILURE;
        }
    };
    let exe = std::env::current_exe().unwrap_or_else(|_| "/usr/bin/lanecall".into());
    let config = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let args = service_run_args(&shown, &exe, &config);
    let status = std::process::Command::new("systemd-run")
        .args(&args)
        .status();
    match status {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(s) => {
            eprintln!("lanecall monitor: systemd-run ended with {s} (run it as root: sudo)");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("lanecall monitor: cannot run systemd-run ({e})");
            ExitCode::FAILURE
        }
    }
}

/// systemd-run's arguments for the monitor under the limits `shown`
/// (`systemctl show`'s `Key=value` lines; one a line for each of a list's
/// entries, as DeviceAllow gives them; empty ones left out).
fn service_run_args(
    shown: &str,
    exe: &std::path::Path,
    config: &std::path::Path,
) -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = [
        "--quiet",
        "--pty",
        "--wait",
        "--collect",
        "--service-type=exec",
    ]
    .map(Into::into)
    .into();
    for line in shown.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if SERVICE_LIMITS.contains(&key) && !value.trim().is_empty() {
            args.push("--property".into());
            args.push(line.into());
        }
    }
    args.push("--".into());
    args.push(exe.into());
    args.extend(["monitor".into(), "--config".into(), config.into()]);
    args
}

/// `lanecall hash-pin [PIN]`: the PIN's hash on stdout; the PIN from the
/// argument or, kept out of the shell's history, from stdin.
pub(super) fn hash_pin(pin: Option<String>) -> ExitCode {
    let pin = match pin {
        Some(pin) => pin,
        None => {
            let stdin = io::stdin();
            let at_terminal = stdin.is_terminal();
            let mut line = String::new();
            let read = if at_terminal {
                eprint!("Judge PIN (6 to 12 digits, not shown): ");
                super::setup::without_echo(|| stdin.read_line(&mut line))
            } else {
                stdin.read_line(&mut line)
            };
            match read {
                Ok(0) => {
                    eprintln!("lanecall hash-pin: no PIN given (nothing on standard input)");
                    return ExitCode::FAILURE;
                }
                Ok(_) => line.trim().to_owned(),
                Err(e) => {
                    eprintln!("lanecall hash-pin: cannot read the PIN: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
    };
    match crate::web::hash_pin(&pin) {
        Ok(hash) => {
            println!("{hash}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("lanecall hash-pin: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod monitor_tests {
    use super::*;

    #[test]
    fn the_monitor_as_a_service_takes_the_units_limits_each_entry_apart() {
        let shown = "User=lanecall\nGroup=lanecall\nSupplementaryGroups=gpio dialout audio i2c\n\
                     DevicePolicy=closed\nDeviceAllow=char-gpiochip rw\nDeviceAllow=char-i2c rw\n\
                     PrivateDevices=no\nRestrictAddressFamilies=\nOther=x\n";
        let args = service_run_args(
            shown,
            std::path::Path::new("/usr/bin/lanecall"),
            std::path::Path::new("/etc/lanecall/lanecall.toml"),
        );
        let args: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let props: Vec<&str> = args
            .windows(2)
            .filter(|w| w[0] == "--property")
            .map(|w| w[1].as_str())
            .collect();
        assert_eq!(
            props,
            [
                "User=lanecall",
                "Group=lanecall",
                "SupplementaryGroups=gpio dialout audio i2c",
                "DevicePolicy=closed",
                "DeviceAllow=char-gpiochip rw",
                "DeviceAllow=char-i2c rw",
                "PrivateDevices=no",
            ]
        );
        let tail = &args[args.iter().position(|a| a == "--").unwrap()..];
        assert_eq!(
            tail,
            [
                "--",
                "/usr/bin/lanecall",
                "monitor",
                "--config",
                "/etc/lanecall/lanecall.toml"
            ]
        );
        assert!(args.contains(&"--pty".to_owned()), "{args:?}");
    }
}

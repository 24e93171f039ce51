//! The `lanecall` command line: parses arguments and calls into the library.

#![forbid(unsafe_code)]

use std::fs::File;
use std::io::{self, BufReader, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use std::net::SocketAddr;
use std::time::Duration;

use lanecall::config::{Config, GpioBackend, Host};
use lanecall::daemon::{CentreDemo, DemoOptions, ServeOptions, serve, serve_centre_demo};
use lanecall::journal::Writer;
use lanecall::replay::{Replay, render_scores, render_sheet};
use lanecall::sim::Scenario;

#[derive(Parser)]
#[command(
    version,
    about = "Lane controller for ten-pin bowling by blind and visually impaired athletes"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Apply a journal (sensor log) with no hardware and print what the lane computed.
    Replay {
        /// The journal file.
        log: PathBuf,
        /// Print one JSON object (replay-output.md) instead of a score sheet.
        #[arg(long)]
        json: bool,
        /// Exit 1 when any line of the journal could not be applied.
        #[arg(long)]
        strict: bool,
    },
    /// Run the lane: pinsetter, GPIO, journal, control API (the systemd service).
    Run {
        /// The lane's config file (`lanecall check-config` checks it).
        #[arg(long, default_value = DEFAULT_CONFIG)]
        config: PathBuf,
    },
    /// The competition's centre: every lane's journal mirrored and
    /// replayed from MQTT, the lanes at a glance, lineups pushed to them
    /// (docs/centre.md).
    Centre {
        /// The centre's config file.
        #[arg(long)]
        config: PathBuf,
    },
    /// Print the Mosquitto `acl_file` of the centre's lanes (docs/centre.md).
    CentreAcl {
        /// The centre's config file (its `site`, `username`, `lanes`).
        #[arg(long)]
        config: PathBuf,
        /// The lanes ("1-48, 50"); default: the config's, or its programme's.
        #[arg(long)]
        lanes: Option<String>,
    },
    /// A simulated lane on any machine: bowlers and a pinsetter played
    /// through the same journal, core and API, with no Pi, pinsetter or sound card.
    Demo {
        /// How many times faster than real life.
        #[arg(long, default_value_t = 1.0)]
        speed: f64,
        /// Stop by itself after this many seconds.
        #[arg(long = "for", value_name = "SECONDS")]
        duration: Option<f64>,
        /// Where the journal goes (default: a new folder under the system's temp dir).
        #[arg(long)]
        state_dir: Option<PathBuf>,
        /// The panel's address: this machine only by default; 0.0.0.0:8080 lets
        /// a tablet on the same network open it.
        #[arg(long, default_value = "127.0.0.1:8080")]
        listen: SocketAddr,
        /// The judge PIN for the panel (6 to 12 digits).
        #[arg(long, default_value = "123456")]
        judge_pin: String,
        /// Same seed, same bowling.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// A centre: this many lanes (1 to 128), the centre and its MQTT
        /// broker in one process; --listen is the centre's page, lane k's
        /// panel is on the port k above it.
        #[arg(long)]
        lanes: Option<u32>,
    },
    /// Copy the journals to a folder (a USB stick): whole lines only, each
    /// file synced before it takes its name, the copies' checksums checked.
    Backup {
        /// The folder to copy into; it must exist.
        dir: PathBuf,
        /// The config whose state_dir holds the journals.
        #[arg(long, default_value = DEFAULT_CONFIG)]
        config: PathBuf,
        /// The journal folder itself, instead of the config's.
        #[arg(long)]
        journal_dir: Option<PathBuf>,
    },
    /// Check a config file: report every problem by its key and line (exit 1),
    /// or print the effective config.
    CheckConfig {
        /// The config file (the same as --config).
        #[arg(value_name = "PATH", conflicts_with = "config")]
        path: Option<PathBuf>,
        /// The config file [default: /etc/lanecall/lanecall.toml].
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Set up this lane after installing: ask the lane number, the pinsetter
    /// port, the judge PIN and the callout language, write them into the
    /// config (its comments kept), check it as check-config does, and start
    /// the service.
    Setup(lanecall::setup::Options),
    /// Print the hash of a judge PIN (6 to 12 digits), for `[web] judge_pin_hash`
    /// or a `[[web.judges]]` pin_hash.
    HashPin {
        /// The judge's PIN: 6 to 12 digits.
        pin: String,
    },
    /// End a PIN lockout (after too many wrong PINs) on the running daemon.
    Unlock {
        /// The running daemon's config (its state_dir is where the unlock file goes).
        #[arg(long, default_value = DEFAULT_CONFIG)]
        config: PathBuf,
    },
    /// Print every input edge and serial line live, to check the wiring (stop the service first).
    Monitor {
        /// The config naming the pinsetter port and the GPIO pins.
        #[arg(long, default_value = DEFAULT_CONFIG)]
        config: PathBuf,
    },
    /// Say words through the speaker, or render them to a WAV file: `say 7 10 split`.
    Say {
        /// The voice's language.
        #[arg(long, default_value = "ru", value_parser = ["ru", "en"])]
        lang: String,
        /// Write a WAV file instead of playing.
        #[arg(long)]
        out: Option<PathBuf>,
        /// The ALSA device (default: the system's default output).
        #[arg(long)]
        device: Option<String>,
        /// Loudness, 0.0 to 2.0 as `[speaker] volume`: 1.0 plays as recorded.
        #[arg(long, default_value_t = 1.0, value_parser = volume, allow_negative_numbers = true)]
        volume: f32,
        /// Pin numbers, numbers, or words of the voice (strike, spare, split, left_side...).
        #[arg(required = true)]
        words: Vec<String>,
    },
    /// Write the journal of a simulated lane (three bowlers, B1 to B3) to stdout.
    Simulate {
        /// Same seed, same lane.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Games in each block.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=12))]
        games: u8,
        /// Blocks to bowl.
        #[arg(long, default_value_t = 1)]
        blocks: u32,
    },
}

/// Where the daemon's config is installed (docs/install.md).
const DEFAULT_CONFIG: &str = "/etc/lanecall/lanecall.toml";

/// `say --volume`: a number in the config's range for `[speaker] volume`.
fn volume(s: &str) -> Result<f32, String> {
    let range = lanecall::config::VOLUME;
    match s.parse::<f64>() {
        Ok(v) if range.contains(&v) => Ok(v as f32),
        _ => Err(format!(
            "use {:?} to {:?}, the range of [speaker] volume (1.0 plays as recorded)",
            range.start(),
            range.end()
        )),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run { config } => {
            init_logs();
            match Config::load(&config) {
                Ok(cfg) => {
                    if let Some(w) = lanecall::config::mode_warning(&config) {
                        tracing::warn!("{w}");
                    }
                    // No PIN opens a placeholder: refused, exit 78 (no restart).
                    let refused = lanecall::setup::placeholder_pins(&cfg, &config);
                    for e in &refused {
                        eprintln!("lanecall run: {e}");
                    }
                    if !refused.is_empty() {
                        return ExitCode::from(lanecall::setup::EX_CONFIG);
                    }
                    // What check-config would refuse: said, and the lane runs.
                    for p in cfg.site_check(&Host::this(), "").problems {
                        tracing::warn!("{}: {p}", config.display());
                    }
                    live(cfg, ServeOptions::default())
                }
                Err(e) => {
                    tracing::error!("{e}");
                    eprintln!("lanecall run: {e}");
                    ExitCode::from(lanecall::setup::EX_CONFIG) // no restart by systemd
                }
            }
        }
        Command::Centre { config } => {
            init_logs();
            lanecall::centre::main(&config)
        }
        Command::CentreAcl { config, lanes } => {
            lanecall::centre::acl_main(&config, lanes.as_deref())
        }
        Command::Demo {
            speed,
            duration,
            state_dir,
            listen,
            judge_pin,
            seed,
            lanes,
        } => demo(speed, duration, state_dir, listen, &judge_pin, seed, lanes),
        Command::CheckConfig { path, config } => {
            check_config(&path.or(config).unwrap_or_else(|| DEFAULT_CONFIG.into()))
        }
        Command::Setup(options) => lanecall::setup::main(&options),
        Command::HashPin { pin } => match lanecall::web::hash_pin(&pin) {
            Ok(hash) => {
                println!("{hash}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("lanecall hash-pin: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Unlock { config } => unlock(&config),
        Command::Monitor { config } => monitor(&config),
        Command::Say {
            lang,
            out,
            device,
            volume,
            words,
        } => say(&lang, out, device, volume, &words),
        Command::Replay { log, json, strict } => replay(log, json, strict),
        Command::Backup {
            dir,
            config,
            journal_dir,
        } => backup(&dir, &config, journal_dir),
        Command::Simulate {
            seed,
            games,
            blocks,
        } => simulate(seed, games, blocks),
    }
}

/// Exit 1 with every problem of the file, and what the file alone cannot
/// tell (a placeholder PIN hash, a port this process may not bind); else
/// the effective config.
fn check_config(path: &Path) -> ExitCode {
    let config = match Config::load(path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(w) = lanecall::config::mode_warning(path) {
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

fn simulate(seed: u64, games: u8, blocks: u32) -> ExitCode {
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

fn replay(log: PathBuf, json: bool, strict: bool) -> ExitCode {
    let result = File::open(&log)
        .map_err(lanecall::journal::HeaderError::from)
        .and_then(|f| Replay::from_reader(BufReader::with_capacity(1 << 16, f)));
    let replay = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("lanecall replay: {}: {e}", log.display());
            return ExitCode::from(2);
        }
    };
    let stdout = io::stdout().lock();
    let mut out = BufWriter::with_capacity(1 << 16, stdout);
    let written = if json {
        serde_json::to_writer(&mut out, &replay.report())
            .map_err(io::Error::from)
            .and_then(|()| writeln!(out))
    } else {
        out.write_all(render_scores(&replay).as_bytes())
    };
    if let Err(e) = written.and_then(|()| out.flush())
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        eprintln!("lanecall replay: cannot write the result: {e}");
        return ExitCode::from(2);
    }
    eprint!("{}", replay.issues_text(&log.display().to_string()));
    // Counted, not listed: the list keeps only the first and the latest.
    if strict && replay.error_counts().total() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Exit 1 when a file could not be copied or has damaged lines.
fn backup(dir: &Path, config: &Path, journal_dir: Option<PathBuf>) -> ExitCode {
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
    let started = lanecall::journal::backup::backup(&journal_dir, dir, |report| {
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

/// Logs to journald when systemd started us, to stderr otherwise.
fn init_logs() {
    use tracing_subscriber::prelude::*;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        // The embedded broker logs every connection and disconnection.
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rumqttd=warn"));
    let under_systemd = std::env::var_os("JOURNAL_STREAM").is_some();
    let journald = under_systemd
        .then(|| tracing_journald::layer().ok())
        .flatten();
    let registry = tracing_subscriber::registry().with(filter);
    match journald {
        Some(layer) => registry.with(layer).init(),
        // Colours only for a person at a terminal, not in a file or a pipe.
        None => registry
            .with(
                tracing_subscriber::fmt::layer()
                    .with_writer(io::stderr)
                    .with_ansi(io::stderr().is_terminal()),
            )
            .init(),
    }
}

/// Runs `task` on the runtime until it ends; its error, or the runtime's,
/// is logged and said on stderr after `who`.
fn block_on<T, E: std::fmt::Display>(
    who: &str,
    task: impl Future<Output = Result<T, E>>,
) -> Result<T, ExitCode> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("{who}: cannot start the runtime: {e}");
            ExitCode::FAILURE
        })?;
    rt.block_on(task).map_err(|e| {
        tracing::error!("{e}");
        eprintln!("{who}: {e}");
        ExitCode::FAILURE
    })
}

/// Runs the daemon until it is stopped; returns its exit code.
fn live(config: Config, options: ServeOptions) -> ExitCode {
    let demo = options.demo.is_some();
    let daemon = serve(config, options, |started| {
        if demo {
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
    match block_on("lanecall", daemon) {
        Ok(replay) => {
            if demo {
                print!("{}", render_sheet(&replay));
                // With the journal, this time gives the same lane again: the
                // timers that ran after the last input ran up to it.
                let now = replay.lane().now();
                println!(
                    "Stopped at lane time {} ({now} ms).",
                    lanecall::demo::clock(now)
                );
            }
            ExitCode::SUCCESS
        }
        Err(code) => code,
    }
}

fn demo(
    speed: f64,
    duration: Option<f64>,
    state_dir: Option<PathBuf>,
    listen: SocketAddr,
    judge_pin: &str,
    seed: u64,
    lanes: Option<u32>,
) -> ExitCode {
    init_logs();
    if !(speed.is_finite() && speed > 0.0 && speed <= 1000.0) {
        eprintln!("lanecall demo: --speed must be above 0 and at most 1000, not {speed}");
        return ExitCode::from(2);
    }
    let stop_after = match duration {
        Some(s) if s.is_finite() && s > 0.0 => Some(Duration::from_secs_f64(s)),
        Some(s) => {
            eprintln!("lanecall demo: --for takes a number of seconds above 0, not {s}");
            return ExitCode::from(2);
        }
        None => None,
    };
    let state_dir = state_dir.unwrap_or_else(|| {
        std::env::temp_dir().join(format!(
            "lanecall-demo-{}",
            lanecall::wall_clock::unix_now()
        ))
    });
    if let Err(e) = std::fs::create_dir_all(&state_dir) {
        eprintln!("lanecall demo: cannot create {}: {e}", state_dir.display());
        return ExitCode::FAILURE;
    }
    let hash = match lanecall::web::hash_pin(judge_pin) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("lanecall demo: --judge-pin: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(lanes) = lanes {
        if !(1..=128).contains(&lanes) {
            eprintln!("lanecall demo: --lanes takes 1 to 128 lanes, not {lanes}");
            return ExitCode::from(2);
        }
        return centre_demo(CentreDemo {
            lanes,
            state_dir,
            listen,
            judge_pin_hash: hash,
            demo: DemoOptions { speed, seed },
            stop_after,
        });
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
    let options = ServeOptions {
        demo: Some(DemoOptions { speed, seed }),
        stop_after,
    };
    live(config, options)
}

/// `lanecall demo --lanes N`: prints the centre's page and every lane's
/// panel, runs until stopped.
fn centre_demo(demo: CentreDemo) -> ExitCode {
    let (lanes, speed) = (demo.lanes, demo.demo.speed);
    let daemon = serve_centre_demo(demo, |centre, started| {
        println!(
            "lanecall demo: a centre with {lanes} simulated lanes, three bowlers each, {speed}x real time."
        );
        println!("Centre: http://{centre}/");
        println!("TV:     http://{centre}/tv");
        for (lane, s) in started {
            println!(
                "Lane {lane}: http://{}/  journal {}",
                s.listen,
                s.journal.display()
            );
        }
    });
    let result = block_on("lanecall", daemon);
    result.map_or_else(|code| code, |()| ExitCode::SUCCESS)
}

/// Leaves the unlock file for the daemon and waits for it to be taken.
fn unlock(config: &Path) -> ExitCode {
    use lanecall::web::pins::UNLOCK_FILE;
    let state_dir = match Config::load(config) {
        Ok(c) => c.state_dir,
        Err(e) => {
            eprintln!("lanecall unlock: {e}");
            return ExitCode::FAILURE;
        }
    };
    let file = state_dir.join(UNLOCK_FILE);
    if let Err(e) = std::fs::write(&file, b"") {
        eprintln!(
            "lanecall unlock: cannot write {}: {e} (run it as the daemon's user or root)",
            file.display()
        );
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
        "lanecall unlock: the daemon did not take {} within 5 s: is it running with {}? \
         (a restart also ends a lockout)",
        file.display(),
        config.display()
    );
    ExitCode::FAILURE
}

fn monitor(path: &std::path::Path) -> ExitCode {
    init_logs();
    let config = match Config::load(path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let (link, switches) = match lanecall::sensors::monitor_pinsetter(&config, path) {
        Ok(sources) => sources,
        Err(e) => {
            eprintln!("lanecall monitor: {e}");
            return ExitCode::FAILURE;
        }
    };
    let gpio = (config.gpio.backend == GpioBackend::Rpi)
        .then(|| (config.gpio.inputs.clone(), config.gpio.outputs.clone()));
    eprintln!("Every input as the lane would journal it; Ctrl-C stops.");
    let monitor = lanecall::sensors::monitor(link, switches, gpio, io::stdout());
    block_on("lanecall monitor", monitor).map_or_else(|code| code, |()| ExitCode::SUCCESS)
}

fn say(
    lang: &str,
    out: Option<PathBuf>,
    device: Option<String>,
    volume: f32,
    words: &[String],
) -> ExitCode {
    use lanecall::speaker::pack::VoicePack;
    use lanecall::speaker::player::{AudioOut, CLIP_GAP, RodioOut, render, write_wav};
    let language = if lang == "en" {
        lanecall::lane::Language::En
    } else {
        lanecall::lane::Language::Ru
    };
    let pack = VoicePack::builtin(language);
    let names = match lanecall::speaker::clip_names_for_words(words, language) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("lanecall say: {e}");
            return ExitCode::from(2);
        }
    };
    let (names, clips): (Vec<&str>, Vec<_>) = names
        .into_iter()
        .filter_map(|n| pack.get(n).map(|c| (n, c.clone())))
        .unzip();
    let length: Duration = clips.iter().map(|c| c.duration() + CLIP_GAP).sum();
    let what = format!(
        "{} ({} clip(s), {:.1} s, {lang}, volume {volume})",
        names.join(" "),
        clips.len(),
        length.saturating_sub(CLIP_GAP).as_secs_f64()
    );
    let result = match &out {
        Some(path) => {
            let (rate, samples) = render(&clips, CLIP_GAP);
            // As the speaker plays it: the samples scaled by the volume.
            let scaled: Vec<i16> = samples
                .iter()
                .map(|&s| (f32::from(s) * volume).round().clamp(-32768.0, 32767.0) as i16)
                .collect();
            write_wav(path, rate, &scaled)
                .map(|()| format!("Wrote {}: {what}", path.display()))
                .map_err(|e| format!("{}: {e}", path.display()))
        }
        None => {
            let mut speaker = RodioOut::new(device);
            speaker.open().and_then(|name| {
                speaker
                    .play(&clips, volume)
                    .map(|()| format!("Played on {name}: {what}"))
            })
        }
    };
    match result {
        Ok(done) => {
            println!("{done}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("lanecall say: {e}");
            ExitCode::FAILURE
        }
    }
}

//! The `lanecall` command line: its commands ([`Command`]), what each
//! runs, and its exit codes ([`exit`]). `src/main.rs` only calls [`main`].

mod broker_log;
mod centre;
mod commands;
pub mod exit;
mod replay;
pub mod setup;
mod voice;

use std::io::{self, IsTerminal};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::config::{Config, Host};
use crate::daemon::{ServeOptions, Source};
use commands::*;
use voice::{say, voice_check, voice_normalise};

#[derive(Parser)]
#[command(
    version,
    about = "Lane controller for ten-pin bowling by blind and visually impaired athletes"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
pub enum VoiceCommand {
    /// Check a folder of recordings as a voice pack for one language:
    /// every clip there, readable, trimmed, not clipped, of a usable
    /// length and as loud as the others (within 3 LU).
    Check {
        /// The folder (`ru/` or `en/` of `[speaker] voice_dir`).
        dir: PathBuf,
    },
    /// Bring every clip of a folder to the same loudness, in place (mono
    /// 16-bit WAV, peaks kept 1 dB below full scale).
    Normalise {
        /// The folder of recordings.
        dir: PathBuf,
        /// The loudness every clip is brought to.
        #[arg(long, default_value_t = crate::speaker::check::TARGET_LUFS, allow_negative_numbers = true)]
        lufs: f64,
    },
}

#[derive(Subcommand)]
pub enum Command {
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
        /// Stop by itself once it has played this many seconds (at --speed:
        /// lane time follows the demo's script, however busy the machine).
        #[arg(long = "for", value_name = "SECONDS")]
        duration: Option<f64>,
        /// Where the journal goes (default: a new folder under the system's temp dir).
        #[arg(long)]
        state_dir: Option<PathBuf>,
        /// The panel's address: this machine only by default; 0.0.0.0:8080 lets
        /// a tablet on the same network open it; a port alone (8081) is on
        /// this machine.
        #[arg(long, default_value = DEMO_LISTEN, value_parser = demo_listen)]
        listen: SocketAddr,
        /// The judge PIN for the panel (6 to 12 digits).
        #[arg(long, default_value = "123456")]
        judge_pin: String,
        /// Same seed, same bowling, same journal.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// A centre: this many lanes (1 to 128), the centre and its MQTT
        /// broker in one process; --listen is the centre's page, lane k's
        /// panel is on the port k above it.
        #[arg(long)]
        lanes: Option<u32>,
        /// With --lanes: the competition's programme (docs/programme.md);
        /// default: a built-in one with categories, a trios event and the
        /// B1 finals. The lanes bowl the blocks the centre pushes; its first
        /// block is pushed once they are online.
        #[arg(long, requires = "lanes", value_name = "FILE")]
        programme: Option<PathBuf>,
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
    Setup(setup::Options),
    /// Print the hash of a judge PIN (6 to 12 digits), for `[web] judge_pin_hash`
    /// or a `[[web.judges]]` pin_hash.
    HashPin {
        /// The judge's PIN: 6 to 12 digits. Without it, the PIN is read from
        /// standard input (not shown at a terminal), so that it stays out of
        /// the shell's history.
        pin: Option<String>,
    },
    /// End a PIN lockout (after too many wrong PINs) on the running daemon or centre.
    Unlock {
        /// The running daemon's config, or the centre's (its state_dir is where the unlock file goes).
        #[arg(long, default_value = DEFAULT_CONFIG)]
        config: PathBuf,
    },
    /// Print every input edge and serial line live, to check the wiring (stop the service first).
    Monitor {
        /// The config naming the pinsetter port and the GPIO pins.
        #[arg(long, default_value = DEFAULT_CONFIG)]
        config: PathBuf,
        /// Run under the lanecall service's own user, groups and device rules (systemd-run, as root), so what it may not open shows here too.
        #[arg(long)]
        as_service: bool,
    },
    /// Say words through the speaker, or render them to a WAV file: `say 7 10 split`.
    Say {
        /// The voice's language.
        #[arg(long, default_value = "ru", value_parser = ["ru", "en"])]
        lang: String,
        /// Write a WAV file instead of playing.
        #[arg(long)]
        out: Option<PathBuf>,
        /// The ALSA device (default: the card `[speaker] device = "auto"` takes).
        #[arg(long)]
        device: Option<String>,
        /// Loudness, 0.0 to 2.0 as `[speaker] volume`: 1.0 plays as recorded.
        #[arg(long, default_value_t = 1.0, value_parser = volume, allow_negative_numbers = true)]
        volume: f32,
        /// The voice, as `[speaker] voice` names it ("builtin", "rhvoice",
        /// "rhvoice-elena"…), or a folder of recordings (with ru/ and en/).
        #[arg(long, default_value = "builtin")]
        voice: String,
        /// Pin numbers, numbers, or words of the voice (strike, spare, split, left_side...).
        #[arg(required = true)]
        words: Vec<String>,
    },
    /// A voice pack of your own: `voice check DIR` checks a folder of
    /// recordings (docs/voice.md).
    #[command(subcommand)]
    Voice(VoiceCommand),
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

/// Where `demo` serves its panel unless told.
const DEMO_LISTEN: &str = "127.0.0.1:8080";

/// `demo --listen`: read as the config's listen addresses are.
fn demo_listen(s: &str) -> Result<SocketAddr, String> {
    crate::config::listen_address(s, DEMO_LISTEN.parse().map_err(|e| format!("{e}"))?)
}

/// `say --volume`: a number in the config's range for `[speaker] volume`.
fn volume(s: &str) -> Result<f32, String> {
    let range = crate::config::VOLUME;
    match s.parse::<f64>() {
        Ok(v) if range.contains(&v) => Ok(v as f32),
        _ => Err(format!(
            "use {:?} to {:?}, the range of [speaker] volume (1.0 plays as recorded)",
            range.start(),
            range.end()
        )),
    }
}

/// Parses the arguments and runs the command; its exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run { config } => {
            init_logs();
            match Config::load(&config) {
                Ok(cfg) => {
                    if let Some(w) = crate::config::mode_warning(&config) {
                        tracing::warn!("{w}");
                    }
                    // No PIN opens a placeholder: refused, exit 78 (no restart).
                    let refused = setup::placeholder_pins(&cfg, &config);
                    for e in &refused {
                        eprintln!("lanecall run: {e}");
                    }
                    if !refused.is_empty() {
                        return ExitCode::from(exit::EX_CONFIG);
                    }
                    // What check-config would refuse: said, shown on the
                    // panel, and the lane runs. A journal kept in memory
                    // is the panel's own "storage" line (`daemon`).
                    let mut site_problems = Vec::new();
                    for p in cfg.site_check(&Host::this(), "").problems {
                        tracing::warn!("{}: {p}", config.display());
                        if p.key != "state_dir" {
                            site_problems.push(format!("{}: {}", p.key, p.message));
                        }
                    }
                    let source = Source::of(&cfg);
                    live(
                        cfg,
                        source,
                        ServeOptions {
                            site_problems,
                            ..ServeOptions::default()
                        },
                    )
                }
                Err(e) => {
                    fatal("lanecall run", e);
                    ExitCode::from(exit::EX_CONFIG) // no restart by systemd
                }
            }
        }
        Command::Centre { config } => {
            init_logs();
            centre::main(&config)
        }
        Command::CentreAcl { config, lanes } => centre::acl_main(&config, lanes.as_deref()),
        Command::Demo {
            speed,
            duration,
            state_dir,
            listen,
            judge_pin,
            seed,
            lanes,
            programme,
        } => {
            let centre = lanes.map(|n| (n, programme));
            demo(speed, duration, state_dir, listen, &judge_pin, seed, centre)
        }
        Command::CheckConfig { path, config } => {
            check_config(&path.or(config).unwrap_or_else(|| DEFAULT_CONFIG.into()))
        }
        Command::Setup(options) => setup::main(&options),
        Command::HashPin { pin } => hash_pin(pin),
        Command::Unlock { config } => unlock(&config),
        Command::Monitor { config, as_service } => monitor(&config, as_service),
        Command::Say {
            lang,
            out,
            device,
            volume,
            voice,
            words,
        } => say(&lang, out, device, volume, &voice, &words),
        Command::Voice(VoiceCommand::Check { dir }) => voice_check(&dir),
        Command::Voice(VoiceCommand::Normalise { dir, lufs }) => voice_normalise(&dir, lufs),
        Command::Replay { log, json, strict } => replay::main(log, json, strict),
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
    let registry = tracing_subscriber::registry()
        .with(filter)
        .with(broker_log::CleanDisconnects);
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
/// is said after `who` ([`fatal`]) and ends in `exit`'s code for it.
fn block_on<T, E: std::fmt::Display>(
    who: &str,
    task: impl Future<Output = Result<T, E>>,
    exit: impl FnOnce(&E) -> ExitCode,
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
        let code = exit(&e);
        fatal(who, e);
        code
    })
}

/// A fatal error, said once after `who`: in the log once one is set up
/// ([`init_logs`]: stderr, or the journal under systemd, which also takes
/// stderr), on stderr otherwise.
fn fatal(who: &str, e: impl std::fmt::Display) {
    if tracing::dispatcher::has_been_set() {
        tracing::error!("{who}: {e}");
    } else {
        eprintln!("{who}: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo_at(listen: &str) -> Result<SocketAddr, String> {
        match Cli::try_parse_from(["lanecall", "demo", "--listen", listen]) {
            Ok(Cli {
                command: Command::Demo { listen, .. },
            }) => Ok(listen),
            Ok(_) => unreachable!("parsed as another command"),
            Err(e) => Err(e.to_string()),
        }
    }

    #[test]
    fn demo_listen_takes_a_port_alone_and_localhost_and_names_an_example_otherwise() {
        assert_eq!(demo_at("8081"), Ok("127.0.0.1:8081".parse().unwrap()));
        assert_eq!(
            demo_at("localhost:8082"),
            Ok("127.0.0.1:8082".parse().unwrap())
        );
        assert_eq!(demo_at("0.0.0.0:8083"), Ok("0.0.0.0:8083".parse().unwrap()));
        let e = demo_at("tablet").unwrap_err();
        assert!(e.contains("such as 127.0.0.1:8080"), "{e}");
    }
}

//! `lanecall setup`: the one command after installing the package. It asks
//! the lane number, the pinsetter port (not when the config's pinsetter is
//! `kind = "pin_switches"`), the judge PIN (twice, not echoed on a
//! terminal), the callouts' language and, at a terminal, the sound card
//! (a test callout played on the one `[speaker] device = "auto"` takes,
//! then on another until it is heard); writes them into the config and
//! starts the service.
//!
//! It decides which answers are taken (a PIN of 6 to 12 digits, a lane the
//! config accepts, a port that exists — or, not yet plugged in, one under
//! /dev/serial/by-id/), and how the file is replaced: only the values of
//! `lane`, `[pinsetter] port`, `[web] judge_pin_hash`, `[speaker]
//! language` and `[speaker] device` change, every comment and other line
//! stays; the new text passes check-config's checks before it replaces
//! the old file, in one rename, with the old file's owner and group and
//! mode 0640 (it holds the PIN hash: never readable by others). On any
//! problem the old file stays as it was. It also decides what `lanecall run` refuses:
//! a PIN hash left as the example's placeholder (exit 78, [`crate::cli::exit::EX_CONFIG`]).
//!
//! It never touches another key, another file than the config (and its
//! temporary file beside it), no device but the sound card it plays the
//! test callout on, nor the service other than through `systemctl enable`
//! and `systemctl restart`.
//!
//! Its parts: `prompt` asks (a person again until an answer is taken, a
//! script once), `port` the pinsetter's serial port, `sound_card` the
//! card the callouts play on, `edit` the config's text (a value read, a
//! value set), `write` the file replaced, `clock` systemd-timesyncd
//! pointed at a centre. This file holds the options, the questions in
//! their order, and the service started.

mod clock;
mod edit;
mod port;
mod prompt;
mod sound_card;
mod write;

use std::fs;
use std::io::{self, BufRead, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::config::{Config, Host, is_placeholder_hash};
use clock::{TIMESYNCD_DROP_IN, clock_from_centre};
use edit::current;
use port::ask_port;
use prompt::until;
use sound_card::{ask_speaker, play_test_callout, sound_cards};

pub use edit::set_value;
pub use port::serial_ports;
pub use prompt::{Prompt, without_echo};
pub use write::write_atomically;

/// The config's mode as setup leaves it: the service's group reads it,
/// others do not (it holds the judge PIN hash).
pub const CONFIG_MODE: u32 = 0o640;

/// The example config, as the package installs it.
pub const EXAMPLE: &str = include_str!("../../../config/lanecall.toml");

/// What the command line gave (`lanecall setup`'s options); `None` is asked.
#[derive(Debug, Default, Clone, clap::Args)]
pub struct Options {
    /// The config to write; the example is its start when it does not exist.
    #[arg(long, default_value = "/etc/lanecall/lanecall.toml")]
    pub config: PathBuf,
    /// The lane number, instead of asking it.
    #[arg(long)]
    pub lane: Option<String>,
    /// The pinsetter's serial port, instead of asking it (a name under
    /// /dev/serial/by-id/ is kept even before the adapter is plugged in).
    #[arg(long)]
    pub port: Option<PathBuf>,
    /// The callouts' language (`[speaker] language`), instead of asking it.
    #[arg(long, value_parser = ["ru", "en"])]
    pub language: Option<String>,
    /// Write the config only: do not enable and restart the service.
    #[arg(long)]
    pub no_start: bool,
}

/// `lanecall setup`: the answers from stdin, a person's when it is a
/// terminal.
pub fn main(options: &Options) -> ExitCode {
    let stdin = io::stdin();
    let terminal = stdin.is_terminal();
    match setup(options, &mut Prompt::new(stdin.lock(), terminal)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lanecall setup: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Why `lanecall run` refuses `config` (read from `path`): each PIN hash
/// left as the example's placeholder, which no PIN opens.
pub fn placeholder_pins(config: &Config, path: &Path) -> Vec<String> {
    let mut keys = Vec::new();
    if config
        .web
        .judge_pin_hash
        .as_deref()
        .is_some_and(is_placeholder_hash)
    {
        keys.push("web.judge_pin_hash".to_owned());
    }
    for (i, judge) in config.web.judges.iter().enumerate() {
        if is_placeholder_hash(&judge.pin_hash) {
            keys.push(format!("web.judges[{}].pin_hash", i + 1));
        }
    }
    keys.into_iter()
        .map(|key| {
            format!(
                "{}: {key} is the example's placeholder, which no PIN opens: run `sudo \
                 lanecall setup` (or set it to what `lanecall hash-pin PIN` prints); not starting",
                path.display()
            )
        })
        .collect()
}

/// The setup: asks what the options leave out, writes the config and
/// starts the service. `Err` is the message for stderr; the old file is
/// then unchanged.
pub fn setup<R: BufRead>(options: &Options, prompt: &mut Prompt<R>) -> Result<(), String> {
    let path = &options.config;
    let old = match fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let mut text = old.clone().unwrap_or_else(|| EXAMPLE.to_owned());
    println!(
        "Setting up {} ({}). Enter keeps the value in [brackets].",
        path.display(),
        if old.is_some() {
            "its comments and other keys stay as they are"
        } else {
            "new, from the example"
        }
    );

    // The lane: what the config accepts, as check-config says it.
    let lane_ok = |text: &str, answer: String| -> Result<String, String> {
        let Ok(n) = answer.parse::<i64>() else {
            return Err(format!("{answer:?} is not a whole number"));
        };
        let new = set_value(text, "", "lane", &n.to_string());
        match Config::parse(&new, path) {
            Err(crate::config::ConfigError::Invalid { problems, .. }) => {
                match problems.iter().find(|p| p.key == "lane") {
                    Some(p) => Err(p.message.clone()),
                    None => Ok(new),
                }
            }
            _ => Ok(new),
        }
    };
    text = match &options.lane {
        Some(lane) => lane_ok(&text, lane.clone()).map_err(|e| format!("lane: {e}"))?,
        None => {
            let was = current(&text, "", "lane").map(|v| v.to_string());
            let question = match &was {
                Some(v) => format!("Lane number [{v}]: "),
                None => "Lane number: ".to_owned(),
            };
            until(prompt, "lane", &question, false, |_, answer| {
                let answer = match (&was, answer.is_empty()) {
                    (Some(v), true) => v.clone(),
                    _ => answer,
                };
                lane_ok(&text, answer)
            })?
        }
    };

    // The pinsetter port, unless the lane reads pin switches.
    let switches =
        current(&text, "pinsetter", "kind").is_some_and(|k| k.as_str() == Some("pin_switches"));
    if switches {
        if options.port.is_some() {
            return Err(
                "pinsetter.port: this lane reads its pinsetter's pin switches \
                 ([pinsetter] kind = \"pin_switches\"), not a serial port"
                    .into(),
            );
        }
        println!(
            "The pinsetter is read through its pin switches ([pinsetter.switches]); \
             check each string with `lanecall monitor`."
        );
    } else {
        let configured = old
            .as_deref()
            .and_then(|old| current(old, "pinsetter", "port"))
            .and_then(|v| v.as_str().map(PathBuf::from));
        let port = ask_port(options, prompt, configured)?;
        text = set_value(
            &text,
            "pinsetter",
            "port",
            &toml::Value::String(port.to_string_lossy().into_owned()).to_string(),
        );
    }

    // The judge PIN, twice.
    let hash_was = current(&text, "web", "judge_pin_hash")
        .and_then(|v| v.as_str().map(str::to_owned))
        .filter(|h| !is_placeholder_hash(h));
    let keep = if hash_was.is_some() {
        " (Enter keeps the current one)"
    } else {
        ""
    };
    let question = format!("Judge PIN, 6 to 12 digits{keep}: ");
    let hash = until(
        prompt,
        "web.judge_pin_hash",
        &question,
        true,
        |prompt, pin| {
            if pin.is_empty()
                && let Some(h) = &hash_was
            {
                return Ok(h.clone());
            }
            let hash = crate::web::hash_pin(&pin).map_err(|e| e.to_string())?;
            let again = prompt.ask_secret("The same PIN again: ")?;
            if again != pin {
                return Err("the two PINs differ: nothing is set".into());
            }
            Ok(hash)
        },
    )?;
    text = set_value(
        &text,
        "web",
        "judge_pin_hash",
        &toml::Value::String(hash).to_string(),
    );

    // The callouts' language.
    let language = match &options.language {
        Some(l) => l.clone(),
        None => {
            let was = current(&text, "speaker", "language")
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_else(|| "ru".into());
            until(
                prompt,
                "speaker.language",
                &format!("Callout language, ru or en [{was}]: "),
                false,
                |_, answer| match answer.as_str() {
                    "" => Ok(was.clone()),
                    "ru" | "en" => Ok(answer),
                    _ => Err(format!("{answer:?}: use ru or en")),
                },
            )?
        }
    };
    text = set_value(
        &text,
        "speaker",
        "language",
        &toml::Value::String(language).to_string(),
    );

    // The sound card, heard in the lane's voice.
    let configured =
        current(&text, "speaker", "device").and_then(|v| v.as_str().map(str::to_owned));
    let for_play = text.clone();
    let mut play = |device: &str| play_test_callout(&for_play, path, device);
    if let Some(device) = ask_speaker(prompt, configured.as_deref(), &sound_cards(), &mut play)? {
        text = set_value(
            &text,
            "speaker",
            "device",
            &toml::Value::String(device).to_string(),
        );
    }

    // check-config's checks, before the old file is replaced; the service
    // has no capabilities whoever runs this.
    let config = Config::parse(&text, path).map_err(|e| format!("nothing written: {e}"))?;
    let host = Host {
        cap_net_bind_service: Some(false),
        ..Host::this()
    };
    let site = config.site_check(&host, &text);
    if !site.problems.is_empty() {
        let list: Vec<String> = site.problems.iter().map(|p| format!("  {p}")).collect();
        return Err(format!(
            "nothing written: {} would have {} problem(s):\n{}",
            path.display(),
            list.len(),
            list.join("\n")
        ));
    }
    write_atomically(path, &text, Some(CONFIG_MODE))
        .map_err(|e| format!("nothing written: {e}"))?;
    println!("Wrote {}.", path.display());

    if options.no_start {
        println!("Not started (--no-start): sudo systemctl enable --now lanecall");
        return Ok(());
    }
    if let Some(centre) = &config.centre {
        clock_from_centre(&centre.broker.host, Path::new(TIMESYNCD_DROP_IN));
    }
    for args in [["enable", "lanecall"], ["restart", "lanecall"]] {
        let what = format!("systemctl {}", args.join(" "));
        match Command::new("systemctl").args(args).status() {
            Ok(s) if s.success() => {}
            Ok(s) => {
                return Err(format!(
                    "{what} failed ({s}): the config is written; see `journalctl -u lanecall`, \
                     then run: sudo systemctl enable --now lanecall"
                ));
            }
            Err(e) => {
                return Err(format!(
                    "cannot run {what}: {e}: the config is written; start the service with: \
                     sudo systemctl enable --now lanecall"
                ));
            }
        }
    }
    println!(
        "lanecall is running: the panel is at http://<this Pi's address>:{}/ \
         (systemctl status lanecall)",
        config.web.listen.port()
    );
    Ok(())
}

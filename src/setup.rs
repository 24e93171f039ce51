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

use std::fs;
use std::io::{self, BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::atomic::atomic_write_owned;
use crate::config::{Config, Host, is_placeholder_hash};
use crate::speaker::cards::{self, Card};
use crate::speaker::player::{AudioOut, RodioOut};

/// The config's mode as setup leaves it: the service's group reads it,
/// others do not (it holds the judge PIN hash).
pub const CONFIG_MODE: u32 = 0o640;

/// The example config, as the package installs it.
pub const EXAMPLE: &str = include_str!("../config/lanecall.toml");

/// Where a missing pinsetter port is still taken, with a warning: the
/// adapter's fixed name, copied before it is plugged in.
const BY_ID: &str = "/dev/serial/by-id/";

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

/// Where answers come from: stdin, a person at a terminal or a script.
pub struct Prompt<R> {
    input: R,
    /// A person answers: a bad answer is asked again, the PIN not echoed.
    pub terminal: bool,
}

impl<R: BufRead> Prompt<R> {
    pub fn new(input: R, terminal: bool) -> Prompt<R> {
        Prompt { input, terminal }
    }

    /// One answer, trimmed; an error at the end of the input.
    fn ask(&mut self, question: &str) -> Result<String, String> {
        print!("{question}");
        let _ = io::stdout().flush();
        let mut line = String::new();
        match self.input.read_line(&mut line) {
            Ok(0) => Err(format!(
                "no answer to \"{}\" (end of input)",
                question.trim()
            )),
            Ok(_) => {
                if !self.terminal {
                    // Not echoed by a terminal: end the prompt's line.
                    println!();
                }
                Ok(line.trim().to_owned())
            }
            Err(e) => Err(format!("cannot read the answer: {e}")),
        }
    }

    /// A secret answer: not echoed when stdin is a terminal.
    fn ask_secret(&mut self, question: &str) -> Result<String, String> {
        if !self.terminal {
            return self.ask(question);
        }
        without_echo(|| self.ask(question))
    }
}

/// Runs `read` with the terminal on stdin not echoing what is typed (its
/// line end still echoed); as it was afterwards.
pub fn without_echo<T>(read: impl FnOnce() -> T) -> T {
    let stdin = io::stdin();
    let fd = std::os::fd::AsFd::as_fd(&stdin);
    let saved = rustix::termios::tcgetattr(fd).ok();
    if let Some(saved) = &saved {
        let mut quiet = saved.clone();
        quiet.local_modes -= rustix::termios::LocalModes::ECHO;
        quiet.local_modes |= rustix::termios::LocalModes::ECHONL;
        let _ = rustix::termios::tcsetattr(fd, rustix::termios::OptionalActions::Flush, &quiet);
    }
    let answer = read();
    if let Some(saved) = &saved {
        let _ = rustix::termios::tcsetattr(fd, rustix::termios::OptionalActions::Now, saved);
    }
    answer
}

/// Asks until `check` takes an answer (a person), or once (a script): the
/// refusal names `key`.
fn until<R: BufRead, T>(
    prompt: &mut Prompt<R>,
    key: &str,
    question: &str,
    secret: bool,
    mut check: impl FnMut(&mut Prompt<R>, String) -> Result<T, String>,
) -> Result<T, String> {
    loop {
        let answer = if secret {
            prompt.ask_secret(question)?
        } else {
            prompt.ask(question)?
        };
        match check(prompt, answer) {
            Ok(v) => return Ok(v),
            Err(e) if prompt.terminal => println!("{key}: {e}"),
            Err(e) => return Err(format!("{key}: {e}")),
        }
    }
}

/// The serial ports found: the fixed names under /dev/serial/by-id/ first,
/// then /dev/ttyUSB*, /dev/ttyACM*, the Pi's UARTs (/dev/serial0 and 1,
/// /dev/ttyAMA*) and /dev/ttyS0 and 1 when they have a UART behind them
/// (the systemd unit allows these).
pub fn serial_ports() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let listed = |dir: &str, keep: &dyn Fn(&str) -> bool| {
        let mut names: Vec<PathBuf> = fs::read_dir(dir)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .filter(|e| keep(&e.file_name().to_string_lossy()))
                    .map(|e| e.path())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    found.extend(listed(BY_ID, &|_| true));
    found.extend(listed("/dev", &|n| {
        ["ttyUSB", "ttyACM", "serial", "ttyAMA"]
            .iter()
            .any(|p| n.starts_with(p))
            || ["ttyS0", "ttyS1"].contains(&n) && uart_behind(n)
    }));
    found
}

/// Whether the 8250 driver found a UART behind `/dev/NAME` (a PC has
/// ttyS0 to ttyS31 whatever it has).
fn uart_behind(name: &str) -> bool {
    fs::read_to_string(format!("/sys/class/tty/{name}/type")).is_ok_and(|t| t.trim() != "0")
}

/// What a serial port is, for the list `setup` shows: on a Pi, its
/// header UART (pins 8 and 10) by its model.
fn port_note(port: &Path) -> String {
    let model = crate::config::HostFiles::real().pi_model();
    port_note_on(port, model.as_ref().map(|m| m.name.as_str()))
}

/// [`port_note`] on the Pi whose model string is `model` (none: not a Pi,
/// or not known).
fn port_note_on(port: &Path, model: Option<&str>) -> String {
    let header = model.and_then(crate::config::header_uart);
    if let Some(h) = header.filter(|h| port == Path::new(h.path)) {
        return format!("this Pi's header UART: {}", h.note);
    }
    let pi5 = header.is_some_and(|h| h.path != "/dev/serial0");
    let name = port.file_name().unwrap_or_default().to_string_lossy();
    if pi5 && ["serial0", "ttyAMA10"].contains(&name.as_ref()) {
        return "this Pi 5's 3-pin debug connector, not the header: the header's is /dev/ttyAMA0"
            .into();
    }
    let note = match name.as_ref() {
        "serial0" => "the Pi's header UART (pins 8 and 10), whichever it is now",
        "serial1" => "the Pi's other UART (Bluetooth's, on a Pi with Bluetooth)",
        "ttyS0" => "a Pi's mini-UART: the header's while Bluetooth is on; a PC's COM1",
        "ttyS1" => "a PC's COM2",
        n if n.starts_with("ttyAMA") => "a Pi's UART: ttyAMA0 is the header's with Bluetooth off",
        _ if port.starts_with(BY_ID) => "a USB adapter, by a name that stays",
        _ => "a USB adapter",
    };
    note.into()
}

/// Whether a port answer is taken: one that exists; one under
/// /dev/serial/by-id/ that does not, with a warning, when `missing_by_id`.
fn port_ok(port: &Path, missing_by_id: bool) -> Result<(), String> {
    if port.as_os_str().is_empty() {
        return Err("give the pinsetter's serial port, e.g. /dev/ttyUSB0".into());
    }
    if port.exists() {
        return Ok(());
    }
    let by_id = port.starts_with(BY_ID);
    if by_id && missing_by_id {
        eprintln!(
            "warning: pinsetter.port: {} does not exist (yet): it is kept, and the lane opens \
             it once the adapter is plugged in",
            port.display()
        );
        return Ok(());
    }
    Err(format!(
        "{} does not exist: plug the adapter in and look for it with `ls -l {BY_ID}`{}",
        port.display(),
        if by_id {
            ""
        } else {
            " (a name there is kept even before the adapter is plugged in)"
        }
    ))
}

/// The value of `key` in `table` of the file's text, if it is a plain
/// value there.
fn current(text: &str, table: &str, key: &str) -> Option<toml::Value> {
    let parsed: toml::Table = toml::from_str(text).ok()?;
    let t = if table.is_empty() {
        &parsed
    } else {
        parsed.get(table)?.as_table()?
    };
    t.get(key).cloned()
}

/// `text` with `key = value` in `[table]` (`""`: the top level), edited
/// as TOML (`toml_edit`): the key's value replaced, its indentation and
/// trailing comment kept, every other line as it was; a key that is not
/// there is added at the end of its table, a missing table at the end of
/// the file. `value` is TOML (a quoted string, a number). Text that is not
/// TOML, or a table or value that is something else, comes back as it
/// was: the check that follows names the problem.
pub fn set_value(text: &str, table: &str, key: &str, value: &str) -> String {
    let (Ok(mut doc), Ok(new)) = (
        text.parse::<toml_edit::DocumentMut>(),
        value.parse::<toml_edit::Value>(),
    ) else {
        return text.to_owned();
    };
    let root = doc.as_table_mut();
    let here = if table.is_empty() {
        root
    } else {
        let item = root
            .entry(table)
            .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
        match item.as_table_mut() {
            Some(t) => t,
            None => return text.to_owned(),
        }
    };
    match here.get_mut(key) {
        Some(toml_edit::Item::Value(old)) => {
            let decor = old.decor().clone();
            *old = new;
            *old.decor_mut() = decor;
        }
        Some(_) => return text.to_owned(),
        None => {
            here.insert(key, toml_edit::Item::Value(new));
        }
    }
    doc.to_string()
}

/// The pinsetter's serial port: `--port`, or asked from the ports found;
/// Enter keeps `configured` (the existing config's), plugged in or not.
fn ask_port<R: BufRead>(
    options: &Options,
    prompt: &mut Prompt<R>,
    configured: Option<PathBuf>,
) -> Result<PathBuf, String> {
    Ok(match &options.port {
        Some(port) => {
            port_ok(port, true).map_err(|e| format!("pinsetter.port: {e}"))?;
            port.clone()
        }
        None => {
            let found = serial_ports();
            if found.is_empty() {
                println!("No serial port found (is the adapter plugged in?).");
            } else {
                println!("Serial ports found:");
                for (i, p) in found.iter().enumerate() {
                    let note = port_note(p);
                    match fs::canonicalize(p) {
                        Ok(real) if real != *p => {
                            println!(
                                "  {}) {} -> {}  ({note})",
                                i + 1,
                                p.display(),
                                real.display()
                            )
                        }
                        _ => println!("  {}) {}  ({note})", i + 1, p.display()),
                    }
                }
            }
            let was = configured
                .clone()
                .or_else(|| (found.len() == 1).then(|| found[0].clone()));
            let question = match &was {
                Some(p) => format!(
                    "Pinsetter port (a number above or a path) [{}]: ",
                    p.display()
                ),
                None => "Pinsetter port (a number above or a path): ".to_owned(),
            };
            until(
                prompt,
                "pinsetter.port",
                &question,
                false,
                |prompt, answer| {
                    let port = match (answer.parse::<usize>(), &was) {
                        (Ok(n), _) if (1..=found.len()).contains(&n) => found[n - 1].clone(),
                        _ if answer.is_empty() && was.is_some() => was.clone().unwrap_or_default(),
                        _ => PathBuf::from(&answer),
                    };
                    if Some(&port) == configured.as_ref() && !port.exists() {
                        println!(
                            "pinsetter.port: {} is not there now: kept as configured; the lane \
                             opens it once the adapter is plugged in",
                            port.display()
                        );
                        return Ok(port);
                    }
                    // A person is asked before a missing name is kept.
                    match port_ok(&port, !prompt.terminal) {
                        Err(e) if prompt.terminal && port.starts_with(BY_ID) => {
                            println!("pinsetter.port: {e}");
                            let keep = prompt.ask(
                                "Keep it anyway, for an adapter not plugged in yet? [y/N]: ",
                            )?;
                            if keep.eq_ignore_ascii_case("y") {
                                Ok(port)
                            } else {
                                Err("not kept".into())
                            }
                        }
                        r => r.map(|()| port),
                    }
                },
            )?
        }
    })
}

/// The sound cards that can play, as the kernel lists them; none when it
/// lists none (no sound card, no ALSA).
fn sound_cards() -> Vec<Card> {
    let listed = cards::read_proc()
        .map(|text| cards::parse(&text))
        .unwrap_or_default();
    // A webcam's microphone is a card too, with nothing to play on.
    listed
        .into_iter()
        .filter(|c| Path::new(&format!("/proc/asound/card{}/pcm0p", c.index)).exists())
        .collect()
}

/// `[speaker] device`: the cards listed, a test callout played on the
/// one "auto" takes (or the one the config names), and another tried
/// until the person hears it. `play` plays the test callout on an ALSA
/// device. Returns the value to write, `None` to leave `configured` (the
/// file's value, `None` when it has none) as it is. Not asked of a script,
/// which nobody hears.
fn ask_speaker<R: BufRead>(
    prompt: &mut Prompt<R>,
    configured: Option<&str>,
    found: &[Card],
    play: &mut dyn FnMut(&str) -> Result<(), String>,
) -> Result<Option<String>, String> {
    let was = configured.unwrap_or("auto");
    if found.is_empty() {
        println!(
            "No sound card found: [speaker] device stays \"{was}\" (the lane speaks once one is \
             plugged in)."
        );
        return Ok(None);
    }
    let auto = cards::choose(found);
    println!("Sound cards:");
    for (i, c) in found.iter().enumerate() {
        let what = if c.long_name.is_empty() {
            &c.name
        } else {
            &c.long_name
        };
        let mark = if Some(c) == auto {
            "  (\"auto\" takes it)"
        } else {
            ""
        };
        println!("  {}) {}  {what}{mark}", i + 1, c.pcm());
    }
    let audible: Vec<&Card> = found.iter().filter(|c| c.audible()).collect();
    if audible.is_empty() {
        println!(
            "None of them has a speaker (a loopback or dummy card is heard by no one): \
             [speaker] device stays \"{was}\"."
        );
        return Ok(None);
    }
    if !prompt.terminal {
        println!(
            "[speaker] device stays \"{was}\" (at a terminal, setup plays a test callout and \
             asks whether it was heard)."
        );
        return Ok(None);
    }
    // The card the config names, else the one "auto" takes; accepting it
    // leaves the config's value (or writes "auto" over `default`).
    let named = configured
        .and_then(cards::card_of)
        .and_then(|id| found.iter().position(|c| c.id == id));
    let (mut index, keep) = match named {
        Some(i) => (i, was.to_owned()),
        None => {
            let auto = auto.and_then(|a| found.iter().position(|c| c == a));
            (auto.unwrap_or(0), "auto".to_owned())
        }
    };
    let preselected = index;
    let words = crate::speaker::TEST_WORDS.join(" ");
    loop {
        let pcm = found[index].pcm();
        println!("Playing \"{words}\" on {pcm} ...");
        let heard = match play(&pcm) {
            Ok(()) => loop {
                let answer = prompt.ask(&format!(
                    "Did you hear \"{words}\" from the lane's speaker? [Y/n]: "
                ))?;
                match answer.to_ascii_lowercase().as_str() {
                    "" | "y" | "yes" => break true,
                    "n" | "no" => break false,
                    _ => println!("speaker.device: answer y or n"),
                }
            },
            Err(e) => {
                println!("speaker.device: {pcm}: {e}");
                false
            }
        };
        if heard {
            let value = if index == preselected { keep } else { pcm };
            return Ok((value != was).then_some(value));
        }
        index = loop {
            let answer = prompt.ask(&format!(
                "Another card (a number above), or Enter to leave [speaker] device = \"{was}\": "
            ))?;
            if answer.is_empty() {
                return Ok(None);
            }
            match answer.parse::<usize>() {
                Ok(n) if (1..=found.len()).contains(&n) => break n - 1,
                _ => println!(
                    "speaker.device: {answer:?}: a number from 1 to {}",
                    found.len()
                ),
            }
        };
    }
}

/// Plays the test callout on `device` as the lane would: its voice, its
/// language and volume from `text` (the config as it will be written).
fn play_test_callout(text: &str, path: &Path, device: &str) -> Result<(), String> {
    let speaker = Config::parse(text, path)
        .map(|c| c.speaker)
        .unwrap_or_default();
    let clips = crate::speaker::test_callout(&speaker);
    let mut out = RodioOut::new(Some(device.to_owned()));
    let played = out.open().and_then(|_| out.play(&clips, speaker.volume));
    out.close();
    // A card the running service holds will not open a second time.
    played.map_err(|e| {
        format!("{e} (if lanecall is running it may hold the card: sudo systemctl stop lanecall)")
    })
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

/// systemd-timesyncd's drop-in that makes a lane take its time from the
/// competition centre (which serves it: the lanecall-centre package's
/// chrony), where the hall has no internet.
const TIMESYNCD_DROP_IN: &str = "/etc/systemd/timesyncd.conf.d/lanecall.conf";

/// The drop-in's text for the centre at `host`.
fn timesyncd_drop_in(host: &str) -> String {
    format!(
        "# Written by `lanecall setup`: this lane takes its time from the competition\n\
         # centre (its MQTT broker's host), which serves it even without internet.\n\
         # The lane takes the competition day from a synchronised clock.\n\
         [Time]\nNTP={host}\n"
    )
}

/// Points systemd-timesyncd at the centre (`drop_in`) and restarts it if
/// it runs. Said and left when it cannot: the lane then asks a judge for
/// the date, or takes the centre's over MQTT.
fn clock_from_centre(host: &str, drop_in: &Path) {
    match write_timesyncd_drop_in(host, drop_in) {
        Ok(()) => {
            let _ = Command::new("systemctl")
                .args(["try-restart", "systemd-timesyncd"])
                .status();
            println!(
                "The clock follows the centre: NTP={host} in {}.",
                drop_in.display()
            );
        }
        Err(e) => println!(
            "Cannot point the clock at the centre ({}: {e}); docs/install.md, \"The Pi's clock\".",
            drop_in.display()
        ),
    }
}

fn write_timesyncd_drop_in(host: &str, drop_in: &Path) -> io::Result<()> {
    if let Some(dir) = drop_in.parent() {
        std::fs::create_dir_all(dir)?;
    }
    write_atomically(drop_in, &timesyncd_drop_in(host), Some(0o644))
}

/// Replaces `path` by `text` through [`atomic_write_owned`]: with the old
/// file's owner and group (new: group `lanecall` when it exists and this is
/// root) and `mode` (`None`: the old file's, else [`CONFIG_MODE`]). The
/// folder is made first if need be. On an error the old file is as it was.
pub fn write_atomically(path: &Path, text: &str, mode: Option<u32>) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?;
    let mode = mode.or_else(|| match fs::metadata(path) {
        Ok(_) => None,
        Err(_) => Some(CONFIG_MODE),
    });
    atomic_write_owned(path, text.as_bytes(), mode, lanecall_group())
}

/// The `lanecall` group's id, for a new config the service must read.
fn lanecall_group() -> Option<u32> {
    if !rustix::process::geteuid().is_root() {
        return None;
    }
    fs::read_to_string("/etc/group")
        .ok()?
        .lines()
        .find_map(|l| {
            let mut f = l.split(':');
            (f.next()? == "lanecall").then(|| f.nth(1)?.parse().ok())?
        })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_lane_of_a_centre_takes_its_time_from_the_centres_host() {
        let dir = std::env::temp_dir().join(format!("lanecall-timesyncd-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let drop_in = dir.join("timesyncd.conf.d").join("lanecall.conf");
        write_timesyncd_drop_in("centre.local", &drop_in).unwrap();
        let text = std::fs::read_to_string(&drop_in).unwrap();
        let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(lines, ["[Time]", "NTP=centre.local"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    use super::*;

    #[test]
    fn each_kind_of_serial_port_is_said_what_it_is() {
        let note = |p: &str| port_note(Path::new(p));
        assert!(note("/dev/serial0").contains("header UART"));
        assert!(note("/dev/ttyS0").contains("mini-UART"));
        assert!(note("/dev/ttyAMA10").contains("Pi's UART"));
        assert!(note("/dev/ttyS1").contains("COM2"));
        assert!(note("/dev/serial/by-id/usb-FTDI-if00").contains("stays"));
        assert_eq!(note("/dev/ttyUSB0"), "a USB adapter");
    }

    #[test]
    fn a_pi_names_its_own_header_uart() {
        let on = |p: &str, model: &str| port_note_on(Path::new(p), Some(model));
        let pi5 = "Raspberry Pi 5 Model B Rev 1.0";
        assert!(
            on("/dev/ttyAMA0", pi5).contains("header UART")
                && on("/dev/ttyAMA0", pi5).contains("dtparam=uart0")
        );
        assert!(on("/dev/serial0", pi5).contains("debug connector"));
        assert!(on("/dev/ttyAMA10", pi5).contains("debug connector"));
        let pi4 = "Raspberry Pi 4 Model B Rev 1.4";
        assert!(
            on("/dev/serial0", pi4).contains("header UART")
                && on("/dev/serial0", pi4).contains("mini-UART")
        );
        assert!(on("/dev/ttyAMA0", pi4).contains("Bluetooth off"));
        assert_eq!(
            port_note_on(Path::new("/dev/serial0"), None),
            port_note_on(Path::new("/dev/serial0"), Some("PC"))
        );
    }

    /// A Pi 4 with a USB DAC: the jack is card 0, the DAC card 1.
    fn pi4_with_a_dac() -> Vec<Card> {
        cards::parse(concat!(
            " 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n",
            "                      bcm2835 Headphones\n",
            " 1 [Device         ]: USB-Audio - USB Audio Device\n",
            "                      C-Media Electronics Inc. USB Audio Device at usb-0000:01:00.0-1.2, full speed\n",
        ))
    }

    /// `ask_speaker` at a terminal with `answers`; the devices played on.
    fn speaker_dialogue(
        answers: &str,
        configured: Option<&str>,
        found: &[Card],
        silent: &[&str],
    ) -> (Result<Option<String>, String>, Vec<String>) {
        let mut played = Vec::new();
        let mut play = |device: &str| {
            played.push(device.to_owned());
            match silent.contains(&device) {
                true => Err("no such card".to_owned()),
                false => Ok(()),
            }
        };
        let mut prompt = Prompt::new(io::Cursor::new(answers.to_owned()), true);
        let got = ask_speaker(&mut prompt, configured, found, &mut play);
        (got, played)
    }

    #[test]
    fn the_card_auto_takes_is_played_first_and_accepting_it_leaves_auto() {
        let found = pi4_with_a_dac();
        let (got, played) = speaker_dialogue("\n", Some("auto"), &found, &[]);
        assert_eq!(got, Ok(None));
        assert_eq!(played, ["plughw:CARD=Device,DEV=0"]);
        // An old config's "default" (card 0, the jack) becomes "auto".
        let (got, _) = speaker_dialogue("y\n", Some("default"), &found, &[]);
        assert_eq!(got, Ok(Some("auto".to_owned())));
    }

    #[test]
    fn not_heard_another_card_is_played_and_written_once_heard() {
        let found = pi4_with_a_dac();
        let (got, played) = speaker_dialogue("n\n1\ny\n", None, &found, &[]);
        assert_eq!(got, Ok(Some("plughw:CARD=Headphones,DEV=0".to_owned())));
        assert_eq!(
            played,
            ["plughw:CARD=Device,DEV=0", "plughw:CARD=Headphones,DEV=0"]
        );
        // A card that does not play is said so and another is asked for;
        // a wrong number is asked again; Enter leaves the config as it is.
        let (got, played) =
            speaker_dialogue("7\n2\nn\n\n", None, &found, &["plughw:CARD=Device,DEV=0"]);
        assert_eq!(got, Ok(None));
        assert_eq!(played.len(), 2);
    }

    #[test]
    fn the_card_the_config_names_is_played_first_and_kept() {
        let found = pi4_with_a_dac();
        let named = "plughw:CARD=Headphones,DEV=0";
        let (got, played) = speaker_dialogue("\n", Some(named), &found, &[]);
        assert_eq!(got, Ok(None));
        assert_eq!(played, [named]);
    }

    #[test]
    fn without_a_card_or_a_person_nothing_is_played_or_asked() {
        let mut play = |_: &str| -> Result<(), String> { panic!("played") };
        // No input at all: a question would fail for want of an answer.
        let mut prompt = Prompt::new(io::Cursor::new(String::new()), true);
        assert_eq!(ask_speaker(&mut prompt, None, &[], &mut play), Ok(None));
        let loopback = cards::parse(" 0 [Loopback       ]: Loopback - Loopback\n");
        assert_eq!(
            ask_speaker(&mut prompt, None, &loopback, &mut play),
            Ok(None)
        );
        let mut script = Prompt::new(io::Cursor::new(String::new()), false);
        assert_eq!(
            ask_speaker(&mut script, None, &pi4_with_a_dac(), &mut play),
            Ok(None)
        );
    }

    #[test]
    fn a_value_is_replaced_in_its_table_only_and_a_comment_kept() {
        let text = "# top\nlane = 7 # here\n[a]\nport = \"x\"\n[pinsetter]\n  port = \"/dev/a#b\" # the port\nbaud = 9600\n";
        let new = set_value(text, "pinsetter", "port", "\"/dev/ttyUSB1\"");
        assert_eq!(
            new,
            "# top\nlane = 7 # here\n[a]\nport = \"x\"\n[pinsetter]\n  port = \"/dev/ttyUSB1\" # the port\nbaud = 9600\n"
        );
        assert_eq!(
            set_value(text, "", "lane", "12"),
            text.replace("lane = 7 # here", "lane = 12 # here")
        );
        // Missing: added at the end of its table, or with a new table.
        assert_eq!(
            set_value(
                "[speaker]\nvolume = 1.0 # loud\n\n[web]\n",
                "speaker",
                "language",
                "\"en\""
            ),
            "[speaker]\nvolume = 1.0 # loud\nlanguage = \"en\"\n\n[web]\n"
        );
        assert_eq!(
            set_value("lane = 1\n", "web", "judge_pin_hash", "\"h\""),
            "lane = 1\n\n[web]\njudge_pin_hash = \"h\"\n"
        );
        assert_eq!(
            set_value("# c\n[web]\n", "", "lane", "3"),
            "lane = 3\n# c\n[web]\n"
        );
        // A key whose name starts like another is not it; a commented-out
        // one stays a comment.
        assert_eq!(
            set_value(
                "[speaker]\nlanguages = 1\n# language = \"en\"\n",
                "speaker",
                "language",
                "\"ru\""
            ),
            "[speaker]\nlanguages = 1\nlanguage = \"ru\"\n# language = \"en\"\n"
        );
        // Not TOML: as it was.
        assert_eq!(set_value("lane = = 1\n", "", "lane", "2"), "lane = = 1\n");
    }
}

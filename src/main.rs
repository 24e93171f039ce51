//! The `lanecall` command line: parses arguments and calls into the library.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use lanecall::journal::Writer;
use lanecall::replay::{Replay, render_sheet};
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Replay { log, json, strict } => replay(log, json, strict),
        Command::Simulate {
            seed,
            games,
            blocks,
        } => simulate(seed, games, blocks),
    }
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
        out.write_all(render_sheet(&replay).as_bytes())
    };
    if let Err(e) = written.and_then(|()| out.flush())
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        eprintln!("lanecall replay: cannot write the result: {e}");
        return ExitCode::from(2);
    }
    for w in replay.warnings() {
        eprintln!("{}: line {}: warning: {}", log.display(), w.line, w.message);
    }
    for e in replay.errors() {
        eprintln!("{}: line {}: {}", log.display(), e.line, e.message);
    }
    if strict && !replay.errors().is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

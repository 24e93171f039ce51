//! A real `lanecall run` lane for the centre's tests: an open block, the
//! pinsetter on a pseudo-terminal, and the `[centre]` table's keys.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serialport::{SerialPort, TTYPort};

pub const PIN: &str = "246813";

pub use super::eventually as wait;

pub struct Lane {
    pub daemon: super::Daemon,
    pub pinsetter: TTYPort,
    pub dir: PathBuf,
    pub seq: u8,
    pub http: u16,
}

impl Lane {
    /// `lanecall run` for lane `n` with an open block for Ivan Petrov,
    /// and `centre` (the `[centre]` table's keys, or none).
    pub fn start(dir: &Path, n: u32, centre: Option<String>) -> Lane {
        Lane::start_with(dir, n, centre, &super::journal_with_open_block(n, 1))
    }

    /// [`Lane::start`] going on in `journal` (a block already open).
    pub fn start_with(dir: &Path, n: u32, centre: Option<String>, journal: &str) -> Lane {
        Lane::start_named(dir, n, centre, journal, "20260101T000000Z-01")
    }

    /// [`Lane::start_with`], its journal file `lane<n>-<stamp>.jsonl`.
    pub fn start_named(
        dir: &Path,
        n: u32,
        centre: Option<String>,
        journal: &str,
        stamp: &str,
    ) -> Lane {
        fs::create_dir_all(dir.join("journal")).unwrap();
        fs::write(dir.join(format!("journal/lane{n}-{stamp}.jsonl")), journal).unwrap();
        let (master, slave) = TTYPort::pair().expect("a pseudo-terminal pair");
        let port = slave.name().unwrap();
        let http = super::free_port();
        let hash = lanecall::web::hash_pin(PIN).unwrap();
        let config = super::write_config(dir, n, &port, http, &hash);
        if let Some(centre) = centre {
            let mut f = fs::OpenOptions::new().append(true).open(&config).unwrap();
            writeln!(f, "[centre]\n{centre}").unwrap();
        }
        let mut daemon = super::Daemon::start(&config, http);
        daemon.login(PIN);
        // The daemon holds the port now.
        drop(slave);
        Lane {
            daemon,
            pinsetter: master,
            dir: dir.to_owned(),
            seq: 0,
            http,
        }
    }

    pub fn journal_path(&self) -> PathBuf {
        let mut files: Vec<PathBuf> = fs::read_dir(self.dir.join("journal"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        files.pop().unwrap()
    }

    pub fn journal_text(&self) -> String {
        fs::read_to_string(self.journal_path()).unwrap()
    }

    /// The pinsetter sends the lines of `notation`; each is waited for
    /// in the journal.
    pub fn bowl(&mut self, notation: &str) {
        let lines = super::pinsetter_lines(notation, self.seq);
        self.seq = self.seq.wrapping_add(lines.len() as u8);
        for line in lines {
            self.pinsetter
                .write_all(format!("{line}\r\n").as_bytes())
                .unwrap();
            wait(&format!("{line} in the journal"), || {
                self.journal_text().contains(&line)
            });
        }
    }
}

//! The centre's command ids this lane has run: an `action` command runs at
//! most once per lane, even across a restart (docs/mqtt.md, "command and
//! reply"). At start the ids come from the `cmd` of the current journals'
//! action lines (the lane journals each command's id with its action);
//! then from the commands taken. It keeps only the last [`MAX_RAN`].

use std::collections::{HashSet, VecDeque};
use std::io::{self, BufRead, BufReader};
use std::path::PathBuf;

/// The most ids kept: far more commands than a lane gets in a day.
pub const MAX_RAN: usize = 1024;

/// The ids run, oldest first.
#[derive(Debug, Default)]
pub struct Ran {
    order: VecDeque<String>,
    ids: HashSet<String>,
}

impl Ran {
    /// The ids journaled in `files` (oldest first), the last [`MAX_RAN`].
    pub fn from_journals(files: &[PathBuf]) -> io::Result<Ran> {
        #[derive(serde::Deserialize)]
        struct Cmd {
            cmd: Option<String>,
        }
        let mut ran = Ran::default();
        for path in files {
            for line in BufReader::new(std::fs::File::open(path)?).lines() {
                let line = line?;
                // Most lines are sensor readings: no JSON read for them.
                if !line.contains("\"cmd\"") {
                    continue;
                }
                if let Ok(Cmd { cmd: Some(id) }) = serde_json::from_str(&line) {
                    ran.insert(id);
                }
            }
        }
        Ok(ran)
    }

    pub fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    /// `id` is run (or on its way to the lane).
    pub fn insert(&mut self, id: String) {
        if !self.ids.insert(id.clone()) {
            return;
        }
        self.order.push_back(id);
        if self.order.len() > MAX_RAN
            && let Some(old) = self.order.pop_front()
        {
            self.ids.remove(&old);
        }
    }

    /// `id` never reached the journal: it may be sent again.
    pub fn forget(&mut self, id: &str) {
        if self.ids.remove(id) {
            self.order.retain(|x| x != id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ids_journaled_are_known_and_only_the_last_ones_kept() {
        let dir = std::env::temp_dir().join(format!("lanecall-ran-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("lane6-20260101T000000Z-01.jsonl");
        std::fs::write(
            &file,
            "{\"journal\":\"lanecall\",\"version\":1,\"lane\":6}\n\
             {\"t\":1,\"ev\":\"hold\",\"on\":true,\"by\":\"centre: Ivanova\",\"cmd\":\"c-41\"}\n\
             {\"t\":2,\"ev\":\"serial\",\"line\":\"\\\"cmd\\\"\"}\n\
             {\"t\":3,\"ev\":\"hold\",\"on\":false,\"by\":\"Judge Orlova\"}\n",
        )
        .unwrap();
        let mut ran = Ran::from_journals(std::slice::from_ref(&file)).unwrap();
        assert!(ran.contains("c-41"));
        assert_eq!(ran.order.len(), 1);
        for i in 0..MAX_RAN {
            ran.insert(format!("n-{i}"));
        }
        assert!(!ran.contains("c-41"), "the oldest is forgotten");
        assert_eq!((ran.order.len(), ran.ids.len()), (MAX_RAN, MAX_RAN));
        ran.forget("n-5");
        assert!(!ran.contains("n-5"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! Games the chief judge voids (docs/centre.md, "Voided games"): a game a
//! lane bowled that must not count (bowled past its block, bowled by
//! mistake), kept in `voids.toml` in the centre's `state_dir` with who
//! voided it, when and why. A voided game counts nowhere: the standings
//! list it among the games not counted with its reason.
//!
//! A game is named by its lane, the lane's journal file, the bowler and
//! the game's number in that journal, as the journals tell it, so a
//! restarted centre voids the same game.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use super::standings::{BowledGame, Reason, Unplaced};
use crate::wall_clock::{rfc3339, unix_now};

/// The file, in the `state_dir`.
pub const FILE: &str = "voids.toml";
/// Voided games kept at most.
pub const MAX_VOIDS: usize = 10_000;
/// The longest reason kept.
pub const MAX_REASON: usize = 200;

/// One voided game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Void {
    pub lane: u32,
    pub journal: String,
    pub name: String,
    pub game: u32,
    /// The block the game was bowled in, as the page named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
    pub reason: String,
    pub by: String,
    pub at: String,
    pub at_unix: u64,
}

impl Void {
    fn is(&self, g: &BowledGame) -> bool {
        self.lane == g.lane
            && self.journal == g.journal
            && self.name == g.name
            && self.game == g.game
    }
}

#[derive(Default, Serialize, Deserialize)]
struct File {
    #[serde(default, rename = "void")]
    voids: Vec<Void>,
}

/// Why a game was not voided.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// It is voided already (by whom).
    Already(String),
    /// Too many voided games.
    Full,
    /// The file could not be written.
    Disk(String),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Already(by) => write!(f, "that game is voided already (by {by})"),
            Refused::Full => write!(f, "{MAX_VOIDS} games are voided already: no more are kept"),
            Refused::Disk(e) => write!(f, "cannot keep the voided game: {e}"),
        }
    }
}

/// The voided games, as kept in the `state_dir`.
pub struct Voids {
    path: Option<PathBuf>,
    list: Mutex<Vec<Void>>,
    /// Counts changes, for the standings computed once per change.
    revision: AtomicU64,
}

impl Voids {
    /// Those kept in `state_dir` (none when it has no `voids.toml`); none
    /// kept on disk without a `state_dir`.
    pub fn load(state_dir: Option<&Path>) -> Result<Voids, String> {
        let path = state_dir.map(|d| d.join(FILE));
        let list = match &path {
            Some(p) => match std::fs::read_to_string(p) {
                Ok(text) => {
                    toml::from_str::<File>(&text)
                        .map_err(|e| format!("{}: {e}", p.display()))?
                        .voids
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
                Err(e) => return Err(format!("cannot read {}: {e}", p.display())),
            },
            None => Vec::new(),
        };
        Ok(Voids {
            path,
            list: Mutex::new(list),
            revision: AtomicU64::new(0),
        })
    }

    pub fn revision(&self) -> u64 {
        self.revision.load(Ordering::Relaxed)
    }

    /// Every voided game, in the order voided.
    pub fn list(&self) -> Vec<Void> {
        self.list
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Voids game `g` (bowled in `block`) by `by` for `reason`, kept on
    /// disk before it counts.
    pub fn void(
        &self,
        g: &BowledGame,
        block: Option<&str>,
        reason: &str,
        by: &str,
    ) -> Result<Void, Refused> {
        let mut list = self.list.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(v) = list.iter().find(|v| v.is(g)) {
            return Err(Refused::Already(v.by.clone()));
        }
        if list.len() >= MAX_VOIDS {
            return Err(Refused::Full);
        }
        let now = unix_now();
        let v = Void {
            lane: g.lane,
            journal: g.journal.clone(),
            name: g.name.clone(),
            game: g.game,
            block: block.map(str::to_owned),
            reason: reason.chars().take(MAX_REASON).collect(),
            by: by.to_owned(),
            at: rfc3339(now),
            at_unix: now,
        };
        let mut next = list.clone();
        next.push(v.clone());
        if let Some(path) = &self.path {
            let text = toml::to_string(&File {
                voids: next.clone(),
            })
            .map_err(|e| Refused::Disk(e.to_string()))?;
            crate::atomic::atomic_write(path, text.as_bytes(), None)
                .map_err(|e| Refused::Disk(format!("{}: {e}", path.display())))?;
        }
        *list = next;
        self.revision.fetch_add(1, Ordering::Relaxed);
        Ok(v)
    }

    /// `games` split into those that count and the voided ones, each as a
    /// game not counted with its reason and who voided it.
    pub fn split(&self, games: Vec<BowledGame>) -> (Vec<BowledGame>, Vec<Unplaced>) {
        let list = self.list.lock().unwrap_or_else(PoisonError::into_inner);
        if list.is_empty() {
            return (games, Vec::new());
        }
        let mut voided = Vec::new();
        let counted = games
            .into_iter()
            .filter(|g| {
                let Some(v) = list.iter().find(|v| v.is(g)) else {
                    return true;
                };
                voided.push(Unplaced {
                    lane: g.lane,
                    journal: g.journal.clone(),
                    block: v.block.clone().or_else(|| g.block.clone()),
                    name: g.name.clone(),
                    game: g.game,
                    score: g.score,
                    reason: Reason::Voided.en(),
                    reason_ru: Reason::Voided.ru(),
                    note: Some(v.reason.clone()),
                    by: Some(v.by.clone()),
                    at: Some(v.at.clone()),
                });
                false
            })
            .collect();
        (counted, voided)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(n: u32) -> BowledGame {
        BowledGame {
            lane: 1,
            journal: "lane1-20261201T090000Z-000001.jsonl".into(),
            block: Some("S1".into()),
            name: "Ivan Petrov".into(),
            class: None,
            game: n,
            score: 100 + n,
            frames: 10,
            complete: true,
        }
    }

    #[test]
    fn a_voided_game_counts_nowhere_and_is_kept_across_a_restart() {
        let dir = std::env::temp_dir().join(format!("lanecall-voids-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let voids = Voids::load(Some(&dir)).unwrap();
        let v = voids
            .void(
                &game(2),
                Some("S1"),
                "bowled past the block",
                "Irina Orlova",
            )
            .unwrap();
        assert_eq!(v.by, "Irina Orlova");
        assert_eq!(
            voids.void(&game(2), None, "again", "Pavel"),
            Err(Refused::Already("Irina Orlova".into()))
        );
        assert_eq!(voids.revision(), 1);
        let again = Voids::load(Some(&dir)).unwrap();
        let (counted, voided) = again.split(vec![game(1), game(2)]);
        assert_eq!(counted, [game(1)]);
        assert_eq!(voided.len(), 1);
        assert_eq!(voided[0].game, 2);
        assert_eq!(voided[0].reason_ru, "аннулирована главным судьёй");
        assert_eq!(voided[0].note.as_deref(), Some("bowled past the block"));
        std::fs::write(dir.join(FILE), "void = 3").unwrap();
        let e = Voids::load(Some(&dir)).err().unwrap();
        assert!(e.contains("voids.toml"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

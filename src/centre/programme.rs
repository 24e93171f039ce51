//! The programme of a competition (docs/programme.md): a TOML file the chief
//! judge writes, with the entries, the events, the blocks and their lane
//! assignments, and the finals.
//!
//! This file is the checked programme and what it answers; `check.rs`
//! reads the file's raw shape and checks it.
//!
//! It reads and checks the file, every cross-reference at once, each
//! problem by its key and its line and column; and it gives a block's
//! lineups as the lanes take them. It never scores nor ranks.

mod check;

pub use check::{round_robin_games, text_problems};

use std::path::Path;

use serde::Deserialize;

use crate::lane::{Bowler, Class, Voice};

/// Why a programme cannot be used: read, syntax and content problems, as
/// for the lane's config.
pub type ProgrammeError = crate::config::ConfigError;

/// Why a block's lineups cannot be given.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineupError {
    #[error("the programme has no block {0:?}")]
    UnknownBlock(String),
    #[error("block {0:?} has no lane assignments yet")]
    NoLanes(String),
    #[error("every bowler of block {0:?} is withdrawn")]
    AllWithdrawn(String),
    /// Only for a programme built by hand: a checked one names only its
    /// entries.
    #[error("{0:?} is not an entry of the programme")]
    UnknownEntry(String),
}

/// Men or women.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
pub enum Sex {
    M,
    F,
}

impl Sex {
    pub fn as_str(self) -> &'static str {
        match self {
            Sex::M => "M",
            Sex::F => "F",
        }
    }
}

/// What an event is bowled as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    Singles,
    Doubles,
    Trios,
    Teams,
}

impl EventKind {
    /// Bowlers in one team of this kind.
    pub fn members(self) -> usize {
        match self {
            EventKind::Singles => 1,
            EventKind::Doubles => 2,
            EventKind::Trios => 3,
            EventKind::Teams => 4,
        }
    }
}

/// A judge, from `"role: name"`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Judge {
    pub role: String,
    pub name: String,
}

/// A bowler entered in the competition.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Entry {
    pub name: String,
    pub class: Class,
    pub sex: Sex,
    pub region: String,
    pub team: Option<String>,
    /// Pins added per game (0 when not given).
    pub handicap: crate::lane::Handicap,
    /// Withdrawn from the competition: kept in the entries, the standings
    /// and the protocol, left out of every lineup.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub withdrawn: bool,
}

/// A team of a doubles, trios or teams event.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Team {
    pub name: String,
    pub members: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Event {
    pub id: String,
    pub kind: EventKind,
    /// Empty for singles.
    pub teams: Vec<Team>,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Block {
    pub id: String,
    pub event: String,
    pub games: u32,
    /// The competition day, from 1.
    pub day: u32,
    /// Lane number and its bowlers in lane order, by lane number.
    pub lanes: Vec<(u32, Vec<String>)>,
}

/// The finals of one category.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Finals {
    /// A category id ([`Category::id`]).
    pub category: String,
    /// The round robin's block: one game per round.
    pub round_robin: String,
    /// The two step-ladder blocks: 3rd against 2nd, then its winner
    /// against 1st.
    pub step_ladder: [String; 2],
    /// Winners of roll-offs that broke a tied step-ladder match.
    pub roll_off: Vec<String>,
    /// A roll-off's winner recorded on the centre's page, by the
    /// step-ladder block whose tied match it broke; it decides that match
    /// before `roll_off` does.
    pub roll_off_won: std::collections::BTreeMap<String, String>,
    /// The round robin takes the category's top `size` (3 to
    /// [`ROUND_ROBIN_SIZE`]; all its bowlers when fewer): its block bowls
    /// [`round_robin_games`] of that many, whatever the file wrote.
    pub size: usize,
}

/// A singles category: a class's men, its women, or both combined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Category {
    /// `B1-M`, `B1-F`, or `B1` when combined.
    pub id: String,
    pub class: Class,
    /// `None`: men and women combined.
    pub sex: Option<Sex>,
}

impl Category {
    pub fn combined(&self) -> bool {
        self.sex.is_none()
    }
    pub fn title(&self) -> String {
        let who = match self.sex {
            Some(Sex::M) => "men",
            Some(Sex::F) => "women",
            None => "men and women",
        };
        format!("{} {who}", self.class.as_str())
    }
    pub fn title_ru(&self) -> String {
        let who = match self.sex {
            Some(Sex::M) => "мужчины",
            Some(Sex::F) => "женщины",
            None => "мужчины и женщины",
        };
        format!("{} {who}", self.class.as_str())
    }
    /// Whether `e` bowls in this category.
    pub fn holds(&self, e: &Entry) -> bool {
        e.class == self.class && self.sex.is_none_or(|s| s == e.sex)
    }
}

/// A class's men and women are one category when the class has this many
/// bowlers or fewer (docs/programme.md, "Categories").
pub const COMBINED_MAX: usize = 12;
/// Pins a woman gets per game in a combined category.
pub const COMBINED_WOMEN_PINS: u32 = 10;
/// Bowlers of a category in its round robin.
pub const ROUND_ROBIN_SIZE: usize = 8;

/// A checked programme.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Programme {
    pub title: String,
    pub title_ru: Option<String>,
    pub dates: String,
    pub place: String,
    pub judges: Vec<Judge>,
    pub entries: Vec<Entry>,
    pub events: Vec<Event>,
    pub blocks: Vec<Block>,
    pub finals: Vec<Finals>,
    /// Every name a journal may hold for a bowler whose name was corrected
    /// on the centre's page, to the entry's name now (`entries/rename.rs`);
    /// empty for a programme file read alone.
    #[serde(skip)]
    pub renamed: std::collections::BTreeMap<String, String>,
}

impl Programme {
    /// Reads and checks the file at `path`, as the configs are read.
    pub fn load(path: &Path) -> Result<Programme, ProgrammeError> {
        crate::config::load_file(path, Programme::parse)
    }

    /// Checks `text`; `path` only names the file in errors. Its shape
    /// (every key, every type) is serde's, from the raw structs: an unknown
    /// key is named with the nearest known one, as in the configs, a wrong
    /// type is toml's message, both with their line and column; the
    /// cross-references are checked after, every problem at once.
    pub fn parse(text: &str, path: &Path) -> Result<Programme, ProgrammeError> {
        let raw: check::Raw =
            toml::from_str(text).map_err(|e| crate::config::serde_error(path, text, &e))?;
        let mut found = check::Found::new(text);
        let programme = check::check(raw, &mut found);
        if found.problems.is_empty() {
            Ok(programme)
        } else {
            Err(ProgrammeError::Invalid {
                path: path.to_owned(),
                problems: found.problems,
            })
        }
    }

    /// The programme of `text` (the programme file, already checked on its
    /// own) with its `[[entry]]` tables replaced by `entries` (the
    /// centre's entries file, `entries.rs`), checked as one file: every
    /// problem by its key (`entry[3].handicap`), named in `path`, with no
    /// line or column (the text checked is made here, not written).
    pub fn with_entries(
        text: &str,
        entries: Vec<toml::Value>,
        path: &Path,
    ) -> Result<Programme, ProgrammeError> {
        let mut table: toml::Table =
            text.parse()
                .map_err(|e: toml::de::Error| ProgrammeError::Syntax {
                    path: path.to_owned(),
                    message: e.to_string(),
                })?;
        table.insert("entry".into(), toml::Value::Array(entries));
        let merged = toml::to_string(&table).map_err(|e| ProgrammeError::Syntax {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        Programme::parse(&merged, path).map_err(|e| match e {
            ProgrammeError::Invalid { path, problems } => ProgrammeError::Invalid {
                path,
                problems: problems
                    .into_iter()
                    .map(|p| crate::config::Problem { at: None, ..p })
                    .collect(),
            },
            ProgrammeError::Syntax { path, message } => ProgrammeError::Syntax {
                path,
                message: message.lines().last().unwrap_or_default().to_owned(),
            },
            other => other,
        })
    }

    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }
    pub fn event(&self, id: &str) -> Option<&Event> {
        self.events.iter().find(|e| e.id == id)
    }
    pub fn block(&self, id: &str) -> Option<&Block> {
        self.blocks.iter().find(|b| b.id == id)
    }

    /// The singles categories, B1 to B3, men before women: a class with
    /// [`COMBINED_MAX`] bowlers or fewer is one combined category. A
    /// class or sex with no bowler has no category.
    pub fn categories(&self) -> Vec<Category> {
        let mut out = Vec::new();
        for class in [Class::B1, Class::B2, Class::B3] {
            let of = |sex: Sex| {
                self.entries
                    .iter()
                    .filter(|e| e.class == class && e.sex == sex)
                    .count()
            };
            let (men, women) = (of(Sex::M), of(Sex::F));
            if men + women == 0 {
                continue;
            }
            if men + women <= COMBINED_MAX {
                out.push(Category {
                    id: class.as_str().to_owned(),
                    class,
                    sex: None,
                });
                continue;
            }
            for (sex, n) in [(Sex::M, men), (Sex::F, women)] {
                if n > 0 {
                    out.push(Category {
                        id: format!("{}-{}", class.as_str(), sex.as_str()),
                        class,
                        sex: Some(sex),
                    });
                }
            }
        }
        out
    }

    /// Pins added to each game of `e` in a singles block: the entry's
    /// handicap, and [`COMBINED_WOMEN_PINS`] for a woman in a combined
    /// category.
    pub fn singles_handicap(&self, e: &Entry) -> (i32, u32) {
        let combined = self.categories().iter().any(|c| c.combined() && c.holds(e));
        let women = if combined && e.sex == Sex::F {
            COMBINED_WOMEN_PINS
        } else {
            0
        };
        (e.handicap, women)
    }

    /// What the centre sends each lane for `block`: by lane number, the
    /// bowlers in lane order. In a team event a bowler's team is the
    /// event's team; the handicap is the entry's, plus a woman's pins in a
    /// combined category in singles. A withdrawn entry is left out, and a
    /// lane left with no bowler.
    pub fn lineups(&self, block: &str) -> Result<Vec<(u32, Vec<Bowler>)>, LineupError> {
        let b = self
            .block(block)
            .ok_or_else(|| LineupError::UnknownBlock(block.to_owned()))?;
        if b.lanes.is_empty() {
            return Err(LineupError::NoLanes(block.to_owned()));
        }
        let event = self.event(&b.event);
        let singles = event.is_some_and(|e| e.kind == EventKind::Singles);
        let bowler = |name: &String| {
            let e = self
                .entry(name)
                .ok_or_else(|| LineupError::UnknownEntry(name.clone()))?;
            let team = event
                .and_then(|ev| ev.teams.iter().find(|t| t.members.contains(name)))
                .map(|t| t.name.clone())
                .or_else(|| e.team.clone());
            let (handicap, women) = if singles {
                self.singles_handicap(e)
            } else {
                (e.handicap, 0)
            };
            Ok(Bowler {
                name: name.clone(),
                class: e.class,
                handicap: handicap + women as i32,
                team,
                voice: Voice::default(),
            })
        };
        let mut out = Vec::new();
        for (lane, names) in &b.lanes {
            let bowlers: Vec<Bowler> = names
                .iter()
                .filter(|n| self.entry(n).is_none_or(|e| !e.withdrawn))
                .map(bowler)
                .collect::<Result<_, _>>()?;
            if !bowlers.is_empty() {
                out.push((*lane, bowlers));
            }
        }
        if out.is_empty() {
            return Err(LineupError::AllWithdrawn(block.to_owned()));
        }
        Ok(out)
    }
}

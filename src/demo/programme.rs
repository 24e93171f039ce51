//! The demo centre's built-in programme (`lanecall demo --lanes N`
//! without `--programme`): three bowlers a lane (a B1, a B2 and a B3, men
//! and women, each lane a region's team of three), a qualifying singles
//! block, a trios block and the B1 finals, so that a director sees
//! categories, a team event and finals (docs/programme.md).

use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::centre::programme::Programme;
use crate::sim::demo_name;

/// The regions the demo's lanes come from: lane `k` is the team of the
/// `k`-th, numbered past the twelfth.
const REGIONS: [&str; 12] = [
    "Moscow", "Kazan", "Tula", "Ufa", "Omsk", "Perm", "Samara", "Tver", "Kursk", "Sochi",
    "Vologda", "Irkutsk",
];

/// The team (and region) of lane `lane`.
fn team(lane: u32) -> String {
    let k = lane.saturating_sub(1) as usize;
    match k / REGIONS.len() {
        0 => REGIONS[k].to_owned(),
        n => format!("{} {}", REGIONS[k % REGIONS.len()], n + 1),
    }
}

/// The qualifying block's games (block `Q1`).
pub const QUALIFYING_GAMES: u8 = 2;

/// The programme of a demo centre of lanes 1 to `lanes`, as TOML.
pub fn programme(lanes: u32) -> String {
    let mut t = String::from(
        "# The demo centre's programme, written by `lanecall demo --lanes`.\n\
         title = \"lanecall demo championship\"\n\
         title_ru = \"Демонстрационный чемпионат lanecall\"\n\
         dates = \"today\"\n\
         place = \"the demo's bowling centre\"\n\
         judges = [\"chief judge: Irina Orlova\", \"chief secretary: Pavel Sokolov\", \"lane judge: Judge Orlova\"]\n",
    );
    let names = |lane: u32| -> Vec<String> { (0..3).map(|i| demo_name(lane, i).0).collect() };
    let list = |names: &[String]| -> String {
        let quoted: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
        format!("[{}]", quoted.join(", "))
    };
    for lane in 1..=lanes {
        for (i, class) in ["B1", "B2", "B3"].iter().enumerate() {
            let (name, woman) = demo_name(lane, i);
            let sex = if woman { "F" } else { "M" };
            let team = team(lane);
            let _ = write!(
                t,
                "\n[[entry]]\nname = {name:?}\nclass = \"{class}\"\nsex = \"{sex}\"\nregion = {team:?}\nteam = {team:?}\n"
            );
        }
    }
    t += "\n[[event]]\nid = \"singles\"\nkind = \"singles\"\n";
    let teams: Vec<String> = (1..=lanes)
        .map(|l| format!("{:?} = {}", team(l), list(&names(l))))
        .collect();
    let _ = write!(
        t,
        "\n[[event]]\nid = \"trios\"\nkind = \"trios\"\nteams = {{ {} }}\n",
        teams.join(", ")
    );
    // The trios bowl in the other order: each block's lineup its own.
    let lanes_of = |reversed: bool| -> String {
        let lanes: Vec<String> = (1..=lanes)
            .map(|l| {
                let mut names = names(l);
                if reversed {
                    names.reverse();
                }
                format!("{l} = {}", list(&names))
            })
            .collect();
        lanes.join(", ")
    };
    let _ = write!(
        t,
        "\n[[block]]\nid = \"Q1\"\nevent = \"singles\"\ngames = {QUALIFYING_GAMES}\nday = 1\nlanes = {{ {} }}\n\
         \n[[block]]\nid = \"T1\"\nevent = \"trios\"\ngames = 1\nday = 1\nlanes = {{ {} }}\n",
        lanes_of(false),
        lanes_of(true)
    );
    // The B1 finals: one B1 a lane, men and women combined up to 12
    // (docs/programme.md, "Categories"); the step-ladder needs three.
    if (3..=12).contains(&lanes) {
        let seeds = lanes.min(8);
        let rounds = if seeds.is_multiple_of(2) {
            seeds - 1
        } else {
            seeds
        };
        let _ = write!(
            t,
            "\n# The finals' lanes are set once the finalists are known.\n\
             [[block]]\nid = \"RR-B1\"\nevent = \"singles\"\ngames = {rounds}\nday = 2\n\
             \n[[block]]\nid = \"SL1-B1\"\nevent = \"singles\"\ngames = 1\nday = 2\n\
             \n[[block]]\nid = \"SL2-B1\"\nevent = \"singles\"\ngames = 1\nday = 2\n\
             \n[[finals]]\ncategory = \"B1\"\nround_robin = \"RR-B1\"\nstep_ladder = [\"SL1-B1\", \"SL2-B1\"]\n"
        );
    }
    t
}

/// The programme a demo centre runs: the file given, or the built-in one
/// for lanes 1 to `lanes` written into `dir`.
pub struct DemoProgramme {
    pub path: PathBuf,
    /// Its first block with lanes, pushed once the lanes are online.
    pub first_block: Option<String>,
}

impl DemoProgramme {
    pub fn prepare(dir: &Path, lanes: u32, given: Option<&Path>) -> Result<DemoProgramme, String> {
        let path = match given {
            Some(p) => p.to_owned(),
            None => {
                let path = dir.join("programme.toml");
                std::fs::create_dir_all(dir)
                    .and_then(|()| std::fs::write(&path, programme(lanes)))
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                path
            }
        };
        let p = Programme::load(&path).map_err(|e| e.to_string())?;
        let first_block = p
            .blocks
            .iter()
            .find(|b| p.lineups(&b.id).is_ok())
            .map(|b| b.id.clone());
        Ok(DemoProgramme { path, first_block })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::centre::programme::EventKind;

    #[test]
    fn every_demo_programme_passes_the_programmes_checks() {
        for lanes in [1, 2, 3, 4, 7, 8, 12, 13, 48, 128] {
            let text = programme(lanes);
            let p = Programme::parse(&text, std::path::Path::new("demo.toml"))
                .unwrap_or_else(|e| panic!("{lanes} lanes: {e}\n{text}"));
            assert_eq!(p.entries.len(), 3 * lanes as usize);
            let kinds: Vec<EventKind> = p.events.iter().map(|e| e.kind).collect();
            assert_eq!(kinds, [EventKind::Singles, EventKind::Trios]);
            assert_eq!(
                p.finals.len(),
                usize::from((3..=12).contains(&lanes)),
                "{lanes}"
            );
            let q1 = p.lineups("Q1").unwrap();
            assert_eq!(q1.len(), lanes as usize);
        }
    }
}

//! The programme file's raw shape and its checks: every cross-reference,
//! each problem with its key and place.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use toml::Spanned;

use super::{
    Block, COMBINED_MAX, Category, Entry, Event, EventKind, Finals, Judge, Programme,
    ROUND_ROBIN_SIZE, Sex, Team,
};
use crate::lane::{Class, Handicap, MAX_BOWLERS, MAX_GAMES, MAX_HANDICAP, handicap};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Raw {
    title: String,
    title_ru: Option<String>,
    dates: String,
    place: String,
    #[serde(default)]
    judges: Vec<Spanned<String>>,
    #[serde(default)]
    entry: Vec<RawEntry>,
    #[serde(default)]
    event: Vec<RawEvent>,
    #[serde(default)]
    block: Vec<RawBlock>,
    #[serde(default)]
    finals: Vec<RawFinals>,
}

type Names = Vec<Spanned<String>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    name: Spanned<String>,
    class: Class,
    sex: Sex,
    region: Spanned<String>,
    team: Option<Spanned<String>>,
    handicap: Option<Spanned<i64>>,
    #[serde(default)]
    withdrawn: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEvent {
    id: Spanned<String>,
    kind: Spanned<EventKind>,
    #[serde(default)]
    teams: BTreeMap<Spanned<String>, Names>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBlock {
    id: Spanned<String>,
    event: Spanned<String>,
    games: Spanned<i64>,
    day: Spanned<i64>,
    lanes: Option<Spanned<BTreeMap<Spanned<String>, Names>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFinals {
    category: Spanned<String>,
    round_robin: Spanned<String>,
    step_ladder: Spanned<Names>,
    #[serde(default)]
    roll_off: Names,
    /// The round robin's top N (default [`ROUND_ROBIN_SIZE`]).
    size: Option<Spanned<i64>>,
}

/// Problems found, each placed by the byte offset of what it is about:
/// the configs' collector, given the programme's text.
pub(super) type Found<'t> = crate::config::Check<'t>;

/// Raw into checked, every problem into `found`.
pub(super) fn check(raw: Raw, found: &mut Found) -> Programme {
    let mut judges = Vec::new();
    for (i, j) in raw.judges.iter().enumerate() {
        let key = format!("judges[{}]", i + 1);
        match j.get_ref().split_once(':') {
            Some((role, name)) if !role.trim().is_empty() && !name.trim().is_empty() => {
                judges.push(Judge {
                    role: role.trim().to_owned(),
                    name: name.trim().to_owned(),
                });
            }
            _ => found.add(key, j, format!("{:?} is not \"role: name\"", j.get_ref())),
        }
    }

    let mut entries: Vec<Entry> = Vec::new();
    for (i, e) in raw.entry.iter().enumerate() {
        let key = format!("entry[{}]", i + 1);
        let name = e.name.get_ref();
        let team = e.team.as_ref().map(|t| t.get_ref().as_str());
        let text = text_problems(name, e.region.get_ref(), team);
        for (field, m) in text {
            let at = match field {
                "region" => &e.region,
                "team" => e.team.as_ref().unwrap_or(&e.name),
                _ => &e.name,
            };
            found.add(format!("{key}.{field}"), at, m);
        }
        if entries.iter().any(|x| &x.name == name) {
            found.add(
                format!("{key}.name"),
                &e.name,
                format!("{name:?} is entered twice"),
            );
        }
        let handicap = match &e.handicap {
            Some(h) => match Handicap::try_from(*h.get_ref()) {
                Ok(n) if handicap::in_range(n) => n,
                _ => {
                    let m = format!(
                        "{} is not a handicap (0 to {MAX_HANDICAP} pins a game)",
                        h.get_ref()
                    );
                    found.add(format!("{key}.handicap"), h, m);
                    0
                }
            },
            None => 0,
        };
        entries.push(Entry {
            name: name.clone(),
            class: e.class,
            sex: e.sex,
            region: e.region.get_ref().clone(),
            team: e.team.as_ref().map(|t| t.get_ref().clone()),
            handicap,
            withdrawn: e.withdrawn,
        });
    }
    let known = |n: &str| entries.iter().any(|e| e.name == n);

    let mut events: Vec<Event> = Vec::new();
    for (i, ev) in raw.event.iter().enumerate() {
        let key = format!("event[{}]", i + 1);
        let id = ev.id.get_ref();
        if id.trim().is_empty() {
            found.add(format!("{key}.id"), &ev.id, "the id is empty");
        } else if events.iter().any(|x| &x.id == id) {
            found.add(
                format!("{key}.id"),
                &ev.id,
                format!("event {id:?} is defined twice"),
            );
        }
        let kind = *ev.kind.get_ref();
        if kind == EventKind::Singles && !ev.teams.is_empty() {
            found.add(
                format!("{key}.teams"),
                &ev.kind,
                "a singles event has no teams",
            );
        }
        if kind != EventKind::Singles && ev.teams.is_empty() {
            found.add(
                format!("{key}.kind"),
                &ev.kind,
                "a team event needs its teams",
            );
        }
        let mut teams: Vec<Team> = Vec::new();
        for (team, members) in &ev.teams {
            let tkey = format!("{key}.teams.{}", team.get_ref());
            if members.len() != kind.members() {
                let m = format!(
                    "team {:?} has {} member(s); a {} team has {}",
                    team.get_ref(),
                    members.len(),
                    kind_name(kind),
                    kind.members()
                );
                found.add(tkey.clone(), team, m);
            }
            for (j, m) in members.iter().enumerate() {
                let name = m.get_ref();
                let mkey = format!("{tkey}[{}]", j + 1);
                if !known(name) {
                    found.add(mkey, m, format!("{name:?} is not an entry"));
                } else if let Some(other) = teams.iter().find(|t| t.members.contains(name)) {
                    let msg = format!("{name:?} is already in team {:?} of this event", other.name);
                    found.add(mkey, m, msg);
                } else if members[..j].iter().any(|x| x.get_ref() == name) {
                    found.add(mkey, m, format!("{name:?} is twice in the team"));
                }
            }
            teams.push(Team {
                name: team.get_ref().clone(),
                members: members.iter().map(|m| m.get_ref().clone()).collect(),
            });
        }
        events.push(Event {
            id: id.clone(),
            kind,
            teams,
        });
    }

    let mut blocks: Vec<Block> = Vec::new();
    for (i, b) in raw.block.iter().enumerate() {
        let key = format!("block[{}]", i + 1);
        let id = b.id.get_ref();
        if id.trim().is_empty() {
            found.add(format!("{key}.id"), &b.id, "the id is empty");
        } else if blocks.iter().any(|x| &x.id == id) {
            found.add(
                format!("{key}.id"),
                &b.id,
                format!("block {id:?} is defined twice"),
            );
        }
        let event = events.iter().find(|e| &e.id == b.event.get_ref());
        if event.is_none() {
            let m = format!("there is no event {:?}", b.event.get_ref());
            found.add(format!("{key}.event"), &b.event, m);
        }
        let games = *b.games.get_ref();
        if !(1..=i64::from(MAX_GAMES)).contains(&games) {
            let m = format!("{games} games: a block has 1 to {MAX_GAMES}");
            found.add(format!("{key}.games"), &b.games, m);
        }
        let day = *b.day.get_ref();
        if !(1..=366).contains(&day) {
            found.add(
                format!("{key}.day"),
                &b.day,
                format!("day {day}: days count from 1"),
            );
        }
        let mut lanes: Vec<(u32, Vec<String>)> = Vec::new();
        // In the file's order, so that a lane written twice is reported
        // where it is written the second time.
        let mut raw_lanes: Vec<_> = b.lanes.iter().flat_map(|l| l.get_ref()).collect();
        raw_lanes.sort_by_key(|(lane, _)| lane.span().start);
        for (lane, names) in raw_lanes {
            let lkey = format!("{key}.lanes.{}", lane.get_ref());
            let number = match lane.get_ref().parse::<u32>() {
                Ok(n) if n >= 1 => n,
                _ => {
                    let m = format!("{:?} is not a lane number", lane.get_ref());
                    found.add(lkey, lane, m);
                    continue;
                }
            };
            if lanes.iter().any(|(n, _)| *n == number) {
                found.add(
                    lkey.clone(),
                    lane,
                    format!("lane {number} is written twice"),
                );
            }
            if !(1..=MAX_BOWLERS).contains(&names.len()) {
                let m = format!(
                    "{} bowlers on lane {number}: a lane takes 1 to {MAX_BOWLERS}",
                    names.len()
                );
                found.add(lkey.clone(), lane, m);
            }
            for (j, n) in names.iter().enumerate() {
                let name = n.get_ref();
                let nkey = format!("{lkey}[{}]", j + 1);
                if !known(name) {
                    found.add(nkey, n, format!("{name:?} is not an entry"));
                    continue;
                }
                let elsewhere = lanes.iter().find(|(_, l)| l.contains(name));
                if let Some((other, _)) = elsewhere {
                    let m = format!("{name:?} is already on lane {other} in this block");
                    found.add(nkey, n, m);
                } else if names[..j].iter().any(|x| x.get_ref() == name) {
                    found.add(nkey, n, format!("{name:?} is twice on lane {number}"));
                } else if let Some(ev) = event
                    && ev.kind != EventKind::Singles
                    && !ev.teams.iter().any(|t| t.members.contains(name))
                {
                    let m = format!("{name:?} is in no team of event {:?}", ev.id);
                    found.add(nkey, n, m);
                }
            }
            lanes.push((number, names.iter().map(|n| n.get_ref().clone()).collect()));
        }
        lanes.sort_by_key(|(n, _)| *n);
        if let (Some(ev), Some(at)) = (event, &b.lanes) {
            for t in &ev.teams {
                let on = t
                    .members
                    .iter()
                    .filter(|m| lanes.iter().any(|(_, l)| l.contains(m)))
                    .count();
                if on != 0 && on != t.members.len() {
                    let m = format!(
                        "team {:?} has {on} of its {} members in this block",
                        t.name,
                        t.members.len()
                    );
                    found.add(format!("{key}.lanes"), at, m);
                }
            }
        }
        blocks.push(Block {
            id: id.clone(),
            event: b.event.get_ref().clone(),
            games: games.clamp(1, i64::from(MAX_GAMES)) as u32,
            day: day.clamp(1, 366) as u32,
            lanes,
        });
    }

    let mut programme = Programme {
        title: raw.title,
        title_ru: raw.title_ru,
        dates: raw.dates,
        place: raw.place,
        judges,
        entries,
        events,
        blocks,
        finals: Vec::new(),
        renamed: Default::default(),
    };
    let (finals, games) = check_finals(&programme, &raw.finals, found);
    programme.finals = finals;
    // The finals' blocks bowl the games the finals need, whatever the
    // file wrote (docs/programme.md, "Finals sized from the entries").
    for (id, n) in games {
        if let Some(b) = programme.blocks.iter_mut().find(|b| b.id == id) {
            b.games = n;
        }
    }
    programme
}

/// The category a finals' `category` names, from its id alone: `B1`
/// (men and women combined), `B1-M`, `B1-F`.
fn category_of(id: &str) -> Option<Category> {
    let (class, sex) = match id.split_once('-') {
        Some((c, "M")) => (c, Some(Sex::M)),
        Some((c, "F")) => (c, Some(Sex::F)),
        Some(_) => return None,
        None => (id, None),
    };
    let class = [Class::B1, Class::B2, Class::B3]
        .into_iter()
        .find(|c| c.as_str() == class)?;
    Some(Category {
        id: id.to_owned(),
        class,
        sex,
    })
}

/// Games of a round robin of `n` bowlers: one a round, `n - 1` rounds for
/// an even `n`, `n` for an odd one (a bye each round).
pub fn round_robin_games(n: usize) -> u32 {
    (if n.is_multiple_of(2) {
        n.saturating_sub(1)
    } else {
        n
    }) as u32
}

fn check_finals(
    p: &Programme,
    raw: &[RawFinals],
    found: &mut Found,
) -> (Vec<Finals>, Vec<(String, u32)>) {
    let categories = p.categories();
    let mut out: Vec<Finals> = Vec::new();
    let mut games: Vec<(String, u32)> = Vec::new();
    let mut used: BTreeSet<String> = BTreeSet::new();
    for (i, f) in raw.iter().enumerate() {
        let key = format!("finals[{}]", i + 1);
        let cat = f.category.get_ref();
        let category = categories.iter().find(|c| &c.id == cat);
        let in_class = |class: Class| p.entries.iter().filter(|e| e.class == class).count();
        match (category, category_of(cat)) {
            (None, None) => {
                let m = format!(
                    "there is no category {cat:?}: a category is B1, B2 or B3, \
                     with -M or -F when its men and women are apart"
                );
                found.add(format!("{key}.category"), &f.category, m);
            }
            // A class of more than COMBINED_MAX bowlers has no combined
            // category: finals made for it would vanish.
            (None, Some(c)) if c.combined() && in_class(c.class) > COMBINED_MAX => {
                let class = c.class.as_str();
                let m = format!(
                    "there is no category {cat:?}: class {class} has {} bowlers, more than \
                     {COMBINED_MAX}, so its men and women are two categories, {class}-M and \
                     {class}-F; these finals need their category changed, or the class \
                     {COMBINED_MAX} bowlers or fewer",
                    in_class(c.class)
                );
                found.add(format!("{key}.category"), &f.category, m);
            }
            // No bowler of it yet, or a class still combined: the finals
            // wait for their bowlers.
            (None, Some(_)) => {}
            (Some(_), _) if out.iter().any(|x| &x.category == cat) => {
                let m = format!("category {cat:?} has finals twice");
                found.add(format!("{key}.category"), &f.category, m);
            }
            (Some(_), _) => {}
        }
        let size = match &f.size {
            None => ROUND_ROBIN_SIZE,
            Some(n) if (3..=ROUND_ROBIN_SIZE as i64).contains(n.get_ref()) => *n.get_ref() as usize,
            Some(n) => {
                let m = format!(
                    "a round robin of the top {}: it takes the top 3 to {ROUND_ROBIN_SIZE} \
                     (the step-ladder needs 3)",
                    n.get_ref()
                );
                found.add(format!("{key}.size"), n, m);
                ROUND_ROBIN_SIZE
            }
        };
        let bowlers = category.map_or(0, |c| {
            p.entries
                .iter()
                .filter(|e| c.holds(e) && !e.withdrawn)
                .count()
        });
        let seeds = bowlers.min(size);
        let mut block = |what: String, id: &Spanned<String>, n: u32| {
            let name = id.get_ref();
            let Some(b) = p.block(name) else {
                found.add(what, id, format!("there is no block {name:?}"));
                return;
            };
            if !used.insert(name.clone()) {
                found.add(what, id, format!("block {name:?} is in the finals twice"));
                return;
            }
            if p.event(&b.event)
                .is_some_and(|e| e.kind != EventKind::Singles)
            {
                let m = format!("block {name:?} is not in a singles event");
                found.add(what, id, m);
            } else if n > 0 {
                games.push((name.clone(), n));
            }
        };
        // With no bowler yet, the round robin keeps the games written.
        block(
            format!("{key}.round_robin"),
            &f.round_robin,
            round_robin_games(seeds),
        );
        let ladder = f.step_ladder.get_ref();
        if ladder.len() == 2 {
            for (j, b) in ladder.iter().enumerate() {
                block(format!("{key}.step_ladder[{}]", j + 1), b, 1);
            }
        } else {
            let m = format!("the step-ladder has 2 blocks, not {}", ladder.len());
            found.add(format!("{key}.step_ladder"), &f.step_ladder, m);
        }
        for (j, r) in f.roll_off.iter().enumerate() {
            if p.entry(r.get_ref()).is_none() {
                let m = format!("{:?} is not an entry", r.get_ref());
                found.add(format!("{key}.roll_off[{}]", j + 1), r, m);
            }
        }
        let name = |k: usize| {
            ladder
                .get(k)
                .map(|s| s.get_ref().clone())
                .unwrap_or_default()
        };
        out.push(Finals {
            category: cat.clone(),
            round_robin: f.round_robin.get_ref().clone(),
            step_ladder: [name(0), name(1)],
            roll_off: f.roll_off.iter().map(|r| r.get_ref().clone()).collect(),
            roll_off_won: Default::default(),
            size,
        });
    }
    (out, games)
}

fn kind_name(kind: EventKind) -> &'static str {
    match kind {
        EventKind::Singles => "singles",
        EventKind::Doubles => "doubles",
        EventKind::Trios => "trios",
        EventKind::Teams => "teams",
    }
}

/// What is wrong with the text a person typed for an entry, by field:
/// the name and the team follow the one rule for names, the region its
/// own (the core's [`lanecall_core::names`]: no control, invisible or
/// direction-changing characters, at most 64 characters), as the lanes'
/// lineups and the judges' names do.
pub fn text_problems(name: &str, region: &str, team: Option<&str>) -> Vec<(&'static str, String)> {
    use lanecall_core::names::{check_name, check_region};
    let mut bad = Vec::new();
    if let Err(e) = check_name(name) {
        bad.push(("name", e.to_string()));
    }
    if let Err(e) = check_region(region) {
        bad.push(("region", e.to_string()));
    }
    if let Some(Err(e)) = team.map(check_name) {
        let m = e.to_string();
        bad.push((
            "team",
            format!("the team's {}", m.trim_start_matches("the ")),
        ));
    }
    bad
}

#[cfg(test)]
mod tests;

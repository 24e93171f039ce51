//! Team totals of the doubles, trios and teams events: each team's game is
//! the sum of its members' games of that block and game number.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{BowledGame, Playing, Standing, handicap_pins, rank};
use crate::centre::programme::{EventKind, Programme};

#[derive(Clone, Debug, Serialize)]
pub struct TeamEventStanding {
    pub event: String,
    pub kind: EventKind,
    pub entries: Vec<TeamStanding>,
}

/// A team's line: `games` are team games (the members' sum), `handicap`
/// the members' handicaps for each game they bowled.
#[derive(Clone, Debug, Serialize)]
pub struct TeamStanding {
    #[serde(flatten)]
    pub standing: Standing,
    pub members: Vec<String>,
}

pub(super) fn team_events(p: &Programme, games: &[BowledGame]) -> Vec<TeamEventStanding> {
    let mut out = Vec::new();
    for ev in p.events.iter().filter(|e| e.kind != EventKind::Singles) {
        let blocks: Vec<&str> = p
            .blocks
            .iter()
            .filter(|b| b.event == ev.id)
            .map(|b| b.id.as_str())
            .collect();
        let mut lines = Vec::new();
        for team in &ev.teams {
            // (block's place, game number) -> (pins, handicap, complete, frames)
            let mut by_game: BTreeMap<(usize, u32), (u32, u32, bool, u8)> = BTreeMap::new();
            let mut lane = None;
            for g in games {
                let Some(i) = g
                    .block
                    .as_deref()
                    .and_then(|b| blocks.iter().position(|x| *x == b))
                else {
                    continue;
                };
                if !team.members.contains(&g.name) {
                    continue;
                }
                let handicap = p.entry(&g.name).map_or(0, |e| handicap_pins(e.handicap, 1));
                let t = by_game.entry((i, g.game)).or_insert((0, 0, true, 10));
                t.0 += g.score;
                t.1 += handicap;
                t.2 &= g.complete;
                t.3 = t.3.min(g.frames);
                lane = Some(g.lane);
            }
            let games: Vec<u32> = by_game.values().map(|t| t.0).collect();
            let scratch: u32 = games.iter().sum();
            let handicap: u32 = by_game.values().map(|t| t.1).sum();
            let playing = by_game.values().position(|t| !t.2).map(|i| Playing {
                game: i as u32 + 1,
                frames: by_game.values().nth(i).map_or(0, |t| t.3),
            });
            lines.push(Standing {
                rank: None,
                mark: None,
                name: team.name.clone(),
                lane,
                class: None,
                sex: None,
                region: None,
                team: None,
                complete: by_game.values().filter(|t| t.2).count() as u32,
                playing,
                scratch,
                handicap,
                bonus: 0,
                total: scratch + handicap,
                games,
            });
        }
        rank(&mut lines);
        let entries = lines
            .into_iter()
            .map(|standing| TeamStanding {
                members: ev
                    .teams
                    .iter()
                    .find(|t| t.name == standing.name)
                    .map(|t| t.members.clone())
                    .unwrap_or_default(),
                standing,
            })
            .collect();
        out.push(TeamEventStanding {
            event: ev.id.clone(),
            kind: ev.kind,
            entries,
        });
    }
    out
}

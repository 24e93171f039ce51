//! A demo lane of a centre with a programme: it bowls what the centre
//! pushes. When a lineup waits on the lane and no block is open, its
//! judge and bowlers play that block as a script (the simulator's block
//! for those bowlers, without a lineup of its own: the centre's stays, so
//! the standings place its games), then the lane waits for the next push.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Instant;

use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::send_at;
use crate::daemon::{Script, ScriptedLane};
use crate::lane::{Action, Bowler, Event, Millis, Panel};
use crate::ports::{LaneSnapshot, ScriptFeed};
use crate::sim::Scenario;

/// Games of a lineup the centre's programme does not place.
const UNPLACED_GAMES: u8 = 1;

/// A lane of a demo centre with a programme: it bowls the blocks the
/// centre whose page is at `centre` pushes, with the games the centre
/// gives them ([`follow_pushes`]), not a script of its own. It plays until
/// the daemon stops.
#[derive(Clone, Debug)]
pub struct Pushed {
    pub speed: f64,
    pub seed: u64,
    pub centre: SocketAddr,
}

impl Script for Pushed {
    fn speed(&self) -> f64 {
        self.speed
    }

    fn ends(&self) -> bool {
        false
    }

    fn play(self: Box<Self>, lane: ScriptedLane) -> JoinHandle<()> {
        tokio::spawn(follow_pushes(
            lane.feed,
            lane.number,
            self.seed,
            self.centre,
            lane.state,
        ))
    }
}

/// Plays lane `lane`'s pushed blocks from where `feed` starts, each with
/// the next seed from `first_seed` and the games the centre at `centre`
/// gives its block, until the lane's thread is gone.
pub async fn follow_pushes(
    feed: ScriptFeed,
    lane: u32,
    first_seed: u64,
    centre: SocketAddr,
    mut state: watch::Receiver<LaneSnapshot>,
) {
    // Waiting: the lane's deadlines run on its clock.
    if !send_at(&feed, feed.start(), None, Millis::MAX).await {
        return;
    }
    let mut seed = first_seed;
    let mut pushed: BTreeMap<Vec<String>, usize> = BTreeMap::new();
    loop {
        let waiting = waiting_lineup(&state.borrow_and_update().json);
        let Some(bowlers) = waiting else {
            if state.changed().await.is_err() {
                return;
            }
            continue;
        };
        let names: Vec<String> = bowlers.iter().map(|b| b.name.clone()).collect();
        // The same lineup may be pushed for two blocks: the n-th push of it
        // is its n-th block in the programme.
        let times = pushed.entry(names.clone()).or_default();
        let block_games = super::director::games_of(centre, lane, &names, *times)
            .await
            .unwrap_or(UNPLACED_GAMES);
        *times += 1;
        let scenario = Scenario {
            bowlers,
            games: block_games,
            blocks: 1,
            ..Scenario::demo_on_lane(lane, seed)
        };
        seed = seed.wrapping_add(1);
        let events: Vec<_> = scenario
            .run()
            .filter(|e| {
                !matches!(
                    &e.event,
                    Event::Panel(Panel {
                        action: Action::Lineup { .. },
                        ..
                    })
                )
            })
            .collect();
        let base = feed.clock().t(Instant::now());
        for (i, e) in events.iter().enumerate() {
            let next = events.get(i + 1).map_or(Millis::MAX, |n| base + n.t);
            if !send_at(&feed, base + e.t, Some(e.event.clone()), next).await {
                return;
            }
        }
        // The block is over (its `end_block` sent): wait for the lane to
        // say so before looking for the next lineup.
        if state.changed().await.is_err() {
            return;
        }
    }
}

/// The lineup waiting on the lane when no block is open, from its report
/// (replay-output.md: a waiting bowler's `block` is after every block
/// begun).
fn waiting_lineup(report: &str) -> Option<Vec<Bowler>> {
    let v: Value = serde_json::from_str(report).ok()?;
    let blocks = v["blocks"].as_array()?;
    if blocks.iter().any(|b| b["ended"] == false) {
        return None;
    }
    let last = blocks.iter().filter_map(|b| b["block"].as_u64()).max();
    let waiting: Vec<Value> = v["bowlers"]
        .as_array()?
        .iter()
        .filter(|b| b["block"].as_u64() > last)
        .map(|b| json!({"name": b["name"], "class": b["class"], "handicap": b["handicap"], "team": b["team"]}))
        .collect();
    if waiting.is_empty() {
        return None;
    }
    let action = json!({"ev": "lineup", "bowlers": waiting}).to_string();
    match crate::journal::parse_panel_action(action.as_bytes(), "") {
        Ok(Action::Lineup { bowlers, .. }) => Some(bowlers),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lineup_waits_only_while_no_block_is_open() {
        let bowler = json!({"name": "Anna K.", "class": "B1", "handicap": 12, "team": "Kazan", "block": 2, "games": []});
        let waiting =
            json!({"blocks": [{"block": 1, "ended": true}], "bowlers": [bowler]}).to_string();
        let got = waiting_lineup(&waiting).expect("a lineup waits");
        assert_eq!((got[0].name.as_str(), got[0].handicap), ("Anna K.", 12));
        assert_eq!(got[0].team.as_deref(), Some("Kazan"));
        let open =
            json!({"blocks": [{"block": 2, "ended": false}], "bowlers": [bowler]}).to_string();
        assert!(waiting_lineup(&open).is_none());
        let bowled =
            json!({"blocks": [{"block": 2, "ended": true}], "bowlers": [bowler]}).to_string();
        assert!(waiting_lineup(&bowled).is_none());
        let first = json!({"blocks": [], "bowlers": [bowler]}).to_string();
        assert!(waiting_lineup(&first).is_some());
    }
}

//! The competition as the mirrored journals tell it: every game placed in
//! the programme's blocks, and from them the standings, the programme's
//! blocks for the chief judge and the results protocol.
//!
//! A journal is one block of one lane (a lane starts a new journal for each
//! block). It is placed in the programme's block whose assignment for that
//! lane names bowlers who are all on the journal's sheet (a withdrawn
//! entry aside: the centre leaves it out of the lineup), the first such
//! block not yet taken by an earlier journal of that lane. So a lane that
//! bowls the same bowlers in S1, S2 and S3 fills them in that order, and the
//! placing depends on the journals alone: a restarted centre places them
//! the same way.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::book::Book;
use super::programme::Programme;
use super::standings::{BowledGame, bowled_games, journal_block};
use crate::replay::{EntryView, bowler_entries};

/// Every game of every mirrored journal, each placed in its block, each
/// bowler under the name the centre shows: a name corrected on the page
/// (`entries/rename.rs`) is the corrected one, whatever name the journal
/// holds, so games bowled before and after the correction are one
/// bowler's.
pub fn games(book: &Book, programme: Option<&Programme>) -> Vec<BowledGame> {
    let none = BTreeMap::new();
    let renamed = programme.map_or(&none, |p| &p.renamed);
    let shown = |n: &str| renamed.get(n).map_or(n.to_owned(), String::clone);
    let mut out = Vec::new();
    for (&lane, lb) in &book.lanes {
        let mut taken = BTreeSet::new();
        for (file, feed) in lb.journals_in_order() {
            let Some(replay) = feed.replay() else {
                continue;
            };
            let names: BTreeSet<String> = bowler_entries(replay.lane())
                .map(|e| match e {
                    EntryView::Bowled(entry) => entry.bowler.name.as_str(),
                    EntryView::Waiting(bowler, ..) => bowler.name.as_str(),
                })
                .map(shown)
                .collect();
            let names: BTreeSet<&str> = names.iter().map(String::as_str).collect();
            let block = programme.and_then(|p| journal_block(p, lane, &names, &mut taken));
            out.extend(
                bowled_games(replay, lane, file, block)
                    .into_iter()
                    .map(|g| BowledGame {
                        name: shown(&g.name),
                        ..g
                    }),
            );
        }
    }
    out
}

/// The value of `key` in a URL's query (`a=1&lang=ru`), percent-decoded;
/// the first one when given twice; `None` when absent or not UTF-8.
pub fn query_value(query: Option<&str>, key: &str) -> Option<String> {
    query?.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == key).then(|| percent_decode(v)).flatten()
    })
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// `GET /api/programme`: the title, dates, place and judges, the entries,
/// the events and each block with its lanes' bowlers.
pub fn programme_json(p: &Programme) -> Value {
    let blocks: Vec<Value> = p
        .blocks
        .iter()
        .map(|b| {
            let lanes: BTreeMap<String, &Vec<String>> = b
                .lanes
                .iter()
                .map(|(lane, names)| (lane.to_string(), names))
                .collect();
            json!({
                "id": b.id,
                "event": b.event,
                "kind": p.event(&b.event).map(|e| e.kind),
                "games": b.games,
                "day": b.day,
                "lanes": lanes,
            })
        })
        .collect();
    let events: Vec<Value> = p
        .events
        .iter()
        .map(|e| json!({ "id": e.id, "kind": e.kind, "teams": e.teams }))
        .collect();
    json!({
        "title": p.title,
        "title_ru": p.title_ru,
        "dates": p.dates,
        "place": p.place,
        "judges": p.judges,
        "entries": p.entries,
        "events": events,
        "blocks": blocks,
        "finals": p.finals,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::centre::book::LaneBook;
    use crate::centre::feed::Feed;

    const PROGRAMME: &str = r#"
title = "Two blocks on lane 6"
dates = "29-30 November 2026"
place = "Kazan"
judges = ["chief judge: Irina Orlova"]

[[entry]]
name = "Dmitri Orlov"
class = "B2"
sex = "M"
region = "Kazan"

[[entry]]
name = "Yulia Petrova"
class = "B3"
sex = "F"
region = "Kazan"

[[event]]
id = "singles"
kind = "singles"

[[block]]
id = "S1"
event = "singles"
games = 1
day = 1
lanes = { 6 = ["Dmitri Orlov", "Yulia Petrova"] }

[[block]]
id = "S2"
event = "singles"
games = 1
day = 2
lanes = { 6 = ["Dmitri Orlov", "Yulia Petrova"] }
"#;

    fn log(name: &str) -> Vec<u8> {
        let path = format!("{}/tests/logs/{name}.jsonl", env!("CARGO_MANIFEST_DIR"));
        std::fs::read(path).unwrap()
    }

    /// A whole journal, its last line applied (as the centre's ticks do).
    fn settled(name: &str) -> Feed {
        let mut feed = Feed::from_bytes(&log(name));
        feed.settle();
        feed
    }

    /// Lane 6 with two journals, by `seq` order: `first` then `second`.
    fn book(first: &str, second: &str) -> Book {
        let mut lane = LaneBook::default();
        for (name, log_name) in [
            ("lane6-20261129T150000Z-000001.jsonl", first),
            ("lane6-20261130T100000Z-000002.jsonl", second),
        ] {
            lane.journals.insert(name.to_owned(), settled(log_name));
        }
        let mut book = Book::default();
        book.lanes.insert(6, lane);
        book
    }

    /// Each game's (journal seq, block, bowler, score).
    fn placed(games: &[BowledGame]) -> Vec<(String, Option<String>, String, u32)> {
        games
            .iter()
            .map(|g| {
                let seq = g.journal.rsplit('-').next().unwrap().to_owned();
                (seq, g.block.clone(), g.name.clone(), g.score)
            })
            .collect()
    }

    #[test]
    fn journals_are_placed_in_the_programmes_blocks_in_the_order_the_lane_wrote_them() {
        let p = Programme::parse(PROGRAMME, std::path::Path::new("p.toml")).unwrap();
        // slow_bowling_hold: Dmitri 173 and Yulia's game (its expected sheet);
        // neighbour_busy: one frame each, no running total yet (0).
        let games = games(&book("slow_bowling_hold", "neighbour_busy"), Some(&p));
        let s1 = Some("S1".to_owned());
        let s2 = Some("S2".to_owned());
        let p1 = placed(&games);
        assert_eq!(p1.len(), 4, "{p1:?}");
        assert_eq!(
            (&p1[0].0, &p1[0].1, p1[0].2.as_str(), p1[0].3),
            (&"000001.jsonl".to_owned(), &s1, "Dmitri Orlov", 173)
        );
        assert_eq!(p1[1].1, s1);
        assert_eq!(
            (&p1[2].1, p1[2].2.as_str(), p1[2].3),
            (&s2, "Dmitri Orlov", 0)
        );
        assert_eq!(p1[3].1, s2);

        // The other way round: the journal written first takes S1.
        let games = games_swapped(&p);
        let p2 = placed(&games);
        assert_eq!(p2[0].1, s1);
        assert_eq!(p2[0].3, 0, "neighbour_busy first");
        assert_eq!(p2[2].1, s2);
        assert_eq!(p2[2].3, 173);

        // No programme: nothing is placed.
        assert!(
            super::games(&book("slow_bowling_hold", "neighbour_busy"), None)
                .iter()
                .all(|g| g.block.is_none())
        );
    }

    fn games_swapped(p: &Programme) -> Vec<BowledGame> {
        games(&book("neighbour_busy", "slow_bowling_hold"), Some(p))
    }

    #[test]
    fn a_journal_whose_bowlers_no_block_names_is_placed_nowhere() {
        let p = Programme::parse(PROGRAMME, std::path::Path::new("p.toml")).unwrap();
        let mut book = Book::default();
        let mut lane = LaneBook::default();
        lane.journals.insert(
            "lane6-20261129T150000Z-000001.jsonl".to_owned(),
            settled("world_bowling_sample"),
        );
        book.lanes.insert(6, lane);
        let games = games(&book, Some(&p));
        assert!(!games.is_empty());
        assert!(games.iter().all(|g| g.block.is_none()), "{games:?}");
    }

    #[test]
    fn a_withdrawn_bowler_left_out_of_the_lineup_does_not_unplace_the_journal() {
        let third =
            "[[entry]]\nname = \"Gone Bowler\"\nclass = \"B2\"\nsex = \"M\"\nregion = \"Kazan\"\n";
        let text = PROGRAMME
            .replace("[[event]]", &format!("{third}\n[[event]]"))
            .replace(
                "6 = [\"Dmitri Orlov\", \"Yulia Petrova\"] }\n\n[[block]]",
                "6 = [\"Dmitri Orlov\", \"Yulia Petrova\", \"Gone Bowler\"] }\n\n[[block]]",
            );
        let s1 = |withdrawn: bool| {
            let text = if withdrawn {
                text.replace(
                    "name = \"Gone Bowler\"",
                    "name = \"Gone Bowler\"\nwithdrawn = true",
                )
            } else {
                text.clone()
            };
            let p = Programme::parse(&text, std::path::Path::new("p.toml")).unwrap();
            let games = games(&book("slow_bowling_hold", "neighbour_busy"), Some(&p));
            placed(&games)[0].1.clone()
        };
        // Not withdrawn: the journal lacks a bowler of S1's lane 6, so it
        // is not S1's (it takes S2, the next block that fits).
        assert_eq!(s1(false), Some("S2".to_owned()));
        assert_eq!(s1(true), Some("S1".to_owned()));
    }

    #[test]
    fn a_query_value_is_found_and_decoded() {
        let q = Some("x=1&block=RR%2DB1&lang=ru&lang=en&name=a+b");
        assert_eq!(query_value(q, "lang").as_deref(), Some("ru"));
        assert_eq!(query_value(q, "block").as_deref(), Some("RR-B1"));
        assert_eq!(query_value(q, "name").as_deref(), Some("a b"));
        assert_eq!(query_value(q, "none"), None);
        assert_eq!(query_value(None, "lang"), None);
        assert_eq!(query_value(Some("lang=%D0%B"), "lang"), None);
        assert_eq!(query_value(Some("lang=%FF"), "lang"), None);
    }

    #[test]
    fn the_programmes_blocks_are_listed_with_their_lanes() {
        let p = Programme::parse(PROGRAMME, std::path::Path::new("p.toml")).unwrap();
        let v = programme_json(&p);
        assert_eq!(v["blocks"][1]["id"], "S2");
        assert_eq!(
            v["blocks"][1]["lanes"]["6"],
            json!(["Dmitri Orlov", "Yulia Petrova"])
        );
        assert_eq!(v["title"], "Two blocks on lane 6");
        assert_eq!(
            v["judges"],
            json!([{ "role": "chief judge", "name": "Irina Orlova" }])
        );
        assert_eq!(v["entries"][1]["name"], "Yulia Petrova");
        assert_eq!(v["entries"][1]["handicap"], 0);
        assert_eq!(
            v["events"],
            json!([{ "id": "singles", "kind": "singles", "teams": [] }])
        );
    }
}

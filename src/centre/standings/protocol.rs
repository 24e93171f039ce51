//! The results protocol: the programme's heading and every category's
//! ranking, as printable text and as CSV.
//!
//! It only lays out what [`standings`](super::standings) computed.

use std::fmt::Write;

use super::{Standing, Standings};
use crate::centre::programme::Programme;

/// The protocol as plain text for printing: the heading (title, dates,
/// place, judges), then per category each bowler's rank, name, region,
/// class, games and totals; then the team events and the finals.
pub fn protocol_text(programme: Option<&Programme>, standings: &Standings) -> String {
    let mut out = String::new();
    match programme {
        Some(p) => {
            let _ = writeln!(out, "{}", p.title);
            if let Some(ru) = &p.title_ru {
                let _ = writeln!(out, "{ru}");
            }
            let _ = writeln!(out, "{}, {}", p.dates, p.place);
            if !p.judges.is_empty() {
                let _ = writeln!(out, "Judges / Судьи:");
                for j in &p.judges {
                    let _ = writeln!(out, "  {}: {}", j.role, j.name);
                }
            }
        }
        None => {
            let _ = writeln!(out, "Results / Результаты");
        }
    }
    for c in &standings.categories {
        let _ = writeln!(out, "\n{} / {}", c.title, c.title_ru);
        table(&mut out, &c.entries);
    }
    for t in &standings.teams {
        let _ = writeln!(out, "\n{}", t.event);
        let lines: Vec<Standing> = t.entries.iter().map(|e| e.standing.clone()).collect();
        table(&mut out, &lines);
    }
    for (category, f) in &standings.finals {
        let _ = writeln!(
            out,
            "\nFinals {category}: round robin / Финал: круговой турнир"
        );
        let _ = writeln!(
            out,
            "{:>4}  {:<28} {:>7} {:>6} {:>6} {:>6}",
            "Rank", "Name", "Prelim", "Pins", "Bonus", "Total"
        );
        for r in &f.round_robin {
            let _ = writeln!(
                out,
                "{:>4}  {:<28} {:>7} {:>6} {:>6} {:>6}",
                r.rank, r.name, r.preliminary, r.pins, r.bonus, r.total
            );
        }
        for (i, m) in f.step_ladder.matches.iter().enumerate() {
            let score = |s: Option<u32>| s.map_or("-".to_owned(), |s| s.to_string());
            let _ = writeln!(
                out,
                "Step-ladder {}: {} {} : {} {}{}",
                i + 1,
                m.a,
                score(m.a_score),
                score(m.b_score),
                m.b.as_deref().unwrap_or(""),
                m.winner
                    .as_ref()
                    .map_or(String::new(), |w| format!(" (winner {w})"))
            );
        }
        if !f.step_ladder.places.is_empty() {
            let _ = writeln!(out, "Places / Места:");
            for (i, name) in f.step_ladder.places.iter().enumerate() {
                let _ = writeln!(out, "{:>4}  {name}", i + 1);
            }
        }
    }
    out
}

fn table(out: &mut String, lines: &[Standing]) {
    let games = lines.iter().map(|s| s.games.len()).max().unwrap_or(0);
    let mut head = format!(
        "{:>4}  {:<28} {:<16} {:<5}",
        "Rank", "Name", "Region", "Class"
    );
    for g in 1..=games {
        let _ = write!(head, " {:>4}", format!("G{g}"));
    }
    let _ = write!(
        head,
        " {:>7} {:>4} {:>5} {:>6}",
        "Scratch", "Hcp", "Bonus", "Total"
    );
    let _ = writeln!(out, "{}", head.trim_end());
    for s in lines {
        let mut row = format!(
            "{:>4}  {:<28} {:<16} {:<5}",
            s.rank,
            s.name,
            s.region.as_deref().unwrap_or(""),
            s.class.map_or("", |c| c.as_str())
        );
        for g in 0..games {
            match s.games.get(g) {
                Some(score) => {
                    let live = s.playing.is_some_and(|p| p.game as usize == g + 1);
                    let _ = write!(
                        row,
                        " {:>4}",
                        format!("{score}{}", if live { "*" } else { "" })
                    );
                }
                None => row.push_str("     "),
            }
        }
        let _ = write!(
            row,
            " {:>7} {:>4} {:>5} {:>6}",
            s.scratch, s.handicap, s.bonus, s.total
        );
        let _ = writeln!(out, "{row}");
    }
    if lines.iter().any(|s| s.playing.is_some()) {
        let _ = writeln!(out, "  * game in progress / игра не закончена");
    }
}

/// The protocol as CSV (RFC 4180): one row per category line and per
/// team, `category,rank,name,region,class,sex,team,game 1..game N,
/// scratch,handicap,bonus,total`, N the most games of any row, each cell
/// written by [`crate::csv::cell`] (a name, region or team a spreadsheet
/// would take for a formula gets a leading `'`).
pub fn protocol_csv(standings: &Standings) -> String {
    let mut rows: Vec<(&str, &Standing)> = Vec::new();
    for c in &standings.categories {
        rows.extend(c.entries.iter().map(|s| (c.id.as_str(), s)));
    }
    for t in &standings.teams {
        rows.extend(t.entries.iter().map(|e| (t.event.as_str(), &e.standing)));
    }
    let games = rows.iter().map(|(_, s)| s.games.len()).max().unwrap_or(0);
    let mut out = String::from("category,rank,name,region,class,sex,team");
    for g in 1..=games {
        let _ = write!(out, ",game {g}");
    }
    out.push_str(",scratch,handicap,bonus,total\r\n");
    for (category, s) in rows {
        let mut fields: Vec<String> = vec![
            category.to_owned(),
            s.rank.to_string(),
            s.name.clone(),
            s.region.clone().unwrap_or_default(),
            s.class.map_or(String::new(), |c| c.as_str().to_owned()),
            s.sex.map_or(String::new(), |x| x.as_str().to_owned()),
            s.team.clone().unwrap_or_default(),
        ];
        for g in 0..games {
            fields.push(s.games.get(g).map_or(String::new(), u32::to_string));
        }
        for n in [s.scratch, s.handicap, s.bonus, s.total] {
            fields.push(n.to_string());
        }
        out.push_str(&crate::csv::row(fields.iter().map(String::as_str)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::CategoryStanding;
    use super::*;

    #[test]
    fn a_name_region_or_team_is_data_in_the_csv() {
        let standing = Standing {
            rank: 1,
            name: "=HYPERLINK(\"http://x\",\"Anna\")".into(),
            lane: Some(1),
            class: None,
            sex: None,
            region: Some("+cmd|' /C calc'!A0".into()),
            team: Some("@SUM(A1)".into()),
            games: vec![180],
            complete: 1,
            playing: None,
            scratch: 180,
            handicap: 0,
            bonus: 0,
            total: 180,
        };
        let standings = Standings {
            categories: vec![CategoryStanding {
                id: "B1-F".into(),
                title: String::new(),
                title_ru: String::new(),
                combined: false,
                women_pins: 0,
                entries: vec![standing],
            }],
            teams: Vec::new(),
            finals: Default::default(),
            unplaced: Vec::new(),
        };
        let csv = protocol_csv(&standings);
        assert_eq!(
            csv.lines().nth(1),
            Some(
                "B1-F,1,\"'=HYPERLINK(\"\"http://x\"\",\"\"Anna\"\")\",'+cmd|' /C calc'!A0,,,'@SUM(A1),180,180,0,0,180"
            )
        );
    }
}

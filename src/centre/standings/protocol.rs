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
            "{:>4}  {:<28} {:>7} {:>7} {:>4} {:>5} {:>5} {:>6}",
            "Rank", "Name", "Prelim", "Scratch", "Hcp", "Women", "Bonus", "Total"
        );
        for r in &f.round_robin {
            let _ = writeln!(
                out,
                "{:>4}  {:<28} {:>7} {:>7} {:>4} {:>5} {:>5} {:>6}",
                r.rank,
                r.name,
                r.preliminary,
                r.scratch,
                r.handicap,
                r.women_pins,
                r.bonus,
                r.total
            );
        }
        let _ = writeln!(
            out,
            "  Women: a woman's pins in a combined category / жен. +10 за игру; \
             Bonus: {} a match won, {} a tie / бонус за победу и ничью",
            super::finals::WIN_BONUS,
            super::finals::TIE_BONUS
        );
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
        "Scratch", "Hcp", "Women", "Total"
    );
    let _ = writeln!(out, "{}", head.trim_end());
    for s in lines {
        let mut row = format!(
            "{:>4}  {:<28} {:<16} {:<5}",
            s.rank.map_or(String::new(), |r| r.to_string()),
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
        if let Some(m) = s.mark {
            let _ = write!(row, "  {} / {}", m.as_str(), m.as_str_ru());
        }
        let _ = writeln!(out, "{row}");
    }
    if lines.iter().any(|s| s.playing.is_some()) {
        let _ = writeln!(out, "  * game in progress / игра не закончена");
    }
}

/// The language of a CSV file: its headings, its marks, and its
/// separator (`,` in English; `;` in Russian, as Excel in a Russian locale
/// reads it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CsvLang {
    En,
    Ru,
}

impl CsvLang {
    fn sep(self) -> char {
        match self {
            CsvLang::En => ',',
            CsvLang::Ru => ';',
        }
    }
    fn pick(self, en: &'static str, ru: &'static str) -> &'static str {
        match self {
            CsvLang::En => en,
            CsvLang::Ru => ru,
        }
    }
}

/// The final place of each bowler of a category that has finals, once
/// the step-ladder has decided them: the step-ladder's places, then the
/// others in their preliminary order. `None` while the finals are on.
fn final_places(standings: &Standings, category: &str) -> Option<Vec<String>> {
    let f = standings.finals.get(category)?;
    if f.step_ladder.places.is_empty() {
        return Some(Vec::new());
    }
    let mut out = f.step_ladder.places.clone();
    let c = standings.categories.iter().find(|c| c.id == category)?;
    out.extend(
        c.entries
            .iter()
            .filter(|s| s.rank.is_some() && !out.contains(&s.name))
            .map(|s| s.name.clone())
            .collect::<Vec<_>>(),
    );
    Some(out)
}

/// A row of the CSV's first table: its category (or team event), the
/// category's final places (`None` without finals), the line, the team's
/// members.
type CsvLine<'a> = (&'a str, Option<Vec<String>>, &'a Standing, &'a [String]);

/// The protocol as CSV (RFC 4180), UTF-8 with a byte order mark, written
/// by the one [`crate::csv::Writer`] (a name, region or team a
/// spreadsheet would take for a formula gets a leading `'`), the
/// separator `lang`'s. First one row per category line and per team:
/// `category,rank,name,region,class,sex,team,game 1..game N,scratch,
/// handicap,bonus,total,place,mark,members`, N the most games of any row,
/// `rank` empty for a line not ranked and `mark` saying why, `place` the
/// final place (after the finals where the category has them). Then, after
/// an empty row, each category's round robin and step-ladder. Headings
/// and marks are in `lang`.
pub fn protocol_csv(standings: &Standings, lang: CsvLang) -> String {
    let l = |en, ru| lang.pick(en, ru).to_owned();
    let mut rows: Vec<CsvLine> = Vec::new();
    for c in &standings.categories {
        let places = final_places(standings, &c.id);
        rows.extend(
            c.entries
                .iter()
                .map(|s| (c.id.as_str(), places.clone(), s, &[][..])),
        );
    }
    for t in &standings.teams {
        rows.extend(
            t.entries
                .iter()
                .map(|e| (t.event.as_str(), None, &e.standing, &e.members[..])),
        );
    }
    let games = rows.iter().map(|r| r.2.games.len()).max().unwrap_or(0);
    let mut out = crate::csv::Writer::with_bom(lang.sep());
    let mut head = vec![
        l("category", "категория"),
        l("rank", "место в квалификации"),
        l("name", "фамилия имя"),
        l("region", "регион"),
        l("class", "класс"),
        l("sex", "пол"),
        l("team", "команда"),
    ];
    for g in 1..=games {
        head.push(format!("{} {g}", lang.pick("game", "игра")));
    }
    for (en, ru) in [
        ("scratch", "кегли"),
        ("handicap", "гандикап"),
        ("bonus", "жен. +10"),
        ("total", "итого"),
        ("place", "место"),
        ("mark", "отметка"),
        ("members", "состав"),
    ] {
        head.push(l(en, ru));
    }
    out.row(&head);
    for (category, places, s, members) in rows {
        let place = match places {
            None => s.rank.map(|r| r.to_string()),
            Some(list) => list
                .iter()
                .position(|n| *n == s.name)
                .map(|i| (i + 1).to_string()),
        };
        let sex = s.sex.map_or(String::new(), |x| match (lang, x.as_str()) {
            (CsvLang::Ru, "F") => "Ж".to_owned(),
            (CsvLang::Ru, "M") => "М".to_owned(),
            (_, other) => other.to_owned(),
        });
        let mut fields: Vec<String> = vec![
            category.to_owned(),
            s.rank.map_or(String::new(), |r| r.to_string()),
            s.name.clone(),
            s.region.clone().unwrap_or_default(),
            s.class.map_or(String::new(), |c| c.as_str().to_owned()),
            sex,
            s.team.clone().unwrap_or_default(),
        ];
        for g in 0..games {
            fields.push(s.games.get(g).map_or(String::new(), u32::to_string));
        }
        for n in [s.scratch, s.handicap, s.bonus, s.total] {
            fields.push(n.to_string());
        }
        fields.push(place.unwrap_or_default());
        fields.push(s.mark.map_or(String::new(), |m| {
            lang.pick(m.as_str(), m.as_str_ru()).to_owned()
        }));
        fields.push(members.join(", "));
        out.row(&fields);
    }
    for (category, f) in &standings.finals {
        out.blank();
        let n = f
            .round_robin
            .iter()
            .map(|r| r.games.len())
            .max()
            .unwrap_or(0);
        let mut head = vec![
            l("category", "категория"),
            l("round robin rank", "место в круговом турнире"),
            l("name", "фамилия имя"),
            l("preliminary", "квалификация"),
        ];
        for g in 1..=n {
            head.push(format!("{} {g}", lang.pick("match", "встреча")));
        }
        for (en, ru) in [
            ("scratch", "кегли"),
            ("handicap", "гандикап"),
            ("women's pins", "жен. +10"),
            ("wins", "победы"),
            ("ties", "ничьи"),
            ("bonus", "бонус"),
            ("total", "итого"),
        ] {
            head.push(l(en, ru));
        }
        out.row(&head);
        for r in &f.round_robin {
            let mut fields = vec![
                category.clone(),
                r.rank.to_string(),
                r.name.clone(),
                r.preliminary.to_string(),
            ];
            for g in 0..n {
                fields.push(r.games.get(g).map_or(String::new(), u32::to_string));
            }
            for v in [
                r.scratch,
                r.handicap,
                r.women_pins,
                r.wins,
                r.ties,
                r.bonus,
                r.total,
            ] {
                fields.push(v.to_string());
            }
            out.row(&fields);
        }
        if f.step_ladder.matches.is_empty() {
            continue;
        }
        out.blank();
        out.row([
            l("category", "категория"),
            l("step-ladder match", "встреча степ-лэддера"),
            l("bowler", "спортсмен"),
            l("pins", "кегли"),
            l("bowler", "спортсмен"),
            l("pins", "кегли"),
            l("winner", "победитель"),
        ]);
        let score = |s: Option<u32>| s.map_or(String::new(), |s| s.to_string());
        for (i, m) in f.step_ladder.matches.iter().enumerate() {
            out.row([
                category.clone(),
                (i + 1).to_string(),
                m.a.clone(),
                score(m.a_score),
                m.b.clone().unwrap_or_default(),
                score(m.b_score),
                m.winner.clone().unwrap_or_default(),
            ]);
        }
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::super::CategoryStanding;
    use super::*;

    #[test]
    fn a_name_region_or_team_is_data_in_the_csv() {
        let standing = Standing {
            rank: Some(1),
            mark: None,
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
        let csv = protocol_csv(&standings, CsvLang::En);
        assert_eq!(
            csv.lines().nth(1),
            Some(
                "B1-F,1,\"'=HYPERLINK(\"\"http://x\"\",\"\"Anna\"\")\",'+cmd|' /C calc'!A0,,,'@SUM(A1),180,180,0,0,180,1,,"
            )
        );
    }
}

//! The text score sheet a judge reads in a terminal: frames, marks,
//! series, practice, conduct, and the journal's errors. It never changes
//! the lane; the bowlers and their games come from the JSON report's
//! reading of them, so both say the same.

use std::fmt::Write as _;

use super::report::{BowlerJson, bowler_entries};
use super::{ISSUES_KEPT, Replay};
use crate::lane::Millis;
use crate::lane::scoring::ScoredBall;

/// A ball's symbol on a printed sheet: a split's count is circled, and a
/// ball bowled at a wrong deck is starred.
fn sheet_symbol(b: &ScoredBall) -> String {
    const CIRCLED: [char; 10] = ['⓪', '①', '②', '③', '④', '⑤', '⑥', '⑦', '⑧', '⑨'];
    let mut symbol = if b.split && !b.foul && (1..=9).contains(&b.pinfall) {
        CIRCLED[usize::from(b.pinfall)].to_string()
    } else {
        b.mark().to_string()
    };
    if b.wrong_deck.is_some() {
        symbol.push('*');
    }
    symbol
}

fn time(t: Millis) -> String {
    let s = t / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// The score sheet a judge reads in a terminal, with the journal's errors
/// and warnings at the end.
pub fn render_sheet(r: &Replay) -> String {
    sheet(r, true)
}

/// The score sheet without the errors and warnings, for `lanecall replay`,
/// which prints those on stderr (once each).
pub fn render_scores(r: &Replay) -> String {
    sheet(r, false)
}

fn sheet(r: &Replay, with_issues: bool) -> String {
    let lane = r.lane();
    let fouls_count = lane.rules().fouls_count();
    let mut out = String::new();
    let _ = writeln!(out, "Lane {}", lane.number());
    let mut last_block = 0;
    let mut any_split = false;
    for e in bowler_entries(lane) {
        let b = BowlerJson::new(e, fouls_count);
        if b.block != last_block {
            last_block = b.block;
            // The centre's id of the block, when its lineup gave one
            // (added later): "Block 2 RR-B1 (1 game)".
            let block = lane.block(b.block);
            let plan = block.map_or(lane.pending_plan(), |x| &x.plan);
            let name = plan
                .name
                .as_deref()
                .map(|n| format!(" {n}"))
                .unwrap_or_default();
            match block.map(|x| x.games) {
                Some(g) => {
                    let plural = if g == 1 { "" } else { "s" };
                    _ = writeln!(out, "\nBlock {}{name} ({g} game{plural})", b.block)
                }
                None => {
                    let games = plan.games.map_or(String::new(), |g| {
                        format!(", {g} game{}", if g == 1 { "" } else { "s" })
                    });
                    _ = writeln!(
                        out,
                        "\nLineup for block {}{name} (not started{games})",
                        b.block
                    )
                }
            }
        }
        let mut who = format!("{}. {} ({}", b.position, b.name, b.class);
        if let Some(team) = b.team {
            let _ = write!(who, ", {team}");
        }
        if b.handicap != 0 {
            let _ = write!(who, ", handicap {}", b.handicap);
        }
        let _ = writeln!(out, "\n  {who})");
        if !b.games.is_empty() {
            let frames: String = (1..=10)
                .map(|n| format!("|{n:^width$}", width = if n == 10 { 7 } else { 5 }))
                .collect();
            let _ = writeln!(out, "    frame   {frames}|");
        }
        for g in &b.games {
            let mut marks = String::new();
            let mut totals = String::new();
            for f in &g.sheet.frames {
                let width = if f.number == 10 { 7 } else { 5 };
                any_split |= f.balls.iter().any(|b| b.split);
                let symbols: Vec<String> = f.balls.iter().map(sheet_symbol).collect();
                let _ = write!(marks, "|{:^width$}", symbols.join(" "));
                let cum = f.cumulative.map(|c| c.to_string()).unwrap_or_default();
                let _ = write!(totals, "|{cum:>width$}");
            }
            let state = if g.sheet.complete {
                ""
            } else {
                " (not finished)"
            };
            let _ = writeln!(
                out,
                "    game {:>2} {marks}|  {}{state}",
                g.game, g.sheet.total
            );
            let _ = writeln!(out, "            {totals}|");
            for f in &g.sheet.frames {
                for b in &f.balls {
                    if let Some(set) = b.wrong_deck {
                        let _ = writeln!(
                            out,
                            "            * frame {} ball {} bowled at a wrong deck: set {set}, the rules' deck {}",
                            f.number, b.at.ball, b.at.before
                        );
                    }
                }
            }
        }
        if !b.games.is_empty() {
            let _ = write!(out, "    series {}", b.series);
            if b.handicap != 0 {
                let _ = write!(out, ", with handicap {}", b.series_with_handicap);
            }
            out.push('\n');
        }
    }
    let after = lane.practice().iter().filter(|p| p.after_block.is_some());
    let after = after.count();
    let practice = lane.practice().len() - after;
    if practice > 0 {
        let _ = writeln!(out, "\nPractice: {practice} deliveries");
    }
    if after > 0 {
        let _ = writeln!(
            out,
            "\nAfter the block: {after} deliveries after the last game, counted nowhere"
        );
    }
    if !lane.conduct().is_empty() {
        let _ = writeln!(out, "\nConduct");
        for c in lane.conduct() {
            let who = c.bowler.as_deref().unwrap_or("lane");
            let what = &c.kind;
            let _ = writeln!(out, "  {}  {who}: {what}", time(c.t));
        }
    }
    let issues = [("Errors", &r.errors), ("Warnings", &r.warnings)];
    for (title, issues) in issues.into_iter().filter(|_| with_issues) {
        let list = issues.listed();
        if !list.is_empty() {
            let _ = writeln!(out, "\n{title}");
            for (n, i) in list.iter().enumerate() {
                if n == ISSUES_KEPT && issues.omitted() > 0 {
                    let _ = writeln!(out, "  … {} more not listed", issues.omitted());
                }
                let _ = writeln!(out, "  line {}: {}", i.line, i.message);
            }
        }
    }
    if any_split {
        let _ = writeln!(out, "\nSplits are circled: ① to ⑨.");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sheet of a journal in tests/logs, read at build time: the core
    /// opens no file, not even in its tests (clippy.toml).
    macro_rules! sheet_of {
        ($log:literal) => {
            render_sheet(
                &Replay::from_reader(
                    include_str!(concat!("../../../../tests/logs/", $log, ".jsonl")).as_bytes(),
                )
                .unwrap(),
            )
        };
    }

    #[test]
    fn the_sheet_says_the_balls_after_the_block_count_nowhere() {
        let sheet = sheet_of!("after_block");
        assert!(sheet.contains("\nPractice: 1 deliveries\n"), "{sheet}");
        assert!(
            sheet
                .contains("\nAfter the block: 2 deliveries after the last game, counted nowhere\n"),
            "{sheet}"
        );
    }

    #[test]
    fn the_sheet_names_blocks_by_their_number_in_the_day() {
        let sheet = sheet_of!("block_numbers");
        assert!(sheet.contains("\nBlock 2 (1 game)\n"), "{sheet}");
        assert!(sheet.contains("\nBlock 3 (1 game)\n"), "{sheet}");
        assert!(!sheet.contains("Block 1"), "{sheet}");
    }

    #[test]
    fn the_text_sheet_stars_a_ball_bowled_at_a_wrong_deck_and_names_its_decks() {
        let journal = include_str!("../../../../tests/logs/wrong_deck.jsonl");
        let replay = Replay::from_reader(journal.as_bytes()).unwrap();
        let sheet = render_sheet(&replay);
        assert!(sheet.contains("|8* / |"), "{sheet}");
        assert!(sheet.contains("|F 2* |"), "{sheet}");
        assert!(
            sheet.contains(
                "* frame 2 ball 1 bowled at a wrong deck: set 1-2-3-4-6-7-8-9-10, the rules' deck 1-2-3-4-5-6-7-8-9-10"
            ),
            "{sheet}"
        );
        assert!(
            sheet.contains("* frame 4 ball 2 bowled at a wrong deck: set 4-7, the rules' deck 1-2-3-4-5-6-7-8-9-10"),
            "{sheet}"
        );
        assert_eq!(sheet.matches("wrong deck").count(), 2, "{sheet}");
    }
}

//! The start list of the programme's blocks, to print and pin up: for each
//! block, each lane in order with its bowlers in the order they bowl.

use std::fmt::Write;

use crate::centre::programme::Programme;

/// The start list as plain text: every block of `p` (or only `block`,
/// when given), in the programme's order, headed by its id, event, day
/// and games; under it each lane and its bowlers in lane order, each with
/// class, region and team; a withdrawn entry is marked (it is left out of
/// the lineup the centre pushes). In Russian when `ru`. `None` when
/// `block` names no block of the programme.
pub fn start_list_text(p: &Programme, block: Option<&str>, ru: bool) -> Option<String> {
    let pick = |en: &'static str, r: &'static str| if ru { r } else { en };
    let blocks: Vec<_> = p
        .blocks
        .iter()
        .filter(|b| block.is_none_or(|id| b.id == id))
        .collect();
    if blocks.is_empty() && block.is_some() {
        return None;
    }
    let mut out = String::new();
    let title = if ru {
        p.title_ru.as_deref().unwrap_or(&p.title)
    } else {
        &p.title
    };
    let _ = writeln!(out, "{title}");
    let _ = writeln!(out, "{}, {}", p.dates, p.place);
    let _ = writeln!(out, "{}", pick("Start list", "Стартовый лист"));
    for b in blocks {
        let _ = writeln!(
            out,
            "\n{} {} · {} · {} {} · {}: {}",
            pick("Block", "Блок"),
            b.id,
            b.event,
            pick("day", "день"),
            b.day,
            pick("games", "игр"),
            b.games
        );
        let mut lanes = b.lanes.clone();
        lanes.sort_by_key(|(lane, _)| *lane);
        for (lane, names) in &lanes {
            let _ = writeln!(out, "  {} {lane}", pick("Lane", "Дорожка"));
            for (i, name) in names.iter().enumerate() {
                let mut line = format!("    {}. {name:<28}", i + 1);
                if let Some(e) = p.entry(name) {
                    let sex = match (ru, e.sex.as_str()) {
                        (true, "F") => "Ж",
                        (true, "M") => "М",
                        (_, s) => s,
                    };
                    let _ = write!(line, " {:<3} {sex} {}", e.class.as_str(), e.region);
                    if let Some(t) = &e.team {
                        let _ = write!(line, " · {t}");
                    }
                    if e.withdrawn {
                        let _ = write!(line, "  ({})", pick("withdrawn", "снят"));
                    }
                }
                let _ = writeln!(out, "{}", line.trim_end());
            }
        }
    }
    Some(out)
}

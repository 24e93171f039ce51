//! An entry's fields: read from their text (a form's or a CSV row's),
//! checked, and written as the programme file writes them.

use super::{Issue, Refusal, text_problems};
use crate::centre::programme::{Entry, Sex};
use crate::lane::Class;

/// `s` uppercase, each Cyrillic letter that looks like a Latin one (as a
/// Russian keyboard types `В1` or `М`) the Latin letter: a class or a sex
/// is read as what it means.
pub fn latin(s: &str) -> String {
    s.to_uppercase()
        .chars()
        .map(|c| match c {
            'А' => 'A',
            'В' => 'B',
            'Е' => 'E',
            'К' => 'K',
            'М' => 'M',
            'Н' => 'H',
            'О' => 'O',
            'Р' => 'P',
            'С' => 'C',
            'Т' => 'T',
            'Х' => 'X',
            other => other,
        })
        .collect()
}

/// An entry from its fields' text (`get` gives `None` for a column not
/// there): every problem by its field.
pub fn entry_from(
    get: impl Fn(&str) -> Option<String>,
) -> Result<Entry, Vec<(&'static str, String)>> {
    let mut bad = Vec::new();
    let name = get("name").unwrap_or_default();
    let class_text = get("class").unwrap_or_default();
    let class = match latin(&class_text).as_str() {
        "B1" => Some(Class::B1),
        "B2" => Some(Class::B2),
        "B3" => Some(Class::B3),
        _ => {
            let m = format!("{class_text:?} is not a class: B1, B2 or B3");
            bad.push(("class", m));
            None
        }
    };
    let sex_text = get("sex").unwrap_or_default();
    let sex = match latin(&sex_text).as_str() {
        "M" => Some(Sex::M),
        "F" | "Ж" => Some(Sex::F),
        _ => {
            bad.push(("sex", format!("{sex_text:?} is not M or F")));
            None
        }
    };
    let region = get("region").unwrap_or_default();
    let team = get("team").filter(|t| !t.is_empty());
    let handicap = match get("handicap").filter(|h| !h.is_empty()) {
        None => 0,
        Some(h) => match h.parse::<crate::lane::Handicap>() {
            Ok(n) if crate::lane::handicap::in_range(n) => n,
            Ok(n) => {
                let max = crate::lane::MAX_HANDICAP;
                bad.push((
                    "handicap",
                    format!("{n} is not a handicap (0 to {max} pins a game)"),
                ));
                0
            }
            Err(_) => {
                bad.push(("handicap", format!("{h:?} is not a whole number of pins")));
                0
            }
        },
    };
    let withdrawn = match get("withdrawn").unwrap_or_default().to_lowercase().as_str() {
        "" | "no" | "0" | "false" | "нет" => false,
        "yes" | "1" | "true" | "x" | "да" => true,
        other => {
            bad.push((
                "withdrawn",
                format!("{other:?}: write yes, or leave it empty"),
            ));
            false
        }
    };
    bad.extend(text_problems(&name, &region, team.as_deref()));
    match (class, sex) {
        (Some(class), Some(sex)) if bad.is_empty() => Ok(Entry {
            name,
            class,
            sex,
            region,
            team,
            handicap,
            withdrawn,
        }),
        _ => Err(bad),
    }
}

/// A change's own entries (`n`: the entry's number from 1) refused for
/// their text ([`text_problems`]), each problem placed at its entry. An
/// entry left as it was is not checked again: a programme file's old
/// region does not lock the page.
pub(super) fn check_text<'a>(
    changed: impl Iterator<Item = (usize, &'a Entry)>,
) -> Result<(), Refusal> {
    let mut problems = Vec::new();
    for (n, e) in changed {
        for (field, message) in text_problems(&e.name, &e.region, e.team.as_deref()) {
            problems.push(Issue {
                entry: Some(n),
                field: Some(field.to_owned()),
                message,
                ..Issue::default()
            });
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Refusal {
            status: 400,
            problems,
        })
    }
}

/// An entry as the programme file writes it.
pub fn entry_value(e: &Entry) -> toml::Value {
    let mut t = toml::Table::new();
    t.insert("name".into(), e.name.clone().into());
    t.insert("class".into(), e.class.as_str().into());
    t.insert("sex".into(), e.sex.as_str().into());
    t.insert("region".into(), e.region.clone().into());
    if let Some(team) = &e.team {
        t.insert("team".into(), team.clone().into());
    }
    if e.handicap != 0 {
        t.insert("handicap".into(), i64::from(e.handicap).into());
    }
    if e.withdrawn {
        t.insert("withdrawn".into(), true.into());
    }
    toml::Value::Table(t)
}

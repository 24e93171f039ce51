//! The one rule for the names a person types that others read: a
//! bowler's, a judge's, a team's, an entry's region. They are written into
//! journals, score sheets, exports and the panels of every lane, so each
//! must read as what it is: nothing that does not show, nothing that turns
//! the text around, nothing that passes for the centre, and not a page
//! long.
//!
//! It only checks; it never changes a name (no trimming, no folding), and
//! it decides nothing about who the name belongs to.

/// The longest name (a bowler's, a judge's, a team's), in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// The longest region, in characters.
pub const MAX_REGION_CHARS: usize = 64;

/// What is wrong with a name or a region, said of `what` ("name",
/// "region").
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameProblem {
    #[error("the {what} is empty")]
    Empty { what: &'static str },
    #[error("the {what} is longer than {max} characters")]
    TooLong { what: &'static str, max: usize },
    #[error("the {what} holds a control character (U+{:04X})", u32::from(*.found))]
    Control { what: &'static str, found: char },
    #[error(
        "the {what} holds an invisible formatting character (U+{:04X}): \
         type it with letters, digits, spaces and punctuation only",
        u32::from(*.found)
    )]
    Invisible { what: &'static str, found: char },
    #[error("a name starting with \"centre:\" is the centre's: choose another")]
    Centre,
}

/// Checks a name as typed (a bowler's in a lineup, a judge's at login or
/// in a config, an entry's or a team's): not empty, at most
/// [`MAX_NAME_CHARS`] characters, no control character, no invisible
/// formatting character (the bidirectional overrides among them), and not
/// starting `centre:` (the centre signs its commands so).
pub fn check_name(name: &str) -> Result<(), NameProblem> {
    const WHAT: &str = "name";
    if name.trim().is_empty() {
        return Err(NameProblem::Empty { what: WHAT });
    }
    check_text(name, WHAT, MAX_NAME_CHARS)?;
    if name
        .split_once(':')
        .is_some_and(|(head, _)| head.trim().eq_ignore_ascii_case("centre"))
    {
        return Err(NameProblem::Centre);
    }
    Ok(())
}

/// Checks a region as typed: as a name, but it may be empty (an entry
/// with no region) and may start with anything.
pub fn check_region(region: &str) -> Result<(), NameProblem> {
    check_text(region, "region", MAX_REGION_CHARS)
}

/// The length and the characters, for both.
fn check_text(text: &str, what: &'static str, max: usize) -> Result<(), NameProblem> {
    if text.chars().nth(max).is_some() {
        return Err(NameProblem::TooLong { what, max });
    }
    if let Some(found) = text.chars().find(|&c| c.is_control()) {
        return Err(NameProblem::Control { what, found });
    }
    if let Some(found) = text.chars().find(|&c| invisible_format(c)) {
        return Err(NameProblem::Invisible { what, found });
    }
    Ok(())
}

/// Whether `c` is an invisible formatting character (Unicode category Cf):
/// the bidirectional marks, embeddings, overrides and isolates (U+061C,
/// U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), zero-width ones, the
/// soft hyphen, tags.
pub fn invisible_format(c: char) -> bool {
    matches!(
        u32::from(c),
        0x00AD
            | 0x0600..=0x0605
            | 0x061C
            | 0x06DD
            | 0x070F
            | 0x0890..=0x0891
            | 0x08E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    )
}

/// The start of a name for a message: at most 32 characters, with
/// anything that does not show written as an escape, so a refusal never
/// carries the trick it refuses.
pub fn shown(name: &str) -> String {
    let mut out: String = name.chars().take(32).flat_map(char::escape_debug).collect();
    if name.chars().nth(32).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_not_empty_short_and_shows_every_character() {
        assert_eq!(check_name("Anna K."), Ok(()));
        assert_eq!(check_name("Иванова-Петрова"), Ok(()));
        assert_eq!(check_name("centrefield"), Ok(()));
        assert_eq!(check_name(&"a".repeat(64)), Ok(()));
        assert_eq!(
            check_name(&"a".repeat(65)),
            Err(NameProblem::TooLong {
                what: "name",
                max: 64
            })
        );
        assert_eq!(check_name(" \t"), Err(NameProblem::Empty { what: "name" }));
        assert_eq!(check_name("Centre : Ivanova"), Err(NameProblem::Centre));
        let e = check_name("Anna\u{202E}K").unwrap_err();
        assert_eq!(
            e.to_string(),
            "the name holds an invisible formatting character (U+202E): type it with letters, \
             digits, spaces and punctuation only"
        );
        let e = check_name("Anna\u{1b}[2J").unwrap_err();
        assert_eq!(e.to_string(), "the name holds a control character (U+001B)");
        assert!(check_name("An\u{200B}na").is_err());
    }

    #[test]
    fn a_region_may_be_empty_but_follows_the_rest_of_the_rule() {
        assert_eq!(check_region(""), Ok(()));
        assert_eq!(check_region("Kazan \"Ak Bars\""), Ok(()));
        assert_eq!(check_region("centre: north"), Ok(()));
        assert!(check_region("Ka\u{202E}zan").is_err());
        assert!(check_region("Kazan\u{1b}").is_err());
        let e = check_region(&"x".repeat(60_000)).unwrap_err();
        assert_eq!(e.to_string(), "the region is longer than 64 characters");
    }

    #[test]
    fn a_name_is_shown_escaped_and_cut() {
        assert_eq!(shown("Anna"), "Anna");
        assert_eq!(shown("A\u{202E}B"), "A\\u{202e}B");
        assert_eq!(shown(&"a".repeat(40)), format!("{}…", "a".repeat(32)));
    }
}

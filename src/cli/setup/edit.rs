//! The config's text as setup edits it: a key's value read, and a key's
//! value set with every comment and other line kept as it was.

/// The value of `key` in `table` of the file's text, if it is a plain
/// value there.
pub(super) fn current(text: &str, table: &str, key: &str) -> Option<toml::Value> {
    let parsed: toml::Table = toml::from_str(text).ok()?;
    let t = if table.is_empty() {
        &parsed
    } else {
        parsed.get(table)?.as_table()?
    };
    t.get(key).cloned()
}

/// `text` with `key = value` in `[table]` (`""`: the top level), edited
/// as TOML (`toml_edit`): the key's value replaced, its indentation and
/// trailing comment kept, every other line as it was; a key that is not
/// there is added at the end of its table, a missing table at the end of
/// the file. `value` is TOML (a quoted string, a number). Text that is not
/// TOML, or a table or value that is something else, comes back as it
/// was: the check that follows names the problem.
pub fn set_value(text: &str, table: &str, key: &str, value: &str) -> String {
    let (Ok(mut doc), Ok(new)) = (
        text.parse::<toml_edit::DocumentMut>(),
        value.parse::<toml_edit::Value>(),
    ) else {
        return text.to_owned();
    };
    let root = doc.as_table_mut();
    let here = if table.is_empty() {
        root
    } else {
        let item = root
            .entry(table)
            .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
        match item.as_table_mut() {
            Some(t) => t,
            None => return text.to_owned(),
        }
    };
    match here.get_mut(key) {
        Some(toml_edit::Item::Value(old)) => {
            let decor = old.decor().clone();
            *old = new;
            *old.decor_mut() = decor;
        }
        Some(_) => return text.to_owned(),
        None => {
            here.insert(key, toml_edit::Item::Value(new));
        }
    }
    doc.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_replaced_in_its_table_only_and_a_comment_kept() {
        let text = "# top\nlane = 7 # here\n[a]\nport = \"x\"\n[pinsetter]\n  port = \"/dev/a#b\" # the port\nbaud = 9600\n";
        let new = set_value(text, "pinsetter", "port", "\"/dev/ttyUSB1\"");
        assert_eq!(
            new,
            "# top\nlane = 7 # here\n[a]\nport = \"x\"\n[pinsetter]\n  port = \"/dev/ttyUSB1\" # the port\nbaud = 9600\n"
        );
        assert_eq!(
            set_value(text, "", "lane", "12"),
            text.replace("lane = 7 # here", "lane = 12 # here")
        );
        // Missing: added at the end of its table, or with a new table.
        assert_eq!(
            set_value(
                "[speaker]\nvolume = 1.0 # loud\n\n[web]\n",
                "speaker",
                "language",
                "\"en\""
            ),
            "[speaker]\nvolume = 1.0 # loud\nlanguage = \"en\"\n\n[web]\n"
        );
        assert_eq!(
            set_value("lane = 1\n", "web", "judge_pin_hash", "\"h\""),
            "lane = 1\n\n[web]\njudge_pin_hash = \"h\"\n"
        );
        assert_eq!(
            set_value("# c\n[web]\n", "", "lane", "3"),
            "lane = 3\n# c\n[web]\n"
        );
        // A key whose name starts like another is not it; a commented-out
        // one stays a comment.
        assert_eq!(
            set_value(
                "[speaker]\nlanguages = 1\n# language = \"en\"\n",
                "speaker",
                "language",
                "\"ru\""
            ),
            "[speaker]\nlanguages = 1\nlanguage = \"ru\"\n# language = \"en\"\n"
        );
        // Not TOML: as it was.
        assert_eq!(set_value("lane = = 1\n", "", "lane", "2"), "lane = = 1\n");
    }
}

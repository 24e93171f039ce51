//! What a key of a settings file holds ([`Kind`]) and how a file's keys
//! are written out: every table of both files (the lane's and the
//! centre's) is one serde struct, whose known keys (`shape::keys`) the
//! walk checks a file against and whose defaults, serialized, give each
//! key's default; the key tables of docs/config.md are written from the
//! two (a test fails when they differ). No list of keys is kept beside a
//! struct.
//!
//! It decides how a key is described and written; it never judges a
//! value.

/// What a key holds.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    Int,
    /// A float; an integer is accepted (`volume = 1`).
    Float,
    Str,
    Bool,
    /// A table with these keys.
    Table(&'static [Key]),
    /// A list of such tables (`[[name]]`).
    Tables(&'static [Key]),
    /// A list of whole numbers (`[6, 8]`).
    Ints,
    /// A string or a whole number (`"A0"` or `17`), judged in `validate`.
    StrOrInt,
    /// A list of strings or whole numbers (`["A0", 17]`).
    StrOrInts,
    /// Lane numbers: a list (`[1, 2, 5]`) or ranges in a string
    /// (`"1-24, 30"`), judged where it is read (the centre's `lanes`,
    /// known so by its newtype name, `shape::LANES`).
    Lanes,
}

impl Kind {
    /// The keys of a table.
    pub(crate) fn fields(self) -> Option<&'static [Key]> {
        match self {
            Kind::Table(fields) => Some(fields),
            _ => None,
        }
    }

    pub(crate) fn describe(self) -> &'static str {
        match self {
            Kind::Int => "a whole number",
            Kind::Float => "a number",
            Kind::Str => "a string in quotes",
            Kind::Bool => "true or false",
            Kind::Table(_) => "a table",
            Kind::Tables(_) => "a list of tables ([[...]])",
            Kind::Ints => "a list of whole numbers ([6, 8])",
            Kind::StrOrInt => "an expander pin in quotes (\"A0\") or a BCM GPIO number",
            Kind::StrOrInts => "a list of expander pins (\"A0\") or BCM GPIO numbers",
            Kind::Lanes => "a list of lane numbers ([1, 2, 5]) or ranges in quotes (\"1-24, 30\")",
        }
    }
}

/// The name `value` is written as in the file, from the table of named
/// values it is read by (`Check::choice`): one table for both ways.
pub(crate) fn name_of<T: PartialEq>(choices: &[(&'static str, T)], value: &T) -> &'static str {
    choices
        .iter()
        .find(|(_, v)| v == value)
        .map_or("", |(name, _)| name)
}

/// A TOML string literal, escaped.
pub(crate) fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

/// A key as TOML writes it: bare when it can be, quoted otherwise.
pub(crate) fn toml_key(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare { key.to_owned() } else { toml_str(key) }
}

/// One key of a table: its name and what it holds (read from the
/// table's struct, `shape`; its default is in the struct's `Default`).
#[derive(Clone, Copy)]
pub(crate) struct Key {
    pub(crate) name: &'static str,
    pub(crate) kind: Kind,
}

/// The Markdown table of every key of `keys`, by its full path, with what
/// it holds and its default as the file writes it, from `defaults` (a
/// file's struct serialized, its tables in it).
pub(crate) fn key_table(keys: &[Key], defaults: &toml::Table) -> String {
    let mut out = String::from("| key | value | default |\n| --- | --- | --- |\n");
    rows(keys, "", Some(defaults), &mut out);
    out
}

impl Key {
    /// Its default as the file writes it, in `defaults` (its table's
    /// struct serialized); none: required, or absent when left out.
    pub(crate) fn default_value(&self, defaults: Option<&toml::Table>) -> Option<toml::Value> {
        defaults.and_then(|t| t.get(self.name)).cloned()
    }

    /// The keys and defaults of the table this key holds.
    pub(crate) fn inner_defaults(&self, defaults: Option<&toml::Table>) -> Option<toml::Table> {
        match self.kind {
            Kind::Table(_) => defaults
                .and_then(|t| t.get(self.name))
                .and_then(toml::Value::as_table)
                .cloned(),
            _ => None,
        }
    }
}

fn rows(keys: &[Key], prefix: &str, defaults: Option<&toml::Table>, out: &mut String) {
    for key in keys {
        let path = format!("{prefix}{}", key.name);
        let inner = key.inner_defaults(defaults);
        match key.kind {
            Kind::Table(_) => {
                let fields = key.kind.fields().unwrap_or_default();
                rows(fields, &format!("{path}."), inner.as_ref(), out)
            }
            Kind::Tables(inner) => rows(inner, &format!("{path}[]."), None, out),
            kind => {
                let default = key
                    .default_value(defaults)
                    .map_or("—".to_owned(), |d| format!("`{d}`"));
                let what = kind.describe().replace('|', "\\|");
                out.push_str(&format!("| `{path}` | {what} | {default} |\n"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/config.md, whose key tables are written from the declarations
    /// when the test runs with `LANECALL_WRITE_DOCS=1`: a key added to a
    /// table's struct gets its row so, not by hand.
    fn docs() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/config.md")
    }

    /// Where the table between `<!-- NAME -->` and `<!-- end NAME -->`
    /// is in `doc`.
    fn between(doc: &str, name: &str) -> std::ops::Range<usize> {
        let start = format!("<!-- {name} -->\n");
        let end = format!("<!-- end {name} -->");
        let from = doc.find(&start).expect("start marker") + start.len();
        let to = doc.find(&end).expect("end marker");
        from..to
    }

    #[test]
    fn the_docs_key_tables_are_the_declarations() {
        let tables = [
            ("lane keys", crate::config::Config::key_table()),
            (
                "centre keys",
                crate::centre::config::CentreConfig::key_table(),
            ),
        ];
        let mut doc = std::fs::read_to_string(docs()).unwrap();
        if std::env::var_os("LANECALL_WRITE_DOCS").is_some() {
            for (name, table) in &tables {
                let at = between(&doc, name);
                doc.replace_range(at, table);
            }
            std::fs::write(docs(), &doc).unwrap();
        }
        for (name, table) in &tables {
            assert_eq!(
                &doc[between(&doc, name)],
                table,
                "docs/config.md: the {name} (LANECALL_WRITE_DOCS=1 cargo test --lib \
                 config::keys writes them)"
            );
        }
    }

    #[test]
    fn a_default_is_shown_as_the_file_writes_it() {
        let table = crate::config::Config::key_table();
        assert!(
            table.contains("| `speaker.stale_after_ms` | a whole number | `8000` |\n"),
            "{table}"
        );
        assert!(
            table.contains("| `lane` | a whole number | — |\n"),
            "{table}"
        );
        assert!(
            table.contains("| `gpio.inputs.ball.pull` | a string in quotes | `\"up\"` |\n"),
            "{table}"
        );
    }

    /// What `check-config` prints (`Config::to_toml`) names every key the
    /// declaration gives a default, with that default for a file that
    /// sets nothing, and no key the declaration lacks: a key declared but
    /// not printed, or printed under another name, fails here.
    #[test]
    fn the_printed_config_is_the_declaration() {
        fn walk(
            keys: &[Key],
            defaults: Option<&toml::Table>,
            table: &toml::Table,
            prefix: &str,
            out: &mut Vec<String>,
        ) {
            for (name, value) in table {
                let path = format!("{prefix}{name}");
                match keys.iter().find(|k| k.name == name) {
                    None => out.push(format!("{path}: printed, not declared")),
                    Some(k) => {
                        if let (Some(inner), toml::Value::Table(t)) = (k.kind.fields(), value) {
                            let d = k.inner_defaults(defaults);
                            walk(inner, d.as_ref(), t, &format!("{path}."), out)
                        }
                    }
                }
            }
            for key in keys {
                let path = format!("{prefix}{}", key.name);
                match (key.default_value(defaults), table.get(key.name)) {
                    // A table's keys are compared in it; one left out
                    // (`[pinsetter.switches]` of a serial pinsetter) has
                    // its keys' defaults documented.
                    _ if key.kind.fields().is_some() => {}
                    (Some(_), None) => out.push(format!("{path}: declared, not printed")),
                    (Some(default), Some(printed)) if default != *printed => {
                        out.push(format!("{path}: printed {printed}, default {default}"))
                    }
                    _ => {}
                }
            }
        }
        let minimal = "lane = 3\nstate_dir = \"/var/lib/lanecall\"\n[pinsetter]\nport = \"/dev/ttyUSB0\"\n[gpio]\nbackend = \"none\"\n[web]\njudge_pin_hash = \"$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"\n";
        let config = crate::config::Config::parse(minimal, std::path::Path::new("lanecall.toml"))
            .unwrap_or_else(|e| panic!("{e}"));
        let printed: toml::Table = toml::from_str(&config.to_toml()).unwrap();
        let mut differ = Vec::new();
        let defaults = super::super::raw::root_defaults();
        walk(
            super::super::raw::root(),
            Some(&defaults),
            &printed,
            "",
            &mut differ,
        );
        assert_eq!(differ, Vec::<String>::new(), "{}", config.to_toml());
    }

    /// Every default declared is the value the example file states (it
    /// states the code's defaults, tests/config.rs checks), but for the
    /// buttons' debounce, which the example sets longer on purpose.
    #[test]
    fn the_declared_defaults_are_the_examples() {
        fn compare(
            keys: &[Key],
            defaults: Option<&toml::Table>,
            table: &toml::Table,
            prefix: &str,
            out: &mut Vec<String>,
        ) {
            for key in keys {
                let path = format!("{prefix}{}", key.name);
                match (key.kind.fields(), table.get(key.name)) {
                    (Some(inner), Some(toml::Value::Table(t))) => {
                        let d = key.inner_defaults(defaults);
                        compare(inner, d.as_ref(), t, &format!("{path}."), out)
                    }
                    (_, Some(stated)) => {
                        if let Some(default) = key.default_value(defaults)
                            && default != *stated
                            && !path.starts_with("gpio.buttons.")
                        {
                            out.push(format!("{path}: {stated} in the example, {default}"));
                        }
                    }
                    _ => {}
                }
            }
        }
        let example: toml::Table =
            toml::from_str(include_str!("../../config/lanecall.toml")).unwrap();
        let mut differ = Vec::new();
        let defaults = super::super::raw::root_defaults();
        compare(
            super::super::raw::root(),
            Some(&defaults),
            &example,
            "",
            &mut differ,
        );
        assert_eq!(differ, Vec::<String>::new());
    }
}

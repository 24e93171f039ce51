//! The centre's commands (docs/mqtt.md, "command and reply"): read and
//! checked here, each bad one with the reason the reply gives. Taking them
//! is the link's.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::files::JournalFiles;
use crate::journal::parse_panel_action;
use crate::lane::Action;
use crate::ports::valid_name;

/// The largest command taken, in bytes.
pub const MAX_COMMAND: usize = 16 * 1024;

/// The longest command id, in characters.
const MAX_ID: usize = 64;

/// The actions the centre may send.
const ACTIONS: [&str; 2] = ["lineup", "hold"];

/// A command, checked.
#[derive(Debug, PartialEq)]
pub enum Command {
    /// A panel action, to journal `by` = `centre: <by>`.
    Action {
        id: String,
        by: String,
        action: Action,
    },
    /// Publish again the lines of `file` from line `from` on, to line
    /// `to` if given; with no `file`, the lane's current journals from
    /// line 1.
    Resend {
        id: String,
        file: Option<String>,
        from: u64,
        to: Option<u64>,
    },
}

/// A command that cannot be taken: its id, if it had one, and why.
#[derive(Debug, PartialEq, Eq)]
pub struct Bad {
    pub id: Option<String>,
    pub error: String,
}

/// The reply to a command (docs/mqtt.md).
pub fn reply(id: Option<&str>, result: Result<(), String>) -> String {
    match result {
        Ok(()) => json!({"id": id, "ok": true}),
        Err(error) => json!({"id": id, "ok": false, "error": error}),
    }
    .to_string()
}

/// Reads a command.
pub fn parse(payload: &[u8]) -> Result<Command, Bad> {
    let bad = |id: Option<&str>, error: String| Bad {
        id: id.map(str::to_owned),
        error,
    };
    if payload.len() > MAX_COMMAND {
        return Err(bad(
            None,
            format!(
                "the command is {} bytes: at most {MAX_COMMAND}",
                payload.len()
            ),
        ));
    }
    let value: Value = serde_json::from_slice(payload)
        .map_err(|e| bad(None, format!("a command is one JSON object: {e}")))?;
    let Value::Object(fields) = value else {
        return Err(bad(None, "a command is one JSON object".into()));
    };
    let id = match fields.get("id") {
        Some(Value::String(id)) if !id.is_empty() && id.chars().count() <= MAX_ID => id.as_str(),
        Some(_) => {
            return Err(bad(
                None,
                format!("the command's id must be a string of 1 to {MAX_ID} characters"),
            ));
        }
        None => return Err(bad(None, "the command has no id".into())),
    };
    let some = Some(id);
    match (fields.get("action"), fields.get("resend")) {
        (Some(action), None) => {
            let ev = action.get("ev").and_then(Value::as_str).unwrap_or("");
            if !ACTIONS.contains(&ev) {
                return Err(bad(
                    some,
                    format!(
                        "the centre may send only the actions {}, not {ev:?}",
                        ACTIONS.join(" and ")
                    ),
                ));
            }
            let by = match fields.get("by") {
                Some(Value::String(by)) => by,
                _ => {
                    return Err(bad(
                        some,
                        "an action needs `by`: the name of the centre's judge who sends it".into(),
                    ));
                }
            };
            valid_name(by).map_err(|e| bad(some, format!("by: {e}")))?;
            let by = format!("centre: {by}");
            let action = parse_panel_action(action.to_string().as_bytes(), &by)
                .map_err(|e| bad(some, format!("action: {e}")))?;
            Ok(Command::Action {
                id: id.to_owned(),
                by,
                action,
            })
        }
        (None, Some(resend)) => {
            let file = resend.get("file").map(Value::as_str);
            let from = resend.get("from").map(Value::as_u64);
            let to = resend.get("to").map(|v| v.as_u64().ok_or(())).transpose();
            match (file, from, to) {
                (Some(Some(file)), Some(Some(from)), Ok(to))
                    if from >= 1 && to.is_none_or(|to| to >= from) =>
                {
                    Ok(Command::Resend {
                        id: id.to_owned(),
                        file: Some(file.to_owned()),
                        from,
                        to,
                    })
                }
                (None, None | Some(Some(1)), Ok(None)) => Ok(Command::Resend {
                    id: id.to_owned(),
                    file: None,
                    from: 1,
                    to: None,
                }),
                _ => Err(bad(
                    some,
                    "resend needs `file` (a journal's name) and `from` (a line number from 1), \
                     and may have `to` (the last line wanted, not before `from`); \
                     or no `file`, no `to` and `from` absent or 1 (the current journals \
                     from the start)"
                        .into(),
                )),
            }
        }
        (Some(_), Some(_)) => Err(bad(
            some,
            "a command has either `action` or `resend`, not both".into(),
        )),
        (None, None) => Err(bad(
            some,
            "the command has neither `action` nor `resend`".into(),
        )),
    }
}

/// The journal `name` in `dir`: a plain file name of the lane's journals,
/// never a path elsewhere.
pub fn journal_file(files: &dyn JournalFiles, dir: &Path, name: &str) -> Result<PathBuf, String> {
    let plain = !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name.ends_with(".jsonl")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !plain {
        return Err(format!("{name:?} is not the name of a journal file"));
    }
    let path = dir.join(name);
    if files.is_file(&path) {
        Ok(path)
    } else {
        Err(format!("this lane has no journal {name:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::Panel;

    fn error(payload: &str) -> Bad {
        parse(payload.as_bytes()).unwrap_err()
    }

    #[test]
    fn commands_are_read_and_bad_ones_say_why() {
        let hold = parse(
            br#"{"id":"c-42","by":"Ivanova","action":{"ev":"hold","on":true,"reason":"oil"}}"#,
        )
        .unwrap();
        let Command::Action { id, by, action } = hold else {
            panic!("an action")
        };
        assert_eq!((id.as_str(), by.as_str()), ("c-42", "centre: Ivanova"));
        assert_eq!(action.name(), "hold");
        let _ = Panel::new(Some(by), action);
        assert_eq!(
            parse(br#"{"id":"c-43","resend":{"file":"lane7-1.jsonl","from":17}}"#).unwrap(),
            Command::Resend {
                id: "c-43".into(),
                file: Some("lane7-1.jsonl".into()),
                from: 17,
                to: None
            }
        );
        assert_eq!(
            parse(br#"{"id":"c-46","resend":{"file":"lane7-1.jsonl","from":17,"to":17}}"#).unwrap(),
            Command::Resend {
                id: "c-46".into(),
                file: Some("lane7-1.jsonl".into()),
                from: 17,
                to: Some(17)
            }
        );
        for bad in [
            r#"{"id":"c-47","resend":{"file":"lane7-1.jsonl","from":17,"to":16}}"#,
            r#"{"id":"c-47","resend":{"file":"lane7-1.jsonl","from":17,"to":"x"}}"#,
            r#"{"id":"c-47","resend":{"from":1,"to":9}}"#,
        ] {
            assert!(error(bad).error.contains("`to`"), "{bad}");
        }
        for whole in [
            r#"{"id":"c-44","resend":{}}"#,
            r#"{"id":"c-44","resend":{"from":1}}"#,
        ] {
            assert_eq!(
                parse(whole.as_bytes()).unwrap(),
                Command::Resend {
                    id: "c-44".into(),
                    file: None,
                    from: 1,
                    to: None
                }
            );
        }
        let e = error(r#"{"id":"c-45","resend":{"from":7}}"#);
        assert!(e.error.contains("no `file`"), "{e:?}");
        let e = error("not json");
        assert_eq!(e.id, None);
        assert!(e.error.starts_with("a command is one JSON object"), "{e:?}");
        assert_eq!(error(r#"{"by":"x"}"#).error, "the command has no id");
        let e = error(r#"{"id":"c-1","by":"x","action":{"ev":"correct_ball"}}"#);
        assert_eq!(e.id.as_deref(), Some("c-1"));
        assert!(
            e.error.contains("only the actions lineup and hold"),
            "{e:?}"
        );
        let e = error(r#"{"id":"c-2","action":{"ev":"hold","on":true}}"#);
        assert!(e.error.contains("needs `by`"), "{e:?}");
        let e = error(r#"{"id":"c-3","by":"x","action":{"ev":"lineup"}}"#);
        assert!(e.error.starts_with("action: "), "{e:?}");
        let e = error(r#"{"id":"c-4","resend":{"file":"a.jsonl","from":0}}"#);
        assert!(e.error.contains("from"), "{e:?}");
        let big = format!(r#"{{"id":"c-5","pad":"{}"}}"#, "x".repeat(MAX_COMMAND));
        assert!(error(&big).error.contains("at most 16384"));
    }

    #[test]
    fn a_lineup_carries_the_centres_block_and_its_games() {
        let lineup = parse(
            br#"{"id":"c-50","by":"Ivanova","action":{"ev":"lineup","bowlers":[{"name":"Orlov","class":"B1"}],"block":"RR-B1","games":1}}"#,
        )
        .unwrap();
        let Command::Action { action, .. } = lineup else {
            panic!("an action")
        };
        let Action::Lineup {
            bowlers,
            block,
            games,
        } = action
        else {
            panic!("a lineup: {action:?}")
        };
        assert_eq!(bowlers.len(), 1);
        assert_eq!((block.as_deref(), games), (Some("RR-B1"), Some(1)));
        // Without them, as every centre sent before.
        let plain =
            br#"{"id":"c-51","by":"Ivanova","action":{"ev":"lineup","bowlers":[{"name":"Orlov","class":"B1"}]}}"#;
        let Ok(Command::Action { action, .. }) = parse(plain) else {
            panic!("an action")
        };
        assert!(matches!(
            action,
            Action::Lineup {
                block: None,
                games: None,
                ..
            }
        ));
        let e = error(
            r#"{"id":"c-52","by":"x","action":{"ev":"lineup","bowlers":[{"name":"Orlov","class":"B1"}],"games":"one"}}"#,
        );
        assert!(e.error.starts_with("action: "), "{e:?}");
    }

    #[test]
    fn a_resend_names_a_journal_in_the_folder_and_nothing_else() {
        let dir = std::env::temp_dir().join(format!("lanecall-cmd-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("journal")).unwrap();
        std::fs::write(dir.join("journal/lane1-x.jsonl"), "h\n").unwrap();
        std::fs::write(dir.join("secret.jsonl"), "s\n").unwrap();
        let journals = dir.join("journal");
        assert_eq!(
            journal_file(&crate::centre_link::files::Disk, &journals, "lane1-x.jsonl").unwrap(),
            journals.join("lane1-x.jsonl")
        );
        for name in [
            "../secret.jsonl",
            "/etc/passwd",
            "..",
            ".jsonl",
            "lane1-x.jsonl/",
            "",
        ] {
            assert!(
                journal_file(&crate::centre_link::files::Disk, &journals, name).is_err(),
                "{name}"
            );
        }
        assert!(
            journal_file(&crate::centre_link::files::Disk, &journals, "lane1-y.jsonl")
                .unwrap_err()
                .contains("no journal")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

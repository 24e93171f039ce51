//! The judges' PINs, checked once for both files that hold them: the
//! lane's `[web]` and the centre's `[web]` (a chief judge's shared
//! `judge_pin_hash`, and `[[web.judges]]`, each a name and a PIN hash of
//! their own).
//!
//! It decides which hashes and names can work; it never checks a PIN
//! against a hash.

use super::collect::Check;

/// `[[web.judges]]` at most: each login checks every judge's PIN.
pub const MAX_JUDGES: usize = 8;

/// One `[[web.judges]]`: a judge with a PIN of their own (checked with
/// the list, by [`judges`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(default)]
pub struct JudgeConfig {
    /// As the journal names them.
    pub name: String,
    /// Their PIN's hash, as `lanecall hash-pin PIN` prints it.
    pub pin_hash: String,
}

/// What a problem with a PIN hash tells the technician to do.
pub(crate) const HOW: &str = "run `lanecall hash-pin PIN` and paste its output";

/// What is wrong with a PIN hash as `lanecall hash-pin` prints it: not
/// argon2, cut short, or of an argon2 variant this build cannot check.
pub(crate) fn pin_hash_problem(hash: &str) -> Option<String> {
    if !hash.starts_with("$argon2") {
        return Some(format!(
            "is not an argon2 hash (it must start with $argon2): {HOW}"
        ));
    }
    let phc = match argon2::PasswordHash::new(hash) {
        Ok(phc) if phc.hash.is_some() => phc,
        _ => {
            return Some(format!(
                "is not a complete argon2 hash (cut short when pasted?): {HOW}"
            ));
        }
    };
    argon2::Algorithm::try_from(phc.algorithm.as_str())
        .err()
        .map(|e| format!("{e}: {HOW}"))
}

/// A PIN hash this build can check, or a problem at `key`.
pub(crate) fn pin_hash(c: &mut Check, key: &str, hash: String) -> Option<String> {
    match pin_hash_problem(&hash) {
        Some(problem) => {
            c.push(key, problem);
            None
        }
        None => Some(hash),
    }
}

/// `[[web.judges]]`: at most [`MAX_JUDGES`], each a name (as `written`
/// says: "the journal writes", "the records write") and a PIN hash, no
/// name twice. `None` with the problems pushed.
pub(crate) fn judges(
    c: &mut Check,
    raw: Vec<JudgeConfig>,
    written: &str,
) -> Option<Vec<JudgeConfig>> {
    if raw.len() > MAX_JUDGES {
        c.push(
            "web.judges",
            format!(
                "{} judges: at most {MAX_JUDGES} (each login checks every judge's PIN)",
                raw.len()
            ),
        );
        return None;
    }
    let mut judges = Vec::new();
    let mut ok = true;
    for (i, j) in raw.into_iter().enumerate() {
        let key = |k: &str| format!("web.judges[{}].{k}", i + 1);
        let name = c
            .non_empty(
                &key("name"),
                Some(j.name),
                &format!("the judge's name as {written} it"),
            )
            .map(|n| n.trim().to_owned())
            .and_then(|n| match crate::ports::valid_name(&n) {
                Ok(()) => Some(n),
                Err(m) => {
                    c.push(key("name"), m);
                    None
                }
            });
        if let Some(n) = &name
            && judges.iter().any(|j: &JudgeConfig| j.name == *n)
        {
            c.push(key("name"), format!("{n:?} is named twice"));
            ok = false;
        }
        let hash = c
            .required(
                &key("pin_hash"),
                Some(j.pin_hash).filter(|h| !h.is_empty()),
                &format!("the judge's PIN hash: {HOW}"),
            )
            .and_then(|h| pin_hash(c, &key("pin_hash"), h));
        match (name, hash) {
            (Some(name), Some(pin_hash)) => judges.push(JudgeConfig { name, pin_hash }),
            _ => ok = false,
        }
    }
    ok.then_some(judges)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HASH: &str =
        "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

    #[test]
    fn a_pin_hash_is_a_complete_argon2_hash_of_a_known_variant() {
        assert_eq!(pin_hash_problem(HASH), None);
        let not = pin_hash_problem("1234").unwrap();
        assert!(not.starts_with("is not an argon2 hash"), "{not}");
        let short = pin_hash_problem("$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ").unwrap();
        assert!(
            short.starts_with("is not a complete argon2 hash"),
            "{short}"
        );
        let variant = pin_hash_problem(&HASH.replace("argon2id", "argon2x")).unwrap();
        assert!(variant.ends_with(HOW), "{variant}");
    }

    #[test]
    fn judges_each_have_a_name_once_and_a_hash() {
        let judge = |name: &str, hash: Option<&str>| JudgeConfig {
            name: name.to_owned(),
            pin_hash: hash.unwrap_or_default().to_owned(),
        };
        let mut c = Check::default();
        let list = judges(
            &mut c,
            vec![
                judge("Orlova", Some(HASH)),
                judge(" ", Some(HASH)),
                judge("Orlova", None),
            ],
            "the records write",
        );
        assert_eq!(list, None);
        let problems: Vec<String> = c.problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            problems,
            [
                "web.judges[2].name: is empty: the judge's name as the records write it",
                "web.judges[3].name: \"Orlova\" is named twice",
                "web.judges[3].pin_hash: is missing: the judge's PIN hash: run `lanecall \
                 hash-pin PIN` and paste its output",
            ]
        );
        let mut c = Check::default();
        let nine = (0..9)
            .map(|i| judge(&format!("J{i}"), Some(HASH)))
            .collect();
        assert_eq!(judges(&mut c, nine, "the journal writes"), None);
        assert_eq!(c.problems.len(), 1);
    }
}

//! The crate's layout, read from its source: no circle among the library's
//! modules, and no file too long to hold in the head.
//!
//! A module is one of the library's top-level modules (`lib.rs`'s `mod`
//! lines: `ports`, `daemon`, `lane`, `web`, `sensors`, …) with all the
//! files under it; a module's own files using each other is its own
//! business. Module `a` uses `b` when a file of `a` names a `crate::b`
//! path, in a `use` line or in code (`super::` paths that climb to the
//! crate's root count too). Comments do not count (a doc link is not a
//! dependency), nor do `#[cfg(test)]` modules: a unit test may build its
//! case with whatever module it needs.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for entry in fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The file's path under `src/`, with `/` between the parts.
fn relative(file: &Path) -> String {
    let rel = file.strip_prefix(src()).unwrap();
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The library's top-level modules, from `lib.rs`'s `mod` lines.
fn top_modules(lib: &str) -> BTreeSet<String> {
    code_lines(lib)
        .filter_map(|line| {
            let line = line.trim();
            let rest = line
                .strip_prefix("pub mod ")
                .or_else(|| line.strip_prefix("mod "))
                .or_else(|| line.strip_prefix("pub(crate) mod "))?;
            rest.strip_suffix(';').map(|m| m.trim().to_owned())
        })
        .collect()
}

/// The module path of a file of the library (`sensors/gpio.rs` is
/// `["sensors", "gpio"]`, `sensors/mod.rs` is `["sensors"]`), or `None`
/// for a file that is not the library's (`main.rs` and the binary's own
/// modules).
fn module_path(rel: &str, top: &BTreeSet<String>) -> Option<Vec<String>> {
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts == ["lib"] {
        return Some(Vec::new());
    }
    top.contains(&parts[0]).then_some(parts)
}

/// The lines of a file without their comments (`//` to the end of the
/// line, `/* … */`).
fn code_lines(text: &str) -> impl Iterator<Item = String> + '_ {
    let mut in_block = false;
    text.lines().map(move |line| {
        let mut out = String::new();
        let mut rest = line;
        loop {
            if in_block {
                match rest.find("*/") {
                    Some(end) => {
                        rest = &rest[end + 2..];
                        in_block = false;
                    }
                    None => break,
                }
            } else {
                let line_comment = rest.find("//");
                let block = rest.find("/*");
                match (line_comment, block) {
                    (Some(l), b) if b.is_none_or(|b| l < b) => {
                        out.push_str(&rest[..l]);
                        break;
                    }
                    (_, Some(b)) => {
                        out.push_str(&rest[..b]);
                        rest = &rest[b + 2..];
                        in_block = true;
                    }
                    _ => {
                        out.push_str(rest);
                        break;
                    }
                }
            }
        }
        out
    })
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The first path segment after each `crate::` in a line, with the
/// names in a `crate::{a, b::c}` group.
fn crate_paths(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = line[from..].find("crate::") {
        let start = from + at;
        from = start + "crate::".len();
        // `$crate::` is a macro's, `mycrate::` another name.
        let before = line[..start].chars().next_back();
        if before.is_some_and(|c| is_ident(c) || c == '$') {
            continue;
        }
        let rest = &line[from..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = group.split('}').next().unwrap_or("");
            for item in group.split(',') {
                let name: String = item.trim().chars().take_while(|&c| is_ident(c)).collect();
                if !name.is_empty() {
                    out.push(name);
                }
            }
        } else {
            let name: String = rest.chars().take_while(|&c| is_ident(c)).collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
    }
    out
}

/// `super::…` paths that climb to the crate's root from a file at
/// `module`: the top-level module they name.
fn super_paths(line: &str, module: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = line[from..].find("super::") {
        let start = from + at;
        let before = line[..start].chars().next_back();
        if before.is_some_and(|c| is_ident(c) || c == ':') {
            from = start + 1;
            continue;
        }
        let mut rest = &line[start..];
        let mut ups = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            ups += 1;
            rest = r;
        }
        from = line.len() - rest.len();
        if ups >= module.len() {
            let name: String = rest.chars().take_while(|&c| is_ident(c)).collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
    }
    out
}

/// The lines (0-based) of `#[cfg(test)] mod … { … }` blocks.
fn test_modules(lines: &[String]) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    let mut n = 0;
    while n < lines.len() {
        let is_test_mod = lines[n].trim() == "#[cfg(test)]"
            && lines
                .get(n + 1)
                .is_some_and(|l| l.trim_start().starts_with("mod ") && l.contains('{'));
        if !is_test_mod {
            n += 1;
            continue;
        }
        let mut depth = 0i64;
        let mut at = n + 1;
        while at < lines.len() {
            out.insert(at);
            depth += lines[at].matches('{').count() as i64;
            depth -= lines[at].matches('}').count() as i64;
            at += 1;
            if depth <= 0 {
                break;
            }
        }
        n = at;
    }
    out
}

/// Top-level modules that are one room, with why: the test takes them as
/// one module.
const ROOMS: &[(&str, &str, &str)] = &[(
    "pinsetter",
    "lane",
    "the pinsetter's protocol is the core's own parser: pure, it reads the \
     journal's serial lines for the lane and uses its `PinSet`; it is to \
     move under `lane/` once that is split by concern",
)];

/// The room a top-level module is in.
fn room(module: &str) -> &str {
    ROOMS
        .iter()
        .find(|(m, _, _)| *m == module)
        .map_or(module, |(_, room, _)| room)
}

/// Which module uses which, with where: `deps[a][b]` is the first place a
/// file of `a` names `b` (`file:line: text`).
fn dependencies() -> BTreeMap<String, BTreeMap<String, String>> {
    let lib = fs::read_to_string(src().join("lib.rs")).unwrap();
    let top = top_modules(&lib);
    assert!(
        top.len() > 5,
        "lib.rs's modules not found, only {top:?}: has the way they are declared changed?"
    );
    let mut deps: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for file in rust_files(&src()) {
        let rel = relative(&file);
        let Some(module) = module_path(&rel, &top) else {
            continue;
        };
        let Some(own) = module.first() else {
            continue; // lib.rs only declares the modules
        };
        let text = fs::read_to_string(&file).unwrap();
        let lines: Vec<String> = code_lines(&text).collect();
        let tests = test_modules(&lines);
        for (n, line) in lines.iter().enumerate() {
            if tests.contains(&n) {
                continue;
            }
            let names = crate_paths(line)
                .into_iter()
                .chain(super_paths(line, &module));
            for name in names {
                let name = room(&name).to_owned();
                if name != room(own) && top.contains(&name) {
                    deps.entry(room(own).to_owned())
                        .or_default()
                        .entry(name)
                        .or_insert_with(|| format!("src/{rel}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    deps
}

/// The circles among the modules: every group of modules that use each
/// other (a strongly connected component of more than one), each as one
/// circle through it and the whole group.
type Circle = (Vec<String>, BTreeSet<String>);

fn circles(deps: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<Circle> {
    let reach = |from: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_owned()];
        while let Some(m) = todo.pop() {
            for next in deps.get(&m).into_iter().flat_map(|d| d.keys()) {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for start in deps.keys() {
        if done.contains(start) || !reach(start).contains(start) {
            continue;
        }
        // The group: the modules `start` reaches that reach it back.
        let group: BTreeSet<String> = reach(start)
            .into_iter()
            .filter(|m| reach(m).contains(start))
            .collect();
        done.extend(group.iter().cloned());
        // A shortest way back to `start`, breadth first.
        let mut came_from: BTreeMap<String, String> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start.clone()]);
        'search: while let Some(m) = queue.pop_front() {
            for next in deps.get(&m).into_iter().flat_map(|d| d.keys()) {
                if next == start {
                    came_from.insert(start.clone(), m.clone());
                    break 'search;
                }
                if !came_from.contains_key(next) {
                    came_from.insert(next.clone(), m.clone());
                    queue.push_back(next.clone());
                }
            }
        }
        let mut circle = vec![start.clone()];
        let mut at = came_from[start].clone();
        while &at != start {
            circle.push(at.clone());
            at = came_from[&at].clone();
        }
        circle.push(start.clone());
        circle.reverse();
        out.push((circle, group));
    }
    out
}

#[test]
fn no_circle_among_the_crates_modules() {
    let deps = dependencies();
    let found = circles(&deps);
    let mut message = String::new();
    for (circle, group) in &found {
        message.push_str(&format!("\n\ncircle: {}", circle.join(" → ")));
        message.push_str(&format!("\nthe modules that use each other: {group:?}"));
        for (from, uses) in deps.iter().filter(|(m, _)| group.contains(*m)) {
            for (to, place) in uses.iter().filter(|(m, _)| group.contains(*m)) {
                message.push_str(&format!("\n  {from} uses {to}: {place}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the library's modules must use each other one way only (ports at the bottom, \
         the wiring in `daemon` at the top):{message}"
    );
}

#[test]
fn the_ports_use_no_adapter_and_no_adapter_uses_the_wiring() {
    let deps = dependencies();
    // The ports are what the adapters share: they may use the core's
    // types (and its parser, to tell noise from a message: ROOMS), nothing
    // that does I/O.
    let ports: Vec<_> = deps
        .get("ports")
        .into_iter()
        .flat_map(|d| d.iter())
        .collect();
    for (used, place) in &ports {
        assert_eq!(
            used.as_str(),
            "lane",
            "the ports use only the core (`lane`), not `{used}`: {place}"
        );
    }
    for (module, uses) in &deps {
        if let Some(place) = uses.get("daemon") {
            panic!("`{module}` uses the wiring (`daemon`); use `ports` instead: {place}");
        }
    }
}

/// The files allowed over [`MAX_LINES`], each with why.
const LONG_FILES: &[(&str, &str)] = &[(
    "web/server.rs",
    "one concern: the accept loop, whose timeouts, connection cap and TLS share its table of connections",
)];

/// A file longer than this is too long to hold in the head.
const MAX_LINES: usize = 700;

#[test]
fn no_file_in_src_over_700_lines_but_those_listed_with_why() {
    let mut problems = Vec::new();
    for file in rust_files(&src()) {
        let rel = relative(&file);
        let lines = fs::read_to_string(&file).unwrap().lines().count();
        let listed = LONG_FILES.iter().any(|(f, _)| *f == rel);
        if lines > MAX_LINES && !listed {
            problems.push(format!(
                "src/{rel} has {lines} lines: split it, or list it in LONG_FILES with why"
            ));
        }
        if lines <= MAX_LINES && listed {
            problems.push(format!(
                "src/{rel} has {lines} lines now: take it off LONG_FILES"
            ));
        }
    }
    for (f, _) in LONG_FILES {
        if !src().join(f).exists() {
            problems.push(format!("src/{f} is gone: take it off LONG_FILES"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

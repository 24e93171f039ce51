//! The workspace's layout, read from its source: no circle among a crate's
//! modules nor among a folder's files, and a core that does no I/O.
//!
//! The workspace has two crates: `lanecall` (src/: the daemon, the centre,
//! the CLI) and `lanecall-core` (crates/lanecall-core/src/: the lane's
//! rules, the pinsetter's protocol, the journal format, replay, the
//! simulator), which `lanecall` re-exports under the same paths (lib.rs's
//! `pub use lanecall_core::{…}`). Cargo keeps the core from using the
//! daemon; these tests keep each crate's modules one way, and the core
//! pure.
//!
//! A module is one of a crate's top-level modules (`lib.rs`'s `mod`
//! lines: `ports`, `daemon`, `lane`, `web`, `sensors`, …, and in
//! `lanecall` the core's modules it re-exports) with all the files under
//! it; a module's own files using each other is its own business. Module
//! `a` uses `b` when a file of `a` names a `crate::b` path (or, in
//! `lanecall`, `lanecall_core::b`), in a `use` line or in code (`super::`
//! paths that climb to the crate's root count too). Comments do not count
//! (a doc link is not a dependency), nor do `#[cfg(test)]` modules: a unit
//! test may build its case with whatever module it needs.

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

/// A crate of the workspace.
struct Crate {
    name: &'static str,
    /// Its folder, from the workspace's root.
    dir: &'static str,
}

/// The daemon's crate (the workspace's root) and the pure core.
const CRATES: [Crate; 2] = [
    Crate {
        name: "lanecall",
        dir: ".",
    },
    Crate {
        name: "lanecall-core",
        dir: "crates/lanecall-core",
    },
];

/// The pure core.
const CORE: &Crate = &CRATES[1];

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

impl Crate {
    fn src(&self) -> PathBuf {
        workspace().join(self.dir).join("src")
    }
}

/// `file`'s path under `dir`, with `/` between the parts.
fn relative(file: &Path, dir: &Path) -> String {
    let rel = file.strip_prefix(dir).unwrap();
    rel.components()
        .filter(|c| c.as_os_str() != ".")
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The file's path from the workspace's root (`src/web/server.rs`,
/// `crates/lanecall-core/src/lane/mod.rs`).
fn shown(file: &Path) -> String {
    relative(file, workspace())
}

/// A library's own top-level modules, from `lib.rs`'s `mod` lines.
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

/// The core's modules a library re-exports, from `lib.rs`'s `pub use
/// lanecall_core::…` lines.
fn core_modules(lib: &str) -> BTreeSet<String> {
    code_lines(lib)
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("pub use lanecall_core::")?;
            let rest = rest.strip_suffix(';')?;
            let rest = rest.strip_prefix('{').unwrap_or(rest);
            let rest = rest.strip_suffix('}').unwrap_or(rest);
            Some(
                rest.split(',')
                    .map(|m| m.trim().to_owned())
                    .filter(|m| !m.is_empty())
                    .collect::<Vec<_>>(),
            )
        })
        .flatten()
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
    paths_after(line, "crate::")
}

/// The first path segment after each `root` (`crate::`,
/// `lanecall_core::`) in a line, with the names in a `root{a, b::c}`
/// group.
fn paths_after(line: &str, root: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = line[from..].find(root) {
        let start = from + at;
        from = start + root.len();
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
/// one module. None: the pinsetter's parser and the lane share the pins
/// through their own module, `pins`.
const ROOMS: &[(&str, &str, &str)] = &[];

/// The room a top-level module is in.
fn room(module: &str) -> &str {
    ROOMS
        .iter()
        .find(|(m, _, _)| *m == module)
        .map_or(module, |(_, room, _)| room)
}

/// Which module of `krate` uses which, with where: `deps[a][b]` is the
/// first place a file of `a` names `b` (`file:line: text`).
fn dependencies(krate: &Crate) -> BTreeMap<String, BTreeMap<String, String>> {
    let src = krate.src();
    let lib = fs::read_to_string(src.join("lib.rs")).unwrap();
    let own_top = top_modules(&lib);
    assert!(
        own_top.len() > 5,
        "{}'s lib.rs's modules not found, only {own_top:?}: has the way they are declared changed?",
        krate.name
    );
    let core = core_modules(&lib);
    let top: BTreeSet<String> = own_top.union(&core).cloned().collect();
    let mut deps: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for file in rust_files(&src) {
        let rel = relative(&file, &src);
        let Some(module) = module_path(&rel, &own_top) else {
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
            let core_paths = paths_after(line, "lanecall_core::")
                .into_iter()
                .filter(|name| core.contains(name));
            let names = crate_paths(line)
                .into_iter()
                .chain(super_paths(line, &module))
                .chain(core_paths);
            for name in names {
                let name = room(&name).to_owned();
                if name != room(own) && top.contains(&name) {
                    deps.entry(room(own).to_owned())
                        .or_default()
                        .entry(name)
                        .or_insert_with(|| format!("{}:{}: {}", shown(&file), n + 1, line.trim()));
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
fn no_circle_among_a_crates_modules() {
    let mut message = String::new();
    for krate in &CRATES {
        let deps = dependencies(krate);
        for (circle, group) in &circles(&deps) {
            message.push_str(&format!(
                "\n\n{}: circle: {}",
                krate.name,
                circle.join(" → ")
            ));
            message.push_str(&format!("\nthe modules that use each other: {group:?}"));
            for (from, uses) in deps.iter().filter(|(m, _)| group.contains(*m)) {
                for (to, place) in uses.iter().filter(|(m, _)| group.contains(*m)) {
                    message.push_str(&format!("\n  {from} uses {to}: {place}"));
                }
            }
        }
    }
    assert!(
        message.is_empty(),
        "a crate's modules must use each other one way only (in lanecall-core `pins` at the \
         bottom; in lanecall the ports at the bottom, the wiring in `daemon` at the top):{message}"
    );
}

// --- Inside a folder -------------------------------------------------------

/// The module paths a line names from a file at `module`: each `crate::`,
/// `super::` and `self::` path made whole (`super::b::C` from `a::x` is
/// `a::b::C`), with each item of a `{…}` group as a path of its own
/// (only its first name: enough to tell which file it is in).
fn module_refs(line: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = ["crate::", "super::", "self::"]
        .iter()
        .filter_map(|root| line[from..].find(root).map(|a| from + a))
        .min()
    {
        from = at + 1;
        let before = line[..at].chars().next_back();
        if before.is_some_and(|c| is_ident(c) || c == ':' || c == '$') {
            continue;
        }
        let mut rest = &line[at..];
        let mut base: Vec<String> = if let Some(r) = rest.strip_prefix("crate::") {
            rest = r;
            Vec::new()
        } else {
            module.to_vec()
        };
        if let Some(r) = rest.strip_prefix("self::") {
            rest = r;
        }
        while let Some(r) = rest.strip_prefix("super::") {
            base.pop();
            rest = r;
        }
        loop {
            if let Some(group) = rest.strip_prefix('{') {
                let mut depth = 0;
                let mut item = String::new();
                let mut items = Vec::new();
                for c in group.chars() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => items.push(std::mem::take(&mut item)),
                        _ => {}
                    }
                    item.push(c);
                }
                items.push(item);
                for item in items {
                    let name: String = item
                        .trim_start_matches(',')
                        .trim()
                        .chars()
                        .take_while(|&c| is_ident(c))
                        .collect();
                    if !name.is_empty() && name != "self" {
                        out.push([base.clone(), vec![name]].concat());
                    }
                }
                break;
            }
            let name: String = rest.chars().take_while(|&c| is_ident(c)).collect();
            if name.is_empty() {
                break;
            }
            rest = &rest[name.len()..];
            base.push(name);
            match rest.strip_prefix("::") {
                Some(r) => rest = r,
                None => {
                    out.push(base);
                    break;
                }
            }
        }
        from = from.max(line.len() - rest.len());
    }
    out
}

/// Which file uses which inside each folder of `krate`: for the folder
/// `a/b` (a module with files), `uses["a::b"][x][y]` is where its file or
/// sub-folder `x` first names its sibling `y` (`file:line: text`). A
/// folder's `mod.rs` is its face, not one of its files; test files
/// (`tests.rs`, `*_tests.rs`) and `#[cfg(test)]` modules do not count.
type FolderUses = BTreeMap<String, BTreeMap<String, BTreeMap<String, String>>>;

fn folder_uses(krate: &Crate) -> FolderUses {
    let src = krate.src();
    let lib = fs::read_to_string(src.join("lib.rs")).unwrap();
    let top = top_modules(&lib);
    let files: Vec<(PathBuf, Vec<String>)> = rust_files(&src)
        .into_iter()
        .filter_map(|f| {
            let m = module_path(&relative(&f, &src), &top)?;
            Some((f, m))
        })
        .collect();
    // The modules that are files or folders of their own.
    let modules: BTreeSet<Vec<String>> = files.iter().map(|(_, m)| m.clone()).collect();
    let mut out = FolderUses::new();
    for (file, module) in &files {
        let name = file.file_name().unwrap().to_string_lossy();
        if name == "mod.rs" || name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let text = fs::read_to_string(file).unwrap();
        let lines: Vec<String> = code_lines(&text).collect();
        let tests = test_modules(&lines);
        for (n, line) in lines.iter().enumerate() {
            if tests.contains(&n) {
                continue;
            }
            for path in module_refs(line, module) {
                let common = module.iter().zip(&path).take_while(|(a, b)| a == b).count();
                // The crate's root is the test above's; an ancestor or
                // the file itself is no sibling.
                if common == 0 || common >= module.len() || common >= path.len() {
                    continue;
                }
                let sibling = path[..=common].to_vec();
                if !modules.contains(&sibling) {
                    continue; // an item of the folder's face (`super::Config`)
                }
                out.entry(module[..common].join("::"))
                    .or_default()
                    .entry(module[common].clone())
                    .or_default()
                    .entry(path[common].clone())
                    .or_insert_with(|| format!("{}:{}: {}", shown(file), n + 1, line.trim()));
            }
        }
    }
    out
}

#[test]
fn the_folder_finder_sees_siblings_and_whole_paths() {
    let at = |m: &str| m.split("::").map(str::to_owned).collect::<Vec<_>>();
    let refs = module_refs(
        "use super::{keys::Keys, raw}; let x = crate::config::voice::Voice::new(self::inner::f());",
        &at("config::switches"),
    );
    assert_eq!(
        refs,
        [
            at("config::keys"),
            at("config::raw"),
            at("config::voice::Voice::new"),
            at("config::switches::inner::f"),
        ]
    );
    assert_eq!(
        module_refs("use super::super::web::Api;", &at("centre::api::login")),
        [at("centre::web::Api")]
    );
    assert!(module_refs("// a comment's crate::x is cut before", &at("a")).len() == 1);
    // The house's own folders are seen: the config's files use each other.
    let uses = folder_uses(&CRATES[0]);
    assert!(uses.get("config").is_some_and(|f| f.len() > 2), "{uses:?}");
    assert!(
        uses.get("centre").is_some_and(|f| f.len() > 5),
        "{:?}",
        uses.get("centre")
    );
}

#[test]
fn no_circle_among_a_folders_files() {
    let mut message = String::new();
    for krate in &CRATES {
        for (folder, uses) in folder_uses(krate) {
            let deps: BTreeMap<String, BTreeMap<String, String>> = uses;
            for (circle, group) in &circles(&deps) {
                message.push_str(&format!(
                    "\n\n{} {folder}/: circle: {}",
                    krate.name,
                    circle.join(" → ")
                ));
                for (from, to_place) in deps.iter().filter(|(m, _)| group.contains(*m)) {
                    for (to, place) in to_place.iter().filter(|(m, _)| group.contains(*m)) {
                        message.push_str(&format!("\n  {from} uses {to}: {place}"));
                    }
                }
            }
        }
    }
    assert!(
        message.is_empty(),
        "the files of a folder must use each other one way only (what two need goes in a \
         third, or in the folder's mod.rs):{message}"
    );
}

#[test]
fn the_core_is_seen_in_both_crates() {
    // lanecall's modules that use the core are seen using it, through
    // `crate::lane` as through `lanecall_core::lane`.
    let deps = dependencies(&CRATES[0]);
    let core = top_modules(&fs::read_to_string(CORE.src().join("lib.rs")).unwrap());
    for module in ["lane", "journal", "pinsetter", "pins", "replay", "sim"] {
        assert!(
            core.contains(module),
            "lanecall-core has no module `{module}`: {core:?}"
        );
    }
    for (module, uses) in [
        ("ports", "lane"),
        ("lane_thread", "journal"),
        ("centre", "replay"),
    ] {
        assert!(
            deps.get(module).is_some_and(|d| d.contains_key(uses)),
            "`{module}` is not seen using the core's `{uses}`: {:?}",
            deps.get(module)
        );
    }
    // And in the core, its own modules.
    let deps = dependencies(CORE);
    for (module, uses) in [("lane", "pins"), ("pinsetter", "pins"), ("replay", "lane")] {
        assert!(
            deps.get(module).is_some_and(|d| d.contains_key(uses)),
            "lanecall-core's `{module}` is not seen using `{uses}`: {:?}",
            deps.get(module)
        );
    }
}

/// The modules that start the wiring (`daemon`) with their inputs.
const ABOVE_THE_WIRING: &[&str] = &["cli", "demo"];

#[test]
fn the_ports_use_no_adapter_and_no_adapter_uses_the_wiring() {
    let deps = dependencies(&CRATES[0]);
    // The ports are what the adapters share: they may use the core's
    // types (and its parser, to tell noise from a message), nothing that
    // does I/O.
    let core = top_modules(&fs::read_to_string(CORE.src().join("lib.rs")).unwrap());
    let ports: Vec<_> = deps
        .get("ports")
        .into_iter()
        .flat_map(|d| d.iter())
        .collect();
    for (used, place) in &ports {
        assert!(
            core.contains(used.as_str()),
            "the ports use only the core (lanecall-core: {core:?}), not `{used}`: {place}"
        );
    }
    // Only the command line and the demo (which runs the daemon with its
    // own inputs) start the wiring; the wiring knows nothing of the demo.
    for (module, uses) in deps
        .iter()
        .filter(|(m, _)| !ABOVE_THE_WIRING.contains(&m.as_str()))
    {
        if let Some(place) = uses.get("daemon") {
            panic!("`{module}` uses the wiring (`daemon`); use `ports` instead: {place}");
        }
    }
    for (module, uses) in deps.iter().filter(|(m, _)| *m != "cli") {
        if let Some(place) = uses.get("demo") {
            panic!("`{module}` uses the demo, which only the command line starts: {place}");
        }
    }
    // And nothing uses the command line: it is the top.
    for (module, uses) in &deps {
        if let Some(place) = uses.get("cli") {
            panic!("`{module}` uses the command line (`cli`): {place}");
        }
    }
}

// --- The core is pure -------------------------------------------------------

/// All that the core may depend on (its `[dependencies]`, and any
/// build or target-specific ones): data types, JSON, error types, a
/// checksum, integers written (`itoa`, as serde_json writes them), dates written and read (`time`, its clock never read: see
/// the names below). None of them does I/O.
const CORE_MAY_USE: &[&str] = &["crc32c", "itoa", "serde", "serde_json", "thiserror", "time"];

/// What must never be in the core, not even through another crate: a
/// runtime, a server, the sound card, the Pi's pins, MQTT, a serial port,
/// sockets.
const NEVER_IN_THE_CORE: &[&str] = &[
    "tokio",
    "axum",
    "hyper",
    "rodio",
    "rpi-pal",
    "rppal",
    "rumqttc",
    "rumqttd",
    "tokio-serial",
    "serialport",
    "mio",
    "socket2",
];

/// The core's dependencies by section (`dependencies`,
/// `target.'cfg(unix)'.build-dependencies`, …), dev-dependencies left out:
/// a unit test may use what it likes. A renamed dependency is named by
/// its package.
fn core_dependencies() -> Vec<(String, String)> {
    let text = fs::read_to_string(workspace().join(CORE.dir).join("Cargo.toml")).unwrap();
    let manifest: toml::Table = text.parse().unwrap();
    // `[dependencies]`, `[build-dependencies]`, and the same under
    // `[target.'cfg(…)']`.
    fn sections_of<'a>(prefix: &str, table: &'a toml::Table) -> Vec<(String, &'a toml::Table)> {
        table
            .iter()
            .filter(|(key, _)| key.ends_with("dependencies") && *key != "dev-dependencies")
            .map(|(key, value)| (format!("{prefix}{key}"), value.as_table().unwrap()))
            .collect()
    }
    let mut sections = sections_of("", &manifest);
    if let Some(targets) = manifest.get("target").and_then(|t| t.as_table()) {
        for (cfg, table) in targets {
            sections.extend(sections_of(
                &format!("target.{cfg}."),
                table.as_table().unwrap(),
            ));
        }
    }
    let mut out = Vec::new();
    for (section, deps) in sections {
        for (name, spec) in deps {
            let package = spec.get("package").and_then(|p| p.as_str()).unwrap_or(name);
            out.push((section.clone(), package.to_owned()));
        }
    }
    out
}

#[test]
fn the_core_depends_only_on_what_does_no_io() {
    let deps = core_dependencies();
    assert!(
        deps.iter()
            .any(|(s, d)| s == "dependencies" && d == "serde"),
        "the core's Cargo.toml's dependencies not found: {deps:?}"
    );
    let not_allowed: Vec<String> = deps
        .iter()
        .filter(|(_, d)| !CORE_MAY_USE.contains(&d.as_str()))
        .map(|(s, d)| format!("[{s}] {d}"))
        .collect();
    assert!(
        not_allowed.is_empty(),
        "lanecall-core ({}/Cargo.toml) depends on {}: not in CORE_MAY_USE {CORE_MAY_USE:?}. \
         The core does no I/O: never {}, nor a crate for files; an adapter in the \
         lanecall crate does that. Add a crate here only if it is as pure as the core.",
        CORE.dir,
        not_allowed.join(", "),
        NEVER_IN_THE_CORE.join(", "),
    );
}

#[test]
fn the_core_brings_in_no_io_crate_through_another() {
    // Cargo.lock: each package with the packages it depends on (a
    // registry crate's normal and build dependencies, never its dev ones).
    let lock: toml::Table = fs::read_to_string(workspace().join("Cargo.lock"))
        .unwrap()
        .parse()
        .unwrap();
    let packages = lock["package"].as_array().unwrap();
    let depends = |name: &str| -> Vec<String> {
        packages
            .iter()
            .filter(|p| p["name"].as_str() == Some(name))
            .flat_map(|p| {
                p.get("dependencies")
                    .and_then(|d| d.as_array())
                    .into_iter()
                    .flatten()
            })
            // "thiserror 2.0.21" when two versions are locked
            .map(|d| d.as_str().unwrap().split(' ').next().unwrap().to_owned())
            .collect()
    };
    assert!(
        depends("lanecall").contains(&"lanecall-core".to_owned()),
        "Cargo.lock has no lanecall → lanecall-core"
    );
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut todo: Vec<(String, String)> = core_dependencies()
        .into_iter()
        .map(|(_, d)| (d.clone(), format!("lanecall-core → {d}")))
        .collect();
    while let Some((name, via)) = todo.pop() {
        if seen.contains_key(&name) {
            continue;
        }
        for next in depends(&name) {
            todo.push((next.clone(), format!("{via} → {next}")));
        }
        seen.insert(name, via);
    }
    let bad: Vec<&String> = NEVER_IN_THE_CORE
        .iter()
        .filter_map(|n| seen.get(*n))
        .collect();
    assert!(bad.is_empty(), "the core brings in I/O: {bad:?}");
}

/// What the core's clippy config must refuse: a clock, a file, a socket,
/// a thread, another program and the environment. Clippy (run with
/// warnings denied in every build of CI, `.ci/lints`) refuses them in the
/// core's code, its tests too; this checks the list stays whole.
const REFUSED_IN_THE_CORE: &[&str] = &[
    "std::time::Instant::now",
    "std::time::SystemTime::now",
    "time::OffsetDateTime::now_utc",
    "std::thread::sleep",
    "std::fs::read_to_string",
    "std::fs::write",
    "std::fs::File",
    "std::fs::OpenOptions",
    "std::net::TcpStream",
    "std::net::TcpListener",
    "std::net::UdpSocket",
    "std::thread::spawn",
    "std::process::Command",
    "std::env::var",
];

#[test]
fn the_cores_clippy_config_refuses_clocks_files_sockets_and_threads() {
    let path = workspace().join(CORE.dir).join("clippy.toml");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let config: toml::Table = text
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let refused: BTreeSet<&str> = ["disallowed-methods", "disallowed-types"]
        .iter()
        .flat_map(|k| {
            config
                .get(*k)
                .and_then(|v| v.as_array())
                .into_iter()
                .flatten()
        })
        .filter_map(|entry| entry.get("path")?.as_str())
        .collect();
    let missing: Vec<&&str> = REFUSED_IN_THE_CORE
        .iter()
        .filter(|p| !refused.contains(**p))
        .collect();
    assert!(
        missing.is_empty(),
        "{} no longer refuses {missing:?}",
        shown(&path)
    );
}

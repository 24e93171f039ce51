//! What a test needs from the machine, and what happens when it is not
//! there.
//!
//! - What the suite can fetch itself, it fetches: the browser tests'
//!   JavaScript (`npm ci` in tests/browser), once, under a lock so that
//!   test programs running side by side do not race; nothing runs when it
//!   is there already.
//! - What it cannot (a Debian package, root for the disk-fault mounts)
//!   fails the test under CI (`CI` set, as `.ci/run` runs) and with
//!   `LANECALL_REQUIRE_ALL=1`, naming what to install. Elsewhere the test
//!   is skipped, never silently: it says so at once, and the skip is
//!   recorded so that `tests/zz_skipped.rs`, the last test program of a
//!   `cargo test`, lists every skipped test and the one `apt-get
//!   install` line that would run them. `LANECALL_ALLOW_SKIP=1` lets a
//!   run under CI skip too.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Where the skips of the last runs are recorded, one file a test.
pub fn skips_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("skipped")
}

/// Whether a missing tool fails the test instead of skipping it.
pub fn strict() -> bool {
    let set = |k: &str| std::env::var(k).is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
    set("LANECALL_REQUIRE_ALL") || (set("CI") && !set("LANECALL_ALLOW_SKIP"))
}

/// This test's record: the test program's name and the test's.
fn record() -> PathBuf {
    let program = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_default();
    // Cargo names a test program `<target>-<hash>`.
    let program = program.rsplit_once('-').map_or(&*program, |(t, _)| t);
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("main");
    let name: String = format!("{program}::{test}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == ':' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    skips_dir().join(name)
}

/// What a test needs and this machine lacks (`what`, and `how` to get
/// it: `apt-get install <package>`, or in words): a failure when
/// [`strict`], else the test is skipped (said now, recorded for the
/// summary) and gets `None` (it then returns). A need met clears an
/// earlier record of the test.
pub fn require<T>(found: Option<T>, what: &str, how: &str) -> Option<T> {
    let record = record();
    if found.is_some() {
        let _ = std::fs::remove_file(&record);
        return found;
    }
    assert!(
        !strict(),
        "this test needs {what}: {how} (without CI and LANECALL_REQUIRE_ALL=1, it is skipped)"
    );
    let _ = std::fs::create_dir_all(skips_dir());
    if let Err(e) = std::fs::write(&record, format!("{what}\t{how}\n")) {
        eprintln!("cannot record the skip in {}: {e}", record.display());
    }
    // Past the test harness's capture of `eprintln!`: a skip is seen as
    // it happens, whatever the test's outcome.
    let _ = writeln!(
        std::io::stderr(),
        "skipped {}: no {what} ({how})",
        record.file_name().unwrap_or_default().to_string_lossy()
    );
    None
}

/// The program `tool` (on the `PATH`, or in /usr/sbin or /sbin, where
/// Debian puts some and a user's `PATH` may not look), from the Debian
/// package `package`; see [`require`] for when it is missing.
pub fn require_tool(tool: &str, package: &str) -> Option<PathBuf> {
    require(
        find_tool(tool),
        &format!("`{tool}`"),
        &format!("apt-get install {package}"),
    )
}

fn find_tool(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/sbin".into()])
        .map(|dir| dir.join(tool))
        .find(|p| {
            use std::os::unix::fs::PermissionsExt;
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Whether a test with a real Mosquitto can run: `mosquitto` and
/// `mosquitto_passwd` (see [`require`] for when one is missing).
pub fn mosquitto_tools() -> bool {
    require_tool("mosquitto", "mosquitto").is_some()
        && require_tool("mosquitto_passwd", "mosquitto").is_some()
}

/// Whether a browser test can run: node and Chromium, and
/// tests/browser's JavaScript ([`browser_modules`]); see [`require`] for
/// when one is missing.
pub fn browser_tools() -> bool {
    require_tool("node", "nodejs").is_some()
        && require_tool("chromium", "chromium").is_some()
        && require(
            browser_modules(),
            "playwright-core in tests/browser",
            "apt-get install npm, or run `npm ci` in tests/browser by hand",
        )
        .is_some()
}

/// tests/browser's `node_modules`, installed by `npm ci` from its
/// package-lock.json when it is not there: one test program at a time
/// (an exclusive lock on a file in the target dir, held while it checks
/// and installs, so another never sees a half-installed tree). `None`
/// without npm, or when `npm ci` fails (its output is on stderr).
pub fn browser_modules() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    let modules = dir.join("node_modules");
    let _ = std::fs::create_dir_all(env!("CARGO_TARGET_TMPDIR"));
    let lock = std::fs::File::create(Path::new(env!("CARGO_TARGET_TMPDIR")).join("npm-ci.lock"))
        .expect("the npm lock file in the target dir");
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive).expect("the npm lock");
    if modules.join("playwright-core/package.json").exists() {
        return Some(modules);
    }
    let npm = find_tool("npm")?;
    let _ = writeln!(std::io::stderr(), "npm ci in {} (once)", dir.display());
    let ran = std::process::Command::new(npm)
        .args(["ci", "--no-audit", "--no-fund", "--prefer-offline"])
        .current_dir(&dir)
        .stdout(std::process::Stdio::null())
        .status();
    match ran {
        Ok(s) if s.success() => Some(modules),
        Ok(s) => {
            let _ = writeln!(std::io::stderr(), "npm ci in tests/browser: {s}");
            None
        }
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "npm ci in tests/browser: {e}");
            None
        }
    }
}

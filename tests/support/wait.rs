//! Waiting without guessing: [`eventually`] polls what a test awaits
//! until it holds, [`Gate`] holds a thread until a test lets it go, and
//! [`run_browser`] runs a browser test's script.

use std::fmt::Display;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long [`eventually`] polls before it gives up. Long on purpose: it
/// costs time only when something is wrong, and a debug build on a busy
/// machine (or under emulation) is slow.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// The longest pause between two polls.
const MOST_BETWEEN: Duration = Duration::from_millis(50);

/// What one poll of a condition gave: a value, or why not yet.
pub trait Outcome {
    type Value;
    fn outcome(self) -> Result<Self::Value, String>;
}

impl Outcome for bool {
    type Value = ();
    fn outcome(self) -> Result<(), String> {
        if self { Ok(()) } else { Err("false".into()) }
    }
}

impl<T> Outcome for Option<T> {
    type Value = T;
    fn outcome(self) -> Result<T, String> {
        self.ok_or_else(|| "nothing yet".into())
    }
}

impl<T, E: Display> Outcome for Result<T, E> {
    type Value = T;
    fn outcome(self) -> Result<T, String> {
        self.map_err(|e| e.to_string())
    }
}

/// Polls `cond` (a `bool`, an `Option` or a `Result`) with a short
/// back-off until it holds, for up to [`PATIENCE`]; returns its value.
/// Panics naming `what` and the last failure.
pub fn eventually<O: Outcome>(what: &str, cond: impl FnMut() -> O) -> O::Value {
    eventually_within(what, PATIENCE, cond)
}

/// [`eventually`] with a limit of the test's own: where the limit is what
/// the test asserts (the product's own timeout, say).
pub fn eventually_within<O: Outcome>(
    what: &str,
    limit: Duration,
    mut cond: impl FnMut() -> O,
) -> O::Value {
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match cond().outcome() {
            Ok(v) => return v,
            Err(why) if start.elapsed() >= limit => {
                panic!("within {limit:?}, never {what}; last: {why}")
            }
            Err(_) => {
                // The back-off between polls: the one wait all polls share.
                std::thread::sleep(pause);
                pause = (pause * 2).min(MOST_BETWEEN);
            }
        }
    }
}

/// [`eventually`] for a test on a Tokio runtime: `cond` gives a future,
/// and the back-off yields to the runtime (a paused clock moves on).
pub async fn eventually_async<O: Outcome, F: Future<Output = O>>(
    what: &str,
    mut cond: impl FnMut() -> F,
) -> O::Value {
    let start = tokio::time::Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match cond().await.outcome() {
            Ok(v) => return v,
            Err(why) if start.elapsed() >= PATIENCE => {
                panic!("within {PATIENCE:?}, never {what}; last: {why}")
            }
            Err(_) => {
                // The back-off between polls, on the runtime's clock.
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(MOST_BETWEEN);
            }
        }
    }
}

/// A gate a test's thread waits at while it is shut (a frozen relay, a
/// silent network), without spinning.
#[derive(Default)]
pub struct Gate {
    shut: Mutex<bool>,
    moved: Condvar,
}

impl Gate {
    pub fn shut(&self) {
        *self.shut.lock().unwrap() = true;
    }

    pub fn open(&self) {
        *self.shut.lock().unwrap() = false;
        self.moved.notify_all();
    }

    pub fn is_shut(&self) -> bool {
        *self.shut.lock().unwrap()
    }

    /// Returns once the gate is open.
    pub fn pass(&self) {
        let shut = self.shut.lock().unwrap();
        drop(self.moved.wait_while(shut, |s| *s).unwrap());
    }
}

/// `node tests/browser/<script> http://127.0.0.1:<web>/ <pin> <shots>`, as
/// every browser test starts its script (screenshots into
/// target/panel-screenshots).
pub fn browser_command(script: &str, web: u16, pin: &str) -> std::process::Command {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let shots = root.join("target/panel-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let mut command = std::process::Command::new("node");
    command
        .arg(root.join("tests/browser").join(script))
        .arg(format!("http://127.0.0.1:{web}/"))
        .arg(pin)
        .arg(&shots)
        .current_dir(root.join("tests/browser"));
    command
}

/// Runs [`browser_command`] for a script that asks the test for inputs
/// (harness.mjs `pinsetter`): each line it prints is logged under `tag`
/// and given to `answer`, which acts on it and says whether to reply
/// `sent`; the script must pass.
pub fn run_browser_asking(
    script: &str,
    web: u16,
    pin: &str,
    tag: &str,
    mut answer: impl FnMut(&str) -> bool,
) {
    use std::io::{BufRead, Write};
    use std::process::Stdio;
    let mut child = browser_command(script, web, pin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node runs");
    let mut to_script = child.stdin.take().unwrap();
    let from_script = std::io::BufReader::new(child.stdout.take().unwrap());
    for line in from_script.lines() {
        let line = line.unwrap();
        eprintln!("{tag}: {line}");
        if answer(&line) {
            writeln!(to_script, "sent").unwrap();
        }
    }
    let status = child.wait().unwrap();
    assert!(
        status.success(),
        "tests/browser/{script} failed (see above): {status}"
    );
}

/// Runs [`browser_command`] to its end: its steps say what failed.
pub fn run_browser(script: &str, web: u16, pin: &str) {
    let status = browser_command(script, web, pin)
        .status()
        .expect("node runs");
    assert!(
        status.success(),
        "tests/browser/{script} failed (see above)"
    );
}

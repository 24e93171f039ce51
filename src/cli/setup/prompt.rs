//! Where setup's answers come from: stdin, a person at a terminal (a bad
//! answer asked again, a PIN not echoed) or a script (one answer each, a
//! bad one the end). It never decides what an answer may be.

use std::io::{self, BufRead, Write};

/// Where answers come from: stdin, a person at a terminal or a script.
pub struct Prompt<R> {
    input: R,
    /// A person answers: a bad answer is asked again, the PIN not echoed.
    pub terminal: bool,
}

impl<R: BufRead> Prompt<R> {
    pub fn new(input: R, terminal: bool) -> Prompt<R> {
        Prompt { input, terminal }
    }

    /// One answer, trimmed; an error at the end of the input.
    pub(super) fn ask(&mut self, question: &str) -> Result<String, String> {
        print!("{question}");
        let _ = io::stdout().flush();
        let mut line = String::new();
        match self.input.read_line(&mut line) {
            Ok(0) => Err(format!(
                "no answer to \"{}\" (end of input)",
                question.trim()
            )),
            Ok(_) => {
                if !self.terminal {
                    // Not echoed by a terminal: end the prompt's line.
                    println!();
                }
                Ok(line.trim().to_owned())
            }
            Err(e) => Err(format!("cannot read the answer: {e}")),
        }
    }

    /// A secret answer: not echoed when stdin is a terminal.
    pub(super) fn ask_secret(&mut self, question: &str) -> Result<String, String> {
        if !self.terminal {
            return self.ask(question);
        }
        without_echo(|| self.ask(question))
    }
}

/// Runs `read` with the terminal on stdin not echoing what is typed (its
/// line end still echoed); as it was afterwards.
pub fn without_echo<T>(read: impl FnOnce() -> T) -> T {
    let stdin = io::stdin();
    let fd = std::os::fd::AsFd::as_fd(&stdin);
    let saved = rustix::termios::tcgetattr(fd).ok();
    if let Some(saved) = &saved {
        let mut quiet = saved.clone();
        quiet.local_modes -= rustix::termios::LocalModes::ECHO;
        quiet.local_modes |= rustix::termios::LocalModes::ECHONL;
        let _ = rustix::termios::tcsetattr(fd, rustix::termios::OptionalActions::Flush, &quiet);
    }
    let answer = read();
    if let Some(saved) = &saved {
        let _ = rustix::termios::tcsetattr(fd, rustix::termios::OptionalActions::Now, saved);
    }
    answer
}

/// Asks until `check` takes an answer (a person), or once (a script): the
/// refusal names `key`.
pub(super) fn until<R: BufRead, T>(
    prompt: &mut Prompt<R>,
    key: &str,
    question: &str,
    secret: bool,
    mut check: impl FnMut(&mut Prompt<R>, String) -> Result<T, String>,
) -> Result<T, String> {
    loop {
        let answer = if secret {
            prompt.ask_secret(question)?
        } else {
            prompt.ask(question)?
        };
        match check(prompt, answer) {
            Ok(v) => return Ok(v),
            Err(e) if prompt.terminal => println!("{key}: {e}"),
            Err(e) => return Err(format!("{key}: {e}")),
        }
    }
}

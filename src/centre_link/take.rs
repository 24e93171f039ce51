//! The centre's commands taken on the link: an action goes to the lane's
//! thread, journaled with its id, and its answer back as the reply; a
//! `resend` to the publishing (`publishing.rs`).

use super::*;

impl Link {
    fn answer(&mut self, id: Option<&str>, result: Result<(), String>) {
        self.out.answer(id, result);
    }

    /// A command from the centre: taken, or answered with why not.
    pub(super) async fn command(&mut self, payload: &[u8]) {
        let cmd = match command::parse(payload) {
            Ok(cmd) => cmd,
            Err(bad) => {
                tracing::info!("centre link: a command refused: {}", bad.error);
                self.answer(bad.id.as_deref(), Err(bad.error));
                return;
            }
        };
        match cmd {
            Command::Action { id, .. } if !self.accept_commands => {
                let error = "this lane does not take commands from the centre \
                             (centre.accept_commands = false)";
                self.answer(Some(&id), Err(error.into()));
            }
            Command::Action { id, .. } if self.ran.contains(&id) => {
                tracing::info!(id, "centre link: a command run already, not run again");
                self.answer(Some(&id), Err(format!("command {id} was run already")));
            }
            Command::Action { id, .. } if self.actions.load(Ordering::Relaxed) >= MAX_ACTIONS => {
                let error = format!("{MAX_ACTIONS} commands are waiting for the lane already");
                self.answer(Some(&id), Err(error));
            }
            Command::Action { id, by, action } => {
                self.ran.insert(id.clone());
                self.actions.fetch_add(1, Ordering::Relaxed);
                let actions = self.actions.clone();
                let (tx, rx) = oneshot::channel();
                let panel = Panel {
                    by: Some(by.clone()),
                    chief: false,
                    cmd: Some(id.clone()),
                    action,
                };
                let input = Input::Action {
                    panel,
                    reply: Some(tx),
                };
                let inputs = self.inputs.clone();
                let replies = self.replies_tx.clone();
                // Waiting for the lane must not hold the connection up.
                tokio::spawn(async move {
                    let not_running = || (Err("the lane is not running".to_owned()), false);
                    // A lane that does not answer in time may still take it.
                    let (result, journaled) = if inputs.send(input).await.is_err() {
                        not_running()
                    } else {
                        match tokio::time::timeout(LANE_REPLY, rx).await {
                            Err(_) => (Err("the lane is not answering".to_owned()), true),
                            Ok(Err(_)) => not_running(),
                            Ok(Ok(Ok(_))) => (Ok(()), true),
                            Ok(Ok(Err(NotTaken::Refused(r)))) => (Err(r.to_string()), true),
                            Ok(Ok(Err(e @ NotTaken::NotDurable(_)))) => (Err(e.to_string()), false),
                            Ok(Ok(Err(NotTaken::Day(why)))) => (Err(why), false),
                        }
                    };
                    actions.fetch_sub(1, Ordering::Relaxed);
                    tracing::info!(by, id, ?result, "centre link: command");
                    let answer = Answer {
                        id,
                        result,
                        journaled,
                    };
                    let _ = replies.send(answer).await;
                });
            }
            Command::Resend { id, file, from, to } => {
                let result = self.out.resend(file.as_deref(), from, to);
                self.answer(Some(&id), result);
            }
        }
    }
}

//! Fixtures shared by the tests and benchmarks that run the real daemon.

use lanecall::journal::{Header, event_line};
use lanecall::lane::{Action, Bowler, Class, Event, Panel, Rules, Stamped};
use lanecall::store::{rfc3339, unix_now};

/// A journal as the daemon finds it when it starts: today's header, one B2
/// bowler in the lane order, and a block of `games` started. The daemon
/// goes on in it instead of starting a new one.
pub fn journal_with_open_block(lane: u32, games: u32) -> String {
    let header = Header::new(lane, Some(rfc3339(unix_now())), Rules::default());
    let panel = |t, action| {
        event_line(&Stamped {
            t,
            event: Event::Panel(Panel {
                by: Some("Judge Orlova".into()),
                action,
            }),
        })
    };
    let bowlers = vec![Bowler {
        name: "Ivan Petrov".into(),
        class: Class::B2,
        handicap: 0,
        team: None,
        voice: Default::default(),
    }];
    format!(
        "{}\n{}\n{}\n",
        header.to_line(),
        panel(0, Action::Lineup { bowlers }),
        panel(1, Action::StartBlock { games })
    )
}

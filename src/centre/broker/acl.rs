//! Who may publish and subscribe to what, said once: the embedded broker's
//! front enforces it, and [`mosquitto_acl`] writes the same rules as a
//! Mosquitto `acl_file` (docs/centre.md). Pure: no I/O.
//!
//! Topics are those of docs/mqtt.md, under `lanecall/<site>/`: a lane
//! publishes only its own `status`, `state`, `journal` and `reply`; only
//! the centre publishes commands and the centre's status and time;
//! everyone may read the lanes' `state` and `status` and the centre's
//! status and time.

use std::fmt::Write as _;

use crate::mqtt::topic::{self, COMMAND, FROM_LANE, lane_number};

/// What a client is, from its login name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// The centre's own login.
    Centre,
    /// `lane<N>`: lane N.
    Lane(u32),
    /// No login (let in only when the broker allows anonymous clients).
    Anonymous,
    /// Any other login: a reader of the lanes' states.
    Other,
}

impl Role {
    /// The role of `user` (`None`: no login); `centre_user` is the
    /// centre's own login name.
    pub fn of(user: Option<&str>, centre_user: &str) -> Role {
        match user {
            None => Role::Anonymous,
            Some(u) if u == centre_user => Role::Centre,
            Some(u) => u
                .strip_prefix("lane")
                .and_then(lane_number)
                .map_or(Role::Other, Role::Lane),
        }
    }
}

/// What anyone may read of every lane.
const SEEN_BY_ALL: [&str; 2] = ["state", "status"];

/// Where a topic or filter points under `lanecall/<site>/`.
enum Place<'a> {
    /// `lane/<n>/<what>`; `None` for `+` (a filter's only wildcard taken).
    Lane(Option<u32>, &'a str),
    /// `centre/status` or `centre/time`: the centre's own.
    Centre,
}

/// The place `topic` names, if it is one of docs/mqtt.md's; `plus` lets a
/// filter say `+` for the lane number.
fn place<'a>(site: &str, topic: &'a str, plus: bool) -> Option<Place<'a>> {
    Some(match topic::place(site, topic)? {
        topic::Place::CentreStatus | topic::Place::CentreTime => Place::Centre,
        topic::Place::Lane(n, what) => {
            let n = match n {
                "+" if plus => None,
                n => Some(lane_number(n)?),
            };
            if !(FROM_LANE.contains(&what) || what == COMMAND) {
                return None;
            }
            Place::Lane(n, what)
        }
    })
}

/// Whether a client of `role` may publish on `topic` (a last will's topic
/// included).
pub fn may_publish(site: &str, role: &Role, topic: &str) -> bool {
    match (role, place(site, topic, false)) {
        (Role::Lane(n), Some(Place::Lane(m, what))) => m == Some(*n) && FROM_LANE.contains(&what),
        (Role::Centre, Some(Place::Lane(_, what))) => what == COMMAND,
        (Role::Centre, Some(Place::Centre)) => true,
        (Role::Anonymous, Some(Place::Lane(_, what))) => FROM_LANE.contains(&what),
        _ => false,
    }
}

/// Whether a client of `role` may subscribe to `filter`. The only
/// wildcard taken is `+` for the lane number.
pub fn may_subscribe(site: &str, role: &Role, filter: &str) -> bool {
    match place(site, filter, true) {
        None => false,
        Some(Place::Centre) => true,
        Some(Place::Lane(m, what)) => match role {
            Role::Centre => FROM_LANE.contains(&what),
            Role::Lane(n) if what == COMMAND => m == Some(*n),
            _ => SEEN_BY_ALL.contains(&what),
        },
    }
}

/// The same rules as a Mosquitto `acl_file`: what everyone reads, the
/// centre's block, and one block per lane in `lanes`. (Mosquitto checks a
/// last will against `write` when the client connects.)
pub fn mosquitto_acl(site: &str, centre_user: &str, lanes: &[u32]) -> String {
    let mut acl =
        String::from("# Everyone: the lanes' states and statuses, the centre's status and time.\n");
    for what in SEEN_BY_ALL {
        let _ = writeln!(acl, "pattern read {}", topic::every_lane(site, what));
    }
    let _ = writeln!(acl, "pattern read {}", topic::centre_status(site));
    let _ = writeln!(acl, "pattern read {}", topic::centre_time(site));
    let _ = writeln!(acl, "\nuser {centre_user}");
    for what in FROM_LANE {
        let _ = writeln!(acl, "topic read {}", topic::every_lane(site, what));
    }
    let _ = writeln!(acl, "topic write {}", topic::every_lane(site, COMMAND));
    let _ = writeln!(acl, "topic write {}", topic::centre_status(site));
    let _ = writeln!(acl, "topic write {}", topic::centre_time(site));
    for n in lanes {
        let _ = writeln!(acl, "\nuser lane{n}");
        for what in FROM_LANE {
            let _ = writeln!(acl, "topic write {}", topic::lane(site, *n, what));
        }
        let _ = writeln!(acl, "topic read {}", topic::lane(site, *n, COMMAND));
    }
    acl
}

#[cfg(test)]
mod tests {
    use super::*;

    const SITE: &str = "cup";

    #[test]
    fn roles_come_from_the_login_name() {
        for (user, role) in [
            (None, Role::Anonymous),
            (Some("centre"), Role::Centre),
            (Some("lane1"), Role::Lane(1)),
            (Some("lane999"), Role::Lane(999)),
            (Some("lane0"), Role::Other),
            (Some("lane07"), Role::Other),
            (Some("lane1000"), Role::Other),
            (Some("lane"), Role::Other),
            (Some("lane-1"), Role::Other),
            (Some("lane+"), Role::Other),
            (Some("judge"), Role::Other),
        ] {
            assert_eq!(Role::of(user, "centre"), role, "{user:?}");
        }
        assert_eq!(Role::of(Some("lane5"), "lane5"), Role::Centre);
    }

    #[test]
    fn who_publishes_what() {
        let lane2 = Role::Lane(2);
        let table: &[(&Role, &str, bool)] = &[
            (&lane2, "lanecall/cup/lane/2/status", true),
            (&lane2, "lanecall/cup/lane/2/state", true),
            (&lane2, "lanecall/cup/lane/2/journal", true),
            (&lane2, "lanecall/cup/lane/2/reply", true),
            (&lane2, "lanecall/cup/lane/2/command", false),
            (&lane2, "lanecall/cup/lane/1/journal", false),
            (&lane2, "lanecall/cup/lane/02/journal", false),
            (&lane2, "lanecall/cup/lane/+/journal", false),
            (&lane2, "lanecall/cup/centre/status", false),
            (&lane2, "lanecall/other/lane/2/journal", false),
            (&lane2, "lanecall/cup/lane/2/journal/x", false),
            (&lane2, "lanecall/cup/lane/2/other", false),
            (&lane2, "lanecall/cupx/lane/2/journal", false),
            (&lane2, "lane/2/journal", false),
            (&Role::Centre, "lanecall/cup/lane/7/command", true),
            (&Role::Centre, "lanecall/cup/lane/999/command", true),
            (&Role::Centre, "lanecall/cup/lane/1000/command", false),
            (&Role::Centre, "lanecall/cup/lane/+/command", false),
            (&Role::Centre, "lanecall/cup/centre/status", true),
            (&Role::Centre, "lanecall/cup/centre/time", true),
            (&lane2, "lanecall/cup/centre/time", false),
            (&Role::Other, "lanecall/cup/centre/time", false),
            (&Role::Centre, "lanecall/cup/lane/7/journal", false),
            (&Role::Centre, "lanecall/cup/lane/7/status", false),
            (&Role::Anonymous, "lanecall/cup/lane/7/journal", true),
            (&Role::Anonymous, "lanecall/cup/lane/3/status", true),
            (&Role::Anonymous, "lanecall/cup/lane/3/reply", true),
            (&Role::Anonymous, "lanecall/cup/lane/3/command", false),
            (&Role::Anonymous, "lanecall/cup/centre/status", false),
            (&Role::Other, "lanecall/cup/lane/3/status", false),
            (&Role::Other, "lanecall/cup/centre/status", false),
            (&Role::Other, "lanecall/cup/lane/3/command", false),
        ];
        for (role, topic, may) in table {
            assert_eq!(may_publish(SITE, role, topic), *may, "{role:?} {topic}");
        }
    }

    #[test]
    fn who_subscribes_to_what() {
        let lane2 = Role::Lane(2);
        let table: &[(&Role, &str, bool)] = &[
            (&lane2, "lanecall/cup/lane/2/command", true),
            (&lane2, "lanecall/cup/lane/1/command", false),
            (&lane2, "lanecall/cup/lane/+/command", false),
            (&lane2, "lanecall/cup/lane/1/state", true),
            (&lane2, "lanecall/cup/lane/3/status", true),
            (&lane2, "lanecall/cup/lane/+/state", true),
            (&lane2, "lanecall/cup/lane/1/journal", false),
            (&lane2, "lanecall/cup/lane/2/journal", false),
            (&lane2, "lanecall/cup/centre/status", true),
            (&lane2, "lanecall/cup/centre/time", true),
            (&lane2, "#", false),
            (&lane2, "lanecall/cup/#", false),
            (&lane2, "lanecall/cup/lane/#", false),
            (&lane2, "lanecall/cup/lane/2/+", false),
            (&lane2, "lanecall/+/lane/2/command", false),
            (&lane2, "$SYS/#", false),
            (&Role::Centre, "lanecall/cup/lane/+/status", true),
            (&Role::Centre, "lanecall/cup/lane/+/state", true),
            (&Role::Centre, "lanecall/cup/lane/+/journal", true),
            (&Role::Centre, "lanecall/cup/lane/4/reply", true),
            (&Role::Centre, "lanecall/cup/lane/+/command", false),
            (&Role::Centre, "lanecall/cup/centre/status", true),
            (&Role::Centre, "lanecall/cup/lane/#", false),
            (&Role::Other, "lanecall/cup/lane/+/state", true),
            (&Role::Other, "lanecall/cup/lane/5/status", true),
            (&Role::Other, "lanecall/cup/centre/status", true),
            (&Role::Other, "lanecall/cup/lane/5/journal", false),
            (&Role::Other, "lanecall/cup/lane/5/command", false),
            (&Role::Anonymous, "lanecall/cup/lane/+/status", true),
            (&Role::Anonymous, "lanecall/cup/lane/+/reply", false),
            (&Role::Anonymous, "lanecall/cup/lane/1/command", false),
            (&Role::Anonymous, "#", false),
        ];
        for (role, filter, may) in table {
            assert_eq!(may_subscribe(SITE, role, filter), *may, "{role:?} {filter}");
        }
    }

    #[test]
    fn the_mosquitto_acl_says_the_same() {
        let acl = mosquitto_acl("cup", "centre", &[7]);
        let lines: Vec<&str> = acl.lines().collect();
        for line in [
            "pattern read lanecall/cup/lane/+/state",
            "pattern read lanecall/cup/lane/+/status",
            "pattern read lanecall/cup/centre/status",
            "pattern read lanecall/cup/centre/time",
            "user centre",
            "topic read lanecall/cup/lane/+/journal",
            "topic read lanecall/cup/lane/+/reply",
            "topic write lanecall/cup/lane/+/command",
            "topic write lanecall/cup/centre/status",
            "topic write lanecall/cup/centre/time",
            "user lane7",
            "topic write lanecall/cup/lane/7/status",
            "topic write lanecall/cup/lane/7/state",
            "topic write lanecall/cup/lane/7/journal",
            "topic write lanecall/cup/lane/7/reply",
            "topic read lanecall/cup/lane/7/command",
        ] {
            assert!(lines.contains(&line), "{line} in\n{acl}");
        }
        // Nothing more: every other line is a comment or blank.
        let rules = lines
            .iter()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .count();
        assert_eq!(rules, 18, "{acl}");
        let two = mosquitto_acl("cup", "centre", &[1, 2]);
        assert!(two.contains("user lane1\n") && two.contains("user lane2\n"));
        assert!(!two.contains("lane/7/"));
    }
}

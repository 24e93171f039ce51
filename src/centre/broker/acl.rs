//! Who may publish and subscribe to what, said once: the embedded broker's
//! front enforces it, and [`mosquitto_acl`] writes the same rules as a
//! Mosquitto `acl_file` (docs/centre.md). Pure: no I/O.
//!
//! Topics are those of docs/mqtt.md, under `lanecall/<site>/`: a lane
//! publishes only its own `status`, `state`, `journal` and `reply`; only
//! the centre publishes commands and the centre's status and time;
//! everyone may read the lanes' `state` and `status` and the centre's
//! status and time.
//!
//! Client ids ([`client_id`]): a login is kept at the broker under its
//! own name, so that no login can take another's session (docs/mqtt.md,
//! "Client ids").

use std::fmt::Write as _;

use crate::mqtt::client_id::{centre_without_login, lane_of};
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

/// Whose client id a client asked for, when it is not its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Whose {
    /// The centre's (its login name, or `lanecall-centre-<site>`).
    Centre,
    /// Lane N's (`lane<N>`, or `lanecall-<site>-lane-<N>`).
    Lane(u32),
    /// Another login's name.
    Login(String),
}

/// What the broker makes of the client id of a CONNECT.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientId {
    /// The client's own: it is kept under this id (a login's name; a
    /// client without a login keeps the id it gave).
    Own(String),
    /// Another's: a takeover, refused.
    Others(Whose),
    /// Neither the login's nor another's: refused.
    Foreign,
}

/// The client id a client connecting as `login` (`None`: no login) with
/// `id` gets. A login's own ids are its name, an empty id, and for the
/// centre and lane N the id its link uses without a login
/// (`lanecall-centre-<site>`, `lanecall-<site>-lane-<N>`, those of an
/// earlier release): each is kept as the login's name. A client without a
/// login may use any id but a login's name. `is_login` says whether a
/// name is a login; `centre_user` is the centre's.
pub fn client_id(
    site: &str,
    centre_user: &str,
    login: Option<&str>,
    id: &str,
    is_login: impl Fn(&str) -> bool,
) -> ClientId {
    let whose = |id: &str| match Role::of(Some(id), centre_user) {
        Role::Centre => Whose::Centre,
        Role::Lane(n) => Whose::Lane(n),
        _ => Whose::Login(id.to_owned()),
    };
    let Some(login) = login else {
        return if is_login(id) {
            ClientId::Others(whose(id))
        } else {
            ClientId::Own(id.to_owned())
        };
    };
    let own = match Role::of(Some(login), centre_user) {
        Role::Centre => id == centre_without_login(site),
        Role::Lane(n) => lane_of(site, id) == Some(n),
        Role::Anonymous | Role::Other => false,
    };
    if own || id.is_empty() || id == login {
        ClientId::Own(login.to_owned())
    } else if id == centre_without_login(site) {
        ClientId::Others(Whose::Centre)
    } else if let Some(n) = lane_of(site, id) {
        ClientId::Others(Whose::Lane(n))
    } else if is_login(id) {
        ClientId::Others(whose(id))
    } else {
        ClientId::Foreign
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
    let mut acl = String::from(
        "# For a Mosquitto with `use_username_as_clientid true` (docs/centre.md): each\n\
         # login keeps its session under its own name, and no login can take another's.\n\n\
         # Everyone: the lanes' states and statuses, the centre's status and time.\n",
    );
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
    fn a_login_gets_its_own_client_id_and_never_anothers() {
        let logins = ["centre", "lane1", "lane2", "tv"];
        let is_login = |u: &str| logins.contains(&u);
        let id = |login: Option<&str>, id: &str| client_id(SITE, "centre", login, id, is_login);
        let own = |name: &str| ClientId::Own(name.to_owned());
        // Each login's own ids, kept under its name.
        for (login, asked) in [
            ("centre", "centre"),
            ("centre", "lanecall-centre-cup"),
            ("centre", ""),
            ("lane1", "lane1"),
            ("lane1", "lanecall-cup-lane-1"),
            ("lane1", ""),
            ("tv", "tv"),
            ("tv", ""),
        ] {
            assert_eq!(id(Some(login), asked), own(login), "{login} as {asked:?}");
        }
        // Another's: a takeover.
        for (login, asked, whose) in [
            ("lane2", "lanecall-centre-cup", Whose::Centre),
            ("lane2", "centre", Whose::Centre),
            ("tv", "lanecall-centre-cup", Whose::Centre),
            ("tv", "lanecall-cup-lane-1", Whose::Lane(1)),
            ("tv", "lane1", Whose::Lane(1)),
            ("lane2", "lanecall-cup-lane-1", Whose::Lane(1)),
            ("lane2", "lanecall-cup-lane-9", Whose::Lane(9)),
            ("centre", "lane1", Whose::Lane(1)),
            ("lane1", "tv", Whose::Login("tv".into())),
        ] {
            assert_eq!(
                id(Some(login), asked),
                ClientId::Others(whose),
                "{login} as {asked}"
            );
        }
        // Anything else a login asks for is refused.
        for (login, asked) in [
            ("lane1", "lane1-b"),
            ("lane1", "lanecall-cup-lane-01"),
            ("tv", "tv-2"),
            ("tv", "lanecall-other-lane-1"),
            ("centre", "lanecall-centre-other"),
        ] {
            assert_eq!(
                id(Some(login), asked),
                ClientId::Foreign,
                "{login} as {asked}"
            );
        }
        // No login: any id but a login's name.
        assert_eq!(id(None, "lanecall-cup-lane-3"), own("lanecall-cup-lane-3"));
        assert_eq!(id(None, "lanecall-centre-cup"), own("lanecall-centre-cup"));
        assert_eq!(id(None, "centre"), ClientId::Others(Whose::Centre));
        assert_eq!(id(None, "lane2"), ClientId::Others(Whose::Lane(2)));
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

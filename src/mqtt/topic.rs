//! The topics of docs/mqtt.md, said once. Every topic is under
//! `lanecall/<site>/`: `lane/<n>/<what>` for a lane, `centre/status` and
//! `centre/time` for the centre. Pure: no I/O.

/// The highest lane number (as the lane's config allows).
pub const MAX_LANE_NUMBER: u32 = 999;

/// What a lane publishes under `lane/<n>/`.
pub const FROM_LANE: [&str; 4] = ["status", "state", "journal", "reply"];

/// What only the centre publishes under `lane/<n>/`.
pub const COMMAND: &str = "command";

/// Lane `lane`'s topic `what`: `lanecall/<site>/lane/<lane>/<what>`.
pub fn lane(site: &str, lane: u32, what: &str) -> String {
    format!("lanecall/{site}/lane/{lane}/{what}")
}

/// Every lane's topic `what`, as a filter: `lanecall/<site>/lane/+/<what>`.
pub fn every_lane(site: &str, what: &str) -> String {
    format!("lanecall/{site}/lane/+/{what}")
}

/// The centre's status topic.
pub fn centre_status(site: &str) -> String {
    format!("lanecall/{site}/centre/status")
}

/// The centre's time topic: its clock, and whether it is synchronised
/// (docs/mqtt.md, `centre/time`).
pub fn centre_time(site: &str) -> String {
    format!("lanecall/{site}/centre/time")
}

/// Where a topic (or a filter) points under `lanecall/<site>/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place<'a> {
    /// `lane/<n>/<what>`, `n` as written (see [`lane_number`]).
    Lane(&'a str, &'a str),
    /// `centre/status`.
    CentreStatus,
    /// `centre/time`.
    CentreTime,
}

/// The place `topic` names, if it has one of docs/mqtt.md's shapes.
pub fn place<'a>(site: &str, topic: &'a str) -> Option<Place<'a>> {
    let rest = topic
        .strip_prefix("lanecall/")?
        .strip_prefix(site)?
        .strip_prefix('/')?;
    if rest == "centre/status" {
        return Some(Place::CentreStatus);
    }
    if rest == "centre/time" {
        return Some(Place::CentreTime);
    }
    let mut parts = rest.split('/');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some("lane"), Some(n), Some(what), None) => Some(Place::Lane(n, what)),
        _ => None,
    }
}

/// `text` as a lane number: 1 to [`MAX_LANE_NUMBER`] in digits, no
/// leading zero (so each lane has one topic).
pub fn lane_number(text: &str) -> Option<u32> {
    let digits = !text.is_empty() && text.len() <= 3 && text.bytes().all(|b| b.is_ascii_digit());
    if !digits || text.starts_with('0') {
        return None;
    }
    text.parse()
        .ok()
        .filter(|n| (1..=MAX_LANE_NUMBER).contains(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_are_made_and_read_back() {
        let t = lane("cup", 7, "journal");
        assert_eq!(t, "lanecall/cup/lane/7/journal");
        assert_eq!(place("cup", &t), Some(Place::Lane("7", "journal")));
        assert_eq!(
            place("cup", &every_lane("cup", "state")),
            Some(Place::Lane("+", "state"))
        );
        assert_eq!(
            place("cup", &centre_status("cup")),
            Some(Place::CentreStatus)
        );
        assert_eq!(place("cup", &centre_time("cup")), Some(Place::CentreTime));
        assert_eq!(place("cup", "lanecall/other/lane/7/state"), None);
        assert_eq!(place("cup", "lanecall/cupx/lane/7/state"), None);
        assert_eq!(place("cup", "lanecall/cup/lane/7/journal/x"), None);
        assert_eq!(place("cup", "lanecall/cup/lane/7"), None);
    }

    #[test]
    fn a_lane_number_has_one_spelling() {
        assert_eq!(lane_number("7"), Some(7));
        assert_eq!(lane_number("999"), Some(999));
        for bad in ["", "0", "07", "1000", "x", "+", "99999999999", "-1", " 7"] {
            assert_eq!(lane_number(bad), None, "{bad:?}");
        }
    }
}

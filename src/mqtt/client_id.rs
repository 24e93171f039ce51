//! The MQTT client ids of the centre's and the lanes' links, said once
//! (docs/mqtt.md, "Client ids"): a link with a login uses its login name,
//! as Mosquitto's `use_username_as_clientid` and the embedded broker give
//! it; one without a login (a broker that lets anyone in) uses the id
//! made from its site and lane. Pure: no I/O.

/// The centre's client id without a login: `lanecall-centre-<site>`.
pub fn centre_without_login(site: &str) -> String {
    format!("lanecall-centre-{site}")
}

/// Lane `lane`'s client id without a login: `lanecall-<site>-lane-<n>`.
pub fn lane_without_login(site: &str, lane: u32) -> String {
    format!("lanecall-{site}-lane-{lane}")
}

/// The lane whose id without a login `id` is, on `site`.
pub fn lane_of(site: &str, id: &str) -> Option<u32> {
    let n = id
        .strip_prefix("lanecall-")?
        .strip_prefix(site)?
        .strip_prefix("-lane-")?;
    super::topic::lane_number(n)
}

/// The client id of a link that logs in as `username` (if any), else
/// `without_login`.
pub fn of_link(username: Option<&str>, without_login: String) -> String {
    match username {
        Some(user) if !user.is_empty() => user.to_owned(),
        _ => without_login,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_uses_its_login_name_else_the_id_of_its_site_and_lane() {
        assert_eq!(
            of_link(Some("lane7"), lane_without_login("cup", 7)),
            "lane7"
        );
        assert_eq!(
            of_link(None, lane_without_login("cup", 7)),
            "lanecall-cup-lane-7"
        );
        assert_eq!(
            of_link(Some(""), centre_without_login("cup")),
            "lanecall-centre-cup"
        );
        assert_eq!(of_link(Some("hq"), centre_without_login("cup")), "hq");
    }

    #[test]
    fn a_lanes_id_without_login_is_read_back() {
        assert_eq!(lane_of("cup", "lanecall-cup-lane-7"), Some(7));
        assert_eq!(lane_of("cup", "lanecall-cup-lane-07"), None);
        assert_eq!(lane_of("cup", "lanecall-cupx-lane-7"), None);
        assert_eq!(lane_of("cup", "lanecall-centre-cup"), None);
        assert_eq!(lane_of("cup", "lane7"), None);
    }
}

//! The wall clock, and its time as RFC 3339 text (`2026-11-29T14:00:00Z`,
//! UTC, whole seconds): journal names and headers, notices, the centre's
//! `since` and `at` fields. Lane time never comes from here (it is the
//! journal's milliseconds since the lane started).

use std::time::{SystemTime, UNIX_EPOCH};

use lanecall_core::wall::WallTime;

pub use lanecall_core::wall::rfc3339;

/// Seconds since 1970 now, from the wall clock (only for file names and
/// the header's `started_at`; lane time never comes from it). A clock set
/// before 1970 reads 0.
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The wall clock now, to the millisecond (a journal line's `wall`).
pub fn wall_now() -> WallTime {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    WallTime(i64::try_from(ms).unwrap_or(i64::MAX))
}

/// The system's time zone now (`/etc/localtime`, or `TZ`): its name, if
/// it has one, and its offset from UTC in seconds. UTC when it cannot be
/// read.
pub fn zone_now() -> serde_json::Value {
    zone_at(&jiff::tz::TimeZone::system(), jiff::Timestamp::now())
}

/// A time zone at a moment as the API writes it:
/// `{"name": "Europe/Moscow", "offset_s": 10800}`, `name` null for a zone
/// without one.
fn zone_at(tz: &jiff::tz::TimeZone, at: jiff::Timestamp) -> serde_json::Value {
    let offset = tz.to_offset(at);
    serde_json::json!({"name": tz.iana_name(), "offset_s": offset.seconds()})
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The stamps as they were written before, by hand (Howard Hinnant's
    /// civil-from-days): the crate's must be the same bytes.
    fn by_hand(secs: u64) -> String {
        let days = (secs / 86_400) as i64;
        let rem = secs % 86_400;
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        format!(
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
            rem / 3600,
            rem / 60 % 60,
            rem % 60
        )
    }

    /// The zone's JSON, byte for byte, as docs/centre.md and the lane's
    /// API give it.
    #[test]
    fn a_zone_is_written_with_its_name_and_offset() {
        use jiff::tz::{Offset, TimeZone};
        let at = jiff::Timestamp::from_second(1_795_899_600).unwrap();
        assert_eq!(
            zone_at(&TimeZone::UTC, at).to_string(),
            r#"{"name":"UTC","offset_s":0}"#
        );
        let moscow = TimeZone::fixed(Offset::constant(3));
        assert_eq!(
            zone_at(&moscow, at).to_string(),
            r#"{"name":null,"offset_s":10800}"#
        );
        let behind = TimeZone::fixed(Offset::from_seconds(-12_600).unwrap());
        assert_eq!(zone_at(&behind, at)["offset_s"], -12_600);
    }

    /// 9999-12-31T23:59:59Z.
    const LAST_SECOND: u64 = 253_402_300_799;

    proptest! {
        #[test]
        fn every_second_is_written_as_before(secs in 0..=LAST_SECOND) {
            prop_assert_eq!(rfc3339(secs), by_hand(secs));
        }
    }
}

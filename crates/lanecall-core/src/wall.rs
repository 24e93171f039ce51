//! Wall-clock time as the journal writes it. The core never reads a
//! clock: a wall time comes from a journal line (`wall`, journal.md) or
//! the header's `started_at`. (The wall time of a lane time is replay's:
//! [`crate::replay::WallClock`].)
//!
//! [`DayDate`] is a competition day's date (journal.md, `date`): the UTC
//! date of a wall time, as the header's `started_at` gives it.

use std::fmt;

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// A moment by the wall clock: milliseconds since 1970-01-01 UTC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct WallTime(pub i64);

/// 9999-12-31T23:59:59.999Z, the last moment RFC 3339's years can write.
const LAST_MS: i64 = 253_402_300_799_999;

impl WallTime {
    /// An RFC 3339 time (`2026-11-29T14:00:00Z`, `…T14:00:07.250Z`, an
    /// offset in place of `Z`), to the millisecond; `None` for anything
    /// else.
    pub fn parse(text: &str) -> Option<WallTime> {
        let t = OffsetDateTime::parse(text, &Rfc3339).ok()?;
        let ms = t.unix_timestamp_nanos().div_euclid(1_000_000);
        i64::try_from(ms).ok().map(WallTime)
    }

    fn utc(self) -> OffsetDateTime {
        let ms = self.0.clamp(0, LAST_MS);
        // In range: 0 to the last moment of 9999.
        OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
            .unwrap_or(OffsetDateTime::UNIX_EPOCH)
    }
}

impl WallTime {
    /// The UTC date of this moment: the competition day's date as the
    /// header's `started_at` gives it.
    pub fn date(self) -> DayDate {
        DayDate(self.utc().date())
    }
}

/// A competition day's date: `2026-11-29` (UTC, as the header's
/// `started_at` and the journals' names give it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DayDate(time::Date);

impl DayDate {
    /// `YYYY-MM-DD`, a real calendar date; `None` for anything else.
    pub fn parse(text: &str) -> Option<DayDate> {
        let b = text.as_bytes();
        let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        if !(digits(0..4) && digits(5..7) && digits(8..10)) {
            return None;
        }
        let year: i32 = text[0..4].parse().ok()?;
        let month: u8 = text[5..7].parse().ok()?;
        let day: u8 = text[8..10].parse().ok()?;
        let month = time::Month::try_from(month).ok()?;
        time::Date::from_calendar_date(year, month, day)
            .ok()
            .map(DayDate)
    }

    /// The date of a header's `started_at` (`2026-11-29T14:00:00Z`): its
    /// first ten characters, as the daemon has always compared them.
    pub fn of_started_at(started_at: &str) -> Option<DayDate> {
        started_at.get(..10).and_then(DayDate::parse)
    }
}

impl fmt::Display for DayDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.0;
        write!(
            f,
            "{:04}-{:02}-{:02}",
            d.year(),
            u8::from(d.month()),
            d.day()
        )
    }
}

impl serde::Serialize for DayDate {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for DayDate {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<DayDate, D::Error> {
        let text = String::deserialize(d)?;
        DayDate::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "date {:?} is not a date written YYYY-MM-DD",
                text.chars().take(40).collect::<String>()
            ))
        })
    }
}

/// `2026-11-29T14:00:07.250Z`: UTC, always three digits of milliseconds.
/// A time before 1970 is written as 1970's first, one past 9999 as its
/// last.
impl fmt::Display for WallTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.utc();
        write!(
            f,
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute(),
            t.second(),
            t.millisecond()
        )
    }
}

/// `2026-11-29T14:00:00Z` for seconds since 1970 (UTC, whole seconds: the
/// journal header's `started_at`, file names, notices). A second past the
/// year 9999 is written as the last second of 9999.
pub fn rfc3339(secs: u64) -> String {
    let ms = i64::try_from(secs)
        .ok()
        .and_then(|s| s.checked_mul(1000))
        .unwrap_or(LAST_MS);
    let t = WallTime(ms).utc();
    t.replace_millisecond(0)
        .ok()
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_else(|| "9999-12-31T23:59:59Z".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wall_times_are_written_and_read_to_the_millisecond() {
        let t = WallTime(1_795_960_807_250);
        assert_eq!(t.to_string(), "2026-11-29T14:00:07.250Z");
        assert_eq!(WallTime::parse(&t.to_string()), Some(t));
        assert_eq!(
            WallTime::parse("2026-11-29T14:00:00Z"),
            Some(WallTime(1_795_960_800_000))
        );
        assert_eq!(
            WallTime::parse("2026-11-29T17:00:00+03:00"),
            Some(WallTime(1_795_960_800_000))
        );
        for bad in ["", "14:00", "2026-11-29", "2026-13-01T00:00:00Z", "now"] {
            assert_eq!(WallTime::parse(bad), None, "{bad}");
        }
        assert_eq!(WallTime(-5).to_string(), "1970-01-01T00:00:00.000Z");
        assert_eq!(WallTime(i64::MAX).to_string(), "9999-12-31T23:59:59.999Z");
    }

    #[test]
    fn a_day_date_is_a_real_date_written_yyyy_mm_dd() {
        let d = DayDate::parse("2026-11-29").unwrap();
        assert_eq!(d.to_string(), "2026-11-29");
        assert_eq!(DayDate::of_started_at("2026-11-29T14:00:00Z"), Some(d));
        assert_eq!(WallTime(1_795_960_807_250).date(), d);
        assert!(DayDate::parse("2026-11-30").unwrap() > d);
        for bad in [
            "",
            "2026-11-31",
            "2026-13-01",
            "2026-1-01",
            "26-11-29",
            "2026/11/29",
            "2026-11-29T14:00:00Z",
            "+026-11-29",
            "２026-11-29",
        ] {
            assert_eq!(DayDate::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn seconds_are_rfc3339_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_795_960_800), "2026-11-29T14:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(253_402_300_799), "9999-12-31T23:59:59Z");
        assert_eq!(rfc3339(u64::MAX), "9999-12-31T23:59:59Z");
    }
}

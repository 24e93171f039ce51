//! The centre's time (`centre/time`, docs/mqtt.md): its date goes to the
//! lane's thread only while the centre's clock is synchronised. A
//! retained copy is never taken (the caller skips it).

use super::Link;
use crate::lane::{Action, DateFrom, Panel};
use crate::ports::Input;
use crate::wall::{DayDate, WallTime};

/// The date of a `centre/time` payload (docs/mqtt.md) when the centre's
/// clock is synchronised; `None` when the centre says it is not.
fn centre_date(payload: &[u8]) -> Result<Option<DayDate>, String> {
    #[derive(serde::Deserialize)]
    struct Time {
        wall: String,
        synchronised: bool,
    }
    let time: Time = serde_json::from_slice(payload)
        .map_err(|e| format!("not the centre's time ({{\"wall\", \"synchronised\"}}): {e}"))?;
    if !time.synchronised {
        return Ok(None);
    }
    let wall = WallTime::parse(&time.wall).ok_or_else(|| {
        format!(
            "wall {:?} is not an RFC 3339 time",
            time.wall.chars().take(40).collect::<String>()
        )
    })?;
    Ok(Some(wall.date()))
}

impl Link {
    /// The centre's clock: its date to the lane's thread while it is
    /// synchronised.
    pub(super) async fn centre_time(&mut self, payload: &[u8]) {
        match centre_date(payload) {
            Ok(Some(date)) => {
                let action = Action::Date {
                    date,
                    from: DateFrom::Centre,
                };
                let input = Input::Action {
                    panel: Panel::new(None, action),
                    reply: None,
                };
                let _ = self.inputs.send(input).await;
            }
            Ok(None) => tracing::debug!("centre link: the centre's clock is not synchronised"),
            Err(e) => tracing::debug!("centre link: {}: {e}", self.topics.centre_time),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock_sync::ClockSync;

    #[test]
    fn the_lane_takes_the_date_of_a_synchronised_centre_only() {
        let evening = WallTime::parse("2026-11-30T21:59:59.500Z").unwrap();
        let synced =
            crate::centre::link::time_payload(evening, &ClockSync::Synchronised { by: "chrony" });
        assert_eq!(
            centre_date(synced.as_bytes()),
            Ok(DayDate::parse("2026-11-30"))
        );
        for unsure in [
            ClockSync::Unsynchronised {
                why: "chrony has no time source it trusts yet".into(),
            },
            ClockSync::NoService,
        ] {
            let said = crate::centre::link::time_payload(evening, &unsure);
            assert_eq!(centre_date(said.as_bytes()), Ok(None), "{said}");
        }
        assert!(centre_date(b"online").is_err());
        let bad = br#"{"wall":"tomorrow","synchronised":true}"#;
        assert!(
            centre_date(bad)
                .unwrap_err()
                .contains("not an RFC 3339 time")
        );
    }
}

//! A lane of a centre takes its time from the centre's host:
//! systemd-timesyncd's drop-in written, and the service restarted if it
//! runs. Nothing else of the system's clock is touched.

use std::io;
use std::path::Path;
use std::process::Command;

use super::write::write_atomically;

/// systemd-timesyncd's drop-in that makes a lane take its time from the
/// competition centre (which serves it: the lanecall-centre package's
/// chrony), where the hall has no internet.
pub(super) const TIMESYNCD_DROP_IN: &str = "/etc/systemd/timesyncd.conf.d/lanecall.conf";

/// The drop-in's text for the centre at `host`.
fn timesyncd_drop_in(host: &str) -> String {
    format!(
        "# Written by `lanecall setup`: this lane takes its time from the competition\n\
         # centre (its MQTT broker's host), which serves it even without internet.\n\
         # The lane takes the competition day from a synchronised clock.\n\
         [Time]\nNTP={host}\n"
    )
}

/// Points systemd-timesyncd at the centre (`drop_in`) and restarts it if
/// it runs. Said and left when it cannot: the lane then asks a judge for
/// the date, or takes the centre's over MQTT.
pub(super) fn clock_from_centre(host: &str, drop_in: &Path) {
    match write_timesyncd_drop_in(host, drop_in) {
        Ok(()) => {
            let _ = Command::new("systemctl")
                .args(["try-restart", "systemd-timesyncd"])
                .status();
            println!(
                "The clock follows the centre: NTP={host} in {}.",
                drop_in.display()
            );
        }
        Err(e) => println!(
            "Cannot point the clock at the centre ({}: {e}); docs/install.md, \"The Pi's clock\".",
            drop_in.display()
        ),
    }
}

fn write_timesyncd_drop_in(host: &str, drop_in: &Path) -> io::Result<()> {
    if let Some(dir) = drop_in.parent() {
        std::fs::create_dir_all(dir)?;
    }
    write_atomically(drop_in, &timesyncd_drop_in(host), Some(0o644))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lane_of_a_centre_takes_its_time_from_the_centres_host() {
        let dir = std::env::temp_dir().join(format!("lanecall-timesyncd-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let drop_in = dir.join("timesyncd.conf.d").join("lanecall.conf");
        write_timesyncd_drop_in("centre.local", &drop_in).unwrap();
        let text = std::fs::read_to_string(&drop_in).unwrap();
        let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(lines, ["[Time]", "NTP=centre.local"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

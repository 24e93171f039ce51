//! Which competition day it is (docs/journal.md, `date`): the clock's date
//! while a time service has synchronised the clock, else the date a judge
//! or the centre gave in this run, journaled so that replay finds the same
//! day. Until the lane knows it, no block starts: a Pi without a clock
//! battery and without a time server restarts near the time it last ran,
//! and yesterday's blindfold checks and block count must not go on today.

use super::LaneRunner;
use crate::clock_sync::ClockSync;
use crate::lane::{Action, DateFrom, Event, Millis, Panel, Stamped};
use crate::ports::{NotTaken, Reply};
use crate::wall::{DayDate, WallTime};
use crate::wall_clock::unix_now;

/// The clock's date at `now` (seconds since 1970), as the header's
/// `started_at` writes it (UTC).
pub(super) fn clock_date(now: u64) -> DayDate {
    let ms = i64::try_from(now).unwrap_or(i64::MAX).saturating_mul(1000);
    WallTime(ms).date()
}

/// Whether the lane takes its clock's date as the day's: the clock is
/// synchronised (or no time service says it is not), or the lane is the
/// demo's, whose day is its clock's.
pub(super) fn trusted(settings: &super::RunnerSettings, sync: &ClockSync) -> bool {
    settings.simulated || sync.trusted()
}

impl LaneRunner {
    /// The competition day's date, when the lane knows it.
    pub(super) fn today(&self) -> Option<DayDate> {
        if trusted(&self.settings, &self.sync.now()) {
            return Some(clock_date(unix_now()));
        }
        self.given
    }

    /// A panel action (a judge's, or the centre's): what the day needs
    /// first, then journaled and applied.
    pub(super) fn action(&mut self, t: Millis, panel: Panel, reply: Option<Reply>) {
        match &panel.action {
            Action::StartBlock { .. } => {
                let Some(today) = self.today() else {
                    if let Some(reply) = reply {
                        let _ = reply.send(Err(NotTaken::Day(self.no_date_yet())));
                    }
                    return;
                };
                // The synchronised clock says another day than the
                // journal's (the lane started before it was synchronised,
                // in yesterday's journal): that day is journaled first.
                let lane = self.replay.lane();
                if lane.date() != Some(today) && lane.open_block().is_none() {
                    let date = Action::Date {
                        date: today,
                        from: DateFrom::Clock,
                    };
                    self.apply(t, Event::Panel(Panel::new(None, date)), None);
                }
            }
            Action::Date { date, from } => {
                let why_not = match from {
                    DateFrom::Centre if !self.takes_centre_date(*date) => Some(None),
                    DateFrom::Judge if trusted(&self.settings, &self.sync.now()) => {
                        Some(Some(self.clock_is_the_day()))
                    }
                    _ => None,
                };
                if let Some(why) = why_not {
                    if let Some(reply) = reply {
                        let _ = reply.send(why.map_or(Ok(t), |w| Err(NotTaken::Day(w))));
                    }
                    return;
                }
            }
            _ => {}
        }
        self.apply(t, Event::Panel(panel), reply);
    }

    /// Whether the centre's date is journaled: only while the clock is
    /// not synchronised, once (the centre says it again every minute),
    /// and a new day not while a block is open (it comes again after).
    fn takes_centre_date(&self, date: DayDate) -> bool {
        if trusted(&self.settings, &self.sync.now()) || self.given == Some(date) {
            return false;
        }
        let lane = self.replay.lane();
        lane.open_block().is_none() || lane.date() == Some(date)
    }

    /// A `date` the lane took in this run is the day's.
    pub(super) fn note_date(&mut self, e: &Stamped<Event>) {
        if let Event::Panel(Panel {
            action: Action::Date { date, .. },
            ..
        }) = &e.event
            && self.replay.lane().date() == Some(*date)
        {
            self.given = Some(*date);
        }
    }

    /// Why a block cannot start yet, and what to do.
    fn no_date_yet(&self) -> String {
        let why = match self.sync.now() {
            ClockSync::Unsynchronised { why } => why,
            _ => "no time service has synchronised it".into(),
        };
        format!(
            "today's date is not confirmed: this lane's clock is not synchronised ({why}), \
             and its date, {}, may be another day's. A judge confirms today's date on the \
             panel (Judge tab), or the lane takes the centre's once it comes \
             (docs/install.md, \"The Pi's clock\")",
            clock_date(unix_now())
        )
    }

    /// Why a judge's date is not taken: the clock's is the day's.
    fn clock_is_the_day(&self) -> String {
        let date = clock_date(unix_now());
        match self.sync.now() {
            ClockSync::Synchronised { by } => format!(
                "this lane's clock is synchronised ({by}): today is its date, {date}; \
                 a judge gives the date only while the clock is not synchronised"
            ),
            _ => format!(
                "this lane has no time service (systemd-timesyncd or chrony) to say its \
                 clock is wrong: today is its date, {date}; set the clock \
                 (docs/install.md, \"The Pi's clock\")"
            ),
        }
    }

    /// The clock's state and the day for the panel (`clock` in
    /// `/api/lane`): `needs_date` while no block can start for want of it.
    pub(super) fn clock_status(&self) -> serde_json::Value {
        let mut v = self.sync.now().to_json();
        let today = self.today();
        v["own_date"] = serde_json::json!(clock_date(unix_now()));
        v["date"] = serde_json::json!(today);
        v["needs_date"] = serde_json::json!(today.is_none());
        v
    }
}

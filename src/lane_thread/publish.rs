//! What the lane's thread shows: the lane's report with the daemon's own
//! state beside it (the speaker, the journal and its sinks, the failing
//! parts, the clock, the input channel's counts), published on the
//! snapshot channel for the panel after every change.

use super::LaneRunner;
use crate::ports::{LaneSnapshot, Parts};

impl LaneRunner {
    /// Publishes the failing parts the adapters report on `parts` with
    /// the lane (`parts` in `/api/lane`), within a second of a change.
    pub fn watch_parts(&mut self, parts: Parts) {
        self.parts = parts;
        self.publish();
    }

    /// What the journal's sinks have to show on the panel.
    pub(super) fn sinks_status(&self) -> Vec<(&'static str, serde_json::Value)> {
        self.journal_sinks
            .iter()
            .filter_map(|s| s.status())
            .collect()
    }

    /// The journal's state for the panel (`journal` in `/api/lane`).
    pub(super) fn journal_status(&self) -> serde_json::Value {
        let name = self.journal.path().file_name().map(|n| n.to_string_lossy());
        let mut v = serde_json::json!({
            "state": if self.failure.is_some() { "failed" } else { "ok" },
            "file": name,
            "lines": self.journal.lines(),
            "set_aside": self.set_aside.iter().map(|(file, reason)| serde_json::json!({"file": file, "reason": reason})).collect::<Vec<_>>(),
            "notices": self.notices.iter().map(|(at, message)| serde_json::json!({"at": at, "message": message})).collect::<Vec<_>>(),
        });
        for (name, status) in &self.sinks_status {
            v[*name] = status.clone();
        }
        if let Some(f) = &self.failure {
            v["failed"] = serde_json::json!({
                "reason": f.reason,
                "since_t": f.since_t,
                "waiting": f.waiting.len(),
                "shed": f.shed,
            });
        }
        v
    }

    /// The channel's shed counts: (serial lines, beam edges).
    pub(super) fn inputs_counts(&self) -> (u64, u64) {
        (self.inputs.shed_serial(), self.inputs.shed_beam())
    }

    /// Inputs sent and not yet taken.
    pub(super) fn queued(&self) -> u64 {
        self.inputs.queued()
    }

    pub(super) fn publish(&mut self) {
        self.version += 1;
        self.speaker_status = self.speaker.status();
        let mut extra: Vec<(&'static str, serde_json::Value)> = self
            .speaker_status
            .iter()
            .map(|s| ("speaker", s.clone()))
            .collect();
        self.sinks_status = self.sinks_status();
        extra.push((
            "speaker_language",
            serde_json::json!(self.settings.language),
        ));
        extra.push(("journal", self.journal_status()));
        self.parts_published = self.parts.version();
        extra.push((
            "parts",
            serde_json::to_value(self.parts.faults()).unwrap_or_default(),
        ));
        extra.push(("time_zone", self.zone.now()));
        self.clock_published = self.clock_status();
        extra.push(("clock", self.clock_published.clone()));
        self.inputs_published = self.inputs_counts();
        let (shed_serial, shed_beam) = self.inputs_published;
        extra.push((
            "inputs",
            serde_json::json!({
                "shed_serial": shed_serial,
                "shed_beam": shed_beam,
                "queued": self.queued(),
            }),
        ));
        match serde_json::to_string(&self.replay.report_with(&extra)) {
            Ok(json) => {
                self.snapshot.send_replace(LaneSnapshot {
                    version: self.version,
                    json: json.into(),
                });
            }
            Err(e) => tracing::error!("cannot serialize the lane: {e}"),
        }
    }
}

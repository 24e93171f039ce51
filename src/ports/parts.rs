//! The lane's parts as the technician installed them (the GPIO, the pin
//! switches' expander, the panel's address, the journal's storage) and
//! which of them is failing now, for the panel's banners.
//!
//! A part that fails never stops the daemon (only a config that can never
//! work does): its adapter keeps trying with a backoff and says here what
//! is wrong and what fixes it; the lane's thread publishes the list with
//! the lane (`parts` in `/api/lane`), and the panel shows each as a
//! banner. Each change is logged once: a fault when it first appears or
//! its problem changes, and the part's return.
//!
//! Nothing here decides a ruling or touches a device: it is a list that
//! the adapters write and the lane's thread reads.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::wall::rfc3339;

/// A part that is failing now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PartFault {
    /// The part (`gpio`, `switches`, `listen`, `storage`), as the panel
    /// names it.
    pub part: &'static str,
    /// What is wrong, for the technician.
    pub problem: String,
    /// What fixes it.
    pub fix: String,
    /// When it was first seen (wall time, RFC 3339).
    pub since: String,
}

#[derive(Debug, Default)]
struct State {
    faults: BTreeMap<&'static str, PartFault>,
    /// Goes up at every change, so a reader tells a change cheaply.
    version: u64,
}

/// The lane's failing parts; cheap to clone, shared by the adapters and
/// the lane's thread.
#[derive(Clone, Debug, Default)]
pub struct Parts(Arc<Mutex<State>>);

impl Parts {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `part` is failing: `problem`, fixed by `fix`. Logged when it is new
    /// or its problem changed, not when it is said again.
    pub fn fault(&self, part: &'static str, problem: impl Into<String>, fix: impl Into<String>) {
        let (problem, fix) = (problem.into(), fix.into());
        let mut state = self.state();
        if let Some(f) = state.faults.get(part)
            && f.problem == problem
            && f.fix == fix
        {
            return;
        }
        tracing::warn!(part, fix = %fix, "{part}: {problem}");
        let since = state.faults.get(part).map_or_else(
            || {
                let now = SystemTime::now().duration_since(UNIX_EPOCH);
                rfc3339(now.map_or(0, |d| d.as_secs()))
            },
            |f| f.since.clone(),
        );
        state.faults.insert(
            part,
            PartFault {
                part,
                problem,
                fix,
                since,
            },
        );
        state.version += 1;
    }

    /// `part` works (again). Logged only when it had failed.
    pub fn clear(&self, part: &'static str) {
        let mut state = self.state();
        if state.faults.remove(part).is_some() {
            tracing::info!(part, "{part} works again");
            state.version += 1;
        }
    }

    /// Goes up at every change.
    pub fn version(&self) -> u64 {
        self.state().version
    }

    /// The failing parts, by name.
    pub fn faults(&self) -> Vec<PartFault> {
        self.state().faults.values().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fault_said_again_is_no_change_and_its_return_clears_it() {
        let parts = Parts::default();
        assert!(parts.faults().is_empty());
        parts.fault("gpio", "GPIO 6 is held by \"ups\"", "stop the UPS daemon");
        let v = parts.version();
        let since = parts.faults()[0].since.clone();
        parts.fault("gpio", "GPIO 6 is held by \"ups\"", "stop the UPS daemon");
        assert_eq!(parts.version(), v, "the same fault twice is one change");
        parts.fault("gpio", "no header chip", "check the kernel");
        assert_eq!(parts.version(), v + 1);
        let faults = parts.faults();
        assert_eq!(faults.len(), 1);
        assert_eq!(faults[0].part, "gpio");
        assert_eq!(faults[0].problem, "no header chip");
        assert_eq!(faults[0].since, since, "still failing since the first");
        parts.clear("gpio");
        assert!(parts.faults().is_empty());
        assert_eq!(parts.version(), v + 2);
        parts.clear("gpio");
        assert_eq!(
            parts.version(),
            v + 2,
            "clearing a working part is no change"
        );
    }

    #[test]
    fn the_parts_are_listed_by_name_and_shared_between_clones() {
        let parts = Parts::default();
        let adapter = parts.clone();
        adapter.fault("switches", "no MCP23017 at 0x20", "check the wiring");
        adapter.fault("gpio", "busy", "free it");
        let names: Vec<_> = parts.faults().iter().map(|f| f.part).collect();
        assert_eq!(names, ["gpio", "switches"]);
        let json = serde_json::to_value(parts.faults()).unwrap();
        assert_eq!(json[1]["fix"], "check the wiring");
    }
}

//! The mirror's comparison with what each lane says it has, and its asks
//! for what follows (the rules are in `mirror`'s documentation).

use std::time::Instant;

use super::{Mirror, QUIET, RESEND_AGAIN, valid_file_name};
use crate::centre::book::{Book, LaneBook};
use crate::journal::names::journal_seq;

/// How many times a lane without a state is asked for what follows after
/// it says `online` (its state, skipped by a flooded broker, comes again
/// after each ask; at the latest a minute later).
pub const UNSURE_ASKS: u32 = 6;

impl Mirror {
    /// Asks each lane that is quiet while the mirror is behind what it
    /// says it has (its state's `journal`), or, without that state, that
    /// said `online` a while ago, for what follows.
    pub(super) fn check(&mut self, book: &Book, now: Instant) {
        // Lanes held back by the embedded broker are waiting their turn,
        // not quiet: asking them now would bring their lines twice.
        if (book.broker_backlog.as_ref()).is_some_and(|b| b.held_within(QUIET)) {
            return;
        }
        for (&n, lb) in &book.lanes {
            if let Some((file, _)) = said_journal(lb)
                && valid_file_name(file)
            {
                self.lanes.entry(n).or_default();
            }
        }
        for (&n, lane) in &mut self.lanes {
            let seen = *lane.seen.get_or_insert(now);
            let quiet = now - lane.heard.map_or(seen, |heard| heard.max(seen)) >= QUIET;
            let asked = lane.asked_rest.is_some_and(|t| now - t < RESEND_AGAIN);
            if !quiet || asked {
                continue;
            }
            let said = book.lanes.get(&n).and_then(said_journal);
            // What to ask for: `Some(None)` the lane's current journals
            // from their first line, `Some(Some((file, from)))` what
            // follows in one file.
            let wanted = match said {
                Some((file, lines)) => {
                    let disk = lane.files.get(file);
                    let have = disk.map_or(0, |f| f.crcs.len() as u64);
                    let conflicted = disk.is_some_and(|f| f.conflicted || f.refused);
                    lane.online_at = None;
                    (have < lines && valid_file_name(file) && !conflicted)
                        .then(|| Some((file.to_owned(), have + 1)))
                }
                // Without its state, where the lane stands is unknown: ask
                // what follows the newest file, and again after
                // RESEND_AGAIN (the ask makes the lane publish its state)
                // until the state comes, at most UNSURE_ASKS times.
                None => match lane.online_at {
                    Some(at) if now - at >= QUIET => {
                        lane.unsure_asks += 1;
                        if lane.unsure_asks >= UNSURE_ASKS {
                            lane.online_at = None;
                        }
                        let newest = lane
                            .files
                            .iter()
                            .filter(|(_, f)| !f.refused)
                            .max_by_key(|(name, _)| (journal_seq(name), name.as_str()));
                        Some(newest.map(|(name, f)| (name.clone(), f.next())))
                    }
                    _ => None,
                },
            };
            let Some(wanted) = wanted else {
                continue;
            };
            match wanted {
                Some((file, from)) if !lane.empty() => {
                    tracing::info!(lane = n, file, from, "asking for what follows");
                    (self.resend)(n, Some(&file), from, None);
                    if let Some(f) = lane.files.get_mut(&file) {
                        f.asked(now, None);
                    }
                }
                _ => {
                    tracing::info!(
                        lane = n,
                        "no line of this lane: asking for its current journals"
                    );
                    (self.resend)(n, None, 1, None);
                }
            }
            lane.asked_rest = Some(now);
        }
    }
}

/// What lane's state says of the journal it writes: its file and lines.
pub(super) fn said_journal(lane: &LaneBook) -> Option<(&str, u64)> {
    let (file, lines) = lane.state.as_ref()?.journal.as_ref()?;
    Some((file, *lines))
}

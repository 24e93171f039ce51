//! The mirror's syncs after a batch, several files at once: a disk takes
//! the syncs of many files together about as fast as one (128 files
//! synced one after the other: 0.3-0.6 s on the build machine's ext4; 8
//! at a time: 20-45 ms), and with many lanes a batch has written to one
//! file per lane (BENCHMARKS.md, "The centre: 128 lanes").

use std::collections::HashMap;
use std::fs::File;

use super::Mirror;

/// Files synced at once after a batch.
const SYNC_THREADS: usize = 8;

impl Mirror {
    /// Syncs every file written since the last sync, several at a time
    /// ([`sync_all`]): each file's outcome.
    pub(super) fn sync_files(&self) -> HashMap<(u32, String), std::io::Result<()>> {
        let files: Vec<((u32, &String), &File)> = (self.lanes.iter())
            .flat_map(|(&n, lane)| {
                (lane.files.iter())
                    .filter(|(_, f)| f.dirty)
                    .filter_map(move |(name, f)| Some(((n, name), f.file.as_ref()?)))
            })
            .collect();
        let outcomes = sync_all(&files);
        files
            .into_iter()
            .zip(outcomes)
            .map(|(((n, name), _), outcome)| ((n, name.clone()), outcome))
            .collect()
    }
}

/// `sync_data` of each file, on up to [`SYNC_THREADS`] threads: the
/// outcomes in the files' order. A thread that cannot start leaves its
/// share to this one.
pub(super) fn sync_all<K: Sync>(files: &[(K, &File)]) -> Vec<std::io::Result<()>> {
    if files.len() < 2 {
        return files.iter().map(|(_, f)| f.sync_data()).collect();
    }
    let threads = SYNC_THREADS.min(files.len());
    let share = |i: usize| -> Vec<(usize, std::io::Result<()>)> {
        (i..files.len())
            .step_by(threads)
            .map(|j| (j, files[j].1.sync_data()))
            .collect()
    };
    let mut outcomes: Vec<Option<std::io::Result<()>>> = files.iter().map(|_| None).collect();
    std::thread::scope(|scope| {
        let started: Vec<_> = (1..threads)
            .map(|i| {
                let share = &share;
                (
                    i,
                    std::thread::Builder::new().spawn_scoped(scope, move || share(i)),
                )
            })
            .collect();
        let mut done = share(0);
        for (i, thread) in started {
            match thread.map(|t| t.join()) {
                Ok(Ok(part)) => done.extend(part),
                _ => done.extend(share(i)),
            }
        }
        for (j, outcome) in done {
            outcomes[j] = Some(outcome);
        }
    });
    outcomes
        .into_iter()
        .map(|o| o.unwrap_or_else(|| Err(std::io::Error::other("not synced"))))
        .collect()
}

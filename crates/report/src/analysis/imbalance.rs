//! Load imbalance of worksharing constructs: each thread's time in a loop
//! (or sections, workshare, ...) less its waiting at the closing barrier,
//! and how far the busiest thread is from the mean.
//!
//! Imbalance is `(max − mean) / max`: the share of the construct's elapsed
//! time that perfectly shared work would have saved. A team whose threads
//! all work equally long has 0 %.

use super::figures::{RowKey, RunFigures};
use super::spread::{Ranks, Spread, Tally};
use crate::join::Catalog;
use pomp2::profile::Kind;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize)]
pub struct Imbalance {
    pub region: Option<usize>,
    pub kind: Kind,
    pub label: String,
    /// The loop schedule, when known.
    pub schedule: Option<String>,
    /// Threads that took part (over all profiles).
    pub threads: u64,
    /// Over those threads, each one's work in the construct.
    pub work_ns: Spread,
    pub imbalance: f64,
    /// `(max − mean)` summed: the thread time the imbalance cost.
    pub lost_ns: u64,
}

/// Each worksharing construct's work per thread, gathered profile by
/// profile.
#[derive(Debug, Default)]
pub struct Worksharing {
    rows: BTreeMap<RowKey, Tally>,
}

impl Worksharing {
    /// Adds the threads of the profile at `at`.
    pub fn add(&mut self, at: u32, figures: &RunFigures) {
        for (key, threads) in &figures.work {
            let tally = self.rows.entry(*key).or_default();
            for &work in threads.values() {
                tally.add(at, work);
            }
        }
    }

    /// The constructs, most time lost first; the extremes are named by the
    /// ranks of the threads that had them.
    pub fn finish(self, ranks: &Ranks, catalog: &Catalog) -> Vec<Imbalance> {
        let mut rows: Vec<Imbalance> = (self.rows.into_iter())
            .map(|(key, tally)| {
                let work = tally.over_values(Some(ranks));
                Imbalance {
                    region: key.0,
                    kind: key.1,
                    label: catalog.label(key.0, key.1),
                    schedule: key.0.and_then(|r| catalog.regions[r].schedule.clone()),
                    threads: tally.count(),
                    work_ns: work,
                    imbalance: imbalance(&work),
                    lost_ns: (tally.count() * work.max).saturating_sub(tally.total()),
                }
            })
            .collect();
        rows.sort_by(|a, b| b.lost_ns.cmp(&a.lost_ns).then(a.label.cmp(&b.label)));
        rows
    }
}

/// `(max − mean) / max`, 0 when nothing was measured.
pub fn imbalance(work: &Spread) -> f64 {
    if work.max == 0 {
        0.0
    } else {
        (work.max - work.mean) as f64 / work.max as f64
    }
}

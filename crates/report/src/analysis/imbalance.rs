//! Load imbalance of worksharing constructs: each thread's time in a loop
//! (or sections, workshare, ...) less its waiting at the closing barrier,
//! and how far the busiest thread is from the mean.
//!
//! Imbalance is `(max − mean) / max`: the share of the construct's elapsed
//! time that perfectly shared work would have saved. A team whose threads
//! all work equally long has 0 %.

use super::figures::{RowKey, RunFigures};
use super::Spread;
use crate::join::Catalog;
use pomp2::profile::Kind;
use serde::Serialize;
use std::collections::BTreeSet;

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

pub fn worksharing(figures: &[RunFigures], catalog: &Catalog) -> Vec<Imbalance> {
    let keys: BTreeSet<RowKey> = figures
        .iter()
        .flat_map(|f| f.work.keys().copied())
        .collect();
    let mut rows: Vec<Imbalance> = keys
        .into_iter()
        .map(|key| {
            let per_thread: Vec<u64> = figures
                .iter()
                .filter_map(|f| f.work.get(&key))
                .flat_map(|threads| threads.values().copied())
                .collect();
            let work = Spread::of(per_thread.iter().copied());
            let lost = per_thread.iter().map(|w| work.max - w).sum();
            Imbalance {
                region: key.0,
                kind: key.1,
                label: catalog.label(key.0, key.1),
                schedule: key.0.and_then(|r| catalog.regions[r].schedule.clone()),
                threads: per_thread.len() as u64,
                work_ns: work,
                imbalance: imbalance(&work),
                lost_ns: lost,
            }
        })
        .collect();
    rows.sort_by(|a, b| b.lost_ns.cmp(&a.lost_ns).then(a.label.cmp(&b.label)));
    rows
}

/// `(max − mean) / max`, 0 when nothing was measured.
pub fn imbalance(work: &Spread) -> f64 {
    if work.max == 0 {
        0.0
    } else {
        (work.max - work.mean) as f64 / work.max as f64
    }
}

//! Where the time went: one row per region and kind, largest inclusive time
//! first, and the call-path tree merged over threads.

use super::figures::{RowKey, RunFigures, TreeFigures};
use super::{ratio, Spread};
use crate::join::Catalog;
use pomp2::profile::Kind;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Index into the report's regions; `None` for events without a region.
    pub region: Option<usize>,
    pub kind: Kind,
    pub label: String,
    /// The construct or the part of it (`implicit barrier of parallel for`).
    pub what: String,
    pub visits: Spread,
    /// Summed over threads.
    pub inclusive_ns: Spread,
    pub exclusive_ns: Spread,
    /// Of the run's thread time.
    pub share: f64,
    /// The longest time one thread spent in it: its elapsed time when a
    /// team runs it together.
    pub longest_thread_ns: Spread,
    /// Threads that visited it (the most of any profile).
    pub threads: u64,
    /// Times are lower bounds: throttling stopped timing it somewhere.
    pub throttled: bool,
    /// Longest thread time in the baseline over that here.
    pub speedup: Option<f64>,
}

impl Row {
    pub fn key(&self) -> RowKey {
        (self.region, self.kind)
    }
}

pub fn rows(figures: &[RunFigures], catalog: &Catalog) -> Vec<Row> {
    let keys: BTreeSet<RowKey> = figures
        .iter()
        .flat_map(|f| f.rows.keys().copied())
        .collect();
    let total: u64 = figures.iter().map(RunFigures::thread_time_ns).sum();
    let mut rows: Vec<Row> = keys
        .into_iter()
        .map(|key| {
            let per_run: Vec<_> = figures.iter().map(|f| f.rows.get(&key)).collect();
            let spread = |value: &dyn Fn(&super::figures::RowFigures) -> u64| {
                Spread::of(per_run.iter().map(|r| r.map_or(0, value)))
            };
            let inclusive_total: u64 = per_run.iter().flatten().map(|r| r.inclusive_ns).sum();
            Row {
                region: key.0,
                kind: key.1,
                label: catalog.label(key.0, key.1),
                what: catalog.what(key.0, key.1),
                visits: spread(&|r| r.visits),
                inclusive_ns: spread(&|r| r.inclusive_ns),
                exclusive_ns: spread(&|r| r.exclusive_ns),
                share: ratio(inclusive_total, total),
                longest_thread_ns: spread(&|r| {
                    r.per_thread_ns.values().copied().max().unwrap_or(0)
                }),
                threads: per_run
                    .iter()
                    .flatten()
                    .map(|r| r.per_thread_ns.len() as u64)
                    .max()
                    .unwrap_or(0),
                throttled: per_run.iter().flatten().any(|r| r.throttled),
                speedup: None,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.inclusive_ns
            .mean
            .cmp(&a.inclusive_ns.mean)
            .then_with(|| a.label.cmp(&b.label))
    });
    rows
}

/// With a baseline: how much faster each region's longest thread got.
pub fn add_speedups(rows: &mut [Row], baseline_times: &HashMap<RowKey, u64>) {
    for row in rows {
        let here = row.longest_thread_ns.mean;
        row.speedup = baseline_times
            .get(&row.key())
            .filter(|_| here > 0)
            .map(|&base| base as f64 / here as f64);
    }
}

/// A node of the call-path tree merged over threads (and profiles).
#[derive(Debug, Clone, Serialize)]
pub struct TreeNode {
    pub region: Option<usize>,
    pub kind: Kind,
    pub label: String,
    pub visits: Spread,
    pub inclusive_ns: Spread,
    pub exclusive_ns: Spread,
    pub share: f64,
    /// Threads that reached it along this path (the most of any profile).
    pub threads: u64,
    pub children: Vec<TreeNode>,
}

pub fn tree(figures: &[RunFigures], catalog: &Catalog) -> Vec<TreeNode> {
    let total: u64 = figures.iter().map(RunFigures::thread_time_ns).sum();
    let roots: Vec<Option<&TreeFigures>> = figures.iter().map(|f| Some(&f.tree)).collect();
    children(&roots, catalog, total)
}

fn children(parents: &[Option<&TreeFigures>], catalog: &Catalog, total: u64) -> Vec<TreeNode> {
    let mut merged: BTreeMap<RowKey, Vec<Option<&TreeFigures>>> = BTreeMap::new();
    for (run, parent) in parents.iter().enumerate() {
        for (key, child) in parent.iter().flat_map(|p| p.children.iter()) {
            merged
                .entry(*key)
                .or_insert_with(|| vec![None; parents.len()])[run] = Some(child);
        }
    }
    let mut nodes: Vec<TreeNode> = merged
        .into_iter()
        .map(|((region, kind), per_run)| {
            let spread = |value: fn(&TreeFigures) -> u64| {
                Spread::of(per_run.iter().map(|n| n.map_or(0, value)))
            };
            let inclusive_total: u64 = per_run.iter().flatten().map(|n| n.inclusive_ns).sum();
            TreeNode {
                region,
                kind,
                label: {
                    let label = catalog.label(region, kind);
                    if per_run.iter().flatten().any(|n| n.folded) {
                        format!("{label} (deeper calls folded, untimed)")
                    } else {
                        label
                    }
                },
                visits: spread(|n| n.visits),
                inclusive_ns: spread(|n| n.inclusive_ns),
                exclusive_ns: spread(|n| n.exclusive_ns),
                share: ratio(inclusive_total, total),
                threads: per_run
                    .iter()
                    .flatten()
                    .map(|n| n.threads)
                    .max()
                    .unwrap_or(0),
                children: children(&per_run, catalog, total),
            }
        })
        .collect();
    nodes.sort_by_key(|n| std::cmp::Reverse(n.inclusive_ns.mean));
    nodes
}

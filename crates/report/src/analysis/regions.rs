//! Where the time went: one row per region and kind, largest inclusive time
//! first, and the call-path tree merged over threads, both gathered
//! profile by profile.

use super::figures::{RowFigures, RowKey, RunFigures, TreeFigures};
use super::share::ratio;
use super::spread::{Ranks, Spread, Tally};
use crate::join::Catalog;
use pomp2::profile::Kind;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

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
    /// With several profiles, each one's figures, in the order of the
    /// report's profiles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_rank: Option<PerRank>,
}

impl Row {
    pub fn key(&self) -> RowKey {
        (self.region, self.kind)
    }
}

/// A row's figures in each profile.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PerRank {
    pub inclusive_ns: Vec<u64>,
    pub visits: Vec<u64>,
}

impl PerRank {
    fn set(&mut self, at: u32, row: &RowFigures) {
        let at = at as usize;
        for (values, value) in [
            (&mut self.inclusive_ns, row.inclusive_ns),
            (&mut self.visits, row.visits),
        ] {
            values.resize(at, 0);
            values.push(value);
        }
    }

    fn pad(mut self, profiles: usize) -> PerRank {
        for values in [&mut self.inclusive_ns, &mut self.visits] {
            values.resize(profiles, 0);
        }
        self
    }
}

/// One row as far as the profiles read so far have it.
#[derive(Debug, Default)]
struct RowTally {
    visits: Tally,
    inclusive: Tally,
    exclusive: Tally,
    longest_thread: Tally,
    threads: u64,
    throttled: bool,
    per_rank: PerRank,
}

/// The region table, gathered profile by profile.
#[derive(Debug, Default)]
pub struct Rows {
    rows: HashMap<RowKey, RowTally>,
}

impl Rows {
    /// Adds the rows of the profile at `at`.
    pub fn add(&mut self, at: u32, figures: &RunFigures) {
        for (key, row) in &figures.rows {
            let tally = self.rows.entry(*key).or_default();
            tally.visits.add(at, row.visits);
            tally.inclusive.add(at, row.inclusive_ns);
            tally.exclusive.add(at, row.exclusive_ns);
            tally
                .longest_thread
                .add(at, row.per_thread_ns.values().copied().max().unwrap_or(0));
            tally.threads = tally.threads.max(row.per_thread_ns.len() as u64);
            tally.throttled |= row.throttled;
            tally.per_rank.set(at, row);
        }
    }

    /// The rows, largest mean inclusive time first; shares are of
    /// `thread_time_ns`, the run's thread time summed over profiles.
    pub fn finish(self, ranks: &Ranks, catalog: &Catalog, thread_time_ns: u64) -> Vec<Row> {
        let mut rows: Vec<Row> = self
            .rows
            .into_iter()
            .map(|((region, kind), tally)| Row {
                region,
                kind,
                label: catalog.label(region, kind),
                what: catalog.what(region, kind),
                visits: tally.visits.over_profiles(ranks),
                inclusive_ns: tally.inclusive.over_profiles(ranks),
                exclusive_ns: tally.exclusive.over_profiles(ranks),
                share: ratio(tally.inclusive.total(), thread_time_ns),
                longest_thread_ns: tally.longest_thread.over_profiles(ranks),
                threads: tally.threads,
                throttled: tally.throttled,
                speedup: None,
                per_rank: ranks
                    .several()
                    .then(|| tally.per_rank.pad(ranks.len() as usize)),
            })
            .collect();
        rows.sort_by(|a, b| {
            (b.inclusive_ns.mean.cmp(&a.inclusive_ns.mean))
                .then_with(|| a.label.cmp(&b.label))
                .then_with(|| a.key().cmp(&b.key()))
        });
        rows
    }
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

/// The call-path tree merged over threads, gathered profile by profile.
#[derive(Debug, Default)]
pub struct Tree {
    visits: Tally,
    inclusive: Tally,
    exclusive: Tally,
    threads: u64,
    /// Holds visits folded below the runtime's call-tree depth limit.
    folded: bool,
    children: BTreeMap<RowKey, Tree>,
}

impl Tree {
    /// Adds the merged tree of the profile at `at`.
    pub fn add(&mut self, at: u32, figures: &TreeFigures) {
        for (key, child) in &figures.children {
            let node = self.children.entry(*key).or_default();
            node.visits.add(at, child.visits);
            node.inclusive.add(at, child.inclusive_ns);
            node.exclusive.add(at, child.exclusive_ns);
            node.threads = node.threads.max(child.threads);
            node.folded |= child.folded;
            node.add(at, child);
        }
    }

    /// The tree's top nodes, each level largest mean inclusive time first.
    pub fn finish(self, ranks: &Ranks, catalog: &Catalog, thread_time_ns: u64) -> Vec<TreeNode> {
        let mut nodes: Vec<TreeNode> = self
            .children
            .into_iter()
            .map(|((region, kind), node)| {
                let label = catalog.label(region, kind);
                TreeNode {
                    region,
                    kind,
                    label: if node.folded {
                        format!("{label} (deeper calls folded, untimed)")
                    } else {
                        label
                    },
                    visits: node.visits.over_profiles(ranks),
                    inclusive_ns: node.inclusive.over_profiles(ranks),
                    exclusive_ns: node.exclusive.over_profiles(ranks),
                    share: ratio(node.inclusive.total(), thread_time_ns),
                    threads: node.threads,
                    children: Tree {
                        children: node.children,
                        ..Tree::default()
                    }
                    .finish(ranks, catalog, thread_time_ns),
                }
            })
            .collect();
        nodes.sort_by_key(|n| std::cmp::Reverse(n.inclusive_ns.mean));
        nodes
    }
}

/// The call-path tree of one profile alone.
pub fn tree_of(figures: &RunFigures, catalog: &Catalog) -> Vec<TreeNode> {
    let mut ranks = Ranks::default();
    ranks.push(0);
    let mut tree = Tree::default();
    tree.add(0, &figures.tree);
    tree.finish(&ranks, catalog, figures.thread_time_ns())
}

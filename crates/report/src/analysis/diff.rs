//! Two runs region by region: what got faster, what got slower.
//!
//! A region's time here is the longest any thread spent in it: the elapsed
//! time of a construct a team runs together, and comparable between runs
//! with different thread counts, where summed thread time is not.

use super::figures::{self, RowKey, RunFigures};
use super::regions::{self, TreeNode};
use super::run::ProfileInfo;
use super::share::ratio;
use crate::join::{Catalog, Matching, RegionInfo};
use crate::load::Run;
use pomp2::profile::Kind;
use serde::Serialize;
use std::collections::BTreeSet;

/// Changes smaller than this share of the earlier time are noise.
const UNCHANGED: f64 = 0.02;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Faster,
    Slower,
    Unchanged,
    /// Only in the second run.
    New,
    /// Only in the first run.
    Gone,
}

impl Change {
    pub fn name(self) -> &'static str {
        match self {
            Change::Faster => "faster",
            Change::Slower => "slower",
            Change::Unchanged => "unchanged",
            Change::New => "new",
            Change::Gone => "gone",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct DiffRow {
    pub region: Option<usize>,
    pub kind: Kind,
    pub label: String,
    pub what: String,
    /// Longest thread time in the first and second run.
    pub a_ns: Option<u64>,
    pub b_ns: Option<u64>,
    pub delta_ns: i64,
    /// `b / a`; `None` when either is missing or zero.
    pub ratio: Option<f64>,
    pub change: Change,
    pub a_visits: u64,
    pub b_visits: u64,
}

impl DiffRow {
    pub fn key(&self) -> RowKey {
        (self.region, self.kind)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Diff {
    pub a: ProfileInfo,
    pub b: ProfileInfo,
    /// How the builds differ, when they do.
    pub builds_differ: Option<String>,
    pub matching: Matching,
    /// Regions (and their parts) measured in both runs.
    pub common_rows: usize,
    /// `a.wall / b.wall`; `None` when the runs have no region in common,
    /// so that their times compare different programs.
    pub speedup: Option<f64>,
    pub regions: Vec<RegionInfo>,
    pub rows: Vec<DiffRow>,
    /// Each run's call-path tree, for the differential flame graph.
    #[serde(skip)]
    pub a_tree: Vec<TreeNode>,
    #[serde(skip)]
    pub b_tree: Vec<TreeNode>,
}

fn info(run: &Run) -> ProfileInfo {
    ProfileInfo {
        path: run.path.display().to_string(),
        pid: run.profile.pid,
        rank: run.profile.rank.clone(),
        threads: run.profile.threads.len() as u64,
        wall_ns: run.profile.wall_ns,
        trace: None,
    }
}

/// Compares run `a` (the catalog's profile `a_index`) with `b`.
pub fn diff(
    (a, a_index): (&Run, usize),
    (b, b_index): (&Run, usize),
    catalog: &Catalog,
    builds_differ: Option<String>,
) -> Diff {
    let fa = figures::collect(a, a_index, catalog);
    let fb = figures::collect(b, b_index, catalog);
    let keys: BTreeSet<RowKey> = fa.rows.keys().chain(fb.rows.keys()).copied().collect();
    let mut rows: Vec<DiffRow> = keys
        .into_iter()
        .map(|key| {
            let (a_ns, b_ns) = (longest(&fa, key), longest(&fb, key));
            let visits = |f: &RunFigures| f.rows.get(&key).map_or(0, |r| r.visits);
            let delta = b_ns.unwrap_or(0) as i64 - a_ns.unwrap_or(0) as i64;
            let ratio = match (a_ns, b_ns) {
                (Some(a), Some(b)) if a > 0 && b > 0 => Some(ratio(b, a)),
                _ => None,
            };
            DiffRow {
                region: key.0,
                kind: key.1,
                label: catalog.label(key.0, key.1),
                what: catalog.what(key.0, key.1),
                a_ns,
                b_ns,
                delta_ns: delta,
                ratio,
                change: change(a_ns, b_ns),
                a_visits: visits(&fa),
                b_visits: visits(&fb),
            }
        })
        .collect();
    rows.sort_by(|x, y| {
        y.delta_ns
            .unsigned_abs()
            .cmp(&x.delta_ns.unsigned_abs())
            .then_with(|| x.label.cmp(&y.label))
    });
    let common_rows = rows
        .iter()
        .filter(|r| r.a_ns.is_some() && r.b_ns.is_some())
        .count();
    Diff {
        a: info(a),
        b: info(b),
        builds_differ,
        matching: catalog.matching,
        common_rows,
        speedup: (common_rows > 0).then(|| ratio(a.profile.wall_ns, b.profile.wall_ns)),
        regions: catalog.regions.clone(),
        rows,
        a_tree: regions::tree_of(&fa, catalog),
        b_tree: regions::tree_of(&fb, catalog),
    }
}

fn longest(figures: &RunFigures, key: RowKey) -> Option<u64> {
    figures
        .rows
        .get(&key)
        .map(|r| r.per_thread_ns.values().copied().max().unwrap_or(0))
}

fn change(a: Option<u64>, b: Option<u64>) -> Change {
    match (a, b) {
        (None, _) => Change::New,
        (_, None) => Change::Gone,
        (Some(a), Some(b)) => {
            let delta = b as f64 - a as f64;
            if delta.abs() <= UNCHANGED * a as f64 {
                Change::Unchanged
            } else if delta < 0.0 {
                Change::Faster
            } else {
                Change::Slower
            }
        }
    }
}

//! One walk over a profile's per-thread call-path trees, collecting every
//! figure the analyses need, with regions already joined to the catalog.
//!
//! Inclusive times count a region's outermost occurrence on a path only, so
//! a region nested in itself (a user region in a recursive function) is not
//! counted twice; exclusive times and visits count every node.

use crate::join::Catalog;
use crate::load::Run;
use pomp2::profile::{Breakdown, Kind, Node};
use std::collections::{BTreeMap, HashMap};

/// A catalog region (`None` for events without one, such as lock calls)
/// and what was measured of it.
pub type RowKey = (Option<usize>, Kind);

/// Constructs that share a loop or blocks among a team; each thread's work
/// in them, barrier excluded, shows how evenly it was shared.
pub const WORKSHARING: &[Kind] = &[
    Kind::For,
    Kind::Do,
    Kind::Sections,
    Kind::Workshare,
    Kind::Loop,
    Kind::Distribute,
];

#[derive(Debug, Default, Clone)]
pub struct RowFigures {
    pub visits: u64,
    pub inclusive_ns: u64,
    pub exclusive_ns: u64,
    /// Inclusive time on each thread that visited.
    pub per_thread_ns: BTreeMap<u32, u64>,
    /// Some node of this row stopped being timed (throttling): its times
    /// are lower bounds.
    pub throttled: bool,
}

/// The call-path tree merged over threads.
#[derive(Debug, Default, Clone)]
pub struct TreeFigures {
    pub visits: u64,
    pub inclusive_ns: u64,
    pub exclusive_ns: u64,
    pub threads: u64,
    /// Holds visits folded below the runtime's call-tree depth limit.
    pub folded: bool,
    pub children: BTreeMap<RowKey, TreeFigures>,
}

/// A region's own overheads over its whole extent: every node below its
/// outermost nodes, whichever kind.
#[derive(Debug, Default, Clone)]
pub struct RegionFigures {
    pub inclusive_ns: u64,
    /// Fork, join and task creation.
    pub control_ns: u64,
    /// Barrier, implicit barrier and taskwait time; waiting to enter
    /// critical and ordered sections and to acquire locks.
    pub sync_ns: u64,
    /// The parts of those that arose in the region itself, not in a
    /// region nested in it: where the overhead is.
    pub own_control_ns: u64,
    pub own_sync_ns: u64,
    pub per_thread_ns: BTreeMap<u32, u64>,
    /// The region forks a team.
    pub forks: bool,
}

#[derive(Debug, Default, Clone)]
pub struct RunFigures {
    pub wall_ns: u64,
    pub threads: u64,
    pub thread_ids: Vec<u32>,
    pub breakdown: Breakdown,
    pub rows: BTreeMap<RowKey, RowFigures>,
    pub tree: TreeFigures,
    pub regions: BTreeMap<usize, RegionFigures>,
    /// Per worksharing row, each thread's time in it less its barrier.
    pub work: BTreeMap<RowKey, BTreeMap<u32, u64>>,
    /// Per thread, time inside outermost parallel regions, the tasks it
    /// ran there excluded.
    pub parallel_ns: BTreeMap<u32, u64>,
    /// Per thread, time running tasks (which hang off the thread's root).
    pub task_ns: BTreeMap<u32, u64>,
    /// The thread that ran the program's serial parts: the first that
    /// recorded an event.
    pub initial_thread: Option<u32>,
}

impl RunFigures {
    /// The thread time the run had: every thread for the whole run.
    pub fn thread_time_ns(&self) -> u64 {
        self.wall_ns * self.threads
    }

    /// Time `thread` spent in parallel regions, tasks included: tasks run
    /// inside the parallel region whose team the thread belongs to.
    pub fn in_parallel_ns(&self, thread: u32) -> u64 {
        let get = |map: &BTreeMap<u32, u64>| map.get(&thread).copied().unwrap_or(0);
        get(&self.parallel_ns) + get(&self.task_ns)
    }

    /// How long `thread` was idle, outside every parallel region and
    /// task: while the initial thread ran serial code, and while a team
    /// ran without it. The initial thread is never idle.
    pub fn idle_ns(&self, thread: u32) -> Idle {
        if Some(thread) == self.initial_thread {
            return Idle::default();
        }
        let serial = self
            .initial_thread
            .map_or(0, |t| self.wall_ns.saturating_sub(self.in_parallel_ns(t)));
        let idle = self.wall_ns.saturating_sub(self.in_parallel_ns(thread));
        let during_serial = idle.min(serial);
        Idle {
            during_serial_ns: during_serial,
            outside_teams_ns: idle - during_serial,
        }
    }
}

/// A thread's idle time (see [`RunFigures::idle_ns`]).
#[derive(Debug, Default, Clone, Copy)]
pub struct Idle {
    pub during_serial_ns: u64,
    pub outside_teams_ns: u64,
}

pub fn collect(run: &Run, run_index: usize, catalog: &Catalog) -> RunFigures {
    let profile = &run.profile;
    let mut figures = RunFigures {
        wall_ns: profile.wall_ns,
        threads: (profile.threads.len() as u64).max(1),
        breakdown: profile.breakdown,
        thread_ids: profile.threads.iter().map(|t| t.thread).collect(),
        initial_thread: profile.threads.iter().map(|t| t.thread).min(),
        ..RunFigures::default()
    };
    for thread in &profile.threads {
        figures.tree.threads += 1;
        figures.tree.inclusive_ns += thread.tree.inclusive_ns;
        let mut walk = Walk {
            run: run_index,
            thread: thread.thread,
            catalog,
            open_rows: HashMap::new(),
            open_regions: Vec::new(),
            in_parallel: false,
            figures: &mut figures,
        };
        let mut root = std::mem::take(&mut walk.figures.tree);
        for child in &thread.tree.children {
            walk.visit(child, &mut root, true);
        }
        figures.tree = root;
    }
    figures
}

struct Walk<'a> {
    run: usize,
    thread: u32,
    catalog: &'a Catalog,
    /// Rows open on the current path, with how often.
    open_rows: HashMap<RowKey, u32>,
    /// Regions whose outermost node is on the current path.
    open_regions: Vec<usize>,
    in_parallel: bool,
    figures: &'a mut RunFigures,
}

impl Walk<'_> {
    fn visit(&mut self, node: &Node, merged_parent: &mut TreeFigures, top_level: bool) {
        let region = self.catalog.find(self.run, node.region);
        let key = (region, node.kind);
        let thread = self.thread;

        let outermost_row = !self.open_rows.contains_key(&key);
        let row = self.figures.rows.entry(key).or_default();
        row.visits += node.visits;
        row.exclusive_ns += node.exclusive_ns;
        row.throttled |= node.throttled.is_some();
        if outermost_row {
            row.inclusive_ns += node.inclusive_ns;
            *row.per_thread_ns.entry(thread).or_default() += node.inclusive_ns;
            if WORKSHARING.contains(&node.kind) {
                let barrier: u64 = node
                    .children
                    .iter()
                    .filter(|c| c.kind == Kind::ImplicitBarrier && c.region == node.region)
                    .map(|c| c.inclusive_ns)
                    .sum();
                *self
                    .figures
                    .work
                    .entry(key)
                    .or_default()
                    .entry(thread)
                    .or_default() += node.inclusive_ns.saturating_sub(barrier);
            }
        }

        let opens_region = region.filter(|r| !self.open_regions.contains(r));
        if let Some(region) = opens_region {
            let figures = self.figures.regions.entry(region).or_default();
            figures.inclusive_ns += node.inclusive_ns;
            *figures.per_thread_ns.entry(thread).or_default() += node.inclusive_ns;
            self.open_regions.push(region);
        }
        if let Some(region) = region {
            if node.kind == Kind::Parallel {
                self.figures.regions.entry(region).or_default().forks = true;
            }
        }
        let (control, sync) = own_overheads(node);
        if control + sync > 0 {
            for region in &self.open_regions {
                let figures = self.figures.regions.entry(*region).or_default();
                figures.control_ns += control;
                figures.sync_ns += sync;
            }
            if let Some(innermost) = self.open_regions.last() {
                let figures = self.figures.regions.entry(*innermost).or_default();
                figures.own_control_ns += control;
                figures.own_sync_ns += sync;
            }
        }

        // Tasks hang off the thread's root; their time is taken out of the
        // region they interrupted.
        if top_level && node.kind.is_task() {
            *self.figures.task_ns.entry(thread).or_default() += node.inclusive_ns;
        }
        let enters_parallel = !self.in_parallel && node.kind == Kind::Parallel;
        if enters_parallel {
            *self.figures.parallel_ns.entry(thread).or_default() += node.inclusive_ns;
            self.in_parallel = true;
        }

        let merged = merged_parent.children.entry(key).or_default();
        merged.visits += node.visits;
        merged.inclusive_ns += node.inclusive_ns;
        merged.exclusive_ns += node.exclusive_ns;
        merged.threads += 1;
        merged.folded |= node.folded;
        *self.open_rows.entry(key).or_default() += 1;
        for child in &node.children {
            self.visit(child, merged, false);
        }
        match self.open_rows.get_mut(&key) {
            Some(1) => {
                self.open_rows.remove(&key);
            }
            Some(n) => *n -= 1,
            None => unreachable!("opened above"),
        }
        if enters_parallel {
            self.in_parallel = false;
        }
        if opens_region.is_some() {
            self.open_regions.pop();
        }
    }
}

/// A node's own control and synchronisation time: barrier-like nodes and
/// task creation are overhead through and through (their children, if
/// any, are classified on their own); a parallel region's fork and join
/// are the forking thread's part of it; other nodes may have waited to
/// get in.
fn own_overheads(node: &Node) -> (u64, u64) {
    match node.kind {
        Kind::Barrier | Kind::ImplicitBarrier | Kind::Taskwait => (0, node.exclusive_ns),
        Kind::TaskCreate | Kind::UntiedTaskCreate => (node.exclusive_ns, node.wait_ns),
        _ => (node.fork_ns + node.join_ns, node.wait_ns),
    }
}

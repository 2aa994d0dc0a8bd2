//! Overhead classes after SCALEA: of the thread time a run had, how much
//! went to controlling parallelism (fork, join, task creation), to
//! synchronisation (barriers, taskwait, waiting for critical, ordered and
//! locks), to loss of parallelism (threads idle while only some work), to
//! data movement (calls of MPI routines measured as regions), and the
//! rest, which is work. With a baseline run (one thread), the total
//! overhead `T_p − T_1/p` is split into these classes and the remainder
//! the profile cannot explain.

use super::figures::{RowKey, RunFigures};
use super::{ratio, Spread};
use crate::join::{Catalog, Matching};
use crate::load::Run;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    Control,
    Synchronisation,
    LossOfParallelism,
    DataMovement,
    Work,
}

impl Class {
    pub const ALL: [Class; 5] = [
        Class::Control,
        Class::Synchronisation,
        Class::LossOfParallelism,
        Class::DataMovement,
        Class::Work,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Class::Control => "control of parallelism",
            Class::Synchronisation => "synchronisation",
            Class::LossOfParallelism => "loss of parallelism",
            Class::DataMovement => "data movement",
            Class::Work => "work and the rest",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Part {
    pub name: &'static str,
    pub ns: Spread,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClassFigures {
    pub class: Class,
    /// Thread time.
    pub ns: Spread,
    /// Of the run's thread time.
    pub share: f64,
    pub parts: Vec<Part>,
    /// What the class counts in this run and what usually reduces it.
    pub reading: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Overheads {
    pub classes: Vec<ClassFigures>,
}

impl Overheads {
    pub fn class(&self, class: Class) -> &ClassFigures {
        self.classes
            .iter()
            .find(|c| c.class == class)
            .expect("every class is present")
    }
}

/// One run's classes, in thread time.
struct RunClasses {
    parts: Vec<(Class, &'static str, u64)>,
}

impl RunClasses {
    fn of(figures: &RunFigures, catalog: &Catalog) -> RunClasses {
        let b = &figures.breakdown;
        let (mut idle_serial, mut idle_in_regions) = (0, 0);
        for &thread in &figures.thread_ids {
            let idle = figures.idle_ns(thread);
            idle_serial += idle.during_serial_ns;
            idle_in_regions += idle.outside_teams_ns;
        }
        let mut parts = vec![
            (Class::Control, "fork", b.fork_ns),
            (Class::Control, "join", b.join_ns),
            (Class::Control, "task creation", b.task_create_ns),
            (
                Class::Synchronisation,
                "implicit barrier",
                b.implicit_barrier_ns,
            ),
            (Class::Synchronisation, "barrier", b.barrier_ns),
            (Class::Synchronisation, "taskwait", b.taskwait_ns),
            (Class::Synchronisation, "critical", b.critical_wait_ns),
            (Class::Synchronisation, "ordered", b.ordered_wait_ns),
            (Class::Synchronisation, "lock", b.lock_wait_ns),
            (
                Class::LossOfParallelism,
                "idle while serial code runs",
                idle_serial,
            ),
            (
                Class::LossOfParallelism,
                "idle outside a running team",
                idle_in_regions,
            ),
            (
                Class::DataMovement,
                "MPI calls",
                mpi_calls_ns(figures, catalog),
            ),
        ];
        let overhead: u64 = parts.iter().map(|p| p.2).sum();
        parts.push((
            Class::Work,
            "work",
            figures.thread_time_ns().saturating_sub(overhead),
        ));
        RunClasses { parts }
    }

    fn class_ns(&self, class: Class) -> u64 {
        self.parts
            .iter()
            .filter(|p| p.0 == class)
            .map(|p| p.2)
            .sum()
    }
}

pub fn program(figures: &[RunFigures], catalog: &Catalog) -> Overheads {
    let runs: Vec<RunClasses> = figures.iter().map(|f| RunClasses::of(f, catalog)).collect();
    let total: u64 = figures.iter().map(RunFigures::thread_time_ns).sum();
    let classes = Class::ALL
        .iter()
        .map(|&class| {
            let names: Vec<&'static str> = runs[0]
                .parts
                .iter()
                .filter(|p| p.0 == class)
                .map(|p| p.1)
                .collect();
            let parts: Vec<Part> = names
                .iter()
                .map(|&name| Part {
                    name,
                    ns: Spread::of(
                        runs.iter()
                            .map(|r| r.parts.iter().find(|p| p.1 == name).map_or(0, |p| p.2)),
                    ),
                })
                .collect();
            let sum: u64 = runs.iter().map(|r| r.class_ns(class)).sum();
            let most_in = where_most(figures, catalog, class);
            let reading = super::readings::reading(class, &parts, most_in.as_deref());
            ClassFigures {
                class,
                ns: Spread::of(runs.iter().map(|r| r.class_ns(class))),
                share: ratio(sum, total),
                parts,
                reading,
            }
        })
        .collect();
    Overheads { classes }
}

/// The region in which most of `class` arose (not counting what arose in
/// regions nested in it), for the classes regions have.
fn where_most(figures: &[RunFigures], catalog: &Catalog, class: Class) -> Option<String> {
    let own = |region: &super::figures::RegionFigures| match class {
        Class::Control => region.own_control_ns,
        Class::Synchronisation => region.own_sync_ns,
        _ => 0,
    };
    let mut by_region: HashMap<usize, u64> = HashMap::new();
    for run in figures {
        for (&region, figures) in &run.regions {
            *by_region.entry(region).or_default() += own(figures);
        }
    }
    let (region, _) = (by_region.into_iter())
        .filter(|&(_, ns)| ns > 0)
        .max_by_key(|&(region, ns)| (ns, std::cmp::Reverse(region)))?;
    Some(catalog.regions[region].label.clone())
}

/// Thread time in calls of MPI routines: the user regions named after one
/// (`MPI_Send`, any case), which `--regions=mpi` makes of each call.
fn mpi_calls_ns(figures: &RunFigures, catalog: &Catalog) -> u64 {
    let mpi_call = |region: &usize| {
        let info = &catalog.regions[*region];
        let name = info.name.as_deref().unwrap_or_default();
        info.profile_region.region_type == "region"
            && name.len() > 4
            && name.is_char_boundary(4)
            && name[..4].eq_ignore_ascii_case("mpi_")
    };
    (figures.regions.iter())
        .filter(|(region, _)| mpi_call(region))
        .map(|(_, r)| r.inclusive_ns)
        .sum()
}

/// A region's overheads over its whole extent, nested constructs included.
#[derive(Debug, Clone, Serialize)]
pub struct RegionOverhead {
    pub region: usize,
    pub label: String,
    /// Thread time in the region.
    pub inclusive_ns: Spread,
    /// Fork, join and task creation in it.
    pub control_ns: Spread,
    pub sync_ns: Spread,
    /// For regions that fork a team: thread time the run's other threads
    /// were not in it while it ran.
    pub idle_ns: Spread,
    pub work_ns: Spread,
    /// Synchronisation over inclusive time.
    pub sync_share: f64,
}

pub fn regions(figures: &[RunFigures], catalog: &Catalog) -> Vec<RegionOverhead> {
    let keys: BTreeSet<usize> = figures
        .iter()
        .flat_map(|f| f.regions.keys().copied())
        .collect();
    let mut regions: Vec<RegionOverhead> = keys
        .into_iter()
        .filter_map(|region| {
            let per_run: Vec<_> = figures
                .iter()
                .map(|f| (f, f.regions.get(&region)))
                .collect();
            let shown = per_run
                .iter()
                .flat_map(|(_, r)| r)
                .any(|r| r.forks || r.control_ns + r.sync_ns > 0);
            if !shown {
                return None;
            }
            let spread = |value: &dyn Fn(&RunFigures, &super::figures::RegionFigures) -> u64| {
                Spread::of(per_run.iter().map(|(f, r)| r.map_or(0, |r| value(f, r))))
            };
            let sync: u64 = per_run.iter().flat_map(|(_, r)| r).map(|r| r.sync_ns).sum();
            let inclusive: u64 = per_run
                .iter()
                .flat_map(|(_, r)| r)
                .map(|r| r.inclusive_ns)
                .sum();
            Some(RegionOverhead {
                region,
                label: catalog.regions[region].label.clone(),
                inclusive_ns: spread(&|_, r| r.inclusive_ns),
                control_ns: spread(&|_, r| r.control_ns),
                sync_ns: spread(&|_, r| r.sync_ns),
                idle_ns: spread(&|f, r| if r.forks { idle_in(f, r) } else { 0 }),
                work_ns: spread(&|_, r| r.inclusive_ns.saturating_sub(r.control_ns + r.sync_ns)),
                sync_share: ratio(sync, inclusive),
            })
        })
        .collect();
    regions.sort_by_key(|r| std::cmp::Reverse(r.inclusive_ns.mean));
    regions
}

/// Thread time the run's threads were not in a region that forks a team
/// while it ran. The tasks a thread ran count as time in the parallel
/// regions it was in, shared among them by its time in each: the tree does
/// not say in which region a task ran.
fn idle_in(figures: &RunFigures, region: &super::figures::RegionFigures) -> u64 {
    let busy: Vec<u64> = figures
        .thread_ids
        .iter()
        .map(|thread| {
            let here = region.per_thread_ns.get(thread).copied().unwrap_or(0);
            let parallel = figures.parallel_ns.get(thread).copied().unwrap_or(0);
            let tasks = figures.task_ns.get(thread).copied().unwrap_or(0);
            let tasks_here = if parallel == 0 {
                0
            } else {
                (tasks as u128 * here.min(parallel) as u128 / parallel as u128) as u64
            };
            here + tasks_here
        })
        .collect();
    let longest = busy.iter().copied().max().unwrap_or(0);
    busy.iter().map(|b| longest - b).sum()
}

/// This run against a reference run of the same program, after SCALEA:
/// `T_p = T_1/p + overhead`.
#[derive(Debug, Clone, Serialize)]
pub struct Baseline {
    pub path: String,
    pub wall_ns: u64,
    pub threads: u64,
    /// Of this run (the mean over its profiles).
    pub run_wall_ns: u64,
    pub run_threads: u64,
    /// `T_ref / T_p`.
    pub speedup: f64,
    /// Speed-up over threads: how much of the ideal speed-up was reached.
    pub efficiency: f64,
    /// `T_ref × p_ref / p`: the wall time if the work had divided without
    /// loss (`T_1/p` for a one-thread reference).
    pub ideal_ns: u64,
    /// `T_p − ideal`, negative when the run was faster than ideal.
    pub total_overhead_ns: i64,
    /// Each class's thread time over `p`: its share of the wall time.
    pub identified: Vec<(Class, i64)>,
    /// What the classes do not explain.
    pub unidentified_ns: i64,
    /// The regions were matched by source rather than by id.
    pub other_build: bool,
    /// Per region and kind, the baseline's longest thread time.
    #[serde(skip)]
    pub region_times: HashMap<RowKey, u64>,
}

pub fn baseline(
    base: &Run,
    base_figures: &RunFigures,
    figures: &[RunFigures],
    overheads: &Overheads,
    catalog: &Catalog,
) -> Baseline {
    let wall = Spread::of(figures.iter().map(|f| f.wall_ns)).mean;
    let threads = Spread::of(figures.iter().map(|f| f.threads)).mean.max(1);
    let reference = base_figures.wall_ns;
    let ideal = reference as u128 * base_figures.threads as u128 / threads as u128;
    let ideal = ideal as u64;
    let total_overhead = wall as i64 - ideal as i64;
    let identified: Vec<(Class, i64)> = [
        Class::Control,
        Class::Synchronisation,
        Class::LossOfParallelism,
    ]
    .iter()
    .map(|&class| (class, (overheads.class(class).ns.mean / threads) as i64))
    .collect();
    let explained: i64 = identified.iter().map(|c| c.1).sum();
    let speedup = ratio(reference, wall);
    Baseline {
        path: base.path.display().to_string(),
        wall_ns: reference,
        threads: base_figures.threads,
        run_wall_ns: wall,
        run_threads: threads,
        speedup,
        efficiency: speedup * base_figures.threads as f64 / threads as f64,
        ideal_ns: ideal,
        total_overhead_ns: total_overhead,
        identified,
        unidentified_ns: total_overhead - explained,
        other_build: catalog.matching == Matching::BySource,
        region_times: base_figures
            .rows
            .iter()
            .map(|(key, row)| (*key, row.per_thread_ns.values().copied().max().unwrap_or(0)))
            .collect(),
    }
}

//! Overhead classes after SCALEA: of the thread time a run had, how much
//! went to controlling parallelism (fork, join, task creation), to
//! synchronisation (barriers, taskwait, waiting for critical, ordered and
//! locks), to loss of parallelism (threads idle while only some work), to
//! data movement (MPI calls, as the POMP MPI library measured them by
//! class, or else the call regions around them), and the rest, which is
//! work. With a baseline run (one thread), the total
//! overhead `T_p − T_1/p` is split into these classes and the remainder
//! the profile cannot explain.

pub use super::classes::{Class, Part};
use super::figures::{RowKey, RunFigures};
use super::share::ratio;
use super::spread::{Ranks, Spread, Tally};
use crate::join::{Catalog, Matching};
use crate::load::Run;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

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
        ];
        // Measured through PMPI, MPI's time is known by class; else it is
        // the time of the call regions around MPI calls.
        let pmpi = figures.mpi.unwrap_or_default();
        let call_regions = match figures.mpi {
            Some(_) => 0,
            None => mpi_calls_ns(figures, catalog),
        };
        parts.extend([
            (
                Class::DataMovement,
                "MPI point-to-point",
                pmpi.point_to_point_ns,
            ),
            (Class::DataMovement, "MPI collective", pmpi.collective_ns),
            (Class::DataMovement, "other MPI", pmpi.other_ns),
            (Class::DataMovement, "MPI calls", call_regions),
        ]);
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

/// The classes of a run, gathered profile by profile.
#[derive(Debug, Default)]
pub struct Classes {
    /// Each part's thread time, in the order [`RunClasses::of`] lists them.
    parts: Vec<(Class, &'static str, Tally)>,
    classes: [Tally; Class::ALL.len()],
    /// Per region, the control and the synchronisation that arose in it
    /// and not in regions nested in it, summed over profiles.
    own: HashMap<usize, [u64; 2]>,
}

impl Classes {
    /// Adds the profile at `at`.
    pub fn add(&mut self, at: u32, figures: &RunFigures, catalog: &Catalog) {
        let run = RunClasses::of(figures, catalog);
        if self.parts.is_empty() {
            self.parts = (run.parts.iter())
                .map(|&(class, name, _)| (class, name, Tally::default()))
                .collect();
        }
        for ((_, _, tally), &(_, _, ns)) in self.parts.iter_mut().zip(&run.parts) {
            tally.add(at, ns);
        }
        for (tally, class) in self.classes.iter_mut().zip(Class::ALL) {
            tally.add(at, run.class_ns(class));
        }
        for (&region, figures) in &figures.regions {
            let own = self.own.entry(region).or_default();
            own[0] += figures.own_control_ns;
            own[1] += figures.own_sync_ns;
        }
    }

    /// The classes; shares are of `thread_time_ns`, the run's thread time
    /// summed over profiles.
    pub fn finish(self, ranks: &Ranks, thread_time_ns: u64, catalog: &Catalog) -> Overheads {
        let classes = (Class::ALL.iter().zip(&self.classes))
            .map(|(&class, tally)| {
                let parts: Vec<Part> = (self.parts.iter())
                    .filter(|part| part.0 == class)
                    .map(|(_, name, tally)| Part {
                        name,
                        ns: tally.over_profiles(ranks),
                    })
                    .collect();
                let most_in = self.where_most(class, catalog);
                ClassFigures {
                    class,
                    ns: tally.over_profiles(ranks),
                    share: ratio(tally.total(), thread_time_ns),
                    reading: super::readings::reading(class, &parts, most_in.as_deref()),
                    parts,
                }
            })
            .collect();
        Overheads { classes }
    }

    /// The region in which most of `class` arose (not counting what arose
    /// in regions nested in it), for the classes regions have.
    fn where_most(&self, class: Class, catalog: &Catalog) -> Option<String> {
        let kind = match class {
            Class::Control => 0,
            Class::Synchronisation => 1,
            _ => return None,
        };
        let (region, _) = (self.own.iter())
            .map(|(&region, own)| (region, own[kind]))
            .filter(|&(_, ns)| ns > 0)
            .max_by_key(|&(region, ns)| (ns, std::cmp::Reverse(region)))?;
        Some(catalog.regions[region].label.clone())
    }
}

/// Thread time in calls of MPI routines: the user regions named after one
/// (`MPI_Send`, any case), which `--regions=mpi` makes of each call.
fn mpi_calls_ns(figures: &RunFigures, catalog: &Catalog) -> u64 {
    (figures.regions.iter())
        .filter(|(&region, _)| catalog.regions[region].mpi_function().is_some())
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

/// One region's overheads as far as the profiles read so far have them.
#[derive(Debug, Default)]
struct RegionTally {
    inclusive: Tally,
    control: Tally,
    sync: Tally,
    idle: Tally,
    work: Tally,
    /// It forks a team, or has control or synchronisation time somewhere.
    shown: bool,
}

/// Every region's overheads, gathered profile by profile.
#[derive(Debug, Default)]
pub struct Regions {
    regions: BTreeMap<usize, RegionTally>,
}

impl Regions {
    /// Adds the profile at `at`.
    pub fn add(&mut self, at: u32, figures: &RunFigures) {
        for (&region, r) in &figures.regions {
            let tally = self.regions.entry(region).or_default();
            tally.shown |= r.forks || r.control_ns + r.sync_ns > 0;
            tally.inclusive.add(at, r.inclusive_ns);
            tally.control.add(at, r.control_ns);
            tally.sync.add(at, r.sync_ns);
            tally
                .idle
                .add(at, if r.forks { idle_in(figures, r) } else { 0 });
            tally
                .work
                .add(at, r.inclusive_ns.saturating_sub(r.control_ns + r.sync_ns));
        }
    }

    /// The regions that fork a team or have overheads, largest mean
    /// inclusive time first.
    pub fn finish(self, ranks: &Ranks, catalog: &Catalog) -> Vec<RegionOverhead> {
        let mut regions: Vec<RegionOverhead> = (self.regions.into_iter())
            .filter(|(_, tally)| tally.shown)
            .map(|(region, tally)| RegionOverhead {
                region,
                label: catalog.regions[region].label.clone(),
                inclusive_ns: tally.inclusive.over_profiles(ranks),
                control_ns: tally.control.over_profiles(ranks),
                sync_ns: tally.sync.over_profiles(ranks),
                idle_ns: tally.idle.over_profiles(ranks),
                work_ns: tally.work.over_profiles(ranks),
                sync_share: ratio(tally.sync.total(), tally.inclusive.total()),
            })
            .collect();
        regions.sort_by_key(|r| std::cmp::Reverse(r.inclusive_ns.mean));
        regions
    }
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

/// The baseline `base` against a run whose profiles had a mean wall time
/// of `wall` on a mean of `threads`.
pub fn baseline(
    base: &Run,
    base_figures: &RunFigures,
    (wall, threads): (u64, u64),
    overheads: &Overheads,
    catalog: &Catalog,
) -> Baseline {
    let threads = threads.max(1);
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

//! The report, built profile by profile from each part's tallies.

use super::figures::{self, RunFigures};
use super::run::{HostInfo, ProfileInfo, RunInfo};
use super::spread::{Ranks, Spread, Tally};
use super::{imbalance, mpi, notes, overhead, ranks, regions, tasks};
use crate::join::{Catalog, Matching, RegionInfo};
use crate::load::Run;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The run's experiment, when the profiles are an experiment's.
    pub run: Option<RunInfo>,
    pub profiles: Vec<ProfileInfo>,
    /// The hosts the profiles ran on, and how many ranks each.
    pub hosts: Vec<HostInfo>,
    /// How regions of different profiles were recognised as the same.
    pub matching: Matching,
    pub wall_ns: Spread,
    pub threads: Spread,
    /// `wall × threads` of each profile.
    pub thread_time_ns: Spread,
    /// Every region; rows and nodes refer to them by index.
    pub regions: Vec<RegionInfo>,
    pub rows: Vec<regions::Row>,
    pub tree: Vec<regions::TreeNode>,
    pub overheads: overhead::Overheads,
    pub region_overheads: Vec<overhead::RegionOverhead>,
    pub imbalance: Vec<imbalance::Imbalance>,
    /// Of several profiles: the regions whose time differs between ranks.
    pub rank_imbalance: Vec<ranks::RankImbalance>,
    /// MPI as the POMP MPI library measured it, when it did.
    pub mpi: Option<mpi::MpiSummary>,
    /// MPI routines measured, each summed over its call sites.
    pub mpi_functions: Vec<mpi::MpiFunction>,
    pub tasks: tasks::Tasks,
    pub baseline: Option<overhead::Baseline>,
    /// What the reader should know about the data: throttling, threads
    /// left out, traces missing.
    pub notes: Vec<String>,
}

/// The report of a run, built profile by profile: each profile's figures
/// are added as it is read and the profile is not kept.
#[derive(Debug, Default)]
pub struct Builder {
    run: Option<RunInfo>,
    hosts: Vec<HostInfo>,
    ranks: Ranks,
    profiles: Vec<ProfileInfo>,
    wall: Tally,
    threads: Tally,
    thread_time: Tally,
    rows: regions::Rows,
    tree: regions::Tree,
    classes: overhead::Classes,
    region_overheads: overhead::Regions,
    worksharing: imbalance::Worksharing,
    tasks: tasks::TaskTallies,
    mpi: mpi::MpiTallies,
    notes: notes::Notes,
}

impl Builder {
    /// The builder of a report on `run`'s profiles.
    pub fn of_run(run: Option<RunInfo>) -> Builder {
        Builder {
            run,
            ..Builder::default()
        }
    }

    /// Adds `run`, the catalog's profile `index`, whose figures are
    /// `figures`.
    pub fn add(&mut self, run: &Run, index: usize, figures: &RunFigures, catalog: &Catalog) {
        let at = self.ranks.len();
        let rank = run.rank().unwrap_or(at);
        self.ranks.push(rank);
        self.profiles.push(ProfileInfo {
            path: run.path.display().to_string(),
            pid: run.profile.pid,
            rank: run.profile.rank.clone(),
            threads: run.profile.threads.len() as u64,
            wall_ns: run.profile.wall_ns,
            trace: (run.trace.as_ref())
                .and(run.profile.trace.as_ref())
                .map(|t| t.path.clone()),
        });
        if let Some(host) = &run.profile.host {
            match self.hosts.iter_mut().rev().find(|h| &h.name == host) {
                Some(known) => known.ranks += 1,
                None => self.hosts.push(HostInfo {
                    name: host.clone(),
                    ranks: 1,
                }),
            }
        }
        self.wall.add(at, figures.wall_ns);
        self.threads.add(at, figures.threads);
        self.thread_time.add(at, figures.thread_time_ns());
        self.rows.add(at, figures);
        self.tree.add(at, &figures.tree);
        self.classes.add(at, figures, catalog);
        self.region_overheads.add(at, figures);
        self.worksharing.add(at, figures);
        self.tasks.add(at, run, index, catalog);
        self.mpi.add(at, run);
        self.notes.add(at, rank, run);
    }

    /// The report, compared with `baseline` (a run and its figures) when
    /// given.
    pub fn finish(self, catalog: &Catalog, baseline: Option<(&Run, &RunFigures)>) -> Report {
        let ranks = &self.ranks;
        let thread_time_ns = self.thread_time.total();
        let mut rows = self.rows.finish(ranks, catalog, thread_time_ns);
        let tree = self.tree.finish(ranks, catalog, thread_time_ns);
        let overheads = self.classes.finish(ranks, thread_time_ns, catalog);
        let tasks = self.tasks.finish(ranks, catalog);
        let mut notes = self.notes.finish(ranks, catalog, self.run.as_ref());
        if tasks.histogram.is_empty() && tasks.constructs.iter().any(|c| c.executed.max > 0) {
            notes.push(
                "task durations are known per construct only: run with POMP_TRACE=1 for a \
                 histogram of each task's duration"
                    .to_string(),
            );
        }
        let wall_ns = self.wall.over_profiles(ranks);
        let threads = self.threads.over_profiles(ranks);
        let baseline = baseline.map(|(base, base_figures)| {
            overhead::baseline(
                base,
                base_figures,
                (wall_ns.mean, threads.mean),
                &overheads,
                catalog,
            )
        });
        if let Some(baseline) = &baseline {
            regions::add_speedups(&mut rows, &baseline.region_times);
        }
        Report {
            run: self.run,
            hosts: self.hosts,
            rank_imbalance: ranks::imbalance(&rows, ranks),
            mpi_functions: mpi::functions(&rows, &catalog.regions, &tree, ranks, thread_time_ns),
            mpi: self.mpi.finish(ranks, thread_time_ns),
            profiles: self.profiles,
            matching: catalog.matching,
            wall_ns,
            threads,
            thread_time_ns: self.thread_time.over_profiles(ranks),
            regions: catalog.regions.clone(),
            rows,
            tree,
            overheads,
            region_overheads: self.region_overheads.finish(ranks, catalog),
            imbalance: self.worksharing.finish(ranks, catalog),
            tasks,
            baseline,
            notes,
        }
    }
}

/// The report of `runs` (one per rank of one run of one build, the
/// catalog's first profiles), compared with `baseline` (the catalog's
/// profile after them) when given.
pub fn report(runs: &[Run], baseline: Option<&Run>, catalog: &Catalog) -> Report {
    let mut builder = Builder::default();
    for (index, run) in runs.iter().enumerate() {
        builder.add(run, index, &figures::collect(run, index, catalog), catalog);
    }
    let baseline = baseline.map(|base| (base, figures::collect(base, runs.len(), catalog)));
    builder.finish(catalog, baseline.as_ref().map(|(base, f)| (*base, f)))
}

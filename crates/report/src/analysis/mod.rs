//! From profiles to answers: where the time went (regions, call paths),
//! why (overhead classes after SCALEA, load imbalance), tasks, and how two
//! runs compare. Nothing here reads files or knows how figures are shown.
//!
//! Times of several threads add up to thread time: a region that three
//! threads spend 1 s in has 3 s inclusive time. The run had `wall × threads`
//! of thread time; shares are of that. With several profiles (one per MPI
//! rank), every figure is a [`Spread`] over the profiles.

pub mod diff;
pub mod figures;
pub mod imbalance;
pub mod overhead;
mod readings;
pub mod regions;
pub mod tasks;

use super::join::{Catalog, Matching, RegionInfo};
use super::load::Run;
use figures::RunFigures;
use serde::Serialize;

/// A figure over several profiles: its least, mean and greatest value. Of
/// one profile, all three are its value.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Spread {
    pub min: u64,
    pub mean: u64,
    pub max: u64,
}

impl Spread {
    pub fn of(values: impl IntoIterator<Item = u64>) -> Spread {
        let (mut min, mut max, mut sum, mut count) = (u64::MAX, 0, 0u128, 0u64);
        for value in values {
            min = min.min(value);
            max = max.max(value);
            sum += value as u128;
            count += 1;
        }
        if count == 0 {
            return Spread::default();
        }
        Spread {
            min,
            mean: (sum / count as u128) as u64,
            max,
        }
    }

    /// Whether the profiles differ in this figure.
    pub fn varies(&self) -> bool {
        self.min != self.max
    }
}

/// `part / whole`, 0 for an empty whole.
pub fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// A profile the report was made from.
#[derive(Debug, Clone, Serialize)]
pub struct ProfileInfo {
    pub path: String,
    pub pid: u32,
    pub rank: Option<String>,
    pub threads: u64,
    pub wall_ns: u64,
    /// The trace read with it.
    pub trace: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub profiles: Vec<ProfileInfo>,
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
    pub tasks: tasks::Tasks,
    pub baseline: Option<overhead::Baseline>,
    /// What the reader should know about the data: throttling, threads
    /// left out, traces missing.
    pub notes: Vec<String>,
}

/// The report of `runs` (one per rank of one run of one build), compared
/// with `baseline` when given. The catalog joins the runs' regions, the
/// baseline's last.
pub fn report(runs: &[Run], baseline: Option<&Run>, catalog: &Catalog) -> Report {
    let figures: Vec<RunFigures> = runs
        .iter()
        .enumerate()
        .map(|(i, run)| figures::collect(run, i, catalog))
        .collect();
    let mut notes = notes(runs, catalog);
    let rows = regions::rows(&figures, catalog);
    let tree = regions::tree(&figures, catalog);
    let overheads = overhead::program(&figures, catalog);
    let region_overheads = overhead::regions(&figures, catalog);
    let imbalance = imbalance::worksharing(&figures, catalog);
    let tasks = tasks::tasks(runs, catalog);
    if tasks.histogram.is_empty() && tasks.constructs.iter().any(|c| c.executed.max > 0) {
        notes.push(
            "task durations are known per construct only: run with POMP_TRACE=1 for a \
             histogram of each task's duration"
                .to_string(),
        );
    }
    let baseline = baseline.map(|base| {
        let base_figures = figures::collect(base, runs.len(), catalog);
        overhead::baseline(base, &base_figures, &figures, &overheads, catalog)
    });
    let mut rows = rows;
    if let Some(baseline) = &baseline {
        regions::add_speedups(&mut rows, &baseline.region_times);
    }
    Report {
        profiles: runs
            .iter()
            .map(|run| ProfileInfo {
                path: run.path.display().to_string(),
                pid: run.profile.pid,
                rank: run.profile.rank.clone(),
                threads: run.profile.threads.len() as u64,
                wall_ns: run.profile.wall_ns,
                trace: run
                    .trace
                    .as_ref()
                    .and(run.profile.trace.as_ref())
                    .map(|t| t.path.clone()),
            })
            .collect(),
        matching: catalog.matching,
        wall_ns: Spread::of(figures.iter().map(|f| f.wall_ns)),
        threads: Spread::of(figures.iter().map(|f| f.threads)),
        thread_time_ns: Spread::of(figures.iter().map(RunFigures::thread_time_ns)),
        regions: catalog.regions.clone(),
        rows,
        tree,
        overheads,
        region_overheads,
        imbalance,
        tasks,
        baseline,
        notes,
    }
}

/// What limits the data: said once per report, in the reader's terms.
fn notes(runs: &[Run], catalog: &Catalog) -> Vec<String> {
    let mut notes = Vec::new();
    for run in runs {
        let profile = &run.profile;
        let name = if runs.len() > 1 {
            format!("{}: ", run.name())
        } else {
            String::new()
        };
        if !profile.incomplete_threads.is_empty() {
            notes.push(format!(
                "{name}{} thread(s) were still recording when the program ended and are left out",
                profile.incomplete_threads.len()
            ));
        }
        let throttled = profile
            .region_summary
            .iter()
            .filter(|s| s.throttled_threads > 0)
            .count();
        if throttled > 0 {
            notes.push(format!(
                "{name}{throttled} region part(s) called often and briefly stopped being timed \
                 (throttling: {} calls under {} ns each); their times are what was measured \
                 until then, the rest counts in the enclosing region",
                profile.throttling.numcalls, profile.throttling.percall_ns
            ));
        }
        let folded: u64 = (profile.threads.iter())
            .map(|t| t.frames_beyond_depth_limit)
            .sum();
        if folded > 0 {
            notes.push(format!(
                "{name}{folded} visit(s) nested deeper than the call tree's {} levels were \
                 folded into one node per region at the deepest level, counted and not timed; \
                 their time is in the node above",
                pomp2::profile::MAX_TREE_DEPTH
            ));
        }
        let unmatched: u64 = profile.threads.iter().map(|t| t.unmatched_ends).sum();
        if unmatched > 0 {
            notes.push(format!(
                "{name}{unmatched} end event(s) had no matching begin on their thread"
            ));
        }
        let not_inferred: u64 = profile
            .threads
            .iter()
            .map(|t| t.barriers_not_inferred)
            .sum();
        if not_inferred > 0 {
            notes.push(format!(
                "{name}the waiting at {not_inferred} implicit barrier(s) could not be inferred"
            ));
        }
        if let Some(trace) = &profile.trace {
            if trace.dropped_events > 0 && run.trace.is_some() {
                notes.push(format!(
                    "{name}the trace is incomplete: {} event(s) were dropped at POMP_TRACE_LIMIT",
                    trace.dropped_events
                ));
            }
        }
        if let Some(problem) = &run.trace_problem {
            notes.push(format!("{name}{problem}"));
        }
        if profile.regions.iter().any(|r| r.malformed_ctc) {
            notes.push(format!(
                "{name}some regions had a damaged source context (CTC string); they are named by what could be read"
            ));
        }
    }
    if catalog.descriptors_missing > 0 {
        notes.push(format!(
            "{} region(s) have no IDF descriptor among those given",
            catalog.descriptors_missing
        ));
    }
    notes
}

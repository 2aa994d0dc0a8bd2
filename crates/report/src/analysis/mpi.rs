//! MPI across the ranks of a run: the time in MPI calls by class
//! (point-to-point, collective, the rest) and what they moved, as the POMP
//! MPI library measured it in each rank; and each MPI routine's time,
//! summed over the places that call it.

use super::regions::{Row, TreeNode};
use super::spread::{Ranks, Spread, Tally};
use crate::join::RegionInfo;
use crate::load::Run;
use pomp2::mpi::ThreadLevel;
use pomp2::profile::{Kind, MpiTotals};
use serde::Serialize;
use std::collections::BTreeMap;

/// MPI as the ranks measured it, each figure over the ranks.
#[derive(Debug, Clone, Serialize)]
pub struct MpiSummary {
    /// The MPI library, and the thread support asked for and given, as the
    /// first rank that measured MPI says.
    pub library: String,
    pub thread_level_requested: Option<ThreadLevel>,
    pub thread_level_provided: ThreadLevel,
    /// Ranks that measured MPI.
    pub ranks: u32,
    /// Time in MPI calls, summed over threads, and its classes.
    pub time_ns: Spread,
    pub point_to_point_ns: Spread,
    pub collective_ns: Spread,
    pub other_ns: Spread,
    /// Of the run's thread time.
    pub share: f64,
    pub messages_sent: Spread,
    pub bytes_sent: Spread,
    pub messages_received: Spread,
    pub bytes_received: Spread,
    pub collectives: Spread,
    pub collective_bytes_sent: Spread,
    pub collective_bytes_received: Spread,
    /// With several ranks, each one's time in MPI and bytes sent and
    /// received (point-to-point and collective), in the order of the
    /// report's profiles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_rank: Option<MpiPerRank>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct MpiPerRank {
    pub time_ns: Vec<u64>,
    pub bytes_sent: Vec<u64>,
    pub bytes_received: Vec<u64>,
}

/// MPI, gathered profile by profile.
#[derive(Debug, Default)]
pub struct MpiTallies {
    first: Option<pomp2::profile::Mpi>,
    ranks: u32,
    time: Tally,
    /// [`MpiTotals::fields`], each tallied.
    fields: [Tally; 10],
    per_rank: MpiPerRank,
}

impl MpiTallies {
    /// Adds the profile at `at`.
    pub fn add(&mut self, at: u32, run: &Run) {
        let Some(mpi) = &run.profile.mpi else { return };
        self.first.get_or_insert_with(|| mpi.clone());
        self.ranks += 1;
        let totals = &mpi.totals;
        self.time.add(at, totals.time_ns());
        for (tally, value) in self.fields.iter_mut().zip(totals.fields()) {
            tally.add(at, value);
        }
        let per_rank = &mut self.per_rank;
        for (values, value) in [
            (&mut per_rank.time_ns, totals.time_ns()),
            (
                &mut per_rank.bytes_sent,
                totals.bytes_sent + totals.collective_bytes_sent,
            ),
            (
                &mut per_rank.bytes_received,
                totals.bytes_received + totals.collective_bytes_received,
            ),
        ] {
            values.resize(at as usize, 0);
            values.push(value);
        }
    }

    /// The summary, when some rank measured MPI; its share is of
    /// `thread_time_ns`, the run's thread time summed over profiles.
    pub fn finish(self, ranks: &Ranks, thread_time_ns: u64) -> Option<MpiSummary> {
        let first = self.first?;
        let [p2p, collective, other, messages_sent, bytes_sent, messages_received, bytes_received, collectives, collective_bytes_sent, collective_bytes_received] =
            self.fields.map(|tally| tally.over_profiles(ranks));
        let mut per_rank = self.per_rank;
        for values in [
            &mut per_rank.time_ns,
            &mut per_rank.bytes_sent,
            &mut per_rank.bytes_received,
        ] {
            values.resize(ranks.len() as usize, 0);
        }
        Some(MpiSummary {
            library: first.library,
            thread_level_requested: first.thread_level_requested,
            thread_level_provided: first.thread_level_provided,
            ranks: self.ranks,
            time_ns: self.time.over_profiles(ranks),
            point_to_point_ns: p2p,
            collective_ns: collective,
            other_ns: other,
            share: super::share::ratio(self.time.total(), thread_time_ns),
            messages_sent,
            bytes_sent,
            messages_received,
            bytes_received,
            collectives,
            collective_bytes_sent,
            collective_bytes_received,
            per_rank: ranks.several().then_some(per_rank),
        })
    }
}

/// A process's time in MPI calls by class, when the POMP MPI library
/// measured it.
pub fn totals(run: &Run) -> Option<&MpiTotals> {
    run.profile.mpi.as_ref().map(|mpi| &mpi.totals)
}

/// One MPI routine over every place that calls it.
#[derive(Debug, Clone, Serialize)]
pub struct MpiFunction {
    /// `MPI_Allreduce`.
    pub name: String,
    /// Places it is called from: call regions (`--regions=mpi`), or the
    /// call paths the POMP MPI library measured it on.
    pub call_sites: usize,
    pub visits: Spread,
    /// Thread time in its calls, per rank.
    pub inclusive_ns: Spread,
    /// Of the run's thread time.
    pub share: f64,
}

/// The MPI routines measured, most time first: each one's rows summed
/// rank by rank (a call region per call site, or the one region the POMP
/// MPI library measures the routine as, whose call paths are its call
/// sites).
pub fn functions(
    rows: &[Row],
    regions: &[RegionInfo],
    tree: &[TreeNode],
    ranks: &Ranks,
    thread_time_ns: u64,
) -> Vec<MpiFunction> {
    let mut by_name: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for row in rows {
        let Some(region) = row.region else { continue };
        let is_call = matches!(row.kind, Kind::UserRegion | Kind::Mpi);
        if let (Some(name), true) = (regions[region].mpi_function(), is_call) {
            by_name.entry(name).or_default().push(row);
        }
    }
    // Call regions around calls the POMP MPI library measured hold those
    // calls: the library's measurement alone counts.
    for rows in by_name.values_mut() {
        if rows.iter().any(|row| row.kind == Kind::Mpi) {
            rows.retain(|row| row.kind == Kind::Mpi);
        }
    }
    let mut paths: BTreeMap<usize, usize> = BTreeMap::new();
    count_mpi_paths(tree, &mut paths);
    let mut functions: Vec<MpiFunction> = (by_name.into_iter())
        .map(|(name, rows)| {
            // Each rank's figure summed over the rows; of a single
            // profile, the rows' own.
            let summed = |figure: fn(&Row, Option<usize>) -> u64| {
                let mut tally = Tally::default();
                for at in 0..ranks.len() {
                    let place = ranks.several().then_some(at as usize);
                    tally.add(at, rows.iter().map(|row| figure(row, place)).sum());
                }
                tally
            };
            let time = summed(|row, at| match (&row.per_rank, at) {
                (Some(per_rank), Some(at)) => per_rank.inclusive_ns[at],
                _ => row.inclusive_ns.mean,
            });
            let visits = summed(|row, at| match (&row.per_rank, at) {
                (Some(per_rank), Some(at)) => per_rank.visits[at],
                _ => row.visits.mean,
            });
            let call_sites = (rows.iter())
                .map(|row| match row.kind {
                    Kind::Mpi => row.region.and_then(|r| paths.get(&r)).copied().unwrap_or(1),
                    _ => 1,
                })
                .sum();
            MpiFunction {
                name: name.to_string(),
                call_sites,
                visits: visits.over_profiles(ranks),
                inclusive_ns: time.over_profiles(ranks),
                share: super::share::ratio(time.total(), thread_time_ns),
            }
        })
        .collect();
    functions.sort_by(|a, b| {
        (b.inclusive_ns.mean.cmp(&a.inclusive_ns.mean)).then_with(|| a.name.cmp(&b.name))
    });
    functions
}

/// How many call paths reach each MPI region measured by the POMP MPI
/// library.
fn count_mpi_paths(nodes: &[TreeNode], paths: &mut BTreeMap<usize, usize>) {
    for node in nodes {
        if let (Kind::Mpi, Some(region)) = (node.kind, node.region) {
            *paths.entry(region).or_default() += 1;
        }
        count_mpi_paths(&node.children, paths);
    }
}

//! Ranks against each other: how unevenly the ranks of a run spent their
//! time in each region, and the time in each MPI routine summed over the
//! places that call it. Both are made from the region table once every
//! profile is read: its rows hold each rank's figures.

use super::regions::Row;
use super::spread::{Ranks, Spread, Tally};
use pomp2::profile::Kind;
use serde::Serialize;
use std::collections::BTreeMap;

/// A region (or a part of one) whose time differs between ranks.
#[derive(Debug, Clone, Serialize)]
pub struct RankImbalance {
    pub region: Option<usize>,
    pub kind: Kind,
    pub label: String,
    /// Each rank's time in it, summed over its threads; the ranks of the
    /// least and the greatest.
    pub inclusive_ns: Spread,
    /// `(max − mean) / max`: the share of the slowest rank's time in it
    /// that evenly shared work would save.
    pub imbalance: f64,
    /// `(max − mean)` over every rank: the time ranks would wait for the
    /// slowest at the next collective.
    pub lost_ns: u64,
}

/// Every row whose time differs between ranks, most time lost first.
/// Empty for a single profile.
pub fn imbalance(rows: &[Row], ranks: &Ranks) -> Vec<RankImbalance> {
    if !ranks.several() {
        return Vec::new();
    }
    let mut imbalances: Vec<RankImbalance> = (rows.iter())
        .filter(|row| row.inclusive_ns.varies())
        .map(|row| {
            let time = row.inclusive_ns;
            RankImbalance {
                region: row.region,
                kind: row.kind,
                label: row.label.clone(),
                inclusive_ns: time,
                imbalance: super::imbalance::imbalance(&time),
                lost_ns: (time.max - time.mean).saturating_mul(u64::from(ranks.len())),
            }
        })
        .collect();
    imbalances.sort_by(|a, b| b.lost_ns.cmp(&a.lost_ns).then(a.label.cmp(&b.label)));
    imbalances
}

/// One MPI routine over every place that calls it.
#[derive(Debug, Clone, Serialize)]
pub struct MpiFunction {
    /// `MPI_Allreduce`.
    pub name: String,
    /// Call sites measured (regions of the catalog).
    pub call_sites: usize,
    pub visits: Spread,
    /// Thread time in its calls, per rank.
    pub inclusive_ns: Spread,
    /// Of the run's thread time.
    pub share: f64,
}

/// The MPI routines called in measured regions, most time first: each
/// one's rows (one per call site) summed rank by rank.
pub fn mpi_functions(
    rows: &[Row],
    regions: &[crate::join::RegionInfo],
    ranks: &Ranks,
    thread_time_ns: u64,
) -> Vec<MpiFunction> {
    let mut by_name: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for row in rows {
        let Some(region) = row.region else { continue };
        let info = &regions[region];
        if let (Some(name), true) = (info.mpi_function(), row.kind == Kind::UserRegion) {
            by_name.entry(name).or_default().push(row);
        }
    }
    let mut functions: Vec<MpiFunction> = (by_name.into_iter())
        .map(|(name, rows)| {
            // Each rank's figure summed over the call sites; of a single
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
            MpiFunction {
                name: name.to_string(),
                call_sites: rows.len(),
                visits: visits.over_profiles(ranks),
                inclusive_ns: time.over_profiles(ranks),
                share: super::ratio(time.total(), thread_time_ns),
            }
        })
        .collect();
    functions.sort_by(|a, b| {
        (b.inclusive_ns.mean.cmp(&a.inclusive_ns.mean)).then_with(|| a.name.cmp(&b.name))
    });
    functions
}

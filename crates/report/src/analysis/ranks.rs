//! Ranks against each other: how unevenly the ranks of a run spent their
//! time in each region, from the region table once every profile is read.

use super::regions::Row;
use super::spread::{Ranks, Spread};
use pomp2::profile::Kind;
use serde::Serialize;

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

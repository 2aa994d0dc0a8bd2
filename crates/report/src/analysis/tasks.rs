//! Tasks: how many each construct created and ran, how long they took (a
//! histogram of each task's duration when a trace was written), and which
//! task constructs created which.

use super::Spread;
use crate::join::Catalog;
use crate::load::Run;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone, Serialize)]
pub struct Tasks {
    pub created: Spread,
    pub executed: Spread,
    pub constructs: Vec<TaskConstruct>,
    pub relations: Vec<TaskRelation>,
    /// Per construct, from the traces; empty without one.
    pub histogram: Vec<Histogram>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TaskConstruct {
    pub region: usize,
    pub label: String,
    pub created: Spread,
    pub executed: Spread,
    /// Time running its tasks, summed over threads.
    pub inclusive_ns: Spread,
    /// Per task.
    pub mean_ns: u64,
    /// Times are lower bounds: throttling stopped timing its tasks somewhere.
    pub throttled: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct TaskRelation {
    /// The creating task's construct; `None` for an implicit task (the
    /// code of a parallel region itself).
    pub parent: Option<usize>,
    pub parent_label: String,
    pub child: usize,
    pub child_label: String,
    pub count: Spread,
}

#[derive(Debug, Clone, Serialize)]
pub struct Histogram {
    pub region: Option<usize>,
    pub label: String,
    pub tasks: u64,
    /// From the first to the last bucket holding a task.
    pub buckets: Vec<Bucket>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Bucket {
    pub from_ns: u64,
    /// `None` for the last, open bucket.
    pub to_ns: Option<u64>,
    pub count: u64,
}

/// Bucket bounds: 1 µs, 3 µs, 10 µs, 30 µs, ... 10 s.
fn bounds() -> Vec<u64> {
    let mut bounds = Vec::new();
    let mut decade = 1_000u64;
    while decade <= 10_000_000_000 {
        bounds.push(decade);
        bounds.push(decade * 3);
        decade *= 10;
    }
    bounds.pop();
    bounds
}

pub fn tasks(runs: &[Run], catalog: &Catalog) -> Tasks {
    let mut per_construct: BTreeMap<usize, Vec<Option<&pomp2::profile::TaskRegion>>> =
        BTreeMap::new();
    let mut relations: BTreeMap<(Option<usize>, usize), Vec<u64>> = BTreeMap::new();
    let mut throttled: BTreeSet<usize> = BTreeSet::new();
    for (i, run) in runs.iter().enumerate() {
        let tasks = &run.profile.tasks;
        for construct in &tasks.per_region {
            if let Some(region) = catalog.find(i, Some(construct.region)) {
                per_construct
                    .entry(region)
                    .or_insert_with(|| vec![None; runs.len()])[i] = Some(construct);
            }
        }
        for relation in &tasks.relations {
            let Some(child) = catalog.find(i, Some(relation.child_region)) else {
                continue;
            };
            let parent = catalog.find(i, relation.parent_region);
            relations
                .entry((parent, child))
                .or_insert_with(|| vec![0; runs.len()])[i] += relation.count;
        }
        for summary in &run.profile.region_summary {
            if summary.kind.is_task() && summary.throttled_threads > 0 {
                throttled.extend(catalog.find(i, summary.region));
            }
        }
    }
    let mut constructs: Vec<TaskConstruct> = per_construct
        .into_iter()
        .map(|(region, per_run)| {
            let spread = |value: fn(&pomp2::profile::TaskRegion) -> u64| {
                Spread::of(per_run.iter().map(|t| t.map_or(0, value)))
            };
            let executed: u64 = per_run.iter().flatten().map(|t| t.executed).sum();
            let inclusive: u64 = per_run.iter().flatten().map(|t| t.inclusive_ns).sum();
            TaskConstruct {
                region,
                label: catalog.regions[region].label.clone(),
                created: spread(|t| t.created),
                executed: spread(|t| t.executed),
                inclusive_ns: spread(|t| t.inclusive_ns),
                mean_ns: inclusive / executed.max(1),
                throttled: throttled.contains(&region),
            }
        })
        .collect();
    constructs.sort_by_key(|c| std::cmp::Reverse(c.inclusive_ns.mean));
    Tasks {
        created: Spread::of(runs.iter().map(|r| r.profile.tasks.created)),
        executed: Spread::of(runs.iter().map(|r| r.profile.tasks.executed)),
        constructs,
        relations: relations
            .into_iter()
            .map(|((parent, child), counts)| TaskRelation {
                parent,
                parent_label: parent.map_or("implicit task".to_string(), |p| {
                    catalog.regions[p].label.clone()
                }),
                child,
                child_label: catalog.regions[child].label.clone(),
                count: Spread::of(counts),
            })
            .collect(),
        histogram: histograms(runs, catalog),
    }
}

/// Each task's duration, from the traces of the profiles that have one.
fn histograms(runs: &[Run], catalog: &Catalog) -> Vec<Histogram> {
    let bounds = bounds();
    let mut counts: BTreeMap<Option<usize>, Vec<u64>> = BTreeMap::new();
    for (i, run) in runs.iter().enumerate() {
        let Some(trace) = &run.trace else { continue };
        for span in trace.threads.values().flatten() {
            if !span.kind.is_task() {
                continue;
            }
            let region = catalog.find(i, (span.region != 0).then_some(span.region));
            let ns = span.duration;
            let bucket = bounds.partition_point(|&bound| bound <= ns);
            counts
                .entry(region)
                .or_insert_with(|| vec![0; bounds.len() + 1])[bucket] += 1;
        }
    }
    counts
        .into_iter()
        .map(|(region, counts)| {
            let first = counts.iter().position(|&c| c > 0).unwrap_or(0);
            let last = counts.iter().rposition(|&c| c > 0).unwrap_or(0);
            Histogram {
                region,
                label: region.map_or("task".to_string(), |r| catalog.regions[r].label.clone()),
                tasks: counts.iter().sum(),
                buckets: (first..=last)
                    .map(|b| Bucket {
                        from_ns: if b == 0 { 0 } else { bounds[b - 1] },
                        to_ns: bounds.get(b).copied(),
                        count: counts[b],
                    })
                    .collect(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_go_by_one_and_three() {
        let bounds = bounds();
        assert_eq!(&bounds[..4], &[1_000, 3_000, 10_000, 30_000]);
        assert_eq!(*bounds.last().unwrap(), 10_000_000_000);
        assert_eq!(bounds.partition_point(|&b| b <= 999), 0);
        assert_eq!(bounds.partition_point(|&b| b <= 1_000), 1);
        assert_eq!(bounds.partition_point(|&b| b <= 2_999), 1);
        assert_eq!(
            bounds.partition_point(|&b| b <= 20_000_000_000),
            bounds.len()
        );
    }
}

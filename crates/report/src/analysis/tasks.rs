//! Tasks: how many each construct created and ran, how long they took (a
//! histogram of each task's duration when a trace was written), and which
//! task constructs created which.

use super::spread::{Ranks, Spread, Tally};
use crate::join::Catalog;
use crate::load::Run;
use serde::Serialize;
use std::collections::BTreeMap;

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

/// One task construct as far as the profiles read so far have it.
#[derive(Debug, Default)]
struct ConstructTally {
    created: Tally,
    executed: Tally,
    inclusive: Tally,
    throttled: bool,
}

/// Tasks, gathered profile by profile.
#[derive(Debug, Default)]
pub struct TaskTallies {
    created: Tally,
    executed: Tally,
    constructs: BTreeMap<usize, ConstructTally>,
    relations: BTreeMap<(Option<usize>, usize), Tally>,
    /// Per construct, tasks per bucket of [`bounds`].
    durations: BTreeMap<Option<usize>, Vec<u64>>,
}

impl TaskTallies {
    /// Adds `run`, the catalog's profile `index`, at place `at`.
    pub fn add(&mut self, at: u32, run: &Run, index: usize, catalog: &Catalog) {
        let tasks = &run.profile.tasks;
        self.created.add(at, tasks.created);
        self.executed.add(at, tasks.executed);
        for construct in &tasks.per_region {
            if let Some(region) = catalog.find(index, Some(construct.region)) {
                let tally = self.constructs.entry(region).or_default();
                tally.created.add(at, construct.created);
                tally.executed.add(at, construct.executed);
                tally.inclusive.add(at, construct.inclusive_ns);
            }
        }
        let mut relations: BTreeMap<(Option<usize>, usize), u64> = BTreeMap::new();
        for relation in &tasks.relations {
            let Some(child) = catalog.find(index, Some(relation.child_region)) else {
                continue;
            };
            let parent = catalog.find(index, relation.parent_region);
            *relations.entry((parent, child)).or_default() += relation.count;
        }
        for (key, count) in relations {
            self.relations.entry(key).or_default().add(at, count);
        }
        for summary in &run.profile.region_summary {
            if summary.kind.is_task() && summary.throttled_threads > 0 {
                if let Some(region) = catalog.find(index, summary.region) {
                    self.constructs.entry(region).or_default().throttled = true;
                }
            }
        }
        self.add_durations(run, index, catalog);
    }

    /// Each task's duration, from the trace when the profile has one.
    fn add_durations(&mut self, run: &Run, index: usize, catalog: &Catalog) {
        let Some(trace) = &run.trace else { return };
        let bounds = bounds();
        for span in trace.threads.values().flatten() {
            if !span.kind.is_task() {
                continue;
            }
            let region = catalog.find(index, (span.region != 0).then_some(span.region));
            let bucket = bounds.partition_point(|&bound| bound <= span.duration);
            self.durations
                .entry(region)
                .or_insert_with(|| vec![0; bounds.len() + 1])[bucket] += 1;
        }
    }

    pub fn finish(self, ranks: &Ranks, catalog: &Catalog) -> Tasks {
        let mut constructs: Vec<TaskConstruct> = (self.constructs.into_iter())
            .filter(|(_, tally)| tally.created.count() + tally.executed.count() > 0)
            .map(|(region, tally)| TaskConstruct {
                region,
                label: catalog.regions[region].label.clone(),
                created: tally.created.over_profiles(ranks),
                executed: tally.executed.over_profiles(ranks),
                inclusive_ns: tally.inclusive.over_profiles(ranks),
                mean_ns: tally.inclusive.total() / tally.executed.total().max(1),
                throttled: tally.throttled,
            })
            .collect();
        constructs.sort_by_key(|c| std::cmp::Reverse(c.inclusive_ns.mean));
        let label = |region: usize| catalog.regions[region].label.clone();
        Tasks {
            created: self.created.over_profiles(ranks),
            executed: self.executed.over_profiles(ranks),
            constructs,
            relations: (self.relations.into_iter())
                .map(|((parent, child), count)| TaskRelation {
                    parent,
                    parent_label: parent.map_or("implicit task".to_string(), label),
                    child,
                    child_label: label(child),
                    count: count.over_profiles(ranks),
                })
                .collect(),
            histogram: histograms(self.durations, catalog),
        }
    }
}

/// The durations of each construct's tasks as buckets, from the first to
/// the last holding a task.
fn histograms(durations: BTreeMap<Option<usize>, Vec<u64>>, catalog: &Catalog) -> Vec<Histogram> {
    let bounds = bounds();
    durations
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

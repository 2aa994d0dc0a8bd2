//! The profile document, built from every thread's frozen state.

use crate::regions::NO_REGION;
use crate::state::{NodeIndex, ThreadState, ROOT};
use crate::thread::ThreadData;
use pomp2::ctc::{keys, Parsed};
use pomp2::profile::{
    Breakdown, Kind, Mpi, MpiTotals, Node, Profile, Region, RegionId, RegionSummary, TaskRegion,
    TaskRelation, Tasks, Thread, ThreadTotals, Throttling, TraceSummary, FORMAT, VERSION,
};
use std::collections::BTreeMap;

/// What the writer knows besides the threads' states.
pub struct Run<'a> {
    pub pid: u32,
    pub wall_ns: u64,
    pub incomplete_threads: Vec<u32>,
    pub throttling: Throttling,
    pub trace: Option<TraceSummary>,
    pub states: &'a [(&'a ThreadData, &'a ThreadState)],
    pub identity: &'a super::identity::Identity,
}

fn region_ref(id: RegionId) -> Option<RegionId> {
    (id != NO_REGION).then_some(id)
}

/// The region table's entries, region `id` at index `id - 1`.
pub fn regions(table: &[Parsed]) -> Vec<Region> {
    table
        .iter()
        .enumerate()
        .map(|(index, Parsed { context, malformed })| {
            let id = index as RegionId + 1;
            if context.region_type == pomp2::mpi::REGION_TYPE {
                return pomp2::profile::mpi_region(id, context.name().unwrap_or_default());
            }
            let region_type = match context.construct() {
                "" => "unknown".to_string(),
                construct => construct.to_string(),
            };
            let mut label_context = context.clone();
            label_context.pomp_type = Some(region_type.clone());
            Region {
                id,
                region_type,
                file: context.start.as_ref().map(|s| s.file.clone()),
                first_line: context.start.as_ref().map(|s| s.first_line),
                last_line: context.start.as_ref().map(|s| s.last_line),
                end_first_line: context.end.as_ref().map(|s| s.first_line),
                end_last_line: context.end.as_ref().map(|s| s.last_line),
                name: context.name().map(str::to_string),
                unit: context.unit.clone(),
                code_kind: context.code_kind,
                label: label_context.label(),
                idf_id: context.pomp_id.clone(),
                implicit_barrier: context.implicit_barrier.into(),
                attributes: context
                    .attributes
                    .iter()
                    .filter(|(key, _)| key != keys::CRITICAL_NAME && key != keys::USER_REGION_NAME)
                    .cloned()
                    .collect(),
                malformed_ctc: *malformed,
            }
        })
        .collect()
}

pub fn build(run: Run, regions: Vec<Region>) -> Profile {
    let mut breakdown = Breakdown::default();
    let mut mpi_totals = MpiTotals::default();
    for (_, state) in run.states {
        breakdown.add(&state.breakdown);
        if let Some(totals) = &state.mpi.totals {
            mpi_totals.add(totals);
        }
    }
    let identity = run.identity;
    Profile {
        format: FORMAT.to_string(),
        version: VERSION,
        pid: run.pid,
        rank: identity.rank.clone(),
        experiment: identity.experiment.clone(),
        ranks: identity.ranks,
        host: Some(identity.host.clone()),
        opari2_version: crate::opari2_version(),
        declared_regions: crate::declared_region_count() as u64,
        unregistered_regions: crate::regions::unregistered(),
        unregistered_events_lost: crate::regions::lost_events(),
        wall_ns: run.wall_ns,
        thread_count: run.states.len() as u64,
        incomplete_threads: run.incomplete_threads,
        throttling: run.throttling,
        regions,
        breakdown,
        region_summary: region_summary(run.states),
        tasks: tasks(run.states),
        threads: run.states.iter().map(|(d, s)| thread(d, s)).collect(),
        trace: run.trace,
        mpi: crate::mpi::world::member().map(|member| Mpi {
            library: member.library.clone(),
            thread_level_requested: member.requested,
            thread_level_provided: member.provided,
            totals: mpi_totals,
        }),
        clock: Some(identity.clock.clone()),
    }
}

fn thread(data: &ThreadData, state: &ThreadState) -> Thread {
    let measured_ns = state.tree.nodes[ROOT as usize].children_ns;
    let waiting_ns = state.breakdown.waiting_ns();
    Thread {
        thread: data.index,
        os_tid: data.os_tid,
        events: state.events,
        unmatched_ends: state.unmatched_ends,
        frames_beyond_depth_limit: (state.tree.nodes.iter())
            .filter(|node| node.is_folded())
            .map(|node| node.visits)
            .sum(),
        barriers_not_inferred: state.barriers_not_inferred,
        totals: ThreadTotals {
            measured_ns,
            waiting_ns,
            work_ns: measured_ns.saturating_sub(waiting_ns),
        },
        breakdown: state.breakdown,
        mpi: state.mpi.totals,
        tree: tree(state),
    }
}

/// The thread's call-path tree, children in the order they were first
/// entered.
fn tree(state: &ThreadState) -> Node {
    let mut children: Vec<Vec<NodeIndex>> = vec![Vec::new(); state.tree.nodes.len()];
    for (index, node) in state.tree.nodes.iter().enumerate().skip(1) {
        children[node.parent as usize].push(index as NodeIndex);
    }
    fn build(state: &ThreadState, children: &[Vec<NodeIndex>], index: NodeIndex) -> Node {
        let node = &state.tree.nodes[index as usize];
        let (inclusive_ns, exclusive_ns) = if index == ROOT {
            (node.children_ns, 0)
        } else {
            (node.inclusive_ns, node.exclusive_ns())
        };
        let (bytes_sent, bytes_received) = state.mpi.bytes_of(index);
        Node {
            region: region_ref(node.region),
            kind: node.kind,
            visits: node.visits,
            inclusive_ns,
            exclusive_ns,
            wait_ns: node.wait_ns,
            throttled: node.throttled.map(|t| pomp2::profile::Throttled {
                at_visit: t.at_visit,
                measured_ns: t.measured_ns,
                timed_alone_ns: t.timed_alone_ns,
            }),
            fork_ns: node.fork_ns,
            join_ns: node.join_ns,
            folded: node.is_folded(),
            bytes_sent,
            bytes_received,
            children: children[index as usize]
                .iter()
                .map(|&child| build(state, children, child))
                .collect(),
        }
    }
    build(state, &children, ROOT)
}

/// Per (region, kind) totals over all threads, with the spread between
/// threads that load-imbalance analysis needs.
#[derive(Default)]
struct Totals {
    visits: u64,
    inclusive_ns: u64,
    exclusive_ns: u64,
    per_thread_inclusive: BTreeMap<u32, u64>,
    throttled_on: std::collections::BTreeSet<u32>,
}

fn totals(states: &[(&ThreadData, &ThreadState)]) -> BTreeMap<(RegionId, Kind), Totals> {
    let mut totals: BTreeMap<(RegionId, Kind), Totals> = BTreeMap::new();
    for (data, state) in states {
        for node in state.tree.nodes.iter().skip(1) {
            let entry = totals.entry((node.region, node.kind)).or_default();
            entry.visits += node.visits;
            entry.inclusive_ns += node.inclusive_ns;
            entry.exclusive_ns += node.exclusive_ns();
            *entry.per_thread_inclusive.entry(data.index).or_default() += node.inclusive_ns;
            if node.throttled.is_some() {
                entry.throttled_on.insert(data.index);
            }
        }
    }
    totals
}

fn region_summary(states: &[(&ThreadData, &ThreadState)]) -> Vec<RegionSummary> {
    let mut summary: Vec<RegionSummary> = totals(states)
        .into_iter()
        .map(|((region, kind), t)| {
            let per_thread: Vec<u64> = t.per_thread_inclusive.values().copied().collect();
            let threads = per_thread.len() as u64;
            RegionSummary {
                region: region_ref(region),
                kind,
                visits: t.visits,
                inclusive_ns: t.inclusive_ns,
                exclusive_ns: t.exclusive_ns,
                threads,
                min_thread_inclusive_ns: per_thread.iter().copied().min().unwrap_or(0),
                max_thread_inclusive_ns: per_thread.iter().copied().max().unwrap_or(0),
                mean_thread_inclusive_ns: t.inclusive_ns / threads.max(1),
                throttled_threads: t.throttled_on.len() as u64,
            }
        })
        .collect();
    summary.sort_by_key(|s| std::cmp::Reverse(s.inclusive_ns));
    summary
}

fn tasks(states: &[(&ThreadData, &ThreadState)]) -> Tasks {
    let mut relations: BTreeMap<(RegionId, RegionId), u64> = BTreeMap::new();
    let mut created = 0;
    for (_, state) in states {
        created += state.tasks.created;
        for relation in &state.tasks.relations {
            *relations
                .entry((relation.parent_region, relation.child_region))
                .or_default() += relation.count;
        }
    }
    let mut created_per_region: BTreeMap<RegionId, u64> = BTreeMap::new();
    for ((_, child), count) in &relations {
        *created_per_region.entry(*child).or_default() += count;
    }
    let mut executed: BTreeMap<RegionId, (u64, u64, u64)> = BTreeMap::new();
    for (_, state) in states {
        for node in state.tree.nodes.iter().filter(|n| n.kind.is_task()) {
            let entry = executed.entry(node.region).or_default();
            entry.0 += node.visits;
            entry.1 += node.inclusive_ns;
            entry.2 += node.exclusive_ns();
        }
    }
    for region in created_per_region.keys() {
        executed.entry(*region).or_default();
    }
    Tasks {
        created,
        executed: executed.values().map(|t| t.0).sum(),
        per_region: executed
            .iter()
            .map(
                |(&region, &(visits, inclusive_ns, exclusive_ns))| TaskRegion {
                    region,
                    created: created_per_region.get(&region).copied().unwrap_or(0),
                    executed: visits,
                    inclusive_ns,
                    exclusive_ns,
                    mean_ns: inclusive_ns / visits.max(1),
                },
            )
            .collect(),
        relations: relations
            .into_iter()
            .map(|((parent, child), count)| TaskRelation {
                parent_region: region_ref(parent),
                child_region: child,
                count,
            })
            .collect(),
    }
}

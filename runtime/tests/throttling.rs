//! Throttling on a program of tiny tasks and a sleeping user region:
//! visits stay exact, the tree stays consistent, only cheap nodes stop
//! being timed, and they stop at the visit the rule names.

mod common;

use common::*;
use pomp2::profile::{Kind, Node, Profile, RegionId};

const THREADS: u64 = 2;
const TASKS_PER_THREAD: u64 = 3000;
const NAPS_PER_THREAD: u64 = 1500;
const NUMCALLS: u64 = 1000;

fn region(profile: &Profile, region_type: &str) -> RegionId {
    profile
        .regions
        .iter()
        .find(|r| r.region_type == region_type)
        .unwrap_or_else(|| panic!("no {region_type} region"))
        .id
}

/// Every node of `kind` for `region` in every thread, with its thread.
fn nodes(profile: &Profile, region: RegionId, kind: Kind) -> Vec<(u32, &Node)> {
    fn walk<'a>(node: &'a Node, found: &mut Vec<&'a Node>) {
        found.push(node);
        for child in &node.children {
            walk(child, found);
        }
    }
    let mut all = Vec::new();
    for thread in &profile.threads {
        let mut found = Vec::new();
        walk(&thread.tree, &mut found);
        all.extend(
            found
                .into_iter()
                .filter(|n| n.region == Some(region) && n.kind == kind)
                .map(|n| (thread.thread, n)),
        );
    }
    all
}

fn total_visits(profile: &Profile, region: RegionId, kind: Kind) -> u64 {
    nodes(profile, region, kind)
        .iter()
        .map(|(_, n)| n.visits)
        .sum()
}

fn assert_consistent(node: &Node) {
    let children: u64 = node.children.iter().map(|c| c.inclusive_ns).sum();
    if node.kind != Kind::Thread {
        assert!(node.inclusive_ns >= children, "children exceed {node:?}");
        // Each figure is converted from clock ticks on its own, so sums may
        // differ by a nanosecond per term.
        let rounding = node.children.len() as u64 + 1;
        assert!(
            node.exclusive_ns.abs_diff(node.inclusive_ns - children) <= rounding,
            "{node:?}"
        );
    }
    for child in &node.children {
        assert_consistent(child);
    }
}

fn run_throttle(env: &[(&str, &str)]) -> (Run, Profile) {
    let exe = build("throttle");
    let tasks = TASKS_PER_THREAD.to_string();
    let naps = NAPS_PER_THREAD.to_string();
    let run = run_ok(&exe, THREADS as usize, &[&tasks, &naps], env);
    assert_eq!(run.printed("counter") as u64, THREADS * TASKS_PER_THREAD);
    assert_eq!(run.printed("naps") as u64, THREADS * NAPS_PER_THREAD);
    let profile = run.typed_profile();
    (run, profile)
}

fn timed_trace_events(run: &Run, kind: Kind) -> Vec<u32> {
    let trace = pomp2::trace::read(&run.traces()[0]).unwrap();
    trace
        .threads
        .iter()
        .flat_map(|(&thread, spans)| {
            spans
                .iter()
                .filter(move |span| span.kind == kind)
                .map(move |_| thread)
        })
        .collect()
}

#[test]
fn throttled_regions_keep_exact_visits_and_a_consistent_tree() {
    let numcalls = NUMCALLS.to_string();
    let (run, profile) =
        run_throttle(&[("POMP_THROTTLE_NUMCALLS", &numcalls), ("POMP_TRACE", "1")]);
    assert!(profile.throttling.enabled);
    assert_eq!(profile.throttling.numcalls, NUMCALLS);
    assert_eq!(profile.throttling.percall_ns, 10_000);
    let task = region(&profile, "task");
    let atomic = region(&profile, "atomic");
    let nap = region(&profile, "region");

    let created = THREADS * TASKS_PER_THREAD;
    assert_eq!(total_visits(&profile, task, Kind::TaskCreate), created);
    assert_eq!(total_visits(&profile, task, Kind::Task), created);
    assert_eq!(total_visits(&profile, atomic, Kind::Atomic), created);
    assert_eq!(
        total_visits(&profile, nap, Kind::UserRegion),
        THREADS * NAPS_PER_THREAD
    );
    assert_eq!(profile.tasks.created, created);
    assert_eq!(profile.tasks.executed, created);

    // Each thread creates its own tasks: creation is throttled on every
    // thread at the rule's visit, and only that many were timed (traced).
    let creations = nodes(&profile, task, Kind::TaskCreate);
    assert_eq!(creations.len() as u64, THREADS);
    for (thread, node) in &creations {
        let throttled = node
            .throttled
            .unwrap_or_else(|| panic!("task creation not throttled on thread {thread}"));
        assert_eq!(throttled.at_visit, NUMCALLS);
        assert!(node.inclusive_ns >= throttled.measured_ns);
        assert!(throttled.measured_ns > 0);
    }
    let traced = timed_trace_events(&run, Kind::TaskCreate);
    for thread in 0..THREADS as u32 {
        let count = traced.iter().filter(|&&tid| tid == thread).count() as u64;
        assert_eq!(count, NUMCALLS, "timed task creations on thread {thread}");
    }
    // A thread that ran enough task instances throttled them too.
    for (thread, node) in nodes(&profile, task, Kind::Task) {
        if node.visits >= NUMCALLS {
            assert!(node.throttled.is_some(), "tasks timed on thread {thread}");
        }
    }
    // Naps take at least 20 us each: never throttled.
    for (thread, node) in nodes(&profile, nap, Kind::UserRegion) {
        assert_eq!(node.visits, NAPS_PER_THREAD, "thread {thread}");
        assert!(node.throttled.is_none(), "nap throttled on thread {thread}");
        assert!(node.inclusive_ns >= NAPS_PER_THREAD * 20_000);
    }
    for thread in &profile.threads {
        assert_consistent(&thread.tree);
        assert_eq!(thread.unmatched_ends, 0);
    }
    let summary = profile
        .region_summary
        .iter()
        .find(|s| s.region == Some(task) && s.kind == Kind::TaskCreate)
        .unwrap();
    assert_eq!(summary.throttled_threads, THREADS);

    let stderr = run.stderr();
    assert!(
        stderr.contains(&format!("throttled after {NUMCALLS} visits")),
        "{stderr}"
    );
    assert!(
        stderr.contains("task create of task in main (throttle.c:34) on 2 threads from visit 1000"),
        "{stderr}"
    );
}

#[test]
fn without_throttling_every_visit_is_timed() {
    let numcalls = NUMCALLS.to_string();
    let (run, profile) = run_throttle(&[
        ("POMP_THROTTLE", "0"),
        ("POMP_THROTTLE_NUMCALLS", &numcalls),
        ("POMP_TRACE", "1"),
    ]);
    assert!(!profile.throttling.enabled);
    let task = region(&profile, "task");
    for thread in &profile.threads {
        assert_consistent(&thread.tree);
    }
    for kind in [Kind::TaskCreate, Kind::Task] {
        for (thread, node) in nodes(&profile, task, kind) {
            assert!(
                node.throttled.is_none(),
                "{kind:?} throttled on thread {thread}"
            );
        }
    }
    let traced = timed_trace_events(&run, Kind::TaskCreate);
    assert_eq!(traced.len() as u64, THREADS * TASKS_PER_THREAD);
    assert!(!run.stderr().contains("throttled"), "{}", run.stderr());
}

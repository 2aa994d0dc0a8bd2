//! Parallel regions whose closing barrier stays implicit: the waiting the
//! runtime infers from the team's `Parallel_end` times and the join matches
//! what an explicit barrier measures in the same program.

mod common;

use common::*;
use pomp2::profile::{ImplicitBarrier, Kind, Node, Profile, RegionId};
use pomp2::trace::Trace;
use std::collections::BTreeMap;

const REPS: u64 = 9;
const ITERATIONS: u64 = 20;
const UNIT_NS: u64 = 1_000_000;

fn region(profile: &Profile, unit: &str) -> RegionId {
    profile
        .regions
        .iter()
        .find(|r| r.unit.as_deref() == Some(unit))
        .unwrap_or_else(|| panic!("no region in {unit}"))
        .id
}

/// Per thread: visits and time of `region`'s implicit-barrier nodes,
/// wherever they are in the tree.
fn barrier_per_thread(profile: &Profile, region: RegionId) -> BTreeMap<u32, (u64, u64)> {
    fn walk(node: &Node, region: RegionId, sum: &mut (u64, u64)) {
        if node.region == Some(region) && node.kind == Kind::ImplicitBarrier {
            sum.0 += node.visits;
            sum.1 += node.inclusive_ns;
        }
        for child in &node.children {
            walk(child, region, sum);
        }
    }
    profile
        .threads
        .iter()
        .map(|thread| {
            let mut sum = (0, 0);
            walk(&thread.tree, region, &mut sum);
            (thread.thread, sum)
        })
        .collect()
}

/// The median of `region`'s implicit-barrier waits on `thread`, from the
/// trace: one instance the machine delayed does not move it.
fn median_wait_ns(trace: &Trace, region: RegionId, thread: u32) -> u64 {
    let mut waits: Vec<u64> = trace.threads[&thread]
        .iter()
        .filter(|span| span.kind == Kind::ImplicitBarrier && span.region == region)
        .map(|span| span.duration)
        .collect();
    assert_eq!(waits.len() as u64, REPS, "region {region}, thread {thread}");
    waits.sort_unstable();
    waits[waits.len() / 2]
}

fn assert_consistent(node: &Node) {
    let children: u64 = node.children.iter().map(|c| c.inclusive_ns).sum();
    if node.kind != Kind::Thread {
        assert!(node.inclusive_ns >= children, "children exceed {node:?}");
    }
    node.children.iter().for_each(assert_consistent);
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

fn run_imbalance() -> (Run, Profile, Trace) {
    let exe = build("imbalance");
    let unit = format!("{}e-9", UNIT_NS);
    let run = run_ok(
        &exe,
        2,
        &[&REPS.to_string(), &ITERATIONS.to_string(), &unit],
        &[("POMP_TRACE", "1")],
    );
    let profile = run.typed_profile();
    let trace = pomp2::trace::read(&run.traces()[0]).unwrap();
    (run, profile, trace)
}

/// The inferred waiting is what the threads' own notes of their arrivals
/// say, the latest arrival releasing the team.
#[test]
fn inferred_waiting_is_the_wait_for_the_last_arrival() {
    let (run, profile, _) = run_imbalance();
    for (unit, noted) in [
        ("loop_inferred", "loop_waited"),
        ("threads_inferred", "threads_waited"),
    ] {
        let inferred = barrier_per_thread(&profile, region(&profile, unit));
        for thread in [0, 1] {
            let (visits, inferred_ns) = inferred[&thread];
            assert_eq!(visits, REPS, "one inferred barrier per visit");
            let noted_ns = run.printed(&format!("{noted}_{thread}")) as u64;
            // The runtime reads its clock a little after the note, and
            // converts its ticks to nanoseconds at a measured rate.
            let tolerance = noted_ns / 50 + REPS * 100_000;
            assert!(
                inferred_ns.abs_diff(noted_ns) <= tolerance,
                "{unit}, thread {thread}: inferred {:.3} ms, noted {:.3} ms",
                ms(inferred_ns),
                ms(noted_ns)
            );
        }
        let entry = &profile.regions[region(&profile, unit) as usize - 1];
        assert_eq!(entry.implicit_barrier, ImplicitBarrier::Inferred);
    }
    for thread in &profile.threads {
        assert_eq!(thread.barriers_not_inferred, 0, "thread {}", thread.thread);
        assert_eq!(thread.unmatched_ends, 0);
        assert_consistent(&thread.tree);
    }
    let barrier_total: u64 = [
        "loop_explicit",
        "threads_explicit",
        "loop_inferred",
        "threads_inferred",
    ]
    .iter()
    .flat_map(|unit| barrier_per_thread(&profile, region(&profile, unit)).into_values())
    .map(|(_, ns)| ns)
    .sum();
    assert!(
        profile
            .breakdown
            .implicit_barrier_ns
            .abs_diff(barrier_total)
            <= 1_000,
        "the breakdown counts inferred waiting too"
    );
}

/// On the imbalanced loop, the inferred waiting matches the explicit
/// barrier's measurement. Compared are the medians over the repetitions,
/// so that an instance the machine delayed does not decide; the tolerance
/// is a fifth of the imbalance: an explicit barrier also counts how long the
/// waiting thread takes to run again after the release, which inference
/// leaves out and which reaches milliseconds on a loaded machine.
#[test]
fn inferred_waiting_matches_the_explicit_measurement() {
    let (_, profile, trace) = run_imbalance();
    // Static schedule, iteration i costing i units: thread 0 gets
    // iterations 0..10 (45 units), thread 1 10..20 (145 units).
    let half = ITERATIONS / 2;
    let gap = ((half..ITERATIONS).sum::<u64>() - (0..half).sum::<u64>()) * UNIT_NS;
    let tolerance = gap / 5 + 1_000_000;
    let explicit_region = region(&profile, "loop_explicit");
    let inferred_region = region(&profile, "loop_inferred");
    let explicit_wait = median_wait_ns(&trace, explicit_region, 0);
    let inferred_wait = median_wait_ns(&trace, inferred_region, 0);
    assert!(
        inferred_wait.abs_diff(explicit_wait) <= tolerance,
        "thread 0 waits {:.3} ms inferred, {:.3} ms explicit",
        ms(inferred_wait),
        ms(explicit_wait)
    );
    assert!(
        inferred_wait.abs_diff(gap) <= tolerance,
        "thread 0 waits {:.3} ms, its work is {:.3} ms shorter",
        ms(inferred_wait),
        ms(gap)
    );
    // The thread with more work hardly waits, in both forms.
    for region in [explicit_region, inferred_region] {
        let wait = median_wait_ns(&trace, region, 1);
        assert!(
            wait < tolerance,
            "region {region}: thread 1 waits {wait} ns"
        );
    }
    let explicit = barrier_per_thread(&profile, explicit_region);
    assert_eq!(explicit[&0].0, REPS);
}

#[test]
fn regions_are_named_by_construct_unit_and_place() {
    let exe = build("imbalance");
    let run = run_ok(&exe, 2, &["1", "4", "20e-6"], &[]);
    let profile = run.typed_profile();
    let loop_region = &profile.regions[region(&profile, "loop_inferred") as usize - 1];
    assert_eq!(
        loop_region.label,
        "parallel for in loop_inferred (imbalance.c:58)"
    );
    assert_eq!(loop_region.unit.as_deref(), Some("loop_inferred"));
    // Every row of the summary's table names a region of the program.
    let stderr = run.stderr();
    let rows: Vec<&str> = stderr
        .lines()
        .skip_while(|line| !line.contains("inclusive(all threads)"))
        .skip(1)
        .take_while(|line| !line.contains("waiting:"))
        .collect();
    assert_eq!(rows.len(), 5, "{stderr}");
    for row in rows {
        let named = [
            "loop_explicit",
            "loop_inferred",
            "threads_explicit",
            "threads_inferred",
        ]
        .iter()
        .any(|unit| row.contains(&format!(" in {unit} (imbalance.c:")));
        assert!(named, "summary row without a region name: {row}");
    }
}

#[test]
fn larger_teams_infer_every_barrier() {
    let exe = build("imbalance");
    let run = run_ok(&exe, 4, &["3", "8", "20e-6"], &[]);
    let profile = run.typed_profile();
    assert_eq!(profile.thread_count, 4);
    for unit in ["loop_inferred", "threads_inferred"] {
        let inferred = barrier_per_thread(&profile, region(&profile, unit));
        for (thread, (visits, _)) in inferred {
            assert_eq!(visits, 3, "{unit}, thread {thread}");
        }
    }
    for thread in &profile.threads {
        assert_eq!(thread.barriers_not_inferred, 0, "thread {}", thread.thread);
        assert_consistent(&thread.tree);
    }
}

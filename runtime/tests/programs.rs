//! Hand-instrumented OpenMP programs built with gcc/gfortran -fopenmp
//! against the static library; their profiles are checked against what the
//! programs did.

mod common;
#[path = "../../tests/support/toolchains.rs"]
mod toolchains;

use common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn check_times_are_consistent(profile: &Value) {
    for_each_node(profile, |thread, _, node| {
        let inclusive = node["inclusive_ns"].as_u64().unwrap();
        let exclusive = node["exclusive_ns"].as_u64().unwrap();
        assert!(inclusive >= exclusive, "thread {thread}: {node}");
        let children: u64 = node["children"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["inclusive_ns"].as_u64().unwrap())
            .sum();
        if node["kind"] != "thread" {
            assert!(inclusive >= children, "children exceed parent: {node}");
            // A node with no visits is on the path a worker's team was
            // forked from: its time is what the worker ran below it.
            if node["visits"] == 0 {
                assert_eq!((inclusive, exclusive), (children, 0), "{node}");
            }
        }
    });
}

fn basic_with(threads: usize) {
    basic_built(build("basic"), threads);
}

fn basic_built(exe: PathBuf, threads: usize) {
    const REPS: u64 = 3;
    let run = run_ok(&exe, threads, &["3"], &[]);
    let profile = run.profile();
    let t = threads as u64;
    assert_eq!(run.printed("init_regions_calls"), 1);
    assert_eq!(run.printed("team"), threads as i64);
    assert_eq!(profile["thread_count"], t);
    assert_eq!(profile["declared_regions"], 8);
    assert_eq!(profile["opari2_version"], "pomp-test-1");

    let user = region_id(&profile, "region", 40);
    let par = region_id(&profile, "parallel", 42);
    let for_ = region_id(&profile, "for", 45);
    let crit = region_id(&profile, "critical", 50);
    let single = region_id(&profile, "single", 60);
    let master = region_id(&profile, "master", 70);
    let barrier = region_id(&profile, "barrier", 75);
    let atomic = region_id(&profile, "atomic", 55);

    let region = &profile["regions"][(for_ - 1) as usize];
    assert_eq!(region["idf_id"], "basic.c#3");
    assert_eq!(region["attributes"]["scheduleType"], "static");
    assert_eq!(region["end_last_line"], 46);
    assert_eq!(profile["regions"][(crit - 1) as usize]["name"], "io");
    assert_eq!(profile["regions"][(user - 1) as usize]["name"], "main_loop");

    assert_eq!(visits(&profile, Some(user), "region"), 1);
    assert_eq!(visits(&profile, Some(par), "parallel"), REPS * t);
    assert_eq!(visits(&profile, Some(for_), "for"), REPS * t);
    assert_eq!(visits(&profile, Some(for_), "implicit_barrier"), REPS * t);
    assert_eq!(visits(&profile, Some(par), "implicit_barrier"), REPS * t);
    assert_eq!(visits(&profile, Some(crit), "critical"), REPS * t);
    assert_eq!(visits(&profile, Some(atomic), "atomic"), REPS * t);
    assert_eq!(visits(&profile, Some(single), "single"), REPS * t);
    assert_eq!(visits(&profile, Some(single), "single_body"), REPS);
    assert_eq!(visits(&profile, Some(master), "master"), REPS);
    assert_eq!(visits(&profile, Some(barrier), "barrier"), REPS * t);
    assert_eq!(visits(&profile, None, "set_lock"), REPS * t);

    // Every thread's path: user region > parallel > for > implicit
    // barrier; the workers' under the master's user region, which they
    // never entered themselves.
    let mut found_path = std::collections::BTreeSet::new();
    for_each_node(&profile, |thread, parent, node| {
        if node["kind"] == "implicit_barrier" && node["region"] == for_ {
            assert_eq!(parent.unwrap()["kind"], "for");
        }
        if node["kind"] == "parallel" {
            if let Some(parent) = parent {
                if parent["kind"] == "region" && parent["region"] == user {
                    assert_eq!(node["visits"], REPS);
                    found_path.insert(thread);
                }
            }
        }
    });
    assert_eq!(
        found_path.len(),
        threads,
        "parallel not nested in the user region on every thread"
    );
    check_times_are_consistent(&profile);

    let breakdown = &profile["breakdown"];
    assert!(breakdown["implicit_barrier_ns"].as_u64().unwrap() > 0);
    assert!(breakdown["fork_ns"].as_u64().unwrap() > 0);
    for thread in profile["threads"].as_array().unwrap() {
        assert_eq!(thread["unmatched_ends"], 0, "{thread}");
        let totals = &thread["totals"];
        assert!(totals["measured_ns"].as_u64().unwrap() >= totals["work_ns"].as_u64().unwrap());
    }
    assert!(
        run.stderr().contains("pomp: "),
        "summary missing: {}",
        run.stderr()
    );
}

#[test]
fn basic_program_with_2_threads() {
    basic_with(2);
}

#[test]
fn basic_program_with_4_threads() {
    basic_with(4);
}

#[test]
fn hundreds_of_threads() {
    let exe = build("basic");
    let run = run_ok(&exe, 256, &["2"], &[("POMP_SUMMARY", "0")]);
    let profile = run.profile();
    assert_eq!(profile["thread_count"], 256);
    let par = region_id(&profile, "parallel", 42);
    assert_eq!(visits(&profile, Some(par), "parallel"), 512);
    assert_eq!(visits(&profile, None, "set_lock"), 512);
    assert!(
        run.stderr().is_empty(),
        "POMP_SUMMARY=0 still printed: {}",
        run.stderr()
    );
}

fn tasks_with(threads: usize) {
    tasks_built(build("tasks"), threads);
}

fn tasks_built(exe: PathBuf, threads: usize) {
    let run = run_ok(&exe, threads, &[], &[]);
    assert_eq!(run.printed("done"), 20);
    assert_eq!(
        run.printed("distinct_ids"),
        1,
        "task ids must be unique and non-zero"
    );
    let profile = run.profile();
    let outer = region_id(&profile, "task", 36);
    let inner = region_id(&profile, "task", 40);
    let tasks = &profile["tasks"];
    assert_eq!(tasks["created"], 24);
    assert_eq!(tasks["executed"], 24);
    let relations = tasks["relations"].as_array().unwrap();
    assert!(
        relations.contains(
            &serde_json::json!({"parent_region": null, "child_region": outer, "count": 4})
        ),
        "{relations:?}"
    );
    assert!(
        relations.contains(
            &serde_json::json!({"parent_region": outer, "child_region": inner, "count": 20})
        ),
        "{relations:?}"
    );
    assert_eq!(visits(&profile, Some(inner), "task"), 20);
    assert_eq!(visits(&profile, Some(outer), "task_create"), 4);

    // Task instances are tree nodes of their own, directly below the thread.
    let mut inner_ns = 0;
    for_each_node(&profile, |_, parent, node| {
        if node["kind"] == "task" {
            assert_eq!(
                parent.unwrap()["kind"],
                "thread",
                "task nested in a region: {node}"
            );
            if node["region"] == inner {
                inner_ns += node["inclusive_ns"].as_u64().unwrap();
            }
        }
    });
    // Each inner task sleeps 2 ms.
    assert!(inner_ns >= 20 * 2_000_000, "inner tasks took {inner_ns} ns");
    // Barrier time excludes the tasks executed while waiting in it.
    let barrier_ns = profile["breakdown"]["implicit_barrier_ns"]
        .as_u64()
        .unwrap();
    let par = region_id(&profile, "parallel", 30);
    let parallel_ns: u64 = profile["region_summary"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["region"] == par && s["kind"] == "parallel")
        .map(|s| s["inclusive_ns"].as_u64().unwrap())
        .sum();
    let wall_ns = profile["wall_ns"].as_u64().unwrap();
    assert!(
        parallel_ns + inner_ns <= wall_ns * threads as u64 + 1_000_000,
        "task time counted twice: parallel {parallel_ns} + tasks {inner_ns} > {threads} x wall {wall_ns}"
    );
    assert!(barrier_ns <= parallel_ns);
    check_times_are_consistent(&profile);
}

#[test]
fn tasks_with_2_threads() {
    tasks_with(2);
}

#[test]
fn tasks_with_4_threads() {
    tasks_with(4);
}

#[test]
fn nested_parallel_regions() {
    nested_built(build("nested"));
}

fn nested_built(exe: PathBuf) {
    let run = run_ok(&exe, 2, &[], &[]);
    assert_eq!(run.printed("level_sum"), 16);
    let profile = run.profile();
    let outer = region_id(&profile, "parallelfor", 20);
    let inner = region_id(&profile, "parallel", 25);
    assert_eq!(visits(&profile, Some(outer), "parallel"), 2);
    assert_eq!(visits(&profile, Some(outer), "for"), 2);
    // 4 iterations, each forks a team of 2.
    assert_eq!(visits(&profile, Some(inner), "parallel"), 8);
    let mut nested_under_for = 0;
    for_each_node(&profile, |_, parent, node| {
        if node["kind"] == "parallel" && node["region"] == inner {
            let parent = parent.unwrap();
            if parent["kind"] == "for" && parent["region"] == outer {
                nested_under_for += node["visits"].as_u64().unwrap();
            }
        }
    });
    assert_eq!(
        nested_under_for, 8,
        "inner regions forked by the outer team, on every thread of the inner teams"
    );
    check_times_are_consistent(&profile);
}

/// The runtime under LLVM's libomp, with programs clang compiled: thread
/// numbers, the team size `omp_get_max_threads` gives before a fork,
/// nested teams and tasks are measured as under libgomp.
#[test]
fn under_libomp_threads_nested_teams_and_tasks_are_measured_alike() {
    let Some(clang) = toolchains::Toolchain::clang_unless_required() else {
        return;
    };
    let libomp = |name: &str| {
        let exe = build_with(&clang.c, name);
        let linked = std::process::Command::new("ldd")
            .arg(&exe)
            .output()
            .unwrap();
        let libraries = String::from_utf8_lossy(&linked.stdout).into_owned();
        assert!(
            libraries.contains("libomp") && !libraries.contains("libgomp"),
            "{name} built by {} links {libraries}",
            clang.c
        );
        exe
    };
    basic_built(libomp("basic"), 2);
    basic_built(libomp("basic"), 4);
    tasks_built(libomp("tasks"), 3);
    nested_built(libomp("nested"));
}

#[test]
fn exit_inside_parallel_region_still_writes_profile() {
    let exe = build("exit_in_parallel");
    let run = run(&exe, 4, &[], &[]);
    assert_eq!(run.output.status.code(), Some(3));
    let profile = run.profile();
    let atomic = region_id(&profile, "atomic", 30);
    assert!(visits(&profile, Some(atomic), "atomic") > 20_000);
    assert_eq!(profile["incomplete_threads"].as_array().unwrap().len(), 0);
}

#[test]
fn a_run_that_only_initialises_locks_leaves_a_profile() {
    let exe = build("locks_only");
    let run = run_ok(&exe, 2, &[], &[]);
    assert_eq!(run.printed("done"), 1);
    let profile = run.profile();
    let parallel = region_id(&profile, "parallel", 20);
    assert_eq!(visits(&profile, Some(parallel), "parallel"), 0);
}

#[test]
fn fork_child_writes_its_own_profile_only() {
    let exe = build("fork");
    let run = run_ok(&exe, 2, &[], &[]);
    let parent = run.printed("parent");
    let child = run.printed("child");
    assert_eq!(run.printed("child_status"), 0);
    // The child writes into its parent's experiment, under its pid.
    let experiment = run.experiment();
    let parent_profile = profile_json(&experiment.directory.join("profile.0.json"));
    let child_profile = profile_json(&experiment.directory.join(format!("profile.0.{child}.json")));
    assert_eq!(run.profiles().len(), 2);
    assert_eq!(parent_profile["pid"], parent);
    assert_eq!(
        run.stderr().matches("pomp: experiment").count(),
        1,
        "{}",
        run.stderr()
    );
    let parent_region = region_id(&parent_profile, "region", 40);
    let child_region = region_id(&parent_profile, "region", 45);
    assert_eq!(visits(&parent_profile, Some(parent_region), "region"), 1);
    assert_eq!(visits(&parent_profile, Some(child_region), "region"), 0);
    assert_eq!(visits(&child_profile, Some(child_region), "region"), 1);
    assert_eq!(visits(&child_profile, Some(parent_region), "region"), 0);
    assert_eq!(child_profile["pid"], child);
    assert_eq!(child_profile["thread_count"], 1);
}

#[test]
fn misuse_does_no_harm_and_finalize_writes_once() {
    let exe = build("robust");
    let run = run_ok(&exe, 2, &[], &[("POMP_PROFILE", "written.json")]);
    assert_eq!(run.printed("init_regions_calls"), 1);
    assert_eq!(run.printed("old_task_cleared"), 1);
    assert_eq!(
        run.printed("renamed"),
        1,
        "POMP2_Finalize did not write the profile"
    );
    assert_eq!(run.printed("lazy_assigned"), 1);
    assert!(
        run.files("written").is_empty(),
        "profile written again after finalize"
    );
    let profile = profile_json(&run.dir.path().join("finalized.json"));
    let for_ = region_id(&profile, "for", 10);
    // Once before POMP2_Off; neither the event while off nor after finalize.
    assert_eq!(visits(&profile, Some(for_), "for"), 1);
    let garbled = &profile["regions"][1];
    assert_eq!(garbled["malformed_ctc"], true);
    assert_eq!(visits(&profile, Some(2), "critical"), 1);
    let lazy = region_id(&profile, "flush", 20);
    assert_eq!(visits(&profile, Some(lazy), "flush"), 2);
}

#[test]
fn trace_holds_one_span_per_timed_visit() {
    let exe = build("basic");
    let run = run_ok(&exe, 2, &["2"], &[("POMP_TRACE", "1")]);
    let profile = run.profile();
    let traces = run.traces();
    assert_eq!(traces.len(), 1, "{traces:?}");
    assert!(traces[0].to_string_lossy().ends_with(".ptrace"));
    let trace = read_trace(&traces[0]);
    // One span per timed visit, on the thread that made it.
    let mut timed_visits: BTreeMap<u64, u64> = BTreeMap::new();
    for_each_node(&profile, |thread, _, node| {
        if node["kind"] != "thread" {
            *timed_visits.entry(thread).or_default() += node["visits"].as_u64().unwrap();
        }
    });
    let spans: BTreeMap<u64, u64> = trace
        .threads
        .iter()
        .map(|(&thread, spans)| (thread as u64, spans.len() as u64))
        .collect();
    assert_eq!(spans, timed_visits);
    let wall_ns = profile["wall_ns"].as_u64().unwrap();
    for span in trace.threads.values().flatten() {
        assert!(
            span.start + span.duration <= wall_ns + 1_000_000,
            "{span:?}"
        );
    }
    assert_eq!(trace.footer.dropped_events, 0);
    assert_eq!(trace.footer.events, trace.span_count() as u64);
    assert_eq!(profile["trace"]["events"], trace.span_count() as u64);
    assert_eq!(
        trace.footer.regions.len(),
        profile["regions"].as_array().unwrap().len()
    );
}

#[test]
fn a_long_trace_is_written_as_its_buffers_fill() {
    // Each thread's buffer holds a few thousand spans: this run fills it
    // many times, and no leftover temporary file stays behind.
    let exe = build("basic");
    let run = run_ok(&exe, 2, &["4000"], &[("POMP_TRACE", "1")]);
    let traces = run.traces();
    assert_eq!(traces.len(), 1, "{traces:?}");
    let bytes = std::fs::metadata(&traces[0]).unwrap().len();
    let trace = read_trace(&traces[0]);
    let spans = trace.span_count() as u64;
    assert!(bytes > 4 * 64 * 1024, "{bytes} bytes");
    assert!(bytes < spans * 16, "{bytes} bytes for {spans} spans");
    assert_eq!(trace.footer.events, spans);
}

#[test]
fn trace_limit_drops_events_and_says_so() {
    let exe = build("basic");
    let run = run_ok(
        &exe,
        2,
        &["3"],
        &[("POMP_TRACE", "1"), ("POMP_TRACE_LIMIT", "10")],
    );
    let traces = run.traces();
    let trace = read_trace(&traces[0]);
    let kept = trace.span_count();
    assert!(kept <= 10, "{kept} events kept");
    assert!(trace.footer.dropped_events > 0);
    assert!(run.stderr().contains("dropped"), "{}", run.stderr());
    let profile = run.profile();
    assert!(profile["trace"]["dropped_events"].as_u64().unwrap() > 0);
}

#[test]
fn unwritable_profile_path_is_reported_not_fatal() {
    let exe = build("basic");
    for path in [
        "/nonexistent-pomp-dir/profile.json",
        "/proc/pomp-profile.json",
    ] {
        let run = run_ok(
            &exe,
            2,
            &["1"],
            &[("POMP_PROFILE", path), ("POMP_TRACE", "1")],
        );
        assert!(
            run.stderr().contains("cannot write profile"),
            "{path}: {}",
            run.stderr()
        );
        assert!(
            run.stderr().contains("cannot write trace"),
            "{path}: {}",
            run.stderr()
        );
    }
}

#[test]
fn profile_path_and_mpi_rank() {
    let exe = build("basic");
    let run = run_ok(
        &exe,
        2,
        &["1"],
        &[("POMP_PROFILE", "out.json"), ("PMI_RANK", "3")],
    );
    let profile = profile_json(&run.dir.path().join("out.rank3.json"));
    assert_eq!(profile["rank"], "3");
    // A rank other than 0, whose launcher names no job to find rank 0's
    // experiment by, makes one of its own and prints no summary.
    let run = run_ok(&exe, 2, &["1"], &[("SLURM_PROCID", "5")]);
    let files = run.profiles();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].ends_with("profile.5.json"), "{files:?}");
    assert_eq!(profile_json(&files[0])["rank"], "5");
    assert!(
        !run.stderr().contains("pomp: experiment"),
        "{}",
        run.stderr()
    );
}

#[test]
fn fortran_entry_points() {
    let exe = build("ftest");
    let run = run_ok(&exe, 3, &[], &[]);
    assert_eq!(run.printed("max_threads"), 3);
    assert_eq!(run.printed("total"), 5050);
    assert_eq!(run.printed("critical"), 3);
    assert_eq!(run.printed("tasks"), 5);
    assert_eq!(run.printed("locked"), 3);
    let profile = run.profile();
    let par = region_id(&profile, "parallel", 30);
    let do_ = region_id(&profile, "do", 33);
    let crit = region_id(&profile, "critical", 40);
    let task = region_id(&profile, "task", 50);
    assert_eq!(
        profile["regions"][(do_ - 1) as usize]["idf_id"],
        "ftest.f90#2"
    );
    assert_eq!(
        profile["regions"][(do_ - 1) as usize]["malformed_ctc"],
        false
    );
    assert_eq!(visits(&profile, Some(par), "parallel"), 3);
    assert_eq!(visits(&profile, Some(do_), "do"), 3);
    assert_eq!(visits(&profile, Some(do_), "implicit_barrier"), 3);
    assert_eq!(visits(&profile, Some(crit), "critical"), 3);
    assert_eq!(visits(&profile, Some(task), "task"), 5);
    assert_eq!(visits(&profile, None, "set_lock"), 3);
    assert_eq!(profile["tasks"]["created"], 5);
    check_times_are_consistent(&profile);
}

/// Objects instrumented by OPARI2 itself link against the runtime unchanged.
#[test]
fn program_instrumented_by_opari2() {
    let exe = build_from(
        "opari2_workload",
        &["opari2/workload.opari.c", "opari2/workload_init.c"],
        &["opari2/include"],
        &[],
    );
    for threads in [2, 4] {
        let run = run_ok(&exe, threads, &[], &[]);
        let t = threads as u64;
        assert_eq!(run.printed("team"), threads as i64);
        assert_eq!(run.printed("tasks"), 8);
        let profile = run.profile();
        assert_eq!(profile["regions"].as_array().unwrap().len(), 12);
        assert_eq!(profile["opari2_version"], "2.0.7");
        for region in profile["regions"].as_array().unwrap() {
            assert_eq!(region["malformed_ctc"], false, "{region}");
            assert!(region["file"].as_str().unwrap().ends_with("workload.c"));
        }
        let id = |ty: &str, line: u64| Some(region_id(&profile, ty, line));
        assert_eq!(visits(&profile, id("parallel", 12), "parallel"), t);
        assert_eq!(visits(&profile, id("for", 14), "for"), t);
        assert_eq!(visits(&profile, id("critical", 16), "critical"), t);
        assert_eq!(visits(&profile, id("sections", 18), "sections"), t);
        assert_eq!(visits(&profile, id("sections", 18), "section"), 2);
        assert_eq!(visits(&profile, id("single", 31), "single_body"), 1);
        assert_eq!(visits(&profile, id("task", 34), "task"), 8);
        assert_eq!(visits(&profile, id("task", 34), "task_create"), 8);
        assert_eq!(visits(&profile, id("taskwait", 41), "taskwait"), 1);
        assert_eq!(visits(&profile, id("barrier", 46), "barrier"), t);
        assert_eq!(visits(&profile, id("master", 47), "master"), 1);
        assert_eq!(visits(&profile, None, "set_lock"), t);
        let sections = &profile["regions"][(region_id(&profile, "sections", 18) - 1) as usize];
        assert_eq!(sections["attributes"]["numSections"], "2");
        assert_eq!(profile["tasks"]["created"], 8);
        for thread in profile["threads"].as_array().unwrap() {
            assert_eq!(thread["unmatched_ends"], 0);
        }
        check_times_are_consistent(&profile);
    }
}

#[test]
fn threads_that_ended_are_still_in_the_profile() {
    let exe = build("thread_exit");
    let run = run_ok(&exe, 2, &[], &[]);
    assert_eq!(run.printed("joined"), 3);
    let profile = run.profile();
    assert_eq!(profile["thread_count"], 3);
    let work = region_id(&profile, "region", 20);
    assert_eq!(visits(&profile, Some(work), "region"), 30);
    for thread in profile["threads"].as_array().unwrap() {
        assert_eq!(thread["tree"]["children"][0]["visits"], 10);
    }
}

#[test]
fn threads_that_end_leave_the_trace_budget_to_the_others() {
    // Each thread reserves thousands of events at a time; 600 threads in
    // turn, of 20 events each, would have used up a budget of 20,000 with
    // reservations alone.
    let exe = build("thread_exit");
    let run = run_ok(
        &exe,
        2,
        &["200"],
        &[("POMP_TRACE", "1"), ("POMP_TRACE_LIMIT", "20000")],
    );
    assert_eq!(run.printed("joined"), 600);
    assert!(!run.stderr().contains("dropped"), "{}", run.stderr());
    let traces = run.traces();
    let trace = read_trace(&traces[0]);
    assert_eq!(trace.footer.dropped_events, 0);
    assert_eq!(trace.span_count(), 600 * 10);
}

#[test]
fn extended_events_and_cancelled_parallel_regions() {
    let exe = build("extended");
    for threads in [2, 4] {
        let run = run_ok(&exe, threads, &[], &[("OMP_CANCELLATION", "true")]);
        assert_eq!(run.printed("cancellation"), 1);
        assert_eq!(run.printed("scoped"), threads as i64);
        assert_eq!(run.printed("loop_sum"), 4950);
        assert_eq!(run.printed("grouped"), 4);
        assert_eq!(run.printed("looped"), 10);
        assert_eq!(run.printed("distributed"), 4);
        assert_eq!(run.printed("target"), 1);
        let profile = run.profile();
        let t = threads as u64;
        let id = |ty: &str, line: u64| Some(region_id(&profile, ty, line));
        assert_eq!(visits(&profile, id("masked", 2), "masked"), 1);
        assert_eq!(visits(&profile, id("scope", 3), "scope"), t);
        assert_eq!(visits(&profile, id("loop", 4), "loop"), t);
        assert_eq!(visits(&profile, id("taskgroup", 6), "taskgroup"), 1);
        assert_eq!(visits(&profile, id("taskloop", 7), "taskloop"), 1);
        assert_eq!(visits(&profile, id("taskyield", 8), "taskyield"), 1);
        assert_eq!(visits(&profile, id("teams", 9), "teams"), 1);
        assert!(visits(&profile, id("distribute", 10), "distribute") >= 1);
        assert_eq!(visits(&profile, id("target", 11), "target"), 1);
        // Each thread's frame of the cancelled region is closed, either by
        // the join, by the worker's next region, or at exit.
        assert_eq!(visits(&profile, id("parallel", 12), "parallel"), 2 * t);
        assert_eq!(visits(&profile, id("cancel", 13), "cancel"), 2);
        check_times_are_consistent(&profile);
        // Nothing cancelled stays nested under the next region.
        for_each_node(&profile, |_, parent, node| {
            if node["kind"] == "parallel" && node["region"] == region_id(&profile, "parallel", 12) {
                assert_eq!(parent.unwrap()["kind"], "thread", "{node}");
            }
        });
    }
}

#[test]
fn deep_recursion_keeps_the_tree_readable() {
    let exe = build("recursion");
    let run = run_ok(&exe, 1, &["500"], &[]);
    assert_eq!(run.printed("reached"), 500);
    // `profile()` parses with serde_json's default nesting limit.
    let profile = run.profile();
    let fn_region = region_id(&profile, "region", 14);
    let mut depth = 0;
    let mut node = &profile["threads"][0]["tree"];
    while let Some(child) = node["children"].as_array().and_then(|c| c.first()) {
        assert_eq!(child["region"], fn_region);
        depth += 1;
        node = child;
        if depth == 49 {
            break;
        }
        assert_eq!(child["visits"], 1);
        assert!(child.get("folded").is_none(), "{depth}");
    }
    // The 452 calls below the 48th level fold into one node, counted and
    // untimed, their time in the 48th level's.
    assert_eq!(depth, 49);
    assert_eq!(node["folded"], true);
    assert_eq!(node["visits"], 500 - 48);
    assert_eq!(node["inclusive_ns"], 0);
    assert!(node["children"].as_array().unwrap().is_empty());
    let thread = &profile["threads"][0];
    assert_eq!(thread["frames_beyond_depth_limit"], 500 - 48);
    assert_eq!(thread["unmatched_ends"], 0);
    check_times_are_consistent(&profile);
}

#[test]
fn profile_to_a_pipe_is_written_in_place() {
    let exe = build("basic");
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("profile.fifo");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let link = dir.path().join("profile-link");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let link_text = link.to_str().unwrap().to_string();
    let run = run_ok(
        &exe,
        2,
        &["1"],
        &[("POMP_PROFILE", &link_text), ("POMP_SUMMARY", "0")],
    );
    let text = reader.join().unwrap();
    let profile: Value = serde_json::from_str(&text).expect("profile JSON through the pipe");
    assert_eq!(profile["format"], "pomp-profile");
    let fifo_type = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(
        std::os::unix::fs::FileTypeExt::is_fifo(&fifo_type),
        "the pipe was replaced"
    );
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(run.experiments().is_empty());
}

/// Fortran instrumented by OPARI2: hidden string lengths of blank-padded
/// CTC constants, handles in a common block, `pomp2_lib_get_max_threads`.
#[test]
fn fortran_program_instrumented_by_opari2() {
    let exe = build_from(
        "opari2_fwork",
        &["opari2/fwork.opari.f90", "opari2/fwork_init.c"],
        &["opari2"],
        // OPARI2 marks lines with #line, which needs the preprocessor.
        &["-cpp"],
    );
    for threads in [2, 3] {
        let run = run_ok(&exe, threads, &[], &[]);
        assert_eq!(run.printed("total"), 5050);
        assert_eq!(run.printed("critical"), threads as i64);
        assert_eq!(run.printed("tasks"), 6);
        let profile = run.profile();
        let t = threads as u64;
        assert_eq!(profile["regions"].as_array().unwrap().len(), 7);
        for region in profile["regions"].as_array().unwrap() {
            assert_eq!(region["malformed_ctc"], false, "{region}");
        }
        let id = |ty: &str, line: u64| Some(region_id(&profile, ty, line));
        assert_eq!(visits(&profile, id("parallel", 12), "parallel"), t);
        assert_eq!(visits(&profile, id("do", 13), "do"), t);
        assert_eq!(visits(&profile, id("do", 13), "implicit_barrier"), t);
        assert_eq!(visits(&profile, id("critical", 18), "critical"), t);
        assert_eq!(visits(&profile, id("single", 23), "single_body"), 1);
        assert_eq!(visits(&profile, id("task", 25), "task"), 6);
        assert_eq!(visits(&profile, id("taskwait", 30), "taskwait"), 1);
        assert_eq!(visits(&profile, None, "set_lock"), t);
        for thread in profile["threads"].as_array().unwrap() {
            assert_eq!(thread["unmatched_ends"], 0);
        }
        check_times_are_consistent(&profile);
    }
}

/// `POMP_EXPERIMENT_DIRECTORY` names the experiment: a later run takes the
/// name and moves the earlier experiment aside; a directory holding
/// something else is left alone.
#[test]
fn a_named_experiment_directory_is_never_written_twice() {
    let exe = build("basic");
    let dir = tempfile::tempdir().unwrap();
    let run_named = |name: &str| {
        let output = std::process::Command::new(&exe)
            .arg("1")
            .current_dir(dir.path())
            .env("OMP_NUM_THREADS", "2")
            .env("POMP_EXPERIMENT_DIRECTORY", name)
            .env_remove("POMP_PROFILE")
            .env_remove("POMP_SUMMARY")
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let open = |name: &str| pomp2::experiment::Experiment::open(dir.path().join(name)).unwrap();
    run_named("exp");
    let first = open("exp").manifest.run;
    let said = run_named("exp");
    assert!(
        said.contains("pomp: experiment exp (one process)"),
        "{said}"
    );
    assert!(
        said.contains("earlier experiment that was there is now exp-2"),
        "{said}"
    );
    assert_eq!(open("exp-2").manifest.run, first);
    assert_eq!(open("exp").processes().unwrap().len(), 1);

    std::fs::create_dir(dir.path().join("notes")).unwrap();
    std::fs::write(dir.path().join("notes/todo.txt"), "mine").unwrap();
    let said = run_named("notes");
    assert!(
        said.contains("notes holds something other than a pomp experiment"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes/todo.txt")).unwrap(),
        "mine"
    );
    assert_eq!(open("notes-2").processes().unwrap().len(), 1);
}

//! The analyses on profiles whose every figure is known: built with the
//! `pomp2` types, each number chosen so that the expected results can be
//! worked out by hand (and are, in the comments).

use super::analysis::{self, Report, Spread};
use super::join::{build_difference, build_of, Catalog, Matching};
use super::load::{Descriptors, Run};
use super::suggest::Proposed;
use pomp2::profile::{
    Breakdown, ImplicitBarrier, Kind, Node, Profile, Region, RegionId, TaskRegion, TaskRelation,
    Tasks, Thread, ThreadTotals, Throttling, FORMAT, VERSION,
};
use std::collections::BTreeMap;
use std::path::PathBuf;

const MS: u64 = 1_000_000;

fn region(id: RegionId, region_type: &str, line: u32, idf_id: &str) -> Region {
    Region {
        id,
        region_type: region_type.into(),
        file: Some("src/app.c".into()),
        first_line: Some(line),
        last_line: Some(line),
        end_first_line: None,
        end_last_line: None,
        name: None,
        unit: Some("solve".into()),
        code_kind: None,
        label: format!(
            "{} in solve (app.c:{line})",
            pomp2::ctc::construct_words(region_type)
        ),
        idf_id: Some(idf_id.into()),
        implicit_barrier: ImplicitBarrier::Explicit,
        attributes: BTreeMap::new(),
        malformed_ctc: false,
    }
}

fn node(region: RegionId, kind: Kind, visits: u64, inclusive_ms: u64, children: Vec<Node>) -> Node {
    let inclusive_ns = inclusive_ms * MS;
    let below: u64 = children.iter().map(|c| c.inclusive_ns).sum();
    Node {
        region: Some(region),
        kind,
        visits,
        inclusive_ns,
        exclusive_ns: inclusive_ns - below,
        wait_ns: 0,
        throttled: None,
        fork_ns: 0,
        join_ns: 0,
        folded: false,
        bytes_sent: 0,
        bytes_received: 0,
        children,
    }
}

fn thread(number: u32, children: Vec<Node>, breakdown: Breakdown) -> Thread {
    let measured: u64 = children.iter().map(|c| c.inclusive_ns).sum();
    Thread {
        thread: number,
        os_tid: 1000 + number as i64,
        events: 1,
        unmatched_ends: 0,
        frames_beyond_depth_limit: 0,
        barriers_not_inferred: 0,
        totals: ThreadTotals {
            measured_ns: measured,
            waiting_ns: breakdown.waiting_ns(),
            work_ns: measured - breakdown.waiting_ns(),
        },
        breakdown,
        mpi: None,
        tree: Node {
            region: None,
            kind: Kind::Thread,
            visits: 0,
            inclusive_ns: measured,
            exclusive_ns: 0,
            wait_ns: 0,
            throttled: None,
            fork_ns: 0,
            join_ns: 0,
            folded: false,
            bytes_sent: 0,
            bytes_received: 0,
            children,
        },
    }
}

fn profile(regions: Vec<Region>, wall_ms: u64, threads: Vec<Thread>) -> Profile {
    let mut breakdown = Breakdown::default();
    for thread in &threads {
        breakdown.add(&thread.breakdown);
    }
    Profile {
        format: FORMAT.into(),
        version: VERSION,
        pid: 7,
        rank: None,
        experiment: None,
        ranks: None,
        host: None,
        opari2_version: Some("pomp".into()),
        declared_regions: regions.len() as u64,
        unregistered_regions: vec![],
        unregistered_events_lost: 0,
        wall_ns: wall_ms * MS,
        thread_count: threads.len() as u64,
        incomplete_threads: vec![],
        throttling: Throttling {
            enabled: false,
            numcalls: 0,
            percall_ns: 0,
        },
        regions,
        breakdown,
        region_summary: vec![],
        tasks: Tasks {
            created: 0,
            executed: 0,
            per_region: vec![],
            relations: vec![],
        },
        threads,
        trace: None,
        mpi: None,
        clock: None,
    }
}

fn run(profile: Profile) -> Run {
    Run {
        path: PathBuf::from(format!("p{}.json", profile.pid)),
        profile,
        trace: None,
        trace_problem: None,
    }
}

/// Two threads, 100 ms wall. Thread 0 runs a user region for 30 ms alone,
/// then forks region 1, a `parallel` holding the loop of region 2:
///
/// ```text
/// thread 0: region(3) 30 | parallel(1) 60 [ for(2) 50 [ibarrier(2) 10], ibarrier(1) 5 ]
/// thread 1:                parallel(1) 55 [ for(2) 50 [ibarrier(2) 30], ibarrier(1) 5 ]
/// ```
///
/// Thread 0 forks in 2 ms and joins in 1 ms.
fn team() -> Profile {
    let regions = vec![
        region(1, "parallel", 10, "f.1"),
        region(2, "for", 12, "f.2"),
        region(3, "region", 5, "f.3"),
    ];
    let master = vec![
        node(3, Kind::UserRegion, 1, 30, vec![]),
        node(
            1,
            Kind::Parallel,
            1,
            60,
            vec![
                node(
                    2,
                    Kind::For,
                    1,
                    50,
                    vec![node(2, Kind::ImplicitBarrier, 1, 10, vec![])],
                ),
                node(1, Kind::ImplicitBarrier, 1, 5, vec![]),
            ],
        ),
    ];
    let worker = vec![node(
        1,
        Kind::Parallel,
        1,
        55,
        vec![
            node(
                2,
                Kind::For,
                1,
                50,
                vec![node(2, Kind::ImplicitBarrier, 1, 30, vec![])],
            ),
            node(1, Kind::ImplicitBarrier, 1, 5, vec![]),
        ],
    )];
    profile(
        regions,
        100,
        vec![
            thread(
                0,
                master,
                Breakdown {
                    implicit_barrier_ns: 15 * MS,
                    fork_ns: 2 * MS,
                    join_ns: MS,
                    ..Breakdown::default()
                },
            ),
            thread(
                1,
                worker,
                Breakdown {
                    implicit_barrier_ns: 35 * MS,
                    ..Breakdown::default()
                },
            ),
        ],
    )
}

fn report_of(runs: &[Run], baseline: Option<&Run>) -> Report {
    let mut all: Vec<&Run> = runs.iter().collect();
    all.extend(baseline);
    let matching = match baseline {
        Some(base) if build_difference(&build_of(&runs[0]), &build_of(base)).is_some() => {
            Matching::BySource
        }
        _ => Matching::ById,
    };
    let catalog = Catalog::new(&all, matching, &Descriptors::default());
    analysis::report(runs, baseline, &catalog)
}

fn row<'a>(report: &'a Report, what: &str) -> &'a analysis::regions::Row {
    report
        .rows
        .iter()
        .find(|r| r.what == what)
        .unwrap_or_else(|| panic!("no row {what:?} in {:#?}", report.rows))
}

fn exact(ns: u64) -> Spread {
    Spread {
        min: ns,
        mean: ns,
        max: ns,
        ..Spread::default()
    }
}

#[test]
fn regions_add_up_over_threads() {
    let report = report_of(&[run(team())], None);
    assert_eq!(report.thread_time_ns, exact(200 * MS));
    let parallel = row(&report, "parallel");
    assert_eq!(parallel.inclusive_ns, exact(115 * MS));
    assert_eq!(parallel.exclusive_ns, exact(5 * MS));
    assert_eq!(parallel.longest_thread_ns, exact(60 * MS));
    assert_eq!((parallel.visits.mean, parallel.threads), (2, 2));
    assert!((parallel.share - 115.0 / 200.0).abs() < 1e-12);
    assert_eq!(
        row(&report, "implicit barrier of for").inclusive_ns,
        exact(40 * MS)
    );
    assert_eq!(row(&report, "region").inclusive_ns, exact(30 * MS));
    // Largest first.
    let order: Vec<&str> = report.rows.iter().map(|r| r.what.as_str()).collect();
    assert_eq!(
        order,
        [
            "parallel",
            "for",
            "implicit barrier of for",
            "region",
            "implicit barrier of parallel"
        ]
    );
    assert_eq!(
        report.rows[0].label, "parallel in solve (app.c:10)",
        "the construct itself is named as the region"
    );
    assert_eq!(
        report.rows[2].label,
        "implicit barrier of for in solve (app.c:12)"
    );
}

#[test]
fn the_call_tree_merges_threads() {
    let report = report_of(&[run(team())], None);
    let roots: Vec<&str> = report.tree.iter().map(|n| n.label.as_str()).collect();
    assert_eq!(
        roots,
        ["parallel in solve (app.c:10)", "region in solve (app.c:5)"]
    );
    let parallel = &report.tree[0];
    assert_eq!(
        (parallel.threads, parallel.inclusive_ns.mean),
        (2, 115 * MS)
    );
    let for_node = &parallel.children[0];
    assert_eq!(for_node.kind, Kind::For);
    assert_eq!(for_node.inclusive_ns.mean, 100 * MS);
    assert_eq!(for_node.children[0].inclusive_ns.mean, 40 * MS);
}

#[test]
fn calls_of_mpi_routines_are_data_movement() {
    let mut team = team();
    team.regions[2].name = Some("MPI_Allreduce".into());
    let report = report_of(&[run(team)], None);
    let class = |c| report.overheads.class(c).ns.mean;
    use analysis::overhead::Class;
    assert_eq!(class(Class::DataMovement), 30 * MS);
    assert_eq!(class(Class::Work), (200 - 3 - 50 - 45 - 30) * MS);
}

#[test]
fn mpi_routines_are_summed_over_their_call_sites_rank_by_rank() {
    // Two places call MPI_Allreduce: the user region of 30 ms and one of
    // 10 ms after it; rank 1 spends 20 ms more in the first.
    let rank = |rank: &str, first_ms: u64| {
        let mut team = team();
        team.rank = Some(rank.into());
        team.regions[2].name = Some("MPI_Allreduce".into());
        let mut second = region(4, "region", 40, "f.4");
        second.name = Some("MPI_Allreduce".into());
        team.regions.push(second);
        let master = &mut team.threads[0].tree.children;
        master[0] = node(3, Kind::UserRegion, 1, first_ms, vec![]);
        master.push(node(4, Kind::UserRegion, 2, 10, vec![]));
        run(team)
    };
    let report = report_of(&[rank("0", 30), rank("1", 50)], None);
    let [allreduce] = report.mpi_functions.as_slice() else {
        panic!("{:#?}", report.mpi_functions)
    };
    assert_eq!(allreduce.name, "MPI_Allreduce");
    assert_eq!(allreduce.call_sites, 2);
    let time = allreduce.inclusive_ns;
    assert_eq!((time.min, time.mean, time.max), (40 * MS, 50 * MS, 60 * MS));
    assert_eq!((time.min_rank, time.max_rank), (Some(0), Some(1)));
    assert_eq!(allreduce.visits.mean, 3);
    // The first call site is what differs between the ranks: 10 ms of
    // the slower one's 50 ms, 20 ms lost over both ranks.
    let first = &report.rank_imbalance[0];
    assert_eq!(first.label, report.regions[first.region.unwrap()].label);
    assert_eq!(first.inclusive_ns.max_rank, Some(1));
    assert!((first.imbalance - 0.2).abs() < 1e-12, "{first:#?}");
    assert_eq!(first.lost_ns, 20 * MS);
}

#[test]
fn mpi_measured_through_pmpi_is_counted_by_class_rank_by_rank() {
    use pomp2::profile::{Mpi, MpiTotals};
    // Thread 0's user region calls MPI_Wait from two call regions; rank 1
    // waits twice as long and sends twice the bytes.
    let rank = |rank: &str, wait_ms: u64| {
        let mut team = team();
        team.rank = Some(rank.into());
        team.host = Some("node1".into());
        for (id, line) in [(4, 41), (5, 42)] {
            let mut call = region(id, "region", line, &format!("f.{id}"));
            call.name = Some("MPI_Wait".into());
            team.regions.push(call);
        }
        team.regions.push(pomp2::profile::mpi_region(6, "MPI_Wait"));
        let mut wait = node(6, Kind::Mpi, 1, wait_ms, vec![]);
        wait.bytes_received = 100;
        let calls = [4, 5].map(|id| node(id, Kind::UserRegion, 1, wait_ms, vec![wait.clone()]));
        team.threads[0].tree.children[0] = node(3, Kind::UserRegion, 1, 30, calls.to_vec());
        let totals = MpiTotals {
            point_to_point_ns: 2 * wait_ms * MS,
            messages_received: 2,
            bytes_received: 200,
            bytes_sent: 100 * wait_ms,
            ..MpiTotals::default()
        };
        team.threads[0].mpi = Some(totals);
        team.mpi = Some(Mpi {
            library: "Open MPI v4.1.4".into(),
            thread_level_requested: None,
            thread_level_provided: pomp2::mpi::ThreadLevel::Funneled,
            totals,
        });
        run(team)
    };
    let report = report_of(&[rank("0", 5), rank("1", 10)], None);
    let mpi = report.mpi.as_ref().expect("MPI measured");
    assert_eq!(mpi.ranks, 2);
    let time = mpi.point_to_point_ns;
    assert_eq!((time.min, time.mean, time.max), (10 * MS, 15 * MS, 20 * MS));
    assert_eq!((time.min_rank, time.max_rank), (Some(0), Some(1)));
    assert_eq!(mpi.bytes_sent.max, 1_000);
    let per_rank = mpi.per_rank.as_ref().unwrap();
    assert_eq!(per_rank.time_ns, [10 * MS, 20 * MS]);
    assert_eq!(per_rank.bytes_received, [200, 200]);
    assert_eq!(report.hosts.len(), 1);
    assert_eq!(report.hosts[0].ranks, 2);
    // The library's measurement counts, not the call regions around it:
    // two calls per rank, from two call paths.
    let [wait] = report.mpi_functions.as_slice() else {
        panic!("{:#?}", report.mpi_functions)
    };
    assert_eq!((wait.name.as_str(), wait.call_sites), ("MPI_Wait", 2));
    assert_eq!(wait.visits.mean, 2);
    assert_eq!(wait.inclusive_ns.max, 20 * MS);
    // Data movement is MPI's point-to-point time.
    let movement = report
        .overheads
        .class(analysis::overhead::Class::DataMovement);
    assert_eq!(movement.ns.mean, 15 * MS);
    let part = |name| {
        movement
            .parts
            .iter()
            .find(|p| p.name == name)
            .unwrap()
            .ns
            .mean
    };
    assert_eq!(
        (part("MPI point-to-point"), part("MPI calls")),
        (15 * MS, 0)
    );
}

#[test]
fn overhead_classes_split_the_thread_time() {
    let report = report_of(&[run(team())], None);
    let class = |c| report.overheads.class(c).ns.mean;
    use analysis::overhead::Class;
    // Fork 2 + join 1.
    assert_eq!(class(Class::Control), 3 * MS);
    // Every implicit barrier: 10 + 5 + 30 + 5.
    assert_eq!(class(Class::Synchronisation), 50 * MS);
    // Thread 1 is in the parallel region 55 of 100 ms: idle 45 ms, of
    // which 40 ms while thread 0 ran outside it.
    assert_eq!(class(Class::LossOfParallelism), 45 * MS);
    let loss = report.overheads.class(Class::LossOfParallelism);
    assert_eq!(loss.parts[0].ns.mean, 40 * MS);
    assert_eq!(loss.parts[1].ns.mean, 5 * MS);
    assert_eq!(class(Class::Work), (200 - 3 - 50 - 45) * MS);
    let shares: f64 = report.overheads.classes.iter().map(|c| c.share).sum();
    assert!((shares - 1.0).abs() < 1e-9, "{shares}");

    let parallel = &report.region_overheads[0];
    assert_eq!(parallel.label, "parallel in solve (app.c:10)");
    assert_eq!(parallel.inclusive_ns.mean, 115 * MS);
    assert_eq!(parallel.sync_ns.mean, 50 * MS);
    // Thread 1 joined 5 ms late of thread 0's 60.
    assert_eq!(parallel.idle_ns.mean, 5 * MS);
    assert_eq!(parallel.work_ns.mean, 65 * MS);
}

#[test]
fn imbalance_leaves_the_barrier_out() {
    let report = report_of(&[run(team())], None);
    let [loop_] = report.imbalance.as_slice() else {
        panic!("{:#?}", report.imbalance)
    };
    // Work: 50 − 10 and 50 − 30.
    assert_eq!(
        loop_.work_ns,
        Spread {
            min: 20 * MS,
            mean: 30 * MS,
            max: 40 * MS,
            ..Spread::default()
        }
    );
    assert!((loop_.imbalance - 0.25).abs() < 1e-12);
    assert_eq!(loop_.lost_ns, 20 * MS);
    assert_eq!(loop_.threads, 2);
}

#[test]
fn a_region_nested_in_itself_counts_once() {
    let recursive = node(
        3,
        Kind::UserRegion,
        1,
        30,
        vec![node(
            3,
            Kind::UserRegion,
            2,
            20,
            vec![node(3, Kind::UserRegion, 1, 5, vec![])],
        )],
    );
    let mut team = team();
    team.threads[0].tree.children[0] = recursive;
    let report = report_of(&[run(team)], None);
    let user = row(&report, "region");
    assert_eq!(user.inclusive_ns.mean, 30 * MS);
    assert_eq!(user.exclusive_ns.mean, 30 * MS);
    assert_eq!(user.visits.mean, 4);
}

#[test]
fn ranks_give_a_spread() {
    let mut first = team();
    first.rank = Some("4".into());
    let mut second = team();
    second.pid = 8;
    second.rank = Some("1".into());
    second.wall_ns = 120 * MS;
    second.threads[0].tree.children[0].inclusive_ns = 50 * MS;
    second.threads[0].tree.children[0].exclusive_ns = 50 * MS;
    let report = report_of(&[run(first), run(second)], None);
    assert_eq!(
        report.wall_ns,
        Spread {
            min: 100 * MS,
            mean: 110 * MS,
            max: 120 * MS,
            min_rank: Some(4),
            max_rank: Some(1),
        }
    );
    assert_eq!(
        row(&report, "region").inclusive_ns,
        Spread {
            min: 30 * MS,
            mean: 40 * MS,
            max: 50 * MS,
            min_rank: Some(4),
            max_rank: Some(1),
        }
    );
    let parallel = row(&report, "parallel").inclusive_ns;
    assert_eq!((parallel.min, parallel.max), (115 * MS, 115 * MS));
    // Of equal values, the first rank's.
    assert_eq!((parallel.min_rank, parallel.max_rank), (Some(4), Some(4)));
    let per_rank = row(&report, "region").per_rank.as_ref().unwrap();
    assert_eq!(per_rank.inclusive_ns, [30 * MS, 50 * MS]);
    assert_eq!(per_rank.visits, [1, 1]);
}

#[test]
fn builds_are_told_apart_by_region_ids() {
    let a = run(team());
    let mut edited = team();
    for region in &mut edited.regions {
        region.idf_id = region.idf_id.as_ref().map(|id| id.replace("f.", "g."));
    }
    let b = run(edited);
    assert_eq!(build_difference(&build_of(&a), &build_of(&a)), None);
    let difference = build_difference(&build_of(&a), &build_of(&b)).unwrap();
    assert_eq!(
        difference,
        "3 region ids only in the first, 3 region ids only in the second"
    );
}

#[test]
fn regions_of_another_build_match_by_source() {
    // The same program after an edit: new ids, every line moved down, and
    // the runtime numbered the regions the other way round.
    let a = run(team());
    let mut edited = team();
    let renumber = |id: RegionId| 4 - id;
    edited.regions = edited
        .regions
        .iter()
        .map(|r| {
            let id = r.idf_id.as_ref().unwrap().replace("f.", "g.");
            region(
                renumber(r.id),
                &r.region_type,
                r.first_line.unwrap() + 7,
                &id,
            )
        })
        .collect();
    fn renumber_tree(node: &mut Node, renumber: &dyn Fn(RegionId) -> RegionId) {
        node.region = node.region.map(renumber);
        for child in &mut node.children {
            renumber_tree(child, renumber);
        }
    }
    for thread in &mut edited.threads {
        renumber_tree(&mut thread.tree, &renumber);
    }
    let b = run(edited);
    let by_id = Catalog::new(&[&a, &b], Matching::ById, &Descriptors::default());
    assert_eq!(by_id.regions.len(), 6, "ids differ: no region matches");
    let catalog = Catalog::new(&[&b, &a], Matching::BySource, &Descriptors::default());
    assert_eq!(catalog.regions.len(), 3);
    for id in 1..=3 {
        assert_eq!(
            catalog.find(0, Some(renumber(id))),
            catalog.find(1, Some(id))
        );
    }
    let diff = analysis::diff::diff((&a, 1), (&b, 0), &catalog, Some("edited".into()));
    assert_eq!(diff.rows.len(), 5);
    assert!(diff
        .rows
        .iter()
        .all(|r| r.change == analysis::diff::Change::Unchanged));
    // Named as in the later build.
    assert!(diff
        .rows
        .iter()
        .any(|r| r.label == "parallel in solve (app.c:17)"));
}

#[test]
fn a_diff_says_what_changed() {
    let a = run(team());
    let mut faster = team();
    // The user region takes 10 ms instead of 30; the loop is gone.
    faster.threads[0].tree.children[0].inclusive_ns = 10 * MS;
    faster.threads[0].tree.children[0].exclusive_ns = 10 * MS;
    faster.wall_ns = 80 * MS;
    for thread in &mut faster.threads {
        let parallel = &mut thread.tree.children.last_mut().unwrap();
        parallel.children.remove(0);
    }
    let b = run(faster);
    let catalog = Catalog::new(&[&b, &a], Matching::ById, &Descriptors::default());
    let diff = analysis::diff::diff((&a, 1), (&b, 0), &catalog, None);
    let change = |what: &str| {
        let row = diff.rows.iter().find(|r| r.what == what).unwrap();
        (row.change, row.delta_ns)
    };
    use analysis::diff::Change;
    assert_eq!(change("region"), (Change::Faster, -20 * MS as i64));
    assert_eq!(change("for"), (Change::Gone, -50 * MS as i64));
    assert_eq!(change("parallel").0, Change::Unchanged);
    assert!((diff.speedup.unwrap() - 1.25).abs() < 1e-12);
}

#[test]
fn a_baseline_splits_the_total_overhead() {
    // One thread ran it in 180 ms; two threads take 100 ms: ideal 90 ms,
    // overhead 10 ms.
    let mut serial = team();
    serial.threads.truncate(1);
    serial.wall_ns = 180 * MS;
    serial.pid = 1;
    let report = report_of(&[run(team())], Some(&run(serial)));
    let base = report.baseline.as_ref().unwrap();
    assert_eq!(base.ideal_ns, 90 * MS);
    assert_eq!(base.total_overhead_ns, 10 * MS as i64);
    assert!((base.speedup - 1.8).abs() < 1e-12);
    assert!((base.efficiency - 0.9).abs() < 1e-12);
    use analysis::overhead::Class;
    let identified: Vec<(Class, i64)> = base.identified.clone();
    // Thread time over two threads: 3/2, 50/2, 45/2 ms.
    assert_eq!(
        identified,
        [
            (Class::Control, 1_500_000),
            (Class::Synchronisation, 25 * MS as i64),
            (Class::LossOfParallelism, 22_500_000),
        ]
    );
    assert_eq!(base.unidentified_ns, 10 * MS as i64 - 49 * MS as i64);
    assert!(!base.other_build);
    // Each row compared with the baseline's longest thread: the loop took
    // 50 ms on one thread there too.
    assert_eq!(row(&report, "for").speedup, Some(1.0));
}

#[test]
fn tasks_are_counted_per_construct() {
    let mut tasks = team();
    tasks.regions.push(region(4, "task", 20, "f.4"));
    tasks.regions.push(region(5, "task", 22, "f.5"));
    tasks.tasks = Tasks {
        created: 40,
        executed: 40,
        per_region: vec![
            TaskRegion {
                region: 4,
                created: 10,
                executed: 10,
                inclusive_ns: 10 * MS,
                exclusive_ns: 10 * MS,
                mean_ns: MS,
            },
            TaskRegion {
                region: 5,
                created: 30,
                executed: 30,
                inclusive_ns: 60 * MS,
                exclusive_ns: 60 * MS,
                mean_ns: 2 * MS,
            },
        ],
        relations: vec![
            TaskRelation {
                parent_region: None,
                child_region: 4,
                count: 10,
            },
            TaskRelation {
                parent_region: Some(4),
                child_region: 5,
                count: 30,
            },
        ],
    };
    let report = report_of(&[run(tasks)], None);
    let constructs: Vec<(&str, u64, u64)> = report
        .tasks
        .constructs
        .iter()
        .map(|c| (c.label.as_str(), c.created.mean, c.mean_ns))
        .collect();
    assert_eq!(
        constructs,
        [
            ("task in solve (app.c:22)", 30, 2 * MS),
            ("task in solve (app.c:20)", 10, MS)
        ]
    );
    let relations: Vec<(&str, &str, u64)> = report
        .tasks
        .relations
        .iter()
        .map(|r| {
            (
                r.parent_label.as_str(),
                r.child_label.as_str(),
                r.count.mean,
            )
        })
        .collect();
    assert_eq!(
        relations,
        [
            ("implicit task", "task in solve (app.c:20)", 10),
            ("task in solve (app.c:20)", "task in solve (app.c:22)", 30)
        ]
    );
    assert!(report.tasks.histogram.is_empty());
    assert!(
        report.notes.iter().any(|n| n.contains("POMP_TRACE=1")),
        "{:?}",
        report.notes
    );
}

#[test]
fn the_text_names_every_region_and_colours_only_when_asked() {
    let report = report_of(&[run(team())], None);
    let layout = super::render::text::Layout {
        tree: false,
        top: 0,
    };
    let text = super::render::text::report(&report, layout);
    let plain = anstream::adapter::strip_str(&text).to_string();
    assert_ne!(plain, text, "styles are written; the stream drops them");
    for row in &report.rows {
        assert!(plain.contains(&row.what), "{} missing:\n{plain}", row.what);
    }
    for heading in [
        "Regions by inclusive time",
        "Overheads after SCALEA",
        "Load imbalance",
    ] {
        assert!(plain.contains(heading), "{heading} missing:\n{plain}");
    }
    let tree =
        super::render::text::report(&report, super::render::text::Layout { tree: true, top: 0 });
    let tree = anstream::adapter::strip_str(&tree).to_string();
    assert!(tree.contains("├─ for in solve (app.c:12)"), "{tree}");
    assert!(
        tree.contains("│  └─ implicit barrier of for in solve (app.c:12)"),
        "{tree}"
    );
}

#[test]
fn folded_stacks_carry_exclusive_time() {
    let report = report_of(&[run(team())], None);
    let folded = super::render::flame::folded(&report.tree);
    assert!(folded.contains(&format!(
        "parallel in solve (app.c:10);for in solve (app.c:12);implicit barrier of for in solve (app.c:12) {}",
        40 * MS
    )));
    assert!(folded.contains(&format!("region in solve (app.c:5) {}", 30 * MS)));
    let total: u64 = folded
        .iter()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 145 * MS, "every measured nanosecond, once");
}

#[test]
fn tasks_a_thread_ran_count_as_time_in_its_team() {
    // Thread 1 ran a task for 5 ms while in the team: the task's time is
    // taken out of its parallel region and hangs off its root.
    let mut team = team();
    team.regions.push(region(4, "task", 11, "f.4"));
    let task = node(4, Kind::Task, 1, 5, vec![]);
    team.threads[1].tree.children.push(task);
    let report = report_of(&[run(team)], None);
    let parallel = &report.region_overheads[0];
    assert_eq!(parallel.label, "parallel in solve (app.c:10)");
    assert_eq!(
        parallel.idle_ns.mean, 0,
        "55 ms in the region and 5 in a task"
    );
    use analysis::overhead::Class;
    let loss = report.overheads.class(Class::LossOfParallelism);
    assert_eq!(loss.ns.mean, 40 * MS, "idle only while thread 0 ran alone");
}

#[test]
fn a_profile_without_events_still_reports() {
    let runs = [run(profile(vec![], 10, vec![]))];
    let catalog = Catalog::new(&[&runs[0]], Matching::ById, &Descriptors::default());
    let report = analysis::report(&runs, None, &catalog);
    assert!(report.rows.is_empty() && report.tree.is_empty());
    let layout = super::render::text::Layout { tree: true, top: 0 };
    let text = super::render::text::report(&report, layout);
    assert!(text.contains("no region was visited"), "{text}");
    let folded = super::render::flame::folded(&report.tree);
    let svg = super::render::flame::svg(&folded, "t", "s", true).unwrap();
    assert!(svg.contains("No region took any time"), "{svg}");
    let mut timelines = super::render::spans::Timelines::default();
    let mut speedscope = super::render::speedscope::Builder::default();
    timelines.add(&runs[0], 0, &catalog);
    speedscope.add(&runs[0], 0, &catalog);
    let page = super::render::html::page(&report, &timelines, &svg);
    assert!(
        page.contains("POMP_TRACE=1"),
        "the page says how to get timelines"
    );
    let document = speedscope.finish("t");
    let json = serde_json::to_value(&document).unwrap();
    assert_eq!(json["profiles"].as_array().unwrap().len(), 0);
}

#[test]
fn errors_name_the_files_and_the_trouble() {
    use super::load::Error;
    let nothing = super::run(&super::Options::default(), &mut Vec::new());
    assert!(matches!(nothing, Err(Error::NoProfiles)));

    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    let mut first = team();
    first.rank = Some("0".into());
    std::fs::write(&a, serde_json::to_vec(&first).unwrap()).unwrap();
    let mut edited = team();
    edited.rank = Some("1".into());
    edited.regions[0].idf_id = Some("g.1".into());
    let b = dir.path().join("b.json");
    std::fs::write(&b, serde_json::to_vec(&edited).unwrap()).unwrap();
    let options = super::Options {
        profiles: vec![a.clone(), b.clone()],
        ..super::Options::default()
    };
    let error = super::run(&options, &mut Vec::new()).unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, Error::DifferentBuilds { .. }), "{message}");
    for part in [
        "a.json",
        "b.json",
        "1 region id only in the first",
        "--diff",
    ] {
        assert!(message.contains(part), "{part} not in: {message}");
    }

    // Two runs' rank 0, or two processes without a rank: two runs.
    let again = dir.path().join("again.json");
    std::fs::write(&again, serde_json::to_vec(&first).unwrap()).unwrap();
    let lone = dir.path().join("lone.json");
    std::fs::write(&lone, serde_json::to_vec(&team()).unwrap()).unwrap();
    for (other, why) in [(&again, "both are rank 0"), (&lone, "without an MPI rank")] {
        let options = super::Options {
            profiles: vec![a.clone(), other.clone()],
            ..super::Options::default()
        };
        let error = super::run(&options, &mut Vec::new()).unwrap_err();
        let message = error.to_string();
        assert!(matches!(error, Error::DifferentRuns { .. }), "{message}");
        for part in ["a.json", other.to_str().unwrap(), why, "different runs"] {
            assert!(message.contains(part), "{part} not in: {message}");
        }
    }

    // Ranks of two experiments: two runs, named.
    let of_run = |name: &str, rank: &str| {
        let mut profile = team();
        profile.experiment = Some(name.into());
        profile.rank = Some(rank.into());
        let path = dir.path().join(format!("{name}.{rank}.json"));
        std::fs::write(&path, serde_json::to_vec(&profile).unwrap()).unwrap();
        path
    };
    let options = super::Options {
        profiles: vec![of_run("pomp-a", "0"), of_run("pomp-b", "1")],
        ..super::Options::default()
    };
    let message = super::run(&options, &mut Vec::new())
        .unwrap_err()
        .to_string();
    assert!(message.contains("runs pomp-a and pomp-b"), "{message}");

    let options = super::Options {
        profiles: vec![a.clone()],
        idf: vec![dir.path().to_path_buf()],
        ..super::Options::default()
    };
    let error = super::run(&options, &mut Vec::new()).unwrap_err();
    assert!(matches!(error, Error::NoDescriptors { .. }), "{error}");

    // Both builds diff without complaint, and the text says they differ.
    let options = super::Options {
        diff: Some((a, b)),
        ..super::Options::default()
    };
    let mut out = Vec::new();
    super::run(&options, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("come from different builds"), "{text}");
}

#[test]
fn the_page_is_well_formed_whatever_the_figures() {
    // A region and a fork of 0.05 % and 0.025 % of the thread time: their
    // shares read `<0.1%`.
    let mut team = team();
    team.breakdown.fork_ns = 50_000;
    team.breakdown.join_ns = 0;
    team.regions.push(region(4, "critical", 30, "f.4"));
    let mut tiny = node(4, Kind::Critical, 1, 0, vec![]);
    tiny.inclusive_ns = 100_000;
    tiny.exclusive_ns = 100_000;
    tiny.wait_ns = 50_000;
    team.threads[1].tree.children[0].children.push(tiny);
    let mut serial = team.clone();
    serial.threads.truncate(1);
    serial.wall_ns = 180 * MS;
    let runs = [run(team)];
    let base = run(serial);
    let catalog = Catalog::new(&[&runs[0], &base], Matching::ById, &Descriptors::default());
    let report = analysis::report(&runs, Some(&base), &catalog);
    let folded = super::render::flame::folded(&report.tree);
    let svg = super::render::flame::svg(&folded, "t", "s", false).unwrap();
    let page = super::render::html::page(&report, &Default::default(), &svg);
    assert!(page.contains("&lt;0.1%"), "no small share to check");
    let parsed = scraper::Html::parse_document(&page);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
}

/// A recursive function 60 calls deep at its deepest: its visits below the
/// tree's 48 levels are folded into one untimed node at the bottom of the
/// path, whose time holds theirs.
fn recursion(deep_visits: u64) -> Run {
    let mut descend = region(1, "region", 3, "f1");
    descend.name = Some("descend".into());
    let mut folded = node(1, Kind::UserRegion, deep_visits, 0, vec![]);
    folded.folded = true;
    // 100 ms in the top call, 99 ms in the one below it, and so on.
    let mut chain = node(1, Kind::UserRegion, 1, 100 - 47, vec![folded]);
    for level in (0..47).rev() {
        chain = node(1, Kind::UserRegion, 1, 100 - level, vec![chain]);
    }
    let mut thread = thread(0, vec![chain], Breakdown::default());
    thread.frames_beyond_depth_limit = deep_visits;
    run(profile(vec![descend], 100, vec![thread]))
}

#[test]
fn visits_folded_below_the_depth_limit_count_in_the_suggested_filter() {
    // Ten million calls in 53 ms: a few ns each, measured at 150.
    let runs = [recursion(10_000_000)];
    let suggested = super::suggest::suggestions(&runs, Proposed::UserCode);
    assert_eq!(suggested.len(), 1, "{suggested:#?}");
    assert_eq!(suggested[0].pattern, "descend");
    assert_eq!(suggested[0].visits, 10_000_048);
    // Timed visits: 48 of 3,672 ms inclusive (recursion counts each
    // level's time again); folded: 53 ms.
    let per_visit = (3_672 + 53) as f64 * MS as f64 / 10_000_048.0;
    assert!((suggested[0].ns_per_visit - per_visit).abs() < 1e-6);
    // A dozen deep calls in the same 53 ms are worth measuring.
    assert!(super::suggest::suggestions(&[recursion(12)], Proposed::UserCode).is_empty());
    let report = report_of(&[recursion(12)], None);
    let mut node = &report.tree[0];
    let label = node.label.clone();
    for _ in 0..47 {
        assert_eq!(node.label, label);
        node = &node.children[0];
    }
    assert_eq!(
        node.children[0].label,
        format!("{label} (deeper calls folded, untimed)")
    );
    assert!(
        (report.notes.iter()).any(|n| n.contains("12 visit(s) nested deeper")),
        "{:?}",
        report.notes
    );
}

#[test]
fn the_filter_proposes_user_code_and_openmp_constructs_only_when_asked() {
    // A function, a call of MPI_Test and a critical section, each visited
    // a million times at 50 ns a visit: all cost more to measure than
    // they take.
    let mut function = region(1, "region", 3, "f.1");
    function.name = Some("kernel".into());
    function.code_kind = Some(pomp2::idf::CodeKind::Function);
    let mut test = region(2, "region", 9, "f.2");
    test.name = Some("MPI_Test".into());
    test.code_kind = Some(pomp2::idf::CodeKind::Call);
    let critical = region(3, "critical", 12, "f.3");
    let busy = |id| {
        let mut node = node(id, Kind::UserRegion, 1_000_000, 50, vec![]);
        if id == 3 {
            node.kind = Kind::Critical;
        }
        node
    };
    let tree = vec![busy(1), busy(2), busy(3)];
    let runs = [run(profile(
        vec![function, test, critical],
        200,
        vec![thread(0, tree, Breakdown::default())],
    ))];
    let patterns = |proposed| -> Vec<String> {
        let mut patterns: Vec<String> = super::suggest::suggestions(&runs, proposed)
            .into_iter()
            .map(|s| s.pattern)
            .collect();
        patterns.sort();
        patterns
    };
    assert_eq!(patterns(Proposed::UserCode), ["kernel"]);
    assert_eq!(patterns(Proposed::WithOpenMp), ["kernel", "src/app.c:12"]);
    let mut suggesting = super::suggest::Suggesting::new(Proposed::UserCode);
    suggesting.add(&runs[0]);
    let file = suggesting.filter_file();
    assert!(
        file.contains("  # function kernel (app.c:3): 1000000 visits"),
        "{file}"
    );
    assert!(file.ends_with("SCOREP_REGION_NAMES_END\n"), "{file}");
}

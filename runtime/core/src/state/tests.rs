//! The thread state's rooms working together, event by event.

use super::tasks::{TaskRelation, TASK_COUNTER_BITS};
use super::tree::{Node, Throttled, MAX_TREE_DEPTH};
use super::*;
use crate::regions::NO_REGION;

/// The first node of `kind`.
fn first_of_kind(state: &ThreadState, kind: Kind) -> NodeIndex {
    let index = state.tree.nodes.iter().position(|n| n.kind == kind);
    index.unwrap_or_else(|| panic!("no {kind:?} node")) as NodeIndex
}

fn child_of(state: &ThreadState, parent: NodeIndex, kind: Kind) -> &Node {
    state
        .tree
        .nodes
        .iter()
        .find(|n| n.parent == parent && n.kind == kind)
        .unwrap_or_else(|| panic!("no {kind:?} below node {parent}"))
}

#[test]
fn an_end_skipped_by_cancel_is_closed_by_the_enclosing_end() {
    let mut state = ThreadState::new(0, Settings::default());
    state.push(1, Kind::Parallel, 0);
    state.push(2, Kind::For, 10);
    state.push(2, Kind::ImplicitBarrier, 20);
    state.point(3, Kind::Cancel);
    // The loop was cancelled: no barrier exit, no For_exit.
    assert!(state.pop_to(1, Kind::Parallel, 100).is_some());
    assert!(state.stack.is_empty());
    let parallel = child_of(&state, ROOT, Kind::Parallel);
    assert_eq!((parallel.visits, parallel.inclusive_ns), (1, 100));
    let for_node = child_of(&state, 1, Kind::For);
    assert_eq!((for_node.visits, for_node.inclusive_ns), (1, 90));
    assert_eq!(state.breakdown.implicit_barrier_ns, 80);
    assert_eq!(state.unmatched_ends, 0);
    assert!(state.pop_to(2, Kind::For, 110).is_none());
    assert_eq!(state.unmatched_ends, 1);
}

#[test]
fn task_time_is_not_charged_to_the_suspended_region() {
    let mut state = ThreadState::new(0, Settings::default());
    let implicit_task = state.tasks.current;
    state.push(1, Kind::ImplicitBarrier, 0);
    state.push(5, Kind::Task, 10);
    state.tasks.current = 77;
    state.pop_to(5, Kind::Task, 40);
    assert_eq!(state.tasks.current, implicit_task, "suspended task resumed");
    state.pop_to(1, Kind::ImplicitBarrier, 50);
    assert_eq!(child_of(&state, ROOT, Kind::Task).inclusive_ns, 30);
    assert_eq!(
        child_of(&state, ROOT, Kind::ImplicitBarrier).inclusive_ns,
        20
    );
    assert_eq!(state.breakdown.implicit_barrier_ns, 20);
    assert_eq!(state.breakdown.task_execution_ns, 30);
}

#[test]
fn a_task_run_inside_its_creation_is_timed_as_the_task() {
    // An undeferred task: its instance runs between the creation events.
    let mut state = ThreadState::new(0, Settings::default());
    state.push(1, Kind::Parallel, 0);
    let implicit_task = state.tasks.current;
    for round in 0..3u64 {
        let t = 100 + round * 100;
        state.tasks.note_created(2);
        let id = state.tasks.new_id();
        state.push(2, Kind::TaskCreate, t);
        state.push(2, Kind::Task, t + 10);
        state.tasks.current = id;
        state.tasks.current_region = 2;
        state.push(3, Kind::Atomic, t + 20);
        assert!(state.pop_to(3, Kind::Atomic, t + 25).is_some());
        assert!(state.pop_to(2, Kind::Task, t + 40).is_some());
        assert_eq!(state.tasks.current, implicit_task, "the creator resumes");
        assert!(state.pop_to(2, Kind::TaskCreate, t + 50).is_some());
    }
    state.pop_to(1, Kind::Parallel, 500);
    let task = child_of(&state, ROOT, Kind::Task);
    assert_eq!((task.visits, task.inclusive_ns), (3, 90));
    let create = child_of(&state, 1, Kind::TaskCreate);
    assert_eq!((create.visits, create.inclusive_ns), (3, 60));
    let atomic = child_of(&state, first_of_kind(&state, Kind::Task), Kind::Atomic);
    assert_eq!((atomic.visits, atomic.inclusive_ns), (3, 15));
    let parallel = child_of(&state, ROOT, Kind::Parallel);
    assert_eq!(parallel.inclusive_ns, 500 - 90, "task time is the task's");
    assert_eq!(state.breakdown.task_create_ns, 60);
    assert_eq!(state.breakdown.task_execution_ns, 90);
    assert_eq!(state.tasks.created, 3);
    assert_eq!(
        state.tasks.relations,
        [TaskRelation {
            parent_region: NO_REGION,
            child_region: 2,
            count: 3
        }]
    );
}

#[test]
fn alternating_task_relations_are_counted_apart() {
    let mut state = ThreadState::new(0, Settings::default());
    for i in 0..10 {
        state.tasks.current_region = if i % 2 == 0 { NO_REGION } else { 7 };
        state.tasks.note_created(if i % 3 == 0 { 8 } else { 9 });
    }
    let count = |parent, child| {
        state
            .tasks
            .relations
            .iter()
            .find(|r| r.parent_region == parent && r.child_region == child)
            .map_or(0, |r| r.count)
    };
    // i = 0..10: (parent, child) pairs counted by hand.
    assert_eq!(count(NO_REGION, 8), 2); // 0, 6
    assert_eq!(count(NO_REGION, 9), 3); // 2, 4, 8
    assert_eq!(count(7, 8), 2); // 3, 9
    assert_eq!(count(7, 9), 3); // 1, 5, 7
    assert_eq!(state.tasks.relations.len(), 4);
    assert_eq!(state.tasks.created, 10);
}

#[test]
fn closing_a_frame_below_the_top_closes_those_above() {
    let mut state = ThreadState::new(0, Settings::default());
    state.push(1, Kind::Parallel, 0);
    state.push(2, Kind::Single, 10);
    state.push(3, Kind::UserRegion, 20);
    // The fast path only looks at the innermost frame.
    let closed = state.pop_to(2, Kind::Single, 50).unwrap();
    assert_eq!((closed.region, closed.kind), (2, Kind::Single));
    assert_eq!(state.stack.len(), 1);
    assert_eq!(child_of(&state, 2, Kind::UserRegion).inclusive_ns, 30);
    assert_eq!(child_of(&state, 1, Kind::Single).inclusive_ns, 40);
    assert!(state.pop_to(9, Kind::Single, 60).is_none());
    assert_eq!(state.unmatched_ends, 1);
}

#[test]
fn task_ids_carry_the_thread_number() {
    let mut first = ThreadState::new(0, Settings::default());
    let mut second = ThreadState::new(1, Settings::default());
    let (a, b) = (first.tasks.new_id(), second.tasks.new_id());
    assert_ne!(a, b);
    assert_eq!(a >> TASK_COUNTER_BITS, 1);
    assert_eq!(b >> TASK_COUNTER_BITS, 2);
    assert_eq!(first.tasks.new_id(), a + 1);
}

/// A clock that must not be read: events of throttled nodes take no
/// time stamps.
#[derive(Clone, Copy)]
struct Unreadable;

impl Clock for Unreadable {
    fn now(self) -> u64 {
        panic!("the clock was read for an untimed frame")
    }
}

/// Throttling after 3 visits of under 100 ticks each. Every test uses
/// the same rule: the threshold in ticks is measured once per process.
fn throttling() -> Settings {
    Settings {
        trace: false,
        throttle: Some(Rule {
            numcalls: 3,
            percall_ns: 100,
        }),
    }
}

#[test]
fn a_throttled_node_counts_visits_and_reads_no_clock() {
    let mut state = ThreadState::new(0, throttling());
    state.push(1, Kind::Parallel, 0);
    for visit in 0..3u64 {
        let t = 10 + visit * 20;
        state.push(2, Kind::For, t);
        state.pop_to(2, Kind::For, t + 10);
    }
    for _ in 0..7 {
        state.push(2, Kind::For, Unreadable);
        assert!(state.pop_to(2, Kind::For, Unreadable).is_some());
    }
    state.pop_to(1, Kind::Parallel, 1000);
    let parallel = child_of(&state, ROOT, Kind::Parallel);
    assert_eq!((parallel.visits, parallel.inclusive_ns), (1, 1000));
    assert!(parallel.throttled.is_none());
    let for_node = child_of(&state, 1, Kind::For);
    assert_eq!(for_node.visits, 10, "every visit counted");
    assert_eq!(for_node.inclusive_ns, 30, "time measured until throttled");
    assert_eq!(
        for_node.throttled,
        Some(Throttled {
            at_visit: 3,
            measured_ns: 30,
            timed_alone_ns: 0,
        })
    );
    // The untimed visits' time stays in the parallel region.
    assert_eq!(parallel.exclusive_ns(), 1000 - 30);
}

#[test]
fn inside_a_throttled_node_nothing_is_timed_but_everything_counted() {
    let mut state = ThreadState::new(0, throttling());
    // A throttled taskwait, inside which the tasks below run untimed.
    for t in [0, 100, 200] {
        state.push(3, Kind::Taskwait, t);
        state.pop_to(3, Kind::Taskwait, t + 5);
    }
    let mut t = 300;
    for _ in 0..3 {
        state.push(7, Kind::Task, t);
        state.pop_to(7, Kind::Task, t + 10);
        t += 20;
    }
    state.push(3, Kind::Taskwait, Unreadable);
    for _ in 0..5 {
        state.push(7, Kind::Task, Unreadable);
        state.push(8, Kind::Atomic, Unreadable);
        state.pop_to(8, Kind::Atomic, Unreadable);
        state.pop_to(7, Kind::Task, Unreadable);
    }
    state.pop_to(3, Kind::Taskwait, Unreadable);
    let task = child_of(&state, ROOT, Kind::Task);
    assert_eq!((task.visits, task.inclusive_ns), (8, 30));
    let atomic = child_of(&state, first_of_kind(&state, Kind::Task), Kind::Atomic);
    assert_eq!((atomic.visits, atomic.inclusive_ns), (5, 0));
    assert!(atomic.throttled.is_none(), "untimed, not throttled itself");
    assert!(task.inclusive_ns >= task.children_ns);
    assert_eq!(state.breakdown.task_execution_ns, 30);
}

#[test]
fn throttled_tasks_run_in_a_timed_taskwait_are_task_time_not_waiting() {
    let mut state = ThreadState::new(0, throttling());
    for t in [0, 100, 200] {
        state.push(7, Kind::Task, t);
        state.pop_to(7, Kind::Task, t + 40);
    }
    // A taskwait of 1000 ticks running 20 throttled tasks of 40 each:
    // each is timed alone, what runs inside it untimed.
    state.push(3, Kind::Taskwait, 1000);
    for i in 0..20 {
        let t = 1000 + i * 45;
        state.push(7, Kind::Task, t);
        state.push(8, Kind::Atomic, Unreadable);
        state.pop_to(8, Kind::Atomic, Unreadable);
        state.pop_to(7, Kind::Task, t + 40);
    }
    state.pop_to(3, Kind::Taskwait, 2000);
    let taskwait = child_of(&state, ROOT, Kind::Taskwait);
    assert_eq!(taskwait.inclusive_ns, 1000 - 20 * 40);
    assert_eq!(state.breakdown.taskwait_ns, 200);
    assert_eq!(state.breakdown.task_execution_ns, 120 + 800);
    let task = child_of(&state, ROOT, Kind::Task);
    assert_eq!((task.visits, task.inclusive_ns), (23, 920));
    assert_eq!(task.throttled.map(|t| t.timed_alone_ns), Some(800));
    assert_eq!(state.tree.node(ROOT).children_ns, 920 + 200);
    let atomic = child_of(&state, first_of_kind(&state, Kind::Task), Kind::Atomic);
    assert_eq!((atomic.visits, atomic.inclusive_ns), (20, 0));
}

#[test]
fn throttled_tasks_run_where_a_thread_works_stay_untimed() {
    let mut state = ThreadState::new(0, throttling());
    state.push(1, Kind::Parallel, 0);
    for t in [10, 100, 200] {
        state.push(7, Kind::Task, t);
        state.pop_to(7, Kind::Task, t + 40);
    }
    // Run undeferred where the thread was working (inside an untimed
    // creation, which opens no frame): the time stays with the region.
    for _ in 0..5 {
        state.push(7, Kind::Task, Unreadable);
        state.pop_to(7, Kind::Task, Unreadable);
    }
    state.pop_to(1, Kind::Parallel, 1000);
    let task = child_of(&state, ROOT, Kind::Task);
    assert_eq!((task.visits, task.inclusive_ns), (8, 120));
    let parallel = child_of(&state, ROOT, Kind::Parallel);
    assert_eq!(parallel.inclusive_ns, 1000 - 120);
}

#[test]
fn workers_begin_under_the_path_their_team_was_forked_from() {
    let mut master = ThreadState::new(0, Settings::default());
    master.push(1, Kind::UserRegion, 0);
    master.push(2, Kind::UserRegion, 10);
    let region = 203;
    master.fork(region, false, false, 20);
    let mut worker = ThreadState::new(1, Settings::default());
    for round in 0..2 {
        worker.begin_parallel(region, false, 30 + round);
        worker.push(region, Kind::For, 40);
        worker.pop_to(region, Kind::For, 50);
        worker.end_parallel(region, false, 60);
    }
    let main = child_of(&worker, ROOT, Kind::UserRegion);
    assert_eq!((main.region, main.visits), (1, 0), "a path, not a visit");
    let function = child_of(&worker, 1, Kind::UserRegion);
    assert_eq!(function.region, 2);
    let parallel = child_of(&worker, 2, Kind::Parallel);
    let (visits, parallel_ns) = (parallel.visits, parallel.inclusive_ns);
    assert_eq!(visits, 2);
    assert_eq!(
        worker.context, ROOT,
        "the worker's own context is left as it was"
    );
    worker.tree.complete_fork_paths();
    let main = child_of(&worker, ROOT, Kind::UserRegion);
    assert_eq!(main.inclusive_ns, parallel_ns);
    assert_eq!(worker.tree.node(ROOT).children_ns, parallel_ns);
    // A fork from the root publishes no path.
    let mut other = ThreadState::new(2, Settings::default());
    other.fork(region, false, false, 100);
    let mut late = ThreadState::new(3, Settings::default());
    late.begin_parallel(region, false, 110);
    assert_eq!(child_of(&late, ROOT, Kind::Parallel).region, region);
}

#[test]
fn a_task_run_in_a_throttled_region_is_still_timed() {
    let mut state = ThreadState::new(0, throttling());
    for t in [0, 100, 200] {
        state.push(3, Kind::Taskwait, t);
        state.pop_to(3, Kind::Taskwait, t + 5);
    }
    state.push(3, Kind::Taskwait, Unreadable);
    state.push(4, Kind::Task, 1000);
    state.pop_to(4, Kind::Task, 1500);
    state.pop_to(3, Kind::Taskwait, Unreadable);
    let task = child_of(&state, ROOT, Kind::Task);
    assert_eq!((task.visits, task.inclusive_ns), (1, 500));
    let taskwait = child_of(&state, ROOT, Kind::Taskwait);
    assert_eq!((taskwait.visits, taskwait.inclusive_ns), (4, 15));
}

#[test]
fn slow_nodes_and_settings_without_throttling_stay_timed() {
    let mut slow = ThreadState::new(0, throttling());
    let mut fast_unthrottled = ThreadState::new(1, Settings::default());
    for visit in 0..10u64 {
        slow.push(2, Kind::Critical, visit * 1000);
        slow.pop_to(2, Kind::Critical, visit * 1000 + 500);
        fast_unthrottled.push(2, Kind::Critical, visit * 10);
        fast_unthrottled.pop_to(2, Kind::Critical, visit * 10 + 1);
    }
    let slow = child_of(&slow, ROOT, Kind::Critical);
    assert_eq!(
        (slow.visits, slow.inclusive_ns, slow.throttled),
        (10, 5000, None)
    );
    let fast = child_of(&fast_unthrottled, ROOT, Kind::Critical);
    assert_eq!(
        (fast.visits, fast.inclusive_ns, fast.throttled),
        (10, 10, None)
    );
}

#[test]
fn an_inferred_barrier_is_the_wait_for_the_release_less_tasks_run_meanwhile() {
    let mut state = ThreadState::new(0, Settings::default());
    state.open_with(
        1,
        Kind::Parallel,
        Opening {
            timing: Timing::Own,
            fork: ForkState::NotForked,
            created_task: 0,
            ..Opening::OWN
        },
        |_| 5,
        0,
    );
    state.arrive(100, ForkState::AwaitingRelease);
    // A task of the team runs on this thread while it waits.
    state.push(2, Kind::Task, 110);
    state.pop_to(2, Kind::Task, 130);
    let frame = state.stack.pop().unwrap();
    state.close_inferred(&frame, 150, 150);
    let parallel = child_of(&state, ROOT, Kind::Parallel);
    assert_eq!((parallel.visits, parallel.inclusive_ns), (1, 150 - 20));
    let barrier = child_of(&state, 1, Kind::ImplicitBarrier);
    assert_eq!((barrier.visits, barrier.inclusive_ns), (1, 30));
    assert_eq!(state.breakdown.implicit_barrier_ns, 30);
    assert_eq!(parallel.exclusive_ns(), 100);
}

#[test]
fn the_master_closes_at_its_join_and_a_release_before_arrival_waits_nothing() {
    let mut state = ThreadState::new(0, Settings::default());
    state.open_with(
        1,
        Kind::Parallel,
        Opening {
            timing: Timing::Own,
            fork: ForkState::InTeam,
            created_task: 0,
            ..Opening::OWN
        },
        |_| NO_INSTANCE,
        0,
    );
    state.arrive(100, ForkState::AwaitingJoin);
    // Clocks of two cores may disagree by a few ticks.
    state.join(1, Some(98), 120).unwrap();
    let parallel = child_of(&state, ROOT, Kind::Parallel);
    assert_eq!((parallel.visits, parallel.inclusive_ns), (1, 120));
    let barrier = child_of(&state, 1, Kind::ImplicitBarrier);
    assert_eq!((barrier.visits, barrier.inclusive_ns), (1, 0));
}

#[test]
fn teams_of_one_leave_a_worker_its_release_to_find() {
    let region = 241;
    let mut master = ThreadState::new(0, Settings::default());
    let mut worker = ThreadState::new(1, Settings::default());
    master.fork(region, true, false, 0);
    master.begin_parallel(region, true, 10);
    worker.begin_parallel(region, true, 10);
    worker.end_parallel(region, true, 40);
    master.end_parallel(region, true, 100);
    master.join_parallel(region, true, 0, 110);
    // The region again, many times, with an `if` clause that is false:
    // the worker, idle in its pool, learns of its release only later.
    for round in 0..10 {
        let t = 200 + round * 100;
        master.fork(region, true, true, t);
        master.begin_parallel(region, true, t + 10);
        master.end_parallel(region, true, t + 50);
        master.join_parallel(region, true, 0, t + 60);
    }
    worker.close_all_released();
    assert_eq!(
        (master.barriers_not_inferred, worker.barriers_not_inferred),
        (0, 0)
    );
    let waited = child_of(
        &worker,
        first_of_kind(&worker, Kind::Parallel),
        Kind::ImplicitBarrier,
    );
    assert_eq!((waited.visits, waited.inclusive_ns), (1, 60));
    let alone = child_of(
        &master,
        first_of_kind(&master, Kind::Parallel),
        Kind::ImplicitBarrier,
    );
    assert_eq!(alone.visits, 11, "the team's barrier and ten of one");
}

#[test]
fn team_workers_leave_throttling_to_the_master() {
    let mut state = ThreadState::new(1, throttling());
    for round in 0..5u64 {
        let t = round * 100;
        let timing = Timing::Team { timed: true };
        state.open_with(
            1,
            Kind::Parallel,
            Opening {
                timing,
                fork: ForkState::NotForked,
                created_task: 0,
                ..Opening::OWN
            },
            |_| round + 1,
            t,
        );
        state.arrive(t + 10, ForkState::AwaitingRelease);
        let frame = state.stack.pop().unwrap();
        state.close_inferred(&frame, t + 20, t + 20);
    }
    let parallel = child_of(&state, ROOT, Kind::Parallel);
    assert_eq!((parallel.visits, parallel.throttled), (5, None));
    // The master stopped timing: so do its workers, marked as throttled.
    state.open_with(
        1,
        Kind::Parallel,
        Opening {
            timing: Timing::Team { timed: false },
            fork: ForkState::NotForked,
            created_task: 0,
            ..Opening::OWN
        },
        |_| NO_INSTANCE,
        Unreadable,
    );
    state.pop_to(1, Kind::Parallel, Unreadable);
    let parallel = child_of(&state, ROOT, Kind::Parallel);
    assert_eq!(parallel.visits, 6);
    assert_eq!(
        parallel.throttled,
        Some(Throttled {
            at_visit: 5,
            measured_ns: 100,
            timed_alone_ns: 0,
        })
    );
}

#[test]
fn untimed_leaves_are_counted_without_a_frame() {
    let mut state = ThreadState::new(0, throttling());
    state.push(1, Kind::Parallel, 0);
    for t in [10, 20, 30] {
        state.push_leaf(2, Kind::Atomic, t);
        assert_eq!(state.stack.len(), 2, "a timed leaf has its frame");
        state.pop_leaf(2, Kind::Atomic, t + 1);
    }
    for _ in 0..4 {
        state.push_leaf(2, Kind::Atomic, Unreadable);
        assert_eq!(state.stack.len(), 1, "an untimed leaf has none");
        state.pop_leaf(2, Kind::Atomic, Unreadable);
    }
    state.pop_to(1, Kind::Parallel, 100);
    let atomic = child_of(&state, 1, Kind::Atomic);
    assert_eq!((atomic.visits, atomic.inclusive_ns), (7, 3));
    assert_eq!(state.unmatched_ends, 0);
    // An end without its begin is still noticed.
    state.pop_leaf(9, Kind::Atomic, 200);
    assert_eq!(state.unmatched_ends, 1);
}

/// A thread's state driven through the untimed fast path where it
/// takes the event, as the entry points do, and the same events
/// through the general path alone end with the same profile.
#[test]
fn the_untimed_fast_path_decides_as_the_general_path() {
    let mut general = ThreadState::new(0, throttling());
    let mut fast = ThreadState::new(0, throttling());
    let mut fast_handled = 0;
    for state in [&mut general, &mut fast] {
        state.push(1, Kind::Parallel, 0);
    }
    for round in 0..12u64 {
        let t = 10 + round * 100;
        // Alternating creating regions make a relation miss now and then.
        let creator = if round % 5 == 4 { 7 } else { NO_REGION };
        for (state, try_fast) in [(&mut general, false), (&mut fast, true)] {
            state.tasks.current_region = creator;
            // Each event: the fast path's try on `fast` only, else the
            // general path.
            let mut handled = |state: &mut ThreadState, fast_path: fn(&mut ThreadState) -> bool| {
                let done = try_fast && fast_path(state);
                fast_handled += done as u32;
                done
            };
            if handled(state, |s| {
                s.tasks.is_repeated_relation(2) && s.count_untimed_leaf(2, Kind::TaskCreate)
            }) {
                state.tasks.count_repeated_relation();
                state.tasks.new_id();
            } else {
                state.tasks.new_id();
                state.tasks.note_created(2);
                state.push_leaf(2, Kind::TaskCreate, t);
            }
            let task = state.tasks.id_base() | round as i64;
            if !handled(state, |s| s.open_untimed(2, Kind::Task)) {
                state.push(2, Kind::Task, t + 10);
            }
            state.tasks.current = task;
            state.tasks.current_region = 2;
            if !handled(state, |s| s.count_untimed_leaf(3, Kind::Atomic)) {
                state.push_leaf(3, Kind::Atomic, t + 20);
            }
            if !handled(state, |s| s.is_untimed_leaf_end(3, Kind::Atomic)) {
                state.pop_leaf(3, Kind::Atomic, t + 25);
            }
            if !handled(state, |s| s.close_untimed(2, Kind::Task)) {
                state.pop_to(2, Kind::Task, t + 40);
            }
            if !handled(state, |s| s.is_untimed_leaf_end(2, Kind::TaskCreate)) {
                state.pop_leaf(2, Kind::TaskCreate, t + 50);
            }
            state.tasks.current_region = NO_REGION;
        }
    }
    for state in [&mut general, &mut fast] {
        state.pop_to(1, Kind::Parallel, 2000);
    }
    assert!(fast_handled > 0, "the fast path took some events");
    let tree = |state: &ThreadState| {
        state
            .tree
            .nodes
            .iter()
            .map(|n| {
                let times = (n.inclusive_ns, n.children_ns, n.wait_ns);
                (n.region, n.kind, n.parent, n.visits, times, n.throttled)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(tree(&fast), tree(&general));
    assert_eq!(fast.tasks.relations, general.tasks.relations);
    assert_eq!(
        (fast.tasks.created, fast.tasks.counter(), fast.tasks.current),
        (
            general.tasks.created,
            general.tasks.counter(),
            general.tasks.current
        )
    );
    assert_eq!(fast.breakdown, general.breakdown);
    assert!(fast.stack.is_empty() && general.stack.is_empty());
    assert_eq!(fast.unmatched_ends, 0);
    let task = child_of(&fast, ROOT, Kind::Task);
    assert_eq!(task.visits, 12);
    assert!(task.throttled.is_some());
}

#[test]
fn frames_below_the_depth_limit_fold_into_one_untimed_node_each() {
    let mut state = ThreadState::new(0, Settings::default());
    let depth = MAX_TREE_DEPTH as u64 + 12;
    for level in 0..MAX_TREE_DEPTH as u64 {
        state.push(1, Kind::UserRegion, level);
    }
    // Below the limit: recursion of the same region, and a leaf in it.
    for _ in MAX_TREE_DEPTH as u64..depth {
        state.push(1, Kind::UserRegion, Unreadable);
        state.push_leaf(2, Kind::Atomic, Unreadable);
        state.pop_leaf(2, Kind::Atomic, Unreadable);
    }
    for _ in MAX_TREE_DEPTH as u64..depth {
        assert!(state.pop_to(1, Kind::UserRegion, Unreadable).is_some());
    }
    for level in (0..MAX_TREE_DEPTH as u64).rev() {
        state.pop_to(1, Kind::UserRegion, 1000 - level);
    }
    assert!(state.stack.is_empty());
    let deepest = (state.tree.nodes.iter())
        .position(|n| n.depth as usize == MAX_TREE_DEPTH)
        .unwrap() as NodeIndex;
    assert_eq!(state.tree.node(deepest).inclusive_ns, 1000 - 47 - 47);
    let folded = child_of(&state, deepest, Kind::UserRegion);
    assert!(folded.is_folded());
    assert_eq!((folded.visits, folded.inclusive_ns), (12, 0));
    let leaf = child_of(&state, deepest, Kind::Atomic);
    assert!(
        leaf.is_folded(),
        "the leaf hangs beside, not below, the folded region"
    );
    assert_eq!((leaf.visits, leaf.inclusive_ns), (12, 0));
    assert_eq!(state.tree.nodes.len(), MAX_TREE_DEPTH + 3);
    assert_eq!(state.tree.node(deepest).exclusive_ns(), 1000 - 47 - 47);
}

#[test]
fn task_recursion_deeper_than_the_limit_keeps_a_node_per_region() {
    // fib with tasks: a function, the creation of a task, and the task
    // run inside a taskwait, level after level. The stack grows by four
    // frames a level; the tree does not, task instances hanging off the
    // root.
    let mut state = ThreadState::new(0, Settings::default());
    let levels = MAX_TREE_DEPTH as u64;
    let mut t = 0;
    for _ in 0..levels {
        state.push(1, Kind::UserRegion, t);
        state.push_leaf(2, Kind::TaskCreate, t + 1);
        state.pop_leaf(2, Kind::TaskCreate, t + 2);
        state.push(3, Kind::Taskwait, t + 3);
        state.push(2, Kind::Task, t + 4);
        t += 10;
    }
    for _ in 0..levels {
        state.pop_to(2, Kind::Task, t);
        state.pop_to(3, Kind::Taskwait, t + 1);
        state.pop_to(1, Kind::UserRegion, t + 2);
        t += 10;
    }
    assert!(state.stack.len() as u64 == 0 && levels * 3 > MAX_TREE_DEPTH as u64);
    assert!(state.tree.nodes.iter().all(|n| !n.is_folded()));
    let task = first_of_kind(&state, Kind::Task);
    let in_task = child_of(&state, task, Kind::UserRegion);
    assert_eq!(in_task.visits, levels - 1);
    assert!(in_task.inclusive_ns > 0);
}

//! Per-thread measurement state and the registry that keeps it reachable
//! after its thread has ended.
//!
//! Each thread owns a call-path tree (an arena of nodes) and a stack of open
//! frames. Only the owning thread mutates them while the process runs; the
//! writer reads them once the runtime is frozen (see [`ThreadData::busy`]).

use crate::kind::Kind;
use crate::regions::{RegionId, NO_REGION};
use crate::trace::{ThreadTrace, TraceRecord};
use std::cell::{Cell, UnsafeCell};
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, Ordering};

pub type NodeIndex = u32;
pub const ROOT: NodeIndex = 0;
pub const NO_NODE: NodeIndex = NodeIndex::MAX;

/// Frames nested deeper than this get no tree node of their own; their time
/// stays with the deepest node. Deep recursion through instrumented
/// functions would otherwise make the profile nest beyond what JSON readers
/// accept (serde_json, for one, stops at 128 levels, two per tree level).
pub const MAX_TREE_DEPTH: usize = 48;

/// Task ids are the registering thread's number concatenated with a counter
/// of that thread, so creating one needs no synchronisation.
const TASK_COUNTER_BITS: u32 = 40;

#[derive(Debug, Clone)]
pub struct Node {
    pub region: RegionId,
    pub kind: Kind,
    pub parent: NodeIndex,
    first_child: NodeIndex,
    next_sibling: NodeIndex,
    /// The child found last; loops revisit the same child over and over.
    last_hit: NodeIndex,
    pub visits: u64,
    pub inclusive_ns: u64,
    pub children_ns: u64,
    /// Waiting inside the node: enter→begin of critical and ordered, the
    /// blocking part of `omp_set_lock`.
    pub wait_ns: u64,
}

impl Node {
    fn new(region: RegionId, kind: Kind, parent: NodeIndex) -> Self {
        Node {
            region,
            kind,
            parent,
            first_child: NO_NODE,
            next_sibling: NO_NODE,
            last_hit: NO_NODE,
            visits: 0,
            inclusive_ns: 0,
            children_ns: 0,
            wait_ns: 0,
        }
    }

    pub fn exclusive_ns(&self) -> u64 {
        self.inclusive_ns.saturating_sub(self.children_ns)
    }
}

/// The state of a frame opened by `Parallel_fork` on the forking thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForkState {
    NotForked,
    AwaitingBegin,
    InTeam,
    AwaitingJoin,
}

#[derive(Debug, Clone, Copy)]
pub struct Frame {
    pub node: NodeIndex,
    pub region: RegionId,
    pub kind: Kind,
    pub start: u64,
    /// This thread's task execution time when the frame opened; what is
    /// added while it is open was spent in tasks, not in the frame.
    task_time_at_start: u64,
    /// A time inside the frame: `begin` of critical/ordered, `end` of a
    /// forked parallel region.
    pub mark: u64,
    pub fork: ForkState,
    /// The task to resume when a task frame closes.
    pub saved_task: i64,
    pub saved_task_region: RegionId,
}

#[derive(Debug, Default, Clone, Copy)]
pub struct Breakdown {
    pub implicit_barrier_ns: u64,
    pub barrier_ns: u64,
    pub taskwait_ns: u64,
    pub critical_wait_ns: u64,
    pub ordered_wait_ns: u64,
    pub lock_wait_ns: u64,
    pub fork_ns: u64,
    pub join_ns: u64,
    pub task_create_ns: u64,
    pub task_execution_ns: u64,
}

impl Breakdown {
    pub fn add(&mut self, other: &Breakdown) {
        self.implicit_barrier_ns += other.implicit_barrier_ns;
        self.barrier_ns += other.barrier_ns;
        self.taskwait_ns += other.taskwait_ns;
        self.critical_wait_ns += other.critical_wait_ns;
        self.ordered_wait_ns += other.ordered_wait_ns;
        self.lock_wait_ns += other.lock_wait_ns;
        self.fork_ns += other.fork_ns;
        self.join_ns += other.join_ns;
        self.task_create_ns += other.task_create_ns;
        self.task_execution_ns += other.task_execution_ns;
    }

    /// Time threads spent waiting for each other rather than working.
    pub fn waiting_ns(&self) -> u64 {
        self.implicit_barrier_ns
            + self.barrier_ns
            + self.taskwait_ns
            + self.critical_wait_ns
            + self.ordered_wait_ns
            + self.lock_wait_ns
    }
}

/// Times in the tree, the breakdown and the trace are clock ticks while the
/// program runs (see [`crate::clock`]) and nanoseconds once rescaled.
///
/// Creation counts of one task region, and who created its instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskRelation {
    /// Region of the creating task; [`NO_REGION`] for an implicit task.
    pub parent_region: RegionId,
    pub child_region: RegionId,
    pub count: u64,
}

pub struct ThreadState {
    pub nodes: Vec<Node>,
    pub stack: Vec<Frame>,
    /// Total time this thread spent executing task instances.
    task_time_ns: u64,
    pub current_task: i64,
    pub current_task_region: RegionId,
    task_counter: u64,
    task_id_base: i64,
    pub breakdown: Breakdown,
    pub tasks_created: u64,
    pub task_relations: Vec<TaskRelation>,
    /// Index of the relation counted last.
    last_relation: usize,
    /// End events whose begin was not on this thread's stack (untied tasks
    /// resumed elsewhere, events after `POMP2_Off`).
    pub unmatched_ends: u64,
    /// Frames closed below [`MAX_TREE_DEPTH`], measured in their ancestor.
    pub frames_beyond_depth_limit: u64,
    pub events: u64,
    pub trace: ThreadTrace,
}

impl ThreadState {
    fn new(index: u32, trace: bool) -> Self {
        let task_id_base = ((index as i64) + 1) << TASK_COUNTER_BITS;
        let mut nodes = Vec::with_capacity(64);
        nodes.push(Node::new(NO_REGION, Kind::Thread, NO_NODE));
        ThreadState {
            nodes,
            stack: Vec::with_capacity(32),
            task_time_ns: 0,
            current_task: task_id_base,
            current_task_region: NO_REGION,
            task_counter: 0,
            task_id_base,
            breakdown: Breakdown::default(),
            tasks_created: 0,
            task_relations: Vec::new(),
            last_relation: 0,
            unmatched_ends: 0,
            frames_beyond_depth_limit: 0,
            events: 0,
            trace: ThreadTrace::new(trace),
        }
    }

    #[inline]
    pub fn new_task_id(&mut self) -> i64 {
        self.task_counter += 1;
        self.task_id_base | self.task_counter as i64
    }

    #[inline]
    fn child(&mut self, parent: NodeIndex, region: RegionId, kind: Kind) -> NodeIndex {
        let hint = self.nodes[parent as usize].last_hit;
        if hint != NO_NODE {
            let node = &self.nodes[hint as usize];
            if node.region == region && node.kind == kind {
                return hint;
            }
        }
        let mut cursor = self.nodes[parent as usize].first_child;
        while cursor != NO_NODE {
            let node = &self.nodes[cursor as usize];
            if node.region == region && node.kind == kind {
                self.nodes[parent as usize].last_hit = cursor;
                return cursor;
            }
            cursor = node.next_sibling;
        }
        self.new_child(parent, region, kind)
    }

    #[cold]
    fn new_child(&mut self, parent: NodeIndex, region: RegionId, kind: Kind) -> NodeIndex {
        let index = self.nodes.len() as NodeIndex;
        let mut node = Node::new(region, kind, parent);
        node.next_sibling = self.nodes[parent as usize].first_child;
        self.nodes.push(node);
        let parent_node = &mut self.nodes[parent as usize];
        parent_node.first_child = index;
        parent_node.last_hit = index;
        index
    }

    #[inline]
    fn top_node(&self) -> NodeIndex {
        self.stack
            .iter()
            .rev()
            .find(|frame| frame.node != NO_NODE)
            .map_or(ROOT, |frame| frame.node)
    }

    /// Opens a frame. Task instances hang off the root: their time belongs
    /// to the task, not to the region in which the thread picked them up.
    #[inline(always)]
    pub fn push(&mut self, region: RegionId, kind: Kind, now: u64) -> &mut Frame {
        let node = if kind.is_task() {
            self.child(ROOT, region, kind)
        } else if self.stack.len() >= MAX_TREE_DEPTH {
            NO_NODE
        } else {
            let parent = self.top_node();
            self.child(parent, region, kind)
        };
        self.stack.push(Frame {
            node,
            region,
            kind,
            start: now,
            task_time_at_start: self.task_time_ns,
            mark: now,
            fork: ForkState::NotForked,
            saved_task: self.current_task,
            saved_task_region: self.current_task_region,
        });
        self.stack.last_mut().unwrap()
    }

    /// The innermost open frame of `region` and `kind`.
    #[inline]
    pub fn find(&mut self, region: RegionId, kind: Kind) -> Option<&mut Frame> {
        self.stack
            .iter_mut()
            .rev()
            .find(|frame| frame.region == region && frame.kind == kind)
    }

    /// Closes every frame opened after the innermost frame of `region` and
    /// `kind`, and returns that frame: a cancelled construct never sees its
    /// end events, and an untied task may have left a frame behind.
    #[inline]
    pub fn close_above(&mut self, region: RegionId, kind: Kind, now: u64) -> Option<&mut Frame> {
        let position = self
            .stack
            .iter()
            .rposition(|frame| frame.region == region && frame.kind == kind);
        let Some(position) = position else {
            self.unmatched_ends += 1;
            return None;
        };
        while self.stack.len() > position + 1 {
            let frame = self.stack.pop().unwrap();
            self.close(&frame, now);
        }
        self.stack.last_mut()
    }

    /// Closes the innermost frame of `region` and `kind` and every frame
    /// opened after it.
    #[inline(always)]
    pub fn pop_to(&mut self, region: RegionId, kind: Kind, now: u64) -> Option<Frame> {
        // Almost always the frame to close is the innermost one.
        match self.stack.last() {
            Some(top) if top.region == region && top.kind == kind => {
                let frame = *top;
                self.stack.pop();
                self.close(&frame, now);
                Some(frame)
            }
            _ => self.pop_to_below(region, kind, now),
        }
    }

    #[cold]
    #[inline(never)]
    fn pop_to_below(&mut self, region: RegionId, kind: Kind, now: u64) -> Option<Frame> {
        self.close_above(region, kind, now)?;
        let frame = self.stack.pop().unwrap();
        self.close(&frame, now);
        Some(frame)
    }

    pub fn pop_all(&mut self, now: u64) {
        while let Some(frame) = self.stack.pop() {
            self.close(&frame, now);
        }
    }

    #[inline(always)]
    fn close(&mut self, frame: &Frame, now: u64) {
        let elapsed = now.saturating_sub(frame.start);
        let in_tasks = self.task_time_ns - frame.task_time_at_start;
        let inclusive = elapsed.saturating_sub(in_tasks);
        if frame.node == NO_NODE {
            self.frames_beyond_depth_limit += 1;
        } else {
            let node = &mut self.nodes[frame.node as usize];
            node.visits += 1;
            node.inclusive_ns += inclusive;
            let parent = node.parent;
            self.nodes[parent as usize].children_ns += inclusive;
        }
        match frame.kind {
            Kind::ImplicitBarrier => self.breakdown.implicit_barrier_ns += inclusive,
            Kind::Barrier => self.breakdown.barrier_ns += inclusive,
            Kind::Taskwait => self.breakdown.taskwait_ns += inclusive,
            Kind::TaskCreate | Kind::UntiedTaskCreate => self.breakdown.task_create_ns += inclusive,
            Kind::Task | Kind::UntiedTask => {
                self.breakdown.task_execution_ns += inclusive;
                self.task_time_ns += inclusive;
                self.current_task = frame.saved_task;
                self.current_task_region = frame.saved_task_region;
            }
            _ => {}
        }
        if self.trace.enabled {
            self.trace.record(TraceRecord {
                start_ns: frame.start,
                duration_ns: elapsed,
                region: frame.region,
                kind: frame.kind,
                task: self.current_task,
            });
        }
    }

    /// Converts every stored time from clock ticks to nanoseconds, once,
    /// before the data is written.
    pub fn rescale(&mut self, scale: &crate::clock::Scale) {
        for node in &mut self.nodes {
            node.inclusive_ns = scale.ns(node.inclusive_ns);
            node.children_ns = scale.ns(node.children_ns);
            node.wait_ns = scale.ns(node.wait_ns);
        }
        let b = &mut self.breakdown;
        for field in [
            &mut b.implicit_barrier_ns,
            &mut b.barrier_ns,
            &mut b.taskwait_ns,
            &mut b.critical_wait_ns,
            &mut b.ordered_wait_ns,
            &mut b.lock_wait_ns,
            &mut b.fork_ns,
            &mut b.join_ns,
            &mut b.task_create_ns,
            &mut b.task_execution_ns,
        ] {
            *field = scale.ns(*field);
        }
        for record in &mut self.trace.records {
            record.start_ns = scale.since_start_ns(record.start_ns);
            record.duration_ns = scale.ns(record.duration_ns);
        }
    }

    /// An event without duration (cancel, cancellation point, test_lock).
    #[inline]
    pub fn point(&mut self, region: RegionId, kind: Kind) {
        let node = self.child(self.top_node(), region, kind);
        self.nodes[node as usize].visits += 1;
    }

    /// A measured leaf that never stays open (a blocking lock acquisition).
    #[inline]
    pub fn leaf(&mut self, region: RegionId, kind: Kind, start: u64, end: u64) {
        let parent = self.top_node();
        let node = self.child(parent, region, kind);
        let duration = end.saturating_sub(start);
        let node = &mut self.nodes[node as usize];
        node.visits += 1;
        node.inclusive_ns += duration;
        node.wait_ns += duration;
        self.nodes[parent as usize].children_ns += duration;
        if self.trace.enabled {
            self.trace.record(TraceRecord {
                start_ns: start,
                duration_ns: duration,
                region,
                kind,
                task: self.current_task,
            });
        }
    }

    #[inline(always)]
    pub fn note_task_created(&mut self, child_region: RegionId) {
        self.tasks_created += 1;
        let parent_region = self.current_task_region;
        // A loop creating tasks hits the same relation over and over.
        if let Some(relation) = self.task_relations.get_mut(self.last_relation) {
            if relation.parent_region == parent_region && relation.child_region == child_region {
                relation.count += 1;
                return;
            }
        }
        self.note_other_task_relation(parent_region, child_region);
    }

    #[cold]
    #[inline(never)]
    fn note_other_task_relation(&mut self, parent_region: RegionId, child_region: RegionId) {
        let found = self
            .task_relations
            .iter()
            .position(|r| r.parent_region == parent_region && r.child_region == child_region);
        self.last_relation = match found {
            Some(index) => index,
            None => {
                self.task_relations.push(TaskRelation {
                    parent_region,
                    child_region,
                    count: 0,
                });
                self.task_relations.len() - 1
            }
        };
        self.task_relations[self.last_relation].count += 1;
    }
}

pub struct ThreadData {
    /// Set by the owner around every mutation. The writer freezes the
    /// runtime and then waits for this to clear, so it never reads a tree
    /// that is being changed; the owner re-checks the phase after setting
    /// it, so it never starts a change once the writer has frozen.
    pub busy: AtomicBool,
    /// Cleared in a fork child for every thread that did not survive.
    pub live: AtomicBool,
    pub index: u32,
    pub os_tid: i64,
    next: *const ThreadData,
    state: UnsafeCell<ThreadState>,
}

// The state is only mutated by its owning thread, and only read by others
// under the busy/phase protocol described above.
unsafe impl Sync for ThreadData {}

impl ThreadData {
    /// # Safety
    /// The caller is the owning thread inside its busy section, or the
    /// writer after the runtime is frozen and `busy` is clear.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn state(&self) -> &mut ThreadState {
        &mut *self.state.get()
    }
}

/// All threads that ever recorded an event, newest first. Entries are
/// leaked on purpose: a thread's data outlives the thread. The list is
/// lock-free so that a fork child never inherits a held lock.
static THREADS: AtomicPtr<ThreadData> = AtomicPtr::new(ptr::null_mut());
static THREAD_COUNT: AtomicU32 = AtomicU32::new(0);

thread_local! {
    static CURRENT: Cell<*const ThreadData> = const { Cell::new(ptr::null()) };
}

#[inline(always)]
pub fn current() -> &'static ThreadData {
    let data = CURRENT.with(Cell::get);
    if data.is_null() {
        register()
    } else {
        unsafe { &*data }
    }
}

#[cold]
fn register() -> &'static ThreadData {
    let index = THREAD_COUNT.fetch_add(1, Ordering::Relaxed);
    let data = Box::leak(Box::new(ThreadData {
        busy: AtomicBool::new(false),
        live: AtomicBool::new(true),
        index,
        os_tid: unsafe { libc::syscall(libc::SYS_gettid) } as i64,
        next: ptr::null(),
        state: UnsafeCell::new(ThreadState::new(index, crate::config().trace)),
    }));
    let mut head = THREADS.load(Ordering::Acquire);
    loop {
        data.next = head;
        match THREADS.compare_exchange_weak(head, data, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => break,
            Err(actual) => head = actual,
        }
    }
    CURRENT.with(|current| current.set(data));
    data
}

/// Every registered thread, in registration order.
pub fn all() -> Vec<&'static ThreadData> {
    let mut threads = Vec::new();
    let mut cursor = THREADS.load(Ordering::Acquire) as *const ThreadData;
    while !cursor.is_null() {
        let data = unsafe { &*cursor };
        threads.push(data);
        cursor = data.next;
    }
    threads.reverse();
    threads
}

/// In a fork child only the forking thread lives on; it starts afresh so
/// that the child's profile holds the child's work alone.
pub fn reset_after_fork() {
    let survivor = CURRENT.with(Cell::get);
    for data in all() {
        if !ptr::eq(data, survivor) {
            data.live.store(false, Ordering::Relaxed);
        }
    }
    if !survivor.is_null() {
        let data = unsafe { &*survivor };
        data.busy.store(false, Ordering::Relaxed);
        unsafe { *data.state() = ThreadState::new(data.index, crate::config().trace) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn child_of(state: &ThreadState, parent: NodeIndex, kind: Kind) -> &Node {
        state
            .nodes
            .iter()
            .find(|n| n.parent == parent && n.kind == kind)
            .unwrap_or_else(|| panic!("no {kind:?} below node {parent}"))
    }

    #[test]
    fn an_end_skipped_by_cancel_is_closed_by_the_enclosing_end() {
        let mut state = ThreadState::new(0, false);
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
        let mut state = ThreadState::new(0, false);
        let implicit_task = state.current_task;
        state.push(1, Kind::ImplicitBarrier, 0);
        state.push(5, Kind::Task, 10);
        state.current_task = 77;
        state.pop_to(5, Kind::Task, 40);
        assert_eq!(state.current_task, implicit_task, "suspended task resumed");
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
        let mut state = ThreadState::new(0, false);
        state.push(1, Kind::Parallel, 0);
        let implicit_task = state.current_task;
        for round in 0..3u64 {
            let t = 100 + round * 100;
            state.note_task_created(2);
            let id = state.new_task_id();
            state.push(2, Kind::TaskCreate, t);
            state.push(2, Kind::Task, t + 10);
            state.current_task = id;
            state.current_task_region = 2;
            state.push(3, Kind::Atomic, t + 20);
            assert!(state.pop_to(3, Kind::Atomic, t + 25).is_some());
            assert!(state.pop_to(2, Kind::Task, t + 40).is_some());
            assert_eq!(state.current_task, implicit_task, "the creator resumes");
            assert!(state.pop_to(2, Kind::TaskCreate, t + 50).is_some());
        }
        state.pop_to(1, Kind::Parallel, 500);
        let task = child_of(&state, ROOT, Kind::Task);
        assert_eq!((task.visits, task.inclusive_ns), (3, 90));
        let create = child_of(&state, 1, Kind::TaskCreate);
        assert_eq!((create.visits, create.inclusive_ns), (3, 60));
        let task_index = state
            .nodes
            .iter()
            .position(|n| n.kind == Kind::Task)
            .unwrap();
        let atomic = child_of(&state, task_index as NodeIndex, Kind::Atomic);
        assert_eq!((atomic.visits, atomic.inclusive_ns), (3, 15));
        let parallel = child_of(&state, ROOT, Kind::Parallel);
        assert_eq!(parallel.inclusive_ns, 500 - 90, "task time is the task's");
        assert_eq!(state.breakdown.task_create_ns, 60);
        assert_eq!(state.breakdown.task_execution_ns, 90);
        assert_eq!(state.tasks_created, 3);
        assert_eq!(
            state.task_relations,
            [TaskRelation {
                parent_region: NO_REGION,
                child_region: 2,
                count: 3
            }]
        );
    }

    #[test]
    fn alternating_task_relations_are_counted_apart() {
        let mut state = ThreadState::new(0, false);
        for i in 0..10 {
            state.current_task_region = if i % 2 == 0 { NO_REGION } else { 7 };
            state.note_task_created(if i % 3 == 0 { 8 } else { 9 });
        }
        let count = |parent, child| {
            state
                .task_relations
                .iter()
                .find(|r| r.parent_region == parent && r.child_region == child)
                .map_or(0, |r| r.count)
        };
        // i = 0..10: (parent, child) pairs counted by hand.
        assert_eq!(count(NO_REGION, 8), 2); // 0, 6
        assert_eq!(count(NO_REGION, 9), 3); // 2, 4, 8
        assert_eq!(count(7, 8), 2); // 3, 9
        assert_eq!(count(7, 9), 3); // 1, 5, 7
        assert_eq!(state.task_relations.len(), 4);
        assert_eq!(state.tasks_created, 10);
    }

    #[test]
    fn closing_a_frame_below_the_top_closes_those_above() {
        let mut state = ThreadState::new(0, false);
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
        let mut first = ThreadState::new(0, false);
        let mut second = ThreadState::new(1, false);
        let (a, b) = (first.new_task_id(), second.new_task_id());
        assert_ne!(a, b);
        assert_eq!(a >> TASK_COUNTER_BITS, 1);
        assert_eq!(b >> TASK_COUNTER_BITS, 2);
        assert_eq!(first.new_task_id(), a + 1);
    }
}

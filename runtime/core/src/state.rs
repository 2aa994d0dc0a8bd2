//! A thread's measurement state: its call-path tree (an arena of nodes),
//! the stack of frames it has open, and its waiting and task counts.
//!
//! Only the owning thread mutates it while the process runs; the writer
//! reads it once the runtime is frozen (see [`crate::thread::ThreadData`]).
//! Times are clock ticks while the program runs (see [`crate::clock`]) and
//! nanoseconds once [`ThreadState::rescale`]d.

use crate::clock::Clock;
use crate::regions::{RegionId, NO_REGION};
use crate::team::{self, Instance, NO_INSTANCE};
use crate::throttle::{self, Rule};
use crate::trace::{ThreadTrace, TraceRecord};
use pomp2::profile::{Breakdown, Kind};

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
    /// Set once the node is throttled on this thread.
    pub throttled: Option<Throttled>,
}

/// When a node stopped being timed, and what had been measured by then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Throttled {
    pub at_visit: u64,
    pub measured_ns: u64,
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
            throttled: None,
        }
    }

    pub fn exclusive_ns(&self) -> u64 {
        self.inclusive_ns.saturating_sub(self.children_ns)
    }
}

/// Where a parallel frame is in its region: the forking thread's frame
/// goes from fork to join; a worker's, when the barrier is inferred, waits
/// after its end for the team's release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForkState {
    NotForked,
    AwaitingBegin,
    InTeam,
    AwaitingJoin,
    AwaitingRelease,
}

/// Whether a frame is timed by the thread's own throttling rule or as its
/// team's master decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timing {
    Own,
    Team { timed: bool },
}

#[derive(Debug, Clone, Copy)]
pub struct Frame {
    pub node: NodeIndex,
    /// The thread's context node when the frame opened, restored when it
    /// closes.
    outer_context: NodeIndex,
    pub region: RegionId,
    pub kind: Kind,
    /// Whether the frame reads the clock: its node is not throttled and no
    /// enclosing frame of the same task is untimed. An untimed frame's
    /// times are meaningless and never used.
    pub timed: bool,
    pub fork: ForkState,
    pub start: u64,
    /// This thread's task execution time when the frame opened; what is
    /// added while it is open was spent in tasks, not in the frame.
    task_time_at_start: u64,
    /// A time inside the frame: `begin` of critical/ordered, `end` of a
    /// parallel region.
    pub mark: u64,
    /// This thread's task execution time at `mark`.
    task_time_at_mark: u64,
    /// The team instance of a parallel region whose barrier is inferred.
    pub team: Instance,
    /// The task to resume when a task frame closes.
    pub saved_task: i64,
    pub saved_task_region: RegionId,
}

impl Frame {
    /// A worker's frame of a region whose master decides the timing.
    pub fn follows_team(&self) -> bool {
        self.team != NO_INSTANCE
            && matches!(self.fork, ForkState::NotForked | ForkState::AwaitingRelease)
    }
}

/// Creation counts of one task region, and who created its instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskRelation {
    /// Region of the creating task; [`NO_REGION`] for an implicit task.
    pub parent_region: RegionId,
    pub child_region: RegionId,
    pub count: u64,
}

/// What a thread's state is configured with.
#[derive(Debug, Clone, Copy, Default)]
pub struct Settings {
    pub trace: bool,
    pub throttle: Option<Rule>,
}

impl Settings {
    pub fn from_config() -> Self {
        let config = crate::config();
        Settings {
            trace: config.trace,
            throttle: config.throttle,
        }
    }
}

pub struct ThreadState {
    pub nodes: Vec<Node>,
    pub stack: Vec<Frame>,
    /// The node of the innermost open frame that has one (the root when
    /// none has): where a new frame's node is looked up.
    context: NodeIndex,
    /// Total time this thread spent executing timed task instances.
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
    /// Inferred barriers whose release time could not be known.
    pub barriers_not_inferred: u64,
    pub events: u64,
    pub trace: ThreadTrace,
    throttle: Option<Rule>,
    /// Visits from which a timed close considers throttling its node.
    throttle_check_from: u64,
    /// Whether a node is throttled: until then nearly every frame is timed
    /// and events skip the untimed fast path ([`crate::untimed`]).
    pub any_throttled: bool,
}

impl ThreadState {
    pub fn new(index: u32, settings: Settings) -> Self {
        let task_id_base = ((index as i64) + 1) << TASK_COUNTER_BITS;
        let mut nodes = Vec::with_capacity(64);
        nodes.push(Node::new(NO_REGION, Kind::Thread, NO_NODE));
        ThreadState {
            nodes,
            stack: Vec::with_capacity(32),
            context: ROOT,
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
            barriers_not_inferred: 0,
            events: 0,
            trace: ThreadTrace::new(settings.trace),
            throttle: settings.throttle,
            throttle_check_from: Rule::first_check(settings.throttle),
            any_throttled: false,
        }
    }

    #[inline]
    pub fn new_task_id(&mut self) -> i64 {
        self.task_counter += 1;
        self.task_id_base | self.task_counter as i64
    }

    /// A node by index. Indices come from the arena itself (its nodes'
    /// links, the context, the frames), so they are always in it.
    #[inline(always)]
    fn node(&self, index: NodeIndex) -> &Node {
        debug_assert!((index as usize) < self.nodes.len());
        // In bounds, as said above; the hot path spares the check.
        unsafe { self.nodes.get_unchecked(index as usize) }
    }

    #[inline(always)]
    fn node_mut(&mut self, index: NodeIndex) -> &mut Node {
        debug_assert!((index as usize) < self.nodes.len());
        unsafe { self.nodes.get_unchecked_mut(index as usize) }
    }

    #[inline(always)]
    fn child(&mut self, parent: NodeIndex, region: RegionId, kind: Kind) -> NodeIndex {
        match self.cached_child(parent, region, kind) {
            Some(node) => node,
            None => self.child_by_search(parent, region, kind),
        }
    }

    /// The child of `parent` for `region` and `kind` when it is the child
    /// found last, which needs no search.
    #[inline(always)]
    fn cached_child(&self, parent: NodeIndex, region: RegionId, kind: Kind) -> Option<NodeIndex> {
        let hint = self.node(parent).last_hit;
        if hint == NO_NODE {
            return None;
        }
        let node = self.node(hint);
        (node.region == region && node.kind == kind).then_some(hint)
    }

    #[cold]
    #[inline(never)]
    fn child_by_search(&mut self, parent: NodeIndex, region: RegionId, kind: Kind) -> NodeIndex {
        let mut cursor = self.nodes[parent as usize].first_child;
        while cursor != NO_NODE {
            let node = &self.nodes[cursor as usize];
            if node.region == region && node.kind == kind {
                self.nodes[parent as usize].last_hit = cursor;
                return cursor;
            }
            cursor = node.next_sibling;
        }
        let index = self.nodes.len() as NodeIndex;
        let mut node = Node::new(region, kind, parent);
        node.next_sibling = self.nodes[parent as usize].first_child;
        self.nodes.push(node);
        let parent_node = &mut self.nodes[parent as usize];
        parent_node.first_child = index;
        parent_node.last_hit = index;
        index
    }

    /// Opens a leaf construct: one in which no other opens, except task
    /// instances, which hang off the root (atomic, flush, task creation).
    /// Untimed, it needs no frame: its visit is counted now, and
    /// [`Self::pop_leaf`] finds the same context and decides the same way.
    #[inline(always)]
    pub fn push_leaf(&mut self, region: RegionId, kind: Kind, clock: impl Clock) {
        if self.stack.len() >= MAX_TREE_DEPTH {
            self.push(region, kind, clock);
            return;
        }
        let node = self.child(self.context, region, kind);
        if self.times(node) {
            self.open(node, region, kind, true, clock);
        } else {
            self.node_mut(node).visits += 1;
        }
    }

    /// Closes a leaf construct opened by [`Self::push_leaf`].
    #[inline(always)]
    pub fn pop_leaf(&mut self, region: RegionId, kind: Kind, clock: impl Clock) {
        if let Some(top) = self.stack.last() {
            if top.region == region && top.kind == kind {
                self.pop_to(region, kind, clock);
                return;
            }
        }
        if self.stack.len() < MAX_TREE_DEPTH {
            let node = self.child(self.context, region, kind);
            if !self.times(node) {
                return;
            }
        }
        self.pop_to(region, kind, clock);
    }

    /// The events of untimed frames, handled when that needs no call: no
    /// search for a node, no allocation, no clock. Each returns false,
    /// having changed nothing, when the general path must handle the event
    /// (a timed frame, a node not found last, a full stack); the general
    /// path then decides exactly as these would have.
    ///
    /// [`Self::push_leaf`] of an untimed leaf: counts its visit.
    #[inline(always)]
    pub fn count_untimed_leaf(&mut self, region: RegionId, kind: Kind) -> bool {
        if self.stack.len() >= MAX_TREE_DEPTH {
            return false;
        }
        match self.cached_child(self.context, region, kind) {
            Some(node) if !self.times(node) => {
                self.node_mut(node).visits += 1;
                true
            }
            _ => false,
        }
    }

    /// [`Self::pop_leaf`] of an untimed leaf, which has nothing to do.
    #[inline(always)]
    pub fn is_untimed_leaf_end(&self, region: RegionId, kind: Kind) -> bool {
        if let Some(top) = self.stack.last() {
            if top.region == region && top.kind == kind {
                return false;
            }
        }
        self.stack.len() < MAX_TREE_DEPTH
            && self
                .cached_child(self.context, region, kind)
                .is_some_and(|node| !self.times(node))
    }

    /// [`Self::push`] of an untimed frame.
    #[inline(always)]
    pub fn open_untimed(&mut self, region: RegionId, kind: Kind) -> bool {
        if self.stack.len() == self.stack.capacity() {
            return false;
        }
        let untimed = if kind.is_task() {
            self.cached_child(ROOT, region, kind)
                .filter(|&node| self.node(node).throttled.is_some())
        } else if self.stack.len() >= MAX_TREE_DEPTH {
            None
        } else {
            self.cached_child(self.context, region, kind)
                .filter(|&node| !self.times(node))
        };
        let Some(node) = untimed else {
            return false;
        };
        self.open(node, region, kind, false, 0);
        true
    }

    /// [`Self::pop_to`] of the innermost frame when it is untimed.
    #[inline(always)]
    pub fn close_untimed(&mut self, region: RegionId, kind: Kind) -> bool {
        match self.stack.last() {
            Some(top) if top.region == region && top.kind == kind && !top.timed => {}
            _ => return false,
        }
        let Some(frame) = self.stack.pop() else {
            return false;
        };
        self.close_frame_untimed(&frame);
        true
    }

    /// Whether a task of `child_region` created now has the relation
    /// counted last, which [`Self::count_repeated_task_relation`] counts.
    #[inline(always)]
    pub fn is_repeated_task_relation(&self, child_region: RegionId) -> bool {
        self.task_relations
            .get(self.last_relation)
            .is_some_and(|relation| {
                relation.parent_region == self.current_task_region
                    && relation.child_region == child_region
            })
    }

    /// [`Self::note_task_created`] of a task whose relation is the one
    /// counted last.
    #[inline(always)]
    pub fn count_repeated_task_relation(&mut self) {
        if let Some(relation) = self.task_relations.get_mut(self.last_relation) {
            relation.count += 1;
        }
        self.tasks_created += 1;
    }

    /// Whether a frame of `node` opened now would be timed.
    #[inline(always)]
    fn times(&self, node: NodeIndex) -> bool {
        self.stack.last().is_none_or(|frame| frame.timed) && self.node(node).throttled.is_none()
    }

    /// Opens a frame. Task instances hang off the root: their time belongs
    /// to the task, not to the region in which the thread picked them up;
    /// and they are timed unless their own node is throttled.
    #[inline(always)]
    pub fn push(&mut self, region: RegionId, kind: Kind, clock: impl Clock) -> &mut Frame {
        self.push_with(region, kind, Timing::Own, clock)
    }

    #[inline(always)]
    pub fn push_with(
        &mut self,
        region: RegionId,
        kind: Kind,
        timing: Timing,
        clock: impl Clock,
    ) -> &mut Frame {
        let (node, enclosing_timed) = if kind.is_task() {
            (self.child(ROOT, region, kind), true)
        } else {
            let enclosing_timed = self.stack.last().is_none_or(|frame| frame.timed);
            if self.stack.len() >= MAX_TREE_DEPTH {
                (NO_NODE, enclosing_timed)
            } else {
                (self.child(self.context, region, kind), enclosing_timed)
            }
        };
        let timed = match timing {
            Timing::Own => {
                enclosing_timed && (node == NO_NODE || self.node(node).throttled.is_none())
            }
            Timing::Team { timed } => {
                if !timed && node != NO_NODE {
                    self.mark_throttled(node);
                }
                timed
            }
        };
        self.open(node, region, kind, timed, clock)
    }

    /// Pushes the frame of `node` (found for `region` and `kind`).
    #[inline(always)]
    fn open(
        &mut self,
        node: NodeIndex,
        region: RegionId,
        kind: Kind,
        timed: bool,
        clock: impl Clock,
    ) -> &mut Frame {
        let start = if timed { clock.now() } else { 0 };
        let outer_context = self.context;
        if node != NO_NODE {
            self.context = node;
        }
        self.stack.push(Frame {
            node,
            outer_context,
            region,
            kind,
            timed,
            fork: ForkState::NotForked,
            start,
            task_time_at_start: self.task_time_ns,
            mark: start,
            task_time_at_mark: self.task_time_ns,
            team: NO_INSTANCE,
            saved_task: self.current_task,
            saved_task_region: self.current_task_region,
        });
        self.stack.last_mut().unwrap()
    }

    /// The innermost frame arrives at the barrier ending its parallel
    /// region at `now`.
    pub fn arrive(&mut self, now: u64) -> Option<&mut Frame> {
        let task_time = self.task_time_ns;
        let frame = self.stack.last_mut()?;
        frame.mark = now;
        frame.task_time_at_mark = task_time;
        Some(frame)
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
    pub fn close_above(
        &mut self,
        region: RegionId,
        kind: Kind,
        clock: impl Clock,
    ) -> Option<&mut Frame> {
        let position = self
            .stack
            .iter()
            .rposition(|frame| frame.region == region && frame.kind == kind);
        let Some(position) = position else {
            self.unmatched_ends += 1;
            return None;
        };
        if self.stack.len() > position + 1 {
            self.close_from(position + 1, clock);
        }
        self.stack.last_mut()
    }

    /// Closes the frames from `position` up, reading the clock once.
    #[cold]
    #[inline(never)]
    fn close_from(&mut self, position: usize, clock: impl Clock) {
        let now = if self.stack[position..].iter().any(|f| f.timed) {
            clock.now()
        } else {
            0
        };
        while self.stack.len() > position {
            let frame = self.stack.pop().unwrap();
            if frame.fork == ForkState::AwaitingRelease {
                self.close_released(&frame);
            } else {
                self.close(&frame, now);
            }
        }
    }

    /// Closes the frames on top of the stack that wait for their team's
    /// release; a worker calls this when it begins its next region, after
    /// the barrier has released it.
    pub fn close_all_released(&mut self) {
        while let Some(frame) = self.stack.last() {
            if frame.fork != ForkState::AwaitingRelease {
                break;
            }
            let frame = self.stack.pop().unwrap();
            self.close_released(&frame);
        }
    }

    fn close_released(&mut self, frame: &Frame) {
        match team::release(frame.region, frame.team) {
            Some(release) => self.close_inferred(frame, release, release),
            None => {
                self.barriers_not_inferred += 1;
                self.close(frame, frame.mark);
            }
        }
    }

    /// Closes a parallel frame (already off the stack) whose thread arrived
    /// at the region's closing barrier at `frame.mark` and was released at
    /// `release`. The waiting, less the tasks the thread ran meanwhile, is
    /// the region's implicit-barrier time, in a node below the region as an
    /// explicit barrier's would be; the frame closes at `close_at`.
    pub fn close_inferred(&mut self, frame: &Frame, release: u64, close_at: u64) {
        let release = release.max(frame.mark);
        let in_tasks = self.task_time_ns - frame.task_time_at_mark;
        let waiting = (release - frame.mark).saturating_sub(in_tasks);
        if frame.node != NO_NODE {
            let barrier = self.child(frame.node, frame.region, Kind::ImplicitBarrier);
            if self.nodes[barrier as usize].throttled.is_some() {
                self.nodes[barrier as usize].visits += 1;
            } else {
                self.add_timed_visit(barrier, waiting);
                self.breakdown.implicit_barrier_ns += waiting;
                if self.trace.enabled {
                    self.trace.record(TraceRecord {
                        start_ns: frame.mark,
                        duration_ns: release - frame.mark,
                        region: frame.region,
                        kind: Kind::ImplicitBarrier,
                        task: self.current_task,
                    });
                }
            }
        } else {
            self.breakdown.implicit_barrier_ns += waiting;
        }
        self.close(frame, close_at.max(release));
    }

    /// Counts a timed visit of `index` lasting `inclusive`, in it and its
    /// parent, and throttles the node when the rule says so.
    #[inline(always)]
    fn add_timed_visit(&mut self, index: NodeIndex, inclusive: u64) {
        let node = self.node_mut(index);
        node.visits += 1;
        node.inclusive_ns += inclusive;
        let (visits, parent) = (node.visits, node.parent);
        self.node_mut(parent).children_ns += inclusive;
        if visits >= self.throttle_check_from {
            self.consider_throttling(index);
        }
    }

    /// Marks a node that stops being timed because of its team, not its
    /// own visits.
    fn mark_throttled(&mut self, index: NodeIndex) {
        let node = &mut self.nodes[index as usize];
        if node.throttled.is_none() {
            node.throttled = Some(Throttled {
                at_visit: node.visits,
                measured_ns: node.inclusive_ns,
            });
            self.any_throttled = true;
        }
    }

    /// Closes the innermost frame of `region` and `kind` and every frame
    /// opened after it.
    #[inline(always)]
    pub fn pop_to(&mut self, region: RegionId, kind: Kind, clock: impl Clock) -> Option<Frame> {
        // Almost always the frame to close is the innermost one.
        match self.stack.last() {
            Some(top) if top.region == region && top.kind == kind => {
                let frame = *top;
                self.stack.pop();
                self.close(&frame, clock);
                Some(frame)
            }
            _ => self.pop_to_below(region, kind, clock),
        }
    }

    #[cold]
    #[inline(never)]
    fn pop_to_below(&mut self, region: RegionId, kind: Kind, clock: impl Clock) -> Option<Frame> {
        let position = self
            .stack
            .iter()
            .rposition(|frame| frame.region == region && frame.kind == kind);
        let Some(position) = position else {
            self.unmatched_ends += 1;
            return None;
        };
        let frame = self.stack[position];
        self.close_from(position, clock);
        Some(frame)
    }

    /// Closes the forking thread's frame of a parallel region at its join;
    /// given the team's release time, with the region's closing barrier
    /// inferred.
    pub fn join(
        &mut self,
        region: RegionId,
        release: Option<u64>,
        clock: impl Clock,
    ) -> Option<Frame> {
        self.close_above(region, Kind::Parallel, clock)?;
        let frame = self.stack.pop().unwrap();
        match release {
            Some(release) => self.close_inferred(&frame, release, clock.now()),
            None => self.close(&frame, clock),
        }
        Some(frame)
    }

    pub fn pop_all(&mut self, clock: impl Clock) {
        if !self.stack.is_empty() {
            self.close_from(0, clock);
        }
    }

    #[inline(always)]
    fn close(&mut self, frame: &Frame, clock: impl Clock) {
        if !frame.timed {
            self.close_frame_untimed(frame);
            return;
        }
        self.context = frame.outer_context;
        if frame.kind.is_task() {
            self.current_task = frame.saved_task;
            self.current_task_region = frame.saved_task_region;
        }
        let now = clock.now();
        let elapsed = now.saturating_sub(frame.start);
        let in_tasks = self.task_time_ns - frame.task_time_at_start;
        let inclusive = elapsed.saturating_sub(in_tasks);
        if frame.node == NO_NODE {
            self.frames_beyond_depth_limit += 1;
        } else if frame.follows_team() {
            // The master decides whether its team times the region.
            let node = self.node_mut(frame.node);
            node.visits += 1;
            node.inclusive_ns += inclusive;
            let parent = node.parent;
            self.node_mut(parent).children_ns += inclusive;
        } else {
            self.add_timed_visit(frame.node, inclusive);
        }
        match frame.kind {
            Kind::ImplicitBarrier => self.breakdown.implicit_barrier_ns += inclusive,
            Kind::Barrier => self.breakdown.barrier_ns += inclusive,
            Kind::Taskwait => self.breakdown.taskwait_ns += inclusive,
            Kind::TaskCreate | Kind::UntiedTaskCreate => self.breakdown.task_create_ns += inclusive,
            Kind::Task | Kind::UntiedTask => {
                self.breakdown.task_execution_ns += inclusive;
                self.task_time_ns += inclusive;
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

    #[inline(always)]
    fn close_frame_untimed(&mut self, frame: &Frame) {
        self.context = frame.outer_context;
        if frame.kind.is_task() {
            self.current_task = frame.saved_task;
            self.current_task_region = frame.saved_task_region;
        }
        if frame.node == NO_NODE {
            self.frames_beyond_depth_limit += 1;
        } else {
            self.node_mut(frame.node).visits += 1;
        }
    }

    #[cold]
    #[inline(never)]
    fn consider_throttling(&mut self, index: NodeIndex) {
        let Some(rule) = self.throttle else { return };
        let node = &mut self.nodes[index as usize];
        if node.throttled.is_none()
            && throttle::is_cheap(
                node.visits,
                node.inclusive_ns,
                throttle::percall_ticks(rule),
            )
        {
            node.throttled = Some(Throttled {
                at_visit: node.visits,
                measured_ns: node.inclusive_ns,
            });
            self.any_throttled = true;
        }
    }

    /// Converts every stored time from clock ticks to nanoseconds, once,
    /// before the data is written.
    pub fn rescale(&mut self, scale: &crate::clock::Scale) {
        for node in &mut self.nodes {
            node.inclusive_ns = scale.ns(node.inclusive_ns);
            node.children_ns = scale.ns(node.children_ns);
            node.wait_ns = scale.ns(node.wait_ns);
            if let Some(throttled) = &mut node.throttled {
                throttled.measured_ns = scale.ns(throttled.measured_ns);
            }
        }
        for field in self.breakdown.fields_mut() {
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
        let node = self.child(self.context, region, kind);
        self.node_mut(node).visits += 1;
    }

    /// Whether a lock acquisition of `kind` made now would be untimed; if
    /// so, its visit is counted here.
    #[inline]
    pub fn count_if_untimed_leaf(&mut self, region: RegionId, kind: Kind) -> bool {
        let node = self.child(self.context, region, kind);
        if self.times(node) {
            return false;
        }
        self.node_mut(node).visits += 1;
        true
    }

    /// A measured leaf that never stays open (a blocking lock acquisition).
    #[inline]
    pub fn leaf(&mut self, region: RegionId, kind: Kind, start: u64, end: u64) {
        let index = self.child(self.context, region, kind);
        let duration = end.saturating_sub(start);
        self.nodes[index as usize].wait_ns += duration;
        self.add_timed_visit(index, duration);
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
        let mut state = ThreadState::new(0, Settings::default());
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
        let mut state = ThreadState::new(0, Settings::default());
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
        let (a, b) = (first.new_task_id(), second.new_task_id());
        assert_ne!(a, b);
        assert_eq!(a >> TASK_COUNTER_BITS, 1);
        assert_eq!(b >> TASK_COUNTER_BITS, 2);
        assert_eq!(first.new_task_id(), a + 1);
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
                measured_ns: 30
            })
        );
        // The untimed visits' time stays in the parallel region.
        assert_eq!(parallel.exclusive_ns(), 1000 - 30);
    }

    #[test]
    fn inside_a_throttled_node_nothing_is_timed_but_everything_counted() {
        let mut state = ThreadState::new(0, throttling());
        let mut t = 0;
        for _ in 0..3 {
            state.push(7, Kind::Task, t);
            state.pop_to(7, Kind::Task, t + 10);
            t += 20;
        }
        for _ in 0..5 {
            state.push(7, Kind::Task, Unreadable);
            state.push(8, Kind::Atomic, Unreadable);
            state.pop_to(8, Kind::Atomic, Unreadable);
            state.pop_to(7, Kind::Task, Unreadable);
        }
        let task = child_of(&state, ROOT, Kind::Task);
        assert_eq!((task.visits, task.inclusive_ns), (8, 30));
        let task_index = state
            .nodes
            .iter()
            .position(|n| n.kind == Kind::Task)
            .unwrap();
        let atomic = child_of(&state, task_index as NodeIndex, Kind::Atomic);
        assert_eq!((atomic.visits, atomic.inclusive_ns), (5, 0));
        assert!(atomic.throttled.is_none(), "untimed, not throttled itself");
        assert!(task.inclusive_ns >= task.children_ns);
        assert_eq!(state.breakdown.task_execution_ns, 30);
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
        state.push(1, Kind::Parallel, 0).team = 5;
        state.arrive(100).unwrap().fork = ForkState::AwaitingRelease;
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
        state.push(1, Kind::Parallel, 0).fork = ForkState::InTeam;
        state.arrive(100).unwrap().fork = ForkState::AwaitingJoin;
        // Clocks of two cores may disagree by a few ticks.
        state.join(1, Some(98), 120).unwrap();
        let parallel = child_of(&state, ROOT, Kind::Parallel);
        assert_eq!((parallel.visits, parallel.inclusive_ns), (1, 120));
        let barrier = child_of(&state, 1, Kind::ImplicitBarrier);
        assert_eq!((barrier.visits, barrier.inclusive_ns), (1, 0));
    }

    #[test]
    fn team_workers_leave_throttling_to_the_master() {
        let mut state = ThreadState::new(1, throttling());
        for round in 0..5u64 {
            let t = round * 100;
            let timing = Timing::Team { timed: true };
            state.push_with(1, Kind::Parallel, timing, t).team = round + 1;
            state.arrive(t + 10).unwrap().fork = ForkState::AwaitingRelease;
            let frame = state.stack.pop().unwrap();
            state.close_inferred(&frame, t + 20, t + 20);
        }
        let parallel = child_of(&state, ROOT, Kind::Parallel);
        assert_eq!((parallel.visits, parallel.throttled), (5, None));
        // The master stopped timing: so do its workers, marked as throttled.
        state.push_with(1, Kind::Parallel, Timing::Team { timed: false }, Unreadable);
        state.pop_to(1, Kind::Parallel, Unreadable);
        let parallel = child_of(&state, ROOT, Kind::Parallel);
        assert_eq!(parallel.visits, 6);
        assert_eq!(
            parallel.throttled,
            Some(Throttled {
                at_visit: 5,
                measured_ns: 100
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
                state.current_task_region = creator;
                // Each event: the fast path's try on `fast` only, else the
                // general path.
                let mut handled =
                    |state: &mut ThreadState, fast_path: fn(&mut ThreadState) -> bool| {
                        let done = try_fast && fast_path(state);
                        fast_handled += done as u32;
                        done
                    };
                if handled(state, |s| {
                    s.is_repeated_task_relation(2) && s.count_untimed_leaf(2, Kind::TaskCreate)
                }) {
                    state.count_repeated_task_relation();
                    state.new_task_id();
                } else {
                    state.new_task_id();
                    state.note_task_created(2);
                    state.push_leaf(2, Kind::TaskCreate, t);
                }
                let task = state.task_id_base | round as i64;
                if !handled(state, |s| s.open_untimed(2, Kind::Task)) {
                    state.push(2, Kind::Task, t + 10);
                }
                state.current_task = task;
                state.current_task_region = 2;
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
                state.current_task_region = NO_REGION;
            }
        }
        for state in [&mut general, &mut fast] {
            state.pop_to(1, Kind::Parallel, 2000);
        }
        assert!(fast_handled > 0, "the fast path took some events");
        let tree = |state: &ThreadState| {
            state
                .nodes
                .iter()
                .map(|n| {
                    let times = (n.inclusive_ns, n.children_ns, n.wait_ns);
                    (n.region, n.kind, n.parent, n.visits, times, n.throttled)
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(tree(&fast), tree(&general));
        assert_eq!(fast.task_relations, general.task_relations);
        assert_eq!(
            (fast.tasks_created, fast.task_counter, fast.current_task),
            (
                general.tasks_created,
                general.task_counter,
                general.current_task
            )
        );
        assert_eq!(fast.breakdown, general.breakdown);
        assert!(fast.stack.is_empty() && general.stack.is_empty());
        assert_eq!(fast.unmatched_ends, 0);
        let task = child_of(&fast, ROOT, Kind::Task);
        assert_eq!(task.visits, 12);
        assert!(task.throttled.is_some());
    }
}

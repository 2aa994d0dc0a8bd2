//! A thread's measurement state, in rooms of one job each: its call-path
//! tree ([`tree`]), the frames it has open ([`frame`]), its task
//! bookkeeping ([`tasks`]), what parallel regions and their inferred
//! barriers need ([`parallel`]), its MPI calls ([`mpi`]), the untimed fast
//! path's side ([`untimed`]) and its throttling
//! ([`crate::throttle::Throttler`]). This
//! module ties them: it opens and closes frames and charges their time.
//!
//! Only the owning thread mutates it while the process runs; the writer
//! reads it once the runtime is frozen (see [`crate::thread::ThreadData`]).
//! Times are clock ticks while the program runs (see [`crate::clock`]) and
//! nanoseconds once [`ThreadState::rescale`]d.

mod fork_path;
mod frame;
pub mod mpi;
mod mpi_counts;
mod parallel;
mod tasks;
pub(crate) mod tree;
mod untimed;

pub use frame::{ForkState, Frame, Timing};
use mpi_counts::ThreadMpi;
pub use tasks::Tasks;
use tree::WorkerPath;
pub use tree::{CallTree, NodeIndex, NO_NODE, ROOT};

use crate::clock::Clock;
use crate::regions::RegionId;
use crate::team::{Instance, NO_INSTANCE};
use crate::throttle::{Rule, Throttler};
use crate::trace::ThreadTrace;
use pomp2::profile::{Breakdown, Kind};
use pomp2::trace::Span;

/// How a frame opens: timed by whom, where its parallel region is, the
/// task a task creation creates, and the node it opens under.
#[derive(Clone, Copy)]
struct Opening {
    timing: Timing,
    fork: ForkState,
    created_task: i64,
    /// [`NO_NODE`]: the thread's context.
    parent: NodeIndex,
}

impl Opening {
    /// A frame timed by the thread's own rule, outside any fork, in the
    /// thread's context.
    const OWN: Opening = Opening {
        timing: Timing::Own,
        fork: ForkState::NotForked,
        created_task: 0,
        parent: NO_NODE,
    };
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
    pub tree: CallTree,
    pub stack: Vec<Frame>,
    /// The node of the innermost open frame that has one (the root when
    /// none has): where a new frame's node is looked up.
    context: NodeIndex,
    /// The path this thread's last part of a parallel region began under.
    worker_path: WorkerPath,
    /// Total time this thread spent executing timed task instances.
    task_time_ns: u64,
    pub tasks: Tasks,
    pub breakdown: Breakdown,
    /// End events whose begin was not on this thread's stack (untied tasks
    /// resumed elsewhere, events after `POMP2_Off`).
    pub unmatched_ends: u64,
    /// Inferred barriers whose release time could not be known.
    pub barriers_not_inferred: u64,
    pub events: u64,
    pub trace: ThreadTrace,
    pub throttler: Throttler,
    pub mpi: ThreadMpi,
}

impl ThreadState {
    pub fn new(index: u32, settings: Settings) -> Self {
        ThreadState {
            tree: CallTree::new(),
            stack: Vec::with_capacity(32),
            context: ROOT,
            worker_path: WorkerPath::ROOT,
            task_time_ns: 0,
            tasks: Tasks::new(index),
            breakdown: Breakdown::default(),
            unmatched_ends: 0,
            barriers_not_inferred: 0,
            events: 0,
            trace: ThreadTrace::new(settings.trace, index),
            throttler: Throttler::new(settings.throttle),
            mpi: ThreadMpi::default(),
        }
    }

    /// Whether a frame of `node` opened now would be timed.
    #[inline(always)]
    fn times(&self, node: NodeIndex) -> bool {
        self.stack.last().is_none_or(|frame| frame.times_inside())
            && self.tree.node(node).is_timed()
    }

    /// Opens a leaf construct: one in which no other opens, except task
    /// instances, which hang off the root (atomic, flush, task creation).
    /// Untimed, it needs no frame: its visit is counted now, and
    /// [`Self::pop_leaf`] finds the same context and decides the same way.
    #[inline(always)]
    pub fn push_leaf(&mut self, region: RegionId, kind: Kind, clock: impl Clock) {
        self.push_leaf_creating(region, kind, 0, clock);
    }

    /// [`Self::push_leaf`] of a task's creation, which creates
    /// `created_task`.
    #[inline(always)]
    pub fn push_leaf_creating(
        &mut self,
        region: RegionId,
        kind: Kind,
        created_task: i64,
        clock: impl Clock,
    ) {
        let opening = Opening {
            created_task,
            ..Opening::OWN
        };
        let node = self.tree.child(self.context, region, kind);
        if self.times(node) {
            self.open(node, region, kind, true, opening, NO_INSTANCE, clock);
        } else {
            self.tree.node_mut(node).visits += 1;
        }
    }

    /// Closes a leaf construct opened by [`Self::push_leaf`].
    #[inline(always)]
    pub fn pop_leaf(&mut self, region: RegionId, kind: Kind, clock: impl Clock) {
        if let Some(top) = self.stack.last() {
            if top.is(region, kind) {
                self.pop_to(region, kind, clock);
                return;
            }
        }
        let node = self.tree.child(self.context, region, kind);
        if self.times(node) {
            self.pop_to(region, kind, clock);
        }
    }

    /// Opens a frame. Task instances hang off the root: their time belongs
    /// to the task, not to the region in which the thread picked them up;
    /// and they are timed unless their own node is throttled.
    #[inline(always)]
    pub fn push(&mut self, region: RegionId, kind: Kind, clock: impl Clock) {
        self.open_with(region, kind, Opening::OWN, |_| NO_INSTANCE, clock);
    }

    /// The frame of a task instance, `task` of `region`, which the thread
    /// executes until the frame closes.
    #[inline(always)]
    pub fn begin_task(&mut self, region: RegionId, kind: Kind, task: i64, clock: impl Clock) {
        // Task frames restore the suspended task when they close.
        self.push(region, kind, clock);
        self.tasks.switch_to(task, region);
    }

    /// Opens a frame as `opening` says, of the team instance that `team`
    /// gives for whether the frame is timed.
    #[inline(always)]
    fn open_with(
        &mut self,
        region: RegionId,
        kind: Kind,
        opening: Opening,
        team: impl FnOnce(bool) -> Instance,
        clock: impl Clock,
    ) {
        let (node, enclosing_timed) = if kind.is_task() {
            (self.tree.child(ROOT, region, kind), true)
        } else {
            let enclosing_timed = self.stack.last().is_none_or(|frame| frame.times_inside());
            let parent = if opening.parent == NO_NODE {
                self.context
            } else {
                opening.parent
            };
            (self.tree.child(parent, region, kind), enclosing_timed)
        };
        let timed = match opening.timing {
            // A task instance is timed unless its node is throttled; then
            // still, alone, where the thread began it while waiting, for
            // the waiting to leave the task's time out. Elsewhere its time
            // stays in the frame around it, work as the task's is.
            Timing::Own if kind.is_task() => {
                self.tree.node(node).throttled.is_none()
                    || self.stack.last().is_some_and(Frame::waits)
            }
            Timing::Own => enclosing_timed && self.tree.node(node).is_timed(),
            Timing::Team { timed } => {
                if !timed {
                    self.throttler.throttle_for_team(self.tree.node_mut(node));
                }
                timed
            }
        };
        let team = team(timed);
        self.open(node, region, kind, timed, opening, team, clock);
    }

    /// Pushes the frame of `node` (found for `region` and `kind`).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn open(
        &mut self,
        node: NodeIndex,
        region: RegionId,
        kind: Kind,
        timed: bool,
        opening: Opening,
        team: Instance,
        clock: impl Clock,
    ) {
        let start = if timed { clock.now() } else { 0 };
        let outer_context = self.context;
        if !self.tree.node(node).is_folded() {
            self.context = node;
        }
        let timed_alone = timed && kind.is_task() && self.tree.node(node).throttled.is_some();
        self.stack.push(Frame {
            node,
            outer_context,
            region,
            kind,
            timed,
            timed_alone,
            fork: opening.fork,
            start,
            task_time_at_start: self.task_time_ns,
            mark: start,
            task_time_at_mark: self.task_time_ns,
            team,
            task: match kind {
                Kind::TaskCreate | Kind::UntiedTaskCreate => opening.created_task,
                _ => self.tasks.current,
            },
            saved_task_region: self.tasks.current_region,
        });
    }

    /// The innermost open frame of `region` and `kind`.
    #[inline]
    pub fn find(&mut self, region: RegionId, kind: Kind) -> Option<&mut Frame> {
        self.stack
            .iter_mut()
            .rev()
            .find(|frame| frame.is(region, kind))
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
        let position = self.stack.iter().rposition(|frame| frame.is(region, kind));
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

    /// Counts a timed visit of `index` lasting `inclusive`, in it and its
    /// parent, and throttles the node when the rule says so.
    #[inline(always)]
    fn add_timed_visit(&mut self, index: NodeIndex, inclusive: u64) {
        let visits = self.tree.add_visit(index, inclusive);
        self.throttler
            .after_timed_visit(self.tree.node_mut(index), visits);
    }

    /// Closes the innermost frame of `region` and `kind` and every frame
    /// opened after it.
    #[inline(always)]
    pub fn pop_to(&mut self, region: RegionId, kind: Kind, clock: impl Clock) -> Option<Frame> {
        // Almost always the frame to close is the innermost one.
        match self.stack.last() {
            Some(top) if top.is(region, kind) => {
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
        let position = self.stack.iter().rposition(|frame| frame.is(region, kind));
        let Some(position) = position else {
            self.unmatched_ends += 1;
            return None;
        };
        let frame = self.stack[position];
        self.close_from(position, clock);
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
        let now = clock.now();
        let elapsed = now.saturating_sub(frame.start);
        let in_tasks = self.task_time_ns - frame.task_time_at_start;
        let inclusive = elapsed.saturating_sub(in_tasks);
        if frame.timed_alone {
            self.add_visit_timed_alone(frame.node, inclusive);
        } else if frame.follows_team() || frame.kind == Kind::Mpi {
            // The master decides whether its team times the region; MPI
            // calls are always timed (see `mpi`).
            self.tree.add_visit(frame.node, inclusive);
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
        // The trace holds the timed visits of nodes not throttled.
        if self.trace.enabled && !frame.timed_alone {
            self.trace_closed(frame, elapsed);
        }
        // A task instance's span is recorded before the thread resumes the
        // task it suspended.
        if frame.kind.is_task() {
            self.tasks.switch_to(frame.task, frame.saved_task_region);
        }
    }

    /// Records the span of a timed frame that closes.
    #[inline(always)]
    fn trace_closed(&mut self, frame: &Frame, elapsed: u64) {
        // The span names the task it ran in, created or executed.
        let task = match frame.kind {
            Kind::TaskCreate | Kind::UntiedTaskCreate => frame.task,
            _ => self.tasks.current,
        };
        let forked = frame.kind == Kind::Parallel
            && matches!(
                frame.fork,
                ForkState::AwaitingBegin | ForkState::InTeam | ForkState::AwaitingJoin
            );
        self.trace.record(Span {
            start: frame.start,
            duration: elapsed,
            region: frame.region,
            kind: frame.kind,
            task,
            forked,
        });
    }

    #[inline(always)]
    fn close_frame_untimed(&mut self, frame: &Frame) {
        self.context = frame.outer_context;
        if frame.kind.is_task() {
            self.tasks.switch_to(frame.task, frame.saved_task_region);
        }
        self.tree.node_mut(frame.node).visits += 1;
    }

    /// A visit of a throttled task instance timed alone, which lasted
    /// `inclusive`: counted in the task, where the thread's other tasks'
    /// time is. (The closing frame has counted it as task execution.)
    #[cold]
    #[inline(never)]
    fn add_visit_timed_alone(&mut self, node: NodeIndex, inclusive: u64) {
        let task = self.tree.node_mut(node);
        task.visits += 1;
        task.inclusive_ns += inclusive;
        let parent = task.parent;
        if let Some(throttled) = &mut task.throttled {
            throttled.timed_alone_ns += inclusive;
        }
        self.tree.node_mut(parent).children_ns += inclusive;
    }

    /// Records a timed span of the thread's current task in the trace,
    /// when there is one.
    #[inline(always)]
    fn trace_span(&mut self, start: u64, duration: u64, region: RegionId, kind: Kind) {
        if self.trace.enabled {
            self.trace.record(Span {
                start,
                duration,
                region,
                kind,
                task: self.tasks.current,
                forked: false,
            });
        }
    }

    /// Converts every stored time from clock ticks to nanoseconds, once,
    /// before the data is written.
    pub fn rescale(&mut self, scale: &crate::clock::Scale) {
        self.tree.rescale(scale);
        for field in self.breakdown.fields_mut() {
            *field = scale.ns(*field);
        }
        self.rescale_mpi(scale);
    }

    /// An event without duration (cancel, cancellation point, test_lock).
    #[inline]
    pub fn point(&mut self, region: RegionId, kind: Kind) {
        let node = self.tree.child(self.context, region, kind);
        self.tree.node_mut(node).visits += 1;
    }

    /// Whether a lock acquisition of `kind` made now would be untimed; if
    /// so, its visit is counted here.
    #[inline]
    pub fn count_if_untimed_leaf(&mut self, region: RegionId, kind: Kind) -> bool {
        let node = self.tree.child(self.context, region, kind);
        if self.times(node) {
            return false;
        }
        self.tree.node_mut(node).visits += 1;
        true
    }

    /// A measured leaf that never stays open (a blocking lock acquisition).
    #[inline]
    pub fn leaf(&mut self, region: RegionId, kind: Kind, start: u64, end: u64) {
        let index = self.tree.child(self.context, region, kind);
        let duration = end.saturating_sub(start);
        self.tree.node_mut(index).wait_ns += duration;
        self.add_timed_visit(index, duration);
        self.trace_span(start, duration, region, kind);
    }

    /// Critical or ordered entry granted at `now`: the time since the
    /// innermost frame of `region` and `kind` opened was spent waiting.
    pub fn entry_granted(&mut self, region: RegionId, kind: Kind, clock: impl Clock) {
        let Some(frame) = self.find(region, kind) else {
            return;
        };
        if !frame.timed {
            return;
        }
        let now = clock.now();
        let wait = now.saturating_sub(frame.start);
        frame.mark = now;
        let node = frame.node;
        self.tree.node_mut(node).wait_ns += wait;
        match kind {
            Kind::Critical => self.breakdown.critical_wait_ns += wait,
            _ => self.breakdown.ordered_wait_ns += wait,
        }
    }
}

#[cfg(test)]
mod tests;

//! Parallel regions on one thread: the fork and join of the forking
//! thread, a worker's part, and the waiting at the barrier that ends the
//! region when the runtime infers it from the team's arrivals
//! ([`crate::team`]).

use super::{ForkState, Frame, Opening, ThreadState, Timing};
use crate::clock::Clock;
use crate::regions::{RegionId, NO_REGION};
use crate::team::{self, Membership, NO_INSTANCE};
use pomp2::profile::Kind;

impl ThreadState {
    /// `Parallel_fork` on the forking thread: its frame lasts until the
    /// join. The team learns the call path it forks from. With the barrier
    /// inferred, a timed fork opens the team's instance; an untimed one
    /// tells the team not to time the region; a team of one (`alone`)
    /// needs no instance.
    pub fn fork(
        &mut self,
        region: RegionId,
        inferred_barrier: bool,
        alone: bool,
        clock: impl Clock,
    ) {
        team::publish_path(region, self.fork_path());
        let team = |timed: bool| {
            if !inferred_barrier {
                NO_INSTANCE
            } else if alone {
                team::ALONE
            } else if timed {
                team::open(region)
            } else {
                team::open_untimed(region);
                NO_INSTANCE
            }
        };
        let opening = Opening {
            fork: ForkState::AwaitingBegin,
            ..Opening::OWN
        };
        self.open_with(region, Kind::Parallel, opening, team, clock);
    }

    /// `Parallel_begin`: the forking thread enters its team, a worker
    /// opens its part of the region; either starts a new implicit task.
    pub fn begin_parallel(&mut self, region: RegionId, inferred_barrier: bool, clock: impl Clock) {
        let forked_here = match self.stack.last_mut() {
            Some(frame)
                if frame.is(region, Kind::Parallel) && frame.fork == ForkState::AwaitingBegin =>
            {
                frame.fork = ForkState::InTeam;
                Some(frame.timed.then(|| clock.now().saturating_sub(frame.start)))
            }
            _ => None,
        };
        match forked_here {
            Some(Some(fork_ns)) => {
                self.breakdown.fork_ns += fork_ns;
                if let Some(frame) = self.stack.last() {
                    self.tree.node_mut(frame.node).fork_ns += fork_ns;
                }
            }
            Some(None) => {}
            None => self.begin_as_worker(region, inferred_barrier, clock),
        }
        let task = self.tasks.new_id();
        self.tasks.switch_to(task, NO_REGION);
    }

    /// A team worker starts from idle: the barrier that ended its previous
    /// region has released it, and whatever else is still open was left by
    /// a cancelled region that skipped its ends. Its part of the region
    /// hangs under the path the forking thread forked from.
    fn begin_as_worker(&mut self, region: RegionId, inferred_barrier: bool, clock: impl Clock) {
        self.close_all_released();
        if !self.stack.is_empty() {
            self.unmatched_ends += self.stack.len() as u64;
            self.pop_all(clock);
        }
        let (timing, instance) = if !inferred_barrier {
            (Timing::Own, NO_INSTANCE)
        } else {
            match team::membership(region) {
                Membership::Team(instance) => (Timing::Team { timed: true }, instance),
                Membership::Untimed => (Timing::Team { timed: false }, NO_INSTANCE),
                Membership::Alone => (Timing::Own, NO_INSTANCE),
            }
        };
        let opening = Opening {
            timing,
            parent: self.node_under(team::forking_path(region)),
            ..Opening::OWN
        };
        self.open_with(region, Kind::Parallel, opening, |_| instance, clock);
    }

    /// `Parallel_end`: the thread arrives at the barrier ending the region.
    /// A member of an inferring team records its arrival and waits for the
    /// release; the forking thread keeps its frame until the join; any
    /// other worker closes its part.
    pub fn end_parallel(&mut self, region: RegionId, inferred_barrier: bool, clock: impl Clock) {
        let Some(frame) = self.close_above(region, Kind::Parallel, clock) else {
            return;
        };
        let forked_here = frame.fork == ForkState::InTeam;
        let (timed, team) = (frame.timed, frame.team);
        if timed && team != NO_INSTANCE && team != team::ALONE {
            let now = clock.now();
            team::arrive(region, now);
            let fork = if forked_here {
                ForkState::AwaitingJoin
            } else {
                ForkState::AwaitingRelease
            };
            self.arrive(now, fork);
        } else if forked_here {
            frame.fork = ForkState::AwaitingJoin;
            if timed {
                frame.mark = clock.now();
            }
        } else {
            if inferred_barrier && timed {
                self.barriers_not_inferred += 1;
            }
            self.pop_to(region, Kind::Parallel, clock);
        }
    }

    /// `Parallel_join` on the forking thread: the region closes, its
    /// barrier inferred from the team's release when it can be, and the
    /// thread resumes `old_task`.
    pub fn join_parallel(
        &mut self,
        region: RegionId,
        inferred_barrier: bool,
        old_task: i64,
        clock: impl Clock,
    ) {
        let closed = match self.find(region, Kind::Parallel) {
            Some(frame) if frame.timed && frame.fork == ForkState::AwaitingJoin => {
                let now = clock.now();
                let (arrival, instance, node) = (frame.mark, frame.team, frame.node);
                let release = match instance {
                    NO_INSTANCE => None,
                    team::ALONE => Some(arrival),
                    _ => team::close(region, instance, now),
                };
                if inferred_barrier && release.is_none() {
                    self.barriers_not_inferred += 1;
                }
                let join_ns = now.saturating_sub(release.unwrap_or(arrival));
                self.breakdown.join_ns += join_ns;
                self.tree.node_mut(node).join_ns += join_ns;
                self.join(region, release, now)
            }
            _ => self.pop_to(region, Kind::Parallel, clock),
        };
        let region_resumed = match closed {
            Some(frame) => frame.saved_task_region,
            None => self.tasks.current_region,
        };
        self.tasks.switch_to(old_task, region_resumed);
    }

    /// The innermost frame arrives at the barrier ending its parallel
    /// region at `now`, and waits there in `fork` state.
    pub(super) fn arrive(&mut self, now: u64, fork: ForkState) {
        let task_time = self.task_time_ns;
        if let Some(frame) = self.stack.last_mut() {
            frame.mark = now;
            frame.task_time_at_mark = task_time;
            frame.fork = fork;
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

    pub(super) fn close_released(&mut self, frame: &Frame) {
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
        // A timed frame's node is never folded: its barrier has a node.
        let barrier = self
            .tree
            .child(frame.node, frame.region, Kind::ImplicitBarrier);
        if self.tree.node(barrier).throttled.is_some() {
            self.tree.node_mut(barrier).visits += 1;
        } else {
            self.add_timed_visit(barrier, waiting);
            self.breakdown.implicit_barrier_ns += waiting;
            self.trace_span(
                frame.mark,
                release - frame.mark,
                frame.region,
                Kind::ImplicitBarrier,
            );
        }
        self.close(frame, close_at.max(release));
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
}

//! A frame: one open construct on a thread's stack, and what it needs to
//! be closed.

use crate::regions::RegionId;
use crate::team::{Instance, NO_INSTANCE};
use pomp2::profile::Kind;

use super::tree::NodeIndex;

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
    pub(super) outer_context: NodeIndex,
    pub region: RegionId,
    pub kind: Kind,
    /// Whether the frame reads the clock: its node is not throttled and no
    /// enclosing frame of the same task is untimed. An untimed frame's
    /// times are meaningless and never used.
    pub timed: bool,
    /// A visit of a throttled task instance timed alone, for the timed
    /// frame it began in: what opens inside it is untimed.
    pub timed_alone: bool,
    pub fork: ForkState,
    pub start: u64,
    /// This thread's task execution time when the frame opened; what is
    /// added while it is open was spent in tasks, not in the frame.
    pub(super) task_time_at_start: u64,
    /// A time inside the frame: `begin` of critical/ordered, `end` of a
    /// parallel region.
    pub mark: u64,
    /// This thread's task execution time at `mark`.
    pub(super) task_time_at_mark: u64,
    /// The team instance of a parallel region whose barrier is inferred.
    pub team: Instance,
    /// For a task instance, the task to resume when it closes; for a
    /// task's creation, the task it creates, which its span names.
    pub task: i64,
    pub saved_task_region: RegionId,
}

impl Frame {
    /// A worker's frame of a region whose master decides the timing.
    pub fn follows_team(&self) -> bool {
        self.team != NO_INSTANCE
            && matches!(self.fork, ForkState::NotForked | ForkState::AwaitingRelease)
    }

    /// Whether frames opened inside it may be timed.
    #[inline(always)]
    pub fn times_inside(&self) -> bool {
        self.timed && !self.timed_alone
    }

    /// A timed frame in which the thread waits (at a barrier, in a
    /// taskwait, in a task's creation, at the end of a parallel region):
    /// the tasks it runs there are timed, alone where their nodes are
    /// throttled, so that the waiting leaves their time out.
    #[inline(always)]
    pub fn waits(&self) -> bool {
        self.times_inside()
            && (matches!(
                self.kind,
                Kind::Barrier
                    | Kind::ImplicitBarrier
                    | Kind::Taskwait
                    | Kind::TaskCreate
                    | Kind::UntiedTaskCreate
            ) || matches!(
                self.fork,
                ForkState::AwaitingRelease | ForkState::AwaitingJoin
            ))
    }

    /// Whether the frame is the one `region` and `kind` name.
    #[inline(always)]
    pub fn is(&self, region: RegionId, kind: Kind) -> bool {
        self.region == region && self.kind == kind
    }
}

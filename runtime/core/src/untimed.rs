//! The fast path of untimed events: those of throttled nodes and of what
//! opens inside them, which make up nearly every event of a fine-grained
//! program once throttling has set in.
//!
//! Each function here handles its event completely, or returns false
//! having changed nothing and the event goes the general way
//! ([`crate::events`]). It makes no call at all, so that the entry point
//! it is inlined into needs no stack frame of its own before it knows that
//! the event is untimed; the general path is a separate function.

use crate::regions::{self, RegionId, NO_REGION};
use crate::{RegionHandle, TaskHandle, Update};
use pomp2::profile::Kind;

/// This thread's state, open for an update, and the region `handle`
/// names. The state comes first: before any node is throttled, that is all
/// an event pays for trying the fast path.
#[inline(always)]
unsafe fn open(handle: *mut RegionHandle) -> Option<(Update, RegionId)> {
    let update = crate::running_update()?;
    let region = regions::read_id(handle);
    (region != NO_REGION).then_some((update, region))
}

/// A construct's enter or begin ([`crate::events::enter`]).
#[inline(always)]
pub unsafe fn enter(handle: *mut RegionHandle, kind: Kind, leaf: bool) -> bool {
    if !crate::recording() {
        return false;
    }
    let Some((mut update, region)) = open(handle) else {
        return false;
    };
    let state = update.state();
    let handled = if leaf {
        state.count_untimed_leaf(region, kind)
    } else {
        state.open_untimed(region, kind)
    };
    state.events += handled as u64;
    handled
}

/// A construct's exit or end ([`crate::events::exit`]).
#[inline(always)]
pub unsafe fn exit(handle: *mut RegionHandle, kind: Kind, leaf: bool) -> bool {
    let Some((mut update, region)) = open(handle) else {
        return false;
    };
    let state = update.state();
    let handled = if leaf {
        state.is_untimed_leaf_end(region, kind)
    } else {
        state.close_untimed(region, kind)
    };
    state.events += handled as u64;
    handled
}

/// The end of a scheduling point ([`crate::events::exit_resuming_task`]).
#[inline(always)]
pub unsafe fn exit_resuming_task(
    handle: *mut RegionHandle,
    old_task: TaskHandle,
    kind: Kind,
    leaf: bool,
) -> bool {
    let Some((mut update, region)) = open(handle) else {
        return false;
    };
    let state = update.state();
    let handled = if leaf {
        state.is_untimed_leaf_end(region, kind)
    } else {
        state.close_untimed(region, kind)
    };
    if handled {
        state.tasks.current = old_task;
        state.events += 1;
    }
    handled
}

/// A task's creation ([`crate::events::task_create_begin`]).
#[inline(always)]
pub unsafe fn task_create_begin(
    handle: *mut RegionHandle,
    new_task: *mut TaskHandle,
    old_task: *mut TaskHandle,
    kind: Kind,
) -> bool {
    if new_task.is_null() || old_task.is_null() || !crate::recording() {
        return false;
    }
    let Some((mut update, region)) = open(handle) else {
        return false;
    };
    let state = update.state();
    if !state.tasks.is_repeated_relation(region) || !state.count_untimed_leaf(region, kind) {
        return false;
    }
    state.tasks.count_repeated_relation();
    *old_task = state.tasks.current;
    *new_task = state.tasks.new_id();
    state.events += 1;
    true
}

/// A task instance's begin ([`crate::events::task_begin`]).
#[inline(always)]
pub unsafe fn task_begin(handle: *mut RegionHandle, task: TaskHandle, kind: Kind) -> bool {
    let Some((mut update, region)) = open(handle) else {
        return false;
    };
    let state = update.state();
    if !state.open_untimed(region, kind) {
        return false;
    }
    state.tasks.switch_to(task, region);
    state.events += 1;
    true
}

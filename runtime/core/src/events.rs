//! What each POMP2 event does: the handlers that the entry points (C and
//! gfortran linkage, generated from `pomp2::events`; see
//! [`crate::entry_points`]) forward to, plus pomp's extended events.
//!
//! Every entry point tolerates a NULL handle pointer, an unassigned handle,
//! calls before initialisation and after finalisation: it then records
//! nothing, but still writes defined values into task-handle outputs.

// Safety contract of every entry point: pointers are NULL or valid as the
// POMP2 interface defines them (handle slots live as long as the program).
#![allow(clippy::missing_safety_doc)]

use crate::clock::Now;
use crate::regions::{self, Handle, RegionId};
use crate::state::ThreadState;
use crate::{record, RegionHandle, TaskHandle};
use pomp2::profile::Kind;
use std::ffi::{c_char, c_int};

/// Where a call's CTC string comes from; used to assign a handle lazily
/// when its registration function was never called.
#[derive(Clone, Copy)]
pub(crate) enum Ctc {
    Absent,
    C(*const c_char),
    Fortran(*const c_char, usize),
}

impl Ctc {
    unsafe fn bytes<'a>(self) -> &'a [u8] {
        match self {
            Ctc::Absent => &[],
            Ctc::C(ptr) => regions::c_string_bytes(ptr),
            Ctc::Fortran(ptr, len) => regions::fortran_string_bytes(ptr, len),
        }
    }
}

/// The entry points' events: the untimed fast path ([`untimed`]) first,
/// else the general path, in a function of its own made for the calling
/// entry point (so that the event's kind is a constant there) and never
/// inlined (so that an event the fast path handles needs no stack frame).
macro_rules! fast_or_general {
    ($fast:expr, $general:ident($($arg:ident: $ty:ty = $value:expr),*; $kind:expr $(,)?)) => {{
        $(let $arg: $ty = $value;)*
        if !$fast {
            #[inline(never)]
            unsafe fn general($($arg: $ty),*) {
                $crate::events::$general($($arg,)* $kind)
            }
            general($($arg),*)
        }
    }};
}

/// A construct's enter or begin.
macro_rules! enter {
    ($handle:expr, $ctc:expr, $kind:expr $(,)?) => {
        $crate::events::fast_or_general!(
            $crate::untimed::enter(handle, $kind, $crate::events::is_leaf($kind)),
            enter_generally(
                handle: *mut $crate::RegionHandle = $handle,
                ctc: $crate::events::Ctc = $ctc;
                $kind
            )
        )
    };
}

/// A construct's exit or end.
macro_rules! exit {
    ($handle:expr, $kind:expr $(,)?) => {
        $crate::events::fast_or_general!(
            $crate::untimed::exit(handle, $kind, $crate::events::is_leaf($kind)),
            exit_generally(handle: *mut $crate::RegionHandle = $handle; $kind)
        )
    };
}

/// The exit from a scheduling point.
macro_rules! exit_resuming_task {
    ($handle:expr, $old_task:expr, $kind:expr $(,)?) => {
        $crate::events::fast_or_general!(
            $crate::untimed::exit_resuming_task(
                handle,
                old_task,
                $kind,
                $crate::events::is_leaf($kind)
            ),
            exit_resuming_task_generally(
                handle: *mut $crate::RegionHandle = $handle,
                old_task: $crate::TaskHandle = $old_task;
                $kind
            )
        )
    };
}

/// A task's creation begins.
macro_rules! task_create_begin {
    ($handle:expr, $new_task:expr, $old_task:expr, $ctc:expr, $kind:expr $(,)?) => {
        $crate::events::fast_or_general!(
            $crate::untimed::task_create_begin(handle, new_task, old_task, $kind),
            task_create_begin_generally(
                handle: *mut $crate::RegionHandle = $handle,
                new_task: *mut $crate::TaskHandle = $new_task,
                old_task: *mut $crate::TaskHandle = $old_task,
                ctc: $crate::events::Ctc = $ctc;
                $kind
            )
        )
    };
}

/// A task instance begins.
macro_rules! task_begin {
    ($handle:expr, $task:expr, $kind:expr $(,)?) => {
        $crate::events::fast_or_general!(
            $crate::untimed::task_begin(handle, task, $kind),
            task_begin_generally(
                handle: *mut $crate::RegionHandle = $handle,
                task: $crate::TaskHandle = $task;
                $kind
            )
        )
    };
}

pub(crate) use fast_or_general;

#[inline(always)]
pub(crate) unsafe fn resolve(handle: *mut RegionHandle, ctc: Ctc) -> Option<RegionId> {
    resolve_handle(handle, ctc).map(|h| h.region)
}

/// The region a handle names. A handle is assigned by the registration,
/// which runs when the runtime starts, so an unassigned one starts the
/// runtime first; one still unassigned then is assigned from the event's
/// CTC string, if it has one. Whether the runtime runs (it may have
/// finished) is the update's to check.
#[inline(always)]
unsafe fn resolve_handle(handle: *mut RegionHandle, ctc: Ctc) -> Option<Handle> {
    match regions::read(handle) {
        Some(handle) => Some(handle),
        None => start_and_assign(handle, ctc),
    }
}

#[cold]
#[inline(never)]
unsafe fn start_and_assign(handle: *mut RegionHandle, ctc: Ctc) -> Option<Handle> {
    if !crate::ensure_running() {
        return None;
    }
    if let Some(handle) = regions::read(handle) {
        return Some(handle);
    }
    if !regions::is_unassigned(handle) {
        return None;
    }
    if matches!(ctc, Ctc::Absent) {
        regions::lose_event();
        return None;
    }
    regions::assign(handle, ctc.bytes())
}

#[inline(always)]
pub(crate) unsafe fn enter_generally(handle: *mut RegionHandle, ctc: Ctc, kind: Kind) {
    if !crate::recording() {
        return;
    }
    if let Some(region) = resolve(handle, ctc) {
        if let Some(mut update) = crate::update() {
            if is_leaf(kind) {
                update.state().push_leaf(region, kind, Now);
            } else {
                update.state().push(region, kind, Now);
            }
        }
    }
}

#[inline(always)]
pub(crate) unsafe fn exit_generally(handle: *mut RegionHandle, kind: Kind) {
    if let Some(region) = resolve(handle, Ctc::Absent) {
        if let Some(mut update) = crate::update() {
            if is_leaf(kind) {
                update.state().pop_leaf(region, kind, Now);
            } else {
                update.state().pop_to(region, kind, Now);
            }
        }
    }
}

/// Constructs in which no other construct opens, apart from task
/// instances (see [`ThreadState::push_leaf`]).
#[inline(always)]
pub(crate) fn is_leaf(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Atomic | Kind::Flush | Kind::TaskCreate | Kind::UntiedTaskCreate
    )
}

#[inline(always)]
pub(crate) unsafe fn point(handle: *mut RegionHandle, ctc: Ctc, kind: Kind) {
    if !crate::recording() {
        return;
    }
    if let Some(region) = resolve(handle, ctc) {
        record(|state| state.point(region, kind));
    }
}

/// Enter→begin of critical and ordered is time spent waiting for entry.
#[inline(always)]
pub(crate) unsafe fn entry_granted(handle: *mut RegionHandle, kind: Kind) {
    if let Some(region) = resolve(handle, Ctc::Absent) {
        record(|state| state.entry_granted(region, kind, Now));
    }
}

/// Stores the current task into `*out`, or 0 when nothing is recorded, so
/// instrumented code never hands back an uninitialised value.
#[inline(always)]
unsafe fn store_task(out: *mut TaskHandle, state: Option<&ThreadState>) {
    if !out.is_null() {
        *out = state.map_or(0, |s| s.tasks.current);
    }
}

#[inline(always)]
pub(crate) unsafe fn enter_saving_task(
    handle: *mut RegionHandle,
    old_task: *mut TaskHandle,
    ctc: Ctc,
    kind: Kind,
) {
    store_task(old_task, None);
    if !crate::recording() {
        return;
    }
    if let Some(region) = resolve(handle, ctc) {
        if let Some(mut update) = crate::update() {
            let state = update.state();
            store_task(old_task, Some(state));
            state.push(region, kind, Now);
        }
    }
}

/// Exit from a scheduling point: tasks may have run on this thread, so the
/// task that was current before is resumed.
#[inline(always)]
pub(crate) unsafe fn exit_resuming_task_generally(
    handle: *mut RegionHandle,
    old_task: TaskHandle,
    kind: Kind,
) {
    if let Some(region) = resolve(handle, Ctc::Absent) {
        if let Some(mut update) = crate::update() {
            let state = update.state();
            if is_leaf(kind) {
                state.pop_leaf(region, kind, Now);
            } else {
                state.pop_to(region, kind, Now);
            }
            state.tasks.current = old_task;
        }
    }
}

unsafe fn fork(handle: *mut RegionHandle, alone: bool, old_task: *mut TaskHandle, ctc: Ctc) {
    store_task(old_task, None);
    if !crate::recording() {
        return;
    }
    if let Some(handle) = resolve_handle(handle, ctc) {
        record(|state| {
            store_task(old_task, Some(state));
            state.fork(handle.region, handle.inferred_barrier, alone, Now);
        });
    }
}

pub(crate) unsafe fn parallel_begin(handle: *mut RegionHandle) {
    if !crate::recording() {
        return;
    }
    if let Some(handle) = resolve_handle(handle, Ctc::Absent) {
        record(|state| state.begin_parallel(handle.region, handle.inferred_barrier, Now));
    }
}

pub(crate) unsafe fn parallel_end(handle: *mut RegionHandle) {
    if let Some(handle) = resolve_handle(handle, Ctc::Absent) {
        record(|state| state.end_parallel(handle.region, handle.inferred_barrier, Now));
    }
}

pub(crate) unsafe fn parallel_join(handle: *mut RegionHandle, old_task: TaskHandle) {
    if let Some(handle) = resolve_handle(handle, Ctc::Absent) {
        record(|state| state.join_parallel(handle.region, handle.inferred_barrier, old_task, Now));
    }
}

#[inline(always)]
pub(crate) unsafe fn task_create_begin_generally(
    handle: *mut RegionHandle,
    new_task: *mut TaskHandle,
    old_task: *mut TaskHandle,
    ctc: Ctc,
    kind: Kind,
) {
    store_task(old_task, None);
    store_task(new_task, None);
    if let Some(region) = resolve(handle, ctc) {
        if let Some(mut update) = crate::update() {
            let state = update.state();
            store_task(old_task, Some(state));
            let created = if new_task.is_null() {
                0
            } else {
                let id = state.tasks.new_id();
                *new_task = id;
                id
            };
            state.tasks.note_created(region);
            if crate::recording() {
                state.push_leaf_creating(region, kind, created, Now);
            }
        }
    }
}

#[inline(always)]
pub(crate) unsafe fn task_begin_generally(handle: *mut RegionHandle, task: TaskHandle, kind: Kind) {
    if let Some(region) = resolve(handle, Ctc::Absent) {
        if let Some(mut update) = crate::update() {
            let state = update.state();
            state.begin_task(region, kind, task, Now);
        }
    }
}

// The handlers of the entry points that `build.rs` generates from
// `pomp2::events`, one for each event, named after it. Each takes the
// event's arguments as both linkages pass them on: a CTC string as a
// [`Ctc`], a task handle by value, a lock as a [`Lock`].

/// Handlers of constructs with an enter (or begin) taking the CTC string,
/// and an exit (or end).
macro_rules! enter_exit {
    ($($kind:ident: $enter:ident / $exit:ident;)*) => {$(
        #[inline(always)]
        pub(crate) unsafe fn $enter(handle: *mut RegionHandle, ctc: Ctc) {
            enter!(handle, ctc, Kind::$kind)
        }
        #[inline(always)]
        pub(crate) unsafe fn $exit(handle: *mut RegionHandle) {
            exit!(handle, Kind::$kind)
        }
    )*};
}

enter_exit! {
    For: for_enter / for_exit;
    Do: do_enter / do_exit;
    Sections: sections_enter / sections_exit;
    Section: section_begin / section_end;
    Single: single_enter / single_exit;
    Master: master_begin / master_end;
    Masked: masked_begin / masked_end;
    Critical: critical_enter / critical_exit;
    Atomic: atomic_enter / atomic_exit;
    Ordered: ordered_enter / ordered_exit;
    Workshare: workshare_enter / workshare_exit;
    Flush: flush_enter / flush_exit;
    UserRegion: begin / end;
    Taskgroup: taskgroup_enter / taskgroup_exit;
    Taskgroup: taskgroup_begin / taskgroup_end;
    Taskloop: taskloop_enter / taskloop_exit;
    Scope: scope_enter / scope_exit;
    Loop: loop_enter / loop_exit;
    Teams: teams_enter / teams_exit;
    Distribute: distribute_enter / distribute_exit;
    Target: target_enter / target_exit;
    Taskyield: taskyield_begin / taskyield_end;
}

/// A single construct's body: the thread that executes it.
#[inline(always)]
pub(crate) unsafe fn single_begin(handle: *mut RegionHandle) {
    enter!(handle, Ctc::Absent, Kind::SingleBody)
}

#[inline(always)]
pub(crate) unsafe fn single_end(handle: *mut RegionHandle) {
    exit!(handle, Kind::SingleBody)
}

pub(crate) unsafe fn critical_begin(handle: *mut RegionHandle) {
    entry_granted(handle, Kind::Critical)
}

/// Release time is small and stays in the critical node.
pub(crate) unsafe fn critical_end(_handle: *mut RegionHandle) {}

pub(crate) unsafe fn ordered_begin(handle: *mut RegionHandle) {
    entry_granted(handle, Kind::Ordered)
}

pub(crate) unsafe fn ordered_end(_handle: *mut RegionHandle) {}

pub(crate) unsafe fn parallel_fork(
    handle: *mut RegionHandle,
    if_clause: c_int,
    num_threads: c_int,
    old_task: *mut TaskHandle,
    ctc: Ctc,
) {
    fork(handle, if_clause == 0 || num_threads == 1, old_task, ctc)
}

pub(crate) unsafe fn barrier_enter(handle: *mut RegionHandle, old_task: *mut TaskHandle, ctc: Ctc) {
    enter_saving_task(handle, old_task, ctc, Kind::Barrier)
}

#[inline(always)]
pub(crate) unsafe fn barrier_exit(handle: *mut RegionHandle, old_task: TaskHandle) {
    exit_resuming_task!(handle, old_task, Kind::Barrier)
}

pub(crate) unsafe fn implicit_barrier_enter(handle: *mut RegionHandle, old_task: *mut TaskHandle) {
    enter_saving_task(handle, old_task, Ctc::Absent, Kind::ImplicitBarrier)
}

#[inline(always)]
pub(crate) unsafe fn implicit_barrier_exit(handle: *mut RegionHandle, old_task: TaskHandle) {
    exit_resuming_task!(handle, old_task, Kind::ImplicitBarrier)
}

pub(crate) unsafe fn taskwait_begin(
    handle: *mut RegionHandle,
    old_task: *mut TaskHandle,
    ctc: Ctc,
) {
    enter_saving_task(handle, old_task, ctc, Kind::Taskwait)
}

#[inline(always)]
pub(crate) unsafe fn taskwait_end(handle: *mut RegionHandle, old_task: TaskHandle) {
    exit_resuming_task!(handle, old_task, Kind::Taskwait)
}

/// The four events of a task: creation (begin, end) in the creating task,
/// execution (begin, end) in the created one.
macro_rules! task_events {
    ($($create:ident, $run:ident: $create_begin:ident, $create_end:ident, $begin:ident, $end:ident;)*) => {$(
        #[inline(always)]
        pub(crate) unsafe fn $create_begin(
            handle: *mut RegionHandle,
            new_task: *mut TaskHandle,
            old_task: *mut TaskHandle,
            _if_clause: c_int,
            ctc: Ctc,
        ) {
            task_create_begin!(handle, new_task, old_task, ctc, Kind::$create)
        }
        #[inline(always)]
        pub(crate) unsafe fn $create_end(handle: *mut RegionHandle, old_task: TaskHandle) {
            exit_resuming_task!(handle, old_task, Kind::$create)
        }
        #[inline(always)]
        pub(crate) unsafe fn $begin(handle: *mut RegionHandle, task: TaskHandle) {
            task_begin!(handle, task, Kind::$run)
        }
        #[inline(always)]
        pub(crate) unsafe fn $end(handle: *mut RegionHandle) {
            exit!(handle, Kind::$run)
        }
    )*};
}

// An untied task may resume on another thread; POMP2 has no event for
// that, so it is measured from where it began, and an end arriving on a
// thread that never saw the begin is counted as unmatched.
task_events! {
    TaskCreate, Task: task_create_begin, task_create_end, task_begin, task_end;
    UntiedTaskCreate, UntiedTask: untied_task_create_begin, untied_task_create_end,
        untied_task_begin, untied_task_end;
}

pub(crate) unsafe fn cancel(handle: *mut RegionHandle, ctc: Ctc) {
    point(handle, ctc, Kind::Cancel)
}

pub(crate) unsafe fn cancellation_point(handle: *mut RegionHandle, ctc: Ctc) {
    point(handle, ctc, Kind::CancellationPoint)
}

pub(crate) unsafe fn assign_handle(handle: *mut RegionHandle, ctc: Ctc) {
    regions::assign(handle, ctc.bytes());
}

pub(crate) unsafe fn user_assign_handle(handle: *mut RegionHandle, ctc: Ctc) {
    regions::assign(handle, ctc.bytes());
}

pub(crate) fn init() {
    crate::ensure_running();
}

pub(crate) fn finalize() {
    crate::output::finish();
}

pub(crate) fn on() {
    crate::set_recording(true);
}

pub(crate) fn off() {
    crate::set_recording(false);
}

pub(crate) use crate::locks::{
    destroy_lock, destroy_nest_lock, init_lock, init_nest_lock, lib_get_max_threads, set_lock,
    set_nest_lock, test_lock, test_nest_lock, unset_lock, unset_nest_lock,
};

//! The POMP2 interface as gfortran calls it: lowercase names with a
//! trailing underscore, every argument by reference (handles are
//! `INTEGER(KIND=8)`, the same size as a C handle), and the length of each
//! character argument appended after all others.

// Safety contract: as for the C entry points; character arguments are
// valid for their hidden length.
#![allow(clippy::missing_safety_doc)]

use crate::events::{self, Ctc};
use crate::regions;
use crate::{RegionHandle, TaskHandle};
use pomp2::profile::Kind;
use std::ffi::c_char;

/// Reads a by-reference task handle argument; absent means no task.
unsafe fn task_arg(task: *const TaskHandle) -> TaskHandle {
    if task.is_null() {
        0
    } else {
        *task
    }
}

macro_rules! fortran_enter_exit {
    ($($kind:ident: $enter:ident / $exit:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $enter(handle: *mut RegionHandle, ctc: *const c_char, ctc_len: usize) {
            events::enter!(handle, Ctc::Fortran(ctc, ctc_len), Kind::$kind)
        }
        #[no_mangle]
        pub unsafe extern "C" fn $exit(handle: *mut RegionHandle) {
            events::exit!(handle, Kind::$kind)
        }
    )*};
}

fortran_enter_exit! {
    Do: pomp2_do_enter_ / pomp2_do_exit_;
    For: pomp2_for_enter_ / pomp2_for_exit_;
    Sections: pomp2_sections_enter_ / pomp2_sections_exit_;
    Section: pomp2_section_begin_ / pomp2_section_end_;
    Single: pomp2_single_enter_ / pomp2_single_exit_;
    Master: pomp2_master_begin_ / pomp2_master_end_;
    Masked: pomp2_masked_begin_ / pomp2_masked_end_;
    Critical: pomp2_critical_enter_ / pomp2_critical_exit_;
    Atomic: pomp2_atomic_enter_ / pomp2_atomic_exit_;
    Ordered: pomp2_ordered_enter_ / pomp2_ordered_exit_;
    Workshare: pomp2_workshare_enter_ / pomp2_workshare_exit_;
    Flush: pomp2_flush_enter_ / pomp2_flush_exit_;
    UserRegion: pomp2_begin_ / pomp2_end_;
    Taskgroup: pomp2_taskgroup_enter_ / pomp2_taskgroup_exit_;
    Taskloop: pomp2_taskloop_enter_ / pomp2_taskloop_exit_;
    Scope: pomp2_scope_enter_ / pomp2_scope_exit_;
    Loop: pomp2_loop_enter_ / pomp2_loop_exit_;
    Teams: pomp2_teams_enter_ / pomp2_teams_exit_;
    Distribute: pomp2_distribute_enter_ / pomp2_distribute_exit_;
    Target: pomp2_target_enter_ / pomp2_target_exit_;
    Taskyield: pomp2_taskyield_begin_ / pomp2_taskyield_end_;
    Taskgroup: pomp2_taskgroup_begin_ / pomp2_taskgroup_end_;
}

#[no_mangle]
pub unsafe extern "C" fn pomp2_single_begin_(handle: *mut RegionHandle) {
    events::enter!(handle, Ctc::Absent, Kind::SingleBody)
}

#[no_mangle]
pub unsafe extern "C" fn pomp2_single_end_(handle: *mut RegionHandle) {
    events::exit!(handle, Kind::SingleBody)
}

#[no_mangle]
pub unsafe extern "C" fn pomp2_critical_begin_(handle: *mut RegionHandle) {
    events::entry_granted(handle, Kind::Critical)
}

#[no_mangle]
pub unsafe extern "C" fn pomp2_critical_end_(_handle: *mut RegionHandle) {}

#[no_mangle]
pub unsafe extern "C" fn pomp2_ordered_begin_(handle: *mut RegionHandle) {
    events::entry_granted(handle, Kind::Ordered)
}

#[no_mangle]
pub unsafe extern "C" fn pomp2_ordered_end_(_handle: *mut RegionHandle) {}

#[no_mangle]
pub unsafe extern "C" fn pomp2_parallel_fork_(
    handle: *mut RegionHandle,
    _if_clause: *const i32,
    _num_threads: *const i32,
    old_task: *mut TaskHandle,
    ctc: *const c_char,
    ctc_len: usize,
) {
    events::parallel_fork(handle, old_task, Ctc::Fortran(ctc, ctc_len))
}

#[no_mangle]
pub unsafe extern "C" fn pomp2_parallel_begin_(handle: *mut RegionHandle) {
    events::parallel_begin(handle)
}

#[no_mangle]
pub unsafe extern "C" fn pomp2_parallel_end_(handle: *mut RegionHandle) {
    events::parallel_end(handle)
}

#[no_mangle]
pub unsafe extern "C" fn pomp2_parallel_join_(
    handle: *mut RegionHandle,
    old_task: *const TaskHandle,
) {
    events::parallel_join(handle, task_arg(old_task))
}

#[no_mangle]
pub unsafe extern "C" fn pomp2_barrier_enter_(
    handle: *mut RegionHandle,
    old_task: *mut TaskHandle,
    ctc: *const c_char,
    ctc_len: usize,
) {
    events::enter_saving_task(handle, old_task, Ctc::Fortran(ctc, ctc_len), Kind::Barrier)
}

#[no_mangle]
pub unsafe extern "C" fn pomp2_barrier_exit_(
    handle: *mut RegionHandle,
    old_task: *const TaskHandle,
) {
    events::exit_resuming_task!(handle, task_arg(old_task), Kind::Barrier)
}

#[no_mangle]
pub unsafe extern "C" fn pomp2_implicit_barrier_enter_(
    handle: *mut RegionHandle,
    old_task: *mut TaskHandle,
) {
    events::enter_saving_task(handle, old_task, Ctc::Absent, Kind::ImplicitBarrier)
}

#[no_mangle]
pub unsafe extern "C" fn pomp2_implicit_barrier_exit_(
    handle: *mut RegionHandle,
    old_task: *const TaskHandle,
) {
    events::exit_resuming_task!(handle, task_arg(old_task), Kind::ImplicitBarrier)
}

#[no_mangle]
pub unsafe extern "C" fn pomp2_taskwait_begin_(
    handle: *mut RegionHandle,
    old_task: *mut TaskHandle,
    ctc: *const c_char,
    ctc_len: usize,
) {
    events::enter_saving_task(handle, old_task, Ctc::Fortran(ctc, ctc_len), Kind::Taskwait)
}

#[no_mangle]
pub unsafe extern "C" fn pomp2_taskwait_end_(
    handle: *mut RegionHandle,
    old_task: *const TaskHandle,
) {
    events::exit_resuming_task!(handle, task_arg(old_task), Kind::Taskwait)
}

/// A task's four events, as for C (`events::c_task_events`), with every
/// argument by reference.
macro_rules! fortran_task_events {
    ($($create:ident, $run:ident: $create_begin:ident, $create_end:ident, $begin:ident, $end:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $create_begin(
            handle: *mut RegionHandle,
            new_task: *mut TaskHandle,
            old_task: *mut TaskHandle,
            _if_clause: *const i32,
            ctc: *const c_char,
            ctc_len: usize,
        ) {
            events::task_create_begin!(
                handle,
                new_task,
                old_task,
                Ctc::Fortran(ctc, ctc_len),
                Kind::$create,
            )
        }
        #[no_mangle]
        pub unsafe extern "C" fn $create_end(handle: *mut RegionHandle, old_task: *const TaskHandle) {
            events::exit_resuming_task!(handle, task_arg(old_task), Kind::$create)
        }
        #[no_mangle]
        pub unsafe extern "C" fn $begin(handle: *mut RegionHandle, task: *const TaskHandle) {
            events::task_begin!(handle, task_arg(task), Kind::$run)
        }
        #[no_mangle]
        pub unsafe extern "C" fn $end(handle: *mut RegionHandle) {
            events::exit!(handle, Kind::$run)
        }
    )*};
}

fortran_task_events! {
    TaskCreate, Task: pomp2_task_create_begin_, pomp2_task_create_end_, pomp2_task_begin_, pomp2_task_end_;
    UntiedTaskCreate, UntiedTask: pomp2_untied_task_create_begin_, pomp2_untied_task_create_end_,
        pomp2_untied_task_begin_, pomp2_untied_task_end_;
}

#[no_mangle]
pub unsafe extern "C" fn pomp2_cancel_(
    handle: *mut RegionHandle,
    ctc: *const c_char,
    ctc_len: usize,
) {
    events::point(handle, Ctc::Fortran(ctc, ctc_len), Kind::Cancel)
}

#[no_mangle]
pub unsafe extern "C" fn pomp2_cancellation_point_(
    handle: *mut RegionHandle,
    ctc: *const c_char,
    ctc_len: usize,
) {
    events::point(handle, Ctc::Fortran(ctc, ctc_len), Kind::CancellationPoint)
}

#[no_mangle]
pub unsafe extern "C" fn pomp2_assign_handle_(
    handle: *mut RegionHandle,
    ctc: *const c_char,
    ctc_len: usize,
) {
    regions::assign(handle, regions::fortran_string_bytes(ctc, ctc_len));
}

#[no_mangle]
pub unsafe extern "C" fn pomp2_user_assign_handle_(
    handle: *mut RegionHandle,
    ctc: *const c_char,
    ctc_len: usize,
) {
    regions::assign(handle, regions::fortran_string_bytes(ctc, ctc_len));
}

#[no_mangle]
pub extern "C" fn pomp2_init_() {
    crate::ensure_running();
}

#[no_mangle]
pub extern "C" fn pomp2_finalize_() {
    crate::output::finish();
}

#[no_mangle]
pub extern "C" fn pomp2_on_() {
    crate::set_recording(true);
}

#[no_mangle]
pub extern "C" fn pomp2_off_() {
    crate::set_recording(false);
}

//! POMP2 wrappers around the OpenMP lock routines. Instrumented code calls
//! these instead of `omp_*_lock`; each forwards to the OpenMP runtime the
//! program is linked with, and `set` records how long it blocked.

use crate::clock;
use crate::regions::NO_REGION;
use pomp2::profile::Kind;
use std::ffi::{c_int, c_void};

/// `omp_lock_t` / `omp_nest_lock_t`, opaque to us.
pub type OmpLock = c_void;

extern "C" {
    fn omp_init_lock(lock: *mut OmpLock);
    fn omp_destroy_lock(lock: *mut OmpLock);
    fn omp_set_lock(lock: *mut OmpLock);
    fn omp_unset_lock(lock: *mut OmpLock);
    fn omp_test_lock(lock: *mut OmpLock) -> c_int;
    fn omp_init_nest_lock(lock: *mut OmpLock);
    fn omp_destroy_nest_lock(lock: *mut OmpLock);
    fn omp_set_nest_lock(lock: *mut OmpLock);
    fn omp_unset_nest_lock(lock: *mut OmpLock);
    fn omp_test_nest_lock(lock: *mut OmpLock) -> c_int;
    fn omp_get_max_threads() -> c_int;

    // gfortran's entry points take the lock variable by reference.
    fn omp_init_lock_(lock: *mut OmpLock);
    fn omp_destroy_lock_(lock: *mut OmpLock);
    fn omp_set_lock_(lock: *mut OmpLock);
    fn omp_unset_lock_(lock: *mut OmpLock);
    fn omp_test_lock_(lock: *mut OmpLock) -> c_int;
    fn omp_init_nest_lock_(lock: *mut OmpLock);
    fn omp_destroy_nest_lock_(lock: *mut OmpLock);
    fn omp_set_nest_lock_(lock: *mut OmpLock);
    fn omp_unset_nest_lock_(lock: *mut OmpLock);
    fn omp_test_nest_lock_(lock: *mut OmpLock) -> c_int;
}

fn measured_acquire(kind: Kind, acquire: impl FnOnce()) {
    if !crate::recording() || !crate::ensure_running() {
        acquire();
        return;
    }
    let mut untimed = false;
    crate::record(|state| untimed = state.count_if_untimed_leaf(NO_REGION, kind));
    if untimed {
        acquire();
        return;
    }
    let start = clock::now();
    acquire();
    let end = clock::now();
    crate::record(|state| {
        state.leaf(NO_REGION, kind, start, end);
        state.breakdown.lock_wait_ns += end - start;
    });
}

fn counted_attempt(kind: Kind, attempt: impl FnOnce() -> c_int) -> c_int {
    let acquired = attempt();
    if crate::recording() && crate::ensure_running() {
        crate::record(|state| state.point(NO_REGION, kind));
    }
    acquired
}

/// A lock variable as a linkage passes it: each is forwarded to the OpenMP
/// runtime's routine of the same linkage.
#[derive(Clone, Copy)]
pub enum Lock {
    C(*mut OmpLock),
    Fortran(*mut OmpLock),
}

/// Calls the OpenMP routine for `lock`'s linkage.
macro_rules! forward {
    ($lock:expr, $c:ident / $fortran:ident) => {
        match $lock {
            Lock::C(lock) => $c(lock),
            Lock::Fortran(lock) => $fortran(lock),
        }
    };
}

/// The handlers of one family of lock routines (see
/// [`crate::events`]).
macro_rules! lock_family {
    ($init:ident => $omp_init:ident / $fortran_init:ident,
     $destroy:ident => $omp_destroy:ident / $fortran_destroy:ident,
     $set:ident => $omp_set:ident / $fortran_set:ident as $set_kind:ident,
     $unset:ident => $omp_unset:ident / $fortran_unset:ident,
     $test:ident => $omp_test:ident / $fortran_test:ident as $test_kind:ident) => {
        pub(crate) unsafe fn $init(lock: Lock) {
            // Often a program's first POMP2 call: it starts the runtime as
            // any event does, so that the run leaves a profile even when
            // nothing else it measures runs.
            crate::ensure_running();
            forward!(lock, $omp_init / $fortran_init)
        }
        pub(crate) unsafe fn $destroy(lock: Lock) {
            forward!(lock, $omp_destroy / $fortran_destroy)
        }
        pub(crate) unsafe fn $set(lock: Lock) {
            measured_acquire(Kind::$set_kind, || forward!(lock, $omp_set / $fortran_set))
        }
        pub(crate) unsafe fn $unset(lock: Lock) {
            forward!(lock, $omp_unset / $fortran_unset)
        }
        pub(crate) unsafe fn $test(lock: Lock) -> c_int {
            counted_attempt(Kind::$test_kind, || {
                forward!(lock, $omp_test / $fortran_test)
            })
        }
    };
}

lock_family!(init_lock => omp_init_lock / omp_init_lock_,
    destroy_lock => omp_destroy_lock / omp_destroy_lock_,
    set_lock => omp_set_lock / omp_set_lock_ as SetLock,
    unset_lock => omp_unset_lock / omp_unset_lock_,
    test_lock => omp_test_lock / omp_test_lock_ as TestLock);
lock_family!(init_nest_lock => omp_init_nest_lock / omp_init_nest_lock_,
    destroy_nest_lock => omp_destroy_nest_lock / omp_destroy_nest_lock_,
    set_nest_lock => omp_set_nest_lock / omp_set_nest_lock_ as SetNestLock,
    unset_nest_lock => omp_unset_nest_lock / omp_unset_nest_lock_,
    test_nest_lock => omp_test_nest_lock / omp_test_nest_lock_ as TestNestLock);

/// Instrumented Fortran evaluates a parallel region's default team size
/// through this instead of `omp_get_max_threads`.
pub(crate) fn lib_get_max_threads() -> c_int {
    unsafe { omp_get_max_threads() }
}

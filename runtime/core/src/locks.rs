//! POMP2 wrappers around the OpenMP lock routines. Instrumented code calls
//! these instead of `omp_*_lock`; each forwards to the OpenMP runtime the
//! program is linked with, and `set` records how long it blocked.

#![allow(non_snake_case)]
// Safety contract of every entry point: pointers are NULL or valid as the
// POMP2 interface defines them (handle slots live as long as the program).
#![allow(clippy::missing_safety_doc)]

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

macro_rules! lock_family {
    ($init:ident => $omp_init:ident, $destroy:ident => $omp_destroy:ident,
     $set:ident => $omp_set:ident as $set_kind:ident, $unset:ident => $omp_unset:ident,
     $test:ident => $omp_test:ident as $test_kind:ident) => {
        #[no_mangle]
        pub unsafe extern "C" fn $init(lock: *mut OmpLock) {
            $omp_init(lock)
        }
        #[no_mangle]
        pub unsafe extern "C" fn $destroy(lock: *mut OmpLock) {
            $omp_destroy(lock)
        }
        #[no_mangle]
        pub unsafe extern "C" fn $set(lock: *mut OmpLock) {
            measured_acquire(Kind::$set_kind, || $omp_set(lock))
        }
        #[no_mangle]
        pub unsafe extern "C" fn $unset(lock: *mut OmpLock) {
            $omp_unset(lock)
        }
        #[no_mangle]
        pub unsafe extern "C" fn $test(lock: *mut OmpLock) -> c_int {
            counted_attempt(Kind::$test_kind, || $omp_test(lock))
        }
    };
}

lock_family!(POMP2_Init_lock => omp_init_lock, POMP2_Destroy_lock => omp_destroy_lock,
    POMP2_Set_lock => omp_set_lock as SetLock, POMP2_Unset_lock => omp_unset_lock,
    POMP2_Test_lock => omp_test_lock as TestLock);
lock_family!(POMP2_Init_nest_lock => omp_init_nest_lock,
    POMP2_Destroy_nest_lock => omp_destroy_nest_lock,
    POMP2_Set_nest_lock => omp_set_nest_lock as SetNestLock,
    POMP2_Unset_nest_lock => omp_unset_nest_lock,
    POMP2_Test_nest_lock => omp_test_nest_lock as TestNestLock);
lock_family!(pomp2_init_lock_ => omp_init_lock_, pomp2_destroy_lock_ => omp_destroy_lock_,
    pomp2_set_lock_ => omp_set_lock_ as SetLock, pomp2_unset_lock_ => omp_unset_lock_,
    pomp2_test_lock_ => omp_test_lock_ as TestLock);
lock_family!(pomp2_init_nest_lock_ => omp_init_nest_lock_,
    pomp2_destroy_nest_lock_ => omp_destroy_nest_lock_,
    pomp2_set_nest_lock_ => omp_set_nest_lock_ as SetNestLock,
    pomp2_unset_nest_lock_ => omp_unset_nest_lock_,
    pomp2_test_nest_lock_ => omp_test_nest_lock_ as TestNestLock);

/// Instrumented Fortran evaluates a parallel region's default team size
/// through this instead of `omp_get_max_threads`.
#[no_mangle]
pub extern "C" fn POMP2_Lib_get_max_threads() -> c_int {
    unsafe { omp_get_max_threads() }
}

#[no_mangle]
pub extern "C" fn pomp2_lib_get_max_threads_() -> c_int {
    unsafe { omp_get_max_threads() }
}

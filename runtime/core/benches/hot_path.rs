//! Cost of one event pair on the hot path, after warm-up (tree nodes exist,
//! the thread is registered).

use criterion::{criterion_group, criterion_main, Criterion};
use pomp_runtime_core::entry_points::*;
use pomp_runtime_core::{RegionHandle, TaskHandle};
use std::ffi::c_char;
use std::hint::black_box;
use std::ptr;

// What the link step generates for an instrumented program.
#[no_mangle]
pub extern "C" fn POMP2_Init_regions() {}
#[no_mangle]
pub extern "C" fn POMP2_Get_num_regions() -> usize {
    0
}
#[no_mangle]
pub extern "C" fn POMP2_Get_opari2_version() -> *const c_char {
    c"bench".as_ptr()
}

fn assigned(ctc: &std::ffi::CStr) -> *mut RegionHandle {
    let slot: &'static mut RegionHandle = Box::leak(Box::new(ptr::null_mut()));
    unsafe { POMP2_Assign_handle(slot, ctc.as_ptr()) };
    slot
}

fn hot_path(c: &mut Criterion) {
    let profile = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("hot_path_profile.json");
    std::env::set_var("POMP_PROFILE", profile);
    std::env::set_var("POMP_SUMMARY", "0");
    // Criterion repeats each event far more often than the throttling
    // threshold: time every visit unless asked otherwise
    // (POMP_THROTTLE=1 measures the untimed events of throttled nodes).
    if std::env::var_os("POMP_THROTTLE").is_none() {
        std::env::set_var("POMP_THROTTLE", "0");
    }
    let for_ctc = c"45*regionType=for*sscl=b.c:1:1*escl=b.c:2:2**";
    let critical_ctc = c"50*regionType=critical*sscl=b.c:3:3*escl=b.c:4:4**";
    let task_ctc = c"46*regionType=task*sscl=b.c:5:5*escl=b.c:6:6**";
    let for_region = assigned(for_ctc);
    let critical_region = assigned(critical_ctc);
    let task_region = assigned(task_ctc);

    let mut group = c.benchmark_group("event_pair");
    group.bench_function("for_enter_exit", |b| {
        b.iter(|| unsafe {
            POMP2_For_enter(black_box(for_region), for_ctc.as_ptr());
            POMP2_For_exit(black_box(for_region));
        })
    });
    group.bench_function("critical_enter_begin_end_exit", |b| {
        b.iter(|| unsafe {
            POMP2_Critical_enter(black_box(critical_region), critical_ctc.as_ptr());
            POMP2_Critical_begin(critical_region);
            POMP2_Critical_end(critical_region);
            POMP2_Critical_exit(critical_region);
        })
    });
    group.bench_function("task_create_begin_end", |b| {
        b.iter(|| unsafe {
            let mut new_task: TaskHandle = 0;
            let mut old_task: TaskHandle = 0;
            POMP2_Task_create_begin(
                black_box(task_region),
                &mut new_task,
                &mut old_task,
                1,
                task_ctc.as_ptr(),
            );
            POMP2_Task_create_end(task_region, old_task);
            black_box(new_task)
        })
    });
    group.bench_function("task_begin_end", |b| {
        b.iter(|| unsafe {
            POMP2_Task_begin(black_box(task_region), black_box(42));
            POMP2_Task_end(task_region);
        })
    });
    group.finish();

    // One task instance as the creating thread sees it when the task runs
    // at once (undeferred): four events, four clock reads.
    let mut group = c.benchmark_group("task");
    group.bench_function("create_begin_begin_end_create_end", |b| {
        b.iter(|| unsafe {
            let mut new_task: TaskHandle = 0;
            let mut old_task: TaskHandle = 0;
            POMP2_Task_create_begin(
                black_box(task_region),
                &mut new_task,
                &mut old_task,
                1,
                task_ctc.as_ptr(),
            );
            POMP2_Task_begin(task_region, new_task);
            POMP2_Task_end(task_region);
            POMP2_Task_create_end(task_region, old_task);
        })
    });
    // The floor under the above: the clock alone, read four times.
    group.bench_function("four_clock_reads", |b| {
        b.iter(|| {
            (
                black_box(pomp_runtime_core::clock_ticks()),
                black_box(pomp_runtime_core::clock_ticks()),
                black_box(pomp_runtime_core::clock_ticks()),
                black_box(pomp_runtime_core::clock_ticks()),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, hot_path);
criterion_main!(benches);

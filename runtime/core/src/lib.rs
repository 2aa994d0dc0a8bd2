//! pomp's POMP2 measurement library.
//!
//! Instrumented programs call the POMP2 functions of [`entry_points`], C
//! and gfortran linkage alike, generated from `pomp2::events`; what each
//! does is in [`events`]. Each thread records a
//! call-path tree of regions with visits and inclusive/exclusive time, the
//! waiting and fork/join overheads, and task creation relations; at exit (or
//! `POMP2_Finalize`) the library writes the process's profile into the
//! run's experiment ([`experiment`]), with `POMP_TRACE=1` a compact event
//! trace beside it, and rank 0 a short summary on stderr. The POMP MPI
//! library adds MPI through the `pomp_mpi_*` functions of [`mpi`].
//!
//! Environment: `POMP_EXPERIMENT_DIRECTORY` (the experiment's directory),
//! `POMP_PROFILE` (one profile file instead of an experiment),
//! `POMP_SUMMARY=0` (no summary), `POMP_TRACE=1`, `POMP_TRACE_LIMIT`
//! (maximum trace events, default 1000000), `POMP_THROTTLE`,
//! `POMP_THROTTLE_NUMCALLS`, `POMP_THROTTLE_PERCALL` (see [`throttle`]).

mod clock;
pub mod entry_points;
mod events;
mod experiment;
mod launch;
mod locks;
pub mod mpi;
mod output;
mod process;
mod regions;
mod state;
mod team;
mod thread;
mod throttle;
mod trace;
mod untimed;

use std::ffi::{c_char, c_void};
use std::sync::atomic::{compiler_fence, AtomicBool, AtomicU8, Ordering};
use std::sync::{Once, OnceLock};

pub use pomp2::profile::Kind;
pub use regions::RegionId;

/// `POMP2_Region_handle`: a `void*` slot owned by the instrumented code.
pub type RegionHandle = *mut c_void;
/// `POMP2_Task_handle`.
pub type TaskHandle = i64;

extern "C" {
    // Generated at link time from the instrumented objects, not by us.
    fn POMP2_Init_regions();
    fn POMP2_Get_num_regions() -> usize;
    fn POMP2_Get_opari2_version() -> *const c_char;
    // `POMP2_USER_Init_regions` and `POMP2_USER_Get_num_regions`, when
    // the program defines them (user_regions.c).
    fn pomp_runtime_init_user_regions();
    fn pomp_runtime_user_region_count() -> usize;
}

const DEFAULT_TRACE_LIMIT: u64 = 1_000_000;

pub(crate) struct Config {
    /// `POMP_PROFILE`: one file for the profile, and no experiment.
    pub profile_path: Option<String>,
    /// `POMP_EXPERIMENT_DIRECTORY`.
    pub experiment_directory: Option<std::path::PathBuf>,
    pub summary: bool,
    pub trace: bool,
    pub trace_limit: u64,
    /// What the launcher says about this process.
    pub launch: launch::Launch,
    pub throttle: Option<throttle::Rule>,
}

impl Config {
    fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let flag = |name: &str, default: bool| match var(name).as_deref() {
            Some("0" | "false" | "no" | "off") => false,
            Some(_) => true,
            None => default,
        };
        Config {
            profile_path: var("POMP_PROFILE"),
            experiment_directory: var("POMP_EXPERIMENT_DIRECTORY").map(std::path::PathBuf::from),
            summary: flag("POMP_SUMMARY", true),
            trace: flag("POMP_TRACE", false),
            trace_limit: var("POMP_TRACE_LIMIT")
                .and_then(|v| v.parse().ok())
                .unwrap_or(DEFAULT_TRACE_LIMIT),
            launch: launch::Launch::from_settings(var),
            throttle: throttle::Rule::from_settings(var),
        }
    }
}

static CONFIG: OnceLock<Config> = OnceLock::new();

pub(crate) fn config() -> &'static Config {
    CONFIG.get_or_init(Config::from_env)
}

const UNINITIALIZED: u8 = 0;
const RUNNING: u8 = 1;
const FINISHED: u8 = 2;

/// Events are recorded only while RUNNING. Moving to FINISHED freezes every
/// thread's data so that it can be written.
static PHASE: AtomicU8 = AtomicU8::new(UNINITIALIZED);
static INIT: Once = Once::new();
/// `POMP2_On`/`POMP2_Off`: while off, constructs are not entered, but
/// constructs already open still close so the stacks stay balanced.
static RECORDING: AtomicBool = AtomicBool::new(true);
static FORKED_CHILD: AtomicBool = AtomicBool::new(false);
/// Whether nodes may be throttled at all (`POMP_THROTTLE`): without, no
/// event tries the untimed fast path.
static THROTTLING: AtomicBool = AtomicBool::new(false);

/// Whether the busy/phase handshake uses the kernel's process-wide memory
/// barrier. The writer then pays for the barrier once, and the hot path
/// needs no fence instruction of its own.
static ASYMMETRIC_FENCE: AtomicBool = AtomicBool::new(false);
const MEMBARRIER_CMD_PRIVATE_EXPEDITED: libc::c_int = 1 << 3;
const MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_int = 1 << 4;

fn membarrier(command: libc::c_int) -> bool {
    unsafe { libc::syscall(libc::SYS_membarrier, command, 0, 0) == 0 }
}

/// Initialises on the first event; `false` once finished.
#[inline]
pub(crate) fn ensure_running() -> bool {
    if PHASE.load(Ordering::Acquire) == RUNNING {
        return true;
    }
    INIT.call_once(initialize);
    PHASE.load(Ordering::Acquire) == RUNNING
}

fn initialize() {
    let config = config();
    clock::init();
    experiment::at_start();
    trace::set_budget(config.trace_limit);
    if config.trace {
        output::trace::open();
    }
    THROTTLING.store(config.throttle.is_some(), Ordering::Relaxed);
    ASYMMETRIC_FENCE.store(
        membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED),
        Ordering::Relaxed,
    );
    unsafe {
        libc::atexit(write_at_exit);
        libc::pthread_atfork(None, None, Some(after_fork_in_child));
        regions::register(|| {
            POMP2_Init_regions();
            pomp_runtime_init_user_regions();
        });
    }
    PHASE.store(RUNNING, Ordering::Release);
}

extern "C" fn write_at_exit() {
    output::finish();
}

extern "C" fn after_fork_in_child() {
    FORKED_CHILD.store(true, Ordering::Relaxed);
    if ASYMMETRIC_FENCE.load(Ordering::Relaxed) {
        // The registration belongs to the parent's address space.
        ASYMMETRIC_FENCE.store(
            membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED),
            Ordering::Relaxed,
        );
    }
    thread::reset_after_fork();
    if config().trace {
        output::trace::open();
    }
}

/// The hot path's clock, read as events read it (benchmarks compare event
/// costs with it). Initialises the runtime like an event would.
#[doc(hidden)]
pub fn clock_ticks() -> u64 {
    ensure_running();
    clock::now()
}

pub(crate) fn declared_region_count() -> usize {
    unsafe { POMP2_Get_num_regions() + pomp_runtime_user_region_count() }
}

pub(crate) fn opari2_version() -> Option<String> {
    let version = unsafe { POMP2_Get_opari2_version() };
    if version.is_null() {
        return None;
    }
    let bytes = unsafe { regions::c_string_bytes(version) };
    Some(String::from_utf8_lossy(bytes).into_owned())
}

/// This thread's state, open for one update.
/// See [`thread::ThreadData::busy`] for why this is safe against a
/// concurrent writer without taking a lock: the guard marks the thread busy
/// until it is dropped, and is only handed out while the runtime runs.
pub(crate) struct Update {
    data: &'static thread::ThreadData,
}

impl Update {
    #[inline(always)]
    pub(crate) fn state(&mut self) -> &mut state::ThreadState {
        // Only the owning thread updates, and only while marked busy.
        unsafe { self.data.state() }
    }
}

impl Drop for Update {
    #[inline(always)]
    fn drop(&mut self) {
        self.data.busy.store(false, Ordering::Release);
    }
}

/// Opens this thread's state for an update, unless the runtime is not
/// running (it starts it if it has not started yet). Everything inlines
/// into the calling event, so the event's kind is a constant there. The
/// event reads the clock itself, and only when what it updates is timed.
#[inline(always)]
pub(crate) fn update() -> Option<Update> {
    let data = thread::current();
    announce(data);
    let mut update = Update { data };
    if PHASE.load(Ordering::Relaxed) != RUNNING && !update.start_runtime() {
        return None;
    }
    update.state().events += 1;
    Some(update)
}

/// [`update`] for the untimed fast path ([`untimed`]): `None`, without a
/// call, unless throttling is on, the thread is registered, the runtime
/// runs and a node is throttled on the thread; the event then takes the general path. The
/// event is not counted here: the fast path counts it only once it has
/// handled it.
#[inline(always)]
pub(crate) fn running_update() -> Option<Update> {
    if !THROTTLING.load(Ordering::Relaxed) {
        return None;
    }
    let data = thread::registered()?;
    announce(data);
    // Dropping it clears the busy mark again.
    let mut update = Update { data };
    if PHASE.load(Ordering::Relaxed) != RUNNING {
        return None;
    }
    // Until a node is throttled the fast path would fail, having cost
    // nearly as much as it saves.
    update.state().throttler.any_throttled.then_some(update)
}

/// Marks the thread busy before it touches its state (see
/// [`thread::ThreadData::busy`]).
#[inline(always)]
fn announce(data: &thread::ThreadData) {
    if ASYMMETRIC_FENCE.load(Ordering::Relaxed) {
        data.busy.store(true, Ordering::Relaxed);
        compiler_fence(Ordering::SeqCst);
    } else {
        data.busy.swap(true, Ordering::SeqCst);
    }
}

/// A thread that ends gives back the part of the trace budget it reserved
/// and did not use. Otherwise a program that starts many threads one
/// after another would use the budget up with reservations of threads
/// long gone.
pub(crate) fn thread_ends() {
    let Some(data) = thread::registered() else {
        return;
    };
    announce(data);
    let mut update = Update { data };
    if PHASE.load(Ordering::Relaxed) == RUNNING {
        update.state().trace.give_back();
    }
}

impl Update {
    /// The first event starts the runtime; afterwards the phase says
    /// whether it still runs.
    #[cold]
    #[inline(never)]
    fn start_runtime(&mut self) -> bool {
        if PHASE.load(Ordering::Acquire) != UNINITIALIZED {
            return false;
        }
        // Starting calls the registration, which must not find this
        // thread busy.
        self.data.busy.store(false, Ordering::Release);
        let running = ensure_running();
        announce(self.data);
        running && PHASE.load(Ordering::Relaxed) == RUNNING
    }
}

/// Runs `update` on this thread's state, unless the runtime is not
/// running (see [`update`]).
#[inline(always)]
pub(crate) fn record(update: impl FnOnce(&mut state::ThreadState)) {
    if let Some(mut guard) = self::update() {
        update(guard.state());
    }
}

/// Freezes all threads' data; true for the one caller that should write.
pub(crate) fn freeze() -> bool {
    // Finalising before the first event must also keep later events from
    // initialising; and an initialisation under way completes first.
    INIT.call_once(|| {});
    let was_running = PHASE.swap(FINISHED, Ordering::SeqCst) == RUNNING;
    if was_running
        && ASYMMETRIC_FENCE.load(Ordering::Relaxed)
        && !membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)
    {
        // Without the barrier a thread may still be starting an update it
        // has not yet announced; give it time to announce or to see the
        // phase change.
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    was_running
}

pub(crate) fn recording() -> bool {
    RECORDING.load(Ordering::Relaxed)
}

pub(crate) fn set_recording(on: bool) {
    RECORDING.store(on, Ordering::Relaxed);
}

pub(crate) fn is_forked_child() -> bool {
    FORKED_CHILD.load(Ordering::Relaxed)
}

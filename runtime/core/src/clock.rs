//! The time source of the hot path.
//!
//! Where the CPU has an invariant time-stamp counter (same rate on every
//! core, running through sleep states) events read it directly: it costs
//! about half of a `clock_gettime` call. Ticks are only converted to
//! nanoseconds when the profile is written, with a rate measured against
//! CLOCK_MONOTONIC over the whole run. Elsewhere ticks *are* monotonic
//! nanoseconds. Times taken on different threads stay comparable either way.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static USE_TSC: AtomicBool = AtomicBool::new(false);
static ORIGIN_TICKS: AtomicU64 = AtomicU64::new(0);
static ORIGIN_NS: AtomicU64 = AtomicU64::new(0);

/// Runs spent less than this apart are too short to measure the tick rate
/// precisely; the writer then waits until this much time has passed.
const MIN_CALIBRATION_NS: u64 = 2_000_000;
/// Enough to convert a throttling threshold to ticks to within a fraction
/// of a percent.
const MIN_RATE_NS: u64 = 1_000_000;

pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // CLOCK_MONOTONIC is served from the vDSO without a system call.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[cfg(target_arch = "x86_64")]
fn invariant_tsc() -> bool {
    std::fs::read_to_string("/proc/cpuinfo")
        .map(|info| {
            info.lines()
                .find(|line| line.starts_with("flags"))
                .is_some_and(|flags| {
                    let has = |name: &str| flags.split_whitespace().any(|w| w == name);
                    has("constant_tsc") && has("nonstop_tsc")
                })
        })
        .unwrap_or(false)
}

/// Chooses the time source; called once before the first event.
pub fn init() {
    #[cfg(target_arch = "x86_64")]
    if std::env::var_os("POMP_CLOCK").is_none_or(|v| v != "monotonic") && invariant_tsc() {
        USE_TSC.store(true, Ordering::Relaxed);
    }
    ORIGIN_NS.store(monotonic_ns(), Ordering::Relaxed);
    ORIGIN_TICKS.store(now(), Ordering::Relaxed);
}

/// `CLOCK_MONOTONIC` when the runtime started, in nanoseconds: where the
/// process's times begin on the clock every process of a host reads.
pub fn origin_monotonic_ns() -> u64 {
    ORIGIN_NS.load(Ordering::Relaxed)
}

/// Where an update takes its time from, read only when a timed frame needs
/// it: the real clock ([`Now`]) while the program runs, a given time
/// (`u64`) to close what is still open at exit and in tests.
pub trait Clock: Copy {
    fn now(self) -> u64;
}

/// The clock itself.
#[derive(Clone, Copy)]
pub struct Now;

impl Clock for Now {
    #[inline(always)]
    fn now(self) -> u64 {
        now()
    }
}

impl Clock for u64 {
    #[inline(always)]
    fn now(self) -> u64 {
        self
    }
}

/// Ticks in `ns` nanoseconds. The tick rate is measured against
/// CLOCK_MONOTONIC over the run so far, at least a millisecond of it.
pub fn ticks_in_ns(ns: u64) -> u64 {
    if !USE_TSC.load(Ordering::Relaxed) {
        return ns;
    }
    let origin_ns = ORIGIN_NS.load(Ordering::Relaxed);
    let origin_ticks = ORIGIN_TICKS.load(Ordering::Relaxed);
    let (mut ticks, mut now_ns) = (now(), monotonic_ns());
    while now_ns.saturating_sub(origin_ns) < MIN_RATE_NS {
        std::hint::spin_loop();
        (ticks, now_ns) = (now(), monotonic_ns());
    }
    let ticks_per_ns = ticks.saturating_sub(origin_ticks) as f64 / (now_ns - origin_ns) as f64;
    (ns as f64 * ticks_per_ns) as u64
}

/// The current time in ticks.
#[inline(always)]
pub fn now() -> u64 {
    #[cfg(target_arch = "x86_64")]
    if USE_TSC.load(Ordering::Relaxed) {
        return unsafe { core::arch::x86_64::_rdtsc() };
    }
    monotonic_ns()
}

/// Converts ticks to nanoseconds.
#[derive(Debug, Clone, Copy)]
pub struct Scale {
    origin_ticks: u64,
    ns_per_tick: f64,
}

impl Scale {
    /// Measures the tick rate over the run so far.
    pub fn measure() -> Self {
        let origin_ticks = ORIGIN_TICKS.load(Ordering::Relaxed);
        if !USE_TSC.load(Ordering::Relaxed) {
            return Scale {
                origin_ticks,
                ns_per_tick: 1.0,
            };
        }
        let origin_ns = ORIGIN_NS.load(Ordering::Relaxed);
        let (mut ticks, mut ns) = (now(), monotonic_ns());
        while ns.saturating_sub(origin_ns) < MIN_CALIBRATION_NS {
            std::hint::spin_loop();
            (ticks, ns) = (now(), monotonic_ns());
        }
        let elapsed_ticks = ticks.saturating_sub(origin_ticks).max(1);
        Scale {
            origin_ticks,
            ns_per_tick: (ns - origin_ns) as f64 / elapsed_ticks as f64,
        }
    }

    /// The clock's reading when the runtime started.
    pub fn origin_ticks(&self) -> u64 {
        self.origin_ticks
    }

    pub fn ns_per_tick(&self) -> f64 {
        self.ns_per_tick
    }

    /// A duration in ticks as nanoseconds.
    #[inline]
    pub fn ns(&self, ticks: u64) -> u64 {
        (ticks as f64 * self.ns_per_tick) as u64
    }

    /// A point in time as nanoseconds since the runtime started.
    pub fn since_start_ns(&self, ticks: u64) -> u64 {
        self.ns(ticks.saturating_sub(self.origin_ticks))
    }
}

//! Who this process is in its run: its rank and how many ranks there are
//! (MPI's word once it is initialised, else the launcher's), its host,
//! its command line, and when it started.

use crate::mpi::world;
use pomp2::experiment::LocalTime;
use std::sync::OnceLock;

/// The process's rank; none for a process alone.
pub fn rank() -> Option<u32> {
    world::member()
        .map(|member| member.rank)
        .or(crate::config().launch.rank)
}

/// How many ranks the run has, where known.
pub fn ranks() -> Option<u32> {
    world::member()
        .map(|member| member.size)
        .or(crate::config().launch.size)
}

/// Whether this process speaks for the run (prints its summary, writes
/// its manifest): rank 0, or a process alone, not one forked from either.
pub fn speaks_for_the_run() -> bool {
    !crate::is_forked_child() && rank().is_none_or(|rank| rank == 0)
}

/// The host's name.
pub fn host() -> &'static str {
    static HOST: OnceLock<String> = OnceLock::new();
    HOST.get_or_init(|| {
        let mut name = [0u8; 256];
        let done = unsafe { libc::gethostname(name.as_mut_ptr().cast(), name.len()) } == 0;
        let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
        if done && end > 0 {
            String::from_utf8_lossy(&name[..end]).into_owned()
        } else {
            "localhost".to_string()
        }
    })
}

/// The program and its arguments, as the process was started.
pub fn command_line() -> Vec<String> {
    match std::fs::read("/proc/self/cmdline") {
        Ok(bytes) => bytes
            .split(|&b| b == 0)
            .filter(|word| !word.is_empty())
            .map(|word| String::from_utf8_lossy(word).into_owned())
            .collect(),
        Err(_) => std::env::args().collect(),
    }
}

/// When the measurement started, as a clock on the wall shows it.
#[derive(Debug, Clone)]
pub struct Start {
    pub unix_ns: u64,
    pub local: LocalTime,
    /// RFC 3339 with the offset from UTC: `2025-03-14T09:30:15+01:00`.
    pub text: String,
}

static START: OnceLock<Start> = OnceLock::new();

/// Taken when the runtime starts.
pub fn mark_start() {
    START.get_or_init(start_now);
}

pub fn start() -> &'static Start {
    START.get_or_init(start_now)
}

fn start_now() -> Start {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let seconds = now.as_secs() as libc::time_t;
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let converted = !unsafe { libc::localtime_r(&seconds, &mut tm) }.is_null();
    let (local, offset) = if converted {
        (
            LocalTime {
                year: tm.tm_year + 1900,
                month: (tm.tm_mon + 1) as u32,
                day: tm.tm_mday as u32,
                hour: tm.tm_hour as u32,
                minute: tm.tm_min as u32,
                second: tm.tm_sec as u32,
            },
            tm.tm_gmtoff,
        )
    } else {
        (
            LocalTime {
                year: 1970,
                month: 1,
                day: 1,
                hour: 0,
                minute: 0,
                second: 0,
            },
            0,
        )
    };
    let sign = if offset < 0 { '-' } else { '+' };
    let text = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{sign}{:02}:{:02}",
        local.year,
        local.month,
        local.day,
        local.hour,
        local.minute,
        local.second,
        offset.abs() / 3600,
        offset.abs() % 3600 / 60
    );
    Start {
        unix_ns: now.as_nanos() as u64,
        local,
        text,
    }
}

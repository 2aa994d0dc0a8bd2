//! Writing the profile, the stderr summary and the trace, once, at
//! `POMP2_Finalize` or at exit, whichever comes first.

pub(crate) mod chunks;
pub(crate) mod files;
mod identity;
mod profile;
mod summary;
pub(crate) mod trace;
pub(crate) mod writing;

use crate::clock;
use crate::regions;
use crate::state::ThreadState;
use crate::thread::{self, ThreadData};
use files::Destination;
use identity::Identity;
use pomp2::experiment::FileKind;
use pomp2::profile::Throttling;
use std::io;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use writing::{warn, write_atomically};

/// How long to wait for a thread to finish the event it is recording. Only
/// a program that exits while other threads still run can make us wait.
const IDLE_WAIT: Duration = Duration::from_secs(2);

pub fn finish() {
    if !crate::freeze() {
        return;
    }
    let now = clock::now();
    let mut threads = Vec::new();
    let mut incomplete_threads = Vec::new();
    let deadline = Instant::now() + IDLE_WAIT;
    for data in thread::all() {
        if !data.live.load(Ordering::Relaxed) {
            continue;
        }
        if wait_until_idle(data, deadline) {
            threads.push(data);
        } else {
            incomplete_threads.push(data.index);
        }
    }
    let mut states: Vec<(&ThreadData, &mut ThreadState)> = threads
        .iter()
        .map(|data| (*data, unsafe { data.state() }))
        .collect();
    if crate::is_forked_child() && states.iter().all(|(_, s)| s.events == 0) {
        // A fork child that recorded nothing has nothing to report; the
        // parent's data is the parent's to write.
        return;
    }
    for (_, state) in states.iter_mut() {
        state.pop_all(now);
    }
    let scale = clock::Scale::measure();
    let wall_ns = scale.since_start_ns(now);
    let pid = std::process::id();
    let config = crate::config();
    let destination = Destination::at_end();
    if let Destination::Nowhere(why) = &destination {
        warn(format_args!("pomp: {why}; the profile is not written"));
    }
    let identity = Identity::of(&destination);
    let regions = profile::regions(&regions::snapshot());
    let trace = config.trace.then(|| {
        let run = trace::Run {
            pid,
            wall_ns,
            scale: &scale,
            regions: &regions,
            path: destination.path(FileKind::Trace),
            identity: &identity,
        };
        trace::finish(&mut states, run)
    });
    for (_, state) in states.iter_mut() {
        state.tree.complete_fork_paths();
        state.rescale(&scale);
    }
    let states: Vec<(&ThreadData, &ThreadState)> =
        states.into_iter().map(|(d, s)| (d, &*s)).collect();

    let run = profile::Run {
        pid,
        wall_ns,
        incomplete_threads,
        throttling: match config.throttle {
            Some(rule) => Throttling {
                enabled: true,
                numcalls: rule.numcalls,
                percall_ns: rule.percall_ns,
            },
            None => Throttling {
                enabled: false,
                numcalls: 0,
                percall_ns: 0,
            },
        },
        trace,
        states: &states,
        identity: &identity,
    };
    let profile = profile::build(run, regions);
    let profile_path = destination.path(FileKind::Profile);
    let written = match &profile_path {
        Some(path) => write_atomically(path, |out| {
            serde_json::to_writer(&mut *out, &profile).map_err(io::Error::from)
        }),
        None => Err(io::Error::other("it has no place")),
    };
    if let (Err(err), Some(path)) = (&written, &profile_path) {
        warn(format_args!(
            "pomp: cannot write profile {}: {err}",
            path.display()
        ));
    }
    if let Err(error) = crate::experiment::finish(profile.thread_count as u32) {
        warn(format_args!(
            "pomp: cannot write the experiment's manifest: {error}"
        ));
    }
    if config.summary && crate::process::speaks_for_the_run() {
        let place = match &destination {
            Destination::Experiment(chosen) => summary::Place::Experiment(chosen),
            _ => summary::Place::File(profile_path.as_deref()),
        };
        summary::print(&profile, place, written.is_ok());
    }
    // Said even without the summary: the profile lacks what it should hold.
    if let Some(stale) = summary::unregistered(&profile) {
        warn(format_args!("{stale}"));
    }
}

fn wait_until_idle(data: &ThreadData, deadline: Instant) -> bool {
    while data.busy.load(Ordering::SeqCst) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::yield_now();
    }
    true
}

//! The trace file that `POMP_TRACE=1` asks for (`pomp2::trace`): opened
//! when the runtime starts, under a temporary name in the directory that
//! will hold the experiment (the experiment may not be known yet) or
//! beside the profile file; threads append their chunks as their buffers
//! fill (one `write` each, to a file opened for appending, so chunks never
//! interleave); at the end the writer appends what is left and the footer,
//! and moves the file to its place.

use super::chunks::{open_for_appending, write_all, write_chunk, FILE, WRITE_FAILED};
use crate::clock::Scale;
use crate::state::ThreadState;
use crate::thread::ThreadData;
use pomp2::profile::{Region, TraceSummary};
use pomp2::trace::{footer_chunk, header, Footer, EXTENSION, FORMAT};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicPtr, Ordering};

/// Where the trace goes, and why it could not be opened.
static DESTINATION: AtomicPtr<Destination> = AtomicPtr::new(std::ptr::null_mut());

struct Destination {
    temporary: PathBuf,
    open_error: Option<io::Error>,
}

/// Where this process's trace is written until it is finished: where its
/// place will be, under a name no other process (of any host) takes.
fn temporary_path(pid: u32) -> PathBuf {
    let directory = match &crate::config().profile_path {
        Some(profile) => Path::new(profile)
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf(),
        None => crate::experiment::base_directory(),
    };
    directory.join(format!(
        ".pomp-trace.{}.{pid}.{EXTENSION}.tmp",
        crate::process::host()
    ))
}

/// Opens this process's trace file; called once when the runtime starts,
/// and again in a fork child, whose trace is its own.
pub fn open() {
    let pid = std::process::id();
    let temporary = temporary_path(pid);
    let opened = open_for_appending(&temporary).and_then(|fd| {
        write_all(fd, &header())?;
        Ok(fd)
    });
    let open_error = match opened {
        Ok(fd) => {
            FILE.store(fd, Ordering::Release);
            None
        }
        Err(error) => {
            FILE.store(-1, Ordering::Release);
            Some(error)
        }
    };
    WRITE_FAILED.store(false, Ordering::Relaxed);
    let destination = Box::into_raw(Box::new(Destination {
        temporary,
        open_error,
    }));
    // A fork child's earlier destination is the parent's; it is left as
    // it is (the parent may still use it).
    DESTINATION.store(destination, Ordering::Release);
}

/// What the writer knows when it finishes the trace.
pub struct Run<'a> {
    pub pid: u32,
    pub wall_ns: u64,
    pub scale: &'a Scale,
    pub regions: &'a [Region],
    /// Where the trace goes; none when it has no place.
    pub path: Option<PathBuf>,
    pub identity: &'a super::identity::Identity,
}

/// Appends every thread's last chunk and the footer, and moves the file to
/// its place. The threads are frozen.
pub fn finish(states: &mut [(&ThreadData, &mut ThreadState)], run: Run) -> TraceSummary {
    for (_, state) in states.iter_mut() {
        state.trace.flush();
    }
    let events: u64 = states.iter().map(|(_, s)| s.trace.stored).sum();
    let dropped: u64 = states.iter().map(|(_, s)| s.trace.dropped).sum();
    let mpi_records: u64 = states.iter().map(|(_, s)| s.trace.stored_mpi).sum();
    let dropped_mpi: u64 = states.iter().map(|(_, s)| s.trace.dropped_mpi).sum();
    let config = crate::config();
    if dropped + dropped_mpi > 0 {
        super::writing::warn(format_args!(
            "pomp: POMP_TRACE_LIMIT={} reached: {} events were dropped; the trace is incomplete",
            config.trace_limit,
            dropped + dropped_mpi
        ));
    }
    let identity = run.identity;
    let footer = Footer {
        format: FORMAT.to_string(),
        producer: "pomp-runtime".to_string(),
        pid: run.pid,
        rank: identity.rank.clone(),
        origin_ticks: run.scale.origin_ticks(),
        ns_per_tick: run.scale.ns_per_tick(),
        wall_ns: run.wall_ns,
        events,
        dropped_events: dropped,
        trace_limit: config.trace_limit,
        buffer_bytes: crate::trace::BUFFER_BYTES as u64,
        threads: states.iter().map(|(data, _)| data.index).collect(),
        regions: run.regions.to_vec(),
        experiment: identity.experiment.clone(),
        ranks: identity.ranks,
        host: Some(identity.host.clone()),
        clock: Some(identity.clock.clone()),
        mpi_records,
        dropped_mpi_records: dropped_mpi,
        communicators: crate::mpi::world::communicators(),
    };
    let destination = unsafe { DESTINATION.load(Ordering::Acquire).as_ref() };
    let (Some(destination), Some(path)) = (destination, run.path) else {
        return TraceSummary {
            path: String::new(),
            written: false,
            events,
            dropped_events: dropped,
        };
    };
    write_chunk(&footer_chunk(&footer));
    let fd = FILE.swap(-1, Ordering::AcqRel);
    let closed = fd < 0 || unsafe { libc::close(fd) } == 0;
    let result = match &destination.open_error {
        Some(error) => Err(io::Error::new(error.kind(), error.to_string())),
        None if WRITE_FAILED.load(Ordering::Relaxed) => Err(io::Error::other("a write failed")),
        None if !closed => Err(io::Error::last_os_error()),
        None => move_file(&destination.temporary, &path),
    };
    if let Err(error) = &result {
        let _ = std::fs::remove_file(&destination.temporary);
        super::writing::warn(format_args!(
            "pomp: cannot write trace {}: {error}",
            path.display()
        ));
    }
    TraceSummary {
        path: path.display().to_string(),
        written: result.is_ok(),
        events,
        dropped_events: dropped,
    }
}

/// Renames `from` to `to`, or copies it where they are on different file
/// systems (a `POMP_EXPERIMENT_DIRECTORY` that is a mount point).
fn move_file(from: &Path, to: &Path) -> io::Result<()> {
    match std::fs::rename(from, to) {
        Err(error) if error.raw_os_error() == Some(libc::EXDEV) => {
            std::fs::copy(from, to)?;
            std::fs::remove_file(from)
        }
        done => done,
    }
}

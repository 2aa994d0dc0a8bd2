//! The runtime's trace as an OTF2 archive, the format of Score-P traces
//! that Vampir, `otf2-print`, the OTF2 Python bindings and Scalasca read,
//! written through the OTF2 library the distributions ship ([`library`],
//! loaded when first needed).
//!
//! Each thread is a location of one process. Each span becomes an enter
//! and a leave of its region (a region per construct and kind, with its
//! source file and lines), with OpenMP's events around them as OTF2 has
//! them: a parallel region's forking thread forks and joins the team; a
//! task's creation creates it, a task instance switches to the task, and
//! completes it, and the thread switches back to the task it suspended.
//! Tasks are named as OTF2 names them: the thread that created them and
//! their number there, which pomp's task ids are made of. Spans nest on
//! their thread; an end that the clocks of two cores put past its
//! enclosing span's end is moved back to it, so that every location's
//! events are balanced and in time order.

pub mod library;

use library::Otf2;
use pomp2::profile::{kind_label, Kind, RegionId};
use pomp2::trace::{Span, Trace};
use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The archive's name inside its directory: `traces.otf2`, `traces.def`
/// and `traces/`, as Score-P names them.
const ARCHIVE: &str = "traces";
/// Bits of a task id below its thread's number (see the runtime).
const TASK_COUNTER_BITS: u32 = 40;

/// What writing the archive can fail at.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Library(String),
    #[error("{} holds files that are not an OTF2 archive; name an empty or new directory", .0.display())]
    NotAnArchive(PathBuf),
    #[error("cannot write the OTF2 archive {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the OTF2 library failed at {call}: {name}")]
    Call { call: &'static str, name: String },
}

/// What was written.
#[derive(Debug, Clone, Default)]
pub struct Written {
    pub events: u64,
    pub locations: usize,
}

/// Writes `trace` as an OTF2 archive in directory `dir` (made, or
/// replacing an archive written there before).
pub fn write(trace: &Trace, dir: &Path) -> Result<Written, Error> {
    let mut archive = Archive::create(dir)?;
    archive.add(trace)?;
    archive.finish()
}

/// The last time stamp written, which the library asks for when it
/// flushes a buffer.
static LAST_TIME: AtomicU64 = AtomicU64::new(0);

extern "C" fn pre_flush(_: *mut c_void, _: u8, _: u64, _: *mut c_void, _: bool) -> u8 {
    library::FLUSH
}

extern "C" fn post_flush(_: *mut c_void, _: u8, _: u64) -> u64 {
    LAST_TIME.load(Ordering::Relaxed)
}

static FLUSH_CALLBACKS: library::FlushCallbacks = library::FlushCallbacks {
    pre_flush,
    post_flush,
};

/// A region as the archive defines it: the strings it is named by.
struct RegionDefinition {
    name: u32,
    description: u32,
    role: u8,
    paradigm: u8,
    file: u32,
    begin: u32,
    end: u32,
}

/// A thread of a process, and the events written for it.
struct Location {
    id: u64,
    thread: u32,
    events: u64,
}

/// A process whose trace was written: a location group.
struct Process {
    name: String,
    locations: Vec<Location>,
}

/// An archive being written, process by process: each process's trace is
/// written as it is added and not kept; the definitions every process
/// shares (strings, regions, the system tree, groups and communicators)
/// are written once all are.
pub struct Archive {
    otf2: &'static Otf2,
    archive: *mut c_void,
    dir: PathBuf,
    temporary: PathBuf,
    strings: Vec<CString>,
    string_index: HashMap<String, u32>,
    regions: Vec<RegionDefinition>,
    /// By label: regions of different processes named alike are one.
    region_index: HashMap<String, u32>,
    processes: Vec<Process>,
    last_time: u64,
    finished: bool,
}

/// A span open on a location while its events are written.
struct Open {
    end: u64,
    region: u32,
    span: Span,
}

impl Archive {
    /// Starts an archive that will be directory `dir` (made, or replacing
    /// an archive written there before) once finished; until then it is
    /// written beside it.
    pub fn create(dir: &Path) -> Result<Archive, Error> {
        let otf2 = library::get().map_err(Error::Library)?;
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| Error::Io { path, source }
        };
        if dir.exists() {
            let has_archive = dir.join(format!("{ARCHIVE}.otf2")).is_file();
            let empty = std::fs::read_dir(dir).map_err(io(dir))?.next().is_none();
            if !has_archive && !empty {
                return Err(Error::NotAnArchive(dir.to_path_buf()));
            }
        }
        let mut temporary = dir.as_os_str().to_owned();
        temporary.push(format!(".tmp{}", std::process::id()));
        let temporary = PathBuf::from(temporary);
        let _ = std::fs::remove_dir_all(&temporary);
        let path = CString::new(temporary.as_os_str().as_encoded_bytes())
            .map_err(|_| Error::Library("the directory's name holds a NUL".into()))?;
        let name = CString::new(ARCHIVE).unwrap();
        let archive = unsafe {
            (otf2.archive_open)(
                path.as_ptr(),
                name.as_ptr(),
                library::FILEMODE_WRITE,
                library::CHUNK_SIZE_EVENTS,
                library::CHUNK_SIZE_DEFINITIONS,
                library::SUBSTRATE_POSIX,
                library::COMPRESSION_NONE,
            )
        };
        if archive.is_null() {
            return Err(Error::Call {
                call: "OTF2_Archive_Open",
                name: format!("cannot open an archive in {}", temporary.display()),
            });
        }
        let written = Archive {
            otf2,
            archive,
            dir: dir.to_path_buf(),
            temporary,
            strings: Vec::new(),
            string_index: HashMap::new(),
            regions: Vec::new(),
            region_index: HashMap::new(),
            processes: Vec::new(),
            last_time: 0,
            finished: false,
        };
        unsafe {
            written.check(
                "OTF2_Archive_SetFlushCallbacks",
                (otf2.set_flush_callbacks)(archive, &FLUSH_CALLBACKS, std::ptr::null_mut()),
            )?;
            written.check(
                "OTF2_Archive_SetSerialCollectiveCallbacks",
                (otf2.set_serial_collective_callbacks)(archive),
            )?;
            let creator = CString::new(format!("pomp {}", env!("CARGO_PKG_VERSION"))).unwrap();
            written.check(
                "OTF2_Archive_SetCreator",
                (otf2.set_creator)(archive, creator.as_ptr()),
            )?;
            written.check("OTF2_Archive_OpenEvtFiles", (otf2.open_evt_files)(archive))?;
        }
        Ok(written)
    }

    fn check(&self, call: &'static str, code: library::ErrorCode) -> Result<(), Error> {
        if code == library::SUCCESS {
            return Ok(());
        }
        let name = unsafe {
            let name = (self.otf2.error_name)(code);
            if name.is_null() {
                format!("error {code}")
            } else {
                std::ffi::CStr::from_ptr(name)
                    .to_string_lossy()
                    .into_owned()
            }
        };
        Err(Error::Call { call, name })
    }

    fn string(&mut self, text: &str) -> u32 {
        if let Some(&at) = self.string_index.get(text) {
            return at;
        }
        let at = self.strings.len() as u32;
        // Labels and paths hold no NUL; one that did would be cut there.
        let bytes: Vec<u8> = text.bytes().take_while(|&b| b != 0).collect();
        self.strings.push(CString::new(bytes).expect("no NUL left"));
        self.string_index.insert(text.to_string(), at);
        at
    }

    /// The archive's region for spans of `kind` in `region` of `trace`.
    fn region(&mut self, trace: &Trace, region: RegionId, kind: Kind) -> u32 {
        let region = trace.region(region);
        let label = kind_label(kind, region);
        if let Some(&at) = self.region_index.get(&label) {
            return at;
        }
        let definition = RegionDefinition {
            name: self.string(&label),
            description: self.string(kind.name()),
            role: role(kind),
            paradigm: if kind == Kind::UserRegion {
                library::PARADIGM_USER
            } else {
                library::PARADIGM_OPENMP
            },
            file: (region.and_then(|r| r.file.clone()))
                .map_or(library::UNDEFINED_U32, |f| self.string(&f)),
            begin: region.and_then(|r| r.first_line).unwrap_or(0),
            end: region
                .and_then(|r| r.end_last_line.or(r.last_line))
                .unwrap_or(0),
        };
        let at = self.regions.len() as u32;
        self.regions.push(definition);
        self.region_index.insert(label, at);
        at
    }

    /// Writes the events of every thread of `trace`, one process: its
    /// rank's when it has one.
    pub fn add(&mut self, trace: &Trace) -> Result<(), Error> {
        let process = self.processes.len();
        let threads: Vec<u32> = trace.threads.keys().copied().collect();
        let mut locations = Vec::with_capacity(threads.len());
        for &thread in &threads {
            let id = (process as u64) << 32 | u64::from(thread);
            let writer = unsafe { (self.otf2.get_evt_writer)(self.archive, id) };
            if writer.is_null() {
                return Err(Error::Call {
                    call: "OTF2_Archive_GetEvtWriter",
                    name: format!("no writer for thread {thread}"),
                });
            }
            let (events, end) =
                self.write_location(writer, trace, thread, process as u32, threads.len() as u32)?;
            self.last_time = self.last_time.max(end);
            locations.push(Location { id, thread, events });
            unsafe {
                self.check(
                    "OTF2_Archive_CloseEvtWriter",
                    (self.otf2.close_evt_writer)(self.archive, writer),
                )?;
            }
        }
        self.processes.push(Process {
            name: match &trace.footer.rank {
                Some(rank) => format!("rank {rank}"),
                None => format!("process {}", trace.footer.pid),
            },
            locations,
        });
        Ok(())
    }

    /// One thread's events; their number and the last time stamp.
    fn write_location(
        &mut self,
        writer: *mut c_void,
        trace: &Trace,
        thread: u32,
        team: u32,
        team_size: u32,
    ) -> Result<(u64, u64), Error> {
        let mut spans: Vec<(usize, Span)> =
            trace.threads[&thread].iter().copied().enumerate().collect();
        // Enclosing spans first: earlier start, later end, and of spans
        // alike, the later written (spans are written as they close).
        spans.sort_by(|(ia, a), (ib, b)| {
            a.start
                .cmp(&b.start)
                .then((b.start + b.duration).cmp(&(a.start + a.duration)))
                .then(ib.cmp(ia))
        });
        let mut events = Events {
            otf2: self.otf2,
            writer,
            team,
            count: 0,
            last: 0,
        };
        let mut open: Vec<Open> = Vec::new();
        for (_, span) in spans {
            while open.last().is_some_and(|o| o.end <= span.start) {
                let closed = open.pop().unwrap();
                events.leave(&closed, open.last())?;
            }
            let mut end = span.start + span.duration;
            if let Some(enclosing) = open.last() {
                end = end.min(enclosing.end);
            }
            let region = self.region(trace, span.region, span.kind);
            events.enter(&span, region, team_size)?;
            open.push(Open { end, region, span });
        }
        while let Some(closed) = open.pop() {
            events.leave(&closed, open.last())?;
        }
        Ok((events.count, events.last))
    }

    /// Writes the definitions, closes the archive and puts it in place.
    pub fn finish(mut self) -> Result<Written, Error> {
        let defined = self.close();
        let closed = unsafe { (self.otf2.archive_close)(self.archive) };
        self.finished = true;
        let placed = defined
            .and_then(|()| self.check("OTF2_Archive_Close", closed))
            .and_then(|()| self.put_in_place());
        if let Err(error) = placed {
            let _ = std::fs::remove_dir_all(&self.temporary);
            return Err(error);
        }
        let locations = self.processes.iter().map(|p| p.locations.len()).sum();
        let events = (self.processes.iter())
            .flat_map(|p| p.locations.iter().map(|l| l.events))
            .sum();
        Ok(Written { events, locations })
    }

    /// The archive written beside its place moved there, over the archive
    /// there before.
    fn put_in_place(&self) -> Result<(), Error> {
        let io = |source| Error::Io {
            path: self.dir.clone(),
            source,
        };
        if self.dir.exists() {
            std::fs::remove_dir_all(&self.dir).map_err(io)?;
        }
        std::fs::rename(&self.temporary, &self.dir).map_err(io)
    }

    fn close(&mut self) -> Result<(), Error> {
        let (otf2, archive) = (self.otf2, self.archive);
        unsafe {
            self.check(
                "OTF2_Archive_CloseEvtFiles",
                (otf2.close_evt_files)(archive),
            )?;
            self.check("OTF2_Archive_OpenDefFiles", (otf2.open_def_files)(archive))?;
            for location in self.processes.iter().flat_map(|p| &p.locations) {
                let writer = (otf2.get_def_writer)(archive, location.id);
                self.check(
                    "OTF2_Archive_CloseDefWriter",
                    (otf2.close_def_writer)(archive, writer),
                )?;
            }
            self.check(
                "OTF2_Archive_CloseDefFiles",
                (otf2.close_def_files)(archive),
            )?;
        }
        self.write_definitions()
    }

    fn write_definitions(&mut self) -> Result<(), Error> {
        let otf2 = self.otf2;
        let undefined = library::UNDEFINED_U32;
        // Every string first, then what names them.
        let openmp = self.string("OpenMP");
        let machine = self.string("machine");
        let team_locations = self.string("OpenMP threads");
        let processes: Vec<(u32, u32, Vec<u32>)> = (0..self.processes.len())
            .map(|at| {
                let name = self.processes[at].name.clone();
                let threads: Vec<u32> = self.processes[at]
                    .locations
                    .iter()
                    .map(|l| l.thread)
                    .collect();
                (
                    self.string(&name),
                    self.string(&format!("OpenMP thread team of {name}")),
                    threads
                        .iter()
                        .map(|t| self.string(&format!("thread {t}")))
                        .collect(),
                )
            })
            .collect();
        let members: Vec<u64> = (self.processes.iter())
            .flat_map(|p| p.locations.iter().map(|l| l.id))
            .collect();
        unsafe {
            let global = (otf2.get_global_def_writer)(self.archive);
            if global.is_null() {
                return Err(Error::Call {
                    call: "OTF2_Archive_GetGlobalDefWriter",
                    name: "no writer".into(),
                });
            }
            self.check(
                "OTF2_GlobalDefWriter_WriteClockProperties",
                (otf2.write_clock_properties)(
                    global,
                    1_000_000_000,
                    0,
                    self.last_time + 1,
                    u64::MAX,
                ),
            )?;
            for (at, string) in self.strings.iter().enumerate() {
                self.check(
                    "OTF2_GlobalDefWriter_WriteString",
                    (otf2.write_string)(global, at as u32, string.as_ptr()),
                )?;
            }
            self.check(
                "OTF2_GlobalDefWriter_WriteParadigm",
                (otf2.write_paradigm)(
                    global,
                    library::PARADIGM_OPENMP,
                    openmp,
                    library::PARADIGM_CLASS_THREAD_FORK_JOIN,
                ),
            )?;
            self.check(
                "OTF2_GlobalDefWriter_WriteSystemTreeNode",
                (otf2.write_system_tree_node)(global, 0, machine, machine, undefined),
            )?;
            for (group, (process, (name, _, thread_names))) in
                self.processes.iter().zip(&processes).enumerate()
            {
                self.check(
                    "OTF2_GlobalDefWriter_WriteLocationGroup",
                    (otf2.write_location_group)(
                        global,
                        group as u32,
                        *name,
                        library::LOCATION_GROUP_TYPE_PROCESS,
                        0,
                        undefined,
                    ),
                )?;
                for (location, &thread_name) in process.locations.iter().zip(thread_names) {
                    self.check(
                        "OTF2_GlobalDefWriter_WriteLocation",
                        (otf2.write_location)(
                            global,
                            location.id,
                            thread_name,
                            library::LOCATION_TYPE_CPU_THREAD,
                            location.events,
                            group as u32,
                        ),
                    )?;
                }
            }
            for (at, region) in self.regions.iter().enumerate() {
                self.check(
                    "OTF2_GlobalDefWriter_WriteRegion",
                    (otf2.write_region)(
                        global,
                        at as u32,
                        region.name,
                        region.name,
                        region.description,
                        region.role,
                        region.paradigm,
                        0,
                        region.file,
                        region.begin,
                        region.end,
                    ),
                )?;
            }
            // Every thread of the archive, and each process's team as
            // their places in that list.
            self.check(
                "OTF2_GlobalDefWriter_WriteGroup",
                (otf2.write_group)(
                    global,
                    0,
                    team_locations,
                    library::GROUP_TYPE_COMM_LOCATIONS,
                    library::PARADIGM_OPENMP,
                    0,
                    members.len() as u32,
                    members.as_ptr(),
                ),
            )?;
            let mut first = 0u64;
            for (team, (process, (_, team_name, _))) in
                self.processes.iter().zip(&processes).enumerate()
            {
                let places: Vec<u64> = (first..first + process.locations.len() as u64).collect();
                first += process.locations.len() as u64;
                self.check(
                    "OTF2_GlobalDefWriter_WriteGroup",
                    (otf2.write_group)(
                        global,
                        1 + team as u32,
                        *team_name,
                        library::GROUP_TYPE_COMM_GROUP,
                        library::PARADIGM_OPENMP,
                        0,
                        places.len() as u32,
                        places.as_ptr(),
                    ),
                )?;
                self.check(
                    "OTF2_GlobalDefWriter_WriteComm",
                    (otf2.write_comm)(
                        global,
                        team as u32,
                        *team_name,
                        1 + team as u32,
                        undefined,
                        0,
                    ),
                )?;
            }
        }
        Ok(())
    }
}

impl Drop for Archive {
    /// An archive not finished (an error on the way) is closed and its
    /// files removed: nothing half written is left.
    fn drop(&mut self) {
        if !self.finished {
            unsafe { (self.otf2.archive_close)(self.archive) };
            let _ = std::fs::remove_dir_all(&self.temporary);
        }
    }
}

/// One location's event writer, counting what it writes.
struct Events {
    otf2: &'static Otf2,
    writer: *mut c_void,
    /// The communicator of the process's thread team.
    team: u32,
    count: u64,
    last: u64,
}

impl Events {
    fn done(
        &mut self,
        call: &'static str,
        time: u64,
        code: library::ErrorCode,
    ) -> Result<(), Error> {
        if code != library::SUCCESS {
            return Err(Error::Call {
                call,
                name: format!("error {code}"),
            });
        }
        self.count += 1;
        self.last = time;
        LAST_TIME.store(time, Ordering::Relaxed);
        Ok(())
    }

    fn enter(&mut self, span: &Span, region: u32, team_size: u32) -> Result<(), Error> {
        let (otf2, writer, time, null) = (self.otf2, self.writer, span.start, std::ptr::null_mut());
        if span.kind.is_task() {
            let (creator, number) = task_name(span.task);
            let code = unsafe {
                (otf2.thread_task_switch)(writer, null, time, self.team, creator, number)
            };
            self.done("OTF2_EvtWriter_ThreadTaskSwitch", time, code)?;
        }
        let code = unsafe { (otf2.enter)(writer, null, time, region) };
        self.done("OTF2_EvtWriter_Enter", time, code)?;
        match span.kind {
            Kind::Parallel if span.forked => {
                let code = unsafe {
                    (otf2.thread_fork)(writer, null, time, library::PARADIGM_OPENMP, team_size)
                };
                self.done("OTF2_EvtWriter_ThreadFork", time, code)
            }
            Kind::TaskCreate | Kind::UntiedTaskCreate if span.task != 0 => {
                let (creator, number) = task_name(span.task);
                let code = unsafe {
                    (otf2.thread_task_create)(writer, null, time, self.team, creator, number)
                };
                self.done("OTF2_EvtWriter_ThreadTaskCreate", time, code)
            }
            _ => Ok(()),
        }
    }

    fn leave(&mut self, closed: &Open, enclosing: Option<&Open>) -> Result<(), Error> {
        let (otf2, writer, time, null) = (self.otf2, self.writer, closed.end, std::ptr::null_mut());
        let span = &closed.span;
        if span.kind == Kind::Parallel && span.forked {
            let code = unsafe { (otf2.thread_join)(writer, null, time, library::PARADIGM_OPENMP) };
            self.done("OTF2_EvtWriter_ThreadJoin", time, code)?;
        }
        let code = unsafe { (otf2.leave)(writer, null, time, closed.region) };
        self.done("OTF2_EvtWriter_Leave", time, code)?;
        if span.kind.is_task() {
            let (creator, number) = task_name(span.task);
            let code = unsafe {
                (otf2.thread_task_complete)(writer, null, time, self.team, creator, number)
            };
            self.done("OTF2_EvtWriter_ThreadTaskComplete", time, code)?;
            if let Some(resumed) = enclosing {
                let (creator, number) = task_name(resumed.span.task);
                let code = unsafe {
                    (otf2.thread_task_switch)(writer, null, time, self.team, creator, number)
                };
                self.done("OTF2_EvtWriter_ThreadTaskSwitch", time, code)?;
            }
        }
        Ok(())
    }
}

/// A task as OTF2 names it: the thread that made it and its number there.
fn task_name(task: i64) -> (u32, u32) {
    let creator = ((task >> TASK_COUNTER_BITS) as u32).saturating_sub(1);
    let number = (task & ((1 << TASK_COUNTER_BITS) - 1)) as u32;
    (creator, number)
}

/// OTF2's role of a region of `kind`.
fn role(kind: Kind) -> u8 {
    use library::role::*;
    match kind {
        Kind::Thread => ARTIFICIAL,
        Kind::Parallel => PARALLEL,
        Kind::For | Kind::Do | Kind::Loop | Kind::Taskloop | Kind::Distribute => LOOP,
        Kind::Sections => SECTIONS,
        Kind::Section => SECTION,
        Kind::Workshare => WORKSHARE,
        Kind::Single => SINGLE,
        Kind::SingleBody => SINGLE_SBLOCK,
        Kind::Master | Kind::Masked => MASTER,
        Kind::Critical => CRITICAL,
        Kind::Atomic => ATOMIC,
        Kind::Barrier => BARRIER,
        Kind::ImplicitBarrier => IMPLICIT_BARRIER,
        Kind::Flush => FLUSH,
        Kind::Ordered => ORDERED,
        Kind::Task => TASK,
        Kind::UntiedTask => TASK_UNTIED,
        Kind::TaskCreate | Kind::UntiedTaskCreate => TASK_CREATE,
        Kind::Taskwait => TASK_WAIT,
        Kind::SetLock | Kind::SetNestLock | Kind::TestLock | Kind::TestNestLock => WRAPPER,
        _ => CODE,
    }
}

//! The archive, written process by process, and its definitions.

use super::comms::{Comms, Members, MpiComm};
use super::error::Error;
use super::events::{self, Events};
use super::handles::{self, check, Batch, Place, Writer};
use super::library::{self, Otf2};
use pomp2::experiment::Experiment;
use pomp2::profile::{kind_label, Kind, RegionId};
use pomp2::trace::{Span, Trace};
use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::path::{Path, PathBuf};

/// The archive's name inside its directory: `traces.otf2`, `traces.def`
/// and `traces/`, as Score-P names them.
const ARCHIVE: &str = "traces";

/// What was written.
#[derive(Debug, Clone, Default)]
pub struct Written {
    pub events: u64,
    pub locations: usize,
}

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
    rank: Option<u32>,
    host: Option<String>,
    /// The communicator of its OpenMP thread team.
    team: u32,
    locations: Vec<Location>,
}

/// The archive's time stamps: the first and the last written, and where
/// rank 0's clock began, which the manifest's start gives in real time.
#[derive(Debug, Default)]
struct Timeline {
    first: Option<u64>,
    last: u64,
    rank0_origin: Option<u64>,
}

/// An archive being written, process by process: each process's trace is
/// written as it is added and not kept; the definitions every process
/// shares (strings, regions, the system tree, groups and communicators)
/// are written once all are.
pub struct Archive {
    otf2: &'static Otf2,
    /// The handle the shared definitions are written through, closed
    /// last ([`handles`]).
    definitions: *mut c_void,
    place: Place,
    /// The handle writing the processes' events, when one is open.
    batch: Option<Batch>,
    locations_per_batch: usize,
    dir: PathBuf,
    temporary: PathBuf,
    /// When rank 0's measurement began, in nanoseconds since 1970.
    start_unix_ns: Option<u64>,
    strings: Vec<CString>,
    string_index: HashMap<String, u32>,
    regions: Vec<RegionDefinition>,
    /// By label: regions of different processes named alike are one.
    region_index: HashMap<String, u32>,
    processes: Vec<Process>,
    comms: Comms,
    time: Timeline,
    finished: bool,
}

impl Archive {
    /// Starts an archive that will be directory `dir` (made, or replacing
    /// an archive written there before) once finished; until then it is
    /// written beside it. The traces are of `experiment`, when known, and
    /// of `processes` processes.
    pub fn create(
        dir: &Path,
        experiment: Option<&Experiment>,
        processes: usize,
    ) -> Result<Archive, Error> {
        let otf2 = library::get().map_err(Error::Library)?;
        // A bound on the threads of a process: the most a rank of the
        // experiment had, else more than programs run.
        let threads = (experiment.and_then(|e| e.manifest.threads_per_rank.as_ref()))
            .and_then(|threads| threads.iter().max().copied())
            .unwrap_or(256);
        let locations = processes as u64 * u64::from(threads.max(1));
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
        let place = Place {
            dir: CString::new(temporary.as_os_str().as_encoded_bytes())
                .map_err(|_| Error::Library("the directory's name holds a NUL".into()))?,
            name: CString::new(ARCHIVE).unwrap(),
        };
        let definitions = handles::open(
            otf2,
            &place,
            Writer::Root,
            library::definitions_chunk_size(locations),
        )?;
        Ok(Archive {
            otf2,
            definitions,
            place,
            batch: None,
            locations_per_batch: handles::LOCATIONS_PER_BATCH,
            dir: dir.to_path_buf(),
            temporary,
            start_unix_ns: experiment.map(|e| e.manifest.start_unix_ns),
            strings: Vec::new(),
            string_index: HashMap::new(),
            regions: Vec::new(),
            region_index: HashMap::new(),
            processes: Vec::new(),
            comms: Comms::default(),
            time: Timeline::default(),
            finished: false,
        })
    }

    fn check(&self, call: &'static str, code: library::ErrorCode) -> Result<(), Error> {
        check(self.otf2, call, code)
    }

    /// The batch to write a process of `threads` threads in: the open one
    /// while it has room, else a new one.
    fn batch_for(&mut self, threads: usize) -> Result<&mut Batch, Error> {
        let bound = self.locations_per_batch;
        if let Some(full) = self.batch.take_if(|b| b.is_full_for(threads, bound)) {
            full.close()?;
        }
        match &mut self.batch {
            Some(batch) => Ok(batch),
            none => Ok(none.insert(Batch::open(self.otf2, &self.place)?)),
        }
    }

    fn string(&mut self, text: &str) -> u32 {
        string(&mut self.strings, &mut self.string_index, text)
    }

    /// Writes the events of every thread of `trace`, one process: its
    /// rank's when it has one.
    pub fn add(&mut self, trace: &Trace) -> Result<(), Error> {
        let footer = &trace.footer;
        let process = self.processes.len();
        let rank: Option<u32> = footer.rank.as_deref().and_then(|r| r.parse().ok());
        let clock = footer.clock.clone();
        let common = move |local: u64| match &clock {
            Some(clock) => clock.common_ns(local).max(0) as u64,
            None => local,
        };
        if rank == Some(0) || (rank.is_none() && process == 0) {
            self.time.rank0_origin = Some(common(0));
        }
        self.comms.define(&footer.communicators);
        let team = self.comms.team();
        let threads: Vec<u32> = trace
            .threads
            .keys()
            .chain(trace.mpi.keys())
            .copied()
            .collect::<std::collections::BTreeSet<u32>>()
            .into_iter()
            .collect();
        let mut locations = Vec::with_capacity(threads.len());
        // A label is made once per region and kind of this trace, not per
        // span: making one is most of what a span would cost.
        let mut of_trace: HashMap<(RegionId, Kind), u32> = HashMap::new();
        self.batch_for(threads.len())?;
        for &thread in &threads {
            let id = (process as u64) << 32 | u64::from(thread);
            let batch = self.batch.as_mut().expect("opened above");
            let writer = batch.writer(id)?;
            let spans = trace.threads.get(&thread).map_or(&[][..], Vec::as_slice);
            let records = trace.mpi.get(&thread).map_or(&[][..], Vec::as_slice);
            let (strings, string_index) = (&mut self.strings, &mut self.string_index);
            let (regions, region_index) = (&mut self.regions, &mut self.region_index);
            let mut region = |span: &Span| {
                *of_trace.entry((span.region, span.kind)).or_insert_with(|| {
                    let label = kind_label(span.kind, trace.region(span.region));
                    if let Some(&at) = region_index.get(&label) {
                        return at;
                    }
                    let definition =
                        define_region(strings, string_index, trace, span.region, span.kind, &label);
                    regions.push(definition);
                    region_index.insert(label, regions.len() as u32 - 1);
                    regions.len() as u32 - 1
                })
            };
            let mut events = Events {
                otf2: self.otf2,
                writer,
                team,
                comms: &mut self.comms,
                common: &common,
                count: 0,
                first: None,
                last: 0,
            };
            events::write_thread(
                &mut events,
                spans,
                records,
                &mut region,
                threads.len() as u32,
            )?;
            let (count, first, last) = (events.count, events.first, events.last);
            if let Some(first) = first {
                self.time.first = Some(self.time.first.map_or(first, |f| f.min(first)));
            }
            self.time.last = self.time.last.max(last);
            locations.push(Location {
                id,
                thread,
                events: count,
            });
            self.batch
                .as_mut()
                .expect("opened above")
                .close_writer(writer)?;
        }
        self.processes.push(Process {
            name: match &footer.rank {
                Some(rank) => format!("rank {rank}"),
                None => format!("process {}", footer.pid),
            },
            rank,
            host: footer.host.clone(),
            team,
            locations,
        });
        Ok(())
    }

    /// Writes the definitions, closes the archive and puts it in place.
    pub fn finish(mut self) -> Result<Written, Error> {
        let defined = self.close();
        let closed = unsafe { (self.otf2.archive_close)(self.definitions) };
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

    /// Closes the last batch, then writes the definitions.
    fn close(&mut self) -> Result<(), Error> {
        if let Some(batch) = self.batch.take() {
            batch.close()?;
        }
        let global = unsafe { (self.otf2.get_global_def_writer)(self.definitions) };
        if global.is_null() {
            return Err(Error::Call {
                call: "OTF2_Archive_GetGlobalDefWriter",
                name: "no writer".into(),
            });
        }
        self.write_definitions(global)
    }

    /// Every definition, in the order OTF2 wants them: the clock, strings,
    /// paradigms, the system tree, location groups and locations, regions,
    /// groups and communicators.
    fn write_definitions(&mut self, global: *mut c_void) -> Result<(), Error> {
        let otf2 = self.otf2;
        let undefined = library::UNDEFINED_U32;
        let mpi_comms = self.comms.mpi_definitions();
        // Every string first, then what names them.
        let openmp = self.string("OpenMP");
        let mpi = self.string("MPI");
        let machine = self.string("machine");
        let node = self.string("node");
        let team_locations = self.string("OpenMP threads");
        let mpi_locations = self.string("MPI ranks");
        let mut hosts: Vec<(String, u32)> = Vec::new();
        let named: Vec<String> = self
            .processes
            .iter()
            .filter_map(|p| p.host.clone())
            .collect();
        for host in named {
            if !hosts.iter().any(|(known, _)| *known == host) {
                let name = self.string(&host);
                hosts.push((host, name));
            }
        }
        let names: Vec<(u32, u32, Vec<u32>)> = (0..self.processes.len())
            .map(|at| {
                let name = self.processes[at].name.clone();
                let threads: Vec<u32> = (self.processes[at].locations.iter())
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
        let comm_names: Vec<u32> = mpi_comms.iter().map(|c| self.string(&c.name)).collect();
        let time = &self.time;
        let first = time.first.unwrap_or(0);
        let realtime = match (self.start_unix_ns, time.rank0_origin) {
            (Some(start), Some(origin)) => {
                start.saturating_add_signed(first as i64 - origin as i64)
            }
            _ => library::UNDEFINED_TIMESTAMP,
        };
        let write = |call: &'static str, code| self.check(call, code);
        unsafe {
            write(
                "OTF2_GlobalDefWriter_WriteClockProperties",
                (otf2.write_clock_properties)(
                    global,
                    1_000_000_000,
                    first,
                    time.last.saturating_sub(first) + 1,
                    realtime,
                ),
            )?;
            for (at, string) in self.strings.iter().enumerate() {
                write(
                    "OTF2_GlobalDefWriter_WriteString",
                    (otf2.write_string)(global, at as u32, string.as_ptr()),
                )?;
            }
            write(
                "OTF2_GlobalDefWriter_WriteParadigm",
                (otf2.write_paradigm)(
                    global,
                    library::PARADIGM_OPENMP,
                    openmp,
                    library::PARADIGM_CLASS_THREAD_FORK_JOIN,
                ),
            )?;
            if !mpi_comms.is_empty() {
                write(
                    "OTF2_GlobalDefWriter_WriteParadigm",
                    (otf2.write_paradigm)(
                        global,
                        library::PARADIGM_MPI,
                        mpi,
                        library::PARADIGM_CLASS_PROCESS,
                    ),
                )?;
            }
            write(
                "OTF2_GlobalDefWriter_WriteSystemTreeNode",
                (otf2.write_system_tree_node)(global, 0, machine, machine, undefined),
            )?;
            for (at, (_, name)) in hosts.iter().enumerate() {
                write(
                    "OTF2_GlobalDefWriter_WriteSystemTreeNode",
                    (otf2.write_system_tree_node)(global, 1 + at as u32, *name, node, 0),
                )?;
            }
            for (group, (process, (name, _, thread_names))) in
                self.processes.iter().zip(&names).enumerate()
            {
                let parent = (process.host.as_ref())
                    .and_then(|host| hosts.iter().position(|(known, _)| known == host))
                    .map_or(0, |at| 1 + at as u32);
                write(
                    "OTF2_GlobalDefWriter_WriteLocationGroup",
                    (otf2.write_location_group)(
                        global,
                        group as u32,
                        *name,
                        library::LOCATION_GROUP_TYPE_PROCESS,
                        parent,
                        undefined,
                    ),
                )?;
                for (location, &thread_name) in process.locations.iter().zip(thread_names) {
                    write(
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
                write(
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
            let mut groups = Groups {
                otf2,
                global,
                next: 0,
                check: &write,
            };
            // Every thread of the archive.
            let members: Vec<u64> = (self.processes.iter())
                .flat_map(|p| p.locations.iter().map(|l| l.id))
                .collect();
            groups.write(
                team_locations,
                library::GROUP_TYPE_COMM_LOCATIONS,
                library::PARADIGM_OPENMP,
                &members,
            )?;
            // Each process's team as their places in that list.
            let mut first_place = 0u64;
            let teams: Vec<(u32, Vec<u64>)> = (self.processes.iter())
                .map(|process| {
                    let count = process.locations.len() as u64;
                    first_place += count;
                    (process.team, (first_place - count..first_place).collect())
                })
                .collect();
            // MPI's ranks, each as its first thread, in rank order: the
            // communicators' members are places in this list.
            let mut ranks: Vec<(u32, u64)> = (self.processes.iter())
                .filter_map(|p| Some((p.rank?, p.locations.first()?.id)))
                .collect();
            ranks.sort();
            if !mpi_comms.is_empty() {
                let rank_locations: Vec<u64> = ranks.iter().map(|(_, id)| *id).collect();
                groups.write(
                    mpi_locations,
                    library::GROUP_TYPE_COMM_LOCATIONS,
                    library::PARADIGM_MPI,
                    &rank_locations,
                )?;
            }
            let place_of = |rank: u32| {
                ranks
                    .binary_search_by_key(&rank, |(r, _)| *r)
                    .map_or(u64::from(rank), |at| at as u64)
            };
            // Communicators in the order of their references, which teams
            // and MPI's communicators took turns to be given: readers
            // take a definition out of that order for a damaged one.
            let mut comms: Vec<(u32, CommDefinition)> = (teams.iter().zip(&names))
                .map(|((team, places), (_, team_name, _))| {
                    (*team, CommDefinition::Team(*team_name, places))
                })
                .chain(
                    (mpi_comms.iter().zip(&comm_names))
                        .map(|(comm, &name)| (comm.reference, CommDefinition::Mpi(name, comm))),
                )
                .collect();
            comms.sort_by_key(|(reference, _)| *reference);
            for (reference, comm) in comms {
                let (name, group, parent) = match comm {
                    CommDefinition::Team(name, places) => {
                        let group = groups.write(
                            name,
                            library::GROUP_TYPE_COMM_GROUP,
                            library::PARADIGM_OPENMP,
                            places,
                        )?;
                        (name, group, undefined)
                    }
                    CommDefinition::Mpi(name, comm) => {
                        let (kind, members): (u8, Vec<u64>) = match &comm.members {
                            Members::World => (
                                library::GROUP_TYPE_COMM_GROUP,
                                (0..ranks.len() as u64).collect(),
                            ),
                            Members::Alone => (library::GROUP_TYPE_COMM_SELF, Vec::new()),
                            Members::Ranks(world) => (
                                library::GROUP_TYPE_COMM_GROUP,
                                world.iter().map(|&r| place_of(r)).collect(),
                            ),
                            Members::Unknown => (library::GROUP_TYPE_COMM_GROUP, Vec::new()),
                        };
                        let group = groups.write(name, kind, library::PARADIGM_MPI, &members)?;
                        (name, group, comm.parent.unwrap_or(undefined))
                    }
                };
                write(
                    "OTF2_GlobalDefWriter_WriteComm",
                    (otf2.write_comm)(global, reference, name, group, parent, 0),
                )?;
            }
        }
        Ok(())
    }
}

/// A communicator's definition: an OpenMP team (its name and its places
/// in the list of every thread) or an MPI communicator (its name).
enum CommDefinition<'a> {
    Team(u32, &'a [u64]),
    Mpi(u32, &'a MpiComm),
}

/// Group definitions, numbered as they are written.
struct Groups<'a> {
    otf2: &'static Otf2,
    global: *mut c_void,
    next: u32,
    check: &'a dyn Fn(&'static str, library::ErrorCode) -> Result<(), Error>,
}

impl Groups<'_> {
    /// Writes a group; returns its number.
    fn write(&mut self, name: u32, kind: u8, paradigm: u8, members: &[u64]) -> Result<u32, Error> {
        let group = self.next;
        self.next += 1;
        let code = unsafe {
            (self.otf2.write_group)(
                self.global,
                group,
                name,
                kind,
                paradigm,
                0,
                members.len() as u32,
                members.as_ptr(),
            )
        };
        (self.check)("OTF2_GlobalDefWriter_WriteGroup", code)?;
        Ok(group)
    }
}

impl Drop for Archive {
    /// An archive not finished (an error on the way) is closed and its
    /// files removed: nothing half written is left.
    fn drop(&mut self) {
        if !self.finished {
            self.batch = None;
            unsafe { (self.otf2.archive_close)(self.definitions) };
            let _ = std::fs::remove_dir_all(&self.temporary);
        }
    }
}

/// The number of string `text`, defined when first asked for.
fn string(strings: &mut Vec<CString>, index: &mut HashMap<String, u32>, text: &str) -> u32 {
    if let Some(&at) = index.get(text) {
        return at;
    }
    let at = strings.len() as u32;
    // Labels and paths hold no NUL; one that did would be cut there.
    let bytes: Vec<u8> = text.bytes().take_while(|&b| b != 0).collect();
    strings.push(CString::new(bytes).expect("no NUL left"));
    index.insert(text.to_string(), at);
    at
}

/// The definition of the region of spans of `kind` in `trace`'s region
/// `id`, named `label`.
fn define_region(
    strings: &mut Vec<CString>,
    index: &mut HashMap<String, u32>,
    trace: &Trace,
    id: RegionId,
    kind: Kind,
    label: &str,
) -> RegionDefinition {
    let region = trace.region(id);
    let (role, paradigm) = match kind {
        Kind::Mpi => (
            mpi_role(region.and_then(|r| r.name.as_deref())),
            library::PARADIGM_MPI,
        ),
        Kind::UserRegion => (role(kind), library::PARADIGM_USER),
        _ => (role(kind), library::PARADIGM_OPENMP),
    };
    RegionDefinition {
        name: string(strings, index, label),
        description: string(strings, index, kind.name()),
        role,
        paradigm,
        file: (region.and_then(|r| r.file.as_deref()))
            .map_or(library::UNDEFINED_U32, |f| string(strings, index, f)),
        begin: region.and_then(|r| r.first_line).unwrap_or(0),
        end: region
            .and_then(|r| r.end_last_line.or(r.last_line))
            .unwrap_or(0),
    }
}

/// OTF2's role of the region of MPI function `name`: how its data flows.
fn mpi_role(name: Option<&str>) -> u8 {
    use crate::export::mpi_flow::{self, Flow};
    use library::role::*;
    match name.map_or(Flow::None, mpi_flow::of) {
        Flow::PointToPoint => POINT2POINT,
        Flow::Barrier => BARRIER,
        Flow::OneToAll => COLL_ONE2ALL,
        Flow::AllToOne => COLL_ALL2ONE,
        Flow::AllToAll => COLL_ALL2ALL,
        Flow::None => FUNCTION,
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// Rank `rank`'s trace: `threads` threads, each a parallel region with
    /// a loop and a barrier in it, at times of its own.
    fn trace(rank: u32, threads: u32) -> Trace {
        let footer = serde_json::json!({
            "format": pomp2::trace::FORMAT, "producer": "test", "pid": 1000 + rank,
            "rank": rank.to_string(), "origin_ticks": 0, "ns_per_tick": 1.0, "wall_ns": 0,
            "events": 0, "dropped_events": 0, "trace_limit": 0, "buffer_bytes": 0,
            "threads": (0..threads).collect::<Vec<_>>(), "regions": [],
            "host": format!("node{}", rank / 2),
        });
        let span = |start: u64, duration: u64, kind: Kind| Span {
            start,
            duration,
            region: 0,
            kind,
            task: 0,
            forked: false,
        };
        let threads = (0..threads)
            .map(|thread| {
                let start = u64::from(rank * 7 + thread) * 100;
                let spans = vec![
                    Span {
                        forked: thread == 0,
                        ..span(start, 1000, Kind::Parallel)
                    },
                    span(start + 10, 500, Kind::For),
                    span(start + 600, 300, Kind::Barrier),
                ];
                (thread, spans)
            })
            .collect();
        Trace {
            footer: serde_json::from_value(footer).unwrap(),
            threads,
            mpi: Default::default(),
        }
    }

    /// Every file of the archive in `dir`, by its path there.
    fn files(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
        let mut files = std::collections::BTreeMap::new();
        let mut todo = vec![dir.to_path_buf()];
        while let Some(at) = todo.pop() {
            for entry in std::fs::read_dir(&at).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    todo.push(path);
                } else {
                    let bytes = std::fs::read(&path).unwrap();
                    files.insert(path.strip_prefix(dir).unwrap().to_path_buf(), bytes);
                }
            }
        }
        files
    }

    fn write(dir: &Path, traces: &[Trace], locations_per_batch: usize) -> Written {
        let mut archive = Archive::create(dir, None, traces.len()).unwrap();
        archive.locations_per_batch = locations_per_batch;
        for trace in traces {
            archive.add(trace).unwrap();
        }
        archive.finish().unwrap()
    }

    /// What `otf2-print ARGS` prints of the archive in `dir`, which it
    /// reads without a word on standard error.
    fn print(dir: &Path, args: &[&str]) -> String {
        let printed = Command::new("otf2-print")
            .args(args)
            .arg(dir.join("traces.otf2"))
            .output()
            .expect("otf2-print (otf2-tools) reads the archive");
        assert!(printed.status.success(), "{printed:?}");
        assert!(printed.stderr.is_empty(), "{printed:?}");
        String::from_utf8(printed.stdout).unwrap()
    }

    #[test]
    fn processes_written_in_batches_make_the_archive_one_handle_makes() {
        let traces: Vec<Trace> = (0..5).map(|rank| trace(rank, 1 + rank % 3)).collect();
        let dir = tempfile::tempdir().unwrap();
        let archive = |name: &str| dir.path().join(name);
        // A batch of each process, batches of up to 4 threads (ranks 1
        // and 2, of 2 and 3 threads, go to batches of their own), one
        // batch of all.
        let written = write(&archive("ones"), &traces, 1);
        write(&archive("fours"), &traces, 4);
        write(&archive("whole"), &traces, 1000);
        assert_eq!(written.locations, 1 + 2 + 3 + 1 + 2);
        // An enter and a leave of 3 spans per thread, and a fork and a
        // join on each process's first thread.
        assert_eq!(written.events, 9 * 3 * 2 + 5 * 2);

        // The same files, byte for byte, but for the anchor's trace id,
        // which is drawn at random.
        let whole = files(&archive("whole"));
        assert_eq!(whole.len(), 2 + 2 * written.locations, "{:?}", whole.keys());
        let anchor = Path::new("traces.otf2");
        for name in ["ones", "fours"] {
            let mut batched = files(&archive(name));
            assert!(batched.remove(anchor).is_some());
            let differ: Vec<&PathBuf> = (batched.iter())
                .filter(|(path, bytes)| whole.get(*path) != Some(bytes))
                .map(|(path, _)| path)
                .collect();
            assert!(differ.is_empty(), "{name}: {differ:?}");
            assert_eq!(batched.len() + 1, whole.len());
            let info = |name: &str| {
                (print(&archive(name), &["-I"]).lines())
                    .filter(|line| !line.starts_with("Trace identifier"))
                    .map(|line| line.replace(name, "NAME"))
                    .collect::<Vec<_>>()
            };
            assert_eq!(info(name), info("whole"));
        }

        let printed = print(&archive("ones"), &[]);
        let count = |event: &str| printed.lines().filter(|l| l.starts_with(event)).count();
        assert_eq!(count("ENTER "), 9 * 3);
        assert_eq!(count("LEAVE "), 9 * 3);
        assert_eq!(count("THREAD_FORK "), 5);
    }
}

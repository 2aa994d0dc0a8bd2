//! The profile pomp's runtime writes at exit, one per process of a run
//! (`profile.<rank>.json` in the run's experiment, see
//! [`crate::experiment`]; or where `POMP_PROFILE` says): the document's
//! types, and [`read`] for the tools that load it.
//!
//! Times are nanoseconds. Region ids are the runtime's (1, 2, ... in the
//! order handles were assigned); each region entry carries the IDF id
//! (`idf_id`) that joins it with the instrumenter's descriptor.

use crate::identity::ProfileHeader;
pub use crate::identity::{PROFILE_FORMAT as FORMAT, PROFILE_READS as READS};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The version of the document this crate writes. Changes that older
/// readers would misread raise it. Version 3 added the experiment, the
/// host, MPI ([`Kind::Mpi`] nodes with their bytes, [`Mpi`],
/// [`Thread::mpi`]) and the clock's offsets ([`Profile::clock`]).
pub const VERSION: u32 = 3;

/// Region id of events without a region of their own (lock calls) and of
/// the implicit task.
pub type RegionId = u32;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`] when written by this crate.
    pub version: u32,
    pub pid: u32,
    /// The process's rank: in `MPI_COMM_WORLD`, or from the launcher's
    /// environment; none for a process alone.
    pub rank: Option<String>,
    /// The run's experiment ([`crate::experiment::Manifest::run`]): every
    /// process of one run names the same; none where `POMP_PROFILE` chose
    /// the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experiment: Option<String>,
    /// How many ranks the run had, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranks: Option<u32>,
    /// The host the process ran on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// What the link-time registration reports (`POMP2_Get_opari2_version`).
    pub opari2_version: Option<String>,
    /// `POMP2_Get_num_regions`: regions the registration declared.
    pub declared_regions: u64,
    /// Regions no registration declared, met first by an event that
    /// carried their CTC string: the program was linked with a
    /// registration older than its objects.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unregistered_regions: Vec<RegionId>,
    /// Events lost because their region was never registered and the call
    /// carried no CTC string to assign it by.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unregistered_events_lost: u64,
    pub wall_ns: u64,
    pub thread_count: u64,
    /// Threads that were still recording an event when the program ended;
    /// their data is left out.
    pub incomplete_threads: Vec<u32>,
    pub throttling: Throttling,
    pub regions: Vec<Region>,
    /// Summed over threads.
    pub breakdown: Breakdown,
    /// Per region and kind, over threads; largest inclusive time first.
    pub region_summary: Vec<RegionSummary>,
    pub tasks: Tasks,
    pub threads: Vec<Thread>,
    /// The trace written beside the profile, when one was asked for.
    pub trace: Option<TraceSummary>,
    /// MPI, when the POMP MPI library measured it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpi: Option<Mpi>,
    /// Where the process's times are on the run's common time line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<crate::clock::ClockSync>,
}

/// MPI as the process initialised and used it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mpi {
    /// `MPI_Get_library_version`, its first line.
    pub library: String,
    /// What `MPI_Init_thread` asked for; `None` after `MPI_Init`.
    pub thread_level_requested: Option<crate::mpi::ThreadLevel>,
    pub thread_level_provided: crate::mpi::ThreadLevel,
    /// Summed over threads.
    pub totals: MpiTotals,
}

/// Time in MPI calls by [`crate::mpi::Class`], and what they moved.
/// Calls inside a region that stopped being timed (throttling) are
/// counted and move bytes, but their time stays in that region.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MpiTotals {
    pub point_to_point_ns: u64,
    pub collective_ns: u64,
    pub other_ns: u64,
    /// Point-to-point messages: sends started, receives completed.
    pub messages_sent: u64,
    pub bytes_sent: u64,
    pub messages_received: u64,
    pub bytes_received: u64,
    /// Collective operations, and the bytes this process gave to and took
    /// from the other ranks in them.
    pub collectives: u64,
    pub collective_bytes_sent: u64,
    pub collective_bytes_received: u64,
}

impl MpiTotals {
    pub fn add(&mut self, other: &MpiTotals) {
        for (sum, value) in self.fields_mut().into_iter().zip(other.fields()) {
            *sum += value;
        }
    }

    /// Time in MPI calls.
    pub fn time_ns(&self) -> u64 {
        self.point_to_point_ns + self.collective_ns + self.other_ns
    }

    /// The time of one class.
    pub fn time_of(&self, class: crate::mpi::Class) -> u64 {
        match class {
            crate::mpi::Class::PointToPoint => self.point_to_point_ns,
            crate::mpi::Class::Collective => self.collective_ns,
            crate::mpi::Class::Other => self.other_ns,
        }
    }

    pub fn fields(&self) -> [u64; 10] {
        [
            self.point_to_point_ns,
            self.collective_ns,
            self.other_ns,
            self.messages_sent,
            self.bytes_sent,
            self.messages_received,
            self.bytes_received,
            self.collectives,
            self.collective_bytes_sent,
            self.collective_bytes_received,
        ]
    }

    pub fn fields_mut(&mut self) -> [&mut u64; 10] {
        [
            &mut self.point_to_point_ns,
            &mut self.collective_ns,
            &mut self.other_ns,
            &mut self.messages_sent,
            &mut self.bytes_sent,
            &mut self.messages_received,
            &mut self.bytes_received,
            &mut self.collectives,
            &mut self.collective_bytes_sent,
            &mut self.collective_bytes_received,
        ]
    }
}

/// The throttling rule the run used: a call-path node whose visits on a
/// thread reach `numcalls` with a mean inclusive time under `percall_ns`
/// stops being timed on that thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Throttling {
    pub enabled: bool,
    pub numcalls: u64,
    pub percall_ns: u64,
}

/// One region handle, from its CTC string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Region {
    pub id: RegionId,
    /// The CTC `regionType` (`parallel`, `for`, `parallelfor`, `critical`,
    /// `region` for user regions, ...); `unknown` when the CTC had none.
    #[serde(rename = "type")]
    pub region_type: String,
    pub file: Option<String>,
    pub first_line: Option<u32>,
    pub last_line: Option<u32>,
    pub end_first_line: Option<u32>,
    pub end_last_line: Option<u32>,
    /// A critical section's or user region's name.
    pub name: Option<String>,
    /// The enclosing function or program unit (`pompUnit`).
    pub unit: Option<String>,
    /// What a region of code measures (`pompKind`): a function, the
    /// program, a loop, a call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_kind: Option<crate::idf::CodeKind>,
    /// How people name the region: `parallel for in CalcKinematicsForElems
    /// (lulesh.cc:782)` ([`Region::region_name`]'s label).
    pub label: String,
    /// pomp's `pompId`, the region's id in the IDF descriptor.
    pub idf_id: Option<String>,
    pub implicit_barrier: ImplicitBarrier,
    /// The CTC's remaining `key=value` pairs (`numSections`, `hasIf`, ...).
    pub attributes: BTreeMap<String, String>,
    /// The CTC string was truncated or garbled; the fields above hold what
    /// could be read.
    pub malformed_ctc: bool,
}

/// How a parallel region's closing barrier was measured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImplicitBarrier {
    /// Between `Implicit_barrier_enter` and `_exit` (or the construct has no
    /// closing barrier).
    #[default]
    Explicit,
    /// From the team's `Parallel_end` times and the join.
    Inferred,
}

impl From<crate::ctc::ImplicitBarrier> for ImplicitBarrier {
    fn from(form: crate::ctc::ImplicitBarrier) -> Self {
        match form {
            crate::ctc::ImplicitBarrier::Explicit => ImplicitBarrier::Explicit,
            crate::ctc::ImplicitBarrier::Inferred => ImplicitBarrier::Inferred,
        }
    }
}

/// What a call-tree node measures. One region handle serves several events
/// (a combined `parallel for` uses the same handle for the fork, the loop
/// and its implicit barrier), so a node is keyed by region *and* kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum Kind {
    /// The per-thread root of the call tree.
    Thread,
    Parallel,
    For,
    Do,
    Sections,
    Section,
    Single,
    /// Inside a single construct: the thread that executes it.
    SingleBody,
    Master,
    Masked,
    Critical,
    Atomic,
    Ordered,
    Workshare,
    Barrier,
    ImplicitBarrier,
    Flush,
    TaskCreate,
    Task,
    UntiedTaskCreate,
    UntiedTask,
    Taskwait,
    #[serde(rename = "region")]
    UserRegion,
    Taskgroup,
    Taskloop,
    Scope,
    Loop,
    Teams,
    Distribute,
    Target,
    Taskyield,
    Cancel,
    CancellationPoint,
    SetLock,
    SetNestLock,
    TestLock,
    TestNestLock,
    /// A call of an MPI function, measured through PMPI: its region is the
    /// function's ([`crate::mpi::region`]).
    Mpi,
}

impl Kind {
    /// Every kind, in the order of their [`Kind::code`]s.
    pub const ALL: [Kind; 38] = [
        Kind::Thread,
        Kind::Parallel,
        Kind::For,
        Kind::Do,
        Kind::Sections,
        Kind::Section,
        Kind::Single,
        Kind::SingleBody,
        Kind::Master,
        Kind::Masked,
        Kind::Critical,
        Kind::Atomic,
        Kind::Ordered,
        Kind::Workshare,
        Kind::Barrier,
        Kind::ImplicitBarrier,
        Kind::Flush,
        Kind::TaskCreate,
        Kind::Task,
        Kind::UntiedTaskCreate,
        Kind::UntiedTask,
        Kind::Taskwait,
        Kind::UserRegion,
        Kind::Taskgroup,
        Kind::Taskloop,
        Kind::Scope,
        Kind::Loop,
        Kind::Teams,
        Kind::Distribute,
        Kind::Target,
        Kind::Taskyield,
        Kind::Cancel,
        Kind::CancellationPoint,
        Kind::SetLock,
        Kind::SetNestLock,
        Kind::TestLock,
        Kind::TestNestLock,
        Kind::Mpi,
    ];

    /// The kind's number in binary formats (the trace).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The kind numbered `code`.
    pub fn from_code(code: u8) -> Option<Kind> {
        Kind::ALL.get(code as usize).copied()
    }

    /// The name the profile and the trace use.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Thread => "thread",
            Kind::Parallel => "parallel",
            Kind::For => "for",
            Kind::Do => "do",
            Kind::Sections => "sections",
            Kind::Section => "section",
            Kind::Single => "single",
            Kind::SingleBody => "single_body",
            Kind::Master => "master",
            Kind::Masked => "masked",
            Kind::Critical => "critical",
            Kind::Atomic => "atomic",
            Kind::Ordered => "ordered",
            Kind::Workshare => "workshare",
            Kind::Barrier => "barrier",
            Kind::ImplicitBarrier => "implicit_barrier",
            Kind::Flush => "flush",
            Kind::TaskCreate => "task_create",
            Kind::Task => "task",
            Kind::UntiedTaskCreate => "untied_task_create",
            Kind::UntiedTask => "untied_task",
            Kind::Taskwait => "taskwait",
            Kind::UserRegion => "region",
            Kind::Taskgroup => "taskgroup",
            Kind::Taskloop => "taskloop",
            Kind::Scope => "scope",
            Kind::Loop => "loop",
            Kind::Teams => "teams",
            Kind::Distribute => "distribute",
            Kind::Target => "target",
            Kind::Taskyield => "taskyield",
            Kind::Cancel => "cancel",
            Kind::CancellationPoint => "cancellation_point",
            Kind::SetLock => "set_lock",
            Kind::SetNestLock => "set_nest_lock",
            Kind::TestLock => "test_lock",
            Kind::TestNestLock => "test_nest_lock",
            Kind::Mpi => "mpi",
        }
    }

    /// Task instances are measured in their own subtree, apart from whatever
    /// region the executing thread was suspended in.
    #[inline]
    pub fn is_task(self) -> bool {
        matches!(self, Kind::Task | Kind::UntiedTask)
    }

    /// Whether this kind is what a region of `region_type` is named after,
    /// rather than one part of it (a `parallelfor` region's fork is its
    /// `parallel` kind; its loop and barrier are parts).
    pub fn names_region(self, region_type: &str) -> bool {
        let kind_words = self.name().replace('_', " ");
        let region_words = crate::ctc::construct_words(region_type);
        region_words == kind_words
            || region_words
                .strip_prefix(&kind_words)
                .is_some_and(|rest| rest.starts_with(' '))
    }
}

impl Region {
    /// The region's name in parts, as every output shows it.
    pub fn region_name(&self) -> crate::ctc::RegionName<'_> {
        crate::ctc::RegionName {
            region_type: &self.region_type,
            code_kind: self.code_kind,
            name: self.name.as_deref(),
            unit: self.unit.as_deref(),
            place: (self.file.as_deref()).zip(self.first_line.map(|line| line as usize)),
        }
    }
}

/// A node's label: the region's own where the kind is what the region is
/// named after, else the kind within it (`implicit barrier of parallel for
/// in main (a.c:12)`). Events without a region are named by their kind.
pub fn kind_label(kind: Kind, region: Option<&Region>) -> String {
    let kind_words = kind.name().replace('_', " ");
    match region {
        None => kind_words,
        Some(region) if kind.names_region(&region.region_type) => region.region_name().label(),
        Some(region) => region.region_name().part_label(&kind_words),
    }
}

/// What a node is, without where (a table's first column, beside the
/// function and the place): `parallel for`, `implicit barrier of
/// parallel for`, `function solve`.
pub fn kind_what(kind: Kind, region: Option<&Region>) -> String {
    let kind_words = kind.name().replace('_', " ");
    match region {
        None => kind_words,
        Some(region) if kind.names_region(&region.region_type) => region.region_name().what(),
        Some(region) => format!("{kind_words} of {}", region.region_name().what()),
    }
}

/// Time by what threads were doing, in nanoseconds.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Breakdown {
    pub implicit_barrier_ns: u64,
    pub barrier_ns: u64,
    pub taskwait_ns: u64,
    pub critical_wait_ns: u64,
    pub ordered_wait_ns: u64,
    pub lock_wait_ns: u64,
    pub fork_ns: u64,
    pub join_ns: u64,
    pub task_create_ns: u64,
    pub task_execution_ns: u64,
}

impl Breakdown {
    pub fn add(&mut self, other: &Breakdown) {
        for (sum, value) in self.fields_mut().into_iter().zip(other.fields()) {
            *sum += value;
        }
    }

    /// Time threads spent waiting for each other rather than working.
    pub fn waiting_ns(&self) -> u64 {
        self.implicit_barrier_ns
            + self.barrier_ns
            + self.taskwait_ns
            + self.critical_wait_ns
            + self.ordered_wait_ns
            + self.lock_wait_ns
    }

    pub fn fields(&self) -> [u64; 10] {
        [
            self.implicit_barrier_ns,
            self.barrier_ns,
            self.taskwait_ns,
            self.critical_wait_ns,
            self.ordered_wait_ns,
            self.lock_wait_ns,
            self.fork_ns,
            self.join_ns,
            self.task_create_ns,
            self.task_execution_ns,
        ]
    }

    pub fn fields_mut(&mut self) -> [&mut u64; 10] {
        [
            &mut self.implicit_barrier_ns,
            &mut self.barrier_ns,
            &mut self.taskwait_ns,
            &mut self.critical_wait_ns,
            &mut self.ordered_wait_ns,
            &mut self.lock_wait_ns,
            &mut self.fork_ns,
            &mut self.join_ns,
            &mut self.task_create_ns,
            &mut self.task_execution_ns,
        ]
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegionSummary {
    /// `None` for events without a region (lock calls).
    pub region: Option<RegionId>,
    pub kind: Kind,
    pub visits: u64,
    pub inclusive_ns: u64,
    pub exclusive_ns: u64,
    /// Threads that recorded this region and kind.
    pub threads: u64,
    pub min_thread_inclusive_ns: u64,
    pub max_thread_inclusive_ns: u64,
    pub mean_thread_inclusive_ns: u64,
    /// Threads on which some node of this region and kind was throttled.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub throttled_threads: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tasks {
    pub created: u64,
    pub executed: u64,
    pub per_region: Vec<TaskRegion>,
    /// Which task region created instances of which; a `None` parent is an
    /// implicit task.
    pub relations: Vec<TaskRelation>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskRegion {
    pub region: RegionId,
    pub created: u64,
    pub executed: u64,
    pub inclusive_ns: u64,
    pub exclusive_ns: u64,
    pub mean_ns: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskRelation {
    pub parent_region: Option<RegionId>,
    pub child_region: RegionId,
    pub count: u64,
}

/// How deep a thread's call-path tree nests below its root; what the
/// program opened deeper is counted in folded nodes ([`Node::folded`]).
/// Deep recursion through measured functions would otherwise make the
/// profile nest beyond what JSON readers accept (serde_json, for one, stops
/// at 128 levels, two per tree level).
pub const MAX_TREE_DEPTH: usize = 48;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Thread {
    /// The thread's number in this profile (and the trace's `tid`).
    pub thread: u32,
    pub os_tid: i64,
    pub events: u64,
    /// End events whose begin was not on this thread's stack.
    pub unmatched_ends: u64,
    /// Visits of folded nodes: frames nested below the tree's depth limit,
    /// counted there and measured in the node at the limit.
    pub frames_beyond_depth_limit: u64,
    /// Parallel regions with an inferred barrier whose waiting could not be
    /// inferred on this thread (the team's times were lost to a concurrent
    /// instance of the same region, or the program ended inside it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub barriers_not_inferred: u64,
    pub totals: ThreadTotals,
    pub breakdown: Breakdown,
    /// The thread's MPI calls, when it made any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpi: Option<MpiTotals>,
    pub tree: Node,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadTotals {
    /// Time covered by the thread's top-level nodes.
    pub measured_ns: u64,
    pub waiting_ns: u64,
    pub work_ns: u64,
}

/// A call-path node: a region (and kind) reached along one path on one
/// thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    /// `None` for the thread's root and events without a region.
    pub region: Option<RegionId>,
    pub kind: Kind,
    /// Exact, also after throttling.
    pub visits: u64,
    pub inclusive_ns: u64,
    pub exclusive_ns: u64,
    /// Waiting inside the node: enter→begin of critical and ordered, the
    /// blocking part of a lock acquisition.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub wait_ns: u64,
    /// Set when the node stopped being timed on this thread; its times (and
    /// those of the nodes below it) are then what was measured until
    /// then, and the time of later visits stays in the parent node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttled: Option<Throttled>,
    /// Of a parallel region on the thread that forked it: the time from
    /// the fork until the team began, and from the release (or the
    /// thread's arrival at the closing barrier) until the join. Both are
    /// in `inclusive_ns`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fork_ns: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub join_ns: u64,
    /// Below a node at the tree's depth limit ([`MAX_TREE_DEPTH`]): every visit of
    /// this region and kind opened anywhere below that node, counted and
    /// not timed; their time is in the parent's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub folded: bool,
    /// Of an MPI call: the bytes its messages and collectives sent to and
    /// received from other ranks (a receive's bytes count where it
    /// completes: in `MPI_Recv`, or in the wait or test of `MPI_Irecv`'s
    /// request).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub bytes_sent: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub bytes_received: u64,
    pub children: Vec<Node>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Throttled {
    /// The visit after which timing stopped.
    pub at_visit: u64,
    /// Inclusive time measured over those visits.
    pub measured_ns: u64,
    /// Of a task instance: the time of its visits since throttling that
    /// began while the thread waited (directly inside a timed barrier,
    /// taskwait or task creation, or at the end of a parallel region),
    /// each timed alone (nothing inside it), so that the waiting leaves
    /// the task's time out; `inclusive_ns` includes it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub timed_alone_ns: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceSummary {
    pub path: String,
    pub written: bool,
    pub events: u64,
    pub dropped_events: u64,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// The profile's region of MPI function `name`: its type is
/// [`crate::mpi::REGION_TYPE`], its name and label the function's, and it has no
/// place in the program's sources (every call of the function, wherever
/// it is, is this region; the call path tells the callers apart).
pub fn mpi_region(id: RegionId, name: &str) -> Region {
    Region {
        id,
        region_type: crate::mpi::REGION_TYPE.to_string(),
        file: None,
        first_line: None,
        last_line: None,
        end_first_line: None,
        end_last_line: None,
        name: Some(name.to_string()),
        unit: None,
        code_kind: None,
        label: name.to_string(),
        idf_id: None,
        implicit_barrier: ImplicitBarrier::Explicit,
        attributes: Default::default(),
        malformed_ctc: false,
    }
}

/// Why a file could not be read as a profile.
pub type Error = crate::document::Error;

impl crate::document::Document for Profile {
    const NAME: &'static str = "pomp profile";
    type Header = ProfileHeader;

    fn identify(header: &ProfileHeader) -> crate::document::Identity {
        header.identify()
    }
}

/// Reads a profile written by pomp's runtime.
pub fn read(path: impl AsRef<Path>) -> Result<Profile, Error> {
    crate::document::read(path)
}

/// Reads a profile from its bytes; `path` names it in errors.
pub fn from_slice(bytes: &[u8], path: &Path) -> Result<Profile, Error> {
    crate::document::from_slice(bytes, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_the_code_of_its_place() {
        for (code, kind) in Kind::ALL.iter().enumerate() {
            assert_eq!(kind.code() as usize, code);
            assert_eq!(Kind::from_code(code as u8), Some(*kind));
        }
        assert_eq!(Kind::from_code(Kind::ALL.len() as u8), None);
    }

    fn leaf(region: RegionId, kind: Kind, visits: u64, ns: u64) -> Node {
        Node {
            region: Some(region),
            kind,
            visits,
            inclusive_ns: ns,
            exclusive_ns: ns,
            wait_ns: 0,
            throttled: None,
            fork_ns: 0,
            join_ns: 0,
            folded: false,
            bytes_sent: 0,
            bytes_received: 0,
            children: Vec::new(),
        }
    }

    fn region(id: RegionId, region_type: &str, label: &str) -> Region {
        Region {
            id,
            region_type: region_type.into(),
            file: Some("a.c".into()),
            first_line: Some(12),
            last_line: Some(12),
            end_first_line: Some(20),
            end_last_line: Some(20),
            name: None,
            unit: Some("main".into()),
            code_kind: None,
            label: label.into(),
            idf_id: Some("a1b2.1".into()),
            implicit_barrier: ImplicitBarrier::Inferred,
            attributes: BTreeMap::from([("hasIf".into(), "1".into())]),
            malformed_ctc: false,
        }
    }

    fn sample() -> Profile {
        let mut task = leaf(2, Kind::Task, 300_000, 9_000_000);
        task.throttled = Some(Throttled {
            at_visit: 100_000,
            measured_ns: 9_000_000,
            timed_alone_ns: 12_000_000,
        });
        let mut parallel = leaf(1, Kind::Parallel, 1, 50_000_000);
        parallel.fork_ns = 20_000;
        parallel.join_ns = 5_000;
        parallel.children = vec![leaf(1, Kind::ImplicitBarrier, 1, 1_000_000)];
        parallel.exclusive_ns = 49_000_000;
        Profile {
            format: FORMAT.into(),
            version: VERSION,
            pid: 42,
            rank: None,
            experiment: None,
            ranks: None,
            host: None,
            opari2_version: Some("pomp".into()),
            declared_regions: 2,
            unregistered_regions: vec![],
            unregistered_events_lost: 0,
            wall_ns: 60_000_000,
            thread_count: 1,
            incomplete_threads: vec![],
            throttling: Throttling {
                enabled: true,
                numcalls: 100_000,
                percall_ns: 10_000,
            },
            regions: vec![
                region(1, "parallel", "parallel in main (a.c:12)"),
                region(2, "task", "task in main (a.c:14)"),
            ],
            breakdown: Breakdown {
                implicit_barrier_ns: 1_000_000,
                ..Breakdown::default()
            },
            region_summary: vec![RegionSummary {
                region: Some(1),
                kind: Kind::Parallel,
                visits: 1,
                inclusive_ns: 50_000_000,
                exclusive_ns: 49_000_000,
                threads: 1,
                min_thread_inclusive_ns: 50_000_000,
                max_thread_inclusive_ns: 50_000_000,
                mean_thread_inclusive_ns: 50_000_000,
                throttled_threads: 0,
            }],
            tasks: Tasks {
                created: 300_000,
                executed: 300_000,
                per_region: vec![],
                relations: vec![TaskRelation {
                    parent_region: None,
                    child_region: 2,
                    count: 300_000,
                }],
            },
            threads: vec![Thread {
                thread: 0,
                os_tid: 4242,
                events: 1_200_004,
                unmatched_ends: 0,
                frames_beyond_depth_limit: 0,
                barriers_not_inferred: 0,
                totals: ThreadTotals {
                    measured_ns: 59_000_000,
                    waiting_ns: 1_000_000,
                    work_ns: 58_000_000,
                },
                breakdown: Breakdown::default(),
                mpi: None,
                tree: Node {
                    region: None,
                    kind: Kind::Thread,
                    visits: 0,
                    inclusive_ns: 59_000_000,
                    exclusive_ns: 0,
                    wait_ns: 0,
                    throttled: None,
                    fork_ns: 0,
                    join_ns: 0,
                    folded: false,
                    bytes_sent: 0,
                    bytes_received: 0,
                    children: vec![parallel, task],
                },
            }],
            trace: None,
            mpi: None,
            clock: None,
        }
    }

    fn read_text(text: &str) -> Result<Profile, Error> {
        from_slice(text.as_bytes(), Path::new("p.json"))
    }

    #[test]
    fn a_written_profile_reads_back() {
        let profile = sample();
        let text = serde_json::to_string(&profile).unwrap();
        assert_eq!(read_text(&text).unwrap(), profile);
        // Unremarkable nodes stay small.
        assert!(!text.contains("\"wait_ns\""));
        assert_eq!(text.matches("\"throttled\":{").count(), 1);
        assert!(text.contains("\"kind\":\"implicit_barrier\""));
        assert!(text.contains("\"implicit_barrier\":\"inferred\""));
        assert!(!text.contains("bytes_sent") && !text.contains("\"mpi\""));
    }

    #[test]
    fn an_mpi_rank_reads_back() {
        let mut profile = sample();
        profile.experiment = Some("pomp-20250314_093015_524222465".into());
        profile.rank = Some("3".into());
        profile.ranks = Some(4);
        profile.host = Some("node7".into());
        profile.regions.push(mpi_region(3, "MPI_Send"));
        let mut send = leaf(3, Kind::Mpi, 10, 5_000);
        send.bytes_sent = 80_000;
        profile.threads[0].tree.children.push(send);
        let totals = MpiTotals {
            point_to_point_ns: 5_000,
            messages_sent: 10,
            bytes_sent: 80_000,
            ..MpiTotals::default()
        };
        profile.threads[0].mpi = Some(totals);
        profile.mpi = Some(Mpi {
            library: "Open MPI v4.1.4".into(),
            thread_level_requested: Some(crate::mpi::ThreadLevel::Multiple),
            thread_level_provided: crate::mpi::ThreadLevel::Multiple,
            totals,
        });
        profile.clock = Some(crate::clock::ClockSync {
            origin_monotonic_ns: 123,
            offsets: vec![],
        });
        let text = serde_json::to_string(&profile).unwrap();
        assert_eq!(read_text(&text).unwrap(), profile);
        assert!(text.contains("\"kind\":\"mpi\""), "{text}");
        assert!(text.contains("\"bytes_sent\":80000"), "{text}");
        assert!(
            text.contains("\"thread_level_provided\":\"multiple\""),
            "{text}"
        );
        assert_eq!(kind_label(Kind::Mpi, profile.regions.last()), "MPI_Send");
        assert_eq!(totals.time_ns(), 5_000);
        assert_eq!(totals.time_of(crate::mpi::Class::Collective), 0);
    }

    #[test]
    fn reading_from_a_file() {
        let dir = std::env::temp_dir().join(format!("pomp2-profile-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.json");
        std::fs::write(&path, serde_json::to_vec(&sample()).unwrap()).unwrap();
        assert_eq!(read(&path).unwrap(), sample());
        let missing = read(dir.join("missing.json")).unwrap_err();
        assert!(matches!(missing, Error::Unreadable { .. }), "{missing}");
        assert!(missing.to_string().contains("missing.json"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn damaged_and_foreign_files_say_what_they_are() {
        let text = serde_json::to_string(&sample()).unwrap();
        let truncated = read_text(&text[..text.len() / 2]).unwrap_err();
        assert!(matches!(truncated, Error::Truncated { .. }), "{truncated}");
        assert!(truncated.to_string().contains("truncated"));

        assert!(matches!(read_text(" \n").unwrap_err(), Error::Empty { .. }));
        assert!(matches!(
            read_text("pomp!").unwrap_err(),
            Error::NotJson { .. }
        ));
        let trace = r#"{"displayTimeUnit":"ns","traceEvents":[]}"#;
        let foreign = read_text(trace).unwrap_err();
        assert!(
            matches!(foreign, Error::Foreign { found: None, .. }),
            "{foreign}"
        );
        let other = read_text(r#"{"format":"speedscope"}"#).unwrap_err();
        assert!(other.to_string().contains("\"speedscope\""), "{other}");
        assert!(matches!(
            read_text("[1,2]").unwrap_err(),
            Error::Foreign { .. }
        ));

        let newer = text.replacen("\"version\":3", "\"version\":4", 1);
        let error = read_text(&newer).unwrap_err();
        assert!(matches!(error, Error::UnsupportedVersion { .. }), "{error}");
        assert!(
            error
                .to_string()
                .contains("version 4; this build reads version 2 and 3"),
            "{error}"
        );
        let older = text.replacen("\"version\":3", "\"version\":2", 1);
        assert_eq!(read_text(&older).unwrap().version, 2);

        let damaged = text.replacen("\"visits\":1,", "\"visits\":\"one\",", 1);
        let error = read_text(&damaged).unwrap_err();
        assert!(matches!(error, Error::Invalid { .. }), "{error}");
    }

    #[test]
    fn kinds_keep_the_names_the_profile_always_used() {
        for kind in [
            Kind::Thread,
            Kind::ImplicitBarrier,
            Kind::UserRegion,
            Kind::SingleBody,
            Kind::CancellationPoint,
            Kind::UntiedTaskCreate,
            Kind::TestNestLock,
        ] {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.name()));
            assert_eq!(serde_json::from_str::<Kind>(&json).unwrap(), kind);
        }
    }

    #[test]
    fn node_labels_say_which_part_of_a_region() {
        let parallel_for = region(1, "parallelfor", "parallel for in main (a.c:12)");
        assert_eq!(
            kind_label(Kind::Parallel, Some(&parallel_for)),
            "parallel for in main (a.c:12)"
        );
        assert_eq!(
            kind_label(Kind::ImplicitBarrier, Some(&parallel_for)),
            "implicit barrier of parallel for in main (a.c:12)"
        );
        assert_eq!(
            kind_label(Kind::For, Some(&parallel_for)),
            "for of parallel for in main (a.c:12)"
        );
        let task = region(2, "task", "task in main (a.c:12)");
        assert_eq!(kind_label(Kind::Task, Some(&task)), "task in main (a.c:12)");
        assert_eq!(
            kind_label(Kind::TaskCreate, Some(&task)),
            "task create of task in main (a.c:12)"
        );
        let sections = region(3, "sections", "sections in main (a.c:12)");
        assert_eq!(
            kind_label(Kind::Section, Some(&sections)),
            "section of sections in main (a.c:12)"
        );
        let mut user = region(4, "region", "region (solver) in main (a.c:12)");
        user.name = Some("solver".into());
        assert_eq!(kind_label(Kind::UserRegion, Some(&user)), user.label);
        assert_eq!(kind_what(Kind::UserRegion, Some(&user)), "region (solver)");
        // Regions of code: a function is in itself, a call in its caller.
        let mut function = region(5, "region", "");
        function.name = Some("hydro::advance".into());
        function.unit = None;
        function.code_kind = Some(crate::idf::CodeKind::Function);
        assert_eq!(
            kind_label(Kind::UserRegion, Some(&function)),
            "function hydro::advance (a.c:12)"
        );
        assert_eq!(function.region_name().function(), Some("hydro::advance"));
        let mut call = region(6, "region", "");
        call.name = Some("MPI_Send".into());
        call.unit = Some("exchange".into());
        call.code_kind = Some(crate::idf::CodeKind::Call);
        assert_eq!(
            kind_label(Kind::UserRegion, Some(&call)),
            "call MPI_Send in exchange (a.c:12)"
        );
        assert_eq!(kind_what(Kind::UserRegion, Some(&call)), "call MPI_Send");
        assert_eq!(kind_label(Kind::SetLock, None), "set lock");
    }

    #[test]
    fn breakdowns_add_field_by_field() {
        let mut sum = Breakdown {
            barrier_ns: 1,
            lock_wait_ns: 2,
            ..Breakdown::default()
        };
        sum.add(&Breakdown {
            barrier_ns: 10,
            fork_ns: 5,
            ..Breakdown::default()
        });
        assert_eq!((sum.barrier_ns, sum.lock_wait_ns, sum.fork_ns), (11, 2, 5));
        assert_eq!(sum.waiting_ns(), 13);
    }
}

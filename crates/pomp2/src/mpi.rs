//! MPI as pomp measures it: through MPI's profiling interface (PMPI), by
//! the POMP MPI library that the wrappers link into a program that links
//! MPI. That library defines the MPI functions of [`FUNCTIONS`] (C, and
//! the Fortran bindings of `mpif.h`, `use mpi` and `use mpi_f08`), calls
//! the MPI library's own `PMPI_` entry points, and tells pomp's runtime
//! what happened through the runtime's [`ENTRY_POINTS`], all named
//! `pomp_mpi_*` ([`ENTRY_PREFIX`]): the POMP2 interface itself stays as it
//! is.
//!
//! What the runtime makes of it:
//! - each call is a region of the call-path profile, of kind
//!   [`crate::profile::Kind::Mpi`], named by its MPI function
//!   ([`region`]); its time counts as point-to-point, collective or other
//!   ([`Class`]) in [`crate::profile::MpiTotals`], and the bytes it moved
//!   are counted in its node;
//! - the trace holds every message and every collective
//!   ([`crate::trace::MpiRecord`]), with communicators named by
//!   [`CommId`] and defined in the trace's footer ([`Communicator`]).

use serde::{Deserialize, Serialize};

/// The prefix of every function of the runtime that the POMP MPI library
/// calls; the runtime exports these besides the POMP2 interface.
pub const ENTRY_PREFIX: &str = "pomp_mpi_";

/// The region type of an MPI function's region in profiles and traces.
pub const REGION_TYPE: &str = "mpi";

/// What an MPI function's time counts as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// Sends, receives, and the waits, tests and probes of their requests.
    PointToPoint,
    /// Barriers, broadcasts, reductions, gathers, scatters, all-to-alls and
    /// scans, blocking or not.
    Collective,
    /// Initialisation, finalisation, communicators and groups.
    Other,
}

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::PointToPoint => "point-to-point",
            Class::Collective => "collective",
            Class::Other => "other",
        }
    }
}

/// An MPI function the POMP MPI library measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Function {
    /// Its C name, which names its region: `MPI_Send`.
    pub name: &'static str,
    pub class: Class,
}

const fn f(name: &'static str, class: Class) -> Function {
    Function { name, class }
}

use Class::*;

/// Every MPI function the POMP MPI library intercepts.
pub const FUNCTIONS: &[Function] = &[
    f("MPI_Init", Other),
    f("MPI_Init_thread", Other),
    f("MPI_Finalize", Other),
    f("MPI_Send", PointToPoint),
    f("MPI_Bsend", PointToPoint),
    f("MPI_Ssend", PointToPoint),
    f("MPI_Rsend", PointToPoint),
    f("MPI_Recv", PointToPoint),
    f("MPI_Sendrecv", PointToPoint),
    f("MPI_Sendrecv_replace", PointToPoint),
    f("MPI_Isend", PointToPoint),
    f("MPI_Ibsend", PointToPoint),
    f("MPI_Issend", PointToPoint),
    f("MPI_Irsend", PointToPoint),
    f("MPI_Irecv", PointToPoint),
    f("MPI_Wait", PointToPoint),
    f("MPI_Waitall", PointToPoint),
    f("MPI_Waitany", PointToPoint),
    f("MPI_Waitsome", PointToPoint),
    f("MPI_Test", PointToPoint),
    f("MPI_Testall", PointToPoint),
    f("MPI_Testany", PointToPoint),
    f("MPI_Testsome", PointToPoint),
    f("MPI_Request_free", PointToPoint),
    f("MPI_Cancel", PointToPoint),
    f("MPI_Probe", PointToPoint),
    f("MPI_Iprobe", PointToPoint),
    f("MPI_Barrier", Collective),
    f("MPI_Bcast", Collective),
    f("MPI_Gather", Collective),
    f("MPI_Gatherv", Collective),
    f("MPI_Scatter", Collective),
    f("MPI_Scatterv", Collective),
    f("MPI_Allgather", Collective),
    f("MPI_Allgatherv", Collective),
    f("MPI_Alltoall", Collective),
    f("MPI_Alltoallv", Collective),
    f("MPI_Reduce", Collective),
    f("MPI_Allreduce", Collective),
    f("MPI_Reduce_scatter", Collective),
    f("MPI_Reduce_scatter_block", Collective),
    f("MPI_Scan", Collective),
    f("MPI_Exscan", Collective),
    f("MPI_Ibarrier", Collective),
    f("MPI_Ibcast", Collective),
    f("MPI_Ireduce", Collective),
    f("MPI_Iallreduce", Collective),
    f("MPI_Comm_dup", Other),
    f("MPI_Comm_dup_with_info", Other),
    f("MPI_Comm_split", Other),
    f("MPI_Comm_split_type", Other),
    f("MPI_Comm_create", Other),
    f("MPI_Comm_create_group", Other),
    f("MPI_Cart_create", Other),
    f("MPI_Cart_sub", Other),
    f("MPI_Graph_create", Other),
    f("MPI_Dist_graph_create_adjacent", Other),
    f("MPI_Intercomm_create", Other),
    f("MPI_Intercomm_merge", Other),
    f("MPI_Comm_free", Other),
    f("MPI_Comm_group", Other),
    f("MPI_Group_incl", Other),
    f("MPI_Group_excl", Other),
    f("MPI_Group_range_incl", Other),
    f("MPI_Group_range_excl", Other),
    f("MPI_Group_union", Other),
    f("MPI_Group_intersection", Other),
    f("MPI_Group_difference", Other),
    f("MPI_Group_free", Other),
];

/// The MPI function called `name` (its C name).
pub fn function(name: &str) -> Option<&'static Function> {
    FUNCTIONS.iter().find(|function| function.name == name)
}

/// A communicator, the same on every rank of it: [`CommId::WORLD`],
/// [`CommId::SELF`] (each rank's own), or one the program made, named by
/// the rank of `MPI_COMM_WORLD` that is rank 0 of the new communicator and
/// the number of communicators that rank made before (which it tells the
/// others when the communicator is made).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CommId(pub u64);

impl CommId {
    pub const WORLD: CommId = CommId(0);
    pub const SELF: CommId = CommId(1);
    /// A communicator the library could not name (an intercommunicator,
    /// or one made by a function it does not intercept).
    pub const UNKNOWN: CommId = CommId(u64::MAX);

    /// The `sequence`th communicator made with world rank `creator` as its
    /// rank 0.
    pub fn made(creator: u32, sequence: u32) -> CommId {
        CommId(((creator as u64 + 1) << 32) | sequence as u64)
    }

    /// The world rank that named it, for one the program made.
    pub fn creator(self) -> Option<u32> {
        let high = self.0 >> 32;
        (high != 0 && self != CommId::UNKNOWN).then(|| (high - 1) as u32)
    }
}

/// A communicator the program made, as the rank that named it (its rank 0)
/// defines it in its trace's footer. `MPI_COMM_WORLD` (all ranks, in
/// order) and `MPI_COMM_SELF` (each rank alone) are not defined.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Communicator {
    pub id: CommId,
    /// The communicator it was made from.
    pub parent: CommId,
    /// The world rank of each of its ranks, in its rank order: messages
    /// and collectives name ranks in their communicator, and these say
    /// which process that is.
    pub members: Vec<u32>,
}

/// A collective operation, as a trace's collective records name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum CollectiveOp {
    Barrier,
    Bcast,
    Gather,
    Gatherv,
    Scatter,
    Scatterv,
    Allgather,
    Allgatherv,
    Alltoall,
    Alltoallv,
    Reduce,
    Allreduce,
    ReduceScatter,
    ReduceScatterBlock,
    Scan,
    Exscan,
}

impl CollectiveOp {
    /// Every operation, in the order of their codes.
    pub const ALL: [CollectiveOp; 16] = [
        CollectiveOp::Barrier,
        CollectiveOp::Bcast,
        CollectiveOp::Gather,
        CollectiveOp::Gatherv,
        CollectiveOp::Scatter,
        CollectiveOp::Scatterv,
        CollectiveOp::Allgather,
        CollectiveOp::Allgatherv,
        CollectiveOp::Alltoall,
        CollectiveOp::Alltoallv,
        CollectiveOp::Reduce,
        CollectiveOp::Allreduce,
        CollectiveOp::ReduceScatter,
        CollectiveOp::ReduceScatterBlock,
        CollectiveOp::Scan,
        CollectiveOp::Exscan,
    ];

    /// Its number in the trace and in the POMP MPI library's calls.
    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn from_code(code: u8) -> Option<CollectiveOp> {
        CollectiveOp::ALL.get(code as usize).copied()
    }

    /// The MPI function that performs it: `MPI_Allreduce`.
    pub fn function(self) -> &'static str {
        match self {
            CollectiveOp::Barrier => "MPI_Barrier",
            CollectiveOp::Bcast => "MPI_Bcast",
            CollectiveOp::Gather => "MPI_Gather",
            CollectiveOp::Gatherv => "MPI_Gatherv",
            CollectiveOp::Scatter => "MPI_Scatter",
            CollectiveOp::Scatterv => "MPI_Scatterv",
            CollectiveOp::Allgather => "MPI_Allgather",
            CollectiveOp::Allgatherv => "MPI_Allgatherv",
            CollectiveOp::Alltoall => "MPI_Alltoall",
            CollectiveOp::Alltoallv => "MPI_Alltoallv",
            CollectiveOp::Reduce => "MPI_Reduce",
            CollectiveOp::Allreduce => "MPI_Allreduce",
            CollectiveOp::ReduceScatter => "MPI_Reduce_scatter",
            CollectiveOp::ReduceScatterBlock => "MPI_Reduce_scatter_block",
            CollectiveOp::Scan => "MPI_Scan",
            CollectiveOp::Exscan => "MPI_Exscan",
        }
    }

    /// Whether one rank is its root.
    pub fn has_root(self) -> bool {
        matches!(
            self,
            CollectiveOp::Bcast
                | CollectiveOp::Gather
                | CollectiveOp::Gatherv
                | CollectiveOp::Scatter
                | CollectiveOp::Scatterv
                | CollectiveOp::Reduce
        )
    }
}

/// MPI's thread support levels, in their order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThreadLevel {
    Single,
    Funneled,
    Serialized,
    Multiple,
}

impl ThreadLevel {
    /// The level numbered as in the runtime's entry points (0 for
    /// `MPI_THREAD_SINGLE` up to 3 for `MPI_THREAD_MULTIPLE`).
    pub fn from_code(code: i32) -> Option<ThreadLevel> {
        [
            ThreadLevel::Single,
            ThreadLevel::Funneled,
            ThreadLevel::Serialized,
            ThreadLevel::Multiple,
        ]
        .get(usize::try_from(code).ok()?)
        .copied()
    }

    pub fn mpi_name(self) -> &'static str {
        match self {
            ThreadLevel::Single => "MPI_THREAD_SINGLE",
            ThreadLevel::Funneled => "MPI_THREAD_FUNNELED",
            ThreadLevel::Serialized => "MPI_THREAD_SERIALIZED",
            ThreadLevel::Multiple => "MPI_THREAD_MULTIPLE",
        }
    }
}

/// A function of the runtime that the POMP MPI library calls, with C
/// linkage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryPoint {
    /// `pomp_mpi_send`.
    pub name: &'static str,
    /// The C return type.
    pub returns: &'static str,
    /// Each parameter's C type and name.
    pub params: &'static [(&'static str, &'static str)],
}

impl EntryPoint {
    /// Its C prototype, as the library declares it.
    pub fn c_prototype(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|(ty, name)| format!("{ty} {name}"))
            .collect();
        let params = if params.is_empty() {
            "void".to_string()
        } else {
            params.join(", ")
        };
        format!("{} {}({params});", self.returns, self.name)
    }
}

const fn entry(
    name: &'static str,
    returns: &'static str,
    params: &'static [(&'static str, &'static str)],
) -> EntryPoint {
    EntryPoint {
        name,
        returns,
        params,
    }
}

/// The runtime's functions for the POMP MPI library.
///
/// Communicators are passed as [`CommId`]s, requests by their C handle's
/// value (`MPI_Request` as an integer: a request is known by it from its
/// start to its completion), ranks as ranks of the communicator, thread
/// levels as [`ThreadLevel::from_code`] reads them, collective
/// operations as [`CollectiveOp::code`]s. Bytes are counts times the size
/// of their datatypes.
///
/// - `pomp_mpi_enter` / `pomp_mpi_exit`: a call of MPI function `function`
///   begins and ends; `*handle` is 0 before the first call and then holds
///   what the runtime stored there.
/// - `pomp_mpi_initialized`: `MPI_Init` (`requested` -1) or
///   `MPI_Init_thread` returned; the process is `rank` of `size` in
///   `MPI_COMM_WORLD`, and `library` is `MPI_Get_library_version`'s first
///   line.
/// - `pomp_mpi_experiment` (rank 0): the experiment's directory, which the
///   runtime decides if it has not; its length is returned, and it is
///   written into `buffer`, NUL-terminated, when it fits. The library
///   broadcasts it and the other ranks give it to
///   `pomp_mpi_join_experiment`.
/// - `pomp_mpi_hosts` (rank 0): each rank's host name, `count` names of
///   `stride` bytes each, NUL-padded.
/// - `pomp_mpi_clock_offset`: rank 0's `CLOCK_MONOTONIC` minus this
///   process's, measured by the ping-pong around `local_ns` (this
///   process's `CLOCK_MONOTONIC`), within `precision_ns`; `same_clock` when
///   both read one clock (one kernel).
/// - `pomp_mpi_threads`: how many threads this process has measured;
///   `pomp_mpi_threads_per_rank` (rank 0) every rank's, gathered at
///   `MPI_Finalize`.
/// - `pomp_mpi_comm_new_id` (rank 0 of a new communicator): its id, which
///   the library broadcasts over it; `pomp_mpi_comm_define` (the same
///   rank): its members' world ranks.
/// - `pomp_mpi_send`, `pomp_mpi_isend` (with the request), `pomp_mpi_recv`:
///   a message sent or received; `pomp_mpi_irecv`: a receive started;
///   `pomp_mpi_request_completed`: a request completed, with its status
///   (source, tag, bytes; ignored for sends) or cancelled;
///   `pomp_mpi_request_tested`: tested, not complete;
///   `pomp_mpi_request_freed`: freed before completion.
/// - `pomp_mpi_collective_end`: the call made a collective operation on
///   `comm`, `root` its root (-1 for none), with the bytes this rank sent
///   to and received from the others; it began when the call began.
pub const ENTRY_POINTS: &[EntryPoint] = &[
    entry(
        "pomp_mpi_enter",
        "void",
        &[("int64_t*", "handle"), ("const char*", "function")],
    ),
    entry("pomp_mpi_exit", "void", &[("int64_t*", "handle")]),
    entry(
        "pomp_mpi_initialized",
        "void",
        &[
            ("int32_t", "rank"),
            ("int32_t", "size"),
            ("int32_t", "requested"),
            ("int32_t", "provided"),
            ("const char*", "library"),
        ],
    ),
    entry(
        "pomp_mpi_experiment",
        "size_t",
        &[("char*", "buffer"), ("size_t", "capacity")],
    ),
    entry(
        "pomp_mpi_join_experiment",
        "void",
        &[("const char*", "directory"), ("size_t", "length")],
    ),
    entry(
        "pomp_mpi_hosts",
        "void",
        &[
            ("const char*", "names"),
            ("size_t", "stride"),
            ("int32_t", "count"),
        ],
    ),
    entry(
        "pomp_mpi_clock_offset",
        "void",
        &[
            ("int64_t", "local_ns"),
            ("int64_t", "offset_ns"),
            ("int64_t", "precision_ns"),
            ("int32_t", "same_clock"),
        ],
    ),
    entry("pomp_mpi_threads", "uint32_t", &[]),
    entry(
        "pomp_mpi_threads_per_rank",
        "void",
        &[("const uint32_t*", "threads"), ("int32_t", "count")],
    ),
    entry("pomp_mpi_comm_new_id", "uint64_t", &[]),
    entry(
        "pomp_mpi_comm_define",
        "void",
        &[
            ("uint64_t", "comm"),
            ("uint64_t", "parent"),
            ("const int32_t*", "world_ranks"),
            ("int32_t", "size"),
        ],
    ),
    entry(
        "pomp_mpi_send",
        "void",
        &[
            ("uint64_t", "comm"),
            ("int32_t", "peer"),
            ("int32_t", "tag"),
            ("uint64_t", "bytes"),
        ],
    ),
    entry(
        "pomp_mpi_isend",
        "void",
        &[
            ("uint64_t", "comm"),
            ("int32_t", "peer"),
            ("int32_t", "tag"),
            ("uint64_t", "bytes"),
            ("uint64_t", "request"),
        ],
    ),
    entry(
        "pomp_mpi_recv",
        "void",
        &[
            ("uint64_t", "comm"),
            ("int32_t", "peer"),
            ("int32_t", "tag"),
            ("uint64_t", "bytes"),
        ],
    ),
    entry(
        "pomp_mpi_irecv",
        "void",
        &[("uint64_t", "comm"), ("uint64_t", "request")],
    ),
    entry(
        "pomp_mpi_request_completed",
        "void",
        &[
            ("uint64_t", "request"),
            ("int32_t", "peer"),
            ("int32_t", "tag"),
            ("uint64_t", "bytes"),
            ("int32_t", "cancelled"),
        ],
    ),
    entry(
        "pomp_mpi_request_tested",
        "void",
        &[("uint64_t", "request")],
    ),
    entry("pomp_mpi_request_freed", "void", &[("uint64_t", "request")]),
    entry(
        "pomp_mpi_collective_end",
        "void",
        &[
            ("uint32_t", "operation"),
            ("uint64_t", "comm"),
            ("int32_t", "root"),
            ("uint64_t", "sent"),
            ("uint64_t", "received"),
        ],
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn every_function_is_listed_once_and_every_collective_is_one() {
        let names: BTreeSet<&str> = FUNCTIONS.iter().map(|f| f.name).collect();
        assert_eq!(names.len(), FUNCTIONS.len());
        for op in CollectiveOp::ALL {
            assert_eq!(CollectiveOp::from_code(op.code()), Some(op));
            let function = function(op.function()).unwrap_or_else(|| panic!("{}", op.function()));
            assert_eq!(function.class, Class::Collective, "{}", op.function());
        }
        assert_eq!(CollectiveOp::from_code(CollectiveOp::ALL.len() as u8), None);
    }

    #[test]
    fn entry_points_share_the_prefix_and_have_c_prototypes() {
        for entry in ENTRY_POINTS {
            assert!(entry.name.starts_with(ENTRY_PREFIX), "{}", entry.name);
        }
        let send = ENTRY_POINTS.iter().find(|e| e.name == "pomp_mpi_send");
        assert_eq!(
            send.unwrap().c_prototype(),
            "void pomp_mpi_send(uint64_t comm, int32_t peer, int32_t tag, uint64_t bytes);"
        );
        let threads = ENTRY_POINTS.iter().find(|e| e.name == "pomp_mpi_threads");
        assert_eq!(
            threads.unwrap().c_prototype(),
            "uint32_t pomp_mpi_threads(void);"
        );
    }

    #[test]
    fn an_mpi_region_is_named_by_its_function_alone() {
        let region = crate::profile::mpi_region(7, "MPI_Allreduce");
        assert_eq!(region.region_name().label(), "MPI_Allreduce");
        assert_eq!(region.region_name().what(), "MPI_Allreduce");
    }

    #[test]
    fn communicator_ids_name_their_creator() {
        assert_eq!(CommId::WORLD.creator(), None);
        assert_eq!(CommId::SELF.creator(), None);
        assert_eq!(CommId::UNKNOWN.creator(), None);
        let made = CommId::made(0, 0);
        assert_ne!(made, CommId::WORLD);
        assert_ne!(made, CommId::SELF);
        assert_eq!(made.creator(), Some(0));
        assert_eq!(CommId::made(16383, 7).creator(), Some(16383));
        assert_ne!(CommId::made(3, 1), CommId::made(3, 2));
    }

    #[test]
    fn thread_levels_are_read_in_order() {
        assert_eq!(ThreadLevel::from_code(0), Some(ThreadLevel::Single));
        assert_eq!(ThreadLevel::from_code(3), Some(ThreadLevel::Multiple));
        assert_eq!(ThreadLevel::from_code(-1), None);
        assert_eq!(ThreadLevel::from_code(4), None);
        assert!(ThreadLevel::Funneled < ThreadLevel::Serialized);
    }
}

//! The MPI functions the library defines: each with its C parameters as
//! MPI 3.1 declares them (and Open MPI's and MPICH's `mpi.h` with it) and
//! what its wrapper observes. Every binding's wrapper is made from this
//! one entry (see [`crate::source`]).

use pomp2::mpi::CollectiveOp;

/// What a wrapper observes of its call, by the names of the call's
/// parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recipe {
    /// The call's region alone.
    Region,
    /// `MPI_Init` (no thread level) or `MPI_Init_thread`.
    Init {
        required: Option<&'static str>,
        provided: Option<&'static str>,
    },
    Finalize,
    /// A blocking send.
    Send(Message),
    /// A non-blocking send, and its request.
    Isend(Message, &'static str),
    /// A blocking receive on `comm`, completed with `status`.
    Recv {
        comm: &'static str,
        status: &'static str,
    },
    /// A non-blocking receive on `comm`, and its request.
    Irecv {
        comm: &'static str,
        request: &'static str,
    },
    /// A send and a receive on the same communicator.
    Sendrecv(Message, &'static str),
    /// A collective operation on `comm`; `arguments` go to the library's
    /// `pomp_mpilib_<op>_done(comm, ...)` after `comm`, each a parameter's
    /// name or [`IN_PLACE`] followed by a buffer's.
    Collective {
        op: CollectiveOp,
        comm: &'static str,
        arguments: &'static [&'static str],
    },
    /// A communicator `made` from `parent`.
    CommMade {
        parent: &'static str,
        made: &'static str,
    },
    /// Written by hand in `common.c` for C (`pomp_mpilib_c_<name>`, same
    /// parameters, returning the result) and converted for Fortran
    /// (`source::fortran_completion`).
    Completion,
}

/// Before a buffer's name in a collective's arguments: whether it is
/// `MPI_IN_PLACE`.
pub const IN_PLACE: &str = "in place:";

/// The message of a send, by its parameters' names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Message {
    pub comm: &'static str,
    pub peer: &'static str,
    pub tag: &'static str,
    pub count: &'static str,
    pub datatype: &'static str,
}

const fn message(
    peer: &'static str,
    tag: &'static str,
    count: &'static str,
    datatype: &'static str,
) -> Message {
    Message {
        comm: "comm",
        peer,
        tag,
        count,
        datatype,
    }
}

/// One MPI function and its wrapper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wrapper {
    /// Its C name, which `pomp2::mpi::FUNCTIONS` lists.
    pub name: &'static str,
    /// Its C parameters as `mpi.h` declares them.
    pub params: &'static str,
    pub recipe: Recipe,
}

const fn w(name: &'static str, params: &'static str, recipe: Recipe) -> Wrapper {
    Wrapper {
        name,
        params,
        recipe,
    }
}

use Recipe::*;

const SEND: &str =
    "const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm";
const ISEND: &str = "const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request";
const SEND_MESSAGE: Message = message("dest", "tag", "count", "datatype");
const SCAN: &str = "const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm";
const GROUP_SET: &str = "MPI_Group group1, MPI_Group group2, MPI_Group *newgroup";
const GROUP_RANKS: &str = "MPI_Group group, int n, const int ranks[], MPI_Group *newgroup";
const GROUP_RANGES: &str = "MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup";

pub const WRAPPERS: &[Wrapper] = &[
    w(
        "MPI_Init",
        "int *argc, char ***argv",
        Init {
            required: None,
            provided: None,
        },
    ),
    w(
        "MPI_Init_thread",
        "int *argc, char ***argv, int required, int *provided",
        Init {
            required: Some("required"),
            provided: Some("provided"),
        },
    ),
    w("MPI_Finalize", "", Finalize),
    w("MPI_Send", SEND, Send(SEND_MESSAGE)),
    w("MPI_Bsend", SEND, Send(SEND_MESSAGE)),
    w("MPI_Ssend", SEND, Send(SEND_MESSAGE)),
    w("MPI_Rsend", SEND, Send(SEND_MESSAGE)),
    w(
        "MPI_Recv",
        "void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status",
        Recv {
            comm: "comm",
            status: "status",
        },
    ),
    w(
        "MPI_Sendrecv",
        "const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status",
        Sendrecv(message("dest", "sendtag", "sendcount", "sendtype"), "status"),
    ),
    w(
        "MPI_Sendrecv_replace",
        "void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status",
        Sendrecv(message("dest", "sendtag", "count", "datatype"), "status"),
    ),
    w("MPI_Isend", ISEND, Isend(SEND_MESSAGE, "request")),
    w("MPI_Ibsend", ISEND, Isend(SEND_MESSAGE, "request")),
    w("MPI_Issend", ISEND, Isend(SEND_MESSAGE, "request")),
    w("MPI_Irsend", ISEND, Isend(SEND_MESSAGE, "request")),
    w(
        "MPI_Irecv",
        "void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request",
        Irecv {
            comm: "comm",
            request: "request",
        },
    ),
    w("MPI_Wait", "MPI_Request *request, MPI_Status *status", Completion),
    w(
        "MPI_Waitall",
        "int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses",
        Completion,
    ),
    w(
        "MPI_Waitany",
        "int count, MPI_Request array_of_requests[], int *index, MPI_Status *status",
        Completion,
    ),
    w(
        "MPI_Waitsome",
        "int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]",
        Completion,
    ),
    w(
        "MPI_Test",
        "MPI_Request *request, int *flag, MPI_Status *status",
        Completion,
    ),
    w(
        "MPI_Testall",
        "int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]",
        Completion,
    ),
    w(
        "MPI_Testany",
        "int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status",
        Completion,
    ),
    w(
        "MPI_Testsome",
        "int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]",
        Completion,
    ),
    w("MPI_Request_free", "MPI_Request *request", Completion),
    w("MPI_Cancel", "MPI_Request *request", Region),
    w(
        "MPI_Probe",
        "int source, int tag, MPI_Comm comm, MPI_Status *status",
        Region,
    ),
    w(
        "MPI_Iprobe",
        "int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status",
        Region,
    ),
    w(
        "MPI_Barrier",
        "MPI_Comm comm",
        Collective {
            op: CollectiveOp::Barrier,
            comm: "comm",
            arguments: &[],
        },
    ),
    w(
        "MPI_Bcast",
        "void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm",
        Collective {
            op: CollectiveOp::Bcast,
            comm: "comm",
            arguments: &["count", "datatype", "root"],
        },
    ),
    w(
        "MPI_Gather",
        "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm",
        Collective {
            op: CollectiveOp::Gather,
            comm: "comm",
            arguments: &["sendcount", "sendtype", "recvcount", "recvtype", "root"],
        },
    ),
    w(
        "MPI_Gatherv",
        "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm",
        Collective {
            op: CollectiveOp::Gatherv,
            comm: "comm",
            arguments: &["sendcount", "sendtype", "recvcounts", "recvtype", "root"],
        },
    ),
    w(
        "MPI_Scatter",
        "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm",
        Collective {
            op: CollectiveOp::Scatter,
            comm: "comm",
            arguments: &["sendcount", "sendtype", "recvcount", "recvtype", "root"],
        },
    ),
    w(
        "MPI_Scatterv",
        "const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm",
        Collective {
            op: CollectiveOp::Scatterv,
            comm: "comm",
            arguments: &["sendcounts", "sendtype", "recvcount", "recvtype", "root"],
        },
    ),
    w(
        "MPI_Allgather",
        "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm",
        Collective {
            op: CollectiveOp::Allgather,
            comm: "comm",
            arguments: &["recvcount", "recvtype"],
        },
    ),
    w(
        "MPI_Allgatherv",
        "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm",
        Collective {
            op: CollectiveOp::Allgatherv,
            comm: "comm",
            arguments: &["recvcounts", "recvtype"],
        },
    ),
    w(
        "MPI_Alltoall",
        "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm",
        Collective {
            op: CollectiveOp::Alltoall,
            comm: "comm",
            arguments: &["recvcount", "recvtype"],
        },
    ),
    w(
        "MPI_Alltoallv",
        "const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm",
        Collective {
            op: CollectiveOp::Alltoallv,
            comm: "comm",
            arguments: &[
                "in place:sendbuf",
                "sendcounts",
                "sendtype",
                "recvcounts",
                "recvtype",
            ],
        },
    ),
    w(
        "MPI_Reduce",
        "const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm",
        Collective {
            op: CollectiveOp::Reduce,
            comm: "comm",
            arguments: &["count", "datatype", "root"],
        },
    ),
    w(
        "MPI_Allreduce",
        SCAN,
        Collective {
            op: CollectiveOp::Allreduce,
            comm: "comm",
            arguments: &["count", "datatype"],
        },
    ),
    w(
        "MPI_Reduce_scatter",
        "const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm",
        Collective {
            op: CollectiveOp::ReduceScatter,
            comm: "comm",
            arguments: &["recvcounts", "datatype"],
        },
    ),
    w(
        "MPI_Reduce_scatter_block",
        "const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm",
        Collective {
            op: CollectiveOp::ReduceScatterBlock,
            comm: "comm",
            arguments: &["recvcount", "datatype"],
        },
    ),
    w(
        "MPI_Scan",
        SCAN,
        Collective {
            op: CollectiveOp::Scan,
            comm: "comm",
            arguments: &["count", "datatype"],
        },
    ),
    w(
        "MPI_Exscan",
        SCAN,
        Collective {
            op: CollectiveOp::Exscan,
            comm: "comm",
            arguments: &["count", "datatype"],
        },
    ),
    w("MPI_Ibarrier", "MPI_Comm comm, MPI_Request *request", Region),
    w(
        "MPI_Ibcast",
        "void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request",
        Region,
    ),
    w(
        "MPI_Ireduce",
        "const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request",
        Region,
    ),
    w(
        "MPI_Iallreduce",
        "const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request",
        Region,
    ),
    w(
        "MPI_Comm_dup",
        "MPI_Comm comm, MPI_Comm *newcomm",
        CommMade {
            parent: "comm",
            made: "newcomm",
        },
    ),
    w(
        "MPI_Comm_dup_with_info",
        "MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm",
        CommMade {
            parent: "comm",
            made: "newcomm",
        },
    ),
    w(
        "MPI_Comm_split",
        "MPI_Comm comm, int color, int key, MPI_Comm *newcomm",
        CommMade {
            parent: "comm",
            made: "newcomm",
        },
    ),
    w(
        "MPI_Comm_split_type",
        "MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm",
        CommMade {
            parent: "comm",
            made: "newcomm",
        },
    ),
    w(
        "MPI_Comm_create",
        "MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm",
        CommMade {
            parent: "comm",
            made: "newcomm",
        },
    ),
    w(
        "MPI_Comm_create_group",
        "MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm",
        CommMade {
            parent: "comm",
            made: "newcomm",
        },
    ),
    w(
        "MPI_Cart_create",
        "MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart",
        CommMade {
            parent: "comm_old",
            made: "comm_cart",
        },
    ),
    w(
        "MPI_Cart_sub",
        "MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm",
        CommMade {
            parent: "comm",
            made: "newcomm",
        },
    ),
    w(
        "MPI_Graph_create",
        "MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm_graph",
        CommMade {
            parent: "comm_old",
            made: "comm_graph",
        },
    ),
    w(
        "MPI_Dist_graph_create_adjacent",
        "MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[], int outdegree, const int destinations[], const int destweights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph",
        CommMade {
            parent: "comm_old",
            made: "comm_dist_graph",
        },
    ),
    w(
        "MPI_Intercomm_create",
        "MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm",
        Region,
    ),
    w(
        "MPI_Intercomm_merge",
        "MPI_Comm intercomm, int high, MPI_Comm *newintracomm",
        CommMade {
            parent: "intercomm",
            made: "newintracomm",
        },
    ),
    w("MPI_Comm_free", "MPI_Comm *comm", Region),
    w("MPI_Comm_group", "MPI_Comm comm, MPI_Group *group", Region),
    w("MPI_Group_incl", GROUP_RANKS, Region),
    w("MPI_Group_excl", GROUP_RANKS, Region),
    w("MPI_Group_range_incl", GROUP_RANGES, Region),
    w("MPI_Group_range_excl", GROUP_RANGES, Region),
    w("MPI_Group_union", GROUP_SET, Region),
    w("MPI_Group_intersection", GROUP_SET, Region),
    w("MPI_Group_difference", GROUP_SET, Region),
    w("MPI_Group_free", "MPI_Group *group", Region),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The library intercepts exactly the functions the contract lists,
    /// and each collective operation's function makes its records.
    #[test]
    fn the_wrappers_are_the_contracts_functions() {
        let wrapped: Vec<&str> = WRAPPERS.iter().map(|w| w.name).collect();
        let listed: Vec<&str> = pomp2::mpi::FUNCTIONS.iter().map(|f| f.name).collect();
        assert_eq!(wrapped, listed);
        for op in CollectiveOp::ALL {
            let wrapper = WRAPPERS.iter().find(|w| w.name == op.function()).unwrap();
            assert!(
                matches!(wrapper.recipe, Collective { op: made, .. } if made == op),
                "{}",
                wrapper.name
            );
        }
    }
}

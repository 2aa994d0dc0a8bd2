//! How data flows in an MPI function's calls, which Cube and OTF2 both
//! give its region as its role.

use pomp2::mpi::{Class, CollectiveOp};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    PointToPoint,
    Barrier,
    OneToAll,
    AllToOne,
    AllToAll,
    /// Initialisation, communicators, groups, and functions pomp does not
    /// know.
    None,
}

/// The flow of MPI function `name` (`MPI_Allreduce`).
pub fn of(name: &str) -> Flow {
    let Some(function) = pomp2::mpi::function(name) else {
        return Flow::None;
    };
    // A non-blocking collective flows as its blocking one does.
    let plain = |name: &str| name.trim_start_matches("MPI_").to_ascii_lowercase();
    let name = plain(function.name);
    let operation = CollectiveOp::ALL.into_iter().find(|op| {
        let op = plain(op.function());
        name == op || name.strip_prefix('i') == Some(op.as_str())
    });
    match (function.class, operation) {
        (Class::PointToPoint, _) => Flow::PointToPoint,
        (Class::Collective, Some(CollectiveOp::Barrier)) => Flow::Barrier,
        (
            Class::Collective,
            Some(CollectiveOp::Bcast | CollectiveOp::Scatter | CollectiveOp::Scatterv),
        ) => Flow::OneToAll,
        (
            Class::Collective,
            Some(CollectiveOp::Gather | CollectiveOp::Gatherv | CollectiveOp::Reduce),
        ) => Flow::AllToOne,
        (Class::Collective, _) => Flow::AllToAll,
        (Class::Other, _) => Flow::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_flow_as_their_operations() {
        assert_eq!(of("MPI_Isend"), Flow::PointToPoint);
        assert_eq!(of("MPI_Ibarrier"), Flow::Barrier);
        assert_eq!(of("MPI_Bcast"), Flow::OneToAll);
        assert_eq!(of("MPI_Ireduce"), Flow::AllToOne);
        assert_eq!(of("MPI_Allreduce"), Flow::AllToAll);
        assert_eq!(of("MPI_Comm_split"), Flow::None);
        assert_eq!(of("MPI_Made_up"), Flow::None);
    }
}

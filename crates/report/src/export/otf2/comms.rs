//! The archive's communicators: each process's OpenMP thread team, and
//! MPI's communicators, which every rank names alike ([`CommId`]) and the
//! rank that made one defines in its trace. Events name communicators
//! before the trace defining them may have been read, so references are
//! handed out as they are asked for and the definitions made at the end.

use pomp2::mpi::{CommId, Communicator};
use std::collections::{BTreeMap, HashMap};

/// Who an MPI communicator's members are.
pub(super) enum Members {
    /// Every rank, in order.
    World,
    /// Each rank alone.
    Alone,
    /// These world ranks, in the communicator's rank order.
    Ranks(Vec<u32>),
    /// Not defined by any trace read (its rank 0 wrote none, or the
    /// runtime could not name it).
    Unknown,
}

/// An MPI communicator as the archive defines it.
pub(super) struct MpiComm {
    pub reference: u32,
    pub name: String,
    pub members: Members,
    pub parent: Option<u32>,
}

#[derive(Debug, Default)]
pub(super) struct Comms {
    next: u32,
    mpi: BTreeMap<CommId, u32>,
    defined: HashMap<CommId, Communicator>,
}

impl Comms {
    /// The reference of MPI communicator `id`.
    pub fn reference(&mut self, id: CommId) -> u32 {
        let next = &mut self.next;
        *self.mpi.entry(id).or_insert_with(|| {
            *next += 1;
            *next - 1
        })
    }

    /// A reference for a new OpenMP thread team.
    pub fn team(&mut self) -> u32 {
        self.next += 1;
        self.next - 1
    }

    /// Takes the communicators a trace defines.
    pub fn define(&mut self, communicators: &[Communicator]) {
        for communicator in communicators {
            self.defined.insert(communicator.id, communicator.clone());
        }
    }

    pub fn any_mpi(&self) -> bool {
        !self.mpi.is_empty() || !self.defined.is_empty()
    }

    /// Every MPI communicator named or defined, with the parents of those
    /// defined; `MPI_COMM_WORLD` always, where MPI was used at all.
    pub fn mpi_definitions(&mut self) -> Vec<MpiComm> {
        if !self.any_mpi() {
            return Vec::new();
        }
        self.reference(CommId::WORLD);
        let ids: Vec<CommId> = self.defined.keys().copied().collect();
        for id in ids {
            self.reference(id);
            let parent = self.defined[&id].parent;
            self.reference(parent);
        }
        let mut comms: Vec<MpiComm> = (self.mpi.iter())
            .map(|(&id, &reference)| {
                let defined = self.defined.get(&id);
                let (name, members) = match (id, defined) {
                    (CommId::WORLD, _) => ("MPI_COMM_WORLD".to_string(), Members::World),
                    (CommId::SELF, _) => ("MPI_COMM_SELF".to_string(), Members::Alone),
                    (_, Some(communicator)) => (
                        communicator_name(id),
                        Members::Ranks(communicator.members.clone()),
                    ),
                    (_, None) => (communicator_name(id), Members::Unknown),
                };
                MpiComm {
                    reference,
                    name,
                    members,
                    parent: defined.and_then(|c| self.mpi.get(&c.parent).copied()),
                }
            })
            .collect();
        comms.sort_by_key(|comm| comm.reference);
        comms
    }
}

/// `MPI communicator 2 of rank 3`: the third that world rank 3 made as
/// its rank 0.
fn communicator_name(id: CommId) -> String {
    match id.creator() {
        Some(creator) => format!(
            "MPI communicator {} of rank {creator}",
            id.0 & u64::from(u32::MAX)
        ),
        None => "MPI communicator not named by the measurement".to_string(),
    }
}

//! One line per overhead class saying what it counts in this run — its
//! largest part, and the region where most of it arose — and what usually
//! reduces it, so that a reader can act on the figures.

use super::classes::{Class, Part};

/// The reading of `class` given its `parts` (means over the profiles)
/// and the region where most of it arose.
pub fn reading(class: Class, parts: &[Part], most_in: Option<&str>) -> String {
    let largest = parts
        .iter()
        .filter(|p| p.ns.mean > 0)
        .max_by_key(|p| p.ns.mean)
        .map(|p| p.name);
    let in_region = most_in.map_or_else(String::new, |label| format!(", most in {label}"));
    match (class, largest) {
        (Class::Control, None) => "no team was forked and no task created".into(),
        (Class::Control, Some("task creation")) => format!(
            "threads creating tasks{in_region}: fewer, larger tasks (a cut-off below which \
             work runs in the task creating it) reduce it"
        ),
        (Class::Control, Some(_)) => format!(
            "threads starting and ending teams{in_region}: fewer, longer parallel regions \
             (one around a loop of many short ones) reduce it"
        ),
        (Class::Synchronisation, None) => "no thread waited for another".into(),
        (Class::Synchronisation, Some("implicit barrier" | "barrier")) => format!(
            "threads waiting at barriers for the slowest{in_region}: evener shares of work \
             (schedule(dynamic) or smaller chunks) or nowait where no thread needs the others' \
             results reduce it"
        ),
        (Class::Synchronisation, Some("critical" | "lock" | "ordered")) => format!(
            "threads waiting for others to leave a critical section, lock or ordered \
             block{in_region}: shorter protected code, atomics or reductions in its place \
             reduce it"
        ),
        (Class::Synchronisation, Some(_)) => format!(
            "threads waiting for their child tasks at taskwait{in_region}: tasks created \
             earlier, or other work to do meanwhile, reduce it"
        ),
        (Class::LossOfParallelism, None) => {
            "no thread idled while others worked: every thread was in the team whenever one ran"
                .into()
        }
        (Class::LossOfParallelism, Some("idle while serial code runs")) => {
            "threads idle while the initial thread runs serial code: parallelising that code \
             (what runs outside parallel regions) reduces it"
                .into()
        }
        (Class::LossOfParallelism, Some(_)) => {
            "threads outside a team while the initial thread is in one: waking after each \
             fork and done before each join, which many short parallel regions multiply, or left \
             out of smaller teams: fewer, longer parallel regions reduce it"
                .into()
        }
        (Class::DataMovement, None) => {
            "no MPI call was measured (the POMP MPI library, which the wrappers link into \
             programs that link MPI, measures them, and --regions=mpi their call sites)"
                .into()
        }
        (Class::DataMovement, Some(_)) => "time in MPI calls: fewer, larger messages, and \
             communication overlapped with computation, reduce it"
            .into(),
        (Class::Work, _) => "the program's own computation, and whatever the classes above do \
             not measure: the part threads share; faster code reduces it, more threads \
             spread it"
            .into(),
    }
}

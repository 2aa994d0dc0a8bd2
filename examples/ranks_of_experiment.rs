//! The experiment of a large MPI run made of a real one, for
//! `scripts/bench-report`:
//!
//! ```text
//! cargo run --release --example ranks_of_experiment EXPERIMENT RANKS DIR
//! ```
//!
//! writes into `DIR` an experiment of `RANKS` ranks: its manifest, and for
//! every rank `N` the profile (and trace, where the source has one) of
//! the source's rank `N mod S`, `S` being the source's ranks. Rank `N` is
//! in the group of `S` ranks from `N - N mod S`, with which it trades its
//! messages: peers in `MPI_COMM_WORLD` and the communicators the program
//! made are moved to that group, so that every send still has its
//! receive. Each rank has a process id of its own, a host of its own for
//! every 32 ranks, and every time scaled by a factor of the rank's between
//! 0.8 and 1.2 (visits kept), so that the ranks differ as a run's do and
//! each figure's least and greatest belong to different ranks.

use pomp2::experiment::{Experiment, FileKind, Manifest};
use pomp2::mpi::CommId;
use pomp2::profile::{Breakdown, Node, Profile};
use pomp2::trace::{ChunkWriter, MpiChunkWriter, MpiRecord, Trace};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};

const RANKS_PER_HOST: u32 = 32;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [source, ranks, dir] = args.as_slice() else {
        eprintln!("usage: ranks_of_experiment EXPERIMENT RANKS DIR");
        std::process::exit(2);
    };
    let fail = |e: &dyn std::fmt::Display| -> ! {
        eprintln!("{e}");
        std::process::exit(2)
    };
    let source = Experiment::open(source).unwrap_or_else(|e| fail(&e));
    let processes = source.processes().unwrap_or_else(|e| fail(&e));
    let ranks_of_source: Vec<(Profile, Option<Trace>)> = (processes.iter())
        .filter(|p| p.forked_pid.is_none())
        .map(|p| {
            let profile = p
                .profile
                .as_ref()
                .unwrap_or_else(|| fail(&"a rank without profile"));
            let profile = pomp2::profile::read(profile).unwrap_or_else(|e| fail(&e));
            let trace =
                (p.trace.as_ref()).map(|t| pomp2::trace::read(t).unwrap_or_else(|e| fail(&e)));
            (profile, trace)
        })
        .collect();
    let ranks: u32 = ranks.parse().expect("RANKS is a number");
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir).expect("the directory can be made");
    let copy = Experiment {
        directory: dir.clone(),
        manifest: manifest(&source.manifest, ranks, &ranks_of_source),
    };
    (0..ranks).into_par_iter().for_each(|rank| {
        let group = ranks_of_source.len() as u32;
        let (profile, trace) = &ranks_of_source[(rank % group) as usize];
        let moved = Moved {
            rank,
            base: rank - rank % group,
            factor: factor(rank),
        };
        let trace_path = copy.path_of(rank, FileKind::Trace);
        let profile = moved.profile(profile, trace.as_ref().map(|_| trace_path.as_path()));
        write_json(&copy.path_of(rank, FileKind::Profile), &profile);
        if let Some(trace) = trace {
            write_trace(&trace_path, &moved.trace(trace, profile.pid));
        }
    });
    write_json(&dir.join(pomp2::experiment::MANIFEST), &copy.manifest);
}

fn manifest(source: &Manifest, ranks: u32, of_source: &[(Profile, Option<Trace>)]) -> Manifest {
    let threads = |rank: u32| of_source[(rank as usize) % of_source.len()].0.threads.len() as u32;
    let hosts: Vec<String> = (0..ranks).map(host).collect();
    Manifest {
        ranks,
        threads_per_rank: Some((0..ranks).map(threads).collect()),
        hosts: Some(pomp2::experiment::hosts_of(&hosts)),
        ..source.clone()
    }
}

fn host(rank: u32) -> String {
    format!("node{:04}", rank / RANKS_PER_HOST)
}

/// A factor between 0.8 and 1.2 that scatters over the ranks.
fn factor(rank: u32) -> f64 {
    let scattered = (u64::from(rank) * 2_654_435_761) % 1000;
    0.8 + 0.4 * scattered as f64 / 999.0
}

/// A source rank as rank `rank` of the copy, in the group from `base`.
struct Moved {
    rank: u32,
    base: u32,
    factor: f64,
}

impl Moved {
    fn scale(&self, ns: &mut u64) {
        *ns = (*ns as f64 * self.factor) as u64;
    }

    /// A communicator the program made: named by the same rank of this
    /// group.
    fn communicator(&self, id: CommId) -> CommId {
        match id.creator() {
            Some(creator) => CommId::made(creator + self.base, id.0 as u32),
            None => id,
        }
    }

    /// A peer, as its rank in `communicator`.
    fn peer(&self, communicator: CommId, peer: u32) -> u32 {
        if communicator == CommId::WORLD {
            peer + self.base
        } else {
            peer
        }
    }

    fn profile(&self, source: &Profile, trace: Option<&Path>) -> Profile {
        let scale = |ns: &mut u64| self.scale(ns);
        let mut copy = source.clone();
        copy.rank = Some(self.rank.to_string());
        copy.pid = 100_000 + self.rank;
        copy.host = Some(host(self.rank));
        if let Some(summary) = &mut copy.trace {
            summary.path = trace.map_or(String::new(), |t| t.display().to_string());
        }
        scale(&mut copy.wall_ns);
        scale_breakdown(&mut copy.breakdown, &scale);
        if let Some(mpi) = &mut copy.mpi {
            let totals = &mut mpi.totals;
            for ns in [
                &mut totals.point_to_point_ns,
                &mut totals.collective_ns,
                &mut totals.other_ns,
            ] {
                scale(ns);
            }
        }
        for summary in &mut copy.region_summary {
            for ns in [
                &mut summary.inclusive_ns,
                &mut summary.exclusive_ns,
                &mut summary.min_thread_inclusive_ns,
                &mut summary.max_thread_inclusive_ns,
                &mut summary.mean_thread_inclusive_ns,
            ] {
                scale(ns);
            }
        }
        for task in &mut copy.tasks.per_region {
            for ns in [
                &mut task.inclusive_ns,
                &mut task.exclusive_ns,
                &mut task.mean_ns,
            ] {
                scale(ns);
            }
        }
        for thread in &mut copy.threads {
            scale_breakdown(&mut thread.breakdown, &scale);
            let totals = &mut thread.totals;
            for ns in [
                &mut totals.measured_ns,
                &mut totals.waiting_ns,
                &mut totals.work_ns,
            ] {
                scale(ns);
            }
            scale_node(&mut thread.tree, &scale);
        }
        copy
    }

    /// The trace, its times in nanoseconds (the clock's ticks of the copy).
    fn trace(&self, source: &Trace, pid: u32) -> Trace {
        // Start and end scaled apart, so that what nested still nests.
        let scaled = |ns: u64| (ns as f64 * self.factor) as u64;
        let mut copy = source.clone();
        let footer = &mut copy.footer;
        footer.rank = Some(self.rank.to_string());
        footer.pid = pid;
        footer.host = Some(host(self.rank));
        footer.origin_ticks = 0;
        footer.ns_per_tick = 1.0;
        footer.wall_ns = scaled(footer.wall_ns);
        for communicator in &mut footer.communicators {
            communicator.id = self.communicator(communicator.id);
            communicator.parent = self.communicator(communicator.parent);
            for member in &mut communicator.members {
                *member += self.base;
            }
        }
        for span in copy.threads.values_mut().flatten() {
            let end = scaled(span.start + span.duration);
            span.start = scaled(span.start);
            span.duration = end - span.start;
        }
        for event in copy.mpi.values_mut().flatten() {
            event.time = scaled(event.time);
            self.record(&mut event.record);
        }
        copy
    }

    fn record(&self, record: &mut MpiRecord) {
        let message = match record {
            MpiRecord::Send(message)
            | MpiRecord::Recv(message)
            | MpiRecord::Isend { message, .. }
            | MpiRecord::Irecv { message, .. } => message,
            MpiRecord::CollectiveEnd(collective) => {
                collective.communicator = self.communicator(collective.communicator);
                return;
            }
            _ => return,
        };
        message.peer = self.peer(message.communicator, message.peer);
        message.communicator = self.communicator(message.communicator);
    }
}

fn write_json(path: &Path, value: &impl serde::Serialize) {
    let file = std::io::BufWriter::new(std::fs::File::create(path).expect("writable"));
    serde_json::to_writer(file, value).expect("written");
}

/// Writes `trace` as the runtime would, a chunk per thread.
fn write_trace(path: &Path, trace: &Trace) {
    const CHUNK_BYTES: usize = 1 << 16;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).expect("writable"));
    out.write_all(&pomp2::trace::header()).expect("written");
    for (&thread, spans) in &trace.threads {
        let mut chunk = ChunkWriter::new(CHUNK_BYTES);
        for span in spans {
            if chunk.is_full() {
                out.write_all(chunk.chunk(thread)).expect("written");
                chunk.clear();
            }
            chunk.push(span);
        }
        if !chunk.is_empty() {
            out.write_all(chunk.chunk(thread)).expect("written");
        }
    }
    for (&thread, events) in &trace.mpi {
        let mut chunk = MpiChunkWriter::new(CHUNK_BYTES);
        for event in events {
            if chunk.is_full() {
                out.write_all(chunk.chunk(thread)).expect("written");
                chunk.clear();
            }
            chunk.push(event);
        }
        if !chunk.is_empty() {
            out.write_all(chunk.chunk(thread)).expect("written");
        }
    }
    out.write_all(&pomp2::trace::footer_chunk(&trace.footer))
        .expect("written");
}

fn scale_breakdown(breakdown: &mut Breakdown, scale: &impl Fn(&mut u64)) {
    for ns in breakdown.fields_mut() {
        scale(ns);
    }
}

fn scale_node(node: &mut Node, scale: &impl Fn(&mut u64)) {
    for ns in [
        &mut node.inclusive_ns,
        &mut node.exclusive_ns,
        &mut node.wait_ns,
        &mut node.fork_ns,
        &mut node.join_ns,
    ] {
        scale(ns);
    }
    if let Some(throttled) = &mut node.throttled {
        scale(&mut throttled.measured_ns);
        scale(&mut throttled.timed_alone_ns);
    }
    for child in &mut node.children {
        scale_node(child, scale);
    }
}

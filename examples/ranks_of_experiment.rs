//! The ranks of a large run made of one real profile, for
//! `scripts/bench-report`:
//!
//! ```text
//! cargo run --release --example ranks_of_profile PROFILE RANKS DIR
//! ```
//!
//! writes `DIR/pomp-profile.rank<N>.<pid>.json` for every rank `N` below
//! `RANKS`: the profile with its rank and a process id of its own, and
//! every time scaled by a factor of the rank's between 0.8 and 1.2 (visits
//! kept), so that the ranks differ as a run's do and each figure's least
//! and greatest belong to different ranks. A profile without MPI is
//! written as version 2 of the document (without what version 3 added:
//! its experiment, ranks, host and clock), so that builds of pomp that
//! read version 2 only are measured on the same files.

use pomp2::profile::{Breakdown, Node, Profile};
use rayon::prelude::*;
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [profile, ranks, dir] = args.as_slice() else {
        eprintln!("usage: ranks_of_profile PROFILE RANKS DIR");
        std::process::exit(2);
    };
    let profile = pomp2::profile::read(profile).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let ranks: u32 = ranks.parse().expect("RANKS is a number");
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir).expect("the directory can be made");
    (0..ranks).into_par_iter().for_each(|rank| {
        let copy = rank_of(&profile, rank);
        let path = dir.join(format!("pomp-profile.rank{rank}.{}.json", copy.pid));
        let file = std::io::BufWriter::new(std::fs::File::create(&path).expect("writable"));
        serde_json::to_writer(file, &copy).expect("written");
    });
}

/// A factor between 0.8 and 1.2 that scatters over the ranks.
fn factor(rank: u32) -> f64 {
    let scattered = (u64::from(rank) * 2_654_435_761) % 1000;
    0.8 + 0.4 * scattered as f64 / 999.0
}

fn rank_of(profile: &Profile, rank: u32) -> Profile {
    let factor = factor(rank);
    let scale = |ns: &mut u64| *ns = (*ns as f64 * factor) as u64;
    let mut copy = profile.clone();
    copy.rank = Some(rank.to_string());
    copy.pid = 100_000 + rank;
    copy.trace = None;
    if copy.mpi.is_none() {
        copy.version = 2;
        (copy.experiment, copy.ranks, copy.host, copy.clock) = (None, None, None, None);
    }
    scale(&mut copy.wall_ns);
    scale_breakdown(&mut copy.breakdown, &scale);
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

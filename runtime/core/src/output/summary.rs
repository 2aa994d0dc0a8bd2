//! The few lines on stderr at exit, from the process that speaks for the
//! run (rank 0, or a process alone): where the time went, and where the
//! experiment is and what reports it.

use pomp2::profile::{kind_label, Kind, Node, Profile, Region, RegionId};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

const SUMMARY_ROWS: usize = 5;
const THROTTLED_ROWS: usize = 8;

fn millis(ns: u64) -> String {
    format!("{:.3} ms", ns as f64 / 1e6)
}

fn region(profile: &Profile, id: Option<RegionId>) -> Option<&Region> {
    let index = (id? as usize).checked_sub(1)?;
    profile.regions.get(index)
}

/// Where the profile went.
pub enum Place<'a> {
    Experiment(&'a crate::experiment::Chosen),
    /// The file `POMP_PROFILE` named, when it has one.
    File(Option<&'a Path>),
}

pub fn text(profile: &Profile, place: Place, written: bool) -> String {
    let mut text = String::new();
    let not_written = if written { "" } else { " (NOT written)" };
    let of_ranks = match (&profile.rank, profile.ranks) {
        (Some(rank), Some(ranks)) if ranks > 1 => format!(" on rank {rank} of {ranks}"),
        _ => String::new(),
    };
    let _ = write!(
        text,
        "pomp: {} threads, {} regions, {} wall{of_ranks}",
        profile.thread_count,
        profile.regions.len(),
        millis(profile.wall_ns),
    );
    match &place {
        Place::File(Some(path)) => {
            let _ = writeln!(text, "; profile {}{not_written}", path.display());
        }
        _ => text.push('\n'),
    }
    text.push_str("pomp:   inclusive(all threads)     visits  region\n");
    for row in profile.region_summary.iter().take(SUMMARY_ROWS) {
        let _ = writeln!(
            text,
            "pomp: {:>16} {:>14}  {}",
            millis(row.inclusive_ns),
            row.visits,
            kind_label(row.kind, region(profile, row.region))
        );
    }
    let b = &profile.breakdown;
    let _ = writeln!(
        text,
        "pomp: waiting: implicit barrier {}, barrier {}, critical {}, lock {}, taskwait {}; fork {}, join {}",
        millis(b.implicit_barrier_ns),
        millis(b.barrier_ns),
        millis(b.critical_wait_ns),
        millis(b.lock_wait_ns),
        millis(b.taskwait_ns),
        millis(b.fork_ns),
        millis(b.join_ns),
    );
    if let Some(mpi) = &profile.mpi {
        let totals = &mpi.totals;
        let _ = writeln!(
            text,
            "pomp: MPI: point-to-point {}, collective {}, other {}; {} messages sent ({} bytes), \
             {} received ({} bytes), {} collectives",
            millis(totals.point_to_point_ns),
            millis(totals.collective_ns),
            millis(totals.other_ns),
            totals.messages_sent,
            totals.bytes_sent,
            totals.messages_received,
            totals.bytes_received,
            totals.collectives,
        );
    }
    throttled(profile, &mut text);
    if let Place::Experiment(chosen) = place {
        let directory = chosen.directory.display();
        let ranks = match profile.ranks {
            Some(ranks) if ranks > 1 => format!("{ranks} ranks"),
            _ => "one process".to_string(),
        };
        let _ = writeln!(
            text,
            "pomp: experiment {directory} ({ranks}){not_written}; report it with: pomp report {directory}"
        );
        if let Some(aside) = &chosen.moved_aside {
            let _ = writeln!(
                text,
                "pomp: the earlier experiment that was there is now {}",
                aside.display()
            );
        }
    }
    text
}

/// What to say when the program met regions its registration did not
/// declare: it was linked with a registration older than its objects
/// (`pomp batch`'s `pomp_regions.o` from before a run that added regions).
pub fn unregistered(profile: &Profile) -> Option<String> {
    let met = &profile.unregistered_regions;
    let lost = profile.unregistered_events_lost;
    if met.is_empty() && lost == 0 {
        return None;
    }
    let mut files: BTreeSet<&str> = BTreeSet::new();
    for &id in met {
        if let Some(file) = region(profile, Some(id)).and_then(|r| r.file.as_deref()) {
            files.insert(file);
        }
    }
    let mut text = format!(
        "pomp: warning: {} region{} of this program {} not registered (declared regions: {})",
        met.len(),
        if met.len() == 1 { "" } else { "s" },
        if met.len() == 1 { "was" } else { "were" },
        profile.declared_regions,
    );
    if !files.is_empty() {
        let files: Vec<&str> = files.into_iter().collect();
        let _ = write!(text, ", in {}", files.join(", "));
    }
    if lost > 0 {
        let _ = write!(
            text,
            "; {lost} event{} of unregistered regions lost",
            if lost == 1 { "" } else { "s" }
        );
    }
    text.push_str(
        "\npomp: the program was linked with a region registration older than its objects: \
         compile the registration file again (pomp batch's pomp_regions.c) and relink",
    );
    Some(text)
}

/// Which regions stopped being timed, on how many threads, and from which
/// visit on.
fn throttled(profile: &Profile, text: &mut String) {
    /// Per (region, kind): the threads, and the earliest visit at which
    /// one of them was throttled.
    type Found = BTreeMap<(Option<RegionId>, Kind), (BTreeSet<u32>, u64)>;
    fn walk(node: &Node, thread: u32, found: &mut Found) {
        if let Some(throttled) = node.throttled {
            let entry = found
                .entry((node.region, node.kind))
                .or_insert((BTreeSet::new(), u64::MAX));
            entry.0.insert(thread);
            entry.1 = entry.1.min(throttled.at_visit);
        }
        for child in &node.children {
            walk(child, thread, found);
        }
    }
    let mut found = Found::new();
    for thread in &profile.threads {
        walk(&thread.tree, thread.thread, &mut found);
    }
    if found.is_empty() {
        return;
    }
    let _ = writeln!(
        text,
        "pomp: throttled after {} visits of under {} us each (POMP_THROTTLE=0 times every visit); \
         visits are still counted, later time stays in the enclosing region:",
        profile.throttling.numcalls,
        profile.throttling.percall_ns as f64 / 1e3
    );
    for ((region_id, kind), (threads, at_visit)) in found.iter().take(THROTTLED_ROWS) {
        let _ = writeln!(
            text,
            "pomp:   {} on {} thread{} from visit {at_visit}",
            kind_label(*kind, region(profile, *region_id)),
            threads.len(),
            if threads.len() == 1 { "" } else { "s" },
        );
    }
    if found.len() > THROTTLED_ROWS {
        let _ = writeln!(
            text,
            "pomp:   and {} more (see \"throttled\" in the profile)",
            found.len() - THROTTLED_ROWS
        );
    }
}

pub fn print(profile: &Profile, place: Place, written: bool) {
    // A failing stderr (a closed pipe) is ignored: this runs at exit,
    // inside the instrumented program.
    let _ = io::stderr().write_all(text(profile, place, written).as_bytes());
}

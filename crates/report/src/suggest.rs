//! `pomp report --suggest-filter`: a filter in Score-P's syntax (what
//! `pomp instrument --filter` reads) leaving out the regions whose
//! measurement costs most relative to their time — many visits, little
//! time per visit, the throttled ones first — as `scorep-score -g` does.
//! Only user code is proposed (functions, loops, calls, user regions): the
//! analyses need the OpenMP constructs (imbalance, synchronisation) and
//! the MPI calls (data movement). Constructs are proposed only when asked
//! for ([`Proposed::WithOpenMp`]): where tiny tasks cost most, their
//! constructs are what is worth leaving out.

use crate::load::Run;
use pomp2::profile::{Node, Profile, Region, RegionId};
use std::collections::BTreeMap;
use std::fmt::Write;

/// What measuring one visit of a region costs, estimated from the whole
/// cost of the worst case: in `scripts/bench-regions` the task-recursive
/// Fibonacci's function regions (5.86 M visits, throttled, 2 threads) add
/// 0.45 s of wall time to the OpenMP-only build, about 150 ns of thread
/// time per visit. Its two events' bookkeeping alone (about 60
/// instructions each, runtime/README.md) is the lower bound.
pub const VISIT_COST_NS: f64 = 150.0;

/// A region is suggested when its estimated overhead is at least this
/// share of its own measured time...
const LEAST_OVERHEAD_SHARE: f64 = 0.05;
/// ...and, summed over its visits, at least this share of the run's wall
/// time on one thread; throttled regions always are.
const LEAST_SHARE_OF_RUN: f64 = 0.001;

/// One region's visits over every thread and profile.
#[derive(Debug, Default, Clone)]
struct Measured {
    visits: u64,
    /// Visits whose time was measured (before throttling stopped it).
    timed_visits: u64,
    timed_ns: u64,
    throttled: bool,
    /// Visits folded below the call tree's depth limit, untimed...
    folded_visits: u64,
    /// ...and the time of the nodes they were folded into, which holds
    /// theirs.
    folded_bound_ns: u64,
}

impl Measured {
    /// Mean time per visit; folded visits count at most the time of the
    /// node holding them, shared among them.
    fn ns_per_visit(&self) -> f64 {
        (self.timed_ns + self.folded_bound_ns) as f64
            / (self.timed_visits + self.folded_visits).max(1) as f64
    }

    fn add(&mut self, other: &Measured) {
        self.visits += other.visits;
        self.timed_visits += other.timed_visits;
        self.timed_ns += other.timed_ns;
        self.throttled |= other.throttled;
        self.folded_visits += other.folded_visits;
        self.folded_bound_ns += other.folded_bound_ns;
    }
}

/// One suggested entry.
#[derive(Debug, Clone)]
pub struct Suggestion {
    /// The filter pattern naming the region.
    pub pattern: String,
    pub label: String,
    pub visits: u64,
    pub ns_per_visit: f64,
    pub overhead_ns: f64,
    pub throttled: bool,
}

/// Which regions may be proposed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Proposed {
    /// Functions, loops, calls and user regions, MPI calls not included.
    #[default]
    UserCode,
    /// OpenMP constructs too.
    WithOpenMp,
}

impl Proposed {
    fn admits(self, region: &Region) -> bool {
        let mpi = (region.name.as_deref()).is_some_and(|name| {
            name.get(..4)
                .is_some_and(|prefix| prefix.eq_ignore_ascii_case("mpi_"))
        });
        let user_code = region.region_type == pomp2::ctc::USER_REGION_TYPE;
        !mpi && (user_code || self == Proposed::WithOpenMp)
    }
}

/// The regions of `runs` worth leaving out, most costly first, of those
/// `proposed` admits.
pub fn suggestions(runs: &[Run], proposed: Proposed) -> Vec<Suggestion> {
    let mut measured: BTreeMap<(usize, RegionId), Measured> = BTreeMap::new();
    let mut regions: BTreeMap<(usize, RegionId), &Region> = BTreeMap::new();
    let mut wall_ns = 0u64;
    for (index, run) in runs.iter().enumerate() {
        let profile = &run.profile;
        wall_ns = wall_ns.max(profile.wall_ns);
        for region in &profile.regions {
            regions.insert((index, region.id), region);
        }
        for thread in &profile.threads {
            collect(profile, index, &thread.tree, &mut measured);
        }
    }
    // One region of one build, measured in several profiles (MPI ranks),
    // is one entry.
    let mut by_pattern: BTreeMap<String, (Measured, String)> = BTreeMap::new();
    for (key, m) in measured {
        let region = regions[&key];
        if !proposed.admits(region) {
            continue;
        }
        let Some(pattern) = pattern(region) else {
            continue;
        };
        let entry = by_pattern
            .entry(pattern)
            .or_insert_with(|| (Measured::default(), region.region_name().label()));
        entry.0.add(&m);
    }
    let mut suggested: Vec<Suggestion> = (by_pattern.into_iter())
        .map(|(pattern, (m, label))| Suggestion {
            pattern,
            label,
            visits: m.visits,
            ns_per_visit: m.ns_per_visit(),
            overhead_ns: m.visits as f64 * VISIT_COST_NS,
            throttled: m.throttled,
        })
        .filter(|s| {
            s.throttled
                || (VISIT_COST_NS >= LEAST_OVERHEAD_SHARE * s.ns_per_visit
                    && s.overhead_ns >= LEAST_SHARE_OF_RUN * wall_ns as f64)
        })
        .collect();
    suggested.sort_by(|a, b| {
        (b.throttled.cmp(&a.throttled)).then(b.overhead_ns.total_cmp(&a.overhead_ns))
    });
    suggested
}

fn collect(
    profile: &Profile,
    run: usize,
    node: &Node,
    measured: &mut BTreeMap<(usize, RegionId), Measured>,
) {
    for child in &node.children {
        if let Some(region) = child.region {
            let names_it = (profile.regions.iter())
                .find(|r| r.id == region)
                .is_some_and(|r| child.kind.names_region(&r.region_type));
            if names_it {
                let m = measured.entry((run, region)).or_default();
                m.visits += child.visits;
                match child.throttled {
                    _ if child.folded => {
                        m.folded_visits += child.visits;
                        m.folded_bound_ns += node.inclusive_ns;
                    }
                    Some(t) => {
                        m.throttled = true;
                        m.timed_visits += t.at_visit;
                        m.timed_ns += t.measured_ns;
                    }
                    None => {
                        m.timed_visits += child.visits;
                        m.timed_ns += child.inclusive_ns;
                    }
                }
            }
        }
        collect(profile, run, child, measured);
    }
}

/// How a filter names `region`: a function or user region by its name,
/// an OpenMP construct by the place of its directive. A name is escaped
/// so that its wildcard characters match only themselves, and its blanks
/// (`operator new`), which a filter cannot write, match any character.
fn pattern(region: &Region) -> Option<String> {
    let text = match (&region.name, region.region_type.as_str()) {
        (Some(name), "region") => name.clone(),
        _ => format!("{}:{}", region.file.as_ref()?, region.first_line?),
    };
    let escaped = glob::Pattern::escape(&text).replace('#', "\\#");
    Some(
        escaped
            .chars()
            .map(|c| if c.is_whitespace() { '?' } else { c })
            .collect(),
    )
}

/// The filter file: a header saying what it is and how it was chosen,
/// then each entry with its figures.
pub fn filter_file(runs: &[Run], suggested: &[Suggestion], proposed: Proposed) -> String {
    let mut out = String::new();
    let sources: Vec<String> = runs.iter().map(|r| r.path.display().to_string()).collect();
    let _ = writeln!(
        out,
        "# Written by `pomp report --suggest-filter` from {}.\n\
         # The regions whose measurement costs most relative to their time, the\n\
         # throttled ones first. Overhead is estimated at {VISIT_COST_NS:.0} ns per visit\n\
         # (measured on a throttled worst case). Rebuild with --filter=THIS_FILE\n\
         # (--pomp-filter=THIS_FILE for the compiler wrappers) to leave them\n\
         # uninstrumented. {}",
        sources.join(", "),
        match proposed {
            Proposed::UserCode => {
                "Only user code is proposed: OpenMP constructs\n\
                 # (--suggest-openmp proposes them too) and MPI calls stay, as the\n\
                 # analyses need them."
            }
            Proposed::WithOpenMp => {
                "OpenMP constructs are proposed too (--suggest-openmp),\n\
                 # MPI calls never."
            }
        }
    );
    out.push_str("SCOREP_REGION_NAMES_BEGIN\n");
    if suggested.is_empty() {
        out.push_str("  # no region costs more to measure than it tells\n");
    }
    for s in suggested {
        let _ = writeln!(
            out,
            "  # {}{}: {} visits, {} per visit, estimated overhead {} ({:.0}% of its time)",
            s.label,
            if s.throttled { ", throttled" } else { "" },
            s.visits,
            duration(s.ns_per_visit),
            duration(s.overhead_ns),
            100.0 * VISIT_COST_NS / s.ns_per_visit.max(f64::MIN_POSITIVE),
        );
        let _ = writeln!(out, "  EXCLUDE {}", s.pattern);
    }
    out.push_str("SCOREP_REGION_NAMES_END\n");
    out
}

fn duration(ns: f64) -> String {
    match ns {
        ns if ns < 1e3 => format!("{ns:.0} ns"),
        ns if ns < 1e6 => format!("{:.1} us", ns / 1e3),
        ns if ns < 1e9 => format!("{:.1} ms", ns / 1e6),
        ns => format!("{:.2} s", ns / 1e9),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(region_type: &str, name: Option<&str>) -> Region {
        Region {
            id: 1,
            region_type: region_type.into(),
            file: Some("src/app.cpp".into()),
            first_line: Some(12),
            last_line: Some(12),
            end_first_line: None,
            end_last_line: None,
            name: name.map(str::to_string),
            unit: None,
            code_kind: None,
            label: String::new(),
            idf_id: None,
            implicit_barrier: Default::default(),
            attributes: Default::default(),
            malformed_ctc: false,
        }
    }

    #[test]
    fn patterns_name_functions_by_name_and_constructs_by_place() {
        let pattern = |t, n| pattern(&region(t, n)).unwrap();
        assert_eq!(pattern("region", Some("ns::step")), "ns::step");
        assert_eq!(
            pattern("region", Some("Grid::operator[]")),
            "Grid::operator[[][]]"
        );
        assert_eq!(pattern("region", Some("operator new")), "operator?new");
        assert_eq!(pattern("task", None), "src/app.cpp:12");
        assert_eq!(pattern("critical", Some("io")), "src/app.cpp:12");
        // What is written is what the filter reader takes back.
        let glob = glob::Pattern::new(&pattern("region", Some("Grid::operator[]"))).unwrap();
        assert!(glob.matches("Grid::operator[]") && !glob.matches("Grid::operator["));
    }
}

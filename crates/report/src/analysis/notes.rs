//! What limits the data, said once per report in the reader's terms. Of
//! several profiles (ranks), each condition is said once, with the ranks
//! that have it and how much of it they had.

use super::run::RunInfo;
use super::spread::{Ranks, Tally};
use crate::join::Catalog;
use crate::load::Run;
use pomp2::profile::Throttling;

/// Ranks listed by name before the rest are counted.
const RANKS_LISTED: usize = 6;

/// The ranks a condition holds on, as runs of consecutive ranks.
#[derive(Debug, Default, Clone)]
struct RankSet {
    runs: Vec<(u32, u32)>,
    count: u64,
}

impl RankSet {
    fn insert(&mut self, rank: u32) {
        self.count += 1;
        match self.runs.last_mut() {
            Some((_, last)) if *last + 1 == rank => *last = rank,
            _ => self.runs.push((rank, rank)),
        }
    }

    /// `rank 3`, `ranks 0–15`, `ranks 0–3, 7, 9 and 40 more`.
    fn words(&self) -> String {
        let run = |&(first, last): &(u32, u32)| {
            if first == last {
                first.to_string()
            } else {
                format!("{first}–{last}")
            }
        };
        if self.count == 1 {
            return format!("rank {}", run(&self.runs[0]));
        }
        let listed: Vec<String> = self.runs.iter().take(RANKS_LISTED).map(run).collect();
        let shown: u64 = (self.runs.iter().take(RANKS_LISTED))
            .map(|(first, last)| u64::from(last - first) + 1)
            .sum();
        let mut words = format!("ranks {}", listed.join(", "));
        if shown < self.count {
            words.push_str(&format!(" and {} more", self.count - shown));
        }
        words
    }
}

/// A condition some profiles have, and how much of it each had.
#[derive(Debug, Default)]
struct Condition {
    ranks: RankSet,
    amount: Tally,
}

impl Condition {
    fn add(&mut self, at: u32, rank: u32, amount: u64) {
        if amount > 0 {
            self.ranks.insert(rank);
            self.amount.add(at, amount);
        }
    }

    /// The note, `say` given the amount in words (`3`, or `1–3` where the
    /// ranks differ), prefixed with the ranks when there are several
    /// profiles.
    fn note(&self, several: bool, say: impl Fn(&str) -> String) -> Option<String> {
        if self.ranks.count == 0 {
            return None;
        }
        let amount = self.amount.over_values(None);
        let amount = if amount.varies() {
            format!("{}–{}", amount.min, amount.max)
        } else {
            amount.max.to_string()
        };
        Some(if several {
            format!("{}: {}", self.ranks.words(), say(&amount))
        } else {
            say(&amount)
        })
    }
}

/// Every condition, gathered profile by profile.
#[derive(Debug, Default)]
pub struct Notes {
    incomplete_threads: Condition,
    throttled: Condition,
    throttling: Option<Throttling>,
    folded: Condition,
    unmatched: Condition,
    not_inferred: Condition,
    dropped: Condition,
    malformed: Condition,
    /// Why traces are missing: the first few, and how many.
    trace_problems: Vec<(u32, String)>,
    trace_problem_count: u64,
}

impl Notes {
    /// Adds the profile at `at`, of `rank`.
    pub fn add(&mut self, at: u32, rank: u32, run: &Run) {
        let profile = &run.profile;
        let threads = &profile.threads;
        self.incomplete_threads
            .add(at, rank, profile.incomplete_threads.len() as u64);
        let throttled = (profile.region_summary.iter())
            .filter(|s| s.throttled_threads > 0)
            .count() as u64;
        self.throttled.add(at, rank, throttled);
        if throttled > 0 {
            self.throttling.get_or_insert(profile.throttling);
        }
        let sum = |field: fn(&pomp2::profile::Thread) -> u64| threads.iter().map(field).sum();
        self.folded
            .add(at, rank, sum(|t| t.frames_beyond_depth_limit));
        self.unmatched.add(at, rank, sum(|t| t.unmatched_ends));
        self.not_inferred
            .add(at, rank, sum(|t| t.barriers_not_inferred));
        if run.trace.is_some() {
            let dropped = profile.trace.as_ref().map_or(0, |t| t.dropped_events);
            self.dropped.add(at, rank, dropped);
        }
        let malformed = profile.regions.iter().filter(|r| r.malformed_ctc).count();
        self.malformed.add(at, rank, malformed as u64);
        if let Some(problem) = &run.trace_problem {
            self.trace_problem_count += 1;
            if self.trace_problems.len() < RANKS_LISTED {
                self.trace_problems.push((rank, problem.clone()));
            }
        }
    }

    pub fn finish(self, ranks: &Ranks, catalog: &Catalog, run: Option<&RunInfo>) -> Vec<String> {
        let several = ranks.several();
        let throttling = self.throttling.unwrap_or(Throttling {
            enabled: true,
            numcalls: 0,
            percall_ns: 0,
        });
        let mut notes: Vec<String> = [
            self.incomplete_threads.note(several, |n| {
                format!(
                    "{n} thread(s) were still recording when the program ended and are left out"
                )
            }),
            self.throttled.note(several, |n| {
                format!(
                    "{n} region part(s) called often and briefly stopped being timed \
                     (throttling: {} calls under {} ns each); their times are what was measured \
                     until then, the rest counts in the enclosing region",
                    throttling.numcalls, throttling.percall_ns
                )
            }),
            self.folded.note(several, |n| {
                format!(
                    "{n} visit(s) nested deeper than the call tree's {} levels were \
                     folded into one node per region at the deepest level, counted and not timed; \
                     their time is in the node above",
                    pomp2::profile::MAX_TREE_DEPTH
                )
            }),
            self.unmatched.note(several, |n| {
                format!("{n} end event(s) had no matching begin on their thread")
            }),
            self.not_inferred.note(several, |n| {
                format!("the waiting at {n} implicit barrier(s) could not be inferred")
            }),
            self.dropped.note(several, |n| {
                format!("the trace is incomplete: {n} event(s) were dropped at POMP_TRACE_LIMIT")
            }),
        ]
        .into_iter()
        .flatten()
        .collect();
        for (rank, problem) in &self.trace_problems {
            notes.push(if several {
                format!("rank {rank}: {problem}")
            } else {
                problem.clone()
            });
        }
        let unlisted = self.trace_problem_count - self.trace_problems.len() as u64;
        if unlisted > 0 {
            notes.push(format!(
                "{unlisted} more rank(s) have no trace that could be read"
            ));
        }
        notes.extend(self.malformed.note(several, |_| {
            "some regions had a damaged source context (CTC string); they are named by what \
             could be read"
                .to_string()
        }));
        if let Some(run) = run {
            notes.extend(run_notes(run));
        }
        if catalog.descriptors_missing > 0 {
            notes.push(format!(
                "{} region(s) have no IDF descriptor among those given",
                catalog.descriptors_missing
            ));
        }
        notes
    }
}

/// What the experiment says is missing from it.
fn run_notes(run: &RunInfo) -> Vec<String> {
    let mut notes = Vec::new();
    let manifest = &run.manifest;
    if !manifest.finished {
        notes.push(format!(
            "the run {} did not finish as far as rank 0 knows (its manifest was not written again at its end): it is still going, or rank 0 ended without finalising",
            manifest.run
        ));
    }
    if !run.missing_ranks.is_empty() {
        let mut missing = RankSet::default();
        for &rank in &run.missing_ranks {
            missing.insert(rank);
        }
        notes.push(format!(
            "{} of the run's {} ranks left no profile ({}); the figures are of the others",
            run.missing_ranks.len(),
            manifest.ranks,
            missing.words()
        ));
    }
    if let Some(first) = run.forked.first() {
        notes.push(format!(
            "{} process(es) that ranks forked are left out, each a run of its own: report on one by naming its profile ({first}{})",
            run.forked.len(),
            if run.forked.len() > 1 { ", ..." } else { "" }
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_listed_as_runs() {
        let mut set = RankSet::default();
        set.insert(3);
        assert_eq!(set.words(), "rank 3");
        for rank in [4, 5, 9] {
            set.insert(rank);
        }
        assert_eq!(set.words(), "ranks 3–5, 9");
        let mut many = RankSet::default();
        for rank in (0..40).step_by(2) {
            many.insert(rank);
        }
        assert_eq!(many.words(), "ranks 0, 2, 4, 6, 8, 10 and 14 more");
    }
}

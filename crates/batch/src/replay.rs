//! A run after which nothing changed, told from the state it left: every
//! file as it was, unchanged. Not even the tree is walked.

use crate::cache;
use crate::report::{FileReport, Tally};
use crate::watch::Token;
use crate::Progress;
use std::path::{Path, PathBuf};

/// Every file of the state in `cache_dir`, reported as unchanged, and the
/// warnings the run that left `token` gave; `token` is kept for the next.
pub fn replay(
    cache_dir: &Path,
    token: Token,
    progress: &dyn Progress,
    reports: &mut dyn FnMut(&FileReport),
) -> (Tally, Vec<String>) {
    let previous = cache::Previous::open(cache_dir);
    progress.start(Some(previous.len() as usize));
    let mut tally = Tally::default();
    for (key, entry) in previous.into_entries() {
        let report = FileReport {
            path: PathBuf::from(key),
            size: entry.source.size(),
            cached: true,
            verdict: entry.verdict,
        };
        progress.file_done(&report);
        tally.add(report, reports);
    }
    progress.finish();
    let mut warnings = token.warnings.clone();
    if let Err(error) = token.save(cache_dir) {
        warnings.push(format!("the next run walks the tree again: {error:#}"));
    }
    (tally, warnings)
}

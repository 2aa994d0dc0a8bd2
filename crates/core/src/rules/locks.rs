//! The ranges where nothing is instrumented (device code, `noinstrument`
//! stretches), and lock routine calls renamed outside them.

use super::planner::Planner;
use crate::directive::Role;
use crate::model::LockCall;
use crate::source::Span;

impl Planner<'_> {
    /// Ranges where nothing is instrumented: device code and the stretches
    /// between `noinstrument` and `instrument`.
    pub(super) fn skipped_ranges(&self) -> SkippedRanges {
        let mut ranges = self.model.no_insert.clone();
        let mut open: Option<usize> = None;
        for site in &self.model.sites {
            match site.directive.role() {
                Some(Role::StopInstrumenting) => open = open.or(Some(site.span.end)),
                Some(Role::ResumeInstrumenting) => {
                    if let Some(start) = open.take() {
                        ranges.push(start..site.span.start);
                    }
                }
                _ => {}
            }
        }
        if let Some(start) = open {
            ranges.push(start..self.file.bytes.len());
        }
        SkippedRanges::new(ranges)
    }

    pub(super) fn lock_calls(&mut self, skipped: &SkippedRanges) {
        if self.disabled("locks", "locks") {
            return;
        }
        let (lock_calls, undefined): (Vec<LockCall>, Vec<LockCall>) = self
            .model
            .lock_calls
            .iter()
            .filter(|c| !skipped.covers(&c.span))
            .cloned()
            .partition(|c| self.defines(&pomp2::events::lock_wrapper(&c.name)));
        if !undefined.is_empty() {
            self.plan.unmeasured.insert("lock routines".to_string());
        }
        self.plan.lock_calls = lock_calls;
    }
}

/// Ranges where nothing is instrumented, sorted and with overlaps merged,
/// so that every question about them is a binary search.
pub(super) struct SkippedRanges(pub(super) Vec<Span>);

impl SkippedRanges {
    pub(super) fn new(mut ranges: Vec<Span>) -> Self {
        ranges.sort_by_key(|r| r.start);
        let mut merged: Vec<Span> = Vec::with_capacity(ranges.len());
        for range in ranges {
            match merged.last_mut() {
                Some(last) if range.start < last.end => last.end = last.end.max(range.end),
                _ => merged.push(range),
            }
        }
        SkippedRanges(merged)
    }

    /// The range that starts last at or before `at`.
    pub(super) fn last_starting_before(&self, at: usize, inclusive: bool) -> Option<&Span> {
        let count = self
            .0
            .partition_point(|r| r.start < at || (inclusive && r.start == at));
        count.checked_sub(1).map(|i| &self.0[i])
    }

    /// `at` lies inside a range, not on its edges.
    pub(super) fn strictly_inside(&self, at: usize) -> bool {
        self.last_starting_before(at, false)
            .is_some_and(|r| at < r.end)
    }

    /// `span` lies wholly within a range.
    pub(super) fn covers(&self, span: &Span) -> bool {
        self.last_starting_before(span.start, true)
            .is_some_and(|r| span.end <= r.end)
    }
}

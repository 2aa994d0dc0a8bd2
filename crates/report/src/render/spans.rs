//! Each thread's visits from a trace, as properly nested spans: what the
//! timelines of the HTML page and speedscope's evented profiles draw.
//!
//! The trace's clock ticks, converted to nanoseconds, and clocks of two
//! cores may let a visit end a nanosecond after its enclosing visit. Such
//! ends are clamped so that spans nest.

use crate::join::Catalog;
use crate::load::Run;
use pomp2::profile::Kind;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// Names shared by all spans, each with its source place.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Frames {
    pub names: Vec<String>,
    pub files: Vec<Option<String>>,
    pub lines: Vec<Option<u32>>,
    /// What each frame measures.
    pub kinds: Vec<Kind>,
    #[serde(skip)]
    index: HashMap<String, u32>,
}

impl Frames {
    pub fn frame(&mut self, catalog: &Catalog, region: Option<usize>, kind: Kind) -> u32 {
        let name = catalog.label(region, kind);
        if let Some(&at) = self.index.get(&name) {
            return at;
        }
        let info = region.map(|r| &catalog.regions[r]);
        self.names.push(name.clone());
        self.files.push(info.and_then(|r| r.file.clone()));
        self.lines.push(info.and_then(|r| r.line));
        self.kinds.push(kind);
        let at = self.names.len() as u32 - 1;
        self.index.insert(name, at);
        at
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Span {
    pub start_ns: u64,
    pub end_ns: u64,
    pub depth: u32,
    pub frame: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct ThreadSpans {
    pub name: String,
    pub spans: Vec<Span>,
}

/// One time line for the processes of a run: each process's times with
/// its offsets to rank 0's clock applied ([`pomp2::clock`]), counted from
/// where the first process read began. Times of processes without clock
/// offsets stay their own, each from its start.
#[derive(Debug, Default, Clone)]
pub struct CommonTime {
    origin: Option<i64>,
}

impl CommonTime {
    /// What a time of the process whose clock is `clock` is on the line.
    pub fn of(&mut self, clock: Option<&pomp2::clock::ClockSync>) -> impl Fn(u64) -> u64 {
        let clock = clock.cloned();
        let origin = clock
            .as_ref()
            .map(|clock| *self.origin.get_or_insert(clock.common_ns(0)));
        move |local: u64| match (&clock, origin) {
            (Some(clock), Some(origin)) => (clock.common_ns(local) - origin).max(0) as u64,
            _ => local,
        }
    }
}

/// The spans of every thread of a run's profiles, gathered profile by
/// profile: what the page's timelines draw.
#[derive(Debug, Default, Clone)]
pub struct Timelines {
    pub frames: Frames,
    pub threads: Vec<ThreadSpans>,
    time: CommonTime,
}

impl Timelines {
    /// Adds the threads of `run`, the catalog's profile `run_index`, named
    /// by its rank when it has one.
    pub fn add(&mut self, run: &Run, run_index: usize, catalog: &Catalog) {
        let prefix = rank_prefix(run);
        let frames = &mut self.frames;
        let threads = threads(run, run_index, catalog, frames, &prefix, &mut self.time);
        self.threads.extend(threads);
    }
}

/// `rank 3 ` before the threads of a profile of rank 3.
pub fn rank_prefix(run: &Run) -> String {
    match &run.profile.rank {
        Some(rank) => format!("rank {rank} "),
        None => String::new(),
    }
}

/// The spans of every thread of `run` (the catalog's profile `run_index`),
/// threads in order; empty without a trace.
pub fn threads(
    run: &Run,
    run_index: usize,
    catalog: &Catalog,
    frames: &mut Frames,
    prefix: &str,
    time: &mut CommonTime,
) -> Vec<ThreadSpans> {
    let Some(trace) = &run.trace else {
        return Vec::new();
    };
    let place = time.of(trace.footer.clock.as_ref());
    let mut by_thread: BTreeMap<u32, Vec<Span>> = BTreeMap::new();
    for (&thread, spans) in &trace.threads {
        let drawn = by_thread.entry(thread).or_default();
        for span in spans {
            let region = catalog.find(run_index, (span.region != 0).then_some(span.region));
            drawn.push(Span {
                start_ns: place(span.start),
                end_ns: place(span.start + span.duration),
                depth: 0,
                frame: frames.frame(catalog, region, span.kind),
            });
        }
    }
    by_thread
        .into_iter()
        .map(|(thread, spans)| ThreadSpans {
            name: format!("{prefix}thread {thread}"),
            spans: nest(spans),
        })
        .collect()
}

/// Orders spans by start (enclosing before enclosed), gives each its
/// nesting depth, and clamps ends to the enclosing span.
fn nest(mut spans: Vec<Span>) -> Vec<Span> {
    spans.sort_by(|a, b| a.start_ns.cmp(&b.start_ns).then(b.end_ns.cmp(&a.end_ns)));
    let mut open: Vec<u64> = Vec::new();
    for span in &mut spans {
        while open.last().is_some_and(|&end| end <= span.start_ns) {
            open.pop();
        }
        if let Some(&enclosing_end) = open.last() {
            span.end_ns = span.end_ns.min(enclosing_end);
        }
        span.depth = open.len() as u32;
        open.push(span.end_ns);
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start_ns: u64, end_ns: u64) -> Span {
        Span {
            start_ns,
            end_ns,
            depth: 0,
            frame: 0,
        }
    }

    #[test]
    fn spans_nest_by_time() {
        let nested = nest(vec![
            span(10, 20),
            span(0, 100),
            span(12, 21), // ends after its parent by rounding
            span(20, 30),
            span(100, 110),
        ]);
        let shape: Vec<(u64, u64, u32)> = nested
            .iter()
            .map(|s| (s.start_ns, s.end_ns, s.depth))
            .collect();
        assert_eq!(
            shape,
            [
                (0, 100, 0),
                (10, 20, 1),
                (12, 20, 2),
                (20, 30, 1),
                (100, 110, 0)
            ]
        );
    }
}

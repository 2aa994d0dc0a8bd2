//! A speedscope document: one profile per thread. With a trace, each is an
//! evented profile, every visit in time order; without one, a sampled
//! profile of the thread's call-path tree weighted by exclusive time.

use super::spans::{self, Frames};
use crate::join::Catalog;
use crate::load::Run;
use pomp2::profile::Node;
use serde::Serialize;

const SCHEMA: &str = "https://www.speedscope.app/file-format-schema.json";

#[derive(Serialize)]
pub struct Document {
    #[serde(rename = "$schema")]
    schema: &'static str,
    name: String,
    exporter: String,
    #[serde(rename = "activeProfileIndex")]
    active_profile_index: usize,
    shared: Shared,
    profiles: Vec<Profile>,
}

#[derive(Serialize)]
struct Shared {
    frames: Vec<Frame>,
}

#[derive(Serialize)]
struct Frame {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Profile {
    Evented {
        name: String,
        unit: &'static str,
        #[serde(rename = "startValue")]
        start_value: u64,
        #[serde(rename = "endValue")]
        end_value: u64,
        events: Vec<FrameEvent>,
    },
    Sampled {
        name: String,
        unit: &'static str,
        #[serde(rename = "startValue")]
        start_value: u64,
        #[serde(rename = "endValue")]
        end_value: u64,
        samples: Vec<Vec<u32>>,
        weights: Vec<u64>,
    },
}

#[derive(Serialize)]
struct FrameEvent {
    #[serde(rename = "type")]
    kind: &'static str,
    at: u64,
    frame: u32,
}

/// The document's profiles and frames, gathered profile by profile.
#[derive(Default)]
pub struct Builder {
    frames: Frames,
    profiles: Vec<Profile>,
    time: spans::CommonTime,
}

impl Builder {
    /// Adds `run`, the catalog's profile `index`: a profile per thread,
    /// named by the run's rank when it has one.
    pub fn add(&mut self, run: &Run, index: usize, catalog: &Catalog) {
        let prefix = spans::rank_prefix(run);
        let frames = &mut self.frames;
        if run.trace.is_some() {
            for thread in spans::threads(run, index, catalog, frames, &prefix, &mut self.time) {
                self.profiles.push(evented(thread));
            }
        } else {
            for thread in &run.profile.threads {
                let name = format!("{prefix}thread {}", thread.thread);
                let profile = sampled(name, &thread.tree, index, catalog, frames);
                self.profiles.push(profile);
            }
        }
    }

    /// The document, named `name`.
    pub fn finish(self, name: &str) -> Document {
        let frames = self.frames;
        Document {
            schema: SCHEMA,
            name: name.to_string(),
            exporter: format!("pomp report {}", env!("CARGO_PKG_VERSION")),
            active_profile_index: 0,
            shared: Shared {
                frames: (0..frames.names.len())
                    .map(|i| Frame {
                        name: frames.names[i].clone(),
                        file: frames.files[i].clone(),
                        line: frames.lines[i],
                    })
                    .collect(),
            },
            profiles: self.profiles,
        }
    }
}

fn evented(thread: spans::ThreadSpans) -> Profile {
    let mut events = Vec::with_capacity(thread.spans.len() * 2);
    let mut open: Vec<(u64, u32)> = Vec::new();
    let close_until = |open: &mut Vec<(u64, u32)>, events: &mut Vec<FrameEvent>, time: u64| {
        while let Some(&(end, frame)) = open.last() {
            if end > time {
                break;
            }
            events.push(FrameEvent {
                kind: "C",
                at: end,
                frame,
            });
            open.pop();
        }
    };
    for span in &thread.spans {
        close_until(&mut open, &mut events, span.start_ns);
        events.push(FrameEvent {
            kind: "O",
            at: span.start_ns,
            frame: span.frame,
        });
        open.push((span.end_ns, span.frame));
    }
    close_until(&mut open, &mut events, u64::MAX);
    Profile::Evented {
        name: thread.name,
        unit: "nanoseconds",
        start_value: thread.spans.first().map_or(0, |s| s.start_ns),
        end_value: events.last().map_or(0, |e| e.at),
        events,
    }
}

fn sampled(
    name: String,
    root: &Node,
    run: usize,
    catalog: &Catalog,
    frames: &mut Frames,
) -> Profile {
    let mut samples = Vec::new();
    let mut weights = Vec::new();
    fn walk(
        node: &Node,
        stack: &mut Vec<u32>,
        run: usize,
        catalog: &Catalog,
        frames: &mut Frames,
        out: (&mut Vec<Vec<u32>>, &mut Vec<u64>),
    ) {
        let (samples, weights) = out;
        stack.push(frames.frame(catalog, catalog.find(run, node.region), node.kind));
        if node.exclusive_ns > 0 {
            samples.push(stack.clone());
            weights.push(node.exclusive_ns);
        }
        for child in &node.children {
            walk(
                child,
                stack,
                run,
                catalog,
                frames,
                (&mut *samples, &mut *weights),
            );
        }
        stack.pop();
    }
    let mut stack = Vec::new();
    for child in &root.children {
        walk(
            child,
            &mut stack,
            run,
            catalog,
            frames,
            (&mut samples, &mut weights),
        );
    }
    Profile::Sampled {
        name,
        unit: "nanoseconds",
        start_value: 0,
        end_value: weights.iter().sum(),
        samples,
        weights,
    }
}

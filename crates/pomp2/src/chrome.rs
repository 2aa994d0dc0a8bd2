//! The runtime's trace ([`crate::trace`]) as Chrome trace-event JSON
//! (`pomp report --chrome`), which Perfetto and chrome://tracing open,
//! with pomp's own fields where the format leaves room. Each visit of a region is one complete (`"X"`) event on the
//! thread (`tid`) with the thread's number in the profile; a metadata
//! (`"M"`) event names each thread.

use crate::identity::ChromeHeader;
pub use crate::identity::{CHROME_VERSION as VERSION, TRACE_FORMAT as FORMAT};
use crate::profile::{Kind, RegionId};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::path::Path;

/// The whole document. Writers with many events stream them instead:
/// [`TraceInfo`] and each [`Event`] serialize on their own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// `"ns"`: how viewers display times (`ts` and `dur` are microseconds).
    #[serde(rename = "displayTimeUnit")]
    pub display_time_unit: String,
    #[serde(rename = "otherData")]
    pub info: TraceInfo,
    #[serde(rename = "traceEvents")]
    pub events: Vec<Event<'static>>,
}

/// pomp's description of the trace (the format's `otherData`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceInfo {
    /// Always [`FORMAT`].
    pub format: String,
    pub version: u32,
    pub producer: String,
    /// Complete events stored.
    pub events: u64,
    /// Events left out once `trace_limit` was reached.
    pub dropped_events: u64,
    pub trace_limit: u64,
    /// Says that the trace is incomplete, when it is.
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "ph")]
pub enum Event<'a> {
    #[serde(rename = "X")]
    Complete(Span<'a>),
    #[serde(rename = "M")]
    Metadata(Metadata<'a>),
}

/// One visit of a region on one thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Span<'a> {
    /// The node's label (see [`crate::profile::kind_label`]).
    pub name: Cow<'a, str>,
    pub cat: Kind,
    /// Start, in microseconds since the runtime started.
    pub ts: f64,
    /// Duration in microseconds.
    pub dur: f64,
    pub pid: u32,
    pub tid: u32,
    pub args: SpanArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpanArgs {
    /// The profile's region id; `None` for events without a region.
    pub region: Option<RegionId>,
    /// The task the thread was executing: for a task instance the
    /// instance, for a task's creation the task created.
    pub task: i64,
}

/// Names a thread: `name` is `"thread_name"`, `args.name` the name shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata<'a> {
    pub name: Cow<'a, str>,
    pub pid: u32,
    pub tid: u32,
    pub args: MetadataArgs<'a>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetadataArgs<'a> {
    pub name: Cow<'a, str>,
}

impl<'a> Metadata<'a> {
    /// The event that names thread `tid` in viewers.
    pub fn thread_name(pid: u32, tid: u32) -> Self {
        Metadata {
            name: Cow::Borrowed("thread_name"),
            pid,
            tid,
            args: MetadataArgs {
                name: Cow::Owned(format!("thread {tid}")),
            },
        }
    }
}

/// Why a file could not be read as a trace.
pub type Error = crate::document::Error;

impl crate::document::Document for Trace {
    const NAME: &'static str = "pomp trace";
    type Header = ChromeHeader;

    fn identify(header: &ChromeHeader) -> crate::document::Identity {
        header.identify()
    }
}

/// Reads a trace written by pomp's runtime.
pub fn read(path: impl AsRef<Path>) -> Result<Trace, Error> {
    crate::document::read(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_read_back_as_written() {
        let trace = Trace {
            display_time_unit: "ns".into(),
            info: TraceInfo {
                format: FORMAT.into(),
                version: VERSION,
                producer: "pomp-runtime".into(),
                events: 1,
                dropped_events: 0,
                trace_limit: 10,
                note: None,
            },
            events: vec![
                Event::Metadata(Metadata::thread_name(7, 0)),
                Event::Complete(Span {
                    name: "implicit barrier of parallel in main (a.c:3)".into(),
                    cat: Kind::ImplicitBarrier,
                    ts: 1.5,
                    dur: 0.25,
                    pid: 7,
                    tid: 0,
                    args: SpanArgs {
                        region: Some(1),
                        task: 1 << 40,
                    },
                }),
            ],
        };
        let text = serde_json::to_string(&trace).unwrap();
        assert!(text.contains(r#""ph":"X""#), "{text}");
        assert!(text.contains(r#""ph":"M""#), "{text}");
        assert!(text.contains(r#""cat":"implicit_barrier""#), "{text}");
        let dir = std::env::temp_dir().join(format!("pomp2-trace-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.json");
        std::fs::write(&path, &text).unwrap();
        assert_eq!(read(&path).unwrap(), trace);
        std::fs::write(&path, text.replace("pomp-trace", "other")).unwrap();
        assert!(matches!(read(&path).unwrap_err(), Error::Foreign { .. }));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

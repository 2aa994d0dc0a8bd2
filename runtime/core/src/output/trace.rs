//! Writing the Chrome trace that `POMP_TRACE=1` asks for, one event at a
//! time: it may hold millions.

use super::files::write_atomically;
use crate::regions::{RegionId, NO_REGION};
use crate::state::ThreadState;
use crate::thread::ThreadData;
use pomp2::profile::{kind_label, Kind, Region, TraceSummary};
use pomp2::trace::{Event, Metadata, Span, SpanArgs, TraceInfo, FORMAT, VERSION};
use std::collections::BTreeMap;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::Path;

pub fn write(
    path: &Path,
    states: &[(&ThreadData, &ThreadState)],
    regions: &[Region],
    pid: u32,
) -> TraceSummary {
    let events: u64 = states
        .iter()
        .map(|(_, s)| s.trace.records.len() as u64)
        .sum();
    let dropped: u64 = states.iter().map(|(_, s)| s.trace.dropped).sum();
    let limit = crate::config().trace_limit;
    let note = (dropped > 0).then(|| {
        format!(
            "POMP_TRACE_LIMIT={limit} reached: {dropped} events were dropped; the trace is incomplete"
        )
    });
    let info = TraceInfo {
        format: FORMAT.to_string(),
        version: VERSION,
        producer: "pomp-runtime".to_string(),
        events,
        dropped_events: dropped,
        trace_limit: limit,
        note: note.clone(),
    };
    let region = |id: RegionId| (id as usize).checked_sub(1).and_then(|i| regions.get(i));
    let result = write_atomically(path, |out| {
        out.write_all(b"{\"displayTimeUnit\":\"ns\",\"otherData\":")?;
        serde_json::to_writer(&mut *out, &info)?;
        out.write_all(b",\"traceEvents\":[")?;
        let mut first = true;
        let mut event = |out: &mut BufWriter<fs::File>, event: &Event| -> io::Result<()> {
            if !first {
                out.write_all(b",\n")?;
            }
            first = false;
            serde_json::to_writer(&mut *out, event).map_err(io::Error::from)
        };
        for (data, state) in states {
            event(
                out,
                &Event::Metadata(Metadata::thread_name(pid, data.index)),
            )?;
            let mut labels: BTreeMap<(RegionId, Kind), String> = BTreeMap::new();
            for record in &state.trace.records {
                let label = labels
                    .entry((record.region, record.kind))
                    .or_insert_with(|| kind_label(record.kind, region(record.region)));
                let span = Span {
                    name: label.as_str().into(),
                    cat: record.kind,
                    ts: record.start_ns as f64 / 1e3,
                    dur: record.duration_ns as f64 / 1e3,
                    pid,
                    tid: data.index,
                    args: SpanArgs {
                        region: (record.region != NO_REGION).then_some(record.region),
                        task: record.task,
                    },
                };
                event(out, &Event::Complete(span))?;
            }
        }
        out.write_all(b"]}\n")
    });
    if let Some(note) = &note {
        super::warn(format_args!("pomp: {note}"));
    }
    if let Err(err) = &result {
        super::warn(format_args!(
            "pomp: cannot write trace {}: {err}",
            path.display()
        ));
    }
    TraceSummary {
        path: path.display().to_string(),
        written: result.is_ok(),
        events,
        dropped_events: dropped,
    }
}

//! The runtime's trace as Chrome trace-event JSON (`pomp2::chrome`): a
//! complete (`X`) event per span, named by the node's label, and a
//! metadata event naming each thread. Written as it is made: a trace may
//! hold millions of spans.

use pomp2::chrome::{Event, Metadata, Span, SpanArgs, TraceInfo, FORMAT, VERSION};
use pomp2::profile::{kind_label, Kind, RegionId};
use pomp2::trace::Trace;
use std::collections::HashMap;
use std::io::{self, Write};

pub fn write(trace: &Trace, out: &mut dyn Write) -> io::Result<()> {
    let footer = &trace.footer;
    let note = (footer.dropped_events > 0).then(|| {
        format!(
            "POMP_TRACE_LIMIT={} reached: {} events were dropped; the trace is incomplete",
            footer.trace_limit, footer.dropped_events
        )
    });
    let info = TraceInfo {
        format: FORMAT.to_string(),
        version: VERSION,
        producer: footer.producer.clone(),
        events: trace.span_count() as u64,
        dropped_events: footer.dropped_events,
        trace_limit: footer.trace_limit,
        note,
    };
    out.write_all(b"{\"displayTimeUnit\":\"ns\",\"otherData\":")?;
    serde_json::to_writer(&mut *out, &info)?;
    out.write_all(b",\"traceEvents\":[")?;
    let mut first = true;
    let mut event = |out: &mut dyn Write, event: &Event| -> io::Result<()> {
        if !first {
            out.write_all(b",\n")?;
        }
        first = false;
        serde_json::to_writer(out, event).map_err(io::Error::from)
    };
    let mut labels: HashMap<(RegionId, Kind), String> = HashMap::new();
    let pid = footer.pid;
    for (&thread, spans) in &trace.threads {
        event(out, &Event::Metadata(Metadata::thread_name(pid, thread)))?;
        for span in spans {
            let label = labels
                .entry((span.region, span.kind))
                .or_insert_with(|| kind_label(span.kind, trace.region(span.region)));
            let complete = Span {
                name: label.as_str().into(),
                cat: span.kind,
                ts: span.start as f64 / 1e3,
                dur: span.duration as f64 / 1e3,
                pid,
                tid: thread,
                args: SpanArgs {
                    region: (span.region != 0).then_some(span.region),
                    task: span.task,
                },
            };
            event(out, &Event::Complete(complete))?;
        }
    }
    out.write_all(b"]}\n")
}

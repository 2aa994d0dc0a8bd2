//! Writing the profile, the stderr summary and the trace, once, at
//! `POMP2_Finalize` or at exit, whichever comes first.

use crate::clock;
use crate::ctc::RegionInfo;
use crate::kind::Kind;
use crate::regions::{self, RegionId, NO_REGION};
use crate::thread::{self, Breakdown, NodeIndex, ThreadData, ThreadState, ROOT};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How long to wait for a thread to finish the event it is recording. Only
/// a program that exits while other threads still run can make us wait.
const IDLE_WAIT: Duration = Duration::from_secs(2);

const SUMMARY_ROWS: usize = 5;

/// Like `eprintln!`, but a failing stderr (a closed pipe) is ignored rather
/// than a panic: this runs at exit, inside the instrumented program.
macro_rules! warn {
    ($($arg:tt)*) => {{
        let _ = writeln!(io::stderr(), $($arg)*);
    }};
}

pub fn finish() {
    if !crate::freeze() {
        return;
    }
    let now = clock::now();
    let mut threads = Vec::new();
    let mut incomplete = Vec::new();
    let deadline = Instant::now() + IDLE_WAIT;
    for data in thread::all() {
        if !data.live.load(Ordering::Relaxed) {
            continue;
        }
        if wait_until_idle(data, deadline) {
            threads.push(data);
        } else {
            incomplete.push(data.index);
        }
    }
    let states: Vec<(&ThreadData, &mut ThreadState)> = threads
        .iter()
        .map(|data| (*data, unsafe { data.state() }))
        .collect();
    if crate::is_forked_child() && states.iter().all(|(_, s)| s.events == 0) {
        // A fork child that recorded nothing has nothing to report; the
        // parent's data is the parent's to write.
        return;
    }
    let mut states = states;
    for (_, state) in states.iter_mut() {
        state.pop_all(now);
    }
    let scale = clock::Scale::measure();
    for (_, state) in states.iter_mut() {
        state.rescale(&scale);
    }
    let wall_ns = scale.since_start_ns(now);
    let states: Vec<(&ThreadData, &ThreadState)> =
        states.into_iter().map(|(d, s)| (d, &*s)).collect();

    let pid = std::process::id();
    let config = crate::config();
    let profile_path = output_path(config.profile_path.as_deref(), "pomp-profile", pid);
    let region_table = regions::snapshot();

    let trace_report = if config.trace {
        let trace_path = profile_path
            .parent()
            .unwrap_or(Path::new(""))
            .join(output_path(None, "pomp-trace", pid));
        Some(write_trace(&trace_path, &states, &region_table, pid))
    } else {
        None
    };

    let profile = build_profile(
        &states,
        &region_table,
        &incomplete,
        wall_ns,
        pid,
        &trace_report,
    );
    let written = write_atomically(&profile_path, |out| {
        serde_json::to_writer(&mut *out, &profile).map_err(io::Error::from)
    });
    if let Err(err) = &written {
        warn!(
            "pomp: cannot write profile {}: {err}",
            profile_path.display()
        );
    }
    if config.summary {
        print_summary(
            &states,
            &region_table,
            &profile_path,
            written.is_ok(),
            wall_ns,
        );
    }
}

fn wait_until_idle(data: &ThreadData, deadline: Instant) -> bool {
    while data.busy.load(Ordering::SeqCst) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::yield_now();
    }
    true
}

/// `<stem>.<pid>.json`, or the configured path; an MPI rank goes in front of
/// the extension so that ranks sharing a directory never collide.
fn output_path(configured: Option<&str>, stem: &str, pid: u32) -> PathBuf {
    let rank = crate::config().rank.as_deref();
    match (configured, rank) {
        (Some(path), None) => PathBuf::from(path),
        (Some(path), Some(rank)) => {
            let path = Path::new(path);
            let name = match (path.file_stem(), path.extension()) {
                (Some(stem), Some(ext)) => format!(
                    "{}.rank{rank}.{}",
                    stem.to_string_lossy(),
                    ext.to_string_lossy()
                ),
                _ => format!("{}.rank{rank}", path.display()),
            };
            path.with_file_name(name)
        }
        (None, Some(rank)) => PathBuf::from(format!("{stem}.rank{rank}.{pid}.json")),
        (None, None) => PathBuf::from(format!("{stem}.{pid}.json")),
    }
}

/// Writes to a temporary file beside `path` and renames it, so a reader
/// never sees half a profile and a failure leaves no debris. A path that
/// names something other than a regular file (`/dev/stdout`, a pipe) is
/// written in place: renaming over it would replace the device.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<fs::File>) -> io::Result<()>,
) -> io::Result<()> {
    let target = if fs::symlink_metadata(path).is_err() {
        path.to_path_buf()
    } else {
        match (fs::metadata(path), fs::canonicalize(path)) {
            (Ok(metadata), Ok(real)) if metadata.is_file() => real,
            (metadata, _) => {
                let regular = metadata.is_ok_and(|m| m.is_file());
                let file = fs::OpenOptions::new()
                    .write(true)
                    .truncate(regular)
                    .open(path)?;
                let mut out = BufWriter::new(file);
                write(&mut out)?;
                return out.flush();
            }
        }
    };
    let mut temporary = target.as_os_str().to_owned();
    temporary.push(format!(".tmp{}", std::process::id()));
    let temporary = PathBuf::from(temporary);
    let result = (|| {
        let mut out = BufWriter::new(fs::File::create(&temporary)?);
        write(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        fs::rename(&temporary, &target)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}

fn region_json(id: RegionId) -> Value {
    if id == NO_REGION {
        Value::Null
    } else {
        json!(id)
    }
}

fn node_json(
    state: &ThreadState,
    children: &BTreeMap<NodeIndex, Vec<NodeIndex>>,
    index: NodeIndex,
) -> Value {
    let node = &state.nodes[index as usize];
    let (inclusive, exclusive) = if index == ROOT {
        (node.children_ns, 0)
    } else {
        (node.inclusive_ns, node.exclusive_ns())
    };
    let mut object = Map::new();
    object.insert("region".into(), region_json(node.region));
    object.insert("kind".into(), json!(node.kind.name()));
    object.insert("visits".into(), json!(node.visits));
    object.insert("inclusive_ns".into(), json!(inclusive));
    object.insert("exclusive_ns".into(), json!(exclusive));
    if node.wait_ns > 0 {
        object.insert("wait_ns".into(), json!(node.wait_ns));
    }
    let kids: Vec<Value> = children
        .get(&index)
        .map(|list| {
            list.iter()
                .map(|&c| node_json(state, children, c))
                .collect()
        })
        .unwrap_or_default();
    object.insert("children".into(), Value::Array(kids));
    Value::Object(object)
}

fn child_lists(state: &ThreadState) -> BTreeMap<NodeIndex, Vec<NodeIndex>> {
    let mut lists: BTreeMap<NodeIndex, Vec<NodeIndex>> = BTreeMap::new();
    for (index, node) in state.nodes.iter().enumerate().skip(1) {
        lists
            .entry(node.parent)
            .or_default()
            .push(index as NodeIndex);
    }
    lists
}

fn breakdown_json(b: &Breakdown) -> Value {
    json!({
        "implicit_barrier_ns": b.implicit_barrier_ns,
        "barrier_ns": b.barrier_ns,
        "taskwait_ns": b.taskwait_ns,
        "critical_wait_ns": b.critical_wait_ns,
        "ordered_wait_ns": b.ordered_wait_ns,
        "lock_wait_ns": b.lock_wait_ns,
        "fork_ns": b.fork_ns,
        "join_ns": b.join_ns,
        "task_create_ns": b.task_create_ns,
        "task_execution_ns": b.task_execution_ns,
    })
}

/// Per (region, kind) totals over all threads, with the spread between
/// threads that load-imbalance analysis needs.
#[derive(Default)]
struct RegionTotals {
    visits: u64,
    inclusive_ns: u64,
    exclusive_ns: u64,
    per_thread_inclusive: BTreeMap<u32, u64>,
}

fn region_totals(
    states: &[(&ThreadData, &ThreadState)],
) -> BTreeMap<(RegionId, Kind), RegionTotals> {
    let mut totals: BTreeMap<(RegionId, Kind), RegionTotals> = BTreeMap::new();
    for (data, state) in states {
        for node in state.nodes.iter().skip(1) {
            let entry = totals.entry((node.region, node.kind)).or_default();
            entry.visits += node.visits;
            entry.inclusive_ns += node.inclusive_ns;
            entry.exclusive_ns += node.exclusive_ns();
            *entry.per_thread_inclusive.entry(data.index).or_default() += node.inclusive_ns;
        }
    }
    totals
}

fn region_table_json(table: &[RegionInfo]) -> Value {
    let regions: Vec<Value> = table
        .iter()
        .enumerate()
        .map(|(index, info)| {
            let attributes: Map<String, Value> = info
                .attributes
                .iter()
                .map(|(k, v)| (k.clone(), json!(v)))
                .collect();
            json!({
                "id": index + 1,
                "type": info.region_type,
                "file": info.start.as_ref().map(|s| s.file.clone()),
                "first_line": info.start.as_ref().map(|s| s.first_line),
                "last_line": info.start.as_ref().map(|s| s.last_line),
                "end_first_line": info.end.as_ref().map(|s| s.first_line),
                "end_last_line": info.end.as_ref().map(|s| s.last_line),
                "name": info.name,
                "idf_id": info.idf_id,
                "attributes": attributes,
                "malformed_ctc": info.malformed,
            })
        })
        .collect();
    Value::Array(regions)
}

fn build_profile(
    states: &[(&ThreadData, &ThreadState)],
    region_table: &[RegionInfo],
    incomplete: &[u32],
    wall_ns: u64,
    pid: u32,
    trace: &Option<TraceReport>,
) -> Value {
    let mut total_breakdown = Breakdown::default();
    let mut threads = Vec::new();
    for (data, state) in states {
        total_breakdown.add(&state.breakdown);
        let children = child_lists(state);
        let covered = state.nodes[ROOT as usize].children_ns;
        let waiting = state.breakdown.waiting_ns();
        threads.push(json!({
            "thread": data.index,
            "os_tid": data.os_tid,
            "events": state.events,
            "unmatched_ends": state.unmatched_ends,
            "frames_beyond_depth_limit": state.frames_beyond_depth_limit,
            "totals": {
                "measured_ns": covered,
                "waiting_ns": waiting,
                "work_ns": covered.saturating_sub(waiting),
            },
            "breakdown": breakdown_json(&state.breakdown),
            "tree": node_json(state, &children, ROOT),
        }));
    }

    let totals = region_totals(states);
    let thread_count = states.len().max(1) as u64;
    let mut summary: Vec<Value> = totals
        .iter()
        .map(|((region, kind), t)| {
            let values: Vec<u64> = t.per_thread_inclusive.values().copied().collect();
            let max = values.iter().copied().max().unwrap_or(0);
            let min = values.iter().copied().min().unwrap_or(0);
            json!({
                "region": region_json(*region),
                "kind": kind.name(),
                "visits": t.visits,
                "inclusive_ns": t.inclusive_ns,
                "exclusive_ns": t.exclusive_ns,
                "threads": values.len(),
                "min_thread_inclusive_ns": min,
                "max_thread_inclusive_ns": max,
                "mean_thread_inclusive_ns": t.inclusive_ns / values.len().max(1) as u64,
            })
        })
        .collect();
    summary.sort_by_key(|v| std::cmp::Reverse(v["inclusive_ns"].as_u64().unwrap_or(0)));

    let mut relations: BTreeMap<(RegionId, RegionId), u64> = BTreeMap::new();
    let mut created = 0;
    for (_, state) in states {
        created += state.tasks_created;
        for relation in &state.task_relations {
            *relations
                .entry((relation.parent_region, relation.child_region))
                .or_default() += relation.count;
        }
    }
    let mut created_per_region: BTreeMap<RegionId, u64> = BTreeMap::new();
    for ((_, child), count) in &relations {
        *created_per_region.entry(*child).or_default() += count;
    }
    let mut task_regions: BTreeMap<RegionId, (u64, u64, u64)> = BTreeMap::new();
    for ((region, kind), t) in &totals {
        if kind.is_task() {
            let entry = task_regions.entry(*region).or_default();
            entry.0 += t.visits;
            entry.1 += t.inclusive_ns;
            entry.2 += t.exclusive_ns;
        }
    }
    for region in created_per_region.keys() {
        task_regions.entry(*region).or_default();
    }
    let executed: u64 = task_regions.values().map(|t| t.0).sum();
    let tasks = json!({
        "created": created,
        "executed": executed,
        "per_region": task_regions.iter().map(|(region, (visits, incl, excl))| json!({
            "region": region,
            "created": created_per_region.get(region).copied().unwrap_or(0),
            "executed": visits,
            "inclusive_ns": incl,
            "exclusive_ns": excl,
            "mean_ns": incl / (*visits).max(1),
        })).collect::<Vec<_>>(),
        "relations": relations.iter().map(|((parent, child), count)| json!({
            "parent_region": region_json(*parent),
            "child_region": child,
            "count": count,
        })).collect::<Vec<_>>(),
    });

    json!({
        "format": "pomp-profile",
        "version": 1,
        "pid": pid,
        "rank": crate::config().rank,
        "opari2_version": crate::opari2_version(),
        "declared_regions": crate::declared_region_count(),
        "wall_ns": wall_ns,
        "thread_count": thread_count,
        "incomplete_threads": incomplete,
        "regions": region_table_json(region_table),
        "breakdown": breakdown_json(&total_breakdown),
        "region_summary": summary,
        "tasks": tasks,
        "threads": threads,
        "trace": trace.as_ref().map(|t| json!({
            "path": t.path.display().to_string(),
            "written": t.written,
            "events": t.events,
            "dropped_events": t.dropped,
        })),
    })
}

fn region_label(table: &[RegionInfo], region: RegionId, kind: Kind) -> String {
    let Some(info) = (region as usize).checked_sub(1).and_then(|i| table.get(i)) else {
        return kind.name().to_string();
    };
    let mut label = kind.name().to_string();
    if let Some(name) = &info.name {
        label.push_str(&format!(" ({name})"));
    }
    if let Some(start) = &info.start {
        let end = info.end.as_ref().map_or(start.last_line, |e| e.last_line);
        label.push_str(&format!(" {}:{}-{}", start.file, start.first_line, end));
    }
    label
}

fn millis(ns: u64) -> String {
    format!("{:.3} ms", ns as f64 / 1e6)
}

fn print_summary(
    states: &[(&ThreadData, &ThreadState)],
    table: &[RegionInfo],
    profile_path: &Path,
    written: bool,
    wall_ns: u64,
) {
    let mut rows: Vec<((RegionId, Kind), RegionTotals)> =
        region_totals(states).into_iter().collect();
    rows.sort_by_key(|(_, t)| std::cmp::Reverse(t.inclusive_ns));
    let mut breakdown = Breakdown::default();
    for (_, state) in states {
        breakdown.add(&state.breakdown);
    }
    let mut text = format!(
        "pomp: {} threads, {} regions, {} wall; profile {}{}\n",
        states.len(),
        table.len(),
        millis(wall_ns),
        profile_path.display(),
        if written { "" } else { " (NOT written)" }
    );
    text.push_str("pomp:   inclusive(all threads)     visits  region\n");
    for ((region, kind), t) in rows.iter().take(SUMMARY_ROWS) {
        text.push_str(&format!(
            "pomp: {:>16} {:>14}  {}\n",
            millis(t.inclusive_ns),
            t.visits,
            region_label(table, *region, *kind)
        ));
    }
    text.push_str(&format!(
        "pomp: waiting: implicit barrier {}, barrier {}, critical {}, lock {}, taskwait {}; fork {}, join {}\n",
        millis(breakdown.implicit_barrier_ns),
        millis(breakdown.barrier_ns),
        millis(breakdown.critical_wait_ns),
        millis(breakdown.lock_wait_ns),
        millis(breakdown.taskwait_ns),
        millis(breakdown.fork_ns),
        millis(breakdown.join_ns),
    ));
    let _ = io::stderr().write_all(text.as_bytes());
}

pub struct TraceReport {
    path: PathBuf,
    written: bool,
    events: u64,
    dropped: u64,
}

fn write_trace(
    path: &Path,
    states: &[(&ThreadData, &ThreadState)],
    table: &[RegionInfo],
    pid: u32,
) -> TraceReport {
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
    let result = write_atomically(path, |out| {
        out.write_all(b"{\"displayTimeUnit\":\"ns\",\"otherData\":")?;
        serde_json::to_writer(
            &mut *out,
            &json!({
                "producer": "pomp-runtime",
                "events": events,
                "dropped_events": dropped,
                "trace_limit": limit,
                "note": note,
            }),
        )?;
        out.write_all(b",\"traceEvents\":[")?;
        let mut first = true;
        let mut separator = |out: &mut BufWriter<fs::File>| -> io::Result<()> {
            if !first {
                out.write_all(b",\n")?;
            }
            first = false;
            Ok(())
        };
        for (data, state) in states {
            separator(out)?;
            serde_json::to_writer(
                &mut *out,
                &json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": data.index,
                        "args": {"name": format!("thread {}", data.index)}}),
            )?;
            let mut labels: BTreeMap<(RegionId, Kind), String> = BTreeMap::new();
            for record in &state.trace.records {
                let label = labels
                    .entry((record.region, record.kind))
                    .or_insert_with(|| region_label(table, record.region, record.kind));
                separator(out)?;
                serde_json::to_writer(
                    &mut *out,
                    &json!({
                        "name": label,
                        "cat": record.kind.name(),
                        "ph": "X",
                        "ts": record.start_ns as f64 / 1e3,
                        "dur": record.duration_ns as f64 / 1e3,
                        "pid": pid,
                        "tid": data.index,
                        "args": {"region": region_json(record.region), "task": record.task},
                    }),
                )?;
            }
        }
        out.write_all(b"]}\n")
    });
    if let Some(note) = &note {
        warn!("pomp: {note}");
    }
    if let Err(err) = &result {
        warn!("pomp: cannot write trace {}: {err}", path.display());
    }
    TraceReport {
        path: path.to_path_buf(),
        written: result.is_ok(),
        events,
        dropped,
    }
}

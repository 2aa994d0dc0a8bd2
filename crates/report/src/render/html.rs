//! One self-contained HTML page: the tables, the overhead breakdown as a
//! chart, the flame graph and, when a trace exists, each thread's timeline.
//! Everything is inline (styles, script, SVG, data); the page loads nothing.
//!
//! Tables and charts are written here, so the page reads without script;
//! the script (`page.js`) adds sorting, filtering, flame-graph details and
//! draws the timelines from the data embedded in the page. It records
//! script errors on `<body data-errors>`, and what it drew on
//! `<body data-rendered>`, so that a browser run can check the page.

use super::spans::{self, Frames, ThreadSpans};
use super::table::{count, duration, percent, signed_duration, threads};
use crate::analysis::diff::{Change, Diff};
use crate::analysis::overhead::Class;
use crate::analysis::regions::TreeNode;
use crate::analysis::{Report, Spread};
use crate::join::Catalog;
use crate::load::Run;
use pomp2::profile::Kind;
use serde::Serialize;
use std::fmt::Write as _;

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// Timelines beyond this many visits keep only the longest ones: a page
/// must stay small enough for a browser to open.
const MAX_SPANS: usize = 250_000;

/// Text and attribute values: `&`, `<`, `>`, `"` and `'` escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// How a frame is coloured in the timelines.
fn class_of(kind: Kind) -> &'static str {
    match kind {
        Kind::Parallel | Kind::Teams | Kind::Target => "parallel",
        Kind::Barrier
        | Kind::ImplicitBarrier
        | Kind::Taskwait
        | Kind::SetLock
        | Kind::SetNestLock
        | Kind::TestLock
        | Kind::TestNestLock => "sync",
        Kind::TaskCreate | Kind::UntiedTaskCreate => "control",
        Kind::Task | Kind::UntiedTask => "task",
        Kind::UserRegion => "user",
        _ => "work",
    }
}

fn open(out: &mut String, title: &str) {
    let title = escape(title);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n\
         <script>window.pompErrors=[];\
         window.addEventListener('error',function(e){{window.pompErrors.push(String(e.message));\
         if(document.body)document.body.setAttribute('data-errors',String(window.pompErrors.length));}});\
         window.addEventListener('unhandledrejection',function(e){{window.pompErrors.push(String(e.reason));\
         if(document.body)document.body.setAttribute('data-errors',String(window.pompErrors.length));}});</script>\n\
         <style>\n{STYLE}</style>\n</head>\n<body>\n<header><h1>{title}</h1>\n"
    );
}

fn close(out: &mut String) {
    let _ = write!(
        out,
        "<footer>pomp report {}</footer>\n<script>\n{SCRIPT}</script>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    );
}

/// A share as HTML text: small ones read `<0.1%`.
fn share_text(share: f64) -> String {
    escape(&percent(share))
}

/// A numeric table cell that sorts by its value.
fn num(value: impl std::fmt::Display, text: &str) -> String {
    format!(
        "<td class=\"num\" data-value=\"{value}\">{}</td>",
        escape(text)
    )
}

fn time_cell(spread: &Spread, several: bool) -> String {
    let mut text = duration(spread.mean);
    if several && spread.varies() {
        text = format!("{text} ({}–{})", duration(spread.min), duration(spread.max));
    }
    num(spread.mean, &text)
}

fn count_cell(spread: &Spread) -> String {
    num(spread.mean, &count(spread.mean))
}

fn share_cell(share: f64) -> String {
    num(share, &percent(share))
}

/// A share of time lost to overheads, highlighted when large.
fn cost_cell(share: f64) -> String {
    let level = if share >= 0.25 {
        " high"
    } else if share >= 0.10 {
        " notable"
    } else {
        ""
    };
    format!(
        "<td class=\"num{level}\" data-value=\"{share}\">{}</td>",
        share_text(share)
    )
}

fn text_cell(text: &str) -> String {
    format!("<td>{}</td>", escape(text))
}

fn table_head(out: &mut String, id: &str, headers: &[(&str, bool)]) {
    let _ = write!(out, "<table class=\"sortable\" id=\"{id}\"><thead><tr>");
    for (header, numeric) in headers {
        let class = if *numeric { " class=\"num\"" } else { "" };
        let _ = write!(out, "<th{class}>{}</th>", escape(header));
    }
    out.push_str("</tr></thead><tbody>\n");
}

fn table_end(out: &mut String) {
    out.push_str("</tbody></table>\n");
}

pub fn page(report: &Report, runs: &[Run], catalog: &Catalog, flame_svg: &str) -> String {
    let mut out = String::new();
    let several = report.profiles.len() > 1;
    let title = match report.profiles.as_slice() {
        [profile] => format!("pomp report: {}", profile.path),
        profiles => format!("pomp report: {} profiles", profiles.len()),
    };
    open(&mut out, &title);
    summary(&mut out, report);
    out.push_str("<nav><a href=\"#overheads\">Overheads</a> <a href=\"#where\">Regions</a> <a href=\"#flamegraph\">Flame graph</a> <a href=\"#paths\">Call paths</a>");
    if !report.imbalance.is_empty() {
        out.push_str(" <a href=\"#imbalance\">Imbalance</a>");
    }
    if !report.tasks.constructs.is_empty() {
        out.push_str(" <a href=\"#tasks\">Tasks</a>");
    }
    out.push_str(" <a href=\"#timelines\">Timelines</a></nav>\n</header>\n<main>\n");
    notes(&mut out, &report.notes);
    overheads(&mut out, report, several);
    baseline(&mut out, report);
    regions(&mut out, report, several);
    flame(&mut out, flame_svg, "Flame graph", "Each frame is a region (or a part of one) on a call path, as wide as its time summed over threads; frames above it ran inside it. Hover for details, click to zoom in.");
    tree(&mut out, report);
    imbalance(&mut out, report);
    tasks(&mut out, report, several);
    timelines(&mut out, runs, catalog);
    out.push_str("</main>\n");
    close(&mut out);
    out
}

fn summary(out: &mut String, report: &Report) {
    out.push_str("<dl class=\"summary\">");
    let mut item = |term: &str, value: String| {
        let _ = write!(
            out,
            "<div><dt>{}</dt><dd>{}</dd></div>",
            escape(term),
            escape(&value)
        );
    };
    item("profiles", report.profiles.len().to_string());
    item("threads", report.threads.mean.to_string());
    item("wall time", duration(report.wall_ns.mean));
    item("thread time", duration(report.thread_time_ns.mean));
    item("regions", report.regions.len().to_string());
    item("work", percent(report.overheads.class(Class::Work).share));
    out.push_str("</dl>\n");
    if report.profiles.len() > 1 {
        out.push_str("<p class=\"explain\">Figures are means over the profiles; ranges in brackets where they differ.</p>\n<ul class=\"profiles\">");
        for profile in &report.profiles {
            let _ = write!(
                out,
                "<li>{}{}: {}, {} wall</li>",
                profile
                    .rank
                    .as_ref()
                    .map(|r| format!("rank {} · ", escape(r)))
                    .unwrap_or_default(),
                escape(&profile.path),
                threads(profile.threads),
                duration(profile.wall_ns)
            );
        }
        out.push_str("</ul>\n");
    }
}

fn notes(out: &mut String, notes: &[String]) {
    if notes.is_empty() {
        return;
    }
    out.push_str("<section class=\"notes\"><h2>Notes</h2><ul>");
    for note in notes {
        let _ = write!(out, "<li>{}</li>", escape(note));
    }
    out.push_str("</ul></section>\n");
}

const CLASS_COLOURS: [(Class, &str, &str); 4] = [
    (Class::Control, "control", "#b07aa1"),
    (Class::Synchronisation, "sync", "#e15759"),
    (Class::LossOfParallelism, "loss", "#edc948"),
    (Class::Work, "work", "#59a14f"),
];

fn overheads(out: &mut String, report: &Report, several: bool) {
    out.push_str("<section id=\"overheads\"><h2>Overheads</h2>\n<p class=\"explain\">After SCALEA: of the thread time the run had (wall time × threads), what went to controlling parallelism (fork, join, task creation), to synchronisation (barriers, taskwait, waiting for critical sections, ordered and locks), to loss of parallelism (threads idle while others work: serial code, smaller teams), and the rest, which is work.</p>\n");
    // The breakdown as one stacked bar.
    out.push_str("<svg class=\"breakdown\" viewBox=\"0 0 1000 36\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"overhead breakdown\">");
    let mut x = 0.0;
    for (class, _, colour) in CLASS_COLOURS {
        let figures = report.overheads.class(class);
        let width = figures.share * 1000.0;
        let _ = write!(
            out,
            "<rect x=\"{x:.2}\" y=\"0\" width=\"{width:.2}\" height=\"36\" fill=\"{colour}\"><title>{}: {} ({})</title></rect>",
            class.name(),
            duration(figures.ns.mean),
            share_text(figures.share)
        );
        x += width;
    }
    out.push_str("</svg>\n<ul class=\"legend\">");
    for (class, _, colour) in CLASS_COLOURS {
        let figures = report.overheads.class(class);
        let _ = write!(
            out,
            "<li><span class=\"swatch\" style=\"background:{colour}\"></span>{} {} ({})</li>",
            class.name(),
            duration(figures.ns.mean),
            share_text(figures.share)
        );
    }
    out.push_str("</ul>\n");
    table_head(
        out,
        "classes",
        &[
            ("class", false),
            ("time", true),
            ("share", true),
            ("of which", false),
            ("what it counts here, and what reduces it", false),
        ],
    );
    for class in &report.overheads.classes {
        let parts: Vec<String> = class
            .parts
            .iter()
            .filter(|p| p.ns.mean > 0 && class.class != Class::Work)
            .map(|p| format!("{} {}", p.name, duration(p.ns.mean)))
            .collect();
        let _ = writeln!(
            out,
            "<tr>{}{}{}{}{}</tr>",
            text_cell(class.class.name()),
            time_cell(&class.ns, several),
            if class.class == Class::Work {
                share_cell(class.share)
            } else {
                cost_cell(class.share)
            },
            text_cell(&parts.join(", ")),
            text_cell(&class.reading)
        );
    }
    table_end(out);

    let regions: Vec<_> = report
        .region_overheads
        .iter()
        .filter(|r| r.inclusive_ns.mean > 0)
        .collect();
    if !regions.is_empty() {
        out.push_str("<h3>Per region</h3><p class=\"explain\">Each region with what it contains; idle is the thread time other threads were not in a parallel region while it ran.</p>\n");
        let widest = regions
            .iter()
            .map(|r| r.inclusive_ns.mean + r.idle_ns.mean)
            .max()
            .unwrap_or(1)
            .max(1);
        out.push_str("<div class=\"bars\">");
        for region in &regions {
            let parts = [
                ("control", region.control_ns.mean, "#b07aa1"),
                ("sync", region.sync_ns.mean, "#e15759"),
                ("idle", region.idle_ns.mean, "#edc948"),
                ("work", region.work_ns.mean, "#59a14f"),
            ];
            let _ = write!(out, "<div class=\"bar-row\"><span class=\"bar-label\">{}</span><svg class=\"bar\" viewBox=\"0 0 1000 14\" preserveAspectRatio=\"none\">", escape(&region.label));
            let mut x = 0.0;
            for (name, ns, colour) in parts {
                let width = ns as f64 / widest as f64 * 1000.0;
                let _ = write!(
                    out,
                    "<rect x=\"{x:.2}\" y=\"0\" width=\"{width:.2}\" height=\"14\" fill=\"{colour}\"><title>{name}: {}</title></rect>",
                    duration(ns)
                );
                x += width;
            }
            out.push_str("</svg></div>\n");
        }
        out.push_str("</div>\n");
        table_head(
            out,
            "region-overheads",
            &[
                ("inclusive", true),
                ("control", true),
                ("sync", true),
                ("idle", true),
                ("sync share", true),
                ("region", false),
            ],
        );
        for region in regions {
            let _ = writeln!(
                out,
                "<tr>{}{}{}{}{}{}</tr>",
                time_cell(&region.inclusive_ns, several),
                time_cell(&region.control_ns, several),
                time_cell(&region.sync_ns, several),
                time_cell(&region.idle_ns, several),
                cost_cell(region.sync_share),
                text_cell(&region.label)
            );
        }
        table_end(out);
    }
    out.push_str("</section>\n");
}

fn baseline(out: &mut String, report: &Report) {
    let Some(base) = &report.baseline else {
        return;
    };
    let _ = write!(
        out,
        "<section id=\"baseline\"><h2>Compared with {}</h2>\n<p>{}, {} wall. Speed-up <strong>{:.2}</strong> on {} (efficiency {}). Total overhead {} − {} = <strong>{}</strong>.</p>\n",
        escape(&base.path),
        threads(base.threads),
        duration(base.wall_ns),
        base.speedup,
        threads(base.run_threads),
        share_text(base.efficiency),
        duration(base.run_wall_ns),
        duration(base.ideal_ns),
        signed_duration(base.total_overhead_ns)
    );
    table_head(
        out,
        "baseline-classes",
        &[("wall time", true), ("class", false)],
    );
    for (class, ns) in &base.identified {
        let _ = writeln!(
            out,
            "<tr>{}{}</tr>",
            num(ns, &signed_duration(*ns)),
            text_cell(class.name())
        );
    }
    let _ = writeln!(
        out,
        "<tr>{}{}</tr>",
        num(base.unidentified_ns, &signed_duration(base.unidentified_ns)),
        text_cell("unidentified")
    );
    table_end(out);
    if base.other_build {
        out.push_str("<p class=\"explain\">The baseline comes from another build: regions were matched by construct, function and file.</p>\n");
    }
    out.push_str("</section>\n");
}

fn regions(out: &mut String, report: &Report, several: bool) {
    out.push_str("<section id=\"where\"><h2>Regions</h2>\n<p class=\"explain\">By inclusive time, summed over threads; share of the thread time. Click a heading to sort.</p>\n<input type=\"search\" id=\"region-filter\" placeholder=\"filter regions\">\n");
    let mut headers = vec![
        ("inclusive", true),
        ("exclusive", true),
        ("share", true),
        ("visits", true),
        ("threads", true),
        ("what", false),
        ("function", false),
        ("location", false),
    ];
    if report.baseline.is_some() {
        headers.push(("speed-up", true));
    }
    table_head(out, "regions", &headers);
    for row in &report.rows {
        let region = row.region.map(|r| &report.regions[r]);
        let mut what = row.what.clone();
        if row.throttled {
            what.push_str(" (throttled)");
        }
        let _ = write!(
            out,
            "<tr title=\"{}\">{}{}{}{}{}{}{}{}",
            escape(&row.label),
            time_cell(&row.inclusive_ns, several),
            time_cell(&row.exclusive_ns, several),
            share_cell(row.share),
            count_cell(&row.visits),
            num(row.threads, &row.threads.to_string()),
            text_cell(&what),
            text_cell(region.and_then(|r| r.unit.as_deref()).unwrap_or("")),
            text_cell(&region.and_then(|r| r.location()).unwrap_or_default()),
        );
        if report.baseline.is_some() {
            let speedup = row.speedup.unwrap_or(0.0);
            let text = row.speedup.map(|s| format!("{s:.2}")).unwrap_or_default();
            out.push_str(&num(speedup, &text));
        }
        out.push_str("</tr>\n");
    }
    table_end(out);
    out.push_str("</section>\n");
}

/// inferno's SVG made fit to live inside the page: no XML prologue, no
/// script of its own (its `onload` would call a function that is not
/// there), and its style sheet, which would apply to the whole page,
/// replaced by the page's own rules for `.flame`.
pub fn embeddable_svg(svg: &str) -> String {
    let mut svg = svg[svg.find("<svg").unwrap_or(0)..].to_string();
    svg = svg.replacen(" onload=\"init(evt)\"", "", 1);
    for element in ["script", "style"] {
        while let Some(start) = svg.find(&format!("<{element}")) {
            let end_tag = format!("</{element}>");
            let Some(end) = svg[start..].find(&end_tag) else {
                break;
            };
            svg.replace_range(start..start + end + end_tag.len(), "");
        }
    }
    svg
}

fn flame(out: &mut String, svg: &str, heading: &str, explain: &str) {
    let _ = write!(
        out,
        "<section id=\"flamegraph\"><h2>{}</h2><p class=\"explain\">{}</p>\n<button id=\"flame-reset\" hidden>Show all</button>\n<div class=\"flame\">{}</div>\n</section>\n",
        escape(heading),
        escape(explain),
        embeddable_svg(svg)
    );
}

fn tree(out: &mut String, report: &Report) {
    out.push_str("<section id=\"paths\"><h2>Call paths</h2><p class=\"explain\">Merged over threads: inclusive time, share of the thread time, visits.</p>\n<div class=\"tree\">");
    tree_nodes(out, &report.tree, 0);
    out.push_str("</div></section>\n");
}

fn tree_nodes(out: &mut String, nodes: &[TreeNode], depth: usize) {
    for node in nodes {
        let figures = format!(
            "<span class=\"figures\">{} · {} · {} visits</span>",
            duration(node.inclusive_ns.mean),
            share_text(node.share),
            count(node.visits.mean)
        );
        if node.children.is_empty() {
            let _ = write!(
                out,
                "<div class=\"leaf\">{}{figures}</div>",
                escape(&node.label)
            );
        } else {
            let open = if depth < 2 { " open" } else { "" };
            let _ = write!(
                out,
                "<details{open}><summary>{}{figures}</summary>",
                escape(&node.label)
            );
            tree_nodes(out, &node.children, depth + 1);
            out.push_str("</details>");
        }
    }
}

fn imbalance(out: &mut String, report: &Report) {
    if report.imbalance.is_empty() {
        return;
    }
    out.push_str("<section id=\"imbalance\"><h2>Load imbalance</h2><p class=\"explain\">Each thread's work in a worksharing construct, its waiting at the closing barrier excluded. Imbalance = (max − mean) / max: the share of the construct's time that evenly shared work would save.</p>\n");
    table_head(
        out,
        "imbalance-table",
        &[
            ("min", true),
            ("mean", true),
            ("max", true),
            ("imbalance", true),
            ("lost", true),
            ("threads", true),
            ("schedule", false),
            ("construct", false),
        ],
    );
    for row in &report.imbalance {
        let _ = writeln!(
            out,
            "<tr>{}{}{}{}{}{}{}{}</tr>",
            num(row.work_ns.min, &duration(row.work_ns.min)),
            num(row.work_ns.mean, &duration(row.work_ns.mean)),
            num(row.work_ns.max, &duration(row.work_ns.max)),
            cost_cell(row.imbalance),
            num(row.lost_ns, &duration(row.lost_ns)),
            num(row.threads, &row.threads.to_string()),
            text_cell(row.schedule.as_deref().unwrap_or("")),
            text_cell(&row.label)
        );
    }
    table_end(out);
    out.push_str("</section>\n");
}

fn tasks(out: &mut String, report: &Report, several: bool) {
    let tasks = &report.tasks;
    if tasks.constructs.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<section id=\"tasks\"><h2>Tasks</h2><p>{} created, {} executed.</p>",
        count(tasks.created.mean),
        count(tasks.executed.mean)
    );
    table_head(
        out,
        "task-constructs",
        &[
            ("created", true),
            ("executed", true),
            ("mean", true),
            ("total", true),
            ("construct", false),
        ],
    );
    for construct in &tasks.constructs {
        let _ = writeln!(
            out,
            "<tr>{}{}{}{}{}</tr>",
            count_cell(&construct.created),
            count_cell(&construct.executed),
            num(construct.mean_ns, &duration(construct.mean_ns)),
            time_cell(&construct.inclusive_ns, several),
            text_cell(&construct.label)
        );
    }
    table_end(out);
    if !tasks.relations.is_empty() {
        out.push_str("<h3>Created by</h3>");
        table_head(
            out,
            "task-relations",
            &[("tasks", true), ("creator", false), ("created", false)],
        );
        for relation in &tasks.relations {
            let _ = writeln!(
                out,
                "<tr>{}{}{}</tr>",
                count_cell(&relation.count),
                text_cell(&relation.parent_label),
                text_cell(&relation.child_label)
            );
        }
        table_end(out);
    }
    for histogram in &tasks.histogram {
        let _ = write!(
            out,
            "<h3>Durations of {} <small>({} tasks, from the trace)</small></h3><div class=\"histogram\">",
            escape(&histogram.label),
            count(histogram.tasks)
        );
        let most = histogram
            .buckets
            .iter()
            .map(|b| b.count)
            .max()
            .unwrap_or(1)
            .max(1);
        for bucket in &histogram.buckets {
            let range = match bucket.to_ns {
                Some(to) if bucket.from_ns == 0 => format!("< {}", duration(to)),
                Some(to) => format!("{} – {}", duration(bucket.from_ns), duration(to)),
                None => format!("≥ {}", duration(bucket.from_ns)),
            };
            let width = bucket.count as f64 / most as f64 * 100.0;
            let _ = write!(
                out,
                "<div class=\"bucket\"><span class=\"range\">{}</span><span class=\"fill\" style=\"width:{width:.1}%\"></span><span class=\"count\">{}</span></div>",
                escape(&range),
                count(bucket.count)
            );
        }
        out.push_str("</div>\n");
    }
    out.push_str("</section>\n");
}

/// What the script draws the timelines from.
#[derive(Serialize)]
struct Timelines {
    frames: Vec<String>,
    classes: Vec<&'static str>,
    start: u64,
    end: u64,
    threads: Vec<TimelineThread>,
    /// Visits shorter than this were left out to keep the page small.
    shortest_ns: u64,
    left_out: usize,
}

#[derive(Serialize)]
struct TimelineThread {
    name: String,
    /// `start, end, depth, frame` of each visit, flattened.
    spans: Vec<u64>,
}

fn timelines(out: &mut String, runs: &[Run], catalog: &Catalog) {
    out.push_str("<section id=\"timelines\"><h2>Timelines</h2>\n");
    let mut frames = Frames::default();
    let mut threads: Vec<ThreadSpans> = Vec::new();
    for (index, run) in runs.iter().enumerate() {
        let prefix = match (&run.profile.rank, runs.len()) {
            (Some(rank), _) => format!("rank {rank} "),
            (None, 1) => String::new(),
            (None, _) => format!("profile {} ", index + 1),
        };
        threads.extend(spans::threads(run, index, catalog, &mut frames, &prefix));
    }
    if threads.iter().all(|t| t.spans.is_empty()) {
        out.push_str("<p class=\"explain\">No trace was read: run the program with <code>POMP_TRACE=1</code> to see what each thread did when.</p></section>\n");
        return;
    }
    let total: usize = threads.iter().map(|t| t.spans.len()).sum();
    let shortest = if total > MAX_SPANS {
        let mut durations: Vec<u64> = threads
            .iter()
            .flat_map(|t| t.spans.iter().map(|s| s.end_ns - s.start_ns))
            .collect();
        let at = durations.len() - MAX_SPANS;
        *durations.select_nth_unstable(at).1
    } else {
        0
    };
    let timeline_threads: Vec<TimelineThread> = threads
        .iter()
        .map(|thread| TimelineThread {
            name: thread.name.clone(),
            spans: thread
                .spans
                .iter()
                .filter(|s| s.end_ns - s.start_ns >= shortest)
                .flat_map(|s| [s.start_ns, s.end_ns, s.depth as u64, s.frame as u64])
                .collect(),
        })
        .collect();
    let kept: usize = timeline_threads.iter().map(|t| t.spans.len() / 4).sum();
    let timeline = Timelines {
        classes: frames.kinds.iter().map(|&k| class_of(k)).collect(),
        frames: frames.names.clone(),
        start: threads
            .iter()
            .filter_map(|t| t.spans.first().map(|s| s.start_ns))
            .min()
            .unwrap_or(0),
        end: threads
            .iter()
            .flat_map(|t| t.spans.iter().map(|s| s.end_ns))
            .max()
            .unwrap_or(0),
        threads: timeline_threads,
        shortest_ns: shortest,
        left_out: total - kept,
    };
    out.push_str("<p class=\"explain\">Each thread's visits over time, nested regions below their parents. Scroll to zoom, drag to pan, double-click to see all.</p>\n");
    if timeline.left_out > 0 {
        let _ = write!(
            out,
            "<p class=\"explain\">{} visits shorter than {} are left out to keep the page small.</p>",
            count(timeline.left_out as u64),
            duration(shortest)
        );
    }
    out.push_str("<ul class=\"legend\"><li><span class=\"swatch parallel\"></span>parallel</li><li><span class=\"swatch work\"></span>worksharing and other constructs</li><li><span class=\"swatch sync\"></span>synchronisation</li><li><span class=\"swatch control\"></span>task creation</li><li><span class=\"swatch task\"></span>task</li><li><span class=\"swatch user\"></span>user region</li></ul>\n");
    out.push_str("<div class=\"timeline\"><canvas id=\"timeline-canvas\"></canvas><div id=\"timeline-tip\" hidden></div></div>\n");
    // `</` cannot end the script element early once escaped; JSON reads
    // `<\/` as `</`.
    let data = serde_json::to_string(&timeline)
        .expect("timelines serialize")
        .replace("</", "<\\/");
    let _ = write!(
        out,
        "<script type=\"application/json\" id=\"timeline-data\">{data}</script>\n</section>\n"
    );
}

pub fn diff_page(diff: &Diff, flame_svg: &str) -> String {
    let mut out = String::new();
    open(
        &mut out,
        &format!("pomp report: {} → {}", diff.a.path, diff.b.path),
    );
    let verdict = match diff.speedup {
        Some(speedup) => format!("{speedup:.2}× as fast"),
        None => "no region in common: the times do not compare".to_string(),
    };
    let _ = write!(
        out,
        "<dl class=\"summary\"><div><dt>A</dt><dd>{} · {} · {}</dd></div><div><dt>B</dt><dd>{} · {} · {}</dd></div><div><dt>B against A</dt><dd>{verdict}</dd></div></dl>\n</header>\n<main>\n",
        escape(&diff.a.path),
        threads(diff.a.threads),
        duration(diff.a.wall_ns),
        escape(&diff.b.path),
        threads(diff.b.threads),
        duration(diff.b.wall_ns),
    );
    match &diff.builds_differ {
        Some(difference) => {
            let _ = writeln!(
                out,
                "<section class=\"notes\"><p>A and B come from different builds ({}); regions are matched by construct, function and file.</p></section>",
                escape(difference)
            );
        }
        None => out.push_str("<p class=\"explain\">A and B come from the same build.</p>\n"),
    }
    out.push_str("<section id=\"where\"><h2>Regions by change</h2><p class=\"explain\">Time: the longest any thread spent in the region.</p>\n<input type=\"search\" id=\"region-filter\" placeholder=\"filter regions\">\n");
    table_head(
        &mut out,
        "regions",
        &[
            ("A", true),
            ("B", true),
            ("change", true),
            ("B/A", true),
            ("", false),
            ("what", false),
            ("function", false),
            ("location", false),
        ],
    );
    for row in &diff.rows {
        let region = row.region.map(|r| &diff.regions[r]);
        let class = match row.change {
            Change::Faster => "faster",
            Change::Slower => "slower",
            _ => "",
        };
        let _ = writeln!(
            out,
            "<tr class=\"{class}\" title=\"{}\">{}{}{}{}{}{}{}{}</tr>",
            escape(&row.label),
            num(
                row.a_ns.unwrap_or(0),
                &row.a_ns.map(duration).unwrap_or_else(|| "-".into())
            ),
            num(
                row.b_ns.unwrap_or(0),
                &row.b_ns.map(duration).unwrap_or_else(|| "-".into())
            ),
            num(row.delta_ns, &signed_duration(row.delta_ns)),
            num(
                row.ratio.unwrap_or(0.0),
                &row.ratio.map(|r| format!("{r:.2}")).unwrap_or_default()
            ),
            text_cell(row.change.name()),
            text_cell(&row.what),
            text_cell(region.and_then(|r| r.unit.as_deref()).unwrap_or("")),
            text_cell(&region.and_then(|r| r.location()).unwrap_or_default()),
        );
    }
    table_end(&mut out);
    out.push_str("</section>\n");
    flame(
        &mut out,
        flame_svg,
        "Differential flame graph",
        "B's call paths; red frames took longer than in A, blue ones less.",
    );
    out.push_str("</main>\n");
    close(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_embedded_flame_graph_brings_no_script_or_style() {
        let folded = vec!["parallel in main (a.c:3);barrier in main (a.c:5) 10".to_string()];
        for interactive in [true, false] {
            let svg = super::super::flame::svg(&folded, "t", "s", interactive).unwrap();
            let embedded = embeddable_svg(&svg);
            assert!(embedded.starts_with("<svg"), "{embedded}");
            for left_out in ["<script", "<style", "onload", "<?xml", "<!DOCTYPE"] {
                assert!(!embedded.contains(left_out), "{left_out} in {embedded}");
            }
            assert!(
                embedded.contains("<title>parallel in main (a.c:3) → barrier in main (a.c:5) (")
            );
            assert!(embedded.trim_end().ends_with("</svg>"));
        }
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;"
        );
    }
}

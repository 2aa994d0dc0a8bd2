//! The report as text for a terminal. Styles are always written; the
//! caller's stream drops them where colour is not wanted (not a terminal,
//! `NO_COLOR`, `--color never`).

use super::table::{bytes, count, duration, percent, signed_duration, threads, Align, Cell, Table};
use crate::analysis::diff::{Change, Diff};
use crate::analysis::overhead::Class;
use crate::analysis::regions::TreeNode;
use crate::analysis::{Report, Spread};
use crate::join::plural;
use crate::join::{Matching, RegionInfo};
use anstyle::{AnsiColor, Style};
use std::fmt::Write as _;

/// What the text shows.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// The call-path tree instead of the flat table.
    pub tree: bool,
    /// Rows of the region table (and of the diff); 0 for all.
    pub top: usize,
}

fn heading(out: &mut String, text: &str) {
    let style = Style::new().bold().underline();
    let _ = writeln!(out, "\n{}{text}{}", style.render(), style.render_reset());
}

fn dim() -> Style {
    Style::new().dimmed()
}

fn warn() -> Style {
    Style::new().fg_color(Some(AnsiColor::Yellow.into())).bold()
}

fn bad() -> Style {
    Style::new().fg_color(Some(AnsiColor::Red.into())).bold()
}

fn good() -> Style {
    Style::new().fg_color(Some(AnsiColor::Green.into()))
}

/// A share of time.
fn share_cell(share: f64) -> Cell {
    let style = if share == 0.0 { dim() } else { Style::new() };
    Cell::styled(percent(share), style)
}

/// A share of time lost to overheads, highlighted when large.
fn cost_cell(share: f64) -> Cell {
    let style = match share {
        s if s >= 0.25 => bad(),
        s if s >= 0.10 => warn(),
        0.0 => dim(),
        _ => Style::new(),
    };
    Cell::styled(percent(share), style)
}

/// A duration, with the spread over profiles when there are several.
fn spread_cell(spread: &Spread, several: bool) -> Cell {
    let text = duration(spread.mean);
    if spread.mean == 0 {
        return Cell::styled(text, dim());
    }
    if several && spread.varies() {
        return Cell::plain(format!("{text} ({})", range(spread, duration)));
    }
    Cell::plain(text)
}

fn count_cell(spread: &Spread, several: bool) -> Cell {
    amount_cell(spread, several, count)
}

/// An amount shown by `show`, with the spread over profiles when there are
/// several.
fn amount_cell(spread: &Spread, several: bool, show: fn(u64) -> String) -> Cell {
    if several && spread.varies() {
        Cell::plain(format!("{} ({})", show(spread.mean), range(spread, show)))
    } else {
        Cell::plain(show(spread.mean))
    }
}

/// `0.90 s r3 – 1.50 s r7`: the least and the greatest value, each with
/// the rank that had it.
fn range(spread: &Spread, show: fn(u64) -> String) -> String {
    let at = |value: u64, rank: Option<u32>| match rank {
        Some(rank) => format!("{} r{rank}", show(value)),
        None => show(value),
    };
    format!(
        "{} – {}",
        at(spread.min, spread.min_rank),
        at(spread.max, spread.max_rank)
    )
}

fn region_columns(region: Option<&RegionInfo>) -> (String, String) {
    match region {
        Some(region) => (
            region.unit.clone().unwrap_or_default(),
            region.location().unwrap_or_default(),
        ),
        None => (String::new(), String::new()),
    }
}

pub fn report(report: &Report, layout: Layout) -> String {
    let mut out = String::new();
    let several = report.profiles.len() > 1;
    header(&mut out, report);
    if layout.tree {
        tree(&mut out, report, several);
    } else {
        regions(&mut out, report, several, layout.top);
    }
    mpi_summary(&mut out, report, several);
    mpi_functions(&mut out, report, several);
    overheads(&mut out, report, several);
    imbalance(&mut out, report);
    rank_imbalance(&mut out, report, layout.top);
    tasks(&mut out, report, several);
    baseline(&mut out, report);
    if !report.notes.is_empty() {
        heading(&mut out, "Notes");
        for note in &report.notes {
            let _ = writeln!(out, "  - {note}");
        }
    }
    out
}

/// The run as its experiment describes it: name, command, start, ranks and
/// hosts, MPI.
fn run_header(out: &mut String, report: &Report) {
    let Some(run) = &report.run else { return };
    let manifest = &run.manifest;
    let bold = Style::new().bold();
    let hosts = match report.hosts.len() {
        0 => String::new(),
        1 => " on 1 host".to_string(),
        n => format!(" on {n} hosts"),
    };
    let _ = writeln!(
        out,
        "{}run {}{} ({}): {} rank{}{hosts}, started {}",
        bold.render(),
        manifest.run,
        bold.render_reset(),
        run.directory,
        manifest.ranks,
        plural(manifest.ranks as usize),
        manifest.start,
    );
    let _ = writeln!(out, "  {}", manifest.command.join(" "));
    if let Some(mpi) = &manifest.mpi {
        let _ = writeln!(
            out,
            "  {}, {} provided{}",
            mpi.library,
            mpi.thread_level_provided.mpi_name(),
            mpi.thread_level_requested
                .map(|level| format!(" ({} requested)", level.mpi_name()))
                .unwrap_or_default()
        );
    }
}

fn header(out: &mut String, report: &Report) {
    let bold = Style::new().bold();
    run_header(out, report);
    if let [profile] = report.profiles.as_slice() {
        let rank = profile
            .rank
            .as_ref()
            .map(|r| format!(", rank {r}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{}{}{} (pid {}{rank}): {}, {} wall, {} thread time",
            bold.render(),
            profile.path,
            bold.render_reset(),
            profile.pid,
            threads(profile.threads),
            duration(profile.wall_ns),
            duration(report.thread_time_ns.mean),
        );
        if let Some(trace) = &profile.trace {
            let _ = writeln!(out, "trace {trace}");
        }
    } else {
        let _ = writeln!(
            out,
            "{}{} profiles{}: {}, {} wall (mean; {}), the figures below are means over the profiles (in brackets where they differ: the least and the greatest, each with its rank, r3 for rank 3)",
            bold.render(),
            report.profiles.len(),
            bold.render_reset(),
            threads(report.threads.mean),
            duration(report.wall_ns.mean),
            range(&report.wall_ns, duration),
        );
        let listed = |profile: &super::super::analysis::ProfileInfo| {
            let rank = profile.rank.as_deref().unwrap_or("-");
            format!(
                "  rank {rank:>4}  {}  {}, {} wall",
                profile.path,
                threads(profile.threads),
                duration(profile.wall_ns)
            )
        };
        let profiles = &report.profiles;
        if profiles.len() <= PROFILES_LISTED {
            for profile in profiles {
                let _ = writeln!(out, "{}", listed(profile));
            }
        } else {
            let _ = writeln!(out, "{}", listed(&profiles[0]));
            let _ = writeln!(
                out,
                "  {}… {} more …{}",
                dim().render(),
                count(profiles.len() as u64 - 2),
                dim().render_reset()
            );
            let _ = writeln!(out, "{}", listed(&profiles[profiles.len() - 1]));
        }
    }
}

/// Profiles listed one by one in the header; of more, the first and the
/// last.
const PROFILES_LISTED: usize = 16;

fn regions(out: &mut String, report: &Report, several: bool, top: usize) {
    heading(
        out,
        "Regions by inclusive time (summed over threads; share of the thread time)",
    );
    let mut table = Table::new(&[
        ("inclusive", Align::Right),
        ("exclusive", Align::Right),
        ("share", Align::Right),
        ("visits", Align::Right),
        ("threads", Align::Right),
        ("what", Align::Left),
        ("function", Align::Left),
        ("location", Align::Left),
    ]);
    let shown = rows_shown(report.rows.len(), top);
    for row in report.rows.iter().take(shown) {
        let (function, location) = region_columns(row.region.map(|r| &report.regions[r]));
        let mut what = row.what.clone();
        if row.throttled {
            what.push_str(" (throttled)");
        }
        if let Some(speedup) = row.speedup {
            what.push_str(&format!(" [speed-up {speedup:.2}]"));
        }
        table.row(vec![
            spread_cell(&row.inclusive_ns, several),
            spread_cell(&row.exclusive_ns, several),
            share_cell(row.share),
            count_cell(&row.visits, several),
            count(row.threads).into(),
            what.into(),
            function.into(),
            location.into(),
        ]);
    }
    if table.is_empty() {
        out.push_str("  no region was visited\n");
        return;
    }
    table.render(out);
    rows_left_out(out, report.rows.len(), shown);
}

/// Says how many rows of `total` a table did not show.
/// How many of `total` rows a table shows for `--top`, 0 meaning all.
fn rows_shown(total: usize, top: usize) -> usize {
    if top == 0 {
        total
    } else {
        top
    }
}

fn rows_left_out(out: &mut String, total: usize, shown: usize) {
    if total > shown {
        let _ = writeln!(
            out,
            "  {}{} more (--top 0 shows all){}",
            dim().render(),
            total - shown,
            dim().render_reset()
        );
    }
}

fn tree(out: &mut String, report: &Report, several: bool) {
    heading(
        out,
        "Call paths (merged over threads; share of the thread time)",
    );
    let mut table = Table::new(&[
        ("inclusive", Align::Right),
        ("exclusive", Align::Right),
        ("share", Align::Right),
        ("visits", Align::Right),
        ("threads", Align::Right),
        ("call path", Align::Left),
    ]);
    fn add(table: &mut Table, nodes: &[TreeNode], prefix: Option<&str>, several: bool) {
        for (i, node) in nodes.iter().enumerate() {
            let last = i + 1 == nodes.len();
            let (path, child_prefix) = match prefix {
                None => (node.label.clone(), String::new()),
                Some(prefix) => (
                    format!("{prefix}{}{}", if last { "└─ " } else { "├─ " }, node.label),
                    format!("{prefix}{}", if last { "   " } else { "│  " }),
                ),
            };
            table.row(vec![
                spread_cell(&node.inclusive_ns, several),
                spread_cell(&node.exclusive_ns, several),
                share_cell(node.share),
                count_cell(&node.visits, several),
                count(node.threads).into(),
                path.into(),
            ]);
            add(table, &node.children, Some(&child_prefix), several);
        }
    }
    add(&mut table, &report.tree, None, several);
    if table.is_empty() {
        out.push_str("  no region was visited\n");
    } else {
        table.render(out);
    }
}

fn overheads(out: &mut String, report: &Report, several: bool) {
    heading(
        out,
        &format!(
            "Overheads after SCALEA (of {} thread time: {} wall × {})",
            duration(report.thread_time_ns.mean),
            duration(report.wall_ns.mean),
            threads(report.threads.mean)
        ),
    );
    let mut table = Table::new(&[
        ("class", Align::Left),
        ("time", Align::Right),
        ("share", Align::Right),
        ("of which", Align::Left),
    ]);
    for class in &report.overheads.classes {
        let parts: Vec<String> = class
            .parts
            .iter()
            .filter(|p| p.ns.mean > 0 && class.class != Class::Work)
            .map(|p| format!("{} {}", p.name, duration(p.ns.mean)))
            .collect();
        table.row(vec![
            class.class.name().into(),
            spread_cell(&class.ns, several),
            if class.class == Class::Work {
                share_cell(class.share)
            } else {
                cost_cell(class.share)
            },
            parts.join(", ").into(),
        ]);
    }
    table.render(out);
    let _ = writeln!(out, "  {}", bar(report));
    out.push_str("\n  what each class counts here, and what reduces it:\n");
    for class in &report.overheads.classes {
        let _ = writeln!(out, "  - {}: {}", class.class.name(), class.reading);
    }

    let regions: Vec<_> = report
        .region_overheads
        .iter()
        .filter(|r| r.inclusive_ns.mean > 0)
        .collect();
    if regions.is_empty() {
        return;
    }
    out.push_str("\n  per region, nested constructs included (thread time):\n");
    let mut table = Table::new(&[
        ("inclusive", Align::Right),
        ("control", Align::Right),
        ("sync", Align::Right),
        ("idle", Align::Right),
        ("sync share", Align::Right),
        ("region", Align::Left),
    ]);
    for region in regions {
        table.row(vec![
            spread_cell(&region.inclusive_ns, several),
            spread_cell(&region.control_ns, several),
            spread_cell(&region.sync_ns, several),
            spread_cell(&region.idle_ns, several),
            cost_cell(region.sync_share),
            region.label.clone().into(),
        ]);
    }
    table.render(out);
}

/// The classes as one bar of 60 characters.
fn bar(report: &Report) -> String {
    const WIDTH: usize = 60;
    let styles = [
        (Class::Control, AnsiColor::Magenta, '▒'),
        (Class::Synchronisation, AnsiColor::Red, '▓'),
        (Class::LossOfParallelism, AnsiColor::Yellow, '░'),
        (Class::Work, AnsiColor::Green, '█'),
    ];
    let mut bar = String::new();
    let mut drawn = 0;
    for (i, (class, color, glyph)) in styles.iter().enumerate() {
        let share = report.overheads.class(*class).share;
        let cells = if i + 1 == styles.len() {
            WIDTH.saturating_sub(drawn)
        } else {
            ((share * WIDTH as f64).round() as usize).min(WIDTH - drawn)
        };
        drawn += cells;
        let style = Style::new().fg_color(Some((*color).into()));
        let _ = write!(
            bar,
            "{}{}{}",
            style.render(),
            glyph.to_string().repeat(cells),
            style.render_reset()
        );
    }
    format!("{bar}  ▒ control ▓ sync ░ loss █ work")
}

fn imbalance(out: &mut String, report: &Report) {
    if report.imbalance.is_empty() {
        return;
    }
    heading(
        out,
        "Load imbalance of worksharing constructs (each thread's work, barrier excluded)",
    );
    let mut table = Table::new(&[
        ("min", Align::Right),
        ("mean", Align::Right),
        ("max", Align::Right),
        ("imbalance", Align::Right),
        ("lost", Align::Right),
        ("threads", Align::Right),
        ("schedule", Align::Left),
        ("construct", Align::Left),
    ]);
    for row in &report.imbalance {
        table.row(vec![
            duration(row.work_ns.min).into(),
            duration(row.work_ns.mean).into(),
            duration(row.work_ns.max).into(),
            cost_cell(row.imbalance),
            duration(row.lost_ns).into(),
            count(row.threads).into(),
            row.schedule.clone().unwrap_or_default().into(),
            row.label.clone().into(),
        ]);
    }
    table.render(out);
    out.push_str(
        "  imbalance = (max − mean) / max: the share of the construct's time that evenly shared work would save\n",
    );
}

fn rank_imbalance(out: &mut String, report: &Report, top: usize) {
    if report.rank_imbalance.is_empty() {
        return;
    }
    heading(
        out,
        "Imbalance over ranks (each rank's time in the region, summed over its threads)",
    );
    let mut table = Table::new(&[
        ("min", Align::Right),
        ("mean", Align::Right),
        ("max", Align::Right),
        ("imbalance", Align::Right),
        ("lost", Align::Right),
        ("region", Align::Left),
    ]);
    let shown = rows_shown(report.rank_imbalance.len(), top);
    let at = |ns: u64, rank: Option<u32>| match rank {
        Some(rank) => format!("{} r{rank}", duration(ns)),
        None => duration(ns),
    };
    for row in report.rank_imbalance.iter().take(shown) {
        let time = &row.inclusive_ns;
        table.row(vec![
            at(time.min, time.min_rank).into(),
            duration(time.mean).into(),
            at(time.max, time.max_rank).into(),
            cost_cell(row.imbalance),
            duration(row.lost_ns).into(),
            row.label.clone().into(),
        ]);
    }
    table.render(out);
    rows_left_out(out, report.rank_imbalance.len(), shown);
    out.push_str(
        "  imbalance = (max − mean) / max over ranks; lost = (max − mean) × ranks, the time the others would wait for the slowest\n",
    );
}

fn mpi_summary(out: &mut String, report: &Report, several: bool) {
    let Some(mpi) = &report.mpi else { return };
    heading(
        out,
        &format!(
            "MPI (measured on {} rank{}; thread time in its calls, and what they moved)",
            mpi.ranks,
            plural(mpi.ranks as usize)
        ),
    );
    let mut table = Table::new(&[
        ("", Align::Left),
        ("per rank", Align::Right),
        ("share", Align::Right),
    ]);
    for (name, spread, share) in [
        ("time in MPI", &mpi.time_ns, Some(mpi.share)),
        ("  point-to-point", &mpi.point_to_point_ns, None),
        ("  collective", &mpi.collective_ns, None),
        ("  other", &mpi.other_ns, None),
    ] {
        table.row(vec![
            name.into(),
            spread_cell(spread, several),
            share.map_or_else(|| Cell::plain(""), share_cell),
        ]);
    }
    for (name, spread, in_bytes) in [
        ("messages sent", &mpi.messages_sent, false),
        ("  bytes", &mpi.bytes_sent, true),
        ("messages received", &mpi.messages_received, false),
        ("  bytes", &mpi.bytes_received, true),
        ("collectives", &mpi.collectives, false),
        ("  bytes sent", &mpi.collective_bytes_sent, true),
        ("  bytes received", &mpi.collective_bytes_received, true),
    ] {
        let cell = if in_bytes {
            amount_cell(spread, several, bytes)
        } else {
            count_cell(spread, several)
        };
        table.row(vec![name.into(), cell, "".into()]);
    }
    table.render(out);
}

fn mpi_functions(out: &mut String, report: &Report, several: bool) {
    if report.mpi_functions.is_empty() {
        return;
    }
    heading(
        out,
        "MPI routines (each summed over the places that call it; thread time)",
    );
    let mut table = Table::new(&[
        ("time", Align::Right),
        ("share", Align::Right),
        ("calls", Align::Right),
        ("call sites", Align::Right),
        ("routine", Align::Left),
    ]);
    for function in &report.mpi_functions {
        table.row(vec![
            spread_cell(&function.inclusive_ns, several),
            share_cell(function.share),
            count_cell(&function.visits, several),
            count(function.call_sites as u64).into(),
            function.name.clone().into(),
        ]);
    }
    table.render(out);
}

fn tasks(out: &mut String, report: &Report, several: bool) {
    let tasks = &report.tasks;
    if tasks.constructs.is_empty() && tasks.created.max == 0 {
        return;
    }
    heading(
        out,
        &format!(
            "Tasks: {} created, {} executed",
            count(tasks.created.mean),
            count(tasks.executed.mean)
        ),
    );
    let mut table = Table::new(&[
        ("created", Align::Right),
        ("executed", Align::Right),
        ("mean", Align::Right),
        ("total", Align::Right),
        ("construct", Align::Left),
    ]);
    for construct in &tasks.constructs {
        let mut label = construct.label.clone();
        if construct.throttled {
            label.push_str(" (throttled)");
        }
        table.row(vec![
            count_cell(&construct.created, several),
            count_cell(&construct.executed, several),
            duration(construct.mean_ns).into(),
            spread_cell(&construct.inclusive_ns, several),
            label.into(),
        ]);
    }
    table.render(out);
    if !tasks.relations.is_empty() {
        out.push_str("\n  created by:\n");
        let mut table = Table::new(&[("tasks", Align::Right), ("creator → created", Align::Left)]);
        for relation in &tasks.relations {
            table.row(vec![
                count_cell(&relation.count, several),
                format!("{} → {}", relation.parent_label, relation.child_label).into(),
            ]);
        }
        table.render(out);
    }
    for histogram in &tasks.histogram {
        let _ = writeln!(
            out,
            "\n  durations of {} ({} tasks, from the trace):",
            histogram.label,
            count(histogram.tasks)
        );
        let most = histogram.buckets.iter().map(|b| b.count).max().unwrap_or(1);
        for bucket in &histogram.buckets {
            let range = match bucket.to_ns {
                Some(to) if bucket.from_ns == 0 => format!("< {}", duration(to)),
                Some(to) => format!("{} – {}", duration(bucket.from_ns), duration(to)),
                None => format!("≥ {}", duration(bucket.from_ns)),
            };
            let width = (bucket.count as f64 / most as f64 * 40.0).ceil() as usize;
            let _ = writeln!(
                out,
                "  {range:>17}  {:<40} {}",
                "█".repeat(width),
                count(bucket.count)
            );
        }
    }
}

fn baseline(out: &mut String, report: &Report) {
    let Some(base) = &report.baseline else {
        return;
    };
    heading(
        out,
        &format!(
            "Compared with {} ({}, {} wall)",
            base.path,
            threads(base.threads),
            duration(base.wall_ns)
        ),
    );
    let _ = writeln!(
        out,
        "  speed-up {:.2} on {} (efficiency {})",
        base.speedup,
        threads(base.run_threads),
        percent(base.efficiency)
    );
    let formula = if base.threads == 1 {
        "T_p − T_1/p"
    } else {
        "T_p − T_ref·p_ref/p"
    };
    let _ = writeln!(
        out,
        "  total overhead {formula} = {} − {} = {}",
        duration(base.run_wall_ns),
        duration(base.ideal_ns),
        signed_duration(base.total_overhead_ns)
    );
    let mut table = Table::new(&[("wall time", Align::Right), ("class", Align::Left)]);
    for (class, ns) in &base.identified {
        table.row(vec![signed_duration(*ns).into(), class.name().into()]);
    }
    table.row(vec![
        signed_duration(base.unidentified_ns).into(),
        "unidentified (what the measured classes do not explain)".into(),
    ]);
    table.render(out);
    if base.other_build {
        out.push_str(
            "  the baseline comes from another build: regions were matched by construct, function and file\n",
        );
    }
}

pub fn diff(diff: &Diff, top: usize) -> String {
    let mut out = String::new();
    let bold = Style::new().bold();
    let _ = writeln!(
        out,
        "{}A{} {}: {}, {} wall\n{}B{} {}: {}, {} wall",
        bold.render(),
        bold.render_reset(),
        diff.a.path,
        threads(diff.a.threads),
        duration(diff.a.wall_ns),
        bold.render(),
        bold.render_reset(),
        diff.b.path,
        threads(diff.b.threads),
        duration(diff.b.wall_ns),
    );
    let verdict = match diff.speedup {
        None => Cell::styled(
            "A and B have no region in common: they measured different programs, and their times do not compare"
                .to_string(),
            warn(),
        ),
        Some(speedup) if speedup >= 1.0 => {
            Cell::styled(format!("B is {speedup:.2}× as fast as A"), good())
        }
        Some(speedup) => Cell::styled(
            format!(
                "B is {:.2}× as slow as A",
                1.0 / speedup.max(f64::MIN_POSITIVE)
            ),
            bad(),
        ),
    };
    let _ = writeln!(
        out,
        "{}{}{}",
        verdict.style.render(),
        verdict.text,
        verdict.style.render_reset()
    );
    match (&diff.builds_differ, diff.matching) {
        (Some(difference), Matching::BySource) => {
            let _ = writeln!(
                out,
                "{}A and B come from different builds{} ({difference}); regions are matched by construct, function and file",
                warn().render(),
                warn().render_reset()
            );
        }
        _ => {
            let _ = writeln!(out, "A and B come from the same build");
        }
    }
    heading(
        &mut out,
        "Regions by change (time: the longest any thread spent in it)",
    );
    let mut table = Table::new(&[
        ("A", Align::Right),
        ("B", Align::Right),
        ("change", Align::Right),
        ("B/A", Align::Right),
        ("", Align::Left),
        ("what", Align::Left),
        ("function", Align::Left),
        ("location", Align::Left),
    ]);
    let shown = rows_shown(diff.rows.len(), top);
    for row in diff.rows.iter().take(shown) {
        let style = match row.change {
            Change::Faster => good(),
            Change::Slower => bad(),
            Change::New | Change::Gone => warn(),
            Change::Unchanged => dim(),
        };
        let (function, location) = region_columns(row.region.map(|r| &diff.regions[r]));
        table.row(vec![
            row.a_ns.map(duration).unwrap_or_else(|| "-".into()).into(),
            row.b_ns.map(duration).unwrap_or_else(|| "-".into()).into(),
            Cell::styled(signed_duration(row.delta_ns), style),
            row.ratio
                .map(|r| format!("{r:.2}"))
                .unwrap_or_default()
                .into(),
            Cell::styled(row.change.name(), style),
            row.what.clone().into(),
            function.into(),
            location.into(),
        ]);
    }
    if table.is_empty() {
        out.push_str("  no region was visited in either run\n");
    } else {
        table.render(&mut out);
    }
    rows_left_out(&mut out, diff.rows.len(), shown);
    out
}

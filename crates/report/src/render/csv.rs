//! The region table as CSV, for spreadsheets and scripts: one row per
//! region and kind (or per call path with `--tree`, or per region of a
//! diff). Times are nanoseconds; several profiles give mean, min and max.

use crate::analysis::diff::Diff;
use crate::analysis::regions::TreeNode;
use crate::analysis::{Report, Spread};
use crate::join::RegionInfo;
use std::io::Write;

fn region_fields(region: Option<&RegionInfo>) -> [String; 4] {
    match region {
        Some(r) => [
            r.key.clone(),
            r.unit.clone().unwrap_or_default(),
            r.file.clone().unwrap_or_default(),
            r.line.map(|l| l.to_string()).unwrap_or_default(),
        ],
        None => Default::default(),
    }
}

fn spread_fields(spread: &Spread) -> [String; 3] {
    [
        spread.mean.to_string(),
        spread.min.to_string(),
        spread.max.to_string(),
    ]
}

pub fn report(report: &Report, tree: bool, out: impl Write) -> csv::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    let first = if tree { "call_path" } else { "label" };
    let mut header = vec![
        first,
        "kind",
        "what",
        "region_id",
        "function",
        "file",
        "line",
        "visits",
        "visits_min",
        "visits_max",
        "inclusive_ns",
        "inclusive_ns_min",
        "inclusive_ns_max",
        "exclusive_ns",
        "exclusive_ns_min",
        "exclusive_ns_max",
        "share",
        "threads",
    ];
    if !tree {
        header.extend(["longest_thread_ns", "throttled", "speedup"]);
    }
    writer.write_record(&header)?;
    if tree {
        fn walk(
            writer: &mut csv::Writer<impl Write>,
            report: &Report,
            nodes: &[TreeNode],
            path: &str,
        ) -> csv::Result<()> {
            for node in nodes {
                let path = if path.is_empty() {
                    node.label.clone()
                } else {
                    format!("{path};{}", node.label)
                };
                let region = node.region.map(|r| &report.regions[r]);
                let mut record = vec![
                    path.clone(),
                    node.kind.name().to_string(),
                    region.map_or(node.kind.name().replace('_', " "), |r| r.what(node.kind)),
                ];
                record.extend(region_fields(region));
                record.extend(spread_fields(&node.visits));
                record.extend(spread_fields(&node.inclusive_ns));
                record.extend(spread_fields(&node.exclusive_ns));
                record.push(format!("{:.6}", node.share));
                record.push(node.threads.to_string());
                writer.write_record(&record)?;
                walk(writer, report, &node.children, &path)?;
            }
            Ok(())
        }
        walk(&mut writer, report, &report.tree, "")?;
    } else {
        for row in &report.rows {
            let mut record = vec![
                row.label.clone(),
                row.kind.name().to_string(),
                row.what.clone(),
            ];
            record.extend(region_fields(row.region.map(|r| &report.regions[r])));
            record.extend(spread_fields(&row.visits));
            record.extend(spread_fields(&row.inclusive_ns));
            record.extend(spread_fields(&row.exclusive_ns));
            record.push(format!("{:.6}", row.share));
            record.push(row.threads.to_string());
            record.push(row.longest_thread_ns.mean.to_string());
            record.push(row.throttled.to_string());
            record.push(row.speedup.map(|s| format!("{s:.4}")).unwrap_or_default());
            writer.write_record(&record)?;
        }
    }
    writer.flush()?;
    Ok(())
}

pub fn diff(diff: &Diff, out: impl Write) -> csv::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    writer.write_record([
        "label",
        "kind",
        "what",
        "region_id",
        "function",
        "file",
        "line",
        "a_ns",
        "b_ns",
        "delta_ns",
        "ratio",
        "change",
        "a_visits",
        "b_visits",
    ])?;
    for row in &diff.rows {
        let mut record = vec![
            row.label.clone(),
            row.kind.name().to_string(),
            row.what.clone(),
        ];
        record.extend(region_fields(row.region.map(|r| &diff.regions[r])));
        record.extend([
            row.a_ns.map(|n| n.to_string()).unwrap_or_default(),
            row.b_ns.map(|n| n.to_string()).unwrap_or_default(),
            row.delta_ns.to_string(),
            row.ratio.map(|r| format!("{r:.6}")).unwrap_or_default(),
            row.change.name().to_string(),
            row.a_visits.to_string(),
            row.b_visits.to_string(),
        ]);
        writer.write_record(&record)?;
    }
    writer.flush()?;
    Ok(())
}

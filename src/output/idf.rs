//! The IDF descriptor JSON: every region of a file, for tools and reports.
//! Its schema is `schemas/idf.schema.json`.

use crate::diagnostics::Diagnostic;
use crate::model::Model;
use crate::rules::{self, Plan};
use crate::source::SourceFile;
use serde_json::{json, Value};

pub const SCHEMA_VERSION: &str = "1.0";

pub fn document(
    file: &SourceFile,
    front_end: &str,
    model: &Model,
    plan: &Plan,
    rules_config: &rules::Config,
    output_config: &super::Config,
    diagnostics: &[Diagnostic],
) -> Value {
    let regions: Vec<Value> = plan
        .regions
        .iter()
        .map(|region| {
            let site = &model.sites[region.site];
            let (line_start, column_start) = file.line_col(site.span.start);
            let end_byte = match (region.end_site, &site.block) {
                (Some(e), _) => model.sites[e].span.end,
                (None, Some(block)) => block.end,
                (None, None) => site.span.end,
            };
            let (line_end, column_end) = file.line_col(end_byte.max(1) - 1);
            let end_directive = region.end_site.or(site.end_site).map(|e| {
                let s = &model.sites[e];
                let (line, column) = file.line_col(s.span.start);
                json!({ "line": line, "column": column, "bytes": [s.span.start, s.span.end] })
            });
            let clauses: Vec<Value> = site
                .directive
                .clauses
                .iter()
                .map(|c| json!({ "name": c.name, "args": c.args }))
                .collect();
            let aux: serde_json::Map<String, Value> = region
                .aux
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect();
            json!({
                "id": format!("{}.{}", plan.unique, region.id),
                "index": region.id,
                "type": region.region_type,
                "directive": site.directive.name,
                "file": file.path.to_string_lossy(),
                "unit": site.unit.map(|u| model.units[u].name.clone()),
                "line_start": line_start,
                "column_start": column_start,
                "line_end": line_end,
                "column_end": column_end,
                "directive_bytes": [site.span.start, site.span.end],
                "block_bytes": site.block.as_ref().map(|b| json!([b.start, b.end])),
                "end_directive": end_directive,
                "parent": region.parent.map(|p| format!("{}.{}", plan.unique, p)),
                "handle": region.handle,
                "ctc": region.ctc,
                "clauses": clauses,
                "aux": aux,
            })
        })
        .collect();
    let hash = crate::source::hex(file.content_sha256());
    json!({
        "schema_version": SCHEMA_VERSION,
        "tool": { "name": "pomp", "version": env!("CARGO_PKG_VERSION") },
        "input": file.path.to_string_lossy(),
        "content_sha256": hash,
        "language": file.language.name(),
        "front_end": front_end,
        "options": {
            "disable": rules_config.disable,
            "events": rules_config.events,
            "interface": rules_config.interface,
            "line_markers": output_config.line_markers,
            "keep_untied": rules_config.keep_untied,
        },
        "unique": crate::rules::unique_name(file),
        "init_function": plan.registration(),
        "regions": regions,
        "diagnostics": diagnostics.iter().map(|d| {
            let (line, column) = file.line_col(d.span.start.min(file.bytes.len()));
            json!({ "severity": d.severity, "message": d.message, "line": line, "column": column, "notes": d.notes })
        }).collect::<Vec<_>>(),
    })
}

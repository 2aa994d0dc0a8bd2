//! The IDF descriptor of a file: every region, for tools and reports, in
//! the document type the contract crate defines ([`pomp2::idf`]).

use crate::diagnostics::Diagnostic;
use crate::model::Model;
use crate::rules::{self, NamedPlan};
use crate::source::{FileId, SourceFile};
use pomp2::idf;

pub fn document(
    file: &SourceFile,
    front_end: &str,
    model: &Model,
    plan: &NamedPlan,
    rules_config: &rules::Config,
    output_config: &super::Config,
    diagnostics: &[Diagnostic],
) -> idf::Document {
    let regions = plan
        .regions
        .iter()
        .map(|region| match region.site {
            Some(site) => construct_region(file, model, plan, region, site),
            None => function_region(file, model, plan, region),
        })
        .collect();
    idf::Document {
        schema_version: idf::SCHEMA_VERSION.to_string(),
        tool: idf::Tool {
            name: "pomp".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        input: file.path.to_string_lossy().into_owned(),
        content_sha256: crate::source::hex(file.content_sha256()),
        language: file.language.name().into(),
        front_end: front_end.into(),
        options: idf::Options {
            disable: rules_config.disable.iter().cloned().collect(),
            events: rules_config.events,
            interface: rules_config.interface,
            line_markers: output_config.line_markers,
            keep_untied: rules_config.keep_untied,
        },
        unique: crate::rules::unique_name(file),
        init_function: plan.registration(),
        user_init_function: plan.user_registration(),
        regions,
        diagnostics: diagnostics
            .iter()
            .map(|d| {
                let at = d.span.start.min(file.bytes.len());
                let place = file.place(at);
                idf::Diagnostic {
                    severity: d.severity.name().into(),
                    message: d.message.clone(),
                    file: (place.file != FileId::INPUT)
                        .then(|| file.file_name(place.file).into_owned()),
                    line: place.line,
                    column: file.line_col(at).1,
                    notes: d.notes.clone(),
                }
            })
            .collect(),
    }
}

/// The entry of a region an OpenMP or pomp directive opens.
fn construct_region(
    file: &SourceFile,
    model: &Model,
    plan: &NamedPlan,
    region: &rules::Region,
    site: usize,
) -> idf::Region {
    let site = &model.sites[site];
    let (line_start, column_start) = user_line_col(file, site.span.start);
    let end_byte = match (region.end_site, &site.block) {
        (Some(e), _) => model.sites[e].span.end,
        (None, Some(block)) => block.end,
        (None, None) => site.span.end,
    };
    let (line_end, column_end) = user_line_col(file, end_byte.max(1) - 1);
    let end_directive = region.end_site.or(site.end_site).map(|e| {
        let s = &model.sites[e];
        let (line, column) = user_line_col(file, s.span.start);
        idf::EndDirective {
            line,
            column,
            bytes: [s.span.start, s.span.end],
        }
    });
    idf::Region {
        id: plan.region_id(region.id),
        index: region.id,
        region_type: region.region_type.to_string(),
        directive: site.directive.name().to_string(),
        file: plan.file_name(&region.start_lines).to_owned(),
        unit: site.unit.map(|u| model.units[u].name.clone()),
        line_start,
        column_start,
        line_end,
        column_end,
        directive_bytes: [site.span.start, site.span.end],
        block_bytes: site.block.as_ref().map(|b| [b.start, b.end]),
        end_directive,
        parent: region.parent.map(|p| plan.region_id(p)),
        handle: region.handle.clone(),
        ctc: plan.ctc(region).to_string(),
        clauses: site
            .directive
            .clauses
            .iter()
            .map(|c| idf::Clause {
                name: c.name.to_string(),
                args: c.args.as_deref().map(str::to_string),
            })
            .collect(),
        aux: region.aux.iter().cloned().collect(),
        implicit_barrier: region.implicit_barrier,
        kind: None,
    }
}

/// The entry of a function measured as a region: its head is where it
/// opens, its body's code the block.
fn function_region(
    file: &SourceFile,
    model: &Model,
    plan: &NamedPlan,
    region: &rules::Region,
) -> idf::Region {
    let function = &model.functions[region.function.expect("a function region")];
    let (line_start, column_start) = user_line_col(file, function.span.start);
    let (line_end, column_end) = user_line_col(file, function.span.end.max(1) - 1);
    idf::Region {
        id: plan.region_id(region.id),
        index: region.id,
        region_type: region.region_type.to_string(),
        directive: String::new(),
        file: plan.file_name(&region.start_lines).to_owned(),
        unit: region.unit.clone(),
        line_start,
        column_start,
        line_end,
        column_end,
        directive_bytes: [function.span.start, function.entry],
        block_bytes: Some([function.entry, function.exit]),
        end_directive: None,
        parent: region.parent.map(|p| plan.region_id(p)),
        handle: region.handle.clone(),
        ctc: plan.ctc(region).to_string(),
        clauses: Vec::new(),
        aux: region.aux.iter().cloned().collect(),
        implicit_barrier: None,
        kind: region.code_kind,
    }
}

/// The user's line of `offset` (after the line markers before it) and its
/// column in the line as it stands in the input.
fn user_line_col(file: &SourceFile, offset: usize) -> (usize, usize) {
    (file.user_line(offset), file.line_col(offset).1)
}

//! What the server tells an editor about an analysed document: its
//! diagnostics, the hover on a directive, the hints naming each
//! directive's events. Pure functions of an [`Analysis`].

use super::document::{Analysis, Rendered};
use lsp_types::{
    Diagnostic, DiagnosticSeverity, Hover, HoverContents, InlayHint, InlayHintKind, InlayHintLabel,
    MarkupContent, MarkupKind, Range,
};
use pomp_cli::options::{respell, Spelling};
use pomp_core::diagnostics::Severity;
use pomp_preview::regions::{EditEntry, RegionEntry};

/// The name diagnostics carry.
pub const SOURCE: &str = "pomp";

pub fn diagnostics(analysis: &Analysis) -> Vec<Diagnostic> {
    analysis
        .diagnostics
        .iter()
        .map(|d| {
            // Hints name options as the editor's settings spell them.
            let mut message = respell(&d.message, &d.advice, Spelling::Setting).into_owned();
            for note in &d.notes {
                message.push('\n');
                message.push_str(&respell(note, &d.advice, Spelling::Setting));
            }
            Diagnostic {
                range: d.location.range,
                severity: Some(match d.severity {
                    Severity::Error => DiagnosticSeverity::ERROR,
                    Severity::Warning => DiagnosticSeverity::WARNING,
                    Severity::Note => DiagnosticSeverity::INFORMATION,
                }),
                source: Some(SOURCE.into()),
                message,
                ..Diagnostic::default()
            }
        })
        .collect()
}

/// The hover on the directive of a region: what it is, where its code
/// ends, the events it produces and the code inserted for it.
/// `parent` is the region's innermost enclosing region, if any.
pub fn hover(region: &RegionEntry, parent: Option<&RegionEntry>, language: &str) -> Hover {
    let idf = &region.idf;
    let mut text = format!(
        "**{}** region {} `{}`",
        region.region_type, region.index, region.id
    );
    if let Some(unit) = &idf.unit {
        text.push_str(&format!(" in `{unit}`"));
    }
    text.push_str("\n\n");
    text.push_str(&format!(
        "Block: line {} to line {}",
        region.extent.start.line, region.extent.end.line
    ));
    if let Some(parent) = parent {
        text.push_str(&format!(", inside {}", parent.idf.label()));
    }
    text.push_str("\n\n");
    if region.events.is_empty() {
        text.push_str("Events: none\n\n");
    } else {
        let events: Vec<String> = region.events.iter().map(|e| format!("`{e}`")).collect();
        text.push_str(&format!("Events: {}\n\n", events.join(", ")));
    }
    let fence = if language.starts_with("fortran") {
        "fortran"
    } else {
        "c"
    };
    for edit in &region.edits {
        let code = without_line_markers(&edit.text);
        let code = code.trim_matches(['\n', '\r']);
        if code.trim().is_empty() {
            continue;
        }
        text.push_str(&format!(
            "{}:\n```{fence}\n{code}\n```\n",
            where_inserted(edit)
        ));
    }
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text,
        }),
        range: Some(region.directive.range),
    }
}

/// "Before line 4", "Replacing line 4", ... for an edit.
fn where_inserted(edit: &EditEntry) -> String {
    let location = &edit.location;
    if location.bytes[0] < location.bytes[1] {
        let (first, last) = (location.start.line, location.end.line);
        let last = if location.end.column == 1 {
            last - 1
        } else {
            last
        };
        if first >= last {
            format!("Line {first} becomes")
        } else {
            format!("Lines {first} to {last} become")
        }
    } else if location.start.column == 1 {
        format!("Inserted before line {}", location.start.line)
    } else {
        format!("Inserted in line {}", location.start.line)
    }
}

/// Inserted code as a person reads it: the `#line` markers that keep the
/// compiler's line numbers left out.
pub fn without_line_markers(code: &str) -> String {
    code.split_inclusive('\n')
        .filter(|line| !line.starts_with("#line "))
        .collect()
}

/// One hint after each directive naming its events, within `range`.
pub fn inlay_hints(rendered: &Rendered, range: Range) -> Vec<InlayHint> {
    rendered
        .regions
        .regions
        .iter()
        .filter(|r| r.directive.range.end >= range.start && r.directive.range.start <= range.end)
        .map(|region| {
            let events: Vec<&str> = region
                .events
                .iter()
                .map(|e| e.split_once('_').map_or(e.as_str(), |(_, name)| name))
                .collect();
            let label = match events.is_empty() {
                true => format!("{} · no events", region.region_type),
                false => format!("{} · {}", region.region_type, events.join(", ")),
            };
            InlayHint {
                position: region.directive.range.end,
                label: InlayHintLabel::String(label),
                kind: Some(InlayHintKind::TYPE),
                text_edits: None,
                tooltip: None,
                padding_left: Some(true),
                padding_right: None,
                data: None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_markers_are_left_out_of_shown_code() {
        let code = "{ POMP2_For_enter(&h, ctc);\n#line 7 \"a.c\"\n#pragma omp for nowait\n";
        assert_eq!(
            without_line_markers(code),
            "{ POMP2_For_enter(&h, ctc);\n#pragma omp for nowait\n"
        );
    }
}

//! Code inserted for a directive under a conditional, where the directive
//! is and the block's end is not (`#ifdef SCHED_CYCLIC` / directive /
//! `#endif` / loop), is put under the directive's condition again. The
//! model records the branches and their conditions; this checks that
//! repeating a condition elsewhere means the same, and refuses what a
//! repeated condition cannot make right. A loop or call measured as a
//! code region cannot be: it is left as written.

use super::directives::Scanned;
use crate::diagnostics::Diagnostic;
use crate::frontend::lexical::conditionals::{BranchState, Conditionals, Form};
use crate::frontend::lexical::scan::{LineKind, PreprocessorLine};
use crate::model::{Branch, CodeKind, Found};
use crate::source::SourceFile;

/// Records in `model`, read from `file` by a front end that does not see
/// the preprocessor's lines, the branches its directives lie in and their
/// conditions, and checks that repeating a condition where code is
/// inserted means the same, as tree-sitter C's own reading does. A file
/// with nothing to instrument where the preprocessor keeps code is left
/// as it is.
pub(crate) fn record_conditions(file: &SourceFile, model: &mut Found) {
    if let Some(scanned) = Scanned::of(file, false) {
        finish(file, &scanned.lines, &scanned.conditionals, model);
    }
}

/// Records the live branches in `model` and checks the sites whose code
/// must be placed under a repeated condition.
pub(crate) fn finish(
    file: &SourceFile,
    lines: &[PreprocessorLine],
    conditionals: &Conditionals,
    model: &mut Found,
) {
    let groups = record_branches(conditionals, model);
    leave_statements_across_branches(file, model);
    let mut problems = Vec::new();
    for site in &model.sites {
        let Some(block) = &site.block else {
            continue;
        };
        let leaving: Vec<usize> = model
            .branches
            .branches_at(site.span.start)
            .filter(|b| !model.branches.branches_at(block.end).any(|held| held == *b))
            .collect();
        let Some(&outermost) = leaving.last() else {
            continue;
        };
        let name = |b: usize| {
            file.text(model.branches[b].line.clone())
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        if crate::directive::table()
            .divided_by(site.directive.spec())
            .is_some()
        {
            problems.push(
                Diagnostic::error(
                    site.span.clone(),
                    format!(
                        "`{}` under `{}`, its block outside",
                        site.directive.name(),
                        name(outermost)
                    ),
                    "the sections of this construct exist without it",
                )
                .with_note(
                    "each section is measured as part of its enclosing `sections` region, \
                     which exists only under the conditional; pomp cannot measure the \
                     sections for every setting of the macros",
                ),
            );
            continue;
        }
        for &b in &leaving {
            let from = conditionals.extent(groups[b]).start;
            if let Some(line) = redefinition(lines, &model.branches[b].condition, from, block.end) {
                problems.push(
                    Diagnostic::error(
                        site.span.clone(),
                        format!(
                            "the condition `{}` may change before this block ends",
                            name(b)
                        ),
                        "its block ends outside the conditional",
                    )
                    .with_note(format!(
                        "the code closing this construct after its block must be placed under \
                         the same condition, and line {} may change what it means",
                        file.user_line(line.start)
                    )),
                );
                break;
            }
        }
    }
    model.diagnostics.extend(problems);
}

/// A loop or call statement measured as a code region is written inside
/// braces of its own, which must open and close in the same branches of
/// the conditionals: one that begins in other branches than it ends (a
/// loop whose header the preprocessor chooses) is left as written, and
/// said so.
fn leave_statements_across_branches(file: &SourceFile, model: &mut Found) {
    let branches = &model.branches;
    let mut left = Vec::new();
    model.functions.retain(|f| {
        let what = match f.kind {
            CodeKind::Loop => "loop",
            CodeKind::Call => "call",
            _ => return true,
        };
        let last = f.exit.saturating_sub(1).max(f.entry);
        if branches.branches_at(f.entry).eq(branches.branches_at(last)) {
            return true;
        }
        let first_line = (file.bytes[f.span.clone()].iter())
            .position(|&b| b == b'\n')
            .map_or(f.span.end, |n| f.span.start + n);
        left.push(
            Diagnostic::note(
                f.span.start..first_line,
                format!("this {what} is not measured"),
                "it begins under a conditional it does not end under",
            )
            .with_note(format!(
                "a measured {what} is enclosed in braces of its own, which cannot open in \
                 one branch of `#if` and close after it"
            )),
        );
        false
    });
    model.diagnostics.extend(left);
}

/// Adds the live branches to the model; returns each one's group.
fn record_branches(conditionals: &Conditionals, model: &mut Found) -> Vec<usize> {
    let mut found: Vec<(usize, usize)> = Vec::new();
    for (g, group) in conditionals.groups.iter().enumerate() {
        if matches!(group.form, Form::Dead | Form::Malformed) {
            continue;
        }
        for (b, branch) in group.branches.iter().enumerate() {
            if branch.state != BranchState::Dead {
                found.push((g, b));
            }
        }
    }
    found.sort_by_key(|&(g, b)| conditionals.groups[g].branches[b].body.start);
    let index_of = |g: usize, b: usize| found.iter().position(|&x| x == (g, b));
    model.branches = found
        .iter()
        .map(|&(g, b)| {
            let group = &conditionals.groups[g];
            Branch {
                span: group.branches[b].body.clone(),
                line: group.lines[b].span.clone(),
                condition: group.branches[b].condition.clone(),
                parent: group.parent.and_then(|(pg, pb)| index_of(pg, pb)),
            }
        })
        .collect();
    found.into_iter().map(|(g, _)| g).collect()
}

/// A line between `from` and `to` that may change what `condition` means:
/// `#define` or `#undef` of a name it uses, or an `#include`.
fn redefinition(
    lines: &[PreprocessorLine],
    condition: &str,
    from: usize,
    to: usize,
) -> Option<crate::source::Span> {
    let first = lines.partition_point(|l| l.span.start < from);
    lines[first..]
        .iter()
        .take_while(|l| l.span.start < to)
        .find(|l| match l.kind {
            LineKind::Include => true,
            LineKind::Define | LineKind::Undef => {
                let name: String = l
                    .text
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                mentions(condition, &name)
            }
            _ => false,
        })
        .map(|l| l.span.clone())
}

fn mentions(text: &str, name: &str) -> bool {
    !name.is_empty()
        && text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|word| word == name)
}

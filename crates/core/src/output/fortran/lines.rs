//! Inserted text as the form allows: the width, indentation and
//! continuation of statements and directive lines, character expressions
//! cut where a line may break, and the `!$` sentinel on the lines inserted
//! into conditional code.

use super::renderer::Renderer;
use crate::language::fortran::{fixed_form, free_form, CONDITIONAL_SENTINEL};

/// Longest piece of a CTC string on one line.
const CTC_CHUNK: usize = 48;

impl Renderer<'_> {
    fn width(&self) -> usize {
        if self.fixed_form {
            fixed_form::LAST_COLUMN
        } else {
            free_form::LAST_COLUMN
        }
    }

    /// The indentation of a routine pomp adds at the end of the file, and
    /// of the statements in it.
    pub(super) fn routine_indents(&self) -> (&'static str, &'static str) {
        match self.fixed_form {
            true => (fixed_form::STATEMENT_INDENT, fixed_form::STATEMENT_INDENT),
            false => ("", "  "),
        }
    }

    /// Indentation for inserted statements in a unit; fixed form keeps
    /// columns 1-6 free.
    pub(super) fn indent(&self, unit: Option<usize>) -> String {
        let indent = unit
            .and_then(|u| self.model.units.get(u))
            .map_or("  ", |u| u.indent.as_str());
        let plain = indent.bytes().all(|b| b == b' ');
        if self.fixed_form && !(plain && fixed_form::reaches_statement_field(indent)) {
            fixed_form::STATEMENT_INDENT.to_string()
        } else if plain {
            indent.to_string()
        } else {
            "  ".to_string()
        }
    }

    /// One statement, continued over as many lines as the form allows.
    pub(super) fn statement(&self, indent: &str, text: &str) -> String {
        self.wrap(
            indent,
            &self.continuation_indent(indent),
            text,
            !self.fixed_form,
        )
    }

    /// What the lines continuing a statement indented by `indent` start
    /// with: in fixed form the continuation mark, in free form the
    /// indentation; then a little more.
    pub(super) fn continuation_indent(&self, indent: &str) -> String {
        let indent = match self.fixed_form {
            true => fixed_form::CONTINUATION_INDENT,
            false => indent,
        };
        format!("{indent}    ")
    }

    /// A directive line `!$omp text`, continued in the form's own way.
    pub(super) fn directive_line(&self, text: &str) -> String {
        if self.fixed_form {
            self.wrap("!$omp ", "!$omp&   ", text, false)
        } else {
            self.wrap("!$omp ", "!$omp&   ", text, true)
        }
    }

    /// Packs `text` onto lines no wider than the form allows, breaking
    /// only after blanks outside character literals. Free form ends a
    /// continued line with `&`; fixed form marks the next one in column 6.
    pub(super) fn wrap(
        &self,
        first: &str,
        continued: &str,
        text: &str,
        trailing_ampersand: bool,
    ) -> String {
        let limit = self.width() - if trailing_ampersand { 2 } else { 0 };
        let mut out = String::new();
        let mut line = first.to_string();
        let mut line_has_text = false;
        for piece in break_points(text) {
            if line_has_text && line.len() + piece.trim_end().len() > limit {
                let kept = line.trim_end().to_string();
                out.push_str(&kept);
                if trailing_ampersand {
                    out.push_str(" &");
                }
                out.push('\n');
                line = continued.to_string();
            }
            line.push_str(piece);
            line_has_text = true;
        }
        out.push_str(line.trim_end());
        out.push('\n');
        out
    }

    /// Inserted code lines on a `!$` line stay conditional like it: each
    /// line (not the `#line` markers) gets the sentinel, in fixed form in
    /// the blank columns it starts with.
    pub(super) fn with_sentinel(&self, text: &str, sentinel: bool) -> String {
        if !sentinel {
            return text.to_string();
        }
        let width = CONDITIONAL_SENTINEL.len();
        let mut out = String::new();
        for line in text.split_inclusive('\n') {
            if line.starts_with('#') {
                out.push_str(line);
            } else if self.fixed_form && line.starts_with(&fixed_form::STATEMENT_INDENT[..width]) {
                out.push_str(CONDITIONAL_SENTINEL);
                out.push_str(&line[width..]);
            } else {
                out.push_str(CONDITIONAL_SENTINEL);
                out.push(' ');
                out.push_str(line);
            }
        }
        out
    }
}

/// `text` as a Fortran character expression: literals of at most
/// [`CTC_CHUNK`] characters joined by `//`, so that a statement holding it
/// can continue between them.
pub(super) fn string_expression(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return "\"\"".to_string();
    }
    let chunks: Vec<String> = chars
        .chunks(CTC_CHUNK)
        .map(|c| format!("\"{}\"", c.iter().collect::<String>().replace('"', "\"\"")))
        .collect();
    chunks.join(" // ")
}

/// `text` cut after each blank outside character literals: the places a
/// statement may continue on the next line.
fn break_points(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut quote: Option<char> = None;
    let mut start = 0;
    let mut previous_blank = false;
    for (i, c) in text.char_indices() {
        if previous_blank && c != ' ' && quote.is_none() && i > start {
            pieces.push(&text[start..i]);
            start = i;
        }
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), _) if q == c => quote = None,
            _ => {}
        }
        previous_blank = c == ' ' && quote.is_none();
    }
    if start < text.len() {
        pieces.push(&text[start..]);
    }
    pieces
}

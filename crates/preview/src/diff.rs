//! The original file against the instrumented one, as a unified diff or
//! side by side. Styles are written as ANSI sequences; a writer that is
//! not a terminal strips them (`anstream`).

use anstyle::{AnsiColor, Style};
use similar::{ChangeTag, DiffOp, TextDiff};
use std::io::{self, Write};
use unicode_width::UnicodeWidthChar;

/// Unchanged lines shown around each change.
const CONTEXT: usize = 3;
const TAB_WIDTH: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Unified,
    /// Two columns in `width` terminal columns.
    SideBySide {
        width: usize,
    },
}

const HEADER: Style = Style::new().bold();
const HUNK: Style = AnsiColor::Cyan.on_default();
const REMOVED: Style = AnsiColor::Red.on_default();
const ADDED: Style = AnsiColor::Green.on_default();
const LINE_NUMBER: Style = Style::new().dimmed();

/// Write the diff of `original` (named `name`) against `instrumented`.
/// Nothing is written when they are equal.
pub fn write(
    out: &mut dyn Write,
    name: &str,
    original: &str,
    instrumented: &str,
    layout: Layout,
) -> io::Result<()> {
    let diff = TextDiff::from_lines(original, instrumented);
    if diff
        .ops()
        .iter()
        .all(|op| op.tag() == similar::DiffTag::Equal)
    {
        return Ok(());
    }
    writeln!(out, "{HEADER}--- {name}{HEADER:#}")?;
    writeln!(out, "{HEADER}+++ {name} (instrumented){HEADER:#}")?;
    match layout {
        Layout::Unified => unified(out, &diff),
        Layout::SideBySide { width } => side_by_side(out, &diff, width),
    }
}

fn unified<'t>(out: &mut dyn Write, diff: &'t TextDiff<'t, 't, 't, str>) -> io::Result<()> {
    for hunk in diff.unified_diff().context_radius(CONTEXT).iter_hunks() {
        writeln!(out, "{HUNK}{}{HUNK:#}", hunk.header())?;
        for op in hunk.ops() {
            for change in diff.iter_inline_changes(op) {
                let (sign, style) = match change.tag() {
                    ChangeTag::Equal => (' ', Style::new()),
                    ChangeTag::Delete => ('-', REMOVED),
                    ChangeTag::Insert => ('+', ADDED),
                };
                write!(out, "{style}{sign}")?;
                for (emphasised, text) in change.iter_strings_lossy() {
                    // A `\r` of a CRLF line stays, so that the diff applies.
                    let text = text.strip_suffix('\n').unwrap_or(&text);
                    if emphasised {
                        let strong = style.bold().underline();
                        write!(out, "{strong}{text}{strong:#}{style}")?;
                    } else {
                        write!(out, "{text}")?;
                    }
                }
                writeln!(out, "{style:#}")?;
                if change.missing_newline() {
                    writeln!(out, "\\ No newline at end of file")?;
                }
            }
        }
    }
    Ok(())
}

/// One row per line: old line number and text, then the new ones. Lines
/// that do not fit their column are cut.
fn side_by_side(
    out: &mut dyn Write,
    diff: &TextDiff<'_, '_, '_, str>,
    width: usize,
) -> io::Result<()> {
    let old = diff.old_slices();
    let new = diff.new_slices();
    let number_width = old.len().max(new.len()).max(1).to_string().len();
    // Two line numbers with a space each, and the separator " │ ".
    let column = width.saturating_sub(2 * (number_width + 1) + 3).max(20) / 2;
    let cell = |line: Option<usize>, lines: &[&str], style: Style| -> String {
        match line {
            Some(i) => {
                let (text, used) = fit(lines[i], column);
                format!(
                    "{LINE_NUMBER}{:>number_width$}{LINE_NUMBER:#} {style}{text}{style:#}{}",
                    i + 1,
                    " ".repeat(column - used)
                )
            }
            None => " ".repeat(number_width + 1 + column),
        }
    };
    for (n, group) in diff.grouped_ops(CONTEXT).iter().enumerate() {
        if n > 0 {
            writeln!(out, "{HUNK}{}{HUNK:#}", "┈".repeat(width.min(200)))?;
        }
        for op in group {
            let (old_range, new_range) = (op.old_range(), op.new_range());
            let (old_style, new_style) = match op {
                DiffOp::Equal { .. } => (Style::new(), Style::new()),
                _ => (REMOVED, ADDED),
            };
            let rows = old_range.len().max(new_range.len());
            for row in 0..rows {
                let left = (row < old_range.len()).then(|| old_range.start + row);
                let right = (row < new_range.len()).then(|| new_range.start + row);
                let marker = match (left, right, op) {
                    (_, _, DiffOp::Equal { .. }) => '│',
                    (Some(_), Some(_), _) => '┃',
                    (Some(_), None, _) => '<',
                    (None, _, _) => '>',
                };
                let right = match right {
                    Some(_) => cell(right, new, new_style),
                    None => String::new(),
                };
                let line = format!("{} {marker} {right}", cell(left, old, old_style));
                writeln!(out, "{}", line.trim_end())?;
            }
        }
    }
    Ok(())
}

/// `line` without its line break, tabs expanded, cut to `width` terminal
/// columns, and the columns it takes.
fn fit(line: &str, width: usize) -> (String, usize) {
    let mut pieces: Vec<(String, usize)> = vec![];
    let mut used = 0;
    let mut cut = false;
    for c in line.trim_end_matches(['\n', '\r']).chars() {
        let piece = match c {
            '\t' => {
                let w = TAB_WIDTH - used % TAB_WIDTH;
                (" ".repeat(w), w)
            }
            c => (c.to_string(), c.width().unwrap_or(0)),
        };
        if used + piece.1 > width {
            cut = true;
            break;
        }
        used += piece.1;
        pieces.push(piece);
    }
    if cut && width > 0 {
        // The last column says the line goes on.
        while used + 1 > width {
            let Some((_, w)) = pieces.pop() else { break };
            used -= w;
        }
        pieces.push(("…".into(), 1));
        used += 1;
    }
    (pieces.into_iter().map(|(text, _)| text).collect(), used)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(original: &str, instrumented: &str, layout: Layout) -> String {
        let mut out = Vec::new();
        write(&mut out, "f.c", original, instrumented, layout).unwrap();
        anstream::adapter::strip_str(&String::from_utf8(out).unwrap()).to_string()
    }

    #[test]
    fn unified_marks_inserted_lines_and_keeps_context() {
        let original = "a\nb\nc\n";
        let instrumented = "a\nX\nb\nc\n";
        let text = render(original, instrumented, Layout::Unified);
        assert_eq!(
            text,
            "--- f.c\n+++ f.c (instrumented)\n@@ -1,3 +1,4 @@\n a\n+X\n b\n c\n"
        );
    }

    #[test]
    fn equal_texts_give_nothing() {
        assert_eq!(render("a\n", "a\n", Layout::Unified), "");
    }

    #[test]
    fn side_by_side_pairs_lines_and_cuts_long_ones() {
        let original = "keep\nold line that is long\n";
        let instrumented = "keep\nnew\nadded\n";
        let text = render(original, instrumented, Layout::SideBySide { width: 40 });
        let rows: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(rows.len(), 3, "{text}");
        assert!(
            rows[0].starts_with("1 keep") && rows[0].contains("│ 1 keep"),
            "{text}"
        );
        assert!(
            rows[1].contains("old line that i… ┃") && rows[1].ends_with("┃ 2 new"),
            "{text}"
        );
        assert!(rows[2].ends_with("> 3 added"), "{text}");
        assert!(rows.iter().all(|r| r.chars().count() <= 40), "{text}");
    }

    #[test]
    fn tabs_and_wide_characters_take_their_columns() {
        assert_eq!(fit("\tx", 6), ("    x".into(), 5));
        assert_eq!(fit("日本語", 5), ("日本…".into(), 5));
        assert_eq!(fit("ab\r\n", 5), ("ab".into(), 2));
    }
}

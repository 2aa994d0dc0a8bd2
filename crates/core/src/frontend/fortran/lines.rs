//! The file as lines: which are directive lines, which are code, comments or
//! blank, and the text of every directive with its continuation lines joined.
//!
//! Directives are comments to a Fortran compiler, so they are found here,
//! lexically, before any parsing.

use crate::diagnostics::Diagnostic;
use crate::directive::Sentinel;
use crate::language::fortran::{
    self,
    fixed_form::{self, Fields},
};
use crate::source::Span;

/// One physical line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Line {
    pub start: usize,
    /// End of the line's text, before `\n` or `\r\n`.
    pub end: usize,
    /// Start of the next line (or the end of the file).
    pub next: usize,
}

/// What a line is, read once: every later step asks the scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LineKind {
    Blank,
    /// Comments, including other sentinels (`!$acc`).
    Comment,
    /// A line of an `!$omp` or `!$pomp` directive.
    Directive,
    Preprocessor,
    /// A line marker (`# 12 "app.F90"`, `#line 12`): a preprocessor line
    /// that is nothing to the statements and directives around it, which
    /// go on across it as across a blank line.
    Marker,
    /// Code, `!$` and `!P$` lines included.
    Code(Code),
}

/// A line of code: when it is code, and where its statement text lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Code {
    pub condition: Condition,
    /// Fixed form: the line's fields. Free form has none.
    pub fields: Option<Fields>,
}

/// When a line is code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Condition {
    Always,
    /// `!$ code`: code when compiled with OpenMP. The sentinel's offset in
    /// the line.
    OpenMp {
        sentinel: usize,
    },
    /// `!P$ code` (fixed form also `CP$`, `*P$`): code when instrumenting.
    /// The sentinel's offset in the line.
    Instrumenting {
        sentinel: usize,
    },
}

impl Condition {
    /// Where the sentinel stands in the line, if there is one.
    pub fn sentinel(self) -> Option<std::ops::Range<usize>> {
        match self {
            Condition::Always => None,
            Condition::OpenMp { sentinel } => Some(sentinel..sentinel + 2),
            Condition::Instrumenting { sentinel } => Some(sentinel..sentinel + 3),
        }
    }
}

/// A directive as found in the file, before its text is parsed.
#[derive(Clone, Debug)]
pub(crate) struct RawDirective {
    pub sentinel: Sentinel,
    pub span: Span,
    pub lines: Span,
    /// Sentinels, continuation marks and trailing comments removed.
    pub text: String,
}

pub(crate) struct Scan {
    pub lines: Vec<Line>,
    pub kinds: Vec<LineKind>,
    pub directives: Vec<RawDirective>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Scan {
    /// Where the sentinels of the `!$` lines and of the `!P$` lines stand
    /// in the file, each ascending.
    pub fn conditional_sentinels(&self) -> (Vec<usize>, Vec<usize>) {
        let (mut openmp, mut pomp) = (Vec::new(), Vec::new());
        for (line, kind) in self.lines.iter().zip(&self.kinds) {
            match kind {
                LineKind::Code(Code {
                    condition: Condition::OpenMp { sentinel },
                    ..
                }) => openmp.push(line.start + sentinel),
                LineKind::Code(Code {
                    condition: Condition::Instrumenting { sentinel },
                    ..
                }) => pomp.push(line.start + sentinel),
                _ => {}
            }
        }
        (openmp, pomp)
    }

    /// The index of the first line after `line` that is no blank line,
    /// comment line or line marker: where a directive's continuation is
    /// looked for, as gfortran looks for it.
    fn next_continuable(&self, line: usize) -> usize {
        (line + 1..self.lines.len())
            .find(|&i| {
                !matches!(
                    self.kinds[i],
                    LineKind::Blank | LineKind::Comment | LineKind::Marker
                )
            })
            .unwrap_or(self.lines.len())
    }

    /// Index of the line containing `offset`.
    pub fn line_index(&self, offset: usize) -> usize {
        self.lines
            .partition_point(|l| l.next <= offset)
            .min(self.lines.len().saturating_sub(1))
    }
}

pub(crate) fn split_lines(bytes: &[u8]) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let (end, next) = match bytes[start..].iter().position(|&b| b == b'\n') {
            Some(i) => {
                let newline = start + i;
                let end = if newline > start && bytes[newline - 1] == b'\r' {
                    newline - 1
                } else {
                    newline
                };
                (end, newline + 1)
            }
            None => (bytes.len(), bytes.len()),
        };
        lines.push(Line { start, end, next });
        start = next;
    }
    lines
}

/// A sentinel at the start of `text`, and its length.
fn directive_sentinel(text: &[u8]) -> Option<(Sentinel, usize)> {
    let lower: Vec<u8> = text.iter().take(6).map(u8::to_ascii_lowercase).collect();
    if lower.len() < 2 || lower[1] != b'$' {
        return None;
    }
    if lower[2..].starts_with(b"omp") {
        Some((Sentinel::Omp, 5))
    } else if lower[2..].starts_with(b"pomp") {
        Some((Sentinel::Pomp, 6))
    } else {
        None
    }
}

/// Where a `!P$` sentinel (fixed form also `CP$`, `*P$`) stands on a line
/// (`text` without its line end), if the line is one of pomp's conditional
/// lines: code when instrumenting, a comment otherwise. Free form wants a
/// blank, `&` or the end of the line after the sentinel; fixed form wants
/// the sentinel in columns 1-3 and blanks or digits in columns 4-5, like
/// the `!$` sentinel.
fn pomp_conditional_sentinel(text: &[u8], fixed_form: bool) -> Option<usize> {
    let at = if fixed_form {
        0
    } else {
        text.iter().position(|&b| !is_blank(b))?
    };
    let sentinel = text.get(at..at + 3)?;
    let comment_start = match fixed_form {
        true => fixed_form::is_comment_start(sentinel[0]),
        false => sentinel[0] == b'!',
    };
    if !(comment_start && sentinel[1].eq_ignore_ascii_case(&b'p') && sentinel[2] == b'$') {
        return None;
    }
    let after_ok = if fixed_form {
        fixed_form::is_conditional_line(text, 3)
    } else {
        text.get(at + 3).is_none_or(|&b| is_blank(b) || b == b'&')
    };
    after_ok.then_some(at)
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Where a `!` comment starts in `text`, outside character literals.
/// `quote` is the literal open at the start of `text` (a continued string)
/// and is left as the literal still open at its end.
pub(crate) fn comment_start(text: &[u8], quote: &mut Option<u8>) -> Option<usize> {
    for (i, &b) in text.iter().enumerate() {
        match *quote {
            Some(q) if b == q => *quote = None,
            Some(_) => {}
            None if b == b'\'' || b == b'"' => *quote = Some(b),
            None if b == b'!' => return Some(i),
            None => {}
        }
    }
    None
}

/// A directive line's text after the sentinel: trailing comment removed,
/// then a trailing `&` (free form) removed and reported.
fn directive_content(text: &[u8]) -> (&[u8], bool) {
    let mut quote = None;
    let text = match comment_start(text, &mut quote) {
        Some(i) => &text[..i],
        None => text,
    };
    let trimmed = trim_end(text);
    match trimmed.last() {
        Some(b'&') => (&trimmed[..trimmed.len() - 1], true),
        _ => (trimmed, false),
    }
}

fn trim_end(text: &[u8]) -> &[u8] {
    let len = text
        .iter()
        .rposition(|&b| !is_blank(b))
        .map_or(0, |i| i + 1);
    &text[..len]
}

pub(crate) fn scan(bytes: &[u8], fixed_form: bool) -> Scan {
    let lines = split_lines(bytes);
    let mut scan = Scan {
        kinds: vec![LineKind::Blank; lines.len()],
        lines,
        directives: vec![],
        diagnostics: vec![],
    };
    if fixed_form {
        scan_fixed(bytes, &mut scan);
    } else {
        scan_free(bytes, &mut scan);
    }
    scan
}

fn scan_free(bytes: &[u8], scan: &mut Scan) {
    // (sentinel, first sentinel byte) of each directive line.
    let mut sentinels = vec![None; scan.lines.len()];
    for (i, line) in scan.lines.iter().enumerate() {
        let text = &bytes[line.start..line.end];
        let Some(first) = text.iter().position(|&b| !is_blank(b)) else {
            continue;
        };
        let rest = &text[first..];
        let code = |condition| {
            LineKind::Code(Code {
                condition,
                fields: None,
            })
        };
        scan.kinds[i] = match rest[0] {
            _ if crate::source::markers::is_marker(text) => LineKind::Marker,
            _ if fortran::is_preprocessor_line(text) => LineKind::Preprocessor,
            b'!' if pomp_conditional_sentinel(rest, false).is_some() => {
                code(Condition::Instrumenting { sentinel: first })
            }
            b'!' => match directive_sentinel(rest) {
                Some((sentinel, len))
                    if rest.get(len).is_none_or(|&b| is_blank(b) || b == b'&') =>
                {
                    sentinels[i] = Some((sentinel, line.start + first, len));
                    LineKind::Directive
                }
                _ if rest.get(1) == Some(&b'$')
                    && rest.get(2).is_none_or(|&b| is_blank(b) || b == b'&') =>
                {
                    code(Condition::OpenMp { sentinel: first })
                }
                _ => LineKind::Comment,
            },
            _ => code(Condition::Always),
        };
    }
    let mut i = 0;
    while i < scan.lines.len() {
        let Some((sentinel, start, len)) = sentinels[i] else {
            i += 1;
            continue;
        };
        let (content, mut continued) = directive_content(&bytes[start + len..scan.lines[i].end]);
        let mut text = content.to_vec();
        let mut last = i;
        let mut broken = false;
        while continued {
            let next = scan.next_continuable(last);
            match sentinels.get(next).copied().flatten() {
                Some((s, start, len)) if s == sentinel => {
                    let (content, more) =
                        directive_content(&bytes[start + len..scan.lines[next].end]);
                    let content = match content.iter().position(|&b| !is_blank(b)) {
                        // `!$omp& x`: the text goes on right after the `&`.
                        Some(k) if content[k] == b'&' => &content[k + 1..],
                        _ => {
                            text.push(b' ');
                            content
                        }
                    };
                    text.extend_from_slice(content);
                    continued = more;
                    last = next;
                }
                _ => {
                    broken = true;
                    break;
                }
            }
        }
        let span = start..scan.lines[last].end;
        if broken {
            scan.diagnostics.push(
                Diagnostic::error(
                    span,
                    "directive continued with `&` but the next line is not a directive line",
                    "continued here",
                )
                .with_note("a directive's continuation lines begin with the same sentinel"),
            );
        } else {
            scan.directives.push(RawDirective {
                sentinel,
                span,
                lines: scan.lines[i].start..scan.lines[last].next,
                text: String::from_utf8_lossy(&text).into_owned(),
            });
        }
        i = last + 1;
    }
}

fn scan_fixed(bytes: &[u8], scan: &mut Scan) {
    // (sentinel, sentinel length, is continuation) of each directive line.
    let mut sentinels = vec![None; scan.lines.len()];
    for (i, line) in scan.lines.iter().enumerate() {
        let text = &bytes[line.start..line.end];
        let visible = &text[..text.len().min(fixed_form::LAST_COLUMN)];
        if visible.iter().all(|&b| is_blank(b)) {
            continue;
        }
        let code = |condition| {
            LineKind::Code(Code {
                condition,
                fields: Some(fixed_form::fields(text)),
            })
        };
        scan.kinds[i] = match text[0] {
            _ if crate::source::markers::is_marker(text) => LineKind::Marker,
            _ if fortran::is_preprocessor_line(text) => LineKind::Preprocessor,
            first
                if fixed_form::is_comment_start(first)
                    && pomp_conditional_sentinel(text, true).is_some() =>
            {
                code(Condition::Instrumenting { sentinel: 0 })
            }
            first if fixed_form::is_comment_start(first) => match directive_sentinel(text) {
                Some((sentinel, len)) => {
                    sentinels[i] = Some((
                        sentinel,
                        len,
                        fixed_form::is_continuation_mark(visible.get(len)),
                    ));
                    LineKind::Directive
                }
                None if text.get(1) == Some(&b'$') && fixed_form::is_conditional_line(text, 2) => {
                    code(Condition::OpenMp { sentinel: 0 })
                }
                None => LineKind::Comment,
            },
            first if fixed_form::is_debug_line_start(first) => LineKind::Comment,
            _ => {
                let first = visible.iter().position(|&b| !is_blank(b)).unwrap_or(0);
                // `!` starts a comment anywhere but in the continuation column.
                if visible[first] == b'!' && first != fixed_form::CONTINUATION_COLUMN - 1 {
                    LineKind::Comment
                } else {
                    code(Condition::Always)
                }
            }
        };
    }
    let content = |line: &Line, len: usize| -> Vec<u8> {
        let visible_end = line.end.min(line.start + fixed_form::LAST_COLUMN);
        let from = (line.start + len + 1).min(visible_end);
        let (text, _) = directive_content_fixed(&bytes[from..visible_end]);
        let mut text = text.to_vec();
        // Short lines are padded with blanks up to column 72: the end of a
        // line separates words.
        if visible_end - line.start < fixed_form::LAST_COLUMN {
            text.push(b' ');
        }
        text
    };
    let mut i = 0;
    while i < scan.lines.len() {
        let Some((sentinel, len, continuation)) = sentinels[i] else {
            i += 1;
            continue;
        };
        let line = scan.lines[i];
        if continuation {
            scan.diagnostics.push(Diagnostic::error(
                line.start..line.end,
                "directive continuation line without a directive to continue",
                "continuation mark in column 6",
            ));
            i += 1;
            continue;
        }
        let mut text = content(&line, len);
        let mut last = i;
        while let Some(Some((s, len, true))) = sentinels.get(scan.next_continuable(last)).copied() {
            if s != sentinel {
                break;
            }
            last = scan.next_continuable(last);
            text.extend(content(&scan.lines[last], len));
        }
        scan.directives.push(RawDirective {
            sentinel,
            span: line.start..scan.lines[last].end,
            lines: line.start..scan.lines[last].next,
            text: String::from_utf8_lossy(trim_end(&text)).into_owned(),
        });
        i = last + 1;
    }
}

fn directive_content_fixed(text: &[u8]) -> (&[u8], bool) {
    let mut quote = None;
    match comment_start(text, &mut quote) {
        Some(i) => (&text[..i], true),
        None => (text, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each line's kind by name, with where a conditional line's sentinel
    /// stands.
    fn kinds(scan: &Scan) -> Vec<String> {
        (scan.kinds.iter())
            .map(|kind| match kind {
                LineKind::Blank => "blank".to_string(),
                LineKind::Comment => "comment".to_string(),
                LineKind::Directive => "directive".to_string(),
                LineKind::Preprocessor => "preprocessor".to_string(),
                LineKind::Marker => "marker".to_string(),
                LineKind::Code(code) => match code.condition {
                    Condition::Always => "code".to_string(),
                    Condition::OpenMp { sentinel } => format!("openmp@{sentinel}"),
                    Condition::Instrumenting { sentinel } => format!("pomp@{sentinel}"),
                },
            })
            .collect()
    }

    fn texts(source: &str, fixed: bool) -> Vec<(String, String)> {
        let scan = scan(source.as_bytes(), fixed);
        scan.directives
            .iter()
            .map(|d| {
                (
                    source[d.span.clone()].to_string(),
                    d.text.split_whitespace().collect::<Vec<_>>().join(" "),
                )
            })
            .collect()
    }

    #[test]
    fn free_form_continuations_and_comments() {
        let source = "x = 1\n  !$OMP parallel do &  ! first\n  !$omp& private(i) &\n!$omp  shared(a)\r\n!$ y = 2\n!$acc kernels\n!P$ z\n";
        assert_eq!(
            texts(source, false),
            vec![(
                "!$OMP parallel do &  ! first\n  !$omp& private(i) &\n!$omp  shared(a)".to_string(),
                "parallel do private(i) shared(a)".to_string()
            )]
        );
        let scan = scan(source.as_bytes(), false);
        assert_eq!(
            kinds(&scan),
            [
                "code",
                "directive",
                "directive",
                "directive",
                "openmp@0",
                "comment",
                "pomp@0"
            ]
        );
        let indented = super::scan(b"  !$ x = 1\n \t!P$ y = 2\n", false);
        assert_eq!(kinds(&indented), ["openmp@2", "pomp@2"]);
        assert_eq!(
            &source[scan.directives[0].lines.clone()],
            &source[6..source.find("!$ y").unwrap()]
        );
    }

    #[test]
    fn free_form_pomp_and_strings() {
        let source = "!$pomp inst begin(foo)\n!$omp critical(a) ! it's\n!$omp flush(x) ! '!'\n";
        assert_eq!(
            texts(source, false)
                .into_iter()
                .map(|(_, t)| t)
                .collect::<Vec<_>>(),
            vec!["inst begin(foo)", "critical(a)", "flush(x)"]
        );
        assert_eq!(
            scan(source.as_bytes(), false).directives[0].sentinel,
            Sentinel::Pomp
        );
    }

    #[test]
    fn sentinels_match_whole_not_by_prefix() {
        // `ompx`/`omx` are the sentinels of implementation extensions, and
        // `!$acc` is OpenACC's: comments to pomp, like any other text.
        let free = "!$ompx parallel\n!$omp_x parallel\n!$pompx inst init\n!$omp parallel\n";
        let found = scan(free.as_bytes(), false);
        assert_eq!(found.directives.len(), 1);
        assert_eq!(found.directives[0].text.trim(), "parallel");
        assert_eq!(
            kinds(&found),
            ["comment", "comment", "comment", "directive"]
        );
        // In fixed form the sentinel fills columns 1-5 and column 6 marks a
        // continuation, so `!$ompx` continues a directive.
        let fixed = "!$omx parallel\nc$omp parallel\nc$ompx private(i)\n";
        let found = scan(fixed.as_bytes(), true);
        assert_eq!(kinds(&found), ["comment", "directive", "directive"]);
        assert_eq!(found.directives.len(), 1);
        assert_eq!(
            found.directives[0]
                .text
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["parallel", "private(i)"]
        );
    }

    #[test]
    fn continuations_go_on_past_blank_comment_and_marker_lines() {
        let free = "!$omp parallel do &\n\n! why\n# 12 \"a.F90\"\n!$omp& private(i)\ndo i = 1, 2\n";
        let text = |source: &str, fixed| texts(source, fixed)[0].1.clone();
        assert_eq!(text(free, false), "parallel do private(i)");
        let scan = scan(free.as_bytes(), false);
        assert_eq!(scan.kinds[3], LineKind::Marker);
        let fixed = "c$omp parallel do\n\nc why\n#line 12\nc$omp+ private(i)\n      do i = 1, 2\n";
        assert_eq!(text(fixed, true), "parallel do private(i)");
        // A directive not continued ends before the lines after it.
        let ended = "c$omp barrier\n\n# 3 \"a.F\"\n      x = 1\n";
        assert_eq!(texts(ended, true)[0].0, "c$omp barrier");
    }

    #[test]
    fn broken_free_form_continuation_is_an_error() {
        let scan = scan(b"!$omp parallel &\nx = 1\n", false);
        assert!(scan.directives.is_empty());
        assert_eq!(scan.diagnostics.len(), 1);
    }

    #[test]
    fn fixed_form_sentinels_and_continuations() {
        let long = format!(
            "c$omp parallel do private(i){}IGNORED\n",
            " ".repeat(72 - 28)
        );
        let source = format!("C$OMP parallel\nc$omp+private(x)\n*$OMP barrier\n{long}!$omp end parallel\nc$    x = 1\nC     comment\n");
        assert_eq!(
            texts(&source, true)
                .into_iter()
                .map(|(_, t)| t)
                .collect::<Vec<_>>(),
            vec![
                "parallel private(x)",
                "barrier",
                "parallel do private(i)",
                "end parallel"
            ]
        );
        let scan = scan(source.as_bytes(), true);
        assert_eq!(kinds(&scan)[5..], ["openmp@0", "comment"]);
        let LineKind::Code(code) = scan.kinds[5] else {
            panic!("a conditional line is code");
        };
        let fields = code.fields.expect("fixed form keeps a code line's fields");
        assert_eq!(fields.statement_start(), 6);
        assert_eq!(fields.continuation_mark(), None);
    }
}

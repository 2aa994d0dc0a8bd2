//! The text tree-sitter-fortran reads, and the way back to the file's bytes.
//!
//! tree-sitter-fortran reads free form. Free-form files are parsed as they
//! are, except that `!$` conditional lines are unmasked (an OpenMP compiler
//! compiles them, and declarations may only go after their `use`s), and so
//! are pomp's `!P$` lines, which are code in the instrumented file. Fixed
//! form becomes equivalent free form of the same length wherever possible:
//! comment lines get `!` in column 1, columns past 72 become blanks, and a
//! continuation mark in column 6 becomes `&`. Free form also needs an `&`
//! at the end of the line being continued; those `&` are inserted.
//!
//! A continuation may split a token (`logical_&` then `&check(i)`, or a
//! number), which the compiler joins and the grammar does not: where the
//! code touches the continuation on both sides, the text from the first
//! `&` through the second (in fixed form, from the end of the code through
//! the continuation mark) is left out, so the grammar reads the token
//! whole. Both kinds of change are kept to map offsets back exactly.

use super::lines::{comment_start, LineKind, Scan};
use crate::language::fortran::is_macro_statement;
use std::ops::Range;

pub(crate) struct ParseText {
    pub bytes: Vec<u8>,
    /// Where the parse text stops following the file byte for byte: from
    /// parse offset `.0` on, offsets map to `.1` plus the distance from
    /// `.0`. Ascending in both.
    breaks: Vec<(usize, usize)>,
    /// Where the macro statements start in the file, ascending.
    pub macro_statements: Vec<usize>,
}

/// A change from the file's bytes to the parse text.
enum Change {
    /// An `&` before this original offset.
    Ampersand(usize),
    /// `call ` before this original offset, where a macro statement starts.
    Call(usize),
    /// These original bytes left out.
    Omit(Range<usize>),
}

impl Change {
    fn at(&self) -> usize {
        match self {
            Change::Ampersand(at) | Change::Call(at) => *at,
            Change::Omit(range) => range.start,
        }
    }
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Whether code that ends right before one continuation mark and goes on
/// right after the other is one token or literal split in two.
fn touches(before: Option<&u8>, after: Option<&u8>) -> bool {
    before.is_some_and(|&b| !is_blank(b)) && after.is_some_and(|&b| !is_blank(b) && b != b'!')
}

impl ParseText {
    /// `preprocessed`: the compiler preprocesses the file, so a statement
    /// that is only a name that no Fortran statement is made of, alone or
    /// with one parenthesised list (`MY_CHECK(n == 1)`), is a macro. Its
    /// expansion stands in its place, so it is read as one statement: the
    /// grammar reads `call ` before it.
    pub fn free(bytes: &[u8], scan: &Scan, preprocessed: bool) -> ParseText {
        let mut out = bytes.to_vec();
        for (line, kind) in scan.lines.iter().zip(&scan.kinds) {
            if let LineKind::Code(code) = kind {
                if let Some(sentinel) = code.condition.sentinel() {
                    out[line.start + sentinel.start..line.start + sentinel.end].fill(b' ');
                }
            }
        }
        let mut changes = Vec::new();
        // The `&` that ends the last code line, while its continuation is
        // still to come, and the literal open at it.
        let mut open: Option<usize> = None;
        let mut quote: Option<u8> = None;
        for (line, kind) in scan.lines.iter().zip(&scan.kinds) {
            match kind {
                LineKind::Code(_) => {}
                // Comment lines may stand between a line and its
                // continuation, and so may line markers, which the grammar
                // reads as blanks.
                LineKind::Blank | LineKind::Comment => continue,
                LineKind::Marker => {
                    out[line.start..line.end].fill(b' ');
                    continue;
                }
                LineKind::Directive | LineKind::Preprocessor => {
                    open = None;
                    continue;
                }
            }
            let text = &out[line.start..line.end];
            // Lines of branches not compiled are blank here.
            let Some(first) = text.iter().position(|&b| !is_blank(b)) else {
                continue;
            };
            let mut body = first;
            let continuation = open.is_some();
            match open.take() {
                Some(amp) if text[first] == b'&' => {
                    body = first + 1;
                    let after = line.start + body;
                    if touches(amp.checked_sub(1).map(|b| &out[b]), out.get(after)) {
                        changes.push(Change::Omit(amp..after));
                    }
                }
                _ => quote = None,
            }
            let code = &text[body..];
            let code_end = comment_start(code, &mut quote).unwrap_or(code.len());
            let code = &code[..code_end];
            match code.iter().rposition(|&b| !is_blank(b)) {
                Some(last) if code[last] == b'&' => open = Some(line.start + body + last),
                Some(_)
                    if preprocessed && !continuation && is_macro_statement(code.trim_ascii()) =>
                {
                    changes.push(Change::Call(line.start + body));
                    quote = None;
                }
                _ => quote = None,
            }
        }
        ParseText::changed(out, changes)
    }

    /// `bytes` is the file with the lines `blanked` (indexes, ascending)
    /// made blanks: lines of preprocessor branches not compiled.
    pub fn fixed(bytes: &[u8], scan: &Scan, blanked: &[usize]) -> ParseText {
        let mut out = bytes.to_vec();
        let mut changes = Vec::new();
        // Where the code of the last code line ends: a continuation line
        // puts its `&` there.
        let mut continuable: Option<usize> = None;
        let mut quote: Option<u8> = None;
        for (index, (line, kind)) in scan.lines.iter().zip(&scan.kinds).enumerate() {
            let code = match kind {
                LineKind::Comment | LineKind::Directive => {
                    out[line.start] = b'!';
                    continue;
                }
                // A line marker, to the grammar, is a blank line.
                LineKind::Blank | LineKind::Marker => {
                    // Blank up to column 72, but anything past it is ignored.
                    for b in &mut out[line.start..line.end] {
                        if *b != b'\t' {
                            *b = b' ';
                        }
                    }
                    continue;
                }
                LineKind::Preprocessor => {
                    continuable = None;
                    continue;
                }
                LineKind::Code(code) => code,
            };
            if blanked.binary_search(&index).is_ok() {
                // Code not compiled: it continues nothing, and a character
                // literal does not go on past it.
                quote = None;
                continuable = None;
                continue;
            }
            if let Some(sentinel) = code.condition.sentinel() {
                out[line.start + sentinel.start..line.start + sentinel.end].fill(b' ');
            }
            let field = code
                .fields
                .expect("the scan of fixed form keeps the fields of every code line");
            let (statement_start, visible_end) = (field.statement_start(), field.visible_end());
            out[line.start + visible_end..line.end].fill(b' ');
            match field.continuation_mark() {
                Some(mark) => {
                    for b in &mut out[line.start..line.start + mark] {
                        if *b != b'\t' {
                            *b = b' ';
                        }
                    }
                    out[line.start + mark] = b'&';
                    if let Some(at) = continuable {
                        let after = line.start + mark + 1;
                        let before = at.checked_sub(1).map(|b| &out[b]);
                        let after_byte = (after < line.start + visible_end).then(|| &out[after]);
                        changes.push(match touches(before, after_byte) {
                            true => Change::Omit(at..after),
                            false => Change::Ampersand(at),
                        });
                    }
                }
                None => {
                    quote = None;
                    if let Some(zero) = field.zero_mark() {
                        out[line.start + zero] = b' ';
                    }
                }
            }
            let code =
                &bytes[line.start + statement_start.min(visible_end)..line.start + visible_end];
            let code_end = match comment_start(code, &mut quote) {
                Some(i) => statement_start + i,
                None => visible_end,
            };
            continuable = Some(line.start + code_end);
        }
        ParseText::changed(out, changes)
    }

    /// `text` (of the file's length) with `changes` (ascending) made.
    fn changed(text: Vec<u8>, changes: Vec<Change>) -> ParseText {
        if changes.is_empty() {
            return ParseText {
                bytes: text,
                breaks: vec![],
                macro_statements: vec![],
            };
        }
        let mut bytes = Vec::with_capacity(text.len() + changes.len());
        let mut breaks = Vec::with_capacity(changes.len());
        let mut from = 0;
        let mut macro_statements = Vec::new();
        for change in &changes {
            let at = change.at().max(from);
            bytes.extend_from_slice(&text[from..at]);
            from = at;
            match change {
                Change::Ampersand(_) => bytes.push(b'&'),
                Change::Call(at) => {
                    bytes.extend_from_slice(b"call ");
                    macro_statements.push(*at);
                }
                Change::Omit(range) => from = range.end.max(from),
            }
            breaks.push((bytes.len(), from));
        }
        bytes.extend_from_slice(&text[from..]);
        ParseText {
            bytes,
            breaks,
            macro_statements,
        }
    }

    /// The original offset of a parse-text offset. Inserted bytes map to
    /// the position they were inserted at.
    pub fn to_original(&self, at: usize) -> usize {
        let k = self.breaks.partition_point(|&(parse, _)| parse <= at);
        let mapped = match k {
            0 => at,
            k => {
                let (parse, original) = self.breaks[k - 1];
                original + (at - parse)
            }
        };
        match self.breaks.get(k) {
            Some(&(_, next)) => mapped.min(next),
            None => mapped,
        }
    }

    /// The parse-text offset of an original offset; bytes left out map to
    /// where they would have been.
    pub fn to_parse(&self, at: usize) -> usize {
        let k = self.breaks.partition_point(|&(_, original)| original <= at);
        let mapped = match k {
            0 => at,
            k => {
                let (parse, original) = self.breaks[k - 1];
                parse + (at - original)
            }
        };
        match self.breaks.get(k) {
            Some(&(next, _)) => mapped.min(next),
            None => mapped,
        }
    }

    pub fn span_to_original(&self, span: Range<usize>) -> Range<usize> {
        self.to_original(span.start)..self.to_original(span.end)
    }
}

#[cfg(test)]
mod tests {
    use super::super::lines::scan;
    use super::*;

    fn fixed(source: &str) -> ParseText {
        ParseText::fixed(source.as_bytes(), &scan(source.as_bytes(), true), &[])
    }

    #[test]
    fn fixed_form_becomes_free_form() {
        let source = "C comment\n      x = 1 +   ! why\n     +    2\n*$omp barrier\nc$    y = 3\n   100z = 4\n";
        let text = fixed(source);
        assert_eq!(
            String::from_utf8(text.bytes.clone()).unwrap(),
            "! comment\n      x = 1 +   &! why\n     &    2\n!$omp barrier\n      y = 3\n   10 z = 4\n"
        );
        let amp = source.find("! why").unwrap();
        assert_eq!(text.to_original(amp), amp);
        assert_eq!(text.to_original(amp + 1), amp);
        assert_eq!(text.to_parse(amp), amp + 1);
        assert_eq!(text.to_original(text.bytes.len()), source.len());
        assert_eq!(text.to_parse(3), 3);
    }

    #[test]
    fn columns_past_72_are_ignored() {
        let source = format!("      x = 1{}IGNORED\n     &+ 2\n", " ".repeat(72 - 11));
        let text = fixed(&source);
        let expected = format!("      x = 1{}&       \n     &+ 2\n", " ".repeat(72 - 11));
        assert_eq!(String::from_utf8(text.bytes).unwrap(), expected);
    }

    #[test]
    fn tab_continuation() {
        let text = fixed("\tcall f(a,\n\t1 b)\n");
        assert_eq!(
            String::from_utf8(text.bytes).unwrap(),
            "\tcall f(a,&\n\t& b)\n"
        );
    }

    #[test]
    fn free_form_unmasks_conditional_lines() {
        let source = "  !$ use omp_lib\n!$omp barrier\n";
        let text = ParseText::free(source.as_bytes(), &scan(source.as_bytes(), false), true);
        assert_eq!(
            String::from_utf8(text.bytes).unwrap(),
            "     use omp_lib\n!$omp barrier\n"
        );
    }

    #[test]
    fn free_form_joins_a_split_token() {
        let source = "x = a .neqv. logical_&\n  ! between\n   &check(i) + 12&\n&34 &\n  & + 1\n";
        let text = ParseText::free(source.as_bytes(), &scan(source.as_bytes(), false), true);
        assert_eq!(
            String::from_utf8(text.bytes.clone()).unwrap(),
            "x = a .neqv. logical_check(i) + 1234 &\n  & + 1\n"
        );
        let check = source.find("check").unwrap();
        let parsed = text.bytes.windows(5).position(|w| w == b"check").unwrap();
        assert_eq!(text.to_original(parsed), check);
        assert_eq!(text.to_parse(check), parsed);
        assert_eq!(
            text.to_original(parsed - 1),
            check - 1 - "&\n  ! between\n   &".len()
        );
        assert_eq!(text.to_original(text.bytes.len()), source.len());
        assert_eq!(text.to_parse(source.find("&\n  !").unwrap()), parsed);
    }

    #[test]
    fn fixed_form_joins_a_split_token() {
        let text = fixed("      x = 12\n     +34 +\n     + 5\n");
        assert_eq!(
            String::from_utf8(text.bytes.clone()).unwrap(),
            "      x = 1234 +&\n     & 5\n"
        );
        assert_eq!(text.to_original(12), 12 + "\n     +".len());
    }
}

//! The text tree-sitter-fortran reads, and the way back to the file's bytes.
//!
//! tree-sitter-fortran reads free form. Free-form files are parsed as they
//! are, except that `!$` conditional lines are unmasked (an OpenMP compiler
//! compiles them, and declarations may only go after their `use`s), and so
//! are pomp's `!P$` lines, which are code in the instrumented file. Fixed
//! form becomes equivalent free form of the same length wherever possible:
//! comment lines get `!` in column 1, columns past 72 become blanks, and a
//! continuation mark in column 6 becomes `&`. Free form also needs an `&`
//! at the end of the line being continued; those are the only bytes
//! inserted, and their positions are kept to map offsets back exactly.

use super::lines::{comment_start, LineKind, Scan};

pub(crate) struct ParseText {
    pub bytes: Vec<u8>,
    /// Offsets in the original file before which one `&` was inserted,
    /// ascending.
    inserted_before: Vec<usize>,
}

impl ParseText {
    pub fn free(bytes: &[u8], scan: &Scan) -> ParseText {
        let mut out = bytes.to_vec();
        for (line, kind) in scan.lines.iter().zip(&scan.kinds) {
            if let LineKind::Code(code) = kind {
                if let Some(sentinel) = code.condition.sentinel() {
                    out[line.start + sentinel.start..line.start + sentinel.end].fill(b' ');
                }
            }
        }
        ParseText {
            bytes: out,
            inserted_before: vec![],
        }
    }

    /// `bytes` is the file with the lines `blanked` (indexes, ascending)
    /// made blanks: lines of preprocessor branches not compiled.
    pub fn fixed(bytes: &[u8], scan: &Scan, blanked: &[usize]) -> ParseText {
        let mut out = bytes.to_vec();
        let mut inserted_before = Vec::new();
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
                LineKind::Blank => {
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
                        inserted_before.push(at);
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
        let mut bytes = Vec::with_capacity(out.len() + inserted_before.len());
        let mut from = 0;
        for &at in &inserted_before {
            bytes.extend_from_slice(&out[from..at]);
            bytes.push(b'&');
            from = at;
        }
        bytes.extend_from_slice(&out[from..]);
        ParseText {
            bytes,
            inserted_before,
        }
    }

    /// The original offset of a parse-text offset. An inserted `&` maps to
    /// the position it was inserted at.
    pub fn to_original(&self, at: usize) -> usize {
        // The k-th inserted `&` sits at `inserted_before[k] + k` in the
        // parse text; those positions ascend too.
        let (mut low, mut high) = (0, self.inserted_before.len());
        while low < high {
            let k = (low + high) / 2;
            if self.inserted_before[k] + k < at {
                low = k + 1;
            } else {
                high = k;
            }
        }
        at - low
    }

    pub fn to_parse(&self, at: usize) -> usize {
        at + self.inserted_before.partition_point(|&p| p <= at)
    }

    pub fn span_to_original(&self, span: std::ops::Range<usize>) -> std::ops::Range<usize> {
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
        let text = fixed("\tcall f(a,\n\t1b)\n");
        assert_eq!(
            String::from_utf8(text.bytes).unwrap(),
            "\tcall f(a,&\n\t&b)\n"
        );
    }

    #[test]
    fn free_form_unmasks_conditional_lines() {
        let source = "  !$ use omp_lib\n!$omp barrier\n";
        let text = ParseText::free(source.as_bytes(), &scan(source.as_bytes(), false));
        assert_eq!(
            String::from_utf8(text.bytes).unwrap(),
            "     use omp_lib\n!$omp barrier\n"
        );
    }
}

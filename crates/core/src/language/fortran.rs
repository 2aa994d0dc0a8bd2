//! Fortran, free and fixed form.

use super::facts::{Facts, Language};
use std::path::Path;

pub const FREE: Facts = Facts {
    language: Language::FortranFree,
    name: "fortran-free",
    suffixes: &[
        "f90", "F90", "f95", "F95", "f03", "F03", "f08", "F08", "f18", "F18",
    ],
    preprocessed_suffixes: &[],
    compiler_names: &["f95-cpp-input", "f95"],
    editor_ids: &["fortran", "fortran90", "FortranFreeForm"],
};

pub const FIXED: Facts = Facts {
    language: Language::FortranFixed,
    name: "fortran-fixed",
    suffixes: &[
        "f", "F", "for", "FOR", "f77", "F77", "ftn", "FTN", "fpp", "FPP",
    ],
    preprocessed_suffixes: &[],
    compiler_names: &["f77-cpp-input", "f77"],
    editor_ids: &["fortran_fixed-form", "FortranFixedForm"],
};

/// Suffixes of files only included, never compiled, in Fortran.
pub const HEADER_SUFFIXES: &[&str] = &["fh", "fi"];

/// Whether gfortran preprocesses a file by its suffix alone: a capital
/// one (`.F90`, `.F`), or `.fpp`.
pub fn preprocessed_by_suffix(path: &Path) -> bool {
    path.extension()
        .map(|suffix| suffix.to_string_lossy())
        .is_some_and(|suffix| suffix.chars().any(|c| c.is_ascii_uppercase()) || suffix == "fpp")
}

/// Whether a line (without its line end) is a preprocessor line: gfortran
/// reads a `#` in the first column as one, in either form, whatever the
/// lines around it are.
pub fn is_preprocessor_line(text: &[u8]) -> bool {
    text.first() == Some(&b'#')
}

/// The spans of the preprocessor lines of `bytes`, without their line
/// ends.
pub fn preprocessor_lines(bytes: &[u8]) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut start = 0;
    std::iter::from_fn(move || {
        while start < bytes.len() {
            let newline = memchr::memchr(b'\n', &bytes[start..]).map(|at| start + at);
            let next = newline.map_or(bytes.len(), |at| at + 1);
            let mut end = newline.unwrap_or(bytes.len());
            if end > start && bytes[end - 1] == b'\r' {
                end -= 1;
            }
            let line = start..end;
            start = next;
            if is_preprocessor_line(&bytes[line.clone()]) {
                return Some(line);
            }
        }
        None
    })
}

/// The keywords that make a whole statement alone or with one
/// parenthesised list after them (`continue`, `save`, `rewind(10)`,
/// `case (1)`), also spelt without the blanks free form lets go
/// (`selectcase(x)`, `syncall`), besides every `end...` statement. A statement that is
/// only another name, or another name and one list, is no Fortran: in a
/// preprocessed file it is a macro the preprocessor replaces.
pub const LONE_KEYWORDS: &[&str] = &[
    "allocate",
    "associate",
    "backspace",
    "block",
    "blockdata",
    "case",
    "casedefault",
    "changeteam",
    "classdefault",
    "classis",
    "close",
    "contains",
    "continue",
    "critical",
    "cycle",
    "deallocate",
    "do",
    "else",
    "elsewhere",
    "entry",
    "equivalence",
    "errorstop",
    "eventpost",
    "eventwait",
    "exit",
    "failimage",
    "flush",
    "format",
    "import",
    "inquire",
    "interface",
    "lock",
    "nullify",
    "open",
    "parameter",
    "pause",
    "pointer",
    "private",
    "protected",
    "public",
    "rank",
    "rankdefault",
    "read",
    "return",
    "rewind",
    "save",
    "selectcase",
    "selectrank",
    "selecttype",
    "sequence",
    "stop",
    "syncall",
    "syncimages",
    "syncmemory",
    "typeis",
    "unlock",
    "wait",
    "write",
];

/// Whether `statement` (one whole statement, trimmed, without comment)
/// can only be a macro statement: a name, alone or with one parenthesised
/// list, that no Fortran statement is made of.
pub fn is_macro_statement(statement: &[u8]) -> bool {
    let name_end = statement
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
        .unwrap_or(statement.len());
    let name = &statement[..name_end];
    if !name
        .first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
    {
        return false;
    }
    let lower = name.to_ascii_lowercase();
    if lower.starts_with(b"end") || LONE_KEYWORDS.iter().any(|k| k.as_bytes() == lower) {
        return false;
    }
    let rest = statement[name_end..].trim_ascii_start();
    rest.is_empty() || rest.first() == Some(&b'(') && closes_at_end(rest)
}

/// Whether `text`, starting with `(`, is one balanced list ending where
/// the text ends (parentheses in character literals not counted).
fn closes_at_end(text: &[u8]) -> bool {
    let (mut depth, mut quote) = (0usize, None);
    for (i, &b) in text.iter().enumerate() {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'\'' | b'"' => quote = Some(b),
                b'(' => depth += 1,
                b')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return i + 1 == text.len();
                    }
                }
                _ => {}
            },
        }
    }
    false
}

/// The conditional compilation sentinel: a line starting with it is code
/// when compiled with OpenMP, a comment otherwise.
pub const CONDITIONAL_SENTINEL: &str = "!$";

/// Free form: a statement's text anywhere on a line, `&` continuing it.
pub mod free_form {
    /// The longest line gfortran accepts by default.
    pub const LAST_COLUMN: usize = 132;
}

/// The columns of fixed form: a label field, a continuation column, the
/// statement field up to column 72, and what the compiler ignores past it.
pub mod fixed_form {
    /// Everything past this column is ignored.
    pub const LAST_COLUMN: usize = 72;
    /// The column (1-based) whose character marks a continuation line.
    pub const CONTINUATION_COLUMN: usize = 6;
    /// The label field and the continuation column left blank: what a
    /// line of code starts with to begin a statement in column 7.
    pub const STATEMENT_INDENT: &str = "      ";
    /// The label field left blank and `&` in the continuation column: what
    /// a line continuing a statement starts with.
    pub const CONTINUATION_INDENT: &str = "     &";

    /// Whether a line starting with `first` is a comment line (or a
    /// directive, which is a comment to a compiler without OpenMP): `c`,
    /// `C`, `*` or `!` in column 1.
    pub fn is_comment_start(first: u8) -> bool {
        matches!(first, b'!' | b'c' | b'C' | b'*')
    }

    /// Whether a line starting with `first` is a debugging line (`d` in
    /// column 1), a comment unless the compiler is told otherwise.
    pub fn is_debug_line_start(first: u8) -> bool {
        matches!(first, b'd' | b'D')
    }

    /// Whether the character in the continuation column marks a
    /// continuation line: anything but a blank or a zero.
    pub fn is_continuation_mark(character: Option<&u8>) -> bool {
        character.is_some_and(|&b| b != b' ' && b != b'0')
    }

    /// Whether a line with a sentinel of `sentinel_length` characters in
    /// column 1 (`!$`, `!P$`) is a conditional line: only blanks and digits
    /// (a label) may follow it up to column 5.
    pub fn is_conditional_line(text: &[u8], sentinel_length: usize) -> bool {
        text.iter()
            .take(CONTINUATION_COLUMN - 1)
            .skip(sentinel_length)
            .all(|&b| b == b' ' || b == b'\t' || b.is_ascii_digit())
    }

    /// Whether an indentation of `indent` reaches the statement field: a
    /// tab in the label field moves the statement to column 7.
    pub fn reaches_statement_field(indent: &str) -> bool {
        let columns: usize = indent
            .chars()
            .map(|c| if c == '\t' { CONTINUATION_COLUMN } else { 1 })
            .sum();
        columns >= CONTINUATION_COLUMN
    }

    /// The fields of a code line, as offsets into the line. Every offset
    /// lies within the first 72 columns, so a byte holds it: a file keeps
    /// the fields of each of its lines.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Fields {
        continuation_mark: Option<u8>,
        zero_mark: bool,
        statement_start: u8,
        visible_end: u8,
    }

    impl Fields {
        /// The continuation mark's offset, if the line continues a
        /// statement.
        pub fn continuation_mark(self) -> Option<usize> {
            self.continuation_mark.map(usize::from)
        }

        /// The offset of a `0` in the continuation column, which marks an
        /// initial line as a blank does.
        pub fn zero_mark(self) -> Option<usize> {
            self.zero_mark.then_some(CONTINUATION_COLUMN - 1)
        }

        /// Where the statement field starts.
        pub fn statement_start(self) -> usize {
            usize::from(self.statement_start)
        }

        /// Where the visible text ends: column 72, or the line's end.
        pub fn visible_end(self) -> usize {
            usize::from(self.visible_end)
        }
    }

    /// The fields of the code line `text`. A tab in the label field moves
    /// the statement to column 7, and a nonzero digit right after the tab
    /// marks a continuation line.
    pub fn fields(text: &[u8]) -> Fields {
        // Offsets up to column 72 fit a byte.
        let narrow = |offset: usize| offset.min(LAST_COLUMN) as u8;
        if let Some(tab) = text
            .iter()
            .take(CONTINUATION_COLUMN)
            .position(|&b| b == b'\t')
        {
            let continued = text.get(tab + 1).is_some_and(|b| (b'1'..=b'9').contains(b));
            return Fields {
                continuation_mark: continued.then_some(narrow(tab + 1)),
                zero_mark: false,
                statement_start: narrow(tab + 1 + continued as usize),
                visible_end: narrow(
                    text.len()
                        .min(tab + 1 + (LAST_COLUMN - CONTINUATION_COLUMN)),
                ),
            };
        }
        let mark = text.get(CONTINUATION_COLUMN - 1);
        let continued = is_continuation_mark(mark);
        Fields {
            continuation_mark: continued.then_some(narrow(CONTINUATION_COLUMN - 1)),
            zero_mark: mark == Some(&b'0'),
            statement_start: narrow(CONTINUATION_COLUMN.min(text.len())),
            visible_end: narrow(text.len().min(LAST_COLUMN)),
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn fields_of_blank_and_tab_formatted_lines() {
            let plain = fields(b"     &x = 1");
            assert_eq!(plain.continuation_mark(), Some(5));
            assert_eq!(plain.statement_start(), 6);
            let tabbed = fields(b"\t1b)");
            assert_eq!(tabbed.continuation_mark(), Some(1));
            assert_eq!(tabbed.statement_start(), 2);
            let long = vec![b'x'; 80];
            assert_eq!(fields(&long).visible_end(), LAST_COLUMN);
            assert_eq!(fields(b"      x = 1").continuation_mark(), None);
            let zero = fields(b"     0x = 1");
            assert_eq!(zero.continuation_mark(), None);
            assert_eq!(zero.zero_mark(), Some(5));
            assert_eq!(fields(b"\t0x = 1").zero_mark(), None);
        }

        #[test]
        fn indentation_of_inserted_lines() {
            assert_eq!(STATEMENT_INDENT.len(), CONTINUATION_COLUMN);
            assert_eq!(CONTINUATION_INDENT.len(), CONTINUATION_COLUMN);
            assert!(is_continuation_mark(CONTINUATION_INDENT.as_bytes().last()));
            assert!(reaches_statement_field(STATEMENT_INDENT));
            assert!(reaches_statement_field("\t"));
            assert!(!reaches_statement_field("    "));
        }
    }
}

#[cfg(test)]
mod macro_statement_tests {
    use super::is_macro_statement;

    #[test]
    fn only_names_no_statement_is_made_of_are_macros() {
        for macro_use in ["MY_TEST_MACRO", "CHECK(n == 1)", "LOG('a)', x)", "_M"] {
            assert!(is_macro_statement(macro_use.as_bytes()), "{macro_use}");
        }
        for statement in [
            "continue",
            "RETURN",
            "enddo",
            "rewind(10)",
            "selectcase (k)",
            "case (1)",
            "f(x) = 1",
            "call f",
            "x(1) = 2",
            "CHECK(n) + 1",
            "",
        ] {
            assert!(!is_macro_statement(statement.as_bytes()), "{statement}");
        }
    }
}

//! Fortran, free and fixed form.

use super::{Facts, Language};
use std::path::Path;

pub const FREE: Facts = Facts {
    language: Language::FortranFree,
    name: "fortran-free",
    suffixes: &[
        "f90", "F90", "f95", "F95", "f03", "F03", "f08", "F08", "f18", "F18",
    ],
    compiler_names: &["f95-cpp-input", "f95"],
    editor_ids: &["fortran", "fortran90", "FortranFreeForm"],
};

pub const FIXED: Facts = Facts {
    language: Language::FortranFixed,
    name: "fortran-fixed",
    suffixes: &[
        "f", "F", "for", "FOR", "f77", "F77", "ftn", "FTN", "fpp", "FPP",
    ],
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

/// The columns of fixed form: a label field, a continuation column, the
/// statement field up to column 72, and what the compiler ignores past it.
pub mod fixed_form {
    /// Everything past this column is ignored.
    pub const LAST_COLUMN: usize = 72;
    /// The column (1-based) whose character marks a continuation line.
    pub const CONTINUATION_COLUMN: usize = 6;

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

    /// The fields of a code line, as offsets into the line.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Fields {
        /// The continuation mark's offset, if the line continues a
        /// statement.
        pub continuation_mark: Option<usize>,
        /// Where the statement field starts.
        pub statement_start: usize,
        /// Where the visible text ends: column 72, or the line's end.
        pub visible_end: usize,
    }

    /// The fields of the code line `text`. A tab in the label field moves
    /// the statement to column 7, and a nonzero digit right after the tab
    /// marks a continuation line.
    pub fn fields(text: &[u8]) -> Fields {
        if let Some(tab) = text
            .iter()
            .take(CONTINUATION_COLUMN)
            .position(|&b| b == b'\t')
        {
            let continued = text.get(tab + 1).is_some_and(|b| (b'1'..=b'9').contains(b));
            return Fields {
                continuation_mark: continued.then_some(tab + 1),
                statement_start: tab + 1 + continued as usize,
                visible_end: text
                    .len()
                    .min(tab + 1 + (LAST_COLUMN - CONTINUATION_COLUMN)),
            };
        }
        let continued = is_continuation_mark(text.get(CONTINUATION_COLUMN - 1));
        Fields {
            continuation_mark: continued.then_some(CONTINUATION_COLUMN - 1),
            statement_start: CONTINUATION_COLUMN.min(text.len()),
            visible_end: text.len().min(LAST_COLUMN),
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn fields_of_blank_and_tab_formatted_lines() {
            let plain = fields(b"     &x = 1");
            assert_eq!(plain.continuation_mark, Some(5));
            assert_eq!(plain.statement_start, 6);
            let tabbed = fields(b"\t1b)");
            assert_eq!(tabbed.continuation_mark, Some(1));
            assert_eq!(tabbed.statement_start, 2);
            let long = vec![b'x'; 80];
            assert_eq!(fields(&long).visible_end, LAST_COLUMN);
            assert_eq!(fields(b"      x = 1").continuation_mark, None);
            assert_eq!(fields(b"     0x = 1").continuation_mark, None);
        }
    }
}

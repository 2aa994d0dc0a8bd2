//! The tree-sitter grammars pomp parses C, C++ and Fortran with.
//!
//! The parsers tree-sitter generates turn the C compiler's optimizer off
//! for their own code (`#pragma GCC optimize ("O0")` and its clang and
//! MSVC forms), which keeps the compile of very large grammars short. For
//! pomp the parse is most of a run, so the build script compiles the
//! grammar crates' own sources again without that pragma, under names of
//! its own, with the lexers' character tests and the parse table's
//! lookups written in faster forms of the same tables (`build.rs`); the
//! tests below compare every state with the crates' grammars. Where it
//! cannot find those sources (vendored ones, say), the grammar crates'
//! builds are used and the build prints a warning saying so: the same
//! grammars, only slower. tree-sitter's parser itself is compiled here
//! too, and trained where the compiler is GCC ([`Parser`]).

use tree_sitter_language::LanguageFn;

#[cfg(pomp_grammars_compiled)]
mod compiled {
    use tree_sitter_language::LanguageFn;

    unsafe extern "C" {
        fn pomp_tree_sitter_c() -> *const ();
        fn pomp_tree_sitter_cpp() -> *const ();
        fn pomp_tree_sitter_fortran() -> *const ();
    }

    // SAFETY: the functions are the generated ones, renamed by the build.
    pub const C: LanguageFn = unsafe { LanguageFn::from_raw(pomp_tree_sitter_c) };
    pub const CPP: LanguageFn = unsafe { LanguageFn::from_raw(pomp_tree_sitter_cpp) };
    pub const FORTRAN: LanguageFn = unsafe { LanguageFn::from_raw(pomp_tree_sitter_fortran) };
}

#[cfg(not(pomp_grammars_compiled))]
mod compiled {
    pub use tree_sitter_c::LANGUAGE as C;
    pub use tree_sitter_cpp::LANGUAGE as CPP;
    pub use tree_sitter_fortran::LANGUAGE as FORTRAN;
}

/// The C grammar of `tree-sitter-c`.
pub const C: LanguageFn = compiled::C;
/// The C++ grammar of `tree-sitter-cpp`.
pub const CPP: LanguageFn = compiled::CPP;
/// The Fortran grammar of `tree-sitter-fortran`.
pub const FORTRAN: LanguageFn = compiled::FORTRAN;

/// A tree-sitter parser for one grammar. Its trees are the `tree-sitter`
/// crate's [`tree_sitter::Tree`]s, read with that crate as any other.
///
/// Parsing is most of what instrumenting C++ costs, and tree-sitter's
/// parser is C code whose branches a compiler lays out better once it has
/// seen them taken. The build compiles the `tree-sitter` crate's own C
/// sources (the locked version) a second time under names of its own:
/// in optimized builds with GCC, once with profiling, then runs the
/// result on the sources in `training/` and compiles them again with
/// that profile. Both builds are of the same sources, so the trees are
/// the same (the tests below compare them), and a tree one build makes,
/// the other frees: set another allocator with [`set_allocator`], which
/// gives it to both.
pub struct Parser {
    inner: parser::Inner,
}

impl Parser {
    /// A parser for `grammar`.
    ///
    /// # Panics
    /// If the grammar was generated for another version of tree-sitter's
    /// parser than the one linked, which the lock file rules out.
    pub fn new(grammar: LanguageFn) -> Parser {
        Parser {
            inner: parser::Inner::new(grammar),
        }
    }

    /// Parses `text`, reading only `ranges` of it (all of it when there are
    /// none); with `old`, a tree of an earlier text already told how that
    /// text was edited into this one, only what the edit touched is parsed
    /// again.
    ///
    /// # Panics
    /// If `ranges` are not sorted and disjoint, or `text` is longer than
    /// 4 GiB.
    pub fn parse(
        &mut self,
        text: &[u8],
        ranges: &[tree_sitter::Range],
        old: Option<&tree_sitter::Tree>,
    ) -> tree_sitter::Tree {
        self.inner.set_included_ranges(ranges);
        self.inner.parse(text, old)
    }
}

/// Sets the allocator of both builds of tree-sitter's parser, this
/// crate's and the `tree-sitter` crate's, as
/// [`tree_sitter::set_allocator`] does for the latter.
///
/// # Safety
/// No tree, parser or other object of tree-sitter's may exist: it would
/// be freed by another allocator than made it.
pub unsafe fn set_allocator(
    malloc: Option<unsafe extern "C" fn(size: usize) -> *mut std::ffi::c_void>,
    calloc: Option<unsafe extern "C" fn(count: usize, size: usize) -> *mut std::ffi::c_void>,
    realloc: Option<
        unsafe extern "C" fn(at: *mut std::ffi::c_void, size: usize) -> *mut std::ffi::c_void,
    >,
    free: Option<unsafe extern "C" fn(at: *mut std::ffi::c_void)>,
) {
    // SAFETY: as the caller promises.
    unsafe {
        tree_sitter::set_allocator(malloc, calloc, realloc, free);
        parser::set_allocator(malloc, calloc, realloc, free);
    }
}

#[cfg(pomp_parser_compiled)]
mod parser {
    use std::ffi::c_void;
    use std::ptr::NonNull;
    use tree_sitter::{ffi, Tree};
    use tree_sitter_language::LanguageFn;

    unsafe extern "C" {
        #[link_name = "pomp_ts_set_allocator"]
        pub(super) fn set_allocator(
            malloc: Option<unsafe extern "C" fn(size: usize) -> *mut c_void>,
            calloc: Option<unsafe extern "C" fn(count: usize, size: usize) -> *mut c_void>,
            realloc: Option<unsafe extern "C" fn(at: *mut c_void, size: usize) -> *mut c_void>,
            free: Option<unsafe extern "C" fn(at: *mut c_void)>,
        );
        fn pomp_ts_parser_new() -> *mut ffi::TSParser;
        fn pomp_ts_parser_delete(parser: *mut ffi::TSParser);
        fn pomp_ts_parser_set_language(
            parser: *mut ffi::TSParser,
            language: *const ffi::TSLanguage,
        ) -> bool;
        fn pomp_ts_parser_set_included_ranges(
            parser: *mut ffi::TSParser,
            ranges: *const ffi::TSRange,
            count: u32,
        ) -> bool;
        fn pomp_ts_parser_parse_string(
            parser: *mut ffi::TSParser,
            old: *const ffi::TSTree,
            text: *const std::ffi::c_char,
            length: u32,
        ) -> *mut ffi::TSTree;
    }

    pub(super) struct Inner {
        parser: NonNull<ffi::TSParser>,
    }

    impl Inner {
        pub(super) fn new(grammar: LanguageFn) -> Inner {
            // SAFETY: the parser is new and owned here; the language
            // function returns a static grammar.
            unsafe {
                let parser = NonNull::new(pomp_ts_parser_new()).expect("tree-sitter allocates");
                let language = grammar.into_raw()().cast::<ffi::TSLanguage>();
                assert!(
                    pomp_ts_parser_set_language(parser.as_ptr(), language),
                    "the grammar was generated for this version of tree-sitter"
                );
                Inner { parser }
            }
        }

        /// Made for each parse and copied by the parser: kept here, the
        /// room of the longest list would stay taken until the program
        /// ends.
        pub(super) fn set_included_ranges(&mut self, ranges: &[tree_sitter::Range]) {
            let ranges: Vec<ffi::TSRange> = ranges.iter().map(|&r| r.into()).collect();
            let count = u32::try_from(ranges.len()).expect("fewer than 4 G ranges");
            // SAFETY: the parser copies the ranges during the call.
            let sorted = unsafe {
                pomp_ts_parser_set_included_ranges(self.parser.as_ptr(), ranges.as_ptr(), count)
            };
            assert!(sorted, "included ranges are sorted and disjoint");
        }

        pub(super) fn parse(&mut self, text: &[u8], old: Option<&Tree>) -> Tree {
            let length = u32::try_from(text.len()).expect("a text of at most 4 GiB");
            // The tree-sitter crate lends no pointer to a tree it owns: a
            // copy (a count more on the same nodes) is lent and dropped.
            let old = old.map(|tree| tree.clone().into_raw());
            // SAFETY: the text outlives the call, which reads it only while
            // parsing; `old` is a tree owned here until it is given back to
            // be dropped.
            unsafe {
                let tree = pomp_ts_parser_parse_string(
                    self.parser.as_ptr(),
                    old.unwrap_or(std::ptr::null_mut()),
                    text.as_ptr().cast(),
                    length,
                );
                if let Some(old) = old {
                    drop(Tree::from_raw(old));
                }
                Tree::from_raw(
                    NonNull::new(tree)
                        .expect("a parse with neither timeout nor cancellation returns a tree")
                        .as_ptr(),
                )
            }
        }
    }

    impl Drop for Inner {
        fn drop(&mut self) {
            // SAFETY: the parser was made by `new` and is dropped once.
            unsafe { pomp_ts_parser_delete(self.parser.as_ptr()) }
        }
    }
}

#[cfg(not(pomp_parser_compiled))]
mod parser {
    use std::ffi::c_void;
    use tree_sitter::Tree;
    use tree_sitter_language::LanguageFn;

    /// There is one build of the parser, whose allocator is set already.
    pub(super) unsafe fn set_allocator(
        _: Option<unsafe extern "C" fn(size: usize) -> *mut c_void>,
        _: Option<unsafe extern "C" fn(count: usize, size: usize) -> *mut c_void>,
        _: Option<unsafe extern "C" fn(at: *mut c_void, size: usize) -> *mut c_void>,
        _: Option<unsafe extern "C" fn(at: *mut c_void)>,
    ) {
    }

    pub(super) struct Inner(tree_sitter::Parser);

    impl Inner {
        pub(super) fn new(grammar: LanguageFn) -> Inner {
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&grammar.into())
                .expect("the grammar was generated for this version of tree-sitter");
            Inner(parser)
        }

        pub(super) fn set_included_ranges(&mut self, ranges: &[tree_sitter::Range]) {
            (self.0)
                .set_included_ranges(ranges)
                .expect("included ranges are sorted and disjoint");
        }

        pub(super) fn parse(&mut self, text: &[u8], old: Option<&Tree>) -> Tree {
            (self.0)
                .parse(text, old)
                .expect("a parse with neither timeout nor cancellation returns a tree")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sexp(grammar: LanguageFn, text: &str) -> String {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&grammar.into()).unwrap();
        parser.parse(text, None).unwrap().root_node().to_sexp()
    }

    /// Falling back is allowed to a build, not here, where it would go
    /// unnoticed: the build's warning says why it fell back.
    #[cfg(not(pomp_grammars_compiled))]
    #[test]
    fn the_build_compiled_the_grammars() {
        panic!("the build fell back to the grammar crates' own builds");
    }

    /// The grammars compiled here are the crates' grammars: the same
    /// symbols and the same trees (the C++ and Fortran ones with their
    /// external scanners, raw strings and continuation lines).
    #[test]
    fn the_grammars_are_the_crates_grammars() {
        let pairs = [
            (C, tree_sitter_c::LANGUAGE, "int f(int x) { for (;;) { x++; } return x; }\n"),
            (
                CPP,
                tree_sitter_cpp::LANGUAGE,
                "template <class T> T g(T t) { auto s = R\"x(a)\"b)x\"; return t < 2 ? t : T{}; }\n",
            ),
            (
                FORTRAN,
                tree_sitter_fortran::LANGUAGE,
                "program p\n  x = 1 + &\n      2\n  print *, 'a''b'\nend program p\n",
            ),
        ];
        for (ours, theirs, text) in pairs {
            let (ours_language, theirs_language): (tree_sitter::Language, tree_sitter::Language) =
                (ours.into(), theirs.into());
            assert_eq!(
                ours_language.node_kind_count(),
                theirs_language.node_kind_count()
            );
            assert_eq!(ours_language.abi_version(), theirs_language.abi_version());
            let tree = sexp(ours, text);
            assert!(!tree.contains("ERROR"), "{tree}");
            assert_eq!(tree, sexp(theirs, text));
        }
    }

    /// The parse tables compiled here, some of whose states the build
    /// made dense, give every lookup the crates' tables give: for every
    /// state and symbol the same next state, and for every state the same
    /// symbols with an action.
    #[test]
    fn every_state_moves_as_in_the_crates_grammars() {
        for (ours, theirs) in [
            (C, tree_sitter_c::LANGUAGE),
            (CPP, tree_sitter_cpp::LANGUAGE),
            (FORTRAN, tree_sitter_fortran::LANGUAGE),
        ] {
            let (ours, theirs): (tree_sitter::Language, tree_sitter::Language) =
                (ours.into(), theirs.into());
            assert_eq!(ours.parse_state_count(), theirs.parse_state_count());
            let states = 0..u16::try_from(theirs.parse_state_count()).unwrap();
            // The symbols the parser looks up: aliases follow them, and
            // a lookup of one would read past the table.
            let symbols = (states.clone())
                .flat_map(|state| theirs.lookahead_iterator(state).unwrap())
                .max()
                .unwrap()
                + 1;
            for state in states {
                for symbol in 0..symbols {
                    assert_eq!(
                        ours.next_state(state, symbol),
                        theirs.next_state(state, symbol),
                        "state {state}, symbol {symbol}"
                    );
                }
                let valid = |language: &tree_sitter::Language| {
                    let mut valid: Vec<u16> = language.lookahead_iterator(state).unwrap().collect();
                    valid.sort_unstable();
                    valid
                };
                assert_eq!(valid(&ours), valid(&theirs), "state {state}");
            }
        }
    }

    /// The corpus's C, C++ and Fortran files, each with the grammar
    /// compiled here and the grammar crate's.
    fn corpus() -> Vec<(std::path::PathBuf, LanguageFn, LanguageFn)> {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
        let mut files = Vec::new();
        for directory in std::fs::read_dir(&corpus).unwrap() {
            for file in std::fs::read_dir(directory.unwrap().path()).unwrap() {
                let path = file.unwrap().path();
                let (ours, theirs) = match path.extension().and_then(|e| e.to_str()) {
                    Some("c" | "h") => (C, tree_sitter_c::LANGUAGE),
                    Some("cpp" | "cc" | "hpp") => (CPP, tree_sitter_cpp::LANGUAGE),
                    Some("f" | "F" | "f90" | "F90" | "f95" | "for") => {
                        (FORTRAN, tree_sitter_fortran::LANGUAGE)
                    }
                    _ => continue,
                };
                files.push((path, ours, theirs));
            }
        }
        assert!(
            files.len() > 80,
            "{} C, C++ and Fortran files in {}",
            files.len(),
            corpus.display()
        );
        files
    }

    /// Where each file is cut short: a few places, which send the parser
    /// through its error recovery, and its end.
    fn cuts(text: &str) -> impl Iterator<Item = usize> + '_ {
        let quarters = (1..4).map(|quarter| text.floor_char_boundary(text.len() * quarter / 4));
        quarters.chain([text.len()])
    }

    /// Whole programs, and each cut short: the same trees as the crates'
    /// grammars give, errors and all.
    #[test]
    fn the_corpus_parses_as_with_the_crates_grammars() {
        for (path, ours, theirs) in corpus() {
            let text = std::fs::read_to_string(&path).unwrap();
            for end in cuts(&text) {
                assert_eq!(
                    sexp(ours, &text[..end]),
                    sexp(theirs, &text[..end]),
                    "{} up to byte {end}",
                    path.display()
                );
            }
        }
    }

    /// Falling back is allowed to a build, not here.
    #[cfg(not(pomp_parser_compiled))]
    #[test]
    fn the_build_compiled_the_parser() {
        panic!("the build fell back to the tree-sitter crate's parser");
    }

    /// The lines of `text` holding a brace, as ranges: what a partial
    /// parse reads, and the parser's moves from one range to the next.
    fn braced_lines(text: &str) -> Vec<tree_sitter::Range> {
        let mut ranges = Vec::new();
        let mut start = 0;
        for (row, line) in text.split_inclusive('\n').enumerate() {
            let end = start + line.trim_end_matches('\n').len();
            if line.contains(['{', '}']) {
                ranges.push(tree_sitter::Range {
                    start_byte: start,
                    end_byte: end,
                    start_point: tree_sitter::Point::new(row, 0),
                    end_point: tree_sitter::Point::new(row, end - start),
                });
            }
            start += line.len();
        }
        ranges
    }

    /// [`Parser`] makes the trees the `tree-sitter` crate's parser makes:
    /// on every file of the corpus, whole, cut short and read in ranges.
    #[test]
    fn the_parser_parses_as_the_tree_sitter_crates() {
        for (path, grammar, _) in corpus() {
            let text = std::fs::read_to_string(&path).unwrap();
            let mut ours = Parser::new(grammar);
            let mut theirs = tree_sitter::Parser::new();
            theirs.set_language(&grammar.into()).unwrap();
            for end in cuts(&text) {
                let text = &text[..end];
                for ranges in [Vec::new(), braced_lines(text)] {
                    theirs.set_included_ranges(&ranges).unwrap();
                    let expected = theirs.parse(text, None).unwrap();
                    let tree = ours.parse(text.as_bytes(), &ranges, None);
                    assert_eq!(
                        tree.root_node().to_sexp(),
                        expected.root_node().to_sexp(),
                        "{} up to byte {end}, {} ranges",
                        path.display(),
                        ranges.len()
                    );
                    assert_eq!(tree.included_ranges(), expected.included_ranges());
                }
            }
        }
    }

    /// The old tree given is the one parsed from: told of no edit, the
    /// parser takes it whole, as it is, for a text it no longer fits.
    #[test]
    fn the_old_tree_given_is_the_one_parsed_from() {
        let mut parser = Parser::new(C);
        let old = parser.parse(b"int a;\n", &[], None);
        let unedited = parser.parse(b"b++  ;\n", &[], Some(&old));
        let fresh = parser.parse(b"b++  ;\n", &[], None);
        assert_eq!(unedited.root_node().to_sexp(), old.root_node().to_sexp());
        assert_ne!(unedited.root_node().to_sexp(), fresh.root_node().to_sexp());
    }

    /// A tree of an edited text, parsed again from the old tree, is the
    /// tree of a fresh parse, and the old tree is still whole after it.
    #[test]
    fn a_parse_again_from_an_edited_tree_is_a_fresh_parse() {
        let before = "int f(int x) {\n  return x + 1;\n}\nint g(void) { return 2; }\n";
        let after = "int f(int x) {\n  if (x) return x - 1;\n  return x + 1;\n}\nint g(void) { return 2; }\n";
        let mut parser = Parser::new(C);
        let mut old = parser.parse(before.as_bytes(), &[], None);
        let old_sexp = old.root_node().to_sexp();
        let at = before.find("  return").unwrap();
        let inserted = "  if (x) return x - 1;\n".len();
        old.edit(&tree_sitter::InputEdit {
            start_byte: at,
            old_end_byte: at,
            new_end_byte: at + inserted,
            start_position: tree_sitter::Point::new(1, 0),
            old_end_position: tree_sitter::Point::new(1, 0),
            new_end_position: tree_sitter::Point::new(2, 0),
        });
        let again = parser.parse(after.as_bytes(), &[], Some(&old));
        let fresh = Parser::new(C).parse(after.as_bytes(), &[], None);
        assert_eq!(again.root_node().to_sexp(), fresh.root_node().to_sexp());
        assert!(!fresh.root_node().has_error());
        assert_eq!(old.root_node().to_sexp(), old_sexp);
    }
}

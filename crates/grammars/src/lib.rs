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
//! grammars, only slower.

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

/// Whether the grammars were compiled by this crate, with the optimizer
/// on, rather than taken from the grammar crates' builds.
pub const COMPILED_HERE: bool = cfg!(pomp_grammars_compiled);

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

    /// Whole programs, and each cut short at a few places, which sends
    /// the parser through its error recovery: the same trees as the
    /// crates' grammars give, errors and all.
    #[test]
    fn the_corpus_parses_as_with_the_crates_grammars() {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
        let mut files = 0;
        for directory in std::fs::read_dir(&corpus).unwrap() {
            for file in std::fs::read_dir(directory.unwrap().path()).unwrap() {
                let path = file.unwrap().path();
                let grammars = match path.extension().and_then(|e| e.to_str()) {
                    Some("c" | "h") => (C, tree_sitter_c::LANGUAGE),
                    Some("cpp" | "cc" | "hpp") => (CPP, tree_sitter_cpp::LANGUAGE),
                    Some("f" | "F" | "f90" | "F90" | "f95" | "for") => {
                        (FORTRAN, tree_sitter_fortran::LANGUAGE)
                    }
                    _ => continue,
                };
                let text = std::fs::read_to_string(&path).unwrap();
                let cuts = (1..4).map(|quarter| text.floor_char_boundary(text.len() * quarter / 4));
                for end in cuts.chain([text.len()]) {
                    assert_eq!(
                        sexp(grammars.0, &text[..end]),
                        sexp(grammars.1, &text[..end]),
                        "{} up to byte {end}",
                        path.display()
                    );
                }
                files += 1;
            }
        }
        assert!(
            files > 80,
            "{files} C, C++ and Fortran files in {}",
            corpus.display()
        );
    }
}

//! Every fact pomp knows about a source language, in one place: its names
//! (in the IDF, on a compiler's `-x`, from an editor), its suffixes, its
//! headers, and for Fortran the forms and their columns. The stages read
//! these facts here and decide nothing about a language by themselves.

pub mod c;
mod facts;
pub mod fortran;

pub use facts::{Facts, Family, Language};
use std::path::Path;

const ALL: [&Facts; 4] = [&c::C, &c::CPP, &fortran::FREE, &fortran::FIXED];

impl Language {
    pub fn facts(self) -> &'static Facts {
        match self {
            Language::C => &c::C,
            Language::Cpp => &c::CPP,
            Language::FortranFree => &fortran::FREE,
            Language::FortranFixed => &fortran::FIXED,
        }
    }

    pub fn family(self) -> Family {
        match self {
            Language::C | Language::Cpp => Family::C,
            Language::FortranFree | Language::FortranFixed => Family::Fortran,
        }
    }

    pub fn is_fortran(self) -> bool {
        self.family() == Family::Fortran
    }

    pub fn name(self) -> &'static str {
        self.facts().name
    }

    /// The language a compiler driver compiles a file of this name as, by
    /// its suffix alone.
    pub fn from_path(path: &Path) -> Option<Language> {
        let suffix = path.extension()?.to_str()?;
        ALL.iter()
            .find(|facts| facts.suffixes.contains(&suffix))
            .map(|facts| facts.language)
    }

    /// The language `-x NAME` selects; `None` for the names of other
    /// languages (assembler, CUDA, ...) and for `none`.
    pub fn from_compiler_name(name: &str) -> Option<Language> {
        ALL.iter()
            .find(|facts| facts.compiler_names.contains(&name))
            .map(|facts| facts.language)
    }

    /// The `-x` name under which a compiler preprocesses a file of this
    /// language before compiling it.
    pub fn preprocessed_compiler_name(self) -> &'static str {
        self.facts().compiler_names[0]
    }

    /// The language of an editor's `languageId`.
    pub fn from_editor_id(id: &str) -> Option<Language> {
        ALL.iter()
            .find(|facts| facts.editor_ids.contains(&id))
            .map(|facts| facts.language)
    }

    /// Whether a compiler runs the preprocessor over a file of this
    /// language named `path` without being told to: always for C and C++,
    /// for Fortran by the suffix.
    pub fn preprocessed_by_suffix(self, path: &Path) -> bool {
        match self.family() {
            Family::C => !self.is_preprocessed_suffix(path),
            Family::Fortran => fortran::preprocessed_by_suffix(path),
        }
    }

    /// Whether `path`'s suffix names a file of this language that the
    /// preprocessor made (`.i`, `.ii`).
    pub fn is_preprocessed_suffix(self, path: &Path) -> bool {
        path.extension()
            .and_then(|suffix| suffix.to_str())
            .is_some_and(|suffix| self.facts().preprocessed_suffixes.contains(&suffix))
    }

    /// The suffix an instrumented copy of a file with `suffix` takes, so
    /// that the compiler preprocesses it, reading the `#line` markers and
    /// macros pomp writes: Fortran's in capitals, which gfortran
    /// preprocesses, and a preprocessed C or C++ file's (`.i`, `.ii`) the
    /// language's own (`.c`, `.cc`).
    pub fn instrumented_suffix(self, suffix: &str) -> String {
        match self.family() {
            Family::C if self.facts().preprocessed_suffixes.contains(&suffix) => {
                self.facts().suffixes[0].to_string()
            }
            Family::C => suffix.to_string(),
            Family::Fortran => suffix.to_uppercase(),
        }
    }
}

/// The OpenMP library's own headers, C's and Fortran's: its routines are
/// declared there, never called for the program.
pub const OPENMP_HEADERS: &[&str] = &["omp.h", "omp_lib.h"];

/// Suffixes of files that are included rather than compiled.
pub const HEADER_SUFFIXES: &[&str] = &[
    "h", "H", "hh", "HH", "hpp", "HPP", "hxx", "h++", "inl", "ipp", "tpp", "tcc", "txx", "inc",
    "fh", "fi", "cuh",
];

/// Whether `path` names a header by its suffix.
pub fn is_header(path: &Path) -> bool {
    path.extension()
        .and_then(|suffix| suffix.to_str())
        .is_some_and(|suffix| HEADER_SUFFIXES.contains(&suffix))
}

/// The language a header is read as, when its suffix tells: Fortran's
/// include files, else C++ (which reads C headers too); `.inc` serves C
/// and Fortran alike, so its text must tell ([`guess_header_language`]).
pub fn header_language(path: &Path) -> Option<Language> {
    match path.extension().and_then(|suffix| suffix.to_str()) {
        Some(suffix) if fortran::HEADER_SUFFIXES.contains(&suffix) => Some(Language::FortranFree),
        Some("inc") => None,
        _ => Some(Language::Cpp),
    }
}

/// The language of a header whose suffix does not tell: C++ when it holds
/// a `pragma`, else free-form Fortran.
pub fn guess_header_language(text: &[u8]) -> Language {
    match memchr::memmem::find(text, b"pragma") {
        Some(_) => Language::Cpp,
        None => Language::FortranFree,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_and_suffix_belongs_to_one_language() {
        for (n, a) in ALL.iter().enumerate() {
            for b in &ALL[n + 1..] {
                for suffix in a.suffixes {
                    assert!(!b.suffixes.contains(suffix), "{suffix}");
                }
                for name in a.compiler_names {
                    assert!(!b.compiler_names.contains(name), "{name}");
                }
                for id in a.editor_ids {
                    assert!(!b.editor_ids.contains(id), "{id}");
                }
            }
            assert_eq!(a.language.facts().name, a.name);
        }
    }

    #[test]
    fn languages_by_suffix_compiler_name_and_editor_id() {
        assert_eq!(Language::from_path(Path::new("a.c")), Some(Language::C));
        assert_eq!(Language::from_path(Path::new("a.C")), Some(Language::Cpp));
        assert_eq!(
            Language::from_path(Path::new("a.F")),
            Some(Language::FortranFixed)
        );
        assert_eq!(
            Language::from_path(Path::new("a.F90")),
            Some(Language::FortranFree)
        );
        assert_eq!(Language::from_path(Path::new("a.s")), None);
        assert_eq!(
            Language::from_compiler_name("f95-cpp-input"),
            Some(Language::FortranFree)
        );
        assert_eq!(Language::from_compiler_name("none"), None);
        assert_eq!(
            Language::FortranFixed.preprocessed_compiler_name(),
            "f77-cpp-input"
        );
        assert_eq!(Language::from_editor_id("cpp"), Some(Language::Cpp));
        assert_eq!(
            Language::from_editor_id("FortranFixedForm"),
            Some(Language::FortranFixed)
        );
        assert_eq!(Language::FortranFree.instrumented_suffix("f90"), "F90");
        assert_eq!(Language::C.instrumented_suffix("c"), "c");
        assert_eq!(Language::C.instrumented_suffix("i"), "c");
        assert_eq!(Language::Cpp.instrumented_suffix("ii"), "cc");
        assert!(Language::Cpp.is_preprocessed_suffix(Path::new("a.ii")));
        assert!(!Language::C.preprocessed_by_suffix(Path::new("a.i")));
        assert!(Language::C.preprocessed_by_suffix(Path::new("a.c")));
    }
}

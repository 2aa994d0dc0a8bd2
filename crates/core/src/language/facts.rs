//! What pomp knows of each language, as types: which languages there
//! are, which share a front end, and the facts each one has.

/// The language a file is read, instrumented and compiled as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Language {
    C,
    Cpp,
    FortranFree,
    FortranFixed,
}

/// Languages that share a front end and an emitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// C and C++: directives are `#pragma` lines, blocks are statements.
    C,
    /// Fortran, free and fixed form: directives are comments, blocks end
    /// at end directives or with their statements.
    Fortran,
}

/// The facts of one language.
pub struct Facts {
    pub language: Language,
    /// How the IDF and messages name it.
    pub name: &'static str,
    /// Suffixes of files a compiler driver compiles as this language.
    pub suffixes: &'static [&'static str],
    /// Those of them that name a file the preprocessor made, which the
    /// compiler does not preprocess again.
    pub preprocessed_suffixes: &'static [&'static str],
    /// The names of `-x` that select it; the first is the one for source
    /// the preprocessor reads.
    pub compiler_names: &'static [&'static str],
    /// The `languageId`s editors send for it.
    pub editor_ids: &'static [&'static str],
}

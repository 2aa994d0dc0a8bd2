//! C and C++.

pub mod lex;

use super::facts::{Facts, Language};

pub const C: Facts = Facts {
    language: Language::C,
    name: "c",
    suffixes: &["c", "i"],
    preprocessed_suffixes: &["i"],
    compiler_names: &["c", "cpp-output"],
    editor_ids: &["c"],
};

pub const CPP: Facts = Facts {
    language: Language::Cpp,
    name: "c++",
    suffixes: &[
        "cc", "cp", "cxx", "cpp", "CPP", "c++", "C", "ii", "hpp", "hxx", "hh",
    ],
    preprocessed_suffixes: &["ii"],
    compiler_names: &["c++", "c++-cpp-output"],
    editor_ids: &["cpp", "c++", "cuda-cpp"],
};

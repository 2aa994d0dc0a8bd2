//! Drop-in compiler wrappers: `pomp-cc`, `pomp-cxx`, `pomp-f90`.

use std::ffi::OsString;
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compiler {
    C,
    Cxx,
    Fortran,
}

impl Compiler {
    /// The wrapper a binary name stands for (`pomp-cc`, `pomp-cxx`, `pomp-f90`, ...).
    pub fn from_wrapper_name(name: &str) -> Option<Compiler> {
        match name.strip_suffix(".exe").unwrap_or(name) {
            "pomp-cc" => Some(Compiler::C),
            "pomp-cxx" | "pomp-c++" => Some(Compiler::Cxx),
            "pomp-f90" | "pomp-fc" | "pomp-f77" => Some(Compiler::Fortran),
            _ => None,
        }
    }
}

pub fn run(compiler: Compiler, args: Vec<OsString>) -> ExitCode {
    let _ = (compiler, args);
    todo!("compiler wrapper")
}

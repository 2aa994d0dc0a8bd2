//! Which compiler a wrapper stands for, and the real compiler it runs.

use anyhow::{bail, Context, Result};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

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

    /// The compiler driver it wraps, which decides languages by suffix.
    pub fn driver(self) -> pomp_cmdline::Driver {
        match self {
            Compiler::C => pomp_cmdline::Driver::C,
            Compiler::Cxx => pomp_cmdline::Driver::Cxx,
            Compiler::Fortran => pomp_cmdline::Driver::Fortran,
        }
    }

    pub fn wrapper_name(self) -> &'static str {
        match self {
            Compiler::C => "pomp-cc",
            Compiler::Cxx => "pomp-cxx",
            Compiler::Fortran => "pomp-f90",
        }
    }

    /// The variable naming the underlying compiler, and its default.
    pub fn environment(self) -> (&'static str, &'static str) {
        match self {
            Compiler::C => ("POMP_CC", "gcc"),
            Compiler::Cxx => ("POMP_CXX", "g++"),
            Compiler::Fortran => ("POMP_FC", "gfortran"),
        }
    }

    /// The underlying compiler as the user set it (`POMP_CC` and friends)
    /// or its default, for messages.
    pub fn underlying_name(self) -> String {
        let (variable, default) = self.environment();
        std::env::var(variable)
            .ok()
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| default.to_string())
    }

    /// The underlying compiler command: `POMP_CC` and friends may hold a
    /// launcher too (`ccache gcc`).
    pub fn command(self) -> Result<Vec<OsString>> {
        let (variable, default) = self.environment();
        let words = match std::env::var_os(variable).filter(|v| !v.is_empty()) {
            Some(value) => shlex::bytes::split(value.as_bytes())
                .filter(|words| !words.is_empty())
                .with_context(|| format!("cannot split {variable}={}", value.to_string_lossy()))?
                .into_iter()
                .map(|w| OsStr::from_bytes(&w).to_owned())
                .collect(),
            None => vec![OsString::from(default)],
        };
        let invokes_a_wrapper = words.iter().any(|w| {
            Path::new(w)
                .file_name()
                .and_then(OsStr::to_str)
                .is_some_and(|n| Compiler::from_wrapper_name(n).is_some())
        });
        if invokes_a_wrapper {
            bail!("{variable} names a pomp wrapper; it must name the real compiler");
        }
        Ok(words)
    }
}

/// Whether a compiler command runs clang, whose options differ in places.
pub fn is_clang(command: &[OsString]) -> bool {
    command.iter().any(|word| {
        Path::new(word)
            .file_name()
            .is_some_and(|n| n.to_string_lossy().contains("clang"))
    })
}

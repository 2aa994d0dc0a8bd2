//! The compile flags a front end reads a C or C++ file with, and the
//! arguments libclang gets from them.

use crate::language::Language;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The part of a compiler command line that decides how a file is
/// preprocessed and parsed, and where the compiler runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct CompileFlags {
    /// `-D`, `-U`, `-I`, `-include`, `-std` and their kin, each option
    /// with its value attached.
    pub args: Vec<String>,
    /// The directory relative paths in `args` (and the file's) are
    /// resolved against; the current one when `None`.
    pub directory: Option<PathBuf>,
    /// What the build's compiler adds to every file it compiles.
    #[serde(skip)]
    pub compiler: CompilerHandle,
}

/// What the compiler a build runs adds to the files it compiles, which
/// libclang must be told: an MPI compiler wrapper's preprocessor flags
/// (`mpi.h`) and the compiler's own header directory (`omp.h`). The tool
/// that knows which compiler runs answers (pomp-cmdline asks it); the
/// instrumenter never runs one.
pub trait Compiler: Send + Sync {
    /// Preprocessor flags (`-I`, `-D`, `-U`, `-isystem`) it adds for
    /// `language`.
    fn preprocessor_flags(&self, language: Language) -> &[String];
    /// Where its own headers are, searched after every other directory.
    fn include_dir(&self, language: Language) -> Option<&Path>;
}

/// The [`Compiler`] of a build, shared by the flags of all its files. Two
/// handles are equal whatever they hold: what a compiler adds is the
/// build's, not a file's, and flags compare as the files' own.
#[derive(Clone, Default)]
pub struct CompilerHandle(pub Option<Arc<dyn Compiler>>);

impl std::fmt::Debug for CompilerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "CompilerHandle(asked)"
        } else {
            "CompilerHandle(none)"
        })
    }
}

impl PartialEq for CompilerHandle {
    fn eq(&self, _: &CompilerHandle) -> bool {
        true
    }
}

impl Eq for CompilerHandle {}

impl std::hash::Hash for CompilerHandle {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

impl CompileFlags {
    /// The arguments libclang parses a file of `language` with: these
    /// flags, those an MPI compiler wrapper adds (where the wrappers run
    /// one: `mpi.h`), the language, `_OPENMP` defined as the compiler
    /// defines it and the compiler's own headers (`omp.h`) searched last,
    /// without
    /// `-fopenmp` (so that directives are invisible and each block is an
    /// ordinary statement) and without warnings.
    pub fn clang_args(&self, language: Language) -> Vec<String> {
        let read_as = match language {
            Language::Cpp => Language::Cpp,
            _ => Language::C,
        };
        let mut args = vec![
            "-x".to_string(),
            read_as.preprocessed_compiler_name().into(),
        ];
        if let Some(directory) = &self.directory {
            args.push(format!("-working-directory={}", directory.display()));
        }
        args.extend(self.args.iter().cloned());
        let compiler = self.compiler.0.as_deref();
        if let Some(compiler) = compiler {
            args.extend(compiler.preprocessor_flags(language).iter().cloned());
        }
        // pomp's output is always compiled with OpenMP on; 201511 is what
        // gcc defines (OpenMP 4.5).
        args.push("-D_OPENMP=201511".into());
        if let Some(include) = compiler.and_then(|c| c.include_dir(language)) {
            args.push(format!("-idirafter{}", include.display()));
        }
        args.extend(["-w".into(), "-ferror-limit=0".into()]);
        args
    }

    /// `path` made absolute against the working directory.
    pub fn absolute(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            return path.to_path_buf();
        }
        let base = self
            .directory
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default();
        let base = if base.is_absolute() {
            base
        } else {
            std::env::current_dir().unwrap_or_default().join(base)
        };
        base.join(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clang_reads_with_openmp_defined_and_without_its_pragmas() {
        let flags = CompileFlags {
            args: vec!["-DN=1".into()],
            directory: Some("/src".into()),
            ..CompileFlags::default()
        };
        let args = flags.clang_args(Language::Cpp);
        assert_eq!(
            &args[..4],
            ["-x", "c++", "-working-directory=/src", "-DN=1"]
        );
        assert!(args.contains(&"-D_OPENMP=201511".to_string()));
        assert!(!args.iter().any(|a| a.starts_with("-fopenmp")));
    }
}

//! The compile flags a front end reads a C or C++ file with, and the
//! arguments libclang gets from them.

use crate::language::Language;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

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
}

impl CompileFlags {
    /// The arguments libclang parses a file of `language` with: these
    /// flags, the language, `_OPENMP` defined as the compiler defines it
    /// and the compiler's own headers (`omp.h`) searched last, without
    /// `-fopenmp` (so that directives are invisible and each block is an
    /// ordinary statement) and without warnings.
    pub fn clang_args(&self, language: Language) -> Vec<String> {
        let mut args = vec![
            "-x".to_string(),
            match language {
                Language::Cpp => "c++",
                _ => "c",
            }
            .to_string(),
        ];
        if let Some(directory) = &self.directory {
            args.push(format!("-working-directory={}", directory.display()));
        }
        args.extend(self.args.iter().cloned());
        // pomp's output is always compiled with OpenMP on; 201511 is what
        // gcc defines (OpenMP 4.5).
        args.push("-D_OPENMP=201511".into());
        if let Some(include) = compiler_include_dir(language) {
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

/// The compiler's own header directory (where gcc keeps `omp.h`), asked
/// of the compiler the wrappers run (`POMP_CC`, `POMP_CXX`, else gcc or
/// g++) once per process.
fn compiler_include_dir(language: Language) -> Option<PathBuf> {
    static C: OnceLock<Option<PathBuf>> = OnceLock::new();
    static CXX: OnceLock<Option<PathBuf>> = OnceLock::new();
    let (cell, variable, default) = match language {
        Language::Cpp => (&CXX, "POMP_CXX", "g++"),
        _ => (&C, "POMP_CC", "gcc"),
    };
    cell.get_or_init(|| {
        let configured = std::env::var(variable).ok();
        // A launcher may come first (`ccache gcc`): the compiler is the last word.
        let compiler = configured
            .as_deref()
            .and_then(|c| c.split_whitespace().last())
            .unwrap_or(default)
            .to_string();
        let output = std::process::Command::new(compiler)
            .arg("-print-file-name=include")
            .stderr(std::process::Stdio::null())
            .output()
            .ok()?;
        let path = PathBuf::from(String::from_utf8(output.stdout).ok()?.trim());
        // An unknown name is echoed back unchanged, as a relative path.
        (output.status.success() && path.is_absolute() && path.is_dir()).then_some(path)
    })
    .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clang_reads_with_openmp_defined_and_without_its_pragmas() {
        let flags = CompileFlags {
            args: vec!["-DN=1".into()],
            directory: Some("/src".into()),
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

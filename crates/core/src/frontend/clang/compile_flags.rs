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
    /// flags, those an MPI compiler wrapper adds (where the wrappers run
    /// one: `mpi.h`), the language, `_OPENMP` defined as the compiler
    /// defines it and the compiler's own headers (`omp.h`) searched last,
    /// without
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
        args.extend(mpi_compile_flags(language).iter().cloned());
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

/// The compiler the wrappers run for `language` (`POMP_CC`, `POMP_CXX`,
/// else gcc or g++): the last word, a launcher coming first (`ccache gcc`).
fn wrapped_compiler(language: Language) -> String {
    let (variable, default) = match language {
        Language::Cpp => ("POMP_CXX", "g++"),
        _ => ("POMP_CC", "gcc"),
    };
    std::env::var(variable)
        .ok()
        .as_deref()
        .and_then(|c| c.split_whitespace().last())
        .unwrap_or(default)
        .to_string()
}

/// The preprocessor flags of the MPI compiler wrapper the wrappers run
/// (`POMP_CC=mpicc`), asked once per process: Open MPI's answer to
/// `--showme:compile`, else the `-I`, `-D`, `-U` and `-isystem` flags of
/// MPICH's answer to `-show`. None for a compiler that is no MPI wrapper.
fn mpi_compile_flags(language: Language) -> &'static [String] {
    static C: OnceLock<Vec<String>> = OnceLock::new();
    static CXX: OnceLock<Vec<String>> = OnceLock::new();
    let cell = match language {
        Language::Cpp => &CXX,
        _ => &C,
    };
    cell.get_or_init(|| {
        let compiler = wrapped_compiler(language);
        let name = Path::new(&compiler)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !name.starts_with("mpi") {
            return Vec::new();
        }
        let ask = |option: &str| -> Option<String> {
            let mut command = std::process::Command::new(&compiler);
            // As itself, not running another compiler (`OMPI_CC=pomp-cc`).
            for variable in ["OMPI_CC", "OMPI_CXX", "MPICH_CC", "MPICH_CXX"] {
                command.env_remove(variable);
            }
            let output = command
                .arg(option)
                .stderr(std::process::Stdio::null())
                .output()
                .ok()?;
            output
                .status
                .success()
                .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
        };
        if let Some(flags) = ask("--showme:compile") {
            return preprocessor_flags(&flags, false);
        }
        ask("-show")
            .map(|command| preprocessor_flags(&command, true))
            .unwrap_or_default()
    })
}

/// The preprocessor flags of `text`, a compiler's flags or, with
/// `skip_compiler`, a whole command; a flag's separate value is joined to it.
fn preprocessor_flags(text: &str, skip_compiler: bool) -> Vec<String> {
    let words = shlex::split(text).unwrap_or_default();
    let mut words = words.into_iter().skip(usize::from(skip_compiler));
    let mut flags = Vec::new();
    while let Some(word) = words.next() {
        let attached = ["-I", "-D", "-U", "-isystem"]
            .iter()
            .find(|prefix| word.starts_with(**prefix));
        match attached {
            Some(prefix) if word.len() == prefix.len() => {
                if let Some(value) = words.next() {
                    flags.push(format!("{word}{value}"));
                }
            }
            Some(_) => flags.push(word),
            None => {}
        }
    }
    flags
}

/// The compiler's own header directory (where gcc keeps `omp.h`), asked
/// of the compiler the wrappers run (`POMP_CC`, `POMP_CXX`, else gcc or
/// g++) once per process.
fn compiler_include_dir(language: Language) -> Option<PathBuf> {
    static C: OnceLock<Option<PathBuf>> = OnceLock::new();
    static CXX: OnceLock<Option<PathBuf>> = OnceLock::new();
    let cell = match language {
        Language::Cpp => &CXX,
        _ => &C,
    };
    cell.get_or_init(|| {
        let compiler = wrapped_compiler(language);
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

    #[test]
    fn an_mpi_wrappers_preprocessor_flags_are_taken_from_its_answer() {
        let open_mpi = "-I/usr/lib/ompi/include -I /usr/lib/ompi/include/openmpi -pthread";
        assert_eq!(
            preprocessor_flags(open_mpi, false),
            ["-I/usr/lib/ompi/include", "-I/usr/lib/ompi/include/openmpi"]
        );
        let mpich = "gcc -Wl,-rpath -Wl,/opt/mpich/lib -I/opt/mpich/include -DMPICH_X=1 \
                     -L/opt/mpich/lib -lmpi";
        assert_eq!(
            preprocessor_flags(mpich, true),
            ["-I/opt/mpich/include", "-DMPICH_X=1"]
        );
    }
}

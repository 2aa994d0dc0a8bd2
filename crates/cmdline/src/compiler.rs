//! The compiler a build runs, asked what it adds to every file it
//! compiles, for the clang front end to read files as it does: the
//! compiler the wrappers run (`POMP_CC`, `POMP_CXX`), asked once per
//! process and only when a file is read with libclang.

use pomp_core::frontend::libclang::{Compiler, CompilerHandle};
use pomp_core::language::Language;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, OnceLock};

/// The compiler the wrappers run, as a [`Compiler`] for the core: its
/// answers for C (index 0) and C++ (index 1), each asked on first use.
#[derive(Default)]
struct WrappedCompiler {
    flags: [OnceLock<Vec<String>>; 2],
    include_dir: [OnceLock<Option<PathBuf>>; 2],
}

/// Which of a [`WrappedCompiler`]'s answers a language takes: the C++
/// compiler's for C++, the C compiler's for the rest.
fn driver_index(language: Language) -> usize {
    usize::from(language == Language::Cpp)
}

impl Compiler for WrappedCompiler {
    fn preprocessor_flags(&self, language: Language) -> &[String] {
        self.flags[driver_index(language)].get_or_init(|| mpi_compile_flags(language))
    }

    fn include_dir(&self, language: Language) -> Option<&Path> {
        self.include_dir[driver_index(language)]
            .get_or_init(|| compiler_include_dir(language))
            .as_deref()
    }
}

/// The handle every file's compile flags share: one compiler per process,
/// asked once.
pub fn wrapped() -> CompilerHandle {
    static WRAPPED: LazyLock<Arc<WrappedCompiler>> = LazyLock::new(Arc::default);
    CompilerHandle(Some(WRAPPED.clone()))
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
/// (`POMP_CC=mpicc`): Open MPI's answer to
/// `--showme:compile`, else the `-I`, `-D`, `-U` and `-isystem` flags of
/// MPICH's answer to `-show`. None for a compiler that is no MPI wrapper.
fn mpi_compile_flags(language: Language) -> Vec<String> {
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
/// g++).
fn compiler_include_dir(language: Language) -> Option<PathBuf> {
    let compiler = wrapped_compiler(language);
    let output = std::process::Command::new(compiler)
        .arg("-print-file-name=include")
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8(output.stdout).ok()?.trim());
    // An unknown name is echoed back unchanged, as a relative path.
    (output.status.success() && path.is_absolute() && path.is_dir()).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

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

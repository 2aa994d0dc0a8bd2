//! Which MPI a program is built with: whether its link links MPI, and the
//! C compiler wrapper of that MPI, which builds the library.

use anyhow::{Context, Result};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The variables through which MPI's compiler wrappers run another
/// compiler (`OMPI_CC=pomp-cc mpicc ...`): cleared when pomp runs an MPI
/// wrapper itself, so that it runs its own compiler, and says which.
const REDIRECTIONS: &[&str] = &[
    "OMPI_CC",
    "OMPI_CXX",
    "OMPI_FC",
    "OMPI_F77",
    "MPICH_CC",
    "MPICH_CXX",
    "MPICH_FC",
    "MPICH_F90",
    "MPICH_F77",
];

/// An MPI's C compiler wrapper.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MpiCompiler {
    pub path: PathBuf,
    /// What it says it runs (Open MPI's `--showme`, MPICH's `-show`): the
    /// compiler, MPI's include and library directories, its libraries.
    pub identity: String,
}

impl MpiCompiler {
    /// The MPI C compiler wrapper `named` (a path or a name on the `PATH`);
    /// else, where `underlying` (the compiler a pomp wrapper runs) is an
    /// MPI wrapper, the C wrapper in its directory; else `mpicc` on the
    /// `PATH`.
    pub fn find(named: Option<&str>, underlying: &[OsString]) -> Result<MpiCompiler> {
        let path = match named {
            Some(named) => on_path(Path::new(named))
                .with_context(|| format!("the MPI C compiler {named} is not there"))?,
            None => beside_mpi_wrapper(underlying)
                .or_else(|| on_path(Path::new("mpicc")))
                .context(
                    "the program links MPI, but there is no MPI C compiler (mpicc) on the PATH \
                     to build pomp's MPI library with: name one with --pomp-mpi=MPICC, or leave \
                     MPI unmeasured with --pomp-mpi=off",
                )?,
        };
        let identity = ["--showme", "-show"]
            .iter()
            .find_map(|option| {
                let output = command(&path).arg(option).output().ok()?;
                let said = String::from_utf8_lossy(&output.stdout).trim().to_string();
                (output.status.success() && !said.is_empty()).then_some(said)
            })
            .with_context(|| {
                format!(
                    "{} is not an MPI compiler wrapper: it answers neither --showme (Open MPI) \
                     nor -show (MPICH)",
                    path.display()
                )
            })?;
        Ok(MpiCompiler { path, identity })
    }

    /// A command running the wrapper as itself.
    pub fn command(&self) -> Command {
        command(&self.path)
    }
}

fn command(path: &Path) -> Command {
    let mut command = Command::new(path);
    for variable in REDIRECTIONS {
        command.env_remove(variable);
    }
    command
}

/// `path` if it names a file, else the program of that name on the `PATH`.
fn on_path(path: &Path) -> Option<PathBuf> {
    if path.components().count() > 1 {
        return path.is_file().then(|| path.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|directory| directory.join(path))
        .find(|candidate| candidate.is_file())
}

/// The C wrapper of the MPI whose wrapper `compiler` runs (the last word:
/// a launcher may come first).
fn beside_mpi_wrapper(compiler: &[OsString]) -> Option<PathBuf> {
    let wrapper = Path::new(compiler.last()?);
    if !is_mpi_wrapper(wrapper.file_name()?) {
        return None;
    }
    let found = on_path(wrapper)?;
    let name = found.file_name()?.to_string_lossy();
    if name == "mpicc" || name == "mpiicc" {
        return Some(found);
    }
    let c = found.parent()?.join("mpicc");
    c.is_file().then_some(c)
}

/// The compiler an MPI compiler wrapper `wrapper` runs (Open MPI's
/// `--showme:command`, else the first word of MPICH's `-show`), for a step
/// that must not get MPI's libraries, which the wrapper adds to every
/// link, even a partial one; `None` where it says none.
pub fn compiler_behind(wrapper: &Path) -> Option<OsString> {
    let said = |option: &str| {
        let output = command(wrapper).arg(option).output().ok()?;
        let said = String::from_utf8_lossy(&output.stdout);
        let first = said.split_whitespace().next()?.to_string();
        output.status.success().then_some(OsString::from(first))
    };
    said("--showme:command").or_else(|| said("-show"))
}

/// Whether a program name is an MPI compiler wrapper (`mpicc`, `mpicxx`,
/// `mpif90`, `mpifort`, `mpiicc`, ...).
pub fn is_mpi_wrapper(name: &OsStr) -> bool {
    let name = name.to_string_lossy();
    name.starts_with("mpi") && !name.starts_with("mpirun") && !name.starts_with("mpiexec")
}

/// Whether `-l<name>` is one of MPI's own libraries.
fn is_mpi_library(name: &str) -> bool {
    name == "mpi"
        || name == "pmpi"
        || name == "mpifort"
        || name == "mpicxx"
        || name.starts_with("mpi_")
        || name.starts_with("mpich")
}

/// Whether a program's link links MPI: one of its libraries or files is
/// MPI's (`OMPI_CC=pomp-cc mpicc`), or its compiler is an MPI wrapper
/// (`POMP_CC=mpicc pomp-cc`).
pub fn links_mpi(libraries: &[String], files: &[PathBuf], compiler: &[OsString]) -> bool {
    libraries.iter().any(|name| is_mpi_library(name))
        || files.iter().any(|file| {
            file.file_name()
                .and_then(|name| name.to_str())
                .and_then(|name| name.strip_prefix("lib"))
                .and_then(|name| name.split('.').next())
                .is_some_and(is_mpi_library)
        })
        || compiler
            .last()
            .and_then(|word| Path::new(word).file_name())
            .is_some_and(is_mpi_wrapper)
}

/// Where in a link's arguments the library goes: before the first of
/// MPI's own libraries, which would otherwise define MPI's functions first;
/// `None` when the arguments name none (an MPI wrapper adds them last).
pub fn first_mpi_argument(args: &[OsString]) -> Option<usize> {
    args.iter().position(|arg| {
        let arg = arg.to_string_lossy();
        if let Some(name) = arg.strip_prefix("-l") {
            return is_mpi_library(name);
        }
        Path::new(arg.as_ref())
            .file_name()
            .and_then(|name| name.to_str())
            .and_then(|name| name.strip_prefix("lib"))
            .and_then(|name| name.split('.').next())
            .is_some_and(is_mpi_library)
            && !arg.starts_with('-')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<OsString> {
        text.split_whitespace().map(OsString::from).collect()
    }

    #[test]
    fn a_link_links_mpi_by_its_libraries_or_its_compiler() {
        assert!(links_mpi(&["mpi".into()], &[], &words("gcc")));
        assert!(links_mpi(
            &["mpi_usempif08".into()],
            &[],
            &words("gfortran")
        ));
        assert!(links_mpi(&["mpich".into()], &[], &words("gcc")));
        assert!(links_mpi(&[], &[], &words("ccache /usr/bin/mpicxx")));
        assert!(links_mpi(
            &[],
            &[PathBuf::from("/opt/ompi/lib/libmpi.so.40")],
            &words("gcc")
        ));
        assert!(!links_mpi(&["m".into(), "mpfr".into()], &[], &words("gcc")));
        assert!(!links_mpi(&[], &[], &words("mpirun")));
    }

    #[test]
    fn the_library_goes_before_mpis_own() {
        let args = words("a.o -o app -L/opt/ompi/lib -lm -lmpi_mpifh -lmpi");
        assert_eq!(first_mpi_argument(&args), Some(5));
        assert_eq!(first_mpi_argument(&words("a.o -o app")), None);
        let files = words("a.o /opt/ompi/lib/libmpi.so -lm");
        assert_eq!(first_mpi_argument(&files), Some(1));
    }

    #[test]
    fn the_c_wrapper_of_an_mpi_is_found_beside_its_others() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["mpicc", "mpif90"] {
            std::fs::write(dir.path().join(name), "#!/bin/sh\n").unwrap();
        }
        let fortran = vec![dir.path().join("mpif90").into_os_string()];
        assert_eq!(beside_mpi_wrapper(&fortran), Some(dir.path().join("mpicc")));
        assert_eq!(beside_mpi_wrapper(&words("gfortran")), None);
    }
}

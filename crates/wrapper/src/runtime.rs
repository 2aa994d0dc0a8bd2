//! Which POMP2 library a program is linked with.

use crate::compiler::Compiler;
use crate::seal::sealed_archive;
use anyhow::{bail, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub const RUNTIME_ARCHIVE: &str = "libpomp_runtime.a";

/// Linker arguments for the POMP2 library: the one the user chose
/// (`--pomp-runtime`, `POMP_RUNTIME`), or pomp's own runtime archive.
pub fn link_arguments(chosen: Option<&str>) -> Result<Vec<OsString>> {
    if let Some(library) = chosen {
        if Path::new(library)
            .file_name()
            .is_some_and(|n| n == RUNTIME_ARCHIVE)
        {
            let sealed = sealed_archive(Path::new(library), &Compiler::C.command()?)?;
            return Ok(with_runtime_dependencies(sealed.into_os_string()));
        }
        return Ok(chosen_library(library));
    }
    Ok(with_runtime_dependencies(
        runtime_archive()?.into_os_string(),
    ))
}

/// pomp's runtime archive as programs link it (sealed: see [`crate::seal`]).
pub fn runtime_archive() -> Result<PathBuf> {
    let Some(archive) = find_runtime_archive() else {
        bail!(
            "cannot find {RUNTIME_ARCHIVE}: build it with `cargo build -p pomp-runtime` (it lands \
             beside the pomp binary), set POMP_RUNTIME_DIR to its directory, or choose another \
             POMP2 library with --pomp-runtime=LIB"
        );
    };
    sealed_archive(&archive, &Compiler::C.command()?)
}

/// pomp's runtime archive and what it needs: it is a Rust static library,
/// and these are the system libraries the Rust standard library uses.
fn with_runtime_dependencies(archive: OsString) -> Vec<OsString> {
    vec![archive, "-lpthread".into(), "-ldl".into(), "-lm".into()]
}

fn chosen_library(library: &str) -> Vec<OsString> {
    if library.starts_with("-l") || library.starts_with("-Wl,") {
        return vec![library.into()];
    }
    let path = Path::new(library);
    let shared = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(".so") || n.contains(".so."));
    let mut args = vec![OsString::from(library)];
    if shared {
        // So the program finds the library without LD_LIBRARY_PATH.
        let directory = std::path::absolute(path.parent().unwrap_or(Path::new(".")))
            .unwrap_or_else(|_| PathBuf::from("."));
        let mut rpath = OsString::from("-Wl,-rpath,");
        rpath.push(directory);
        args.push(rpath);
    }
    args
}

/// `POMP_RUNTIME_DIR`, else beside the running binary (cargo's target
/// directory), else `../lib` from it (an installed prefix).
fn find_runtime_archive() -> Option<PathBuf> {
    if let Some(directory) = std::env::var_os("POMP_RUNTIME_DIR").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(directory).join(RUNTIME_ARCHIVE)).filter(|p| p.is_file());
    }
    let executable = std::env::current_exe().ok()?;
    let directory = executable.parent()?;
    [
        directory.join(RUNTIME_ARCHIVE),
        directory.join("../lib").join(RUNTIME_ARCHIVE),
    ]
    .into_iter()
    .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chosen_libraries() {
        assert_eq!(chosen_library("-lscorep_adapter"), ["-lscorep_adapter"]);
        assert_eq!(chosen_library("/opt/p/libcheck.a"), ["/opt/p/libcheck.a"]);
        assert_eq!(
            chosen_library("/opt/p/libcheck.so"),
            ["/opt/p/libcheck.so", "-Wl,-rpath,/opt/p"]
        );
    }
}

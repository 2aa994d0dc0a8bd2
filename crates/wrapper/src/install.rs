//! `pomp install-wrappers DIR`: pomp and its wrappers in a directory of
//! programs, and with `--opari2` the tree an OPARI2 installation has
//! around it, so that builds and Score-P's `configure --with-opari2=DIR`
//! find what they look for. Everything is a copy (or a hard link, which
//! outlives the original's removal just as well): an installation must
//! not end with the build directory it came from.

use crate::compiler::Compiler;
use crate::runtime::{find_runtime_archive, RUNTIME_ARCHIVE};
use anyhow::{Context, Result};
use pomp2::c_interface;
use std::path::{Path, PathBuf};

/// The names pomp answers to besides its own: each a symbolic link to it.
const OPARI2_PROGRAMS: [&str; 2] = ["opari2", "opari2-config"];

/// Where an OPARI2 installation keeps what is not a program, relative to
/// its directory of programs: the headers `opari2-config --cflags` names
/// and the sources of the CTC reader Score-P's adapters compile.
pub const OPARI2_INCLUDE: &str = "../include";
pub const OPARI2_DEVEL: &str = "../share/opari2/devel";

/// Installs into `directory` a copy of the running `pomp` and, as
/// symbolic links to it, `pomp-cc`, `pomp-cxx` and `pomp-f90` (and with
/// `opari2`, `opari2` and `opari2-config`); pomp's runtime archive goes to
/// `directory/../lib`, where pomp finds it. With `opari2`, the POMP2
/// headers go to `../include/opari2` and the CTC reader's sources to
/// `../share/opari2/devel`. Older files of those names are replaced; pomp
/// installed into its own directory stays as it is. Returns what was
/// installed.
pub fn install_wrappers(directory: &Path, opari2: bool) -> Result<Vec<PathBuf>> {
    let running = std::env::current_exe().context("locating the pomp binary")?;
    std::fs::create_dir_all(directory)
        .with_context(|| format!("creating {}", directory.display()))?;
    let mut installed = Vec::new();
    let pomp = directory.join("pomp");
    install_copy(&running, &pomp)?;
    installed.push(pomp.clone());
    let links = [Compiler::C, Compiler::Cxx, Compiler::Fortran]
        .map(Compiler::wrapper_name)
        .into_iter()
        .chain(OPARI2_PROGRAMS.into_iter().filter(|_| opari2));
    for name in links {
        let link = directory.join(name);
        install_link(&link)?;
        installed.push(link);
    }
    if let Some(runtime) = find_runtime_archive() {
        let lib = directory.join("../lib").join(RUNTIME_ARCHIVE);
        install_copy(&runtime, &lib)?;
        installed.push(lib);
    }
    if opari2 {
        let headers = directory
            .join(OPARI2_INCLUDE)
            .join(c_interface::HEADER_DIRECTORY);
        for (name, text) in [
            (c_interface::LIB_HEADER, c_interface::lib_header()),
            (c_interface::USER_LIB_HEADER, c_interface::user_lib_header()),
        ] {
            installed.push(install_text(&headers.join(name), &text)?);
        }
        let devel = directory.join(OPARI2_DEVEL);
        for (name, text) in c_interface::CTC_READER {
            installed.push(install_text(&devel.join(name), text)?);
        }
    }
    Ok(installed)
}

/// `to` as a copy of `from` (a hard link where they share a file system),
/// unless it is `from` already.
fn install_copy(from: &Path, to: &Path) -> Result<()> {
    let same = std::fs::canonicalize(to)
        .ok()
        .zip(std::fs::canonicalize(from).ok())
        .is_some_and(|(at, source)| at == source)
        && !to.is_symlink();
    if same {
        return Ok(());
    }
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    remove_old(to)?;
    if std::fs::hard_link(from, to).is_err() {
        std::fs::copy(from, to)
            .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    }
    Ok(())
}

/// `link` as a symbolic link to `pomp` in its own directory, so that the
/// directory can move as a whole.
fn install_link(link: &Path) -> Result<()> {
    remove_old(link)?;
    std::os::unix::fs::symlink("pomp", link).with_context(|| format!("creating {}", link.display()))
}

fn install_text(path: &Path, text: &str) -> Result<PathBuf> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    remove_old(path)?;
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    Ok(path.to_path_buf())
}

/// Removes what stands at `path`, whatever it is but a directory: writing
/// through an old symbolic link would change the file it points to.
fn remove_old(path: &Path) -> Result<()> {
    match path.symlink_metadata() {
        Ok(meta) if !meta.is_dir() => {
            std::fs::remove_file(path).with_context(|| format!("replacing {}", path.display()))
        }
        _ => Ok(()),
    }
}

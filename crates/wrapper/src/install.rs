//! `pomp install-wrappers DIR`: pomp, its wrappers and the runtime they
//! link, put where a user's shell finds them, independent of the build
//! they came from (a `cargo clean` or a rebuild leaves them working).

use crate::compiler::Compiler;
use crate::runtime::{runtime_archive, RUNTIME_ARCHIVE};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// What an installation put where, and what it could not.
pub struct Installed {
    /// The files made, the binary first.
    pub files: Vec<PathBuf>,
    /// Why the runtime archive is not among them (it is not built).
    pub runtime_missing: Option<String>,
}

/// Install into `directory`: the running `pomp` binary as `pomp` (a hard
/// link where the file system allows, else a copy: either survives the
/// build directory's removal), `pomp-cc`, `pomp-cxx`, `pomp-f90` (and with
/// `opari2`, `opari2` and `opari2-config`) as symbolic links to it there,
/// and the sealed runtime archive the wrappers link, which they find
/// beside the binary. Files of those names are replaced; a binary already
/// in `directory` is kept.
pub fn install_wrappers(directory: &Path, opari2: bool) -> Result<Installed> {
    let running = std::env::current_exe().context("locating the pomp binary")?;
    std::fs::create_dir_all(directory)
        .with_context(|| format!("creating {}", directory.display()))?;
    let binary = directory.join("pomp");
    // An older installation's `pomp` may be a link to the running binary.
    if binary.is_symlink() || !same_file(&running, &binary) {
        place_copy(&running, &binary)?;
    }
    let mut files = vec![binary];
    // OPARI2's tools, only when asked for: they stand in for OPARI2's own.
    let tools: &[&str] = if opari2 {
        &["opari2", "opari2-config"]
    } else {
        &[]
    };
    let names = [Compiler::C, Compiler::Cxx, Compiler::Fortran]
        .map(Compiler::wrapper_name)
        .into_iter()
        .chain(tools.iter().copied());
    for name in names {
        let link = directory.join(name);
        if link.symlink_metadata().is_ok() {
            std::fs::remove_file(&link).with_context(|| format!("replacing {}", link.display()))?;
        }
        std::os::unix::fs::symlink("pomp", &link)
            .with_context(|| format!("creating {}", link.display()))?;
        files.push(link);
    }
    let runtime_missing = match runtime_archive() {
        Ok(archive) => {
            let installed = directory.join(RUNTIME_ARCHIVE);
            if !same_file(&archive, &installed) {
                place_copy(&archive, &installed)?;
            }
            files.push(installed);
            None
        }
        Err(error) => Some(format!("{error:#}")),
    };
    Ok(Installed {
        files,
        runtime_missing,
    })
}

/// The line that puts `directory` on the `PATH` and the file it goes in,
/// for the user's shell (`SHELL`); `None` when it is on the `PATH`.
pub fn path_advice(directory: &Path) -> Option<(String, String)> {
    let directory = std::fs::canonicalize(directory).unwrap_or_else(|_| directory.to_owned());
    let on_path = std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path)
            .any(|entry| std::fs::canonicalize(&entry).is_ok_and(|entry| entry == directory))
    });
    if on_path {
        return None;
    }
    let shell = std::env::var("SHELL").unwrap_or_default();
    let shell = Path::new(&shell).file_name().and_then(|n| n.to_str());
    let shown = directory.display();
    Some(match shell {
        Some("zsh") => ("~/.zshrc".into(), format!("export PATH=\"{shown}:$PATH\"")),
        Some("fish") => (
            "~/.config/fish/config.fish".into(),
            format!("fish_add_path {shown}"),
        ),
        Some("bash") => ("~/.bashrc".into(), format!("export PATH=\"{shown}:$PATH\"")),
        _ => (
            "~/.profile".into(),
            format!("export PATH=\"{shown}:$PATH\""),
        ),
    })
}

fn same_file(a: &Path, b: &Path) -> bool {
    std::fs::canonicalize(a)
        .ok()
        .zip(std::fs::canonicalize(b).ok())
        .is_some_and(|(a, b)| a == b)
}

/// Put `from` at `to` as a file of its own: made beside `to` and renamed
/// over it, so a program running from `to` keeps its old file.
fn place_copy(from: &Path, to: &Path) -> Result<()> {
    let directory = to.parent().unwrap_or(Path::new("."));
    let temporary = tempfile::Builder::new()
        .prefix(".pomp-install")
        .tempdir_in(directory)
        .with_context(|| format!("writing into {}", directory.display()))?;
    let staged = temporary.path().join("file");
    if std::fs::hard_link(from, &staged).is_err() {
        std::fs::copy(from, &staged)
            .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    }
    std::fs::rename(&staged, to).with_context(|| format!("writing {}", to.display()))?;
    Ok(())
}

//! Building the library for an MPI, once: its sources compiled with the
//! MPI's C compiler wrapper into an archive, kept in pomp's cache under a
//! digest of the sources and of what the wrapper runs, so that another
//! MPI (or another version of pomp's sources) gets its own, and builds
//! that link many programs at once share one.

use crate::compiler::MpiCompiler;
use crate::source;
use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The archive's name.
pub const ARCHIVE: &str = "libpomp_mpi.a";

/// How every source is compiled: position-independent, so that the
/// library also links into shared objects and position-independent
/// programs.
const FLAGS: &[&str] = &["-O2", "-fPIC", "-c"];

/// The library for `compiler`'s MPI, built now unless the cache has it.
pub fn library(compiler: &MpiCompiler) -> Result<PathBuf> {
    library_in(&cache_directory()?, compiler)
}

/// pomp's cache: `POMP_CACHE_DIR`, else `$XDG_CACHE_HOME/pomp`, else
/// `~/.cache/pomp`.
pub fn cache_directory() -> Result<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(directory) = var("POMP_CACHE_DIR") {
        return Ok(PathBuf::from(directory));
    }
    if let Some(directory) = var("XDG_CACHE_HOME") {
        return Ok(PathBuf::from(directory).join("pomp"));
    }
    match var("HOME") {
        Some(home) => Ok(PathBuf::from(home).join(".cache/pomp")),
        None => bail!("no cache directory for pomp's MPI library: set POMP_CACHE_DIR"),
    }
}

/// The library for `compiler`'s MPI in the cache `cache`.
pub fn library_in(cache: &Path, compiler: &MpiCompiler) -> Result<PathBuf> {
    let sources = source::sources();
    let mut digest = Sha256::new();
    for (name, text) in &sources {
        digest.update(name.as_bytes());
        digest.update([0]);
        digest.update(text.as_bytes());
        digest.update([0]);
    }
    digest.update(compiler.identity.as_bytes());
    digest.update(FLAGS.join(" ").as_bytes());
    let key: String = digest
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    let built = cache.join("mpi").join(key);
    let archive = built.join(ARCHIVE);
    if archive.is_file() {
        return Ok(archive);
    }
    let parent = cache.join("mpi");
    std::fs::create_dir_all(&parent)
        .with_context(|| format!("making pomp's cache {}", parent.display()))?;
    let work = tempfile::Builder::new()
        .prefix(".building-")
        .tempdir_in(&parent)
        .with_context(|| format!("building in {}", parent.display()))?;
    let mut objects = Vec::new();
    for (name, text) in &sources {
        std::fs::write(work.path().join(name), text)?;
        let object = Path::new(name).with_extension("o");
        run(
            compiler
                .command()
                .args(FLAGS)
                .arg(name)
                .arg("-o")
                .arg(&object)
                .current_dir(work.path()),
            &format!("compiling pomp's MPI library ({name})"),
        )?;
        objects.push(object);
    }
    run(
        Command::new("ar")
            .arg("rcs")
            .arg(ARCHIVE)
            .args(&objects)
            .current_dir(work.path()),
        "archiving pomp's MPI library",
    )?;
    std::fs::create_dir_all(&built)?;
    for (name, _) in &sources {
        // Beside the archive, to read what it does.
        let _ = std::fs::copy(work.path().join(name), built.join(name));
    }
    // Whoever renames last wins, with the same bytes.
    std::fs::rename(work.path().join(ARCHIVE), &archive)
        .with_context(|| format!("putting {} in place", archive.display()))?;
    Ok(archive)
}

fn run(command: &mut Command, what: &str) -> Result<()> {
    let output = command
        .output()
        .with_context(|| format!("{what}: cannot run {:?}", command.get_program()))?;
    if !output.status.success() {
        bail!(
            "{what} failed:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(())
}

//! The files pomp writes at the top of the mirror, beside the tree's: the
//! registration of every instrumented unit, the tree's IDF index and the
//! mirrored compilation database. Each is written only when it changed,
//! so that builds depending on it are not redone.

use crate::cache::{self, Cache};
use crate::compdb;
use crate::directories::Directories;
use crate::index;
use anyhow::{Context as _, Result};
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

/// The registration file, at the top of the output directory.
pub const REGISTRATION: &str = "pomp_regions.c";
/// The tree's IDF index, at the top of the output directory.
pub const INDEX: &str = "pomp-idf.json";
/// The mirrored compilation database, at the top of the output directory.
pub const COMPILE_COMMANDS: &str = "compile_commands.json";
/// Where the mirrored compilation database's commands write what the
/// original ones wrote outside the tree (an out-of-source build
/// directory), by its absolute path: never into the original build.
pub const BUILT_OUTSIDE: &str = "pomp_build";
/// The files of pomp's own at the top of the output directory; the last is
/// written only from a compilation database.
pub const NAMES: [&str; 3] = [REGISTRATION, INDEX, COMPILE_COMMANDS];

/// Write the weak registration of every instrumented unit of the mirror,
/// by their registration functions.
pub fn write_registration(
    directories: &Directories,
    init_functions: &BTreeSet<String>,
) -> Result<Change> {
    use pomp2::registration::InitFunction;
    let functions: Vec<InitFunction> = init_functions
        .iter()
        .filter_map(|symbol| InitFunction::from_symbol(symbol))
        .collect();
    let source = pomp_wrapper::registration::render_weak_registration(&functions);
    write_if_changed(&directories.out.join(REGISTRATION), source.as_bytes())
}

/// Close the state with what the IDF index is made of, and write the
/// index unless the last run wrote it from the same inputs.
pub fn write_index(directories: &Directories, cache: Cache, index_inputs: &str) -> Result<()> {
    let index = directories.out.join(INDEX);
    let index_current = cache.previous_index_inputs() == Some(index_inputs) && index.is_file();
    if !index_current {
        // Whatever stops the index being written leaves none, so that the
        // next run writes it whatever the state says.
        let _ = std::fs::remove_file(&index);
    }
    cache
        .finish(index_inputs)
        .with_context(|| directories.cannot_write_cache())?;
    if !index_current {
        write_index_from_state(&index, directories)?;
    }
    Ok(())
}

/// Write the IDF index from the descriptors of the state's instrumented
/// files; descriptors no file refers to any more are deleted then.
fn write_index_from_state(index: &Path, directories: &Directories) -> Result<()> {
    let mut live = HashSet::new();
    let files = cache::indexed(&directories.cache).map(|(path, idf)| {
        let descriptor = directories.idf.join(&idf);
        live.insert(idf);
        index::IndexedFile { path, descriptor }
    });
    index::write(index, &directories.root, files)
        .and_then(|()| readable_by_all(index))
        .with_context(|| format!("cannot write {}", index.display()))?;
    for entry in std::fs::read_dir(&directories.idf)?.flatten() {
        if !live.contains(entry.file_name().to_string_lossy().as_ref()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(())
}

/// Write the database's commands pointed at the mirror: at the
/// counterpart of each compiled file that was mirrored (`mirrored_units`,
/// relative to the root), and of each directory. Returns its path.
pub fn write_compile_commands(
    database: &compdb::Database,
    directories: &Directories,
    mirrored_units: &HashSet<PathBuf>,
) -> Result<PathBuf> {
    let path = directories.out.join(COMPILE_COMMANDS);
    let out = &directories.out;
    let entries = database.mirrored(
        |path| {
            let relative = path.strip_prefix(&directories.root).ok()?;
            let counterpart = out.join(relative);
            (mirrored_units.contains(relative) || counterpart.is_dir()).then_some(counterpart)
        },
        |written| match written.strip_prefix(&directories.root) {
            Ok(relative) => out.join(relative),
            Err(_) => out
                .join(BUILT_OUTSIDE)
                .join(written.strip_prefix("/").unwrap_or(written)),
        },
    );
    // Compilers make no directories for what they write.
    for written in compdb::Database::written_by(&entries) {
        if let Some(directory) = written.parent() {
            std::fs::create_dir_all(directory)
                .with_context(|| format!("cannot create {}", directory.display()))?;
        }
    }
    write_if_changed(&path, &compdb::render(&entries)?)?;
    Ok(path)
}

/// Write `bytes` unless the file already holds them, so that builds
/// depending on it are not redone.
fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<Change> {
    let change = match std::fs::read(path) {
        Ok(old) if old == bytes => return Ok(Change::Unchanged),
        Ok(_) => Change::Changed,
        Err(_) => Change::Created,
    };
    pomp_files::write_atomically(path, bytes)
        .and_then(|()| readable_by_all(path))
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(change)
}

/// What a run did to one of the files it writes beside the tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    #[default]
    Unchanged,
    Created,
    /// Different from what the last run wrote: whatever was built from
    /// the old file is stale.
    Changed,
}

/// What the mirror holds besides the tree is for whoever builds it, as
/// the tree's files are.
fn readable_by_all(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644))
}

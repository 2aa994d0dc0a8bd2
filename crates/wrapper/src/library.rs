//! The measurement library a program is linked with, when it is not pomp's
//! runtime: which events it defines, read from its symbols, so that the
//! sources call only those and the program links as it is.

use super::registration::{symbols, visit_objects};
use anyhow::{bail, Result};
use object::ObjectSymbol;
use pomp_core::rules::{Interface, Library};
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// A function only pomp's runtime defines: a library that has it is pomp's
/// runtime, whatever its file is called, and gets every event and pomp's
/// structure.
const POMP_RUNTIME_MARKER: &str = "pomp_runtime_init_user_regions";

/// OPARI2's reference library (libpomp.a of libpomp2-dev) keeps its own
/// table by this name, of `POMP2_Get_num_regions()` entries, into which
/// it writes user regions too, from its first entry on: with more user
/// regions than construct regions it fails an assertion and aborts.
const REFERENCE_LIBRARY_TABLE: &str = "my_pomp2_regions";

/// What the program's sources may call: `None` when the library is pomp's
/// runtime (`chosen` is `None`, or names it), else the events the chosen
/// library defines for `interface`.
pub fn chosen_library(
    chosen: Option<&str>,
    interface: Interface,
    library_dirs: &[PathBuf],
    compiler: &[OsString],
) -> Result<Option<Arc<Library>>> {
    let Some(chosen) = chosen else {
        return Ok(None);
    };
    let Some(path) = library_file(chosen, library_dirs, compiler)? else {
        // `-Wl,...`: the linker alone knows what it names; it is taken to
        // define every event, in OPARI2's structure.
        let every: Vec<String> = pomp2::events::EVENTS
            .iter()
            .map(|e| format!("POMP2_{}", e.name))
            .chain(
                pomp2::events::EVENTS
                    .iter()
                    .map(|e| format!("pomp2_{}_", e.name.to_ascii_lowercase())),
            )
            .collect();
        let every = every.iter().map(String::as_str);
        return Ok(Some(Arc::new(Library::from_symbols(
            chosen, interface, every,
        ))));
    };
    let defined = defined_symbols(&path)?;
    if defined.contains(POMP_RUNTIME_MARKER) {
        return Ok(None);
    }
    let name = path
        .file_name()
        .map_or_else(|| chosen.to_owned(), |n| n.to_string_lossy().into_owned());
    Ok(Some(Arc::new(Library::from_symbols(
        &name,
        interface,
        defined.iter().map(String::as_str),
    ))))
}

/// Whether the chosen library must count user regions among
/// `POMP2_Get_num_regions()` to run (see [`REFERENCE_LIBRARY_TABLE`]).
pub fn counts_user_regions_with_constructs(
    chosen: &str,
    library_dirs: &[PathBuf],
    compiler: &[OsString],
) -> Result<bool> {
    Ok(match library_file(chosen, library_dirs, compiler)? {
        Some(path) => defined_symbols(&path)?.contains(REFERENCE_LIBRARY_TABLE),
        None => false,
    })
}

fn defined_symbols(path: &Path) -> Result<BTreeSet<String>> {
    let mut defined = BTreeSet::new();
    visit_objects(path, &mut |file| {
        for symbol in symbols(file) {
            if symbol.is_global() && (symbol.is_definition() || symbol.is_common()) {
                if let Ok(name) = symbol.name() {
                    defined.insert(name.to_owned());
                }
            }
        }
        Ok(())
    })?;
    Ok(defined)
}

/// The file a `--pomp-runtime` value names: a path, or `-lNAME` found in
/// the command line's `-L` directories and then where the compiler looks
/// (a shared library before an archive, as the linker prefers). `None`
/// for linker options, which only the linker reads.
fn library_file(
    chosen: &str,
    library_dirs: &[PathBuf],
    compiler: &[OsString],
) -> Result<Option<PathBuf>> {
    if chosen.starts_with("-Wl,") {
        return Ok(None);
    }
    let Some(name) = chosen.strip_prefix("-l") else {
        let path = PathBuf::from(chosen);
        if !path.is_file() {
            bail!("the POMP library {chosen} does not exist");
        }
        return Ok(Some(path));
    };
    let candidates = [format!("lib{name}.so"), format!("lib{name}.a")];
    for directory in library_dirs {
        if let Some(found) = candidates
            .iter()
            .map(|c| directory.join(c))
            .find(|p| p.is_file())
        {
            return Ok(Some(found));
        }
    }
    for candidate in &candidates {
        if let Some(found) = compiler_finds(compiler, candidate) {
            return Ok(Some(found));
        }
    }
    bail!(
        "cannot find the POMP library {chosen}: neither the -L directories nor the compiler's \
         library path hold lib{name}.so or lib{name}.a"
    )
}

/// Where the compiler finds `file` on its library path (`-print-file-name`
/// answers the name alone when it does not).
fn compiler_finds(compiler: &[OsString], file: &str) -> Option<PathBuf> {
    let (program, args) = compiler.split_first()?;
    let output = Command::new(program)
        .args(args)
        .arg(format!("-print-file-name={file}"))
        .output()
        .ok()?;
    let answer = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let path = Path::new(&answer);
    (output.status.success() && path.is_absolute() && path.is_file()).then(|| path.to_path_buf())
}

/// The note saying once which constructs the library leaves unmeasured.
pub fn unmeasured_note(library: &Library, unmeasured: &BTreeSet<String>) -> Option<String> {
    if unmeasured.is_empty() {
        return None;
    }
    let names: Vec<&str> = unmeasured.iter().map(String::as_str).collect();
    Some(format!(
        "{} defines no events for {}: those constructs are compiled as written, unmeasured",
        library.name,
        names.join(", ")
    ))
}

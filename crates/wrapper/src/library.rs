//! The measurement library a program is linked with, when it is not pomp's
//! runtime: which events it defines, read from its symbols, so that the
//! sources call only those and the program links as it is.

use super::registration::{symbols, visit_objects};
use anyhow::{bail, Result};
use object::{Object, ObjectSymbol};
use pomp_core::rules::{Interface, Library};
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// A function only pomp's runtime defines: a library that has it is pomp's
/// runtime, whatever its file is called, and gets every event and pomp's
/// structure. The sealed archive (see [`crate::seal`]) and the shared
/// library keep it local, so it is looked for among local symbols too.
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
        let every: Vec<String> = pomp2::events::library_symbols().collect();
        let every = every.iter().map(String::as_str);
        return Ok(Some(Arc::new(Library::from_symbols(
            chosen, interface, every,
        ))));
    };
    if defines_at_all(&path, POMP_RUNTIME_MARKER)? {
        return Ok(None);
    }
    let defined = defined_symbols(&path)?;
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

/// Whether the library `chosen` names defines `symbol`; a linker option,
/// which only the linker reads, is taken to.
pub fn defines(
    chosen: &str,
    library_dirs: &[PathBuf],
    compiler: &[OsString],
    symbol: &str,
) -> Result<bool> {
    Ok(match library_file(chosen, library_dirs, compiler)? {
        Some(path) => defined_symbols(&path)?.contains(symbol),
        None => true,
    })
}

/// Whether `path` defines `name`, globally or locally (a shared library
/// in its symbol table, which stripping removes).
fn defines_at_all(path: &Path, name: &str) -> Result<bool> {
    let mut found = false;
    visit_objects(path, &mut |file| {
        found |= file
            .symbols()
            .chain(file.dynamic_symbols())
            .any(|symbol| symbol.is_definition() && symbol.name() == Ok(name));
        Ok(())
    })?;
    Ok(found)
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

/// The file a `--pomp-runtime` value names: a path, or `-lNAME` found as
/// the linker finds it, in the command line's `-L` directories and then
/// on the compiler's library path, in each directory a shared library
/// before an archive. `None` for linker options, which only the linker
/// reads.
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
    let found_in = |directories: &[PathBuf]| {
        directories.iter().find_map(|directory| {
            candidates
                .iter()
                .map(|c| directory.join(c))
                .find(|p| p.is_file())
        })
    };
    // The compiler is asked only when the command line's directories do
    // not hold the library: its answer costs a run of its driver.
    if let Some(found) =
        found_in(library_dirs).or_else(|| found_in(&compiler_library_dirs(compiler)))
    {
        return Ok(Some(found));
    }
    bail!(
        "cannot find the POMP library {chosen}: neither the -L directories nor the compiler's \
         library path hold lib{name}.so or lib{name}.a"
    )
}

/// The directories the compiler has the linker search for `-l` libraries,
/// in their order: `-print-search-dirs`, which gcc and clang answer alike,
/// in one run of the driver (`-print-file-name` takes one per name).
fn compiler_library_dirs(compiler: &[OsString]) -> Vec<PathBuf> {
    let Some((program, args)) = compiler.split_first() else {
        return Vec::new();
    };
    let Ok(output) = Command::new(program)
        .args(args)
        .arg("-print-search-dirs")
        .output()
    else {
        return Vec::new();
    };
    if !output.status.success() {
        return Vec::new();
    }
    search_dirs_libraries(&String::from_utf8_lossy(&output.stdout))
}

/// The `libraries: =DIR:DIR:...` line of `-print-search-dirs`.
fn search_dirs_libraries(answer: &str) -> Vec<PathBuf> {
    answer
        .lines()
        .find_map(|line| line.strip_prefix("libraries:"))
        .map(|list| list.trim_start().trim_start_matches('='))
        .map(|list| {
            std::env::split_paths(list)
                .filter(|d| d.is_absolute())
                .collect()
        })
        .unwrap_or_default()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compilers_library_directories_are_read_in_order() {
        let answer = "install: /usr/lib/gcc/x86_64-linux-gnu/12/\n\
                      programs: =/usr/libexec/gcc:/usr/bin\n\
                      libraries: =/opt/pomp/lib:/usr/lib/x86_64-linux-gnu/:relative\n";
        assert_eq!(
            search_dirs_libraries(answer),
            [
                PathBuf::from("/opt/pomp/lib"),
                PathBuf::from("/usr/lib/x86_64-linux-gnu/")
            ]
        );
        assert!(search_dirs_libraries("").is_empty());
    }

    #[test]
    fn a_library_on_the_compilers_path_is_found_with_one_run_of_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("libmeasure.a"), b"!<arch>\n").unwrap();
        // A compiler that answers as gcc does and counts its runs.
        let compiler = dir.path().join("cc");
        let runs = dir.path().join("runs");
        std::fs::write(
            &compiler,
            format!(
                "#!/bin/sh\necho run >> {}\necho 'libraries: ={}'\n",
                runs.display(),
                dir.path().display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&compiler, std::fs::Permissions::from_mode(0o755)).unwrap();
        let command = [compiler.into_os_string()];
        let found = library_file("-lmeasure", &[], &command).unwrap();
        assert_eq!(found, Some(dir.path().join("libmeasure.a")));
        assert_eq!(std::fs::read_to_string(&runs).unwrap().lines().count(), 1);
        let missing = library_file("-lnothing", &[], &command).unwrap_err();
        assert!(missing.to_string().contains("libnothing.so"), "{missing}");
        // A library the command line's directories hold asks no compiler.
        std::fs::remove_file(&runs).unwrap();
        let found = library_file("-lmeasure", &[dir.path().to_path_buf()], &command).unwrap();
        assert_eq!(found, Some(dir.path().join("libmeasure.a")));
        assert!(!runs.exists());
    }
}

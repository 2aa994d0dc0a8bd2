//! The built libraries define the contract's table (`pomp2::events`) under
//! both linkages the instrumented code calls, the entry points of pomp's
//! MPI library (`pomp2::mpi::ENTRY_POINTS`), and nothing else: a symbol a
//! measurement library defines globally, even weakly, can take the place
//! of the program's own (Rust's `cbrt` instead of the C library's).

mod common;

use object::read::archive::ArchiveFile;
use object::{Object, ObjectSymbol};
use std::collections::BTreeSet;

/// The global and weak symbols `file` defines, in every symbol table it
/// has (a shared library's dynamic one too).
fn defined_in(file: &object::File, defined: &mut BTreeSet<String>) {
    for symbol in file.symbols().chain(file.dynamic_symbols()) {
        if (symbol.is_global() || symbol.is_weak())
            && (symbol.is_definition() || symbol.is_common())
        {
            defined.insert(symbol.name().expect("a symbol name").to_string());
        }
    }
}

/// Every global or weak definition of a static library, member by member
/// (`nm` passes over members that embed LLVM bitcode; this reader does
/// not), or of a shared library.
fn global_definitions(path: &std::path::Path) -> BTreeSet<String> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut defined = BTreeSet::new();
    if let Ok(archive) = ArchiveFile::parse(&*bytes) {
        for member in archive.members() {
            let data = member.unwrap().data(&*bytes).unwrap();
            defined_in(&object::File::parse(data).expect("an object"), &mut defined);
        }
    } else {
        defined_in(
            &object::File::parse(&*bytes).expect("an object"),
            &mut defined,
        );
    }
    defined
}

fn shared_library() -> std::path::PathBuf {
    common::staticlib();
    common::target_dir().join("libpomp_runtime.so")
}

#[test]
fn every_event_is_exported_with_c_and_gfortran_linkage() {
    for library in [common::staticlib(), shared_library()] {
        let defined = global_definitions(&library);
        let missing: Vec<String> = pomp2::events::library_symbols()
            .filter(|symbol| !defined.contains(symbol))
            .collect();
        assert!(
            missing.is_empty(),
            "{} does not define {missing:?}",
            library.display()
        );
    }
}

#[test]
fn the_libraries_define_the_interface_and_nothing_else() {
    let interface: BTreeSet<String> = pomp2::runtime_symbols().collect();
    for library in [common::staticlib(), shared_library()] {
        let stray: Vec<String> = global_definitions(&library)
            .into_iter()
            .filter(|name| !interface.contains(name))
            .collect();
        assert!(
            stray.is_empty(),
            "{} defines {} symbols beyond the POMP2 and MPI entry points, e.g. {:?}",
            library.display(),
            stray.len(),
            &stray[..stray.len().min(20)]
        );
    }
}

#[test]
fn the_reader_sees_what_cargos_archive_leaks() {
    // The check above is worth something only if it finds Rust's math
    // functions where Cargo's archive has them.
    let leaked = global_definitions(&common::cargo_staticlib());
    for function in ["cbrt", "fmod", "rust_eh_personality"] {
        assert!(leaked.contains(function), "{function} not seen: {leaked:?}");
    }
}

/// The functions the POMP MPI library calls are exported under the names
/// the contract declares, by the sealed archive and the shared library,
/// and no other under their prefix.
#[test]
fn the_mpi_entry_points_are_exported_and_no_others_under_their_prefix() {
    let expected: BTreeSet<String> = pomp2::mpi::ENTRY_POINTS
        .iter()
        .map(|entry| entry.name.to_string())
        .collect();
    for library in [common::staticlib(), shared_library()] {
        let exported = global_definitions(&library);
        let missing: Vec<&String> = expected.difference(&exported).collect();
        assert!(
            missing.is_empty(),
            "{} does not export {missing:?}",
            library.display()
        );
        let stray: Vec<&String> = exported
            .iter()
            .filter(|name| name.starts_with(pomp2::mpi::ENTRY_PREFIX))
            .filter(|name| !expected.contains(*name))
            .collect();
        assert!(
            stray.is_empty(),
            "{} exports undeclared {stray:?}",
            library.display()
        );
    }
}

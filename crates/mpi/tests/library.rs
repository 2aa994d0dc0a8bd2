//! The library built with the installed MPI (Open MPI's mpicc): it
//! defines every MPI function of the table in C and in both Fortran
//! bindings, and nothing else for others to call; what it needs is MPI's
//! profiling interface and the runtime's `pomp_mpi_*` functions.

use object::read::archive::ArchiveFile;
use object::{Object, ObjectSymbol, SymbolFlags};
use std::collections::BTreeSet;

/// ELF's hidden visibility.
const STV_HIDDEN: u8 = 2;

struct Symbols {
    /// Defined, global and visible: what a program's references reach.
    exported: BTreeSet<String>,
    /// Defined, global, hidden: the library's own.
    hidden: BTreeSet<String>,
    /// Referenced and not defined in the archive.
    needed: BTreeSet<String>,
}

fn symbols_of(bytes: &[u8]) -> Symbols {
    let archive = ArchiveFile::parse(bytes).expect("an archive");
    let (mut exported, mut hidden, mut referenced) =
        (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for member in archive.members() {
        let member = member.unwrap();
        let file = object::File::parse(member.data(bytes).unwrap()).unwrap();
        for symbol in file.symbols() {
            let Ok(name) = symbol.name() else { continue };
            if symbol.is_undefined() {
                referenced.insert(name.to_string());
            } else if symbol.is_global() && symbol.is_definition() {
                let is_hidden = matches!(
                    symbol.flags(),
                    SymbolFlags::Elf { st_other, .. } if st_other & 3 == STV_HIDDEN
                );
                if is_hidden {
                    hidden.insert(name.to_string());
                } else {
                    exported.insert(name.to_string());
                }
            }
        }
    }
    let defined: BTreeSet<String> = exported.union(&hidden).cloned().collect();
    Symbols {
        needed: referenced.difference(&defined).cloned().collect(),
        exported,
        hidden,
    }
}

#[test]
fn the_library_exports_mpis_functions_in_every_binding_and_nothing_else() {
    let compiler = pomp_mpi::MpiCompiler::find(None, &[])
        .unwrap_or_else(|error| panic!("{error:#} (Open MPI: openmpi-bin, libopenmpi-dev)"));
    assert!(compiler.identity.contains("-lmpi"), "{}", compiler.identity);
    let cache = tempfile::tempdir().unwrap();
    let archive = pomp_mpi::build::library_in(cache.path(), &compiler).unwrap();
    // Built once: the second call finds it in the cache.
    let modified = std::fs::metadata(&archive).unwrap().modified().unwrap();
    assert_eq!(
        pomp_mpi::build::library_in(cache.path(), &compiler).unwrap(),
        archive
    );
    assert_eq!(
        std::fs::metadata(&archive).unwrap().modified().unwrap(),
        modified
    );

    let symbols = symbols_of(&std::fs::read(&archive).unwrap());

    let expected: BTreeSet<String> = pomp_mpi::source::exported_symbols().into_iter().collect();
    assert_eq!(symbols.exported, expected);
    assert!(expected.contains("MPI_Send"));
    assert!(expected.contains("mpi_send_"));
    assert!(expected.contains("mpi_send_f08_"));
    for name in &symbols.hidden {
        assert!(
            name.starts_with("pomp_mpilib_"),
            "{name} is not the library's own"
        );
    }
    let entry_points: BTreeSet<&str> = pomp2::mpi::ENTRY_POINTS.iter().map(|e| e.name).collect();
    for name in &symbols.needed {
        // MPI's profiling interface, Open MPI's predefined objects and
        // Fortran constants, the runtime, the C library: never an MPI
        // function, which would be measured twice or bypass the library.
        let known = name.starts_with("PMPI_")
            || name.starts_with("pmpi_")
            || name.starts_with("ompi_")
            || name.starts_with("mpi_fortran_")
            || name.starts_with("MPI_F_")
            || entry_points.contains(name.as_str())
            || !name.to_lowercase().starts_with("mpi");
        assert!(known, "{name} is needed from elsewhere");
    }
    for entry in pomp2::mpi::ENTRY_POINTS {
        assert!(symbols.needed.contains(entry.name), "{} unused", entry.name);
    }
}

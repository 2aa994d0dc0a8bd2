//! The built library exports every function of the contract's table
//! (`pomp2::events`) under both linkages the instrumented code calls.

mod common;

use object::{Object, ObjectSymbol};
use std::collections::BTreeSet;

/// The functions the shared library defines and exports.
fn exported_functions() -> BTreeSet<String> {
    common::staticlib();
    let path = common::target_dir().join("libpomp_runtime.so");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file = object::File::parse(&*bytes).expect("an object file");
    file.dynamic_symbols()
        .filter(|symbol| symbol.is_definition() && symbol.is_global())
        .filter_map(|symbol| symbol.name().ok().map(str::to_string))
        .collect()
}

#[test]
fn every_event_is_exported_with_c_and_gfortran_linkage() {
    let exported = exported_functions();
    let mut missing = Vec::new();
    for event in pomp2::events::EVENTS {
        for symbol in [
            format!("POMP2_{}", event.name),
            format!("pomp2_{}_", event.name.to_lowercase()),
        ] {
            if !exported.contains(&symbol) {
                missing.push(symbol);
            }
        }
    }
    assert!(missing.is_empty(), "not exported: {missing:?}");
}

#[test]
fn nothing_else_is_exported_under_the_interface_s_prefixes() {
    let expected: BTreeSet<String> = pomp2::events::EVENTS
        .iter()
        .flat_map(|event| {
            [
                format!("POMP2_{}", event.name),
                format!("pomp2_{}_", event.name.to_lowercase()),
            ]
        })
        .collect();
    let stray: Vec<String> = exported_functions()
        .into_iter()
        .filter(|name| name.to_lowercase().starts_with("pomp2_"))
        .filter(|name| !expected.contains(name))
        .collect();
    assert!(stray.is_empty(), "exported but not in the table: {stray:?}");
}

/// The functions the POMP MPI library calls are exported under the names
/// the contract declares, and no other under their prefix.
#[test]
fn the_mpi_entry_points_are_exported_and_no_others_under_their_prefix() {
    let exported = exported_functions();
    let expected: BTreeSet<String> = pomp2::mpi::ENTRY_POINTS
        .iter()
        .map(|entry| entry.name.to_string())
        .collect();
    let missing: Vec<&String> = expected.difference(&exported).collect();
    assert!(missing.is_empty(), "not exported: {missing:?}");
    let stray: Vec<&String> = exported
        .iter()
        .filter(|name| name.starts_with(pomp2::mpi::ENTRY_PREFIX))
        .filter(|name| !expected.contains(*name))
        .collect();
    assert!(stray.is_empty(), "exported but not declared: {stray:?}");
}

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

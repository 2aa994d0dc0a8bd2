//! A digest of everything that decides what pomp writes: its sources, the
//! grammar tables, the POMP2 contract crate and the locked dependencies
//! (the tree-sitter grammars among them). `pomp batch` keys its cache by
//! it, so that a rebuilt pomp never takes what an older build wrote for
//! its own, even at the same version number.
//!
//! It also turns the grammar tables into JSON: every run of pomp (every
//! compile through a wrapper) loads them, and TOML takes several times as
//! long to read as JSON, whose reader the program has anyway.
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

const INPUTS: &[&str] = &["src", "../../grammars", "../pomp2/src", "../../Cargo.lock"];

fn main() {
    let mut files = Vec::new();
    for input in INPUTS {
        println!("cargo:rerun-if-changed={input}");
        collect(Path::new(input), &mut files);
    }
    files.sort();
    let mut hasher = Sha256::new();
    for file in &files {
        let bytes = std::fs::read(file).unwrap_or_default();
        hasher.update(file.to_string_lossy().as_bytes());
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    let digest: String = hasher.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    println!("cargo:rustc-env=POMP_BUILD_DIGEST={digest}");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for table in TABLES {
        as_json(&Path::new("../../grammars").join(table), &out);
    }
}

/// The grammar tables the program loads, in `grammars/`.
const TABLES: &[&str] = &["openmp.toml", "rules.toml"];

/// Writes `OUT_DIR/NAME.json` with the table's content; a table that is
/// not TOML stops the build, saying where.
fn as_json(table: &Path, out: &Path) {
    let text = std::fs::read_to_string(table)
        .unwrap_or_else(|e| panic!("reading {}: {e}", table.display()));
    let value: serde_json::Value =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{} is invalid: {e}", table.display()));
    let json = serde_json::to_string(&value).expect("a TOML value is valid JSON");
    let name = table.with_extension("json");
    let name = name.file_name().expect("a table has a file name");
    std::fs::write(out.join(name), json).expect("writing into OUT_DIR");
}

fn collect(path: &Path, files: &mut Vec<PathBuf>) {
    if path.is_file() {
        files.push(path.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    for entry in entries.flatten() {
        collect(&entry.path(), files);
    }
}

//! A digest of everything that decides what pomp writes: its sources, the
//! grammar tables, the POMP2 contract crate and the locked dependencies
//! (the tree-sitter grammars among them). `pomp batch` keys its cache by
//! it, so that a rebuilt pomp never takes what an older build wrote for
//! its own, even at the same version number.
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

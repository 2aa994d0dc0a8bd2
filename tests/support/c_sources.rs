//! The repository's C and C++ files below some of its directories, for
//! tests that run every one of them through the front end.

use pomp_core::language::Language;
use std::path::{Path, PathBuf};

/// Every C and C++ file below `dirs` (relative to the repository), sorted.
pub fn c_sources(dirs: &[&str]) -> Vec<PathBuf> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, found);
            } else if matches!(
                Language::from_path(&path),
                Some(Language::C | Language::Cpp)
            ) {
                found.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for dir in dirs {
        walk(&root.join(dir), &mut found);
    }
    found.sort();
    found
}

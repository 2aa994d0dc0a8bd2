//! Directories for what a test process builds once and shares between its
//! tests. Such a directory is held in a `static`, and statics are never
//! dropped, so a `TempDir` there would stay behind after every run (hundreds
//! of megabytes each for the MPI and report programs). Instead each lies
//! under cargo's `target/tmp`, named after its process; the directories of
//! processes that have ended are removed when the next one starts.

use std::path::{Path, PathBuf};

pub fn directory(prefix: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
    if let Ok(entries) = std::fs::read_dir(root) {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let owner = name
                .to_str()
                .and_then(|n| n.strip_prefix(prefix))
                .and_then(|rest| rest.strip_prefix('-'))
                .and_then(|pid| pid.parse::<u32>().ok());
            if owner.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let directory = root.join(format!("{prefix}-{}", std::process::id()));
    // An ended process that had this process's id left it.
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).expect("a scratch directory under target/tmp");
    directory
}

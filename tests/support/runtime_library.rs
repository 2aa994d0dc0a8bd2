//! pomp's runtime archive, built for the test run that asks for it, so
//! that it is current: `cargo test --test NAME` builds the pomp binary but
//! not the runtime crate. It lands beside the binary (debug or release, as
//! the binary was built).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The directory holding `libpomp_runtime.a`, the one `POMP_RUNTIME_DIR`
/// names to the wrappers.
pub fn directory() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let binary = PathBuf::from(env!("CARGO_BIN_EXE_pomp"));
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = Command::new(cargo);
        build.current_dir(env!("CARGO_MANIFEST_DIR")).args([
            "build",
            "--quiet",
            "-p",
            "pomp-runtime",
        ]);
        if binary.parent().is_some_and(|d| d.ends_with("release")) {
            build.arg("--release");
        }
        let output = build
            .output()
            .unwrap_or_else(|e| panic!("cannot run {build:?}: {e}"));
        assert!(
            output.status.success(),
            "{build:?} failed with {}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        let dir = binary.parent().unwrap().to_path_buf();
        assert!(
            archive_in(&dir).is_file(),
            "no libpomp_runtime.a in {}",
            dir.display()
        );
        dir
    })
}

/// The archive itself.
pub fn archive() -> PathBuf {
    archive_in(directory())
}

fn archive_in(dir: &Path) -> PathBuf {
    dir.join("libpomp_runtime.a")
}

//! The OpenMP toolchains the tests compile with: gcc with libgomp always,
//! and clang with LLVM's libomp where it is installed (C and C++; Fortran
//! stays with gfortran). Users build with either, so instrumented programs
//! are checked under both.
//!
//! clang is found as `clang`/`clang++` or, as Debian installs it,
//! `clang-N`/`clang++-N` (the highest N on the `PATH`); `POMP_TEST_CLANG`
//! names another C compiler (its C++ driver is the same name with `++`).
//! Where clang cannot build and run an OpenMP program the clang trials are
//! left out with a message, unless `CI` (which `.ci/run` sets) or
//! `POMP_REQUIRE_CLANG` is set: then that is a failure.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toolchain {
    /// `gcc` or `clang`: how trials of this toolchain are named.
    pub name: &'static str,
    pub c: String,
    pub cxx: String,
    /// Its Fortran compiler, if it has one.
    pub fortran: Option<String>,
}

/// Where any of these is set, a missing clang is a failure.
pub const REQUIRE_CLANG_VARIABLES: &[&str] = &["CI", "POMP_REQUIRE_CLANG"];

impl Toolchain {
    pub fn gnu() -> Toolchain {
        Toolchain {
            name: "gcc",
            c: "gcc".into(),
            cxx: "g++".into(),
            fortran: Some("gfortran".into()),
        }
    }

    /// The first toolchain is gcc's; trials of the others carry their name.
    pub fn is_default(&self) -> bool {
        self.name == "gcc"
    }

    /// The OpenMP runtime its programs run on.
    pub fn openmp_runtime(&self) -> &'static str {
        match self.is_default() {
            true => "libgomp",
            false => "libomp",
        }
    }

    /// clang with libomp, where installed; `Err` says why it is not.
    pub fn clang() -> Result<Toolchain, String> {
        static FOUND: OnceLock<Result<Toolchain, String>> = OnceLock::new();
        FOUND.get_or_init(find_clang).clone()
    }

    /// gcc's, and clang's where it works. Without clang the reason is
    /// printed, or, where `POMP_REQUIRE_CLANG` is set, this panics.
    pub fn all() -> Vec<Toolchain> {
        let mut all = vec![Toolchain::gnu()];
        all.extend(Toolchain::clang_unless_required());
        all
    }

    /// clang's toolchain; without it, the reason printed, or, where
    /// `POMP_REQUIRE_CLANG` is set, a panic.
    pub fn clang_unless_required() -> Option<Toolchain> {
        match Toolchain::clang() {
            Ok(clang) => Some(clang),
            Err(why) => match REQUIRE_CLANG_VARIABLES
                .iter()
                .find(|v| std::env::var_os(v).is_some())
            {
                Some(variable) => panic!("{variable} is set, but {why}"),
                None => {
                    eprintln!("clang left out: {why}");
                    None
                }
            },
        }
    }
}

fn find_clang() -> Result<Toolchain, String> {
    let c = match std::env::var("POMP_TEST_CLANG") {
        Ok(named) => named,
        Err(_) => newest_clang_on_path().ok_or("no clang on the PATH (Debian: clang-14)")?,
    };
    let cxx = match c.find("clang") {
        Some(at) => format!("{}clang++{}", &c[..at], &c[at + "clang".len()..]),
        None => format!("{c}++"),
    };
    let probe = tempfile::tempdir().map_err(|e| e.to_string())?;
    let source = probe.path().join("probe.c");
    std::fs::write(
        &source,
        "#include <omp.h>\nint main(void) { int n = 0;\n#pragma omp parallel reduction(+: n)\n n++;\n return n == omp_get_max_threads() ? 0 : 1; }\n",
    )
    .map_err(|e| e.to_string())?;
    let exe = probe.path().join("probe");
    let output = Command::new(&c)
        .args(["-fopenmp", "-O1"])
        .arg(&source)
        .arg("-o")
        .arg(&exe)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{c} does not start: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "{c} cannot build an OpenMP program (Debian: libomp-14-dev):\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let ran = Command::new(&exe)
        .env("OMP_NUM_THREADS", "2")
        .status()
        .map_err(|e| e.to_string())?;
    if !ran.success() {
        return Err(format!("an OpenMP program built by {c} fails ({ran})"));
    }
    Ok(Toolchain {
        name: "clang",
        c,
        cxx,
        fortran: None,
    })
}

/// `clang`, else the `clang-N` with the highest N in a directory of the
/// `PATH`, where its C++ driver is there too.
fn newest_clang_on_path() -> Option<String> {
    let path = std::env::var_os("PATH")?;
    let dirs: Vec<_> = std::env::split_paths(&path).collect();
    let exists = |name: &str| dirs.iter().any(|d| is_file(&d.join(name)));
    if exists("clang") && exists("clang++") {
        return Some("clang".into());
    }
    let mut versions: Vec<u32> = dirs
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flat_map(|entries| entries.flatten())
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_prefix("clang-")?
                .parse::<u32>()
                .ok()
        })
        .filter(|v| exists(&format!("clang++-{v}")))
        .collect();
    versions.sort_unstable();
    versions.last().map(|v| format!("clang-{v}"))
}

fn is_file(path: &Path) -> bool {
    path.metadata().is_ok_and(|m| m.is_file())
}

//! Building hand-instrumented C and Fortran programs against the runtime's
//! static library, running them and reading what they wrote.

#![allow(dead_code)]

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

/// `target/<profile>`: the test binary lives in its `deps` folder, and
/// cargo builds the staticlib there before running the tests.
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    exe.parent()
        .and_then(Path::parent)
        .expect("target/<profile>")
        .to_path_buf()
}

/// The static library as programs link it (sealed: only the POMP2
/// interface global), rebuilt first: `cargo test` itself only builds the
/// rlib, and a stale archive would test old code.
pub fn staticlib() -> PathBuf {
    static SEALED: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    SEALED
        .get_or_init(|| {
            pomp_wrapper::seal::sealed_archive(&cargo_staticlib(), &["gcc".into()])
                .unwrap_or_else(|e| panic!("sealing the runtime: {e:#}"))
        })
        .clone()
}

/// The static library as Cargo writes it, rebuilt first.
pub fn cargo_staticlib() -> PathBuf {
    static FRESH: std::sync::Once = std::sync::Once::new();
    FRESH.call_once(|| {
        let profile_dir = target_dir();
        let release = profile_dir.file_name().is_some_and(|n| n == "release");
        let mut cargo = Command::new(env!("CARGO"));
        cargo
            .args(["build", "--quiet", "-p", "pomp-runtime", "--lib"])
            .arg("--manifest-path")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", profile_dir.parent().unwrap());
        if release {
            cargo.arg("--release");
        }
        let status = cargo.status().expect("cargo runs");
        assert!(status.success(), "building the static library failed");
    });
    let lib = target_dir().join("libpomp_runtime.a");
    assert!(
        lib.exists(),
        "{} missing; run cargo build -p pomp-runtime",
        lib.display()
    );
    lib
}

fn sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c")
}

/// Compiles `tests/c/<name>.c` (or `<name>.f90` with its `<name>_init.c`)
/// into a binary of its own under the target directory.
pub fn build(name: &str) -> PathBuf {
    let fortran = format!("{name}.f90");
    if sources().join(&fortran).exists() {
        build_from(name, &[&fortran, &format!("{name}_init.c")], &[], &[])
    } else {
        build_from(name, &[&format!("{name}.c")], &[], &[])
    }
}

/// Compiles the given files (relative to `tests/c`) with extra include
/// directories (also relative to `tests/c`) and compiler flags.
pub fn build_from(name: &str, files: &[&str], include_dirs: &[&str], flags: &[&str]) -> PathBuf {
    let driver = if files.iter().any(|f| f.ends_with(".f90")) {
        "gfortran"
    } else {
        "gcc"
    };
    build_by(driver, name, files, include_dirs, flags)
}

/// Compiles `tests/c/<name>.c` with the C compiler `driver` (clang, to
/// run it with LLVM's libomp).
pub fn build_with(driver: &str, name: &str) -> PathBuf {
    build_by(driver, name, &[&format!("{name}.c")], &[], &[])
}

fn build_by(
    driver: &str,
    name: &str,
    files: &[&str],
    include_dirs: &[&str],
    flags: &[&str],
) -> PathBuf {
    // Tests run in parallel and share programs: compile each once, and never
    // overwrite a binary another test may be executing.
    static BUILT: Mutex<BTreeMap<(String, String), PathBuf>> = Mutex::new(BTreeMap::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let key = (name.to_string(), driver.to_string());
    if let Some(exe) = built.get(&key) {
        return exe.clone();
    }
    let exe = compile(driver, name, files, include_dirs, flags);
    built.insert(key, exe.clone());
    exe
}

fn compile(
    driver: &str,
    name: &str,
    files: &[&str],
    include_dirs: &[&str],
    flags: &[&str],
) -> PathBuf {
    let out_dir = target_dir().join("pomp-runtime-tests");
    std::fs::create_dir_all(&out_dir).unwrap();
    let compiler_name = Path::new(driver).file_name().unwrap().to_string_lossy();
    let exe = out_dir.join(format!("{name}-{compiler_name}-{}", std::process::id()));
    let mut command = Command::new(driver);
    command.args(files.iter().map(|f| sources().join(f)));
    for dir in include_dirs {
        command.arg("-I").arg(sources().join(dir));
    }
    command
        .args(flags)
        .args(["-fopenmp", "-O1", "-Wall", "-o"])
        .arg(&exe)
        .arg(staticlib())
        .args(["-lpthread", "-ldl", "-lm"])
        .current_dir(&out_dir);
    let output = command.output().expect("compiler runs");
    assert!(
        output.status.success(),
        "compiling {name} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    exe
}

pub struct Run {
    pub dir: tempfile::TempDir,
    pub output: Output,
}

impl Run {
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    /// Files in the run directory whose names start with `prefix`.
    pub fn files(&self, prefix: &str) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(self.dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
            .collect();
        files.sort();
        files
    }

    /// The experiments in the run directory.
    pub fn experiments(&self) -> Vec<PathBuf> {
        self.files(pomp2::experiment::NAME_PREFIX)
    }

    /// The one experiment the run made.
    pub fn experiment(&self) -> pomp2::experiment::Experiment {
        let experiments = self.experiments();
        assert_eq!(
            experiments.len(),
            1,
            "expected one experiment, found {experiments:?}\n{}",
            self.stderr()
        );
        pomp2::experiment::Experiment::open(&experiments[0])
            .unwrap_or_else(|error| panic!("{error}"))
    }

    /// The profiles of the run's experiment, in rank order.
    pub fn profiles(&self) -> Vec<PathBuf> {
        let experiment = self.experiment();
        let processes = experiment.processes().unwrap();
        processes.into_iter().filter_map(|p| p.profile).collect()
    }

    /// The traces of the run's experiment, in rank order.
    pub fn traces(&self) -> Vec<PathBuf> {
        let experiment = self.experiment();
        let processes = experiment.processes().unwrap();
        processes.into_iter().filter_map(|p| p.trace).collect()
    }

    /// The one profile the run wrote.
    pub fn profile(&self) -> Value {
        let files = self.profiles();
        assert_eq!(
            files.len(),
            1,
            "expected one profile, found {files:?}\n{}",
            self.stderr()
        );
        profile_json(&files[0])
    }

    /// The one profile the run wrote, typed.
    pub fn typed_profile(&self) -> pomp2::profile::Profile {
        let files = self.profiles();
        assert_eq!(files.len(), 1, "expected one profile, found {files:?}");
        read_profile(&files[0])
    }

    /// A `key=value` integer the program printed.
    pub fn printed(&self, key: &str) -> i64 {
        let stdout = self.stdout();
        stdout
            .split_whitespace()
            .find_map(|word| word.strip_prefix(&format!("{key}=")))
            .unwrap_or_else(|| panic!("{key} not printed in {stdout:?}"))
            .parse()
            .unwrap()
    }
}

pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// A profile as JSON, once the typed reader has read it too.
pub fn profile_json(path: &Path) -> Value {
    read_profile(path);
    read_json(path)
}

/// A trace as JSON, once the typed reader has read it too.
pub fn read_trace(path: &Path) -> pomp2::trace::Trace {
    pomp2::trace::read(path).unwrap_or_else(|error| panic!("{error}"))
}

/// The one profile the run wrote, typed.
pub fn read_profile(path: &Path) -> pomp2::profile::Profile {
    pomp2::profile::read(path).unwrap_or_else(|error| panic!("{error}"))
}

/// Runs `exe` with `threads` OpenMP threads in a fresh directory.
pub fn run(exe: &Path, threads: usize, args: &[&str], env: &[(&str, &str)]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let mut command = Command::new(exe);
    command
        .args(args)
        .current_dir(dir.path())
        .env("OMP_NUM_THREADS", threads.to_string())
        .env_remove("POMP_PROFILE")
        .env_remove("POMP_EXPERIMENT_DIRECTORY")
        .env_remove("POMP_TRACE")
        .env_remove("POMP_TRACE_LIMIT")
        .env_remove("POMP_SUMMARY");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("program runs");
    Run { dir, output }
}

pub fn run_ok(exe: &Path, threads: usize, args: &[&str], env: &[(&str, &str)]) -> Run {
    let run = run(exe, threads, args, env);
    assert!(
        run.output.status.success(),
        "{} failed: {:?}\n{}",
        exe.display(),
        run.output.status,
        run.stderr()
    );
    run
}

/// The profile's region id of the region whose CTC had `type` and started
/// on `line`.
pub fn region_id(profile: &Value, region_type: &str, line: u64) -> u64 {
    profile["regions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["type"] == region_type && r["first_line"] == line)
        .unwrap_or_else(|| panic!("no {region_type} region at line {line}"))["id"]
        .as_u64()
        .unwrap()
}

/// Visits of (region, kind) summed over all threads.
pub fn visits(profile: &Value, region: Option<u64>, kind: &str) -> u64 {
    profile["region_summary"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == kind && s["region"].as_u64() == region)
        .map(|s| s["visits"].as_u64().unwrap())
        .sum()
}

/// Every call-tree node of every thread, with its thread and parent node.
pub fn for_each_node(profile: &Value, mut visit: impl FnMut(u64, Option<&Value>, &Value)) {
    fn walk(
        thread: u64,
        parent: Option<&Value>,
        node: &Value,
        visit: &mut dyn FnMut(u64, Option<&Value>, &Value),
    ) {
        visit(thread, parent, node);
        for child in node["children"].as_array().unwrap() {
            walk(thread, Some(node), child, visit);
        }
    }
    for thread in profile["threads"].as_array().unwrap() {
        walk(
            thread["thread"].as_u64().unwrap(),
            None,
            &thread["tree"],
            &mut visit,
        );
    }
}

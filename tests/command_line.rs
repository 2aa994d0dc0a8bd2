//! `pomp instrument` given paths it cannot use: the messages name the
//! user's paths and the real cause, and a run writes all its outputs or
//! none.

use std::path::Path;
use std::process::{Command, Output};

const SOURCE: &str = "int main(void) {\n#pragma omp parallel\n  { }\n  return 0;\n}\n";

fn instrument(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pomp"))
        .arg("instrument")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.c"), SOURCE).unwrap();
    dir
}

#[test]
fn a_missing_directory_is_named_not_a_temporary_file() {
    let dir = project();
    let run = instrument(dir.path(), &["a.c", "-o", "no/such/dir/out.c"]);
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        stderr(&run),
        "error: cannot write no/such/dir/out.c: the directory no/such/dir does not exist\n"
    );
}

#[test]
fn a_directory_that_takes_no_files_says_so() {
    let dir = project();
    let run = instrument(dir.path(), &["a.c", "-o", "/proc/version"]);
    assert_eq!(run.status.code(), Some(2));
    let message = stderr(&run);
    assert!(
        message.starts_with("error: cannot write /proc/version: no file can be made in /proc: "),
        "{message}"
    );
    assert!(!message.contains(".pomp-"), "{message}");
    let run = instrument(dir.path(), &["a.c", "-o", "."]);
    assert_eq!(stderr(&run), "error: cannot write .: it is a directory\n");
}

#[test]
fn a_missing_input_is_reported_once() {
    let dir = project();
    let run = instrument(dir.path(), &["missing.c", "-o", "out.c"]);
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        stderr(&run),
        "error: cannot read missing.c: No such file or directory (os error 2)\n"
    );
}

#[test]
fn outputs_of_one_run_are_written_all_or_none() {
    let dir = project();
    let run = instrument(
        dir.path(),
        &["a.c", "--idf", "no/such/dir/a.json", "-o", "out.c"],
    );
    assert_eq!(run.status.code(), Some(2));
    assert!(stderr(&run).contains("cannot write no/such/dir/a.json"));
    assert!(!dir.path().join("out.c").exists());
    // Nothing of the run is left behind either.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["a.c"]);
    let run = instrument(dir.path(), &["a.c", "--idf", "a.json", "-o", "out.c"]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(dir.path().join("out.c").is_file() && dir.path().join("a.json").is_file());
}

#[test]
fn dash_writes_the_instrumented_source_to_standard_output() {
    let dir = project();
    let run = instrument(dir.path(), &["a.c", "-o", "out.c"]);
    assert!(run.status.success(), "{}", stderr(&run));
    let written = std::fs::read(dir.path().join("out.c")).unwrap();
    let run = instrument(dir.path(), &["a.c", "-o", "-", "--idf", "a.json"]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert_eq!(run.stdout, written);
    assert!(written.windows(20).any(|w| w == b"POMP2_Parallel_fork("));
    // No file is named after the dash; the descriptor is written.
    assert!(!dir.path().join("-").exists());
    assert!(dir.path().join("a.json").is_file());
    // With an output that cannot be written, nothing reaches the stream.
    let run = instrument(dir.path(), &["a.c", "-o", "-", "--idf", "no/dir/a.json"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(run.stdout.is_empty());
}

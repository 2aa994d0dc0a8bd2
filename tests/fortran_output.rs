//! Fortran output end to end: instrument, compile with gfortran against the
//! checking POMP2 library, run, and compare with the uninstrumented build.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const FIXED_FORM_PROGRAM: &str = "\
c     Fixed form: continued directives, default(none), lock routines,
c     a conditional P$ line and a user region.
      program fixed
      use omp_lib
      implicit none
      integer i, total, counter, n
      integer(kind=omp_lock_kind) lck
      logical got
      total = 0
      counter = 0
      n = 50
CP$   counter = 100
      call omp_init_lock(lck)
!$omp parallel do default(none) shared(n) reduction(+:total)
!$omp& private(i) schedule(static)
      do 10 i = 1, n
        total = total + i
   10 continue
!$omp parallel shared(lck, counter) num_threads(2) if(n .gt. 10)
      call omp_set_lock(lck)
      counter = counter + 1
      call omp_unset_lock(lck)
!$omp single
      got = omp_test_lock(lck)
      if (got) call omp_unset_lock(lck)
!$omp end single
!$omp end parallel
      call omp_destroy_lock(lck)
      call work(total)
      print *, 'total', total, 'counter', counter
      end

      subroutine work(t)
      integer t
!$pomp inst begin(work)
      t = t + 1
!$pomp inst end(work)
      end
";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn have_gfortran() -> bool {
    Command::new("gfortran")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn run(command: &mut Command) -> String {
    let output = command.output().expect("the command starts");
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Instruments `source` (inside `work`) and returns the output path and the
/// registration routine the IDF names.
fn instrument(work: &Path, source: &Path, suffix: &str) -> (PathBuf, String) {
    let output = work.join(format!("instrumented.{suffix}"));
    let idf = work.join("instrumented.json");
    run(Command::new(env!("CARGO_BIN_EXE_pomp"))
        .arg("instrument")
        .arg(source)
        .arg("-o")
        .arg(&output)
        .arg("--idf")
        .arg(&idf));
    let idf: serde_json::Value = serde_json::from_str(&fs::read_to_string(&idf).unwrap()).unwrap();
    let init = idf["init_function"]
        .as_str()
        .expect("the file has regions")
        .to_string();
    (output, init)
}

fn registration(init: &str) -> String {
    let count: usize = init.rsplit('_').next().unwrap().parse().unwrap();
    format!(
        "#include <stddef.h>\nextern void {init}(void);\n\
         void POMP2_Init_regions(void) {{ {init}(); }}\n\
         size_t POMP2_Get_num_regions(void) {{ return {count}; }}\n\
         const char *POMP2_Get_opari2_version(void) {{ return \"2.0.0\"; }}\n"
    )
}

struct Builds {
    original: PathBuf,
    instrumented: PathBuf,
    work: tempfile::TempDir,
}

fn build(source: &Path, suffix: &str) -> Builds {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let (instrumented_source, init) = instrument(dir, source, suffix);
    let text = fs::read_to_string(&instrumented_source).unwrap();
    check_line_lengths(&text, suffix == "F");
    fs::write(dir.join("init.c"), registration(&init)).unwrap();
    let include = format!("-I{}", source.parent().unwrap().display());
    let original = dir.join("original");
    run(Command::new("gfortran")
        .args(["-fopenmp", &include])
        .arg(source)
        .arg("-o")
        .arg(&original)
        .current_dir(dir));
    let instrumented = dir.join("instrumented");
    run(Command::new("gfortran")
        .args(["-fopenmp", "-Wall", &include])
        .arg(&instrumented_source)
        .arg(dir.join("init.c"))
        .arg(root().join("tests/support/pomp2_check.c"))
        .arg("-o")
        .arg(&instrumented)
        .current_dir(dir));
    Builds {
        original,
        instrumented,
        work,
    }
}

/// Generated lines must fit the form: 72 columns in fixed form, 132 in free.
fn check_line_lengths(text: &str, fixed_form: bool) {
    let limit = if fixed_form { 72 } else { 132 };
    for line in text.lines() {
        let generated = line.contains("pomp2") || line.contains("POMP2");
        assert!(
            !generated || line.len() <= limit,
            "line longer than {limit} columns: {line}"
        );
    }
}

/// Runs both builds with `threads` threads; returns both outputs after
/// requiring the checking library's verdict.
fn run_both(builds: &Builds, threads: &str) -> (String, String) {
    let original = run(Command::new(&builds.original).env("OMP_NUM_THREADS", threads));
    let report = builds.work.path().join(format!("check-{threads}.txt"));
    let instrumented = run(Command::new(&builds.instrumented)
        .env("OMP_NUM_THREADS", threads)
        .env("POMP_CHECK_OUT", &report));
    let report = fs::read_to_string(&report).unwrap_or_default();
    assert!(
        report.contains("pomp2_check: OK"),
        "the checking library reports:\n{report}"
    );
    (original, instrumented)
}

fn corpus_program(name: &str) {
    if !have_gfortran() {
        eprintln!("gfortran not found: skipped");
        return;
    }
    let source = root().join("corpus/fortran/free").join(name);
    let builds = build(&source, "F90");
    for threads in ["2", "4"] {
        let (original, instrumented) = run_both(&builds, threads);
        assert_eq!(original, instrumented, "{name} with {threads} threads");
    }
}

#[test]
fn loops() {
    corpus_program("loops.f90");
}

#[test]
fn synchronisation() {
    corpus_program("synchronisation.f90");
}

#[test]
fn tasks() {
    corpus_program("tasks.f90");
}

#[test]
fn units() {
    corpus_program("units.f90");
}

#[test]
fn worksharing() {
    corpus_program("worksharing.f90");
}

#[test]
fn fixed_form() {
    if !have_gfortran() {
        eprintln!("gfortran not found: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("fixed.f");
    fs::write(&source, FIXED_FORM_PROGRAM).unwrap();
    let builds = build(&source, "F");
    for threads in ["2", "4"] {
        let (original, instrumented) = run_both(&builds, threads);
        // The `CP$` line is code only when instrumented.
        assert!(original.contains("counter           2"), "{original}");
        assert!(
            instrumented.contains("counter         102"),
            "{instrumented}"
        );
        assert_eq!(
            original.split("counter").next(),
            instrumented.split("counter").next()
        );
    }
}

#[test]
fn default_none_names_the_common_block() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("fixed.f");
    fs::write(&source, FIXED_FORM_PROGRAM).unwrap();
    let (output, _) = instrument(dir.path(), &source, "F");
    let text = fs::read_to_string(output).unwrap();
    assert!(text.contains("shared(/pomp2_cb_"), "{text}");
    assert!(!text.contains("shared(pomp2_region"), "{text}");
    assert!(text.contains("call POMP2_Set_lock(lck)"));
    assert!(text.contains("logical, external :: POMP2_Test_lock"));
}

//! Fortran output end to end: instrument, compile with gfortran against the
//! checking POMP2 library, run, and compare with the uninstrumented build.
//! The programs are the corpus's and those in `tests/fortran_output/`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A program of `tests/fortran_output/` copied into `directory`; its path
/// there.
fn program(name: &str, directory: &Path) -> PathBuf {
    let path = directory.join(name);
    fs::copy(root().join("tests/fortran_output").join(name), &path).unwrap();
    path
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
        let generated = line.to_ascii_lowercase().contains("pomp");
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
    let source = program("fixed.f", dir.path());
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
fn a_collapsed_nest_of_named_loops() {
    if !have_gfortran() {
        eprintln!("gfortran not found: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let source = program("named_loops.f90", dir.path());
    let builds = build(&source, "F90");
    for threads in ["2", "4"] {
        let (original, instrumented) = run_both(&builds, threads);
        assert!(original.contains("total      381300"), "{original}");
        assert_eq!(original, instrumented, "with {threads} threads");
    }
}

#[test]
fn default_none_names_the_common_block() {
    let dir = tempfile::tempdir().unwrap();
    let source = program("fixed.f", dir.path());
    let (output, _) = instrument(dir.path(), &source, "F");
    let text = fs::read_to_string(output).unwrap();
    assert!(text.contains("shared(/pomp2_cb_"), "{text}");
    assert!(!text.contains("shared(pomp2_region"), "{text}");
    assert!(text.contains("call POMP2_Set_lock(lck)"));
    assert!(text.contains("logical, external :: POMP2_Test_lock"));
}

/// The original interface in fixed form, from a directory whose path alone
/// is wider than a fixed-form line: the descriptors name the file, the
/// program unit and the lines, and every generated line fits 72 columns.
#[test]
fn original_interface_fixed_form() {
    if !have_gfortran() {
        eprintln!("gfortran not found: skipped");
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let deep = work
        .path()
        .join("a_directory_whose_name_is_long_enough_to_need_wrapping")
        .join("and_another_one_below_it");
    fs::create_dir_all(&deep).unwrap();
    let source = program("fixed.f", &deep);
    let instrumented = deep.join("instrumented.F");
    run(Command::new(env!("CARGO_BIN_EXE_pomp"))
        .arg("instrument")
        .arg(&source)
        .arg("-o")
        .arg(&instrumented)
        .args(["--interface", "pomp1"]));
    let text = fs::read_to_string(&instrumented).unwrap();
    check_line_lengths(&text, true);
    assert!(text.contains("call POMP_Set_lock(lck)"), "{text}");
    assert!(text.contains("shared(/pomp_rd_cb_"), "{text}");
    let original = deep.join("original");
    run(Command::new("gfortran")
        .arg("-fopenmp")
        .arg(&source)
        .arg("-o")
        .arg(&original));
    let program = deep.join("instrumented");
    run(Command::new("gfortran")
        .args(["-fopenmp", "-Wall"])
        .arg(&instrumented)
        .arg(root().join("tests/support/pomp1_check.c"))
        .arg("-o")
        .arg(&program));
    for threads in ["2", "4"] {
        let expected = run(Command::new(&original).env("OMP_NUM_THREADS", threads));
        let report_path = deep.join(format!("check-{threads}.txt"));
        let output = run(Command::new(&program)
            .env("OMP_NUM_THREADS", threads)
            .env("POMP_CHECK_OUT", &report_path));
        assert_eq!(
            expected.split("counter").next(),
            output.split("counter").next()
        );
        let report = fs::read_to_string(&report_path).unwrap();
        assert!(report.contains("pomp1_check: OK"), "{report}");
        let file = source.display();
        for region in [
            format!("region paralleldo fixed {file}:14-15:18-18 sections=0"),
            format!("region parallel fixed {file}:19-19:27-27 sections=0"),
            format!("region single fixed {file}:23-23:26-26 sections=0"),
            format!("region region work {file}:35-35:37-37 sections=0"),
        ] {
            assert!(
                report
                    .lines()
                    .any(|l| l == format!("pomp1_check: {region}")),
                "no `{region}` in:\n{report}"
            );
        }
    }
}

/// Instruments the program `name`, builds it against the checking
/// library, runs it with two threads and returns its output and the
/// library's report, which must say OK. The original is not built: gfortran
/// rejects the proposal's `!$omp inst` directives.
fn instrumented_run(name: &str) -> Option<(String, String, String)> {
    if !have_gfortran() {
        eprintln!("gfortran not found: skipped");
        return None;
    }
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let path = program(name, dir);
    let fixed = name.ends_with(".f");
    let suffix = if fixed { "F" } else { "F90" };
    let (instrumented_source, init) = instrument(dir, &path, suffix);
    let text = fs::read_to_string(&instrumented_source).unwrap();
    check_line_lengths(&text, fixed);
    fs::write(dir.join("init.c"), registration(&init)).unwrap();
    let executable = dir.join("instrumented");
    run(Command::new("gfortran")
        .args(["-fopenmp", "-Wall"])
        .arg(&instrumented_source)
        .arg(dir.join("init.c"))
        .arg(root().join("tests/support/pomp2_check.c"))
        .arg("-o")
        .arg(&executable)
        .current_dir(dir));
    let report = dir.join("check.txt");
    let output = run(Command::new(&executable)
        .env("OMP_NUM_THREADS", "2")
        .env("POMP_CHECK_OUT", &report)
        .current_dir(dir));
    let report = fs::read_to_string(&report).unwrap_or_default();
    assert!(
        report.contains("pomp2_check: OK"),
        "the checking library reports:\n{report}\n{text}"
    );
    Some((output, report, text))
}

/// The count of `event` in a checking library report.
fn event_count(report: &str, event: &str) -> u64 {
    report
        .lines()
        .find_map(|l| {
            let mut words = l.split_whitespace();
            (words.next() == Some(event))
                .then(|| words.next().and_then(|n| n.parse().ok()))
                .flatten()
        })
        .unwrap_or(0)
}

fn check_proposal(name: &str, extra: u64) {
    let Some((output, report, text)) = instrumented_run(name) else {
        return;
    };
    // 2 threads; steps(3) = 6, steps(10) returns at 21; `!P$` lines add.
    let expected = format!("total {} hidden 2", 2 + 6 + 21 + 7 + extra);
    assert_eq!(
        output.split_whitespace().collect::<Vec<_>>().join(" "),
        expected,
        "{text}"
    );
    for (event, count) in [
        ("Init", 1),
        ("Finalize", 1),
        ("On", 1),
        ("Off", 1),
        ("Begin", 4),
        ("End", 4),
        ("Parallel_fork", 1),
    ] {
        assert_eq!(event_count(&report, event), count, "{event}:\n{report}");
    }
}

#[test]
fn proposal_directives_free_form() {
    check_proposal("proposal.f90", 0);
}

#[test]
fn proposal_directives_fixed_form() {
    check_proposal("proposal.f", 100);
}

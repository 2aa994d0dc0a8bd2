//! The instrumenter on its own: every case of `tests/cases` against its
//! expected outputs, the invariants of DESIGN.md, diagnostics, and the IDF
//! schema.

#[path = "support/expect.rs"]
mod expect;

use std::path::{Path, PathBuf};
use std::process::Command;

fn pomp() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pomp"))
}

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases")
}

fn case(name: &str) -> PathBuf {
    cases_dir().join(name)
}

/// What `pomp instrument` made of a file, as it wrote it.
struct Made {
    output: Option<Vec<u8>>,
    idf: Option<Vec<u8>>,
    stderr: Vec<u8>,
    ok: bool,
}

/// Instrument with the case's file name as the path (so expected outputs
/// do not depend on where the checkout is).
fn instrument_bytes(dir: &Path, source: &Path, extra: &[&str]) -> Made {
    let name = source.file_name().unwrap();
    std::fs::copy(source, dir.join(name)).unwrap();
    let out = dir.join("out.c");
    let idf = dir.join("out.json");
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&idf);
    let result = pomp()
        .current_dir(dir)
        .arg("instrument")
        .arg(name)
        .args(["-o", "out.c", "--idf", "out.json"])
        .args(extra)
        .output()
        .unwrap();
    Made {
        output: std::fs::read(&out).ok(),
        idf: std::fs::read(&idf).ok(),
        stderr: result.stderr,
        ok: result.status.success(),
    }
}

/// [`instrument_bytes`] as text: output, IDF and stderr, and whether it
/// succeeded.
fn instrument(
    dir: &Path,
    source: &Path,
    extra: &[&str],
) -> (Option<String>, Option<serde_json::Value>, String, bool) {
    let made = instrument_bytes(dir, source, extra);
    (
        made.output
            .map(|b| String::from_utf8_lossy(&b).into_owned()),
        made.idf.map(|b| serde_json::from_slice(&b).unwrap()),
        String::from_utf8_lossy(&made.stderr).into_owned(),
        made.ok,
    )
}

/// A way a case is instrumented: a name for its expected files, and the
/// options of `pomp instrument`.
struct Mode {
    name: String,
    options: Vec<String>,
}

/// The modes `NAME.modes` asks for besides the default: one a line, a name,
/// a colon and the options; `#` starts a comment.
fn modes(input: &Path) -> Vec<Mode> {
    let mut modes = vec![Mode {
        name: String::new(),
        options: vec![],
    }];
    let listing = input.with_file_name(format!(
        "{}.modes",
        input.file_name().unwrap().to_string_lossy()
    ));
    let Ok(text) = std::fs::read_to_string(&listing) else {
        return modes;
    };
    for line in text.lines() {
        let line = line.split('#').next().unwrap().trim();
        if line.is_empty() {
            continue;
        }
        let (name, options) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("{}: `{line}` is not `NAME: OPTIONS`", listing.display()));
        modes.push(Mode {
            name: name.trim().to_string(),
            options: options.split_whitespace().map(str::to_string).collect(),
        });
    }
    modes
}

/// The cases: every C, C++ and Fortran source in `tests/cases`, in name
/// order.
fn cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(cases_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| pomp_core::source::Language::from_path(path).is_some())
        .collect();
    cases.sort();
    cases
}

/// Every case in each of its modes makes its expected outputs: the
/// instrumented file (`NAME.out`), the IDF (`NAME.idf.json`) and the
/// diagnostics as printed (`NAME.stderr`), `NAME.MODE.*` in another mode.
/// A run that fails writes nothing; one that succeeds writes both files.
#[test]
fn cases_make_their_expected_outputs() {
    let cases = cases();
    assert!(!cases.is_empty());
    let mut expectations = expect::Expectations::new(&cases_dir());
    let mut listings = Vec::new();
    for input in &cases {
        let name = input.file_name().unwrap().to_string_lossy();
        let modes = modes(input);
        if modes.len() > 1 {
            listings.push(input.with_file_name(format!("{name}.modes")));
        }
        for mode in modes {
            let dir = tempfile::tempdir().unwrap();
            let options: Vec<&str> = mode.options.iter().map(String::as_str).collect();
            let made = instrument_bytes(dir.path(), input, &options);
            let prefix = match mode.name.as_str() {
                "" => name.to_string(),
                mode => format!("{name}.{mode}"),
            };
            if made.ok != made.output.is_some() || made.ok != made.idf.is_some() {
                expectations.fail(format!(
                    "{prefix}: pomp {} but wrote {} output and {} IDF",
                    if made.ok { "succeeded" } else { "failed" },
                    if made.output.is_some() { "an" } else { "no" },
                    if made.idf.is_some() { "an" } else { "no" },
                ));
            }
            expectations.check(&format!("{prefix}.out"), made.output.as_deref());
            expectations.check(&format!("{prefix}.idf.json"), made.idf.as_deref());
            let stderr = (!made.stderr.is_empty()).then_some(made.stderr.as_slice());
            expectations.check(&format!("{prefix}.stderr"), stderr);
        }
    }
    let inputs: Vec<PathBuf> = cases.into_iter().chain(listings).collect();
    expectations.finish(&inputs, &["README.md"]);
}

/// Every line of the original outside directives appears in the output,
/// whole and in order: nothing is lost or reordered.
fn assert_original_lines_kept(original: &str, output: &str) {
    let mut undone = output.to_string();
    for routine in ["init", "destroy", "set", "unset", "test"] {
        for kind in ["lock", "nest_lock"] {
            let wrapper = format!(
                "POMP2_{}{}_{kind}",
                routine[..1].to_uppercase(),
                &routine[1..]
            );
            undone = undone.replace(&wrapper, &format!("omp_{routine}_{kind}"));
        }
    }
    // A `return` inside a user region became `{ POMP2_End(&h); return x; }`.
    let undone: String = undone
        .lines()
        .map(|line| {
            let mut line = line.to_string();
            let mut closed = false;
            while let Some(at) = line.find("{ POMP2_End(&pomp2_region_") {
                let end = at + line[at..].find("); ").expect("a complete call") + 3;
                line.replace_range(at..end, "");
                closed = true;
            }
            if closed {
                if let Some(at) = line.rfind(" }") {
                    line.replace_range(at..at + 2, "");
                }
            }
            line + "\n"
        })
        .collect();
    let mut rest = undone.as_str();
    let mut in_directive = false;
    for line in original.lines() {
        let trimmed = line.trim_start();
        let starts_directive = (trimmed.starts_with('#')
            && trimmed[1..].trim_start().starts_with("pragma"))
            || line.contains("_Pragma(")
            || line.contains("[[omp::")
            || line.contains("[[using omp");
        if starts_directive || in_directive {
            in_directive = line.ends_with('\\');
            continue;
        }
        match rest.find(line) {
            Some(at) => rest = &rest[at + line.len()..],
            None => {
                panic!("line {line:?} of the original is missing or out of order in the output")
            }
        }
    }
}

fn corpus_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut files = Vec::new();
    for dir in ["c", "cxx", "kernels"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if matches!(path.extension().and_then(|e| e.to_str()), Some("c" | "cpp")) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn original_text_survives_and_output_is_deterministic() {
    for file in corpus_files() {
        let dir = tempfile::tempdir().unwrap();
        let original = std::fs::read_to_string(&file).unwrap();
        let (first, _, stderr, ok) = instrument(dir.path(), &file, &[]);
        assert!(ok, "{}: {stderr}", file.display());
        let first = first.unwrap();
        assert_original_lines_kept(&original, &first);
        let (second, _, _, _) = instrument(dir.path(), &file, &[]);
        assert_eq!(
            Some(first),
            second,
            "{}: output differs between two runs",
            file.display()
        );
    }
}

#[test]
fn input_bytes_crlf_and_bom_survive() {
    let dir = tempfile::tempdir().unwrap();
    let source = case("crlf_bom.c");
    let before = std::fs::read(&source).unwrap();
    let (output, _, stderr, ok) = instrument(dir.path(), &source, &[]);
    assert!(ok, "{stderr}");
    let output = output.unwrap();
    assert!(output.starts_with('\u{feff}'), "the BOM stays first");
    assert!(
        output.contains("void w(int);\r\n"),
        "CRLF line endings are kept"
    );
    assert_eq!(
        std::fs::read(&source).unwrap(),
        before,
        "the input is never touched"
    );
}

#[test]
fn a_file_without_directives_is_copied_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let source = case("no_directive.c");
    let (output, idf, stderr, ok) = instrument(dir.path(), &source, &[]);
    assert!(ok, "{stderr}");
    assert_eq!(output.unwrap().as_bytes(), std::fs::read(&source).unwrap());
    assert_eq!(idf.unwrap()["init_function"], serde_json::Value::Null);
}

#[test]
fn original_interface_output() {
    let dir = tempfile::tempdir().unwrap();
    let (output, idf, stderr, ok) = instrument(
        dir.path(),
        &case("original_interface.c"),
        &["--interface", "pomp1"],
    );
    assert!(ok, "{stderr}");
    let output = output.unwrap();
    assert!(!output.contains("POMP2_"), "{output}");
    assert_eq!(idf.unwrap()["init_function"], serde_json::Value::Null);
}

/// The case instrumented without options, which must succeed: its work
/// directory (holding `out.c`) and the output.
fn instrumented_case(name: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let (output, _, stderr, ok) = instrument(dir.path(), &case(name), &[]);
    assert!(ok, "{name}: {stderr}");
    (dir, output.unwrap())
}

#[test]
fn lock_calls_are_measured_in_a_file_without_directives() {
    let (_dir, output) = instrumented_case("locks_only.c");
    assert!(output.contains("POMP2_Set_lock(&lock)"), "{output}");
    assert!(output.contains("POMP2_Unset_lock(&lock)"), "{output}");
    assert!(output.contains("\"call omp_unset_lock when done\""));
    assert!(output.contains("(omp_set_lock)"));
}

#[test]
fn idf_documents_follow_the_schema() {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../schemas/idf.schema.json"))
            .expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the schema is a valid JSON Schema");
    for file in corpus_files() {
        let dir = tempfile::tempdir().unwrap();
        let (_, idf, stderr, ok) = instrument(dir.path(), &file, &[]);
        assert!(ok, "{}: {stderr}", file.display());
        let idf = idf.unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&idf)
            .map(|e| format!("{} at {}", e, e.instance_path))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", file.display());
        let regions = idf["regions"].as_array().unwrap();
        let ids: Vec<&str> = regions.iter().map(|r| r["id"].as_str().unwrap()).collect();
        for region in regions {
            if let Some(parent) = region["parent"].as_str() {
                assert!(
                    ids.contains(&parent),
                    "parent {parent} names a region of the file"
                );
            }
            assert!(region["line_start"].as_u64() <= region["line_end"].as_u64());
        }
    }
}

#[test]
fn disable_and_opari2_event_set_restrict_the_events() {
    let dir = tempfile::tempdir().unwrap();
    let source = case("sections_tasks.c");
    let (all, _, _, _) = instrument(dir.path(), &source, &[]);
    let all = all.unwrap();
    assert!(all.contains("POMP2_Task_create_begin") && all.contains("POMP2_Taskwait_begin"));
    let (no_tasks, _, _, ok) = instrument(dir.path(), &source, &["--disable=task"]);
    assert!(ok);
    let no_tasks = no_tasks.unwrap();
    assert!(
        !no_tasks.contains("POMP2_Task_create_begin") && !no_tasks.contains("POMP2_Taskwait_begin")
    );
    assert!(
        no_tasks.contains("POMP2_Parallel_fork"),
        "only the task group is disabled"
    );

    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/c/single_master_masked.c");
    let (extended, _, _, _) = instrument(dir.path(), &source, &[]);
    assert!(extended.unwrap().contains("POMP2_Masked_begin"));
    let (opari2, _, _, _) = instrument(dir.path(), &source, &["--pomp=opari2"]);
    let opari2 = opari2.unwrap();
    assert!(!opari2.contains("POMP2_Masked_begin") && !opari2.contains("pompId="));
}

#[test]
fn line_markers_can_be_omitted() {
    let dir = tempfile::tempdir().unwrap();
    let (output, _, _, ok) = instrument(dir.path(), &case("unbraced_if_else.c"), &["--nosrc"]);
    assert!(ok);
    assert!(!output.unwrap().contains("#line"));
}

/// A construct left uninstrumented keeps its `default(none)`, so the
/// handles of the constructs inside it must be named shared on it, or the
/// compiler rejects the output.
#[test]
fn an_uninstrumented_default_none_task_shares_the_handles_inside() {
    let dir = tempfile::tempdir().unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/c/tasks.c");
    let (output, _, stderr, ok) = instrument(dir.path(), &source, &["--disable=task"]);
    assert!(ok, "{stderr}");
    let output = output.unwrap();
    assert!(
        output.contains("default(none) shared(guarded) firstprivate(i) shared(pomp2_region_"),
        "{output}"
    );
    assert_output_compiles(dir.path(), "");
}

/// A computed `go to` may leave a user region or fall through inside it:
/// no call placed at the jump is right on both paths, so pomp says so and
/// still writes the file.
#[test]
fn a_jump_that_may_leave_a_user_region_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (output, _, stderr, ok) =
        instrument(dir.path(), &case("computed_goto_in_user_region.f90"), &[]);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("this jump may leave user region `r`")
            && stderr.contains("computed_goto_in_user_region.f90:4"),
        "{stderr}"
    );
    assert!(output.is_some());
}

/// The lines of `text` that hold `needle`, whole.
fn lines_with<'t>(text: &'t str, needle: &str) -> Vec<&'t str> {
    text.lines().filter(|l| l.contains(needle)).collect()
}

/// Compiles `out.c` in `dir` with gcc, failing the test with gcc's
/// messages (after `context`) when it does not compile.
fn assert_output_compiles(dir: &Path, context: &str) {
    let compiled = Command::new("gcc")
        .current_dir(dir)
        .args(["-fopenmp", "-Wall", "-c", "out.c", "-o", "out.o"])
        .output()
        .unwrap();
    assert!(
        compiled.status.success(),
        "{context}{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
}

/// A syntax error strictly inside a block, where a macro the grammar
/// cannot know stands in a declaration (`double * _noalias p`), moves
/// neither end of the block: the file is instrumented and compiles. An
/// error that may hide a jump is refused (see the doubtful inputs).
#[test]
fn syntax_errors_sealed_inside_blocks_leave_the_blocks_known() {
    let (dir, output) = instrumented_case("macro_in_block.c");
    for call in ["POMP2_Parallel_begin", "POMP2_For_enter", "POMP2_For_exit"] {
        let called = format!("{call}(&pomp2_region_");
        assert_eq!(
            lines_with(&output, &called).len(),
            1,
            "{call} in:\n{output}"
        );
    }
    assert_output_compiles(dir.path(), "");
}

/// gcc ignores an OpenMP directive it does not know, with a warning; pomp
/// leaves it as written and instruments the rest of the file, but not the
/// code the directive may apply to.
#[test]
fn unknown_directives_are_left_as_written_and_the_rest_is_instrumented() {
    let dir = tempfile::tempdir().unwrap();
    let source = case("unknown_directive.c");
    let original = std::fs::read_to_string(&source).unwrap();
    let (output, idf, stderr, ok) = instrument(dir.path(), &source, &[]);
    assert!(ok, "{stderr}");
    let output = output.unwrap();
    for (line, message) in [
        (
            4,
            "warning: unknown OpenMP directive `paralel`; left as written",
        ),
        (
            12,
            "warning: unknown OpenMP directive `vendor_loop_hint`; left as written",
        ),
    ] {
        assert!(stderr.contains(message), "{stderr}");
        assert!(
            stderr.contains(&format!("unknown_directive.c:{line}:")),
            "{stderr}"
        );
    }
    assert!(stderr.contains("did you mean `parallel`?"), "{stderr}");
    for unknown in ["#pragma omp paralel", "#pragma omp vendor_loop_hint(8)"] {
        assert_eq!(
            lines_with(&output, unknown),
            [unknown],
            "kept byte for byte"
        );
    }
    assert_original_lines_kept(&original, &output);
    // The critical inside the unknown directive's block is left alone; the
    // parallel region, its loop and its atomic are measured.
    assert!(!output.contains("POMP2_Critical"), "{output}");
    for event in [
        "POMP2_Parallel_fork",
        "POMP2_For_enter",
        "POMP2_Atomic_enter",
    ] {
        assert!(output.contains(event), "{event} in {output}");
    }
    let warnings = idf.unwrap()["diagnostics"].as_array().unwrap().len();
    assert_eq!(warnings, 2);
    assert_output_compiles(dir.path(), "");
}

/// An unknown clause stays on its directive, as written; it may be a macro
/// that expands to `default(none)`, so the directive lists the handles the
/// code inside it uses as shared.
#[test]
fn unknown_clauses_are_kept_on_their_directives() {
    let dir = tempfile::tempdir().unwrap();
    let (output, _, stderr, ok) = instrument(dir.path(), &case("unknown_clause.c"), &[]);
    assert!(ok, "{stderr}");
    for clause in ["ompx_attribute", "depth", "vendor_affinity"] {
        let message = format!("warning: unknown clause `{clause}`; left as written");
        assert!(stderr.contains(&message), "{stderr}");
    }
    let output = output.unwrap();
    // Instrumented: written again by pomp, the clause text unchanged.
    assert_eq!(
        lines_with(&output, "ompx_attribute"),
        ["#pragma omp parallel ompx_attribute(__attribute__((launch_bounds(128)))) firstprivate(pomp2_old_task) if(pomp2_if) num_threads(pomp2_num_threads) shared(pomp2_region_1)"]
    );
    assert_eq!(
        lines_with(&output, "vendor_affinity"),
        ["#pragma omp task vendor_affinity(core: 3) if(pomp2_if) firstprivate(pomp2_new_task, pomp2_if) shared(pomp2_region_2)"]
    );
    // Not instrumented: byte for byte.
    assert_eq!(
        lines_with(&output, "depth(1)"),
        ["#pragma omp tile sizes(4) depth(1)"]
    );
}

/// OpenMP 6.0 syntax: gcc 12 knows none of it, so the output is checked as
/// text. Directives pomp does not instrument stay byte for byte; the
/// constructs around and inside them are measured.
#[test]
fn openmp_6_syntax_in_c() {
    let dir = tempfile::tempdir().unwrap();
    let source = case("openmp6.c");
    let original = std::fs::read_to_string(&source).unwrap();
    let (output, _, stderr, ok) = instrument(dir.path(), &source, &[]);
    assert!(ok, "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    let output = output.unwrap();
    for line in original
        .lines()
        .filter(|l| l.trim_start().starts_with("#pragma omp"))
    {
        let kept = [
            "tile",
            "task_iteration",
            "interchange",
            "fuse",
            "split",
            "stripe",
            "taskgraph",
            "groupprivate",
            "declare_target",
        ]
        .iter()
        .any(|name| line.trim_start()["#pragma omp ".len()..].starts_with(&format!("{name} ")));
        if kept {
            assert_eq!(
                lines_with(&output, line.trim()),
                [line],
                "kept byte for byte"
            );
        }
    }
    for event in [
        "POMP2_For_enter",
        "POMP2_Taskloop_enter",
        "POMP2_Target_enter",
        "POMP2_Cancellation_point",
    ] {
        assert!(output.contains(event), "{event}");
    }
    // A task graph may be replayed without the code around its tasks: the
    // task in it is left as written.
    let taskgraph = output.find("#pragma omp taskgraph").unwrap();
    let after = output[taskgraph..].find("#pragma omp target data").unwrap();
    assert!(!output[taskgraph..taskgraph + after].contains("POMP2_Task"));
    // The 6.0 spellings of older directives are written the older way,
    // which compilers of either version accept.
    assert!(output.contains("#pragma omp target data map(tofrom: a)"));
    assert!(output.contains("#pragma omp cancellation point parallel"));
}

#[test]
fn openmp_6_syntax_in_fortran() {
    let dir = tempfile::tempdir().unwrap();
    let source = case("openmp6.f90");
    let original = std::fs::read_to_string(&source).unwrap();
    let (output, _, stderr, ok) = instrument(dir.path(), &source, &[]);
    assert!(ok, "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    let output = output.unwrap();
    for line in original.lines().filter(|l| {
        let l = l.trim_start();
        [
            "!$omp tile",
            "!$omp task_iteration",
            "!$omp&",
            "!$omp fuse",
            "!$omp end fuse",
            "!$omp scan",
        ]
        .iter()
        .any(|d| l.starts_with(d))
    }) {
        assert_eq!(
            lines_with(&output, line.trim()),
            [line],
            "kept byte for byte"
        );
    }
    // Nothing is inserted into the target region.
    let target = output.find("target teams workdistribute").unwrap();
    let end_target = output.find("end target teams workdistribute").unwrap();
    assert!(!output[target..end_target].contains("POMP2"));
    for event in [
        "POMP2_Parallel_fork",
        "POMP2_Do_enter",
        "POMP2_Taskloop_enter",
        "POMP2_Target_enter",
    ] {
        assert!(output.contains(event), "{event}");
    }
}

/// OpenMP 6.0's `num_threads(strict: n, m)`: the first value is the
/// region's, the rest are for nested regions and stay on the directive.
#[test]
fn num_threads_lists_of_openmp_6_keep_their_nested_values() {
    let dir = tempfile::tempdir().unwrap();
    let (output, _, stderr, ok) = instrument(dir.path(), &case("num_threads_list.c"), &[]);
    assert!(ok, "{stderr}");
    let output = output.unwrap();
    assert!(
        output.contains("int pomp2_num_threads = (n + 1);"),
        "{output}"
    );
    assert_eq!(
        lines_with(&output, "#pragma omp parallel"),
        ["#pragma omp parallel severity(warning) firstprivate(pomp2_old_task) if(pomp2_if) num_threads(strict: pomp2_num_threads, 2)"]
    );
}

/// `[[omp::decl(declare_target)]]` makes the function it belongs to device
/// code: nothing is inserted there. A variable declared that way inside a
/// host function leaves the function on the host.
#[test]
fn declaration_attributes_mark_device_functions() {
    let dir = tempfile::tempdir().unwrap();
    let source = case("declaration_attributes.cpp");
    let original = std::fs::read_to_string(&source).unwrap();
    let (output, _, stderr, ok) = instrument(dir.path(), &source, &[]);
    assert!(ok, "{stderr}");
    let output = output.unwrap();
    assert_original_lines_kept(&original, &output);
    let function = |name: &str| {
        let start = output.find(&format!(" {name}")).unwrap();
        let end = start + output[start..].find("\n}\n").unwrap();
        output[start..end].to_string()
    };
    assert!(!function("device_side").contains("POMP2"));
    assert!(!function("inside").contains("POMP2"));
    assert!(function("host_side").contains("POMP2_Parallel_fork"));
}

/// A construct written right after `target` (or any construct whose code
/// admits no calls) opens its block: nothing is inserted for it, not even
/// before its directive.
#[test]
fn a_construct_at_the_start_of_a_device_region_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let source = case("construct_opening_a_device_region.c");
    let (output, _, stderr, ok) = instrument(dir.path(), &source, &[]);
    assert!(ok, "{stderr}");
    let output = output.unwrap();
    assert!(output.contains("POMP2_Target_enter"), "{output}");
    for event in ["POMP2_Parallel", "POMP2_Task_create", "POMP2_Task_begin"] {
        assert!(!output.contains(event), "{event} in {output}");
    }
}

/// Code strictly inside a teams region may call no OpenMP runtime routine
/// (gcc rejects `omp_get_max_threads()` there): a parallel region's thread
/// count is taken before the teams construct, whether that construct is
/// measured or not.
#[test]
fn parallel_regions_in_teams_call_no_runtime_routine_there() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/c/parallel_in_teams.c");
    for options in [&[][..], &["--pomp=opari2"], &["--disable=teams"]] {
        let dir = tempfile::tempdir().unwrap();
        let (output, _, stderr, ok) = instrument(dir.path(), &source, options);
        assert!(ok, "{stderr}");
        let output = output.unwrap();
        assert_eq!(
            lines_with(&output, "omp_get_max_threads()").len(),
            4,
            "once before each teams construct, once in the nested parallel region: {output}"
        );
        assert!(output.contains("int pomp2_num_threads = pomp2_max_threads;"));
        let listing = lines_with(&output, "#pragma omp teams num_teams(TEAMS) default(none)");
        assert!(
            listing.len() == 1 && listing[0].ends_with(" shared(pomp2_max_threads)"),
            "{listing:?}"
        );
        assert_output_compiles(dir.path(), &format!("{options:?}: "));
    }
}

/// At exit mimalloc would hand its memory back page by page; pomp leaves
/// that to the system. With `MIMALLOC_VERBOSE`, mimalloc reports the work
/// it does at exit ("process done"): a wrong option (the allocator's
/// options are set by number) would show it.
#[test]
fn the_allocator_leaves_its_memory_to_the_system_at_exit() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.c");
    let run = pomp()
        .arg("instrument")
        .arg(case("combined_clauses.c"))
        .arg("-o")
        .arg(&out)
        .env("MIMALLOC_VERBOSE", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(out.exists());
    assert!(stderr.contains("mimalloc:"), "verbose mimalloc: {stderr}");
    assert!(!stderr.contains("process done"), "{stderr}");
}

//! Directives under preprocessor conditionals: what pomp decides, what it
//! keeps as a condition, and what it refuses, naming the conditional. The
//! corpus (`corpus/c/conditional_*.c`) compiles and runs the accepted
//! forms under every setting of their macros; these tests look at the
//! model, the output text and the diagnostics.

use pomp_core::instrument::{instrument, Instrumentation, Options};
use pomp_core::language::Language;
use pomp_core::source::SourceFile;

fn run(text: &str) -> Instrumentation {
    let file = SourceFile::new("t.c", text.as_bytes().to_vec(), Language::C);
    instrument(&file, &Options::default())
}

fn output(text: &str) -> String {
    let done = run(text);
    assert!(!done.has_errors(), "{:#?}", done.diagnostics);
    String::from_utf8(done.edits.apply(text.as_bytes())).unwrap()
}

fn errors(text: &str) -> Vec<String> {
    run(text)
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{}: {}", d.message, d.notes.join(" / ")))
        .collect()
}

#[test]
fn a_guarded_directive_keeps_its_guard_around_the_code_after_its_block() {
    let text = "void f(int *p) {\n#ifdef _OPENMP\n#pragma omp critical\n#endif\n  *p += 1;\n}\n";
    let done = run(text);
    assert!(!done.has_errors(), "{:#?}", done.diagnostics);
    assert_eq!(
        done.model.site_condition(0).as_deref(),
        Some("defined(_OPENMP)")
    );
    let out = String::from_utf8(done.edits.apply(text.as_bytes())).unwrap();
    let after_block = &out[out.find("*p += 1;").unwrap()..];
    assert!(
        after_block.starts_with("*p += 1;\n#if defined(_OPENMP)\nPOMP2_Critical_end"),
        "{after_block}"
    );
}

#[test]
fn alternative_directives_are_each_a_region_closed_under_their_condition() {
    let text = "void f(int n, int *a) {\n  int j;\n#ifdef SCHED_CYCLIC\n#pragma omp parallel for schedule(static,1)\n#else\n#pragma omp parallel for schedule(dynamic)\n#endif\n  for (j = 0; j < n; j++) a[j] = j;\n}\n";
    let done = run(text);
    assert!(!done.has_errors(), "{:#?}", done.diagnostics);
    assert_eq!(done.plan.regions.len(), 2);
    // Neither alternative is nested in the other.
    assert!(done.model.sites.iter().all(|s| s.parent.is_none()));
    let out = String::from_utf8(done.edits.apply(text.as_bytes())).unwrap();
    let first = out
        .find("#if defined(SCHED_CYCLIC)\n")
        .expect("first closing guarded");
    let second = out
        .find("#if !defined(SCHED_CYCLIC)\n")
        .expect("second closing guarded");
    assert!(first < second);
    assert!(out[first..second].contains("POMP2_Parallel_join(&pomp2_region_1"));
    assert!(out[second..].contains("POMP2_Parallel_join(&pomp2_region_2"));
}

#[test]
fn a_host_alternative_after_a_device_directive_is_measured_under_its_condition() {
    let text = "void f(int n, double *a) {\n#if defined(OPENMP_TARGET)\n#pragma omp target teams distribute parallel for\n#elif defined(_OPENMP)\n#pragma omp parallel for\n#endif\n  for (int i = 0; i < n; i++) a[i] = i;\n}\n";
    let done = run(text);
    assert!(!done.has_errors(), "{:#?}", done.diagnostics);
    let types: Vec<&str> = (done.plan.regions.iter())
        .map(|r| &*r.region_type)
        .collect();
    assert_eq!(types, ["targetteamsdistributeparallelfor", "parallelfor"]);
    let out = String::from_utf8(done.edits.apply(text.as_bytes())).unwrap();
    let host = out
        .find("#if !(defined(OPENMP_TARGET)) && (defined(_OPENMP))\n")
        .expect("the host region closed under its condition");
    assert!(out[host..].contains("POMP2_Parallel_join(&pomp2_region_2"));
    // The device alternative's block stays free of calls whichever is compiled.
    let device = out.find("#pragma omp target").unwrap();
    let block = out[device..].find("for (int i").unwrap() + device;
    assert!(!out[device..block].contains("POMP2_Parallel_fork(&pomp2_region_1"));
}

#[test]
fn code_never_compiled_with_openmp_is_not_read() {
    let text = "#ifndef _OPENMP\nvoid omp_set_lock(int *l) { }\n#endif\nvoid f(void) {\n#if 0\n#pragma omp parallel\n  broken(;\n#endif\n}\n";
    let done = run(text);
    assert!(!done.has_errors(), "{:#?}", done.diagnostics);
    assert!(done.model.sites.is_empty());
    assert!(done.model.lock_calls.is_empty());
}

#[test]
fn a_block_chosen_by_a_conditional_without_else_is_refused_naming_it() {
    let text =
        "void f(void) {\n#pragma omp parallel\n#ifdef FAST\n  { fast(); }\n#endif\n  slow();\n}\n";
    let found = errors(text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("`#ifdef FAST`"), "{found:?}");
    assert!(found[0].contains("line 3"), "{found:?}");
}

#[test]
fn a_block_chosen_by_a_conditional_of_whole_statements_is_the_conditional() {
    let text = "void f(int n, int *a) {\n  int i;\n#pragma omp parallel for\n#ifdef UP\n  for (i = 0; i < n; i++) a[i] = i;\n#else\n  for (i = n - 1; i >= 0; i--) a[i] = i;\n#endif\n}\n";
    let done = run(text);
    assert!(!done.has_errors(), "{:#?}", done.diagnostics);
    let block = done.model.sites[0].block.clone().unwrap();
    assert!(text[block].starts_with("#ifdef UP") && text.contains("#endif"));
}

#[test]
fn a_split_header_whose_settings_disagree_is_refused_naming_the_conditional() {
    // With `TWO`, the directive's loop ends at the first `}`; without, at
    // the second: no placement of the closing code is right for both.
    let text = "void f(int n, int *a) {\n#pragma omp parallel for\n#ifdef TWO\n  for (int i = 0; i < n; i++) { a[i] = 0; }\n  {\n#else\n  for (int i = 0; i < n; i++) {\n#endif\n    a[0] = 1;\n  }\n}\n";
    let found = errors(text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("`#ifdef TWO`"), "{found:?}");
}

#[test]
fn sections_whose_body_lies_outside_their_conditional_are_refused() {
    let text = "void f(void) {\n#ifdef PAR\n#pragma omp parallel sections\n#endif\n  {\n    a();\n#pragma omp section\n    b();\n  }\n}\n";
    let found = errors(text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("`#ifdef PAR`"), "{found:?}");
}

#[test]
fn a_condition_that_may_change_before_the_block_ends_is_refused() {
    let text = "void f(int *p) {\n#ifdef LOCKED\n#pragma omp critical\n#endif\n  {\n#undef LOCKED\n    *p += 1;\n  }\n}\n";
    let found = errors(text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("`#ifdef LOCKED`"), "{found:?}");
    assert!(found[0].contains("line 6"), "{found:?}");
    // Another macro's definition changes nothing.
    let other = text.replace("#undef LOCKED", "#undef OTHER");
    assert!(errors(&other).is_empty());
}

#[test]
fn user_regions_under_a_conditional_are_opened_and_closed_under_it() {
    let text = "int f(int n) {\n#ifdef PROFILE\n#pragma pomp inst begin(solve)\n#endif\n  if (n < 0)\n    return -1;\n#ifdef PROFILE\n#pragma pomp inst end(solve)\n#endif\n  return n;\n}\n";
    let out = output(text);
    let jump = &out[out.find("if (n < 0)").unwrap()..];
    assert!(
        jump.contains("    {\n#if defined(PROFILE)\nPOMP2_End(&pomp2_region_1);\n#endif\n#line 6 \"t.c\"\nreturn -1; }"),
        "{jump}"
    );
}

#[test]
fn split_headers_read_in_every_setting_agree() {
    let text = "long f(int n, long *v) {\n  long s = 0;\n#pragma omp parallel for reduction(+:s)\n#ifdef _WIN32\n  for (int i = 0; i < n; i++) {\n#else\n  for (long i = 0; i < n; i++) {\n#endif\n    s += v[i];\n  }\n  return s;\n}\n";
    let done = run(text);
    assert!(!done.has_errors(), "{:#?}", done.diagnostics);
    let block = done.model.sites[0].block.clone().unwrap();
    assert!(text[block.clone()].starts_with("#ifdef _WIN32"));
    assert!(text[..block.end].ends_with("s += v[i];\n  }"));
}

#[test]
fn a_stray_brace_in_one_branch_of_alternatives_is_refused_not_looped_on() {
    // In the second setting the brace closes the parallel region early:
    // the grammar's recovery gives blocks that hold each other's
    // directives, which must not make nesting go round in circles.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/c/conditional_alternatives.c"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let header = "        for (i = 0; i < NUM_KEYS; i++)\n";
    let at = text.find(header).expect("the loop of the #else branch") + header.len();
    let text = format!("{}      }}{}", &text[..at], &text[at + 6..]);
    let found = errors(&text);
    assert!(
        found.iter().any(|e| e.contains("#ifdef USE_BUCKETS")),
        "{found:#?}"
    );
}

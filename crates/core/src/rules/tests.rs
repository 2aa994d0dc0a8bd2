//! The plan for small programs: where barriers stay implicit, what
//! inserted code may call, and how combined constructs are written.

use super::locks::SkippedRanges;
use super::{Layer, Plan};
use crate::diagnostics::Severity;
use crate::instrument::{instrument, Instrumentation, Options};
use crate::language::Language;
use crate::source::SourceFile;

fn instrumented(language: Language, text: &str) -> Instrumentation {
    let path = match language {
        Language::FortranFree => "t.f90",
        Language::FortranFixed => "t.f",
        Language::Cpp => "t.cpp",
        _ => "t.c",
    };
    let file = SourceFile::new(path, text.as_bytes().to_vec(), language);
    let result = instrument(&file, &Options::default());
    assert!(!result.has_errors(), "{:?}", result.diagnostics);
    result
}

fn output(result: &Instrumentation, text: &str) -> String {
    String::from_utf8_lossy(&result.edits.apply(text.as_bytes())).into_owned()
}

/// The layers of the construct whose directive is named `name`.
fn layers<'p>(plan: &'p Plan, result: &Instrumentation, name: &str) -> &'p [Layer] {
    let construct = plan
        .constructs
        .iter()
        .find(|c| result.model.sites[c.site].directive.name() == name)
        .unwrap_or_else(|| panic!("no `{name}` construct"));
    &construct.layers
}

#[test]
fn skipped_ranges_merge_overlaps_and_answer_by_search() {
    let ranges = SkippedRanges::new(vec![30..40, 10..20, 15..25, 40..45]);
    assert_eq!(ranges.0, vec![10..25, 30..40, 40..45]);
    assert!(!ranges.strictly_inside(10));
    assert!(ranges.strictly_inside(11));
    assert!(ranges.strictly_inside(20));
    assert!(!ranges.strictly_inside(25));
    assert!(!ranges.strictly_inside(40));
    assert!(ranges.strictly_inside(41));
    assert!(ranges.covers(&(10..25)));
    assert!(ranges.covers(&(12..18)));
    assert!(!ranges.covers(&(24..31)));
    assert!(!ranges.covers(&(5..12)));
    assert!(!ranges.covers(&(50..51)));
}

#[test]
fn a_task_reduction_keeps_the_worksharing_barrier_implicit_and_says_so() {
    let text = "void f(void) {\n  int r = 0;\n#pragma omp parallel\n#pragma omp sections reduction(task, +: r)\n  {\n    r++;\n  }\n}\n";
    let result = instrumented(Language::C, text);
    let sections = &layers(&result.plan, &result, "sections")[0];
    assert!(!sections.add_nowait && !sections.barrier_after);
    let written = sections.directive.as_ref().unwrap().render();
    assert_eq!(written, "sections reduction(task, +: r)");
    assert!(!output(&result, text).contains("Implicit_barrier_enter(&pomp2_region_2"));
    let region = &result.plan.regions[1];
    assert_eq!(region.region_type, "sections");
    assert_eq!(region.implicit_barrier, None);
    let note = result
        .diagnostics
        .iter()
        .find(|d| d.severity == Severity::Note)
        .expect("a note on what is measured");
    assert!(
        note.message
            .contains("`reduction(task, +: r)` forbids `nowait`"),
        "{}",
        note.message
    );
    let idf = result.idf(&SourceFile::new(
        "t.c",
        text.as_bytes().to_vec(),
        Language::C,
    ));
    assert!(idf.diagnostics.iter().any(|d| d.severity == "note"));
}

#[test]
fn a_task_reduction_on_a_combined_fortran_construct_gets_no_nowait() {
    let text = "subroutine s(r)\n  integer :: r\n  !$omp parallel do reduction(task, +: r)\n  do i = 1, 4\n    r = r + i\n  end do\n  !$omp end parallel do\nend subroutine\n";
    let result = instrumented(Language::FortranFree, text);
    let parts = layers(&result.plan, &result, "parallel do");
    assert!(!parts[1].add_nowait);
    let out = output(&result, text);
    assert!(!out.to_ascii_lowercase().contains("nowait"), "{out}");
    // Other reduction modifiers leave the barrier to pomp.
    let plain = text.replace("task, ", "");
    let result = instrumented(Language::FortranFree, &plain);
    assert!(layers(&result.plan, &result, "parallel do")[1].add_nowait);
}

#[test]
fn copyprivate_on_a_fortran_end_directive_keeps_the_barrier_implicit() {
    let text = "subroutine s(x)\n  integer :: x\n  !$omp parallel\n  !$omp single\n  x = 1\n  !$omp end single copyprivate(x)\n  !$omp end parallel\nend subroutine\n";
    let result = instrumented(Language::FortranFree, text);
    assert!(!layers(&result.plan, &result, "single")[0].add_nowait);
    assert!(result
        .diagnostics
        .iter()
        .any(|d| d.message.contains("`copyprivate(x)` forbids `nowait`")));
}

#[test]
fn nowait_on_a_fortran_end_directive_is_the_users() {
    let text = "subroutine s(a)\n  integer :: a(4), i\n  !$omp parallel\n  !$omp do\n  do i = 1, 4\n    a(i) = i\n  end do\n  !$omp end do nowait\n  !$omp end parallel\nend subroutine\n";
    let result = instrumented(Language::FortranFree, text);
    let layer = &layers(&result.plan, &result, "do")[0];
    assert!(!layer.add_nowait && !layer.barrier_after);
    let out = output(&result, text);
    assert_eq!(out.matches("nowait").count(), 1, "{out}");
    assert!(out.contains("!$omp end do nowait\n"), "{out}");
    assert!(
        !out.contains("Implicit_barrier_enter(pomp2_region_2"),
        "{out}"
    );
}

/// The text between the first line containing `from` and the next
/// containing `to`.
fn between<'t>(text: &'t str, from: &str, to: &str) -> &'t str {
    let start = text
        .find(from)
        .unwrap_or_else(|| panic!("`{from}` in {text}"));
    let end = start
        + text[start..]
            .find(to)
            .unwrap_or_else(|| panic!("`{to}` in {text}"));
    &text[start..end]
}

#[test]
fn fortran_parallel_regions_in_teams_take_their_thread_count_from_before_it() {
    let text = "program p\n  integer :: n\n  n = 0\n  !$omp teams default(none) shared(n)\n  !$omp parallel\n  !$omp atomic\n  n = n + 1\n  !$omp end parallel\n  !$omp end teams\nend program\n";
    for events in [super::EventSet::Extended, super::EventSet::Opari2] {
        let file = SourceFile::new("t.f90", text.as_bytes().to_vec(), Language::FortranFree);
        let mut options = Options::default();
        options.rules.events = events;
        let result = instrument(&file, &options);
        assert!(!result.has_errors(), "{:?}", result.diagnostics);
        let out = output(&result, text);
        let before = &out[..out.find("!$omp teams").unwrap()];
        assert!(
            before.contains("pomp2_max_threads = pomp2_lib_get_max_threads()"),
            "{out}"
        );
        let teams = between(&out, "!$omp teams", "!$omp end teams");
        assert!(!teams.contains("get_max_threads"), "{teams}");
        assert!(
            teams.contains("pomp2_num_threads = pomp2_max_threads"),
            "{teams}"
        );
        let directive = between(&out, "!$omp teams", "#line");
        assert!(
            directive.contains("shared(pomp2_max_threads)"),
            "{directive}"
        );
        assert!(out.contains("integer :: pomp2_max_threads"), "{out}");
    }
}

#[test]
fn a_parallel_region_inside_a_parallel_region_in_teams_may_ask_the_runtime() {
    let text = "void f(void) {\n#pragma omp teams\n#pragma omp parallel num_threads(2)\n#pragma omp parallel\n  ;\n}\n";
    let result = instrumented(Language::C, text);
    let out = output(&result, text);
    // The outer parallel region gave its count; the inner one is not
    // strictly inside teams.
    assert!(!out.contains("pomp2_max_threads"), "{out}");
    assert_eq!(out.matches("omp_get_max_threads()").count(), 1, "{out}");
}

/// A library that defines OPARI2's events only, as OPARI2's own does.
fn opari2_library() -> std::sync::Arc<super::Library> {
    let events: Vec<String> = pomp2::events::EVENTS
        .iter()
        .filter(|e| {
            let extended = super::table::rules().construct.values().any(|r| {
                r.set == super::EventFamily::Extended && r.calls().any(|c| c.event == e.name)
            });
            !extended
        })
        .map(|e| e.c_symbol())
        .collect();
    std::sync::Arc::new(super::Library::from_symbols(
        "libpomp.a",
        super::Interface::Pomp2,
        events.iter().map(String::as_str),
    ))
}

fn with_library(text: &str, library: std::sync::Arc<super::Library>) -> Instrumentation {
    let file = SourceFile::new("t.c", text.as_bytes().to_vec(), Language::C);
    let mut options = Options::default();
    options.rules.library = Some(library);
    let result = instrument(&file, &options);
    assert!(!result.has_errors(), "{:?}", result.diagnostics);
    result
}

#[test]
fn another_library_gets_only_the_events_it_defines_in_opari2_s_structure() {
    let text = "void f(int n) {\n#pragma omp parallel masked\n  n++;\n#pragma omp parallel\n#pragma omp taskgroup\n  n++;\n}\n";
    let result = with_library(text, opari2_library());
    let plan = &result.plan;
    assert_eq!(
        plan.unmeasured
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        ["masked", "taskgroup"]
    );
    let out = output(&result, text);
    assert!(
        !out.contains("Masked") && !out.contains("Taskgroup"),
        "{out}"
    );
    // The parallel regions' barriers are explicit: only pomp's runtime
    // infers them.
    assert_eq!(
        out.matches("POMP2_Implicit_barrier_enter(&").count(),
        2,
        "{out}"
    );
    assert!(!out.contains("pompImplicitBarrier"), "{out}");
    // pomp's part of the strings stays: the library's parser does not read it.
    assert!(out.contains("**pompType=parallelmasked*pompId="), "{out}");
}

#[test]
fn a_combined_construct_is_measured_as_far_as_opari2_has_a_type_for_it() {
    let text = "void f(int n) {\n#pragma omp parallel master\n  n++;\n}\n";
    let result = with_library(text, opari2_library());
    let layers = layers(&result.plan, &result, "parallel master");
    assert!(layers[0].is_instrumented() && !layers[1].is_instrumented());
    assert_eq!(result.plan.regions[0].opari2_type, "parallel");
    // pomp's runtime measures both parts, under OPARI2's nearest type.
    let ours = instrumented(Language::C, text);
    let layers = layers_of(&ours);
    assert!(layers.iter().all(Layer::is_instrumented));
    assert_eq!(ours.plan.regions[0].opari2_type, "parallel");
    assert_eq!(ours.plan.regions[0].region_type, "parallelmaster");
}

fn layers_of(result: &Instrumentation) -> &[Layer] {
    &result.plan.constructs[0].layers
}

#[test]
fn a_library_without_lock_or_user_region_events_leaves_them_as_written() {
    let text = "#include <omp.h>\nomp_lock_t l;\nvoid f(void) {\n#pragma pomp inst begin(x)\n  omp_set_lock(&l);\n#pragma pomp inst end(x)\n}\n";
    let bare = std::sync::Arc::new(super::Library::from_symbols(
        "libbare.a",
        super::Interface::Pomp2,
        ["POMP2_Parallel_fork"],
    ));
    let result = with_library(text, bare);
    assert_eq!(
        result
            .plan
            .unmeasured
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        ["lock routines", "user regions"]
    );
    let out = output(&result, text);
    assert!(out.contains("omp_set_lock(&l)"), "{out}");
    assert!(
        !out.contains("POMP2_Set_lock") && !out.contains("POMP2_Begin"),
        "{out}"
    );
}

#[test]
fn an_inscan_reduction_keeps_the_combined_construct_whole_measured_from_outside() {
    let text = "void f(int *a, int *b) {\n  int x = 0;\n#pragma omp parallel for reduction(inscan, +: x)\n  for (int i = 0; i < 8; i++) {\n    x += a[i];\n#pragma omp scan inclusive(x)\n    b[i] = x;\n  }\n}\n";
    let result = instrumented(Language::C, text);
    let whole = layers(&result.plan, &result, "parallel for");
    assert_eq!(whole.len(), 1);
    let events = |calls: &[super::Call]| calls.iter().map(|c| c.event).collect::<Vec<_>>();
    assert_eq!(events(&whole[0].before), ["Parallel_fork"]);
    assert_eq!(events(&whole[0].after), ["Parallel_join"]);
    assert!(whole[0].begin.is_empty() && whole[0].end.is_empty());
    assert_eq!(result.plan.regions[0].implicit_barrier, None);
    let written = output(&result, text);
    assert!(
        written.contains(
            "#pragma omp parallel for reduction(inscan, +: x) firstprivate(pomp2_old_task)"
        ),
        "{written}"
    );
    assert!(!written.contains("nowait") && !written.contains("Parallel_begin"));
    let note = result
        .diagnostics
        .iter()
        .find(|d| d.severity == Severity::Note)
        .expect("a note on what is measured");
    assert!(
        note.message.contains("measured as a whole"),
        "{}",
        note.message
    );
    assert!(
        note.notes.iter().any(|n| n.contains("clang 14")),
        "{:?}",
        note.notes
    );
}

#[test]
fn a_cancelled_worksharing_loop_keeps_its_barrier_implicit() {
    let text = "void f(int *a) {\n#pragma omp parallel\n  {\n#pragma omp for\n    for (int i = 0; i < 8; i++) {\n      if (a[i])\n        {\n#pragma omp cancel for\n        }\n    }\n#pragma omp for\n    for (int i = 0; i < 8; i++)\n      a[i]++;\n  }\n}\n";
    let result = instrumented(Language::C, text);
    let written = output(&result, text);
    assert_eq!(
        written.matches("#pragma omp for nowait").count(),
        1,
        "{written}"
    );
    let note = result
        .diagnostics
        .iter()
        .find(|d| d.severity == Severity::Note)
        .expect("a note on what is measured");
    assert!(
        note.message
            .contains("`cancel for` on line 8 forbids `nowait`"),
        "{}",
        note.message
    );
}

/// The CTC strings of `text` instrumented in OPARI2's structure, after
/// their type, one per region.
fn opari2_ctc_strings(language: Language, text: &str) -> Vec<String> {
    let path = if language.is_fortran() {
        "t.f90"
    } else {
        "t.c"
    };
    let file = SourceFile::new(path, text.as_bytes().to_vec(), language);
    let mut options = Options::default();
    options.rules.events = super::EventSet::Opari2;
    options.rules.keep_untied = true;
    let result = instrument(&file, &options);
    assert!(!result.has_errors(), "{:?}", result.diagnostics);
    (result.plan.regions.iter())
        .map(|region| {
            let ctc = result.plan.ctc(region);
            let after_lines = ctc.split('*').skip(4).collect::<Vec<_>>().join("*");
            format!("{}*{after_lines}", region.opari2_type)
        })
        .collect()
}

#[test]
fn ctc_strings_in_opari2_s_structure_say_what_opari2_2_0_7_writes() {
    // What OPARI2 2.0.7 writes for each of these directives: only some
    // clauses are named, `default` only when none or private, an untied
    // task is a task that says so, a parallel sections construct has no
    // count of sections. The parallel for with an inscan reduction pomp
    // keeps whole, and so leaves as written in OPARI2's structure.
    let text = "void f(int n) {\n  int x = 0, y = 0, i;\n\
#pragma omp parallel if(n) num_threads(2) reduction(+:x) shared(n) firstprivate(y) copyin(n) default(shared)\n  x++;\n\
#pragma omp parallel default(private)\n  y++;\n\
#pragma omp parallel\n  {\n\
#pragma omp for lastprivate(y) firstprivate(x) schedule(dynamic, 2*n) collapse(1) nowait\n  for (i = 0; i < n; i++) y = i;\n\
#pragma omp single copyprivate(y)\n  y = 1;\n\
#pragma omp task untied shared(x) firstprivate(y) if(n) default(none)\n  x++;\n  }\n\
#pragma omp parallel sections default(none) shared(x) lastprivate(y)\n  {\n\
#pragma omp section\n  x++;\n  }\n\
#pragma omp parallel for reduction(inscan, +: x)\n  for (i = 0; i < n; i++) {\n    x += i;\n\
#pragma omp scan inclusive(x)\n    y = x;\n  }\n}\n";
    assert_eq!(
        opari2_ctc_strings(Language::C, text),
        [
            "parallel*hasIf=1*hasNum_threads=1*hasReduction=1*hasShared=1**",
            "parallel*hasDefault=private**",
            "parallel**",
            "for*hasCollapse=1*hasNowait=1*hasSchedule=dynamic,2@n**",
            "single*hasCopyPrivate=1**",
            "task*hasDefault=none*hasIf=1*hasShared=1*hasUntied=1**",
            "parallelsections*hasDefault=none*hasShared=1**",
        ]
    );
}

#[test]
fn fortran_ctc_strings_in_opari2_s_structure_leave_end_directives_out_and_names_in_lower_case() {
    let text = "subroutine s(n)\n  integer :: n, x\n\
!$omp parallel\n\
!$omp do\n  do x = 1, n\n  end do\n!$omp end do nowait\n\
!$omp single\n  x = 1\n!$omp end single copyprivate(x)\n\
!$omp critical (Tally)\n  x = 2\n!$omp end critical (Tally)\n\
!$omp end parallel\nend subroutine\n";
    assert_eq!(
        opari2_ctc_strings(Language::FortranFree, text),
        [
            "parallel**",
            "do**",
            "single**",
            "critical*criticalName=tally**",
        ]
    );
}

#[test]
fn in_opari2_s_structure_a_construct_kept_whole_is_left_as_written() {
    // A library other than pomp's runtime needs every forked team's own
    // events: Score-P stops the program at the join without them.
    let text = "void f(int *a, int *b) {\n  int x = 0;\n#pragma omp parallel for reduction(inscan, +: x)\n  for (int i = 0; i < 8; i++) {\n    x += a[i];\n#pragma omp scan inclusive(x)\n    b[i] = x;\n  }\n}\n";
    let file = SourceFile::new("t.c", text.as_bytes().to_vec(), Language::C);
    let mut options = Options::default();
    options.rules.events = super::EventSet::Opari2;
    let result = instrument(&file, &options);
    assert!(result.plan.regions.is_empty() && result.plan.constructs.is_empty());
    let note = (result.diagnostics.iter())
        .find(|d| d.severity == Severity::Note)
        .expect("a note on what is left alone");
    assert!(note.message.contains("left as written"), "{}", note.message);
    // OPARI 1.1's library takes the fork and the join alone.
    options.rules.interface = super::Interface::Pomp1;
    let result = instrument(&file, &options);
    assert_eq!(result.plan.regions.len(), 1);
}

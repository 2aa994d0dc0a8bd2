//! The Fortran front end on tricky free- and fixed-form snippets: every span
//! is checked by the text it covers.

use pomp_core::frontend::fortran::TreeSitterFortran;
use pomp_core::frontend::FrontEnd;
use pomp_core::language::Language;
use pomp_core::model::Model;
use pomp_core::source::SourceFile;

fn analyse(source: &str, language: Language) -> (SourceFile, Model) {
    let file = SourceFile::new("test.f90", source.as_bytes().to_vec(), language);
    let model = TreeSitterFortran.analyse(&file);
    (file, model)
}

fn free(source: &str) -> (SourceFile, Model) {
    analyse(source, Language::FortranFree)
}

fn fixed(source: &str) -> (SourceFile, Model) {
    analyse(source, Language::FortranFixed)
}

fn text(file: &SourceFile, span: &std::ops::Range<usize>) -> String {
    file.text(span.clone()).into_owned()
}

/// Each site as (directive name, span text, block text, end site name).
fn sites(
    file: &SourceFile,
    model: &Model,
) -> Vec<(String, String, Option<String>, Option<String>)> {
    model
        .sites
        .iter()
        .map(|s| {
            (
                s.directive.name.clone(),
                text(file, &s.span),
                s.block.as_ref().map(|b| text(file, b)),
                s.end_site.map(|e| model.sites[e].directive.name.clone()),
            )
        })
        .collect()
}

fn no_errors(file: &SourceFile, model: &Model) {
    assert!(
        !model.has_errors(),
        "{}",
        pomp_core::diagnostics::render(file, &model.diagnostics, false)
    );
}

#[test]
fn parallel_with_labelled_loops_sharing_a_label() {
    let source = "\
program p
  implicit none
  integer :: i, j, a(10,10)
!$omp parallel
!$omp do private(j)
  do 10 i = 1, 10
  do 10 j = 1, 10
10 a(i,j) = 0
  ! a comment
!$omp end do nowait
!$omp end parallel
end program p
";
    let (file, model) = free(source);
    no_errors(&file, &model);
    let got = sites(&file, &model);
    assert_eq!(got.len(), 4);
    assert_eq!(got[0].0, "parallel");
    assert_eq!(got[0].1, "!$omp parallel");
    assert_eq!(
        got[0].2.as_deref(),
        Some("!$omp do private(j)\n  do 10 i = 1, 10\n  do 10 j = 1, 10\n10 a(i,j) = 0\n  ! a comment\n!$omp end do nowait\n")
    );
    assert_eq!(got[0].3.as_deref(), Some("end parallel"));
    assert_eq!(got[1].0, "do");
    assert_eq!(
        got[1].2.as_deref(),
        Some("  do 10 i = 1, 10\n  do 10 j = 1, 10\n10 a(i,j) = 0\n")
    );
    assert_eq!(got[1].3.as_deref(), Some("end do"));
    assert_eq!(model.sites[1].parent, Some(0));
    assert_eq!(model.sites[2].parent, Some(0));
    assert_eq!(model.sites[3].parent, None);
    assert!(model.sites[2].directive.has_clause("nowait"));
    assert_eq!(text(&file, &model.sites[1].lines), "!$omp do private(j)\n");
    assert_eq!(model.units.len(), 1);
    assert_eq!(model.units[0].name, "p");
    let at = model.units[0].declarations_at.unwrap();
    assert!(source[at..].starts_with("!$omp parallel\n"));
    assert_eq!(model.units[0].indent, "  ");
    assert!(model.sites.iter().all(|s| s.unit == Some(0)));
}

#[test]
fn loops_with_and_without_end_directives() {
    let source = "\
subroutine s(n, a)
  integer, intent(in) :: n
  real :: a(n)
  integer :: i, j
!$omp parallel do
  do i = 1, n
    a(i) = 0
  end do
  a(1) = 1
!$omp parallel do simd collapse(2)
  do i = 1, n
    do j = 1, n
      a(i) = a(i) + j
    enddo
  end do

!$omp end parallel do simd
  !$omp parallel do &
  !$omp & schedule(static)
  do concurrent (i = 1:n)
    a(i) = 2
  end do
end subroutine
";
    let (file, model) = free(source);
    no_errors(&file, &model);
    let got = sites(&file, &model);
    assert_eq!(got.len(), 4);
    assert_eq!(
        got[0].2.as_deref(),
        Some("  do i = 1, n\n    a(i) = 0\n  end do\n")
    );
    assert_eq!(got[0].3, None);
    assert_eq!(got[1].0, "parallel do simd");
    assert_eq!(
        got[1].2.as_deref(),
        Some("  do i = 1, n\n    do j = 1, n\n      a(i) = a(i) + j\n    enddo\n  end do\n")
    );
    assert_eq!(got[1].3.as_deref(), Some("end parallel do simd"));
    assert_eq!(got[3].1, "!$omp parallel do &\n  !$omp & schedule(static)");
    assert!(model.sites[3].directive.has_clause("schedule"));
    assert_eq!(
        got[3].2.as_deref(),
        Some("  do concurrent (i = 1:n)\n    a(i) = 2\n  end do\n")
    );
    // simd loops are device code: nothing may be inserted inside, from the
    // directive on.
    let block = model.sites[1].block.as_ref().unwrap();
    assert!(model
        .no_insert
        .contains(&(model.sites[1].span.end..block.end)));
    let at = model.units[0].declarations_at.unwrap();
    assert!(source[at..].starts_with("!$omp parallel do\n"));
}

#[test]
fn collapse_needs_a_deep_enough_nest() {
    let source = "\
subroutine s(a)
  real :: a(4)
  integer :: i
!$omp do collapse(2)
  do i = 1, 4
    a(i) = 0
  end do
end subroutine
";
    let (_, model) = free(source);
    assert!(model.has_errors());
}

#[test]
fn sections_with_and_without_a_first_section_directive() {
    let source = "\
program p
  integer :: x, y
!$omp parallel sections
  x = 1
!$omp section
  y = 2
!$omp section
  ! comment
  y = 3
!$omp end parallel sections
!$omp sections
!$omp section
  x = 4
!$omp end sections nowait
end
";
    let (file, model) = free(source);
    no_errors(&file, &model);
    let got = sites(&file, &model);
    let names: Vec<&str> = got.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "parallel sections",
            "section",
            "section",
            "section",
            "end parallel sections",
            "sections",
            "section",
            "end sections"
        ]
    );
    assert_eq!(
        model.sites[1].form,
        pomp_core::model::DirectiveForm::Implicit
    );
    assert_eq!(got[1].2.as_deref(), Some("  x = 1\n"));
    assert_eq!(got[2].2.as_deref(), Some("  y = 2\n"));
    assert_eq!(got[3].2.as_deref(), Some("  ! comment\n  y = 3\n"));
    assert_eq!(got[0].3.as_deref(), Some("end parallel sections"));
    assert_eq!(model.sites[0].end_site, Some(4));
    assert_eq!(model.sites[5].end_site, Some(7));
    assert!(model.sites[1..4].iter().all(|s| s.parent == Some(0)));
    assert_eq!(got[6].2.as_deref(), Some("  x = 4\n"));
    assert_eq!(model.units[0].name, "p");
}

#[test]
fn atomic_statements_over_several_lines() {
    let source = "\
subroutine s(x, v)
  integer :: x, v
!$omp atomic
  x = x + &
      1
!$omp atomic update
  x = x + 2
!$omp end atomic
!$omp atomic capture
  v = x
  x = x + 1
!$omp end atomic
end subroutine
";
    let (file, model) = free(source);
    no_errors(&file, &model);
    let got = sites(&file, &model);
    assert_eq!(got.len(), 5);
    assert_eq!(got[0].2.as_deref(), Some("  x = x + &\n      1\n"));
    assert_eq!(got[0].3, None);
    assert_eq!(got[1].2.as_deref(), Some("  x = x + 2\n"));
    assert_eq!(got[1].3.as_deref(), Some("end atomic"));
    assert_eq!(got[3].2.as_deref(), Some("  v = x\n  x = x + 1\n"));
    assert_eq!(got[3].3.as_deref(), Some("end atomic"));
}

#[test]
fn capture_without_end_atomic_is_an_error() {
    let (_, model) =
        free("subroutine s(x, v)\n!$omp atomic capture\n  v = x\n  x = x + 1\nend subroutine\n");
    assert!(model.has_errors());
}

#[test]
fn single_critical_and_friends_keep_end_clauses() {
    let source = "\
subroutine s(x)
  integer :: x
!$omp parallel private(x)
!$omp single
  x = 1
!$omp end single copyprivate(x)
!$omp critical (upd)
  x = x + 1
!$omp end critical (UPD)
!$omp master
  x = 2
!$omp end master
!$omp barrier
!$omp flush(x)
!$omp taskwait
!$omp end parallel
end subroutine
";
    let (file, model) = free(source);
    no_errors(&file, &model);
    let got = sites(&file, &model);
    assert_eq!(got[1].3.as_deref(), Some("end single"));
    let end_single = model.sites[1].end_site.unwrap();
    assert!(model.sites[end_single].directive.has_clause("copyprivate"));
    assert_eq!(got[3].0, "critical");
    assert_eq!(model.sites[3].directive.argument.as_deref(), Some("upd"));
    assert_eq!(got[3].2.as_deref(), Some("  x = x + 1\n"));
    for standalone in &got[7..10] {
        assert_eq!(standalone.2, None, "{standalone:?}");
    }
    assert!(model.sites[7..10].iter().all(|s| s.parent == Some(0)));
}

#[test]
fn mismatched_critical_names_and_missing_end_directives_are_errors() {
    let (_, model) =
        free("subroutine s\n!$omp critical(a)\n  x = 1\n!$omp end critical(b)\nend subroutine\n");
    assert!(model.has_errors());
    let (file, model) = free("subroutine s\n!$omp parallel\n  x = 1\nend subroutine\n");
    assert!(model.has_errors());
    let error = model.diagnostics.iter().find(|d| d.is_error()).unwrap();
    assert_eq!(text(&file, &error.span), "!$omp parallel");
    let (_, model) = free("subroutine s\n  x = 1\n!$omp end parallel\nend subroutine\n");
    assert!(model.has_errors());
    let (_, model) = free("subroutine s\n!$omp do\n  x = 1\nend subroutine\n");
    assert!(model.has_errors());
}

#[test]
fn invalid_directive_text_is_an_error_and_the_site_is_dropped() {
    let (file, model) = free("subroutine s\n!$omp single schedule(static)\n!$omp end single\n!$omp barrier\nend subroutine\n");
    assert!(model.has_errors());
    let error = model.diagnostics.iter().find(|d| d.is_error()).unwrap();
    assert_eq!(error.message, "`schedule` is not a clause of `single`");
    assert_eq!(text(&file, &error.span), "schedule");
    assert!(model.sites.iter().any(|s| s.directive.name == "barrier"));
    assert!(!model.sites.iter().any(|s| s.directive.name == "single"));
}

/// Warnings of a model, as (message, underlined text).
fn warnings(file: &SourceFile, model: &Model) -> Vec<(String, String)> {
    model
        .diagnostics
        .iter()
        .filter(|d| !d.is_error())
        .map(|d| (d.message.clone(), text(file, &d.span)))
        .collect()
}

#[test]
fn an_unknown_clause_is_kept_and_the_site_stays() {
    let (file, model) = free("subroutine s\n!$omp parallel bogus_clause(x)\n!$omp end parallel\n!$omp barrier\nend subroutine\n");
    no_errors(&file, &model);
    assert_eq!(
        warnings(&file, &model),
        [(
            "unknown clause `bogus_clause`; left as written".to_string(),
            "bogus_clause".to_string()
        )]
    );
    let parallel = &model.sites[0];
    assert_eq!(parallel.directive.name, "parallel");
    assert_eq!(parallel.directive.clauses[0].render(), "bogus_clause(x)");
    assert!(parallel.end_site.is_some());
}

#[test]
fn scan_inside_a_loop_is_not_a_section() {
    let source = "\
subroutine s(a, b, n)
  integer :: n, i, t, a(n), b(n)
  t = 0
!$omp parallel do reduction(inscan, +: t)
  do i = 1, n
    t = t + a(i)
!$omp scan inclusive(t)
    b(i) = t
  end do
!$omp do reduction(inscan, +: t)
  do i = 1, n
    b(i) = t
    !$OMP SCAN EXCLUSIVE(T)
    t = t + a(i)
  end do
end subroutine
";
    let (file, model) = free(source);
    no_errors(&file, &model);
    let names: Vec<(String, Option<String>)> = sites(&file, &model)
        .into_iter()
        .map(|(name, _, block, _)| (name, block.map(|_| "block".to_string())))
        .collect();
    assert_eq!(
        names,
        [
            ("parallel do".to_string(), Some("block".to_string())),
            ("scan".to_string(), None),
            ("do".to_string(), Some("block".to_string())),
            ("scan".to_string(), None),
        ]
    );
    assert_eq!(model.sites[1].parent, Some(0));
}

#[test]
fn unknown_directives_leave_the_code_they_may_apply_to_alone() {
    let source = "\
subroutine s(a, n)
  integer :: n, i, a(n)
!$omp gadget
!$omp critical
  a(1) = 0
!$omp end critical
!$omp end gadget
!$omp whatsit(3)
  do i = 1, n
!$omp atomic
    a(i) = a(i) + 1
  end do
!$omp barrier
end subroutine
";
    let (file, model) = free(source);
    no_errors(&file, &model);
    assert_eq!(
        warnings(&file, &model),
        [
            (
                "unknown OpenMP directive `gadget`; left as written".to_string(),
                "gadget".to_string()
            ),
            (
                "unknown OpenMP directive `whatsit`; left as written".to_string(),
                "whatsit".to_string()
            ),
        ]
    );
    let left_alone: Vec<String> = model.no_insert.iter().map(|s| text(&file, s)).collect();
    assert_eq!(left_alone.len(), 2);
    assert!(
        left_alone[0].contains("!$omp critical") && left_alone[0].ends_with("!$omp end critical\n")
    );
    assert!(left_alone[1].contains("!$omp atomic") && left_alone[1].trim_end().ends_with("end do"));
    assert!(!left_alone.iter().any(|s| s.contains("barrier")));
}

#[test]
fn an_unknown_construct_between_a_loop_directive_and_its_loop_is_refused() {
    let refused = "\
subroutine s(a, n)
  integer :: n, i, a(n)
!$omp do
!$omp flatten
  do i = 1, n
    a(i) = 0
  end do
!$omp end flatten
end subroutine
";
    let (file, model) = free(refused);
    let error = model.diagnostics.iter().find(|d| d.is_error()).unwrap();
    assert_eq!(text(&file, &error.span), "flatten");
    assert!(
        error.message.contains("between `do` and its loop"),
        "{}",
        error.message
    );
    assert!(error.notes[0].contains("line 8"), "{:?}", error.notes);
    // Without an end directive of its own it applies to the loop at most,
    // and pomp closes `do` after it; under a loop transformation, which
    // pomp never instruments, nothing is placed after the loop at all.
    for kept in [
        refused.replace("!$omp end flatten\n", ""),
        refused.replace("!$omp do\n", "!$omp tile sizes(2)\n"),
    ] {
        let (file, model) = free(&kept);
        no_errors(&file, &model);
    }
}

#[test]
fn modules_submodules_internal_procedures_and_interfaces() {
    let source = "\
module m
  implicit none
  integer :: g
  interface
    subroutine ext(x)
      integer :: x
    end subroutine
  end interface
contains
  integer function f(x) result(r)
    use omp_lib
    integer, intent(in) :: x
    type t
      integer :: a
    end type t
    r = x
  end function f
  subroutine host()
    integer :: k
    k = 1
!$omp parallel
    call inner()
!$omp end parallel
  contains
    subroutine inner()
!$omp barrier
    end subroutine inner
  end subroutine host
end module m
submodule (m) sm
contains
  module procedure foo
    x = 1
  end procedure foo
end submodule
";
    let (file, model) = free(source);
    no_errors(&file, &model);
    let names: Vec<&str> = model.units.iter().map(|u| u.name.as_str()).collect();
    assert_eq!(names, ["f", "host", "inner", "foo"]);
    let decl = |i: usize| {
        let at = model.units[i].declarations_at.unwrap();
        assert_eq!(file.start_of_line(at), at);
        source[at..].lines().next().unwrap().to_string()
    };
    assert_eq!(decl(0), "    r = x");
    assert_eq!(model.units[0].indent, "    ");
    assert_eq!(decl(1), "    k = 1");
    assert_eq!(decl(2), "!$omp barrier");
    assert_eq!(model.units[2].indent, "    ");
    assert_eq!(decl(3), "    x = 1");
    assert!(text(&file, &model.units[1].span).starts_with("subroutine host()"));
    assert!(text(&file, &model.units[1].span).ends_with("end subroutine host"));
    assert_eq!(model.sites[0].unit, Some(1));
    assert_eq!(model.sites[2].unit, Some(2));
}

#[test]
fn specification_part_ends_before_the_first_executable_statement() {
    let source = "\
subroutine s(a, n)
  use omp_lib
  implicit none
  include 'consts.h'
  integer :: n, i
  real :: a(n), b
  real :: f, x
  parameter (m = 3)
  data b /1.0/
  f(x) = x + 1.0
100 format(i5)
#ifdef DEBUG
  logical :: dbg
#endif
  a(1) = f(2.0)
  block
    integer :: k
    k = 1
  end block
end subroutine
";
    let (file, model) = free(source);
    no_errors(&file, &model);
    let at = model.units[0].declarations_at.unwrap();
    assert!(
        source[at..].starts_with("  a(1) = f(2.0)\n"),
        "{}",
        &source[at..]
    );
    assert_eq!(model.units[0].indent, "  ");
}

#[test]
fn array_element_assignment_is_executable() {
    let source = "subroutine s\n  real :: a(3)\n  a(i) = 1.0\nend subroutine\n";
    let (_, model) = free(source);
    let at = model.units[0].declarations_at.unwrap();
    assert!(source[at..].starts_with("  a(i) = 1.0\n"));
}

#[test]
fn conditional_lines_are_code_for_the_specification_part() {
    let source = "program p\n  use iso_fortran_env\n!$ use omp_lib\n  i = 1\n!$ i = omp_get_num_threads()\nend program p\n";
    let (file, model) = free(source);
    no_errors(&file, &model);
    let at = model.units[0].declarations_at.unwrap();
    assert!(source[at..].starts_with("  i = 1\n"));
    assert!(model.sites.is_empty());
}

#[test]
fn lock_calls_in_call_position_only() {
    let source = "\
program p
  use omp_lib
  integer(omp_lock_kind) :: l
  logical :: ok
  call omp_init_lock(l)
  call OMP_Set_Lock(l)
  ok = omp_test_lock(l)
  print *, 'call omp_set_lock(l)' ! call omp_unset_lock(l)
  call omp_unset_lock (l)
  call omp_destroy_lock(l)
  call omp_set_nest_lock(n)
end program
";
    let (file, model) = free(source);
    let calls: Vec<(String, String)> = model
        .lock_calls
        .iter()
        .map(|c| (c.name.clone(), text(&file, &c.span)))
        .collect();
    assert_eq!(
        calls,
        [
            ("omp_init_lock", "omp_init_lock"),
            ("omp_set_lock", "OMP_Set_Lock"),
            ("omp_test_lock", "omp_test_lock"),
            ("omp_unset_lock", "omp_unset_lock"),
            ("omp_destroy_lock", "omp_destroy_lock"),
            ("omp_set_nest_lock", "omp_set_nest_lock"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
}

#[test]
fn pomp_user_regions_and_proposal_directives() {
    let source = "\
program p
!$pomp inst init
!$pomp inst begin(phase1)
  x = 1
!$pomp inst end(phase1)
!$omp inst begin(phase2)
!$omp inst end(phase2)
!$omp noinstrument
!P$ call foo()
!$acc kernels
end program
";
    let (file, model) = free(source);
    no_errors(&file, &model);
    let got: Vec<(pomp_core::directive::Sentinel, String)> = model
        .sites
        .iter()
        .map(|s| (s.directive.sentinel, s.directive.name.clone()))
        .collect();
    use pomp_core::directive::Sentinel::*;
    assert_eq!(
        got,
        [
            (Pomp, "inst init"),
            (Pomp, "inst begin"),
            (Pomp, "inst end"),
            (Omp, "inst begin"),
            (Omp, "inst end"),
            (Omp, "noinstrument"),
        ]
        .map(|(s, n)| (s, n.to_string()))
    );
    assert_eq!(model.sites[1].directive.argument.as_deref(), Some("phase1"));
}

#[test]
fn target_and_declare_target_are_device_code() {
    let source = "\
subroutine dev(x)
!$omp declare target
  x = 1
end subroutine
subroutine host(a)
  real :: a(10)
!$omp target
  a(1) = 2
!$omp end target
end subroutine
";
    let (file, model) = free(source);
    no_errors(&file, &model);
    let device: Vec<String> = model.no_insert.iter().map(|s| text(&file, s)).collect();
    assert!(
        device.iter().any(|d| d.starts_with("subroutine dev(x)")),
        "{device:?}"
    );
    assert!(device.contains(&"\n  a(1) = 2\n".to_string()), "{device:?}");
}

/// A construct that opens a target region's block is inside the region:
/// nothing is inserted for it, not even before its directive.
#[test]
fn a_construct_at_the_start_of_a_target_region_is_device_code() {
    let source = "\
subroutine s(a)
  real :: a(4)
!$omp target map(tofrom: a)
!$omp parallel
  a(1) = 1
!$omp end parallel
!$omp end target
end subroutine
";
    let (file, model) = free(source);
    no_errors(&file, &model);
    let parallel = &model.sites[1];
    assert_eq!(parallel.directive.name, "parallel");
    let at = parallel.span.start;
    assert!(
        model.no_insert.iter().any(|d| d.start < at && at < d.end),
        "{:?}",
        model.no_insert
    );
}

#[test]
fn syntax_errors_near_directives_are_errors_elsewhere_warnings() {
    let (_, model) =
        free("subroutine s\n!$omp parallel\n  x = = 1\n!$omp end parallel\nend subroutine\n");
    assert!(model.has_errors());
    let (_, model) = free("subroutine s\n  x = = 1\nend subroutine\nsubroutine t\n  integer y\n!$omp barrier\nend subroutine\n");
    assert!(!model.has_errors(), "{:?}", model.diagnostics);
    assert!(!model.diagnostics.is_empty());
}

#[test]
fn fixed_form_program() {
    let source = "\
C     a fixed-form program
      PROGRAM FIX
      INTEGER I, J, A(10,10), S
      INTEGER(8) L
      S = 0
C$OMP PARALLEL DO PRIVATE(J)
C$OMP+REDUCTION(+:S)
      DO 10 I = 1, 10
      DO 10 J = 1,
     &          10
         S = S + I
   10 CONTINUE
*$OMP END PARALLEL DO
!$OMP ATOMIC
      S = S +
     1    1
c$omp critical
      CALL OMP_SET_LOCK(L)
c$omp end critical
      END
";
    let (file, model) = fixed(source);
    no_errors(&file, &model);
    let got = sites(&file, &model);
    assert_eq!(got.len(), 5);
    assert_eq!(got[0].0, "parallel do");
    assert_eq!(
        got[0].1,
        "C$OMP PARALLEL DO PRIVATE(J)\nC$OMP+REDUCTION(+:S)"
    );
    assert!(model.sites[0].directive.has_clause("reduction"));
    assert_eq!(
        got[0].2.as_deref(),
        Some("      DO 10 I = 1, 10\n      DO 10 J = 1,\n     &          10\n         S = S + I\n   10 CONTINUE\n")
    );
    assert_eq!(got[0].3.as_deref(), Some("end parallel do"));
    assert_eq!(got[2].0, "atomic");
    assert_eq!(got[2].2.as_deref(), Some("      S = S +\n     1    1\n"));
    assert_eq!(got[3].2.as_deref(), Some("      CALL OMP_SET_LOCK(L)\n"));
    assert_eq!(model.units[0].name, "FIX");
    let at = model.units[0].declarations_at.unwrap();
    assert!(source[at..].starts_with("      S = 0\n"));
    assert_eq!(model.units[0].indent, "      ");
    assert_eq!(text(&file, &model.lock_calls[0].span), "OMP_SET_LOCK");
}

#[test]
fn fixed_form_long_lines_and_labels() {
    let code = "      X = 1";
    let long = format!("{code}{}THIS IS IGNORED\n", " ".repeat(72 - code.len()));
    let source = format!(
        "      SUBROUTINE S(X)\n{long}C$OMP PARALLEL\n  100 X = 2\nC$OMP END PARALLEL\n      END\n"
    );
    let (file, model) = fixed(&source);
    no_errors(&file, &model);
    let at = model.units[0].declarations_at.unwrap();
    assert!(source[at..].starts_with(&long));
    assert_eq!(model.units[0].indent, "      ");
    assert_eq!(sites(&file, &model)[0].2.as_deref(), Some("  100 X = 2\n"));
}

#[test]
fn crlf_files_keep_exact_offsets() {
    let source =
        "subroutine s\r\n!$omp parallel\r\n  x = 1\r\n!$omp end parallel\r\nend subroutine\r\n";
    let (file, model) = free(source);
    no_errors(&file, &model);
    assert_eq!(text(&file, &model.sites[0].span), "!$omp parallel");
    assert_eq!(
        text(&file, &model.sites[0].block.clone().unwrap()),
        "  x = 1\r\n"
    );
}

/// Every Fortran corpus program is analysed without errors or warnings
/// other than a construct deliberately left uninstrumented, and every block
/// construct found its end (an end directive, or a BLOCK's end block).
#[test]
fn corpus_programs_analyse_cleanly() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/fortran");
    let mut analysed = 0;
    for form in ["free", "fixed"] {
        let Ok(entries) = std::fs::read_dir(root.join(form)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(language) = Language::from_path(&path) else {
                continue;
            };
            let file = SourceFile::new(&path, std::fs::read(&path).unwrap(), language);
            let model = TreeSitterFortran.analyse(&file);
            assert!(
                model
                    .diagnostics
                    .iter()
                    .all(|d| !d.is_error() && d.message.contains("is not instrumented")),
                "{}",
                pomp_core::diagnostics::render(&file, &model.diagnostics, false)
            );
            assert!(!model.sites.is_empty(), "{}", path.display());
            for site in &model.sites {
                let spec = site.directive.spec();
                if spec.association == pomp_core::directive::Association::Block
                    && site.directive.name != "atomic"
                {
                    assert!(
                        site.block.is_some(),
                        "{}: {:?}",
                        path.display(),
                        file.text(site.span.clone())
                    );
                }
                assert!(
                    site.unit.is_some(),
                    "{}: {:?}",
                    path.display(),
                    file.text(site.span.clone())
                );
            }
            analysed += 1;
        }
    }
    assert!(analysed >= 5);
}

#[test]
fn returns_are_exits_and_logical_ifs_are_whole() {
    let source = "\
subroutine s(n)
  integer :: n
!$pomp inst begin(r)
  if (n > 1) return
  if (n > 2) then
    return
  end if
  if (n > 3 .and. &
      n < 9) &
    & RETURN ! done
10 return 1
  n = 1; return
  returned = 1
!$  if (n > 4) return
!$pomp inst end(r)
end subroutine
";
    let (file, model) = free(source);
    no_errors(&file, &model);
    let exits: Vec<String> = model.exits.iter().map(|e| text(&file, &e.span)).collect();
    assert_eq!(
        exits,
        [
            "if (n > 1) return",
            "return",
            "if (n > 3 .and. &\n      n < 9) &\n    & RETURN",
            "return 1",
            "return",
            "if (n > 4) return",
        ]
    );
}

#[test]
fn fixed_form_returns_are_exits() {
    let source = "\
      subroutine s(n)
      integer n
C$POMP INST BEGIN(r)
      if (n .gt. 1)
c       a comment line
     &   return
   10 return
c$    if (n .gt. 4) return
C$POMP INST END(r)
      end
";
    let (file, model) = fixed(source);
    no_errors(&file, &model);
    let exits: Vec<String> = model.exits.iter().map(|e| text(&file, &e.span)).collect();
    assert_eq!(
        exits,
        [
            "if (n .gt. 1)\nc       a comment line\n     &   return",
            "return",
            "if (n .gt. 4) return",
        ]
    );
}

/// Each jump with the lines its targets start on.
fn jumps(file: &SourceFile, model: &Model) -> Vec<(String, Vec<String>)> {
    model
        .exits
        .iter()
        .map(|e| {
            let targets = e
                .targets
                .iter()
                .map(|&t| text(file, &(t..file.end_of_line(t))).trim_end().to_string())
                .collect();
            (text(file, &e.span), targets)
        })
        .collect()
}

#[test]
fn jumps_know_where_they_go() {
    let source = "\
subroutine s(n, k)
  integer :: n, k, i
!$pomp inst begin(r)
  outer: do i = 1, n
    if (i == 2) cycle
    if (i == 3) exit outer
    do while (k > 0)
      exit
    end do
    go to 10
    goto (10, 20) k
    if (k) 10, 20, 30
10  continue
  end do outer
!$pomp inst end(r)
20 k = 1
30 return
end subroutine
";
    let (file, model) = free(source);
    no_errors(&file, &model);
    let expected: Vec<(&str, Vec<&str>)> = vec![
        ("if (i == 2) cycle", vec!["outer: do i = 1, n"]),
        ("if (i == 3) exit outer", vec!["outer: do i = 1, n"]),
        ("exit", vec!["do while (k > 0)"]),
        ("go to 10", vec!["10  continue"]),
        // A computed `go to` also falls through to the next statement.
        ("goto (10, 20) k", vec!["10  continue", "20 k = 1", ""]),
        (
            "if (k) 10, 20, 30",
            vec!["10  continue", "20 k = 1", "30 return"],
        ),
        ("return", vec!["subroutine s(n, k)"]),
    ];
    let expected: Vec<(String, Vec<String>)> = expected
        .into_iter()
        .map(|(e, t)| (e.to_string(), t.into_iter().map(String::from).collect()))
        .collect();
    assert_eq!(jumps(&file, &model), expected);
}

#[test]
fn fixed_form_loops_sharing_a_label_are_jump_targets() {
    let source = "\
      subroutine s(n)
      integer n, i, j
C$POMP INST BEGIN(r)
      do 20 i = 1, n
      do 20 j = 1, n
        if (j .eq. 2) go to 20
        if (i .eq. 3) go
     &    to 30
   20 continue
C$POMP INST END(r)
   30 return
      end
";
    let (file, model) = fixed(source);
    no_errors(&file, &model);
    let found = jumps(&file, &model);
    assert_eq!(found[0].0, "if (j .eq. 2) go to 20");
    assert!(found[0].1[0].starts_with("20 continue"), "{found:?}");
    assert_eq!(found[1].0, "if (i .eq. 3) go\n     &    to 30");
    assert_eq!(found[1].1, ["30 return"]);
}

#[test]
fn an_implicit_first_section_starting_with_a_directive_holds_it() {
    let source = "\
      program p
      integer x
C$OMP PARALLEL SECTIONS
C$POMP INST BEGIN(work)
      x = 1
C$POMP INST END(work)
C$OMP SECTION
      x = 2
C$OMP END PARALLEL SECTIONS
!$omp sections
!$omp barrier
!$omp section
      x = 3
!$omp end sections
      end
";
    let (file, model) = fixed(source);
    no_errors(&file, &model);
    let got = sites(&file, &model);
    let names: Vec<&str> = got.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "parallel sections",
            "section",
            "inst begin",
            "inst end",
            "section",
            "end parallel sections",
            "sections",
            "section",
            "barrier",
            "section",
            "end sections"
        ]
    );
    assert_eq!(
        model.sites[1].form,
        pomp_core::model::DirectiveForm::Implicit
    );
    assert_eq!(
        got[1].2.as_deref(),
        Some("C$POMP INST BEGIN(work)\n      x = 1\nC$POMP INST END(work)\n")
    );
    assert_eq!(model.sites[2].parent, Some(1));
    assert_eq!(model.sites[3].parent, Some(1));
    // A first section of a standalone directive alone.
    assert_eq!(
        model.sites[7].form,
        pomp_core::model::DirectiveForm::Implicit
    );
    assert_eq!(got[7].2.as_deref(), Some("!$omp barrier\n"));
    assert_eq!(model.sites[8].parent, Some(7));
}

#[test]
fn a_block_construct_is_a_strictly_structured_block() {
    let source = "\
program p
  integer :: x
!$omp parallel
  block
    integer :: y
    y = 1
  end block
!$omp single
  block
    x = 2
  end block
!$omp end single nowait
!$omp critical
  x = 3
  block
  end block
!$omp end critical
!$omp task
!$omp taskgroup
  block
  end block
!$omp end task
end program
";
    let (file, model) = free(source);
    no_errors(&file, &model);
    let got = sites(&file, &model);
    assert_eq!(
        got[0],
        (
            "parallel".into(),
            "!$omp parallel".into(),
            Some("  block\n    integer :: y\n    y = 1\n  end block\n".into()),
            None
        )
    );
    assert_eq!(
        got[1].2.as_deref(),
        Some("  block\n    x = 2\n  end block\n")
    );
    assert_eq!(got[1].3.as_deref(), Some("end single"));
    // Not a BLOCK first: the end directive is required and ends the code.
    assert_eq!(got[3].2.as_deref(), Some("  x = 3\n  block\n  end block\n"));
    assert_eq!(got[3].3.as_deref(), Some("end critical"));
    // A directive in between owns the BLOCK; the task ends at its end directive.
    assert_eq!(got[6].0, "taskgroup");
    assert_eq!(got[6].2.as_deref(), Some("  block\n  end block\n"));
    assert_eq!(got[5].3.as_deref(), Some("end task"));
    assert_eq!(model.sites[6].parent, Some(5));
}

/// `DO 100 I` / `!$OMP DO` / `DO 100 J` / `100 CONTINUE`: the inner loop
/// ends where the outer one does, so nothing can follow it; the directive is
/// left as written with a warning, and the rest of the file is instrumented.
/// A loop directive on the outer loop of such a nest is whole.
#[test]
fn a_loop_directive_on_a_loop_sharing_its_terminal_statement() {
    let source = "\
C     The inner loop of the first nest is the construct's.
      subroutine s(n, a)
      integer n, i, j, a(n, n)
C$OMP PARALLEL PRIVATE(I)
      DO 100 I = 1, N
C$OMP DO
      DO 100 J = 1, N
         A(I, J) = I + J
  100 CONTINUE
C$OMP END PARALLEL
C$OMP PARALLEL
C$OMP DO PRIVATE(J)
      DO 300 I = 1, N
      DO 300 J = 1, N
         A(I, J) = A(I, J) * 2
  300 CONTINUE
C$OMP ENDDO
C$OMP END PARALLEL
      end
";
    let (file, model) = fixed(source);
    no_errors(&file, &model);
    assert_eq!(
        warnings(&file, &model),
        [(
            "`do` is not instrumented: its loop ends on the labelled statement that also \
             ends the enclosing DO loop"
                .to_string(),
            "C$OMP DO".to_string()
        )]
    );
    let failed: Vec<_> = model
        .sites
        .iter()
        .filter(|s| s.failed)
        .map(|s| text(&file, &s.span))
        .collect();
    assert_eq!(failed, ["C$OMP DO"]);
    let outer_do = &model.sites[4];
    assert_eq!(text(&file, &outer_do.span), "C$OMP DO PRIVATE(J)");
    assert_eq!(
        outer_do.block.as_ref().map(|b| text(&file, b)).as_deref(),
        Some(
            "      DO 300 I = 1, N\n      DO 300 J = 1, N\n         A(I, J) = A(I, J) * 2\n  300 CONTINUE\n"
        )
    );
    assert_eq!(
        outer_do
            .end_site
            .map(|e| model.sites[e].directive.name.as_str()),
        Some("end do")
    );
}

#[test]
fn conditional_lines_and_jumping_logical_ifs_are_handed_to_the_emitter() {
    let source = "\
subroutine s(n)
  integer :: n
  !$ integer :: t
!P$ call pomp_only()
!$pomp inst begin(r)
  if (n > 0 .and. &
      n < 9) return
  !$ if (n == 5) go to 10
  if (n) 10, 10, 10
!$pomp inst end(r)
10 continue
end subroutine
";
    let (file, model) = free(source);
    no_errors(&file, &model);
    let lines_from = |offsets: &[usize]| -> Vec<String> {
        (offsets.iter())
            .map(|&at| {
                text(&file, &(at..file.end_of_line(at)))
                    .trim_end()
                    .to_string()
            })
            .collect()
    };
    let fortran = &model.fortran;
    assert_eq!(
        lines_from(&fortran.openmp_sentinels),
        ["!$ integer :: t", "!$ if (n == 5) go to 10"]
    );
    assert_eq!(
        lines_from(&fortran.pomp_sentinels),
        ["!P$ call pomp_only()"]
    );
    let ifs: Vec<(String, String)> = (fortran.logical_ifs.iter())
        .map(|l| {
            let statement = text(&file, &(l.start..l.action));
            let action = text(&file, &(l.action..file.end_of_line(l.action)));
            (statement, action.trim_end().to_string())
        })
        .collect();
    assert_eq!(
        ifs,
        [
            (
                "if (n > 0 .and. &\n      n < 9) ".to_string(),
                "return".to_string()
            ),
            ("if (n == 5) ".to_string(), "go to 10".to_string()),
        ]
    );
    // The arithmetic `if` jumps as a whole.
    let exits: Vec<String> = model.exits.iter().map(|e| text(&file, &e.span)).collect();
    assert_eq!(
        exits,
        [
            "if (n > 0 .and. &\n      n < 9) return",
            "if (n == 5) go to 10",
            "if (n) 10, 10, 10"
        ]
    );
    let line = |needle: &str| {
        let at = source.find(needle).unwrap();
        file.start_of_line(at)..file.end_of_line(at)
    };
    assert_eq!(fortran.openmp_sentinel(&line("if (n == 5)")), Some(2));
    assert_eq!(fortran.openmp_sentinel(&line("if (n) 10")), None);

    let fixed_source = "\
      subroutine s(n)
      integer n
!$pomp inst begin(r)
      IF (N .LT. 0)
C     a comment line between
     &   RETURN
c$    if (n .eq. 1) return
!$pomp inst end(r)
      end
";
    let (file, model) = fixed(fixed_source);
    no_errors(&file, &model);
    let actions: Vec<String> = (model.fortran.logical_ifs.iter())
        .map(|l| text(&file, &(l.action..file.end_of_line(l.action))))
        .collect();
    assert_eq!(actions, ["RETURN\n", "return\n"]);
    let sentinels: Vec<String> = (model.fortran.openmp_sentinels.iter())
        .map(|&at| text(&file, &(at..at + 2)))
        .collect();
    assert_eq!(sentinels, ["c$"]);
}

/// Each loop directive's name with the variables its loops assign.
fn loop_variables(model: &Model) -> Vec<(String, Vec<String>)> {
    (model.sites.iter())
        .filter(|s| !s.loop_variables.is_empty() || s.block.is_some())
        .map(|s| (s.directive.name.clone(), s.loop_variables.clone()))
        .collect()
}

#[test]
fn loop_variables_come_from_the_loop_controls_of_the_nest() {
    let source = "\
subroutine s(a, n, m)
  integer :: n, m, i3, j, k, a(n, m)
!$omp parallel do collapse(2)
  do i3 = 0, n - 1 ! rows
!$omp tile sizes(2)
    do 10 , J = f(1, 2), &
        m
      a(i3 + 1, j) = 1
10  continue
  end do
!$omp do
  DO WHILE (k < 3)
    k = k + 1
  END DO
!$omp simd
  do concurrent (k = 1:n)
    a(k, 1) = 0
  end do
end subroutine
";
    let (file, model) = free(source);
    no_errors(&file, &model);
    assert_eq!(
        loop_variables(&model),
        [
            (
                "parallel do".to_string(),
                vec!["i3".to_string(), "j".to_string()]
            ),
            ("tile".to_string(), vec!["j".to_string()]),
            ("do".to_string(), vec![]),
            ("simd".to_string(), vec![]),
        ]
    );

    let fixed_source = "\
      SUBROUTINE S(A, N, M)
      INTEGER N, M, I, J, A(N, M)
C$OMP PARALLEL DO COLLAPSE(2)
      DO 300 I = 1, N
C inner loop
      DO 300 J = 1,
     &  M
  300 A(I, J) = 0
      END
";
    let (file, model) = fixed(fixed_source);
    no_errors(&file, &model);
    assert_eq!(
        loop_variables(&model),
        [(
            "parallel do".to_string(),
            vec!["i".to_string(), "j".to_string()]
        )]
    );
}

fn preprocessed(source: &str) -> (SourceFile, Model) {
    let file = SourceFile::new(
        "test.F90",
        source.as_bytes().to_vec(),
        Language::FortranFree,
    );
    let model = TreeSitterFortran.analyse(&file);
    (file, model)
}

#[test]
fn macro_statements_are_statements_in_preprocessed_files() {
    let source = "\
program p
  integer :: n
  n = 0
  MY_TEST_MACRO

!$omp parallel master
  n = n + 1
!$omp end parallel master
  MY_CHECK(n == 1, \"n)\")
end program p
";
    let (file, model) = preprocessed(source);
    no_errors(&file, &model);
    assert!(model.diagnostics.is_empty(), "{:?}", model.diagnostics);
    assert_eq!(
        sites(&file, &model),
        vec![
            (
                "parallel master".to_string(),
                "!$omp parallel master".to_string(),
                Some("  n = n + 1\n".to_string()),
                Some("end parallel master".to_string())
            ),
            (
                "end parallel master".to_string(),
                "!$omp end parallel master".to_string(),
                None,
                None
            ),
        ]
    );
    // Without preprocessing, such a line is no Fortran.
    let (_, model) = free(source);
    assert!(!model.diagnostics.is_empty());
}

#[test]
fn keyword_statements_are_not_macros() {
    let (file, model) = preprocessed(
        "subroutine s(u)\n  integer :: u\n  rewind(u)\n  continue\n!$omp parallel\n  flush(u)\n!$omp end parallel\nend subroutine s\n",
    );
    no_errors(&file, &model);
    assert!(model.diagnostics.is_empty(), "{:?}", model.diagnostics);
}

#[test]
fn a_macro_statement_is_no_directive_block() {
    let (file, model) = preprocessed(
        "program p\n  integer :: i, x\n!$omp parallel do\n  MY_LOOP\n!$omp atomic\n  MY_INC(x)\nend program p\n",
    );
    let text = pomp_core::diagnostics::render(&file, &model.diagnostics, false);
    assert!(
        text.contains("found the macro statement `MY_LOOP`"),
        "{text}"
    );
    assert!(
        text.contains("found the macro statement `MY_INC(x)`"),
        "{text}"
    );
}

#[test]
fn begin_metadirective_is_closed_by_its_end_directive() {
    let (file, model) = free(
        "program p\n  integer :: i, t\n!$omp begin metadirective default(parallel do)\n  do i = 1, 4\n    t = i\n  end do\n!$omp end metadirective\nend program p\n",
    );
    no_errors(&file, &model);
    let sites = sites(&file, &model);
    assert_eq!(sites[0].0, "begin metadirective");
    assert_eq!(
        sites[0].2.as_deref(),
        Some("  do i = 1, 4\n    t = i\n  end do\n")
    );
    assert_eq!(sites[0].3.as_deref(), Some("end metadirective"));
}

#[test]
fn collapse_takes_loops_with_intervening_code() {
    let (file, model) = free(
        "subroutine s(a)\n  real :: a(4, 4)\n  integer :: i, j, k\n  real :: t\n!$omp do collapse(2)\n  do i = 1, 4\n    t = i\n    do j = 1, 4\n      a(i, j) = t\n    end do\n    t = 0\n  end do\nend subroutine\n",
    );
    no_errors(&file, &model);
    assert_eq!(model.sites[0].loop_variables, ["i", "j"]);
    // Two loops in the body are no loop nest.
    let (_, model) = free(
        "subroutine s(a)\n  real :: a(4, 4)\n  integer :: i, j\n!$omp do collapse(2)\n  do i = 1, 4\n    do j = 1, 4\n      a(i, j) = 0\n    end do\n    do j = 1, 4\n      a(i, j) = 1\n    end do\n  end do\nend subroutine\n",
    );
    assert!(model.has_errors());
}

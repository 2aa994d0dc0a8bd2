//! Parser tests on directives as they are written in real programs.

use super::*;
use crate::language::Language;

/// A directive the table knows entirely.
fn known(text: &str, language: Language) -> Directive {
    let parsed = parse_directive(text, Sentinel::Omp, language)
        .unwrap_or_else(|e| panic!("`{text}`: {} at {:?}", e.message, e.span));
    assert!(parsed.unknown.is_empty(), "`{text}`: {:?}", parsed.unknown);
    parsed.directive
}

fn c(text: &str) -> Directive {
    known(text, Language::C)
}

fn fortran(text: &str) -> Directive {
    known(text, Language::FortranFree)
}

fn c_error(text: &str) -> DirectiveError {
    match parse_directive(text, Sentinel::Omp, Language::C) {
        Ok(d) => panic!("`{text}` parsed as {d:?}"),
        Err(e) => e,
    }
}

/// The one unknown clause of a directive that parses.
fn c_unknown_clause(text: &str) -> (Directive, DirectiveError) {
    let mut parsed = parse_directive(text, Sentinel::Omp, Language::C)
        .unwrap_or_else(|e| panic!("`{text}`: {} at {:?}", e.message, e.span));
    assert_eq!(parsed.unknown.len(), 1, "`{text}`: {:?}", parsed.unknown);
    let unknown = parsed.unknown.remove(0);
    assert_eq!(unknown.problem, Problem::Unknown);
    (parsed.directive, unknown)
}

fn clause<'d>(d: &'d Directive, name: &str) -> &'d str {
    d.clause(name)
        .and_then(|c| c.args.as_deref())
        .unwrap_or_else(|| panic!("no `{name}(...)` in {d:?}"))
}

#[test]
fn combined_construct_with_modifiers() {
    let text = "parallel for simd collapse(2) reduction(inscan, +: x) \
                lastprivate(conditional: y) if(parallel: n > 8) \
                allocate(omp_default_mem_alloc: z)";
    let d = c(text);
    assert_eq!(d.name(), "parallel for simd");
    assert_eq!(d.sentinel, Sentinel::Omp);
    assert_eq!(d.argument, None);
    let names: Vec<&str> = d.clauses.iter().map(|c| &*c.name).collect();
    assert_eq!(
        names,
        ["collapse", "reduction", "lastprivate", "if", "allocate"]
    );
    assert_eq!(clause(&d, "collapse"), "2");
    assert_eq!(clause(&d, "if"), "parallel: n > 8");

    let reduction = d.clause("reduction").unwrap();
    assert_eq!(reduction.modifier_split(), (Some("inscan, +"), "x"));
    assert_eq!(reduction.list_items(), ["x"]);
    let lastprivate = d.clause("lastprivate").unwrap();
    assert_eq!(lastprivate.modifier_split(), (Some("conditional"), "y"));
    assert_eq!(lastprivate.list_items(), ["y"]);
    assert_eq!(
        d.clause("if").unwrap().modifier_split(),
        (Some("parallel"), "n > 8")
    );
    assert_eq!(d.clause("allocate").unwrap().list_items(), ["z"]);
    assert!(d.clause("collapse").unwrap().list_items().is_empty());
    assert_eq!(d.spec().leaves, ["parallel", "for", "simd"]);
}

#[test]
fn critical_name_and_hint() {
    let d = c("critical(name) hint(omp_sync_hint_none)");
    assert_eq!(d.name(), "critical");
    assert_eq!(d.argument.as_deref(), Some("name"));
    assert_eq!(d.clauses, [Clause::new("hint", Some("omp_sync_hint_none"))]);
    assert_eq!(d.render(), "critical(name) hint(omp_sync_hint_none)");
    let unnamed = c("critical");
    assert_eq!((unnamed.name(), unnamed.argument), ("critical", None));
}

#[test]
fn comments_count_as_white_space_in_c() {
    let d = c("parallel/* the team */for // the loop");
    assert_eq!(d.name(), "parallel for");
    assert!(d.clauses.is_empty());
    let d = c("parallel /* a */ private( a /* not b */ , c) /**/ shared(d)");
    assert_eq!(d.name(), "parallel");
    assert_eq!(d.clause("private").unwrap().list_items(), ["a", "c"]);
    assert_eq!(clause(&d, "shared"), "d");
    let d = c("for schedule(static /* ) */)");
    assert_eq!(clause(&d, "schedule"), "static /* ) */");
}

#[test]
fn fortran_comments_and_case() {
    let d = fortran("PARALLEL DO PRIVATE(I, J) ! REDUCTION(+:S) is commented out");
    assert_eq!(d.name(), "parallel do");
    assert_eq!(d.clauses, [Clause::new("private", Some("I, J"))]);
    assert_eq!(d.clause("private").unwrap().list_items(), ["I", "J"]);
    let d = fortran("single copyprivate(/blk/, x)");
    assert_eq!(
        d.clause("copyprivate").unwrap().list_items(),
        ["/blk/", "x"]
    );
    assert_eq!(fortran("Do Schedule(Dynamic, 4)").name(), "do");
}

#[test]
fn fortran_end_directives() {
    let d = fortran("END PARALLEL DO");
    assert_eq!(d.name(), "end parallel do");
    assert_eq!(d.spec().ends.as_deref(), Some("parallel do"));
    assert_eq!(d.spec().association, Association::End);
    assert_eq!(fortran("end do nowait").clauses, [Clause::bare("nowait")]);
    let d = fortran("end single copyprivate(a) nowait");
    assert_eq!(d.name(), "end single");
    assert_eq!(d.clauses.len(), 2);
    assert_eq!(
        fortran("end critical (lock1)").argument.as_deref(),
        Some("lock1")
    );
    let err = parse_directive(
        "end parallel do nowait",
        Sentinel::Omp,
        Language::FortranFree,
    )
    .unwrap_err();
    assert_eq!(err.message, "`nowait` is not a clause of `end parallel do`");
    assert_eq!(err.span, 16..22);
}

#[test]
fn fortran_names_without_blanks() {
    assert_eq!(fortran("enddo").name(), "end do");
    assert_eq!(fortran("paralleldo private(i)").name(), "parallel do");
    assert_eq!(fortran("endparallel do").name(), "end parallel do");
    assert_eq!(fortran("END PARALLELDO").name(), "end parallel do");
    assert_eq!(fortran("endparalleldosimd").name(), "end parallel do simd");
    let fixed = known("PARALLELDO", Language::FortranFixed);
    assert_eq!(fixed.name(), "parallel do");
    assert_eq!(fixed.render(), "parallel do");
    // C spells directives with blanks, in lowercase.
    assert!(parse_directive("parallelfor", Sentinel::Omp, Language::C).is_err());
    assert!(parse_directive("PARALLEL", Sentinel::Omp, Language::C).is_err());
}

#[test]
fn atomic_clauses() {
    let d = c("atomic capture");
    assert_eq!(d.name(), "atomic");
    assert_eq!(d.clauses, [Clause::bare("capture")]);
    let d = c("atomic update seq_cst");
    assert_eq!(d.name(), "atomic");
    let names: Vec<&str> = d.clauses.iter().map(|c| &*c.name).collect();
    assert_eq!(names, ["update", "seq_cst"]);
    assert_eq!(fortran("end atomic").name(), "end atomic");
}

#[test]
fn ordered_is_standalone_with_a_dependence() {
    let d = c("ordered depend(source)");
    assert_eq!(d.name(), "ordered standalone");
    assert_eq!(d.spec().association, Association::Standalone);
    assert_eq!(d.render(), "ordered depend(source)");
    assert!(d.clause("depend").unwrap().list_items().is_empty());
    let d = c("ordered doacross(sink: i - 1, j)");
    assert_eq!(d.name(), "ordered standalone");
    assert!(d.clause("doacross").unwrap().list_items().is_empty());
    let block = c("ordered simd");
    assert_eq!(block.name(), "ordered");
    assert_eq!(block.spec().association, Association::Block);
    let err = c_error("ordered threads depend(source)");
    assert_eq!(err.message, "`threads` is not a clause of `ordered`");
}

#[test]
fn cancellation_construct_types() {
    let d = c("cancel for if(cancel: err)");
    assert_eq!(d.name(), "cancel");
    assert_eq!(d.clauses[0], Clause::bare("for"));
    assert_eq!(clause(&d, "if"), "cancel: err");
    let d = c("cancellation point parallel");
    assert_eq!(d.name(), "cancellation point");
    assert_eq!(d.clauses, [Clause::bare("parallel")]);
    assert_eq!(fortran("CANCEL DO").clauses, [Clause::bare("do")]);
    let err = c_error("cancel do");
    assert!(err.message.contains("`do`"), "{}", err.message);
    assert_eq!(err.span, 7..9);
}

#[test]
fn declare_reduction_keeps_its_specifier_whole() {
    let text = "declare reduction(merge : std::vector<int> : \
                omp_out.insert(omp_out.end(), omp_in.begin(), omp_in.end()))";
    let d = known(text, Language::Cpp);
    assert_eq!(d.name(), "declare reduction");
    assert_eq!(
        d.argument.as_deref(),
        Some("merge : std::vector<int> : omp_out.insert(omp_out.end(), omp_in.begin(), omp_in.end())")
    );
    assert!(d.clauses.is_empty());
    assert_eq!(known(&d.render(), Language::Cpp), d);
    let d = c("declare reduction(plus: int: omp_out += omp_in) initializer(omp_priv = 0)");
    assert_eq!(clause(&d, "initializer"), "omp_priv = 0");
}

#[test]
fn pomp_directives() {
    let d = parse_directive("inst begin(foo)", Sentinel::Pomp, Language::C)
        .unwrap()
        .directive;
    assert_eq!(d.name(), "inst begin");
    assert_eq!(d.sentinel, Sentinel::Pomp);
    assert_eq!(d.argument.as_deref(), Some("foo"));
    assert_eq!(d.spec().region_type.as_deref(), Some("region"));
    let d = c("inst end ( foo )");
    assert_eq!((d.name(), d.argument.as_deref()), ("inst end", Some("foo")));
    for (text, name) in [
        ("inst init", "inst init"),
        ("inst finalize", "inst finalize"),
        ("INST ON", "inst on"),
        ("inst off", "inst off"),
        ("noinstrument", "noinstrument"),
        ("instrument", "instrument"),
    ] {
        let d = parse_directive(text, Sentinel::Pomp, Language::FortranFree)
            .unwrap()
            .directive;
        assert_eq!(d.name(), name);
        assert!(d.spec().pomp);
    }
    // The compiler ignores `#pragma pomp` lines: one pomp does not know is
    // left as written, not refused.
    let err = parse_directive("parallel", Sentinel::Pomp, Language::C).unwrap_err();
    assert_eq!(err.message, "`parallel` is not a pomp directive");
    assert_eq!(err.problem, Problem::Unknown);
    let err = parse_directive("inst begin", Sentinel::Pomp, Language::C).unwrap_err();
    assert_eq!(err.span, 0..10);
}

#[test]
fn unknown_directive_suggests_the_closest_name() {
    let err = c_error("paralel for private(i)");
    assert_eq!(err.message, "unknown OpenMP directive `paralel`");
    assert_eq!(err.note.as_deref(), Some("did you mean `parallel for`?"));
    assert_eq!(err.problem, Problem::Unknown);
    assert_eq!(err.span, 0..7);
    let err = c_error("  bogus");
    assert_eq!(err.message, "unknown OpenMP directive `bogus`");
    assert_eq!(err.note, None);
    assert_eq!(err.span, 2..7);
    // Words that begin longer names are part of the name reported.
    let err = parse_directive("END FOO", Sentinel::Omp, Language::FortranFree).unwrap_err();
    assert_eq!(err.message, "unknown OpenMP directive `END FOO`");
    assert_eq!(err.span, 0..7);
    let err = c_error("declare frobnicate(f)");
    assert_eq!(err.message, "unknown OpenMP directive `declare frobnicate`");
    // A directive of the other language is not unknown: compilers reject it.
    let err = c_error("parallel do");
    assert!(err.message.contains("Fortran"), "{}", err.message);
    assert_eq!(err.problem, Problem::Invalid);
    assert_eq!(err.span, 0..11);
    let err = c_error("(x)");
    assert_eq!(err.message, "expected a directive name");
    assert_eq!(err.problem, Problem::Invalid);
}

#[test]
fn clause_errors_point_at_the_clause() {
    let err = c_error("single nowait schedule(static)");
    assert_eq!(err.message, "`schedule` is not a clause of `single`");
    assert_eq!(err.problem, Problem::Invalid);
    assert_eq!(err.span, 14..22);
    // A near miss of a clause is a typo, refused; another word may be a
    // macro the compiler expands, and is kept with a warning.
    let err = c_error("parallel privte(a)");
    assert_eq!(err.message, "unknown clause `privte`");
    assert_eq!(err.note.as_deref(), Some("did you mean `private`?"));
    assert_eq!(err.span, 9..15);
    let err = c_error("parallel fro");
    assert_eq!(err.message, "unknown clause `fro`");
    assert_eq!(err.note.as_deref(), Some("did you mean `parallel for`?"));
    let (d, unknown) = c_unknown_clause("parallel MY_CLAUSES");
    assert_eq!(unknown.message, "unknown clause `MY_CLAUSES`");
    assert_eq!(d.clauses, [Clause::bare("MY_CLAUSES")]);
    let err = c_error("for private");
    assert_eq!(err.message, "`private` needs a parenthesised list");
    let err = c_error("barrier(x)");
    assert_eq!(err.span, 7..10);
    let err = c_error("threadprivate");
    assert_eq!(
        err.message,
        "`threadprivate` needs a parenthesised argument after its name"
    );
}

#[test]
fn bracket_and_comma_errors() {
    let err = c_error("parallel private(a, b");
    assert_eq!(
        (err.message.as_str(), err.span.clone()),
        ("unclosed `(`", 16..17)
    );
    let err = c_error("parallel private(a[0)");
    assert_eq!(err.span, 20..21);
    let err = c_error("parallel private(a))");
    assert_eq!(
        (err.message.as_str(), err.span.clone()),
        ("unbalanced `)`", 19..20)
    );
    let err = c_error("parallel shared(a) // private(b)\n )");
    assert!(err.message.contains(')'), "{}", err.message);
    assert_eq!(c("parallel , shared(a)").clauses.len(), 1);
    let err = c_error("parallel shared(a),, private(b)");
    assert_eq!(err.span, 19..20);
    let err = c_error("parallel shared(a),");
    assert_eq!(err.span, 18..19);
    let err = c_error("critical(\"x)\"");
    assert_eq!(err.message, "unclosed `(`");
    let fortran_comment = parse_directive(
        "parallel private(a ! b)",
        Sentinel::Omp,
        Language::FortranFree,
    );
    assert_eq!(fortran_comment.unwrap_err().message, "unclosed `(`");
}

#[test]
fn commas_between_clauses_and_strings_in_arguments() {
    let d = c("task, if(n > 10), untied,depend(in: a[0:n], b)");
    let names: Vec<&str> = d.clauses.iter().map(|c| &*c.name).collect();
    assert_eq!(names, ["if", "untied", "depend"]);
    assert_eq!(d.clause("depend").unwrap().list_items(), ["a", "b"]);
    let d = c("error at(execution) severity(warning) message(\"bad ) value: 1\")");
    assert_eq!(clause(&d, "message"), "\"bad ) value: 1\"");
    let d = fortran("error message('it''s ) bad')");
    assert_eq!(clause(&d, "message"), "'it''s ) bad'");
}

#[test]
fn renders_to_equivalent_text() {
    for text in [
        "parallel for simd collapse(2) reduction(inscan, +: x) if(parallel: n > 8)",
        "target teams distribute parallel for simd map(tofrom: a[0:n]) num_teams(4) thread_limit(64)",
        "flush(a, b)",
        "depobj(o) depend(inout: x)",
        "declare mapper(custom: struct S s) map(s.x, s.y[0:n])",
        "taskloop simd grainsize(strict: 8) nogroup",
        "allocate(a, b) allocator(omp_high_bw_mem_alloc)",
        "metadirective when(device = {arch(\"nvptx\")}: teams loop) otherwise(parallel for)",
    ] {
        let d = c(text);
        let again = c(&d.render());
        assert_eq!(again, d, "{text}");
        assert_eq!(d.render().split_whitespace().collect::<String>(),
            text.split_whitespace().collect::<String>());
    }
    let messy = c("parallel   for /*x*/ private ( i ) ,schedule( static ,4 )");
    assert_eq!(
        messy.render(),
        "parallel for private(i) schedule(static ,4)"
    );
}

#[test]
fn many_directives_parse() {
    for text in [
        "sections",
        "section",
        "single copyprivate(x)",
        "scope reduction(+: s) nowait",
        "master",
        "masked filter(2)",
        "barrier",
        "flush acq_rel",
        "taskwait depend(in: x) nowait",
        "taskyield",
        "taskgroup task_reduction(+: s)",
        "taskloop num_tasks(4)",
        "simd safelen(8)",
        "for simd linear(i: 1)",
        "declare simd uniform(a) linear(val(i): 1) notinbranch",
        "loop bind(thread)",
        "teams num_teams(2)",
        "distribute dist_schedule(static)",
        "target map(to: a) nowait",
        "target data map(a) use_device_addr(a)",
        "target enter data map(to: a)",
        "target exit data map(from: a)",
        "target update to(a)",
        "declare target enter(f) device_type(host)",
        "begin declare target indirect",
        "end declare target",
        "declare variant(base: variant) match(device = {kind(gpu)})",
        "begin declare variant match(construct = {parallel})",
        "end declare variant",
        "begin metadirective when(user = {condition(n > 9)}: parallel)",
        "end metadirective",
        "requires unified_shared_memory",
        "assume holds(n > 0)",
        "assumes no_openmp",
        "begin assumes no_parallelism",
        "end assumes",
        "nothing",
        "error at(compilation)",
        "threadprivate(a, b)",
        "scan inclusive(s)",
        "tile sizes(4, 4)",
        "unroll partial(2)",
        "interop init(targetsync: obj) nowait",
        "dispatch novariants(1)",
        "depobj(o) destroy",
        "parallel sections",
        "parallel loop",
        "parallel masked filter(0)",
        "parallel master",
        "parallel masked taskloop simd",
        "masked taskloop",
        "master taskloop simd",
        "teams distribute parallel for simd",
        "target parallel for",
        "target teams loop",
        "target simd",
        "distribute parallel for",
        "teams loop",
    ] {
        let d = c(text);
        assert!(
            text.starts_with(d.spec().spelling()),
            "{text} parsed as {}",
            d.name()
        );
        assert!(d.spec().is_for(Language::C));
    }
    for text in [
        "workshare",
        "end workshare nowait",
        "parallel workshare",
        "end parallel workshare",
        "allocators allocate(a)",
        "end allocators",
        "do simd",
        "end do simd nowait",
        "distribute parallel do simd",
        "end target teams distribute parallel do simd",
        "end taskloop",
        "end masked",
        "end scope nowait",
        "end loop",
        "end parallel loop",
        "end parallel sections",
        "end parallel masked",
        "end parallel master",
        "end simd",
        "end task",
        "end taskgroup",
        "end ordered",
        "end target data",
        "end teams",
        "declare simd(f) uniform(x)",
        "declare target(f)",
    ] {
        let d = fortran(text);
        assert!(d.spec().is_for(Language::FortranFree), "{text}");
    }
}

#[test]
fn list_items_reduce_to_base_names() {
    let items =
        |name: &str, args: &str| Clause::new(name.to_string(), Some(args.to_string())).list_items();
    assert_eq!(
        items("private", "a[0:n], s.x, p->y, (q)"),
        ["a", "s", "p", "q"]
    );
    assert_eq!(
        items("map", "always, tofrom: a[i][0:n], ([n][m])ptr"),
        ["a", "ptr"]
    );
    assert_eq!(items("linear", "val(x), ref(y), z: 2"), ["x", "y", "z"]);
    assert_eq!(items("linear", "i, j: step(2), val"), ["i", "j"]);
    assert_eq!(items("aligned", "p, q: 64"), ["p", "q"]);
    assert_eq!(items("reduction", "::ns::op: x, y"), ["x", "y"]);
    assert_eq!(
        items("shared", "ns::counter, this->v"),
        ["ns::counter", "this"]
    );
    assert_eq!(items("firstprivate", "s%x, a(1:n)"), ["s", "a"]);
    assert_eq!(items("depend", "iterator(it = 0:n), in: a[it]"), ["a"]);
    assert_eq!(items("reduction", "+: x"), ["x"]);
    assert!(items("schedule", "static").is_empty());
    assert!(Clause::bare("private").list_items().is_empty());
}

#[test]
fn top_level_colon_ignores_nested_and_scoped_colons() {
    assert_eq!(top_level_colon("parallel: n > 8"), Some(8));
    assert_eq!(top_level_colon("a[0:n]"), None);
    assert_eq!(top_level_colon("std::plus<int>"), None);
    assert_eq!(top_level_colon("std::max: x"), Some(8));
    assert_eq!(top_level_colon("c ? a : b"), None);
    assert_eq!(top_level_colon("c ? a : b : x"), Some(10));
    assert_eq!(top_level_colon("iterator(i = 0:n), in: x"), Some(21));
    assert_eq!(top_level_colon("\"a:b\""), None);
    assert_eq!(top_level_colon("x"), None);
}

#[test]
fn declare_target_without_clauses_opens_a_region_in_c() {
    let d = c("declare target");
    assert_eq!(d.association(Language::C), Association::BeginDeclarative);
    let d = c("declare target enter(f)");
    assert_eq!(d.association(Language::C), Association::Declarative);
    let d = fortran("declare target");
    assert_eq!(
        d.association(Language::FortranFree),
        Association::Declarative
    );
    assert_eq!(
        c("end declare target").spec().ends.as_deref(),
        Some("begin declare target")
    );
}

#[test]
fn fortran_names_stay_unambiguous_without_blanks() {
    let mut seen = std::collections::HashMap::new();
    for d in table().directive.iter().filter(|d| d.form_of.is_none()) {
        for spelling in d.spellings() {
            if let Some(other) = seen.insert(spelling.replace(' ', ""), spelling) {
                panic!("`{other}` and `{spelling}` read the same without blanks");
            }
        }
    }
    assert!(seen.len() > 150);
}

#[test]
fn split_top_level_keeps_nested_commas() {
    assert_eq!(
        split_top_level("a[f(1, 2)], b, \"x,y\", {1, 2}"),
        ["a[f(1, 2)]", " b", " \"x,y\"", " {1, 2}"]
    );
    assert_eq!(split_top_level("x"), ["x"]);
}

// ---------------------------------------------------------------------
// OpenMP 6.0

/// The table entry of `name`, which must exist.
fn spec(name: &str) -> &'static DirectiveSpec {
    table()
        .directive(name)
        .unwrap_or_else(|| panic!("no `{name}` in the table"))
}

#[test]
fn loop_transformations_of_openmp_6() {
    for (text, name, clause) in [
        ("tile sizes(4, 8)", "tile", "sizes"),
        ("unroll partial(4)", "unroll", "partial"),
        ("reverse", "reverse", ""),
        (
            "interchange permutation(2, 1)",
            "interchange",
            "permutation",
        ),
        ("split counts(4, omp_fill)", "split", "counts"),
        ("stripe sizes(4)", "stripe", "sizes"),
    ] {
        for d in [c(text), fortran(text)] {
            assert_eq!(d.name(), name);
            assert_eq!(d.spec().leaves, [name]);
            assert_eq!(d.spec().association, Association::Loop, "{name}");
            assert!(d.spec().loop_transformation, "{name}");
            assert!(d.spec().end_optional, "{name}");
            if !clause.is_empty() {
                assert!(d.has_clause(clause), "{text}");
            }
        }
        assert_eq!(
            fortran(&format!("end {name}")).spec().ends.as_deref(),
            Some(name)
        );
    }
    // `fuse` applies to a loop sequence: a compound statement in C, the
    // loops up to its required end directive in Fortran.
    let fuse = c("fuse looprange(1, 2)");
    assert_eq!(fuse.spec().association, Association::Block);
    assert!(fuse.spec().loop_transformation && !fuse.spec().end_optional);
    assert_eq!(fortran("end fuse").spec().ends.as_deref(), Some("fuse"));
    // A transformation's clauses are its own.
    assert_eq!(
        c_error("reverse looprange(1, 1)").message,
        "`looprange` is not a clause of `reverse`"
    );
    assert_eq!(
        c_error("stripe counts(4)").message,
        "`counts` is not a clause of `stripe`"
    );
}

#[test]
fn apply_clauses_hold_nested_loop_transformations() {
    let text = "tile sizes(10) apply(intratile: unroll partial(2) apply(reverse))";
    let d = c(text);
    assert_eq!(d.name(), "tile");
    assert_eq!(
        clause(&d, "apply"),
        "intratile: unroll partial(2) apply(reverse)"
    );
    let apply = parse_apply(clause(&d, "apply"), Language::C).unwrap();
    assert_eq!(apply.modifier.as_deref(), Some("intratile"));
    assert_eq!(apply.directives.len(), 1);
    let unroll = &apply.directives[0];
    assert_eq!(unroll.name(), "unroll");
    assert_eq!(
        unroll.clauses,
        [
            Clause::new("partial", Some("2")),
            Clause::new("apply", Some("reverse"))
        ]
    );
    let inner = parse_apply(clause(unroll, "apply"), Language::C).unwrap();
    assert_eq!(inner.modifier, None);
    assert_eq!(inner.directives[0].name(), "reverse");
    assert_eq!(d.render(), text);

    // One directive per generated loop, `nothing` leaving one alone.
    let d = c(
        "tile sizes(4,4) apply(grid: interchange,nothing) apply(intratile: nothing,interchange)",
    );
    let applies: Vec<Apply> = d
        .clauses
        .iter()
        .filter(|c| c.name == "apply")
        .map(|c| parse_apply(c.args.as_deref().unwrap(), Language::C).unwrap())
        .collect();
    let names = |a: &Apply| a.directives.iter().map(|d| d.name()).collect::<Vec<_>>();
    assert_eq!(names(&applies[0]), ["interchange", "nothing"]);
    assert_eq!(names(&applies[1]), ["nothing", "interchange"]);
    assert_eq!(applies[1].modifier.as_deref(), Some("intratile"));

    // Fortran: an indexed modifier, several clauses, any case.
    let d = fortran("TILE SIZES(4,5) APPLY(GRID(1): REVERSE) APPLY(INTRATILE(2): UNROLL)");
    let first = parse_apply(clause(&d, "apply"), Language::FortranFree).unwrap();
    assert_eq!(first.modifier.as_deref(), Some("GRID(1)"));
    assert_eq!(first.directives[0].name(), "reverse");
    let d = fortran("fuse apply(fused: tile sizes(2) apply(grid: reverse))");
    assert_eq!(d.name(), "fuse");
}

#[test]
fn apply_names_only_loop_transformations() {
    let err = c_error("tile sizes(4) apply(grid: parallel for)");
    assert_eq!(
        err.message,
        "`parallel for` transforms no loops and cannot be applied to a generated loop"
    );
    assert_eq!(err.problem, Problem::Invalid);
    assert_eq!(err.span, 26..38);
    let err = c_error("unroll partial(2) apply(reverse sizes(4))");
    assert_eq!(err.message, "`sizes` is not a clause of `reverse`");
    assert_eq!(err.span, 32..37);
    // A transformation of a newer specification is left to the compiler.
    let (d, unknown) = c_unknown_clause("tile sizes(4) apply(grid: flatten)");
    assert_eq!(unknown.message, "unknown OpenMP directive `flatten`");
    assert_eq!(unknown.span, 26..33);
    assert_eq!(clause(&d, "apply"), "grid: flatten");
    let err = c_error("tile sizes(4) apply(grid: )");
    assert_eq!(
        err.message,
        "expected a loop-transforming directive in `apply`"
    );
}

#[test]
fn tasking_directives_of_openmp_6() {
    let d = c("task_iteration depend(inout: A[i]) depend(in: A[i-1]) if((i % 4) == 0)");
    assert_eq!(d.name(), "task_iteration");
    assert_eq!(d.spec().association, Association::Subsidiary);
    assert_eq!(d.spec().leaves, ["task_iteration"]);
    assert_eq!(d.clauses.len(), 3);
    assert_eq!(
        c_error("task_iteration private(x)").message,
        "`private` is not a clause of `task_iteration`"
    );
    let d = c("taskgraph graph_id(7) graph_reset(done) if(n > 4) nogroup");
    assert_eq!(d.spec().association, Association::Block);
    assert_eq!(
        fortran("end taskgraph").spec().ends.as_deref(),
        Some("taskgraph")
    );
    let d = c("taskloop grainsize(strict: 4) nogroup induction(step(2), +: j) replayable transparent threadset(omp_team)");
    assert_eq!(d.clause("induction").unwrap().list_items(), ["j"]);
    for text in [
        "task replayable(1) transparent(omp_impex) threadset(omp_pool)",
        "taskwait replayable",
        "target nowait replayable default(none)",
        "target update to(a) replayable",
        "target enter data map(to: a) replayable(0)",
    ] {
        c(text);
    }
}

#[test]
fn device_and_data_directives_of_openmp_6() {
    // workdistribute is Fortran's, alone and under teams.
    for (text, leaves) in [
        ("workdistribute", &["workdistribute"][..]),
        (
            "teams workdistribute num_teams(4)",
            &["teams", "workdistribute"],
        ),
        (
            "target teams workdistribute map(tofrom: a)",
            &["target", "teams", "workdistribute"],
        ),
    ] {
        let d = fortran(text);
        assert_eq!(d.spec().leaves, leaves);
        assert_eq!(d.spec().association, Association::Block);
        let end = fortran(&format!("end {}", d.name()));
        assert_eq!(end.spec().ends.as_deref(), Some(d.name()));
    }
    assert!(c_error("workdistribute").message.contains("Fortran"));
    let d = c("target loop map(tofrom: a) collapse(2)");
    assert_eq!(d.spec().leaves, ["target", "loop"]);
    assert_eq!(
        fortran("end target loop").spec().ends.as_deref(),
        Some("target loop")
    );
    let d = c("groupprivate(a, b) device_type(nohost)");
    assert_eq!(d.spec().association, Association::Declarative);
    assert_eq!(d.argument.as_deref(), Some("a, b"));
    let d = c("declare_induction(next: T) inductor(omp_var = omp_var + omp_step) collector(omp_step * omp_idx)");
    assert_eq!(d.name(), "declare_induction");
    assert_eq!(d.clauses.len(), 2);
    for text in [
        "target data map(to: a) nowait depend(in: a)",
        "declare target enter(f) local(x)",
        "requires self_maps",
        "assume no_openmp_constructs",
        "dispatch interop(obj) nocontext(1)",
        "atomic update memscope(device)",
        "flush memscope(all)",
        "scan inclusive(x) init_complete(first)",
        "parallel num_threads(strict: 4) severity(warning) message(\"few threads\") safesync(2)",
    ] {
        c(text);
    }
}

#[test]
fn openmp_6_spellings_with_underscores_name_the_same_directives() {
    for (alias, name) in [
        ("target_data map(a)", "target data"),
        ("target_enter_data map(to: a)", "target enter data"),
        ("target_exit_data map(from: a)", "target exit data"),
        ("target_update to(a)", "target update"),
        ("cancellation_point parallel", "cancellation point"),
        ("declare_simd uniform(a)", "declare simd"),
        ("declare_target enter(f)", "declare target"),
        ("begin declare_target", "begin declare target"),
        ("end declare_target", "end declare target"),
        (
            "declare_reduction(plus: int: omp_out += omp_in)",
            "declare reduction",
        ),
        ("declare_mapper(struct S s) map(s.x)", "declare mapper"),
        (
            "declare_variant(f) match(construct = {parallel})",
            "declare variant",
        ),
        (
            "begin declare_variant match(device = {kind(gpu)})",
            "begin declare variant",
        ),
        ("end declare_variant", "end declare variant"),
    ] {
        assert_eq!(c(alias).name(), name, "{alias}");
    }
    let d = fortran("END TARGET_DATA");
    assert_eq!(d.name(), "end target data");
    assert_eq!(fortran("endtarget_data").name(), "end target data");
    assert_eq!(fortran("declare_target(f)").name(), "declare target");
    // The alias is a name of its own, never a prefix of another.
    assert!(c_error("target_datum map(a)")
        .message
        .contains("`target_datum`"));
}

#[test]
fn compound_names_the_table_lacks_are_unknown_directives() {
    let err = c_error("target parallel masked filter(0)");
    assert_eq!(
        err.message,
        "unknown OpenMP directive `target parallel masked`"
    );
    assert_eq!(err.problem, Problem::Unknown);
    assert_eq!(err.span, 0..22);
    let err = c_error("teams distribute parallel loop collapse(2)");
    assert_eq!(
        err.message,
        "unknown OpenMP directive `teams distribute parallel loop`"
    );
    let err = parse_directive(
        "END TEAMS DISTRIBUTE PARALLEL LOOP",
        Sentinel::Omp,
        Language::FortranFree,
    )
    .unwrap_err();
    assert_eq!(
        err.message,
        "unknown OpenMP directive `end teams distribute parallel loop`"
    );
    // A construct name that is a clause of the directive stays a clause.
    assert_eq!(c("cancel parallel").clauses, [Clause::bare("parallel")]);
    assert_eq!(c("ordered simd").name(), "ordered");
    assert_eq!(
        fortran("cancellation point do").name(),
        "cancellation point"
    );
}

#[test]
fn unknown_clauses_are_kept_as_written() {
    let (d, unknown) = c_unknown_clause("parallel ompx_attribute(x) private(a)");
    assert_eq!(d.name(), "parallel");
    assert_eq!(
        d.clauses,
        [
            Clause::new("ompx_attribute", Some("x")),
            Clause::new("private", Some("a"))
        ]
    );
    assert_eq!(unknown.message, "unknown clause `ompx_attribute`");
    assert_eq!(unknown.span, 9..23);
    assert_eq!(
        d.unknown_clauses().collect::<Vec<_>>(),
        [&Clause::new("ompx_attribute", Some("x"))]
    );
    assert_eq!(d.render(), "parallel ompx_attribute(x) private(a)");
    // A clause of a later specification on a known directive.
    let (d, _) = c_unknown_clause("fuse looprange(1, 2) depth(2)");
    assert_eq!(d.clause("depth").unwrap().args.as_deref(), Some("2"));
}

#[test]
fn subsidiary_and_separating_directives_are_told_apart() {
    let scan = fortran("scan inclusive(x)");
    assert_eq!(scan.name(), "scan");
    assert_eq!(scan.spec().association, Association::Subsidiary);
    assert_eq!(fortran("SCAN EXCLUSIVE(X)").name(), "scan");
    assert_eq!(c("section").spec().association, Association::Separator);
    assert_eq!(c("sections").name(), "sections");
    // No name is found inside a longer word.
    let err =
        parse_directive("scanx inclusive(x)", Sentinel::Omp, Language::FortranFree).unwrap_err();
    assert_eq!(err.message, "unknown OpenMP directive `scanx`");
    assert!(c_error("sectionsx").message.contains("`sectionsx`"));
}

#[test]
fn declaration_attributes_imply_the_declared_list() {
    let d = parse_declaration_attribute("threadprivate", Language::Cpp)
        .unwrap()
        .directive;
    assert_eq!(d.name(), "threadprivate");
    assert_eq!(d.argument, None);
    let d = parse_declaration_attribute("declare_target device_type(host)", Language::Cpp)
        .unwrap()
        .directive;
    assert_eq!(d.name(), "declare target");
    assert!(c_error("threadprivate")
        .message
        .contains("needs a parenthesised argument"));
}

#[test]
fn clauses_of_openmp_6_go_to_the_leaves_that_take_them() {
    let t = table();
    let parallel_for = spec("parallel for");
    let leaves =
        |clause: &'static str| t.leaves_accepting(parallel_for, clause).collect::<Vec<_>>();
    assert_eq!(leaves("induction"), ["for"]);
    assert_eq!(leaves("safesync"), ["parallel"]);
    assert_eq!(leaves("severity"), ["parallel"]);
    assert_eq!(
        t.clause("induction").unwrap().distribution,
        Distribution::Linear
    );
    assert!(t.clause("induction").unwrap().list && t.clause("local").unwrap().list);
    let d = c("parallel for induction(step(1), +: j) safesync message(\"m\") severity(warning)");
    assert_eq!(d.clauses.len(), 4);
    let pmt = spec("parallel masked taskloop");
    assert_eq!(
        t.leaves_accepting(pmt, "transparent").collect::<Vec<_>>(),
        ["taskloop"]
    );
    assert_eq!(
        t.leaves_accepting(spec("target teams workdistribute"), "num_teams")
            .collect::<Vec<_>>(),
        ["teams"]
    );
}

#[test]
fn the_first_value_of_a_list_clause_can_be_replaced() {
    let replace = |args: &str| {
        let (first, clause) =
            Clause::new("num_threads", Some(args.to_string())).replace_first_item("t");
        (first, clause.render())
    };
    assert_eq!(replace("n"), ("n".into(), "num_threads(t)".into()));
    assert_eq!(
        replace("strict: f(a, b), 2"),
        ("f(a, b)".into(), "num_threads(strict: t, 2)".into())
    );
    assert_eq!(
        replace("c ? 2 : 4"),
        ("c ? 2 : 4".into(), "num_threads(t)".into())
    );
}

proptest::proptest! {
    /// Counting characters only passes over names no typo could make:
    /// the answer is the edit distance's, whenever that is small enough.
    #[test]
    fn near_misses_are_those_the_edit_distance_finds(
        written in "[a-dé_ ]{0,12}",
        target in "[a-dé_ ]{0,12}",
    ) {
        let distance = strsim::osa_distance(&written, &target);
        let expected = (distance <= (target.len() / 3).max(1)).then_some(distance);
        proptest::prop_assert_eq!(super::parse::near_miss(&written, &target), expected);
    }
}

#[test]
fn misspelt_clause_arguments_are_refused_and_names_kept() {
    let err = c_error("parallel for schedule(dynamc)");
    assert_eq!(err.message, "unknown `schedule` argument `dynamc`");
    assert_eq!(err.note.as_deref(), Some("did you mean `dynamic`?"));
    assert_eq!(err.span, 22..28);
    let err = c_error("for schedule(monotnic: dynamic, 4)");
    assert_eq!(err.note.as_deref(), Some("did you mean `monotonic`?"));
    let err = c_error("parallel default(shard)");
    assert_eq!(err.note.as_deref(), Some("did you mean `shared`?"));
    let err = c_error("target map(tofrm: a)");
    assert_eq!(err.note.as_deref(), Some("did you mean `tofrom`?"));
    let err = c_error("parallel for reduction(mx: m)");
    assert_eq!(err.note.as_deref(), Some("did you mean `max`?"));
    let err = c_error("parallel for reduction(+-: m)");
    assert_eq!(err.message, "unknown `reduction` argument `+-`");
    let err = c_error("parallel for reduction(+++: m)");
    assert_eq!(
        err.message,
        "`+++` is no reduction identifier of `reduction`"
    );
    for fine in [
        "parallel for schedule(SCHEDULE_KIND)",
        "parallel for schedule(monotonic: dynamic, 4)",
        "parallel for reduction(my_sum: m)",
        "parallel for reduction(ns::sum: m)",
        "parallel for reduction(inscan, +: m)",
        "target map(always, tofrom: a[0:n])",
        "parallel default(none) shared(a)",
    ] {
        c(fine);
    }
    let d = known(
        "parallel do reduction(.myadd.: m) schedule(DYNAMIC)",
        Language::FortranFree,
    );
    assert_eq!(d.name(), "parallel do");
}

//! Parser tests on directives as they are written in real programs.

use super::*;
use crate::source::Language;

fn c(text: &str) -> Directive {
    parse_directive(text, Sentinel::Omp, Language::C)
        .unwrap_or_else(|e| panic!("`{text}`: {} at {:?}", e.message, e.span))
}

fn fortran(text: &str) -> Directive {
    parse_directive(text, Sentinel::Omp, Language::FortranFree)
        .unwrap_or_else(|e| panic!("`{text}`: {} at {:?}", e.message, e.span))
}

fn c_error(text: &str) -> DirectiveError {
    match parse_directive(text, Sentinel::Omp, Language::C) {
        Ok(d) => panic!("`{text}` parsed as {d:?}"),
        Err(e) => e,
    }
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
    assert_eq!(d.name, "parallel for simd");
    assert_eq!(d.sentinel, Sentinel::Omp);
    assert_eq!(d.argument, None);
    let names: Vec<&str> = d.clauses.iter().map(|c| c.name.as_str()).collect();
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
    assert_eq!(d.name, "critical");
    assert_eq!(d.argument.as_deref(), Some("name"));
    assert_eq!(d.clauses, [Clause::new("hint", Some("omp_sync_hint_none"))]);
    assert_eq!(d.render(), "critical(name) hint(omp_sync_hint_none)");
    let unnamed = c("critical");
    assert_eq!(
        (unnamed.name.as_str(), unnamed.argument),
        ("critical", None)
    );
}

#[test]
fn comments_count_as_white_space_in_c() {
    let d = c("parallel/* the team */for // the loop");
    assert_eq!(d.name, "parallel for");
    assert!(d.clauses.is_empty());
    let d = c("parallel /* a */ private( a /* not b */ , c) /**/ shared(d)");
    assert_eq!(d.name, "parallel");
    assert_eq!(d.clause("private").unwrap().list_items(), ["a", "c"]);
    assert_eq!(clause(&d, "shared"), "d");
    let d = c("for schedule(static /* ) */)");
    assert_eq!(clause(&d, "schedule"), "static /* ) */");
}

#[test]
fn fortran_comments_and_case() {
    let d = fortran("PARALLEL DO PRIVATE(I, J) ! REDUCTION(+:S) is commented out");
    assert_eq!(d.name, "parallel do");
    assert_eq!(d.clauses, [Clause::new("private", Some("I, J"))]);
    assert_eq!(d.clause("private").unwrap().list_items(), ["I", "J"]);
    let d = fortran("single copyprivate(/blk/, x)");
    assert_eq!(
        d.clause("copyprivate").unwrap().list_items(),
        ["/blk/", "x"]
    );
    assert_eq!(fortran("Do Schedule(Dynamic, 4)").name, "do");
}

#[test]
fn fortran_end_directives() {
    let d = fortran("END PARALLEL DO");
    assert_eq!(d.name, "end parallel do");
    assert_eq!(d.spec().ends.as_deref(), Some("parallel do"));
    assert_eq!(d.spec().association, Association::End);
    assert_eq!(
        fortran("end do nowait").clauses,
        [Clause::new("nowait", None)]
    );
    let d = fortran("end single copyprivate(a) nowait");
    assert_eq!(d.name, "end single");
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
    assert_eq!(fortran("enddo").name, "end do");
    assert_eq!(fortran("paralleldo private(i)").name, "parallel do");
    assert_eq!(fortran("endparallel do").name, "end parallel do");
    assert_eq!(fortran("END PARALLELDO").name, "end parallel do");
    assert_eq!(fortran("endparalleldosimd").name, "end parallel do simd");
    let fixed = parse_directive("PARALLELDO", Sentinel::Omp, Language::FortranFixed).unwrap();
    assert_eq!(fixed.name, "parallel do");
    assert_eq!(fixed.render(), "parallel do");
    // C spells directives with blanks, in lowercase.
    assert!(parse_directive("parallelfor", Sentinel::Omp, Language::C).is_err());
    assert!(parse_directive("PARALLEL", Sentinel::Omp, Language::C).is_err());
}

#[test]
fn atomic_clauses() {
    let d = c("atomic capture");
    assert_eq!(d.name, "atomic");
    assert_eq!(d.clauses, [Clause::new("capture", None)]);
    let d = c("atomic update seq_cst");
    assert_eq!(d.name, "atomic");
    let names: Vec<&str> = d.clauses.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["update", "seq_cst"]);
    assert_eq!(fortran("end atomic").name, "end atomic");
}

#[test]
fn ordered_is_standalone_with_a_dependence() {
    let d = c("ordered depend(source)");
    assert_eq!(d.name, "ordered standalone");
    assert_eq!(d.spec().association, Association::Standalone);
    assert_eq!(d.render(), "ordered depend(source)");
    assert!(d.clause("depend").unwrap().list_items().is_empty());
    let d = c("ordered doacross(sink: i - 1, j)");
    assert_eq!(d.name, "ordered standalone");
    assert!(d.clause("doacross").unwrap().list_items().is_empty());
    let block = c("ordered simd");
    assert_eq!(block.name, "ordered");
    assert_eq!(block.spec().association, Association::Block);
    let err = c_error("ordered threads depend(source)");
    assert_eq!(err.message, "`threads` is not a clause of `ordered`");
}

#[test]
fn cancellation_construct_types() {
    let d = c("cancel for if(cancel: err)");
    assert_eq!(d.name, "cancel");
    assert_eq!(d.clauses[0], Clause::new("for", None));
    assert_eq!(clause(&d, "if"), "cancel: err");
    let d = c("cancellation point parallel");
    assert_eq!(d.name, "cancellation point");
    assert_eq!(d.clauses, [Clause::new("parallel", None)]);
    assert_eq!(fortran("CANCEL DO").clauses, [Clause::new("do", None)]);
    let err = c_error("cancel do");
    assert!(err.message.contains("`do`"), "{}", err.message);
    assert_eq!(err.span, 7..9);
}

#[test]
fn declare_reduction_keeps_its_specifier_whole() {
    let text = "declare reduction(merge : std::vector<int> : \
                omp_out.insert(omp_out.end(), omp_in.begin(), omp_in.end()))";
    let d = parse_directive(text, Sentinel::Omp, Language::Cpp).unwrap();
    assert_eq!(d.name, "declare reduction");
    assert_eq!(
        d.argument.as_deref(),
        Some("merge : std::vector<int> : omp_out.insert(omp_out.end(), omp_in.begin(), omp_in.end())")
    );
    assert!(d.clauses.is_empty());
    assert_eq!(
        parse_directive(&d.render(), Sentinel::Omp, Language::Cpp).unwrap(),
        d
    );
    let d = c("declare reduction(plus: int: omp_out += omp_in) initializer(omp_priv = 0)");
    assert_eq!(clause(&d, "initializer"), "omp_priv = 0");
}

#[test]
fn pomp_directives() {
    let d = parse_directive("inst begin(foo)", Sentinel::Pomp, Language::C).unwrap();
    assert_eq!(d.name, "inst begin");
    assert_eq!(d.sentinel, Sentinel::Pomp);
    assert_eq!(d.argument.as_deref(), Some("foo"));
    assert_eq!(d.spec().region_type.as_deref(), Some("region"));
    let d = c("inst end ( foo )");
    assert_eq!(
        (d.name.as_str(), d.argument.as_deref()),
        ("inst end", Some("foo"))
    );
    for (text, name) in [
        ("inst init", "inst init"),
        ("inst finalize", "inst finalize"),
        ("INST ON", "inst on"),
        ("inst off", "inst off"),
        ("noinstrument", "noinstrument"),
        ("instrument", "instrument"),
    ] {
        let d = parse_directive(text, Sentinel::Pomp, Language::FortranFree).unwrap();
        assert_eq!(d.name, name);
        assert!(d.spec().pomp);
    }
    let err = parse_directive("parallel", Sentinel::Pomp, Language::C).unwrap_err();
    assert_eq!(err.message, "`parallel` is not a pomp directive");
    let err = parse_directive("inst begin", Sentinel::Pomp, Language::C).unwrap_err();
    assert_eq!(err.span, 0..10);
}

#[test]
fn unknown_directive_suggests_the_closest_name() {
    let err = c_error("paralel for private(i)");
    assert_eq!(
        err.message,
        "unknown OpenMP directive `paralel`; did you mean `parallel for`?"
    );
    assert_eq!(err.span, 0..7);
    let err = c_error("  bogus");
    assert_eq!(err.message, "unknown OpenMP directive `bogus`");
    assert_eq!(err.span, 2..7);
    let err = c_error("parallel do");
    assert!(err.message.contains("Fortran"), "{}", err.message);
    assert_eq!(err.span, 0..11);
    let err = c_error("(x)");
    assert_eq!(err.message, "expected a directive name");
}

#[test]
fn clause_errors_point_at_the_clause() {
    let err = c_error("single nowait schedule(static)");
    assert_eq!(err.message, "`schedule` is not a clause of `single`");
    assert_eq!(err.span, 14..22);
    let err = c_error("parallel privte(a)");
    assert_eq!(
        err.message,
        "unknown clause `privte`; did you mean `private`?"
    );
    assert_eq!(err.span, 9..15);
    let err = c_error("parallel fro");
    assert_eq!(
        err.message,
        "unknown clause `fro`; did you mean `parallel for`?"
    );
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
    let names: Vec<&str> = d.clauses.iter().map(|c| c.name.as_str()).collect();
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
            d.name
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
    let items = |name: &str, args: &str| Clause::new(name, Some(args)).list_items();
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
    assert!(Clause::new("private", None).list_items().is_empty());
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
        if let Some(other) = seen.insert(d.name.replace(' ', ""), &d.name) {
            panic!("`{other}` and `{}` read the same without blanks", d.name);
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

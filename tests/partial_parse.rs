//! The C and C++ front end parses only the statements directives own and
//! the heads of their functions, the declarations that hold directives
//! where the statements are in doubt, and the whole file where those are. Either way the
//! result must be the one a parse of the whole file gives: every corpus
//! program, test case and project source, their concatenation, and
//! generated programs are instrumented both ways and must come out byte
//! for byte the same, with the same diagnostics.

use pomp_core::frontend::tree_sitter_c::{ParseExtent, Parsed, TreeSitterC};
use pomp_core::instrument::Options;
use pomp_core::language::Language;
use pomp_core::source::SourceFile;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

#[path = "../benches/common/c_kernels.rs"]
mod c_kernels;
#[allow(dead_code)]
#[path = "../benches/common/proxy_app.rs"]
mod proxy_app;

/// Output and diagnostics of instrumenting `file` with `front_end`, and
/// how much of it was parsed.
fn instrument_with(
    file: &SourceFile,
    front_end: &TreeSitterC,
) -> (Vec<u8>, Vec<String>, ParseExtent) {
    let options = Options::default();
    let (model, extent) = front_end.read_telling_extent(file);
    let model = pomp_core::model::complete(file, model);
    let plan = pomp_core::rules::check(file, &model, &options.rules).named(file);
    let edits = pomp_core::output::emit(file, &model, &plan, &options.output).edits;
    let mut diagnostics: Vec<String> = model
        .diagnostics
        .iter()
        .chain(&plan.diagnostics)
        .map(|d| {
            format!(
                "{:?} {:?} {} / {} / {}",
                d.severity,
                d.span,
                d.message,
                d.label,
                d.notes.join(" / ")
            )
        })
        .collect();
    diagnostics.sort();
    (edits.apply(&file.bytes), diagnostics, extent)
}

/// Whether `file` comes out the same both ways; how much of it the default
/// front end used.
fn assert_same_both_ways(file: &SourceFile) -> ParseExtent {
    let (partial, partial_diagnostics, extent) = instrument_with(file, &TreeSitterC::default());
    let (whole, whole_diagnostics, _) = instrument_with(file, &TreeSitterC::whole_file());
    assert_eq!(
        partial_diagnostics,
        whole_diagnostics,
        "{}: diagnostics differ",
        file.path.display()
    );
    if partial != whole {
        let partial = String::from_utf8_lossy(&partial);
        let whole = String::from_utf8_lossy(&whole);
        let line = partial
            .lines()
            .zip(whole.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "{}: output differs from line {}:\npartial: {:?}\nwhole:   {:?}",
            file.path.display(),
            line + 1,
            partial.lines().nth(line),
            whole.lines().nth(line)
        );
    }
    extent
}

#[path = "support/c_sources.rs"]
mod c_sources;

fn sources() -> Vec<PathBuf> {
    c_sources::c_sources(&[
        "corpus",
        "tests/cases",
        "tests/projects",
        "tests/support",
        "tests/regressions",
    ])
}

#[test]
fn every_source_of_the_repository_reads_the_same_in_pieces() {
    let mut partial = Vec::new();
    let mut whole = Vec::new();
    for path in sources() {
        let bytes = std::fs::read(&path).unwrap();
        let language = Language::from_path(&path).unwrap();
        let file = SourceFile::new(&path, bytes, language);
        match assert_same_both_ways(&file) {
            ParseExtent::Statements | ParseExtent::Declarations => partial.push(path),
            ParseExtent::WholeFile => whole.push(path),
        }
    }
    // The comparison means something only where the partial parse is
    // taken: for nearly every file.
    assert!(
        partial.len() >= 4 * whole.len(),
        "the whole file was parsed for {whole:#?}"
    );
}

#[test]
fn the_corpus_concatenated_reads_the_same_in_pieces() {
    let mut text = String::new();
    for (copy, path) in sources()
        .iter()
        .filter(|p| p.starts_with(Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")))
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .enumerate()
    {
        text.push_str(&format!("#define main main_{copy}\n"));
        text.push_str(&std::fs::read_to_string(path).unwrap());
        text.push_str("#undef main\n");
    }
    let file = SourceFile::new("all.c", text.into_bytes(), Language::C);
    assert_eq!(assert_same_both_ways(&file), ParseExtent::Statements);
}

#[test]
fn the_proxy_application_of_the_benchmark_reads_the_same_in_pieces() {
    // Enough modules that pieces are parsed in several batches, each
    // module a namespace holding classes, templates and lambdas.
    let file = SourceFile::new("proxy.cpp", proxy_app::proxy_app(200_000), Language::Cpp);
    assert_eq!(assert_same_both_ways(&file), ParseExtent::Statements);
}

#[test]
fn the_c_kernels_of_the_benchmark_read_the_same_in_pieces() {
    let file = SourceFile::new("kernels.c", c_kernels::c_kernels(100_000), Language::C);
    assert_eq!(assert_same_both_ways(&file), ParseExtent::Statements);
}

/// User regions that no jump leaves cost no parse: the kernels with
/// their work marked as user regions parse what the kernels alone do.
#[test]
fn user_regions_without_jumps_cost_no_parse() {
    let parsed = |bytes: Vec<u8>| {
        let file = SourceFile::new("kernels.c", bytes, Language::C);
        assert_eq!(assert_same_both_ways(&file), ParseExtent::Statements);
        let before = Parsed::so_far();
        TreeSitterC::default().read_telling_extent(&file);
        Parsed::so_far().bytes - before.bytes
    };
    let alone = parsed(c_kernels::c_kernels(100_000));
    let in_regions = parsed(c_kernels::c_kernels_in_user_regions(100_000));
    assert_eq!(in_regions, alone);
}

/// Functions the grammar reads with a syntax error (a restrict keyword a
/// macro spells in a head and in a body, a try block whose handler a macro
/// writes) are read between their neighbours, not by a parse of the whole
/// file: the C++ programs of the corpus, one after another, as a code
/// base of such files is.
#[test]
fn functions_with_syntax_errors_are_read_without_the_whole_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/cxx");
    let macros = std::fs::read_to_string(root.join("code_base_macros.cpp")).unwrap();
    let file = SourceFile::new("macros.cpp", macros.clone().into_bytes(), Language::Cpp);
    assert_ne!(assert_same_both_ways(&file), ParseExtent::WholeFile);
    let mut text = String::new();
    for (copy, path) in sources()
        .iter()
        .filter(|p| p.starts_with(&root))
        .enumerate()
    {
        text.push_str(&format!("#define main main_{copy}\n"));
        text.push_str(&std::fs::read_to_string(path).unwrap());
        text.push_str("#undef main\n");
    }
    let file = SourceFile::new("all.cpp", text.into_bytes(), Language::Cpp);
    assert_ne!(assert_same_both_ways(&file), ParseExtent::WholeFile);
}

/// A syntax error the grammar's recovery cannot place makes the top of
/// the whole file's tree an error: a function read without one is still
/// read exactly there, as its own piece reads it. The conditionals of a
/// lambda and of a local class's method here split their statements,
/// which the grammar reads as errors in any configuration.
#[test]
fn functions_read_without_an_error_stay_exact_beside_one() {
    let split = "{\n#if USE_MPI\n#ifdef HALF\nif (x)\n#endif\ny++;\n#endif\n\
                 #ifdef HALF\nif (x)\n#endif\ny++;\n}\n";
    let text = format!(
        "#include <omp.h>\nvoid f0(int n)\n{{\n  int x = 0;\n#pragma omp parallel\n{{\n\
         #ifdef _OPENMP\n#pragma omp parallel\n#endif\n{{\n#pragma omp task\nx += 1;\n}}\n}}\n}}\n\
         void holder(int n)\n{{\n  int x = 0, y = 0;\n  auto body = [&]() {{\n{split}}};\n\
         \x20 struct Local {{ void run(int n, int x, int y) {{\n{split}}} }};\n  body();\n}}\n"
    );
    let file = SourceFile::new("beside.cpp", text.into_bytes(), Language::Cpp);
    assert_same_both_ways(&file);
    let (output, diagnostics, _) = instrument_with(&file, &TreeSitterC::whole_file());
    assert_eq!(diagnostics, Vec::<String>::new());
    let output = String::from_utf8(output).unwrap();
    assert_eq!(output.matches("POMP2_Task_begin(&").count(), 1, "{output}");
}

/// Pieces of C that generated programs are made of.
mod generated {
    use proptest::prelude::*;

    fn statement(depth: u32) -> BoxedStrategy<String> {
        let leaf = prop_oneof![
            Just("x += 1;".to_string()),
            Just("s = \"{ not a brace }\"; c = '}';".to_string()),
            Just("/* } */ y = x; // {".to_string()),
            Just("if (x) y++; else y--;".to_string()),
            Just("#pragma omp barrier".to_string()),
            Just("#pragma omp atomic\nx++;".to_string()),
            Just("omp_set_lock(&l); x++; omp_unset_lock(&l);".to_string()),
            Just("int got = omp_test_lock(&l); if (got) omp_unset_lock(&l);".to_string()),
            Just("while (!omp_test_lock(&l)) { x++; }".to_string()),
            Just("#ifdef _OPENMP\nx = omp_get_thread_num();\n#else\nx = 0;\n#endif".to_string()),
            Just("#if 0\nnot C at all {\n#endif".to_string()),
            Just("do { x++; } while (x < 0);".to_string()),
            Just("switch (x) { case 1: y++; break; default: break; }".to_string()),
            Just("again: if (x < 0) goto again;".to_string()),
            Just("for (;;) { if (x) { break; } else continue; }".to_string()),
            Just(
                "#if USE_MPI\nx = 1;\n#elif defined(ALT)\n{ y = 2; }\n#else\nif (x) y++;\n#endif"
                    .to_string()
            ),
            Just("#ifdef HALF\nif (x)\n#endif\ny++;".to_string()),
            Just("#ifdef ALT\nif (x) {\n#else\nif (y) {\n#endif\nx++; }".to_string()),
            // A block a macro ends (`try { } CATCH_ALL`): a syntax error
            // to the grammar.
            Just("{ x++; } HANDLER_MACRO".to_string()),
            // Jumps that leave a user region around them, or stay in it.
            Just("if (x > 5) { return; }".to_string()),
            Just("while (x > 7) { if (y) { break; } continue; }".to_string()),
        ];
        if depth == 0 {
            return leaf.boxed();
        }
        let inner = statement(depth - 1);
        // The statements inside a block go on lines of their own: one of
        // them may be a directive, which begins its line.
        prop_oneof![
            3 => leaf,
            1 => inner.clone().prop_map(|s| format!("#pragma omp parallel\n{{\n{s}\n}}")),
            1 => inner.clone().prop_map(|s| format!("#pragma omp critical\n{s}")),
            1 => inner.clone().prop_map(|s| format!("#pragma omp parallel for\nfor (int i = 0; i < n; i++) {{\n{s}\n}}")),
            1 => inner.clone().prop_map(|s| format!("if (n > 2)\n#pragma omp task\n{s}")),
            1 => inner.clone().prop_map(|s| format!("#pragma omp single\nif (n > 1) {{\n{s}\n}} else y--;")),
            1 => inner.clone().prop_map(|s| format!("#pragma omp parallel\ndo {{\n{s}\n}} while (0);")),
            1 => inner.clone().prop_map(|s| format!("while (x < 0) {{\n#pragma omp parallel\n{{\n{s}\n}}\n}}")),
            1 => inner.clone().prop_map(|s| format!("#ifdef SCHED\n#pragma omp single\n#else\n#pragma omp master\n#endif\n{{\n{s}\n}}")),
            1 => inner.clone().prop_map(|s| format!("#pragma omp for\n#ifdef WIDE\nfor (long i = 0; i < n; i++) {{\n#else\nfor (int i = 0; i < n; i++) {{\n#endif\n{s}\n}}")),
            1 => inner.clone().prop_map(|s| format!("#ifdef _OPENMP\n#pragma omp parallel\n#endif\n{{\n{s}\n}}")),
            1 => inner.clone().prop_map(|s| format!("#if USE_MPI\n{s}\n#endif")),
            1 => inner.clone().prop_map(move |s| format!("#pragma pomp inst begin(r{depth})\n{s}\n#pragma pomp inst end(r{depth})")),
            1 => inner.clone().prop_map(move |s| format!("for (;;) {{\n#pragma pomp inst begin(l{depth})\nif (y) {{ break; }}\n{s}\n#pragma pomp inst end(l{depth})\n}}")),
            1 => (inner.clone(), inner).prop_map(|(a, b)| format!("{{\n{a}\n{b}\n}}")),
        ]
        .boxed()
    }

    fn function(name: usize) -> BoxedStrategy<String> {
        prop_oneof![
            3 => statement(3).prop_map(move |body| format!(
                "static void f{name}(int n)\n{{\n  int x = 0, y = 0; const char *s; char c; (void)s; (void)c;\n{body}\n}}\n"
            )),
            1 => Just(format!("static int t{name}[] = {{ 1, 2, {name} }};\n")),
            1 => Just(format!("struct s{name} {{ int a; struct {{ int b; }} inner; }};\n")),
            1 => Just(format!("#define M{name}(a) {{ a; }}\n")),
            1 => Just(format!("#pragma omp declare simd\nstatic int g{name}(int v) {{ return v + {name}; }}\n")),
        ]
        .boxed()
    }

    pub fn c_file() -> impl Strategy<Value = String> {
        (1usize..6).prop_flat_map(|count| {
            let functions: Vec<BoxedStrategy<String>> = (0..count).map(function).collect();
            functions.prop_map(|parts| {
                format!("#include <omp.h>\nstatic omp_lock_t l;\n{}", parts.concat())
            })
        })
    }

    pub fn cpp_file() -> impl Strategy<Value = String> {
        (c_file(), 0usize..5, statement(2)).prop_map(|(c, wrapping, inner)| {
            let body = c.replace("static ", "");
            match wrapping {
                // Directives in a lambda, and in a local class's method.
                3 => format!(
                    "{body}void lambda_holder(int n)\n{{\n  int x = 0, y = 0; const char *s; char c;\n  before(n);\n  auto body = [&]() {{\n{inner}\n}};\n  struct Local {{ void run(int n, int x, int y) {{\n{inner}\n}} }};\n  body();\n  after(n);\n}}\n"
                ),
                0 => format!("namespace app {{\n{body}}}\n"),
                1 => format!("namespace app {{ namespace detail {{\n{body}}} }}\n"),
                2 => format!(
                    "template <typename T>\nstruct Holder : Base<T> {{\npublic:\n  Holder() : v_{{0}} {{ }}\n  void run(int n) {{\n    int x = 0, y = 0; const char *s; char c;\n#pragma omp parallel for\n    for (int i = 0; i < n; i++) x += [&] {{ return i; }}();\n  }}\nprivate:\n  T v_;\n}};\n{body}"
                ),
                _ => format!("extern \"C\" {{\n{body}}}\n"),
            }
        })
    }
}

proptest! {
    // 64 programs each run; PROPTEST_CASES asks for more.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(64),
        ..ProptestConfig::default()
    })]

    #[test]
    fn generated_c_reads_the_same_in_pieces(text in generated::c_file()) {
        let file = SourceFile::new("gen.c", text.into_bytes(), Language::C);
        assert_same_both_ways(&file);
    }

    #[test]
    fn generated_cpp_reads_the_same_in_pieces(text in generated::cpp_file()) {
        let file = SourceFile::new("gen.cpp", text.into_bytes(), Language::Cpp);
        assert_same_both_ways(&file);
    }
}

/// A kernel file as real code bases write them: functions far longer
/// than their one directive, `#ifdef _OPENMP` around runtime calls, code
/// disabled with `#if 0`, and locks taken outside the parallel regions.
const KERNELS: &str = r#"#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static omp_lock_t lock;
static double total;

static void scale(double *a, const double *b, int n, double factor)
{
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    for (int i = 0; i < n; i++) {
        a[i] = b[i] * factor;
        if (a[i] > 1e9) { a[i] = 0; }
    }
#if 0
    this code is { not compiled
#endif
    omp_set_lock(&lock);
    total += threads;
    omp_unset_lock(&lock);
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        a[i] += b[i];
    }
    int held = omp_test_lock(&lock);
    if (held)
        omp_unset_lock(&lock);
    while (!omp_test_lock(&lock)) {
        total += 1;
    }
    const char *hint = "call omp_set_lock(&lock) first";
    (void)hint;
    omp_unset_lock(&lock);
}

static double reduce(const double *a, int n)
{
    double sum = 0;
#ifdef USE_STATIC
#pragma omp parallel for reduction(+ : sum) schedule(static)
#else
#pragma omp parallel for reduction(+ : sum) schedule(dynamic)
#endif
    for (int i = 0; i < n; i++)
        sum += a[i];
    return sum;
}

int main(void)
{
    double a[100], b[100];
    omp_init_lock(&lock);
    for (int i = 0; i < 100; i++) b[i] = i;
    scale(a, b, 100, 2.0);
    printf("%g %g\n", reduce(a, 100), total);
    omp_destroy_lock(&lock);
    return 0;
}
"#;

#[test]
fn functions_with_runtime_conditionals_and_lock_calls_are_narrowed() {
    let file = SourceFile::new("kernels.c", KERNELS.as_bytes().to_vec(), Language::C);
    assert_eq!(assert_same_both_ways(&file), ParseExtent::Statements);
    // Around each lock call and each conditional line, the text edited as
    // around directives below.
    let around = |code: &str| {
        let conditional_line = code.starts_with('#') && !code.starts_with("#include");
        conditional_line || code.contains("omp_")
    };
    assert_same_edited_around(&file, around, CONTEXT_EDITS);
}

/// Whether `file` comes out the same both ways with each of `edits`
/// written before each line whose code (without its indentation) is
/// `around`.
fn assert_same_edited_around(file: &SourceFile, around: impl Fn(&str) -> bool, edits: &[&str]) {
    let text = std::str::from_utf8(&file.bytes).unwrap();
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let at = line_start;
        line_start += line.len();
        if !around(line.trim_start()) {
            continue;
        }
        for edit in edits {
            let edited = format!("{}{edit}{}", &text[..at], &text[at..]);
            let file = SourceFile::new(&file.path, edited.into_bytes(), file.language);
            assert_same_without_notes(&file, &format!("{edit:?} at {at}"));
        }
    }
}

/// Text that, written just before a directive, the line before it or
/// its statement, makes the code around them read differently: a statement
/// that goes on, a label, a block opened or closed, an `else` or a `do`
/// without its partner, a syntax error.
const CONTEXT_EDITS: &[&str] = &[
    "x ",
    "} ",
    "{ ",
    "else ",
    "do ",
    "L: ",
    "= ",
    "( ",
    "while (1) ",
];

#[test]
fn code_around_directives_changed_reads_the_same_in_pieces() {
    for path in sources()
        .iter()
        .filter(|p| p.starts_with(Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")))
    {
        let text = std::fs::read_to_string(path).unwrap();
        let language = Language::from_path(path).unwrap();
        // The start of each directive's line, of the line before it (an
        // `if` it may be the body of) and of the line after it.
        let mut places = Vec::new();
        let (mut previous_start, mut line_start) = (0, 0);
        for line in text.split_inclusive('\n') {
            let next = line_start + line.len();
            let code = line.trim_start();
            let directive = code.starts_with("#pragma omp")
                || code.starts_with("[[omp::")
                || code.starts_with("[[using omp");
            if directive && !line.trim_end().ends_with('\\') {
                places.extend([previous_start, line_start, next]);
            }
            (previous_start, line_start) = (line_start, next);
        }
        places.dedup();
        for &at in places.iter().take(12) {
            for edit in CONTEXT_EDITS {
                let edited = format!("{}{edit}{}", &text[..at], &text[at..]);
                let file = SourceFile::new(path, edited.into_bytes(), language);
                assert_same_without_notes(&file, &format!("{edit:?} at {at}"));
            }
        }
    }
}

/// Whether `file` comes out the same both ways, with the same diagnostics
/// but for their labels and notes: where a broken conditional is compared
/// across settings, those may explain the same refusal by another
/// difference the settings show.
fn assert_same_without_notes(file: &SourceFile, edited: &str) {
    let (partial, partial_diagnostics, _) = instrument_with(file, &TreeSitterC::default());
    let (whole, whole_diagnostics, _) = instrument_with(file, &TreeSitterC::whole_file());
    let without_notes = |list: Vec<String>| -> Vec<String> {
        list.into_iter()
            .map(|d| d.split(" / ").next().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(
        without_notes(partial_diagnostics),
        without_notes(whole_diagnostics),
        "{} with {edited}: diagnostics differ",
        file.path.display()
    );
    assert!(
        partial == whole,
        "{} with {edited}: output differs",
        file.path.display()
    );
}

/// Conditionals whose macros are not known (`USE_MPI`) between whole
/// statements leave a function narrowed, as real code writes them around
/// message passing.
#[test]
fn functions_with_unknown_conditionals_between_statements_are_narrowed() {
    let text = "static void exchange(double *a, int n)\n{\n#if USE_MPI\n    send(a, n);\n#else\n    (void)n;\n#endif\n#pragma omp parallel for\n    for (int i = 0; i < n; i++) {\n#ifdef CHECK\n        check(a, i);\n#endif\n        a[i] = 0;\n    }\n#if USE_MPI\n    wait();\n#endif\n}\n";
    let file = SourceFile::new("mpi.c", text.as_bytes().to_vec(), Language::C);
    assert_eq!(assert_same_both_ways(&file), ParseExtent::Statements);
}

/// C++ a function is narrowed in: directives owning `try` statements and
/// standing in them, the attribute form, and initializer lists opening
/// lists.
const CXX_STATEMENTS: &str = r#"#include <cstdio>
#include <stdexcept>
#include <vector>

struct Grid {
    std::vector<int> cells;
};

static int risky(int i)
{
    if (i % 7 == 3)
        throw std::runtime_error("seven");
    return i;
}

int main()
{
    Grid g{{1, 5, 9}};
    std::vector<std::vector<int>> rows{{1, 2}, {3, 4}};
    int caught = 0;
    long sum = 0;
#pragma omp parallel reduction(+ : caught)
    try {
        risky(3);
    } catch (const std::runtime_error &) {
        caught = 1;
    } catch (...) {
        caught = 2;
    }
    try {
        sum += risky(4);
    } catch (...) {
        sum = -1;
    }
#pragma omp parallel for reduction(+ : sum, caught)
    for (int i = 0; i < 20; ++i) {
        try {
#pragma omp critical
            sum += risky(i);
        } catch (const std::exception &e) {
            caught += e.what()[0] == 's';
        }
    }
    [[omp::directive(parallel for reduction(+ : sum))]]
    for (int i = 0; i < 10; ++i)
        sum += g.cells[i % 3] + rows[i % 2][0];
    [[omp::sequence(directive(parallel), directive(single))]]
    {
        [[omp::directive(atomic)]]
        sum += 1;
    }
    std::printf("%d %ld\n", caught, sum);
    return 0;
}
"#;

#[test]
fn try_statements_attributes_and_nested_lists_leave_functions_narrowed() {
    let file = SourceFile::new("cxx.cpp", CXX_STATEMENTS.as_bytes().to_vec(), Language::Cpp);
    assert_eq!(assert_same_both_ways(&file), ParseExtent::Statements);
    // Around each line of those, the text edited as around directives.
    let around = |code: &str| {
        let starts = [
            "try",
            "} catch",
            "[[omp",
            "#pragma",
            "Grid",
            "std::vector<std",
        ];
        starts.iter().any(|start| code.starts_with(start))
    };
    let edits: Vec<&str> = (CONTEXT_EDITS.iter().copied())
        .chain(["catch (...) { } ", "try { } "])
        .collect();
    assert_same_edited_around(&file, around, &edits);
}

/// A `try` whose handler a macro writes is a syntax error to the grammar
/// wherever it is read: such a function is read between its neighbours
/// without a parse of its own.
#[test]
fn functions_with_a_try_a_macro_ends_read_the_same_in_pieces() {
    let text = "#define CATCH_ALL catch (...) { }\n\
                static void before(int *x)\n{\n#pragma omp parallel\n    { x[0]++; }\n}\n\
                static void in_block(int *x)\n{\n#pragma omp parallel\n    {\n        try { x[0]++; } CATCH_ALL\n    }\n}\n\
                static void around(int *x)\n{\n    try {\n#pragma omp parallel for\n        for (int i = 0; i < 4; i++) x[i]++;\n    } CATCH_ALL\n}\n\
                static void hollowed(int *x)\n{\n#pragma omp parallel\n    {\n        if (x) { try { x[1]++; } CATCH_ALL }\n#pragma omp barrier\n    }\n}\n\
                int main()\n{\n    int x[4] = {0};\n    before(x); in_block(x); around(x); hollowed(x);\n    return x[0] > 0 ? 0 : 1;\n}\n";
    let file = SourceFile::new("macros.cpp", text.as_bytes().to_vec(), Language::Cpp);
    assert_same_both_ways(&file);
    // Each function alone, between its neighbours or not.
    for name in ["in_block", "around", "hollowed"] {
        let start = text.find(&format!("static void {name}")).unwrap();
        let end = start + text[start..].find("\n}\n").unwrap() + 3;
        let alone = format!(
            "{}{}",
            &text[..text.find("static").unwrap()],
            &text[start..end]
        );
        let file = SourceFile::new("alone.cpp", alone.into_bytes(), Language::Cpp);
        assert_same_both_ways(&file);
    }
}

/// A `try` whose handlers a macro of the file writes, with a name as long
/// as the handler the grammar reads in its place, is read as a `try` with
/// that handler: narrowed, in one parse, and as the whole file reads it.
#[test]
fn functions_with_a_try_a_handler_macro_ends_are_read_in_one_parse() {
    let text = "#include <cstdio>\n#include <cstdlib>\n\
                #define CATCH_ALL_AND_ABORT \\\n  catch (const char *what) { std::puts(what); std::abort(); } \\\n  catch (...) { std::abort(); }\n\
                static void in_block(int *x)\n{\n#pragma omp parallel\n    {\n        try { x[0]++; } CATCH_ALL_AND_ABORT\n    }\n}\n\
                static void around(int *x)\n{\n    try {\n#pragma omp parallel for\n        for (int i = 0; i < 4; i++) x[i]++;\n    } CATCH_ALL_AND_ABORT\n}\n\
                int main()\n{\n    int x[4] = {0};\n    in_block(x); around(x);\n    return x[0] > 0 ? 0 : 1;\n}\n";
    let file = SourceFile::new("handlers.cpp", text.as_bytes().to_vec(), Language::Cpp);
    assert_eq!(assert_same_both_ways(&file), ParseExtent::Statements);
    // Not whole, between neighbours: only the heads and what the
    // directives own.
    let parsed = read_counting_parses(&file).1;
    assert_eq!(parsed.parses, 1);
    assert!(
        parsed.bytes < text.len() / 4,
        "{} bytes parsed",
        parsed.bytes
    );
}

/// The statements of a `sections` block make its first section even
/// without a `section` directive: such a block is read, not hollowed.
#[test]
fn sections_without_separators_read_the_same_in_pieces() {
    let text = "void a(void);\nvoid b(void);\n\
                void f(void)\n{\n#pragma omp parallel sections\n    { a(); b(); }\n}\n\
                void g(void)\n{\n#pragma omp parallel\n    {\n#pragma omp sections\n        { a(); { b(); } }\n#pragma omp barrier\n    }\n}\n";
    for (name, language) in [("s.c", Language::C), ("s.cpp", Language::Cpp)] {
        let file = SourceFile::new(name, text.as_bytes().to_vec(), language);
        assert_eq!(assert_same_both_ways(&file), ParseExtent::Statements);
    }
}

/// A function whose only statement read is a directive's block read as its
/// braces is read narrowed in C++ too, where an empty block alone in a
/// function's body reads as an initializer: once, and not whole.
#[test]
fn cxx_functions_of_one_hollowed_block_are_read_narrowed() {
    let mut text = String::from("void work(int);\n");
    for n in 0..4 {
        text.push_str(&format!(
            "void f{n}(int n)\n{{\n    int k = n * 2;\n#pragma omp parallel\n    {{\n        work(k);\n        if (k > 1) {{ work(k - 1); }}\n    }}\n    work(k + {n});\n}}\n"
        ));
    }
    let file = SourceFile::new("one.cpp", text.clone().into_bytes(), Language::Cpp);
    let (extent, parsed) = read_counting_parses(&file);
    assert_eq!(extent, ParseExtent::Statements);
    assert_eq!(parsed.parses, 1);
    assert!(parsed.bytes < text.len() / 2);
    assert_same_both_ways(&file);
}

/// Qualifiers a file spells with macros it defines (`double *RESTRICT x`,
/// `HOST_DEVICE inline`) leave its functions read in one parse, without
/// syntax errors, and as the whole file reads them.
#[test]
fn functions_with_qualifier_macros_are_read_in_one_parse() {
    let path = "corpus/cxx/qualifier_macros.cpp";
    let file = SourceFile::new(path, std::fs::read(path).unwrap(), Language::Cpp);
    assert_eq!(assert_same_both_ways(&file), ParseExtent::Statements);
    assert_eq!(read_counting_parses(&file).1.parses, 1);
}

/// How the default front end reads `file`, and what its parses read.
fn read_counting_parses(file: &SourceFile) -> (ParseExtent, Parsed) {
    let before = Parsed::so_far();
    let (_, extent) = TreeSitterC::default().read_telling_extent(file);
    let after = Parsed::so_far();
    let parsed = Parsed {
        parses: after.parses - before.parses,
        bytes: after.bytes - before.bytes,
    };
    (extent, parsed)
}

/// [`assert_same_both_ways`] for `text` as C and as C++, in files named
/// `stem.c` and `stem.cpp`.
fn assert_same_both_ways_in_c_and_cpp(stem: &str, text: &str) {
    for (suffix, language) in [("c", Language::C), ("cpp", Language::Cpp)] {
        let file = SourceFile::new(
            format!("{stem}.{suffix}"),
            text.as_bytes().to_vec(),
            language,
        );
        assert_same_both_ways(&file);
    }
}

#[test]
fn syntax_errors_in_loop_headers_and_bodies_read_the_same_in_pieces() {
    // The tests, steps and bodies of loops that pieces leave unread must
    // hold no error the parse of the whole file would report.
    let headers = [
        "i = 0; i < n; i++",
        "i = 0; i < n x; i++",
        "i = 0; i < n; i++ +",
        "i = 0; i <; i++",
        "i = 0; i < n; x y",
        "i = 0; i < n; i--i",
        "i = 0; i<:n; i++",
        "i = 0; i < sizeof; i++",
        "i = 0; f(i,); i++",
        "i = 0; a[]; i++",
        "i = 0; (i) < n; i->",
    ];
    let bodies = ["a[i] = i;", "x a[i] = i;", "a[i] = ;", "a[i] = i +;", "a.;"];
    for header in headers {
        for body in bodies {
            let text = format!(
                "void f(int n, int *a)\n{{\n  int i;\n#pragma omp parallel for\n  for ({header})\n    {body}\n}}\n"
            );
            assert_same_both_ways_in_c_and_cpp("loop", &text);
        }
    }
}

#[test]
fn syntax_errors_in_parameter_lists_read_the_same_in_pieces() {
    // A parameter list the pieces leave unread must hold no error the
    // parse of the whole file would report, and leave the rest of the
    // head read as it was.
    let heads = [
        "void f(int n, double *a)",
        "void f(int n double *a)",
        "void f(int n, double *a,)",
        "void f(int n, a b c)",
        "void f(int n, double *a) int",
        "void f(int n, double *a) const",
        "int f(n, a) int n; double *a;",
        "void f(const std::vector<double> &a, int n)",
        "void f(const std::vector<double &a, int n)",
        "void f(std::vector<double> &a, int n) : g(n)",
        "void f(std::vector<double> &a, int n) : ",
        "void Grid::f(int n, double *a) const override",
        "void f(int n)(double *a)",
        "MACRO(x) void f(int n, double *a)",
    ];
    for head in heads {
        let text = format!(
            "{head}\n{{\n  int i;\n#pragma omp parallel for\n  for (i = 0; i < 4; i++)\n    g(i);\n}}\n"
        );
        assert_same_both_ways_in_c_and_cpp("head", &text);
    }
}

/// A function's plain parameter list is not parsed: a list of the same
/// length that is not plain costs its length in bytes parsed.
#[test]
fn plain_parameter_lists_cost_no_parse() {
    let parsed = |head: &str| {
        let text = format!(
            "{head}\n{{\n#pragma omp parallel for\n  for (int i = 0; i < n; i++)\n    a[i] = i;\n}}\n"
        );
        let file = SourceFile::new("head.cpp", text.into_bytes(), Language::Cpp);
        assert_eq!(assert_same_both_ways(&file), ParseExtent::Statements);
        read_counting_parses(&file).1.bytes
    };
    let plain = parsed("void fill(const std::vector<int> &v, int n, double *a)");
    let defaulted = parsed("void fill(const std::vector<int> &v, int n, double *a=0)");
    let list = "const std::vector<int> &v, int n, double *a".len();
    assert_eq!(defaulted - plain, list + 2);
}

/// Pragmas of other kinds (`#pragma unroll`) between whole statements,
/// as vendors' pragmas stand before loops, leave a function narrowed;
/// anywhere else they read the same in pieces as whole.
#[test]
fn other_pragmas_between_statements_leave_functions_narrowed() {
    let function = |body: &str| {
        format!(
            "static double sum_of(const double *a, int n)\n{{\n  double sum = 0.0;\n{body}\n  return sum;\n}}\n"
        )
    };
    let loop_ = "  for (int i = 0; i < n; ++i)\n    sum += a[i];";
    let between_statements = [
        format!("#pragma omp parallel for reduction(+ : sum)\n#pragma unroll\n{loop_}"),
        format!("#pragma GCC ivdep\n#pragma omp simd reduction(+ : sum)\n{loop_}"),
        format!(
            "#pragma omp parallel\n  {{\n    int k = 1;\n#pragma vector aligned\n#pragma omp for reduction(+ : sum)\n{loop_}\n#pragma weak\n    sum += k;\n  }}"
        ),
        format!("#pragma omp parallel for reduction(+ : sum)\n{loop_}\n#pragma message(\"done\")"),
    ];
    for body in &between_statements {
        for (name, language) in [("pragma.c", Language::C), ("pragma.cpp", Language::Cpp)] {
            let file = SourceFile::new(name, function(body).into_bytes(), language);
            assert_eq!(
                assert_same_both_ways(&file),
                ParseExtent::Statements,
                "{body}"
            );
        }
    }
    let elsewhere = [
        "  if (n > 0)\n    sum = 1;\n#pragma unroll\n  else\n    sum = 2;",
        "  if (n > 0)\n#pragma unroll\n    sum = 1;",
        "  sum = 1 +\n#pragma unroll\n    2;",
        "  do {\n    sum += 1;\n  }\n#pragma unroll\n  while (sum < n);",
        "  switch (n) {\n  case 1:\n#pragma unroll\n    sum = 1;\n  }",
        "  {\n    int k = (1,\n#pragma unroll\n      2);\n    sum = k;\n  }",
        "#pragmaunroll\n  sum = 1;",
        "#pragma\n  sum = 1;",
    ];
    for body in elsewhere {
        let text = function(&format!(
            "#pragma omp parallel for reduction(+ : sum)\n{loop_}\n{body}"
        ));
        assert_same_both_ways_in_c_and_cpp("pragma", &text);
    }
}

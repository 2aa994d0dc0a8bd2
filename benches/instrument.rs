//! Instrumentation throughput in MB/s, one core: (a) a large C file dense
//! with directives, (b) a C++ file shaped like a proxy application, (c) C
//! kernels as code bases write them (long functions, `#ifdef _OPENMP`,
//! locks outside the regions), (d) a file with none. Next to each: pomp with the front end parsing whole
//! declarations rather than the statements directives own, pomp with it
//! parsing the whole file, the raw tree-sitter parse of the whole file, and copying the same
//! bytes through a file, all measured in the same run.
//!
//! Then re-analysis as an editor needs it: a 10,000-line C file, one edit,
//! read again reusing what the previous reading parsed.

#[path = "common/c_kernels.rs"]
mod c_kernels;
mod common;
#[path = "common/proxy_app.rs"]
mod proxy_app;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use pomp_core::frontend::tree_sitter_c::{ParseExtent, Reuse, TreeSitterC};
use pomp_core::frontend::FrontEnd;
use pomp_core::instrument::{instrument, Options};
use pomp_core::language::Language;
use pomp_core::source::SourceFile;
use std::hint::black_box;
use std::path::Path;

/// Every C corpus program with its functions renamed per copy, repeated to
/// about `target` bytes: realistic directive density, valid C throughout.
fn dense_file(target: usize) -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut sources = Vec::new();
    for dir in ["c", "kernels"] {
        let mut entries: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "c"))
        {
            sources.push(std::fs::read_to_string(path).unwrap());
        }
    }
    let mut out = String::new();
    let mut copy = 0;
    while out.len() < target {
        for source in &sources {
            out.push_str(&format!("#define main main_{copy}\n"));
            out.push_str(source);
            out.push_str("#undef main\n");
            copy += 1;
        }
    }
    out.into_bytes()
}

/// Plain C without any OpenMP directive: loops, calls, comments and
/// strings, one other pragma, and words such as `computes` in which the
/// test for OpenMP must look twice.
fn plain_file(target: usize) -> Vec<u8> {
    let mut out =
        String::from("#include <stdio.h>\n#pragma GCC diagnostic ignored \"-Wunused-function\"\n");
    let mut n = 0;
    while out.len() < target {
        out.push_str(&format!(
            "/* kernel {n}: computes a weighted sum, no OpenMP */\n\
             static double kernel_{n}(const double *a, int len) {{\n\
             \x20   double s = 0.0;\n\
             \x20   for (int i = 0; i < len; i++) {{\n\
             \x20       if (a[i] > 0.5) s += a[i] * {n}.0; else s -= a[i];\n\
             \x20   }}\n\
             \x20   printf(\"kernel {n}: %f\\n\", s);\n\
             \x20   return s;\n\
             }}\n"
        ));
        n += 1;
    }
    out.into_bytes()
}

/// The pipeline of `instrument` with the front end `front_end`.
fn instrument_with(file: &SourceFile, front_end: &TreeSitterC) -> usize {
    let options = Options::default();
    let model = front_end.analyse(file);
    let plan = pomp_core::rules::check(file, &model, &options.rules).named(file);
    let edits = pomp_core::output::emit(file, &model, &plan, &options.output).edits;
    edits.apply(&file.bytes).len()
}

fn raw_parse(file: &SourceFile) -> usize {
    let mut parser = tree_sitter::Parser::new();
    let grammar: tree_sitter::Language = match file.language {
        Language::Cpp => pomp_grammars::CPP.into(),
        _ => pomp_grammars::C.into(),
    };
    parser.set_language(&grammar).unwrap();
    parser
        .parse(&file.bytes, None)
        .unwrap()
        .root_node()
        .end_byte()
}

fn throughput(c: &mut Criterion) {
    const SIZE: usize = 4 << 20;
    let dir = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("instrument");
    group.sample_size(10);
    for (name, file_name, language, bytes) in [
        ("dense", "bench.c", Language::C, dense_file(SIZE)),
        (
            "dense-c++",
            "bench.cpp",
            Language::Cpp,
            proxy_app::proxy_app(SIZE),
        ),
        (
            "kernels-c",
            "bench.c",
            Language::C,
            c_kernels::c_kernels(SIZE),
        ),
        ("no-directives", "bench.c", Language::C, plain_file(SIZE)),
    ] {
        let file = SourceFile::new(file_name, bytes.clone(), language);
        let declarations = TreeSitterC {
            extent: ParseExtent::Declarations,
            ..TreeSitterC::default()
        };
        let (_, extent) = TreeSitterC::default().read_telling_extent(&file);
        eprintln!(
            "{name}: {} bytes, {:.1} directives per 100 KB, front end parsed {extent:?}",
            bytes.len(),
            proxy_app::directive_density(&bytes)
        );
        common::bench_input(&mut group, dir.path(), name, file_name, language, bytes);
        group.bench_with_input(
            BenchmarkId::new("pomp-parsing-declarations", name),
            &file,
            |b, file| b.iter(|| black_box(instrument_with(file, &declarations))),
        );
        group.bench_with_input(
            BenchmarkId::new("pomp-parsing-whole-file", name),
            &file,
            |b, file| b.iter(|| black_box(instrument_with(file, &TreeSitterC::whole_file()))),
        );
        group.bench_with_input(
            BenchmarkId::new("tree-sitter-parse", name),
            &file,
            |b, file| b.iter(|| black_box(raw_parse(file))),
        );
    }
    group.finish();
}

/// About `lines` lines of C: functions with and without directives, as a
/// large source file in an editor.
fn editor_file(lines: usize) -> String {
    let mut out = String::from("#include <stdio.h>\n#include <omp.h>\n\nstatic omp_lock_t lock;\n");
    let mut n = 0;
    while out.lines().count() < lines {
        out.push_str(&format!(
            "\n/* Step {n} of the solver: relax the interior, then count. */\n\
             static double relax_{n}(double *u, const double *f, int len, double w)\n{{\n\
             \x20   double change = 0.0;\n\
             \x20   int i;\n\
             #pragma omp parallel for reduction(+ : change) schedule(static)\n\
             \x20   for (i = 1; i < len - 1; i++) {{\n\
             \x20       double next = (1.0 - w) * u[i] + w * 0.5 * (u[i - 1] + u[i + 1] - f[i]);\n\
             \x20       change += next > u[i] ? next - u[i] : u[i] - next;\n\
             \x20       u[i] = next;\n\
             \x20   }}\n\
             \x20   return change;\n\
             }}\n\
             \n\
             static void report_{n}(const double *u, int len)\n{{\n\
             \x20   double lo = u[0], hi = u[0];\n\
             \x20   for (int i = 1; i < len; i++) {{\n\
             \x20       if (u[i] < lo) lo = u[i];\n\
             \x20       if (u[i] > hi) hi = u[i];\n\
             \x20   }}\n\
             \x20   printf(\"step {n}: %g .. %g\\n\", lo, hi);\n\
             }}\n\
             \n\
             static int count_{n}(const double *u, int len, double limit)\n{{\n\
             \x20   int above = 0;\n\
             #pragma omp parallel\n\
             \x20   {{\n\
             \x20       int mine = 0;\n\
             #pragma omp for nowait\n\
             \x20       for (int i = 0; i < len; i++)\n\
             \x20           mine += u[i] > limit;\n\
             \x20       omp_set_lock(&lock);\n\
             \x20       above += mine;\n\
             \x20       omp_unset_lock(&lock);\n\
             \x20   }}\n\
             \x20   return above;\n\
             }}\n"
        ));
        n += 1;
    }
    out
}

fn reanalysis(c: &mut Criterion) {
    let text = editor_file(10_000);
    let middle = text.len() / 2;
    // One keystroke inside a statement in the middle of the file.
    let at = middle + text[middle..].find("change += ").unwrap();
    let mut edited = text.clone();
    edited.insert_str(at, "0.0 + ");
    let before = SourceFile::new("editor.c", text.into_bytes(), Language::C);
    let after = SourceFile::new("editor.c", edited.into_bytes(), Language::C);
    eprintln!(
        "editor file: {} lines, {} bytes",
        before.line_count(),
        before.bytes.len()
    );
    let mut group = c.benchmark_group("reanalysis");
    group.sample_size(20);
    group.throughput(Throughput::Elements(1));
    let front_end = TreeSitterC::default();
    group.bench_function("front-end-after-one-edit", |b| {
        let mut reuse = Reuse::default();
        front_end.read_reusing(&before, &mut reuse);
        let mut flip = false;
        b.iter(|| {
            // Alternate the two texts: each reading follows one edit.
            flip = !flip;
            let file = if flip { &after } else { &before };
            black_box(front_end.read_reusing(file, &mut reuse).sites.len())
        })
    });
    group.bench_function("instrument-after-one-edit", |b| {
        let mut reuse = Reuse::default();
        front_end.read_reusing(&before, &mut reuse);
        let options = Options::default();
        let mut flip = false;
        b.iter(|| {
            flip = !flip;
            let file = if flip { &after } else { &before };
            let model = pomp_core::model::complete(file, front_end.read_reusing(file, &mut reuse));
            let plan = pomp_core::rules::check(file, &model, &options.rules).named(file);
            let edits = pomp_core::output::emit(file, &model, &plan, &options.output).edits;
            black_box(edits.apply(&file.bytes).len())
        })
    });
    group.bench_function("instrument-from-scratch", |b| {
        let options = Options::default();
        b.iter(|| black_box(instrument(&after, &options).output(&after).len()))
    });
    group.finish();
}

criterion_group!(benches, throughput, reanalysis);
criterion_main!(benches);

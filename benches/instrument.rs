//! Instrumentation throughput in MB/s: (a) a large file dense with
//! directives, (b) a large file with none, next to copying the same bytes
//! through a file, which is what (b) should cost little more than.

mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use pomp::source::Language;
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

fn throughput(c: &mut Criterion) {
    const SIZE: usize = 4 << 20;
    let dir = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("instrument");
    group.sample_size(10);
    for (name, bytes) in [
        ("dense", dense_file(SIZE)),
        ("no-directives", plain_file(SIZE)),
    ] {
        common::bench_input(&mut group, dir.path(), name, "bench.c", Language::C, bytes);
    }
    group.finish();
}

criterion_group!(benches, throughput);
criterion_main!(benches);

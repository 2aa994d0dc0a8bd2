//! The C and C++ front ends side by side on the same files: reading (the
//! front end alone, `FrontEnd::analyse`) and instrumenting (the whole
//! pipeline) every C program of the corpus, then every C++ one, with
//! tree-sitter and with libclang (which parses the headers too, as the
//! compiler does).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use pomp_core::frontend::libclang::Clang;
use pomp_core::frontend::{
    tree_sitter_c::TreeSitterC, Choice, FrontEnd, Options as FrontEndOptions,
};
use pomp_core::instrument::{instrument, Options};
use pomp_core::language::Language;
use pomp_core::source::SourceFile;
use std::hint::black_box;
use std::path::Path;

fn corpus(language: Language) -> Vec<SourceFile> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut files = Vec::new();
    for dir in ["c", "cxx", "kernels"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if Language::from_path(&path) == Some(language) {
                let bytes = std::fs::read(&path).unwrap();
                files.push(SourceFile::new(path, bytes, language));
            }
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

fn front_ends(c: &mut Criterion) {
    assert!(
        pomp_core::frontend::libclang::available(),
        "{}",
        pomp_core::frontend::libclang::INSTALL_HINT
    );
    let flags = pomp_cmdline::compile_flags(&["-fopenmp", "-O1"], None);
    let clang = Clang::new(flags.clone());
    let mut group = c.benchmark_group("frontends");
    group.sample_size(10);
    for (name, language) in [("corpus-c", Language::C), ("corpus-cxx", Language::Cpp)] {
        let files = corpus(language);
        let bytes: usize = files.iter().map(|f| f.bytes.len()).sum();
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_with_input(
            BenchmarkId::new("read/tree-sitter", name),
            &files,
            |b, files| {
                b.iter(|| {
                    for file in files {
                        black_box(TreeSitterC::default().analyse(file).sites.len());
                    }
                })
            },
        );
        group.bench_with_input(BenchmarkId::new("read/clang", name), &files, |b, files| {
            b.iter(|| {
                for file in files {
                    black_box(clang.analyse(file).sites.len());
                }
            })
        });
        for (label, choice) in [
            ("instrument/tree-sitter", Choice::TreeSitter),
            ("instrument/clang", Choice::Clang),
        ] {
            let options = Options {
                front_end: FrontEndOptions {
                    choice,
                    compile_flags: Some(flags.clone()),
                    ..FrontEndOptions::default()
                },
                ..Options::default()
            };
            group.bench_with_input(BenchmarkId::new(label, name), &files, |b, files| {
                b.iter(|| {
                    for file in files {
                        black_box(instrument(file, &options).output(file).len());
                    }
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, front_ends);
criterion_main!(benches);

//! What every throughput benchmark measures for one input: pomp in memory,
//! copying the same bytes through a file, and pomp through files.

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Throughput};
use pomp_core::instrument::{instrument, instrument_path, Options};
use pomp_core::language::Language;
use pomp_core::source::SourceFile;
use std::hint::black_box;
use std::path::Path;

/// Benchmarks `bytes`, written as `file_name` in `dir`, under `name`.
pub fn bench_input(
    group: &mut BenchmarkGroup<'_, WallTime>,
    dir: &Path,
    name: &str,
    file_name: &str,
    language: Language,
    bytes: Vec<u8>,
) {
    let options = Options::default();
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    let input = dir.join(format!("{name}-{file_name}"));
    std::fs::write(&input, &bytes).unwrap();
    let output = dir.join(format!("{name}-out-{file_name}"));
    let file = SourceFile::new(file_name, bytes, language);
    group.bench_with_input(BenchmarkId::new("pomp", name), &file, |b, file| {
        b.iter(|| black_box(instrument(file, &options).output(file).len()))
    });
    group.bench_with_input(
        BenchmarkId::new("copy-through-file", name),
        &input,
        |b, input| {
            b.iter(|| {
                let data = std::fs::read(input).unwrap();
                pomp_files::write_atomically(&output, &data).unwrap();
            })
        },
    );
    group.bench_with_input(
        BenchmarkId::new("pomp-through-file", name),
        &input,
        |b, input| {
            b.iter(|| {
                let out = instrument_path(input, Some(&output), None, &options).unwrap();
                black_box(out.1.has_errors())
            })
        },
    );
}

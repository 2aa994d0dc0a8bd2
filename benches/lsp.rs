//! The language server on a 10,000-line C file: the time from a
//! `didChange` to the diagnostics it publishes for that version, next to
//! instrumenting the same text once in memory (what each change costs the
//! server at least); and the memory the server holds per open document.
//! The server runs in this process over lsp-server's in-memory
//! connection, so the figures are the server's, not a pipe's.

use criterion::{criterion_group, criterion_main, Criterion};
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use pomp_core::language::Language;
use pomp_core::source::SourceFile;
use serde_json::{json, Value};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

const LINES: usize = 10_000;

/// The C corpus programs, each copy's `main` renamed, cut to `LINES`
/// lines at a function's end and padded with plain functions: realistic
/// directive density, valid C throughout.
fn ten_thousand_lines() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut sources = vec![];
    for dir in ["c", "kernels"] {
        let mut paths: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "c"))
            .collect();
        paths.sort();
        sources.extend(
            paths
                .into_iter()
                .map(|p| std::fs::read_to_string(p).unwrap()),
        );
    }
    let mut out = String::new();
    let mut copy = 0;
    'fill: loop {
        for source in &sources {
            let next = format!("#define main main_{copy}\n{source}#undef main\n");
            if out.lines().count() + next.lines().count() > LINES {
                break 'fill;
            }
            out.push_str(&next);
            copy += 1;
        }
    }
    let mut n = 0;
    while out.lines().count() < LINES {
        out.push_str(&format!(
            "static int pad_{n}(int x) {{ return x + {n}; }}\n"
        ));
        n += 1;
    }
    out
}

/// A server in a thread of this process, initialized.
struct Session {
    client: Connection,
    server: Option<std::thread::JoinHandle<()>>,
}

impl Session {
    fn start() -> Session {
        let (server, client) = Connection::memory();
        let thread =
            std::thread::spawn(move || pomp_lsp::serve(&server, &mut std::io::sink()).unwrap());
        let session = Session {
            client,
            server: Some(thread),
        };
        session.send(Request::new(
            RequestId::from(1),
            "initialize".into(),
            json!({"capabilities": {}}),
        ));
        loop {
            if let Message::Response(_) = session.client.receiver.recv().unwrap() {
                break;
            }
        }
        session.notify("initialized", json!({}));
        session
    }

    fn send(&self, message: impl Into<Message>) {
        self.client.sender.send(message.into()).unwrap();
    }

    fn notify(&self, method: &str, params: Value) {
        self.send(Notification::new(method.into(), params));
    }

    fn open(&self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "c", "version": 0, "text": text}}),
        );
        self.diagnostics(uri, 0);
    }

    /// Wait for the diagnostics of `uri` at `version`; their number.
    fn diagnostics(&self, uri: &str, version: i32) -> usize {
        loop {
            if let Message::Notification(n) = self.client.receiver.recv().unwrap() {
                if n.method == "textDocument/publishDiagnostics"
                    && n.params["uri"] == uri
                    && n.params["version"] == version
                {
                    return n.params["diagnostics"].as_array().unwrap().len();
                }
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.send(Request::new(
            RequestId::from(2),
            "shutdown".into(),
            Value::Null,
        ));
        self.notify("exit", Value::Null);
        if let Some(server) = self.server.take() {
            server.join().unwrap();
        }
    }
}

fn latency(c: &mut Criterion) {
    let text = ten_thousand_lines();
    let path = Path::new("/bench/ten_thousand.c");
    let uri = "file:///bench/ten_thousand.c";
    let mut group = c.benchmark_group("lsp-10000-lines");
    group.sample_size(30);
    group.measurement_time(Duration::from_secs(10));

    let file = SourceFile::new(path, text.as_bytes().to_vec(), Language::C);
    let options = pomp_core::instrument::Options::default();
    group.bench_function("instrument-once", |b| {
        b.iter(|| {
            black_box(
                pomp_core::instrument::instrument(&file, &options)
                    .output(&file)
                    .len(),
            )
        })
    });

    // A blank typed and taken back at the start of the middle line, which
    // changes no meaning wherever it lands.
    let session = Session::start();
    session.open(uri, &text);
    let middle = LINES as u32 / 2;
    let mut version = 0;
    group.bench_function("didChange-to-diagnostics", |b| {
        b.iter(|| {
            version += 1;
            let change = match version % 2 {
                1 => json!({"range": {"start": {"line": middle, "character": 0},
                                      "end": {"line": middle, "character": 0}},
                            "text": " "}),
                _ => json!({"range": {"start": {"line": middle, "character": 0},
                                      "end": {"line": middle, "character": 1}},
                            "text": ""}),
            };
            session.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version},
                       "contentChanges": [change]}),
            );
            black_box(session.diagnostics(uri, version))
        })
    });
    group.finish();
}

/// Resident memory of this process, in bytes.
fn resident() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

/// Not timed: printed. What one open, analysed document holds as the
/// server counts it, and how resident memory grows per document opened.
fn memory(_: &mut Criterion) {
    let text = ten_thousand_lines();
    let uri: lsp_types::Uri = "file:///bench/ten_thousand.c".parse().unwrap();
    let mut document = pomp_lsp::document::Document::new(uri, "c", 0, text.clone());
    document.analyse(
        &pomp_core::instrument::Options::default(),
        pomp_preview::Encoding::Utf16,
    );
    let counted = document.memory();

    const DOCUMENTS: usize = 10;
    let session = Session::start();
    session.open("file:///bench/warm-up.c", &text);
    let before = resident();
    for n in 0..DOCUMENTS {
        session.open(&format!("file:///bench/copy-{n}.c"), &text);
    }
    let grown = resident().saturating_sub(before) / DOCUMENTS;
    eprintln!(
        "lsp memory per open document of {} lines ({} KiB of text): {} KiB counted, {} KiB resident growth",
        LINES,
        text.len() / 1024,
        counted / 1024,
        grown / 1024
    );
}

criterion_group!(benches, latency, memory);
criterion_main!(benches);

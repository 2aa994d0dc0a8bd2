//! `pomp batch` for people and logs: a progress bar on a terminal, plain
//! lines otherwise; the diagnostics, a summary, how to link, and the JSON
//! report.

use super::{Config, FileReport, Mirror, Outcome, Progress};
use indicatif::{ProgressBar, ProgressStyle};
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Run, print, and exit 0 when every file is mirrored as asked, 1 when
/// some file failed, 2 when the run itself could not be made.
pub fn run_cli(config: &Config, json: Option<&Path>) -> ExitCode {
    let progress: Box<dyn Progress> = if std::io::stderr().is_terminal() {
        Box::new(Bar::new())
    } else {
        Box::new(Lines::default())
    };
    let outcome = match super::run(config, progress.as_ref()) {
        Ok(outcome) => outcome,
        Err(error) => {
            eprintln!("pomp batch: error: {error:#}");
            return ExitCode::from(2);
        }
    };
    eprint!("{}", diagnostics(&outcome));
    print!("{}", summary(&outcome));
    print!("{}", link_instructions(&outcome));
    if let Some(path) = json {
        let written = serde_json::to_vec_pretty(&outcome)
            .map_err(std::io::Error::other)
            .and_then(|bytes| crate::output::write_atomically(path, &bytes));
        if let Err(error) = written {
            eprintln!(
                "pomp batch: error: cannot write {}: {error}",
                path.display()
            );
            return ExitCode::from(2);
        }
    }
    if outcome.failed() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Each failure, also one an earlier run found, and the warnings of the
/// files this run read, the way compilers print them.
pub fn diagnostics(outcome: &Outcome) -> String {
    let mut out = String::new();
    for warning in &outcome.warnings {
        writeln!(out, "pomp batch: warning: {warning}").unwrap();
    }
    for file in &outcome.files {
        if file.cached && !file.verdict.failed {
            continue;
        }
        let path = outcome.source_dir.join(&file.path);
        for d in &file.verdict.diagnostics {
            let at = match (d.line, d.column) {
                (Some(line), Some(column)) => format!("{}:{line}:{column}", path.display()),
                _ => path.display().to_string(),
            };
            writeln!(out, "{at}: {}: {}", d.severity, d.message).unwrap();
            for note in &d.notes {
                writeln!(out, "  = note: {note}").unwrap();
            }
        }
        if file.verdict.failed {
            let mirrored = match file.verdict.mirror {
                Mirror::Nothing => "nothing is mirrored in its place",
                _ => "the original is mirrored in its place",
            };
            writeln!(out, "{}: not instrumented; {mirrored}", path.display()).unwrap();
        }
    }
    out
}

pub fn summary(outcome: &Outcome) -> String {
    let s = &outcome.summary;
    let mut out = format!(
        "pomp batch: {} files, {:.1} MB in {:.2} s ({:.1} MB/s, {} thread{})\n  \
         instrumented {}, linked {}, copied {}, unchanged {}, failed {}",
        s.files,
        s.bytes as f64 / 1e6,
        s.seconds,
        s.megabytes_per_second(),
        s.jobs,
        if s.jobs == 1 { "" } else { "s" },
        s.instrumented,
        s.linked,
        s.copied,
        s.unchanged,
        s.failed,
    );
    if s.removed > 0 {
        write!(out, ", removed {}", s.removed).unwrap();
    }
    out.push('\n');
    if !s.regions.is_empty() {
        let regions: Vec<String> = s
            .regions
            .iter()
            .map(|(region_type, n)| format!("{n} {region_type}"))
            .collect();
        writeln!(
            out,
            "  {} regions: {}",
            s.region_count(),
            regions.join(", ")
        )
        .unwrap();
    }
    if s.headers_with_directives > 0 {
        writeln!(
            out,
            "  {} header(s) with directives mirrored as written",
            s.headers_with_directives
        )
        .unwrap();
    }
    out
}

/// How a program built from the mirror gets its regions registered and a
/// POMP2 library: the same libraries for every program of the tree.
pub fn link_instructions(outcome: &Outcome) -> String {
    let object = outcome.registration.with_extension("o");
    let runtime = crate::wrapper::link_arguments(None).ok();
    let library = match &runtime {
        Some(arguments) => arguments
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" "),
        None => "LIBRARY".into(),
    };
    let libraries = format!("{} {library}", object.display());
    let mut out = format!(
        "Link every program built from {} with its regions and a POMP2 library:\n  \
         cc -c {} -o {}\n  \
         then end each link with: {libraries}\n  \
         CMake: -DCMAKE_C_STANDARD_LIBRARIES=\"{libraries}\" (likewise CXX, Fortran); \
         make: LDLIBS=\"{libraries}\"\n",
        outcome.out_dir.display(),
        outcome.registration.display(),
        object.display(),
    );
    if runtime.is_none() {
        out.push_str(
            "  LIBRARY: a POMP2 library; `cargo build -p pomp-runtime` builds pomp's \
             (libpomp_runtime.a, with -lpthread -ldl -lm)\n",
        );
    }
    if let Some(database) = &outcome.compile_commands {
        writeln!(
            out,
            "Commands compiling the instrumented files: {}",
            database.display()
        )
        .unwrap();
    }
    out
}

struct Bar(ProgressBar);

impl Bar {
    fn new() -> Bar {
        let style = ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} files {wide_msg}",
        )
        .expect("the template is valid")
        .progress_chars("=> ");
        Bar(ProgressBar::new(0).with_style(style))
    }
}

impl Progress for Bar {
    fn start(&self, files: usize) {
        self.0.set_length(files as u64);
    }

    fn file_done(&self, file: &FileReport) {
        self.0.inc(1);
        if !file.cached && file.verdict.mirror == Mirror::Instrumented {
            self.0.set_message(file.path.display().to_string());
        }
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// A line at every tenth of the files, for logs.
#[derive(Default)]
struct Lines {
    total: AtomicUsize,
    done: AtomicUsize,
}

impl Progress for Lines {
    fn start(&self, files: usize) {
        self.total.store(files, Ordering::Relaxed);
    }

    fn file_done(&self, _file: &FileReport) {
        let total = self.total.load(Ordering::Relaxed).max(1);
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if done * 10 / total != (done - 1) * 10 / total {
            eprintln!("pomp batch: {}% ({done}/{total} files)", done * 100 / total);
        }
    }
}

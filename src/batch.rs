//! `pomp batch` for people and logs: a progress bar on a terminal, plain
//! lines otherwise; the diagnostics, a summary, how to link, and the JSON
//! report.

use indicatif::{ProgressBar, ProgressStyle};
use pomp_batch::{Config, FileReport, Mirror, Outcome, Progress};
use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
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
    let mut report = match json.map(JsonReport::create).transpose() {
        Ok(report) => report,
        Err(error) => {
            eprintln!(
                "pomp batch: error: cannot write {}: {error}",
                json.unwrap().display()
            );
            return ExitCode::from(2);
        }
    };
    let outcome = pomp_batch::run(config, progress.as_ref(), &mut |file| {
        if let Some(report) = &mut report {
            report.file(file);
        }
    });
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(error) => {
            eprintln!("pomp batch: error: {error:#}");
            return ExitCode::from(2);
        }
    };
    eprint!("{}", diagnostics(&outcome));
    print!("{}", summary(&outcome));
    print!("{}", link_instructions(&outcome));
    if let (Some(report), Some(path)) = (report, json) {
        if let Err(error) = report.finish(&outcome, path) {
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

/// The watcher `pomp batch --watch` starts, until it stops: 0 when it
/// stopped as it should (asked to, idle, a tree gone), 1 when it could not
/// watch. It tells the run that started it on standard output when it is
/// ready; its standard error is the watcher's log, which a run that could
/// not start it shows.
pub fn watcher(root: &Path, out_dir: &Path) -> ExitCode {
    let ready = std::io::stdout();
    match pomp_batch::watch::serve(root, out_dir, pomp_batch::watch::IDLE, ready) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("pomp: error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// The JSON report, written as the run goes: `files` first, one by one,
/// then what the run learnt at its end. It replaces the file at its path
/// once whole.
struct JsonReport {
    out: std::io::BufWriter<tempfile::NamedTempFile>,
    files: usize,
    /// The first error writing it; the rest of the report is not written.
    error: Option<std::io::Error>,
}

impl JsonReport {
    fn create(path: &Path) -> std::io::Result<JsonReport> {
        let directory = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let temporary = tempfile::Builder::new()
            .prefix(".pomp-")
            .tempfile_in(directory)?;
        let mut out = std::io::BufWriter::new(temporary);
        out.write_all(b"{\n  \"files\": [")?;
        Ok(JsonReport {
            out,
            files: 0,
            error: None,
        })
    }

    fn file(&mut self, file: &FileReport) {
        if self.error.is_some() {
            return;
        }
        let separator: &[u8] = if self.files == 0 { b"\n" } else { b",\n" };
        self.files += 1;
        let written = self.out.write_all(separator).and_then(|()| {
            serde_json::to_writer_pretty(&mut self.out, file).map_err(std::io::Error::other)
        });
        if let Err(error) = written {
            self.error = Some(error);
        }
    }

    fn finish(mut self, outcome: &Outcome, path: &Path) -> std::io::Result<()> {
        if let Some(error) = self.error {
            return Err(error);
        }
        self.out.write_all(b"\n  ]")?;
        let serde_json::Value::Object(fields) =
            serde_json::to_value(outcome).map_err(std::io::Error::other)?
        else {
            unreachable!("an outcome is a JSON object");
        };
        for (name, value) in fields {
            write!(self.out, ",\n  {}: ", serde_json::Value::String(name))?;
            serde_json::to_writer_pretty(&mut self.out, &value).map_err(std::io::Error::other)?;
        }
        self.out.write_all(b"\n}\n")?;
        let temporary = self.out.into_inner().map_err(|e| e.into_error())?;
        temporary.persist(path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// Each failure, also one an earlier run found, and the warnings of the
/// files this run read, the way compilers print them.
pub fn diagnostics(outcome: &Outcome) -> String {
    let mut out = String::new();
    for warning in &outcome.warnings {
        writeln!(out, "pomp batch: warning: {warning}").unwrap();
    }
    for file in &outcome.notable {
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
    if outcome.watcher == Some(pomp_batch::Watched::NothingChanged) {
        out.push_str(
            "  the watcher saw nothing change since the last run: the tree was not walked\n",
        );
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
    let chosen = pomp_wrapper::options::WrapperOptions::from_environment()
        .ok()
        .and_then(|options| options.runtime);
    let runtime = pomp_wrapper::link_arguments(chosen.as_deref()).ok();
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
    fn start(&self, expected: Option<usize>) {
        self.0.set_length(expected.unwrap_or(0) as u64);
    }

    fn file_done(&self, file: &FileReport) {
        self.0.inc(1);
        // More files than the last run found.
        if self
            .0
            .length()
            .is_some_and(|length| self.0.position() > length)
        {
            self.0.set_length(self.0.position());
        }
        if !file.cached && file.verdict.mirror == Mirror::Instrumented {
            self.0.set_message(file.path.display().to_string());
        }
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// For logs: a line at every tenth of the files the last run found, or
/// at every thousand files when it found none.
#[derive(Default)]
struct Lines {
    expected: AtomicUsize,
    done: AtomicUsize,
}

/// Files between two lines when how many there are is not known.
const LINE_EVERY: usize = 1000;

impl Progress for Lines {
    fn start(&self, expected: Option<usize>) {
        self.expected
            .store(expected.unwrap_or(0), Ordering::Relaxed);
    }

    fn file_done(&self, _file: &FileReport) {
        let expected = self.expected.load(Ordering::Relaxed);
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if expected == 0 || done > expected {
            if done.is_multiple_of(LINE_EVERY) {
                eprintln!("pomp batch: {done} files");
            }
        } else if done * 10 / expected != (done - 1) * 10 / expected {
            eprintln!(
                "pomp batch: {}% ({done}/{expected} files)",
                done * 100 / expected
            );
        }
    }
}

//! The differential check of one program: compile and run it as written,
//! then instrument it with pomp, compile that with the same flags, link the
//! checking POMP2 (or POMP1) library and run it again. Same output, same
//! exit status and a clean report from the checking library, or a failure
//! with a class that names what went wrong. A POMP2 program is then linked
//! with pomp's own runtime too, and must again end as the original did,
//! with a profile that counts every event the checking library saw.

use super::ast::{Lang, Measurement};
use super::measurement;
use super::toolchains::Toolchain as Compilers;
use pomp2::profile::{Kind, Node, Profile};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const COMPILE_FLAGS: &[&str] = &["-fopenmp", "-O1"];
/// clang reads a directive it knows and passes over the words after it
/// that it does not (clang 14's `parallel loop` is `parallel`): the
/// program it makes is not the one written, and for pomp's output that
/// would be a fault.
const CLANG_DIRECTIVES_WHOLE: &str = "-Werror=extra-tokens";
/// Generated programs finish in milliseconds; only a hang gets near this.
/// Shrinking meets hanging candidates often, so it is kept short.
const RUN_TIMEOUT: Duration = Duration::from_secs(8);
const THREAD_COUNTS: &[&str] = &["2", "3"];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Interface {
    Pomp2,
    Pomp1,
}

impl Interface {
    pub fn name(self) -> &'static str {
        match self {
            Interface::Pomp2 => "pomp2",
            Interface::Pomp1 => "pomp1",
        }
    }

    fn library(self) -> &'static str {
        match self {
            Interface::Pomp2 => "pomp2_check",
            Interface::Pomp1 => "pomp1_check",
        }
    }
}

/// What went wrong, coarsely; the class adds the first message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FailureKind {
    /// pomp rejected a valid program.
    Refused,
    /// The instrumented file does not compile or link.
    Compile,
    /// The checking library found badly nested or malformed calls.
    Violation,
    /// Output or exit status differ from the original's.
    Output,
    Hang,
    /// Linked with pomp's runtime, the program ends otherwise than the
    /// original, or its profile misses or miscounts what it ran.
    Runtime,
}

impl FailureKind {
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Refused => "refused",
            FailureKind::Compile => "compile",
            FailureKind::Violation => "violation",
            FailureKind::Output => "output",
            FailureKind::Hang => "hang",
            FailureKind::Runtime => "runtime",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Failure {
    pub kind: FailureKind,
    pub interface: Interface,
    /// The first message, with numbers and names made generic, so that
    /// the same fault in two programs gives the same class.
    pub message: String,
    pub detail: String,
}

impl Failure {
    pub fn class(&self) -> String {
        format!(
            "{} {}: {}",
            self.interface.name(),
            self.kind.name(),
            self.message
        )
    }
}

#[derive(Debug)]
pub enum Outcome {
    Pass,
    Fail(Failure),
    /// The program itself is no valid deterministic OpenMP program: a fault
    /// of the generator, never of pomp.
    Invalid(String),
}

/// The pomp binary, the compilers and the checking libraries they built,
/// once per process, and pomp's runtime archive.
pub struct Toolchain {
    pomp: PathBuf,
    compilers: Compilers,
    objects: tempfile::TempDir,
    runtime: PathBuf,
}

impl Toolchain {
    pub fn new(
        pomp: &Path,
        support: &Path,
        runtime: &Path,
        compilers: Compilers,
    ) -> Result<Toolchain, String> {
        let objects = tempfile::Builder::new()
            .prefix("pomp-progen-lib-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        for name in ["pomp2_check", "pomp1_check"] {
            let mut command = Command::new(&compilers.c);
            command
                .args(COMPILE_FLAGS)
                .args(["-c"])
                .arg(support.join(format!("{name}.c")))
                .arg("-o")
                .arg(objects.path().join(format!("{name}.o")));
            build(command, objects.path())?;
        }
        Ok(Toolchain {
            pomp: pomp.to_path_buf(),
            compilers,
            objects,
            runtime: runtime.to_path_buf(),
        })
    }

    pub fn compilers(&self) -> &Compilers {
        &self.compilers
    }

    /// Whether it compiles programs of `lang`.
    pub fn compiles(&self, lang: Lang) -> bool {
        !lang.is_fortran() || self.compilers.fortran.is_some()
    }

    fn compiler(&self, lang: Lang) -> &str {
        match lang.is_fortran() {
            true => self.compilers.fortran.as_deref().unwrap_or("gfortran"),
            false => &self.compilers.c,
        }
    }

    /// Compiles a source of `lang` in `dir`, the flags of every program
    /// first.
    fn compiling(&self, lang: Lang) -> Command {
        let mut command = Command::new(self.compiler(lang));
        command.args(COMPILE_FLAGS);
        if !self.compilers.is_default() {
            command.arg(CLANG_DIRECTIVES_WHOLE);
        }
        command
    }

    fn check_object(&self, interface: Interface) -> PathBuf {
        self.objects
            .path()
            .join(format!("{}.o", interface.library()))
    }
}

/// pomp's output gets an upper-case Fortran suffix so that gfortran runs the
/// preprocessor over its `#line` markers.
fn instrumented_extension(lang: Lang) -> &'static str {
    match lang {
        Lang::C => "c",
        Lang::FortranFree => "F90",
        Lang::FortranFixed => "F",
    }
}

struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

fn describe(status: &ExitStatus) -> String {
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => status.to_string(),
    }
}

fn build(mut command: Command, dir: &Path) -> Result<(), String> {
    let output = command
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start {command:?}: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Runs a program in `dir` to its end or the timeout, with the settings
/// `env` adds; `None` means it was killed.
fn run(
    executable: &Path,
    threads: &str,
    dir: &Path,
    label: &str,
    env: &[(&str, String)],
) -> Result<Option<Run>, String> {
    let stdout_path = dir.join(format!("{label}.stdout"));
    let stderr_path = dir.join(format!("{label}.stderr"));
    let mut command = Command::new(executable);
    command
        .current_dir(dir)
        .env("OMP_NUM_THREADS", threads)
        // Waiting threads sleep rather than spin: the machine is shared.
        .env("OMP_WAIT_POLICY", "passive")
        .stdin(Stdio::null())
        .stdout(File::create(&stdout_path).map_err(|e| e.to_string())?)
        .stderr(File::create(&stderr_path).map_err(|e| e.to_string())?)
        .envs(env.iter().map(|(name, value)| (name, value)));
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {executable:?}: {e}"))?;
    let deadline = Instant::now() + RUN_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(3));
    };
    let read = |p: &Path| String::from_utf8_lossy(&fs::read(p).unwrap_or_default()).into_owned();
    Ok(Some(Run {
        status,
        stdout: read(&stdout_path),
        stderr: read(&stderr_path),
    }))
}

/// Numbers, addresses and generated names differ from program to program
/// for the same fault; a class ignores them.
pub fn generic(message: &str) -> String {
    let mut out = String::new();
    let mut chars = message.trim().chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            if c == '0' && chars.peek() == Some(&'x') {
                chars.next();
                while chars.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                    chars.next();
                }
                out.push('X');
                continue;
            }
            while chars.peek().is_some_and(|c| c.is_ascii_digit()) {
                chars.next();
            }
            out.push('N');
        } else {
            out.push(c);
        }
    }
    // Work paths say nothing about the fault.
    let mut words: Vec<String> = Vec::new();
    for word in out.split_whitespace() {
        if word.contains("/tmp/") || word.contains("pomp-progen-") {
            words.push("FILE".into());
        } else {
            words.push(word.to_string());
        }
    }
    let mut text = words.join(" ");
    if text.len() > 160 {
        let mut cut = 160;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    text
}

/// The first diagnostic of a compiler's or pomp's error output.
fn first_error(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.contains("error") || l.contains("Error"))
        .or_else(|| text.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("(no message)");
    // gfortran prints the message on the line after "Error:" locations.
    let line = match line.find("rror: ") {
        Some(at) => &line[at + 6..],
        None => line,
    };
    let line = if line.trim().is_empty() {
        text.lines()
            .skip_while(|l| !l.contains("rror"))
            .nth(1)
            .unwrap_or(line)
    } else {
        line
    };
    generic(line)
}

fn first_violation(report: &str, interface: Interface) -> String {
    match interface {
        Interface::Pomp2 => {
            let mut lines = report.lines().skip_while(|l| !l.contains(" violations"));
            lines.next();
            generic(lines.next().unwrap_or("(no violation listed)"))
        }
        Interface::Pomp1 => {
            let line = report
                .lines()
                .find(|l| l.contains("first: "))
                .unwrap_or("(no violation listed)");
            let first = line.split("first: ").nth(1).unwrap_or(line);
            // "(region NAME at FILE:LINE)": the construct is the useful part.
            let cut = first.find(" at ").unwrap_or(first.len());
            generic(&first[..cut])
        }
    }
}

/// Checks `source` (a file named `case.<ext>` in `dir`) against the
/// interfaces given. The original is compiled once and must run alike with
/// every thread count.
pub fn check(
    toolchain: &Toolchain,
    source: &str,
    lang: Lang,
    interfaces: &[Interface],
    dir: &Path,
) -> Result<Outcome, String> {
    let file = dir.join(format!("case.{}", lang.extension()));
    fs::write(&file, source).map_err(|e| e.to_string())?;
    let original = dir.join("original");
    let mut command = toolchain.compiling(lang);
    command.arg(&file).arg("-o").arg(&original);
    if let Err(e) = build(command, dir) {
        return Ok(Outcome::Invalid(format!(
            "the original does not compile:\n{e}"
        )));
    }
    let mut expected: Vec<Run> = Vec::new();
    for threads in THREAD_COUNTS {
        match run(&original, threads, dir, "original", &[])? {
            None => {
                return Ok(Outcome::Invalid(format!(
                    "the original hangs with {threads} threads"
                )))
            }
            Some(run) => {
                if run.status.code().is_none() {
                    return Ok(Outcome::Invalid(format!(
                        "the original crashes with {threads} threads: {}\n{}",
                        describe(&run.status),
                        run.stderr
                    )));
                }
                if let Some(first) = expected.first() {
                    if first.stdout != run.stdout || first.status.code() != run.status.code() {
                        return Ok(Outcome::Invalid(format!(
                            "the original's output depends on the thread count: \
                             with {} threads {}, with {threads} {}:\n{}{}\n---\n{}{}",
                            THREAD_COUNTS[0],
                            describe(&first.status),
                            describe(&run.status),
                            first.stdout,
                            first.stderr,
                            run.stdout,
                            run.stderr
                        )));
                    }
                }
                expected.push(run);
            }
        }
    }
    let measurement = measurement::read(source);
    let input = match measurement.preprocessed {
        true => match preprocess(toolchain, &file, lang, dir) {
            Ok(preprocessed) => preprocessed,
            Err(e) => {
                return Ok(Outcome::Invalid(format!(
                    "the preprocessor fails on the original:\n{e}"
                )))
            }
        },
        false => file.clone(),
    };
    for interface in interfaces {
        let instrumented = Instrumented {
            file: &input,
            lang,
            interface: *interface,
            measurement: &measurement,
        };
        if let Some(failure) = check_instrumented(toolchain, &instrumented, &expected, dir)? {
            return Ok(Outcome::Fail(failure));
        }
    }
    Ok(Outcome::Pass)
}

/// The preprocessor's output for `file`, as a build that saves its
/// temporaries names it: `.i` for C, Fortran in lower case, which gfortran
/// does not preprocess again.
fn preprocess(
    toolchain: &Toolchain,
    file: &Path,
    lang: Lang,
    dir: &Path,
) -> Result<PathBuf, String> {
    let extension = match lang {
        Lang::C => "i",
        Lang::FortranFree => "f90",
        Lang::FortranFixed => "f",
    };
    let preprocessed = dir.join(format!("case.preprocessed.{extension}"));
    let mut command = Command::new(toolchain.compiler(lang));
    command.args(["-E", "-fopenmp"]);
    if lang.is_fortran() {
        command.arg("-cpp");
    }
    command.arg(file).arg("-o").arg(&preprocessed);
    build(command, dir)?;
    Ok(preprocessed)
}

/// A program as one interface instruments it.
struct Instrumented<'a> {
    file: &'a Path,
    lang: Lang,
    interface: Interface,
    measurement: &'a Measurement,
}

fn check_instrumented(
    toolchain: &Toolchain,
    program: &Instrumented,
    expected: &[Run],
    dir: &Path,
) -> Result<Option<Failure>, String> {
    let Instrumented {
        file,
        lang,
        interface,
        measurement,
    } = *program;
    let fail = |kind, message: String, detail: String| {
        Ok(Some(Failure {
            kind,
            interface,
            message,
            detail,
        }))
    };
    let instrumented = dir.join(format!(
        "case.{}.{}",
        interface.name(),
        instrumented_extension(lang)
    ));
    let idf = dir.join(format!("{}.json", interface.name()));
    let mut command = Command::new(&toolchain.pomp);
    command
        .arg("instrument")
        .arg(file)
        .arg("-o")
        .arg(&instrumented)
        .arg("--idf")
        .arg(&idf)
        .args(["--interface", interface.name()]);
    if let Some(regions) = &measurement.regions {
        command.arg(format!("--regions={regions}"));
    }
    if let Some(filter) = measurement::filter_file(measurement) {
        let path = dir.join("filter.txt");
        fs::write(&path, filter).map_err(|e| e.to_string())?;
        command.arg(format!("--filter={}", path.display()));
    }
    let output = command
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run pomp: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        return fail(FailureKind::Refused, first_error(&stderr), stderr);
    }
    let object = dir.join(format!("{}.o", interface.name()));
    let mut command = toolchain.compiling(lang);
    command.arg("-c").arg(&instrumented).arg("-o").arg(&object);
    if let Err(e) = build(command, dir) {
        return fail(FailureKind::Compile, first_error(&e), e);
    }
    let idf: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&idf).map_err(|e| format!("no IDF: {e}"))?)
            .map_err(|e| format!("IDF is not JSON: {e}"))?;
    let objects = vec![object.clone(), registration(toolchain, &idf, &object, dir)?];
    let executable = dir.join(format!("{}.exe", interface.name()));
    let library = [toolchain.check_object(interface).into_os_string()];
    if let Err(e) = link(toolchain, lang, &objects, &library, &executable, dir) {
        return fail(
            FailureKind::Compile,
            format!("link: {}", first_error(&e)),
            e,
        );
    }
    let mut reports = Vec::new();
    for (threads, original) in THREAD_COUNTS.iter().zip(expected) {
        let report_path = dir.join(format!("{}.check", interface.name()));
        let _ = fs::remove_file(&report_path);
        let report_setting = [("POMP_CHECK_OUT", report_path.display().to_string())];
        let Some(run) = run(&executable, threads, dir, interface.name(), &report_setting)? else {
            return fail(
                FailureKind::Hang,
                "the instrumented program hangs".into(),
                format!("{threads} threads"),
            );
        };
        let report = fs::read_to_string(&report_path).unwrap_or_default();
        let ok_line = format!("{}: OK", interface.library());
        if !report.lines().any(|l| l == ok_line) {
            let detail = format!(
                "{threads} threads, {}:\n{report}\nstderr:\n{}",
                describe(&run.status),
                run.stderr
            );
            if report.is_empty() {
                return fail(
                    FailureKind::Output,
                    format!("no checking report; {}", generic(&describe(&run.status))),
                    detail,
                );
            }
            return fail(
                FailureKind::Violation,
                first_violation(&report, interface),
                detail,
            );
        }
        // Every generated program initialises locks, which POMP2 sees, so a
        // run without events means the instrumentation went missing.
        let events = report
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{}: events: ", interface.library())))
            .and_then(|n| n.trim().parse::<u64>().ok())
            .unwrap_or(0);
        if events == 0 && interface == Interface::Pomp2 {
            return fail(FailureKind::Output, "no POMP event was seen".into(), report);
        }
        if let Some((message, detail)) = difference(threads, original, &run) {
            return fail(FailureKind::Output, message, detail);
        }
        reports.push(report);
    }
    if interface == Interface::Pomp2 {
        let linked = Linked {
            lang,
            objects: &objects,
            measurement,
            expected,
            reports: &reports,
            events_reproducible: events_reproducible(toolchain, &idf),
        };
        if let Some((message, detail)) = check_runtime(toolchain, &linked, dir)? {
            return fail(FailureKind::Runtime, generic(&message), detail);
        }
    }
    Ok(None)
}

/// Links objects with libraries (files or linker arguments).
fn link(
    toolchain: &Toolchain,
    lang: Lang,
    objects: &[PathBuf],
    libraries: &[std::ffi::OsString],
    executable: &Path,
    dir: &Path,
) -> Result<(), String> {
    let mut command = Command::new(toolchain.compiler(lang));
    command
        .args(COMPILE_FLAGS)
        .args(objects)
        .args(libraries)
        .arg("-o")
        .arg(executable);
    build(command, dir)
}

/// How a run differs from the original's: the class's message and the
/// details, or `None` when it printed and ended alike.
fn difference(threads: &str, original: &Run, run: &Run) -> Option<(String, String)> {
    if run.stdout == original.stdout && run.status.code() == original.status.code() {
        return None;
    }
    let mut detail = String::new();
    writeln!(
        detail,
        "{threads} threads: the original ended with {}, the instrumented program with {}",
        describe(&original.status),
        describe(&run.status)
    )
    .unwrap();
    detail.push_str(
        &similar::TextDiff::from_lines(&original.stdout, &run.stdout)
            .unified_diff()
            .header("original", "instrumented")
            .to_string(),
    );
    let message = if run.status.code() != original.status.code() {
        "exit status differs"
    } else {
        "stdout differs"
    };
    Some((message.into(), detail))
}

/// An instrumented POMP2 program's objects, to link with pomp's runtime,
/// and what its runs with the checking library gave.
struct Linked<'a> {
    lang: Lang,
    objects: &'a [PathBuf],
    measurement: &'a Measurement,
    expected: &'a [Run],
    /// The checking library's report of each run, by thread count.
    reports: &'a [String],
    /// Whether another run makes the same events.
    events_reproducible: bool,
}

/// libomp gives a parallel region forked in a league of teams the threads
/// that are free when it forks: how many run its team, and so the events
/// they make, differ from run to run.
fn events_reproducible(toolchain: &Toolchain, idf: &serde_json::Value) -> bool {
    let teams = idf["regions"].as_array().is_some_and(|regions| {
        (regions.iter()).any(|r| r["type"].as_str().is_some_and(|t| t.starts_with("teams")))
    });
    !teams || toolchain.compilers.openmp_runtime() != "libomp"
}

/// The checking library's events that open a call-path node of pomp's
/// runtime, with the node's kind: each such event is one visit. (Parallel
/// regions and implicit barriers also get nodes no event opens: a
/// worker's path, an inferred barrier.)
const VISITS: &[(&str, Kind)] = &[
    ("For_enter", Kind::For),
    ("Do_enter", Kind::Do),
    ("Sections_enter", Kind::Sections),
    ("Section_begin", Kind::Section),
    ("Single_enter", Kind::Single),
    ("Single_begin", Kind::SingleBody),
    ("Master_begin", Kind::Master),
    ("Masked_begin", Kind::Masked),
    ("Critical_enter", Kind::Critical),
    ("Atomic_enter", Kind::Atomic),
    ("Ordered_enter", Kind::Ordered),
    ("Workshare_enter", Kind::Workshare),
    ("Flush_enter", Kind::Flush),
    ("Barrier_enter", Kind::Barrier),
    ("Task_create_begin", Kind::TaskCreate),
    ("Task_begin", Kind::Task),
    ("Untied_task_create_begin", Kind::UntiedTaskCreate),
    ("Untied_task_begin", Kind::UntiedTask),
    ("Taskwait_begin", Kind::Taskwait),
    ("Begin", Kind::UserRegion),
    ("Taskgroup_enter", Kind::Taskgroup),
    ("Taskloop_enter", Kind::Taskloop),
    ("Scope_enter", Kind::Scope),
    ("Loop_enter", Kind::Loop),
    ("Teams_enter", Kind::Teams),
    ("Distribute_enter", Kind::Distribute),
    ("Taskyield_begin", Kind::Taskyield),
];

/// How libomp's notes on standard error begin: that a team got fewer
/// threads than it asked for, which depends on the run.
const OPENMP_RUNTIME_NOTE: &str = "OMP: ";

/// Runs the program linked with pomp's runtime, throttled as the program's
/// measurement says and with its trace on: it must end as the original
/// did, and its profile must hold every region registered, no thread cut
/// short, no end without its begin, and the visits the checking library
/// counted as events (throttling stops the clock, never the count).
fn check_runtime(
    toolchain: &Toolchain,
    linked: &Linked,
    dir: &Path,
) -> Result<Option<(String, String)>, String> {
    let executable = dir.join("runtime.exe");
    let libraries = pomp_wrapper::link_arguments(Some(&toolchain.runtime.display().to_string()))
        .map_err(|e| format!("{e:#}"))?;
    if let Err(e) = link(
        toolchain,
        linked.lang,
        linked.objects,
        &libraries,
        &executable,
        dir,
    ) {
        return Ok(Some((format!("link: {}", first_error(&e)), e)));
    }
    let throttling = match linked.measurement.throttle_after {
        Some(visits) => vec![
            ("POMP_THROTTLE_NUMCALLS", visits.to_string()),
            // Microseconds: every visit is cheap enough.
            ("POMP_THROTTLE_PERCALL", "1000000".to_string()),
        ],
        None => vec![("POMP_THROTTLE", "0".to_string())],
    };
    for ((threads, original), report) in THREAD_COUNTS
        .iter()
        .zip(linked.expected)
        .zip(linked.reports)
    {
        let run_dir = dir.join(format!("runtime-{threads}"));
        fs::create_dir_all(&run_dir).map_err(|e| e.to_string())?;
        let mut settings = vec![
            ("POMP_PROFILE", "profile.json".to_string()),
            ("POMP_SUMMARY", "0".to_string()),
            ("POMP_TRACE", "1".to_string()),
        ];
        settings.extend(throttling.iter().cloned());
        let Some(run) = run(&executable, threads, &run_dir, "runtime", &settings)? else {
            return Ok(Some((
                "the program hangs".into(),
                format!("{threads} threads"),
            )));
        };
        if let Some(found) = difference(threads, original, &run) {
            return Ok(Some(found));
        }
        let said = |run: &Run| -> Vec<String> {
            (run.stderr.lines())
                .filter(|line| !line.starts_with(OPENMP_RUNTIME_NOTE))
                .map(str::to_string)
                .collect()
        };
        if let Some(line) = said(&run).into_iter().find(|l| !said(original).contains(l)) {
            return Ok(Some((
                format!("stderr: {}", generic(&line)),
                format!("{threads} threads, stderr:\n{}", run.stderr),
            )));
        }
        let profile = match pomp2::profile::read(run_dir.join("profile.json")) {
            Ok(profile) => profile,
            Err(e) => return Ok(Some(("no profile".into(), e.to_string()))),
        };
        let report = linked.events_reproducible.then_some(report.as_str());
        if let Some(found) = profile_fault(&profile, report) {
            return Ok(Some((found.clone(), format!("{threads} threads: {found}"))));
        }
        let trace = fs::read_dir(&run_dir)
            .map_err(|e| e.to_string())?
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "ptrace"));
        match trace.map(pomp2::trace::read) {
            Some(Ok(_)) => {}
            Some(Err(e)) => return Ok(Some(("the trace does not read".into(), e.to_string()))),
            None => return Ok(Some(("no trace".into(), format!("{threads} threads")))),
        }
    }
    Ok(None)
}

/// What is wrong with a profile of a run whose checking report, where it
/// made the same events, is `report`: the message of a failure class, or
/// `None`.
fn profile_fault(profile: &Profile, report: Option<&str>) -> Option<String> {
    if let Some(region) = profile.regions.iter().find(|r| r.malformed_ctc) {
        return Some(format!("a malformed CTC string: {}", region.region_type));
    }
    if !profile.unregistered_regions.is_empty() {
        return Some("regions used but not registered".into());
    }
    if !profile.incomplete_threads.is_empty() {
        return Some("threads the profile could not finish".into());
    }
    if let Some(thread) = profile.threads.iter().find(|t| t.unmatched_ends != 0) {
        return Some(format!(
            "{} end events without their begin on a thread",
            thread.unmatched_ends
        ));
    }
    let report = report?;
    let mut visits: BTreeMap<Kind, u64> = BTreeMap::new();
    fn count(node: &Node, visits: &mut BTreeMap<Kind, u64>) {
        *visits.entry(node.kind).or_default() += node.visits;
        for child in &node.children {
            count(child, visits);
        }
    }
    for thread in &profile.threads {
        count(&thread.tree, &mut visits);
    }
    let events = event_counts(report);
    VISITS.iter().find_map(|(event, kind)| {
        let expected = events.get(*event).copied().unwrap_or(0);
        let counted = visits.get(kind).copied().unwrap_or(0);
        (expected != counted).then(|| {
            format!(
                "{} visits of kind {} where the program made {expected} {event} events",
                counted,
                kind.name()
            )
        })
    })
}

/// The checking library's count of each event (`  Task_begin   12`).
fn event_counts(report: &str) -> BTreeMap<&str, u64> {
    report
        .lines()
        .filter(|l| l.starts_with("  "))
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let name = words.next()?;
            let count = words.next()?.parse().ok()?;
            words.next().is_none().then_some((name, count))
        })
        .collect()
}

/// Compiles the link-time registration the wrappers make for the object:
/// the registration functions the IDF names are checked to be defined, and
/// in the original interface the table of descriptors is made.
fn registration(
    toolchain: &Toolchain,
    idf: &serde_json::Value,
    object: &Path,
    dir: &Path,
) -> Result<PathBuf, String> {
    for key in ["init_function", "user_init_function"] {
        if let Some(name) = idf.get(key).and_then(|v| v.as_str()) {
            defined_symbol(object, name)?;
        }
    }
    let source =
        pomp_wrapper::registration_source(&[object.to_path_buf()]).map_err(|e| format!("{e:#}"))?;
    let path = dir.join("registration.c");
    fs::write(&path, source).map_err(|e| e.to_string())?;
    let registration_object = dir.join("registration.o");
    let mut command = toolchain.compiling(Lang::C);
    command
        .arg("-c")
        .arg(&path)
        .arg("-o")
        .arg(&registration_object);
    build(command, dir)?;
    Ok(registration_object)
}

/// The name under which the object defines the init function: as written
/// (C), or as gfortran spells a subroutine (lower case, trailing underscore).
fn defined_symbol(object: &Path, name: &str) -> Result<String, String> {
    use object::{Object, ObjectSymbol};
    let bytes = fs::read(object).map_err(|e| e.to_string())?;
    let file = object::File::parse(&*bytes).map_err(|e| e.to_string())?;
    let fortran = format!("{}_", name.to_ascii_lowercase());
    file.symbols()
        .filter(|s| s.is_definition() && s.is_global())
        .filter_map(|s| s.name().ok())
        .find(|s| *s == name || *s == fortran)
        .map(str::to_string)
        .ok_or_else(|| format!("the instrumented object defines no {name}"))
}

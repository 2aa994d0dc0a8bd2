//! The differential check of one program: compile and run it as written,
//! then instrument it with pomp, compile that with the same flags, link the
//! checking POMP2 (or POMP1) library and run it again. Same output, same
//! exit status and a clean report from the checking library, or a failure
//! with a class that names what went wrong.

use super::ast::Lang;
use super::toolchains::Toolchain as Compilers;
use std::fmt::Write as _;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const COMPILE_FLAGS: &[&str] = &["-fopenmp", "-O1"];
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
}

impl FailureKind {
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Refused => "refused",
            FailureKind::Compile => "compile",
            FailureKind::Violation => "violation",
            FailureKind::Output => "output",
            FailureKind::Hang => "hang",
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
/// once per process.
pub struct Toolchain {
    pomp: PathBuf,
    compilers: Compilers,
    objects: tempfile::TempDir,
}

impl Toolchain {
    pub fn new(pomp: &Path, support: &Path, compilers: Compilers) -> Result<Toolchain, String> {
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

/// Runs a program to its end or the timeout; `None` means it was killed.
fn run(
    executable: &Path,
    threads: &str,
    dir: &Path,
    label: &str,
    report: Option<&Path>,
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
        .stderr(File::create(&stderr_path).map_err(|e| e.to_string())?);
    if let Some(report) = report {
        command.env("POMP_CHECK_OUT", report);
    }
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
    let mut command = Command::new(toolchain.compiler(lang));
    command
        .args(COMPILE_FLAGS)
        .arg(&file)
        .arg("-o")
        .arg(&original);
    if let Err(e) = build(command, dir) {
        return Ok(Outcome::Invalid(format!(
            "the original does not compile:\n{e}"
        )));
    }
    let mut expected: Vec<Run> = Vec::new();
    for threads in THREAD_COUNTS {
        match run(&original, threads, dir, "original", None)? {
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
                            "the original's output depends on the thread count:\n{}\n---\n{}",
                            first.stdout, run.stdout
                        )));
                    }
                }
                expected.push(run);
            }
        }
    }
    for interface in interfaces {
        if let Some(failure) =
            check_instrumented(toolchain, &file, lang, *interface, &expected, dir)?
        {
            return Ok(Outcome::Fail(failure));
        }
    }
    Ok(Outcome::Pass)
}

fn check_instrumented(
    toolchain: &Toolchain,
    file: &Path,
    lang: Lang,
    interface: Interface,
    expected: &[Run],
    dir: &Path,
) -> Result<Option<Failure>, String> {
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
    let output = Command::new(&toolchain.pomp)
        .arg("instrument")
        .arg(file)
        .arg("-o")
        .arg(&instrumented)
        .arg("--idf")
        .arg(&idf)
        .args(["--interface", interface.name()])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run pomp: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        return fail(FailureKind::Refused, first_error(&stderr), stderr);
    }
    let object = dir.join(format!("{}.o", interface.name()));
    let mut command = Command::new(toolchain.compiler(lang));
    command
        .args(COMPILE_FLAGS)
        .arg("-c")
        .arg(&instrumented)
        .arg("-o")
        .arg(&object);
    if let Err(e) = build(command, dir) {
        return fail(FailureKind::Compile, first_error(&e), e);
    }
    let idf: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&idf).map_err(|e| format!("no IDF: {e}"))?)
            .map_err(|e| format!("IDF is not JSON: {e}"))?;
    let mut objects = vec![object.clone()];
    objects.push(registration(toolchain, &idf, &object, dir)?);
    let executable = dir.join(format!("{}.exe", interface.name()));
    let mut command = Command::new(toolchain.compiler(lang));
    command
        .args(COMPILE_FLAGS)
        .args(&objects)
        .arg(toolchain.check_object(interface))
        .arg("-o")
        .arg(&executable);
    if let Err(e) = build(command, dir) {
        return fail(
            FailureKind::Compile,
            format!("link: {}", first_error(&e)),
            e,
        );
    }
    for (threads, original) in THREAD_COUNTS.iter().zip(expected) {
        let report_path = dir.join(format!("{}.check", interface.name()));
        let _ = fs::remove_file(&report_path);
        let Some(run) = run(
            &executable,
            threads,
            dir,
            interface.name(),
            Some(&report_path),
        )?
        else {
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
        if run.stdout != original.stdout || run.status.code() != original.status.code() {
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
            return fail(FailureKind::Output, message.into(), detail);
        }
    }
    Ok(None)
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
    let mut command = Command::new(&toolchain.compilers.c);
    command
        .args(COMPILE_FLAGS)
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

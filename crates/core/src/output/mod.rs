//! Output: the instrumented source, the IDF descriptor, and writing both
//! without ever leaving a partial file behind.

pub mod c;
pub mod fortran;
pub mod idf;

use std::io::Write;
use std::path::Path;

/// The choices that shape the instrumented text but not what is measured.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Config {
    /// Follow every insertion with a `#line` marker, so that diagnostics,
    /// debuggers and profiles point at the user's lines.
    pub line_markers: bool,
    /// The file is preprocessed already (OPARI2's `--preprocessed`): the
    /// declarations go where the line [`PREPROCESSED_MARKER`] stands, in
    /// its place, after the headers the file included.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub preprocessed: bool,
    /// Write what the inserted code needs declared (handles, CTC strings,
    /// prototypes) into a file of its own, which the output includes by
    /// this name (OPARI2's `INFILE.opari.inc`): C includes it where the
    /// declarations would stand, each Fortran program unit that uses them
    /// in its specification part.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declarations_file: Option<String>,
}

/// What an emitter makes of a file.
#[derive(Debug, Default)]
pub struct Emitted {
    pub edits: crate::edits::EditSet,
    /// The text of the declarations' own file, when
    /// [`Config::declarations_file`] puts them into one.
    pub declarations: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            line_markers: true,
            preprocessed: false,
            declarations_file: None,
        }
    }
}

/// The line that marks, in a preprocessed file, where instrumentation's
/// declarations go (OPARI2's convention).
pub const PREPROCESSED_MARKER: &str = "___POMP2_INCLUDE___";

/// The byte range of the [`PREPROCESSED_MARKER`] line, its line break
/// included.
pub fn preprocessed_marker(bytes: &[u8]) -> Option<std::ops::Range<usize>> {
    let mut start = 0;
    while start < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |p| start + p + 1);
        if bytes[start..end].trim_ascii() == PREPROCESSED_MARKER.as_bytes() {
            return Some(start..end);
        }
        start = end;
    }
    None
}

/// The edits that instrument `file` as the plan says, in its language.
pub fn emit(
    file: &crate::source::SourceFile,
    model: &crate::model::Model,
    plan: &crate::rules::NamedPlan,
    config: &Config,
) -> Emitted {
    match file.language.family() {
        crate::language::Family::C => c::emit(file, model, plan, config),
        crate::language::Family::Fortran => fortran::emit(file, model, plan, config),
    }
}

/// What an emitter writes for each kind of item a plan holds. Both
/// languages walk a plan in the one order [`write_plan`] gives, so that
/// edits at the same place come out alike whatever the language.
trait PlanWriter {
    fn construct(&mut self, construct: &crate::rules::Construct);
    fn pomp_directive(&mut self, site: usize, action: &crate::rules::PompAction);
    fn bare_directive(&mut self, bare: &crate::rules::BareDirective);
    fn value_scope(&mut self, scope: &crate::rules::ValueScope);
    fn exit(&mut self, exit: &crate::rules::RegionExit);
    fn function(&mut self, function: &crate::rules::FunctionRegion);
    fn lock_call(&mut self, lock: &crate::model::LockCall);
}

fn write_plan(plan: &crate::rules::Plan, writer: &mut impl PlanWriter) {
    for construct in &plan.constructs {
        writer.construct(construct);
    }
    for (site, action) in &plan.pomp_directives {
        writer.pomp_directive(*site, action);
    }
    for bare in &plan.bare_directives {
        writer.bare_directive(bare);
    }
    for scope in &plan.value_scopes {
        writer.value_scope(scope);
    }
    for exit in &plan.region_exits {
        writer.exit(exit);
    }
    for function in &plan.functions {
        writer.function(function);
    }
    for lock in &plan.lock_calls {
        writer.lock_call(lock);
    }
}

/// `text` to be appended to `file`, starting on a line of its own.
fn on_lines_of_its_own(file: &crate::source::SourceFile, text: String) -> String {
    if file.bytes.ends_with(b"\n") || file.bytes.is_empty() {
        text
    } else {
        format!("\n{text}")
    }
}

/// Write `bytes` to `path` through a temporary file in the same directory
/// and a rename: readers see the old file, no file, or the whole new one,
/// never part of one. Like a compiler's output it is not forced to disk:
/// after a crash the build reruns anyway, and a sync per file would
/// dominate large builds.
///
/// The old file is removed before the rename rather than replaced by it:
/// ext4 writes a file renamed over another out to disk at once (its
/// `auto_da_alloc` guard), which made replacing a 6 MB output cost 6–8% of
/// its instrumentation. Its other names, such as a source it was a hard
/// link to, keep the old bytes.
///
/// A path naming something other than a regular file (`/dev/null`, a
/// pipe) is written in place: renaming over it would replace the device
/// with a file, for every program on the machine. A symbolic link to a
/// regular file stays a link, its target is replaced; a link to a file
/// not made yet stays a link too, and the file is made.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically_with(path, |to| to.write_all(bytes))
}

/// [`write_atomically`], with the bytes written by `write` as it makes
/// them, through a buffer: the output is never held whole.
pub fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    stage(path, write)?.commit()
}

/// An output written beside its path, not yet in its place: several
/// outputs of one run are all staged before any is committed, so that a
/// run writes all of them or none.
#[derive(Debug)]
pub struct Staged {
    /// The temporary file and the path it goes to; `None` for a device,
    /// written in place as it was staged.
    file: Option<(tempfile::NamedTempFile, std::path::PathBuf)>,
}

impl Staged {
    /// Put the output in its place.
    pub fn commit(self) -> std::io::Result<()> {
        let Some((temporary, path)) = self.file else {
            return Ok(());
        };
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        temporary.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// Write what `write` makes for `path` beside it, through a buffer, to be
/// put in place by [`Staged::commit`]; dropped uncommitted, nothing is
/// left. A device is written in place at once. The error says why in
/// words that name the user's paths, never the temporary file's.
pub fn stage(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<Staged> {
    let path = match std::fs::metadata(path) {
        Ok(metadata) if !metadata.is_file() && !metadata.is_dir() => {
            let device = std::fs::OpenOptions::new().write(true).open(path)?;
            write_buffered(device, write)?;
            return Ok(Staged { file: None });
        }
        Ok(metadata) if metadata.is_dir() => {
            return Err(std::io::Error::other("it is a directory"));
        }
        Ok(_) => std::fs::canonicalize(path)?,
        Err(_) => end_of_links(path),
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // Created as any new file is (0666 less the umask), not private as a
    // temporary file would be: builds by other users read it.
    let mut temporary = tempfile::Builder::new()
        .prefix(".pomp-")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(|error| no_file_in(dir, error))?;
    write_buffered(temporary.as_file_mut(), write)?;
    Ok(Staged {
        file: Some((temporary, path)),
    })
}

/// Why no file can be made in `dir`, in words that name it.
fn no_file_in(dir: &Path, error: std::io::Error) -> std::io::Error {
    let message = match std::fs::metadata(dir) {
        Err(_) => format!("the directory {} does not exist", dir.display()),
        Ok(metadata) if !metadata.is_dir() => format!("{} is not a directory", dir.display()),
        Ok(_) => {
            // The system's own words, without the temporary file's name
            // the error ends with.
            let words = error.to_string();
            let cause = words.split(" at path ").next().unwrap_or_default();
            format!("no file can be made in {}: {cause}", dir.display())
        }
    };
    std::io::Error::new(error.kind(), message)
}

/// Runs `write` on `to` through a buffer, flushed at the end: the text is
/// written in many small pieces.
pub fn write_buffered(
    to: impl Write,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut to = std::io::BufWriter::with_capacity(64 * 1024, to);
    write(&mut to)?;
    to.flush()
}

/// Where the symbolic links from `path` lead, followed as far as they go:
/// `path` itself when it is no link. A link to a file not made yet (or to
/// a closed `/proc/self/fd/1`, as `/dev/stdout` is without an output) is
/// written through, never replaced by a file.
fn end_of_links(path: &Path) -> std::path::PathBuf {
    let mut at = path.to_path_buf();
    // As many as the system follows before it gives up.
    for _ in 0..40 {
        match std::fs::read_link(&at) {
            Ok(target) => at = at.parent().unwrap_or(Path::new("")).join(target),
            Err(_) => break,
        }
    }
    at
}

/// What the lines of a pomp directive become: the calls that replace it and
/// the line marker resuming the user's numbering, or, when nothing replaces
/// it, an empty line, so that the numbering below it holds without one.
pub(crate) fn directive_replacement(calls: String, resume: String) -> String {
    if calls.is_empty() {
        "\n".to_string()
    } else {
        calls + &resume
    }
}

/// The POMP wrapper a lock routine is renamed to, without the interface's
/// prefix: `omp_set_nest_lock` → `Set_nest_lock`. Front ends hand the
/// name over in lower case, as the OpenMP API spells it.
pub(crate) fn lock_wrapper(name: &str) -> String {
    let rest = name.strip_prefix("omp_").unwrap_or(name);
    let mut chars = rest.chars();
    match chars.next() {
        Some(c) => c.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// Nesting depth of a site, the order of edits at one offset: inner
/// constructs open after and close before outer ones.
pub(crate) fn nesting_depth(model: &crate::model::Model, site: usize) -> i64 {
    let mut depth = 0;
    let mut parent = model.sites[site].parent;
    while let Some(p) = parent {
        depth += 1;
        parent = model.sites[p].parent;
    }
    depth
}

/// What a region's context descriptor of the original interface says
/// besides its lines, the same in C and Fortran.
pub(crate) struct Pomp1Descriptor {
    /// The construct, or "region" for a user region.
    pub name: String,
    /// The critical section's or user region's name, else the enclosing
    /// function's.
    pub sub_name: String,
    pub num_sections: String,
}

impl Pomp1Descriptor {
    pub fn of(model: &crate::model::Model, region: &crate::rules::Region) -> Self {
        let unit = region.site.and_then(|s| model.sites[s].unit);
        let sub_name = region
            .name
            .clone()
            .or_else(|| unit.map(|u| model.units[u].name.clone()))
            .unwrap_or_default();
        let num_sections = region
            .aux
            .iter()
            .find(|(key, _)| key == "numSections")
            .map_or("0", |(_, value)| value.as_str())
            .to_string();
        Pomp1Descriptor {
            name: region.region_type.clone(),
            sub_name,
            num_sections,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn writing_a_pipe_or_through_a_link_keeps_them_what_they_are() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let pipe = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&pipe)
            .status()
            .unwrap();
        assert!(made.success());
        let reader = {
            let pipe = pipe.clone();
            std::thread::spawn(move || std::fs::read(pipe).unwrap())
        };
        super::write_atomically(&pipe, b"through the pipe").unwrap();
        // Before waiting for the reader, which waits for ever on a pipe
        // nobody opened.
        let kind = std::fs::symlink_metadata(&pipe).unwrap().file_type();
        assert!(kind.is_fifo(), "the pipe was replaced: {kind:?}");
        assert_eq!(reader.join().unwrap(), b"through the pipe");

        let target = dir.path().join("target.c");
        std::fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.c");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        super::write_atomically(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
    }

    #[test]
    fn a_link_to_nothing_yet_stays_a_link_and_its_target_is_made() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("out.c");
        std::os::unix::fs::symlink("made/later.c", &link).unwrap();
        let refused = super::write_atomically(&link, b"int x;\n");
        assert!(refused.is_err(), "the target's directory does not exist");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        std::fs::create_dir(dir.path().join("made")).unwrap();
        super::write_atomically(&link, b"int x;\n").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(
            std::fs::read(dir.path().join("made/later.c")).unwrap(),
            b"int x;\n"
        );
        // A closed standard output: its link leads into /proc, where no
        // file can be made; the link, like /dev/stdout, is left alone.
        let closed = dir.path().join("stdout");
        std::os::unix::fs::symlink("/proc/self/fd/987654", &closed).unwrap();
        assert!(super::write_atomically(&closed, b"x").is_err());
        assert!(std::fs::symlink_metadata(&closed).unwrap().is_symlink());
    }

    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn writing_replaces_the_file_and_leaves_its_other_names_alone() {
        let dir = tempfile::tempdir().unwrap();
        let (source, output) = (dir.path().join("source.c"), dir.path().join("output.c"));
        std::fs::write(&source, b"int old;\n").unwrap();
        std::fs::hard_link(&source, &output).unwrap();
        super::write_atomically(&output, b"int new;\n").unwrap();
        assert_eq!(std::fs::read(&output).unwrap(), b"int new;\n");
        assert_eq!(std::fs::read(&source).unwrap(), b"int old;\n");
        // Written in pieces, as the output is, larger than the buffer.
        let piece = vec![b' '; 40 * 1024];
        super::write_atomically_with(&output, |to| {
            to.write_all(b"int newer;")?;
            to.write_all(&piece)?;
            to.write_all(&piece)?;
            to.write_all(b"\n")
        })
        .unwrap();
        let written = std::fs::read(&output).unwrap();
        assert_eq!(written.len(), 10 + 2 * piece.len() + 1);
        assert!(written.starts_with(b"int newer;") && written.ends_with(b" \n"));
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 2, "a temporary file was left: {names:?}");
    }

    #[test]
    fn a_file_written_atomically_gets_the_mode_any_new_file_gets() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain.c");
        std::fs::write(&plain, b"int x;\n").unwrap();
        let written = dir.path().join("written.c");
        super::write_atomically(&written, b"int x;\n").unwrap();
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode();
        assert_eq!(mode(&written), mode(&plain));
        assert_eq!(std::fs::read(&written).unwrap(), b"int x;\n");
    }
}

//! One file of the tree into the mirror: instrumented, linked, copied, or
//! left as the last run made it.

use super::cache::{self, Entry, Output, Stat};
use super::report::{FileDiagnostic, FileReport, Kind, Mirror, Verdict};
use super::OnError;
use pomp_core::instrument::{instrument_guarded, may_need_instrumenting, Options};
use pomp_core::source::SourceFile;
use rustix::fs::{AtFlags, Mode, OFlags, CWD};
use std::collections::{BTreeMap, HashMap};
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A file to mirror.
#[derive(Debug)]
pub struct Job {
    pub relative: PathBuf,
    /// `relative`, `/`-separated: the file's name in the cache.
    pub key: String,
    /// The original, absolute; also the name instrumented code gives it
    /// (`#line` markers, CTC strings, region ids), so that debuggers,
    /// compiler messages and profiles point at the user's file.
    pub source: PathBuf,
    pub role: Role,
    /// Everything besides the content that decides the output: pomp's
    /// version, the role, the options and where the tree is.
    pub setup: String,
    /// Its directory among those [`open_directories`] opened for it.
    pub directory: usize,
}

#[derive(Clone, Debug)]
pub enum Role {
    /// Compiled on its own: instrumented with these options (the language
    /// set), which the files of one kind share.
    Source(Arc<Options>),
    /// Included by sources. Mirrored as written: instrumented, it would
    /// define its registration function and handles in every unit that
    /// includes it. Its directives are reported, read in `Options`'
    /// language.
    Header(Arc<Options>),
    Other,
    Symlink,
}

/// What every job shares.
pub struct Context<'a> {
    pub out_dir: &'a Path,
    /// Where each instrumented file's IDF descriptor is kept.
    pub idf_dir: &'a Path,
    pub on_error: OnError,
    /// When the last run began: statuses it recorded after that may hide
    /// a change.
    pub previous_start_ns: i128,
}

/// A job's outcome: its report and what the next run needs to know.
pub struct Done {
    pub report: FileReport,
    pub entry: Entry,
}

impl Job {
    fn kind(&self) -> Kind {
        match self.role {
            Role::Source(_) => Kind::Source,
            Role::Header(_) => Kind::Header,
            Role::Other => Kind::Other,
            Role::Symlink => Kind::Symlink,
        }
    }

    /// The file's IDF descriptor in the cache directory.
    pub fn idf_name(&self) -> String {
        format!("{}.json", cache::digest([self.key.as_bytes()]))
    }
}

/// One directory of the tree and its counterpart in the mirror, opened
/// once for the files of a chunk in it: each file's status is asked for
/// relative to it, and the mirror's listing (names and inode numbers)
/// shows which outputs are still hard links to their sources without a
/// status per output.
pub struct Directory {
    source: Option<OwnedFd>,
    output: Option<rustix::fs::Dir>,
    output_dev: u64,
    listing: HashMap<OsString, u64>,
}

impl Directory {
    fn open(root: &Path, out_dir: &Path, relative: &Path) -> Directory {
        let source = rustix::fs::openat(
            CWD,
            root.join(relative),
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .ok();
        let mut directory = Directory {
            source,
            output: None,
            output_dev: 0,
            listing: HashMap::new(),
        };
        let Ok(fd) = rustix::fs::openat(
            CWD,
            out_dir.join(relative),
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        ) else {
            return directory;
        };
        let (Ok(stat), Ok(mut listing)) = (rustix::fs::fstat(&fd), rustix::fs::Dir::new(fd)) else {
            return directory;
        };
        #[allow(clippy::unnecessary_cast)] // the field's type differs between targets
        {
            directory.output_dev = stat.st_dev as u64;
        }
        for entry in listing.by_ref() {
            let Ok(entry) = entry else {
                // Half a listing would tell a missing output from one
                // that is there: none is taken.
                directory.listing.clear();
                return directory;
            };
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if name != "." && name != ".." {
                directory.listing.insert(name.to_owned(), entry.ino());
            }
        }
        directory.output = Some(listing);
        directory
    }

    fn source_stat(&self, name: &OsStr, path: &Path) -> io::Result<Stat> {
        let stat = match &self.source {
            Some(fd) => rustix::fs::statat(fd, name, AtFlags::SYMLINK_NOFOLLOW),
            None => rustix::fs::lstat(path),
        };
        Ok(Stat::of_raw(&stat?))
    }

    /// Whether the mirror's `name` is what the last run left there, for a
    /// source whose status is `source`.
    fn holds(&self, name: &OsStr, output: &Output, source: &Stat) -> bool {
        let Some(listing) = &self.output else {
            return *output == Output::Nothing;
        };
        match output {
            Output::Nothing => !self.listing.contains_key(name),
            Output::Link => {
                self.output_dev == source.dev() && self.listing.get(name) == Some(&source.ino())
            }
            Output::File(stat) => listing.fd().is_ok_and(|fd| {
                rustix::fs::statat(fd, name, AtFlags::SYMLINK_NOFOLLOW)
                    .is_ok_and(|now| Stat::of_raw(&now) == *stat)
            }),
        }
    }
}

/// The directories of `jobs`, each opened once; each job learns which is
/// its own.
pub fn open_directories(jobs: &mut [Job], root: &Path, out_dir: &Path) -> Vec<Directory> {
    let mut relative: Vec<&Path> = Vec::new();
    let mut index: HashMap<&Path, usize> = HashMap::new();
    let mut indices = Vec::with_capacity(jobs.len());
    for job in jobs.iter() {
        let parent = job.relative.parent().unwrap_or(Path::new(""));
        let next = relative.len();
        let n = *index.entry(parent).or_insert(next);
        if n == next {
            relative.push(parent);
        }
        indices.push(n);
    }
    let directories = relative
        .iter()
        .map(|d| Directory::open(root, out_dir, d))
        .collect();
    for (job, n) in jobs.iter_mut().zip(indices) {
        job.directory = n;
    }
    directories
}

/// What [`check`] finds.
#[allow(clippy::large_enum_variant)] // moved once, into the chunk's results
pub enum Checked {
    /// The mirror holds what the last run left, and the file is as it was.
    UpToDate(Done),
    /// The file's status: it is to be brought up to date by [`process`].
    Changed(Stat),
}

/// Whether the mirror of one file is up to date, by statuses alone; `before`
/// is what the last run left. An error: the file could not be found any
/// more.
pub fn check(
    job: &Job,
    before: Option<&Entry>,
    cx: &Context,
    directory: &Directory,
) -> io::Result<Checked> {
    let name = job.relative.file_name().unwrap_or_default();
    let stat = directory.source_stat(name, &job.source)?;
    let previous = before.filter(|e| e.setup == job.setup);
    if let Some(previous) = previous {
        if previous.source == stat
            && !cache::racy(cx.previous_start_ns, &stat)
            && directory.holds(name, &previous.output, &stat)
        {
            return Ok(Checked::UpToDate(cached(job, previous, stat)));
        }
    }
    Ok(Checked::Changed(stat))
}

/// Bring the mirror of one file with status `stat` up to date; `before` is
/// what the last run left.
pub fn process(job: &Job, stat: Stat, before: Option<&Entry>, cx: &Context) -> Done {
    let previous = before.filter(|e| e.setup == job.setup);
    let output = cx.out_dir.join(&job.relative);
    let work = Work {
        job,
        cx,
        output: &output,
        stat,
        previous,
    };
    let (verdict, content, idf, worked) = match work.run() {
        Ok(done) => done,
        Err(error) => {
            let mut verdict = Verdict::new(job.kind(), Mirror::Nothing);
            verdict.failed = true;
            verdict.diagnostics.push(FileDiagnostic::file_error(format!(
                "cannot mirror it to {}: {error}",
                output.display()
            )));
            (verdict, None, None, true)
        }
    };
    // A hard link changes the source's status (its change time): what is
    // recorded is the status after it, which the next run finds.
    let (output, source) = match Stat::at(&output) {
        None => (Output::Nothing, stat),
        Some(now) if now.same_file(&stat) && !now.is_symlink() => (Output::Link, now),
        Some(now) => (Output::File(now), stat),
    };
    let entry = Entry {
        source,
        output,
        setup: job.setup.clone(),
        content,
        idf,
        verdict: verdict.clone(),
    };
    Done {
        report: FileReport {
            path: job.relative.clone(),
            size: stat.size(),
            cached: !worked,
            verdict,
        },
        entry,
    }
}

fn cached(job: &Job, previous: &Entry, stat: Stat) -> Done {
    Done {
        report: FileReport {
            path: job.relative.clone(),
            size: stat.size(),
            cached: true,
            verdict: previous.verdict.clone(),
        },
        entry: Entry {
            source: stat,
            ..previous.clone()
        },
    }
}

struct Work<'a> {
    job: &'a Job,
    cx: &'a Context<'a>,
    output: &'a Path,
    stat: Stat,
    previous: Option<&'a Entry>,
}

/// The verdict, the content hash, the IDF descriptor's name, and whether
/// anything was done.
type Outcome = (Verdict, Option<String>, Option<String>, bool);

impl Work<'_> {
    fn run(&self) -> io::Result<Outcome> {
        match &self.job.role {
            Role::Source(options) => self.source(options),
            Role::Header(options) => self.header(options),
            Role::Other => {
                let (mirror, worked) = self.link_or_copy()?;
                Ok((Verdict::new(Kind::Other, mirror), None, None, worked))
            }
            Role::Symlink => {
                let worked = self.symlink()?;
                Ok((
                    Verdict::new(Kind::Symlink, Mirror::Symlink),
                    None,
                    None,
                    worked,
                ))
            }
        }
    }

    fn source(&self, options: &Options) -> io::Result<Outcome> {
        let language = options.language.expect("a source's language is chosen");
        let mut verdict = Verdict::new(Kind::Source, Mirror::Linked);
        verdict.language = Some(language);
        let bytes = match std::fs::read(&self.job.source) {
            Ok(bytes) => bytes,
            Err(error) => {
                verdict.diagnostics.push(FileDiagnostic::file_error(format!(
                    "cannot read it: {error}"
                )));
                return self.failed(verdict, None);
            }
        };
        if !options.front_end.regions.any() && !may_need_instrumenting(&bytes) {
            let (mirror, worked) = self.link_or_copy()?;
            verdict.mirror = mirror;
            return Ok((verdict, None, None, worked));
        }
        let file = SourceFile::new(&self.job.source, bytes, language);
        let content = pomp_core::source::hex(file.content_sha256());
        if let Some(previous) = self.previous {
            if previous.content.as_ref() == Some(&content)
                && Output::at(self.output, &self.stat) == previous.output
            {
                return Ok((
                    previous.verdict.clone(),
                    Some(content),
                    previous.idf.clone(),
                    false,
                ));
            }
        }
        let done = match instrument_guarded(&file, options) {
            Ok(done) => done,
            Err(error) => {
                verdict
                    .diagnostics
                    .push(FileDiagnostic::file_error(error.to_string()));
                return self.failed(verdict, Some(content));
            }
        };
        let document = done.idf(&file);
        verdict.diagnostics = document.diagnostics.iter().map(Into::into).collect();
        if done.has_errors() {
            return self.failed(verdict, Some(content));
        }
        if !done.changes_anything() {
            let (mirror, worked) = self.link_or_copy()?;
            verdict.mirror = mirror;
            return Ok((verdict, Some(content), None, worked));
        }
        self.prepare_output()?;
        pomp_files::write_atomically_with(self.output, |to| done.write_output(&file, to))?;
        drop(file);
        std::fs::set_permissions(self.output, self.stat.permissions())?;
        let idf = self.job.idf_name();
        let document_bytes = serde_json::to_vec(&document).map_err(io::Error::other)?;
        pomp_files::write_atomically(&self.cx.idf_dir.join(&idf), &document_bytes)?;
        verdict.mirror = Mirror::Instrumented;
        verdict.init_function = done.plan.registration();
        verdict.user_init_function = done.plan.user_registration();
        let mut regions = BTreeMap::new();
        for region in &done.plan.regions {
            *regions.entry(region.region_type.to_string()).or_default() += 1;
        }
        verdict.regions = regions;
        Ok((verdict, Some(content), Some(idf), true))
    }

    /// A source that cannot be instrumented: its original in the mirror
    /// (`--on-error=original`), or nothing, so that building it fails.
    fn failed(&self, mut verdict: Verdict, content: Option<String>) -> io::Result<Outcome> {
        verdict.failed = true;
        match self.cx.on_error {
            OnError::Original => {
                verdict.mirror = self.link_or_copy()?.0;
            }
            OnError::Fail => {
                remove_existing(self.output)?;
                verdict.mirror = Mirror::Nothing;
            }
        }
        Ok((verdict, content, None, true))
    }

    fn header(&self, options: &Options) -> io::Result<Outcome> {
        let mut verdict = Verdict::new(Kind::Header, Mirror::Linked);
        // An unreadable header is the compiler's to report.
        let bytes = std::fs::read(&self.job.source).unwrap_or_default();
        if may_need_instrumenting(&bytes) {
            let language = options
                .language
                .unwrap_or_else(|| pomp_core::language::guess_header_language(&bytes));
            let file = SourceFile::new(&self.job.source, bytes, language);
            if let Ok(done) = instrument_guarded(&file, options) {
                let (directives, locks) = (done.model.sites.len(), done.model.lock_calls.len());
                if directives + locks > 0 {
                    verdict.diagnostics.push(FileDiagnostic {
                        severity: "warning".into(),
                        message: format!(
                            "a header's {directives} directive(s) and {locks} lock call(s) are \
                             left as written"
                        ),
                        line: None,
                        column: None,
                        notes: vec![
                            "instrumented, a header would define its registration function \
                             and region handles in every unit that includes it; code in a \
                             source file is measured"
                                .into(),
                        ],
                    });
                }
            }
        }
        let (mirror, worked) = self.link_or_copy()?;
        verdict.mirror = mirror;
        Ok((verdict, None, None, worked))
    }

    /// Make the output's directory, and clear whatever is at its path.
    fn prepare_output(&self) -> io::Result<()> {
        if let Some(parent) = self.output.parent() {
            std::fs::create_dir_all(parent)?;
        }
        remove_existing(self.output)
    }

    /// A hard link to the original, or a copy where links are refused
    /// (another file system); nothing to do when the mirror already holds
    /// the original.
    fn link_or_copy(&self) -> io::Result<(Mirror, bool)> {
        if Stat::at(self.output).is_some_and(|s| s.same_file(&self.stat)) {
            return Ok((Mirror::Linked, false));
        }
        self.prepare_output()?;
        if std::fs::hard_link(&self.job.source, self.output).is_ok() {
            return Ok((Mirror::Linked, true));
        }
        let directory = self.output.parent().unwrap_or(Path::new("."));
        let mut copy = tempfile::Builder::new()
            .prefix(".pomp-")
            .tempfile_in(directory)?;
        io::copy(
            &mut std::fs::File::open(&self.job.source)?,
            copy.as_file_mut(),
        )?;
        copy.as_file().set_permissions(self.stat.permissions())?;
        copy.persist(self.output).map_err(|e| e.error)?;
        Ok((Mirror::Copied, true))
    }

    /// A symbolic link with the original's target: a relative one points
    /// into the mirror as the original points into the tree.
    fn symlink(&self) -> io::Result<bool> {
        let target = std::fs::read_link(&self.job.source)?;
        if std::fs::read_link(self.output).is_ok_and(|t| t == target) {
            return Ok(false);
        }
        self.prepare_output()?;
        std::os::unix::fs::symlink(&target, self.output)?;
        Ok(true)
    }
}

/// Remove a file or link (or an empty directory) at `path`, if any.
fn remove_existing(path: &Path) -> io::Result<()> {
    match path.symlink_metadata() {
        Ok(m) if m.is_dir() => std::fs::remove_dir(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

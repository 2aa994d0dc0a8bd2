//! The files to mirror, found as the tree is walked (and the compilation
//! database read), each with its role and setup.

use crate::cache;
use crate::compdb;
use crate::config::Config;
use crate::directories::Directories;
use crate::mirror::{Job, Role};
use crate::own_files;
use crate::walk;
use anyhow::Result;
use pomp_core::frontend::libclang::CompileFlags;
use pomp_core::instrument::Options;
use pomp_core::language::Language;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The files to mirror, in path order, found as they are asked for; the
/// rest go into `warnings`.
pub struct Jobs<'a> {
    config: &'a Config,
    root: &'a Path,
    database: Option<&'a compdb::Database>,
    walk: std::iter::Peekable<walk::Walk>,
    /// Files the compilation database compiles, relative to the root, in
    /// path order: mirrored also when the walk leaves them out.
    units: std::iter::Peekable<std::vec::IntoIter<PathBuf>>,
    reserved: &'static [&'static str],
    /// Files of one kind share their setup: its digest is made once.
    setups: HashMap<Class<'a>, (Role, String)>,
    /// What the walk could not read, and files left out and why.
    pub warnings: Vec<String>,
    /// The compiled files mirrored, relative to the root.
    pub mirrored_units: HashSet<PathBuf>,
}

impl<'a> Jobs<'a> {
    pub fn new(
        config: &'a Config,
        directories: &'a Directories,
        database: Option<&'a compdb::Database>,
    ) -> Result<Jobs<'a>> {
        let (root, out_dir) = (directories.root.as_path(), &directories.out);
        let mut skip = BTreeSet::from([out_dir.to_path_buf()]);
        let mut warnings = Vec::new();
        let mut units = Vec::new();
        if let Some(database) = database {
            // Build directories: the mirror is of sources.
            skip.extend(
                database
                    .directories()
                    .into_iter()
                    .filter(|d| d != root && d.starts_with(root)),
            );
            for file in database.units.keys() {
                match file.strip_prefix(root) {
                    Ok(relative) => units.push(relative.to_path_buf()),
                    Err(_) => warnings.push(format!(
                        "{}: compiled, but outside {}; its command is kept",
                        file.display(),
                        root.display()
                    )),
                }
            }
        }
        let filters = walk::Filters {
            skip: &skip,
            exclude: &config.exclude,
            ignore_files: config.ignore_files,
        };
        Ok(Jobs {
            config,
            root,
            database,
            walk: walk::walk(root, &filters)?.peekable(),
            units: units.into_iter().peekable(),
            reserved: match database {
                Some(_) => &own_files::NAMES,
                None => &own_files::NAMES[..2],
            },
            setups: HashMap::new(),
            warnings,
            mirrored_units: HashSet::new(),
        })
    }

    /// The next file of the walk or of the database, whichever comes first.
    fn next_found(&mut self) -> Option<walk::Found> {
        loop {
            while let Some(Err(_)) = self.walk.peek() {
                if let Some(Err(problem)) = self.walk.next() {
                    self.warnings.push(problem);
                }
            }
            let walked = self.walk.peek().and_then(|f| f.as_ref().ok());
            let from_walk = match (walked, self.units.peek()) {
                (Some(walked), Some(unit)) => match walk::by_path(&walked.relative, unit) {
                    std::cmp::Ordering::Less => true,
                    std::cmp::Ordering::Equal => {
                        self.units.next();
                        true
                    }
                    std::cmp::Ordering::Greater => false,
                },
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => return None,
            };
            if from_walk {
                return self.walk.next().and_then(Result::ok);
            }
            // A compiled file is mirrored wherever it is in the tree, also
            // when generated into a build directory or ignored.
            let relative = self.units.next()?;
            if let Ok(metadata) = self.root.join(&relative).symlink_metadata() {
                return Some(walk::Found {
                    relative,
                    symlink: metadata.file_type().is_symlink(),
                });
            }
        }
    }
}

impl Iterator for Jobs<'_> {
    type Item = Job;

    fn next(&mut self) -> Option<Job> {
        loop {
            let walk::Found { relative, symlink } = self.next_found()?;
            if self.reserved.iter().any(|r| relative.as_os_str() == *r) {
                self.warnings.push(format!(
                    "{}: left out; the mirror's file of that name is pomp's",
                    relative.display()
                ));
                continue;
            }
            let Some(key) = relative.to_str().map(str::to_owned) else {
                self.warnings.push(format!(
                    "{}: left out; its name is not UTF-8",
                    relative.display()
                ));
                continue;
            };
            let source = self.root.join(&relative);
            let class = classify(&relative, &source, symlink, self.database);
            if matches!(class, Class::Source { flags: Some(_), .. }) {
                self.mirrored_units.insert(relative.clone());
            }
            let (config, root) = (self.config, self.root);
            let (role, setup) = self.setups.entry(class).or_insert_with(|| {
                let role = class.role(&config.options);
                let setup = setup(&role, &config.tool_version, root);
                (role, setup)
            });
            return Some(Job {
                relative,
                key,
                source,
                role: role.clone(),
                setup: setup.clone(),
                directory: 0,
            });
        }
    }
}

/// What a file is to the build, and all its setup depends on besides the
/// run's options: its role, its language and how it is compiled. Files of
/// one class share their role's options and setup.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Class<'d> {
    Source {
        language: Language,
        preprocessed: bool,
        flags: Option<&'d CompileFlags>,
    },
    Header(Option<Language>),
    Other,
    Symlink,
}

/// What a file is to the build: a source compiled on its own (the
/// database says, or else its suffix), a header, or anything else.
fn classify<'d>(
    relative: &Path,
    source: &Path,
    symlink: bool,
    database: Option<&'d compdb::Database>,
) -> Class<'d> {
    if symlink {
        return Class::Symlink;
    }
    let compiled = match database {
        Some(database) => database
            .units
            .get(source)
            .map(|unit| (unit.language, unit.preprocessed, Some(&unit.compile_flags))),
        None => {
            Language::from_path(relative).map(|l| (l, l.preprocessed_by_suffix(relative), None))
        }
    };
    let header = pomp_core::language::is_header(relative);
    match compiled {
        Some((language, preprocessed, flags)) if database.is_some() || !header => Class::Source {
            language,
            preprocessed,
            flags,
        },
        _ if header => Class::Header(pomp_core::language::header_language(relative)),
        _ => Class::Other,
    }
}

impl Class<'_> {
    /// The role of the class's files, with the options they are read with.
    fn role(&self, options: &Options) -> Role {
        match *self {
            Class::Source {
                language,
                preprocessed,
                flags,
            } => {
                // A source's output is written, its edits' texts never read.
                let mut options = options.for_writing();
                options.language = Some(language);
                // With the flags known, `auto` reads C and C++ as the
                // compiler will.
                options.front_end.compile_flags = flags.cloned();
                // gfortran rejects `#line` in a file it does not preprocess.
                options.output.line_markers &= !language.is_fortran() || preprocessed;
                Role::Source(std::sync::Arc::new(options))
            }
            Class::Header(language) => {
                let mut options = options.clone();
                options.language = language;
                Role::Header(std::sync::Arc::new(options))
            }
            Class::Other => Role::Other,
            Class::Symlink => Role::Symlink,
        }
    }
}

/// Everything besides the content that decides a file's output. The tree's
/// root stands for the source's absolute path (the name instrumented code
/// gives it), which is the root joined to the file's key in the cache.
fn setup(role: &Role, tool_version: &str, root: &Path) -> String {
    let options = |o: &Options| serde_json::to_vec(o).expect("options serialise");
    match role {
        Role::Source(o) => cache::digest([
            tool_version.as_bytes(),
            b"source",
            &options(o),
            root.as_os_str().as_encoded_bytes(),
        ]),
        Role::Header(o) => cache::digest([tool_version.as_bytes(), b"header", &options(o)]),
        Role::Other => "other".into(),
        Role::Symlink => "symlink".into(),
    }
}

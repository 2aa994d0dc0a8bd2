//! Running the planned steps: the compiler, the link scan and the
//! registration file.

use super::compiler::Compiler;
use super::options::MpiLibrary;
use super::plan::{self, LinkInputs, Run, Step};
use super::registration::LinkScan;
use super::runtime;
use super::scratch::LazyScratch;
use super::sources::AlreadyReported;
use anyhow::{bail, Context, Result};
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

/// Command lines longer than this go to the compiler in a response file,
/// well below the kernel's limit on one argument.
const RESPONSE_FILE_THRESHOLD: usize = 100_000;

pub struct Executor<'a> {
    pub compiler: Compiler,
    /// `--pomp-verbose`: print each command before running it.
    pub verbose: bool,
    pub scratch: &'a mut LazyScratch,
    /// Where the wrapper's own messages go.
    pub messages: &'a mut dyn Write,
    /// Whether a program that links MPI gets pomp's MPI library.
    pub mpi: &'a MpiLibrary,
}

/// What a program's link adds to its command line.
struct LinkAdditions {
    /// The registration object, none for the original interface.
    registration: Option<PathBuf>,
    /// pomp's MPI library, for a program that links MPI.
    mpi: Option<PathBuf>,
    /// The POMP2 library's arguments, last.
    libraries: Vec<OsString>,
}

impl Executor<'_> {
    /// Run the steps in order; the first failing compiler's status ends it.
    pub fn execute(&mut self, steps: Vec<Step>) -> Result<u8> {
        for step in steps {
            let code = match step {
                Step::Run(run) => self.run(&run)?,
                Step::Link {
                    mut run,
                    registration_at,
                    inputs,
                } => {
                    if let Some(additions) = self.link_additions(&inputs, &run.command)? {
                        if let Some(object) = additions.registration {
                            run.args.insert(registration_at, object.into_os_string());
                        }
                        // The libraries are no source of a language the
                        // user's `-x` still names.
                        if run
                            .args
                            .iter()
                            .any(|a| a.as_encoded_bytes().starts_with(b"-x"))
                        {
                            run.args.extend(["-x".into(), "none".into()]);
                        }
                        if let Some(mpi) = additions.mpi {
                            // Before MPI's own libraries: after them, MPI's
                            // functions would be taken from those.
                            match pomp_mpi::first_mpi_argument(&run.args) {
                                Some(at) => run.args.insert(at, mpi.into_os_string()),
                                None => run.args.push(mpi.into_os_string()),
                            }
                        }
                        run.args.extend(additions.libraries);
                    }
                    self.run(&run)?
                }
            };
            if code != 0 {
                return Ok(code);
            }
        }
        Ok(0)
    }

    fn run(&mut self, run: &Run) -> Result<u8> {
        let code = self.run_compiler(&run.command, &run.args)?;
        if code == 0 {
            for rewrite in &run.dependencies {
                rewrite.apply()?;
            }
        }
        Ok(code)
    }

    /// What a program's link adds when it links POMP2 code or MPI: the
    /// registration object (none for the original interface), pomp's MPI
    /// library and the POMP2 library's arguments. `None` when no input
    /// calls POMP and the program does not link MPI.
    fn link_additions(
        &mut self,
        inputs: &LinkInputs,
        command: &[OsString],
    ) -> Result<Option<LinkAdditions>> {
        let mut scan = LinkScan {
            calls_pomp: inputs.calls_pomp2,
            calls_pomp1: inputs.calls_pomp1,
            ..LinkScan::default()
        };
        for function in &inputs.init_functions {
            scan.add_function(function.clone());
        }
        scan.pomp1_regions
            .extend(inputs.pomp1_regions.iter().cloned());
        for path in linked_files(inputs) {
            // The linker judges files it cannot use; registration only
            // needs the ones it can read.
            if let Err(error) = scan.add_file(&path) {
                if self.verbose {
                    let name = self.compiler.wrapper_name();
                    writeln!(self.messages, "{name}: note: {error:#}")?;
                }
            }
        }
        let mpi = self.mpi_library(inputs, command)?;
        scan.measures_mpi = mpi.is_some();
        if !scan.needs_pomp_library() {
            return Ok(None);
        }
        let chosen = inputs.runtime.as_deref();
        if scan.calls_pomp1 && chosen.is_none() {
            bail!(
                "the program calls the original POMP interface (--pomp-interface=pomp1), which \
                 pomp's runtime does not implement: name a library for it with \
                 --pomp-runtime=LIB or POMP_RUNTIME"
            );
        }
        if let Some(chosen) = chosen {
            scan.user_regions_counted_with_constructs =
                super::library::counts_user_regions_with_constructs(
                    chosen,
                    &inputs.library_dirs,
                    &Compiler::C.command()?,
                )?;
        }
        let registration = if scan.needs_registration() || scan.needs_pomp1_table() {
            Some(self.registration_object(&scan, inputs)?)
        } else {
            None
        };
        let mut libraries = runtime::link_arguments(chosen)?;
        if !inputs.openmp {
            libraries.push("-fopenmp".into());
        }
        Ok(Some(LinkAdditions {
            registration,
            mpi,
            libraries,
        }))
    }

    /// pomp's MPI library, for a program that links MPI and is measured
    /// by a POMP2 library that takes it (pomp's runtime); built with the
    /// MPI's own C compiler wrapper, or taken from pomp's cache. Where it
    /// cannot be had, the program is linked without it, with a warning,
    /// unless `--pomp-mpi` named the MPI compiler to build it with.
    fn mpi_library(
        &mut self,
        inputs: &LinkInputs,
        command: &[OsString],
    ) -> Result<Option<PathBuf>> {
        let named = match self.mpi {
            MpiLibrary::Off => return Ok(None),
            MpiLibrary::Auto => None,
            MpiLibrary::With(compiler) => Some(compiler.as_str()),
        };
        if !pomp_mpi::links_mpi(&inputs.libraries, &inputs.files, command) {
            return Ok(None);
        }
        let name = self.compiler.wrapper_name();
        if let Some(chosen) = inputs.runtime.as_deref() {
            let takes_it = super::library::defines(
                chosen,
                &inputs.library_dirs,
                &Compiler::C.command()?,
                pomp2::mpi::ENTRY_POINTS[0].name,
            )?;
            if !takes_it {
                if self.verbose {
                    writeln!(
                        self.messages,
                        "{name}: note: {chosen} does not measure MPI; pomp's MPI library is not linked"
                    )?;
                }
                return Ok(None);
            }
        }
        let built = pomp_mpi::MpiCompiler::find(named, command)
            .and_then(|compiler| pomp_mpi::library(&compiler).map(|archive| (compiler, archive)));
        match built {
            Ok((compiler, archive)) => {
                if self.verbose {
                    writeln!(
                        self.messages,
                        "{name}: note: measuring MPI with {}, built with {}",
                        archive.display(),
                        compiler.path.display()
                    )?;
                }
                Ok(Some(archive))
            }
            Err(error) if named.is_none() => {
                writeln!(
                    self.messages,
                    "{name}: warning: MPI calls stay unmeasured: {error:#} (--pomp-mpi=off says so \
                     without this warning)"
                )?;
                Ok(None)
            }
            Err(error) => Err(error),
        }
    }

    /// Write and compile the registration file for the scanned inputs.
    fn registration_object(&mut self, scan: &LinkScan, inputs: &LinkInputs) -> Result<PathBuf> {
        let scratch = self.scratch.get()?.path().to_path_buf();
        let source = scratch.join("pomp_init_regions.c");
        let object = scratch.join("pomp_init_regions.o");
        std::fs::write(&source, scan.render())
            .with_context(|| format!("writing {}", source.display()))?;
        let run = plan::registration_run(&Compiler::C.command()?, inputs, &source, &object);
        let status = self.run(&run)?;
        if status != 0 {
            return Err(AlreadyReported(status).into());
        }
        Ok(object)
    }

    fn run_compiler(&mut self, command: &[OsString], args: &[OsString]) -> Result<u8> {
        // Objects planned into the scratch directory need their folder.
        let folders: Vec<String> = match self.scratch.existing() {
            Some(scratch) => args
                .windows(2)
                .filter(|w| w[0] == "-o")
                .filter_map(|w| {
                    let directory = std::path::Path::new(&w[1]).parent()?;
                    let name = directory.strip_prefix(scratch).ok()?;
                    (!name.as_os_str().is_empty() && !directory.is_dir())
                        .then(|| name.to_string_lossy().into_owned())
                })
                .collect(),
            None => Vec::new(),
        };
        for folder in folders {
            self.scratch.get()?.subdirectory(&folder)?;
        }
        let length: usize = args.iter().map(|a| a.len() + 1).sum();
        let args = if length > RESPONSE_FILE_THRESHOLD {
            let file = self.scratch.get()?.path().join("arguments.rsp");
            pomp_cmdline::write_response_file(&file, args)?;
            let mut at = OsString::from("@");
            at.push(&file);
            vec![at]
        } else {
            args.to_vec()
        };
        if self.verbose {
            let words: Vec<String> = command
                .iter()
                .chain(&args)
                .map(|w| w.to_string_lossy().into_owned())
                .collect();
            let line = shlex::try_join(words.iter().map(String::as_str))
                .unwrap_or_else(|_| words.join(" "));
            writeln!(self.messages, "+ {line}")?;
        }
        let (program, launcher_args) = command.split_first().context("empty compiler command")?;
        let status = Command::new(program)
            .args(launcher_args)
            .args(&args)
            .status()
            .with_context(|| format!("running {}", program.to_string_lossy()))?;
        Ok(exit_code(status))
    }
}

/// The files a link reads, with `-lNAME` looked up in the `-L`
/// directories as the linker does.
fn linked_files(inputs: &LinkInputs) -> Vec<PathBuf> {
    let mut files = inputs.files.clone();
    for name in &inputs.libraries {
        let candidates: &[String] = if inputs.static_only {
            &[format!("lib{name}.a")]
        } else {
            &[format!("lib{name}.so"), format!("lib{name}.a")]
        };
        let found = inputs
            .library_dirs
            .iter()
            .find_map(|dir| candidates.iter().map(|c| dir.join(c)).find(|p| p.is_file()));
        files.extend(found);
    }
    files
}

/// A compiler's status as a shell reports it: its exit code, or 128 and
/// the signal that ended it.
fn exit_code(status: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => code.clamp(0, 255) as u8,
        (None, Some(signal)) => (128 + signal).clamp(0, 255) as u8,
        (None, None) => 1,
    }
}

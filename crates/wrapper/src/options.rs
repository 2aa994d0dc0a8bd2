//! The wrappers' own options (`--pomp-...`), taken out of a command line
//! before the compiler sees it, each with the environment variable that
//! sets it when no argument does.

use anyhow::{bail, Result};
use pomp_cli::options::{Flag, Value, INSTRUMENTATION};
use pomp_core::instrument::Options;
use std::ffi::OsString;

/// Options addressed to the wrapper (`--pomp-...`), removed before the
/// compiler runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WrapperOptions {
    /// How sources are instrumented: the options `pomp instrument` has.
    pub instrument: Options,
    pub keep: bool,
    pub verbose: bool,
    pub help: bool,
    /// Another POMP2 library to link instead of pomp's runtime.
    pub runtime: Option<String>,
    pub on_error: OnError,
    /// Whether a program that links MPI gets pomp's MPI library.
    pub mpi: MpiLibrary,
}

/// Whether a program that links MPI is linked with pomp's MPI library,
/// which measures its MPI calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum MpiLibrary {
    /// Built with the C compiler wrapper of the MPI the program links.
    #[default]
    Auto,
    /// Not linked: MPI calls stay unmeasured (or measured where
    /// `--pomp-regions=mpi` made their call sites regions).
    Off,
    /// Built with this MPI C compiler wrapper.
    With(String),
}

/// What to do when a source cannot be instrumented.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnError {
    /// Stop the build, as a compile error would.
    #[default]
    Fail,
    /// Compile the original source, with a warning.
    CompileOriginal,
}

/// The wrappers' own options, besides those of instrumentation.
pub static WRAPPER_FLAGS: &[Flag<WrapperOptions>] = &[
    Flag {
        name: "keep",
        help: "Keep instrumented sources and IDF JSON beside the objects.",
        apply: |o, _| {
            o.keep = true;
            Ok(())
        },
        ..Flag::PLAIN
    },
    Flag {
        name: "runtime",
        env: Some("POMP_RUNTIME"),
        value: Value::Text { placeholder: "LIB" },
        help: "Link this POMP2 library instead of pomp's runtime (a .a or .so path, or -lNAME).",
        apply: |o, v| {
            o.runtime = v.map(str::to_owned);
            Ok(())
        },
        ..Flag::PLAIN
    },
    Flag {
        name: "on-error",
        env: Some("POMP_ON_ERROR"),
        value: Value::Choice {
            placeholder: "WHAT",
            choices: &["fail", "compile-original"],
            default: "fail",
        },
        help: "What a source that cannot be instrumented becomes: a failed compile, or the \
               original compiled as it is, with a warning.",
        apply: |o, v| {
            o.on_error = match v {
                Some("compile-original") => OnError::CompileOriginal,
                _ => OnError::Fail,
            };
            Ok(())
        },
        ..Flag::PLAIN
    },
    Flag {
        name: "mpi",
        env: Some("POMP_MPI"),
        value: Value::Text {
            placeholder: "auto|off|MPICC",
        },
        help: "Whether a program that links MPI is linked with pomp's MPI library, which \
               measures every MPI call through MPI's profiling interface: `auto` (default) \
               builds it with the C compiler wrapper of the program's MPI (the one POMP_CC and \
               its kin name, else mpicc on the PATH) and keeps it in pomp's cache; `off` \
               leaves MPI unmeasured; a path or name uses that MPI C compiler wrapper.",
        apply: |o, v| {
            o.mpi = match v {
                None | Some("" | "auto") => MpiLibrary::Auto,
                Some("off" | "no" | "0") => MpiLibrary::Off,
                Some(compiler) => MpiLibrary::With(compiler.to_string()),
            };
            Ok(())
        },
        ..Flag::PLAIN
    },
    Flag {
        name: "verbose",
        help: "Print the commands run.",
        apply: |o, _| {
            o.verbose = true;
            Ok(())
        },
        ..Flag::PLAIN
    },
    Flag {
        name: "help",
        help: "This text.",
        apply: |o, _| {
            o.help = true;
            Ok(())
        },
        ..Flag::PLAIN
    },
];

impl WrapperOptions {
    /// The wrapper's options taken out of a compiler command line, the
    /// environment setting those no argument sets: what they say, and the
    /// arguments left for the compiler.
    pub fn take_from(args: Vec<OsString>) -> Result<(WrapperOptions, Vec<OsString>)> {
        Self::take_from_with(args, |variable| std::env::var(variable).ok())
    }

    /// [`WrapperOptions::take_from`], the environment read through `env`.
    fn take_from_with(
        args: Vec<OsString>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<(WrapperOptions, Vec<OsString>)> {
        let mut options = WrapperOptions::default();
        let mut given = Vec::new();
        let mut rest = Vec::with_capacity(args.len());
        for arg in args {
            match arg.to_str().and_then(|a| a.strip_prefix("--pomp-")) {
                Some(option) => given.push(options.apply(option)?),
                None => rest.push(arg),
            }
        }
        for flag in WRAPPER_FLAGS {
            let Some(variable) = flag.env.filter(|_| !given.contains(&flag.name)) else {
                continue;
            };
            let Some(value) = env(variable).filter(|v| !v.is_empty()) else {
                continue;
            };
            flag.set(&mut options, Some(&value))
                .map_err(|message| anyhow::anyhow!("{variable}={value}: {message}"))?;
        }
        Ok((options, rest))
    }

    /// The options the environment sets.
    pub fn from_environment() -> Result<WrapperOptions> {
        Ok(Self::take_from(Vec::new())?.0)
    }

    /// Apply `--pomp-OPTION`, given without its prefix; the option's name.
    fn apply(&mut self, option: &str) -> Result<&'static str> {
        let (name, value) = match option.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (option, None),
        };
        // The aliases are `pomp instrument`'s own spellings.
        let (result, name) = if let Some(flag) = INSTRUMENTATION
            .iter()
            .find(|f| f.offered.wrappers && f.name == name)
        {
            (flag.set(&mut self.instrument, value), flag.name)
        } else if let Some(flag) = WRAPPER_FLAGS.iter().find(|f| f.name == name) {
            (flag.set(self, value), flag.name)
        } else {
            bail!("unknown wrapper option '--pomp-{option}' (see --pomp-help)");
        };
        result.map_err(|message| anyhow::anyhow!("--pomp-{name}: {message}"))?;
        Ok(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapper_options_are_removed() {
        let args = "--pomp-disable=sync,Locks --pomp-keep -c a.c --pomp-events=opari2 --pomp-runtime=-lscorep";
        let (options, rest) =
            WrapperOptions::take_from(args.split_whitespace().map(OsString::from).collect())
                .unwrap();
        assert_eq!(rest, ["-c", "a.c"]);
        assert!(options.keep);
        assert_eq!(
            options.instrument.rules.events,
            pomp_core::rules::EventSet::Opari2
        );
        assert_eq!(options.runtime.as_deref(), Some("-lscorep"));
        assert_eq!(
            options.instrument.rules.disable,
            std::collections::BTreeSet::from(["sync".into(), "locks".into()])
        );
        let error = WrapperOptions::take_from(vec!["--pomp-frobnicate".into()]).unwrap_err();
        assert!(error.to_string().contains("--pomp-frobnicate"), "{error}");
    }

    #[test]
    fn an_argument_overrides_the_environment() {
        let environment = |on_error: &'static str| {
            move |variable: &str| match variable {
                "POMP_ON_ERROR" => Some(on_error.to_string()),
                "POMP_RUNTIME" => Some("-lpomp".to_string()),
                _ => None,
            }
        };
        let take = |args: &[&str]| {
            let args = args.iter().map(OsString::from).collect();
            WrapperOptions::take_from_with(args, environment("compile-original"))
                .unwrap()
                .0
        };
        let from_environment = take(&["-c", "a.c"]);
        assert_eq!(from_environment.on_error, OnError::CompileOriginal);
        assert_eq!(from_environment.runtime.as_deref(), Some("-lpomp"));
        let given = take(&["--pomp-on-error=fail", "--pomp-runtime=libx.a"]);
        assert_eq!(given.on_error, OnError::Fail);
        assert_eq!(given.runtime.as_deref(), Some("libx.a"));
        let error = WrapperOptions::take_from_with(vec![], environment("sometimes")).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("POMP_ON_ERROR=sometimes: unknown value"),
            "{error}"
        );
    }

    #[test]
    fn options_a_compiler_line_says_are_not_the_wrappers() {
        for name in ["language", "fixed-form", "free-form", "cross-check"] {
            let error = WrapperOptions::take_from(vec![format!("--pomp-{name}").into()]);
            assert!(error.is_err(), "{name}");
        }
    }
}

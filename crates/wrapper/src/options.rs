//! The wrappers' own options (`--pomp-...`), taken out of a command line
//! before the compiler sees it.

use anyhow::{bail, Result};
use pomp_core::flags::{Flag, Value};
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
}

/// The wrappers' own options, besides those of instrumentation.
pub static WRAPPER_FLAGS: &[Flag<WrapperOptions>] = &[
    Flag {
        name: "keep",
        aliases: &[],
        value: Value::Switch,
        help: "Keep instrumented sources and IDF JSON beside the objects.",
        apply: |o, _| {
            o.keep = true;
            Ok(())
        },
    },
    Flag {
        name: "runtime",
        aliases: &[],
        value: Value::Text { placeholder: "LIB" },
        help: "Link this POMP2 library instead of pomp's runtime (a .a or .so path, or -lNAME).",
        apply: |o, v| {
            o.runtime = v.map(str::to_owned);
            Ok(())
        },
    },
    Flag {
        name: "verbose",
        aliases: &[],
        value: Value::Switch,
        help: "Print the commands run.",
        apply: |o, _| {
            o.verbose = true;
            Ok(())
        },
    },
    Flag {
        name: "help",
        aliases: &[],
        value: Value::Switch,
        help: "This text.",
        apply: |o, _| {
            o.help = true;
            Ok(())
        },
    },
];

impl WrapperOptions {
    /// The wrapper's options taken out of a compiler command line: what
    /// they say, and the arguments left for the compiler.
    pub fn take_from(args: Vec<OsString>) -> Result<(WrapperOptions, Vec<OsString>)> {
        let mut options = WrapperOptions::default();
        let mut rest = Vec::with_capacity(args.len());
        for arg in args {
            match arg.to_str().and_then(|a| a.strip_prefix("--pomp-")) {
                Some(option) => options.apply(option)?,
                None => rest.push(arg),
            }
        }
        Ok((options, rest))
    }

    /// Apply `--pomp-OPTION`, given without its prefix.
    fn apply(&mut self, option: &str) -> Result<()> {
        let (name, value) = match option.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (option, None),
        };
        // The aliases are `pomp instrument`'s own spellings.
        let result = if let Some(flag) = pomp_core::flags::INSTRUMENTATION
            .iter()
            .find(|f| f.name == name)
        {
            flag.set(&mut self.instrument, value)
        } else if let Some(flag) = WRAPPER_FLAGS.iter().find(|f| f.name == name) {
            flag.set(self, value)
        } else {
            bail!("unknown wrapper option '--pomp-{option}' (see --pomp-help)");
        };
        result.map_err(|message| anyhow::anyhow!("--pomp-{name}: {message}"))
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
}

//! The options that shape instrumentation, each defined once: its name,
//! its value, its help text, what it sets and which tools offer it.
//! `pomp instrument`, `pomp preview` and `pomp batch` offer them as
//! `--NAME`, the compiler wrappers as `--pomp-NAME`, the language server
//! as settings by the same names, and every help text is written from
//! here. Parsing the rest of a command line belongs to the program that
//! owns it; this module knows no argument parser.

use pomp_core::diagnostics::Advice;
#[cfg(doc)]
use pomp_core::diagnostics::Diagnostic;
use pomp_core::frontend::Choice;
use pomp_core::instrument::Options;
use pomp_core::language::Language;
use pomp_core::rules::{EventSet, Interface};

/// What an option takes after its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// Nothing: the option is a switch.
    Switch,
    /// One of `choices`.
    Choice {
        placeholder: &'static str,
        choices: &'static [&'static str],
        default: &'static str,
    },
    /// Any text.
    Text { placeholder: &'static str },
    /// A comma-separated list; the option may be repeated.
    List { placeholder: &'static str },
}

/// The tools that offer an option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offered {
    /// `pomp instrument`.
    pub instrument: bool,
    /// `pomp preview`.
    pub preview: bool,
    /// `pomp batch`.
    pub batch: bool,
    /// The compiler wrappers, as `--pomp-NAME`.
    pub wrappers: bool,
    /// The language server's settings.
    pub editor: bool,
}

impl Offered {
    /// Every tool that instruments files.
    pub const EVERYWHERE: Offered = Offered {
        instrument: true,
        preview: true,
        batch: true,
        wrappers: true,
        editor: true,
    };
    /// Only the commands reading the file they are given, which may be
    /// told its language: a compiler's command line or an editor says it
    /// otherwise.
    pub const SINGLE_FILE: Offered = Offered {
        instrument: true,
        preview: true,
        batch: false,
        wrappers: false,
        editor: false,
    };
}

/// One option, generic over what it configures.
pub struct Flag<T> {
    /// The long name without dashes: `disable` is `--disable` and
    /// `--pomp-disable`.
    pub name: &'static str,
    /// A one-letter spelling, `-x`.
    pub short: Option<char>,
    /// Further spellings kept for `pomp instrument` (`--pomp=opari2`).
    pub aliases: &'static [&'static str],
    /// The environment variable that sets the option when no argument
    /// does.
    pub env: Option<&'static str>,
    pub offered: Offered,
    pub value: Value,
    /// One line for the wrappers' help, the first paragraph for
    /// `pomp instrument --help`.
    pub help: &'static str,
    /// Sets the option; `value` is `None` for a switch. The error says
    /// what was expected, without the option's spelling.
    pub apply: fn(&mut T, Option<&str>) -> Result<(), String>,
}

impl<T> Flag<T> {
    /// The fields most options share, for `..Flag::PLAIN`.
    pub const PLAIN: Flag<T> = Flag {
        name: "",
        short: None,
        aliases: &[],
        env: None,
        offered: Offered::EVERYWHERE,
        value: Value::Switch,
        help: "",
        apply: |_, _| Ok(()),
    };

    /// The option in `flags` spelt `name` (without dashes), aliases included.
    pub fn find<'f>(flags: &'f [Flag<T>], name: &str) -> Option<&'f Flag<T>> {
        flags
            .iter()
            .find(|f| f.name == name || f.aliases.contains(&name))
    }

    /// Check that a value is present exactly when the option takes one,
    /// and apply it.
    pub fn set(&self, target: &mut T, value: Option<&str>) -> Result<(), String> {
        match (self.value, value) {
            (Value::Switch, Some(_)) => Err("takes no value".into()),
            (Value::Switch, None) => (self.apply)(target, None),
            (_, None) => Err("needs a value".into()),
            (Value::Choice { choices, .. }, Some(v)) if !choices.contains(&v) => Err(format!(
                "unknown value '{v}' (expected {})",
                choices.join(", ")
            )),
            (_, Some(v)) => (self.apply)(target, Some(v)),
        }
    }

    /// `--PREFIXNAME=VALUE` as the help lists it.
    pub fn synopsis(&self, prefix: &str) -> String {
        match self.value {
            Value::Switch => format!("--{prefix}{}", self.name),
            Value::Choice { placeholder, .. }
            | Value::Text { placeholder }
            | Value::List { placeholder } => {
                format!("--{prefix}{}={placeholder}", self.name)
            }
        }
    }
}

/// Help lines for `flags` as the wrappers print them: the synopsis, then
/// the help text wrapped beside it.
pub fn help_lines<'f, T: 'f>(flags: impl IntoIterator<Item = &'f Flag<T>>, prefix: &str) -> String {
    const HELP_COLUMN: usize = 26;
    const WIDTH: usize = 78;
    let mut out = String::new();
    for flag in flags {
        let synopsis = flag.synopsis(prefix);
        let mut help = flag.help.to_string();
        if let Value::Choice {
            choices, default, ..
        } = flag.value
        {
            help.push_str(&format!(" ({}", choices.join(", ")));
            if !default.is_empty() {
                help.push_str(&format!("; default {default}"));
            }
            help.push(')');
        }
        if let Some(variable) = flag.env {
            help.push_str(&format!(" [environment: {variable}]"));
        }
        let mut line = format!("  {synopsis}");
        if line.len() + 2 > HELP_COLUMN {
            out.push_str(&line);
            out.push('\n');
            line = String::new();
        }
        for word in help.split_whitespace() {
            let column = line.len().max(HELP_COLUMN);
            let fits = line.len() > HELP_COLUMN && column + 1 + word.len() <= WIDTH;
            if fits {
                line.push(' ');
            } else {
                if line.len() > HELP_COLUMN {
                    out.push_str(&line);
                    out.push('\n');
                    line = String::new();
                }
                line.push_str(&" ".repeat(HELP_COLUMN - line.len()));
            }
            line.push_str(word);
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// How the tool that prints a message spells an option: `pomp instrument`,
/// `preview` and `batch` take `--NAME`, the compiler wrappers
/// `--pomp-NAME` (the compiler would refuse `--NAME`), the language
/// server a setting of the same name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Spelling {
    #[default]
    Command,
    Wrapper,
    /// The language server's settings, which take the options' names:
    /// `"keep-untied": true`, `"frontend": "tree-sitter"`.
    Setting,
}

/// `advice` as `spelling` takes it, in backticks: `` `--keep-untied` ``,
/// `` `--pomp-frontend=tree-sitter` ``, `` `"keep-untied": true` ``.
pub fn spell(advice: Advice, spelling: Spelling) -> String {
    let Advice { option, value } = advice;
    debug_assert!(
        INSTRUMENTATION.iter().any(|f| f.name == option),
        "no instrumentation option is called {option}"
    );
    match (spelling, value) {
        (Spelling::Command, _) => advice.to_string(),
        (Spelling::Wrapper, Some(value)) => format!("`--pomp-{option}={value}`"),
        (Spelling::Wrapper, None) => format!("`--pomp-{option}`"),
        (Spelling::Setting, Some(value)) => format!("`\"{option}\": \"{value}\"`"),
        (Spelling::Setting, None) => format!("`\"{option}\": true`"),
    }
}

/// `text`, a diagnostic's message or note, with the options it advises
/// (the diagnostic's [`Diagnostic::advice`]) spelt as `spelling` says: the
/// instrumenter names them by the options' own names, [`Advice`]'s
/// display, and every tool respells them.
pub fn respell<'t>(
    text: &'t str,
    advised: &[Advice],
    spelling: Spelling,
) -> std::borrow::Cow<'t, str> {
    let mut text = std::borrow::Cow::Borrowed(text);
    if spelling == Spelling::Command {
        return text;
    }
    for &advice in advised {
        let named = advice.to_string();
        if text.contains(&named) {
            text = std::borrow::Cow::Owned(text.replace(&named, &spell(advice, spelling)));
        }
    }
    text
}

/// The names `--disable` accepts, lower-cased and without blanks.
fn disable_list(value: &str) -> impl Iterator<Item = String> + '_ {
    value
        .split(',')
        .map(|s| s.trim().to_lowercase())
        .filter(|s| !s.is_empty())
}

/// The options of instrumentation, for every tool that [`Offered`] names.
pub static INSTRUMENTATION: &[Flag<Options>] = &[
    Flag {
        name: "disable",
        value: Value::List {
            placeholder: "LIST",
        },
        help: "Leave these constructs uninstrumented: construct names (barrier, critical, ...) \
               or groups (sync, task, locks, omp), comma-separated.",
        apply: |o, v| {
            o.rules.disable.extend(disable_list(v.unwrap_or_default()));
            Ok(())
        },
        ..Flag::PLAIN
    },
    Flag {
        name: "events",
        aliases: &["pomp"],
        value: Value::Choice {
            placeholder: "SET",
            choices: &["extended", "opari2"],
            default: "extended",
        },
        help: "Event set: `extended` adds events for constructs OPARI2 leaves alone; `opari2` \
               emits only OPARI2's events, for POMP2 libraries that know no more.",
        apply: |o, v| {
            o.rules.events = match v {
                Some("opari2") => EventSet::Opari2,
                _ => EventSet::Extended,
            };
            Ok(())
        },
        ..Flag::PLAIN
    },
    Flag {
        name: "interface",
        value: Value::Choice {
            placeholder: "NAME",
            choices: &["pomp2", "pomp1", "pomp1-paper"],
            default: "pomp2",
        },
        help: "Measurement interface: `pomp2` (OPARI2's, regions registered at link time); \
               `pomp1`, the original interface as OPARI 1.1's libpomp implements it, pomp_* \
               calls with a context descriptor per region, found through a table the wrappers \
               make at link time; or `pomp1-paper`, the same with the 2002 proposal's POMP_* \
               spelling, which no shipped library implements (tasks and newer constructs have \
               no events in either).",
        apply: |o, v| {
            o.rules.interface = match v {
                Some("pomp1") => Interface::Pomp1,
                Some("pomp1-paper") => Interface::Pomp1Paper,
                _ => Interface::Pomp2,
            };
            Ok(())
        },
        ..Flag::PLAIN
    },
    Flag {
        name: "regions",
        value: Value::List {
            placeholder: "LIST",
        },
        help: "Measure code beyond OpenMP constructs as POMP2 user regions: `functions` (every \
               function, method and Fortran procedure; `main` or the main program is the \
               program's region, initialising and finalising the measurement), `lambdas` (C++ \
               lambda bodies too), `loops` (every outermost loop outside OpenMP constructs), \
               `calls=GLOB[,GLOB...]` (every statement calling a matching function, named after \
               it), `mpi` (calls of `MPI_*`, any case in Fortran); comma-separated.",
        apply: |o, v| {
            let regions = &mut o.front_end.regions;
            let mut calls: Vec<glob::Pattern> = regions.calls.iter().cloned().collect();
            // Items after `calls=` that name no kind are more patterns.
            let mut in_calls = false;
            for item in v.unwrap_or_default().split(',').map(str::trim) {
                match item {
                    "" => {}
                    "functions" => regions.functions = true,
                    "lambdas" => regions.lambdas = true,
                    "functions+lambdas" => {
                        regions.functions = true;
                        regions.lambdas = true;
                    }
                    "loops" => regions.loops = true,
                    "mpi" => calls.extend([call_pattern("MPI_*")?, call_pattern("mpi_*")?]),
                    _ if item.starts_with("calls=") => {
                        let pattern = &item["calls=".len()..];
                        calls.push(call_pattern(pattern)?);
                        in_calls = true;
                        continue;
                    }
                    other if in_calls => {
                        calls.push(call_pattern(other)?);
                        continue;
                    }
                    other => {
                        return Err(format!(
                            "unknown region kind '{other}' (expected functions, lambdas, \
                             functions+lambdas, loops, calls=GLOB[,GLOB...], mpi)"
                        ))
                    }
                }
                in_calls = false;
            }
            calls.dedup();
            regions.calls = pomp_core::model::CallPatterns::new(calls);
            Ok(())
        },
        ..Flag::PLAIN
    },
    Flag {
        name: "filter",
        value: Value::Text {
            placeholder: "FILE",
        },
        help: "Leave the regions a Score-P filter file excludes exactly as written: functions by \
               name (`MANGLED` for symbols), files by path, OpenMP constructs and user regions \
               by label or FILE:LINE (`pomp report --suggest-filter` writes one).",
        apply: |o, v| {
            o.rules.filter =
                pomp_core::filter::Filter::read(std::path::Path::new(v.unwrap_or_default()))?;
            Ok(())
        },
        ..Flag::PLAIN
    },
    Flag {
        name: "nosrc",
        value: Value::Switch,
        help: "Omit #line markers (diagnostics then point at the instrumented file).",
        apply: |o, _| {
            o.output.line_markers = false;
            Ok(())
        },
        ..Flag::PLAIN
    },
    Flag {
        name: "frontend",
        value: Value::Choice {
            placeholder: "NAME",
            choices: &["auto", "tree-sitter", "clang"],
            default: "auto",
        },
        help: "How C and C++ are read: `tree-sitter` parses the file as written, without flags; \
               `clang` reads it as the compiler does, with its flags (libclang, loaded when \
               needed); `auto` takes clang when the compile flags are known and libclang is \
               installed.",
        apply: |o, v| {
            o.front_end.choice = match v {
                Some("clang") => Choice::Clang,
                Some("tree-sitter") => Choice::TreeSitter,
                _ => Choice::Auto,
            };
            Ok(())
        },
        ..Flag::PLAIN
    },
    Flag {
        name: "keep-untied",
        value: Value::Switch,
        help: "Keep untied tasks untied and call the Untied_task events (by default they are \
               made tied, with a warning).",
        apply: |o, _| {
            o.rules.keep_untied = true;
            Ok(())
        },
        ..Flag::PLAIN
    },
    Flag {
        name: "language",
        short: Some('x'),
        offered: Offered::SINGLE_FILE,
        value: Value::Choice {
            placeholder: "LANGUAGE",
            choices: &["c", "c++", "f77", "f95"],
            default: "",
        },
        help: "Source language, overriding the file suffix (as gcc's -x: f77 is fixed-form \
               Fortran, f95 free form).",
        apply: |o, v| {
            o.language = v.and_then(Language::from_compiler_name);
            Ok(())
        },
        ..Flag::PLAIN
    },
    Flag {
        name: "fixed-form",
        offered: Offered::SINGLE_FILE,
        help: "Treat a Fortran file as fixed form whatever its suffix.",
        apply: |o, _| set_form(o, Language::FortranFixed),
        ..Flag::PLAIN
    },
    Flag {
        name: "free-form",
        offered: Offered::SINGLE_FILE,
        help: "Treat a Fortran file as free form whatever its suffix.",
        apply: |o, _| set_form(o, Language::FortranFree),
        ..Flag::PLAIN
    },
    Flag {
        name: "cross-check",
        offered: Offered {
            instrument: true,
            batch: true,
            ..Offered::SINGLE_FILE
        },
        help: "Read C and C++ with both front ends (tree-sitter and clang) and fail where they \
               find different blocks.",
        apply: |o, _| {
            o.cross_check = true;
            Ok(())
        },
        ..Flag::PLAIN
    },
];

/// A Fortran form, which no other language or form may have been asked
/// for before.
fn set_form(options: &mut Options, form: Language) -> Result<(), String> {
    match options.language {
        Some(other) if other != form => Err(format!(
            "cannot be combined with another language or form ({})",
            other.name()
        )),
        _ => {
            options.language = Some(form);
            Ok(())
        }
    }
}

/// A pattern of `--regions=calls=...`, checked.
fn call_pattern(pattern: &str) -> Result<glob::Pattern, String> {
    if pattern.is_empty() {
        return Err("`calls=` needs a pattern: `calls=MPI_*`".into());
    }
    glob::Pattern::new(pattern).map_err(|e| format!("bad pattern '{pattern}' in calls=: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(name: &str, value: Option<&str>) -> Result<Options, String> {
        let mut options = Options::default();
        Flag::find(INSTRUMENTATION, name)
            .ok_or("unknown")?
            .set(&mut options, value)?;
        Ok(options)
    }

    #[test]
    fn advice_is_spelt_as_the_tool_printing_it_takes_options() {
        let (untied, tree_sitter) = (Advice::KEEP_UNTIED, Advice::TREE_SITTER);
        let text = format!("keep it with {untied}, or choose {tree_sitter} (see {untied})");
        let advised = [untied, tree_sitter];
        assert_eq!(respell(&text, &advised, Spelling::Command), text);
        assert_eq!(
            respell(&text, &advised, Spelling::Wrapper),
            "keep it with `--pomp-keep-untied`, or choose `--pomp-frontend=tree-sitter` \
             (see `--pomp-keep-untied`)"
        );
        assert_eq!(
            respell(&text, &advised, Spelling::Setting),
            "keep it with `\"keep-untied\": true`, or choose `\"frontend\": \"tree-sitter\"` \
             (see `\"keep-untied\": true`)"
        );
        // Text a diagnostic does not advise is left as written.
        assert_eq!(respell(&text, &[], Spelling::Wrapper), text);
    }

    #[test]
    fn every_advice_names_an_option_offered_where_it_is_spelt() {
        for advice in Advice::ALL {
            let flag = Flag::find(INSTRUMENTATION, advice.option)
                .unwrap_or_else(|| panic!("no option {}", advice.option));
            assert!(
                flag.offered.wrappers && flag.offered.editor,
                "{}",
                advice.option
            );
            let mut options = Options::default();
            flag.set(&mut options, advice.value)
                .unwrap_or_else(|e| panic!("{advice}: {e}"));
        }
    }

    #[test]
    fn each_option_sets_what_it_names() {
        assert_eq!(
            set("disable", Some("Task, sync,,")).unwrap().rules.disable,
            ["sync".to_string(), "task".to_string()].into()
        );
        assert_eq!(
            set("pomp", Some("opari2")).unwrap().rules.events,
            EventSet::Opari2
        );
        assert_eq!(
            set("interface", Some("pomp1")).unwrap().rules.interface,
            Interface::Pomp1
        );
        assert!(!set("nosrc", None).unwrap().output.line_markers);
        let regions = set("regions", Some("functions+lambdas")).unwrap();
        assert!(regions.front_end.regions.functions && regions.front_end.regions.lambdas);
        let regions = set("regions", Some("functions")).unwrap();
        assert!(regions.front_end.regions.functions && !regions.front_end.regions.lambdas);
        let regions = set("regions", Some("loops,calls=MPI_Send,my_*,functions")).unwrap();
        let asked = regions.front_end.regions;
        assert!(asked.loops && asked.functions);
        let patterns: Vec<&str> = asked.calls.iter().map(glob::Pattern::as_str).collect();
        assert_eq!(patterns, ["MPI_Send", "my_*"]);
        assert!(
            asked.measures_calls_of("my_call", false)
                && !asked.measures_calls_of("MPI_Recv", false)
        );
        let mpi = set("regions", Some("mpi")).unwrap().front_end.regions;
        assert!(
            mpi.measures_calls_of("MPI_Send", false) && mpi.measures_calls_of("mpi_send", true)
        );
        assert!(!mpi.measures_calls_of("Mpi_Send", false));
        assert!(set("regions", Some("calls=")).is_err());
        assert!(set("regions", Some("functions,loop"))
            .unwrap_err()
            .contains("unknown region kind 'loop'"));
        assert!(set("keep-untied", None).unwrap().rules.keep_untied);
        assert_eq!(
            set("frontend", Some("clang")).unwrap().front_end.choice,
            Choice::Clang
        );
    }

    #[test]
    fn values_are_checked() {
        assert_eq!(set("nosrc", Some("1")).unwrap_err(), "takes no value");
        assert_eq!(set("events", None).unwrap_err(), "needs a value");
        assert_eq!(
            set("interface", Some("pomp3")).unwrap_err(),
            "unknown value 'pomp3' (expected pomp2, pomp1, pomp1-paper)"
        );
    }

    #[test]
    fn help_lines_wrap_beside_the_synopsis() {
        let help = help_lines(
            INSTRUMENTATION.iter().filter(|f| f.offered.wrappers),
            "pomp-",
        );
        assert!(help.starts_with("  --pomp-disable=LIST     Leave these"));
        assert!(help.lines().all(|l| l.len() <= 78), "{help}");
        assert!(help.contains("(extended, opari2; default extended)"));
    }
}

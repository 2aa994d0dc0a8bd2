//! The instrumentation rules, loaded from `grammars/rules.toml`.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::LazyLock;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventFamily {
    #[default]
    Opari2,
    Extended,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    #[default]
    Block,
    Standalone,
    Loop,
    Atomic,
}

/// One POMP2 call: `Event(arg, ...)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub event: String,
    pub args: Vec<Arg>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    Handle,
    Ctc,
    OldTask,
    OldTaskRef,
    NewTask,
    NewTaskRef,
    If,
    NumThreads,
}

impl<'de> Deserialize<'de> for Call {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Call, D::Error> {
        let text = String::deserialize(d)?;
        Call::parse(&text).map_err(serde::de::Error::custom)
    }
}

impl Call {
    fn parse(text: &str) -> Result<Call, String> {
        let (event, rest) = text
            .split_once('(')
            .ok_or_else(|| format!("`{text}`: expected Event(args)"))?;
        let args = rest
            .strip_suffix(')')
            .ok_or_else(|| format!("`{text}`: missing `)`"))?;
        let args = args
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(|a| match a {
                "h" => Ok(Arg::Handle),
                "ctc" => Ok(Arg::Ctc),
                "old" => Ok(Arg::OldTask),
                "&old" => Ok(Arg::OldTaskRef),
                "new" => Ok(Arg::NewTask),
                "&new" => Ok(Arg::NewTaskRef),
                "if" => Ok(Arg::If),
                "threads" => Ok(Arg::NumThreads),
                other => Err(format!("`{text}`: unknown argument `{other}`")),
            })
            .collect::<Result<_, _>>()?;
        Ok(Call {
            event: event.trim().to_string(),
            args,
        })
    }
}

#[derive(Clone, Debug, Deserialize)]
pub struct ConstructRule {
    #[serde(default)]
    pub set: EventFamily,
    #[serde(default)]
    pub shape: Shape,
    #[serde(default)]
    pub nowait: bool,
    #[serde(default)]
    pub fork: bool,
    #[serde(default)]
    pub task: bool,
    #[serde(default = "yes")]
    pub region: bool,
    #[serde(default)]
    pub implicit_barrier_at_end: bool,
    #[serde(default)]
    pub before: Vec<Call>,
    #[serde(default)]
    pub begin: Vec<Call>,
    #[serde(default)]
    pub end: Vec<Call>,
    #[serde(default)]
    pub after: Vec<Call>,
}

fn yes() -> bool {
    true
}

#[derive(Clone, Debug, Deserialize)]
pub struct Pair {
    #[serde(default)]
    pub before: Vec<Call>,
    #[serde(default)]
    pub after: Vec<Call>,
    #[serde(default)]
    pub begin: Vec<Call>,
    #[serde(default)]
    pub end: Vec<Call>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct NowaitForbidden {
    pub clauses: Vec<String>,
}

/// The original 2002 interface: which constructs it knows, and the events
/// it names differently.
#[derive(Clone, Debug, Deserialize)]
pub struct Pomp1 {
    pub constructs: Vec<String>,
    #[serde(default)]
    pub rename: BTreeMap<String, String>,
}

impl Pomp1 {
    /// The proposal's form of a POMP2 call: renamed, the descriptor as the
    /// only argument (control calls keep having none).
    pub fn call(&self, call: &Call) -> Call {
        Call {
            event: self
                .rename
                .get(&call.event)
                .cloned()
                .unwrap_or_else(|| call.event.clone()),
            args: if call.args.is_empty() {
                vec![]
            } else {
                vec![Arg::Handle]
            },
        }
    }

    pub fn calls(&self, calls: &[Call]) -> Vec<Call> {
        calls.iter().map(|c| self.call(c)).collect()
    }

    pub fn pair(&self, pair: &Pair) -> Pair {
        Pair {
            before: self.calls(&pair.before),
            after: self.calls(&pair.after),
            begin: self.calls(&pair.begin),
            end: self.calls(&pair.end),
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
pub struct Rules {
    pub construct: BTreeMap<String, ConstructRule>,
    pub implicit_barrier: Pair,
    pub user_region: Pair,
    pub control: BTreeMap<String, Call>,
    pub nowait_forbidden_by: NowaitForbidden,
    pub pomp1: Pomp1,
}

static RULES: LazyLock<Rules> = LazyLock::new(|| {
    toml::from_str(include_str!("../../grammars/rules.toml"))
        .unwrap_or_else(|e| panic!("grammars/rules.toml is invalid: {e}"))
});

pub fn rules() -> &'static Rules {
    &RULES
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_names_a_leaf_of_the_directive_table() {
        let table = crate::directive::table();
        for name in rules().construct.keys() {
            let leaf = name.strip_prefix("untied ").unwrap_or(name);
            assert!(
                table.leaf(leaf).is_some() || table.directive(leaf).is_some(),
                "rules.toml names `{name}`, which the directive table does not know"
            );
        }
    }

    #[test]
    fn calls_parse_with_their_arguments() {
        let fork = &rules().construct["parallel"].before[0];
        assert_eq!(fork.event, "Parallel_fork");
        assert_eq!(
            fork.args,
            vec![
                Arg::Handle,
                Arg::If,
                Arg::NumThreads,
                Arg::OldTaskRef,
                Arg::Ctc
            ]
        );
        assert!(Call::parse("Foo(h, nonsense)").is_err());
    }
}

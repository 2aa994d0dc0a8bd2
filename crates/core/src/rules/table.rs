//! The instrumentation rules, loaded from `grammars/rules.toml` (which the
//! build turns into JSON, quicker to read).

use rustc_hash::FxHashMap;
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

/// One POMP2 call: `Event(arg, ...)`. Calls are read once, with the
/// rules, and live as long as the program: every layer of every construct
/// copies its calls, which then allocate nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    pub event: &'static str,
    pub args: &'static [Arg],
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
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Call {
            event: Box::leak(event.trim().into()),
            args: Box::leak(args.into_boxed_slice()),
        })
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
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
    /// The rule for the construct written with `untied`, kept only on
    /// request: POMP2 measures untied tasks reliably only as tied ones.
    #[serde(default)]
    pub untied: Option<String>,
    /// The construct's word in OPARI2's region types (`parallel` and `for`
    /// make `parallelfor`); for the extended set, the type OPARI2's parser
    /// is shown where no construct of its own is measured. By default the
    /// rule's name without blanks.
    #[serde(default)]
    opari2_type: Option<String>,
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

impl ConstructRule {
    pub fn calls(&self) -> impl Iterator<Item = &Call> {
        (self.before.iter())
            .chain(&self.begin)
            .chain(&self.end)
            .chain(&self.after)
    }

    /// See [`ConstructRule::opari2_type`]'s field; `name` is the rule's.
    pub fn opari2_type<'a>(&'a self, name: &'a str) -> std::borrow::Cow<'a, str> {
        match &self.opari2_type {
            Some(written) => written.as_str().into(),
            None => name.replace(' ', "").into(),
        }
    }
}

/// How a directive's clauses are described in its CTC string, in the
/// vocabulary of OPARI2's parser.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CtcKeys {
    /// Clauses whose presence a key says (`hasNowait=1`), by clause name.
    pub clause_flags: BTreeMap<String, String>,
    /// The key naming the schedule kind and chunk (`hasSchedule=dynamic,4`).
    pub schedule: String,
    /// The key naming the `default` clause's argument.
    pub default: String,
    /// What OPARI2 itself writes, for regions in its structure.
    pub opari2: Opari2Keys,
}

/// The keys OPARI2 writes into a region's CTC string, by its region type
/// (a type not listed has none), and the arguments of `default` it names.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Opari2Keys {
    pub keys: BTreeMap<String, Vec<String>>,
    pub default_arguments: Vec<String>,
}

impl Opari2Keys {
    /// Does OPARI2 write `key` with `value` for a region of `region_type`?
    pub fn writes(&self, region_type: &str, key: &str, value: &str) -> bool {
        let listed = (self.keys.get(region_type)).is_some_and(|keys| keys.iter().any(|k| k == key));
        listed && (key != rules().ctc.default || self.default_arguments.iter().any(|a| a == value))
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
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

/// Clauses that decide something of a construct's instrumentation:
/// clauses of these names, and clauses written with one of the modifiers
/// listed for their name.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClauseSet {
    #[serde(default)]
    pub clauses: Vec<String>,
    #[serde(default)]
    pub modifiers: BTreeMap<String, Vec<String>>,
}

impl ClauseSet {
    /// The first of `clauses` that is in the set.
    pub fn clause_in<'c>(
        &self,
        clauses: impl IntoIterator<Item = &'c crate::directive::Clause>,
    ) -> Option<&'c crate::directive::Clause> {
        clauses.into_iter().find(|clause| {
            self.clauses.iter().any(|c| *c == clause.name)
                || self.modifiers.get(&*clause.name).is_some_and(|forbidding| {
                    let written = clause.modifier_split().0.unwrap_or_default();
                    written.split(',').any(|modifier| {
                        forbidding
                            .iter()
                            .any(|f| f.eq_ignore_ascii_case(modifier.trim()))
                    })
                })
        })
    }
}

/// The directives that cancel the construct they name by a clause
/// (`cancel for`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cancellation {
    pub directives: Vec<String>,
}

/// Combined constructs written with one of these clauses are not split
/// into their leaves (`rules.toml` says why).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeptWhole {
    pub with: ClauseSet,
    /// Why, for the note that says the construct is measured as a whole.
    pub reason: String,
}

/// The original 2002 interface: which constructs it knows, and the events
/// it names differently.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pomp1 {
    pub constructs: Vec<String>,
    /// Constructs OPARI 1.1's library defines no events for.
    #[serde(default)]
    pub opari_lacks: Vec<String>,
    #[serde(default)]
    pub rename: BTreeMap<String, String>,
}

impl Pomp1 {
    /// The proposal's form of a POMP2 call: renamed, the descriptor as the
    /// only argument (control calls keep having none).
    pub fn call(&'static self, call: &Call) -> Call {
        Call {
            event: self
                .rename
                .get(call.event)
                .map_or(call.event, String::as_str),
            args: if call.args.is_empty() {
                &[]
            } else {
                &[Arg::Handle]
            },
        }
    }

    pub fn calls(&'static self, calls: &[Call]) -> Vec<Call> {
        calls.iter().map(|c| self.call(c)).collect()
    }

    pub fn pair(&'static self, pair: &Pair) -> Pair {
        Pair {
            before: self.calls(&pair.before),
            after: self.calls(&pair.after),
            begin: self.calls(&pair.begin),
            end: self.calls(&pair.end),
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    /// Looked up several times for every layer: hashed, not ordered.
    pub construct: FxHashMap<String, ConstructRule>,
    pub implicit_barrier: Pair,
    pub user_region: Pair,
    pub control: BTreeMap<String, Call>,
    pub nowait_forbidden_by: ClauseSet,
    pub nowait_forbidden_by_cancellation: Cancellation,
    pub kept_whole: KeptWhole,
    pub pomp1: Pomp1,
    pub ctc: CtcKeys,
}

static RULES: LazyLock<Rules> = LazyLock::new(|| {
    let rules: Rules = serde_json::from_str(include_str!(concat!(env!("OUT_DIR"), "/rules.json")))
        .unwrap_or_else(|e| panic!("grammars/rules.toml is invalid: {e}"));
    if let Err(e) = rules.check_signatures() {
        panic!("grammars/rules.toml is invalid: {e}");
    }
    rules
});

impl Arg {
    /// The parameter type an argument passes.
    fn param(self) -> pomp2::events::Param {
        use pomp2::events::Param;
        match self {
            Arg::Handle => Param::RegionHandle,
            Arg::Ctc => Param::Ctc,
            Arg::OldTask | Arg::NewTask => Param::Task,
            Arg::OldTaskRef | Arg::NewTaskRef => Param::TaskRef,
            Arg::If | Arg::NumThreads => Param::Int,
        }
    }
}

impl Rules {
    fn all_calls(&self) -> impl Iterator<Item = &Call> {
        self.construct
            .values()
            .flat_map(ConstructRule::calls)
            .chain(self.implicit_barrier.calls())
            .chain(self.user_region.calls())
            .chain(self.control.values())
    }

    /// Every call names a POMP2 function of the contract and passes what
    /// its parameters take; every CTC key and region type is one OPARI2's
    /// parser knows.
    fn check_signatures(&self) -> Result<(), String> {
        use pomp2::ctc::opari2;
        let opari2_keys = self.ctc.opari2.keys.values().flatten();
        for key in (self.ctc.clause_flags.values())
            .chain([&self.ctc.schedule, &self.ctc.default])
            .chain(opari2_keys)
        {
            if !opari2::knows_key(key) {
                return Err(format!("OPARI2's CTC parser does not know the key `{key}`"));
            }
        }
        if let Some(unknown) = (self.ctc.opari2.keys.keys()).find(|t| !opari2::is_region_type(t)) {
            return Err(format!(
                "OPARI2's CTC parser does not know the region type `{unknown}`"
            ));
        }
        for (name, rule) in &self.construct {
            let word = rule.opari2_type(name);
            let known = match rule.set {
                // A word of a combined type: some type begins or ends with it.
                EventFamily::Opari2 => opari2::REGION_TYPES
                    .iter()
                    .any(|t| t.starts_with(&*word) || t.ends_with(&*word)),
                EventFamily::Extended => opari2::is_region_type(&word),
            };
            if !known {
                return Err(format!("`{name}`: `{word}` is no region type of OPARI2's"));
            }
        }
        for call in self.all_calls() {
            let event = pomp2::events::find(call.event)
                .ok_or_else(|| format!("`{}` is no POMP2 function", call.event))?;
            let passed: Vec<_> = call.args.iter().map(|a| a.param()).collect();
            if passed != event.params {
                return Err(format!(
                    "`{}` takes {:?}, the rule passes {:?}",
                    call.event, event.params, passed
                ));
            }
        }
        Ok(())
    }
}

impl Pair {
    pub fn calls(&self) -> impl Iterator<Item = &Call> {
        self.before
            .iter()
            .chain(&self.begin)
            .chain(&self.end)
            .chain(&self.after)
    }
}

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

    #[test]
    fn the_built_rules_are_the_toml_ones() {
        let mut from_toml: Rules =
            toml::from_str(include_str!("../../../../grammars/rules.toml")).unwrap();
        let mut built = rules().clone();
        let sorted = |rules: &mut Rules| {
            let mut constructs: Vec<String> =
                rules.construct.iter().map(|c| format!("{c:?}")).collect();
            constructs.sort();
            rules.construct.clear();
            constructs
        };
        assert_eq!(sorted(&mut built), sorted(&mut from_toml));
        assert_eq!(format!("{built:?}"), format!("{from_toml:?}"));
    }

    #[test]
    fn rules_are_checked_against_the_contract() {
        let parse = |text: &str| toml::from_str::<Rules>(text);
        let base = include_str!("../../../../grammars/rules.toml");
        assert!(parse(base).unwrap().check_signatures().is_ok());
        let unknown_field = base.replace("fork = true", "fork = true\nforks = true");
        let error = parse(&unknown_field).unwrap_err().to_string();
        assert!(error.contains("unknown field `forks`"), "{error}");
        let wrong_arguments = base.replace("Parallel_begin(h)", "Parallel_begin(h, ctc)");
        let error = parse(&wrong_arguments)
            .unwrap()
            .check_signatures()
            .unwrap_err();
        assert!(error.contains("`Parallel_begin` takes"), "{error}");
        let unknown_event = base.replace("Parallel_begin(h)", "Parallel_start(h)");
        let error = parse(&unknown_event)
            .unwrap()
            .check_signatures()
            .unwrap_err();
        assert_eq!(error, "`Parallel_start` is no POMP2 function");
    }
}

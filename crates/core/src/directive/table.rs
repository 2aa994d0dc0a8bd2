//! The OpenMP directive table, loaded from `grammars/openmp.toml` (which
//! the build turns into JSON, quicker to read).

use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde::Deserialize;

use crate::language::Language;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Association {
    Block,
    Loop,
    Standalone,
    Declarative,
    BeginDeclarative,
    EndDeclarative,
    /// Divides the block of its enclosing construct into parts of their
    /// own: `section`.
    Separator,
    /// Marks a point in the code of its enclosing construct and has no
    /// code of its own: `scan`, `task_iteration`.
    Subsidiary,
    End,
    Meta,
    Informational,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Distribution {
    All,
    Innermost,
    Outermost,
    Firstprivate,
    Lastprivate,
    Reduction,
    Linear,
    Allocate,
    If,
}

/// What one of pomp's own directives does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// Opens a user region (`inst begin(name)`).
    UserRegionBegin,
    /// Closes the user region of the same name (`inst end(name)`).
    UserRegionEnd,
    /// Nothing is instrumented from here (`noinstrument`) ...
    StopInstrumenting,
    /// ... to here (`instrument`).
    ResumeInstrumenting,
}

/// Whether a directive takes a parenthesised argument right after its name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArgumentUse {
    #[default]
    None,
    Optional,
    Required,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectiveSpec {
    pub name: String,
    /// Other spellings of this directive (`target_data` for `target data`).
    #[serde(default)]
    pub aliases: Vec<String>,
    pub association: Association,
    #[serde(default)]
    pub leaves: Vec<String>,
    /// `"c"` (C and C++) and/or `"fortran"`; empty means both.
    #[serde(default)]
    pub languages: Vec<String>,
    #[serde(default)]
    pub region_type: Option<String>,
    #[serde(default)]
    pub ends: Option<String>,
    #[serde(default)]
    pub argument: ArgumentUse,
    /// Fortran: the end directive of this construct may be omitted.
    #[serde(default)]
    pub end_optional: bool,
    /// Clauses accepted beyond those of the leaves (for end directives,
    /// which have no leaves of their own).
    #[serde(default)]
    pub clauses: Vec<String>,
    /// A loop-transforming construct (`tile`, `unroll`, `fuse`, ...): it
    /// may stand between a loop construct and its loop, and be named in an
    /// `apply` clause.
    #[serde(default)]
    pub loop_transformation: bool,
    /// pomp's own directive, accepted after the `pomp` sentinel.
    #[serde(default)]
    pub pomp: bool,
    /// What one of pomp's own directives does.
    #[serde(default)]
    pub role: Option<Role>,
    /// The CTC key under which the argument names the region
    /// (`criticalName`, `userRegionName`).
    #[serde(default)]
    pub argument_names: Option<String>,
    /// Fortran: the end directive repeats the argument, which must match
    /// (`end critical (name)`).
    #[serde(default)]
    pub end_repeats_argument: bool,
    /// The block is one statement (in Fortran followed by an optional end
    /// directive) ...
    #[serde(default)]
    pub statement_block: bool,
    /// ... unless one of these clauses is present: then any statements up
    /// to a required end directive (`atomic capture`).
    #[serde(default)]
    pub whole_block_with: Vec<String>,
    /// A declaration whose code runs on the device (`declare target`).
    #[serde(default)]
    pub device: bool,
    /// This entry is a second form of the directive named here, spelled
    /// the same way in source (the standalone `ordered`).
    #[serde(default)]
    pub form_of: Option<String>,
    /// The clauses whose presence selects this form over `form_of`.
    #[serde(default)]
    pub selected_by: Vec<String>,
}

/// An entry without `languages` belongs to C, C++ and Fortran alike.
fn written_for(languages: &[String], language: Language) -> bool {
    let wanted = if language.is_fortran() {
        "fortran"
    } else {
        "c"
    };
    languages.is_empty() || languages.iter().any(|l| l == wanted)
}

impl DirectiveSpec {
    pub fn is_for(&self, language: Language) -> bool {
        written_for(&self.languages, language)
    }

    /// How the directive is written in source.
    pub fn spelling(&self) -> &str {
        self.form_of.as_deref().unwrap_or(&self.name)
    }

    /// A construct made of more than one leaf (`parallel for`).
    pub fn is_combined(&self) -> bool {
        self.leaves.len() > 1
    }

    /// Every way the directive may be written: its name and its aliases.
    pub fn spellings(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.name.as_str()).chain(self.aliases.iter().map(String::as_str))
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClauseSpec {
    pub name: String,
    pub distribution: Distribution,
    #[serde(default)]
    pub list: bool,
    /// The list comes first and a `:` introduces a step or modifiers
    /// (`linear(i: 2)`, `aligned(p: 64)`).
    #[serde(default)]
    pub modifier_after: bool,
    /// The words that may stand before the argument's top-level `:`.
    #[serde(default)]
    pub modifiers: Vec<String>,
    /// The words the argument, after its modifiers, may start with.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Reduction identifiers that may stand before the `:` besides the
    /// modifiers; any other name may be a user-defined reduction.
    #[serde(default)]
    pub operators: Vec<String>,
    #[serde(default)]
    pub languages: Vec<String>,
}

impl ClauseSpec {
    pub fn is_for(&self, language: Language) -> bool {
        written_for(&self.languages, language)
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeafSpec {
    pub clauses: Vec<String>,
    /// The separator directive that divides the construct's block into
    /// parts (`sections` is divided by `section`).
    #[serde(default)]
    pub divided_by: Option<String>,
    /// Split off the front of a combined construct as a layer with calls
    /// of its own (`parallel`, `masked`, `master`).
    #[serde(default)]
    pub splits_off: bool,
    /// Split off a combined construct, the leaf takes the clauses the
    /// table does not know, near misses of its clauses aside (macros such
    /// as `LMP_DEFAULT_NONE`, not typos such as `colapse`): every
    /// clause the rest accepts either means the same on it or is rejected
    /// on it by the compiler, so nothing changes meaning unseen.
    #[serde(default)]
    pub takes_unknown_clauses: bool,
    /// Nothing may be inserted in the construct's code: it runs on a
    /// device, in SIMD lanes, may be replayed without the code around its
    /// tasks (`taskgraph`), or admits only certain statements.
    #[serde(default)]
    pub forbids_calls: bool,
    /// The team the construct creates: `threads` (`parallel`), whose
    /// threads may call the OpenMP runtime, or a `league` of teams
    /// (`teams`), strictly inside which no runtime routine may be called.
    #[serde(default)]
    pub creates: Option<Team>,
    /// The construct's code runs in explicit tasks it creates (`task`,
    /// `taskloop`), which may run on another thread, and after the code
    /// that created them has returned.
    #[serde(default)]
    pub makes_tasks: bool,
}

/// What a construct's region is executed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Team {
    Threads,
    League,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    pub directive: Vec<DirectiveSpec>,
    pub clause: Vec<ClauseSpec>,
    /// Looked up for every leaf of every directive: hashed, not ordered.
    #[serde(default)]
    pub leaf: FxHashMap<String, LeafSpec>,
    #[serde(default)]
    pub groups: BTreeMap<String, Vec<String>>,
    #[serde(skip)]
    directive_index: FxHashMap<String, usize>,
    #[serde(skip)]
    clause_index: FxHashMap<String, usize>,
}

impl Table {
    /// Parses a table in the format of `grammars/openmp.toml`.
    pub fn from_toml(text: &str) -> Result<Table, toml::de::Error> {
        Ok(toml::from_str::<Table>(text)?.indexed())
    }

    /// Parses a table of the same content as JSON.
    pub fn from_json(text: &str) -> Result<Table, serde_json::Error> {
        Ok(serde_json::from_str::<Table>(text)?.indexed())
    }

    fn indexed(mut self) -> Table {
        self.directive_index = self
            .directive
            .iter()
            .enumerate()
            .flat_map(|(i, d)| d.spellings().map(move |s| (s.to_string(), i)))
            .collect();
        self.clause_index = self
            .clause
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.clone(), i))
            .collect();
        self
    }

    /// The directive spelt `name`, by its canonical name or an alias.
    pub fn directive(&self, name: &str) -> Option<&DirectiveSpec> {
        self.position(name).map(|i| &self.directive[i])
    }

    /// Where [`Table::directive`] finds `name` in [`Table::directive`]'s list.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.directive_index.get(name).copied()
    }

    /// Whether an end directive ends the directive `name`.
    pub fn is_ended(&self, name: &str) -> bool {
        self.directive
            .iter()
            .any(|d| d.ends.as_deref() == Some(name))
    }

    pub fn clause(&self, name: &str) -> Option<&ClauseSpec> {
        self.clause_index.get(name).map(|&i| &self.clause[i])
    }

    /// The table's own copy of the clause name `name`, when the table
    /// spells a clause so (not by an alias): a clause read then holds no
    /// name of its own.
    pub fn clause_name(&self, name: &str) -> Option<&str> {
        (self.clause(name))
            .filter(|spec| spec.name == name)
            .map(|spec| spec.name.as_str())
    }

    pub fn leaf(&self, name: &str) -> Option<&LeafSpec> {
        self.leaf.get(name)
    }

    /// Whether the leaf `name`, split off a combined construct, takes the
    /// clauses the table does not know.
    pub fn takes_unknown_clauses(&self, name: &str) -> bool {
        self.leaf(name).is_some_and(|l| l.takes_unknown_clauses)
    }

    /// Whether any leaf of `directive` forbids inserted calls in its code.
    pub fn forbids_calls(&self, directive: &DirectiveSpec) -> bool {
        directive
            .leaves
            .iter()
            .any(|leaf| self.leaf(leaf).is_some_and(|l| l.forbids_calls))
    }

    /// The separator that divides the block of `directive` into parts,
    /// if one of its leaves is divided (`section` for `parallel sections`).
    pub fn divided_by(&self, directive: &DirectiveSpec) -> Option<&str> {
        directive
            .leaves
            .iter()
            .find_map(|leaf| self.leaf(leaf)?.divided_by.as_deref())
    }

    /// The team `directive` creates, its innermost leaf that creates one
    /// deciding (`teams distribute parallel for` creates threads).
    pub fn creates(&self, directive: &DirectiveSpec) -> Option<Team> {
        directive
            .leaves
            .iter()
            .rev()
            .find_map(|leaf| self.leaf(leaf)?.creates)
    }

    /// Whether a leaf of `directive` runs its code in explicit tasks.
    pub fn makes_tasks(&self, directive: &DirectiveSpec) -> bool {
        directive
            .leaves
            .iter()
            .any(|leaf| self.leaf(leaf).is_some_and(|l| l.makes_tasks))
    }

    /// The region types a `--disable` group stands for.
    pub fn group(&self, name: &str) -> Option<&[String]> {
        self.groups.get(name).map(Vec::as_slice)
    }

    /// The other forms of a directive spelled `spelling` (see `form_of`).
    pub fn forms_of<'a>(&'a self, spelling: &'a str) -> impl Iterator<Item = &'a DirectiveSpec> {
        self.directive
            .iter()
            .filter(move |d| d.form_of.as_deref() == Some(spelling))
    }

    /// Every clause the directive accepts: the union over its leaves and
    /// its own extra clauses, in table order without repetition.
    pub fn clauses_of<'a>(&'a self, directive: &'a DirectiveSpec) -> Vec<&'a str> {
        let mut names: Vec<&str> = Vec::new();
        let leaf_clauses = directive
            .leaves
            .iter()
            .filter_map(|leaf| self.leaf(leaf))
            .flat_map(|leaf| leaf.clauses.iter());
        for name in leaf_clauses.chain(directive.clauses.iter()) {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        names
    }

    /// Whether `clause` may appear on `directive` at all.
    pub fn accepts(&self, directive: &DirectiveSpec, clause: &str) -> bool {
        directive.clauses.iter().any(|c| c == clause)
            || directive.leaves.iter().any(|leaf| {
                self.leaf(leaf)
                    .is_some_and(|l| l.clauses.iter().any(|c| c == clause))
            })
    }

    /// The leaves of `directive` that accept `clause`, outermost first.
    pub fn leaves_accepting<'a>(
        &'a self,
        directive: &'a DirectiveSpec,
        clause: &'a str,
    ) -> impl Iterator<Item = &'a str> {
        directive
            .leaves
            .iter()
            .filter(move |leaf| {
                self.leaf(leaf)
                    .is_some_and(|l| l.clauses.iter().any(|c| c == clause))
            })
            .map(String::as_str)
    }
}

static TABLE: LazyLock<Table> = LazyLock::new(|| {
    Table::from_json(include_str!(concat!(env!("OUT_DIR"), "/openmp.json")))
        .unwrap_or_else(|e| panic!("grammars/openmp.toml is invalid: {e}"))
});

/// The OpenMP directive table.
pub fn table() -> &'static Table {
    &TABLE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directive_is_found_by_its_own_name_and_by_text_alike() {
        let t = table();
        let own = t.directive("parallel for").unwrap().name.as_str();
        assert!(std::ptr::eq(t.directive(own).unwrap().name.as_str(), own));
        // A prefix of the table's own text, at the same address.
        assert_eq!(t.directive(&own[..8]).unwrap().name, "parallel");
        let copy = String::from("parallel for");
        assert_eq!(t.directive(&copy).unwrap().name, "parallel for");
        // A copy answers with its own entries.
        let other = t.clone();
        assert!(std::ptr::eq(
            other.directive(own).unwrap(),
            other.directive("parallel for").unwrap()
        ));
        assert_eq!(t.directive("no such directive").map(|d| &d.name), None);
    }

    #[test]
    fn table_loads_with_every_kind_of_entry() {
        let t = table();
        assert!(t.directive.len() > 150, "{} directives", t.directive.len());
        let pf = t.directive("parallel for").unwrap();
        assert_eq!(pf.leaves, ["parallel", "for"]);
        assert_eq!(pf.association, Association::Loop);
        assert_eq!(pf.region_type.as_deref(), Some("parallelfor"));
        assert!(pf.is_for(Language::Cpp) && !pf.is_for(Language::FortranFree));
        let end = t.directive("end parallel do").unwrap();
        assert_eq!(end.association, Association::End);
        assert_eq!(end.ends.as_deref(), Some("parallel do"));
        assert!(t.directive("parallel do").unwrap().end_optional);
        assert!(!t.directive("parallel").unwrap().end_optional);
        assert_eq!(
            t.clause("reduction").unwrap().distribution,
            Distribution::Reduction
        );
        assert_eq!(
            t.clause("private").unwrap().distribution,
            Distribution::Innermost
        );
        assert_eq!(
            t.clause("nowait").unwrap().distribution,
            Distribution::Outermost
        );
        assert!(t.clause("linear").unwrap().modifier_after);
        assert!(!t.clause("schedule").unwrap().list);
        assert!(t.directive("inst begin").unwrap().pomp);
        assert!(t.directive("paralel").is_none());
        let data = t.directive("target_data").unwrap();
        assert_eq!(data.name, "target data");
        assert_eq!(
            data.spellings().collect::<Vec<_>>(),
            ["target data", "target_data"]
        );
        assert_eq!(
            t.directive("scan").unwrap().association,
            Association::Subsidiary
        );
        assert!(t.directive("tile").unwrap().loop_transformation);
        for (name, closed) in [
            ("target teams", true),
            ("parallel for simd", true),
            ("taskgraph", true),
            ("target teams workdistribute", true),
            ("parallel for", false),
            ("target data", false),
        ] {
            assert_eq!(
                t.forbids_calls(t.directive(name).unwrap()),
                closed,
                "{name}"
            );
        }
        assert!(!t.directive("for").unwrap().loop_transformation);
    }

    #[test]
    fn the_built_table_is_the_toml_one() {
        let from_toml = Table::from_toml(include_str!("../../../../grammars/openmp.toml")).unwrap();
        let built = table();
        assert_eq!(
            format!("{:?}", built.directive),
            format!("{:?}", from_toml.directive)
        );
        assert_eq!(
            format!("{:?}", built.clause),
            format!("{:?}", from_toml.clause)
        );
        assert_eq!(built.groups, from_toml.groups);
        let leaves = |t: &Table| {
            let mut leaves: Vec<String> = t.leaf.iter().map(|l| format!("{l:?}")).collect();
            leaves.sort();
            leaves
        };
        assert_eq!(leaves(built), leaves(&from_toml));
    }

    #[test]
    fn every_leaf_and_clause_is_defined() {
        let t = table();
        for d in &t.directive {
            let needs_leaves = !matches!(
                d.association,
                Association::End | Association::EndDeclarative
            );
            assert_eq!(needs_leaves, !d.leaves.is_empty(), "leaves of `{}`", d.name);
            for leaf in &d.leaves {
                assert!(t.leaf(leaf).is_some(), "leaf `{leaf}` of `{}`", d.name);
            }
            for c in &d.clauses {
                assert!(t.clause(c).is_some(), "clause `{c}` of `{}`", d.name);
            }
            for l in &d.languages {
                assert!(l == "c" || l == "fortran", "language `{l}` of `{}`", d.name);
            }
            if let Some(ends) = &d.ends {
                let opened = t.directive(ends).unwrap_or_else(|| panic!("`{}`", d.name));
                assert!(d
                    .languages
                    .iter()
                    .all(|l| opened.languages.is_empty() || opened.languages.contains(l)));
            }
            if let Some(base) = &d.form_of {
                assert!(t.directive(base).is_some() && !d.selected_by.is_empty());
            }
        }
        for (name, leaf) in &t.leaf {
            for c in &leaf.clauses {
                assert!(t.clause(c).is_some(), "clause `{c}` of leaf `{name}`");
            }
        }
        let mut names: Vec<&str> = t.directive.iter().flat_map(|d| d.spellings()).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len(), "duplicate directive names");
        for d in &t.directive {
            for alias in &d.aliases {
                assert_eq!(t.directive(alias).map(|a| &a.name), Some(&d.name));
            }
            if d.loop_transformation {
                let loops = matches!(d.association, Association::Loop | Association::Block);
                assert!(loops && d.region_type.is_some(), "`{}`", d.name);
            }
        }
    }

    #[test]
    fn every_fortran_construct_has_its_end_directive() {
        let t = table();
        for d in &t.directive {
            let construct = matches!(d.association, Association::Block | Association::Loop);
            if construct && d.is_for(Language::FortranFree) {
                let end = t.directive(&format!("end {}", d.name));
                let end = end.unwrap_or_else(|| panic!("no `end {}`", d.name));
                assert_eq!(end.ends.as_deref(), Some(d.name.as_str()));
            }
            if d.association == Association::Loop && d.is_for(Language::FortranFree) {
                assert!(d.end_optional, "`{}` should have end_optional", d.name);
            }
        }
        let end_single = t.directive("end single").unwrap();
        assert!(t.accepts(end_single, "copyprivate") && t.accepts(end_single, "nowait"));
        assert!(!t.accepts(t.directive("end parallel do").unwrap(), "nowait"));
    }

    #[test]
    fn clauses_are_the_union_over_leaves() {
        let t = table();
        let d = t
            .directive("target teams distribute parallel for simd")
            .unwrap();
        for c in [
            "map",
            "num_teams",
            "dist_schedule",
            "num_threads",
            "schedule",
            "simdlen",
        ] {
            assert!(t.accepts(d, c), "{c}");
        }
        assert!(!t.accepts(d, "copyprivate"));
        assert!(t.clauses_of(d).contains(&"proc_bind"));
        let leaves: Vec<&str> = t.leaves_accepting(d, "private").collect();
        assert_eq!(leaves.last(), Some(&"simd"));
        assert_eq!(leaves.len(), 6);
    }

    #[test]
    fn groups_cover_the_region_types() {
        let t = table();
        let sync = t.group("sync").unwrap();
        assert!(sync.iter().any(|g| g == "locks") && sync.iter().any(|g| g == "barrier"));
        assert_eq!(t.group("region").unwrap(), ["region"]);
        assert!(t.group("nonsense").is_none());
        let omp = t.group("omp").unwrap();
        for d in t.directive.iter().filter(|d| !d.pomp) {
            if let Some(rt) = &d.region_type {
                assert!(omp.contains(rt), "omp group lacks `{rt}`");
            }
        }
        for (name, members) in &t.groups {
            for m in members.iter().filter(|m| *m != "locks" && *m != "region") {
                assert!(omp.contains(m), "group `{name}` names unknown `{m}`");
            }
        }
    }
}

//! The planner: what every rule step reads and writes while a model
//! becomes a plan, and the questions the options answer for all of them.

use super::config::{Config, EventSet, Interface};
use super::plan::Plan;
use super::table::{self, rules, Call, EventFamily};
use crate::directive::table as directive_table;
use crate::model::Model;
use crate::source::SourceFile;

pub(super) struct Planner<'a> {
    pub(super) file: &'a SourceFile,
    pub(super) model: &'a Model,
    pub(super) options: &'a Config,
    pub(super) plan: Plan,
    pub(super) site_region: Vec<Option<usize>>,
    /// Sites a `cancel` or `cancellation point` inside them names, each
    /// with the first such directive.
    pub(super) cancelled: std::collections::BTreeMap<usize, usize>,
    /// `teams` sites whose parallel regions need [`Var::MaxThreads`](super::plan::Var::MaxThreads).
    pub(super) teams_max_threads: std::collections::BTreeSet<usize>,
    /// Combined loop constructs whose splitting lists iteration variables
    /// on an enclosing leaf, with those variables.
    pub(super) listed_iteration_variables: Vec<(usize, Vec<String>)>,
    /// The names of the user regions `--filter` left alone, open.
    pub(super) filtered_user_regions: Vec<String>,
    /// The file's unique name part, for the original interface's
    /// descriptors (the same [`Plan::named`] gives it).
    pub(super) descriptor_names: Option<String>,
}

impl Planner<'_> {
    pub(super) fn disabled(&self, rule: &str, region_type: &str) -> bool {
        names(&self.options.disable, rule, region_type)
    }

    pub(super) fn wanted(&self, name: &str, rule: &table::ConstructRule) -> bool {
        match self.options.interface {
            Interface::Pomp1Paper => rules().pomp1.constructs.iter().any(|c| c == name),
            Interface::Pomp1 => {
                let pomp1 = &rules().pomp1;
                pomp1.constructs.iter().any(|c| c == name)
                    && !pomp1.opari_lacks.iter().any(|c| c == name)
            }
            Interface::Pomp2 => {
                !(rule.set == EventFamily::Extended && self.options.events == EventSet::Opari2)
            }
        }
    }

    /// Does the measurement library define `event` (as the interface's
    /// rules name it) for this file's language? pomp's runtime defines all.
    pub(super) fn defines(&self, event: &str) -> bool {
        self.options
            .library
            .as_ref()
            .is_none_or(|library| library.defines(event, self.file.language.is_fortran()))
    }

    pub(super) fn defines_all<'c>(&self, calls: impl IntoIterator<Item = &'c Call>) -> bool {
        calls.into_iter().all(|call| self.defines(call.event))
    }

    /// Are regions measured in OPARI2's structure? Then a combined
    /// construct's region is one of OPARI2's types (its other parts stay
    /// unmeasured, as OPARI2 leaves them) and every barrier a library must
    /// see is explicit: for `--pomp=opari2`, and for every library but
    /// pomp's runtime, which alone infers a parallel region's barrier.
    pub(super) fn opari2_structure(&self) -> bool {
        self.options.events == EventSet::Opari2 || self.options.library.is_some()
    }
}

/// Does a set of construct and group names (`--disable`) name the leaf
/// construct `rule` of a construct of `region_type`? `omp` names all.
pub(super) fn names(
    set: &std::collections::BTreeSet<String>,
    rule: &str,
    region_type: &str,
) -> bool {
    if set.contains("omp") || set.contains(rule) || set.contains(region_type) {
        return true;
    }
    let table = directive_table();
    set.iter().any(|group| {
        table
            .group(group)
            .is_some_and(|members| members.iter().any(|m| m == rule || m == region_type))
    })
}

//! Rules: which POMP2 events go where. From the front end's [`Model`] to a
//! language-neutral [`Plan`]; the output stage renders the plan as C or
//! Fortran text. The events of each construct are data in
//! `grammars/rules.toml`; this module only applies them.

mod config;
mod constructs;
mod ctc;
mod data_sharing;
mod functions;
mod locks;
mod plan;
mod planner;
mod split;
pub mod table;
mod user_regions;

use crate::diagnostics::Diagnostic;
use crate::directive::Association;
use crate::model::{DirectiveForm, Model};
use crate::source::SourceFile;
pub use config::{Config, EventSet, Interface, Library, FORTRAN_THREAD_PRIVATE};
pub use data_sharing::has_restrictive_default;
pub use functions::is_program;
pub use plan::{
    unique_name, BareDirective, Construct, FunctionRegion, Layer, NamedPlan, Plan, PompAction,
    Region, RegionExit, ValueScope, Var, MAX_THREADS_VAR, UNTIED_MADE_TIED,
};
use planner::Planner;
pub use pomp2::ctc::ImplicitBarrier;
pub use table::{rules, Arg, Call, EventFamily, Pair, Shape};

/// Apply the rules to a model: the plan, without the file's names
/// ([`Plan::named`] adds them), and with all the rules' diagnostics.
pub fn check(file: &SourceFile, model: &Model, options: &Config) -> Plan {
    let mut planner = Planner {
        file,
        model,
        options,
        plan: Plan::new(file, model, options),
        site_region: vec![None; model.sites.len()],
        teams_max_threads: std::collections::BTreeSet::new(),
        cancelled: cancelled_sites(model),
        listed_iteration_variables: Vec::new(),
        filtered_user_regions: Vec::new(),
        // OPARI 1.1's library finds C descriptors through a table the link
        // step makes: they are named after the file.
        descriptor_names: (options.interface == Interface::Pomp1).then(|| unique_name(file)),
    };
    planner.run();
    planner.plan
}

/// The constructs that a cancellation directive inside them names: the
/// innermost enclosing site with a leaf of the kind the directive's clause
/// names (`cancel for`: the innermost `for`).
fn cancelled_sites(model: &Model) -> std::collections::BTreeMap<usize, usize> {
    let cancelling = &rules().nowait_forbidden_by_cancellation.directives;
    let mut cancelled = std::collections::BTreeMap::new();
    for (index, site) in model.sites.iter().enumerate() {
        if !cancelling.iter().any(|d| d == site.directive.name()) {
            continue;
        }
        let kinds: Vec<&str> = (site.directive.clauses.iter())
            .map(|c| &*c.name)
            .filter(|name| *name != "if")
            .collect();
        let mut parent = site.parent;
        while let Some(p) = parent {
            let leaves = &model.sites[p].directive.spec().leaves;
            if leaves.iter().any(|leaf| kinds.contains(&leaf.as_str())) {
                cancelled.entry(p).or_insert(index);
                break;
            }
            parent = model.sites[p].parent;
        }
    }
    cancelled
}

impl Planner<'_> {
    fn run(&mut self) {
        let skipped = self.skipped_ranges();
        let mut user_stack: Vec<(String, usize)> = Vec::new();
        for (index, site) in self.model.sites.iter().enumerate() {
            if site.failed {
                continue;
            }
            let inside_skipped = skipped.strictly_inside(site.span.start);
            if site.directive.spec().pomp {
                self.pomp_directive(index, site, inside_skipped, &mut user_stack);
                continue;
            }
            if inside_skipped
                || site.form == DirectiveForm::Implicit && self.parent_region(site).is_none()
            {
                continue;
            }
            if site.directive.spec().association == Association::Meta {
                self.plan.diagnostics.push(Diagnostic::warning(
                    site.span.clone(),
                    format!("`{}` is not instrumented", site.directive.name()),
                    "the construct it selects is only known at compile time",
                ));
                continue;
            }
            self.construct(index, site);
        }
        for (name, index) in user_stack {
            let site = &self.model.sites[self.plan.regions[index].site.expect("a user region")];
            self.plan.diagnostics.push(
                Diagnostic::error(
                    site.span.clone(),
                    format!("user region `{name}` is never closed"),
                    "opened here",
                )
                .with_note(format!("add `inst end({name})` where the region ends")),
            );
        }
        self.function_regions();
        self.shared_handles_for_default_clauses();
        self.max_threads_before_teams();
        self.private_iteration_variables_where_predetermined();
        self.rewrite_attribute_sequences_whole();
        self.lock_calls(&skipped);
        self.user_region_exits();
        self.parents();
    }

    /// The directives of a C++ `omp::sequence` attribute each own a part of
    /// its text, so when one is written as a `#pragma` line the others must
    /// be too: those not instrumented are written as they are.
    fn rewrite_attribute_sequences_whole(&mut self) {
        let rewritten: std::collections::BTreeSet<usize> = (self.plan.constructs.iter())
            .map(|c| c.site)
            .chain(self.plan.bare_directives.iter().map(|b| b.site))
            .chain(self.plan.value_scopes.iter().map(|v| v.site))
            .collect();
        let sites = &self.model.sites;
        let joined = |i: usize| {
            i > 0
                && sites[i].form == DirectiveForm::Attribute
                && sites[i - 1].form == DirectiveForm::Attribute
                && sites[i - 1].lines.end == sites[i].lines.start
        };
        let mut first = 0;
        while first < sites.len() {
            let end = (first + 1..sites.len())
                .find(|&i| !joined(i))
                .unwrap_or(sites.len());
            if (first..end).any(|i| rewritten.contains(&i)) {
                for i in (first..end).filter(|i| !rewritten.contains(i)) {
                    self.plan.bare_directives.push(BareDirective {
                        site: i,
                        directive: sites[i].directive.clone(),
                    });
                }
            }
            first = end;
        }
    }

    fn parents(&mut self) {
        let mut parents = Vec::new();
        for region in &self.plan.regions {
            let Some(opening) = region.site else {
                parents.push(self.function_holding(
                    &self.model.functions[region.function.expect("a function region")].span,
                    region.id,
                ));
                continue;
            };
            let mut site = self.model.sites[opening].parent;
            let mut parent = None;
            while let Some(s) = site {
                if let Some(r) = self.site_region[s] {
                    parent = Some(self.plan.regions[r].id);
                    break;
                }
                site = self.model.sites[s].parent;
            }
            let at = self.model.sites[opening].span.clone();
            parents.push(parent.or_else(|| self.function_holding(&at, region.id)));
        }
        for (region, parent) in self.plan.regions.iter_mut().zip(parents) {
            region.parent = parent;
        }
    }
}

#[cfg(test)]
mod ctc_tests;
#[cfg(test)]
mod tests;

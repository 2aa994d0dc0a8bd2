//! What a rewritten directive says about the variables inserted code
//! uses: handles shared through their common blocks, the task handles a
//! task copies in, and the inserted variables made private under a
//! `default` other than `default(shared)` and in constructs that create
//! threads, teams or tasks.

use super::renderer::Renderer;
use crate::directive::Directive;
use crate::model::Model;
use crate::rules::{has_restrictive_default, Arg, Layer, NamedPlan, Var, MAX_THREADS_VAR};
use std::collections::{BTreeMap, BTreeSet};

impl Renderer<'_> {
    /// The directive as the rules left it, with what Fortran needs instead:
    /// handles in a common block are named through the block, and a task
    /// keeps its own copy of the saved task handle so that constructs in its
    /// body cannot overwrite the creator's.
    ///
    /// Under a `default` clause other than `default(shared)` the variables
    /// that inserted code inside the region uses become private: each is
    /// set before it is read there, and `default(none)` would reject them.
    pub(super) fn fortran_directive(
        &self,
        instrumented_task: bool,
        directive: &Directive,
        private: Option<&BTreeSet<&'static str>>,
        regions: &mut Vec<usize>,
    ) -> Directive {
        let mut directive = directive.clone();
        let restrictive = has_restrictive_default(&directive);
        if let Some(private) = private.filter(|_| restrictive || keeps_own_copies(&directive)) {
            let listed = listed_variables(&directive);
            let mut missing: Vec<&str> = private
                .iter()
                .copied()
                .filter(|v| !listed.contains(*v))
                // Evaluated before the construct for the code inside it:
                // shared unless a restrictive default lists it otherwise.
                .filter(|v| restrictive || *v != MAX_THREADS_VAR)
                .collect();
            // The task handles: a task copies them in (below).
            if instrumented_task {
                missing.retain(|v| *v != "pomp2_old_task");
            }
            if !missing.is_empty() {
                directive.clauses.push(crate::directive::Clause::new(
                    "private",
                    Some(missing.join(", ")),
                ));
            }
        }
        for clause in &mut directive.clauses {
            let args = clause.args.clone().unwrap_or_default();
            let handles: Option<Vec<usize>> = args
                .split(',')
                .map(|item| self.region_of_handle(item))
                .collect();
            if let Some(handles) = handles.filter(|h| clause.name == "shared" && !h.is_empty()) {
                let blocks: Vec<String> = handles
                    .iter()
                    .map(|&r| format!("/{}/", self.common_block(&self.plan.regions[r])))
                    .collect();
                clause.args = Some(blocks.join(", ").into());
                regions.extend(handles);
            }
            if instrumented_task && clause.name == "firstprivate" && args.contains("pomp2_new_task")
            {
                clause.args = Some(format!("{args}, pomp2_old_task").into());
            }
        }
        directive
    }
}

/// For each directive (by site) with a `default` clause other than
/// `default(shared)`, instrumented or bare, and each one creating threads,
/// teams or tasks, instrumented or not: the variables inserted code inside its
/// region uses (of its inner layers and of every construct nested in it).
/// Each construct adds its variables to its enclosing ones, so the cost
/// grows with the nesting depth, not the number of constructs.
pub(super) fn private_vars(
    model: &Model,
    plan: &NamedPlan,
) -> BTreeMap<usize, BTreeSet<&'static str>> {
    let with_layer = |wanted: fn(&Directive) -> bool| -> BTreeSet<usize> {
        (plan.constructs.iter())
            .filter(|c| (c.layers.iter()).any(|l| l.directive.as_ref().is_some_and(wanted)))
            .map(|c| c.site)
            .collect()
    };
    let mut restrictive = with_layer(has_restrictive_default);
    let mut own_copies = with_layer(keeps_own_copies);
    let written = written_sites(plan);
    own_copies.extend(
        (model.sites.iter().enumerate())
            .filter(|(index, site)| !written.contains(index) && keeps_own_copies(&site.directive))
            .map(|(index, _)| index),
    );
    restrictive.extend(plan.bare_directives.iter().map(|b| b.site));
    restrictive.extend(
        (plan.value_scopes.iter())
            .filter(|v| has_restrictive_default(&v.directive))
            .map(|v| v.site),
    );
    let mut vars: BTreeMap<usize, BTreeSet<&'static str>> = BTreeMap::new();
    if restrictive.is_empty() && own_copies.is_empty() {
        return vars;
    }
    for construct in &plan.constructs {
        let used = construct_vars(plan, &construct.layers);
        if used.is_empty() {
            continue;
        }
        if construct.layers.len() > 1 {
            // A combined construct: the inner layers' code is inside the
            // outer ones. A restrictive default lists the variables of its
            // own clauses too.
            let inside = if restrictive.contains(&construct.site) {
                used.clone()
            } else if own_copies.contains(&construct.site) {
                construct_vars(plan, &construct.layers[1..])
            } else {
                BTreeSet::new()
            };
            if !inside.is_empty() {
                vars.entry(construct.site).or_default().extend(inside);
            }
        }
        let mut site = model.sites[construct.site].parent;
        while let Some(s) = site {
            if restrictive.contains(&s) || own_copies.contains(&s) {
                vars.entry(s).or_default().extend(used.iter().copied());
            }
            site = model.sites[s].parent;
        }
    }
    vars
}

/// The sites whose directives the plan writes: instrumented, or written
/// again bare or inside a scope of values.
fn written_sites(plan: &NamedPlan) -> BTreeSet<usize> {
    (plan.constructs.iter().map(|c| c.site))
        .chain(plan.bare_directives.iter().map(|b| b.site))
        .chain(plan.value_scopes.iter().map(|v| v.site))
        .collect()
}

impl Renderer<'_> {
    /// A construct creating threads, teams or tasks that the plan leaves as it
    /// stands (filtered or disabled) is written again all the same when
    /// constructs inside it are instrumented: the variables their code
    /// uses are declared in the program unit, and shared, its threads
    /// would overwrite each other's (the task handle a barrier saves and
    /// gives back).
    pub(super) fn constructs_holding_inserted_code(&mut self) {
        let written = written_sites(self.plan);
        let sites: Vec<usize> = (self.private_vars.keys())
            .filter(|site| !written.contains(site))
            .copied()
            .collect();
        for site in sites {
            let directive = self.model.sites[site].directive.clone();
            self.rewritten_directive(site, &directive, &[]);
        }
    }
}

/// The variables inserted code of `construct` uses, and where: in front of
/// each layer (its own variables and `before`/`after` calls) or inside it.
fn construct_vars(plan: &NamedPlan, layers: &[Layer]) -> BTreeSet<&'static str> {
    let mut vars = BTreeSet::new();
    for layer in layers {
        for var in &layer.vars {
            vars.insert(match var {
                Var::NumThreads(_) | Var::NumThreadsFromTeams => "pomp2_num_threads",
                Var::MaxThreads => MAX_THREADS_VAR,
                Var::If(_) => "pomp2_if",
                Var::OldTask => "pomp2_old_task",
                Var::NewTask => "pomp2_new_task",
            });
        }
        for call in layer.calls() {
            for arg in call.args {
                vars.extend(arg_var(arg));
            }
        }
        if layer.barrier_after || layer.barrier_before_end {
            for call in &plan.implicit_barrier.before {
                for arg in call.args {
                    vars.extend(arg_var(arg));
                }
            }
        }
    }
    vars
}

fn arg_var(arg: &Arg) -> Option<&'static str> {
    match arg {
        Arg::OldTask | Arg::OldTaskRef => Some("pomp2_old_task"),
        Arg::NewTask | Arg::NewTaskRef => Some("pomp2_new_task"),
        Arg::If => Some("pomp2_if"),
        Arg::NumThreads => Some("pomp2_num_threads"),
        Arg::Handle | Arg::Ctc => None,
    }
}

/// Variables a directive already gives a data-sharing attribute.
fn listed_variables(directive: &Directive) -> BTreeSet<String> {
    const CLAUSES: &[&str] = &[
        "private",
        "firstprivate",
        "lastprivate",
        "shared",
        "reduction",
        "in_reduction",
        "task_reduction",
        "linear",
        "copyin",
    ];
    let mut listed = BTreeSet::new();
    for clause in &directive.clauses {
        if !CLAUSES.contains(&&*clause.name) {
            continue;
        }
        let args = clause.args.as_deref().unwrap_or("");
        // `reduction(+: a, b)`, `linear(x: 2)`: the list is before or
        // after the colon, never both names.
        for item in args.split([',', ':']) {
            listed.insert(item.trim().to_ascii_lowercase());
        }
    }
    listed
}

/// A construct creating threads, a league of teams or explicit tasks:
/// the inserted variables are declared in the program unit, so they are
/// shared in its region unless it lists them private (a task's implicit
/// `firstprivate` does not hold under `default(shared)`, nor where they
/// are shared around it). The threads, teams or tasks running inserted
/// code there would write one variable at once (the task handle a nested
/// parallel region's fork stores and its join reads), and a task may run
/// after the code that created it has returned, writing a variable whose
/// storage is gone.
fn keeps_own_copies(directive: &Directive) -> bool {
    let table = crate::directive::table();
    table.creates(directive.spec()).is_some() || table.makes_tasks(directive.spec())
}

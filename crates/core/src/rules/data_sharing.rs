//! What instrumenting asks of the data-sharing clauses: handles listed
//! shared where a `default` clause would reject them, the maximum thread
//! count a `teams` construct's parallel regions need, and iteration
//! variables kept private where splitting a combined construct lists
//! them.

use super::constructs::lists_variable;
use super::plan::{BareDirective, PompAction, ValueScope, Var, MAX_THREADS_VAR};
use super::planner::Planner;
use crate::directive::{table as directive_table, Clause, Directive, Team};
use crate::model::{DirectiveForm, Site};
use crate::source::Span;

impl Planner<'_> {
    /// The `teams` construct whose region `site` is strictly nested in,
    /// with no parallel region between.
    pub(super) fn enclosing_teams(&self, site: &Site) -> Option<usize> {
        let mut parent = site.parent;
        while let Some(index) = parent {
            let spec = self.model.sites[index].directive.spec();
            match directive_table().creates(spec) {
                Some(Team::Threads) => return None,
                Some(Team::League) => return Some(index),
                None => parent = self.model.sites[index].parent,
            }
        }
        None
    }

    /// Each `teams` construct whose parallel regions need the maximum
    /// number of threads evaluates it before its directive: in its own
    /// layer when it is instrumented, else in a scope of its own. Under a
    /// restrictive `default` the directive lists the variable as shared.
    pub(super) fn max_threads_before_teams(&mut self) {
        for teams in std::mem::take(&mut self.teams_max_threads) {
            let shared = Clause::new("shared", Some(MAX_THREADS_VAR));
            if let Some(construct) = self.plan.constructs.iter_mut().find(|c| c.site == teams) {
                let layer = &mut construct.layers[0];
                layer.vars.insert(0, Var::MaxThreads);
                if let Some(directive) = layer.directive.as_mut() {
                    if has_restrictive_default(directive) {
                        directive.clauses.push(shared);
                    }
                }
                continue;
            }
            let mut directive = match self
                .plan
                .bare_directives
                .iter()
                .position(|b| b.site == teams)
            {
                Some(bare) => self.plan.bare_directives.remove(bare).directive,
                None => self.model.sites[teams].directive.clone(),
            };
            if has_restrictive_default(&directive) {
                directive.clauses.push(shared);
            }
            self.plan.value_scopes.push(ValueScope {
                site: teams,
                vars: vec![Var::MaxThreads],
                directive,
            });
        }
    }

    /// In Fortran a loop's iteration variable is predetermined private in
    /// the innermost `parallel`, `teams` or task construct around the loop,
    /// and gfortran applies that to the construct around a combined
    /// `parallel loop`. Once split, the enclosing leaf lists the variable as
    /// shared, which references it in that construct, where it would be
    /// shared by default (changing the variable outside) or rejected by
    /// `default(none)` here or further out: it is listed private there, as
    /// it was.
    pub(super) fn private_iteration_variables_where_predetermined(&mut self) {
        if !self.file.language.is_fortran() {
            return;
        }
        let table = directive_table();
        // Loops split inside one construct may share their variable (two
        // `parallel do` over `i` in a task): the construct lists it once.
        let mut by_enclosing: Vec<(usize, Vec<String>)> = Vec::new();
        for (site, variables) in std::mem::take(&mut self.listed_iteration_variables) {
            let mut parent = self.model.sites[site].parent;
            let enclosing = loop {
                let Some(index) = parent else { break None };
                let spec = self.model.sites[index].directive.spec();
                if table.accepts(spec, "default") {
                    break Some(index);
                }
                parent = self.model.sites[index].parent;
            };
            let Some(enclosing) = enclosing else { continue };
            let at = match by_enclosing.iter().position(|(e, _)| *e == enclosing) {
                Some(at) => at,
                None => {
                    by_enclosing.push((enclosing, Vec::new()));
                    by_enclosing.len() - 1
                }
            };
            let unlisted = &mut by_enclosing[at].1;
            for variable in variables {
                let listed = lists_variable(&self.model.sites[enclosing].directive, &variable)
                    || unlisted.iter().any(|v| v.eq_ignore_ascii_case(&variable));
                if !listed {
                    unlisted.push(variable);
                }
            }
        }
        for (enclosing, unlisted) in by_enclosing {
            if unlisted.is_empty() {
                continue;
            }
            let private = Clause::new("private", Some(unlisted.join(", ")));
            let construct = self
                .plan
                .constructs
                .iter_mut()
                .find(|c| c.site == enclosing);
            if let Some(construct) = construct {
                // Of a combined construct, the innermost leaf of those kinds.
                let holding = construct
                    .layers
                    .iter_mut()
                    .filter_map(|l| l.directive.as_mut())
                    .rev()
                    .find(|d| table.accepts(d.spec(), "default"));
                if let Some(directive) = holding {
                    directive.clauses.push(private);
                }
                continue;
            }
            // Written already as it is, or inside a scope of its values.
            let written = (self.plan.bare_directives.iter_mut())
                .filter(|b| b.site == enclosing)
                .map(|b| &mut b.directive)
                .chain(
                    (self.plan.value_scopes.iter_mut())
                        .filter(|v| v.site == enclosing)
                        .map(|v| &mut v.directive),
                )
                .next();
            if let Some(directive) = written {
                directive.clauses.push(private);
                continue;
            }
            let mut directive = self.model.sites[enclosing].directive.clone();
            directive.clauses.push(private);
            self.plan.bare_directives.push(BareDirective {
                site: enclosing,
                directive,
            });
        }
    }

    /// `default(none)` (and `private`, `firstprivate`) would reject or
    /// privatise the file-scope handles the inserted calls use: list them
    /// as shared on every such construct, instrumented or not. Calls
    /// measured as regions stand inside constructs too.
    pub(super) fn shared_handles_for_default_clauses(&mut self) {
        let regions = &self.plan.regions;
        let mut handle_sites: Vec<(Span, &str)> = self
            .plan
            .constructs
            .iter()
            .map(|c| {
                (
                    self.model.sites[c.site].span.clone(),
                    regions[c.region].handle.as_str(),
                )
            })
            .chain(
                self.plan
                    .pomp_directives
                    .iter()
                    .filter_map(|(site, action)| match action {
                        PompAction::UserBegin(r) | PompAction::UserEnd(r) => Some((
                            self.model.sites[*site].span.clone(),
                            regions[*r].handle.as_str(),
                        )),
                        _ => None,
                    }),
            )
            .chain(self.plan.functions.iter().map(|f| {
                (
                    self.model.functions[f.function].span.clone(),
                    regions[f.region].handle.as_str(),
                )
            }))
            .collect();
        if handle_sites.is_empty() {
            return;
        }
        handle_sites.sort_by_key(|(span, _)| span.start);
        let mut instrumented = vec![false; self.model.sites.len()];
        for construct in &mut self.plan.constructs {
            instrumented[construct.site] = true;
            let site = &self.model.sites[construct.site];
            let Some(block) = site.block.clone() else {
                continue;
            };
            let own = regions[construct.region].handle.as_str();
            for layer in &mut construct.layers {
                let Some(directive) = layer.directive.as_mut() else {
                    continue;
                };
                if has_restrictive_default(directive) {
                    let handles = handles_within(&handle_sites, &block, Some(own));
                    directive
                        .clauses
                        .push(Clause::new("shared", Some(handles.join(", "))));
                }
            }
        }
        for (index, site) in self.model.sites.iter().enumerate() {
            let Some(block) = site.block.as_ref() else {
                continue;
            };
            let bare = !instrumented[index]
                && site.form != DirectiveForm::Implicit
                && !site.directive.spec().pomp
                && has_restrictive_default(&site.directive);
            if !bare {
                continue;
            }
            let handles = handles_within(&handle_sites, block, None);
            if handles.is_empty() {
                continue;
            }
            let mut directive = site.directive.clone();
            directive
                .clauses
                .push(Clause::new("shared", Some(handles.join(", "))));
            self.plan.bare_directives.push(BareDirective {
                site: index,
                directive,
            });
        }
    }
}

/// The handles used strictly inside `block` (`handle_sites` holds each
/// with the span of its site, by start), after `own`.
fn handles_within<'h>(
    handle_sites: &[(Span, &'h str)],
    block: &Span,
    own: Option<&'h str>,
) -> Vec<&'h str> {
    let mut handles: Vec<&str> = own.into_iter().collect();
    let inside = handle_sites.partition_point(|(span, _)| span.start < block.start);
    for (span, handle) in handle_sites[inside..]
        .iter()
        .take_while(|(span, _)| span.start < block.end)
    {
        if span.end <= block.end && !handles.contains(handle) {
            handles.push(handle);
        }
    }
    handles
}

/// A `default` clause other than `default(shared)`: variables the
/// directive does not list are rejected or privatised. A clause the table
/// does not know, on a directive that takes `default`, counts as one: it is
/// most likely a macro (`LMP_DEFAULT_NONE`), which may expand to
/// `default(none)`, and listing the handles as shared is right either way.
pub fn has_restrictive_default(directive: &Directive) -> bool {
    let written = directive
        .clause("default")
        .and_then(|c| c.args.as_deref())
        .is_some_and(|a| !a.trim().eq_ignore_ascii_case("shared"));
    written
        || (directive.unknown_clauses().next().is_some()
            && directive_table().accepts(directive.spec(), "default"))
}

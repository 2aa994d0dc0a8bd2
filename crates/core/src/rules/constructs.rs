//! Constructs: each directive's leaves and their layers of calls, the
//! clauses a split distributes, the barrier that closes it, and its region.

use super::*;

impl Planner<'_> {
    pub(super) fn construct(&mut self, index: usize, site: &Site) {
        let spec = site.directive.spec();
        let region_type = spec
            .region_type
            .clone()
            .unwrap_or_else(|| spec.name.replace(' ', ""));
        let iteration_variables = self.iteration_variables(site);
        let split = split::split(&site.directive, iteration_variables);
        // Most constructs have one layer: a vector grown by a push would
        // hold room for four.
        let mut layers = Vec::with_capacity(split.len());
        let listed = newly_listed_iteration_variables(iteration_variables, &site.directive, &split);
        for (leaf, directive) in split {
            layers.push(self.layer(site, &leaf, directive, &region_type));
        }
        if !layers.iter().any(Layer::is_instrumented) {
            return;
        }
        if layers.len() > 1 && self.unknown_clause_placement(site, &layers) {
            return;
        }
        if !listed.is_empty() {
            self.listed_iteration_variables.push((index, listed));
        }
        let implicit_barrier = self.closing_barrier(&mut layers);
        self.nowait_on_end_directive(site, &mut layers);
        // A construct without a region of its own (`section`) reports to
        // the enclosing construct's.
        let shares_region = layers
            .iter()
            .any(|l| rules().construct.get(&l.rule).is_some_and(|r| !r.region));
        let region = if shares_region {
            match self.parent_region(site) {
                Some(r) => r,
                None => return,
            }
        } else {
            self.new_region(index, site, &region_type, None)
        };
        if !shares_region {
            self.plan.regions[region].implicit_barrier = implicit_barrier;
        }
        self.site_region[index] = Some(region);
        self.plan.constructs.push(Construct {
            site: index,
            region,
            layers,
        });
    }

    /// The variables the loop nest of a combined loop construct assigns
    /// without declaring them: splitting the construct may have to list
    /// them on its enclosing leaves.
    pub(super) fn iteration_variables<'s>(&self, site: &'s Site) -> &'s [String] {
        match site.directive.spec().leaves.len() > 1 {
            true => &site.loop_variables,
            false => &[],
        }
    }

    /// Which barriers are made explicit, and how the construct's closing
    /// barrier is measured. A parallel region's own barrier is made
    /// explicit only for libraries that need OPARI2's structure: pomp's
    /// runtime infers its waiting from the team's `Parallel_end` times and
    /// the join, which saves the region a second barrier. The worksharing
    /// part of a combined construct ends where the region does, so the
    /// region's barrier serves it too: explicit as the worksharing's in
    /// OPARI2's structure, inferred in pomp's.
    pub(super) fn closing_barrier(&self, layers: &mut [Layer]) -> Option<ImplicitBarrier> {
        let infers =
            self.options.events == EventSet::Extended && self.options.interface == Interface::Pomp2;
        let mut form = None;
        for i in 0..layers.len() {
            if !layers[i].barrier_before_end {
                if layers[i].barrier_after {
                    form = Some(ImplicitBarrier::Explicit);
                }
                continue;
            }
            let inner_barrier = layers.get(i + 1).is_some_and(|l| l.add_nowait);
            if infers {
                layers[i].barrier_before_end = false;
                if inner_barrier {
                    layers[i + 1].barrier_after = false;
                }
                form = Some(ImplicitBarrier::Inferred);
            } else if inner_barrier {
                layers[i].barrier_before_end = false;
            } else {
                form = Some(ImplicitBarrier::Explicit);
            }
        }
        form
    }

    /// In Fortran the user may write `nowait` on the end directive, which
    /// closes the innermost leaf: that leaf then gets no `nowait` from pomp
    /// nor an explicit barrier, and an enclosing leaf whose barrier the
    /// innermost leaf's explicit one was to serve calls its own. (The
    /// closing barrier's form, which the IDF reports, is decided before,
    /// from the leaves' own clauses.)
    fn nowait_on_end_directive(&self, site: &Site, layers: &mut [Layer]) {
        let end = site.end_site.map(|e| &self.model.sites[e].directive);
        if !end.is_some_and(|end| end.has_clause("nowait")) {
            return;
        }
        let innermost = layers.len() - 1;
        if !layers[innermost].add_nowait {
            return;
        }
        layers[innermost].add_nowait = false;
        layers[innermost].barrier_after = false;
        if let Some(enclosing) = innermost.checked_sub(1) {
            layers[enclosing].barrier_before_end = true;
        }
    }

    /// A compound directive pomp writes as several directives, with a
    /// clause the table does not know (on it or on its Fortran end
    /// directive): where the outer leaf takes such clauses, they went
    /// there and a note says so; elsewhere which part a clause belongs on
    /// is unknown, so the construct is refused.
    pub(super) fn unknown_clause_placement(&mut self, site: &Site, layers: &[Layer]) -> bool {
        let table = directive_table();
        let outer = (layers[0].directive.as_ref())
            .map(|d| d.name.as_str())
            .filter(|name| table.takes_unknown_clauses(name));
        // Near misses of known clauses were refused as typos by the
        // directive parser; what is left here are other names (macros,
        // most often), which the outer leaf may take.
        let (placed, refused): (Vec<&Clause>, Vec<&Clause>) = site
            .directive
            .unknown_clauses()
            .partition(|_| outer.is_some());
        let end = site.end_site.map(|e| &self.model.sites[e].directive);
        let refused = (refused.into_iter())
            .chain(end.into_iter().flat_map(|d| d.unknown_clauses()))
            .next();
        if placed.is_empty() && refused.is_none() {
            return false;
        }
        let parts: Vec<String> = layers
            .iter()
            .filter_map(|l| l.directive.as_ref().map(|d| format!("`{}`", d.name)))
            .collect();
        if let (Some(outer), Some(clause)) = (outer, placed.first()) {
            self.plan.diagnostics.push(
                Diagnostic::note(
                    site.span.clone(),
                    format!("unknown clause `{}` placed on `{outer}`", clause.name),
                    "clause pomp does not know",
                )
                .with_note(format!(
                    "pomp writes `{}` as {}, and puts the clauses it does not know on `{outer}`, \
                     where each clause of the other parts either means the same or is rejected \
                     by the compiler at this line",
                    site.directive.name,
                    parts.join(" and ")
                )),
            );
        }
        let Some(clause) = refused else {
            return false;
        };
        self.plan.diagnostics.push(
            Diagnostic::error(
                site.span.clone(),
                format!(
                    "unknown clause `{}` on `{}`, which pomp writes as {}",
                    clause.name,
                    site.directive.name,
                    parts.join(" and ")
                ),
                "clause of unknown placement",
            )
            .with_note(format!(
                "pomp measures each part of the compound directive on its own, and cannot tell \
                 which part `{}` belongs on",
                clause.name
            ))
            .with_note(format!(
                "write the parts as directives of their own, with `{}` where it belongs",
                clause.name
            )),
        );
        true
    }

    pub(super) fn layer(
        &mut self,
        site: &Site,
        leaf: &str,
        mut directive: Directive,
        region_type: &str,
    ) -> Layer {
        let mut rule_name = leaf.to_string();
        let pomp1 = self.options.interface == Interface::Pomp1;
        let untied_variant = rules()
            .construct
            .get(leaf)
            .and_then(|rule| rule.untied.clone());
        let untied = untied_variant.filter(|_| directive.has_clause("untied") && !pomp1);
        if let Some(untied) = untied.clone().filter(|_| self.options.keep_untied) {
            rule_name = untied;
        }
        let rule = rules()
            .construct
            .get(&rule_name)
            .filter(|r| self.wanted(&rule_name, r) && !self.disabled(leaf, region_type));
        // A task left unmeasured stays as the user wrote it.
        if untied.is_some() && !self.options.keep_untied && rule.is_some() {
            directive.clauses.retain(|c| c.name != "untied");
            self.plan.diagnostics.push(
                Diagnostic::warning(site.span.clone(), "untied task made tied", "`untied` removed")
                    .with_note("POMP2 measures untied tasks reliably only as tied ones; use --keep-untied to keep it"),
            );
        }
        let Some(rule) = rule else {
            return Layer {
                rule: rule_name,
                directive: Some(directive),
                shape: Shape::Block,
                vars: vec![],
                before: Cow::Borrowed(&[]),
                begin: Cow::Borrowed(&[]),
                end: Cow::Borrowed(&[]),
                after: Cow::Borrowed(&[]),
                add_nowait: false,
                barrier_after: false,
                barrier_before_end: false,
            };
        };
        let mut vars = Vec::new();
        // The original interface passes no values: clauses stay as written.
        if rule.fork && !pomp1 {
            let (if_expr, threads) = (
                take_if(&mut directive, leaf),
                take_clause(&mut directive, "num_threads"),
            );
            // OpenMP 6.0's `num_threads(strict: 4, 2)`: the first value is
            // this region's, the rest are for the regions nested in it.
            let (threads, num_threads) = match threads {
                Some(args) => {
                    let written = Clause::new("num_threads", Some(&args));
                    let (first, clause) = written.replace_first_item("pomp2_num_threads");
                    (Some(first), clause)
                }
                None => (None, Clause::new("num_threads", Some("pomp2_num_threads"))),
            };
            match (threads, self.enclosing_teams(site)) {
                (None, Some(teams)) => {
                    self.teams_max_threads.insert(teams);
                    vars.push(Var::NumThreadsFromTeams);
                }
                (threads, _) => vars.push(Var::NumThreads(threads)),
            }
            vars.push(Var::If(if_expr));
            vars.push(Var::OldTask);
            directive
                .clauses
                .push(Clause::new("firstprivate", Some("pomp2_old_task")));
            directive.clauses.push(Clause::new("if", Some("pomp2_if")));
            directive.clauses.push(num_threads);
        }
        if rule.task && !pomp1 {
            let if_expr = take_if(&mut directive, leaf);
            vars.push(Var::NewTask);
            vars.push(Var::OldTask);
            vars.push(Var::If(if_expr));
            directive.clauses.push(Clause::new("if", Some("pomp2_if")));
            directive.clauses.push(Clause::new(
                "firstprivate",
                Some("pomp2_new_task, pomp2_if"),
            ));
        }
        let add_nowait = self.add_nowait(site, rule, &mut directive);
        let in_interface = |calls: &'static [Call]| match self.options.interface {
            Interface::Pomp2 => Cow::Borrowed(calls),
            Interface::Pomp1 => Cow::Owned(rules().pomp1.calls(calls)),
        };
        let mut layer = Layer {
            rule: rule_name,
            directive: (site.form != DirectiveForm::Implicit).then_some(directive),
            shape: rule.shape,
            vars: Vec::new(),
            before: in_interface(&rule.before),
            begin: in_interface(&rule.begin),
            end: in_interface(&rule.end),
            after: in_interface(&rule.after),
            add_nowait,
            barrier_after: add_nowait,
            barrier_before_end: rule.implicit_barrier_at_end,
        };
        for var in layer.calls().flat_map(vars_of) {
            if !vars.contains(&var) {
                vars.push(var);
            }
        }
        layer.vars = vars;
        layer
    }

    /// Whether the construct's implicit barrier is made explicit: then C
    /// gets `nowait` on the directive (Fortran puts it on the end directive).
    /// A clause may forbid `nowait` (in Fortran also on the end
    /// directive): the barrier then stays implicit, which the IDF says.
    pub(super) fn add_nowait(
        &mut self,
        site: &Site,
        rule: &table::ConstructRule,
        directive: &mut Directive,
    ) -> bool {
        if !rule.nowait || directive.has_clause("nowait") {
            return false;
        }
        let end_clauses = site
            .end_site
            .map(|e| &self.model.sites[e].directive.clauses[..])
            .unwrap_or_default();
        let forbidding = rules()
            .nowait_forbidden_by
            .clause_in(directive.clauses.iter().chain(end_clauses));
        if let Some(clause) = forbidding {
            let note = Diagnostic::note(
                site.span.clone(),
                format!(
                    "the implicit barrier of `{}` is not measured on its own: `{}` forbids `nowait`",
                    directive.name,
                    clause.render()
                ),
                "barrier left implicit",
            )
            .with_note(format!(
                "pomp measures a barrier by adding `nowait` and calling the barrier \
                 explicitly; here the barrier stays implicit, and its waiting counts \
                 toward the `{}` region's time",
                directive.name
            ));
            self.plan.diagnostics.push(note);
            return false;
        }
        if !self.file.language.is_fortran() {
            directive.clauses.push(Clause::new("nowait", None));
        }
        true
    }

    pub(super) fn parent_region(&self, site: &Site) -> Option<usize> {
        let parent = site.parent?;
        if directive_table()
            .divided_by(self.model.sites[parent].directive.spec())
            .is_some()
        {
            self.site_region[parent]
        } else {
            None
        }
    }

    pub(super) fn new_region(
        &mut self,
        site_index: usize,
        site: &Site,
        region_type: &str,
        end_site: Option<usize>,
    ) -> usize {
        let id = self.plan.regions.len() + 1;
        let start_lines = (
            self.file.line_of(site.span.start),
            self.file
                .line_of(site.span.end.max(site.span.start + 1) - 1),
        );
        let end_lines = match (end_site, &site.block, site.end_site) {
            (Some(e), _, _) | (None, _, Some(e)) => {
                let s = &self.model.sites[e];
                (
                    self.file.line_of(s.span.start),
                    self.file.line_of(s.span.end.max(s.span.start + 1) - 1),
                )
            }
            (None, Some(block), None) => {
                let line = self.file.line_of(block.end.max(block.start + 1) - 1);
                (line, line)
            }
            _ => start_lines,
        };
        let name = site
            .directive
            .argument
            .clone()
            .filter(|_| site.directive.spec().argument_names.is_some());
        let aux = ctc::aux(self.model, site_index, &site.directive);
        let region = Region {
            id,
            site: site_index,
            end_site,
            region_type: region_type.to_string(),
            handle: match self.options.interface {
                Interface::Pomp2 => format!("pomp2_region_{id}"),
                Interface::Pomp1 => format!("pomp_rd_{id}"),
            },
            parent: None,
            name,
            start_lines,
            end_lines,
            aux,
            unit: site.unit.map(|u| self.model.units[u].name.clone()),
            implicit_barrier: None,
        };
        self.plan.regions.push(region);
        self.plan.regions.len() - 1
    }
}

/// The iteration variables that splitting `directive` into `split` lists
/// in a clause although `directive` names them nowhere.
pub(super) fn newly_listed_iteration_variables(
    iteration_variables: &[String],
    directive: &Directive,
    split: &[(String, Directive)],
) -> Vec<String> {
    iteration_variables
        .iter()
        .filter(|v| !lists_variable(directive, v))
        .filter(|v| split.iter().any(|(_, d)| lists_variable(d, v)))
        .cloned()
        .collect()
}

/// Whether a clause of `directive` lists `variable` (Fortran names in any
/// case).
pub(super) fn lists_variable(directive: &Directive, variable: &str) -> bool {
    directive
        .clauses
        .iter()
        .flat_map(|c| c.list_items())
        .any(|item| item.eq_ignore_ascii_case(variable))
}

pub(super) fn vars_of(call: &Call) -> impl Iterator<Item = Var> + 'static {
    call.args.iter().filter_map(|a| match a {
        Arg::OldTask | Arg::OldTaskRef => Some(Var::OldTask),
        Arg::NewTask | Arg::NewTaskRef => Some(Var::NewTask),
        _ => None,
    })
}

/// Remove the `if` clause that applies to `leaf` and return its expression.
pub(super) fn take_if(directive: &mut Directive, leaf: &str) -> Option<String> {
    let position = directive.clauses.iter().position(|c| {
        c.name == "if"
            && c.modifier_split()
                .0
                .is_none_or(|m| m.eq_ignore_ascii_case(leaf))
    })?;
    let clause = directive.clauses.remove(position);
    Some(clause.modifier_split().1.to_string())
}

pub(super) fn take_clause(directive: &mut Directive, name: &str) -> Option<String> {
    let position = directive.clauses.iter().position(|c| c.name == name)?;
    directive.clauses.remove(position).args
}

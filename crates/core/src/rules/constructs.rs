//! Constructs: each directive's leaves and their layers of calls, the
//! clauses a split distributes, the barrier that closes it, and its region.

use super::config::{Interface, FORTRAN_THREAD_PRIVATE};
use super::ctc;
use super::plan::{Construct, Layer, PompAction, Region, Var, UNTIED_MADE_TIED};
use super::planner::{names, Planner};
use super::split;
use super::table;
use super::table::{rules, Arg, Call, EventFamily, Shape};
use crate::diagnostics::{Advice, Diagnostic};
use crate::directive::{table as directive_table, Clause, Directive, Role};
use crate::model::{DirectiveForm, Site};
use pomp2::ctc::ImplicitBarrier;
use std::borrow::Cow;

impl Planner<'_> {
    pub(super) fn construct(&mut self, index: usize, site: &Site) {
        if self.options.remove_tasks && site.directive.name() == "task" {
            self.plan.pomp_directives.push((index, PompAction::Remove));
            if let Some(end) = site.end_site {
                self.plan.pomp_directives.push((end, PompAction::Remove));
            }
            return;
        }
        let spec = site.directive.spec();
        let region_type: Cow<'static, str> = match &spec.region_type {
            Some(region_type) => Cow::Borrowed(region_type),
            None if spec.name.contains(' ') => Cow::Owned(spec.name.replace(' ', "")),
            None => Cow::Borrowed(&spec.name),
        };
        let iteration_variables = self.iteration_variables(site);
        let split = split::split(&site.directive, iteration_variables);
        // Most constructs have one layer: a vector grown by a push would
        // hold room for four.
        let mut layers = Vec::with_capacity(split.len());
        let listed = newly_listed_iteration_variables(iteration_variables, &site.directive, &split);
        let beyond = self.beyond_opari2_types(&split, &region_type);
        for ((leaf, directive), beyond) in split.into_iter().zip(beyond) {
            let kept_whole = split::kept_whole_by(&directive).map(Clause::render);
            let mut layer = self.layer(site, leaf, directive, &region_type, beyond);
            if let Some(clause) = kept_whole {
                self.measure_from_outside(site, &mut layer, &clause);
            }
            layers.push(layer);
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
        let implicit_barrier = self.closing_barrier(site, &mut layers);
        self.nowait_on_end_directive(site, &mut layers);
        // A construct without a region of its own (`section`) reports to
        // the enclosing construct's.
        let shares_region = layers
            .iter()
            .any(|l| rules().construct.get(l.rule).is_some_and(|r| !r.region));
        let region = if shares_region {
            match self.parent_region(site) {
                Some(r) => r,
                None => return,
            }
        } else {
            self.new_region(index, site, region_type.clone(), None)
        };
        if !shares_region {
            let opari2_type = self.opari2_type(&layers);
            let opari2_structure = self.opari2_structure();
            let region = &mut self.plan.regions[region];
            region.implicit_barrier = implicit_barrier;
            if opari2_structure {
                let said = &rules().ctc.opari2;
                (region.aux).retain(|(key, value)| said.writes(&opari2_type, key, value));
            }
            region.opari2_type = opari2_type;
        }
        self.site_region[index] = Some(region);
        self.plan.constructs.push(Construct {
            site: index,
            region,
            layers,
        });
    }

    /// The rule a leaf construct is measured by: its own, or its untied
    /// variant for a task kept untied.
    fn rule_name(&self, leaf: &'static str, directive: &Directive) -> &'static str {
        let untied = rules()
            .construct
            .get(leaf)
            .and_then(|rule| rule.untied.as_deref())
            .filter(|_| {
                directive.has_clause("untied")
                    && self.options.keep_untied
                    && !self.options.interface.is_pomp1()
            });
        untied.unwrap_or(leaf)
    }

    /// For each leaf of a split construct, whether it stays unmeasured
    /// because OPARI2 has no region type for it together with the leaves
    /// before it: in OPARI2's structure, a construct's OPARI2 leaves are
    /// measured as far as they make one of its types (`parallel master`:
    /// the parallel region only).
    fn beyond_opari2_types(
        &self,
        split: &[(&'static str, Directive)],
        region_type: &str,
    ) -> Vec<bool> {
        let mut beyond = vec![false; split.len()];
        if !self.opari2_structure() || self.options.interface != Interface::Pomp2 {
            return beyond;
        }
        let mut joined = String::new();
        let mut valid = true;
        for (index, (leaf, directive)) in split.iter().enumerate() {
            let name = self.rule_name(leaf, directive);
            let Some(rule) = rules().construct.get(name) else {
                continue;
            };
            // A construct without a region of its own (`section`) is
            // measured in its enclosing construct's.
            if rule.set != EventFamily::Opari2 || !rule.region || self.disabled(leaf, region_type) {
                continue;
            }
            joined.push_str(&rule.opari2_type(name));
            valid = valid && pomp2::ctc::opari2::is_region_type(&joined);
            beyond[index] = !valid;
        }
        beyond
    }

    /// The type OPARI2's parser is shown for a construct measured by
    /// `layers`: the OPARI2 type its measured OPARI2 leaves make as far as
    /// they make one, else the nearest type of its first measured leaf.
    fn opari2_type(&self, layers: &[Layer]) -> Cow<'static, str> {
        let mut joined = String::new();
        let mut best = None;
        let mut fallback = None;
        // OPARI2 names a region by its directive: a leaf `--disable` leaves
        // unmeasured still counts (`parallel for` stays `parallelfor`).
        let named = |l: &&Layer| l.is_instrumented() || names(&self.options.disable, l.rule, "");
        for layer in layers.iter().filter(named) {
            let Some(rule) = rules().construct.get(layer.rule) else {
                continue;
            };
            let word = rule.opari2_type(layer.rule);
            if rule.set == EventFamily::Opari2 {
                let alone = joined.is_empty();
                joined.push_str(&word);
                if pomp2::ctc::opari2::is_region_type(&joined) {
                    best = Some(match word {
                        // Most constructs are one leaf: its word, borrowed.
                        Cow::Borrowed(word) if alone => Cow::Borrowed(word),
                        _ => Cow::Owned(joined.clone()),
                    });
                }
            } else if fallback.is_none() {
                fallback = Some(word);
            }
        }
        let chosen = best.or(fallback).unwrap_or(Cow::Borrowed("parallel"));
        if chosen == "for" && self.file.language.is_fortran() {
            return Cow::Borrowed("do");
        }
        chosen
    }

    /// A combined construct kept whole: its block is the loop, which
    /// nothing may precede, so only the outermost leaf's calls before and
    /// after it remain, and no barrier of it is measured. In OPARI2's
    /// structure of the POMP2 interface it stays as written: a POMP2
    /// library other than pomp's runtime takes a forked team's own events
    /// for granted (Score-P stops the program at the join without them);
    /// OPARI 1.1's library takes the fork and the join alone.
    fn measure_from_outside(&mut self, site: &Site, layer: &mut Layer, clause: &str) {
        if !layer.is_instrumented() {
            return;
        }
        layer.shape = Shape::Loop;
        layer.begin = Cow::Borrowed(&[]);
        layer.end = Cow::Borrowed(&[]);
        layer.barrier_before_end = false;
        let name = layer
            .directive
            .as_ref()
            .map_or(site.directive.name(), |d| d.name());
        if self.opari2_structure() && self.options.interface == Interface::Pomp2 {
            layer.before = Cow::Borrowed(&[]);
            layer.after = Cow::Borrowed(&[]);
            self.plan.diagnostics.push(
                Diagnostic::note(
                    site.span.clone(),
                    format!("`{name}` with `{clause}` is left as written"),
                    "not measured",
                )
                .with_note(format!(
                    "pomp measures the parts of `{name}` each on its own, as separate \
                     directives; here it keeps the construct whole, where the team's own \
                     events have no place, and a POMP2 library other than pomp's runtime \
                     needs them for every team it sees forked"
                ))
                .with_note(format!("why: {}", rules().kept_whole.reason)),
            );
            return;
        }
        let measured: Vec<&str> = layer
            .before
            .iter()
            .chain(layer.after.iter())
            .map(|c| c.event)
            .collect();
        self.plan.diagnostics.push(
            Diagnostic::note(
                site.span.clone(),
                format!("`{name}` with `{clause}` is measured as a whole"),
                "measured from outside only",
            )
            .with_note(format!(
                "pomp measures the parts of `{name}` each on its own, as separate directives; \
                 here it keeps the construct whole and measures it from outside ({}), \
                 so the team's and the loop's own events and the closing barrier are not seen",
                measured.join(", ")
            ))
            .with_note(format!("why: {}", rules().kept_whole.reason)),
        );
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
    ///
    /// The original interface has no way to infer it, and a parallel region
    /// of a league of teams on the host keeps its barrier implicit there:
    /// libomp 14 loses count of such a team's barriers when one more is
    /// made explicit, and a later region's tasks then wait for ever
    /// (tests/found/libomp-teams-parallel-barriers-hang.c shows it
    /// without pomp).
    pub(super) fn closing_barrier(
        &mut self,
        site: &Site,
        layers: &mut [Layer],
    ) -> Option<ImplicitBarrier> {
        let infers = !self.opari2_structure() && self.options.interface == Interface::Pomp2;
        let mut form = None;
        for i in 0..layers.len() {
            if !layers[i].barrier_before_end {
                if layers[i].barrier_after {
                    form = Some(ImplicitBarrier::Explicit);
                }
                continue;
            }
            let inner_barrier = layers.get(i + 1).is_some_and(|l| l.add_nowait);
            if !inner_barrier
                && self.options.interface == Interface::Pomp1
                && self.enclosing_teams(site).is_some()
            {
                layers[i].barrier_before_end = false;
                self.plan.diagnostics.push(
                    Diagnostic::note(
                        site.span.clone(),
                        format!(
                            "the implicit barrier of `{}` in a `teams` region is not measured",
                            site.directive.name()
                        ),
                        "barrier left implicit",
                    )
                    .with_note(
                        "the original POMP interface measures a region's closing barrier by \
                         making it explicit, and one more barrier in a team of a league on \
                         the host makes LLVM's OpenMP runtime hang later tasks; its waiting \
                         counts toward the region's time",
                    ),
                );
                continue;
            }
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
            .map(|d| d.name())
            .filter(|name| table.takes_unknown_clauses(name));
        // Near misses of known clauses were refused as typos by the
        // directive parser; what is left here are other names (macros,
        // most often), which the outer leaf takes where it can.
        let unknown = site.directive.unknown_clauses().next();
        let (placed, refused_here) = match outer {
            Some(_) => (unknown, None),
            None => (None, unknown),
        };
        let end = site.end_site.map(|e| &self.model.sites[e].directive);
        let refused = refused_here.or_else(|| end.and_then(|d| d.unknown_clauses().next()));
        if placed.is_none() && refused.is_none() {
            return false;
        }
        let parts: Vec<String> = layers
            .iter()
            .filter_map(|l| l.directive.as_ref().map(|d| format!("`{}`", d.name())))
            .collect();
        if let (Some(outer), Some(clause)) = (outer, placed) {
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
                    site.directive.name(),
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
                    site.directive.name(),
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

    /// The name of region `id`'s handle in the chosen interface.
    pub(super) fn handle_name(&self, id: usize) -> String {
        match self.options.interface {
            Interface::Pomp2 => format!("pomp2_region_{id}"),
            Interface::Pomp1Paper => format!("pomp_rd_{id}"),
            // OPARI 1.1's library finds the regions through a table the
            // link step makes: C names each descriptor for it, Fortran
            // passes the region's index in the table.
            Interface::Pomp1 if self.file.language.is_fortran() => format!("pomp_id_{id}"),
            Interface::Pomp1 => format!(
                "pomp_rd_{}_{id}",
                self.descriptor_names.as_deref().unwrap_or_default()
            ),
        }
    }

    pub(super) fn layer(
        &mut self,
        site: &Site,
        leaf: &'static str,
        mut directive: Directive,
        region_type: &str,
        beyond_opari2_types: bool,
    ) -> Layer {
        let pomp1 = self.options.interface.is_pomp1();
        let rule_name = self.rule_name(leaf, &directive);
        let has_untied_variant = rules()
            .construct
            .get(leaf)
            .is_some_and(|rule| rule.untied.is_some());
        let rule = rules()
            .construct
            .get(rule_name)
            .filter(|r| {
                self.wanted(rule_name, r)
                    && !self.disabled(leaf, region_type)
                    && !self.filtered_site(site, region_type)
            })
            .filter(|_| !beyond_opari2_types);
        let in_interface = |calls: &'static [Call]| match self.options.interface {
            Interface::Pomp2 => Cow::Borrowed(calls),
            Interface::Pomp1 | Interface::Pomp1Paper => Cow::Owned(rules().pomp1.calls(calls)),
        };
        let defined = rule.is_none_or(|r| {
            [&r.before, &r.begin, &r.end, &r.after]
                .into_iter()
                .all(|calls| self.defines_all(in_interface(calls).iter()))
        });
        if !defined {
            self.plan.unmeasured.insert(rule_name.to_string());
        }
        let rule = rule.filter(|_| defined);
        if rule.is_some()
            && has_untied_variant
            && directive.has_clause("untied")
            && !pomp1
            && !self.options.keep_untied
        {
            directive.clauses.retain(|c| c.name != "untied");
            self.plan.diagnostics.push(
                Diagnostic::warning(site.span.clone(), UNTIED_MADE_TIED, "`untied` removed")
                    .with_advice(Advice::KEEP_UNTIED, |advice| {
                        format!(
                            "POMP2 measures untied tasks reliably only as tied ones; {advice} \
                             keeps them untied"
                        )
                    }),
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
        if let (true, false, Some(name)) = (rule.fork, pomp1, &self.options.thread_private) {
            let name = if self.file.language.is_fortran() {
                FORTRAN_THREAD_PRIVATE
            } else {
                name.as_str()
            };
            directive
                .clauses
                .push(Clause::new("copyin", Some(name.to_string())));
        }
        if rule.fork && !pomp1 {
            let (if_expr, threads) = (
                take_if(&mut directive, leaf),
                take_clause(&mut directive, "num_threads"),
            );
            // OpenMP 6.0's `num_threads(strict: 4, 2)`: the first value is
            // this region's, the rest are for the regions nested in it.
            let (threads, num_threads) = match threads {
                Some(args) => {
                    let written = Clause::new("num_threads", Some(args.clone()));
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
            barrier_before_end: rule.implicit_barrier_at_end
                && !self.options.barriers_left_implicit,
        };
        if names(&self.options.outside_only, leaf, region_type) {
            layer.begin = Cow::Borrowed(&[]);
            layer.end = Cow::Borrowed(&[]);
            layer.barrier_before_end = false;
        }
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
        if !rule.nowait || directive.has_clause("nowait") || self.options.barriers_left_implicit {
            return false;
        }
        if !self.defines_all(self.plan.implicit_barrier.calls()) {
            return false;
        }
        let end_clauses = site
            .end_site
            .map(|e| &self.model.sites[e].directive.clauses[..])
            .unwrap_or_default();
        let forbidding = rules()
            .nowait_forbidden_by
            .clause_in(directive.clauses.iter().chain(end_clauses))
            .map(|clause| format!("`{}`", clause.render()))
            .or_else(|| self.cancellation_inside(site));
        if let Some(forbidding) = forbidding {
            let note = Diagnostic::note(
                site.span.clone(),
                format!(
                    "the implicit barrier of `{}` is not measured on its own: {forbidding} forbids `nowait`",
                    directive.name(),
                ),
                "barrier left implicit",
            )
            .with_note(format!(
                "pomp measures a barrier by adding `nowait` and calling the barrier \
                 explicitly; here the barrier stays implicit, and its waiting counts \
                 toward the `{}` region's time",
                directive.name()
            ));
            self.plan.diagnostics.push(note);
            return false;
        }
        if !self.file.language.is_fortran() {
            // One more clause, not room for twice as many: the plan keeps
            // the directive to the end.
            directive.clauses.reserve_exact(1);
            directive.clauses.push(Clause::bare("nowait"));
        }
        true
    }

    /// The cancellation directive inside `site` that names it, as the
    /// note says it.
    fn cancellation_inside(&self, site: &Site) -> Option<String> {
        let (_, cancel) = (self.cancelled.iter())
            .find(|(cancelled, _)| std::ptr::eq(&self.model.sites[**cancelled], site))?;
        let cancel = &self.model.sites[*cancel];
        let line = self.file.user_line(cancel.span.start);
        Some(format!("`{}` on line {line}", cancel.directive.render()))
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
        region_type: Cow<'static, str>,
        end_site: Option<usize>,
    ) -> usize {
        let id = self.plan.regions.len() + 1;
        let start_lines = self.file.lines(&site.span);
        let end_lines = match (end_site, &site.block, site.end_site) {
            (Some(e), _, _) | (None, _, Some(e)) => self.file.lines(&self.model.sites[e].span),
            // The last byte of the block, on both ends.
            (None, Some(block), None) => {
                let last = block.end.max(block.start + 1) - 1;
                self.file.lines(&(last..last + 1))
            }
            _ => start_lines,
        };
        let name = site
            .directive
            .argument
            .clone()
            .filter(|_| site.directive.spec().argument_names.is_some());
        // OPARI2 does not read a Fortran end directive's clauses into the
        // region's description.
        let end_directive = (site.end_site)
            .filter(|_| !self.opari2_structure())
            .map(|e| &self.model.sites[e].directive);
        let mut aux = ctc::aux(self.model, site_index, &site.directive, end_directive);
        if self.opari2_structure() && self.file.language.is_fortran() {
            // OPARI2 writes the names of Fortran's critical sections and
            // user regions in lower case, as Fortran reads names.
            for (key, value) in &mut aux {
                if [
                    pomp2::ctc::keys::CRITICAL_NAME,
                    pomp2::ctc::keys::USER_REGION_NAME,
                ]
                .contains(&key.as_str())
                {
                    value.make_ascii_lowercase();
                }
            }
        }
        let user = site.directive.role() == Some(Role::UserRegionBegin);
        let region = Region {
            id,
            site: Some(site_index),
            function: None,
            end_site,
            opari2_type: if user {
                Cow::Borrowed(pomp2::ctc::opari2::USER_REGION)
            } else {
                region_type.clone()
            },
            region_type,
            user,
            handle: self.handle_name(id),
            parent: None,
            name,
            start_lines,
            end_lines,
            aux,
            unit: site.unit.map(|u| self.model.units[u].name.clone()),
            code_kind: None,
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
    split: &[(&'static str, Directive)],
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
    directive.clauses.remove(position).args.map(Cow::into_owned)
}

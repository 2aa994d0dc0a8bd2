//! User regions and the control directives of pomp's own sentinel, and
//! the jumps that leave a user region and must close it first.

use super::config::Interface;
use super::plan::{PompAction, RegionExit};
use super::planner::Planner;
use super::table::rules;
use crate::diagnostics::Diagnostic;
use crate::directive::{table as directive_table, Role};
use crate::model::{CodeKind, Exit, Site};
use crate::source::Span;

impl Planner<'_> {
    pub(super) fn pomp_directive(
        &mut self,
        index: usize,
        site: &Site,
        inside_skipped: bool,
        stack: &mut Vec<(String, usize)>,
    ) {
        let user_region_type = user_region_type();
        let user_events = self.plan.user_region.calls().map(|c| c.event);
        let undefined_user = !user_events
            .chain((self.options.interface == Interface::Pomp2).then_some("USER_Assign_handle"))
            .all(|event| self.defines(event));
        if undefined_user && matches!(site.directive.role(), Some(Role::UserRegionBegin)) {
            self.plan.unmeasured.insert("user regions".to_string());
        }
        // `pomp` names pomp's own directives: user regions and control.
        let disabled_pomp = self.options.disable.contains("pomp");
        let disabled_user =
            self.disabled(user_region_type, user_region_type) || undefined_user || disabled_pomp;
        let action = match site.directive.role() {
            Some(Role::StopInstrumenting | Role::ResumeInstrumenting) => PompAction::Remove,
            Some(Role::UserRegionBegin | Role::UserRegionEnd)
                if inside_skipped || disabled_user =>
            {
                PompAction::Remove
            }
            Some(Role::UserRegionBegin) if self.filtered_site(site, user_region_type) => {
                (self.filtered_user_regions)
                    .push(site.directive.argument.clone().unwrap_or_default());
                PompAction::Remove
            }
            Some(Role::UserRegionEnd) if self.closes_filtered_user_region(site, stack) => {
                PompAction::Remove
            }
            Some(Role::UserRegionBegin) => {
                let region_name = site.directive.argument.clone().unwrap_or_default();
                let region = self.new_region(index, site, user_region_type.into(), None);
                stack.push((region_name, region));
                PompAction::UserBegin(region)
            }
            Some(Role::UserRegionEnd) => {
                let region_name = site.directive.argument.clone().unwrap_or_default();
                match stack.iter().rposition(|(n, _)| *n == region_name) {
                    Some(pos) if pos + 1 == stack.len() => {
                        let (_, region) = stack.pop().expect("position found");
                        self.close_user_region(region, index);
                        PompAction::UserEnd(region)
                    }
                    Some(_) => {
                        let innermost = stack.last().map(|(n, _)| n.clone()).unwrap_or_default();
                        self.plan.diagnostics.push(Diagnostic::error(
                            site.span.clone(),
                            format!("user region `{region_name}` ends before `{innermost}`, which it encloses"),
                            "user regions must nest",
                        ));
                        PompAction::Remove
                    }
                    None => {
                        self.plan.diagnostics.push(Diagnostic::error(
                            site.span.clone(),
                            format!("`inst end({region_name})` without a matching `inst begin({region_name})`"),
                            "no region of this name is open",
                        ));
                        PompAction::Remove
                    }
                }
            }
            _ if inside_skipped => PompAction::Remove,
            None => match rules().control.get(site.directive.name()) {
                Some(call) if self.defines(call.event) && !disabled_pomp => PompAction::Call(*call),
                _ => PompAction::Remove,
            },
        };
        self.plan.pomp_directives.push((index, action));
    }

    pub(super) fn close_user_region(&mut self, region: usize, end_site: usize) {
        let site = &self.model.sites[end_site];
        let lines = self.file.lines(&site.span);
        let r = &mut self.plan.regions[region];
        r.end_site = Some(end_site);
        r.end_lines = lines;
    }

    /// Every jump from inside a user region to outside it closes the
    /// region first. A jump that may land on either side cannot be closed
    /// correctly at the jump: it is reported instead.
    pub(super) fn user_region_exits(&mut self) {
        let exits = &self.model.exits;
        let mut closing: Vec<Vec<(usize, usize)>> = vec![Vec::new(); exits.len()];
        // Each region closed at its jumps, with where its code lies and
        // whether only the jumps ending the run close it.
        let mut closed: Vec<(Span, usize, bool)> = Vec::new();
        for (index, region) in self.plan.regions.iter().enumerate() {
            let (Some(opening), Some(end_site)) = (region.site, region.end_site) else {
                continue;
            };
            if region.region_type != user_region_type() {
                continue;
            }
            let begin = &self.model.sites[opening];
            let end = &self.model.sites[end_site];
            if begin.unit != end.unit {
                continue;
            }
            closed.push((begin.span.end..end.span.start, index, false));
        }
        let user_code: Vec<&Span> = closed.iter().map(|(code, _, _)| code).collect();
        self.statements_closed_with_user_regions(&user_code);
        for function in &self.plan.functions {
            let code = &self.model.functions[function.function];
            let at_run_end_only = !function.closed_at_exits;
            closed.push((code.entry..code.exit, function.region, at_run_end_only));
        }
        for (inside, index, at_run_end_only) in closed {
            let region = &self.plan.regions[index];
            for (at, exit) in exits_within(exits, &inside) {
                if at_run_end_only && !exit.targets.is_empty() {
                    continue;
                }
                let leaving = exit.targets.iter().filter(|t| !inside.contains(t)).count();
                if leaving == exit.targets.len() {
                    closing[at].push((inside.start, index));
                } else if leaving > 0 {
                    let name = region.name.as_deref().unwrap_or_default();
                    self.plan.diagnostics.push(
                        Diagnostic::warning(
                            exit.span.clone(),
                            format!("this jump may leave user region `{name}`"),
                            "some of its targets lie outside the region, some inside",
                        )
                        .with_note("no end call is inserted for this jump: when control leaves the region this way, the region stays open"),
                    );
                }
            }
        }
        for (exit, mut open) in exits.iter().zip(closing) {
            if !open.is_empty() {
                // Inner first: of two starting together, the one planned
                // later (a loop at the start of a Fortran function's code).
                open.sort_by_key(|&(start, region)| std::cmp::Reverse((start, region)));
                self.plan.region_exits.push(RegionExit {
                    span: exit.span.clone(),
                    regions: open.into_iter().map(|(_, r)| r).collect(),
                });
            }
        }
    }

    /// A loop or call region, left by a jump that also leaves a user
    /// region around it, must end at that jump before the user region
    /// does. Its scope's cleanup would end it only after the jump's own
    /// closing calls, so such a region is closed at every jump leaving it
    /// instead, as Fortran's are; the jumps of the loop itself (`break`,
    /// `continue`) go to its start and stay inside it. `user_code` is
    /// where each user region's code lies.
    fn statements_closed_with_user_regions(&mut self, user_code: &[&Span]) {
        let exits = &self.model.exits;
        let leaves = |exit: &Exit, code: &Span| {
            !exit.targets.is_empty() && exit.targets.iter().all(|t| !code.contains(t))
        };
        for function in &mut self.plan.functions {
            let code = &self.model.functions[function.function];
            if function.closed_at_exits || !matches!(code.kind, CodeKind::Loop | CodeKind::Call) {
                continue;
            }
            let statement = code.entry..code.exit;
            function.closed_at_exits = exits_within(exits, &statement)
                .filter(|(_, exit)| leaves(exit, &statement))
                .any(|(_, exit)| {
                    user_code.iter().any(|user| {
                        user.start <= statement.start
                            && exit.span.end <= user.end
                            && leaves(exit, user)
                    })
                });
        }
    }
}

/// The exits lying wholly in `inside`, with their indices in `exits`,
/// which are sorted by start.
fn exits_within<'e>(exits: &'e [Exit], inside: &Span) -> impl Iterator<Item = (usize, &'e Exit)> {
    let first = exits.partition_point(|e| e.span.start < inside.start);
    let end = inside.end;
    (exits[first..].iter().enumerate())
        .take_while(move |(_, exit)| exit.span.start < end)
        .filter(move |(_, exit)| exit.span.end <= end)
        .map(move |(at, exit)| (first + at, exit))
}

/// The region type of user regions: the one their opening directive names.
pub(super) fn user_region_type() -> &'static str {
    directive_table()
        .directive
        .iter()
        .find(|d| d.role == Some(Role::UserRegionBegin))
        .and_then(|d| d.region_type.as_deref())
        .expect("the directive table has a user region")
}

impl Planner<'_> {
    /// Whether the end of a user region at `site` is that of one `--filter`
    /// left alone: none of its name is open since, and one filtered is.
    fn closes_filtered_user_region(&mut self, site: &Site, open: &[(String, usize)]) -> bool {
        let name = site.directive.argument.clone().unwrap_or_default();
        let filtered = &mut self.filtered_user_regions;
        match filtered.iter().rposition(|n| *n == name) {
            Some(at) if !open.iter().any(|(n, _)| *n == name) => {
                filtered.remove(at);
                true
            }
            _ => false,
        }
    }
}

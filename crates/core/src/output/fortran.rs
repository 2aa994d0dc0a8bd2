//! Rendering a plan as Fortran text, free or fixed form.
//!
//! Fortran has no block scopes, so the handles live in one common block per
//! file, declared in every program unit that uses them and in the
//! registration routine; the variables the calls need are declared once per
//! unit. Directive lines are replaced by the directive (split into its
//! layers) with the calls around it; end directives likewise, and where an
//! optional end directive was left out, one is inserted after the loop or
//! statement when `nowait` or a split combined construct needs it.

use crate::directive::Directive;
use crate::edits::{EditBuilder, EditSet, Origin};
use crate::frontend::fortran::pomp_conditional_sentinel;
use crate::language::fortran::fixed_form;
use crate::language::Language;
use crate::model::{DirectiveForm, Model, Site};
use crate::rules::{
    has_restrictive_default, Arg, BareDirective, Call, Construct, Interface, Layer, NamedPlan,
    PompAction, Region, Shape, ValueScope, Var, MAX_THREADS_VAR,
};
use crate::source::SourceFile;
use std::collections::{BTreeMap, BTreeSet};

/// Longest line gfortran accepts by default in free form.
const FREE_FORM_WIDTH: usize = 132;
/// Longest piece of a CTC string on one line.
const CTC_CHUNK: usize = 48;
/// A context descriptor of the original interface (`struct ompregdescr`:
/// six pointers and five ints, padded) occupies 64 bytes on LP64 targets;
/// program units see it as that many bytes of 8-byte integers.
const DESCRIPTOR_WORDS: usize = 8;

/// The edits that turn `file` into its instrumented form.
pub fn emit(file: &SourceFile, model: &Model, plan: &NamedPlan, config: &super::Config) -> EditSet {
    let mut r = Renderer {
        file,
        model,
        plan,
        config,
        fixed_form: file.language == Language::FortranFixed,
        edits: EditBuilder::default(),
        needs: BTreeMap::new(),
        private_vars: private_vars(model, plan),
    };
    for construct in &plan.constructs {
        r.construct(construct);
    }
    for (site, action) in &plan.pomp_directives {
        r.pomp_directive(*site, action);
    }
    for bare in &plan.bare_directives {
        r.bare_directive(bare);
    }
    for scope in &plan.value_scopes {
        r.value_scope(scope);
    }
    r.region_exits();
    r.lock_calls();
    r.conditional_lines();
    // A preprocessed file's marker has no place in Fortran: a blank line
    // takes its place.
    if let Some(line) = config
        .preprocessed
        .then(|| super::preprocessed_marker(&file.bytes))
        .flatten()
    {
        let text_end = line.start + file.bytes[line.clone()].trim_ascii_end().len();
        r.edits.replace(line.start..text_end, "", 0, Origin::File);
    }
    if plan.regions.is_empty() && r.edits.is_empty() {
        return EditSet::default();
    }
    r.declarations();
    if config.line_markers {
        let preamble = format!(
            "#ifndef _POMP\n#define _POMP 200110\n#endif\n{}",
            r.line_marker(1)
        );
        r.edits.insert(0, preamble, i64::MIN, Origin::File);
    }
    if !plan.regions.is_empty() {
        let mut tail = match plan.interface {
            Interface::Pomp2 => r.registration(),
            Interface::Pomp1 | Interface::Pomp1Paper => r.descriptor_initialiser(),
        };
        if !(file.bytes.ends_with(b"\n") || file.bytes.is_empty()) {
            tail.insert(0, '\n');
        }
        r.edits
            .insert(file.bytes.len(), tail, i64::MAX, Origin::File);
    }
    std::mem::take(&mut r.edits).build()
}

/// What a program unit must declare for the code inserted into it.
#[derive(Default)]
struct UnitNeeds {
    /// Regions (indexes into [`Plan::regions`]) whose handle or CTC it uses.
    regions: BTreeSet<usize>,
    old_task: bool,
    new_task: bool,
    num_threads: bool,
    if_value: bool,
    /// It calls `pomp2_lib_get_max_threads`.
    max_threads: bool,
    /// It keeps the maximum number of threads for parallel regions in
    /// `teams` ([`Var::MaxThreads`]).
    teams_max_threads: bool,
    /// Lock test functions it calls: they return a logical.
    lock_tests: BTreeSet<String>,
    /// It starts parallel regions that copy in the library's
    /// thread-private variable.
    thread_private: bool,
}

struct Renderer<'a> {
    file: &'a SourceFile,
    model: &'a Model,
    plan: &'a NamedPlan,
    config: &'a super::Config,
    fixed_form: bool,
    edits: EditBuilder,
    /// Per unit index.
    needs: BTreeMap<usize, UnitNeeds>,
    /// For each construct (index into [`Plan::constructs`]) with a
    /// `default` clause other than `default(shared)`: the variables of
    /// inserted code that its region holds.
    private_vars: BTreeMap<usize, BTreeSet<&'static str>>,
}

impl Renderer<'_> {
    fn line_marker(&self, line: usize) -> String {
        if !self.config.line_markers {
            String::new()
        } else {
            format!("#line {line} {}\n", self.file.quoted_path())
        }
    }

    /// Each handle lives in a common block of its own, so that a unit
    /// declares only the handles it uses (a common block must have the
    /// same size everywhere): output grows with the regions, not with
    /// regions times units.
    fn common_block(&self, region: &Region) -> String {
        let stem = match self.plan.interface {
            Interface::Pomp2 => "pomp2_cb",
            // The region's index in the link-time table.
            Interface::Pomp1 => "pomp_id",
            Interface::Pomp1Paper => "pomp_rd_cb",
        };
        format!("{stem}_{}_{}", self.plan.unique, region.id)
    }

    /// The original interface's context descriptor of a region, and the
    /// common block that holds it.
    fn descriptor(&self, region: &Region) -> (String, String) {
        (
            format!("pomp_rd_{}", region.id),
            format!("pomp_rd_cb_{}_{}", self.plan.unique, region.id),
        )
    }

    /// The region whose handle (or descriptor) is `name`.
    fn region_of_handle(&self, name: &str) -> Option<usize> {
        let name = name.trim();
        let id: usize = name.rsplit('_').next()?.parse().ok()?;
        let index = id.checked_sub(1)?;
        (self.plan.regions.get(index)?.handle == name).then_some(index)
    }

    fn width(&self) -> usize {
        if self.fixed_form {
            fixed_form::LAST_COLUMN
        } else {
            FREE_FORM_WIDTH
        }
    }

    /// Indentation for inserted statements in a unit; fixed form keeps
    /// columns 1-6 free.
    fn indent(&self, unit: Option<usize>) -> String {
        let indent = unit
            .and_then(|u| self.model.units.get(u))
            .map_or("  ", |u| u.indent.as_str());
        let plain = indent.bytes().all(|b| b == b' ');
        if self.fixed_form && !(plain && indent.len() >= 6) {
            "      ".to_string()
        } else if plain {
            indent.to_string()
        } else {
            "  ".to_string()
        }
    }

    /// One statement, continued over as many lines as the form allows.
    fn statement(&self, indent: &str, text: &str) -> String {
        let (first, continued) = if self.fixed_form {
            (indent.to_string(), "     &    ".to_string())
        } else {
            (indent.to_string(), format!("{indent}    "))
        };
        self.wrap(&first, &continued, text, !self.fixed_form)
    }

    /// A directive line `!$omp text`, continued in the form's own way.
    fn directive_line(&self, text: &str) -> String {
        if self.fixed_form {
            self.wrap("!$omp ", "!$omp&   ", text, false)
        } else {
            self.wrap("!$omp ", "!$omp&   ", text, true)
        }
    }

    /// Packs `text` onto lines no wider than the form allows, breaking
    /// only after blanks outside character literals. Free form ends a
    /// continued line with `&`; fixed form marks the next one in column 6.
    fn wrap(&self, first: &str, continued: &str, text: &str, trailing_ampersand: bool) -> String {
        let limit = self.width() - if trailing_ampersand { 2 } else { 0 };
        let mut out = String::new();
        let mut line = first.to_string();
        let mut line_has_text = false;
        for piece in break_points(text) {
            if line_has_text && line.len() + piece.trim_end().len() > limit {
                let kept = line.trim_end().to_string();
                out.push_str(&kept);
                if trailing_ampersand {
                    out.push_str(" &");
                }
                out.push('\n');
                line = continued.to_string();
            }
            line.push_str(piece);
            line_has_text = true;
        }
        out.push_str(line.trim_end());
        out.push('\n');
        out
    }

    fn arg(&self, region: &Region, arg: &Arg) -> String {
        match arg {
            Arg::Handle => region.handle.clone(),
            Arg::Ctc => format!("pomp2_ctc_{}", region.id),
            Arg::OldTask | Arg::OldTaskRef => "pomp2_old_task".into(),
            Arg::NewTask | Arg::NewTaskRef => "pomp2_new_task".into(),
            Arg::If => "pomp2_if".into(),
            Arg::NumThreads => "pomp2_num_threads".into(),
        }
    }

    fn note_call(&mut self, unit: Option<usize>, region: usize, call: &Call) {
        let Some(unit) = unit else { return };
        let needs = self.needs.entry(unit).or_default();
        needs.regions.insert(region);
        for arg in call.args {
            match arg {
                Arg::OldTask | Arg::OldTaskRef => needs.old_task = true,
                Arg::NewTask | Arg::NewTaskRef => needs.new_task = true,
                Arg::If => needs.if_value = true,
                Arg::NumThreads => needs.num_threads = true,
                Arg::Handle | Arg::Ctc => {}
            }
        }
    }

    fn calls(&mut self, unit: Option<usize>, region: usize, calls: &[Call]) -> String {
        let indent = self.indent(unit);
        let mut out = String::new();
        for call in calls {
            self.note_call(unit, region, call);
            let r = &self.plan.regions[region];
            let args: Vec<String> = call.args.iter().map(|a| self.arg(r, a)).collect();
            let text = format!(
                "call {}({})",
                self.plan.function(call.event),
                args.join(", ")
            );
            out.push_str(&self.statement(&indent, &text));
        }
        out
    }

    fn implicit_barrier(&mut self, unit: Option<usize>, region: usize) -> String {
        let pair = &self.plan.implicit_barrier;
        let mut out = self.calls(unit, region, &pair.before);
        out.push_str("!$omp barrier\n");
        out.push_str(&self.calls(unit, region, &pair.after));
        out
    }

    /// Evaluation of the values a directive's clauses get instead of the
    /// user's expressions.
    fn assignments(&mut self, unit: Option<usize>, vars: &[Var]) -> String {
        let indent = self.indent(unit);
        let mut out = String::new();
        for var in vars {
            let needs = unit.map(|u| self.needs.entry(u).or_default());
            let text = match var {
                Var::NumThreads(expression) => {
                    if let Some(needs) = needs {
                        needs.num_threads = true;
                        needs.max_threads |= expression.is_none();
                        needs.thread_private |= self.plan.thread_private.is_some();
                    }
                    match expression {
                        Some(e) => format!("pomp2_num_threads = {e}"),
                        None => "pomp2_num_threads = pomp2_lib_get_max_threads()".into(),
                    }
                }
                Var::NumThreadsFromTeams => {
                    if let Some(needs) = needs {
                        needs.num_threads = true;
                        needs.teams_max_threads = true;
                        needs.thread_private |= self.plan.thread_private.is_some();
                    }
                    format!("pomp2_num_threads = {MAX_THREADS_VAR}")
                }
                Var::MaxThreads => {
                    if let Some(needs) = needs {
                        needs.max_threads = true;
                        needs.teams_max_threads = true;
                    }
                    format!("{MAX_THREADS_VAR} = pomp2_lib_get_max_threads()")
                }
                Var::If(expression) => {
                    if let Some(needs) = needs {
                        needs.if_value = true;
                    }
                    match expression {
                        Some(e) => format!("pomp2_if = ({e})"),
                        None => "pomp2_if = .true.".into(),
                    }
                }
                Var::OldTask => {
                    if let Some(needs) = needs {
                        needs.old_task = true;
                    }
                    continue;
                }
                Var::NewTask => {
                    if let Some(needs) = needs {
                        needs.new_task = true;
                    }
                    continue;
                }
            };
            out.push_str(&self.statement(&indent, &text));
        }
        out
    }

    /// The directive as the rules left it, with what Fortran needs instead:
    /// handles in a common block are named through the block, and a task
    /// keeps its own copy of the saved task handle so that constructs in its
    /// body cannot overwrite the creator's.
    ///
    /// Under a `default` clause other than `default(shared)` the variables
    /// that inserted code inside the region uses become private: each is
    /// set before it is read there, and `default(none)` would reject them.
    fn fortran_directive(
        &self,
        instrumented_task: bool,
        directive: &Directive,
        private: Option<&BTreeSet<&'static str>>,
        regions: &mut Vec<usize>,
    ) -> Directive {
        let mut directive = directive.clone();
        let restrictive = has_restrictive_default(&directive);
        if let Some(private) = private.filter(|_| restrictive || creates_team(&directive)) {
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
                    Some(&missing.join(", ")),
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
                clause.args = Some(blocks.join(", "));
                regions.extend(handles);
            }
            if instrumented_task && clause.name == "firstprivate" && args.contains("pomp2_new_task")
            {
                clause.args = Some(format!("{args}, pomp2_old_task"));
            }
        }
        directive
    }

    fn construct(&mut self, construct: &Construct) {
        let site = &self.model.sites[construct.site];
        let unit = site.unit;
        let region = construct.region;
        let directive_line = self.file.line_of(site.span.start);
        let end_site = site.end_site.map(|e| &self.model.sites[e]);
        let end_directive = end_site.map(|s| &s.directive);
        let layers = &construct.layers;
        let innermost = layers.len().saturating_sub(1);
        // In Fortran `nowait` and `copyprivate` are written on the end
        // directive, which the rules do not look at.
        let user_end_forbids_nowait =
            end_directive.is_some_and(|d| d.has_clause("nowait") || d.has_clause("copyprivate"));
        let adds_nowait: Vec<bool> = layers
            .iter()
            .enumerate()
            .map(|(i, l)| l.add_nowait && !(i == innermost && user_end_forbids_nowait))
            .collect();

        // A section's calls use its sections' descriptor, ready by then.
        let opens_region = self.plan.regions[region].site == construct.site;
        let mut opening = if opens_region {
            self.descriptor_guard(unit)
        } else {
            String::new()
        };
        for layer in layers {
            opening.push_str(&self.assignments(unit, &layer.vars));
            opening.push_str(&self.calls(unit, region, &layer.before));
            if let Some(directive) = &layer.directive {
                let mut shared = Vec::new();
                let directive = self.fortran_directive(
                    crate::rules::rules()
                        .construct
                        .get(&layer.rule)
                        .is_some_and(|rule| rule.task),
                    directive,
                    self.private_vars.get(&construct.site),
                    &mut shared,
                );
                // Handles named in a `shared` clause are declared too.
                if let Some(unit) = unit {
                    self.needs.entry(unit).or_default().regions.extend(shared);
                }
                opening.push_str(&self.line_marker(directive_line));
                opening.push_str(&self.directive_line(&directive.render()));
            }
            if layer.shape == Shape::Block {
                opening.push_str(&self.calls(unit, region, &layer.begin));
            }
        }

        let standalone = site.block.is_none();
        let mut closing = String::new();
        for (i, layer) in layers.iter().enumerate().rev() {
            let inner_lost_nowait = layers
                .get(i + 1)
                .is_some_and(|inner| inner.add_nowait && !adds_nowait[i + 1]);
            if layer.shape == Shape::Block && !standalone {
                if layer.barrier_before_end || inner_lost_nowait {
                    closing.push_str(&self.implicit_barrier(unit, region));
                }
                closing.push_str(&self.calls(unit, region, &layer.end));
            }
            if let Some(directive) = &layer.directive {
                // A block construct's end directive is written also where
                // its code is a BLOCK construct that needs none: the calls
                // inserted around that BLOCK are code of the construct too.
                let written = !standalone
                    && !directive.is_separator()
                    && (end_site.is_some() || adds_nowait[i] || layer.shape == Shape::Block);
                if written {
                    let mut text = format!("end {}", directive.name);
                    if let Some(argument) = directive
                        .argument
                        .as_ref()
                        .filter(|_| directive.spec().end_repeats_argument)
                    {
                        text.push_str(&format!(" ({argument})"));
                    }
                    if i == innermost {
                        for clause in end_directive.map_or(&[][..], |d| &d.clauses[..]) {
                            text.push(' ');
                            text.push_str(&clause.render());
                        }
                    }
                    if adds_nowait[i] {
                        text.push_str(" nowait");
                    }
                    closing.push_str(&self.directive_line(&text));
                }
            }
            if adds_nowait[i] && layer.barrier_after {
                closing.push_str(&self.implicit_barrier(unit, region));
            }
            closing.push_str(&self.calls(unit, region, &layer.after));
        }

        let order = super::nesting_depth(self.model, construct.site);
        let origin = Origin::Site {
            site: construct.site,
            region: Some(region),
        };
        if standalone {
            opening.push_str(&closing);
            closing.clear();
        }
        opening.push_str(&self.line_marker(self.file.line_of(site.lines.end)));
        if site.form == DirectiveForm::Implicit {
            self.edits
                .insert(site.lines.end, opening, order, origin.clone());
        } else {
            self.edits
                .replace(site.lines.clone(), opening, order, origin.clone());
        }
        if standalone {
            return;
        }
        match (end_site, &site.block) {
            (Some(end), _) => {
                closing.push_str(&self.line_marker(self.file.line_of(end.lines.end)));
                self.edits
                    .replace(end.lines.clone(), closing, -order, origin);
            }
            (None, Some(block)) if !closing.is_empty() => {
                let at = block.end;
                let mut text = String::new();
                if at > 0 && self.file.bytes[at - 1] != b'\n' {
                    text.push('\n');
                }
                text.push_str(&closing);
                text.push_str(&self.line_marker(self.file.line_of(at)));
                self.edits.insert(at, text, -order, origin);
            }
            _ => {}
        }
    }

    fn bare_directive(&mut self, bare: &BareDirective) {
        let site = &self.model.sites[bare.site];
        let mut shared = Vec::new();
        let directive = self.fortran_directive(
            false,
            &bare.directive,
            self.private_vars.get(&bare.site),
            &mut shared,
        );
        if let Some(unit) = site.unit {
            self.needs.entry(unit).or_default().regions.extend(shared);
        }
        let text = format!(
            "{}{}{}",
            self.line_marker(self.file.line_of(site.span.start)),
            self.directive_line(&directive.render()),
            self.line_marker(self.file.line_of(site.lines.end))
        );
        self.edits.replace(
            site.lines.clone(),
            text,
            super::nesting_depth(self.model, bare.site),
            Origin::Site {
                site: bare.site,
                region: None,
            },
        );
    }

    /// Values evaluated before a construct that is not instrumented.
    fn value_scope(&mut self, scope: &ValueScope) {
        let site = &self.model.sites[scope.site];
        let mut shared = Vec::new();
        let directive = self.fortran_directive(
            false,
            &scope.directive,
            self.private_vars.get(&scope.site),
            &mut shared,
        );
        if let Some(unit) = site.unit {
            self.needs.entry(unit).or_default().regions.extend(shared);
        }
        let text = format!(
            "{}{}{}{}",
            self.assignments(site.unit, &scope.vars),
            self.line_marker(self.file.line_of(site.span.start)),
            self.directive_line(&directive.render()),
            self.line_marker(self.file.line_of(site.lines.end))
        );
        self.edits.replace(
            site.lines.clone(),
            text,
            super::nesting_depth(self.model, scope.site),
            Origin::Site {
                site: scope.site,
                region: None,
            },
        );
    }

    fn pomp_directive(&mut self, site_index: usize, action: &PompAction) {
        let site: &Site = &self.model.sites[site_index];
        let unit = site.unit;
        let plan = self.plan;
        let text = match action {
            PompAction::Remove => String::new(),
            PompAction::Call(call) => self.statement(
                &self.indent(unit),
                &format!("call {}()", plan.function(call.event)),
            ),
            PompAction::UserBegin(r) => {
                self.descriptor_guard(unit) + &self.calls(unit, *r, &plan.user_region.begin)
            }
            PompAction::UserEnd(r) => self.calls(unit, *r, &plan.user_region.end),
        };
        let resume = self.line_marker(self.file.line_of(site.lines.end));
        self.edits.replace(
            site.lines.clone(),
            super::directive_replacement(text, resume),
            0,
            Origin::Site {
                site: site_index,
                region: action.region(),
            },
        );
    }

    /// A jump out of user regions (`return`, `exit`, `cycle`, `go to`)
    /// closes them first. On a line of its own the calls go on the lines
    /// before it; after a statement label (a jump to the label closes the
    /// regions too) or a `;` the first call takes the jump's place and the
    /// jump moves to the next line, in its own column. The front end hands
    /// a logical `if (c) return` over as the whole `if` statement: it
    /// becomes an `if` construct, `then` where the jump stood, the jump on
    /// a line of its own. An arithmetic `if (x) 10, 20, 30` always jumps:
    /// the calls go before it.
    fn region_exits(&mut self) {
        let end_calls = self.plan.user_region.end.clone();
        for exit in &self.plan.region_exits {
            let origin = Origin::Exit {
                regions: exit.regions.clone(),
            };
            let unit = self.model.unit_at(exit.span.start);
            let bytes = &self.file.bytes;
            let mut logical_if = false;
            let mut return_start = exit.span.start;
            if starts_with_keyword(&bytes[exit.span.clone()], b"if") {
                match logical_if_action(bytes, exit.span.start, exit.span.end, self.fixed_form) {
                    Some(at) if bytes[at].is_ascii_digit() => {}
                    Some(at) => {
                        logical_if = true;
                        return_start = at;
                    }
                    None => continue,
                }
            }
            let line_start = self.file.start_of_line(return_start);
            let sentinel = self.conditional_sentinel(line_start);
            let prefix = self.file.text(line_start..return_start).into_owned();
            // The return's own column, on a line of its own: the prefix
            // blanked, tabs and a `!$` sentinel kept.
            let pad: String = prefix
                .chars()
                .enumerate()
                .map(|(i, c)| match (c, sentinel) {
                    ('\t', _) => '\t',
                    (c, Some(at)) if i == at || i == at + 1 => c,
                    _ => ' ',
                })
                .collect();
            let mut closing = String::new();
            for &region in &exit.regions {
                closing.push_str(&self.calls(unit, region, &end_calls));
            }
            let line = self.file.line_of(return_start);
            if logical_if {
                let closing = self.with_sentinel(&closing, sentinel.is_some());
                let text = format!("then\n{closing}{}{pad}", self.line_marker(line));
                self.edits.insert(return_start, text, 0, origin.clone());
                let end_line_start = self.file.start_of_line(exit.span.end);
                let end_column = self
                    .file
                    .text(end_line_start..exit.span.end)
                    .chars()
                    .count();
                let end_if_line = self.with_sentinel(
                    &format!("{}end if\n", self.indent(unit)),
                    self.conditional_sentinel(end_line_start).is_some(),
                );
                let mut end_if = end_if_line.trim_end_matches('\n').to_string();
                // Whatever follows the return keeps its column.
                let rest = self
                    .file
                    .text(exit.span.end..self.file.end_of_line(exit.span.end))
                    .into_owned();
                if !rest.trim().is_empty() {
                    while end_if.chars().count() < end_column {
                        end_if.push(' ');
                    }
                }
                let text = format!(
                    "\n{}{end_if}",
                    self.line_marker(self.file.line_of(exit.span.end))
                );
                self.edits.insert(exit.span.end, text, 0, origin);
            } else if prefix.trim().is_empty() {
                let text = format!(
                    "{}{}",
                    self.with_sentinel(&closing, false),
                    self.line_marker(line)
                );
                self.edits.insert(line_start, text, 0, origin);
            } else {
                // The first call continues the line, wrapped as if it began
                // in the return's column.
                let column = prefix.chars().count();
                let mut text = String::new();
                for (k, &region) in exit.regions.iter().enumerate() {
                    let call = self.calls(unit, region, &end_calls);
                    let call = if k == 0 {
                        let statement = call.trim_start().trim_end_matches('\n').to_string();
                        let first = " ".repeat(column);
                        let continued = if self.fixed_form {
                            "     &    ".to_string()
                        } else {
                            format!("{}    ", self.indent(unit))
                        };
                        let wrapped = self.wrap(&first, &continued, &statement, !self.fixed_form);
                        wrapped[column..].to_string()
                    } else {
                        call
                    };
                    text.push_str(&call);
                }
                let (first, rest) = text.split_at(text.find('\n').map_or(text.len(), |i| i + 1));
                let text = format!(
                    "{first}{}{}{pad}",
                    self.with_sentinel(rest, sentinel.is_some()),
                    self.line_marker(line)
                );
                self.edits.insert(return_start, text, 0, origin);
            }
        }
    }

    /// Where a `!$` conditional compilation sentinel stands on the line
    /// starting at `line_start` (as a character index), if it is one.
    fn conditional_sentinel(&self, line_start: usize) -> Option<usize> {
        let bytes = &self.file.bytes[line_start..self.file.end_of_line(line_start)];
        let at = if self.fixed_form {
            if !bytes
                .first()
                .is_some_and(|&b| fixed_form::is_comment_start(b))
            {
                return None;
            }
            0
        } else {
            let at = bytes.iter().position(|&b| b != b' ' && b != b'\t')?;
            if bytes[at] != b'!' {
                return None;
            }
            at
        };
        let after = bytes.get(at + 2);
        let conditional = bytes.get(at + 1) == Some(&b'$')
            && if self.fixed_form {
                bytes
                    .iter()
                    .skip(2)
                    .take(3)
                    .all(|&b| b == b' ' || b == b'\t' || b.is_ascii_digit())
            } else {
                after.is_none_or(|&b| b == b' ' || b == b'\t' || b == b'&')
            };
        conditional.then_some(at)
    }

    /// Inserted code lines on a `!$` line stay conditional like it: each
    /// line (not the `#line` markers) gets the sentinel.
    fn with_sentinel(&self, text: &str, sentinel: bool) -> String {
        if !sentinel {
            return text.to_string();
        }
        let mut out = String::new();
        for line in text.split_inclusive('\n') {
            if line.starts_with('#') {
                out.push_str(line);
            } else if self.fixed_form && line.starts_with("  ") {
                out.push_str("!$");
                out.push_str(&line[2..]);
            } else {
                out.push_str("!$ ");
                out.push_str(line);
            }
        }
        out
    }

    fn lock_calls(&mut self) {
        for lock in &self.plan.lock_calls {
            let renamed = super::lock_wrapper(&lock.name);
            if renamed.starts_with("Test") {
                if let Some(unit) = self.model.unit_at(lock.span.start) {
                    let needs = self.needs.entry(unit).or_default();
                    needs.lock_tests.insert(self.plan.function(&renamed));
                }
            }
            let wrapper = self.plan.function(&renamed);
            self.edits
                .replace(lock.span.clone(), wrapper, 0, Origin::LockCall);
        }
    }

    /// `!P$` lines (fixed form also `CP$`, `*P$`) are code when
    /// instrumenting: the sentinel becomes blanks, columns stay put. The
    /// front end parsed them as code by the same rule.
    fn conditional_lines(&mut self) {
        let bytes = &self.file.bytes;
        let mut start = 0;
        while start < bytes.len() {
            let next = bytes[start..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |p| start + p + 1);
            let mut end = next;
            while end > start && matches!(bytes[end - 1], b'\n' | b'\r') {
                end -= 1;
            }
            if let Some(at) = pomp_conditional_sentinel(&bytes[start..end], self.fixed_form) {
                self.edits
                    .replace(start + at..start + at + 3, "   ", 0, Origin::File);
            }
            start = next;
        }
    }

    fn handle_declarations<'r>(
        &self,
        indent: &str,
        regions: impl Iterator<Item = &'r Region> + Clone,
    ) -> String {
        let mut out = String::new();
        // One statement per handle: no line grows with the region count.
        let (kind, words) = match self.plan.interface {
            Interface::Pomp2 => ("integer(kind=8)", String::new()),
            Interface::Pomp1 => ("integer", String::new()),
            Interface::Pomp1Paper => ("integer(kind=8)", format!("({DESCRIPTOR_WORDS})")),
        };
        for region in regions.clone() {
            out.push_str(&self.statement(indent, &format!("{kind} :: {}{words}", region.handle)));
        }
        for region in regions {
            let block = self.common_block(region);
            out.push_str(&self.statement(indent, &format!("common /{block}/ {}", region.handle)));
        }
        out
    }

    fn ctc_declaration(&self, indent: &str, region: &Region) -> String {
        let text = format!(
            "character(len=*), parameter :: pomp2_ctc_{} = {}",
            region.id,
            string_expression(&self.plan.ctc(region))
        );
        self.statement(indent, &text)
    }

    fn declarations(&mut self) {
        let needs = std::mem::take(&mut self.needs);
        for (unit_index, needs) in &needs {
            let unit = &self.model.units[*unit_index];
            let Some(at) = unit.declarations_at else {
                continue;
            };
            let indent = self.indent(Some(*unit_index));
            let mut out = String::new();
            if !needs.regions.is_empty() {
                let regions = needs.regions.iter().map(|&r| &self.plan.regions[r]);
                out.push_str(&self.handle_declarations(&indent, regions));
                let ctc_strings = self.plan.interface == Interface::Pomp2;
                for &region in needs.regions.iter().filter(|_| ctc_strings) {
                    out.push_str(&self.ctc_declaration(&indent, &self.plan.regions[region]));
                }
            }
            let tasks: Vec<&str> = [
                (needs.old_task, "pomp2_old_task"),
                (needs.new_task, "pomp2_new_task"),
            ]
            .iter()
            .filter(|(needed, _)| *needed)
            .map(|(_, name)| *name)
            .collect();
            if !tasks.is_empty() {
                out.push_str(
                    &self.statement(&indent, &format!("integer(kind=8) :: {}", tasks.join(", "))),
                );
            }
            if needs.num_threads {
                out.push_str(&self.statement(&indent, "integer :: pomp2_num_threads"));
            }
            if needs.thread_private {
                let name = crate::rules::FORTRAN_THREAD_PRIVATE;
                out.push_str(&self.statement(&indent, &format!("integer(kind=8) :: {name}")));
                out.push_str(&self.statement(&indent, &format!("common /{name}/ {name}")));
                out.push_str(&self.directive_line(&format!("threadprivate(/{name}/)")));
            }
            if needs.teams_max_threads {
                out.push_str(&self.statement(&indent, &format!("integer :: {MAX_THREADS_VAR}")));
            }
            if needs.if_value {
                out.push_str(&self.statement(&indent, "logical :: pomp2_if"));
            }
            if needs.max_threads {
                out.push_str(
                    &self.statement(&indent, "integer, external :: pomp2_lib_get_max_threads"),
                );
            }
            if !needs.lock_tests.is_empty() {
                let names: Vec<&str> = needs.lock_tests.iter().map(String::as_str).collect();
                out.push_str(&self.statement(
                    &indent,
                    &format!("logical, external :: {}", names.join(", ")),
                ));
            }
            if out.is_empty() {
                continue;
            }
            let mut text = String::new();
            if at > 0 && self.file.bytes[at - 1] != b'\n' {
                text.push('\n');
            }
            text.push_str(&out);
            text.push_str(&self.line_marker(self.file.line_of(at)));
            self.edits
                .insert(at, text, i64::MIN + 1, Origin::Unit { unit: *unit_index });
        }
    }

    /// The original interface's descriptors cannot be initialised
    /// statically in Fortran (a C pointer to a string is no constant), so
    /// the file's initialiser fills them on first use: each construct and
    /// user region calls it before its first event. Later events of the
    /// same region happen after that one.
    fn descriptor_initialiser_name(&self) -> String {
        format!("pomp_rd_init_{}", self.plan.unique)
    }

    fn descriptor_guard(&self, unit: Option<usize>) -> String {
        match self.plan.interface {
            Interface::Pomp2 => String::new(),
            Interface::Pomp1 | Interface::Pomp1Paper => self.statement(
                &self.indent(unit),
                &format!("call {}()", self.descriptor_initialiser_name()),
            ),
        }
    }

    /// The routine that fills this file's descriptors and chains them
    /// through `next`, once, whichever thread calls it first: later calls
    /// only read a flag.
    fn descriptor_initialiser(&self) -> String {
        let name = self.descriptor_initialiser_name();
        let outer = if self.fixed_form { "      " } else { "" };
        let inner = if self.fixed_form { "      " } else { "  " };
        let deeper = format!("{inner}  ");
        // Each distinct string once, NUL-terminated for C.
        let file_name = self.file.path.to_string_lossy().into_owned();
        let mut strings: Vec<String> = vec![file_name.clone()];
        let mut string_var = |text: &str| {
            let index = strings.iter().position(|s| s == text).unwrap_or_else(|| {
                strings.push(text.to_string());
                strings.len() - 1
            });
            format!("c_loc(pomp_rd_str_{})", index + 1)
        };
        let mut assignments = Vec::new();
        for (i, region) in self.plan.regions.iter().enumerate() {
            let fields = super::Pomp1Descriptor::of(self.model, region);
            let (d, _) = self.descriptor(region);
            let d = &d;
            assignments.push(format!("{d}%name = {}", string_var(&fields.name)));
            assignments.push(format!("{d}%sub_name = {}", string_var(&fields.sub_name)));
            assignments.push(format!("{d}%num_sections = {}", fields.num_sections));
            assignments.push(format!("{d}%file_name = {}", string_var(&file_name)));
            assignments.push(format!("{d}%begin_first_line = {}", region.start_lines.0));
            assignments.push(format!("{d}%begin_last_line = {}", region.start_lines.1));
            assignments.push(format!("{d}%end_first_line = {}", region.end_lines.0));
            assignments.push(format!("{d}%end_last_line = {}", region.end_lines.1));
            // The last one's `next` stays null, as common blocks start zeroed.
            if let Some(next) = self.plan.regions.get(i + 1) {
                assignments.push(format!("{d}%next = c_loc({})", self.descriptor(next).0));
            }
        }

        let mut out = String::new();
        // Statements and, spelled with their sentinel, directives.
        let mut line = |indent: &str, text: &str| {
            if let Some(directive) = text.strip_prefix("!$omp ") {
                out.push_str(&self.directive_line(directive));
            } else {
                out.push_str(&self.statement(indent, text));
            }
        };
        line(outer, &format!("subroutine {name}()"));
        line(
            inner,
            "use, intrinsic :: iso_c_binding, only: c_ptr, c_int, c_char, c_null_char, c_loc",
        );
        line(inner, "implicit none");
        line(inner, "type, bind(C) :: pomp_ompregdescr");
        for (kind, field) in [
            ("type(c_ptr)", "name"),
            ("type(c_ptr)", "sub_name"),
            ("integer(c_int)", "num_sections"),
            ("type(c_ptr)", "file_name"),
            ("integer(c_int)", "begin_first_line"),
            ("integer(c_int)", "begin_last_line"),
            ("integer(c_int)", "end_first_line"),
            ("integer(c_int)", "end_last_line"),
            ("type(c_ptr)", "data"),
            ("type(c_ptr)", "next"),
        ] {
            line(&deeper, &format!("{kind} :: {field}"));
        }
        line(inner, "end type pomp_ompregdescr");
        for region in &self.plan.regions {
            line(
                inner,
                &format!(
                    "type(pomp_ompregdescr), target :: {}",
                    self.descriptor(region).0
                ),
            );
        }
        for region in &self.plan.regions {
            let (descriptor, block) = self.descriptor(region);
            line(inner, &format!("common /{block}/ {descriptor}"));
        }
        for (index, text) in strings.iter().enumerate() {
            line(
                inner,
                &format!(
                    "character(kind=c_char, len={}), target, save :: pomp_rd_str_{} = {} // c_null_char",
                    text.len() + 1,
                    index + 1,
                    string_expression(text)
                ),
            );
        }
        line(inner, "logical, save :: pomp_rd_ready = .false.");
        line(inner, "logical :: ready");
        line(inner, "!$omp atomic read");
        line(inner, "ready = pomp_rd_ready");
        line(inner, "if (ready) return");
        line(inner, &format!("!$omp critical ({name})"));
        line(inner, "if (.not. pomp_rd_ready) then");
        for assignment in &assignments {
            line(&deeper, assignment);
        }
        line(inner, "!$omp atomic write");
        line(&deeper, "pomp_rd_ready = .true.");
        line(inner, "end if");
        line(inner, &format!("!$omp end critical ({name})"));
        line(outer, &format!("end subroutine {name}"));
        out
    }

    /// The routines the link-time `POMP2_Init_regions` and
    /// `POMP2_USER_Init_regions` call: they hand every handle of this file
    /// to the library, user regions' apart, as OPARI2's libraries read
    /// those with a parser of their own.
    fn registration(&self) -> String {
        let outer = if self.fixed_form { "      " } else { "" };
        let inner = if self.fixed_form { "      " } else { "  " };
        let mut out = String::new();
        for (function, user) in [
            (self.plan.registration(), false),
            (self.plan.user_registration(), true),
        ] {
            let Some(name) = function else {
                continue;
            };
            let regions = || self.plan.regions.iter().filter(move |r| r.user == user);
            let assign = if user {
                "POMP2_USER_Assign_handle"
            } else {
                "POMP2_Assign_handle"
            };
            out.push_str(&self.statement(
                outer,
                &format!("subroutine {name}() bind(C, name=\"{name}\")"),
            ));
            out.push_str(&self.statement(inner, "implicit none"));
            out.push_str(&self.handle_declarations(inner, regions()));
            for region in regions() {
                out.push_str(&self.ctc_declaration(inner, region));
            }
            for region in regions() {
                out.push_str(&self.statement(
                    inner,
                    &format!("call {assign}({}, pomp2_ctc_{})", region.handle, region.id),
                ));
            }
            out.push_str(&self.statement(outer, &format!("end subroutine {name}")));
        }
        out
    }
}

/// `text` as a Fortran character expression: literals of at most
/// [`CTC_CHUNK`] characters joined by `//`, so that a statement holding it
/// can continue between them.
fn string_expression(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return "\"\"".to_string();
    }
    let chunks: Vec<String> = chars
        .chunks(CTC_CHUNK)
        .map(|c| format!("\"{}\"", c.iter().collect::<String>().replace('"', "\"\"")))
        .collect();
    chunks.join(" // ")
}

/// `text` cut after each blank outside character literals: the places a
/// statement may continue on the next line.
fn break_points(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut quote: Option<char> = None;
    let mut start = 0;
    let mut previous_blank = false;
    for (i, c) in text.char_indices() {
        if previous_blank && c != ' ' && quote.is_none() && i > start {
            pieces.push(&text[start..i]);
            start = i;
        }
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), _) if q == c => quote = None,
            _ => {}
        }
        previous_blank = c == ' ' && quote.is_none();
    }
    if start < text.len() {
        pieces.push(&text[start..]);
    }
    pieces
}

/// Does `text` begin with the keyword `keyword` (any case, not followed by
/// a letter, digit or underscore)?
fn starts_with_keyword(text: &[u8], keyword: &[u8]) -> bool {
    text.len() >= keyword.len()
        && text[..keyword.len()].eq_ignore_ascii_case(keyword)
        && text
            .get(keyword.len())
            .is_none_or(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
}

/// Where the action statement of the logical `if` statement occupying
/// `start..end` begins: the first character of code after the parenthesis
/// closing its condition. Character literals, comments, continuation marks
/// and (fixed form) comment lines, columns past 72 and the label field of
/// continuation lines are skipped exactly as the compiler does.
fn logical_if_action(bytes: &[u8], start: usize, end: usize, fixed_form: bool) -> Option<usize> {
    let mut depth = 0usize;
    let mut closed = false;
    let mut quote: Option<u8> = None;
    let mut line_start = start;
    let mut first_line = true;
    while line_start < end {
        let line_end = bytes[line_start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| line_start + i);
        let next = (line_end + 1).min(bytes.len());
        let text = &bytes[line_start..line_end];
        let field = if !fixed_form {
            0..text.len()
        } else if first_line {
            let line_begin = bytes[..start]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            let visible = (line_begin + fixed_form::LAST_COLUMN).saturating_sub(line_start);
            0..text.len().min(visible)
        } else {
            match fixed_form_statement_field(text) {
                Some(field) => field,
                None => {
                    line_start = next;
                    continue;
                }
            }
        };
        first_line = false;
        for i in field {
            let b = text[i];
            if let Some(q) = quote {
                if b == q {
                    quote = None;
                }
                continue;
            }
            match b {
                b'!' => break,
                b' ' | b'\t' | b'\r' => {}
                b'&' if !fixed_form => {}
                _ if closed => return Some(line_start + i),
                b'\'' | b'"' => quote = Some(b),
                b'(' => depth += 1,
                b')' if depth > 0 => {
                    depth -= 1;
                    closed = depth == 0;
                }
                _ => {}
            }
        }
        line_start = next;
    }
    None
}

/// The statement field of a fixed-form line that continues a statement, or
/// `None` for comment, blank and preprocessor lines.
fn fixed_form_statement_field(text: &[u8]) -> Option<std::ops::Range<usize>> {
    match text.first() {
        Some(&first) if fixed_form::is_comment_start(first) => return None,
        Some(&first) if fixed_form::is_debug_line_start(first) || first == b'#' => return None,
        None => return None,
        _ => {}
    }
    let fields = fixed_form::fields(text);
    let (start, visible) = (fields.statement_start, fields.visible_end);
    let field = &text[start.min(visible)..visible];
    let first = field.iter().position(|&b| b != b' ' && b != b'\t')?;
    if field[first] == b'!' {
        // Only a comment (column 6 is no comment start, but that is
        // outside the field).
        let label_field = &text[..start.min(text.len())];
        if label_field.iter().all(|&b| b == b' ' || b == b'\t') {
            return None;
        }
    }
    Some(start.min(visible)..visible)
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
        if !CLAUSES.contains(&clause.name.as_str()) {
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

/// A construct creating threads or a league of teams: the inserted
/// variables are declared in the program unit, so they are shared in its
/// region unless it lists them private, and the threads or teams running
/// inserted code there would write one variable at once (the task handle
/// a nested parallel region's fork stores and its join reads).
fn creates_team(directive: &Directive) -> bool {
    crate::directive::table()
        .creates(directive.spec())
        .is_some()
}

/// For each directive (by site) with a `default` clause other than
/// `default(shared)`, instrumented or bare, and each instrumented one
/// creating threads or teams: the variables inserted code inside its region
/// uses (of its inner layers and of every construct nested in it). Each
/// construct adds its variables to its enclosing ones, so the cost grows
/// with the nesting depth, not the number of constructs.
fn private_vars(model: &Model, plan: &NamedPlan) -> BTreeMap<usize, BTreeSet<&'static str>> {
    let with_layer = |wanted: fn(&Directive) -> bool| -> BTreeSet<usize> {
        (plan.constructs.iter())
            .filter(|c| (c.layers.iter()).any(|l| l.directive.as_ref().is_some_and(wanted)))
            .map(|c| c.site)
            .collect()
    };
    let mut restrictive = with_layer(has_restrictive_default);
    let teams = with_layer(creates_team);
    restrictive.extend(plan.bare_directives.iter().map(|b| b.site));
    restrictive.extend(
        (plan.value_scopes.iter())
            .filter(|v| has_restrictive_default(&v.directive))
            .map(|v| v.site),
    );
    let mut vars: BTreeMap<usize, BTreeSet<&'static str>> = BTreeMap::new();
    if restrictive.is_empty() && teams.is_empty() {
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
            } else if teams.contains(&construct.site) {
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
            if restrictive.contains(&s) || teams.contains(&s) {
                vars.entry(s).or_default().extend(used.iter().copied());
            }
            site = model.sites[s].parent;
        }
    }
    vars
}

//! Rendering a plan as C/C++ text: each instrumented construct becomes one
//! compound statement, so unbraced `if`/`else`, loops and labels keep their
//! structure; `#line` markers follow every insertion.

use crate::edits::{EditBuilder, Origin, Text};
use crate::language::c::lex::whole_words;
use crate::model::{CodeKind, DirectiveForm, LockCall, Model};
use crate::rules::{
    rules, Arg, BareDirective, Call, Construct, FunctionRegion, Interface, Layer, NamedPlan,
    PompAction, Region, RegionExit, ValueScope, Var, MAX_THREADS_VAR,
};
use crate::source::{c_string_literal, SourceFile};
use rustc_hash::FxHashSet;

/// The edits that turn `file` into its instrumented form, and the
/// declarations' text when they go into a file of their own.
pub fn emit(
    file: &SourceFile,
    model: &Model,
    plan: &NamedPlan,
    config: &super::writing::Config,
) -> super::writing::Emitted {
    let mut r = Renderer {
        file,
        model,
        plan,
        config,
        edits: EditBuilder::with_capacity(super::writing::edits_expected(plan)),
        events: FxHashSet::default(),
        noting: true,
        scratch: String::new(),
    };
    super::writing::write_plan(plan, &mut r);
    // What writing the constructs freed goes back before the handles and
    // descriptors, megabytes of text on a dense file, take fresh pages:
    // 1.3 MB off the peak on the corpus's C++ programs.
    crate::source::much_freed(file);
    // A preprocessed file's marker line gives way to the declarations.
    let marker = config
        .preprocessed
        .then(|| super::writing::preprocessed_marker(&file.bytes))
        .flatten();
    if plan.regions.is_empty() && r.edits.is_empty() && marker.is_none() {
        return super::writing::Emitted::default();
    }
    let preamble_at = if file.bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let at_marker = marker.is_some();
    let (replaced, resume) = match marker {
        Some(line) => (line.clone(), file.line_of(line.start) + 1),
        None => (preamble_at..preamble_at, 1),
    };
    let mut declarations = r.preamble(at_marker);
    let mut init = r.init_function();
    let resumed = r.line_marker(resume);
    let (preamble, declarations) = match &config.declarations_file {
        // The registration function goes with the handles, as OPARI2 has
        // it, before the user's code: the first lines a compiler describes
        // in debug information are then not the user's, which binutils
        // (2.40) would name after the output instead (it reads DWARF 5's
        // second file entry as the first).
        Some(name) => {
            declarations.push_str(&std::mem::take(&mut init));
            (
                format!("#include \"{name}\"\n{resumed}"),
                Some(declarations),
            )
        }
        None => {
            declarations.push_str(&resumed);
            (declarations, None)
        }
    };
    let mut edits = std::mem::take(&mut r.edits);
    edits.replace(replaced, preamble, i64::MIN, Origin::File);
    if !init.is_empty() {
        let tail = super::writing::on_lines_of_its_own(file, init);
        edits.insert(file.bytes.len(), tail, i64::MAX, Origin::File);
    }
    super::writing::Emitted {
        edits: edits.build(),
        declarations,
    }
}

impl super::writing::PlanWriter for Renderer<'_> {
    fn construct(&mut self, index: usize, construct: &Construct) {
        let model = self.model;
        let site = &model.sites[construct.site];
        let order = super::writing::nesting_depth(model, construct.site);
        let origin = Origin::Site {
            site: construct.site,
            region: Some(construct.region),
        };
        if self.config.texts_when_written {
            self.note_events(&construct.layers);
        }
        let opening = self.construct_text(index, construct, Part::Opening);
        let opened = match site.form {
            DirectiveForm::Implicit => site.lines.end..site.lines.end,
            _ => site.lines.clone(),
        };
        self.edits
            .replace_with(opened, opening, order, origin.clone());
        if let Some(block) = &site.block {
            let closing = self.construct_text(index, construct, Part::Closing);
            self.edits
                .replace_with(block.end..block.end, closing, -order, origin);
        }
    }

    fn pomp_directive(&mut self, site_index: usize, action: &PompAction) {
        let site = &self.model.sites[site_index];
        let text = match action {
            PompAction::Remove => String::new(),
            PompAction::Call(call) => {
                self.events.insert(call.event.to_owned());
                format!("{}();\n", self.plan.function(call.event))
            }
            PompAction::UserBegin(r) | PompAction::UserEnd(r) => {
                let plan = self.plan;
                let region = &plan.regions[*r];
                let calls = match action {
                    PompAction::UserBegin(_) => &plan.user_region.begin,
                    _ => &plan.user_region.end,
                };
                // Begin and end are called exactly when both directives
                // are compiled.
                let both = self.user_region_sites(*r);
                let mut text = String::new();
                self.push_under_conditions(&mut text, &both, site.span.start, |r, text| {
                    r.push_calls(text, region, calls);
                    text.push('\n');
                });
                text
            }
        };
        let resume = self.line_marker(self.file.line_of(site.lines.end));
        let origin = Origin::Site {
            site: site_index,
            region: action.region(),
        };
        self.edits.replace(
            site.lines.clone(),
            super::writing::directive_replacement(text, resume),
            0,
            origin,
        );
    }

    fn bare_directive(&mut self, bare: &BareDirective) {
        self.directive_written_again(bare.site, "", &bare.directive);
    }

    /// A compound statement around a construct that is not instrumented,
    /// holding the values evaluated before it.
    fn value_scope(&mut self, scope: &ValueScope) {
        let Some(block) = self.model.sites[scope.site].block.clone() else {
            return;
        };
        let mut opening = String::from("{ ");
        Self::push_declarations(&mut opening, &scope.vars);
        opening.push('\n');
        let (order, origin) = self.directive_written_again(scope.site, &opening, &scope.directive);
        let resume = self.line_marker(self.file.line_of(block.end));
        self.edits
            .insert(block.end, format!("\n}}\n{resume}"), -order, origin);
    }

    /// A jump out of user regions closes them first: the calls and the
    /// jump become one compound statement, so an unbraced `if` keeps it.
    fn exit(&mut self, exit: &RegionExit) {
        let plan = self.plan;
        let closing: String = exit
            .regions
            .iter()
            .map(|&i| {
                let region = &plan.regions[i];
                let mut text = self.call(region, &plan.user_region.end[0]);
                // The run ends here: the program's region finalises.
                if crate::rules::is_program(self.model, region) {
                    text.push(' ');
                    plan.push_function(&mut text, rules().control["inst finalize"].event);
                    text.push_str("();");
                }
                text
            })
            .collect::<Vec<_>>()
            .join(" ");
        let origin = Origin::Exit {
            regions: exit.regions.clone(),
        };
        let ends: Vec<usize> = exit
            .regions
            .iter()
            .flat_map(|&i| self.user_region_sites(i))
            .collect();
        let opening = match self.model.condition_at(&ends, exit.span.start) {
            // The jump goes on on a line of its own, numbered as the user's.
            Some(condition) => format!(
                "{{\n#if {condition}\n{closing}\n#endif\n{}",
                self.line_marker(self.file.line_of(exit.span.start))
            ),
            None => format!("{{ {closing} "),
        };
        self.edits
            .insert(exit.span.start, opening, 0, origin.clone());
        self.edits.insert(exit.span.end, " }", 0, origin);
    }

    /// A function's region opens where its body's code begins, with a
    /// variable whose cleanup (GCC's and Clang's `cleanup` attribute)
    /// closes it whenever the body's scope is left: at its end, at a
    /// `return` once the value is computed, and while an exception
    /// unwinds. It is written on the line of the body's `{`, so no line
    /// moves. The program's region also initialises the measurement
    /// first and finalises it last. A loop or call that the plan closes
    /// at its jumps out has no such variable: its end would come too late
    /// for a user region around it that a jump leaves too.
    fn function(&mut self, function: &FunctionRegion) {
        let plan = self.plan;
        let region = &plan.regions[function.region];
        let code = &self.model.functions[function.function];
        let origin = Origin::Function {
            region: function.region,
        };
        if code.declaration {
            // The declared name stays in the scope it was declared in.
            let mut begin = String::new();
            self.push_calls(&mut begin, region, &plan.user_region.begin);
            begin.push(' ');
            let mut end = String::from(" ");
            self.push_calls(&mut end, region, &plan.user_region.end);
            self.edits
                .insert(code.entry, begin, STATEMENT_ENTRY_ORDER, origin.clone());
            self.edits
                .insert(code.exit, end, STATEMENT_EXIT_ORDER, origin);
            return;
        }
        // A loop or call statement becomes a compound statement opening
        // with the guard: one statement where there was one.
        let statement = matches!(code.kind, CodeKind::Loop | CodeKind::Call);
        let program = crate::rules::is_program(self.model, region);
        let control = &rules().control;
        let (init, finalize) = (&control["inst init"], &control["inst finalize"]);
        // The cleanup functions of the preamble call both.
        self.events.insert(finalize.event.to_owned());
        let (entry_order, exit_order) = match code.kind {
            CodeKind::Loop => (STATEMENT_ENTRY_ORDER, LOOP_EXIT_ORDER),
            CodeKind::Call => (STATEMENT_ENTRY_ORDER, STATEMENT_EXIT_ORDER),
            _ => (0, 0),
        };
        if statement && function.closed_at_exits {
            // The jumps out end it themselves; its end after the
            // statement is where the loop's own `break` goes on.
            let mut begin = String::from("{ ");
            self.push_calls(&mut begin, region, &plan.user_region.begin);
            begin.push(' ');
            let mut end = String::from(" ");
            self.push_calls(&mut end, region, &plan.user_region.end);
            end.push_str(" }");
            self.edits
                .insert(code.entry, begin, entry_order, origin.clone());
            self.edits.insert(code.exit, end, exit_order, origin);
            return;
        }
        let mut text = String::from(" ");
        text.push_str(self.handle_type());
        text.push_str("* pomp2_region_guard __attribute__((cleanup(");
        text.push_str(cleanup_function(program));
        text.push_str("), unused)) = (");
        if program {
            self.events.insert(init.event.to_owned());
            plan.push_function(&mut text, init.event);
            text.push_str("(), ");
        }
        self.push_calls(&mut text, region, &plan.user_region.begin);
        self.push_calls(&mut String::new(), region, &plan.user_region.end);
        while text.ends_with(';') {
            text.pop();
        }
        text.push_str(", &");
        text.push_str(&region.handle);
        text.push_str(");");
        if statement {
            text.replace_range(..1, "{ ");
            text.push(' ');
            self.edits
                .insert(code.exit, " }", exit_order, origin.clone());
        }
        self.edits.insert(code.entry, text, entry_order, origin);
    }

    fn lock_call(&mut self, lock: &LockCall) {
        let renamed = pomp2::events::lock_wrapper(&lock.name);
        self.events.insert(renamed.clone());
        self.edits.replace(
            lock.span.clone(),
            self.plan.function(&renamed),
            0,
            Origin::LockCall,
        );
    }
}

struct Renderer<'a> {
    file: &'a SourceFile,
    model: &'a Model,
    plan: &'a NamedPlan,
    config: &'a super::writing::Config,
    edits: EditBuilder,
    /// Every event called, for the prototypes (a set looked up for every
    /// call, sorted once when they are written).
    events: FxHashSet<String>,
    /// Whether the calls written are noted in `events`: not once the
    /// prototypes are written, as the texts made later are.
    noting: bool,
    /// Where a construct's texts are written piece by piece before each
    /// is stored at its exact size: a dense file inserts megabytes, and
    /// strings grown in place would copy them several times over and
    /// keep up to twice their length.
    scratch: String,
}

/// The two texts of a construct: what opens it (in place of its
/// directive) and what closes it (after its block).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Opening,
    Closing,
}

impl Part {
    /// The number of a text left to be made ([`Text::Later`]).
    fn of_construct(self, construct: usize) -> u32 {
        let construct = u32::try_from(construct).expect("fewer than 2^31 constructs");
        2 * construct + u32::from(self == Part::Closing)
    }

    /// The construct and the part a text left to be made is.
    fn construct_of(key: u32) -> (usize, Part) {
        let part = match key % 2 {
            0 => Part::Opening,
            _ => Part::Closing,
        };
        ((key / 2) as usize, part)
    }
}

/// What makes, as the output is written, the texts that
/// [`super::Config::texts_when_written`] left to be made.
pub struct LaterTexts<'a> {
    renderer: Renderer<'a>,
}

impl<'a> LaterTexts<'a> {
    pub fn new(
        file: &'a SourceFile,
        model: &'a Model,
        plan: &'a NamedPlan,
        config: &'a super::writing::Config,
    ) -> LaterTexts<'a> {
        LaterTexts {
            renderer: Renderer {
                file,
                model,
                plan,
                config,
                edits: EditBuilder::default(),
                events: FxHashSet::default(),
                noting: false,
                scratch: String::new(),
            },
        }
    }

    /// Appends the text numbered `key` to `text`.
    pub fn make(&mut self, key: u32, text: &mut String) {
        let (index, part) = Part::construct_of(key);
        let construct = &self.renderer.plan.constructs[index];
        self.renderer.push_construct_text(text, construct, part);
    }
}

impl Renderer<'_> {
    /// A construct's opening or closing text, made now or, with
    /// [`super::Config::texts_when_written`], left to be made.
    fn construct_text(&mut self, index: usize, construct: &Construct, part: Part) -> Text {
        if self.config.texts_when_written {
            return Text::Later(part.of_construct(index));
        }
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        self.push_construct_text(&mut text, construct, part);
        let made = Text::Made(text.as_str().to_owned());
        self.scratch = text;
        made
    }

    fn push_construct_text(&mut self, text: &mut String, construct: &Construct, part: Part) {
        let (file, model, plan) = (self.file, self.model, self.plan);
        let site = &model.sites[construct.site];
        let region = &plan.regions[construct.region];
        let layers = &construct.layers;
        match (part, &site.block) {
            (Part::Opening, block) => {
                if !file.starts_line(site.lines.start) {
                    text.push('\n');
                }
                let directive_line = file.line_of(site.span.start);
                self.push_opening(text, region, layers, directive_line);
                if block.is_none() {
                    self.push_closing(text, region, layers);
                }
                self.push_line_marker(text, file.line_of(site.lines.end));
            }
            (Part::Closing, Some(block)) => {
                text.push('\n');
                // A directive under a conditional, its block outside: what
                // closes the construct is compiled exactly when the
                // directive is.
                self.push_under_conditions(text, &[site.span.start], block.end, |r, text| {
                    r.push_closing(text, region, layers)
                });
                self.push_line_marker(text, file.line_of(block.end));
            }
            (Part::Closing, None) => {
                unreachable!("a construct without a block is closed where it opens")
            }
        }
    }

    /// Notes the events the texts of a construct with `layers` call, for
    /// the prototypes, before those texts are made: the calls
    /// [`Renderer::push_opening`] and [`Renderer::push_closing`]
    /// make.
    fn note_events(&mut self, layers: &[Layer]) {
        let plan = self.plan;
        for step in opening_steps(layers) {
            match step {
                Opening::OuterScope(layer) => self.note_calls(&layer.before),
                Opening::Directive(_) => {}
                Opening::InnerScope(layer) => self.note_calls(&layer.begin),
            }
        }
        for step in closing_steps(layers) {
            match step {
                Closing::ImplicitBarrier => {
                    self.note_calls(&plan.implicit_barrier.before);
                    self.note_calls(&plan.implicit_barrier.after);
                }
                Closing::InnerEnd(layer) => self.note_calls(&layer.end),
                Closing::OuterEnd(layer) => self.note_calls(&layer.after),
            }
        }
    }

    /// Notes the events `calls` call, for the prototypes.
    fn note_calls(&mut self, calls: &[Call]) {
        for call in calls {
            if !self.events.contains(call.event) {
                self.events.insert(call.event.to_owned());
            }
        }
    }

    fn line_marker(&self, line: usize) -> String {
        let mut text = String::new();
        self.push_line_marker(&mut text, line);
        text
    }

    /// The marker resuming the numbering of the input's line `line`
    /// (physical, 1-based) as the input's own markers give it.
    fn push_line_marker(&self, text: &mut String, line: usize) {
        if self.config.line_markers {
            self.file.push_line_marker(text, line);
        }
    }

    fn call(&self, region: &Region, call: &Call) -> String {
        let mut text = String::with_capacity(96);
        self.write_call(&mut text, region, call);
        text
    }

    /// A call, written without a string per argument: a dense file makes
    /// tens of thousands of them.
    fn write_call(&self, text: &mut String, region: &Region, call: &Call) {
        use std::fmt::Write as _;
        self.plan.push_function(text, call.event);
        text.push('(');
        for (i, arg) in call.args.iter().enumerate() {
            if i > 0 {
                text.push_str(", ");
            }
            match arg {
                Arg::Handle => {
                    text.push('&');
                    text.push_str(&region.handle);
                }
                Arg::Ctc => {
                    let _ = write!(text, "pomp2_ctc_{}", region.id);
                }
                Arg::OldTask => text.push_str("pomp2_old_task"),
                Arg::OldTaskRef => text.push_str("&pomp2_old_task"),
                Arg::NewTask => text.push_str("pomp2_new_task"),
                Arg::NewTaskRef => text.push_str("&pomp2_new_task"),
                Arg::If => text.push_str("pomp2_if"),
                Arg::NumThreads => text.push_str("pomp2_num_threads"),
            }
        }
        text.push_str(");");
    }

    /// The calls, one space apart, appended to `text`.
    fn push_calls(&mut self, text: &mut String, region: &Region, calls: &[Call]) {
        if self.noting {
            self.note_calls(calls);
        }
        for (i, c) in calls.iter().enumerate() {
            if i > 0 {
                text.push(' ');
            }
            self.write_call(text, region, c);
        }
    }

    fn push_implicit_barrier(&mut self, text: &mut String, region: &Region) {
        let pair = &self.plan.implicit_barrier;
        if self.plan.interface == Interface::Pomp2 {
            text.push_str("{ POMP2_Task_handle pomp2_old_task; ");
        }
        self.push_calls(text, region, &pair.before);
        text.push_str("\n#pragma omp barrier\n");
        self.push_calls(text, region, &pair.after);
        text.push_str(match self.plan.interface {
            Interface::Pomp2 => " }\n",
            Interface::Pomp1 | Interface::Pomp1Paper => "\n",
        });
    }

    /// The declarations of `vars`, one space apart, appended to `text`.
    fn push_declarations(text: &mut String, vars: &[Var]) {
        for (i, v) in vars.iter().enumerate() {
            if i > 0 {
                text.push(' ');
            }
            let (before, expression, after) = match v {
                Var::NumThreads(Some(e)) => ("int pomp2_num_threads = (", e.as_str(), ");"),
                Var::NumThreads(None) => ("int pomp2_num_threads = omp_get_max_threads();", "", ""),
                Var::NumThreadsFromTeams => ("int pomp2_num_threads = ", MAX_THREADS_VAR, ";"),
                Var::MaxThreads => ("int ", MAX_THREADS_VAR, " = omp_get_max_threads();"),
                Var::If(Some(e)) => ("int pomp2_if = (int)(", e.as_str(), ");"),
                Var::If(None) => ("int pomp2_if = 1;", "", ""),
                Var::OldTask => ("POMP2_Task_handle pomp2_old_task;", "", ""),
                Var::NewTask => ("POMP2_Task_handle pomp2_new_task;", "", ""),
            };
            text.push_str(before);
            text.push_str(expression);
            text.push_str(after);
        }
    }

    /// What `body` appends to `text`, whole lines, placed at `at` so that
    /// it is compiled exactly when the code at each of `from` is.
    fn push_under_conditions(
        &mut self,
        text: &mut String,
        from: &[usize],
        at: usize,
        body: impl FnOnce(&mut Self, &mut String),
    ) {
        let condition = self.model.condition_at(from, at);
        if let Some(condition) = &condition {
            text.push_str("#if ");
            text.push_str(condition);
            text.push('\n');
        }
        body(self, text);
        if condition.is_some() {
            text.push_str("#endif\n");
        }
    }

    /// Where a user region's begin and end directives are.
    fn user_region_sites(&self, region: usize) -> Vec<usize> {
        let region = &self.plan.regions[region];
        (region.site.into_iter())
            .chain(region.end_site)
            .map(|s| self.model.sites[s].span.start)
            .collect()
    }

    /// The directive lines of `site` replaced by `lead` and `directive`
    /// written again, on a line of its own and followed by a line marker
    /// back to the source; the edit order and origin of that edit, for
    /// edits that belong with it.
    fn directive_written_again(
        &mut self,
        site: usize,
        lead: &str,
        directive: &crate::directive::Directive,
    ) -> (i64, Origin) {
        let lines = self.model.sites[site].lines.clone();
        let mut text = String::new();
        if !self.file.starts_line(lines.start) {
            text.push('\n');
        }
        text.push_str(lead);
        let directive_line = self.file.line_of(self.model.sites[site].span.start);
        self.push_pragma(&mut text, directive, directive_line);
        text.push_str(&self.line_marker(self.file.line_of(lines.end)));
        let order = super::writing::nesting_depth(self.model, site);
        let origin = Origin::Site { site, region: None };
        self.edits.replace(lines, text, order, origin.clone());
        (order, origin)
    }

    /// Appends a directive as a `#pragma` line of its own, numbered as the
    /// user's.
    fn push_pragma(&self, text: &mut String, directive: &crate::directive::Directive, line: usize) {
        self.push_line_marker(text, line);
        text.push_str(match directive.sentinel {
            crate::directive::Sentinel::Omp => "#pragma omp ",
            crate::directive::Sentinel::Pomp => "#pragma pomp ",
        });
        directive.render_into(text);
        text.push('\n');
    }

    /// The text that opens `layers`, outermost first, appended to `text`;
    /// the directives are numbered as the user's line `line`.
    fn push_opening(&mut self, text: &mut String, region: &Region, layers: &[Layer], line: usize) {
        for step in opening_steps(layers) {
            match step {
                Opening::OuterScope(layer) => {
                    text.push_str("{ ");
                    Self::push_declarations(text, &layer.vars);
                    if !layer.vars.is_empty() {
                        text.push(' ');
                    }
                    self.push_calls(text, region, &layer.before);
                    text.push('\n');
                }
                Opening::Directive(directive) => self.push_pragma(text, directive, line),
                Opening::InnerScope(layer) => {
                    text.push_str("{ ");
                    self.push_calls(text, region, &layer.begin);
                    text.push('\n');
                }
            }
        }
    }

    /// The text that closes `layers`, innermost first, appended to `text`.
    fn push_closing(&mut self, text: &mut String, region: &Region, layers: &[Layer]) {
        for step in closing_steps(layers) {
            match step {
                Closing::ImplicitBarrier => self.push_implicit_barrier(text, region),
                Closing::InnerEnd(layer) => {
                    self.push_calls(text, region, &layer.end);
                    text.push_str(" }\n");
                }
                Closing::OuterEnd(layer) => {
                    self.push_calls(text, region, &layer.after);
                    text.push_str(" }\n");
                }
            }
        }
    }

    /// The type of a region's handle in the chosen interface.
    fn handle_type(&self) -> &'static str {
        match self.plan.interface {
            Interface::Pomp2 => "POMP2_Region_handle",
            Interface::Pomp1 | Interface::Pomp1Paper => "struct ompregdescr",
        }
    }

    /// The functions a function region's guard variable is cleaned up
    /// with: they end the region (and the program's, the measurement).
    fn push_cleanup_functions(&self, out: &mut String) {
        let end = self.plan.function(self.plan.user_region.end[0].event);
        let finalize = self.plan.function(rules().control["inst finalize"].event);
        for program in [false, true] {
            out.push_str("static __attribute__((unused)) void ");
            out.push_str(cleanup_function(program));
            out.push('(');
            out.push_str(self.handle_type());
            out.push_str("** pomp2_handle) { ");
            out.push_str(&end);
            out.push_str("(*pomp2_handle);");
            if program {
                out.push(' ');
                out.push_str(&finalize);
                out.push_str("();");
            }
            out.push_str(" }\n");
        }
    }

    /// What the code inserted into the file needs declared before it:
    /// headers, prototypes, the regions' handles and CTC strings;
    /// `at_marker` when they take the place of a preprocessed file's
    /// [`super::writing::PREPROCESSED_MARKER`], after its headers.
    fn preamble(&self, at_marker: bool) -> String {
        // A handle and a CTC string for each region: sized once, as a file
        // dense with directives makes megabytes of them. A CTC string
        // names the file twice; room the text does not take is never
        // touched, so the estimate errs large.
        let per_region: usize = (self.plan.regions.iter())
            .map(|r| r.handle.len() + 2 * self.file.path.as_os_str().len() + 320)
            .sum();
        let mut out = String::with_capacity(per_region + 4096);
        // A preprocessed file has included its headers, their include
        // guards gone: they must not come again. What pomp's code takes
        // from them is declared here instead, in the types they give it.
        let preprocessed = self.config.preprocessed || self.file.is_preprocessed();
        let int64 = match preprocessed {
            true => "__INT64_TYPE__",
            false => "int64_t",
        };
        if !preprocessed {
            out.push_str("#include <omp.h>\n");
            if self.plan.interface == Interface::Pomp2 {
                out.push_str("#include <stdint.h>\n");
            }
        }
        out.push_str("#ifndef _POMP\n#define _POMP 200110\n#endif\n");
        out.push_str("#ifdef __cplusplus\nextern \"C\" {\n#endif\n");
        match self.plan.interface {
            Interface::Pomp2 => {
                out.push_str("typedef void* POMP2_Region_handle;\ntypedef ");
                out.push_str(int64);
                out.push_str(" POMP2_Task_handle;\n");
            }
            Interface::Pomp1 | Interface::Pomp1Paper => out.push_str(POMP1_DESCRIPTOR),
        }
        if preprocessed && self.max_threads_undeclared() {
            out.push_str("int omp_get_max_threads(void);\n");
        }
        let mut events: Vec<&str> = self.events.iter().map(String::as_str).collect();
        events.sort_unstable();
        // Before a preprocessed file's own `omp.h`, unless it marks where
        // its headers end.
        let lock_types_declared = !preprocessed || at_marker;
        for event in events {
            out.push_str(&prototype(self.plan, event, lock_types_declared));
            out.push('\n');
        }
        if self.plan.registration().is_some() {
            out.push_str("void POMP2_Assign_handle(POMP2_Region_handle*, const char*);\n");
        }
        if self.plan.user_registration().is_some() {
            out.push_str("void POMP2_USER_Assign_handle(POMP2_Region_handle*, const char*);\n");
        }
        if let Some(name) = &self.plan.thread_private {
            // The library's variable, as OPARI2 declares it.
            out.push_str(&format!(
                "extern {int64} __attribute__((aligned(16))) {name};\n#pragma omp threadprivate({name})\n"
            ));
        }
        out.push_str("#ifdef __cplusplus\n}\n#endif\n");
        if !self.plan.functions.is_empty() {
            self.push_cleanup_functions(&mut out);
        }
        match self.plan.interface {
            Interface::Pomp2 => {
                let mut id = itoa::Buffer::new();
                let mut scratch = String::new();
                for region in &self.plan.regions {
                    out.push_str("static POMP2_Region_handle ");
                    out.push_str(&region.handle);
                    out.push_str(" = 0;\n#define pomp2_ctc_");
                    out.push_str(id.format(region.id));
                    out.push_str(" \"");
                    self.plan.push_ctc(region, &mut scratch, &mut out);
                    out.push_str("\"\n");
                }
            }
            // Defined last to first, so each can point to the next.
            Interface::Pomp1 | Interface::Pomp1Paper => {
                for (i, region) in self.plan.regions.iter().enumerate().rev() {
                    let next = self.plan.regions.get(i + 1);
                    out.push_str(&self.descriptor(region, next));
                }
            }
        }
        out
    }

    /// Whether a preprocessed file calls `omp_get_max_threads` in pomp's
    /// code before its headers declare it. A C++ `omp.h` may declare it
    /// with an exception specification that must then be the only one
    /// (gcc's says `noexcept`, clang's nothing), so it is declared here
    /// only where no library's header did before.
    fn max_threads_undeclared(&self) -> bool {
        let calls = |layer: &Layer| {
            (layer.vars.iter()).any(|v| matches!(v, Var::NumThreads(None) | Var::MaxThreads))
        };
        let Some(first_call) = (self.plan.constructs.iter())
            .filter(|c| c.layers.iter().any(calls))
            .map(|c| self.model.sites[c.site].span.start)
            .min()
        else {
            return false;
        };
        let bytes = &self.file.bytes[..first_call];
        let name = b"omp_get_max_threads";
        !whole_words(bytes, 0..bytes.len(), name).any(|at| self.file.in_library_header(at))
    }

    /// A region's static context descriptor of the original interface.
    fn descriptor(&self, region: &Region, next: Option<&Region>) -> String {
        let fields = super::writing::Pomp1Descriptor::of(self.model, region);
        let next = next.map_or("0".to_string(), |n| format!("&{}", n.handle));
        // OPARI 1.1's library finds them through the link-time table.
        let linkage = match self.plan.interface {
            Interface::Pomp1 => "",
            _ => "static ",
        };
        format!(
            "{linkage}struct ompregdescr {} = {{ {}, {}, {}, {}, {}, {}, {}, {}, 0, {next} }};\n",
            region.handle,
            c_string_literal(&fields.name),
            c_string_literal(&fields.sub_name),
            fields.num_sections,
            c_string_literal(self.plan.file_name(&region.start_lines)),
            region.start_lines.first,
            region.start_lines.last,
            region.end_lines.first,
            region.end_lines.last,
        )
    }

    /// The registration functions: one assigning the handles of the
    /// construct regions, one those of the user regions, which OPARI2's
    /// libraries read with a parser of their own.
    fn init_function(&self) -> String {
        // Sized once for both functions: a line for each region, and each
        // function's head. Room asked again for the second would grow the
        // text past it, copying what the first wrote into twice the room.
        let per_region: usize = (self.plan.regions.iter())
            .map(|r| r.handle.len() + 64)
            .sum();
        let mut out = String::with_capacity(per_region + 512);
        for (function, user) in [
            (self.plan.registration(), false),
            (self.plan.user_registration(), true),
        ] {
            let Some(init_function) = function else {
                continue;
            };
            let assign = if user {
                "    POMP2_USER_Assign_handle(&"
            } else {
                "    POMP2_Assign_handle(&"
            };
            out.push_str("#ifdef __cplusplus\nextern \"C\"\n#endif\n");
            out.push_str(&format!("void {init_function}(void);\n"));
            out.push_str("#ifdef __cplusplus\nextern \"C\"\n#endif\n");
            out.push_str(&format!("void {init_function}(void)\n{{\n"));
            let mut id = itoa::Buffer::new();
            for region in self.plan.regions.iter().filter(|r| r.user == user) {
                out.push_str(assign);
                out.push_str(&region.handle);
                out.push_str(", pomp2_ctc_");
                out.push_str(id.format(region.id));
                out.push_str(");\n");
            }
            out.push_str("}\n");
        }
        out
    }
}

/// A step of opening a construct's layers.
enum Opening<'l> {
    /// A layer's outer scope: the values it evaluates first, and its
    /// before calls.
    OuterScope(&'l Layer),
    /// A layer's directive, written again.
    Directive(&'l crate::directive::Directive),
    /// A layer's inner scope, and its begin calls.
    InnerScope(&'l Layer),
}

/// The steps that open `layers`, outermost first: what the opening text
/// writes, and what the events noted before it is made must cover.
fn opening_steps(layers: &[Layer]) -> impl Iterator<Item = Opening<'_>> {
    layers.iter().flat_map(|layer| {
        [
            layer
                .needs_outer_scope()
                .then_some(Opening::OuterScope(layer)),
            layer.directive.as_ref().map(Opening::Directive),
            layer
                .needs_inner_scope()
                .then_some(Opening::InnerScope(layer)),
        ]
        .into_iter()
        .flatten()
    })
}

/// A step of closing a construct's layers.
enum Closing<'l> {
    /// An implicit barrier written out, with its calls around it.
    ImplicitBarrier,
    /// The end calls of a layer's inner scope, and its brace.
    InnerEnd(&'l Layer),
    /// The after calls of a layer's outer scope, and its brace.
    OuterEnd(&'l Layer),
}

/// The steps that close `layers`, innermost first: what the closing text
/// writes, and what the events noted before it is made must cover.
fn closing_steps(layers: &[Layer]) -> impl Iterator<Item = Closing<'_>> {
    layers.iter().enumerate().rev().flat_map(move |(i, layer)| {
        let inner = layer.needs_inner_scope();
        let inner_barrier = layers.get(i + 1).is_some_and(|l| l.add_nowait);
        let barrier_before_end = inner && layer.barrier_before_end && !inner_barrier;
        [
            barrier_before_end.then_some(Closing::ImplicitBarrier),
            inner.then_some(Closing::InnerEnd(layer)),
            layer.barrier_after.then_some(Closing::ImplicitBarrier),
            layer
                .needs_outer_scope()
                .then_some(Closing::OuterEnd(layer)),
        ]
        .into_iter()
        .flatten()
    })
}

/// A statement that is a construct's block is measured inside the
/// construct: what opens a loop or call region comes after the code
/// opening the constructs whose block the statement is (ordered by their
/// depth, from zero up), and what closes a call region before the code
/// closing them (ordered by their depth, from zero down).
const STATEMENT_ENTRY_ORDER: i64 = i64::MAX / 2;
const STATEMENT_EXIT_ORDER: i64 = i64::MIN / 2;
/// No construct holds a loop region, but a loop holds constructs: what
/// closes it comes after the code closing those that end where it ends,
/// and before the opening of a statement right after it.
const LOOP_EXIT_ORDER: i64 = 1;

/// The cleanup function of a function region's guard variable.
fn cleanup_function(program: bool) -> &'static str {
    match program {
        true => "pomp2_end_program",
        false => "pomp2_end_function",
    }
}

/// The context descriptor of the original interface, field by field as
/// the proposal lists them.
const POMP1_DESCRIPTOR: &str = "struct ompregdescr {
    const char* name;
    const char* sub_name;
    int num_sections;
    const char* file_name;
    int begin_first_line;
    int begin_last_line;
    int end_first_line;
    int end_last_line;
    void* data;
    struct ompregdescr* next;
};
";

/// The C prototype of an event or lock wrapper, as the contract gives it;
/// the original interface passes a region's descriptor instead, or nothing
/// to control calls.
/// The prototype of `event`'s function. Where the OpenMP library's lock
/// types are not declared yet (at the top of a preprocessed file, before
/// the `omp.h` it included), its locks are passed as `void*`, which a
/// pointer to either lock becomes in C and C++ alike.
fn prototype(plan: &NamedPlan, event: &str, lock_types_declared: bool) -> String {
    let function = plan.function(event);
    let known = pomp2::events::find(event).unwrap_or_else(|| {
        panic!("`{event}` is no POMP2 function: grammars/rules.toml and the contract disagree")
    });
    let locks = known.params.iter().any(|p| {
        matches!(
            p,
            pomp2::events::Param::Lock | pomp2::events::Param::NestLock
        )
    });
    if locks && !lock_types_declared {
        use pomp2::events::Param;
        return known.c_prototype_with(&function, |param| match param {
            Param::Lock | Param::NestLock => "void*",
            other => other.c_type(),
        });
    }
    if plan.interface == Interface::Pomp2 || locks {
        return known.c_prototype(&function);
    }
    let args = if known.params.is_empty() {
        "void"
    } else {
        "struct ompregdescr*"
    };
    format!("void {function}({args});")
}

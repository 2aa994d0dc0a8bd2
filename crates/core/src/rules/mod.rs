//! Rules: which POMP2 events go where. From the front end's [`Model`] to a
//! language-neutral [`Plan`]; the output stage renders the plan as C or
//! Fortran text. The events of each construct are data in
//! `grammars/rules.toml`; this module only applies them.

mod config;
mod ctc;
mod split;
pub mod table;

use crate::diagnostics::Diagnostic;
use crate::directive::{table as directive_table, Association, Clause, Directive, Role, Team};
use crate::model::{DirectiveForm, LockCall, Model, Site};
use crate::source::{SourceFile, Span};
pub use config::{Config, EventSet, Interface, Library, FORTRAN_THREAD_PRIVATE};
pub use pomp2::ctc::ImplicitBarrier;
use std::borrow::Cow;
pub use table::{rules, Arg, Call, EventFamily, Pair, Shape};

/// A measured region: one per instrumented construct (a combined construct
/// is one region) and one per user region.
#[derive(Clone, Debug)]
pub struct Region {
    /// 1-based, in file order.
    pub id: usize,
    /// The opening site.
    pub site: usize,
    /// The closing site for user regions (`inst end`) and Fortran end
    /// directives.
    pub end_site: Option<usize>,
    pub region_type: String,
    /// The type OPARI2's CTC parser is shown: one of its region types.
    pub opari2_type: String,
    /// A user region, registered with `POMP2_USER_Assign_handle`.
    pub user: bool,
    /// C identifier of the handle variable.
    pub handle: String,
    /// Region id of the innermost enclosing region.
    pub parent: Option<usize>,
    /// Critical name or user region name.
    pub name: Option<String>,
    pub start_lines: (usize, usize),
    pub end_lines: (usize, usize),
    /// Key/value pairs beyond type and position (numSections, ...).
    pub aux: Vec<(String, String)>,
    /// The enclosing function or program unit.
    pub unit: Option<String>,
    /// How the waiting at the construct's closing barrier is measured, when
    /// it has one that is measured.
    pub implicit_barrier: Option<ImplicitBarrier>,
}

/// Variables instrumented code evaluates before a directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Var {
    /// `num_threads` value: the user's expression, or `None` for the
    /// default (the maximum number of threads).
    NumThreads(Option<String>),
    /// The default `num_threads` of a parallel region strictly inside a
    /// `teams` region, where no OpenMP runtime routine may be called: the
    /// [`Var::MaxThreads`] evaluated before the `teams` construct.
    NumThreadsFromTeams,
    /// The maximum number of threads, evaluated before a `teams` construct
    /// for the parallel regions strictly inside it.
    MaxThreads,
    /// `if` value: the user's expression, or `None` for true.
    If(Option<String>),
    OldTask,
    NewTask,
}

/// One leaf construct of an instrumented directive, with its calls.
#[derive(Clone, Debug)]
pub struct Layer {
    pub rule: String,
    /// The directive to write, with clauses distributed and rewritten;
    /// `None` for an implicit first section, which has no directive.
    pub directive: Option<Directive>,
    pub shape: Shape,
    pub vars: Vec<Var>,
    /// The rule's own calls under POMP2, borrowed: a file dense with
    /// constructs would copy them thousands of times.
    pub before: Cow<'static, [Call]>,
    pub begin: Cow<'static, [Call]>,
    pub end: Cow<'static, [Call]>,
    pub after: Cow<'static, [Call]>,
    /// `nowait` was added to the directive ...
    pub add_nowait: bool,
    /// ... and its implicit barrier is called explicitly between the block
    /// and `after`, unless the enclosing parallel region's closing barrier
    /// serves both and is inferred.
    pub barrier_after: bool,
    /// The parallel construct's own implicit barrier, called before `end`.
    pub barrier_before_end: bool,
}

impl Layer {
    pub fn is_instrumented(&self) -> bool {
        !(self.before.is_empty()
            && self.begin.is_empty()
            && self.end.is_empty()
            && self.after.is_empty())
    }

    /// Does the layer need a compound statement of its own around the
    /// directive (for variables and calls before and after)?
    pub fn needs_outer_scope(&self) -> bool {
        !self.vars.is_empty()
            || !self.before.is_empty()
            || !self.after.is_empty()
            || self.barrier_after
    }

    /// Does the layer need braces inside the construct, around the block?
    pub fn needs_inner_scope(&self) -> bool {
        self.shape == Shape::Block
            && (!self.begin.is_empty() || !self.end.is_empty() || self.barrier_before_end)
    }

    pub fn calls(&self) -> impl Iterator<Item = &Call> {
        self.before
            .iter()
            .chain(self.begin.iter())
            .chain(self.end.iter())
            .chain(self.after.iter())
    }
}

/// An instrumented directive occurrence.
#[derive(Clone, Debug)]
pub struct Construct {
    pub site: usize,
    /// Index into [`Plan::regions`].
    pub region: usize,
    pub layers: Vec<Layer>,
}

/// A directive rewritten without instrumentation: it is not instrumented
/// (disabled, or unknown to the chosen interface), yet its `default` clause
/// would reject or privatise the handles that instrumented code inside it
/// uses, so it gets a `shared` clause; or it shares a C++ attribute with
/// directives that are rewritten.
#[derive(Clone, Debug)]
pub struct BareDirective {
    pub site: usize,
    pub directive: Directive,
}

/// A directive that is not instrumented yet needs values evaluated before
/// it, in a scope around its construct: a `teams` construct whose parallel
/// regions may not call the runtime for their number of threads.
#[derive(Clone, Debug)]
pub struct ValueScope {
    pub site: usize,
    pub vars: Vec<Var>,
    /// The directive to write, its clauses rewritten where the variables
    /// need it.
    pub directive: Directive,
}

/// A jump out of user regions that must close them first.
#[derive(Clone, Debug)]
pub struct RegionExit {
    pub span: Span,
    /// Regions to close, innermost first (indexes into [`Plan::regions`]).
    pub regions: Vec<usize>,
}

/// What a pomp directive line becomes.
#[derive(Clone, Debug)]
pub enum PompAction {
    /// A control call (`POMP2_Init()` ...).
    Call(Call),
    /// `Begin`/`End` of a user region (index into [`Plan::regions`]).
    UserBegin(usize),
    UserEnd(usize),
    /// Consumed by pomp (noinstrument/instrument): removed.
    Remove,
}

impl PompAction {
    /// The user region the action opens or closes.
    pub fn region(&self) -> Option<usize> {
        match self {
            PompAction::UserBegin(r) | PompAction::UserEnd(r) => Some(*r),
            PompAction::Call(_) | PompAction::Remove => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Plan {
    pub regions: Vec<Region>,
    pub constructs: Vec<Construct>,
    pub pomp_directives: Vec<(usize, PompAction)>,
    pub region_exits: Vec<RegionExit>,
    pub bare_directives: Vec<BareDirective>,
    pub value_scopes: Vec<ValueScope>,
    pub lock_calls: Vec<LockCall>,
    pub diagnostics: Vec<Diagnostic>,
    /// Whether the file's names need its unique part: hashing a large file
    /// is the main cost when nothing in it is instrumented.
    needs_name: bool,
    pub interface: Interface,
    /// The calls around an implicit barrier made explicit, and around a
    /// user region, in the chosen interface.
    pub implicit_barrier: Pair,
    pub user_region: Pair,
    /// The library's thread-private variable every parallel region copies
    /// in, by its C name (see [`Config::thread_private`]).
    pub thread_private: Option<String>,
    /// What stays unmeasured because the measurement library defines no
    /// events for it: leaf constructs by their rules' names, `user
    /// regions`, `lock routines`.
    pub unmeasured: std::collections::BTreeSet<String>,
    /// What the regions' CTC strings are made of beyond the regions: the
    /// file's path, and whether they carry pomp's extended keys.
    ctc_path: String,
    ctc_extended: bool,
}

impl Plan {
    fn new(file: &SourceFile, model: &Model, options: &Config) -> Plan {
        let interface = options.interface;
        let rules = rules();
        let (implicit_barrier, user_region) = match interface {
            Interface::Pomp2 => (rules.implicit_barrier.clone(), rules.user_region.clone()),
            Interface::Pomp1 | Interface::Pomp1Paper => (
                rules.pomp1.pair(&rules.implicit_barrier),
                rules.pomp1.pair(&rules.user_region),
            ),
        };
        // Nearly every directive makes a construct and a region: sized once,
        // not grown, they are never copied.
        Plan {
            regions: Vec::with_capacity(model.sites.len()),
            constructs: Vec::with_capacity(model.sites.len()),
            pomp_directives: vec![],
            region_exits: vec![],
            bare_directives: vec![],
            value_scopes: vec![],
            lock_calls: vec![],
            diagnostics: vec![],
            needs_name: !(model.sites.is_empty() && model.lock_calls.is_empty()),
            interface,
            implicit_barrier,
            user_region,
            thread_private: options.thread_private.clone(),
            unmeasured: Default::default(),
            ctc_path: file.path.to_string_lossy().into_owned(),
            ctc_extended: options.events == EventSet::Extended,
        }
    }

    /// The prefix of every event's name in the chosen interface.
    pub fn prefix(&self) -> &'static str {
        match self.interface {
            Interface::Pomp2 => "POMP2_",
            Interface::Pomp1 => "pomp_",
            Interface::Pomp1Paper => "POMP_",
        }
    }

    /// The function instrumented code calls for `event` (a name after the
    /// prefix, as the rules spell it): `POMP2_Parallel_fork`, or in OPARI
    /// 1.1's library, all in lower case, `pomp_parallel_fork`.
    pub fn function(&self, event: &str) -> String {
        let mut name = String::with_capacity(self.prefix().len() + event.len());
        self.push_function(&mut name, event);
        name
    }

    /// [`Plan::function`], appended to `out`.
    pub fn push_function(&self, out: &mut String, event: &str) {
        out.push_str(self.prefix());
        match self.interface {
            Interface::Pomp1 => out.extend(event.chars().map(|c| c.to_ascii_lowercase())),
            Interface::Pomp2 | Interface::Pomp1Paper => out.push_str(event),
        }
    }

    /// The plan with the names of `file`, the file it was made for, as
    /// output and descriptors need them.
    pub fn named(self, file: &SourceFile) -> NamedPlan {
        let unique = match self.needs_name {
            true => unique_name(file),
            false => String::new(),
        };
        NamedPlan { plan: self, unique }
    }
}

/// A plan with the file's names: what the edits and the IDF are made
/// from. Checking a file (an editor after each change) needs no names.
#[derive(Clone, Debug)]
pub struct NamedPlan {
    pub plan: Plan,
    /// Deterministic unique part of this file's names (`POMP2_Init_reg_...`);
    /// empty when nothing is instrumented (see [`unique_name`]).
    pub unique: String,
}

impl std::ops::Deref for NamedPlan {
    type Target = Plan;
    fn deref(&self) -> &Plan {
        &self.plan
    }
}

impl NamedPlan {
    /// The CTC string of `region`, one of this plan's, without quotes;
    /// with pomp's extended events it also carries the region's IDF id,
    /// enclosing unit and barrier form.
    pub fn ctc(&self, region: &Region) -> String {
        let mut string = String::new();
        self.push_ctc(region, &mut String::new(), &mut string);
        string
    }

    /// [`NamedPlan::ctc`] appended to `out`, written through `scratch`: an
    /// output that writes each string once need not hold them.
    pub fn push_ctc(&self, region: &Region, scratch: &mut String, out: &mut String) {
        let pomp_id = self.ctc_extended.then(|| self.region_id(region.id));
        ctc::push_ctc_string(&self.ctc_path, region, pomp_id.as_ref(), scratch, out);
    }

    /// The function assigning the handles of the file's construct regions.
    pub fn init_function(&self) -> String {
        let constructs = self.regions.iter().filter(|r| !r.user).count();
        pomp2::registration::InitFunction::new(&self.unique, constructs).symbol
    }

    /// The function assigning the handles of the file's user regions.
    pub fn user_init_function(&self) -> String {
        let users = self.regions.iter().filter(|r| r.user).count();
        pomp2::registration::InitFunction::new_user(&self.unique, users).symbol
    }

    /// The id joining a region (by its 1-based number) with its IDF entry
    /// and its profile.
    pub fn region_id(&self, number: usize) -> pomp2::RegionId {
        pomp2::RegionId::new(&self.unique, number)
    }

    /// The registration function the link step calls, if the file has
    /// construct regions (the original interface has none: its
    /// descriptors are data the link step finds).
    pub fn registration(&self) -> Option<String> {
        (self.interface == Interface::Pomp2 && self.regions.iter().any(|r| !r.user))
            .then(|| self.init_function())
    }

    /// The registration function of the file's user regions, if it has any.
    pub fn user_registration(&self) -> Option<String> {
        (self.interface == Interface::Pomp2 && self.regions.iter().any(|r| r.user))
            .then(|| self.user_init_function())
    }

    /// Every registration function the file defines.
    pub fn registrations(&self) -> Vec<String> {
        self.registration()
            .into_iter()
            .chain(self.user_registration())
            .collect()
    }
}

/// The region type of user regions: the one their opening directive names.
fn user_region_type() -> &'static str {
    directive_table()
        .directive
        .iter()
        .find(|d| d.role == Some(Role::UserRegionBegin))
        .and_then(|d| d.region_type.as_deref())
        .expect("the directive table has a user region")
}

/// Does a set of construct and group names (`--disable`) name the leaf
/// construct `rule` of a construct of `region_type`? `omp` names all.
fn names(set: &std::collections::BTreeSet<String>, rule: &str, region_type: &str) -> bool {
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

/// The iteration variables that splitting `directive` into `split` lists
/// in a clause although `directive` names them nowhere.
fn newly_listed_iteration_variables(
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
fn lists_variable(directive: &Directive, variable: &str) -> bool {
    directive
        .clauses
        .iter()
        .flat_map(|c| c.list_items())
        .any(|item| item.eq_ignore_ascii_case(variable))
}

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
        listed_iteration_variables: Vec::new(),
        // OPARI 1.1's library finds C descriptors through a table the link
        // step makes: they are named after the file.
        descriptor_names: (options.interface == Interface::Pomp1).then(|| unique_name(file)),
    };
    planner.run();
    planner.plan
}

/// Hash of path and content: the same input always gives the same names,
/// so instrumented builds cache and distribute.
pub fn unique_name(file: &SourceFile) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    hasher.update(file.path.to_string_lossy().as_bytes());
    hasher.update([0]);
    hasher.update(file.content_sha256());
    crate::source::hex(&hasher.finalize()[..8])
}

struct Planner<'a> {
    file: &'a SourceFile,
    model: &'a Model,
    options: &'a Config,
    plan: Plan,
    site_region: Vec<Option<usize>>,
    /// `teams` sites whose parallel regions need [`Var::MaxThreads`].
    teams_max_threads: std::collections::BTreeSet<usize>,
    /// The file's unique name part, for the original interface's
    /// descriptors (the same [`Plan::named`] gives it).
    descriptor_names: Option<String>,
    /// Combined loop constructs whose splitting lists iteration variables
    /// on an enclosing leaf, with those variables.
    listed_iteration_variables: Vec<(usize, Vec<String>)>,
}

/// The warning that an untied task was made tied.
pub const UNTIED_MADE_TIED: &str = "untied task made tied";

/// The name of [`Var::MaxThreads`] in inserted code.
pub const MAX_THREADS_VAR: &str = "pomp2_max_threads";

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
                    format!("`{}` is not instrumented", site.directive.name),
                    "the construct it selects is only known at compile time",
                ));
                continue;
            }
            self.construct(index, site);
        }
        for (name, index) in user_stack {
            let site = &self.model.sites[self.plan.regions[index].site];
            self.plan.diagnostics.push(
                Diagnostic::error(
                    site.span.clone(),
                    format!("user region `{name}` is never closed"),
                    "opened here",
                )
                .with_note(format!("add `inst end({name})` where the region ends")),
            );
        }
        self.shared_handles_for_default_clauses();
        self.max_threads_before_teams();
        self.private_iteration_variables_where_predetermined();
        self.rewrite_attribute_sequences_whole();
        self.lock_calls(&skipped);
        self.user_region_exits();
        self.parents();
    }

    /// Ranges where nothing is instrumented: device code and the stretches
    /// between `noinstrument` and `instrument`.
    fn skipped_ranges(&self) -> SkippedRanges {
        let mut ranges = self.model.no_insert.clone();
        let mut open: Option<usize> = None;
        for site in &self.model.sites {
            match site.directive.role() {
                Some(Role::StopInstrumenting) => open = open.or(Some(site.span.end)),
                Some(Role::ResumeInstrumenting) => {
                    if let Some(start) = open.take() {
                        ranges.push(start..site.span.start);
                    }
                }
                _ => {}
            }
        }
        if let Some(start) = open {
            ranges.push(start..self.file.bytes.len());
        }
        SkippedRanges::new(ranges)
    }

    fn disabled(&self, rule: &str, region_type: &str) -> bool {
        names(&self.options.disable, rule, region_type)
    }

    fn wanted(&self, name: &str, rule: &table::ConstructRule) -> bool {
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
    fn defines(&self, event: &str) -> bool {
        self.options
            .library
            .as_ref()
            .is_none_or(|library| library.defines(event, self.file.language.is_fortran()))
    }

    fn defines_all<'c>(&self, calls: impl IntoIterator<Item = &'c Call>) -> bool {
        calls.into_iter().all(|call| self.defines(call.event))
    }

    /// Are regions measured in OPARI2's structure? Then a combined
    /// construct's region is one of OPARI2's types (its other parts stay
    /// unmeasured, as OPARI2 leaves them) and every barrier a library must
    /// see is explicit: for `--pomp=opari2`, and for every library but
    /// pomp's runtime, which alone infers a parallel region's barrier.
    fn opari2_structure(&self) -> bool {
        self.options.events == EventSet::Opari2 || self.options.library.is_some()
    }

    /// The rule a leaf construct is measured by: its own, or its untied
    /// variant for a task kept untied.
    fn rule_name(&self, leaf: &str, directive: &Directive) -> String {
        let untied = rules()
            .construct
            .get(leaf)
            .and_then(|rule| rule.untied.clone())
            .filter(|_| {
                directive.has_clause("untied")
                    && self.options.keep_untied
                    && !self.options.interface.is_pomp1()
            });
        untied.unwrap_or_else(|| leaf.to_string())
    }

    /// For each leaf of a split construct, whether it stays unmeasured
    /// because OPARI2 has no region type for it together with the leaves
    /// before it: in OPARI2's structure, a construct's OPARI2 leaves are
    /// measured as far as they make one of its types (`parallel master`:
    /// the parallel region only).
    fn beyond_opari2_types(&self, split: &[(String, Directive)], region_type: &str) -> Vec<bool> {
        let mut beyond = vec![false; split.len()];
        if !self.opari2_structure() || self.options.interface != Interface::Pomp2 {
            return beyond;
        }
        let mut joined = String::new();
        let mut valid = true;
        for (index, (leaf, directive)) in split.iter().enumerate() {
            let name = self.rule_name(leaf, directive);
            let Some(rule) = rules().construct.get(&name) else {
                continue;
            };
            // A construct without a region of its own (`section`) is
            // measured in its enclosing construct's.
            if rule.set != EventFamily::Opari2 || !rule.region || self.disabled(leaf, region_type) {
                continue;
            }
            joined.push_str(&rule.opari2_type(&name));
            valid = valid && pomp2::ctc::opari2::is_region_type(&joined);
            beyond[index] = !valid;
        }
        beyond
    }

    /// The type OPARI2's parser is shown for a construct measured by
    /// `layers`: the OPARI2 type its measured OPARI2 leaves make as far as
    /// they make one, else the nearest type of its first measured leaf.
    fn opari2_type(&self, layers: &[Layer]) -> String {
        let mut joined = String::new();
        let mut best = None;
        let mut fallback = None;
        for layer in layers.iter().filter(|l| l.is_instrumented()) {
            let Some(rule) = rules().construct.get(&layer.rule) else {
                continue;
            };
            let word = rule.opari2_type(&layer.rule);
            if rule.set == EventFamily::Opari2 {
                joined.push_str(&word);
                if pomp2::ctc::opari2::is_region_type(&joined) {
                    best = Some(joined.clone());
                }
            } else if fallback.is_none() {
                fallback = Some(word.into_owned());
            }
        }
        let chosen = best.or(fallback).unwrap_or_else(|| "parallel".to_string());
        if chosen == "for" && self.file.language.is_fortran() {
            return "do".to_string();
        }
        chosen
    }

    fn construct(&mut self, index: usize, site: &Site) {
        if self.options.remove_tasks && site.directive.name == "task" {
            self.plan.pomp_directives.push((index, PompAction::Remove));
            if let Some(end) = site.end_site {
                self.plan.pomp_directives.push((end, PompAction::Remove));
            }
            return;
        }
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
        let beyond = self.beyond_opari2_types(&split, &region_type);
        for ((leaf, directive), beyond) in split.into_iter().zip(beyond) {
            layers.push(self.layer(site, &leaf, directive, &region_type, beyond));
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
            let opari2_type = self.opari2_type(&layers);
            let region = &mut self.plan.regions[region];
            region.implicit_barrier = implicit_barrier;
            region.opari2_type = opari2_type;
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
    fn iteration_variables<'s>(&self, site: &'s Site) -> &'s [String] {
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
    fn closing_barrier(&self, layers: &mut [Layer]) -> Option<ImplicitBarrier> {
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

    /// A compound directive pomp writes as several directives, with a
    /// clause the table does not know (on it or on its Fortran end
    /// directive): where the outer leaf takes such clauses, they went
    /// there and a note says so; elsewhere which part a clause belongs on
    /// is unknown, so the construct is refused.
    fn unknown_clause_placement(&mut self, site: &Site, layers: &[Layer]) -> bool {
        let table = directive_table();
        let outer = (layers[0].directive.as_ref())
            .map(|d| d.name.as_str())
            .filter(|name| table.takes_unknown_clauses(name));
        // A near miss of a clause the construct knows is a typo, which no
        // part may take: only other clauses (macros, most often) go out.
        let (placed, refused): (Vec<&Clause>, Vec<&Clause>) =
            site.directive.unknown_clauses().partition(|clause| {
                outer.is_some()
                    && crate::directive::similar_clause(
                        site.directive.spec(),
                        &clause.name,
                        self.file.language,
                    )
                    .is_none()
            });
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

    fn layer(
        &mut self,
        site: &Site,
        leaf: &str,
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
            .get(&rule_name)
            .filter(|r| self.wanted(&rule_name, r) && !self.disabled(leaf, region_type))
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
            self.plan.unmeasured.insert(rule_name.clone());
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
        if let (true, false, Some(name)) = (rule.fork, pomp1, &self.options.thread_private) {
            let name = if self.file.language.is_fortran() {
                FORTRAN_THREAD_PRIVATE
            } else {
                name.as_str()
            };
            directive.clauses.push(Clause::new("copyin", Some(name)));
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
    fn add_nowait(
        &mut self,
        site: &Site,
        rule: &table::ConstructRule,
        directive: &mut Directive,
    ) -> bool {
        if !rule.nowait || directive.has_clause("nowait") {
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

    /// The `teams` construct whose region `site` is strictly nested in,
    /// with no parallel region between.
    fn enclosing_teams(&self, site: &Site) -> Option<usize> {
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
    fn max_threads_before_teams(&mut self) {
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
    fn private_iteration_variables_where_predetermined(&mut self) {
        if !self.file.language.is_fortran() {
            return;
        }
        let table = directive_table();
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
            let unlisted: Vec<String> = variables
                .into_iter()
                .filter(|v| !lists_variable(&self.model.sites[enclosing].directive, v))
                .collect();
            if unlisted.is_empty() {
                continue;
            }
            let private = Clause::new("private", Some(&unlisted.join(", ")));
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

    fn parent_region(&self, site: &Site) -> Option<usize> {
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

    fn new_region(
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
        let end_directive = site.end_site.map(|e| &self.model.sites[e].directive);
        let aux = ctc::aux(self.model, site_index, &site.directive, end_directive);
        let user = site.directive.role() == Some(Role::UserRegionBegin);
        let region = Region {
            id,
            site: site_index,
            end_site,
            region_type: region_type.to_string(),
            opari2_type: if user {
                pomp2::ctc::opari2::USER_REGION.to_string()
            } else {
                region_type.to_string()
            },
            user,
            handle: match self.options.interface {
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

    fn pomp_directive(
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
            Some(Role::UserRegionBegin) => {
                let region_name = site.directive.argument.clone().unwrap_or_default();
                let region = self.new_region(index, site, user_region_type, None);
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
            None => match rules().control.get(&site.directive.name) {
                Some(call) if self.defines(call.event) && !disabled_pomp => PompAction::Call(*call),
                _ => PompAction::Remove,
            },
        };
        self.plan.pomp_directives.push((index, action));
    }

    fn close_user_region(&mut self, region: usize, end_site: usize) {
        let site = &self.model.sites[end_site];
        let lines = (
            self.file.line_of(site.span.start),
            self.file
                .line_of(site.span.end.max(site.span.start + 1) - 1),
        );
        let r = &mut self.plan.regions[region];
        r.end_site = Some(end_site);
        r.end_lines = lines;
    }

    /// `default(none)` (and `private`, `firstprivate`) would reject or
    /// privatise the file-scope handles the inserted calls use: list them
    /// as shared on every such construct, instrumented or not.
    fn shared_handles_for_default_clauses(&mut self) {
        let mut handle_sites: Vec<(Span, String)> = self
            .plan
            .constructs
            .iter()
            .map(|c| {
                (
                    self.model.sites[c.site].span.clone(),
                    self.plan.regions[c.region].handle.clone(),
                )
            })
            .chain(
                self.plan
                    .pomp_directives
                    .iter()
                    .filter_map(|(site, action)| match action {
                        PompAction::UserBegin(r) | PompAction::UserEnd(r) => Some((
                            self.model.sites[*site].span.clone(),
                            self.plan.regions[*r].handle.clone(),
                        )),
                        _ => None,
                    }),
            )
            .collect();
        if handle_sites.is_empty() {
            return;
        }
        handle_sites.sort_by_key(|(span, _)| span.start);
        // The handles used strictly inside a block, after `own`.
        let handles_within = |block: &Span, own: Option<&String>| {
            let mut handles: Vec<String> = own.into_iter().cloned().collect();
            let inside = handle_sites.partition_point(|(span, _)| span.start < block.start);
            for (span, handle) in handle_sites[inside..]
                .iter()
                .take_while(|(span, _)| span.start < block.end)
            {
                if span.end <= block.end && !handles.contains(handle) {
                    handles.push(handle.clone());
                }
            }
            handles
        };
        let mut instrumented = vec![false; self.model.sites.len()];
        for construct in &mut self.plan.constructs {
            instrumented[construct.site] = true;
            let site = &self.model.sites[construct.site];
            let Some(block) = site.block.clone() else {
                continue;
            };
            let own = &self.plan.regions[construct.region].handle;
            for layer in &mut construct.layers {
                let Some(directive) = layer.directive.as_mut() else {
                    continue;
                };
                if has_restrictive_default(directive) {
                    let handles = handles_within(&block, Some(own));
                    directive
                        .clauses
                        .push(Clause::new("shared", Some(&handles.join(", "))));
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
            let handles = handles_within(block, None);
            if handles.is_empty() {
                continue;
            }
            let mut directive = site.directive.clone();
            directive
                .clauses
                .push(Clause::new("shared", Some(&handles.join(", "))));
            self.plan.bare_directives.push(BareDirective {
                site: index,
                directive,
            });
        }
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

    fn lock_calls(&mut self, skipped: &SkippedRanges) {
        if self.disabled("locks", "locks") {
            return;
        }
        let (lock_calls, undefined): (Vec<LockCall>, Vec<LockCall>) = self
            .model
            .lock_calls
            .iter()
            .filter(|c| !skipped.covers(&c.span))
            .cloned()
            .partition(|c| self.defines(&crate::output::lock_wrapper(&c.name)));
        if !undefined.is_empty() {
            self.plan.unmeasured.insert("lock routines".to_string());
        }
        self.plan.lock_calls = lock_calls;
    }

    /// Every jump from inside a user region to outside it closes the
    /// region first. A jump that may land on either side cannot be closed
    /// correctly at the jump: it is reported instead.
    fn user_region_exits(&mut self) {
        let exits = &self.model.exits;
        let mut closing: Vec<Vec<(usize, usize)>> = vec![Vec::new(); exits.len()];
        for (index, region) in self.plan.regions.iter().enumerate() {
            let Some(end_site) = region.end_site else {
                continue;
            };
            if region.region_type != user_region_type() {
                continue;
            }
            let begin = &self.model.sites[region.site];
            let end = &self.model.sites[end_site];
            if begin.unit != end.unit {
                continue;
            }
            let inside = begin.span.end..end.span.start;
            // Visit only the exits inside.
            let first = exits.partition_point(|e| e.span.start < inside.start);
            for (at, exit) in exits[first..].iter().enumerate() {
                if exit.span.start >= inside.end {
                    break;
                }
                if exit.span.end > inside.end {
                    continue;
                }
                let leaving = exit.targets.iter().filter(|t| !inside.contains(t)).count();
                if leaving == exit.targets.len() {
                    closing[first + at].push((begin.span.start, index));
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
                open.sort_by_key(|(start, _)| std::cmp::Reverse(*start));
                self.plan.region_exits.push(RegionExit {
                    span: exit.span.clone(),
                    regions: open.into_iter().map(|(_, r)| r).collect(),
                });
            }
        }
    }

    fn parents(&mut self) {
        let mut parents = Vec::new();
        for region in &self.plan.regions {
            let mut site = self.model.sites[region.site].parent;
            let mut parent = None;
            while let Some(s) = site {
                if let Some(r) = self.site_region[s] {
                    parent = Some(self.plan.regions[r].id);
                    break;
                }
                site = self.model.sites[s].parent;
            }
            parents.push(parent);
        }
        for (region, parent) in self.plan.regions.iter_mut().zip(parents) {
            region.parent = parent;
        }
    }
}

/// Ranges where nothing is instrumented, sorted and with overlaps merged,
/// so that every question about them is a binary search.
struct SkippedRanges(Vec<Span>);

impl SkippedRanges {
    fn new(mut ranges: Vec<Span>) -> Self {
        ranges.sort_by_key(|r| r.start);
        let mut merged: Vec<Span> = Vec::with_capacity(ranges.len());
        for range in ranges {
            match merged.last_mut() {
                Some(last) if range.start < last.end => last.end = last.end.max(range.end),
                _ => merged.push(range),
            }
        }
        SkippedRanges(merged)
    }

    /// The range that starts last at or before `at`.
    fn last_starting_before(&self, at: usize, inclusive: bool) -> Option<&Span> {
        let count = self
            .0
            .partition_point(|r| r.start < at || (inclusive && r.start == at));
        count.checked_sub(1).map(|i| &self.0[i])
    }

    /// `at` lies inside a range, not on its edges.
    fn strictly_inside(&self, at: usize) -> bool {
        self.last_starting_before(at, false)
            .is_some_and(|r| at < r.end)
    }

    /// `span` lies wholly within a range.
    fn covers(&self, span: &Span) -> bool {
        self.last_starting_before(span.start, true)
            .is_some_and(|r| span.end <= r.end)
    }
}

fn vars_of(call: &Call) -> impl Iterator<Item = Var> + 'static {
    call.args.iter().filter_map(|a| match a {
        Arg::OldTask | Arg::OldTaskRef => Some(Var::OldTask),
        Arg::NewTask | Arg::NewTaskRef => Some(Var::NewTask),
        _ => None,
    })
}

/// Remove the `if` clause that applies to `leaf` and return its expression.
fn take_if(directive: &mut Directive, leaf: &str) -> Option<String> {
    let position = directive.clauses.iter().position(|c| {
        c.name == "if"
            && c.modifier_split()
                .0
                .is_none_or(|m| m.eq_ignore_ascii_case(leaf))
    })?;
    let clause = directive.clauses.remove(position);
    Some(clause.modifier_split().1.to_string())
}

fn take_clause(directive: &mut Directive, name: &str) -> Option<String> {
    let position = directive.clauses.iter().position(|c| c.name == name)?;
    directive.clauses.remove(position).args
}

#[cfg(test)]
mod ctc_tests;
#[cfg(test)]
mod tests;

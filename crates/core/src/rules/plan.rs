//! The plan: what the rules decide for a file, language-neutral, made
//! once and never changed. [`Plan::named`] adds the file's names.

use super::config::{Config, EventSet, Interface};
use super::table::{rules, Call, Pair, Shape};
use crate::diagnostics::Diagnostic;
use crate::directive::Directive;
use crate::model::{LockCall, Model};
use crate::source::{Lines, SourceFile, Span};
use pomp2::ctc::ImplicitBarrier;
use std::borrow::Cow;

/// A measured region: one per instrumented construct (a combined construct
/// is one region) and one per user region.
#[derive(Clone, Debug)]
pub struct Region {
    /// 1-based, in file order.
    pub id: usize,
    /// The opening site; `None` for a function region.
    pub site: Option<usize>,
    /// For a function region: the function (index into
    /// [`Model::functions`]).
    pub function: Option<usize>,
    /// The closing site for user regions (`inst end`) and Fortran end
    /// directives.
    pub end_site: Option<usize>,
    /// Borrowed from the tables where they name it: a file dense with
    /// constructs would copy the few names thousands of times.
    pub region_type: Cow<'static, str>,
    /// The type OPARI2's CTC parser is shown: one of its region types.
    pub opari2_type: Cow<'static, str>,
    /// A user region, registered with `POMP2_USER_Assign_handle`.
    pub user: bool,
    /// C identifier of the handle variable.
    pub handle: String,
    /// Region id of the innermost enclosing region.
    pub parent: Option<usize>,
    /// Critical name or user region name.
    pub name: Option<String>,
    /// The lines of the opening and of the closing, in the user's files.
    pub start_lines: Lines,
    pub end_lines: Lines,
    /// Key/value pairs beyond type and position (numSections, ...).
    pub aux: Vec<(String, String)>,
    /// The enclosing function or program unit.
    pub unit: Option<String>,
    /// For a region of code (`--regions`): what it measures.
    pub code_kind: Option<crate::model::CodeKind>,
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
    pub rule: &'static str,
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

/// A function measured as a user region: `Begin` where its code begins,
/// `End` wherever control leaves it.
#[derive(Clone, Debug)]
pub struct FunctionRegion {
    /// Index into [`Model::functions`].
    pub function: usize,
    /// Index into [`Plan::regions`].
    pub region: usize,
    /// Its ends are inserted at the jumps that leave it (Fortran, and a
    /// C or C++ loop or call statement that a jump leaves together with
    /// a user region around it); otherwise, in C and C++, the end is
    /// called when the body's scope is left, however it is left, and
    /// inserted only where the run ends (`exit()`).
    pub closed_at_exits: bool,
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
    /// Functions measured as regions, in file order.
    pub functions: Vec<FunctionRegion>,
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
    /// names of the files they lie in (the input and those its line
    /// markers name, by [`crate::source::FileId::index`]), and whether
    /// they carry pomp's extended keys.
    file_names: Vec<String>,
    ctc_extended: bool,
    /// The construct registration counts the user regions too (see
    /// [`NamedPlan::init_function`]).
    users_counted_with_constructs: bool,
}

impl Plan {
    pub(super) fn new(file: &SourceFile, model: &Model, options: &Config) -> Plan {
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
            functions: vec![],
            bare_directives: vec![],
            value_scopes: vec![],
            lock_calls: vec![],
            diagnostics: vec![],
            needs_name: !(model.sites.is_empty()
                && model.lock_calls.is_empty()
                && model.functions.is_empty()),
            interface,
            implicit_barrier,
            user_region,
            thread_private: options.thread_private.clone(),
            unmeasured: Default::default(),
            file_names: file.file_names(),
            ctc_extended: options.events == EventSet::Extended,
            users_counted_with_constructs: options.events == EventSet::Opari2,
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
        push_ctc_string(&self.file_names, region, pomp_id.as_ref(), scratch, out);
    }

    /// The name of the file `lines` lie in, as CTC strings and the IDF
    /// give it.
    pub fn file_name(&self, lines: &Lines) -> &str {
        &self.file_names[lines.file.index()]
    }

    /// The function assigning the handles of the file's construct regions.
    /// Its name holds the number of regions OPARI2's registration step
    /// adds up into `POMP2_Get_num_regions()`: the construct regions, and
    /// in OPARI2's mode the user regions too, because OPARI2's own
    /// library keeps user regions in the table it sizes by that count
    /// (with more user regions than construct regions it aborts).
    pub fn init_function(&self) -> String {
        let counted = (self.regions.iter())
            .filter(|r| !r.user || self.users_counted_with_constructs)
            .count();
        pomp2::registration::InitFunction::new(&self.unique, counted).symbol
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
        let counted = (self.regions.iter()).any(|r| !r.user || self.users_counted_with_constructs);
        (self.interface == Interface::Pomp2 && counted).then(|| self.init_function())
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

/// Appends the region's CTC string to `out`, written through `scratch`:
/// its OPARI2 type, the lines of its opening and closing and its facts.
/// With pomp's extended events (`pomp_id` given) its own part follows:
/// the construct's precise type where OPARI2 has no name for it, the
/// region's IDF id, its enclosing unit and how its closing barrier is
/// measured.
fn push_ctc_string(
    file_names: &[String],
    region: &Region,
    pomp_id: Option<&pomp2::RegionId>,
    scratch: &mut String,
    out: &mut String,
) {
    let lines = |lines: crate::source::Lines| pomp2::ctc::SourceRangeView {
        file: &file_names[lines.file.index()],
        first_line: lines.first as u32,
        last_line: lines.last as u32,
    };
    let extended = pomp_id.is_some();
    let pomp_id = pomp_id.map(|id| id.to_string());
    let view = pomp2::ctc::ContextView {
        region_type: &region.opari2_type,
        pomp_type: Some(&*region.region_type)
            .filter(|precise| extended && *precise != region.opari2_type),
        start: Some(lines(region.start_lines)),
        end: Some(lines(region.end_lines)),
        attributes: &region.aux,
        pomp_id: pomp_id.as_deref(),
        unit: region.unit.as_deref().filter(|_| extended),
        code_kind: region.code_kind.filter(|_| extended),
        implicit_barrier: region
            .implicit_barrier
            .filter(|_| extended)
            .unwrap_or_default(),
    };
    pomp2::ctc::push_view(&view, scratch, out);
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

/// The warning that an untied task was made tied.
pub const UNTIED_MADE_TIED: &str = "untied task made tied";

/// The name of [`Var::MaxThreads`] in inserted code.
pub const MAX_THREADS_VAR: &str = "pomp2_max_threads";

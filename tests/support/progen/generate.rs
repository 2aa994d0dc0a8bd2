//! Random programs that are valid OpenMP and deterministic: whatever the
//! number of threads and the schedule, they print the same and exit the
//! same way. The generator keeps that promise by tracking, for every place
//! it writes a statement, who executes it (one thread, every thread of a
//! team, one iteration of a shared loop) and which variables it may change
//! there without a race; output is printed only where its order is fixed.

use super::ast::*;
use proptest::prelude::RngExt;
use proptest::test_runner::{RngAlgorithm, TestRng};
use std::collections::BTreeSet;

/// The classes of constructs and syntax the generator can use, each
/// switched on or off on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Feature {
    Parallel,
    NestedParallel,
    For,
    Sections,
    Single,
    Master,
    Masked,
    Critical,
    Atomic,
    AtomicCapture,
    Barrier,
    Ordered,
    Task,
    Taskwait,
    Taskgroup,
    TaskReduction,
    /// `task_reduction` on a taskgroup that no parallel region encloses.
    OrphanedTaskReduction,
    Taskloop,
    Taskyield,
    Flush,
    Scope,
    LoopConstruct,
    /// A loop construct whose iterations a team or a league shares: bound
    /// to a parallel or teams region, `parallel loop` too.
    SharedLoopConstruct,
    /// `reduction` on a loop construct whose iterations a team shares.
    ReductionOnTeamLoopConstruct,
    /// Fortran: the combined `parallel loop`, whose inner loops' indices
    /// must be private to its threads.
    FortranParallelLoop,
    Simd,
    Teams,
    /// `distribute parallel for` and `teams distribute parallel for`: a
    /// parallel region nested in `teams`.
    ParallelInTeams,
    /// A parallel region nested in a parallel region in `teams`.
    NestedParallelInTeams,
    /// `teams num_teams(1)`: a league of one team, which may fork parallel
    /// regions.
    LeagueOfOne,
    /// `reduction` on `teams`.
    ReductionOnTeams,
    Workshare,
    AtomicInWorkshare,
    Combined,
    DefaultNone,
    /// `default(none)` on a combined construct together with `lastprivate`
    /// or `linear`.
    DefaultNoneWithLastprivateCombined,
    Reduction,
    /// `reduction(task, +:x)` on a worksharing loop or sections.
    TaskReductionModifierOnWorksharing,
    /// `reduction(task, +:x)` beside `linear` on one worksharing loop.
    LinearWithTaskReduction,
    Lastprivate,
    Linear,
    /// `lastprivate` or `linear` on a worksharing loop with a dynamic
    /// schedule, whose chunks the runtime may hand out of order.
    LastValueOfDynamicSchedule,
    Collapse,
    Schedule,
    Nowait,
    IfClause,
    /// An `if` clause without a modifier on a combined construct ending in
    /// `simd`, which then applies to the `simd` part too.
    IfOnSimd,
    NumThreads,
    Untied,
    Jumps,
    Goto,
    Return,
    Switch,
    DoWhile,
    UserRegions,
    Locks,
    Guards,
    Helpers,
    /// Fortran: the end directive of loop constructs and atomics written out.
    OptionalEndDirectives,
    /// A sections construct whose first `section` directive is left out.
    ImplicitFirstSection,
    /// `default(none)` on a combined construct ending in `simd`.
    DefaultNoneCombinedSimd,
    /// `hint(0)` on a named critical construct.
    CriticalHint,
    /// Functions, loops and calls measured as regions (`--regions`).
    CodeRegions,
    /// A filter leaving regions as written (`--filter`).
    Filters,
    /// pomp's runtime stopping to time call paths after a few visits.
    Throttling,
    /// pomp reading the program as the compiler's preprocessor wrote it,
    /// line markers and the headers' text in it.
    PreprocessedInput,
}

impl Feature {
    pub const ALL: &'static [Feature] = &[
        Feature::Parallel,
        Feature::NestedParallel,
        Feature::For,
        Feature::Sections,
        Feature::Single,
        Feature::Master,
        Feature::Masked,
        Feature::Critical,
        Feature::Atomic,
        Feature::AtomicCapture,
        Feature::Barrier,
        Feature::Ordered,
        Feature::Task,
        Feature::Taskwait,
        Feature::Taskgroup,
        Feature::TaskReduction,
        Feature::OrphanedTaskReduction,
        Feature::Taskloop,
        Feature::Taskyield,
        Feature::Flush,
        Feature::Scope,
        Feature::LoopConstruct,
        Feature::SharedLoopConstruct,
        Feature::ReductionOnTeamLoopConstruct,
        Feature::FortranParallelLoop,
        Feature::Simd,
        Feature::Teams,
        Feature::ParallelInTeams,
        Feature::NestedParallelInTeams,
        Feature::LeagueOfOne,
        Feature::ReductionOnTeams,
        Feature::Workshare,
        Feature::AtomicInWorkshare,
        Feature::Combined,
        Feature::DefaultNone,
        Feature::DefaultNoneWithLastprivateCombined,
        Feature::Reduction,
        Feature::TaskReductionModifierOnWorksharing,
        Feature::LinearWithTaskReduction,
        Feature::Lastprivate,
        Feature::Linear,
        Feature::LastValueOfDynamicSchedule,
        Feature::Collapse,
        Feature::Schedule,
        Feature::Nowait,
        Feature::IfClause,
        Feature::IfOnSimd,
        Feature::NumThreads,
        Feature::Untied,
        Feature::CriticalHint,
        Feature::Jumps,
        Feature::Goto,
        Feature::Return,
        Feature::Switch,
        Feature::DoWhile,
        Feature::UserRegions,
        Feature::Locks,
        Feature::Guards,
        Feature::Helpers,
        Feature::OptionalEndDirectives,
        Feature::ImplicitFirstSection,
        Feature::DefaultNoneCombinedSimd,
        Feature::CodeRegions,
        Feature::Filters,
        Feature::Throttling,
        Feature::PreprocessedInput,
    ];
}

#[derive(Clone, Debug)]
pub struct Features(BTreeSet<Feature>);

impl Features {
    pub fn all() -> Features {
        Features(Feature::ALL.iter().copied().collect())
    }

    pub fn without(mut self, features: &[Feature]) -> Features {
        for f in features {
            self.0.remove(f);
        }
        self
    }

    pub fn has(&self, feature: Feature) -> bool {
        self.0.contains(&feature)
    }
}

/// Who runs the code at the point being generated, and what it may touch.
#[derive(Clone, Debug)]
struct Ctx {
    /// Inside a parallel or teams region: other threads run at the same time.
    concurrent: bool,
    /// Nested parallel regions or tasks below the outermost region.
    nested: bool,
    /// Every thread of the current team runs this code.
    replicated: bool,
    task: bool,
    /// Closely nested in a worksharing, critical, ordered, masked or task
    /// region: no worksharing, barrier or masked here.
    no_worksharing: bool,
    /// Directly in `teams`: only distribute, loop and parallel may follow.
    teams: bool,
    /// Inside `teams`, and inside a parallel region there.
    in_league: bool,
    in_league_team: bool,
    /// `simd` and `loop` bodies: no constructs and no calls.
    restricted: bool,
    /// Inside any OpenMP construct (of this routine).
    in_construct: bool,
    /// Closely nested in a parallel or teams region, no other construct
    /// between: a loop construct here binds to it without a bind clause.
    binds_to_team: bool,
    /// Inside a critical region: no task scheduling points, so that no
    /// task this thread runs meanwhile waits for the same critical.
    exclusive: bool,
    /// The body of a `distribute` loop: updates and nested parallel only.
    distribute_body: bool,
    /// The kernel's locals are shared here, as worksharing clauses that
    /// name them require: lexically inside a parallel or teams region.
    shared_data: bool,
    /// A firstprivate clause of an enclosing region made `fp` private.
    input_private: bool,
    /// One thread of an outermost team runs this (single, masked) while
    /// the others wait or pass: the place for a taskloop reduction.
    sole_executor: bool,
    critical_names: Vec<&'static str>,
    /// Reduction variables that a plain `+=` updates here.
    reductions: Vec<u8>,
    /// Reduction variables some enclosing clause already names.
    reductions_in_use: Vec<u8>,
    /// Variables a task may name in `in_reduction`.
    task_reductions: Vec<u8>,
    /// The element of `a` that this iteration alone writes.
    slot: Option<Expr>,
    ordered_pending: bool,
    may_print: bool,
    depth: u8,
    indices: Vec<u8>,
    /// How many of `indices` the clauses of a construct written here may
    /// read: a combined construct's own loops are not around its directive.
    clause_indices: usize,
    break_ok: bool,
    continue_ok: bool,
    /// Fortran loops with construct names that `exit`/`cycle` may name.
    named_loops: Vec<u8>,
    return_ok: bool,
    in_helper: bool,
    temp_private: bool,
    linear_readable: bool,
    /// A label the enclosing statement list places after this statement.
    pending_label: Option<u32>,
    nesting: u8,
}

const MAX_NESTING: u8 = 5;

pub struct Generator<'f> {
    rng: TestRng,
    lang: Lang,
    features: &'f Features,
    helpers: Vec<Helper>,
    next_label: u32,
    next_region: u32,
    next_slot_stretch: i64,
    /// Statements left to write; keeps programs quick to compile.
    budget: i32,
}

pub fn generate(seed: u64, lang: Lang, features: &Features) -> Program {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8] = match lang {
        Lang::C => 1,
        Lang::FortranFree => 2,
        Lang::FortranFixed => 3,
    };
    let mut generator = Generator {
        rng: TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
        lang,
        features,
        helpers: Vec::new(),
        next_label: 1,
        next_region: 1,
        next_slot_stretch: 0,
        budget: 0,
    };
    generator.program()
}

impl Generator<'_> {
    fn has(&self, feature: Feature) -> bool {
        self.features.has(feature)
    }

    fn chance(&mut self, percent: u32) -> bool {
        self.rng.random_range(0..100) < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.rng.random_range(0..items.len())]
    }

    fn program(&mut self) -> Program {
        let kernel_count = self.rng.random_range(1..=3);
        let mut kernels = Vec::new();
        for _ in 0..kernel_count {
            self.budget = self.rng.random_range(8..=22);
            self.next_slot_stretch = 0;
            let ctx = Ctx {
                concurrent: false,
                nested: false,
                replicated: false,
                task: false,
                no_worksharing: false,
                teams: false,
                in_league: false,
                in_league_team: false,
                restricted: false,
                in_construct: false,
                binds_to_team: false,
                exclusive: false,
                distribute_body: false,
                shared_data: false,
                input_private: false,
                sole_executor: false,
                critical_names: Vec::new(),
                reductions: Vec::new(),
                reductions_in_use: Vec::new(),
                task_reductions: Vec::new(),
                slot: None,
                ordered_pending: false,
                may_print: true,
                depth: 1,
                indices: Vec::new(),
                clause_indices: 0,
                break_ok: false,
                continue_ok: false,
                named_loops: Vec::new(),
                return_ok: true,
                in_helper: false,
                temp_private: false,
                linear_readable: false,
                pending_label: None,
                nesting: 0,
            };
            let body = self.stmts(&ctx, 6);
            kernels.push(Kernel { body });
        }
        let exit_code = self.pick(&[0, 0, 0, 1, 3]);
        // Drawn last, so that a seed's statements do not depend on it.
        let measurement = self.measurement(kernels.len());
        Program {
            lang: self.lang,
            kernels,
            helpers: std::mem::take(&mut self.helpers),
            exit_code,
            measurement,
        }
    }

    fn measurement(&mut self, kernels: usize) -> Measurement {
        let regions = if self.has(Feature::CodeRegions) && self.chance(50) {
            let kinds = self.pick(&[
                "functions",
                "loops",
                "calls=helper*",
                "functions,loops",
                "functions,loops,calls=helper*",
            ]);
            Some(kinds.to_string())
        } else {
            None
        };
        let mut filter = Vec::new();
        if self.has(Feature::Filters) && self.chance(30) {
            let everything = self.chance(25);
            if everything {
                filter.push("EXCLUDE *".to_string());
            }
            let rules = self.rng.random_range(1..=2);
            for rule in 0..rules {
                let keyword = if everything || rule > 0 {
                    "INCLUDE"
                } else {
                    "EXCLUDE"
                };
                let count = self.rng.random_range(1..=2);
                let patterns: Vec<String> =
                    (0..count).map(|_| self.filter_pattern(kernels)).collect();
                filter.push(format!("{keyword} {}", patterns.join(" ")));
            }
        }
        let throttle_after = (self.has(Feature::Throttling) && self.chance(60))
            .then(|| self.rng.random_range(1..=3));
        let preprocessed = self.has(Feature::PreprocessedInput) && self.chance(25);
        Measurement {
            regions,
            filter,
            throttle_after,
            preprocessed,
        }
    }

    /// A name or place some region of the program answers to: a function,
    /// the constructs and loops of one, a kind of construct, a user
    /// region, or the directives on a range of lines.
    fn filter_pattern(&mut self, kernels: usize) -> String {
        let kernel = self.rng.random_range(0..kernels);
        let mut patterns = vec![
            "main".to_string(),
            format!("kernel{kernel}"),
            format!("*kernel{kernel}*"),
            "*loop@*".to_string(),
            self.pick(&[
                "parallel*",
                "task*",
                "single*",
                "critical*",
                "*for*",
                "*do*",
            ])
            .to_string(),
            format!(
                "case.{}:{}*",
                self.lang.extension(),
                self.rng.random_range(1..=9)
            ),
        ];
        if !self.helpers.is_empty() {
            patterns.push(format!(
                "helper{}",
                self.rng.random_range(0..self.helpers.len())
            ));
        }
        if self.next_region > 1 {
            patterns.push(format!(
                "region{}",
                self.rng.random_range(1..self.next_region)
            ));
        }
        let at = self.rng.random_range(0..patterns.len());
        patterns.swap_remove(at)
    }

    fn expr(&mut self, ctx: &Ctx) -> Expr {
        let mut operands: Vec<Var> = ctx.indices.iter().map(|d| Var::Index(*d)).collect();
        // Helpers see only their arguments and the globals.
        if !ctx.in_helper {
            operands.push(Var::Param);
            operands.push(Var::Input);
        }
        if ctx.linear_readable {
            operands.push(Var::Linear);
        }
        let mut terms = Vec::new();
        let count = if operands.is_empty() {
            0
        } else {
            self.rng.random_range(0..=2)
        };
        for _ in 0..count {
            let v = self.pick(&operands);
            terms.push((self.rng.random_range(1..=4), v));
        }
        Expr {
            constant: self.rng.random_range(0..=9),
            terms,
        }
    }

    fn cond(&mut self, ctx: &Ctx) -> Cond {
        if !ctx.indices.is_empty() && self.chance(75) {
            let d = self.pick(&ctx.indices);
            if self.chance(50) {
                Cond::Even(d)
            } else {
                Cond::Below(d, self.rng.random_range(1..=4))
            }
        } else if !ctx.in_helper {
            Cond::ParamAbove(self.rng.random_range(2..=7))
        } else {
            Cond::True
        }
    }

    /// A condition in a clause of the construct being built.
    fn clause_cond(&mut self, ctx: &Ctx) -> Cond {
        let outside = Ctx {
            indices: ctx.indices[..ctx.clause_indices].to_vec(),
            ..ctx.clone()
        };
        self.cond(&outside)
    }

    /// A statement list of one to `max` statements, with a forward jump
    /// over some of them now and then.
    fn stmts(&mut self, ctx: &Ctx, max: usize) -> Vec<Stmt> {
        let count = self.rng.random_range(1..=max.max(1));
        let label = if self.has(Feature::Goto) && count >= 2 && self.chance(15) {
            let label = self.next_label;
            self.next_label += 1;
            Some(label)
        } else {
            None
        };
        let mut out = Vec::new();
        let mut ordered_done = false;
        for index in 0..count {
            if self.budget <= 0 && !out.is_empty() {
                break;
            }
            let mut inner = ctx.clone();
            if ordered_done {
                inner.ordered_pending = false;
            }
            if label.is_some() {
                inner.pending_label = label;
            }
            if let (0, Some(label)) = (index, label) {
                out.push(self.jump_to(ctx, label));
            }
            let stmt = self.stmt(&inner);
            ordered_done |= matches!(&stmt, Stmt::Omp(c) if c.names == ["ordered"]);
            out.push(stmt);
        }
        if let Some(label) = label {
            out.push(Stmt::Label(label));
        }
        out
    }

    fn jump_to(&mut self, ctx: &Ctx, label: u32) -> Stmt {
        Stmt::If {
            cond: self.cond(ctx),
            then: vec![Stmt::Goto(label)],
            otherwise: None,
        }
    }

    fn stmt(&mut self, ctx: &Ctx) -> Stmt {
        self.budget -= 1;
        let deeper = ctx.nesting < MAX_NESTING && self.budget > 0;
        let fortran = self.lang.is_fortran();
        let mut choices: Vec<(u32, Kind)> = Vec::new();
        let ws_ok = !ctx.no_worksharing
            && !ctx.task
            && !ctx.teams
            && !ctx.restricted
            && (ctx.replicated || !ctx.concurrent);
        let once = !ctx.replicated && !ctx.teams;
        if ctx.teams {
            if self.has(Feature::Teams) {
                choices.push((6, Kind::Distribute));
                if self.has(Feature::LoopConstruct) && self.has(Feature::SharedLoopConstruct) {
                    choices.push((2, Kind::LoopConstruct));
                }
                // Strictly inside teams: no runtime routine may be called
                // there, the measured region's thread count included.
                if deeper && self.has(Feature::ParallelInTeams) && self.has(Feature::NestedParallel)
                {
                    choices.push((2, Kind::Parallel));
                }
            }
            return self.kind_or_update(ctx, choices);
        }
        if once || ctx.temp_private {
            choices.push((6, Kind::Update));
        }
        if ctx.distribute_body {
            if deeper {
                choices.push((2, Kind::If));
                // The body of `distribute parallel for` is a team's of the
                // league already: a parallel region there is nested in it.
                if self.has(Feature::ParallelInTeams)
                    && self.has(Feature::NestedParallel)
                    && (!ctx.in_league_team || self.has(Feature::NestedParallelInTeams))
                {
                    choices.push((2, Kind::Parallel));
                }
            }
            if self.has(Feature::Atomic) && once {
                choices.push((3, Kind::Atomic));
            }
            return self.kind_or_update(ctx, choices);
        }
        if ctx.may_print && !ctx.restricted {
            choices.push((2, Kind::Print));
        }
        if deeper {
            choices.push((3, Kind::If));
            choices.push((3, Kind::Loop));
            if !fortran && !ctx.indices.is_empty() && self.has(Feature::Switch) {
                choices.push((1, Kind::Switch));
            }
            if !fortran {
                choices.push((1, Kind::Block));
            }
        }
        if self.has(Feature::Jumps) && (ctx.break_ok || ctx.continue_ok) {
            choices.push((1, Kind::Jump));
        }
        if self.has(Feature::Return) && ctx.return_ok && !ctx.restricted {
            choices.push((1, Kind::Return));
        }
        if ctx.restricted {
            return self.kind_or_update(ctx, choices);
        }
        if deeper {
            if self.has(Feature::UserRegions) {
                choices.push((2, Kind::UserRegion));
            }
            if self.has(Feature::Guards) {
                choices.push((1, Kind::Guard));
            }
            if self.has(Feature::Helpers) && self.helpers.len() < 4 && !ctx.in_helper {
                choices.push((1, Kind::Call));
            }
            if self.has(Feature::Locks) && once {
                choices.push((1, Kind::Locked));
            }
            if self.has(Feature::Parallel)
                && !ctx.replicated
                && !ctx.exclusive
                && (!ctx.concurrent || self.has(Feature::NestedParallel))
                && (!ctx.in_league_team || self.has(Feature::NestedParallelInTeams))
            {
                choices.push((5, Kind::Parallel));
            }
            if self.has(Feature::For) && ws_ok {
                choices.push((5, Kind::For));
            }
            if self.has(Feature::Sections) && ws_ok {
                choices.push((2, Kind::Sections));
            }
            if self.has(Feature::Single) && ws_ok {
                choices.push((3, Kind::Single));
            }
            if (self.has(Feature::Master) || self.has(Feature::Masked)) && ws_ok {
                choices.push((2, Kind::Masked));
            }
            if self.has(Feature::Critical) && once && ctx.critical_names.len() < 4 {
                choices.push((2, Kind::Critical));
            }
            if self.has(Feature::Ordered) && ctx.ordered_pending {
                choices.push((6, Kind::Ordered));
            }
            if self.has(Feature::Task) && once && !ctx.exclusive {
                choices.push((3, Kind::Task));
            }
            if self.has(Feature::Taskgroup) && !ctx.exclusive {
                choices.push((1, Kind::Taskgroup));
            }
            if self.has(Feature::Taskloop) && once && !ctx.exclusive {
                choices.push((2, Kind::Taskloop));
            }
            if self.has(Feature::Scope) && ws_ok {
                choices.push((1, Kind::Scope));
            }
            if self.has(Feature::LoopConstruct)
                && ws_ok
                && (!ctx.replicated || self.has(Feature::SharedLoopConstruct))
            {
                choices.push((1, Kind::LoopConstruct));
            }
            if self.has(Feature::Simd) && once {
                choices.push((1, Kind::Simd));
            }
            if self.has(Feature::Teams) && !ctx.in_construct && !ctx.concurrent && !ctx.in_helper {
                choices.push((1, Kind::Teams));
            }
            if self.has(Feature::Workshare) && fortran && ws_ok && !ctx.nested && !ctx.in_helper {
                choices.push((1, Kind::Workshare));
            }
        }
        if self.has(Feature::Atomic) && once {
            choices.push((3, Kind::Atomic));
        }
        if self.has(Feature::Barrier) && ws_ok {
            choices.push((1, Kind::Barrier));
        }
        if self.has(Feature::Taskwait) && !ctx.exclusive {
            choices.push((1, Kind::Taskwait));
        }
        if self.has(Feature::Taskyield) && !ctx.exclusive {
            choices.push((1, Kind::Taskyield));
        }
        if self.has(Feature::Flush) {
            choices.push((1, Kind::Flush));
        }
        self.kind_or_update(ctx, choices)
    }

    fn kind_or_update(&mut self, ctx: &Ctx, choices: Vec<(u32, Kind)>) -> Stmt {
        let total: u32 = choices.iter().map(|(w, _)| w).sum();
        if total == 0 {
            return self.filler(ctx);
        }
        let mut roll = self.rng.random_range(0..total);
        let mut kind = choices[0].1;
        for (weight, k) in &choices {
            if roll < *weight {
                kind = *k;
                break;
            }
            roll -= weight;
        }
        self.build(kind, ctx)
    }

    /// A statement that changes nothing shared, for places where nothing else fits.
    fn filler(&mut self, ctx: &Ctx) -> Stmt {
        if ctx.restricted || ctx.teams {
            return Stmt::Block(Vec::new());
        }
        Stmt::Omp(Construct {
            names: vec!["flush"],
            clauses: Vec::new(),
            body: Body::Standalone,
            end_directive: false,
        })
    }

    fn build(&mut self, kind: Kind, ctx: &Ctx) -> Stmt {
        match kind {
            Kind::Update => self.update(ctx),
            Kind::Print => Stmt::Print(self.expr(ctx)),
            Kind::If => {
                let inner = ctx.nested_in_statement();
                let then = self.stmts(&inner, 2);
                let otherwise = if self.chance(35) {
                    Some(self.stmts(&inner, 2))
                } else {
                    None
                };
                Stmt::If {
                    cond: self.cond(ctx),
                    then,
                    otherwise,
                }
            }
            Kind::Loop => {
                let mut inner = ctx.nested_in_statement();
                let depth = ctx.depth;
                inner.depth += 1;
                inner.indices.push(depth);
                inner.break_ok = true;
                inner.continue_ok = true;
                let named = self.lang.is_fortran() && self.chance(30);
                if named {
                    inner.named_loops.push(depth);
                }
                // gfortran does not make the index of a labelled DO private
                // in a parallel region, so that form stays outside them.
                let labelled_ok = !self.lang.is_fortran() || !ctx.concurrent;
                let kind = if self.has(Feature::DoWhile) && labelled_ok {
                    self.pick(&[
                        SeqLoopKind::For,
                        SeqLoopKind::For,
                        SeqLoopKind::While,
                        SeqLoopKind::DoWhile,
                    ])
                } else {
                    SeqLoopKind::For
                };
                Stmt::Loop {
                    kind,
                    depth,
                    trips: self.rng.random_range(1..=4),
                    named,
                    body: self.stmts(&inner, 3),
                }
            }
            Kind::Switch => {
                let mut inner = ctx.nested_in_statement();
                inner.break_ok = true;
                let depth = self.pick(&ctx.indices);
                let count = self.rng.random_range(1..=3);
                let cases = (0..count)
                    .map(|_| {
                        let falls = self.chance(30);
                        (self.stmts(&inner, 2), falls)
                    })
                    .collect();
                Stmt::Switch { depth, cases }
            }
            Kind::Block => Stmt::Block(self.stmts(&ctx.nested_in_statement(), 3)),
            Kind::Jump => self.jump(ctx),
            Kind::Return => {
                let value = if ctx.in_helper {
                    None
                } else {
                    Some(self.expr(ctx))
                };
                let ret = Stmt::Return(value);
                Stmt::If {
                    cond: self.cond(ctx),
                    then: vec![ret],
                    otherwise: None,
                }
            }
            Kind::UserRegion => {
                let name = format!("region{}", self.next_region);
                self.next_region += 1;
                let mut body = self.stmts(&ctx.nested_in_statement(), 3);
                if let Some(label) = ctx.pending_label {
                    if self.chance(50) {
                        let jump = self.jump_to(ctx, label);
                        body.insert(0, jump);
                    }
                }
                Stmt::UserRegion { name, body }
            }
            Kind::Guard => {
                if self.lang.is_fortran() {
                    // The `!$` sentinel covers simple statements only.
                    let update = if ctx.replicated && !ctx.temp_private {
                        None
                    } else {
                        Some(self.update(ctx)).filter(|s| matches!(s, Stmt::Assign(_)))
                    };
                    match update {
                        Some(update) => Stmt::Guarded(GuardKind::Ifdef, vec![update]),
                        None => self.update_or_filler(ctx),
                    }
                } else {
                    let mut inner = ctx.nested_in_statement();
                    inner.pending_label = None;
                    let labels_before = self.next_label;
                    let body = self.stmts(&inner, 2);
                    // A label in both branches of #if/#else would be one
                    // label twice for a parser that reads both.
                    let kind = if self.next_label != labels_before {
                        GuardKind::Ifdef
                    } else {
                        self.pick(&[GuardKind::Ifdef, GuardKind::IfElse])
                    };
                    Stmt::Guarded(kind, body)
                }
            }
            Kind::Call => {
                let index = self.helpers.len();
                self.helpers.push(Helper {
                    params: ctx.indices.clone(),
                    body: Vec::new(),
                });
                let mut inner = ctx.clone();
                inner.in_helper = true;
                inner.in_construct = false;
                inner.binds_to_team = false;
                inner.reductions.clear();
                inner.task_reductions.clear();
                inner.slot = None;
                inner.ordered_pending = false;
                inner.break_ok = false;
                inner.continue_ok = false;
                inner.named_loops.clear();
                inner.return_ok = true;
                inner.temp_private = true;
                inner.linear_readable = false;
                inner.pending_label = None;
                inner.nesting += 1;
                let body = self.stmts(&inner, 3);
                self.helpers[index].body = body;
                Stmt::Call(index, ctx.indices.clone())
            }
            Kind::Locked => {
                let kind = self.pick(&[LockKind::Set, LockKind::Test, LockKind::Nest]);
                self.locked(ctx, kind)
            }
            Kind::Atomic => self.atomic(ctx),
            Kind::Barrier => standalone("barrier"),
            Kind::Taskwait => standalone("taskwait"),
            Kind::Taskyield => standalone("taskyield"),
            Kind::Flush => standalone("flush"),
            _ => self.construct(kind, ctx),
        }
    }

    fn update_or_filler(&mut self, ctx: &Ctx) -> Stmt {
        if !ctx.replicated || ctx.temp_private {
            self.update(ctx)
        } else {
            self.filler(ctx)
        }
    }

    fn jump(&mut self, ctx: &Ctx) -> Stmt {
        let mut options = Vec::new();
        if ctx.break_ok {
            options.push(Stmt::Break);
        }
        if ctx.continue_ok {
            options.push(Stmt::Continue);
        }
        for d in &ctx.named_loops {
            options.push(Stmt::ExitNamed(*d));
            options.push(Stmt::CycleNamed(*d));
        }
        let jump = options[self.rng.random_range(0..options.len())].clone();
        Stmt::If {
            cond: self.cond(ctx),
            then: vec![jump],
            otherwise: None,
        }
    }

    /// An update of shared state that is race-free here.
    fn update(&mut self, ctx: &Ctx) -> Stmt {
        let expr = self.expr(ctx);
        let sequential = !ctx.concurrent && !ctx.task;
        let mut targets: Vec<Target> = Vec::new();
        if ctx.replicated {
            return Stmt::Assign(Update {
                target: Target::Var(Var::Temp),
                expr,
            });
        }
        if sequential && !ctx.in_helper {
            targets.push(Target::Var(Var::Temp));
        }
        if sequential {
            for g in 0..GLOBALS {
                targets.push(Target::Var(Var::Global(g)));
            }
            if !ctx.restricted && !ctx.in_helper {
                let index = self.rng.random_range(0..SLOTS);
                targets.push(Target::Slot(Expr::constant(index)));
            }
        }
        for r in &ctx.reductions {
            targets.push(Target::Var(Var::Reduction(*r)));
            targets.push(Target::Var(Var::Reduction(*r)));
        }
        if sequential {
            for r in 0..REDUCTIONS {
                if !ctx.reductions_in_use.contains(&r) && !ctx.in_helper {
                    targets.push(Target::Var(Var::Reduction(r)));
                }
            }
        }
        if let Some(slot) = &ctx.slot {
            targets.push(Target::Slot(slot.clone()));
            targets.push(Target::Slot(slot.clone()));
        }
        if ctx.temp_private && !ctx.restricted {
            targets.push(Target::Var(Var::Temp));
        }
        if targets.is_empty() || (!ctx.restricted && self.chance(25)) {
            if ctx.restricted {
                return Stmt::Block(Vec::new());
            }
            return self.synchronised_update(ctx);
        }
        if ctx.in_helper && targets.iter().all(|t| matches!(t, Target::Var(Var::Temp))) {
            return self.synchronised_update(ctx);
        }
        let target = self.pick_target(&targets);
        Stmt::Assign(Update { target, expr })
    }

    fn pick_target(&mut self, targets: &[Target]) -> Target {
        targets[self.rng.random_range(0..targets.len())].clone()
    }

    /// An update of the global that `guard` protects: atomics and the two
    /// locks exclude only their own kind, so each global has one guard.
    fn global_update(&mut self, ctx: &Ctx, guard: Guard) -> Update {
        let global = match guard {
            Guard::Atomic => 0,
            Guard::Critical => 1,
            Guard::Lock => 2,
            Guard::NestLock => 3,
        };
        Update {
            target: Target::Var(Var::Global(global)),
            expr: self.expr(ctx),
        }
    }

    /// A global updated under some synchronisation.
    fn synchronised_update(&mut self, ctx: &Ctx) -> Stmt {
        let mut kinds = vec![0];
        if self.has(Feature::Atomic) {
            kinds.push(1);
        }
        if self.has(Feature::Critical) && !ctx.critical_names.contains(&"") {
            kinds.push(2);
        }
        if self.has(Feature::Locks) {
            kinds.push(3);
        }
        match self.pick(&kinds) {
            1 => self.atomic(ctx),
            2 => Stmt::Omp(Construct {
                names: vec!["critical"],
                clauses: Vec::new(),
                body: Body::Block(vec![Stmt::Assign(self.global_update(ctx, Guard::Critical))]),
                end_directive: true,
            }),
            3 => {
                let kind = self.pick(&[LockKind::Set, LockKind::Test, LockKind::Nest]);
                self.locked(ctx, kind)
            }
            _ => {
                if sequential(ctx) {
                    let guard =
                        self.pick(&[Guard::Atomic, Guard::Critical, Guard::Lock, Guard::NestLock]);
                    Stmt::Assign(self.global_update(ctx, guard))
                } else if ctx.critical_names.contains(&"") {
                    Stmt::Assign(self.global_update(ctx, Guard::Critical))
                } else {
                    Stmt::Atomic(AtomicForm::Bare, self.global_update(ctx, Guard::Atomic))
                }
            }
        }
    }

    fn locked(&mut self, ctx: &Ctx, kind: LockKind) -> Stmt {
        let guard = if kind == LockKind::Nest {
            Guard::NestLock
        } else {
            Guard::Lock
        };
        let mut body = vec![Stmt::Assign(self.global_update(ctx, guard))];
        if self.chance(30) {
            body.push(Stmt::Assign(self.global_update(ctx, guard)));
        }
        Stmt::Locked(kind, body)
    }

    fn atomic(&mut self, ctx: &Ctx) -> Stmt {
        let mut forms = vec![
            AtomicForm::Bare,
            AtomicForm::Update,
            AtomicForm::SeqCst,
            AtomicForm::Relaxed,
        ];
        if self.has(Feature::AtomicCapture) && ctx.temp_private {
            forms.push(AtomicForm::Capture);
        }
        let form = self.pick(&forms);
        let update = if !ctx.reductions.is_empty() && self.chance(20) {
            Update {
                target: Target::Var(Var::Reduction(self.pick(&ctx.reductions))),
                expr: self.expr(ctx),
            }
        } else {
            self.global_update(ctx, Guard::Atomic)
        };
        if self.lang.is_fortran() && self.has(Feature::OptionalEndDirectives) && self.chance(40) {
            // The end directive is part of the block form; render through a
            // construct so the renderer writes it.
            return Stmt::Omp(Construct {
                names: vec!["atomic"],
                clauses: Vec::new(),
                body: Body::Block(vec![Stmt::Assign(update)]),
                end_directive: true,
            });
        }
        Stmt::Atomic(form, update)
    }

    fn stretch(&mut self) -> i64 {
        let base = (self.next_slot_stretch % (SLOTS / SLOT_STRETCH)) * SLOT_STRETCH;
        self.next_slot_stretch += 1;
        base
    }

    fn loops(&mut self, ctx: &Ctx, collapse: u32) -> Vec<(u8, i64)> {
        let max_trips = if collapse > 1 { 5 } else { 8 };
        (0..collapse as u8)
            .map(|k| (ctx.depth + k, self.rng.random_range(1..=max_trips)))
            .collect()
    }

    fn free_reduction(&mut self, ctx: &Ctx) -> Option<u8> {
        let free: Vec<u8> = (0..REDUCTIONS)
            .filter(|r| !ctx.reductions_in_use.contains(r) && !ctx.in_helper)
            .collect();
        if free.is_empty() {
            None
        } else {
            Some(self.pick(&free))
        }
    }

    fn construct(&mut self, kind: Kind, ctx: &Ctx) -> Stmt {
        let leaves: Vec<Leaf> = match kind {
            Kind::Parallel => {
                let mut leaves = vec![Leaf::Parallel];
                if self.has(Feature::Combined) && self.chance(45) {
                    let mut inner = vec![Leaf::For, Leaf::For, Leaf::Sections];
                    if self.has(Feature::LoopConstruct)
                        && self.has(Feature::SharedLoopConstruct)
                        && (!self.lang.is_fortran() || self.has(Feature::FortranParallelLoop))
                    {
                        inner.push(Leaf::Loop);
                    }
                    if self.has(Feature::Masked) {
                        inner.push(Leaf::Masked);
                    }
                    if self.has(Feature::Master) {
                        inner.push(Leaf::Master);
                    }
                    // Its whole-array updates race with those of any other
                    // instance: only code no one else runs may fork one.
                    if self.has(Feature::Workshare)
                        && self.lang.is_fortran()
                        && !ctx.in_helper
                        && sequential(ctx)
                    {
                        inner.push(Leaf::Workshare);
                    }
                    let next = self.pick(&inner);
                    leaves.push(next);
                    if next == Leaf::For && self.has(Feature::Simd) && self.chance(20) {
                        leaves.push(Leaf::Simd);
                    }
                    if next == Leaf::Masked && self.has(Feature::Taskloop) && self.chance(40) {
                        leaves.push(Leaf::Taskloop);
                    }
                }
                leaves
            }
            Kind::For => {
                let mut leaves = vec![Leaf::For];
                if self.has(Feature::Simd) && self.has(Feature::Combined) && self.chance(15) {
                    leaves.push(Leaf::Simd);
                }
                leaves
            }
            Kind::Sections => vec![Leaf::Sections],
            Kind::Single => vec![Leaf::Single],
            Kind::Masked => {
                let mut options = Vec::new();
                if self.has(Feature::Masked) {
                    options.push(Leaf::Masked);
                }
                if self.has(Feature::Master) {
                    options.push(Leaf::Master);
                }
                let leaf = self.pick(&options);
                if self.has(Feature::Taskloop) && self.has(Feature::Combined) && self.chance(20) {
                    vec![leaf, Leaf::Taskloop]
                } else {
                    vec![leaf]
                }
            }
            Kind::Critical => vec![Leaf::Critical],
            Kind::Ordered => vec![Leaf::Ordered],
            Kind::Task => vec![Leaf::Task],
            Kind::Taskgroup => vec![Leaf::Taskgroup],
            Kind::Taskloop => {
                let mut leaves = vec![Leaf::Taskloop];
                if self.has(Feature::Simd) && self.has(Feature::Combined) && self.chance(15) {
                    leaves.push(Leaf::Simd);
                }
                leaves
            }
            Kind::Scope => vec![Leaf::Scope],
            Kind::LoopConstruct => vec![Leaf::Loop],
            Kind::Simd => vec![Leaf::Simd],
            Kind::Teams => {
                let mut leaves = vec![Leaf::Teams];
                if self.has(Feature::Combined) && self.chance(40) {
                    leaves.push(Leaf::Distribute);
                    if self.has(Feature::ParallelInTeams) && self.chance(50) {
                        leaves.push(Leaf::Parallel);
                        leaves.push(Leaf::For);
                    }
                }
                leaves
            }
            Kind::Distribute => {
                let mut leaves = vec![Leaf::Distribute];
                if self.has(Feature::ParallelInTeams)
                    && self.has(Feature::Combined)
                    && self.chance(40)
                {
                    leaves.push(Leaf::Parallel);
                    leaves.push(Leaf::For);
                }
                leaves
            }
            Kind::Workshare => vec![Leaf::Workshare],
            _ => unreachable!("{kind:?} is no construct"),
        };
        let combined = leaves.len() > 1;
        let mut clauses = Vec::new();
        let mut inner = ctx.clone();
        inner.clause_indices = ctx.indices.len();
        inner.distribute_body = false;
        inner.nesting += 1;
        inner.pending_label = None;
        inner.break_ok = false;
        inner.continue_ok = false;
        inner.named_loops.clear();
        inner.return_ok = false;
        let mut loop_shape: Option<LoopShape> = None;
        for (position, leaf) in leaves.clone().iter().enumerate() {
            // `ordered` belongs on the last leaf of a loop construct that
            // does not distribute over teams.
            let last = position + 1 == leaves.len() && !leaves.contains(&Leaf::Distribute);
            inner = self.leaf(*leaf, &inner, &mut clauses, combined, last, &mut loop_shape);
        }
        // An `if` a leaf added without a modifier applies to every leaf
        // that takes one, `simd` among them, and one inside the parallel
        // region reads its variables there, where `default(none)` wants
        // them listed: naming its leaf keeps it on `parallel`.
        let inner_if = leaves.len() > 1 && clauses.contains(&Clause::DefaultNone);
        let on_simd = leaves.contains(&Leaf::Simd) && !self.has(Feature::IfOnSimd);
        if leaves.contains(&Leaf::Parallel) && (on_simd || inner_if) {
            for clause in &mut clauses {
                if let Clause::If(modifier @ None, _) = clause {
                    *modifier = Some("parallel");
                }
            }
        }
        // Clauses some leaf added twice (private(t) on parallel and for)
        // would name one variable twice.
        let mut seen = Vec::new();
        clauses.retain(|c| {
            if seen.contains(c) {
                false
            } else {
                seen.push(c.clone());
                true
            }
        });
        if combined {
            clauses.retain(|c| *c != Clause::Nowait);
            // A directive takes one `default` clause: the outermost
            // leaf's, `teams`' before `parallel`'s.
            let mut defaults = 0;
            clauses.retain(|c| {
                let is_default = matches!(c, Clause::DefaultNone | Clause::DefaultShared);
                defaults += usize::from(is_default);
                !is_default || defaults == 1
            });
        }
        // A reduction of an enclosing leaf applies to the taskloop too,
        // which may then not be `nogroup`.
        if clauses.iter().any(|c| matches!(c, Clause::Reduction(..))) {
            clauses.retain(|c| *c != Clause::Nogroup);
        }
        // A Fortran `taskloop simd` gives its iteration variable back to
        // the one around it when its last task ends, which without the
        // taskgroup may be after that variable's storage has gone (a
        // thread's private copy, at the barrier that runs pending tasks).
        if self.lang.is_fortran()
            && leaves.contains(&Leaf::Taskloop)
            && leaves.contains(&Leaf::Simd)
        {
            clauses.retain(|c| *c != Clause::Nogroup);
        }
        if combined && leaves.contains(&Leaf::Simd) && !self.has(Feature::DefaultNoneCombinedSimd) {
            clauses.retain(|c| *c != Clause::DefaultNone);
        }
        // gfortran wants the indices of loops inside a `loop` construct
        // listed under default(none), where they are private already.
        if self.lang.is_fortran() && combined && leaves.contains(&Leaf::Loop) {
            clauses.retain(|c| *c != Clause::DefaultNone);
        }
        if clauses.contains(&Clause::DefaultNone)
            && combined
            && !self.has(Feature::DefaultNoneWithLastprivateCombined)
        {
            clauses.retain(|c| !matches!(c, Clause::Lastprivate(_) | Clause::Linear(..)));
        }
        let names: Vec<&'static str> = leaves.iter().map(|l| l.name()).collect();
        let body = match &loop_shape {
            Some(shape) => {
                let mut body = Vec::new();
                if shape.assigns_last {
                    body.push(Stmt::Assign(Update {
                        target: Target::Var(Var::Last),
                        expr: self.expr(&inner),
                    }));
                }
                body.extend(self.stmts(&inner, 3));
                if shape.assigns_last
                    && !clauses
                        .iter()
                        .any(|c| matches!(c, Clause::Lastprivate(Var::Last)))
                {
                    body.remove(0);
                }
                // gcc gives a linear variable its value at the start of each
                // thread's chunk only: the body must step it every
                // iteration, or what it reads depends on the thread count.
                let linear_step = clauses.iter().find_map(|c| match c {
                    Clause::Linear(Var::Linear, step) => Some(*step),
                    _ => None,
                });
                if let Some(step) = linear_step {
                    body.insert(
                        0,
                        Stmt::Assign(Update {
                            target: Target::Var(Var::Linear),
                            expr: Expr::constant(step),
                        }),
                    );
                }
                Body::Loop(LoopNest {
                    loops: shape.loops.clone(),
                    body,
                })
            }
            None if leaves.contains(&Leaf::Sections) => {
                let count = self.rng.random_range(1..=3);
                let first_written = !self.has(Feature::ImplicitFirstSection) || self.chance(50);
                Body::Sections(
                    (0..count).map(|_| self.stmts(&inner, 2)).collect(),
                    first_written,
                )
            }
            None if leaves.contains(&Leaf::Workshare) => {
                let mut stmts = vec![WorkshareStmt::ArrayAdd(self.rng.random_range(1..=5))];
                if self.has(Feature::AtomicInWorkshare) && self.chance(40) {
                    stmts.push(WorkshareStmt::Atomic(self.global_update(
                        &Ctx {
                            indices: vec![],
                            linear_readable: false,
                            ..ctx.clone()
                        },
                        Guard::Atomic,
                    )));
                }
                if self.chance(40) {
                    stmts.push(WorkshareStmt::ArrayAdd(self.rng.random_range(1..=5)));
                }
                Body::Workshare(stmts)
            }
            None if leaves == [Leaf::Critical] => Body::Block(self.stmts(&inner, 2)),
            None => Body::Block(self.stmts(&inner, 3)),
        };
        let loop_end =
            self.lang.is_fortran() && self.has(Feature::OptionalEndDirectives) && self.chance(50);
        let end_directive = match body {
            Body::Loop(_) => loop_end || clauses.contains(&Clause::Nowait),
            _ => true,
        };
        Stmt::Omp(Construct {
            names,
            clauses,
            body,
            end_directive,
        })
    }

    /// Adds a leaf construct's clauses and returns the context its body
    /// runs in.
    fn leaf(
        &mut self,
        leaf: Leaf,
        ctx: &Ctx,
        clauses: &mut Vec<Clause>,
        combined: bool,
        last: bool,
        loop_shape: &mut Option<LoopShape>,
    ) -> Ctx {
        let mut inner = ctx.clone();
        // Only the leaves that hand their body to one thread of a team say
        // so again below, and only those making a team are bound to.
        inner.sole_executor = false;
        inner.binds_to_team = matches!(leaf, Leaf::Parallel | Leaf::Teams);
        match leaf {
            Leaf::Parallel => {
                inner.in_league_team = ctx.in_league;
                inner.nested = ctx.concurrent || ctx.task;
                inner.concurrent = true;
                inner.replicated = true;
                inner.task = false;
                inner.no_worksharing = false;
                inner.teams = false;
                inner.reductions.clear();
                inner.task_reductions.clear();
                inner.slot = None;
                inner.ordered_pending = false;
                inner.may_print = false;
                inner.temp_private = false;
                inner.linear_readable = false;
                if self.has(Feature::NumThreads) && self.chance(30) {
                    clauses.push(Clause::NumThreads(self.rng.random_range(1..=3)));
                }
                if self.has(Feature::IfClause) && self.chance(20) {
                    let modifier = if self.chance(40) {
                        Some("parallel")
                    } else {
                        None
                    };
                    clauses.push(Clause::If(modifier, self.clause_cond(ctx)));
                }
                if self.chance(15) {
                    clauses.push(Clause::ProcBind(self.pick(&["close", "spread", "master"])));
                }
                inner.shared_data = true;
                inner.input_private = false;
                self.data_clauses(ctx, &mut inner, clauses, true);
                if self.chance(15) && !ctx.in_helper {
                    clauses.push(Clause::Shared(Var::Slots));
                }
                if self.has(Feature::Reduction) && sequential(ctx) && self.chance(30) {
                    if let Some(r) = self.free_reduction(ctx) {
                        let task_modifier = self.has(Feature::TaskReduction)
                            && ctx.task_reductions.is_empty()
                            && self.chance(25)
                            && !combined;
                        clauses.push(Clause::Reduction(
                            if task_modifier { Some("task") } else { None },
                            Var::Reduction(r),
                        ));
                        inner.reductions.push(r);
                        inner.reductions_in_use.push(r);
                        if task_modifier {
                            inner.task_reductions.push(r);
                        }
                    }
                }
            }
            Leaf::For | Leaf::Loop | Leaf::Distribute | Leaf::Taskloop | Leaf::Simd => {
                let shape_exists = loop_shape.is_some();
                if !shape_exists {
                    let collapse = if self.has(Feature::Collapse) && self.chance(20) {
                        2
                    } else {
                        1
                    };
                    let loops = self.loops(ctx, collapse);
                    if collapse > 1 {
                        clauses.push(Clause::Collapse(collapse));
                    }
                    *loop_shape = Some(LoopShape {
                        loops,
                        assigns_last: false,
                    });
                }
                let shape = loop_shape.as_mut().unwrap();
                if !shape_exists {
                    for (d, _) in &shape.loops {
                        inner.indices.push(*d);
                    }
                    inner.depth += shape.loops.len() as u8;
                    inner.continue_ok = true;
                    inner.replicated = false;
                    inner.no_worksharing = true;
                    // Iterations own their element of `a` when this loop hands
                    // them out to the team (or teams), or runs alone.
                    let hands_out = matches!(leaf, Leaf::For | Leaf::Loop | Leaf::Distribute)
                        && (ctx.replicated || ctx.teams)
                        && !ctx.nested;
                    let alone = sequential(ctx) && leaf != Leaf::Taskloop;
                    inner.slot = if (hands_out || alone) && !ctx.in_helper {
                        Some(self.slot_index(&shape.loops))
                    } else {
                        None
                    };
                }
                inner.may_print = !ctx.concurrent && !ctx.task && leaf != Leaf::Taskloop;
                if leaf == Leaf::Taskloop {
                    // The taskloop's tasks copy a variable that is private
                    // around them (a parallel task reduction's), so a task
                    // in them naming it in `in_reduction` names a copy no
                    // reduction knows: libgomp aborts, instrumented or not.
                    inner.task_reductions.clear();
                }
                match leaf {
                    Leaf::For => {
                        if self.has(Feature::Schedule) && self.chance(40) {
                            let kind =
                                self.pick(&["static", "dynamic", "guided", "auto", "runtime"]);
                            let chunk = if matches!(kind, "auto" | "runtime") || self.chance(50) {
                                None
                            } else {
                                Some(self.rng.random_range(1..=3))
                            };
                            clauses.push(Clause::Schedule(kind, chunk));
                        }
                        self.data_clauses(ctx, &mut inner, clauses, false);
                        let mut nowait = false;
                        if self.has(Feature::Ordered) && self.chance(25) && last {
                            clauses.push(Clause::Ordered);
                            inner.ordered_pending = true;
                        } else if self.has(Feature::Nowait) && !combined && self.chance(30) {
                            clauses.push(Clause::Nowait);
                            nowait = true;
                            inner.slot = None;
                        }
                        let dynamic = clauses
                            .iter()
                            .any(|c| matches!(c, Clause::Schedule("dynamic", _)));
                        let last_value = !dynamic || self.has(Feature::LastValueOfDynamicSchedule);
                        if self.has(Feature::Lastprivate)
                            && last_value
                            && !nowait
                            && sole_instance(ctx)
                            && ctx.shared_data
                            && !ctx.in_helper
                            && self.chance(25)
                        {
                            clauses.push(Clause::Lastprivate(Var::Last));
                            shape.assigns_last = true;
                        }
                        // Without the barrier the next loop may read the
                        // variable before the last iteration's value is
                        // given back, as for `lastprivate`.
                        if self.has(Feature::Linear)
                            && last_value
                            && !nowait
                            && shape.loops.len() == 1
                            && sole_instance(ctx)
                            && ctx.shared_data
                            && !ctx.in_helper
                            && self.chance(15)
                            && !ctx.linear_readable
                        {
                            clauses.push(Clause::Linear(Var::Linear, self.rng.random_range(1..=3)));
                            inner.linear_readable = true;
                        }
                        self.loop_reduction(ctx, &mut inner, clauses, nowait, combined);
                    }
                    Leaf::Loop => {
                        inner.restricted = true;
                        inner.teams = false;
                        inner.ordered_pending = false;
                        if !ctx.binds_to_team {
                            // Elsewhere the binding region is not defined:
                            // a loop construct must say what it binds to.
                            let binding = if ctx.replicated { "parallel" } else { "thread" };
                            clauses.push(Clause::Bind(binding));
                        }
                        if self.chance(20) {
                            clauses.push(Clause::Order("concurrent"));
                        }
                        let team_shares = ctx.binds_to_team || ctx.replicated;
                        if !team_shares || self.has(Feature::ReductionOnTeamLoopConstruct) {
                            self.loop_reduction(ctx, &mut inner, clauses, false, combined);
                        }
                    }
                    Leaf::Distribute => {
                        inner.teams = false;
                        inner.concurrent = true;
                        inner.task = false;
                        inner.distribute_body = true;
                        if self.chance(25) && !ctx.in_helper {
                            clauses.push(Clause::Firstprivate(Var::Input));
                        }
                    }
                    Leaf::Taskloop => {
                        inner.task = true;
                        inner.shared_data = false;
                        inner.slot = None;
                        inner.reductions.clear();
                        inner.ordered_pending = false;
                        inner.concurrent = ctx.concurrent;
                        inner.nested = true;
                        inner.temp_private = false;
                        inner.linear_readable = false;
                        match self.rng.random_range(0..4) {
                            0 => clauses.push(Clause::Grainsize(self.rng.random_range(1..=3))),
                            1 => clauses.push(Clause::NumTasks(self.rng.random_range(1..=3))),
                            _ => {}
                        }
                        if self.chance(30) {
                            clauses.push(Clause::Private(Var::Temp));
                            inner.temp_private = true;
                        }
                        let mut nogroup = false;
                        if self.chance(15) {
                            clauses.push(Clause::Nogroup);
                            nogroup = true;
                        }
                        // libgomp crashes or hangs on taskloop reductions
                        // outside parallel regions, so they go where one
                        // thread of a team runs.
                        if !nogroup
                            && self.has(Feature::Reduction)
                            && ctx.sole_executor
                            && self.chance(30)
                        {
                            if let Some(r) = self.free_reduction(ctx) {
                                clauses.push(Clause::Reduction(None, Var::Reduction(r)));
                                inner.reductions.push(r);
                                inner.reductions_in_use.push(r);
                            }
                        }
                        if self.has(Feature::Untied) && self.chance(15) {
                            clauses.push(Clause::Untied);
                        }
                    }
                    Leaf::Simd => {
                        inner.restricted = true;
                        inner.ordered_pending = false;
                        if self.chance(30) {
                            clauses.push(Clause::Simdlen(self.pick(&[2, 4])));
                        }
                        if !combined
                            && self.has(Feature::Reduction)
                            && sequential(ctx)
                            && self.chance(30)
                        {
                            if let Some(r) = self.free_reduction(ctx) {
                                clauses.push(Clause::Reduction(None, Var::Reduction(r)));
                                inner.reductions.push(r);
                                inner.reductions_in_use.push(r);
                            }
                        }
                    }
                    _ => unreachable!(),
                }
                if inner.restricted {
                    inner.temp_private = false;
                }
            }
            Leaf::Sections | Leaf::Single | Leaf::Scope => {
                inner.sole_executor =
                    leaf == Leaf::Single && ctx.replicated && !ctx.nested && !ctx.task;
                inner.no_worksharing = leaf != Leaf::Scope;
                inner.replicated = leaf == Leaf::Scope && ctx.replicated;
                inner.may_print = !ctx.concurrent && !ctx.task;
                inner.slot = None;
                if leaf == Leaf::Scope {
                    if self.chance(25) {
                        clauses.push(Clause::Private(Var::Temp));
                        inner.temp_private = true;
                    }
                } else {
                    self.data_clauses(ctx, &mut inner, clauses, false);
                }
                if leaf != Leaf::Single
                    && self.has(Feature::Reduction)
                    && sole_instance(ctx)
                    && ctx.shared_data
                    && !ctx.in_helper
                    && self.chance(25)
                {
                    if let Some(r) = self.free_reduction(ctx) {
                        let task_modifier = leaf == Leaf::Sections
                            && self.has(Feature::TaskReductionModifierOnWorksharing)
                            && self.chance(40);
                        clauses.push(Clause::Reduction(
                            if task_modifier { Some("task") } else { None },
                            Var::Reduction(r),
                        ));
                        inner.reductions.push(r);
                        inner.reductions_in_use.push(r);
                        if task_modifier {
                            inner.task_reductions.push(r);
                        }
                    }
                }
                let forbids_nowait = clauses
                    .iter()
                    .any(|c| matches!(c, Clause::Reduction(Some("task"), _)));
                if self.has(Feature::Nowait) && !combined && !forbids_nowait && self.chance(30) {
                    clauses.push(Clause::Nowait);
                }
            }
            Leaf::Master | Leaf::Masked => {
                inner.sole_executor = ctx.replicated && !ctx.nested && !ctx.task;
                inner.replicated = false;
                inner.no_worksharing = true;
                inner.may_print = !ctx.concurrent && !ctx.task;
                inner.slot = None;
                if leaf == Leaf::Masked && self.chance(40) {
                    clauses.push(Clause::Filter(0));
                }
            }
            Leaf::Critical => {
                inner.no_worksharing = true;
                inner.exclusive = true;
                // An ordered region may not be closely nested in a critical one.
                inner.ordered_pending = false;
                let mut names = vec!["", "alpha", "beta", "gamma"];
                names.retain(|n| !ctx.critical_names.contains(n));
                let name = self.pick(&names);
                inner.critical_names.push(name);
                if !name.is_empty() {
                    clauses.push(Clause::CriticalName(name.to_string()));
                    if self.features.has(Feature::CriticalHint) && self.chance(20) {
                        clauses.push(Clause::Hint(0));
                    }
                }
                inner.may_print = false;
            }
            Leaf::Ordered => {
                inner.ordered_pending = false;
                inner.no_worksharing = true;
                inner.may_print = !ctx.nested && !ctx.task;
            }
            Leaf::Task => {
                inner.task = true;
                inner.shared_data = false;
                inner.nested = true;
                inner.no_worksharing = true;
                inner.reductions.clear();
                inner.slot = None;
                inner.may_print = false;
                inner.temp_private = false;
                inner.linear_readable = false;
                inner.ordered_pending = false;
                if self.has(Feature::IfClause) && self.chance(20) {
                    clauses.push(Clause::If(None, self.clause_cond(ctx)));
                }
                if self.chance(15) {
                    clauses.push(Clause::Final(self.clause_cond(ctx)));
                }
                if self.chance(10) {
                    clauses.push(Clause::Mergeable);
                }
                if self.chance(10) {
                    clauses.push(Clause::Priority(1));
                }
                if self.has(Feature::Untied) && self.chance(15) {
                    clauses.push(Clause::Untied);
                }
                if self.chance(25) {
                    clauses.push(Clause::Private(Var::Temp));
                    inner.temp_private = true;
                }
                if self.chance(20) && !ctx.in_helper {
                    clauses.push(Clause::Firstprivate(Var::Input));
                }
                if self.has(Feature::DefaultNone) && self.chance(15) {
                    clauses.push(Clause::DefaultNone);
                }
                if !ctx.task_reductions.is_empty() && self.chance(60) {
                    let r = self.pick(&ctx.task_reductions);
                    clauses.push(Clause::InReduction(Var::Reduction(r)));
                    inner.reductions.push(r);
                }
                // In the task the variable is the task's own copy, which no
                // enclosing reduction knows: a task nested in it may not
                // name it in `in_reduction`.
                inner.task_reductions.clear();
            }
            Leaf::Taskgroup => {
                // The thread that meets the taskgroup runs its body.
                inner.sole_executor = ctx.sole_executor;
                // An ordered region must be closely nested in its loop's.
                inner.ordered_pending = false;
                // Where no other code runs, or where one thread of a team
                // runs it: the reduction's tasks may run on any thread.
                let place = if sequential(ctx) {
                    self.has(Feature::OrphanedTaskReduction)
                } else {
                    ctx.sole_executor
                };
                if self.has(Feature::TaskReduction) && place && !ctx.in_helper && self.chance(30) {
                    if let Some(r) = self.free_reduction(ctx) {
                        clauses.push(Clause::TaskReduction(Var::Reduction(r)));
                        inner.reductions_in_use.push(r);
                        inner.task_reductions.push(r);
                    }
                }
            }
            Leaf::Teams => {
                inner.teams = true;
                inner.in_league = true;
                inner.shared_data = true;
                inner.concurrent = true;
                inner.replicated = true;
                inner.may_print = false;
                inner.reductions.clear();
                inner.slot = None;
                inner.temp_private = false;
                let fewest = if self.has(Feature::LeagueOfOne) { 1 } else { 2 };
                clauses.push(Clause::NumTeams(self.rng.random_range(fewest..=3)));
                if self.has(Feature::Reduction)
                    && self.has(Feature::ReductionOnTeams)
                    && sequential(ctx)
                    && self.chance(30)
                {
                    if let Some(r) = self.free_reduction(ctx) {
                        clauses.push(Clause::Reduction(None, Var::Reduction(r)));
                        inner.reductions.push(r);
                        inner.reductions_in_use.push(r);
                    }
                }
                if self.has(Feature::DefaultNone) && self.chance(20) {
                    clauses.push(Clause::DefaultNone);
                }
            }
            Leaf::Workshare => {
                // No nowait: the loops after it write elements of `a` too.
                inner.no_worksharing = true;
            }
        }
        inner.in_construct = true;
        inner
    }

    /// `private`, `firstprivate` and `default` clauses of parallel and
    /// worksharing leaves.
    fn data_clauses(
        &mut self,
        ctx: &Ctx,
        inner: &mut Ctx,
        clauses: &mut Vec<Clause>,
        parallel: bool,
    ) {
        if self.chance(25) {
            clauses.push(Clause::Private(Var::Temp));
            inner.temp_private = true;
        }
        // A worksharing construct may only privatise what is shared around it.
        let may_name_input = parallel || (ctx.shared_data && !ctx.input_private);
        if self.chance(20) && !ctx.in_helper && may_name_input {
            clauses.push(Clause::Firstprivate(Var::Input));
            inner.input_private = true;
        }
        if parallel {
            if self.has(Feature::DefaultNone) && self.chance(25) {
                clauses.push(Clause::DefaultNone);
            } else if self.chance(10) {
                clauses.push(Clause::DefaultShared);
            }
        }
    }

    fn loop_reduction(
        &mut self,
        ctx: &Ctx,
        inner: &mut Ctx,
        clauses: &mut Vec<Clause>,
        nowait: bool,
        combined: bool,
    ) {
        if self.has(Feature::Reduction)
            && sole_instance(ctx)
            && ctx.shared_data
            && !ctx.in_helper
            && self.chance(30)
        {
            if let Some(r) = self.free_reduction(ctx) {
                let task_modifier = !nowait
                    && !combined
                    && !inner.restricted
                    && self.has(Feature::TaskReductionModifierOnWorksharing)
                    && (self.has(Feature::LinearWithTaskReduction)
                        || !clauses.iter().any(|c| matches!(c, Clause::Linear(..))))
                    && self.chance(30);
                clauses.push(Clause::Reduction(
                    if task_modifier { Some("task") } else { None },
                    Var::Reduction(r),
                ));
                inner.reductions.push(r);
                inner.reductions_in_use.push(r);
                if task_modifier {
                    inner.task_reductions.push(r);
                }
            }
        }
    }

    fn slot_index(&mut self, loops: &[(u8, i64)]) -> Expr {
        let base = self.stretch();
        let mut terms = Vec::new();
        let mut stride = 1;
        for (d, trips) in loops.iter().rev() {
            terms.push((stride, Var::Index(*d)));
            stride *= trips;
        }
        terms.reverse();
        Expr {
            constant: base,
            terms,
        }
    }
}

/// No other code runs at the same time (the initial thread, outside tasks).
fn sequential(ctx: &Ctx) -> bool {
    !ctx.concurrent && !ctx.task
}

/// This construct is the only one of its kind running now: sequential
/// code, or the whole team of an outermost region meeting it together.
fn sole_instance(ctx: &Ctx) -> bool {
    sequential(ctx) || (ctx.replicated && !ctx.nested && !ctx.task)
}

fn standalone(name: &'static str) -> Stmt {
    Stmt::Omp(Construct {
        names: vec![name],
        clauses: Vec::new(),
        body: Body::Standalone,
        end_directive: false,
    })
}

/// What keeps concurrent updates of a global apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Guard {
    Atomic,
    Critical,
    Lock,
    NestLock,
}

#[derive(Clone, Debug)]
struct LoopShape {
    loops: Vec<(u8, i64)>,
    assigns_last: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leaf {
    Parallel,
    For,
    Loop,
    Distribute,
    Taskloop,
    Simd,
    Sections,
    Single,
    Scope,
    Master,
    Masked,
    Critical,
    Ordered,
    Task,
    Taskgroup,
    Teams,
    Workshare,
}

impl Leaf {
    fn name(self) -> &'static str {
        match self {
            Leaf::Parallel => "parallel",
            Leaf::For => "for",
            Leaf::Loop => "loop",
            Leaf::Distribute => "distribute",
            Leaf::Taskloop => "taskloop",
            Leaf::Simd => "simd",
            Leaf::Sections => "sections",
            Leaf::Single => "single",
            Leaf::Scope => "scope",
            Leaf::Master => "master",
            Leaf::Masked => "masked",
            Leaf::Critical => "critical",
            Leaf::Ordered => "ordered",
            Leaf::Task => "task",
            Leaf::Taskgroup => "taskgroup",
            Leaf::Teams => "teams",
            Leaf::Workshare => "workshare",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Update,
    Print,
    If,
    Loop,
    Switch,
    Block,
    Jump,
    Return,
    UserRegion,
    Guard,
    Call,
    Locked,
    Atomic,
    Barrier,
    Taskwait,
    Taskyield,
    Flush,
    Parallel,
    For,
    Sections,
    Single,
    Masked,
    Critical,
    Ordered,
    Task,
    Taskgroup,
    Taskloop,
    Scope,
    LoopConstruct,
    Simd,
    Teams,
    Distribute,
    Workshare,
}

impl Ctx {
    /// The context of statements nested in an if, loop or block: the same
    /// executor, one level deeper.
    fn nested_in_statement(&self) -> Ctx {
        let mut inner = self.clone();
        inner.nesting += 1;
        inner.pending_label = None;
        // An ordered region must run exactly once per iteration.
        inner.ordered_pending = false;
        inner
    }
}

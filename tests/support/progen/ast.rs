//! The program model the generator builds and the shrinker cuts down. It is
//! one tree for C and Fortran: the renderers decide the spelling, so a
//! shrinking step is the same edit in both languages.

/// The source language and, for Fortran, the source form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lang {
    C,
    FortranFree,
    FortranFixed,
}

impl Lang {
    pub fn is_fortran(self) -> bool {
        self != Lang::C
    }

    pub fn extension(self) -> &'static str {
        match self {
            Lang::C => "c",
            Lang::FortranFree => "f90",
            Lang::FortranFixed => "f",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Lang::C => "c",
            Lang::FortranFree => "free",
            Lang::FortranFixed => "fixed",
        }
    }
}

/// Every variable a generated program names. Kernels are functions that
/// share the globals; everything else is local to one kernel or helper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Var {
    /// File-scope accumulators `g0`..`g3`, updated under synchronisation.
    Global(u8),
    /// Kernel locals `r0`, `r1` that reduction clauses name.
    Reduction(u8),
    /// The kernel's array `a`, written at one index per loop iteration.
    Slots,
    /// Assigned in every iteration of a loop that makes it lastprivate.
    Last,
    /// Read-only input, named by firstprivate clauses.
    Input,
    /// Stepped by a linear clause.
    Linear,
    /// A scratch value, usable only where a private clause covers it.
    Temp,
    /// The kernel's parameter `n`.
    Param,
    /// The loop index of nesting depth `d`.
    Index(u8),
    /// The global lock and nest lock.
    Lock,
    NestLock,
}

pub const GLOBALS: u8 = 4;
pub const REDUCTIONS: u8 = 2;
/// The length of `a`; loop nests indexing it stay below it.
pub const SLOTS: i64 = 512;
/// Each loop that writes `a` gets its own stretch of this many slots, so
/// loops that may run at the same time never write the same element.
pub const SLOT_STRETCH: i64 = 40;
/// The value every kernel is called with.
pub const PARAM_VALUE: i64 = 5;
pub const INPUT_VALUE: i64 = 7;
pub const LINEAR_START: i64 = 3;

/// `constant + Σ factor·operand`: small integers only, so no sum overflows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Expr {
    pub constant: i64,
    pub terms: Vec<(i64, Var)>,
}

impl Expr {
    pub fn constant(value: i64) -> Expr {
        Expr {
            constant: value,
            terms: Vec::new(),
        }
    }

    pub fn vars(&self) -> impl Iterator<Item = Var> + '_ {
        self.terms.iter().map(|(_, var)| *var)
    }
}

/// Conditions read only loop indices and the parameter, so every thread
/// evaluates them alike and the program stays deterministic.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Cond {
    Even(u8),
    Below(u8, i64),
    ParamAbove(i64),
    True,
}

impl Cond {
    pub fn vars(&self) -> Vec<Var> {
        match self {
            Cond::Even(d) | Cond::Below(d, _) => vec![Var::Index(*d)],
            Cond::ParamAbove(_) => vec![Var::Param],
            Cond::True => Vec::new(),
        }
    }
}

/// What a plain or atomic update changes: `target += expr`, except for
/// [`Var::Last`] and [`Var::Temp`], which are assigned.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Update {
    pub target: Target,
    pub expr: Expr,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    Var(Var),
    /// `a[index]`, the index an expression of the enclosing loop indices.
    Slot(Expr),
}

impl Target {
    pub fn vars(&self) -> Vec<Var> {
        match self {
            Target::Var(var) => vec![*var],
            Target::Slot(index) => std::iter::once(Var::Slots).chain(index.vars()).collect(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicForm {
    Bare,
    Update,
    SeqCst,
    Relaxed,
    /// `v = x += e` in C (`capture` with the old value discarded into a
    /// private scratch value); Fortran writes the two-statement block.
    Capture,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LockKind {
    Set,
    /// Spin on `omp_test_lock` until it is taken.
    Test,
    /// A nest lock taken twice.
    Nest,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SeqLoopKind {
    For,
    While,
    DoWhile,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GuardKind {
    /// `#ifdef _OPENMP` … `#endif` (Fortran: the `!$` sentinel on each
    /// simple statement).
    Ifdef,
    /// `#if defined(_OPENMP)` … `#else` the same code `#endif`.
    IfElse,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Stmt {
    Assign(Update),
    Atomic(AtomicForm, Update),
    Print(Expr),
    Block(Vec<Stmt>),
    If {
        cond: Cond,
        then: Vec<Stmt>,
        otherwise: Option<Vec<Stmt>>,
    },
    Loop {
        kind: SeqLoopKind,
        depth: u8,
        trips: i64,
        /// Fortran: the loop carries a construct name (`l3: do`), and jumps
        /// out of inner loops may name it.
        named: bool,
        body: Vec<Stmt>,
    },
    /// C only: `switch (i_d % cases)`; a case without `break` falls through.
    Switch {
        depth: u8,
        cases: Vec<(Vec<Stmt>, bool)>,
    },
    Break,
    Continue,
    /// Fortran `exit`/`cycle` naming the loop of nesting depth `d`.
    ExitNamed(u8),
    CycleNamed(u8),
    /// A forward jump to `Label` in the same statement list.
    Goto(u32),
    Label(u32),
    /// `return` from a kernel with a value, or from a helper without one.
    Return(Option<Expr>),
    UserRegion {
        name: String,
        body: Vec<Stmt>,
    },
    Locked(LockKind, Vec<Stmt>),
    Guarded(GuardKind, Vec<Stmt>),
    /// A call of helper routine `index` with the caller's loop indices of
    /// these depths, which the helper receives under the same names.
    Call(usize, Vec<u8>),
    Omp(Construct),
}

/// A directive and what it applies to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Construct {
    /// Leaf construct names as OpenMP spells them in C (`parallel`, `for`,
    /// `masked`, `taskloop`); Fortran renders `for` as `do`.
    pub names: Vec<&'static str>,
    pub clauses: Vec<Clause>,
    pub body: Body,
    /// Fortran: write the optional end directive of a loop or atomic.
    pub end_directive: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Body {
    Standalone,
    Block(Vec<Stmt>),
    Loop(LoopNest),
    /// The sections, and whether the first one's `section` directive,
    /// which is optional, is written.
    Sections(Vec<Vec<Stmt>>, bool),
    /// Fortran `workshare`: array assignments over all of `a` and, when
    /// asked, an atomic update of a global.
    Workshare(Vec<WorkshareStmt>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum WorkshareStmt {
    /// `a = a + k`.
    ArrayAdd(i64),
    /// `r = r + sum(a)` style reduction into a global under atomic.
    Atomic(Update),
}

/// A loop nest a loop directive applies to: the first `vars.len()` loops are
/// the associated (collapsed) ones, each `(depth, trips)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LoopNest {
    pub loops: Vec<(u8, i64)>,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Clause {
    Private(Var),
    Firstprivate(Var),
    Lastprivate(Var),
    Shared(Var),
    Reduction(Option<&'static str>, Var),
    InReduction(Var),
    TaskReduction(Var),
    DefaultNone,
    DefaultShared,
    /// `if([modifier:] cond)`.
    If(Option<&'static str>, Cond),
    NumThreads(u32),
    Schedule(&'static str, Option<u32>),
    Collapse(u32),
    Nowait,
    Ordered,
    Linear(Var, i64),
    NumTeams(u32),
    Filter(u32),
    ProcBind(&'static str),
    Untied,
    Mergeable,
    Final(Cond),
    Priority(u32),
    Grainsize(u32),
    NumTasks(u32),
    Nogroup,
    /// `critical(name)`; C writes it in parentheses after the name.
    CriticalName(String),
    Hint(u32),
    Order(&'static str),
    Simdlen(u32),
    Bind(&'static str),
}

impl Clause {
    /// Variables a clause names (and so need not be listed again under
    /// `default(none)`).
    pub fn named_vars(&self) -> Vec<Var> {
        match self {
            Clause::Private(v)
            | Clause::Firstprivate(v)
            | Clause::Lastprivate(v)
            | Clause::Shared(v)
            | Clause::Reduction(_, v)
            | Clause::InReduction(v)
            | Clause::TaskReduction(v)
            | Clause::Linear(v, _) => vec![*v],
            Clause::If(_, c) | Clause::Final(c) => c.vars(),
            _ => Vec::new(),
        }
    }

    /// The name of a clause a directive may hold at most once (clauses
    /// that exclude each other share one); `None` for those that may
    /// repeat.
    pub fn once_per_directive(&self) -> Option<&'static str> {
        Some(match self {
            Clause::DefaultNone | Clause::DefaultShared => "default",
            Clause::If(modifier, _) => modifier.unwrap_or("if"),
            Clause::NumThreads(_) => "num_threads",
            Clause::Schedule(..) => "schedule",
            Clause::Collapse(_) => "collapse",
            Clause::Nowait => "nowait",
            Clause::Ordered => "ordered",
            Clause::NumTeams(_) => "num_teams",
            Clause::Filter(_) => "filter",
            Clause::ProcBind(_) => "proc_bind",
            Clause::Untied => "untied",
            Clause::Mergeable => "mergeable",
            Clause::Final(_) => "final",
            Clause::Priority(_) => "priority",
            Clause::Grainsize(_) | Clause::NumTasks(_) => "grainsize or num_tasks",
            Clause::Nogroup => "nogroup",
            Clause::Hint(_) => "hint",
            Clause::Order(_) => "order",
            Clause::Simdlen(_) => "simdlen",
            Clause::Bind(_) => "bind",
            _ => return None,
        })
    }

    /// Variables a clause reads or refers to in the enclosing context.
    pub fn referenced_vars(&self) -> Vec<Var> {
        self.named_vars()
    }
}

/// A routine called once from a kernel or another helper; it receives the
/// caller's readable loop indices as arguments of the same names.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Helper {
    pub params: Vec<u8>,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Kernel {
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Program {
    pub lang: Lang,
    pub kernels: Vec<Kernel>,
    pub helpers: Vec<Helper>,
    /// The status `main` ends with.
    pub exit_code: u8,
    pub measurement: Measurement,
}

/// What is measured besides the OpenMP constructs, and how: the program's
/// file states it in its header (`super::measurement`), so that a kept
/// program is checked as it was generated.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Measurement {
    /// The code regions pomp makes (`--regions=...`).
    pub regions: Option<String>,
    /// The rules of the filter's region-name block (`--filter`), each as a
    /// filter file writes it: `EXCLUDE kernel1 *loop@*`.
    pub filter: Vec<String>,
    /// The visits after which pomp's runtime stops timing a call path
    /// (`POMP_THROTTLE_NUMCALLS`, any time per visit counting as cheap);
    /// none: every visit is timed.
    pub throttle_after: Option<u32>,
    /// pomp is given the preprocessor's output (`gcc -E`, `gfortran -E
    /// -cpp`) rather than the source.
    pub preprocessed: bool,
}

impl Stmt {
    /// The statement lists directly inside this statement, for walks.
    pub fn children(&self) -> Vec<&Vec<Stmt>> {
        match self {
            Stmt::Block(b)
            | Stmt::Loop { body: b, .. }
            | Stmt::UserRegion { body: b, .. }
            | Stmt::Locked(_, b)
            | Stmt::Guarded(_, b) => vec![b],
            Stmt::If {
                then, otherwise, ..
            } => std::iter::once(then).chain(otherwise.iter()).collect(),
            Stmt::Switch { cases, .. } => cases.iter().map(|(b, _)| b).collect(),
            Stmt::Omp(c) => c.body.children(),
            _ => Vec::new(),
        }
    }

    pub fn children_mut(&mut self) -> Vec<&mut Vec<Stmt>> {
        match self {
            Stmt::Block(b)
            | Stmt::Loop { body: b, .. }
            | Stmt::UserRegion { body: b, .. }
            | Stmt::Locked(_, b)
            | Stmt::Guarded(_, b) => vec![b],
            Stmt::If {
                then, otherwise, ..
            } => std::iter::once(then).chain(otherwise.iter_mut()).collect(),
            Stmt::Switch { cases, .. } => cases.iter_mut().map(|(b, _)| b).collect(),
            Stmt::Omp(c) => c.body.children_mut(),
            _ => Vec::new(),
        }
    }

    /// Variables this statement itself reads or writes (not its children).
    pub fn own_vars(&self) -> Vec<Var> {
        match self {
            Stmt::Assign(u) | Stmt::Atomic(_, u) => {
                let mut vars = u.target.vars();
                vars.extend(u.expr.vars());
                vars
            }
            Stmt::Print(e) | Stmt::Return(Some(e)) => e.vars().collect(),
            Stmt::If { cond, .. } => cond.vars(),
            Stmt::Switch { depth, .. } => vec![Var::Index(*depth)],
            Stmt::Call(_, args) => args.iter().map(|d| Var::Index(*d)).collect(),
            Stmt::Locked(LockKind::Nest, _) => vec![Var::NestLock],
            Stmt::Locked(_, _) => vec![Var::Lock],
            Stmt::Omp(c) => {
                let mut vars: Vec<Var> =
                    c.clauses.iter().flat_map(|c| c.referenced_vars()).collect();
                if let Body::Workshare(stmts) = &c.body {
                    vars.push(Var::Slots);
                    for s in stmts {
                        if let WorkshareStmt::Atomic(u) = s {
                            vars.extend(u.target.vars());
                            vars.extend(u.expr.vars());
                        }
                    }
                }
                vars
            }
            _ => Vec::new(),
        }
    }
}

impl Body {
    pub fn children(&self) -> Vec<&Vec<Stmt>> {
        match self {
            Body::Block(b) => vec![b],
            Body::Loop(nest) => vec![&nest.body],
            Body::Sections(s, _) => s.iter().collect(),
            Body::Standalone | Body::Workshare(_) => Vec::new(),
        }
    }

    pub fn children_mut(&mut self) -> Vec<&mut Vec<Stmt>> {
        match self {
            Body::Block(b) => vec![b],
            Body::Loop(nest) => vec![&mut nest.body],
            Body::Sections(s, _) => s.iter_mut().collect(),
            Body::Standalone | Body::Workshare(_) => Vec::new(),
        }
    }
}

/// Variables a statement list refers to that it does not bind itself: what
/// a `default(none)` construct around it must list. Loop indices bound by
/// loops inside are left out; so are the indices in `bound`.
pub fn free_vars(stmts: &[Stmt], bound: &[u8]) -> Vec<Var> {
    let mut found = Vec::new();
    let mut bound = bound.to_vec();
    collect_free(stmts, &mut bound, &mut found);
    found.sort();
    found.dedup();
    found
}

fn collect_free(stmts: &[Stmt], bound: &mut Vec<u8>, found: &mut Vec<Var>) {
    for stmt in stmts {
        let mut own = stmt.own_vars();
        let mut binds = Vec::new();
        match stmt {
            Stmt::Loop { depth, .. } => binds.push(*depth),
            Stmt::Omp(c) => {
                if let Body::Loop(nest) = &c.body {
                    binds.extend(nest.loops.iter().map(|(d, _)| *d));
                }
            }
            _ => {}
        }
        own.retain(|v| !matches!(v, Var::Index(d) if bound.contains(d)));
        found.extend(own);
        let before = bound.len();
        bound.extend(binds);
        for child in stmt.children() {
            collect_free(child, bound, found);
        }
        bound.truncate(before);
    }
}

/// Calls inside a statement list, for keeping helpers that are still used.
pub fn calls(stmts: &[Stmt], out: &mut Vec<usize>) {
    for stmt in stmts {
        if let Stmt::Call(index, _) = stmt {
            out.push(*index);
        }
        for child in stmt.children() {
            calls(child, out);
        }
    }
}

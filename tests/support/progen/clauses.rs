//! What both renderers write alike: clause text, given how a language
//! spells variables and conditions, and the variables a `default(none)`
//! construct must list.

use super::ast::*;

pub fn clause_text(
    c: &Clause,
    var: &dyn Fn(Var) -> String,
    cond: &dyn Fn(&Cond) -> String,
) -> String {
    match c {
        Clause::Private(v) => format!("private({})", var(*v)),
        Clause::Firstprivate(v) => format!("firstprivate({})", var(*v)),
        Clause::Lastprivate(v) => format!("lastprivate({})", var(*v)),
        Clause::Shared(v) => format!("shared({})", var(*v)),
        Clause::Reduction(Some(m), v) => format!("reduction({m}, +:{})", var(*v)),
        Clause::Reduction(None, v) => format!("reduction(+:{})", var(*v)),
        Clause::InReduction(v) => format!("in_reduction(+:{})", var(*v)),
        Clause::TaskReduction(v) => format!("task_reduction(+:{})", var(*v)),
        Clause::DefaultNone => "default(none)".into(),
        Clause::DefaultShared => "default(shared)".into(),
        Clause::If(Some(m), c) => format!("if({m}: {})", cond(c)),
        Clause::If(None, c) => format!("if({})", cond(c)),
        Clause::NumThreads(k) => format!("num_threads({k})"),
        Clause::Schedule(kind, Some(chunk)) => format!("schedule({kind}, {chunk})"),
        Clause::Schedule(kind, None) => format!("schedule({kind})"),
        Clause::Collapse(k) => format!("collapse({k})"),
        Clause::Nowait => "nowait".into(),
        Clause::Ordered => "ordered".into(),
        Clause::Linear(v, step) => format!("linear({}:{step})", var(*v)),
        Clause::NumTeams(k) => format!("num_teams({k})"),
        Clause::Filter(k) => format!("filter({k})"),
        Clause::ProcBind(kind) => format!("proc_bind({kind})"),
        Clause::Untied => "untied".into(),
        Clause::Mergeable => "mergeable".into(),
        Clause::Final(c) => format!("final({})", cond(c)),
        Clause::Priority(k) => format!("priority({k})"),
        Clause::Grainsize(k) => format!("grainsize({k})"),
        Clause::NumTasks(k) => format!("num_tasks({k})"),
        Clause::Nogroup => "nogroup".into(),
        Clause::CriticalName(name) => format!("({name})"),
        Clause::Hint(k) => format!("hint({k})"),
        Clause::Order(kind) => format!("order({kind})"),
        Clause::Simdlen(k) => format!("simdlen({k})"),
        Clause::Bind(kind) => format!("bind({kind})"),
    }
}

/// How a `default(none)` construct lists a variable it uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    Shared,
    Firstprivate,
    Private,
}

impl Sharing {
    pub fn clause(self) -> &'static str {
        match self {
            Sharing::Shared => "shared",
            Sharing::Firstprivate => "firstprivate",
            Sharing::Private => "private",
        }
    }
}

/// The data-sharing list a `default(none)` construct needs: everything its
/// body and clauses use that no clause of its own names. Loop indices from
/// outside are read-only inside, so they are shared, except in tasks, which
/// may outlive the loop that sets them: there they are firstprivate. So are
/// the other scalars a task only reads (the input, the scratch value, the
/// parameter): around it they may be a thread's private copies, which end
/// with the thread's implicit task, before the barrier that runs the tasks
/// still pending.
///
/// gfortran also wants the indices of `simd` loops inside listed, which
/// are lastprivate there and so refer to the variable outside: where the
/// body uses no value of theirs from outside they are private, since a
/// shared one would also be the index of every sequential loop of the
/// body over it, which each thread of a team then steps at once.
pub fn default_none_list(c: &Construct, fortran: bool) -> Vec<(Sharing, Var)> {
    let bound: Vec<u8> = match &c.body {
        Body::Loop(nest) => nest.loops.iter().map(|(d, _)| *d).collect(),
        _ => Vec::new(),
    };
    let mut used: Vec<Var> = Vec::new();
    let mut simd: Vec<Var> = Vec::new();
    for child in c.body.children() {
        used.extend(free_vars(child, &bound));
        if fortran {
            simd_indices(child, &mut simd);
        }
    }
    if let Body::Workshare(stmts) = &c.body {
        used.push(Var::Slots);
        for s in stmts {
            if let WorkshareStmt::Atomic(u) = s {
                used.extend(u.target.vars());
                used.extend(u.expr.vars());
            }
        }
    }
    for clause in &c.clauses {
        if !matches!(
            clause,
            Clause::Private(_)
                | Clause::Firstprivate(_)
                | Clause::Lastprivate(_)
                | Clause::Shared(_)
                | Clause::Reduction(..)
                | Clause::InReduction(_)
                | Clause::TaskReduction(_)
                | Clause::Linear(..)
        ) {
            used.extend(clause.referenced_vars());
        }
    }
    let named: Vec<Var> = c
        .clauses
        .iter()
        .flat_map(|c| match c {
            Clause::If(..) | Clause::Final(_) => Vec::new(),
            other => other.named_vars(),
        })
        .collect();
    let task = c.names.iter().any(|n| matches!(*n, "task" | "taskloop"));
    let mut list: Vec<(Sharing, Var)> = (used.iter().copied())
        .map(
            |v| match task && matches!(v, Var::Index(_) | Var::Input | Var::Temp | Var::Param) {
                true => (Sharing::Firstprivate, v),
                false => (Sharing::Shared, v),
            },
        )
        .chain(
            (simd.into_iter())
                .filter(|v| !used.contains(v))
                .map(|v| (Sharing::Private, v)),
        )
        .filter(|(_, v)| !named.contains(v) && !matches!(v, Var::Index(d) if bound.contains(d)))
        .collect();
    list.sort_by_key(|(_, v)| *v);
    list.dedup_by_key(|(_, v)| *v);
    list
}

fn simd_indices(stmts: &[Stmt], out: &mut Vec<Var>) {
    for stmt in stmts {
        if let Stmt::Omp(c) = stmt {
            if let Body::Loop(nest) = &c.body {
                if c.names.contains(&"simd") {
                    out.extend(nest.loops.iter().map(|(d, _)| Var::Index(*d)));
                }
            }
        }
        for child in stmt.children() {
            simd_indices(child, out);
        }
    }
}

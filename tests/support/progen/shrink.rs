//! Cuts a failing program down: tries to remove each statement, to replace
//! it by what it contains, to drop clauses, leaves of combined constructs,
//! sections and else branches, and to make loops and expressions trivial,
//! keeping every change after which the program still fails the same way.
//! Whether a smaller program is still valid is for the compiler and the
//! original's runs to tell: the caller's test rejects invalid programs.

use super::ast::*;
use std::collections::HashSet;

/// Shrinks `program` while `still_fails` holds, trying at most `budget`
/// candidates.
pub fn shrink(
    program: &Program,
    still_fails: &mut dyn FnMut(&Program) -> bool,
    budget: usize,
) -> Program {
    let mut current = program.clone();
    let mut tried: HashSet<Program> = HashSet::new();
    let mut attempts = 0;
    let mut attempt = |candidate: &Program, tried: &mut HashSet<Program>| -> Option<bool> {
        if !tried.insert(candidate.clone()) {
            return Some(false);
        }
        if attempts >= budget {
            return None;
        }
        attempts += 1;
        Some(still_fails(candidate))
    };
    loop {
        let mut progress = false;
        for candidate in whole_program_edits(&current) {
            match attempt(&candidate, &mut tried) {
                None => return current,
                Some(true) => {
                    current = candidate;
                    progress = true;
                }
                Some(false) => {}
            }
        }
        let mut position = 0;
        while position < count(&current) {
            let stmt = nth(&current, position).clone();
            let mut accepted = false;
            for replacement in variants(&stmt) {
                let candidate = replaced(&current, position, replacement);
                match attempt(&candidate, &mut tried) {
                    None => return current,
                    Some(true) => {
                        current = candidate;
                        accepted = true;
                        progress = true;
                        break;
                    }
                    Some(false) => {}
                }
            }
            // After a change the same position holds the next statement.
            if !accepted {
                position += 1;
            }
        }
        if !progress {
            return current;
        }
    }
}

fn whole_program_edits(program: &Program) -> Vec<Program> {
    let mut out = Vec::new();
    if program.kernels.len() > 1 {
        for k in 0..program.kernels.len() {
            let mut p = program.clone();
            p.kernels.remove(k);
            out.push(pruned(p));
        }
    }
    if program.exit_code != 0 {
        let mut p = program.clone();
        p.exit_code = 0;
        out.push(p);
    }
    let measurement = &program.measurement;
    if measurement.regions.is_some() {
        let mut p = program.clone();
        p.measurement.regions = None;
        out.push(p);
    }
    for rule in 0..measurement.filter.len() {
        let mut p = program.clone();
        p.measurement.filter.remove(rule);
        out.push(p);
    }
    if measurement.throttle_after.is_some() {
        let mut p = program.clone();
        p.measurement.throttle_after = None;
        out.push(p);
    }
    out
}

/// Every statement list of the program, kernels first, then helpers.
fn lists(program: &Program) -> Vec<&Vec<Stmt>> {
    program
        .kernels
        .iter()
        .map(|k| &k.body)
        .chain(program.helpers.iter().map(|h| &h.body))
        .collect()
}

fn lists_mut(program: &mut Program) -> Vec<&mut Vec<Stmt>> {
    program
        .kernels
        .iter_mut()
        .map(|k| &mut k.body)
        .chain(program.helpers.iter_mut().map(|h| &mut h.body))
        .collect()
}

fn count_in(stmts: &[Stmt]) -> usize {
    stmts
        .iter()
        .map(|s| 1 + s.children().iter().map(|c| count_in(c)).sum::<usize>())
        .sum()
}

fn count(program: &Program) -> usize {
    lists(program).iter().map(|l| count_in(l)).sum()
}

/// The statement at `position` in a pre-order walk.
fn nth(program: &Program, position: usize) -> &Stmt {
    fn find<'a>(stmts: &'a [Stmt], position: &mut usize) -> Option<&'a Stmt> {
        for stmt in stmts {
            if *position == 0 {
                return Some(stmt);
            }
            *position -= 1;
            for child in stmt.children() {
                if let Some(found) = find(child, position) {
                    return Some(found);
                }
            }
        }
        None
    }
    let mut left = position;
    lists(program)
        .into_iter()
        .find_map(|list| find(list, &mut left))
        .unwrap_or_else(|| panic!("no statement {position}"))
}

/// The program with the statement at `position` replaced by `replacement`.
fn replaced(program: &Program, position: usize, replacement: Vec<Stmt>) -> Program {
    fn replace(
        stmts: &mut Vec<Stmt>,
        position: &mut usize,
        replacement: &mut Option<Vec<Stmt>>,
    ) -> bool {
        let mut index = 0;
        while index < stmts.len() {
            if *position == 0 {
                let with = replacement.take().unwrap();
                stmts.splice(index..=index, with);
                return true;
            }
            *position -= 1;
            for child in stmts[index].children_mut() {
                if replace(child, position, replacement) {
                    return true;
                }
            }
            index += 1;
        }
        false
    }
    let mut out = program.clone();
    let mut left = position;
    let mut replacement = Some(replacement);
    for list in lists_mut(&mut out) {
        if replace(list, &mut left, &mut replacement) {
            break;
        }
    }
    pruned(out)
}

/// Smaller forms of one statement, the boldest first.
fn variants(stmt: &Stmt) -> Vec<Vec<Stmt>> {
    let mut out: Vec<Vec<Stmt>> = vec![Vec::new()];
    let flattened: Vec<Stmt> = match stmt {
        Stmt::Omp(c) => match &c.body {
            Body::Loop(nest) => vec![sequential_nest(nest)],
            _ => c.body.children().into_iter().flatten().cloned().collect(),
        },
        _ => stmt.children().into_iter().flatten().cloned().collect(),
    };
    if !flattened.is_empty() {
        out.push(flattened);
    }
    match stmt {
        Stmt::If {
            cond,
            then,
            otherwise: Some(otherwise),
        } => {
            out.push(vec![Stmt::If {
                cond: cond.clone(),
                then: then.clone(),
                otherwise: None,
            }]);
            out.push(otherwise.clone());
        }
        Stmt::Loop {
            kind,
            depth,
            trips,
            named,
            body,
        } => {
            if *trips > 1 {
                out.push(vec![Stmt::Loop {
                    kind: *kind,
                    depth: *depth,
                    trips: 1,
                    named: *named,
                    body: body.clone(),
                }]);
            }
            if *kind != SeqLoopKind::For || *named {
                out.push(vec![Stmt::Loop {
                    kind: SeqLoopKind::For,
                    depth: *depth,
                    trips: *trips,
                    named: false,
                    body: body.clone(),
                }]);
            }
        }
        Stmt::Omp(c) => out.extend(
            construct_variants(c)
                .into_iter()
                .map(|c| vec![Stmt::Omp(c)]),
        ),
        Stmt::Assign(u) | Stmt::Atomic(_, u) if !u.expr.terms.is_empty() => {
            let mut simpler = stmt.clone();
            if let Stmt::Assign(u) | Stmt::Atomic(_, u) = &mut simpler {
                u.expr = Expr::constant(1);
            }
            out.push(vec![simpler]);
        }
        Stmt::Atomic(form, u) if *form != AtomicForm::Bare => {
            out.push(vec![Stmt::Atomic(AtomicForm::Bare, u.clone())]);
        }
        _ => {}
    }
    out
}

fn construct_variants(c: &Construct) -> Vec<Construct> {
    let mut out = Vec::new();
    for index in 0..c.clauses.len() {
        let mut smaller = c.clone();
        smaller.clauses.remove(index);
        out.push(smaller);
    }
    if c.names.len() > 1 {
        for keep in [&c.names[1..], &c.names[..c.names.len() - 1]] {
            let mut smaller = c.clone();
            smaller.names = keep.to_vec();
            out.push(smaller);
        }
    }
    if let Body::Sections(sections, first_written) = &c.body {
        if !first_written {
            let mut plainer = c.clone();
            plainer.body = Body::Sections(sections.clone(), true);
            out.push(plainer);
        }
        for index in 0..sections.len() {
            if sections.len() > 1 {
                let mut smaller = c.clone();
                if let Body::Sections(s, _) = &mut smaller.body {
                    s.remove(index);
                }
                out.push(smaller);
            }
        }
    }
    if let Body::Loop(nest) = &c.body {
        if nest.loops.iter().any(|(_, trips)| *trips > 1) {
            let mut smaller = c.clone();
            if let Body::Loop(n) = &mut smaller.body {
                for l in &mut n.loops {
                    l.1 = 1;
                }
            }
            out.push(smaller);
        }
    }
    if let Body::Workshare(stmts) = &c.body {
        for index in 0..stmts.len() {
            if stmts.len() > 1 {
                let mut smaller = c.clone();
                if let Body::Workshare(s) = &mut smaller.body {
                    s.remove(index);
                }
                out.push(smaller);
            }
        }
    }
    if c.end_directive && matches!(c.body, Body::Loop(_)) {
        let mut smaller = c.clone();
        smaller.end_directive = false;
        out.push(smaller);
    }
    out
}

/// The loops of a loop construct without the directive.
fn sequential_nest(nest: &LoopNest) -> Stmt {
    let mut body = nest.body.clone();
    for (depth, trips) in nest.loops.iter().rev() {
        body = vec![Stmt::Loop {
            kind: SeqLoopKind::For,
            depth: *depth,
            trips: *trips,
            named: false,
            body,
        }];
    }
    body.pop().unwrap()
}

/// Drops helpers no call reaches any more and numbers the rest anew.
fn pruned(mut program: Program) -> Program {
    let mut used = Vec::new();
    for kernel in &program.kernels {
        calls(&kernel.body, &mut used);
    }
    // Helpers do not call helpers, so one round finds them all.
    used.sort();
    used.dedup();
    if used.len() == program.helpers.len() {
        return program;
    }
    let helpers: Vec<Helper> = used.iter().map(|i| program.helpers[*i].clone()).collect();
    fn renumber(stmts: &mut [Stmt], used: &[usize]) {
        for stmt in stmts {
            if let Stmt::Call(index, _) = stmt {
                *index = used.iter().position(|u| u == index).unwrap();
            }
            for child in stmt.children_mut() {
                renumber(child, used);
            }
        }
    }
    for kernel in &mut program.kernels {
        renumber(&mut kernel.body, &used);
    }
    program.helpers = helpers;
    program
}

//! Splitting combined constructs into leaves, with each clause going where
//! the OpenMP 5.2 rules for combined constructs put it.

use crate::directive::{table, Clause, Directive, Distribution};

/// The layers of a directive, outermost first: (rule name, directive).
pub fn split(directive: &Directive) -> Vec<(String, Directive)> {
    let spec = directive.spec();
    let leaves = &spec.leaves;
    let first = leaves
        .first()
        .cloned()
        .unwrap_or_else(|| directive.name.clone());
    // Leaves the table marks `splits_off` come off the front, each with
    // calls of its own; the rest stays one directive (a composite such as
    // `for simd` or `taskloop simd` is never taken apart).
    let splits_off = table().leaf(&first).is_some_and(|l| l.splits_off);
    if leaves.len() > 1 && splits_off {
        let rest_name = rest_name(directive, leaves.len() - 1);
        if let (Some(outer), Some(_)) = (table().directive(&first), table().directive(&rest_name)) {
            let (outer_clauses, inner_clauses) = distribute(directive, &outer.name, &rest_name);
            let outer_directive = Directive {
                sentinel: directive.sentinel,
                name: outer.name.clone(),
                argument: None,
                clauses: outer_clauses,
            };
            let inner = Directive {
                sentinel: directive.sentinel,
                name: rest_name,
                argument: directive.argument.clone(),
                clauses: inner_clauses,
            };
            let mut layers = vec![(first, outer_directive)];
            layers.extend(split(&inner));
            return layers;
        }
    }
    vec![(first, directive.clone())]
}

/// The directive name of the last `count` leaves: `parallel for simd` → `for simd`.
fn rest_name(directive: &Directive, count: usize) -> String {
    let words: Vec<&str> = directive.name.split(' ').collect();
    // Leaf names may be several words (`cancellation point` never combines,
    // but `target data` might): count words from the end by leaf.
    let spec = directive.spec();
    let rest_words: usize = spec.leaves[spec.leaves.len() - count..]
        .iter()
        .map(|l| l.split(' ').count())
        .sum();
    words[words.len() - rest_words..].join(" ")
}

fn distribute(directive: &Directive, outer: &str, inner: &str) -> (Vec<Clause>, Vec<Clause>) {
    let t = table();
    let outer_spec = t.directive(outer).expect("looked up by caller");
    let inner_spec = t.directive(inner).expect("looked up by caller");
    let mut outer_clauses: Vec<Clause> = Vec::new();
    let mut inner_clauses: Vec<Clause> = Vec::new();
    let mut shared_on_outer: Vec<String> = Vec::new();
    let mut allocates: Vec<&Clause> = Vec::new();
    for clause in &directive.clauses {
        let on_outer = t.accepts(outer_spec, &clause.name);
        let on_inner = t.accepts(inner_spec, &clause.name);
        let distribution = t
            .clause(&clause.name)
            .map(|c| c.distribution)
            .unwrap_or(Distribution::All);
        match (on_outer, on_inner) {
            (true, false) => outer_clauses.push(clause.clone()),
            (false, _) => inner_clauses.push(clause.clone()),
            (true, true) => match distribution {
                Distribution::All => {
                    outer_clauses.push(clause.clone());
                    inner_clauses.push(clause.clone());
                }
                Distribution::Outermost => outer_clauses.push(clause.clone()),
                Distribution::Innermost => inner_clauses.push(clause.clone()),
                Distribution::Firstprivate
                | Distribution::Lastprivate
                | Distribution::Reduction
                | Distribution::Linear => {
                    inner_clauses.push(clause.clone());
                    shared_on_outer.extend(clause.list_items());
                }
                Distribution::If => match clause.modifier_split().0 {
                    Some(m) if m.eq_ignore_ascii_case(outer) => outer_clauses.push(clause.clone()),
                    Some(_) => inner_clauses.push(clause.clone()),
                    None => {
                        outer_clauses.push(clause.clone());
                        inner_clauses.push(clause.clone());
                    }
                },
                Distribution::Allocate => allocates.push(clause),
            },
        }
    }
    for allocate in allocates {
        let items = allocate.list_items();
        let privatised_by = |clauses: &[Clause]| {
            clauses.iter().any(|c| {
                c.name != "shared"
                    && c.name != "allocate"
                    && t.clause(&c.name).is_some_and(|s| s.list)
                    && c.list_items().iter().any(|i| items.contains(i))
            })
        };
        let (inner_has, outer_has) = (privatised_by(&inner_clauses), privatised_by(&outer_clauses));
        if inner_has {
            inner_clauses.push(allocate.clone());
        }
        if outer_has || !inner_has {
            outer_clauses.push(allocate.clone());
        }
    }
    let already: Vec<String> = outer_clauses
        .iter()
        .filter(|c| matches!(c.name.as_str(), "shared" | "private" | "firstprivate"))
        .flat_map(|c| c.list_items())
        .collect();
    let mut shared: Vec<String> = Vec::new();
    for item in shared_on_outer {
        if !already.contains(&item) && !shared.contains(&item) && !item.starts_with('/') {
            shared.push(item);
        }
    }
    if !shared.is_empty() {
        outer_clauses.push(Clause::new("shared", Some(&shared.join(", "))));
    }
    (outer_clauses, inner_clauses)
}

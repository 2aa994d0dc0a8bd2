//! Splitting combined constructs into leaves, with each clause going where
//! the OpenMP 5.2 rules for combined and composite constructs (section
//! 17.2) put it.
//!
//! A list item that a data-sharing clause applies to an inner leaf only is
//! `shared` on an enclosing leaf that accepts `shared` (the rules say so of
//! `firstprivate`, `lastprivate`, `reduction` and `linear`): the combined
//! construct shares it there implicitly, and written as separate
//! directives the enclosing `parallel` must list it, or `default(none)`
//! rejects it and `default(private)` privatises it.

use super::table::rules;
use crate::directive::{table, Clause, Directive, Distribution};

/// Leaves whose loop iteration variables keep their last value after the
/// construct (predetermined `linear` or `lastprivate`, OpenMP 5.2 section
/// 5.1.1): a combined construct shares such a variable on its enclosing
/// leaves, like a `lastprivate` item. Worksharing-loop, `taskloop` and
/// `distribute` iteration variables are private and stay out of them.
const LEAVES_KEEPING_ITERATION_VALUES: &[&str] = &["simd", "loop"];

/// The layers of a directive, outermost first: (rule name, directive).
/// `iteration_variables` are the variables of the associated loop nest
/// that the loops assign without declaring them, outermost first.
pub fn split(
    directive: &Directive,
    iteration_variables: &[String],
) -> Vec<(&'static str, Directive)> {
    let spec = directive.spec();
    let leaves = &spec.leaves;
    let first = leaves.first().map_or(directive.name(), String::as_str);
    // Leaves the table marks `splits_off` come off the front, each with
    // calls of its own; the rest stays one directive (a composite such as
    // `for simd` or `taskloop simd` is never taken apart).
    if leaves.len() > 1 && splits_off(directive) && kept_whole_by(directive).is_none() {
        let rest_name = rest_name(directive, leaves.len() - 1);
        if let (Some(outer), Some(rest)) = (table().directive(first), table().directive(&rest_name))
        {
            let (outer_clauses, inner_clauses) =
                distribute(directive, &outer.name, &rest_name, iteration_variables);
            let outer_directive =
                Directive::new(directive.sentinel, &outer.name, None, outer_clauses);
            let inner = Directive::new(
                directive.sentinel,
                &rest.name,
                directive.argument.clone(),
                inner_clauses,
            );
            let mut layers = vec![(first, outer_directive)];
            layers.extend(split(&inner, iteration_variables));
            return layers;
        }
    }
    vec![(first, directive.clone())]
}

/// Whether the directive's outermost leaf comes off with calls of its own.
fn splits_off(directive: &Directive) -> bool {
    let first = directive.spec().leaves.first();
    first.is_some_and(|first| table().leaf(first).is_some_and(|l| l.splits_off))
}

/// The clause that keeps a combined construct whole which would otherwise
/// be split (`kept_whole` in `grammars/rules.toml`).
pub fn kept_whole_by(directive: &Directive) -> Option<&Clause> {
    if directive.spec().leaves.len() < 2 || !splits_off(directive) {
        return None;
    }
    rules().kept_whole.with.clause_in(&directive.clauses)
}

/// The directive name of the last `count` leaves: `parallel for simd` → `for simd`.
fn rest_name(directive: &Directive, count: usize) -> String {
    let words: Vec<&str> = directive.name().split(' ').collect();
    // Leaf names may be several words (`cancellation point` never combines,
    // but `target data` might): count words from the end by leaf.
    let spec = directive.spec();
    let rest_words: usize = spec.leaves[spec.leaves.len() - count..]
        .iter()
        .map(|l| l.split(' ').count())
        .sum();
    words[words.len() - rest_words..].join(" ")
}

/// Where each clause of `directive` goes when it is written as `outer`
/// enclosing `inner`.
fn distribute(
    directive: &Directive,
    outer: &str,
    inner: &str,
    iteration_variables: &[String],
) -> (Vec<Clause>, Vec<Clause>) {
    let t = table();
    let outer_spec = t.directive(outer).expect("looked up by caller");
    let inner_spec = t.directive(inner).expect("looked up by caller");
    let mut outer_clauses: Vec<Clause> = Vec::new();
    let mut inner_clauses: Vec<Clause> = Vec::new();
    // Items an inner leaf privatises or reduces that the combined
    // construct shares on the outer leaf.
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
            (true, false) => {
                outer_clauses.push(clause.clone());
                continue;
            }
            (false, true) => {
                inner_clauses.push(clause.clone());
                if shares_outward(distribution) {
                    shared_on_outer.extend(clause.list_items());
                }
                continue;
            }
            // A clause no leaf knows goes where the table says the outer
            // leaf takes such clauses, else with the leaf that does the work.
            (false, false) => {
                match t.takes_unknown_clauses(outer) {
                    true => outer_clauses.push(clause.clone()),
                    false => inner_clauses.push(clause.clone()),
                }
                continue;
            }
            (true, true) => {}
        }
        match distribution {
            Distribution::All => {
                outer_clauses.push(clause.clone());
                inner_clauses.push(clause.clone());
            }
            Distribution::Outermost => outer_clauses.push(clause.clone()),
            Distribution::Innermost => inner_clauses.push(clause.clone()),
            // Both leaves accept the clause: the inner one (the worksharing
            // loop, `sections`, `taskloop` or `simd`) applies it.
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
        }
    }
    if keeps_iteration_values(inner_spec) {
        shared_on_outer.extend(iteration_variables.iter().cloned());
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
    if t.accepts(outer_spec, "shared") {
        let already: Vec<String> = outer_clauses
            .iter()
            .filter(|c| matches!(&*c.name, "shared" | "private" | "firstprivate"))
            .flat_map(|c| c.list_items())
            .collect();
        let mut shared: Vec<String> = Vec::new();
        for item in shared_on_outer {
            if !already.contains(&item) && !shared.contains(&item) && !item.starts_with('/') {
                shared.push(item);
            }
        }
        if !shared.is_empty() {
            outer_clauses.push(Clause::new("shared", Some(shared.join(", "))));
        }
    }
    // The plan keeps both to the end: without the room pushes left, which
    // the next construct's pushes take up again.
    outer_clauses.shrink_to_fit();
    inner_clauses.shrink_to_fit();
    (outer_clauses, inner_clauses)
}

/// Clauses whose items the combined construct shares on the enclosing
/// leaves that do not apply the clause themselves.
fn shares_outward(distribution: Distribution) -> bool {
    matches!(
        distribution,
        Distribution::Firstprivate
            | Distribution::Lastprivate
            | Distribution::Reduction
            | Distribution::Linear
    )
}

fn keeps_iteration_values(spec: &crate::directive::DirectiveSpec) -> bool {
    spec.leaves
        .iter()
        .any(|leaf| LEAVES_KEEPING_ITERATION_VALUES.contains(&leaf.as_str()))
}

#[cfg(test)]
mod tests {
    use super::split;
    use crate::directive::{parse_directive, Sentinel};
    use crate::language::Language;

    /// The directives a combined directive is written as, rendered.
    fn layers(text: &str, iteration_variables: &[&str]) -> Vec<String> {
        let directive = parse_directive(text, Sentinel::Omp, Language::C)
            .unwrap()
            .directive;
        let variables: Vec<String> = iteration_variables.iter().map(|v| v.to_string()).collect();
        split(&directive, &variables)
            .into_iter()
            .map(|(_, d)| d.render())
            .collect()
    }

    #[test]
    fn lastprivate_and_linear_items_are_shared_on_parallel() {
        assert_eq!(
            layers(
                "parallel for default(none) shared(n) reduction(+:s) lastprivate(last)",
                &[]
            ),
            [
                "parallel default(none) shared(n) shared(s, last)",
                "for reduction(+:s) lastprivate(last)"
            ]
        );
        assert_eq!(
            layers("parallel for default(none) linear(lin:2)", &[]),
            ["parallel default(none) shared(lin)", "for linear(lin:2)"]
        );
        assert_eq!(
            layers("parallel for lastprivate(conditional: a, b)", &[]),
            [
                "parallel shared(a, b)",
                "for lastprivate(conditional: a, b)"
            ]
        );
    }

    #[test]
    fn firstprivate_goes_to_the_worksharing_leaf_or_else_to_parallel() {
        assert_eq!(
            layers("parallel for firstprivate(x) lastprivate(x)", &[]),
            ["parallel shared(x)", "for firstprivate(x) lastprivate(x)"]
        );
        // `loop` takes no firstprivate: parallel applies it, and a
        // lastprivate item that is firstprivate there is not also shared.
        assert_eq!(
            layers("parallel loop firstprivate(x) lastprivate(x)", &[]),
            ["parallel firstprivate(x)", "loop lastprivate(x)"]
        );
        assert_eq!(
            layers("parallel masked firstprivate(x) filter(1)", &[]),
            ["parallel firstprivate(x)", "masked filter(1)"]
        );
    }

    #[test]
    fn reductions_with_modifiers_apply_to_the_innermost_leaf() {
        assert_eq!(
            layers("parallel for reduction(task, +: r)", &[]),
            ["parallel shared(r)", "for reduction(task, +: r)"]
        );
        assert_eq!(
            layers("parallel sections reduction(task, max: m[0:4])", &[]),
            [
                "parallel shared(m)",
                "sections reduction(task, max: m[0:4])"
            ]
        );
        assert_eq!(
            layers("parallel masked reduction(+: r)", &[]),
            ["parallel reduction(+: r)", "masked"]
        );
    }

    #[test]
    fn combined_constructs_with_an_inscan_reduction_stay_whole() {
        assert_eq!(
            layers("parallel for simd reduction(inscan, +: r)", &["i"]),
            ["parallel for simd reduction(inscan, +: r)"]
        );
        assert_eq!(
            layers(
                "parallel for reduction(inscan, +: s) reduction(inscan, max: m)",
                &[]
            ),
            ["parallel for reduction(inscan, +: s) reduction(inscan, max: m)"]
        );
        assert_eq!(
            layers("parallel for reduction(+: s)", &[]),
            ["parallel shared(s)", "for reduction(+: s)"]
        );
    }

    #[test]
    fn private_goes_to_the_innermost_leaf_and_allocate_follows_privatisation() {
        assert_eq!(
            layers("parallel for private(p) default(none)", &[]),
            ["parallel default(none)", "for private(p)"]
        );
        assert_eq!(
            layers("parallel sections firstprivate(x) allocate(x)", &[]),
            ["parallel shared(x)", "sections firstprivate(x) allocate(x)"]
        );
        assert_eq!(
            layers("parallel masked private(x) allocate(x)", &[]),
            ["parallel private(x) allocate(x)", "masked"]
        );
    }

    #[test]
    fn shared_only_where_the_leaf_accepts_it() {
        // masked accepts no data-sharing clause; taskloop applies them.
        assert_eq!(
            layers(
                "parallel masked taskloop default(none) lastprivate(l) grainsize(4)",
                &[]
            ),
            [
                "parallel default(none) shared(l)",
                "masked",
                "taskloop default(none) lastprivate(l) grainsize(4)"
            ]
        );
    }

    #[test]
    fn iteration_variables_of_simd_and_loop_are_shared_on_parallel() {
        assert_eq!(
            layers("parallel for simd default(none)", &["i"]),
            ["parallel default(none) shared(i)", "for simd"]
        );
        assert_eq!(
            layers("parallel loop", &["i", "j"]),
            ["parallel shared(i, j)", "loop"]
        );
        assert_eq!(
            layers("parallel masked taskloop simd lastprivate(i)", &["i"]),
            [
                "parallel shared(i)",
                "masked",
                "taskloop simd lastprivate(i)"
            ]
        );
        // A worksharing loop's iteration variable is private to it.
        assert_eq!(
            layers("parallel for default(none)", &["i"]),
            ["parallel default(none)", "for"]
        );
        assert_eq!(
            layers("parallel masked taskloop", &["i"]),
            ["parallel", "masked", "taskloop"]
        );
        // Listed already: not twice.
        assert_eq!(
            layers("parallel for simd shared(i)", &["i"]),
            ["parallel shared(i)", "for simd"]
        );
    }
}

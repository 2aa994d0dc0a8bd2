//! Conditionals that split the code's structure (`#ifdef _WIN32` / one
//! loop header / `#else` / another / `#endif`, then a shared body) are
//! variables of the file's configuration: the grammar can parse only one
//! setting at a time. Where such a conditional lies in a function that
//! holds directives or lock calls, the function is read in every setting
//! of its variables. Whatever lies outside the conditionals must come out
//! the same in all of them, with positions inside a conditional counted as
//! its whole extent (a block starting at either loop header starts at the
//! `#ifdef`); what lies inside a branch is taken from the settings that
//! compile it. Then the code inserted outside the conditionals is right
//! whichever way the macros are later set, and what is inserted inside a
//! branch is compiled exactly when the branch is.

use super::nodes::{ByName, Nodes};
use super::parse::parse;
use super::pieces::{self, Piece};
use super::prepare::Prepared;
use super::reuse::{self, Reuse};
use crate::diagnostics::Diagnostic;
use crate::frontend::lexical::conditionals::Assignment;
use crate::model::{Exit, Found, FoundSite, LockCall, Unit};
use crate::source::Span;
use std::collections::BTreeMap;
use tree_sitter::Tree;

/// At most this many variables are read in every combination.
const MAX_VARIABLES: usize = 3;

/// What one syntax tree covers; the other configurations of the functions
/// in it are read over the same.
pub(super) struct Coverage<'s> {
    /// The ranges the tree was parsed from (empty: the whole file).
    pub ranges: &'s [Span],
    /// The pieces those ranges are made of, when a part of the file was
    /// parsed: another configuration parses only the pieces it changes.
    pub pieces: &'s [Piece],
    /// The directives the tree covers, as indexes into
    /// `prepared.directives`.
    pub directives: std::ops::Range<usize>,
    /// The lock routines' names the tree covers.
    pub mentions: &'s [Span],
}

/// One function split by conditionals, and the settings it is read in.
struct Split {
    function: Span,
    groups: Vec<usize>,
    extents: Vec<Span>,
    /// Every setting of its variables but the first.
    settings: Vec<Assignment>,
    at: Span,
}

/// `main`, read from `tree` in the first configuration, reconciled with
/// the other configurations of every function that needs them. The
/// functions are independent: the n-th setting of each is read in one
/// parse.
///
/// `reuse`, given for a reading of the whole file, keeps the trees of the
/// other configurations for the next reading of the buffer, as it keeps
/// the first configuration's.
pub(super) fn reconcile(
    prepared: &Prepared,
    coverage: &Coverage,
    tree: &Tree,
    main: Found,
    mut reuse: Option<&mut Reuse>,
) -> Found {
    let conditionals = &prepared.conditionals;
    let read = match coverage.ranges {
        [] => 0..prepared.file.bytes.len(),
        ranges => ranges[0].start..ranges[ranges.len() - 1].end,
    };
    if conditionals.unbalanced_in(&read).is_empty() {
        return main;
    }
    let mut model = main;
    let mut splits = Vec::new();
    for function in functions_to_read(prepared, coverage, tree) {
        let groups = conditionals.unbalanced_in(&function);
        if groups.is_empty() {
            continue;
        }
        let extents: Vec<Span> = groups.iter().map(|&g| conditionals.extent(g)).collect();
        let at = first_directive_in(prepared, coverage, &function).unwrap_or(extents[0].clone());
        // Groups with the same condition are one variable.
        let mut variables: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for &g in &groups {
            let name = conditionals.variable(g).unwrap_or_default();
            variables.entry(name).or_default().push(g);
        }
        if variables.len() > MAX_VARIABLES {
            let names: Vec<String> = groups
                .iter()
                .map(|&g| format!("`{}`", conditional_name(prepared, g)))
                .collect();
            model.diagnostics.push(
                Diagnostic::error(
                    at,
                    "too many conditionals split the code of this function",
                    "in a function whose structure depends on the macros",
                )
                .with_note(format!(
                    "pomp reads such a function once for every setting of the conditionals \
                     {} and does so for at most {MAX_VARIABLES} of them",
                    names.join(", ")
                )),
            );
            continue;
        }
        let settings = assignments(conditionals, &variables)
            .into_iter()
            .skip(1)
            .collect();
        splits.push(Split {
            function,
            groups,
            extents,
            settings,
            at,
        });
    }
    let rounds = splits.iter().map(|s| s.settings.len()).max().unwrap_or(0);
    let split_ranges = pieces::union_of(coverage.pieces, |piece| {
        splits.iter().any(|split| piece.overlaps(&split.function))
    });
    let mut parts: Vec<(Part, bool)> = splits
        .iter()
        .map(|s| (Part::of(&model, &s.function, &s.extents), true))
        .collect();
    for round in 0..rounds {
        let mut assignment = Assignment::new();
        for split in &splits {
            if let Some(setting) = split.settings.get(round) {
                assignment.extend(setting);
            }
        }
        let others: Vec<Option<Found>> =
            prepared.with_configuration(&assignment, |text, passed_over| {
                let tree = match (reuse.as_deref_mut(), coverage.ranges) {
                    (Some(reuse), []) => {
                        reuse::tree_reusing(prepared.file, text, reuse.other_configuration(round))
                    }
                    _ => parse(
                        prepared.file,
                        text,
                        &split_ranges,
                        &passed_over.within(&split_ranges),
                    ),
                };
                let nodes = Nodes::new(tree.root_node());
                // Only the split functions are compared: each is read alone,
                // with its own directives and lock calls.
                (splits.iter())
                    .map(|split| {
                        split.settings.get(round)?;
                        let function = &split.function;
                        let directives = &prepared.directives[coverage.directives.clone()];
                        let first = directives.partition_point(|d| d.span.start < function.start);
                        let last = directives.partition_point(|d| d.span.start < function.end);
                        let mentions = coverage.mentions;
                        let mentions = &mentions[mentions
                            .partition_point(|m| m.start < function.start)
                            ..mentions.partition_point(|m| m.start < function.end)];
                        let offset = coverage.directives.start;
                        Some(super::syntax::read(
                            prepared,
                            text,
                            &nodes,
                            offset + first..offset + last,
                            mentions,
                        ))
                    })
                    .collect()
            });
        for ((split, (part, agreeing)), other) in splits.iter().zip(&mut parts).zip(&others) {
            let (Some(setting), Some(other)) =
                (split.settings.get(round).filter(|_| *agreeing), other)
            else {
                continue;
            };
            if let Err(what) = part.merge(Part::of(other, &split.function, &split.extents)) {
                *agreeing = false;
                part.diagnostics
                    .push(disagreement(prepared, split, setting, &what));
            }
        }
    }
    for (split, (part, _)) in splits.iter().zip(parts) {
        part.replace_in(&mut model, &split.function);
    }
    model
}

fn conditional_name(prepared: &Prepared, group: usize) -> String {
    let line = &prepared.conditionals.groups[group].lines[0];
    prepared
        .file
        .text(line.span.clone())
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn disagreement(
    prepared: &Prepared,
    split: &Split,
    setting: &Assignment,
    what: &str,
) -> Diagnostic {
    let conditionals = &prepared.conditionals;
    let described: Vec<String> = setting
        .iter()
        .filter(|(_, &k)| k > 0)
        .map(|(&g, &k)| {
            let live = conditionals.groups[g]
                .branches
                .iter()
                .filter(|b| b.state != crate::frontend::lexical::conditionals::BranchState::Dead)
                .count();
            if k < live {
                format!("branch {} of `{}`", k + 1, conditional_name(prepared, g))
            } else {
                format!("no branch of `{}`", conditional_name(prepared, g))
            }
        })
        .collect();
    Diagnostic::error(
        split.at.clone(),
        format!(
            "the code around this directive reads differently under `{}`",
            conditional_name(prepared, split.groups[0])
        ),
        "depends on how the macros are set",
    )
    .with_note(format!(
        "compiling {} pomp finds {what}, so no instrumentation is right for every setting",
        described.join(" and ")
    ))
    .with_note(
        "pomp instruments code split by a conditional only where everything outside it \
         reads the same in every setting",
    )
}

/// The outermost functions holding a directive or a lock routine's name,
/// in the first configuration's tree.
fn functions_to_read(prepared: &Prepared, coverage: &Coverage, tree: &Tree) -> Vec<Span> {
    let nodes = Nodes::new(tree.root_node());
    let positions = prepared.directives[coverage.directives.clone()]
        .iter()
        .map(|d| d.span.start)
        .chain(coverage.mentions.iter().map(|m| m.start));
    let mut functions: Vec<Span> = positions
        .filter_map(|at| {
            let node = nodes.descendant(at, at)?;
            std::iter::once(node)
                .chain(nodes.ancestors(node))
                .filter(|n| n.kind_name() == "function_definition")
                .last()
                .map(|f| f.byte_range())
        })
        .collect();
    functions.sort_by_key(|f| f.start);
    functions.dedup();
    functions
}

fn first_directive_in(prepared: &Prepared, coverage: &Coverage, function: &Span) -> Option<Span> {
    prepared.directives[coverage.directives.clone()]
        .iter()
        .find(|d| function.contains(&d.span.start))
        .map(|d| d.span.clone())
}

/// Every combination of the variables' alternatives, the first
/// configuration first; a variable sets all of its groups alike.
fn assignments(
    conditionals: &crate::frontend::lexical::conditionals::Conditionals,
    variables: &BTreeMap<String, Vec<usize>>,
) -> Vec<Assignment> {
    let mut all = vec![Assignment::new()];
    for groups in variables.values() {
        let count = groups
            .iter()
            .map(|&g| conditionals.groups[g].alternatives())
            .max()
            .unwrap_or(1);
        all = all
            .into_iter()
            .flat_map(|a| {
                (0..count).map(move |k| {
                    let mut a = a.clone();
                    for &g in groups {
                        let last = conditionals.groups[g].alternatives() - 1;
                        a.insert(g, k.min(last));
                    }
                    a
                })
            })
            .collect();
    }
    all
}

/// What a model says about one function, positions inside the split
/// conditionals widened to their extents.
struct Part {
    extents: Vec<Span>,
    sites: Vec<FoundSite>,
    units: Vec<Unit>,
    lock_calls: Vec<LockCall>,
    exits: Vec<Exit>,
    no_insert: Vec<Span>,
    diagnostics: Vec<Diagnostic>,
}

impl Part {
    fn of(model: &Found, function: &Span, extents: &[Span]) -> Part {
        let within = |s: &Span| function.start <= s.start && s.start < function.end;
        let widen_start = |at: usize| {
            extents
                .iter()
                .find(|e| e.start < at && at < e.end)
                .map_or(at, |e| e.start)
        };
        let widen_end = |at: usize| {
            extents
                .iter()
                .find(|e| e.start < at && at < e.end)
                .map_or(at, |e| e.end)
        };
        let widen = |s: &Span| widen_start(s.start)..widen_end(s.end);
        Part {
            extents: extents.to_vec(),
            sites: model
                .sites
                .iter()
                .filter(|s| within(&s.span))
                .map(|s| FoundSite {
                    block: s.block.as_ref().map(widen),
                    implicit_section: s.implicit_section.as_ref().map(widen),
                    ..s.clone()
                })
                .collect(),
            units: model
                .units
                .iter()
                .filter(|u| u.span.start < function.end && function.start < u.span.end)
                .map(|u| Unit {
                    span: widen(&u.span),
                    ..u.clone()
                })
                .collect(),
            lock_calls: model
                .lock_calls
                .iter()
                .filter(|c| within(&c.span))
                .cloned()
                .collect(),
            exits: model
                .exits
                .iter()
                .filter(|e| within(&e.span))
                .map(|e| Exit {
                    span: e.span.clone(),
                    targets: e.targets.iter().map(|&t| widen_start(t)).collect(),
                })
                .collect(),
            no_insert: model
                .no_insert
                .iter()
                .filter(|s| within(s))
                .map(widen)
                .collect(),
            diagnostics: model
                .diagnostics
                .iter()
                .filter(|d| within(&d.span))
                .cloned()
                .collect(),
        }
    }

    fn inside(&self, at: usize) -> bool {
        self.extents.iter().any(|e| e.contains(&at))
    }

    /// Takes in another configuration's reading: what lies inside the
    /// conditionals joins, what lies outside must agree. On disagreement,
    /// says what differs.
    fn merge(&mut self, other: Part) -> Result<(), String> {
        let outside_sites = |p: &Part| -> Vec<FoundSite> {
            p.sites
                .iter()
                .filter(|s| !p.inside(s.span.start))
                .cloned()
                .collect()
        };
        let (mine, theirs) = (outside_sites(self), outside_sites(&other));
        if mine.len() != theirs.len() {
            return Err("other directives".into());
        }
        for (a, b) in mine.iter().zip(&theirs) {
            if a != b {
                let line = a.directive.name();
                return Err(format!(
                    "another block or structure for the `{line}` directive"
                ));
            }
        }
        if self.units != other.units {
            return Err("other functions".into());
        }
        let outside = |p: &Part| -> (Vec<LockCall>, Vec<Exit>, Vec<(Span, String)>) {
            (
                p.lock_calls
                    .iter()
                    .filter(|c| !p.inside(c.span.start))
                    .cloned()
                    .collect(),
                p.exits
                    .iter()
                    .filter(|e| !p.inside(e.span.start))
                    .cloned()
                    .collect(),
                p.diagnostics
                    .iter()
                    .filter(|d| !p.inside(d.span.start))
                    .map(|d| (d.span.clone(), d.message.clone()))
                    .collect(),
            )
        };
        if outside(self) != outside(&other) {
            return Err("other lock calls, jumps or problems".into());
        }
        if self.no_insert != other.no_insert {
            return Err("other code where nothing may be inserted".into());
        }
        // Inside the conditionals: what each configuration finds.
        let other_inside = other
            .sites
            .into_iter()
            .filter(|s| other_inside(&other.extents, s.span.start));
        for site in other_inside {
            if !self.sites.iter().any(|s| s.span == site.span) {
                self.sites.push(site);
            }
        }
        for call in other.lock_calls {
            if !self.lock_calls.iter().any(|c| c.span == call.span) {
                self.lock_calls.push(call);
            }
        }
        for exit in other.exits {
            if !self.exits.contains(&exit) {
                self.exits.push(exit);
            }
        }
        for diagnostic in other.diagnostics {
            let known = self
                .diagnostics
                .iter()
                .any(|d| d.span == diagnostic.span && d.message == diagnostic.message);
            if !known {
                self.diagnostics.push(diagnostic);
            }
        }
        self.sites.sort_by_key(|s| s.span.start);
        self.lock_calls.sort_by_key(|c| c.span.start);
        self.exits.sort_by_key(|e| e.span.start);
        Ok(())
    }

    /// Puts the reconciled part in place of what `model` says about the
    /// function.
    fn replace_in(self, model: &mut Found, function: &Span) {
        let within = |s: &Span| function.start <= s.start && s.start < function.end;
        model.sites.retain(|s| !within(&s.span));
        model.sites.extend(self.sites);
        model.sites.sort_by_key(|s| s.span.start);
        model
            .units
            .retain(|u| !(u.span.start < function.end && function.start < u.span.end));
        model.units.extend(self.units);
        model.units.sort();
        model.lock_calls.retain(|c| !within(&c.span));
        model.lock_calls.extend(self.lock_calls);
        model.lock_calls.sort_by_key(|c| c.span.start);
        model.exits.retain(|e| !within(&e.span));
        model.exits.extend(self.exits);
        model.exits.sort_by_key(|e| e.span.start);
        model.no_insert.retain(|s| !within(s));
        model.no_insert.extend(self.no_insert);
        model.diagnostics.retain(|d| !within(&d.span));
        model.diagnostics.extend(self.diagnostics);
        model.diagnostics.sort_by_key(|d| d.span.start);
    }
}

fn other_inside(extents: &[Span], at: usize) -> bool {
    extents.iter().any(|e| e.contains(&at))
}

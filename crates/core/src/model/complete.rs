//! What the model gains from the sites, units and blocks alone, computed
//! once for every front end.

use super::parts::{DirectiveForm, Found, FoundSite, Model, Site, Unit};
use crate::directive::Association;
use crate::source::{SourceFile, Span};

/// The model of what a front end found: the implicit first sections
/// made sites, each site placed in its unit and under its enclosing site,
/// the units nested, and the ranges where nothing may be inserted.
pub fn complete(file: &SourceFile, found: Found) -> Model {
    let Found {
        mut sites,
        mut units,
        lock_calls,
        mut no_insert,
        exits,
        diagnostics,
        branches,
        fortran,
        functions,
    } = found;
    units.nest();
    implicit_sections(file, &mut sites);
    let site_units = units_of_sites(&sites, &units);
    let parents = parents_of_sites(&sites);
    let sites: Vec<Site> = sites
        .into_iter()
        .zip(site_units)
        .zip(parents)
        .map(|((found, unit), parent)| Site {
            form: found.form,
            span: found.span,
            lines: found.lines,
            directive: found.directive,
            block: found.block,
            end_site: found.end_site,
            loop_variables: found.loop_variables,
            unit,
            parent,
            failed: found.failed,
        })
        .collect();
    let mut model = Model {
        sites,
        units,
        lock_calls,
        no_insert: Vec::new(),
        exits,
        diagnostics,
        branches,
        fortran,
        functions,
    };
    no_insert.extend(no_insert_zones(file, &model));
    no_insert.sort_by_key(|s| (s.start, s.end));
    no_insert.dedup();
    model.no_insert = no_insert;
    model
}

/// Each site's innermost enclosing unit, in one sweep: sites are in file
/// order and units nest. Front ends that need it early may call it.
pub fn units_of_sites(sites: &[FoundSite], units: &[Unit]) -> Vec<Option<usize>> {
    let mut open: Vec<usize> = Vec::new();
    let mut next = 0;
    let mut site_units = Vec::with_capacity(sites.len());
    for site in sites {
        let at = site.span.start;
        while next < units.len() && units[next].span.start <= at {
            while open
                .last()
                .is_some_and(|&o| units[o].span.end <= units[next].span.start)
            {
                open.pop();
            }
            open.push(next);
            next += 1;
        }
        while open.last().is_some_and(|&o| units[o].span.end <= at) {
            open.pop();
        }
        site_units.push(open.last().copied());
    }
    site_units
}

/// `sections` may begin without a `section` directive: the statements
/// before the first one form a section, which becomes a site written
/// nowhere, placed before the indentation of its first line so that the
/// line stays whole.
fn implicit_sections(file: &SourceFile, sites: &mut Vec<FoundSite>) {
    let mut added = Vec::new();
    for site in sites.iter() {
        let Some(block) = site.implicit_section.clone() else {
            continue;
        };
        let line_start = file.start_of_line(block.start);
        let only_blanks = file.bytes[line_start..block.start]
            .iter()
            .all(|b| *b == b' ' || *b == b'\t');
        let at = if only_blanks { line_start } else { block.start };
        let Some(separator) = crate::directive::table().divided_by(site.directive.spec()) else {
            continue;
        };
        let mut directive = site.directive.clone();
        directive.rename(separator);
        directive.argument = None;
        directive.clauses.clear();
        added.push(FoundSite {
            form: DirectiveForm::Implicit,
            span: at..at,
            lines: at..at,
            directive,
            block: Some(block),
            end_site: None,
            implicit_section: None,
            loop_variables: Vec::new(),
            failed: false,
        });
    }
    if added.is_empty() {
        return;
    }
    // An implicit section goes before a directive on the same line start,
    // and end directives keep pointing at their sites.
    let key = |site: &FoundSite| (site.span.start, site.form != DirectiveForm::Implicit);
    added.sort_by_key(key);
    let new_index = if sites.is_sorted_by_key(key) {
        merge_sorted(sites, added, key)
    } else {
        sites.extend(added);
        sort_in_place(sites, key)
    };
    for site in sites.iter_mut() {
        site.end_site = site.end_site.map(|e| new_index[e]);
    }
}

/// Merges `added` into `sites`, both sorted by `key`, as a stable sort of
/// the two one after the other would order them, moving each site once:
/// a file dense with directives has megabytes of sites. Returns where
/// each of `sites` went.
fn merge_sorted<K: Ord>(
    sites: &mut Vec<FoundSite>,
    added: Vec<FoundSite>,
    key: impl Fn(&FoundSite) -> K,
) -> Vec<usize> {
    let old = std::mem::take(sites);
    let mut new_index = Vec::with_capacity(old.len());
    sites.reserve_exact(old.len() + added.len());
    let mut added = added.into_iter().peekable();
    for site in old {
        while let Some(first) = added.next_if(|a| key(a) < key(&site)) {
            sites.push(first);
        }
        new_index.push(sites.len());
        sites.push(site);
    }
    sites.extend(added);
    new_index
}

/// Sorts `sites` stably by `key` in place. Returns where each site went.
fn sort_in_place<K: Ord>(sites: &mut [FoundSite], key: impl Fn(&FoundSite) -> K) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sites.len()).collect();
    order.sort_by_key(|&i| key(&sites[i]));
    let mut new_index = vec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old] = new;
    }
    // One cycle of the permutation at a time.
    let mut destination = new_index.clone();
    for at in 0..destination.len() {
        while destination[at] != at {
            let to = destination[at];
            sites.swap(at, to);
            destination.swap(at, to);
        }
    }
    new_index
}

/// An end directive closing a stretch of device code.
fn ends_device_code(directive: &crate::directive::Directive) -> bool {
    let table = crate::directive::table();
    directive
        .spec()
        .ends
        .as_deref()
        .and_then(|opener| table.directive(opener))
        .is_some_and(|opener| opener.device)
}

/// For every site, the site whose block most closely encloses it. Blocks
/// nest like the statements they are, so one sweep in source order with a
/// stack of open blocks finds them all.
fn parents_of_sites(sites: &[FoundSite]) -> Vec<Option<usize>> {
    let mut blocks: Vec<(Span, usize)> = sites
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.block.clone().filter(|b| !b.is_empty()).map(|b| (b, i)))
        .collect();
    // Outer blocks first where two start together. Of two blocks with the
    // same extent the later directive is the inner one: it stands inside
    // the other's block, or between it and its code, as an implicit first
    // section spanning a whole Fortran `sections` block does.
    blocks.sort_by_key(|(b, i)| (b.start, std::cmp::Reverse(b.end), *i));
    let mut order: Vec<usize> = (0..sites.len()).collect();
    order.sort_by_key(|&i| (sites[i].span.start, sites[i].span.end));
    let mut parents = vec![None; sites.len()];
    let mut open: Vec<(Span, usize)> = Vec::new();
    let mut next_block = blocks.iter().peekable();
    for i in order {
        let span = &sites[i].span;
        while let Some((block, owner)) = next_block.next_if(|(b, _)| b.start <= span.start) {
            while open.last().is_some_and(|(outer, _)| outer.end < block.end) {
                open.pop();
            }
            open.push((block.clone(), *owner));
        }
        while open.last().is_some_and(|(block, _)| block.end < span.end) {
            open.pop();
        }
        parents[i] = open
            .iter()
            .rev()
            // An enclosing directive comes first in the text (or, at the
            // same place, first among the sites, as an implicit section
            // before the directive starting it): where a syntax error makes
            // two blocks hold each other's directives, only the earlier one
            // is a parent, so parents never cycle.
            .find(|(block, owner)| {
                (sites[*owner].span.start, *owner) < (span.start, i)
                    && block.start <= span.start
                    && span.end <= block.end
            })
            .map(|(_, owner)| *owner);
    }
    parents
}

/// `order(concurrent)` (also `order(reproducible: concurrent)`): its
/// region may call no OpenMP runtime routine, which the measurement library
/// does, and holds only loop, parallel, simd and atomic constructs.
fn orders_concurrently(directive: &crate::directive::Directive) -> bool {
    directive.clause("order").is_some_and(|order| {
        order
            .modifier_split()
            .1
            .trim()
            .eq_ignore_ascii_case("concurrent")
    })
}

/// Target regions, `declare target` code, simd loops, `loop`, `workshare`
/// and `order(concurrent)` regions: the host library cannot be called
/// there, or no call is allowed, so nothing may be inserted, nested
/// directives and lock calls included.
fn no_insert_zones(file: &SourceFile, model: &Model) -> Vec<Span> {
    let mut zones = Vec::new();
    let mut open_declare_target: Vec<usize> = Vec::new();
    for site in &model.sites {
        let directive = &site.directive;
        if let Some(block) = &site.block {
            if crate::directive::table().forbids_calls(directive.spec())
                || orders_concurrently(directive)
            {
                // From the directive on: a construct nested right at the
                // start of the block is inside too. Alternatives of the
                // directive in later branches of its conditional are not:
                // they apply to the block when it does not.
                let alternatives = alternatives_after(model, site.span.start, block.start);
                match alternatives {
                    Some(skipped) => {
                        zones.push(site.span.end..skipped.start);
                        zones.push(skipped.end..block.end);
                    }
                    None => zones.push(site.span.end..block.end),
                }
            }
        }
        match directive.association(file.language) {
            Association::BeginDeclarative if directive.spec().device => {
                open_declare_target.push(site.span.end)
            }
            Association::EndDeclarative if ends_device_code(directive) => {
                if let Some(start) = open_declare_target.pop() {
                    zones.push(start..site.span.start);
                }
            }
            // In Fortran the directive stands in the procedure it makes
            // device code.
            Association::Declarative if directive.spec().device && file.language.is_fortran() => {
                if let Some(unit) = site.unit {
                    zones.push(model.units[unit].span.clone());
                }
            }
            _ => {}
        }
    }
    zones
}

/// Where a directive at `at`, in a branch of a conditional that closes
/// before its block at `block_start`, has alternatives: the later
/// branches of the same conditional, up to the block. Branches follow one
/// another in a conditional, each starting where the one before ends
/// (a branch never compiled is not in the model, and ends the search).
fn alternatives_after(model: &Model, at: usize, block_start: usize) -> Option<Span> {
    let own = model.branches.branch_at(at)?;
    let branch = &model.branches[own];
    if branch.span.end > block_start {
        return None;
    }
    let mut end = branch.span.end;
    for next in &model.branches[own + 1..] {
        if next.line.start > end {
            break;
        }
        if next.line.start == end && next.parent == branch.parent && next.span.end <= block_start {
            end = next.span.end;
        }
    }
    (end > branch.span.end).then_some(branch.span.end..end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::directive::{parse_directive, Sentinel};
    use crate::language::Language;
    use crate::model::{Unit, Units};

    #[test]
    fn merging_implicit_sections_orders_as_the_stable_sort() {
        let file = SourceFile::new("m.c", b"x".to_vec(), Language::C);
        let at = |start: usize, form: DirectiveForm, tag: usize| FoundSite {
            form,
            span: start..start,
            end_site: Some(tag),
            ..site(&file, "barrier", "x", None)
        };
        let key = |site: &FoundSite| (site.span.start, site.form != DirectiveForm::Implicit);
        let (pragma, implicit) = (DirectiveForm::Pragma, DirectiveForm::Implicit);
        // Ties both ways: implicit sections before directives at their
        // start, after implicit ones already there.
        let existing = [
            (1, pragma),
            (3, implicit),
            (3, pragma),
            (3, pragma),
            (9, pragma),
        ];
        let added = [
            (0, implicit),
            (3, implicit),
            (3, implicit),
            (9, implicit),
            (12, implicit),
        ];
        let make = |list: &[(usize, DirectiveForm)], first_tag: usize| -> Vec<FoundSite> {
            (list.iter().enumerate())
                .map(|(i, &(start, form))| at(start, form, first_tag + i))
                .collect()
        };
        let mut merged = make(&existing, 0);
        let moved = merge_sorted(&mut merged, make(&added, 100), key);
        let mut sorted = make(&existing, 0);
        sorted.extend(make(&added, 100));
        let sorted_moved = sort_in_place(&mut sorted, key);
        assert_eq!(merged, sorted);
        assert_eq!(moved, sorted_moved[..existing.len()]);
    }

    /// A site as a front end hands it over: the directive `text` written as
    /// the first occurrence of `at`, and its block from the first occurrence
    /// of one text to the end of the first occurrence of another.
    fn site(file: &SourceFile, text: &str, at: &str, block: Option<(&str, &str)>) -> FoundSite {
        let find = |needle: &str| {
            let start = file.text(0..file.bytes.len()).find(needle).expect(needle);
            start..start + needle.len()
        };
        // `at` may end in a newline to tell `section` from `sections`.
        let start = find(at).start;
        let span = start..start + at.trim_end().len();
        FoundSite {
            form: DirectiveForm::Pragma,
            lines: file.start_of_line(span.start)..file.end_of_line(span.end),
            span,
            directive: parse_directive(text, Sentinel::Omp, file.language)
                .unwrap()
                .directive,
            block: block.map(|(first, last)| find(first).start..find(last).end),
            end_site: None,
            implicit_section: None,
            loop_variables: Vec::new(),
            failed: false,
        }
    }

    #[test]
    fn a_front_end_needs_only_sites_units_and_blocks() {
        let text = "void f(void) {\n\
                    #pragma omp parallel\n\
                    {\n  #pragma omp sections\n  {\n    a();\n    b();\n\
                    #pragma omp section\n    c();\n  }\n\
                    #pragma omp target\n  { d(); }\n}\n}\n";
        let file = SourceFile::new("t.c", text.as_bytes().to_vec(), Language::C);
        let mut sections = site(
            &file,
            "sections",
            "#pragma omp sections",
            Some(("{\n    a", "c();\n  }")),
        );
        sections.implicit_section = Some({
            let a = text.find("a();").unwrap();
            a..text.find("b();").unwrap() + 4
        });
        let model = Found {
            sites: vec![
                site(
                    &file,
                    "parallel",
                    "#pragma omp parallel",
                    Some(("{\n  #pragma", "}\n}\n}")),
                ),
                sections,
                site(
                    &file,
                    "section",
                    "#pragma omp section\n",
                    Some(("c();", "c();")),
                ),
                site(
                    &file,
                    "target",
                    "#pragma omp target",
                    Some(("{ d(); }", "{ d(); }")),
                ),
            ],
            units: Units(vec![Unit {
                name: "f".into(),
                span: 0..text.len() - 1,
                declarations_at: None,
                indent: String::new(),
                parent: None,
            }]),
            ..Found::default()
        };
        let model = complete(&file, model);
        let names: Vec<(&str, Option<usize>)> = model
            .sites
            .iter()
            .map(|s| (s.directive.name(), s.parent))
            .collect();
        assert_eq!(
            names,
            [
                ("parallel", None),
                ("sections", Some(0)),
                ("section", Some(1)),
                ("section", Some(1)),
                ("target", Some(0)),
            ]
        );
        let implicit = &model.sites[2];
        assert_eq!(implicit.form, DirectiveForm::Implicit);
        // Before the indentation of `a();`, so that its line stays whole.
        assert_eq!(
            implicit.span.start,
            file.start_of_line(text.find("a();").unwrap())
        );
        assert!(model.sites.iter().all(|s| s.unit == Some(0)));
        // From the directive on, so that a construct opening the block is inside.
        let target = &model.sites[4];
        let from_directive: Span = target.span.end..target.block.clone().unwrap().end;
        assert_eq!(model.no_insert, vec![from_directive]);
    }

    #[test]
    fn fortran_declare_target_makes_its_procedure_device_code() {
        let text = "subroutine g\n!$omp declare target\nend subroutine\n";
        let file = SourceFile::new("t.f90", text.as_bytes().to_vec(), Language::FortranFree);
        let mut declare = site(&file, "declare target", "!$omp declare target", None);
        declare.form = DirectiveForm::FortranComment;
        let model = Found {
            sites: vec![declare],
            units: Units(vec![Unit {
                name: "g".into(),
                span: 0..text.len(),
                declarations_at: None,
                indent: String::new(),
                parent: None,
            }]),
            ..Found::default()
        };
        let whole_unit: Span = 0..text.len();
        assert_eq!(complete(&file, model).no_insert, vec![whole_unit]);
    }

    #[test]
    fn workshare_loop_and_order_concurrent_admit_no_inserted_code() {
        let text = "void f(void) {\n\
                    #pragma omp loop\n  for (;;) a();\n\
                    #pragma omp for order(reproducible: concurrent)\n  for (;;) b();\n\
                    #pragma omp for order(concurrent)\n  for (;;) c();\n\
                    #pragma omp for\n  for (;;) d();\n}\n";
        let file = SourceFile::new("t.c", text.as_bytes().to_vec(), Language::C);
        let sites = vec![
            site(
                &file,
                "loop",
                "#pragma omp loop",
                Some(("for (;;) a", "a();")),
            ),
            site(
                &file,
                "for order(reproducible: concurrent)",
                "#pragma omp for order(reproducible: concurrent)",
                Some(("for (;;) b", "b();")),
            ),
            site(
                &file,
                "for order(concurrent)",
                "#pragma omp for order(concurrent)",
                Some(("for (;;) c", "c();")),
            ),
            site(
                &file,
                "for",
                "#pragma omp for\n",
                Some(("for (;;) d", "d();")),
            ),
        ];
        let model = complete(
            &file,
            Found {
                sites,
                ..Found::default()
            },
        );
        let zones: Vec<String> = model
            .no_insert
            .iter()
            .map(|z| file.text(z.clone()).trim().to_string())
            .collect();
        assert_eq!(zones, ["for (;;) a();", "for (;;) b();", "for (;;) c();"]);

        let text = "subroutine s\n!$omp workshare\n  a = 1\n!$omp end workshare\nend subroutine\n";
        let file = SourceFile::new("t.f90", text.as_bytes().to_vec(), Language::FortranFree);
        let mut workshare = site(
            &file,
            "workshare",
            "!$omp workshare",
            Some(("  a = 1\n", "  a = 1\n")),
        );
        workshare.form = DirectiveForm::FortranComment;
        let model = complete(
            &file,
            Found {
                sites: vec![workshare],
                ..Found::default()
            },
        );
        let zones: Vec<String> = model
            .no_insert
            .iter()
            .map(|z| file.text(z.clone()).into_owned())
            .collect();
        assert_eq!(zones, ["\n  a = 1\n"]);
    }
}

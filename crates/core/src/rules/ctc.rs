//! CTC strings: a region's source context, in the vocabulary of OPARI2's
//! CTC parser, with pomp's own fields after its terminator.

use super::table::rules;
use crate::directive::Directive;
use crate::model::Model;
use pomp2::ctc::{keys, opari2};
use std::collections::BTreeMap;

/// The keys beyond type and position that describe a construct, as OPARI2
/// writes them: the name a user gave it or its number of sections first,
/// then a key per clause in alphabetical order. The clauses are those of
/// `directive` and, in Fortran, of its end directive.
pub fn aux(
    model: &Model,
    site_index: usize,
    directive: &Directive,
    end_directive: Option<&Directive>,
) -> Vec<(String, String)> {
    let spec = directive.spec();
    let named = (spec.argument_names.as_ref())
        .zip(directive.argument.as_ref())
        // OPARI2's parser refuses an empty value.
        .filter(|(_, name)| !name.trim().is_empty());
    let divided = crate::directive::table().divided_by(spec).is_some();
    let ctc = &rules().ctc;
    let mut clauses: BTreeMap<&str, String> = BTreeMap::new();
    for clause in directive
        .clauses
        .iter()
        .chain(end_directive.iter().flat_map(|d| &d.clauses))
    {
        if let Some(key) = ctc.clause_flags.get(&*clause.name) {
            clauses.insert(key, "1".into());
        } else if clause.name == "schedule" {
            // The kind after any modifiers (`monotonic: dynamic`), which
            // OPARI2's parser does not know.
            let (_, rest) = clause.modifier_split();
            let (kind, chunk) = match rest.split_once(',') {
                Some((kind, chunk)) => (kind, Some(chunk)),
                None => (rest, None),
            };
            if let Some(value) = opari2::schedule(kind, chunk) {
                clauses.insert(&ctc.schedule, value);
            }
        } else if clause.name == "default" {
            let argument = clause.args.as_deref().unwrap_or_default();
            if let Some(value) = opari2::default_sharing(argument) {
                clauses.insert(&ctc.default, value.into());
            }
        }
    }
    // Sized once: a region keeps its list to the end, and one grown by
    // pushes would hold room for four.
    let mut aux =
        Vec::with_capacity(usize::from(named.is_some()) + usize::from(divided) + clauses.len());
    if let Some((key, name)) = named {
        aux.push((key.clone(), name.trim().to_string()));
    }
    if divided {
        // Sites are in file order: the sections are among those inside
        // the construct's block.
        let site = &model.sites[site_index];
        let block_end = site.block.as_ref().map_or(site.span.end, |b| b.end);
        let sections = model.sites[site_index + 1..]
            .iter()
            .take_while(|s| s.span.start < block_end)
            .filter(|s| s.parent == Some(site_index) && s.directive.is_separator())
            .count();
        aux.push((keys::NUM_SECTIONS.into(), sections.to_string()));
    }
    aux.extend(clauses.into_iter().map(|(k, v)| (k.to_owned(), v)));
    aux
}

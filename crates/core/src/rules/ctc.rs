//! CTC strings: a region's source context, in OPARI2's format.

use super::Region;
use crate::directive::Directive;
use crate::model::Model;

/// The keys beyond type and position that describe a construct.
pub fn aux(model: &Model, site_index: usize, directive: &Directive) -> Vec<(String, String)> {
    let mut aux = Vec::new();
    let spec = directive.spec();
    if let (Some(key), Some(name)) = (&spec.argument_names, &directive.argument) {
        aux.push((key.clone(), name.trim().to_string()));
    }
    if crate::directive::table().divided_by(spec).is_some() {
        // Sites are in file order: the sections are among those inside
        // the construct's block.
        let site = &model.sites[site_index];
        let block_end = site.block.as_ref().map_or(site.span.end, |b| b.end);
        let sections = model.sites[site_index + 1..]
            .iter()
            .take_while(|s| s.span.start < block_end)
            .filter(|s| s.parent == Some(site_index) && s.directive.is_separator())
            .count();
        aux.push(("numSections".into(), sections.to_string()));
    }
    let flag = |aux: &mut Vec<(String, String)>, clause: &str, key: &str| {
        if directive.has_clause(clause) {
            aux.push((key.into(), "1".into()));
        }
    };
    flag(&mut aux, "ordered", "hasOrdered");
    flag(&mut aux, "if", "hasIf");
    flag(&mut aux, "num_threads", "hasNumThreads");
    flag(&mut aux, "reduction", "hasReduction");
    if let Some(schedule) = directive.clause("schedule") {
        aux.push(("hasSchedule".into(), "1".into()));
        let kind = schedule
            .modifier_split()
            .1
            .split(',')
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        aux.push(("scheduleType".into(), kind));
    }
    flag(&mut aux, "collapse", "hasCollapse");
    flag(&mut aux, "untied", "hasUntied");
    aux
}

/// Appends the region's CTC string to `out`, written through `scratch`:
/// its type, the lines of its opening and closing and its facts. With
/// pomp's extended events (`pomp_id` given) it also names the region's IDF
/// id, its enclosing unit and how its closing barrier is measured, keys
/// other POMP2 libraries pass over.
pub fn push_ctc_string(
    path: &str,
    region: &Region,
    pomp_id: Option<&pomp2::RegionId>,
    scratch: &mut String,
    out: &mut String,
) {
    let lines = |(first, last): (usize, usize)| pomp2::ctc::SourceRangeView {
        file: path,
        first_line: first as u32,
        last_line: last as u32,
    };
    let extended = pomp_id.is_some();
    let pomp_id = pomp_id.map(|id| id.to_string());
    let view = pomp2::ctc::ContextView {
        region_type: &region.region_type,
        start: Some(lines(region.start_lines)),
        end: Some(lines(region.end_lines)),
        attributes: &region.aux,
        pomp_id: pomp_id.as_deref(),
        unit: region.unit.as_deref().filter(|_| extended),
        implicit_barrier: region
            .implicit_barrier
            .filter(|_| extended)
            .unwrap_or_default(),
    };
    pomp2::ctc::push_view(&view, scratch, out);
}

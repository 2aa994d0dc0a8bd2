//! Functions measured as user regions (`--regions=functions`): the same
//! `Begin`/`End` calls and CTC form as a hand-marked user region, named
//! after the function.

use super::plan::{FunctionRegion, Region};
use super::planner::Planner;
use super::user_regions::user_region_type;
use crate::directive::{table as directive_table, Role};
use crate::language::Family;
use crate::model::CodeKind;
use crate::model::{Model, Site};
use crate::source::Span;

impl Planner<'_> {
    /// A region for each function the front end handed over, but those
    /// in code where nothing may be inserted (device code).
    pub(super) fn function_regions(&mut self) {
        let region_type = user_region_type();
        let name_key = user_region_name_key();
        // Fortran has no scope whose leaving calls code: every jump out
        // closes the region itself.
        let closed_at_exits = self.file.language.family() == Family::Fortran;
        for (index, function) in self.model.functions.iter().enumerate() {
            if self.inserts_nothing_at(function.entry) || self.filtered_function(function) {
                continue;
            }
            let id = self.plan.regions.len() + 1;
            let last = function.span.end.max(function.span.start + 1) - 1;
            // A loop or call is its own head and end, each on its lines.
            let (entry, exit) = match function.kind {
                CodeKind::Loop | CodeKind::Call => (function.span.start, last),
                _ => (function.entry, function.exit),
            };
            self.plan.regions.push(Region {
                id,
                site: None,
                function: Some(index),
                end_site: None,
                region_type: region_type.into(),
                opari2_type: pomp2::ctc::opari2::USER_REGION.into(),
                user: true,
                handle: self.handle_name(id),
                parent: None,
                name: Some(function.name.clone()),
                start_lines: self.file.lines(&(function.span.start..entry + 1)),
                end_lines: self.file.lines(&(exit..last + 1)),
                aux: vec![(name_key.clone(), function.name.clone())],
                unit: function.unit.clone(),
                code_kind: Some(function.kind),
                implicit_barrier: None,
            });
            self.plan.functions.push(FunctionRegion {
                function: index,
                region: self.plan.regions.len() - 1,
                closed_at_exits,
            });
        }
    }

    /// Whether `--filter` leaves `function` alone. A C function's symbol
    /// is its name; other languages' symbols are not known here. A loop
    /// or call answers to its name and to `FILE:LINE`, as constructs do.
    fn filtered_function(&self, function: &crate::model::Function) -> bool {
        let filter = &self.options.filter;
        if filter.is_empty() {
            return false;
        }
        let statement = matches!(function.kind, CodeKind::Loop | CodeKind::Call);
        let mangled = (self.file.language == crate::language::Language::C && !statement)
            .then_some(function.name.as_str());
        let mut names = vec![function.name.clone()];
        let place = self.file.place(function.span.start);
        let path = self.file.file_name(place.file);
        if statement {
            let short = path.rsplit(['/', '\\']).next().unwrap_or(&path);
            names.push(format!("{path}:{}", place.line));
            names.push(format!("{short}:{}", place.line));
        }
        filter.excludes(
            std::path::Path::new(path.as_ref()),
            &crate::filter::RegionNames { names, mangled },
        )
    }

    /// Whether `--filter` leaves the construct or user region of `site`
    /// alone.
    pub(super) fn filtered_site(&self, site: &Site, region_type: &str) -> bool {
        let filter = &self.options.filter;
        if filter.is_empty() {
            return false;
        }
        let unit = (self.model.unit_at(site.span.start)).map(|u| self.model.units[u].name.as_str());
        let place = self.file.place(site.span.start);
        let path = self.file.file_name(place.file);
        let path = std::path::Path::new(path.as_ref());
        let names = crate::filter::construct_names(
            region_type,
            site.directive.argument.as_deref(),
            unit,
            path,
            place.line,
        );
        filter.excludes(
            path,
            &crate::filter::RegionNames {
                names,
                mangled: None,
            },
        )
    }

    fn inserts_nothing_at(&self, offset: usize) -> bool {
        let zones = &self.model.no_insert;
        let after = zones.partition_point(|z| z.start <= offset);
        zones[..after].iter().any(|z| z.contains(&offset))
    }

    /// The id of the innermost function region whose function holds
    /// `span`, other than region `own`.
    pub(super) fn function_holding(&self, span: &Span, own: usize) -> Option<usize> {
        (self.plan.functions.iter().rev())
            .map(|f| {
                (
                    &self.model.functions[f.function],
                    &self.plan.regions[f.region],
                )
            })
            .filter(|(function, region)| {
                region.id != own
                    && function.span.start <= span.start
                    && span.end <= function.span.end
                    && function.span != *span
            })
            .max_by_key(|(function, _)| function.span.start)
            .map(|(_, region)| region.id)
    }
}

/// The CTC key naming a user region.
fn user_region_name_key() -> String {
    directive_table()
        .directive
        .iter()
        .find(|d| d.role == Some(Role::UserRegionBegin))
        .and_then(|d| d.argument_names.clone())
        .expect("the directive table names user regions")
}

/// Whether a function region is the program's: it initialises and
/// finalises the measurement.
pub fn is_program(model: &Model, region: &Region) -> bool {
    region
        .function
        .is_some_and(|f| model.functions[f].kind == CodeKind::Program)
}

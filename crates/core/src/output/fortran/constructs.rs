//! Directive lines rewritten: an instrumented construct's directive and
//! end directive with the calls around them, directives rewritten without
//! instrumentation, and pomp's own directives.

use super::renderer::Renderer;
use crate::directive::Directive;
use crate::edits::Origin;
use crate::model::{DirectiveForm, Site};
use crate::rules::{BareDirective, Construct, PompAction, Shape, ValueScope, Var};

impl Renderer<'_> {
    pub(super) fn construct(&mut self, construct: &Construct) {
        let site = &self.model.sites[construct.site];
        let unit = site.unit;
        let region = construct.region;
        let directive_line = self.file.line_of(site.span.start);
        let end_site = site.end_site.map(|e| &self.model.sites[e]);
        let end_directive = end_site.map(|s| &s.directive);
        let layers = &construct.layers;
        let innermost = layers.len().saturating_sub(1);

        // A section's calls use its sections' descriptor, ready by then.
        let opens_region = self.plan.regions[region].site == Some(construct.site);
        let mut opening = if opens_region {
            self.descriptor_guard(unit)
        } else {
            String::new()
        };
        for layer in layers {
            opening.push_str(&self.assignments(unit, &layer.vars));
            opening.push_str(&self.calls(unit, region, &layer.before));
            if let Some(directive) = &layer.directive {
                let mut shared = Vec::new();
                let directive = self.fortran_directive(
                    crate::rules::rules()
                        .construct
                        .get(layer.rule)
                        .is_some_and(|rule| rule.task),
                    directive,
                    self.private_vars.get(&construct.site),
                    &mut shared,
                );
                // Handles named in a `shared` clause are declared too.
                if let Some(unit) = unit {
                    self.needs.entry(unit).or_default().regions.extend(shared);
                }
                opening.push_str(&self.line_marker(directive_line));
                opening.push_str(&self.directive_line(&directive.render()));
            }
            if layer.shape == Shape::Block {
                opening.push_str(&self.calls(unit, region, &layer.begin));
            }
        }

        let standalone = site.block.is_none();
        let mut closing = String::new();
        for (i, layer) in layers.iter().enumerate().rev() {
            if layer.shape == Shape::Block && !standalone {
                if layer.barrier_before_end {
                    closing.push_str(&self.implicit_barrier(unit, region));
                }
                closing.push_str(&self.calls(unit, region, &layer.end));
            }
            if let Some(directive) = &layer.directive {
                // A block construct's end directive is written also where
                // its code is a BLOCK construct that needs none: the calls
                // inserted around that BLOCK are code of the construct too.
                let written = !standalone
                    && !directive.is_separator()
                    && (end_site.is_some() || layer.add_nowait || layer.shape == Shape::Block);
                if written {
                    let mut text = format!("end {}", directive.name());
                    if let Some(argument) = directive
                        .argument
                        .as_ref()
                        .filter(|_| directive.spec().end_repeats_argument)
                    {
                        text.push_str(&format!(" ({argument})"));
                    }
                    if i == innermost {
                        for clause in end_directive.map_or(&[][..], |d| &d.clauses[..]) {
                            text.push(' ');
                            text.push_str(&clause.render());
                        }
                    }
                    if layer.add_nowait {
                        text.push_str(" nowait");
                    }
                    closing.push_str(&self.directive_line(&text));
                }
            }
            if layer.add_nowait && layer.barrier_after {
                closing.push_str(&self.implicit_barrier(unit, region));
            }
            closing.push_str(&self.calls(unit, region, &layer.after));
        }

        let order = crate::output::writing::nesting_depth(self.model, construct.site);
        let origin = Origin::Site {
            site: construct.site,
            region: Some(region),
        };
        if standalone {
            opening.push_str(&closing);
            closing.clear();
        }
        opening.push_str(&self.line_marker(self.file.line_of(site.lines.end)));
        if site.form == DirectiveForm::Implicit {
            self.edits
                .insert(site.lines.end, opening, order, origin.clone());
        } else {
            self.edits
                .replace(site.lines.clone(), opening, order, origin.clone());
        }
        if standalone {
            return;
        }
        match (end_site, &site.block) {
            (Some(end), _) => {
                closing.push_str(&self.line_marker(self.file.line_of(end.lines.end)));
                self.edits
                    .replace(end.lines.clone(), closing, -order, origin);
            }
            (None, Some(block)) if !closing.is_empty() => {
                let at = block.end;
                let mut text = String::new();
                if at > 0 && self.file.bytes[at - 1] != b'\n' {
                    text.push('\n');
                }
                text.push_str(&closing);
                text.push_str(&self.line_marker(self.file.line_of(at)));
                self.edits.insert(at, text, -order, origin);
            }
            _ => {}
        }
    }

    pub(super) fn bare_directive(&mut self, bare: &BareDirective) {
        self.rewritten_directive(bare.site, &bare.directive, &[]);
    }

    /// Values evaluated before a construct that is not instrumented.
    pub(super) fn value_scope(&mut self, scope: &ValueScope) {
        self.rewritten_directive(scope.site, &scope.directive, &scope.vars);
    }

    /// A directive rewritten without instrumentation, after the values
    /// `vars` its clauses now name.
    pub(super) fn rewritten_directive(
        &mut self,
        site_index: usize,
        directive: &Directive,
        vars: &[Var],
    ) {
        let site = &self.model.sites[site_index];
        let mut shared = Vec::new();
        let directive = self.fortran_directive(
            false,
            directive,
            self.private_vars.get(&site_index),
            &mut shared,
        );
        if let Some(unit) = site.unit {
            self.needs.entry(unit).or_default().regions.extend(shared);
        }
        let text = format!(
            "{}{}{}{}",
            self.assignments(site.unit, vars),
            self.line_marker(self.file.line_of(site.span.start)),
            self.directive_line(&directive.render()),
            self.line_marker(self.file.line_of(site.lines.end))
        );
        self.edits.replace(
            site.lines.clone(),
            text,
            crate::output::writing::nesting_depth(self.model, site_index),
            Origin::Site {
                site: site_index,
                region: None,
            },
        );
    }

    pub(super) fn pomp_directive(&mut self, site_index: usize, action: &PompAction) {
        let site: &Site = &self.model.sites[site_index];
        let unit = site.unit;
        let plan = self.plan;
        let text = match action {
            PompAction::Remove => String::new(),
            PompAction::Call(call) => self.statement(
                &self.indent(unit),
                &format!("call {}()", plan.function(call.event)),
            ),
            PompAction::UserBegin(r) => {
                self.descriptor_guard(unit) + &self.calls(unit, *r, &plan.user_region.begin)
            }
            PompAction::UserEnd(r) => self.calls(unit, *r, &plan.user_region.end),
        };
        let resume = self.line_marker(self.file.line_of(site.lines.end));
        self.edits.replace(
            site.lines.clone(),
            crate::output::writing::directive_replacement(text, resume),
            0,
            Origin::Site {
                site: site_index,
                region: action.region(),
            },
        );
    }
}

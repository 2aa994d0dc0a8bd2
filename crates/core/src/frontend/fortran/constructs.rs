//! What each directive applies to: block constructs end at their end
//! directive, or with the BLOCK construct that is their code, followed by
//! an optional end directive; loop constructs and `atomic` take their loop
//! nest or statement from the tree, followed by an optional end directive;
//! `section` directives divide their `sections` construct.

use super::analysis::Analysis;
use super::lines::LineKind;
use super::units::named_child_of_kind;
use crate::diagnostics::Diagnostic;
use crate::directive::{Association, Directive};
use crate::model::FoundSite;
use tree_sitter::Node;

/// What a directive needs from the code after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Ends at a required end directive.
    Block,
    /// A loop nest, then an optional end directive.
    Loop,
    /// One statement and an optional `end atomic`; with `capture`, any
    /// statements up to a required `end atomic`.
    Atomic {
        capture: bool,
    },
    /// `section`.
    Separator,
    End {
        of: String,
    },
    Other,
}

pub(crate) fn role(directive: &Directive) -> Role {
    let spec = directive.spec();
    match spec.association {
        Association::Block if spec.statement_block => Role::Atomic {
            capture: spec
                .whole_block_with
                .iter()
                .any(|c| directive.has_clause(c)),
        },
        Association::Block => Role::Block,
        // `begin metadirective`: a block its end directive closes.
        Association::Meta if crate::directive::table().is_ended(directive.name()) => Role::Block,
        Association::Loop => Role::Loop,
        Association::Separator => Role::Separator,
        Association::End => match &spec.ends {
            Some(of) => Role::End { of: of.clone() },
            None => Role::End {
                of: directive.name().trim_start_matches("end ").to_string(),
            },
        },
        _ => Role::Other,
    }
}

/// A `sections` construct, alone or combined: a leaf of it divided by
/// separators, not a name that merely ends the same way.
fn divides_into_sections(site: &FoundSite) -> bool {
    crate::directive::table()
        .divided_by(site.directive.spec())
        .is_some()
}

fn same_argument(a: &Option<String>, b: &Option<String>) -> bool {
    let normal = |s: &Option<String>| s.as_deref().map(|s| s.trim().to_ascii_lowercase());
    normal(a) == normal(b)
}

impl Analysis<'_> {
    pub(super) fn constructs(&mut self) {
        let roles: Vec<Role> = self
            .model
            .sites
            .iter()
            .map(|s| role(&s.directive))
            .collect();
        let site_of_line: std::collections::HashMap<usize, usize> = self
            .model
            .sites
            .iter()
            .enumerate()
            .map(|(i, s)| (self.scan.line_index(s.lines.start), i))
            .collect();
        let mut claimed = vec![false; roles.len()];
        // Open block constructs, innermost last, with the sections they hold.
        let mut open: Vec<(usize, Vec<usize>)> = Vec::new();
        for index in 0..roles.len() {
            if claimed[index] {
                continue;
            }
            let unit = self.site_units[index];
            while let Some(&(top, _)) = open.last() {
                if self.site_units[top] == unit {
                    break;
                }
                open.pop();
                self.unterminated(top);
            }
            match &roles[index] {
                Role::Block => match self.strictly_structured_block(index) {
                    Some(end) => self.optional_end(index, end, &roles, &site_of_line, &mut claimed),
                    None => open.push((index, vec![])),
                },
                Role::Atomic { capture: true } => open.push((index, vec![])),
                Role::Loop => {
                    if let Some(end) = self.loop_block(index, &roles) {
                        self.optional_end(index, end, &roles, &site_of_line, &mut claimed);
                    }
                }
                Role::Atomic { capture: false } => {
                    if let Some(end) = self.atomic_statement(index) {
                        self.optional_end(index, end, &roles, &site_of_line, &mut claimed);
                    }
                }
                Role::Separator => match open.last_mut() {
                    Some((top, sections)) if divides_into_sections(&self.model.sites[*top]) => {
                        sections.push(index)
                    }
                    _ => {
                        let diagnostic = Diagnostic::error(
                            self.model.sites[index].span.clone(),
                            "`section` outside a `sections` construct",
                            "not directly inside `sections`",
                        );
                        self.fail(index, diagnostic);
                    }
                },
                Role::End { of } => {
                    let opener = open.iter().rposition(|(i, _)| {
                        let site = &self.model.sites[*i];
                        site.directive.name() == *of
                    });
                    match opener {
                        Some(position) => {
                            for (inner, _) in open.drain(position + 1..).collect::<Vec<_>>() {
                                self.unterminated(inner);
                            }
                            let (opener, sections) =
                                open.pop().expect("the opener is on the stack");
                            self.close(opener, index, sections);
                        }
                        None => {
                            let diagnostic = Diagnostic::error(
                                self.model.sites[index].span.clone(),
                                format!(
                                    "`{}` without a matching `{of}` directive",
                                    self.model.sites[index].directive.name()
                                ),
                                "nothing to end here",
                            );
                            self.fail(index, diagnostic);
                        }
                    }
                }
                Role::Other => {}
            }
        }
        for (index, _) in open {
            self.unterminated(index);
        }
    }

    fn unterminated(&mut self, index: usize) {
        let site = &self.model.sites[index];
        let diagnostic = Diagnostic::error(
            site.span.clone(),
            format!(
                "`{}` has no `end {}` directive",
                site.directive.name(),
                site.directive.name()
            ),
            "construct opened here",
        );
        self.fail(index, diagnostic);
    }

    /// Report an error about a directive, which is then left as written.
    fn fail(&mut self, index: usize, diagnostic: Diagnostic) {
        self.model.sites[index].failed = true;
        self.model.diagnostics.push(diagnostic);
    }

    fn close(&mut self, opener: usize, end: usize, sections: Vec<usize>) {
        let (open, close) = (&self.model.sites[opener], &self.model.sites[end]);
        if open.directive.spec().end_repeats_argument
            && !same_argument(&open.directive.argument, &close.directive.argument)
        {
            let message = "the names of `critical` and `end critical` differ";
            let diagnostic = Diagnostic::error(close.span.clone(), message, "different name")
                .with_note(format!(
                    "the construct is `critical{}`",
                    open.directive
                        .argument
                        .as_ref()
                        .map(|a| format!("({a})"))
                        .unwrap_or_default()
                ));
            self.fail(opener, diagnostic);
            self.model.sites[end].failed = true;
            return;
        }
        let block = open.lines.end..close.lines.start;
        self.model.sites[opener].block = Some(block.clone());
        self.model.sites[opener].end_site = Some(end);
        self.divide_sections(opener, block, sections);
    }

    /// Each `section` runs to the next one or to `end sections`. Code before
    /// the first `section` directive is a section too, written implicitly.
    fn divide_sections(
        &mut self,
        construct: usize,
        block: std::ops::Range<usize>,
        sections: Vec<usize>,
    ) {
        if !divides_into_sections(&self.model.sites[construct]) {
            return;
        }
        let first_section = sections
            .first()
            .map_or(block.end, |&s| self.model.sites[s].lines.start);
        // Directives are comments to the tree: a first section that starts
        // with one (a user region's begin, an atomic) starts at its line.
        let first_statement = self
            .statement_after(block.start)
            .map(|statement| self.file.start_of_line(self.original_span(statement).start));
        let first_directive = self.model.sites[construct + 1..]
            .iter()
            .map(|s| s.lines.start)
            .find(|&start| start >= block.start);
        let start = first_statement.into_iter().chain(first_directive).min();
        if let Some(start) = start.filter(|&start| start < first_section) {
            self.model.sites[construct].implicit_section = Some(start..first_section);
        }
        for (k, &section) in sections.iter().enumerate() {
            let end = sections
                .get(k + 1)
                .map_or(block.end, |&next| self.model.sites[next].lines.start);
            self.model.sites[section].block = Some(self.model.sites[section].lines.end..end);
        }
    }

    /// A block construct whose code is a BLOCK construct (a strictly
    /// structured block, OpenMP 5.1) ends with its `end block`, and its end
    /// directive may be left out; returns where its block ends. `sections`
    /// keeps its end directive: its block holds sections.
    fn strictly_structured_block(&mut self, index: usize) -> Option<usize> {
        let site = &self.model.sites[index];
        if divides_into_sections(site) {
            return None;
        }
        let statement = self
            .statement_after(site.lines.end)
            .filter(|s| s.kind() == "block_construct")?;
        // A directive in between (which the tree sees as a comment) owns
        // the BLOCK instead.
        let start = self.original_span(statement).start;
        let directive_between =
            (self.model.sites.get(index + 1)).is_some_and(|next| next.span.start < start);
        if directive_between {
            return None;
        }
        let end = self.end_of_last_line(statement);
        let site = &mut self.model.sites[index];
        site.block = Some(site.lines.end..end);
        Some(end)
    }

    /// The loop nest of a loop construct; returns where its block ends.
    fn loop_block(&mut self, index: usize, roles: &[Role]) -> Option<usize> {
        let site = &self.model.sites[index];
        let statement = self.statement_after(site.lines.end);
        let Some(statement) = statement.filter(|s| s.kind() == "do_loop") else {
            self.expected(index, "a DO loop", statement);
            return None;
        };
        // Only loop-transforming directives may stand between.
        let loop_start = self.original_span(statement).start;
        let mut between = self
            .model
            .sites
            .iter()
            .enumerate()
            .skip(index + 1)
            .take_while(|(_, s)| s.span.start < loop_start);
        if let Some((other, _)) = between.find(|(i, _)| roles[*i] != Role::Loop) {
            let diagnostic = Diagnostic::error(
                self.model.sites[other].span.clone(),
                format!(
                    "this directive stands between `{}` and its loop",
                    self.model.sites[index].directive.name()
                ),
                "not a loop directive",
            );
            self.fail(index, diagnostic);
            return None;
        }
        let wanted = self.collapse(index);
        let nest = loop_nest(statement, wanted);
        let depth = nest.len();
        if depth < wanted {
            let site = &self.model.sites[index];
            let diagnostic = Diagnostic::error(
                site.span.clone(),
                format!("`collapse({wanted})` needs {wanted} nested loops, found {depth}"),
                "loop nest too shallow",
            );
            self.fail(index, diagnostic);
            return None;
        }
        let end = self.end_of_last_line(statement);
        let loop_variables = nest.iter().map_while(|&l| self.do_variable(l)).collect();
        let site = &mut self.model.sites[index];
        site.block = Some(site.lines.end..end);
        site.loop_variables = loop_variables;
        if shares_terminal_statement(statement) {
            let diagnostic = Diagnostic::warning(
                site.span.clone(),
                format!(
                    "`{}` is not instrumented: its loop ends on the labelled statement that \
                     also ends the enclosing DO loop",
                    site.directive.name()
                ),
                "loop with a shared terminal statement",
            )
            .with_note(
                "the construct's end events and barrier would follow its loop inside the \
                 enclosing one, where no statement can stand",
            )
            .with_note("give the loop a terminal statement of its own to measure it");
            site.failed = true;
            self.model.diagnostics.push(diagnostic);
        }
        Some(end)
    }

    /// The variable a DO loop's control assigns (`do i = 1, n`), in
    /// lowercase: every variable is declared elsewhere. `None` for `do
    /// while`, `do concurrent` and a DO without control.
    fn do_variable(&self, do_loop: Node) -> Option<String> {
        let statement = named_child_of_kind(do_loop, "do_statement")?;
        let control = named_child_of_kind(statement, "loop_control_expression")?;
        let variable = control
            .named_child(0)
            .filter(|v| v.kind() == "identifier")?;
        Some(self.parse_text_of(variable).to_ascii_lowercase())
    }

    fn collapse(&self, index: usize) -> usize {
        let directive = &self.model.sites[index].directive;
        directive
            .clause("collapse")
            .and_then(|c| c.args.as_deref())
            .and_then(|a| a.trim().parse().ok())
            .unwrap_or(1)
    }

    /// The statement an `atomic` applies to; returns where its block ends.
    fn atomic_statement(&mut self, index: usize) -> Option<usize> {
        let site = &self.model.sites[index];
        let statement = self.statement_after(site.lines.end);
        let Some(statement) = statement.filter(|s| is_statement(s.kind()) && !self.is_macro(*s))
        else {
            self.expected(index, "a statement", statement);
            return None;
        };
        let end = self.end_of_last_line(statement);
        let site = &mut self.model.sites[index];
        site.block = Some(site.lines.end..end);
        Some(end)
    }

    fn expected(&mut self, index: usize, what: &str, found: Option<Node>) {
        let site = &self.model.sites[index];
        let found = match found {
            Some(node) if node.kind() == "ERROR" => "code that cannot be parsed".to_string(),
            Some(node) if self.is_macro(node) => format!(
                "the macro statement `{}`, whose expansion is the preprocessor's",
                self.file.text(self.original_span(node)).trim()
            ),
            Some(node) => format!("`{}`", node.kind().replace('_', " ")),
            None => "the end of the program unit".to_string(),
        };
        let diagnostic = Diagnostic::error(
            site.span.clone(),
            format!(
                "`{}` must be followed by {what}, found {found}",
                site.directive.name()
            ),
            "directive here",
        );
        self.fail(index, diagnostic);
    }

    /// Whether `statement` is a macro statement: what it stands for is
    /// known only once the compiler has preprocessed the file.
    fn is_macro(&self, statement: Node) -> bool {
        let start = self.original_span(statement).start;
        self.parse.macro_statements.binary_search(&start).is_ok()
    }

    /// An end directive for `index` that directly follows `after` (only
    /// blank and comment lines between).
    fn optional_end(
        &mut self,
        index: usize,
        after: usize,
        roles: &[Role],
        site_of_line: &std::collections::HashMap<usize, usize>,
        claimed: &mut [bool],
    ) {
        let mut line = self.scan.line_index(after);
        if after >= self.file.bytes.len() {
            return;
        }
        while matches!(
            self.scan.kinds.get(line),
            Some(LineKind::Blank | LineKind::Comment)
        ) {
            line += 1;
        }
        let Some(&candidate) = site_of_line.get(&line) else {
            return;
        };
        if let Role::End { of } = &roles[candidate] {
            if *of == self.model.sites[index].directive.name() {
                self.model.sites[index].end_site = Some(candidate);
                claimed[candidate] = true;
            }
        }
    }
}

/// A labelled DO loop ending on the terminal statement of the DO loop
/// around it (`DO 100 I` / `DO 100 J` / `100 CONTINUE`): the tree gives it
/// a virtual end.
fn shares_terminal_statement(do_loop: Node) -> bool {
    let mut cursor = do_loop.walk();
    let Some(end) = do_loop.named_children(&mut cursor).last() else {
        return false;
    };
    let mut cursor = end.walk();
    end.kind() == "end_do_label_loop_statement"
        && end
            .named_children(&mut cursor)
            .any(|c| c.kind() == "do_label_virtual")
}

/// The loops nested from `outer` on, up to `wanted` of them, outermost
/// first. Since OpenMP 5.0 a loop of the nest may hold code before and
/// after the next loop (intervening code, which holds no loop itself): the
/// next loop is the one loop among the statements of the body.
fn loop_nest(outer: Node, wanted: usize) -> Vec<Node> {
    let mut nest = vec![outer];
    let mut current = outer;
    while nest.len() < wanted {
        let mut cursor = current.walk();
        let mut loops = current
            .named_children(&mut cursor)
            .filter(|c| c.kind() == "do_loop");
        match (loops.next(), loops.next()) {
            (Some(inner), None) => {
                current = inner;
                nest.push(current);
            }
            _ => break,
        }
    }
    nest
}

fn is_statement(kind: &str) -> bool {
    !matches!(
        kind,
        "ERROR" | "comment" | "internal_procedures" | "contains_statement"
    ) && !kind.starts_with("end_")
        && !kind.starts_with("preproc")
}

//! Preprocessor conditionals (`#if` ... `#elif` ... `#else` ... `#endif`)
//! and what they mean for parsing.
//!
//! Each conditional is a group of branches. A branch whose condition is
//! known ([`super::expression`]: `_OPENMP` is defined, `__cplusplus` is
//! known, constants are evaluated) is decided: the compiler sees only the
//! taken branch, so the others are masked before parsing, as directives
//! are, and their bytes stay in the output untouched. Branches whose
//! conditions are not known are all live:
//!
//! - a group of blank branches (only comments, pragmas and directives)
//!   has no effect on the code's structure and is masked as a whole, so a
//!   directive chosen by a macro stands where the grammar expects a
//!   statement;
//! - a group whose branches hold balanced code is left to the grammar,
//!   which parses every branch;
//! - a group whose branches are not balanced (a loop header split by
//!   `#ifdef _WIN32`) is a variable of the file's configuration: each
//!   setting is parsed on its own, and the results must agree.
//!
//! The conditions of live branches are kept, so that code inserted for a
//! directive can be placed under the same condition as the directive.

use super::expression::{self, Known, Truth};
use super::lex::{TokenKind, Tokens};
use super::scan::{LineKind, PreprocessorLine, RawDirective, RawKind};
use crate::source::Span;
use std::collections::BTreeMap;

/// One conditional line of a group.
#[derive(Clone, Debug)]
pub struct CondLine {
    pub kind: LineKind,
    pub span: Span,
    pub text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BranchState {
    /// Never compiled with OpenMP.
    Dead,
    /// Always compiled with OpenMP.
    Taken,
    /// Compiled or not, as the macros are set.
    Maybe,
}

#[derive(Clone, Debug)]
pub struct Branch {
    /// From the line after its conditional line to the start of the next
    /// conditional line of its group.
    pub body: Span,
    pub state: BranchState,
    /// A preprocessor expression that holds exactly when the branch is
    /// compiled (with OpenMP): earlier undecided branches negated.
    pub condition: String,
    summary: Summary,
}

/// What a group means for parsing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// In a dead branch of another group.
    Dead,
    /// One branch taken (or none): the others are masked.
    Decided,
    /// Undecided, all branches blank: masked as a whole.
    Transparent,
    /// Undecided, balanced code in its branches: the grammar parses them.
    Code,
    /// Undecided, brackets not balanced in a branch: one of the file's
    /// configuration variables.
    Unbalanced,
    /// Without `#endif`, or otherwise not a conditional the grammar knows.
    Malformed,
}

#[derive(Clone, Debug)]
pub struct Group {
    /// The opening line, the lines continuing it and, when present, `#endif`.
    pub lines: Vec<CondLine>,
    /// One per opening or continuing line.
    pub branches: Vec<Branch>,
    /// The branch holding this group: (group, branch).
    pub parent: Option<(usize, usize)>,
    pub form: Form,
}

impl Group {
    /// From the opening `#` to the end of the `#endif` line.
    pub fn extent(&self, file_end: usize) -> Span {
        let start = self.lines[0].span.start;
        let end = match self.lines.last() {
            Some(line) if line.kind == LineKind::Endif => line.span.end,
            _ => file_end,
        };
        start..end
    }

    pub fn has_else(&self) -> bool {
        self.lines.iter().any(|l| l.kind == LineKind::Else)
    }

    /// The branches a configuration may choose: the live ones and, without
    /// `#else`, the empty branch taken when no condition holds.
    pub fn alternatives(&self) -> usize {
        let live = self
            .branches
            .iter()
            .filter(|b| b.state != BranchState::Dead)
            .count();
        live + usize::from(!self.has_else())
    }

    /// The condition of the group's first live branch, as written.
    pub fn first_condition(&self) -> Option<&CondLine> {
        self.branches
            .iter()
            .position(|b| b.state != BranchState::Dead)
            .map(|i| &self.lines[i])
    }
}

/// What a stretch of code holds: anything besides blanks, and how it
/// changes the depth of brackets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Summary {
    code: bool,
    /// Change of bracket depth from start to end.
    depth: i32,
    /// The lowest depth reached, relative to the start.
    lowest: i32,
}

impl Summary {
    fn then(self, next: Summary) -> Summary {
        Summary {
            code: self.code || next.code,
            depth: self.depth + next.depth,
            lowest: self.lowest.min(self.depth + next.lowest),
        }
    }

    fn balanced(&self) -> bool {
        self.depth == 0 && self.lowest >= 0
    }
}

/// Which alternative each unbalanced group (by index) takes; groups not
/// named take their first.
pub type Assignment = BTreeMap<usize, usize>;

/// The conditionals of a file.
#[derive(Clone, Debug, Default)]
pub struct Conditionals {
    pub groups: Vec<Group>,
    /// Conditional lines by offset: (start, group, index into its lines).
    by_offset: Vec<(usize, usize, usize)>,
    /// Live branches by the start of their body: (start, (group, branch)).
    live: Vec<(usize, (usize, usize))>,
    /// Code never compiled with OpenMP, sorted and disjoint.
    dead: Vec<Span>,
    /// The unbalanced groups' extents, in order.
    unbalanced: Vec<(Span, usize)>,
    /// The furthest end of the groups' extents so far, group by group,
    /// and of the unbalanced ones: what [`candidates`] searches.
    reach: Vec<usize>,
    unbalanced_reach: Vec<usize>,
    file_end: usize,
}

impl Conditionals {
    /// The conditionals among `lines`, with what is known of them.
    pub fn new(
        bytes: &[u8],
        lines: &[PreprocessorLine],
        directives: &[RawDirective],
        known: Known,
    ) -> Conditionals {
        let mut c = Conditionals {
            file_end: bytes.len(),
            ..Conditionals::default()
        };
        c.build(bytes, lines);
        c.decide(known);
        c.summarise(bytes, lines, directives);
        c.classify();
        c.live = c
            .groups
            .iter()
            .enumerate()
            .filter(|(_, g)| g.form != Form::Dead)
            .flat_map(|(index, g)| {
                g.branches
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| b.state != BranchState::Dead)
                    .map(move |(b, branch)| (branch.body.start, (index, b)))
            })
            .collect();
        c.live.sort_unstable();
        let mut dead: Vec<Span> = c
            .groups
            .iter()
            .filter(|g| g.form != Form::Dead)
            .flat_map(|g| g.branches.iter())
            .filter(|b| b.state == BranchState::Dead)
            .map(|b| b.body.clone())
            .collect();
        dead.sort_unstable_by_key(|s| s.start);
        c.dead = dead;
        c.unbalanced = (0..c.groups.len())
            .filter(|&g| c.groups[g].form == Form::Unbalanced)
            .map(|g| (c.extent(g), g))
            .collect();
        c.reach = furthest_ends((0..c.groups.len()).map(|g| c.extent(g)));
        c.unbalanced_reach = furthest_ends(c.unbalanced.iter().map(|(extent, _)| extent.clone()));
        c
    }

    /// Whether the code at `offset` is never compiled with OpenMP.
    pub fn is_dead(&self, offset: usize) -> bool {
        let count = self.dead.partition_point(|s| s.start <= offset);
        count
            .checked_sub(1)
            .is_some_and(|i| self.dead[i].contains(&offset))
    }

    fn build(&mut self, bytes: &[u8], lines: &[PreprocessorLine]) {
        // Sized once: grown by doubling, the lists of a file of thousands
        // of conditionals were copied into fresh pages at every step.
        let conditional = lines.iter().filter(|l| l.kind.is_conditional());
        self.by_offset.reserve(conditional.clone().count());
        (self.groups).reserve(conditional.clone().filter(|l| l.kind.opens()).count());
        let mut open: Vec<usize> = Vec::new();
        for line in conditional {
            let cond = CondLine {
                kind: line.kind,
                span: line.span.clone(),
                text: line.text.clone(),
            };
            if line.kind.opens() {
                let parent = open.last().map(|&g| (g, self.groups[g].lines.len() - 1));
                open.push(self.groups.len());
                self.groups.push(Group {
                    lines: vec![cond],
                    branches: Vec::new(),
                    parent,
                    form: Form::Code,
                });
            } else if let Some(&g) = open.last() {
                let group = &mut self.groups[g];
                // Nothing continues a group after its `#else`.
                if group.lines.last().is_some_and(|l| l.kind == LineKind::Else)
                    && line.kind.continues()
                {
                    group.form = Form::Malformed;
                }
                group.lines.push(cond);
                if line.kind == LineKind::Endif {
                    open.pop();
                }
            }
        }
        for g in open {
            self.groups[g].form = Form::Malformed;
        }
        for (index, group) in self.groups.iter_mut().enumerate() {
            for (i, line) in group.lines.iter().enumerate() {
                self.by_offset.push((line.span.start, index, i));
            }
            let count = group.lines.len()
                - usize::from(
                    group
                        .lines
                        .last()
                        .is_some_and(|l| l.kind == LineKind::Endif),
                );
            for i in 0..count {
                let start = after_newline(bytes, group.lines[i].span.end);
                let end = group
                    .lines
                    .get(i + 1)
                    .map_or(bytes.len(), |next| line_start(bytes, next.span.start))
                    .max(start);
                group.branches.push(Branch {
                    body: start..end,
                    state: BranchState::Maybe,
                    condition: String::new(),
                    summary: Summary::default(),
                });
            }
        }
        self.by_offset.sort_unstable();
    }

    fn decide(&mut self, known: Known) {
        for index in 0..self.groups.len() {
            let inside_dead = self.groups[index]
                .parent
                .is_some_and(|(g, b)| self.groups[g].branches[b].state == BranchState::Dead);
            let group = &mut self.groups[index];
            if inside_dead {
                group.form = Form::Dead;
                for branch in &mut group.branches {
                    branch.state = BranchState::Dead;
                }
                continue;
            }
            // Conditions keep every earlier branch negated, known or not:
            // repeated in the output, they hold exactly where the branch is
            // compiled, with OpenMP or without.
            let mut earlier: Vec<String> = Vec::new();
            let mut earlier_maybe = false;
            let mut taken = false;
            for (line, branch) in group.lines.iter().zip(&mut group.branches) {
                let (truth, own) = condition_of(line, known);
                branch.condition = conjunction(&earlier, own.as_deref());
                earlier.extend(own);
                branch.state = match truth {
                    _ if taken => BranchState::Dead,
                    Truth::False => BranchState::Dead,
                    Truth::True => {
                        taken = true;
                        if earlier_maybe {
                            BranchState::Maybe
                        } else {
                            BranchState::Taken
                        }
                    }
                    Truth::Unknown => {
                        earlier_maybe = true;
                        BranchState::Maybe
                    }
                };
            }
        }
    }

    /// What each branch holds, innermost groups first.
    fn summarise(&mut self, bytes: &[u8], lines: &[PreprocessorLine], directives: &[RawDirective]) {
        let mut children: Vec<Vec<Vec<usize>>> = self
            .groups
            .iter()
            .map(|g| vec![Vec::new(); g.branches.len()])
            .collect();
        for (index, group) in self.groups.iter().enumerate() {
            if let Some((g, b)) = group.parent {
                if let Some(list) = children[g].get_mut(b) {
                    list.push(index);
                }
            }
        }
        // Directives other than pragma lines are blanks too.
        let inline: Vec<&Span> = directives
            .iter()
            .filter(|d| d.kind != RawKind::Pragma)
            .map(|d| &d.span)
            .collect();
        for index in (0..self.groups.len()).rev() {
            for (b, nested) in children[index].iter().enumerate() {
                let body = self.groups[index].branches[b].body.clone();
                let summary = self.summary_of(bytes, body, nested, lines, &inline);
                self.groups[index].branches[b].summary = summary;
            }
        }
    }

    fn summary_of(
        &self,
        bytes: &[u8],
        body: Span,
        children: &[usize],
        lines: &[PreprocessorLine],
        inline: &[&Span],
    ) -> Summary {
        let mut summary = Summary::default();
        let mut at = body.start;
        let mut next_child = children.iter().peekable();
        while at < body.end {
            let until = next_child.peek().map_or(body.end, |&&c| {
                self.groups[c].lines[0].span.start.min(body.end)
            });
            summary = summary.then(lexical_summary(bytes, at..until, lines, inline));
            let Some(&child) = next_child.next() else {
                break;
            };
            summary = summary.then(self.contribution(child));
            at = self.groups[child].extent(bytes.len()).end;
        }
        summary
    }

    /// What a nested group adds to the branch holding it, in the
    /// configuration parsed first.
    fn contribution(&self, index: usize) -> Summary {
        let group = &self.groups[index];
        let mut live = group
            .branches
            .iter()
            .filter(|b| b.state != BranchState::Dead);
        let Some(first) = live.next() else {
            return Summary::default();
        };
        let code = first.summary.code || live.any(|b| b.summary.code);
        Summary {
            code,
            ..first.summary
        }
    }

    fn classify(&mut self) {
        for group in &mut self.groups {
            if matches!(group.form, Form::Dead | Form::Malformed) {
                continue;
            }
            let live: Vec<&Branch> = group
                .branches
                .iter()
                .filter(|b| b.state != BranchState::Dead)
                .collect();
            group.form = if live.is_empty() || live.iter().any(|b| b.state == BranchState::Taken) {
                Form::Decided
            } else if live.iter().all(|b| !b.summary.code) {
                Form::Transparent
            } else if live.iter().all(|b| b.summary.balanced()) {
                Form::Code
            } else {
                Form::Unbalanced
            };
        }
    }

    /// The configuration variable a group is, if it is one: the condition
    /// of its first live branch, white space removed.
    pub fn variable(&self, index: usize) -> Option<String> {
        let group = &self.groups[index];
        if group.form != Form::Unbalanced {
            return None;
        }
        let line = group.first_condition()?;
        let text: String = own_condition(line)?
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        Some(text)
    }

    /// Blank everything the configuration `assignment` does not compile in
    /// `buffer`, which holds the file's bytes from `offset` on. With
    /// `passing`, the conditional lines and dead branches of groups that
    /// are not configuration variables are not blanked but listed there,
    /// in order, each from a conditional line's `#` (a dead branch with
    /// its line): a scan passes over them as over blanks, and the pages
    /// they lie on are not copied.
    pub fn mask(
        &self,
        buffer: &mut [u8],
        offset: usize,
        assignment: &Assignment,
        mut passing: Option<&mut Vec<Span>>,
    ) {
        let range = offset..offset + buffer.len();
        let mut blank = |span: &Span| {
            let start = span.start.max(range.start);
            let end = span.end.min(range.end);
            if start < end {
                blank_bytes(&mut buffer[start - offset..end - offset]);
            }
        };
        let mut rewrites: Vec<(usize, LineKind)> = Vec::new();
        let opening_by_end = (self.groups).partition_point(|g| g.lines[0].span.start <= range.end);
        let near = candidates(&self.reach, opening_by_end, &range);
        for (index, group) in near.clone().zip(&self.groups[near]) {
            let extent = group.extent(self.file_end);
            if extent.end < range.start || extent.start > range.end {
                continue;
            }
            let lines_and_bodies = || {
                group
                    .lines
                    .iter()
                    .map(|l| l.span.clone())
                    .chain(group.branches.iter().map(|b| b.body.clone()))
            };
            match group.form {
                Form::Dead | Form::Malformed => {}
                Form::Transparent => lines_and_bodies().for_each(|s| blank(&s)),
                Form::Decided | Form::Code => {
                    for span in masked_of(group) {
                        match passing.as_deref_mut() {
                            Some(passing) => passing.push(span),
                            None => blank(&span),
                        }
                    }
                    // The grammar must see the first live branch open a
                    // code group.
                    let first_live = (group.lines.iter().zip(&group.branches))
                        .find(|(_, branch)| branch.state != BranchState::Dead)
                        .map(|(line, _)| line);
                    if let Some(line) =
                        first_live.filter(|l| group.form == Form::Code && !l.kind.opens())
                    {
                        rewrites.push((line.span.start, line.kind));
                    }
                }
                Form::Unbalanced => {
                    let choice = assignment.get(&index).copied().unwrap_or(0);
                    let live: Vec<usize> = (0..group.branches.len())
                        .filter(|&b| group.branches[b].state != BranchState::Dead)
                        .collect();
                    let chosen = live.get(choice).copied();
                    group.lines.iter().for_each(|l| blank(&l.span));
                    for (b, branch) in group.branches.iter().enumerate() {
                        if Some(b) != chosen {
                            blank(&branch.body);
                        }
                    }
                }
            }
        }
        for (at, kind) in rewrites {
            if range.contains(&at) {
                open_instead(&mut buffer[at - offset..], kind);
            }
        }
    }

    /// The group and line index of the conditional line starting at `at`.
    pub fn line_at(&self, at: usize) -> Option<(usize, usize)> {
        let i = self.by_offset.partition_point(|(start, _, _)| *start < at);
        self.by_offset
            .get(i)
            .filter(|(start, _, _)| *start == at)
            .map(|&(_, g, l)| (g, l))
    }

    /// The live branches holding `offset`, outermost first.
    pub fn chain(&self, offset: usize) -> Vec<(usize, usize)> {
        let mut chain = Vec::new();
        let mut at = self.innermost(offset);
        while let Some((g, b)) = at {
            chain.push((g, b));
            at = self.groups[g].parent;
        }
        chain.reverse();
        chain
    }

    /// The innermost live branch holding `offset`: the last one starting at
    /// or before it, or the nearest branch holding that one which also
    /// holds the offset (branches nest).
    pub fn innermost(&self, offset: usize) -> Option<(usize, usize)> {
        let count = self.live.partition_point(|(start, _)| *start <= offset);
        let mut candidate = count.checked_sub(1).map(|i| self.live[i].1);
        while let Some((g, b)) = candidate {
            if self.groups[g].branches[b].body.contains(&offset) {
                return Some((g, b));
            }
            candidate = self.groups[g].parent;
        }
        None
    }

    /// Whether no configuration compiles both offsets: they lie in
    /// different branches of one group.
    pub fn exclusive(&self, a: usize, b: usize) -> bool {
        let (ca, cb) = (self.chain(a), self.chain(b));
        ca.iter()
            .any(|(g, x)| cb.iter().any(|(h, y)| g == h && x != y))
    }

    pub fn extent(&self, group: usize) -> Span {
        self.groups[group].extent(self.file_end)
    }

    /// The unbalanced groups whose extent overlaps `range`.
    pub fn unbalanced_in(&self, range: &Span) -> Vec<usize> {
        let opening_by_end = (self.unbalanced).partition_point(|(e, _)| e.start <= range.end);
        let near = candidates(&self.unbalanced_reach, opening_by_end, range);
        self.unbalanced[near]
            .iter()
            .filter(|(extent, _)| extent.start < range.end && range.start < extent.end)
            .map(|(_, g)| *g)
            .collect()
    }
}

/// The furthest end reached by `extents` (in the order their groups
/// open), after each.
fn furthest_ends(extents: impl Iterator<Item = Span>) -> Vec<usize> {
    (extents.scan(0, |furthest, extent| {
        *furthest = extent.end.max(*furthest);
        Some(*furthest)
    }))
    .collect()
}

/// Which of some extents may overlap or touch `range`: `reach` tells
/// how far they reach ([`furthest_ends`]), and `opening_by_end` of them
/// open at or before its end. A file's groups would otherwise be looked
/// at all for each piece of it that a configuration masks anew.
fn candidates(reach: &[usize], opening_by_end: usize, range: &Span) -> Span {
    let from = reach.partition_point(|&end| end < range.start);
    from..opening_by_end.max(from)
}

/// The truth of a conditional line's own condition, and its text as an
/// expression (`None` for `#else`).
fn condition_of(line: &CondLine, known: Known) -> (Truth, Option<String>) {
    let name = || line.text.split_whitespace().next().unwrap_or("");
    let truth = match line.kind {
        LineKind::If | LineKind::Elif => expression::evaluate(&line.text, known),
        LineKind::Ifdef | LineKind::Elifdef => expression::defined(name(), known),
        LineKind::Ifndef | LineKind::Elifndef => match expression::defined(name(), known) {
            Truth::True => Truth::False,
            Truth::False => Truth::True,
            Truth::Unknown => Truth::Unknown,
        },
        _ => Truth::True,
    };
    (truth, own_condition(line))
}

/// A conditional line's own condition as an expression.
fn own_condition(line: &CondLine) -> Option<String> {
    let name = line.text.split_whitespace().next().unwrap_or("");
    match line.kind {
        LineKind::If | LineKind::Elif => Some(format!("({})", line.text.trim())),
        LineKind::Ifdef | LineKind::Elifdef => Some(format!("defined({name})")),
        LineKind::Ifndef | LineKind::Elifndef => Some(format!("!defined({name})")),
        _ => None,
    }
}

fn negate(condition: &str) -> String {
    match condition.strip_prefix('!') {
        Some(rest) if rest.starts_with("defined(") => rest.to_string(),
        _ if condition.starts_with('(') || condition.starts_with("defined(") => {
            format!("!{condition}")
        }
        _ => format!("!({condition})"),
    }
}

/// `!(earlier) && ... && own`; `1` when nothing is required.
fn conjunction(earlier: &[String], own: Option<&str>) -> String {
    let parts: Vec<String> = earlier
        .iter()
        .map(|c| negate(c))
        .chain(own.map(str::to_string))
        .collect();
    if parts.is_empty() {
        "1".to_string()
    } else {
        parts.join(" && ")
    }
}

/// What `bytes[range]` holds, nested groups excluded.
fn lexical_summary(
    bytes: &[u8],
    range: Span,
    lines: &[PreprocessorLine],
    inline: &[&Span],
) -> Summary {
    let mut summary = Summary::default();
    let mut tokens = Tokens::new(bytes, range.clone());
    while let Some(token) = tokens.next() {
        // A `_Pragma` or an attribute directive is a blank here: skip it.
        let i = inline.partition_point(|s| s.start <= token.span.start);
        if let Some(directive) = i
            .checked_sub(1)
            .map(|i| inline[i])
            .filter(|s| s.contains(&token.span.start))
        {
            tokens = Tokens::new(bytes, directive.end..range.end);
            continue;
        }
        match token.kind {
            TokenKind::Preprocessor => {
                let at = lines.partition_point(|l| l.span.start < token.span.start);
                let kind = lines
                    .get(at)
                    .filter(|l| l.span.start == token.span.start)
                    .map_or(LineKind::Other, |l| l.kind);
                if kind != LineKind::Pragma {
                    summary.code = true;
                }
            }
            TokenKind::Punct(b'{' | b'(' | b'[') => {
                summary.code = true;
                summary.depth += 1;
            }
            TokenKind::Punct(b'}' | b')' | b']') => {
                summary.code = true;
                summary.depth -= 1;
                summary.lowest = summary.lowest.min(summary.depth);
            }
            _ => summary.code = true,
        }
    }
    summary
}

/// Offset after the newline at or after `at`.
fn after_newline(bytes: &[u8], at: usize) -> usize {
    memchr::memchr(b'\n', &bytes[at.min(bytes.len())..]).map_or(bytes.len(), |i| at + i + 1)
}

fn line_start(bytes: &[u8], at: usize) -> usize {
    memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1)
}

/// Spaces for everything but line breaks: offsets and lines stay.
pub fn blank_bytes(bytes: &mut [u8]) {
    for b in bytes {
        if *b != b'\n' && *b != b'\r' {
            *b = b' ';
        }
    }
}

/// Turn the continuing conditional line at the start of `line` into the
/// opening line of the same condition, in as many bytes (`#elif X` reads
/// `#if   X`), so that the grammar sees a group when the branches before it
/// are masked.
fn open_instead(line: &mut [u8], kind: LineKind) {
    let (from, to): (&[u8], &[u8]) = match kind {
        LineKind::Elif => (b"elif", b"if  "),
        LineKind::Elifdef => (b"elifdef", b"ifdef  "),
        LineKind::Elifndef => (b"elifndef", b"ifndef  "),
        _ => return,
    };
    if let Some(at) = memchr::memmem::find(line, from) {
        line[at..at + to.len()].copy_from_slice(to);
    }
}

/// What [`Conditionals::mask`] masks of a decided or code group, in
/// order: each dead branch with its conditional line (blanks keep the
/// line break between them), and a decided group's other conditional
/// lines; the grammar reads a code group's live lines.
fn masked_of(group: &Group) -> impl Iterator<Item = Span> + '_ {
    (group.lines.iter().enumerate()).filter_map(|(index, line)| match group.branches.get(index) {
        Some(branch) if branch.state == BranchState::Dead => Some(line.span.start..branch.body.end),
        _ => (group.form == Form::Decided).then(|| line.span.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::lexical::scan::scan;

    fn conditionals(src: &str) -> Conditionals {
        let found = scan(src.as_bytes());
        Conditionals::new(
            src.as_bytes(),
            &found.lines,
            &found.directives,
            Known { cplusplus: false },
        )
    }

    fn masked(src: &str) -> String {
        let c = conditionals(src);
        let mut bytes = src.as_bytes().to_vec();
        c.mask(&mut bytes, 0, &Assignment::new(), None);
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn a_piece_masked_alone_is_masked_as_in_the_whole_file() {
        // Groups before, around and after one another, decided and not,
        // some nested: each piece a configuration masks anew is masked
        // as the whole file masks it, and the unbalanced groups a range
        // overlaps are those a look at every group finds.
        let src = "#ifdef _OPENMP\nint a;\n#endif\nvoid f() {\n#ifdef FAST\n  for (;;) {\n\
                   #else\n  while (1) {\n#endif\n#if defined(_OPENMP) && X\n    g();\n#else\n    h();\n\
                   #endif\n  }\n}\n#ifndef _OPENMP\nint b;\n#endif\n#if Y\nvoid k() {\n#else\n\
                   void k(int) {\n#endif\n#ifdef Z\n}\n#else\n}\n#endif\n";
        let c = conditionals(src);
        assert!(c.groups.len() >= 6);
        let whole = masked(src);
        for group in 0..c.groups.len() {
            let extent = c.extent(group);
            let mut piece = src.as_bytes()[extent.clone()].to_vec();
            c.mask(&mut piece, extent.start, &Assignment::new(), None);
            assert_eq!(
                String::from_utf8(piece).unwrap(),
                whole[extent.clone()],
                "group {group}"
            );
        }
        for start in 0..=src.len() {
            for end in start..=src.len() {
                let range = start..end;
                let every: Vec<usize> = (c.unbalanced.iter())
                    .filter(|(e, _)| e.start < range.end && range.start < e.end)
                    .map(|(_, g)| *g)
                    .collect();
                assert_eq!(c.unbalanced_in(&range), every, "{range:?}");
            }
        }
    }

    #[test]
    fn decided_groups_show_the_taken_branch_only() {
        let src = "#if defined(_OPENMP)\nfor (i = n; i > 0; i--) {\n#else\nfor (i = 0; i < n; i++) {\n#endif\n  f(i);\n}\n";
        let c = conditionals(src);
        assert_eq!(c.groups[0].form, Form::Decided);
        let text = masked(src);
        assert_eq!(text.len(), src.len());
        assert_eq!(text.lines().count(), src.lines().count());
        assert_eq!(
            text.split_whitespace().collect::<Vec<_>>().join(" "),
            "for (i = n; i > 0; i--) { f(i); }"
        );
        assert_eq!(c.groups[0].branches[0].condition, "(defined(_OPENMP))");
    }

    #[test]
    fn alternative_directives_are_a_blank_group_with_conditions() {
        let src = "#ifdef SCHED_CYCLIC\n#pragma omp for schedule(static,1)\n#else\n#pragma omp for schedule(dynamic)\n#endif\nfor (;;) {}\n";
        let c = conditionals(src);
        let group = &c.groups[0];
        assert_eq!(group.form, Form::Transparent);
        let conditions: Vec<&str> = group
            .branches
            .iter()
            .map(|b| b.condition.as_str())
            .collect();
        assert_eq!(
            conditions,
            ["defined(SCHED_CYCLIC)", "!defined(SCHED_CYCLIC)"]
        );
        assert!(masked(src).trim_start().starts_with("for (;;)"));
        let first = src.find("#pragma").unwrap();
        let second = src.rfind("#pragma").unwrap();
        assert!(c.exclusive(first, second));
        assert!(!c.exclusive(first, src.find("for (").unwrap()));
    }

    #[test]
    fn split_loop_headers_are_configuration_variables() {
        let src = "void f() {\n#pragma omp parallel for\n#ifdef _WIN32\nfor (int i = 0; i < n; i++) {\n#else\nfor (long i = 0; i < n; i++) {\n#endif\n  g(i);\n}\n}\n";
        let c = conditionals(src);
        assert_eq!(c.groups[0].form, Form::Unbalanced);
        assert_eq!(c.variable(0).as_deref(), Some("defined(_WIN32)"));
        let main = masked(src);
        assert!(main.contains("for (int i"));
        assert!(!main.contains("for (long i"));
        let mut other = src.as_bytes().to_vec();
        c.mask(&mut other, 0, &Assignment::from([(0, 1)]), None);
        let other = String::from_utf8(other).unwrap();
        assert!(other.contains("for (long i") && !other.contains("for (int i"));
    }

    #[test]
    fn balanced_code_is_left_to_the_grammar_and_dead_branches_go() {
        let src = "#if 0\nold();\n#elif defined(USE_A)\na();\n#else\nb();\n#endif\n";
        let c = conditionals(src);
        assert_eq!(c.groups[0].form, Form::Code);
        let text = masked(src);
        assert!(!text.contains("old"));
        assert!(text.starts_with("     \n      \n#if   defined(USE_A)\na();\n#else\nb();"));
        let conditions: Vec<&str> = c.groups[0]
            .branches
            .iter()
            .map(|b| b.condition.as_str())
            .collect();
        assert_eq!(
            conditions,
            [
                "(0)",
                "!(0) && (defined(USE_A))",
                "!(0) && !(defined(USE_A))"
            ]
        );
    }

    #[test]
    fn chains_nest_and_know_dead_code() {
        let src = "#ifdef A\n#ifndef _OPENMP\nx();\n#else\ny();\n#endif\n#endif\n";
        let c = conditionals(src);
        let y = src.find("y()").unwrap();
        assert_eq!(c.chain(y), vec![(0, 0), (1, 1)]);
        assert!(
            c.chain(src.find("x()").unwrap()).is_empty()
                || c.groups[1].branches[0].state == BranchState::Dead
        );
        assert_eq!(c.groups[1].branches[1].state, BranchState::Taken);
    }
}

//! The parts of a model: directive sites and their blocks, program
//! units, functions, branches, lock calls and jumps, as a front end finds
//! them ([`Found`]) and as [`complete`](super::complete) completes them
//! ([`Model`]).

use crate::diagnostics::Diagnostic;
use crate::directive::Directive;
use crate::source::Span;

/// How a directive is written in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DirectiveForm {
    /// `#pragma omp ...` / `#pragma pomp ...` on lines of its own.
    Pragma,
    /// `_Pragma("omp ...")` written in the file.
    PragmaOperator,
    /// C++ `[[omp::directive(...)]]` (and `omp::sequence`).
    Attribute,
    /// Fortran `!$omp ...` comment directive (any sentinel, any form).
    FortranComment,
    /// Not written at all: the first section of `sections` when its
    /// `section` directive is omitted.
    Implicit,
}

/// One directive occurrence as a front end finds it.
#[derive(Clone, Debug, PartialEq)]
pub struct FoundSite {
    pub form: DirectiveForm,
    /// The directive's own bytes, from `#` (or the sentinel) to the end of
    /// its last continuation line, without the final newline.
    pub span: Span,
    /// Whole lines the directive occupies: from the start of its first line
    /// to just past the newline of its last line. Rules replace these.
    pub lines: Span,
    pub directive: Directive,
    /// For block and loop directives: the structured block or associated
    /// loop nest, including any nested directive lines in front of it.
    pub block: Option<Span>,
    /// For Fortran constructs closed by an end directive: that directive's
    /// index in [`Found::sites`].
    pub end_site: Option<usize>,
    /// For `sections`: the statements before its first `section`
    /// directive, which form a section without one. [`complete`](super::complete) makes it
    /// a site of its own.
    pub implicit_section: Option<Span>,
    /// For loop directives: the variables the associated loops (as many
    /// as `collapse` says) assign without declaring them, outermost first;
    /// a loop that declares its own adds none.
    pub loop_variables: Vec<String>,
    /// The front end cannot instrument this directive, and leaves it as
    /// written: with an error when its extent is unknown (the file cannot
    /// be written then), with a warning when nothing may be inserted where
    /// its events would go.
    pub failed: bool,
}

/// One directive occurrence in the file, placed among the others.
#[derive(Clone, Debug, PartialEq)]
pub struct Site {
    pub form: DirectiveForm,
    /// As in [`FoundSite::span`].
    pub span: Span,
    /// As in [`FoundSite::lines`].
    pub lines: Span,
    pub directive: Directive,
    /// As in [`FoundSite::block`].
    pub block: Option<Span>,
    /// For Fortran constructs closed by an end directive: that directive's
    /// index in [`Model::sites`].
    pub end_site: Option<usize>,
    /// As in [`FoundSite::loop_variables`].
    pub loop_variables: Vec<String>,
    /// Index of the innermost enclosing [`Unit`], if any.
    pub unit: Option<usize>,
    /// Index of the innermost enclosing site whose block contains this one.
    pub parent: Option<usize>,
    /// As in [`FoundSite::failed`].
    pub failed: bool,
}

impl FoundSite {
    /// For a loop directive with its block: the block, and how many loops
    /// of it the directive is associated with.
    pub fn associated_loops(&self) -> Option<(&Span, usize)> {
        let block = self.block.as_ref()?;
        if self.directive.spec().association != crate::directive::Association::Loop {
            return None;
        }
        let depth = self
            .directive
            .clause("collapse")
            .and_then(|c| c.args.as_deref())
            .and_then(|a| a.trim().parse().ok())
            .unwrap_or(1);
        Some((block, depth))
    }

    /// A `declare target` written as an attribute of a function
    /// (`[[omp::decl(declare_target)]]`), without a list: it makes the
    /// function it belongs to device code.
    pub fn declares_function_device_code(&self) -> bool {
        let spec = self.directive.spec();
        let names_list = ["to", "enter", "link"]
            .iter()
            .any(|c| self.directive.has_clause(c));
        spec.device
            && spec.association == crate::directive::Association::Declarative
            && self.form == DirectiveForm::Attribute
            && self.directive.argument.is_none()
            && !names_list
    }
}

/// A program unit: a C/C++ function (qualified name in C++), a Fortran
/// program, subroutine, function or module procedure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    pub name: String,
    pub span: Span,
    /// Fortran: where declarations of this unit's handles go (the end of the
    /// specification part, at the start of a line). C/C++: `None`.
    pub declarations_at: Option<usize>,
    /// Fortran: the indentation to use for inserted declarations.
    pub indent: String,
    /// The unit this one is nested in (Fortran internal and module
    /// procedures); units are sorted by start.
    pub parent: Option<usize>,
}

impl Unit {
    /// A C or C++ function: declarations go anywhere a statement may.
    pub fn function(name: String, span: Span) -> Unit {
        Unit {
            name,
            span,
            declarations_at: None,
            indent: String::new(),
            parent: None,
        }
    }
}

/// Which code beyond OpenMP constructs a front end reads as regions
/// (`--regions`): only what is asked for is looked for.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CodeRegions {
    /// Function definitions: C and C++ functions, methods, constructors,
    /// destructors and templates; Fortran subroutines, functions, module
    /// and internal procedures and main programs.
    pub functions: bool,
    /// C++ lambda bodies, each a function region of its own.
    pub lambdas: bool,
    /// Outermost loops outside OpenMP constructs.
    pub loops: bool,
    /// The call sites of the functions these patterns match (`MPI_*`),
    /// each a region named after its callee.
    pub calls: CallPatterns,
}

impl CodeRegions {
    /// Whether any region beyond OpenMP is asked for.
    pub fn any(&self) -> bool {
        self.functions || self.lambdas || self.loops || !self.calls.is_empty()
    }

    /// Whether calls of `callee` are measured; `ignore_case` for
    /// Fortran, whose names are not case-sensitive.
    pub fn measures_calls_of(&self, callee: &str, ignore_case: bool) -> bool {
        let options = glob::MatchOptions {
            case_sensitive: !ignore_case,
            ..Default::default()
        };
        (self.calls.0.iter()).any(|p| p.matches_with(callee, options))
    }
}

/// The patterns of `--regions=calls=...`, compiled once when the option
/// is read and shared by every copy of the options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallPatterns(std::sync::Arc<[glob::Pattern]>);

impl CallPatterns {
    pub fn new(patterns: Vec<glob::Pattern>) -> CallPatterns {
        CallPatterns(patterns.into())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &glob::Pattern> {
        self.0.iter()
    }
}

/// As written: the options' digest names the patterns.
impl serde::Serialize for CallPatterns {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(glob::Pattern::as_str))
    }
}

/// What a code region measures: the kind the IDF and the CTC's
/// `pompKind` name.
pub use pomp2::idf::CodeKind;

/// A code region a front end hands over for measuring (a function
/// definition, a lambda, an outermost loop or a call statement, as its
/// [`CodeKind`] says): where its code begins and where control falls
/// off its end. Its other ways out are the model's [`Exit`]s that leave
/// `entry..exit` (`return`, Fortran alternate returns) and, in C and C++,
/// exceptions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// The qualified name (`ns::Class::method`, `Class::~Class`), a
    /// Fortran procedure's name as written.
    pub name: String,
    pub kind: CodeKind,
    /// The function the region is in, as reports name it: a function's
    /// or program's own name, the one around a loop, call or lambda.
    pub unit: Option<String>,
    /// The whole definition, head included.
    pub span: Span,
    /// Where the body's code begins: just after a C body's `{`, at the
    /// start of the line after a Fortran specification part.
    pub entry: usize,
    /// Where control falls off the end: a C body's closing `}`, the start
    /// of the line of the Fortran statement ending the execution part
    /// (`contains` or `end`).
    pub exit: usize,
    /// Fortran: the indentation of the body's statements.
    pub indent: String,
    /// A C or C++ call region whose statement declares a name
    /// (`int rc = f(x);`): the name must stay in scope, so the region is
    /// closed after the statement rather than by a scope around it.
    pub declaration: bool,
}

/// A branch of a preprocessor conditional (`#if`, `#ifdef`, `#elif`,
/// `#else`) that is compiled under some setting of the macros: the code in
/// it, directives included, exists only when its condition holds. Code
/// inserted for a directive in a branch, at a place outside that branch,
/// must be put under the same condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Branch {
    /// The branch's code: from the line after its conditional line to the
    /// start of the group's next conditional line.
    pub span: Span,
    /// The conditional line that opens it, as written: `#ifdef SCHED_CYCLIC`,
    /// `#else`.
    pub line: Span,
    /// A preprocessor expression that holds exactly when the branch is
    /// compiled, the conditions of the group's earlier branches negated:
    /// `!defined(SCHED_CYCLIC)` for the `#else` of `#ifdef SCHED_CYCLIC`.
    pub condition: String,
    /// The branch this one lies in.
    pub parent: Option<usize>,
}

/// A call of an OpenMP lock routine (`omp_set_lock`, …) in call position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockCall {
    /// The identifier's bytes, to be renamed.
    pub span: Span,
    pub name: String,
}

/// What a front end finds in a file. [`complete`](super::complete) makes the [`Model`] of
/// it.
#[derive(Clone, Debug, Default)]
pub struct Found {
    /// Directives in file order.
    pub sites: Vec<FoundSite>,
    pub units: Units,
    pub lock_calls: Vec<LockCall>,
    /// Ranges where nothing may be inserted that only a front end can see,
    /// such as the code an unknown directive applies to.
    pub no_insert: Vec<Span>,
    /// Statements that jump (`return`, `break`, `goto`, Fortran `exit`,
    /// ...), in file order: a user region they leave must be closed first.
    pub exits: Vec<Exit>,
    /// Directives produced by macro expansion or otherwise left alone, with
    /// errors for anything the parse could not decide.
    pub diagnostics: Vec<Diagnostic>,
    /// The conditional branches that may be compiled, sorted by start;
    /// branches nest. Empty for a front end that does not read them.
    pub branches: Branches,
    /// Fortran: the lines and statements inserted code is written around.
    pub fortran: FortranText,
    /// The function definitions (and Fortran procedures and main
    /// programs) of the kinds [`CodeRegions`] asks for, in file order;
    /// empty unless asked.
    pub functions: Vec<Function>,
}

impl Found {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// What the rules work on: what a front end found, with each site placed
/// in its unit and among the other sites, and every place where nothing
/// may be inserted.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// Directives in file order, implicit first sections included.
    pub sites: Vec<Site>,
    pub units: Units,
    pub lock_calls: Vec<LockCall>,
    /// Ranges where nothing may be inserted: target regions, `declare
    /// target` code, simd, `loop`, `workshare` and `order(concurrent)`
    /// regions, and what the front end found. Sorted by start.
    pub no_insert: Vec<Span>,
    /// As in [`Found::exits`].
    pub exits: Vec<Exit>,
    /// As in [`Found::diagnostics`].
    pub diagnostics: Vec<Diagnostic>,
    /// As in [`Found::branches`].
    pub branches: Branches,
    /// As in [`Found::fortran`].
    pub fortran: FortranText,
    /// As in [`Found::functions`].
    pub functions: Vec<Function>,
}

/// A list the model keeps sorted and looks up in, used as a `Vec`.
macro_rules! sequence {
    ($list:ident, $item:ident) => {
        impl std::ops::Deref for $list {
            type Target = Vec<$item>;
            fn deref(&self) -> &Vec<$item> {
                &self.0
            }
        }

        impl std::ops::DerefMut for $list {
            fn deref_mut(&mut self) -> &mut Vec<$item> {
                &mut self.0
            }
        }

        impl<'a> IntoIterator for &'a $list {
            type Item = &'a $item;
            type IntoIter = std::slice::Iter<'a, $item>;
            fn into_iter(self) -> Self::IntoIter {
                self.0.iter()
            }
        }

        impl IntoIterator for $list {
            type Item = $item;
            type IntoIter = std::vec::IntoIter<$item>;
            fn into_iter(self) -> Self::IntoIter {
                self.0.into_iter()
            }
        }

        impl FromIterator<$item> for $list {
            fn from_iter<I: IntoIterator<Item = $item>>(items: I) -> Self {
                $list(items.into_iter().collect())
            }
        }

        impl Extend<$item> for $list {
            fn extend<I: IntoIterator<Item = $item>>(&mut self, items: I) {
                self.0.extend(items)
            }
        }
    };
}

/// The program units of a file, sorted by start; units nest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Units(pub Vec<Unit>);

sequence!(Units, Unit);

impl Units {
    /// The innermost unit holding `offset`: the last unit starting at or
    /// before it, or the nearest enclosing unit of that one which holds it.
    pub fn unit_at(&self, offset: usize) -> Option<usize> {
        let mut candidate = self
            .partition_point(|u| u.span.start <= offset)
            .checked_sub(1);
        while let Some(i) = candidate {
            if offset < self[i].span.end {
                return Some(i);
            }
            candidate = self[i].parent;
        }
        None
    }

    /// Units in file order, an enclosing unit before those inside it.
    pub fn sort(&mut self) {
        sort_unless_sorted(self, |u| (u.span.start, std::cmp::Reverse(u.span.end)));
    }

    /// Each unit's innermost enclosing unit, from their extents, where the
    /// front end did not say: units are sorted and nest.
    pub fn nest(&mut self) {
        let mut open: Vec<usize> = Vec::new();
        for index in 0..self.len() {
            let span = self[index].span.clone();
            while open.last().is_some_and(|&o| self[o].span.end < span.end) {
                open.pop();
            }
            if self[index].parent.is_none() {
                self[index].parent = open.last().copied();
            }
            open.push(index);
        }
    }
}

/// The conditional branches of a file that may be compiled, sorted by
/// start; branches nest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Branches(pub Vec<Branch>);

sequence!(Branches, Branch);

/// A statement that transfers control elsewhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exit {
    /// The statement; for a Fortran logical `if (c) return`, the whole `if`
    /// statement, which the output turns into an `if` construct.
    pub span: Span,
    /// Where control may go, as offsets that lie inside exactly the regions
    /// the destination lies in: the start of the function a `return` leaves,
    /// of the loop or switch a `break` leaves, the labelled statement of a
    /// `goto` (several for a computed `go to` or an arithmetic `if`).
    /// None for a statement that ends the run (`exit()` in `main`, Fortran
    /// `STOP`), which leaves every region.
    pub targets: Vec<usize>,
}

/// What a Fortran front end reads in the text and the emitter writes
/// around: which lines are code only under a condition, and which jumps
/// are the action of a logical `if`. Empty for C and C++.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FortranText {
    /// Where the sentinel of each `!$` line (code only when compiled with
    /// OpenMP) stands, ascending: code inserted on such a line is written
    /// conditional like it.
    pub openmp_sentinels: Vec<usize>,
    /// Where the sentinel of each of pomp's `!P$` lines (fixed form also
    /// `CP$`, `*P$`: code when instrumenting) stands, ascending.
    pub pomp_sentinels: Vec<usize>,
    /// The jumps that are the action statement of a logical `if`
    /// (`if (c) return`), whose [`Exit::span`] is the whole `if`
    /// statement, ascending.
    pub logical_ifs: Vec<LogicalIf>,
}

/// A logical `if` statement whose action statement jumps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogicalIf {
    /// Where the `if` statement starts.
    pub start: usize,
    /// Where its action statement starts.
    pub action: usize,
}

impl FortranText {
    /// Where the `!$` sentinel of the line `line` stands, as an offset
    /// into the line, if it is such a line.
    pub fn openmp_sentinel(&self, line: &Span) -> Option<usize> {
        let at = self.openmp_sentinels.partition_point(|&s| s < line.start);
        (self.openmp_sentinels.get(at))
            .filter(|&&sentinel| sentinel < line.end)
            .map(|sentinel| sentinel - line.start)
    }

    /// Where the action statement of the logical `if` statement starting
    /// at `start` begins, if it is one holding a jump.
    pub fn logical_if_action(&self, start: usize) -> Option<usize> {
        let at = self.logical_ifs.partition_point(|l| l.start < start);
        (self.logical_ifs.get(at))
            .filter(|l| l.start == start)
            .map(|l| l.action)
    }
}

impl Model {
    /// The innermost unit holding `offset`.
    pub fn unit_at(&self, offset: usize) -> Option<usize> {
        self.units.unit_at(offset)
    }
}

/// The implicit first section of a construct divided into sections (a
/// `sections` without a `section` directive before its first statement):
/// `open` is where its body's code begins, `block_end` where its block
/// ends, `statements` the spans of the body's statements in order (comments
/// left out). `sites` are the file's sites, sorted by position. Directive
/// lines belong to no statement, so a section that starts or ends with a
/// directive spans it, and one of standalone directives alone is a section
/// too. `None` when the first section is explicit or empty.
pub fn implicit_section(
    sites: &[FoundSite],
    open: usize,
    block_end: usize,
    statements: impl IntoIterator<Item = Span>,
) -> Option<Span> {
    // Sorted by position: only the sites inside the body matter.
    let inside = &sites[sites.partition_point(|s| s.span.start <= open)..];
    // A section of a construct nested in the body divides that construct.
    let nested = |at: usize| {
        inside
            .iter()
            .take_while(|t| t.span.start < at)
            .any(|t| t.block.as_ref().is_some_and(|b| b.contains(&at)))
    };
    let first_section = inside
        .iter()
        .take_while(|s| s.span.end < block_end)
        .find(|s| s.directive.is_separator() && !nested(s.span.start))
        .map_or(block_end - 1, |s| s.span.start);
    let statements: Vec<Span> = statements
        .into_iter()
        .filter(|s| s.end <= first_section && s.start >= open)
        .collect();
    let directives: Vec<&FoundSite> = inside
        .iter()
        .take_while(|s| s.span.end <= first_section)
        .collect();
    let start = (statements.first().map(|s| s.start))
        .into_iter()
        .chain(directives.first().map(|s| s.span.start))
        .min()?;
    // A directive's whole lines are rewritten: a section ending with one
    // ends after its line.
    let end = (statements.last().map(|s| s.end))
        .into_iter()
        .chain(directives.last().map(|s| s.lines.end.min(first_section)))
        .max()?;
    Some(start..end)
}

impl Branches {
    /// The innermost conditional branch holding `offset`.
    pub fn branch_at(&self, offset: usize) -> Option<usize> {
        let mut candidate = self
            .partition_point(|b| b.span.start <= offset)
            .checked_sub(1);
        while let Some(i) = candidate {
            if self[i].span.contains(&offset) {
                return Some(i);
            }
            candidate = self[i].parent;
        }
        None
    }

    /// The branches holding `offset`, innermost first.
    pub fn branches_at(&self, offset: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.branch_at(offset), |&b| self[b].parent)
    }

    /// The condition under which code that must be compiled exactly when
    /// the code at each of `from` is can be placed at `at`: the conditions
    /// of the branches holding some of `from` but not `at`, outermost
    /// first, joined by `&&`; `None` when `at` lies in all of them.
    pub fn condition_at(&self, from: &[usize], at: usize) -> Option<String> {
        let holding_at: Vec<usize> = self.branches_at(at).collect();
        let mut missing: Vec<usize> = from
            .iter()
            .flat_map(|&f| self.branches_at(f))
            .filter(|b| !holding_at.contains(b))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        let mut conditions: Vec<&str> = Vec::new();
        for &b in &missing {
            let condition = self[b].condition.as_str();
            if !conditions.contains(&condition) {
                conditions.push(condition);
            }
        }
        (!conditions.is_empty()).then(|| conditions.join(" && "))
    }
}

impl Model {
    /// The condition under which the code at each of `from` is compiled,
    /// for code placed at `at` ([`Branches::condition_at`]).
    pub fn condition_at(&self, from: &[usize], at: usize) -> Option<String> {
        self.branches.condition_at(from, at)
    }

    /// The condition under which the directive of `site` is compiled, or
    /// `None` when it always is.
    pub fn site_condition(&self, site: usize) -> Option<String> {
        self.branches
            .condition_at(&[self.sites[site].span.start], usize::MAX)
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Sorts `items` stably by `key`, unless they are sorted already: parts
/// read in file order come sorted, and a stable sort takes a buffer as
/// large as half the list first (a megabyte of sites on a dense file).
pub(crate) fn sort_unless_sorted<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    if !items.is_sorted_by_key(&key) {
        items.sort_by_key(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fortran_text_answers_by_line_and_by_statement() {
        let text = FortranText {
            openmp_sentinels: vec![12, 40],
            pomp_sentinels: vec![],
            logical_ifs: vec![
                LogicalIf {
                    start: 5,
                    action: 11,
                },
                LogicalIf {
                    start: 30,
                    action: 44,
                },
            ],
        };
        assert_eq!(text.openmp_sentinel(&(10..20)), Some(2));
        assert_eq!(text.openmp_sentinel(&(20..40)), None);
        assert_eq!(text.openmp_sentinel(&(40..41)), Some(0));
        assert_eq!(text.logical_if_action(30), Some(44));
        assert_eq!(text.logical_if_action(11), None);
    }
}

//! The view of a C or C++ syntax tree that the reading asks its questions
//! of. Each C front end provides it over its own parse: tree-sitter's tree
//! of the masked text, or libclang's tree flattened ([`super::super::libclang`]).
//! Node kinds are named here once, so that the reading decides the same way
//! whichever parser saw the file.

use crate::frontend::lexical::scan::RawDirective;
use crate::source::{SourceFile, Span};

/// What a node is, as far as the reading asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `{ ... }`
    Compound,
    /// `for (init; condition; step)`
    For,
    /// `for (declaration : range)`
    RangeFor,
    While,
    Do,
    Switch,
    /// `return` and `co_return`.
    Return,
    Break,
    Continue,
    Goto,
    /// A labelled statement, `name: statement`.
    Label,
    /// A `case` or `default` label of a `switch`, with its statement.
    Case,
    /// A function definition, with its body.
    Function,
    Lambda,
    /// A preprocessor line the parser reads as a node of its own
    /// (`#pragma GCC unroll 4`).
    PreprocessorLine,
    Other,
}

impl Kind {
    pub fn is_loop(self) -> bool {
        matches!(self, Kind::For | Kind::RangeFor | Kind::While | Kind::Do)
    }

    /// What a `return` returns from, and what no jump leaves.
    pub fn is_body(self) -> bool {
        matches!(self, Kind::Function | Kind::Lambda)
    }

    /// What [`Syntax::jumps`] visits.
    pub fn is_jump_or_label(self) -> bool {
        matches!(
            self,
            Kind::Return | Kind::Break | Kind::Continue | Kind::Goto | Kind::Label
        )
    }
}

/// What the parser sees first after a directive.
pub(crate) enum After<N> {
    /// The outermost statement starting at the first token.
    Statement(N),
    /// A conditional whose live branches hold code: which code follows
    /// depends on how the macros are set.
    Alternatives(Box<Alternatives<N>>),
    /// No statement: what the diagnostic's label says stands there
    /// instead (`nothing follows this directive`).
    Missing(String),
}

/// A conditional that follows a directive, each branch the parser may
/// read.
pub(crate) struct Alternatives<N> {
    /// From its `#if` line to its `#endif` line.
    pub extent: Span,
    /// Its opening line as written, white space collapsed.
    pub name: String,
    pub has_else: bool,
    /// Each branch that may be compiled, in order: its first statement (or
    /// what the diagnostic's label says stands there instead) and whether
    /// that statement is all the branch holds; `None` for a branch with no
    /// statement of its own.
    pub branches: Vec<Option<(Result<N, String>, bool)>>,
}

/// Where a syntax error leaves a statement's extent in doubt.
pub(crate) struct Doubt {
    /// Where the parser reports the problem.
    pub error_at: usize,
    /// A conditional in the statement that could not be read: its
    /// opening line, and where it starts.
    pub conditional: Option<(String, usize)>,
}

/// The first part of a `for` loop's header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Init {
    /// `for (;` or a range `for`.
    Nothing,
    /// `for (int i = 0;`: the loop's own variables.
    Declaration,
    /// `for (i = 0;`: the expression's extent.
    Expression(Span),
}

/// How a statement that is one call uses its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CallForm {
    /// `f(x);`
    Plain,
    /// `rc = f(x);`
    Assigned,
    /// `int rc = f(x);`: a declaration, whose name must stay in scope.
    Declared,
}

/// A statement whose whole work is one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CallStatement {
    /// The callee as written (`MPI_Send`, `std::exit`).
    pub callee: Span,
    pub form: CallForm,
}

/// A C or C++ syntax tree, as the reading asks about it. Offsets are the
/// file's.
pub(crate) trait Syntax {
    /// A node: a declaration, a statement, an expression.
    type Node: Copy + PartialEq;

    fn file(&self) -> &SourceFile;

    /// The text the parser read, at the file's offsets.
    fn text(&self) -> &[u8];

    /// The directive lines [`Syntax::text`] holds as written, where the
    /// parser read blanks, in order.
    fn passed_over(&self) -> &[Span] {
        &[]
    }

    fn kind(&self, node: Self::Node) -> Kind;

    /// Where `node` begins and ends, a statement's `;` included.
    fn extent(&self, node: Self::Node) -> Span;

    /// What the parser sees first from `from` on, `following` being the
    /// directives after it (nested directives are passed over).
    fn statement_after(&self, from: usize, following: &[RawDirective]) -> After<Self::Node>;

    /// Where a syntax error could move either end of `statement`.
    fn doubt(&self, _statement: Self::Node) -> Option<Doubt> {
        None
    }

    /// The macro `statement` is a use of (`NAME(args);`, `NAME;`), when
    /// the parser did not expand it and its expansion may be more than
    /// one expression: where such a block ends, the parser cannot know.
    fn unexpanded_macro(&self, _statement: Self::Node) -> Option<String> {
        None
    }

    /// Whether no compilation of the file holds the code at both offsets
    /// (they lie in different branches of one conditional).
    fn exclusive(&self, _a: usize, _b: usize) -> bool {
        false
    }

    /// The statements of a compound statement, in order.
    fn statements(&self, compound: Self::Node) -> impl Iterator<Item = Self::Node> + '_;

    /// A `for` loop's header and body: `Some` for the loops that nest
    /// (`for` and range `for`).
    fn for_loop(&self, node: Self::Node) -> Option<(Init, Self::Node)>;

    /// The function definitions around `range`, outermost first.
    fn functions_around(&self, range: Span) -> impl Iterator<Item = Self::Node> + '_;

    /// The function definitions around any of `offsets` (in order), each
    /// at least once, in no particular order: what
    /// [`Syntax::functions_around`] gives at each offset, gathered.
    fn functions_around_any(&self, offsets: &[usize]) -> Vec<Self::Node> {
        (offsets.iter())
            .flat_map(|&at| self.functions_around(at..at))
            .collect()
    }

    /// The function definition that starts at the first token the parser
    /// sees from `from` on.
    fn function_after(&self, from: usize) -> Option<Self::Node>;

    /// The brace body of a function definition or lambda, when the parser
    /// read both its braces for sure: `None` for a declaration, a
    /// defaulted or deleted function, a function-try-block, or a body a
    /// syntax error leaves in doubt.
    fn body(&self, function: Self::Node) -> Option<Self::Node>;

    /// The call `statement` is, when it is one call as a whole (`f(x);`,
    /// `rc = f(x);`, `int rc = f(x);`).
    fn call_statement(&self, statement: Self::Node) -> Option<CallStatement>;

    /// The callee of a call expression, as written.
    fn callee(&self, call: Self::Node) -> Option<Span>;

    /// Where a function's body begins, if it has one.
    fn body_start(&self, function: Self::Node) -> Option<usize>;

    /// A function's own name as written (`f`, `S::f`, `operator+`).
    fn function_name(&self, function: Self::Node) -> Option<String>;

    /// The names of the namespaces and classes a function is declared in,
    /// outermost first; unnamed ones left out.
    fn scopes(&self, function: Self::Node) -> Vec<String>;

    /// Whether the name of a routine written at `name` is the callee of a
    /// call.
    fn called(&self, name: &Span) -> bool;

    /// Every node below `root` and `root` itself, parents before their
    /// children, in source order.
    fn walk(&self, root: Self::Node, visit: impl FnMut(Self::Node));

    /// What [`Syntax::walk`] visits of the jumps below `root` (returns,
    /// breaks, continues, gotos) and of its labelled statements, in the
    /// same order; the labels may be left out where no `goto` lies below
    /// `root`, as none can then be taken.
    fn jumps(&self, root: Self::Node, visit: impl FnMut(Self::Node)) {
        walked_jumps(self, root, visit);
    }

    /// The nodes enclosing `node` up to `root`, innermost first.
    fn enclosing(&self, root: Self::Node, node: Self::Node) -> impl Iterator<Item = Self::Node>;

    /// The label a `goto` names or a labelled statement defines.
    fn label(&self, node: Self::Node) -> Option<Span>;
}

/// [`Syntax::jumps`] by a walk over every node below `root`, labels
/// included: what a front end that finds them otherwise falls back on.
pub(crate) fn walked_jumps<S: Syntax + ?Sized>(
    syntax: &S,
    root: S::Node,
    mut visit: impl FnMut(S::Node),
) {
    syntax.walk(root, |node| {
        if syntax.kind(node).is_jump_or_label() {
            visit(node);
        }
    });
}

//! Finding a node by its position, and the nodes around it, in a tree
//! whose root has thousands of children.
//!
//! tree-sitter finds the child that holds a position by trying the
//! children one after another, and `Node::parent` walks down from the
//! root. From the root of a whole file each lookup then costs a pass over
//! its top-level declarations, and a file dense with directives pays that
//! once per directive: quadratic time. The top-level nodes' byte ranges,
//! listed once, make the first step of every lookup a binary search; below
//! it tree-sitter's own descent decides. Where the binary search cannot be
//! sure to pick the node tree-sitter's descent from the root would pick
//! (empty nodes, a position on a boundary), the lookup starts at the root
//! as before, so the answers are always tree-sitter's.

use rustc_hash::{FxHashMap, FxHashSet};
use std::cell::RefCell;
use std::sync::OnceLock;
use tree_sitter::{Language, Node};

/// A node's kind and its children by field name, as [`Node::kind`] and
/// [`Node::child_by_field_name`] give them, without what tree-sitter pays
/// for those on every call: a `strlen` and a UTF-8 check of the kind's
/// name, a search of the grammar's field names one after another. Reading
/// the trees asks some thousands of each a file.
pub(super) trait ByName<'t> {
    fn kind_name(&self) -> &'static str;
    fn field(&self, name: &str) -> Option<Node<'t>>;
}

/// The kinds [`GrammarNames`] names; C++ has 543, C 363.
const MOST_KINDS: usize = 640;
/// The fields [`GrammarNames`] lists; C++ has 50, C 39.
const MOST_FIELDS: usize = 64;

/// The names of a grammar's kinds, by kind id, and the ids of its
/// fields, by name. Held in place, not on the heap: made while a file is
/// read, a list there would stay beside the reading's own lists, and
/// keep their pages from going back once they are freed.
struct GrammarNames {
    language: Language,
    /// Empty for ids past the grammar's kinds.
    kinds: [&'static str; MOST_KINDS],
    /// Sorted by name, then padding from `field_count` on.
    fields: [(&'static str, u16); MOST_FIELDS],
    field_count: usize,
    /// The ids of [`FIELDS_THE_READING_ASKS`], in that order; `None` for
    /// one the grammar lacks.
    asked: [Option<u16>; FIELDS_THE_READING_ASKS.len()],
}

/// The fields the reading of the trees asks for, tens of thousands of
/// times a file: found by [`asked_field`] without a search of the names.
const FIELDS_THE_READING_ASKS: [&str; 9] = [
    "body",
    "declarator",
    "function",
    "initializer",
    "label",
    "name",
    "operator",
    "right",
    "value",
];

/// The id of the field `name`, from a search of `fields`, a grammar's
/// names sorted.
fn searched_field(fields: &[(&'static str, u16)], name: &str) -> Option<u16> {
    let at = fields.binary_search_by(|(field, _)| (*field).cmp(name));
    at.ok().map(|at| fields[at].1)
}

/// The place of `name` in [`FIELDS_THE_READING_ASKS`]. A `match` on
/// the literals compares lengths and a few bytes, where the search of
/// the grammar's names compares whole strings some six times.
fn asked_field(name: &str) -> Option<usize> {
    Some(match name {
        "body" => 0,
        "declarator" => 1,
        "function" => 2,
        "initializer" => 3,
        "label" => 4,
        "name" => 5,
        "operator" => 6,
        "right" => 7,
        "value" => 8,
        _ => return None,
    })
}

impl GrammarNames {
    fn of(language: Language) -> GrammarNames {
        let mut kinds = [""; MOST_KINDS];
        for (id, kind) in (0..).zip(kinds.iter_mut()) {
            *kind = language.node_kind_for_id(id).unwrap_or("");
        }
        let mut fields = [("", 0); MOST_FIELDS];
        let mut field_count = 0;
        for id in (1..=language.field_count()).filter_map(|id| u16::try_from(id).ok()) {
            if let (Some(name), Some(slot)) =
                (language.field_name_for_id(id), fields.get_mut(field_count))
            {
                *slot = (name, id);
                field_count += 1;
            }
        }
        fields[..field_count].sort_unstable();
        GrammarNames {
            language,
            kinds,
            fields,
            field_count,
            asked: FIELDS_THE_READING_ASKS.map(|name| searched_field(&fields[..field_count], name)),
        }
    }

    /// The names of the grammar `node` was parsed with, if it is one of
    /// pomp's C grammars.
    fn of_node(node: &Node) -> Option<&'static GrammarNames> {
        static GRAMMARS: OnceLock<[GrammarNames; 2]> = OnceLock::new();
        let grammars = GRAMMARS.get_or_init(|| {
            [
                GrammarNames::of(pomp_grammars::C.into()),
                GrammarNames::of(pomp_grammars::CPP.into()),
            ]
        });
        let language = node.language();
        grammars.iter().find(|g| g.language == *language)
    }
}

impl<'t> ByName<'t> for Node<'t> {
    fn kind_name(&self) -> &'static str {
        // `kind_id` is the id of a kind that bears the node's name (the
        // first of those the grammar lists): the name is the node's own.
        GrammarNames::of_node(self)
            .and_then(|g| g.kinds.get(usize::from(self.kind_id())))
            .copied()
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| self.kind())
    }

    fn field(&self, name: &str) -> Option<Node<'t>> {
        let id = GrammarNames::of_node(self).and_then(|g| match asked_field(name) {
            Some(at) => g.asked[at],
            None => searched_field(&g.fields[..g.field_count], name),
        });
        match id {
            Some(id) => self.child_by_field_id(id),
            None => self.child_by_field_name(name),
        }
    }
}

/// Every word the C and C++ grammars spell out (the strings of their
/// rules, tree-sitter-c 0.24 and tree-sitter-cpp 0.23): keywords, and the
/// names of types and constants the grammars read as tokens of their own
/// (`int`, `size_t`, `this`, `NULL`), which no name in an expression may
/// be.
#[rustfmt::skip]
const GRAMMAR_WORDS: &[&str] = &[
    "FALSE", "NULL", "TRUE", "_Alignas", "_Alignof", "_Atomic", "_Generic", "_Nonnull",
    "_Noreturn", "__alignof", "__alignof__", "__asm", "__asm__", "__attribute", "__attribute__",
    "__based", "__cdecl", "__clrcall", "__declspec", "__except", "__extension__", "__fastcall",
    "__finally", "__forceinline", "__inline", "__inline__", "__leave", "__restrict",
    "__restrict__", "__sptr", "__stdcall", "__thiscall", "__thread", "__try", "__unaligned",
    "__uptr", "__vectorcall", "__volatile__", "_alignof", "_unaligned", "alignas", "alignof",
    "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char",
    "char16_t", "char32_t", "char64_t", "char8_t", "charptr_t", "class", "co_await", "co_return",
    "co_yield", "compl", "concept", "const", "consteval", "constexpr", "constinit", "continue",
    "decltype", "default", "defined", "delete", "do", "double", "else", "enum", "explicit",
    "extern", "false", "final", "float", "for", "friend", "goto", "if", "inline", "int", "int16_t",
    "int32_t", "int64_t", "int8_t", "intptr_t", "long", "max_align_t", "mutable", "namespace",
    "new", "noexcept", "noreturn", "not", "not_eq", "nullptr", "nullptr_t", "offsetof", "operator",
    "or", "or_eq", "override", "private", "protected", "ptrdiff_t", "public", "register",
    "requires", "restrict", "return", "short", "signed", "size_t", "sizeof", "ssize_t", "static",
    "static_assert", "struct", "switch", "template", "this", "thread_local", "throw", "true",
    "try", "typedef", "typename", "uint16_t", "uint32_t", "uint64_t", "uint8_t", "uintptr_t",
    "union", "unsigned", "using", "virtual", "void", "volatile", "while", "xor", "xor_eq",
];

/// Whether the grammar of C or of C++ may read `word` as something other
/// than a name: a word either grammar's rules spell out, or a token either
/// names by its text. A name of C that is a keyword of C++ counts too:
/// such a name is only read by the grammar, never left out.
pub(super) fn is_keyword(word: &[u8]) -> bool {
    static KEYWORDS: OnceLock<FxHashSet<&'static [u8]>> = OnceLock::new();
    let keywords = KEYWORDS.get_or_init(|| {
        let tokens = [pomp_grammars::C, pomp_grammars::CPP]
            .into_iter()
            .flat_map(|grammar| {
                let language: Language = grammar.into();
                (0..language.node_kind_count())
                    .filter_map(|id| u16::try_from(id).ok())
                    .filter(|&id| !language.node_kind_is_named(id))
                    .filter_map(|id| language.node_kind_for_id(id))
                    .collect::<Vec<_>>()
            })
            .map(str::as_bytes)
            .filter(|kind| {
                !kind.is_empty() && kind.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
            });
        tokens
            .chain(GRAMMAR_WORDS.iter().map(|word| word.as_bytes()))
            .collect()
    });
    keywords.contains(word)
}

/// Whether `node` is a function the grammar read without an error, which
/// no error around it reaches into ([`Nodes::in_error`]).
fn seals_errors_out(node: &Node) -> bool {
    node.kind_name() == "function_definition" && !node.has_error()
}

pub(super) struct Nodes<'t> {
    root: Node<'t>,
    /// The root's children as a cursor visits them (hidden nodes are
    /// looked through), in source order.
    top: Vec<Node<'t>>,
    starts: Vec<usize>,
    ends: Vec<usize>,
    /// Whether the tree holds a syntax error (or a missing node) at all:
    /// most trees hold none, and then no node has an error around it.
    has_error: bool,
    /// The highest statement starting at an offset, as found so far
    /// ([`Nodes::remembered_statement_at`]).
    statements: RefCell<FxHashMap<usize, Option<Node<'t>>>>,
}

impl<'t> Nodes<'t> {
    pub fn new(root: Node<'t>) -> Nodes<'t> {
        let mut cursor = root.walk();
        let top: Vec<Node<'t>> = root.children(&mut cursor).collect();
        Nodes {
            starts: top.iter().map(Node::start_byte).collect(),
            ends: top.iter().map(Node::end_byte).collect(),
            top,
            has_error: root.has_error(),
            root,
            statements: RefCell::default(),
        }
    }

    /// The highest statement starting at `start`, found by `find` the
    /// first time it is asked for: the check that a parse reads a
    /// directive's statement where the scan put it, and the reading of
    /// the directive, ask for the same one, and each finding descends
    /// the tree from its top.
    pub fn remembered_statement_at(
        &self,
        start: usize,
        find: impl FnOnce() -> Option<Node<'t>>,
    ) -> Option<Node<'t>> {
        if let Some(&found) = self.statements.borrow().get(&start) {
            return found;
        }
        let found = find();
        self.statements.borrow_mut().insert(start, found);
        found
    }

    pub fn root(&self) -> Node<'t> {
        self.root
    }

    /// Whether some syntax error encloses `node` within the function that
    /// holds it. A function the grammar read without an error is read
    /// exactly whatever lies around it, as a parse of it alone reads it:
    /// an error elsewhere in the file (the grammar's recovery then makes
    /// the file's top an error) does not reach into it.
    pub fn in_error(&self, node: Node<'t>) -> bool {
        self.has_error
            && !seals_errors_out(&node)
            && (self.ancestors(node))
                .take_while(|n| !seals_errors_out(n))
                .any(|n| n.kind_name() == "ERROR")
    }

    /// What `root.descendant_for_byte_range(start, end)` gives.
    pub fn descendant(&self, start: usize, end: usize) -> Option<Node<'t>> {
        match self.top_level_holding(start, end) {
            Some(top) => top.descendant_for_byte_range(start, end),
            None => self.root.descendant_for_byte_range(start, end),
        }
    }

    /// The nodes enclosing `node`, innermost first, up to the root.
    pub fn ancestors(&self, node: Node<'t>) -> impl Iterator<Item = Node<'t>> + use<'t> {
        let below_top = match self.top_level_holding(node.start_byte(), node.end_byte()) {
            Some(top) if top == node => Some(Vec::new()),
            Some(top) => Some(path_down(top, node)),
            None => None,
        };
        let path = match below_top {
            Some(mut path) => {
                path.insert(0, self.root);
                path
            }
            None => path_down(self.root, node),
        };
        path.into_iter().rev()
    }

    /// The nodes enclosing `node`, outermost first: [`Nodes::ancestors`]
    /// in reverse, found one at a time, so that a search from above stops
    /// where it finds what it looks for.
    pub fn descent(&self, node: Node<'t>) -> impl Iterator<Item = Node<'t>> + use<'t> {
        let (root, from) = match self.top_level_holding(node.start_byte(), node.end_byte()) {
            Some(top) => (Some(self.root), top),
            None => (None, self.root),
        };
        let below = std::iter::successors(Some(from).filter(|&n| n != node), move |&at| {
            at.child_with_descendant(node).filter(|&next| next != node)
        });
        root.into_iter().chain(below)
    }

    /// What `node.parent()` gives, for a node of this tree.
    pub fn parent(&self, node: Node<'t>) -> Option<Node<'t>> {
        self.ancestors(node).next()
    }

    /// The top-level node that the descent from the root takes towards
    /// the range, where only one can be taken: one that holds the range
    /// and, for an empty range, holds it strictly inside (an empty node
    /// ending where the range is would come first).
    fn top_level_holding(&self, start: usize, end: usize) -> Option<Node<'t>> {
        let at = self
            .starts
            .partition_point(|&s| s <= start)
            .checked_sub(1)?;
        let holds = self.ends[at] >= end
            && self.ends[at] > start
            && (start < end || self.starts[at] < start);
        holds.then_some(self.top[at])
    }
}

/// The nodes from `from` down to `node`'s parent, outermost first: one
/// descent instead of one per ancestor (`Node::parent` walks down from
/// the root each time).
pub(super) fn path_down<'t>(from: Node<'t>, node: Node<'t>) -> Vec<Node<'t>> {
    let mut path = Vec::new();
    let mut at = from;
    while at != node {
        path.push(at);
        match at.child_with_descendant(node) {
            Some(next) => at = next,
            None => break,
        }
    }
    path
}

/// The byte ranges of the syntax errors under `node`: its outermost
/// error nodes and the missing ones, found by descending only where a
/// node holds an error.
pub(super) fn syntax_errors(node: Node) -> Vec<std::ops::Range<usize>> {
    let mut errors = Vec::new();
    if !node.has_error() {
        return errors;
    }
    let mut pending = vec![node];
    while let Some(node) = pending.pop() {
        if node.is_error() || node.is_missing() {
            errors.push(node.byte_range());
            continue;
        }
        let mut cursor = node.walk();
        pending.extend(node.children(&mut cursor).filter(|c| c.has_error()));
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_field_asked_is_found_at_its_place_in_both_grammars() {
        for (at, name) in FIELDS_THE_READING_ASKS.iter().enumerate() {
            assert_eq!(asked_field(name), Some(at), "{name}");
            for grammar in [pomp_grammars::C, pomp_grammars::CPP] {
                let language: Language = grammar.into();
                assert!(language.field_id_for_name(name).is_some(), "{name}");
            }
        }
        assert_eq!(asked_field("no_such_field"), None);
        assert_eq!(asked_field("bod"), None);
    }

    /// Every lookup agrees with tree-sitter's own from the root: at every
    /// position and for every node of `source`. Returns how many nodes
    /// are empty (missing) and how many lie inside an error.
    fn agree_everywhere(source: &[u8], language: tree_sitter::Language) -> (usize, usize) {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&language).unwrap();
        let tree = parser.parse(source, None).unwrap();
        let root = tree.root_node();
        let nodes = Nodes::new(root);
        for start in 0..=source.len() {
            for end in start..=(start + 3).min(source.len()) {
                assert_eq!(
                    nodes.descendant(start, end),
                    root.descendant_for_byte_range(start, end),
                    "range {start}..{end}"
                );
            }
        }
        let mut all = vec![];
        let mut cursor = root.walk();
        loop {
            all.push(cursor.node());
            if cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break;
                }
            }
            if cursor.node() == root {
                break;
            }
        }
        for &node in &all {
            let mut expected = vec![];
            let mut at = node;
            while let Some(parent) = at.parent() {
                expected.push(parent);
                at = parent;
            }
            assert_eq!(nodes.ancestors(node).collect::<Vec<_>>(), expected);
            let mut descent: Vec<Node> = nodes.descent(node).collect();
            descent.reverse();
            assert_eq!(descent, expected);
            assert_eq!(nodes.parent(node), node.parent());
            assert_eq!(
                nodes.in_error(node),
                !seals_errors_out(&node)
                    && (expected.iter())
                        .take_while(|n| !seals_errors_out(n))
                        .any(|n| n.kind() == "ERROR")
            );
            assert_eq!(node.kind_name(), node.kind());
            // The fields the front end reads, one it does not, and one no
            // grammar has.
            for field in FIELDS_THE_READING_ASKS
                .into_iter()
                .chain(["path", "no_such_field"])
            {
                assert_eq!(node.field(field), node.child_by_field_name(field));
            }
        }
        (
            all.iter().filter(|n| n.is_missing()).count(),
            all.iter().filter(|n| nodes.in_error(**n)).count(),
        )
    }

    #[test]
    fn lookups_agree_with_the_descent_from_the_root() {
        let source = b"int a;\nstatic int f(int x) { return x + 1; }\n\
                       struct s { int y; };\nint g(void) { int z = 2 return z; }\n\
                       /* c */ int h(void) { for (;;) { break; } }\n\
                       void k(void) { { x = ) 3 + y; } }\n";
        let (missing, in_error) = agree_everywhere(source, pomp_grammars::C.into());
        assert!(missing > 0, "the file has an empty (missing) node");
        assert!(in_error > 0, "the file has nodes inside an error");
    }

    #[test]
    fn lookups_agree_on_the_corpus_in_c_and_cxx() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
        let mut files = 0;
        for (dir, language) in [
            ("c", pomp_grammars::C),
            ("kernels", pomp_grammars::C),
            ("cxx", pomp_grammars::CPP),
        ] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "c" || e == "cpp") {
                    agree_everywhere(&std::fs::read(&path).unwrap(), language.into());
                    files += 1;
                }
            }
        }
        assert!(files > 30);
    }
}

//! The tree-sitter front end for C and C++.
//!
//! Directives are found lexically ([`scan`]), masked with spaces of the same
//! length, and the masked text is parsed: offsets stay the same and the
//! grammar sees plain C, so a pragma between `if (c)` and its statement no
//! longer confuses it. Preprocessor conditionals are read the same way
//! ([`conditionals`]): code not compiled with OpenMP is masked, and
//! directives under conditions that are not known keep their conditions.
//! A directive's block is then the statement that begins at the first
//! token after it.
//!
//! [`scan`]: super::lexical::scan
//! [`conditionals`]: super::lexical::conditionals

mod configurations;
mod heads;
mod nodes;
mod parse;
mod pieces;
mod prepare;
mod reuse;
mod statements;
mod syntax;

use super::reading::{FrontEnd, LastReading};
use crate::model::{CodeRegions, Found};
use crate::source::{SourceFile, Span};
use nodes::Nodes;
pub use parse::Parsed;
use prepare::Prepared;
pub use reuse::Reuse;
/// How much of a file is parsed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ParseExtent {
    /// In the functions that hold directives, their heads and the
    /// statements the directives own, wherever a scan of the function's
    /// body allows; as [`ParseExtent::Declarations`] otherwise.
    #[default]
    Statements,
    /// Only the top-level declarations that hold directives or lock calls,
    /// whenever that reads exactly as the whole file would; the whole file
    /// otherwise.
    Declarations,
    /// Always the whole file.
    WholeFile,
}

#[derive(Clone, Debug, Default)]
pub struct TreeSitterC {
    pub extent: ParseExtent,
    /// The code beyond directives read as regions: a file is then parsed
    /// whole.
    pub regions: CodeRegions,
}

impl TreeSitterC {
    /// The front end that always parses whole files: slower, and the
    /// reference the partial parse is tested against.
    pub fn whole_file() -> TreeSitterC {
        TreeSitterC {
            extent: ParseExtent::WholeFile,
            ..TreeSitterC::default()
        }
    }
}

impl FrontEnd for TreeSitterC {
    fn name(&self) -> &'static str {
        "tree-sitter"
    }

    fn read(&self, file: &SourceFile) -> Found {
        self.read_telling_extent(file).0
    }

    fn read_again(&self, file: &SourceFile, last: &mut LastReading) -> Found {
        self.read_reusing(file, last.kept::<Reuse>())
    }
}

impl TreeSitterC {
    /// [`FrontEnd::read`], and how much of the file it parsed: what
    /// benchmarks and tests of the partial parse look at.
    pub fn read_telling_extent(&self, file: &SourceFile) -> (Found, ParseExtent) {
        if self.regions.any() {
            return self.read_prepared(&Prepared::whatever_it_holds(file, None));
        }
        let Some(prepared) = Prepared::new(file) else {
            // Nothing can change: the syntax tree would not be looked at.
            return (Found::default(), self.extent);
        };
        self.read_prepared(&prepared)
    }

    /// [`TreeSitterC::read_telling_extent`] of the file `prepared` holds.
    fn read_prepared(&self, prepared: &Prepared) -> (Found, ParseExtent) {
        if self.regions.any() {
            return (
                finish(prepared, read_whole(prepared, &self.regions)),
                ParseExtent::WholeFile,
            );
        }
        let statements = || read_pieces(prepared, true);
        let declarations = || read_pieces(prepared, false);
        let partial = match self.extent {
            ParseExtent::Statements => statements().or_else(declarations),
            ParseExtent::Declarations => declarations(),
            ParseExtent::WholeFile => None,
        };
        let (model, extent) = partial.unwrap_or_else(|| {
            (
                read_whole(prepared, &CodeRegions::default()),
                ParseExtent::WholeFile,
            )
        });
        (finish(prepared, model), extent)
    }

    /// [`FrontEnd::read`] of a text read before in another version, as an
    /// editor reads its buffer after every change: `reuse` keeps the
    /// previous reading's syntax tree, and only what changed since is
    /// parsed again (tree-sitter's incremental parsing). The model is the
    /// one [`FrontEnd::read`] gives, whatever the front end's [`ParseExtent`]:
    /// the whole file is parsed, and where the tree parsed again holds a
    /// syntax error, the buffer is read afresh as [`FrontEnd::read`] reads
    /// it: only what the directives need, not the whole text again.
    pub fn read_reusing(&self, file: &SourceFile, reuse: &mut Reuse) -> Found {
        let prepared = match self.regions.any() {
            true => Some(Prepared::whatever_it_holds(file, Some(&mut reuse.parses))),
            false => Prepared::reusing(file, Some(&mut reuse.parses)),
        };
        let Some(prepared) = prepared else {
            reuse.clear();
            return Found::default();
        };
        let Some(tree) = reuse::whole_tree(&prepared, reuse) else {
            return self.read_prepared(&prepared).0;
        };
        let mut model = read_tree(&prepared, &tree, Some(reuse));
        if self.regions.any() {
            syntax::code_regions(&mut model, &prepared, &tree, &self.regions);
        }
        finish(&prepared, model)
    }
}

/// What every reading ends with.
fn finish(prepared: &Prepared, mut model: Found) -> Found {
    // Every reading lists diagnostics by position, each stage's in the
    // order it found them.
    model.diagnostics.sort_by_key(|d| d.span.start);
    crate::frontend::c_shared::conditions::finish(
        prepared.file,
        &prepared.lines,
        &prepared.conditionals,
        &mut model,
    );
    model
}

/// The model from a parse of the whole file, with the functions
/// `regions` asks for.
fn read_whole(prepared: &Prepared, regions: &CodeRegions) -> Found {
    // The text is let go before other configurations patch it.
    let tree = parse::parse(prepared.file, &prepared.whole_masked(), &[], &[]);
    let mut model = read_tree(prepared, &tree, None);
    if regions.any() {
        syntax::code_regions(&mut model, prepared, &tree, regions);
    }
    model
}

/// The model from `tree`, a parse of the whole of `prepared.masked`; the
/// other configurations' trees kept in `reuse` when given.
fn read_tree(prepared: &Prepared, tree: &tree_sitter::Tree, reuse: Option<&mut Reuse>) -> Found {
    let coverage = configurations::Coverage {
        ranges: &[],
        pieces: &[],
        directives: 0..prepared.directives.len(),
        mentions: &prepared.lock_mentions,
    };
    read_covered(
        prepared,
        tree,
        &Nodes::new(tree.root_node()),
        &coverage,
        reuse,
    )
}

/// The model of what `coverage` holds, read from `tree` (looked up through
/// `nodes`) and reconciled with the other configurations of its functions.
fn read_covered(
    prepared: &Prepared,
    tree: &tree_sitter::Tree,
    nodes: &Nodes,
    coverage: &configurations::Coverage,
    reuse: Option<&mut Reuse>,
) -> Found {
    let main = syntax::read(
        prepared,
        &prepared.masked(),
        nodes,
        coverage.directives.clone(),
        coverage.mentions,
    );
    configurations::reconcile(prepared, coverage, tree, main, reuse)
}

/// Pieces parsed together in one call: a parse has a fixed cost that
/// matters for small pieces, and tree-sitter's lexer looks up the range it
/// is in from the first one at every token. Narrowed pieces hold several
/// ranges each; of 4, 8 and 32 pieces a parse, 4 counts the fewest
/// instructions on the dense C and C++ inputs of `benches/instrument.rs`.
const PIECES_PER_PARSE: usize = 4;

/// The model from parses of the declarations that hold directives and
/// lock calls, with `narrow` of the statements in them the directives own;
/// `None` when that would not read the file exactly. The extent tells
/// whether some function was narrowed.
fn read_pieces(prepared: &Prepared, narrow: bool) -> Option<(Found, ParseExtent)> {
    let partial = pieces::PartialParse::new(prepared, narrow)?;
    let extent = match partial.narrowed() {
        true => ParseExtent::Statements,
        false => ParseExtent::Declarations,
    };
    let mut parts =
        Vec::with_capacity(partial.pieces.len() / PIECES_PER_PARSE + partial.outside.len() + 1);
    let mut broken = Vec::new();
    for batch in partial.batches(PIECES_PER_PARSE) {
        if batch[0].surely_broken {
            broken.push(&batch[0]);
            continue;
        }
        let errors = match read_batch(prepared, batch) {
            Ok(part) => {
                parts.push(part);
                continue;
            }
            Err(errors) => errors,
        };
        // A function whose narrowed reading the parse does not confirm
        // costs only itself: it is read whole, and where that parse holds
        // a syntax error, between its neighbours. A parse with errors
        // costs several clean ones (the grammar's recovery tries many
        // readings), and the text an error lies in reads the same in
        // every parse of it: a function the errors lie in goes straight
        // to its neighbours, and those they spared are parsed together
        // again.
        let holds_error = |piece: &pieces::Piece| errors.iter().any(|e| piece.holds_error(e));
        let mut alone: Vec<&pieces::Piece> = Vec::new();
        for run in batch.chunk_by(|a, b| holds_error(a) == holds_error(b)) {
            if holds_error(&run[0]) {
                broken.extend(run);
                continue;
            }
            // A batch without errors, not read as scanned, would read the
            // same again.
            let again = !errors.is_empty() && run.len() > 1;
            match again.then(|| read_batch(prepared, run).ok()).flatten() {
                Some(part) => parts.push(part),
                None => alone.extend(run),
            }
        }
        for piece in alone {
            // A batch of one was this parse.
            let part = (batch.len() > 1)
                .then(|| read_batch(prepared, std::slice::from_ref(piece)).ok())
                .flatten()
                .or_else(|| {
                    (piece.is_narrowed())
                        .then(|| read_batch(prepared, &[partial.whole_function(piece)]).ok())
                        .flatten()
                });
            match part {
                Some(part) => parts.push(part),
                None => broken.push(piece),
            }
        }
    }
    // Functions with syntax errors come in runs (a macro a code base
    // writes in many functions): each run is parsed once.
    if !broken.is_empty() {
        // Where conditionals split a function, a reading of the whole file
        // parses the file again in their other settings: no window may
        // reach them, as it must read the same in all of them.
        let conditionals = &prepared.conditionals;
        let split: Vec<Span> = (conditionals.unbalanced_in(&(0..prepared.file.bytes.len())))
            .into_iter()
            .map(|g| conditionals.extent(g))
            .collect();
        for run in pieces::PartialParse::consecutive(&broken) {
            parts.push(read_between_neighbours(prepared, &partial, &run, &split)?);
        }
    }
    if !partial.outside.is_empty() {
        let nothing = parse::parse_nothing(prepared.file);
        let nothing = Nodes::new(nothing.root_node());
        for run in &partial.outside {
            parts.push(syntax::read(
                prepared,
                &prepared.masked(),
                &nothing,
                run.clone(),
                &[],
            ));
        }
    }
    // The pieces and their scans go before the parts are merged: the
    // merge holds every site twice, the reading's peak.
    drop(partial);
    Some((merge(parts), extent))
}

/// The model of `batch`, parsed together; where the parse does not read
/// each piece as the scan found it, the syntax errors it holds.
fn read_batch(prepared: &Prepared, batch: &[pieces::Piece]) -> Result<Found, Vec<Span>> {
    let ranges = pieces::union(batch);
    let tree = parse::parse(
        prepared.file,
        &prepared.masked(),
        &ranges,
        prepared.passed_over(),
    );
    let nodes = Nodes::new(tree.root_node());
    if !batch
        .iter()
        .all(|piece| piece.parsed_as_scanned(&tree, &nodes))
    {
        return Err(nodes::syntax_errors(tree.root_node()));
    }
    Ok(read_parsed(prepared, &tree, &nodes, &ranges, batch))
}

/// The model of what `pieces`, parsed together from `ranges` into `tree`,
/// hold.
fn read_parsed(
    prepared: &Prepared,
    tree: &tree_sitter::Tree,
    nodes: &Nodes,
    ranges: &[Span],
    pieces: &[pieces::Piece],
) -> Found {
    let (first, last) = (&pieces[0], &pieces[pieces.len() - 1]);
    let coverage = configurations::Coverage {
        ranges,
        pieces,
        directives: first.directives.start..last.directives.end,
        mentions: &prepared.lock_mentions[first.mentions.start..last.mentions.end],
    };
    read_covered(prepared, tree, nodes, &coverage, None)
}

/// The model of the functions of `run`, consecutive declarations whose
/// own parses hold syntax errors (a block a macro ends, `try { }
/// CATCH_ALL`), parsed whole between the declarations next to them; `None`
/// unless the grammar recovered from every error within the function it
/// lies in, from its head to its closing brace, and read each of those
/// functions as the scan found it: a parse of the whole file then reads
/// them alike; nor where the window reaches the extent of a conditional
/// that splits a function (`split`). Everything else is left to the whole
/// parse.
fn read_between_neighbours(
    prepared: &Prepared,
    partial: &pieces::PartialParse,
    run: &[&pieces::Piece],
    split: &[Span],
) -> Option<Found> {
    let window = partial.neighbourhood(run);
    let ranges = pieces::union(&window);
    let read = ranges[0].start..ranges[ranges.len() - 1].end;
    if (split.iter()).any(|extent| extent.start < read.end && read.start < extent.end) {
        return None;
    }
    let tree = parse::parse(
        prepared.file,
        &prepared.masked(),
        &ranges,
        prepared.passed_over(),
    );
    let nodes = Nodes::new(tree.root_node());
    let functions: Vec<Span> = (window.iter())
        .filter_map(|p| p.item_as_scanned(&nodes))
        .collect();
    let read_as_scanned = run.iter().all(|p| functions.contains(&p.item()));
    let within_a_function =
        |error: &Span| (functions.iter()).any(|f| f.start <= error.start && error.end <= f.end);
    let errors = nodes::syntax_errors(tree.root_node());
    if !read_as_scanned || !errors.iter().all(within_a_function) {
        return None;
    }
    // The neighbours hold nothing: the window holds what the run does.
    Some(read_parsed(prepared, &tree, &nodes, &ranges, &window))
}

/// One model of the parts of a file, each listed in file order.
fn merge(parts: Vec<Found>) -> Found {
    let mut model = Found::default();
    // Sized once: a file dense with directives has thousands of sites.
    model
        .sites
        .reserve(parts.iter().map(|p| p.sites.len()).sum());
    model
        .units
        .reserve(parts.iter().map(|p| p.units.len()).sum());
    for part in parts {
        model.sites.extend(part.sites);
        model.units.extend(part.units);
        model.lock_calls.extend(part.lock_calls);
        model.no_insert.extend(part.no_insert);
        model.exits.extend(part.exits);
        model.diagnostics.extend(part.diagnostics);
    }
    use crate::model::sort_unless_sorted;
    sort_unless_sorted(&mut model.sites, |s| s.span.start);
    model.units.sort();
    sort_unless_sorted(&mut model.lock_calls, |c| c.span.start);
    sort_unless_sorted(&mut model.exits, |e| e.span.start);
    model
}

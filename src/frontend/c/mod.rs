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

mod analysis;
mod conditionals;
mod configurations;
mod expression;
mod lex;
mod parse;
mod placement;
mod prepare;
pub mod scan;
mod unknown;

use super::FrontEnd;
use crate::model::Model;
use crate::source::SourceFile;
use analysis::Analysis;
use prepare::Prepared;

/// How much of a file is parsed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scope {
    /// Only the top-level declarations that hold directives or lock calls,
    /// whenever that reads exactly as the whole file would; the whole file
    /// otherwise.
    #[default]
    Declarations,
    /// Always the whole file.
    WholeFile,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct TreeSitterC {
    pub scope: Scope,
}

impl TreeSitterC {
    /// The front end that always parses whole files: slower, and the
    /// reference the partial parse is tested against.
    pub fn whole_file() -> TreeSitterC {
        TreeSitterC {
            scope: Scope::WholeFile,
        }
    }
}

impl FrontEnd for TreeSitterC {
    fn name(&self) -> &'static str {
        "tree-sitter"
    }

    fn read(&self, file: &SourceFile) -> Model {
        let Some(prepared) = Prepared::new(file) else {
            // Nothing can change: the syntax tree would not be looked at.
            return Model::default();
        };
        let mut model = read_whole(&prepared);
        placement::finish(&prepared, &mut model);
        model
    }
}

/// The model from a parse of the whole file.
fn read_whole(prepared: &Prepared) -> Model {
    let tree = parse::parse(prepared.file, &prepared.masked, &[]);
    let directives = 0..prepared.directives.len();
    let main = Analysis::read(prepared, &prepared.masked, &tree, directives.clone());
    let scope = configurations::Scope {
        ranges: &[],
        directives,
    };
    configurations::reconcile(prepared, &scope, &tree, main)
}

//! The tree-sitter front end for C and C++.

use super::{FrontEnd, Model};
use crate::source::SourceFile;

pub struct TreeSitterC;

impl FrontEnd for TreeSitterC {
    fn name(&self) -> &'static str {
        "tree-sitter"
    }
    fn analyse(&self, file: &SourceFile) -> Model {
        let _ = file;
        todo!()
    }
}

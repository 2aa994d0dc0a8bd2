//! Parsing a directive's text into a [`Directive`](super::Directive).

use super::{Clause, Directive};
use crate::source::Language;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirectiveError {
    pub message: String,
    pub span: std::ops::Range<usize>,
}

pub fn parse_directive(
    text: &str,
    sentinel: super::Sentinel,
    language: Language,
) -> Result<Directive, DirectiveError> {
    let _ = (text, sentinel, language);
    todo!()
}

pub(crate) fn top_level_colon(s: &str) -> Option<usize> {
    let _ = s;
    todo!()
}

pub(crate) fn list_items(c: &Clause) -> Vec<String> {
    let _ = c;
    todo!()
}

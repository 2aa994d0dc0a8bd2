//! Rendering a plan as Fortran text.

use crate::frontend::Model;
use crate::instrument::Options;
use crate::rules::Plan;
use crate::source::SourceFile;

pub fn render(file: &SourceFile, model: &Model, plan: &Plan, options: &Options) -> Vec<u8> {
    let _ = (model, plan, options);
    unimplemented!("Fortran output for {}", file.path.display())
}

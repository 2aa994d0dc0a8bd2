//! Showing a report: text for a terminal, JSON and CSV for tools, and the
//! pictures (flame graphs, a speedscope document, one HTML page).

pub mod csv;
pub mod flame;
pub mod html;
pub mod spans;
pub mod speedscope;
pub mod table;
pub mod text;

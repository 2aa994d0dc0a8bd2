//! How a program's file states its [`Measurement`]: one comment line per
//! setting after the headline, which the renderers write and the check
//! reads back, so that a program kept under `tests/` is checked with the
//! regions, filter and throttling it was generated with.

use super::ast::Measurement;

const REGIONS: &str = "pomp regions: ";
const FILTER: &str = "pomp filter: ";
const THROTTLE_AFTER: &str = "pomp throttle after: ";
const PREPROCESSED: &str = "pomp input: preprocessed";

/// The lines to write as comments, without the comment's markers.
pub fn header_lines(measurement: &Measurement) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(regions) = &measurement.regions {
        lines.push(format!("{REGIONS}{regions}"));
    }
    for rule in &measurement.filter {
        lines.push(format!("{FILTER}{rule}"));
    }
    if let Some(visits) = measurement.throttle_after {
        lines.push(format!("{THROTTLE_AFTER}{visits}"));
    }
    if measurement.preprocessed {
        lines.push(PREPROCESSED.to_string());
    }
    lines
}

/// The measurement a program's text states: its header's comment lines,
/// whatever their comment markers.
pub fn read(text: &str) -> Measurement {
    let mut measurement = Measurement::default();
    for line in text.lines().take_while(|l| is_comment(l)) {
        let setting = |key: &str| {
            let at = line.find(key)?;
            let value = line[at + key.len()..].trim_end();
            Some(value.strip_suffix("*/").unwrap_or(value).trim().to_string())
        };
        if let Some(regions) = setting(REGIONS) {
            measurement.regions = Some(regions);
        } else if let Some(rule) = setting(FILTER) {
            measurement.filter.push(rule);
        } else if let Some(visits) = setting(THROTTLE_AFTER) {
            measurement.throttle_after = visits.parse().ok();
        } else if line.contains(PREPROCESSED) {
            measurement.preprocessed = true;
        }
    }
    measurement
}

/// The header is the comment lines a file opens with, in any of the three
/// languages' comment styles.
fn is_comment(line: &str) -> bool {
    let trimmed = line.trim_start();
    trimmed.starts_with("/*")
        || trimmed.starts_with('*')
        || trimmed.starts_with('!')
        || line.starts_with(['C', 'c'])
}

/// The filter file that holds the rules, in Score-P's syntax.
pub fn filter_file(measurement: &Measurement) -> Option<String> {
    if measurement.filter.is_empty() {
        return None;
    }
    let mut text = String::from("SCOREP_REGION_NAMES_BEGIN\n");
    for rule in &measurement.filter {
        text.push_str("  ");
        text.push_str(rule);
        text.push('\n');
    }
    text.push_str("SCOREP_REGION_NAMES_END\n");
    Some(text)
}

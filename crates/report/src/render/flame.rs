//! Flame graphs of the call-path tree, drawn by inferno: each frame a
//! region (or a part of one), as wide as its inclusive thread time. The
//! differential graph of `--diff` is the second run's tree coloured by how
//! each frame changed from the first.

use crate::analysis::regions::TreeNode;
use std::collections::BTreeMap;
use std::io;

/// Folded stacks (`outer;inner;innermost <ns>`), the input of inferno, with
/// each node's exclusive time (the mean over profiles).
pub fn folded(tree: &[TreeNode]) -> Vec<String> {
    let mut stacks: BTreeMap<String, u64> = BTreeMap::new();
    fn walk(nodes: &[TreeNode], path: &str, stacks: &mut BTreeMap<String, u64>) {
        for node in nodes {
            let frame = frame_name(&node.label);
            let path = if path.is_empty() {
                frame
            } else {
                format!("{path};{frame}")
            };
            if node.exclusive_ns.mean > 0 {
                *stacks.entry(path.clone()).or_default() += node.exclusive_ns.mean;
            }
            walk(&node.children, &path, stacks);
        }
    }
    walk(tree, "", &mut stacks);
    stacks
        .into_iter()
        .map(|(stack, ns)| format!("{stack} {ns}"))
        .collect()
}

/// `;` separates frames and the last blank the count: neither may be
/// ambiguous in a name.
fn frame_name(label: &str) -> String {
    label
        .replace(';', ",")
        .replace(['\n', '\r', '\t'], " ")
        .trim()
        .to_string()
}

fn options(
    title: &str,
    subtitle: &str,
    interactive: bool,
) -> inferno::flamegraph::Options<'static> {
    let mut options = inferno::flamegraph::Options::default();
    options.title = title.to_string();
    options.subtitle = Some(subtitle.to_string());
    options.count_name = "ns".to_string();
    options.name_type = "Region:".to_string();
    // Every region gets a frame, however narrow, so that none is missing
    // from the picture.
    options.min_width = 0.0;
    // The same region gets the same colour in every graph.
    options.hash = true;
    options.no_javascript = !interactive;
    options
}

/// An SVG flame graph; `interactive` keeps inferno's script (zoom,
/// search), which an SVG embedded in a page must do without.
pub fn svg(
    folded: &[String],
    title: &str,
    subtitle: &str,
    interactive: bool,
) -> io::Result<String> {
    let mut out = Vec::new();
    let mut options = options(title, subtitle, interactive);
    if folded.is_empty() {
        return Ok(empty_svg(title));
    }
    inferno::flamegraph::from_lines(&mut options, folded.iter().map(String::as_str), &mut out)?;
    Ok(String::from_utf8(out).expect("inferno writes UTF-8"))
}

/// The second run's flame graph, each frame red where it got slower and
/// blue where it got faster than in the first.
pub fn differential(
    before: &[String],
    after: &[String],
    title: &str,
    subtitle: &str,
) -> io::Result<String> {
    let mut joined = Vec::new();
    inferno::differential::from_readers(
        inferno::differential::Options::default(),
        before.join("\n").as_bytes(),
        after.join("\n").as_bytes(),
        &mut joined,
    )?;
    let joined = String::from_utf8(joined).expect("folded stacks are UTF-8");
    let lines: Vec<String> = joined.lines().map(str::to_string).collect();
    if lines.is_empty() {
        return Ok(empty_svg(title));
    }
    let mut out = Vec::new();
    let mut options = options(title, subtitle, true);
    inferno::flamegraph::from_lines(&mut options, lines.iter().map(String::as_str), &mut out)?;
    Ok(String::from_utf8(out).expect("inferno writes UTF-8"))
}

/// inferno draws a graph without frames as an error message; a report
/// without regions says so plainly instead.
fn empty_svg(title: &str) -> String {
    let title = super::html::escape(title);
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"600\" height=\"60\">\
         <text x=\"10\" y=\"24\" font-family=\"sans-serif\" font-size=\"14\">{title}</text>\
         <text x=\"10\" y=\"46\" font-family=\"sans-serif\" font-size=\"12\">No region took any time.</text></svg>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_markup_and_separators_survive() {
        let folded = vec![
            format!("parallel in f<int> (a.cpp:3) {}", 10),
            format!(
                "parallel in f<int> (a.cpp:3);critical (a&b) in g (a.cpp:9) {}",
                5
            ),
        ];
        for interactive in [true, false] {
            let svg = svg(&folded, "t & <t>", "s", interactive).unwrap();
            let options = roxmltree::ParsingOptions {
                allow_dtd: true,
                ..roxmltree::ParsingOptions::default()
            };
            let document = roxmltree::Document::parse_with_options(&svg, options).unwrap();
            let titles: Vec<&str> = document
                .descendants()
                .filter(|n| n.has_tag_name("title"))
                .filter_map(|n| n.text())
                .collect();
            assert!(
                titles
                    .iter()
                    .any(|t| t.starts_with("critical (a&b) in g (a.cpp:9) (")),
                "{titles:?}"
            );
            assert!(titles
                .iter()
                .any(|t| t.starts_with("parallel in f<int> (a.cpp:3) (")));
        }
        assert_eq!(frame_name("a;b\nc "), "a,b c");
    }
}

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
    Ok(with_full_paths(
        &String::from_utf8(out).expect("inferno writes UTF-8"),
    ))
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
    Ok(with_full_paths(
        &String::from_utf8(out).expect("inferno writes UTF-8"),
    ))
}

/// How frames are separated in a call path.
const PATH_SEPARATOR: &str = " → ";

/// The text inferno's script labels a frame with: its title less the
/// counts. It is made to read the frame's own name instead, which
/// [`with_full_paths`] keeps beside the title.
const INFERNO_LABEL_SOURCE: &str = r#"find_child(e, "title").textContent.replace(/\([^(]*\)$/,"")"#;
const LABEL_SOURCE: &str = r#"e.getAttribute("data-name")"#;

/// One frame of inferno's SVG: where its group opens, its title's text
/// (escaped as written), and its place.
struct Frame<'a> {
    at: usize,
    title: &'a str,
    y: u32,
    x: u64,
    width: u64,
}

/// inferno titles a frame with its own name; a frame's place in the call
/// tree is only where it is drawn. Each frame's title becomes the whole
/// call path from the outermost region down to it (the tooltip, and what
/// search finds), and its own name goes into `data-name`, which labels
/// it.
fn with_full_paths(svg: &str) -> String {
    const OPEN: &str = "<g><title>";
    let mut frames: Vec<Frame> = Vec::new();
    let mut from = 0;
    while let Some(found) = svg[from..].find(OPEN) {
        let at = from + found;
        let start = at + OPEN.len();
        let Some(end) = svg[start..].find("</title>").map(|e| start + e) else {
            break;
        };
        let rect = &svg[end..svg[end..].find("/>").map_or(svg.len(), |e| end + e)];
        let attribute = |name: &str| -> Option<u64> {
            let key = format!(" {name}=\"");
            let value = rect.find(&key)? + key.len();
            rect[value..value + rect[value..].find('"')?].parse().ok()
        };
        if let (Some(y), Some(x), Some(width)) =
            (attribute("y"), attribute("fg:x"), attribute("fg:w"))
        {
            frames.push(Frame {
                at,
                title: &svg[start..end],
                y: y as u32,
                x,
                width,
            });
        }
        from = end;
    }
    // Deeper frames are drawn higher up: depth follows y, largest first.
    let mut rows: Vec<u32> = frames.iter().map(|f| f.y).collect();
    rows.sort_unstable_by(|a, b| b.cmp(a));
    rows.dedup();
    let depth = |frame: &Frame| rows.iter().position(|&y| y == frame.y).unwrap_or(0);
    let mut by_depth: Vec<Vec<usize>> = vec![Vec::new(); rows.len()];
    for (index, frame) in frames.iter().enumerate() {
        by_depth[depth(frame)].push(index);
    }
    for row in &mut by_depth {
        row.sort_by_key(|&index| frames[index].x);
    }
    let own_name = |frame: &Frame<'_>| -> String {
        let title = frame.title;
        title[..title.rfind(" (").unwrap_or(title.len())].to_string()
    };
    let parent = |index: usize| -> Option<usize> {
        let frame = &frames[index];
        let row = &by_depth[depth(frame).checked_sub(1)?];
        let after = row.partition_point(|&p| frames[p].x <= frame.x);
        let candidate = row[after.checked_sub(1)?];
        let outer = &frames[candidate];
        (frame.x < outer.x + outer.width.max(1)).then_some(candidate)
    };
    let mut out = String::with_capacity(svg.len() + svg.len() / 2);
    let mut copied = 0;
    for (index, frame) in frames.iter().enumerate() {
        let name = own_name(frame);
        let mut path = vec![name.clone()];
        let mut cursor = index;
        while let Some(outer) = parent(cursor) {
            // The root frame, `all`, stands for no region.
            if parent(outer).is_some() {
                path.push(own_name(&frames[outer]));
            }
            cursor = outer;
        }
        if depth(frame) == 0 {
            continue;
        }
        path.reverse();
        let counts = &frame.title[name.len()..];
        out.push_str(&svg[copied..frame.at]);
        out.push_str(&format!(
            "<g data-name=\"{}\"><title>{}{counts}",
            name.replace('"', "&quot;"),
            path.join(PATH_SEPARATOR)
        ));
        copied = frame.at + "<g><title>".len() + frame.title.len();
    }
    out.push_str(&svg[copied..]);
    out.replace(INFERNO_LABEL_SOURCE, LABEL_SOURCE)
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
                titles.iter().any(|t| t
                    .starts_with("parallel in f<int> (a.cpp:3) → critical (a&b) in g (a.cpp:9) (")),
                "{titles:?}"
            );
            let names: Vec<&str> = document
                .descendants()
                .filter_map(|n| n.attribute("data-name"))
                .collect();
            assert_eq!(
                names.len(),
                2,
                "each frame names itself, the root none: {names:?}"
            );
            assert!(names.contains(&"critical (a&b) in g (a.cpp:9)"));
            if interactive {
                assert!(!svg.contains(INFERNO_LABEL_SOURCE));
                assert!(
                    svg.contains(LABEL_SOURCE),
                    "inferno's script labels by title"
                );
            }
            assert!(titles
                .iter()
                .any(|t| t.starts_with("parallel in f<int> (a.cpp:3) (")));
        }
        assert_eq!(frame_name("a;b\nc "), "a,b c");
    }
}

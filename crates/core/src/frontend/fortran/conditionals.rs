//! Preprocessor conditionals that the instrumented file's compilation
//! decides: it is compiled with OpenMP, so `_OPENMP` is defined. Their
//! branches not taken and their own lines are blanked in the text
//! tree-sitter-fortran reads, so that a construct the branches split
//! (`#if !defined(_OPENMP)` around an `IF ... THEN`, another around its
//! `END IF`) parses as it is compiled. A conditional that is not decided,
//! one with a continued line, or one whose untaken branches hold an OpenMP
//! directive is left as it is; offsets and lines never change.

use super::lines::{LineKind, Scan};
use crate::frontend::lexical::expression::{self, Known, Truth};
use std::borrow::Cow;

/// One `#if` group: the lines it is made of (`#if`, `#elif`, `#else`,
/// `#endif`), whether each branch is taken, and whether it is decided.
struct Group {
    lines: Vec<usize>,
    taken: Vec<bool>,
    decided: bool,
    /// A branch before this one is taken: the rest are not.
    settled: bool,
}

impl Group {
    fn branch(&mut self, line: usize, truth: Truth) {
        self.lines.push(line);
        if self.settled {
            self.taken.push(false);
            return;
        }
        match truth {
            Truth::True => {
                self.taken.push(true);
                self.settled = true;
            }
            Truth::False => self.taken.push(false),
            Truth::Unknown => {
                self.taken.push(false);
                self.decided = false;
            }
        }
    }
}

/// The text the grammar reads: the file with the decided conditionals'
/// untaken branches and lines blanked (line ends kept).
pub(super) struct Decided<'b> {
    /// Borrowed when there is nothing to blank.
    pub text: Cow<'b, [u8]>,
    /// The lines blanked, ascending.
    pub blanked: Vec<usize>,
}

pub(super) fn blank_decided<'b>(bytes: &'b [u8], scan: &Scan) -> Decided<'b> {
    let known = Known { cplusplus: false };
    let mut open: Vec<Group> = Vec::new();
    let mut blanked: Option<Vec<u8>> = None;
    let mut blanked_lines = Vec::new();
    for (index, (line, kind)) in scan.lines.iter().zip(&scan.kinds).enumerate() {
        if *kind != LineKind::Preprocessor {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes[line.start..line.end]);
        let text = text.trim();
        let Some(rest) = text.strip_prefix('#') else {
            continue;
        };
        let rest = rest.trim_start();
        let name_end = rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        let (name, argument) = (&rest[..name_end], rest[name_end..].trim());
        let continued = text.ends_with('\\');
        let condition = |truth: Truth| if continued { Truth::Unknown } else { truth };
        match name {
            "if" | "ifdef" | "ifndef" => {
                let truth = match name {
                    "if" => expression::evaluate(argument, known),
                    "ifdef" => expression::defined(argument, known),
                    _ => not(expression::defined(argument, known)),
                };
                let mut group = Group {
                    lines: Vec::new(),
                    taken: Vec::new(),
                    decided: true,
                    settled: false,
                };
                group.branch(index, condition(truth));
                open.push(group);
            }
            "elif" => {
                if let Some(group) = open.last_mut() {
                    group.branch(index, condition(expression::evaluate(argument, known)));
                }
            }
            "else" => {
                if let Some(group) = open.last_mut() {
                    group.branch(index, Truth::True);
                }
            }
            "endif" => {
                let Some(mut group) = open.pop() else {
                    continue;
                };
                group.lines.push(index);
                if group.decided && !directive_untaken(scan, &group) {
                    let out = blanked.get_or_insert_with(|| bytes.to_vec());
                    blanked_lines.extend(blank_group(out, scan, &group));
                }
            }
            _ => {}
        }
    }
    // Groups are blanked as they close, an inner one before (and maybe
    // within a branch of) the one around it.
    blanked_lines.sort_unstable();
    blanked_lines.dedup();
    Decided {
        text: match blanked {
            Some(out) => Cow::Owned(out),
            None => Cow::Borrowed(bytes),
        },
        blanked: blanked_lines,
    }
}

fn not(truth: Truth) -> Truth {
    match truth {
        Truth::True => Truth::False,
        Truth::False => Truth::True,
        Truth::Unknown => Truth::Unknown,
    }
}

/// The lines of each untaken branch of `group`, after its opening line.
fn untaken_lines(group: &Group) -> impl Iterator<Item = usize> + '_ {
    (0..group.taken.len())
        .filter(|&b| !group.taken[b])
        .flat_map(|b| group.lines[b] + 1..group.lines[b + 1])
}

fn directive_untaken(scan: &Scan, group: &Group) -> bool {
    untaken_lines(group).any(|line| scan.kinds[line] == LineKind::Directive)
}

/// Blanks the lines of `group` and of its untaken branches; returns them.
fn blank_group(out: &mut [u8], scan: &Scan, group: &Group) -> Vec<usize> {
    let lines: Vec<usize> = group
        .lines
        .iter()
        .copied()
        .chain(untaken_lines(group))
        .collect();
    for &line in &lines {
        let span = scan.lines[line];
        out[span.start..span.end].fill(b' ');
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blanked(text: &str) -> String {
        let scan = super::super::lines::scan(text.as_bytes(), false);
        String::from_utf8(blank_decided(text.as_bytes(), &scan).text.into_owned()).unwrap()
    }

    #[test]
    fn decided_branches_are_blanked_and_the_rest_kept() {
        let text = "do i = 1, n\n#if !defined(_OPENMP)\n  if (a) then\n#endif\n  x = 1\n#ifndef _OPENMP\n  end if\n#endif\nend do\n";
        let out = blanked(text);
        assert_eq!(out.len(), text.len());
        assert_eq!(
            out.lines().map(str::trim).collect::<Vec<_>>(),
            ["do i = 1, n", "", "", "", "x = 1", "", "", "", "end do"]
        );
        let taken = "#ifdef _OPENMP\n  a = 1\n#elif defined(X)\n  a = 2\n#else\n  a = 3\n#endif\n";
        let out = blanked(taken);
        assert_eq!(
            out.lines().map(str::trim).collect::<Vec<_>>(),
            ["", "a = 1", "", "", "", "", ""]
        );
    }

    #[test]
    fn undecided_or_directive_holding_conditionals_are_kept() {
        for text in [
            "#if defined(__INTEL_COMPILER)\n  a = 1\n#endif\n",
            "#if defined(X) || \\\n    defined(_OPENMP)\n  a = 1\n#endif\n",
            "#ifndef _OPENMP\n!$omp barrier\n#endif\n",
        ] {
            assert_eq!(blanked(text), text);
        }
    }
}

//! Filters in Score-P's filter-file syntax (`--filter=FILE`): which
//! regions to leave exactly as written. A file holds blocks of rules,
//!
//! ```text
//! SCOREP_REGION_NAMES_BEGIN
//!   EXCLUDE *
//!   INCLUDE main solve*
//!   EXCLUDE MANGLED _Z4tinyi
//! SCOREP_REGION_NAMES_END
//! SCOREP_FILE_NAMES_BEGIN
//!   EXCLUDE */vendor/*
//! SCOREP_FILE_NAMES_END
//! ```
//!
//! each rule `INCLUDE` or `EXCLUDE` followed by patterns (`*`, `?` and
//! `[...]` wildcards, as the shell matches them, `*` across `/` too) until
//! the next keyword; `#` starts a comment (`\#` is a literal `#`). Within a
//! block the last rule that matches decides; a region is left alone when
//! its file or its name is excluded. Region names are matched as pomp
//! names regions: a function by its qualified name (`ns::Class::method`),
//! its mangled name where it is known (`MANGLED`: a C function's own
//! name), an OpenMP construct or user region by its label (`parallel for in
//! solve (app.c:12)`) or by `FILE:LINE` of its directive (`app.c:12`, the
//! file as given or by its last path component), a user region by its name
//! too.

use std::path::Path;

/// The rules of a filter file, in the order written.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Filter {
    rules: Vec<Rule>,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
struct Rule {
    block: Block,
    include: bool,
    /// Matches a function's mangled name rather than its name.
    mangled: bool,
    pattern: String,
    #[serde(skip)]
    compiled: glob::Pattern,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
enum Block {
    Regions,
    Files,
}

impl Block {
    fn begin(self) -> &'static str {
        match self {
            Block::Regions => "SCOREP_REGION_NAMES_BEGIN",
            Block::Files => "SCOREP_FILE_NAMES_BEGIN",
        }
    }

    fn end(self) -> &'static str {
        match self {
            Block::Regions => "SCOREP_REGION_NAMES_END",
            Block::Files => "SCOREP_FILE_NAMES_END",
        }
    }
}

/// What a region is called, for matching against a filter's patterns.
#[derive(Clone, Debug, Default)]
pub struct RegionNames<'a> {
    /// Every name the region answers to.
    pub names: Vec<String>,
    /// The function's symbol, when it is known.
    pub mangled: Option<&'a str>,
}

impl Filter {
    /// Read a filter file; an error names the file and line.
    pub fn read(path: &Path) -> Result<Filter, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read filter {}: {e}", path.display()))?;
        Filter::parse(&text, &path.display().to_string())
    }

    /// Parse a filter file's text; `origin` names it in errors
    /// (`origin:LINE: what is wrong`).
    pub fn parse(text: &str, origin: &str) -> Result<Filter, String> {
        let mut rules = Vec::new();
        let mut block: Option<(Block, usize)> = None;
        // The rule the patterns that follow belong to: include, mangled.
        let mut rule: Option<(bool, bool, usize)> = None;
        let mut patterns_of_rule = 0;
        let fail = |line: usize, message: String| Err(format!("{origin}:{line}: {message}"));
        for (number, line) in text.lines().enumerate() {
            let number = number + 1;
            for word in words(line) {
                let keyword = word.as_str();
                let opened = [Block::Regions, Block::Files]
                    .into_iter()
                    .find(|b| b.begin() == keyword);
                let closed = [Block::Regions, Block::Files]
                    .into_iter()
                    .find(|b| b.end() == keyword);
                if opened.is_some()
                    || closed.is_some()
                    || keyword == "INCLUDE"
                    || keyword == "EXCLUDE"
                {
                    if let Some((include, _, at)) = rule.filter(|_| patterns_of_rule == 0) {
                        let which = if include { "INCLUDE" } else { "EXCLUDE" };
                        return fail(at, format!("{which} without a pattern"));
                    }
                }
                match (keyword, opened, closed, block) {
                    (_, Some(new), _, None) => {
                        block = Some((new, number));
                        rule = None;
                    }
                    (_, Some(new), _, Some((open, _))) => {
                        return fail(
                            number,
                            format!(
                                "{} inside a block opened by {}; close it with {} first",
                                new.begin(),
                                open.begin(),
                                open.end()
                            ),
                        );
                    }
                    (_, _, Some(end), Some((open, _))) if end == open => {
                        block = None;
                        rule = None;
                    }
                    (_, _, Some(end), Some((open, _))) => {
                        return fail(
                            number,
                            format!(
                                "{} closes no block: the block open is {}, closed by {}",
                                end.end(),
                                open.begin(),
                                open.end()
                            ),
                        );
                    }
                    (_, _, Some(end), None) => {
                        return fail(number, format!("{} without {}", end.end(), end.begin()));
                    }
                    (_, None, None, None) => {
                        return fail(
                            number,
                            format!("`{word}` outside a block; rules go between SCOREP_REGION_NAMES_BEGIN and SCOREP_REGION_NAMES_END, or SCOREP_FILE_NAMES_BEGIN and SCOREP_FILE_NAMES_END"),
                        );
                    }
                    ("INCLUDE" | "EXCLUDE", _, _, Some(_)) => {
                        rule = Some((keyword == "INCLUDE", false, number));
                        patterns_of_rule = 0;
                    }
                    ("MANGLED", _, _, Some((open, _))) => match rule {
                        Some((include, false, at))
                            if patterns_of_rule == 0 && open == Block::Regions =>
                        {
                            rule = Some((include, true, at));
                        }
                        _ if open == Block::Files => {
                            return fail(number, "MANGLED names regions, not files".into())
                        }
                        _ => {
                            return fail(
                                number,
                                "MANGLED belongs right after INCLUDE or EXCLUDE".into(),
                            )
                        }
                    },
                    (_, _, _, Some((open, _))) => {
                        let Some((include, mangled, _)) = rule else {
                            return fail(
                                number,
                                format!("pattern `{word}` before INCLUDE or EXCLUDE"),
                            );
                        };
                        let compiled = glob::Pattern::new(&word).map_err(|e| {
                            format!("{origin}:{number}: bad pattern `{word}`: {}", e.msg)
                        })?;
                        patterns_of_rule += 1;
                        rules.push(Rule {
                            block: open,
                            include,
                            mangled,
                            pattern: word,
                            compiled,
                        });
                    }
                }
            }
        }
        if let Some((include, _, at)) = rule.filter(|_| patterns_of_rule == 0) {
            let which = if include { "INCLUDE" } else { "EXCLUDE" };
            return fail(at, format!("{which} without a pattern"));
        }
        if let Some((open, at)) = block {
            return fail(
                at,
                format!("{} is never closed by {}", open.begin(), open.end()),
            );
        }
        Ok(Filter { rules })
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Whether the rules exclude `file`: the last file rule matching its
    /// path as given, or made absolute, decides.
    pub fn excludes_file(&self, file: &Path) -> bool {
        let given = file.to_string_lossy();
        let absolute = std::path::absolute(file)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.decides(Block::Files, |rule| {
            rule.compiled.matches(&given) || rule.compiled.matches(&absolute)
        })
    }

    /// Whether the rules exclude a region called `region`, in `file`.
    pub fn excludes(&self, file: &Path, region: &RegionNames) -> bool {
        self.excludes_file(file)
            || self.decides(Block::Regions, |rule| match rule.mangled {
                true => region.mangled.is_some_and(|m| rule.compiled.matches(m)),
                false => region.names.iter().any(|n| rule.compiled.matches(n)),
            })
    }

    fn decides(&self, block: Block, matches: impl Fn(&Rule) -> bool) -> bool {
        (self.rules.iter().rev())
            .filter(|r| r.block == block)
            .find(|r| matches(r))
            .is_some_and(|r| !r.include)
    }
}

/// The words of a line, up to a comment: `#` starts one unless written
/// `\#`.
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'#') => {
                word.push('#');
                chars.next();
            }
            '#' => break,
            c if c.is_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The names an OpenMP construct or user region answers to: its label
/// and `FILE:LINE`, the file as given and by its last component.
pub fn construct_names(
    region_type: &str,
    name: Option<&str>,
    unit: Option<&str>,
    file: &Path,
    line: usize,
) -> Vec<String> {
    let path = file.to_string_lossy();
    let short = path.rsplit(['/', '\\']).next().unwrap_or(&path);
    let mut names = vec![
        pomp2::ctc::RegionName {
            region_type,
            code_kind: None,
            name,
            unit,
            place: Some((&path, line)),
        }
        .label(),
        format!("{path}:{line}"),
        format!("{short}:{line}"),
    ];
    names.extend(name.map(str::to_string));
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Filter, String> {
        Filter::parse(text, "f.filter")
    }

    fn function(name: &str) -> RegionNames<'_> {
        RegionNames {
            names: vec![name.to_string()],
            mangled: Some(name),
        }
    }

    #[test]
    fn later_rules_win_and_patterns_run_on_across_lines() {
        let filter = parse(
            "# keep only the solver\n\
             SCOREP_REGION_NAMES_BEGIN\n\
             \tEXCLUDE *   # everything\n\
             \tINCLUDE main solve_*\n\
             \t        ns::Grid::step\n\
             \tEXCLUDE solve_tiny?\n\
             SCOREP_REGION_NAMES_END\n",
        )
        .unwrap();
        let file = Path::new("app.cpp");
        let excluded = |n| filter.excludes(file, &function(n));
        assert!(!excluded("main"));
        assert!(!excluded("solve_big"));
        assert!(!excluded("ns::Grid::step"));
        assert!(excluded("solve_tiny1"));
        assert!(!excluded("solve_tiny12"));
        assert!(excluded("helper"));
    }

    #[test]
    fn files_mangled_names_brackets_and_escaped_hashes() {
        let filter = parse(
            "SCOREP_FILE_NAMES_BEGIN\n EXCLUDE */vendor/*\n INCLUDE */vendor/keep.c\nSCOREP_FILE_NAMES_END\n\
             SCOREP_REGION_NAMES_BEGIN\n EXCLUDE MANGLED _Z4tiny[a-z] f\\#1\nSCOREP_REGION_NAMES_END\n",
        )
        .unwrap();
        let plain = function("f");
        assert!(filter.excludes(Path::new("/src/vendor/lib.c"), &plain));
        assert!(!filter.excludes(Path::new("/src/vendor/keep.c"), &plain));
        assert!(!filter.excludes(Path::new("/src/app.c"), &plain));
        let tiny = RegionNames {
            names: vec!["tiny".into()],
            mangled: Some("_Z4tinyi"),
        };
        assert!(filter.excludes(Path::new("app.cpp"), &tiny));
        // MANGLED patterns match mangled names only.
        assert!(!filter.excludes(
            Path::new("app.cpp"),
            &function("_Z4tinyi").clone_without_mangled()
        ));
        assert!(filter.excludes(Path::new("a.c"), &function("f#1")));
    }

    #[test]
    fn constructs_answer_to_their_label_and_place() {
        let names = construct_names(
            "parallelfor",
            None,
            Some("solve"),
            Path::new("src/app.c"),
            12,
        );
        assert_eq!(
            names,
            [
                "parallel for in solve (app.c:12)",
                "src/app.c:12",
                "app.c:12"
            ]
        );
        let filter =
            parse("SCOREP_REGION_NAMES_BEGIN EXCLUDE app.c:12 SCOREP_REGION_NAMES_END").unwrap();
        let region = RegionNames {
            names,
            mangled: None,
        };
        assert!(filter.excludes(Path::new("src/app.c"), &region));
    }

    #[test]
    fn malformed_filters_are_refused_with_their_line() {
        let cases = [
            ("EXCLUDE foo", "f.filter:1: `EXCLUDE` outside a block"),
            (
                "SCOREP_REGION_NAMES_BEGIN\n foo\n",
                "f.filter:2: pattern `foo` before INCLUDE or EXCLUDE",
            ),
            (
                "SCOREP_REGION_NAMES_BEGIN\n EXCLUDE\nSCOREP_REGION_NAMES_END",
                "f.filter:2: EXCLUDE without a pattern",
            ),
            (
                "SCOREP_REGION_NAMES_BEGIN\n EXCLUDE f\n",
                "f.filter:1: SCOREP_REGION_NAMES_BEGIN is never closed",
            ),
            (
                "SCOREP_REGION_NAMES_BEGIN\nSCOREP_FILE_NAMES_END",
                "f.filter:2: SCOREP_FILE_NAMES_END closes no block",
            ),
            (
                "SCOREP_FILE_NAMES_BEGIN\n EXCLUDE MANGLED x\nSCOREP_FILE_NAMES_END",
                "f.filter:2: MANGLED names regions, not files",
            ),
            (
                "SCOREP_REGION_NAMES_BEGIN\n EXCLUDE a[b\nSCOREP_REGION_NAMES_END",
                "f.filter:2: bad pattern `a[b`",
            ),
            (
                "SCOREP_REGION_NAMES_BEGIN\nSCOREP_FILE_NAMES_BEGIN",
                "f.filter:2: SCOREP_FILE_NAMES_BEGIN inside a block",
            ),
        ];
        for (text, expected) in cases {
            let error = parse(text).unwrap_err();
            assert!(error.starts_with(expected), "{text:?}: {error}");
        }
    }

    impl RegionNames<'_> {
        fn clone_without_mangled(&self) -> Self {
            RegionNames {
                names: self.names.clone(),
                mangled: None,
            }
        }
    }
}

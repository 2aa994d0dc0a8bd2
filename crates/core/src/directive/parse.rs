//! Parsing a directive's text into a [`Directive`].

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::borrow::Cow;
use std::ops::{ControlFlow, Range};
use std::sync::LazyLock;

use super::syntax::{Clause, Directive, Sentinel};
use super::table::{table, ArgumentUse, ClauseSpec, DirectiveSpec};
use crate::language::Language;

/// Why a directive, or part of it, could not be taken as the table
/// describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// A name the table does not know: a newer specification's, an
    /// implementation's, or a typo. The compiler decides what it means.
    Unknown,
    /// Text that breaks OpenMP's syntax or the table's rules, which every
    /// compiler rejects.
    Invalid,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DirectiveError {
    pub message: String,
    /// Byte range of the offending text within the parsed directive text.
    pub span: Range<usize>,
    /// Advice below the message: the nearest known name.
    pub note: Option<String>,
    pub problem: Problem,
}

impl DirectiveError {
    fn new(message: impl Into<String>, span: Range<usize>) -> DirectiveError {
        DirectiveError {
            message: message.into(),
            span,
            note: None,
            problem: Problem::Invalid,
        }
    }

    fn unknown(message: impl Into<String>, span: Range<usize>, nearest: Option<&str>) -> Self {
        DirectiveError {
            message: message.into(),
            span,
            note: nearest.map(|name| format!("did you mean `{name}`?")),
            problem: Problem::Unknown,
        }
    }

    /// The same error, its span moved by `offset` bytes: for text parsed
    /// out of a clause's argument.
    fn shifted(mut self, offset: usize) -> DirectiveError {
        self.span = self.span.start + offset..self.span.end + offset;
        self
    }
}

/// A directive of the table, and what in it the table does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub directive: Directive,
    /// Clauses, and directives named in `apply` clauses, that the table
    /// does not know ([`Problem::Unknown`]). They stay in the directive as
    /// written.
    pub unknown: Vec<DirectiveError>,
}

/// Parses `text`, the directive after its sentinel with continuation lines
/// joined, into its canonical name, argument and clauses, and checks it
/// against the directive table.
///
/// An unknown directive name is an error of [`Problem::Unknown`]; unknown
/// clauses are kept and listed in [`Parsed::unknown`].
pub fn parse_directive(
    text: &str,
    sentinel: Sentinel,
    language: Language,
) -> Result<Parsed, DirectiveError> {
    parse(text, sentinel, language, false)
}

/// Parses the directive of a C++ `[[omp::decl(...)]]` attribute. It
/// applies to the declaration the attribute belongs to, which stands for
/// the list a directive such as `threadprivate(x)` names otherwise, so the
/// argument may be left out.
pub fn parse_declaration_attribute(
    text: &str,
    language: Language,
) -> Result<Parsed, DirectiveError> {
    parse(text, Sentinel::Omp, language, true)
}

fn parse(
    text: &str,
    sentinel: Sentinel,
    language: Language,
    argument_implied: bool,
) -> Result<Parsed, DirectiveError> {
    let syntax = if language.is_fortran() {
        Syntax::Fortran
    } else {
        Syntax::C
    };
    let mut scanner = Scanner {
        text,
        pos: 0,
        syntax,
    };
    let (spec, name_span) = directive_name(&mut scanner, sentinel, language)?;

    scanner.skip_trivia()?;
    let mut argument = None;
    if scanner.peek() == Some(b'(') {
        let inner = scanner.parenthesised()?;
        if spec.argument == ArgumentUse::None {
            let span = inner.start - 1..inner.end + 1;
            return Err(DirectiveError::new(
                format!("`{}` takes no parenthesised argument", spec.spelling()),
                span,
            ));
        }
        argument = Some(text[inner].trim().to_string());
    } else if spec.argument == ArgumentUse::Required && !argument_implied {
        return Err(DirectiveError::new(
            format!(
                "`{}` needs a parenthesised argument after its name",
                spec.spelling()
            ),
            name_span,
        ));
    }

    let clauses = clause_list(&mut scanner)?;
    let spec = table()
        .forms_of(spec.spelling())
        .find(|form| {
            clauses
                .iter()
                .any(|c| form.selected_by.iter().any(|s| *s == c.clause.name))
        })
        .unwrap_or(spec);
    let mut unknown = Vec::new();
    for clause in &clauses {
        check_clause(spec, clause, language, &mut unknown)?;
    }

    Ok(Parsed {
        directive: Directive::new(
            sentinel,
            spec.name.as_str(),
            argument,
            clauses.into_iter().map(|c| c.clause).collect(),
        ),
        unknown,
    })
}

/// Matches the longest run of words that names a directive, and leaves the
/// scanner after it.
fn directive_name(
    scanner: &mut Scanner,
    sentinel: Sentinel,
    language: Language,
) -> Result<(&'static DirectiveSpec, Range<usize>), DirectiveError> {
    let fortran = language.is_fortran();
    let mut words: Vec<Range<usize>> = Vec::new();
    while words.len() < *MAX_NAME_WORDS {
        scanner.skip_trivia()?;
        match scanner.word() {
            Some(w) => words.push(w),
            None => break,
        }
    }
    let Some(first) = words.first().cloned() else {
        let at = scanner.pos;
        let span = at..(at + 1).min(scanner.text.len()).max(at);
        return Err(DirectiveError::new("expected a directive name", span));
    };
    let text = scanner.text;
    // Only Fortran's words need a copy: C's are matched as written.
    let word = |r: &Range<usize>| -> Cow<'_, str> {
        let w = &text[r.clone()];
        if fortran {
            Cow::Owned(w.to_ascii_lowercase())
        } else {
            Cow::Borrowed(w)
        }
    };
    let written: Vec<Cow<str>> = words.iter().map(word).collect();
    let mut candidate_name = String::new();
    let family = match sentinel {
        Sentinel::Omp => "OpenMP",
        Sentinel::Pomp => "pomp",
    };

    for count in (1..=words.len()).rev() {
        let candidate = &written[..count];
        candidate_name.clear();
        for (index, word) in candidate.iter().enumerate() {
            if index > 0 && !fortran {
                candidate_name.push(' ');
            }
            candidate_name.push_str(word);
        }
        let found = if fortran {
            BLANK_FREE_NAMES
                .get(&candidate_name)
                .and_then(|name| table().directive(name))
        } else {
            table()
                .directive(&candidate_name)
                .filter(|d| d.form_of.is_none())
        };
        let Some(spec) = found else { continue };
        let span = first.start..words[count - 1].end;
        // A known name followed by the name of a construct that is no
        // clause of it: a compound directive the table does not know
        // (`target parallel masked`), not that directive with a clause.
        let compound_words = written[count..]
            .iter()
            .take_while(|w| COMPOUND_LEAF_WORDS.contains(w.as_ref()) && !accepts(spec, w))
            .count();
        if compound_words > 0 {
            let end = words[count + compound_words - 1].end;
            return Err(DirectiveError::unknown(
                format!(
                    "unknown {family} directive `{}`",
                    written[..count + compound_words].join(" ")
                ),
                first.start..end,
                None,
            ));
        }
        if !spec.is_for(language) {
            let (this, other) = if fortran {
                ("Fortran", "C and C++")
            } else {
                ("C and C++", "Fortran")
            };
            return Err(DirectiveError::new(
                format!(
                    "`{}` is an OpenMP directive of {other}, not of {this}",
                    spec.name
                ),
                span,
            ));
        }
        if sentinel == Sentinel::Pomp && !spec.pomp {
            return Err(DirectiveError::unknown(
                format!("`{}` is not a pomp directive", spec.name),
                span,
                None,
            ));
        }
        scanner.pos = span.end;
        return Ok((spec, span));
    }

    // The written words joined, one, two, ... at a time.
    let joined: Vec<String> = (1..=written.len())
        .map(|n| written[..n].join(" "))
        .collect();
    let nearest = table()
        .directive
        .iter()
        .filter(|d| d.form_of.is_none() && d.is_for(language))
        .filter(|d| sentinel == Sentinel::Omp || d.pomp)
        .flat_map(|d| d.spellings())
        .filter_map(|name| {
            let name_words = name.split(' ').count();
            let compared = &joined[name_words.min(joined.len()) - 1];
            let distance = near_miss(compared, name)?;
            Some((distance, name_words, name))
        })
        .min_by_key(|&(distance, name_words, _)| (distance, std::cmp::Reverse(name_words)))
        .map(|(_, _, name)| name);
    // Words that begin a longer name (`end`, `declare`) belong to it.
    let named = written
        .iter()
        .enumerate()
        .take_while(|(i, _)| NAME_PREFIXES.contains(&written[..*i + 1].join(" ")))
        .count()
        + 1;
    let named = named.min(words.len());
    Err(DirectiveError::unknown(
        format!(
            "unknown {family} directive `{}`",
            text[first.start..words[named - 1].end]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        ),
        first.start..words[named - 1].end,
        nearest,
    ))
}

fn accepts(spec: &DirectiveSpec, clause: &str) -> bool {
    table().accepts(spec, clause)
}

/// A clause and where it stands in the directive text.
struct WrittenClause {
    clause: Clause,
    /// The clause name.
    name: Range<usize>,
    /// Where its (trimmed) argument begins.
    args_at: usize,
}

fn clause_list(scanner: &mut Scanner) -> Result<Vec<WrittenClause>, DirectiveError> {
    let fortran = scanner.syntax == Syntax::Fortran;
    let mut clauses = Vec::new();
    let mut comma: Option<usize> = None;
    loop {
        scanner.skip_trivia()?;
        let Some(next) = scanner.peek() else { break };
        if next == b',' {
            // OpenMP allows a comma before the first clause, too.
            if comma.is_some() {
                let at = scanner.pos;
                return Err(DirectiveError::new(
                    "expected a clause before `,`",
                    at..at + 1,
                ));
            }
            comma = Some(scanner.pos);
            scanner.pos += 1;
            continue;
        }
        let Some(name_span) = scanner.word() else {
            let at = scanner.pos;
            let end = at + scanner.text[at..].chars().next().map_or(1, char::len_utf8);
            let found = &scanner.text[at..end];
            let message = if found == ")" {
                "unbalanced `)`".to_string()
            } else {
                format!("unexpected `{found}`; expected a clause")
            };
            return Err(DirectiveError::new(message, at..end));
        };
        comma = None;
        let written = &scanner.text[name_span.clone()];
        let spelled = match fortran {
            true => Cow::Owned(written.to_ascii_lowercase()),
            false => Cow::Borrowed(written),
        };
        let name: Cow<'static, str> = match table().clause_name(&spelled) {
            Some(known) => Cow::Borrowed(known),
            None => Cow::Owned(spelled.into_owned()),
        };
        scanner.skip_trivia()?;
        let mut args_at = name_span.end;
        let args = if scanner.peek() == Some(b'(') {
            let inner = scanner.parenthesised()?;
            let written = &scanner.text[inner.clone()];
            args_at = inner.start + (written.len() - written.trim_start().len());
            Some(Cow::Owned(written.trim().to_string()))
        } else {
            None
        };
        clauses.push(WrittenClause {
            clause: Clause { name, args },
            name: name_span,
            args_at,
        });
    }
    if let Some(at) = comma {
        return Err(DirectiveError::new(
            "expected a clause after `,`",
            at..at + 1,
        ));
    }
    Ok(clauses)
}

/// Checks one clause against the directive's table entry. A clause the
/// table does not know is noted in `unknown` and kept; a known clause in
/// the wrong place is an error.
fn check_clause(
    spec: &DirectiveSpec,
    written: &WrittenClause,
    language: Language,
    unknown: &mut Vec<DirectiveError>,
) -> Result<(), DirectiveError> {
    let (clause, span) = (&written.clause, written.name.clone());
    let t = table();
    let known = t.clause(&clause.name).filter(|c| c.is_for(language));
    if let Some(known) = known.filter(|_| t.accepts(spec, &clause.name)) {
        if known.list && clause.args.as_deref().is_none_or(str::is_empty) {
            return Err(DirectiveError::new(
                format!("`{}` needs a parenthesised list", clause.name),
                span,
            ));
        }
        if clause.name == "apply" {
            let args = clause.args.as_deref().unwrap_or("");
            let args_at = written.args_at;
            let applied = parse_apply(args, language).map_err(|e| e.shifted(args_at))?;
            unknown.extend(applied.unknown.into_iter().map(|e| e.shifted(args_at)));
        }
        return check_arguments(known, clause, language).map_err(|e| e.shifted(written.args_at));
    }

    // A word that is not a clause here may be a misspelt clause, or the
    // rest of a longer (combined) directive name.
    let name_words = spec.name.split(' ').count();
    let longer_directive = t
        .directive
        .iter()
        .filter(|d| d.form_of.is_none() && d.is_for(language))
        .filter(|d| {
            (d.name.strip_prefix(spec.name.as_str())).is_some_and(|rest| rest.starts_with(' '))
        })
        .filter_map(|d| {
            let next_word = d.name.split(' ').nth(name_words)?;
            let distance = near_miss(&clause.name, next_word)?;
            Some((distance, d.name.len(), d.name.as_str()))
        })
        .min()
        .map(|(distance, _, name)| (distance, name));
    let similar_clause = similar_clause(spec, &clause.name, language);
    let nearest = match (longer_directive, similar_clause) {
        (Some(d), Some(c)) => Some(if c.0 < d.0 { c.1 } else { d.1 }),
        (d, c) => d.or(c).map(|(_, name)| name),
    };

    if t.clause(&clause.name).is_some() {
        let mut error = DirectiveError::new(
            format!("`{}` is not a clause of `{}`", clause.name, spec.spelling()),
            span,
        );
        error.note = nearest.map(|name| format!("did you mean `{name}`?"));
        return Err(error);
    }
    // A near miss is a typo, refused as one; any other name may be a
    // macro the compiler expands, and is kept.
    if let Some(nearest) = nearest {
        let mut error = DirectiveError::new(format!("unknown clause `{}`", clause.name), span);
        error.note = Some(format!("did you mean `{nearest}`?"));
        return Err(error);
    }
    unknown.push(DirectiveError::unknown(
        format!("unknown clause `{}`", clause.name),
        span,
        nearest,
    ));
    Ok(())
}

/// Checks the words of a known clause's argument against the table: a
/// word before the top-level `:` must be one of the clause's modifiers
/// (or reduction operators), the first word after it one of its
/// keywords. A near miss of one is a typo; another name may be a macro
/// (or a user's reduction), and is let be. Spans are relative to the
/// argument.
fn check_arguments(
    spec: &ClauseSpec,
    clause: &Clause,
    language: Language,
) -> Result<(), DirectiveError> {
    if spec.modifiers.is_empty() && spec.keywords.is_empty() && spec.operators.is_empty() {
        return Ok(());
    }
    let args = clause.args.as_deref().unwrap_or("");
    let (prefix, rest_at) = match top_level_colon(args).filter(|_| !spec.modifier_after) {
        Some(colon) => (Some(&args[..colon]), colon + 1),
        None => (None, 0),
    };
    let fortran = language.is_fortran();
    let known = |word: &str, words: &[String]| {
        words
            .iter()
            .any(|w| w == word || (fortran && w.eq_ignore_ascii_case(word)))
    };
    if let Some(prefix) = prefix {
        let mut at = 0;
        for item in split_top_level(prefix) {
            let item_at = at;
            at += item.len() + 1;
            let word = item.trim();
            // `mapper(id)`, `iterator(i = 0:n)`: the name is what is checked.
            let word = word.split('(').next().unwrap_or_default().trim_end();
            if word.is_empty() || known(word, &spec.modifiers) || known(word, &spec.operators) {
                continue;
            }
            let start = item_at + (item.len() - item.trim_start().len());
            let span = start..start + word.len();
            let candidates = spec.modifiers.iter().chain(&spec.operators);
            if let Some(nearest) = nearest_word(word, candidates, fortran) {
                return Err(typo(word, &clause.name, nearest, span));
            }
            if !spec.operators.is_empty() && !is_name(word) {
                return Err(DirectiveError::new(
                    format!("`{word}` is no reduction identifier of `{}`", clause.name),
                    span,
                ));
            }
        }
    }
    let rest = &args[rest_at..];
    let first = split_top_level(rest).into_iter().next().unwrap_or_default();
    let word = first.trim();
    if spec.keywords.is_empty() || word.is_empty() || known(word, &spec.keywords) {
        return Ok(());
    }
    let start = rest_at + (first.len() - first.trim_start().len());
    match nearest_word(word, spec.keywords.iter(), fortran) {
        Some(nearest) => Err(typo(word, &clause.name, nearest, start..start + word.len())),
        None => Ok(()),
    }
}

/// The word of `candidates` that `word` is a near miss of.
fn nearest_word<'w>(
    word: &str,
    candidates: impl Iterator<Item = &'w String>,
    fortran: bool,
) -> Option<&'w str> {
    let written = match fortran {
        true => word.to_ascii_lowercase(),
        false => word.to_string(),
    };
    candidates
        .filter_map(|c| Some((near_miss(&written, c)?, c.as_str())))
        .min()
        .map(|(_, c)| c)
}

/// A word of a clause's argument that is a typo of `nearest`.
fn typo(word: &str, clause: &str, nearest: &str, span: Range<usize>) -> DirectiveError {
    let mut error = DirectiveError::new(format!("unknown `{clause}` argument `{word}`"), span);
    error.note = Some(format!("did you mean `{nearest}`?"));
    error
}

/// Whether `word` names a reduction a user may declare: an identifier, a
/// qualified C++ name (`ns::add`) or a Fortran defined operator (`.add.`).
fn is_name(word: &str) -> bool {
    let identifier = |w: &str| {
        w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let defined_operator = word
        .strip_prefix('.')
        .and_then(|w| w.strip_suffix('.'))
        .is_some_and(|w| w.chars().all(|c| c.is_ascii_alphabetic()) && !w.is_empty());
    let qualified = word.trim_start_matches("::").split("::").all(identifier);
    defined_operator || qualified
}

/// The argument of an `apply` clause:
/// `[modifier[(index)]:] directive-specification[, directive-specification ...]`.
/// Each directive must transform loops (or be `nothing`, which leaves a
/// generated loop alone); it may carry `apply` clauses of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Apply {
    /// Which of the generated loops: `grid`, `intratile(2)`, `fused`, ...
    pub modifier: Option<String>,
    pub directives: Vec<Directive>,
    /// What the table does not know in the applied directives.
    pub unknown: Vec<DirectiveError>,
}

/// Parses the argument of an `apply` clause (see [`Apply`]). Spans in
/// errors are relative to `args`.
pub fn parse_apply(args: &str, language: Language) -> Result<Apply, DirectiveError> {
    let (modifier, list_at) = match top_level_colon(args) {
        Some(colon) => (Some(args[..colon].trim().to_string()), colon + 1),
        None => (None, 0),
    };
    let mut apply = Apply {
        modifier,
        directives: Vec::new(),
        unknown: Vec::new(),
    };
    let mut at = list_at;
    for item in split_top_level(&args[list_at..]) {
        let item_at = at;
        at += item.len() + 1;
        if item.trim().is_empty() {
            let span = item_at..(item_at + item.len()).max(item_at + 1);
            return Err(DirectiveError::new(
                "expected a loop-transforming directive in `apply`",
                span,
            ));
        }
        let parsed = match parse(item, Sentinel::Omp, language, false) {
            Ok(parsed) => parsed,
            Err(e) if e.problem == Problem::Unknown => {
                // A transformation of a newer specification: the compiler
                // applies it; pomp never inserts code inside the loops a
                // transformation generates.
                apply.unknown.push(e.shifted(item_at));
                continue;
            }
            Err(e) => return Err(e.shifted(item_at)),
        };
        let spec = parsed.directive.spec();
        if !(spec.loop_transformation || spec.name == "nothing") {
            let name_at = item.len() - item.trim_start().len();
            let span = item_at + name_at..item_at + item.trim_end().len();
            return Err(DirectiveError::new(
                format!(
                    "`{}` transforms no loops and cannot be applied to a generated loop",
                    spec.spelling()
                ),
                span,
            ));
        }
        apply
            .unknown
            .extend(parsed.unknown.into_iter().map(|e| e.shifted(item_at)));
        apply.directives.push(parsed.directive);
    }
    Ok(apply)
}

/// How far name matching looks ahead: the longest directive name in words,
/// and one more to see that a compound name goes on.
static MAX_NAME_WORDS: LazyLock<usize> = LazyLock::new(|| {
    table()
        .directive
        .iter()
        .flat_map(|d| d.spellings())
        .map(|name| name.split(' ').count())
        .max()
        .unwrap_or(1)
        + 1
});

/// The first words of the leaves that follow another in a compound
/// directive (`for` in `parallel for`): after a directive name, such a word
/// that is no clause of it continues a compound name.
static COMPOUND_LEAF_WORDS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    table()
        .directive
        .iter()
        .flat_map(|d| d.leaves.iter().skip(1))
        .filter_map(|leaf| leaf.split(' ').next())
        .collect()
});

/// Every run of leading words of a directive name that is shorter than
/// the name (`end`, `end parallel`, `declare`): the words an unknown
/// directive's name is reported with.
static NAME_PREFIXES: LazyLock<HashSet<String>> = LazyLock::new(|| {
    table()
        .directive
        .iter()
        .flat_map(|d| d.spellings())
        .flat_map(|name| {
            let words: Vec<&str> = name.split(' ').collect();
            (1..words.len()).map(move |n| words[..n].join(" "))
        })
        .collect()
});

/// Fortran directive names with their blanks removed: fixed form lets
/// `enddo` and `paralleldo` stand for `end do` and `parallel do`.
static BLANK_FREE_NAMES: LazyLock<HashMap<String, &'static str>> = LazyLock::new(|| {
    table()
        .directive
        .iter()
        .filter(|d| d.form_of.is_none())
        .flat_map(|d| d.spellings().map(|s| (s.replace(' ', ""), d.name.as_str())))
        .collect()
});

/// The clause of `spec` that `name` is most likely a misspelling of, and
/// how far it is from it.
pub(super) fn similar_clause<'t>(
    spec: &'t DirectiveSpec,
    name: &str,
    language: Language,
) -> Option<(usize, &'t str)> {
    let t = table();
    t.clauses_of(spec)
        .into_iter()
        .filter_map(|c| Some((near_miss(name, c)?, c)))
        .filter(|(_, c)| t.clause(c).is_some_and(|c| c.is_for(language)))
        .min()
}

/// How many edits make `written` into `target`, when they are few enough
/// for a typo of it. The distance is the optimal string alignment: a swap
/// of adjacent characters, the commonest typo in directive names, counts
/// as one edit.
pub(super) fn near_miss(written: &str, target: &str) -> Option<usize> {
    let most = (target.len() / 3).max(1);
    // An edit changes the length by one character at most: an unknown
    // clause (a macro a code base writes on every directive) is compared
    // with every clause of its directive, and most differ in length.
    if written.chars().count().abs_diff(target.chars().count()) > most {
        return None;
    }
    // Each edit but a swap changes by one how often some character occurs,
    // so the counts bound the distance from below, cheaply: most names
    // are not compared further.
    let mut counts = [0i32; 128];
    for c in written.chars() {
        counts[(c as usize).min(127)] += 1;
    }
    for c in target.chars() {
        counts[(c as usize).min(127)] -= 1;
    }
    let surplus: i32 = counts.iter().filter(|&&n| n > 0).sum();
    let deficit: i32 = -counts.iter().filter(|&&n| n < 0).sum::<i32>();
    if surplus.max(deficit) as usize > most {
        return None;
    }
    let distance = strsim::osa_distance(written, target);
    (distance <= most).then_some(distance)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Syntax {
    /// C and C++: `/* */` and `//` comments, backslash escapes.
    C,
    /// Fortran: `!` comments, doubled quotes inside strings.
    Fortran,
    /// Clause arguments of either language, already known to be balanced:
    /// only `/* */` comments are skipped, since `//` is Fortran's
    /// concatenation operator.
    Args,
}

enum WalkError {
    Unclosed(usize),
    Unbalanced(usize),
    Mismatched { close: usize },
    UnterminatedString(usize),
    UnterminatedComment(usize),
}

/// Calls `visit(position, byte, depth)` for every byte of `s` outside string
/// literals and comments. `depth` is the number of brackets open around the
/// byte; a bracket itself sees the depth outside it.
fn walk<B>(
    s: &str,
    syntax: Syntax,
    mut visit: impl FnMut(usize, u8, usize) -> ControlFlow<B>,
) -> Result<Option<B>, WalkError> {
    let bytes = s.as_bytes();
    let mut open: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        // In C++ a quote after a digit separates digit groups (`1'000`).
        let digit_separator =
            c == b'\'' && syntax != Syntax::Fortran && i > 0 && bytes[i - 1].is_ascii_digit();
        match c {
            b'"' | b'\'' if !digit_separator => {
                let start = i;
                i += 1;
                loop {
                    match bytes.get(i) {
                        None => return Err(WalkError::UnterminatedString(start)),
                        Some(b'\\') if syntax != Syntax::Fortran => i += 2,
                        Some(&q) if q == c => {
                            if syntax == Syntax::Fortran && bytes.get(i + 1) == Some(&c) {
                                i += 2;
                            } else {
                                break;
                            }
                        }
                        Some(_) => i += 1,
                    }
                }
            }
            b'/' if syntax != Syntax::Fortran && bytes.get(i + 1) == Some(&b'*') => {
                match s[i + 2..].find("*/") {
                    Some(end) => i = i + 2 + end + 1,
                    None => return Err(WalkError::UnterminatedComment(i)),
                }
            }
            b'/' if syntax == Syntax::C && bytes.get(i + 1) == Some(&b'/') => {
                i = line_end(s, i);
                continue;
            }
            b'!' if syntax == Syntax::Fortran => {
                i = line_end(s, i);
                continue;
            }
            b'(' | b'[' | b'{' => {
                if let ControlFlow::Break(b) = visit(i, c, open.len()) {
                    return Ok(Some(b));
                }
                open.push(i);
            }
            b')' | b']' | b'}' => {
                let Some(opener) = open.pop() else {
                    return Err(WalkError::Unbalanced(i));
                };
                let expected = match bytes[opener] {
                    b'(' => b')',
                    b'[' => b']',
                    _ => b'}',
                };
                if c != expected {
                    return Err(WalkError::Mismatched { close: i });
                }
                if let ControlFlow::Break(b) = visit(i, c, open.len()) {
                    return Ok(Some(b));
                }
            }
            _ => {
                if let ControlFlow::Break(b) = visit(i, c, open.len()) {
                    return Ok(Some(b));
                }
            }
        }
        i += 1;
    }
    match open.last() {
        Some(&opener) => Err(WalkError::Unclosed(opener)),
        None => Ok(None),
    }
}

/// Where a line comment starting at `from` ends. Joined continuation lines
/// normally leave none, but a line break that remains ends the comment.
fn line_end(s: &str, from: usize) -> usize {
    s[from..].find('\n').map_or(s.len(), |i| from + i)
}

struct Scanner<'a> {
    text: &'a str,
    pos: usize,
    syntax: Syntax,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// Skips white space and comments, which separate words like blanks.
    fn skip_trivia(&mut self) -> Result<(), DirectiveError> {
        let rest = |s: &Self| &s.text[s.pos..];
        loop {
            let r = rest(self);
            if let Some(c) = r.chars().next().filter(|c| c.is_whitespace()) {
                self.pos += c.len_utf8();
            } else if (self.syntax == Syntax::Fortran && r.starts_with('!'))
                || (self.syntax == Syntax::C && r.starts_with("//"))
            {
                self.pos = line_end(self.text, self.pos);
            } else if self.syntax == Syntax::C && r.starts_with("/*") {
                let Some(end) = r[2..].find("*/") else {
                    return Err(DirectiveError::new(
                        "unterminated comment",
                        self.pos..self.pos + 2,
                    ));
                };
                self.pos += 2 + end + 2;
            } else {
                return Ok(());
            }
        }
    }

    /// A word of letters, digits and underscores, starting with a letter
    /// or underscore.
    fn word(&mut self) -> Option<Range<usize>> {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        if !bytes
            .get(start)
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        {
            return None;
        }
        let len = bytes[start..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
            .count();
        self.pos += len;
        Some(start..self.pos)
    }

    /// At an opening parenthesis: moves past its partner and returns the
    /// range strictly between the two.
    fn parenthesised(&mut self) -> Result<Range<usize>, DirectiveError> {
        let start = self.pos;
        let rest = &self.text[start..];
        let closed = walk(rest, self.syntax, |i, c, depth| {
            if c == b')' && depth == 0 {
                ControlFlow::Break(i)
            } else {
                ControlFlow::Continue(())
            }
        });
        let at = |i: usize| start + i..start + i + 1;
        let close = match closed {
            Ok(Some(close)) => close,
            Ok(None) => return Err(DirectiveError::new("unclosed `(`", at(0))),
            Err(WalkError::Unclosed(i)) => {
                let opener = rest.as_bytes()[i] as char;
                return Err(DirectiveError::new(format!("unclosed `{opener}`"), at(i)));
            }
            Err(WalkError::Unbalanced(i)) => {
                return Err(DirectiveError::new("unbalanced closing bracket", at(i)))
            }
            Err(WalkError::Mismatched { close }) => {
                let found = rest.as_bytes()[close] as char;
                return Err(DirectiveError::new(
                    format!("`{found}` does not match the open bracket"),
                    at(close),
                ));
            }
            Err(WalkError::UnterminatedString(i)) => {
                return Err(DirectiveError::new("unterminated string", at(i)))
            }
            Err(WalkError::UnterminatedComment(i)) => {
                return Err(DirectiveError::new(
                    "unterminated comment",
                    start + i..start + i + 2,
                ))
            }
        };
        self.pos = start + close + 1;
        Ok(start + 1..start + close)
    }
}

/// Reading a clause's arguments.
impl Clause {
    /// For clauses of the form `modifier: rest` (if, reduction, lastprivate,
    /// linear step aside), the modifier part and the rest. Splits only at a
    /// top-level single `:` (not `::`), so C++ scopes stay intact.
    pub fn modifier_split(&self) -> (Option<&str>, &str) {
        let args = self.args.as_deref().unwrap_or("");
        match top_level_colon(args) {
            Some(i) => (Some(args[..i].trim()), args[i + 1..].trim()),
            None => (None, args.trim()),
        }
    }

    /// For a clause written `[modifier:] item, item, ...`: its first item,
    /// and the clause with that item replaced by `replacement`, modifier
    /// and other items kept (`num_threads(strict: n, 2)` gives `n` and
    /// `num_threads(strict: pomp2_num_threads, 2)`).
    pub fn replace_first_item(&self, replacement: &str) -> (String, Clause) {
        let (modifier, items) = self.modifier_split();
        let mut items: Vec<String> = split_top_level(items)
            .into_iter()
            .map(|item| item.trim().to_string())
            .collect();
        let first = std::mem::replace(&mut items[0], replacement.to_string());
        let list = items.join(", ");
        let args = match modifier {
            Some(modifier) => format!("{modifier}: {list}"),
            None => list,
        };
        (first, Clause::new(self.name.clone(), Some(args)))
    }

    /// The variables a data-sharing clause lists, reduced to their base
    /// names (`a[0:n]` → `a`, `s.x` → `s`), without modifiers.
    pub fn list_items(&self) -> Vec<String> {
        list_items(self)
    }
}

/// Byte position of the first `:` in `s` outside brackets, strings and
/// comments that is neither half of a C++ `::` nor the `:` of a `? :`
/// conditional: the separator of `reduction(inscan, +: x)`.
pub fn top_level_colon(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut open_conditionals = 0usize;
    let mut scope_operator_at = None;
    walk(s, Syntax::Args, |i, c, depth| {
        if depth > 0 || scope_operator_at == Some(i) {
            return ControlFlow::Continue(());
        }
        match c {
            b'?' => open_conditionals += 1,
            b':' if bytes.get(i + 1) == Some(&b':') => scope_operator_at = Some(i + 1),
            b':' if open_conditionals > 0 => open_conditionals -= 1,
            b':' => return ControlFlow::Break(i),
            _ => {}
        }
        ControlFlow::Continue(())
    })
    .ok()
    .flatten()
}

/// `s` split at commas outside brackets, strings and comments: the items
/// of a clause list.
pub fn split_top_level(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let _ = walk(s, Syntax::Args, |i, c, depth| {
        if c == b',' && depth == 0 {
            parts.push(&s[start..i]);
            start = i + 1;
        }
        ControlFlow::<()>::Continue(())
    });
    parts.push(&s[start..]);
    parts
}

/// The base names of the variables a list clause names.
pub(crate) fn list_items(c: &Clause) -> Vec<String> {
    let Some(args) = c.args.as_deref() else {
        return Vec::new();
    };
    let spec = table().clause(&c.name);
    if spec.is_some_and(|s| !s.list) {
        return Vec::new();
    }
    let modifier_after = spec.is_some_and(|s| s.modifier_after);
    let colon = top_level_colon(args);
    let list = match colon {
        Some(i) if modifier_after => &args[..i],
        Some(i) => {
            // Doacross dependences name loop iterations, not variables.
            let modifier = args[..i].trim();
            if c.name == "depend" && (modifier == "sink" || modifier == "source") {
                return Vec::new();
            }
            &args[i + 1..]
        }
        None if c.name == "depend" => return Vec::new(),
        None => args,
    };
    let linear = c.name == "linear";
    split_top_level(list)
        .into_iter()
        .filter_map(|item| base_name(item, linear))
        .collect()
}

/// `a[0:n]` → `a`, `s.x` → `s`, `p->y` → `p`, `(a)` → `a`, `([n][m])p` → `p`,
/// `ns::v` stays; a Fortran `/common/` block is kept as written.
fn base_name(item: &str, linear: bool) -> Option<String> {
    let mut item = strip_block_comments(item);
    item = item.trim().to_string();
    if item.starts_with('/') {
        return Some(item);
    }
    loop {
        let trimmed = item.trim_start_matches(['*', '&']).trim();
        if !trimmed.starts_with('(') {
            item = trimmed.to_string();
            break;
        }
        let close = matching_close(trimmed)?;
        let inner = &trimmed[1..close];
        let after = trimmed[close + 1..].trim();
        item = if after.is_empty() {
            inner.trim().to_string()
        } else if inner.trim_start().starts_with('[') {
            // An array-shaping operator in front of a pointer.
            after.to_string()
        } else {
            break;
        };
    }
    if linear {
        for modifier in ["val", "ref", "uval"] {
            if let Some(rest) = item.strip_prefix(modifier) {
                let rest = rest.trim_start();
                if rest.starts_with('(') && matching_close(rest) == Some(rest.len() - 1) {
                    item = rest[1..rest.len() - 1].trim().to_string();
                    break;
                }
            }
        }
    }
    let name = leading_identifier(&item);
    let is_identifier = name
        .bytes()
        .find(|c| *c != b':')
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_');
    is_identifier.then(|| name.to_string())
}

fn strip_block_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        out.push(' ');
        rest = match rest[start + 2..].find("*/") {
            Some(end) => &rest[start + 2 + end + 2..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

fn matching_close(s: &str) -> Option<usize> {
    walk(s, Syntax::Args, |i, c, depth| {
        if c == b')' && depth == 0 {
            ControlFlow::Break(i)
        } else {
            ControlFlow::Continue(())
        }
    })
    .ok()
    .flatten()
}

/// The identifier `s` starts with, C++ scope qualifiers included.
fn leading_identifier(s: &str) -> &str {
    let bytes = s.as_bytes();
    let mut end = 0;
    loop {
        if s[end..].starts_with("::") {
            end += 2;
        }
        let len = bytes[end..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_' || **c == b'$')
            .count();
        if len == 0 {
            return s[..end].trim_end_matches(':');
        }
        end += len;
        if !s[end..].starts_with("::") {
            return &s[..end];
        }
    }
}

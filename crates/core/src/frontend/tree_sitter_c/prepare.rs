//! A file made ready for parsing: its directives found and parsed, its
//! conditionals decided where they can be, lock routines located, and the
//! text the grammar reads, with directives, line markers and code that is
//! not compiled masked by spaces (offsets and lines stay those of the
//! file). Directives and lock calls in a library's headers (system
//! headers and `omp.h`, in a preprocessed file) are left alone, as the
//! library wrote them.

use crate::directive::{DirectiveError, Parsed};
use crate::frontend::c_shared::{parse_raw, Parse, Scanned};
use crate::frontend::lexical::conditionals::{blank_bytes, Assignment, Conditionals};
use crate::frontend::lexical::scan::{self, PreprocessorLine, RawDirective, RawKind};
use crate::language::c::lex;
use crate::language::Language;
use crate::source::{Patchable, SourceFile, Span};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

pub(super) struct Prepared<'f> {
    pub file: &'f SourceFile,
    /// The directives in code that may be compiled, in order.
    pub directives: Vec<RawDirective>,
    /// Each directive parsed; `None` for those inside macros.
    pub parsed: Vec<Option<Result<Parsed, DirectiveError>>>,
    /// Every preprocessor line other than directives, in order.
    pub lines: Vec<PreprocessorLine>,
    /// The macros the file defines, each with whether some definition of
    /// it may expand to more than one expression (its body holds a `;` or
    /// a brace).
    pub macros: HashMap<String, bool>,
    /// Whether the file has pomp directives: user regions, whose exits
    /// matter, among them ([`Prepared::user_regions_within`] tells where).
    pub user_regions: bool,
    pub conditionals: Conditionals,
    /// Whole-word mentions of lock routines in code that may be compiled.
    pub lock_mentions: Vec<Span>,
    /// Where code uses a macro the grammar cannot know
    /// ([`scan::Scan::macro_uses`]), in the text the grammar reads given
    /// what it stands for: blanks, or a handler (in C++).
    macro_uses: Vec<scan::MacroUse>,
    /// What the grammar parses in the first configuration; patched in
    /// place, and put back, while another configuration is read.
    masked: RefCell<Patchable>,
    /// The directive lines `masked` holds as written, and the decided
    /// conditionals' lines and dead branches (each with its line), in
    /// order, each from a `#` that starts a line: the grammar's partial
    /// parses leave them out of the ranges they read, and the scans pass
    /// over them, as they would over blanks. Blanked, they would copy
    /// nearly every page of a mapped file, as most pages of a source dense
    /// with directives hold one, and those of `#else` branches too.
    passed_over: Vec<Span>,
    /// Whether `passed_over` was blanked after all, for a parse of the
    /// whole text ([`Prepared::whole_masked`]).
    all_blanked: Cell<bool>,
}

/// A directive's parse, by what it is parsed from.
type ParseKey = (Language, bool, u8, String);

/// The parses of one reading's directives, for the next reading of the
/// same buffer: after a keystroke nearly every directive reads as before.
/// A parse depends on the directive's text, sentinel, form and the
/// language alone.
#[derive(Default)]
pub struct Parses(std::collections::HashMap<ParseKey, Parse>);

impl Parses {
    /// Every directive of a reading parsed, each taken from `self` when
    /// the last reading parsed it, and `self` left holding this reading's
    /// parses only.
    fn parse_all(&mut self, directives: &[RawDirective], language: Language) -> Vec<Parse> {
        let mut earlier = std::mem::take(&mut self.0);
        (directives.iter())
            .map(|d| {
                let form = match d.kind {
                    RawKind::InMacro { .. } => 2,
                    RawKind::DeclarationAttribute => 1,
                    _ => 0,
                };
                let key = (language, d.pomp, form, d.text.clone());
                let parse = match (self.0.get(&key), earlier.remove(&key)) {
                    (Some(this_reading), _) => this_reading.clone(),
                    (None, Some(last_reading)) => last_reading,
                    (None, None) => parse_raw(d, language),
                };
                self.0.insert(key, parse.clone());
                parse
            })
            .collect()
    }
}

impl<'f> Prepared<'f> {
    /// `None` when nothing in the file can be instrumented.
    pub fn new(file: &'f SourceFile) -> Option<Prepared<'f>> {
        Prepared::reusing(file, None)
    }

    /// [`Prepared::new`], taking the parses of directives that `parses`
    /// holds from an earlier reading and leaving this reading's there.
    pub fn reusing(file: &'f SourceFile, parses: Option<&mut Parses>) -> Option<Prepared<'f>> {
        Prepared::reading(file, parses, false)
    }

    /// [`Prepared::reusing`] of a file read whether or not it holds
    /// directives or lock calls: its functions are regions too.
    pub fn whatever_it_holds(file: &'f SourceFile, parses: Option<&mut Parses>) -> Prepared<'f> {
        Prepared::reading(file, parses, true).expect("a file read whatever it holds is read")
    }

    fn reading(
        file: &'f SourceFile,
        parses: Option<&mut Parses>,
        always: bool,
    ) -> Option<Prepared<'f>> {
        let Scanned {
            directives,
            lock_mentions,
            lines,
            conditionals,
            macro_uses,
        } = Scanned::of(file, always)?;
        let parsed = match parses {
            Some(parses) => parses.parse_all(&directives, file.language),
            None => (directives.iter())
                .map(|d| parse_raw(d, file.language))
                .collect(),
        };
        let user_regions = directives.iter().any(|d| d.pomp);
        let mut prepared = Prepared {
            file,
            directives,
            parsed,
            macros: defined_macros(&lines),
            user_regions,
            macro_uses,
            lines,
            conditionals,
            lock_mentions,
            masked: RefCell::new(Patchable::default()),
            passed_over: Vec::new(),
            all_blanked: Cell::new(false),
        };
        // What follows reads the copy: the file's own pages, taken again
        // when the output is written, are free to go meanwhile.
        let mut masked = file.bytes.patchable_copy();
        file.release_pages();
        prepared.passed_over = prepared.mask(&mut masked, 0, &Assignment::new(), Lines::PassedOver);
        prepared.masked = RefCell::new(masked);
        Some(prepared)
    }

    /// What the grammar parses in the first configuration: the file's
    /// bytes with directives and what no configuration compiles blanked,
    /// but for the spans [`Prepared::passed_over`] names.
    pub fn masked(&self) -> std::cell::Ref<'_, [u8]> {
        std::cell::Ref::map(self.masked.borrow(), |masked| &**masked)
    }

    /// The directive lines and the decided conditionals' lines and dead
    /// branches [`Prepared::masked`] holds as written, in order: a partial
    /// parse leaves them out of its ranges, and a scan of the text passes
    /// over them ([`crate::language::c::lex::Tokens::passing_over`]).
    pub fn passed_over(&self) -> &[Span] {
        match self.all_blanked.get() {
            true => &[],
            false => &self.passed_over,
        }
    }

    /// [`Prepared::masked`] with every span passed over blanked: for a parse
    /// of the whole text, whose lexer would look up each of thousands of
    /// ranges from the first at every word.
    pub fn whole_masked(&self) -> std::cell::Ref<'_, [u8]> {
        if !self.all_blanked.replace(true) {
            let mut masked = self.masked.borrow_mut();
            for line in &self.passed_over {
                blank_bytes(&mut masked[line.clone()]);
            }
        }
        self.masked()
    }

    /// Whether pomp directives lie in `span`: a jump leaves a user region
    /// only within the function holding it, so elsewhere jumps need not
    /// be read.
    pub fn user_regions_within(&self, span: &Span) -> bool {
        let first = self
            .directives
            .partition_point(|d| d.span.start < span.start);
        self.user_regions
            && (self.directives[first..].iter())
                .take_while(|d| d.span.start < span.end)
                .any(|d| d.pomp)
    }

    /// Blanks, in `buffer` (the file's bytes from `offset` on), the
    /// directives, the line markers (which are no statements wherever
    /// they stand), the uses of macros the grammar reads stand-ins for
    /// (written in) and what the configuration `assignment` does not
    /// compile. With [`Lines::PassedOver`], directive lines, and decided
    /// conditionals' lines and dead branches, are left as written where a
    /// blank would do, and returned.
    fn mask(
        &self,
        buffer: &mut [u8],
        offset: usize,
        assignment: &Assignment,
        lines: Lines,
    ) -> Vec<Span> {
        let end = offset + buffer.len();
        let first = self.macro_uses.partition_point(|u| u.span.end <= offset);
        for used in (self.macro_uses[first..].iter()).take_while(|u| u.span.start < end) {
            let stand_in = match used.stand_in {
                scan::StandIn::Handler if self.file.language == Language::Cpp => {
                    scan::HANDLER_STAND_IN.as_bytes()
                }
                _ => b"",
            };
            // The stand-in, then blanks to the end of the name.
            for at in used.span.start.max(offset)..used.span.end.min(end) {
                let byte = stand_in.get(at - used.span.start).copied();
                buffer[at - offset] = byte.unwrap_or(b' ');
            }
        }
        let blank = |buffer: &mut [u8], span: &Span| {
            let span = span.start.max(offset)..span.end.min(end);
            blank_bytes(&mut buffer[span.start - offset..span.end - offset]);
        };
        self.file
            .line_map()
            .spans_within(offset..end)
            .for_each(|span| blank(buffer, span));
        let first = self.directives.partition_point(|d| d.span.end <= offset);
        let masked = (self.directives[first..].iter())
            .take_while(|d| d.span.start < end)
            .filter(|d| !matches!(d.kind, RawKind::InMacro { .. }));
        let mut passed_over = Vec::new();
        for directive in masked.clone() {
            match (lines, &directive.kind) {
                (Lines::PassedOver, RawKind::Pragma) => passed_over.push(directive.span.clone()),
                _ => blank(buffer, &directive.span),
            }
        }
        let passing = (lines == Lines::PassedOver).then_some(&mut passed_over);
        self.conditionals.mask(buffer, offset, assignment, passing);
        // Disjoint: no directive of the file lies in a dead branch
        // (`Scanned::of` leaves them out).
        passed_over.sort_unstable_by_key(|l| l.start);
        if self.file.language != Language::Cpp {
            return passed_over;
        }
        // Which lines, passed over so far, still read as blanks: those
        // given a statement are written.
        let mut blank_still = vec![true; passed_over.len()];
        for directive in masked {
            let line = passed_over.binary_search_by_key(&directive.span.start, |l| l.start);
            let blanks = Blanks {
                lines: &passed_over,
                still: &blank_still,
            };
            if opens_a_block_after_a_brace(buffer, offset, &directive.span, &blanks) {
                if let Ok(line) = line {
                    blank(buffer, &directive.span);
                    blank_still[line] = false;
                }
                buffer[directive.span.start - offset] = b';';
            }
        }
        (passed_over.into_iter().zip(blank_still))
            .filter_map(|(line, blank)| blank.then_some(line))
            .collect()
    }

    /// Calls `read` with the text the grammar parses in the configuration
    /// `assignment`, and the directive lines it holds as written: the
    /// first configuration's, with the extents of the groups it names
    /// masked anew. The first configuration's text is
    /// patched for the call, not copied: a large file would be copied
    /// whole for a few conditionals.
    pub fn with_configuration<R>(
        &self,
        assignment: &Assignment,
        read: impl FnOnce(&[u8], LinesPassedOver) -> R,
    ) -> R {
        let mut text = self.masked.borrow_mut();
        let extents: Vec<Span> = assignment
            .keys()
            .map(|&g| self.conditionals.extent(g))
            .collect();
        let first: Vec<Vec<u8>> = (extents.iter())
            .map(|extent| text[extent.clone()].to_vec())
            .collect();
        for extent in &extents {
            text[extent.clone()].copy_from_slice(&self.file.bytes[extent.clone()]);
            self.mask(
                &mut text[extent.clone()],
                extent.start,
                assignment,
                Lines::Blanked,
            );
        }
        let passed_over = LinesPassedOver {
            lines: self.passed_over(),
            blanked: &extents,
        };
        let result = read(&text, passed_over);
        for (extent, first) in extents.iter().zip(&first) {
            text[extent.clone()].copy_from_slice(first);
        }
        result
    }
}

/// The directive lines the text of a configuration holds as written
/// ([`Prepared::with_configuration`]): the first configuration's, but for
/// those in the extents masked anew, which are blanked there.
pub struct LinesPassedOver<'a> {
    lines: &'a [Span],
    blanked: &'a [Span],
}

impl LinesPassedOver<'_> {
    /// Those among `ranges` (sorted): a parse of the ranges leaves them
    /// out.
    pub fn within(&self, ranges: &[Span]) -> Vec<Span> {
        let (Some(first), Some(last)) = (ranges.first(), ranges.last()) else {
            return Vec::new();
        };
        (lex::spans_among(self.lines, first.start..last.end).iter())
            .filter(|l| !(self.blanked.iter()).any(|e| e.start <= l.start && l.end <= e.end))
            .cloned()
            .collect()
    }
}

/// How [`Prepared::mask`] masks directive lines.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lines {
    /// Blanked, every one.
    Blanked,
    /// Left as written where the grammar and the scans may pass over them.
    PassedOver,
}

/// Spans a buffer holds as written that read as blanks: directive lines,
/// and decided conditionals' lines and dead branches.
struct Blanks<'a> {
    lines: &'a [Span],
    /// Whether each of `lines` still does.
    still: &'a [bool],
}

impl Blanks<'_> {
    /// The span reading as blanks that holds `at`.
    fn holding(&self, at: usize) -> Option<&Span> {
        let index = lex::index_holding(self.lines, at)?;
        self.still[index].then(|| &self.lines[index])
    }
}

/// Whether an empty statement must stand where `directive` is blanked:
/// where it stands between a block's `{` and a block of its own. Read
/// without the directive, `void f() { { } }` is ambiguous to the C++
/// grammar, which takes it for a declaration of `f` with an initializer
/// list; the compiler reads a body whose first statement is the
/// directive's block, and so does the grammar with `;` first. Between two
/// opening braces an empty statement changes no statement and no block.
/// `buffer` holds the file's bytes from `offset` on; `blanks` are the
/// lines in it read as blanks though written.
fn opens_a_block_after_a_brace(
    buffer: &[u8],
    offset: usize,
    directive: &Span,
    blanks: &Blanks,
) -> bool {
    let Some(start) = directive.start.checked_sub(offset) else {
        return false;
    };
    let end = directive.end - offset;
    // Blanks a page long are whole masked groups, not the gap between a
    // brace and a directive; stopping there keeps many directives in
    // masked code from each walking back over all of it.
    const LOOK: usize = 4096;
    let blank = |at: usize| buffer[at].is_ascii_whitespace();
    let mut before = start;
    let floor = start.saturating_sub(LOOK);
    let before = loop {
        match before.checked_sub(1).filter(|&at| at >= floor) {
            None => break None,
            Some(at) if blank(at) => before = at,
            Some(at) => match blanks.holding(at + offset) {
                Some(line) => before = line.start - offset,
                None => break Some(buffer[at]),
            },
        }
    };
    let ceiling = (end + LOOK).min(buffer.len());
    let mut after = end;
    let after = loop {
        if after >= ceiling {
            break None;
        }
        if blank(after) {
            after += 1;
            continue;
        }
        match blanks.holding(after + offset) {
            Some(line) => after = line.end - offset,
            None => break Some(buffer[after]),
        }
    };
    before == Some(b'{') && after == Some(b'{')
}

/// [`Prepared::macros`] of a file's preprocessor lines.
fn defined_macros(lines: &[PreprocessorLine]) -> HashMap<String, bool> {
    let mut macros: HashMap<String, bool> = HashMap::new();
    for line in lines.iter().filter(|l| l.kind == scan::LineKind::Define) {
        let text = line.text.as_bytes();
        let name_end = text
            .iter()
            .position(|&b| !crate::language::c::lex::is_ident(b))
            .unwrap_or(text.len());
        if name_end == 0 {
            continue;
        }
        let statements = line.text[name_end..].contains([';', '{', '}']);
        *macros.entry(line.text[..name_end].to_string()).or_default() |= statements;
    }
    macros
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text the grammar reads of `text`, a C++ file, in a parse of
    /// the whole file.
    fn masked(text: &str) -> String {
        let file = SourceFile::new("m.cpp", text.as_bytes().to_vec(), Language::Cpp);
        let prepared = Prepared::whatever_it_holds(&file, None);
        let masked = String::from_utf8(prepared.whole_masked().to_vec()).unwrap();
        masked
    }

    #[test]
    fn directive_lines_are_passed_over_unless_a_statement_must_stand_there() {
        let text = "void f() {\n#pragma omp parallel\n#pragma omp single\n  { }\n}\n\
                    void g(int c) {\n  if (c)\n#pragma omp parallel\n  { }\n}\n";
        let file = SourceFile::new("m.cpp", text.as_bytes().to_vec(), Language::Cpp);
        let prepared = Prepared::whatever_it_holds(&file, None);
        let line = |pragma: &str, from: usize| {
            let start = from + text[from..].find(pragma).unwrap();
            start..start + pragma.len()
        };
        let single = line("#pragma omp single", 0);
        let in_g = line("#pragma omp parallel", text.find("void g").unwrap());
        assert_eq!(prepared.passed_over(), [single.clone(), in_g.clone()]);
        // Written as the file has them: no page of it is copied for them.
        let partial = String::from_utf8(prepared.masked().to_vec()).unwrap();
        assert_eq!(&partial[single.clone()], "#pragma omp single");
        assert_eq!(&partial[in_g.clone()], "#pragma omp parallel");
        assert!(partial.starts_with("void f() {\n;                   \n#pragma omp single"));
        // Read whole, the text holds none of them.
        let whole = String::from_utf8(prepared.whole_masked().to_vec()).unwrap();
        assert!(whole[single].trim().is_empty() && whole[in_g].trim().is_empty());
        assert!(prepared.passed_over().is_empty());
    }

    #[test]
    fn decided_conditionals_are_passed_over_with_their_dead_branches() {
        let text = "void f(int n) {\n  #ifdef _OPENMP\n#pragma omp parallel for\n  #else\n  { if (n) { g(); } }\n  #endif\n  for (int i = 0; i < n; i++) h(i);\n\
                    #if USE_MPI\n  m();\n#elif 0\n  { broken(\n#endif\n}\n";
        let file = SourceFile::new("m.cpp", text.as_bytes().to_vec(), Language::Cpp);
        let prepared = Prepared::whatever_it_holds(&file, None);
        let at = |what: &str| text.find(what).unwrap();
        let line = |what: &str| at(what)..at(what) + what.len();
        let dead_else = at("#else")..at("  #endif");
        let dead_elif = at("#elif 0")..at("#endif\n}");
        assert_eq!(
            prepared.passed_over(),
            [
                line("#ifdef _OPENMP"),
                line("#pragma omp parallel for"),
                dead_else.clone(),
                line("#endif\n  for").start..line("#endif\n  for").start + "#endif".len(),
                dead_elif.clone(),
            ]
        );
        // Written as the file has them: no page of it is copied for them,
        // and the scans read them as blanks.
        let partial = String::from_utf8(prepared.masked().to_vec()).unwrap();
        assert_eq!(&partial[dead_else.clone()], &text[dead_else.clone()]);
        let braces = |text: &str, passed_over: &[Span]| {
            let open = at("f(int n) {") + "f(int n) ".len();
            crate::language::c::lex::matching_brace(text.as_bytes(), open, passed_over)
        };
        assert_eq!(
            braces(&partial, prepared.passed_over()),
            Some(text.len() - 2)
        );
        // The grammar reads the undecided group's live lines.
        assert_eq!(&partial[line("#if USE_MPI")], "#if USE_MPI");
        // Read whole, the text holds none of them.
        let whole = String::from_utf8(prepared.whole_masked().to_vec()).unwrap();
        assert!(whole[dead_else].trim().is_empty() && whole[dead_elif].trim().is_empty());
        assert_eq!(braces(&whole, &[]), Some(text.len() - 2));
    }

    #[test]
    fn silent_macros_are_blanked_where_code_uses_them() {
        let text = "int RESTRICT_before;\n\
                    #ifdef GCC\n#define RESTRICT __restrict__\n#else\n#define RESTRICT\n#endif\n\
                    #define DEVICE static inline\n\
                    DEVICE void f(double *RESTRICT x) { /* RESTRICT */ g(\"RESTRICT\", x); }\n\
                    double *RESTRICT p;\n";
        let expected = "int RESTRICT_before;\n\
                        #ifdef GCC\n#define RESTRICT __restrict__\n#else\n#define RESTRICT\n#endif\n\
                        #define DEVICE static inline\n\
                        \x20      void f(double *         x) { /* RESTRICT */ g(\"RESTRICT\", x); }\n\
                        double *         p;\n";
        assert_eq!(masked(text), expected);
    }

    #[test]
    fn handler_macros_read_as_a_handler_of_everything_in_cxx() {
        let text = "#define CATCH_ALL_AND_ABORT catch (...) { std::abort(); }\n\
                    void f() { try { g(); } CATCH_ALL_AND_ABORT }\n";
        let expected = "#define CATCH_ALL_AND_ABORT catch (...) { std::abort(); }\n\
                        void f() { try { g(); } catch(...){}        }\n";
        assert_eq!(masked(text), expected);
        // C knows no handlers: there the name is only blanked.
        let file = SourceFile::new("m.c", text.as_bytes().to_vec(), Language::C);
        let prepared = Prepared::whatever_it_holds(&file, None);
        let in_c = String::from_utf8(prepared.masked().to_vec()).unwrap();
        assert!(
            in_c.ends_with("void f() { try { g(); }                     }\n"),
            "{in_c}"
        );
    }

    #[test]
    fn a_directive_between_two_opening_braces_leaves_an_empty_statement() {
        let text = "void f() {\n#pragma omp parallel\n#pragma omp single\n  { }\n}\n\
                    void g(int c) {\n  if (c)\n#pragma omp parallel\n  { }\n}\n";
        let expected = "void f() {\n;                   \n                  \n  { }\n}\n\
                        void g(int c) {\n  if (c)\n                    \n  { }\n}\n";
        assert_eq!(masked(text), expected);
    }

    #[test]
    fn macros_that_may_stand_for_more_are_left_alone() {
        for text in [
            // Used before it is defined: the name itself.
            "double *R p;\n#define R __restrict\n",
            // Undefined somewhere: the name may be anything after it.
            "#define R __restrict\ndouble *R p;\n#undef R\nint R;\n",
            // A type, an expression, parameters.
            "#define R double\nR *R p;\n",
            "#define R 1\nint x = R;\n",
            "#define R(x) x\nint R(y);\n",
            // Silent in one definition only.
            "#ifdef A\n#define R const\n#else\n#define R volatile int\n#endif\nR p;\n",
            // Handlers that jump, name OpenMP routines, or stand beside
            // other code; a name shorter than the stand-in; a handler in
            // one definition only.
            "#define CATCH_AND_RETURN catch (...) { return; }\ntry { } CATCH_AND_RETURN\n",
            "#define CATCH_AND_UNLOCK catch (...) { omp_unset_lock(&l); }\ntry { } CATCH_AND_UNLOCK\n",
            "#define CATCH_AND_COUNT catch (...) { } n++;\ntry { } CATCH_AND_COUNT\n",
            "#define CATCH_ALL catch (...) { }\ntry { } CATCH_ALL\n",
            "#ifdef A\n#define CATCH_EVERYTHING catch (...) { }\n#else\n#define CATCH_EVERYTHING\n#endif\ntry { } CATCH_EVERYTHING\n",
        ] {
            assert_eq!(masked(text), text);
        }
    }
}

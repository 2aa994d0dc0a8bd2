//! CTC strings: a region's source context, passed by instrumented code to
//! `POMP2_Assign_handle` and with a region's first event.
//!
//! Format: `<len>*regionType=<type>*sscl=<file>:<first>:<last>*escl=...*key=value*...**`
//! followed, where pomp has more to say, by a second part of its own,
//! `pompId=...*pompUnit=...**`. `<len>` is the decimal length of the whole
//! string. The first part speaks only the vocabulary of OPARI2's CTC parser
//! (see [`opari2`]), which the measurement libraries of OPARI2 and Score-P
//! share: it reads fields up to the first empty one, the `**` that ends the
//! part, and never looks further (nor at the length). What only pomp's
//! runtime and reports read goes after it: the construct's precise type
//! where OPARI2 has no name for it (`pompType`), the region's IDF id, the
//! enclosing unit and the form of its closing barrier.
//!
//! [`write`] makes the string from a [`Context`]; [`parse`] reads one back,
//! OPARI2's strings and those of earlier pomp versions (which wrote pomp's
//! keys in the first part) included. Instrumenters differ in which keys they
//! emit (OPARI2 declares one less than the full length, for one), and a
//! handle may be assigned from a string that is truncated or garbled, so
//! parsing never fails: it keeps whatever fields it could read and says
//! whether the string was malformed.

use crate::region::CodeKind;
use std::fmt::Write as _;

/// The keys of a CTC string that [`Context`] holds in fields of their own,
/// and those the instrumenter writes with a value of their own form.
pub mod keys {
    pub const REGION_TYPE: &str = "regionType";
    pub const START: &str = "sscl";
    pub const END: &str = "escl";
    /// Names of critical sections and user regions; kept among the
    /// attributes, in the order the instrumenter wrote them.
    pub const CRITICAL_NAME: &str = "criticalName";
    pub const USER_REGION_NAME: &str = "userRegionName";
    /// The number of sections of a `sections` construct.
    pub const NUM_SECTIONS: &str = "numSections";
    /// `<kind>[,<chunk>]`, a `*` of the chunk written `@`.
    pub const HAS_SCHEDULE: &str = "hasSchedule";
    /// The `default` clause's argument.
    pub const HAS_DEFAULT: &str = "hasDefault";
    /// pomp's keys, in the part after OPARI2's terminator. The construct as
    /// pomp names it, where that is not the `regionType`.
    pub const POMP_TYPE: &str = "pompType";
    /// The region's id in pomp's IDF descriptor.
    pub const POMP_ID: &str = "pompId";
    /// The enclosing function or program unit, qualified (`ns::Class::f`).
    pub const POMP_UNIT: &str = "pompUnit";
    /// What a region of code measures (`--regions`): `function`, `lambda`,
    /// `program`, `loop` or `call`; its name is the `userRegionName`.
    pub const POMP_KIND: &str = "pompKind";
    /// `inferred` on a parallel region whose closing barrier stays implicit;
    /// pomp's runtime then infers its waiting (see [`super::ImplicitBarrier`]).
    pub const POMP_IMPLICIT_BARRIER: &str = "pompImplicitBarrier";
}

/// What OPARI2's CTC parser accepts, as its sources define it
/// (`opari2_ctc_parser.c`, `pomp2_region_info.c`, `pomp2_user_region_info.c`:
/// the parser OPARI2's reference library and Score-P's OPARI2 adapter
/// share). A key it does not know makes it print `Token "..." not known.`
/// for every region; an unknown region type, schedule kind or `default`
/// argument, a clause value other than 0 or 1, an empty key or value, or a
/// `sections` region without `numSections` ends the program.
pub mod opari2 {
    /// The region types of constructs (`ctcString2RegionInfo`).
    pub const REGION_TYPES: &[&str] = &[
        "atomic",
        "barrier",
        "critical",
        "do",
        "flush",
        "for",
        "master",
        "ordered",
        "parallel",
        "paralleldo",
        "parallelfor",
        "parallelsections",
        "parallelworkshare",
        "sections",
        "single",
        "task",
        "taskuntied",
        "taskwait",
        "workshare",
    ];
    /// The region type of user regions (`ctcString2UserRegionInfo`), whose
    /// handles `POMP2_USER_Assign_handle` assigns.
    pub const USER_REGION: &str = "userRegion";
    /// Keys whose value is `0` or `1`: a clause is present.
    pub const CLAUSE_FLAGS: &[&str] = &[
        "hasCollapse",
        "hasCopyIn",
        "hasCopyPrivate",
        "hasFirstPrivate",
        "hasIf",
        "hasLastPrivate",
        "hasNowait",
        "hasNum_threads",
        "hasOrdered",
        "hasReduction",
        "hasShared",
        "hasUntied",
    ];
    /// The kinds `hasSchedule` may name.
    pub const SCHEDULE_KINDS: &[&str] = &["auto", "dynamic", "guided", "runtime", "static"];
    /// The arguments `hasDefault` may give.
    pub const DEFAULT_KINDS: &[&str] = &["none", "shared", "private", "firstprivate"];
    /// Keys with a value of their own (besides `regionType`, `sscl`, `escl`).
    pub const VALUE_KEYS: &[&str] = &[
        super::keys::CRITICAL_NAME,
        super::keys::NUM_SECTIONS,
        super::keys::HAS_SCHEDULE,
        super::keys::HAS_DEFAULT,
        "userGroupName",
        super::keys::USER_REGION_NAME,
    ];

    pub fn is_region_type(name: &str) -> bool {
        REGION_TYPES.contains(&name)
    }

    /// `hasSchedule`'s value for a `schedule(kind[, chunk])` clause, `None`
    /// when OPARI2 knows no such kind. The chunk is written without blanks,
    /// a `*` in it as `@` (the parser turns it back).
    pub fn schedule(kind: &str, chunk: Option<&str>) -> Option<String> {
        let kind = kind.trim().to_ascii_lowercase();
        if !SCHEDULE_KINDS.contains(&kind.as_str()) {
            return None;
        }
        let mut value = kind;
        if let Some(chunk) = chunk.map(str::trim).filter(|c| !c.is_empty()) {
            value.push(',');
            value.extend(
                chunk
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .map(|c| match c {
                        '*' => '@',
                        // Not in a string literal: the value stands in one.
                        '"' | '\\' => '_',
                        c => c,
                    }),
            );
        }
        Some(value)
    }

    /// `hasDefault`'s value for a `default(...)` clause, `None` for an
    /// argument OPARI2 does not know.
    pub fn default_sharing(argument: &str) -> Option<&'static str> {
        let argument = argument.trim().to_ascii_lowercase();
        DEFAULT_KINDS.iter().copied().find(|k| *k == argument)
    }

    /// Does OPARI2's parser know `key`?
    pub fn knows_key(key: &str) -> bool {
        [
            super::keys::REGION_TYPE,
            super::keys::START,
            super::keys::END,
        ]
        .contains(&key)
            || CLAUSE_FLAGS.contains(&key)
            || VALUE_KEYS.contains(&key)
    }
}

/// A source location range as written in `sscl`/`escl`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceRange {
    pub file: String,
    pub first_line: u32,
    pub last_line: u32,
}

/// How the waiting at the end of a parallel region is measured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImplicitBarrier {
    /// OPARI2's structure: the instrumented code makes the barrier explicit
    /// between `Implicit_barrier_enter` and `Implicit_barrier_exit`, or the
    /// construct has no such barrier at all.
    #[default]
    Explicit,
    /// The barrier stays implicit: each thread calls `Parallel_end` where it
    /// arrives, the master `Parallel_join` after the release, and the
    /// library infers the waiting from those times.
    Inferred,
}

impl ImplicitBarrier {
    const INFERRED: &'static str = "inferred";

    pub fn name(self) -> &'static str {
        match self {
            ImplicitBarrier::Explicit => "explicit",
            ImplicitBarrier::Inferred => "inferred",
        }
    }
}

/// Everything a CTC string says about a region.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Context {
    /// `regionType`: the type OPARI2's parser reads, one of OPARI2's names
    /// in strings pomp writes now (see [`Context::construct`]).
    pub region_type: String,
    /// `pompType`: the construct as pomp names it, where that is not the
    /// `regionType` (`parallelforsimd` beside `parallelfor`).
    pub pomp_type: Option<String>,
    pub start: Option<SourceRange>,
    pub end: Option<SourceRange>,
    /// Every other `key=value`, in order: `criticalName`, `numSections`,
    /// `hasIf`, `hasSchedule`, ... Keys are never those of [`keys`] that
    /// have fields here.
    pub attributes: Vec<(String, String)>,
    /// `pompId`.
    pub pomp_id: Option<String>,
    /// `pompUnit`.
    pub unit: Option<String>,
    /// `pompKind`.
    pub code_kind: Option<CodeKind>,
    /// `pompImplicitBarrier`.
    pub implicit_barrier: ImplicitBarrier,
}

/// The construct type pomp gives user regions, which OPARI2 calls
/// [`opari2::USER_REGION`].
pub const USER_REGION_TYPE: &str = "region";

impl Context {
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The construct as pomp names it: `pompType` where the string has
    /// one, else its `regionType`, OPARI2's `userRegion` read as pomp's
    /// `region`.
    pub fn construct(&self) -> &str {
        match (&self.pomp_type, self.region_type.as_str()) {
            (Some(precise), _) => precise,
            (None, opari2::USER_REGION) => USER_REGION_TYPE,
            (None, written) => written,
        }
    }

    /// The name a user gave the region: a critical section's or a user
    /// region's.
    pub fn name(&self) -> Option<&str> {
        self.attribute(keys::CRITICAL_NAME)
            .or_else(|| self.attribute(keys::USER_REGION_NAME))
    }

    /// How people name the region: `parallel for in CalcKinematicsForElems
    /// (lulesh.cc:782)`, `critical (io) in main (basic.c:50)`,
    /// `function hydro::advance (hydro.cpp:205)` (see [`RegionName`]).
    pub fn label(&self) -> String {
        self.region_name().label()
    }

    /// The region's name in parts.
    pub fn region_name(&self) -> RegionName<'_> {
        RegionName {
            region_type: self.construct(),
            code_kind: self.code_kind,
            name: self.name(),
            unit: self.unit.as_deref(),
            place: (self.start.as_ref()).map(|s| (s.file.as_str(), s.first_line as usize)),
        }
    }
}

/// How every output names a region — the report's tables, tree, page,
/// CSV and JSON, flame graphs, CUBE, OTF2 and Chrome traces, the
/// runtime's summary, the profile's own `label` and the filter's
/// comments — in the parts tables show in columns: what it is
/// ([`RegionName::what`]), the function it is in
/// ([`RegionName::function`]) and where it begins. Joined, the label:
/// `parallel for in CalcKinematicsForElems (lulesh.cc:782)`, `critical
/// (io) in main (basic.c:50)`, `function hydro::advance (hydro.cpp:205)`,
/// `program main (app.c:30)`, `call MPI_Send in exchange (app.c:16)`,
/// `loop in solve (app.c:61)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegionName<'a> {
    /// The construct as a CTC region type (`parallelfor`); `region` for
    /// user regions and regions of code.
    pub region_type: &'a str,
    /// What a region of code measures (`pompKind`).
    pub code_kind: Option<CodeKind>,
    /// A critical section's or user region's name; the function, callee
    /// or generated name (`solve::loop@61`) of a region of code.
    pub name: Option<&'a str>,
    /// The enclosing function or program unit (`pompUnit`).
    pub unit: Option<&'a str>,
    /// The file and first line.
    pub place: Option<(&'a str, usize)>,
}

impl RegionName<'_> {
    /// What the region is, without where: `parallel for`, `critical (io)`,
    /// `function hydro::advance`, `call MPI_Send`, `loop`. Loops and
    /// lambdas are named by where they are, their generated names telling
    /// no more, unless the function they are in is not known.
    pub fn what(&self) -> String {
        let name = self.name.filter(|name| !name.is_empty());
        if let (crate::mpi::REGION_TYPE, Some(function)) = (self.region_type, name) {
            // An MPI function's region is every call of it: its name is all.
            return function.to_string();
        }
        let Some(kind) = self.code_kind else {
            let mut what = construct_words(self.region_type);
            if let Some(name) = name {
                let _ = write!(what, " ({name})");
            }
            return what;
        };
        let by_place =
            matches!(kind, CodeKind::Loop | CodeKind::Lambda) && self.function().is_some();
        match name {
            Some(name) if !by_place => format!("{} {name}", kind.name()),
            _ => kind.name().to_string(),
        }
    }

    /// The function the region is in: a function's or program's own
    /// name, else the enclosing unit.
    pub fn function(&self) -> Option<&str> {
        match self.code_kind {
            Some(CodeKind::Function | CodeKind::Program) => self.unit.or(self.name),
            _ => self.unit,
        }
    }

    /// `file:line`, the file by its last path component.
    pub fn location(&self) -> Option<String> {
        let (file, line) = self.place?;
        let file = file.rsplit(['/', '\\']).next().unwrap_or_default();
        Some(format!("{file}:{line}"))
    }

    /// The whole name: what, in which function, where.
    pub fn label(&self) -> String {
        self.label_of(self.what())
    }

    /// The name of one part of the region (`implicit barrier`, `task
    /// create`): `implicit barrier of parallel for in solve (a.c:3)`.
    pub fn part_label(&self, part: &str) -> String {
        self.label_of(format!("{part} of {}", self.what()))
    }

    fn label_of(&self, mut label: String) -> String {
        let itself = matches!(self.code_kind, Some(CodeKind::Function | CodeKind::Program));
        if let Some(function) = self.function().filter(|_| !itself) {
            let _ = write!(label, " in {function}");
        }
        if let Some(location) = self.location() {
            let _ = write!(label, " ({location})");
        }
        label
    }
}

/// Construct names as people write them: CTC region types run the words of
/// a combined construct together (`parallelfor`, `targetteamsdistribute`).
const CONSTRUCT_WORDS: &[&str] = &[
    "allocators",
    "assume",
    "atomic",
    "barrier",
    "cancel",
    "cancellation",
    "critical",
    "data",
    "depobj",
    "dispatch",
    "distribute",
    "do",
    "enter",
    "exit",
    "flush",
    "for",
    "interop",
    "loop",
    "masked",
    "master",
    "ordered",
    "parallel",
    "point",
    "region",
    "scan",
    "scope",
    "section",
    "sections",
    "simd",
    "single",
    "standalone",
    "target",
    "task",
    "taskgroup",
    "taskloop",
    "taskwait",
    "taskyield",
    "teams",
    "tile",
    "unroll",
    "untied",
    "update",
    "workshare",
];

/// `parallelfor` → `parallel for`, `cancellationpoint` → `cancellation
/// point`. Longest known word first; a rest no word matches is kept whole.
pub fn construct_words(region_type: &str) -> String {
    let mut words: Vec<&str> = Vec::new();
    for token in region_type.split_whitespace() {
        let mut rest = token;
        while !rest.is_empty() {
            let word = CONSTRUCT_WORDS
                .iter()
                .filter(|w| rest.starts_with(**w))
                .max_by_key(|w| w.len());
            match word {
                Some(word) => {
                    words.push(word);
                    rest = &rest[word.len()..];
                }
                None => {
                    words.push(rest);
                    rest = "";
                }
            }
        }
    }
    if words.is_empty() {
        return "region".to_string();
    }
    words.join(" ")
}

/// The characters that cannot appear in a field (`*` separates fields) or
/// in a C or Fortran string literal without escaping become `_`.
pub fn sanitize(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    push_sanitized(&mut out, value);
    out
}

/// Appends [`sanitize`]`(value)` to `out`.
fn push_sanitized(out: &mut String, value: &str) {
    let mut rest = value;
    // The characters replaced are ASCII: one byte each.
    while let Some(at) = rest.bytes().position(|b| matches!(b, b'*' | b'"' | b'\\')) {
        out.push_str(&rest[..at]);
        out.push('_');
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

/// What a CTC string says, borrowed: an instrumenter writes thousands of
/// strings from what it already holds, and need copy none of it first.
#[derive(Debug, Clone, Copy, Default)]
pub struct ContextView<'a> {
    pub region_type: &'a str,
    pub pomp_type: Option<&'a str>,
    pub start: Option<SourceRangeView<'a>>,
    pub end: Option<SourceRangeView<'a>>,
    pub attributes: &'a [(String, String)],
    pub pomp_id: Option<&'a str>,
    pub unit: Option<&'a str>,
    pub code_kind: Option<CodeKind>,
    pub implicit_barrier: ImplicitBarrier,
}

/// A [`SourceRange`], borrowed.
#[derive(Debug, Clone, Copy)]
pub struct SourceRangeView<'a> {
    pub file: &'a str,
    pub first_line: u32,
    pub last_line: u32,
}

impl Context {
    pub fn view(&self) -> ContextView<'_> {
        fn range(r: &Option<SourceRange>) -> Option<SourceRangeView<'_>> {
            r.as_ref().map(|r| SourceRangeView {
                file: &r.file,
                first_line: r.first_line,
                last_line: r.last_line,
            })
        }
        ContextView {
            region_type: &self.region_type,
            pomp_type: self.pomp_type.as_deref(),
            start: range(&self.start),
            end: range(&self.end),
            attributes: &self.attributes,
            pomp_id: self.pomp_id.as_deref(),
            unit: self.unit.as_deref(),
            code_kind: self.code_kind,
            implicit_barrier: self.implicit_barrier,
        }
    }
}

/// The CTC string of `context`, length prefix included. File names and
/// values are [`sanitize`]d; attribute keys are written as given.
pub fn write(context: &Context) -> String {
    let mut out = String::new();
    push_view(&context.view(), &mut String::with_capacity(160), &mut out);
    out
}

/// [`write`] of a borrowed context, appended to `out`, the body written in
/// `body` first (its length leads the string): a file's regions make
/// thousands of these strings, and one buffer serves them all.
///
/// The region type, source locations and attributes form the part OPARI2's
/// parser reads; pomp's own fields, where there are any, follow its
/// terminator. A file name's colons are written as `_` too: the parser
/// takes a location's first colon for the end of its file name.
pub fn push_view(context: &ContextView, body: &mut String, out: &mut String) {
    body.clear();
    body.push('*');
    let open = |body: &mut String, key: &str| {
        debug_assert!(
            !key.is_empty() && !key.contains(['*', '=']),
            "CTC key {key:?}"
        );
        body.push_str(key);
        body.push('=');
    };
    let field = |body: &mut String, key: &str, value: &str| {
        open(body, key);
        push_sanitized(body, value);
        body.push('*');
    };
    field(body, keys::REGION_TYPE, context.region_type);
    for (key, range) in [(keys::START, &context.start), (keys::END, &context.end)] {
        if let Some(range) = range {
            open(body, key);
            let start = body.len();
            push_sanitized(body, range.file);
            if body[start..].contains(':') {
                let file = body.split_off(start).replace(':', "_");
                body.push_str(&file);
            }
            let mut number = itoa::Buffer::new();
            body.push(':');
            body.push_str(number.format(range.first_line));
            body.push(':');
            body.push_str(number.format(range.last_line));
            body.push('*');
        }
    }
    for (key, value) in context.attributes {
        field(body, key, value);
    }
    body.push('*');
    let pomp_part = body.len();
    if let Some(precise) = context.pomp_type {
        field(body, keys::POMP_TYPE, precise);
    }
    if let Some(id) = context.pomp_id {
        field(body, keys::POMP_ID, id);
    }
    if let Some(unit) = context.unit {
        field(body, keys::POMP_UNIT, unit);
    }
    if let Some(kind) = context.code_kind {
        field(body, keys::POMP_KIND, kind.name());
    }
    if context.implicit_barrier == ImplicitBarrier::Inferred {
        field(body, keys::POMP_IMPLICIT_BARRIER, ImplicitBarrier::INFERRED);
    }
    if body.len() > pomp_part {
        body.push('*');
    }
    push_with_length_prefix(body, out);
}

/// Appends `body` to `out`, prefixed with the decimal length of the two.
fn push_with_length_prefix(body: &str, out: &mut String) {
    let digits = |n: usize| n.checked_ilog10().unwrap_or(0) as usize + 1;
    let mut prefix = 1;
    while digits(body.len() + prefix) != prefix {
        prefix += 1;
    }
    let total = body.len() + prefix;
    out.reserve(total);
    out.push_str(itoa::Buffer::new().format(total));
    out.push_str(body);
}

/// A parsed CTC string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub context: Context,
    /// The string was truncated, lacked its terminator or a field, or had
    /// a field that could not be read.
    pub malformed: bool,
}

/// Parses a CTC string given as raw bytes (C strings without their NUL,
/// Fortran strings with their hidden length, blank padding included).
pub fn parse(bytes: &[u8]) -> Parsed {
    let text = String::from_utf8_lossy(bytes);
    let mut context = Context::default();
    let mut malformed = false;
    let mut body: &str = &text;

    match body.split_once('*') {
        Some((declared_len, rest)) if declared_len.chars().all(|c| c.is_ascii_digit()) => {
            // The declared length only serves to detect truncation.
            match declared_len.parse::<usize>() {
                Ok(len) if len <= text.len() => {}
                _ => malformed = true,
            }
            body = rest;
        }
        _ => malformed = true,
    }

    // OPARI2's part, then pomp's, each ended by an empty field. A Fortran
    // constant may be padded with blanks after the last.
    let mut terminated = false;
    let mut fields = body.split('*');
    let mut parts = 0;
    while let Some(field) = fields.next() {
        if field.is_empty() {
            parts += 1;
            let rest = fields.clone().next().unwrap_or("");
            if parts == 2 || rest.trim_matches([' ', '\0']).is_empty() {
                terminated = true;
                break;
            }
            continue;
        }
        let Some((key, value)) = field.split_once('=') else {
            malformed = true;
            continue;
        };
        match key {
            keys::REGION_TYPE => context.region_type = value.to_string(),
            keys::START => context.start = parse_range(value, &mut malformed),
            keys::END => context.end = parse_range(value, &mut malformed),
            keys::POMP_TYPE => context.pomp_type = Some(value.to_string()),
            keys::POMP_ID => context.pomp_id = Some(value.to_string()),
            keys::POMP_UNIT => context.unit = Some(value.to_string()),
            // A kind this version does not know is named as a user
            // region is.
            keys::POMP_KIND => context.code_kind = CodeKind::from_name(value),
            keys::POMP_IMPLICIT_BARRIER => match value {
                ImplicitBarrier::INFERRED => context.implicit_barrier = ImplicitBarrier::Inferred,
                // An unknown form is measured the only way that needs no
                // inference: as written.
                _ => malformed = true,
            },
            _ => context
                .attributes
                .push((key.to_string(), value.to_string())),
        }
    }
    if !terminated {
        malformed = true;
    }
    if context.region_type.is_empty() {
        malformed = true;
    }
    Parsed { context, malformed }
}

/// `<file>:<first>:<last>`; the file name may itself contain colons.
fn parse_range(value: &str, malformed: &mut bool) -> Option<SourceRange> {
    let mut parts = value.rsplitn(3, ':');
    let last = parts.next()?.parse::<u32>();
    let first = parts.next().map(str::parse::<u32>);
    let file = parts.next();
    match (file, first, last) {
        (Some(file), Some(Ok(first_line)), Ok(last_line)) => Some(SourceRange {
            file: file.to_string(),
            first_line,
            last_line,
        }),
        _ => {
            *malformed = true;
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn range(file: &str, first_line: u32, last_line: u32) -> Option<SourceRange> {
        Some(SourceRange {
            file: file.into(),
            first_line,
            last_line,
        })
    }

    #[test]
    fn pomp_s_fields_follow_opari2_s_terminator() {
        let context = Context {
            region_type: "critical".into(),
            start: range("src/a.c", 10, 11),
            end: range("src/a.c", 14, 14),
            attributes: vec![("criticalName".into(), "io".into())],
            pomp_id: Some("3f2a.4".into()),
            ..Context::default()
        };
        assert_eq!(
            write(&context),
            "93*regionType=critical*sscl=src/a.c:10:11*escl=src/a.c:14:14*criticalName=io**pompId=3f2a.4**"
        );
        let opari2_only = Context {
            pomp_id: None,
            ..context
        };
        assert_eq!(
            write(&opari2_only),
            "78*regionType=critical*sscl=src/a.c:10:11*escl=src/a.c:14:14*criticalName=io**"
        );
    }

    #[test]
    fn regions_of_code_say_what_they_measure_after_the_terminator() {
        let at = |line| range("/src/app.c", line, line);
        let code = |kind: CodeKind, name: &str, unit: Option<&str>, line| Context {
            region_type: opari2::USER_REGION.into(),
            pomp_type: Some(USER_REGION_TYPE.into()),
            start: at(line),
            end: at(line),
            attributes: vec![(keys::USER_REGION_NAME.into(), name.into())],
            pomp_id: Some("x.2".into()),
            unit: unit.map(str::to_string),
            code_kind: Some(kind),
            ..Context::default()
        };
        let call = code(CodeKind::Call, "MPI_Send", Some("exchange"), 16);
        let ctc = write(&call);
        assert!(
            ctc.ends_with("*userRegionName=MPI_Send**pompType=region*pompId=x.2*pompUnit=exchange*pompKind=call**"),
            "{ctc}"
        );
        let parsed = parse(ctc.as_bytes());
        assert!(!parsed.malformed);
        assert_eq!(parsed.context, call);
        assert_eq!(parsed.context.construct(), USER_REGION_TYPE);
        assert_eq!(call.label(), "call MPI_Send in exchange (app.c:16)");
        let labels = [
            (
                code(CodeKind::Function, "ns::step", Some("ns::step"), 3),
                "function ns::step (app.c:3)",
            ),
            (
                code(CodeKind::Program, "main", None, 9),
                "program main (app.c:9)",
            ),
            (
                code(CodeKind::Loop, "solve::loop@61", Some("solve"), 61),
                "loop in solve (app.c:61)",
            ),
            (
                code(CodeKind::Lambda, "f::lambda@4", Some("f"), 4),
                "lambda in f (app.c:4)",
            ),
            (
                code(CodeKind::Loop, "loop@2", None, 2),
                "loop loop@2 (app.c:2)",
            ),
        ];
        for (context, label) in labels {
            assert_eq!(context.label(), label);
        }
        // A hand-marked user region keeps its label.
        let user = Context {
            code_kind: None,
            ..code(CodeKind::Function, "io", Some("main"), 5)
        };
        assert_eq!(user.label(), "region (io) in main (app.c:5)");
    }

    #[test]
    fn pomp_keys_keep_their_order() {
        let context = Context {
            region_type: "parallelfor".into(),
            pomp_type: Some("parallelforsimd".into()),
            start: range("lulesh.cc", 782, 782),
            end: range("lulesh.cc", 790, 790),
            attributes: vec![("hasNum_threads".into(), "1".into())],
            pomp_id: Some("x.1".into()),
            unit: Some("CalcKinematicsForElems".into()),
            code_kind: None,
            implicit_barrier: ImplicitBarrier::Inferred,
        };
        let ctc = write(&context);
        assert!(
            ctc.ends_with(
                "*hasNum_threads=1**pompType=parallelforsimd*pompId=x.1*pompUnit=CalcKinematicsForElems*pompImplicitBarrier=inferred**"
            ),
            "{ctc}"
        );
        let parsed = parse(ctc.as_bytes());
        assert!(!parsed.malformed);
        assert_eq!(parsed.context, context);
        assert_eq!(parsed.context.construct(), "parallelforsimd");
    }

    #[test]
    fn strings_of_earlier_versions_and_of_opari2_are_read() {
        let earlier = parse(
            b"101*regionType=parallelfor*sscl=s.c:28:28*escl=s.c:29:29*pompUnit=main*pompImplicitBarrier=inferred**",
        );
        assert_eq!(earlier.context.unit.as_deref(), Some("main"));
        assert_eq!(earlier.context.implicit_barrier, ImplicitBarrier::Inferred);
        let user =
            parse(b"75*regionType=userRegion*sscl=t.c:32:32*escl=t.c:34:34*userRegionName=foo**");
        assert_eq!(user.context.construct(), USER_REGION_TYPE);
        assert_eq!(user.context.name(), Some("foo"));
        assert!(!user.malformed);
    }

    #[test]
    fn colons_leave_file_names_where_opari2_reads_locations() {
        let ctc = write(&Context {
            region_type: "barrier".into(),
            start: range("C:/x/y.c", 3, 3),
            end: range("C:/x/y.c", 3, 3),
            ..Context::default()
        });
        assert!(ctc.contains("*sscl=C_/x/y.c:3:3*"), "{ctc}");
    }

    #[test]
    fn schedules_and_defaults_in_opari2_s_words() {
        assert_eq!(
            opari2::schedule("dynamic", Some("2 * 3")).as_deref(),
            Some("dynamic,2@3")
        );
        assert_eq!(opari2::schedule("STATIC", None).as_deref(), Some("static"));
        assert_eq!(opari2::schedule("nonmonotonic:dynamic", None), None);
        assert_eq!(opari2::schedule("SCHED", None), None);
        assert_eq!(opari2::default_sharing("NONE"), Some("none"));
        assert_eq!(opari2::default_sharing("private "), Some("private"));
        assert_eq!(opari2::default_sharing("MACRO"), None);
        assert!(opari2::knows_key("hasNum_threads") && !opari2::knows_key("hasNumThreads"));
        assert!(!opari2::knows_key("hasCopyprivate"));
    }

    #[test]
    fn reads_all_known_fields() {
        let ctc = write(&Context {
            region_type: "critical".into(),
            start: range("src/a b.c", 10, 11),
            end: range("src/a b.c", 14, 14),
            attributes: vec![
                ("criticalName".into(), "io".into()),
                ("hasIf".into(), "1".into()),
                ("futureKey".into(), "x".into()),
            ],
            pomp_id: Some("a.c#3".into()),
            ..Context::default()
        });
        let Parsed { context, malformed } = parse(ctc.as_bytes());
        assert!(!malformed, "{context:?}");
        assert_eq!(context.region_type, "critical");
        assert_eq!(context.start, range("src/a b.c", 10, 11));
        assert_eq!(context.end.as_ref().unwrap().first_line, 14);
        assert_eq!(context.name(), Some("io"));
        assert_eq!(context.pomp_id.as_deref(), Some("a.c#3"));
        assert_eq!(context.attribute("futureKey"), Some("x"));
    }

    #[test]
    fn file_names_may_contain_colons() {
        let parsed = parse(b"47*regionType=for*sscl=C:/x/y.c:3:4*escl=C:/x/y.c:9:9**");
        assert_eq!(parsed.context.start.unwrap().file, "C:/x/y.c");
        assert!(!parsed.malformed);
    }

    #[test]
    fn garbage_is_flagged_not_fatal() {
        for bad in [
            "",
            "*",
            "**",
            "12",
            "x*y*z",
            "99*regionType=for*sscl=:::*",
            "\u{0}\u{ff}",
            "60*regionType=parallel*pompImplicitBarrier=sometimes**",
        ] {
            assert!(
                parse(bad.as_bytes()).malformed,
                "{bad:?} parsed as well-formed"
            );
        }
        let parsed = parse(b"99*regionType=for*sscl=f.c:1:2**");
        assert_eq!(parsed.context.region_type, "for");
        assert_eq!(parsed.context.start.unwrap().last_line, 2);
        assert!(parsed.malformed, "a truncated string must be flagged");
    }

    #[test]
    fn opari2_strings_declare_one_less_and_pad_fortran_constants() {
        let opari2_style = "31*regionType=for*sscl=f.c:1:2**";
        assert_eq!(opari2_style.len(), 32);
        assert!(!parse(opari2_style.as_bytes()).malformed);
        let padded = format!("{opari2_style}      ");
        let parsed = parse(padded.as_bytes());
        assert!(!parsed.malformed);
        assert_eq!(parsed.context.start, range("f.c", 1, 2));
        let two_parts = "47*regionType=for*sscl=f.c:1:2**pompId=a.1**    ";
        let parsed = parse(two_parts.as_bytes());
        assert!(!parsed.malformed);
        assert_eq!(parsed.context.pomp_id.as_deref(), Some("a.1"));
    }

    #[test]
    fn labels_name_construct_unit_and_place() {
        let mut context = parse(
            write(&Context {
                region_type: "parallelfor".into(),
                start: range("/src/lulesh/lulesh.cc", 782, 782),
                end: range("/src/lulesh/lulesh.cc", 790, 790),
                unit: Some("CalcKinematicsForElems".into()),
                ..Context::default()
            })
            .as_bytes(),
        )
        .context;
        assert_eq!(
            context.label(),
            "parallel for in CalcKinematicsForElems (lulesh.cc:782)"
        );
        context.region_type = "critical".into();
        context.unit = None;
        context.attributes = vec![("criticalName".into(), "io".into())];
        assert_eq!(context.label(), "critical (io) (lulesh.cc:782)");
    }

    #[test]
    fn combined_region_types_split_into_words() {
        for (region_type, words) in [
            ("parallelfor", "parallel for"),
            (
                "targetteamsdistributeparalleldosimd",
                "target teams distribute parallel do simd",
            ),
            ("taskloopsimd", "taskloop simd"),
            ("cancellationpoint", "cancellation point"),
            ("parallelsections", "parallel sections"),
            ("orderedstandalone", "ordered standalone"),
            ("targetenterdata", "target enter data"),
            ("implicit barrier", "implicit barrier"),
            ("taskwait", "taskwait"),
            ("", "region"),
        ] {
            assert_eq!(construct_words(region_type), words);
        }
    }

    fn text() -> impl Strategy<Value = String> {
        // Any characters, the separators and the characters that are
        // sanitized included.
        proptest::string::string_regex("[a-zA-Z0-9_ .:/=*\"\\\\é-]{0,24}").unwrap()
    }

    fn source_range() -> impl Strategy<Value = Option<SourceRange>> {
        proptest::option::of((text(), any::<u32>(), any::<u32>()).prop_map(
            |(file, first_line, last_line)| SourceRange {
                file,
                first_line,
                last_line,
            },
        ))
    }

    fn attribute_key() -> impl Strategy<Value = String> {
        proptest::string::string_regex("[a-zA-Z][a-zA-Z0-9_]{0,15}")
            .unwrap()
            .prop_filter("keys with fields of their own", |key| {
                ![
                    keys::REGION_TYPE,
                    keys::START,
                    keys::END,
                    keys::POMP_TYPE,
                    keys::POMP_ID,
                    keys::POMP_UNIT,
                    keys::POMP_KIND,
                    keys::POMP_IMPLICIT_BARRIER,
                ]
                .contains(&key.as_str())
            })
    }

    fn context() -> impl Strategy<Value = Context> {
        (
            proptest::string::string_regex("[a-z][a-z ]{0,30}").unwrap(),
            source_range(),
            source_range(),
            proptest::collection::vec((attribute_key(), text()), 0..6),
            proptest::option::of(text()),
            proptest::option::of(text()),
            any::<bool>(),
            proptest::option::of(proptest::string::string_regex("[a-z]{1,20}").unwrap()),
            proptest::option::of(proptest::sample::select(CodeKind::ALL.to_vec())),
        )
            .prop_map(
                |(
                    region_type,
                    start,
                    end,
                    attributes,
                    pomp_id,
                    unit,
                    inferred,
                    pomp_type,
                    kind,
                )| {
                    Context {
                        region_type,
                        pomp_type,
                        start,
                        end,
                        attributes,
                        pomp_id,
                        unit,
                        code_kind: kind,
                        implicit_barrier: if inferred {
                            ImplicitBarrier::Inferred
                        } else {
                            ImplicitBarrier::Explicit
                        },
                    }
                },
            )
    }

    fn sanitized(context: &Context) -> Context {
        let range = |r: &Option<SourceRange>| {
            r.as_ref().map(|r| SourceRange {
                file: sanitize(&r.file).replace(':', "_"),
                ..r.clone()
            })
        };
        Context {
            region_type: context.region_type.clone(),
            pomp_type: context.pomp_type.clone(),
            start: range(&context.start),
            end: range(&context.end),
            attributes: context
                .attributes
                .iter()
                .map(|(k, v)| (k.clone(), sanitize(v)))
                .collect(),
            pomp_id: context.pomp_id.as_deref().map(sanitize),
            unit: context.unit.as_deref().map(sanitize),
            code_kind: context.code_kind,
            implicit_barrier: context.implicit_barrier,
        }
    }

    #[test]
    fn the_length_prefix_counts_itself_across_digit_boundaries() {
        for length in 0..12_000 {
            let body = "x".repeat(length);
            let mut written = String::new();
            push_with_length_prefix(&body, &mut written);
            let prefix = &written[..written.len() - length];
            assert_eq!(prefix.parse::<usize>().unwrap(), written.len(), "{length}");
        }
    }

    proptest! {
        #[test]
        fn written_strings_parse_back(context in context()) {
            let ctc = write(&context);
            let parsed = parse(ctc.as_bytes());
            prop_assert!(!parsed.malformed, "{ctc}");
            prop_assert_eq!(&parsed.context, &sanitized(&context));
            prop_assert_eq!(write(&parsed.context), ctc);
        }

        #[test]
        fn the_length_prefix_is_the_whole_length(context in context()) {
            let ctc = write(&context);
            let digits: String = ctc.chars().take_while(char::is_ascii_digit).collect();
            prop_assert_eq!(digits.parse::<usize>().unwrap(), ctc.len());
            prop_assert!(ctc.ends_with("**"));
        }

        #[test]
        fn any_prefix_of_a_string_is_flagged(context in context(), cut in 0usize..1000) {
            let ctc = write(&context);
            let cut = cut % ctc.len();
            prop_assert!(parse(&ctc.as_bytes()[..cut]).malformed);
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = parse(&bytes);
        }
    }
}

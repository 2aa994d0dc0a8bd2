//! What both emitters share: the choices that shape the text, what an
//! emitter makes, the one order a plan is walked in, and the small pieces
//! of text both write alike.

/// The choices that shape the instrumented text but not what is measured.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Config {
    /// Follow every insertion with a `#line` marker, so that diagnostics,
    /// debuggers and profiles point at the user's lines.
    pub line_markers: bool,
    /// The file is preprocessed already (OPARI2's `--preprocessed`): the
    /// declarations go where the line [`PREPROCESSED_MARKER`] stands, in
    /// its place, after the headers the file included.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub preprocessed: bool,
    /// Write what the inserted code needs declared (handles, CTC strings,
    /// prototypes) into a file of its own, which the output includes by
    /// this name (OPARI2's `INFILE.opari.inc`): C includes it where the
    /// declarations would stand, each Fortran program unit that uses them
    /// in its specification part.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declarations_file: Option<String>,
    /// Make the texts of the C and C++ constructs only as the output is
    /// written, each where it goes: a large file's inserted text is then
    /// never held whole. What the output is stays the same; whoever reads
    /// the edits' own texts (the preview) leaves this off.
    #[serde(skip)]
    pub texts_when_written: bool,
}

/// What an emitter makes of a file.
#[derive(Debug, Default)]
pub struct Emitted {
    pub edits: crate::edits::EditSet,
    /// The text of the declarations' own file, when
    /// [`Config::declarations_file`] puts them into one.
    pub declarations: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            line_markers: true,
            preprocessed: false,
            declarations_file: None,
            texts_when_written: false,
        }
    }
}

/// The line that marks, in a preprocessed file, where instrumentation's
/// declarations go (OPARI2's convention).
pub const PREPROCESSED_MARKER: &str = "___POMP2_INCLUDE___";

/// The byte range of the [`PREPROCESSED_MARKER`] line, its line break
/// included.
pub fn preprocessed_marker(bytes: &[u8]) -> Option<std::ops::Range<usize>> {
    let mut start = 0;
    while start < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |p| start + p + 1);
        if bytes[start..end].trim_ascii() == PREPROCESSED_MARKER.as_bytes() {
            return Some(start..end);
        }
        start = end;
    }
    None
}

/// What an emitter writes for each kind of item a plan holds. Both
/// languages walk a plan in the one order [`write_plan`] gives, so that
/// edits at the same place come out alike whatever the language.
pub(super) trait PlanWriter {
    /// The construct at `index` of the plan's constructs.
    fn construct(&mut self, index: usize, construct: &crate::rules::Construct);
    fn pomp_directive(&mut self, site: usize, action: &crate::rules::PompAction);
    fn bare_directive(&mut self, bare: &crate::rules::BareDirective);
    fn value_scope(&mut self, scope: &crate::rules::ValueScope);
    fn exit(&mut self, exit: &crate::rules::RegionExit);
    fn function(&mut self, function: &crate::rules::FunctionRegion);
    fn lock_call(&mut self, lock: &crate::model::LockCall);
}

pub(super) fn write_plan(plan: &crate::rules::Plan, writer: &mut impl PlanWriter) {
    for (index, construct) in plan.constructs.iter().enumerate() {
        writer.construct(index, construct);
    }
    for (site, action) in &plan.pomp_directives {
        writer.pomp_directive(*site, action);
    }
    for bare in &plan.bare_directives {
        writer.bare_directive(bare);
    }
    for scope in &plan.value_scopes {
        writer.value_scope(scope);
    }
    for exit in &plan.region_exits {
        writer.exit(exit);
    }
    for function in &plan.functions {
        writer.function(function);
    }
    for lock in &plan.lock_calls {
        writer.lock_call(lock);
    }
}

/// About how many edits [`write_plan`] makes of `plan`: an opening and a
/// closing for each construct, function, scope of values and jump out of
/// user regions, one for everything else, and the file's own two. Too
/// few would copy the whole list once it is full.
pub(super) fn edits_expected(plan: &crate::rules::Plan) -> usize {
    2 * (plan.constructs.len()
        + plan.functions.len()
        + plan.value_scopes.len()
        + plan.region_exits.len()
        + 1)
        + plan.pomp_directives.len()
        + plan.bare_directives.len()
        + plan.lock_calls.len()
}

/// `text` to be appended to `file`, starting on a line of its own.
pub(super) fn on_lines_of_its_own(file: &crate::source::SourceFile, text: String) -> String {
    if file.bytes.ends_with(b"\n") || file.bytes.is_empty() {
        text
    } else {
        format!("\n{text}")
    }
}

/// What the lines of a pomp directive become: the calls that replace it and
/// the line marker resuming the user's numbering, or, when nothing replaces
/// it, an empty line, so that the numbering below it holds without one.
pub(crate) fn directive_replacement(calls: String, resume: String) -> String {
    if calls.is_empty() {
        "\n".to_string()
    } else {
        calls + &resume
    }
}

/// Nesting depth of a site, the order of edits at one offset: inner
/// constructs open after and close before outer ones.
pub(crate) fn nesting_depth(model: &crate::model::Model, site: usize) -> i64 {
    let mut depth = 0;
    let mut parent = model.sites[site].parent;
    while let Some(p) = parent {
        depth += 1;
        parent = model.sites[p].parent;
    }
    depth
}

/// What a region's context descriptor of the original interface says
/// besides its lines, the same in C and Fortran.
pub(crate) struct Pomp1Descriptor {
    /// The construct, or "region" for a user region.
    pub name: String,
    /// The critical section's or user region's name, else the enclosing
    /// function's.
    pub sub_name: String,
    pub num_sections: String,
}

impl Pomp1Descriptor {
    pub fn of(model: &crate::model::Model, region: &crate::rules::Region) -> Self {
        let unit = region.site.and_then(|s| model.sites[s].unit);
        let sub_name = region
            .name
            .clone()
            .or_else(|| unit.map(|u| model.units[u].name.clone()))
            .unwrap_or_default();
        let num_sections = region
            .aux
            .iter()
            .find(|(key, _)| key == "numSections")
            .map_or("0", |(_, value)| value.as_str())
            .to_string();
        Pomp1Descriptor {
            name: region.region_type.to_string(),
            sub_name,
            num_sections,
        }
    }
}

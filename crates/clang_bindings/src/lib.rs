//! A file parsed by libclang, and what pomp reads from it: the syntax tree
//! of the main file flattened into [`Node`]s, the raw tokens, the ranges
//! the preprocessor skipped, macro expansions and diagnostics. Everything
//! unsafe about libclang stays in this crate; what it offers is safe.
//! libclang must be loaded on the calling thread (clang-sys's `load`).

// libclang's constants keep their C names.
#![allow(non_upper_case_globals)]

use clang_sys::*;
use std::ffi::{CStr, CString};
use std::ops::Range;
use std::os::raw::{c_uint, c_void};
use std::path::Path;

/// A parsed translation unit; disposed of when dropped.
pub struct TranslationUnit {
    index: CXIndex,
    unit: CXTranslationUnit,
    main: CXFile,
    length: usize,
}

/// What kind of syntax a node is, as far as blocks are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Statement,
    Expression,
    Declaration,
    /// Macro expansions, references, attributes and the like.
    Other,
}

/// One cursor of the main file's syntax tree.
#[derive(Clone)]
pub struct Node {
    pub kind: CXCursorKind,
    pub class: Class,
    /// Its bytes in the main file: from the first character of its first
    /// token to the end of its last, macro uses taken whole. `None` when
    /// either end lies in another file.
    pub span: Option<Range<usize>>,
    pub parent: Option<usize>,
    cursor: CXCursor,
}

/// A raw token of the main file: what the lexer sees, before the
/// preprocessor (directive lines and skipped branches included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: CXTokenKind,
    pub start: usize,
    pub end: usize,
}

/// The category clang files the preprocessor's diagnostics under.
const PREPROCESSOR_CATEGORY: &str = "Lexical or Preprocessor Issue";

/// A diagnostic of the parse.
#[derive(Clone, Debug)]
pub struct ClangDiagnostic {
    pub error: bool,
    /// An error of the preprocessor (a header not found, `#error`): the
    /// compile stops there, and the errors after it may follow from it.
    pub preprocessor: bool,
    pub message: String,
    /// Where it points in the main file, if it does.
    pub offset: Option<usize>,
    /// Where it points in a header: the main file's `#include` through
    /// which that header is read.
    pub included_at: Option<usize>,
    /// `file:line:column: message` as clang prints it.
    pub formatted: String,
}

impl TranslationUnit {
    /// Parse `contents` as the file at `path` (absolute) with compiler
    /// arguments `args`. libclang must be loaded on this thread.
    pub fn parse(path: &Path, contents: &[u8], args: &[String]) -> Result<TranslationUnit, String> {
        let file_name = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| format!("{}: a path with a NUL byte", path.display()))?;
        let args: Vec<CString> = args
            .iter()
            .map(|a| CString::new(a.as_bytes()))
            .collect::<Result<_, _>>()
            .map_err(|_| "a compiler argument with a NUL byte".to_string())?;
        let arg_pointers: Vec<*const std::os::raw::c_char> =
            args.iter().map(|a| a.as_ptr()).collect();
        let mut unsaved = CXUnsavedFile {
            Filename: file_name.as_ptr(),
            Contents: contents.as_ptr().cast(),
            Length: contents.len() as _,
        };
        let options = CXTranslationUnit_DetailedPreprocessingRecord
            | CXTranslationUnit_KeepGoing
            | CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles;
        // SAFETY: every pointer handed over lives until the call returns;
        // libclang copies the unsaved contents.
        unsafe {
            let index = clang_createIndex(0, 0);
            let mut unit: CXTranslationUnit = std::ptr::null_mut();
            let code = clang_parseTranslationUnit2(
                index,
                file_name.as_ptr(),
                arg_pointers.as_ptr(),
                arg_pointers.len() as _,
                &mut unsaved,
                1,
                options,
                &mut unit,
            );
            if code != CXError_Success || unit.is_null() {
                clang_disposeIndex(index);
                return Err(format!("libclang could not parse the file (error {code})"));
            }
            let main = clang_getFile(unit, file_name.as_ptr());
            if main.is_null() {
                clang_disposeTranslationUnit(unit);
                clang_disposeIndex(index);
                return Err("libclang lost track of the file it parsed".into());
            }
            Ok(TranslationUnit {
                index,
                unit,
                main,
                length: contents.len(),
            })
        }
    }

    /// The offset of `location` in the main file, or `None` if it lies
    /// elsewhere. Locations inside macro expansions map to where the
    /// expansion (or the macro argument) is written.
    fn offset(&self, location: CXSourceLocation) -> Option<usize> {
        let mut file: CXFile = std::ptr::null_mut();
        let mut offset: c_uint = 0;
        // SAFETY: plain out-parameters.
        unsafe {
            clang_getFileLocation(
                location,
                &mut file,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut offset,
            );
            (!file.is_null() && clang_File_isEqual(file, self.main) != 0).then_some(offset as usize)
        }
    }

    fn range(&self, range: CXSourceRange) -> Option<Range<usize>> {
        // SAFETY: `range` comes from this unit.
        let (start, end) = unsafe { (clang_getRangeStart(range), clang_getRangeEnd(range)) };
        let start = self.offset(start)?;
        let end = self.offset(end)?;
        (start <= end && end <= self.length).then_some(start..end)
    }

    fn main_file_range(&self) -> CXSourceRange {
        // SAFETY: offsets within the main file's length.
        unsafe {
            clang_getRange(
                clang_getLocationForOffset(self.unit, self.main, 0),
                clang_getLocationForOffset(self.unit, self.main, self.length as c_uint),
            )
        }
    }

    /// Each header read and the offset in the main file of the `#include`
    /// through which it is read.
    fn inclusions(&self) -> Vec<(CXFile, usize)> {
        struct Visit<'u> {
            unit: &'u TranslationUnit,
            found: Vec<(CXFile, usize)>,
        }
        extern "C" fn visit(
            file: CXFile,
            stack: *mut CXSourceLocation,
            depth: c_uint,
            data: CXClientData,
        ) {
            // SAFETY: `data` is the `Visit` handed to clang_getInclusions
            // below, and `stack` holds `depth` locations, the last in the
            // main file.
            unsafe {
                let visit = &mut *data.cast::<Visit>();
                if depth > 0 {
                    let outermost = *stack.add(depth as usize - 1);
                    if let Some(at) = visit.unit.offset(outermost) {
                        visit.found.push((file, at));
                    }
                }
            }
        }
        let mut data = Visit {
            unit: self,
            found: Vec::new(),
        };
        // SAFETY: the visitor only reads what libclang hands it; `data`
        // outlives the call.
        unsafe {
            clang_getInclusions(self.unit, visit, (&mut data as *mut Visit).cast());
        }
        data.found
    }

    /// The `#include` of the main file through which `location`'s file is
    /// read, if it lies in a header.
    fn included_at(
        &self,
        location: CXSourceLocation,
        inclusions: &[(CXFile, usize)],
    ) -> Option<usize> {
        let mut file: CXFile = std::ptr::null_mut();
        // SAFETY: plain out-parameters; files compared by libclang.
        unsafe {
            clang_getFileLocation(
                location,
                &mut file,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            );
            if file.is_null() {
                return None;
            }
            inclusions
                .iter()
                .find(|(header, _)| clang_File_isEqual(*header, file) != 0)
                .map(|&(_, at)| at)
        }
    }

    /// Errors and fatal errors, and what they say.
    pub fn diagnostics(&self) -> Vec<ClangDiagnostic> {
        let mut found = Vec::new();
        let mut inclusions = None;
        // SAFETY: each diagnostic is disposed of after use.
        unsafe {
            for i in 0..clang_getNumDiagnostics(self.unit) {
                let diagnostic = clang_getDiagnostic(self.unit, i);
                let severity = clang_getDiagnosticSeverity(diagnostic);
                if severity >= CXDiagnostic_Warning {
                    let location = clang_getDiagnosticLocation(diagnostic);
                    let offset = self.offset(location);
                    let included_at = match offset {
                        Some(_) => None,
                        None => {
                            let inclusions = inclusions.get_or_insert_with(|| self.inclusions());
                            self.included_at(location, inclusions)
                        }
                    };
                    found.push(ClangDiagnostic {
                        error: severity >= CXDiagnostic_Error,
                        // Reading goes on past fatal errors (the unit is
                        // parsed to keep going), so they are told apart by
                        // their category.
                        preprocessor: severity >= CXDiagnostic_Fatal
                            || string(clang_getDiagnosticCategoryText(diagnostic))
                                == PREPROCESSOR_CATEGORY,
                        message: string(clang_getDiagnosticSpelling(diagnostic)),
                        offset,
                        included_at,
                        formatted: string(clang_formatDiagnostic(
                            diagnostic,
                            CXDiagnostic_DisplaySourceLocation | CXDiagnostic_DisplayColumn,
                        )),
                    });
                }
                clang_disposeDiagnostic(diagnostic);
            }
        }
        found
    }

    /// The main file's ranges the preprocessor skipped (inactive `#if`
    /// branches), in order.
    pub fn skipped_ranges(&self) -> Vec<Range<usize>> {
        let mut ranges = Vec::new();
        // SAFETY: the list is disposed of after it is read.
        unsafe {
            let list = clang_getSkippedRanges(self.unit, self.main);
            if list.is_null() {
                return ranges;
            }
            let items = std::slice::from_raw_parts((*list).ranges, (*list).count as usize);
            ranges.extend(items.iter().filter_map(|r| self.range(*r)));
            clang_disposeSourceRangeList(list);
        }
        ranges.sort_by_key(|r| r.start);
        ranges
    }

    /// Every raw token of the main file, in order.
    pub fn tokens(&self) -> Vec<Token> {
        self.tokens_in(self.main_file_range())
    }

    fn tokens_in(&self, range: CXSourceRange) -> Vec<Token> {
        let mut tokens: *mut CXToken = std::ptr::null_mut();
        let mut count: c_uint = 0;
        let mut found = Vec::new();
        // SAFETY: the token array is disposed of after it is read.
        unsafe {
            clang_tokenize(self.unit, range, &mut tokens, &mut count);
            if tokens.is_null() {
                return found;
            }
            for token in std::slice::from_raw_parts(tokens, count as usize) {
                if let Some(span) = self.range(clang_getTokenExtent(self.unit, *token)) {
                    found.push(Token {
                        kind: clang_getTokenKind(*token),
                        start: span.start,
                        end: span.end,
                    });
                }
            }
            clang_disposeTokens(self.unit, tokens, count);
        }
        found
    }

    /// The spellings of the tokens of a macro definition, wherever it is
    /// written: its name, its parameter list if any, then its body.
    pub fn definition_tokens(&self, definition: &Node) -> Vec<String> {
        let mut tokens: *mut CXToken = std::ptr::null_mut();
        let mut count: c_uint = 0;
        let mut spellings = Vec::new();
        // SAFETY: the token array is disposed of after it is read.
        unsafe {
            let extent = clang_getCursorExtent(definition.cursor);
            clang_tokenize(self.unit, extent, &mut tokens, &mut count);
            if tokens.is_null() {
                return spellings;
            }
            for token in std::slice::from_raw_parts(tokens, count as usize) {
                spellings.push(string(clang_getTokenSpelling(self.unit, *token)));
            }
            clang_disposeTokens(self.unit, tokens, count);
        }
        spellings
    }

    /// The syntax tree of the main file: every cursor of its declarations,
    /// statements and expressions, and its macro expansions, in pre-order.
    pub fn syntax(&self) -> Vec<Node> {
        struct Walk<'a> {
            unit: &'a TranslationUnit,
            nodes: Vec<Node>,
            /// The open ancestors of the next cursor: (cursor, node index).
            stack: Vec<(CXCursor, usize)>,
        }
        extern "C" fn visit(
            cursor: CXCursor,
            parent: CXCursor,
            data: CXClientData,
        ) -> CXChildVisitResult {
            // SAFETY: `data` is the `Walk` below, alive for the whole visit.
            let walk = unsafe { &mut *(data as *mut Walk) };
            // SAFETY: cursors handed to a visitor belong to the unit.
            unsafe {
                while let Some((top, _)) = walk.stack.last() {
                    if clang_equalCursors(*top, parent) != 0 {
                        break;
                    }
                    walk.stack.pop();
                }
                let top_level = walk.stack.is_empty();
                if top_level && walk.unit.offset(clang_getCursorLocation(cursor)).is_none() {
                    // Declarations of headers, macros defined there.
                    return CXChildVisit_Continue;
                }
                let kind = clang_getCursorKind(cursor);
                let class = if clang_isStatement(kind) != 0 {
                    Class::Statement
                } else if clang_isExpression(kind) != 0 {
                    Class::Expression
                } else if clang_isDeclaration(kind) != 0 {
                    Class::Declaration
                } else {
                    Class::Other
                };
                let index = walk.nodes.len();
                walk.nodes.push(Node {
                    kind,
                    class,
                    span: walk.unit.range(clang_getCursorExtent(cursor)),
                    parent: walk.stack.last().map(|(_, i)| *i),
                    cursor,
                });
                walk.stack.push((cursor, index));
            }
            CXChildVisit_Recurse
        }
        let mut walk = Walk {
            unit: self,
            nodes: Vec::new(),
            stack: Vec::new(),
        };
        // SAFETY: the visitor only runs during this call.
        unsafe {
            clang_visitChildren(
                clang_getTranslationUnitCursor(self.unit),
                visit,
                &mut walk as *mut Walk as *mut c_void,
            );
        }
        walk.nodes
    }

    /// The name of the entity a node declares or refers to.
    pub fn spelling(&self, node: &Node) -> String {
        // SAFETY: the cursor belongs to this unit.
        unsafe { string(clang_getCursorSpelling(node.cursor)) }
    }

    /// The node a reference or macro expansion refers to, as a detached
    /// node (its span in the main file, if it lies there).
    pub fn referenced(&self, node: &Node) -> Option<Node> {
        // SAFETY: the cursor belongs to this unit.
        unsafe {
            let target = clang_getCursorReferenced(node.cursor);
            (clang_Cursor_isNull(target) == 0).then(|| self.detached(target))
        }
    }

    /// The semantic parent of a declaration (its class or namespace).
    pub fn semantic_parent(&self, node: &Node) -> Option<Node> {
        // SAFETY: the cursor belongs to this unit.
        unsafe {
            let parent = clang_getCursorSemanticParent(node.cursor);
            let usable = clang_Cursor_isNull(parent) == 0
                && clang_isInvalid(clang_getCursorKind(parent)) == 0
                && clang_isTranslationUnit(clang_getCursorKind(parent)) == 0;
            usable.then(|| self.detached(parent))
        }
    }

    /// Whether a declaration is a definition (a function with its body).
    pub fn is_definition(&self, node: &Node) -> bool {
        // SAFETY: the cursor belongs to this unit.
        unsafe { clang_isCursorDefinition(node.cursor) != 0 }
    }

    /// Whether a macro definition takes arguments.
    pub fn is_function_like_macro(&self, definition: &Node) -> bool {
        // SAFETY: the cursor belongs to this unit.
        unsafe { clang_Cursor_isMacroFunctionLike(definition.cursor) != 0 }
    }

    /// `file:line` of a node, wherever it is.
    pub fn place(&self, node: &Node) -> String {
        let mut file: CXFile = std::ptr::null_mut();
        let mut line: c_uint = 0;
        // SAFETY: plain out-parameters; the name is disposed of by `string`.
        unsafe {
            clang_getFileLocation(
                clang_getCursorLocation(node.cursor),
                &mut file,
                &mut line,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            );
            if file.is_null() {
                return "<built-in>".into();
            }
            format!("{}:{line}", string(clang_getFileName(file)))
        }
    }

    fn detached(&self, cursor: CXCursor) -> Node {
        // SAFETY: the cursor belongs to this unit.
        unsafe {
            Node {
                kind: clang_getCursorKind(cursor),
                class: Class::Other,
                span: self.range(clang_getCursorExtent(cursor)),
                parent: None,
                cursor,
            }
        }
    }
}

impl Drop for TranslationUnit {
    fn drop(&mut self) {
        // SAFETY: both were created by `parse` and are disposed of once.
        unsafe {
            clang_disposeTranslationUnit(self.unit);
            clang_disposeIndex(self.index);
        }
    }
}

/// The text of a libclang string, which is then disposed of.
///
/// # Safety
/// `s` must be a string libclang returned and not yet disposed of.
unsafe fn string(s: CXString) -> String {
    let text = clang_getCString(s);
    let owned = if text.is_null() {
        String::new()
    } else {
        CStr::from_ptr(text).to_string_lossy().into_owned()
    };
    clang_disposeString(s);
    owned
}

//! Byte offsets as editors count positions: the Language Server Protocol's
//! 0-based lines, ended by `\n`, `\r\n` or a lone `\r`, and columns in
//! UTF-16 code units (its default), UTF-8 bytes or Unicode scalar values,
//! whichever the client and server agreed on.

use serde::Serialize;

/// How columns are counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Encoding {
    /// Bytes of UTF-8.
    Utf8,
    /// UTF-16 code units, the protocol's default.
    #[default]
    Utf16,
    /// Unicode scalar values.
    Utf32,
}

impl Encoding {
    /// The name the protocol gives it (`positionEncoding`).
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf-8",
            Encoding::Utf16 => "utf-16",
            Encoding::Utf32 => "utf-32",
        }
    }

    fn units(self, c: char) -> usize {
        match self {
            Encoding::Utf8 => c.len_utf8(),
            Encoding::Utf16 => c.len_utf16(),
            Encoding::Utf32 => 1,
        }
    }
}

/// Where each line of a text starts, to turn byte offsets into positions
/// and back.
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    /// Byte offset of the start of each line; the first is 0.
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &[u8]) -> LineIndex {
        let mut starts = vec![0];
        let mut at = 0;
        while let Some(found) = memchr::memchr2(b'\n', b'\r', &text[at..]) {
            let end = at + found;
            // `\r\n` is one line break, not two.
            let next = if text[end] == b'\r' && text.get(end + 1) == Some(&b'\n') {
                end + 2
            } else {
                end + 1
            };
            starts.push(next);
            at = next;
        }
        LineIndex { starts }
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// The 0-based line holding byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset) - 1
    }

    /// The position of byte `offset` of `text` (the text this index was
    /// made from). An offset inside a character counts as that character's
    /// start; one past the end is the end of the last line.
    pub fn position(&self, text: &[u8], offset: usize, encoding: Encoding) -> lsp_types::Position {
        let offset = offset.min(text.len());
        let line = self.line_of(offset);
        let start = self.starts[line];
        // Only this line: `characters` checks the UTF-8 of all it is given
        // before yielding, and the rest of a large file costs that much per
        // position.
        let next = self
            .starts
            .get(line + 1)
            .map_or(text.len(), |&next| next.min(text.len()));
        let character: usize = characters(&text[start..next], encoding)
            .take_while(|&(at, bytes, _)| at + bytes <= offset - start)
            .map(|(_, _, units)| units)
            .sum();
        lsp_types::Position::new(line as u32, character as u32)
    }

    /// The byte offset of `position` in `text`. A line past the end is the
    /// end of the text; a column past the end of its line is the line's
    /// end (before its line break), as the protocol asks; a column inside
    /// a character is that character's start.
    pub fn offset(&self, text: &[u8], position: lsp_types::Position, encoding: Encoding) -> usize {
        let line = position.line as usize;
        let Some(&start) = self.starts.get(line) else {
            return text.len();
        };
        let end = self.line_content_end(text, line);
        let wanted = position.character as usize;
        let mut counted = 0;
        for (at, _, units) in characters(&text[start..end], encoding) {
            if counted + units > wanted {
                return start + at;
            }
            counted += units;
        }
        end
    }

    /// The byte range of `range` in `text`.
    pub fn span(
        &self,
        text: &[u8],
        range: lsp_types::Range,
        encoding: Encoding,
    ) -> std::ops::Range<usize> {
        let start = self.offset(text, range.start, encoding);
        let end = self.offset(text, range.end, encoding).max(start);
        start..end
    }

    /// The range of bytes `span` of `text`.
    pub fn range(
        &self,
        text: &[u8],
        span: std::ops::Range<usize>,
        encoding: Encoding,
    ) -> lsp_types::Range {
        lsp_types::Range::new(
            self.position(text, span.start, encoding),
            self.position(text, span.end, encoding),
        )
    }

    /// Where line `line`'s content ends: at its line break.
    fn line_content_end(&self, text: &[u8], line: usize) -> usize {
        let mut end = self.starts.get(line + 1).copied().unwrap_or(text.len());
        if end > self.starts[line] && line + 1 < self.starts.len() {
            end -= 1;
            if text[end] == b'\n' && end > self.starts[line] && text[end - 1] == b'\r' {
                end -= 1;
            }
        }
        end
    }
}

/// Each character of `bytes`: its byte offset, its length in bytes and in
/// `encoding`'s units. A byte that is not UTF-8 (a file in Latin-1, say)
/// counts as one character of one unit.
fn characters(
    bytes: &[u8],
    encoding: Encoding,
) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    let mut at = 0;
    bytes.utf8_chunks().flat_map(move |chunk| {
        let first = at;
        at += chunk.valid().len() + chunk.invalid().len();
        let valid = chunk
            .valid()
            .char_indices()
            .map(move |(i, c)| (first + i, c.len_utf8(), encoding.units(c)));
        let after_valid = first + chunk.valid().len();
        let invalid = (0..chunk.invalid().len()).map(move |i| (after_valid + i, 1, 1));
        valid.chain(invalid)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::Position;

    #[test]
    fn columns_count_utf16_units_for_text_outside_ascii() {
        // 'é' is two bytes and one UTF-16 unit; '𝜋' four bytes and two units.
        let text = "int é = 1; // 𝜋x\nnext\n".as_bytes();
        let index = LineIndex::new(text);
        let x = text.iter().position(|&b| b == b'x').unwrap();
        assert_eq!(
            index.position(text, x, Encoding::Utf16),
            Position::new(0, 16)
        );
        assert_eq!(
            index.position(text, x, Encoding::Utf32),
            Position::new(0, 15)
        );
        assert_eq!(
            index.position(text, x, Encoding::Utf8),
            Position::new(0, 19)
        );
        for encoding in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
            let position = index.position(text, x, encoding);
            assert_eq!(index.offset(text, position, encoding), x, "{encoding:?}");
        }
        let next = text.len() - 5;
        assert_eq!(
            index.position(text, next, Encoding::Utf16),
            Position::new(1, 0)
        );
    }

    #[test]
    fn crlf_and_lone_cr_end_lines_and_are_not_columns() {
        let text = b"a\r\nbc\rd\n";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 4);
        assert_eq!(
            index.position(text, 4, Encoding::Utf16),
            Position::new(1, 1)
        );
        assert_eq!(
            index.position(text, 6, Encoding::Utf16),
            Position::new(2, 0)
        );
        // Past the end of a line is its end, before the `\r\n`.
        assert_eq!(index.offset(text, Position::new(0, 9), Encoding::Utf16), 1);
        assert_eq!(index.offset(text, Position::new(1, 9), Encoding::Utf16), 5);
        assert_eq!(index.offset(text, Position::new(7, 0), Encoding::Utf16), 8);
    }

    #[test]
    fn a_position_inside_a_character_is_its_start() {
        let text = "𝜋=1".as_bytes();
        let index = LineIndex::new(text);
        assert_eq!(index.offset(text, Position::new(0, 1), Encoding::Utf16), 0);
        assert_eq!(index.offset(text, Position::new(0, 2), Encoding::Utf16), 4);
        assert_eq!(index.offset(text, Position::new(0, 2), Encoding::Utf8), 0);
        assert_eq!(
            index.position(text, 2, Encoding::Utf16),
            Position::new(0, 0)
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_count_one_each() {
        let text = b"x\xe9y = 1\n";
        let index = LineIndex::new(text);
        let y = 2;
        let position = index.position(text, y, Encoding::Utf16);
        assert_eq!(position, Position::new(0, 2));
        assert_eq!(index.offset(text, position, Encoding::Utf16), y);
    }
}

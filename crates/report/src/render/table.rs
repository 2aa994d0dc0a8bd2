//! Aligned text tables whose cells may carry a style; widths are measured
//! on the text alone, so colour never shifts a column.

use anstyle::Style;
use std::fmt::Write as _;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

pub struct Cell {
    pub text: String,
    pub style: Style,
}

impl Cell {
    pub fn plain(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            style: Style::new(),
        }
    }

    pub fn styled(text: impl Into<String>, style: Style) -> Cell {
        Cell {
            text: text.into(),
            style,
        }
    }
}

impl<T: Into<String>> From<T> for Cell {
    fn from(text: T) -> Cell {
        Cell::plain(text)
    }
}

pub struct Table {
    headers: Vec<(&'static str, Align)>,
    rows: Vec<Vec<Cell>>,
}

impl Table {
    pub fn new(headers: &[(&'static str, Align)]) -> Table {
        Table {
            headers: headers.to_vec(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<Cell>) {
        debug_assert_eq!(cells.len(), self.headers.len());
        self.rows.push(cells);
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The table, indented by two spaces, without trailing blanks.
    pub fn render(&self, out: &mut String) {
        let width = |text: &str| text.chars().count();
        let mut widths: Vec<usize> = self.headers.iter().map(|(h, _)| width(h)).collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(width(&cell.text));
            }
        }
        let header_style = Style::new().bold();
        let last = self.headers.len() - 1;
        let header: Vec<Cell> = self
            .headers
            .iter()
            .map(|(h, _)| Cell::styled(*h, header_style))
            .collect();
        for row in std::iter::once(&header).chain(&self.rows) {
            let mut line = String::from(" ");
            for (i, cell) in row.iter().enumerate() {
                let pad = widths[i] - width(&cell.text);
                let (before, after) = match self.headers[i].1 {
                    Align::Right => (pad, 0),
                    Align::Left => (0, pad),
                };
                line.push(' ');
                line.extend(std::iter::repeat_n(' ', before));
                if !cell.text.is_empty() {
                    let _ = write!(
                        line,
                        "{}{}{}",
                        cell.style.render(),
                        cell.text,
                        cell.style.render_reset()
                    );
                }
                line.extend(std::iter::repeat_n(' ', after));
                if i != last {
                    line.push(' ');
                }
            }
            out.push_str(line.trim_end_matches(' '));
            out.push('\n');
        }
    }
}

/// Nanoseconds with three significant digits in the largest fitting unit.
pub fn duration(ns: u64) -> String {
    let ns = ns as f64;
    let (value, unit) = if ns >= 1e9 {
        (ns / 1e9, "s")
    } else if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        return format!("{ns:.0} ns");
    };
    let decimals = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.decimals$} {unit}")
}

/// Bytes with three significant digits in the largest fitting unit:
/// `512 B`, `1.50 kB`, `12.3 MB` (powers of 1000).
pub fn bytes(n: u64) -> String {
    let units = ["kB", "MB", "GB", "TB"];
    if n < 1000 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1000.0;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < units.len() {
        value /= 1000.0;
        unit += 1;
    }
    let decimals = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.decimals$} {}", units[unit])
}

/// A signed duration: `+1.20 ms`, `−3.00 s`.
pub fn signed_duration(ns: i64) -> String {
    let sign = if ns < 0 { "−" } else { "+" };
    format!("{sign}{}", duration(ns.unsigned_abs()))
}

pub fn percent(share: f64) -> String {
    let value = share * 100.0;
    if value != 0.0 && value.abs() < 0.1 {
        "<0.1%".to_string()
    } else {
        format!("{value:.1}%")
    }
}

/// `1 thread`, `3 threads`.
pub fn threads(n: u64) -> String {
    if n == 1 {
        "1 thread".to_string()
    } else {
        format!("{n} threads")
    }
}

/// Counts with thousands separated: `1 234 567`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_keep_three_digits() {
        assert_eq!(duration(0), "0 ns");
        assert_eq!(duration(999), "999 ns");
        assert_eq!(duration(1_234), "1.23 µs");
        assert_eq!(duration(12_345_678), "12.3 ms");
        assert_eq!(duration(200_400_000), "200 ms");
        assert_eq!(duration(3_000_000_000), "3.00 s");
        assert_eq!(signed_duration(-1_500_000), "−1.50 ms");
        assert_eq!(bytes(999), "999 B");
        assert_eq!(bytes(1_500), "1.50 kB");
        assert_eq!(bytes(12_345_678), "12.3 MB");
    }

    #[test]
    fn percentages_and_counts() {
        assert_eq!(percent(0.0), "0.0%");
        assert_eq!(percent(0.0004), "<0.1%");
        assert_eq!(percent(0.333), "33.3%");
        assert_eq!(count(1_234_567), "1\u{202f}234\u{202f}567");
        assert_eq!(count(12), "12");
    }

    #[test]
    fn columns_align_whatever_the_style() {
        let mut table = Table::new(&[("time", Align::Right), ("what", Align::Left)]);
        table.row(vec![
            Cell::styled("1.00 s", Style::new().bold()),
            "parallel".into(),
        ]);
        table.row(vec!["20 ms".into(), "for".into()]);
        let mut out = String::new();
        table.render(&mut out);
        let plain = anstream::adapter::strip_str(&out).to_string();
        assert_eq!(plain, "    time  what\n  1.00 s  parallel\n   20 ms  for\n");
    }
}

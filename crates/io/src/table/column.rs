//! [`TextColumn`]: one column's cells held compactly. A cell whose text is exactly how an
//! `f32` prints (`12.5`, `-3`, `0`) is kept as that number; any other text is interned in
//! the column's dictionary and kept as a small code. Each cell takes 4 bytes, and each
//! distinct text is held once, so a column of numbers costs 4 bytes a row and a column of
//! 50,000 levels its distinct texts once plus 4 bytes a row. The text of every cell is
//! still there exactly as it was read (trimmed of surrounding spaces).

use std::fmt::{self, Write};
use std::hash::BuildHasher;
use std::sync::OnceLock;

use hashbrown::{DefaultHashBuilder, HashTable};

use super::cells::is_missing;
pub(crate) use super::printed::as_number;

/// Slots with every exponent bit set hold text codes: finite numbers never do.
const CODE_MARK: u32 = 0x7F80_0000;
/// The code bits of a slot below the sign bit.
const CODE_LOW: u32 = 0x007F_FFFF;
/// Codes a slot holds by itself (23 bits and the sign bit); larger codes keep their high
/// bits beside the slots.
const SLOT_CODES: u32 = 1 << 24;

/// One cell as a column holds it.
#[derive(Debug, Clone, Copy)]
pub enum Cell<'a> {
    /// A number whose text is exactly how this `f32` prints (`format!("{v}")`).
    Number(f32),
    /// Any other text (trimmed), missing cells included.
    Text(&'a str),
}

impl PartialEq for Cell<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Cell::Number(a), Cell::Number(b)) => a.to_bits() == b.to_bits(),
            (Cell::Text(a), Cell::Text(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Cell<'_> {}

impl<'a> Cell<'a> {
    /// The cell's text: borrowed for text, written into `buf` for a number.
    pub fn text<'b>(self, buf: &'b mut String) -> &'b str
    where
        'a: 'b,
    {
        match self {
            Cell::Text(t) => t,
            Cell::Number(v) => {
                buf.clear();
                let _ = write!(buf, "{v}");
                buf
            }
        }
    }

    /// Whether the cell is missing ([`is_missing`]).
    pub fn is_missing(self) -> bool {
        matches!(self, Cell::Text(t) if is_missing(t))
    }

    /// The cell as a finite `f32` ([`number_f32`](super::number_f32) of its text).
    pub fn number_f32(self) -> Option<f32> {
        match self {
            Cell::Number(v) => Some(v),
            Cell::Text(t) => super::cells::number_f32(t),
        }
    }

    /// The cell as yes or no ([`yes_no`](super::yes_no) of its text).
    pub fn yes_no(self) -> Option<bool> {
        match self {
            Cell::Number(v) if v.to_bits() == 0 => Some(false),
            Cell::Number(v) => (v == 1.0).then_some(true),
            Cell::Text(t) => super::cells::yes_no(t),
        }
    }

    /// The cell as a date written in `order` ([`DateTime::parse_in`](super::DateTime::parse_in)
    /// of its text; a number never is one).
    pub fn date(self, order: super::DateOrder) -> Option<super::DateTime> {
        match self {
            Cell::Number(_) => None,
            Cell::Text(t) => super::DateTime::parse_in(t, order),
        }
    }

    /// The cell as a finite `f64` ([`number`](super::number) of its text, exactly).
    pub fn number(self) -> Option<f64> {
        match self {
            // A whole number below 2^24 prints as itself: its f64 is exact.
            Cell::Number(v) if v.fract() == 0.0 && v.abs() < 16_777_216.0 => Some(f64::from(v)),
            Cell::Number(_) => super::cells::number(self.text(&mut String::new())),
            Cell::Text(t) => super::cells::number(t),
        }
    }
}

/// A cell as a column stores it, its text not looked up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Stored {
    /// A number whose text is exactly how it prints.
    Number(f32),
    /// The dictionary code of any other text.
    Code(u32),
}

/// The distinct texts of a column, each held once, by code in order of first appearance.
#[derive(Clone, Default)]
struct Dictionary {
    text: String,
    ends: Vec<usize>,
    index: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

fn text_of<'t>(text: &'t str, ends: &[usize], code: u32) -> &'t str {
    let c = code as usize;
    let start = if c == 0 { 0 } else { ends[c - 1] };
    &text[start..ends[c]]
}

impl Dictionary {
    fn get(&self, code: u32) -> &str {
        text_of(&self.text, &self.ends, code)
    }

    fn find(&self, t: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(t);
        self.index.find(hash, |&c| self.get(c) == t).copied()
    }

    fn intern(&mut self, t: &str) -> u32 {
        let Dictionary {
            text,
            ends,
            index,
            hasher,
        } = self;
        let hash = hasher.hash_one(t);
        let entry = index.entry(
            hash,
            |&c| text_of(text, ends, c) == t,
            |&c| hasher.hash_one(text_of(text, ends, c)),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(e) => *e.get(),
            hashbrown::hash_table::Entry::Vacant(e) => {
                let code = ends.len() as u32;
                e.insert(code);
                text.push_str(t);
                ends.push(text.len());
                code
            }
        }
    }

    fn bytes(&self) -> usize {
        self.text.capacity() + 8 * self.ends.capacity() + 5 * self.index.capacity()
    }
}

/// One column's cells: numbers where the text is exactly a printed `f32`, codes into the
/// column's dictionary of distinct texts otherwise.
#[derive(Clone, Default)]
pub struct TextColumn {
    slots: Vec<u32>,
    /// The code bits above 24 of each cell, once a code needs them (empty until then).
    high: Vec<u8>,
    dict: Dictionary,
    /// The text of the number cells, written out the first time [`get`](Self::get) needs it.
    printed: OnceLock<(String, Vec<usize>)>,
}

impl TextColumn {
    /// An empty column with room for `rows` cells.
    pub fn with_capacity(rows: usize) -> Self {
        TextColumn {
            slots: Vec::with_capacity(rows),
            ..TextColumn::default()
        }
    }

    /// Appends a cell (trimmed of surrounding spaces).
    pub fn push(&mut self, cell: &str) {
        let t = super::cells::trim(cell);
        if self.printed.get().is_some() {
            self.printed = OnceLock::new();
        }
        let (slot, high) = match as_number(t) {
            Some(v) => (v.to_bits(), 0),
            None => {
                let code = self.dict.intern(t);
                let low = code % SLOT_CODES;
                let slot = CODE_MARK | (low & CODE_LOW) | ((low >> 23) << 31);
                (slot, (code / SLOT_CODES) as u8)
            }
        };
        if high > 0 && self.high.is_empty() {
            self.high.resize(self.slots.len(), 0);
        }
        if !self.high.is_empty() {
            self.high.push(high);
        }
        self.slots.push(slot);
    }

    /// Gives back the room kept for more cells.
    pub fn shrink_to_fit(&mut self) {
        self.slots.shrink_to_fit();
        self.high.shrink_to_fit();
        self.dict.text.shrink_to_fit();
        self.dict.ends.shrink_to_fit();
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the column has no cells.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The dictionary code of cell `r`, `None` for a number.
    pub fn code(&self, r: usize) -> Option<u32> {
        let slot = self.slots[r];
        if slot & CODE_MARK != CODE_MARK {
            return None;
        }
        let low = (slot & CODE_LOW) | ((slot >> 31) << 23);
        let high = self.high.get(r).map_or(0, |&h| u32::from(h));
        Some(high * SLOT_CODES + low)
    }

    /// Cell `r` as the column stores it: a number, or the code of its text.
    pub(crate) fn stored(&self, r: usize) -> Stored {
        match self.code(r) {
            Some(code) => Stored::Code(code),
            None => Stored::Number(f32::from_bits(self.slots[r])),
        }
    }

    /// Cell `r` (panics when `r >= len()`, like slice indexing).
    pub fn cell(&self, r: usize) -> Cell<'_> {
        match self.code(r) {
            Some(code) => Cell::Text(self.dict.get(code)),
            None => Cell::Number(f32::from_bits(self.slots[r])),
        }
    }

    /// The text of cell `r` (panics when `r >= len()`). The first call on a column holding
    /// numbers writes out their text, which the column then keeps: code that reads many
    /// cells should use [`cell`](Self::cell).
    pub fn get(&self, r: usize) -> &str {
        match self.cell(r) {
            Cell::Text(t) => t,
            Cell::Number(_) => {
                let (text, ends) = self.printed.get_or_init(|| self.print_numbers());
                let start = if r == 0 { 0 } else { ends[r - 1] };
                &text[start..ends[r]]
            }
        }
    }

    fn print_numbers(&self) -> (String, Vec<usize>) {
        let mut text = String::new();
        let mut ends = Vec::with_capacity(self.len());
        for r in 0..self.len() {
            if let Cell::Number(v) = self.cell(r) {
                let _ = write!(text, "{v}");
            }
            ends.push(text.len());
        }
        (text, ends)
    }

    /// The cells' text in order (see [`get`](Self::get)).
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(|r| self.get(r))
    }

    /// The cells in order.
    pub fn cells(&self) -> impl Iterator<Item = Cell<'_>> + '_ {
        (0..self.len()).map(|r| self.cell(r))
    }

    /// The number of distinct texts in the dictionary (codes run from 0 below it).
    pub fn codes(&self) -> usize {
        self.dict.ends.len()
    }

    /// The text of dictionary code `code` (panics when out of range).
    pub fn code_text(&self, code: u32) -> &str {
        self.dict.get(code)
    }

    /// The code of a text in the dictionary, if a cell holds it as text.
    pub fn find_code(&self, text: &str) -> Option<u32> {
        self.dict.find(text)
    }

    /// Bytes held (the cells and the dictionary).
    pub fn bytes(&self) -> usize {
        4 * self.slots.capacity() + self.high.capacity() + self.dict.bytes()
    }
}

impl PartialEq for TextColumn {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.cells().eq(other.cells())
    }
}

impl Eq for TextColumn {}

impl fmt::Debug for TextColumn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.cells()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_back_as_written() {
        let cells = ["3", " 1.50 ", "red", "", "red", "-0", "16777217", "0.1"];
        let mut column = TextColumn::default();
        cells.iter().for_each(|c| column.push(c));
        let back: Vec<&str> = column.iter().collect();
        let trimmed: Vec<&str> = cells.iter().map(|c| c.trim()).collect();
        assert_eq!(back, trimmed);
        assert_eq!(column.codes(), 4, "1.50, red, the empty cell and 16777217");
        assert_eq!(column.cell(0), Cell::Number(3.0));
        assert_eq!(column.cell(4), Cell::Text("red"));
        assert_eq!(column.code(2), column.code(4));
        assert_eq!(
            column.cell(7).number(),
            Some(0.1),
            "the text's f64, not the f32's"
        );
        assert!(column.cell(3).is_missing() && !column.cell(5).is_missing());
    }

    #[test]
    fn codes_beyond_a_slot_keep_their_high_bits() {
        let mut column = TextColumn::default();
        for i in 0..3 {
            column.push(&format!("t{i}"));
        }
        // Codes of 2^24 and more: as if the dictionary were that large.
        column
            .dict
            .ends
            .resize(SLOT_CODES as usize + 5, column.dict.text.len());
        column.push("after");
        column.push("t1");
        assert_eq!(column.code(3), Some(SLOT_CODES + 5));
        assert_eq!(column.get(3), "after");
        assert_eq!((column.get(4), column.get(0)), ("t1", "t0"));
    }
}

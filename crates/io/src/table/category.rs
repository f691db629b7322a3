//! One-hot categories over a column's dictionary: levels counted once per distinct text,
//! cells matched to levels by code, not by text.

use std::borrow::Cow;
use std::collections::HashMap;

use super::cells::is_missing;
use super::column::Stored;
use super::encode::{ColumnEncoder, EncodeOptions};
use super::printed::as_number;
use super::text::ColumnRef;

/// Fits one-hot levels: the most frequent levels seen at least `min_count` times, at most
/// `max_levels` of them, ties in text order.
pub(super) fn fit_category(
    column_name: String,
    column: ColumnRef<'_>,
    options: &EncodeOptions,
) -> ColumnEncoder {
    let data = column.data();
    let mut per_code = vec![0usize; data.codes()];
    let mut numbers: HashMap<u32, usize> = HashMap::new();
    for cell in column.stored() {
        match cell {
            Stored::Code(code) => per_code[code as usize] += 1,
            Stored::Number(v) => *numbers.entry(v.to_bits()).or_insert(0) += 1,
        }
    }
    let mut missing = false;
    let mut levels: Vec<(Cow<'_, str>, usize)> = numbers
        .into_iter()
        .map(|(bits, n)| (Cow::Owned(f32::from_bits(bits).to_string()), n))
        .collect();
    for (code, &n) in per_code.iter().enumerate().filter(|(_, n)| **n > 0) {
        let text = data.code_text(code as u32);
        if is_missing(text) {
            missing = true;
        } else {
            levels.push((Cow::Borrowed(text), n));
        }
    }
    // Most frequent first; ties in text order, so that the encoding does not depend on hashing.
    levels.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let total = levels.len();
    let kept: Vec<String> = levels
        .iter()
        .filter(|(_, n)| *n >= options.min_count.max(1))
        .take(options.max_levels)
        .map(|(l, _)| l.to_string())
        .collect();
    ColumnEncoder::Category {
        column: column_name,
        other: kept.len() < total,
        levels: kept,
        missing,
    }
}

/// Writes the one-hot columns of `levels` (then `other`, then `missing` where present) for
/// every cell of `column` into `out` (row-major, `width` values a row) from column `offset`:
/// the 1 of each row, over the zeros that `out` holds there already.
pub(super) fn encode_category(
    levels: &[String],
    other: bool,
    missing: bool,
    column: ColumnRef<'_>,
    out: &mut [f32],
    width: usize,
    offset: usize,
) {
    let data = column.data();
    let other_at = other.then_some(levels.len());
    let missing_at = missing.then_some(levels.len() + usize::from(other));
    let mut by_code: Vec<Option<usize>> = (0..data.codes())
        .map(|code| match is_missing(data.code_text(code as u32)) {
            true => missing_at.or(other_at),
            false => other_at,
        })
        .collect();
    let mut by_number: HashMap<u32, usize> = HashMap::new();
    for (i, level) in levels.iter().enumerate() {
        match as_number(level) {
            Some(v) => {
                by_number.insert(v.to_bits(), i);
            }
            None => {
                if let Some(code) = data.find_code(level) {
                    by_code[code as usize] = Some(i);
                }
            }
        }
    }
    for (row, cell) in out.chunks_exact_mut(width).zip(column.stored()) {
        let slot = match cell {
            Stored::Code(code) => by_code[code as usize],
            Stored::Number(v) => by_number.get(&v.to_bits()).copied().or(other_at),
        };
        if let Some(i) = slot {
            row[offset + i] = 1.0;
        }
    }
}

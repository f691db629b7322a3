//! Column names of a bounded length. A header cell can be any length (a 1 MB name reads
//! like any other), but names are stored again and again: in the model file's and the
//! checkpoint's metadata, in `schema.json`, and in every feature name derived from them
//! (one per piecewise-linear bin). A name longer than [`MAX_NAME_BYTES`] is therefore held
//! as [`short_name`]: its beginning, its length and a hash of the whole name. Every table
//! holds its names in that form and every lookup by name shortens the name asked for, so a
//! new table whose header carries the full name matches the column a model reads.

use std::borrow::Cow;

/// The longest column name held as it is, in bytes.
pub const MAX_NAME_BYTES: usize = 256;

/// FNV-1a, 64 bits: stable across runs, platforms and versions (a model file stores it).
fn fnv1a64(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes
        .iter()
        .fold(OFFSET, |h, &b| (h ^ u64::from(b)).wrapping_mul(PRIME))
}

/// `name` as it is held: itself when at most [`MAX_NAME_BYTES`] long, else its beginning,
/// its length and a hash of the whole name, e.g. `income_of_the_household_…[1048576 bytes
/// #0f3a9c2e7d1b5a46]`, at most [`MAX_NAME_BYTES`] long. Two names that differ anywhere
/// have different short forms (up to the hash's collisions), and a short form is its own
/// short form.
pub fn short_name(name: &str) -> Cow<'_, str> {
    if name.len() <= MAX_NAME_BYTES {
        return Cow::Borrowed(name);
    }
    let tail = format!("…[{} bytes #{:016x}]", name.len(), fnv1a64(name.as_bytes()));
    let mut end = MAX_NAME_BYTES - tail.len();
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}{tail}", &name[..end]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_bounded_distinct_recognisable_and_stable() {
        assert_eq!(short_name("price"), "price");
        let exact = "a".repeat(MAX_NAME_BYTES);
        assert_eq!(short_name(&exact), exact.as_str());
        let long = "é".repeat(600_000);
        let short = short_name(&long);
        assert!(short.len() <= MAX_NAME_BYTES, "{}", short.len());
        assert!(short.starts_with("éééé"), "{short}");
        assert!(short.contains("1200000 bytes"), "{short}");
        assert_eq!(short_name(&short), short);
        let mut other = long.clone();
        other.push('x');
        assert_ne!(short_name(&other), short);
        assert_eq!(short_name(&long), short);
    }
}

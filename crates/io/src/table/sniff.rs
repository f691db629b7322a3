//! What a file handed over as a text table really holds: a compressed archive, an image, a
//! Parquet or Excel file, random bytes, or text in UTF-16 (Excel's "Unicode Text"), which is
//! decoded; and cells cut short for messages ([`shown`]).

use std::borrow::Cow;

use crate::error::{Error, Result};

/// Leading bytes of file kinds that are not text tables, with what to call them and what to
/// do instead.
const MAGIC: [(&[u8], &str, &str); 12] = [
    (b"PAR1", "a Parquet file", "name it .parquet"),
    (b"\x1f\x8b", "a gzip-compressed file", "decompress it first"),
    (
        b"\x28\xb5\x2f\xfd",
        "a zstd-compressed file",
        "decompress it first",
    ),
    (b"BZh", "a bzip2-compressed file", "decompress it first"),
    (
        b"\xfd7zXZ\x00",
        "an xz-compressed file",
        "decompress it first",
    ),
    (
        b"PK\x03\x04",
        "a zip archive (or an Excel .xlsx workbook)",
        "unpack it, or save the sheet as CSV UTF-8",
    ),
    (
        b"\xd0\xcf\x11\xe0",
        "an Excel .xls workbook",
        "save the sheet as CSV UTF-8",
    ),
    (
        b"\x89PNG",
        "a PNG image",
        "a table is text (CSV, TSV), Parquet or JSON",
    ),
    (
        b"\xff\xd8\xff",
        "a JPEG image",
        "a table is text (CSV, TSV), Parquet or JSON",
    ),
    (
        b"GIF8",
        "a GIF image",
        "a table is text (CSV, TSV), Parquet or JSON",
    ),
    (
        b"%PDF",
        "a PDF document",
        "a table is text (CSV, TSV), Parquet or JSON",
    ),
    (
        b"SQLite format 3\x00",
        "an SQLite database",
        "export a table as CSV",
    ),
];

/// Bytes looked at to tell text from binary data.
const TEXT_SAMPLE: usize = 64 * 1024;

/// The bytes of a text table as UTF-8: UTF-16 text with a byte-order mark (Excel's "Unicode
/// Text") decoded, a UTF-8 byte-order mark dropped; errors naming what the bytes are when
/// they are a known binary kind (compressed, an image, Parquet, Excel) or not text at all.
pub(crate) fn text_bytes<'a>(bytes: &'a [u8], source_name: &str) -> Result<Cow<'a, [u8]>> {
    let refuse = |what: &str, advice: &str| Error::NotText {
        source_name: source_name.to_string(),
        what: what.to_string(),
        advice: advice.to_string(),
    };
    if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
        return decode_utf16(rest, u16::from_le_bytes, source_name).map(Cow::Owned);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
        return decode_utf16(rest, u16::from_be_bytes, source_name).map(Cow::Owned);
    }
    if let Some((_, what, advice)) = MAGIC.iter().find(|(m, _, _)| bytes.starts_with(m)) {
        return Err(refuse(what, advice));
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let sample = &bytes[..bytes.len().min(TEXT_SAMPLE)];
    if looks_binary(sample) {
        return Err(refuse(
            "binary data",
            "a table is text (CSV, TSV), Parquet or JSON",
        ));
    }
    Ok(Cow::Borrowed(bytes))
}

/// Whether a sample holds a NUL byte, or more than one byte in twenty that are control
/// characters (text has none; random bytes have one in nine). Text in a legacy 8-bit
/// encoding (Latin-1, Windows-1252) is not binary: its reading names the first line that is
/// not UTF-8.
fn looks_binary(sample: &[u8]) -> bool {
    if sample.contains(&0) {
        return true;
    }
    let control = sample
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c))
        .count();
    control * 20 > sample.len()
}

/// UTF-16 text (after its byte-order mark) as UTF-8.
fn decode_utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16, source_name: &str) -> Result<Vec<u8>> {
    let units = bytes.chunks_exact(2).map(|p| unit([p[0], p[1]]));
    let text: String = char::decode_utf16(units)
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| Error::NotText {
            source_name: source_name.to_string(),
            what: "UTF-16 text with an unpaired surrogate".into(),
            advice: "save it as CSV UTF-8".into(),
        })?;
    if bytes.len() % 2 == 1 {
        return Err(Error::NotText {
            source_name: source_name.to_string(),
            what: "UTF-16 text cut in the middle of a character".into(),
            advice: "save it as CSV UTF-8".into(),
        });
    }
    Ok(text.into_bytes())
}

/// Characters of a cell echoed in a message or a note; longer cells are cut.
pub const SHOWN_CHARS: usize = 40;

/// A cell as echoed in a message: whole up to [`SHOWN_CHARS`] characters, otherwise its
/// start and how long it is (a 1 MB cell must not fill a terminal).
pub fn shown(cell: &str) -> Cow<'_, str> {
    match cell.char_indices().nth(SHOWN_CHARS) {
        None => Cow::Borrowed(cell),
        Some((end, _)) => Cow::Owned(format!(
            "{}... ({} characters)",
            &cell[..end],
            cell.chars().count()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_kinds_are_named() {
        let e = text_bytes(b"\x1f\x8b\x08\x00rest", "t.csv").unwrap_err();
        assert!(e.to_string().contains("gzip-compressed"), "{e}");
        let random: Vec<u8> = (0..4000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let e = text_bytes(&random, "r.csv").unwrap_err();
        assert!(e.to_string().contains("binary data"), "{e}");
        assert!(text_bytes("é,ü\n1,2\n".as_bytes(), "u.csv").is_ok());
        // Latin-1 text is text: its reading says where it is not UTF-8.
        assert!(text_bytes(b"caf\xe9,th\xe9\n\xe0,\xe8\n", "l.csv").is_ok());
    }

    #[test]
    fn utf16_is_decoded() {
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend("a\tb\r\n1\t2\r\n".encode_utf16().flat_map(u16::to_le_bytes));
        assert_eq!(&*text_bytes(&bytes, "u.txt").unwrap(), b"a\tb\r\n1\t2\r\n");
    }

    #[test]
    fn long_cells_are_cut() {
        assert_eq!(shown("short"), "short");
        let long = "é".repeat(1000);
        let s = shown(&long);
        assert!(s.starts_with(&"é".repeat(40)) && s.ends_with("... (1000 characters)"));
    }
}

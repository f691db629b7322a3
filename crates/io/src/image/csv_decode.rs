//! Pixel CSV back to a [`Picture`] of the size its coordinates imply.

use std::io::Read;
use std::path::Path;

use super::csv_encode::PixelValues;
use super::picture::{Picture, from_byte};
use crate::error::{Error, Result};

/// Reads a pixel CSV file into a picture; see [`decode_pixel_csv`].
pub fn read_pixel_csv(path: impl AsRef<Path>, values: PixelValues) -> Result<Picture> {
    let path = path.as_ref();
    let file = std::fs::File::open(path).map_err(|e| Error::io("read", path, e))?;
    decode_pixel_csv(
        std::io::BufReader::new(file),
        &path.display().to_string(),
        values,
    )
}

/// What a pixel CSV holds, read without keeping its rows: enough to tell what decoding it
/// will need before anything is allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelCsvExtent {
    /// Largest `x` plus one.
    pub width: usize,
    /// Largest `y` plus one.
    pub height: usize,
    /// Value columns: 1 (gray) or 3 (RGB).
    pub channels: usize,
    /// Data rows.
    pub rows: usize,
}

impl PixelCsvExtent {
    /// Bytes that [`read_pixel_csv`] holds at its peak for this CSV: its rows (40 bytes each,
    /// twice while the list grows), the picture (4 bytes a value) and the line of each pixel.
    pub fn decode_bytes(&self) -> u64 {
        let pixels = self.width as u64 * self.height as u64;
        80 * self.rows as u64 + pixels * (8 + 4 * self.channels as u64)
    }
}

/// One pass over a pixel CSV that reads only the header and each row's `x` and `y`, in
/// constant memory. `None` when the file is not a well-formed pixel CSV: [`read_pixel_csv`]
/// then says what is wrong with it.
pub fn pixel_csv_extent(path: impl AsRef<Path>) -> Result<Option<PixelCsvExtent>> {
    let path = path.as_ref();
    let file = std::fs::File::open(path).map_err(|e| Error::io("read", path, e))?;
    let mut rdr = ::csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(::csv::Trim::All)
        .from_reader(std::io::BufReader::new(file));
    let Ok(header) = rdr.headers() else {
        return Ok(None);
    };
    let channels = header.len().saturating_sub(2);
    if channels != 1 && channels != 3 {
        return Ok(None);
    }
    let (mut width, mut height, mut rows) = (0usize, 0usize, 0usize);
    let mut record = ::csv::ByteRecord::new();
    while let Ok(true) = rdr.read_byte_record(&mut record) {
        let index = |i: usize| {
            std::str::from_utf8(record.get(i).unwrap_or_default())
                .ok()
                .and_then(|t| t.parse::<u32>().ok())
        };
        let (Some(x), Some(y)) = (index(0), index(1)) else {
            return Ok(None);
        };
        width = width.max(x as usize + 1);
        height = height.max(y as usize + 1);
        rows += 1;
    }
    Ok(Some(PixelCsvExtent {
        width,
        height,
        channels,
        rows,
    }))
}

struct Row {
    x: usize,
    y: usize,
    line: u64,
    values: [f32; 3],
}

/// Reads pixel CSV written by [`encode_pixel_csv`](super::encode_pixel_csv): a header whose
/// first two columns are `x` and `y` followed by one (gray) or three (RGB) value columns, then
/// one row per pixel in any order.
///
/// The picture is `(max x + 1) x (max y + 1)`. A malformed row, a value out of range, a pixel
/// given twice or a pixel missing is an error naming the line or the pixel.
pub fn decode_pixel_csv<R: Read>(
    reader: R,
    source_name: &str,
    values: PixelValues,
) -> Result<Picture> {
    let err = |line: Option<u64>, message: String| Error::PixelCsv {
        source_name: source_name.to_string(),
        line,
        message,
    };
    let mut rdr = ::csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(::csv::Trim::All)
        .from_reader(reader);
    let header: Vec<String> = rdr
        .headers()
        .map_err(|e| err(Some(1), e.to_string()))?
        .iter()
        .map(str::to_string)
        .collect();
    if header.is_empty() || (header.len() == 1 && header[0].is_empty()) {
        return Err(Error::EmptyFile {
            source_name: source_name.to_string(),
        });
    }
    let xy_ok = header.len() >= 2
        && header[0].eq_ignore_ascii_case("x")
        && header[1].eq_ignore_ascii_case("y");
    if !xy_ok || !(header.len() == 3 || header.len() == 5) {
        return Err(err(
            Some(1),
            format!(
                "header `{}` is not `x,y,value` or `x,y,r,g,b`",
                header.join(",")
            ),
        ));
    }
    let channels = header.len() - 2;

    let mut rows: Vec<Row> = Vec::new();
    let mut record = ::csv::StringRecord::new();
    loop {
        match rdr.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                let line = e.position().map(::csv::Position::line);
                let message = match e.kind() {
                    ::csv::ErrorKind::UnequalLengths {
                        expected_len, len, ..
                    } => format!("row has {len} fields but the header has {expected_len}"),
                    _ => e.to_string(),
                };
                return Err(err(line, message));
            }
        }
        let line = record.position().map_or(0, ::csv::Position::line);
        let field = |i: usize| record.get(i).unwrap_or("");
        let index = |i: usize| -> Result<usize> {
            let t = field(i);
            t.parse::<u32>().map(|v| v as usize).map_err(|_| {
                err(
                    Some(line),
                    format!(
                        "column `{}`: `{t}` is not a pixel index (a whole number from 0)",
                        header[i]
                    ),
                )
            })
        };
        let (x, y) = (index(0)?, index(1)?);
        let mut vals = [0f32; 3];
        for (c, v) in vals.iter_mut().take(channels).enumerate() {
            let t = field(2 + c);
            *v = match values {
                PixelValues::Bytes => t.parse::<u8>().map(from_byte).ok(),
                PixelValues::Unit => t.parse::<f32>().ok().filter(|v| (0.0..=1.0).contains(v)),
            }
            .ok_or_else(|| {
                let want = match values {
                    PixelValues::Bytes => "a whole number from 0 to 255",
                    PixelValues::Unit => "a number from 0 to 1",
                };
                err(
                    Some(line),
                    format!("column `{}`: `{t}` is not {want}", header[2 + c]),
                )
            })?;
        }
        rows.push(Row {
            x,
            y,
            line,
            values: vals,
        });
    }
    if rows.is_empty() {
        return Err(Error::NoDataRows {
            source_name: source_name.to_string(),
            dropped: 0,
        });
    }
    let width = rows.iter().map(|r| r.x).max().unwrap_or(0) + 1;
    let height = rows.iter().map(|r| r.y).max().unwrap_or(0) + 1;
    let pixels = width as u128 * height as u128;
    let n_rows = rows.len() as u128;
    // A complete picture has exactly one row per pixel. Past this bound the coordinates imply
    // far more pixels than there are rows; say so without allocating the picture.
    if pixels > 4 * n_rows + 4096 {
        return Err(err(
            None,
            format!(
                "the coordinates imply a {width}x{height} picture ({pixels} pixels) but there are only {n_rows} rows"
            ),
        ));
    }
    let (width_u, pixels_u) = (width, width * height);
    let mut seen_line: Vec<u64> = vec![0; pixels_u];
    let mut data = vec![0f32; pixels_u * channels];
    for r in &rows {
        let i = r.y * width_u + r.x;
        if seen_line[i] != 0 {
            return Err(err(
                Some(r.line),
                format!(
                    "pixel ({}, {}) is given twice (first on line {})",
                    r.x, r.y, seen_line[i]
                ),
            ));
        }
        seen_line[i] = r.line.max(1);
        data[i * channels..(i + 1) * channels].copy_from_slice(&r.values[..channels]);
    }
    if let Some(i) = seen_line.iter().position(|&l| l == 0) {
        let missing = seen_line.iter().filter(|&&l| l == 0).count();
        return Err(err(
            None,
            format!(
                "pixel ({}, {}) is missing ({missing} of the {width}x{height} pixels have no row)",
                i % width_u,
                i / width_u
            ),
        ));
    }
    Picture::new(width, height, channels, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extent_is_read_from_the_coordinates_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.csv");
        std::fs::write(&path, "x,y,r,g,b\n0,0,1,2,3\n4,1,9,9,9\n2,6,0,0,0\n").unwrap();
        let extent = pixel_csv_extent(&path).unwrap().unwrap();
        let want = PixelCsvExtent {
            width: 5,
            height: 7,
            channels: 3,
            rows: 3,
        };
        assert_eq!(extent, want);
        assert_eq!(extent.decode_bytes(), 80 * 3 + 35 * (8 + 12));
        std::fs::write(&path, "x,y\n0,0\n").unwrap();
        assert_eq!(pixel_csv_extent(&path).unwrap(), None);
        std::fs::write(&path, "x,y,v\n0,-1,3\n").unwrap();
        assert_eq!(pixel_csv_extent(&path).unwrap(), None);
        assert!(pixel_csv_extent(dir.path().join("missing.csv")).is_err());
    }
}

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

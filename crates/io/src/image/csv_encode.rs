//! [`Picture`] to pixel CSV: one row per pixel, `x,y,value` or `x,y,r,g,b`.

use std::io::Write;
use std::path::Path;

use super::compact::CompactPicture;
use super::picture::{Picture, channel_names, to_byte};
use crate::error::{Error, Result};
use crate::output::OutputFile;

/// How pixel values are written in a pixel CSV.
///
/// Coordinates are always pixel indices (`x` the column, `y` the row, from 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PixelValues {
    /// Whole numbers `0..=255` (0 black, 255 white): `round(255 v)`. Pictures loaded from 8-bit
    /// images round-trip exactly, since their values are exactly `k / 255`. The default.
    #[default]
    Bytes,
    /// Floats in `[0, 1]`, written in the shortest form that reads back to the same `f32`, so
    /// any picture round-trips exactly.
    Unit,
}

/// Writes a picture as pixel CSV into a file; see [`encode_pixel_csv`]. The rows are streamed
/// to an [`OutputFile`] as they are made (memory: the picture and a small buffer, whatever
/// the CSV's size): a file is replaced atomically once complete, and a full disk is an error,
/// never a truncated file.
pub fn write_pixel_csv(
    picture: &Picture,
    path: impl AsRef<Path>,
    values: PixelValues,
) -> Result<()> {
    let path = path.as_ref();
    let mut out = OutputFile::create(path)?;
    encode(picture, &mut out, values, path)?;
    out.commit()
}

/// [`write_pixel_csv`] for a [`CompactPicture`] (one byte a value for 8-bit images): the
/// same file, with the memory of the compact copy, a quarter of the `f32` picture's.
/// `on_rows` is called after each row of the image with the rows written so far (for
/// progress on large images).
pub fn write_compact_pixel_csv(
    picture: &CompactPicture,
    path: impl AsRef<Path>,
    values: PixelValues,
    on_rows: &mut dyn FnMut(usize),
) -> Result<()> {
    let path = path.as_ref();
    let mut out = OutputFile::create(path)?;
    let size = (picture.width(), picture.height(), picture.channels());
    let value = |i| picture.value(i);
    encode_values(size, value, &mut out, values, path, on_rows)?;
    out.commit()
}

/// Writes a picture as CSV: the header `x,y,value` (gray) or `x,y,r,g,b` (RGB), then one row
/// per pixel in row-major order (`y` outer, `x` inner), coordinates as pixel indices.
pub fn encode_pixel_csv<W: Write>(picture: &Picture, out: W, values: PixelValues) -> Result<()> {
    encode(picture, out, values, Path::new("<pixel csv output>"))
}

fn encode<W: Write>(picture: &Picture, out: W, values: PixelValues, name: &Path) -> Result<()> {
    picture.validate()?;
    let size = (picture.width, picture.height, picture.channels);
    encode_values(size, |i| picture.data[i], out, values, name, &mut |_| {})
}

/// The CSV of a `(width, height, channels)` picture whose row-major, channel-interleaved
/// value `i` is `value(i)`; `on_rows(y + 1)` after row `y`.
fn encode_values<W: Write>(
    (width, height, channels): (usize, usize, usize),
    value: impl Fn(usize) -> f32,
    mut out: W,
    values: PixelValues,
    name: &Path,
    on_rows: &mut dyn FnMut(usize),
) -> Result<()> {
    let io = |e: std::io::Error| Error::io("write", name, e);
    writeln!(out, "x,y,{}", channel_names(channels).join(",")).map_err(io)?;
    let mut line = String::with_capacity(32);
    for y in 0..height {
        for x in 0..width {
            line.clear();
            push_int(&mut line, x);
            line.push(',');
            push_int(&mut line, y);
            let first = (y * width + x) * channels;
            for v in (first..first + channels).map(&value) {
                line.push(',');
                match values {
                    PixelValues::Bytes => push_int(&mut line, usize::from(to_byte(v))),
                    PixelValues::Unit => line.push_str(&v.to_string()),
                }
            }
            line.push('\n');
            out.write_all(line.as_bytes()).map_err(io)?;
        }
        on_rows(y + 1);
    }
    out.flush().map_err(io)
}

fn push_int(s: &mut String, v: usize) {
    use std::fmt::Write as _;
    // Writing to a String cannot fail.
    let _ = write!(s, "{v}");
}

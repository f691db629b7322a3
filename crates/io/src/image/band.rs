//! A band of an image's rows, loaded alone: what one process of a data-parallel fit holds
//! of the picture.

use std::ops::Range;
use std::path::Path;

use nn::PixelValues;

use super::compact::CompactPicture;
use super::file::ColorMode;
use super::header::{MemoryBudget, read_image_header};
use super::rows::{RowSink, RowTarget, decode_png_rows_into, load_compact_within};
use super::tiff_strips::{decode_tiff_strips_into, is_tiff};
use crate::error::{Error, Result};

impl CompactPicture {
    /// The picture's rows `rows` as a picture of their own (`width x rows.len()`).
    pub fn band(&self, rows: Range<usize>) -> Result<CompactPicture> {
        check_band(&rows, self.height())?;
        let row = self.width() * self.channels();
        let values = match self.values() {
            PixelValues::U8(v) => PixelValues::U8(v[rows.start * row..rows.end * row].to_vec()),
            PixelValues::F32(v) => PixelValues::F32(v[rows.start * row..rows.end * row].to_vec()),
        };
        CompactPicture::new(self.width(), rows.len(), self.channels(), values)
    }
}

/// Refuses an empty band, or one beyond the image's `height` rows.
fn check_band(rows: &Range<usize>, height: usize) -> Result<()> {
    if rows.start >= rows.end || rows.end > height {
        return Err(Error::invalid(format!(
            "rows {}..{} are not a band of an image of {height} rows",
            rows.start, rows.end
        )));
    }
    Ok(())
}

/// Loads the rows `rows` of an image file as a picture of their own, with the values
/// [`load_compact_within`] gives those rows (the whole picture's representation may differ:
/// a gray band from colour is held in bytes where its own values are 8-bit). Files decoded
/// row by row (8-bit PNGs, strip TIFFs) keep only the band's rows, in the memory of the
/// band; other files are decoded whole (within `budget`), then cut.
pub fn load_compact_band(
    path: impl AsRef<Path>,
    mode: ColorMode,
    rows: Range<usize>,
    budget: Option<&MemoryBudget>,
) -> Result<CompactPicture> {
    let path = path.as_ref();
    let header = read_image_header(path)?;
    check_band(&rows, header.height)?;
    if !header.rows_streamed {
        return load_compact_within(path, mode, budget)?.band(rows);
    }
    let band = |w: usize, _h: usize, channels: usize| BandSink {
        row_bytes: w * channels,
        seen: 0,
        rows: rows.clone(),
        inner: RowSink::new(w, rows.len(), channels, mode),
    };
    if is_tiff(path)? {
        decode_tiff_strips_into(path, band)
    } else {
        decode_png_rows_into(path, band)
    }
}

/// Keeps the rows of a band as a streamed decoder makes every row.
struct BandSink {
    row_bytes: usize,
    /// Rows made so far.
    seen: usize,
    rows: Range<usize>,
    inner: RowSink,
}

impl RowTarget for BandSink {
    type Output = CompactPicture;

    fn push(&mut self, data: &[u8]) -> Result<()> {
        if self.row_bytes == 0 || !data.len().is_multiple_of(self.row_bytes) {
            return Err(Error::invalid(format!(
                "{} bytes are not whole rows of {} bytes",
                data.len(),
                self.row_bytes
            )));
        }
        for row in data.chunks_exact(self.row_bytes) {
            if self.rows.contains(&self.seen) {
                self.inner.push(row)?;
            }
            self.seen += 1;
        }
        Ok(())
    }

    fn finish(self, path: &Path) -> Result<CompactPicture> {
        self.inner.finish(path)
    }
}

//! Shrinking a picture by area means as its rows are decoded ([`load_shrunk_within`]), so that
//! an image of any size is shrunk in the memory of the result and a few rows.
//!
//! Each output pixel is the mean of the source area it covers: source pixel `x` spans
//! `[x * w1 / w0, (x + 1) * w1 / w0)` in output columns and adds its value weighted by how much
//! of each output column it covers (the same for rows). The weights of an output pixel sum to
//! one, so no normalisation follows; sums are taken in `f64`.

use std::path::Path;

use super::file::{ColorMode, load_picture_within};
use super::header::{MemoryBudget, read_image_header};
use super::inspect::gray_of;
use super::picture::Picture;
use super::rows::RowTarget;
use crate::error::{Error, Result};

/// The parts of the output span `[a, b)` falls on: `(index, overlap)` for at most
/// `ceil(b - a) + 1` cells.
fn overlaps(a: f64, b: f64, cells: usize) -> impl Iterator<Item = (usize, f64)> {
    let first = a.floor() as usize;
    (first..cells).map_while(move |j| {
        let (lo, hi) = (a.max(j as f64), b.min(j as f64 + 1.0));
        (lo < hi).then_some((j, hi - lo))
    })
}

/// Rows of values (`channels` a pixel, `f32` in `[0, 1]`) shrunk to `width x height` by area
/// means as they come, top to bottom.
pub struct AreaShrinker {
    source: (usize, usize),
    size: (usize, usize),
    channels: usize,
    rows_done: usize,
    /// Output rows not yet complete, from `first_open` on, `width * channels` sums each.
    open: Vec<Vec<f64>>,
    first_open: usize,
    /// The columns each source column adds to: `(output column, weight)`.
    columns: Vec<Vec<(usize, f64)>>,
    out: Vec<f32>,
}

impl AreaShrinker {
    /// A shrinker from `source` `(width, height)` to `size`, neither larger than the source
    /// nor empty.
    pub fn new(source: (usize, usize), size: (usize, usize), channels: usize) -> Result<Self> {
        let ((w0, h0), (w1, h1)) = (source, size);
        if w1 == 0 || h1 == 0 || w1 > w0 || h1 > h0 || channels == 0 {
            return Err(Error::invalid(format!(
                "cannot shrink a {w0}x{h0} picture to {w1}x{h1} by area means"
            )));
        }
        let scale = w1 as f64 / w0 as f64;
        let columns = (0..w0)
            .map(|x| overlaps(x as f64 * scale, (x + 1) as f64 * scale, w1).collect())
            .collect();
        Ok(AreaShrinker {
            source,
            size,
            channels,
            rows_done: 0,
            open: Vec::new(),
            first_open: 0,
            columns,
            out: Vec::with_capacity(w1 * h1 * channels),
        })
    }

    /// Adds the next source row (`source width * channels` values).
    pub fn add_row(&mut self, row: &[f32]) -> Result<()> {
        let ((w0, h0), (w1, h1), c) = (self.source, self.size, self.channels);
        if row.len() != w0 * c || self.rows_done == h0 {
            return Err(Error::invalid(format!(
                "{} values are not a row of {w0} pixels of {c} within {h0} rows",
                row.len()
            )));
        }
        let scale = h1 as f64 / h0 as f64;
        let y = self.rows_done;
        let spans: Vec<(usize, f64)> =
            overlaps(y as f64 * scale, (y + 1) as f64 * scale, h1).collect();
        for (j, wy) in spans {
            if j < self.first_open {
                // A sliver (rounding) of a row already complete.
                continue;
            }
            while self.first_open + self.open.len() <= j {
                self.open.push(vec![0.0; w1 * c]);
            }
            let sums = &mut self.open[j - self.first_open];
            for (pixel, targets) in row.chunks_exact(c).zip(&self.columns) {
                for &(i, wx) in targets {
                    let w = wy * wx;
                    for (s, &v) in sums[i * c..(i + 1) * c].iter_mut().zip(pixel) {
                        *s += w * f64::from(v);
                    }
                }
            }
        }
        self.rows_done += 1;
        // Output rows that end at or above this source row's bottom edge are complete.
        let bottom = (y + 1) as f64 * scale;
        while !self.open.is_empty() && (self.first_open + 1) as f64 <= bottom + 1e-9 {
            let done = self.open.remove(0);
            self.out.extend(done.iter().map(|&s| s as f32));
            self.first_open += 1;
        }
        Ok(())
    }

    /// The shrunk picture, once every source row has come.
    pub fn finish(mut self) -> Result<Picture> {
        let ((_, h0), (w1, h1), c) = (self.source, self.size, self.channels);
        if self.rows_done != h0 {
            return Err(Error::invalid(format!(
                "{} of {h0} rows were given to shrink",
                self.rows_done
            )));
        }
        for row in std::mem::take(&mut self.open) {
            self.out.extend(row.iter().map(|&s| s as f32));
        }
        Picture::new(w1, h1, c, self.out)
    }
}

/// 8-bit rows, converted as [`load_picture`](super::load_picture) converts pixels, into an
/// [`AreaShrinker`].
struct ShrinkRows {
    shrinker: AreaShrinker,
    width: usize,
    channels: usize,
    mode: ColorMode,
    row: Vec<f32>,
}

impl RowTarget for ShrinkRows {
    type Output = Picture;

    fn push(&mut self, data: &[u8]) -> Result<()> {
        for row in data.chunks(self.width * self.channels) {
            self.row.clear();
            let value = |b: u8| f32::from(b) / 255.0;
            let gray = |p: &[u8]| match p {
                [v] => value(*v),
                _ => gray_of(&[value(p[0]), value(p[1]), value(p[2])]),
            };
            let pixels = row.chunks_exact(self.channels);
            match (self.mode, self.channels) {
                (ColorMode::Rgb, 3) | (ColorMode::Grayscale, 1) => {
                    self.row.extend(row.iter().map(|&b| value(b)))
                }
                (ColorMode::Rgb, _) => self.row.extend(row.iter().flat_map(|&b| [value(b); 3])),
                (ColorMode::Grayscale, _) => self.row.extend(pixels.map(gray)),
                (ColorMode::BlackAndWhite(t), _) => self
                    .row
                    .extend(pixels.map(|p| if gray(p) < t { 0.0 } else { 1.0 })),
            }
            self.shrinker.add_row(&self.row)?;
        }
        Ok(())
    }

    fn finish(self, _path: &Path) -> Result<Picture> {
        self.shrinker.finish()
    }
}

/// Loads an image file shrunk to `width x height` (no larger than the image) by area means,
/// in `mode`. 8-bit PNGs and strip TIFFs that [`load_compact_within`](super::load_compact_within)
/// streams are shrunk as their rows are decoded, in the memory of the result and a few rows;
/// other files are decoded whole first (within `budget`), then shrunk row by row.
pub fn load_shrunk_within(
    path: impl AsRef<Path>,
    mode: ColorMode,
    (width, height): (usize, usize),
    budget: Option<&MemoryBudget>,
) -> Result<Picture> {
    let path = path.as_ref();
    let header = read_image_header(path)?;
    let out_channels = if mode == ColorMode::Rgb { 3 } else { 1 };
    let source = (header.width, header.height);
    let shrinker = AreaShrinker::new(source, (width, height), out_channels)?;
    if header.rows_streamed {
        let make = |w: usize, _h: usize, channels: usize| ShrinkRows {
            shrinker,
            width: w,
            channels,
            mode,
            row: Vec::new(),
        };
        return if super::tiff_strips::is_tiff(path)? {
            super::tiff_strips::decode_tiff_strips_into(path, make)
        } else {
            super::rows::decode_png_rows_into(path, make)
        };
    }
    let whole = match budget {
        Some(budget) => load_picture_within(path, mode, budget)?,
        None => super::file::load_picture(path, mode)?,
    };
    let mut shrinker = shrinker;
    for row in whole.data.chunks_exact(header.width * out_channels) {
        shrinker.add_row(row)?;
    }
    shrinker.finish()
}

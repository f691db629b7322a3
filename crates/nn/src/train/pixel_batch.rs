//! Making a batch of pixels' inputs and targets fast: the coordinates of every column and
//! row computed once, a pixel's row found without a division, the targets gathered in a
//! tight loop (so that the processor overlaps its reads of an image that does not fit in
//! its caches) and the batch cut in chunks made on every thread.

use super::pixels::{PixelValues, pixel_coord};
use rayon::prelude::*;

/// Pixels per task of a batch made on several threads.
const CHUNK: usize = 1024;

/// The coordinates of an image's columns and rows ([`pixel_coord`]), and how to find a
/// pixel's column and row from its index.
#[derive(Debug, Clone)]
pub(super) struct PixelGrid {
    width: usize,
    /// `1 / width`, for a row estimate corrected to the exact quotient.
    inverse_width: f64,
    columns: Vec<f32>,
    rows: Vec<f32>,
}

impl PixelGrid {
    /// The grid of a `width x height` image (both at least 1).
    pub fn new(width: usize, height: usize) -> Self {
        PixelGrid {
            width,
            inverse_width: 1.0 / width as f64,
            columns: (0..width).map(|i| pixel_coord(i, width)).collect(),
            rows: (0..height).map(|i| pixel_coord(i, height)).collect(),
        }
    }

    /// Pixel `p`'s column and row: `(p % width, p / width)`.
    #[inline]
    pub fn column_row(&self, p: usize) -> (usize, usize) {
        // The product is within one of the quotient for any index below 2^32 (f64 has 53
        // bits); the correction makes it exact.
        let mut row = (p as f64 * self.inverse_width) as usize;
        if row * self.width > p {
            row -= 1;
        } else if (row + 1) * self.width <= p {
            row += 1;
        }
        (p - row * self.width, row)
    }

    /// Pixel `p`'s centre: `(pixel_coord(column), pixel_coord(row))`.
    #[inline]
    pub fn centre(&self, p: usize) -> (f32, f32) {
        let (column, row) = self.column_row(p);
        (self.columns[column], self.rows[row])
    }
}

/// Where a batch's targets come from: the values of the image's rows from `first_row`
/// on, `channels` per pixel, learnt as `value - offset[channel]`.
pub(super) struct Targets<'a> {
    pub values: &'a PixelValues,
    pub channels: usize,
    pub offset: &'a [f32],
    /// The index of the first pixel the values hold.
    pub first_pixel: usize,
}

impl Targets<'_> {
    /// Writes the targets of `pixels` to `out` (`channels` per pixel).
    fn gather(&self, pixels: &[usize], out: &mut [f32]) {
        let c = self.channels;
        let start = self.first_pixel;
        match self.values {
            PixelValues::U8(v) => {
                for (o, &p) in out.chunks_exact_mut(c).zip(pixels) {
                    let held = &v[(p - start) * c..(p - start + 1) * c];
                    for ((o, &b), &off) in o.iter_mut().zip(held).zip(self.offset) {
                        *o = b as f32 / 255.0 - off;
                    }
                }
            }
            PixelValues::F32(v) => {
                for (o, &p) in out.chunks_exact_mut(c).zip(pixels) {
                    let held = &v[(p - start) * c..(p - start + 1) * c];
                    for ((o, &x), &off) in o.iter_mut().zip(held).zip(self.offset) {
                        *o = x - off;
                    }
                }
            }
        }
    }
}

/// Makes the inputs (pixel centres, 2 per pixel) and targets of `pixels` in `xs` and `ys`,
/// on several threads for a large batch; the values do not depend on the threads.
pub(super) fn fill_centres(
    grid: &PixelGrid,
    targets: &Targets<'_>,
    pixels: &[usize],
    xs: &mut Vec<f32>,
    ys: &mut Vec<f32>,
) {
    let c = targets.channels;
    xs.resize(2 * pixels.len(), 0.0);
    ys.resize(c * pixels.len(), 0.0);
    let make = |(x, y): (&mut [f32], &mut [f32]), pixels: &[usize]| {
        targets.gather(pixels, y);
        for (x, &p) in x.chunks_exact_mut(2).zip(pixels) {
            let (cx, cy) = grid.centre(p);
            x[0] = cx;
            x[1] = cy;
        }
    };
    if pixels.len() <= CHUNK {
        make((xs, ys), pixels);
    } else {
        xs.par_chunks_mut(2 * CHUNK)
            .zip(ys.par_chunks_mut(c * CHUNK))
            .zip(pixels.par_chunks(CHUNK))
            .for_each(|(out, pixels)| make(out, pixels));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_and_rows_are_the_quotient_and_remainder() {
        for width in [1, 2, 3, 7, 640, 30_000, 65_537] {
            let grid = PixelGrid::new(width, 2);
            let edges = [0, 1, width - 1, width, width + 1, 2 * width - 1];
            let far = (u32::MAX as usize / width) * width;
            for p in edges.into_iter().chain([far - 1, far, u32::MAX as usize]) {
                assert_eq!(
                    grid.column_row(p),
                    (p % width, p / width),
                    "{p} over {width}"
                );
            }
        }
    }

    #[test]
    fn centres_are_the_pixel_coordinates() {
        let grid = PixelGrid::new(5, 3);
        assert_eq!(grid.centre(0), (-1.0, -1.0));
        assert_eq!(grid.centre(7), (pixel_coord(2, 5), 0.0));
        assert_eq!(grid.centre(14), (1.0, 1.0));
    }

    #[test]
    fn a_large_batch_is_made_as_a_small_one() {
        let (w, h, c) = (97, 61, 3);
        let bytes: Vec<u8> = (0..w * h * c).map(|i| (i * 31 % 251) as u8).collect();
        let values = PixelValues::U8(bytes);
        let targets = Targets {
            values: &values,
            channels: c,
            offset: &[0.5, 0.25, 0.0],
            first_pixel: 0,
        };
        let grid = PixelGrid::new(w, h);
        let pixels: Vec<usize> = (0..5000).map(|i| i * 7919 % (w * h)).collect();
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        fill_centres(&grid, &targets, &pixels, &mut xs, &mut ys);
        for (i, &p) in pixels.iter().enumerate() {
            let want = [pixel_coord(p % w, w), pixel_coord(p / w, h)];
            assert_eq!(xs[2 * i..2 * i + 2], want);
            for k in 0..c {
                let v = values.get(p * c + k) - [0.5, 0.25, 0.0][k];
                assert_eq!(ys[c * i + k], v);
            }
        }
    }
}

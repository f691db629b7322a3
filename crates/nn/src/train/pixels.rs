//! [`PixelSampler`]: random batches of pixels of an image, coordinates computed from their
//! indices, targets read from a compact copy of the image.

use super::pixel_batch::{PixelGrid, Targets, fill_centres};
use super::source::BatchSource;
use crate::{Result, config_err};
use std::ops::Range;
use tensor_core::rand::{RngCore, SeedableRng};
use tensor_core::rand_chacha::ChaCha8Rng;
use tensor_core::{Backend, Tensor};

/// An image's values, one byte (`v / 255`) or one `f32` per channel, row-major.
#[derive(Debug, Clone, PartialEq)]
pub enum PixelValues {
    /// Values `0..=255` standing for `v / 255`.
    U8(Vec<u8>),
    /// Values as they are.
    F32(Vec<f32>),
}

impl PixelValues {
    /// The values as bytes when every one is a multiple of 1/255 in `[0, 1]` (an 8-bit
    /// image, 4 times smaller), as they are otherwise.
    pub fn compact(values: &[f32]) -> Self {
        if values.iter().all(|&v| is_byte_level(v)) {
            PixelValues::U8(values.iter().map(|&v| (v * 255.0).round() as u8).collect())
        } else {
            PixelValues::F32(values.to_vec())
        }
    }

    /// [`PixelValues::compact`] taking the values: kept without a copy when they are not
    /// all 8-bit.
    pub fn compact_owned(values: Vec<f32>) -> Self {
        if values.iter().all(|&v| is_byte_level(v)) {
            PixelValues::compact(&values)
        } else {
            PixelValues::F32(values)
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            PixelValues::U8(v) => v.len(),
            PixelValues::F32(v) => v.len(),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value `i` (`v / 255` for bytes; panics out of range, like slice indexing).
    pub fn get(&self, i: usize) -> f32 {
        match self {
            PixelValues::U8(v) => v[i] as f32 / 255.0,
            PixelValues::F32(v) => v[i],
        }
    }

    /// Bytes of memory the values take: 1 per value for bytes, 4 for `f32`.
    pub fn memory_bytes(&self) -> u64 {
        match self {
            PixelValues::U8(v) => v.len() as u64,
            PixelValues::F32(v) => 4 * v.len() as u64,
        }
    }
}

/// Whether `v` is a multiple of 1/255 in `[0, 1]` (to within 1e-6): an 8-bit level.
fn is_byte_level(v: f32) -> bool {
    let b = (v * 255.0).round();
    (0.0..=255.0).contains(&b) && (b / 255.0 - v).abs() <= 1e-6
}

/// The coordinate of pixel `i` on a side of `n` pixels: `-1 + 2 i / (n - 1)`, or 0 when
/// `n <= 1`; the project's one pixel-coordinate convention, used by training (the
/// [`PixelSampler`]) and by rendering (`io::image::coords::pixel_to_coord` is this function),
/// so that a model is drawn at exactly the coordinates it was trained on.
///
/// The first pixel centre is at `-1`, the last at `1`, both exactly: the value is computed in
/// `f64` and rounded once to `f32`, so it is the nearest `f32` to the exact coordinate.
///
/// ```
/// use nn::train::pixel_coord;
/// assert_eq!(pixel_coord(0, 5), -1.0);
/// assert_eq!(pixel_coord(2, 5), 0.0);
/// assert_eq!(pixel_coord(4, 5), 1.0);
/// assert_eq!(pixel_coord(0, 1), 0.0);
/// ```
pub fn pixel_coord(i: usize, n: usize) -> f32 {
    if n <= 1 {
        return 0.0;
    }
    (2.0 * i as f64 / (n - 1) as f64 - 1.0) as f32
}

/// Draws batches of pixels of a `width x height` image with `channels` values per pixel.
///
/// Step `k` draws `batch` pixel indices uniformly (with replacement) from a `ChaCha8Rng`
/// seeded with the seed on stream `k`; an image of at most `batch` pixels is used whole,
/// in order, at every step. Each pixel gives `s x s` input rows (`s` = `supersample`,
/// evenly spread inside the pixel, for area supervision with pool `s^2`; the pixel centre
/// for `s = 1`) and one target row, its values minus `offset`; a batch is made on every
/// thread. Host memory: the image, one coordinate per column and per row, and one batch;
/// device memory: the trainer's batch buffers.
pub struct PixelSampler {
    width: usize,
    height: usize,
    channels: usize,
    values: PixelValues,
    offset: Vec<f32>,
    batch: usize,
    supersample: usize,
    seed: u64,
    grid: PixelGrid,
    xs: Vec<f32>,
    ys: Vec<f32>,
    /// The rows of the image the values hold (all, unless the sampler makes its process's
    /// part of each batch: [`PixelSampler::band`]).
    rows: Range<usize>,
    /// The rows whose pixels of each batch the sampler makes, when it makes only its
    /// process's part of each batch (within `rows`).
    part: Option<Range<usize>>,
    /// The pixels of the last step's batch in the sampler's rows, with that step.
    kept: Option<(u64, Vec<usize>)>,
}

impl PixelSampler {
    /// A sampler of `values` (`width * height * channels`, row-major) with batches of at
    /// most `batch` pixels.
    pub fn new(
        width: usize,
        height: usize,
        channels: usize,
        values: PixelValues,
        batch: usize,
        seed: u64,
    ) -> Result<Self> {
        let pixels = width.saturating_mul(height);
        if channels == 0 || values.len() != pixels.saturating_mul(channels) {
            return Err(config_err(format!(
                "an image of {width}x{height} pixels and {channels} channels needs {} values, got {}",
                pixels.saturating_mul(channels),
                values.len()
            )));
        }
        Self::holding((width, height, channels), 0..height, values, batch, seed)
    }

    /// A sampler of an image of `width x height` pixels holding the `values` of its rows
    /// `rows`, the sizes checked but not the values' count.
    fn holding(
        (width, height, channels): (usize, usize, usize),
        rows: Range<usize>,
        values: PixelValues,
        batch: usize,
        seed: u64,
    ) -> Result<Self> {
        let pixels = width.saturating_mul(height);
        if pixels == 0 || channels == 0 {
            return Err(config_err(format!(
                "an image of {width}x{height} pixels and {channels} channels has no value"
            )));
        }
        if pixels > u32::MAX as usize {
            return Err(config_err(format!(
                "an image of {pixels} pixels is too large to sample (at most {})",
                u32::MAX
            )));
        }
        if batch == 0 {
            return Err(config_err("the batch size must be at least 1"));
        }
        Ok(PixelSampler {
            width,
            height,
            channels,
            values,
            offset: vec![0.0; channels],
            batch: batch.min(pixels),
            supersample: 1,
            seed,
            grid: PixelGrid::new(width, height),
            xs: Vec::new(),
            ys: Vec::new(),
            rows,
            part: None,
            kept: None,
        })
    }

    /// A sampler of a process of a data-parallel run whose processes each hold a band
    /// of the image ([`Holding::Part`](super::Holding::Part)): `values` are the image's rows
    /// `rows` only (`width * rows.len() * channels`; an empty band makes no row). Every
    /// process draws the same global batches of at most `batch` pixels of the whole image;
    /// this one makes the pixels that fall in its rows.
    pub fn band(
        (width, height, channels): (usize, usize, usize),
        rows: Range<usize>,
        values: PixelValues,
        batch: usize,
        seed: u64,
    ) -> Result<Self> {
        if rows.start > rows.end || rows.end > height {
            return Err(config_err(format!(
                "rows {rows:?} are not a band of an image of {height} rows"
            )));
        }
        let held = width.saturating_mul(rows.len()).saturating_mul(channels);
        if values.len() != held {
            return Err(config_err(format!(
                "a band of {} rows of {width} pixels and {channels} channels needs {held} \
                 values, got {}",
                rows.len(),
                values.len()
            )));
        }
        let mut sampler =
            Self::holding((width, height, channels), rows.clone(), values, batch, seed)?;
        sampler.part = Some(rows);
        Ok(sampler)
    }

    /// The sampler of the whole image making only the part of each batch in its rows
    /// `rows`, as [`PixelSampler::band`] does: for the process that holds the whole image
    /// beside the others' bands.
    pub fn making_part(mut self, rows: Range<usize>) -> Result<Self> {
        if rows.start > rows.end || rows.start < self.rows.start || rows.end > self.rows.end {
            return Err(config_err(format!(
                "rows {rows:?} are not a band of the {:?} the sampler holds",
                self.rows
            )));
        }
        self.part = Some(rows);
        Ok(self)
    }

    /// Subtracts `offset` (one value per channel) from every target.
    pub fn with_offset(mut self, offset: &[f32]) -> Result<Self> {
        if offset.len() != self.channels {
            return Err(config_err(format!(
                "an offset of {} values for {} channels",
                offset.len(),
                self.channels
            )));
        }
        self.offset = offset.to_vec();
        Ok(self)
    }

    /// `s x s` input rows per pixel (1 to 16), for area supervision with pool `s^2`.
    pub fn with_supersample(mut self, s: usize) -> Result<Self> {
        if !(1..=16).contains(&s) {
            return Err(config_err(format!(
                "the supersampling factor must be 1 to 16, got {s}"
            )));
        }
        self.supersample = s;
        Ok(self)
    }

    /// Pixels per batch.
    pub fn batch(&self) -> usize {
        self.batch
    }

    /// The image's values, as the sampler reads its targets from them.
    pub fn values(&self) -> &PixelValues {
        &self.values
    }

    /// The image's values, giving the sampler up (to score the fit on the same copy).
    pub fn into_values(self) -> PixelValues {
        self.values
    }

    /// Whether every step sees the whole image.
    pub fn whole_image(&self) -> bool {
        self.batch == self.width * self.height
    }

    /// Makes the inputs and targets of `pixels` in the host batch.
    fn make_batch(&mut self, pixels: &[usize]) {
        let targets = Targets {
            values: &self.values,
            channels: self.channels,
            offset: &self.offset,
            first_pixel: self.rows.start * self.width,
        };
        let (xs, ys) = (&mut self.xs, &mut self.ys);
        fill_centres(&self.grid, &targets, pixels, xs, ys);
        let s = self.supersample;
        if s == 1 {
            return;
        }
        // `s x s` points evenly spread inside each pixel, around its centre.
        let pitch = |n: usize| if n > 1 { 2.0 / (n - 1) as f32 } else { 0.0 };
        let (dx, dy) = (pitch(self.width), pitch(self.height));
        let off = |k: usize| (k as f32 + 0.5) / s as f32 - 0.5;
        let centres = std::mem::take(xs);
        for centre in centres.chunks_exact(2) {
            for sy in 0..s {
                for sx in 0..s {
                    xs.extend([centre[0] + off(sx) * dx, centre[1] + off(sy) * dy]);
                }
            }
        }
    }

    /// The pixels of step `step`'s batch, in order, in the rows the sampler makes: every
    /// pixel of the image (or of its rows) when the batch is the whole image, else the
    /// batch's random draw.
    fn batch_pixels(&mut self, step: u64) -> &[usize] {
        if self.kept.as_ref().map(|(s, _)| *s) != Some(step) {
            let rows = self.part.clone().unwrap_or(self.rows.clone());
            let (w, held) = (self.width, rows.start * self.width..rows.end * self.width);
            let mut kept = self.kept.take().map(|(_, k)| k).unwrap_or_default();
            kept.clear();
            if self.whole_image() {
                kept.extend(held);
            } else {
                let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
                rng.set_stream(step);
                let pixels = (w * self.height) as u64;
                // Multiply-shift: uniform up to a bias below 2^-32 for any image size.
                let draws = (0..self.batch)
                    .map(|_| ((rng.next_u64() as u128 * pixels as u128) >> 64) as usize);
                kept.extend(draws.filter(|p| held.contains(p)));
            }
            self.kept = Some((step, kept));
        }
        self.kept.as_ref().map_or(&[], |(_, k)| k)
    }
}

impl<B: Backend> BatchSource<B> for PixelSampler {
    fn batch_rows(&self) -> usize {
        self.batch
    }

    fn input_dim(&self) -> usize {
        2
    }

    fn output_dim(&self) -> usize {
        self.channels
    }

    fn is_fixed(&self) -> bool {
        self.whole_image()
    }

    fn steps_per_epoch(&self) -> u64 {
        (self.width * self.height).div_ceil(self.batch) as u64
    }

    fn fill(&mut self, step: u64, x: &mut Tensor<B>, y: &mut Tensor<B>) -> Result<()> {
        self.batch_pixels(step);
        let kept = self.kept.take().unwrap_or_default();
        self.make_batch(&kept.1);
        self.kept = Some(kept);
        x.upload(&self.xs)?;
        y.upload(&self.ys)?;
        Ok(())
    }

    fn makes_parts(&self) -> bool {
        self.part.is_some()
    }

    fn part_rows(&mut self, step: u64) -> Result<usize> {
        Ok(self.batch_pixels(step).len())
    }
}

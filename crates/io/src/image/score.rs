//! Scoring a drawn picture against a [`CompactPicture`] band by band, as the bands are
//! drawn ([`BandScorer`]), and shrinking a picture for display as its rows come
//! ([`Shrinker`]): a reconstruction of any size is scored and shown without ever being held
//! whole.

use super::compact::CompactPicture;
use super::inspect::gray_of;
use super::metrics::{SSIM_BAND_VALUES, SSIM_SIGMA, SSIM_WINDOW, gaussian, ssim_plane};
use super::picture::Picture;
use super::render::{PixelNetwork, RenderSettings, render_png_with};
use crate::error::{Error, Result};
use std::path::Path;
use tensor_core::Backend;

/// Draws a fitted picture into a PNG at `path` in bands ([`render_png_with`]), scoring each
/// band against `reference` (of the same size and channels) as it is drawn, and shrinking it
/// to at most `display_side` pixels on its longer side: the scores and the small picture. The
/// reconstruction is never held whole.
pub fn render_scored<B: Backend, M: PixelNetwork<B> + ?Sized>(
    backend: &B,
    model: &M,
    settings: &RenderSettings,
    reference: &CompactPicture,
    path: &Path,
    display_side: usize,
) -> Result<(Scores, Picture)> {
    render_scored_with(
        backend,
        model,
        settings,
        reference,
        (path, display_side),
        |_| (),
    )
}

/// [`render_scored`] into `(path, display_side)`, handing each band's values to
/// `on_band` as well once scored, to report progress.
pub fn render_scored_with<B: Backend, M: PixelNetwork<B> + ?Sized>(
    backend: &B,
    model: &M,
    settings: &RenderSettings,
    reference: &CompactPicture,
    (path, display_side): (&Path, usize),
    mut on_band: impl FnMut(&[f32]),
) -> Result<(Scores, Picture)> {
    let (w, h, c) = (reference.width(), reference.height(), reference.channels());
    if (settings.width, settings.height, settings.offset.len()) != (w, h, c) {
        return Err(Error::invalid(format!(
            "a {}x{}x{} drawing cannot be scored against a {w}x{h}x{c} picture",
            settings.width,
            settings.height,
            settings.offset.len()
        )));
    }
    let mut scorer = BandScorer::new(reference);
    let mut shrinker = Shrinker::new(w, h, c, display_side);
    render_png_with(backend, model, settings, path, |values| {
        scorer.add_rows(values)?;
        shrinker.add_rows(values)?;
        on_band(values);
        Ok(())
    })?;
    Ok((scorer.finish()?, shrinker.finish()?))
}

/// The scores of a prediction against a reference, as [`psnr`](super::psnr),
/// [`ssim`](super::ssim), [`pixel_accuracy`](super::pixel_accuracy),
/// [`ink_iou`](super::ink_iou) and [`flat_area_noise`](super::flat_area_noise) compute them
/// on whole pictures (the same sums in the same order).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scores {
    /// Peak signal-to-noise ratio in dB (peak 1; infinite for identical pictures).
    pub psnr: f64,
    /// Structural similarity.
    pub ssim: f64,
    /// Share of pixels on the same side of 0.5 in both.
    pub pixel_accuracy: f64,
    /// Intersection over union of the ink pixels (1 when neither has ink).
    pub ink_iou: f64,
    /// RMS difference in 8-bit levels over the reference's flat pixels (`None`: none).
    pub flat_area_noise: Option<f64>,
}

/// Scores a prediction against a reference, the prediction given a band of whole rows at a
/// time, top to bottom ([`BandScorer::add_rows`]). Memory: the rows the structural
/// similarity's window still needs (about [`scoring_bytes`]).
pub struct BandScorer<'a> {
    reference: &'a CompactPicture,
    rows_done: usize,
    squared_error: f64,
    agree: usize,
    ink_both: usize,
    ink_either: usize,
    flat_squares: f64,
    flat_count: usize,
    ssim: SsimWindow,
}

/// The structural similarity's state: bands of output rows as in [`ssim`](super::ssim), the
/// prediction rows from `first` on that the next band reads.
struct SsimWindow {
    side: usize,
    kernel: Vec<f64>,
    band: usize,
    out_rows: usize,
    next: usize,
    first: usize,
    rows: Vec<f32>,
    total: f64,
    count: usize,
}

impl<'a> BandScorer<'a> {
    /// A scorer of predictions of `reference`'s size and channels.
    pub fn new(reference: &'a CompactPicture) -> Self {
        let (w, h) = (reference.width(), reference.height());
        let side = SSIM_WINDOW.min(w).min(h);
        let side = if side % 2 == 0 { side - 1 } else { side };
        BandScorer {
            reference,
            rows_done: 0,
            squared_error: 0.0,
            agree: 0,
            ink_both: 0,
            ink_either: 0,
            flat_squares: 0.0,
            flat_count: 0,
            ssim: SsimWindow {
                side,
                kernel: gaussian(side, SSIM_SIGMA),
                band: (SSIM_BAND_VALUES / w).max(1),
                out_rows: h + 1 - side,
                next: 0,
                first: 0,
                rows: Vec::new(),
                total: 0.0,
                count: 0,
            },
        }
    }

    /// Scores the next rows of the prediction: whole rows of `width * channels` values.
    pub fn add_rows(&mut self, values: &[f32]) -> Result<()> {
        let r = self.reference;
        let row_values = r.width() * r.channels();
        let rows = values.len() / row_values;
        if !values.len().is_multiple_of(row_values) || self.rows_done + rows > r.height() {
            return Err(Error::invalid(format!(
                "{} values are not whole rows of {row_values} within the {} rows left to score",
                values.len(),
                r.height() - self.rows_done
            )));
        }
        let start = self.rows_done * row_values;
        for (i, &p) in values.iter().enumerate() {
            let d = f64::from(p) - f64::from(r.value(start + i));
            self.squared_error += d * d;
        }
        self.count_ink(values, start / r.channels());
        for k in 0..rows {
            self.flat_row(
                self.rows_done + k,
                &values[k * row_values..(k + 1) * row_values],
            );
        }
        self.rows_done += rows;
        self.ssim.rows.extend_from_slice(values);
        self.ssim_bands();
        Ok(())
    }

    /// Ink and paper agreement of the pixels from `first_pixel` on.
    fn count_ink(&mut self, values: &[f32], first_pixel: usize) {
        let c = self.reference.channels();
        for (k, px) in values.chunks_exact(c).enumerate() {
            let p = gray_of(px) < 0.5;
            let q = self.reference.gray_at(first_pixel + k) < 0.5;
            self.agree += usize::from(p == q);
            self.ink_both += usize::from(p && q);
            self.ink_either += usize::from(p || q);
        }
    }

    /// The flat-area noise of row `y` (`values`: its prediction).
    fn flat_row(&mut self, y: usize, values: &[f32]) {
        let r = self.reference;
        let (w, h, c) = (r.width(), r.height(), r.channels());
        if y == 0 || y + 1 >= h {
            return;
        }
        let value = |x: usize, y: usize, ch: usize| r.value((y * w + x) * c + ch);
        let flat = |x: usize| {
            (0..c).all(|ch| {
                let v = value(x, y, ch);
                (y - 1..=y + 1).all(|yy| (x - 1..=x + 1).all(|xx| value(xx, yy, ch) == v))
            })
        };
        for x in 1..w.saturating_sub(1) {
            if !flat(x) {
                continue;
            }
            for ch in 0..c {
                let d = 255.0 * (f64::from(values[x * c + ch]) - f64::from(value(x, y, ch)));
                self.flat_squares += d * d;
                self.flat_count += 1;
            }
        }
    }

    /// Scores every structural-similarity band whose rows have all come.
    fn ssim_bands(&mut self) {
        let r = self.reference;
        let (w, c) = (r.width(), r.channels());
        let s = &mut self.ssim;
        while s.next < s.out_rows {
            let rows = s.band.min(s.out_rows - s.next) + s.side - 1;
            if self.rows_done < s.next + rows {
                return;
            }
            let offset = (s.next - s.first) * w * c;
            for ch in 0..c {
                let predicted: Vec<f64> = (0..rows * w)
                    .map(|i| f64::from(s.rows[offset + i * c + ch]))
                    .collect();
                let reference: Vec<f64> = (s.next * w..(s.next + rows) * w)
                    .map(|i| f64::from(r.value(i * c + ch)))
                    .collect();
                let (t, n) = ssim_plane(&predicted, &reference, w, rows, &s.kernel);
                s.total += t;
                s.count += n;
            }
            s.next += s.band;
            let keep_from = s.next.min(self.rows_done);
            s.rows.drain(..(keep_from - s.first) * w * c);
            s.first = keep_from;
        }
    }

    /// The scores, once every row has been added.
    pub fn finish(self) -> Result<Scores> {
        let r = self.reference;
        if self.rows_done != r.height() {
            return Err(Error::invalid(format!(
                "{} of the {} rows were scored",
                self.rows_done,
                r.height()
            )));
        }
        let mse = self.squared_error / r.values().len() as f64;
        Ok(Scores {
            psnr: if mse == 0.0 {
                f64::INFINITY
            } else {
                -10.0 * mse.log10()
            },
            ssim: self.ssim.total / self.ssim.count.max(1) as f64,
            pixel_accuracy: self.agree as f64 / r.pixels() as f64,
            ink_iou: if self.ink_either == 0 {
                1.0
            } else {
                self.ink_both as f64 / self.ink_either as f64
            },
            flat_area_noise: (self.flat_count > 0)
                .then(|| (self.flat_squares / self.flat_count as f64).sqrt()),
        })
    }
}

/// Bytes a [`BandScorer`] of a picture `width` pixels wide with `channels` holds at most: the
/// prediction rows of one structural-similarity band and its `f64` planes.
pub fn scoring_bytes(width: usize, channels: usize) -> u64 {
    let band_values = (SSIM_BAND_VALUES + (SSIM_WINDOW + 1) * width) as u64;
    let window = band_values * channels as u64 * 4;
    // The planes of `ssim_plane`: two inputs, three products, five blurred planes and the
    // row pass of one blur.
    window + 11 * band_values * 8
}

/// Shrinks a picture given a band of whole rows at a time to at most `longest` pixels on its
/// longer side (unchanged when it is no larger), each output pixel the mean of a square block
/// of input pixels: a picture of any size shown in the memory of the small one.
pub struct Shrinker {
    width: usize,
    height: usize,
    channels: usize,
    factor: usize,
    rows_done: usize,
    sums: Vec<f64>,
    out: Vec<f32>,
}

impl Shrinker {
    /// A shrinker of a `width x height` picture of `channels` to `longest` pixels at most.
    pub fn new(width: usize, height: usize, channels: usize, longest: usize) -> Self {
        let factor = width.max(height).div_ceil(longest.max(1)).max(1);
        let out_width = width.div_ceil(factor);
        Shrinker {
            width,
            height,
            channels,
            factor,
            rows_done: 0,
            sums: vec![0.0; out_width * channels],
            out: Vec::new(),
        }
    }

    /// Adds the next rows: whole rows of `width * channels` values.
    pub fn add_rows(&mut self, values: &[f32]) -> Result<()> {
        let row_values = self.width * self.channels;
        if !values.len().is_multiple_of(row_values)
            || self.rows_done + values.len() / row_values > self.height
        {
            return Err(Error::invalid(format!(
                "{} values are not whole rows of {row_values} within the picture",
                values.len()
            )));
        }
        if self.factor == 1 {
            self.out.extend_from_slice(values);
            self.rows_done += values.len() / row_values;
            return Ok(());
        }
        let (f, c) = (self.factor, self.channels);
        for row in values.chunks_exact(row_values) {
            for (x, px) in row.chunks_exact(c).enumerate() {
                for (ch, &v) in px.iter().enumerate() {
                    self.sums[(x / f) * c + ch] += f64::from(v);
                }
            }
            self.rows_done += 1;
            let block_rows = (self.rows_done - 1) % f + 1;
            if block_rows == f || self.rows_done == self.height {
                self.emit_row(block_rows);
            }
        }
        Ok(())
    }

    /// Turns the sums of `block_rows` input rows into an output row.
    fn emit_row(&mut self, block_rows: usize) {
        let (f, c) = (self.factor, self.channels);
        for (i, sum) in self.sums.iter_mut().enumerate() {
            let x0 = (i / c) * f;
            let cols = f.min(self.width - x0);
            self.out.push((*sum / (cols * block_rows) as f64) as f32);
            *sum = 0.0;
        }
    }

    /// The shrunk picture, once every row has come.
    pub fn finish(self) -> Result<Picture> {
        let f = self.factor;
        Picture::new(
            self.width.div_ceil(f),
            self.height.div_ceil(f),
            self.channels,
            self.out,
        )
    }
}

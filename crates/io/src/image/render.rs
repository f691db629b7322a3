//! The one renderer: a fitted image model (any [`PixelNetwork`]: an [`nn::Model`] of
//! `(x, y) -> pixel`, or a loaded [`FittedModel`](crate::FittedModel)) drawn at any size, in
//! bands of rows, into a [`Picture`] or straight into a PNG file.

use std::path::Path;

use nn::Model;
use tensor_core::{Backend, Tensor};

use super::coords::pixel_to_coord;
use super::inspect::gray_of;
use super::picture::{Picture, to_byte};
use super::png::write_png_rows;
use crate::error::{Error, Result};

/// Pixels predicted at once: the coordinates, the network's activations and the values of one
/// band stay within a few tens of megabytes for the project's image networks.
pub const BAND_PIXELS: usize = 1 << 16;

/// A network that maps pixel coordinates (rows of `(x, y)`) to pixel values, one row per
/// pixel: a loaded [`FittedModel`](crate::FittedModel), or any [`nn::Model`] wrapped in
/// [`ModelPixels`].
pub trait PixelNetwork<B: Backend> {
    /// The raw outputs for a batch of coordinate rows.
    fn predict_pixels(&self, coords: &Tensor<B>) -> Result<Tensor<B>>;
}

/// An [`nn::Model`] (a network being trained, such as `HashGridMlp` or `Mlp`) as a
/// [`PixelNetwork`].
pub struct ModelPixels<'a, M>(pub &'a M);

impl<B: Backend, M: Model<B>> PixelNetwork<B> for ModelPixels<'_, M> {
    fn predict_pixels(&self, coords: &Tensor<B>) -> Result<Tensor<B>> {
        Ok(self.0.predict(coords)?)
    }
}

/// What to draw: the size, and how the network's outputs become pixel values
/// (`output * scale + offset`, clamped into `[0, 1]`).
#[derive(Debug, Clone, PartialEq)]
pub struct RenderSettings {
    /// Pixels per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Added to each output channel: the per-channel means a fit subtracted from its targets
    /// (zeros when it subtracted none). Its length is the number of channels.
    pub offset: Vec<f32>,
    /// Multiplies each output channel before the offset is added (ones for a fit on the
    /// pixel values themselves).
    pub scale: Vec<f32>,
    /// Draw black and white, ink where the gray level is below this value (one channel).
    pub threshold: Option<f32>,
}

impl RenderSettings {
    /// A `width x height` picture of `channels` values per pixel, the outputs taken as they
    /// are (offset 0, scale 1), in colour.
    pub fn new(width: usize, height: usize, channels: usize) -> Self {
        RenderSettings {
            width,
            height,
            offset: vec![0.0; channels],
            scale: vec![1.0; channels],
            threshold: None,
        }
    }

    /// Channels of the drawn picture: 1 in black and white, else one per offset value.
    pub fn output_channels(&self) -> usize {
        if self.threshold.is_some() {
            1
        } else {
            self.offset.len()
        }
    }

    /// Rows per band ([`BAND_PIXELS`] pixels, at least one row).
    pub fn band_rows(&self) -> usize {
        (BAND_PIXELS / self.width.max(1)).clamp(1, self.height.max(1))
    }

    /// Bytes of the 8-bit picture drawn whole ([`render_picture`] holds four times as many,
    /// as `f32`).
    pub fn picture_bytes(&self) -> u64 {
        self.width as u64 * self.height as u64 * self.output_channels() as u64
    }

    fn check(&self) -> Result<()> {
        let channels = self.offset.len();
        if self.width == 0
            || self.height == 0
            || !matches!(channels, 1 | 3)
            || self.scale.len() != channels
        {
            return Err(Error::invalid(format!(
                "cannot draw a {}x{} picture with {channels} offsets and {} scales (1 or 3 channels)",
                self.width,
                self.height,
                self.scale.len()
            )));
        }
        Ok(())
    }
}

/// The pixel values of rows `first..first + rows`: the model's outputs plus the offset,
/// clamped into `[0, 1]` (NaN becomes 0), `width * rows * channels` values.
pub fn render_rows<B: Backend, M: PixelNetwork<B> + ?Sized>(
    backend: &B,
    model: &M,
    settings: &RenderSettings,
    first: usize,
    rows: usize,
) -> Result<Vec<f32>> {
    settings.check()?;
    let width = settings.width;
    let mut grid = Vec::with_capacity(2 * width * rows);
    for row in first..first + rows {
        let y = pixel_to_coord(row, settings.height);
        for column in 0..width {
            grid.push(pixel_to_coord(column, width));
            grid.push(y);
        }
    }
    let input = Tensor::from_slice(backend, &grid, [width * rows, 2]).map_err(nn::Error::from)?;
    let mut values = model
        .predict_pixels(&input)?
        .to_vec()
        .map_err(nn::Error::from)?;
    let channels = settings.offset.len();
    if values.len() != width * rows * channels {
        return Err(Error::invalid(format!(
            "the model gives {} values for {} pixels, not {channels} per pixel",
            values.len(),
            width * rows
        )));
    }
    for pixel in values.chunks_exact_mut(channels) {
        let adjust = settings.offset.iter().zip(&settings.scale);
        for (v, (o, k)) in pixel.iter_mut().zip(adjust) {
            let sum = *v * k + o;
            *v = if sum.is_nan() {
                0.0
            } else {
                sum.clamp(0.0, 1.0)
            };
        }
    }
    Ok(values)
}

/// Draws the whole picture in memory (`width * height * channels` `f32` values), for scoring.
pub fn render_picture<B: Backend, M: PixelNetwork<B> + ?Sized>(
    backend: &B,
    model: &M,
    settings: &RenderSettings,
) -> Result<Picture> {
    render_picture_with(backend, model, settings, |_| Ok(()))
}

/// [`render_picture`], handing each band's values (whole rows, top to bottom, before any
/// threshold) to `on_band` as they are drawn, to report progress.
pub fn render_picture_with<B: Backend, M: PixelNetwork<B> + ?Sized>(
    backend: &B,
    model: &M,
    settings: &RenderSettings,
    mut on_band: impl FnMut(&[f32]) -> Result<()>,
) -> Result<Picture> {
    settings.check()?;
    let (width, height) = (settings.width, settings.height);
    let mut data = Vec::with_capacity(width * height * settings.offset.len());
    let band = settings.band_rows();
    for first in (0..height).step_by(band) {
        let rows = band.min(height - first);
        let values = render_rows(backend, model, settings, first, rows)?;
        on_band(&values)?;
        data.extend(values);
    }
    let picture = Picture::new(width, height, settings.offset.len(), data)?;
    Ok(match settings.threshold {
        Some(t) => picture.threshold(t),
        None => picture,
    })
}

/// Draws the picture into a PNG at `path` band by band, each band written as soon as it is
/// made: memory stays that of one band whatever the size (see [`write_png_rows`] for how the
/// file is replaced). The bytes are those of [`render_picture`] saved as PNG.
pub fn render_png<B: Backend, M: PixelNetwork<B> + ?Sized>(
    backend: &B,
    model: &M,
    settings: &RenderSettings,
    path: &Path,
) -> Result<()> {
    render_png_with(backend, model, settings, path, |_| Ok(()))
}

/// [`render_png`], handing each band's values (whole rows, top to bottom, before any
/// threshold) to `on_band` as well, to score or shrink the picture as it is drawn.
pub fn render_png_with<B: Backend, M: PixelNetwork<B> + ?Sized>(
    backend: &B,
    model: &M,
    settings: &RenderSettings,
    path: &Path,
    mut on_band: impl FnMut(&[f32]) -> Result<()>,
) -> Result<()> {
    settings.check()?;
    let band = settings.band_rows();
    let channels = settings.offset.len();
    write_png_rows(
        path,
        settings.width,
        settings.height,
        settings.output_channels(),
        |first, bytes| {
            let rows = band.min(settings.height - first);
            let values = render_rows(backend, model, settings, first, rows)?;
            on_band(&values)?;
            match settings.threshold {
                Some(t) => bytes.extend(
                    values
                        .chunks_exact(channels)
                        .map(|px| if gray_of(px) < t { 0 } else { 255 }),
                ),
                None => bytes.extend(values.iter().map(|&v| to_byte(v))),
            }
            Ok(())
        },
    )
}

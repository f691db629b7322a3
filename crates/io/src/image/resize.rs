//! Resampling pictures (baselines for super-resolution, and downsampling).

use image::imageops::{self, FilterType};
use image::{ImageBuffer, Luma, Rgb};

use super::picture::Picture;
use crate::error::{Error, Result};

/// Resampling filter for [`Picture::resize`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResizeFilter {
    /// Nearest neighbour.
    Nearest,
    /// Bilinear (triangle).
    Bilinear,
    /// Bicubic (Catmull-Rom), the usual upscaling baseline.
    #[default]
    Bicubic,
    /// Lanczos with a window of 3.
    Lanczos3,
}

impl ResizeFilter {
    fn to_image(self) -> FilterType {
        match self {
            ResizeFilter::Nearest => FilterType::Nearest,
            ResizeFilter::Bilinear => FilterType::Triangle,
            ResizeFilter::Bicubic => FilterType::CatmullRom,
            ResizeFilter::Lanczos3 => FilterType::Lanczos3,
        }
    }
}

impl Picture {
    /// Resamples to `width x height` with `filter` (via `image::imageops::resize`), clamping the
    /// result into `[0, 1]` (bicubic and Lanczos overshoot near edges).
    pub fn resize(&self, width: usize, height: usize, filter: ResizeFilter) -> Result<Picture> {
        self.validate()?;
        let target = Picture::filled(width, height, self.channels, 0.0)?;
        let (w0, h0) = (self.width as u32, self.height as u32);
        let (w1, h1) = (target.width as u32, target.height as u32);
        let f = filter.to_image();
        let buffer_err = || Error::invalid("picture data does not match its size");
        let data: Vec<f32> = if self.channels == 1 {
            let img: ImageBuffer<Luma<f32>, &[f32]> =
                ImageBuffer::from_raw(w0, h0, self.data.as_slice()).ok_or_else(buffer_err)?;
            imageops::resize(&img, w1, h1, f).into_raw()
        } else {
            let img: ImageBuffer<Rgb<f32>, &[f32]> =
                ImageBuffer::from_raw(w0, h0, self.data.as_slice()).ok_or_else(buffer_err)?;
            imageops::resize(&img, w1, h1, f).into_raw()
        };
        Picture::from_predictions(width, height, self.channels, &data)
    }

    /// Bicubic resize, the baseline a super-resolution model must beat.
    pub fn resize_bicubic(&self, width: usize, height: usize) -> Result<Picture> {
        self.resize(width, height, ResizeFilter::Bicubic)
    }

    /// Shrinks by an integer factor, each output pixel the mean of a `factor x factor` block
    /// (the sides must be multiples of `factor`).
    pub fn downsample(&self, factor: usize) -> Result<Picture> {
        self.validate()?;
        if factor == 0 || !self.width.is_multiple_of(factor) || !self.height.is_multiple_of(factor)
        {
            return Err(Error::invalid(format!(
                "cannot downsample a {}x{} picture by {factor}: the sides must be multiples of it",
                self.width, self.height
            )));
        }
        let (w, h, c) = (self.width / factor, self.height / factor, self.channels);
        let mut data = vec![0f32; w * h * c];
        let scale = 1.0 / (factor * factor) as f32;
        for y in 0..self.height {
            for x in 0..self.width {
                let o = ((y / factor) * w + x / factor) * c;
                for (d, v) in data[o..o + c].iter_mut().zip(self.pixel(x, y)) {
                    *d += v * scale;
                }
            }
        }
        Picture::from_predictions(w, h, c, &data)
    }
}

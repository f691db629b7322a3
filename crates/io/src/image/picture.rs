//! [`Picture`]: the host-side image type.

use super::coords::coordinate_grid;
use crate::dataset::Dataset;
use crate::error::{Error, Result};

/// A `width x height` image with `channels` values per pixel (1: gray, 3: RGB), each in `[0, 1]`
/// with 0 black and 1 white, stored row-major with channels interleaved:
/// `data[(y * width + x) * channels + c]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    /// Pixels per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Values per pixel: 1 or 3.
    pub channels: usize,
    /// `width * height * channels` values in `[0, 1]`.
    pub data: Vec<f32>,
}

/// Converts a value in `[0, 1]` to a byte (rounding, clamping; NaN gives 0).
pub(crate) fn to_byte(v: f32) -> u8 {
    if v.is_nan() {
        0
    } else {
        (v.clamp(0.0, 1.0) * 255.0).round() as u8
    }
}

/// Converts a byte to a value in `[0, 1]`; the exact inverse of [`to_byte`] on its range.
pub(crate) fn from_byte(b: u8) -> f32 {
    f32::from(b) / 255.0
}

impl Picture {
    /// Builds a picture, checking the sizes and that every value is in `[0, 1]`.
    pub fn new(width: usize, height: usize, channels: usize, data: Vec<f32>) -> Result<Self> {
        check_dims(width, height, channels)?;
        let expected = width * height * channels;
        if data.len() != expected {
            return Err(Error::invalid(format!(
                "a {width}x{height} picture with {channels} channels needs {expected} values, got {}",
                data.len()
            )));
        }
        let picture = Self {
            width,
            height,
            channels,
            data,
        };
        picture.check_range()?;
        Ok(picture)
    }

    /// A picture of one colour: every value set to `value`.
    pub fn filled(width: usize, height: usize, channels: usize, value: f32) -> Result<Self> {
        check_dims(width, height, channels)?;
        Self::new(
            width,
            height,
            channels,
            vec![value; width * height * channels],
        )
    }

    /// Builds a picture from network outputs in row-major pixel order (as predicted on
    /// [`coordinate_grid`]), clamping each value into `[0, 1]` (NaN becomes 0).
    pub fn from_predictions(
        width: usize,
        height: usize,
        channels: usize,
        values: &[f32],
    ) -> Result<Self> {
        let data = values
            .iter()
            .map(|&v| if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) })
            .collect();
        Self::new(width, height, channels, data)
    }

    /// Builds a picture from bytes (0 black, 255 white), `v / 255` each.
    pub fn from_bytes(width: usize, height: usize, channels: usize, bytes: &[u8]) -> Result<Self> {
        Self::new(
            width,
            height,
            channels,
            bytes.iter().map(|&b| from_byte(b)).collect(),
        )
    }

    /// The values as bytes, `round(255 v)` clamped.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.data.iter().map(|&v| to_byte(v)).collect()
    }

    /// Number of pixels, `width * height`.
    pub fn pixels(&self) -> usize {
        self.width * self.height
    }

    /// The channel values of pixel `(x, y)` (panics out of range, like slice indexing).
    pub fn pixel(&self, x: usize, y: usize) -> &[f32] {
        let i = (y * self.width + x) * self.channels;
        &self.data[i..i + self.channels]
    }

    /// Mutable channel values of pixel `(x, y)` (panics out of range, like slice indexing).
    pub fn pixel_mut(&mut self, x: usize, y: usize) -> &mut [f32] {
        let i = (y * self.width + x) * self.channels;
        &mut self.data[i..i + self.channels]
    }

    /// Gray level of the pixel with row-major index `i`: the value itself, or for RGB the
    /// Rec. 709 luma `0.2126 r + 0.7152 g + 0.0722 b`.
    pub fn gray_at(&self, i: usize) -> f32 {
        super::inspect::gray_of(&self.data[i * self.channels..(i + 1) * self.channels])
    }

    /// A one-channel copy (Rec. 709 luma for RGB).
    pub fn to_grayscale(&self) -> Picture {
        Picture {
            width: self.width,
            height: self.height,
            channels: 1,
            data: (0..self.pixels()).map(|i| self.gray_at(i)).collect(),
        }
    }

    /// A one-channel black-and-white copy: 0 where the gray level is below `threshold`, else 1.
    pub fn threshold(&self, threshold: f32) -> Picture {
        Picture {
            width: self.width,
            height: self.height,
            channels: 1,
            data: (0..self.pixels())
                .map(|i| {
                    if self.gray_at(i) < threshold {
                        0.0
                    } else {
                        1.0
                    }
                })
                .collect(),
        }
    }

    /// Number of ink pixels: gray level below 0.5.
    pub fn ink_pixels(&self) -> usize {
        (0..self.pixels())
            .filter(|&i| self.gray_at(i) < 0.5)
            .count()
    }

    /// Share of ink pixels (gray level below 0.5), in `[0, 1]`.
    pub fn ink_fraction(&self) -> f32 {
        self.ink_pixels() as f32 / self.pixels() as f32
    }

    /// The picture as a dataset for fitting `(x, y) -> pixel`: features `x, y` from
    /// [`coordinate_grid`] (in `[-1, 1]`), targets the channel values (`value` or `r, g, b`).
    pub fn to_dataset(&self) -> Dataset {
        Dataset {
            x: coordinate_grid(self.width, self.height),
            y: self.data.clone(),
            rows: self.pixels(),
            n_features: 2,
            n_targets: self.channels,
            feature_names: vec!["x".into(), "y".into()],
            target_names: channel_names(self.channels),
        }
    }

    /// Checks the invariants [`Picture::new`] establishes (the fields are public, so a picture
    /// built by hand may break them): sides of at least 1, 1 or 3 channels, the right number of
    /// values, each in `[0, 1]`.
    pub fn validate(&self) -> Result<()> {
        check_dims(self.width, self.height, self.channels)?;
        let expected = self.width * self.height * self.channels;
        if self.data.len() != expected {
            return Err(Error::invalid(format!(
                "a {} picture needs {expected} values, it holds {}",
                self.dims(),
                self.data.len()
            )));
        }
        self.check_range()
    }

    fn check_range(&self) -> Result<()> {
        match self.data.iter().position(|v| !(0.0..=1.0).contains(v)) {
            Some(i) => Err(Error::invalid(format!(
                "picture value {i} (pixel {}, channel {}) is {}, outside [0, 1]",
                i / self.channels,
                i % self.channels,
                self.data[i]
            ))),
            None => Ok(()),
        }
    }

    /// `WxHxC`, for messages.
    pub(crate) fn dims(&self) -> String {
        format!("{}x{}x{}", self.width, self.height, self.channels)
    }
}

/// Column names of the value columns: `value` for gray, `r, g, b` for RGB.
pub(crate) fn channel_names(channels: usize) -> Vec<String> {
    match channels {
        1 => vec!["value".into()],
        _ => vec!["r".into(), "g".into(), "b".into()],
    }
}

fn check_dims(width: usize, height: usize, channels: usize) -> Result<()> {
    if width == 0 || height == 0 {
        return Err(Error::invalid(format!(
            "a picture cannot be {width}x{height}: both sides must be at least 1"
        )));
    }
    if channels != 1 && channels != 3 {
        return Err(Error::invalid(format!(
            "a picture has 1 (gray) or 3 (RGB) channels, not {channels}"
        )));
    }
    if width
        .checked_mul(height)
        .and_then(|p| p.checked_mul(channels))
        .is_none()
        || u32::try_from(width).is_err()
        || u32::try_from(height).is_err()
    {
        return Err(Error::invalid(format!(
            "a {width}x{height} picture is too large"
        )));
    }
    Ok(())
}

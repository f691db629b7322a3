//! [`CompactPicture`]: a picture held as one byte per value where its values are 8-bit (an
//! 8-bit image file, black and white), as `f32` only where they are not: the copy a fit
//! trains on and is scored against, four times smaller than a [`Picture`] for photos.

use std::path::Path;

use nn::PixelValues;

use super::inspect::{self, gray_of};
use super::picture::{Picture, to_byte};
use super::png::write_png_rows;
use super::score::Shrinker;
use crate::error::{Error, Result};

/// A `width x height` picture of `channels` (1 or 3) values per pixel, row-major with
/// channels interleaved like a [`Picture`], its values stored compactly ([`PixelValues`]:
/// bytes standing for `v / 255`, or `f32`).
#[derive(Debug, Clone, PartialEq)]
pub struct CompactPicture {
    width: usize,
    height: usize,
    channels: usize,
    values: PixelValues,
}

impl CompactPicture {
    /// A picture of these values, checking the sizes (and, for `f32` values, that each is in
    /// `[0, 1]`).
    pub fn new(width: usize, height: usize, channels: usize, values: PixelValues) -> Result<Self> {
        let expected = width
            .checked_mul(height)
            .and_then(|p| p.checked_mul(channels));
        if width == 0 || height == 0 || !matches!(channels, 1 | 3) || expected != Some(values.len())
        {
            return Err(Error::invalid(format!(
                "a {width}x{height} picture with {channels} channels (1 or 3) cannot hold {} values",
                values.len()
            )));
        }
        if let PixelValues::F32(v) = &values
            && let Some(i) = v.iter().position(|v| !(0.0..=1.0).contains(v))
        {
            return Err(Error::invalid(format!(
                "picture value {i} is {}, outside [0, 1]",
                v[i]
            )));
        }
        Ok(CompactPicture {
            width,
            height,
            channels,
            values,
        })
    }

    /// The picture's values as bytes where every one is a multiple of 1/255 (as
    /// [`PixelValues::compact`] decides), else as they are.
    pub fn from_picture(picture: Picture) -> Result<Self> {
        picture.validate()?;
        let (width, height, channels) = (picture.width, picture.height, picture.channels);
        let values = PixelValues::compact_owned(picture.data);
        CompactPicture::new(width, height, channels, values)
    }

    /// Pixels per row.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rows.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Values per pixel: 1 or 3.
    pub fn channels(&self) -> usize {
        self.channels
    }

    /// Number of pixels, `width * height`.
    pub fn pixels(&self) -> usize {
        self.width * self.height
    }

    /// The values.
    pub fn values(&self) -> &PixelValues {
        &self.values
    }

    /// The values, giving the picture up (to hand them to a [`nn::PixelSampler`]).
    pub fn into_values(self) -> PixelValues {
        self.values
    }

    /// Value `i` of the row-major, channel-interleaved layout, in `[0, 1]`.
    pub fn value(&self, i: usize) -> f32 {
        self.values.get(i)
    }

    /// The channel values of the pixel with row-major index `p`.
    pub fn pixel(&self, p: usize) -> [f32; 3] {
        let c = self.channels;
        let v = |k: usize| self.values.get(p * c + k.min(c - 1));
        [v(0), v(1), v(2)]
    }

    /// Gray level of the pixel with row-major index `p`, as [`Picture::gray_at`] computes it.
    pub fn gray_at(&self, p: usize) -> f32 {
        let px = self.pixel(p);
        gray_of(&px[..self.channels])
    }

    /// Bytes of memory the values take.
    pub fn memory_bytes(&self) -> u64 {
        self.values.memory_bytes()
    }

    /// Whether any pixel has colour ([`Picture::has_color`]).
    pub fn has_color(&self) -> bool {
        self.channels == 3 && (0..self.pixels()).any(|p| inspect::is_colored(self.pixel(p)))
    }

    /// Whether this is black-and-white line art ([`Picture::is_line_art`]).
    pub fn is_line_art(&self) -> bool {
        !self.has_color() && inspect::mostly_extreme(self.pixels(), |p| self.gray_at(p))
    }

    /// The mean of each channel, summed in `f64` in pixel order.
    pub fn channel_means(&self) -> Vec<f32> {
        let c = self.channels;
        let mut sums = vec![0f64; c];
        for p in 0..self.pixels() {
            for (k, s) in sums.iter_mut().enumerate() {
                *s += f64::from(self.values.get(p * c + k));
            }
        }
        let n = self.pixels().max(1) as f64;
        sums.iter().map(|s| (s / n) as f32).collect()
    }

    /// A one-channel copy (Rec. 709 luma for RGB), compact where the levels are 8-bit.
    pub fn to_grayscale(&self) -> Result<CompactPicture> {
        if self.channels == 1 {
            return Ok(self.clone());
        }
        let gray: Vec<f32> = (0..self.pixels()).map(|p| self.gray_at(p)).collect();
        CompactPicture::new(self.width, self.height, 1, PixelValues::compact_owned(gray))
    }

    /// A one-channel black-and-white copy (one byte a pixel): 0 where the gray level is below
    /// `threshold`, else 1.
    pub fn threshold(&self, threshold: f32) -> Result<CompactPicture> {
        let bytes = (0..self.pixels())
            .map(|p| if self.gray_at(p) < threshold { 0 } else { 255 })
            .collect();
        CompactPicture::new(self.width, self.height, 1, PixelValues::U8(bytes))
    }

    /// A [`Picture`] of the same values (`f32`: four bytes a value; for small pictures).
    pub fn to_picture(&self) -> Result<Picture> {
        let data = (0..self.values.len()).map(|i| self.values.get(i)).collect();
        Picture::new(self.width, self.height, self.channels, data)
    }

    /// A copy shrunk to at most `longest` pixels on its longer side (block means, see
    /// [`Shrinker`]); the same values when it is no larger.
    pub fn shrink(&self, longest: usize) -> Result<Picture> {
        let mut shrinker = Shrinker::new(self.width, self.height, self.channels, longest);
        let row_values = self.width * self.channels;
        let mut row = Vec::with_capacity(row_values);
        for y in 0..self.height {
            row.clear();
            row.extend((y * row_values..(y + 1) * row_values).map(|i| self.values.get(i)));
            shrinker.add_rows(&row)?;
        }
        shrinker.finish()
    }

    /// Writes the picture as an 8-bit PNG, row by row (`round(255 v)` each value), in the
    /// memory of a few rows.
    pub fn save_png(&self, path: &Path) -> Result<()> {
        let row_values = self.width * self.channels;
        let band = (1 << 20) / row_values.max(1);
        let band = band.clamp(1, self.height);
        write_png_rows(
            path,
            self.width,
            self.height,
            self.channels,
            |first, bytes| {
                let end = (first + band).min(self.height) * row_values;
                match &self.values {
                    PixelValues::U8(v) => bytes.extend_from_slice(&v[first * row_values..end]),
                    PixelValues::F32(v) => {
                        bytes.extend(v[first * row_values..end].iter().map(|&x| to_byte(x)))
                    }
                }
                Ok(())
            },
        )
    }
}

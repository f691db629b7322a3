//! What an image file holds, read from its header alone, and what decoding it will cost, so
//! that a request too large for memory is refused before a byte of pixels is allocated.

use std::fmt;
use std::path::Path;

use image::{ImageDecoder, ImageReader};

use super::file::ColorMode;
use crate::error::{Error, Result};

/// The memory a command may use, and where that figure comes from (shown in refusals).
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryBudget {
    /// Bytes.
    pub bytes: u64,
    /// Where the figure comes from, such as `IRON_LEARN_MEMORY_LIMIT` or `available memory`.
    pub source: String,
}

impl MemoryBudget {
    /// A budget of `bytes`, from `source`.
    pub fn new(bytes: u64, source: impl Into<String>) -> Self {
        MemoryBudget {
            bytes,
            source: source.into(),
        }
    }
}

impl fmt::Display for MemoryBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", human_bytes(self.bytes as f64), self.source)
    }
}

/// Bytes for people: `1.5 GB` (powers of 1024).
///
/// ```
/// assert_eq!(io::image::human_bytes(1536.0 * 1024.0 * 1024.0), "1.5 GB");
/// assert_eq!(io::image::human_bytes(200.0), "200 bytes");
/// ```
pub fn human_bytes(v: f64) -> String {
    let units = ["bytes", "KB", "MB", "GB", "TB", "PB", "EB"];
    let mut v = v;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < units.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{v:.0} bytes")
    } else {
        format!("{v:.1} {}", units[i])
    }
}

/// An image file's size and pixel layout, from its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageHeader {
    /// Pixels per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Channels stored per pixel (1 gray, 2 gray and alpha, 3 RGB, 4 RGBA).
    pub channels: usize,
    /// Bytes stored per pixel once decoded (2 per channel for 16-bit images).
    pub bytes_per_pixel: usize,
    /// Whether the file is decoded row by row straight into a compact copy (8-bit gray, RGB
    /// or palette PNG, not interlaced; 8-bit gray or RGB TIFF): no decoded copy of the whole
    /// image is made first.
    pub rows_streamed: bool,
}

impl ImageHeader {
    /// Pixels.
    pub fn pixels(&self) -> u64 {
        self.width as u64 * self.height as u64
    }

    /// Whether decoding converts straight from 8-bit gray or RGB, without a 16-bit copy.
    fn direct(&self) -> bool {
        self.bytes_per_pixel == self.channels && matches!(self.channels, 1 | 3)
    }

    /// Peak bytes of decoding the file into a [`Picture`](super::Picture) of `mode`: the
    /// decoded pixels, a 16-bit RGBA copy where the file is not 8-bit gray or RGB, and the
    /// picture's `f32` values.
    pub fn decode_bytes(&self, mode: ColorMode) -> u64 {
        let out_channels = if mode == ColorMode::Rgb { 3 } else { 1 };
        let per_pixel = self.per_pixel_bytes(out_channels);
        self.pixels().saturating_mul(per_pixel)
    }

    fn per_pixel_bytes(&self, out_channels: u64) -> u64 {
        let conversion = if self.direct() { 0 } else { 8 };
        self.bytes_per_pixel as u64 + conversion + 4 * out_channels
    }

    /// Bytes per value of the [`CompactPicture`](super::CompactPicture) of the file in
    /// `mode`: 1 where the values are 8-bit (8-bit gray or RGB files in their own colours or
    /// as RGB, any file in black and white), 4 otherwise.
    pub fn compact_value_bytes(&self, mode: ColorMode) -> u64 {
        let eight_bit = self.direct();
        match mode {
            ColorMode::BlackAndWhite(_) => 1,
            ColorMode::Rgb if eight_bit => 1,
            ColorMode::Grayscale if eight_bit && self.channels == 1 => 1,
            _ => 4,
        }
    }

    /// Bytes of the file's [`CompactPicture`](super::CompactPicture) in `mode`.
    pub fn compact_bytes(&self, mode: ColorMode) -> u64 {
        let out_channels = if mode == ColorMode::Rgb { 3 } else { 1 };
        self.pixels()
            .saturating_mul(out_channels)
            .saturating_mul(self.compact_value_bytes(mode))
    }

    /// Peak bytes of loading the file as a [`CompactPicture`](super::CompactPicture) in
    /// `mode` ([`load_compact_within`](super::load_compact_within)): the compact copy alone
    /// when the rows are streamed into it; otherwise the whole decoding
    /// ([`decode_bytes`](Self::decode_bytes)), then its `f32` values beside the compact copy.
    pub fn load_bytes(&self, mode: ColorMode) -> u64 {
        let compact = self.compact_bytes(mode);
        if self.rows_streamed {
            return compact;
        }
        let out_channels = if mode == ColorMode::Rgb { 3 } else { 1 };
        let values = self.pixels().saturating_mul(4 * out_channels);
        self.decode_bytes(mode).max(values.saturating_add(compact))
    }

    /// Refuses, in one line, loading the image as a compact copy when that needs more than
    /// `budget`, saying the largest image of this kind that would fit.
    pub fn check_load(&self, mode: ColorMode, budget: &MemoryBudget, path: &Path) -> Result<()> {
        let need = self.load_bytes(mode);
        if need <= budget.bytes {
            return Ok(());
        }
        let per_pixel = (need / self.pixels().max(1)).max(1);
        Err(Error::TooLarge(format!(
            "`{}` is a {}x{} image: loading it needs about {}, more than the memory budget of \
             {budget}; images of up to {} megapixels fit",
            path.display(),
            self.width,
            self.height,
            human_bytes(need as f64),
            budget.bytes / per_pixel / 1_000_000
        )))
    }

    /// Refuses, in one line, decoding an image that needs more than `budget`, saying the
    /// largest image of this kind that would fit.
    pub fn check_decode(&self, mode: ColorMode, budget: &MemoryBudget, path: &Path) -> Result<()> {
        let need = self.decode_bytes(mode);
        if need <= budget.bytes {
            return Ok(());
        }
        let out_channels = if mode == ColorMode::Rgb { 3 } else { 1 };
        let megapixels = budget.bytes / self.per_pixel_bytes(out_channels) / 1_000_000;
        Err(Error::TooLarge(format!(
            "`{}` is a {}x{} image: decoding it needs about {}, more than the memory budget of \
             {budget}; images of up to {megapixels} megapixels fit",
            path.display(),
            self.width,
            self.height,
            human_bytes(need as f64)
        )))
    }
}

/// Reads an image file's header (PNG, JPEG, WebP, BMP, TIFF): its size and pixel layout, without
/// decoding any pixels.
pub fn read_image_header(path: impl AsRef<Path>) -> Result<ImageHeader> {
    let path = path.as_ref();
    let decode_err = |message: String| Error::Image {
        action: "decode",
        path: path.to_path_buf(),
        message,
    };
    let reader = ImageReader::open(path)
        .map_err(|e| Error::io("read", path, e))?
        .with_guessed_format()
        .map_err(|e| Error::io("read", path, e))?;
    if reader.format().is_none() {
        return Err(decode_err(
            "not a PNG, JPEG, WebP, BMP or TIFF image (format not recognised)".into(),
        ));
    }
    let format = reader.format();
    let decoder = reader
        .into_decoder()
        .map_err(|e| decode_err(e.to_string()))?;
    let (width, height) = decoder.dimensions();
    let color = decoder.color_type();
    Ok(ImageHeader {
        width: width as usize,
        height: height as usize,
        channels: color.channel_count().into(),
        bytes_per_pixel: color.bytes_per_pixel().into(),
        rows_streamed: match format {
            Some(image::ImageFormat::Png) => super::rows::png_rows_streamed(path),
            Some(image::ImageFormat::Tiff) => super::tiff_strips::tiff_rows_streamed(path),
            _ => false,
        },
    })
}

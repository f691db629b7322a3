//! Image files to and from [`Picture`]s.

use std::io::Cursor;
use std::path::Path;

use image::{DynamicImage, ImageReader};

use super::encode::{ImageFileFormat, encode_picture};
use super::header::{MemoryBudget, read_image_header};
use super::picture::Picture;
use crate::error::{Error, Result, read_file};
use crate::output::write_file;

/// How to turn an image file into a [`Picture`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ColorMode {
    /// One channel: the gray level itself for gray images, the Rec. 709 luma for colour images.
    Grayscale,
    /// Three channels, red, green, blue.
    Rgb,
    /// One channel, 0 where the gray level is below the threshold, else 1 (pure black ink on
    /// white). `BlackAndWhite(0.5)` is the usual choice.
    BlackAndWhite(f32),
}

/// Loads any PNG, JPEG, WebP, BMP or TIFF file as a [`Picture`] in the given mode.
///
/// Transparent pixels are composited over white. 8-bit values `v` become exactly `v / 255`.
/// The format is told from the content, not the extension. Errors name the file. The decoder
/// keeps its own allocation cap (512 MB); [`load_picture_within`] replaces it by a budget.
pub fn load_picture(path: impl AsRef<Path>, mode: ColorMode) -> Result<Picture> {
    let path = path.as_ref();
    let bytes = read_file(path)?;
    decode_picture(&bytes, mode, path)
}

/// Loads an image file like [`load_picture`] within a memory budget: the header is read
/// first and an image whose decoding would need more than `budget` is refused
/// ([`Error::TooLarge`], saying what would fit) before any pixel is allocated; otherwise the
/// file is decoded as it is read (never held whole in memory) with the budget as the
/// decoder's only allocation limit, so images beyond the decoder's default cap load when the
/// budget allows.
pub fn load_picture_within(
    path: impl AsRef<Path>,
    mode: ColorMode,
    budget: &MemoryBudget,
) -> Result<Picture> {
    let path = path.as_ref();
    read_image_header(path)?.check_decode(mode, budget, path)?;
    let decode_err = |message: String| Error::Image {
        action: "decode",
        path: path.to_path_buf(),
        message,
    };
    let mut reader = ImageReader::open(path)
        .map_err(|e| Error::io("read", path, e))?
        .with_guessed_format()
        .map_err(|e| Error::io("read", path, e))?;
    let mut limits = image::Limits::no_limits();
    limits.max_alloc = Some(budget.bytes);
    reader.limits(limits);
    let image = reader.decode().map_err(|e| decode_err(e.to_string()))?;
    Ok(from_dynamic(&image, mode))
}

/// Decodes an image held in memory; `source` names it in error messages.
pub fn decode_picture(bytes: &[u8], mode: ColorMode, source: impl AsRef<Path>) -> Result<Picture> {
    let source = source.as_ref();
    let decode_err = |message: String| Error::Image {
        action: "decode",
        path: source.to_path_buf(),
        message,
    };
    if bytes.is_empty() {
        return Err(decode_err("the file is empty".into()));
    }
    let reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| decode_err(e.to_string()))?;
    if reader.format().is_none() {
        return Err(decode_err(
            "not a PNG, JPEG, WebP, BMP or TIFF image (format not recognised)".into(),
        ));
    }
    let image = reader.decode().map_err(|e| decode_err(e.to_string()))?;
    Ok(from_dynamic(&image, mode))
}

/// Converts a decoded image, compositing transparency over white.
fn from_dynamic(image: &DynamicImage, mode: ColorMode) -> Picture {
    if let Some(picture) = from_opaque_bytes(image, mode) {
        return picture;
    }
    let is_gray = !image.color().has_color();
    let rgba = image.to_rgba16();
    let (width, height) = (rgba.width() as usize, rgba.height() as usize);
    // One channel value over white, exact (c / 65535 = v / 255 for 8-bit input) when opaque.
    let over_white = |c: u16, a: u16| -> f32 {
        if a == u16::MAX {
            f32::from(c) / 65535.0
        } else {
            let (c, a) = (f64::from(c), f64::from(a));
            ((c * a + 65535.0 * (65535.0 - a)) / (65535.0 * 65535.0)) as f32
        }
    };
    let pixels = rgba.pixels().map(|p| {
        let [r, g, b, a] = p.0;
        [over_white(r, a), over_white(g, a), over_white(b, a)]
    });
    let data: Vec<f32> = match mode {
        ColorMode::Rgb => pixels.flatten().collect(),
        _ => pixels.map(|px| gray_of(px, is_gray, mode)).collect(),
    };
    let channels = if mode == ColorMode::Rgb { 3 } else { 1 };
    Picture {
        width,
        height,
        channels,
        data,
    }
}

/// 8-bit gray or RGB images, converted without a 16-bit copy: `v / 255` is the same `f32` as
/// the 16-bit path's `257 v / 65535`.
fn from_opaque_bytes(image: &DynamicImage, mode: ColorMode) -> Option<Picture> {
    let (width, height) = (image.width() as usize, image.height() as usize);
    let (bytes, is_gray): (&[u8], bool) = match image {
        DynamicImage::ImageLuma8(buffer) => (buffer.as_raw(), true),
        DynamicImage::ImageRgb8(buffer) => (buffer.as_raw(), false),
        _ => return None,
    };
    let value = |b: u8| f32::from(b) / 255.0;
    let data: Vec<f32> = match (mode, is_gray) {
        (ColorMode::Rgb, true) => bytes.iter().flat_map(|&b| [value(b); 3]).collect(),
        (ColorMode::Rgb, false) => bytes.iter().map(|&b| value(b)).collect(),
        (_, true) => bytes
            .iter()
            .map(|&b| gray_of([value(b); 3], true, mode))
            .collect(),
        (_, false) => bytes
            .chunks_exact(3)
            .map(|p| gray_of([value(p[0]), value(p[1]), value(p[2])], false, mode))
            .collect(),
    };
    let channels = if mode == ColorMode::Rgb { 3 } else { 1 };
    Some(Picture {
        width,
        height,
        channels,
        data,
    })
}

/// The one-channel value of an RGB pixel: its gray level (the value itself for gray images,
/// Rec. 709 luma for colour), or black and white at the mode's threshold.
fn gray_of([r, g, b]: [f32; 3], is_gray: bool, mode: ColorMode) -> f32 {
    let gray = if is_gray {
        r
    } else {
        (0.2126 * r + 0.7152 * g + 0.0722 * b).min(1.0)
    };
    match mode {
        ColorMode::BlackAndWhite(t) if gray < t => 0.0,
        ColorMode::BlackAndWhite(_) => 1.0,
        _ => gray,
    }
}

/// Saves a picture as an 8-bit PNG (gray or RGB), each value written as `round(255 v)`,
/// whatever the file name: encoded in memory, then written with
/// [`write_file`](crate::write_file) (atomically for files; a full disk is an error, never
/// an empty or torn file). [`save_picture`](super::save_picture) picks the format from the
/// name instead.
pub fn save_png(picture: &Picture, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    let bytes = encode_picture(picture, ImageFileFormat::Png)?;
    write_file(path, &bytes)
}

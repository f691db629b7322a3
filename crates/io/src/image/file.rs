//! Image files to and from [`Picture`]s.

use std::io::Cursor;
use std::path::Path;

use image::{DynamicImage, ImageReader};

use super::encode::{ImageFileFormat, encode_picture};
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

/// Loads any PNG, JPEG, WebP or BMP file as a [`Picture`] in the given mode.
///
/// Transparent pixels are composited over white. 8-bit values `v` become exactly `v / 255`.
/// The format is told from the content, not the extension. Errors name the file.
pub fn load_picture(path: impl AsRef<Path>, mode: ColorMode) -> Result<Picture> {
    let path = path.as_ref();
    let bytes = read_file(path)?;
    decode_picture(&bytes, mode, path)
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
            "not a PNG, JPEG, WebP or BMP image (format not recognised)".into(),
        ));
    }
    let image = reader.decode().map_err(|e| decode_err(e.to_string()))?;
    Ok(from_dynamic(&image, mode))
}

/// Converts a decoded image, compositing transparency over white.
fn from_dynamic(image: &DynamicImage, mode: ColorMode) -> Picture {
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
    let gray = |p: &image::Rgba<u16>| -> f32 {
        let [r, g, b, a] = p.0;
        if is_gray {
            over_white(r, a)
        } else {
            (0.2126 * over_white(r, a) + 0.7152 * over_white(g, a) + 0.0722 * over_white(b, a))
                .min(1.0)
        }
    };
    let pixels = rgba.pixels();
    let (channels, data): (usize, Vec<f32>) = match mode {
        ColorMode::Grayscale => (1, pixels.map(gray).collect()),
        ColorMode::BlackAndWhite(t) => (
            1,
            pixels
                .map(|p| if gray(p) < t { 0.0 } else { 1.0 })
                .collect(),
        ),
        ColorMode::Rgb => (
            3,
            pixels
                .flat_map(|p| {
                    let [r, g, b, a] = p.0;
                    [over_white(r, a), over_white(g, a), over_white(b, a)]
                })
                .collect(),
        ),
    };
    Picture {
        width,
        height,
        channels,
        data,
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

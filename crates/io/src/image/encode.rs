//! [`Picture`]s encoded in memory as PNG, JPEG, WebP or BMP, and saved in the format their
//! file name asks for.

use std::io::Cursor;
use std::path::Path;

use image::{DynamicImage, GrayImage, ImageFormat, RgbImage};

use super::picture::Picture;
use crate::error::{Error, Result};
use crate::output::write_file;

/// The image formats pictures can be saved in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFileFormat {
    /// Lossless PNG (8 bits per channel).
    Png,
    /// JPEG (lossy, quality 90).
    Jpeg,
    /// Lossless WebP.
    WebP,
    /// Uncompressed BMP.
    Bmp,
}

impl ImageFileFormat {
    /// The format a file name asks for: `.png`, `.jpg`/`.jpeg`, `.webp` or `.bmp` (any case);
    /// a name without an extension gets PNG. Any other extension is an error, so that a
    /// file called `x.tiff` never holds PNG bytes.
    ///
    /// ```
    /// use io::image::ImageFileFormat;
    /// use std::path::Path;
    /// assert_eq!(ImageFileFormat::from_path(Path::new("a.JPG"))?, ImageFileFormat::Jpeg);
    /// assert_eq!(ImageFileFormat::from_path(Path::new("render"))?, ImageFileFormat::Png);
    /// assert!(ImageFileFormat::from_path(Path::new("a.tiff")).is_err());
    /// # Ok::<(), io::Error>(())
    /// ```
    pub fn from_path(path: &Path) -> Result<Self> {
        let Some(ext) = path.extension() else {
            return Ok(Self::Png);
        };
        match ext.to_str().map(str::to_ascii_lowercase).as_deref() {
            Some("png") => Ok(Self::Png),
            Some("jpg" | "jpeg") => Ok(Self::Jpeg),
            Some("webp") => Ok(Self::WebP),
            Some("bmp") => Ok(Self::Bmp),
            _ => Err(Error::invalid(format!(
                "cannot write `{}`: the extension `.{}` names no image format this tool writes (use .png, .jpg, .webp or .bmp)",
                path.display(),
                ext.to_string_lossy()
            ))),
        }
    }
}

/// Encodes a picture in memory (gray pictures as 8-bit gray, RGB as 8-bit RGB; each value
/// written as `round(255 v)`).
pub fn encode_picture(picture: &Picture, format: ImageFileFormat) -> Result<Vec<u8>> {
    picture.validate()?;
    let bytes = picture.to_bytes();
    if format == ImageFileFormat::Png {
        return super::png::encode_png(&bytes, picture.width, picture.height, picture.channels);
    }
    // Sizes fit in u32: `validate` checked it.
    let (w, h) = (picture.width as u32, picture.height as u32);
    let wrong_size = || Error::invalid(format!("a {} picture has the wrong size", picture.dims()));
    let image = if picture.channels == 1 {
        DynamicImage::ImageLuma8(GrayImage::from_raw(w, h, bytes).ok_or_else(wrong_size)?)
    } else {
        DynamicImage::ImageRgb8(RgbImage::from_raw(w, h, bytes).ok_or_else(wrong_size)?)
    };
    let mut out = Cursor::new(Vec::new());
    let result = match format {
        // Encoded by the project's own PNG writer above.
        ImageFileFormat::Png => image.write_to(&mut out, ImageFormat::Png),
        ImageFileFormat::Jpeg => image.write_with_encoder(
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90),
        ),
        ImageFileFormat::WebP => image.write_to(&mut out, ImageFormat::WebP),
        ImageFileFormat::Bmp => image.write_to(&mut out, ImageFormat::Bmp),
    };
    result.map_err(|e| Error::Image {
        action: "encode",
        path: format!("<{format:?} in memory>").into(),
        message: e.to_string(),
    })?;
    Ok(out.into_inner())
}

/// Saves a picture in the format its file name asks for ([`ImageFileFormat::from_path`]),
/// encoded in memory and written with [`write_file`](crate::write_file) (atomically for
/// files; a full disk is an error, never an empty file).
pub fn save_picture(picture: &Picture, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    let format = ImageFileFormat::from_path(path)?;
    write_file(path, &encode_picture(picture, format)?)
}

//! The one PNG writer: 8-bit gray or RGB rows, streamed to an [`OutputFile`] as they are made
//! (a picture of any size in the memory of a few rows), or encoded whole in memory.

use std::path::Path;

use crate::error::{Error, Result};
use crate::output::OutputFile;

/// Pictures of at least this many pixels (16 megapixels) are compressed with the PNG
/// encoder's fast setting: at the balanced one, compressing a 600-megapixel reconstruction
/// took a quarter of the time of drawing and scoring it.
pub const FAST_PNG_PIXELS: u64 = 1 << 24;

/// Writes a `width x height` PNG with `channels` (1: gray, 3: RGB) 8-bit values per pixel to
/// `path` as its rows are made: `next_rows(first_row, buffer)` fills `buffer` (cleared before
/// each call) with one or more whole rows (`width * channels` bytes each) starting at row
/// `first_row`, and is called until every row is written. Memory: one band of rows and the
/// compressor's window, whatever the picture's size. Pictures of 2^24 pixels or more
/// are compressed with the fast setting. The file is an [`OutputFile`]: a file is
/// replaced only once the PNG is complete (an error in `next_rows` changes nothing), a device
/// or pipe is written in place.
///
/// ```
/// use io::image::{write_png_rows, load_picture, ColorMode};
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("stripes.png");
/// write_png_rows(&path, 2, 3, 1, |row, buffer| {
///     buffer.extend([0, 255].map(|v| if row % 2 == 0 { v } else { 255 - v }));
///     Ok(())
/// })?;
/// let back = load_picture(&path, ColorMode::Grayscale)?;
/// assert_eq!(back.to_bytes(), vec![0, 255, 255, 0, 0, 255]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_png_rows(
    path: &Path,
    width: usize,
    height: usize,
    channels: usize,
    mut next_rows: impl FnMut(usize, &mut Vec<u8>) -> Result<()>,
) -> Result<()> {
    let (w, h, color) = png_header(width, height, channels)?;
    let row_bytes = width * channels;
    let mut out = OutputFile::create(path)?;
    {
        let fail = |e: png::EncodingError| png_error(path, e);
        let mut encoder = png::Encoder::new(&mut out, w, h);
        encoder.set_color(color);
        encoder.set_depth(png::BitDepth::Eight);
        if width as u64 * height as u64 >= FAST_PNG_PIXELS {
            encoder.set_compression(png::Compression::Fast);
        }
        let mut writer = encoder.write_header().map_err(fail)?;
        let mut stream = writer.stream_writer().map_err(fail)?;
        let mut buffer = Vec::new();
        let mut row = 0;
        while row < height {
            buffer.clear();
            next_rows(row, &mut buffer)?;
            let count = buffer.len() / row_bytes;
            if count == 0 || buffer.len() % row_bytes != 0 || count > height - row {
                return Err(Error::invalid(format!(
                    "{}: {} bytes are not whole rows of {row_bytes} bytes within the {} rows left",
                    path.display(),
                    buffer.len(),
                    height - row
                )));
            }
            std::io::Write::write_all(&mut stream, &buffer)
                .map_err(|e| Error::io("write", path, e))?;
            row += count;
        }
        stream.finish().map_err(fail)?;
        writer.finish().map_err(fail)?;
    }
    out.commit()
}

/// The PNG header's sides and colour type, checked.
fn png_header(width: usize, height: usize, channels: usize) -> Result<(u32, u32, png::ColorType)> {
    let color = match channels {
        1 => png::ColorType::Grayscale,
        3 => png::ColorType::Rgb,
        _ => {
            return Err(Error::invalid(format!(
                "a PNG is written with 1 or 3 channels, not {channels}"
            )));
        }
    };
    let side = |n: usize| u32::try_from(n).ok().filter(|&v| v > 0);
    match (side(width), side(height)) {
        (Some(w), Some(h)) => Ok((w, h, color)),
        _ => Err(Error::invalid(format!(
            "a {width}x{height} PNG cannot be written (each side from 1 to {})",
            u32::MAX
        ))),
    }
}

fn png_error(path: &Path, e: png::EncodingError) -> Error {
    match e {
        png::EncodingError::IoError(e) => Error::io("write", path, e),
        other => Error::Image {
            action: "encode",
            path: path.to_path_buf(),
            message: other.to_string(),
        },
    }
}

/// Encodes 8-bit pixels (`channels` 1: gray, 3: RGB; row-major) as a PNG in memory.
pub fn encode_png(pixels: &[u8], width: usize, height: usize, channels: usize) -> Result<Vec<u8>> {
    let (w, h, color) = png_header(width, height, channels)?;
    if pixels.len() != width * height * channels {
        return Err(Error::invalid(format!(
            "a {width}x{height} PNG with {channels} channels needs {} values, got {}",
            width * height * channels,
            pixels.len()
        )));
    }
    let fail = |e: png::EncodingError| png_error(Path::new("<PNG in memory>"), e);
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, w, h);
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(fail)?;
    writer.write_image_data(pixels).map_err(fail)?;
    writer.finish().map_err(fail)?;
    Ok(bytes)
}

//! Image files decoded row by row straight into a [`CompactPicture`], so that an image of
//! any size needs the memory of its compact copy and a few rows (TIFF strips in
//! [`super::tiff_strips`]).

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use nn::PixelValues;

use super::compact::CompactPicture;
use super::file::{ColorMode, load_picture, load_picture_within};
use super::header::{MemoryBudget, read_image_header};
use super::inspect::gray_of;
use crate::error::{Error, Result};

/// Loads an image file (PNG, JPEG, WebP, BMP, TIFF) as a [`CompactPicture`] in `mode`, with
/// the same values as [`load_picture`]. The header is read first, and with a `budget` an
/// image whose loading needs more ([`ImageHeader::load_bytes`](super::ImageHeader::load_bytes))
/// is refused before any pixel is allocated. 8-bit gray, RGB and palette PNGs (not
/// interlaced) are decoded row by row, 8-bit gray or RGB TIFFs stored in strips strip by strip, row by row into the compact copy; other
/// files are decoded whole, then compacted.
pub fn load_compact_within(
    path: impl AsRef<Path>,
    mode: ColorMode,
    budget: Option<&MemoryBudget>,
) -> Result<CompactPicture> {
    let path = path.as_ref();
    let header = read_image_header(path)?;
    if let Some(budget) = budget {
        header.check_load(mode, budget, path)?;
    }
    if header.rows_streamed {
        return if super::tiff_strips::is_tiff(path)? {
            super::tiff_strips::decode_tiff_strips(path, mode)
        } else {
            decode_png_rows(path, mode)
        };
    }
    let picture = match budget {
        Some(budget) => load_picture_within(path, mode, budget)?,
        None => load_picture(path, mode)?,
    };
    CompactPicture::from_picture(picture)
}

/// A PNG decoder that expands palettes and low bit depths to 8 bits.
fn png_reader(path: &Path) -> Result<png::Reader<BufReader<File>>> {
    let file = File::open(path).map_err(|e| Error::io("read", path, e))?;
    let mut decoder = png::Decoder::new(BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND);
    decoder.read_info().map_err(|e| png_decode_error(path, e))
}

/// The 8-bit channels (1 or 3) a PNG reader gives row by row; `None` for interlaced files,
/// 16-bit files and files with transparency.
fn streamed_channels(reader: &png::Reader<BufReader<File>>) -> Option<usize> {
    if reader.info().interlaced {
        return None;
    }
    match reader.output_color_type() {
        (png::ColorType::Grayscale, png::BitDepth::Eight) => Some(1),
        (png::ColorType::Rgb, png::BitDepth::Eight) => Some(3),
        _ => None,
    }
}

/// Whether `path` is a PNG that [`load_compact_within`] decodes row by row.
pub(crate) fn png_rows_streamed(path: &Path) -> bool {
    png_reader(path).is_ok_and(|reader| streamed_channels(&reader).is_some())
}

fn png_decode_error(path: &Path, e: png::DecodingError) -> Error {
    Error::Image {
        action: "decode",
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Decodes an 8-bit gray or RGB PNG row by row into a compact copy.
fn decode_png_rows(path: &Path, mode: ColorMode) -> Result<CompactPicture> {
    decode_png_rows_into(path, |w, h, channels| RowSink::new(w, h, channels, mode))
}

/// Where rows of 8-bit pixels go as a streamed decoder makes them.
pub(crate) trait RowTarget {
    /// What the rows make.
    type Output;
    /// Adds the next row(s): whole rows of `width * channels` bytes.
    fn push(&mut self, data: &[u8]) -> Result<()>;
    /// The result, once every row has come; errors name `path`.
    fn finish(self, path: &Path) -> Result<Self::Output>;
}

/// Decodes an 8-bit gray or RGB PNG (not interlaced) row by row into the target that `make`
/// builds from its width, height and bytes per pixel.
pub(crate) fn decode_png_rows_into<T: RowTarget>(
    path: &Path,
    make: impl FnOnce(usize, usize, usize) -> T,
) -> Result<T::Output> {
    let mut reader = png_reader(path)?;
    let Some(channels) = streamed_channels(&reader) else {
        return Err(Error::Image {
            action: "decode",
            path: path.to_path_buf(),
            message: "not an 8-bit gray or RGB PNG without interlacing".into(),
        });
    };
    let info = reader.info();
    let (width, height) = (info.width as usize, info.height as usize);
    let mut sink = make(width, height, channels);
    while let Some(row) = reader.next_row().map_err(|e| png_decode_error(path, e))? {
        sink.push(row.data())?;
    }
    sink.finish(path)
}

/// Collects 8-bit rows of `channels` (1 gray, 3 RGB) values per pixel into the values of a
/// [`CompactPicture`] in a [`ColorMode`], converting as [`load_picture`] does: bytes for
/// RGB, gray from gray and black and white, `f32` Rec. 709 luma for gray from RGB.
pub(crate) struct RowSink {
    width: usize,
    height: usize,
    channels: usize,
    mode: ColorMode,
    rows: usize,
    bytes: Vec<u8>,
    floats: Vec<f32>,
}

impl RowSink {
    /// A sink for a `width x height` image of `channels` bytes per pixel.
    pub(crate) fn new(width: usize, height: usize, channels: usize, mode: ColorMode) -> Self {
        let out_channels = if mode == ColorMode::Rgb { 3 } else { 1 };
        let values = width.saturating_mul(height).saturating_mul(out_channels);
        let floats = mode == ColorMode::Grayscale && channels == 3;
        RowSink {
            width,
            height,
            channels,
            mode,
            rows: 0,
            bytes: Vec::with_capacity(if floats { 0 } else { values }),
            floats: Vec::with_capacity(if floats { values } else { 0 }),
        }
    }
}

impl RowTarget for RowSink {
    type Output = CompactPicture;

    fn push(&mut self, data: &[u8]) -> Result<()> {
        let row_bytes = self.width * self.channels;
        if !data.len().is_multiple_of(row_bytes) || self.rows + data.len() / row_bytes > self.height
        {
            return Err(Error::invalid(format!(
                "{} bytes are not whole rows of {row_bytes} bytes within the image's {} rows",
                data.len(),
                self.height
            )));
        }
        self.rows += data.len() / row_bytes;
        let value = |b: u8| f32::from(b) / 255.0;
        let gray = |p: &[u8]| match p {
            [v] => value(*v),
            _ => gray_of(&[value(p[0]), value(p[1]), value(p[2])]),
        };
        match (self.mode, self.channels) {
            (ColorMode::Rgb, 3) | (ColorMode::Grayscale, 1) => self.bytes.extend_from_slice(data),
            (ColorMode::Rgb, _) => self.bytes.extend(data.iter().flat_map(|&b| [b; 3])),
            (ColorMode::Grayscale, _) => self.floats.extend(data.chunks_exact(3).map(gray)),
            (ColorMode::BlackAndWhite(t), c) => self.bytes.extend(
                data.chunks_exact(c)
                    .map(|p| if gray(p) < t { 0 } else { 255 }),
            ),
        }
        Ok(())
    }

    fn finish(self, path: &Path) -> Result<CompactPicture> {
        if self.rows != self.height {
            return Err(Error::Image {
                action: "decode",
                path: path.to_path_buf(),
                message: format!("{} of its {} rows could be read", self.rows, self.height),
            });
        }
        let out_channels = if self.mode == ColorMode::Rgb { 3 } else { 1 };
        let values = if self.mode == ColorMode::Grayscale && self.channels == 3 {
            // Bytes where the levels are 8-bit after all, as for a decoded picture.
            PixelValues::compact_owned(self.floats)
        } else {
            PixelValues::U8(self.bytes)
        };
        CompactPicture::new(self.width, self.height, out_channels, values)
    }
}

//! Pictures to CSV rows of pixels and back, within the memory budget: what `iron-learn
//! image encode` and `image decode` run.

use super::DrawProgress;
use super::options::ImageOption;
use crate::{Error, Result};
use io::image::{
    ColorMode, PixelValues, load_compact_within, read_pixel_csv, write_compact_pixel_csv,
};
use std::path::{Path, PathBuf};
use train::Reporter;
use train::budget::{budget, bytes};

/// How to write a picture's pixels as CSV rows.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodeOptions {
    /// The picture (PNG, JPEG, WebP, BMP, TIFF).
    pub image: PathBuf,
    /// The CSV file to write: `x,y,value` or `x,y,r,g,b` rows, values 0 to 255.
    pub output: PathBuf,
    /// Colour, gray, or black and white below a gray level (0..1).
    pub mode: ColorMode,
    /// With [`ColorMode::Rgb`]: three channels even for a picture without colour (by
    /// default such a picture is written gray).
    pub keep_rgb: bool,
}

/// What [`encode_pixels`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodedPixels {
    /// Rows written (one a pixel).
    pub rows: usize,
    /// The picture's width.
    pub width: usize,
    /// Its height.
    pub height: usize,
    /// Its channels (1: gray, 3: colour).
    pub channels: usize,
}

/// Writes the pixels of the options' picture as CSV rows, as they are made (the memory is
/// that of a compact copy of the picture, refused from its header beyond the budget);
/// `reporter` sees the progress as status lines.
pub fn encode_pixels(
    options: &EncodeOptions,
    reporter: &mut dyn Reporter,
) -> Result<EncodedPixels> {
    if let ColorMode::BlackAndWhite(t) = options.mode
        && !(0.0..=1.0).contains(&t)
    {
        return Err(Error::ImageOptionOutOfRange {
            option: ImageOption::Threshold,
            accepted: "between 0 and 1".into(),
            value: t.to_string(),
        });
    }
    io::output::refuse_own_input(&options.output, &[&options.image])?;
    let mut picture = load_compact_within(&options.image, options.mode, budget()?.as_ref())?;
    // The image's own channels: gray images (even stored as RGB) stay gray.
    if options.mode == ColorMode::Rgb && !options.keep_rgb && !picture.has_color() {
        picture = picture.to_grayscale()?;
    }
    let (w, h) = (picture.width(), picture.height());
    let mut progress = DrawProgress::new("encoding", w, h, picture.channels());
    let mut done = 0;
    let mut on_rows = |rows: usize| {
        if let Some(line) = progress.rows_done(rows - done) {
            reporter.status(&line);
        }
        done = rows;
    };
    write_compact_pixel_csv(&picture, &options.output, PixelValues::Bytes, &mut on_rows)?;
    Ok(EncodedPixels {
        rows: picture.pixels(),
        width: w,
        height: h,
        channels: picture.channels(),
    })
}

/// Turns the CSV rows of `csv` back into a picture written to `output` (its extension says
/// the format), refusing first a format it cannot write and a picture the memory budget
/// cannot hold; returns its width and height.
pub fn decode_pixels(csv: &Path, output: &Path) -> Result<(usize, usize)> {
    io::output::refuse_own_input(output, &[csv])?;
    // Refuse an extension that names no format before reading a large CSV.
    io::image::ImageFileFormat::from_path(output)?;
    check_decode_budget(csv)?;
    let picture = read_pixel_csv(csv, PixelValues::Bytes)?;
    io::image::save_picture(&picture, output).map_err(|e| train::Error::Write {
        path: output.to_path_buf(),
        source: Box::new(e),
    })?;
    Ok((picture.width, picture.height))
}

/// Refuses, before anything is allocated, a pixel CSV whose decoding cannot fit in the memory
/// budget (one pass over its coordinates tells its size).
fn check_decode_budget(csv: &Path) -> Result<()> {
    let Some(io::image::MemoryBudget {
        bytes: available,
        source,
    }) = budget()?
    else {
        return Ok(());
    };
    let available = available as f64;
    let Some(extent) = io::image::pixel_csv_extent(csv)? else {
        return Ok(());
    };
    let need = extent.decode_bytes() as f64;
    if need <= available {
        return Ok(());
    }
    let (w, h) = (extent.width, extent.height);
    let per_pixel = need / (w as f64 * h as f64).max(1.0);
    Err(Error::refused(format!(
        "image decode would need about {} of memory for the {w}x{h} picture of {} rows in {} but {} is available ({source}); a CSV of up to about {:.2} megapixels fits",
        bytes(need),
        extent.rows,
        csv.display(),
        bytes(available),
        available / per_pixel / 1e6
    )))
}

//! The picture an image fit trains on: the image file (or the bundled drawing) at the size
//! asked, gray or colour, thresholded where asked, as a compact copy; each size refused from
//! the header alone, before a picture of that size is made, when it would not fit in memory.

use super::defaults::{DEFAULT_SIZE, LARGE_IMAGE_PIXELS, MAX_SIZE};
use super::memory::PictureBytes;
use super::options::{ImageFitOptions, ImageOption};
use crate::{Error, Result};
use io::default_drawing;
use io::image::{ColorMode, CompactPicture, ImageHeader, MemoryBudget, fit_longest_side};
use std::path::Path;
use train::budget;

/// Refuses, from the header alone, a picture of `(width, height)` whose making takes
/// [`PictureBytes`] that would not fit in memory.
pub type Fits<'a> = &'a dyn Fn(usize, usize, PictureBytes) -> Result<()>;

/// Refuses a size or threshold out of range, or a supersampling other than 1 to 4.
pub fn check_options(options: &ImageFitOptions) -> Result<()> {
    if let Some(n) = options.size
        && !(2..=MAX_SIZE).contains(&n)
    {
        return Err(Error::ImageOptionOutOfRange {
            option: ImageOption::Size,
            accepted: format!("between 2 and {MAX_SIZE}"),
            value: n.to_string(),
        });
    }
    if let Some(t) = options.threshold
        && !(0.0..=1.0).contains(&t)
    {
        return Err(Error::ImageOptionOutOfRange {
            option: ImageOption::Threshold,
            accepted: "between 0 and 1".into(),
            value: t.to_string(),
        });
    }
    let s = options.supersample;
    if !(1..=4).contains(&s) {
        return Err(Error::ImageOptionOutOfRange {
            option: ImageOption::Supersample,
            accepted: "between 1 and 4".into(),
            value: s.to_string(),
        });
    }
    Ok(())
}

/// The picture to fit and a name for messages: the image at the size asked, in colour when
/// it has colour (unless gray is asked), or the bundled drawing.
pub fn load_target(options: &ImageFitOptions, fits: Fits<'_>) -> Result<(CompactPicture, String)> {
    check_options(options)?;
    let Some(path) = &options.image else {
        return bundled_target(options, fits);
    };
    let mode = if options.channels_at_most() == 1 {
        ColorMode::Grayscale
    } else {
        ColorMode::Rgb
    };
    // From the header alone: loading the image (at its own size, whatever the size asked),
    // then the fit, must fit in memory.
    let header = io::image::read_image_header(path)?;
    let budget = budget::budget()?;
    let (w, h) = match options.size {
        Some(n) => fit_longest_side(header.width, header.height, n as usize),
        None => (header.width, header.height),
    };
    let mut picture = if (w, h) == (header.width, header.height) {
        let bytes = PictureBytes {
            load: header.load_bytes(mode),
            held: header.compact_bytes(mode),
        };
        fits(w, h, bytes)?;
        let picture = io::image::load_compact_within(path, mode, budget.as_ref())?;
        gray_if_no_colour(options, picture, fits)?
    } else {
        let c = mode_channels(mode);
        resized_picture(
            path,
            &header,
            (mode, c),
            (w, h),
            options.color,
            (budget.as_ref(), fits),
        )?
    };
    if let Some(t) = options.threshold {
        picture = picture.threshold(t)?;
    }
    Ok((picture, path.display().to_string()))
}

fn mode_channels(mode: ColorMode) -> usize {
    if mode == ColorMode::Rgb { 3 } else { 1 }
}

/// The bundled drawing at the size asked (thresholded where asked), once `fits` accepts it.
fn bundled_target(options: &ImageFitOptions, fits: Fits<'_>) -> Result<(CompactPicture, String)> {
    let n = options.size.unwrap_or(DEFAULT_SIZE) as usize;
    fits(n, n, PictureBytes::values(n * n, 1))?;
    let mut picture = default_drawing().render(n)?;
    if let Some(t) = options.threshold {
        picture = picture.threshold(t);
    }
    Ok((
        CompactPicture::from_picture(picture)?,
        "bundled drawing".into(),
    ))
}

/// A colour picture without colour as a gray one (unless colour is asked for), once `fits`
/// accepts the gray copy beside the colour one.
fn gray_if_no_colour(
    options: &ImageFitOptions,
    picture: CompactPicture,
    fits: Fits<'_>,
) -> Result<CompactPicture> {
    if options.color || picture.channels() != 3 || picture.has_color() {
        return Ok(picture);
    }
    // Known only now: a gray copy (4 bytes a pixel at most) beside the colour one.
    let (pixels, held) = (picture.pixels(), picture.memory_bytes());
    let gray = PictureBytes::values(pixels, 1);
    let (w, h) = (picture.width(), picture.height());
    fits(
        w,
        h,
        PictureBytes {
            load: held + gray.load,
            ..gray
        },
    )?;
    Ok(picture.to_grayscale()?)
}

/// The picture of the file at `path` resized to `w x h`, in `mode` (`c` channels), gray when
/// the file has no colour unless `keep_color`. `fits` refuses, from the header alone, a load
/// that would not fit in memory.
///
/// Images over [`LARGE_IMAGE_PIXELS`] made smaller are shrunk by area means as their rows are
/// decoded ([`io::image::load_shrunk_within`]: 8-bit PNGs and strip TIFFs in the memory of the
/// result, so a 600-megapixel photo shrinks within a few hundred MB); other images are decoded
/// whole in `f32` and resized bicubically.
fn resized_picture(
    path: &Path,
    header: &ImageHeader,
    (mode, c): (ColorMode, usize),
    (w, h): (usize, usize),
    keep_color: bool,
    (budget, fits): (Option<&MemoryBudget>, Fits<'_>),
) -> Result<CompactPicture> {
    let large = header.width.saturating_mul(header.height) > LARGE_IMAGE_PIXELS;
    let shrink = large && w <= header.width && h <= header.height;
    let resized = PictureBytes::values(w * h, c);
    let whole = !(shrink && header.rows_streamed);
    if whole && let Some(budget) = budget {
        header.check_decode(mode, budget, path)?;
    }
    let load = if whole {
        header.decode_bytes(mode) + resized.held
    } else {
        resized.load
    };
    fits(w, h, PictureBytes { load, ..resized })?;
    let mut picture = if shrink {
        io::image::load_shrunk_within(path, mode, (w, h), budget)?
    } else {
        match budget {
            Some(budget) => io::image::load_picture_within(path, mode, budget)?,
            None => io::image::load_picture(path, mode)?,
        }
    };
    if !keep_color && !picture.has_color() && picture.channels == 3 {
        picture = picture.to_grayscale();
    }
    if !shrink {
        picture = picture.resize_bicubic(w, h)?;
    }
    Ok(CompactPicture::from_picture(picture)?)
}

//! `image fit --size`: the training picture at another size than the file's.

use super::image_arch::{LARGE_IMAGE_PIXELS, PictureBytes};
use anyhow::Result;
use io::image::{ColorMode, CompactPicture, ImageHeader, MemoryBudget};
use std::path::Path;

/// Refuses, from the header alone, a picture of `(width, height)` whose loading takes
/// [`PictureBytes`] that would not fit in memory.
pub type Fits<'a> = &'a dyn Fn(usize, usize, PictureBytes) -> Result<()>;

/// The picture of the file at `path` resized to `w x h`, in `mode` (`c` channels), gray when
/// the file has no colour unless `keep_color`. `fits` refuses, from the header alone, a load
/// that would not fit in memory.
///
/// Images over [`LARGE_IMAGE_PIXELS`] made smaller are shrunk by area means as their rows are
/// decoded ([`io::image::load_shrunk_within`]: 8-bit PNGs and strip TIFFs in the memory of the
/// result, so a 600-megapixel photo shrinks within a few hundred MB); other images are decoded
/// whole in `f32` and resized bicubically.
pub fn resized_picture(
    path: &Path,
    header: &ImageHeader,
    mode: ColorMode,
    (w, h, c): (usize, usize, usize),
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
        super::image_render::load_within_budget(path, mode)?
    };
    if !keep_color && !picture.has_color() && picture.channels == 3 {
        picture = picture.to_grayscale();
    }
    if !shrink {
        picture = picture.resize_bicubic(w, h)?;
    }
    Ok(CompactPicture::from_picture(picture)?)
}

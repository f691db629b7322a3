//! Pictures, and their conversion to and from images files and pixel CSV.
//!
//! - [`Picture`]: a `width x height` image with 1 (gray) or 3 (RGB) channels, values in `[0, 1]`,
//!   0 being black.
//! - [`coords`]: the one coordinate convention of the project, pixel index `i` of `n` maps to
//!   `-1 + 2 i / (n - 1)`.
//! - [`read_image_header`]: an image file's size and layout from its header alone, and what
//!   decoding it costs ([`ImageHeader::decode_bytes`]); [`load_picture_within`] refuses an
//!   image that would exceed a [`MemoryBudget`] before allocating its pixels.
//! - [`load_picture`] / [`decode_picture`]: any PNG, JPEG, WebP, BMP or TIFF file, as gray, RGB or
//!   black-and-white; [`save_png`] writes one back, [`save_picture`] in the format its name asks
//!   for (PNG, JPEG, WebP, BMP).
//! - Fitting a picture is the `train` crate's (`jobs::image::fit_image`); what it returns,
//!   an image [`FittedModel`](crate::FittedModel), draws itself at any size from here.
//! - [`write_png_rows`]: the one PNG writer, streaming rows to the file as they are made
//!   ([`encode_png`] in memory).
//! - [`render_png`] / [`render_picture`]: the one renderer, a fitted image model drawn at any
//!   size in bands ([`RenderSettings`]), streamed into a PNG in the memory of one band.
//! - [`write_pixel_csv`] / [`read_pixel_csv`]: `x,y,value` or `x,y,r,g,b` rows with pixel indices
//!   as coordinates.
//! - [`CompactPicture`]: a picture in one byte a value where its values are 8-bit;
//!   [`load_compact_within`] decodes 8-bit PNGs row by row and 8-bit TIFFs strip by
//!   strip into one, within a budget.
//! - [`render_scored`]: a fitted picture drawn into a PNG in bands, scored against a
//!   [`CompactPicture`] ([`BandScorer`]) and shrunk for display ([`Shrinker`]) as it is drawn.
//! - [`psnr`], [`ssim`], [`pixel_accuracy`], [`ink_iou`]: comparisons of a prediction with a
//!   reference; [`Picture::has_color`] and [`Picture::is_line_art`] tell which apply.

mod area_resize;
mod band;
mod compact;
pub mod coords;
mod csv_decode;
mod csv_encode;
mod encode;
mod file;
mod header;
mod inspect;
mod metrics;
mod picture;
mod png;
mod render;
mod resize;
mod rows;
mod score;
mod tiff_strips;

pub use area_resize::{AreaShrinker, load_shrunk_within};
pub use band::load_compact_band;
pub use compact::CompactPicture;
pub use csv_decode::{PixelCsvExtent, decode_pixel_csv, pixel_csv_extent, read_pixel_csv};
pub use csv_encode::{PixelValues, encode_pixel_csv, write_compact_pixel_csv, write_pixel_csv};
pub use encode::{ImageFileFormat, encode_picture, save_picture};
pub use file::{ColorMode, decode_picture, load_picture, load_picture_within, save_png};
pub use header::{ImageHeader, MemoryBudget, human_bytes, read_image_header};
pub use inspect::fit_longest_side;
pub use metrics::{flat_area_noise, ink_iou, mse, pixel_accuracy, psnr, ssim};
pub use picture::Picture;
pub use png::{encode_png, write_png_rows};
pub use render::{
    BAND_PIXELS, ModelPixels, PixelNetwork, RenderSettings, render_picture, render_picture_with,
    render_png, render_png_with, render_rows,
};
pub use resize::ResizeFilter;
pub use rows::load_compact_within;
pub use score::{BandScorer, Scores, Shrinker, render_scored, render_scored_with, scoring_bytes};

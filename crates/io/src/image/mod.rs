//! Pictures, and their conversion to and from images files and pixel CSV.
//!
//! - [`Picture`]: a `width x height` image with 1 (gray) or 3 (RGB) channels, values in `[0, 1]`,
//!   0 being black.
//! - [`coords`]: the one coordinate convention of the project, pixel index `i` of `n` maps to
//!   `-1 + 2 i / (n - 1)`.
//! - [`load_picture`] / [`decode_picture`]: any PNG, JPEG, WebP or BMP file, as gray, RGB or
//!   black-and-white; [`save_png`] writes one back, [`save_picture`] in the format its name asks
//!   for (PNG, JPEG, WebP, BMP).
//! - [`write_pixel_csv`] / [`read_pixel_csv`]: `x,y,value` or `x,y,r,g,b` rows with pixel indices
//!   as coordinates.
//! - [`psnr`], [`ssim`], [`pixel_accuracy`], [`ink_iou`]: comparisons of a prediction with a
//!   reference; [`Picture::has_color`] and [`Picture::is_line_art`] tell which apply.

pub mod coords;
mod csv_decode;
mod csv_encode;
mod encode;
mod file;
mod inspect;
mod metrics;
mod picture;
mod resize;

pub use csv_decode::{decode_pixel_csv, read_pixel_csv};
pub use csv_encode::{PixelValues, encode_pixel_csv, write_pixel_csv};
pub use encode::{ImageFileFormat, encode_picture, save_picture};
pub use file::{ColorMode, decode_picture, load_picture, save_png};
pub use inspect::fit_longest_side;
pub use metrics::{ink_iou, mse, pixel_accuracy, psnr, ssim};
pub use picture::Picture;
pub use resize::ResizeFilter;

//! The project's own default picture: a black-and-white line drawing defined by vector strokes
//! in code, rendered at any size.
//!
//! Coordinates live in the unit square, `(0, 0)` top-left, `x` to the right and `y` down. A
//! pixel is ink when at least half of its supersamples lie within half the stroke width of a
//! stroke, so the result is pure black (0) on white (1) at every size, and a render at `2n`
//! shrunk by 2 agrees with the render at `n` almost everywhere. This is the ground truth for
//! super-resolution: train on `render(200)`, compare a prediction with `render(1024)`.
//!
//! ```
//! let picture = io::drawing::default_drawing().render(64)?;
//! assert_eq!((picture.width, picture.height, picture.channels), (64, 64, 1));
//! assert!(picture.data.iter().all(|&v| v == 0.0 || v == 1.0));
//! # Ok::<(), io::Error>(())
//! ```

mod geometry;
mod raster;
mod scene;

pub use geometry::{Point, Stroke};
pub use scene::default_drawing;

use crate::error::{Error, Result};
use crate::image::Picture;

/// Supersamples per pixel side used by [`Drawing::render`] (so 16 samples per pixel).
pub const SUPERSAMPLING: usize = 4;

/// A line drawing: strokes of one width, drawn in black on white.
#[derive(Debug, Clone, PartialEq)]
pub struct Drawing {
    /// The shapes.
    pub strokes: Vec<Stroke>,
    /// Stroke width as a fraction of the image side (e.g. `0.015`).
    pub stroke_width: f32,
}

impl Drawing {
    /// A drawing from strokes and a stroke width relative to the image side.
    pub fn new(strokes: Vec<Stroke>, stroke_width: f32) -> Self {
        Self {
            strokes,
            stroke_width,
        }
    }

    /// Renders an `n x n` one-channel picture: 0 (ink) or 1 (paper).
    ///
    /// Errors if `n` is 0 or larger than 16,384, or the stroke width is not positive.
    pub fn render(&self, n: usize) -> Result<Picture> {
        if n == 0 || n > 16_384 {
            return Err(Error::invalid(format!(
                "a drawing renders at 1 to 16384 pixels a side, not {n}"
            )));
        }
        if !(self.stroke_width > 0.0 && self.stroke_width.is_finite()) {
            return Err(Error::invalid(format!(
                "stroke width must be positive, got {}",
                self.stroke_width
            )));
        }
        let segments: Vec<[Point; 2]> = self.strokes.iter().flat_map(Stroke::flatten).collect();
        let coverage = raster::coverage(&segments, self.stroke_width / 2.0, n, SUPERSAMPLING);
        let data = coverage
            .iter()
            .map(|&c| if c >= 0.5 { 0.0 } else { 1.0 })
            .collect();
        Picture::new(n, n, 1, data)
    }
}

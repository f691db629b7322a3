//! What kind of picture this is (colour, line art) and sizes that keep its aspect ratio.

use super::picture::Picture;

/// Largest difference between channels of one pixel below which an RGB pixel counts as gray
/// (two 8-bit steps: absorbs JPEG chroma noise in scanned gray images).
const GRAY_TOLERANCE: f32 = 2.5 / 255.0;

/// Share of pixels that must be near black or near white for a gray picture to be line art.
const LINE_ART_SHARE: f64 = 0.9;

/// Distance from 0 or 1 within which a gray level counts as black or white.
const LINE_ART_MARGIN: f32 = 0.15;

impl Picture {
    /// Whether any pixel has colour: an RGB picture with a pixel whose channels differ by more
    /// than two 8-bit steps. One-channel pictures have none.
    pub fn has_color(&self) -> bool {
        self.channels == 3
            && self
                .data
                .chunks_exact(3)
                .any(|p| is_colored([p[0], p[1], p[2]]))
    }

    /// Whether this is black-and-white line art (a drawing, a scan of text): no colour and at
    /// least 90% of the pixels within 0.15 of black or white. Ink scores (pixel accuracy, ink
    /// IoU) mean something only for such pictures.
    pub fn is_line_art(&self) -> bool {
        !self.has_color() && mostly_extreme(self.pixels(), |i| self.gray_at(i))
    }
}

/// The gray level of one pixel's values: the value itself, or for RGB the Rec. 709 luma
/// `0.2126 r + 0.7152 g + 0.0722 b` (at most 1).
pub(crate) fn gray_of(pixel: &[f32]) -> f32 {
    match pixel {
        [v] => *v,
        [r, g, b] => (0.2126 * r + 0.7152 * g + 0.0722 * b).min(1.0),
        _ => pixel.iter().sum::<f32>() / pixel.len() as f32,
    }
}

/// Whether an RGB pixel's channels differ by more than two 8-bit steps.
pub(crate) fn is_colored(pixel: [f32; 3]) -> bool {
    let (lo, hi) = pixel
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    hi - lo > GRAY_TOLERANCE
}

/// Whether at least 90% of `pixels` gray levels (`gray(i)` for pixel `i`) lie within 0.15
/// of black or white; false for no pixels.
pub(crate) fn mostly_extreme(pixels: usize, gray: impl Fn(usize) -> f32) -> bool {
    if pixels == 0 {
        return false;
    }
    let extreme = (0..pixels)
        .filter(|&i| {
            let g = gray(i);
            g <= LINE_ART_MARGIN || g >= 1.0 - LINE_ART_MARGIN
        })
        .count();
    extreme as f64 >= LINE_ART_SHARE * pixels as f64
}

/// The size of a `width x height` picture scaled so that its longer side is `longest`, the
/// shorter side rounded to the nearest pixel (at least 1).
pub fn fit_longest_side(width: usize, height: usize, longest: usize) -> (usize, usize) {
    let (w, h) = (width.max(1) as f64, height.max(1) as f64);
    let scale = longest as f64 / w.max(h);
    let side = |v: f64| ((v * scale).round() as usize).max(1);
    if width >= height {
        (longest, side(h))
    } else {
        (side(w), longest)
    }
}

//! The coordinate convention used everywhere in Iron Learn.
//!
//! Pixel index `i` in `0..n` maps to `-1 + 2 i / (n - 1)`: the first pixel centre is at `-1`, the
//! last at `1`, both exactly; a side of one pixel maps to `0`. `x` runs along a row (the column
//! index), `y` down the image (the row index). A network trained on a 200-pixel grid can thus be
//! evaluated on a 1024-pixel grid covering the same square.

/// The coordinate of pixel `i` on a side of `n` pixels: `-1 + 2 i / (n - 1)`, or 0 when
/// `n <= 1`. This is [`nn::train::pixel_coord`] itself, the function training samples pixels
/// with, so rendering reproduces the training coordinates bit for bit.
///
/// ```
/// use io::image::coords::pixel_to_coord;
/// assert_eq!(pixel_to_coord(0, 5), -1.0);
/// assert_eq!(pixel_to_coord(2, 5), 0.0);
/// assert_eq!(pixel_to_coord(4, 5), 1.0);
/// ```
pub use nn::train::pixel_coord as pixel_to_coord;

/// The (fractional) pixel index of coordinate `c` on a side of `n` pixels: the inverse of
/// [`pixel_to_coord`]. Returns 0 when `n <= 1`.
pub fn coord_to_pixel(c: f32, n: usize) -> f32 {
    if n <= 1 {
        return 0.0;
    }
    ((f64::from(c) + 1.0) * (n - 1) as f64 / 2.0) as f32
}

/// The pixel nearest to coordinate `c` on a side of `n` pixels, clamped to `0..n`
/// (0 when `n <= 1` or `c` is NaN).
pub fn nearest_pixel(c: f32, n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    let p = coord_to_pixel(c, n).round();
    if p.is_nan() || p <= 0.0 {
        0
    } else {
        (p as usize).min(n - 1)
    }
}

/// The coordinates of every pixel of a `width x height` image, row-major (row 0 first, then
/// left to right), as interleaved `(x, y)` pairs: `2 * width * height` values.
///
/// ```
/// use io::image::coords::coordinate_grid;
/// let g = coordinate_grid(3, 2);
/// assert_eq!(g, vec![-1.0, -1.0, 0.0, -1.0, 1.0, -1.0, -1.0, 1.0, 0.0, 1.0, 1.0, 1.0]);
/// ```
pub fn coordinate_grid(width: usize, height: usize) -> Vec<f32> {
    let xs: Vec<f32> = (0..width).map(|i| pixel_to_coord(i, width)).collect();
    let mut out = Vec::with_capacity(2 * width * height);
    for row in 0..height {
        let y = pixel_to_coord(row, height);
        for &x in &xs {
            out.push(x);
            out.push(y);
        }
    }
    out
}

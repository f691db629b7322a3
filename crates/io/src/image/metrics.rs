//! Comparisons of a predicted picture with a reference of the same size.

use super::picture::Picture;
use crate::error::{Error, Result};

fn same_size(what: &'static str, a: &Picture, b: &Picture, channels_too: bool) -> Result<()> {
    a.validate()?;
    b.validate()?;
    let differs =
        a.width != b.width || a.height != b.height || (channels_too && a.channels != b.channels);
    if differs {
        return Err(Error::SizeMismatch {
            what,
            left: a.dims(),
            right: b.dims(),
        });
    }
    Ok(())
}

/// Mean squared error over every value (same size and channels required).
pub fn mse(prediction: &Picture, reference: &Picture) -> Result<f64> {
    same_size("mse", prediction, reference, true)?;
    let sum: f64 = prediction
        .data
        .iter()
        .zip(&reference.data)
        .map(|(&p, &r)| {
            let d = f64::from(p) - f64::from(r);
            d * d
        })
        .sum();
    Ok(sum / prediction.data.len() as f64)
}

/// Peak signal-to-noise ratio in dB with a peak of 1: `10 log10(1 / mse)`; infinite for
/// identical pictures (same size and channels required).
pub fn psnr(prediction: &Picture, reference: &Picture) -> Result<f64> {
    let e = mse(prediction, reference)?;
    Ok(if e == 0.0 {
        f64::INFINITY
    } else {
        -10.0 * e.log10()
    })
}

/// Share of pixels on the same side of 0.5 (ink or paper) in both pictures, in `[0, 1]`.
///
/// Gray levels are compared, so a gray prediction can be scored against an RGB reference.
pub fn pixel_accuracy(prediction: &Picture, reference: &Picture) -> Result<f64> {
    same_size("pixel_accuracy", prediction, reference, false)?;
    let n = prediction.pixels();
    let agree = (0..n)
        .filter(|&i| (prediction.gray_at(i) < 0.5) == (reference.gray_at(i) < 0.5))
        .count();
    Ok(agree as f64 / n as f64)
}

/// Intersection over union of the ink pixels (gray level below 0.5) of both pictures, in
/// `[0, 1]`; 1 when neither has any ink. Stricter than [`pixel_accuracy`] for line drawings,
/// where paper dominates.
pub fn ink_iou(prediction: &Picture, reference: &Picture) -> Result<f64> {
    same_size("ink_iou", prediction, reference, false)?;
    let (mut inter, mut union) = (0usize, 0usize);
    for i in 0..prediction.pixels() {
        let (p, r) = (prediction.gray_at(i) < 0.5, reference.gray_at(i) < 0.5);
        inter += usize::from(p && r);
        union += usize::from(p || r);
    }
    Ok(if union == 0 {
        1.0
    } else {
        inter as f64 / union as f64
    })
}

/// Side of the Gaussian window of [`ssim`] (Wang et al. 2004), and its standard deviation.
pub(super) const SSIM_WINDOW: usize = 11;
pub(super) const SSIM_SIGMA: f64 = 1.5;

/// Structural similarity (Wang, Bovik, Sheikh and Simoncelli, 2004) with the usual settings:
/// an 11 x 11 Gaussian window of standard deviation 1.5, `K1 = 0.01`, `K2 = 0.03`, a dynamic
/// range of 1, averaged over every window position lying fully inside the picture and over the
/// channels. Pictures smaller than 11 pixels use the largest odd window that fits. 1 for
/// identical pictures; same size and channels required.
pub fn ssim(prediction: &Picture, reference: &Picture) -> Result<f64> {
    ssim_in_bands(prediction, reference, SSIM_BAND_VALUES)
}

/// [`ssim`] computed in bands of about `band_values` output values.
fn ssim_in_bands(prediction: &Picture, reference: &Picture, band_values: usize) -> Result<f64> {
    same_size("ssim", prediction, reference, true)?;
    let (w, h, c) = (prediction.width, prediction.height, prediction.channels);
    let side = SSIM_WINDOW.min(w).min(h);
    let side = if side % 2 == 0 { side - 1 } else { side };
    let kernel = gaussian(side, SSIM_SIGMA);
    // In bands of output rows (each reading `side - 1` rows more), so that the f64 planes
    // stay small for images of any size; the result is the same as in one piece.
    let (mut total, mut count) = (0.0, 0usize);
    let out_rows = h + 1 - side;
    let band = (band_values / w.max(1)).max(1);
    for y0 in (0..out_rows).step_by(band) {
        let rows = band.min(out_rows - y0) + side - 1;
        let plane = |p: &Picture, ch: usize| -> Vec<f64> {
            (y0 * w..(y0 + rows) * w)
                .map(|i| f64::from(p.data[i * c + ch]))
                .collect()
        };
        for ch in 0..c {
            let (t, n) = ssim_plane(
                &plane(prediction, ch),
                &plane(reference, ch),
                w,
                rows,
                &kernel,
            );
            total += t;
            count += n;
        }
    }
    Ok(total / count.max(1) as f64)
}

/// Values per band of SSIM's f64 planes (2^20: 8 MiB a plane).
pub(super) const SSIM_BAND_VALUES: usize = 1 << 20;

/// The sum of the SSIM map of two `w x h` planes (valid windows only) and its size.
pub(super) fn ssim_plane(x: &[f64], y: &[f64], w: usize, h: usize, kernel: &[f64]) -> (f64, usize) {
    let (c1, c2) = (0.01f64.powi(2), 0.03f64.powi(2));
    let product = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| p * q).collect::<Vec<_>>();
    let blur = |v: &[f64]| filter_valid(v, w, h, kernel);
    // The blurs are independent: two at a time on the worker threads (so that no more planes
    // are alive at once than `scoring_bytes` counts), each the same sum in the same order
    // wherever it runs, so the score does not depend on them.
    let (mx, my) = rayon::join(|| blur(x), || blur(y));
    let (sxx, syy) = rayon::join(|| blur(&product(x, x)), || blur(&product(y, y)));
    let sxy = blur(&product(x, y));
    let mut total = 0.0;
    for i in 0..mx.len() {
        let (ux, uy) = (mx[i], my[i]);
        let vx = sxx[i] - ux * ux;
        let vy = syy[i] - uy * uy;
        let cov = sxy[i] - ux * uy;
        total +=
            ((2.0 * ux * uy + c1) * (2.0 * cov + c2)) / ((ux * ux + uy * uy + c1) * (vx + vy + c2));
    }
    (total, mx.len())
}

/// A normalised 1-D Gaussian of `side` taps.
pub(super) fn gaussian(side: usize, sigma: f64) -> Vec<f64> {
    let mid = (side / 2) as f64;
    let taps: Vec<f64> = (0..side)
        .map(|i| (-((i as f64 - mid).powi(2)) / (2.0 * sigma * sigma)).exp())
        .collect();
    let sum: f64 = taps.iter().sum();
    taps.iter().map(|t| t / sum).collect()
}

/// Separable filtering of a `w x h` plane, keeping only positions where the window lies fully
/// inside: a `(w - k + 1) x (h - k + 1)` plane. Each output is the sum of its taps in order,
/// accumulated tap by tap over a whole row (which vectorises across the row).
fn filter_valid(v: &[f64], w: usize, h: usize, kernel: &[f64]) -> Vec<f64> {
    let k = kernel.len();
    let (ow, oh) = (w + 1 - k, h + 1 - k);
    let mut rows = vec![0f64; ow * h];
    for (out, input) in rows.chunks_exact_mut(ow).zip(v.chunks_exact(w)) {
        for (j, &t) in kernel.iter().enumerate() {
            for (o, &x) in out.iter_mut().zip(&input[j..j + ow]) {
                *o += t * x;
            }
        }
    }
    let mut out = vec![0f64; ow * oh];
    for (y, out_row) in out.chunks_exact_mut(ow).enumerate() {
        for (j, &t) in kernel.iter().enumerate() {
            let input = &rows[(y + j) * ow..(y + j + 1) * ow];
            for (o, &x) in out_row.iter_mut().zip(input) {
                *o += t * x;
            }
        }
    }
    out
}

/// Speckle: the root-mean-square difference, in 8-bit levels (0-255), between the prediction
/// and the reference over the reference's flat pixels, those whose 3 x 3 neighbourhood holds
/// one value in every channel (blank paper, clear sky). A fit that is right there has
/// nothing to show but noise, which the eye sees as speckle even when PSNR is high. `None`
/// when the reference has no flat pixel. Same size and channels required.
pub fn flat_area_noise(prediction: &Picture, reference: &Picture) -> Result<Option<f64>> {
    same_size("flat_area_noise", prediction, reference, true)?;
    let (w, h, c) = (reference.width, reference.height, reference.channels);
    let value = |x: usize, y: usize, ch: usize| reference.data[(y * w + x) * c + ch];
    let flat = |x: usize, y: usize| {
        (0..c).all(|ch| {
            let v = value(x, y, ch);
            (y - 1..=y + 1).all(|yy| (x - 1..=x + 1).all(|xx| value(xx, yy, ch) == v))
        })
    };
    let (mut sum, mut count) = (0.0, 0usize);
    for y in 1..h.saturating_sub(1) {
        for x in 1..w.saturating_sub(1) {
            if !flat(x, y) {
                continue;
            }
            for ch in 0..c {
                let i = (y * w + x) * c + ch;
                let d = 255.0 * (f64::from(prediction.data[i]) - f64::from(reference.data[i]));
                sum += d * d;
                count += 1;
            }
        }
    }
    Ok((count > 0).then(|| (sum / count as f64).sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_area_noise_counts_only_flat_pixels() {
        // Left half white paper, right half a ramp: noise of 2 levels on the paper is 2, the
        // same noise on the ramp is not counted.
        let (w, h) = (20, 10);
        let reference: Vec<f32> = (0..w * h)
            .map(|i| {
                if i % w < 10 {
                    1.0
                } else {
                    (i % w) as f32 / 40.0
                }
            })
            .collect();
        let noisy: Vec<f32> = reference
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                v - if (i / w + i % w) % 2 == 0 {
                    2.0 / 255.0
                } else {
                    0.0
                }
            })
            .collect();
        let r = Picture::new(w, h, 1, reference.clone()).unwrap();
        let p = Picture::new(w, h, 1, noisy).unwrap();
        // Flat pixels: columns 1..=8 of rows 1..=8; half of them are 2 levels off.
        let got = flat_area_noise(&p, &r).unwrap().unwrap();
        assert!((got - 2.0f64.sqrt()).abs() < 1e-3, "{got}");
        assert_eq!(flat_area_noise(&r, &r).unwrap(), Some(0.0));
        let ramp: Vec<f32> = (0..w * h).map(|i| i as f32 / 400.0).collect();
        let ramp = Picture::new(w, h, 1, ramp).unwrap();
        assert_eq!(flat_area_noise(&ramp, &ramp).unwrap(), None);
    }

    #[test]
    fn row_filtering_sums_the_taps_in_order() {
        let (w, h) = (19, 14);
        let v: Vec<f64> = (0..w * h).map(|i| ((i * 37) % 101) as f64 / 7.0).collect();
        let kernel = gaussian(5, SSIM_SIGMA);
        let got = filter_valid(&v, w, h, &kernel);
        let (ow, oh) = (w - 4, h - 4);
        let tap_sum = |f: &dyn Fn(usize) -> f64| (0..5).fold(0.0, |s, j| s + kernel[j] * f(j));
        let rows: Vec<f64> = (0..ow * h)
            .map(|i| tap_sum(&|j| v[(i / ow) * w + i % ow + j]))
            .collect();
        let expected: Vec<f64> = (0..ow * oh)
            .map(|i| tap_sum(&|j| rows[(i / ow + j) * ow + i % ow]))
            .collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn ssim_in_bands_equals_ssim_in_one_piece() {
        let (w, h) = (23, 41);
        let a: Vec<f32> = (0..w * h * 3)
            .map(|i| ((i * 7919) % 256) as f32 / 255.0)
            .collect();
        let b: Vec<f32> = a.iter().rev().copied().collect();
        let pa = Picture::new(w, h, 3, a).unwrap();
        let pb = Picture::new(w, h, 3, b).unwrap();
        let whole = ssim_in_bands(&pa, &pb, usize::MAX).unwrap();
        for values in [1, 30, 100, 500] {
            let banded = ssim_in_bands(&pa, &pb, values).unwrap();
            assert!(
                (banded - whole).abs() < 1e-12,
                "{values}: {banded} vs {whole}"
            );
        }
        assert!(whole < 0.99);
    }
}

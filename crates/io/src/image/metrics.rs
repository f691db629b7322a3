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

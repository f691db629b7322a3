//! Scores of a drawn picture against its reference ([`PictureScores`]) and the diagnosis of
//! an image fit that needs more steps ([`under_trained`]).

use crate::Result;
use io::Picture;
use io::image::{ink_iou, pixel_accuracy, psnr, ssim};
use serde::{Deserialize, Serialize};
use train::history::{Row, still_improving};

/// A fit whose loss still fell by more than this share over the last tenth of its steps is
/// called under-trained.
pub const UNDER_TRAINED: f64 = 0.05;

/// A fit whose reconstruction differs from the image's flat areas (blank paper, clear sky) by
/// more than this many 8-bit levels (RMS) shows speckle there, and is called under-trained
/// too: a SIREN fit of the bundled drawing scores 28 dB after 300 steps with 2.9 levels of
/// visible speckle on the paper, and 36.7 dB after 900 steps with 2.0 levels, barely seen;
/// hash-grid fits of it have 0.3 to 0.4.
pub const SPECKLE_LEVELS: f64 = 2.5;

/// How close a picture is to its reference: PSNR and SSIM, and for black-and-white line
/// art the share of pixels on the right side of mid-gray and the ink's intersection over
/// union; serialises to the entries of an image fit's `metrics.json`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PictureScores {
    /// Peak signal-to-noise ratio, in dB.
    pub psnr: f64,
    /// Structural similarity, up to 1.
    pub ssim: f64,
    /// Line art only: the share of pixels on the reference's side of mid-gray.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pixel_accuracy: Option<f64>,
    /// Line art only: intersection over union of the dark pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ink_iou: Option<f64>,
}

impl PictureScores {
    /// The scores of `picture` against `reference` (same size and channels); the ink scores
    /// when `line_art`.
    pub fn new(picture: &Picture, reference: &Picture, line_art: bool) -> Result<Self> {
        let ink = |f: fn(&Picture, &Picture) -> io::Result<f64>| -> Result<Option<f64>> {
            Ok(if line_art {
                Some(f(picture, reference)?)
            } else {
                None
            })
        };
        Ok(PictureScores {
            psnr: psnr(picture, reference)?,
            ssim: ssim(picture, reference)?,
            pixel_accuracy: ink(pixel_accuracy)?,
            ink_iou: ink(ink_iou)?,
        })
    }

    /// `PSNR 28.10 dB, SSIM 0.9500`, with `, pixel accuracy 99.50%, ink IoU 0.9700` for line
    /// art.
    pub fn summary(&self) -> String {
        let mut s = format!("PSNR {:.2} dB, SSIM {:.4}", self.psnr, self.ssim);
        if let (Some(acc), Some(iou)) = (self.pixel_accuracy, self.ink_iou) {
            s += &format!(", pixel accuracy {:.2}%, ink IoU {iou:.4}", acc * 100.0);
        }
        s
    }
}

/// A fit of at least this PSNR (dB) is never called under-trained: its pixels, rounded to 8
/// bits, are those of the picture but for a few (a uniform error of half a level is 58.9
/// dB), so more steps cannot show.
pub const EXACT_PSNR: f64 = 58.0;

/// Why a fit of `steps` steps scoring `psnr` is under-trained, if it is: below
/// [`EXACT_PSNR`], its loss still fell by more than [`UNDER_TRAINED`] over the last tenth of
/// the run, or its flat areas show more than [`SPECKLE_LEVELS`] of speckle.
pub fn under_trained(
    history: &[Row],
    flat_noise: Option<f64>,
    (steps, psnr): (u64, f64),
) -> Option<String> {
    if psnr >= EXACT_PSNR {
        return None;
    }
    let advice = format!(
        "more steps would improve the fit (e.g. {} steps)",
        steps * 2
    );
    if let Some(drop) = still_improving(history, 0.1).filter(|&d| d > UNDER_TRAINED) {
        return Some(format!(
            "the loss still fell {:.0}% over the last tenth of the run; {advice}",
            drop * 100.0
        ));
    }
    flat_noise.filter(|&n| n > SPECKLE_LEVELS).map(|n| {
        format!(
            "its flat areas (blank paper, clear sky) are {n:.1} levels of 255 off (RMS), seen as speckle; {advice}"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat_history() -> Vec<Row> {
        (1..=100)
            .map(|step| Row {
                step,
                epoch: 0.0,
                train_loss: Some(1e-3),
                val_loss: None,
                lr: 1e-4,
                elapsed: 0.0,
            })
            .collect()
    }

    #[test]
    fn speckle_alone_makes_a_fit_under_trained() {
        let rows = flat_history();
        assert_eq!(under_trained(&rows, Some(0.4), (100, 30.0)), None);
        assert_eq!(under_trained(&rows, None, (100, 30.0)), None);
        let note = under_trained(&rows, Some(2.9), (100, 30.0)).expect("speckle is named");
        assert!(
            note.contains("2.9 levels") && note.contains("(e.g. 200 steps)"),
            "{note}"
        );
        let mut falling = rows;
        falling[99].train_loss = Some(5e-4);
        let note =
            under_trained(&falling, Some(0.4), (100, 30.0)).expect("a falling loss is named");
        assert!(note.contains("fell 50%"), "{note}");
        // Beyond 8 bits' precision, nothing more can show.
        assert_eq!(under_trained(&falling, Some(2.9), (100, 83.0)), None);
    }
}

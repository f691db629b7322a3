//! What an image fit hands back: the fitted model, its figures (`metrics.json`) and the
//! files it wrote.

use super::stored::StoredScores;
use crate::Result;
use crate::metrics::PictureScores;
use io::FittedModel;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use tensor_core::Backend;
use train::RunMetrics;

/// The figures of an image fit, as its `metrics.json` holds them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageFitMetrics {
    /// PSNR and SSIM, and for line art pixel accuracy and ink IoU, of the reconstruction.
    #[serde(flatten)]
    pub scores: PictureScores,
    /// Width of the reconstruction scored (the picture's, unless a SIREN's was capped).
    pub width: usize,
    /// Height of the reconstruction scored.
    pub height: usize,
    /// Channels.
    pub channels: usize,
    /// The figures of every run: loss, steps, seconds, parameters.
    #[serde(flatten)]
    pub run: RunMetrics,
    /// Trainable parameters per pixel of the picture.
    pub params_per_pixel: f64,
    /// The model as stored in `float16` and scored from the stored values (fits within a
    /// size budget).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored: Option<StoredScores>,
    /// RMS error in levels of 255 over the picture's flat areas (speckle), where it has some.
    pub flat_area_noise: Option<f64>,
    /// Whether more steps would have improved the fit.
    pub under_trained: bool,
}

impl ImageFitMetrics {
    /// Writes them as pretty-printed JSON to `path`.
    pub fn write(&self, path: &Path) -> Result<()> {
        Ok(train::outcome::write_metrics(path, self)?)
    }
}

/// A finished image fit.
pub struct ImageFitOutcome<B: Backend> {
    /// The fitted picture, which draws itself at any size
    /// ([`FittedModel::render_png`]).
    pub model: FittedModel<B>,
    /// Its figures.
    pub metrics: ImageFitMetrics,
    /// `300 steps in 2.1 s`: the run's length and time.
    pub summary: String,
    /// Why training ended (completed, or stopped by the stop flag).
    pub stop_reason: nn::StopReason,
    /// Why more steps would improve the fit, for a fit that ran its length and needs them.
    pub under_trained: Option<String>,
    /// The run folder.
    pub dir: PathBuf,
    /// The files the fit wrote into it.
    pub files: Vec<PathBuf>,
}

impl<B: Backend> ImageFitOutcome<B> {
    /// `300 steps in 2.1 s: PSNR 31.20 dB, SSIM 0.9500, 7.77 params/pixel; results in
    /// runs/image-fit-...`, with the stored model's figures after the parameters for a fit
    /// within a size budget.
    pub fn line(&self) -> String {
        let stored = self
            .metrics
            .stored
            .as_ref()
            .map_or(String::new(), |s| format!("; {}", s.summary()));
        format!(
            "{}: {}, {:.2} params/pixel{stored}; results in {}",
            self.summary,
            self.metrics.scores.summary(),
            self.metrics.params_per_pixel,
            self.dir.display()
        )
    }
}

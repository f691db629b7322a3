//! The compact model file of a fit within a size budget: the fitted model stored in
//! `float16` ([`io::checkpoint::Storage::Float16`]), read back from the file and drawn from
//! its stored (rounded) values, so that its scores are those of the file a user keeps.

use super::defaults::{STORED_FILE, STORED_RECONSTRUCTION_FILE};
use crate::Result;
use crate::plot::comparison::COMPARISON_SIDE;
use io::FittedModel;
use io::checkpoint::Storage;
use io::image::{CompactPicture, RenderSettings, render_scored};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use tensor_core::Backend;

/// The figures of the stored model: its file's size and the scores of its drawing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredScores {
    /// How its values are stored (`float16`).
    pub storage: String,
    /// The file's size in bytes.
    pub bytes: u64,
    /// The file's bytes per pixel of the picture (the raw pixels take one a channel).
    pub bytes_per_pixel: f64,
    /// PSNR of the stored model's drawing against the picture, in dB.
    pub psnr: f64,
    /// SSIM of the stored model's drawing against the picture.
    pub ssim: f64,
}

impl StoredScores {
    /// `stored in float16: 534.1 kB (1.95 bytes/pixel), PSNR 40.12 dB`.
    pub fn summary(&self) -> String {
        format!(
            "stored in {}: {:.1} kB ({:.2} bytes/pixel), PSNR {:.2} dB",
            self.storage,
            self.bytes as f64 / 1000.0,
            self.bytes_per_pixel,
            self.psnr
        )
    }
}

/// Writes `model` in `float16` into the run folder `dir`, reads it back and draws it as
/// `settings` say against `picture` (scoring it as it is drawn); returns its figures and
/// the two files written.
pub fn store_and_score<B: Backend>(
    backend: &B,
    model: &FittedModel<B>,
    settings: &RenderSettings,
    picture: &CompactPicture,
    dir: &Path,
) -> Result<(StoredScores, [PathBuf; 2])> {
    let file = dir.join(STORED_FILE);
    let storage = Storage::Float16;
    model.save_as(&file, storage)?;
    let stored = FittedModel::load(&file, backend)?;
    let png = dir.join(STORED_RECONSTRUCTION_FILE);
    let (scores, _) = render_scored(backend, &stored, settings, picture, &png, COMPARISON_SIDE)?;
    let bytes = std::fs::metadata(&file)
        .map_err(|source| io::Error::Io {
            action: "read",
            path: file.clone(),
            source,
        })?
        .len();
    let pixels = (picture.width() * picture.height()).max(1) as f64;
    let figures = StoredScores {
        storage: "float16".into(),
        bytes,
        bytes_per_pixel: bytes as f64 / pixels,
        psnr: scores.psnr,
        ssim: scores.ssim,
    };
    Ok((figures, [file, png]))
}

/// Removes the compact model file and its drawing from `dir` where a fit without a size
/// budget starts afresh over a run that had one (`--force`): they would be the earlier
/// model's. A file that cannot be removed is an error.
pub(super) fn remove_earlier(dir: &Path) -> Result<()> {
    for name in [STORED_FILE, STORED_RECONSTRUCTION_FILE] {
        let path = dir.join(name);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(io::Error::Io {
                    action: "remove the earlier run's",
                    path,
                    source: e,
                }
                .into());
            }
            _ => {}
        }
    }
    Ok(())
}

//! After an image fit trains: the reconstruction drawn in bands into its PNG and scored
//! against the picture as it is drawn, `comparison.png` and `metrics.json`.

use super::defaults::{COMPARISON_FILE, METRICS_FILE, RECONSTRUCTION_FILE};
use super::draw_progress::DrawProgress;
use super::outcome::{ImageFitMetrics, ImageFitOutcome};
use super::recon::{capped_note, capped_side};
use super::record::image_info;
use super::stored::store_and_score;
use crate::Result;
use crate::metrics::{PictureScores, under_trained};
use crate::plot::comparison::COMPARISON_SIDE;
use crate::plot::write_comparison;
use io::FittedModel;
use io::Picture;
use io::image::{CompactPicture, ModelPixels, RenderSettings, Scores, render_scored_with};
use nn::{Model, PixelValues};
use std::path::Path;
use tensor_core::Backend;
use train::{Outcome, Reporter};

/// What a fit draws after training, kept from before it.
pub struct Drawing {
    /// The picture as `comparison.png` shows it.
    shown: Picture,
    /// The picture's width and height.
    size: (usize, usize),
    /// What the network learns without, per channel.
    offset: Vec<f32>,
    line_art: bool,
    /// Whether the model is also stored in `float16` and scored from the stored values (a
    /// fit within a size budget).
    store: bool,
}

impl Drawing {
    /// The drawing of a fit of `picture` (shrunk now for `comparison.png`); `store`: the
    /// model is also stored in `float16` and scored from the stored values.
    pub fn new(
        picture: &CompactPicture,
        offset: &[f32],
        line_art: bool,
        store: bool,
    ) -> Result<Self> {
        Ok(Drawing {
            shown: picture.shrink(COMPARISON_SIDE)?,
            size: (picture.width(), picture.height()),
            offset: offset.to_vec(),
            line_art,
            store,
        })
    }

    /// Draws the trained model of `out` into `reconstruction.png` in bands, scoring each band
    /// against the picture (whose `values` the fit trained on, `batch` pixels a step) as it
    /// is drawn (at a capped size, said in a note, when the whole picture would take longer
    /// to draw than the fit took: [`capped_side`]), then writes `comparison.png`, the stored
    /// model where asked, and `metrics.json`.
    pub fn finish<B: Backend, M: Model<B>>(
        self,
        backend: &B,
        dir: &Path,
        (out, values, batch): (Outcome<M>, PixelValues, usize),
        reporter: &mut dyn Reporter,
    ) -> Result<ImageFitOutcome<B>> {
        let ((w, h), c) = (self.size, self.offset.len());
        let mut picture = CompactPicture::new(w, h, c, values)?;
        let trained = out.report.steps as f64 * batch as f64;
        if let Some(side) = capped_side(w, h, trained) {
            picture = CompactPicture::from_picture(picture.shrink(side)?)?;
            let drawn = (picture.width(), picture.height());
            reporter.note(&capped_note((w, h), drawn, out.elapsed, trained));
        }
        let (w, h) = (picture.width(), picture.height());
        let mut settings = RenderSettings::new(w, h, c);
        settings.offset = self.offset.clone();
        let mut progress = DrawProgress::new("drawing the reconstruction", w, h, c);
        let reconstruction = dir.join(RECONSTRUCTION_FILE);
        let (banded, recon) = render_scored_with(
            backend,
            &ModelPixels(&out.model),
            &settings,
            &picture,
            (&reconstruction, COMPARISON_SIDE),
            |band| progress.band(band).iter().for_each(|l| reporter.status(l)),
        )?;
        let comparison = dir.join(COMPARISON_FILE);
        write_comparison(
            &comparison,
            &[("original", &self.shown), ("reconstruction", &recon)],
        )?;
        let mut metrics = self.metrics(&banded, (w, h), &out);
        let info = image_info(self.size, &self.offset);
        let mut files = vec![
            dir.join(train::record::FILE_NAME),
            dir.join(train::history::FILE_NAME),
            dir.join(train::checkpoint::FILE_NAME),
            dir.join(crate::plot::LOSS_FILE),
            reconstruction,
            comparison,
        ];
        // Said only of a fit that ran its length: a stopped one is continued instead.
        let completed = out.report.stop_reason == nn::StopReason::Completed;
        let scored = (out.report.steps, metrics.scores.psnr);
        let note = under_trained(&out.history, metrics.flat_area_noise, scored);
        let (summary, stop_reason) = (out.summary(), out.report.stop_reason);
        let model = FittedModel::new(out.model, info)?;
        if self.store {
            let (stored, written) = store_and_score(backend, &model, &settings, &picture, dir)?;
            metrics.stored = Some(stored);
            files.extend(written);
        }
        let metrics_file = dir.join(METRICS_FILE);
        metrics.write(&metrics_file)?;
        files.push(metrics_file);
        Ok(ImageFitOutcome {
            summary,
            stop_reason,
            model,
            metrics,
            under_trained: note.filter(|_| completed),
            dir: dir.to_path_buf(),
            files,
        })
    }

    /// The figures of a reconstruction drawn at `w x h` and scored in bands, after the run
    /// `out`.
    fn metrics<M: Model<B>, B: Backend>(
        &self,
        banded: &Scores,
        (w, h): (usize, usize),
        out: &Outcome<M>,
    ) -> ImageFitMetrics {
        let ink = |v: f64| self.line_art.then_some(v);
        let noise = banded.flat_area_noise;
        ImageFitMetrics {
            scores: PictureScores {
                psnr: banded.psnr,
                ssim: banded.ssim,
                pixel_accuracy: ink(banded.pixel_accuracy),
                ink_iou: ink(banded.ink_iou),
            },
            width: w,
            height: h,
            channels: self.offset.len(),
            run: out.metrics(out.model.num_params()),
            params_per_pixel: out.model.num_params() as f64
                / (self.size.0 * self.size.1).max(1) as f64,
            stored: None,
            flat_area_noise: noise,
            under_trained: under_trained(&out.history, noise, (out.report.steps, banded.psnr))
                .is_some(),
        }
    }
}

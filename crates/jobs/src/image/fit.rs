//! [`fit_image`]: an image fitted as a function `(x, y) -> pixel` in a run folder.

use super::defaults::{self, DEFAULT_ARCH, ORIGINAL_FILE};
use super::draw::Drawing;
use super::memory::{PictureBytes, check_memory};
use super::options::ImageFitOptions;
use super::outcome::ImageFitOutcome;
use super::plan::Plan;
use super::record::{ImageExtra, image_record};
use super::target::load_target;
use crate::Result;
use io::image::CompactPicture;
use nn::{HashGridMlp, Loss, Mlp, Model, PixelSampler};
use serde_json::{Map, Value};
use std::cell::Cell;
use tensor_core::Backend;
use train::{DataSummary, LossUnits, Reporter, Run, RunData};

/// The job name of an image fit's runs (in their checkpoints and records).
pub const JOB: &str = "image-fit";

/// Fits the picture the options name (or the bundled drawing) in the run folder
/// `options.out`, refusing first in one line what would not fit in memory; resumes from the
/// folder's checkpoint where asked. Writes `original.png`, `config.json`, `history.csv`,
/// `model.safetensors`, `loss.png`, `reconstruction.png`, `comparison.png` and
/// `metrics.json` (`original.png` once the run has started, so that a refused resume
/// leaves the folder as it was), and returns the fitted model, its figures and the files.
///
/// `reporter` sees the run's progress and notes, and a status line before training and
/// while the reconstruction is drawn.
pub fn fit_image<B: Backend>(
    backend: &B,
    options: &ImageFitOptions,
    reporter: &mut dyn Reporter,
) -> Result<ImageFitOutcome<B>> {
    let (picture, source, plan) = plan_fit::<B>(options)?;
    let (w, h, c) = (picture.width(), picture.height(), picture.channels());
    if let Some(note) = plan.smaller_tables_note(options, w * h) {
        reporter.note(&note);
    }
    let s = options.supersample as usize;
    let (offset, output_bias) = offsets(&picture.channel_means(), s);
    let line_art = picture.is_line_art();
    let record = image_record(options, (w, h, c, line_art), &plan)?;
    let drawing = Drawing::new(&picture, &offset, line_art, options.budget.is_some())?;
    let summary = DataSummary::of_compact_pixels(picture.values(), c, &offset);
    let sampler = PixelSampler::new(
        w,
        h,
        c,
        picture.into_values(),
        plan.batch,
        options.training.seed,
    )?
    .with_offset(&offset)?
    .with_supersample(s)?;
    reporter.status(&opening_line(
        &source,
        (w, h, c),
        &plan,
        sampler.whole_image(),
    ));
    let parts = RunParts {
        options,
        extra: ImageExtra {
            width: w,
            height: h,
            channels: c,
            threshold: options.threshold,
            offset: &offset,
            supersample: s,
            source: &source,
        },
        record,
        output_bias,
        defaults: match options.budget {
            Some(_) => defaults::budget_training(w * h),
            None => defaults::training(plan.arch, w * h),
        },
        summary,
    };
    let fitted = Fitted {
        sampler,
        drawing,
        reporter,
    };
    match plan.grid {
        Some(g) => fitted.train::<B, HashGridMlp<B>>(backend, parts, g),
        None => fitted.train::<B, Mlp<B>>(backend, parts, plan.mlp),
    }
}

/// Loads the picture and settles the network, refusing first what cannot fit in memory,
/// before a picture of that size is made; the hash grid's tables chosen there are the ones
/// the fit uses.
fn plan_fit<B: Backend>(options: &ImageFitOptions) -> Result<(CompactPicture, String, Plan)> {
    let arch = options.arch.unwrap_or(DEFAULT_ARCH);
    let tables = Cell::new(None);
    let fits = |w: usize, h: usize, bytes: PictureBytes| -> Result<()> {
        let c = options.channels_at_most();
        let plan = Plan::new::<B>(options, arch, (w, h, c), bytes)?;
        check_memory(&plan.size)?;
        tables.set(plan.log2_table_size().or(tables.get()));
        Ok(())
    };
    let (picture, source) = load_target(options, &fits)?;
    let (w, h, c) = (picture.width(), picture.height(), picture.channels());
    let plan = match tables.get() {
        Some(log2) => Plan::with_tables::<B>(options, arch, (w, h, c), log2)?,
        None => Plan::new::<B>(options, arch, (w, h, c), PictureBytes::compact(w * h, c))?,
    };
    Ok((picture, source, plan))
}

/// `fitting photo.png (640x480, 307200 pixels, colour) with a hashgrid network 64x2 (tables
/// of 2^19 entries), 65536 random pixels per step`.
fn opening_line(
    source: &str,
    (w, h, c): (usize, usize, usize),
    plan: &Plan,
    whole: bool,
) -> String {
    format!(
        "fitting {source} ({w}x{h}, {} pixels, {}) with a {} network {}{}, {}",
        w * h,
        if c == 3 { "colour" } else { "gray" },
        plan.arch.name(),
        plan.hidden,
        plan.grid.as_ref().map_or(String::new(), |g| format!(
            " (tables of 2^{} entries)",
            g.log2_table_size
        )),
        if whole {
            "the whole image at every step".to_string()
        } else {
            format!("{} random pixels per step", plan.batch)
        }
    )
}

/// What is fitted to: point supervision learns `value - mean` through an identity output;
/// area supervision (`supersample` above 1) learns coverage through a sigmoid whose bias
/// starts at the logit of the mean, and matches each pixel with the mean of its samples.
/// Returns the per-channel offset the network learns without, and the initial output bias.
fn offsets(means: &[f32], supersample: usize) -> (Vec<f32>, Option<Vec<f32>>) {
    if supersample == 1 {
        return (means.to_vec(), None);
    }
    let logit = |m: f32| {
        let m = m.clamp(0.01, 0.99);
        (m / (1.0 - m)).ln()
    };
    (
        vec![0.0; means.len()],
        Some(means.iter().map(|&m| logit(m)).collect()),
    )
}

/// What the training run of a fit holds besides its network.
struct RunParts<'a> {
    options: &'a ImageFitOptions,
    extra: ImageExtra<'a>,
    record: Map<String, Value>,
    output_bias: Option<Vec<f32>>,
    defaults: train::Defaults,
    summary: DataSummary,
}

/// A fit's pixels, what it draws after training and who hears of it.
struct Fitted<'r> {
    sampler: PixelSampler,
    drawing: Drawing,
    reporter: &'r mut dyn Reporter,
}

impl Fitted<'_> {
    /// Trains a network of `architecture` on the sampler's pixels, draws `loss.png`, then
    /// the reconstruction and the rest of the fit's files.
    fn train<B: Backend, M: Model<B>>(
        mut self,
        backend: &B,
        parts: RunParts<'_>,
        architecture: M::Config,
    ) -> Result<ImageFitOutcome<B>> {
        let options = parts.options;
        let dir = options.out.as_path();
        let s = options.supersample as usize;
        let mut run = Run::new(
            JOB,
            dir,
            architecture,
            Loss::Mse,
            options.settings(&parts.defaults),
        )
        .extra(parts.extra.to_value())
        .info(parts.extra.info())
        .pool(s * s)
        .output_bias(parts.output_bias)
        .record(parts.record)
        .loss_units(LossUnits::pixels())
        .reporter(&mut *self.reporter);
        if let Some(flag) = &options.training.stop {
            run = run.stop_flag(flag.clone());
        }
        let batch = self.sampler.batch();
        let data = RunData::Sampled(&mut self.sampler, parts.summary);
        let out = run.train::<B, M>(backend, data, None)?;
        // Written once the run has started: a refused one (a resume that does not match)
        // leaves the folder as it was.
        let (w, h, c) = (parts.extra.width, parts.extra.height, parts.extra.channels);
        let picture = CompactPicture::new(w, h, c, self.sampler.into_values())?;
        let original = dir.join(ORIGINAL_FILE);
        picture.save_png(&original)?;
        if options.budget.is_none() {
            super::stored::remove_earlier(dir)?;
        }
        crate::plot::draw_loss(dir, &out.history, &out.loss_units)?;
        let values = picture.into_values();
        let mut outcome = self
            .drawing
            .finish(backend, dir, (out, values, batch), self.reporter)?;
        outcome.files.insert(0, original);
        Ok(outcome)
    }
}

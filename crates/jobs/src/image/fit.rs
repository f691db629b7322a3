//! [`fit_image`]: an image fitted as a function `(x, y) -> pixel` in a run folder.

use super::defaults::{self, DEFAULT_ARCH, ORIGINAL_FILE};
use super::draw::Drawing;
use super::memory::{PictureBytes, check_memory};
use super::options::ImageFitOptions;
use super::outcome::ImageFitOutcome;
use super::plan::Plan;
use super::record::{ImageExtra, image_record};
use super::target::load_target;
use crate::{Error, Result};
use io::image::CompactPicture;
use nn::{HashGridMlp, Loss, Mlp, Model, PixelSampler, PixelValues};
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::ops::Range;
use std::path::Path;
use tensor_core::Backend;
use train::{DataSummary, LossUnits, Outcome, Reporter, Run, RunData};

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
///
/// In a run over several processes ([`train::ranks`]), each process loads and trains on
/// its own band of the picture's rows; rank 0 also loads the whole picture, writes the run
/// folder, draws and scores the fit, and every process returns the trained model with rank
/// 0's figures.
pub fn fit_image<B: Backend>(
    backend: &B,
    options: &ImageFitOptions,
    reporter: &mut dyn Reporter,
) -> Result<ImageFitOutcome<B>> {
    let world = train::ranks::world();
    if world.size() > 1 && options.supersample > 1 {
        return Err(Error::AreaNotShared {
            supersample: options.supersample,
            processes: world.size(),
        });
    }
    if !world.is_writer() {
        return super::shared::fit_band(backend, options, reporter);
    }
    let (picture, source, plan) = plan_fit::<B>(options)?;
    let (w, h, c) = (picture.width(), picture.height(), picture.channels());
    if let Some(note) = plan.smaller_tables_note(options, w * h) {
        reporter.note(&note);
    }
    let s = options.supersample as usize;
    let (offset, output_bias) = offsets(&picture.channel_means(), s);
    let facts = PictureFacts {
        width: w,
        height: h,
        channels: c,
        line_art: picture.is_line_art(),
        summary: DataSummary::of_compact_pixels(picture.values(), c, &offset),
        offset,
        output_bias,
        source,
        log2_table_size: plan.log2_table_size(),
        bands: match world.size() {
            1 => Vec::new(),
            _ => super::shared::bands_sums(&picture, world),
        },
    };
    let drawing = Drawing::new(
        &picture,
        &facts.offset,
        facts.line_art,
        options.budget.is_some(),
    )?;
    let mut sampler = facts.sampler(options, &plan, picture.into_values(), None)?;
    if world.size() > 1 {
        super::shared::share_facts(world, Some(facts.clone()))?;
        sampler = sampler.making_part(super::shared::band_rows(h, world))?;
    }
    reporter.status(&opening_line(
        &facts.source,
        (w, h, c),
        &plan,
        sampler.whole_image(),
    ));
    let fitted = Fitted {
        sampler,
        drawing,
        reporter,
    };
    fitted.train_on(backend, options, &facts, &plan)
}

/// Loads the picture and settles the network, refusing first what cannot fit in memory,
/// before a picture of that size is made; the hash grid's tables chosen there are the ones
/// the fit uses.
pub(super) fn plan_fit<B: Backend>(
    options: &ImageFitOptions,
) -> Result<(CompactPicture, String, Plan)> {
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

/// What an image fit knows of its picture before training: what every process of a fit
/// over several needs (rank 0 hands it to the others, who load only their band of rows).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct PictureFacts {
    pub width: usize,
    pub height: usize,
    pub channels: usize,
    /// What the network learns without, per channel, and its output's first bias.
    pub offset: Vec<f32>,
    pub output_bias: Option<Vec<f32>>,
    pub line_art: bool,
    /// The whole picture's summary (its fingerprint, for resuming).
    pub summary: DataSummary,
    /// The image file's name, or `bundled drawing`.
    pub source: String,
    /// The hash grid's tables, as settled when the picture was loaded.
    pub log2_table_size: Option<u32>,
    /// Each process's band's sums (`shared::band_sums`), to check the bands against.
    pub bands: Vec<[u64; 3]>,
}

impl PictureFacts {
    /// The sampler of the fit's pixels: `values` of the whole picture, or of the band
    /// `rows` of it.
    pub fn sampler(
        &self,
        options: &ImageFitOptions,
        plan: &Plan,
        values: PixelValues,
        rows: Option<Range<usize>>,
    ) -> Result<PixelSampler> {
        let (w, h, c) = (self.width, self.height, self.channels);
        let seed = options.training.seed;
        let sampler = match rows {
            None => PixelSampler::new(w, h, c, values, plan.batch, seed)?,
            Some(rows) => PixelSampler::band((w, h, c), rows, values, plan.batch, seed)?,
        };
        Ok(sampler
            .with_offset(&self.offset)?
            .with_supersample(options.supersample as usize)?)
    }

    /// The checkpoint's job data of the fit.
    fn extra(&self, options: &ImageFitOptions) -> ImageExtra<'_> {
        ImageExtra {
            width: self.width,
            height: self.height,
            channels: self.channels,
            threshold: options.threshold,
            offset: &self.offset,
            supersample: options.supersample as usize,
            source: &self.source,
        }
    }
}

/// Trains a network of `plan` on `sampler`'s pixels in the run folder `options.out`, the
/// run's progress told to `reporter`.
pub(super) fn train_fit<B: Backend>(
    backend: &B,
    (options, facts, plan): (&ImageFitOptions, &PictureFacts, &Plan),
    sampler: &mut PixelSampler,
    reporter: &mut dyn Reporter,
) -> Result<FitRun<B>> {
    Ok(match &plan.grid {
        Some(g) => FitRun::Grid(Box::new(run::<B, HashGridMlp<B>>(
            backend,
            (options, facts, plan),
            sampler,
            reporter,
            g.clone(),
        )?)),
        None => FitRun::Mlp(Box::new(run::<B, Mlp<B>>(
            backend,
            (options, facts, plan),
            sampler,
            reporter,
            plan.mlp.clone(),
        )?)),
    })
}

/// A trained fit's run, of either network.
pub(super) enum FitRun<B: Backend> {
    Grid(Box<Outcome<HashGridMlp<B>>>),
    Mlp(Box<Outcome<Mlp<B>>>),
}

/// The run of [`train_fit`] with a network of `architecture`.
fn run<B: Backend, M: Model<B>>(
    backend: &B,
    (options, facts, plan): (&ImageFitOptions, &PictureFacts, &Plan),
    sampler: &mut PixelSampler,
    reporter: &mut dyn Reporter,
    architecture: M::Config,
) -> Result<Outcome<M>> {
    let (w, h, c) = (facts.width, facts.height, facts.channels);
    let s = options.supersample as usize;
    let defaults = match options.budget {
        Some(_) => defaults::budget_training(w * h),
        None => defaults::training(plan.arch, w * h),
    };
    let extra = facts.extra(options);
    let mut run = Run::new(
        JOB,
        options.out.as_path(),
        architecture,
        Loss::Mse,
        options.settings(&defaults),
    )
    .extra(extra.to_value())
    .info(extra.info())
    .pool(s * s)
    .output_bias(facts.output_bias.clone())
    .record(image_record(options, (w, h, c, facts.line_art), plan)?)
    .loss_units(LossUnits::pixels())
    .reporter(reporter);
    if let Some(flag) = &options.training.stop {
        run = run.stop_flag(flag.clone());
    }
    let data = RunData::Sampled(sampler, facts.summary.clone());
    Ok(run.train::<B, M>(backend, data, None)?)
}

/// A fit's pixels, what it draws after training and who hears of it.
struct Fitted<'r> {
    sampler: PixelSampler,
    drawing: Drawing,
    reporter: &'r mut dyn Reporter,
}

impl Fitted<'_> {
    /// Trains the fit's network on the sampler's pixels, draws `loss.png`, then the
    /// reconstruction and the rest of the fit's files; the figures are handed to the other
    /// processes of a fit over several.
    fn train_on<B: Backend>(
        mut self,
        backend: &B,
        options: &ImageFitOptions,
        facts: &PictureFacts,
        plan: &Plan,
    ) -> Result<ImageFitOutcome<B>> {
        let trained = train_fit(
            backend,
            (options, facts, plan),
            &mut self.sampler,
            &mut *self.reporter,
        )?;
        let values = self.sampler.into_values();
        let batch = plan.batch;
        let dir = options.out.as_path();
        let parts = (options, facts, dir, batch);
        let outcome = match trained {
            FitRun::Grid(out) => finish(backend, parts, *out, values, self.drawing, self.reporter),
            FitRun::Mlp(out) => finish(backend, parts, *out, values, self.drawing, self.reporter),
        }?;
        let world = train::ranks::world();
        if world.size() > 1 {
            super::shared::share_end(world, Some(super::shared::FitEnd::of(&outcome)))?;
        }
        Ok(outcome)
    }
}

/// Writes `original.png`, `loss.png`, the reconstruction and the fit's other files after
/// the run `out` on the picture's `values`.
fn finish<B: Backend, M: Model<B>>(
    backend: &B,
    (options, facts, dir, batch): (&ImageFitOptions, &PictureFacts, &Path, usize),
    out: Outcome<M>,
    values: PixelValues,
    drawing: Drawing,
    reporter: &mut dyn Reporter,
) -> Result<ImageFitOutcome<B>> {
    // Written once the run has started: a refused one (a resume that does not match)
    // leaves the folder as it was.
    let (w, h, c) = (facts.width, facts.height, facts.channels);
    let picture = CompactPicture::new(w, h, c, values)?;
    let original = dir.join(ORIGINAL_FILE);
    picture.save_png(&original)?;
    if options.budget.is_none() {
        super::stored::remove_earlier(dir)?;
    }
    crate::plot::draw_loss(dir, &out.history, &out.loss_units)?;
    let values = picture.into_values();
    let mut outcome = drawing.finish(backend, dir, (out, values, batch), reporter)?;
    outcome.files.insert(0, original);
    Ok(outcome)
}

//! `iron-learn image fit`: an image as a function (x, y) -> pixel.

use super::image_arch::{PictureBytes, Plan, check_memory, resolve_arch};
use super::image_progress::DrawProgress;
use super::image_recon::{capped_note, capped_side};
use crate::cli::{ArchArg, ImageFitArgs};
use crate::device::Job;
use crate::report::run_dir;
use crate::session::{DataSummary, Run, RunData};
use anyhow::{Result, bail};
use io::image::{
    ColorMode, CompactPicture, ModelPixels, RenderSettings, fit_longest_side, render_scored_with,
};
use io::{Picture, default_drawing};
use nn::{Activation, HashGridMlp, Init, Loss, Mlp, MlpConfig, PixelSampler};
use serde::Serialize;
use serde_json::{Map, Value};
use tensor_core::Backend;
use train::metrics::{PictureScores, under_trained};
use train::plot::comparison::COMPARISON_SIDE;
use train::plot::write_comparison;
use train::record::DataFile;
use train::{LossUnits, RunMetrics, RunModel};

/// Training size of the bundled drawing.
pub const DEFAULT_SIZE: u32 = 200;

/// Largest `--size`, for user images as for the bundled drawing.
pub const MAX_SIZE: u32 = 16_384;

/// Fits an image.
pub struct ImageFit(pub ImageFitArgs);

/// The network for an architecture family.
pub fn architecture<B: Backend>(
    arch: ArchArg,
    hidden: &[usize],
    channels: usize,
    output: Activation,
    seed: u64,
) -> Result<MlpConfig> {
    let builder = Mlp::<B>::builder().input(2).output(channels, output);
    let builder = match arch {
        ArchArg::Siren => builder
            .hidden(hidden, Activation::Sine { w0: 30.0 })
            .init(Init::Siren),
        ArchArg::Fourier => builder
            .fourier_features(256, 8.0)
            .hidden(hidden, Activation::Relu),
        ArchArg::Relu | ArchArg::Hashgrid => builder.hidden(hidden, Activation::Relu),
    };
    Ok(builder.config(seed)?)
}

/// Refuses a `--size` or `--threshold` out of range.
fn check_picture_options(args: &ImageFitArgs) -> Result<()> {
    if let Some(n) = args.size
        && !(2..=MAX_SIZE).contains(&n)
    {
        bail!("--size must be between 2 and {MAX_SIZE}, got {n}");
    }
    if let Some(t) = args.threshold
        && !(0.0..=1.0).contains(&t)
    {
        bail!("--threshold must be between 0 and 1, got {t}");
    }
    Ok(())
}

/// The bundled drawing at `--size` (thresholded where asked), once `fits` accepts it.
fn bundled_target(
    args: &ImageFitArgs,
    fits: &dyn Fn(usize, usize, PictureBytes) -> Result<()>,
) -> Result<(CompactPicture, String)> {
    let n = args.size.unwrap_or(DEFAULT_SIZE) as usize;
    fits(n, n, PictureBytes::values(n * n, 1))?;
    let mut picture = default_drawing().render(n)?;
    if let Some(t) = args.threshold {
        picture = picture.threshold(t);
    }
    Ok((
        CompactPicture::from_picture(picture)?,
        "bundled drawing".into(),
    ))
}

/// Loads the image to fit (or renders the bundled drawing) at the requested size, in colour
/// when it has colour (unless --gray), as a compact copy, with a name for messages.
///
/// `fits(width, height, bytes)` is asked before a picture of that size is made.
fn target(
    args: &ImageFitArgs,
    fits: &dyn Fn(usize, usize, PictureBytes) -> Result<()>,
) -> Result<(CompactPicture, String)> {
    check_picture_options(args)?;
    let Some(path) = &args.image else {
        return bundled_target(args, fits);
    };
    let mode = if args.gray || args.threshold.is_some() {
        ColorMode::Grayscale
    } else {
        ColorMode::Rgb
    };
    let c = if mode == ColorMode::Rgb { 3 } else { 1 };
    // From the header alone: loading the image (at its own size, whatever --size asks), then
    // the fit, must fit in memory.
    let header = io::image::read_image_header(path)?;
    let budget = crate::memory_budget::image_budget()?;
    let (w, h) = match args.size {
        Some(n) => fit_longest_side(header.width, header.height, n as usize),
        None => (header.width, header.height),
    };
    let gray_if_no_colour = |picture: &CompactPicture| -> Result<Option<CompactPicture>> {
        if args.color || picture.channels() != 3 || picture.has_color() {
            return Ok(None);
        }
        // Known only now: a gray copy (4 bytes a pixel at most) beside the colour one.
        let (pixels, held) = (picture.pixels(), picture.memory_bytes());
        let gray = PictureBytes::values(pixels, 1);
        fits(
            w,
            h,
            PictureBytes {
                load: held + gray.load,
                ..gray
            },
        )?;
        Ok(Some(picture.to_grayscale()?))
    };
    let mut picture = if (w, h) == (header.width, header.height) {
        let bytes = PictureBytes {
            load: header.load_bytes(mode),
            held: header.compact_bytes(mode),
        };
        fits(w, h, bytes)?;
        let mut picture = io::image::load_compact_within(path, mode, budget.as_ref())?;
        if let Some(gray) = gray_if_no_colour(&picture)? {
            picture = gray;
        }
        picture
    } else {
        let limits = (budget.as_ref(), fits);
        super::image_resize::resized_picture(path, &header, mode, (w, h, c), args.color, limits)?
    };
    if let Some(t) = args.threshold {
        picture = picture.threshold(t)?;
    }
    Ok((picture, path.display().to_string()))
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

/// The job's entries of `config.json`: the image read and the options.
fn record(
    args: &ImageFitArgs,
    (w, h, c, line_art): (usize, usize, usize, bool),
    plan: &Plan,
    batch: usize,
) -> Result<Map<String, Value>> {
    let data = ImageData {
        file: args.image.as_deref().map(DataFile::read).transpose()?,
        source: args.image.is_none().then_some("bundled drawing"),
        width: w,
        height: h,
        channels: c,
        line_art,
    };
    let options = ImageOptions {
        size: args.size,
        arch: arch_name(plan.arch),
        hidden: plan.hidden.to_string(),
        color: c == 3,
        threshold: args.threshold,
        supersample: args.supersample,
        batch_pixels: batch,
    };
    Ok(train::record::entries(&ImageRecord { data, options })?)
}

/// The entries of an image fit's `config.json`.
#[derive(Serialize)]
struct ImageRecord {
    data: ImageData,
    options: ImageOptions,
}

/// The picture read: its file (or the bundled drawing's name) and its size.
#[derive(Serialize)]
struct ImageData {
    #[serde(flatten)]
    file: Option<DataFile>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'static str>,
    width: usize,
    height: usize,
    channels: usize,
    line_art: bool,
}

/// An image fit's options as recorded.
#[derive(Serialize)]
struct ImageOptions {
    size: Option<u32>,
    arch: String,
    hidden: String,
    color: bool,
    threshold: Option<f32>,
    supersample: u32,
    batch_pixels: usize,
}

/// The checkpoint's job data of an image fit.
#[derive(Serialize)]
struct ImageExtra<'a> {
    width: usize,
    height: usize,
    channels: usize,
    threshold: Option<f32>,
    offset: &'a [f32],
    supersample: usize,
    source: &'a str,
}

/// The architecture's name in messages and records (`siren`, `hashgrid`, ...).
fn arch_name(arch: ArchArg) -> String {
    format!("{arch:?}").to_lowercase()
}

/// What the training run of a fit holds besides its network.
struct RunParts<'a> {
    args: &'a ImageFitArgs,
    dir: &'a std::path::Path,
    arch: ArchArg,
    /// The picture's width, height and channels.
    size: (usize, usize, usize),
    source: &'a str,
    offset: &'a [f32],
    output_bias: Option<Vec<f32>>,
    record: Map<String, Value>,
}

impl<'a> RunParts<'a> {
    /// The training run of a network with configuration `architecture`.
    fn run<C>(self, architecture: C) -> Run<'a, C> {
        let (w, h, c) = self.size;
        let s = self.args.supersample as usize;
        let channels: &[&str] = if c == 3 { &["r", "g", "b"] } else { &["value"] };
        Run {
            job: "image-fit",
            dir: self.dir.to_path_buf(),
            args: &self.args.train,
            defaults: match self.arch {
                ArchArg::Hashgrid => crate::defaults::image_fit_hash_grid(w * h),
                _ => crate::defaults::image_fit(w * h),
            },
            architecture,
            loss: Loss::Mse,
            extra: serde_json::to_value(ImageExtra {
                width: w,
                height: h,
                channels: c,
                threshold: self.args.threshold,
                offset: self.offset,
                supersample: s,
                source: self.source,
            })
            .unwrap_or_default(), // numbers and text only: cannot fail
            info: io::ModelInfo::image(w, h, channels).with_targets(io::Standardizer {
                mean: self.offset.to_vec(),
                std: vec![1.0; c],
            }),
            early_stopping: None,
            pool: s * s,
            output_bias: self.output_bias,
            record: self.record,
            loss_units: LossUnits::pixels(),
            weight_decay: 0.0,
            held_beside: 0.0,
        }
    }
}

impl Job for ImageFit {
    type Output = ();

    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let args = &self.0;
        let s = args.supersample as usize;
        if !(1..=4).contains(&s) {
            bail!("--supersample must be between 1 and 4, got {s}");
        }
        // Refuse what cannot fit before a picture of that size is made. The architecture
        // can depend on the picture (line art or photo): both candidates must fit.
        // The hash grid's tables chosen there are the ones the fit uses.
        let tables = std::cell::Cell::new(None);
        let fits = |w: usize, h: usize, bytes: PictureBytes| -> Result<()> {
            let c = if args.gray || args.threshold.is_some() {
                1
            } else {
                3
            };
            for line_art in [false, true] {
                let plan = Plan::new::<B>(args, resolve_arch(args, line_art), (w, h, c), s, bytes)?;
                check_memory(&plan.footprint)?;
                tables.set(plan.log2_table_size().or(tables.get()));
            }
            Ok(())
        };
        let (picture, source) = target(args, &fits)?;
        let (w, h, c) = (picture.width(), picture.height(), picture.channels());
        let line_art = picture.is_line_art();
        let arch = resolve_arch(args, line_art);
        let plan = match tables.get() {
            Some(log2) => Plan::with_tables::<B>(args, arch, (w, h, c), s, log2)?,
            None => Plan::new::<B>(args, arch, (w, h, c), s, PictureBytes::compact(w * h, c))?,
        };
        if let Some(note) = plan.smaller_tables_note(args, w * h) {
            eprintln!("{note}");
        }
        let dir = run_dir::prepare(&args.train, "image-fit")?;
        picture.save_png(&dir.join("original.png"))?;
        let (offset, output_bias) = offsets(&picture.channel_means(), s);
        let record = record(args, (w, h, c, line_art), &plan, plan.batch)?;
        let shown = picture.shrink(COMPARISON_SIDE)?;
        let summary = DataSummary::of_compact_pixels(picture.values(), c, &offset);
        let values = picture.into_values();
        let sampler = PixelSampler::new(w, h, c, values, plan.batch, args.train.seed)?
            .with_offset(&offset)?
            .with_supersample(s)?;
        if !args.train.quiet {
            eprintln!(
                "fitting {source} ({w}x{h}, {} pixels, {}) with a {} network {}{}, {}",
                w * h,
                if c == 3 { "colour" } else { "gray" },
                arch_name(plan.arch),
                plan.hidden,
                plan.grid.as_ref().map_or(String::new(), |g| format!(
                    " (tables of 2^{} entries)",
                    g.log2_table_size
                )),
                if sampler.whole_image() {
                    "the whole image at every step".to_string()
                } else {
                    format!("{} random pixels per step", plan.batch)
                }
            );
        }
        let fit = Fit {
            quiet: args.train.quiet,
            siren: arch == ArchArg::Siren,
            shown: &shown,
            size: (w, h),
            dir: &dir,
            offset: &offset,
            line_art,
            sampler,
            summary,
        };
        let parts = RunParts {
            args,
            dir: &dir,
            arch: plan.arch,
            size: (w, h, c),
            source: &source,
            offset: &offset,
            output_bias,
            record,
        };
        match plan.grid {
            Some(g) => fit.train::<B, HashGridMlp<B>>(backend, parts.run(g)),
            None => fit.train::<B, Mlp<B>>(backend, parts.run(plan.mlp)),
        }
    }
}

/// The figures of an image fit's `metrics.json`.
#[derive(Serialize)]
struct ImageFitMetrics {
    #[serde(flatten)]
    scores: PictureScores,
    width: usize,
    height: usize,
    channels: usize,
    #[serde(flatten)]
    run: RunMetrics,
    flat_area_noise: Option<f64>,
    under_trained: bool,
}

/// The pieces of a fit that do not depend on the network.
struct Fit<'a> {
    /// No progress lines.
    quiet: bool,
    /// A SIREN network, whose reconstruction is capped ([`capped_side`]).
    siren: bool,
    /// The picture as `comparison.png` shows it.
    shown: &'a Picture,
    /// The picture's width and height.
    size: (usize, usize),
    dir: &'a std::path::Path,
    offset: &'a [f32],
    line_art: bool,
    sampler: PixelSampler,
    summary: DataSummary,
}

impl Fit<'_> {
    /// Trains, then draws the reconstruction in bands into its PNG, scoring each band against
    /// the picture's compact copy as it is drawn, and writes the comparison and the metrics.
    fn train<B: Backend, M: RunModel<B>>(
        mut self,
        backend: &B,
        run: Run<'_, M::Config>,
    ) -> Result<()> {
        let ((w, h), c) = (self.size, self.offset.len());
        let batch = self.sampler.batch() as f64;
        let data = RunData::Sampled(&mut self.sampler, self.summary);
        let out = run.train_model::<B, M>(backend, data, None)?;
        let mut picture = CompactPicture::new(w, h, c, self.sampler.into_values())?;
        let trained = out.report.steps as f64 * batch;
        if let Some(side) = capped_side(w, h, trained).filter(|_| self.siren) {
            picture = CompactPicture::from_picture(picture.shrink(side)?)?;
            let drawn = (picture.width(), picture.height());
            eprintln!("{}", capped_note((w, h), drawn, out.elapsed, trained));
        }
        let (w, h) = (picture.width(), picture.height());
        let dir = self.dir;
        let mut settings = RenderSettings::new(w, h, c);
        settings.offset = self.offset.to_vec();
        let mut progress =
            (!self.quiet).then(|| DrawProgress::new("drawing the reconstruction", w, h, c));
        let (banded, recon) = render_scored_with(
            backend,
            &ModelPixels(&out.model),
            &settings,
            &picture,
            (&dir.join("reconstruction.png"), COMPARISON_SIDE),
            |band| progress.iter_mut().for_each(|p| p.band(band)),
        )?;
        write_comparison(
            &dir.join("comparison.png"),
            &[("original", self.shown), ("reconstruction", &recon)],
        )?;
        let r = &out.report;
        let ink = |v: f64| self.line_art.then_some(v);
        let scores = PictureScores {
            psnr: banded.psnr,
            ssim: banded.ssim,
            pixel_accuracy: ink(banded.pixel_accuracy),
            ink_iou: ink(banded.ink_iou),
        };
        let noise = banded.flat_area_noise;
        let note = under_trained(&out.history, noise, r.steps);
        let m = ImageFitMetrics {
            scores,
            width: w,
            height: h,
            channels: c,
            run: out.metrics(out.model.num_params()),
            flat_area_noise: noise,
            under_trained: note.is_some(),
        };
        run_dir::write_metrics(dir, &m)?;
        println!(
            "{}: {}; results in {}",
            out.summary(),
            scores.summary(),
            dir.display()
        );
        if let Some(note) = note
            && r.stop_reason == nn::StopReason::Completed
        {
            println!("note: under-trained: {note}");
        }
        Ok(())
    }
}

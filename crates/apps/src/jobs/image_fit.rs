//! `iron-learn image fit`: an image as a function (x, y) -> pixel.

use super::image_arch::{Plan, check_memory, resolve_arch};
use crate::cli::{ArchArg, ImageFitArgs};
use crate::device::Job;
use crate::report::comparison::write_comparison;
use crate::report::{run_dir, run_record};
use crate::session::{DataSummary, Run, RunData};
use anyhow::{Result, bail};
use io::image::{ColorMode, fit_longest_side, ink_iou, pixel_accuracy, psnr, save_png, ssim};
use io::{Picture, default_drawing};
use nn::{Activation, HashGridMlp, Init, Loss, Mlp, MlpConfig, PixelSampler, PixelValues};
use serde_json::{Map, json};
use tensor_core::Backend;
use train::LossUnits;
use train::RunModel;
use train::history::still_improving;

/// Training size of the bundled drawing.
pub const DEFAULT_SIZE: u32 = 200;

/// Largest `--size`, for user images as for the bundled drawing.
pub const MAX_SIZE: u32 = 16_384;

/// A fit whose loss still fell by more than this share over the last tenth of its steps is
/// called under-trained.
const UNDER_TRAINED: f64 = 0.05;

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

/// Loss units of image fits: pixel values run from 0 (black) to 1 (white).
pub fn pixel_loss_units() -> LossUnits {
    LossUnits {
        scale: 1.0,
        label: "MSE (pixel values 0-1)".into(),
    }
}

/// Loads the image to fit (or renders the bundled drawing) at the requested size, in colour
/// when it has colour (unless --gray), with a name for messages.
///
/// `fits(width, height)` is asked before a picture of that size is made.
fn target(
    args: &ImageFitArgs,
    fits: &dyn Fn(usize, usize) -> Result<()>,
) -> Result<(Picture, String)> {
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
    let Some(path) = &args.image else {
        let n = args.size.unwrap_or(DEFAULT_SIZE) as usize;
        fits(n, n)?;
        let mut picture = default_drawing().render(n)?;
        if let Some(t) = args.threshold {
            picture = picture.threshold(t);
        }
        return Ok((picture, "bundled drawing".into()));
    };
    let mode = if args.gray || args.threshold.is_some() {
        ColorMode::Grayscale
    } else {
        ColorMode::Rgb
    };
    // From the header alone: the decoding (at the image's own size, whatever --size asks),
    // then the fit, must fit in memory.
    let header = io::image::read_image_header(path)?;
    if let Some(budget) = crate::memory_budget::image_budget()? {
        header.check_decode(mode, &budget, path)?;
    }
    let (w, h) = match args.size {
        Some(n) => fit_longest_side(header.width, header.height, n as usize),
        None => (header.width, header.height),
    };
    fits(w, h)?;
    let mut picture = super::image_render::load_within_budget(path, mode)?;
    if !args.color && !picture.has_color() && picture.channels == 3 {
        picture = picture.to_grayscale();
    }
    if (picture.width, picture.height) != (w, h) {
        picture = picture.resize_bicubic(w, h)?;
    }
    if let Some(t) = args.threshold {
        picture = picture.threshold(t);
    }
    Ok((picture, path.display().to_string()))
}

/// Predicts every pixel of a `width x height` grid with the library's renderer, adding back
/// the per-channel `offset` the network was trained without.
pub fn predict_picture<B: Backend, M: nn::Model<B>>(
    backend: &B,
    model: &M,
    width: usize,
    height: usize,
    offset: &[f32],
) -> Result<Picture> {
    let mut settings = io::image::RenderSettings::new(width, height, offset.len());
    settings.offset = offset.to_vec();
    let network = io::image::ModelPixels(model);
    Ok(io::image::render_picture(backend, &network, &settings)?)
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
        let fits = |w: usize, h: usize| -> Result<()> {
            let c = if args.gray || args.threshold.is_some() {
                1
            } else {
                3
            };
            for line_art in [false, true] {
                let arch = resolve_arch(args, line_art);
                check_memory(&Plan::new::<B>(args, arch, (w, h, c), s)?.footprint)?;
            }
            Ok(())
        };
        let (picture, source) = target(args, &fits)?;
        let line_art = picture.is_line_art();
        let (w, h, c) = (picture.width, picture.height, picture.channels);
        let Plan {
            arch,
            hidden: spec,
            grid,
            mlp,
            batch,
            ..
        } = Plan::new::<B>(args, resolve_arch(args, line_art), (w, h, c), s)?;
        let dir = run_dir::prepare(&args.train, "image-fit")?;
        save_png(&picture, dir.join("original.png"))?;
        let means = io::image::channel_means(&picture);
        // Point supervision learns `value - mean` through an identity output; area
        // supervision learns coverage through a sigmoid whose bias starts at the logit of
        // the mean, and matches each pixel with the mean of s x s samples inside it.
        let (offset, output_bias) = if s == 1 {
            (means.clone(), None)
        } else {
            let logit = |m: f32| {
                let m = m.clamp(0.01, 0.99);
                (m / (1.0 - m)).ln()
            };
            (
                vec![0.0; c],
                Some(means.iter().map(|&m| logit(m)).collect()),
            )
        };
        let values = PixelValues::compact(&picture.data);
        let sampler = PixelSampler::new(w, h, c, values, batch, args.train.seed)?
            .with_offset(&offset)?
            .with_supersample(s)?;
        let arch_name = format!("{arch:?}").to_lowercase();
        let defaults = match arch {
            ArchArg::Hashgrid => crate::defaults::image_fit_hash_grid(w * h),
            _ => crate::defaults::image_fit(w * h),
        };
        let record = serde_json::Map::from_iter([
            ("data".to_string(), {
                let mut data = match &args.image {
                    Some(path) => run_record::data_file(path)?,
                    None => json!({ "source": "bundled drawing" }),
                };
                data["width"] = json!(w);
                data["height"] = json!(h);
                data["channels"] = json!(c);
                data["line_art"] = json!(line_art);
                data
            }),
            (
                "options".to_string(),
                json!({
                    "size": args.size,
                    "arch": arch_name,
                    "hidden": spec.to_string(),
                    "color": c == 3,
                    "threshold": args.threshold,
                    "supersample": s,
                    "batch_pixels": batch,
                }),
            ),
        ]);
        let extra = json!({
            "width": w,
            "height": h,
            "channels": c,
            "threshold": args.threshold,
            "offset": offset,
            "supersample": s,
            "source": source,
        });
        if !args.train.quiet {
            eprintln!(
                "fitting {source} ({w}x{h}, {} pixels, {}) with a {arch_name} network {spec}, {}",
                w * h,
                if c == 3 { "colour" } else { "gray" },
                if sampler.whole_image() {
                    "the whole image at every step".to_string()
                } else {
                    format!("{batch} random pixels per step")
                }
            );
        }
        let fit = Fit {
            picture: &picture,
            dir: &dir,
            offset: &offset,
            line_art,
            sampler,
            summary: DataSummary::of_pixels(&picture.data, c, &offset),
        };
        macro_rules! run_with {
            ($architecture:expr, $model:ty) => {
                fit.train::<B, $model>(
                    backend,
                    Run {
                        job: "image-fit",
                        dir: dir.clone(),
                        args: &args.train,
                        defaults,
                        architecture: $architecture,
                        loss: Loss::Mse,
                        extra,
                        info: io::ModelInfo::image(
                            w,
                            h,
                            if c == 3 {
                                &["r", "g", "b"][..]
                            } else {
                                &["value"]
                            },
                        )
                        .with_targets(io::Standardizer {
                            mean: offset.clone(),
                            std: vec![1.0; c],
                        }),
                        early_stopping: None,
                        pool: s * s,
                        output_bias,
                        record,
                        loss_units: pixel_loss_units(),
                        weight_decay: 0.0,
                    },
                )
            };
        }
        match grid {
            Some(g) => run_with!(g, HashGridMlp<B>),
            None => run_with!(mlp, Mlp<B>),
        }
    }
}

/// The pieces of a fit that do not depend on the network.
struct Fit<'a> {
    picture: &'a Picture,
    dir: &'a std::path::Path,
    offset: &'a [f32],
    line_art: bool,
    sampler: PixelSampler,
    summary: DataSummary,
}

impl Fit<'_> {
    /// Trains, then writes the reconstruction, the comparison and the metrics.
    fn train<B: Backend, M: RunModel<B>>(
        mut self,
        backend: &B,
        run: Run<'_, M::Config>,
    ) -> Result<()> {
        let data = RunData::Sampled(&mut self.sampler, self.summary);
        let out = run.train_model::<B, M>(backend, data, None)?;
        drop(self.sampler);
        let (picture, dir) = (self.picture, self.dir);
        let (w, h, c) = (picture.width, picture.height, picture.channels);
        let recon = predict_picture(backend, &out.model, w, h, self.offset)?;
        save_png(&recon, dir.join("reconstruction.png"))?;
        write_comparison(
            &dir.join("comparison.png"),
            &[("original", picture), ("reconstruction", &recon)],
        )?;
        let r = &out.report;
        let mut m = Map::new();
        let p = psnr(&recon, picture)?;
        let q = ssim(&recon, picture)?;
        m.insert("psnr".into(), json!(p));
        m.insert("ssim".into(), json!(q));
        let mut summary = format!("PSNR {p:.2} dB, SSIM {q:.4}");
        if self.line_art {
            let acc = pixel_accuracy(&recon, picture)?;
            let iou = ink_iou(&recon, picture)?;
            m.insert("pixel_accuracy".into(), json!(acc));
            m.insert("ink_iou".into(), json!(iou));
            summary += &format!(", pixel accuracy {:.2}%, ink IoU {iou:.4}", acc * 100.0);
        }
        m.insert("width".into(), json!(w));
        m.insert("height".into(), json!(h));
        m.insert("channels".into(), json!(c));
        m.insert("final_loss".into(), json!(out.final_loss()));
        m.insert("loss_units".into(), json!(out.loss_units.label));
        m.insert("steps".into(), json!(r.steps));
        m.insert("seconds".into(), json!(out.elapsed));
        m.insert("parameters".into(), json!(out.model.num_params()));
        let falling = still_improving(&out.history, 0.1).filter(|&d| d > UNDER_TRAINED);
        m.insert("under_trained".into(), json!(falling.is_some()));
        run_dir::write_metrics(dir, &m)?;
        println!("{}: {summary}; results in {}", out.summary(), dir.display());
        if let Some(drop) = falling
            && r.stop_reason == nn::StopReason::Completed
        {
            println!(
                "note: under-trained: the loss still fell {:.0}% over the last tenth of the run; more steps would improve the fit (e.g. --steps {})",
                drop * 100.0,
                r.steps * 2
            );
        }
        Ok(())
    }
}

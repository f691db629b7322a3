//! `iron-learn image fit`: an image as a function (x, y) -> pixel.

use crate::cli::{ArchArg, ImageFitArgs};
use crate::device::Job;
use crate::memory_budget::Estimate;
use crate::monitor::LossUnits;
use crate::report::comparison::write_comparison;
use crate::report::history::still_improving;
use crate::report::{run_dir, run_record};
use crate::session::Run;
use anyhow::{Result, bail};
use io::image::{
    ColorMode, coords::coordinate_grid, fit_longest_side, ink_iou, load_picture, pixel_accuracy,
    psnr, save_png, ssim,
};
use io::{Picture, default_drawing};
use nn::{Activation, Data, Init, Loss, Mlp, MlpConfig};
use serde_json::{Map, json};
use tensor_core::{Backend, Tensor};

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
        ArchArg::Relu => builder.hidden(hidden, Activation::Relu),
    };
    Ok(builder.config(seed)?)
}

/// Coordinates of `s x s` evenly spread samples inside each pixel, pixel after pixel in
/// row-major order (the samples of one pixel are consecutive); `s = 1` gives the pixel
/// centres of [`coordinate_grid`].
pub fn supersampled_grid(width: usize, height: usize, s: usize) -> Vec<f32> {
    if s <= 1 {
        return coordinate_grid(width, height);
    }
    let pitch = |n: usize| if n > 1 { 2.0 / (n - 1) as f32 } else { 0.0 };
    let (px, py) = (pitch(width), pitch(height));
    let offset = |k: usize| (k as f32 + 0.5) / s as f32 - 0.5;
    let mut grid = Vec::with_capacity(width * height * s * s * 2);
    for y in 0..height {
        let cy = io::image::coords::pixel_to_coord(y, height);
        for x in 0..width {
            let cx = io::image::coords::pixel_to_coord(x, width);
            for sy in 0..s {
                for sx in 0..s {
                    grid.push(cx + offset(sx) * px);
                    grid.push(cy + offset(sy) * py);
                }
            }
        }
    }
    grid
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
    let mut picture = load_picture(path, mode)?;
    if !args.color && !picture.has_color() && picture.channels == 3 {
        picture = picture.to_grayscale();
    }
    if let Some(n) = args.size {
        let (w, h) = fit_longest_side(picture.width, picture.height, n as usize);
        fits(w, h)?;
        picture = picture.resize_bicubic(w, h)?;
    } else {
        fits(picture.width, picture.height)?;
    }
    if let Some(t) = args.threshold {
        picture = picture.threshold(t);
    }
    Ok((picture, path.display().to_string()))
}

/// Per-channel mean of the pixel values: the network learns `value - mean`, so that it
/// starts near the answer instead of spending its first steps learning the background
/// level (Adam moves each weight by about the learning rate per step).
pub fn channel_means(picture: &Picture) -> Vec<f32> {
    let c = picture.channels.max(1);
    let mut sums = vec![0f64; c];
    for px in picture.data.chunks_exact(c) {
        sums.iter_mut().zip(px).for_each(|(s, &v)| *s += v as f64);
    }
    let n = picture.pixels().max(1) as f64;
    sums.iter().map(|s| (s / n) as f32).collect()
}

/// Predicts every pixel of a `width x height` grid, adding back the per-channel `offset`
/// the network was trained without.
pub fn predict_picture<B: Backend>(
    model: &Mlp<B>,
    width: usize,
    height: usize,
    offset: &[f32],
) -> Result<Picture> {
    let channels = offset.len().max(1);
    let backend = model.backend();
    let mut data = Vec::with_capacity(width * height * channels);
    let band = (1 << 20) / width.max(1);
    let band = band.clamp(1, height);
    let ys: Vec<f32> = (0..height)
        .map(|i| io::image::coords::pixel_to_coord(i, height))
        .collect();
    let xs: Vec<f32> = (0..width)
        .map(|i| io::image::coords::pixel_to_coord(i, width))
        .collect();
    for y0 in (0..height).step_by(band) {
        let rows = band.min(height - y0);
        let mut grid = Vec::with_capacity(rows * width * 2);
        for &y in &ys[y0..y0 + rows] {
            for &x in &xs {
                grid.push(x);
                grid.push(y);
            }
        }
        let t = Tensor::from_slice(backend, &grid, [rows * width, 2])?;
        let values = model.predict(&t)?.to_vec()?;
        data.extend(
            values
                .chunks_exact(channels)
                .flat_map(|px| px.iter().zip(offset).map(|(v, o)| v + o)),
        );
    }
    Ok(Picture::from_predictions(width, height, channels, &data)?)
}

impl Job for ImageFit {
    type Output = ();

    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let args = &self.0;
        let spec = crate::hidden::hidden_arg(&args.hidden)?;
        let hidden = spec.widths();
        let s = args.supersample as usize;
        if !(1..=4).contains(&s) {
            bail!("--supersample must be between 1 and 4, got {s}");
        }
        // Full-batch training on every pixel (s x s samples each): refuse what cannot fit
        // before the picture is made.
        let fits = |w: usize, h: usize| -> Result<()> {
            let c = if args.gray || args.threshold.is_some() {
                1
            } else {
                3
            };
            let config = architecture::<B>(args.arch, hidden, c, Activation::Identity, 0)?;
            let pixels = w.saturating_mul(h);
            Estimate::training(&config, pixels.saturating_mul(s * s), pixels, None, 0)
                .check("image fit")
        };
        let (picture, source) = target(args, &fits)?;
        let line_art = picture.is_line_art();
        let dir = run_dir::prepare(&args.train, "image-fit")?;
        let (w, h, c) = (picture.width, picture.height, picture.channels);
        save_png(&picture, dir.join("original.png"))?;
        let means = channel_means(&picture);
        // Point supervision learns `value - mean` through an identity output; area
        // supervision learns coverage through a sigmoid whose bias starts at the logit of
        // the mean, and matches each pixel with the mean of s x s samples inside it.
        let (offset, targets, output, output_bias) = if s == 1 {
            let centred: Vec<f32> = picture
                .data
                .chunks_exact(c)
                .flat_map(|px| px.iter().zip(&means).map(|(v, o)| v - o))
                .collect();
            (means.clone(), centred, Activation::Identity, None)
        } else {
            let logit = |m: f32| {
                let m = m.clamp(0.01, 0.99);
                (m / (1.0 - m)).ln()
            };
            let bias = means.iter().map(|&m| logit(m)).collect();
            (
                vec![0.0; c],
                picture.data.clone(),
                Activation::Sigmoid,
                Some(bias),
            )
        };
        let grid = supersampled_grid(w, h, s);
        let x = Tensor::from_slice(backend, &grid, [w * h * s * s, 2])?;
        let y = Tensor::from_slice(backend, &targets, [w * h, c])?;
        let run = Run {
            job: "image-fit",
            dir: dir.clone(),
            args: &args.train,
            defaults: crate::defaults::image_fit(w * h),
            architecture: architecture::<B>(args.arch, hidden, c, output, args.train.seed)?,
            loss: Loss::Mse,
            extra: json!({
                "width": w,
                "height": h,
                "channels": c,
                "threshold": args.threshold,
                "offset": offset,
                "supersample": s,
                "source": source,
            }),
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
            record: serde_json::Map::from_iter([
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
                        "arch": format!("{:?}", args.arch).to_lowercase(),
                        "hidden": spec.to_string(),
                        "color": c == 3,
                        "threshold": args.threshold,
                        "supersample": s,
                    }),
                ),
            ]),
            loss_units: pixel_loss_units(),
            weight_decay: 0.0,
        };
        if !args.train.quiet {
            eprintln!(
                "fitting {source} ({w}x{h}, {} pixels, {}) with a {} network {}",
                w * h,
                if c == 3 { "colour" } else { "gray" },
                format!("{:?}", args.arch).to_lowercase(),
                spec
            );
        }
        let out = run.train(backend, Data::new(&x, &y), None)?;
        let recon = predict_picture(&out.model, w, h, &offset)?;
        save_png(&recon, dir.join("reconstruction.png"))?;
        write_comparison(
            &dir.join("comparison.png"),
            &[("original", &picture), ("reconstruction", &recon)],
        )?;
        let r = &out.report;
        let mut m = Map::new();
        let p = psnr(&recon, &picture)?;
        let q = ssim(&recon, &picture)?;
        m.insert("psnr".into(), json!(p));
        m.insert("ssim".into(), json!(q));
        let mut summary = format!("PSNR {p:.2} dB, SSIM {q:.4}");
        if line_art {
            let acc = pixel_accuracy(&recon, &picture)?;
            let iou = ink_iou(&recon, &picture)?;
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
        run_dir::write_metrics(&dir, &m)?;
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

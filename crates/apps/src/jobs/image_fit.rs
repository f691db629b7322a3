//! `iron-learn image fit`: an image as a function (x, y) -> pixel.

use super::seconds;
use crate::cli::{ArchArg, ImageFitArgs, ScheduleArg};
use crate::device::Job;
use crate::memory_budget::Estimate;
use crate::report::run_dir;
use crate::session::{Defaults, Run};
use anyhow::{Context, Result, bail};
use io::image::{
    ColorMode, coords::coordinate_grid, ink_iou, load_picture, pixel_accuracy, psnr, save_png,
};
use io::{Picture, default_drawing};
use nn::{Activation, Data, Init, Loss, Mlp, MlpConfig, TrainLength};
use serde_json::{Map, json};
use tensor_core::{Backend, Tensor};

/// Training size of the bundled drawing.
pub const DEFAULT_SIZE: u32 = 200;

/// Largest `--size`, for user images as for the bundled drawing.
pub const MAX_SIZE: u32 = 16_384;

/// Fits an image.
pub struct ImageFit(pub ImageFitArgs);

/// Parses `WIDTHxDEPTH` (e.g. `256x3`) into layer widths.
pub fn parse_hidden(text: &str) -> Result<Vec<usize>> {
    let parsed = text.split_once(['x', 'X']).and_then(|(w, d)| {
        Some((
            w.trim().parse::<usize>().ok()?,
            d.trim().parse::<usize>().ok()?,
        ))
    });
    match parsed {
        Some((w, d)) if w > 0 && d > 0 && d <= 64 => Ok(vec![w; d]),
        _ => bail!("--hidden {text:?} should be WIDTHxDEPTH with both at least 1, e.g. 256x3"),
    }
}

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

/// Loads the image to fit (or renders the bundled drawing) at the requested size, with
/// whether it has one channel (then it is also scored by pixel accuracy and ink IoU) and a
/// name for messages.
///
/// `fits(width, height)` is asked before a picture of that size is made.
fn target(
    args: &ImageFitArgs,
    fits: &dyn Fn(usize, usize) -> Result<()>,
) -> Result<(Picture, bool, String)> {
    if let Some(n) = args.size
        && !(2..=MAX_SIZE).contains(&n)
    {
        bail!("--size must be between 2 and {MAX_SIZE}, got {n}");
    }
    let Some(path) = &args.image else {
        let n = args.size.unwrap_or(DEFAULT_SIZE) as usize;
        fits(n, n)?;
        return Ok((default_drawing().render(n)?, true, "bundled drawing".into()));
    };
    let mode = if args.color {
        ColorMode::Rgb
    } else {
        ColorMode::Grayscale
    };
    let mut picture = load_picture(path, mode)?;
    if let Some(n) = args.size {
        fits(n as usize, n as usize)?;
        picture = picture.resize_bicubic(n as usize, n as usize)?;
    } else {
        fits(picture.width, picture.height)?;
    }
    if let Some(t) = args.threshold {
        if !(0.0..=1.0).contains(&t) {
            bail!("--threshold must be between 0 and 1, got {t}");
        }
        picture = picture.threshold(t);
    }
    let gray = picture.channels == 1;
    Ok((picture, gray, path.display().to_string()))
}

/// Original and reconstruction side by side, with a white gap.
fn side_by_side(a: &Picture, b: &Picture) -> Result<Picture> {
    let gap = (a.width / 20).max(4);
    let width = a.width + gap + b.width;
    let height = a.height.max(b.height);
    let mut out = Picture::filled(width, height, a.channels, 1.0)?;
    for (pic, x0) in [(a, 0), (b, a.width + gap)] {
        for y in 0..pic.height {
            for x in 0..pic.width {
                out.pixel_mut(x0 + x, y).copy_from_slice(pic.pixel(x, y));
            }
        }
    }
    Ok(out)
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
        let hidden = parse_hidden(&args.hidden)?;
        let s = args.supersample as usize;
        if !(1..=4).contains(&s) {
            bail!("--supersample must be between 1 and 4, got {s}");
        }
        // Full-batch training on every pixel (s x s samples each): refuse what cannot fit
        // before the picture is made.
        let fits = |w: usize, h: usize| -> Result<()> {
            let c = if args.color { 3 } else { 1 };
            let config = architecture::<B>(args.arch, &hidden, c, Activation::Identity, 0)?;
            let pixels = w.saturating_mul(h);
            Estimate::training(&config, pixels.saturating_mul(s * s), pixels, None, 0)
                .check("image fit")
        };
        let (picture, gray, source) = target(args, &fits)?;
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
            defaults: Defaults {
                lr: 1e-3,
                length: TrainLength::Steps(300),
                batch: None,
                schedule: ScheduleArg::Cosine,
            },
            architecture: architecture::<B>(args.arch, &hidden, c, output, args.train.seed)?,
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
            early_stopping: None,
            pool: s * s,
            output_bias,
        };
        eprintln!(
            "fitting {source} ({w}x{h}, {} pixels) with a {:?} network {}",
            w * h,
            args.arch,
            args.hidden
        );
        let out = run.train(backend, Data::new(&x, &y), None)?;
        let recon = predict_picture(&out.model, w, h, &offset)?;
        save_png(&recon, dir.join("reconstruction.png"))?;
        save_png(&side_by_side(&picture, &recon)?, dir.join("comparison.png"))
            .context("cannot write comparison.png")?;
        let r = &out.report;
        let mut m = Map::new();
        let p = psnr(&recon, &picture)?;
        m.insert("psnr".into(), json!(p));
        let mut summary = format!("PSNR {p:.2} dB");
        if gray {
            let acc = pixel_accuracy(&recon, &picture)?;
            let iou = ink_iou(&recon, &picture)?;
            m.insert("pixel_accuracy".into(), json!(acc));
            m.insert("ink_iou".into(), json!(iou));
            summary += &format!(", pixel accuracy {:.2}%, ink IoU {iou:.4}", acc * 100.0);
        }
        m.insert("width".into(), json!(w));
        m.insert("height".into(), json!(h));
        m.insert("final_loss".into(), json!(r.final_train_loss));
        m.insert("steps".into(), json!(r.steps));
        m.insert("seconds".into(), json!(r.seconds));
        m.insert("parameters".into(), json!(out.model.num_params()));
        run_dir::write_metrics(&dir, &m)?;
        println!(
            "{} steps in {}: {summary}; results in {}",
            r.steps,
            seconds(r.seconds),
            dir.display()
        );
        Ok(())
    }
}

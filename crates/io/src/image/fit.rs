//! Fitting a picture as a function `(x, y) -> pixel` on sampled pixels, as a library call: the
//! settings `iron-learn image fit` uses by default, and a [`FittedModel`] that saves, loads and
//! draws itself at any size ([`FittedModel::render_png`]).
//!
//! ```no_run
//! use io::image::{ColorMode, ImageFitSettings, fit_picture, load_picture};
//! let cpu = tensor_cpu::CpuBackend::new();
//! let photo = load_picture("photo.png", ColorMode::Rgb)?;
//! let model = fit_picture(&cpu, &photo, &ImageFitSettings::hash_grid(&photo))?;
//! model.render_png(4 * photo.width.max(photo.height), "photo-4x.png")?;
//! # Ok::<(), io::Error>(())
//! ```

use nn::{
    Activation, Adam, AdamConfig, HashGridMlp, HashGridMlpConfig, Init, Loss, LrSchedule, Mlp,
    Model, PixelSampler, PixelValues, TrainLength, Trainer, TrainerConfig,
};
use tensor_core::Backend;

use super::picture::Picture;
use crate::dataset::Standardizer;
use crate::error::{Error, Result};
use crate::fitted::{FittedModel, ModelInfo};

/// The network family of an image fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageArch {
    /// A multiresolution hash grid and a small ReLU network: the fastest fit of photos at
    /// their own size.
    HashGrid,
    /// A SIREN (sine activations, w0 = 30): smooth line art, redrawn larger without blocks.
    Siren,
}

/// How to fit a picture; [`ImageFitSettings::hash_grid`] and [`ImageFitSettings::siren`]
/// give the command line's defaults for a picture.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageFitSettings {
    /// The network family.
    pub arch: ImageArch,
    /// Hidden layer widths.
    pub hidden: Vec<usize>,
    /// Optimizer steps.
    pub steps: u64,
    /// Pixels drawn at random per step (the whole picture when it is smaller).
    pub batch: usize,
    /// Peak learning rate of the cosine schedule (which ends at a hundredth of it).
    pub lr: f32,
    /// Seed of the initial weights and of the pixel draws.
    pub seed: u64,
}

/// Pixels per step of the command line's image fits.
pub const DEFAULT_BATCH_PIXELS: usize = 65_536;

impl ImageFitSettings {
    /// The hash grid with two hidden layers of 64, learning rate 1e-2, and 100 steps up to
    /// 256x256 pixels, more for larger pictures (in proportion to the side, at most 3000).
    pub fn hash_grid(picture: &Picture) -> Self {
        ImageFitSettings {
            arch: ImageArch::HashGrid,
            hidden: vec![64, 64],
            steps: default_steps(picture.pixels(), 100, 65_536),
            batch: DEFAULT_BATCH_PIXELS,
            lr: 1e-2,
            seed: 42,
        }
    }

    /// The SIREN with three hidden layers of 128, learning rate 1e-3, and 300 steps up to
    /// 200x200 pixels, more for larger pictures (in proportion to the side, at most 3000).
    pub fn siren(picture: &Picture) -> Self {
        ImageFitSettings {
            arch: ImageArch::Siren,
            hidden: vec![128, 128, 128],
            steps: default_steps(picture.pixels(), 300, 40_000),
            batch: DEFAULT_BATCH_PIXELS,
            lr: 1e-3,
            seed: 42,
        }
    }
}

/// `base` steps up to `base_pixels`, growing with the side beyond in multiples of 50.
fn default_steps(pixels: usize, base: u64, base_pixels: usize) -> u64 {
    let ratio = (pixels as f64 / base_pixels as f64).max(1.0).sqrt();
    let steps = (base as f64 * ratio / 50.0).round() as u64 * 50;
    steps.clamp(base, 3000)
}

/// The mean of each channel: the network learns `value - mean`, so that it starts near the
/// answer instead of spending its first steps on the background level.
pub fn channel_means(picture: &Picture) -> Vec<f32> {
    let c = picture.channels.max(1);
    let mut sums = vec![0f64; c];
    for px in picture.data.chunks_exact(c) {
        sums.iter_mut()
            .zip(px)
            .for_each(|(s, &v)| *s += f64::from(v));
    }
    let n = picture.pixels().max(1) as f64;
    sums.iter().map(|s| (s / n) as f32).collect()
}

/// A sampler of `picture`'s pixels (targets from a compact 8-bit copy where the values allow)
/// with the channel means subtracted; `batch` pixels per step.
pub fn pixel_sampler(picture: &Picture, batch: usize, seed: u64) -> Result<PixelSampler> {
    picture.validate()?;
    let values = PixelValues::compact(&picture.data);
    let (w, h, c) = (picture.width, picture.height, picture.channels);
    Ok(PixelSampler::new(w, h, c, values, batch, seed)?.with_offset(&channel_means(picture))?)
}

/// Fits `picture` on sampled pixels and returns the model with what it needs to be drawn
/// (its size and channel means) as an image [`FittedModel`]. Memory: the picture, a compact
/// copy and one batch; the network sees `batch` pixels per step.
pub fn fit_picture<B: Backend>(
    backend: &B,
    picture: &Picture,
    settings: &ImageFitSettings,
) -> Result<FittedModel<B>> {
    if settings.steps == 0 || settings.batch == 0 || settings.hidden.is_empty() {
        return Err(Error::invalid(
            "an image fit needs at least one step, one pixel per step and one hidden layer",
        ));
    }
    let mut sampler = pixel_sampler(picture, settings.batch, settings.seed)?;
    let c = picture.channels;
    let names: &[&str] = if c == 3 { &["r", "g", "b"] } else { &["value"] };
    let info = ModelInfo::image(picture.width, picture.height, names).with_targets(Standardizer {
        mean: channel_means(picture),
        std: vec![1.0; c],
    });
    match settings.arch {
        ImageArch::HashGrid => {
            let longest = picture.width.max(picture.height).min(u32::MAX as usize) as u32;
            let config = HashGridMlpConfig {
                hidden: settings.hidden.clone(),
                ..HashGridMlpConfig::new(c, longest.max(16))
            };
            let mut model = HashGridMlp::from_config(backend, &config, settings.seed)?;
            train(
                &mut model,
                &mut sampler,
                settings,
                AdamConfig::hash_grid(settings.lr),
            )?;
            FittedModel::new(model, info)
        }
        ImageArch::Siren => {
            let mut model = Mlp::builder()
                .input(2)
                .hidden(&settings.hidden, Activation::Sine { w0: 30.0 })
                .init(Init::Siren)
                .output(c, Activation::Identity)
                .build(backend, settings.seed)?;
            train(
                &mut model,
                &mut sampler,
                settings,
                AdamConfig::new(settings.lr),
            )?;
            FittedModel::new(model, info)
        }
    }
}

fn train<B: Backend, M: Model<B>>(
    model: &mut M,
    sampler: &mut PixelSampler,
    settings: &ImageFitSettings,
    adam: AdamConfig,
) -> Result<()> {
    let mut trainer = Trainer::new(TrainerConfig {
        loss: Loss::Mse,
        length: TrainLength::Steps(settings.steps),
        schedule: Some(LrSchedule::cosine(
            settings.lr,
            settings.lr / 100.0,
            settings.steps,
        )),
        seed: settings.seed,
        ..TrainerConfig::default()
    })?;
    let mut optimizer = Adam::new(adam)?;
    trainer.fit(model, &mut optimizer, sampler, None)?;
    Ok(())
}

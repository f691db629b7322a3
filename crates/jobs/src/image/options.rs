//! What an image fit is asked to do: [`ImageFitOptions`], plain data that a program fills
//! from its own flags or settings; whatever it leaves at `None` takes the defaults of
//! [`defaults`](super::defaults).

use super::budget::SizeBudget;
use nn::HiddenLayers;
use std::path::PathBuf;
use train::{Settings, TrainChoices};

/// The network family of an image fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageArch {
    /// Sine activations with the SIREN initialisation ([`nn::MlpBuilder::siren`]): smooth
    /// line art, redrawn larger without blocks.
    Siren,
    /// Gaussian Fourier features followed by a ReLU network.
    Fourier,
    /// A plain ReLU network on raw coordinates (for comparison: it learns slowly).
    Relu,
    /// A multiresolution hash grid and a small ReLU network: the fastest fit of photos at
    /// their own size.
    HashGrid,
}

impl ImageArch {
    /// The name in messages and records: `siren`, `fourier`, `relu`, `hashgrid`.
    pub fn name(self) -> &'static str {
        match self {
            ImageArch::Siren => "siren",
            ImageArch::Fourier => "fourier",
            ImageArch::Relu => "relu",
            ImageArch::HashGrid => "hashgrid",
        }
    }
}

/// The hash grid's encoding (ignored by the other networks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GridOptions {
    /// Resolution levels (1 to 32).
    pub levels: usize,
    /// Features per level (1 to 8).
    pub features: usize,
    /// log2 of the most table entries a level (`None`: 19, or 20 for images over 100
    /// megapixels where the memory budget holds it).
    pub log2_table_size: Option<u32>,
    /// Cells per axis of the coarsest level.
    pub base_resolution: u32,
    /// Cells per axis of the finest level (`None`: the image's longer side, at least the
    /// base resolution).
    pub finest_resolution: Option<u32>,
}

impl GridOptions {
    /// Instant-NGP's recipe: 16 levels of 2 features from 16 cells per axis.
    pub const DEFAULT: GridOptions = GridOptions {
        levels: 16,
        features: 2,
        log2_table_size: None,
        base_resolution: 16,
        finest_resolution: None,
    };
}

impl Default for GridOptions {
    /// [`GridOptions::DEFAULT`].
    fn default() -> Self {
        GridOptions::DEFAULT
    }
}

/// Samples per pixel side of an image fit by default: none beyond the pixel itself.
pub const DEFAULT_SUPERSAMPLE: u32 = 1;

/// An option of an image fit that has a range (see
/// [`Error::ImageOptionOutOfRange`](crate::Error::ImageOptionOutOfRange)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageOption {
    /// The longest side the picture is fitted at.
    Size,
    /// The gray level that splits black from white.
    Threshold,
    /// Training samples per pixel side.
    Supersample,
    /// The size budget, in parameters per pixel.
    Budget,
}

impl std::fmt::Display for ImageOption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ImageOption::Size => "the longest side",
            ImageOption::Threshold => "the black-and-white threshold",
            ImageOption::Supersample => "the supersampling",
            ImageOption::Budget => "the size budget (parameters per pixel)",
        })
    }
}

/// How to fit an image; [`ImageFitOptions::new`] gives the defaults of every choice.
#[derive(Debug, Clone)]
pub struct ImageFitOptions {
    /// The image file (PNG, JPEG, WebP, BMP, TIFF); `None`: the bundled drawing.
    pub image: Option<PathBuf>,
    /// The run folder, created where missing; the caller keeps other runs out of it.
    pub out: PathBuf,
    /// The training size: the longer side in pixels, keeping the aspect ratio (`None`:
    /// [`DEFAULT_SIZE`](super::defaults::DEFAULT_SIZE) for the bundled drawing, else the
    /// image's own size).
    pub size: Option<u32>,
    /// The network family (`None`: [`defaults::DEFAULT_ARCH`](super::defaults::DEFAULT_ARCH)).
    pub arch: Option<ImageArch>,
    /// Hidden layers (`None`: [`defaults::default_hidden`](super::defaults::default_hidden)).
    pub hidden: Option<HiddenLayers>,
    /// The hash grid's encoding.
    pub grid: GridOptions,
    /// A size budget (`None`: the default network): it chooses the hash grid's levels,
    /// features and tables and the hidden layers (the grid's and hidden layers' options
    /// are then ignored, its resolutions kept) and the default length of the fit, and the
    /// fit also writes the model stored in `float16` and scores it from the stored values.
    pub budget: Option<SizeBudget>,
    /// Fit gray levels, even of a colour image.
    pub gray: bool,
    /// Fit colours even of a gray image (by default a colour file without colour is fitted
    /// gray).
    pub color: bool,
    /// Fit a black-and-white version: pixels darker than this gray level (0..1) become black.
    pub threshold: Option<f32>,
    /// Area supervision: each pixel matched by the mean of `N x N` samples (1 to 4).
    pub supersample: u32,
    /// The training choices: learning rate (`None`: the architecture's), length (`None`:
    /// the architecture's steps for the picture's size), pixels per step (`None`:
    /// [`DEFAULT_BATCH`](super::defaults::DEFAULT_BATCH)), schedule (`None`: cosine), seed,
    /// checkpoints, resume, and the flag that, once set (by a signal handler), stops the
    /// fit at the next step (it checkpoints and still draws what it has).
    pub training: TrainChoices,
}

impl ImageFitOptions {
    /// A fresh fit of `image` (`None`: the bundled drawing) into `out`, everything else by
    /// default: seed 42, a checkpoint every 500 steps, no supersampling.
    pub fn new(image: Option<PathBuf>, out: impl Into<PathBuf>) -> Self {
        ImageFitOptions {
            image,
            out: out.into(),
            size: None,
            arch: None,
            hidden: None,
            grid: GridOptions::default(),
            budget: None,
            gray: false,
            color: false,
            threshold: None,
            supersample: DEFAULT_SUPERSAMPLE,
            training: TrainChoices::default(),
        }
    }

    /// The run's settings: the options given, `defaults` for the others.
    pub fn settings(&self, defaults: &train::Defaults) -> Settings {
        self.training.settings(defaults)
    }

    /// Channels of the picture fitted, as far as the options say: 1 for gray or thresholded,
    /// else 3 (a colour file without colour is fitted gray, known only once it is read).
    pub fn channels_at_most(&self) -> usize {
        if self.gray || self.threshold.is_some() {
            1
        } else {
            3
        }
    }
}

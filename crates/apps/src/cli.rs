//! Command-line definitions (clap derive).

pub use crate::cli_model::{ModelArg, NumberArgs, NumericEncodingArg, PortfolioArg};
use crate::cli_values;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Train neural networks on the CPU or an NVIDIA GPU: regressions, classifiers, function
/// fits, and images fitted as functions of pixel coordinates.
#[derive(Debug, Parser)]
#[command(name = "iron-learn", version, about, long_about = None)]
pub struct Cli {
    /// The job to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The jobs `iron-learn` can run.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Train a small network on XOR and print the truth table with its predictions.
    Xor(XorArgs),
    /// Linear regression by gradient descent, compared with the closed-form least-squares fit.
    Linreg(RegressionArgs),
    /// Logistic regression (binary classification) with accuracy, precision, recall and F1.
    Logreg(RegressionArgs),
    /// A model of tabular data, for regression or classification: by default networks and a
    /// linear model, mixed by their scores on rows they did not train on (--model mlp: a
    /// network).
    Mlp(MlpArgs),
    /// Fit a network to a function of x that you type, e.g. "sin(3*x) + x^2".
    Approx(ApproxArgs),
    /// Fit images as functions of pixel coordinates, redraw them at any size, convert them.
    #[command(subcommand)]
    Image(ImageCommand),
    /// Predict new rows with a trained model (CSV or JSON file, or points given with --x).
    Predict(PredictArgs),
    /// Write a trained model for use elsewhere: ONNX, or safetensors without optimizer state.
    Export(ExportArgs),
    /// Time training steps and matrix products on a device (used by `cargo xtask bench`).
    #[command(subcommand)]
    Bench(BenchCommand),
}

/// Where to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DeviceArg {
    /// The CPU (all cores, through rayon).
    Cpu,
    /// The first NVIDIA GPU, through CUDA.
    Cuda,
    /// CUDA when a GPU is usable, otherwise the CPU (with a one-line notice).
    Auto,
}

/// Learning-rate schedules selectable from the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScheduleArg {
    /// The same learning rate throughout.
    Constant,
    /// Halve the learning rate every quarter of the run.
    Step,
    /// Cosine annealing from --lr down to --lr / 100 over the run.
    Cosine,
}

/// Options shared by every training job.
#[derive(Debug, Clone, Args)]
pub struct TrainArgs {
    /// Device to train on.
    #[arg(short, long, value_enum, default_value_t = DeviceArg::Auto)]
    pub device: DeviceArg,
    /// Allow TF32 tensor-core math for matrix products on the GPU (faster, ~1e-3 precision).
    #[arg(long)]
    pub tf32: bool,
    /// Seed for initialisation, data splits and mini-batch order (negative seeds wrap to 64
    /// bits, as in PyTorch).
    #[arg(short, long, default_value_t = train::Settings::default().seed, value_parser = cli_values::seed)]
    pub seed: u64,
    /// Output folder for the record, metrics, plots and the checkpoint [default: runs/<job>-<time>].
    #[arg(short, long)]
    pub out: Option<PathBuf>,
    /// Continue from the checkpoint in --out (its model.safetensors).
    #[arg(long, requires = "out")]
    pub resume: bool,
    /// Start afresh in an --out that holds another run's checkpoint (overwriting it), or
    /// resume with different data than the checkpoint was trained on.
    #[arg(long)]
    pub force: bool,
    /// Learning rate [default: chosen per job].
    #[arg(long, value_parser = cli_values::positive_f32)]
    pub lr: Option<f32>,
    /// Number of passes over the training data [default: chosen per job].
    #[arg(long, conflicts_with = "steps", value_parser = cli_values::epochs)]
    pub epochs: Option<usize>,
    /// Number of optimizer steps [default: chosen per job].
    #[arg(long, value_parser = cli_values::steps)]
    pub steps: Option<usize>,
    /// Mini-batch size, or "full" for full-batch training [default: chosen per job].
    #[arg(long)]
    pub batch: Option<train::BatchChoice>,
    /// Learning-rate schedule [default: chosen per job].
    #[arg(long, value_enum)]
    pub schedule: Option<ScheduleArg>,
    /// Write a checkpoint every N steps (0: only at the end).
    #[arg(long, default_value_t = train::Settings::default().checkpoint_every as usize, value_parser = cli_values::count)]
    pub checkpoint_every: usize,
    /// No progress output.
    #[arg(short, long)]
    pub quiet: bool,
    /// Print a plain progress line every N steps instead of a bar (when stderr is not a
    /// terminal, a line every few seconds is the default).
    #[arg(long, value_name = "N", value_parser = cli_values::positive_u64)]
    pub log_every: Option<u64>,
}

/// Options of `xor`.
#[derive(Debug, Clone, Args)]
pub struct XorArgs {
    /// Training options.
    #[command(flatten)]
    pub train: TrainArgs,
    /// Hidden layers: widths such as 4 or 8,8, or WIDTHxDEPTH such as 8x2.
    #[arg(long)]
    pub hidden: Option<String>,
}

/// Options of `linreg` and `logreg`.
#[derive(Debug, Clone, Args)]
pub struct RegressionArgs {
    /// Training options.
    #[command(flatten)]
    pub train: TrainArgs,
    /// Data file: CSV (delimiter `,` `;` or tab, sniffed), Parquet, or JSON {m, n, m_test, x, y, x_test, y_test}.
    #[arg(long)]
    pub data: PathBuf,
    /// Target column [default: the last column].
    #[arg(long)]
    pub target: Option<String>,
    /// A separate file of test rows with the same columns; without it, --test-fraction of
    /// the rows are held out (or `mlp` works over folds: see --folds).
    #[arg(long, value_name = "FILE")]
    pub test_data: Option<PathBuf>,
    /// Share of rows held out for testing when the file has no test part (0: every row
    /// trains the model, and none scores it) [default: 0.2; `mlp` on a CSV or Parquet file
    /// of at most 20,000 rows cross-validates over 5 folds instead].
    #[arg(long)]
    pub test_fraction: Option<f32>,
    /// Work over N folds (2 to 20): each fold's rows scored by models trained on the others.
    /// The default model keeps the mean of its folds' models, mixed by those scores (and is
    /// scored on --test-data, if given); another is trained once more on every row, without
    /// a test file [default for `mlp` without --test-fraction: 5, on tables of at most
    /// 20,000 rows].
    #[arg(long, value_name = "N", conflicts_with_all = ["test_fraction", "resume"])]
    pub folds: Option<usize>,
    /// Share of the training rows held out for validation (the loss curve and early
    /// stopping); the test rows are never used in training.
    #[arg(long)]
    pub val_fraction: Option<f32>,
    /// Stop when the validation loss has not improved for N epochs, and keep the weights of
    /// the best epoch.
    #[arg(long, value_name = "N", value_parser = cli_values::positive_u64)]
    pub patience: Option<u64>,
    /// Drop rows with a missing cell instead of imputing it.
    #[arg(long)]
    pub drop_missing: bool,
    /// Columns to read as categories, whatever they hold: --categorical zip,grade.
    #[arg(long, value_delimiter = ',', value_name = "COLUMNS")]
    pub categorical: Vec<String>,
    /// Columns to read as numbers (cells that are not numbers become missing).
    #[arg(long, value_delimiter = ',', value_name = "COLUMNS")]
    pub numeric: Vec<String>,
    /// Columns to leave out.
    #[arg(long, value_delimiter = ',', value_name = "COLUMNS")]
    pub ignore: Vec<String>,
    /// Class weights of a classifier: `balanced` weighs each class by rows / (classes x its
    /// rows), so that rare classes count as much as common ones.
    #[arg(long, value_enum, value_name = "WEIGHTS")]
    pub class_weight: Option<ClassWeightArg>,
}

/// Class weights selectable from the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ClassWeightArg {
    /// Each class weighed by rows / (classes x its rows).
    Balanced,
}

/// The kind of problem `mlp` solves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TaskArg {
    /// Predict a number (MSE loss).
    Regression,
    /// Predict a class (two classes: sigmoid output; more: softmax).
    Classification,
}

/// Hidden activations selectable from the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ActivationArg {
    /// Rectified linear unit.
    Relu,
    /// Hyperbolic tangent.
    Tanh,
    /// Logistic sigmoid.
    Sigmoid,
    /// Sine (SIREN), with w0 = 30 on the first layer's input scale.
    Sine,
}

/// Options of `mlp`.
#[derive(Debug, Clone, Args)]
pub struct MlpArgs {
    /// Data, target and split options.
    #[command(flatten)]
    pub data: RegressionArgs,
    /// The model: `auto` keeps the best, on held-out training rows, of the networks and a
    /// linear model (over folds, their mix: see --folds); `mlp` trains the network alone.
    #[arg(long, value_enum)]
    pub model: Option<ModelArg>,
    /// The candidates of the default model over folds: `small` trains fewer networks in
    /// each fold (1.4x faster over the 13 tables of docs/BENCHMARKS.md, and a mean 0.004
    /// lower).
    #[arg(long, value_enum)]
    pub portfolio: Option<PortfolioArg>,
    /// Regression or classification [default: classification when the target holds words
    /// or exactly two distinct numbers, regression otherwise].
    #[arg(long, value_enum)]
    pub task: Option<TaskArg>,
    /// Hidden layers: widths such as 64,64, or WIDTHxDEPTH such as 64x2 (the default, with
    /// the weight decay and the length, was chosen by measurement on 13 published tables;
    /// see docs/BENCHMARKS.md).
    #[arg(long, default_value = crate::defaults::MLP_HIDDEN)]
    pub hidden: String,
    /// Hidden activation.
    #[arg(long, value_enum)]
    pub activation: Option<ActivationArg>,
    /// Decoupled weight decay (AdamW); 0 trains with plain Adam.
    #[arg(long, default_value_t = jobs::tabular::job::DEFAULT_WEIGHT_DECAY)]
    pub weight_decay: f32,
    /// How the network reads numbers.
    #[command(flatten)]
    pub numbers: NumberArgs,
}

/// Options of `approx`.
#[derive(Debug, Clone, Args)]
pub struct ApproxArgs {
    /// Training options.
    #[command(flatten)]
    pub train: TrainArgs,
    /// The function of x, e.g. "(x^2+x^3+x^4+x^6)/x^5" (+ - * / ^, sin cos tan exp ln sqrt abs ...).
    #[arg(long = "fn", allow_hyphen_values = true)]
    pub function: String,
    /// Sampling range A:B.
    #[arg(long, default_value = "-3:3", allow_hyphen_values = true)]
    pub range: String,
    /// Number of sample points.
    #[arg(long, default_value_t = jobs::approx::DEFAULT_SAMPLES, value_parser = cli_values::positive_count)]
    pub samples: usize,
    /// Learn the sign of the function (a classifier) instead of its value.
    #[arg(long)]
    pub classify: bool,
    /// Hidden layers: widths such as 64,64,64, or WIDTHxDEPTH such as 64x3.
    #[arg(long)]
    pub hidden: Option<String>,
}

/// Image jobs.
#[derive(Debug, Subcommand)]
pub enum ImageCommand {
    /// Fit an image as a function (x, y) -> pixel; with no IMAGE, the bundled drawing.
    Fit(ImageFitArgs),
    /// Redraw a fitted image at any size from its checkpoint.
    Render(ImageRenderArgs),
    /// Write an image's pixels as CSV rows x,y,value (or x,y,r,g,b).
    Encode(ImageEncodeArgs),
    /// Turn a CSV of x,y,value (or x,y,r,g,b) rows back into an image.
    Decode(ImageDecodeArgs),
}

/// Network families for image fitting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ArchArg {
    /// Sine activations with SIREN initialisation.
    Siren,
    /// Gaussian Fourier features (256 frequencies, sigma 8) followed by a ReLU network.
    Fourier,
    /// A plain ReLU network on raw coordinates (for comparison: it learns slowly).
    Relu,
    /// A multiresolution hash grid (trainable feature tables, Instant-NGP) feeding a small
    /// ReLU network: the fastest fit of photos and of images at their own size.
    Hashgrid,
}

/// The hash grid's defaults.
const GRID: jobs::image::GridOptions = jobs::image::GridOptions::DEFAULT;

/// Options of `image fit`.
#[derive(Debug, Clone, Args)]
pub struct ImageFitArgs {
    /// Training options.
    #[command(flatten)]
    pub train: TrainArgs,
    /// Image file (PNG, JPEG, WebP, ...) [default: the bundled drawing].
    pub image: Option<PathBuf>,
    /// Resize so that the longer side is N pixels, keeping the aspect ratio.
    #[arg(long, value_parser = cli_values::positive_u32)]
    pub size: Option<u32>,
    /// Network family: hashgrid, the fastest fit and the highest PSNR at the image's own
    /// size, for photos and line art alike; siren, fourier and relu for comparison (siren is
    /// many times slower and scores lower, and no network adds detail when a fit is drawn
    /// larger).
    #[arg(long, value_enum)]
    pub arch: Option<ArchArg>,
    /// Hidden layers: WIDTHxDEPTH such as 256x3, or widths such as 256,256,256.
    #[arg(long)]
    pub hidden: Option<String>,
    /// Size budget: at most P trainable parameters per pixel of the picture (above 0, at
    /// most 64; the default network takes about 8 per pixel of a 640x427 photo). The budget
    /// chooses the hash grid's levels, features and tables, the hidden layers and the steps
    /// (these flags are then refused), and the fit also writes model-f16.safetensors (the
    /// model stored in float16, 2 bytes a parameter: at 1 parameter per pixel about 2 bytes
    /// a pixel, below the 3 of raw colour pixels) and reconstruction-f16.png drawn from it;
    /// the summary line gives both PSNRs and the file's size.
    #[arg(
        long,
        value_name = "P",
        conflicts_with_all = ["levels", "features", "log2_table_size", "hidden"],
        help_heading = "Hash grid"
    )]
    pub params_per_pixel: Option<f64>,
    /// Hash grid: resolution levels (1 to 32).
    #[arg(long, default_value_t = GRID.levels, help_heading = "Hash grid")]
    pub levels: usize,
    /// Hash grid: features per level (1 to 8).
    #[arg(long, default_value_t = GRID.features, help_heading = "Hash grid")]
    pub features: usize,
    /// Hash grid: log2 of the most table entries per level (1 to 24).
    #[arg(long, help_heading = "Hash grid")]
    pub log2_table_size: Option<u32>,
    /// Hash grid: cells per axis of the coarsest level.
    #[arg(long, default_value_t = GRID.base_resolution, help_heading = "Hash grid")]
    pub base_resolution: u32,
    /// Hash grid: cells per axis of the finest level [default: the image's longer side, at
    /// least the base resolution].
    #[arg(long, help_heading = "Hash grid")]
    pub finest_resolution: Option<u32>,
    /// Fit gray levels, even of a colour image.
    #[arg(long, conflicts_with = "color")]
    pub gray: bool,
    /// Fit colours (RGB) even of a gray image [default: colour images in colour].
    #[arg(long, conflicts_with = "threshold")]
    pub color: bool,
    /// Area supervision for redrawing larger: each pixel is matched by the mean of N x N
    /// samples inside it, through a sigmoid output (N from 1 to 4; 2 is a good choice for
    /// line drawings that are to be rendered at a higher resolution; costs N^2 per step).
    #[arg(long, default_value_t = jobs::image::DEFAULT_SUPERSAMPLE, value_parser = cli_values::positive_u32)]
    pub supersample: u32,
    /// Fit a black-and-white version: pixels darker than this gray level (0..1) become
    /// black (best for line drawings that are to be redrawn larger).
    #[arg(long)]
    pub threshold: Option<f32>,
}

/// Options of `image render`.
#[derive(Debug, Clone, Args)]
pub struct ImageRenderArgs {
    /// The checkpoint written by `image fit` (model.safetensors), or its folder.
    pub model: PathBuf,
    /// Output size: the longer side in pixels (the fitted image's aspect ratio is kept).
    #[arg(long, default_value_t = 512, value_parser = cli_values::positive_u32)]
    pub size: u32,
    /// Output image file; its extension picks the format (.png, .jpg, .webp, .bmp).
    #[arg(short, long, default_value = "render.png")]
    pub output: PathBuf,
    /// Reference image to score against (resized to the output size): PSNR and SSIM, and for
    /// line art pixel accuracy and ink IoU.
    #[arg(long)]
    pub reference: Option<PathBuf>,
    /// Draw black and white: pixels darker than this gray level (0..1) become black.
    #[arg(long)]
    pub threshold: Option<f32>,
    /// Device to render on.
    #[arg(short, long, value_enum, default_value_t = DeviceArg::Auto)]
    pub device: DeviceArg,
}

/// Options of `image encode`.
#[derive(Debug, Clone, Args)]
pub struct ImageEncodeArgs {
    /// Image file to read.
    pub image: PathBuf,
    /// CSV file to write.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Write gray levels (x,y,value), even of a colour image.
    #[arg(long, conflicts_with = "color")]
    pub gray: bool,
    /// Write x,y,r,g,b rows even of a gray image [default: the image's own channels].
    #[arg(long)]
    pub color: bool,
    /// Black and white: pixels darker than this gray level (0..1) become 0, others 1.
    #[arg(long)]
    pub threshold: Option<f32>,
}

/// Options of `image decode`.
#[derive(Debug, Clone, Args)]
pub struct ImageDecodeArgs {
    /// CSV file of x,y,value or x,y,r,g,b rows.
    pub csv: PathBuf,
    /// Image file to write; its extension picks the format (.png, .jpg, .webp, .bmp).
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Benchmarks.
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Time a full training step (forward, backward, Adam) of a SIREN on N coordinates.
    Train(BenchTrainArgs),
}

/// Options of `bench train`.
#[derive(Debug, Clone, Args)]
pub struct BenchTrainArgs {
    /// Device to time.
    #[arg(short, long, value_enum, default_value_t = DeviceArg::Cpu)]
    pub device: DeviceArg,
    /// Hidden layers of a network to time: WIDTHxDEPTH such as 256x3, or widths such as
    /// 256,256,256; repeat the option to time several networks.
    #[arg(long, default_values = ["256x3", "128x3"])]
    pub hidden: Vec<String>,
    /// Number of coordinates in the batch.
    #[arg(long, default_value_t = 40_000, value_parser = cli_values::positive_count)]
    pub points: usize,
    /// Timed repetitions (after warm-up).
    #[arg(long, default_value_t = 20, value_parser = cli_values::positive_count)]
    pub reps: usize,
    /// Allow TF32 on the GPU.
    #[arg(long)]
    pub tf32: bool,
    /// Print one JSON object per network instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Time a hash-grid model instead of a SIREN: 16 levels of 2 features, tables of
    /// 2^LOG2 entries, resolutions 16 to 512, then the --hidden ReLU layers.
    #[arg(long, value_name = "LOG2")]
    pub hashgrid: Option<u32>,
}

/// Options of `predict`.
#[derive(Debug, Clone, Args)]
pub struct PredictArgs {
    /// A run folder, its model.safetensors, or a model written by `export`.
    pub model: PathBuf,
    /// Rows to predict: CSV with a header (columns matched by name, in any order; others
    /// ignored), or JSON {n, x} / {n, x_test} (the rows of x_test when present).
    #[arg(long, required_unless_present = "x", conflicts_with = "x")]
    pub data: Option<PathBuf>,
    /// Points to predict with a model of one input (approx), comma-separated: --x 0.5,1.5.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, num_args = 1)]
    pub x: Option<Vec<f32>>,
    /// CSV file to write [default: standard output].
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Columns of the input to copy into the output, before the predictions (an identifier,
    /// say): --keep id,name.
    #[arg(long, value_delimiter = ',', value_name = "COLUMNS")]
    pub keep: Vec<String>,
    /// Device to compute on.
    #[arg(long, value_enum, default_value_t = DeviceArg::Cpu)]
    pub device: DeviceArg,
}

/// File formats `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// An ONNX graph: raw inputs in, answers in user units out (standardisation inside).
    Onnx,
    /// The model as safetensors, without the optimizer and trainer state (a smaller file
    /// that `predict` and the library's `FittedModel::load` read).
    Safetensors,
}

/// Options of `export`.
#[derive(Debug, Clone, Args)]
pub struct ExportArgs {
    /// A run folder, its model.safetensors, or a model written by `export`.
    pub model: PathBuf,
    /// What to write.
    #[arg(long, value_enum, default_value_t = ExportFormat::Onnx)]
    pub format: ExportFormat,
    /// The file to write.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Store weight matrices and hash-grid tables as float16: about half the file, values
    /// rounded to 11 significant bits (ONNX: cast back to float32 inside the graph;
    /// safetensors: every tensor, read back as float32 by predict, image render and export).
    #[arg(long)]
    pub half: bool,
}

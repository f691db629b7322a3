//! The networks of `image fit` and the memory a fit needs, checked before training.

use crate::cli::{ArchArg, ImageFitArgs};
use anyhow::{Result, bail};
use nn::{Activation, GridScale, HashGridMlpConfig};

/// The default batch of sampled pixels per step.
pub const DEFAULT_BATCH: usize = 1 << 16;

/// The architecture for these options: the one asked for, else SIREN for line art (it
/// redraws strokes larger more cleanly) and the hash grid for everything else.
pub fn resolve_arch(args: &ImageFitArgs, line_art: bool) -> ArchArg {
    args.arch.unwrap_or(if line_art || args.image.is_none() {
        ArchArg::Siren
    } else {
        ArchArg::Hashgrid
    })
}

/// The default hidden layers of an architecture.
pub fn default_hidden(arch: ArchArg) -> &'static str {
    match arch {
        ArchArg::Hashgrid => "64x2",
        _ => "128x3",
    }
}

/// The hash-grid network of the options for a `width x height` image of `channels`.
pub fn hash_grid_config(
    args: &ImageFitArgs,
    hidden: &[usize],
    longest: usize,
    channels: usize,
    output: Activation,
) -> Result<HashGridMlpConfig> {
    // By default the finest level has a cell per pixel (at least the coarsest level's).
    let finest = args
        .finest_resolution
        .unwrap_or((longest.min(u32::MAX as usize) as u32).max(args.base_resolution));
    let config = HashGridMlpConfig {
        levels: args.levels,
        features: args.features,
        log2_table_size: args.log2_table_size,
        base_resolution: args.base_resolution,
        scale: GridScale::Finest(finest),
        hidden: hidden.to_vec(),
        output_activation: output,
        ..HashGridMlpConfig::new(channels, finest)
    };
    if let Err(e) = config.validate() {
        bail!("{}", option_names(&e.to_string()));
    }
    Ok(config)
}

/// Names the command-line options in an encoding error.
fn option_names(message: &str) -> String {
    format!(
        "{message} (options --levels, --features, --log2-table-size, --base-resolution, --finest-resolution)"
    )
}

/// What a fit keeps in memory.
#[derive(Debug, Clone, Copy)]
pub struct Footprint {
    /// Pixels of the training image.
    pub pixels: usize,
    /// Channels.
    pub channels: usize,
    /// Pixels per step.
    pub batch: usize,
    /// Input rows per pixel (area supervision).
    pub samples: usize,
    /// Sum of the widths of the network's layers (encoding included).
    pub widths: usize,
    /// Trainable parameters.
    pub params: usize,
}

impl Footprint {
    /// Bytes: the image three times (loaded, compact copy, reconstruction) and twice more
    /// for the metrics, the parameters four times (values, gradients, Adam's two moments),
    /// each batch row's activations three times (values, pre-activations, gradients), and
    /// the bounded buffers of rendering.
    pub fn bytes(&self) -> u64 {
        let image = (self.pixels * self.channels * 4) as u64;
        let params = self.params as u64 * 16;
        let rows = (self.batch * self.samples) as u64;
        let batch = rows * (2 + 3 * self.widths as u64 + 3 * self.channels as u64) * 4;
        5 * image + params + batch + (64 << 20)
    }
}

/// The memory the machine has free, in bytes (`MemAvailable`), when it can be read.
fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Gibibytes, for messages.
fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}

/// Refuses, in one line and before the network exists, a fit that would not fit in the
/// memory available, saying what would.
pub fn check_memory(f: &Footprint) -> Result<()> {
    let Some(free) = available() else {
        return Ok(());
    };
    let need = f.bytes();
    let budget = free / 10 * 9;
    if need <= budget {
        return Ok(());
    }
    let fixed = Footprint { batch: 0, ..*f }.bytes();
    let suggestion = if fixed < budget {
        let per_pixel = Footprint { batch: 1, ..*f }.bytes() - fixed;
        let batch = ((budget - fixed) / per_pixel.max(1)).max(1);
        format!("--batch {batch} or less would fit")
    } else {
        let scale = (budget as f64 / fixed as f64).sqrt();
        let side = ((f.pixels as f64).sqrt() * scale) as usize;
        format!("the image alone is too large: try --size {side} or less")
    };
    bail!(
        "this fit needs about {} of memory ({} pixels, batches of {} pixels) but {} is available; {suggestion}",
        gib(need),
        f.pixels,
        f.batch,
        gib(free)
    )
}

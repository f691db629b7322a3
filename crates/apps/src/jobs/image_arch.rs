//! The networks of `image fit` and the memory a fit needs, checked before training.

use super::image_fit::architecture;
use crate::cli::{ArchArg, BatchArg, ImageFitArgs};
use crate::hidden::{Hidden, hidden_arg};
use crate::memory_budget;
use anyhow::{Result, bail};
use nn::{Activation, GridScale, HashGridMlpConfig, MlpConfig};
use tensor_core::Backend;
use train::plot::comparison::COMPARISON_SIDE;

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

/// The default log2 of the hash grid's table size.
pub const DEFAULT_LOG2_TABLE_SIZE: u32 = 19;

/// Images of more pixels than this get tables twice as large by default (where the memory
/// budget holds them): on a 600-megapixel photo 2^20 entries a level gain 2.5 dB over 2^19 in
/// the same steps, while photos of a few megapixels lose nothing with 2^19.
pub const LARGE_IMAGE_PIXELS: usize = 100_000_000;

/// The hash-grid network of the options for a `width x height` image of `channels`, with
/// tables of `2^log2_table_size` entries a level at most.
pub fn hash_grid_config(
    args: &ImageFitArgs,
    log2_table_size: u32,
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
        log2_table_size,
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

/// The networks of a fit and what it keeps in memory, settled before training.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The architecture.
    pub arch: ArchArg,
    /// Its hidden layers.
    pub hidden: Hidden,
    /// The hash-grid network (for `--arch hashgrid`).
    pub grid: Option<HashGridMlpConfig>,
    /// The coordinate network (for the other architectures).
    pub mlp: MlpConfig,
    /// Pixels per step.
    pub batch: usize,
    /// The memory it needs.
    pub footprint: Footprint,
}

impl Plan {
    /// The plan of `arch` for a `w x h` image of `c` channels, `s x s` samples per pixel, whose
    /// picture takes `picture` bytes. The hash grid's tables are `--log2-table-size`, else
    /// [`DEFAULT_LOG2_TABLE_SIZE`], one more for images over [`LARGE_IMAGE_PIXELS`] where the
    /// memory budget holds that.
    pub fn new<B: Backend>(
        args: &ImageFitArgs,
        arch: ArchArg,
        dims: (usize, usize, usize),
        s: usize,
        picture: PictureBytes,
    ) -> Result<Self> {
        let plan = |log2| -> Result<Self> {
            let mut plan = Self::with_tables::<B>(args, arch, dims, s, log2)?;
            plan.footprint.picture = picture;
            Ok(plan)
        };
        if let Some(log2) = args.log2_table_size {
            return plan(log2);
        }
        let default = plan(DEFAULT_LOG2_TABLE_SIZE)?;
        if default.grid.is_none() || dims.0.saturating_mul(dims.1) <= LARGE_IMAGE_PIXELS {
            return Ok(default);
        }
        let larger = plan(DEFAULT_LOG2_TABLE_SIZE + 1)?;
        let fits = match memory_budget::budget()? {
            Some((budget, _)) => larger.footprint.bytes() as f64 <= budget,
            None => true,
        };
        Ok(if fits { larger } else { default })
    }

    /// The hash grid's tables (log2 of their entries), for a hash-grid plan.
    pub fn log2_table_size(&self) -> Option<u32> {
        self.grid.as_ref().map(|g| g.log2_table_size)
    }

    /// The note that a large image's hash grid kept the smaller default tables because the
    /// larger ones would not fit in the memory budget (a resumed run must then be given the
    /// tables it was trained with, which the refusal names).
    pub fn smaller_tables_note(&self, args: &ImageFitArgs, pixels: usize) -> Option<String> {
        let grid = self.grid.as_ref()?;
        let kept = args.log2_table_size.is_none()
            && pixels > LARGE_IMAGE_PIXELS
            && grid.log2_table_size == DEFAULT_LOG2_TABLE_SIZE;
        kept.then(|| {
            format!(
                "note: tables of 2^{DEFAULT_LOG2_TABLE_SIZE} entries: 2^{} would not fit in the memory budget (images over {} megapixels get them where it holds them)",
                DEFAULT_LOG2_TABLE_SIZE + 1,
                LARGE_IMAGE_PIXELS / 1_000_000
            )
        })
    }

    /// [`new`](Self::new) with tables of `2^log2` entries a level at most (`--log2-table-size`
    /// ignored) and the picture's compact copy.
    pub fn with_tables<B: Backend>(
        args: &ImageFitArgs,
        arch: ArchArg,
        (w, h, c): (usize, usize, usize),
        s: usize,
        log2: u32,
    ) -> Result<Self> {
        let hidden = hidden_arg(args.hidden.as_deref().unwrap_or(default_hidden(arch)))?;
        let widths_of = hidden.widths();
        let output = if s == 1 {
            Activation::Identity
        } else {
            Activation::Sigmoid
        };
        let grid = match arch {
            ArchArg::Hashgrid => Some(hash_grid_config(
                args,
                log2,
                widths_of,
                w.max(h),
                c,
                output,
            )?),
            _ => None,
        };
        let mlp = architecture::<B>(arch, widths_of, c, output, args.train.seed)?;
        let pixels = w.saturating_mul(h);
        let batch = match args.train.batch {
            Some(BatchArg::Full) => pixels,
            Some(BatchArg::Size(n)) => n,
            None => DEFAULT_BATCH,
        }
        .min(pixels);
        let (params, widths) = match &grid {
            Some(g) => {
                let spec = g.validate()?;
                let mut dims = vec![spec.output_dim()];
                dims.extend(widths_of);
                let mlp_params: usize = dims.windows(2).map(|p| (p[0] + 1) * p[1]).sum();
                let last = widths_of.last().copied().unwrap_or(0);
                let params = spec.param_count() + mlp_params + (last + 1) * c;
                (params, dims.iter().sum::<usize>())
            }
            None => {
                let dims = mlp.layer_dims();
                let params = dims.iter().map(|&(i, o, _)| (i + 1) * o).sum();
                (params, dims.iter().map(|&(i, _, _)| i).sum::<usize>())
            }
        };
        let footprint = Footprint {
            pixels,
            width: w,
            picture: PictureBytes::compact(pixels, c),
            channels: c,
            batch,
            samples: s * s,
            widths,
            params,
        };
        Ok(Plan {
            arch,
            hidden,
            grid,
            mlp,
            batch,
            footprint,
        })
    }
}

/// The memory of the training picture: at its peak while it is made (decoded, converted,
/// resized), and while it is held (the compact copy the fit trains on and is scored against).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PictureBytes {
    /// Peak bytes while the picture is made.
    pub load: u64,
    /// Bytes held during training and scoring.
    pub held: u64,
}

impl PictureBytes {
    /// A picture of `pixels` pixels and `channels` made in `f32`, then compacted: at worst
    /// held in `f32` (values that are not 8-bit), at its peak beside its byte copy.
    pub fn values(pixels: usize, channels: usize) -> Self {
        let values = pixels as u64 * channels as u64;
        PictureBytes {
            load: 5 * values,
            held: 4 * values,
        }
    }

    /// An 8-bit picture of `pixels` pixels and `channels`, made in place.
    pub fn compact(pixels: usize, channels: usize) -> Self {
        let bytes = pixels as u64 * channels as u64;
        PictureBytes {
            load: bytes,
            held: bytes,
        }
    }
}

/// What a fit keeps in memory.
#[derive(Debug, Clone, Copy)]
pub struct Footprint {
    /// Pixels of the training image.
    pub pixels: usize,
    /// Pixels per row of the training image.
    pub width: usize,
    /// The training picture's memory.
    pub picture: PictureBytes,
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
    /// Peak bytes: the larger of making the picture and running the fit. The fit holds the
    /// picture's compact copy, the parameters four times (values, gradients, Adam's two
    /// moments), each batch row's activations three times (values, pre-activations,
    /// gradients); while it trains it writes checkpoints (a copy of the values and both
    /// moments, 12 bytes a parameter, streamed to the file from there); after training it draws
    /// the reconstruction in bands (a band's coordinates and activations), scoring each band
    /// as it comes ([`io::image::scoring_bytes`]) and shrinking both pictures for
    /// `comparison.png`; plus 64 MB for the program itself. Checkpoints and drawing never
    /// overlap, so the larger of the two counts.
    pub fn bytes(&self) -> u64 {
        // In f64: absurd requests saturate instead of overflowing.
        let f = |v: usize| v as f64;
        let params = f(self.params) * 16.0;
        let rows = f(self.batch) * f(self.samples);
        let batch = rows * (2.0 + 3.0 * f(self.widths) + 3.0 * f(self.channels)) * 4.0;
        let band = f(io::image::BAND_PIXELS) * (2.0 + 2.0 * f(self.widths) + f(self.channels));
        let shown = f(self.pixels).min(f(COMPARISON_SIDE).powi(2));
        let display = 2.0 * shown * f(self.channels) * 4.0;
        let scoring = io::image::scoring_bytes(self.width, self.channels) as f64;
        let checkpoint = f(self.params) * 12.0;
        let drawing = band * 4.0 + scoring + display;
        let running =
            self.picture.held as f64 + params + batch + checkpoint.max(drawing) + f(64 << 20);
        running.max(self.picture.load as f64) as u64
    }
}

/// Refuses, in one line and before the network exists, a fit that would not fit in the
/// memory available, saying what would.
pub fn check_memory(f: &Footprint) -> Result<()> {
    let Some((budget, source)) = memory_budget::budget()? else {
        return Ok(());
    };
    let budget = budget as u64;
    let need = f.bytes();
    if need <= budget {
        return Ok(());
    }
    let fixed = Footprint { batch: 0, ..*f }.bytes();
    let suggestion = if fixed < budget {
        let per_pixel = Footprint { batch: 1, ..*f }.bytes() - fixed;
        let batch = ((budget - fixed) / per_pixel.max(1)).max(1);
        format!("--batch {batch} or less would fit")
    } else {
        size_advice(f, budget)
    };
    bail!(
        "image fit would need about {} of memory ({} pixels, batches of {} pixels) but {} is available ({source}); {suggestion}",
        memory_budget::bytes(need as f64),
        f.pixels,
        f.batch,
        memory_budget::bytes(budget as f64)
    )
}

/// The advice when not even one pixel a step fits: the network alone is too large, or the
/// largest `--size` (at most [`MAX_SIZE`](super::image_fit::MAX_SIZE)) whose picture fits
/// beside the network.
fn size_advice(f: &Footprint, budget: u64) -> String {
    // The footprint of the same fit on a picture scaled to `k` times the pixels.
    let scaled = |k: f64| {
        Footprint {
            batch: 0,
            pixels: (f.pixels as f64 * k) as usize,
            width: ((f.width as f64 * k.sqrt()) as usize).max(1),
            picture: PictureBytes {
                load: (f.picture.load as f64 * k) as u64,
                held: (f.picture.held as f64 * k) as u64,
            },
            ..*f
        }
        .bytes()
    };
    let network = scaled(0.0);
    let longest = f.width.max(f.pixels / f.width.max(1)) as f64;
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if scaled(mid) <= budget {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let side = ((longest * lo.sqrt()) as u32).min(super::image_fit::MAX_SIZE);
    if network >= budget || side < 2 {
        return format!(
            "the network alone needs about {} ({} parameters): use a smaller one (--hidden; for \
             a hash grid, fewer --levels or a smaller --log2-table-size)",
            memory_budget::bytes(network as f64),
            f.params
        );
    }
    format!("the image is too large beside the network: try --size {side} or less")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn footprint(width: usize, height: usize, params: usize) -> Footprint {
        Footprint {
            pixels: width * height,
            width,
            picture: PictureBytes::values(width * height, 3),
            channels: 3,
            batch: 65_536,
            samples: 1,
            widths: 64 * 3,
            params,
        }
    }

    /// A network too large for the budget on its own is named, with no `--size` advice.
    #[test]
    fn a_network_too_large_alone_gets_no_size_advice() {
        let f = footprint(512, 512, 400_000_000);
        let advice = size_advice(&f, 4 << 30);
        assert!(advice.contains("network alone"), "{advice}");
        assert!(!advice.contains("--size"), "{advice}");
    }

    /// The suggested size fits the budget and is one `image fit` accepts.
    #[test]
    fn the_suggested_size_fits_and_is_accepted() {
        let f = footprint(30_000, 20_000, 100_000);
        for budget in [2u64 << 30, 6 << 30, 40 << 30] {
            let advice = size_advice(&f, budget);
            let side: usize = advice
                .rsplit("--size ")
                .next()
                .and_then(|t| t.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{advice}"));
            assert!(
                side <= super::super::image_fit::MAX_SIZE as usize,
                "{advice}"
            );
            let (w, h) = (side, side * 2 / 3);
            let smaller = Footprint {
                batch: 0,
                ..footprint(w, h, f.params)
            };
            assert!(smaller.bytes() <= budget, "{advice}: {}", smaller.bytes());
        }
    }
}

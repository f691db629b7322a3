//! The networks of an image fit and what it keeps in memory, settled before training.

#[cfg(doc)]
use super::budget::SizeBudget;
use super::defaults::{
    BUDGET_BATCH, DEFAULT_BATCH, DEFAULT_LOG2_TABLE_SIZE, FOURIER_FEATURES, FOURIER_SIGMA,
    LARGE_IMAGE_PIXELS, default_hidden,
};
use super::memory::{ImageFitSize, PictureBytes};
use super::options::{GridOptions, ImageArch, ImageFitOptions};
use crate::{Error, Result};
use nn::{Activation, HashGridMlpConfig, HiddenLayers, Mlp, MlpConfig};
use tensor_core::Backend;
use train::BatchChoice;
use train::budget;

/// The coordinate network of `arch` (`hidden` layers, `channels` outputs through `output`):
/// a SIREN ([`nn::MlpBuilder::siren`]), Fourier features and ReLU, or ReLU alone; the hash
/// grid's is [`hash_grid_config`].
pub fn coordinate_network<B: Backend>(
    arch: ImageArch,
    hidden: &[usize],
    channels: usize,
    output: Activation,
    seed: u64,
) -> Result<MlpConfig> {
    let builder = Mlp::<B>::builder().input(2).output(channels, output);
    let builder = match arch {
        ImageArch::Siren => builder.siren(hidden),
        ImageArch::Fourier => builder
            .fourier_features(FOURIER_FEATURES, FOURIER_SIGMA)
            .hidden(hidden, Activation::Relu),
        ImageArch::Relu | ImageArch::HashGrid => builder.hidden(hidden, Activation::Relu),
    };
    Ok(builder.config(seed)?)
}

/// The hash-grid network of the options for an image whose longer side is `longest`, with
/// tables of `2^log2_table_size` entries a level at most.
pub fn hash_grid_config(
    options: &ImageFitOptions,
    log2_table_size: u32,
    hidden: &[usize],
    (longest, channels): (usize, usize),
    output: Activation,
) -> Result<HashGridMlpConfig> {
    let grid = &options.grid;
    let config = HashGridMlpConfig {
        levels: grid.levels,
        features: grid.features,
        log2_table_size,
        hidden: hidden.to_vec(),
        output_activation: output,
        ..grid_config(grid, longest.min(u32::MAX as usize) as u32, channels)
    };
    checked(config)
}

/// The grid of `grid`'s resolutions for an image whose longer side is `longest`, with
/// `channels` outputs (its other fields Instant-NGP's): by default the finest level has a
/// cell per pixel (at least the coarsest level's).
pub(super) fn grid_config(grid: &GridOptions, longest: u32, channels: usize) -> HashGridMlpConfig {
    let finest = finest_resolution(grid, longest);
    HashGridMlpConfig {
        base_resolution: grid.base_resolution,
        ..HashGridMlpConfig::new(channels, finest)
    }
}

/// Cells per axis of the finest level: the options', else one a pixel of the picture's
/// longer side `longest` (at least the coarsest level's).
pub(super) fn finest_resolution(grid: &GridOptions, longest: u32) -> u32 {
    grid.finest_resolution
        .unwrap_or(longest.max(grid.base_resolution))
}

/// `config`, or [`Error::BadGrid`] saying why it cannot be built.
fn checked(config: HashGridMlpConfig) -> Result<HashGridMlpConfig> {
    match config.validate() {
        Ok(_) => Ok(config),
        Err(e) => Err(Error::BadGrid(e.to_string())),
    }
}

/// The networks of a fit and what it keeps in memory, settled before training.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The architecture.
    pub arch: ImageArch,
    /// Its hidden layers.
    pub hidden: HiddenLayers,
    /// The hash-grid network (for [`ImageArch::HashGrid`]).
    pub grid: Option<HashGridMlpConfig>,
    /// The coordinate network (for the other architectures).
    pub mlp: MlpConfig,
    /// Pixels per step.
    pub batch: usize,
    /// The sizes that set its memory.
    pub size: ImageFitSize,
}

impl Plan {
    /// The plan of `arch` for a `w x h` image of `c` channels whose picture takes `picture`
    /// bytes. The hash grid's tables are the size budget's ([`SizeBudget::network`]), else
    /// the options', else [`DEFAULT_LOG2_TABLE_SIZE`], one more for images over
    /// [`LARGE_IMAGE_PIXELS`] where the memory budget holds that.
    pub fn new<B: Backend>(
        options: &ImageFitOptions,
        arch: ImageArch,
        dims: (usize, usize, usize),
        picture: PictureBytes,
    ) -> Result<Self> {
        let plan = |log2| -> Result<Self> {
            let mut plan = Self::with_tables::<B>(options, arch, dims, log2)?;
            plan.size.picture = picture;
            Ok(plan)
        };
        if let Some(log2) = options.grid.log2_table_size {
            return plan(log2);
        }
        if options.budget.is_some() {
            // The budget chooses the tables.
            return plan(DEFAULT_LOG2_TABLE_SIZE);
        }
        let default = plan(DEFAULT_LOG2_TABLE_SIZE)?;
        if default.grid.is_none() || dims.0.saturating_mul(dims.1) <= LARGE_IMAGE_PIXELS {
            return Ok(default);
        }
        let larger = plan(DEFAULT_LOG2_TABLE_SIZE + 1)?;
        let fits = match budget::budget()? {
            Some(budget) => larger.size.bytes() <= budget.bytes,
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
    pub fn smaller_tables_note(&self, options: &ImageFitOptions, pixels: usize) -> Option<String> {
        let grid = self.grid.as_ref()?;
        let kept = options.grid.log2_table_size.is_none()
            && options.budget.is_none()
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

    /// [`new`](Self::new) with tables of `2^log2` entries a level at most (the options'
    /// ignored; a size budget's network takes none of them) and the picture's compact copy;
    /// a size budget for another network than the hash grid is refused
    /// ([`Error::BudgetArch`]).
    pub fn with_tables<B: Backend>(
        options: &ImageFitOptions,
        arch: ImageArch,
        (w, h, c): (usize, usize, usize),
        log2: u32,
    ) -> Result<Self> {
        let s = options.supersample as usize;
        let output = if s == 1 {
            Activation::Identity
        } else {
            Activation::Sigmoid
        };
        let (grid, hidden) = match (arch, options.budget) {
            (ImageArch::HashGrid, Some(budget)) => {
                let grid = HashGridMlpConfig {
                    output_activation: output,
                    ..budget.network(&options.grid, (w, h, c))?
                };
                let hidden = HiddenLayers(grid.hidden.clone());
                (Some(grid), hidden)
            }
            (_, Some(_)) => return Err(Error::BudgetArch(arch.name())),
            _ => {
                let hidden = options
                    .hidden
                    .clone()
                    .unwrap_or_else(|| HiddenLayers(default_hidden(arch)));
                let grid = (arch == ImageArch::HashGrid)
                    .then(|| {
                        hash_grid_config(options, log2, hidden.widths(), (w.max(h), c), output)
                    })
                    .transpose()?;
                (grid, hidden)
            }
        };
        let widths_of = hidden.widths();
        let mlp = coordinate_network::<B>(arch, widths_of, c, output, options.training.seed)?;
        let pixels = w.saturating_mul(h);
        let batch = match options.training.batch {
            Some(BatchChoice::Full) => pixels,
            Some(BatchChoice::Rows(n)) => n,
            None if options.budget.is_some() => BUDGET_BATCH,
            None => DEFAULT_BATCH,
        }
        .min(pixels);
        let (params, widths) = match &grid {
            Some(g) => {
                let encoded = g.validate()?.output_dim();
                (g.num_params()?, encoded + widths_of.iter().sum::<usize>())
            }
            None => {
                let dims = mlp.layer_dims();
                (
                    mlp.num_params(),
                    dims.iter().map(|&(i, _, _)| i).sum::<usize>(),
                )
            }
        };
        let size = ImageFitSize {
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
            size,
        })
    }
}

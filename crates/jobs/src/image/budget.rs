//! A size budget for an image fit: the most trainable parameters per pixel of the picture.
//! The budget chooses the hash grid (levels, features per level, table size) and the
//! hidden layers, and the fit's length; the fitted model is then also stored compactly
//! (`float16`) and scored from the stored values.
//!
//! The choice ([`SizeBudget::network`]) spends the budget on the tables first, then on one
//! wide hidden layer:
//!
//! - The grid keeps Instant-NGP's resolutions, with [`BUDGET_FEATURES`] features a level,
//!   the largest tables that still leave at least [`PREFERRED_LEVELS`] levels, and as many
//!   levels as then fit, up to [`MAX_BUDGET_LEVELS`], beside two hidden layers of the
//!   first of [`BUDGET_BASE_WIDTHS`] that fits. Measured on 640x427 photos at one parameter a
//!   pixel, the layouts of a budget score within 0.3 dB of each other (2 features: 24
//!   levels of 2^13 entries, 14 of 2^14 or 8 of 2^15), and 4 features (12 levels of 2^13)
//!   0.1 to 0.7 dB above 2 (14 levels of 2^14); a finest level coarser than the picture
//!   loses 0.5 to 2 dB. At a quarter of a parameter a pixel, 16 levels of 2^10 entries
//!   score 1.1 dB above 12 levels of the same tables (on `china`, 2,000 steps), at 20 to
//!   70% more time a step.
//! - What the tables leave is spent on the hidden layers: one layer instead of the two, as
//!   wide as the rest of the budget allows in multiples of [`BUDGET_WIDTH_STEP`], up to
//!   [`BUDGET_MAX_PRODUCT`] multiply-adds a pixel in its first product, where it can be at
//!   least [`BUDGET_MIN_WIDE`] wide (the two layers stay otherwise). Where many pixels
//!   share each entry of the finest tables, the width of the layer that reads them matters
//!   more than their size:
//!   on `china` at one parameter a pixel (12 levels of 2^13, 8,150 steps), two hidden
//!   layers of 64 score 38.28 dB, one of 128 38.61, of 256 39.47, of 320 39.85 and of 512
//!   40.71, the time a step growing with the width.
//!
//! Where no such grid fits, narrower layers, then fewer levels, are tried.

use super::options::{GridOptions, ImageOption};
use crate::{Error, Result};
use nn::HashGridMlpConfig;

/// The largest budget accepted, in parameters per pixel (the default network of a photo
/// takes about 8).
pub const MAX_PARAMS_PER_PIXEL: f64 = 64.0;

/// The most levels a budget's grid is given (the default grid's).
pub const MAX_BUDGET_LEVELS: usize = 16;

/// The fewest levels a budget's grid is given where the budget holds them.
pub const PREFERRED_LEVELS: usize = 12;

/// The fewest levels of any budget's grid: fewer cannot span coarse to fine.
pub const MIN_BUDGET_LEVELS: usize = 4;

/// Features per level of a budget's grid.
pub const BUDGET_FEATURES: usize = 4;

/// The widths of the two hidden layers a budget's tables are chosen beside, in order of
/// preference.
pub const BUDGET_BASE_WIDTHS: [usize; 3] = [64, 32, 16];

/// The narrowest single hidden layer that replaces two: on `china` at a quarter of a
/// parameter a pixel (16 levels of 2^10, 8,150 steps), two layers of 64 score 28.33 dB, one
/// of 128 27.57 and one of 192 28.24; at half a parameter a pixel (16 levels of 2^11), one
/// of 240 scores 32.55 against 31.96.
pub const BUDGET_MIN_WIDE: usize = 192;

/// The hidden layer is widened in multiples of this many units (whole vectors of the CPU's
/// widest registers).
pub const BUDGET_WIDTH_STEP: usize = 16;

/// The most multiply-adds a pixel of the hidden layer's first product (its inputs times its
/// width): 15,360, a layer of 320 on 12 levels of 4 features, which keeps a 640x427 photo's
/// fit at one parameter a pixel within 25 to 29 s on 2 cores.
pub const BUDGET_MAX_PRODUCT: usize = 48 * 320;

/// The smallest and largest `log2` of a budget's table size.
pub const BUDGET_LOG2_TABLES: std::ops::RangeInclusive<u32> = 6..=22;

/// The most parameters of a fitted picture, per pixel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SizeBudget {
    /// Trainable parameters per pixel of the training picture (above 0, at most
    /// [`MAX_PARAMS_PER_PIXEL`]).
    pub params_per_pixel: f64,
}

impl SizeBudget {
    /// A budget of `params_per_pixel`, refused out of its range
    /// ([`Error::ImageOptionOutOfRange`]).
    pub fn new(params_per_pixel: f64) -> Result<Self> {
        if !(params_per_pixel > 0.0 && params_per_pixel <= MAX_PARAMS_PER_PIXEL) {
            return Err(Error::ImageOptionOutOfRange {
                option: ImageOption::Budget,
                accepted: format!("above 0 and at most {MAX_PARAMS_PER_PIXEL}"),
                value: params_per_pixel.to_string(),
            });
        }
        Ok(SizeBudget { params_per_pixel })
    }

    /// A note when a fit of `params_per_pixel` falls well short of the budget (below 80% of
    /// it): the largest grid the picture's resolution allows takes fewer parameters than
    /// asked.
    pub fn shortfall_note(self, params_per_pixel: f64) -> Option<String> {
        (params_per_pixel < 0.8 * self.params_per_pixel).then(|| {
            format!(
                "the largest network this picture's grid allows takes {params_per_pixel:.2} parameters a pixel, less than the budget of {}",
                self.params_per_pixel
            )
        })
    }

    /// The most parameters of a picture of `pixels` pixels.
    pub fn params(self, pixels: usize) -> usize {
        (self.params_per_pixel * pixels as f64).floor() as usize
    }

    /// The hash-grid network this budget gives a `w x h` picture of `channels` channels, on
    /// the options' coarsest and finest resolutions (`grid`): see the [module
    /// docs](self). [`Error::BudgetTooSmall`] when no network fits.
    pub fn network(
        self,
        grid: &GridOptions,
        (w, h, channels): (usize, usize, usize),
    ) -> Result<HashGridMlpConfig> {
        let most = self.params(w * h);
        let longest = w.max(h).min(u32::MAX as usize) as u32;
        let finest = super::plan::finest_resolution(grid, longest);
        let spread = |config: HashGridMlpConfig| {
            // Every level at one resolution, hashed: the tables hold noise.
            let vertices = (u64::from(finest) + 1).pow(2);
            if grid.base_resolution >= finest && vertices > 1u64 << config.log2_table_size {
                return Err(Error::BudgetGridFlat {
                    coarsest: grid.base_resolution,
                    finest,
                });
            }
            Ok(config)
        };
        let config = |log2, levels, hidden: Vec<usize>| HashGridMlpConfig {
            levels,
            features: BUDGET_FEATURES,
            log2_table_size: log2,
            hidden,
            ..super::plan::grid_config(grid, longest, channels)
        };
        let params = |log2, levels, hidden: Vec<usize>| {
            config(log2, levels, hidden).num_params().map_err(bad_grid)
        };
        for fewest in [PREFERRED_LEVELS, MIN_BUDGET_LEVELS] {
            for width in BUDGET_BASE_WIDTHS {
                for log2 in BUDGET_LOG2_TABLES.rev() {
                    if params(log2, fewest, vec![width; 2])? > most {
                        continue;
                    }
                    let mut levels = fewest;
                    while levels < MAX_BUDGET_LEVELS
                        && params(log2, levels + 1, vec![width; 2])? <= most
                    {
                        levels += 1;
                    }
                    let fits = |w| Ok(params(log2, levels, vec![w])? <= most);
                    let hidden = match wide_layer(levels * BUDGET_FEATURES, fits)? {
                        Some(wide) => vec![wide],
                        None => vec![width; 2],
                    };
                    return spread(config(log2, levels, hidden));
                }
            }
        }
        let smallest = params(
            *BUDGET_LOG2_TABLES.start(),
            MIN_BUDGET_LEVELS,
            vec![BUDGET_BASE_WIDTHS[2]; 2],
        )?;
        Err(Error::BudgetTooSmall {
            budget: most,
            pixels: w * h,
            smallest,
        })
    }
}

/// The one hidden layer that replaces two after `inputs` grid features: the widest, in
/// steps of [`BUDGET_WIDTH_STEP`] from [`BUDGET_MIN_WIDE`], whose network `fits` the budget
/// and whose first product stays within [`BUDGET_MAX_PRODUCT`]; `None` where not even the
/// narrowest does.
fn wide_layer(inputs: usize, fits: impl Fn(usize) -> Result<bool>) -> Result<Option<usize>> {
    let widest = BUDGET_MAX_PRODUCT / inputs.max(1);
    if BUDGET_MIN_WIDE > widest || !fits(BUDGET_MIN_WIDE)? {
        return Ok(None);
    }
    let mut wide = BUDGET_MIN_WIDE;
    while wide + BUDGET_WIDTH_STEP <= widest && fits(wide + BUDGET_WIDTH_STEP)? {
        wide += BUDGET_WIDTH_STEP;
    }
    Ok(Some(wide))
}

/// A grid that cannot be built, as [`Error::BadBudgetGrid`].
fn bad_grid(e: nn::Error) -> Error {
    Error::BadBudgetGrid(e.to_string())
}

//! [`HashGridMlpConfig`]: the serialisable structure of a
//! [`HashGridMlp`](super::hashgrid::HashGridMlp).

use crate::{Result, config_err};
use serde::{Deserialize, Serialize};
use tensor_core::{Activation, HashGridConfig, HashGridScale, HashGridSpec};

/// How the resolution of a hash grid grows from level to level (the serialisable form of
/// [`HashGridScale`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GridScale {
    /// The factor between the resolutions of consecutive levels.
    Growth(f64),
    /// The resolution of the finest level.
    Finest(u32),
}

/// The structure of a hash-grid encoding followed by a ReLU network: everything a
/// checkpoint needs to rebuild it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HashGridMlpConfig {
    /// Input dimensions (1 to 3).
    pub input: usize,
    /// Inputs are mapped from `[lo, hi]` on every axis to the encoding's `[0, 1]`
    /// (`[-1, 1]` for the image jobs' pixel coordinates); values outside are clamped.
    pub input_range: [f32; 2],
    /// Resolution levels `L`.
    pub levels: usize,
    /// Features per level `F`.
    pub features: usize,
    /// `log2` of the most table entries per level `T`.
    pub log2_table_size: u32,
    /// Resolution of the coarsest level.
    pub base_resolution: u32,
    /// How the resolution grows to the finest level.
    pub scale: GridScale,
    /// Widths of the hidden layers (ReLU); at least one.
    pub hidden: Vec<usize>,
    /// Outputs.
    pub output: usize,
    /// Activation of the output layer.
    #[serde(with = "super::config::ActivationDef")]
    pub output_activation: Activation,
}

impl HashGridMlpConfig {
    /// The recipe of Instant-NGP for 2-D inputs in `[-1, 1]`: 16 levels of 2 features,
    /// tables of 2^19 entries, resolutions 16 to `finest`, two hidden layers of 64 and an
    /// identity output.
    pub fn new(output: usize, finest: u32) -> Self {
        HashGridMlpConfig {
            input: 2,
            input_range: [-1.0, 1.0],
            levels: 16,
            features: 2,
            log2_table_size: 19,
            base_resolution: 16,
            scale: GridScale::Finest(finest),
            hidden: vec![64, 64],
            output,
            output_activation: Activation::Identity,
        }
    }

    /// The encoding's parameters in tensor-core's form.
    pub fn grid(&self) -> HashGridConfig {
        HashGridConfig {
            dims: self.input,
            levels: self.levels,
            features: self.features,
            log2_table_size: self.log2_table_size,
            base_resolution: self.base_resolution,
            scale: match self.scale {
                GridScale::Growth(b) => HashGridScale::Growth(b),
                GridScale::Finest(n) => HashGridScale::Finest(n),
            },
        }
    }

    /// Checks every field (the encoding's parameters through
    /// [`HashGridConfig::validate`], one line each) and returns the encoding's layout.
    pub fn validate(&self) -> Result<HashGridSpec> {
        let spec = self.grid().validate()?;
        let [lo, hi] = self.input_range;
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(config_err(format!(
                "the input range [{lo}, {hi}] must be finite and non-empty"
            )));
        }
        if self.hidden.is_empty() || self.hidden.contains(&0) {
            return Err(config_err(format!(
                "a hash-grid network needs at least one hidden layer, all of width >= 1, got {:?}",
                self.hidden
            )));
        }
        if self.output == 0 {
            return Err(config_err("a hash-grid network needs at least one output"));
        }
        Ok(spec)
    }

    /// The number of trainable scalars: the encoding's tables, then each dense layer's
    /// weights and biases (hidden layers and the output).
    pub fn num_params(&self) -> Result<usize> {
        let spec = self.validate()?;
        let mut widths = vec![spec.output_dim()];
        widths.extend(&self.hidden);
        widths.push(self.output);
        let dense: usize = widths.windows(2).map(|w| (w[0] + 1) * w[1]).sum();
        Ok(spec.param_count() + dense)
    }

    /// The affine map `(scale, shift)` taking the input range to `[0, 1]`.
    pub fn unit_map(&self) -> (f32, f32) {
        let [lo, hi] = self.input_range;
        let scale = 1.0 / (hi - lo);
        (scale, -lo * scale)
    }
}

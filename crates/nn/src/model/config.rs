//! [`MlpConfig`]: everything needed to rebuild an [`Mlp`](crate::Mlp) (serialisable, for
//! checkpoint metadata).

use crate::init::Init;
use crate::{Result, config_err};
use serde::{Deserialize, Serialize};
use tensor_core::Activation;

/// Serde mirror of [`tensor_core::Activation`] (`{"kind": "sine", "w0": 30.0}`).
#[derive(Serialize, Deserialize)]
#[serde(remote = "Activation", tag = "kind", rename_all = "snake_case")]
pub enum ActivationDef {
    /// `x`.
    Identity,
    /// Logistic sigmoid.
    Sigmoid,
    /// Hyperbolic tangent.
    Tanh,
    /// `max(x, 0)`.
    Relu,
    /// Leaky ReLU.
    LeakyRelu {
        /// Slope for negative inputs.
        alpha: f32,
    },
    /// `sin(w0 x)`.
    Sine {
        /// Frequency factor.
        w0: f32,
    },
}

/// How coordinates are encoded before the first linear layer.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EncodingConfig {
    /// The raw input.
    #[default]
    None,
    /// Gaussian random Fourier features `[sin(2 pi x B), cos(2 pi x B)]`,
    /// `B ~ N(0, sigma^2)` of shape `[input, features]` drawn from `seed`.
    Fourier {
        /// Columns of `B` (the encoding is twice as wide).
        features: usize,
        /// Standard deviation of the frequencies.
        sigma: f32,
        /// Seed of the frequency matrix.
        seed: u64,
    },
    /// NeRF positional encoding with `bands` octaves.
    Positional {
        /// Frequency bands `2^k pi`, `k < bands`.
        bands: usize,
        /// Whether the raw input is kept too.
        include_input: bool,
    },
}

impl EncodingConfig {
    /// The width of the encoding of `input` features.
    pub fn output_dim(&self, input: usize) -> usize {
        match *self {
            EncodingConfig::None => input,
            EncodingConfig::Fourier { features, .. } => 2 * features,
            EncodingConfig::Positional {
                bands,
                include_input,
            } => 2 * input * bands + if include_input { input } else { 0 },
        }
    }

    fn validate(&self) -> Result<()> {
        match *self {
            EncodingConfig::None => Ok(()),
            EncodingConfig::Fourier {
                features, sigma, ..
            } => {
                if features == 0 || !(sigma.is_finite() && sigma > 0.0) {
                    return Err(config_err(format!(
                        "Fourier features need features >= 1 and a positive, finite sigma \
                         (got {features} features, sigma {sigma})"
                    )));
                }
                Ok(())
            }
            EncodingConfig::Positional { bands, .. } => {
                if bands == 0 || bands > crate::encoding::positional::MAX_BANDS {
                    return Err(config_err(format!(
                        "positional encoding needs 1..={} bands, got {bands}",
                        crate::encoding::positional::MAX_BANDS
                    )));
                }
                Ok(())
            }
        }
    }
}

/// The architecture of an [`Mlp`](crate::Mlp): input width, encoding (with the seed of its
/// random matrix), hidden widths and activation, output width and activation, and the
/// initialisation scheme.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MlpConfig {
    /// Input features (2 for image coordinates).
    pub input: usize,
    /// Whether each input feature is multiplied by a learned factor before anything else
    /// ([`Scale`](crate::Scale), saved as [`INPUT_SCALE`](crate::model::mlp::INPUT_SCALE)).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub input_scale: bool,
    /// Whether a positional encoding's frequencies are trained
    /// ([`Encoding::learn_frequencies`](crate::Encoding::learn_frequencies)).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub learned_frequencies: bool,
    /// The input encoding.
    #[serde(default)]
    pub encoding: EncodingConfig,
    /// Widths of the hidden layers (may be empty: a single linear layer).
    pub hidden: Vec<usize>,
    /// Activation of every hidden layer.
    #[serde(with = "ActivationDef")]
    pub hidden_activation: Activation,
    /// Output features.
    pub output: usize,
    /// Activation of the output layer (usually the identity: losses take logits).
    #[serde(with = "ActivationDef")]
    pub output_activation: Activation,
    /// How parameters are initialised.
    #[serde(default)]
    pub init: Init,
}

impl MlpConfig {
    /// Checks sizes and activation parameters.
    pub fn validate(&self) -> Result<()> {
        if self.input == 0 || self.output == 0 {
            return Err(config_err(format!(
                "an MLP needs at least one input and one output (got {} -> {})",
                self.input, self.output
            )));
        }
        if let Some(i) = self.hidden.iter().position(|&h| h == 0) {
            return Err(config_err(format!("hidden layer {i} has width 0")));
        }
        for act in [self.hidden_activation, self.output_activation] {
            check_activation(act)?;
        }
        self.encoding.validate()
    }

    /// `(fan_in, fan_out, activation)` of each linear layer, in order.
    pub fn layer_dims(&self) -> Vec<(usize, usize, Activation)> {
        let mut dims = Vec::with_capacity(self.hidden.len() + 1);
        let mut prev = self.encoding.output_dim(self.input);
        for &h in &self.hidden {
            dims.push((prev, h, self.hidden_activation));
            prev = h;
        }
        dims.push((prev, self.output, self.output_activation));
        dims
    }

    /// The number of trainable scalars.
    pub fn num_params(&self) -> usize {
        let scale = if self.input_scale { self.input } else { 0 };
        let frequencies = match self.encoding {
            EncodingConfig::Positional { bands, .. } if self.learned_frequencies => {
                self.input * self.input * bands
            }
            _ => 0,
        };
        let scale = scale + frequencies;
        scale
            + self
                .layer_dims()
                .iter()
                .map(|(i, o, _)| i * o + o)
                .sum::<usize>()
    }

    /// The configuration as JSON.
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string(self).map_err(|e| config_err(format!("MLP configuration: {e}")))
    }

    /// A configuration from JSON (validated).
    pub fn from_json(json: &str) -> Result<Self> {
        let c: MlpConfig = serde_json::from_str(json)
            .map_err(|e| config_err(format!("MLP configuration: {e}")))?;
        c.validate()?;
        Ok(c)
    }
}

/// Checks an activation's parameter.
pub(crate) fn check_activation(act: Activation) -> Result<()> {
    match act {
        Activation::Sine { w0 } if !(w0.is_finite() && w0 != 0.0) => Err(config_err(format!(
            "sine activation needs a finite, non-zero w0, got {w0}"
        ))),
        Activation::LeakyRelu { alpha } if !alpha.is_finite() => Err(config_err(format!(
            "leaky ReLU needs a finite slope, got {alpha}"
        ))),
        _ => Ok(()),
    }
}

//! Parameter initialisation schemes.
//!
//! | scheme | weight | bias |
//! | --- | --- | --- |
//! | [`Init::XavierUniform`] | `U(-a, a)`, `a = sqrt(6 / (fan_in + fan_out))` | 0 |
//! | [`Init::XavierNormal`] | `N(0, 2 / (fan_in + fan_out))` | 0 |
//! | [`Init::HeUniform`] | `U(-a, a)`, `a = sqrt(6 / ((1 + alpha^2) fan_in))` | 0 |
//! | [`Init::HeNormal`] | `N(0, 2 / ((1 + alpha^2) fan_in))` | 0 |
//! | [`Init::Siren`] | first layer `U(-1/fan_in, 1/fan_in)`, others `U(-sqrt(6/fan_in)/w0, sqrt(6/fan_in)/w0)` | `U(-1/sqrt(fan_in), 1/sqrt(fan_in))` |
//! | [`Init::PyTorch`] | `U(-1/sqrt(fan_in), 1/sqrt(fan_in))` (nn.Linear's default) | same |
//!
//! `alpha` is the leaky ReLU slope (0 for ReLU). SIREN's bias is PyTorch's `nn.Linear`
//! default, as in the reference implementation; `w0` is the frequency of the network's
//! hidden sine activation (30 when the hidden activation is not a sine).
//! [`Init::Auto`] picks SIREN for sine networks, He (hidden layers) with Xavier (output
//! layer) for ReLU-like networks, and Xavier otherwise.

use crate::Result;
use serde::{Deserialize, Serialize};
use tensor_core::rand::Rng;
use tensor_core::{Activation, Backend, Tensor};

/// How the parameters of a network are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Init {
    /// A sensible default for the hidden activation (see the module documentation).
    #[default]
    Auto,
    /// Glorot/Xavier uniform.
    XavierUniform,
    /// Glorot/Xavier normal.
    XavierNormal,
    /// He/Kaiming uniform (fan-in mode).
    HeUniform,
    /// He/Kaiming normal (fan-in mode).
    HeNormal,
    /// The SIREN paper's scheme.
    Siren,
    /// PyTorch's `nn.Linear` default.
    PyTorch,
}

/// A distribution to draw one tensor from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Dist {
    /// All zeros.
    Zeros,
    /// Uniform on `[-bound, bound)`.
    Uniform(f32),
    /// Normal with mean 0 and this standard deviation.
    Normal(f32),
}

impl Dist {
    /// Draws a tensor of `shape`.
    pub fn draw<B: Backend, R: Rng + ?Sized>(
        self,
        backend: &B,
        shape: &[usize],
        rng: &mut R,
    ) -> Result<Tensor<B>> {
        Ok(match self {
            Dist::Uniform(b) if b > 0.0 => Tensor::rand_uniform(backend, shape, -b, b, rng)?,
            Dist::Normal(s) if s > 0.0 => Tensor::rand_normal(backend, shape, 0.0, s, rng)?,
            _ => Tensor::zeros(backend, shape)?,
        })
    }
}

/// The distributions of one layer's weight and bias.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerInit {
    /// For the `[in, out]` weight.
    pub weight: Dist,
    /// For the `[out]` bias.
    pub bias: Dist,
}

impl LayerInit {
    /// Draws the weight (first) and the bias (second) from `rng`.
    pub fn draw<B: Backend, R: Rng + ?Sized>(
        self,
        backend: &B,
        in_dim: usize,
        out_dim: usize,
        rng: &mut R,
    ) -> Result<(Tensor<B>, Tensor<B>)> {
        let w = self.weight.draw(backend, &[in_dim, out_dim], rng)?;
        let b = self.bias.draw(backend, &[out_dim], rng)?;
        Ok((w, b))
    }
}

impl Init {
    /// The concrete scheme [`Init::Auto`] stands for with this hidden activation.
    pub fn resolve(self, hidden: Activation) -> Init {
        match (self, hidden) {
            (Init::Auto, Activation::Sine { .. }) => Init::Siren,
            (Init::Auto, Activation::Relu | Activation::LeakyRelu { .. }) => Init::HeUniform,
            (Init::Auto, _) => Init::XavierUniform,
            (other, _) => other,
        }
    }

    /// The distributions for layer `index` of `layers` (`fan_in -> fan_out`, activation
    /// `act`) in a network whose hidden activation is `hidden`.
    pub fn layer(
        self,
        index: usize,
        layers: usize,
        fan_in: usize,
        fan_out: usize,
        act: Activation,
        hidden: Activation,
    ) -> LayerInit {
        let fi = fan_in.max(1) as f32;
        let fo = fan_out.max(1) as f32;
        let is_last = index + 1 == layers;
        let mut scheme = self.resolve(hidden);
        // Auto with ReLU: He for the hidden layers, Xavier for the output layer.
        if self == Init::Auto && scheme == Init::HeUniform && is_last {
            scheme = Init::XavierUniform;
        }
        let slope = match act {
            Activation::LeakyRelu { alpha } => alpha,
            _ => 0.0,
        };
        let he_var = 2.0 / ((1.0 + slope * slope) * fi);
        let pytorch = Dist::Uniform(1.0 / fi.sqrt());
        match scheme {
            Init::XavierUniform | Init::Auto => LayerInit {
                weight: Dist::Uniform((6.0 / (fi + fo)).sqrt()),
                bias: Dist::Zeros,
            },
            Init::XavierNormal => LayerInit {
                weight: Dist::Normal((2.0 / (fi + fo)).sqrt()),
                bias: Dist::Zeros,
            },
            Init::HeUniform => LayerInit {
                weight: Dist::Uniform((3.0 * he_var).sqrt()),
                bias: Dist::Zeros,
            },
            Init::HeNormal => LayerInit {
                weight: Dist::Normal(he_var.sqrt()),
                bias: Dist::Zeros,
            },
            Init::Siren => {
                let w0 = match hidden {
                    Activation::Sine { w0 } if w0 != 0.0 => w0.abs(),
                    _ => 30.0,
                };
                let bound = if index == 0 {
                    1.0 / fi
                } else {
                    (6.0 / fi).sqrt() / w0
                };
                LayerInit {
                    weight: Dist::Uniform(bound),
                    bias: pytorch,
                }
            }
            Init::PyTorch => LayerInit {
                weight: pytorch,
                bias: pytorch,
            },
        }
    }
}

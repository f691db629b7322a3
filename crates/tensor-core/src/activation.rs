//! Activation functions and their derivatives.

/// An activation function, applied element-wise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Activation {
    /// `x`
    Identity,
    /// `1 / (1 + e^-x)`, computed without overflow.
    Sigmoid,
    /// Hyperbolic tangent.
    Tanh,
    /// `max(x, 0)`; NaN stays NaN (as `torch.relu`).
    Relu,
    /// `x` for positive `x`, `alpha * x` otherwise.
    LeakyRelu {
        /// Slope for negative inputs.
        alpha: f32,
    },
    /// `sin(w0 * x)`, the SIREN activation.
    Sine {
        /// Frequency factor (30 in the SIREN paper).
        w0: f32,
    },
}

impl Activation {
    /// The activation of one value.
    #[inline]
    pub fn forward(self, x: f32) -> f32 {
        match self {
            Activation::Identity => x,
            Activation::Sigmoid => sigmoid(x),
            Activation::Tanh => x.tanh(),
            Activation::Relu => {
                if x < 0.0 {
                    0.0
                } else {
                    x
                }
            }
            Activation::LeakyRelu { alpha } => {
                if x > 0.0 {
                    x
                } else {
                    alpha * x
                }
            }
            Activation::Sine { w0 } => (w0 * x).sin(),
        }
    }

    /// The derivative at pre-activation `x`.
    #[inline]
    pub fn derivative(self, x: f32) -> f32 {
        match self {
            Activation::Identity => 1.0,
            Activation::Sigmoid => {
                let s = sigmoid(x);
                s * (1.0 - s)
            }
            Activation::Tanh => {
                let t = x.tanh();
                1.0 - t * t
            }
            Activation::Relu => {
                if x > 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
            Activation::LeakyRelu { alpha } => {
                if x > 0.0 {
                    1.0
                } else {
                    alpha
                }
            }
            Activation::Sine { w0 } => w0 * (w0 * x).cos(),
        }
    }

    /// A short lowercase name ("relu", "sine", ...).
    pub fn name(self) -> &'static str {
        match self {
            Activation::Identity => "identity",
            Activation::Sigmoid => "sigmoid",
            Activation::Tanh => "tanh",
            Activation::Relu => "relu",
            Activation::LeakyRelu { .. } => "leaky_relu",
            Activation::Sine { .. } => "sine",
        }
    }
}

/// The logistic function, stable for inputs of any magnitude.
#[inline]
pub fn sigmoid(x: f32) -> f32 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

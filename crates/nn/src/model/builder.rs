//! A builder for the common MLP shapes.

use super::config::{EncodingConfig, MlpConfig};
use super::mlp::Mlp;
use crate::init::Init;
use crate::{Result, config_err};
use std::marker::PhantomData;
use tensor_core::{Activation, Backend};

/// The frequency `w0` of a SIREN's sine activations (`sin(w0 * x)`), as in the SIREN
/// paper: the first layer sees coordinates in `[-1, 1]` as about 30 periods.
pub const SIREN_W0: f32 = 30.0;

/// An encoding whose seed may still be unknown (taken from the build seed).
#[derive(Debug, Clone, Copy, PartialEq)]
enum PendingEncoding {
    Fixed(EncodingConfig),
    Fourier { features: usize, sigma: f32 },
}

/// Builds an [`Mlp`]:
///
/// ```
/// use nn::{Mlp, Activation};
/// use tensor_cpu::CpuBackend;
/// let cpu = CpuBackend::new();
/// let siren = Mlp::builder()
///     .input(2)
///     .siren(&[64, 64])
///     .output(1, Activation::Identity)
///     .build(&cpu, 7)?;
/// assert_eq!(siren.config().num_params(), 2 * 64 + 64 + 64 * 64 + 64 + 64 + 1);
/// # Ok::<(), nn::Error>(())
/// ```
///
/// The builder carries the backend type only so that `Mlp::builder()` needs no type
/// annotation: it is inferred from the backend passed to [`build`](Self::build).
pub struct MlpBuilder<B: Backend> {
    input: Option<usize>,
    input_scale: bool,
    learned_frequencies: bool,
    encoding: PendingEncoding,
    hidden: Vec<usize>,
    hidden_activation: Activation,
    output: Option<(usize, Activation)>,
    init: Init,
    backend: PhantomData<fn() -> B>,
}

impl<B: Backend> std::fmt::Debug for MlpBuilder<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MlpBuilder")
            .field("input", &self.input)
            .field("input_scale", &self.input_scale)
            .field("learned_frequencies", &self.learned_frequencies)
            .field("encoding", &self.encoding)
            .field("hidden", &self.hidden)
            .field("hidden_activation", &self.hidden_activation)
            .field("output", &self.output)
            .field("init", &self.init)
            .finish()
    }
}

impl<B: Backend> Clone for MlpBuilder<B> {
    fn clone(&self) -> Self {
        MlpBuilder {
            input: self.input,
            input_scale: self.input_scale,
            learned_frequencies: self.learned_frequencies,
            encoding: self.encoding,
            hidden: self.hidden.clone(),
            hidden_activation: self.hidden_activation,
            output: self.output,
            init: self.init,
            backend: PhantomData,
        }
    }
}

impl<B: Backend> Default for MlpBuilder<B> {
    fn default() -> Self {
        MlpBuilder {
            input: None,
            input_scale: false,
            learned_frequencies: false,
            encoding: PendingEncoding::Fixed(EncodingConfig::None),
            hidden: Vec::new(),
            hidden_activation: Activation::Relu,
            output: None,
            init: Init::Auto,
            backend: PhantomData,
        }
    }
}

impl<B: Backend> MlpBuilder<B> {
    /// A builder with nothing set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of input features.
    pub fn input(mut self, features: usize) -> Self {
        self.input = Some(features);
        self
    }

    /// Hidden layers of these widths, all with `activation`.
    pub fn hidden(mut self, widths: &[usize], activation: Activation) -> Self {
        self.hidden = widths.to_vec();
        self.hidden_activation = activation;
        self
    }

    /// SIREN hidden layers of these widths: sine activations of frequency [`SIREN_W0`] and
    /// the SIREN initialisation ([`Init::Siren`]), the one recipe every SIREN of the project
    /// uses.
    pub fn siren(self, widths: &[usize]) -> Self {
        self.hidden(widths, Activation::Sine { w0: SIREN_W0 })
            .init(Init::Siren)
    }

    /// The number of outputs and the output activation.
    pub fn output(mut self, features: usize, activation: Activation) -> Self {
        self.output = Some((features, activation));
        self
    }

    /// An input encoding, fully specified.
    pub fn encoding(mut self, encoding: EncodingConfig) -> Self {
        self.encoding = PendingEncoding::Fixed(encoding);
        self
    }

    /// Gaussian Fourier features (`features` frequencies, scale `sigma`); the frequency
    /// matrix's seed is derived from the build seed.
    pub fn fourier_features(mut self, features: usize, sigma: f32) -> Self {
        self.encoding = PendingEncoding::Fourier { features, sigma };
        self
    }

    /// NeRF positional encoding with `bands` octaves.
    pub fn positional_encoding(mut self, bands: usize, include_input: bool) -> Self {
        self.encoding = PendingEncoding::Fixed(EncodingConfig::Positional {
            bands,
            include_input,
        });
        self
    }

    /// Whether each input feature is multiplied by a learned factor first (a
    /// [`Scale`](crate::Scale); default off).
    pub fn input_scale(mut self, on: bool) -> Self {
        self.input_scale = on;
        self
    }

    /// Whether a positional encoding's frequencies are trained (default off).
    pub fn learned_frequencies(mut self, on: bool) -> Self {
        self.learned_frequencies = on;
        self
    }

    /// The initialisation scheme (default [`Init::Auto`]).
    pub fn init(mut self, init: Init) -> Self {
        self.init = init;
        self
    }

    /// The configuration this builder describes for a build with `seed` (validated).
    pub fn config(&self, seed: u64) -> Result<MlpConfig> {
        let input = self
            .input
            .ok_or_else(|| config_err("MLP builder: the input width was not set (.input(n))"))?;
        let (output, output_activation) = self.output.ok_or_else(|| {
            config_err("MLP builder: the output was not set (.output(n, activation))")
        })?;
        let encoding = match self.encoding {
            PendingEncoding::Fixed(e) => e,
            PendingEncoding::Fourier { features, sigma } => EncodingConfig::Fourier {
                features,
                sigma,
                seed: encoding_seed(seed),
            },
        };
        let config = MlpConfig {
            input,
            input_scale: self.input_scale,
            learned_frequencies: self.learned_frequencies,
            encoding,
            hidden: self.hidden.clone(),
            hidden_activation: self.hidden_activation,
            output,
            output_activation,
            init: self.init,
        };
        config.validate()?;
        Ok(config)
    }

    /// Builds the model with parameters drawn from `seed`.
    pub fn build(self, backend: &B, seed: u64) -> Result<Mlp<B>> {
        let config = self.config(seed)?;
        Mlp::from_config(backend, &config, seed)
    }
}

/// The Fourier-matrix seed used when only the build seed is given (SplitMix64 of it, so the
/// matrix and the weights come from different streams).
pub fn encoding_seed(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

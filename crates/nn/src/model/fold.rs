//! [`Mlp::fold_input_scale`]: a network's learned input factors folded into the weights
//! that read its input, so that the same function is computed without them.

use super::config::EncodingConfig;
use super::mlp::{ENCODING_FREQUENCIES, INPUT_SCALE, Mlp};
use super::state::NamedArray;
use super::traits::Model;
use crate::Result;
use tensor_core::Backend;

/// Multiplies row `i` of the `[rows, cols]` array `a` by `factors[i]`, for the first
/// `factors.len()` rows.
fn scale_rows(a: &mut NamedArray, factors: &[f32]) {
    let cols = a.shape.get(1).copied().unwrap_or(1).max(1);
    for (row, &k) in a.data.chunks_exact_mut(cols).zip(factors) {
        row.iter_mut().for_each(|v| *v *= k);
    }
}

impl<B: Backend> Mlp<B> {
    /// The same function without learned input factors ([`MlpConfig::input_scale`]): each
    /// factor multiplies the encoding's frequencies of its feature and the first layer's
    /// weights that read the feature itself. A network without factors comes back as a copy.
    /// What is saved, blended and exported after training is the folded network.
    ///
    /// [`MlpConfig::input_scale`]: super::config::MlpConfig::input_scale
    pub fn fold_input_scale(&self) -> Result<Mlp<B>> {
        let mut state = self.export_state()?;
        let mut config = self.config().clone();
        if let Some(at) = state.iter().position(|a| a.name == INPUT_SCALE) {
            let factors = state.remove(at).data;
            let reads_input = matches!(
                config.encoding,
                EncodingConfig::None
                    | EncodingConfig::Positional {
                        include_input: true,
                        ..
                    }
            );
            for a in state.iter_mut() {
                let first_layer = a.name == "layers.0.weight" && reads_input;
                if first_layer || a.name == ENCODING_FREQUENCIES {
                    scale_rows(a, &factors);
                }
            }
            config.input_scale = false;
        }
        let mut folded = Mlp::from_config(self.backend(), &config, 0)?;
        folded.import_state(&state)?;
        Ok(folded)
    }
}

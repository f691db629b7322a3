//! [`Mlp::without_inputs`]: a network that no longer reads some of its inputs, its first
//! layer's weights from them set to zero.

use super::config::EncodingConfig;
use super::mlp::Mlp;
use super::traits::Model;
use crate::{Result, error::config_err};
use tensor_core::Backend;

impl<B: Backend> Mlp<B> {
    /// The same network with the first layer's weights that read the inputs `inputs`
    /// (indices of input columns) set to zero: its outputs no longer depend on those
    /// columns, and equal this network's on rows whose cells there are zero. A network
    /// trained on rows with those columns zeroed computes, after this, the same function on
    /// any rows. Errors on a network with learned input factors or an input encoding
    /// (fold the factors first, [`Mlp::fold_input_scale`]), and on an index past its
    /// inputs.
    pub fn without_inputs(&self, inputs: &[usize]) -> Result<Mlp<B>> {
        let config = self.config();
        if config.input_scale || config.encoding != EncodingConfig::None {
            return Err(config_err(
                "only a network reading its inputs as they are (no input factors or encoding) \
                 can leave some of them out",
            ));
        }
        if let Some(&past) = inputs.iter().find(|&&i| i >= config.input) {
            return Err(config_err(format!(
                "input {past} is past the network's {} inputs",
                config.input
            )));
        }
        let mut layers = self.dense_layers()?;
        let first = layers
            .first_mut()
            .ok_or_else(|| config_err("a network without a dense layer"))?;
        inputs.iter().for_each(|&i| first.row_mut(i).fill(0.0));
        let mut masked = Mlp::from_config(self.backend(), config, 0)?;
        masked.set_dense_layers(&layers)?;
        Ok(masked)
    }
}

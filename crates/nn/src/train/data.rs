//! [`Data`]: the training or validation set handed to the trainer.

use crate::layer::{Layer, check_input, check_matrix};
use crate::{Result, config_err};
use tensor_core::{Backend, Tensor};

/// Inputs and targets of a training or validation set, on the device.
#[derive(Debug)]
pub struct Data<'a, B: Backend> {
    /// Inputs, `[rows, input]`.
    pub x: &'a Tensor<B>,
    /// Targets, `[rows, output]`.
    pub y: &'a Tensor<B>,
}

impl<B: Backend> Clone for Data<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B: Backend> Copy for Data<'_, B> {}

impl<'a, B: Backend> Data<'a, B> {
    /// A data set from inputs and targets.
    pub fn new(x: &'a Tensor<B>, y: &'a Tensor<B>) -> Self {
        Data { x, y }
    }

    /// Checks the shapes against `model` (`pool` input rows per target row) and returns the
    /// number of input rows; `what` ("training", "validation") starts the error message.
    pub(crate) fn check(&self, model: &dyn Layer<B>, what: &str, pool: usize) -> Result<usize> {
        let rows = check_input(self.x, model.input_dim(), "training data (x)")
            .map_err(|e| config_err(format!("{what} inputs: {e}")))?;
        if !rows.is_multiple_of(pool) {
            return Err(config_err(format!(
                "{what} inputs: {rows} rows are not a whole number of groups of {pool}"
            )));
        }
        check_matrix(self.y, rows / pool, model.output_dim(), "training data (y)")
            .map_err(|e| config_err(format!("{what} targets: {e}")))?;
        Ok(rows)
    }
}

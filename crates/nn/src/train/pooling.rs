//! Area supervision: each target row is matched by the mean of a group of consecutive
//! prediction rows (see [`TrainerConfig::pool`](super::TrainerConfig::pool)).

use super::TrainerConfig;
use crate::loss::Loss;
use crate::{Result, config_err};
use tensor_core::{Backend, ReduceOp, Tensor};

/// The buffers of pooled supervision: predictions averaged over groups of `pool` rows, and
/// the gradient spread back evenly. It only needs the model's output, so it works for any
/// model.
pub(crate) struct Pooling<B: Backend> {
    pool: usize,
    mean: Tensor<B>,
    grad: Tensor<B>,
}

impl<B: Backend> Pooling<B> {
    /// The buffers for `rows` prediction rows of `out_dim` columns, or `None` without
    /// pooling (`pool` 1); an error for the setups pooling does not support.
    pub(crate) fn new(
        backend: &B,
        cfg: &TrainerConfig,
        rows: usize,
        out_dim: usize,
        has_val: bool,
    ) -> Result<Option<Self>> {
        if cfg.pool == 1 {
            return Ok(None);
        }
        if cfg.batch_size.is_some_and(|b| b < rows) {
            return Err(config_err("pooled supervision needs full-batch training"));
        }
        if has_val {
            return Err(config_err(
                "pooled supervision does not take a validation set",
            ));
        }
        let groups = rows / cfg.pool;
        Ok(Some(Pooling {
            pool: cfg.pool,
            mean: Tensor::uninit(backend, [groups, out_dim])?,
            grad: Tensor::uninit(backend, [groups, out_dim])?,
        }))
    }

    /// The loss of the group means of `pred` against `target` into `out`, and its gradient
    /// with respect to every prediction row into `grad`: the gradient of a group mean,
    /// divided by the group size, for each row of the group.
    pub(crate) fn loss_grad(
        &mut self,
        loss: Loss,
        pred: &Tensor<B>,
        target: &Tensor<B>,
        grad: &mut Tensor<B>,
        out: &mut Tensor<B>,
    ) -> Result<()> {
        pred.reduce_row_groups_into(ReduceOp::Mean, self.pool, &mut self.mean)?;
        loss.compute_into(&self.mean, target, &mut self.grad, out)?;
        self.grad.scale_assign(1.0 / self.pool as f32)?;
        self.grad.repeat_rows_into(self.pool, grad)?;
        Ok(())
    }
}

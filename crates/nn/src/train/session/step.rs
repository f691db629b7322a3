//! The work of one training step.

use super::Session;
use crate::layer::Layer;
use crate::model::Model;
use crate::optim::Optimizer;
use crate::train::batches::epoch_permutation;
use crate::{Result, config_err};
use tensor_core::{Backend, BinaryOp, Tensor};

/// The error of a session with neither tensors nor a batch source (cannot happen).
pub(super) fn no_data() -> crate::Error {
    config_err("the training session has no data")
}

/// Encoded training inputs are cached only up to this many elements (1 GiB of f32).
const MAX_CACHED_ELEMENTS: usize = 1 << 28;

impl<B: Backend> Session<'_, B> {
    /// Update number `step` (counted from 0): learning rate, batch, forward, loss, backward,
    /// clipping, optimizer update, loss sums. Nothing is allocated or read back.
    pub fn step<M: Model<B>>(
        &mut self,
        model: &mut M,
        optimizer: &mut dyn Optimizer<B>,
        step: u64,
    ) -> Result<()> {
        if let Some(s) = &self.cfg.schedule {
            self.lr = s.lr(step);
            optimizer.set_lr(self.lr);
        }
        self.load_batch(step)?;
        self.forward_backward(model)?;
        if let Some(c) = self.clipper.as_mut() {
            c.clip(model)?;
        }
        optimizer.step(model)?;
        self.buf
            .epoch_sum
            .binary_assign(BinaryOp::Add, &self.buf.loss)?;
        self.buf
            .window_sum
            .binary_assign(BinaryOp::Add, &self.buf.loss)?;
        self.window_steps += 1;
        self.steps_run += 1;
        Ok(())
    }

    /// Gathers (or slices) the mini-batch of `step`; nothing to do for full batches.
    fn load_batch(&mut self, step: u64) -> Result<()> {
        if self.shard.as_ref().is_some_and(|s| s.part.is_some()) {
            return self.load_part(step);
        }
        let Some((bx, by)) = self.buf.batch.as_mut() else {
            return Ok(());
        };
        let Some(train) = self.train else {
            let source = self.source.as_mut().ok_or_else(no_data)?;
            if !(self.filled && source.is_fixed()) {
                source.fill(step, bx, by)?;
                self.filled = true;
            }
            return Ok(());
        };
        let spe = self.plan.steps_per_epoch;
        let (epoch, start) = (step / spe, (step % spe) as usize * self.plan.batch);
        let src = self.encoded.as_ref().unwrap_or(train.x);
        if !self.cfg.shuffle {
            src.slice_rows_into(start, bx)?;
            return Ok(train.y.slice_rows_into(start, by)?);
        }
        if self.buf.index.as_ref().map(|(e, _)| *e) != Some(epoch) {
            let order = epoch_permutation(self.cfg.seed, epoch, self.rows);
            let index = train.x.backend().upload_indices(&order)?;
            self.buf.index = Some((epoch, index));
        }
        if let Some((_, idx)) = &self.buf.index {
            src.gather_rows_into(idx, start, bx)?;
            train.y.gather_rows_into(idx, start, by)?;
        }
        Ok(())
    }

    /// Forward pass, loss and gradient (pooled or not), backward pass to the parameters.
    fn forward_backward<M: Model<B>>(&mut self, model: &mut M) -> Result<()> {
        if self.shard.is_some() {
            return self.shared_pass(model);
        }
        let encoded = self.encoded.is_some();
        let (bx, by) = match (&self.buf.batch, self.train) {
            (Some((bx, by)), _) => (bx, by),
            (None, Some(t)) => (self.encoded.as_ref().unwrap_or(t.x), t.y),
            (None, None) => return Err(no_data()),
        };
        let Some(p) = &mut self.pooled else {
            let (grad, loss) = (&mut self.buf.grad, &mut self.buf.loss);
            return trainable_part(model, encoded)?.train_pass(bx, by, self.cfg.loss, grad, loss);
        };
        let pred = trainable_part(model, encoded)?.forward(bx)?;
        p.loss_grad(
            self.cfg.loss,
            pred,
            by,
            &mut self.buf.grad,
            &mut self.buf.loss,
        )?;
        trainable_part(model, encoded)?.backward_params(bx, &self.buf.grad)
    }
}

/// The training inputs run once through the model's parameter-free input encoding, when it
/// has one and the result fits the cache limit.
pub(super) fn encode_once<B: Backend, M: Model<B>>(
    model: &mut M,
    x: &Tensor<B>,
    rows: usize,
) -> Result<Option<Tensor<B>>> {
    let Some(split) = model.split_input_encoding() else {
        return Ok(None);
    };
    let width = split.encoding.output_dim();
    if rows.saturating_mul(width) > MAX_CACHED_ELEMENTS {
        return Ok(None);
    }
    let mut out = Tensor::uninit(x.backend(), [rows, width])?;
    split.encoding.infer(x, &mut out)?;
    Ok(Some(out))
}

/// The part of `model` a step trains: the whole model, or the part after its input
/// encoding when the inputs were encoded once.
pub(super) fn trainable_part<B: Backend, M: Model<B>>(
    model: &mut M,
    encoded: bool,
) -> Result<&mut dyn Layer<B>> {
    if !encoded {
        return Ok(model);
    }
    match model.split_input_encoding() {
        Some(split) => Ok(split.rest),
        None => Err(config_err(
            "the model stopped exposing its input encoding during training",
        )),
    }
}

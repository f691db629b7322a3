//! What happens between steps: loss read-backs with the NaN/Inf guard, evaluations and
//! early stopping, the final validation loss.

use super::{Marks, Session};
use crate::model::Model;
use crate::train::EVAL_ROWS;
use crate::train::state::{EpochMetrics, TrainerState};
use crate::{Data, Error, Result};
use tensor_core::Backend;

impl<B: Backend> Session<'_, B> {
    /// Which of the after-step actions are due now that `now` steps are done and `epoch`
    /// epochs were completed before this step.
    pub fn marks(&self, now: u64, epoch: u64) -> Marks {
        let c = &self.cfg;
        let end_of_epoch = now.is_multiple_of(self.plan.steps_per_epoch);
        let is_last = now == self.total;
        let eval = end_of_epoch && ((epoch + 1).is_multiple_of(c.eval_every) || is_last);
        let callback = c.callback_every > 0 && now.is_multiple_of(c.callback_every);
        let read = now.is_multiple_of(c.log_every) || callback || eval || is_last;
        Marks {
            end_of_epoch,
            eval,
            callback,
            read,
        }
    }

    /// Reads back the mean loss since the last read (the NaN/Inf guard), records it in
    /// `state` and shows it.
    pub fn read_loss(&mut self, state: &mut TrainerState) -> Result<()> {
        let mean = self.buf.window_sum.to_scalar()? / self.window_steps as f32;
        self.check_finite(state.step, mean)?;
        self.last_checked = state.step;
        self.buf.window_sum.fill(0.0)?;
        self.window_steps = 0;
        state.last_loss = Some(mean);
        Ok(())
    }

    /// The metrics of the epoch just completed (recorded in `state`), and whether early
    /// stopping asks to stop.
    pub fn evaluate<M: Model<B>>(
        &mut self,
        model: &M,
        state: &mut TrainerState,
    ) -> Result<(EpochMetrics, bool)> {
        let train_loss = self.buf.epoch_sum.to_scalar()? / self.plan.steps_per_epoch as f32;
        self.check_finite(state.step, train_loss)?;
        let val_loss = self.val_loss(model)?;
        let metrics = EpochMetrics {
            epoch: state.epoch,
            step: state.step,
            train_loss,
            val_loss,
            lr: self.lr,
        };
        state.history.push(metrics);
        let stop = match &self.cfg.early_stopping {
            Some(es) => es.update(
                &mut state.best_loss,
                &mut state.stale_evals,
                val_loss.unwrap_or(train_loss),
            ),
            None => false,
        };
        self.reset_epoch_sum(state)?;
        Ok((metrics, stop))
    }

    /// Starts a new epoch's loss sum.
    pub fn reset_epoch_sum(&mut self, state: &mut TrainerState) -> Result<()> {
        self.buf.epoch_sum.fill(0.0)?;
        state.epoch_loss_sum = 0.0;
        Ok(())
    }

    /// The loss sum of the unfinished epoch after `step` steps, read back (kept in the
    /// state so that a resumed run reports the same metrics); nothing is read when `step`
    /// ends an epoch, whose sum was just reset to zero.
    pub fn epoch_sum(&self, step: u64) -> Result<f32> {
        if step.is_multiple_of(self.plan.steps_per_epoch) {
            return Ok(0.0);
        }
        Ok(self.buf.epoch_sum.to_scalar()?)
    }

    /// The validation loss at the end of training: the last evaluation's, or a fresh one
    /// when steps ran since.
    pub fn final_val_loss<M: Model<B>>(
        &mut self,
        model: &M,
        state: &TrainerState,
    ) -> Result<Option<f32>> {
        let last = state.history.last();
        if last.map(|m| m.step) == Some(state.step) {
            return Ok(last.and_then(|m| m.val_loss));
        }
        match self.val {
            Some(_) => self.val_loss(model),
            None => Ok(last.and_then(|m| m.val_loss)),
        }
    }

    /// The loss of `model` on the validation set, [`EVAL_ROWS`] rows at a time so that the
    /// activations stay bounded however many rows there are: a set of more rows is the
    /// row-weighted mean of its chunks' losses (every loss is a mean over rows). In a
    /// data-parallel run each process scores its share of the rows (or the part it holds),
    /// and the shares' weighted losses are summed.
    fn val_loss<M: Model<B>>(&mut self, model: &M) -> Result<Option<f32>> {
        let Some(v) = &self.val else {
            return Ok(None);
        };
        if let Some(s) = &self.shard {
            let rows = v.x.dims()[0];
            let (mine, whole) = match &s.part {
                Some(p) => (0..rows, p.val_total),
                None => (s.rows_of(rows), rows),
            };
            let part = chunked_loss(self.cfg.loss, model, v, mine)?;
            return Ok(Some(s.total((part / whole.max(1) as f64) as f32)?));
        }
        if let Some((grad, out)) = self.val_bufs.as_mut() {
            let pred = model.predict(v.x)?;
            self.cfg.loss.compute_into(&pred, v.y, grad, out)?;
            return Ok(Some(out.to_scalar()?));
        }
        let rows = v.x.dims()[0];
        let sum = chunked_loss(self.cfg.loss, model, v, 0..rows)?;
        Ok(Some((sum / rows as f64) as f32))
    }

    /// The NaN/Inf guard.
    fn check_finite(&self, step: u64, value: f32) -> Result<()> {
        if value.is_finite() {
            return Ok(());
        }
        Err(Error::NonFiniteLoss {
            step,
            last_finite_step: self.last_checked,
            value,
        })
    }
}

/// The sum over rows `range` of `data` of the loss of `model` on each row, [`EVAL_ROWS`] rows
/// at a time.
fn chunked_loss<B: Backend, M: Model<B>>(
    loss: crate::Loss,
    model: &M,
    data: &Data<'_, B>,
    range: std::ops::Range<usize>,
) -> Result<f64> {
    let mut sum = 0f64;
    for start in range.clone().step_by(EVAL_ROWS) {
        let n = EVAL_ROWS.min(range.end - start);
        let pred = model.predict(&data.x.slice_rows(start, n)?)?;
        let value = loss.value(&pred, &data.y.slice_rows(start, n)?)?;
        sum += f64::from(value) * n as f64;
    }
    Ok(sum)
}

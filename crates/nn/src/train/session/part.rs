//! The step of a process of a data-parallel run: its rows of the global batch, when it
//! holds only its part of the data ([`Holding::Part`](crate::train::Holding::Part)), and
//! its pass and the group's sum of the gradients.

use super::Session;
use super::step::{no_data, trainable_part};
use crate::Result;
use crate::model::Model;
use crate::train::batches::epoch_permutation;
use std::sync::atomic::Ordering;
use tensor_core::Backend;

impl<B: Backend> Session<'_, B> {
    /// Loads the rows of step `step`'s global batch that this process holds: from its batch
    /// source, or gathered from its part of the tensors (the whole part, for full batches).
    pub(super) fn load_part(&mut self, step: u64) -> Result<()> {
        let batch = self.plan.batch;
        let s = self.shard.as_mut().ok_or_else(no_data)?;
        if let Some(source) = self.source.as_mut() {
            if self.filled && source.is_fixed() {
                return Ok(());
            }
            let n = source.part_rows(step)?;
            s.resize(n, source.batch_rows())?;
            if n > 0 {
                source.fill(step, &mut s.x, &mut s.y)?;
            }
            self.filled = true;
            return Ok(());
        }
        let train = self.train.ok_or_else(no_data)?;
        let part = s.part.as_ref().ok_or_else(no_data)?;
        if self.plan.full_batch {
            s.count(part.train.len(), batch);
            return Ok(());
        }
        let spe = self.plan.steps_per_epoch;
        let (epoch, start) = (step / spe, (step % spe) as usize * batch);
        let rows = start..start + batch;
        if !self.cfg.shuffle {
            part.local(rows, &mut s.local);
        } else {
            if s.order.as_ref().map(|(e, _)| *e) != Some(epoch) {
                let order = epoch_permutation(self.cfg.seed, epoch, self.rows);
                s.order = Some((epoch, order));
            }
            let order = s.order.as_ref().map_or(&[][..], |(_, o)| &o[rows]);
            part.local(order.iter().map(|&r| r as usize), &mut s.local);
        }
        let n = s.local.len();
        s.resize(n, batch)?;
        if n > 0 {
            let index = train.x.backend().upload_indices(&s.local)?;
            let src = self.encoded.as_ref().unwrap_or(train.x);
            src.gather_rows_into(&index, 0, &mut s.x)?;
            train.y.gather_rows_into(&index, 0, &mut s.y)?;
        }
        Ok(())
    }

    /// This process's pass on its rows of the step, then the group's sum of the weighted
    /// gradients and losses (with whether any process was asked to stop).
    pub(super) fn shared_pass<M: Model<B>>(&mut self, model: &mut M) -> Result<()> {
        let encoded = self.encoded.is_some();
        let s = self.shard.as_mut().ok_or_else(no_data)?;
        let mut whole_part = None;
        if s.part.is_none() {
            let (bx, by) = match (&self.buf.batch, self.train) {
                (Some((bx, by)), _) => (bx, by),
                (None, Some(t)) => (self.encoded.as_ref().unwrap_or(t.x), t.y),
                (None, None) => return Err(no_data()),
            };
            s.take(bx, by)?;
        } else if let (true, Some(t)) = (self.plan.full_batch, self.train) {
            whole_part = Some((self.encoded.as_ref().unwrap_or(t.x), t.y));
        }
        let part = trainable_part(model, encoded)?;
        s.pass(part, whole_part, self.cfg.loss, &mut self.buf.loss)?;
        let asked = self
            .stop_flag
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed));
        self.group_stop = s.sum(part, &mut self.buf.loss, asked)?;
        Ok(())
    }
}

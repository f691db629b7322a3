//! Data-parallel training: the processes of one run, each computing the gradient of its share
//! of every global batch, the gradients summed between steps.
//!
//! The trainer knows the group only as a [`Replicas`]: its rank, its size and an element-wise
//! sum over every process. What carries the sum (MPI, NCCL, threads) is the caller's.

use super::part::PartRows;
use crate::layer::Layer;
use crate::{Error, Loss, Result};
use std::any::Any;
use std::ops::Range;
use std::sync::Arc;
use tensor_core::{Backend, Tensor};

/// The processes that train one model together, as the trainer sees them.
///
/// Every process runs the same steps on the same global batches; each computes the gradient
/// of its share ([`share`]) and [`sum`](Replicas::sum) adds the weighted gradients up, so
/// that every process takes the same optimizer step.
pub trait Replicas: Send + Sync + std::fmt::Debug {
    /// This process's place in the group, `0..size`.
    fn rank(&self) -> usize;
    /// The number of processes.
    fn size(&self) -> usize;
    /// Replaces `values` with their element-wise sum over every process (an allreduce).
    /// Every process calls it with as many values, in the same order of calls; the error is
    /// one line naming what failed.
    fn sum(&self, values: &mut [f32]) -> std::result::Result<(), String>;

    /// Whether the group sums the trainer's buffers on the device where they are
    /// ([`sum_on_device`](Replicas::sum_on_device); NCCL between GPUs): the trainer then
    /// lays a step's gradients end to end in one device buffer for one sum, instead of
    /// reading them back to the host. No, by default.
    fn sums_on_device(&self) -> bool {
        false
    }

    /// Replaces `values`, a [`Tensor`] of the trainer's backend, with its element-wise sum
    /// over every process, on the device, where the group
    /// [`sums_on_device`](Replicas::sums_on_device); called as [`sum`](Replicas::sum) is.
    /// The default refuses: a group that sums through the host only.
    fn sum_on_device(&self, values: &mut dyn Any) -> std::result::Result<(), String> {
        let _ = values;
        Err("this group of processes sums through the host only".into())
    }
}

/// The rows of a batch of `rows` rows that process `rank` of `size` computes: a contiguous
/// run, the first `rows % size` processes taking one row more.
pub fn share(rows: usize, rank: usize, size: usize) -> Range<usize> {
    let (base, extra) = (rows / size, rows % size);
    let start = rank * base + rank.min(extra);
    start..start + base + usize::from(rank < extra)
}

/// A process's part of a data-parallel step: its rows of each global batch, on the device,
/// and the host buffer its gradients are summed through.
pub(super) struct Shard<B: Backend> {
    replicas: Arc<dyn Replicas>,
    /// The rows of the global batch this process computes, when every process holds the
    /// whole data.
    pub rows: Range<usize>,
    /// Where this process's rows lie in the whole sets, when it holds only its part.
    pub part: Option<PartRows>,
    /// This process's rows' share of the batch (its rows / the batch's): its mean
    /// gradient's weight in the global mean.
    weight: f32,
    /// This process's inputs and targets of the step: `rows` of the global batch, or the
    /// batch's rows of its part (`n` of them; the buffers keep their last size when `n`
    /// is 0), and the loss gradient.
    pub x: Tensor<B>,
    pub y: Tensor<B>,
    pub grad: Tensor<B>,
    /// The rows of this step in `x` and `y`.
    pub n: usize,
    /// The step's rows as indices into the part, before their upload.
    pub local: Vec<u32>,
    /// The row order of the whole training set in an epoch, with its epoch.
    pub order: Option<(u64, Vec<u32>)>,
    /// Every gradient and the loss, end to end, for the one sum of a step.
    host: Vec<f32>,
    /// The same on the device, for a group that sums there, and the one-value buffer of the
    /// stop flag (both allocated at the first step).
    fused: Option<(Tensor<B>, Tensor<B>)>,
}

/// Refuses a training run that `size` processes cannot share: a global batch of fewer
/// `batch` rows than processes, or `pooled` supervision (targets of pooled outputs). A run
/// checks this before it writes anything (each process's shard of the batch checks it again).
pub fn check_shareable(batch: usize, pooled: bool, size: usize) -> Result<()> {
    if size <= 1 {
        return Ok(());
    }
    if pooled {
        return Err(Error::Config(
            "pooled supervision is not shared between processes; train it in one".into(),
        ));
    }
    if batch < size {
        let rows = if batch == 1 { "row" } else { "rows" };
        return Err(Error::Config(format!(
            "a batch of {batch} {rows} cannot be shared by {size} processes; use batches of at \
             least {size} rows"
        )));
    }
    Ok(())
}

impl<B: Backend> Shard<B> {
    /// The shard of `replicas` for global batches of `batch` rows of `in_width` inputs and
    /// `out_dim` targets; refused where a process would get no row.
    pub fn new(
        backend: &B,
        replicas: Arc<dyn Replicas>,
        batch: usize,
        in_width: usize,
        out_dim: usize,
    ) -> Result<Self> {
        let size = replicas.size();
        check_shareable(batch, false, size)?;
        let rows = share(batch, replicas.rank(), size);
        // Every process gets at least one row of a batch that passed the check.
        let mut shard = Self::empty(backend, replicas, rows.len(), (in_width, out_dim))?;
        shard.count(rows.len(), batch);
        shard.rows = rows;
        Ok(shard)
    }

    /// The shard of a process of `replicas` holding only its `part` of the data, with
    /// `in_width` inputs and `out_dim` targets a row.
    pub fn of_part(
        backend: &B,
        replicas: Arc<dyn Replicas>,
        part: PartRows,
        in_width: usize,
        out_dim: usize,
    ) -> Result<Self> {
        let mut shard = Self::empty(backend, replicas, 1, (in_width, out_dim))?;
        shard.part = Some(part);
        Ok(shard)
    }

    /// A shard of no row yet, its step's buffers of `rows` rows of `in_width` inputs and
    /// `out_dim` targets.
    fn empty(
        backend: &B,
        replicas: Arc<dyn Replicas>,
        rows: usize,
        (in_width, out_dim): (usize, usize),
    ) -> Result<Self> {
        Ok(Shard {
            weight: 0.0,
            x: Tensor::uninit(backend, [rows, in_width])?,
            y: Tensor::uninit(backend, [rows, out_dim])?,
            grad: Tensor::uninit(backend, [rows, out_dim])?,
            n: 0,
            rows: 0..0,
            part: None,
            local: Vec::new(),
            order: None,
            replicas,
            host: Vec::new(),
            fused: None,
        })
    }

    /// Makes the step's buffers hold `n` rows of the global batch's `batch` (new buffers
    /// where the size changes; none for no row), weighted `n / batch`.
    pub fn resize(&mut self, n: usize, batch: usize) -> Result<()> {
        self.count(n, batch);
        if n == 0 || self.x.dims()[0] == n {
            return Ok(());
        }
        let backend = self.x.backend().clone();
        let (w, o) = (self.x.dims()[1], self.y.dims()[1]);
        self.x = Tensor::uninit(&backend, [n, w])?;
        self.y = Tensor::uninit(&backend, [n, o])?;
        self.grad = Tensor::uninit(&backend, [n, o])?;
        Ok(())
    }

    /// Takes `n` rows of the global batch's `batch` this step, held elsewhere than in the
    /// step's buffers (a whole part).
    pub fn count(&mut self, n: usize, batch: usize) {
        self.n = n;
        self.weight = n as f32 / batch.max(1) as f32;
    }

    /// The training pass of `model` on the step's rows (`x` and `y`, or the shard's own
    /// buffers): the loss into `loss_out`, the gradients set; with no row, both zero.
    pub fn pass(
        &mut self,
        model: &mut dyn Layer<B>,
        data: Option<(&Tensor<B>, &Tensor<B>)>,
        loss: Loss,
        loss_out: &mut Tensor<B>,
    ) -> Result<()> {
        if self.n == 0 {
            loss_out.fill(0.0)?;
            return model.zero_grads();
        }
        let Shard { x, y, grad, .. } = self;
        let (x, y) = data.unwrap_or((x, y));
        if grad.dims()[0] != self.n {
            *grad = Tensor::uninit(x.backend(), [self.n, y.dims()[1]])?;
        }
        model.train_pass(x, y, loss, grad, loss_out)
    }

    /// This process's rows of a set of `rows` rows shared as a batch is.
    pub fn rows_of(&self, rows: usize) -> Range<usize> {
        share(rows, self.replicas.rank(), self.replicas.size())
    }

    /// The sum of `value` over every process.
    pub fn total(&self, value: f32) -> Result<f32> {
        let mut v = [value];
        self.replicas.sum(&mut v).map_err(Error::Config)?;
        Ok(v[0])
    }

    /// Copies this process's rows of the global batch `(x, y)` into its buffers.
    pub fn take(&mut self, x: &Tensor<B>, y: &Tensor<B>) -> Result<()> {
        x.slice_rows_into(self.rows.start, &mut self.x)?;
        Ok(y.slice_rows_into(self.rows.start, &mut self.y)?)
    }

    /// Turns every process's gradients of its own rows' mean loss, and that loss, into the
    /// gradients and loss of the global batch's mean: each weighted by its rows' share, then
    /// summed over the processes in one call, with whether this process was asked to stop.
    /// Returns whether any process was: all then stop after the same step.
    pub fn sum(
        &mut self,
        model: &mut dyn Layer<B>,
        loss: &mut Tensor<B>,
        stop: bool,
    ) -> Result<bool> {
        if self.replicas.sums_on_device() {
            return self.sum_on_device(model, loss, stop);
        }
        self.host.clear();
        model.visit_params(&mut |p| {
            self.host.extend(p.grad.to_vec()?);
            Ok(())
        })?;
        self.host.extend(loss.to_vec()?);
        for v in &mut self.host {
            *v *= self.weight;
        }
        self.host.push(if stop { 1.0 } else { 0.0 });
        self.replicas.sum(&mut self.host).map_err(Error::Config)?;
        let mut at = 0;
        model.visit_params_mut(&mut |p| {
            let n = p.grad.numel();
            p.grad.upload(&self.host[at..at + n])?;
            at += n;
            Ok(())
        })?;
        loss.upload(&self.host[at..at + 1])?;
        Ok(self.host[at + 1] > 0.0)
    }

    /// [`Shard::sum`] on the device: the gradients and the loss laid end to end in one
    /// device buffer, weighted, the stop flag after them, summed in place by the group;
    /// only the flag is read back.
    fn sum_on_device(
        &mut self,
        model: &mut dyn Layer<B>,
        loss: &mut Tensor<B>,
        stop: bool,
    ) -> Result<bool> {
        let mut params = 0;
        model.visit_params(&mut |p| {
            params += p.grad.numel();
            Ok(())
        })?;
        let backend = loss.backend().clone();
        let (fused, flag) = match &mut self.fused {
            Some((f, flag)) if f.numel() == params + 2 => (f, flag),
            slot => {
                let buffers = (
                    Tensor::uninit(&backend, [params + 2])?,
                    Tensor::uninit(&backend, [1])?,
                );
                let (f, flag) = slot.insert(buffers);
                (f, flag)
            }
        };
        let mut at = 0;
        model.visit_params(&mut |p| {
            fused.copy_flat_from(at, p.grad)?;
            at += p.grad.numel();
            Ok(())
        })?;
        fused.copy_flat_from(at, loss)?;
        fused.scale_assign(self.weight)?;
        flag.upload(&[if stop { 1.0 } else { 0.0 }])?;
        fused.copy_flat_from(at + 1, flag)?;
        self.replicas
            .sum_on_device(fused as &mut dyn Any)
            .map_err(Error::Config)?;
        at = 0;
        model.visit_params_mut(&mut |p| {
            fused.copy_flat_into(at, p.grad)?;
            at += p.grad.numel();
            Ok(())
        })?;
        fused.copy_flat_into(at, loss)?;
        fused.copy_flat_into(at + 1, flag)?;
        Ok(flag.to_scalar()? > 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::share;

    #[test]
    fn shares_cover_the_batch_once() {
        for rows in [1, 2, 7, 64, 65, 1000] {
            for size in 1..=rows.min(9) {
                let parts: Vec<_> = (0..size).map(|r| share(rows, r, size)).collect();
                assert_eq!(parts[0].start, 0);
                assert_eq!(parts[size - 1].end, rows);
                for w in parts.windows(2) {
                    assert_eq!(w[0].end, w[1].start);
                }
                let (min, max) = parts.iter().fold((usize::MAX, 0), |(a, b), p| {
                    (a.min(p.len()), b.max(p.len()))
                });
                assert!(max - min <= 1, "{rows} rows over {size}: {parts:?}");
            }
        }
    }
}

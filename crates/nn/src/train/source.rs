//! Training data made per step: [`BatchSource`], and [`TrainData`], what the trainer
//! trains on (tensors or a source).

use super::Data;
use crate::Result;
use tensor_core::{Backend, Tensor};

/// A generator of training batches: step `k` gets a batch that depends on `k` alone (and
/// on the source's own settings, such as a seed), so that a resumed run sees the same
/// batches as an uninterrupted one. With it, the training set never has to exist as a
/// whole: an image's pixels are drawn per step from a compact copy of the image
/// ([`PixelSampler`](super::PixelSampler)), so memory is O(data + batch x width).
pub trait BatchSource<B: Backend>: Send {
    /// Target rows per batch (input rows are `pool` times as many, see
    /// [`TrainerConfig::pool`](super::TrainerConfig::pool)).
    fn batch_rows(&self) -> usize;

    /// Input columns.
    fn input_dim(&self) -> usize;

    /// Target columns.
    fn output_dim(&self) -> usize;

    /// Steps counted as one epoch (e.g. the data's rows divided by the batch size, at
    /// least 1): evaluations and [`TrainLength::Epochs`](super::TrainLength::Epochs) use it.
    fn steps_per_epoch(&self) -> u64;

    /// Whether every step's batch is the same (e.g. a whole small image): the trainer then
    /// fills its buffers once per `fit` call.
    fn is_fixed(&self) -> bool {
        false
    }

    /// Writes the inputs (`[batch_rows * pool, input_dim]`) and targets
    /// (`[batch_rows, output_dim]`) of step `step` (counted from 0); for a source that
    /// [`makes_parts`](BatchSource::makes_parts), this process's part of them
    /// ([`part_rows`](BatchSource::part_rows) rows, at least one).
    fn fill(&mut self, step: u64, x: &mut Tensor<B>, y: &mut Tensor<B>) -> Result<()>;

    /// Whether the source makes only this process's part of each global batch of
    /// `batch_rows` rows, in a data-parallel run whose processes each hold their part of
    /// the data ([`Holding::Part`](super::Holding::Part)). No, by default.
    fn makes_parts(&self) -> bool {
        false
    }

    /// The rows of step `step`'s global batch that fall in this process's part (0 to
    /// `batch_rows`), which the next [`fill`](BatchSource::fill) of that step writes; only
    /// called on a source that [`makes_parts`](BatchSource::makes_parts).
    fn part_rows(&mut self, step: u64) -> Result<usize> {
        let _ = step;
        Ok(self.batch_rows())
    }
}

/// What a trainer trains on: fixed tensors ([`Data`], full batch or shuffled
/// mini-batches) or a [`BatchSource`] that makes every step's batch. `Data` converts
/// into it, so [`Trainer::fit`](super::Trainer::fit) takes either.
pub enum TrainData<'a, B: Backend> {
    /// Inputs and targets on the device.
    Tensors(Data<'a, B>),
    /// Batches made per step.
    Sampled(&'a mut dyn BatchSource<B>),
}

impl<'a, B: Backend> From<Data<'a, B>> for TrainData<'a, B> {
    fn from(data: Data<'a, B>) -> Self {
        TrainData::Tensors(data)
    }
}

impl<'a, B: Backend, S: BatchSource<B>> From<&'a mut S> for TrainData<'a, B> {
    fn from(source: &'a mut S) -> Self {
        TrainData::Sampled(source)
    }
}

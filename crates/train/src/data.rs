//! What a training run trains on ([`RunData`]) and what it must know of the whole training
//! set ([`DataSummary`]) when batches are drawn per step instead of read from tensors.

use crate::Result;
use crate::divergence::{Watch, mean_square};
use io::checkpoint::DataFingerprint;
use nn::{BatchSource, Data, Loss, PixelValues, TrainData};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tensor_core::Backend;

/// A summary of a whole training set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataSummary {
    /// Stored in checkpoints and compared on `--resume`.
    pub fingerprint: DataFingerprint,
    /// The mean square of the targets the network learns (the loss of predicting zeros),
    /// for the divergence watch.
    pub targets_mean_square: f64,
    /// Values per target row.
    pub target_width: usize,
}

impl DataSummary {
    /// The summary of an image's pixels (`values`, `channels` per pixel, row-major) learnt
    /// as `value - offset[channel]`: the fingerprint covers the shape
    /// `[pixels, 2, channels]` and every value (the coordinates follow from the shape).
    pub fn of_pixels(values: &[f32], channels: usize, offset: &[f32]) -> Self {
        Self::of_pixel_values(values.len(), |i| values[i], channels, offset)
    }

    /// [`DataSummary::of_pixels`] of a compact copy of the pixels (no `f32` copy made).
    pub fn of_compact_pixels(values: &PixelValues, channels: usize, offset: &[f32]) -> Self {
        Self::of_pixel_values(values.len(), |i| values.get(i), channels, offset)
    }

    fn of_pixel_values(
        len: usize,
        value: impl Fn(usize) -> f32,
        channels: usize,
        offset: &[f32],
    ) -> Self {
        let c = channels.max(1);
        let pixels = len / c;
        let fingerprint = DataFingerprint::of_values(
            Vec::new(),
            vec![pixels, 2, c],
            [(len, (0..len).map(&value))],
        );
        let sum: f64 = (0..len)
            .map(|i| f64::from(value(i) - offset.get(i % c).copied().unwrap_or(0.0)).powi(2))
            .sum();
        DataSummary {
            fingerprint,
            targets_mean_square: sum / len.max(1) as f64,
            target_width: c,
        }
    }

    /// The summary of tensors, read back once; column names come from the job's `extra`
    /// metadata (see [`fingerprint`]).
    fn of_tensors<B: Backend>(data: Data<'_, B>, extra: &Value) -> Result<Self> {
        let targets = data.y.to_vec()?;
        // Read in place where the host can (no copy of the inputs on the CPU).
        let copied;
        let x = match data.x.host_slice() {
            Some(x) => x,
            None => {
                copied = data.x.to_vec()?;
                &copied
            }
        };
        let fingerprint = fingerprint(x, &targets, data, extra);
        Ok(DataSummary {
            fingerprint,
            targets_mean_square: mean_square(&targets),
            target_width: data.y.dims().get(1).copied().unwrap_or(1),
        })
    }

    /// The divergence watch for `loss` at learning rate `lr`.
    pub fn watch(&self, loss: Loss, lr: f32) -> Watch {
        Watch::with_mean_square(loss, self.targets_mean_square, self.target_width, lr)
    }
}

/// What a run trains on: tensors (summarised by reading them back once), or a batch source
/// with the summary of the data it draws from.
pub enum RunData<'d, B: Backend> {
    /// Inputs and targets on the device.
    Tensors(Data<'d, B>),
    /// Batches made per step, with the summary of the whole data. In a run over several
    /// processes ([`crate::ranks`]), a source that makes its process's part of each batch
    /// ([`BatchSource::makes_parts`], a [`PixelSampler::band`](nn::PixelSampler::band))
    /// trains as one ([`nn::Holding::Part`]); the summary is still the whole data's.
    Sampled(&'d mut dyn BatchSource<B>, DataSummary),
}

impl<'d, B: Backend> From<Data<'d, B>> for RunData<'d, B> {
    fn from(data: Data<'d, B>) -> Self {
        RunData::Tensors(data)
    }
}

impl<'d, B: Backend> RunData<'d, B> {
    /// The trainer's view of the data and its summary.
    pub fn split(self, extra: &Value) -> Result<(TrainData<'d, B>, DataSummary)> {
        Ok(match self {
            RunData::Tensors(d) => (TrainData::Tensors(d), DataSummary::of_tensors(d, extra)?),
            RunData::Sampled(source, summary) => (TrainData::Sampled(source), summary),
        })
    }
}

/// The fingerprint of a training set (inputs `x`, targets `y`, as read back from `data`):
/// column names from the job's metadata (`feature_names` and `target_name`, when it has
/// them), the shape `[rows, inputs, outputs]` and a hash of every value.
pub fn fingerprint<B: Backend>(
    x: &[f32],
    y: &[f32],
    data: Data<'_, B>,
    extra: &Value,
) -> DataFingerprint {
    let mut names: Vec<String> = extra
        .get("feature_names")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    if let Some(target) = extra.get("target_name").and_then(Value::as_str) {
        names.push(target.to_string());
    }
    let dims = |t: &tensor_core::Tensor<B>| t.dims().to_vec();
    let shape = [dims(data.x), dims(data.y)[1..].to_vec()].concat();
    DataFingerprint::new(names, shape, [x, y])
}

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
        let dims = |t: &tensor_core::Tensor<B>| t.dims().to_vec();
        let shape = [dims(data.x), dims(data.y)[1..].to_vec()].concat();
        Ok(Self::of_values(x, &targets, shape, extra))
    }

    /// The summary of a whole training set held on the host, as a run over several
    /// processes that each hold a part of it needs ([`RunData::Part`]): `rows` rows of inputs
    /// `x` and of targets `y` (as the network learns them), both row-major. It is the summary
    /// [`RunData::Tensors`] makes of the same rows, so that a run resumes on any number of
    /// processes. Refused where `x` or `y` is not a whole number of rows.
    pub fn of_rows(x: &[f32], y: &[f32], rows: usize, extra: &Value) -> Result<Self> {
        let width = |len: usize, what: &str| match rows > 0 && len.is_multiple_of(rows) {
            true => Ok(len / rows),
            false => Err(crate::Error::Refused(format!(
                "{len} {what} values are not {rows} whole rows"
            ))),
        };
        let shape = vec![rows, width(x.len(), "input")?, width(y.len(), "target")?];
        Ok(Self::of_values(x, y, shape, extra))
    }

    /// The summary of inputs `x` and targets `y` of `shape` (`[rows, inputs, targets]`).
    fn of_values(x: &[f32], y: &[f32], shape: Vec<usize>, extra: &Value) -> Self {
        DataSummary {
            target_width: shape.get(2).copied().unwrap_or(1),
            fingerprint: fingerprint(x, y, shape, extra),
            targets_mean_square: mean_square(y),
        }
    }

    /// The divergence watch for `loss` at learning rate `lr`.
    pub fn watch(&self, loss: Loss, lr: f32) -> Watch {
        Watch::with_mean_square(loss, self.targets_mean_square, self.target_width, lr)
    }
}

/// What a run trains on: tensors (summarised by reading them back once), this process's part
/// of the rows as tensors, or a batch source with the summary of the data it draws from.
pub enum RunData<'d, B: Backend> {
    /// Inputs and targets on the device.
    Tensors(Data<'d, B>),
    /// This process's part of the training rows on the device, in a run over several
    /// processes ([`crate::ranks`]) that each hold their own rows ([`nn::Holding::Part`]):
    /// the processes' parts, in the order of their ranks, make the whole set, and their
    /// validation rows (the run's `val`) the whole validation set. With the whole sets'
    /// summary ([`DataSummary::of_rows`]) and sizes.
    Part(Data<'d, B>, DataSummary, WholeRows),
    /// Batches made per step, with the summary of the whole data. In a run over several
    /// processes ([`crate::ranks`]), a source that makes its process's part of each batch
    /// ([`BatchSource::makes_parts`], a [`PixelSampler::band`](nn::PixelSampler::band))
    /// trains as one ([`nn::Holding::Part`]); the summary is still the whole data's.
    Sampled(&'d mut dyn BatchSource<B>, DataSummary),
}

/// The sizes of the whole sets that the processes of a run hold parts of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WholeRows {
    /// The whole training set's rows.
    pub train: usize,
    /// The whole validation set's rows.
    pub validation: usize,
}

/// What a run trains on as the trainer takes it, with the whole data's summary and, where
/// this process holds a part of the rows, the whole sets' sizes.
pub struct SplitData<'d, B: Backend> {
    /// The trainer's view of the data.
    pub train: TrainData<'d, B>,
    /// The whole training set's summary.
    pub summary: DataSummary,
    /// The whole sets' sizes, where this process holds a part of them.
    pub whole: Option<WholeRows>,
    /// Whether this process holds only its part of the data (tensors of a part, or a batch
    /// source making parts).
    pub holds_part: bool,
}

impl<'d, B: Backend> From<Data<'d, B>> for RunData<'d, B> {
    fn from(data: Data<'d, B>) -> Self {
        RunData::Tensors(data)
    }
}

impl<'d, B: Backend> RunData<'d, B> {
    /// The trainer's view of the data, its summary and what this process holds of it.
    pub fn split(self, extra: &Value) -> Result<SplitData<'d, B>> {
        Ok(match self {
            RunData::Tensors(d) => SplitData {
                summary: DataSummary::of_tensors(d, extra)?,
                train: TrainData::Tensors(d),
                whole: None,
                holds_part: false,
            },
            RunData::Part(d, summary, whole) => SplitData {
                train: TrainData::Tensors(d),
                summary,
                whole: Some(whole),
                holds_part: true,
            },
            RunData::Sampled(source, summary) => SplitData {
                holds_part: source.makes_parts(),
                train: TrainData::Sampled(source),
                summary,
                whole: None,
            },
        })
    }
}

/// The fingerprint of a training set of `shape` (`[rows, inputs, targets]`): inputs `x`,
/// targets `y`, column names from the job's metadata (`feature_names` and `target_name`,
/// when it has them), and a hash of the shape and every value.
pub fn fingerprint(x: &[f32], y: &[f32], shape: Vec<usize>, extra: &Value) -> DataFingerprint {
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
    DataFingerprint::new(names, shape, [x, y])
}
